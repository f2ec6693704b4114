//! What every prompt is made of: a [`PromptDef`] (name, definition, get, complete) and the
//! helpers their arguments share. Below the prompts; their registry is `cmd::prompts`.

use rmcp::model::{GetPromptResult, JsonObject, Prompt, PromptArgument};
use serde_json::Value;

use super::errors::{CatalogError, Code};
use super::suggest::Context;
use crate::catalog::Catalog;

/// A built-in prompt.
pub struct PromptDef {
    pub name: &'static str,
    /// The `prompts/list` entry.
    pub definition: fn(&Catalog) -> Prompt,
    /// `prompts/get` with the request's arguments.
    pub get: fn(&Catalog, &JsonObject) -> Result<GetPromptResult, CatalogError>,
    /// `completion/complete` of one argument.
    pub complete: fn(&Catalog, &str, &str, Context<'_>) -> rmcp::model::CompletionInfo,
}

pub fn optional_string<'a>(
    arguments: &'a JsonObject,
    name: &'static str,
) -> Result<Option<&'a str>, CatalogError> {
    match arguments.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.trim())),
        Some(other) => Err(CatalogError::new(
            Code::InvalidArgument,
            format!("The prompt argument `{name}` must be a string."),
        )
        .field(name, other.to_string())
        .reason("prompt arguments are strings")),
    }
}

/// The optional `task` argument of `use-skill` and the per-skill prompts.
pub fn task_argument() -> PromptArgument {
    PromptArgument::new("task")
        .with_title("Task")
        .with_description(
            "What to apply the skill to. Omitted means the task at hand in the conversation.",
        )
        .with_required(false)
}

/// The first `max_chars` characters of `text`, whitespace collapsed, with `…` when cut.
pub fn first_sentences(text: &str, max_chars: usize) -> String {
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if text.chars().count() <= max_chars {
        return text;
    }
    let cut: String = text.chars().take(max_chars).collect();
    format!("{}…", cut.trim_end())
}
