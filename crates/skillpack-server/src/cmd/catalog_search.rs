//! Tool `catalog_search`: ranked full-text search over every section of every skill,
//! reference and doc, from the index baked at build time ([`crate::search`]). A hit names
//! the smallest pieces to read next (`section_uri`, `chunk_uri`) with a verbatim snippet;
//! on the first page the first hit also carries its whole section (`section_text`) when the
//! section is not large, and the runners-up theirs when small, within one budget per page,
//! so an agent can answer and cite from this one call. Pages follow
//! the house convention (`has_more`, `next_cursor`; opaque cursors bound to this binary,
//! the query and the kind).
//!
//! [`search`] is also what `skillpack search` prints ([`render_text`] for people) and what
//! the `find-skill` prompt ranks with.

use std::ops::Range;

use rmcp::model::{JsonObject, Tool};
use serde_json::{Map, Value, json};

use super::cursor;
use super::errors::{CatalogError, Code, Repair};
use super::tool_def::{Args, ToolDef, definition};
use crate::catalog::Catalog;
use crate::contract::{
    SEARCH_DEFAULT_LIMIT, SEARCH_MAX_LIMIT, SEARCH_SECTION_TEXT_BYTES, SEARCH_SMALL_SECTION_BYTES,
    TOOL_LIST, TOOL_SEARCH,
};
use crate::model::ArchivedDocKind;
use crate::search::fuse::MAX_ALSO;
use crate::search::{self, Hit, Index, Kind, MAX_QUERY_BYTES, MAX_RESULTS, Request};
use crate::uri;

pub const TOOL: ToolDef = ToolDef {
    name: TOOL_SEARCH,
    definition: define,
    call,
};

const ACCEPTED: &[&str] = &["query", "kind", "limit", "cursor", "also"];
const KINDS: &[&str] = &["all", "skills", "docs"];
const MAX_CURSOR_BYTES: usize = 256;

fn define(catalog: &Catalog) -> Tool {
    // Words of a skill id and of a doc title, picked at build time: queries that really
    // find something in this catalog.
    let startup = &catalog.archive().startup;
    let (skill_query, doc_query) = (startup.skill_query.as_str(), startup.doc_query.as_str());
    let example = |query: &str, extra: &str| {
        let mut args = json!({ "query": query });
        if !extra.is_empty() {
            args["kind"] = extra.into();
        }
        args.to_string()
    };
    let description = format!(
        "Search every skill, skill reference and doc of this catalog for the sections that \
         answer a question, best first. Use it when you know the topic but not the document: \
         it is much cheaper than reading documents to compare them. Each hit names the \
         document (uri), the section that matched (section_uri, heading_path) and the chunk \
         that holds it (chunk_uri), with their sizes in bytes (section_size, chunk_size) and \
         a verbatim snippet. On the first page, the first hit carries its whole section as \
         section_text when the section is at most {SEARCH_SECTION_TEXT_BYTES} bytes, and \
         later hits theirs when at most {SEARCH_SMALL_SECTION_BYTES} bytes, within \
         {SEARCH_SECTION_TEXT_BYTES} bytes of section text per page: if a carried section \
         answers the question, answer from it and cite that hit's section_uri, with no \
         other call. Otherwise call catalog_read with the best hit's section_uri or chunk_uri, \
         whichever is smaller and covers what you need. No two hits name the same chunk. \
         Write a question, a few keywords or a pasted error message: word forms are \
         stemmed; code identifiers (snake_case, CamelCase, a::b), error codes and words in \
         `backticks` match as written, weigh more than the prose around them and are never \
         dropped as common words; operators in code (-> !, ?, @) are matched in the \
         catalog's code. Words in \"double quotes\" rank sections holding that exact phrase \
         higher; a query that is nothing but one quoted phrase returns only sections holding \
         it. For a question in natural language, and above all when the user's words may not \
         be the docs' words (everyday words for a technical term), add \
         1–{MAX_ALSO_SUGGESTED} rephrasings in likely technical terms as `also`: each is \
         searched too and the rankings are fused, which puts the answering page first far \
         more often than the question alone. \
         `total` counts every section sharing a word with the query (how common the words \
         are, not how many sections answer): judge hits by rank, score and snippet. Pages \
         hold {SEARCH_DEFAULT_LIMIT} hits unless `limit` says otherwise: while has_more is \
         true, call again with the same query, kind and also plus cursor = next_cursor.\n\n\
         Examples: {} searches everything; {} searches only the docs; {} searches only \
         skills and their references.",
        example(skill_query, ""),
        example(doc_query, "docs"),
        example(skill_query, "skills"),
    );
    definition(
        TOOL_SEARCH,
        "Search skills and docs",
        description,
        json!({
            "type": "object",
            "properties": {
                "query": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": MAX_QUERY_BYTES,
                    "description": format!("What to look for: a question, a few keywords or an error message, at most {MAX_QUERY_BYTES} bytes. Words in \"double quotes\" rank that exact phrase higher; a query that is only one quoted phrase must appear as written.")
                },
                "kind": {
                    "type": "string",
                    "enum": KINDS,
                    "description": "Which documents to search: \"skills\" (skill documents and their references), \"docs\", or \"all\". Omitted means \"all\"."
                },
                "limit": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": SEARCH_MAX_LIMIT,
                    "description": format!("Hits per page, 1 to {SEARCH_MAX_LIMIT}. Omitted means {SEARCH_DEFAULT_LIMIT}.")
                },
                "cursor": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": MAX_CURSOR_BYTES,
                    "description": "The next_cursor of the previous page, passed back unchanged with the same query, kind and also. Omitted means the first page."
                },
                "also": also_schema()
            },
            "required": ["query"],
            "additionalProperties": false
        }),
        output_schema(),
    )
}

