//! A bounded loopback load test of `skillpack serve --http`: many concurrent keep-alive
//! clients send a mix of requests (2026-07-28 and legacy `resources/read`, `tools/call
//! catalog_read`, `resources/list`) — at least 100,000 after a warm-up — and
//!
//! - every answer is a 200 with the right JSON-RPC id and a result (zero errors, no 503
//!   from the concurrency limit, no dropped connection);
//! - the server's resident memory (`VmRSS`) at the end is within [`RSS_SLACK_KIB`] of what
//!   it was after the warm-up: a leak of even
//!   [`RSS_SLACK_KIB`]` / REQUESTS` bytes per request (under 170 bytes at 100,000 requests)
//!   fails, and every request allocates kilobytes (its body, the answer's JSON), so leaking
//!   any of them fails by far; once the clients hang up, it holds no more file descriptors
//!   than before the first one connected;
//! - throughput and latency percentiles are printed (not asserted: CI machines vary).
//!
//! Bigger runs for measurement: `scripts/load-http` (or set `SKILLPACK_LOAD_REQUESTS`,
//! `SKILLPACK_LOAD_CLIENTS`, `SKILLPACK_LOAD_WARMUP` and run this test with
//! `--nocapture`).

use crate::common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use common::builtin_binary;
use common::http::{HttpServer, KeepAlive};
use serde_json::Value;

/// Requests measured after the warm-up (at least this many; more with the variable).
const REQUESTS: usize = 100_000;
const WARMUP: usize = 20_000;
const CLIENTS: usize = 64;
/// How far `VmRSS` may rise from the end of the warm-up to the end of the run.
const RSS_SLACK_KIB: u64 = 16 * 1024;

const DOC: &str = "resource://docs/index.md";
const INDEX: &str = "resource://catalog/skills_index";
const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"load","version":"0"}}"#;

fn setting(name: &str, default: usize) -> usize {
    match std::env::var(name) {
        Ok(value) => value
            .parse()
            .unwrap_or_else(|_| panic!("{name} must be a number, got {value:?}")),
        Err(_) => default,
    }
}

/// One kind of request in the mix: headers, and the body around its id.
struct Kind {
    name: &'static str,
    headers: Vec<(&'static str, &'static str)>,
    before_id: String,
    after_id: String,
    /// A string the answer's result must contain.
    expect: &'static str,
}

