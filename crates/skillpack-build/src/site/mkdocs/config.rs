//! `mkdocs.yml` as MkDocs reads it, for what the served pages depend on.
//!
//! The config is YAML with Python tags (`!!python/name:…`, `!!python/object/apply:…`,
//! `!ENV`, `!relative`) that a plain YAML reader refuses: [`strip_tags`] turns each into
//! the value it tags (or the tag's name as a string) before parsing. A config that still
//! does not parse is a warning, never a failed build: the tree is then read with MkDocs'
//! defaults.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

/// What `mkdocs.yml` decides, reduced to what serving pages needs.
#[derive(Debug, Clone)]
pub struct Config {
    /// `docs_dir`, relative to the config's folder.
    pub docs_dir: String,
    /// The path part of `site_url` (`/mkdocs-material/`), `/` without one.
    pub base_path: String,
    /// `nav`: docs-relative paths in order, each with its nav title.
    pub nav: Vec<(String, Option<String>)>,
    /// `exclude_docs`: gitignore-style lines.
    pub exclude_docs: Vec<String>,
    /// `draft_docs`: gitignore-style lines (built by `mkdocs serve` only).
    pub draft_docs: Vec<String>,
    /// `extra`, flattened to dotted names (`config.extra.version` and `extra.version`).
    pub extra: Vec<(String, String)>,
    pub extensions: Extensions,
    /// The blog plugin, when enabled.
    pub blog: Option<Blog>,
    /// The macros plugin is enabled: `{{ config.extra.x }}` and `{{ x }}` are expanded.
    pub macros: bool,
    /// mkdocstrings is enabled: `::: package.module` lines insert API documentation.
    pub mkdocstrings: bool,
    /// mkdocs-include-markdown-plugin is enabled: `{% include-markdown "f" %}`.
    pub include_markdown: bool,
    /// The meta plugin's file name (`.meta.yml`), when the plugin is enabled: its values
    /// are front matter defaults for every page in its folder and below.
    pub meta_file: Option<String>,
    /// `hooks`: paths relative to the config's folder.
    pub hooks: Vec<String>,
}

/// The markdown extensions the pages are rendered with.
#[derive(Debug, Clone, Default)]
pub struct Extensions {
    pub admonition: bool,
    /// `pymdownx.details`: `???` / `???+` collapsible blocks.
    pub details: bool,
    /// `pymdownx.tabbed`: `=== "Tab"`.
    pub tabbed: bool,
    /// `pymdownx.emoji`: `:material-x:` icons.
    pub emoji: bool,
    pub attr_list: bool,
    pub md_in_html: bool,
    /// Any `pymdownx.blocks.*`: `/// note | Title` … `///` blocks.
    pub blocks: bool,
    /// `pymdownx.snippets`, when enabled.
    pub snippets: Option<Snippets>,
    /// `toc`'s `slugify`, as MkDocs names it.
    pub slugify: Slugify,
}

/// `pymdownx.snippets`' options.
#[derive(Debug, Clone)]
pub struct Snippets {
    /// Folders snippet paths are tried in, relative to the config's folder.
    pub base_path: Vec<String>,
    pub auto_append: Vec<String>,
    /// A missing snippet fails the build (else it is left out with a log line).
    pub check_paths: bool,
}

impl Default for Snippets {
    fn default() -> Snippets {
        Snippets {
            base_path: vec![".".into()],
            auto_append: Vec::new(),
            check_paths: false,
        }
    }
}

/// The heading-id rule `toc` uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Slugify {
    /// Python-Markdown's `toc.slugify`: ASCII only, runs of spaces and dashes → one `-`.
    #[default]
    Markdown,
    /// `toc.slugify_unicode`: the same, keeping non-ASCII word characters.
    MarkdownUnicode,
    /// `pymdownx.slugs.slugify`: each space → `-`, Unicode kept; `lower` when asked.
    Pymdownx { lower: bool },
}

/// The blog plugin's options.
#[derive(Debug, Clone)]
pub struct Blog {
    /// The blog's folder under the docs root (`blog`; empty for a blog at the root).
    pub blog_dir: String,
    /// Where posts live, under the docs root (`blog/posts`).
    pub post_dir: String,
    /// Drafts are built too (`draft: true` in the plugin's config).
    pub build_drafts: bool,
    /// `post_url_format` (`{date}/{slug}`).
    pub post_url_format: String,
    /// `enabled: false` turns the plugin off: posts are then plain pages.
    pub enabled: bool,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            docs_dir: "docs".into(),
            base_path: "/".into(),
            nav: Vec::new(),
            exclude_docs: Vec::new(),
            draft_docs: Vec::new(),
            extra: Vec::new(),
            extensions: Extensions::default(),
            blog: None,
            macros: false,
            meta_file: None,
            include_markdown: false,
            mkdocstrings: false,
            hooks: Vec::new(),
        }
    }
}

