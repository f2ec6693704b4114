//! Search latency in-process, without a transport: compiles the given folders (or loads an
//! archive saved earlier), then runs every question of a relevance file, or the queries
//! given with `--query`, through `search::Index` the way `catalog_search` does (one page of
//! `--limit` hits, snippets included), `--rounds` times, and prints the p50, p90, p99 and
//! mean per query (`docs/design/compact-archive.md`, `docs/design/search-pruning.md`).
//!
//! ```sh
//! cargo run --release --example search_latency -- --skills DIR --docs DIR \
//!     --questions benches/relevance/tuning.tsv [--rounds 50] [--limit 5]
//! # 100,000 documents: compile once (about 3 minutes), then load the archive in seconds
//! cargo run --release --example search_latency -- --skills DIR --docs DIR --save ARCHIVE_DIR
//! cargo run --release --example search_latency -- --load ARCHIVE_DIR \
//!     --query "archive handler" --query install [--rounds 20] [--dump ANSWERS]
//! ```
//!
//! `--also PHRASE` (repeated) sends every query with those alternative phrasings, as agents
//! send it (a fused search: each phrasing ranked to 200 hits, then fused); `--calls FILE`
//! runs agents' own first calls (`benches/relevance/first-calls/`: each line's JSON query
//! and `also`).
//!
//! `--dump FILE` writes every answer of the first round (total, and each hit's passage,
//! score bits and snippet) as one line per query, at offsets 0, 7 and 45, each kind, so
//! that two engines can be compared answer for answer over a catalog too large to build
//! into a binary. `--cpu` times each search by the CPU time of the process (every thread
//! that worked on it) rather than the wall clock: steadier when other work shares the
//! machine's cores. `--threads N` lets a search use up to N threads, its own included
//! (`search::set_threads`; 1, the default, ranks every search on this thread alone), so
//! that the wall clock shows what a search split into parts gains, and `--cpu` what it
//! costs. `--clients N` runs the rounds from N threads at once, as a busy HTTP server's
//! workers search, and prints how many searches a second they made in all.
//!
//! Run through a stdio client, a search also pays for the round trip and the scheduling
//! of two processes, which on 2 cores varies more than the search itself; this measures
//! only the engine, so two commits can be compared: copy this file into a worktree of the
//! other commit and run both, alternating.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use skillpack_server::catalog::{Catalog, Dictionary};
use skillpack_server::search::{Index, Kind, Request};

mod common;
// For its reader of agents' first calls (`eval::load_first_calls`).
#[path = "../benches/relevance/eval.rs"]
mod eval;

struct Options {
    skills: Option<PathBuf>,
    docs: Option<PathBuf>,
    questions: Option<PathBuf>,
    queries: Vec<String>,
    rounds: usize,
    limit: usize,
    save: Option<PathBuf>,
    load: Option<PathBuf>,
    dump: Option<PathBuf>,
    cpu: bool,
    threads: usize,
    clients: usize,
    also: Vec<String>,
    calls: Vec<PathBuf>,
}

fn parse() -> Result<Options, String> {
    let mut options = Options {
        skills: None,
        docs: None,
        questions: None,
        queries: Vec::new(),
        rounds: 50,
        limit: 5,
        also: Vec::new(),
        calls: Vec::new(),
        save: None,
        load: None,
        dump: None,
        cpu: false,
        threads: 1,
        clients: 1,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} takes a value"));
        match arg.as_str() {
            "--skills" => options.skills = Some(value()?.into()),
            "--docs" => options.docs = Some(value()?.into()),
            "--questions" => options.questions = Some(value()?.into()),
            "--query" => options.queries.push(value()?),
            "--rounds" => options.rounds = value()?.parse().map_err(|e| format!("{e}"))?,
            "--limit" => options.limit = value()?.parse().map_err(|e| format!("{e}"))?,
            "--save" => options.save = Some(value()?.into()),
            "--load" => options.load = Some(value()?.into()),
            "--dump" => options.dump = Some(value()?.into()),
            "--cpu" => options.cpu = true,
            "--threads" => options.threads = value()?.parse().map_err(|e| format!("{e}"))?,
            "--clients" => options.clients = value()?.parse().map_err(|e| format!("{e}"))?,
            "--also" => options.also.push(value()?),
            "--calls" => options.calls.push(value()?.into()),
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    if options.questions.is_none()
        && options.calls.is_empty()
        && options.queries.is_empty()
        && options.save.is_none()
    {
        return Err("--questions FILE, --calls FILE, --query Q or --save DIR is required".into());
    }
    if options.clients == 0 {
        return Err("--clients takes a number of at least 1".into());
    }
    if options.clients > 1 && options.cpu {
        // The process's CPU time would count every client's searches at once.
        return Err("--cpu times one client's searches: leave it out with --clients".into());
    }
    Ok(options)
}

/// The CPU time this process has used, every thread's: on a shared machine (`--cpu`) it
/// leaves out the time the search waited for a core, which wall time counts and which
/// varies with whatever else runs.
fn cpu_nanos() -> u128 {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid clock id and a pointer to a timespec it fills.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut now) };
    now.tv_sec as u128 * 1_000_000_000 + now.tv_nsec as u128
}

