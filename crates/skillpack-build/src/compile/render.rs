//! Pre-render the JSON the server would otherwise build per request: the capability
//! summary, the skills and docs indexes and skill records, served verbatim. (A document's
//! `_meta` is built per read from the archived outline: see `cmd::resources::document_meta`.)

use std::collections::HashMap;

use serde_json::{Value, json};

use crate::contract;
use crate::model::{Catalog, DocKind, Document, Skill};
use crate::uri;

pub fn short_fingerprint(fingerprint: &str) -> &str {
    let hex = fingerprint.strip_prefix("blake3:").unwrap_or(fingerprint);
    &hex[..hex.len().min(12)]
}

pub fn server_version(crate_version: &str, fingerprint: &str) -> String {
    format!("{crate_version}+{}", short_fingerprint(fingerprint))
}

fn reference_entries(catalog: &Catalog, skill: &Skill) -> Vec<Value> {
    skill
        .references
        .iter()
        .map(|r| {
            let doc = &catalog.documents[r.document as usize];
            json!({
                "id": r.id,
                "uri": doc.uri,
                "title": doc.title,
                "path": doc.path,
                "size": doc.content.len,
                "chunks": doc.chunks.len(),
            })
        })
        .collect()
}

pub fn skill_record(catalog: &Catalog, skill: &Skill) -> String {
    let document = &catalog.documents[skill.document as usize];
    let files: Vec<Value> = catalog.files[skill.files_start as usize..skill.files_end as usize]
        .iter()
        .map(|f| {
            json!({
                "path": f.path.strip_prefix(&format!("{}/", skill.path)).unwrap_or(&f.path),
                "uri": f.uri,
                "mime_type": f.mime_type,
                "size": f.size,
                "sha256": f.sha256.to_string(),
            })
        })
        .collect();
    let frontmatter: Value = serde_json::from_str(&skill.frontmatter_json).unwrap_or(Value::Null);
    json!({
        "id": skill.id,
        "uri": uri::skill_record(&skill.id),
        "document_uri": document.uri,
        "skill_uri": skill.skill_md_uri,
        "title": document.title,
        "description": skill.description,
        "tags": skill.tags,
        "capabilities": skill.capabilities,
        "version": skill.version,
        "files_bytes": skill.size,
        "document": {
            "size": document.content.len,
            "chunks": document.chunks.len(),
            "outline": document.outline.iter().filter(|h| h.level <= 3).map(|h| json!({"level": h.level, "text": h.text, "anchor": h.anchor})).collect::<Vec<_>>(),
        },
        "references": reference_entries(catalog, skill),
        "files": files,
        "frontmatter": frontmatter,
    })
    .to_string()
}

pub fn skills_index(catalog: &Catalog) -> String {
    let skills: Vec<Value> = catalog
        .skills
        .iter()
        .map(|s| {
            json!({
                "id": s.id,
                "name": s.id,
                "description": s.description,
                "tags": s.tags,
                "capabilities": s.capabilities,
                "uri": catalog.documents[s.document as usize].uri,
                "record_uri": uri::skill_record(&s.id),
                // A size beside a URI is what a read of that URI returns; the folder's
                // total is something else.
                "size": catalog.documents[s.document as usize].content.len,
                "files_bytes": s.size,
                "references": s.references.len(),
            })
        })
        .collect();
    json!({
        "fingerprint": catalog.fingerprint,
        "count": skills.len(),
        "skills": skills,
    })
    .to_string()
}

/// `nav`: docs paths in the order the site's navigation shows them; docs it does not name
/// follow in path order (a plain tree has no nav: path order throughout).
pub fn docs_index(catalog: &Catalog, nav: &[(String, Option<String>)]) -> String {
    let rank: HashMap<&str, usize> = nav
        .iter()
        .enumerate()
        .map(|(i, (path, _))| (path.as_str(), i))
        .collect();
    let mut ordered: Vec<&Document> = catalog
        .documents
        .iter()
        .filter(|d| d.kind == DocKind::Doc)
        .collect();
    if !rank.is_empty() {
        // Stable: docs outside the nav keep their path order after it.
        ordered.sort_by_key(|d| rank.get(d.path.as_str()).copied().unwrap_or(usize::MAX));
    }
    let docs: Vec<Value> = ordered
        .into_iter()
        .map(|d| {
            json!({
                "path": d.path,
                "uri": d.uri,
                "title": d.title,
                "summary": d.summary,
                "size": d.content.len,
                "chunks": d.chunks.len(),
            })
        })
        .collect();
    json!({
        "fingerprint": catalog.fingerprint,
        "count": docs.len(),
        "docs": docs,
    })
    .to_string()
}

