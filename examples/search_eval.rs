//! Relevance evaluation of `skillpack search` over the public corpora (the Rust book and
//! the Anthropic skills in `../shared/corpora`), beside plain whole-document BM25.
//!
//! Run it with `scripts/search-eval` (see `--help` there). The relevance set is in
//! `benches/relevance/`: `tuning.tsv` (used while improving the ranking model) and
//! `heldout.tsv` (only ever evaluated). Each line is `question<TAB>document URI<TAB>anchor`
//! (the anchor may be empty when the question names no section).
//!
//! Metrics, per split:
//! - recall@1 / recall@3: the expected document is the first hit / among the first three;
//! - MRR: mean of 1/rank of the first hit in the expected document (0 past rank 10);
//! - section@3: among questions with an anchor, the share whose top three hits include a
//!   hit inside the expected section (the hit's section is that section or under it).
//!
//! The baseline is plain BM25 (k1 = 1.2, b = 0.75) over each whole document's text, with
//! the same analyzer and the same stopword removal on queries; it ranks documents, so it
//! has no section figure.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use skillpack::analyze::{Analyzer, TermKind, is_stopword};
use skillpack::compile::{self, Config};
use skillpack::model::ArchivedCatalog;
use skillpack::search::{Index, Kind, Params, Request};

struct Question {
    text: String,
    uri: String,
    anchor: String,
}

