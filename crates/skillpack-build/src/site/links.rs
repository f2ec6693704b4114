//! Links as the site resolves them: the docs file a site URL or path names.
//!
//! Generators publish `guide/intro.md` at `/guide/intro/` (or `.html`, or extensionless),
//! `guide/index.md` and `_index.md` and `README.md` at `/guide/`, and let authors link by
//! URL, by file, root-absolute or relative. A link resolves when any of the spellings its
//! generator accepts names a page; pages may publish extra URLs (`slug:`, `permalink:`).
//! Only links to nothing the site has stay broken.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use super::{Site, strip_page_extension};

/// Every page by its file and by the URLs the site publishes it at.
#[derive(Debug, Default)]
pub struct UrlIndex {
    /// Docs-relative paths of served pages and other docs files.
    files: HashSet<String>,
    /// URL path (no base, no leading/trailing `/`, no `.html`) → page.
    urls: HashMap<String, String>,
    /// The same URL paths lowercased: generators publish lowercased URLs (Hugo by
    /// default, Jekyll's slugs), so `/functions/getremote/` names `functions/GetRemote.md`.
    lower: HashMap<String, String>,
    /// The docs root's path below the site project (`docs` for `@site/docs/…`).
    docs_in_project: String,
}

impl UrlIndex {
    /// `pages`: served pages with their frontmatter; `others`: every other docs file
    /// (assets links may name).
    pub fn build<'a>(
        site: &Site,
        pages: impl IntoIterator<Item = (&'a str, Option<&'a Map<String, Value>>)>,
        others: impl IntoIterator<Item = &'a str>,
    ) -> UrlIndex {
        let mut index = UrlIndex::default();
        for (rel, frontmatter) in pages {
            index.files.insert(rel.to_owned());
            index
                .urls
                .entry(url_key(rel))
                .or_insert_with(|| rel.to_owned());
            if let Some(generator) = &site.generator {
                for url in generator.urls(rel, frontmatter) {
                    let key = normalize_url(&url);
                    index.urls.entry(key).or_insert_with(|| rel.to_owned());
                }
            }
        }
        for rel in others {
            index.files.insert(rel.to_owned());
        }
        let mut urls: Vec<(&String, &String)> = index.urls.iter().collect();
        urls.sort();
        for (url, rel) in urls {
            index
                .lower
                .entry(url.to_lowercase())
                .or_insert_with(|| rel.clone());
        }
        let docs = site
            .detection
            .docs
            .canonicalize()
            .unwrap_or(site.detection.docs.clone());
        let project = site
            .detection
            .project
            .canonicalize()
            .unwrap_or(site.detection.project.clone());
        index.docs_in_project = docs
            .strip_prefix(&project)
            .map(|p| p.to_string_lossy().replace('\\', "/"))
            .unwrap_or_default();
        index
    }

    /// The docs file `path` (a link's path part, percent-decoded, no `?` or `#`) names
    /// from the page `from_rel`, as the site resolves it.
    pub fn resolve(&self, site: &Site, from_rel: &str, path: &str) -> Option<String> {
        let base = site.settings().base_path;
        let mut candidates: Vec<String> = Vec::new();
        if let Some(rest) = path.strip_prefix("@site/") {
            // Docusaurus: a path from the site project.
            let rest = rest.trim_start_matches("./");
            let in_docs = rest
                .strip_prefix(&self.docs_in_project)
                .map(|r| r.trim_start_matches('/'));
            candidates.push(in_docs.unwrap_or(rest).to_owned());
        } else if let Some(rest) = path.strip_prefix('/') {
            let base = base.trim_matches('/');
            let rest_unbased = if !base.is_empty() {
                rest.strip_prefix(base).map(|r| r.trim_start_matches('/'))
            } else {
                None
            };
            if let Some(r) = rest_unbased {
                candidates.push(r.to_owned());
            }
            candidates.push(rest.to_owned());
            // A locale's pages link within the locale: `/guide/` from `de/…` is `de/guide/`.
            if let Some(locale) = site.locale_of(from_rel) {
                candidates.push(format!("{locale}/{rest}"));
            }
        } else {
            let dir = from_rel.rsplit_once('/').map_or("", |(d, _)| d);
            if let Some(joined) = join(dir, path) {
                candidates.push(joined);
            }
            // Pretty URLs: `a/b.md` is served at `a/b/`, so `../c` from it is `a/c`.
            let page_url = url_key(from_rel);
            if let Some(joined) = join(&page_url, path) {
                candidates.push(joined);
            }
        }
        candidates.iter().find_map(|c| self.lookup(c))
    }

    fn lookup(&self, candidate: &str) -> Option<String> {
        let c = candidate.trim_matches('/');
        if self.files.contains(c) {
            return Some(c.to_owned());
        }
        let stem = c
            .strip_suffix(".html")
            .or_else(|| c.strip_suffix(".htm"))
            .unwrap_or(c);
        let tries = [
            format!("{stem}.md"),
            format!("{stem}.mdx"),
            format!("{stem}.markdown"),
            format!("{stem}/index.md"),
            format!("{stem}/index.mdx"),
            format!("{stem}/_index.md"),
            format!("{stem}/README.md"),
            format!("{stem}/readme.md"),
        ];
        if let Some(found) = tries
            .iter()
            .find(|t| self.files.contains(t.trim_start_matches('/')))
        {
            return Some(found.trim_start_matches('/').to_owned());
        }
        let url = normalize_url(c);
        self.urls
            .get(&url)
            .or_else(|| self.lower.get(&url.to_lowercase()))
            .cloned()
    }
}

/// The URL path a page's file gives it: no extension, `index`/`_index`/`README` as their
/// folder.
pub fn url_key(rel: &str) -> String {
    let stem = strip_page_extension(rel);
    let (dir, name) = stem.rsplit_once('/').unwrap_or(("", stem));
    if matches!(name, "index" | "_index" | "README" | "readme") {
        dir.to_owned()
    } else {
        stem.to_owned()
    }
}

/// A URL path as [`UrlIndex`] keys it.
pub fn normalize_url(url: &str) -> String {
    let url = url.split(['#', '?']).next().unwrap_or("");
    let url = url.trim_matches('/');
    let url = url
        .strip_suffix(".html")
        .or_else(|| url.strip_suffix(".htm"))
        .unwrap_or(url);
    let url = url.strip_suffix("/index").unwrap_or(url);
    if url == "index" {
        String::new()
    } else {
        url.to_owned()
    }
}

/// Join a relative path onto a folder, resolving `.` and `..`; `None` if it escapes.
pub fn join(base: &str, relative: &str) -> Option<String> {
    let mut parts: Vec<&str> = base.split('/').filter(|s| !s.is_empty()).collect();
    for segment in relative.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            other => parts.push(other),
        }
    }
    Some(parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn url_keys() {
        assert_eq!(url_key("guide/index.md"), "guide");
        assert_eq!(url_key("guide/_index.md"), "guide");
        assert_eq!(url_key("guide/intro.mdx"), "guide/intro");
        assert_eq!(normalize_url("/guide/intro.html#x"), "guide/intro");
        assert_eq!(normalize_url("/guide/"), "guide");
        assert_eq!(normalize_url("/index.html"), "");
    }
}
