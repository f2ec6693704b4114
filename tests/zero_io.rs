//! "No filesystem IO at run time", checked from outside the process and enforced inside it.
//!
//! - A full MCP session (initialize, every list, every document and chunk read, errors,
//!   hostile input) runs under `strace -f -e trace=%file`: after the initialize response
//!   the server makes no file syscall at all — not even one that fails. The same trace
//!   must show the opens the server does make before that point (the dynamic loader,
//!   rmcp reopening `/proc/self/fd/N`), so a trace that caught nothing cannot pass.
//! - In that trace the server calls `landlock_restrict_self` successfully before it
//!   answers `initialize`: take the restriction out of `serve` and this test fails.
//! - `skillpack info` restricts a thread the way `serve` restricts itself and tries to open
//!   a file: Landlock must refuse it. Weaken the ruleset and that test fails.
//!
//! strace is installed by `.ci/run`; without it (a developer machine) the trace tests skip
//! with a message, and under CI they fail instead.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::http::{HttpServer, STEP, connect_legacy, connect_modern, request};
use common::raw::RawSession;
use rmcp::model::{PaginatedRequestParams, ReadResourceRequestParams};
use serde_json::{Value, json};

fn strace_available() -> bool {
    let found = Command::new("strace")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        assert!(
            std::env::var_os("CI").is_none(),
            "strace is missing under CI: .ci/run must install it"
        );
        eprintln!(
            "SKIP: strace is not installed (apt-get install strace); the zero-IO trace is not checked"
        );
    }
    found
}

/// The command that runs the built-in binary under strace, tracing file syscalls, writes
/// (the transport uses `writev`) and the Landlock
/// restriction into `trace`.
fn traced(trace: &Path) -> Command {
    traced_binary(trace, &common::builtin_binary())
}

fn traced_binary(trace: &Path, binary: &Path) -> Command {
    traced_with(trace, binary, &[])
}

/// [`traced_binary`], tracing the syscalls `more` too.
fn traced_with(trace: &Path, binary: &Path, more: &[&str]) -> Command {
    let mut filter = "trace=%file,write,writev,landlock_restrict_self".to_owned();
    for name in more {
        filter.push(',');
        filter.push_str(name);
    }
    let mut command = Command::new("strace");
    command
        .args(["-f", "-qq", "-s", "160", "-o"])
        .arg(trace)
        .args(["-e", &filter])
        .arg(binary);
    command
}

/// What the trace shows about the server's run.
#[derive(Debug)]
struct Trace {
    /// File syscalls before the initialize response.
    before: Vec<String>,
    /// File syscalls after it: must be empty.
    after: Vec<String>,
    /// The `landlock_restrict_self` call and its result, if made before the response.
    restrict: Option<String>,
    /// Threads started after it (`clone`, `clone3`; only when the trace asks for them).
    threads_after: usize,
}