/// What `--save` writes next to the archive: the index format it was compiled in.
fn format_tag() -> String {
    format!(
        "skillpack search index format {}\n",
        skillpack_server::postings::INDEX_FORMAT
    )
}

/// The archive and content blob `--save` wrote, read back (refused when saved in another
/// index format, or when it does not validate), then read in place as the baked ones are.
fn load(dir: &std::path::Path) -> Result<Catalog, String> {
    let read = |name: &str| std::fs::read(dir.join(name)).map_err(|e| format!("{name}: {e}"));
    let format = std::fs::read_to_string(dir.join("format")).unwrap_or_default();
    if format != format_tag() {
        return Err(format!(
            "saved in another index format ({:?}, this build reads {:?}): save it again",
            format.trim(),
            format_tag().trim()
        ));
    }
    let archive = read("catalog.bin")?;
    let mut aligned = rkyv::util::AlignedVec::<16>::with_capacity(archive.len());
    aligned.extend_from_slice(&archive);
    let archive: &'static [u8] = Box::leak(Box::new(aligned)).as_slice();
    rkyv::access::<skillpack_server::model::ArchivedCatalog, rkyv::rancor::Error>(archive)
        .map_err(|error| format!("catalog.bin does not validate: {error}"))?
        .search
        .validate_summaries()
        .map_err(|error| format!("catalog.bin's search index does not validate: {error}"))?;
    let content: &'static [u8] = read("content.bin")?.leak();
    let dictionary: &'static Dictionary = Box::leak(Box::default());
    // SAFETY: validated above, and `--save` of this format wrote both.
    Ok(unsafe { Catalog::from_baked(archive, content, dictionary, "saved") })
}

