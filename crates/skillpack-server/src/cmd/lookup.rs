//! From a URI a client sent to what it names: the exact perfect-hash lookup first (the
//! canonical spelling costs one hash probe), then parsing and canonicalisation, and when
//! nothing matches, an error that says precisely what is missing and what exists instead.

use super::changes;
use super::errors::{
    CANDIDATES, CatalogError, Code, FULL_SCAN, Repair, did_you_mean, did_you_mean_sorted,
};
use crate::catalog::Catalog;
use crate::model::{ArchivedDocument, ArchivedSkill, Target};
use crate::tables::DocumentTables;
use crate::uri::{self, Family, UriError};

/// A URI resolved to a catalog entry.
#[derive(Debug, Clone, Copy)]
pub struct Resolved {
    pub target: Target,
    /// The heading a `#anchor` names (its outline index), for document targets.
    pub heading: Option<u32>,
}

pub fn resolve(catalog: &Catalog, raw: &str) -> Result<Resolved, CatalogError> {
    let (base, fragment) = match raw.split_once('#') {
        Some((base, fragment)) => (base, Some(fragment)),
        None => (raw, None),
    };
    // Fast path: the canonical spelling, as listed everywhere the server names URIs.
    if base.len() <= uri::MAX_URI_BYTES
        && let Some(target) = catalog.lookup(base)
    {
        return match fragment {
            None => Ok(Resolved {
                target,
                heading: None,
            }),
            Some(_) => {
                let parsed = uri::parse(raw).map_err(|e| uri_error(raw, e))?;
                attach_anchor(catalog, raw, target, parsed.anchor.as_deref())
            }
        };
    }
    let parsed = uri::parse(raw).map_err(|e| uri_error(raw, e))?;
    // `since` names a release, resolved against the baked history rather than the index.
    if let Family::Changes { since } = &parsed.family {
        return changes::resolve(catalog, since.as_deref())
            .map(|which| Resolved {
                target: Target::Changes(which),
                heading: None,
            })
            .map_err(|e| e.uri(raw));
    }
    let canonical = parsed.canonical();
    if let Some(target) = catalog.lookup(&canonical) {
        return attach_anchor(catalog, raw, target, parsed.anchor.as_deref());
    }
    // A chunk: its document's URI, then the id in the document's chunk table.
    if let Some(chunk_id) = parsed.chunk.as_deref()
        && let Some(Target::Document(document)) = catalog.lookup(&parsed.base())
        && let Some((chunk, _)) = catalog.tables(document)?.chunk(chunk_id)
    {
        let target = Target::Chunk { document, chunk };
        if parsed.anchor.is_some() {
            return attach_anchor(catalog, raw, target, parsed.anchor.as_deref());
        }
        return Ok(Resolved {
            target,
            heading: None,
        });
    }
    Err(not_found(
        catalog,
        raw,
        &parsed.family,
        parsed.chunk.as_deref(),
        parsed.anchor.as_deref(),
    ))
}

fn attach_anchor(
    catalog: &Catalog,
    raw: &str,
    target: Target,
    anchor: Option<&str>,
) -> Result<Resolved, CatalogError> {
    let Some(anchor) = anchor else {
        return Ok(Resolved {
            target,
            heading: None,
        });
    };
    let Target::Document(index) = target else {
        return Err(CatalogError::new(
            Code::InvalidUri,
            "Only document URIs take a #anchor.",
        )
        .field("uri", raw)
        .reason("`#anchor` selects a section of a markdown document; this URI names something else")
        .uri(raw));
    };
    let document = catalog.document(index);
    let tables = catalog.tables(index)?;
    match tables.heading(anchor) {
        Some((heading, _)) => Ok(Resolved {
            target,
            heading: Some(heading),
        }),
        None => {
            let candidates = did_you_mean(
                anchor,
                tables.outline.iter().map(|h| h.anchor.as_str()),
                CANDIDATES,
            );
            let repair = match candidates.first() {
                Some(best) => Repair::read(
                    "read_closest_section",
                    &uri::anchor(&document.uri, best),
                    format!("Pick another anchor from the outline of {}.", document.uri),
                ),
                None => read_document_repair(document),
            };
            Err(CatalogError::new(
                Code::AnchorNotFound,
                format!(
                    "{} has no heading with the anchor `#{}`.",
                    document.uri,
                    uri::shorten(anchor)
                ),
            )
            .field("anchor", anchor)
            .reason("anchors are the GitHub-style slugs of the document's headings")
            .candidates(candidates)
            .repair(repair)
            .uri(raw))
        }
    }
}