impl Config {
    /// What is assumed when `mkdocs.yml` cannot be read: MkDocs' defaults, with the
    /// markdown extensions Material sites commonly enable on, so that the constructs a
    /// page uses are still rendered.
    pub fn fallback() -> Config {
        Config {
            extensions: Extensions {
                admonition: true,
                details: true,
                tabbed: true,
                emoji: true,
                attr_list: true,
                md_in_html: true,
                blocks: false,
                snippets: Some(Snippets::default()),
                slugify: Slugify::Markdown,
            },
            ..Config::default()
        }
    }
}

/// Read the config at `path`; `Err` says what is wrong (the caller warns and uses defaults).
pub fn load(path: &Path) -> Result<Config, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot be read: {e}"))?;
    let mut value = parse(&text)?;
    // `INHERIT: base.yml`: the child's top-level keys win over the parent's.
    if let Some(parent) = value.get("INHERIT").and_then(Value::as_str) {
        let parent_path = path.parent().unwrap_or(Path::new("")).join(parent);
        let parent_text = std::fs::read_to_string(&parent_path)
            .map_err(|e| format!("INHERIT `{parent}` cannot be read: {e}"))?;
        let mut merged = parse(&parent_text)?;
        if let (Some(base), Some(child)) = (merged.as_object_mut(), value.as_object()) {
            for (key, v) in child {
                base.insert(key.clone(), v.clone());
            }
        }
        value = merged;
    }
    Ok(from_value(&value))
}

/// The YAML of a config, its Python tags stripped.
pub fn parse(text: &str) -> Result<Value, String> {
    let stripped = strip_tags(text);
    let value: Value = yaml_serde::from_str(&stripped).map_err(|e| e.to_string())?;
    match value {
        Value::Object(_) => Ok(value),
        Value::Null => Ok(Value::Object(Map::new())),
        _ => Err("is not a mapping of settings".into()),
    }
}

/// The config read from parsed YAML; anything of the wrong shape is read as absent.
pub fn from_value(value: &Value) -> Config {
    let mut config = Config::default();
    if let Some(dir) = value.get("docs_dir").and_then(Value::as_str) {
        config.docs_dir = dir.trim_end_matches('/').to_owned();
    }
    if let Some(url) = value.get("site_url").and_then(Value::as_str) {
        config.base_path = base_path_of(url);
    }
    if let Some(nav) = value.get("nav") {
        flatten_nav(nav, &mut config.nav);
    }
    config.exclude_docs = pattern_lines(value.get("exclude_docs"));
    config.draft_docs = pattern_lines(value.get("draft_docs"));
    if let Some(extra) = value.get("extra") {
        flatten_extra("config.extra", extra, &mut config.extra);
    }
    config.extensions = extensions(value.get("markdown_extensions"));
    let plugins = named_entries(value.get("plugins"));
    // MkDocs enables `search` when no `plugins` are listed; none of the others.
    config.blog = plugins
        .iter()
        .find(|(name, _)| is_plugin(name, "blog"))
        .map(|(_, options)| blog(options));
    config.macros = plugins.iter().any(|(name, _)| is_plugin(name, "macros"));
    config.mkdocstrings = plugins
        .iter()
        .any(|(name, _)| is_plugin(name, "mkdocstrings"));
    config.include_markdown = plugins
        .iter()
        .any(|(name, _)| is_plugin(name, "include-markdown"));
    config.meta_file = plugins
        .iter()
        .find(|(name, _)| is_plugin(name, "meta"))
        .filter(|(_, options)| options.get("enabled").and_then(Value::as_bool) != Some(false))
        .map(|(_, options)| {
            options
                .get("meta_file")
                .and_then(Value::as_str)
                .unwrap_or(".meta.yml")
                .to_owned()
        });
    if let Some(hooks) = value.get("hooks").and_then(Value::as_array) {
        config.hooks = hooks
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect();
    }
    config
}

/// `material/blog` and `blog` are the same plugin.
fn is_plugin(name: &str, wanted: &str) -> bool {
    name == wanted || name.rsplit_once('/').is_some_and(|(_, n)| n == wanted)
}

