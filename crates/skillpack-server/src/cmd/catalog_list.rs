//! Tool `catalog_list`: skills or docs, one compact record each, filtered by tag or
//! prefix, paginated with the house convention (`has_more`, `next_cursor`; opaque cursors
//! bound to this binary and to the filters they were issued for).

use rmcp::model::{JsonObject, Tool};
use serde_json::{Value, json};

use super::changes;
use super::cursor;
use super::errors::{CatalogError, Code};
use super::tool_def::{Args, ToolDef, definition};
use crate::catalog::Catalog;
use crate::contract::{LIST_DEFAULT_LIMIT, LIST_MAX_LIMIT, TOOL_LIST};
use crate::model::{ArchivedDocument, ArchivedSkill};

pub const TOOL: ToolDef = ToolDef {
    name: TOOL_LIST,
    definition: define,
    call,
};

const ACCEPTED: &[&str] = &["kind", "tag", "prefix", "limit", "cursor", "since"];
const KINDS: &[&str] = &["skills", "docs", "changes"];

fn define(catalog: &Catalog) -> Tool {
    // Picked at build time: start-up must not go looking through the archive.
    let tag_example = catalog.archive().startup.tag.as_str();
    let description = format!(
        "List the skills (default) or the docs this server holds, one compact record each: \
         skills with id, description, tags, capabilities and document uri; docs with path, \
         uri, title, summary and chunk count. Use it to browse when you cannot read MCP \
         resources, to pick what to read by description alone, then call catalog_read with \
         a record's uri; to answer a question, catalog_search finds the section. Pages hold {LIST_DEFAULT_LIMIT} records unless `limit` says \
         otherwise: while has_more is true, call again with the same arguments plus \
         cursor = next_cursor.\n\n\
         With kind \"changes\" it lists what changed since an earlier release (`since`; \
         omitted means the previous one): one entry per document or skill file added, \
         changed or removed, with the section or document URIs to read in `read`. \
         This release: {release}.\n\n\
         Examples: {{}} lists skills; {{\"kind\": \"docs\"}} lists docs; \
         {{\"tag\": \"{tag_example}\"}} lists skills tagged {tag_example}; \
         {{\"kind\": \"changes\"}} lists what changed since the previous release.",
        release = release_summary(catalog),
    );
    definition(
        TOOL_LIST,
        "List skills or docs",
        description,
        json!({
            "type": "object",
            "properties": {
                "kind": {
                    "type": "string",
                    "enum": KINDS,
                    "description": "What to list. Omitted means \"skills\"."
                },
                "tag": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": 256,
                    "description": "Only skills whose tags include exactly this tag (skills only; docs have no tags). Omitted means no tag filter."
                },
                "prefix": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": 1024,
                    "description": "Only skill ids, or doc paths, that start with this string, e.g. \"guide/\". Omitted means no prefix filter."
                },
                "limit": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": LIST_MAX_LIMIT,
                    "description": format!("Records per page, 1 to {LIST_MAX_LIMIT}. Omitted means {LIST_DEFAULT_LIMIT}.")
                },
                "cursor": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": 256,
                    "description": "The next_cursor of the previous page, passed back unchanged with the same kind, tag, prefix and since. Omitted means the first page."
                },
                "since": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": 256,
                    "description": "With kind \"changes\": the earlier release to compare with — its label, a fingerprint prefix (12+ hex digits) or a date (YYYY-MM-DD: the latest release on or before it). Omitted means the previous release."
                }
            },
            "additionalProperties": false
        }),
        output_schema(),
    )
}

