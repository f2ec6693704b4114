//! Relevance evaluation of `skillpack search`, beside plain whole-document BM25, on three
//! splits of the relevance set in `benches/relevance/`:
//! - `tuning.tsv` (used while improving the ranking model) and `heldout.tsv` (only ever
//!   evaluated), over the public corpora in `../shared/corpora` (the Rust book and the
//!   Anthropic skills; skipped with a message when absent);
//! - `frozen.tsv`, over the corpora committed in `benches/corpora` (the uv manual and the
//!   superpowers skills): written before the ranking was changed for it, only ever
//!   evaluated, never inspected question by question and never used to choose a parameter.
//!   Its figures are also given per kind of question, and with `--paraphrases` with each
//!   question's alternative phrasings (`frozen-paraphrases.tsv`) fused as `catalog_search`
//!   fuses its `also` list, and with the rephrasings of an agent that saw only the question
//!   (`frozen-paraphrases-agent.tsv`); the tuning and held-out splits likewise, with
//!   `tuning-paraphrases.tsv` and `heldout-paraphrases.tsv` (also an agent's).
//!
//! Run it with `scripts/search-eval` (see `--help` there). Each line of a split is
//! `question<TAB>document URI<TAB>anchor` (the anchor may be empty when the question names
//! no section); the frozen split adds `<TAB>kind`, and in the tuning and held-out splits
//! `<TAB>everyday` marks a question in a newcomer's everyday words (reported apart as well
//! as in the split). `--questions FILE` evaluates a file of your own in the same format
//! over `--corpus` (shared by default), with `--verbose` listing its misses. On the
//! tuning split, `--verbose` lists the misses, with `--paraphrases` the fused misses too,
//! and with `--first-calls` each set's first-call misses (also for a `--questions` file).
//! `--dump DIR` writes every passage and each split's rankings (ours and the baseline's)
//! as JSON lines, for experiments outside the engine in `benches/relevance/experiments/`.
//! `--writer NAME` fuses another writer's rephrasings instead of the default ones: every
//! `benches/relevance/<path>-paraphrases.tsv` is read from
//! `benches/relevance/writers/NAME/<path>-paraphrases.tsv` (the frozen split then reports
//! that writer's alone). A question's fused figures move by a few questions from one writer
//! to another (`benches/relevance/writers/README.md`), so `scripts/search-eval-writers`
//! reports a change over every writer. `--first-calls` adds, for each split and a
//! `--questions` file, one line per set of agents' own first calls
//! (`benches/relevance/first-calls/<set>/`, mirroring `benches/relevance`): each question
//! searched with the query, `also` and `kind` an agent wrote from the server's host context.
//!
//! Metrics, per split:
//! - recall@1 / recall@3: the expected document is the first hit / among the first three;
//! - MRR: mean of 1/rank of the first hit in the expected document (0 past rank 10);
//! - section@3: among questions with an anchor, the share whose top three hits include a
//!   hit inside the expected section (the hit's section is that section or under it);
//! - section@1: the same for the first hit alone (an answer in one call).
//!
//! The baseline is plain BM25 (k1 = 1.2, b = 0.75) over each whole document's text, with
//! the same analyzer and the same stopword removal on queries; it ranks documents, so it
//! has no section figure.

#[path = "../benches/relevance/eval.rs"]
mod eval;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use eval::Baseline;
use skillpack_server::search::{Kind, Params, Request};

struct Options {
    splits: Vec<String>,
    paraphrases: bool,
    /// Which build `--outline` and `--query` look at: `shared` or `frozen`.
    corpus: String,
    verbose: bool,
    outline: bool,
    query: Option<String>,
    /// Alternative phrasings fused with `query` (`--also`, as catalog_search's `also`).
    also: Vec<String>,
    /// A questions file to evaluate over `corpus` instead of the splits.
    questions: Option<PathBuf>,
    /// Write the passages and each split's rankings here (for experiments outside the
    /// engine, such as benches/relevance/experiments/).
    dump: Option<PathBuf>,
    /// Whose rephrasings `--paraphrases` fuses: `None` for the default files, else a folder
    /// under `benches/relevance/writers/`.
    writer: Option<String>,
    /// Also evaluate agents' recorded first calls (`benches/relevance/first-calls/`).
    first_calls: bool,
    params: Params,
}

