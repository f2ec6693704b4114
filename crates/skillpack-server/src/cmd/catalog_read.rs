//! Tool `catalog_read`: any catalog URI — indexes, records, skill documents, references,
//! docs, `skill://` files and directories, chunks and `#anchor` sections.
//!
//! The default `detail: "summary"` is token-budgeted whatever the document's size: a
//! document of one chunk, or no larger than the outline budget, comes back whole; a larger
//! one as its outline, each section with its size and URI (cut to a byte budget, with the
//! full count), so that the next read is the one section that answers; catalog JSON and
//! files come back whole up to [`SUMMARY_WHOLE_BYTES`]. `detail: "full"` returns whole
//! bodies with the chunk catalog and links; `chunk_id` (or a chunk URI) one chunk; a
//! `#anchor` URI one section.

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use rmcp::model::{JsonObject, Tool};
use serde_json::{Value, json};

use super::changes;
use super::errors::CatalogError;
use super::lookup::{self, Resolved};
use super::tool_def::{Args, ToolDef, definition};
use crate::catalog::Catalog;
use crate::contract::{
    SUMMARY_CHUNKS_BYTES, SUMMARY_OUTLINE_BYTES, SUMMARY_TEXT_BYTES, TOOL_LIST, TOOL_READ,
};
use crate::model::{
    ArchivedDirectoryChild, ArchivedDocKind, ArchivedDocument, ArchivedSkill, ArchivedSkillFile,
    Chunk, Heading, Target,
};
use crate::tables::DocumentTables;
use crate::uri;

pub const TOOL: ToolDef = ToolDef {
    name: TOOL_READ,
    definition: define,
    call,
};

const ACCEPTED: &[&str] = &["uri", "chunk_id", "detail"];
const REQUIRED: &[&str] = &["uri"];
const DETAILS: &[&str] = &["summary", "full"];
const KINDS: &[&str] = &[
    "document",
    "chunk",
    "section",
    "catalog",
    "file",
    "directory",
];

/// Catalog JSON, non-markdown files and sections come back whole in a summary up to this
/// many bytes; past it, the first part (`truncated: true`).
pub const SUMMARY_WHOLE_BYTES: usize = 2 * SUMMARY_TEXT_BYTES;
const SUMMARY_REFERENCES_BYTES: usize = 3 * 1024;

fn define(catalog: &Catalog) -> Tool {
    // Picked at build time: start-up must not go looking through the archive.
    let examples = &catalog.archive().startup;
    let document_example = examples.document_uri.as_str();
    let chunk_example = if examples.chunk_id.is_empty() {
        String::new()
    } else {
        format!(
            "; {{\"uri\": \"{}\", \"chunk_id\": \"{}\"}} reads one chunk",
            examples.chunk_uri, examples.chunk_id
        )
    };
    let description = format!(
        "Read anything this server serves, by URI: resource://catalog/… indexes and records, \
         resource://skills/… skill documents and references, resource://docs/… docs, \
         skill://… skill files and folders, chunk URIs (<document uri>/chunks/<id>) and \
         sections (<document uri>#<anchor>). Use it on a uri from catalog_search, \
         catalog_list or an earlier read; the smallest URI that answers is the cheapest: a \
         search hit's section_uri or chunk_uri, whichever is smaller. The default detail \
         \"summary\" keeps answers small: a document of one chunk, or of at most \
         {SUMMARY_OUTLINE_BYTES} bytes, comes back whole as text (truncated: false); a larger \
         one comes back as its outline, every section with its size and uri (no text: \
         truncated: true), to pick the one section to read next. A section \
         (<document uri>#<anchor>) comes back whole up to {SUMMARY_WHOLE_BYTES} bytes. \
         Chunks are numbered from 1 (chunk.index 1 of chunk.count). Ask for detail \"full\" \
         only when you need a whole body.\n\n\
         Examples: {{\"uri\": \"{document_example}\"}} summarizes a document{chunk_example}; \
         {{\"uri\": \"{}\"}} says what this server holds.",
        uri::CAPABILITIES
    );
    definition(
        TOOL_READ,
        "Read a catalog URI",
        description,
        json!({
            "type": "object",
            "required": ["uri"],
            "properties": {
                "uri": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": uri::MAX_URI_BYTES,
                    "description": "Any catalog URI, as returned by catalog_list or an earlier read: resource://…, skill://…, a chunk URI or a #anchor section."
                },
                "chunk_id": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": 1024,
                    "description": "One chunk of the document `uri` names, by an id from its chunk catalog. Omitted means no particular chunk: `detail` decides what comes back."
                },
                "detail": {
                    "type": "string",
                    "enum": DETAILS,
                    "description": format!("Omitted means \"summary\": a document whole when it is one chunk or at most {SUMMARY_OUTLINE_BYTES} bytes, else its outline with section sizes and URIs (no text); a section, catalog JSON and files whole up to {SUMMARY_WHOLE_BYTES} bytes. \"full\" returns the whole body, however large, with the chunk catalog and links.")
                }
            },
            "additionalProperties": false
        }),
        output_schema(),
    )
}

