//! Prompt `orient`: what the catalog holds, where to start and how to read it without
//! bulk-loading; with a `topic`, only what matches it.

use rmcp::model::{GetPromptResult, JsonObject, Prompt, PromptArgument, PromptMessage, Role};

use super::errors::CatalogError;
use super::prompt_def::{PromptDef, first_sentences, optional_string};
use super::suggest::{self, Context};
use crate::catalog::Catalog;
use crate::contract::{PROMPT_ORIENT, PROMPT_USE_SKILL, PROMPT_WHATS_NEW, TOOL_LIST, TOOL_READ};
use crate::model::{ArchivedDocKind, ArchivedSkill};
use crate::uri;

/// How many skills and docs `orient` names before pointing at `catalog_list`.
const ORIENT_ITEMS: usize = 30;
const ORIENT_DESCRIPTION_CHARS: usize = 200;

pub const PROMPT: PromptDef = PromptDef {
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
        "topic" => suggest::from_list(
            value,
            catalog
                .archive()
                .completions
                .topics
                .iter()
                .map(|t| t.as_str()),
        ),
        _ => suggest::empty(),
    }
}

/// How many of the topic's words occur in `haystack` (lowercase).
fn matches(words: &[String], haystack: &str) -> usize {
    words
        .iter()
        .filter(|w| haystack.contains(w.as_str()))
        .count()
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
         2. Read a document's summary first: {TOOL_READ} {{\"uri\": \"<uri>\"}} returns a small document whole, a larger one as its outline with each section's size and URI.\n\
         3. Then read only the section (<uri>#<anchor>) or chunk (<uri>/chunks/<id>) you need. Do not bulk-load whole documents or the whole catalog.\n\
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
