//! A shared deployment as its operator sees it (issue 49): `--metrics` scraped by a real
//! Prometheus and linted by promtool, the `--access-log` naming each caller, named client
//! tokens and their rotation, and the OAuth 2.1 resource server checked with tokens minted
//! by PyJWT and presented by the official Python MCP SDK.

use crate::common;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::builtin_binary;
use common::http::{HttpServer, STEP, connect_modern, modern_body, modern_headers, request};
use rmcp::model::CallToolRequestParams;
use serde_json::{Value, json};

/// How long Prometheus may take to start, scrape and answer (it scrapes every second).
const PROMETHEUS_WAIT: Duration = Duration::from_secs(90);

fn sha256_hex(secret: &str) -> String {
    common::sha256_hex(secret.as_bytes())
}

/// The `--metrics` address from the start-up log (`serving metrics url=http://ADDR/metrics`).
fn metrics_addr(server: &HttpServer) -> SocketAddr {
    let log = server.log();
    let line = log
        .lines()
        .find(|line| line.contains("serving metrics"))
        .unwrap_or_else(|| panic!("no metrics line:\n{log}"));
    let rest = &line[line.find("url=http://").expect("url") + "url=http://".len()..];
    rest[..rest.find('/').expect("path")].parse().expect("addr")
}

async fn scrape(addr: SocketAddr, accept: Option<&str>) -> common::http::RawResponse {
    let headers: Vec<(&str, &str)> = accept.map(|a| ("Accept", a)).into_iter().collect();
    let response = request(addr, "GET", "/metrics", &headers, b"").await;
    assert_eq!(response.status, 200, "{}", response.body);
    response
}

/// `tools/call` over 2026-07-28 with a bearer token.
async fn call_tool(addr: SocketAddr, token: Option<&str>, name: &str, arguments: Value) -> u16 {
    let bearer = token.map(|t| format!("Bearer {t}"));
    let mut headers = modern_headers("tools/call", Some(name));
    if let Some(bearer) = &bearer {
        headers.push(("Authorization", bearer));
    }
    let body = modern_body(
        1,
        "tools/call",
        json!({"name": name, "arguments": arguments}),
    );
    request(addr, "POST", "/mcp", &headers, &body).await.status
}

async fn read(addr: SocketAddr, token: Option<&str>, uri: &str) -> common::http::RawResponse {
    let bearer = token.map(|t| format!("Bearer {t}"));
    let extra: Vec<(&str, &str)> = bearer
        .as_deref()
        .map(|b| ("Authorization", b))
        .into_iter()
        .collect();
    common::http::modern_read(addr, uri, &extra).await
}

