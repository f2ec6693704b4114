//! Hostile input over stdio, as raw bytes to the real binary: every request gets a correct
//! JSON-RPC answer (an error with the request's id whenever it can be read), nothing that
//! must not be answered is, memory stays bounded, and the server keeps serving.

use crate::common;

use std::io::Write;
use std::thread;

use common::raw::RawSession;
use serde_json::{Value, json};

fn session() -> RawSession {
    RawSession::start(&common::builtin_binary())
}

/// The error of an answer, checked to be a JSON-RPC error with exactly this id.
fn error(answer: &Value, id: Option<Value>) -> &Value {
    assert!(
        answer.get("result").is_none(),
        "expected an error: {answer}"
    );
    assert_eq!(answer.get("id").cloned(), id, "wrong id: {answer}");
    let error = &answer["error"];
    assert!(error["code"].is_i64(), "{answer}");
    assert!(
        error["message"].as_str().is_some_and(|m| !m.is_empty()),
        "{answer}"
    );
    error
}

fn code(answer: &Value, id: Option<Value>) -> i64 {
    error(answer, id)["code"].as_i64().unwrap()
}

/// Close the session and check the server exited on its own, cleanly, without a panic.
fn finish(session: RawSession) {
    let (status, stderr) = session.finish();
    assert!(status.success(), "exit {status:?}\n{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn malformed_json_gets_a_parse_error() {
    let mut s = session();
    let mut lines: Vec<Vec<u8>> = [
        "{not json",
        r#"{"jsonrpc":"2.0","id":1,"method":"ping""#,
        "}{",
        r#"{"jsonrpc":"2.0","id":2,"method":"ping"}}"#,
        r#"{"jsonrpc":"2.0","id":3,"method":"ping",}"#,
        "'single quotes'",
        "nul\0l",
    ]
    .iter()
    .map(|l| l.as_bytes().to_vec())
    .collect();
    // Every byte but the newline, once.
    lines.push((0u8..=255).filter(|&b| b != b'\n').collect());
    for line in lines {
        let mut bytes = line.clone();
        bytes.push(b'\n');
        s.send(&bytes);
        let answer = s.next();
        assert_eq!(
            code(&answer, None),
            -32700,
            "{:?}",
            String::from_utf8_lossy(&line)
        );
    }
    s.assert_serving();
    finish(s);
}

#[test]
fn wrong_jsonrpc_shapes_get_invalid_request_with_their_id() {
    let mut s = session();
    let cases: &[(&str, i64, Option<Value>)] = &[
        ("[]", -32600, None),
        (
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
            -32600,
            None,
        ),
        ("42", -32600, None),
        (r#""a string""#, -32600, None),
        ("null", -32600, None),
        (r#"{"jsonrpc":"2.0","id":7}"#, -32600, Some(json!(7))),
        (
            r#"{"jsonrpc":"1.0","id":8,"method":"ping"}"#,
            -32600,
            Some(json!(8)),
        ),
        (r#"{"id":9,"method":"ping"}"#, -32600, Some(json!(9))),
        (
            r#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#,
            -32600,
            None,
        ),
        (
            r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
            -32600,
            None,
        ),
        (
            r#"{"jsonrpc":"2.0","id":10,"method":5}"#,
            -32600,
            Some(json!(10)),
        ),
        (
            r#"{"jsonrpc":"2.0","id":11,"method":"resources/read","params":"oops"}"#,
            -32602,
            Some(json!(11)),
        ),
        (
            r#"{"jsonrpc":"2.0","id":12,"method":"resources/read","params":{"uri":5}}"#,
            -32602,
            Some(json!(12)),
        ),
        (
            r#"{"jsonrpc":"2.0","id":13,"method":"resources/read"}"#,
            -32602,
            Some(json!(13)),
        ),
        (
            r#"{"jsonrpc":"2.0","id":"s","method":"resources/read","params":{}}"#,
            -32602,
            Some(json!("s")),
        ),
        (
            r#"{"jsonrpc":"2.0","id":14,"method":"resources/list","params":[1,2]}"#,
            -32602,
            Some(json!(14)),
        ),
    ];
    for (line, expected, id) in cases {
        let answer = s.call(line);
        assert_eq!(code(&answer, id.clone()), *expected, "{line} -> {answer}");
    }
    s.assert_serving();
    finish(s);
}

#[test]
fn notifications_and_responses_are_never_answered() {
    let mut s = session();
    for line in [
        r#"{"jsonrpc":"2.0","method":"notifications/made_up","params":"x"}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":"not an object"}"#,
        r#"{"jsonrpc":"2.0","id":99,"result":{}}"#,
        r#"{"jsonrpc":"2.0","id":98,"error":{"code":-32600,"message":"echo"}}"#,
        r#"{"jsonrpc":"2.0","error":"not even an error object"}"#,
        "",
        "   \t",
    ] {
        s.send_line(line);
    }
    // Answers come in order, so if any of the above had been answered it would arrive
    // before this pong.
    let pong = s.call(r#"{"jsonrpc":"2.0","id":"after","method":"ping"}"#);
    assert_eq!(pong, json!({"jsonrpc": "2.0", "id": "after", "result": {}}));
    finish(s);
}

#[test]
fn unknown_methods_get_method_not_found() {
    let mut s = session();
    for (id, method) in [
        (1, "no/such/method".to_owned()),
        (2, "tools/../../etc/passwd".to_owned()),
        (3, "rpc.discover".to_owned()),
        (4, "x".repeat(100_000)),
    ] {
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method}).to_string();
        let answer = s.call(&line);
        assert_eq!(code(&answer, Some(json!(id))), -32601, "{answer}");
        assert!(
            answer.to_string().len() < 2048,
            "the method name is echoed in full: {} bytes",
            answer.to_string().len()
        );
    }
    s.assert_serving();
    finish(s);
}

#[test]
fn invalid_utf8_gets_a_parse_error() {
    let mut s = session();
    for line in [
        b"\xff\xfe\xfd".to_vec(),
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"a\":\"\xff\"}}".to_vec(),
        // An overlong encoding of `/` and a UTF-16 surrogate encoded as UTF-8.
        b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"resources/read\",\"params\":{\"uri\":\"resource://docs/..\xc0\xafetc\"}}".to_vec(),
        b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"resources/read\",\"params\":{\"uri\":\"\xed\xa0\x80\"}}".to_vec(),
        // A lone surrogate written as a JSON escape.
        br#"{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"resource://docs/\ud800.md"}}"#.to_vec(),
    ] {
        let mut bytes = line.clone();
        bytes.push(b'\n');
        s.send(&bytes);
        let answer = s.next();
        assert_eq!(code(&answer, None), -32700, "{}", String::from_utf8_lossy(&line));
    }
    // A byte-order mark before a message is allowed (RFC 8259 §8.1).
    s.send(b"\xef\xbb\xbf{\"jsonrpc\":\"2.0\",\"id\":\"bom\",\"method\":\"ping\"}\n");
    assert_eq!(
        s.next(),
        json!({"jsonrpc": "2.0", "id": "bom", "result": {}})
    );
    s.assert_serving();
    finish(s);
}

#[test]
fn deeply_nested_json_gets_a_parse_error() {
    let mut s = session();
    for line in [
        "[".repeat(100_000),
        format!("{}{}", "[".repeat(1000), "]".repeat(1000)),
        "{\"a\":".repeat(50_000),
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"x":{}1{}}}}}"#,
            "[".repeat(500),
            "]".repeat(500)
        ),
    ] {
        let answer = s.call(&line);
        assert_eq!(
            code(&answer, None),
            -32700,
            "{}…",
            &line[..80.min(line.len())]
        );
    }
    // Nesting within serde_json's limit is an ordinary request.
    let line = format!(
        r#"{{"jsonrpc":"2.0","id":"nested","method":"ping","params":{{"_meta":{{"x":{}1{}}}}}}}"#,
        "[".repeat(100),
        "]".repeat(100)
    );
    let answer = s.call(&line);
    assert_eq!(answer["id"], "nested", "{answer}");
    s.assert_serving();
    finish(s);
}