fn parse_args() -> Result<Options, String> {
    let mut options = Options {
        splits: vec!["tuning".into(), "heldout".into(), "frozen".into()],
        paraphrases: false,
        corpus: "shared".into(),
        verbose: false,
        outline: false,
        query: None,
        also: Vec::new(),
        questions: None,
        dump: None,
        writer: None,
        first_calls: false,
        params: Params::default(),
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--split" => {
                let split = args
                    .next()
                    .ok_or("--split takes tuning, heldout, frozen or all")?;
                options.splits = match split.as_str() {
                    "all" => vec!["tuning".into(), "heldout".into(), "frozen".into()],
                    "tuning" | "heldout" | "frozen" => vec![split],
                    other => return Err(format!("unknown split {other:?}")),
                };
            }
            "--paraphrases" => options.paraphrases = true,
            "--first-calls" => options.first_calls = true,
            "--corpus" => {
                let corpus = args.next().ok_or("--corpus takes shared or frozen")?;
                if corpus != "shared" && corpus != "frozen" {
                    return Err(format!("unknown corpus {corpus:?}"));
                }
                options.corpus = corpus;
            }
            // A docs tree of its own (a site generator's, read as its generator publishes
            // it), with no skills: for `--questions` over the generator trees.
            "--docs" => {
                let dir = args.next().ok_or("--docs takes a docs folder")?;
                options.corpus = format!("docs:{dir}");
            }
            "--verbose" => options.verbose = true,
            "--outline" => options.outline = true,
            "--query" => options.query = Some(args.next().ok_or("--query takes a query")?),
            "--also" => options
                .also
                .push(args.next().ok_or("--also takes a phrasing")?),
            "--questions" => {
                options.questions = Some(args.next().ok_or("--questions takes a file")?.into())
            }
            "--dump" => options.dump = Some(args.next().ok_or("--dump takes a folder")?.into()),
            "--writer" => {
                let name = args.next().ok_or("--writer takes a folder name")?;
                if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
                    return Err(format!(
                        "--writer {name:?}: expected a folder name under benches/relevance/writers (letters, digits, '-')"
                    ));
                }
                options.writer = Some(name);
            }
            "--param" => {
                let setting = args.next().ok_or("--param takes name=value")?;
                set_param(&mut options.params, &setting)?;
            }
            "--help" | "-h" => {
                return Err(
                    "usage: search-eval [--split tuning|heldout|frozen|all] [--paraphrases] \
                            [--verbose] [--param name=value]... \
                            [--corpus shared|frozen | --docs DIR] [--query Q [--also P]...] \
                            [--outline] \
                            [--questions FILE] [--dump DIR] [--writer NAME] [--first-calls]"
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
        "code_weight" => params.code_weight = one,
        "whole_weight" => params.whole_weight = one,
        "heading_bonus" => params.heading_bonus = one,
        "parent_share" => params.parent_share = one,
        "section_idf" => params.section_idf = one != 0.0,
        "one_name_spellings" => params.one_name_spellings = one != 0.0,
        "keep_clear_winner" => params.keep_clear_winner = one != 0.0,
        "prefer_deeper" => params.prefer_deeper = one != 0.0,
        "vote_sections" => params.vote_sections = one != 0.0,
        "keep_code_winner" => params.keep_code_winner = one != 0.0,
        "keep_pasted_winner" => params.keep_pasted_winner = one != 0.0,
        "tree_vote" => params.tree_vote = one != 0.0,
        "winner_verbatim" => params.winner_verbatim = one != 0.0,
        "score_share" if (0.0..=1.0).contains(&one) => params.score_share = one,
        "score_share" => return Err(format!("{setting}: score_share is a share, 0 to 1")),
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
    match run(&options) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("{message}");
            ExitCode::FAILURE
        }
    }
}

type Compiled = (rkyv::util::AlignedVec<16>, Vec<u8>);

