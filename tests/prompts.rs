//! Prompts through the real binary over stdio (`prompts/list`, `prompts/get` for each,
//! errors), and the build-time rules that keep them sound: a skill may not be named like
//! a built-in prompt, and an over-long description gets a warning.

use crate::common;

use std::path::Path;

use common::{Client, read_text};
use rmcp::model::{ContentBlock, GetPromptRequestParams, ResourceContents, Role};
use serde_json::{Map, Value, json};
use skillpack_server::compile::{self, Config, Severity};

async fn get(client: &Client, name: &str, args: Value) -> rmcp::model::GetPromptResult {
    let mut request = GetPromptRequestParams::new(name);
    if let Value::Object(map) = args {
        request = request.with_arguments(map);
    }
    client
        .get_prompt(request)
        .await
        .unwrap_or_else(|e| panic!("prompts/get {name}: {e}"))
}

async fn get_error(client: &Client, name: &str, args: Map<String, Value>) -> Value {
    let error = client
        .get_prompt(GetPromptRequestParams::new(name).with_arguments(args))
        .await
        .expect_err(name);
    let rmcp::ServiceError::McpError(error) = error else {
        panic!("{name}: {error:?}")
    };
    assert_eq!(error.code, rmcp::model::ErrorCode::INVALID_PARAMS, "{name}");
    error.data.expect("error.data")
}

fn text_of(block: &ContentBlock) -> &str {
    block.as_text().map(|t| t.text.as_str()).unwrap_or_default()
}