fn output_schema() -> Value {
    json!({
        "type": "object",
        "required": ["kind", "items", "total", "has_more", "next_cursor"],
        "properties": {
            "kind": {"type": "string", "enum": KINDS},
            "items": {
                "type": "array",
                "items": {"anyOf": [{"$ref": "#/$defs/skill"}, {"$ref": "#/$defs/doc"}, {"$ref": "#/$defs/change"}]}
            },
            "since": {
                "type": ["object", "null"],
                "description": "kind \"changes\" only: the release compared with (null for a first release, which knows no earlier one).",
                "properties": {
                    "fingerprint": {"type": "string"},
                    "label": {"type": "string"},
                    "date": {"type": "string"}
                }
            },
            "total": {"type": "integer", "minimum": 0, "description": "Records matching the filters, over all pages."},
            "has_more": {"type": "boolean", "description": "Whether another page follows (house pagination, not MCP's nextCursor)."},
            "next_cursor": {"type": ["string", "null"], "description": "Pass back as `cursor` for the next page; null on the last page."}
        },
        "additionalProperties": false,
        "$defs": {
            "skill": {
                "type": "object",
                "required": ["id", "title", "description", "tags", "capabilities", "uri", "record_uri", "size", "files_bytes", "references"],
                "properties": {
                    "id": {"type": "string"},
                    "title": {"type": "string"},
                    "description": {"type": "string"},
                    "tags": {"type": "array", "items": {"type": "string"}},
                    "capabilities": {"type": "array", "items": {"type": "string"}},
                    "uri": {"type": "string", "description": "The skill's SKILL.md: pass it to catalog_read."},
                    "record_uri": {"type": "string", "description": "JSON record: references, files, frontmatter."},
                    "size": {"type": "integer", "description": "Bytes of the skill's SKILL.md, the document `uri` names."},
                    "files_bytes": {"type": "integer", "description": "Bytes of all the skill's files."},
                    "references": {"type": "integer", "description": "Number of reference documents."}
                },
                "additionalProperties": false
            },
            "change": {
                "type": "object",
                "required": ["uri", "type", "change", "skill", "title", "read", "sections"],
                "properties": {
                    "uri": {"type": "string", "description": "The document or skill file that changed."},
                    "type": {"type": "string", "enum": ["skill", "reference", "doc", "file"]},
                    "change": {"type": "string", "enum": ["added", "changed", "removed"]},
                    "skill": {"type": ["string", "null"], "description": "The skill it belongs to; null for a doc."},
                    "title": {"type": "string"},
                    "read": {"type": "array", "items": {"type": "string"}, "description": "The URIs to read: changed sections (#anchor) or chunks, or the whole document when it is new. Empty for a removal."},
                    "sections": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["anchor", "change", "uri"],
                            "properties": {
                                "anchor": {"type": "string", "description": "Empty for the text before the first heading."},
                                "change": {"type": "string", "enum": ["added", "changed", "removed"]},
                                "uri": {"type": ["string", "null"]}
                            },
                            "additionalProperties": false
                        }
                    }
                },
                "additionalProperties": false
            },
            "doc": {
                "type": "object",
                "required": ["path", "uri", "title", "summary", "size", "chunks"],
                "properties": {
                    "path": {"type": "string"},
                    "uri": {"type": "string"},
                    "title": {"type": "string"},
                    "summary": {"type": "string"},
                    "size": {"type": "integer"},
                    "chunks": {"type": "integer"}
                },
                "additionalProperties": false
            }
        }
    })
}

fn call(catalog: &Catalog, map: &JsonObject) -> Result<Value, CatalogError> {
    let args = Args::new(TOOL_LIST, map, ACCEPTED, &[])?;
    let kind = args.choice("kind", KINDS)?.unwrap_or("skills");
    let tag = args.string("tag", 256)?;
    let prefix = args.string("prefix", 1024)?;
    let limit = args
        .integer("limit", 1, LIST_MAX_LIMIT as u64)?
        .map_or(LIST_DEFAULT_LIMIT, |n| n as usize);
    let cursor = args.string("cursor", 256)?;
    let since = args.string("since", 256)?;
    if kind != "changes"
        && let Some(since) = since
    {
        return Err(args.invalid(
            "since",
            since,
            "`since` applies to kind \"changes\" only".into(),
        ));
    }
    if kind == "changes"
        && let Some(tag) = tag
    {
        return Err(args.invalid(
            "tag",
            tag,
            "`tag` filters skills; with kind \"changes\" use `prefix` (a URI prefix such as \"resource://docs/guide/\")".into(),
        ));
    }
    if kind == "docs" && tag.is_some() {
        return Err(args.invalid(
            "tag",
            tag.unwrap_or_default(),
            "`tag` filters skills; docs have no tags (use `prefix` to pick a docs folder)".into(),
        ));
    }

    // A cursor is only valid for the listing (kind and filters) it was issued for.
    let filters = blake3::hash(
        format!(
            "{}\0{}\0{}",
            tag.unwrap_or(""),
            prefix.unwrap_or(""),
            since.unwrap_or("")
        )
        .as_bytes(),
    );
    let listing = format!("{TOOL_LIST}/{kind}/{}", &filters.to_hex()[..12]);
    let start = match cursor {
        None => 0,
        Some(c) => cursor::decode(catalog, &listing, c).map_err(|e| {
            let alternative = e
                .repair
                .as_ref()
                .map(|r| r.alternative.clone())
                .unwrap_or_default();
            e.repair(args.without("restart_listing", "cursor", alternative))
        })?,
    };

    let mut compared = None;
    let (total, items) = match kind {
        "changes" => {
            let which = changes::resolve(catalog, since)?;
            if !changes::earlier(catalog).is_empty() {
                compared = Some(changes::since_json(catalog, which));
            }
            let matching: Vec<Value> = changes::entries(catalog, which)
                .into_iter()
                .filter(|e| {
                    prefix.is_none_or(|p| e["uri"].as_str().is_some_and(|u| u.starts_with(p)))
                })
                .collect();
            (
                matching.len(),
                matching.into_iter().skip(start).take(limit).collect(),
            )
        }
        "docs" => page(docs(catalog, prefix), start, limit, doc_record),
        _ => page(skills(catalog, prefix, tag), start, limit, |s| {
            skill_record(catalog, s)
        }),
    };
    if start > total {
        return Err(CatalogError::new(
            Code::CursorInvalid,
            "This cursor points past the end of the listing.",
        )
        .field("cursor", cursor.unwrap_or_default())
        .repair(args.without(
            "restart_listing",
            "cursor",
            "Repeat the request without a cursor.".into(),
        )));
    }
    let end = start + items.len();
    let has_more = end < total;
    let mut result = json!({
        "kind": kind,
        "items": items,
        "total": total,
        "has_more": has_more,
        "next_cursor": has_more.then(|| cursor::encode(catalog, &listing, end)),
    });
    if kind == "changes" {
        result["since"] = compared.unwrap_or(Value::Null);
    }
    Ok(result)
}

