//! Query parsing: the same analysis as the index, then stopwords out, quoted phrases
//! recognised, every term looked up once in the dictionary.
//!
//! How a word is written says what it is. A word in backticks, in a code-shaped token
//! (`From<T>`, `x?`, `read_to_string`, `E-PAY-409`, `SQLSTATE`), or capitalised in the
//! middle of a sentence ("convert with From and Into") names something: it is never
//! dropped as a stopword, and in code it weighs [`Params::code_weight`] times a prose word.
//! Operators in code (`-> !`, `1..=5`) are terms, as they are in the code of the index.

use std::ops::Range;

use crate::analyze::{Analyzer, TermKind, is_stopword};
use crate::model::ArchivedSearchIndex;
use crate::postings::TermEntry;

use super::Params;

/// Queries are cut at this many bytes (at a character boundary).
pub const MAX_QUERY_BYTES: usize = crate::contract::SEARCH_MAX_QUERY_BYTES;
/// At most this many distinct terms are scored; the rarest are kept.
pub const MAX_TERMS: usize = 16;

#[derive(Debug, Clone)]
pub struct QueryTerm {
    pub text: String,
    pub kind: TermKind,
    /// Position in the query, for proximity.
    pub position: u32,
    /// Weight of the term in the score.
    pub weight: f32,
    pub entry: TermEntry,
    /// Byte range in the query where the term is first written (an identifier's or
    /// compound's range holds its parts' ranges).
    pub span: (u32, u32),
}

/// A quoted phrase: term indices with their offsets from the phrase start.
#[derive(Debug, Clone, Default)]
pub struct Phrase {
    pub terms: Vec<(usize, u32)>,
}

#[derive(Debug, Clone, Default)]
pub struct Query {
    pub terms: Vec<QueryTerm>,
    pub phrases: Vec<Phrase>,
    /// The whole query is one quoted phrase: it must appear. Otherwise phrases only rank
    /// the passages that hold them higher (a pasted error message quotes a name or reason
    /// that need not be the docs' example).
    pub strict: bool,
    /// Words of the query (lowercased, as written) that occur nowhere in the catalog.
    pub unknown: Vec<String>,
    /// Stopwords of the query that were searched (it had no other words, or they name
    /// something) and that the index holds nowhere: it holds them only in code, headings
    /// and titles.
    pub common: Vec<String>,
    /// A strict phrase has a word that occurs nowhere: nothing can match.
    pub impossible: bool,
}

impl Query {
    /// Whether the query has anything to score.
    pub fn is_empty(&self) -> bool {
        self.terms.iter().all(|t| t.weight == 0.0)
    }
}

/// Split `raw` into free text and quoted phrases. The free text is `raw` with the quotes
/// and phrases blanked out, so that byte offsets are the same in both; phrases are byte
/// ranges of `raw`. An unmatched quote is ignored.
fn split_phrases(raw: &str) -> (String, Vec<Range<usize>>) {
    let mut free = String::with_capacity(raw.len());
    let mut phrases = Vec::new();
    let mut at = 0;
    while let Some(open) = raw[at..].find('"').map(|o| at + o) {
        free.push_str(&raw[at..open]);
        free.push(' ');
        match raw[open + 1..].find('"').map(|c| open + 1 + c) {
            Some(close) => {
                phrases.push(open + 1..close);
                free.extend(std::iter::repeat_n(' ', close - open));
                at = close + 1;
            }
            None => at = open + 1,
        }
    }
    free.push_str(&raw[at..]);
    (free, phrases)
}

/// How a whitespace-separated token of the query is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    Prose,
    /// Capitalised in the middle of a sentence: a name.
    Name,
    /// In backticks, or shaped like code, an identifier or an error code.
    Code,
}

/// Whether every token of `raw` is shaped like code (an identifier, a key, a flag, an
/// error code, an operator): a pasted configuration line or command, which the docs hold
/// as written or not at all.
pub fn code_only(raw: &str) -> bool {
    let tokens = shapes(raw);
    !tokens.is_empty() && tokens.iter().all(|(_, shape)| *shape == Shape::Code)
}

/// The shape of every token of `raw`: `(byte range, shape)`, in order.
fn shapes(raw: &str) -> Vec<(Range<usize>, Shape)> {
    let mut tokens: Vec<(Range<usize>, Shape)> = Vec::new();
    let mut in_backticks = false;
    let mut sentence_start = true;
    let (mut names, mut lower) = (0, 0);
    for (start, token) in tokens_of(raw) {
        let ticks = token.matches('`').count();
        let core = core(token);
        // A leading apostrophe without a closing one is a lifetime (`'static`), not a quote.
        let lifetime = token
            .strip_prefix('\'')
            .is_some_and(|rest| rest.starts_with(char::is_alphabetic) && !rest.contains('\''));
        let shape = if in_backticks || ticks > 0 || lifetime || is_code(core) {
            Shape::Code
        } else if !sentence_start && is_capitalised(core) {
            names += 1;
            Shape::Name
        } else {
            if !sentence_start && core.starts_with(char::is_lowercase) {
                lower += 1;
            }
            Shape::Prose
        };
        if ticks % 2 == 1 {
            in_backticks = !in_backticks;
        }
        sentence_start = token
            .trim_end_matches(['"', '\'', ')', ']', '`'])
            .ends_with(['.', '?', '!', ':']);
        tokens.push((start..start + token.len(), shape));
    }
    // In Title Case Queries capitals say nothing.
    if names >= lower {
        for (_, shape) in &mut tokens {
            if *shape == Shape::Name {
                *shape = Shape::Prose;
            }
        }
    }
    tokens
}