fn output_schema() -> Value {
    let string = json!({"type": "string"});
    let integer = json!({"type": "integer", "minimum": 0});
    let nullable = json!({"type": ["string", "null"]});
    // A closed object of the given properties, all required unless listed as optional.
    let object = |properties: Value, optional: &[&str]| {
        let required: Vec<&String> = properties
            .as_object()
            .map(|p| {
                p.keys()
                    .filter(|k| !optional.contains(&k.as_str()))
                    .collect()
            })
            .unwrap_or_default();
        json!({
            "type": "object",
            "required": required,
            "properties": properties,
            "additionalProperties": false,
        })
    };
    let array = |items: Value| json!({"type": "array", "items": items});
    let chunk = object(
        json!({
            "id": string,
            "index": {"type": "integer", "minimum": 1, "description": "The chunk's position in its document, counted from 1 (the first chunk is 1)."},
            "count": {"type": "integer", "minimum": 1, "description": "Chunks in the document: index runs from 1 to count."},
            "heading": string,
        }),
        &[],
    );
    let section = object(
        json!({"anchor": string, "heading": string, "level": integer}),
        &[],
    );
    let outline = array(object(
        json!({
            "level": integer,
            "text": string,
            "anchor": string,
            "uri": string,
            "size": {"type": "integer", "minimum": 0, "description": "Bytes of the section uri names (its subsections included): what a read of uri returns."},
        }),
        &[],
    ));
    let chunks = array(object(
        json!({"id": string, "uri": string, "heading": string, "size": integer}),
        &[],
    ));
    let links = array(object(json!({"text": string, "uri": string}), &[]));
    let references = array(object(
        json!({"id": string, "uri": string, "title": string, "size": integer, "chunks": integer}),
        &[],
    ));
    let skill = object(
        json!({
            "id": string,
            "uri": string,
            "record_uri": string,
            "references": references,
            "references_total": integer,
        }),
        &["references", "references_total"],
    );
    let entries = array(object(
        json!({
            "uri": string,
            "type": {"type": "string", "enum": ["file", "directory"]},
            "size": integer,
            "mime_type": string,
        }),
        &["size", "mime_type"],
    ));
    let properties = json!({
        "uri": {"type": "string", "description": "Canonical URI of what was read."},
        "kind": {"type": "string", "enum": KINDS},
        "detail": {"type": "string", "enum": DETAILS},
        "title": string,
        "mime_type": string,
        "size": {"type": "integer", "minimum": 0, "description": "Bytes of the whole of what uri names (0 for a folder)."},
        "version": {"type": "string", "description": "Content version (changes when the bytes do)."},
        "document_uri": {"type": "string", "description": "The document a chunk, section or skill:// markdown file belongs to."},
        "text": {"type": "string", "description": "The body returned: a small document whole, a chunk, a section, JSON or file text. Absent from the summary of a larger document (its outline says what to read)."},
        "blob": {"type": "string", "description": "Base64 bytes of a binary file."},
        "truncated": {"type": "boolean", "description": "True when text (or blob) is not the whole of what uri names; next_step says how to get the rest."},
        "chunk": chunk,
        "prev_chunk_uri": nullable,
        "next_chunk_uri": nullable,
        "chunks_in_text": {"type": "integer", "minimum": 0, "description": "Summary of a document: how many leading chunks `text` holds (0 when it has no text)."},
        "section": section,
        "outline": outline,
        "outline_total": integer,
        "chunks": chunks,
        "chunks_total": integer,
        "links": links,
        "links_total": integer,
        "skill": skill,
        "entries": entries,
        "next_step": {"type": "string", "description": "What to call next to get more."},
    });
    let mut schema = object(
        properties,
        &[
            "title",
            "version",
            "document_uri",
            "text",
            "blob",
            "chunk",
            "prev_chunk_uri",
            "next_chunk_uri",
            "chunks_in_text",
            "section",
            "outline",
            "outline_total",
            "chunks",
            "chunks_total",
            "links",
            "links_total",
            "skill",
            "entries",
            "next_step",
        ],
    );
    schema["description"] =
        "What catalog_read returns; which fields are present depends on kind.".into();
    schema
}

