//! Hostile input over Streamable HTTP, as raw HTTP/1.1 to the real binary
//! (`serve --http 127.0.0.1:0`): every request gets the right HTTP status and, where the
//! body was JSON meant as a message, a JSON-RPC error with the request's id whenever it can
//! be read — never a 5xx, never a hang (every step is bounded by `STEP`) — and afterwards
//! the server still reads resources correctly and `/healthz` is ok.
//!
//! The stdio side of the same list is `tests/hostile_stdio.rs`.

use crate::common;

use std::net::SocketAddr;

use common::builtin_binary;
use common::http::{
    HttpServer, RawResponse, legacy_headers, modern_body, modern_headers, modern_read, request,
};
use serde_json::{Value, json};

const INDEX: &str = "resource://catalog/skills_index";

fn server() -> HttpServer {
    HttpServer::start(&builtin_binary(), &[], &[])
}

/// POST `body` to `/mcp` and check the answer is not a server error.
async fn post(addr: SocketAddr, headers: &[(&str, &str)], body: &[u8]) -> RawResponse {
    let response = request(addr, "POST", "/mcp", headers, body).await;
    assert!(
        response.status < 500,
        "server error for {:.200}: {} {}",
        String::from_utf8_lossy(body),
        response.status,
        response.body
    );
    response
}

/// The JSON-RPC error in `response`, checked: `status`, a JSON body, no `result`, exactly
/// this `id` (absent when `None`), a non-empty message. Returns the error object.
fn rpc_error(response: &RawResponse, status: u16, id: Option<Value>, what: &str) -> Value {
    assert_eq!(
        response.status, status,
        "{what}: {} {}",
        response.status, response.body
    );
    assert!(
        response
            .header("content-type")
            .is_some_and(|t| t.starts_with("application/json")),
        "{what}: not JSON: {:?} {}",
        response.headers,
        response.body
    );
    let answer = response.json();
    assert_eq!(answer["jsonrpc"], "2.0", "{what}: {answer}");
    assert!(answer.get("result").is_none(), "{what}: {answer}");
    assert_eq!(answer.get("id").cloned(), id, "{what}: wrong id: {answer}");
    let error = answer["error"].clone();
    assert!(error["code"].is_i64(), "{what}: {answer}");
    assert!(
        error["message"].as_str().is_some_and(|m| !m.is_empty()),
        "{what}: {answer}"
    );
    error
}

fn code(response: &RawResponse, status: u16, id: Option<Value>, what: &str) -> i64 {
    rpc_error(response, status, id, what)["code"]
        .as_i64()
        .unwrap()
}

/// The server still serves correctly: a 2026-07-28 read and a legacy read return the
/// skills index, `/healthz` is ok, and nothing panicked.
async fn assert_still_serving(server: &HttpServer) {
    let modern = modern_read(server.addr, INDEX, &[]).await;
    assert_eq!(modern.status, 200, "{}", modern.body);
    let answer = modern.json();
    assert_eq!(
        answer["result"]["contents"][0]["uri"], INDEX,
        "{answer:.300}"
    );
    let text = answer["result"]["contents"][0]["text"].as_str().unwrap();
    assert!(text.contains("agent-friendly-mcp"), "{text:.300}");

    let body = json!({"jsonrpc": "2.0", "id": "after", "method": "resources/read", "params": {"uri": INDEX}});
    let legacy = post(server.addr, &legacy_headers(), body.to_string().as_bytes()).await;
    assert_eq!(legacy.status, 200, "{}", legacy.body);
    assert_eq!(legacy.json()["id"], "after");
    assert_eq!(legacy.json()["result"]["contents"][0]["uri"], INDEX);

    let health = request(server.addr, "GET", "/healthz", &[], b"").await;
    assert_eq!(health.status, 200, "{}", health.body);
    assert_eq!(
        serde_json::from_str::<Value>(&health.body).unwrap()["status"],
        "ok"
    );
    let log = server.log();
    assert!(!log.contains("panicked"), "{log}");
}

