//! Build the full-text index ([`SearchIndex`]) over every markdown document.
//!
//! Documents are cut into passages at every heading and every chunk boundary (see
//! [`SearchIndex`]); each passage is analysed into three fields (its heading, the headings
//! above it, its text) and each document into five (title, name, description, headings,
//! text). Postings lists are written per term in passage and document order, in the
//! format of [`crate::postings`]. The dictionary is sorted, so the same content always
//! gives the same bytes.

use std::collections::HashMap;

use std::ops::Range;

use super::markdown;
use crate::analyze::{Analyzer, is_stopword, record_token_start};
use crate::model::{
    D_BODY, D_DESCRIPTION, D_HEADINGS, D_NAME, D_TITLE, DOCUMENT_FIELDS, DocKind, Document,
    DocumentStats, NO_HEADING, P_BODY, P_CONTEXT, P_HEADING, PASSAGE_FIELDS, Passage, SearchIndex,
    Skill, TermBlock,
};
use crate::postings::{self, Occurrence};

/// Term maps hashed with foldhash's fixed seed: these maps take a lookup per token, where
/// std's DoS-resistant SipHash cost a tenth of the build; build-time input is the team's
/// own content, and a fixed seed keeps iteration order the same from run to run.
type TermMap<V> = HashMap<String, V, foldhash::fast::FixedState>;

#[derive(Default)]
struct TermBuild {
    passage_df: u32,
    document_df: u32,
    last_passage: u32,
    last_document: u32,
    passage_postings: Vec<u8>,
    document_postings: Vec<u8>,
    /// Passage entries written.
    entries: u32,
}

/// A term's document summary ([`postings::SummaryWriter`]), from its finished passage
/// list: the impacts need the index's average lengths, known once every passage is.
fn summarise(
    list: &[u8],
    document_list: &[u8],
    passages: &[Passage],
    stats: &[DocumentStats],
    avg: &[f32; PASSAGE_FIELDS],
    document_avg: &[f32; DOCUMENT_FIELDS],
) -> Vec<u8> {
    let mut out = postings::SummaryWriter::default();
    let mut run: Option<(postings::Summary, usize)> = None;
    let mut impacts = Vec::new();
    // A long document's passage mask (`wide`), and the largest impact in any passage.
    let mut wide = Vec::new();
    let mut best = 0u8;
    // The document frequencies the search scores a document by: its title, name and
    // description as the document list holds them, its headings and text summed over the
    // passage entries, as the search sums them.
    let mut fields = postings::DocumentCursor::new(document_list).peekable();
    let mut frequencies = [0u32; DOCUMENT_FIELDS];
    let mut finish = |run: Option<(postings::Summary, usize)>,
                      impacts: &[u8],
                      wide: &[u64],
                      best: u8,
                      frequencies: &[u32; DOCUMENT_FIELDS]| {
        let Some((mut summary, start)) = run else {
            return;
        };
        summary.at = start as u32;
        let document = &stats[summary.document as usize];
        if !maskable(document) {
            summary.own = None;
        }
        let mut frequencies = *frequencies;
        while let Some(entry) = fields.next_if(|e| e.document <= summary.document) {
            if entry.document == summary.document {
                for f in [D_TITLE, D_NAME, D_DESCRIPTION] {
                    frequencies[f] = entry.tf[f];
                }
            }
        }
        summary.best = best;
        summary.document_score = postings::document_impact(
            &frequencies,
            &document.lengths,
            &postings::IMPACT_PARAMS,
            document_avg,
        );
        let wide = if long_maskable(document) { wide } else { &[] };
        out.push(&summary, impacts, wide);
    };
    let mut cursor = postings::PassageCursor::new(list);
    let mut start = 0;
    while let Some(entry) = cursor.next() {
        let passage = &passages[entry.passage as usize];
        let d = passage.document;
        let first_passage = stats[d as usize].first_passage;
        if run
            .as_ref()
            .is_none_or(|(summary, _)| summary.document != d)
        {
            finish(run.take(), &impacts, &wide, best, &frequencies);
            impacts.clear();
            wide.clear();
            wide.resize(stats[d as usize].passage_count.div_ceil(64) as usize, 0);
            best = 0;
            frequencies = [0; DOCUMENT_FIELDS];
            run = Some((
                postings::Summary {
                    document: d,
                    first: entry.passage - first_passage,
                    own: Some(0),
                    ..postings::Summary::default()
                },
                start,
            ));
        }
        if let Some((summary, _)) = run.as_mut() {
            let i = entry.passage - first_passage;
            let holds = entry.tf[P_HEADING] > 0 || entry.tf[P_BODY] > 0;
            let impact =
                postings::impact(&entry.tf, &passage.lengths, &postings::IMPACT_PARAMS, avg);
            best = best.max(impact);
            if i < postings::MASK_PASSAGES {
                if holds {
                    summary.own = summary.own.map(|own| own | 1 << i);
                }
                summary.any |= 1 << i;
                impacts.push(impact);
            }
            if let Some(word) = wide.get_mut(i as usize / 64) {
                *word |= u64::from(holds) << (i % 64);
            }
            for (most, &tf) in summary.most.iter_mut().zip(&entry.tf) {
                *most = (*most).max(tf);
            }
        }
        frequencies[D_BODY] += entry.tf[P_BODY];
        if passage.opens_section {
            frequencies[D_HEADINGS] += entry.tf[P_HEADING];
        }
        start = cursor.position();
    }
    finish(run.take(), &impacts, &wide, best, &frequencies);
    out.finish()
}