/// The initialize answer on stdout: from here on, no file syscalls.
fn initialize_answer(write: &str) -> bool {
    write.contains(r#"\"protocolVersion\""#) && write.contains(r#"\"result\""#)
}

/// The HTTP server's "serving" log line on stderr: from here on, no file syscalls.
fn serving_http(write: &str) -> bool {
    write.starts_with("write(2,") && write.contains("serving MCP over Streamable HTTP")
}

/// Split the trace at the first write that `marker` accepts.
fn read_trace(path: &Path, marker: fn(&str) -> bool) -> Trace {
    let text = std::fs::read_to_string(path).expect("read the strace output");
    let mut trace = Trace {
        before: Vec::new(),
        after: Vec::new(),
        restrict: None,
        threads_after: 0,
    };
    let mut answered = false;
    for line in text.lines() {
        // `PID name(args) = result`, `PID <... name resumed> …`, `+++ exited …`, `--- SIG… ---`.
        let rest = line
            .split_once(' ')
            .map_or(line, |(_, rest)| rest)
            .trim_start();
        if rest.starts_with("+++") || rest.starts_with("---") {
            continue;
        }
        let name = match rest.strip_prefix("<... ") {
            Some(resumed) => resumed.split(' ').next().unwrap_or(""),
            None => rest.split('(').next().unwrap_or(""),
        };
        match name {
            "write" | "writev" => {
                if !answered && marker(rest) {
                    answered = true;
                }
            }
            "landlock_restrict_self" => {
                if !answered {
                    trace.restrict = Some(rest.to_owned());
                }
            }
            "clone" | "clone3" if answered => trace.threads_after += 1,
            "clone" | "clone3" => {}
            _ if answered => trace.after.push(line.to_owned()),
            _ => trace.before.push(line.to_owned()),
        }
    }
    assert!(
        answered,
        "the trace never reached the point after which no file may be touched:\n{text}"
    );
    trace
}

/// No file syscall after the marker; the trace saw `startup_open` (a path the server opens
/// before it, so an empty `after` means something); Landlock restricted the process first.
fn check(trace: &Trace, startup_open: &str) {
    assert!(
        trace.after.is_empty(),
        "the server touched the filesystem after it started serving:\n{}",
        trace.after.join("\n")
    );
    assert!(
        trace
            .before
            .iter()
            .any(|l| l.contains("openat(") && l.contains(startup_open)),
        "the trace missed the opens made at start-up; is strace following the server?\n{}",
        trace.before.join("\n")
    );
    match landlock_abi() {
        0 => eprintln!("SKIP: the kernel has no Landlock; the restriction is not checked"),
        abi => {
            let call = trace.restrict.as_deref().unwrap_or_else(|| {
                panic!("the kernel offers Landlock ABI {abi} but serve never restricted itself before serving")
            });
            assert!(
                call.ends_with("= 0"),
                "landlock_restrict_self failed: {call}"
            );
        }
    }
}

/// The Landlock ABI the kernel offers, as `skillpack info` reports it (0: none).
fn landlock_abi() -> i64 {
    info()["sandbox"]["abi"].as_i64().unwrap_or(0)
}

fn info() -> Value {
    let output = common::run(&common::builtin_binary(), &["info", "--json"]);
    assert!(output.status.success());
    serde_json::from_slice(&output.stdout).expect("info --json is JSON")
}

fn temp_trace(name: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    (dir, path)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_session_touches_no_file_after_initialize() {
    if !strace_available() {
        return;
    }
    let (_dir, path) = temp_trace("session.trace");
    let mut command = tokio::process::Command::from(traced(&path));
    // rmcp logs every error answer at `warn`; the session sends some on purpose.
    command.env("RUST_LOG", "error");
    let transport = rmcp::transport::TokioChildProcess::new(command).expect("spawn strace");
    let client = rmcp::ServiceExt::serve((), transport)
        .await
        .expect("initialize");

    let reads = exercise(&client).await;
    client.cancel().await.expect("close the session");
    assert!(
        reads > 50,
        "only {reads} reads: the session did not cover the catalog"
    );

    check(&read_trace(&path, initialize_answer), "/proc/self/fd/0");
}

/// A catalog large enough for a search to be ranked in parts: 17,000 pages that all hold
/// "cache" (a split needs its most common word in 16,384 documents), of varied lengths so
/// that their scores differ.
fn large_catalog() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("skills")).unwrap();
    for i in 0..17_000 {
        let folder = dir.path().join(format!("docs/part-{:02}", i / 1000));
        if i % 1000 == 0 {
            std::fs::create_dir_all(&folder).unwrap();
        }
        let page = format!(
            "# Page {i}\n\nThe cache keeps {}entry {i} {}until it expires.\n",
            "cache ".repeat(i % 4),
            if i % 3 == 0 { "warm " } else { "" }
        );
        std::fs::write(folder.join(format!("page-{i}.md")), page).unwrap();
    }
    dir
}