fn uri_error(raw: &str, error: UriError) -> CatalogError {
    let (code, message) = match &error {
        UriError::Invalid(_) => (Code::InvalidUri, "This is not a URI of this catalog."),
        UriError::Path(_) => (
            Code::InvalidPath,
            "The URI's path is not a plain relative path inside the catalog.",
        ),
    };
    CatalogError::new(code, message)
        .field("uri", raw)
        .reason(error.reason())
        .repair(Repair::read(
            "read_capabilities",
            uri::CAPABILITIES,
            format!(
                "Read {} for the URI families this server serves, or {} / {} for every skill and doc URI.",
                uri::CAPABILITIES,
                uri::SKILLS_INDEX,
                uri::DOCS_INDEX
            ),
        ))
        .uri(raw)
}

pub fn skills_index_repair() -> Repair {
    Repair::list(
        "list_skills_then_retry",
        "skills",
        None,
        format!("Read {} for every skill id.", uri::SKILLS_INDEX),
    )
}

pub fn docs_index_repair() -> Repair {
    Repair::list(
        "list_docs_then_retry",
        "docs",
        None,
        format!("Read {} for every doc path.", uri::DOCS_INDEX),
    )
}

/// Read the document's summary: its outline anchors and chunk catalog.
pub fn read_document_repair(document: &ArchivedDocument) -> Repair {
    Repair::read(
        "read_document_summary",
        &document.uri,
        format!(
            "Read {} (resources/read): its _meta[\"io.skillpack/document\"] lists the outline anchors and chunk ids.",
            document.uri
        ),
    )
}

/// `uri` if the catalog serves it (the target of a suggested repair must exist).
fn served(catalog: &Catalog, uri: String) -> Option<String> {
    catalog.lookup(&uri).map(|_| uri)
}

/// The same request with the closest skill id in place of a wrong one, at the deepest
/// level that exists (a reference of that skill, else its document or record).
fn corrected_skill_uri(catalog: &Catalog, family: &Family, skill_id: &str) -> Option<String> {
    match family {
        Family::SkillRecord { .. } => served(catalog, uri::skill_record(skill_id)),
        Family::Reference { ref_id, .. } => served(catalog, uri::reference(skill_id, ref_id))
            .or_else(|| served(catalog, uri::skill_record(skill_id))),
        _ => served(catalog, uri::skill_document(skill_id)),
    }
}

pub fn skill_not_found(
    catalog: &Catalog,
    raw: &str,
    family: &Family,
    skill_id: &str,
) -> CatalogError {
    let candidates = did_you_mean_sorted(skill_id, catalog.skills(), |s| s.id.as_str(), CANDIDATES);
    let repair = candidates
        .first()
        .and_then(|best| corrected_skill_uri(catalog, family, best))
        .map(|corrected| {
            Repair::read(
                "read_closest_match",
                &corrected,
                format!(
                    "If that is not the skill you meant, list every skill id with {} {{\"kind\": \"skills\"}} or read {}.",
                    crate::contract::TOOL_LIST,
                    uri::SKILLS_INDEX
                ),
            )
        })
        .unwrap_or_else(skills_index_repair);
    CatalogError::new(
        Code::SkillNotFound,
        format!("No skill has the id `{}`.", uri::shorten(skill_id)),
    )
    .field("skill_id", skill_id)
    .reason("skill ids are the names of the skills compiled into this server")
    .candidates(candidates)
    .repair(repair)
    .uri(raw)
}