/// Whether a document's passages can be counted from masks: at most
/// [`postings::MASK_PASSAGES`] of them, with joins recorded ([`joins`]).
fn maskable(stats: &DocumentStats) -> bool {
    crate::model::maskable_of(stats.passage_count, stats.heading_joins)
}

/// Whether a document of more than [`postings::MASK_PASSAGES`] passages can be counted
/// from masks of several words: its joins are recorded ([`joins`]). The predicate a search
/// reads the masks by ([`crate::model::long_joins_words`]).
fn long_maskable(stats: &DocumentStats) -> bool {
    crate::model::long_joins_words_of(stats.passage_count, stats.heading_joins).is_some()
}

/// A document's heading and chunk joins ([`DocumentStats::heading_joins`]), one word per
/// 64 passages (at least one), or `None` when a heading or chunk is in more than one run
/// (then passages sharing it need not have every passage between them share it too, and
/// a search counts its hits from the passage entries).
fn joins(passages: &[Passage]) -> Option<(Vec<u64>, Vec<u64>)> {
    let words = passages.len().div_ceil(64).max(1);
    let (mut headings, mut chunks) = (vec![0u64; words], vec![0u64; words]);
    let mut heading_runs = Vec::new();
    let mut chunk_runs = Vec::new();
    for (i, pair) in passages.windows(2).enumerate() {
        let i = i + 1;
        if pair[0].heading == pair[1].heading {
            headings[i / 64] |= 1 << (i % 64);
        } else {
            heading_runs.push(pair[0].heading);
        }
        if pair[0].chunk == pair[1].chunk {
            chunks[i / 64] |= 1 << (i % 64);
        } else {
            chunk_runs.push(pair[0].chunk);
        }
    }
    if let Some(last) = passages.last() {
        heading_runs.push(last.heading);
        chunk_runs.push(last.chunk);
    }
    let runs = |mut runs: Vec<u32>| {
        let n = runs.len();
        runs.sort_unstable();
        runs.dedup();
        runs.len() == n
    };
    (runs(heading_runs) && runs(chunk_runs)).then_some((headings, chunks))
}

#[derive(Default)]
struct PassageTerm {
    tf: [u32; PASSAGE_FIELDS],
    occurrences: Vec<Occurrence>,
}

