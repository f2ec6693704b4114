//! Prompt `find-skill`: the skills that best match a task, by search over skill documents
//! and their references ([`crate::search`]), each with its description, its URIs and the
//! section that matched best — so the model picks one and reads only that.

use rmcp::model::{
    CompletionInfo, GetPromptResult, JsonObject, Prompt, PromptArgument, PromptMessage, Role,
};
use serde_json::json;

use super::errors::{CatalogError, Code, Repair};
use super::prompt_def::{PromptDef, first_sentences, optional_string};
use super::suggest::{self, Context};
use crate::catalog::Catalog;
use crate::contract::{PROMPT_FIND_SKILL, PROMPT_USE_SKILL, TOOL_LIST, TOOL_READ, TOOL_SEARCH};
use crate::model::ArchivedDocKind;
use crate::search::{Hit, Index, Kind, MAX_QUERY_BYTES, MAX_RESULTS, Request};
use crate::uri;

pub const PROMPT: PromptDef = PromptDef {
    name: PROMPT_FIND_SKILL,
    definition,
    get,
    complete,
};

/// Skills a `find-skill` prompt proposes.
pub const FIND_SKILL_COUNT: usize = 5;
const DESCRIPTION_CHARS: usize = 400;

fn definition(catalog: &Catalog) -> Prompt {
    Prompt::new(
        PROMPT_FIND_SKILL,
        Some(format!(
            "Find the skills of {} that fit a task: the best matching ones, best first, with their descriptions, URIs and the section that matched, ready to read and follow.",
            catalog.name()
        )),
        Some(vec![
            PromptArgument::new("task")
                .with_title("Task")
                .with_description("What you want to do, in your own words (e.g. \"fill in a PDF form\"). Completion offers the catalog's skill ids, tags and capabilities for the last word.")
                .with_required(true),
        ]),
    )
    .with_title("Find a skill for a task")
}

/// The task is free text: complete its last word from the catalog's topics (skill ids,
/// tags, capabilities, doc folders), keeping what comes before it.
fn complete(catalog: &Catalog, argument: &str, value: &str, _: Context<'_>) -> CompletionInfo {
    if argument != "task" {
        return suggest::empty();
    }
    let split = value
        .char_indices()
        .rev()
        .find(|(_, c)| c.is_whitespace())
        .map_or(0, |(i, c)| i + c.len_utf8());
    let (head, last) = value.split_at(split);
    let topics = &catalog.archive().completions.topics;
    let mut info = suggest::from_list(last, topics.iter().map(|t| t.as_str()));
    if !head.is_empty() {
        for v in &mut info.values {
            v.insert_str(0, head);
        }
    }
    info
}

fn missing_task(value: &str, reason: &str) -> CatalogError {
    CatalogError::new(
        Code::InvalidArgument,
        format!("The prompt {PROMPT_FIND_SKILL} needs a `task`: {reason}."),
    )
    .field("task", value)
    .reason(reason.to_owned())
    .repair(Repair::list(
        "list_skills",
        "skills",
        None,
        format!(
            "Get {PROMPT_FIND_SKILL} with a task in a few words, e.g. {{\"task\": \"fill in a PDF form\"}}; or list the skills with {TOOL_LIST} {{}} and pick by description."
        ),
    ))
}

fn get(catalog: &Catalog, arguments: &JsonObject) -> Result<GetPromptResult, CatalogError> {
    let Some(task) = optional_string(arguments, "task")? else {
        return Err(missing_task("", "describe the task to find a skill for"));
    };
    if task.len() > MAX_QUERY_BYTES {
        return Err(missing_task(
            task,
            &format!(
                "the task is {} bytes long; at most {MAX_QUERY_BYTES} are searched: keep the few words that matter",
                task.len()
            ),
        ));
    }
    Ok(find_skill(catalog, task))
}

/// One skill proposed by `find-skill`.
#[derive(Debug, Clone, PartialEq)]
pub struct SkillMatch {
    pub skill: u32,
    pub score: f32,
    /// The best matching section of the skill (in its document or a reference).
    pub hit: Hit,
}

/// The skills that best match a task, best first: hits over skill documents and
/// references grouped by skill, each skill ranked by its best hit.
pub fn find_skills(catalog: &Catalog, task: &str, count: usize) -> Vec<SkillMatch> {
    let index = Index::from(catalog);
    let results = index.search(&Request {
        query: task,
        kind: Kind::Skills,
        offset: 0,
        limit: MAX_RESULTS,
        also: &[],
    });
    let mut matches: Vec<SkillMatch> = Vec::new();
    for hit in results.hits {
        let skill = match index.document(hit.document).kind {
            ArchivedDocKind::Skill { skill } => skill.to_native(),
            ArchivedDocKind::Reference { skill, .. } => skill.to_native(),
            ArchivedDocKind::Doc => continue,
        };
        if matches.iter().any(|m| m.skill == skill) {
            continue;
        }
        matches.push(SkillMatch {
            skill,
            score: hit.score,
            hit,
        });
        if matches.len() == count {
            break;
        }
    }
    matches
}