fn output_schema() -> Value {
    json!({
        "type": "object",
        "required": ["query", "kind", "hits", "total", "has_more", "next_cursor", "unknown_terms"],
        "properties": {
            "query": {"type": "string"},
            "kind": {"type": "string", "enum": KINDS},
            "hits": {"type": "array", "items": {"$ref": "#/$defs/hit"}},
            "total": {"type": "integer", "minimum": 0, "description": format!("Hits in the whole ranking: every section (no two in one chunk) that shares at least one word with the query. It says how common the query's words are, not how many sections answer; only the first {MAX_RESULTS} can be paged through.")},
            "has_more": {"type": "boolean", "description": "Whether another page follows (house pagination, not MCP's nextCursor)."},
            "next_cursor": {"type": ["string", "null"], "description": "Pass back as `cursor` for the next page; null on the last page."},
            "unknown_terms": {"type": "array", "items": {"type": "string"}, "description": "Query words found nowhere in the catalog; they were ignored."},
            "hint": {"type": "string", "description": "What to try next; present when the page has no hits."}
        },
        "additionalProperties": false,
        "$defs": {
            "hit": {
                "type": "object",
                "required": ["rank", "uri", "section_uri", "section_size", "chunk_uri", "chunk_size", "document_kind", "title", "heading_path", "snippet", "score"],
                "properties": {
                    "rank": {"type": "integer", "minimum": 1, "description": "Position in the whole ranking (1 = best)."},
                    "uri": {"type": "string", "description": "The document."},
                    "section_uri": {"type": "string", "description": "`<document uri>#<anchor>`: the section under the matched heading (the document URI when the match precedes every heading)."},
                    "section_size": {"type": "integer", "minimum": 0, "description": "Bytes of the section section_uri names (of the whole document when section_uri is the document URI)."},
                    "chunk_uri": {"type": "string", "description": "The chunk holding the match; no other hit names it."},
                    "chunk_size": {"type": "integer", "minimum": 0, "description": "Bytes of the chunk chunk_uri names."},
                    "document_kind": {"type": "string", "enum": ["skill", "reference", "doc"]},
                    "title": {"type": "string", "description": "The document's title."},
                    "heading_path": {"type": "array", "items": {"type": "string"}, "description": "Headings from the top of the document down to the matched section."},
                    "snippet": {"type": "string", "description": "A verbatim excerpt of the chunk around the matched words; on a hit that carries section_text, only the excerpt's first line (the section text holds the rest)."},
                    "section_text": {"type": "string", "description": format!("The whole section section_uri names, verbatim (what catalog_read of section_uri returns as text). Only on the first page, in rank order while the page's carried text stays within {SEARCH_SECTION_TEXT_BYTES} bytes: the first hit when section_size is at most {SEARCH_SECTION_TEXT_BYTES} bytes, a later hit when at most {SEARCH_SMALL_SECTION_BYTES} bytes.")},
                    "score": {"type": "number", "description": "Relevance; comparable only within one query."}
                },
                "additionalProperties": false
            }
        }
    })
}

