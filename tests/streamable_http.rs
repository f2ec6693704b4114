//! `skillpack serve --http` through the real binary: rmcp's HTTP client on both protocol
//! lifecycles, statelessness, `/healthz`, the guards (Host, Origin, bearer token, body
//! size, concurrency, timeout) — each refusal with its status while the server keeps
//! serving — and graceful shutdown.

use crate::common;

use std::time::Duration;

use common::builtin_binary;
use common::http::{
    HeldRequest, HttpServer, KeepAlive, LEGACY_HEADERS, STEP, connect_legacy, connect_modern,
    initialize_body, legacy_headers, legacy_post, modern_body, modern_headers, modern_read,
    request,
};
use rmcp::model::{ReadResourceRequestParams, ResourceContents};
use serde_json::{Value, json};

const INDEX: &str = "resource://catalog/skills_index";
const DOCS_INDEX: &str = "resource://catalog/docs_index";

fn fingerprint() -> String {
    let output = common::run(&builtin_binary(), &["fingerprint"]);
    String::from_utf8(output.stdout).unwrap().trim().to_owned()
}

async fn read_all_text(client: &common::http::HttpClient, uri: &str) -> String {
    let result = client
        .read_resource(ReadResourceRequestParams::new(uri))
        .await
        .unwrap_or_else(|e| panic!("read {uri}: {e}"));
    match &result.contents[0] {
        ResourceContents::TextResourceContents { text, .. } => text.clone(),
        other => panic!("{uri}: expected text, got {other:?}"),
    }
}

/// The same bytes over HTTP (both lifecycles) as over stdio, for every listed resource.
#[tokio::test(flavor = "multi_thread")]
async fn both_lifecycles_serve_the_catalog_over_http() {
    let server = HttpServer::start(&builtin_binary(), &[], &[]);
    let stdio = common::connect(&builtin_binary()).await;
    let listed = stdio.list_all_resources().await.expect("list over stdio");
    assert!(listed.len() > 3, "the built-in catalog lists documents");

    let legacy = connect_legacy(&server.url(), None).await;
    let info = legacy.peer_info().expect("initialize result");
    assert_eq!(info.protocol_version.as_str(), "2025-11-25");
    let version = &info.server_info.as_ref().expect("serverInfo").version;
    assert!(
        fingerprint().contains(version.rsplit('+').next().unwrap()),
        "serverInfo.version carries the fingerprint: {version}"
    );
    let modern = connect_modern(&server.url(), None).await;
    assert_eq!(
        modern.peer_info().unwrap().protocol_version.as_str(),
        "2026-07-28"
    );

    for client in [&legacy, &modern] {
        let over_http = client.list_all_resources().await.expect("list over HTTP");
        let uris: Vec<_> = over_http.iter().map(|r| r.uri.clone()).collect();
        let expected: Vec<_> = listed.iter().map(|r| r.uri.clone()).collect();
        assert_eq!(uris, expected);
        for uri in &uris {
            assert_eq!(
                read_all_text(client, uri).await,
                common::read_text(&stdio, uri).await,
                "{uri}"
            );
        }
        // Whole answers, `_meta` included: stdio writes documents' `_meta` straight from
        // the archive, HTTP serialises it as a value; they must agree.
        let docs: Value = serde_json::from_str(&read_all_text(client, DOCS_INDEX).await)
            .expect("the docs index is JSON");
        let doc_uris = docs["docs"].as_array().expect("docs").iter();
        let doc_uris: Vec<String> = doc_uris
            .map(|d| d["uri"].as_str().expect("uri").to_owned())
            .collect();
        assert!(!doc_uris.is_empty(), "the built-in catalog has docs");
        for uri in uris.iter().chain(&doc_uris) {
            let params = ReadResourceRequestParams::new(uri.as_str());
            let over_http = client.read_resource(params.clone()).await.expect("read");
            let over_stdio = stdio.read_resource(params).await.expect("read");
            let contents = |c| serde_json::to_value(c).expect("serialises");
            assert_eq!(
                contents(&over_http.contents),
                contents(&over_stdio.contents),
                "{uri}"
            );
        }
        let missing = client
            .read_resource(ReadResourceRequestParams::new(
                "resource://skills/no-such-skill/document",
            ))
            .await
            .expect_err("a missing skill is an error");
        assert!(missing.to_string().contains("no-such-skill"), "{missing}");
    }
    legacy.cancel().await.unwrap();
    modern.cancel().await.unwrap();
    stdio.cancel().await.unwrap();
}