/// The build a split (or `--corpus`) is over: `shared` (the public corpora in
/// `../shared/corpora`, `None` when absent) or `frozen` (`benches/corpora`).
fn compile(root: &Path, corpus: &str) -> Result<Option<Compiled>, String> {
    let started = std::time::Instant::now();
    let compiled = if corpus == "frozen" {
        eval::compile_frozen_corpora(root)?
    } else if let Some(docs) = corpus.strip_prefix("docs:") {
        let skills = tempfile::tempdir().map_err(|e| e.to_string())?;
        eval::compile_dirs(skills.path(), Path::new(docs))?
    } else {
        let corpora = root.join("../shared/corpora");
        if !corpora.join("rust-book/src").is_dir() {
            eprintln!(
                "skipped: the tuning and held-out splits need the public corpora at {}",
                corpora.display()
            );
            return Ok(None);
        }
        eval::compile_corpora(&corpora)?
    };
    let index = eval::index(&compiled.0, &compiled.1);
    let archive = index.archive;
    eprintln!(
        "compiled the {corpus} corpora in {:.2?}: {} documents, {} passages, {} terms, {} postings bytes",
        started.elapsed(),
        archive.documents.len(),
        archive.search.passages.len(),
        archive.search.term_count,
        archive.search.postings.len()
    );
    Ok(Some(compiled))
}