/// The arguments of one search, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchArgs {
    pub query: String,
    pub kind: Kind,
    pub limit: usize,
    pub cursor: Option<String>,
    /// Alternative phrasings of the query ([`search::fuse`]); empty for a plain search.
    pub also: Vec<String>,
}

pub fn parse_kind(kind: &str) -> Option<Kind> {
    match kind {
        "skills" => Some(Kind::Skills),
        "docs" => Some(Kind::Docs),
        "all" => Some(Kind::All),
        _ => None,
    }
}

/// A query the tool cannot run. The repair lists the skills instead (browsing by
/// description always works), and the alternative says how to write a query.
fn bad_query(args: &Args<'_>, query: &str, reason: String) -> CatalogError {
    args.invalid("query", query, reason).repair(Repair::call(
        "rewrite_query",
        TOOL_LIST,
        json!({}),
        format!(
            "Pass a question or a few keywords as `query` (at most {MAX_QUERY_BYTES} bytes), or browse: catalog_list lists every skill and catalog_list {{\"kind\": \"docs\"}} every doc."
        ),
    ))
}

fn call(catalog: &Catalog, map: &JsonObject) -> Result<Value, CatalogError> {
    let args = Args::new(TOOL_SEARCH, map, ACCEPTED, &["query"])?;
    let query = match map.get("query") {
        Some(Value::String(q)) if q.len() > MAX_QUERY_BYTES => {
            return Err(bad_query(
                &args,
                q,
                format!(
                    "`query` is {} bytes long; at most {MAX_QUERY_BYTES} are accepted: keep the few words that matter",
                    q.len()
                ),
            ));
        }
        Some(Value::String(q)) if q.trim().is_empty() => {
            return Err(bad_query(
                &args,
                q,
                "`query` is empty: pass a question or a few keywords".into(),
            ));
        }
        _ => args.required_string("query", MAX_QUERY_BYTES)?,
    };
    let kind = args
        .choice("kind", KINDS)?
        .and_then(parse_kind)
        .unwrap_or(Kind::All);
    let limit = args
        .integer("limit", 1, SEARCH_MAX_LIMIT as u64)?
        .map_or(SEARCH_DEFAULT_LIMIT, |n| n as usize);
    let cursor = args.string("cursor", MAX_CURSOR_BYTES)?;
    let request = SearchArgs {
        query: query.to_owned(),
        kind,
        limit,
        cursor: cursor.map(str::to_owned),
        also: parse_also(&args, map)?,
    };
    search(catalog, &request).map_err(|error| match error.code {
        // Restart the same search without the cursor.
        Code::CursorInvalid => {
            let alternative = error
                .repair
                .as_ref()
                .map(|r| r.alternative.clone())
                .unwrap_or_default();
            error.repair(args.without("restart_search", "cursor", alternative))
        }
        _ => {
            let reason = error.reason.clone();
            bad_query(&args, query, reason)
        }
    })
}

/// Cursors are bound to the query and its alternative phrasings (whitespace aside) and the
/// kind they page through.
fn listing(args: &SearchArgs) -> String {
    let mut normalized = args.query.split_whitespace().collect::<Vec<_>>().join(" ");
    for phrasing in &args.also {
        normalized.push('\n');
        normalized.push_str(&phrasing.split_whitespace().collect::<Vec<_>>().join(" "));
    }
    let hash = blake3::hash(normalized.as_bytes()).to_hex();
    format!("{TOOL_SEARCH}/{}/{}", args.kind.as_str(), &hash[..16])
}

