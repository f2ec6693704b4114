//! Prompt `whats-new`: what changed since an earlier release (optional `since`), grouped
//! by skill and doc, with the section and document URIs to read — and only those.

use rmcp::model::{GetPromptResult, JsonObject, Prompt, PromptArgument, PromptMessage, Role};

use super::changes;
use super::errors::CatalogError;
use super::prompt_def::{PromptDef, optional_string};
use super::suggest::{self, Context};
use crate::catalog::Catalog;
use crate::contract::{PROMPT_WHATS_NEW, TOOL_READ};
use crate::uri;

/// At most this many documents and files are itemised in the prompt; the rest are counted
/// and left to `catalog_list {"kind": "changes"}`.
const PROMPT_ENTRIES: usize = 100;

pub const PROMPT: PromptDef = PromptDef {
    name: PROMPT_WHATS_NEW,
    definition: prompt_definition,
    get: prompt_get,
    complete: prompt_complete,
};

fn prompt_definition(catalog: &Catalog) -> Prompt {
    Prompt::new(
        PROMPT_WHATS_NEW,
        Some(format!(
            "What changed in {} since an earlier release, grouped by skill and doc, with the section and document URIs to read — and only those. {} earlier release(s) known.",
            catalog.name(),
            changes::earlier(catalog).len()
        )),
        Some(vec![
            PromptArgument::new("since")
                .with_title("Since")
                .with_description("The release you knew: its label, a fingerprint prefix (12+ hex digits) or a date (YYYY-MM-DD: the latest release on or before it); completion lists them. Omitted means the previous release.")
                .with_required(false),
        ]),
    )
    .with_title("What's new since a release")
}

fn prompt_complete(
    catalog: &Catalog,
    argument: &str,
    value: &str,
    _: Context<'_>,
) -> rmcp::model::CompletionInfo {
    match argument {
        "since" => changes::complete_since(catalog, value),
        _ => suggest::empty(),
    }
}

fn prompt_get(catalog: &Catalog, arguments: &JsonObject) -> Result<GetPromptResult, CatalogError> {
    let since = optional_string(arguments, "since")?;
    let which = changes::resolve(catalog, since)
        .map_err(|e| e.field("since", since.unwrap_or_default()))?;
    let mut text = changes::markdown(catalog, which, PROMPT_ENTRIES);
    if !changes::earlier(catalog).is_empty() && !changes::entries(catalog, which).is_empty() {
        text.push_str(&format!(
            "\nRead only the URIs listed above, with resources/read or {TOOL_READ} {{\"uri\": …}}: \
             they are what changed. Everything else kept its bytes and its version (in _meta), \
             so what you know of it from that release still holds. Removed entries have \
             nothing to read: forget them. The same list as JSON: {}.\n",
            uri::changes(&changes::since_name(catalog, which))
        ));
    }
    let mut result = GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)]);
    result.description = Some(if changes::earlier(catalog).is_empty() {
        format!("{}: the first release of its chain", catalog.name())
    } else {
        format!(
            "{}: what changed since {}",
            catalog.name(),
            changes::since_release(catalog, which).name()
        )
    });
    Ok(result)
}
