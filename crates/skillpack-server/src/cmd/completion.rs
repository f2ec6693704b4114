//! `completion/complete` for every template variable and every prompt argument.
//!
//! Values come from lists baked at build time: skill ids (the catalog's skills, sorted by
//! id), ref ids (each skill's references, sorted), chunk ids and anchors (each document's,
//! in reading order), doc paths (`completions.doc_tree`, grouped by folder) and topics
//! (`completions.topics`). Ranking: values that start with what was typed come first, in
//! list order; then fuzzy matches (subsequences, scored by `nucleo-matcher`), then near
//! misses by edit distance (`strsim`), so a typo still completes. At most
//! [`MAX_VALUES`] values, with `total` and `hasMore`.
//!
//! Variables that depend on others read them from `context.arguments`: `ref_id` needs
//! `skill_id`; `chunk_id` and `anchor` need whatever names the document in the same
//! template (`skill_id`, `skill_id` + `ref_id`, or `path`). Without that context, or for a
//! template, prompt or argument this server does not have, the answer is an empty list,
//! never an error: completion is a hint, and clients (and the conformance suite) expect a
//! result.

use std::collections::HashSet;

use nucleo_matcher::pattern::{AtomKind, CaseMatching, Normalization};
use nucleo_matcher::{Config, Matcher, Utf32Str};
use rmcp::model::{CompleteRequestParams, CompletionContext, CompletionInfo, Reference};

use super::prompts;
use crate::catalog::Catalog;
use crate::contract;
use crate::model::{ArchivedDocument, ArchivedTarget};
use crate::uri;

/// The protocol's limit on values per completion result.
pub const MAX_VALUES: usize = CompletionInfo::MAX_VALUES;
/// Longer typed values complete to nothing.
const MAX_TYPED_BYTES: usize = 1024;

/// Values of already-filled arguments (`context.arguments`).
#[derive(Clone, Copy, Default)]
pub struct Context<'a>(Option<&'a CompletionContext>);

impl<'a> Context<'a> {
    pub fn new(context: Option<&'a CompletionContext>) -> Self {
        Context(context)
    }

    pub fn get(&self, name: &str) -> Option<&'a str> {
        self.0
            .and_then(|c| c.get_argument(name))
            .map(|v| v.trim())
            .filter(|v| !v.is_empty())
    }
}

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

pub fn empty() -> CompletionInfo {
    ranked(Vec::new(), 0)
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
        "since" => super::changes::complete_since(catalog, value),
        "chunk_id" => match template_document(catalog, template.uri_template, context) {
            Some(document) => rank(
                value,
                prefix_scan(value, document.chunks.iter().map(|c| c.id.as_str())),
                document.chunks.iter().map(|c| c.id.as_str()),
                false,
            ),
            None => empty(),
        },
        "anchor" => match template_document(catalog, template.uri_template, context) {
            Some(document) => rank(
                value,
                prefix_scan(value, document.outline.iter().map(|h| h.anchor.as_str())),
                document.outline.iter().map(|h| h.anchor.as_str()),
                false,
            ),
            None => empty(),
        },
        _ => empty(),
    }
}

/// The document a chunk or section template points at, named by the template's other
/// variables in the context: `skill_id` (+ `ref_id`) for skill templates, `path` for docs.
fn template_document(
    catalog: &Catalog,
    uri_template: &str,
    context: Context<'_>,
) -> Option<&'static ArchivedDocument> {
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
        ArchivedTarget::Document(index) => Some(catalog.document(index.to_native())),
        _ => None,
    }
}

/// Skill ids (sorted at build time, so prefix matches are one binary-searched run).
pub fn skill_ids(catalog: &Catalog, value: &str) -> CompletionInfo {
    let skills = catalog.skills();
    let typed = value.trim().to_lowercase();
    let start = skills.partition_point(|s| s.id.as_str() < typed.as_str());
    let prefixed = skills[start..]
        .iter()
        .take_while(|s| s.id.as_str().starts_with(typed.as_str()))
        .map(|s| s.id.as_str());
    rank(
        &typed,
        prefixed.collect(),
        skills.iter().map(|s| s.id.as_str()),
        false,
    )
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

/// Completion over a small baked list: prefix matches in list order, then fuzzy.
pub fn from_list<'a>(value: &str, list: impl Iterator<Item = &'a str> + Clone) -> CompletionInfo {
    rank(value, prefix_scan(value, list.clone()), list, false)
}

/// Case-insensitive prefix matches, in list order (for short per-document lists).
fn prefix_scan<'a>(value: &str, list: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let typed = value.trim().to_lowercase();
    list.filter(|c| c.to_lowercase().starts_with(&typed))
        .collect()
}

