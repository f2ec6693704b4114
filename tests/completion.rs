//! `completion/complete` through the real binary over stdio, for every template variable
//! and every prompt argument: prefix matches first, then fuzzy ones, context-dependent
//! variables, empty answers for what cannot be completed, and the 100-value cap.

use crate::common;

use std::collections::HashMap;

use common::Client;
use rmcp::model::{CompletionContext, CompletionInfo};

const RECORD: &str = "resource://catalog/skills/{skill_id}";
const DOCUMENT: &str = "resource://skills/{skill_id}/document";
const REFERENCE: &str = "resource://skills/{skill_id}/references/{ref_id}";
const DOC: &str = "resource://docs/{path*}";
const DOCUMENT_CHUNK: &str = "resource://skills/{skill_id}/document/chunks/{chunk_id}";
const REFERENCE_CHUNK: &str = "resource://skills/{skill_id}/references/{ref_id}/chunks/{chunk_id}";
const DOC_CHUNK: &str = "resource://docs/{path*}/chunks/{chunk_id}";
const DOCUMENT_SECTION: &str = "resource://skills/{skill_id}/document{#anchor}";
const REFERENCE_SECTION: &str = "resource://skills/{skill_id}/references/{ref_id}{#anchor}";
const DOC_SECTION: &str = "resource://docs/{path*}{#anchor}";

fn context(pairs: &[(&str, &str)]) -> Option<CompletionContext> {
    (!pairs.is_empty()).then(|| {
        CompletionContext::with_arguments(
            pairs
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect::<HashMap<_, _>>(),
        )
    })
}

async fn template(
    client: &Client,
    uri_template: &str,
    argument: &str,
    value: &str,
    pairs: &[(&str, &str)],
) -> CompletionInfo {
    client
        .complete_resource_argument(uri_template, argument, value, context(pairs))
        .await
        .unwrap_or_else(|e| panic!("complete {uri_template} {argument}={value:?}: {e}"))
}

async fn prompt(client: &Client, name: &str, argument: &str, value: &str) -> CompletionInfo {
    client
        .complete_prompt_argument(name, argument, value, None)
        .await
        .unwrap_or_else(|e| panic!("complete prompt {name} {argument}={value:?}: {e}"))
}

fn values(info: &CompletionInfo) -> Vec<&str> {
    info.values.iter().map(String::as_str).collect()
}

fn assert_empty(info: &CompletionInfo, what: &str) {
    assert!(info.values.is_empty(), "{what}: {info:?}");
    assert_eq!(info.total, Some(0), "{what}");
    assert_eq!(info.has_more, Some(false), "{what}");
}

/// Totals and `hasMore` are consistent with the values sent.
fn assert_counted(info: &CompletionInfo, what: &str) {
    assert!(info.values.len() <= 100, "{what}");
    let total = info.total.expect("total") as usize;
    assert!(total >= info.values.len(), "{what}");
    assert_eq!(info.has_more, Some(total > info.values.len()), "{what}");
}

