//! Search through the real binary: `skillpack search` on the built-in content and on the
//! corpora build; every hit's chunk and section URIs read back over MCP (rmcp client) and
//! contain the hit's snippet; pages chain through cursors; kind filters hold.

mod common;

use std::collections::HashSet;
use std::path::Path;

use common::{read_text, run};
use serde_json::Value;

fn search_json(binary: &Path, args: &[&str]) -> Value {
    let mut full = vec!["search", "--json"];
    full.extend_from_slice(args);
    let output = run(binary, &full);
    assert!(
        output.status.success(),
        "skillpack {full:?} failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| panic!("{full:?}: {e}"))
}

fn hits(result: &Value) -> &[Value] {
    result["hits"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
}

#[test]
fn cli_search_prints_ranked_sections() {
    let binary = common::builtin_binary();
    let output = run(&binary, &["search", "pin", "the", "fingerprint"]);
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(text.starts_with("1. "), "{text}");
    assert!(text.contains("resource://docs/pinning.md#"), "{text}");
    assert!(text.contains("read: resource://"), "{text}");

    let result = search_json(&binary, &["--limit", "3", "expect-fingerprint"]);
    assert_eq!(hits(&result).len(), 3);
    assert_eq!(result["query"], "expect-fingerprint");
    for (i, hit) in hits(&result).iter().enumerate() {
        assert_eq!(hit["rank"], i + 1);
        assert!(hit["score"].as_f64().unwrap() > 0.0);
    }
}

#[test]
fn cli_search_rejects_bad_input_with_a_reason() {
    let binary = common::builtin_binary();
    for (args, expected) in [
        (vec!["search", "--limit", "0", "x"], "limit"),
        (vec!["search", "?!"], "no words"),
        (vec!["search", "--cursor", "bogus", "x"], "cursor"),
    ] {
        let output = run(&binary, &args);
        assert!(!output.status.success(), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
        assert!(output.stdout.is_empty(), "{args:?}");
    }
    let long = "word ".repeat(400);
    let output = run(&binary, &["search", &long]);
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("at most 1024"));
    // Nonsense is not an error: no hits and a hint.
    let result = search_json(&binary, &["qwxzzy", "plorbnak"]);
    assert!(hits(&result).is_empty());
    assert!(result["hint"].as_str().unwrap().contains("qwxzzy"));
}

/// Questions over the corpora, with the document the first hits should come from.
const CORPORA_QUERIES: &[(&str, &str)] = &[
    (
        "how do I propagate errors with the ? operator",
        "resource://docs/ch09-02-recoverable-errors-with-result.md",
    ),
    (
        "HashMap entry or_insert",
        "resource://docs/ch08-03-hash-maps.md",
    ),
    (
        "slack gif size limits",
        "resource://skills/slack-gif-creator/document",
    ),
    (
        "pydantic field_validator",
        "resource://skills/mcp-builder/references/reference-python-mcp-server",
    ),
    ("Rc<T> reference counting", "resource://docs/ch15-04-rc.md"),
    (
        "prompt caching silent invalidators",
        "resource://skills/claude-api/references/shared-prompt-caching",
    ),
];

#[tokio::test(flavor = "multi_thread")]
async fn corpora_hits_read_back_and_contain_their_snippets() {
    let Some(binary) = common::corpora_binary() else {
        return;
    };
    let client = common::connect(&binary).await;
    let mut checked = 0;
    for (query, expected) in CORPORA_QUERIES {
        let result = search_json(&binary, &["--limit", "5", query]);
        let hits = hits(&result);
        assert!(
            hits[..3].iter().any(|h| h["uri"] == *expected),
            "{query}: expected {expected} in the top 3, got {:#}",
            result["hits"]
        );
        for hit in hits {
            let snippet = hit["snippet"].as_str().unwrap();
            assert!(!snippet.trim().is_empty(), "{query}: {hit:#}");
            let chunk = read_text(&client, hit["chunk_uri"].as_str().unwrap()).await;
            assert!(chunk.contains(snippet), "{query}: chunk lacks {snippet:?}");
            let section = read_text(&client, hit["section_uri"].as_str().unwrap()).await;
            assert!(
                section.contains(snippet),
                "{query}: section lacks {snippet:?}"
            );
            let document = read_text(&client, hit["uri"].as_str().unwrap()).await;
            assert!(document.contains(&chunk));
            let path = hit["heading_path"].as_array().unwrap();
            if let Some(own) = path.last() {
                // The section read starts with the heading the hit names.
                let heading = own.as_str().unwrap();
                let first_line = section.lines().next().unwrap_or_default();
                assert!(
                    first_line.trim_start_matches('#').trim().replace('`', "")
                        == heading.replace('`', ""),
                    "{query}: section starts with {first_line:?}, hit names {heading:?}"
                );
            }
            checked += 1;
        }
    }
    assert!(checked >= 25, "{checked}");
    client.cancel().await.unwrap();
}

#[test]
fn corpora_pages_chain_through_cursors() {
    let Some(binary) = common::corpora_binary() else {
        return;
    };
    let query = "thread";
    let whole = search_json(&binary, &["--limit", "15", query]);
    assert_eq!(whole["has_more"], true);
    let mut paged: Vec<Value> = Vec::new();
    let mut cursor: Option<String> = None;
    for page in 0..3 {
        let mut args = vec!["--limit", "5"];
        if let Some(c) = &cursor {
            args.extend(["--cursor", c.as_str()]);
        }
        args.push(query);
        let result = search_json(&binary, &args);
        assert_eq!(hits(&result).len(), 5, "page {page}");
        assert_eq!(result["total"], whole["total"]);
        paged.extend(hits(&result).iter().cloned());
        cursor = result["next_cursor"].as_str().map(str::to_owned);
        assert!(cursor.is_some(), "page {page}");
    }
    assert_eq!(paged.as_slice(), hits(&whole));
    let ranks: Vec<u64> = paged.iter().map(|h| h["rank"].as_u64().unwrap()).collect();
    assert_eq!(ranks, (1..=15).collect::<Vec<_>>());
    let sections: HashSet<&Value> = paged.iter().map(|h| &h["section_uri"]).collect();
    assert_eq!(sections.len(), 15);
    // A cursor does not carry over to another query.
    let output = run(
        &binary,
        &["search", "--cursor", cursor.as_deref().unwrap(), "threads"],
    );
    assert!(!output.status.success());
}

#[test]
fn corpora_kind_filters_hold() {
    let Some(binary) = common::corpora_binary() else {
        return;
    };
    for query in ["error handling", "tool use streaming", "tests"] {
        let docs = search_json(&binary, &["--kind", "docs", "--limit", "20", query]);
        assert!(!hits(&docs).is_empty(), "{query}");
        for hit in hits(&docs) {
            assert_eq!(hit["document_kind"], "doc", "{query}");
            assert!(hit["uri"].as_str().unwrap().starts_with("resource://docs/"));
            assert!(hit.get("skill_id").is_none());
        }
        let skills = search_json(&binary, &["--kind", "skills", "--limit", "20", query]);
        assert!(!hits(&skills).is_empty(), "{query}");
        for hit in hits(&skills) {
            let kind = hit["document_kind"].as_str().unwrap();
            assert!(kind == "skill" || kind == "reference", "{query}: {kind}");
            let skill = hit["skill_id"].as_str().unwrap();
            assert!(
                hit["uri"]
                    .as_str()
                    .unwrap()
                    .starts_with(&format!("resource://skills/{skill}/")),
                "{hit:#}"
            );
        }
        let all = search_json(&binary, &["--limit", "20", query]);
        assert!(
            all["total"].as_u64().unwrap()
                == docs["total"].as_u64().unwrap() + skills["total"].as_u64().unwrap(),
            "{query}: totals add up"
        );
    }
}