fn not_found(
    catalog: &Catalog,
    raw: &str,
    family: &Family,
    chunk: Option<&str>,
    anchor: Option<&str>,
) -> CatalogError {
    let skill_not_found = |skill_id: &str| skill_not_found(catalog, raw, family, skill_id);
    // The document exists but the chunk does not.
    if let Some(chunk_id) = chunk
        && let Some(Target::Document(index)) = catalog.lookup(&family.canonical())
    {
        let document = catalog.document(index);
        return match catalog.tables(index) {
            Ok(tables) => chunk_not_found(document, &tables, chunk_id).uri(raw),
            Err(damaged) => CatalogError::from(damaged).uri(raw),
        };
    }
    match family {
        Family::SkillRecord { skill_id } | Family::SkillDocument { skill_id } => {
            skill_not_found(skill_id)
        }
        Family::Reference { skill_id, ref_id } => {
            let Some(skill) = catalog.skill_by_id(skill_id) else {
                return skill_not_found(skill_id);
            };
            let skill = catalog.skill(skill);
            let candidates = did_you_mean(
                ref_id,
                skill.references.iter().map(|r| r.id.as_str()),
                CANDIDATES,
            );
            CatalogError::new(
                Code::ReferenceNotFound,
                format!(
                    "Skill `{}` has no reference `{}`.",
                    skill.id,
                    uri::shorten(ref_id)
                ),
            )
            .field("ref_id", ref_id)
            .reason(format!(
                "skill `{}` has {} reference(s), listed in its record",
                skill.id,
                skill.references.len()
            ))
            .candidates(candidates.clone())
            .repair(match candidates.first() {
                Some(best) => Repair::read(
                    "read_closest_match",
                    &uri::reference(&skill.id, best),
                    format!(
                        "If that is not the reference you meant, read {} for the skill's reference ids.",
                        uri::skill_record(&skill.id)
                    ),
                ),
                None => Repair::read(
                    "read_skill_record_then_retry",
                    &uri::skill_record(&skill.id),
                    format!(
                        "Read {} for the skill's reference ids.",
                        uri::skill_record(&skill.id)
                    ),
                ),
            })
            .uri(raw)
        }
        Family::Doc { path } => {
            let name = path.rsplit('/').next().unwrap_or(path);
            // Docs come last among the documents, sorted by path.
            let documents = catalog.documents();
            let first_doc =
                documents.partition_point(|d| d.kind != crate::model::ArchivedDocKind::Doc);
            let docs = &documents[first_doc..];
            // The same file name in another folder (a cheap comparison per doc)...
            let mut candidates: Vec<String> = docs
                .iter()
                .filter(|d| d.path.as_str().rsplit('/').next() == Some(name))
                .map(|d| d.path.as_str().to_owned())
                .take(CANDIDATES)
                .collect();
            // ...then paths that look alike.
            for c in did_you_mean_sorted(path, docs, |d| d.path.as_str(), CANDIDATES) {
                if candidates.len() < CANDIDATES && !candidates.contains(&c) {
                    candidates.push(c);
                }
            }
            CatalogError::new(
                Code::DocNotFound,
                format!("No doc at the path `{}`.", uri::shorten(path)),
            )
            .field("path", path.as_str())
            .reason("doc paths are relative to the docs folder the catalog was built from")
            .repair(doc_repair(catalog, path, anchor, candidates.first()))
            .candidates(candidates)
            .uri(raw)
        }
        Family::SkillPath { path } => skill_path_not_found(catalog, raw, path),
        Family::Capabilities | Family::SkillsIndex | Family::DocsIndex | Family::Changes { .. } => {
            // Always present; reaching here means the index is inconsistent.
            CatalogError::new(Code::InvalidUri, "This catalog resource is not available.")
                .field("uri", raw)
                .uri(raw)
        }
    }
}