/// No session state: the `initialize` answer carries a session id that no replica keeps
/// anything under, and requests with any id — or none, on a connection that never
/// initialized — are answered, so any replica can take any request.
#[tokio::test]
async fn every_request_stands_alone() {
    let server = HttpServer::start(&builtin_binary(), &[], &[]);
    let init = request(
        server.addr,
        "POST",
        "/mcp",
        &LEGACY_HEADERS,
        &initialize_body("2025-11-25"),
    )
    .await;
    assert_eq!(init.status, 200, "{}", init.body);
    assert_eq!(init.json()["result"]["protocolVersion"], "2025-11-25");
    let session = init
        .header("mcp-session-id")
        .expect("a session id")
        .to_owned();
    assert!(
        session.len() >= 32 && session.bytes().all(|b| (0x21..=0x7e).contains(&b)),
        "{session}"
    );
    let again = request(
        server.addr,
        "POST",
        "/mcp",
        &LEGACY_HEADERS,
        &initialize_body("2025-11-25"),
    )
    .await;
    assert_ne!(again.header("mcp-session-id"), Some(session.as_str()));

    // Legacy follow-ups with this id, with an id minted by another replica, and with none
    // (a replica that never saw the handshake receives exactly these).
    let body =
        json!({"jsonrpc": "2.0", "id": 7, "method": "resources/read", "params": {"uri": INDEX}});
    for id in [
        Some(session.as_str()),
        Some("0123456789abcdef0123456789abcdef"),
        None,
    ] {
        let mut headers = legacy_headers();
        if let Some(id) = id {
            headers.push(("Mcp-Session-Id", id));
        }
        let read = request(
            server.addr,
            "POST",
            "/mcp",
            &headers,
            body.to_string().as_bytes(),
        )
        .await;
        assert_eq!(read.status, 200, "session {id:?}: {}", read.body);
        assert_eq!(read.json()["result"]["contents"][0]["uri"], INDEX);
        assert_eq!(
            read.header("mcp-session-id"),
            None,
            "only initialize mints ids"
        );
    }

    let modern = modern_read(server.addr, INDEX, &[]).await;
    assert_eq!(modern.status, 200, "{}", modern.body);
    assert_eq!(modern.json()["result"]["resultType"], "complete");

    // Nothing to resume or delete without sessions.
    for method in ["GET", "DELETE"] {
        let response = request(
            server.addr,
            method,
            "/mcp",
            &[("Accept", "text/event-stream")],
            b"",
        )
        .await;
        assert_eq!(response.status, 405, "{method}: {}", response.body);
    }
}

/// `logging/setLevel` is accepted from 2025-era clients (the capability is declared) and
/// is an unknown method on 2026-07-28, which removed it.
#[tokio::test]
async fn log_levels_are_accepted_on_the_2025_revision_only() {
    let server = HttpServer::start(&builtin_binary(), &[], &[]);
    let body = json!({"jsonrpc": "2.0", "id": 3, "method": "logging/setLevel", "params": {"level": "info"}});
    let legacy = legacy_post(server.addr, &body).await;
    assert_eq!(legacy.status, 200, "{}", legacy.body);
    assert_eq!(legacy.json()["result"], json!({}));

    let modern = request(
        server.addr,
        "POST",
        "/mcp",
        &modern_headers("logging/setLevel", None),
        &modern_body(4, "logging/setLevel", json!({"level": "info"})),
    )
    .await;
    assert_eq!(modern.status, 404, "{}", modern.body);
    assert_eq!(modern.json()["error"]["code"], -32601);
}