/// A search ranked in parts (`search::split`) starts its helper threads after the sandbox
/// closed in, and they touch no file either: the trace of `serve --search-threads 2` shows
/// threads started after `initialize` and no file syscall. Every answer is the one a server
/// that ranks each search on one thread (`--search-threads 1`) gives.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_search_in_parts_touches_no_file_and_answers_as_one_thread() {
    let content = large_catalog();
    let binary = common::variant(
        "search-parts",
        &[
            (
                "SKILLPACK_SKILLS_DIR",
                content.path().join("skills").to_str().unwrap(),
            ),
            (
                "SKILLPACK_DOCS_DIR",
                content.path().join("docs").to_str().unwrap(),
            ),
        ],
    )
    .unwrap_or_else(|e| panic!("building the large catalog failed:\n{e}"));
    let searches = [
        json!({"query": "cache"}),
        json!({"query": "cache entry", "limit": 50}),
        json!({"query": "warm cache keeps", "kind": "docs"}),
        json!({"query": "cache expires", "also": ["entry until it expires", "warm cache"]}),
        json!({"query": "page 16999 cache"}),
    ];
    async fn answers(client: &common::Client, searches: &[Value]) -> Vec<Value> {
        let mut all = Vec::new();
        for args in searches {
            let first = common::tools::ok(client, "catalog_search", args.clone()).await;
            assert!(
                first["total"].as_u64().is_some_and(|n| n > 16_384),
                "{args}: {first}"
            );
            // And the next page, through its cursor.
            let mut next = args.clone();
            next["cursor"] = first["next_cursor"].clone();
            let second = common::tools::ok(client, "catalog_search", next).await;
            all.extend([first, second]);
        }
        all
    }
    let one_thread = common::connect_with_args(&binary, &["serve", "--search-threads", "1"]).await;
    let expected = answers(&one_thread, &searches).await;
    one_thread.cancel().await.expect("close the session");

    let traced = strace_available();
    let (_dir, path) = temp_trace("parts.trace");
    let mut command = if traced {
        // Threads started, besides the file syscalls.
        traced_with(&path, &binary, &["clone", "clone3"])
    } else {
        Command::new(&binary)
    };
    command.args(["serve", "--search-threads", "2"]);
    let mut command = tokio::process::Command::from(command);
    command.env("RUST_LOG", "error");
    let transport = rmcp::transport::TokioChildProcess::new(command).expect("spawn the server");
    let client = rmcp::ServiceExt::serve((), transport)
        .await
        .expect("initialize");
    let in_parts = answers(&client, &searches).await;
    client.cancel().await.expect("close the session");
    assert_eq!(in_parts.len(), expected.len());
    for (a, b) in in_parts.iter().zip(&expected) {
        assert_eq!(a, b, "ranked in parts, then on one thread");
    }
    if traced {
        let trace = read_trace(&path, initialize_answer);
        check(&trace, "/proc/self/fd/0");
        assert!(
            trace.threads_after >= searches.len(),
            "{} threads started after initialize: the searches were not ranked in parts",
            trace.threads_after
        );
    }
}