/// A request carrying `uri`, `len` bytes long in all.
fn read_request(id: &str, uri: &str) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "resources/read", "params": {"uri": uri}})
        .to_string()
}

#[test]
fn oversized_lines_are_refused_with_bounded_memory() {
    let mut s = session();
    // Warm up, then take the baseline.
    for _ in 0..20 {
        s.assert_serving();
    }
    let (rss_before, peak_before) = s.memory_kib();

    // A 10 MB request: answered with Invalid Request (its id is past the limit).
    let huge = read_request(
        "huge",
        &format!("resource://docs/{}", "a".repeat(10_000_000)),
    );
    let answer = s.call(&huge);
    assert_eq!(code(&answer, None), -32600, "{answer}");
    let message = answer["error"]["message"].as_str().unwrap();
    assert!(message.contains("1048576"), "{message}");

    // 64 MiB without a newline, streamed, then the newline: skipped as it arrives.
    let chunk = vec![b'x'; 1 << 20];
    for _ in 0..64 {
        s.send(&chunk);
    }
    s.send(b"\n");
    assert_eq!(code(&s.next(), None), -32600);

    // Just under the limit is read and answered like any request, with a bounded answer.
    let near = read_request(
        "near",
        &format!("resource://docs/{}", "a".repeat(1_000_000)),
    );
    assert!(near.len() < 1 << 20);
    let answer = s.call(&near);
    let data = &error(&answer, Some(json!("near")))["data"];
    assert_eq!(data["machine_code"], "invalid_uri", "{answer}");
    assert!(
        answer.to_string().len() < 4096,
        "a hostile URI is echoed back in full ({} bytes)",
        answer.to_string().len()
    );
    s.assert_serving();

    let (rss_after, peak_after) = s.memory_kib();
    eprintln!(
        "memory (KiB): before rss {rss_before} peak {peak_before}; after 10 MB + 64 MiB + 1 MB lines: rss {rss_after} peak {peak_after}"
    );
    // Buffering the 10 MB line, let alone the 64 MiB one, would raise the peak by more than
    // this; skipping them costs at most one message of MAX_MESSAGE_BYTES (1 MiB) plus its
    // parse.
    assert!(
        peak_after < peak_before.max(rss_before) + 8 * 1024,
        "peak RSS grew from {peak_before} KiB to {peak_after} KiB"
    );
    finish(s);
}