#[tokio::test]
async fn malformed_json_gets_400_with_a_parse_error() {
    let server = server();
    let mut bodies: Vec<Vec<u8>> = [
        "{not json",
        r#"{"jsonrpc":"2.0","id":1,"method":"ping""#,
        "}{",
        r#"{"jsonrpc":"2.0","id":2,"method":"ping"}}"#,
        r#"{"jsonrpc":"2.0","id":3,"method":"ping",}"#,
        r#"{"jsonrpc":"2.0","id":4,"method":"ping"} {"jsonrpc":"2.0","id":5,"method":"ping"}"#,
        "'single quotes'",
        "nul\0l",
        "",
        "   ",
    ]
    .iter()
    .map(|b| b.as_bytes().to_vec())
    .collect();
    bodies.push((0u8..=255).collect());
    for body in &bodies {
        let what = String::from_utf8_lossy(body);
        let response = post(server.addr, &legacy_headers(), body).await;
        assert_eq!(code(&response, 400, None, &what), -32700, "{what}");
        // The same on the 2026-07-28 revision, whose headers name the method.
        let response = post(server.addr, &modern_headers("ping", None), body).await;
        assert_eq!(code(&response, 400, None, &what), -32700, "{what}");
    }
    assert_still_serving(&server).await;
}

