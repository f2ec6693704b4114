//! The relevance evaluation shared by `scripts/search-eval` (examples/search_eval.rs) and
//! the regression test `tests/relevance.rs`: the questions, the metrics and the plain
//! whole-document BM25 baseline. See examples/search_eval.rs for the definitions.
#![allow(dead_code)]

use std::collections::HashMap;
use std::path::Path;

use skillpack_server::analyze::{Analyzer, TermKind, is_stopword};
use skillpack_server::catalog::{Content, Dictionary};
use skillpack_server::cmd::catalog_search::parse_kind;
use skillpack_server::compile::{self, Config};
use skillpack_server::model::ArchivedCatalog;
use skillpack_server::search::fuse::RRF_K;
use skillpack_server::search::{Index, Kind, MAX_RESULTS, Params, Request, Results};

pub const SPLITS: [&str; 2] = ["tuning", "heldout"];

/// The frozen split: questions over `benches/corpora` (see `compile_frozen_corpora`),
/// written before any ranking change and never used to choose a parameter.
pub const FROZEN: &str = "frozen";

/// The corpora build, compiled in-process: `(archive bytes, content)`.
pub fn compile_corpora(corpora: &Path) -> Result<(rkyv::util::AlignedVec<16>, Vec<u8>), String> {
    compile_dirs(
        &corpora.join("anthropic-skills/skills"),
        &corpora.join("rust-book/src"),
    )
}

/// The frozen split's build, from the corpora committed under `benches/corpora` (the uv
/// manual as docs, the superpowers skills as skills), compiled in-process.
pub fn compile_frozen_corpora(
    crate_root: &Path,
) -> Result<(rkyv::util::AlignedVec<16>, Vec<u8>), String> {
    let corpora = crate_root.join("benches/corpora");
    compile_dirs(
        &corpora.join("superpowers/skills"),
        &corpora.join("uv/docs"),
    )
}

/// Compile a skills folder and a docs folder in-process: `(archive bytes, content)`.
/// `SKILLPACK_DOCS_FLAVOR` in the environment applies (`plain` reads a generator's tree as
/// plain markdown, as skillpack did before it knew generators).
pub fn compile_dirs(
    skills: &Path,
    docs: &Path,
) -> Result<(rkyv::util::AlignedVec<16>, Vec<u8>), String> {
    let mut config = Config::for_dirs(skills, docs);
    config.docs_flavor = std::env::var("SKILLPACK_DOCS_FLAVOR")
        .ok()
        .filter(|f| !f.trim().is_empty());
    let output = compile::compile(&config).map_err(|report| {
        let errors: Vec<String> = report.errors().map(|e| e.to_string()).collect();
        format!(
            "the corpora do not compile: {} errors\n{}",
            errors.len(),
            errors.join("\n")
        )
    })?;
    let warnings = output.report.warnings().count();
    if warnings > 0 {
        eprintln!(
            "{} and {}: {warnings} build warnings, e.g. {}",
            skills.display(),
            docs.display(),
            output
                .report
                .warnings()
                .next()
                .map(|w| w.to_string())
                .unwrap_or_default()
        );
    }
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
    // The store's prepared dictionary: one per index, a few per evaluation run.
    let dictionary: &'static Dictionary = Box::leak(Box::default());
    Index {
        archive,
        content: Content::new(content, &archive.store, dictionary),
    }
}

#[derive(Debug, Clone)]
pub struct Question {
    pub text: String,
    pub uri: String,
    pub anchor: String,
    /// The kind of question (fourth column, frozen split only): `natural`, `error`,
    /// `code`, `keywords` or `everyday`; empty when not given.
    pub kind: String,
}

/// The kinds of question of the frozen split, in report order.
pub const KINDS: [(&str, &str); 5] = [
    ("natural", "natural language"),
    ("error", "pasted error message"),
    ("code", "code-shaped"),
    ("keywords", "short keywords"),
    ("everyday", "newcomer's everyday words"),
];

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
            let kind = parts.next().unwrap_or_default().trim().to_owned();
            assert!(
                !text.is_empty() && !uri.is_empty(),
                "{}: malformed line {line:?}",
                path.display()
            );
            Question {
                text,
                uri,
                anchor,
                kind,
            }
        })
        .collect()
}