fn main() -> ExitCode {
    let options = match parse() {
        Ok(options) => options,
        Err(error) => {
            eprintln!(
                "search_latency: {error}; usage: [--skills DIR] [--docs DIR] [--save DIR | \
                 --load DIR] (--questions FILE | --calls FILE | --query Q ...) [--also P ...] \
                 [--rounds N] [--limit N] [--dump FILE] [--cpu] [--threads N] [--clients N]"
            );
            return ExitCode::from(2);
        }
    };
    let mut questions: Vec<String> = options.queries.clone();
    // Per question, its alternative phrasings (`also`): `--also` for every question given by
    // `--query` or `--questions`, its own for each call of `--calls`.
    let mut phrasings: Vec<Vec<String>> = Vec::new();
    if let Some(path) = &options.questions {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(error) => {
                eprintln!("search_latency: {}: {error}", path.display());
                return ExitCode::FAILURE;
            }
        };
        // The first column of each line that is not a comment: the question.
        questions.extend(
            text.lines()
                .filter(|line| !line.is_empty() && !line.starts_with('#'))
                .filter_map(|line| line.split('\t').next())
                .map(str::to_owned),
        );
    }
    phrasings.resize(questions.len(), options.also.clone());
    for path in &options.calls {
        match eval::load_first_calls(path) {
            Ok(calls) => {
                // The searches, in the order of their questions (a map holds them).
                let mut calls: Vec<_> = calls
                    .into_iter()
                    .filter(|(_, call)| call.tool == "catalog_search" && !call.query.is_empty())
                    .collect();
                calls.sort_by(|a, b| a.0.cmp(&b.0));
                for (_, call) in calls {
                    questions.push(call.query);
                    phrasings.push(call.also);
                }
            }
            Err(error) => {
                eprintln!("search_latency: {error}");
                return ExitCode::FAILURE;
            }
        }
    }
    let catalog = if let Some(dir) = &options.load {
        match load(dir) {
            Ok(catalog) => catalog,
            Err(error) => {
                eprintln!("search_latency: {}: {error}", dir.display());
                return ExitCode::FAILURE;
            }
        }
    } else {
        let config_skills = options.skills.clone();
        let config_docs = options.docs.clone();
        if let Some(dir) = &options.save {
            let Some(output) = common::compile_output("search_latency", config_skills, config_docs)
            else {
                return ExitCode::FAILURE;
            };
            let written = std::fs::create_dir_all(dir)
                .and_then(|()| std::fs::write(dir.join("catalog.bin"), output.catalog_bytes()))
                .and_then(|()| std::fs::write(dir.join("content.bin"), &output.content))
                .and_then(|()| std::fs::write(dir.join("format"), format_tag()));
            if let Err(error) = written {
                eprintln!("search_latency: {}: {error}", dir.display());
                return ExitCode::FAILURE;
            }
            eprintln!("search_latency: saved in {}", dir.display());
            return ExitCode::SUCCESS;
        }
        match common::compile_catalog("search_latency", config_skills, config_docs) {
            Some(catalog) => catalog,
            None => return ExitCode::FAILURE,
        }
    };
    skillpack_server::search::set_threads(options.threads);
    let index = Index::from(&catalog);
    if let Some(path) = &options.dump
        && let Err(error) = dump(&index, &questions, &phrasings, path)
    {
        eprintln!("search_latency: {}: {error}", path.display());
        return ExitCode::FAILURE;
    }
    // Each client runs every round on a thread of its own, all at once, as the HTTP server's
    // workers do under load.
    let run_client = || {
        let mut per_query: Vec<Vec<u128>> = vec![Vec::new(); questions.len()];
        let mut hits = 0usize;
        for _ in 0..options.rounds {
            for ((question, also), times) in questions.iter().zip(&phrasings).zip(&mut per_query) {
                let also: Vec<&str> = also.iter().map(String::as_str).collect();
                let started = Instant::now();
                let cpu_started = cpu_nanos();
                let results = index.search(&Request {
                    query: question,
                    kind: Kind::All,
                    offset: 0,
                    limit: options.limit,
                    also: &also,
                });
                times.push(if options.cpu {
                    cpu_nanos() - cpu_started
                } else {
                    started.elapsed().as_nanos()
                });
                hits += results.hits.len();
            }
        }
        (per_query, hits)
    };
    let started = Instant::now();
    let clients: Vec<(Vec<Vec<u128>>, usize)> = if options.clients == 1 {
        vec![run_client()]
    } else {
        std::thread::scope(|scope| {
            let running: Vec<_> = (0..options.clients)
                .map(|_| scope.spawn(run_client))
                .collect();
            running
                .into_iter()
                .map(|client| client.join().expect("a client panicked"))
                .collect()
        })
    };
    let elapsed = started.elapsed();
    let mut nanos: Vec<u128> = Vec::new();
    let mut per_query: Vec<Vec<u128>> = vec![Vec::new(); questions.len()];
    let mut hits = 0usize;
    for (client_times, client_hits) in clients {
        for (times, client) in per_query.iter_mut().zip(client_times) {
            nanos.extend(&client);
            times.extend(client);
        }
        hits += client_hits;
    }
    if nanos.is_empty() {
        eprintln!("search_latency: no questions");
        return ExitCode::FAILURE;
    }
    let micros = |n: u128| n as f64 / 1000.0;
    let at = |sorted: &[u128], q: usize| sorted[(sorted.len() * q / 100).min(sorted.len() - 1)];
    if !options.queries.is_empty() {
        for (question, times) in questions.iter().zip(&mut per_query) {
            times.sort_unstable();
            println!(
                "  {question:?}: min {:.1} µs, p50 {:.1} µs, max {:.1} µs",
                micros(times[0]),
                micros(at(times, 50)),
                micros(*times.last().unwrap_or(&0))
            );
        }
    }
    nanos.sort_unstable();
    println!(
        "{} searches ({} questions x {} rounds, {hits} hits): p50 {:.1} µs, p90 {:.1} µs, p99 {:.1} µs, mean {:.1} µs",
        nanos.len(),
        questions.len(),
        options.rounds,
        micros(at(&nanos, 50)),
        micros(at(&nanos, 90)),
        micros(at(&nanos, 99)),
        micros(nanos.iter().sum::<u128>() / nanos.len() as u128),
    );
    if options.clients > 1 {
        println!(
            "{} clients at once: {:.1} searches a second",
            options.clients,
            nanos.len() as f64 / elapsed.as_secs_f64()
        );
    }
    ExitCode::SUCCESS
}

/// Every answer to every question at a few offsets and each kind, one line each.
fn dump(
    index: &Index<'_>,
    questions: &[String],
    phrasings: &[Vec<String>],
    path: &std::path::Path,
) -> std::io::Result<()> {
    let mut out = std::io::BufWriter::new(std::fs::File::create(path)?);
    for (question, also) in questions.iter().zip(phrasings) {
        let also: Vec<&str> = also.iter().map(String::as_str).collect();
        for kind in [Kind::All, Kind::Skills, Kind::Docs] {
            for (offset, limit) in [(0, 10), (7, 5), (45, 20)] {
                let results = index.search(&Request {
                    query: question,
                    kind,
                    offset,
                    limit,
                    also: &also,
                });
                write!(
                    out,
                    "{question:?} {also:?} {} {offset} {limit}: total {} more {} lead {}",
                    kind.as_str(),
                    results.total,
                    results.has_more,
                    results.clear_lead
                )?;
                for hit in &results.hits {
                    write!(
                        out,
                        " | {} {} {:?} {:08x} {:?}",
                        hit.passage,
                        hit.chunk,
                        hit.heading,
                        hit.score.to_bits(),
                        hit.snippet
                    )?;
                }
                writeln!(out)?;
            }
        }
    }
    out.flush()
}