fn call(catalog: &Catalog, map: &JsonObject) -> Result<Value, CatalogError> {
    let args = Args::new(TOOL_READ, map, ACCEPTED, REQUIRED)?;
    let raw = args.required_string("uri", uri::MAX_URI_BYTES)?;
    let chunk_id = args.string("chunk_id", 1024)?;
    let full = args.choice("detail", DETAILS)? == Some("full");
    let resolved = lookup::resolve(catalog, raw)?;
    let archive = catalog.archive();

    if let Some(chunk_id) = chunk_id {
        let document = match resolved {
            Resolved {
                target: Target::Document(d),
                heading: None,
            } => Some(d),
            Resolved {
                target: Target::SkillFile(f),
                ..
            } => file_document(catalog, &catalog.files()[f as usize]),
            _ => None,
        };
        let Some(document) = document else {
            let reason = match resolved.target {
                Target::Chunk { .. } => "the URI already names one chunk; drop chunk_id".to_owned(),
                Target::Document(_) => {
                    "the URI already names one #section; drop chunk_id, or the #anchor".to_owned()
                }
                _ => format!(
                    "chunk_id selects a chunk of a markdown document, and {} is not one",
                    uri::shorten(raw)
                ),
            };
            return Err(args.invalid("chunk_id", chunk_id, reason));
        };
        let tables = catalog.tables(document)?;
        return match tables.chunk(chunk_id) {
            Some((index, _)) => chunk_result(catalog, document, index as usize),
            None => {
                Err(lookup::chunk_not_found(catalog.document(document), &tables, chunk_id).uri(raw))
            }
        };
    }

    Ok(match resolved {
        Resolved {
            target: Target::Document(d),
            heading: None,
        } => document_result(catalog, d, None, full)?,
        Resolved {
            target: Target::Document(d),
            heading: Some(heading),
        } => section_result(catalog, d, heading, full)?,
        Resolved {
            target: Target::Chunk { document, chunk: c },
            ..
        } => chunk_result(catalog, document, c as usize)?,
        Resolved {
            target: Target::Capabilities,
            ..
        } => catalog_json(
            uri::CAPABILITIES,
            "Catalog capabilities",
            &catalog
                .content()
                .text(&archive.capabilities, 0..usize::MAX)?,
            full,
            None,
        ),
        Resolved {
            target: Target::SkillsIndex,
            ..
        } => catalog_json(
            uri::SKILLS_INDEX,
            "Skills index",
            &catalog
                .content()
                .text(&archive.skills_index, 0..usize::MAX)?,
            full,
            Some(format!("{TOOL_LIST} {{}} pages through the skills")),
        ),
        Resolved {
            target: Target::DocsIndex,
            ..
        } => catalog_json(
            uri::DOCS_INDEX,
            "Docs index",
            &catalog.content().text(&archive.docs_index, 0..usize::MAX)?,
            full,
            Some(format!(
                "{TOOL_LIST} {{\"kind\": \"docs\"}} pages through the docs"
            )),
        ),
        Resolved {
            target: Target::SkillRecord(i),
            ..
        } => {
            let skill = catalog.skill(i);
            catalog_json(
                &uri::skill_record(&skill.id),
                &format!("Skill record: {}", skill.id),
                &catalog.content().text(&skill.record, 0..usize::MAX)?,
                full,
                None,
            )
        }
        Resolved {
            target: Target::SkillFile(i),
            ..
        } => {
            let file = &catalog.files()[i as usize];
            match file_document(catalog, file) {
                Some(document) => {
                    document_result(catalog, document, Some(file.uri.as_str()), full)?
                }
                None => skill_file(catalog, file, full)?,
            }
        }
        Resolved {
            target: Target::Directory(i),
            ..
        } => directory(catalog, i),
        Resolved {
            target: Target::Changes(i),
            ..
        } => {
            let since = changes::since_name(catalog, i);
            catalog_json(
                &uri::changes(&since),
                &format!("Changes since {since}"),
                &changes::body(catalog, i),
                full,
                Some(format!(
                    "{TOOL_LIST} {{\"kind\": \"changes\", \"since\": \"{since}\"}} pages through them"
                )),
            )
        }
    })
}

