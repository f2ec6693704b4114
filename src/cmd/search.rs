//! `catalog_search` (tool) and `find-skill` (prompt): ranked full-text search over the
//! baked index ([`crate::search`]).
//!
//! Both are pure functions of the catalog and their arguments: [`run`] takes the tool's
//! JSON arguments and returns its `structuredContent` or a [`CatalogError`];
//! [`find_skill`] builds the prompt's messages. Their schemas are here too, next to the
//! code that honours them.

use rmcp::model::{GetPromptResult, PromptMessage, Role};
use serde_json::{Map, Value, json};

use super::cursor;
use super::errors::{CatalogError, Code, Repair, did_you_mean};
use crate::catalog::Catalog;
use crate::model::ArchivedDocKind;
use crate::search::{self, Hit, Index, Kind, MAX_QUERY_BYTES, MAX_RESULTS, Request};
use crate::uri;

pub const TOOL_NAME: &str = "catalog_search";
pub const PROMPT_NAME: &str = "find-skill";
pub const DEFAULT_LIMIT: usize = 10;
pub const MAX_LIMIT: usize = 50;
/// Skills a `find-skill` prompt proposes.
pub const FIND_SKILL_COUNT: usize = 5;

pub const TOOL_DESCRIPTION: &str = "Full-text search over every skill, skill reference and doc in this catalog; \
returns the sections that answer a question, best first.\n\n\
When to use: to find which document and which section covers a topic before reading it — \
cheaper than reading whole documents. Then read a hit's `chunk_uri` (or `section_uri`) with \
catalog_read or resources/read.\n\n\
Usage notes:\n\
- Write the question or a few keywords; stemming, code identifiers (`snake_case`, `CamelCase`, \
`a::b` paths) and \"quoted phrases\" (which must appear) are understood.\n\
- Each hit names the document (`uri`), the chunk that holds the match (`chunk_uri`), the \
section's heading path and anchor, and a verbatim snippet of the chunk.\n\
- Page with `next_cursor` while `has_more` is true.\n\n\
Example: {\"query\": \"how do I propagate errors with the ? operator\", \"kind\": \"docs\"}";

pub fn input_schema() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "query": {
                "type": "string",
                "minLength": 1,
                "maxLength": MAX_QUERY_BYTES,
                "description": "What to look for: a question or keywords. Words in \"double quotes\" must appear as a phrase."
            },
            "kind": {
                "type": "string",
                "enum": ["skills", "docs", "all"],
                "description": "Which documents to search: `skills` (skill documents and their references), `docs`, or `all`. Omitted means `all`."
            },
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_LIMIT,
                "description": format!("Hits per page. Omitted means {DEFAULT_LIMIT}.")
            },
            "cursor": {
                "type": "string",
                "description": "Opaque `next_cursor` from the previous page of the same query and kind. Omit for the first page."
            }
        },
        "required": ["query"],
        "additionalProperties": false
    })
}

pub fn output_schema() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "required": ["query", "kind", "hits", "total", "has_more"],
        "properties": {
            "query": {"type": "string"},
            "kind": {"type": "string", "enum": ["skills", "docs", "all"]},
            "hits": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["rank", "uri", "chunk_uri", "section_uri", "document_kind", "title", "heading_path", "snippet", "score"],
                    "properties": {
                        "rank": {"type": "integer", "minimum": 1, "description": "Position in the whole ranking (1 = best)."},
                        "uri": {"type": "string", "description": "The document."},
                        "chunk_uri": {"type": "string", "description": "The chunk holding the match: the smallest piece to read."},
                        "section_uri": {"type": "string", "description": "`<document uri>#<anchor>`: the section under the matched heading (the document URI when the match precedes every heading)."},
                        "document_kind": {"type": "string", "enum": ["skill", "reference", "doc"]},
                        "skill_id": {"type": "string", "description": "The skill a skill document or reference belongs to."},
                        "title": {"type": "string", "description": "The document's title."},
                        "heading_path": {"type": "array", "items": {"type": "string"}, "description": "Headings from the top of the document down to the matched section."},
                        "anchor": {"type": "string", "description": "Anchor of the matched section's heading."},
                        "snippet": {"type": "string", "description": "A verbatim excerpt of the chunk around the matched words."},
                        "score": {"type": "number", "description": "Relevance; comparable only within one query."}
                    },
                    "additionalProperties": false
                }
            },
            "total": {"type": "integer", "minimum": 0, "description": "Matching hits in all (only the first 200 can be paged through)."},
            "has_more": {"type": "boolean"},
            "next_cursor": {"type": "string", "description": "Pass back as `cursor` for the next page; present only when `has_more`."},
            "unknown_terms": {"type": "array", "items": {"type": "string"}, "description": "Query words found nowhere in the catalog; they were ignored."},
            "hint": {"type": "string", "description": "What to try when nothing matched."}
        },
        "additionalProperties": false
    })
}