#[tokio::test]
async fn wrong_jsonrpc_shapes_get_400_with_their_id() {
    let server = server();
    // (body, JSON-RPC code, id, HTTP status). Bodies that cannot be read as a message are
    // refused with 400; a request that is dispatched and then finds its params wanting gets
    // its error in a 200 answer, like any other legacy JSON-RPC error.
    let cases: &[(&str, i64, Option<Value>, u16)] = &[
        ("[]", -32600, None, 400),
        (
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
            -32600,
            None,
            400,
        ),
        (
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]"#,
            -32600,
            None,
            400,
        ),
        ("42", -32600, None, 400),
        (r#""a string""#, -32600, None, 400),
        ("null", -32600, None, 400),
        ("true", -32600, None, 400),
        (r#"{"jsonrpc":"2.0","id":7}"#, -32600, Some(json!(7)), 400),
        (
            r#"{"jsonrpc":"1.0","id":8,"method":"ping"}"#,
            -32600,
            Some(json!(8)),
            400,
        ),
        (r#"{"id":9,"method":"ping"}"#, -32600, Some(json!(9)), 400),
        (
            r#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#,
            -32600,
            None,
            400,
        ),
        (
            r#"{"jsonrpc":"2.0","id":[1],"method":"ping"}"#,
            -32600,
            None,
            400,
        ),
        (
            r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
            -32600,
            None,
            400,
        ),
        (
            r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
            -32600,
            None,
            400,
        ),
        (
            r#"{"jsonrpc":"2.0","id":true,"method":"ping"}"#,
            -32600,
            None,
            400,
        ),
        (
            r#"{"jsonrpc":"2.0","id":10,"method":5}"#,
            -32600,
            Some(json!(10)),
            400,
        ),
        (
            r#"{"jsonrpc":"2.0","id":"m","method":null}"#,
            -32600,
            Some(json!("m")),
            400,
        ),
        (
            r#"{"jsonrpc":"2.0","id":11,"method":"resources/read","params":"oops"}"#,
            -32602,
            Some(json!(11)),
            400,
        ),
        (
            r#"{"jsonrpc":"2.0","id":12,"method":"resources/read","params":{"uri":5}}"#,
            -32602,
            Some(json!(12)),
            200,
        ),
        (
            r#"{"jsonrpc":"2.0","id":13,"method":"resources/read"}"#,
            -32602,
            Some(json!(13)),
            200,
        ),
        (
            r#"{"jsonrpc":"2.0","id":"s","method":"resources/read","params":{}}"#,
            -32602,
            Some(json!("s")),
            200,
        ),
        (
            r#"{"jsonrpc":"2.0","id":14,"method":"resources/list","params":[1,2]}"#,
            -32602,
            Some(json!(14)),
            400,
        ),
        (
            r#"{"jsonrpc":"2.0","id":15,"method":"tools/call","params":{"name":7}}"#,
            -32602,
            Some(json!(15)),
            200,
        ),
        // What HTTP cannot accept either: a malformed notification, a response (the
        // server never asked anything), an error object.
        (
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":"not an object"}"#,
            -32600,
            None,
            400,
        ),
        (
            r#"{"jsonrpc":"2.0","id":99,"result":{}}"#,
            -32600,
            None,
            400,
        ),
        (
            r#"{"jsonrpc":"2.0","id":98,"error":{"code":-32600,"message":"echo"}}"#,
            -32600,
            None,
            400,
        ),
        (
            r#"{"jsonrpc":"2.0","error":"not even an error object"}"#,
            -32600,
            None,
            400,
        ),
    ];
    for (body, expected, id, status) in cases {
        let response = post(server.addr, &legacy_headers(), body.as_bytes()).await;
        assert_eq!(
            code(&response, *status, id.clone(), body),
            *expected,
            "{body}"
        );
    }
    // A well-formed notification is accepted with 202 and no body.
    let accepted = post(
        server.addr,
        &legacy_headers(),
        br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    )
    .await;
    assert_eq!(accepted.status, 202, "{}", accepted.body);
    assert_still_serving(&server).await;
}

#[tokio::test]
async fn unknown_methods_get_method_not_found() {
    let server = server();
    for (id, method) in [
        (1, "no/such/method".to_owned()),
        (2, "tools/../../etc/passwd".to_owned()),
        (3, "rpc.discover".to_owned()),
        (4, "x".repeat(100_000)),
    ] {
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method}).to_string();
        // Legacy requests keep JSON-RPC errors in a 200 answer.
        let response = post(server.addr, &legacy_headers(), body.as_bytes()).await;
        assert_eq!(
            code(
                &response,
                200,
                Some(json!(id)),
                &method[..20.min(method.len())]
            ),
            -32601
        );
        assert!(
            response.body.len() < 2048,
            "the method name is echoed in full: {} bytes",
            response.body.len()
        );
    }
    // 2026-07-28 maps Method not found to 404.
    let response = post(
        server.addr,
        &modern_headers("no/such/method", None),
        &modern_body(5, "no/such/method", json!({})),
    )
    .await;
    assert_eq!(
        code(&response, 404, Some(json!(5)), "modern unknown method"),
        -32601
    );
    assert_still_serving(&server).await;
}

#[tokio::test]
async fn invalid_utf8_gets_a_parse_error() {
    let server = server();
    for body in [
        b"\xff\xfe\xfd".to_vec(),
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"a\":\"\xff\"}}".to_vec(),
        // An overlong encoding of `/` and a UTF-16 surrogate encoded as UTF-8.
        b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"resources/read\",\"params\":{\"uri\":\"resource://docs/..\xc0\xafetc\"}}".to_vec(),
        b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"resources/read\",\"params\":{\"uri\":\"\xed\xa0\x80\"}}".to_vec(),
        // A lone surrogate written as a JSON escape.
        br#"{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"resource://docs/\ud800.md"}}"#.to_vec(),
        // UTF-16, as a confused client might send it.
        "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\"}"
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .collect(),
    ] {
        let what = String::from_utf8_lossy(&body);
        let response = post(server.addr, &legacy_headers(), &body).await;
        assert_eq!(code(&response, 400, None, &what), -32700, "{what}");
    }
    // A byte-order mark before the JSON is allowed (RFC 8259 §8.1), as on stdio.
    let response = post(
        server.addr,
        &legacy_headers(),
        b"\xef\xbb\xbf{\"jsonrpc\":\"2.0\",\"id\":\"bom\",\"method\":\"ping\"}",
    )
    .await;
    assert_eq!(response.status, 200, "{}", response.body);
    assert_eq!(
        response.json(),
        json!({"jsonrpc": "2.0", "id": "bom", "result": {}})
    );
    assert_still_serving(&server).await;
}

