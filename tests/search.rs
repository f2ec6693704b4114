//! Search through the real binary: the `catalog_search` tool and the `find-skill` prompt
//! over MCP (rmcp client), and `skillpack search` on the command line, on the built-in
//! content and on the corpora build. Every hit's chunk and section URIs read back and
//! contain the hit's snippet; pages walk through cursors with no duplicate and no gap;
//! kind filters hold; bad input gets the error envelope with a working repair.

use crate::common;

use std::collections::HashSet;
use std::path::Path;

use common::tools::{assert_valid, err, ok, output_validator, run_repair, tools};
use common::{Client, read_text, run};
use rmcp::model::{ContentBlock, GetPromptRequestParams};
use serde_json::{Value, json};

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
            // The URI names the skill (no `skill_id` repeats it) and the kind.
            assert!(hit.get("skill_id").is_none(), "{hit:#}");
            let uri = hit["uri"].as_str().unwrap();
            let tail = uri.strip_prefix("resource://skills/").unwrap_or_default();
            let (skill, rest) = tail.split_once('/').unwrap_or_default();
            assert!(!skill.is_empty(), "{hit:#}");
            match kind {
                "skill" => assert_eq!(rest, "document", "{hit:#}"),
                _ => assert!(rest.starts_with("references/"), "{hit:#}"),
            }
        }
        let all = search_json(&binary, &["--limit", "20", query]);
        assert!(
            all["total"].as_u64().unwrap()
                == docs["total"].as_u64().unwrap() + skills["total"].as_u64().unwrap(),
            "{query}: totals add up"
        );
    }
}

// ---- over MCP ---------------------------------------------------------------------------

/// Check every hit of a `catalog_search` result: its URIs read back (as resources and
/// through `catalog_read`), the chunk and the section contain the snippet, the section
/// starts with the heading the hit names, and ranks run on from `first_rank`.
async fn check_hits(client: &Client, result: &Value, first_rank: u64) -> usize {
    let query = result["query"].as_str().unwrap().to_owned();
    let mut checked = 0;
    for (i, hit) in hits(result).iter().enumerate() {
        assert_eq!(hit["rank"], first_rank + i as u64, "{query}: ranks");
        let snippet = hit["snippet"].as_str().unwrap();
        assert!(!snippet.trim().is_empty(), "{query}: {hit:#}");
        let chunk_uri = hit["chunk_uri"].as_str().unwrap();
        let chunk = read_text(client, chunk_uri).await;
        assert!(chunk.contains(snippet), "{query}: chunk lacks {snippet:?}");
        let by_tool = ok(client, "catalog_read", json!({"uri": chunk_uri})).await;
        assert_eq!(
            by_tool["text"], chunk,
            "{query}: catalog_read of {chunk_uri}"
        );
        let section_uri = hit["section_uri"].as_str().unwrap();
        let section = ok(
            client,
            "catalog_read",
            json!({"uri": section_uri, "detail": "full"}),
        )
        .await;
        let section = section["text"].as_str().unwrap();
        assert!(
            section.contains(snippet),
            "{query}: section lacks {snippet:?}"
        );
        let document = read_text(client, hit["uri"].as_str().unwrap()).await;
        assert!(document.contains(&chunk), "{query}");
        assert!(chunk_uri.starts_with(hit["uri"].as_str().unwrap()));
        if let Some(own) = hit["heading_path"].as_array().unwrap().last() {
            let heading = own.as_str().unwrap();
            let first_line = section.lines().next().unwrap_or_default();
            assert_eq!(
                first_line.trim_start_matches('#').trim().replace('`', ""),
                heading.replace('`', ""),
                "{query}: the section starts with the heading the hit names"
            );
            // `section_uri` is the document's URI and the heading's anchor; no `anchor`
            // field repeats it.
            let anchor = section_uri
                .strip_prefix(&format!("{}#", hit["uri"].as_str().unwrap()))
                .unwrap_or_default();
            assert!(!anchor.is_empty(), "{hit:#}");
            assert!(hit.get("anchor").is_none(), "{hit:#}");
        }
        checked += 1;
    }
    checked
}