/// Alternative phrasings: `question<TAB>phrasing<TAB>phrasing…` per line, keyed by the
/// question as written in its split.
pub fn load_paraphrases(path: &Path) -> HashMap<String, Vec<String>> {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|line| {
            let mut parts = line.split('\t').map(str::trim);
            let question = parts.next().unwrap_or_default().to_owned();
            let phrasings: Vec<String> =
                parts.filter(|p| !p.is_empty()).map(str::to_owned).collect();
            assert!(
                !question.is_empty() && !phrasings.is_empty(),
                "{}: malformed line {line:?}",
                path.display()
            );
            (question, phrasings)
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
    /// Questions whose first hit is inside the answering section.
    pub section1: usize,
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
            if section == Some(1) {
                self.section1 += 1;
            }
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
        self.section1 += other.section1;
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

    pub fn section1(&self) -> f64 {
        self.section1 as f64 / self.with_section.max(1) as f64
    }

    pub fn line(&self, name: &str) -> String {
        let n = self.n.max(1) as f64;
        let section = if self.with_section == 0 {
            "   n/a".to_owned()
        } else {
            format!(
                "{:6.3} ({}/{})  {:6.3} ({}/{})",
                self.section3 as f64 / self.with_section as f64,
                self.section3,
                self.with_section,
                self.section1 as f64 / self.with_section as f64,
                self.section1,
                self.with_section
            )
        };
        format!(
            "{name:<44} {:>3}  {:8.3}  {:8.3}  {:6.3}  {section}",
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
            let text = index.text(document).expect("the corpus decodes");
            let len = analyzer.analyze(&text, 0, |t| {
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

    /// Document indices, best first (the first 10).
    pub fn rank(&self, query: &str) -> Vec<u32> {
        self.rank_to(query, 10)
    }

    /// Several phrasings' rankings fused as `catalog_search` fuses them (reciprocal rank
    /// fusion, k = 60, each ranking to the same depth): the first 10.
    pub fn rank_fused(&self, queries: &[&str]) -> Vec<u32> {
        let mut fused: HashMap<u32, (f32, usize)> = HashMap::new();
        for (list, query) in queries.iter().enumerate() {
            for (rank, d) in self.rank_to(query, MAX_RESULTS).into_iter().enumerate() {
                let entry = fused.entry(d).or_insert((0.0, usize::MAX));
                entry.0 += 1.0 / (RRF_K + (rank + 1) as f32);
                entry.1 = entry.1.min(rank * queries.len() + list);
            }
        }
        let mut order: Vec<(u32, (f32, usize))> = fused.into_iter().collect();
        order.sort_by(|a, b| b.1.0.total_cmp(&a.1.0).then(a.1.1.cmp(&b.1.1)));
        order.into_iter().take(10).map(|(d, _)| d).collect()
    }

    /// Document indices, best first (the first `depth`).
    pub fn rank_to(&self, query: &str, depth: usize) -> Vec<u32> {
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
        order.truncate(depth);
        order
    }
}

/// A question the ranker did not answer at rank 1: its document, or the section it names, is
/// not the first hit.
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
    on_miss: impl FnMut(Miss<'q>),
) -> Result<(Scores, Scores), String> {
    evaluate_by(
        index,
        questions,
        |q| {
            index.search_with(
                &Request {
                    query: &q.text,
                    kind: Kind::All,
                    offset: 0,
                    limit: 10,
                    also: &[],
                },
                params,
            )
        },
        |q| baseline.rank(&q.text),
        on_miss,
    )
}

/// Evaluate one split with each question's alternative phrasings fused (`also`), for
/// skillpack and for plain BM25 alike. A question without phrasings is an error.
pub fn evaluate_fused<'q>(
    index: &Index<'_>,
    baseline: &Baseline,
    questions: &'q [Question],
    paraphrases: &HashMap<String, Vec<String>>,
    params: &Params,
    on_miss: impl FnMut(Miss<'q>),
) -> Result<(Scores, Scores), String> {
    if let Some(q) = questions
        .iter()
        .find(|q| !paraphrases.contains_key(&q.text))
    {
        return Err(format!("{:?} has no paraphrases", q.text));
    }
    let also =
        |q: &Question| -> Vec<&str> { paraphrases[&q.text].iter().map(String::as_str).collect() };
    evaluate_by(
        index,
        questions,
        |q| {
            index.search_with(
                &Request {
                    query: &q.text,
                    kind: Kind::All,
                    offset: 0,
                    limit: 10,
                    also: &also(q),
                },
                params,
            )
        },
        |q| {
            let mut all = vec![q.text.as_str()];
            all.extend(also(q));
            baseline.rank_fused(&all)
        },
        on_miss,
    )
}

/// An agent's first call for a question: the tool it chose and, when that is
/// `catalog_search`, the query, `also` and `kind` it wrote.
#[derive(Debug, Clone)]
pub struct FirstCall {
    pub tool: String,
    pub query: String,
    pub also: Vec<String>,
    pub kind: Kind,
}

/// One questions file's first calls, keyed by the question as written in its split.
pub type FirstCalls = HashMap<String, FirstCall>;

/// Agents' first calls: `question<TAB>tool<TAB>JSON arguments` per line, keyed by the
/// question as written in its split (`benches/relevance/first-calls/README.md`).
pub fn load_first_calls(path: &Path) -> Result<FirstCalls, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut calls = HashMap::new();
    for (number, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let at = || format!("{}:{}", path.display(), number + 1);
        let fields: Vec<&str> = line.split('\t').collect();
        let [question, tool, arguments] = fields[..] else {
            return Err(format!(
                "{}: expected question<TAB>tool<TAB>JSON arguments, found {} fields",
                at(),
                fields.len()
            ));
        };
        let arguments: serde_json::Value = serde_json::from_str(arguments)
            .map_err(|e| format!("{}: the arguments are not JSON: {e}", at()))?;
        let text = |key: &str| arguments.get(key).and_then(|v| v.as_str()).unwrap_or("");
        // Parsed as the tool parses it; no `kind` is the tool's default, every document.
        let kind = match text("kind") {
            "" => Kind::All,
            other => {
                parse_kind(other).ok_or_else(|| format!("{}: unknown kind {other:?}", at()))?
            }
        };
        let also = match arguments.get("also") {
            None => Vec::new(),
            Some(serde_json::Value::Array(items)) => items
                .iter()
                .map(|v| v.as_str().map(str::to_owned))
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| format!("{}: `also` holds a value that is not a string", at()))?,
            Some(_) => return Err(format!("{}: `also` is not an array", at())),
        };
        let call = FirstCall {
            tool: tool.trim().to_owned(),
            query: text("query").to_owned(),
            also,
            kind,
        };
        if calls.insert(question.trim().to_owned(), call).is_some() {
            return Err(format!("{}: {question:?} has a first call already", at()));
        }
    }
    Ok(calls)
}

/// Every set of agents' first calls for the questions file `relative` (to `relevance`, the
/// `benches/relevance` folder): each folder of `relevance/first-calls/` holds the same path.
/// `(set, calls)` in the sets' order, each checked to hold one call for every question of
/// the file and none for a question it does not ask, so that sets and rankings compare like
/// with like.
pub fn first_call_sets(
    relevance: &Path,
    relative: &Path,
) -> Result<Vec<(String, FirstCalls)>, String> {
    let folder = relevance.join("first-calls");
    let mut sets: Vec<String> = std::fs::read_dir(&folder)
        .map_err(|e| format!("cannot list {}: {e}", folder.display()))?
        .filter_map(Result::ok)
        .filter(|entry| entry.path().is_dir())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    sets.sort();
    if sets.is_empty() {
        return Err(format!("no set of first calls in {}", folder.display()));
    }
    let asked = load(&relevance.join(relative));
    sets.into_iter()
        .map(|set| {
            let file = folder.join(&set).join(relative);
            if !file.is_file() {
                return Err(format!(
                    "set {set} has no first calls for {} (expected {})",
                    relative.display(),
                    file.display()
                ));
            }
            let calls = load_first_calls(&file)?;
            if let Some(q) = asked.iter().find(|q| !calls.contains_key(&q.text)) {
                return Err(format!(
                    "{}: no first call for {:?}",
                    file.display(),
                    q.text
                ));
            }
            if let Some(extra) = calls.keys().find(|c| !asked.iter().any(|q| &q.text == *c)) {
                return Err(format!(
                    "{}: {extra:?} is not a question of {}",
                    file.display(),
                    relative.display()
                ));
            }
            Ok((set, calls))
        })
        .collect()
}

/// Evaluate one split with each question's first call as an agent wrote it (its own query,
/// `also` and `kind`), for skillpack and for plain BM25 alike. A first call that is not a
/// search finds nothing here, so it counts as a miss; a question without a first call is
/// an error.
pub fn evaluate_first_calls<'q>(
    index: &Index<'_>,
    baseline: &Baseline,
    questions: &'q [Question],
    calls: &FirstCalls,
    params: &Params,
    on_miss: impl FnMut(Miss<'q>),
) -> Result<(Scores, Scores), String> {
    if let Some(q) = questions.iter().find(|q| !calls.contains_key(&q.text)) {
        return Err(format!("{:?} has no first call", q.text));
    }
    let searched = |q: &Question| {
        let call = &calls[&q.text];
        (call.tool == "catalog_search" && !call.query.trim().is_empty()).then_some(call)
    };
    evaluate_by(
        index,
        questions,
        |q| match searched(q) {
            Some(call) => {
                let also: Vec<&str> = call.also.iter().map(String::as_str).collect();
                index.search_with(
                    &Request {
                        query: &call.query,
                        kind: call.kind,
                        offset: 0,
                        limit: 10,
                        also: &also,
                    },
                    params,
                )
            }
            None => Results::default(),
        },
        |q| match searched(q) {
            Some(call) => {
                let mut all = vec![call.query.as_str()];
                all.extend(call.also.iter().map(String::as_str));
                baseline.rank_fused(&all)
            }
            None => Vec::new(),
        },
        on_miss,
    )
}

/// Evaluate one split with the given rankers: `ours` (a search) and `plain` (document
/// indices, best first).
pub fn evaluate_by<'q>(
    index: &Index<'_>,
    questions: &'q [Question],
    mut ours_for: impl FnMut(&Question) -> Results,
    mut plain_for: impl FnMut(&Question) -> Vec<u32>,
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
        let tables = index
            .tables(expected)
            .map_err(|damage| format!("{}: {damage}", q.uri))?;
        let section = if q.anchor.is_empty() {
            None
        } else {
            match tables
                .outline
                .iter()
                .find(|h| h.anchor == q.anchor.as_str())
            {
                Some(h) => Some(h.start..h.end),
                None => {
                    return Err(format!(
                        "{:?}: {} has no anchor #{}",
                        q.text, q.uri, q.anchor
                    ));
                }
            }
        };
        let results = ours_for(q);
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
                            let own = &tables.outline[i as usize];
                            range.start <= own.start && own.end <= range.end
                        })
                })
                .map(|r| r + 1)
        });
        ours.add(doc_rank, section_rank);
        let base = plain_for(q);
        plain.add(
            base.iter().position(|&d| d == expected).map(|r| r + 1),
            None,
        );
        let ok_doc = doc_rank == Some(1);
        let ok_section = section_rank.is_none_or(|r| r == Some(1));
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