#[tokio::test]
async fn methods_removed_in_2026_07_28_are_not_found_there() {
    let server = HttpServer::start(&builtin_binary(), &[], &[]);
    // The conformance suite probes with nothing but `_meta` as params: the answer must be
    // "no such method" (404, -32601), not a complaint about the params.
    for (id, method) in [
        "initialize",
        "logging/setLevel",
        "resources/subscribe",
        "resources/unsubscribe",
        "ping",
    ]
    .into_iter()
    .enumerate()
    {
        let answer = request(
            server.addr,
            "POST",
            "/mcp",
            &modern_headers(method, None),
            &modern_body(id as u64 + 10, method, json!({})),
        )
        .await;
        assert_eq!(answer.status, 404, "{method}: {}", answer.body);
        assert_eq!(answer.json()["error"]["code"], -32601, "{method}");
        assert_eq!(answer.json()["id"], id as u64 + 10, "{method}");
    }
    // On a 2025 revision the same `initialize` without params is a params problem.
    let body = json!({"jsonrpc": "2.0", "id": 20, "method": "initialize"});
    let legacy = legacy_post(server.addr, &body).await;
    assert_eq!(legacy.json()["error"]["code"], -32602, "{}", legacy.body);
}

#[tokio::test]
async fn healthz_reports_status_and_fingerprint_without_auth() {
    let server = HttpServer::start(
        &builtin_binary(),
        &[],
        &[("SKILLPACK_AUTH_TOKEN", "healthz-token")],
    );
    // Probes send neither a token nor an allowed Host (kubelets use the pod IP).
    let health = request(
        server.addr,
        "GET",
        "/healthz",
        &[("Host", "10.1.2.3:8080")],
        b"",
    )
    .await;
    assert_eq!(health.status, 200, "{}", health.body);
    assert_eq!(health.header("content-type"), Some("application/json"));
    let body: Value = serde_json::from_str(&health.body).unwrap();
    assert_eq!(body["status"], "ok");
    assert_eq!(body["fingerprint"], fingerprint());
    assert_eq!(body["name"], "skillpack");
    assert!(body["version"].as_str().unwrap().contains('+'));
    // What the connection and request limits refused so far (nothing yet).
    let connections = &body["connections"];
    assert_eq!(connections["open"], 1, "this probe's own: {body}");
    assert!(connections["max"].as_u64().unwrap() >= 1, "{body}");
    for counter in [
        "refused",
        "header_timeouts",
        "idle_timeouts",
        "accept_errors",
    ] {
        assert_eq!(connections[counter], 0, "{counter}: {body}");
    }
    assert_eq!(body["requests"]["timed_out"], 0, "{body}");
    assert_eq!(body["requests"]["shed"], 0, "{body}");

    let lost = request(server.addr, "GET", "/mcp/extra", &[], b"").await;
    assert_eq!(lost.status, 404);
    assert!(
        lost.body.contains("/mcp") && lost.body.contains("/healthz"),
        "{}",
        lost.body
    );
}

/// DNS rebinding: a foreign `Host` is refused; `--allow-host` widens the list.
#[tokio::test]
async fn wrong_host_is_refused_with_403() {
    let server = HttpServer::start(
        &builtin_binary(),
        &["--allow-host", "docs.example.com"],
        &[],
    );
    for host in ["evil.example.com", "evil.example.com:80", "127.0.0.2"] {
        let response = modern_read(server.addr, INDEX, &[("Host", host)]).await;
        assert_eq!(response.status, 403, "Host {host}: {}", response.body);
        assert!(response.body.contains("Host"), "{}", response.body);
    }
    for host in ["docs.example.com", "localhost:1234", "127.0.0.1"] {
        let response = modern_read(server.addr, INDEX, &[("Host", host)]).await;
        assert_eq!(response.status, 200, "Host {host}: {}", response.body);
    }
    server.wait_for_log("rejected request with disallowed Host header");
}