#[tokio::test]
async fn deeply_nested_json_gets_a_parse_error() {
    let server = server();
    for body in [
        "[".repeat(100_000),
        format!("{}{}", "[".repeat(1000), "]".repeat(1000)),
        "{\"a\":".repeat(50_000),
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"x":{}1{}}}}}"#,
            "[".repeat(500),
            "]".repeat(500)
        ),
    ] {
        let response = post(server.addr, &legacy_headers(), body.as_bytes()).await;
        assert_eq!(code(&response, 400, None, &body[..40]), -32700);
    }
    // Nesting within serde_json's limit is an ordinary request.
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":"nested","method":"ping","params":{{"_meta":{{"x":{}1{}}}}}}}"#,
        "[".repeat(100),
        "]".repeat(100)
    );
    let response = post(server.addr, &legacy_headers(), body.as_bytes()).await;
    assert_eq!(response.status, 200, "{}", response.body);
    assert_eq!(response.json()["id"], "nested");
    assert_still_serving(&server).await;
}

/// The body limit (1 MiB by default) refuses a 10 MB body with 413 as it streams in: the
/// server never holds it, so its peak memory barely moves, even for several at once and
/// for a chunked body that announces no length.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_10_mb_body_gets_413_with_bounded_memory() {
    let server = server();
    for _ in 0..20 {
        assert_eq!(modern_read(server.addr, INDEX, &[]).await.status, 200);
    }
    let (rss_before, peak_before) = server.memory_kib();

    let huge = json!({
        "jsonrpc": "2.0", "id": "huge", "method": "resources/read",
        "params": {"uri": format!("resource://docs/{}", "a".repeat(10_000_000))},
    })
    .to_string();
    let tasks: Vec<_> = (0..4)
        .map(|_| {
            let body = huge.clone();
            let addr = server.addr;
            tokio::spawn(async move { post(addr, &legacy_headers(), body.as_bytes()).await })
        })
        .collect();
    for task in tasks {
        let response = task.await.unwrap();
        assert_eq!(response.status, 413, "{}", response.body);
        assert!(response.body.contains("1048576"), "{}", response.body);
    }

    // Chunked: no Content-Length to refuse up front; cut off as it arrives.
    let mut stream = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    let mut head = format!("POST /mcp HTTP/1.1\r\nHost: {}\r\n", server.addr);
    for (key, value) in legacy_headers() {
        head.push_str(&format!("{key}: {value}\r\n"));
    }
    head.push_str("Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n");
    let mut bytes = head.into_bytes();
    for piece in huge.as_bytes().chunks(64 * 1024) {
        bytes.extend_from_slice(format!("{:x}\r\n", piece.len()).as_bytes());
        bytes.extend_from_slice(piece);
        bytes.extend_from_slice(b"\r\n");
    }
    bytes.extend_from_slice(b"0\r\n\r\n");
    let (mut read, mut write) = stream.split();
    let send = async {
        use tokio::io::AsyncWriteExt;
        let _ = write.write_all(&bytes).await;
    };
    let ((), response) = tokio::join!(send, common::http::read_response(&mut read));
    assert_eq!(response.status, 413, "{}", response.body);

    // Just under the limit is read and answered like any request, with a bounded answer.
    let near = json!({
        "jsonrpc": "2.0", "id": "near", "method": "resources/read",
        "params": {"uri": format!("resource://docs/{}", "a".repeat(1_000_000))},
    })
    .to_string();
    assert!(near.len() < 1 << 20);
    let response = post(server.addr, &legacy_headers(), near.as_bytes()).await;
    let error = rpc_error(&response, 200, Some(json!("near")), "near the limit");
    assert_eq!(error["data"]["machine_code"], "invalid_uri", "{error:.500}");
    assert!(
        response.body.len() < 4096,
        "a hostile URI is echoed back in full ({} bytes)",
        response.body.len()
    );

    let (rss_after, peak_after) = server.memory_kib();
    eprintln!(
        "memory (KiB): before rss {rss_before} peak {peak_before}; after 5 x 10 MB bodies and a 1 MB one: rss {rss_after} peak {peak_after}"
    );
    // Buffering even one 10 MB body would raise the peak by more than this; refusing them
    // costs at most the 1 MiB limit per request in flight plus a parse of the 1 MB one.
    assert!(
        peak_after < peak_before.max(rss_before) + 16 * 1024,
        "peak RSS grew from {peak_before} KiB to {peak_after} KiB"
    );
    assert_still_serving(&server).await;
}