fn run(options: &Options) -> Result<(), String> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    if let Some(writer) = &options.writer {
        let writers = root.join("benches/relevance/writers");
        if !writers.join(writer).is_dir() {
            let mut known: Vec<String> = std::fs::read_dir(&writers)
                .map(|entries| {
                    entries
                        .filter_map(Result::ok)
                        .filter(|e| e.path().is_dir())
                        .map(|e| e.file_name().to_string_lossy().into_owned())
                        .collect()
                })
                .unwrap_or_default();
            known.sort();
            return Err(format!(
                "--writer {writer}: no such folder under {} (writers: {})",
                writers.display(),
                known.join(", ")
            ));
        }
    }
    if let Some(folder) = &options.dump {
        return dump(&root, folder, &options.params, options.writer.as_deref());
    }
    if options.outline || options.query.is_some() {
        let Some((archive_bytes, content)) = compile(&root, &options.corpus)? else {
            return Err("no corpora to look at".into());
        };
        let index = eval::index(&archive_bytes, &content);
        if options.outline {
            print_outline(&index);
        } else if let Some(query) = &options.query {
            print_query(&index, query, &options.also, &options.params);
        }
        return Ok(());
    }
    if let Some(path) = &options.questions {
        let Some((archive_bytes, content)) = compile(&root, &options.corpus)? else {
            return Err("no corpora to evaluate over".into());
        };
        let index = eval::index(&archive_bytes, &content);
        let baseline = Baseline::new(&index);
        let mut questions = eval::load(path);
        let asked = questions.len();
        // A question whose page the build does not serve (a tree read as plain markdown
        // skips `.mdx` pages) cannot be ranked: with `SKILLPACK_DOCS_FLAVOR` set, those are
        // left out and counted, so a before/after pair compares like with like.
        if std::env::var_os("SKILLPACK_DOCS_FLAVOR").is_some() {
            let served: std::collections::HashSet<&str> = index
                .archive
                .documents
                .iter()
                .map(|d| d.uri.as_str())
                .collect();
            questions.retain(|q| served.contains(q.uri.as_str()));
            if questions.len() < asked {
                println!(
                    "{} of {asked} questions' pages are not served by this build (left out: misses)",
                    asked - questions.len()
                );
            }
        }
        let problems = eval::check(&index, &questions, false);
        if !problems.is_empty() {
            return Err(format!("{}:\n{}", path.display(), problems.join("\n")));
        }
        let (ours, plain) = eval::evaluate(
            &index,
            &baseline,
            &questions,
            &options.params,
            misses(&index, options.verbose, ""),
        )?;
        let name = path
            .file_name()
            .map_or("questions".into(), |n| n.to_string_lossy());
        println!("{}", ours.line(&format!("{name} / skillpack")));
        println!("{}", plain.line(&format!("{name} / plain BM25 (doc)")));
        // Its rephrasings, when a `<name>-paraphrases.tsv` lies beside it (or, with
        // `--writer`, at the same place in the writer's folder).
        let beside = path.with_file_name(format!(
            "{}-paraphrases.tsv",
            path.file_stem().unwrap_or_default().to_string_lossy()
        ));
        let rephrased = match &options.writer {
            None => beside,
            Some(writer) => {
                let relative = under_relevance(&root, path)
                    .map_err(|e| {
                        format!("--writer {writer}: {e}; a writer's rephrasings mirror that folder")
                    })?
                    .with_file_name(beside.file_name().unwrap_or_default());
                let file = rephrasings_file(&root, Some(writer), &relative);
                if options.paraphrases && !file.is_file() {
                    return Err(format!(
                        "--writer {writer}: no rephrasings for {} (expected {})",
                        path.display(),
                        file.display()
                    ));
                }
                file
            }
        };
        if options.paraphrases && rephrased.is_file() {
            let mut paraphrases = eval::load_paraphrases(&rephrased);
            paraphrases.retain(|asked, _| questions.iter().any(|q| &q.text == asked));
            fused_lines(
                &index,
                &baseline,
                &options.params,
                (&questions, &paraphrases),
                (&name, "also"),
                options.verbose,
            )?;
        }
        if options.first_calls {
            let sets = first_call_sets(&root, path)?;
            first_call_lines(
                &index,
                &baseline,
                &options.params,
                (&questions, &sets),
                &name,
                options.verbose,
            )?;
        }
        return Ok(());
    }

    println!(
        "{:<44} {:>3}  {:>8}  {:>8}  {:>6}  section@3      section@1",
        "split / ranker", "n", "recall@1", "recall@3", "MRR"
    );
    let shared: Vec<&String> = options
        .splits
        .iter()
        .filter(|s| s.as_str() != eval::FROZEN)
        .collect();
    if !shared.is_empty()
        && let Some((archive_bytes, content)) = compile(&root, "shared")?
    {
        let index = eval::index(&archive_bytes, &content);
        let baseline = Baseline::new(&index);
        let (mut whole, mut whole_plain) = (eval::Scores::default(), eval::Scores::default());
        let (mut fused, mut fused_plain) = (eval::Scores::default(), eval::Scores::default());
        for split in &shared {
            let questions = eval::load(&root.join(format!("benches/relevance/{split}.tsv")));
            // Per-question detail only for the tuning split: the held-out third is only
            // ever evaluated, never inspected.
            let verbose = options.verbose && split.as_str() == "tuning";
            let (ours, plain) = eval::evaluate(
                &index,
                &baseline,
                &questions,
                &options.params,
                misses(&index, verbose, ""),
            )
            .map_err(|message| format!("{split}: {message}"))?;
            println!("{}", ours.line(&format!("{split} / skillpack")));
            println!("{}", plain.line(&format!("{split} / plain BM25 (doc)")));
            whole.merge(&ours);
            whole_plain.merge(&plain);
            let paraphrases = options.paraphrases.then(|| {
                eval::load_paraphrases(&rephrasings_file(
                    &root,
                    options.writer.as_deref(),
                    Path::new(&format!("{split}-paraphrases.tsv")),
                ))
            });
            // The questions with their phrasings fused, printed as `label`.
            let report_fused = |label: &str, questions: &[eval::Question], verbose: bool| {
                let Some(paraphrases) = &paraphrases else {
                    return Ok(None);
                };
                let lines = fused_lines(
                    &index,
                    &baseline,
                    &options.params,
                    (questions, paraphrases),
                    (label, "also"),
                    verbose,
                )?;
                Ok::<_, String>(Some(lines))
            };
            if let Some((ours, plain)) = report_fused(split, &questions, verbose)? {
                fused.merge(&ours);
                fused_plain.merge(&plain);
            }
            if options.first_calls {
                let file = root.join(format!("benches/relevance/{split}.tsv"));
                let sets = first_call_sets(&root, &file)?;
                first_call_lines(
                    &index,
                    &baseline,
                    &options.params,
                    (&questions, &sets),
                    split,
                    verbose,
                )?;
            }
            // The questions in a newcomer's everyday words (added later, fourth column) and
            // the others, apart: the two kinds behave differently.
            for (everyday, label) in [(false, "the others"), (true, "everyday words")] {
                let part: Vec<eval::Question> = questions
                    .iter()
                    .filter(|q| (q.kind == "everyday") == everyday)
                    .cloned()
                    .collect();
                if part.len() == questions.len() || part.is_empty() {
                    continue;
                }
                let (ours, plain) =
                    eval::evaluate(&index, &baseline, &part, &options.params, |_| {})?;
                println!("{}", ours.line(&format!("  {label} / skillpack")));
                println!("{}", plain.line(&format!("  {label} / plain BM25 (doc)")));
                report_fused(&format!("  {label}"), &part, false)?;
            }
        }
        if shared.len() > 1 {
            println!("{}", whole.line("tuning+heldout / skillpack"));
            println!("{}", whole_plain.line("tuning+heldout / plain BM25 (doc)"));
            if options.paraphrases {
                println!("{}", fused.line("tuning+heldout / skillpack + also"));
                println!("{}", fused_plain.line("tuning+heldout / plain BM25 + also"));
            }
        }
    }
    if options.splits.iter().any(|s| s == eval::FROZEN) {
        frozen(&root, options)?;
    }
    Ok(())
}

