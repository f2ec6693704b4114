//! The error envelope on both carriers, through the real binary: every listed code comes
//! from a real request, carries the expected did-you-mean candidates, and its `repair`
//! call succeeds when made exactly as given.

use crate::common;

use std::collections::BTreeSet;

use common::tools::{call, err, ok, run_repair};
use common::{Client, read_text};
use rmcp::model::{CallToolRequestParams, ReadResourceRequestParams};
use serde_json::{Value, json};

/// The shape every tool error has.
fn check_tool_envelope(envelope: &Value, what: &str) {
    for key in [
        "code",
        "message",
        "details",
        "temporary",
        "retry_after_ms",
        "repair",
        "fingerprint",
    ] {
        assert!(
            envelope.get(key).is_some(),
            "{what}: no {key} in {envelope}"
        );
    }
    assert_eq!(envelope["temporary"], false, "{what}");
    assert!(envelope["retry_after_ms"].is_null(), "{what}");
    let details = &envelope["details"];
    for key in ["field", "value", "reason", "candidates"] {
        assert!(details.get(key).is_some(), "{what}: no details.{key}");
    }
    let repair = &envelope["repair"];
    assert!(repair["next_step"].is_string(), "{what}: {repair}");
    assert!(repair["alternative"].is_string(), "{what}: {repair}");
    assert!(
        ["catalog_list", "catalog_read", "catalog_search"]
            .contains(&repair["tool"].as_str().unwrap_or_default()),
        "{what}: repair names a real tool: {repair}"
    );
    assert!(repair["arguments"].is_object(), "{what}: {repair}");
    assert!(
        envelope["fingerprint"]
            .as_str()
            .is_some_and(|f| f.starts_with("blake3:")),
        "{what}"
    );
}