/// Run a search: the tool's `structuredContent`, or an error (`cursor_invalid`, or
/// `invalid_argument` on `query` for a query with no words at all).
pub fn search(catalog: &Catalog, args: &SearchArgs) -> Result<Value, CatalogError> {
    let listing = listing(args);
    let offset = match &args.cursor {
        Some(c) => cursor::decode(catalog, &listing, c)?,
        None => 0,
    };
    let index = Index::from(catalog);
    let also: Vec<&str> = args.also.iter().map(String::as_str).collect();
    let results = index.search(&Request {
        query: &args.query,
        kind: args.kind,
        offset,
        limit: args.limit,
        also: &also,
    });
    if results.empty_query {
        return Err(CatalogError::new(
            Code::InvalidArgument,
            format!("Invalid arguments for {TOOL_SEARCH}: `query` has no words to search for."),
        )
        .field("query", args.query.clone())
        .reason("`query` has no words to search for (only punctuation or symbols); pass a question or a few keywords"));
    }
    let mut hits: Vec<(Value, Range<usize>)> = results
        .hits
        .iter()
        .enumerate()
        .map(|(i, hit)| hit_json(&index, hit, offset + i + 1))
        .collect::<Result<_, _>>()?;
    if offset == 0 {
        let sizes: Vec<u64> = hits
            .iter()
            .map(|(_, section)| section.len() as u64)
            .collect();
        for (((json, section), hit), carry) in
            hits.iter_mut().zip(&results.hits).zip(carried(&sizes))
        {
            if carry {
                let document = index.document(hit.document);
                json["section_text"] = index.text_range(document, section.clone())?.into();
                // The section holds the snippet: its first line says where the match is
                // without sending the excerpt twice (7% of a page that carries, in the trials).
                let snippet = json["snippet"].as_str().unwrap_or_default();
                json["snippet"] = first_line(snippet).to_owned().into();
            }
        }
    }
    let hits: Vec<Value> = hits.into_iter().map(|(json, _)| json).collect();
    let mut out = Map::new();
    // The call's `also` is not echoed (the caller wrote it), unlike `query`, which the
    // output schema requires.
    out.insert("query".into(), args.query.clone().into());
    out.insert("kind".into(), args.kind.as_str().into());
    out.insert("total".into(), results.total.into());
    out.insert("has_more".into(), results.has_more.into());
    out.insert(
        "next_cursor".into(),
        match results.has_more {
            true => cursor::encode(catalog, &listing, offset + args.limit).into(),
            false => Value::Null,
        },
    );
    out.insert("unknown_terms".into(), json!(results.unknown));
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
    if !results.common.is_empty() {
        hint.push_str(&format!(
            " Common words ({}) are searched only in code, headings and titles, and none \
             holds these; add a word that names what you are looking for.",
            results.common.join(", ")
        ));
    }
    if args.query.contains('"') {
        hint.push_str(" Quoted phrases must appear exactly; try without quotes.");
    }
    hint.push_str(" Try other or fewer words");
    if args.kind != Kind::All {
        hint.push_str(", or kind \"all\"");
    }
    hint.push_str(&format!(
        "; or browse: {TOOL_LIST} {{}} lists every skill and {TOOL_LIST} {{\"kind\": \"docs\"}} every doc ({} and {}).",
        uri::SKILLS_INDEX,
        uri::DOCS_INDEX
    ));
    hint
}

/// Which hits of a first page carry their section's text, from their section sizes in rank
/// order: the first when its section is at most [`SEARCH_SECTION_TEXT_BYTES`], a later one
/// when at most [`SEARCH_SMALL_SECTION_BYTES`], each only while the page's carried text stays
/// within [`SEARCH_SECTION_TEXT_BYTES`]. A right first hit is read anyway (its bytes, an
/// envelope and a turn), and an answering section ranked below it is usually a short
/// sibling: carrying them saves calls at the same median bytes (the constants say how much).
pub fn carried(section_sizes: &[u64]) -> Vec<bool> {
    let mut left = SEARCH_SECTION_TEXT_BYTES as u64;
    section_sizes
        .iter()
        .enumerate()
        .map(|(i, &size)| {
            let most = if i == 0 {
                SEARCH_SECTION_TEXT_BYTES
            } else {
                SEARCH_SMALL_SECTION_BYTES
            };
            let carry = size <= most as u64 && size <= left;
            if carry {
                left -= size;
            }
            carry
        })
        .collect()
}