/// Where a rephrasings file of `benches/relevance` (`relative` to it) is read from: that
/// folder, or with `--writer NAME` the same path under `benches/relevance/writers/NAME`.
fn rephrasings_file(root: &Path, writer: Option<&str>, relative: &Path) -> PathBuf {
    let relevance = root.join("benches/relevance");
    match writer {
        None => relevance.join(relative),
        Some(writer) => relevance.join("writers").join(writer).join(relative),
    }
}

/// The frozen split: the whole split beside plain BM25, then per kind; with
/// `--paraphrases`, the same with each question's alternative phrasings fused. Never per
/// question: its misses are not for reading.
fn frozen(root: &Path, options: &Options) -> Result<(), String> {
    let Some((archive_bytes, content)) = compile(root, "frozen")? else {
        return Ok(());
    };
    let index = eval::index(&archive_bytes, &content);
    let baseline = Baseline::new(&index);
    let questions = eval::load(&root.join("benches/relevance/frozen.tsv"));
    let problems = eval::check(&index, &questions, true);
    if !problems.is_empty() {
        return Err(format!("frozen.tsv:\n{}", problems.join("\n")));
    }
    // The author's rephrasings, and those of an agent that saw only the question.
    // With `--writer`, that writer's alone.
    let rephrasings: Vec<(String, _)> = if options.paraphrases {
        let files = match &options.writer {
            None => vec![
                ("also".to_owned(), "frozen-paraphrases.tsv"),
                ("also (agent)".to_owned(), "frozen-paraphrases-agent.tsv"),
            ],
            Some(writer) => vec![(format!("also ({writer})"), "frozen-paraphrases.tsv")],
        };
        files
            .into_iter()
            .map(|(label, file)| {
                let path = rephrasings_file(root, options.writer.as_deref(), Path::new(file));
                (label, eval::load_paraphrases(&path))
            })
            .collect()
    } else {
        Vec::new()
    };
    let first_calls = if options.first_calls {
        first_call_sets(root, &root.join("benches/relevance/frozen.tsv"))?
    } else {
        Vec::new()
    };
    let report = |name: &str, questions: &[eval::Question]| -> Result<(), String> {
        let (ours, plain) = eval::evaluate(&index, &baseline, questions, &options.params, |_| {})?;
        println!("{}", ours.line(&format!("{name} / skillpack")));
        println!("{}", plain.line(&format!("{name} / plain BM25 (doc)")));
        for (label, paraphrases) in &rephrasings {
            fused_lines(
                &index,
                &baseline,
                &options.params,
                (questions, paraphrases),
                (name, label),
                false,
            )?;
        }
        first_call_lines(
            &index,
            &baseline,
            &options.params,
            (questions, &first_calls),
            name,
            false,
        )?;
        Ok(())
    };
    report("frozen", &questions)?;
    for (kind, label) in eval::KINDS {
        let of_kind: Vec<eval::Question> = questions
            .iter()
            .filter(|q| q.kind == kind)
            .cloned()
            .collect();
        report(&format!("  {label}"), &of_kind)?;
    }
    Ok(())
}

fn print_outline(index: &skillpack_server::search::Index<'_>) {
    for (d, document) in index.archive.documents.iter().enumerate() {
        println!("{}\t{}", document.uri, document.title);
        let Ok(tables) = index.tables(d as u32) else {
            println!("  (damaged tables)");
            continue;
        };
        for h in tables.outline.iter() {
            println!(
                "  {}{}\t#{}",
                "  ".repeat(h.level as usize),
                h.text,
                h.anchor
            );
        }
    }
}