/// One passage analysed: the passage (its `document` and `tokens` fields not yet set), its
/// token table and its terms.
struct PassageTerms {
    passage: Passage,
    token_starts: Vec<u32>,
    terms: Vec<(String, PassageTerm)>,
    /// Stopwords the passage holds only where they are not indexed (its prose): they count
    /// in their terms' passage frequency, and have no entry.
    counted: Vec<String>,
}

/// One document analysed on its own: what [`build`] merges into the index in document order.
struct DocumentTerms {
    passages: Vec<PassageTerms>,
    /// Term frequencies per document field.
    tf: Vec<(String, [u32; DOCUMENT_FIELDS])>,
    lengths: [u32; DOCUMENT_FIELDS],
}

/// Documents analysed in parallel per batch: each document's analysis is independent, and
/// a batch bounds how many analysed documents wait in memory for the in-order merge.
const BATCH: usize = 256;

/// Count `term` in `map`, allocating its key only the first time it is seen.
fn count<'m, V: Default>(map: &'m mut TermMap<V>, term: &str) -> &'m mut V {
    if !map.contains_key(term) {
        map.insert(term.to_owned(), V::default());
    }
    map.get_mut(term).expect("just inserted")
}

/// `texts[d]` is document `d`'s text; `body_offset(document)` where its
/// markdown body starts (after frontmatter).
pub fn build(
    documents: &[Document],
    skills: &[Skill],
    texts: &[&str],
    body_offset: impl Fn(&Document, &str) -> usize + Sync,
) -> SearchIndex {
    use rayon::prelude::*;

    let mut terms: TermMap<TermBuild> = TermMap::default();
    let mut passages: Vec<Passage> = Vec::new();
    let mut token_starts: Vec<u8> = Vec::new();
    let mut stats: Vec<DocumentStats> = Vec::with_capacity(documents.len());
    let mut long_joins: Vec<u64> = Vec::new();
    let mut passage_total = [0u64; PASSAGE_FIELDS];
    let mut document_total = [0u64; DOCUMENT_FIELDS];
    let (anchors, routers) = anchor_texts(documents, skills, texts);

    for (b, batch) in documents.chunks(BATCH).enumerate() {
        let first = b * BATCH;
        let analysed: Vec<DocumentTerms> = batch
            .par_iter()
            .enumerate()
            .map_init(Analyzer::new, |analyzer, (i, document)| {
                let d = first + i;
                let text = texts[d];
                let body = body_offset(document, text).min(text.len());
                analyse(
                    analyzer,
                    document,
                    skills,
                    text,
                    body,
                    &anchors[d],
                    &routers[d],
                )
            })
            .collect();
        for (i, document) in analysed.into_iter().enumerate() {
            let d = (first + i) as u32;
            let first_passage = passages.len() as u32;
            for analysed in document.passages {
                let (mut passage, table) = (analysed.passage, analysed.token_starts);
                let p = passages.len() as u32;
                for (term, entry) in analysed.terms {
                    let build = count(&mut terms, &term);
                    let delta = p - build.last_passage;
                    build.last_passage = p;
                    build.passage_df += 1;
                    build.entries += 1;
                    postings::write_passage_entry(
                        &mut build.passage_postings,
                        delta,
                        &entry.tf,
                        &entry.occurrences,
                        &table,
                    );
                }
                for term in analysed.counted {
                    count(&mut terms, &term).passage_df += 1;
                }
                passage.tokens = token_starts.len() as u32;
                let text = &texts[d as usize][passage.start as usize..passage.end as usize];
                postings::write_token_starts(&mut token_starts, &table, text);
                for (total, len) in passage_total.iter_mut().zip(passage.lengths) {
                    *total += u64::from(len);
                }
                passage.document = d;
                passages.push(passage);
            }
            for (term, tf) in document.tf {
                let build = count(&mut terms, &term);
                build.document_df += 1;
                // The body and headings fields are sums over the document's passages,
                // which the search adds up from their entries: only the fields that no
                // passage holds are written.
                if tf[D_TITLE] + tf[D_NAME] + tf[D_DESCRIPTION] > 0 {
                    let delta = d - build.last_document;
                    build.last_document = d;
                    let mut stored = tf;
                    stored[D_BODY] = 0;
                    stored[D_HEADINGS] = 0;
                    postings::write_document_entry(&mut build.document_postings, delta, &stored);
                }
            }
            for (total, len) in document_total.iter_mut().zip(document.lengths) {
                *total += u64::from(len);
            }
            let own = &passages[first_passage as usize..];
            // One word in the stats; the words of a longer document apart.
            let (heading_joins, chunk_joins) = match joins(own) {
                Some((headings, chunks)) if own.len() <= postings::MASK_PASSAGES as usize => {
                    (headings[0], chunks[0])
                }
                Some((headings, chunks)) => {
                    let start = long_joins.len() as u64;
                    long_joins.extend(headings);
                    long_joins.extend(chunks);
                    (start, u64::MAX)
                }
                None => (u64::MAX, u64::MAX),
            };
            // A passage's heading holds words only when it has a heading: the text before
            // a document's first heading has none, and no heading length to count.
            let shortest = std::array::from_fn(|f| {
                own.iter()
                    .filter(|p| f != P_HEADING || p.heading != NO_HEADING)
                    .map(|p| p.lengths[f])
                    .min()
                    .unwrap_or(0)
            });
            stats.push(DocumentStats {
                first_passage,
                passage_count: passages.len() as u32 - first_passage,
                lengths: document.lengths,
                heading_joins,
                chunk_joins,
                shortest,
            });
        }
    }

    let average = |total: u64, count: usize| {
        if count == 0 {
            1.0
        } else {
            (total as f64 / count as f64).max(1.0) as f32
        }
    };
    let passage_avg_len = passage_total.map(|t| average(t, passages.len()));
    let document_avg_len = document_total.map(|t| average(t, documents.len()));
    let mut sorted: Vec<(String, TermBuild)> = terms.into_iter().collect();
    sorted.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    let mut dictionary = postings::DictionaryWriter::default();
    for (text, build) in sorted {
        let summary = if build.entries >= postings::SUMMARY_MIN_ENTRIES {
            summarise(
                &build.passage_postings,
                &build.document_postings,
                &passages,
                &stats,
                &passage_avg_len,
                &document_avg_len,
            )
        } else {
            Vec::new()
        };
        dictionary.push(
            &text,
            build.passage_df,
            build.document_df,
            &build.passage_postings,
            &build.document_postings,
            &summary,
        );
    }
    SearchIndex {
        dictionary: dictionary.dictionary,
        blocks: dictionary
            .blocks
            .iter()
            .map(|&(dictionary, postings)| TermBlock {
                dictionary,
                postings,
            })
            .collect(),
        term_count: dictionary.count,
        postings: dictionary.postings,
        token_starts,
        passage_avg_len,
        impact_params: postings::IMPACT_PARAMS,
        long_joins,
        document_avg_len,
        passages: crate::model::PassageTable::new(&passages),
        documents: stats,
    }
}

