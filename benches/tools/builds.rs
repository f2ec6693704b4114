//! `bench-builds`: two or more skillpack builds over the same content, side by side over
//! stdio: an older commit's binary beside today's, say (docs/benchmarks.md, "Build and
//! size").
//!
//! It reads the catalog through the first build: every document named by the skills and
//! docs indexes, every chunk and section their `_meta` names, and `catalog_search` for
//! queries (a file of one query per line, or the questions of the relevance splits). It
//! checks that every build answers every request with the same bytes (or, for a set named
//! by `--may-differ`, counts the requests answered otherwise), then measures, in
//! rounds that take the builds in turn (so that a drifting machine load weighs on each
//! alike):
//!
//! - **cold start** (spawn to the `initialize` answer) and **idle RSS**, over fresh
//!   processes;
//! - per set (documents, chunks, sections, search): the round trip of one request with
//!   nothing else in flight, p50 and p99, over `--reads` requests per build. Each set is
//!   read by a fresh server of each build (before 2026-12-05 one server read every set in
//!   turn, so chunks and sections came from frames the documents set had decoded). Each
//!   request is one URI or query of the set in turn, the set cycling: a set larger than a
//!   server's caches is read as an agent reads, mostly things it has not read before.
//!
//! Bench tooling, built only with `--features bench`; `scripts/bench` runs it.

#[path = "session.rs"]
mod session;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::Parser;
use serde_json::{Value, json};
use session::{Server, Session, percentile, read_request};

#[derive(Parser)]
#[command(about = "Measure skillpack builds over the same catalog side by side over stdio.")]
struct Args {
    /// A build: `LABEL=BINARY [ARGUMENT...]` (at least two; the first is the reference),
    /// e.g. `uncached=target/.../skillpack serve --cache-mib 0`.
    #[arg(long = "build", value_name = "LABEL=BINARY", required = true)]
    builds: Vec<String>,
    /// Queries for the search set, one per line (a `.tsv` file: its first column; `#`
    /// lines skipped). Repeatable.
    #[arg(long)]
    queries: Vec<PathBuf>,
    /// Also search for the titles of the first N documents of the indexes (every N-th
    /// title of a larger catalog): queries for any catalog, synthetic ones included.
    #[arg(long, default_value_t = 0)]
    title_queries: usize,
    /// Fresh processes per build for the start-up figures.
    #[arg(long, default_value_t = 20)]
    spawns: usize,
    /// Timed requests per build and set.
    #[arg(long, default_value_t = 3000)]
    reads: usize,
    /// A name for the catalog in the tables.
    #[arg(long, default_value = "catalog")]
    catalog: String,
    /// Write the results as JSON lines to this file.
    #[arg(long)]
    json: Option<PathBuf>,
    /// A set (`search`, say) whose answers may differ between builds, as searches do
    /// across a ranking change: it is timed all the same, and how many answers differ is
    /// reported rather than stopping the run. Repeatable.
    #[arg(long, value_name = "SET")]
    may_differ: Vec<String>,
}