/// A release built against an earlier one (the built-in content, with a previous release
/// whose index and one skill differ): the history, the change sets, `whats-new` and the
/// tool fallback are answered from memory too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_with_history_baked_in_touches_no_file() {
    if !strace_available() {
        return;
    }
    use rmcp::model::{CallToolRequestParams, GetPromptRequestParams};
    let root = common::crate_root();
    // The previous release: the built-in content with docs/index.md edited and one doc
    // more, compiled in-process; its manifest is what the real build reads.
    let previous = tempfile::tempdir().unwrap();
    let docs = previous.path().join("docs");
    for entry in walkdir::WalkDir::new(root.join("docs")) {
        let entry = entry.unwrap();
        let to = docs.join(entry.path().strip_prefix(root.join("docs")).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&to).unwrap();
        } else {
            std::fs::copy(entry.path(), &to).unwrap();
        }
    }
    let index = docs.join("index.md");
    let edited = std::fs::read_to_string(&index).unwrap() + "\n## Retired\n\nGone next release.\n";
    std::fs::write(&index, edited).unwrap();
    std::fs::write(docs.join("retired.md"), "# Retired\n\nRemoved later.\n").unwrap();
    let mut config = skillpack_server::compile::Config::for_dirs(root.join("skills"), docs);
    config.release = "before".to_owned();
    let output =
        skillpack_server::compile::compile(&config).expect("the previous release compiles");
    let catalog = skillpack_server::catalog::Catalog::from_compiled(output).unwrap();
    let manifest = previous.path().join("manifest.json");
    std::fs::write(
        &manifest,
        serde_json::to_vec(&skillpack_server::cmd::changes::manifest(&catalog).unwrap()).unwrap(),
    )
    .unwrap();
    let binary = common::variant(
        "zero-io-history",
        &[
            ("SKILLPACK_PREVIOUS", manifest.to_str().unwrap()),
            ("SKILLPACK_RELEASE", "after"),
        ],
    )
    .unwrap_or_else(|e| panic!("building the release with history failed:\n{e}"));

    let (_dir, path) = temp_trace("history.trace");
    let mut command = tokio::process::Command::from(traced_binary(&path, &binary));
    command.env("RUST_LOG", "error");
    let transport = rmcp::transport::TokioChildProcess::new(command).expect("spawn strace");
    let client = rmcp::ServiceExt::serve((), transport)
        .await
        .expect("initialize");
    let changes: Value =
        serde_json::from_str(&common::read_text(&client, "resource://catalog/changes").await)
            .unwrap();
    assert_eq!(changes["since"]["label"], "before", "{changes:#}");
    assert!(
        changes["documents"]
            .as_array()
            .is_some_and(|d| d.len() == 2),
        "index.md changed and retired.md removed: {changes:#}"
    );
    common::read_text(&client, "resource://catalog/changes/before").await;
    for bad in [
        "resource://catalog/changes/nope",
        "resource://catalog/changes/1999-01-01",
    ] {
        assert!(
            client
                .read_resource(ReadResourceRequestParams::new(bad))
                .await
                .is_err()
        );
    }
    let mut arguments = serde_json::Map::new();
    arguments.insert("since".into(), "before".into());
    client
        .get_prompt(GetPromptRequestParams::new("whats-new").with_arguments(arguments))
        .await
        .expect("whats-new");
    let Value::Object(arguments) = json!({"kind": "changes", "limit": 1}) else {
        unreachable!()
    };
    client
        .call_tool(CallToolRequestParams::new("catalog_list").with_arguments(arguments))
        .await
        .expect("catalog_list changes");
    let reads = exercise(&client).await;
    client.cancel().await.expect("close the session");
    assert!(reads > 50, "only {reads} reads");

    check(&read_trace(&path, initialize_answer), "/proc/self/fd/0");
}

/// The same over Streamable HTTP (`serve --http`): after the server logs that it is
/// serving, a whole session — a 2025-era client and a 2026-07-28 client through every
/// surface, hostile requests, `/healthz`, then a graceful SIGTERM shutdown — makes no file
/// syscall; and Landlock restricted the process before it started serving.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_http_session_touches_no_file_after_serving() {
    if !strace_available() {
        return;
    }
    let (_dir, path) = temp_trace("http.trace");
    let mut server = HttpServer::start_command(
        traced(&path),
        "127.0.0.1:0",
        &[],
        // `info` for the "serving" line; rmcp logs every error answer at `warn`.
        &[("RUST_LOG", "info,rmcp=error")],
    );

    let legacy = connect_legacy(&server.url(), None).await;
    let mut requests = exercise(&legacy).await;
    legacy.cancel().await.expect("close the legacy client");
    let modern = connect_modern(&server.url(), None).await;
    requests += other_surfaces(&modern).await;
    common::read_text(&modern, "resource://docs/index.md").await;
    modern.cancel().await.expect("close the modern client");
    requests += hostile_http(server.addr).await;
    assert!(
        requests > 100,
        "only {requests} requests: the session did not cover the catalog"
    );

    stop_traced(&mut server);

    check(&read_trace(&path, serving_http), "/proc/self/task");
}