fn blog(options: &Value) -> Blog {
    let text = |key: &str| options.get(key).and_then(Value::as_str).map(str::to_owned);
    let blog_dir = text("blog_dir")
        .unwrap_or_else(|| "blog".into())
        .trim_matches('/')
        .trim_start_matches("./")
        .to_owned();
    let blog_dir = if blog_dir == "." {
        String::new()
    } else {
        blog_dir
    };
    let post_dir = text("post_dir")
        .unwrap_or_else(|| "{blog}/posts".into())
        .replace("{blog}", &blog_dir)
        .trim_matches('/')
        .to_owned();
    Blog {
        post_dir,
        build_drafts: options.get("draft").and_then(Value::as_bool) == Some(true),
        post_url_format: text("post_url_format").unwrap_or_else(|| "{date}/{slug}".into()),
        enabled: options.get("enabled").and_then(Value::as_bool) != Some(false),
        blog_dir,
    }
}

fn extensions(value: Option<&Value>) -> Extensions {
    let mut ext = Extensions::default();
    for (name, options) in named_entries(value) {
        match name.as_str() {
            "admonition" | "markdown.extensions.admonition" => ext.admonition = true,
            "pymdownx.details" => ext.details = true,
            "pymdownx.tabbed" => ext.tabbed = true,
            "pymdownx.emoji" => ext.emoji = true,
            "attr_list" | "markdown.extensions.attr_list" => ext.attr_list = true,
            "md_in_html" | "markdown.extensions.md_in_html" => ext.md_in_html = true,
            "pymdownx.snippets" => ext.snippets = Some(snippets(&options)),
            name if name.starts_with("pymdownx.blocks.") => ext.blocks = true,
            "toc" | "markdown.extensions.toc" => {
                if let Some(slugify) = options.get("slugify") {
                    ext.slugify = slugify_of(slugify);
                }
            }
            _ => {}
        }
    }
    ext
}

fn snippets(options: &Value) -> Snippets {
    let mut snippets = Snippets::default();
    if let Some(base) = options.get("base_path") {
        let paths = strings(base);
        if !paths.is_empty() {
            snippets.base_path = paths;
        }
    }
    if let Some(append) = options.get("auto_append") {
        snippets.auto_append = strings(append);
    }
    snippets.check_paths = options.get("check_paths").and_then(Value::as_bool) == Some(true);
    snippets
}

/// `slugify:` after [`strip_tags`]: the tagged function's name, or its name with `kwds`.
fn slugify_of(value: &Value) -> Slugify {
    let (name, kwds) = match value {
        Value::String(s) => (s.as_str(), None),
        Value::Object(map) => (
            map.get(TAG_KEY).and_then(Value::as_str).unwrap_or(""),
            map.get("kwds"),
        ),
        _ => ("", None),
    };
    let name = name.rsplit(':').next().unwrap_or(name);
    if name.ends_with("slugify_unicode") {
        Slugify::MarkdownUnicode
    } else if name.starts_with("pymdownx.slugs.") {
        let case = kwds
            .and_then(|k| k.get("case"))
            .and_then(Value::as_str)
            .unwrap_or("none");
        Slugify::Pymdownx {
            lower: name.ends_with("uslugify_cased") || case != "none",
        }
    } else {
        Slugify::Markdown
    }
}

/// Entries of a list like `markdown_extensions` / `plugins`: a name, or a one-key map of
/// a name to its options (also a plain map of names to options).
fn named_entries(value: Option<&Value>) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    match value {
        Some(Value::Array(items)) => {
            for item in items {
                match item {
                    Value::String(name) => out.push((name.clone(), Value::Null)),
                    Value::Object(map) => {
                        for (name, options) in map {
                            out.push((name.clone(), options.clone()));
                        }
                    }
                    _ => {}
                }
            }
        }
        Some(Value::Object(map)) => {
            for (name, options) in map {
                out.push((name.clone(), options.clone()));
            }
        }
        _ => {}
    }
    out
}

fn strings(value: &Value) -> Vec<String> {
    match value {
        Value::String(s) => vec![s.clone()],
        Value::Array(items) => items
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    }
}

/// `exclude_docs: |` lines (or a list), comments and blanks left out.
fn pattern_lines(value: Option<&Value>) -> Vec<String> {
    let lines: Vec<String> = match value {
        Some(Value::String(s)) => s.lines().map(str::to_owned).collect(),
        Some(other) => strings(other),
        None => Vec::new(),
    };
    lines
        .into_iter()
        .map(|l| l.trim().to_owned())
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect()
}