/// The same hostile URIs as over stdio, each with its precise catalog error and a bounded
/// answer. Sent as legacy requests (any byte can go in the body) and, where the URI can
/// travel in an `Mcp-Name` header, as 2026-07-28 requests too.
#[tokio::test]
async fn hostile_uris_get_precise_errors() {
    let server = server();
    let cases = common::hostile::hostile_uris();
    let check = |response: &RawResponse, status: u16, id: Value, uri: &str, expected: &str| {
        let error = rpc_error(response, status, Some(id), &uri[..uri.len().min(100)]);
        let code = error["code"].as_i64().unwrap();
        assert!(
            [-32602, -32002].contains(&code),
            "{uri:.100}: unexpected code {error:.500}"
        );
        assert_eq!(
            error["data"]["machine_code"], expected,
            "{uri:.100}: {error:.1000}"
        );
        let size = response.body.len();
        assert!(
            size < uri.len().min(4096) + 4096,
            "{uri:.100}: a {size}-byte error for a {}-byte URI",
            uri.len()
        );
    };
    let mut modern = 0;
    for (i, (uri, expected)) in cases.iter().enumerate() {
        let id = format!("uri-{i}");
        let body =
            json!({"jsonrpc": "2.0", "id": id, "method": "resources/read", "params": {"uri": uri}});
        let response = post(server.addr, &legacy_headers(), body.to_string().as_bytes()).await;
        check(&response, 200, json!(id), uri, expected);

        // Visible ASCII travels in a header as is.
        if uri.bytes().all(|b| (0x20..0x7f).contains(&b)) {
            let body = modern_body(i as u64, "resources/read", json!({"uri": uri}));
            let response = post(
                server.addr,
                &modern_headers("resources/read", Some(uri)),
                &body,
            )
            .await;
            check(&response, 200, json!(i), uri, expected);
            modern += 1;
        }
    }
    assert!(modern > 20, "only {modern} URIs went over 2026-07-28");
    assert_still_serving(&server).await;
}

