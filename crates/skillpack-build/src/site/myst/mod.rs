//! Sphinx with MyST-Parser.
//!
//! **Reads** `conf.py` without running it (literal assignments only, see [`conf`]):
//! `root_doc`/`master_doc` (where the toctrees start), `exclude_patterns` (→ excludes,
//! each pattern and everything under it), `myst_substitutions` (→ `{{ key }}`),
//! `myst_url_schemes` (→ `<gh-pr:12>` links), `intersphinx_mapping` (which `{ref}`
//! prefixes name other projects). Every markdown page is read once at load to index what
//! links need across pages: `(label)=` targets, `{#id}` block and inline attributes,
//! `:name:` options, `{figure-md}` names, glossary terms, `{py:…}` and `{autodoc2-object}`
//! objects, each page's first heading and heading anchors, the toctrees and the
//! `{include}`d files. A target that is not a heading leads to the section it is in.
//!
//! **Serves** every markdown page Sphinx builds, pages in no toctree included (Sphinx
//! builds them, with a warning), in markdown:
//! - admonitions (```` ```{note} ````, `:::{tip}`, `{admonition} Title`, `{dropdown}`,
//!   `{seealso}`) → labelled blockquotes; `{versionadded} 1.0` → *Added in version 1.0:*;
//! - `{include}` (`:start-line:`/`:end-line:`/`:start-after:`/`:end-before:`,
//!   `:heading-offset:`, `:relative-docs:`/`:relative-images:`, `:literal:`/`:code:`)
//!   expanded, files beside the docs root too (a repository's `CHANGELOG.md`);
//!   `{literalinclude}` (`:lines:`, `:start-at:`…, `:language:` or the extension's,
//!   `:caption:`) and `{code-block}` → fenced code;
//! - visible `{toctree}`s → a list of links (hidden ones are removed: they only make the
//!   navigation); their order, depth first from the root document, is [`Settings::nav`];
//! - `{eval-rst}` → its rST in an ```` ```rst ```` block (rST is not rendered here, and
//!   dropping it would lose the content); `{raw} html` → an ```` ```html ```` block (left
//!   loose, its text would be read as markdown);
//! - sphinx-design: `{tab-item}` → labelled blocks, cards → a bold title (linked when the
//!   card links) and their body, grids, tab sets and `:::name` containers → their content,
//!   buttons → links;
//! - `{myst-example}` (MyST-Parser's own docs) → the source in a ```` ```myst ```` block,
//!   then its rendering; `{image}`/`{figure}` → images; `{list-table}` → a table (a list
//!   when a cell holds blocks); `{math}` → `$$`; `{rubric}` → a bold line;
//! - roles: `{ref}` and `{doc}` → links (with the target's title when they have none),
//!   `{ref}` into an intersphinx project, `{term}`, `{sub}`, `{abbr}`… → their text,
//!   `{py:class}` and other domain objects → code, `{math}` → `$…$`, icons removed;
//! - `[](#label)`, `[text](label)`, `<project:#label>`, `[name]: label` definitions →
//!   links to the page and section the label names, relative to the page; extensionless
//!   document links are left to the shared resolver;
//! - `{{ key }}` substituted (the page's `myst.substitutions:`/`substitutions:` over the
//!   config's; a substitution alone on its line may hold blocks), plus the Jinja that needs
//!   no Python (`{{ "a" + "b" }}`, `{{ env.docname | upper }}`);
//! - `(label)=` lines, `% comments`, `+++` block breaks, `{#id .class}` block-attribute
//!   lines, inline attributes (`` `x`{l=python} ``, `[span]{.c}`, `[a](b){.external}`) and
//!   `:orphan:`-style metadata fields at the top of a page removed.
//!
//! Directives whose output Sphinx generates from code or the build (`{autodoc2-object}`,
//! `{myst-config}`, `{contents}`, non-HTML `{raw}`) are removed: the source holds nothing
//! a reader would see. Unknown directives keep their body.
//!
//! **Skips** markdown files that pages `{include}` and no toctree lists (partials) and
//! files `exclude_patterns` matches. **Heading ids** follow MyST's `default_slugify`
//! (lowercase; word characters, `-` and spaces kept; spaces → `-`).

mod blocks;
mod conf;
mod index;
mod inline;
mod render;

use std::collections::{BTreeMap, BTreeSet, HashSet};

use serde_json::{Map, Value};

use super::{Detection, Flavor, Generator, Page, RenderCx, Role, Settings, Skip};
use crate::compile::diag::Report;
use index::{Index, TocEntry};

pub struct Myst {
    settings: Settings,
    project: Project,
}

