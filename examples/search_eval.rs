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

#[path = "../benches/relevance/eval.rs"]
mod eval;

use std::path::PathBuf;
use std::process::ExitCode;

use eval::Baseline;
use skillpack::search::{Kind, Params, Request};

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
        "code_weight" => params.code_weight = one,
        "whole_weight" => params.whole_weight = one,
        "heading_bonus" => params.heading_bonus = one,
        "parent_share" => params.parent_share = one,
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
    let started = std::time::Instant::now();
    let (archive_bytes, content) = match eval::compile_corpora(&corpora) {
        Ok(compiled) => compiled,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::FAILURE;
        }
    };
    let index = eval::index(&archive_bytes, &content);
    let archive = index.archive;
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
    println!(
        "{:<28} {:>3}  {:>8}  {:>8}  {:>6}  section@3",
        "split / ranker", "n", "recall@1", "recall@3", "MRR"
    );
    let (mut whole, mut whole_plain) = (eval::Scores::default(), eval::Scores::default());
    for split in &options.splits {
        let questions = eval::load(&root.join(format!("benches/relevance/{split}.tsv")));
        // Per-question detail only for the tuning split: the held-out third is only ever
        // evaluated, never inspected.
        let verbose = options.verbose && split == "tuning";
        let evaluated = eval::evaluate(&index, &baseline, &questions, &options.params, |miss| {
            if !verbose {
                return;
            }
            let q = miss.question;
            println!(
                "  MISS doc@{:?} section@{:?}: {}  [{}#{}]",
                miss.doc_rank, miss.section_rank, q.text, q.uri, q.anchor
            );
            for (i, hit) in miss.results.hits.iter().take(3).enumerate() {
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
        });
        let (ours, plain) = match evaluated {
            Ok(scores) => scores,
            Err(message) => {
                eprintln!("{split}: {message}");
                return ExitCode::FAILURE;
            }
        };
        println!("{}", ours.line(&format!("{split} / skillpack")));
        println!("{}", plain.line(&format!("{split} / plain BM25 (doc)")));
        whole.merge(&ours);
        whole_plain.merge(&plain);
    }
    if options.splits.len() > 1 {
        println!("{}", whole.line("whole set / skillpack"));
        println!("{}", whole_plain.line("whole set / plain BM25 (doc)"));
    }
    ExitCode::SUCCESS
}
