//! Search latency in-process, without a transport: compiles the given folders, then runs
//! every question of a relevance file through `search::Index` the way `catalog_search`
//! does (one page of `--limit` hits, snippets included), `--rounds` times, and prints the
//! p50, p90 and mean per query (`docs/design/compact-archive.md`).
//!
//! ```sh
//! cargo run --release --example search_latency -- --skills DIR --docs DIR \
//!     --questions benches/relevance/tuning.tsv [--rounds 50] [--limit 5]
//! ```
//!
//! Run through a stdio client, a search also pays for the round trip and the scheduling
//! of two processes, which on 2 cores varies more than the search itself; this measures
//! only the engine, so two commits can be compared: copy this file into a worktree of the
//! other commit and run both, alternating.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use skillpack_server::search::{Index, Kind, Request};

mod common;

struct Options {
    skills: Option<PathBuf>,
    docs: Option<PathBuf>,
    questions: PathBuf,
    rounds: usize,
    limit: usize,
}

fn parse() -> Result<Options, String> {
    let mut options = Options {
        skills: None,
        docs: None,
        questions: PathBuf::new(),
        rounds: 50,
        limit: 5,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} takes a value"));
        match arg.as_str() {
            "--skills" => options.skills = Some(value()?.into()),
            "--docs" => options.docs = Some(value()?.into()),
            "--questions" => options.questions = value()?.into(),
            "--rounds" => options.rounds = value()?.parse().map_err(|e| format!("{e}"))?,
            "--limit" => options.limit = value()?.parse().map_err(|e| format!("{e}"))?,
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    if options.questions.as_os_str().is_empty() {
        return Err("--questions FILE is required".into());
    }
    Ok(options)
}

fn main() -> ExitCode {
    let options = match parse() {
        Ok(options) => options,
        Err(error) => {
            eprintln!(
                "search_latency: {error}; usage: [--skills DIR] [--docs DIR] --questions FILE \
                 [--rounds N] [--limit N]"
            );
            return ExitCode::from(2);
        }
    };
    let text = match std::fs::read_to_string(&options.questions) {
        Ok(text) => text,
        Err(error) => {
            eprintln!("search_latency: {}: {error}", options.questions.display());
            return ExitCode::FAILURE;
        }
    };
    // The first column of each line that is not a comment: the question.
    let questions: Vec<&str> = text
        .lines()
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .filter_map(|line| line.split('\t').next())
        .collect();
    let Some(catalog) = common::compile_catalog("search_latency", options.skills, options.docs)
    else {
        return ExitCode::FAILURE;
    };
    let index = Index::from(&catalog);
    let mut nanos: Vec<u128> = Vec::with_capacity(options.rounds * questions.len());
    let mut hits = 0usize;
    for _ in 0..options.rounds {
        for question in &questions {
            let started = Instant::now();
            let results = index.search(&Request {
                query: question,
                kind: Kind::All,
                offset: 0,
                limit: options.limit,
                also: &[],
            });
            nanos.push(started.elapsed().as_nanos());
            hits += results.hits.len();
        }
    }
    if nanos.is_empty() {
        eprintln!(
            "search_latency: no questions in {}",
            options.questions.display()
        );
        return ExitCode::FAILURE;
    }
    nanos.sort_unstable();
    let micros = |n: u128| n as f64 / 1000.0;
    println!(
        "{} searches ({} questions x {} rounds, {hits} hits): p50 {:.1} µs, p90 {:.1} µs, mean {:.1} µs",
        nanos.len(),
        questions.len(),
        options.rounds,
        micros(nanos[nanos.len() / 2]),
        micros(nanos[nanos.len() * 9 / 10]),
        micros(nanos.iter().sum::<u128>() / nanos.len() as u128),
    );
    ExitCode::SUCCESS
}
