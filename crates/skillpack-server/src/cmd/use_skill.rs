//! Prompt `use-skill` and the per-skill prompts (one per skill, named after its id, so
//! every skill is a slash command in hosts that show prompts): the skill document as an
//! embedded resource plus the instruction to follow it.

use rmcp::model::{
    Annotations, ContentBlock, EmbeddedResource, GetPromptResult, JsonObject, Prompt,
    PromptArgument, PromptMessage, ResourceContents, Role,
};

use super::errors::{CatalogError, Code, Repair};
use super::lookup;
use super::prompt_def::{PromptDef, first_sentences, optional_string, task_argument};
use super::suggest::{self, Context};
use crate::catalog::Catalog;
use crate::contract::{PROMPT_USE_SKILL, TOOL_READ};
use crate::model::ArchivedSkill;
use crate::uri::{self, Family};

pub const PROMPT: PromptDef = PromptDef {
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
        "skill_id" => suggest::skill_ids(catalog, value),
        _ => suggest::empty(),
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
pub fn skill_prompt(skill: &ArchivedSkill) -> Prompt {
    Prompt::new(
        skill.id.as_str(),
        Some(first_sentences(&skill.description, 500)),
        Some(vec![task_argument()]),
    )
    .with_title(skill.title.as_str())
}

pub fn use_skill(
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
        ResourceContents::text(catalog.text(document)?, document.uri.as_str())
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