/// Walk every page of a search; returns the hits in order. Asserts no duplicates, no
/// gaps (ranks 1, 2, 3…) and a consistent total.
async fn walk(client: &Client, mut args: Value) -> Vec<Value> {
    let mut all: Vec<Value> = Vec::new();
    let mut total = None;
    loop {
        let page = ok(client, "catalog_search", args.clone()).await;
        let page_total = page["total"].as_u64().unwrap();
        assert_eq!(
            *total.get_or_insert(page_total),
            page_total,
            "total changes between pages"
        );
        all.extend(hits(&page).iter().cloned());
        if page["has_more"] == true {
            args["cursor"] = page["next_cursor"].clone();
            assert!(args["cursor"].is_string());
        } else {
            assert!(page["next_cursor"].is_null());
            break;
        }
        assert!(all.len() <= 200, "pages go past the 200 reachable hits");
    }
    let ranks: Vec<u64> = all.iter().map(|h| h["rank"].as_u64().unwrap()).collect();
    assert_eq!(
        ranks,
        (1..=all.len() as u64).collect::<Vec<_>>(),
        "gaps or repeats"
    );
    let sections: HashSet<&Value> = all.iter().map(|h| &h["section_uri"]).collect();
    assert_eq!(sections.len(), all.len(), "a section appears twice");
    assert_eq!(
        all.len() as u64,
        total.unwrap().min(200),
        "every reachable hit, once"
    );
    all
}

