//! Calling tools, prompts and completion through the real client, for the tests of the
//! agent-facing surface (`tests/tools.rs`, `tests/errors.rs`, `tests/completion.rs`,
//! `tests/prompts.rs`).

use rmcp::model::{CallToolRequestParams, CallToolResult, Tool};
use serde_json::{Map, Value};

use super::Client;

/// A tool call's outcome: `structuredContent`, whether it is an error, and its text.
pub struct Outcome {
    pub structured: Value,
    pub is_error: bool,
    pub text: String,
}

/// `cursor` with one character near its end changed: still well-formed base64, but not
/// a cursor this server issued.
pub fn tampered(cursor: &str) -> String {
    let mut bytes = cursor.as_bytes().to_vec();
    let last = bytes.len() - 2;
    bytes[last] = if bytes[last] == b'A' { b'B' } else { b'A' };
    String::from_utf8(bytes).unwrap()
}

pub fn arguments(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("tool arguments must be an object, not {other}"),
    }
}

pub async fn call_raw(client: &Client, name: &str, args: Value) -> CallToolResult {
    client
        .call_tool(CallToolRequestParams::new(name.to_owned()).with_arguments(arguments(args)))
        .await
        .unwrap_or_else(|e| panic!("tools/call {name}: {e}"))
}

pub async fn call(client: &Client, name: &str, args: Value) -> Outcome {
    let result = call_raw(client, name, args).await;
    let text = result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n");
    Outcome {
        structured: result.structured_content.clone().unwrap_or(Value::Null),
        is_error: result.is_error.unwrap_or(false),
        text,
    }
}

/// A successful call's `structuredContent` (panics with the error envelope otherwise).
pub async fn ok(client: &Client, name: &str, args: Value) -> Value {
    let shown = args.to_string();
    let outcome = call(client, name, args).await;
    assert!(
        !outcome.is_error,
        "{name} {shown} failed: {}",
        outcome.structured
    );
    outcome.structured
}

/// A failed call's envelope (panics if the call succeeded).
pub async fn err(client: &Client, name: &str, args: Value) -> Value {
    let shown = args.to_string();
    let outcome = call(client, name, args).await;
    assert!(outcome.is_error, "{name} {shown} should fail");
    outcome.structured
}

/// Run an envelope's `repair` call exactly as given; it must succeed.
pub async fn run_repair(client: &Client, envelope: &Value) -> Value {
    let repair = &envelope["repair"];
    let tool = repair["tool"]
        .as_str()
        .unwrap_or_else(|| panic!("no repair tool in {envelope}"));
    ok(client, tool, repair["arguments"].clone()).await
}

pub async fn tools(client: &Client) -> Vec<Tool> {
    client.list_all_tools().await.expect("tools/list")
}

/// A validator for a tool's own `outputSchema`.
pub fn output_validator(tool: &Tool) -> jsonschema::Validator {
    let schema = Value::Object(
        tool.output_schema
            .as_deref()
            .cloned()
            .unwrap_or_else(|| panic!("{} has no outputSchema", tool.name)),
    );
    jsonschema::draft202012::new(&schema)
        .unwrap_or_else(|e| panic!("{}: outputSchema does not compile: {e}", tool.name))
}

/// Assert that `value` matches the schema, listing every violation.
pub fn assert_valid(validator: &jsonschema::Validator, value: &Value, what: &str) {
    let errors: Vec<String> = validator
        .iter_errors(value)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "{what} violates its outputSchema: {errors:#?}"
    );
}