/// The arguments of one search, validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchArgs {
    pub query: String,
    pub kind: Kind,
    pub limit: usize,
    pub cursor: Option<String>,
}

fn invalid(
    field: &'static str,
    value: impl Into<String>,
    reason: impl Into<String>,
) -> CatalogError {
    let reason = reason.into();
    CatalogError::new(Code::InvalidArgument, format!("Invalid `{field}`: {reason}"))
        .field(field, value)
        .reason(reason)
        .repair(Repair {
            next_step: "fix_argument_and_retry",
            tool: Some((TOOL_NAME, json!({"query": "error handling"}))),
            alternative: format!(
                "Call {TOOL_NAME} with a non-empty `query`, optional `kind` (skills, docs or all), `limit` (1–{MAX_LIMIT}) and the `cursor` of a previous page."
            ),
        })
}

pub fn parse_kind(value: &str) -> Result<Kind, CatalogError> {
    match value {
        "skills" => Ok(Kind::Skills),
        "docs" => Ok(Kind::Docs),
        "all" => Ok(Kind::All),
        other => Err(invalid("kind", other, "must be one of skills, docs, all")
            .candidates(did_you_mean(other, ["skills", "docs", "all"], 3))),
    }
}

impl SearchArgs {
    /// Validate tool arguments.
    pub fn from_json(arguments: &Map<String, Value>) -> Result<SearchArgs, CatalogError> {
        for key in arguments.keys() {
            if !matches!(key.as_str(), "query" | "kind" | "limit" | "cursor") {
                return Err(invalid(
                    "arguments",
                    key.clone(),
                    format!(
                        "unknown argument `{key}`; {TOOL_NAME} takes query, kind, limit and cursor"
                    ),
                )
                .candidates(did_you_mean(
                    key,
                    ["query", "kind", "limit", "cursor"],
                    3,
                )));
            }
        }
        let query = match arguments.get("query") {
            Some(Value::String(q)) => q.clone(),
            None | Some(Value::Null) => {
                return Err(invalid("query", "", "is required: the words to search for"));
            }
            Some(other) => return Err(invalid("query", other.to_string(), "must be a string")),
        };
        let kind = match arguments.get("kind") {
            None | Some(Value::Null) => Kind::All,
            Some(Value::String(k)) => parse_kind(k)?,
            Some(other) => {
                return Err(invalid(
                    "kind",
                    other.to_string(),
                    "must be one of skills, docs, all",
                ));
            }
        };
        let limit = match arguments.get("limit") {
            None | Some(Value::Null) => DEFAULT_LIMIT,
            Some(Value::Number(n)) => match n.as_u64() {
                Some(n) if (1..=MAX_LIMIT as u64).contains(&n) => n as usize,
                _ => {
                    return Err(invalid(
                        "limit",
                        n.to_string(),
                        format!("must be an integer from 1 to {MAX_LIMIT}"),
                    ));
                }
            },
            Some(other) => {
                return Err(invalid(
                    "limit",
                    other.to_string(),
                    format!("must be an integer from 1 to {MAX_LIMIT}"),
                ));
            }
        };
        let cursor = match arguments.get("cursor") {
            None | Some(Value::Null) => None,
            Some(Value::String(c)) => Some(c.clone()),
            Some(other) => return Err(invalid("cursor", other.to_string(), "must be a string")),
        };
        let args = SearchArgs {
            query,
            kind,
            limit,
            cursor,
        };
        args.check()?;
        Ok(args)
    }