#[test]
fn hostile_uris_get_precise_errors() {
    let mut s = session();
    let cases = common::hostile::hostile_uris();
    for (i, (uri, expected)) in cases.iter().enumerate() {
        let id = format!("uri-{i}");
        let answer = s.call(&read_request(&id, uri));
        let err = error(&answer, Some(json!(id)));
        let code = err["code"].as_i64().unwrap();
        assert!(
            [-32602, -32002].contains(&code),
            "{uri:.100}: unexpected code {answer:.500}"
        );
        assert_eq!(
            err["data"]["machine_code"], *expected,
            "{uri:.100}: {answer:.1000}"
        );
        let size = answer.to_string().len();
        assert!(
            size < uri.len().min(4096) + 4096,
            "{uri:.100}: a {size}-byte error for a {}-byte URI",
            uri.len()
        );
    }
    s.assert_serving();
    finish(s);
}

#[test]
fn ten_thousand_pipelined_requests_are_all_answered() {
    const N: usize = 10_000;
    let mut s = session();
    let mut stdin = s.take_stdin();
    // Write everything without waiting for answers, from another thread so that the
    // server's answers are read while requests are still being written.
    let writer = thread::spawn(move || {
        let mut batch = Vec::new();
        for i in 0..N {
            let line = match i % 4 {
                0 => json!({"jsonrpc": "2.0", "id": i, "method": "ping"}).to_string(),
                1 => read_request(&i.to_string(), "resource://catalog/docs_index"),
                2 => read_request(&i.to_string(), "resource://docs/../../etc/passwd"),
                _ => "{this is not json".to_owned(),
            };
            batch.extend_from_slice(line.as_bytes());
            batch.push(b'\n');
            if batch.len() > 64 * 1024 {
                stdin.write_all(&batch).unwrap();
                batch.clear();
            }
        }
        stdin.write_all(&batch).unwrap();
        stdin.flush().unwrap();
        stdin
    });
    let mut seen = vec![false; N];
    let mut parse_errors = 0;
    for _ in 0..N {
        let answer = s.next();
        let Some(id) = answer.get("id") else {
            assert_eq!(code(&answer, None), -32700, "{answer}");
            parse_errors += 1;
            continue;
        };
        let i: usize = match id {
            Value::Number(n) => n.as_u64().unwrap() as usize,
            Value::String(text) => text.parse().unwrap(),
            other => panic!("unexpected id {other}"),
        };
        assert!(!seen[i], "request {i} answered twice");
        seen[i] = true;
        match i % 4 {
            0 => assert_eq!(answer["result"], json!({}), "{answer}"),
            1 => {
                let text = answer["result"]["contents"][0]["text"].as_str().unwrap();
                assert!(text.contains("\"docs\""), "{answer:.300}");
            }
            2 => assert_eq!(
                error(&answer, Some(id.clone()))["data"]["machine_code"],
                "invalid_path"
            ),
            _ => unreachable!("parse errors carry no id"),
        }
    }
    assert_eq!(parse_errors, N / 4);
    assert!(seen.iter().enumerate().all(|(i, &s)| s || i % 4 == 3));
    let stdin = writer.join().unwrap();
    s.give_stdin(stdin);
    let (rss, peak) = s.memory_kib();
    eprintln!("memory after {N} pipelined requests (KiB): rss {rss}, peak {peak}");
    s.assert_serving();
    finish(s);
}

