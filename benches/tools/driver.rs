//! `bench-driver`: end-to-end stdio measurements of MCP servers, side by side.
//!
//! For each catalog it runs skillpack (the binary built over that catalog) and the peer
//! (`skillpack-peer`, rmcp's `SkillCatalog` loading the same skills folder) and measures:
//!
//! - **cold start**: from spawning the process to reading its `initialize` response
//!   (the request is written right after spawn), over `--spawns` fresh processes;
//! - **idle RSS**: resident memory once initialized, before any read;
//! - **sequential reads**: `resources/read` of `skill://…` URIs, one request in flight,
//!   round-trip latency (median, p99) and requests per second;
//! - **pipelined reads**: `--pipelined` requests written back to back by one thread while
//!   another reads the responses, requests per second;
//! - **peak RSS**: the process's high-water mark after the sequential reads (the working
//!   peak of normal use), and again after the pipelined run (which holds every queued
//!   request and response in flight).
//!
//! Reads use two sets of URIs, both SEP-2640 `skill://` URIs that both servers answer:
//!
//! - `documents`: every `SKILL.md` and markdown reference. skillpack answers with the same
//!   text plus `_meta` (the document's outline, chunk catalog and links), so it does more
//!   work per answer; the report shows the bytes per answer.
//! - `files`: every other skill file (scripts, templates, images as base64 blobs). Both
//!   serve the same bytes without `_meta`: this is the like-for-like comparison. (They may
//!   differ on text versus blob for an unknown extension, which rmcp sends as a blob.)
//!
//! Before timing anything the driver reads every URI from both servers and checks that the
//! bytes served (text, or decoded blob) are the same.
//!
//! Each measurement runs in rounds that take the servers in turn (a spawn of each, a batch
//! of reads on each…), so that the load of a shared machine, which drifts, weighs on every
//! server alike and the ratios stay meaningful.
//!
//! It speaks JSON-RPC over the child's pipes directly, with requests serialised up front
//! and responses only framed by newline in the timed loops, so the client costs little
//! next to the server. Linux only (RSS comes from `/proc/<pid>/status`).
//!
//! Bench tooling, built only with `--features bench`; `scripts/bench` runs it.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

#[path = "session.rs"]
mod session;

use base64::Engine;
use clap::Parser;
use serde_json::{Value, json};
use session::{Server, Session, initialize_request, is_result, percentile, read_request};

#[derive(Parser)]
#[command(about = "Measure skillpack and an rmcp SkillCatalog peer over stdio, side by side.")]
struct Args {
    /// A catalog: `NAME=SKILLS_DIR=SKILLPACK_BINARY` (repeatable).
    #[arg(
        long = "catalog",
        value_name = "NAME=SKILLS_DIR=BINARY",
        required = true
    )]
    catalogs: Vec<String>,
    /// The peer binary (`skillpack-peer`).
    #[arg(long)]
    peer: PathBuf,
    /// Also measure the peer on rmcp's plain `stdio()` transport, for these catalogs.
    #[arg(long, value_name = "NAME")]
    peer_plain_stdio: Vec<String>,
    /// Fresh processes for the cold-start figures.
    #[arg(long, default_value_t = 30)]
    spawns: usize,
    /// Sequential reads per session.
    #[arg(long, default_value_t = 5000)]
    reads: usize,
    /// Pipelined reads per session.
    #[arg(long, default_value_t = 50000)]
    pipelined: usize,
    /// Write the results as JSON lines to this file.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Another skillpack binary over the same catalog, measured in the same rounds and
    /// compared with the first: `CATALOG:LABEL=BINARY` (repeatable), e.g.
    /// `builtin:dynamic=/tmp/skillpack-dynamic` to set a dynamically linked build beside
    /// the static one, or an older commit's build beside today's. It must serve the same
    /// bytes for every URI.
    #[arg(long = "also", value_name = "CATALOG:LABEL=BINARY")]
    also: Vec<String>,
}