/// Cut `text` to at most `max` bytes on a character boundary, at a line break when one
/// is near the end.
fn cut(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    if let Some(newline) = text[..end].rfind('\n')
        && newline >= end * 3 / 4
    {
        end = newline + 1;
    }
    &text[..end]
}

/// The longest prefix of `items` whose JSON fits in `budget` bytes (everything when
/// `budget` is `None`).
fn fit(items: impl Iterator<Item = Value>, budget: Option<usize>) -> Vec<Value> {
    let mut used = 0;
    items
        .take_while(|item| match budget {
            None => true,
            Some(budget) => {
                used += item.to_string().len() + 1;
                used <= budget
            }
        })
        .collect()
}

fn heading_entry(document: &ArchivedDocument, h: &Heading) -> Value {
    json!({
        "level": h.level,
        "text": h.text.as_str(),
        "anchor": h.anchor.as_str(),
        "uri": uri::anchor(&document.uri, &h.anchor),
        "size": h.end - h.start,
    })
}

/// The outline, as deep as the budget allows: every heading down to the deepest level
/// that fits whole, then as many headings of the next level (in document order) as still
/// fit. The result stays in document order.
fn outline(
    document: &ArchivedDocument,
    tables: &DocumentTables,
    budget: Option<usize>,
) -> Vec<Value> {
    let entries: Vec<(u8, usize, Value)> = tables
        .outline
        .iter()
        .map(|h| {
            let entry = heading_entry(document, h);
            (h.level, entry.to_string().len() + 1, entry)
        })
        .collect();
    let Some(budget) = budget else {
        return entries.into_iter().map(|(_, _, v)| v).collect();
    };
    let size = |level: u8| -> usize {
        entries
            .iter()
            .filter(|(l, _, _)| *l <= level)
            .map(|(_, bytes, _)| bytes)
            .sum()
    };
    // Level 0 holds nothing: when not even the top headings fit, they are filled greedily.
    let whole = (1..=6)
        .rev()
        .find(|&level| size(level) <= budget)
        .unwrap_or(0);
    let mut left = budget - size(whole);
    let next = entries
        .iter()
        .map(|(l, _, _)| *l)
        .filter(|l| *l > whole)
        .min()
        .unwrap_or(u8::MAX);
    entries
        .into_iter()
        .filter(|(level, bytes, _)| {
            *level <= whole
                || (*level == next && *bytes <= left && {
                    left -= bytes;
                    true
                })
        })
        .map(|(_, _, v)| v)
        .collect()
}

/// One entry of a chunk catalog: id, uri, heading, size.
fn chunk_entry(document: &ArchivedDocument, tables: &DocumentTables, c: &Chunk) -> Value {
    json!({
        "id": c.id.as_str(),
        "uri": uri::chunk(&document.uri, &c.id),
        "heading": tables.chunk_heading(c, &document.title),
        "size": c.end - c.start,
    })
}

