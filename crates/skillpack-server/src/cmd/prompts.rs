//! Prompts: `orient`, `use-skill`, `find-skill` (in `find_skill`) and one prompt per skill, named after its id, so every
//! skill is a slash command in hosts that show prompts.
//!
//! # Adding a prompt
//!
//! A built-in prompt is a [`PromptDef`] constant: its name, its `prompts/list` entry, how
//! to get it and how to complete its arguments. Add it to [`PROMPTS`] and to
//! `contract::PROMPTS` (the capability summary), and make sure its name is in
//! `compile::skills::RESERVED_PROMPT_NAMES` so no skill can take it (tests check both).
//! Errors are [`CatalogError`]s; the server sends them as JSON-RPC invalid-params errors
//! with the envelope in `error.data`.

use rmcp::model::{
    Annotations, ContentBlock, EmbeddedResource, GetPromptResult, JsonObject, ListPromptsResult,
    Prompt, PromptArgument, PromptMessage, ResourceContents, Role,
};
use serde_json::Value;

use super::completion::{self, Context};
use super::cursor;
use super::errors::{CatalogError, Code, Repair, did_you_mean};
use super::lookup;
use crate::catalog::Catalog;
use crate::contract::{PROMPT_ORIENT, PROMPT_USE_SKILL, PROMPT_WHATS_NEW, TOOL_LIST, TOOL_READ};
use crate::model::{ArchivedDocKind, ArchivedSkill};
use crate::uri::{self, Family};

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

/// The built-in prompts, listed before the per-skill prompts.
pub const PROMPTS: &[PromptDef] = &[
    ORIENT,
    USE_SKILL,
    super::find_skill::PROMPT,
    super::changes::PROMPT,
];

/// Page size of `prompts/list` (native `nextCursor` past it).
pub const PAGE_SIZE: usize = 100;
const LISTING: &str = "prompts";

/// How many skills and docs `orient` names before pointing at `catalog_list`.
const ORIENT_ITEMS: usize = 30;
const ORIENT_DESCRIPTION_CHARS: usize = 200;

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
            None => skill_prompt(catalog, catalog.skill((i - PROMPTS.len()) as u32)),
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
        return use_skill(catalog, name, task);
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
        None => completion::empty(),
    }
}