struct Catalog {
    name: String,
    skills: PathBuf,
    binary: PathBuf,
}

/// Start-up and memory figures of one server on one catalog.
#[derive(Debug, Default, Clone)]
struct Startup {
    cold_median_ms: f64,
    cold_p90_ms: f64,
    idle_rss_kib: u64,
    /// High-water mark after the sequential reads: the working peak of normal use.
    peak_rss_kib: u64,
    /// High-water mark after the pipelined runs, which hold every queued response.
    pipelined_peak_rss_kib: u64,
}

/// Read figures of one server on one set of URIs.
#[derive(Debug, Default, Clone)]
struct Reads {
    answer_bytes: f64,
    median_us: f64,
    p99_us: f64,
    sequential_rps: f64,
    pipelined_rps: f64,
}

/// A named set of URIs to read.
struct UriSet {
    name: &'static str,
    uris: Vec<String>,
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("bench-driver: {error}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &Args) -> Result<(), String> {
    let catalogs = args
        .catalogs
        .iter()
        .map(|spec| {
            let mut parts = spec.splitn(3, '=');
            match (parts.next(), parts.next(), parts.next()) {
                (Some(name), Some(skills), Some(binary)) => Ok(Catalog {
                    name: name.to_owned(),
                    skills: PathBuf::from(skills),
                    binary: PathBuf::from(binary),
                }),
                _ => Err(format!(
                    "--catalog {spec:?}: expected NAME=SKILLS_DIR=SKILLPACK_BINARY"
                )),
            }
        })
        .collect::<Result<Vec<_>, _>>()?;
    let also = args
        .also
        .iter()
        .map(|spec| match spec.split_once(':').and_then(|(c, rest)| Some((c, rest.split_once('=')?))) {
            Some((catalog, (label, binary))) if catalogs.iter().any(|c| c.name == catalog) => {
                Ok((catalog.to_owned(), label.to_owned(), PathBuf::from(binary)))
            }
            _ => Err(format!(
                "--also {spec:?}: expected CATALOG:LABEL=BINARY with a CATALOG given to --catalog"
            )),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut json_out = match &args.json {
        Some(path) => Some(
            std::fs::File::create(path)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?,
        ),
        None => None,
    };

    let mut startup_rows: Vec<String> = Vec::new();
    let mut read_rows: Vec<String> = Vec::new();
    let mut ratio_rows: Vec<String> = Vec::new();
    let mut also_rows: Vec<String> = Vec::new();
    for catalog in &catalogs {
        let sets = uri_sets(&catalog.skills)?;
        if sets.is_empty() {
            return Err(format!(
                "{}: no SKILL.md under {}",
                catalog.name,
                catalog.skills.display()
            ));
        }
        let skills_dir = catalog.skills.display().to_string();
        let mut servers = vec![
            Server {
                label: "skillpack".into(),
                program: catalog.binary.clone(),
                args: vec![],
            },
            Server {
                label: "peer".into(),
                program: args.peer.clone(),
                args: vec!["--skills".into(), skills_dir.clone()],
            },
        ];
        if args.peer_plain_stdio.contains(&catalog.name) {
            servers.push(Server {
                label: "peer (stdio())".into(),
                program: args.peer.clone(),
                args: vec![
                    "--skills".into(),
                    skills_dir.clone(),
                    "--transport".into(),
                    "stdio".into(),
                ],
            });
        }
        // Other skillpack builds over this catalog come last.
        let first_also = servers.len();
        for (_, label, binary) in also.iter().filter(|(c, _, _)| *c == catalog.name) {
            servers.push(Server {
                label: format!("skillpack ({label})"),
                program: binary.clone(),
                args: vec![],
            });
        }
        // Bytes per answer, per set and server, from the verification passes.
        let mut answer_bytes = Vec::new();
        for set in &sets {
            let [ours, peer] = verify_same_answers(&servers[0], &servers[1], &set.uris)
                .map_err(|e| format!("{} ({}): {e}", catalog.name, set.name))?;
            let mut bytes = vec![ours, peer];
            bytes.resize(first_also, peer);
            for other in &servers[first_also..] {
                let [_, theirs] = verify_same_answers(&servers[0], other, &set.uris)
                    .map_err(|e| format!("{} ({}): {e}", catalog.name, set.name))?;
                bytes.push(theirs);
            }
            answer_bytes.push(bytes);
        }
        let (startup, reads) =
            measure(&servers, &sets, args).map_err(|e| format!("{}: {e}", catalog.name))?;

        for (s, server) in servers.iter().enumerate() {
            let f = &startup[s];
            startup_rows.push(format!(
                "{:<18} {:<16} {:>7.2}ms {:>7.2}ms {:>6.1}MiB {:>7.1}MiB {:>7.1}MiB",
                catalog.name,
                server.label,
                f.cold_median_ms,
                f.cold_p90_ms,
                mib(f.idle_rss_kib),
                mib(f.peak_rss_kib),
                mib(f.pipelined_peak_rss_kib),
            ));
            for (k, set) in sets.iter().enumerate() {
                let mut r = reads[s][k].clone();
                r.answer_bytes = answer_bytes[k][s];
                read_rows.push(format!(
                    "{:<18} {:<10} {:>5} {:<16} {:>8.0} {:>8.1}µs {:>8.1}µs {:>10.0} {:>11.0}",
                    catalog.name,
                    set.name,
                    set.uris.len(),
                    server.label,
                    r.answer_bytes,
                    r.median_us,
                    r.p99_us,
                    r.sequential_rps,
                    r.pipelined_rps,
                ));
                if let Some(out) = json_out.as_mut() {
                    let line = json!({
                        "catalog": catalog.name,
                        "server": server.label,
                        "uri_set": set.name,
                        "uris": set.uris.len(),
                        "cold_median_ms": f.cold_median_ms,
                        "cold_p90_ms": f.cold_p90_ms,
                        "idle_rss_kib": f.idle_rss_kib,
                        "peak_rss_kib": f.peak_rss_kib,
                        "pipelined_peak_rss_kib": f.pipelined_peak_rss_kib,
                        "answer_bytes": r.answer_bytes,
                        "read_median_us": r.median_us,
                        "read_p99_us": r.p99_us,
                        "sequential_rps": r.sequential_rps,
                        "pipelined_rps": r.pipelined_rps,
                    });
                    writeln!(out, "{line}").map_err(|e| e.to_string())?;
                }
            }
        }
        let (ours, peer) = (&startup[0], &startup[1]);
        let mut row = format!(
            "{:<18} {:>9.1}× {:>9.1}× {:>9.1}×",
            catalog.name,
            peer.cold_median_ms / ours.cold_median_ms,
            peer.idle_rss_kib as f64 / ours.idle_rss_kib as f64,
            peer.peak_rss_kib as f64 / ours.peak_rss_kib as f64,
        );
        for name in ["documents", "files"] {
            match sets.iter().position(|set| set.name == name) {
                Some(k) => row.push_str(&format!(
                    " {:>11.2}× {:>11.2}×",
                    reads[1][k].median_us / reads[0][k].median_us,
                    reads[0][k].pipelined_rps / reads[1][k].pipelined_rps,
                )),
                None => row.push_str(&format!(" {:>12} {:>12}", "-", "-")),
            }
        }
        ratio_rows.push(row);
        for (s, other) in servers.iter().enumerate().skip(first_also) {
            let mut row = format!(
                "{:<18} {:<22} {:>9.2}× {:>9.2}×",
                catalog.name,
                other.label,
                startup[s].cold_median_ms / startup[0].cold_median_ms,
                startup[s].idle_rss_kib as f64 / startup[0].idle_rss_kib as f64,
            );
            for k in 0..sets.len() {
                row.push_str(&format!(
                    " {:>9} {:>7.2}× {:>7.2}×",
                    sets[k].name,
                    reads[s][k].median_us / reads[0][k].median_us,
                    reads[s][k].p99_us / reads[0][k].p99_us,
                ));
            }
            also_rows.push(row);
        }
    }

    println!("Start-up and memory");
    println!(
        "{:<18} {:<16} {:>9} {:>9} {:>9} {:>10} {:>10}",
        "catalog", "server", "cold p50", "cold p90", "idle RSS", "peak RSS", "pipe peak"
    );
    for row in &startup_rows {
        println!("{row}");
    }
    println!("\nresources/read over stdio");
    println!(
        "{:<18} {:<10} {:>5} {:<16} {:>8} {:>10} {:>10} {:>10} {:>11}",
        "catalog",
        "URIs",
        "count",
        "server",
        "B/answer",
        "read p50",
        "read p99",
        "seq req/s",
        "pipe req/s"
    );
    for row in &read_rows {
        println!("{row}");
    }
    println!("\nskillpack vs peer: how many times better skillpack is (>1 favours skillpack)");
    println!(
        "{:<18} {:>10} {:>10} {:>10} {:>12} {:>12} {:>12} {:>12}",
        "catalog",
        "cold p50",
        "idle RSS",
        "peak RSS",
        "docs p50",
        "docs pipe",
        "files p50",
        "files pipe"
    );
    for row in &ratio_rows {
        println!("{row}");
    }
    if !also_rows.is_empty() {
        println!(
            "\nother builds / skillpack: time and memory of each against the first build (<1 favours the other)"
        );
        println!(
            "{:<18} {:<22} {:>10} {:>10} {:>9} {:>8} {:>8}",
            "catalog", "build", "cold p50", "idle RSS", "URIs", "p50", "p99"
        );
        for row in &also_rows {
            println!("{row}");
        }
    }
    Ok(())
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

/// The `documents` and `files` URI sets of a skills folder (see the module docs), as
/// `skill://` URIs spelled as both servers spell them: only paths of unreserved characters
/// are used, so no percent-encoding is involved. Files of folders that are not inside a
/// skill are left out (neither server serves them).
fn uri_sets(dir: &Path) -> Result<Vec<UriSet>, String> {
    let mut paths = Vec::new();
    for entry in walkdir::WalkDir::new(dir).sort_by_file_name() {
        let entry = entry.map_err(|e| e.to_string())?;
        if !entry.file_type().is_file() {
            continue;
        }
        let Ok(rel) = entry.path().strip_prefix(dir) else {
            continue;
        };
        let rel = rel.to_string_lossy().replace('\\', "/");
        let plain = rel
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'/'));
        let hidden = rel.split('/').any(|part| part.starts_with('.'));
        if plain && !hidden {
            paths.push(rel);
        }
    }
    let skill_dirs: std::collections::HashSet<&str> = paths
        .iter()
        .filter_map(|p| p.strip_suffix("/SKILL.md"))
        .collect();
    let in_skill = |path: &str| {
        std::iter::successors(path.rsplit_once('/').map(|(d, _)| d), |d| {
            d.rsplit_once('/').map(|(parent, _)| parent)
        })
        .any(|d| skill_dirs.contains(d))
    };
    let (mut documents, mut files) = (Vec::new(), Vec::new());
    for path in &paths {
        if !in_skill(path) {
            continue;
        }
        let uri = format!("skill://{path}");
        if path.to_ascii_lowercase().ends_with(".md") {
            documents.push(uri);
        } else {
            files.push(uri);
        }
    }
    Ok([("documents", documents), ("files", files)]
        .into_iter()
        .filter(|(_, uris)| !uris.is_empty())
        .map(|(name, uris)| UriSet { name, uris })
        .collect())
}

/// The text (or blob) of every URI, hashed, as one server answers them, and the mean size
/// of an answer in bytes.
fn answers(server: &Server, uris: &[String]) -> Result<(HashMap<String, u64>, f64), String> {
    let mut session = Session::spawn(server)?;
    session.initialize()?;
    let mut out = HashMap::new();
    let mut bytes = 0usize;
    for (i, uri) in uris.iter().enumerate() {
        session.send(&read_request(i + 1, uri))?;
        let line = session.receive()?;
        bytes += line.len();
        let value: Value =
            serde_json::from_slice(line).map_err(|e| format!("{uri}: unparsable response: {e}"))?;
        // The bytes served: servers may differ on text versus base64 blob for a file type
        // (rmcp's SkillCatalog sends unknown extensions as blobs), not on the bytes.
        let contents = &value["result"]["contents"][0];
        let body: Vec<u8> = match (contents["text"].as_str(), contents["blob"].as_str()) {
            (Some(text), _) => text.as_bytes().to_vec(),
            (None, Some(blob)) => base64::engine::general_purpose::STANDARD
                .decode(blob)
                .map_err(|e| format!("{} answered {uri} with bad base64: {e}", server.label))?,
            _ => return Err(format!("{} answered {uri} with {value}", server.label)),
        };
        let mut hasher = DefaultHasher::new();
        body.hash(&mut hasher);
        out.insert(uri.clone(), hasher.finish());
    }
    session.finish();
    Ok((out, bytes as f64 / uris.len().max(1) as f64))
}

/// Check that both servers serve the same bytes for every URI; the mean answer size of each.
fn verify_same_answers(ours: &Server, peer: &Server, uris: &[String]) -> Result<[f64; 2], String> {
    let (a, a_bytes) = answers(ours, uris)?;
    let (b, b_bytes) = answers(peer, uris)?;
    let differing: Vec<&String> = uris.iter().filter(|u| a.get(*u) != b.get(*u)).collect();
    if !differing.is_empty() {
        return Err(format!(
            "skillpack and the peer answer {} of {} URIs differently, e.g. {}",
            differing.len(),
            uris.len(),
            differing[0]
        ));
    }
    Ok([a_bytes, b_bytes])
}

/// Rounds of each measurement, taking the servers in turn, so that a change in the
/// machine's load during the run affects every server alike (the machine is shared).
const ROUNDS: usize = 10;

fn measure(
    servers: &[Server],
    sets: &[UriSet],
    args: &Args,
) -> Result<(Vec<Startup>, Vec<Vec<Reads>>), String> {
    let mut startup = vec![Startup::default(); servers.len()];
    let mut reads = vec![vec![Reads::default(); sets.len()]; servers.len()];

    // Cold start: spawn → initialize response, a fresh process each time, servers in turn.
    let init = initialize_request();
    let mut cold = vec![Vec::with_capacity(args.spawns); servers.len()];
    for _ in 0..args.spawns {
        for (server, times) in servers.iter().zip(&mut cold) {
            let started = Instant::now();
            let mut session = Session::spawn(server)?;
            session.send(&init)?;
            let ok = is_result(session.receive()?);
            times.push(started.elapsed().as_secs_f64() * 1e3);
            session.finish();
            if !ok {
                return Err(format!("{}: initialize failed", server.label));
            }
        }
    }
    for (times, figures) in cold.iter_mut().zip(&mut startup) {
        times.sort_by(f64::total_cmp);
        figures.cold_median_ms = percentile(times, 50.0);
        figures.cold_p90_ms = percentile(times, 90.0);
    }

    // One long-lived session per server, all initialized and idle before any read.
    let mut sessions = Vec::with_capacity(servers.len());
    for server in servers {
        let mut session = Session::spawn(server)?;
        session.initialize()?;
        sessions.push(session);
    }
    std::thread::sleep(Duration::from_millis(100));
    for (session, figures) in sessions.iter().zip(&mut startup) {
        figures.idle_rss_kib = session.status("VmRSS:");
    }

    // Sequential: one request in flight, in rounds, each set in turn.
    for (k, set) in sets.iter().enumerate() {
        let uris = &set.uris;
        let requests: Vec<String> = (0..args.reads.max(ROUNDS))
            .map(|i| read_request(i + 1, &uris[(i * 7919) % uris.len()]))
            .collect();
        let per_round = requests.len().div_ceil(ROUNDS);
        let mut latencies = vec![Vec::with_capacity(requests.len()); servers.len()];
        let mut busy = vec![Duration::ZERO; servers.len()];
        for round in requests.chunks(per_round) {
            for (s, session) in sessions.iter_mut().enumerate() {
                let started = Instant::now();
                for request in round {
                    let sent = Instant::now();
                    session.send(request)?;
                    let line = session.receive()?;
                    latencies[s].push(sent.elapsed().as_secs_f64() * 1e6);
                    if !is_result(line) {
                        return Err(format!(
                            "{}: read failed: {}",
                            servers[s].label,
                            String::from_utf8_lossy(line)
                        ));
                    }
                }
                busy[s] += started.elapsed();
            }
        }
        for s in 0..servers.len() {
            latencies[s].sort_by(f64::total_cmp);
            reads[s][k].median_us = percentile(&latencies[s], 50.0);
            reads[s][k].p99_us = percentile(&latencies[s], 99.0);
            reads[s][k].sequential_rps = latencies[s].len() as f64 / busy[s].as_secs_f64();
        }
    }
    for (session, figures) in sessions.iter().zip(&mut startup) {
        figures.peak_rss_kib = session.status("VmHWM:");
    }

    // Pipelined: a writer thread keeps the pipe full while this thread reads, in rounds.
    let count = args.pipelined.max(ROUNDS) / ROUNDS;
    for (k, set) in sets.iter().enumerate() {
        let uris = &set.uris;
        let batch: Vec<u8> = (0..count)
            .flat_map(|i| read_request(i + 1, &uris[(i * 7919) % uris.len()]).into_bytes())
            .collect();
        let mut busy = vec![Duration::ZERO; servers.len()];
        for _ in 0..ROUNDS {
            for (s, session) in sessions.iter_mut().enumerate() {
                busy[s] += pipelined(session, &batch, count)
                    .map_err(|e| format!("{}: {e}", servers[s].label))?;
            }
        }
        for s in 0..servers.len() {
            reads[s][k].pipelined_rps = (count * ROUNDS) as f64 / busy[s].as_secs_f64();
        }
    }
    for (session, figures) in sessions.iter().zip(&mut startup) {
        figures.pipelined_peak_rss_kib = session.status("VmHWM:");
    }
    for session in sessions {
        session.finish();
    }
    Ok((startup, reads))
}

/// Write `batch` (`count` requests) from another thread while reading `count` responses;
/// the time from the first write to the last response.
fn pipelined(session: &mut Session, batch: &[u8], count: usize) -> Result<Duration, String> {
    let stdin = session.stdin.get_mut();
    // The writer borrows the pipe for the duration of the scope only.
    std::thread::scope(|scope| {
        let started = Instant::now();
        let writer = scope.spawn(|| stdin.write_all(batch).and_then(|()| stdin.flush()));
        let mut failures = 0usize;
        for _ in 0..count {
            session.line.clear();
            let n = session
                .stdout
                .read_until(b'\n', &mut session.line)
                .map_err(|e| format!("read: {e}"))?;
            if n == 0 {
                return Err("the server closed its output during the pipelined run".to_owned());
            }
            if !is_result(&session.line) {
                failures += 1;
            }
        }
        let took = started.elapsed();
        writer
            .join()
            .map_err(|_| "the writer thread panicked".to_owned())?
            .map_err(|e| format!("write: {e}"))?;
        if failures > 0 {
            return Err(format!("{failures} pipelined reads failed"));
        }
        Ok(took)
    })
}