/// Requests HTTP itself refuses: wrong media types, wrong methods, mismatched or oversized
/// headers, unknown paths — each with its 4xx, none reaching the catalog.
#[tokio::test]
async fn wrong_headers_and_methods_get_their_4xx() {
    let server = server();
    let ping = br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let accept = ("Accept", "application/json, text/event-stream");
    // (what, headers, expected status)
    type Case<'a> = (&'a str, Vec<(&'a str, &'a str)>, u16);
    let cases: Vec<Case> = vec![
        // Content-Type must be JSON (parameters allowed).
        ("no Content-Type", vec![accept], 415),
        (
            "text/plain",
            vec![("Content-Type", "text/plain"), accept],
            415,
        ),
        (
            "form",
            vec![
                ("Content-Type", "application/x-www-form-urlencoded"),
                accept,
            ],
            415,
        ),
        (
            "json-ish",
            vec![("Content-Type", "application/jsonx"), accept],
            415,
        ),
        (
            "charset is fine",
            vec![("Content-Type", "application/json; charset=utf-8"), accept],
            200,
        ),
        // The client must accept both JSON and SSE.
        ("no Accept", vec![("Content-Type", "application/json")], 406),
        (
            "JSON only",
            vec![
                ("Content-Type", "application/json"),
                ("Accept", "application/json"),
            ],
            406,
        ),
        (
            "HTML",
            vec![
                ("Content-Type", "application/json"),
                ("Accept", "text/html"),
            ],
            406,
        ),
        // A protocol version the server does not speak.
        (
            "bad MCP-Protocol-Version",
            vec![
                ("Content-Type", "application/json"),
                accept,
                ("MCP-Protocol-Version", "1999-01-01"),
            ],
            400,
        ),
    ];
    for (what, headers, status) in &cases {
        let response = post(server.addr, headers, ping).await;
        assert_eq!(response.status, *status, "{what}: {}", response.body);
    }

    // 2026-07-28 headers that contradict the body.
    let body = modern_body(2, "resources/read", json!({"uri": INDEX}));
    for (what, headers) in [
        ("Mcp-Method says ping", modern_headers("ping", Some(INDEX))),
        (
            "Mcp-Name names another URI",
            modern_headers("resources/read", Some("resource://docs/index.md")),
        ),
        (
            "Mcp-Name is a traversal",
            modern_headers("resources/read", Some("resource://docs/../../etc/passwd")),
        ),
    ] {
        let response = post(server.addr, &headers, &body).await;
        rpc_error(&response, 400, Some(json!(2)), what);
    }
    // A 100 KB header is read and refused as a mismatch; past hyper's buffer, 431.
    let long = format!("resource://docs/{}", "x".repeat(100_000));
    let response = post(
        server.addr,
        &modern_headers("resources/read", Some(&long)),
        &body,
    )
    .await;
    rpc_error(&response, 400, Some(json!(2)), "100 KB Mcp-Name");
    let huge = "x".repeat(1 << 20);
    let mut headers = modern_headers("resources/read", Some(INDEX));
    headers.push(("X-Padding", &huge));
    let response = post(server.addr, &headers, &body).await;
    assert_eq!(response.status, 431, "{}", response.body);
    let many: Vec<(String, String)> = (0..500)
        .map(|i| (format!("X-Header-{i}"), "v".to_owned()))
        .collect();
    let mut headers = modern_headers("resources/read", Some(INDEX));
    headers.extend(many.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    let response = post(server.addr, &headers, &body).await;
    assert_eq!(response.status, 431, "{}", response.body);

    // Only POST carries messages; without sessions there is no stream to GET or DELETE.
    for method in ["GET", "PUT", "DELETE", "PATCH", "HEAD", "TRACE"] {
        let response = request(
            server.addr,
            method,
            "/mcp",
            &[accept, ("Content-Type", "application/json")],
            if method == "GET" || method == "HEAD" {
                b""
            } else {
                ping
            },
        )
        .await;
        assert_eq!(response.status, 405, "{method}: {}", response.body);
    }
    // POST elsewhere, odd paths and a garbage request line.
    for path in [
        "/",
        "/mcp/",
        "/mcp/../etc/passwd",
        "/%2e%2e/etc/passwd",
        "/healthz/x",
    ] {
        let response = request(server.addr, "POST", path, &legacy_headers(), ping).await;
        assert_eq!(response.status, 404, "{path}: {}", response.body);
    }
    let response = request(server.addr, "POST", "/healthz", &legacy_headers(), ping).await;
    assert_eq!(response.status, 405, "{}", response.body);
    let mut stream = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    {
        use tokio::io::AsyncWriteExt;
        stream
            .write_all(b"NOT AN HTTP REQUEST\r\n\r\n")
            .await
            .unwrap();
    }
    let response = common::http::read_response(&mut stream).await;
    assert_eq!(response.status, 400, "{}", response.body);
    assert_still_serving(&server).await;
}