/// Whether byte `at` lies in one of `code`'s sorted, disjoint ranges.
fn in_code(code: &[Range<usize>], at: usize) -> bool {
    let i = code.partition_point(|c| c.end <= at);
    code.get(i).is_some_and(|c| c.start <= at)
}

/// Analyse one document: its document fields, then each passage's heading, context and
/// body. `anchor` is the anchor text pointing at it; `router` the byte ranges of its lines
/// that describe other documents.
///
/// A stopword in the prose of a body is not indexed, though it still takes its position,
/// so that phrases and proximity measure the same distances, and still counts in its
/// term's frequencies. Queries drop prose stopwords (`search::query`), so only a quoted
/// phrase read those occurrences, and a phrase now checks the words around them instead;
/// they were a tenth of the archive (the Rust book: 127 of 1,093 KB, positions most of
/// it). In code (`for`, `in`, `if let`), in headings and in a document's title, name and
/// description they stay: a query can name a keyword (`` `for` ``, "From and Into"), and a
/// heading's code markup is gone by the time it is analysed.
fn analyse(
    analyzer: &mut Analyzer,
    document: &Document,
    skills: &[Skill],
    text: &str,
    body: usize,
    anchor: &str,
    router: &[Range<usize>],
) -> DocumentTerms {
    let mut doc_tf: TermMap<[u32; DOCUMENT_FIELDS]> = TermMap::default();
    let mut doc_len = [0u32; DOCUMENT_FIELDS];

    // Document-level fields other than the body.
    let (name, mut description) = names(document, skills);
    if !anchor.is_empty() {
        description.push_str(". ");
        description.push_str(anchor);
    }
    let title = title(document, text, body);
    for (field, value) in [
        (D_TITLE, title.as_str()),
        (D_NAME, name.as_str()),
        (D_DESCRIPTION, description.as_str()),
    ] {
        doc_len[field] = analyzer.analyze(value, 0, |t| {
            count(&mut doc_tf, t.text)[field] += 1;
        });
    }
    for heading in &document.outline {
        doc_len[D_HEADINGS] = analyzer.analyze(&heading.text, doc_len[D_HEADINGS], |t| {
            count(&mut doc_tf, t.text)[D_HEADINGS] += 1;
        });
    }

    // Code, where operators are terms too, and lines whose words describe the documents
    // they link to rather than the section they are in.
    let scan = markdown::scan(text, body);
    let code = code_ranges(&scan);
    let mut router = router.to_vec();
    router.extend(link_lines(text, body, &scan.link_ranges));
    router.sort_unstable_by_key(|r| r.start);
    let mut passage_code: Vec<Range<usize>> = Vec::new();

    // Passages.
    let mut passages = Vec::new();
    for (start, end) in cuts(document, body, text.len()) {
        let slice = &text[start..end];
        if slice.trim().is_empty() {
            continue;
        }
        let heading = document
            .outline
            .iter()
            .rposition(|h| h.start as usize <= start)
            .map_or(NO_HEADING, |i| i as u32);
        let chunk = document
            .chunks
            .iter()
            .rposition(|c| c.start as usize <= start)
            .unwrap_or(0) as u32;
        let mut passage_terms: TermMap<PassageTerm> = TermMap::default();
        let mut lengths = [0u32; PASSAGE_FIELDS];
        if heading != NO_HEADING {
            let own = &document.outline[heading as usize];
            lengths[P_HEADING] = analyzer.analyze(&own.text, 0, |t| {
                count(&mut passage_terms, t.text).tf[P_HEADING] += 1;
            });
            for ancestor in ancestors(document, heading as usize) {
                lengths[P_CONTEXT] =
                    analyzer.analyze(&document.outline[ancestor].text, lengths[P_CONTEXT], |t| {
                        count(&mut passage_terms, t.text).tf[P_CONTEXT] += 1;
                    });
            }
        }
        passage_code.clear();
        let first = code.partition_point(|c| c.end <= start);
        passage_code.extend(
            code[first..]
                .iter()
                .take_while(|c| c.start < end)
                .map(|c| c.start.max(start) - start..c.end.min(end) - start),
        );
        // Where each token starts: the first term at each position that is not an
        // operator (which takes the position of the token after it).
        let mut table: Vec<u32> = Vec::new();
        let mut counted: TermMap<()> = TermMap::default();
        lengths[P_BODY] = analyzer.analyze_code(slice, 0, &passage_code, |t| {
            record_token_start(&mut table, &t);
            let at = start + t.start;
            let i = router.partition_point(|r| r.end <= at);
            if router.get(i).is_some_and(|r| r.start <= at) {
                return;
            }
            if is_stopword(t.text) && !in_code(&passage_code, t.start) {
                count(&mut counted, t.text);
                return;
            }
            let entry = count(&mut passage_terms, t.text);
            entry.tf[P_BODY] += 1;
            entry.occurrences.push(Occurrence {
                position: t.position,
                offset: t.start as u32,
            });
        });
        if passage_terms.is_empty() && counted.is_empty() {
            continue;
        }
        doc_len[D_BODY] += lengths[P_BODY];
        for (term, entry) in &passage_terms {
            count(&mut doc_tf, term)[D_BODY] += entry.tf[P_BODY];
        }
        // A stopword is as common as the text makes it, indexed or not: its passage and
        // document frequencies count where it is not indexed, so that a query naming one
        // (`requirements.in`, `--from`) does not find it rarer than it is.
        let counted: Vec<String> = counted
            .into_keys()
            .filter(|term| !passage_terms.contains_key(term))
            .collect();
        for term in &counted {
            count(&mut doc_tf, term);
        }
        let last = table.last().copied().unwrap_or(0);
        table.resize(lengths[P_BODY] as usize, last);
        let mut terms: Vec<(String, PassageTerm)> = passage_terms.into_iter().collect();
        // The entry's occurrences are written in position order.
        for (_, entry) in &mut terms {
            entry.occurrences.sort_by_key(|o| o.position);
        }
        passages.push(PassageTerms {
            passage: Passage {
                document: 0,
                chunk,
                heading,
                parent: document
                    .outline
                    .get(heading as usize)
                    .map_or(NO_HEADING, |h| h.parent),
                start: start as u32,
                end: end as u32,
                tokens: 0,
                opens_section: document
                    .outline
                    .get(heading as usize)
                    .is_some_and(|h| h.start as usize == start),
                lengths,
            },
            token_starts: table,
            terms,
            counted,
        });
    }
    DocumentTerms {
        passages,
        tf: doc_tf.into_iter().collect(),
        lengths: doc_len,
    }
}

