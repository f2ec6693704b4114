//! MkDocs, with Material for MkDocs and the pymdown extensions.
//!
//! **Reads** `mkdocs.yml` (Python tags such as `!!python/name:` and `!ENV` are tolerated;
//! a config that does not parse is a warning, and MkDocs' defaults apply with Material's
//! common extensions assumed on; `INHERIT` is followed): `site_url` (its path is the base path), `nav` (order and nav titles),
//! `exclude_docs` and `draft_docs` (gitignore patterns), `extra` (static values for
//! `{{ … }}` when the macros plugin is on), `hooks`, the blog and meta plugins' options, and
//! `markdown_extensions`: which constructs are on, `pymdownx.snippets`' `base_path`,
//! `auto_append` and `check_paths`, and `toc`'s `slugify` (the heading-id rule).
//!
//! **Serves** every markdown page MkDocs builds, rendered as its readers see it:
//! mkdocs-include-markdown-plugin's `{% include-markdown %}` / `{% include %}` expanded
//! (relative to the including file, links rebased), then snippets (`--8<-- "file"`, the block form, line ranges and `[start:name]` sections,
//! `;`-escaped lines) expanded from the snippet base paths, fenced code included, and
//! `auto_append` files appended; admonitions `!!! note "Title"` and collapsible
//! `???`/`???+` details as labelled blockquotes and content tabs `=== "Tab"` as labelled
//! blocks, their indented bodies rendered again (nested constructs, constructs in list
//! items and definitions; indented code stays code), and `pymdownx.blocks`' `/// note |
//! Title` … `///` the same way; `<!-- md:… -->` shortcodes as Material's `shortcodes.py` hook
//! words them (when a hook is configured), a heading made only of a setting shortcode
//! titled and anchored as the hook does; attribute lists reduced to heading ids;
//! `<div … markdown>` wrappers (grid cards) dropped around their content; Material
//! icons (`:material-…:`, `:octicons-…:`, `:fontawesome-…:`, `:simple-…:`) dropped;
//! superfences' ```` ``` { .lang } ```` fences given their language; with mkdocstrings,
//! a `::: package.module` line (API documentation generated from code) is named in words. Blog posts are pages.
//! Heading ids follow `toc`'s slugify (Python-Markdown's by default: `Caret, Mark & Tilde`
//! → `caret-mark-tilde`). Titles are MkDocs' own (`title:`, then the first heading); nav
//! titles are kept as nav labels, not titles.
//!
//! **Skips** snippet sources, `auto_append` files and include-markdown targets inside
//! the docs root (partials),
//! `exclude_docs` matches and MkDocs' default excludes (`/templates/`), `draft_docs`
//! matches and blog posts with `draft: true` (in their front matter or, with the meta
//! plugin, in a `.meta.yml` of their folder; unpublished unless the blog plugin's `draft`
//! option builds them), and `README.md` beside an `index.md` (MkDocs publishes
//! the index).

mod config;
mod include_markdown;
mod inline;
mod render;
mod shortcodes;
mod snippets;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use globset::{GlobBuilder, GlobMatcher};
use serde_json::{Map, Value};

use super::{Detection, Flavor, Generator, Page, RenderCx, Role, Settings, Skip, field};
use crate::compile::diag::Report;
use config::{Config, Slugify};

pub struct MkDocs {
    settings: Settings,
    config: Config,
    /// The folder of `mkdocs.yml`: snippet base paths and hooks are relative to it.
    config_dir: PathBuf,
    docs: PathBuf,
    /// Docs files that snippets include or `auto_append` appends.
    partials: BTreeSet<String>,
    exclude: Vec<Rule>,
    drafts: Vec<Rule>,
    /// A configured hook expands `<!-- md:… -->` shortcodes.
    shortcodes: bool,
    /// Folders (docs-relative, `` for the root) whose meta file sets `draft:`.
    meta_drafts: BTreeMap<String, bool>,
}