// ---------------------------------------------------------------------------------------
// Connections that never become requests (issue 16)

/// `serve --http` with its open-files limit (soft and hard) set to `limit` before it
/// starts, as `prlimit --nofile=LIMIT:LIMIT` would.
fn server_with_open_files(limit: u64, args: &[&str]) -> HttpServer {
    use std::os::unix::process::CommandExt;
    let mut command = std::process::Command::new(builtin_binary());
    let rlimit = libc::rlimit {
        rlim_cur: limit as libc::rlim_t,
        rlim_max: limit as libc::rlim_t,
    };
    // SAFETY: runs in the forked child before exec; setrlimit is async-signal-safe, and
    // the closure only reads a value it owns.
    unsafe {
        command.pre_exec(move || {
            if libc::setrlimit(libc::RLIMIT_NOFILE, &rlimit) == 0 {
                Ok(())
            } else {
                Err(std::io::Error::last_os_error())
            }
        });
    }
    HttpServer::start_command(command, "127.0.0.1:0", args, &[])
}

/// `GET /healthz` on a fresh connection, or `None` if the server closed it without an
/// answer or did not answer within `limit`.
async fn health_within(addr: SocketAddr, limit: std::time::Duration) -> Option<Value> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let exchange = async {
        let mut stream = tokio::net::TcpStream::connect(addr).await.ok()?;
        let head = format!("GET /healthz HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
        stream.write_all(head.as_bytes()).await.ok()?;
        let mut raw = Vec::new();
        let _ = stream.read_to_end(&mut raw).await;
        let text = String::from_utf8_lossy(&raw).into_owned();
        let (head, body) = text.split_once("\r\n\r\n")?;
        head.starts_with("HTTP/1.1 200").then_some(())?;
        serde_json::from_str(body).ok()
    };
    tokio::time::timeout(limit, exchange).await.ok().flatten()
}

/// Open `count` connections: even ones send nothing, odd ones an unfinished request head.
async fn open_silent_connections(addr: SocketAddr, count: usize) -> Vec<tokio::net::TcpStream> {
    use tokio::io::AsyncWriteExt;
    let mut held = Vec::with_capacity(count);
    for i in 0..count {
        let mut stream = tokio::net::TcpStream::connect(addr)
            .await
            .expect("connect (the kernel completes it even when the server cannot accept)");
        if i % 2 == 1 {
            let head = format!("POST /mcp HTTP/1.1\r\nHost: {addr}\r\n");
            stream.write_all(head.as_bytes()).await.unwrap();
        }
        held.push(stream);
    }
    held
}

/// Every held connection is closed by the server (end of stream or reset) within `STEP`.
async fn assert_all_closed(held: Vec<tokio::net::TcpStream>) {
    use tokio::io::AsyncReadExt;
    let reads = held
        .into_iter()
        .enumerate()
        .map(|(i, mut stream)| async move {
            let mut buf = [0u8; 1024];
            loop {
                match tokio::time::timeout(common::http::STEP, stream.read(&mut buf)).await {
                    Err(_) => panic!("connection {i} still open after {:?}", common::http::STEP),
                    Ok(Ok(0)) | Ok(Err(_)) => return,
                    // A 408 or 503 before closing is fine too; keep reading to the end.
                    Ok(Ok(_)) => continue,
                }
            }
        });
    futures::future::join_all(reads).await;
}