fn skill_path_not_found(catalog: &Catalog, raw: &str, path: &str) -> CatalogError {
    // The longest skill folder that contains the path, if any: a skill folder's last
    // segment is its id, so each ancestor costs one lookup.
    let skill = std::iter::successors(Some(path), |p| p.rsplit_once('/').map(|(parent, _)| parent))
        .find_map(|folder| {
            let id = folder.rsplit('/').next().unwrap_or(folder);
            let skill = catalog.skill(catalog.skill_by_id(id)?);
            (skill.path.as_str() == folder).then_some(skill)
        });
    match skill {
        None => {
            let candidates = skill_path_candidates(catalog, path);
            CatalogError::new(
                Code::SkillNotFound,
                format!("No skill is served under `{}`.", uri::shorten(raw)),
            )
            .field("uri", raw)
            .reason("skill:// URIs are skill://<skill path>/<file>; skills/list gives every skill's SKILL.md URI")
            .candidates(candidates.clone())
            .repair(match candidates.first() {
                Some(best) => Repair::read(
                    "read_closest_match",
                    best,
                    format!(
                        "Call skills/list (or read {}) for every skill's SKILL.md URI; a skill's files are listed in its manifest.",
                        uri::SKILLS_INDEX
                    ),
                ),
                None => skills_index_repair(),
            })
            .uri(raw)
        }
        Some(skill) => {
            let files = catalog.skill_files(skill);
            let candidates = did_you_mean(raw, files.iter().map(|f| f.uri.as_str()), CANDIDATES);
            CatalogError::new(
                Code::FileNotFound,
                format!(
                    "Skill `{}` has no file at `{}`.",
                    skill.id,
                    uri::shorten(raw)
                ),
            )
            .field("uri", raw)
            .reason(format!(
                "skill `{}` has {} file(s), listed in its skills/get manifest",
                skill.id,
                files.len()
            ))
            .candidates(candidates.clone())
            .repair(match candidates.first() {
                Some(best) => Repair::read(
                    "read_closest_match",
                    best,
                    format!(
                        "If that is not the file you meant, read {} for the skill's files.",
                        uri::skill_record(&skill.id)
                    ),
                ),
                None => Repair::read(
                    "read_skill_record_then_retry",
                    &uri::skill_record(&skill.id),
                    format!(
                        "Read {} for the skill's files.",
                        uri::skill_record(&skill.id)
                    ),
                ),
            })
            .uri(raw)
        }
    }
}

/// A chunk id the document does not have; the repair reads the closest chunk, or the
/// document's summary (which lists every chunk).
pub fn chunk_not_found(
    document: &ArchivedDocument,
    tables: &DocumentTables,
    chunk_id: &str,
) -> CatalogError {
    let candidates = did_you_mean(
        chunk_id,
        tables.chunks.iter().map(|c| c.id.as_str()),
        CANDIDATES,
    );
    let repair = match candidates.first() {
        Some(best) => Repair::read_chunk(
            "read_closest_chunk",
            &document.uri,
            best,
            format!(
                "Pick another chunk id from the chunk catalog of {}.",
                document.uri
            ),
        ),
        None => read_document_repair(document),
    };
    CatalogError::new(
        Code::ChunkNotFound,
        format!(
            "{} has no chunk `{}`.",
            document.uri,
            uri::shorten(chunk_id)
        ),
    )
    .field("chunk_id", chunk_id)
    .reason(format!(
        "this document has {} chunk(s); its chunk catalog (catalog_read of the document with detail \"full\", or _meta of resources/read) lists their ids",
        tables.chunks.len()
    ))
    .candidates(candidates)
    .repair(repair)
}