/// What rendering a page needs from the whole project.
pub struct Project {
    index: Index,
    /// Every file under the docs root (docs-relative).
    files: BTreeSet<String>,
    /// Pages some toctree lists.
    in_toctree: HashSet<String>,
    /// `myst_substitutions`.
    substitutions: BTreeMap<String, String>,
    /// `myst_url_schemes`: scheme → (URL template, title template).
    url_schemes: BTreeMap<String, (String, Option<String>)>,
    /// `intersphinx_mapping`'s inventory names.
    inventories: BTreeSet<String>,
}

impl Myst {
    pub fn load(detection: &Detection, report: &mut Report) -> Myst {
        let mut settings = Settings {
            base_path: "/".into(),
            ..Settings::default()
        };
        let mut values = BTreeMap::new();
        if let Some(config) = &detection.config {
            settings.config_file = Some(
                config
                    .strip_prefix(&detection.project)
                    .unwrap_or(config)
                    .to_string_lossy()
                    .into_owned(),
            );
            match std::fs::read_to_string(config) {
                Ok(source) => values = conf::assignments(&source),
                Err(error) => report.warning(
                    config.display().to_string(),
                    None,
                    format!("conf.py cannot be read: {error}"),
                    "make it readable; until then Sphinx's defaults are assumed",
                ),
            }
        }
        for pattern in conf::strings(&values, "exclude_patterns") {
            let pattern = pattern.trim_end_matches('/').to_owned();
            settings.excludes.push(format!("{pattern}/**"));
            settings.excludes.push(pattern);
        }
        let substitutions = string_map(values.get("myst_substitutions"));
        settings.variables = substitutions.clone();
        let url_schemes = url_schemes(values.get("myst_url_schemes"));
        let inventories = values
            .get("intersphinx_mapping")
            .and_then(Value::as_object)
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default();
        let root = conf::string(&values, "root_doc")
            .or_else(|| conf::string(&values, "master_doc"))
            .unwrap_or_else(|| "index".into());

        let excludes = exclude_set(&settings.excludes);
        let mut files = BTreeSet::new();
        let mut index = Index::default();
        for entry in walkdir::WalkDir::new(&detection.docs)
            .into_iter()
            .filter_entry(|e| e.depth() == 0 || !e.file_name().to_string_lossy().starts_with('.'))
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_file())
        {
            let Ok(rel) = entry.path().strip_prefix(&detection.docs) else {
                continue;
            };
            let rel = rel.to_string_lossy().replace('\\', "/");
            if excludes.as_ref().is_some_and(|set| set.is_match(&rel)) {
                continue;
            }
            if super::is_page_source(&rel, false)
                && let Ok(text) = std::fs::read_to_string(entry.path())
            {
                let body = &text[crate::compile::frontmatter::body_offset(&text)..];
                index.scan_page(&rel, body);
            }
            files.insert(rel);
        }
        let mut project = Project {
            index,
            files,
            in_toctree: HashSet::new(),
            substitutions,
            url_schemes,
            inventories,
        };
        settings.nav = project.nav(&format!("{root}.md"));
        project.in_toctree = project
            .index
            .toctrees
            .iter()
            .flat_map(|(rel, entries)| {
                entries
                    .iter()
                    .flat_map(|e| project.toc_pages(rel, e))
                    .map(|(page, _)| page)
                    .collect::<Vec<_>>()
            })
            .collect();
        Myst { settings, project }
    }
}

impl Generator for Myst {
    fn flavor(&self) -> Flavor {
        Flavor::Myst
    }

    fn settings(&self) -> &Settings {
        &self.settings
    }

    fn role(&self, rel: &str, _frontmatter: Option<&Map<String, Value>>) -> Role {
        if self.project.index.included.contains(rel) && !self.project.in_toctree.contains(rel) {
            return Role::Skip(Skip::Partial);
        }
        Role::Page
    }

    /// MyST's `default_slugify` (what `myst_heading_anchors` uses): lowercased, word
    /// characters, `-` and spaces kept, spaces → `-`.
    fn heading_id(&self, text: &str) -> String {
        text.to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | ' '))
            .map(|c| if c == ' ' { '-' } else { c })
            .collect()
    }

    fn render(&self, page: &Page<'_>, cx: &mut RenderCx<'_>) -> String {
        let mut substitutions = self.project.substitutions.clone();
        let from_page = page
            .frontmatter
            .and_then(|fm| fm.get("myst"))
            .and_then(|m| m.get("substitutions"))
            .or_else(|| page.frontmatter.and_then(|fm| fm.get("substitutions")));
        substitutions.extend(string_map(from_page));
        let mut render = render::Render {
            project: &self.project,
            cx,
            page_rel: page.rel,
            substitutions: &substitutions,
            lines: Some((page.text, page.body_offset)),
            depth: 0,
        };
        render.text(page.body())
    }
}