fn base_path_of(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let path = rest.find('/').map_or("", |i| &rest[i..]);
    let path = path.trim_matches('/');
    if path.is_empty() {
        "/".into()
    } else {
        format!("/{path}/")
    }
}

/// `nav` in order: each page's path with its title; sections recurse, URLs are left out.
fn flatten_nav(value: &Value, out: &mut Vec<(String, Option<String>)>) {
    match value {
        Value::Array(items) => items.iter().for_each(|item| flatten_nav(item, out)),
        Value::String(path) => push_nav(path, None, out),
        Value::Object(map) => {
            for (title, target) in map {
                match target {
                    Value::String(path) => push_nav(path, Some(title), out),
                    other => flatten_nav(other, out),
                }
            }
        }
        _ => {}
    }
}

fn push_nav(path: &str, title: Option<&str>, out: &mut Vec<(String, Option<String>)>) {
    let path = path.trim();
    // URLs and anything that is not a page (an `!include` of another config…) are not
    // pages of this tree.
    if path.contains("://") || !super::super::is_page_source(path, false) {
        return;
    }
    let path = path.trim_start_matches("./").trim_start_matches('/');
    out.push((path.to_owned(), title.map(str::to_owned)));
}

/// `extra` as dotted names with scalar values, under `prefix`.
fn flatten_extra(prefix: &str, value: &Value, out: &mut Vec<(String, String)>) {
    match value {
        Value::Object(map) => {
            for (key, v) in map {
                flatten_extra(&format!("{prefix}.{key}"), v, out);
            }
        }
        Value::String(s) => out.push((prefix.to_owned(), s.clone())),
        Value::Number(n) => out.push((prefix.to_owned(), n.to_string())),
        Value::Bool(b) => out.push((prefix.to_owned(), b.to_string())),
        _ => {}
    }
}

/// The key a tag that opens a mapping is kept under (`!!python/object/apply:f` + `kwds`).
pub const TAG_KEY: &str = "__tag__";

/// `text` with YAML tags made plain: a tag before a value is dropped (`!ENV KEY` →
/// `KEY`), a tag before a nested mapping becomes its [`TAG_KEY`] entry, and a tag alone
/// becomes its own name as a string (`!!python/name:mod.fn` → `"!!python/name:mod.fn"`).
/// Tags inside quoted strings are left alone.
pub fn strip_tags(text: &str) -> String {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut out = String::with_capacity(text.len());
    // Inside a block scalar (`key: |`), lines are text: `!pattern` there is not a tag.
    let mut scalar_indent: Option<usize> = None;
    for (i, line) in lines.iter().enumerate() {
        let indent = line.len() - line.trim_start().len();
        if let Some(block) = scalar_indent {
            if line.trim().is_empty() || indent > block {
                out.push_str(line);
                continue;
            }
            scalar_indent = None;
        }
        if opens_block_scalar(line) {
            scalar_indent = Some(indent);
        }
        let Some((start, end)) = tag_span(line) else {
            out.push_str(line);
            continue;
        };
        let tag = &line[start..end];
        let rest = line[end..].trim();
        let before = &line[..start];
        if !rest.is_empty() && !rest.starts_with('#') {
            out.push_str(before);
            out.push_str(line[end..].trim_start());
            continue;
        }
        let nested = lines[i + 1..]
            .iter()
            .find(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
            .is_some_and(|next| next.len() - next.trim_start().len() > indent);
        let ending = if line.ends_with('\n') { "\n" } else { "" };
        if nested {
            let child_indent = lines[i + 1..]
                .iter()
                .find(|l| !l.trim().is_empty())
                .map_or(indent + 2, |l| l.len() - l.trim_start().len());
            out.push_str(before.trim_end());
            out.push_str(ending);
            out.push_str(&" ".repeat(child_indent));
            out.push_str(&format!("{TAG_KEY}: {}\n", quoted(tag)));
        } else {
            out.push_str(before);
            out.push_str(&quoted(tag));
            out.push_str(ending);
        }
    }
    out
}

/// `key: |`, `- >-`, `key: |2`: the next more-indented lines are a block scalar.
fn opens_block_scalar(line: &str) -> bool {
    let value = line.split(" #").next().unwrap_or(line).trim_end();
    let Some(last) = value.rsplit([' ', '\t']).next() else {
        return false;
    };
    let before = value[..value.len() - last.len()].trim_end();
    (before.ends_with(':') || before.ends_with('-') || before.is_empty() && value != last)
        && last.starts_with(['|', '>'])
        && last[1..]
            .chars()
            .all(|c| matches!(c, '+' | '-') || c.is_ascii_digit())
}

fn quoted(tag: &str) -> String {
    format!("\"{}\"", tag.replace('\\', "\\\\").replace('"', "\\\""))
}

/// Where a tag sits on a line: at a value's start (after `key:`, `- `, or the indent),
/// outside quotes.
fn tag_span(line: &str) -> Option<(usize, usize)> {
    let mut quote: Option<char> = None;
    for (i, c) in line.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => {
                let before = line[..i].trim_end();
                if before.is_empty() || before.ends_with(':') || before.ends_with('-') {
                    quote = Some(c);
                }
            }
            (None, '#') if i == 0 || line[..i].ends_with(' ') => return None,
            (None, '!') => {
                let before = line[..i].trim_end();
                let at_value = before.is_empty()
                    || before.ends_with(':') && line[..i].ends_with(' ')
                    || before.ends_with('-') && before.trim_start() == "-";
                let next = line[i + 1..].chars().next();
                if at_value && next.is_some_and(|n| !n.is_whitespace()) {
                    let end = line[i..]
                        .find(char::is_whitespace)
                        .map_or(line.len(), |e| i + e);
                    return Some((i, end));
                }
            }
            _ => {}
        }
    }
    None
}