fn page<T: 'static>(
    matching: Vec<&'static T>,
    start: usize,
    limit: usize,
    record: impl Fn(&'static T) -> Value,
) -> (usize, Vec<Value>) {
    let items = matching
        .iter()
        .skip(start)
        .take(limit)
        .map(|item| record(*item))
        .collect();
    (matching.len(), items)
}

/// Skills (sorted by id: a prefix is one binary-searched run), then the tag filter.
fn skills(
    catalog: &Catalog,
    prefix: Option<&str>,
    tag: Option<&str>,
) -> Vec<&'static ArchivedSkill> {
    let all = catalog.skills();
    // Skill ids are lowercase by rule, so `PDF` finds `pdf`.
    let prefix = prefix.unwrap_or("").to_lowercase();
    let prefix = prefix.as_str();
    let start = all.partition_point(|s| s.id.as_str() < prefix);
    all[start..]
        .iter()
        .take_while(|s| s.id.as_str().starts_with(prefix))
        .filter(|s| tag.is_none_or(|tag| s.tags.iter().any(|t| t.as_str() == tag)))
        .collect()
}

/// Docs (after the skill documents, sorted by path).
fn docs(catalog: &Catalog, prefix: Option<&str>) -> Vec<&'static ArchivedDocument> {
    let docs = catalog.docs();
    let prefix = prefix.unwrap_or("");
    let start = docs.partition_point(|d| d.path.as_str() < prefix);
    docs[start..]
        .iter()
        .take_while(|d| d.path.as_str().starts_with(prefix))
        .collect()
}

fn skill_record(catalog: &Catalog, skill: &'static ArchivedSkill) -> Value {
    json!({
        "id": skill.id.as_str(),
        "title": skill.title.as_str(),
        "description": skill.description.as_str(),
        "tags": skill.tags.iter().map(|t| t.as_str()).collect::<Vec<_>>(),
        "capabilities": skill.capabilities.iter().map(|c| c.as_str()).collect::<Vec<_>>(),
        "uri": crate::uri::skill_document(&skill.id),
        "record_uri": crate::uri::skill_record(&skill.id),
        "size": catalog.document(skill.document.to_native()).content.len.to_native(),
        "files_bytes": skill.size.to_native(),
        "references": skill.references.len(),
    })
}

fn doc_record(doc: &'static ArchivedDocument) -> Value {
    json!({
        "path": doc.path.as_str(),
        "uri": doc.uri.as_str(),
        "title": doc.title.as_str(),
        "summary": doc.summary.as_str(),
        "size": doc.content.len.to_native(),
        "chunks": doc.chunk_count.to_native(),
    })
}

/// This release and what `kind: "changes"` compares with, for the description.
fn release_summary(catalog: &Catalog) -> String {
    // From the start-up facts: tools/list is built while the server starts.
    let startup = &catalog.archive().startup;
    let known = startup.earlier_releases.to_native();
    if known == 0 {
        format!(
            "{}, the first of its chain (no earlier release to compare with)",
            startup.release
        )
    } else {
        format!(
            "{}, which knows {known} earlier release(s)",
            startup.release
        )
    }
}