struct Case {
    tool: &'static str,
    args: Value,
    code: &'static str,
    /// A candidate that must be offered first.
    best: Option<&'static str>,
    /// The repair call, when a specific one is expected.
    repair: Option<(&'static str, Value)>,
}

fn case(tool: &'static str, args: Value, code: &'static str) -> Case {
    Case {
        tool,
        args,
        code,
        best: None,
        repair: None,
    }
}

impl Case {
    fn best(mut self, candidate: &'static str) -> Self {
        self.best = Some(candidate);
        self
    }
    fn repair(mut self, tool: &'static str, arguments: Value) -> Self {
        self.repair = Some((tool, arguments));
        self
    }
}

fn cases() -> Vec<Case> {
    let read = "catalog_read";
    let list = "catalog_list";
    let search = "catalog_search";
    vec![
        // One-letter typos of ids suggest the right id, and the repair reads it.
        case(
            read,
            json!({"uri": "resource://skills/agent-friendly-mcq/document"}),
            "skill_not_found",
        )
        .best("agent-friendly-mcp")
        .repair(
            read,
            json!({"uri": "resource://skills/agent-friendly-mcp/document"}),
        ),
        case(
            read,
            json!({"uri": "resource://catalog/skills/releasing-a-catalg"}),
            "skill_not_found",
        )
        .best("releasing-a-catalog")
        .repair(
            read,
            json!({"uri": "resource://catalog/skills/releasing-a-catalog"}),
        ),
        case(
            read,
            json!({"uri": "resource://skills/agent-friendly-mcq/references/tools"}),
            "skill_not_found",
        )
        .best("agent-friendly-mcp")
        .repair(
            read,
            json!({"uri": "resource://skills/agent-friendly-mcp/references/tools"}),
        ),
        case(
            read,
            json!({"uri": "skill://agent-friendly-mcq/SKILL.md"}),
            "skill_not_found",
        )
        .best("skill://agent-friendly-mcp/SKILL.md")
        .repair(read, json!({"uri": "skill://agent-friendly-mcp/SKILL.md"})),
        case(
            read,
            json!({"uri": "resource://skills/zzzzzzzzzzzz/document"}),
            "skill_not_found",
        )
        .repair(list, json!({"kind": "skills"})),
        case(
            read,
            json!({"uri": "resource://skills/agent-friendly-mcp/references/tool"}),
            "reference_not_found",
        )
        .best("tools")
        .repair(
            read,
            json!({"uri": "resource://skills/agent-friendly-mcp/references/tools"}),
        ),
        case(
            read,
            json!({"uri": "resource://skills/agent-friendly-mcp/references/qqqqqqqqqqqq"}),
            "reference_not_found",
        )
        .repair(
            read,
            json!({"uri": "resource://catalog/skills/agent-friendly-mcp"}),
        ),
        case(
            read,
            json!({"uri": "resource://docs/reference/uri.md"}),
            "doc_not_found",
        )
        .best("reference/uris.md")
        .repair(read, json!({"uri": "resource://docs/reference/uris.md"})),
        case(
            read,
            json!({"uri": "resource://docs/quickstrat.md"}),
            "doc_not_found",
        )
        .best("quickstart.md")
        .repair(read, json!({"uri": "resource://docs/quickstart.md"})),
        case(
            read,
            json!({"uri": "resource://docs/reference/qqqqqqqqqqqq.md"}),
            "doc_not_found",
        )
        .repair(list, json!({"kind": "docs", "prefix": "reference/"})),
        // A section of a path like no doc's, as a link to a page the tree does not hold:
        // its anchor and file name say what it was for, and the repair searches for them.
        case(
            read,
            json!({"uri": "resource://docs/ops/prometheus.md#scrape-config"}),
            "doc_not_found",
        )
        .repair(
            search,
            json!({"query": "scrape config prometheus", "kind": "docs"}),
        ),
        case(
            read,
            json!({"uri": "skill://agent-friendly-mcp/references/tool.md"}),
            "file_not_found",
        )
        .best("skill://agent-friendly-mcp/references/tools.md")
        .repair(
            read,
            json!({"uri": "skill://agent-friendly-mcp/references/tools.md"}),
        ),
        case(
            read,
            json!({"uri": "resource://docs/quickstart.md", "chunk_id": "build-a-binar"}),
            "chunk_not_found",
        )
        .best("build-a-binary")
        .repair(
            read,
            json!({"uri": "resource://docs/quickstart.md", "chunk_id": "build-a-binary"}),
        ),
        case(
            read,
            json!({"uri": "resource://docs/quickstart.md/chunks/next-step"}),
            "chunk_not_found",
        )
        .best("next-steps")
        .repair(
            read,
            json!({"uri": "resource://docs/quickstart.md", "chunk_id": "next-steps"}),
        ),
        case(
            read,
            json!({"uri": "resource://docs/quickstart.md", "chunk_id": "qqqqqqqqqqqq"}),
            "chunk_not_found",
        )
        .repair(read, json!({"uri": "resource://docs/quickstart.md"})),
        case(
            read,
            json!({"uri": "resource://docs/quickstart.md#build-a-binar"}),
            "anchor_not_found",
        )
        .best("build-a-binary")
        .repair(
            read,
            json!({"uri": "resource://docs/quickstart.md#build-a-binary"}),
        ),
        case(
            read,
            json!({"uri": "resource://docs/quickstart.md#qqqqqqqqqqqq"}),
            "anchor_not_found",
        )
        .repair(read, json!({"uri": "resource://docs/quickstart.md"})),
        case(
            read,
            json!({"uri": "http://example.com/quickstart.md"}),
            "invalid_uri",
        )
        .repair(read, json!({"uri": "resource://catalog/capabilities"})),
        case(
            read,
            json!({"uri": "resource://docs/quickstart.md?x=1"}),
            "invalid_uri",
        ),
        case(
            read,
            json!({"uri": "resource://docs/../secrets.md"}),
            "invalid_path",
        ),
        case(
            read,
            json!({"uri": "resource://docs/%2e%2e/%2e%2e/etc/passwd"}),
            "invalid_path",
        ),
        case(
            read,
            json!({"uri": "skill://agent-friendly-mcp/..\\..\\x"}),
            "invalid_path",
        ),
        case(
            read,
            json!({"uri": "resource://docs/a%00.md"}),
            "invalid_path",
        ),
        // Arguments: wrong names, types, values, combinations.
        case(
            read,
            json!({"uri": "resource://docs/quickstart.md", "chunk": "build-a-binary"}),
            "invalid_argument",
        )
        .best("chunk_id")
        .repair(read, json!({"uri": "resource://docs/quickstart.md"})),
        case(
            read,
            json!({"uri": "resource://docs/quickstart.md", "detail": "everything"}),
            "invalid_argument",
        )
        .best("summary")
        .repair(read, json!({"uri": "resource://docs/quickstart.md"})),
        case(read, json!({}), "invalid_argument").repair(list, json!({})),
        case(read, json!({"uri": 42}), "invalid_argument"),
        case(
            read,
            json!({"uri": "resource://catalog/capabilities", "chunk_id": "x"}),
            "invalid_argument",
        )
        .repair(read, json!({"uri": "resource://catalog/capabilities"})),
        case(
            read,
            json!({"uri": "resource://docs/quickstart.md/chunks/next-steps", "chunk_id": "x"}),
            "invalid_argument",
        ),
        case(list, json!({"limit": 0}), "invalid_argument").repair(list, json!({})),
        case(
            list,
            json!({"limit": "10", "kind": "docs"}),
            "invalid_argument",
        )
        .repair(list, json!({"kind": "docs"})),
        case(list, json!({"kind": "doc"}), "invalid_argument").best("docs"),
        case(
            list,
            json!({"kind": "docs", "tag": "mcp"}),
            "invalid_argument",
        )
        .repair(list, json!({"kind": "docs"})),
        case(list, json!({"cursor": "not-a-cursor"}), "cursor_invalid").repair(list, json!({})),
        // A release this one does not know: the repair lists changes since one it knows.
        case(
            list,
            json!({"kind": "changes", "since": "v0.0.1"}),
            "release_not_found",
        ),
        // catalog_search: a bad optional argument is repaired by the same search without
        // it; a query that cannot run by browsing instead.
        case(
            search,
            json!({"query": "fingerprint", "cursor": "not-a-cursor"}),
            "cursor_invalid",
        )
        .repair(search, json!({"query": "fingerprint"})),
        case(
            search,
            json!({"query": "fingerprint", "kind": "skill"}),
            "invalid_argument",
        )
        .best("skills")
        .repair(search, json!({"query": "fingerprint"})),
        case(
            search,
            json!({"query": "fingerprint", "limit": 500, "kind": "docs"}),
            "invalid_argument",
        )
        .repair(search, json!({"query": "fingerprint", "kind": "docs"})),
        // A misspelt required argument: the repair is the call with it spelt right.
        case(search, json!({"querry": "fingerprint"}), "invalid_argument")
            .best("query")
            .repair(search, json!({"query": "fingerprint"})),
        case(search, json!({"query": "  "}), "invalid_argument").repair(list, json!({})),
        case(search, json!({"query": "?!"}), "invalid_argument").repair(list, json!({})),
    ]
}

#[tokio::test]
async fn every_code_from_a_real_tool_call_with_a_working_repair() {
    let client = common::connect(&common::builtin_binary()).await;
    let mut produced = BTreeSet::new();
    for case in cases() {
        let what = format!("{} {}", case.tool, case.args);
        let outcome = call(&client, case.tool, case.args.clone()).await;
        assert!(outcome.is_error, "{what} should fail");
        let envelope = &outcome.structured;
        check_tool_envelope(envelope, &what);
        assert_eq!(envelope["code"], case.code, "{what}: {envelope}");
        produced.insert(case.code);
        // The text a text-only client sees repeats the message and the next step.
        assert!(
            outcome.text.contains(envelope["message"].as_str().unwrap()),
            "{what}: {}",
            outcome.text
        );
        assert!(outcome.text.contains("Next:"), "{what}: {}", outcome.text);
        if let Some(best) = case.best {
            assert_eq!(
                envelope["details"]["candidates"][0], best,
                "{what}: {envelope}"
            );
            assert!(outcome.text.contains(best), "{what}: {}", outcome.text);
        }
        if let Some((tool, arguments)) = &case.repair {
            assert_eq!(envelope["repair"]["tool"], *tool, "{what}: {envelope}");
            assert_eq!(
                envelope["repair"]["arguments"], *arguments,
                "{what}: {envelope}"
            );
        }
        let repaired = run_repair(&client, envelope).await;
        assert!(repaired.is_object(), "{what}");
    }
    // The SEP-2640 directory listing has its own code; its envelope carries a working
    // repair call too.
    let error = client
        .read_resource_directory(rmcp::model::ReadResourceDirectoryRequestParams::new(
            "skill://agent-friendly-mcp/SKILL.md",
        ))
        .await
        .expect_err("a file is not a directory");
    let rmcp::ServiceError::McpError(error) = error else {
        panic!("{error:?}")
    };
    let data = error.data.unwrap();
    produced.insert(
        data["machine_code"]
            .as_str()
            .filter(|c| *c == "not_a_directory")
            .expect("not_a_directory"),
    );
    run_repair(&client, &data).await;
    // Every code the capability summary lists was produced by a real request.
    let capabilities: Value =
        serde_json::from_str(&read_text(&client, "resource://catalog/capabilities").await).unwrap();
    let listed: BTreeSet<&str> = capabilities["error_codes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["code"].as_str().unwrap())
        .collect();
    // `content_damaged` answers reads of a damaged binary: tests/damaged.rs produces it
    // from a copy of this binary with one frame's bytes flipped.
    produced.insert("content_damaged");
    assert_eq!(listed, produced, "codes listed vs produced");
    assert!(capabilities["error_carriers"]["tool_results"].is_string());
    client.cancel().await.unwrap();
}

/// Resource reads carry the same envelope (`machine_code`/`human_message`) in
/// `error.data`, and their repair calls work too.
#[tokio::test]
async fn resource_read_errors_carry_a_working_repair() {
    let client = common::connect(&common::builtin_binary()).await;
    for case in cases() {
        let Some(uri) = case.args.get("uri").and_then(Value::as_str) else {
            continue;
        };
        if case.tool != "catalog_read" || case.args.as_object().unwrap().len() != 1 {
            continue;
        }
        let error = client
            .read_resource(ReadResourceRequestParams::new(uri))
            .await
            .expect_err(uri);
        let rmcp::ServiceError::McpError(error) = error else {
            panic!("{uri}: {error:?}")
        };
        let data = error.data.expect("error.data");
        assert_eq!(data["machine_code"], case.code, "{uri}: {data}");
        assert!(data["human_message"].is_string());
        if let Some(best) = case.best {
            assert_eq!(data["details"]["candidates"][0], best, "{uri}: {data}");
        }
        if let Some((tool, arguments)) = &case.repair {
            assert_eq!(data["repair"]["tool"], *tool, "{uri}: {data}");
            assert_eq!(data["repair"]["arguments"], *arguments, "{uri}: {data}");
        }
        run_repair(&client, &data).await;
    }
    // A directory is not a resource body; the repair lists it with the tool.
    let error = client
        .read_resource(ReadResourceRequestParams::new(
            "skill://agent-friendly-mcp/references",
        ))
        .await
        .expect_err("directory");
    let rmcp::ServiceError::McpError(error) = error else {
        panic!("{error:?}")
    };
    let data = error.data.unwrap();
    let listing = run_repair(&client, &data).await;
    assert_eq!(listing["kind"], "directory");
    client.cancel().await.unwrap();
}

/// A missing doc's section (a path like no doc's, with an anchor) whose words the docs hold
/// is repaired by a search that finds them; one whose words they do not hold, or a path
/// without an anchor, keeps the listing (a search that finds nothing repairs nothing).
#[tokio::test]
async fn a_missing_doc_is_searched_for_by_its_words_when_the_docs_hold_them() {
    let client = common::connect(&common::builtin_binary()).await;
    // The `doc_not_found` envelope of a read of `uri`.
    let missing = async |uri: &str| {
        let outcome = call(&client, "catalog_read", json!({ "uri": uri })).await;
        let envelope = outcome.structured;
        assert_eq!(envelope["code"], "doc_not_found", "{uri}: {envelope}");
        envelope
    };
    let envelope = missing("resource://docs/elsewhere/fingerprint.md#pinning-a-release").await;
    assert_eq!(envelope["repair"]["tool"], "catalog_search", "{envelope}");
    assert_eq!(envelope["repair"]["next_step"], "search_for_its_words");
    let alternative = envelope["repair"]["alternative"].as_str().unwrap();
    assert!(
        alternative.contains("catalog_list {\"kind\": \"docs\"}"),
        "the listing stays the alternative: {alternative}"
    );
    let found = run_repair(&client, &envelope).await;
    let hits = found["hits"].as_array().expect("hits");
    assert!(
        hits.iter()
            .any(|h| h["uri"] == "resource://docs/pinning.md"),
        "the doc about pinning answers: {found}"
    );
    // Words the docs do not hold, and a bare file name (too little to search for): the
    // listing stays.
    for uri in [
        "resource://docs/elsewhere/qqqqqqqqqqqq.md#zzzzzzzz",
        "resource://docs/elsewhere/fingerprint.md",
    ] {
        let envelope = missing(uri).await;
        assert_eq!(
            envelope["repair"]["tool"], "catalog_list",
            "{uri}: {envelope}"
        );
    }
}

#[tokio::test]
async fn an_unknown_tool_is_a_protocol_error_with_candidates() {
    let client: Client = common::connect(&common::builtin_binary()).await;
    let error = client
        .call_tool(CallToolRequestParams::new("catalog_raed"))
        .await
        .expect_err("unknown tool");
    let rmcp::ServiceError::McpError(error) = error else {
        panic!("{error:?}")
    };
    assert_eq!(error.code, rmcp::model::ErrorCode::INVALID_PARAMS);
    let data = error.data.unwrap();
    assert_eq!(data["machine_code"], "invalid_argument");
    assert_eq!(data["details"]["candidates"][0], "catalog_read");
    // Bad input never stops the server.
    let listed = ok(&client, "catalog_list", json!({})).await;
    assert!(listed["total"].as_u64() > Some(0));
    let envelope = err(&client, "catalog_read", json!({"uri": "x".repeat(100_000)})).await;
    assert_eq!(envelope["code"], "invalid_argument");
    assert!(
        envelope["details"]["value"].as_str().unwrap().len() < 300,
        "hostile input is not echoed whole"
    );
    // Long names and values: clear answers, no did-you-mean search over them.
    let long = "agent-friendly-mcp".repeat(20_000);
    let mut args = serde_json::Map::new();
    args.insert("skill_id".into(), long.clone().into());
    let error = client
        .get_prompt(rmcp::model::GetPromptRequestParams::new("use-skill").with_arguments(args))
        .await
        .expect_err("long skill id");
    let rmcp::ServiceError::McpError(error) = error else {
        panic!("{error:?}")
    };
    assert_eq!(error.data.unwrap()["machine_code"], "skill_not_found");
    let error = client
        .get_prompt(rmcp::model::GetPromptRequestParams::new(long.clone()))
        .await
        .expect_err("long prompt name");
    assert!(matches!(error, rmcp::ServiceError::McpError(_)));
    let info = client
        .complete_resource_argument(
            "resource://skills/{skill_id}/document",
            "skill_id",
            long,
            None,
        )
        .await
        .unwrap();
    assert!(info.values.is_empty());
    let mut args = serde_json::Map::new();
    args.insert("x".repeat(100_000), json!(1));
    let outcome = call(&client, "catalog_list", Value::Object(args)).await;
    assert_eq!(outcome.structured["code"], "invalid_argument");
    client.cancel().await.unwrap();
}