fn load(path: &Path) -> Vec<Question> {
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
struct Scores {
    n: usize,
    r1: usize,
    r3: usize,
    rr: f64,
    with_section: usize,
    section3: usize,
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

    fn line(&self, name: &str) -> String {
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
struct Baseline {
    postings: HashMap<String, Vec<(u32, u32)>>,
    lengths: Vec<f32>,
    average: f32,
}

impl Baseline {
    fn new(index: &Index<'_>) -> Baseline {
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
    fn rank(&self, query: &str) -> Vec<u32> {
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

struct Options {
    splits: Vec<String>,
    verbose: bool,
    outline: bool,
    query: Option<String>,
    params: Params,
}

fn parse_args() -> Result<Options, String> {
    let mut options = Options {
        splits: vec!["tuning".into(), "heldout".into()],
        verbose: false,
        outline: false,
        query: None,
        params: Params::default(),
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--split" => {
                let split = args.next().ok_or("--split takes tuning, heldout or all")?;
                options.splits = match split.as_str() {
                    "all" => vec!["tuning".into(), "heldout".into()],
                    "tuning" | "heldout" => vec![split],
                    other => return Err(format!("unknown split {other:?}")),
                };
            }
            "--verbose" => options.verbose = true,
            "--outline" => options.outline = true,
            "--query" => options.query = Some(args.next().ok_or("--query takes a query")?),
            "--param" => {
                let setting = args.next().ok_or("--param takes name=value")?;
                set_param(&mut options.params, &setting)?;
            }
            "--help" | "-h" => {
                return Err(
                    "usage: search-eval [--split tuning|heldout|all] [--verbose] \
                            [--param name=value]... [--query Q] [--outline]"
                        .into(),
                );
            }
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    Ok(options)
}

fn set_param(params: &mut Params, setting: &str) -> Result<(), String> {
    let (name, value) = setting
        .split_once('=')
        .ok_or_else(|| format!("--param {setting:?}: expected name=value"))?;
    let values: Vec<f32> = value
        .split(',')
        .map(|v| v.parse::<f32>().map_err(|e| format!("{setting}: {e}")))
        .collect::<Result<_, _>>()?;
    let one = values[0];
    match name {
        "k1" => params.k1 = one,
        "doc_k1" => params.doc_k1 = one,
        "doc_weight" => params.doc_weight = one,
        "proximity" => params.proximity = one,
        "proximity_window" => params.proximity_window = one as u32,
        "same_document_decay" => params.same_document_decay = one,
        "part_weight" => params.part_weight = one,
        "explained_weight" => params.explained_weight = one,
        "whole_weight" => params.whole_weight = one,
        "heading_bonus" => params.heading_bonus = one,
        "passage_weights" => copy(&mut params.passage_weights, &values)?,
        "passage_b" => copy(&mut params.passage_b, &values)?,
        "doc_weights" => copy(&mut params.doc_weights, &values)?,
        "doc_b" => copy(&mut params.doc_b, &values)?,
        other => return Err(format!("unknown parameter {other:?}")),
    }
    Ok(())
}

fn copy<const N: usize>(target: &mut [f32; N], values: &[f32]) -> Result<(), String> {
    if values.len() != N {
        return Err(format!("expected {N} comma-separated values"));
    }
    target.copy_from_slice(values);
    Ok(())
}

fn main() -> ExitCode {
    let options = match parse_args() {
        Ok(o) => o,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::FAILURE;
        }
    };
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let corpora = root.join("../shared/corpora");
    if !corpora.join("rust-book/src").is_dir() {
        eprintln!(
            "search-eval needs the public corpora at {}",
            corpora.display()
        );
        return ExitCode::FAILURE;
    }
    let config = Config::for_dirs(
        corpora.join("anthropic-skills/skills"),
        corpora.join("rust-book/src"),
    );
    let started = std::time::Instant::now();
    let output = match compile::compile(&config) {
        Ok(output) => output,
        Err(report) => {
            eprintln!(
                "the corpora do not compile: {} errors",
                report.errors().count()
            );
            return ExitCode::FAILURE;
        }
    };
    let bytes = output.catalog_bytes();
    let mut aligned = rkyv::util::AlignedVec::<16>::with_capacity(bytes.len());
    aligned.extend_from_slice(&bytes);
    let archive = match rkyv::access::<ArchivedCatalog, rkyv::rancor::Error>(&aligned) {
        Ok(archive) => archive,
        Err(error) => {
            eprintln!("the compiled archive does not validate: {error}");
            return ExitCode::FAILURE;
        }
    };
    let index = Index {
        archive,
        content: &output.content,
    };
    eprintln!(
        "compiled the corpora in {:.2?}: {} documents, {} passages, {} terms, {} postings bytes",
        started.elapsed(),
        archive.documents.len(),
        archive.search.passages.len(),
        archive.search.terms.len(),
        archive.search.postings.len()
    );

    if options.outline {
        for document in archive.documents.iter() {
            println!("{}\t{}", document.uri, document.title);
            for h in document.outline.iter() {
                println!(
                    "  {}{}\t#{}",
                    "  ".repeat(h.level as usize),
                    h.text,
                    h.anchor
                );
            }
        }
        return ExitCode::SUCCESS;
    }
    if let Some(query) = &options.query {
        let results = index.search_with(
            &Request {
                query,
                kind: Kind::All,
                offset: 0,
                limit: 10,
            },
            &options.params,
        );
        for (i, hit) in results.hits.iter().enumerate() {
            let document = index.document(hit.document);
            let path: Vec<&str> = index
                .heading_path(hit)
                .iter()
                .map(|h| h.text.as_str())
                .collect();
            println!(
                "{:2}. {:7.3} {} | {}",
                i + 1,
                hit.score,
                document.uri,
                path.join(" › ")
            );
        }
        return ExitCode::SUCCESS;
    }

    let baseline = Baseline::new(&index);
    let uris: HashMap<&str, u32> = archive
        .documents
        .iter()
        .enumerate()
        .map(|(i, d)| (d.uri.as_str(), i as u32))
        .collect();
    println!(
        "{:<28} {:>3}  {:>8}  {:>8}  {:>6}  section@3",
        "split / ranker", "n", "recall@1", "recall@3", "MRR"
    );
    for split in &options.splits {
        let questions = load(&root.join(format!("benches/relevance/{split}.tsv")));
        let mut ours = Scores::default();
        let mut plain = Scores::default();
        for q in &questions {
            let Some(&expected) = uris.get(q.uri.as_str()) else {
                eprintln!(
                    "{split}: {:?} expects {}, which the corpora build does not serve",
                    q.text, q.uri
                );
                return ExitCode::FAILURE;
            };
            let outline = index.document(expected).outline.as_slice();
            let section = if q.anchor.is_empty() {
                None
            } else {
                match outline.iter().find(|h| h.anchor == q.anchor.as_str()) {
                    Some(h) => Some(h.start.to_native()..h.end.to_native()),
                    None => {
                        eprintln!(
                            "{split}: {:?}: {} has no anchor #{}",
                            q.text, q.uri, q.anchor
                        );
                        return ExitCode::FAILURE;
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
                &options.params,
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
                                range.start <= own.start.to_native()
                                    && own.end.to_native() <= range.end
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
            // Per-question detail only for the tuning split: the held-out third is only
            // ever evaluated, never inspected.
            if options.verbose && split == "tuning" {
                let ok_doc = doc_rank == Some(1);
                let ok_section = section_rank.is_none_or(|r| r.is_some_and(|r| r <= 3));
                if !(ok_doc && ok_section) {
                    println!(
                        "  MISS doc@{:?} section@{:?}: {}  [{}#{}]",
                        doc_rank,
                        section_rank.flatten(),
                        q.text,
                        q.uri,
                        q.anchor
                    );
                    for (i, hit) in results.hits.iter().take(3).enumerate() {
                        let document = index.document(hit.document);
                        let path: Vec<&str> = index
                            .heading_path(hit)
                            .iter()
                            .map(|h| h.text.as_str())
                            .collect();
                        println!(
                            "      {}. {:.2} {} | {}",
                            i + 1,
                            hit.score,
                            document.uri,
                            path.join(" › ")
                        );
                    }
                }
            }
        }
        println!("{}", ours.line(&format!("{split} / skillpack")));
        println!("{}", plain.line(&format!("{split} / plain BM25 (doc)")));
    }
    ExitCode::SUCCESS
}