/// A client that pipelines thousands of large reads gets them all, and the server holds
/// only the answers in flight, not every queued one: it stops reading once
/// `MAX_IN_FLIGHT` requests await their answers (back-pressure through the pipe).
#[test]
fn pipelined_large_reads_keep_memory_bounded() {
    const N: usize = 4_000;
    const URI: &str = "resource://docs/reference/uris.md";
    let mut s = session();
    let (_, peak_before) = s.memory_kib();
    let mut stdin = s.take_stdin();
    let writer = thread::spawn(move || {
        for i in 0..N {
            let line = read_request(&i.to_string(), URI);
            stdin.write_all(line.as_bytes()).unwrap();
            stdin.write_all(b"\n").unwrap();
        }
        stdin.flush().unwrap();
        stdin
    });
    let mut answered_bytes = 0usize;
    let mut seen = vec![false; N];
    for _ in 0..N {
        let line = s.next_raw();
        answered_bytes += line.len();
        let answer: Value = serde_json::from_slice(&line).unwrap();
        let i: usize = answer["id"].as_str().unwrap().parse().unwrap();
        assert!(!seen[i], "request {i} answered twice");
        seen[i] = true;
        assert_eq!(answer["result"]["contents"][0]["uri"], URI, "{answer:.300}");
    }
    let stdin = writer.join().unwrap();
    s.give_stdin(stdin);
    let (rss, peak) = s.memory_kib();
    eprintln!(
        "{N} pipelined reads, {} MiB of answers: rss {rss} KiB, peak {peak} KiB (before: {peak_before} KiB)",
        answered_bytes >> 20
    );
    // Holding every queued answer would take about `answered_bytes` (~100 MiB) on top.
    assert!(
        (peak - peak_before) * 1024 < answered_bytes as u64 / 4,
        "peak memory grew by {} KiB while answering {} KiB: queued answers are held",
        peak - peak_before,
        answered_bytes >> 10
    );
    s.assert_serving();
    finish(s);
}