    fn check(&self) -> Result<(), CatalogError> {
        if self.query.trim().is_empty() {
            return Err(invalid(
                "query",
                self.query.clone(),
                "is empty: pass a question or a few keywords",
            ));
        }
        if self.query.len() > MAX_QUERY_BYTES {
            return Err(invalid(
                "query",
                self.query.clone(),
                format!(
                    "is {} bytes long; at most {MAX_QUERY_BYTES}: keep the few words that matter",
                    self.query.len()
                ),
            ));
        }
        Ok(())
    }
}

/// Cursors are bound to the query and kind they page through.
fn listing(args: &SearchArgs) -> String {
    let normalized = args.query.split_whitespace().collect::<Vec<_>>().join(" ");
    let hash = blake3::hash(normalized.as_bytes()).to_hex();
    format!("search/{}/{}", args.kind.as_str(), &hash[..16])
}

/// `catalog_search`: the tool's `structuredContent`, or the error for its envelope.
pub fn run(catalog: &Catalog, arguments: &Map<String, Value>) -> Result<Value, CatalogError> {
    let args = SearchArgs::from_json(arguments)?;
    search(catalog, &args)
}

pub fn search(catalog: &Catalog, args: &SearchArgs) -> Result<Value, CatalogError> {
    args.check()?;
    let listing = listing(args);
    let offset = match &args.cursor {
        Some(c) => cursor::decode(catalog, &listing, c)?,
        None => 0,
    };
    let index = Index::from(catalog);
    let results = index.search(&Request {
        query: &args.query,
        kind: args.kind,
        offset,
        limit: args.limit,
    });
    if results.empty_query {
        return Err(invalid(
            "query",
            args.query.clone(),
            "has no words to search for (only punctuation or symbols)",
        ));
    }
    let hits: Vec<Value> = results
        .hits
        .iter()
        .enumerate()
        .map(|(i, hit)| hit_json(catalog, &index, hit, offset + i + 1))
        .collect();
    let mut out = Map::new();
    out.insert("query".into(), args.query.clone().into());
    out.insert("kind".into(), args.kind.as_str().into());
    out.insert("total".into(), results.total.into());
    out.insert("has_more".into(), results.has_more.into());
    if results.has_more {
        out.insert(
            "next_cursor".into(),
            cursor::encode(catalog, &listing, offset + args.limit).into(),
        );
    }
    if !results.unknown.is_empty() {
        out.insert("unknown_terms".into(), json!(results.unknown));
    }
    if hits.is_empty() {
        out.insert("hint".into(), hint(args, &results, offset).into());
    }
    out.insert("hits".into(), Value::Array(hits));
    Ok(Value::Object(out))
}

fn hint(args: &SearchArgs, results: &search::Results, offset: usize) -> String {
    if offset > 0 && results.total > 0 {
        return format!(
            "This page is past the last hit ({} in all, at most {MAX_RESULTS} reachable); repeat the search without a cursor.",
            results.total
        );
    }
    let mut hint = String::from("Nothing in the catalog matches this query");
    if args.kind != Kind::All {
        hint.push_str(&format!(" among {}", args.kind.as_str()));
    }
    hint.push('.');
    if !results.unknown.is_empty() {
        hint.push_str(&format!(
            " These words occur nowhere: {}.",
            results.unknown.join(", ")
        ));
    }
    if args.query.contains('"') {
        hint.push_str(" Quoted phrases must appear exactly; try without quotes.");
    }
    hint.push_str(" Try other or fewer words");
    if args.kind != Kind::All {
        hint.push_str(", or kind `all`");
    }
    hint.push_str("; browse every skill in resource://catalog/skills_index and every doc in resource://catalog/docs_index.");
    hint
}