fn kinds() -> Vec<Kind> {
    let common = [
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
    ];
    let modern = |method: &'static str, name: &'static str| {
        let mut headers = common.to_vec();
        headers.extend([
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", method),
            ("Mcp-Name", name),
        ]);
        headers
    };
    let legacy = || {
        let mut headers = common.to_vec();
        headers.push(("MCP-Protocol-Version", "2025-11-25"));
        headers
    };
    let kind = |name, headers, method: &str, params: String, expect| Kind {
        name,
        headers,
        before_id: r#"{"jsonrpc":"2.0","id":"#.to_owned(),
        after_id: format!(r#","method":"{method}","params":{params}}}"#),
        expect,
    };
    vec![
        kind(
            "resources/read (2026-07-28)",
            modern("resources/read", DOC),
            "resources/read",
            format!(r#"{{"uri":"{DOC}",{META}}}"#),
            "\"contents\"",
        ),
        kind(
            "resources/read (2025-11-25)",
            legacy(),
            "resources/read",
            format!(r#"{{"uri":"{INDEX}"}}"#),
            "agent-friendly-mcp",
        ),
        kind(
            "tools/call catalog_read (2026-07-28)",
            modern("tools/call", "catalog_read"),
            "tools/call",
            format!(r#"{{"name":"catalog_read","arguments":{{"uri":"{DOC}"}},{META}}}"#),
            "\"structuredContent\"",
        ),
        kind(
            "resources/list (2025-11-25)",
            legacy(),
            "resources/list",
            "{}".to_owned(),
            "\"resources\"",
        ),
    ]
}

/// Check one answer: 200, the id sent, a result holding `expect`, not a tool error.
fn check(status: u16, body: &[u8], id: usize, kind: &Kind) -> Result<(), String> {
    let show = || String::from_utf8_lossy(&body[..body.len().min(300)]).into_owned();
    if status != 200 {
        return Err(format!("{}: HTTP {status}: {}", kind.name, show()));
    }
    let answer: Value = serde_json::from_slice(body)
        .map_err(|e| format!("{}: not JSON ({e}): {}", kind.name, show()))?;
    if answer["id"].as_u64() != Some(id as u64) {
        return Err(format!("{}: wrong id (sent {id}): {}", kind.name, show()));
    }
    let result = &answer["result"];
    if result.is_null() || result["isError"] == true {
        return Err(format!("{}: not a result: {}", kind.name, show()));
    }
    let text = result.to_string();
    if !text.contains(kind.expect) {
        return Err(format!("{}: no {} in {}", kind.name, kind.expect, show()));
    }
    Ok(())
}

struct Phase {
    requests: usize,
    elapsed: Duration,
    /// Per-request latency in microseconds, sorted.
    latencies: Vec<u32>,
    errors: Vec<String>,
}

/// `total` requests from `clients` keep-alive connections, taking turns through the mix.
async fn run(
    addr: std::net::SocketAddr,
    clients: usize,
    total: usize,
    first_id: usize,
    kinds: &Arc<Vec<Kind>>,
) -> Phase {
    let next = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let tasks: Vec<_> = (0..clients)
        .map(|_| {
            let next = next.clone();
            let kinds = kinds.clone();
            tokio::spawn(async move {
                let mut connection = KeepAlive::connect(addr).await;
                let mut latencies = Vec::with_capacity(total / clients + 1);
                let mut errors = Vec::new();
                let mut body = Vec::with_capacity(512);
                loop {
                    let n = next.fetch_add(1, Ordering::Relaxed);
                    if n >= total {
                        break;
                    }
                    let id = first_id + n;
                    let kind = &kinds[n % kinds.len()];
                    body.clear();
                    body.extend_from_slice(kind.before_id.as_bytes());
                    body.extend_from_slice(id.to_string().as_bytes());
                    body.extend_from_slice(kind.after_id.as_bytes());
                    let sent = Instant::now();
                    let outcome = connection.post("/mcp", &kind.headers, &body).await;
                    latencies.push(sent.elapsed().as_micros().min(u32::MAX as u128) as u32);
                    let failure = match outcome {
                        Ok((status, answer)) => check(status, &answer, id, kind).err(),
                        Err(error) => {
                            // The connection is unusable: count it and open another.
                            connection = KeepAlive::connect(addr).await;
                            Some(format!("{}: {error}", kind.name))
                        }
                    };
                    if let Some(failure) = failure {
                        errors.push(failure);
                    }
                }
                (latencies, errors)
            })
        })
        .collect();
    let mut latencies = Vec::with_capacity(total);
    let mut errors = Vec::new();
    for task in tasks {
        let (l, e) = task.await.expect("a client task panicked");
        latencies.extend(l);
        errors.extend(e);
    }
    let elapsed = started.elapsed();
    latencies.sort_unstable();
    Phase {
        requests: total,
        elapsed,
        latencies,
        errors,
    }
}

fn percentile(sorted: &[u32], fraction: f64) -> f64 {
    let index = ((sorted.len() as f64 * fraction).ceil() as usize).clamp(1, sorted.len()) - 1;
    f64::from(sorted[index]) / 1000.0
}

fn open_fds(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .expect("list /proc/<pid>/fd")
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hundred_thousand_requests_without_errors_or_memory_growth() {
    let requests = setting("SKILLPACK_LOAD_REQUESTS", REQUESTS).max(REQUESTS);
    let warmup = setting("SKILLPACK_LOAD_WARMUP", WARMUP);
    let clients = setting("SKILLPACK_LOAD_CLIENTS", CLIENTS).max(1);
    let server = HttpServer::start(&builtin_binary(), &[], &[]);
    let kinds = Arc::new(kinds());

    let (rss_start, _) = server.memory_kib();
    let fds_idle = open_fds(server.pid());
    let warm = run(server.addr, clients, warmup, 0, &kinds).await;
    assert!(
        warm.errors.is_empty(),
        "{} errors during the warm-up, first: {}",
        warm.errors.len(),
        warm.errors[0]
    );
    let (rss_warm, peak_warm) = server.memory_kib();

    let phase = run(server.addr, clients, requests, warmup, &kinds).await;
    let (rss_end, peak_end) = server.memory_kib();
    // Every client has hung up: once the server has seen them go, it holds what it held
    // before the first connection (the listener, the runtime's own descriptors).
    let deadline = Instant::now() + common::http::STEP;
    let mut fds_end = open_fds(server.pid());
    while fds_end > fds_idle && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
        fds_end = open_fds(server.pid());
    }

    let seconds = phase.elapsed.as_secs_f64();
    eprintln!(
        "load: {} requests from {clients} keep-alive clients in {seconds:.2} s = {:.0} requests/s \
         (mix: {}); latency ms p50 {:.3}, p90 {:.3}, p99 {:.3}, p99.9 {:.3}, max {:.3}",
        phase.requests,
        phase.requests as f64 / seconds,
        kinds.iter().map(|k| k.name).collect::<Vec<_>>().join(", "),
        percentile(&phase.latencies, 0.50),
        percentile(&phase.latencies, 0.90),
        percentile(&phase.latencies, 0.99),
        percentile(&phase.latencies, 0.999),
        percentile(&phase.latencies, 1.0),
    );
    eprintln!(
        "load: server VmRSS KiB: start {rss_start}, after {warmup} warm-up requests {rss_warm} \
         (peak {peak_warm}), after {} more {rss_end} (peak {peak_end}); growth {} KiB \
         (bound {RSS_SLACK_KIB} KiB = {:.0} bytes per request); open fds idle {fds_idle}, after the run {fds_end}",
        phase.requests,
        rss_end as i64 - rss_warm as i64,
        (RSS_SLACK_KIB * 1024) as f64 / phase.requests as f64,
    );

    assert!(
        phase.errors.is_empty(),
        "{} of {} requests failed; first: {}",
        phase.errors.len(),
        phase.requests,
        phase.errors[0]
    );
    assert_eq!(phase.latencies.len(), phase.requests);
    assert!(
        rss_end <= rss_warm + RSS_SLACK_KIB,
        "VmRSS grew from {rss_warm} KiB after the warm-up to {rss_end} KiB after {} requests: \
         something is kept per request",
        phase.requests
    );
    assert!(
        fds_end <= fds_idle,
        "the server holds {fds_end} file descriptors after every client hung up, {fds_idle} \
         before any connected: connections are leaking"
    );
    let log = server.log();
    assert!(!log.contains("panicked"), "{log}");
    assert!(
        !log.contains("shed with 503"),
        "requests were shed under {clients} clients:\n{log}"
    );
    // Keep-alive clients that never pause are never refused or timed out.
    assert!(
        !log.contains("since the last such line"),
        "connections were refused or closed under {clients} clients:\n{log}"
    );
}