/// One gitignore-style line: its globs, and whether it re-includes.
struct Rule {
    pattern: String,
    /// The setting it comes from (`exclude_docs`), for the reason shown.
    source: &'static str,
    globs: Vec<GlobMatcher>,
    negated: bool,
}

/// MkDocs' own `exclude_docs` defaults: dotfiles (never walked) and `/templates/`.
const DEFAULT_EXCLUDES: [&str; 1] = ["/templates/"];

impl MkDocs {
    pub fn load(detection: &Detection, report: &mut Report) -> MkDocs {
        let config_dir = detection
            .config
            .as_deref()
            .map(config::config_dir)
            .unwrap_or_else(|| detection.project.clone());
        let config = match &detection.config {
            Some(path) => match config::load(path) {
                Ok(config) => config,
                Err(error) => {
                    report.warning(
                        path.display().to_string(),
                        None,
                        format!("mkdocs.yml could not be read ({error}); MkDocs' defaults are used (no nav, no excludes) with Material's common markdown extensions assumed"),
                        "fix the YAML (skillpack accepts the Python tags `!!python/…` and `!ENV`), or set SKILLPACK_DOCS_FLAVOR=plain to serve the pages as authored",
                    );
                    Config::fallback()
                }
            },
            None => Config::fallback(),
        };
        let mut rules = Vec::new();
        for pattern in DEFAULT_EXCLUDES {
            rules.extend(rule(
                pattern,
                detection,
                report,
                "MkDocs' default exclude_docs",
            ));
        }
        for pattern in &config.exclude_docs {
            rules.extend(rule(pattern, detection, report, "exclude_docs"));
        }
        let drafts = config
            .draft_docs
            .iter()
            .filter_map(|p| rule(p, detection, report, "draft_docs"))
            .collect();
        let shortcodes = config.hooks.iter().any(|hook| {
            std::fs::read_to_string(config_dir.join(hook))
                .is_ok_and(|text| text.contains("md:") && text.contains("on_page_markdown"))
        });
        let mut settings = Settings {
            base_path: config.base_path.clone(),
            nav: config.nav.clone(),
            config_file: detection
                .config
                .as_ref()
                .and_then(|c| c.strip_prefix(&detection.project).ok())
                .map(|p| p.display().to_string()),
            ..Settings::default()
        };
        for (name, value) in &config.extra {
            settings.variables.insert(name.clone(), value.clone());
            if let Some(short) = name.strip_prefix("config.") {
                settings.variables.insert(short.to_owned(), value.clone());
            }
        }
        let partials = partials(&config, &config_dir, &detection.docs);
        let meta_drafts = match &config.meta_file {
            Some(name) => meta_drafts(&detection.docs, name, report),
            None => BTreeMap::new(),
        };
        MkDocs {
            settings,
            config,
            config_dir,
            docs: detection.docs.clone(),
            partials,
            exclude: rules,
            drafts,
            shortcodes,
            meta_drafts,
        }
    }

    /// A page's `draft:`: its own front matter, else the nearest meta file's.
    fn is_draft(&self, rel: &str, frontmatter: Option<&Map<String, Value>>) -> bool {
        if let Some(own) = frontmatter.and_then(|fm| fm.get("draft")) {
            return own.as_bool() == Some(true) || own.as_str() == Some("true");
        }
        let mut dir = rel.rsplit_once('/').map_or("", |(d, _)| d);
        loop {
            if let Some(&draft) = self.meta_drafts.get(dir) {
                return draft;
            }
            if dir.is_empty() {
                return false;
            }
            dir = dir.rsplit_once('/').map_or("", |(d, _)| d);
        }
    }

    fn matching<'r>(rules: &'r [Rule], rel: &str) -> Option<&'r Rule> {
        // gitignore: the last matching line decides; a `!` line re-includes.
        rules
            .iter()
            .rev()
            .find(|r| r.globs.iter().any(|g| g.is_match(rel)))
            .filter(|r| !r.negated)
    }

    fn is_blog_post(&self, rel: &str) -> bool {
        self.config.blog.as_ref().is_some_and(|blog| {
            blog.enabled && {
                let dir = &blog.post_dir;
                dir.is_empty() || rel.starts_with(&format!("{dir}/"))
            }
        })
    }
}

