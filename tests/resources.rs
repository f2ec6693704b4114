//! The resource surface through the real binary over stdio: every document reads back
//! byte-identical to its file (a page of a site generator's tree: to the text the compiler
//! serves for it, computed in-process), chunks concatenate to it, every outline anchor
//! resolves, listed sizes are real — on the built-in content and on the corpora build.

use crate::common;

use std::collections::BTreeSet;
use std::path::Path;

use common::{Client, read_text};
use rmcp::model::{PaginatedRequestParams, ReadResourceRequestParams, ResourceContents};
use serde_json::Value;

async fn read_json(client: &Client, uri: &str) -> Value {
    serde_json::from_str(&read_text(client, uri).await).unwrap_or_else(|e| panic!("{uri}: {e}"))
}

/// The text and `_meta` of one read.
async fn read_with_meta(client: &Client, uri: &str) -> (String, Value) {
    let result = client
        .read_resource(ReadResourceRequestParams::new(uri))
        .await
        .unwrap_or_else(|e| panic!("read {uri}: {e}"));
    match &result.contents[0] {
        ResourceContents::TextResourceContents { text, meta, .. } => (
            text.clone(),
            serde_json::to_value(meta).unwrap_or(Value::Null),
        ),
        other => panic!("{uri}: expected text, got {other:?}"),
    }
}

fn markdown_files(root: &Path) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let entry = entry.unwrap();
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                continue;
            }
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if name.ends_with(".md") {
                let rel = path
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                found.insert(rel);
            }
        }
    }
    found
}