/// The first line of a snippet that holds any text, without its line break.
fn first_line(snippet: &str) -> &str {
    snippet
        .lines()
        .find(|line| !line.trim().is_empty())
        .unwrap_or(snippet)
}

/// A hit as the tool returns it, without `section_text`, and the byte range of the section
/// its `section_uri` names (what [`carried`] sizes and a carried hit quotes).
fn hit_json(
    index: &Index<'_>,
    hit: &Hit,
    rank: usize,
) -> Result<(Value, Range<usize>), CatalogError> {
    let document = index.document(hit.document);
    let tables = index.tables(hit.document)?;
    let chunk = &tables.chunks[hit.chunk as usize];
    let path = index.heading_path(hit, &tables);
    let snippet = index.text_range(document, hit.snippet.clone())?;
    let mut out = Map::new();
    out.insert("rank".into(), rank.into());
    out.insert("uri".into(), document.uri.as_str().into());
    out.insert(
        "chunk_uri".into(),
        uri::chunk(&document.uri, &chunk.id).into(),
    );
    out.insert("chunk_size".into(), (chunk.end - chunk.start).into());
    let own = path.last();
    let (section_uri, section) = match own {
        Some(h) => (
            uri::anchor(&document.uri, &h.anchor),
            u64::from(h.start)..u64::from(h.end),
        ),
        None => (
            document.uri.to_string(),
            0..u64::from(document.content.len.to_native()),
        ),
    };
    let section_size = section.end - section.start;
    out.insert("section_uri".into(), section_uri.into());
    out.insert("section_size".into(), section_size.into());
    // No `skill_id` or `anchor`: `uri` and `section_uri` name them, and every byte of a hit
    // is read by the model (3% of what trial agents read, 6% with the echoed `also`).
    let kind = match document.kind {
        ArchivedDocKind::Skill { .. } => "skill",
        ArchivedDocKind::Reference { .. } => "reference",
        ArchivedDocKind::Doc => "doc",
    };
    out.insert("document_kind".into(), kind.into());
    out.insert("title".into(), document.title.as_str().into());
    out.insert(
        "heading_path".into(),
        Value::Array(path.iter().map(|h| h.text.as_str().into()).collect()),
    );
    out.insert("snippet".into(), snippet.into());
    out.insert(
        "score".into(),
        json!(((hit.score as f64) * 1000.0).round() / 1000.0),
    );
    Ok((
        Value::Object(out),
        section.start as usize..section.end as usize,
    ))
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
        // The whole section when the hit carries it, as written; else the snippet on a line.
        let snippet = match hit["section_text"].as_str() {
            Some(section) => section.trim_end().replace('\n', "\n   "),
            None => hit["snippet"]
                .as_str()
                .unwrap_or_default()
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" "),
        };
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

/// How many rephrasings the tool description suggests (at most [`MAX_ALSO`] are accepted).
const MAX_ALSO_SUGGESTED: usize = 3;

fn also_schema() -> Value {
    json!({
        "type": "array",
        "maxItems": MAX_ALSO,
        "items": {"type": "string", "minLength": 1, "maxLength": MAX_QUERY_BYTES},
        "description": format!("Other phrasings of the same need, at most {MAX_ALSO} (each at most {MAX_QUERY_BYTES} bytes): for a question in natural language, and above all when the user's words may not be the docs' words, add 1–{MAX_ALSO_SUGGESTED} rephrasings in likely technical terms. Each is searched like `query` and the rankings are fused (by each phrasing's ranks and its scores against its own best): pages that several phrasings find rank higher, even through different sections. Omitted means the query alone.")
    })
}

