//! Prompts: their registry, above the prompts themselves (one file each: `orient`,
//! `use_skill` with the per-skill prompts, `find_skill`, `whats_new`), which are made of
//! `cmd::prompt_def`. Every skill is also a prompt named after its id, so it is a slash
//! command in hosts that show prompts.
//!
//! # Adding a prompt
//!
//! A built-in prompt is a [`PromptDef`] constant in its own file: its name, its
//! `prompts/list` entry, how to get it and how to complete its arguments. Add it to
//! [`PROMPTS`] and to `contract::PROMPTS` (the capability summary), and make sure its name
//! is in `compile::skills::RESERVED_PROMPT_NAMES` so no skill can take it (tests check
//! both). Errors are [`CatalogError`]s; the server sends them as JSON-RPC invalid-params
//! errors with the envelope in `error.data`.

use rmcp::model::{GetPromptResult, JsonObject, ListPromptsResult};

use super::cursor;
use super::errors::{CANDIDATES, CatalogError, Code, Repair, did_you_mean};
use super::prompt_def::{PromptDef, optional_string};
use super::suggest::{self, Context};
use super::{find_skill, orient, use_skill, whats_new};
use crate::catalog::Catalog;
use crate::uri;

/// The built-in prompts, listed before the per-skill prompts.
pub const PROMPTS: &[PromptDef] = &[
    orient::PROMPT,
    use_skill::PROMPT,
    find_skill::PROMPT,
    whats_new::PROMPT,
];

/// Page size of `prompts/list` (native `nextCursor` past it).
pub const PAGE_SIZE: usize = 100;
const LISTING: &str = "prompts";

pub fn list(catalog: &Catalog, cursor: Option<&str>) -> Result<ListPromptsResult, CatalogError> {
    let total = PROMPTS.len() + catalog.skills().len();
    let start = match cursor {
        None => 0,
        Some(c) => cursor::decode(catalog, LISTING, c)?,
    };
    if start > total {
        return Err(CatalogError::new(
            Code::CursorInvalid,
            "This cursor points past the end of the listing.",
        )
        .field("cursor", cursor.unwrap_or_default()));
    }
    let end = (start + PAGE_SIZE).min(total);
    let prompts = (start..end)
        .map(|i| match PROMPTS.get(i) {
            Some(def) => (def.definition)(catalog),
            None => use_skill::skill_prompt(catalog.skill((i - PROMPTS.len()) as u32)),
        })
        .collect();
    let mut result = ListPromptsResult::with_all_items(prompts);
    if end < total {
        result.next_cursor = Some(cursor::encode(catalog, LISTING, end));
    }
    Ok(result)
}

pub fn get(
    catalog: &Catalog,
    name: &str,
    arguments: Option<&JsonObject>,
) -> Result<GetPromptResult, CatalogError> {
    let empty = JsonObject::new();
    let arguments = arguments.unwrap_or(&empty);
    if let Some(def) = PROMPTS.iter().find(|p| p.name == name) {
        return (def.get)(catalog, arguments);
    }
    if catalog.skill_by_id(name).is_some() {
        let task = optional_string(arguments, "task")?;
        return use_skill::use_skill(catalog, name, task);
    }
    Err(unknown_prompt(catalog, name))
}

pub fn complete(
    catalog: &Catalog,
    prompt: &str,
    argument: &str,
    value: &str,
    context: Context<'_>,
) -> rmcp::model::CompletionInfo {
    match PROMPTS.iter().find(|p| p.name == prompt) {
        Some(def) => (def.complete)(catalog, argument, value, context),
        // Per-skill prompts take only free text; unknown prompts complete to nothing.
        None => suggest::empty(),
    }
}

fn unknown_prompt(catalog: &Catalog, name: &str) -> CatalogError {
    let names = PROMPTS
        .iter()
        .map(|p| p.name)
        .chain(catalog.skills().iter().map(|s| s.id.as_str()));
    let candidates = did_you_mean(name, names, CANDIDATES);
    let repair = match candidates.first() {
        Some(best) if catalog.skill_by_id(best).is_some() => Repair::read(
            "read_closest_skill",
            &uri::skill_document(best),
            format!("Get the prompt `{best}` instead, or list prompts with prompts/list."),
        ),
        _ => Repair::list(
            "list_skills",
            "skills",
            None,
            "List the prompts with prompts/list: the built-in ones and one per skill id.",
        ),
    };
    CatalogError::new(
        Code::InvalidArgument,
        format!("This server has no prompt `{}`.", uri::shorten(name)),
    )
    .field("name", name)
    .reason(format!(
        "the prompts are {} and one per skill, named after its id",
        PROMPTS
            .iter()
            .map(|p| p.name)
            .collect::<Vec<_>>()
            .join(", ")
    ))
    .candidates(candidates)
    .repair(repair)
}

/// Names of the built-in prompts (for the reserved-name check).
pub fn builtin_names() -> impl Iterator<Item = &'static str> {
    PROMPTS.iter().map(|p| p.name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_in_prompts_are_in_the_contract_and_reserved() {
        let registry: Vec<&str> = builtin_names().collect();
        let contract: Vec<&str> = crate::contract::PROMPTS.iter().map(|p| p.name).collect();
        assert_eq!(registry, contract);
        for name in registry {
            assert!(
                crate::compile::skills::RESERVED_PROMPT_NAMES.contains(&name),
                "{name} must be a reserved skill name"
            );
        }
    }
}
