//! The relevance evaluation shared by `scripts/search-eval` (examples/search_eval.rs) and
//! the regression test `tests/relevance.rs`: the questions, the metrics and the plain
//! whole-document BM25 baseline. See examples/search_eval.rs for the definitions.
#![allow(dead_code)]

use std::collections::HashMap;
use std::path::Path;

use skillpack_server::analyze::{Analyzer, TermKind, is_stopword};
use skillpack_server::compile::{self, Config};
use skillpack_server::model::ArchivedCatalog;
use skillpack_server::search::{Index, Kind, Params, Request};

pub const SPLITS: [&str; 2] = ["tuning", "heldout"];

/// The corpora build, compiled in-process: `(archive bytes, content)`.
pub fn compile_corpora(corpora: &Path) -> Result<(rkyv::util::AlignedVec<16>, Vec<u8>), String> {
    let config = Config::for_dirs(
        corpora.join("anthropic-skills/skills"),
        corpora.join("rust-book/src"),
    );
    let output = compile::compile(&config).map_err(|report| {
        format!(
            "the corpora do not compile: {} errors",
            report.errors().count()
        )
    })?;
    let bytes = output.catalog_bytes();
    let mut aligned = rkyv::util::AlignedVec::<16>::with_capacity(bytes.len());
    aligned.extend_from_slice(&bytes);
    rkyv::access::<ArchivedCatalog, rkyv::rancor::Error>(&aligned)
        .map_err(|e| format!("the compiled archive does not validate: {e}"))?;
    Ok((aligned, output.content))
}

pub fn index<'a>(archive: &'a rkyv::util::AlignedVec<16>, content: &'a [u8]) -> Index<'a> {
    // Validated by compile_corpora.
    let archive =
        rkyv::access::<ArchivedCatalog, rkyv::rancor::Error>(archive).expect("validated archive");
    Index { archive, content }
}

pub struct Question {
    pub text: String,
    pub uri: String,
    pub anchor: String,
}

pub fn load(path: &Path) -> Vec<Question> {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|line| {
            let mut parts = line.split('\t');
            let text = parts.next().unwrap_or_default().trim().to_owned();
            let uri = parts.next().unwrap_or_default().trim().to_owned();
            let anchor = parts.next().unwrap_or_default().trim().to_owned();
            assert!(
                !text.is_empty() && !uri.is_empty(),
                "{}: malformed line {line:?}",
                path.display()
            );
            Question { text, uri, anchor }
        })
        .collect()
}

#[derive(Default, Clone, Copy)]
pub struct Scores {
    pub n: usize,
    pub r1: usize,
    pub r3: usize,
    pub rr: f64,
    pub with_section: usize,
    pub section3: usize,
}

impl Scores {
    fn add(&mut self, doc_rank: Option<usize>, section_rank: Option<Option<usize>>) {
        self.n += 1;
        if let Some(r) = doc_rank {
            if r == 1 {
                self.r1 += 1;
            }
            if r <= 3 {
                self.r3 += 1;
            }
            if r <= 10 {
                self.rr += 1.0 / r as f64;
            }
        }
        if let Some(section) = section_rank {
            self.with_section += 1;
            if section.is_some_and(|r| r <= 3) {
                self.section3 += 1;
            }
        }
    }

    /// Both sets of questions as one.
    pub fn merge(&mut self, other: &Scores) {
        self.n += other.n;
        self.r1 += other.r1;
        self.r3 += other.r3;
        self.rr += other.rr;
        self.with_section += other.with_section;
        self.section3 += other.section3;
    }

    pub fn recall1(&self) -> f64 {
        self.r1 as f64 / self.n.max(1) as f64
    }

    pub fn recall3(&self) -> f64 {
        self.r3 as f64 / self.n.max(1) as f64
    }

    pub fn mrr(&self) -> f64 {
        self.rr / self.n.max(1) as f64
    }

    pub fn section3(&self) -> f64 {
        self.section3 as f64 / self.with_section.max(1) as f64
    }

    pub fn line(&self, name: &str) -> String {
        let n = self.n.max(1) as f64;
        let section = if self.with_section == 0 {
            "   n/a".to_owned()
        } else {
            format!(
                "{:6.3} ({}/{})",
                self.section3 as f64 / self.with_section as f64,
                self.section3,
                self.with_section
            )
        };
        format!(
            "{name:<28} {:>3}  {:8.3}  {:8.3}  {:6.3}  {section}",
            self.n,
            self.r1 as f64 / n,
            self.r3 as f64 / n,
            self.rr / n,
        )
    }
}

/// Plain BM25 over whole documents.
pub struct Baseline {
    postings: HashMap<String, Vec<(u32, u32)>>,
    lengths: Vec<f32>,
    average: f32,
}

