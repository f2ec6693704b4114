//! `completion/complete` for every template variable and every prompt argument.
//!
//! Values come from lists baked at build time: skill ids (the catalog's skills, sorted by
//! id), ref ids (each skill's references, sorted), chunk ids and anchors (each document's,
//! in reading order), doc paths (`completions.doc_tree`, grouped by folder) and topics
//! (`completions.topics`), ranked by `cmd::suggest`. This is the dispatcher, above the
//! prompts: a prompt argument completes as its prompt says (`cmd::prompts::complete`).
//!
//! Variables that depend on others read them from `context.arguments`: `ref_id` needs
//! `skill_id`; `chunk_id` and `anchor` need whatever names the document in the same
//! template (`skill_id`, `skill_id` + `ref_id`, or `path`). Without that context, or for a
//! template, prompt or argument this server does not have, the answer is an empty list,
//! never an error: completion is a hint, and clients (and the conformance suite) expect a
//! result.

use rmcp::model::{CompleteRequestParams, CompletionInfo, Reference};

use super::changes;
use super::prompts;
use super::suggest::{Context, empty, prefix_scan, rank, skill_ids};
use crate::catalog::Catalog;
use crate::contract;
use crate::model::Target;
use crate::uri;

pub fn complete(catalog: &Catalog, request: &CompleteRequestParams) -> CompletionInfo {
    let context = Context::new(request.context.as_ref());
    let (name, value) = (
        request.argument.name.as_str(),
        request.argument.value.as_str(),
    );
    match &request.r#ref {
        Reference::Resource(reference) => template(catalog, &reference.uri, name, value, context),
        Reference::Prompt(reference) => {
            prompts::complete(catalog, &reference.name, name, value, context)
        }
        #[allow(unreachable_patterns)]
        _ => empty(),
    }
}

/// Completion of one variable of a resource template.
fn template(
    catalog: &Catalog,
    uri_template: &str,
    name: &str,
    value: &str,
    context: Context<'_>,
) -> CompletionInfo {
    let Some(template) = contract::TEMPLATES
        .iter()
        .find(|t| t.uri_template == uri_template)
    else {
        return empty();
    };
    // `{name}`, `{name*}` (paths) or `{#name}` (fragments).
    let variable = |prefix: &str| template.uri_template.contains(&format!("{{{prefix}{name}"));
    if !variable("") && !variable("#") {
        return empty();
    }
    match name {
        "skill_id" => skill_ids(catalog, value),
        "ref_id" => match context.get("skill_id") {
            Some(skill_id) => ref_ids(catalog, skill_id, value),
            None => empty(),
        },
        "path" => doc_paths(catalog, value),
        "since" => changes::complete_since(catalog, value),
        "chunk_id" => match template_document(catalog, template.uri_template, context) {
            Some(tables) => rank(
                value,
                prefix_scan(value, tables.chunks.iter().map(|c| c.id.as_str())),
                tables.chunks.iter().map(|c| c.id.as_str()),
                false,
            ),
            None => empty(),
        },
        "anchor" => match template_document(catalog, template.uri_template, context) {
            Some(tables) => rank(
                value,
                prefix_scan(value, tables.outline.iter().map(|h| h.anchor.as_str())),
                tables.outline.iter().map(|h| h.anchor.as_str()),
                false,
            ),
            None => empty(),
        },
        _ => empty(),
    }
}

/// The tables of the document a chunk or section template points at, named by the
/// template's other variables in the context: `skill_id` (+ `ref_id`) for skill templates,
/// `path` for docs. A damaged document completes to nothing (its reads say why).
fn template_document(
    catalog: &Catalog,
    uri_template: &str,
    context: Context<'_>,
) -> Option<std::sync::Arc<crate::tables::DocumentTables>> {
    let document_uri = if uri_template.contains("{ref_id}") {
        uri::reference(context.get("skill_id")?, context.get("ref_id")?)
    } else if uri_template.contains("{skill_id}") {
        uri::skill_document(context.get("skill_id")?)
    } else if uri_template.contains("{path") {
        uri::doc(context.get("path")?)
    } else {
        return None;
    };
    match catalog.lookup(&document_uri)? {
        Target::Document(index) => catalog.tables(index).ok(),
        _ => None,
    }
}

fn ref_ids(catalog: &Catalog, skill_id: &str, value: &str) -> CompletionInfo {
    let Some(index) = catalog.skill_by_id(skill_id) else {
        return empty();
    };
    let references = catalog.skill(index).references.as_slice();
    rank(
        value,
        prefix_scan(value, references.iter().map(|r| r.id.as_str())),
        references.iter().map(|r| r.id.as_str()),
        false,
    )
}

/// Segment-wise doc path completion: the entries of the folder typed so far that start
/// with the rest (`gu` → `guide/`; `guide/` → `guide/install.md`, `guide/usage.md`), then
/// fuzzy matches over every doc path and folder (`uris` → `reference/uris.md`).
fn doc_paths(catalog: &Catalog, value: &str) -> CompletionInfo {
    let tree = catalog.archive().completions.doc_tree.as_slice();
    let parent = value.rfind('/').map_or("", |i| &value[..=i]);
    let start = tree.partition_point(|e| (e.parent(), e.path.as_str()) < (parent, value));
    let prefixed = tree[start..]
        .iter()
        .take_while(|e| e.parent() == parent && e.path.as_str().starts_with(value))
        .map(|e| e.path.as_str());
    rank(
        value,
        prefixed.collect(),
        tree.iter().map(|e| e.path.as_str()),
        true,
    )
}
