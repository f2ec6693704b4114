//! Completion values from a list: values that start with what was typed come first, in
//! list order; then fuzzy matches (subsequences, scored by `nucleo-matcher`), then near
//! misses by edit distance (`strsim`), so a typo still completes. At most [`MAX_VALUES`]
//! values, with `total` and `hasMore`. Shared by every surface that completes something
//! (`completion/complete` for templates, each prompt for its arguments).

use std::collections::HashSet;

use nucleo_matcher::pattern::{AtomKind, CaseMatching, Normalization};
use nucleo_matcher::{Config, Matcher, Utf32Str};
use rmcp::model::{CompletionContext, CompletionInfo};

use crate::catalog::Catalog;

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

pub fn empty() -> CompletionInfo {
    ranked(Vec::new(), 0)
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

/// Completion over a small baked list: prefix matches in list order, then fuzzy.
pub fn from_list<'a>(value: &str, list: impl Iterator<Item = &'a str> + Clone) -> CompletionInfo {
    rank(value, prefix_scan(value, list.clone()), list, false)
}

/// Case-insensitive prefix matches, in list order (for short per-document lists).
pub fn prefix_scan<'a>(value: &str, list: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let typed = value.trim().to_lowercase();
    list.filter(|c| c.to_lowercase().starts_with(&typed))
        .collect()
}

/// Prefix matches first (as given), then every other candidate that matches fuzzily or
/// is a near miss. When the prefix matches alone fill a result, the fuzzy pass is skipped
/// and `total` counts the prefix matches (a lower bound, with `hasMore` set).
pub fn rank<'a>(
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
