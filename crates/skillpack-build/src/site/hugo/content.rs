//! The content tree as Hugo reads it: every page's front matter, logical paths (what
//! `site.GetPage`, `ref` and `include` look pages up by), sections, and the `build`
//! options a page sets or inherits through `cascade`.
//!
//! Roles and nav need to know a page's ancestors (`_common/_index.md` cascades
//! `build.render: never` to the snippets below it), which [`super::Generator::role`] is not
//! given; so the tree is read once when the site loads.

pub use crate::site::links::join;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

use serde_json::{Map, Value};

use crate::site::links::url_key;
use crate::site::strip_page_extension;

/// One markdown file of the content tree.
#[derive(Debug, Clone, Default)]
pub struct PageMeta {
    /// Its front matter (empty when it has none or it does not parse).
    pub fm: Map<String, Value>,
}

impl PageMeta {
    pub fn str(&self, key: &str) -> Option<&str> {
        self.fm
            .get(key)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
    }
}

/// `weight:` as Hugo sorts by it (absent or 0: after every weighted page).
pub fn weight_of(fm: Option<&Map<String, Value>>) -> i64 {
    let Some(value) = fm.and_then(|fm| fm.get("weight")) else {
        return 0;
    };
    value
        .as_i64()
        .or_else(|| value.as_f64().map(|f| f as i64))
        .or_else(|| value.as_str().and_then(|s| s.trim().parse().ok()))
        .unwrap_or(0)
}

/// Whether Hugo renders a page, and why not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Publish {
    Rendered,
    /// Its own front matter says `build.render: never` (or `headless: true`).
    NotRenderedOwn(String),
    /// A `cascade` from the `_index.md` at this path says so: a headless branch bundle.
    NotRenderedCascade(String),
}

/// The content tree.
#[derive(Debug, Default)]
pub struct Content {
    pub pages: BTreeMap<String, PageMeta>,
    /// Lowercased docs-relative path → the path as stored (Hugo paths are case-insensitive).
    lower: HashMap<String, String>,
    /// Lowercased file stem (`translate`, or the bundle folder's name) → pages.
    by_name: HashMap<String, Vec<String>>,
    /// Pages other pages `include`: their text reaches readers inside those pages.
    pub include_targets: HashSet<String>,
}

impl Content {
    /// Read every markdown file under `docs` (hidden files and folders are not content).
    pub fn scan(docs: &Path) -> Content {
        let mut content = Content::default();
        let walker = walkdir::WalkDir::new(docs)
            .sort_by_file_name()
            .into_iter()
            .filter_entry(|e| e.depth() == 0 || !e.file_name().to_string_lossy().starts_with('.'));
        let mut bodies: Vec<(String, String)> = Vec::new();
        for entry in walker.flatten() {
            if !entry.file_type().is_file() {
                continue;
            }
            let Ok(rest) = entry.path().strip_prefix(docs) else {
                continue;
            };
            let rel = rest
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/");
            if !crate::site::is_page_source(&rel, false) {
                continue;
            }
            let Ok(text) = std::fs::read_to_string(entry.path()) else {
                continue;
            };
            let (fm, body) = split_front_matter(&text);
            content.insert(rel.clone(), PageMeta { fm });
            bodies.push((rel, body.to_owned()));
        }
        for (rel, body) in &bodies {
            for target in include_arguments(body) {
                if let Some(found) = content.get_page(Some(rel), &target) {
                    content.include_targets.insert(found.to_owned());
                }
            }
        }
        content
    }

    pub fn insert(&mut self, rel: String, meta: PageMeta) {
        self.lower.insert(rel.to_lowercase(), rel.clone());
        let key = url_key(&rel);
        let name = key.rsplit('/').next().unwrap_or(&key).to_lowercase();
        self.by_name.entry(name).or_default().push(rel.clone());
        self.pages.insert(rel, meta);
    }

    pub fn meta(&self, rel: &str) -> Option<&PageMeta> {
        self.pages.get(rel)
    }

    /// The page a logical path names, as `site.GetPage` finds it: relative to the page's
    /// folder first, then from the content root; with or without the file extension,
    /// case-insensitively; a folder means its `_index.md` or `index.md`.
    pub fn get_page(&self, from_rel: Option<&str>, path: &str) -> Option<&str> {
        let path = path.split('#').next().unwrap_or("").trim();
        if path.is_empty() {
            return None;
        }
        let mut candidates = Vec::new();
        if !path.starts_with('/')
            && let Some(from) = from_rel
        {
            let dir = from.rsplit_once('/').map_or("", |(d, _)| d);
            if let Some(joined) = join(dir, path) {
                candidates.push(joined);
            }
        }
        if let Some(joined) = join("", path) {
            candidates.push(joined);
        }
        candidates.iter().find_map(|c| self.lookup(c))
    }