/// DNS rebinding: a foreign `Origin` is refused even with a good `Host` (rmcp alone would
/// let it through); loopback and `--allow-origin` origins pass and get CORS answers.
#[tokio::test]
async fn foreign_origin_is_refused_with_403() {
    let server = HttpServer::start(
        &builtin_binary(),
        &["--allow-origin", "https://app.example.com"],
        &[],
    );
    for origin in [
        "http://evil.example.com",
        "https://app.example.com:8443",
        "http://app.example.com",
        "null",
    ] {
        let response = modern_read(server.addr, INDEX, &[("Origin", origin)]).await;
        assert_eq!(response.status, 403, "Origin {origin}: {}", response.body);
        assert!(response.body.contains("Origin"), "{}", response.body);
    }
    for origin in [
        "https://app.example.com",
        "http://localhost:6274",
        "http://127.0.0.1:3000",
    ] {
        let response = modern_read(server.addr, INDEX, &[("Origin", origin)]).await;
        assert_eq!(response.status, 200, "Origin {origin}: {}", response.body);
        assert_eq!(response.header("access-control-allow-origin"), Some(origin));
    }

    // A browser's preflight for an allowed origin is answered; a foreign one gets no grant.
    async fn preflight(addr: std::net::SocketAddr, origin: &str) -> common::http::RawResponse {
        let headers = [
            ("Origin", origin),
            ("Access-Control-Request-Method", "POST"),
            (
                "Access-Control-Request-Headers",
                "content-type, authorization, mcp-protocol-version",
            ),
        ];
        request(addr, "OPTIONS", "/mcp", &headers, b"").await
    }
    let allowed = preflight(server.addr, "https://app.example.com").await;
    assert_eq!(allowed.status, 200, "{}", allowed.body);
    assert_eq!(
        allowed.header("access-control-allow-origin"),
        Some("https://app.example.com")
    );
    assert!(
        allowed
            .header("access-control-allow-headers")
            .is_some_and(|h| h.contains("authorization"))
    );
    let foreign = preflight(server.addr, "http://evil.example.com").await;
    assert_eq!(foreign.header("access-control-allow-origin"), None);
}