/// A gitignore-style pattern (`exclude_docs`) as globs over docs-relative paths, and
/// whether it re-includes (`!pattern`).
pub fn gitignore_globs(pattern: &str) -> (Vec<String>, bool) {
    let (pattern, negated) = match pattern.strip_prefix('!') {
        Some(rest) => (rest, true),
        None => (pattern, false),
    };
    let dir_only = pattern.ends_with('/');
    let body = pattern.trim_end_matches('/');
    let anchored = body.starts_with('/') || body.trim_start_matches('/').contains('/');
    let body = body.trim_start_matches('/');
    let base = if anchored {
        body.to_owned()
    } else {
        format!("**/{body}")
    };
    let mut globs = vec![format!("{base}/**")];
    if !dir_only {
        globs.push(base);
    }
    (globs, negated)
}

/// The folder paths in the config are relative to.
pub fn config_dir(config: &Path) -> PathBuf {
    config.parent().map(Path::to_path_buf).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_tags_do_not_stop_the_parse() {
        let yaml = "extra:\n  key: !ENV GOOGLE_KEY\nmarkdown_extensions:\n  - pymdownx.emoji:\n      emoji_index: !!python/name:material.extensions.emoji.twemoji\n  - toc:\n      slugify: !!python/object/apply:pymdownx.slugs.slugify\n        kwds:\n          case: lower\n  - pymdownx.search:\n      separator: '[\\s!=]+'\n";
        let value = parse(yaml).unwrap();
        assert_eq!(value["extra"]["key"], "GOOGLE_KEY");
        let config = from_value(&value);
        assert!(config.extensions.emoji);
        assert_eq!(config.extensions.slugify, Slugify::Pymdownx { lower: true });
        assert_eq!(
            value["markdown_extensions"][2]["pymdownx.search"]["separator"],
            "[\\s!=]+"
        );
    }

    #[test]
    fn nav_and_base_path() {
        let yaml = "site_url: https://x.github.io/proj/\nnav:\n  - Home: index.md\n  - Guide:\n    - guide/index.md\n    - Intro: guide/intro.md\n    - Ext: https://example.com\n";
        let config = from_value(&parse(yaml).unwrap());
        assert_eq!(config.base_path, "/proj/");
        assert_eq!(
            config.nav,
            vec![
                ("index.md".into(), Some("Home".into())),
                ("guide/index.md".into(), None),
                ("guide/intro.md".into(), Some("Intro".into())),
            ]
        );
    }

    #[test]
    fn block_scalars_are_text() {
        let value = parse("exclude_docs: |\n  drafts/\n  !keep.md\nnext: !ENV X\n").unwrap();
        assert_eq!(value["exclude_docs"], "drafts/\n!keep.md\n");
        assert_eq!(value["next"], "X");
    }

    #[test]
    fn gitignore_patterns() {
        assert_eq!(
            gitignore_globs("drafts/"),
            (vec!["**/drafts/**".to_string()], false)
        );
        assert_eq!(
            gitignore_globs("/api/*.md"),
            (
                vec!["api/*.md/**".to_string(), "api/*.md".to_string()],
                false
            )
        );
        assert!(gitignore_globs("!keep.md").1);
    }
}