fn rule(
    pattern: &str,
    detection: &Detection,
    report: &mut Report,
    key: &'static str,
) -> Option<Rule> {
    let (globs, negated) = config::gitignore_globs(pattern);
    let mut matchers = Vec::new();
    for glob in globs {
        match GlobBuilder::new(&glob).literal_separator(true).build() {
            Ok(g) => matchers.push(g.compile_matcher()),
            Err(error) => {
                report.warning(
                    detection
                        .config
                        .as_ref()
                        .map(|c| c.display().to_string())
                        .unwrap_or_else(|| "mkdocs.yml".into()),
                    None,
                    format!("`{pattern}` in `{key}` is not a pattern skillpack can read: {error}"),
                    "write gitignore-style patterns, e.g. `drafts/` or `*.tmp.md`",
                );
                return None;
            }
        }
    }
    Some(Rule {
        pattern: pattern.to_owned(),
        source: key,
        globs: matchers,
        negated,
    })
}

/// Docs-relative paths of the files snippets include (found by reading every page's
/// snippet lines) and of the `auto_append` files under the docs root.
fn partials(config: &Config, config_dir: &Path, docs: &Path) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let docs_abs = docs.canonicalize().unwrap_or_else(|_| docs.to_path_buf());
    if config.include_markdown {
        for (path, text) in markdown_files(&docs_abs) {
            let dir = path.parent().unwrap_or(Path::new(""));
            for target in include_markdown::targets(&text) {
                let abs = super::include::normalize(&dir.join(&target));
                if let Ok(rest) = abs.strip_prefix(&docs_abs) {
                    found.insert(rest.to_string_lossy().replace('\\', "/"));
                }
            }
        }
    }
    let Some(options) = &config.extensions.snippets else {
        return found;
    };
    let base_dir = config_dir
        .canonicalize()
        .unwrap_or_else(|_| config_dir.to_path_buf());
    let to_rel = |spec: &str, found: &mut BTreeSet<String>| {
        let file = snippets::split_spec(spec).0;
        for base in &options.base_path {
            let path = super::include::normalize(&base_dir.join(base).join(file));
            if path.is_file() {
                if let Ok(rest) = path.strip_prefix(&docs_abs) {
                    found.insert(rest.to_string_lossy().replace('\\', "/"));
                }
                return;
            }
        }
    };
    for name in &options.auto_append {
        to_rel(name, &mut found);
    }
    for (_, text) in markdown_files(&docs_abs) {
        if text.contains("8<") {
            for spec in snippet_specs(&text) {
                to_rel(&spec, &mut found);
            }
        }
    }
    found
}

/// Every markdown file under `docs` (hidden folders left out, as MkDocs does) with its text.
fn markdown_files(docs: &Path) -> Vec<(PathBuf, String)> {
    let mut files = Vec::new();
    let mut pending = vec![docs.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                continue;
            }
            if path.is_dir() {
                pending.push(path);
            } else if super::is_page_source(&name, true)
                && let Ok(text) = std::fs::read_to_string(&path)
            {
                files.push((path, text));
            }
        }
    }
    files
}