/// The title field: the document's title, and the heading it opens with when that differs
/// (the Rust book's chapters open with `## Title` and take their file name as title).
fn title(document: &Document, text: &str, body: usize) -> String {
    match document.outline.first() {
        Some(first)
            if text[body..(first.start as usize).max(body)]
                .trim()
                .is_empty()
                && first.text != document.title =>
        {
            format!("{} {}", document.title, first.text)
        }
        _ => document.title.clone(),
    }
}

/// The name and description fields of a document.
fn names(document: &Document, skills: &[Skill]) -> (String, String) {
    match document.kind {
        DocKind::Skill { skill } => {
            let skill = &skills[skill as usize];
            let mut description = skill.description.clone();
            for extra in skill.tags.iter().chain(&skill.capabilities) {
                description.push_str(". ");
                description.push_str(extra);
            }
            (format!("{} {}", skill.id, skill.path), description)
        }
        DocKind::Reference { skill, .. } => {
            let skill = &skills[skill as usize];
            (
                format!("{} {} {}", skill.id, document.name, document.path),
                String::new(),
            )
        }
        DocKind::Doc => (document.path.clone(), String::new()),
    }
}

/// Lines that point at a document elsewhere in the catalog (anchor text): a markdown link
/// to it, or, in a skill's `SKILL.md`, its path as written (`examples/newsletter.md` -
/// for company-wide newsletters). They say what the document is for in the words of the
/// document that sends readers there, and join its description field. At most
/// [`MAX_ANCHOR_LINES`] lines of at most [`MAX_ANCHOR_LINE`] bytes per document.
///
/// Also returns, per document, the byte ranges of its *router* lines: lines of a skill's
/// `SKILL.md` that name one of its references. Their words describe the reference, so they
/// count for it and not for the section of `SKILL.md` that lists them (otherwise the list
/// of references outranks the reference a question is about). They stay in the text, and
/// the skill keeps its name, description and headings.
fn anchor_texts<'a>(
    documents: &[Document],
    skills: &[Skill],
    texts: &[&'a str],
) -> (Vec<String>, Vec<Vec<std::ops::Range<usize>>>) {
    // The references of each skill: (path, document index).
    let mut references: Vec<Vec<(&str, usize)>> = vec![Vec::new(); skills.len()];
    for (i, document) in documents.iter().enumerate() {
        if let DocKind::Reference { skill, .. } = document.kind {
            references[skill as usize].push((document.path.as_str(), i));
        }
    }
    let mut lines: Vec<Vec<&'a str>> = vec![Vec::new(); documents.len()];
    let mut routers: Vec<Vec<std::ops::Range<usize>>> = vec![Vec::new(); documents.len()];
    for (source, document) in documents.iter().enumerate() {
        let text = texts[source];
        let siblings: &[(&str, usize)] = match document.kind {
            DocKind::Skill { skill } => &references[skill as usize],
            _ => &[],
        };
        if document.links.is_empty() && siblings.is_empty() {
            continue;
        }
        for line in text.lines() {
            let line = line.trim();
            if line.is_empty() || line.len() > MAX_ANCHOR_LINE || line.starts_with('#') {
                continue;
            }
            let mut targets: Vec<usize> = Vec::new();
            for link in &document.links {
                if line.contains(link.href.as_str())
                    && let crate::model::LinkTarget::Document(target) = link.target
                {
                    targets.push(target as usize);
                }
            }
            for &(path, target) in siblings {
                if line.contains(path) {
                    targets.push(target);
                }
            }
            targets.sort_unstable();
            targets.dedup();
            if !siblings.is_empty() && targets.iter().any(|t| siblings.iter().any(|s| s.1 == *t)) {
                let at = line.as_ptr() as usize - text.as_ptr() as usize;
                routers[source].push(at..at + line.len());
            }
            for target in targets {
                if target != source && lines[target].len() < MAX_ANCHOR_LINES {
                    lines[target].push(line);
                }
            }
        }
    }
    (lines.into_iter().map(|l| l.join("\n")).collect(), routers)
}