/// The same with every operator option on (issue 49): `--metrics`, `--access-log` with
/// queries, named client tokens beside the shared one, and OAuth with a JWKS file. The key
/// set is read at start, before the "serving" line; after it, scraping the metrics,
/// writing the access log and checking tokens (good and bad, minted by PyJWT when the
/// Python of the interop tests is there) touch no file either.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_http_session_with_every_operator_option_touches_no_file_after_serving() {
    if !strace_available() {
        return;
    }
    let (dir, path) = temp_trace("http-ops.trace");
    let issuer = "https://idp.example.test";
    let resource = "https://docs.example.test/mcp";
    let minted = common::external::python_with_pyjwt()
        .map(|python| crate::operations::mint(&python, issuer, resource, "catalog.read"));
    let jwks = minted
        .as_ref()
        .map_or_else(|| FIXTURE_JWKS.to_owned(), |minted| minted.jwks.to_string());
    let jwks_path = dir.path().join("jwks.json");
    std::fs::write(&jwks_path, jwks).unwrap();
    let named = "named-client-token-31c4";
    let tokens = format!("ops-team:{}", common::sha256_hex(named.as_bytes()));
    let mut server = HttpServer::start_command(
        traced(&path),
        "127.0.0.1:0",
        &[
            "--metrics",
            "127.0.0.1:0",
            "--access-log",
            "--access-log-queries",
            "--oauth-issuer",
            issuer,
            "--oauth-resource",
            resource,
            "--oauth-jwks",
            jwks_path.to_str().unwrap(),
            "--oauth-scope",
            "catalog.read",
        ],
        &[
            ("RUST_LOG", "info,rmcp=error"),
            ("SKILLPACK_CLIENT_TOKENS", tokens.as_str()),
            ("SKILLPACK_AUTH_TOKEN", "shared-token-88aa"),
        ],
    );
    let log = server.log();
    let metrics: std::net::SocketAddr = log
        .lines()
        .find_map(|line| {
            let rest = &line[line.find("serving metrics url=http://")? + 27..];
            rest[..rest.find('/')?].parse().ok()
        })
        .expect("the metrics address");

    let legacy = connect_legacy(&server.url(), Some(named)).await;
    let mut requests = exercise(&legacy).await;
    legacy.cancel().await.expect("close the legacy client");
    let modern = connect_modern(&server.url(), Some("shared-token-88aa")).await;
    requests += other_surfaces(&modern).await;
    modern.cancel().await.expect("close the modern client");
    if let Some(minted) = &minted {
        for (name, status) in [
            ("valid", 200),
            ("expired", 401),
            ("wrong_key", 401),
            ("alg_none", 401),
            ("no_scope", 403),
        ] {
            let bearer = format!("Bearer {}", minted.tokens[name].as_str().unwrap());
            let response = common::http::modern_read(
                server.addr,
                "resource://catalog/skills_index",
                &[("Authorization", &bearer)],
            )
            .await;
            assert_eq!(response.status, status, "{name}");
            requests += 1;
        }
    }
    for path in ["/.well-known/oauth-protected-resource/mcp", "/healthz"] {
        assert_eq!(
            request(server.addr, "GET", path, &[], b"").await.status,
            200
        );
    }
    let scrape = request(metrics, "GET", "/metrics", &[], b"").await;
    assert_eq!(scrape.status, 200);
    assert!(
        scrape.body.contains("client=\"ops-team\""),
        "{}",
        scrape.body
    );
    assert!(requests > 100, "only {requests} requests");
    assert!(
        server.log().contains("\"client\":\"ops-team\""),
        "no access log"
    );

    stop_traced(&mut server);

    let trace = read_trace(&path, serving_http);
    assert!(
        trace.before.iter().any(|line| line.contains("jwks.json")),
        "the key set was not read at start"
    );
    check(&trace, "/proc/self/task");
}

/// An RSA public key (RS256), for the operator-options session when PyJWT is not there
/// to mint a key set of its own.
const FIXTURE_JWKS: &str = r#"{"keys":[{"kty":"RSA","kid":"fixture","alg":"RS256","e":"AQAB","n":"tBEqgOPw17WytcwggqPRI1_WHAgLRo1hj9BL5Myine-OrXhZX-7FRgPq2QbXdaPMKypu9Us2bPUbAqKpRuAr_Qy3JUSrpr8FOESCaBkwl4UJPa5zPuX8-RylWGjYRkcwihVPBkUwoIVV0AMfqJERy7JP_1n4QgaXIF_vPD7_2sR_ea30gihtoKuCn2xUzKBPYHNrGaFeMfaRkhrj0tr-k7vj5dE0R1Sn8LR2qiH9ACarFo0o3sO9ygZpdGI3DKHmiv011lozdzLc3K9uW4ziNRZ_QWiXGrQf781TshUkfReTTmvi_879H4HqUdm06yVwIAEaT3-HlU_T4_EwXw-hZw"}]}"#;