/// Every served document matches its source file; chunks and anchors check out.
/// Returns the number of documents checked.
async fn check_documents(client: &Client, skills_root: &Path, docs_root: &Path) -> usize {
    let mut documents: Vec<(String, Vec<u8>)> = Vec::new();

    let skills_index = read_json(client, "resource://catalog/skills_index").await;
    for skill in skills_index["skills"].as_array().unwrap() {
        let record = read_json(client, skill["record_uri"].as_str().unwrap()).await;
        let skill_dir = record["skill_uri"]
            .as_str()
            .unwrap()
            .strip_prefix("skill://")
            .unwrap()
            .strip_suffix("/SKILL.md")
            .unwrap()
            .to_owned();
        let dir = skills_root.join(&skill_dir);
        documents.push((
            record["document_uri"].as_str().unwrap().to_owned(),
            std::fs::read(dir.join("SKILL.md")).unwrap(),
        ));
        for reference in record["references"].as_array().unwrap() {
            documents.push((
                reference["uri"].as_str().unwrap().to_owned(),
                std::fs::read(dir.join(reference["path"].as_str().unwrap())).unwrap(),
            ));
        }
    }

    let docs_index = read_json(client, "resource://catalog/docs_index").await;
    let listed: BTreeSet<String> = docs_index["docs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["path"].as_str().unwrap().to_owned())
        .collect();
    // What the compiler serves for each page, computed in-process over the same folders.
    let compiled = skillpack_server::compile::compile(
        &skillpack_server::compile::Config::for_dirs(skills_root, docs_root),
    )
    .unwrap_or_else(|r| panic!("{:#?}", r.errors().collect::<Vec<_>>()));
    let served: std::collections::BTreeMap<String, Vec<u8>> = compiled
        .catalog
        .documents
        .iter()
        .filter(|d| d.kind == skillpack_server::model::DocKind::Doc)
        .map(|d| (d.path.clone(), compiled.read(d.content).unwrap()))
        .collect();
    let plain = compiled.site.flavor == "plain";
    if plain {
        assert_eq!(
            listed,
            markdown_files(docs_root),
            "docs_index lists every .md file"
        );
    } else {
        let pages: BTreeSet<String> = compiled.site.pages.iter().cloned().collect();
        assert_eq!(
            listed, pages,
            "docs_index lists every page the site publishes"
        );
    }
    for doc in docs_index["docs"].as_array().unwrap() {
        let path = doc["path"].as_str().unwrap();
        let source = std::fs::read(docs_root.join(path)).unwrap();
        if plain {
            assert_eq!(
                served[path], source,
                "{path}: a plain tree serves the file as authored"
            );
        }
        documents.push((
            doc["uri"].as_str().unwrap().to_owned(),
            served[path].clone(),
        ));
    }

    for (uri, bytes) in &documents {
        let (text, meta) = read_with_meta(client, uri).await;
        assert_eq!(
            text.as_bytes(),
            bytes.as_slice(),
            "{uri} reads back byte-identical"
        );
        let document = &meta["io.skillpack/document"];
        assert_eq!(document["size"].as_u64(), Some(bytes.len() as u64), "{uri}");

        // Chunks concatenate to the document, and each names its successor.
        let chunks = document["chunks"].as_array().unwrap();
        assert!(!chunks.is_empty(), "{uri} has chunks");
        let mut joined = String::new();
        for (i, chunk) in chunks.iter().enumerate() {
            let (piece, meta) = read_with_meta(client, chunk["uri"].as_str().unwrap()).await;
            assert_eq!(piece.len() as u64, chunk["size"].as_u64().unwrap());
            let next = &meta["io.skillpack/chunk"]["next_chunk_uri"];
            match chunks.get(i + 1) {
                Some(following) => assert_eq!(next, &following["uri"]),
                None => assert!(next.is_null()),
            }
            joined.push_str(&piece);
        }
        assert_eq!(joined, text, "{uri}: chunks concatenate to the document");

        // Every anchor resolves to its section, which starts with its heading.
        for heading in document["outline"].as_array().unwrap() {
            let anchor_uri = heading["uri"].as_str().unwrap();
            let section = read_text(client, anchor_uri).await;
            let (start, end) = (
                heading["start"].as_u64().unwrap() as usize,
                heading["end"].as_u64().unwrap() as usize,
            );
            assert_eq!(section, text[start..end], "{anchor_uri}");
            let first_line = section.lines().next().unwrap_or_default();
            assert!(
                first_line.trim_start_matches('#').trim().len() <= first_line.len(),
                "{anchor_uri} starts at its heading"
            );
        }
    }
    documents.len()
}

/// Listed sizes equal what a read returns.
async fn check_listed_sizes(client: &Client) {
    let resources = client.list_all_resources().await.unwrap();
    assert!(resources.len() >= 3);
    for resource in &resources {
        let text = read_text(client, &resource.uri).await;
        assert_eq!(resource.size, Some(text.len() as u64), "{}", resource.uri);
        assert!(
            resource
                .meta
                .as_ref()
                .is_none_or(|meta| meta.keys().all(|k| k.starts_with("io.skillpack/")))
        );
        let description = resource.description.as_deref().unwrap_or_default();
        assert!(
            !description.is_empty(),
            "{} has a description",
            resource.uri
        );
    }
}

/// The bytes a read of `uri` returns (a binary file's blob decoded).
async fn read_bytes(client: &Client, uri: &str) -> Vec<u8> {
    use base64::Engine;
    let result = client
        .read_resource(ReadResourceRequestParams::new(uri))
        .await
        .unwrap_or_else(|e| panic!("read {uri}: {e}"));
    match &result.contents[0] {
        ResourceContents::TextResourceContents { text, .. } => text.clone().into_bytes(),
        ResourceContents::BlobResourceContents { blob, .. } => {
            base64::engine::general_purpose::STANDARD
                .decode(blob)
                .unwrap_or_else(|e| panic!("{uri}: {e}"))
        }
        other => panic!("{uri}: expected text or a blob, got {other:?}"),
    }
}

/// Every `size` beside a `uri` in the catalog's index resources (the skills and docs
/// indexes and every skill record) is the number of bytes a read of that URI returns: an
/// agent deciding what to read by size must not be misled. Returns how many were checked.
async fn check_sizes_beside_uris(client: &Client) -> usize {
    let skills_index = read_json(client, "resource://catalog/skills_index").await;
    let mut resources = vec![
        skills_index.clone(),
        read_json(client, "resource://catalog/docs_index").await,
    ];
    for skill in skills_index["skills"].as_array().unwrap() {
        resources.push(read_json(client, skill["record_uri"].as_str().unwrap()).await);
    }
    let mut pairs: Vec<(String, u64)> = Vec::new();
    let mut stack: Vec<&Value> = resources.iter().collect();
    while let Some(value) = stack.pop() {
        match value {
            Value::Object(map) => {
                if let (Some(Value::String(uri)), Some(size)) = (map.get("uri"), map.get("size")) {
                    pairs.push((uri.clone(), size.as_u64().expect("a size is a byte count")));
                }
                stack.extend(map.values());
            }
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    for (uri, size) in &pairs {
        let bytes = read_bytes(client, uri).await;
        assert_eq!(bytes.len() as u64, *size, "the size beside {uri}");
    }
    // Each skill is in the index with its document's size.
    for skill in skills_index["skills"].as_array().unwrap() {
        assert!(
            skill["size"].is_u64() && skill["files_bytes"].is_u64(),
            "{skill}"
        );
        assert!(
            skill["files_bytes"].as_u64() >= skill["size"].as_u64(),
            "{skill}"
        );
    }
    pairs.len()
}

#[tokio::test]
async fn builtin_content_reads_back_exactly() {
    let client = common::connect(&common::builtin_binary()).await;
    let root = common::crate_root();
    let checked = check_documents(&client, &root.join("skills"), &root.join("docs")).await;
    assert!(checked >= 10, "checked {checked} documents");
    check_listed_sizes(&client).await;
    let sizes = check_sizes_beside_uris(&client).await;
    assert!(sizes >= checked, "checked {sizes} sizes");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn corpora_content_reads_back_exactly() {
    let Some(binary) = common::corpora_binary() else {
        return;
    };
    let corpora = common::corpora().unwrap();
    let client = common::connect(&binary).await;
    let checked = check_documents(
        &client,
        &corpora.join("anthropic-skills/skills"),
        &corpora.join("rust-book/src"),
    )
    .await;
    assert!(checked > 200, "checked {checked} documents");
    check_listed_sizes(&client).await;
    let sizes = check_sizes_beside_uris(&client).await;
    assert!(sizes >= checked, "checked {sizes} sizes");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn server_identifies_its_catalog() {
    let binary = common::builtin_binary();
    let client = common::connect(&binary).await;
    let info = (*client.peer_info().expect("server info")).clone();
    let fingerprint = String::from_utf8(common::run(&binary, &["fingerprint"]).stdout).unwrap();
    let fingerprint = fingerprint.trim();
    assert!(fingerprint.starts_with("blake3:") && fingerprint.len() == 7 + 64);
    assert_eq!(
        info.server_info.expect("serverInfo").version,
        format!("{}+{}", env!("CARGO_PKG_VERSION"), &fingerprint[7..19])
    );
    let instructions = info.instructions.unwrap_or_default();
    assert!(instructions.contains("resource://catalog/skills_index"));

    let capabilities = read_json(&client, "resource://catalog/capabilities").await;
    assert_eq!(capabilities["server"]["fingerprint"], fingerprint);
    assert!(capabilities["does_not"].as_array().unwrap().len() >= 3);
    let codes: Vec<&str> = capabilities["error_codes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["code"].as_str().unwrap())
        .collect();
    for code in [
        "skill_not_found",
        "doc_not_found",
        "chunk_not_found",
        "invalid_path",
        "cursor_invalid",
    ] {
        assert!(codes.contains(&code), "{code}");
    }

    let templates = client.list_all_resource_templates().await.unwrap();
    let names: Vec<&str> = templates.iter().map(|t| t.uri_template.as_str()).collect();
    for expected in [
        "resource://catalog/skills/{skill_id}",
        "resource://skills/{skill_id}/document",
        "resource://skills/{skill_id}/references/{ref_id}",
        "resource://docs/{path*}",
        "resource://docs/{path*}/chunks/{chunk_id}",
    ] {
        assert!(names.contains(&expected), "{expected} in {names:?}");
    }
    assert!(
        templates
            .iter()
            .all(|t| t.title.is_some() && t.description.is_some())
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn unknown_uris_get_specific_errors_and_the_server_keeps_serving() {
    let client = common::connect(&common::builtin_binary()).await;
    let cases = [
        (
            "resource://skills/agent-friendly-mcpp/document",
            "skill_not_found",
            Some("agent-friendly-mcp"),
        ),
        (
            "resource://skills/agent-friendly-mcp/references/tool",
            "reference_not_found",
            Some("tools"),
        ),
        (
            "resource://docs/quickstar.md",
            "doc_not_found",
            Some("quickstart.md"),
        ),
        (
            "resource://docs/quickstart.md/chunks/nope",
            "chunk_not_found",
            None,
        ),
        (
            "resource://docs/quickstart.md#nope",
            "anchor_not_found",
            None,
        ),
        ("resource://docs/../secrets.md", "invalid_path", None),
        ("resource://docs/%2e%2e/secrets.md", "invalid_path", None),
        ("http://example.com/", "invalid_uri", None),
    ];
    for (uri, code, candidate) in cases {
        let error = client
            .read_resource(ReadResourceRequestParams::new(uri))
            .await
            .expect_err(uri);
        let rmcp::ServiceError::McpError(error) = error else {
            panic!("{uri}: not a JSON-RPC error: {error:?}")
        };
        let data = error.data.expect("error.data");
        assert_eq!(data["machine_code"], code, "{uri}: {data}");
        assert!(
            data["human_message"]
                .as_str()
                .is_some_and(|m| !m.is_empty())
        );
        assert_eq!(
            data["fingerprint"]
                .as_str()
                .map(|f| f.starts_with("blake3:")),
            Some(true)
        );
        if code.ends_with("_not_found") {
            assert_eq!(data["uri"], uri, "SEP-2164 data.uri");
        }
        if let Some(candidate) = candidate {
            let candidates = data["details"]["candidates"].as_array().unwrap();
            assert!(candidates.iter().any(|c| c == candidate), "{uri}: {data}");
        }
        assert!(data["repair"]["alternative"].is_string(), "{uri}: {data}");
    }
    // Still serving.
    assert!(
        read_text(&client, "resource://catalog/capabilities")
            .await
            .contains("fingerprint")
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn resources_list_paginates_with_validated_cursors() {
    let client = common::connect(&common::builtin_binary()).await;
    let first = client
        .list_resources(Some(PaginatedRequestParams::default()))
        .await
        .unwrap();
    assert!(
        first.next_cursor.is_none(),
        "the built-in catalog fits one page"
    );
    let error = client
        .list_resources(Some(
            PaginatedRequestParams::default().with_cursor(Some("bogus".into())),
        ))
        .await
        .expect_err("tampered cursor");
    let rmcp::ServiceError::McpError(error) = error else {
        panic!("{error:?}")
    };
    assert_eq!(error.data.unwrap()["machine_code"], "cursor_invalid");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn modern_stateless_clients_get_cache_hints() {
    let client = common::connect_modern(&common::builtin_binary()).await;
    let result = client
        .read_resource(ReadResourceRequestParams::new(
            "resource://catalog/skills_index",
        ))
        .await
        .unwrap();
    assert_eq!(result.cache_scope, Some(rmcp::model::CacheScope::Public));
    assert!(result.ttl_ms.unwrap_or(0) >= 60 * 60 * 1000);
    let list = client.list_resources(None).await.unwrap();
    assert_eq!(list.cache_scope, Some(rmcp::model::CacheScope::Public));
    client.cancel().await.unwrap();
}