#[tokio::test]
async fn tool_hits_read_back_and_contain_their_snippets() {
    let client = common::connect(&common::builtin_binary()).await;
    let validator = output_validator(
        tools(&client)
            .await
            .iter()
            .find(|t| t.name == "catalog_search")
            .expect("tools/list has catalog_search"),
    );
    let mut checked = 0;
    for (query, expected) in [
        ("pin the fingerprint", "resource://docs/pinning.md"),
        (
            "roll back a release",
            "resource://skills/releasing-a-catalog/document",
        ),
        (
            "skill:// URI encoding",
            "resource://skills/navigating-a-catalog/",
        ),
        ("\"expect-fingerprint\"", "resource://docs/"),
    ] {
        for kind in ["all", "skills", "docs"] {
            let result = ok(
                &client,
                "catalog_search",
                json!({"query": query, "kind": kind, "limit": 8}),
            )
            .await;
            assert_valid(&validator, &result, &format!("{query} / {kind}"));
            checked += check_hits(&client, &result, 1).await;
            if kind == "all" {
                assert!(
                    hits(&result)[..3]
                        .iter()
                        .any(|h| h["uri"].as_str().unwrap().starts_with(expected)),
                    "{query}: expected {expected} in the top 3: {:#}",
                    result["hits"]
                );
            }
        }
    }
    assert!(checked >= 40, "{checked} hits checked");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn tool_pages_walk_with_no_duplicates_or_gaps() {
    let client = common::connect(&common::builtin_binary()).await;
    for (query, limit) in [
        ("catalog", 1),
        ("catalog", 7),
        ("skill", 50),
        ("fingerprint release", 3),
    ] {
        let walked = walk(&client, json!({"query": query, "limit": limit})).await;
        assert!(walked.len() > limit, "{query}: {} hits", walked.len());
        // The pages are the one ranking, cut: the same as one big page.
        if walked.len() <= 50 {
            let whole = ok(
                &client,
                "catalog_search",
                json!({"query": query, "limit": 50}),
            )
            .await;
            let uris = |hits: &[Value]| -> Vec<Value> {
                hits.iter().map(|h| h["section_uri"].clone()).collect()
            };
            assert_eq!(uris(&walked), uris(hits(&whole)), "{query}, limit {limit}");
        }
    }
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn tool_kind_filters_hold() {
    let client = common::connect(&common::builtin_binary()).await;
    for query in ["fingerprint", "skill", "error repair"] {
        let all = walk(&client, json!({"query": query, "limit": 50})).await;
        let docs = walk(
            &client,
            json!({"query": query, "kind": "docs", "limit": 50}),
        )
        .await;
        let skills = walk(
            &client,
            json!({"query": query, "kind": "skills", "limit": 50}),
        )
        .await;
        assert!(!docs.is_empty() && !skills.is_empty(), "{query}");
        for hit in &docs {
            assert_eq!(hit["document_kind"], "doc", "{query}");
            assert!(hit.get("skill_id").is_none());
        }
        for hit in &skills {
            let kind = hit["document_kind"].as_str().unwrap();
            assert!(kind == "skill" || kind == "reference", "{query}: {kind}");
            assert!(hit.get("skill_id").is_none(), "{hit:#}");
            assert!(
                hit["uri"]
                    .as_str()
                    .unwrap()
                    .starts_with("resource://skills/"),
                "{hit:#}"
            );
        }
        // The filtered rankings are the whole ranking split by kind.
        let of = |hits: &[Value], kinds: &[&str]| -> Vec<Value> {
            hits.iter()
                .filter(|h| kinds.contains(&h["document_kind"].as_str().unwrap()))
                .map(|h| h["section_uri"].clone())
                .collect()
        };
        if all.len() < 200 {
            assert_eq!(of(&all, &["doc"]), of(&docs, &["doc"]), "{query}");
            assert_eq!(
                of(&all, &["skill", "reference"]),
                of(&skills, &["skill", "reference"]),
                "{query}"
            );
        }
    }
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn tool_errors_carry_a_working_repair() {
    let client = common::connect(&common::builtin_binary()).await;
    let first = ok(
        &client,
        "catalog_search",
        json!({"query": "catalog", "limit": 2}),
    )
    .await;
    let cursor = first["next_cursor"].as_str().unwrap().to_owned();
    let tampered = common::tools::tampered(&cursor);
    for (args, why) in [
        (
            json!({"query": "catalog", "limit": 2, "cursor": tampered}),
            "edited",
        ),
        (
            json!({"query": "catalog", "cursor": "bm90IGEgY3Vyc29y"}),
            "forged",
        ),
        (
            json!({"query": "catalogs", "limit": 2, "cursor": cursor}),
            "another query",
        ),
        (
            json!({"query": "catalog", "kind": "docs", "cursor": cursor}),
            "another kind",
        ),
    ] {
        let envelope = err(&client, "catalog_search", args.clone()).await;
        assert_eq!(envelope["code"], "cursor_invalid", "{why}: {envelope}");
        assert_eq!(envelope["details"]["field"], "cursor");
        let mut restart = args.clone();
        restart.as_object_mut().unwrap().remove("cursor");
        assert_eq!(envelope["repair"]["tool"], "catalog_search", "{why}");
        assert_eq!(envelope["repair"]["arguments"], restart, "{why}");
        let restarted = run_repair(&client, &envelope).await;
        assert_eq!(restarted["hits"][0]["rank"], 1, "{why}");
    }
    // The genuine cursor still works, and whitespace does not change the query.
    let second = ok(
        &client,
        "catalog_search",
        json!({"query": " catalog ", "limit": 2, "cursor": cursor}),
    )
    .await;
    assert_eq!(second["hits"][0]["rank"], 3);

    // Empty and wordless queries: invalid_argument on `query`, and the repair browses.
    for query in ["", "   ", "?!…", "\"\""] {
        let envelope = err(&client, "catalog_search", json!({"query": query})).await;
        assert_eq!(
            envelope["code"], "invalid_argument",
            "{query:?}: {envelope}"
        );
        assert_eq!(envelope["details"]["field"], "query", "{query:?}");
        let listed = run_repair(&client, &envelope).await;
        assert!(listed["items"].is_array(), "{query:?}");
    }
    // Nonsense is not an error: no hits, the unknown words, a hint.
    let nothing = ok(
        &client,
        "catalog_search",
        json!({"query": "qwxzzy plorbnak", "kind": "docs"}),
    )
    .await;
    assert_eq!(nothing["hits"], json!([]));
    assert_eq!(nothing["total"], 0);
    assert_eq!(nothing["unknown_terms"], json!(["qwxzzy", "plorbnak"]));
    assert!(nothing["hint"].as_str().unwrap().contains("qwxzzy"));
    // Hostile input: long, control characters, mixed scripts; the server keeps serving.
    for query in [
        "a".repeat(1024),
        "\u{0}\u{7}\u{1b}[31m fingerprint".to_owned(),
        "指纹 Ελληνικά \u{202e}pin".to_owned(),
        "\"".repeat(300),
    ] {
        let outcome = common::tools::call(&client, "catalog_search", json!({"query": query})).await;
        assert!(outcome.structured.is_object());
    }
    let long = err(
        &client,
        "catalog_search",
        json!({"query": "a".repeat(1025)}),
    )
    .await;
    assert!(
        long["message"].as_str().unwrap().contains("at most 1024"),
        "{long}"
    );
    let still = ok(&client, "catalog_search", json!({"query": "fingerprint"})).await;
    assert!(still["total"].as_u64() > Some(0));
    client.cancel().await.unwrap();
}

fn prompt_text(result: &rmcp::model::GetPromptResult) -> String {
    result
        .messages
        .iter()
        .filter_map(|m| match &m.content {
            ContentBlock::Text(t) => Some(t.text.clone()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

async fn find_skill(client: &Client, task: &str) -> String {
    let mut args = serde_json::Map::new();
    args.insert("task".into(), task.into());
    let result = client
        .get_prompt(GetPromptRequestParams::new("find-skill").with_arguments(args))
        .await
        .unwrap_or_else(|e| panic!("find-skill {task}: {e}"));
    prompt_text(&result)
}

/// The skills `find-skill` proposes, in order: the ids in "N. `id`" lines.
fn proposed(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|line| {
            let (number, rest) = line.split_once(". `")?;
            number.trim().parse::<u32>().ok()?;
            Some(rest.split('`').next()?.to_owned())
        })
        .collect()
}

#[tokio::test]
async fn find_skill_proposes_the_best_matching_skills() {
    let client = common::connect(&common::builtin_binary()).await;
    let index: Value =
        serde_json::from_str(&read_text(&client, "resource://catalog/skills_index").await).unwrap();
    let skills = index["skills"].as_array().unwrap();
    for (task, best) in [
        (
            "release a new version of the catalog and roll it back",
            "releasing-a-catalog",
        ),
        (
            "write a new skill with good frontmatter",
            "writing-skillpack-skills",
        ),
        (
            "review an MCP server's tool descriptions",
            "agent-friendly-mcp",
        ),
    ] {
        let text = find_skill(&client, task).await;
        let ids = proposed(&text);
        assert_eq!(
            ids.first().map(String::as_str),
            Some(best),
            "{task}:\n{text}"
        );
        assert!(text.contains(task));
        for id in &ids {
            let skill = skills
                .iter()
                .find(|s| s["id"] == id.as_str())
                .expect("a real skill id");
            // Its description (or its first sentences) and its URIs.
            let description = skill["description"].as_str().unwrap();
            let start: String = description.chars().take(60).collect();
            assert!(text.contains(start.trim()), "{id}: description in\n{text}");
            let document = format!("resource://skills/{id}/document");
            assert!(text.contains(&document), "{id}");
            assert!(
                text.contains(&format!("resource://catalog/skills/{id}")),
                "{id}"
            );
            // The URIs it names read.
            read_text(&client, &document).await;
        }
        // The best match names a section that reads.
        let best_match = text
            .lines()
            .find_map(|l| l.trim().strip_prefix("best match: "))
            .and_then(|l| {
                l.rsplit_once('(')
                    .map(|(_, uri)| uri.trim_end_matches(')').to_owned())
            })
            .expect("a best match");
        ok(&client, "catalog_read", json!({"uri": best_match})).await;
    }
    // Nothing matches: a useful message, not an error.
    let text = find_skill(&client, "qwxzzy plorbnak").await;
    assert!(proposed(&text).is_empty());
    assert!(text.contains("catalog_list"), "{text}");
    // A missing task is invalid params with the envelope and a working repair.
    let error = client
        .get_prompt(GetPromptRequestParams::new("find-skill"))
        .await
        .expect_err("find-skill needs a task");
    let rmcp::ServiceError::McpError(error) = error else {
        panic!("{error:?}")
    };
    assert_eq!(error.code, rmcp::model::ErrorCode::INVALID_PARAMS);
    let data = error.data.unwrap();
    assert_eq!(data["machine_code"], "invalid_argument");
    assert_eq!(data["details"]["field"], "task");
    run_repair(&client, &data).await;
    // The task's last word completes from the catalog's topics.
    let info = client
        .complete_prompt_argument("find-skill", "task", "roll back a rel", None)
        .await
        .unwrap();
    assert!(
        info.values.iter().all(|v| v.starts_with("roll back a ")),
        "{info:?}"
    );
    assert!(
        info.values
            .iter()
            .any(|v| v == "roll back a releasing-a-catalog"),
        "{info:?}"
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn corpora_tool_hits_read_back_and_pages_walk() {
    let Some(binary) = common::corpora_binary() else {
        return;
    };
    let client = common::connect(&binary).await;
    let validator = output_validator(
        tools(&client)
            .await
            .iter()
            .find(|t| t.name == "catalog_search")
            .unwrap(),
    );
    let mut checked = 0;
    for (query, expected) in CORPORA_QUERIES {
        let result = ok(
            &client,
            "catalog_search",
            json!({"query": query, "limit": 5}),
        )
        .await;
        assert_valid(&validator, &result, query);
        assert!(
            hits(&result)[..3].iter().any(|h| h["uri"] == *expected),
            "{query}: expected {expected} in the top 3"
        );
        checked += check_hits(&client, &result, 1).await;
    }
    assert!(checked >= 25, "{checked}");
    // A word in nearly every chunk: more than 200 matches, of which 200 are reachable, walked in pages of
    // 50 and of 33; a rarer one is walked to its end.
    let page = ok(
        &client,
        "catalog_search",
        json!({"query": "the", "limit": 50}),
    )
    .await;
    assert!(page["total"].as_u64().unwrap() > 200, "{}", page["total"]);
    for limit in [50, 33] {
        let walked = walk(&client, json!({"query": "the", "limit": limit})).await;
        assert_eq!(walked.len(), 200, "limit {limit}");
    }
    let walked = walk(
        &client,
        json!({"query": "thread", "kind": "docs", "limit": 13}),
    )
    .await;
    assert!(walked.len() > 13 && walked.len() < 200, "{}", walked.len());
    let text = find_skill(&client, "make an animated GIF for Slack").await;
    assert_eq!(
        proposed(&text).first().map(String::as_str),
        Some("slack-gif-creator"),
        "{text}"
    );
    client.cancel().await.unwrap();
}