/// Raw requests no client library sends; each must be refused with a 4xx, none may touch
/// a file. Returns the requests made.
async fn hostile_http(addr: std::net::SocketAddr) -> usize {
    let json = [
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    let read = |uri: &str| {
        json!({"jsonrpc": "2.0", "id": 1, "method": "resources/read", "params": {"uri": uri}})
            .to_string()
            .into_bytes()
    };
    // (method, path, headers, body)
    type Case<'a> = (&'a str, &'a str, Vec<(&'a str, &'a str)>, Vec<u8>);
    let cases: Vec<Case> = vec![
        ("POST", "/mcp", json.to_vec(), b"{not json".to_vec()),
        ("POST", "/mcp", json.to_vec(), b"\xff\xfe\xfd".to_vec()),
        (
            "POST",
            "/mcp",
            json.to_vec(),
            "[".repeat(100_000).into_bytes(),
        ),
        (
            "POST",
            "/mcp",
            json.to_vec(),
            br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#.to_vec(),
        ),
        (
            "POST",
            "/mcp",
            json.to_vec(),
            br#"{"jsonrpc":"2.0","id":2,"method":"no/such"}"#.to_vec(),
        ),
        (
            "POST",
            "/mcp",
            json.to_vec(),
            br#"{"jsonrpc":"2.0","id":3,"result":{}}"#.to_vec(),
        ),
        (
            "POST",
            "/mcp",
            json.to_vec(),
            read("resource://docs/%2e%2e/%2e%2e/etc/passwd"),
        ),
        ("POST", "/mcp", json.to_vec(), read("/etc/passwd")),
        (
            "POST",
            "/mcp",
            json.to_vec(),
            read("file:///proc/self/environ"),
        ),
        (
            "POST",
            "/mcp",
            json.to_vec(),
            read(&format!("resource://docs/{}", "a".repeat(100_000))),
        ),
        ("POST", "/mcp", json.to_vec(), vec![b'x'; 10 << 20]),
        (
            "POST",
            "/mcp",
            vec![("Content-Type", "text/plain")],
            b"{}".to_vec(),
        ),
        (
            "GET",
            "/mcp",
            vec![("Accept", "text/event-stream")],
            Vec::new(),
        ),
        ("DELETE", "/mcp", Vec::new(), Vec::new()),
        ("GET", "/../../etc/passwd", Vec::new(), Vec::new()),
    ];
    let count = cases.len() + 1;
    for (method, path, headers, body) in cases {
        let response = request(addr, method, path, &headers, &body).await;
        assert!(
            (200..500).contains(&response.status),
            "{method} {path} {:.60}: {} {}",
            String::from_utf8_lossy(&body),
            response.status,
            response.body
        );
    }
    let health = request(addr, "GET", "/healthz", &[], b"").await;
    assert_eq!(health.status, 200, "{}", health.body);
    count
}

/// The process whose parent is `parent` (strace's one child), from `/proc/*/stat`.
/// Stops the server itself (strace's child) the way a supervisor does, with SIGTERM; strace
/// exits with it, and the trace is complete.
fn stop_traced(server: &mut HttpServer) {
    let pid = child_of(server.pid()).expect("strace's child, the server");
    let status = Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .expect("run kill");
    assert!(status.success());
    let status = server.wait_exit(STEP).expect("the server exits on SIGTERM");
    assert!(status.success(), "exit {status:?}\n{}", server.log());
}

fn child_of(parent: u32) -> Option<u32> {
    std::fs::read_dir("/proc")
        .ok()?
        .flatten()
        .find_map(|entry| {
            let pid: u32 = entry.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(entry.path().join("stat")).ok()?;
            // `pid (comm) state ppid …`; comm may hold spaces and parentheses.
            let ppid: u32 = stat
                .rsplit_once(')')?
                .1
                .split_whitespace()
                .nth(1)?
                .parse()
                .ok()?;
            (ppid == parent).then_some(pid)
        })
}

/// Everything a client can ask: every list, every document and chunk the indexes name,
/// hostile URIs, and every other surface. Returns the requests made.
async fn exercise(client: &common::Client) -> usize {
    let mut uris: Vec<String> = Vec::new();
    let mut cursor = None;
    loop {
        let page = client
            .list_resources(Some(PaginatedRequestParams::default().with_cursor(cursor)))
            .await
            .expect("resources/list");
        uris.extend(page.resources.iter().map(|r| r.uri.clone()));
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    client
        .list_resource_templates(None)
        .await
        .expect("resources/templates/list");
    // Every doc and every chunk of every document the indexes name.
    let docs_index: Value =
        serde_json::from_str(&common::read_text(client, "resource://catalog/docs_index").await)
            .unwrap();
    for doc in docs_index["docs"].as_array().unwrap() {
        uris.push(doc["uri"].as_str().unwrap().to_owned());
    }
    let mut reads = 0;
    for uri in &uris {
        let result = client
            .read_resource(ReadResourceRequestParams::new(uri))
            .await
            .unwrap_or_else(|e| panic!("read {uri}: {e}"));
        reads += 1;
        let meta = serde_json::to_value(&result.contents[0]).unwrap();
        for chunk in meta["_meta"]["io.skillpack/document"]["chunks"]
            .as_array()
            .into_iter()
            .flatten()
        {
            let chunk_uri = chunk["uri"].as_str().unwrap();
            client
                .read_resource(ReadResourceRequestParams::new(chunk_uri))
                .await
                .unwrap_or_else(|e| panic!("read {chunk_uri}: {e}"));
            reads += 1;
        }
    }
    for bad in [
        "resource://docs/../../etc/passwd",
        "resource://docs/%2e%2e/%2e%2e/etc/shadow",
        "file:///etc/passwd",
        "resource://docs/no-such-doc.md",
        "skill://no-such-skill/SKILL.md",
        "resource://docs/index.md#no-such-anchor",
    ] {
        assert!(
            client
                .read_resource(ReadResourceRequestParams::new(bad))
                .await
                .is_err(),
            "{bad}"
        );
    }
    let calls = other_surfaces(client).await;
    eprintln!(
        "traced session: {reads} resource reads, {calls} tool, prompt, completion and skills calls"
    );
    reads + calls
}

/// Every other surface the server declares: tools, prompts, completion and the SEP-2640
/// skills extension, each called with good and bad arguments. Returns the calls made.
async fn other_surfaces(client: &common::Client) -> usize {
    use rmcp::model::{
        CallToolRequestParams, GetPromptRequestParams, GetSkillRequestParams,
        ReadResourceDirectoryRequestParams,
    };
    let mut calls = 0;
    let capabilities = client
        .peer_info()
        .expect("server info")
        .capabilities
        .clone();
    let doc = "resource://docs/index.md";
    if capabilities.tools.is_some() {
        for tool in client.list_all_tools().await.expect("tools/list") {
            let name = tool.name.to_string();
            let args = [
                json!({}),
                json!({"kind": "docs"}),
                json!({"uri": doc}),
                json!({"uri": doc, "detail": "full"}),
                json!({"query": "install"}),
                json!({"uri": "resource://docs/../../etc/passwd"}),
                json!({"uri": "file:///etc/passwd", "unknown": true}),
            ];
            for arguments in args {
                let Value::Object(arguments) = arguments else {
                    unreachable!()
                };
                // Errors are part of the session; only the trace is judged.
                let _ = client
                    .call_tool(CallToolRequestParams::new(name.clone()).with_arguments(arguments))
                    .await;
                calls += 1;
            }
        }
    }
    let skills_index: Value =
        serde_json::from_str(&common::read_text(client, "resource://catalog/skills_index").await)
            .unwrap();
    let first_skill = skills_index["skills"][0]["id"]
        .as_str()
        .unwrap_or("none")
        .to_owned();
    if capabilities.prompts.is_some() {
        for prompt in client.list_all_prompts().await.expect("prompts/list") {
            let mut arguments = serde_json::Map::new();
            for argument in prompt.arguments.iter().flatten() {
                let value = match argument.name.as_str() {
                    "skill_id" => first_skill.clone(),
                    _ => "install".to_owned(),
                };
                arguments.insert(argument.name.clone(), Value::String(value));
            }
            let _ = client
                .get_prompt(
                    GetPromptRequestParams::new(prompt.name.clone()).with_arguments(arguments),
                )
                .await;
            let _ = client
                .complete_prompt_argument(prompt.name.clone(), "skill_id", "a", None)
                .await;
            calls += 2;
        }
    }
    if capabilities.completions.is_some() {
        for (template, argument, value) in [
            ("resource://docs/{path*}", "path", "ref"),
            ("resource://catalog/skills/{skill_id}", "skill_id", "a"),
            ("resource://docs/{path*}/chunks/{chunk_id}", "chunk_id", "i"),
            ("resource://docs/{path*}", "path", "../../etc"),
        ] {
            let _ = client
                .complete_resource_argument(template, argument, value, None)
                .await;
            calls += 1;
        }
    }
    if capabilities.supports_skills() {
        let skills = client.list_skills(None).await.expect("skills/list");
        for skill in &skills.skills {
            let manifest = client
                .get_skill(GetSkillRequestParams::new(&skill.uri))
                .await
                .expect("skills/get");
            let manifest = serde_json::to_value(&manifest).unwrap();
            let files = manifest["skill"]["resources"].as_array().cloned();
            assert!(
                files.is_some(),
                "skills/get has no file manifest: {manifest}"
            );
            for file in files.into_iter().flatten() {
                let uri = file["uri"].as_str().unwrap();
                let _ = client
                    .read_resource(ReadResourceRequestParams::new(uri))
                    .await;
                calls += 1;
            }
            calls += 1;
        }
        let _ = client
            .get_skill(GetSkillRequestParams::new("skill://../../etc/SKILL.md"))
            .await;
        if capabilities.supports_directory_read() {
            for uri in ["skill://", "skill://../../etc"] {
                let _ = client
                    .read_resource_directory(ReadResourceDirectoryRequestParams::new(uri))
                    .await;
                calls += 1;
            }
        }
    }
    calls
}

#[test]
fn hostile_input_touches_no_file_either() {
    if !strace_available() {
        return;
    }
    let (_dir, path) = temp_trace("hostile.trace");
    let mut s = RawSession::start_command(traced(&path));
    for line in [
        "{not json".to_owned(),
        "[".repeat(10_000),
        r#"{"jsonrpc":"2.0","id":1,"method":"no/such/method"}"#.to_owned(),
        r#"{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"resource://docs/%2e%2e/%2e%2e/etc/passwd"}}"#.to_owned(),
        r#"{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"/etc/passwd"}}"#.to_owned(),
        format!(r#"{{"jsonrpc":"2.0","id":4,"method":"ping","params":{{"x":"{}"}}}}"#, "y".repeat(2 << 20)),
    ] {
        s.send_line(&line);
        s.next();
    }
    s.assert_serving();
    let (status, stderr) = s.finish();
    assert!(status.success(), "{stderr}");
    check(&read_trace(&path, initialize_answer), "/proc/self/fd/0");
}

#[test]
fn info_reports_a_sandbox_that_refuses_files() {
    let info = info();
    let sandbox = &info["sandbox"];
    eprintln!("sandbox: {sandbox}");
    if sandbox["abi"].as_i64().unwrap_or(0) == 0 {
        assert_eq!(sandbox["status"], "unavailable", "{sandbox}");
        assert!(sandbox["verified"].is_null(), "{sandbox}");
        eprintln!("SKIP: the kernel has no Landlock; the restriction is not checked");
        return;
    }
    assert_eq!(sandbox["mechanism"], "landlock");
    assert!(
        ["enforced", "partial"].contains(&sandbox["status"].as_str().unwrap()),
        "{sandbox}"
    );
    // A thread restricted as `serve` restricts itself tried to open the binary and list `/`.
    assert_eq!(
        sandbox["verified"], true,
        "a Landlock-restricted thread could still open a file: {sandbox}"
    );
    let text = common::run(&common::builtin_binary(), &["info"]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("sandbox:      landlock"), "{text}");
}