/// A named set of requests, serialised without their id (added per request).
struct RequestSet {
    name: &'static str,
    /// `(method, params)` per request.
    requests: Vec<(&'static str, Value)>,
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("bench-builds: {error}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &Args) -> Result<(), String> {
    let servers = args
        .builds
        .iter()
        .map(|spec| match spec.split_once('=') {
            Some((label, command)) => {
                let mut words = command.split_whitespace();
                Ok(Server {
                    label: label.to_owned(),
                    program: PathBuf::from(words.next().unwrap_or_default()),
                    args: words.map(str::to_owned).collect(),
                })
            }
            None => Err(format!(
                "--build {spec:?}: expected LABEL=BINARY [ARGUMENT...]"
            )),
        })
        .collect::<Result<Vec<_>, _>>()?;
    if servers.len() < 2 {
        return Err("give at least two --build".into());
    }
    let sets = request_sets(&servers[0], &args.queries, args.title_queries)?;
    for set in &sets {
        let may_differ = args.may_differ.iter().any(|name| name == set.name);
        let mut average = 0.0;
        let mut differing = Vec::new();
        for server in &servers[1..] {
            let differ;
            (average, differ) = compare_answers(&servers[0], server, &set.requests)?;
            match differ.first().map(|&i| &set.requests[i]) {
                Some((method, params)) if !may_differ => {
                    return Err(format!(
                        "{} and {} answer {method} {params} differently ({} of {} requests of the {} set differ; \
                         --may-differ {} times the set all the same)",
                        servers[0].label,
                        server.label,
                        differ.len(),
                        set.requests.len(),
                        set.name,
                        set.name
                    ));
                }
                Some(_) => differing.push(format!("{} {}", server.label, differ.len())),
                None => {}
            }
        }
        if differing.is_empty() {
            eprintln!(
                "{}: {} requests, the same answers from every build ({:.0} bytes each on average)",
                set.name,
                set.requests.len(),
                average
            );
        } else {
            eprintln!(
                "{}: {} requests; answers that differ from {}'s: {} (allowed by --may-differ)",
                set.name,
                set.requests.len(),
                servers[0].label,
                differing.join(", ")
            );
        }
    }

    // Start-up: one spawn of each build in turn.
    let mut cold: Vec<Vec<f64>> = vec![Vec::new(); servers.len()];
    let mut idle: Vec<Vec<u64>> = vec![Vec::new(); servers.len()];
    for _ in 0..args.spawns {
        for (s, server) in servers.iter().enumerate() {
            let started = Instant::now();
            let mut session = Session::spawn(server)?;
            session.initialize()?;
            cold[s].push(started.elapsed().as_secs_f64() * 1e3);
            std::thread::sleep(Duration::from_millis(20));
            idle[s].push(session.status("VmRSS:"));
            session.finish();
        }
    }

    // Reads: per set, a fresh session of each build (an agent's session starts with
    // nothing decoded: a set read after another would find the frames that one decoded
    // already cached), in batches that take the builds in turn.
    const BATCH: usize = 100;
    let mut latencies: Vec<Vec<Vec<f64>>> = vec![vec![Vec::new(); sets.len()]; servers.len()];
    let mut peaks = vec![0u64; servers.len()];
    for (k, set) in sets.iter().enumerate() {
        let mut sessions = servers
            .iter()
            .map(|server| {
                let mut session = Session::spawn(server)?;
                session.initialize()?;
                Ok(session)
            })
            .collect::<Result<Vec<_>, String>>()?;
        let lines: Vec<String> = set
            .requests
            .iter()
            .enumerate()
            .map(|(i, (method, params))| request(i + 1, method, params))
            .collect();
        let mut next = vec![0usize; servers.len()];
        while latencies[0][k].len() < args.reads {
            for (s, session) in sessions.iter_mut().enumerate() {
                for _ in 0..BATCH {
                    let line = &lines[next[s] % lines.len()];
                    next[s] += 1;
                    let started = Instant::now();
                    session.send(line)?;
                    session.receive()?;
                    latencies[s][k].push(started.elapsed().as_secs_f64() * 1e6);
                }
            }
        }
        for (s, session) in sessions.into_iter().enumerate() {
            peaks[s] = peaks[s].max(session.status("VmHWM:"));
            session.finish();
        }
    }

    let mut out = match &args.json {
        Some(path) => Some(
            std::fs::File::create(path)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?,
        ),
        None => None,
    };
    println!(
        "{:<14} {:<12} {:>9} {:>9} {:>9} {:>9}",
        "catalog", "build", "cold p50", "cold p90", "idle RSS", "peak RSS"
    );
    let mut stats = Vec::new();
    for (s, server) in servers.iter().enumerate() {
        cold[s].sort_by(f64::total_cmp);
        idle[s].sort_unstable();
        let cold_p50 = percentile(&cold[s], 50.0);
        let idle_kib = idle[s][idle[s].len() / 2];
        println!(
            "{:<14} {:<12} {:>7.2}ms {:>7.2}ms {:>6.1}MiB {:>6.1}MiB",
            args.catalog,
            server.label,
            cold_p50,
            percentile(&cold[s], 90.0),
            idle_kib as f64 / 1024.0,
            peaks[s] as f64 / 1024.0
        );
        stats.push((cold_p50, idle_kib));
    }
    println!();
    println!(
        "{:<14} {:<10} {:>6} {:<12} {:>9} {:>9}   {:>6} {:>6}",
        "catalog", "set", "count", "build", "p50", "p99", "p50×", "p99×"
    );
    for (k, set) in sets.iter().enumerate() {
        let mut reference = (0.0, 0.0);
        for (s, server) in servers.iter().enumerate() {
            let samples = &mut latencies[s][k];
            samples.sort_by(f64::total_cmp);
            let (p50, p99) = (percentile(samples, 50.0), percentile(samples, 99.0));
            if s == 0 {
                reference = (p50, p99);
            }
            println!(
                "{:<14} {:<10} {:>6} {:<12} {:>7.1}µs {:>7.1}µs   {:>5.2}× {:>5.2}×",
                args.catalog,
                set.name,
                set.requests.len(),
                server.label,
                p50,
                p99,
                p50 / reference.0,
                p99 / reference.1
            );
            if let Some(out) = out.as_mut() {
                let line = json!({
                    "catalog": args.catalog,
                    "build": server.label,
                    "set": set.name,
                    "requests": set.requests.len(),
                    "p50_us": p50,
                    "p99_us": p99,
                    "cold_p50_ms": stats[s].0,
                    "idle_rss_kib": stats[s].1,
                    "peak_rss_kib": peaks[s],
                });
                writeln!(out, "{line}").map_err(|e| e.to_string())?;
            }
        }
    }
    Ok(())
}

fn request(id: usize, method: &str, params: &Value) -> String {
    if method == "resources/read" {
        return read_request(id, params["uri"].as_str().unwrap_or_default());
    }
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string() + "\n"
}

/// One answer of `server`, parsed.
fn ask(session: &mut Session, method: &str, params: Value) -> Result<Value, String> {
    session.send(&request(1, method, &params))?;
    let line = session.receive()?;
    serde_json::from_slice(line).map_err(|e| format!("{method}: not JSON: {e}"))
}

/// The sets, read off the catalog through `server`.
fn request_sets(
    server: &Server,
    queries: &[PathBuf],
    title_queries: usize,
) -> Result<Vec<RequestSet>, String> {
    let mut session = Session::spawn(server)?;
    session.initialize()?;
    let mut documents = Vec::new();
    let mut titles = Vec::new();
    let mut indexes = vec![
        "resource://catalog/skills_index".to_owned(),
        "resource://catalog/docs_index".to_owned(),
    ];
    let mut i = 0;
    while i < indexes.len() {
        let index = indexes[i].clone();
        i += 1;
        let answer = ask(&mut session, "resources/read", json!({"uri": index}))?;
        let text = answer["result"]["contents"][0]["text"]
            .as_str()
            .unwrap_or("null");
        let value: Value = serde_json::from_str(text).map_err(|e| format!("{index}: {e}"))?;
        harvest(&value, &mut documents);
        collect_titles(&value, &mut titles);
        // The skill records name each skill's references.
        if index.ends_with("skills_index") {
            for skill in value["skills"].as_array().into_iter().flatten() {
                if let Some(id) = skill["id"].as_str() {
                    indexes.push(format!("resource://catalog/skills/{id}"));
                }
            }
        }
    }
    documents.sort();
    documents.dedup();
    let (mut chunks, mut sections) = (Vec::new(), Vec::new());
    for uri in &documents {
        let answer = ask(&mut session, "resources/read", json!({"uri": uri}))?;
        let meta = &answer["result"]["contents"][0]["_meta"]["io.skillpack/document"];
        for chunk in meta["chunks"].as_array().into_iter().flatten() {
            chunks.extend(chunk["uri"].as_str().map(str::to_owned));
        }
        for heading in meta["outline"].as_array().into_iter().flatten() {
            sections.extend(heading["uri"].as_str().map(str::to_owned));
        }
    }
    session.finish();
    let read = |uris: Vec<String>| -> Vec<(&'static str, Value)> {
        uris.into_iter()
            .map(|uri| ("resources/read", json!({"uri": uri})))
            .collect()
    };
    let mut sets = vec![
        RequestSet {
            name: "documents",
            requests: read(documents),
        },
        RequestSet {
            name: "chunks",
            requests: read(chunks),
        },
        RequestSet {
            name: "sections",
            requests: read(sections),
        },
    ];
    let mut searches = Vec::new();
    titles.sort();
    titles.dedup();
    let step = titles.len().div_ceil(title_queries.max(1)).max(1);
    for title in titles.iter().step_by(step).take(title_queries) {
        searches.push((
            "tools/call",
            json!({"name": "catalog_search", "arguments": {"query": title}}),
        ));
    }
    for path in queries {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        for line in text
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        {
            let query = line.split('\t').next().unwrap_or_default();
            searches.push((
                "tools/call",
                json!({"name": "catalog_search", "arguments": {"query": query}}),
            ));
        }
    }
    if !searches.is_empty() {
        sets.push(RequestSet {
            name: "search",
            requests: searches,
        });
    }
    sets.retain(|s| !s.requests.is_empty());
    Ok(sets)
}

/// Every `title` string in a JSON value.
fn collect_titles(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Array(items) => items.iter().for_each(|v| collect_titles(v, out)),
        Value::Object(map) => {
            if let Some(Value::String(title)) = map.get("title") {
                out.push(title.clone());
            }
            map.values().for_each(|v| collect_titles(v, out));
        }
        _ => {}
    }
}

/// Every document URI (`resource://skills/…`, `resource://docs/…`) in a JSON value.
fn harvest(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(s)
            if (s.starts_with("resource://skills/") || s.starts_with("resource://docs/"))
                && !s.contains('#')
                && !s.contains("/chunks/") =>
        {
            out.push(s.clone())
        }
        Value::Array(items) => items.iter().for_each(|v| harvest(v, out)),
        Value::Object(map) => map.values().for_each(|v| harvest(v, out)),
        _ => {}
    }
}

/// The reference's average answer size, and the indexes of the requests `other` answers
/// with other bytes than `reference` (ids aside: both get the same ones).
fn compare_answers(
    reference: &Server,
    other: &Server,
    requests: &[(&'static str, Value)],
) -> Result<(f64, Vec<usize>), String> {
    let mut a = Session::spawn(reference)?;
    let mut b = Session::spawn(other)?;
    a.initialize()?;
    b.initialize()?;
    let mut total = 0usize;
    let mut differ = Vec::new();
    for (i, (method, params)) in requests.iter().enumerate() {
        let line = request(i + 1, method, params);
        a.send(&line)?;
        let first = a.receive()?.to_vec();
        b.send(&line)?;
        let second = b.receive()?;
        if first != second {
            differ.push(i);
        }
        total += first.len();
    }
    a.finish();
    b.finish();
    Ok((total as f64 / requests.len().max(1) as f64, differ))
}