async fn skill_ids(client: &Client) -> Vec<String> {
    let index: Value =
        serde_json::from_str(&read_text(client, "resource://catalog/skills_index").await).unwrap();
    index["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap().to_owned())
        .collect()
}

/// A skill prompt's result: the SKILL.md embedded for the assistant, then the
/// instruction to follow it.
async fn check_skill_prompt(
    client: &Client,
    result: &rmcp::model::GetPromptResult,
    skill_id: &str,
) {
    assert_eq!(result.messages.len(), 2, "{skill_id}");
    let ContentBlock::Resource(embedded) = &result.messages[0].content else {
        panic!("{skill_id}: first message is not an embedded resource")
    };
    let uri = format!("resource://skills/{skill_id}/document");
    let ResourceContents::TextResourceContents {
        uri: embedded_uri,
        text,
        mime_type,
        ..
    } = &embedded.resource
    else {
        panic!("{skill_id}: not text")
    };
    assert_eq!(embedded_uri, &uri);
    assert_eq!(mime_type.as_deref(), Some("text/markdown"));
    assert_eq!(
        text,
        &read_text(client, &uri).await,
        "{skill_id}: the SKILL.md as served"
    );
    let audience = embedded
        .annotations
        .as_ref()
        .and_then(|a| a.audience.clone())
        .expect("audience");
    assert_eq!(audience, [Role::Assistant]);
    let instruction = text_of(&result.messages[1].content);
    assert!(instruction.contains("Follow the skill"), "{instruction}");
    assert!(instruction.contains(skill_id));
}

#[tokio::test]
async fn prompts_list_has_the_built_ins_and_one_per_skill() {
    let client = common::connect(&common::builtin_binary()).await;
    let prompts = client.list_all_prompts().await.unwrap();
    let names: Vec<&str> = prompts.iter().map(|p| p.name.as_str()).collect();
    let mut expected = vec![
        "orient".to_owned(),
        "use-skill".to_owned(),
        "find-skill".to_owned(),
        "whats-new".to_owned(),
    ];
    expected.extend(skill_ids(&client).await);
    assert_eq!(names, expected);
    for prompt in &prompts {
        assert!(
            prompt.description.as_deref().is_some_and(|d| !d.is_empty()),
            "{}",
            prompt.name
        );
        assert!(prompt.title.is_some(), "{}", prompt.name);
    }
    let use_skill = prompts.iter().find(|p| p.name == "use-skill").unwrap();
    let arguments = use_skill.arguments.as_ref().unwrap();
    assert_eq!(arguments[0].name, "skill_id");
    assert_eq!(arguments[0].required, Some(true));
    let find_skill = prompts.iter().find(|p| p.name == "find-skill").unwrap();
    let arguments = find_skill.arguments.as_ref().unwrap();
    assert_eq!(arguments[0].name, "task");
    assert_eq!(arguments[0].required, Some(true));
    let orient = prompts.iter().find(|p| p.name == "orient").unwrap();
    assert_eq!(orient.arguments.as_ref().unwrap()[0].required, Some(false));
    // The per-skill prompt is titled by the skill's heading.
    let skill = prompts
        .iter()
        .find(|p| p.name == "agent-friendly-mcp")
        .unwrap();
    assert_eq!(skill.title.as_deref(), Some("Agent-friendly MCP"));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn every_prompt_gets() {
    let client = common::connect(&common::builtin_binary()).await;
    // orient: the whole catalog, then narrowed by a topic.
    let overview = get(&client, "orient", json!({})).await;
    let text = text_of(&overview.messages[0].content).to_owned();
    for id in skill_ids(&client).await {
        assert!(text.contains(&format!("`{id}`")), "orient names {id}");
    }
    assert!(text.contains("resource://docs/quickstart.md"));
    assert!(text.contains("Do not bulk-load"));
    let narrowed = get(&client, "orient", json!({"topic": "release"})).await;
    let narrowed = text_of(&narrowed.messages[0].content).to_owned();
    assert!(narrowed.contains("`releasing-a-catalog`"), "{narrowed}");
    assert!(!narrowed.contains("`agent-friendly-mcp`"), "{narrowed}");
    assert!(narrowed.len() < text.len());
    let nothing = get(&client, "orient", json!({"topic": "zzzzqqqq"})).await;
    assert!(text_of(&nothing.messages[0].content).contains("Nothing matches"));

    // find-skill: the skills that match, best first, with descriptions and URIs (more in
    // tests/search.rs).
    let found = get(
        &client,
        "find-skill",
        json!({"task": "pin a release by fingerprint"}),
    )
    .await;
    let found = text_of(&found.messages[0].content).to_owned();
    assert!(found.contains("1. `"), "{found}");
    assert!(found.contains("resource://skills/"), "{found}");

    // use-skill and the per-skill prompt, for every skill.
    for id in skill_ids(&client).await {
        let result = get(&client, "use-skill", json!({"skill_id": id})).await;
        check_skill_prompt(&client, &result, &id).await;
        let result = get(&client, &id, json!({})).await;
        check_skill_prompt(&client, &result, &id).await;
        let result = get(&client, &id, json!({"task": "review my server"})).await;
        assert!(text_of(&result.messages[1].content).contains("review my server"));
    }
    // References are named with their URIs so the model can open one when needed.
    let result = get(
        &client,
        "use-skill",
        json!({"skill_id": "agent-friendly-mcp"}),
    )
    .await;
    assert!(
        text_of(&result.messages[1].content)
            .contains("resource://skills/agent-friendly-mcp/references/tools")
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn prompt_errors_are_invalid_params_with_the_envelope() {
    let client = common::connect(&common::builtin_binary()).await;
    // A one-letter typo of a skill id suggests the right id.
    let mut args = Map::new();
    args.insert("skill_id".into(), "navigating-a-katalog".into());
    let data = get_error(&client, "use-skill", args).await;
    assert_eq!(data["machine_code"], "skill_not_found");
    assert_eq!(data["details"]["field"], "skill_id");
    assert_eq!(data["details"]["candidates"][0], "navigating-a-catalog");
    common::tools::run_repair(&client, &data).await;
    // Missing argument.
    let data = get_error(&client, "use-skill", Map::new()).await;
    assert_eq!(data["machine_code"], "invalid_argument");
    assert_eq!(data["details"]["field"], "skill_id");
    common::tools::run_repair(&client, &data).await;
    // Unknown prompt: the closest prompt names.
    let data = get_error(&client, "orientt", Map::new()).await;
    assert_eq!(data["machine_code"], "invalid_argument");
    assert_eq!(data["details"]["candidates"][0], "orient");
    let data = get_error(&client, "releasing-a-catalgo", Map::new()).await;
    assert_eq!(data["details"]["candidates"][0], "releasing-a-catalog");
    let repaired = common::tools::run_repair(&client, &data).await;
    assert_eq!(
        repaired["uri"],
        "resource://skills/releasing-a-catalog/document"
    );
    // Wrong argument type.
    let mut args = Map::new();
    args.insert("topic".into(), json!(["a"]));
    let data = get_error(&client, "orient", args).await;
    assert_eq!(data["details"]["field"], "topic");
    client.cancel().await.unwrap();
}

fn write(root: &Path, path: &str, text: &str) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn config(root: &Path, strict: bool) -> Config {
    let mut config = Config::for_dirs(root.join("skills"), root.join("docs"));
    config.strict = strict;
    config
}

#[test]
fn a_skill_named_like_a_built_in_prompt_does_not_compile() {
    let dir = tempfile::tempdir().unwrap();
    for name in skillpack_server::cmd::prompts::builtin_names() {
        write(
            dir.path(),
            &format!("skills/{name}/SKILL.md"),
            &format!("---\nname: {name}\ndescription: Collides with a prompt.\n---\n\n# {name}\n"),
        );
    }
    write(dir.path(), "docs/index.md", "# Docs\n");
    let report = match compile::compile(&config(dir.path(), false)) {
        Ok(_) => panic!("a skill named like a built-in prompt compiled"),
        Err(report) => report,
    };
    for name in skillpack_server::cmd::prompts::builtin_names() {
        assert!(
            report
                .diagnostics
                .iter()
                .any(|d| d.severity == Severity::Error
                    && d.to_string()
                        .contains(&format!("collides with the built-in prompt `{name}`"))
                    && d.to_string().contains(&format!("{name}/SKILL.md"))),
            "{name}: {:#?}",
            report.diagnostics
        );
    }
}

#[test]
fn a_description_longer_than_hosts_list_warns() {
    let dir = tempfile::tempdir().unwrap();
    let long = "Fills PDF forms and extracts fields. ".repeat(20);
    assert!(long.len() > 500 && long.len() < 1024);
    write(
        dir.path(),
        "skills/pdf-forms/SKILL.md",
        &format!("---\nname: pdf-forms\ndescription: {long}\n---\n\n# PDF forms\n"),
    );
    write(
        dir.path(),
        "skills/short/SKILL.md",
        "---\nname: short\ndescription: Short and clear. Use when testing.\n---\n\n# Short\n",
    );
    write(dir.path(), "docs/index.md", "# Docs\n");
    let output = compile::compile(&config(dir.path(), false)).expect("compiles with a warning");
    let warnings: Vec<String> = output.report.warnings().map(|w| w.to_string()).collect();
    assert_eq!(warnings.len(), 1, "{warnings:#?}");
    assert!(
        warnings[0].contains("pdf-forms/SKILL.md"),
        "{}",
        warnings[0]
    );
    assert!(warnings[0].contains("skill listings"), "{}", warnings[0]);
    // Strict mode makes it an error.
    let report = compile::compile(&config(dir.path(), true))
        .err()
        .expect("strict fails");
    assert!(
        report
            .errors()
            .any(|e| e.to_string().contains("skill listings"))
    );
}