/// Read the closest doc; else, for a section (`anchor`), search the docs for the words of
/// `path` and `anchor` when that finds anything; else list the docs of the deepest folder
/// of `path` that exists.
fn doc_repair(
    catalog: &Catalog,
    path: &str,
    anchor: Option<&str>,
    best: Option<&String>,
) -> Repair {
    if let Some(corrected) = best.and_then(|b| served(catalog, uri::doc(b))) {
        return Repair::read(
            "read_closest_match",
            &corrected,
            format!(
                "If that is not the doc you meant, list the docs with {} {{\"kind\": \"docs\"}} or read {}.",
                crate::contract::TOOL_LIST,
                uri::DOCS_INDEX
            ),
        );
    }
    let tree = &catalog.archive().completions.doc_tree;
    let mut folder = path;
    let mut listing = None;
    while let Some(slash) = folder.trim_end_matches('/').rfind('/') {
        folder = &folder[..=slash];
        if tree.iter().any(|e| e.path.as_str() == folder) {
            listing = Some(folder);
            break;
        }
    }
    // No doc has a path like it, and it names a section: most often a link the served
    // text holds to a page the tree does not (another site's, or a file left out of the
    // build). Listing a folder or every doc costs a page of records and says nothing of
    // what the link was for; its anchor and file name do, so the docs that speak of them
    // come first. A path without an anchor says too little (a file name) to search for,
    // and keeps the listing.
    if let Some(query) = anchor.and_then(|anchor| words_of_path(path, anchor))
        && finds_docs(catalog, &query)
    {
        let list = match listing {
            Some(folder) => format!(
                "{} {{\"kind\": \"docs\", \"prefix\": \"{folder}\"}}",
                crate::contract::TOOL_LIST
            ),
            None => format!("{} {{\"kind\": \"docs\"}}", crate::contract::TOOL_LIST),
        };
        return Repair::call(
            "search_for_its_words",
            crate::contract::TOOL_SEARCH,
            serde_json::json!({ "query": query, "kind": "docs" }),
            format!("Or list the doc paths with {list}."),
        );
    }
    match listing {
        Some(folder) => Repair::list(
            "list_folder_then_retry",
            "docs",
            Some(folder),
            format!("Read {} for every doc path.", uri::DOCS_INDEX),
        ),
        None => docs_index_repair(),
    }
}

/// Most bytes of a search for the words of a missing doc's path: a file name and an anchor
/// say what was sought in a few words, and a longer path is not a query.
const PATH_QUERY_BYTES: usize = 200;

/// What a link to a missing doc's section was for, as a query: the anchor's words
/// (`disabling-shell-modifications` → "disabling shell modifications"; `uv_lock_timeout`
/// stays one identifier), then the file name without its extension unless it only says
/// "index" or "readme". `None` when the anchor has no letter or digit: a file name alone
/// says too little to search for.
fn words_of_path(path: &str, anchor: &str) -> Option<String> {
    if !anchor.chars().any(char::is_alphanumeric) {
        return None;
    }
    let file = path.rsplit('/').next().unwrap_or(path);
    let stem = file.rsplit_once('.').map_or(file, |(stem, _)| stem);
    let stem = match stem.to_ascii_lowercase().as_str() {
        "index" | "_index" | "readme" => "",
        _ => stem,
    };
    let mut query = anchor.replace('-', " ").trim().to_owned();
    let stem = stem.trim();
    if !stem.is_empty() && !query.to_lowercase().contains(&stem.to_lowercase()) {
        query.push(' ');
        query.push_str(stem);
    }
    if query.len() > PATH_QUERY_BYTES {
        let mut end = PATH_QUERY_BYTES;
        while !query.is_char_boundary(end) {
            end -= 1;
        }
        query.truncate(end);
    }
    Some(query)
}