impl Baseline {
    pub fn new(index: &Index<'_>) -> Baseline {
        let mut analyzer = Analyzer::new();
        let mut postings: HashMap<String, Vec<(u32, u32)>> = HashMap::new();
        let mut lengths = Vec::new();
        for (d, document) in index.archive.documents.iter().enumerate() {
            let mut tf: HashMap<String, u32> = HashMap::new();
            let len = analyzer.analyze(index.text(document), 0, |t| {
                *tf.entry(t.text.to_owned()).or_default() += 1;
            });
            lengths.push(len as f32);
            for (term, n) in tf {
                postings.entry(term).or_default().push((d as u32, n));
            }
        }
        let average = lengths.iter().sum::<f32>() / lengths.len().max(1) as f32;
        Baseline {
            postings,
            lengths,
            average,
        }
    }

    /// Document indices, best first.
    pub fn rank(&self, query: &str) -> Vec<u32> {
        let mut analyzer = Analyzer::new();
        let mut terms: Vec<(String, TermKind)> = Vec::new();
        analyzer.analyze(query, 0, |t| terms.push((t.text.to_owned(), t.kind)));
        let all_stop = terms.iter().all(|(t, _)| is_stopword(t));
        terms.retain(|(t, kind)| {
            all_stop || !(matches!(kind, TermKind::Word | TermKind::Part) && is_stopword(t))
        });
        terms.sort_by(|a, b| a.0.cmp(&b.0));
        terms.dedup_by(|a, b| a.0 == b.0);
        let n = self.lengths.len() as f32;
        let mut scores = vec![0f32; self.lengths.len()];
        for (term, _) in &terms {
            let Some(list) = self.postings.get(term) else {
                continue;
            };
            let df = list.len() as f32;
            let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
            for &(d, tf) in list {
                let tf = tf as f32;
                let norm = 1.0 - 0.75 + 0.75 * self.lengths[d as usize] / self.average;
                scores[d as usize] += idf * tf * 2.2 / (tf + 1.2 * norm);
            }
        }
        let mut order: Vec<u32> = (0..scores.len() as u32)
            .filter(|&d| scores[d as usize] > 0.0)
            .collect();
        order.sort_by(|&a, &b| {
            scores[b as usize]
                .total_cmp(&scores[a as usize])
                .then(a.cmp(&b))
        });
        order.truncate(10);
        order
    }
}

/// A question the ranker did not answer at rank 1 (or whose section is not in the top 3).
pub struct Miss<'q> {
    pub question: &'q Question,
    pub doc_rank: Option<usize>,
    pub section_rank: Option<usize>,
    pub results: skillpack_server::search::Results,
}

/// Evaluate one split: (skillpack, plain BM25), calling `on_miss` for each miss.
pub fn evaluate<'q>(
    index: &Index<'_>,
    baseline: &Baseline,
    questions: &'q [Question],
    params: &Params,
    mut on_miss: impl FnMut(Miss<'q>),
) -> Result<(Scores, Scores), String> {
    let uris: HashMap<&str, u32> = index
        .archive
        .documents
        .iter()
        .enumerate()
        .map(|(i, d)| (d.uri.as_str(), i as u32))
        .collect();
    let mut ours = Scores::default();
    let mut plain = Scores::default();
    for q in questions {
        let Some(&expected) = uris.get(q.uri.as_str()) else {
            return Err(format!(
                "{:?} expects {}, which the corpora build does not serve",
                q.text, q.uri
            ));
        };
        let outline = index.document(expected).outline.as_slice();
        let section = if q.anchor.is_empty() {
            None
        } else {
            match outline.iter().find(|h| h.anchor == q.anchor.as_str()) {
                Some(h) => Some(h.start.to_native()..h.end.to_native()),
                None => {
                    return Err(format!(
                        "{:?}: {} has no anchor #{}",
                        q.text, q.uri, q.anchor
                    ));
                }
            }
        };
        let results = index.search_with(
            &Request {
                query: &q.text,
                kind: Kind::All,
                offset: 0,
                limit: 10,
            },
            params,
        );
        let doc_rank = results
            .hits
            .iter()
            .position(|h| h.document == expected)
            .map(|r| r + 1);
        let section_rank = section.as_ref().map(|range| {
            results
                .hits
                .iter()
                .position(|h| {
                    h.document == expected
                        && h.heading.is_some_and(|i| {
                            let own = &outline[i as usize];
                            range.start <= own.start.to_native() && own.end.to_native() <= range.end
                        })
                })
                .map(|r| r + 1)
        });
        ours.add(doc_rank, section_rank);
        let base = baseline.rank(&q.text);
        plain.add(
            base.iter().position(|&d| d == expected).map(|r| r + 1),
            None,
        );
        let ok_doc = doc_rank == Some(1);
        let ok_section = section_rank.is_none_or(|r| r.is_some_and(|r| r <= 3));
        if !(ok_doc && ok_section) {
            on_miss(Miss {
                question: q,
                doc_rank,
                section_rank: section_rank.flatten(),
                results,
            });
        }
    }
    Ok((ours, plain))
}