/// The meta plugin's files under the docs root that set `draft:`, by folder.
fn meta_drafts(docs: &Path, name: &str, report: &mut Report) -> BTreeMap<String, bool> {
    let mut found = BTreeMap::new();
    let mut pending = vec![(docs.to_path_buf(), String::new())];
    while let Some((dir, rel)) = pending.pop() {
        let meta = dir.join(name);
        if let Ok(text) = std::fs::read_to_string(&meta) {
            match config::parse(&text) {
                Ok(value) => {
                    if let Some(draft) = value.get("draft").and_then(Value::as_bool) {
                        found.insert(rel.clone(), draft);
                    }
                }
                Err(error) => report.warning(
                    meta.display().to_string(),
                    None,
                    format!("the meta plugin's file does not parse ({error}); its defaults are not applied"),
                    "fix the YAML: it holds front matter defaults for the pages in its folder",
                ),
            }
        }
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let file_name = entry.file_name().to_string_lossy().into_owned();
            if !file_name.starts_with('.') && entry.path().is_dir() {
                let child = if rel.is_empty() {
                    file_name
                } else {
                    format!("{rel}/{file_name}")
                };
                pending.push((entry.path(), child));
            }
        }
    }
    found
}

/// The file specs a text's snippet lines name (inline and block form).
fn snippet_specs(text: &str) -> Vec<String> {
    let mut specs = Vec::new();
    let mut in_block = false;
    for line in text.lines() {
        match snippets::marker(line) {
            Some(snippets::Marker::Inline { spec, .. }) => specs.push(spec),
            Some(snippets::Marker::Block { .. }) => in_block = !in_block,
            Some(snippets::Marker::Escaped) => {}
            None if in_block => {
                let name = line.trim();
                if !name.is_empty() && !name.starts_with(';') {
                    specs.push(name.to_owned());
                }
            }
            None => {}
        }
    }
    specs
}

impl Generator for MkDocs {
    fn flavor(&self) -> Flavor {
        Flavor::MkDocs
    }

    fn settings(&self) -> &Settings {
        &self.settings
    }

    fn role(&self, rel: &str, frontmatter: Option<&Map<String, Value>>) -> Role {
        if self.partials.contains(rel) {
            return Role::Skip(Skip::Partial);
        }
        if let Some(rule) = Self::matching(&self.exclude, rel) {
            return Role::Skip(Skip::Excluded(format!("{}: {}", rule.source, rule.pattern)));
        }
        if let Some(rule) = Self::matching(&self.drafts, rel) {
            return Role::Skip(Skip::Unpublished(format!(
                "matches `{}` in draft_docs (built by `mkdocs serve` only)",
                rule.pattern
            )));
        }
        let (dir, name) = rel.rsplit_once('/').unwrap_or(("", rel));
        if name.eq_ignore_ascii_case("README.md") {
            let index = if dir.is_empty() {
                "index.md".to_owned()
            } else {
                format!("{dir}/index.md")
            };
            if self.docs.join(&index).is_file() {
                return Role::Skip(Skip::Unpublished(format!(
                    "MkDocs publishes `{index}` for this folder, not README.md"
                )));
            }
        }
        if self.is_blog_post(rel)
            && self.is_draft(rel, frontmatter)
            && !self.config.blog.as_ref().is_some_and(|b| b.build_drafts)
        {
            return Role::Skip(Skip::Unpublished(
                "a blog post with `draft: true` (the blog plugin leaves drafts out of builds)"
                    .into(),
            ));
        }
        Role::Page
    }

    fn render(&self, page: &Page<'_>, cx: &mut RenderCx<'_>) -> String {
        let first_line = page.line_of_body_offset(0);
        let included = if self.config.include_markdown {
            let file = cx.sources.abs(page.rel);
            include_markdown::expand(page.body(), &file, cx, Some(first_line))
        } else {
            page.body().to_owned()
        };
        let body = match &self.config.extensions.snippets {
            Some(options) => {
                let sn = snippets::SnippetCx {
                    options,
                    config_dir: &self.config_dir,
                };
                let expanded = snippets::expand(&included, cx, &sn, Some(first_line));
                snippets::append(&expanded, cx, &sn)
            }
            None => included,
        };
        let renderer = render::Renderer {
            ext: &self.config.extensions,
            shortcodes: self.shortcodes,
            mkdocstrings: self.config.mkdocstrings,
            variables: self.config.macros.then_some(&self.settings.variables),
            page_rel: page.rel,
        };
        let mut state = render::State::default();
        let out = renderer.render(&body, &mut state);
        for unknown in state.unknown {
            cx.warn(
                None,
                format!("has the shortcode `<!-- md:{unknown} -->`, which the shortcodes hook does not know (MkDocs fails on it)"),
                "use one of the shortcodes the hook defines (version, flag, option, setting, feature, plugin, extension, utility, example, demo, default, sponsors)",
            );
        }
        out
    }