fn print_query(
    index: &skillpack_server::search::Index<'_>,
    query: &str,
    also: &[String],
    params: &Params,
) {
    let also: Vec<&str> = also.iter().map(String::as_str).collect();
    let results = index.search_with(
        &Request {
            query,
            kind: Kind::All,
            offset: 0,
            limit: 10,
            also: &also,
        },
        params,
    );
    for (i, hit) in results.hits.iter().enumerate() {
        let document = index.document(hit.document);
        let tables = index.tables(hit.document).unwrap_or_default();
        let path: Vec<&str> = index
            .heading_path(hit, &tables)
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
}

/// The questions with their phrasings fused, ours and plain BM25's, printed one line each
/// as `name / <ranker> + with`; with `verbose`, each miss of ours first.
fn fused_lines(
    index: &skillpack_server::search::Index<'_>,
    baseline: &Baseline,
    params: &Params,
    (questions, paraphrases): (&[eval::Question], &HashMap<String, Vec<String>>),
    (name, with): (&str, &str),
    verbose: bool,
) -> Result<(eval::Scores, eval::Scores), String> {
    let (ours, plain) = eval::evaluate_fused(
        index,
        baseline,
        questions,
        paraphrases,
        params,
        misses(index, verbose, "(with also) "),
    )?;
    println!("{}", ours.line(&format!("{name} / skillpack + {with}")));
    println!("{}", plain.line(&format!("{name} / plain BM25 + {with}")));
    Ok((ours, plain))
}

/// `path` relative to `benches/relevance`, where writers' rephrasings and agents' first
/// calls mirror it; an error when it lies elsewhere.
fn under_relevance(root: &Path, path: &Path) -> Result<PathBuf, String> {
    let relevance = root.join("benches/relevance");
    std::fs::canonicalize(path)
        .ok()
        .zip(std::fs::canonicalize(&relevance).ok())
        .and_then(|(file, base)| file.strip_prefix(base).ok().map(Path::to_path_buf))
        .ok_or_else(|| format!("{} is not under {}", path.display(), relevance.display()))
}

/// Every set of agents' first calls for the questions file `questions`
/// ([`eval::first_call_sets`]).
fn first_call_sets(
    root: &Path,
    questions: &Path,
) -> Result<Vec<(String, eval::FirstCalls)>, String> {
    let relative = under_relevance(root, questions)
        .map_err(|e| format!("--first-calls: {e}; agents' first calls mirror that folder"))?;
    eval::first_call_sets(&root.join("benches/relevance"), &relative)
        .map_err(|e| format!("--first-calls: {e}"))
}

/// The questions searched as each set of agents' first calls wrote them, ours and plain
/// BM25's, printed one line each as `name / <ranker> first calls (<set>)`; with `verbose`,
/// each miss of ours first.
fn first_call_lines(
    index: &skillpack_server::search::Index<'_>,
    baseline: &Baseline,
    params: &Params,
    (questions, sets): (&[eval::Question], &[(String, eval::FirstCalls)]),
    name: &str,
    verbose: bool,
) -> Result<(), String> {
    for (set, calls) in sets {
        let (ours, plain) = eval::evaluate_first_calls(
            index,
            baseline,
            questions,
            calls,
            params,
            misses(index, verbose, &format!("(first call, {set}) ")),
        )?;
        println!(
            "{}",
            ours.line(&format!("{name} / skillpack first calls ({set})"))
        );
        println!(
            "{}",
            plain.line(&format!("{name} / plain BM25 first calls ({set})"))
        );
    }
    Ok(())
}

/// What to do with each miss of an evaluation: with `verbose`, print it after `label` (which
/// ranking missed); else nothing.
fn misses<'a, 'q>(
    index: &'a skillpack_server::search::Index<'_>,
    verbose: bool,
    label: &str,
) -> impl FnMut(eval::Miss<'q>) + 'a {
    let label = label.to_owned();
    move |miss| {
        if verbose {
            print_miss(index, &miss, &label);
        }
    }
}

fn print_miss(index: &skillpack_server::search::Index<'_>, miss: &eval::Miss<'_>, label: &str) {
    let q = miss.question;
    println!(
        "  {label}MISS doc@{:?} section@{:?}: {}  [{}#{}]",
        miss.doc_rank, miss.section_rank, q.text, q.uri, q.anchor
    );
    for (i, hit) in miss.results.hits.iter().take(3).enumerate() {
        let document = index.document(hit.document);
        let tables = index.tables(hit.document).unwrap_or_default();
        let path: Vec<&str> = index
            .heading_path(hit, &tables)
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

/// Writes, for each build, `passages-<corpus>.jsonl` (every passage's document URI and title,
/// section anchor, byte start and text) and, for each split, `rankings-<split>.jsonl` (each
/// question with its expected section's byte range and its phrasings, our first 50 hits
/// with their passages, and plain BM25's first 50 documents).
fn dump(root: &Path, folder: &Path, params: &Params, writer: Option<&str>) -> Result<(), String> {
    use std::io::Write;
    std::fs::create_dir_all(folder).map_err(|e| format!("{}: {e}", folder.display()))?;
    let write = |name: &str, lines: Vec<serde_json::Value>| -> Result<(), String> {
        let path = folder.join(name);
        let mut out = std::io::BufWriter::new(
            std::fs::File::create(&path).map_err(|e| format!("{}: {e}", path.display()))?,
        );
        for line in lines {
            writeln!(out, "{line}").map_err(|e| format!("{}: {e}", path.display()))?;
        }
        Ok(())
    };
    for (corpus, splits) in [
        ("shared", &["tuning", "heldout"][..]),
        ("frozen", &["frozen"][..]),
    ] {
        let Some((archive_bytes, content)) = compile(root, corpus)? else {
            continue;
        };
        let index = eval::index(&archive_bytes, &content);
        let anchor = |document: u32, heading: u32| -> String {
            index
                .tables(document)
                .ok()
                .and_then(|t| Some(t.outline.get(heading as usize)?.anchor.clone()))
                .unwrap_or_default()
        };
        let table = &index.archive.search.passages;
        let passages = (0..table.len() as u32)
            .map(|p| {
                let p = table.get(p);
                let document = index.document(p.document);
                serde_json::json!({
                    "uri": document.uri.as_str(),
                    "title": document.title.as_str(),
                    "anchor": anchor(p.document, p.heading),
                    "start": p.start,
                    "text": index
                        .text_range(document, p.start as usize..p.end as usize)
                        .expect("the corpus decodes"),
                })
            })
            .collect();
        write(&format!("passages-{corpus}.jsonl"), passages)?;
        let baseline = Baseline::new(&index);
        for split in splits {
            let questions = eval::load(&root.join(format!("benches/relevance/{split}.tsv")));
            let paraphrases = eval::load_paraphrases(&rephrasings_file(
                root,
                writer,
                Path::new(&format!("{split}-paraphrases.tsv")),
            ));
            let problems = eval::check(&index, &questions, false);
            if !problems.is_empty() {
                return Err(format!("{split}.tsv:\n{}", problems.join("\n")));
            }
            let lines = questions
                .iter()
                .map(|q| {
                    let results = index.search_with(
                        &Request { query: &q.text, kind: Kind::All, offset: 0, limit: 50, also: &[] },
                        params,
                    );
                    let uri = |d: u32| index.document(d).uri.to_string();
                    let section = index
                        .archive
                        .documents
                        .iter()
                        .position(|d| d.uri == q.uri.as_str())
                        .and_then(|d| index.tables(d as u32).ok())
                        .and_then(|t| {
                            let h = t.outline.iter().find(|h| h.anchor == q.anchor.as_str())?;
                            Some([h.start, h.end])
                        });
                    serde_json::json!({
                        "question": q.text,
                        "uri": q.uri,
                        "anchor": q.anchor,
                        "kind": q.kind,
                        "section": section,
                        "also": paraphrases.get(&q.text).cloned().unwrap_or_default(),
                        "ours": results.hits.iter().map(|h| serde_json::json!({
                            "uri": uri(h.document),
                            "passage": h.passage,
                            "anchor": h.heading.map_or(String::new(), |x| anchor(h.document, x)),
                            "score": h.score,
                        })).collect::<Vec<_>>(),
                        "bm25": baseline.rank_to(&q.text, 50).into_iter().map(uri).collect::<Vec<_>>(),
                    })
                })
                .collect();
            write(&format!("rankings-{split}.jsonl"), lines)?;
        }
    }
    Ok(())
}