/// Code blocks and inline code spans, sorted and disjoint.
fn code_ranges(scan: &markdown::Scan) -> Vec<Range<usize>> {
    let mut all: Vec<Range<usize>> = scan
        .code_blocks
        .iter()
        .chain(&scan.code_spans)
        .cloned()
        .collect();
    all.sort_unstable_by_key(|r| r.start);
    let mut merged: Vec<Range<usize>> = Vec::with_capacity(all.len());
    for r in all {
        match merged.last_mut() {
            Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
            _ => merged.push(r),
        }
    }
    merged
}

/// Lines made of links: a list item that opens with a link (`- [Rollback](rollback.md) -
/// how to undo a release`), or a line where links hold at least as many letters as the
/// rest. Like a skill's lines that name its references, they say what other documents are
/// about; indexed as the text of their section, they make "See also" and link lists rank
/// for every topic they point to. `links` are sorted byte ranges of `text`.
fn link_lines(text: &str, body: usize, links: &[Range<usize>]) -> Vec<Range<usize>> {
    let letters = |s: &str| s.chars().filter(|c| c.is_alphanumeric()).count();
    let mut lines = Vec::new();
    let mut next = 0;
    let mut at = body;
    for line in text[body..].split_inclusive('\n') {
        let (start, end) = (at, at + line.len());
        at = end;
        while next < links.len() && links[next].start < start {
            next += 1;
        }
        let first = next;
        while next < links.len() && links[next].start < end {
            next += 1;
        }
        let here = &links[first..next];
        let Some(opening) = here.first() else {
            continue;
        };
        let trimmed = line.trim_start();
        if trimmed.starts_with('#') {
            continue;
        }
        let item = trimmed
            .strip_prefix(['-', '*', '+'])
            .or_else(|| {
                let digits = trimmed.trim_start_matches(|c: char| c.is_ascii_digit());
                (digits.len() < trimmed.len())
                    .then(|| digits.strip_prefix(['.', ')']))
                    .flatten()
            })
            .map(str::trim_start);
        let opens = item.is_some_and(|item| {
            let offset = end - line.len() + (line.len() - item.len());
            offset == opening.start
        });
        let mut inside = 0;
        let mut outside = 0;
        let mut from = start;
        for link in here {
            let link_end = link.end.min(end);
            outside += letters(&text[from..link.start.max(from)]);
            let link_text = &text[link.start..link_end];
            // The text of `[text](href)`, not its address.
            let shown = link_text.find("](").map_or(link_text, |i| &link_text[..i]);
            inside += letters(shown);
            from = link_end.max(from);
        }
        outside += letters(&text[from..end]);
        if opens || (inside > 0 && inside >= outside) {
            lines.push(start..end);
        }
    }
    lines
}

