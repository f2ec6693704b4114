//! The tool fallback through the real binary over stdio: definitions that stand on their
//! own, outputs that match their own `outputSchema` (checked with a JSON Schema 2020-12
//! validator), pagination that walks the whole catalog, token-budgeted summaries, and an
//! agent that starts from `tools/list` alone and reaches a reference's second chunk.

use crate::common;

use std::collections::BTreeSet;

use common::Client;
use common::tools::{assert_valid, call, err, ok, output_validator, run_repair, tools};
use rmcp::model::Tool;
use serde_json::{Value, json};

fn tool<'a>(tools: &'a [Tool], name: &str) -> &'a Tool {
    tools
        .iter()
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("tools/list has no {name}"))
}

#[tokio::test]
async fn tool_definitions_stand_on_their_own() {
    let client = common::connect(&common::builtin_binary()).await;
    let tools = tools(&client).await;
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(names, ["catalog_list", "catalog_read", "catalog_search"]);
    for tool in &tools {
        let name = tool.name.as_ref();
        for (which, schema) in [
            ("inputSchema", Some(tool.input_schema.as_ref())),
            ("outputSchema", tool.output_schema.as_deref()),
        ] {
            let schema = Value::Object(
                schema
                    .unwrap_or_else(|| panic!("{name}: no {which}"))
                    .clone(),
            );
            assert_eq!(
                schema["$schema"], "https://json-schema.org/draft/2020-12/schema",
                "{name} {which}"
            );
            jsonschema::draft202012::meta::validate(&schema)
                .unwrap_or_else(|e| panic!("{name} {which} is not valid 2020-12: {e}"));
            assert_eq!(schema["type"], "object", "{name} {which}");
            assert_eq!(schema["additionalProperties"], false, "{name} {which}");
        }
        let input = Value::Object(tool.input_schema.as_ref().clone());
        let required: Vec<&str> = input["required"]
            .as_array()
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        for (field, property) in input["properties"].as_object().unwrap() {
            let description = property["description"].as_str().unwrap_or_default();
            if !required.contains(&field.as_str()) {
                assert!(
                    description.contains("Omitted means"),
                    "{name}.{field} must say what omitting it means: {description:?}"
                );
            }
        }
        let description = tool.description.as_deref().unwrap_or_default();
        assert!(description.contains("Example"), "{name}: {description}");
        assert!(description.contains("Use it"), "{name} says when to use it");
        let annotations = tool.annotations.as_ref().expect("annotations");
        assert_eq!(annotations.read_only_hint, Some(true), "{name}");
        assert_eq!(annotations.idempotent_hint, Some(true), "{name}");
        assert_eq!(annotations.open_world_hint, Some(false), "{name}");
        let meta = tool.meta.as_ref().expect("_meta");
        assert!(
            meta.get("anthropic/maxResultSizeChars")
                .and_then(Value::as_u64)
                .is_some_and(|n| n >= 100_000),
            "{name}: {meta:?}"
        );
    }
    client.cancel().await.unwrap();
}

/// The examples in the descriptions are real calls: run every `{…}` after "Examples:".
#[tokio::test]
async fn description_examples_work_as_written() {
    let client = common::connect(&common::builtin_binary()).await;
    for tool in tools(&client).await {
        let description = tool.description.as_deref().unwrap_or_default();
        let examples = description.split("Examples:").nth(1).expect("examples");
        let mut found = 0;
        let mut rest = examples;
        while let Some(start) = rest.find('{') {
            let end = start + rest[start..].find('}').expect("closing brace") + 1;
            let args: Value = serde_json::from_str(&rest[start..end]).unwrap_or_else(|e| {
                panic!(
                    "{}: example {} is not JSON: {e}",
                    tool.name,
                    &rest[start..end]
                )
            });
            ok(&client, &tool.name, args).await;
            found += 1;
            rest = &rest[end..];
        }
        assert!(found >= 2, "{}: {found} examples", tool.name);
    }
    client.cancel().await.unwrap();
}