/// One line of `pasted.tsv`: a pasted error, key or flag, the section that answers it and
/// the rephrasings an agent sends with it.
#[derive(Debug, Clone)]
pub struct Pasted {
    /// `shared` (the tuning corpora build) or `frozen` (benches/corpora).
    pub corpus: String,
    pub question: Question,
    pub also: Vec<String>,
}

pub fn load_pasted(path: &Path) -> Vec<Pasted> {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|line| {
            let fields: Vec<&str> = line.split('\t').map(str::trim).collect();
            assert!(
                fields.len() >= 6 && fields[..5].iter().all(|f| !f.is_empty()),
                "{}: malformed line {line:?}",
                path.display()
            );
            Pasted {
                corpus: fields[0].to_owned(),
                question: Question {
                    text: fields[1].to_owned(),
                    uri: fields[2].to_owned(),
                    anchor: fields[3].to_owned(),
                    kind: fields[4].to_owned(),
                },
                also: fields[5..]
                    .iter()
                    .filter(|p| !p.is_empty())
                    .map(|p| (*p).to_owned())
                    .collect(),
            }
        })
        .collect()
}

/// Rank (1-based) of the first hit inside `question`'s section, or of its document when it
/// names no section; `None` when no hit of `results` is. `Err` when the build does not
/// serve the document or section.
pub fn expected_rank(
    index: &Index<'_>,
    question: &Question,
    results: &Results,
) -> Result<Option<usize>, String> {
    let expected = index
        .archive
        .documents
        .iter()
        .position(|d| d.uri.as_str() == question.uri)
        .ok_or_else(|| format!("{:?}: no document {}", question.text, question.uri))?
        as u32;
    let tables = index
        .tables(expected)
        .map_err(|damage| format!("{}: {damage}", question.uri))?;
    let section = match question.anchor.as_str() {
        "" => None,
        anchor => {
            let heading = tables
                .outline
                .iter()
                .find(|h| h.anchor == anchor)
                .ok_or_else(|| {
                    format!(
                        "{:?}: {} has no anchor #{anchor}",
                        question.text, question.uri
                    )
                })?;
            Some(heading.start..heading.end)
        }
    };
    Ok(results
        .hits
        .iter()
        .position(|h| {
            h.document == expected
                && section.as_ref().is_none_or(|range| {
                    h.heading.is_some_and(|i| {
                        let own = &tables.outline[i as usize];
                        range.start <= own.start && own.end <= range.end
                    })
                })
        })
        .map(|r| r + 1))
}