/// More silent and header-incomplete connections than the open-files limit allows: the
/// server keeps them under its cap, answers `/healthz` from the reserve within the header
/// timeout plus a second, closes every one of them within the timeouts, logs what it did,
/// and serves MCP normally afterwards.
#[tokio::test]
async fn silent_connections_beyond_the_open_files_limit_cannot_take_the_server_down() {
    const LIMIT: u64 = 256;
    const HEADER_TIMEOUT: u64 = 2;
    let server = server_with_open_files(LIMIT, &["--header-timeout", &HEADER_TIMEOUT.to_string()]);
    let log = server.wait_for_log("connection limits");
    assert!(
        log.contains(&format!("open_files_soft={LIMIT}")),
        "the limits in force are logged: {log}"
    );
    let cap = LIMIT as usize - 32 - 8;
    assert!(log.contains(&format!("max_connections={cap}")), "{log}");

    let started = std::time::Instant::now();
    let held = open_silent_connections(server.addr, LIMIT as usize + 150).await;

    let patience = std::time::Duration::from_secs(HEADER_TIMEOUT + 1);
    let probe = std::time::Instant::now();
    let health = loop {
        if let Some(health) = health_within(server.addr, patience).await {
            break health;
        }
        assert!(
            probe.elapsed() < patience,
            "/healthz did not answer within the header timeout plus a second while {} \
             connections were held open:\n{}",
            held.len(),
            server.log()
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    };
    assert!(
        probe.elapsed() < patience,
        "/healthz took {:?}",
        probe.elapsed()
    );
    assert_eq!(health["status"], "ok", "{health}");
    assert_eq!(health["connections"]["max"], cap, "{health}");
    if started.elapsed() < std::time::Duration::from_secs(HEADER_TIMEOUT) {
        // Still inside the header timeout: the cap is full and the probe came through the
        // reserve, and an MCP request gets a clear 503 rather than a hang.
        let open = health["connections"]["open"].as_u64().unwrap();
        assert!(open > cap as u64, "{health}");
        let refused = modern_read(server.addr, INDEX, &[]).await;
        if started.elapsed() < std::time::Duration::from_secs(HEADER_TIMEOUT) {
            assert_eq!(refused.status, 503, "{}", refused.body);
            assert!(
                refused.body.contains("--max-connections"),
                "{}",
                refused.body
            );
        }
    }

    let count = held.len() as u64;
    assert_all_closed(held).await;
    assert_still_serving(&server).await;

    let health = health_within(server.addr, common::http::STEP)
        .await
        .expect("/healthz after the flood");
    let connections = &health["connections"];
    let closed = connections["header_timeouts"].as_u64().unwrap();
    let refused = connections["refused"].as_u64().unwrap();
    assert!(closed >= cap as u64, "{health}");
    assert!(closed + refused >= count, "every one is counted: {health}");
    assert_eq!(
        connections["accept_errors"], 0,
        "the cap kept the server under its open-files limit: {health}"
    );
    let log = server.wait_for_log("no complete request head within --header-timeout");
    assert!(log.contains("refused: --max-connections"), "{log}");
    assert!(!log.contains("panicked"), "{log}");
}

/// With `--max-connections` set above what the open-files limit allows, accepting fails
/// with "too many open files": the server says so at start-up, counts and logs the
/// failures (rate-limited, without spinning), and recovers once the timeouts free
/// descriptors.
#[tokio::test]
async fn accept_failing_with_too_many_open_files_is_logged_and_survived() {
    const LIMIT: u64 = 64;
    let server = server_with_open_files(
        LIMIT,
        &["--header-timeout", "1", "--max-connections", "1000"],
    );
    let log = server.wait_for_log("connection limits");
    assert!(
        log.contains("exceeds what the open-files limit"),
        "an explicit cap above the limit is warned about: {log}"
    );
    let held = open_silent_connections(server.addr, LIMIT as usize + 40).await;
    server.wait_for_log("accepting a connection failed");
    assert_all_closed(held).await;
    assert_still_serving(&server).await;
    let health = health_within(server.addr, common::http::STEP)
        .await
        .expect("/healthz after the flood");
    let errors = health["connections"]["accept_errors"].as_u64().unwrap();
    assert!(errors >= 1, "{health}");
    // Retried every 100 ms, not in a busy loop: a few seconds of failures are dozens.
    assert!(
        errors < 2_000,
        "accept was retried in a tight loop: {health}"
    );
    assert!(!server.log().contains("panicked"));
}