/// Every kind of URI `catalog_read` accepts, in both details, and the listing variants:
/// each result matches the tool's own outputSchema and its text is the same JSON.
/// Every output checked against its schema, and how many searches carried a section.
async fn check_outputs(client: &Client, extra_uris: &[String]) -> (usize, usize) {
    let tools = tools(client).await;
    let list = output_validator(tool(&tools, "catalog_list"));
    let read = output_validator(tool(&tools, "catalog_read"));
    let search = output_validator(tool(&tools, "catalog_search"));
    let mut checked = 0;
    let mut carried = 0;

    let mut check = async |name: &str, args: Value| {
        let shown = format!("{name} {args}");
        let outcome = call(client, name, args).await;
        assert!(!outcome.is_error, "{shown}: {}", outcome.structured);
        let validator = match name {
            "catalog_list" => &list,
            "catalog_search" => &search,
            _ => &read,
        };
        assert_valid(validator, &outcome.structured, &shown);
        let text: Value = serde_json::from_str(&outcome.text).expect("text content is JSON");
        assert_eq!(text, outcome.structured, "{shown}: text fallback");
        checked += 1;
        outcome.structured
    };

    for args in [
        json!({}),
        json!({"kind": "docs"}),
        json!({"kind": "docs", "limit": 1}),
        json!({"kind": "skills", "limit": 100, "prefix": "a"}),
    ] {
        check("catalog_list", args).await;
    }
    // Searches: hits, no hits, every kind, a phrase, a later page; and the sections and
    // chunks they name read.
    for args in [
        json!({"query": "fingerprint"}),
        json!({"query": "how do I read one chunk", "kind": "skills", "limit": 3}),
        json!({"query": "\"catalog_read\" summary", "kind": "docs"}),
        json!({"query": "landlock sandbox"}),
        json!({"query": "sandbox", "also": ["landlock", "no filesystem access"]}),
        json!({"query": "qwxzzy plorbnak"}),
    ] {
        let result = check("catalog_search", args.clone()).await;
        let hits = result["hits"].as_array().unwrap();
        if args.get("limit").is_none() {
            assert!(hits.len() <= 3, "{args}: the default page holds 3 hits");
        }
        for (i, hit) in hits.iter().enumerate() {
            check("catalog_read", json!({"uri": hit["chunk_uri"]})).await;
            let section = check("catalog_read", json!({"uri": hit["section_uri"]})).await;
            // A carried section is what a read of its URI returns; past the first hit it is
            // a small one.
            if let Some(text) = hit.get("section_text") {
                assert!(
                    i == 0
                        || hit["section_size"].as_u64()
                            <= Some(skillpack_build::contract::SEARCH_SMALL_SECTION_BYTES as u64),
                    "{args}: a {} section carried on hit {}",
                    hit["section_size"],
                    i + 1
                );
                assert_eq!(&section["text"], text, "{args}");
                carried += 1;
            }
        }
        if let Some(cursor) = result["next_cursor"].as_str() {
            let mut next = args.clone();
            next["cursor"] = cursor.into();
            let later = check("catalog_search", next).await;
            assert!(
                later["hits"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .all(|hit| hit.get("section_text").is_none()),
                "{args}: a later page carries a section"
            );
        }
    }
    let skills = check("catalog_list", json!({"limit": 100})).await;
    let docs = check("catalog_list", json!({"kind": "docs", "limit": 100})).await;

    let mut uris: Vec<String> = vec![
        "resource://catalog/capabilities".into(),
        "resource://catalog/skills_index".into(),
        "resource://catalog/docs_index".into(),
    ];
    for skill in skills["items"].as_array().unwrap() {
        uris.push(skill["uri"].as_str().unwrap().into());
        uris.push(skill["record_uri"].as_str().unwrap().into());
    }
    for doc in docs["items"].as_array().unwrap().iter().take(10) {
        uris.push(doc["uri"].as_str().unwrap().into());
    }
    uris.extend(extra_uris.iter().cloned());
    let mut seen_kinds = BTreeSet::new();
    for uri in &uris {
        for detail in ["summary", "full"] {
            let result = check("catalog_read", json!({"uri": uri, "detail": detail})).await;
            seen_kinds.insert(result["kind"].as_str().unwrap().to_owned());
            // Follow what the result offers: a chunk, a section, a reference, a file.
            let mut next: Vec<Value> = Vec::new();
            if let Some(chunk) = result["chunks"].as_array().and_then(|c| c.last()) {
                next.push(json!({"uri": chunk["uri"]}));
                next.push(json!({"uri": result["uri"], "chunk_id": chunk["id"]}));
            }
            if let Some(chunk) = result["next_chunk_uri"].as_str() {
                next.push(json!({"uri": chunk}));
            }
            if let Some(section) = result["outline"].as_array().and_then(|o| o.last()) {
                next.push(json!({"uri": section["uri"]}));
                next.push(json!({"uri": section["uri"], "detail": "full"}));
            }
            if let Some(reference) = result["skill"]["references"]
                .as_array()
                .and_then(|r| r.first())
            {
                next.push(json!({"uri": reference["uri"]}));
            }
            for args in next {
                let piece = check("catalog_read", args).await;
                seen_kinds.insert(piece["kind"].as_str().unwrap().to_owned());
            }
        }
    }
    for kind in ["document", "chunk", "section", "catalog"] {
        assert!(seen_kinds.contains(kind), "{kind} in {seen_kinds:?}");
    }
    (checked, carried)
}

#[tokio::test]
async fn builtin_tool_outputs_match_their_schemas() {
    let client = common::connect(&common::builtin_binary()).await;
    let extra = [
        "skill://agent-friendly-mcp/SKILL.md".to_owned(),
        "skill://agent-friendly-mcp/references".to_owned(),
        "skill://writing-skillpack-skills/templates/SKILL.md.template".to_owned(),
    ];
    let (checked, carried) = check_outputs(&client, &extra).await;
    assert!(checked > 50, "{checked} results checked");
    assert!(carried > 0, "no search carried its first hit's section");

    // A skill:// markdown file is read as the document it is.
    let file = ok(
        &client,
        "catalog_read",
        json!({"uri": "skill://agent-friendly-mcp/SKILL.md"}),
    )
    .await;
    assert_eq!(file["kind"], "document");
    assert_eq!(
        file["document_uri"],
        "resource://skills/agent-friendly-mcp/document"
    );
    let folder = ok(
        &client,
        "catalog_read",
        json!({"uri": "skill://agent-friendly-mcp/references"}),
    )
    .await;
    assert_eq!(folder["kind"], "directory");
    assert!(folder["entries"].as_array().unwrap().len() >= 9);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn corpora_tool_outputs_match_their_schemas() {
    let Some(binary) = common::corpora_binary() else {
        return;
    };
    let client = common::connect(&binary).await;
    // A binary file (a font), a large script, and a nested skill folder.
    let record: Value = serde_json::from_str(
        ok(
            &client,
            "catalog_read",
            json!({"uri": "resource://catalog/skills/canvas-design", "detail": "full"}),
        )
        .await["text"]
            .as_str()
            .unwrap(),
    )
    .unwrap();
    let files = record["files"].as_array().unwrap();
    let binary_file = files
        .iter()
        .find(|f| {
            f["mime_type"]
                .as_str()
                .is_some_and(|m| m.starts_with("font/"))
        })
        .expect("canvas-design ships fonts");
    let extra = [binary_file["uri"].as_str().unwrap().to_owned()];
    let (checked, _) = check_outputs(&client, &extra).await;
    assert!(checked > 100, "{checked} results checked");

    let font = ok(
        &client,
        "catalog_read",
        json!({"uri": binary_file["uri"], "detail": "full"}),
    )
    .await;
    assert_eq!(font["kind"], "file");
    assert_eq!(
        font["blob"]
            .as_str()
            .map(|b| b.len() as u64 * 3 / 4 >= font["size"].as_u64().unwrap() - 2),
        Some(true)
    );
    client.cancel().await.unwrap();
}

/// Walk a listing with the house cursor; every record once, none missing.
async fn walk(client: &Client, mut args: Value, key: &str) -> Vec<String> {
    let mut seen = Vec::new();
    let mut pages = 0;
    loop {
        let page = ok(client, "catalog_list", args.clone()).await;
        pages += 1;
        for item in page["items"].as_array().unwrap() {
            seen.push(item[key].as_str().unwrap().to_owned());
        }
        assert!(page["total"].as_u64().unwrap() as usize >= seen.len());
        if page["has_more"] == true {
            args["cursor"] = page["next_cursor"].clone();
            assert!(args["cursor"].is_string());
        } else {
            assert!(page["next_cursor"].is_null());
            assert_eq!(
                page["total"].as_u64().unwrap() as usize,
                seen.len(),
                "total"
            );
            break;
        }
        assert!(pages < 10_000, "pagination does not end");
    }
    let unique: BTreeSet<&String> = seen.iter().collect();
    assert_eq!(unique.len(), seen.len(), "duplicates in {seen:?}");
    seen
}

async fn check_pagination(client: &Client) {
    let text = ok(
        client,
        "catalog_read",
        json!({"uri": "resource://catalog/skills_index", "detail": "full"}),
    )
    .await;
    let index: Value = serde_json::from_str(text["text"].as_str().unwrap()).unwrap();
    let mut skill_ids: Vec<String> = index["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap().to_owned())
        .collect();
    skill_ids.sort();
    let text = ok(
        client,
        "catalog_read",
        json!({"uri": "resource://catalog/docs_index", "detail": "full"}),
    )
    .await;
    let index: Value = serde_json::from_str(text["text"].as_str().unwrap()).unwrap();
    let mut doc_paths: Vec<String> = index["docs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["path"].as_str().unwrap().to_owned())
        .collect();
    doc_paths.sort();

    for limit in [1, 2, 7, 25, 100] {
        let mut walked = walk(client, json!({"limit": limit}), "id").await;
        walked.sort();
        assert_eq!(walked, skill_ids, "skills, limit {limit}");
        let mut walked = walk(client, json!({"kind": "docs", "limit": limit}), "path").await;
        walked.sort();
        assert_eq!(walked, doc_paths, "docs, limit {limit}");
    }
    // Filters page too, and the default page size applies.
    let prefix: String = doc_paths[doc_paths.len() / 2].chars().take(3).collect();
    let walked = walk(client, json!({"kind": "docs", "prefix": prefix}), "path").await;
    let expected: Vec<&String> = doc_paths
        .iter()
        .filter(|p| p.starts_with(&prefix))
        .collect();
    assert!(!expected.is_empty());
    assert_eq!(walked.iter().collect::<Vec<_>>(), expected);
}

#[tokio::test]
async fn builtin_pagination_walks_the_whole_catalog() {
    let client = common::connect(&common::builtin_binary()).await;
    check_pagination(&client).await;
    // Tag filter: every skill tagged `mcp`, and only those.
    let tagged = walk(&client, json!({"tag": "mcp", "limit": 1}), "id").await;
    assert!(
        tagged.contains(&"agent-friendly-mcp".to_owned()),
        "{tagged:?}"
    );
    assert!(
        !tagged.contains(&"writing-skillpack-skills".to_owned()),
        "{tagged:?}"
    );
    let prefixed = walk(&client, json!({"prefix": "Agent"}), "id").await;
    assert_eq!(prefixed, ["agent-friendly-mcp"]);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn corpora_pagination_walks_the_whole_catalog() {
    let Some(binary) = common::corpora_binary() else {
        return;
    };
    let client = common::connect(&binary).await;
    check_pagination(&client).await;
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn cursors_are_validated() {
    let client = common::connect(&common::builtin_binary()).await;
    let first = ok(&client, "catalog_list", json!({"kind": "docs", "limit": 2})).await;
    let cursor = first["next_cursor"].as_str().unwrap().to_owned();
    let tampered = common::tools::tampered(&cursor);
    for (args, why) in [
        (
            json!({"kind": "docs", "limit": 2, "cursor": tampered}),
            "edited",
        ),
        (
            json!({"kind": "docs", "limit": 2, "cursor": "bm90IGEgY3Vyc29y"}),
            "forged",
        ),
        (
            json!({"kind": "docs", "prefix": "reference/", "cursor": cursor}),
            "other filters",
        ),
        (json!({"kind": "skills", "cursor": cursor}), "other listing"),
    ] {
        let envelope = err(&client, "catalog_list", args).await;
        assert_eq!(envelope["code"], "cursor_invalid", "{why}: {envelope}");
        assert_eq!(envelope["details"]["field"], "cursor");
        // The repair restarts the same listing without the cursor.
        assert_eq!(envelope["repair"]["tool"], "catalog_list");
        assert!(
            envelope["repair"]["arguments"].get("cursor").is_none(),
            "{envelope}"
        );
        let restarted = run_repair(&client, &envelope).await;
        assert!(restarted["items"].is_array());
    }
    // The genuine cursor still works.
    let second = ok(
        &client,
        "catalog_list",
        json!({"kind": "docs", "limit": 2, "cursor": cursor}),
    )
    .await;
    assert_ne!(second["items"], first["items"]);
    client.cancel().await.unwrap();
}

/// A model that has seen only `tools/list` reaches the second chunk of a reference, using
/// tool names from the list and values returned by earlier calls — nothing else.
#[tokio::test]
async fn from_tools_list_alone_to_a_references_second_chunk() {
    let client = common::connect(&common::builtin_binary()).await;
    let tools = tools(&client).await;
    let list_tool = tools
        .iter()
        .find(|t| {
            t.description
                .as_deref()
                .is_some_and(|d| d.starts_with("List"))
        })
        .expect("a listing tool");
    let read_tool = tools
        .iter()
        .find(|t| {
            t.description
                .as_deref()
                .is_some_and(|d| d.starts_with("Read"))
        })
        .expect("a reading tool");

    // 1. List skills (no arguments: every argument is optional).
    let skills = ok(&client, &list_tool.name, json!({})).await;
    let skill = skills["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["references"].as_u64() > Some(0))
        .expect("a skill with references");
    // 2. Summary of its document: it names the references and their chunk counts.
    let summary = ok(&client, &read_tool.name, json!({"uri": skill["uri"]})).await;
    let reference = summary["skill"]["references"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["chunks"].as_u64() >= Some(2))
        .expect("a reference with two chunks");
    // 3. The reference in full: its chunk catalog (a summary leaves it out).
    let reference = ok(
        &client,
        &read_tool.name,
        json!({"uri": reference["uri"], "detail": "full"}),
    )
    .await;
    let second = &reference["chunks"][1];
    // 4. The second chunk, by its URI.
    let chunk = ok(&client, &read_tool.name, json!({"uri": second["uri"]})).await;
    assert_eq!(chunk["kind"], "chunk");
    assert_eq!(chunk["chunk"]["index"], 2);
    assert_eq!(chunk["chunk"]["id"], second["id"]);
    // The same chunk by id, and the resource read agree byte for byte.
    let by_id = ok(
        &client,
        &read_tool.name,
        json!({"uri": reference["uri"], "chunk_id": second["id"]}),
    )
    .await;
    assert_eq!(by_id["text"], chunk["text"]);
    let resource = common::read_text(&client, second["uri"].as_str().unwrap()).await;
    assert_eq!(chunk["text"], resource);
    client.cancel().await.unwrap();
}

/// Summaries stay small whatever the document: a document of several chunks larger than
/// the outline budget is its outline (with each section's size, what a read of its uri
/// returns) and no text; a smaller one comes back whole; `full` is the whole body. Prints
/// the bytes of both for the three largest documents of the corpora build:
/// `cargo test --release --test suite -- --nocapture tools::summary_is_budgeted`.
#[tokio::test]
async fn corpora_summary_is_budgeted() {
    let Some(binary) = common::corpora_binary() else {
        return;
    };
    let client = common::connect(&binary).await;
    // Every document: docs from the docs index, skill documents and references from the
    // skill records.
    let mut documents: Vec<(u64, String)> = Vec::new();
    let docs = ok(
        &client,
        "catalog_read",
        json!({"uri": "resource://catalog/docs_index", "detail": "full"}),
    )
    .await;
    let docs: Value = serde_json::from_str(docs["text"].as_str().unwrap()).unwrap();
    for doc in docs["docs"].as_array().unwrap() {
        documents.push((
            doc["size"].as_u64().unwrap(),
            doc["uri"].as_str().unwrap().into(),
        ));
    }
    let skills = walk(&client, json!({"limit": 100}), "uri").await;
    for uri in &skills {
        let summary = ok(&client, "catalog_read", json!({"uri": uri})).await;
        documents.push((summary["size"].as_u64().unwrap(), uri.clone()));
        for reference in summary["skill"]["references"].as_array().unwrap() {
            documents.push((
                reference["size"].as_u64().unwrap(),
                reference["uri"].as_str().unwrap().into(),
            ));
        }
    }
    documents.sort_by(|a, b| b.cmp(a));
    // An outline (4 KB) and a skill's references (3 KB), and the JSON around them.
    const OUTLINE_SUMMARY_MAX_BYTES: usize = 8 * 1024;
    // A document that comes back whole: one chunk (8 KB) beside its outline.
    const WHOLE_SUMMARY_MAX_BYTES: usize = 16 * 1024;
    let mut outlines = 0;
    for (rank, (size, uri)) in documents.iter().enumerate() {
        let summary = call(&client, "catalog_read", json!({"uri": uri})).await;
        let summary_bytes = summary.text.len();
        let structured = &summary.structured;
        let chunks = structured["chunks_total"].as_u64().unwrap();
        if chunks > 1 && *size > 4096 {
            outlines += 1;
            assert!(
                structured.get("text").is_none(),
                "{uri}: text in an outline summary"
            );
            assert_eq!(structured["truncated"], true, "{uri}");
            assert_eq!(structured["chunks_in_text"], 0, "{uri}");
            let first_chunk = format!("{}/chunks/", structured["uri"].as_str().unwrap());
            assert!(
                structured["next_chunk_uri"]
                    .as_str()
                    .is_some_and(|next| next.starts_with(&first_chunk)),
                "{uri}: next_chunk_uri is the first chunk"
            );
            assert!(
                structured.get("chunks").is_none(),
                "{uri}: the chunk catalog is left to full"
            );
            assert!(
                summary_bytes <= OUTLINE_SUMMARY_MAX_BYTES,
                "{uri}: summary is {summary_bytes} bytes"
            );
            // The first and last sections listed: the size is what their read returns.
            let outline = structured["outline"].as_array().unwrap();
            for section in [outline.first(), outline.last()].into_iter().flatten() {
                let read = ok(
                    &client,
                    "catalog_read",
                    json!({"uri": section["uri"], "detail": "full"}),
                )
                .await;
                assert_eq!(read["size"], section["size"], "{uri}: {section}");
            }
        } else {
            // Whole, or (a single chunk larger than the text budget) its first 8 KB.
            let text = structured["text"]
                .as_str()
                .expect("a small document's text");
            match structured["truncated"].as_bool() {
                Some(false) => assert_eq!(text.len() as u64, *size, "{uri}"),
                _ => assert!(*size > 8192 && text.len() <= 8192, "{uri}"),
            }
            assert!(
                summary_bytes <= WHOLE_SUMMARY_MAX_BYTES,
                "{uri}: summary is {summary_bytes} bytes"
            );
        }
        if rank < 3 {
            let full = call(
                &client,
                "catalog_read",
                json!({"uri": uri, "detail": "full"}),
            )
            .await;
            assert_eq!(
                full.structured["text"].as_str().unwrap().len() as u64,
                *size
            );
            assert!(full.text.len() > summary_bytes);
            eprintln!(
                "MEASURE catalog_read {uri}: document {size} bytes; summary {summary_bytes} bytes; full {} bytes (text content of the tool result)",
                full.text.len()
            );
        }
    }
    assert!(
        outlines > 10,
        "the corpora have large documents: {outlines} outlines"
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn modern_clients_get_cache_hints_on_tool_and_prompt_lists() {
    let client = common::connect_modern(&common::builtin_binary()).await;
    let tools = client.list_tools(None).await.unwrap();
    assert_eq!(tools.cache_scope, Some(rmcp::model::CacheScope::Public));
    assert!(tools.ttl_ms.unwrap_or(0) >= 60 * 60 * 1000);
    let prompts = client.list_prompts(None).await.unwrap();
    assert_eq!(prompts.cache_scope, Some(rmcp::model::CacheScope::Public));
    assert!(prompts.ttl_ms.unwrap_or(0) >= 60 * 60 * 1000);
    // Tool calls work statelessly too.
    let listed = ok(&client, "catalog_list", json!({})).await;
    assert!(listed["total"].as_u64() > Some(0));
    client.cancel().await.unwrap();
}