/// The prompt's one user message: the matching skills, best first, or where to look when
/// none matches.
pub fn find_skill(catalog: &Catalog, task: &str) -> GetPromptResult {
    let matches = find_skills(catalog, task, FIND_SKILL_COUNT);
    let index = Index::from(catalog);
    let mut text = format!("Task: {task}\n\n");
    if matches.is_empty() {
        text.push_str(&format!(
            "No skill in {name} matches this task. List every skill with {TOOL_LIST} {{}} (or read {index_uri}) and judge by description, or search the docs with {TOOL_SEARCH} {args}.\n",
            name = catalog.name(),
            index_uri = uri::SKILLS_INDEX,
            args = json!({"query": task, "kind": "docs"}),
        ));
    } else {
        text.push_str(&format!(
            "These skills of {} match the task, best first. Pick the one whose description fits; \
             then follow it (the prompt {PROMPT_USE_SKILL} with its id, or {TOOL_READ} with its \
             document URI). Read a reference only when the skill points you to it.\n",
            catalog.name()
        ));
        for (i, m) in matches.iter().enumerate() {
            let skill = catalog.skill(m.skill);
            let document = catalog.document(skill.document.to_native());
            let matched = index.document(m.hit.document);
            // A damaged document names no section; reading it reports the damage.
            let tables = index.tables(m.hit.document).ok();
            let path = tables
                .as_deref()
                .map(|tables| index.heading_path(&m.hit, tables))
                .unwrap_or_default();
            let section = match path.last() {
                Some(h) => uri::anchor(&matched.uri, &h.anchor),
                None => matched.uri.to_string(),
            };
            let heading: Vec<&str> = path.iter().map(|h| h.text.as_str()).collect();
            let where_ = if heading.is_empty() {
                matched.title.to_string()
            } else {
                format!("{} › {}", matched.title, heading.join(" › "))
            };
            text.push_str(&format!(
                "\n{}. `{}` ({})\n   {}\n   document: {}\n   record: {}\n   best match: {} ({})\n",
                i + 1,
                skill.id,
                skill.title.as_str(),
                first_sentences(&skill.description, DESCRIPTION_CHARS),
                document.uri,
                uri::skill_record(&skill.id),
                where_,
                section,
            ));
        }
    }
    let mut result = GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)]);
    result.description = Some(format!("Skills matching: {}", first_sentences(task, 120)));
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::tests::fixture;

    fn text(result: &GetPromptResult) -> String {
        serde_json::to_value(&result.messages[0]).unwrap()["content"]["text"]
            .as_str()
            .unwrap()
            .to_owned()
    }

    fn arguments(value: serde_json::Value) -> JsonObject {
        value.as_object().cloned().unwrap()
    }

    #[test]
    fn proposes_matching_skills_first() {
        let catalog = fixture();
        let matches = find_skills(&catalog, "fill out a PDF form", 5);
        assert_eq!(catalog.skill(matches[0].skill).id.as_str(), "pdf-forms");
        assert!(matches.iter().all(|m| m.score > 0.0));
        // A reference's match counts for its skill.
        let matches = find_skills(&catalog, "radio buttons", 5);
        assert_eq!(catalog.skill(matches[0].skill).id.as_str(), "pdf-forms");
        assert_eq!(matches.len(), 1);

        let prompt = get(
            &catalog,
            &arguments(json!({"task": "make slides with a theme"})),
        )
        .unwrap();
        let text = text(&prompt);
        let slides = text.find("`slides`").expect("slides proposed");
        assert!(text.contains("resource://skills/slides/document"), "{text}");
        assert!(text.contains("resource://catalog/skills/slides"), "{text}");
        assert!(
            text.contains("Build slide decks with a consistent theme."),
            "{text}"
        );
        if let Some(pdf) = text.find("`pdf-forms`") {
            assert!(slides < pdf, "best match first:\n{text}");
        }
    }

    #[test]
    fn no_match_and_bad_tasks() {
        let catalog = fixture();
        let none = get(&catalog, &arguments(json!({"task": "qwxzzy"}))).unwrap();
        assert!(text(&none).contains("No skill in"), "{}", text(&none));
        for bad in [
            json!({}),
            json!({"task": "  "}),
            json!({"task": 3}),
            json!({"task": "x".repeat(MAX_QUERY_BYTES + 1)}),
        ] {
            let error = get(&catalog, &arguments(bad.clone())).unwrap_err();
            assert_eq!(error.code, Code::InvalidArgument, "{bad}");
            assert_eq!(error.field, "task", "{bad}");
        }
    }

    #[test]
    fn the_last_word_of_a_task_completes() {
        let catalog = fixture();
        let info = complete(&catalog, "task", "fill a pdf-f", Context::default());
        assert_eq!(info.values[0], "fill a pdf-forms");
        let info = complete(&catalog, "task", "", Context::default());
        assert!(info.values.contains(&"slides".to_owned()), "{info:?}");
        assert!(
            complete(&catalog, "other", "x", Context::default())
                .values
                .is_empty()
        );
    }
}