fn unknown_prompt(catalog: &Catalog, name: &str) -> CatalogError {
    let names = PROMPTS
        .iter()
        .map(|p| p.name)
        .chain(catalog.skills().iter().map(|s| s.id.as_str()));
    let candidates = did_you_mean(name, names, lookup::CANDIDATES);
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

pub(super) fn optional_string<'a>(
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

fn task_argument() -> PromptArgument {
    PromptArgument::new("task")
        .with_title("Task")
        .with_description(
            "What to apply the skill to. Omitted means the task at hand in the conversation.",
        )
        .with_required(false)
}

// ---- orient ---------------------------------------------------------------------------

const ORIENT: PromptDef = PromptDef {
    name: PROMPT_ORIENT,
    definition: orient_definition,
    get: orient_get,
    complete: orient_complete,
};

fn orient_definition(catalog: &Catalog) -> Prompt {
    Prompt::new(
        PROMPT_ORIENT,
        Some(format!(
            "Overview of {}: what it holds, where to start and how to read it without bulk-loading. Give a topic to see only what matches it.",
            catalog.name()
        )),
        Some(vec![
            PromptArgument::new("topic")
                .with_title("Topic")
                .with_description("A word or phrase (a tag, skill id, folder or subject) to narrow the overview to. Omitted means the whole catalog.")
                .with_required(false),
        ]),
    )
    .with_title("Orient: what this catalog holds")
}

fn orient_complete(
    catalog: &Catalog,
    argument: &str,
    value: &str,
    _: Context<'_>,
) -> rmcp::model::CompletionInfo {
    match argument {
        "topic" => completion::from_list(
            value,
            catalog
                .archive()
                .completions
                .topics
                .iter()
                .map(|t| t.as_str()),
        ),
        _ => completion::empty(),
    }
}

/// How many of the topic's words occur in `haystack` (lowercase).
fn matches(words: &[String], haystack: &str) -> usize {
    words
        .iter()
        .filter(|w| haystack.contains(w.as_str()))
        .count()
}

pub(super) fn first_sentences(text: &str, max_chars: usize) -> String {
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if text.chars().count() <= max_chars {
        return text;
    }
    let cut: String = text.chars().take(max_chars).collect();
    format!("{}…", cut.trim_end())
}

fn orient_get(catalog: &Catalog, arguments: &JsonObject) -> Result<GetPromptResult, CatalogError> {
    let topic = optional_string(arguments, "topic")?;
    let words: Vec<String> = topic
        .map(|t| {
            t.to_lowercase()
                .split_whitespace()
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    let totals = &catalog.archive().totals;

    let mut skills: Vec<(usize, &ArchivedSkill)> = catalog
        .skills()
        .iter()
        .map(|s| {
            let haystack = format!(
                "{} {} {} {}",
                s.id,
                s.description,
                s.tags
                    .iter()
                    .map(|t| t.as_str())
                    .collect::<Vec<_>>()
                    .join(" "),
                s.capabilities
                    .iter()
                    .map(|t| t.as_str())
                    .collect::<Vec<_>>()
                    .join(" ")
            )
            .to_lowercase();
            (matches(&words, &haystack), s)
        })
        .filter(|(score, _)| words.is_empty() || *score > 0)
        .collect();
    skills.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.id.as_str().cmp(b.1.id.as_str())));
    let mut docs: Vec<(usize, &crate::model::ArchivedDocument)> = catalog
        .documents()
        .iter()
        .filter(|d| d.kind == ArchivedDocKind::Doc)
        .map(|d| {
            let haystack = format!("{} {} {}", d.path, d.title, d.summary).to_lowercase();
            (matches(&words, &haystack), d)
        })
        .filter(|(score, _)| words.is_empty() || *score > 0)
        .collect();
    docs.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.path.as_str().cmp(b.1.path.as_str())));

    let mut text = format!(
        "# {name}: what this server holds\n\n\
         {skills} Agent Skills and {docs} markdown docs, compiled into this binary (fingerprint \
         {fingerprint}). Read-only and fixed: nothing here changes while the server runs.\n",
        name = catalog.name(),
        skills = totals.skills.to_native(),
        docs = totals.docs.to_native(),
        fingerprint = catalog.fingerprint(),
    );
    if let Some(topic) = topic {
        if skills.is_empty() && docs.is_empty() {
            text.push_str(&format!(
                "\nNothing matches the topic \"{topic}\" by id, tag, title or summary. List everything with {TOOL_LIST} {{}} and {TOOL_LIST} {{\"kind\": \"docs\"}}.\n"
            ));
        } else {
            text.push_str(&format!("\nShowing what matches the topic \"{topic}\".\n"));
        }
    }
    if !skills.is_empty() {
        text.push_str(&format!("\n## Skills ({})\n\n", skills.len()));
        for (_, skill) in skills.iter().take(ORIENT_ITEMS) {
            text.push_str(&format!(
                "- `{}`: {} ({})\n",
                skill.id,
                first_sentences(&skill.description, ORIENT_DESCRIPTION_CHARS),
                uri::skill_document(&skill.id)
            ));
        }
        if skills.len() > ORIENT_ITEMS {
            text.push_str(&format!(
                "- … and {} more: {TOOL_LIST} {{}} lists them all.\n",
                skills.len() - ORIENT_ITEMS
            ));
        }
    }
    if !docs.is_empty() {
        text.push_str(&format!("\n## Docs ({})\n\n", docs.len()));
        for (_, doc) in docs.iter().take(ORIENT_ITEMS) {
            let summary = first_sentences(&doc.summary, ORIENT_DESCRIPTION_CHARS);
            if summary.is_empty() {
                text.push_str(&format!("- {} ({})\n", doc.title, doc.uri));
            } else {
                text.push_str(&format!("- {}: {} ({})\n", doc.title, summary, doc.uri));
            }
        }
        if docs.len() > ORIENT_ITEMS {
            text.push_str(&format!(
                "- … and {} more: {TOOL_LIST} {{\"kind\": \"docs\"}} lists them all.\n",
                docs.len() - ORIENT_ITEMS
            ));
        }
    }
    text.push_str(&format!(
        "\n## How to read it\n\n\
         1. Pick by description from the lists above (or {skills_index} / {docs_index}); do not open items to compare them.\n\
         2. Read a document's summary first: {TOOL_READ} {{\"uri\": \"<uri>\"}} returns its outline, first chunk and chunk catalog.\n\
         3. Then read only the chunk (<uri>/chunks/<id>) or section (<uri>#<anchor>) you need. Do not bulk-load whole documents or the whole catalog.\n\
         4. To follow a skill, get the prompt `{PROMPT_USE_SKILL}` with its id, or read its document and follow it; open its references only when a step needs them.\n\
         5. Errors carry did-you-mean `candidates` and a `repair` call that works as given.\n",
        skills_index = uri::SKILLS_INDEX,
        docs_index = uri::DOCS_INDEX,
    ));
    let startup = &catalog.archive().startup;
    text.push_str(&match startup.earlier_releases.to_native() {
        0 => format!(
            "\nThis is release {}, the first of its chain.\n",
            startup.release
        ),
        n => format!(
            "\nThis is release {}; it knows {n} earlier release(s). If you worked with an earlier one, get the prompt `{PROMPT_WHATS_NEW}` (optional `since`) or read {} and read only what changed: everything else kept its version.\n",
            startup.release,
            uri::CHANGES
        ),
    });
    let mut result = GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)]);
    result.description = Some(match topic {
        Some(topic) => format!("{}: what matches \"{topic}\"", catalog.name()),
        None => format!("{}: overview and where to start", catalog.name()),
    });
    Ok(result)
}