/// For skill documents and references: the skill they belong to, and (for a skill
/// document) its references, so that the next read needs no other call.
fn skill_info(
    catalog: &Catalog,
    document: &ArchivedDocument,
    budget: Option<usize>,
) -> Option<Value> {
    let (skill, with_references) = match document.kind {
        ArchivedDocKind::Skill { skill } => (catalog.skill(skill.to_native()), true),
        ArchivedDocKind::Reference { skill, .. } => (catalog.skill(skill.to_native()), false),
        ArchivedDocKind::Doc => return None,
    };
    let mut info = json!({
        "id": skill.id.as_str(),
        "uri": uri::skill_document(&skill.id),
        "record_uri": uri::skill_record(&skill.id),
    });
    if with_references {
        let references = fit(
            skill.references.iter().map(|r| {
                let doc = catalog.document(r.document.to_native());
                json!({
                    "id": r.id.as_str(),
                    "uri": doc.uri.as_str(),
                    "title": doc.title.as_str(),
                    "size": doc.content.len.to_native(),
                    "chunks": doc.chunk_count.to_native(),
                })
            }),
            budget,
        );
        info["references"] = Value::Array(references);
        info["references_total"] = skill.references.len().into();
    }
    Some(info)
}

/// A whole document (`full`) or its budgeted summary. `as_uri` is the `skill://` URI it
/// was asked for by, if any.
fn document_result(
    catalog: &Catalog,
    index: u32,
    as_uri: Option<&str>,
    full: bool,
) -> Result<Value, CatalogError> {
    let document = catalog.document(index);
    let tables = catalog.tables(index)?;
    let budget = |bytes: usize| (!full).then_some(bytes);
    let size = document.content.len.to_native() as usize;
    let chunks = tables.chunks.as_slice();
    // A summary's text: the whole document when it is one chunk (cut to the budget should
    // that chunk be larger) or no larger than an outline would be; otherwise none, and the
    // outline, with every section's size and URI, says which one part to read.
    let whole = if full || chunks.len() <= 1 || size <= SUMMARY_OUTLINE_BYTES {
        Some(catalog.text(document)?)
    } else {
        None
    };
    let text = whole.as_deref().map(|whole| {
        if full {
            whole
        } else {
            cut(whole, SUMMARY_TEXT_BYTES)
        }
    });
    let shown = text.map_or(0, str::len);
    // A chunk cut short does not count: reading on starts with it.
    let in_text = if shown == size { chunks.len() } else { 0 };
    let mut value = json!({
        "uri": as_uri.unwrap_or(document.uri.as_str()),
        "kind": "document",
        "detail": if full { "full" } else { "summary" },
        "title": document.title.as_str(),
        "mime_type": "text/markdown",
        "size": size,
        "version": document.version.as_str(),
        "truncated": shown < size,
        "outline": outline(document, &tables, budget(SUMMARY_OUTLINE_BYTES)),
        "outline_total": tables.outline.len(),
        "chunks_total": chunks.len(),
        "links_total": tables.links.len(),
    });
    if let Some(text) = text {
        value["text"] = text.into();
    }
    // The chunk catalog and the links repeat what the outline and the text say; a summary
    // leaves them to detail "full".
    if full {
        value["chunks"] = tables
            .chunks
            .iter()
            .map(|c| chunk_entry(document, &tables, c))
            .collect();
        value["links"] = tables
            .links
            .iter()
            .map(|l| json!({"text": l.text.as_str(), "uri": catalog.archive().link_uri(l)}))
            .collect();
    }
    if as_uri.is_some() {
        value["document_uri"] = document.uri.as_str().into();
    }
    if let Some(skill) = skill_info(catalog, document, budget(SUMMARY_REFERENCES_BYTES)) {
        value["skill"] = skill;
    }
    if !full {
        value["chunks_in_text"] = in_text.into();
        let next = chunks
            .get(in_text)
            .map(|c| uri::chunk(&document.uri, &c.id));
        value["next_chunk_uri"] = next.clone().into();
        if let Some(next) = next {
            value["next_step"] = match text {
                Some(text) => format!(
                    "The text holds the first {} of {size} bytes. Read on with {TOOL_READ} \
                     {{\"uri\": \"{next}\"}}, or ask for detail \"full\" if you need the whole body.",
                    text.len()
                ),
                None => format!(
                    "This summary is the outline: read the one section you need by its uri \
                     (its size says what the read costs), or the document chunk by chunk from \
                     {TOOL_READ} {{\"uri\": \"{next}\"}} ({count} chunks). Detail \"full\" \
                     returns the whole body ({size} bytes).",
                    count = chunks.len(),
                ),
            }
            .into();
        }
    }
    Ok(value)
}