impl Project {
    /// The page a document name (`syntax/intro`, `../x.md`, `/guide`) names from the page
    /// `from_rel`, and its title.
    fn doc(&self, from_rel: &str, name: &str) -> Option<(String, Option<String>)> {
        if name.is_empty() {
            return None;
        }
        let path = index::docs_path(from_rel, name)?;
        let rel = [path.clone(), format!("{path}.md")]
            .into_iter()
            .find(|candidate| {
                super::is_page_source(candidate, false) && self.files.contains(candidate)
            })?;
        let title = self.index.titles.get(&rel).cloned();
        Some((rel, title))
    }

    /// The pages a toctree entry of the page `from_rel` lists, with the entry's title.
    fn toc_pages(&self, from_rel: &str, entry: &TocEntry) -> Vec<(String, Option<String>)> {
        if !entry.glob {
            return self
                .doc(from_rel, &entry.target)
                .map(|(rel, _)| vec![(rel, entry.title.clone())])
                .unwrap_or_default();
        }
        let Some(pattern) = index::docs_path(from_rel, &entry.target) else {
            return Vec::new();
        };
        let Ok(glob) = globset::Glob::new(&pattern) else {
            return Vec::new();
        };
        let matcher = glob.compile_matcher();
        self.files
            .iter()
            .filter(|rel| super::is_page_source(rel, false) && rel.as_str() != from_rel)
            .filter(|rel| matcher.is_match(super::strip_page_extension(rel)))
            .map(|rel| (rel.clone(), None))
            .collect()
    }

    /// The toctrees' pages depth first from the root document.
    fn nav(&self, root: &str) -> Vec<(String, Option<String>)> {
        let mut nav = Vec::new();
        let mut seen = HashSet::new();
        if self.files.contains(root) {
            self.visit(root, None, &mut nav, &mut seen);
        }
        nav
    }

    fn visit(
        &self,
        rel: &str,
        title: Option<String>,
        nav: &mut Vec<(String, Option<String>)>,
        seen: &mut HashSet<String>,
    ) {
        if !seen.insert(rel.to_owned()) {
            return;
        }
        nav.push((rel.to_owned(), title));
        for entry in self.index.toctrees.get(rel).into_iter().flatten() {
            for (page, title) in self.toc_pages(rel, entry) {
                self.visit(&page, title, nav, seen);
            }
        }
    }

    /// Whether a `{ref}` target names another project's label (`sphinx:rst-roles`).
    fn is_intersphinx(&self, target: &str) -> bool {
        target
            .split_once(':')
            .is_some_and(|(inventory, _)| self.inventories.contains(inventory))
            && self.index.target(target).is_none()
    }

    /// A `scheme:path#fragment` link of `myst_url_schemes`: (URL, title).
    fn url_scheme(&self, dest: &str) -> Option<(String, Option<String>)> {
        let (scheme, rest) = dest.split_once(':')?;
        let (template, title) = self.url_schemes.get(scheme)?;
        let (path, fragment) = rest.split_once('#').unwrap_or((rest, ""));
        let fill = |t: &str| {
            let filled = t
                .replace("{{path}}", path)
                .replace("{{fragment}}", fragment)
                .replace("{{netloc}}", "");
            filled.trim_end_matches('#').to_owned()
        };
        Some((fill(template), title.as_deref().map(fill)))
    }
}

/// A dict of strings (`myst_substitutions`, frontmatter `substitutions:`).
fn string_map(value: Option<&Value>) -> BTreeMap<String, String> {
    value
        .and_then(Value::as_object)
        .map(|map| {
            map.iter()
                .map(|(k, v)| {
                    let v = match v {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    };
                    (k.clone(), v)
                })
                .collect()
        })
        .unwrap_or_default()
}

/// `myst_url_schemes`: `{"gh": "https://…/{{path}}"}` or `{"gh": {"url": …, "title": …}}`;
/// `None` values (plain `http`, `mailto`) are ordinary URLs.
fn url_schemes(value: Option<&Value>) -> BTreeMap<String, (String, Option<String>)> {
    let mut schemes = BTreeMap::new();
    for (scheme, spec) in value.and_then(Value::as_object).into_iter().flatten() {
        let entry = match spec {
            Value::String(url) => Some((url.clone(), None)),
            Value::Object(fields) => fields.get("url").and_then(Value::as_str).map(|url| {
                let title = fields
                    .get("title")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                (url.to_owned(), title)
            }),
            _ => None,
        };
        if let Some(entry) = entry {
            schemes.insert(scheme.clone(), entry);
        }
    }
    schemes
}

fn exclude_set(patterns: &[String]) -> Option<globset::GlobSet> {
    if patterns.is_empty() {
        return None;
    }
    let mut builder = globset::GlobSetBuilder::new();
    for pattern in patterns {
        if let Ok(glob) = globset::Glob::new(pattern) {
            builder.add(glob);
        }
    }
    builder.build().ok()
}

#[cfg(test)]
mod tests;