// ---- use-skill and the per-skill prompts ----------------------------------------------

const USE_SKILL: PromptDef = PromptDef {
    name: PROMPT_USE_SKILL,
    definition: use_skill_definition,
    get: use_skill_get,
    complete: use_skill_complete,
};

fn use_skill_definition(catalog: &Catalog) -> Prompt {
    Prompt::new(
        PROMPT_USE_SKILL,
        Some(format!(
            "Load one of the {} skills of {} into the conversation (its SKILL.md, attached) with the instruction to follow it. `skill_id` completes.",
            catalog.skills().len(),
            catalog.name()
        )),
        Some(vec![
            PromptArgument::new("skill_id")
                .with_title("Skill")
                .with_description("The id of the skill to follow (completion lists them).")
                .with_required(true),
            task_argument(),
        ]),
    )
    .with_title("Use a skill")
}

fn use_skill_complete(
    catalog: &Catalog,
    argument: &str,
    value: &str,
    _: Context<'_>,
) -> rmcp::model::CompletionInfo {
    match argument {
        "skill_id" => completion::skill_ids(catalog, value),
        _ => completion::empty(),
    }
}

fn use_skill_get(
    catalog: &Catalog,
    arguments: &JsonObject,
) -> Result<GetPromptResult, CatalogError> {
    let task = optional_string(arguments, "task")?;
    let Some(skill_id) = optional_string(arguments, "skill_id")? else {
        return Err(CatalogError::new(
            Code::InvalidArgument,
            "The prompt use-skill needs `skill_id`.",
        )
        .field("skill_id", "")
        .reason("`skill_id` is required; completion/complete on it lists the skill ids")
        .repair(Repair::list(
            "list_skills",
            "skills",
            None,
            "Complete the argument skill_id, or read resource://catalog/skills_index.",
        )));
    };
    use_skill(catalog, skill_id, task)
}

/// The per-skill prompt (`/pdf`): the same as `use-skill` with that id.
fn skill_prompt(catalog: &Catalog, skill: &ArchivedSkill) -> Prompt {
    Prompt::new(
        skill.id.as_str(),
        Some(first_sentences(&skill.description, 500)),
        Some(vec![task_argument()]),
    )
    .with_title(super::catalog_list::skill_title(catalog, skill))
}

fn use_skill(
    catalog: &Catalog,
    skill_id: &str,
    task: Option<&str>,
) -> Result<GetPromptResult, CatalogError> {
    let Some(index) = catalog.skill_by_id(skill_id) else {
        let document_uri = uri::skill_document(skill_id);
        return Err(lookup::skill_not_found(
            catalog,
            &document_uri,
            &Family::SkillDocument {
                skill_id: skill_id.to_owned(),
            },
            skill_id,
        )
        .field("skill_id", skill_id));
    };
    let skill = catalog.skill(index);
    let document = catalog.document(skill.document.to_native());
    let resource = EmbeddedResource::new(
        ResourceContents::text(catalog.text(document), document.uri.as_str())
            .with_mime_type("text/markdown"),
    )
    .with_annotations(Annotations::default().with_audience(vec![Role::Assistant]));

    let mut instruction = format!(
        "Follow the skill `{id}` attached above ({uri}): it is the authoritative procedure \
         for this task. Do its steps in order and respect its constraints.",
        id = skill.id,
        uri = document.uri,
    );
    if let Some(task) = task {
        instruction.push_str(&format!("\n\nThe task: {task}"));
    }
    if !skill.references.is_empty() {
        instruction.push_str(&format!(
            "\n\nIts references, to read only when a step needs one ({TOOL_READ} {{\"uri\": …}} or resources/read):\n"
        ));
        for reference in skill.references.iter() {
            let doc = catalog.document(reference.document.to_native());
            instruction.push_str(&format!(
                "- `{}`: {} ({} bytes) {}\n",
                reference.id,
                doc.title,
                doc.content.len.to_native(),
                doc.uri
            ));
        }
    }
    let files = catalog.skill_files(skill).len();
    if files > 1 {
        instruction.push_str(&format!(
            "\nIts {files} files (scripts, templates…) are listed in {}; read one by its skill:// URI when a step uses it.",
            uri::skill_record(&skill.id)
        ));
    }
    let mut result = GetPromptResult::new(vec![
        PromptMessage::new(Role::User, ContentBlock::Resource(resource)),
        PromptMessage::new_text(Role::User, instruction),
    ]);
    result.description = Some(format!("Follow the skill {}", skill.id));
    Ok(result)
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