/// Prefix matches first (as given), then every other candidate that matches fuzzily or
/// is a near miss. When the prefix matches alone fill a result, the fuzzy pass is skipped
/// and `total` counts the prefix matches (a lower bound, with `hasMore` set).
fn rank<'a>(
    value: &str,
    prefixed: Vec<&'a str>,
    all: impl Iterator<Item = &'a str>,
    paths: bool,
) -> CompletionInfo {
    let typed = value.trim();
    // Nothing this long is a prefix or a typo of a catalog value; do not spend time on it.
    if typed.len() > MAX_TYPED_BYTES {
        return empty();
    }
    if prefixed.len() >= MAX_VALUES || typed.is_empty() {
        let total = prefixed.len();
        return ranked(prefixed, total);
    }
    let seen: HashSet<&str> = prefixed.iter().copied().collect();
    let config = if paths {
        Config::DEFAULT.match_paths()
    } else {
        Config::DEFAULT
    };
    let mut matcher = Matcher::new(config);
    let atom = nucleo_matcher::pattern::Atom::new(
        typed,
        CaseMatching::Ignore,
        Normalization::Smart,
        AtomKind::Fuzzy,
        false,
    );
    let lower = typed.to_lowercase();
    // Near misses: a third of the length, at most 3 edits (as in did-you-mean).
    let max_distance = (lower.chars().count() / 3).clamp(1, 3);
    let mut buffer = Vec::new();
    let mut fuzzy: Vec<(u16, &str)> = Vec::new();
    let mut near: Vec<(usize, &str)> = Vec::new();
    let mut considered: HashSet<&str> = HashSet::new();
    for candidate in all {
        // What was typed in full completes to nothing new.
        if seen.contains(candidate) || candidate == typed || !considered.insert(candidate) {
            continue;
        }
        if let Some(score) = atom.score(Utf32Str::new(candidate, &mut buffer), &mut matcher) {
            fuzzy.push((score, candidate));
            continue;
        }
        // For a path, the typo is usually in its last segment: compare that too.
        let name = candidate.trim_end_matches('/');
        let name = if paths {
            name.rsplit('/').next().unwrap_or(name)
        } else {
            candidate
        };
        if let Some(distance) = [candidate, name]
            .into_iter()
            .filter_map(|c| near_miss(&lower, c, max_distance))
            .min()
        {
            near.push((distance, candidate));
        }
    }
    fuzzy.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
    near.sort();
    let mut values = prefixed;
    values.extend(fuzzy.into_iter().map(|(_, c)| c));
    values.extend(near.into_iter().map(|(_, c)| c));
    let total = values.len();
    ranked(values, total)
}

/// The edit distance between `typed` (lowercase) and `candidate` if it is at most `max`.
/// The distance is at least the length difference, which rules most candidates out
/// without the quadratic comparison.
fn near_miss(typed: &str, candidate: &str, max: usize) -> Option<usize> {
    if typed.chars().count().abs_diff(candidate.chars().count()) > max {
        return None;
    }
    let distance = strsim::levenshtein(typed, &candidate.to_lowercase());
    (distance <= max).then_some(distance)
}

fn ranked(mut values: Vec<&str>, total: usize) -> CompletionInfo {
    values.truncate(MAX_VALUES);
    let mut info = CompletionInfo::default();
    info.has_more = Some(total > values.len());
    info.total = Some(u32::try_from(total).unwrap_or(u32::MAX));
    info.values = values.into_iter().map(str::to_owned).collect();
    info
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(info: &CompletionInfo) -> Vec<&str> {
        info.values.iter().map(String::as_str).collect()
    }

    #[test]
    fn prefix_first_then_fuzzy_then_typos() {
        let list = ["docx", "pdf", "pdf-forms", "pptx", "xlsx", "skill-creator"];
        let info = from_list("pdf", list.iter().copied());
        assert_eq!(values(&info)[..2], ["pdf", "pdf-forms"]);
        let info = from_list("sc", list.iter().copied());
        assert_eq!(values(&info), ["skill-creator"]);
        let info = from_list("pdg", list.iter().copied());
        assert!(values(&info).contains(&"pdf"), "{info:?}");
        let info = from_list("zzzz", list.iter().copied());
        assert!(info.values.is_empty());
        assert_eq!(info.total, Some(0));
        assert_eq!(info.has_more, Some(false));
    }

    #[test]
    fn caps_at_one_hundred_with_total() {
        let owned: Vec<String> = (0..250).map(|i| format!("item-{i:03}")).collect();
        let info = from_list("item", owned.iter().map(String::as_str));
        assert_eq!(info.values.len(), MAX_VALUES);
        assert_eq!(info.total, Some(250));
        assert_eq!(info.has_more, Some(true));
    }
}
