//! Query parsing: the same analysis as the index, then stopwords out, quoted phrases
//! recognised, every term looked up once in the dictionary.

use crate::analyze::{Analyzer, TermKind, is_stopword};
use crate::model::{ArchivedIndexTerm, ArchivedSearchIndex};

use super::Params;

/// Queries are cut at this many bytes (at a character boundary).
pub const MAX_QUERY_BYTES: usize = crate::contract::SEARCH_MAX_QUERY_BYTES;
/// At most this many distinct terms are scored; the rarest are kept.
pub const MAX_TERMS: usize = 16;

#[derive(Debug, Clone)]
pub struct QueryTerm<'a> {
    pub text: String,
    pub kind: TermKind,
    /// Position in the query, for proximity.
    pub position: u32,
    /// Weight of the term in the score (0 for stopwords kept only for phrases).
    pub weight: f32,
    pub entry: &'a ArchivedIndexTerm,
}

/// A quoted phrase: term indices with their offsets from the phrase start.
#[derive(Debug, Clone, Default)]
pub struct Phrase {
    pub terms: Vec<(usize, u32)>,
}

#[derive(Debug, Clone, Default)]
pub struct Query<'a> {
    pub terms: Vec<QueryTerm<'a>>,
    pub phrases: Vec<Phrase>,
    /// Words of the query (lowercased, as written) that occur nowhere in the catalog.
    pub unknown: Vec<String>,
    /// A quoted phrase has a word that occurs nowhere: nothing can match.
    pub impossible: bool,
}

impl Query<'_> {
    /// Whether the query has anything to score.
    pub fn is_empty(&self) -> bool {
        self.terms.iter().all(|t| t.weight == 0.0)
    }
}

/// Split `raw` into free text and quoted phrases. An unmatched quote is ignored.
fn split_phrases(raw: &str) -> (String, Vec<&str>) {
    let mut free = String::new();
    let mut phrases = Vec::new();
    let mut rest = raw;
    while let Some(open) = rest.find('"') {
        let after = &rest[open + 1..];
        match after.find('"') {
            Some(close) => {
                free.push_str(&rest[..open]);
                free.push(' ');
                phrases.push(&after[..close]);
                rest = &after[close + 1..];
            }
            None => {
                free.push_str(&rest[..open]);
                free.push(' ');
                rest = after;
            }
        }
    }
    free.push_str(rest);
    (free, phrases)
}

pub fn parse<'a>(
    index: &'a ArchivedSearchIndex,
    raw: &str,
    params: &Params,
    analyzer: &mut Analyzer,
) -> Query<'a> {
    let mut cut = raw.len().min(MAX_QUERY_BYTES);
    while !raw.is_char_boundary(cut) {
        cut -= 1;
    }
    let (free, phrase_texts) = split_phrases(&raw[..cut]);
    let mut query = Query::default();
    // (term, kind, position, phrase, the word as written) of every analysed term.
    let mut analysed: Vec<(String, TermKind, u32, Option<usize>, String)> = Vec::new();
    let mut position = 0;
    for (p, text) in phrase_texts.iter().enumerate() {
        position = analyzer.analyze(text, position, |t| {
            let written = text[t.start..t.end].to_lowercase();
            analysed.push((t.text.to_owned(), t.kind, t.position, Some(p), written));
        }) + 1;
    }
    analyzer.analyze(&free, position, |t| {
        let written = free[t.start..t.end].to_lowercase();
        analysed.push((t.text.to_owned(), t.kind, t.position, None, written));
    });

    let all_stopwords = analysed
        .iter()
        .all(|(text, kind, ..)| is_plain(*kind) && is_stopword(text));
    let mut phrases: Vec<Phrase> = vec![Phrase::default(); phrase_texts.len()];
    let mut phrase_start: Vec<Option<u32>> = vec![None; phrase_texts.len()];
    for (text, kind, position, phrase, written) in analysed {
        let stop = is_plain(kind) && is_stopword(&text) && !all_stopwords;
        let weight = if stop {
            0.0
        } else {
            match kind {
                TermKind::Part => params.part_weight,
                TermKind::Identifier | TermKind::Compound => params.whole_weight,
                TermKind::Word => 1.0,
            }
        };
        // Stopwords matter only inside phrases; whole identifiers and compounds are not
        // needed there (their parts are checked position by position).
        if stop && phrase.is_none() {
            continue;
        }
        let Some(entry) = index.term(&text) else {
            if phrase.is_some() && is_plain(kind) {
                query.impossible = true;
            }
            if is_plain(kind) && !stop && !query.unknown.contains(&written) {
                query.unknown.push(written);
            }
            continue;
        };
        let existing = query.terms.iter().position(|t| t.text == text);
        let i = match existing {
            Some(i) => {
                let term = &mut query.terms[i];
                term.weight = term.weight.max(weight);
                i
            }
            None => {
                query.terms.push(QueryTerm {
                    text,
                    kind,
                    position,
                    weight,
                    entry,
                });
                query.terms.len() - 1
            }
        };
        if let Some(p) = phrase
            && is_plain(kind)
        {
            let start = *phrase_start[p].get_or_insert(position);
            phrases[p].terms.push((i, position - start));
        }
    }
    query.phrases = phrases
        .into_iter()
        .filter(|p| !p.terms.is_empty())
        .collect();
    if query.terms.len() > MAX_TERMS {
        // Keep the most selective terms (phrase terms are listed first and kept).
        let n = index.passages.len() as f32;
        let mut order: Vec<usize> = (0..query.terms.len()).collect();
        let in_phrase = |i: usize| {
            query
                .phrases
                .iter()
                .any(|p| p.terms.iter().any(|t| t.0 == i))
        };
        order.sort_by(|&a, &b| {
            let key = |i: usize| {
                let df = query.terms[i].entry.passage_df.to_native() as f32;
                (in_phrase(i), query.terms[i].weight * (n / (df + 1.0)))
            };
            key(b)
                .partial_cmp(&key(a))
                .unwrap_or(std::cmp::Ordering::Equal)
        });
        let keep: Vec<bool> = {
            let mut keep = vec![false; query.terms.len()];
            for &i in order.iter().take(MAX_TERMS) {
                keep[i] = true;
            }
            keep
        };
        let mut remap = vec![usize::MAX; query.terms.len()];
        let mut kept = Vec::new();
        for (i, term) in query.terms.drain(..).enumerate() {
            if keep[i] {
                remap[i] = kept.len();
                kept.push(term);
            }
        }
        query.terms = kept;
        for phrase in &mut query.phrases {
            phrase.terms.retain(|t| remap[t.0] != usize::MAX);
            for t in &mut phrase.terms {
                t.0 = remap[t.0];
            }
        }
    }
    query
}

/// Words and identifier parts (as opposed to whole identifiers and compounds).
fn is_plain(kind: TermKind) -> bool {
    matches!(kind, TermKind::Word | TermKind::Part)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phrases_are_split_from_free_text() {
        assert_eq!(
            split_phrases(r#"use "hash map" now"#),
            ("use   now".to_owned(), vec!["hash map"])
        );
        assert_eq!(
            split_phrases(r#"a "b c"#),
            ("a  b c".to_owned(), Vec::<&str>::new())
        );
    }
}