fn tokens_of(raw: &str) -> impl Iterator<Item = (usize, &str)> {
    raw.split(char::is_whitespace)
        .scan(0, |at, token| {
            let start = *at;
            *at += token.len() + 1;
            Some((start, token))
        })
        .filter(|(_, t)| !t.is_empty())
}

/// A token without the punctuation prose puts around words ("(see", "value?", "it,").
fn core(token: &str) -> &str {
    if !token.chars().any(char::is_alphanumeric) {
        return token;
    }
    let mut core = token.trim_start_matches(['"', '\'', '(']);
    core = core.trim_end_matches(['.', ',', ';', ':', '?', '!', '"', '\'']);
    if core.ends_with(')') && !core.contains('(') {
        core = core.trim_end_matches(')');
    }
    core
}

/// Whether a token (without prose punctuation) is shaped like code rather than like a word
/// of prose: operators, brackets, `snake_case`, `a::b`, `x.y`, `CamelCase`, `SQLSTATE`,
/// letters mixed with digits (`E0502`), hyphenated names with capitals or digits
/// (`E-PAY-409`), or command-line flags (`--release`).
fn is_code(core: &str) -> bool {
    if !core.chars().any(char::is_alphanumeric) {
        return core
            .chars()
            .any(|c| crate::analyze::is_operator_char(c) || "_()[]{}".contains(c));
    }
    let letters = core.chars().filter(|c| c.is_alphabetic()).count();
    let upper = core.chars().filter(|c| c.is_uppercase()).count();
    let digits = core.chars().any(|c| c.is_ascii_digit());
    let symbol = core.chars().any(|c| {
        matches!(
            c,
            '_' | '('
                | ')'
                | '['
                | ']'
                | '{'
                | '}'
                | '<'
                | '>'
                | '='
                | '&'
                | '*'
                | '@'
                | '|'
                | '#'
                | '$'
                | ';'
                | '~'
                | '^'
                | '%'
                | '\\'
                | '!'
                | '?'
                | '+'
        )
    });
    let inner = |sep: char| {
        core.char_indices().any(|(i, c)| {
            c == sep
                && i > 0
                && core[..i].ends_with(char::is_alphanumeric)
                && core[i + 1..].starts_with(char::is_alphanumeric)
        })
    };
    let camel = core
        .chars()
        .zip(core.chars().skip(1))
        .any(|(a, b)| a.is_lowercase() && b.is_uppercase());
    symbol
        || core.contains("::")
        || core.contains("..")
        || core.starts_with('-')
        || inner('.')
        || inner('/')
        || camel
        || (letters > 0 && digits)
        || (letters >= 2 && upper == letters)
        || (inner('-') && upper > 0)
}

/// Capitalised like a name ("From", "Into"), and not the pronoun "I".
fn is_capitalised(core: &str) -> bool {
    let mut chars = core.chars();
    chars.next().is_some_and(char::is_uppercase)
        && core != "I"
        && !core.starts_with("I'")
        && !core.starts_with("I\u{2019}")
}