pub fn capabilities(catalog: &Catalog, crate_version: &str) -> String {
    let t = &catalog.totals;
    let families: Vec<Value> = [
        json!({"uri": uri::CAPABILITIES, "returns": "This summary."}),
        json!({"uri": uri::SKILLS_INDEX, "returns": "One compact record per skill: id, description, tags, capabilities, document uri, size (bytes of that document), files_bytes (all the skill's files)."}),
        json!({"uri": uri::DOCS_INDEX, "returns": "One record per doc: path, uri, title, summary, size, chunk count."}),
        json!({"uri": uri::CHANGES, "returns": "What changed since the previous release (documents, skill files, sections by anchor, each with the URI to read) and the earlier releases this one knows."}),
    ]
    .into_iter()
    .chain(contract::TEMPLATES.iter().map(|t| {
        json!({"uri_template": t.uri_template, "returns": t.description})
    }))
    .chain([
        json!({"uri_template": "skill://<skill-path>/<file-path>", "returns": "Any file of a skill, byte-exact (SEP-2640): text, or a base64 blob for binary files. skills/get lists every file with its sha256 digest and size."}),
        json!({"uri_template": "skill://<skill-path>", "returns": "A skill folder or one of its sub-folders (inode/directory), listed with resources/directory/read."}),
    ])
    .collect();
    let codes: Vec<Value> = contract::ERROR_CODES
        .iter()
        .map(|e| json!({"code": e.code, "meaning": e.meaning}))
        .collect();
    json!({
        "server": {
            "name": catalog.name,
            "version": server_version(crate_version, &catalog.fingerprint),
            "fingerprint": catalog.fingerprint,
            "contract_version": crate::model::CONTRACT_VERSION,
        },
        "release": {
            "label": catalog.history.label,
            "date": catalog.history.epoch.map(super::history::format_date).unwrap_or_default(),
            "earlier_releases": catalog.history.earlier.len(),
            "changes_uri": uri::CHANGES,
        },
        "summary": format!(
            "{} skills ({} references, {} skill files) and {} docs, compiled into this binary at build time and served read-only from memory.",
            t.skills, t.references, t.skill_files, t.docs
        ),
        "does": [
            "Serves Agent Skills (SKILL.md, references and their files) and markdown docs compiled into this binary.",
            "Reads whole documents, one precomputed chunk (<document uri>/chunks/{chunk_id}) or one section (<document uri>#<anchor>).",
            "Describes every document in _meta: version, outline with anchors, chunk catalog, resolved links.",
            "Searches every section of every skill, reference and doc with a full-text index built at compile time (tool catalog_search; prompt find-skill for skills): ranked hits name the section and chunk URI to read, with a verbatim snippet.",
            "Offers the same content through tools (catalog_list, catalog_read, catalog_search) for clients that cannot read resources, and through prompts (orient, use-skill, find-skill, one per skill).",
            "Completes skill ids, reference ids, doc paths, chunk ids, anchors and prompt arguments (completion/complete).",
            "Pins its content by fingerprint: serverInfo.version ends with the first 12 hex digits.",
            format!("Knows the {} earlier release(s) it was built against and what changed since each, down to sections by anchor: {} (or {}/{{since}}), the prompt whats-new and catalog_list {{\"kind\": \"changes\"}}. Sections and chunks whose bytes did not change keep their version.", catalog.history.earlier.len(), uri::CHANGES, uri::CHANGES),
            "Implements the SEP-2640 Skills extension (io.modelcontextprotocol/skills, with directoryRead): skills/list and skills/get return each skill's frontmatter and a complete file manifest with sha256 digests; every file is readable at its skill:// URI.",
        ],
        "does_not": [
            "Write, edit or delete anything: the catalog is read-only and fixed when the binary is built.",
            "Read the filesystem or the network at run time: it answers only from what was compiled in.",
            "Send change notifications: content never changes inside one binary; a new release has a new fingerprint.",
            "Run skill scripts: it serves their bytes; running them is up to the host.",
        ],
        "start_here": [
            format!("Read {} once to see every skill (id, description, document uri).", uri::SKILLS_INDEX),
            format!("Read {} for the docs.", uri::DOCS_INDEX),
            format!("Came back after an earlier release? Get the prompt whats-new, or read {}, and read only what changed.", uri::CHANGES),
            "Read a document's _meta outline and chunk catalog, then read only the chunks or #sections you need.",
            "With tools only: catalog_list {} (skills) or {\"kind\": \"docs\"}, then catalog_read {\"uri\": …} for a summary (outline, first chunk, chunk catalog), then chunk or section URIs.",
            "Looking for a topic rather than a name: catalog_search {\"query\": \"a few keywords\"}, then catalog_read the best hit's chunk_uri or section_uri.",
        ],
        "counts": {
            "skills": t.skills,
            "references": t.references,
            "skill_files": t.skill_files,
            "docs": t.docs,
            "chunks": t.chunks,
            "content_bytes": t.content_bytes,
        },
        "uri_families": families,
        "error_codes": codes,
        "error_carriers": {
            "resource_reads": "JSON-RPC error with error.data = {machine_code, human_message, details{field, value, reason, candidates}, temporary, retry_after_ms, repair{next_step, tool, arguments, alternative}, resource_uri, fingerprint}; prompts/get, skills/get, resources/directory/read and list cursors use the same carrier (completion never fails: it answers with an empty list)",
            "tool_results": "a result with isError: true and structuredContent = the same envelope with code/message in place of machine_code/human_message; the text content repeats the message, the candidates and the repair call",
            "repair": "repair.tool with repair.arguments is a tool call that works when made exactly as given; every error is permanent (temporary: false), so follow it rather than retrying",
        },
        "tools": contract::TOOLS.iter().map(|t| json!({"name": t.name, "purpose": t.purpose})).collect::<Vec<_>>(),
        "prompts": contract::PROMPTS
            .iter()
            .map(|p| json!({"name": p.name, "purpose": p.purpose}))
            .chain(std::iter::once(json!({"name": "<skill id>", "purpose": "One prompt per skill, named after its id: the same as use-skill with that skill."})))
            .collect::<Vec<_>>(),
        "completion": "completion/complete completes since (release labels and fingerprint prefixes), skill_id, ref_id (needs skill_id in context.arguments), path (segment by segment), chunk_id and anchor (need the template's other variables in context.arguments), and prompt arguments; prefix matches first, then fuzzy, at most 100 values with total and hasMore",
        "limits": {
            "chunk_bytes": catalog.chunk_bytes,
            "max_uri_bytes": uri::MAX_URI_BYTES,
            "max_message_bytes": contract::MAX_MESSAGE_BYTES,
            "resources_list_page_size": contract::RESOURCES_PAGE_SIZE,
            "skills_list_page_size": contract::SKILLS_PAGE_SIZE,
            "skills_list_page_files": contract::SKILLS_PAGE_FILES,
            "directory_read_page_size": contract::DIRECTORY_PAGE_SIZE,
            "catalog_list_default_limit": contract::LIST_DEFAULT_LIMIT,
            "catalog_list_max_limit": contract::LIST_MAX_LIMIT,
            "catalog_read_summary_text_bytes": contract::SUMMARY_TEXT_BYTES,
            "catalog_search_default_limit": contract::SEARCH_DEFAULT_LIMIT,
            "catalog_search_section_text_bytes": contract::SEARCH_SECTION_TEXT_BYTES,
            "catalog_search_small_section_bytes": contract::SEARCH_SMALL_SECTION_BYTES,
            "catalog_search_max_limit": contract::SEARCH_MAX_LIMIT,
            "catalog_search_max_query_bytes": crate::contract::SEARCH_MAX_QUERY_BYTES,
            "catalog_search_max_results": crate::contract::SEARCH_MAX_RESULTS,
        },
        "caching": {
            "ttl_ms": contract::CACHE_TTL_MS,
            "cache_scope": "public",
        },
    })
    .to_string()
}