/// The `also` argument, checked: an array of at most [`MAX_ALSO`] non-empty strings of at
/// most [`MAX_QUERY_BYTES`] bytes each.
fn parse_also(args: &Args<'_>, map: &JsonObject) -> Result<Vec<String>, CatalogError> {
    let items = match map.get("also") {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(items)) => items,
        Some(other) => {
            return Err(args.invalid(
                "also",
                &other.to_string(),
                "`also` must be an array of strings (alternative phrasings of the query)".into(),
            ));
        }
    };
    if items.len() > MAX_ALSO {
        return Err(args.invalid(
            "also",
            &Value::Array(items.clone()).to_string(),
            format!(
                "`also` has {} phrasings; at most {MAX_ALSO} are accepted: keep the 1–{MAX_ALSO_SUGGESTED} most different ones",
                items.len()
            ),
        ));
    }
    items
        .iter()
        .enumerate()
        .map(|(i, item)| match item {
            Value::String(s) if s.trim().is_empty() => Err(args.invalid(
                "also",
                s,
                format!("`also[{i}]` is empty: pass a rephrasing of the query or leave it out"),
            )),
            Value::String(s) if s.len() > MAX_QUERY_BYTES => Err(args.invalid(
                "also",
                s,
                format!(
                    "`also[{i}]` is {} bytes long; at most {MAX_QUERY_BYTES} are accepted: keep the few words that matter",
                    s.len()
                ),
            )),
            Value::String(s) => Ok(s.clone()),
            other => Err(args.invalid(
                "also",
                &other.to_string(),
                format!("`also[{i}]` must be a string"),
            )),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::tests::fixture;

    fn args(value: Value) -> JsonObject {
        value.as_object().cloned().unwrap()
    }

    #[test]
    fn results_conform_to_the_output_schema() {
        let catalog = fixture();
        let tool = define(&catalog);
        let schema = Value::Object(tool.output_schema.as_deref().cloned().unwrap());
        let validator = jsonschema::draft202012::new(&schema).unwrap();
        for query in ["hash map", "fill a pdf form", "qwxzzy", "widgets", "the"] {
            for kind in ["all", "skills", "docs"] {
                let result = call(
                    &catalog,
                    &args(json!({"query": query, "kind": kind, "limit": 3})),
                )
                .unwrap();
                let errors: Vec<String> = validator
                    .iter_errors(&result)
                    .map(|e| e.to_string())
                    .collect();
                assert!(errors.is_empty(), "{query}/{kind}: {errors:?}\n{result:#}");
                assert!(!render_text(&result).is_empty());
            }
        }
    }

    #[test]
    fn hits_name_uris_chunks_and_sections() {
        let catalog = fixture();
        let result = call(&catalog, &args(json!({"query": "entry API or_insert"}))).unwrap();
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
        // Carried: the section holds the match, the snippet its first line.
        let section = hit["section_text"].as_str().unwrap();
        assert!(section.contains("or_insert"), "{hit:#}");
        assert!(
            section.contains(hit["snippet"].as_str().unwrap()),
            "{hit:#}"
        );
        assert!(hit["section_size"].as_u64() < hit["chunk_size"].as_u64());
        let result = call(
            &catalog,
            &args(json!({"query": "radio buttons", "kind": "skills"})),
        )
        .unwrap();
        let hit = &result["hits"][0];
        assert!(
            hit["uri"]
                .as_str()
                .unwrap()
                .starts_with("resource://skills/pdf-forms/references/"),
            "{hit:#}"
        );
        assert_eq!(hit["document_kind"], "reference");
        // What the URIs name is not repeated.
        assert!(
            hit.get("skill_id").is_none() && hit.get("anchor").is_none(),
            "{hit:#}"
        );
    }

    #[test]
    fn cursors_page_and_are_bound_to_their_query() {
        let catalog = fixture();
        let first = call(
            &catalog,
            &args(json!({"query": "filler widgets", "limit": 15})),
        )
        .unwrap();
        assert_eq!(first["has_more"], true);
        let cursor = first["next_cursor"].as_str().unwrap().to_owned();
        let second = call(
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
        // The cursor of one query does not page another, nor another kind; the repair
        // restarts the same search.
        for other in [
            json!({"query": "hash", "cursor": cursor}),
            json!({"query": "filler widgets", "kind": "docs", "cursor": cursor}),
            json!({"query": "filler widgets", "cursor": "garbage"}),
        ] {
            let error = call(&catalog, &args(other.clone())).unwrap_err();
            assert_eq!(error.code, Code::CursorInvalid);
            let repair = error.into_body().repair.unwrap().tool.unwrap();
            assert_eq!(repair.0, TOOL_SEARCH);
            let mut expected = other.clone();
            expected.as_object_mut().unwrap().remove("cursor");
            assert_eq!(repair.1, expected);
        }
        // Whitespace does not change the query a cursor belongs to.
        assert!(
            call(
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
            let error = call(&catalog, &args(input.clone())).unwrap_err();
            assert_eq!(error.code, Code::InvalidArgument, "{input}");
            assert_eq!(error.field, field, "{input}");
        }
        let error = call(&catalog, &args(json!({"query": "a", "kind": "skill"}))).unwrap_err();
        assert_eq!(error.candidates[0], "skills");
        // An optional argument's mistake is repaired by the same search without it.
        let error = call(&catalog, &args(json!({"query": "hash", "limit": 0}))).unwrap_err();
        assert_eq!(
            error.into_body().repair.unwrap().tool.unwrap(),
            (TOOL_SEARCH, json!({"query": "hash"}))
        );
    }

    #[test]
    fn a_page_carries_the_first_section_up_to_the_budget_and_small_runners_up_within_it() {
        let most = SEARCH_SECTION_TEXT_BYTES as u64;
        let small = SEARCH_SMALL_SECTION_BYTES as u64;
        for (sizes, expected) in [
            (vec![], vec![]),
            (vec![most, 1, 1], vec![true, false, false]),
            (vec![most + 1, small, small], vec![false, true, true]),
            (vec![100, small + 1, small], vec![true, false, true]),
            // A runner-up that would overrun the page's budget is skipped, a smaller one
            // after it still fits.
            (vec![most - small + 1, small, 500], vec![true, false, true]),
            (vec![0, 0, 0], vec![true, true, true]),
            (vec![small; 6], vec![true, true, true, true, false, false]),
        ] {
            assert_eq!(carried(&sizes), expected, "{sizes:?}");
        }
    }

    fn phrasings(also: &Value) -> Vec<String> {
        also.as_array()
            .unwrap()
            .iter()
            .filter_map(|p| p.as_str().map(str::to_owned))
            .collect()
    }

    #[test]
    fn hits_carry_their_whole_section_by_the_page_rule_and_later_pages_never() {
        let catalog = fixture();
        let mut seen = false;
        for (query, also) in [
            ("radio buttons", json!([])),
            ("entry API or_insert", json!([])),
            ("filler widgets", json!([])),
            ("hash", json!([])),
            (
                "read a whole file",
                json!(["read_to_string", "whole file into a String"]),
            ),
            (
                "hash map entry",
                json!(["radio buttons", "flatten the form"]),
            ),
        ] {
            let result = call(&catalog, &args(json!({"query": query, "also": also}))).unwrap();
            let hits = result["hits"].as_array().unwrap();
            let sizes: Vec<u64> = hits
                .iter()
                .map(|h| h["section_size"].as_u64().unwrap())
                .collect();
            for (hit, carry) in hits.iter().zip(carried(&sizes)) {
                seen |= carry;
                match hit.get("section_text") {
                    Some(text) => {
                        assert!(carry, "{query}: {hit:#}");
                        // The whole section (a read of section_uri returns the same bytes:
                        // cmd::tools' tests).
                        let text = text.as_str().unwrap();
                        assert_eq!(text.len() as u64, hit["section_size"].as_u64().unwrap());
                        // Its snippet is one line of the section, the excerpt's first.
                        let snippet = hit["snippet"].as_str().unwrap();
                        assert!(
                            !snippet.trim().is_empty() && !snippet.contains('\n'),
                            "{hit:#}"
                        );
                        assert!(text.contains(snippet), "{query}");
                        let rank = hit["rank"].as_u64().unwrap() as usize;
                        if rank > 1 {
                            // The same hit alone on a later page: the whole excerpt.
                            let cursor = cursor::encode(
                                &catalog,
                                &listing(&SearchArgs {
                                    query: query.into(),
                                    kind: Kind::All,
                                    limit: 1,
                                    cursor: None,
                                    also: phrasings(&also),
                                }),
                                rank - 1,
                            );
                            let alone = call(&catalog, &args(json!({"query": query, "also": also, "limit": 1, "cursor": cursor}))).unwrap();
                            let whole = alone["hits"][0]["snippet"].as_str().unwrap();
                            assert_eq!(alone["hits"][0]["chunk_uri"], hit["chunk_uri"]);
                            assert_eq!(first_line(whole), snippet);
                        }
                    }
                    None => assert!(!carry, "{query}: {hit:#}"),
                }
            }
            // A later page never carries: its first hit is not the ranking's.
            let later = call(&catalog, &args(json!({"query": query, "also": also, "limit": 1, "cursor": cursor::encode(&catalog, &listing(&SearchArgs { query: query.into(), kind: Kind::All, limit: 1, cursor: None, also: phrasings(&also) }), 1)}))).unwrap();
            assert!(
                later["hits"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .all(|h| h.get("section_text").is_none())
            );
        }
        assert!(seen, "the fixture's small sections are carried");
    }

    #[test]
    fn a_mid_sized_section_is_carried_first_and_not_as_a_runner_up() {
        let catalog = crate::search::tests::compile_fixture(|write| {
            let filler = |word: &str, n: usize| {
                (0..n)
                    .map(|i| format!("Paragraph {i} says a little more about {word}.\n\n"))
                    .collect::<String>()
            };
            write(
                "docs/knobs.md",
                &format!(
                    "# Knobs\n\n## Tuning knobs\n\n{}## Other knobs\n\n{}## Gauges\n\n{}",
                    filler("knobs", 60),
                    filler("knobs", 50),
                    filler("calibrated gauges", 120)
                ),
            );
        });
        let result = call(&catalog, &args(json!({"query": "knobs"}))).unwrap();
        let hits = result["hits"].as_array().unwrap();
        assert!(hits.len() >= 2, "{result:#}");
        for hit in &hits[..2] {
            let size = hit["section_size"].as_u64().unwrap() as usize;
            assert!((SEARCH_SMALL_SECTION_BYTES + 1..=SEARCH_SECTION_TEXT_BYTES).contains(&size));
        }
        assert!(hits[0].get("section_text").is_some(), "{result:#}");
        assert!(hits[1].get("section_text").is_none(), "{result:#}");
        // Past the budget even a first hit that leads clearly carries nothing.
        let result = call(&catalog, &args(json!({"query": "calibrated gauges"}))).unwrap();
        let first = &result["hits"][0];
        assert!(first["section_size"].as_u64().unwrap() as usize > SEARCH_SECTION_TEXT_BYTES);
        assert!(first.get("section_text").is_none(), "{result:#}");
    }

    #[test]
    fn nonsense_queries_answer_with_a_hint() {
        let catalog = fixture();
        let result = call(&catalog, &args(json!({"query": "qwxzzy plorbnak"}))).unwrap();
        assert_eq!(result["hits"], json!([]));
        assert_eq!(result["has_more"], false);
        assert_eq!(result["next_cursor"], Value::Null);
        assert_eq!(result["unknown_terms"], json!(["qwxzzy", "plorbnak"]));
        let hint = result["hint"].as_str().unwrap();
        assert!(
            hint.contains("qwxzzy") && hint.contains(TOOL_LIST),
            "{hint}"
        );
        // Only common words: they are searched rather than dropped, where the index holds
        // them ("in" and "their" in a skill's description).
        let result = call(&catalog, &args(json!({"query": "in their"}))).unwrap();
        assert!(result["total"].as_u64() > Some(0), "{result:#}");
        // Common words the index holds nowhere (only prose has "the"): no hit, and a hint
        // that says why and what to do.
        let result = call(&catalog, &args(json!({"query": "the"}))).unwrap();
        assert_eq!(result["hits"], json!([]));
        assert_eq!(result["unknown_terms"], json!([]));
        let hint = result["hint"].as_str().unwrap();
        assert!(hint.contains("Common words (the)"), "{hint}");
    }

    #[test]
    fn description_examples_find_something() {
        let catalog = fixture();
        let tool = define(&catalog);
        let description = tool.description.as_deref().unwrap();
        let examples = description.split("Examples:").nth(1).unwrap();
        let mut found = 0;
        for piece in examples.split('{').skip(1) {
            let json_text = format!("{{{}", &piece[..=piece.find('}').unwrap()]);
            let arguments: Value = serde_json::from_str(&json_text).unwrap();
            let result = call(&catalog, arguments.as_object().unwrap()).unwrap();
            assert!(result["total"].as_u64() > Some(0), "{json_text}");
            found += 1;
        }
        assert_eq!(found, 3);
    }
}