/// `SKILLPACK_AUTH_TOKEN`: missing and wrong tokens get 401 with a `Bearer` challenge,
/// the right one passes (raw and through rmcp's client), and the token is never logged.
#[tokio::test(flavor = "multi_thread")]
async fn bearer_token_is_required_when_configured() {
    let secret = "tok-7c1f0e4b9a5d2e8f";
    let server = HttpServer::start(
        &builtin_binary(),
        &["--log-level", "debug"],
        &[("SKILLPACK_AUTH_TOKEN", secret)],
    );

    let missing = modern_read(server.addr, INDEX, &[]).await;
    assert_eq!(missing.status, 401, "{}", missing.body);
    assert_eq!(
        missing.header("www-authenticate"),
        Some(r#"Bearer realm="skillpack""#)
    );
    assert!(
        missing.body.contains("Authorization: Bearer"),
        "{}",
        missing.body
    );

    for presented in [
        "Bearer wrong",
        "Bearer tok-7c1f0e4b9a5d2e8",
        "Basic dXNlcjpwYXNz",
    ] {
        let response = modern_read(server.addr, INDEX, &[("Authorization", presented)]).await;
        assert_eq!(response.status, 401, "{presented}: {}", response.body);
        assert!(
            response
                .header("www-authenticate")
                .is_some_and(|h| h.starts_with("Bearer")),
            "{presented}"
        );
    }
    let bearer = format!("Bearer {secret}");
    let good = modern_read(server.addr, INDEX, &[("Authorization", &bearer)]).await;
    assert_eq!(good.status, 200, "{}", good.body);
    let lowercase = format!("bearer {secret}");
    let good = modern_read(server.addr, INDEX, &[("Authorization", &lowercase)]).await;
    assert_eq!(good.status, 200, "the scheme is case-insensitive");

    let client = connect_modern(&server.url(), Some(secret)).await;
    assert!(
        read_all_text(&client, INDEX)
            .await
            .contains("agent-friendly-mcp")
    );
    client.cancel().await.unwrap();

    let log = server.wait_for_log("rejected a request with a wrong bearer token");
    assert!(
        !log.contains(secret),
        "the token must never be logged:\n{log}"
    );
}

/// Bodies over `--max-body-bytes` get 413 and the server keeps serving.
#[tokio::test]
async fn oversized_body_is_refused_with_413() {
    let server = HttpServer::start(&builtin_binary(), &["--max-body-bytes", "4096"], &[]);
    let huge_uri = format!("resource://docs/{}", "a".repeat(8192));
    let response = modern_read(server.addr, &huge_uri, &[]).await;
    // The URI is too long for an Mcp-Name header anyway, but the body check comes first.
    assert_eq!(response.status, 413, "{}", response.body);
    assert!(response.body.contains("4096"), "{}", response.body);

    // A multi-megabyte body is refused the same way, without the server buffering it.
    let big = vec![b' '; 3 * 1024 * 1024];
    let response = request(
        server.addr,
        "POST",
        "/mcp",
        &modern_headers("ping", None),
        &big,
    )
    .await;
    assert_eq!(response.status, 413, "{}", response.body);

    let after = modern_read(server.addr, INDEX, &[]).await;
    assert_eq!(after.status, 200, "still serving: {}", after.body);
}

/// Past `--max-concurrency` requests in flight, more get 503 with `Retry-After` at once;
/// once the slot frees up they are served again.
#[tokio::test]
async fn requests_beyond_the_concurrency_limit_get_503() {
    let server = HttpServer::start(&builtin_binary(), &["--max-concurrency", "1"], &[]);
    let body = modern_body(1, "resources/read", json!({"uri": INDEX}));
    let headers = modern_headers("resources/read", Some(INDEX));
    let held = HeldRequest::start(server.addr, &headers, body.clone()).await;

    let shed = wait_for_status(server.addr, 503).await;
    assert_eq!(shed.header("retry-after"), Some("1"));
    assert!(
        shed.body.contains("too many requests in flight"),
        "{}",
        shed.body
    );

    let finished = held.finish().await;
    assert_eq!(finished.status, 200, "{}", finished.body);
    assert_eq!(finished.json()["result"]["contents"][0]["uri"], INDEX);
    let after = modern_read(server.addr, INDEX, &[]).await;
    assert_eq!(after.status, 200, "served again once the slot is free");
    // Logged with a count (at most a line every few seconds, however many are shed).
    server.wait_for_log("shed with 503");
}

/// A client that stalls mid-request gets 408 after `--request-timeout`.
#[tokio::test]
async fn a_stalled_request_times_out_with_408() {
    let server = HttpServer::start(&builtin_binary(), &["--request-timeout", "1"], &[]);
    let body = modern_body(1, "resources/read", json!({"uri": INDEX}));
    let held = HeldRequest::start(
        server.addr,
        &modern_headers("resources/read", Some(INDEX)),
        body,
    )
    .await;
    let response = held.response_without_finishing().await;
    assert_eq!(response.status, 408, "{}", response.body);
    assert_eq!(modern_read(server.addr, INDEX, &[]).await.status, 200);
}

/// SIGTERM: no new connections, the in-flight request completes, exit status 0.
#[tokio::test]
async fn sigterm_finishes_in_flight_requests_then_exits() {
    let mut server = HttpServer::start(&builtin_binary(), &["--max-concurrency", "1"], &[]);
    let body = modern_body(1, "resources/read", json!({"uri": INDEX}));
    let held = HeldRequest::start(
        server.addr,
        &modern_headers("resources/read", Some(INDEX)),
        body,
    )
    .await;
    // The held request owns the only slot once others are shed: it is in flight.
    wait_for_status(server.addr, 503).await;

    server.signal("TERM");
    let deadline = std::time::Instant::now() + STEP;
    while tokio::net::TcpStream::connect(server.addr).await.is_ok() {
        assert!(
            std::time::Instant::now() < deadline,
            "still accepting connections after SIGTERM"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(
        server.wait_exit(Duration::from_millis(300)).is_none(),
        "exited with a request in flight"
    );

    let finished = held.finish().await;
    assert_eq!(finished.status, 200, "{}", finished.body);
    assert_eq!(finished.json()["result"]["contents"][0]["uri"], INDEX);
    let status = server.wait_exit(STEP).expect("exits after draining");
    assert!(status.success(), "exit status {status:?}\n{}", server.log());
    let log = server.wait_for_log("shutting down");
    assert!(log.contains("SIGTERM"), "{log}");
}

/// A request that never completes cannot hold shutdown past `--shutdown-timeout`.
#[tokio::test]
async fn shutdown_timeout_bounds_the_drain() {
    let mut server = HttpServer::start(
        &builtin_binary(),
        &["--max-concurrency", "1", "--shutdown-timeout", "1"],
        &[],
    );
    let held = HeldRequest::start(
        server.addr,
        &modern_headers("resources/read", Some(INDEX)),
        modern_body(1, "resources/read", json!({"uri": INDEX})),
    )
    .await;
    wait_for_status(server.addr, 503).await;
    server.signal("INT");
    let status = server
        .wait_exit(STEP)
        .expect("exits after the shutdown timeout");
    assert!(status.success(), "{status:?}");
    server.wait_for_log("still in flight");
    drop(held);
}

/// Mistakes on the command line or in the environment stop start-up with a message that
/// says what to do.
#[test]
fn bad_http_settings_fail_with_clear_messages() {
    let binary = builtin_binary();
    // (arguments, environment, what the error names)
    type Case<'a> = (&'a [&'a str], &'a [(&'a str, &'a str)], &'a str);
    let cases: &[Case] = &[
        (&["serve", "--allow-host", "x"], &[], "--http"),
        (&["serve", "--http", "not-an-address"], &[], "IP:PORT"),
        (
            &[
                "serve",
                "--http",
                "127.0.0.1:0",
                "--allow-origin",
                "app.example.com",
            ],
            &[],
            "scheme://host",
        ),
        (
            &[
                "serve",
                "--http",
                "127.0.0.1:0",
                "--allow-host",
                "https://x.example",
            ],
            &[],
            "not a URL",
        ),
        (
            &["serve", "--http", "127.0.0.1:0", "--path", "mcp"],
            &[],
            "--path",
        ),
        (
            &["serve", "--http", "127.0.0.1:0", "--path", "/mcp/{tenant}"],
            &[],
            "--path",
        ),
        (
            &["serve", "--http", "127.0.0.1:0"],
            &[("SKILLPACK_AUTH_TOKEN", "")],
            "SKILLPACK_AUTH_TOKEN is set but empty",
        ),
        (
            &["serve", "--http", "127.0.0.1:0", "--max-concurrency", "0"],
            &[],
            "max-concurrency",
        ),
        (
            &["serve", "--http", "127.0.0.1:0", "--header-timeout", "0"],
            &[],
            "header-timeout",
        ),
        (
            &["serve", "--http", "127.0.0.1:0", "--max-connections", "0"],
            &[],
            "max-connections",
        ),
        (&["serve", "--idle-timeout", "5"], &[], "--http"),
    ];
    for (args, env, expected) in cases {
        let mut command = std::process::Command::new(&binary);
        command.args(*args).env_remove("SKILLPACK_AUTH_TOKEN");
        for (key, value) in *env {
            command.env(key, value);
        }
        let output = command.output().expect("run skillpack");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{args:?} should fail");
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
    }

    // A port already taken says so.
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let output = std::process::Command::new(&binary)
        .args(["serve", "--http", &addr])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(stderr.contains("cannot listen on"), "{stderr}");
}

/// Send reads until one answers with `status` (the server may take a moment to see the
/// request that fills the slot); bounded by [`STEP`].
async fn wait_for_status(addr: std::net::SocketAddr, status: u16) -> common::http::RawResponse {
    let deadline = std::time::Instant::now() + STEP;
    loop {
        let response = modern_read(addr, INDEX, &[]).await;
        if response.status == status {
            return response;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "never got {status}; last: {} {}",
            response.status,
            response.body
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A kept-alive connection left idle is closed after `--idle-timeout` — not after the
/// shorter header timeout — while one that keeps sending requests, with pauses longer
/// than the header timeout, is never cut off.
#[tokio::test]
async fn idle_kept_alive_connections_close_and_busy_ones_stay_open() {
    let server = HttpServer::start(
        &builtin_binary(),
        &["--header-timeout", "1", "--idle-timeout", "3"],
        &[],
    );
    let headers = modern_headers("resources/read", Some(INDEX));
    let body = modern_body(1, "resources/read", json!({"uri": INDEX}));
    let mut idle = KeepAlive::connect(server.addr).await;
    let (status, _) = idle.post("/mcp", &headers, &body).await.unwrap();
    assert_eq!(status, 200);
    let mut busy = KeepAlive::connect(server.addr).await;

    let watch_idle = async { idle.wait_closed(STEP).await };
    let keep_busy = async {
        // 7 s in all, over twice the idle timeout; the 2 s pauses exceed the header timeout.
        for pause in [500, 500, 2000, 500, 500, 2000, 500, 500] {
            let (status, answer) = busy
                .post("/mcp", &headers, &body)
                .await
                .expect("a connection in use is not cut off");
            assert_eq!(status, 200, "{}", String::from_utf8_lossy(&answer));
            tokio::time::sleep(Duration::from_millis(pause)).await;
        }
    };
    let (closed_after, ()) = tokio::join!(watch_idle, keep_busy);
    let closed_after = closed_after.expect("the idle connection was never closed");
    assert!(
        closed_after >= Duration::from_millis(2500),
        "closed after {closed_after:?}: before the 3 s idle timeout"
    );
    let (status, _) = busy.post("/mcp", &headers, &body).await.unwrap();
    assert_eq!(status, 200, "still open after all that");

    let health = request(server.addr, "GET", "/healthz", &[], b"").await;
    let health: Value = serde_json::from_str(&health.body).unwrap();
    assert!(
        health["connections"]["idle_timeouts"].as_u64().unwrap() >= 1,
        "{health}"
    );
    assert_eq!(health["connections"]["header_timeouts"], 0, "{health}");
}

/// A body that trickles in — a byte every 200 ms, never stalling — is still bounded by
/// `--request-timeout` (it runs from the request's head to its answer, not between
/// reads): 408, counted in `/healthz` and logged.
#[tokio::test]
async fn a_trickling_body_is_bounded_by_the_request_timeout() {
    use tokio::io::AsyncWriteExt;
    let server = HttpServer::start(&builtin_binary(), &["--request-timeout", "2"], &[]);
    let body = modern_body(1, "resources/read", json!({"uri": INDEX}));
    let headers = modern_headers("resources/read", Some(INDEX));
    let head = common::http::request_head(server.addr, "POST", "/mcp", &headers, body.len());
    let stream = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    let (mut read, mut write) = stream.into_split();
    write.write_all(head.as_bytes()).await.unwrap();
    let trickle = tokio::spawn(async move {
        for byte in body {
            if write.write_all(&[byte]).await.is_err() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    });
    let response = common::http::read_response(&mut read).await;
    assert_eq!(response.status, 408, "{}", response.body);
    trickle.abort();

    let health = request(server.addr, "GET", "/healthz", &[], b"").await;
    let health: Value = serde_json::from_str(&health.body).unwrap();
    assert_eq!(health["requests"]["timed_out"], 1, "{health}");
    server.wait_for_log("timed out with 408");
    assert_eq!(modern_read(server.addr, INDEX, &[]).await.status, 200);
}

/// A body sent where nothing reads it (`/healthz`) is not waited for: the answer comes at
/// once and the connection is closed, even though the client asked to keep it alive and
/// has not sent the body it announced.
#[tokio::test]
async fn an_unread_body_does_not_hold_the_connection() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let server = HttpServer::start(&builtin_binary(), &[], &[]);
    let mut stream = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    let head = format!(
        "GET /healthz HTTP/1.1\r\nHost: {}\r\nContent-Length: 100000\r\n\r\nonly a few bytes",
        server.addr
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    // The default idle and header timeouts are far longer than STEP: only closing after the
    // answer ends this read in time.
    let _ = tokio::time::timeout(STEP, stream.read_to_end(&mut raw))
        .await
        .expect("the connection was held open waiting for the rest of the body");
    let text = String::from_utf8_lossy(&raw);
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    assert!(text.contains("\"status\":\"ok\""), "{text}");
}