fn chunk_result(catalog: &Catalog, document: u32, index: usize) -> Result<Value, CatalogError> {
    let tables = catalog.tables(document)?;
    let document = catalog.document(document);
    let chunks = tables.chunks.as_slice();
    let chunk = &chunks[index];
    let neighbour = |i: Option<usize>| {
        i.and_then(|i| chunks.get(i))
            .map(|c| uri::chunk(&document.uri, &c.id))
    };
    let next = neighbour(Some(index + 1));
    let text = catalog.text_range(document, chunk.start, chunk.end)?;
    let mut value = json!({
        "uri": uri::chunk(&document.uri, &chunk.id),
        "kind": "chunk",
        "detail": "full",
        "title": document.title.as_str(),
        "mime_type": "text/markdown",
        "size": text.len(),
        "version": document.version.as_str(),
        "document_uri": document.uri.as_str(),
        "text": text,
        "truncated": false,
        "chunk": {
            "id": chunk.id.as_str(),
            "index": index + 1,
            "count": chunks.len(),
            "heading": tables.chunk_heading(chunk, &document.title),
        },
        "prev_chunk_uri": neighbour(index.checked_sub(1)),
        "next_chunk_uri": next,
    });
    value["next_step"] = match &value["next_chunk_uri"] {
        Value::String(next) => format!(
            "Chunk {} of {}. Next: {TOOL_READ} {{\"uri\": \"{next}\"}}.",
            index + 1,
            chunks.len()
        ),
        _ => format!("Chunk {} of {}: the last one.", index + 1, chunks.len()),
    }
    .into();
    Ok(value)
}

fn section_result(
    catalog: &Catalog,
    index: u32,
    heading: u32,
    full: bool,
) -> Result<Value, CatalogError> {
    let tables = catalog.tables(index)?;
    let document = catalog.document(index);
    let heading = &tables.outline[heading as usize];
    let (start, end) = (heading.start, heading.end);
    let whole = catalog.text_range(document, start, end)?;
    let whole = whole.as_ref();
    let text = if full {
        whole
    } else {
        cut(whole, SUMMARY_WHOLE_BYTES)
    };
    let covering: Vec<Value> = tables
        .chunks
        .iter()
        .filter(|c| c.start < end && c.end > start)
        .map(|c| chunk_entry(document, &tables, c))
        .collect();
    let total = covering.len();
    let mut value = json!({
        "uri": uri::anchor(&document.uri, &heading.anchor),
        "kind": "section",
        "detail": if full { "full" } else { "summary" },
        "title": document.title.as_str(),
        "mime_type": "text/markdown",
        "size": whole.len(),
        "version": document.version.as_str(),
        "document_uri": document.uri.as_str(),
        "text": text,
        "truncated": text.len() < whole.len(),
        "section": {
            "anchor": heading.anchor.as_str(),
            "heading": heading.text.as_str(),
            "level": heading.level,
        },
        "chunks": fit(covering.into_iter(), (!full).then_some(SUMMARY_CHUNKS_BYTES)),
        "chunks_total": total,
    });
    if text.len() < whole.len() {
        value["next_step"] = format!(
            "The section is {} bytes; this is the first part. Read it chunk by chunk (`chunks`) or ask for detail \"full\".",
            whole.len()
        )
        .into();
    }
    Ok(value)
}