const MAX_ANCHOR_LINES: usize = 8;
const MAX_ANCHOR_LINE: usize = 400;

/// Passage boundaries: the body start, every heading and every chunk start.
fn cuts(document: &Document, body: usize, len: usize) -> Vec<(usize, usize)> {
    let mut points: Vec<usize> = std::iter::once(body)
        .chain(document.outline.iter().map(|h| h.start as usize))
        .chain(document.chunks.iter().map(|c| c.start as usize))
        .filter(|&p| p >= body && p < len)
        .collect();
    points.sort_unstable();
    points.dedup();
    points
        .iter()
        .enumerate()
        .map(|(i, &start)| (start, points.get(i + 1).copied().unwrap_or(len)))
        .collect()
}

/// Outline indices of the headings that contain heading `index`, outermost first.
pub fn ancestors(document: &Document, index: usize) -> Vec<usize> {
    let mut chain = Vec::new();
    let mut parent = document.outline[index].parent;
    while let Some(heading) = document.outline.get(parent as usize) {
        chain.push(parent as usize);
        parent = heading.parent;
    }
    chain.reverse();
    chain
}

#[cfg(test)]
mod tests {
    use crate::compile::{Config, compile};

    /// Several batches of documents, analysed on one thread and on four: the archive is the
    /// same bytes (the parallel analysis is merged in document order).
    #[test]
    fn parallel_analysis_gives_the_same_bytes_as_one_thread() {
        let dir = tempfile::tempdir().unwrap();
        let (skills, docs) = (dir.path().join("skills"), dir.path().join("docs"));
        std::fs::create_dir_all(&skills).unwrap();
        let words = [
            "deploy",
            "rollback",
            "cache",
            "token",
            "`read_to_string`",
            "retry",
            "quota",
            "E-CAT-404",
            "schema",
            "shard",
            "replica",
            "index",
            "lease",
        ];
        for d in 0..(super::BATCH * 2 + 37) {
            let dir = docs.join(format!("area-{}", d % 7));
            std::fs::create_dir_all(&dir).unwrap();
            let mut text = format!("# Page {d}\n\nAbout {}.\n", words[d % words.len()]);
            for s in 0..(d % 4 + 1) {
                text.push_str(&format!(
                    "\n## Part {s} of {}\n\n{} then {} and `x -> y` ({d}).\n",
                    words[(d + s) % words.len()],
                    words[(d * 3 + s) % words.len()],
                    words[(d * 7 + s * 5) % words.len()],
                ));
            }
            std::fs::write(dir.join(format!("page-{d}.md")), text).unwrap();
        }
        let config = Config::for_dirs(&skills, &docs);
        let bytes = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let output = pool.install(|| compile(&config)).expect("compiles");
            assert!(output.catalog.search.passages.documents.len() > super::BATCH * 2);
            output.catalog_bytes()
        };
        let one = bytes(1);
        assert!(
            one == bytes(4),
            "the archive differs between 1 and 4 threads"
        );
    }
}