    fn heading_id(&self, text: &str) -> String {
        slugify(text, self.config.extensions.slugify)
    }

    // `title`: MkDocs' rule is the shared one (`title:`, then the first heading; icons in
    // it are gone once rendered). Nav titles label the nav only.

    fn urls(&self, rel: &str, frontmatter: Option<&Map<String, Value>>) -> Vec<String> {
        let Some(blog) = self.config.blog.as_ref().filter(|_| self.is_blog_post(rel)) else {
            return Vec::new();
        };
        let Some(date) = post_date(frontmatter) else {
            return Vec::new();
        };
        let slug = field(frontmatter, "slug")
            .map(str::to_owned)
            .unwrap_or_else(|| {
                let stem = super::strip_page_extension(rel.rsplit('/').next().unwrap_or(rel));
                slugify(stem, Slugify::Markdown)
            });
        let url = blog
            .post_url_format
            .replace("{date}", &date.replace('-', "/"))
            .replace("{slug}", &slug)
            .replace(
                "{file}",
                super::strip_page_extension(rel.rsplit('/').next().unwrap_or(rel)),
            );
        let prefix = if blog.blog_dir.is_empty() {
            String::new()
        } else {
            format!("{}/", blog.blog_dir)
        };
        vec![format!("{prefix}{}", url.trim_matches('/'))]
    }
}

/// A blog post's date (`date: 2023-01-31`, or `date: {created: …}`), as `YYYY-MM-DD`.
fn post_date(frontmatter: Option<&Map<String, Value>>) -> Option<String> {
    let date = frontmatter?.get("date")?;
    let text = match date {
        Value::String(s) => s.as_str(),
        Value::Object(map) => map.get("created")?.as_str()?,
        _ => return None,
    };
    let day = text.get(..10)?;
    let valid = day.bytes().enumerate().all(|(i, b)| {
        if i == 4 || i == 7 {
            b == b'-'
        } else {
            b.is_ascii_digit()
        }
    });
    valid.then(|| day.to_owned())
}

/// A heading's id under `toc`'s slugify.
pub fn slugify(text: &str, rule: Slugify) -> String {
    use unicode_normalization::UnicodeNormalization;
    match rule {
        Slugify::Markdown | Slugify::MarkdownUnicode => {
            // Python-Markdown: NFKD and ASCII only (unless unicode), drop what is not a
            // word character, space or dash, lower-case, runs of spaces/dashes → `-`.
            let text: String = if rule == Slugify::Markdown {
                text.nfkd().filter(char::is_ascii).collect()
            } else {
                text.nfkc().collect()
            };
            let kept: String = text
                .chars()
                .filter(|c| c.is_alphanumeric() || *c == '_' || *c == '-' || c.is_whitespace())
                .collect();
            let lowered = kept.trim().to_lowercase();
            let mut out = String::with_capacity(lowered.len());
            let mut in_run = false;
            for c in lowered.chars() {
                if c == '-' || c.is_whitespace() {
                    if !in_run {
                        out.push('-');
                    }
                    in_run = true;
                } else {
                    out.push(c);
                    in_run = false;
                }
            }
            out
        }
        Slugify::Pymdownx { lower } => {
            let text: String = text.nfc().collect();
            let text = text.trim();
            let text = if lower {
                text.to_lowercase()
            } else {
                text.to_owned()
            };
            text.chars()
                .filter(|c| c.is_alphanumeric() || *c == '_' || *c == '-' || *c == ' ')
                .map(|c| if c == ' ' { '-' } else { c })
                .collect()
        }
    }
}

#[cfg(test)]
mod tests;