fn catalog_json(uri: &str, title: &str, json: &str, full: bool, paging: Option<String>) -> Value {
    let text = if full {
        json
    } else {
        cut(json, SUMMARY_WHOLE_BYTES)
    };
    let truncated = text.len() < json.len();
    let mut value = json!({
        "uri": uri,
        "kind": "catalog",
        "detail": if full { "full" } else { "summary" },
        "title": title,
        "mime_type": "application/json",
        "size": json.len(),
        "text": text,
        "truncated": truncated,
    });
    if truncated {
        value["next_step"] = match paging {
            Some(paging) => format!(
                "This JSON is {} bytes; the text is its first part. {paging}, or ask for detail \"full\".",
                json.len()
            ),
            None => format!(
                "This JSON is {} bytes; the text is its first part. Ask for detail \"full\" for all of it.",
                json.len()
            ),
        }
        .into();
    }
    value
}

/// The catalog document a `skill://` file is, if it is a skill's SKILL.md or reference.
fn file_document(catalog: &Catalog, file: &ArchivedSkillFile) -> Option<u32> {
    let skill: &ArchivedSkill = catalog
        .skills()
        .iter()
        .filter(|s| {
            file.path
                .as_str()
                .strip_prefix(s.path.as_str())
                .is_some_and(|rest| rest.starts_with('/'))
        })
        .max_by_key(|s| s.path.len())?;
    let relative = &file.path.as_str()[skill.path.len() + 1..];
    let document = skill.document.to_native();
    if relative == catalog.document(document).path.as_str() {
        return Some(document);
    }
    skill
        .references
        .iter()
        .map(|r| r.document.to_native())
        .find(|&d| catalog.document(d).path.as_str() == relative)
}

fn skill_file(
    catalog: &Catalog,
    file: &ArchivedSkillFile,
    full: bool,
) -> Result<Value, CatalogError> {
    let bytes = catalog.read(&file.content)?;
    let bytes = bytes.as_ref();
    let mut value = json!({
        "uri": file.uri.as_str(),
        "kind": "file",
        "detail": if full { "full" } else { "summary" },
        "mime_type": file.mime_type.as_str(),
        "size": bytes.len(),
        "version": file.sha256.to_string(),
        "truncated": false,
    });
    if file.is_text {
        let whole = std::str::from_utf8(bytes).unwrap_or_default();
        let text = if full {
            whole
        } else {
            cut(whole, SUMMARY_WHOLE_BYTES)
        };
        value["text"] = text.into();
        value["truncated"] = (text.len() < whole.len()).into();
    } else if full || bytes.len() <= SUMMARY_WHOLE_BYTES {
        value["blob"] = BASE64.encode(bytes).into();
    } else {
        value["truncated"] = true.into();
    }
    if value["truncated"] == true {
        value["next_step"] = format!(
            "The file is {} bytes; ask for detail \"full\" to get all of it.",
            bytes.len()
        )
        .into();
    }
    Ok(value)
}

fn directory(catalog: &Catalog, index: u32) -> Value {
    let dir = &catalog.archive().directories[index as usize];
    let entries: Vec<Value> = dir
        .children
        .iter()
        .map(|child| match child {
            ArchivedDirectoryChild::File(f) => {
                let file = &catalog.files()[f.to_native() as usize];
                json!({
                    "uri": file.uri.as_str(),
                    "type": "file",
                    "size": file.size.to_native(),
                    "mime_type": file.mime_type.as_str(),
                })
            }
            ArchivedDirectoryChild::Directory(d) => json!({
                "uri": catalog.archive().directories[d.to_native() as usize].uri.as_str(),
                "type": "directory",
            }),
        })
        .collect();
    json!({
        "uri": dir.uri.as_str(),
        "kind": "directory",
        "detail": "full",
        "mime_type": "inode/directory",
        "size": 0,
        "truncated": false,
        "entries": entries,
        "next_step": format!("Read an entry with {TOOL_READ} {{\"uri\": <entry uri>}}."),
    })
}