/// Every question has exactly two alternative phrasings and every phrasing's question is
/// in the split: the problems, one line each.
pub fn check_paraphrases(
    questions: &[Question],
    paraphrases: &HashMap<String, Vec<String>>,
) -> Vec<String> {
    let mut problems: Vec<String> = questions
        .iter()
        .filter(|q| paraphrases.get(&q.text).map(Vec::len) != Some(2))
        .map(|q| format!("{:?} has no two phrasings", q.text))
        .collect();
    for asked in paraphrases.keys() {
        if !questions.iter().any(|q| &q.text == asked) {
            problems.push(format!("{asked:?} is rephrased but not asked"));
        }
    }
    problems
}

/// Every question's document and section exist in the build, and its kind (when the
/// split has kinds) is one of [`KINDS`]: the problems, one line each.
pub fn check(index: &Index<'_>, questions: &[Question], with_kinds: bool) -> Vec<String> {
    let mut problems = Vec::new();
    for q in questions {
        let document = index
            .archive
            .documents
            .iter()
            .position(|d| d.uri.as_str() == q.uri);
        match document {
            None => problems.push(format!("{:?}: no document {}", q.text, q.uri)),
            Some(d) => {
                let has_anchor = index
                    .tables(d as u32)
                    .is_ok_and(|t| t.outline.iter().any(|h| h.anchor == q.anchor.as_str()));
                if !q.anchor.is_empty() && !has_anchor {
                    problems.push(format!(
                        "{:?}: {} has no anchor #{}",
                        q.text, q.uri, q.anchor
                    ));
                }
            }
        }
        if with_kinds && !KINDS.iter().any(|(k, _)| *k == q.kind) {
            problems.push(format!("{:?}: unknown kind {:?}", q.text, q.kind));
        }
    }
    let mut seen = std::collections::HashSet::new();
    for q in questions {
        if !seen.insert(q.text.as_str()) {
            problems.push(format!("{:?} is asked twice", q.text));
        }
    }
    problems
}