/// Whether a search of the docs for `query` has a hit: a repair that finds nothing is no
/// repair.
fn finds_docs(catalog: &Catalog, query: &str) -> bool {
    let index = crate::search::Index::from(catalog);
    let results = index.search(&crate::search::Request {
        query,
        kind: crate::search::Kind::Docs,
        offset: 0,
        limit: 1,
        also: &[],
    });
    !results.hits.is_empty()
}

/// For a `skill://` path under no skill: the same path under the skills whose folder path
/// is closest to the path's leading segments (`agent-friendly-mcpp/references/tools.md` →
/// `skill://agent-friendly-mcp/references/tools.md`), or their `SKILL.md` when the rest
/// of the path does not exist there.
fn skill_path_candidates(catalog: &Catalog, path: &str) -> Vec<String> {
    // Every skill is scored in a small catalog; in a large one only the skills whose id is
    // close to a segment of the path, so that a miss costs the same at any size.
    let skills = catalog.skills();
    let scanned: Vec<&ArchivedSkill> = if skills.len() <= FULL_SCAN {
        skills.iter().collect()
    } else {
        let mut near = std::collections::BTreeSet::new();
        for segment in path.split('/').take(8) {
            let segment = segment.to_lowercase();
            near.extend(did_you_mean_sorted(
                &segment,
                skills,
                |s| s.id.as_str(),
                CANDIDATES,
            ));
        }
        near.iter()
            .filter_map(|id| catalog.skill_by_id(id))
            .map(|i| catalog.skill(i))
            .collect()
    };
    let mut scored: Vec<(usize, &str, String)> = Vec::new();
    for skill in scanned {
        let depth = skill.path.as_str().split('/').count();
        let mut segments = path.splitn(depth + 1, '/');
        let head: Vec<&str> = segments.by_ref().take(depth).collect();
        let head = head.join("/");
        let rest = segments.next();
        let max = (skill.path.len() / 3).clamp(1, 3);
        // The distance is at least the length difference: skip the quadratic comparison
        // when that alone rules a skill out (hostile paths can be long).
        if head.chars().count().abs_diff(skill.path.chars().count()) > max {
            continue;
        }
        let distance = strsim::levenshtein(&head.to_lowercase(), skill.path.as_str());
        if distance > max {
            continue;
        }
        let same_file = rest
            .map(|rest| uri::skill_file(&format!("{}/{rest}", skill.path)))
            .filter(|candidate| catalog.lookup(candidate).is_some());
        let candidate = same_file.unwrap_or_else(|| skill.skill_md_uri.as_str().to_owned());
        scored.push((distance, skill.path.as_str(), candidate));
    }
    scored.sort();
    scored
        .into_iter()
        .take(CANDIDATES)
        .map(|(_, _, c)| c)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{PATH_QUERY_BYTES, words_of_path};

    #[test]
    fn a_missing_docs_path_becomes_the_words_of_its_anchor_and_file_name() {
        for (path, anchor, words) in [
            (
                "reference/environment.md",
                "uv_lock_timeout",
                Some("uv_lock_timeout environment"),
            ),
            (
                "reference/settings.md",
                "extra-build-dependencies",
                Some("extra build dependencies settings"),
            ),
            // A file name that only says "index" says nothing; a word said twice is said once.
            ("guide/caching/index.md", "cache-keys", Some("cache keys")),
            ("guide/cache.md", "cache", Some("cache")),
            ("guide/README.md", "pinning", Some("pinning")),
            // An anchor without a word: a file name alone is not searched for.
            ("guide/pinning.md", "--", None),
            ("guide/---.md", "--", None),
        ] {
            assert_eq!(
                words_of_path(path, anchor).as_deref(),
                words,
                "{path}#{anchor}"
            );
        }
        // A hostile anchor is cut, on a character boundary.
        let anchor = "é".repeat(500);
        let query = words_of_path("a.md", &anchor).unwrap();
        assert!(query.len() <= PATH_QUERY_BYTES, "{}", query.len());
    }
}