pub fn parse(
    index: &ArchivedSearchIndex,
    raw: &str,
    params: &Params,
    analyzer: &mut Analyzer,
) -> Query {
    let mut cut = raw.len().min(MAX_QUERY_BYTES);
    while !raw.is_char_boundary(cut) {
        cut -= 1;
    }
    let raw = &raw[..cut];
    let (free, phrase_ranges) = split_phrases(raw);
    let tokens = shapes(raw);
    let code: Vec<Range<usize>> = tokens
        .iter()
        .filter(|(_, shape)| *shape == Shape::Code)
        .map(|(range, _)| range.clone())
        .collect();
    let shape_at = |offset: usize| {
        let i = tokens.partition_point(|(range, _)| range.end <= offset);
        tokens.get(i).map_or(Shape::Prose, |t| t.1)
    };
    let mut query = Query {
        strict: phrase_ranges.len() == 1 && free.trim().is_empty(),
        ..Query::default()
    };
    // (term, kind, position, phrase, the word as written, shape, byte range) of every
    // analysed term.
    #[allow(clippy::type_complexity)]
    let mut analysed: Vec<(
        String,
        TermKind,
        u32,
        Option<usize>,
        String,
        Shape,
        (u32, u32),
    )> = Vec::new();
    let mut position = 0;
    let mut blanked = String::new();
    for (p, range) in phrase_ranges.iter().enumerate() {
        // The phrase at its place in the query, so that offsets match the tokens'.
        blanked.clear();
        blanked.extend(std::iter::repeat_n(' ', range.start));
        blanked.push_str(&raw[range.clone()]);
        position = analyzer.analyze_code(&blanked, position, &code, |t| {
            let written = blanked[t.start..t.end].to_lowercase();
            let shape = shape_at(t.start);
            analysed.push((
                t.text.to_owned(),
                t.kind,
                t.position,
                Some(p),
                written,
                shape,
                (t.start as u32, t.end as u32),
            ));
        }) + 1;
    }
    analyzer.analyze_code(&free, position, &code, |t| {
        let written = free[t.start..t.end].to_lowercase();
        let shape = shape_at(t.start);
        analysed.push((
            t.text.to_owned(),
            t.kind,
            t.position,
            None,
            written,
            shape,
            (t.start as u32, t.end as u32),
        ));
    });

    let all_stopwords = analysed
        .iter()
        .all(|(text, kind, ..)| is_plain(*kind) && is_stopword(text));
    let mut phrases: Vec<Phrase> = vec![Phrase::default(); phrase_ranges.len()];
    let mut phrase_start: Vec<Option<u32>> = vec![None; phrase_ranges.len()];
    for (text, kind, position, phrase, written, shape, span) in analysed {
        // A prose stopword is not searched, in a phrase either: the index does not hold
        // its prose occurrences (`compile::index`), and a phrase checks the words around
        // it at their distances, which count it. A query of stopwords alone searches them
        // where the index holds them: in code, headings and titles.
        if is_plain(kind) && shape == Shape::Prose && is_stopword(&text) && !all_stopwords {
            continue;
        }
        let weight = match kind {
            TermKind::Part => params.part_weight,
            TermKind::Identifier | TermKind::Compound => params.whole_weight,
            TermKind::Word | TermKind::Operator => 1.0,
        };
        let weight = match shape {
            Shape::Code => weight * params.code_weight,
            Shape::Name | Shape::Prose => weight,
        };
        // A stopword the index holds only where it does not store it (prose) has a
        // frequency and no entries: it is as good as absent.
        let held = |entry: &TermEntry| {
            !entry.passage_postings.is_empty() || !entry.document_postings.is_empty()
        };
        let Some(entry) = index
            .term(&text)
            .filter(|entry| !is_stopword(&text) || held(entry))
        else {
            if phrase.is_some() && is_plain(kind) && query.strict {
                query.impossible = true;
            }
            if is_plain(kind) {
                // A stopword not held occurs where the index does not store it: it is
                // not a word found nowhere.
                let list = match is_stopword(&text) {
                    true => &mut query.common,
                    false => &mut query.unknown,
                };
                if !list.contains(&written) {
                    list.push(written);
                }
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
                    span,
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
                let df = query.terms[i].entry.passage_df as f32;
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
        let raw = r#"use "hash map" now"#;
        let (free, phrases) = split_phrases(raw);
        assert_eq!(free, "use            now");
        assert_eq!(free.len(), raw.len());
        assert_eq!(
            phrases.iter().map(|r| &raw[r.clone()]).collect::<Vec<_>>(),
            ["hash map"]
        );
        assert_eq!(
            split_phrases(r#"a "b c"#),
            ("a  b c".to_owned(), Vec::new())
        );
    }

    #[test]
    fn tokens_are_read_by_their_shape() {
        let shape = |raw: &str| -> Vec<(String, Shape)> {
            shapes(raw)
                .into_iter()
                .map(|(range, shape)| (raw[range].to_owned(), shape))
                .collect()
        };
        let of = |raw: &str, token: &str| {
            shape(raw)
                .into_iter()
                .find(|(t, _)| t == token)
                .map(|(_, s)| s)
                .unwrap()
        };
        let question = "How do I convert with From and Into?";
        assert_eq!(of(question, "How"), Shape::Prose);
        assert_eq!(of(question, "I"), Shape::Prose);
        assert_eq!(of(question, "From"), Shape::Name);
        assert_eq!(of(question, "Into?"), Shape::Name);
        // Title Case: capitals say nothing.
        assert_eq!(of("How To Convert From Strings", "From"), Shape::Prose);
        // A new sentence starts with a capital.
        assert_eq!(of("It fails. If I retry it works", "If"), Shape::Prose);
        for code in [
            "`if`",
            "x()?",
            "&mut",
            "->",
            "1..=5",
            "@",
            "{:?}?",
            "s[0]",
            "snake_case",
            "CamelCase",
            "E0502",
            "E-PAY-409",
            "SQLSTATE",
            "a::b",
            "Cargo.lock",
            "--release",
            "_",
            "'static",
        ] {
            assert_eq!(
                of(&format!("what is {code} here"), code),
                Shape::Code,
                "{code}"
            );
        }
        for prose in ["value?", "hand-written", "(see", "it,", "429"] {
            assert_eq!(
                of(&format!("what is {prose} here"), prose),
                Shape::Prose,
                "{prose}"
            );
        }
        // Inside backticks every word is code.
        assert_eq!(of("use `impl From for T` here", "for"), Shape::Code);
    }
}