fn hit_json(catalog: &Catalog, index: &Index<'_>, hit: &Hit, rank: usize) -> Value {
    let document = index.document(hit.document);
    let chunk = &document.chunks[hit.chunk as usize];
    let path = index.heading_path(hit);
    let text = index.text(document);
    let snippet = text.get(hit.snippet.clone()).unwrap_or_default();
    let mut out = Map::new();
    out.insert("rank".into(), rank.into());
    out.insert("uri".into(), document.uri.as_str().into());
    out.insert(
        "chunk_uri".into(),
        uri::chunk(&document.uri, &chunk.id).into(),
    );
    let own = path.last();
    out.insert(
        "section_uri".into(),
        match own {
            Some(h) => uri::anchor(&document.uri, &h.anchor),
            None => document.uri.to_string(),
        }
        .into(),
    );
    let (kind, skill) = match document.kind {
        ArchivedDocKind::Skill { skill } => ("skill", Some(skill.to_native())),
        ArchivedDocKind::Reference { skill, .. } => ("reference", Some(skill.to_native())),
        ArchivedDocKind::Doc => ("doc", None),
    };
    out.insert("document_kind".into(), kind.into());
    if let Some(skill) = skill {
        out.insert("skill_id".into(), catalog.skill(skill).id.as_str().into());
    }
    out.insert("title".into(), document.title.as_str().into());
    out.insert(
        "heading_path".into(),
        Value::Array(path.iter().map(|h| h.text.as_str().into()).collect()),
    );
    if let Some(h) = own {
        out.insert("anchor".into(), h.anchor.as_str().into());
    }
    out.insert("snippet".into(), snippet.into());
    out.insert(
        "score".into(),
        json!(((hit.score as f64) * 1000.0).round() / 1000.0),
    );
    Value::Object(out)
}