    fn lookup(&self, candidate: &str) -> Option<&str> {
        let c = candidate.trim_matches('/').to_lowercase();
        let tries = [
            c.clone(),
            format!("{c}.md"),
            format!("{c}/_index.md"),
            format!("{c}/index.md"),
            format!("{c}.markdown"),
        ];
        let tries = if c.is_empty() {
            vec!["_index.md".to_owned()]
        } else {
            tries.to_vec()
        };
        tries
            .iter()
            .find_map(|t| self.lower.get(t.as_str()))
            .map(String::as_str)
    }

    /// Whether `candidate` (a docs-relative path) names a page with its exact spelling, as
    /// a plain file lookup (no lowercasing, no fallback to the content root) finds it.
    pub fn exact(&self, candidate: &str) -> bool {
        let c = candidate.trim_matches('/');
        [
            c.to_owned(),
            format!("{c}.md"),
            format!("{c}/_index.md"),
            format!("{c}/index.md"),
        ]
        .iter()
        .any(|t| self.pages.contains_key(t.trim_start_matches('/')))
    }

    /// Pages whose file (or bundle folder) is named `name`: `ref` and `relref` find a page
    /// by its name when the name is unique.
    pub fn by_name(&self, name: &str) -> &[String] {
        let name = strip_page_extension(name.trim_matches('/')).to_lowercase();
        self.by_name.get(&name).map(Vec::as_slice).unwrap_or(&[])
    }

    /// Whether Hugo renders the page at `rel` with front matter `fm`.
    pub fn publish(&self, rel: &str, fm: Option<&Map<String, Value>>) -> Publish {
        if let Some(render) = fm.and_then(build_render) {
            return if render {
                Publish::Rendered
            } else {
                Publish::NotRenderedOwn("`build.render: never` in its front matter".into())
            };
        }
        if fm
            .and_then(|fm| fm.get("headless"))
            .is_some_and(|v| v.as_bool() == Some(true))
        {
            return Publish::NotRenderedOwn("`headless: true` in its front matter".into());
        }
        let kind = page_kind(rel);
        let logical = logical_path(rel).to_lowercase();
        for dir in cascading_dirs(rel) {
            let index = if dir.is_empty() {
                "_index.md".to_owned()
            } else {
                format!("{dir}/_index.md")
            };
            let Some(meta) = self.pages.get(&index) else {
                continue;
            };
            if let Some(render) = cascaded_render(&meta.fm, &logical, kind) {
                return if render {
                    Publish::Rendered
                } else {
                    Publish::NotRenderedCascade(index)
                };
            }
        }
        Publish::Rendered
    }

    /// Section folders (holding `_index.md`) and the top-level folders Hugo makes sections
    /// of, with the pages directly in each: regular pages, leaf bundles, and the
    /// `_index.md` of the sections right below.
    pub fn children(&self, section_dir: &str) -> Vec<&str> {
        let mut out = Vec::new();
        for rel in self.pages.keys() {
            if rel == "_index.md" {
                continue;
            }
            if self.section_of(rel).as_deref() == Some(section_dir) {
                out.push(rel.as_str());
            }
        }
        out
    }

    /// The section a page is listed in: its nearest ancestor folder that is a section (a
    /// section's own `_index.md` is listed in the section above).
    pub fn section_of(&self, rel: &str) -> Option<String> {
        let dir = page_dir(rel);
        let mut current = if rel.ends_with("_index.md") || is_leaf_index(rel) {
            parent(&dir)?
        } else {
            dir
        };
        loop {
            if self.is_section(&current) {
                return Some(current);
            }
            current = parent(&current)?;
        }
    }

    pub fn is_section(&self, dir: &str) -> bool {
        dir.is_empty() || !dir.contains('/') || self.pages.contains_key(&format!("{dir}/_index.md"))
    }
}

/// `index.md` of a leaf bundle.
fn is_leaf_index(rel: &str) -> bool {
    rel == "index.md" || rel.ends_with("/index.md")
}

/// The folder a page's logical path is in (a bundle's folder for its index).
fn page_dir(rel: &str) -> String {
    rel.rsplit_once('/').map_or("", |(d, _)| d).to_owned()
}

fn parent(dir: &str) -> Option<String> {
    if dir.is_empty() {
        return None;
    }
    Some(dir.rsplit_once('/').map_or("", |(d, _)| d).to_owned())
}