#[tokio::test]
async fn skill_ids_complete_by_prefix_then_fuzzy() {
    let client = common::connect(&common::builtin_binary()).await;
    for uri_template in [
        RECORD,
        DOCUMENT,
        REFERENCE,
        DOCUMENT_CHUNK,
        REFERENCE_SECTION,
    ] {
        // Prefix.
        let info = template(&client, uri_template, "skill_id", "agent", &[]).await;
        assert_eq!(values(&info)[0], "agent-friendly-mcp", "{uri_template}");
        assert_counted(&info, uri_template);
        // Empty value: every skill, sorted.
        let info = template(&client, uri_template, "skill_id", "", &[]).await;
        assert_eq!(
            values(&info),
            [
                "agent-friendly-mcp",
                "navigating-a-catalog",
                "releasing-a-catalog",
                "writing-skillpack-skills"
            ]
        );
        assert_eq!(info.total, Some(4));
    }
    // Fuzzy: a subsequence ("rls" in releasing-a-catalog), and a typo.
    let info = template(&client, DOCUMENT, "skill_id", "rlscat", &[]).await;
    assert_eq!(
        values(&info).first(),
        Some(&"releasing-a-catalog"),
        "{info:?}"
    );
    let info = template(&client, DOCUMENT, "skill_id", "agent-friendly-mcq", &[]).await;
    assert_eq!(values(&info), ["agent-friendly-mcp"]);
    // Prefix matches come before fuzzy ones: "writing" starts one id and is a
    // subsequence of none other.
    let info = template(&client, DOCUMENT, "skill_id", "wri", &[]).await;
    assert_eq!(values(&info)[0], "writing-skillpack-skills");
    // Nothing like it.
    assert_empty(
        &template(&client, DOCUMENT, "skill_id", "zzzzzzzz", &[]).await,
        "no skill",
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn ref_ids_complete_within_the_skill_in_context() {
    let client = common::connect(&common::builtin_binary()).await;
    let skill = [("skill_id", "agent-friendly-mcp")];
    let info = template(&client, REFERENCE, "ref_id", "", &skill).await;
    assert_eq!(info.total, Some(9));
    assert_eq!(values(&info)[0], "discovery", "sorted: {info:?}");
    let info = template(&client, REFERENCE, "ref_id", "to", &skill).await;
    assert_eq!(&values(&info)[..2], ["token-efficiency", "tools"]);
    // Fuzzy within the skill.
    let info = template(&client, REFERENCE, "ref_id", "failrec", &skill).await;
    assert_eq!(values(&info)[0], "failure-recovery");
    // Another skill has other references.
    let info = template(
        &client,
        REFERENCE,
        "ref_id",
        "",
        &[("skill_id", "navigating-a-catalog")],
    )
    .await;
    assert_eq!(values(&info), ["tool-fallbacks", "uris"]);
    // Without the skill in context, or with an unknown one: nothing to complete.
    assert_empty(
        &template(&client, REFERENCE, "ref_id", "to", &[]).await,
        "no context",
    );
    assert_empty(
        &template(&client, REFERENCE, "ref_id", "to", &[("skill_id", "nope")]).await,
        "unknown skill",
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn doc_paths_complete_segment_by_segment() {
    let client = common::connect(&common::builtin_binary()).await;
    // The top level: folders (with a trailing slash) and files, as on disk.
    let docs = common::crate_root().join("docs");
    let entries = |dir: &str| -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(docs.join(dir))
            .unwrap()
            .map(|e| e.unwrap())
            .filter_map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                let path = if dir.is_empty() {
                    name.clone()
                } else {
                    format!("{dir}/{name}")
                };
                if name.starts_with('.') {
                    None
                } else if e.file_type().unwrap().is_dir() {
                    Some(format!("{path}/"))
                } else {
                    name.ends_with(".md").then_some(path)
                }
            })
            .collect();
        names.sort();
        names
    };
    let info = template(&client, DOC, "path", "", &[]).await;
    assert_eq!(values(&info), entries(""));
    assert!(values(&info).contains(&"reference/"));
    // A partial first segment completes to the folder first.
    let info = template(&client, DOC, "path", "ref", &[]).await;
    assert_eq!(values(&info)[0], "reference/");
    // Inside a folder: its entries.
    let info = template(&client, DOC, "path", "reference/", &[]).await;
    assert_eq!(values(&info), entries("reference"));
    let info = template(&client, DOC, "path", "reference/t", &[]).await;
    assert_eq!(values(&info)[0], "reference/tools-and-prompts.md");
    // Fuzzy over whole paths, and a typo in the last segment.
    let info = template(&client, DOC, "path", "uris", &[]).await;
    assert_eq!(values(&info)[0], "reference/uris.md");
    let info = template(&client, DOC, "path", "reference/uri.md", &[]).await;
    assert!(values(&info).contains(&"reference/uris.md"), "{info:?}");
    // The chunk and section templates complete `path` the same way.
    for uri_template in [DOC_CHUNK, DOC_SECTION] {
        let info = template(&client, uri_template, "path", "auth", &[]).await;
        assert_eq!(values(&info)[0], "authoring/");
    }
    assert_empty(
        &template(&client, DOC, "path", "zzzzzzzzzz/", &[]).await,
        "no folder",
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn chunk_ids_and_anchors_complete_for_the_document_in_context() {
    let client = common::connect(&common::builtin_binary()).await;
    let quickstart = [("path", "quickstart.md")];
    // Chunk ids in reading order.
    let info = template(&client, DOC_CHUNK, "chunk_id", "", &quickstart).await;
    assert_eq!(info.total, Some(7));
    assert_eq!(values(&info)[0], "quick-start");
    let info = template(&client, DOC_CHUNK, "chunk_id", "build", &quickstart).await;
    assert_eq!(values(&info), ["build-a-binary", "build-your-own-catalog"]);
    let info = template(&client, DOC_CHUNK, "chunk_id", "regclient", &quickstart).await;
    assert_eq!(values(&info)[0], "register-with-a-client");
    // Anchors of the same doc.
    let info = template(&client, DOC_SECTION, "anchor", "next", &quickstart).await;
    assert_eq!(values(&info), ["next-steps"]);
    // A skill document: identified by skill_id.
    let skill = [("skill_id", "agent-friendly-mcp")];
    let info = template(&client, DOCUMENT_CHUNK, "chunk_id", "check", &skill).await;
    assert_eq!(values(&info)[0], "checklist");
    let info = template(&client, DOCUMENT_SECTION, "anchor", "work", &skill).await;
    assert_eq!(values(&info)[0], "workflow");
    // A reference: identified by skill_id and ref_id.
    let reference = [("skill_id", "agent-friendly-mcp"), ("ref_id", "tools")];
    let info = template(&client, REFERENCE_CHUNK, "chunk_id", "", &reference).await;
    assert!(info.total >= Some(2), "{info:?}");
    let first = values(&info)[0].to_owned();
    let info = template(
        &client,
        REFERENCE_SECTION,
        "anchor",
        &first[..3],
        &reference,
    )
    .await;
    assert!(!info.values.is_empty());
    // The completed chunk reads.
    let uri = format!("resource://skills/agent-friendly-mcp/references/tools/chunks/{first}");
    assert!(!common::read_text(&client, &uri).await.is_empty());
    // Without the document in context, or with a partial one: nothing.
    assert_empty(
        &template(&client, DOC_CHUNK, "chunk_id", "b", &[]).await,
        "no path",
    );
    assert_empty(
        &template(&client, REFERENCE_CHUNK, "chunk_id", "", &skill).await,
        "reference without ref_id",
    );
    assert_empty(
        &template(&client, DOC_CHUNK, "chunk_id", "", &[("path", "nope.md")]).await,
        "unknown doc",
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn prompt_arguments_complete() {
    let client = common::connect(&common::builtin_binary()).await;
    let info = prompt(&client, "use-skill", "skill_id", "nav").await;
    assert_eq!(values(&info), ["navigating-a-catalog"]);
    let info = prompt(&client, "use-skill", "skill_id", "").await;
    assert_eq!(info.total, Some(4));
    let info = prompt(&client, "orient", "topic", "rel").await;
    assert!(
        values(&info).contains(&"release"),
        "tags are topics: {info:?}"
    );
    assert!(values(&info).contains(&"releasing-a-catalog"), "{info:?}");
    let info = prompt(&client, "orient", "topic", "refer").await;
    assert!(
        values(&info).contains(&"reference"),
        "doc folders are topics: {info:?}"
    );
    // Free-text arguments and prompts without arguments complete to nothing.
    assert_empty(&prompt(&client, "use-skill", "task", "fix").await, "task");
    assert_empty(
        &prompt(&client, "agent-friendly-mcp", "task", "").await,
        "per-skill",
    );
    client.cancel().await.unwrap();
}

/// What the conformance scenario `completion-complete` sends: a prompt this server does
/// not have. The answer is an empty list, not an error; so is an unknown template.
#[tokio::test]
async fn unknown_references_complete_to_nothing() {
    let client = common::connect(&common::builtin_binary()).await;
    assert_empty(
        &prompt(&client, "test_prompt_with_arguments", "arg1", "test").await,
        "prompt",
    );
    assert_empty(
        &template(&client, "test://template/{id}/data", "id", "1", &[]).await,
        "template",
    );
    assert_empty(
        &template(&client, DOC, "skill_id", "a", &[]).await,
        "not a variable of it",
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn corpora_completion_caps_at_one_hundred() {
    let Some(binary) = common::corpora_binary() else {
        return;
    };
    let client = common::connect(&binary).await;
    // 111 docs at the top level of the Rust book.
    let info = template(&client, DOC, "path", "", &[]).await;
    assert_eq!(info.values.len(), 100);
    assert!(info.total > Some(100), "{info:?}");
    assert_eq!(info.has_more, Some(true));
    let info = template(&client, DOC, "path", "ch1", &[]).await;
    assert!(
        values(&info)
            .iter()
            .take_while(|p| p.starts_with("ch1"))
            .count()
            > 10
    );
    assert_counted(&info, "ch1");
    // Chunk ids of a large doc.
    let info = template(
        &client,
        DOC_CHUNK,
        "chunk_id",
        "",
        &[("path", "ch02-00-guessing-game-tutorial.md")],
    )
    .await;
    assert!(info.total > Some(3), "{info:?}");
    let info = template(&client, DOCUMENT, "skill_id", "canvs", &[]).await;
    assert_eq!(values(&info)[0], "canvas-design", "{info:?}");
    client.cancel().await.unwrap();
}