/// The text `content` that accompanies the structured result, for clients that show only
/// text: one block per hit.
pub fn render_text(result: &Value) -> String {
    let mut text = String::new();
    let hits = result["hits"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    if hits.is_empty() {
        text.push_str(result["hint"].as_str().unwrap_or("No hits."));
        text.push('\n');
        return text;
    }
    for hit in hits {
        let path: Vec<&str> = hit["heading_path"]
            .as_array()
            .map(|p| p.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let heading = if path.is_empty() {
            hit["title"].as_str().unwrap_or_default().to_owned()
        } else {
            path.join(" › ")
        };
        let snippet = hit["snippet"]
            .as_str()
            .unwrap_or_default()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        text.push_str(&format!(
            "{}. {} ({:.2})\n   {}\n   read: {}\n   {}\n",
            hit["rank"],
            heading,
            hit["score"].as_f64().unwrap_or_default(),
            hit["section_uri"].as_str().unwrap_or_default(),
            hit["chunk_uri"].as_str().unwrap_or_default(),
            snippet
        ));
    }
    if let Some(cursor) = result["next_cursor"].as_str() {
        text.push_str(&format!(
            "More hits ({} in all): pass cursor {cursor}\n",
            result["total"]
        ));
    }
    text
}

/// One skill proposed by `find-skill`.
#[derive(Debug, Clone, PartialEq)]
pub struct SkillMatch {
    pub skill: u32,
    pub score: f32,
    /// The best matching section of the skill (in its document or a reference).
    pub hit: Hit,
}

/// The skills that best match a task, best first: skill hits grouped by skill, each skill
/// ranked by its best hit.
pub fn find_skills(catalog: &Catalog, task: &str, count: usize) -> Vec<SkillMatch> {
    let index = Index::from(catalog);
    let results = index.search(&Request {
        query: task,
        kind: Kind::Skills,
        offset: 0,
        limit: MAX_RESULTS,
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

pub const PROMPT_DESCRIPTION: &str = "Find the skills that fit a task: the best matching skills with their descriptions and URIs, ready to read and follow.";

/// `find-skill`: a user message naming the best matching skills for `task`.
pub fn find_skill(catalog: &Catalog, task: &str) -> Result<GetPromptResult, CatalogError> {
    let task = task.trim();
    if task.is_empty() {
        return Err(CatalogError::new(
            Code::InvalidArgument,
            "Invalid `task`: describe the task to find a skill for.",
        )
        .field("task", "")
        .reason("is empty")
        .repair(Repair {
            next_step: "fix_argument_and_retry",
            tool: None,
            alternative: format!(
                "Get the prompt with a task, e.g. {{\"task\": \"build an MCP server\"}}, or read {} for every skill.",
                uri::SKILLS_INDEX
            ),
        }));
    }
    if task.len() > MAX_QUERY_BYTES {
        return Err(CatalogError::new(
            Code::InvalidArgument,
            format!("Invalid `task`: at most {MAX_QUERY_BYTES} bytes."),
        )
        .field("task", task)
        .reason("is too long"));
    }
    let matches = find_skills(catalog, task, FIND_SKILL_COUNT);
    let index = Index::from(catalog);
    let mut text = String::new();
    if matches.is_empty() {
        text.push_str(&format!(
            "Task: {task}\n\nNo skill in this catalog matches the task. Read {} to see every skill \
             (id, description, URI) and judge for yourself, or search the docs with {TOOL_NAME}.\n",
            uri::SKILLS_INDEX
        ));
    } else {
        text.push_str(&format!(
            "Task: {task}\n\nThese skills in this catalog match the task, best first. Pick the one \
             whose description fits, read its document URI and follow it; read a reference only \
             when the skill points you to it.\n"
        ));
        for (i, m) in matches.iter().enumerate() {
            let skill = catalog.skill(m.skill);
            let document = catalog.document(skill.document.to_native());
            let section = index.heading_path(&m.hit);
            let matched = index.document(m.hit.document);
            let matched_at = match section.last() {
                Some(h) => uri::anchor(&matched.uri, &h.anchor),
                None => matched.uri.to_string(),
            };
            text.push_str(&format!(
                "\n{}. {} — {}\n   document: {}\n   record: {}\n   best match: {}\n",
                i + 1,
                skill.id,
                skill.description.trim(),
                document.uri,
                uri::skill_record(&skill.id),
                matched_at,
            ));
        }
    }
    Ok(
        GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)])
            .with_description(format!("Skills matching: {task}")),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::tests::fixture;

    /// The subset of JSON Schema the tool schemas use: type, enum, required, properties,
    /// additionalProperties: false, items, minimum, minLength, maxLength.
    fn validate(schema: &Value, value: &Value, at: &str) -> Result<(), String> {
        if let Some(kind) = schema.get("type").and_then(Value::as_str) {
            let ok = match kind {
                "object" => value.is_object(),
                "array" => value.is_array(),
                "string" => value.is_string(),
                "integer" => value.is_i64() || value.is_u64(),
                "number" => value.is_number(),
                "boolean" => value.is_boolean(),
                other => return Err(format!("{at}: unsupported type {other}")),
            };
            if !ok {
                return Err(format!("{at}: expected {kind}, got {value}"));
            }
        }
        if let Some(options) = schema.get("enum").and_then(Value::as_array)
            && !options.contains(value)
        {
            return Err(format!("{at}: {value} is not one of {options:?}"));
        }
        if let (Some(min), Some(n)) = (
            schema.get("minimum").and_then(Value::as_f64),
            value.as_f64(),
        ) && n < min
        {
            return Err(format!("{at}: {n} < {min}"));
        }
        if let Some(object) = value.as_object() {
            let properties = schema.get("properties").and_then(Value::as_object);
            for required in schema
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let key = required.as_str().unwrap_or_default();
                if !object.contains_key(key) {
                    return Err(format!("{at}: missing required `{key}`"));
                }
            }
            for (key, item) in object {
                match properties.and_then(|p| p.get(key)) {
                    Some(sub) => validate(sub, item, &format!("{at}.{key}"))?,
                    None if schema.get("additionalProperties") == Some(&Value::Bool(false)) => {
                        return Err(format!("{at}: unexpected property `{key}`"));
                    }
                    None => {}
                }
            }
        }
        if let (Some(items), Some(array)) = (schema.get("items"), value.as_array()) {
            for (i, item) in array.iter().enumerate() {
                validate(items, item, &format!("{at}[{i}]"))?;
            }
        }
        Ok(())
    }

    fn args(value: Value) -> Map<String, Value> {
        value.as_object().cloned().unwrap()
    }

    #[test]
    fn results_conform_to_the_output_schema() {
        let catalog = fixture();
        for query in ["hash map", "fill a pdf form", "qwxzzy", "widgets"] {
            for kind in ["all", "skills", "docs"] {
                let result = run(
                    &catalog,
                    &args(json!({"query": query, "kind": kind, "limit": 3})),
                )
                .unwrap();
                validate(&output_schema(), &result, "result")
                    .unwrap_or_else(|e| panic!("{query}/{kind}: {e}\n{result:#}"));
                let text = render_text(&result);
                assert!(!text.is_empty());
            }
        }
        // Input schema: every property documented, unknown ones refused.
        let input = input_schema();
        assert_eq!(input["additionalProperties"], false);
        for (_, property) in input["properties"].as_object().unwrap() {
            assert!(
                property["description"]
                    .as_str()
                    .is_some_and(|d| !d.is_empty())
            );
        }
    }

    #[test]
    fn hits_name_uris_chunks_and_sections() {
        let catalog = fixture();
        let result = run(&catalog, &args(json!({"query": "entry API or_insert"}))).unwrap();
        let hit = &result["hits"][0];
        assert_eq!(hit["uri"], "resource://docs/guide.md");
        assert_eq!(hit["section_uri"], "resource://docs/guide.md#entry-api");
        assert_eq!(
            hit["chunk_uri"],
            "resource://docs/guide.md/chunks/hash-maps"
        );
        assert_eq!(
            hit["heading_path"],
            json!(["Guide", "Hash maps", "Entry API"])
        );
        assert_eq!(hit["document_kind"], "doc");
        assert!(hit["snippet"].as_str().unwrap().contains("or_insert"));
        let result = run(
            &catalog,
            &args(json!({"query": "radio buttons", "kind": "skills"})),
        )
        .unwrap();
        assert_eq!(result["hits"][0]["skill_id"], "pdf-forms");
        assert_eq!(result["hits"][0]["document_kind"], "reference");
    }

    #[test]
    fn cursors_page_and_are_bound_to_their_query() {
        let catalog = fixture();
        let first = run(
            &catalog,
            &args(json!({"query": "filler widgets", "limit": 15})),
        )
        .unwrap();
        assert_eq!(first["has_more"], true);
        let cursor = first["next_cursor"].as_str().unwrap().to_owned();
        let second = run(
            &catalog,
            &args(json!({"query": "filler widgets", "limit": 15, "cursor": cursor})),
        )
        .unwrap();
        assert_eq!(second["hits"][0]["rank"], 16);
        let mut seen: Vec<&Value> = first["hits"].as_array().unwrap().iter().collect();
        seen.extend(second["hits"].as_array().unwrap());
        let sections: std::collections::HashSet<&Value> =
            seen.iter().map(|h| &h["section_uri"]).collect();
        assert_eq!(sections.len(), 30, "pages do not overlap");
        // The cursor of one query does not page another, nor another kind.
        for other in [
            json!({"query": "hash", "cursor": cursor}),
            json!({"query": "filler widgets", "kind": "docs", "cursor": cursor}),
            json!({"query": "filler widgets", "cursor": "garbage"}),
        ] {
            let error = run(&catalog, &args(other)).unwrap_err();
            assert_eq!(error.code, Code::CursorInvalid);
        }
        // Whitespace does not change the query a cursor belongs to.
        assert!(
            run(
                &catalog,
                &args(json!({"query": " filler   widgets ", "limit": 15, "cursor": cursor}))
            )
            .is_ok()
        );
    }

    #[test]
    fn bad_arguments_get_specific_errors() {
        let catalog = fixture();
        let cases = [
            (json!({}), "query"),
            (json!({"query": ""}), "query"),
            (json!({"query": "   "}), "query"),
            (json!({"query": "?!"}), "query"),
            (json!({"query": 5}), "query"),
            (json!({"query": "x".repeat(MAX_QUERY_BYTES + 1)}), "query"),
            (json!({"query": "a", "kind": "skill"}), "kind"),
            (json!({"query": "a", "limit": 0}), "limit"),
            (json!({"query": "a", "limit": 51}), "limit"),
            (json!({"query": "a", "limit": "ten"}), "limit"),
            (json!({"query": "a", "cursor": 3}), "cursor"),
            (json!({"query": "a", "qurey": "b"}), "arguments"),
        ];
        for (input, field) in cases {
            let error = run(&catalog, &args(input.clone())).unwrap_err();
            assert_eq!(error.code, Code::InvalidArgument, "{input}");
            assert_eq!(error.field, field, "{input}");
            let envelope = error.tool_envelope(&catalog);
            assert_eq!(envelope["code"], "invalid_argument");
            assert_eq!(envelope["repair"]["tool"], TOOL_NAME, "{input}");
        }
        let error = run(&catalog, &args(json!({"query": "a", "kind": "skill"}))).unwrap_err();
        assert_eq!(error.candidates, ["skills"]);
    }

    #[test]
    fn nonsense_queries_answer_with_a_hint() {
        let catalog = fixture();
        let result = run(&catalog, &args(json!({"query": "qwxzzy plorbnak"}))).unwrap();
        assert_eq!(result["hits"], json!([]));
        assert_eq!(result["has_more"], false);
        assert_eq!(result["unknown_terms"], json!(["qwxzzy", "plorbnak"]));
        let hint = result["hint"].as_str().unwrap();
        assert!(
            hint.contains("qwxzzy") && hint.contains("skills_index"),
            "{hint}"
        );
    }

    #[test]
    fn find_skill_proposes_matching_skills_first() {
        let catalog = fixture();
        let matches = find_skills(&catalog, "fill out a PDF form", 5);
        assert_eq!(catalog.skill(matches[0].skill).id.as_str(), "pdf-forms");
        assert!(matches.iter().all(|m| m.score > 0.0));
        let prompt = find_skill(&catalog, "make slides with a theme").unwrap();
        let text = serde_json::to_value(&prompt.messages[0]).unwrap()["content"]["text"]
            .as_str()
            .unwrap()
            .to_owned();
        let slides = text.find("slides —").expect("slides proposed");
        assert!(text.contains("resource://skills/slides/document"), "{text}");
        assert!(
            text.contains("Build slide decks with a consistent theme."),
            "{text}"
        );
        if let Some(pdf) = text.find("pdf-forms —") {
            assert!(slides < pdf, "best match first:\n{text}");
        }
        let none = find_skill(&catalog, "qwxzzy").unwrap();
        let text = serde_json::to_value(&none.messages[0]).unwrap()["content"]["text"]
            .as_str()
            .unwrap()
            .to_owned();
        assert!(text.contains("No skill in this catalog matches"), "{text}");
        assert_eq!(
            find_skill(&catalog, "  ").unwrap_err().code,
            Code::InvalidArgument
        );
    }
}