/// The folders whose `_index.md` cascades onto `rel`, nearest first: a section's own
/// `_index.md` cascades onto itself too (a headless section is not rendered either).
fn cascading_dirs(rel: &str) -> Vec<String> {
    let mut dirs = Vec::new();
    let mut current = Some(page_dir(rel));
    while let Some(dir) = current {
        current = parent(&dir);
        dirs.push(dir);
    }
    dirs
}

/// Hugo's page kind of a file, as cascade targets name it.
pub fn page_kind(rel: &str) -> &'static str {
    if rel == "_index.md" {
        "home"
    } else if rel.ends_with("/_index.md") {
        "section"
    } else {
        "page"
    }
}

/// The logical path Hugo gives a page: `/functions/lang/Translate`, `/functions/lang` for a
/// section's `_index.md`, `/` for the home page.
pub fn logical_path(rel: &str) -> String {
    format!("/{}", url_key(rel))
}

/// `build.render` (or the older `_build.render`) of a front matter: `Some(false)` for
/// `never` (and `link`, which gives a permalink but no page), `Some(true)` for `always`.
pub fn build_render(fm: &Map<String, Value>) -> Option<bool> {
    let build = fm.get("build").or_else(|| fm.get("_build"))?;
    render_value(build.get("render")?)
}

fn render_value(value: &Value) -> Option<bool> {
    match value {
        Value::Bool(b) => Some(*b),
        Value::String(s) => match s.trim().to_ascii_lowercase().as_str() {
            "never" | "link" | "false" => Some(false),
            "always" | "true" => Some(true),
            _ => None,
        },
        _ => None,
    }
}

/// The `build.render` a front matter's `cascade` passes to a page (`logical` lowercased),
/// when one of its entries targets it.
fn cascaded_render(fm: &Map<String, Value>, logical: &str, kind: &str) -> Option<bool> {
    let cascade = fm.get("cascade")?;
    let entries: Vec<&Value> = match cascade {
        Value::Array(items) => items.iter().collect(),
        other => vec![other],
    };
    entries.into_iter().find_map(|entry| {
        let entry = entry.as_object()?;
        let target = entry.get("target").or_else(|| entry.get("_target"));
        if let Some(target) = target.and_then(Value::as_object)
            && !target_matches(target, logical, kind)
        {
            return None;
        }
        build_render(entry)
    })
}

/// A cascade target's `path` and `kind` globs (other keys — environment, sites — are
/// taken to match: one site, one environment).
fn target_matches(target: &Map<String, Value>, logical: &str, kind: &str) -> bool {
    let glob_matches = |key: &str, subject: &str| {
        let Some(pattern) = target.get(key).and_then(Value::as_str) else {
            return true;
        };
        globset::GlobBuilder::new(pattern)
            .literal_separator(true)
            .build()
            .map(|g| g.compile_matcher().is_match(subject))
            .unwrap_or(true)
    };
    glob_matches("path", logical) && glob_matches("kind", kind)
}

/// Front matter and body of a file: YAML between `---` lines, or TOML between `+++`
/// lines (Hugo reads both).
pub fn split_front_matter(text: &str) -> (Map<String, Value>, &str) {
    if let Some(rest) = text.strip_prefix("+++")
        && rest.starts_with(['\n', '\r'])
        && let Some(end) = rest.find("\n+++")
    {
        let toml_text = &rest[..end];
        let after = &rest[end + 4..];
        let body = after.split_once('\n').map_or("", |(_, b)| b);
        let fm = toml::from_str::<Value>(toml_text)
            .ok()
            .and_then(|v| v.as_object().cloned())
            .unwrap_or_default();
        return (fm, body);
    }
    let offset = crate::compile::frontmatter::body_offset(text);
    let fm = crate::compile::frontmatter::parse(text)
        .ok()
        .flatten()
        .map(|fm| fm.fields)
        .unwrap_or_default();
    (fm, &text[offset.min(text.len())..])
}

/// The paths `{{% include "x" %}}` / `{{< include "x" >}}` name in a text.
pub fn include_arguments(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("{{") {
        rest = &rest[at + 2..];
        let Some(after) = rest.strip_prefix(['<', '%']) else {
            continue;
        };
        let after = after.trim_start();
        let Some(args) = after.strip_prefix("include") else {
            continue;
        };
        let args = args.trim_start();
        let quote = match args.chars().next() {
            Some(q @ ('"' | '`')) => q,
            _ => continue,
        };
        if let Some(end) = args[1..].find(quote) {
            out.push(args[1..1 + end].to_owned());
        }
    }
    out
}