/// The access log's lines (the JSON ones on stderr), once `count` of them are there.
fn access_lines(server: &HttpServer, count: usize) -> Vec<Value> {
    let start = Instant::now();
    loop {
        let lines: Vec<Value> = server
            .log()
            .lines()
            .filter(|line| line.starts_with('{'))
            .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
            .collect();
        if lines.len() >= count {
            return lines;
        }
        assert!(
            start.elapsed() < STEP,
            "{} access-log lines, expected {count}:\n{}",
            lines.len(),
            server.log()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn promtool_check(promtool: &Path, args: &[&str], stdin: Option<&str>) {
    let mut command = Command::new(promtool);
    command
        .args(args)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().expect("run promtool");
    if let Some(text) = stdin {
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(text.as_bytes())
            .unwrap();
    }
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "promtool {args:?} failed:\n{stdout}\n{stderr}"
    );
    if args.first() == Some(&"check") && args.get(1) == Some(&"metrics") {
        // The linter prints its findings and still exits 0 for some: clean means silent.
        assert!(
            stdout.trim().is_empty() && stderr.trim().is_empty(),
            "promtool check metrics found problems:\n{stdout}{stderr}"
        );
    }
}

/// A Prometheus server of this test's own on loopback, killed on drop.
struct Prometheus {
    child: Child,
    addr: SocketAddr,
    _dir: tempfile::TempDir,
}

impl Prometheus {
    fn start(binary: &Path, target: SocketAddr) -> Prometheus {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("prometheus.yml");
        std::fs::write(
            &config,
            format!(
                "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n  \
                 - job_name: skillpack\n    static_configs:\n      - targets: ['{target}']\n"
            ),
        )
        .unwrap();
        let addr = free_port();
        let child = Command::new(binary)
            .arg(format!("--config.file={}", config.display()))
            .arg(format!(
                "--storage.tsdb.path={}",
                dir.path().join("data").display()
            ))
            .arg(format!("--web.listen-address={addr}"))
            .arg("--log.level=warn")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start prometheus");
        Prometheus {
            child,
            addr,
            _dir: dir,
        }
    }

    /// The value of an instant query's single series, once Prometheus has one.
    async fn query(&self, promql: &str) -> Option<f64> {
        let path = format!("/api/v1/query?query={}", percent_encode(promql));
        let response = tokio::time::timeout(STEP, request(self.addr, "GET", &path, &[], b""))
            .await
            .ok()?;
        if response.status != 200 {
            return None;
        }
        let body: Value = serde_json::from_str(&response.body).ok()?;
        body["data"]["result"][0]["value"][1]
            .as_str()
            .and_then(|v| v.parse().ok())
    }
}

impl Drop for Prometheus {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> SocketAddr {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap()
}

fn percent_encode(text: &str) -> String {
    text.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// Is the server still up and Prometheus reachable? (`request` panics on refused connects,
/// so probe the port first while Prometheus starts.)
fn accepting(addr: SocketAddr) -> bool {
    std::net::TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_ok()
}

/// The acceptance test of `--metrics`: the exposition passes promtool's linter in the
/// Prometheus text format, is OpenMetrics for a scraper that asks, carries no query word
/// or URI, and a real Prometheus scraping it answers a query with exactly the count of
/// searches this test made as the client it configured.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prometheus_scrapes_the_requests_this_test_made() {
    let (Some(promtool), Some(prometheus)) =
        (common::external::promtool(), common::external::prometheus())
    else {
        return;
    };
    let token = "metrics-team-token-7f3a";
    let tokens = format!("search-team:{}", sha256_hex(token));
    let server = HttpServer::start(
        &builtin_binary(),
        &["--metrics", "127.0.0.1:0"],
        &[("SKILLPACK_CLIENT_TOKENS", &tokens)],
    );
    let metrics = metrics_addr(&server);

    let searches = 5;
    let client = connect_modern(&server.url(), Some(token)).await;
    for _ in 0..searches {
        let mut arguments = serde_json::Map::new();
        arguments.insert("query".into(), json!("zebraquokka pdf"));
        client
            .call_tool(CallToolRequestParams::new("catalog_search").with_arguments(arguments))
            .await
            .expect("catalog_search");
    }
    common::read_text(&client, "resource://catalog/skills_index").await;
    client.cancel().await.expect("close");
    // One refused request, counted by status and reason.
    assert_eq!(
        call_tool(server.addr, Some("wrong"), "catalog_list", json!({})).await,
        401
    );

    let text = scrape(metrics, None).await;
    assert!(
        text.header("content-type")
            .is_some_and(|t| t.starts_with("text/plain; version=0.0.4")),
        "{:?}",
        text.headers
    );
    promtool_check(&promtool, &["check", "metrics"], Some(&text.body));
    for line in [
        format!(
            "skillpack_mcp_requests_total{{method=\"tools/call\",tool=\"catalog_search\",client=\"search-team\"}} {searches}"
        ),
        "skillpack_resource_reads_total{family=\"catalog\",client=\"search-team\"} 1".to_owned(),
        "skillpack_http_responses_total{status=\"401\",client=\"anonymous\"} 1".to_owned(),
        "skillpack_auth_failures_total{reason=\"unknown_token\"} 1".to_owned(),
        format!("skillpack_search_duration_seconds_count {searches}"),
    ] {
        assert!(text.body.contains(&line), "no {line:?} in\n{}", text.body);
    }
    for needle in [
        "skillpack_build_info{",
        "skillpack_frame_cache_hits_total",
        "skillpack_frame_cache_misses_total",
        "skillpack_connections_refused_total 0",
        "skillpack_requests_timed_out_total 0",
        "skillpack_request_duration_seconds_bucket{",
    ] {
        assert!(
            text.body.contains(needle),
            "no {needle:?} in\n{}",
            text.body
        );
    }
    for secret in ["zebraquokka", "skills_index", "resource://", token] {
        assert!(
            !text.body.contains(secret),
            "{secret:?} leaked into the metrics"
        );
    }
    let openmetrics = scrape(metrics, Some("application/openmetrics-text;version=1.0.0")).await;
    assert!(
        openmetrics.body.trim_end().ends_with("# EOF"),
        "{}",
        openmetrics.body
    );

    let prometheus = Prometheus::start(&prometheus, metrics);
    let query = "sum(skillpack_mcp_requests_total{job=\"skillpack\",method=\"tools/call\",\
                 tool=\"catalog_search\",client=\"search-team\"})";
    let start = Instant::now();
    let mut seen = None;
    while start.elapsed() < PROMETHEUS_WAIT {
        if accepting(prometheus.addr) {
            seen = prometheus.query(query).await;
            if seen.is_some() {
                break;
            }
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    assert_eq!(
        seen,
        Some(searches as f64),
        "Prometheus never reported the searches (query {query})"
    );
    // Prometheus asked for OpenMetrics and parsed it: the build info arrives as a series.
    let build = prometheus
        .query("count(skillpack_build_info{job=\"skillpack\"})")
        .await;
    assert_eq!(build, Some(1.0));
}

/// The scrape config and alert rules that docs/deploy.md shows are the example files,
/// and promtool accepts both.
#[test]
fn the_documented_scrape_config_and_alert_rules_are_valid() {
    let root = common::crate_root();
    let deploy = std::fs::read_to_string(root.join("docs/deploy.md")).unwrap();
    for file in ["prometheus.yml", "alerts.yml"] {
        let text = std::fs::read_to_string(root.join("examples/prometheus").join(file)).unwrap();
        assert!(
            deploy.contains(text.trim_end()),
            "docs/deploy.md does not show examples/prometheus/{file} as it is"
        );
    }
    let Some(promtool) = common::external::promtool() else {
        return;
    };
    let dir = root.join("examples/prometheus");
    promtool_check(
        &promtool,
        &["check", "rules", dir.join("alerts.yml").to_str().unwrap()],
        None,
    );
    promtool_check(
        &promtool,
        &[
            "check",
            "config",
            dir.join("prometheus.yml").to_str().unwrap(),
        ],
        None,
    );
}

/// `--access-log`: one JSON line per request naming the client of each token (named ones
/// and the shared one), refusals with their reason, the tool or URI; the query only with
/// `--access-log-queries`. Removing a client's digest (a rolling restart) revokes that
/// client alone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_access_log_names_each_client_and_logs_queries_only_when_asked() {
    let binary = builtin_binary();
    let (alpha, beta, shared) = ("alpha-token-1b2c", "beta-token-9d8e", "shared-token-5a6b");
    let both = format!(
        "team-alpha:{},team-beta:{}",
        sha256_hex(alpha),
        sha256_hex(beta)
    );
    let env = [
        ("SKILLPACK_CLIENT_TOKENS", both.as_str()),
        ("SKILLPACK_AUTH_TOKEN", shared),
    ];
    let server = HttpServer::start(&binary, &["--access-log"], &env);
    let addr = server.addr;
    assert_eq!(
        read(addr, Some(alpha), "resource://catalog/skills_index")
            .await
            .status,
        200
    );
    let query = json!({"query": "zebraquokka forms"});
    assert_eq!(
        call_tool(addr, Some(beta), "catalog_search", query.clone()).await,
        200
    );
    assert_eq!(
        read(addr, Some(shared), "resource://docs/no-such-page.md")
            .await
            .status,
        200
    );
    assert_eq!(
        call_tool(addr, Some("nope"), "catalog_list", json!({})).await,
        401
    );
    assert_eq!(call_tool(addr, None, "catalog_list", json!({})).await, 401);
    let health = request(addr, "GET", "/healthz", &[], b"").await;
    assert_eq!(health.status, 200);

    let lines = access_lines(&server, 5);
    assert_eq!(
        lines.len(),
        5,
        "one line per MCP request, none for /healthz"
    );
    for line in &lines {
        for field in [
            "time",
            "request_id",
            "transport",
            "client",
            "http_method",
            "method",
            "status",
            "error",
            "bytes",
            "duration_ms",
        ] {
            assert!(line.get(field).is_some(), "no {field} in {line}");
        }
        assert_eq!(line["transport"], "http");
    }
    let by_status_client = |client: Value| {
        lines
            .iter()
            .find(|line| line["client"] == client)
            .unwrap_or_else(|| panic!("no line for {client} in {lines:?}"))
    };
    let a = by_status_client(json!("team-alpha"));
    assert_eq!(a["method"], "resources/read");
    assert_eq!(a["uri"], "resource://catalog/skills_index");
    assert_eq!(a["auth"], "token");
    assert_eq!(a["status"], 200);
    assert!(a["bytes"].as_u64().unwrap() > 100);
    let b = by_status_client(json!("team-beta"));
    assert_eq!(b["method"], "tools/call");
    assert_eq!(b["tool"], "catalog_search");
    assert!(b.get("query").is_none(), "{b}");
    let s = by_status_client(json!("shared"));
    assert_eq!(s["error"], "doc_not_found");
    let refused: Vec<&Value> = lines.iter().filter(|l| l["status"] == 401).collect();
    assert_eq!(refused.len(), 2, "{lines:?}");
    let reasons: Vec<&str> = refused
        .iter()
        .map(|l| l["auth_error"].as_str().unwrap())
        .collect();
    assert!(reasons.contains(&"unknown_token") && reasons.contains(&"missing"));
    let log = server.log();
    assert!(!log.contains("zebraquokka"), "the query leaked:\n{log}");
    for secret in [alpha, beta, shared] {
        assert!(!log.contains(secret), "a token leaked:\n{log}");
    }
    drop(server);

    // With queries asked for, the query is there.
    let server = HttpServer::start(&binary, &["--access-log", "--access-log-queries"], &env);
    assert_eq!(
        call_tool(server.addr, Some(beta), "catalog_search", query).await,
        200
    );
    let lines = access_lines(&server, 1);
    assert_eq!(lines[0]["query"], "zebraquokka forms");
    assert_eq!(lines[0]["client"], "team-beta");
    drop(server);

    // Rotation: the next replica starts without team-alpha's digest.
    let only_beta = format!("team-beta:{}", sha256_hex(beta));
    let server = HttpServer::start(
        &binary,
        &["--access-log"],
        &[("SKILLPACK_CLIENT_TOKENS", only_beta.as_str())],
    );
    let revoked = read(server.addr, Some(alpha), "resource://catalog/skills_index").await;
    assert_eq!(revoked.status, 401);
    assert!(
        revoked
            .header("www-authenticate")
            .is_some_and(|c| c.contains("invalid_token")),
        "{:?}",
        revoked.headers
    );
    let kept = read(server.addr, Some(beta), "resource://catalog/skills_index").await;
    assert_eq!(kept.status, 200);
}

pub(crate) struct Minted {
    pub jwks: Value,
    pub tokens: Value,
}

pub(crate) fn mint(python: &Path, issuer: &str, audience: &str, scope: &str) -> Minted {
    let script = common::crate_root().join("tests/interop/mint_tokens.py");
    let output = Command::new(python)
        .arg(script)
        .args(["--issuer", issuer, "--audience", audience, "--scope", scope])
        .output()
        .expect("run mint_tokens.py");
    assert!(
        output.status.success(),
        "mint_tokens.py failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let minted: Value = serde_json::from_slice(&output.stdout).expect("minted JSON");
    Minted {
        jwks: minted["jwks"].clone(),
        tokens: minted["tokens"].clone(),
    }
}

/// The OAuth 2.1 resource server: tokens minted by PyJWT, keys given as a JWKS file at
/// start. The RFC 9728 metadata is served; no token gets `401` with the
/// `resource_metadata` challenge; each bad token (expired, not yet valid, wrong audience,
/// wrong issuer, wrong key, `alg: none`, HS256 signed with the public key) gets `401
/// invalid_token`, a token without the scope `403 insufficient_scope`, and the server
/// keeps serving; the official Python MCP SDK reads the whole catalog with a valid token,
/// and the access log and metrics name the callers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oauth_access_tokens_are_checked_like_a_resource_server_must() {
    let Some(python) = common::external::python_with_pyjwt() else {
        return;
    };
    let issuer = "https://idp.example.test/realms/estate";
    let resource = "https://docs.example.test/mcp";
    let scope = "catalog.read";
    let minted = mint(&python, issuer, resource, scope);
    let dir = tempfile::tempdir().unwrap();
    let jwks_path = dir.path().join("jwks.json");
    std::fs::write(&jwks_path, minted.jwks.to_string()).unwrap();
    let server = HttpServer::start(
        &builtin_binary(),
        &[
            "--oauth-issuer",
            issuer,
            "--oauth-resource",
            resource,
            "--oauth-jwks",
            jwks_path.to_str().unwrap(),
            "--oauth-scope",
            scope,
            "--access-log",
            "--metrics",
            "127.0.0.1:0",
        ],
        &[],
    );
    let addr = server.addr;
    let metadata_url = "https://docs.example.test/.well-known/oauth-protected-resource/mcp";

    // RFC 9728 metadata, at the path-inserted URI and at the root.
    for path in [
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
    ] {
        let response = request(addr, "GET", path, &[], b"").await;
        assert_eq!(response.status, 200, "{path}: {}", response.body);
        let document = response.json();
        assert_eq!(document["resource"], resource);
        assert_eq!(document["authorization_servers"], json!([issuer]));
        assert_eq!(document["scopes_supported"], json!([scope]));
        assert_eq!(document["bearer_methods_supported"], json!(["header"]));
    }

    // No token: 401 pointing at the metadata, no error code (RFC 6750 §3.1).
    let bare = read(addr, None, "resource://catalog/skills_index").await;
    assert_eq!(bare.status, 401);
    let challenge = bare.header("www-authenticate").unwrap_or_default();
    assert!(challenge.starts_with("Bearer "), "{challenge}");
    assert!(
        challenge.contains(&format!("resource_metadata=\"{metadata_url}\"")),
        "{challenge}"
    );
    assert!(
        challenge.contains(&format!("scope=\"{scope}\"")),
        "{challenge}"
    );
    assert!(!challenge.contains("error="), "{challenge}");

    let token = |name: &str| minted.tokens[name].as_str().unwrap().to_owned();
    for (name, status, error, words) in [
        ("expired", 401, "invalid_token", "expired"),
        ("not_yet_valid", 401, "invalid_token", "not valid yet"),
        ("wrong_audience", 401, "invalid_token", "audience"),
        ("wrong_issuer", 401, "invalid_token", "issuer"),
        ("wrong_key", 401, "invalid_token", "signature"),
        ("alg_none", 401, "invalid_token", "alg: none"),
        ("hs256_confusion", 401, "invalid_token", "public keys only"),
        ("no_scope", 403, "insufficient_scope", scope),
    ] {
        let response = read(addr, Some(&token(name)), "resource://catalog/skills_index").await;
        assert_eq!(response.status, status, "{name}: {}", response.body);
        let challenge = response.header("www-authenticate").unwrap_or_default();
        assert!(
            challenge.contains(&format!("error=\"{error}\"")),
            "{name}: {challenge}"
        );
        assert!(
            challenge.contains(&format!("resource_metadata=\"{metadata_url}\"")),
            "{name}: {challenge}"
        );
        assert!(
            response.body.contains(words) || challenge.contains(words),
            "{name}: {challenge} / {}",
            response.body
        );
    }

    // The server kept serving: an ES256 token from the same set is accepted.
    let ok = read(
        addr,
        Some(&token("valid_ec")),
        "resource://catalog/skills_index",
    )
    .await;
    assert_eq!(ok.status, 200, "{}", ok.body);

    // The official Python MCP SDK, presenting the RS256 token, reads everything.
    let script = common::crate_root().join("tests/interop/sdk_transports.py");
    let output = Command::new(&python)
        .arg(script)
        .args(["--http", &server.url(), "--token-env", "OAUTH_ACCESS_TOKEN"])
        .env("OAUTH_ACCESS_TOKEN", token("valid"))
        .output()
        .expect("run sdk_transports.py");
    assert!(
        output.status.success(),
        "the Python SDK failed with a valid access token:\n{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );

    let lines = access_lines(&server, 11);
    let sdk_lines: Vec<&Value> = lines
        .iter()
        .filter(|line| line["client"] == "claude-desktop")
        .collect();
    assert!(sdk_lines.len() > 10, "{lines:?}");
    for line in &sdk_lines {
        assert!(
            line["auth"] == "jwt" && line["subject"] == "alice@example.com",
            "{line}"
        );
        // Every message answered; notifications are accepted with 202, and the SDK's GET
        // (a server stream) and DELETE (end of session) get 405 from a stateless server.
        match line["http_method"].as_str() {
            Some("POST") => assert!(line["status"] == 200 || line["status"] == 202, "{line}"),
            Some("GET" | "DELETE") => assert_eq!(line["status"], 405, "{line}"),
            _ => panic!("unexpected request: {line}"),
        }
    }
    assert!(
        lines
            .iter()
            .any(|line| line["client"] == "ops-dashboard" && line["subject"] == "bob@example.com")
    );
    let reasons: Vec<&str> = lines
        .iter()
        .filter_map(|line| line["auth_error"].as_str())
        .collect();
    for reason in [
        "missing",
        "expired",
        "not_yet_valid",
        "audience",
        "issuer",
        "bad_signature",
        "algorithm",
        "insufficient_scope",
    ] {
        assert!(reasons.contains(&reason), "no {reason} in {reasons:?}");
    }

    let metrics = scrape(metrics_addr(&server), None).await;
    assert!(
        metrics
            .body
            .contains("skillpack_auth_failures_total{reason=\"expired\"} 1"),
        "{}",
        metrics.body
    );
    assert!(
        metrics
            .body
            .contains("skillpack_http_responses_total{status=\"403\",client=\"anonymous\"} 1"),
        "{}",
        metrics.body
    );
    assert!(
        metrics.body.contains("client=\"oauth\""),
        "{}",
        metrics.body
    );
    assert!(
        !metrics.body.contains("claude-desktop"),
        "token client ids are not labels"
    );
}

/// Bad settings stop the start with a message that names the setting and the fix.
#[test]
fn bad_operator_settings_fail_start_naming_the_setting() {
    let binary = builtin_binary();
    let dir = tempfile::tempdir().unwrap();
    let jwks = dir.path().join("jwks.json");
    std::fs::write(&jwks, r#"{"keys":[{"kty":"oct","k":"c2VjcmV0"}]}"#).unwrap();
    let jwks = jwks.to_str().unwrap();
    let missing: PathBuf = dir.path().join("absent.json");
    let missing = missing.to_str().unwrap();
    let http = ["serve", "--http", "127.0.0.1:0"];
    let with = |extra: &[&'static str]| -> Vec<String> {
        http.iter()
            .chain(extra.iter())
            .map(|s| s.to_string())
            .collect()
    };
    /// Arguments, environment, and what the error must say.
    type Case<'a> = (Vec<String>, Vec<(&'a str, &'a str)>, &'a str);
    let cases: Vec<Case> = vec![
        (
            with(&[]),
            vec![("SKILLPACK_CLIENT_TOKENS", "team-a")],
            "SKILLPACK_CLIENT_TOKENS entry 1",
        ),
        (
            with(&[]),
            vec![("SKILLPACK_CLIENT_TOKENS", "team-a:not-a-digest")],
            "sha256sum",
        ),
        (
            with(&["--oauth-issuer", "https://idp.example.test"]),
            vec![],
            "--oauth-jwks",
        ),
        (
            {
                let mut args = with(&["--oauth-issuer", "https://idp", "--oauth-jwks"]);
                args.push(missing.to_owned());
                args
            },
            vec![],
            "cannot read --oauth-jwks",
        ),
        (
            {
                let mut args = with(&["--oauth-issuer", "https://idp", "--oauth-jwks"]);
                args.push(jwks.to_owned());
                args.extend([
                    "--oauth-resource".to_owned(),
                    "https://d.test/mcp".to_owned(),
                ]);
                args
            },
            vec![],
            "symmetric",
        ),
        (
            with(&[
                "--oauth-issuer",
                "https://idp",
                "--oauth-resource",
                "docs.example.test/mcp",
            ]),
            vec![("SKILLPACK_OAUTH_JWKS", r#"{"keys":[]}"#)],
            "--oauth-resource",
        ),
        (
            with(&["--oauth-resource", "https://d.test/mcp"]),
            vec![("SKILLPACK_OAUTH_JWKS", r#"{"keys":[]}"#)],
            "--oauth-issuer",
        ),
        (with(&["--access-log-queries"]), vec![], "--access-log"),
        (
            vec!["serve".into(), "--metrics".into(), "127.0.0.1:0".into()],
            vec![],
            "--http",
        ),
    ];
    for (args, env, expected) in cases {
        let mut command = Command::new(&binary);
        command
            .args(&args)
            .env_remove("SKILLPACK_AUTH_TOKEN")
            .env_remove("SKILLPACK_CLIENT_TOKENS")
            .env_remove("SKILLPACK_OAUTH_JWKS");
        for (key, value) in &env {
            command.env(key, value);
        }
        let output = command.output().expect("run skillpack");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{args:?} should fail");
        assert!(stderr.contains(expected), "{args:?} {env:?}: {stderr}");
    }

    // The OAuth variables belong to --http, like SKILLPACK_AUTH_TOKEN: an environment that
    // sets them still serves stdio (until stdin closes, here at once).
    let output = Command::new(&binary)
        .arg("serve")
        .env("SKILLPACK_OAUTH_ISSUER", "https://idp.example.test")
        .env("SKILLPACK_OAUTH_SCOPES", "catalog.read")
        .stdin(Stdio::null())
        .output()
        .expect("run skillpack serve");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("serving MCP over stdio"), "{stderr}");
}
