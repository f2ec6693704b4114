//! VitePress.
//!
//! **Reads** `.vitepress/config.{ts,mts,js,mjs}` beside the docs root. The config is code
//! and cannot be run, so its few literal values are read by scanning its tokens (strings,
//! comments and regex literals skipped properly): `base` (the base path), `srcExclude`
//! (excludes), `rewrites` (extra URLs for the rewritten pages: literal keys and `:param`
//! segments), the `themeConfig.sidebar` `{ text, link }` items (nav order and labels;
//! links are URL paths, mapped to the files that publish them), and the `locales` keys
//! that are folders of the docs root (translations: served as `SKILLPACK_DOCS_LOCALE`
//! says; a locale that links to another site has no folder and changes nothing). Values computed at build
//! time (template literals with `${…}`, function calls) are left out.
//!
//! **Serves** every `.md` file under the docs root (VitePress's `srcDir`), rendered as its
//! readers see it:
//! - custom containers `::: tip Title` / `warning` / `danger` / `info` / `details` (any
//!   colon count, nested, indented in list items) → labelled blockquotes;
//! - `::: code-group` → one labelled block per fence (`` ```sh [npm] `` → **npm**);
//! - `<<< ./file.ext#region{…} [label]` snippet imports (`@/` is the docs root) → fenced
//!   code with the file or its `#region name` … `#endregion` part, dedented;
//! - `<!--@include: ./part.md-->` (with `{3,10}` lines or `#region`) → the file's text,
//!   its frontmatter left out, rendered in place (inside a code block: inserted as is, as
//!   VitePress does); `::: v-pre` / `::: raw` → their content;
//! - `<script>` / `<style>` blocks (hoisted into the page's Vue component) dropped;
//! - HTML blocks holding Vue components or template syntax reduced to their text (a
//!   one-line component with an `href` becomes a link); blocks rendered from data with
//!   `v-for` are dropped, since their content exists only at build time;
//! - components in headings (`## input <NonInheritBadge />`) removed: VitePress leaves
//!   inline HTML out of heading ids, so links keep resolving;
//! - `[[toc]]` removed; `{{ $frontmatter.key }}` replaced by the page's static value;
//! - Twoslash fences: the lines before `// ---cut---` and `// @flag` lines are not shown;
//! - `layout: home` pages get their hero and features from frontmatter as markdown.
//!
//! Heading ids follow VitePress's `slugify`. **Skips**: `srcExclude` matches, and
//! `public/` (static files copied as they are, not pages).

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

mod config;
mod vue;

use config::ConfigValues;
use vue::{has_inline_component, heading_without_components, is_vue_block, vue_block_text};

use super::markup::{self, Line};
use super::{Detection, Flavor, Generator, Page, RenderCx, Role, Settings, Skip, Sources};
use crate::compile::diag::Report;

pub struct VitePress {
    settings: Settings,
    /// `rewrites` from the config: source path pattern → published path pattern.
    rewrites: Vec<(String, String)>,
}

impl VitePress {
    pub fn load(detection: &Detection, report: &mut Report) -> VitePress {
        let mut settings = Settings {
            base_path: "/".into(),
            ..Settings::default()
        };
        let mut rewrites = Vec::new();
        if let Some(config) = &detection.config {
            settings.config_file = Some(shown_config(detection, config));
            match std::fs::read_to_string(config) {
                Ok(text) => {
                    let values = ConfigValues::scan(&text);
                    if let Some(base) = values.base {
                        settings.base_path = normalize_base(&base);
                    }
                    settings.excludes = values.src_exclude;
                    rewrites = values.rewrites;
                    settings.nav = nav_from_links(&detection.docs, &values.sidebar);
                    // A locale is a folder of translated pages; one that is only a link
                    // to another site has no folder here.
                    settings.locale_dirs = values
                        .locales
                        .iter()
                        .map(|(key, _)| key.clone())
                        .filter(|key| key != "root" && detection.docs.join(key).is_dir())
                        .collect();
                    if !settings.locale_dirs.is_empty() {
                        let root = values.locales.iter().find(|(key, _)| key == "root");
                        settings.default_locale = Some(
                            root.and_then(|(_, lang)| lang.clone())
                                .unwrap_or_else(|| "root".into()),
                        );
                    }
                }
                Err(error) => report.warning(
                    shown_config(detection, config),
                    None,
                    format!("cannot read the VitePress config: {error}"),
                    "make the file readable; until then no base, srcExclude or sidebar is applied",
                ),
            }
        }
        VitePress { settings, rewrites }
    }
}

fn shown_config(detection: &Detection, config: &Path) -> String {
    config
        .strip_prefix(&detection.project)
        .unwrap_or(config)
        .display()
        .to_string()
}

fn normalize_base(base: &str) -> String {
    let trimmed = base.trim().trim_matches('/');
    if trimmed.is_empty() {
        "/".into()
    } else {
        format!("/{trimmed}/")
    }
}

/// Sidebar links (URL paths) → the docs files that publish them, first mention wins.
fn nav_from_links(
    docs: &Path,
    links: &[(String, Option<String>)],
) -> Vec<(String, Option<String>)> {
    let mut nav: Vec<(String, Option<String>)> = Vec::new();
    for (link, label) in links {
        if link.contains("://") || link.starts_with("mailto:") {
            continue;
        }
        let Some(rel) = file_for_url(docs, link) else {
            continue;
        };
        if !nav.iter().any(|(r, _)| r == &rel) {
            nav.push((rel, label.clone()));
        }
    }
    nav
}

fn file_for_url(docs: &Path, link: &str) -> Option<String> {
    let path = link
        .split(['#', '?'])
        .next()
        .unwrap_or("")
        .trim_matches('/');
    let stem = path
        .strip_suffix(".html")
        .or_else(|| path.strip_suffix(".md"))
        .unwrap_or(path);
    let candidates = if stem.is_empty() {
        vec!["index.md".to_owned()]
    } else {
        vec![format!("{stem}.md"), format!("{stem}/index.md")]
    };
    candidates.into_iter().find(|c| docs.join(c).is_file())
}

impl Generator for VitePress {
    fn flavor(&self) -> Flavor {
        Flavor::VitePress
    }

    fn settings(&self) -> &Settings {
        &self.settings
    }

    fn role(&self, rel: &str, _frontmatter: Option<&Map<String, Value>>) -> Role {
        // VitePress copies `public/` as static files and never builds `node_modules`.
        if rel.starts_with("public/") || rel.split('/').any(|part| part == "node_modules") {
            return Role::Skip(Skip::SiteFile);
        }
        Role::Page
    }

    fn render(&self, page: &Page<'_>, cx: &mut RenderCx<'_>) -> String {
        let mut body = render_markdown(page.body(), page, cx, 0);
        if super::field(page.frontmatter, "layout") == Some("home") {
            let hero = home_markdown(page.frontmatter);
            if !hero.is_empty() {
                body = if body.trim().is_empty() {
                    hero
                } else {
                    format!("{hero}\n{body}")
                };
            }
        }
        body
    }

    fn heading_id(&self, text: &str) -> String {
        slugify(text)
    }

    fn title(&self, _rel: &str, frontmatter: Option<&Map<String, Value>>) -> Option<String> {
        if super::field(frontmatter, "title").is_some() {
            return None;
        }
        let hero = frontmatter?.get("hero")?;
        ["name", "text"]
            .iter()
            .find_map(|k| {
                hero.get(*k)?
                    .as_str()
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
            })
            .map(str::to_owned)
    }

    fn urls(&self, rel: &str, _frontmatter: Option<&Map<String, Value>>) -> Vec<String> {
        self.rewrites
            .iter()
            .filter_map(|(from, to)| rewrite(from, to, rel))
            .map(|to| super::links::url_key(&to))
            .collect()
    }
}

/// `rel` rewritten by one `rewrites` entry (`packages/:pkg/src/index.md` → `:pkg/index.md`).
fn rewrite(from: &str, to: &str, rel: &str) -> Option<String> {
    let from_parts: Vec<&str> = from.trim_start_matches('/').split('/').collect();
    let rel_parts: Vec<&str> = rel.split('/').collect();
    if from_parts.len() != rel_parts.len() {
        return None;
    }
    let mut params: Vec<(&str, &str)> = Vec::new();
    for (pattern, part) in from_parts.iter().zip(&rel_parts) {
        if let Some(name) = pattern.strip_prefix(':') {
            // `:name.md`: a parameter followed by a literal suffix.
            let cut = name
                .find(|c: char| !c.is_alphanumeric() && c != '_')
                .unwrap_or(name.len());
            let (name, suffix) = name.split_at(cut);
            let value = part.strip_suffix(suffix)?;
            params.push((name, value));
        } else if pattern != part {
            return None;
        }
    }
    let mut out = to.trim_start_matches('/').to_owned();
    // Longest names first, so `:pkg` does not eat the start of `:pkgName`.
    params.sort_by_key(|(name, _)| std::cmp::Reverse(name.len()));
    for (name, value) in params {
        out = out.replace(&format!(":{name}"), value);
    }
    Some(out)
}

// ---------------------------------------------------------------------------------------
// Rendering

/// A page body (or a container's body): every construct rendered, plain lines kept.
fn render_markdown(text: &str, page: &Page<'_>, cx: &mut RenderCx<'_>, depth: usize) -> String {
    let lines: Vec<(usize, Line<'_>)> = with_offsets(text);
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < lines.len() {
        let (offset, line) = lines[i];
        let line_no = Some(page.line_of_body_offset(offset_in_body(page, text, offset)));
        // VitePress expands these before parsing markdown, inside code blocks too.
        if let Some(include) = MarkdownInclude::parse(line.bare().trim()) {
            let in_code = line.in_code;
            if let Some(text) = include.expand(cx, line_no, |cx, text| {
                if in_code || depth > 16 {
                    text
                } else {
                    render_markdown(&text, page, cx, depth + 1)
                }
            }) {
                out.push_str(&text);
                if !text.ends_with('\n') && line.text.ends_with('\n') {
                    out.push('\n');
                }
            }
            i += 1;
            continue;
        }
        if line.in_code {
            if line
                .opens
                .is_some_and(|info| info.split_whitespace().any(|w| w == "twoslash"))
            {
                let end = fence_end(&lines, i);
                out.push_str(&twoslash_fence(&lines[i..end]));
                i = end;
                continue;
            }
            out.push_str(line.text);
            i += 1;
            continue;
        }
        let bare = line.bare();
        let indent = markup::indent_of(bare);
        let trimmed = bare.trim_start();
        if indent < 4
            && let Some(open) = container_open(trimmed)
        {
            let end = container_end(&lines, i, open.colons);
            let inner: String = lines[i + 1..end.min(lines.len())]
                .iter()
                .map(|(_, l)| l.text)
                .collect();
            let inner = markup::dedent(&inner, indent);
            let rendered = if depth > 16 {
                inner
            } else if open.kind == "code-group" {
                let expanded = render_markdown(&inner, page, cx, depth + 1);
                code_group(&expanded)
            } else {
                let body = render_markdown(&inner, page, cx, depth + 1);
                container(&open.kind, open.title, &body)
            };
            out.push_str(&indent_lines(&rendered, indent));
            i = (end + 1).min(lines.len());
            continue;
        }
        if indent < 4
            && let Some(snippet) = Snippet::parse(trimmed)
        {
            if let Some(code) = snippet.render(cx, line_no) {
                out.push_str(&indent_lines(&code, indent));
            }
            i += 1;
            continue;
        }
        if indent == 0 && is_hoisted_block(trimmed) {
            i = hoisted_end(&lines, i);
            continue;
        }
        if trimmed == "[[toc]]" {
            i += 1;
            continue;
        }
        if indent < 4 && trimmed.starts_with('#') && has_inline_component(trimmed) {
            out.push_str(&heading_without_components(bare));
            out.push('\n');
            i += 1;
            continue;
        }
        if indent < 4 && starts_html_block(trimmed) {
            let end = html_block_end(&lines, i);
            let block: String = lines[i..end].iter().map(|(_, l)| l.text).collect();
            if is_vue_block(&block) {
                out.push_str(&vue_block_text(&block));
            } else {
                out.push_str(&block);
            }
            i = end;
            continue;
        }
        if bare.contains("$frontmatter") {
            out.push_str(&frontmatter_values(line.text, page.frontmatter));
            i += 1;
            continue;
        }
        out.push_str(line.text);
        i += 1;
    }
    out
}

fn with_offsets(text: &str) -> Vec<(usize, Line<'_>)> {
    let mut offset = 0;
    markup::lines(text)
        .map(|line| {
            let at = offset;
            offset += line.text.len();
            (at, line)
        })
        .collect()
}

/// Where `offset` into `text` is in the page body, when `text` is a slice of it
/// (container bodies are copies: their lines are reported at the page's start).
fn offset_in_body(page: &Page<'_>, text: &str, offset: usize) -> usize {
    let body = page.body();
    let start = text.as_ptr() as usize;
    let body_start = body.as_ptr() as usize;
    if start >= body_start && start + text.len() <= body_start + body.len() {
        start - body_start + offset
    } else {
        0
    }
}

fn indent_lines(text: &str, indent: usize) -> String {
    if indent == 0 {
        return text.to_owned();
    }
    let pad = " ".repeat(indent);
    text.split_inclusive('\n')
        .map(|l| {
            if l.trim().is_empty() {
                l.to_owned()
            } else {
                format!("{pad}{l}")
            }
        })
        .collect()
}

struct ContainerOpen<'t> {
    colons: usize,
    kind: String,
    title: Option<&'t str>,
}

fn container_open(trimmed: &str) -> Option<ContainerOpen<'_>> {
    let colons = trimmed.bytes().take_while(|&b| b == b':').count();
    if colons < 3 {
        return None;
    }
    let rest = trimmed[colons..].trim();
    let kind_len = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '-' || c == '_'))
        .unwrap_or(rest.len());
    if kind_len == 0 {
        return None;
    }
    let kind = rest[..kind_len].to_ascii_lowercase();
    let title = rest[kind_len..].trim();
    // `::: details Title {open}`: the attributes are not part of the title.
    let title = match title.rfind('{') {
        Some(at) if title.ends_with('}') => title[..at].trim(),
        _ => title,
    };
    Some(ContainerOpen {
        colons,
        kind,
        title: (!title.is_empty()).then_some(title),
    })
}

/// The index of the line closing the container opened at `open` (`lines.len()` if none:
/// markdown-it closes it at the end of the document).
fn container_end(lines: &[(usize, Line<'_>)], open: usize, colons: usize) -> usize {
    // markdown-it-container's rule: the first line of at least as many colons and nothing
    // else closes it (a nested container needs fewer colons than its parent).
    for (j, (_, line)) in lines.iter().enumerate().skip(open + 1) {
        if line.in_code {
            continue;
        }
        let trimmed = line.bare().trim();
        let run = trimmed.bytes().take_while(|&b| b == b':').count();
        if run >= colons && trimmed.len() == run {
            return j;
        }
    }
    lines.len()
}

fn container(kind: &str, title: Option<&str>, body: &str) -> String {
    // `::: v-pre` and `::: raw` only keep Vue and VitePress styles off their content.
    if kind == "v-pre" || kind == "raw" {
        return body.to_owned();
    }
    let label = match kind {
        "tip" | "warning" | "danger" | "info" | "details" | "note" | "important" | "caution" => {
            kind
        }
        // A custom container kind registered by a plugin: show its name.
        other => other,
    };
    let mut out = markup::blockquote(label, title, body);
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out
}

/// A `code-group`'s fences, each as a block labelled with its `[label]`.
fn code_group(body: &str) -> String {
    let lines: Vec<(usize, Line<'_>)> = with_offsets(body);
    let mut out = String::new();
    let mut i = 0;
    while i < lines.len() {
        let (_, line) = lines[i];
        let Some(info) = line.opens else {
            // Only fences show in a code group; keep any other text as authored.
            if !line.bare().trim().is_empty() {
                out.push_str(line.text);
            }
            i += 1;
            continue;
        };
        let end = fence_end(&lines, i);
        let (label, info_rest) = split_fence_label(info);
        let mut fence = match label {
            Some(_) => line.text.replacen(info, info_rest.trim(), 1),
            None => line.text.to_owned(),
        };
        for (_, l) in &lines[i + 1..end] {
            fence.push_str(l.text);
        }
        if !fence.ends_with('\n') {
            fence.push('\n');
        }
        if !out.is_empty() && !out.ends_with("\n\n") {
            out.push('\n');
        }
        match label {
            Some(label) => out.push_str(&markup::tab(label, &fence)),
            None => out.push_str(&fence),
        }
        i = end;
    }
    out
}

/// `json [firebase.json]` → (`firebase.json`, `json`).
fn split_fence_label(info: &str) -> (Option<&str>, String) {
    if let Some(open) = info.find('[')
        && let Some(close) = info[open..].find(']')
    {
        let label = info[open + 1..open + close].trim();
        let rest = format!("{} {}", &info[..open], &info[open + close + 1..]);
        let rest = rest.split_whitespace().collect::<Vec<_>>().join(" ");
        return ((!label.is_empty()).then_some(label), rest);
    }
    (None, info.to_owned())
}

/// The index after the fence opened at `open` (its closing line included).
fn fence_end(lines: &[(usize, Line<'_>)], open: usize) -> usize {
    for (j, (_, line)) in lines.iter().enumerate().skip(open + 1) {
        if line.closes {
            return j + 1;
        }
        if !line.in_code {
            return j;
        }
    }
    lines.len()
}

/// A Twoslash fence as readers see it: what comes before `// ---cut---` and the
/// `// @flag` / `// ^?` annotation lines are hidden by Twoslash.
fn twoslash_fence(fence: &[(usize, Line<'_>)]) -> String {
    let Some(((_, open), rest)) = fence.split_first() else {
        return String::new();
    };
    let (body, close) = match rest.split_last() {
        Some(((_, last), body)) if last.closes => (body, Some(last.text)),
        _ => (rest, None),
    };
    let marker = |l: &Line<'_>, word: &str| {
        let t = l.bare().trim();
        t.starts_with("//") && t.trim_start_matches('/').trim() == word
    };
    let start = body
        .iter()
        .rposition(|(_, l)| marker(l, "---cut---") || marker(l, "---cut-before---"))
        .map_or(0, |p| p + 1);
    let end = body
        .iter()
        .position(|(_, l)| marker(l, "---cut-after---"))
        .unwrap_or(body.len());
    let mut out = String::new();
    let info = open.opens.unwrap_or("");
    let kept_info: Vec<&str> = info
        .split_whitespace()
        .filter(|w| *w != "twoslash")
        .collect();
    out.push_str(&open.text.replacen(info, &kept_info.join(" "), 1));
    for (_, line) in body.iter().take(end).skip(start) {
        let t = line.bare().trim_start();
        let annotation = t.starts_with("// @")
            || t.starts_with("//") && t.trim_start_matches('/').trim_start().starts_with('^');
        if !annotation {
            out.push_str(line.text);
        }
    }
    if let Some(close) = close {
        out.push_str(close);
    }
    out
}

/// `<!--@include: ./part.md-->`, with `{3,10}` lines or a `#region`.
#[derive(Debug, PartialEq, Eq)]
struct MarkdownInclude<'t> {
    path: &'t str,
    region: Option<&'t str>,
    lines: Option<(Option<usize>, Option<usize>)>,
}

impl<'t> MarkdownInclude<'t> {
    fn parse(trimmed: &'t str) -> Option<MarkdownInclude<'t>> {
        let inner = trimmed.strip_prefix("<!--")?.strip_suffix("-->")?.trim();
        let spec = inner.strip_prefix("@include:")?.trim();
        let (spec, lines) = match spec.rfind('{') {
            Some(open) if spec.ends_with('}') => {
                let (a, b) = spec[open + 1..spec.len() - 1]
                    .split_once(',')
                    .unwrap_or(("", ""));
                (
                    &spec[..open],
                    Some((a.trim().parse().ok(), b.trim().parse().ok())),
                )
            }
            _ => (spec, None),
        };
        let (path, region) = match spec.split_once('#') {
            Some((path, region)) => (path, Some(region).filter(|r| !r.is_empty())),
            None => (spec, None),
        };
        (!path.is_empty()).then_some(MarkdownInclude {
            path,
            region,
            lines,
        })
    }

    /// The part of the file it names, passed through `expand` while the file is on the
    /// include stack; `None` after reporting what is missing.
    fn expand<'a>(
        &self,
        cx: &mut RenderCx<'a>,
        line: Option<usize>,
        expand: impl FnOnce(&mut RenderCx<'a>, String) -> String,
    ) -> Option<String> {
        let path = match self.path.strip_prefix("@/") {
            Some(rest) => Sources::join(cx.sources.docs_dir(), rest),
            None => Sources::join(&cx.current_dir(), self.path),
        };
        let mut missing_region = false;
        let out = cx.include(line, path.clone(), |cx, text| {
            let body = &text[crate::compile::frontmatter::body_offset(&text)..];
            let part = match self.region {
                Some(name) => match region(body, name) {
                    Some(part) => part,
                    None => {
                        missing_region = true;
                        return String::new();
                    }
                },
                None => body.to_owned(),
            };
            let part = match self.lines {
                Some((first, last)) => super::include::line_range(&part, first, last),
                None => part,
            };
            expand(cx, part)
        })?;
        if missing_region {
            cx.include_error(
                line,
                super::include::IncludeError::NoAnchor {
                    path: cx.sources.shown(&path),
                    anchor: self.region.unwrap_or_default().to_owned(),
                },
            );
            return None;
        }
        Some(out)
    }
}

/// `<<< path#region{meta} [label]`.
#[derive(Debug, PartialEq, Eq)]
struct Snippet<'t> {
    path: &'t str,
    region: Option<&'t str>,
    lang: Option<&'t str>,
    label: Option<&'t str>,
}

impl<'t> Snippet<'t> {
    fn parse(trimmed: &'t str) -> Option<Snippet<'t>> {
        let rest = trimmed.strip_prefix("<<<")?.trim();
        if rest.is_empty() {
            return None;
        }
        let (rest, label) = match (rest.rfind('['), rest.ends_with(']')) {
            (Some(open), true) => (
                rest[..open].trim(),
                Some(rest[open + 1..rest.len() - 1].trim()),
            ),
            _ => (rest, None),
        };
        let (rest, meta) = match rest.find('{') {
            Some(open) => (
                &rest[..open],
                Some(rest[open + 1..].trim_end_matches('}').trim()),
            ),
            None => (rest, None),
        };
        let rest = rest.trim();
        let (path, region) = match rest.split_once('#') {
            Some((path, region)) => (path, Some(region.trim()).filter(|r| !r.is_empty())),
            None => (rest, None),
        };
        // `{1,3-4 ts:line-numbers}`: line highlights, then the language.
        let lang = meta.and_then(|m| {
            m.split_whitespace()
                .find(|w| !w.starts_with(|c: char| c.is_ascii_digit()))
                .map(|w| w.split(':').next().unwrap_or(w))
                .filter(|w| !w.is_empty())
        });
        Some(Snippet {
            path,
            region,
            lang,
            label: label.filter(|l| !l.is_empty()),
        })
    }

    fn target(&self, cx: &RenderCx<'_>) -> PathBuf {
        match self.path.strip_prefix("@/") {
            Some(rest) => Sources::join(cx.sources.docs_dir(), rest),
            None => Sources::join(&cx.current_dir(), self.path),
        }
    }

    /// The fenced code, or `None` after reporting what is missing.
    fn render(&self, cx: &mut RenderCx<'_>, line: Option<usize>) -> Option<String> {
        let path = self.target(cx);
        let text = cx.include(line, path.clone(), |_, text| text)?;
        let code = match self.region {
            Some(name) => match region(&text, name) {
                Some(part) => part,
                None => {
                    cx.include_error(
                        line,
                        super::include::IncludeError::NoAnchor {
                            path: cx.sources.shown(&path),
                            anchor: name.to_owned(),
                        },
                    );
                    return None;
                }
            },
            None => text,
        };
        let lang = self.lang.map(str::to_owned).unwrap_or_else(|| {
            path.extension()
                .and_then(|e| e.to_str())
                .map(|e| match e {
                    "yml" => "yaml".to_owned(),
                    "mts" | "cts" => "ts".to_owned(),
                    "mjs" | "cjs" => "js".to_owned(),
                    other => other.to_owned(),
                })
                .unwrap_or_default()
        });
        let fence = fence_for(&code);
        let mut block = format!("{fence}{lang}\n{code}");
        if !block.ends_with('\n') {
            block.push('\n');
        }
        block.push_str(&fence);
        block.push('\n');
        Some(match self.label {
            Some(label) => markup::tab(label, &block),
            None => block,
        })
    }
}

/// A backtick fence longer than any backtick run at a line start in `code`.
fn fence_for(code: &str) -> String {
    let longest = code
        .lines()
        .map(|l| l.trim_start().bytes().take_while(|&b| b == b'`').count())
        .max()
        .unwrap_or(0);
    "`".repeat(longest.max(2) + 1)
}

/// The lines between `#region name` and `#endregion` (any comment style), dedented as
/// VitePress shows them.
fn region(text: &str, name: &str) -> Option<String> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let start = lines
        .iter()
        .position(|l| region_marker(l).is_some_and(|(end, n)| !end && n == name))?;
    let mut depth = 0;
    let mut end = lines.len();
    for (j, line) in lines.iter().enumerate().skip(start + 1) {
        match region_marker(line) {
            Some((false, n)) if n == name => depth += 1,
            Some((true, n)) if n == name || n.is_empty() => {
                if depth == 0 {
                    end = j;
                    break;
                }
                depth -= 1;
            }
            _ => {}
        }
    }
    let part: Vec<&str> = lines[start + 1..end]
        .iter()
        .copied()
        .filter(|l| region_marker(l).is_none())
        .collect();
    let common = part
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| markup::indent_of(l))
        .min()
        .unwrap_or(0);
    Some(markup::dedent(&part.concat(), common))
}

/// `// #region name` → (false, name); `<!-- #endregion -->` → (true, "").
fn region_marker(line: &str) -> Option<(bool, &str)> {
    let mut t = line.trim();
    for open in ["//", "<!--", "/*", "#", "--", ";", "'"] {
        if let Some(rest) = t.strip_prefix(open) {
            t = rest.trim_start();
            break;
        }
    }
    t = t.strip_prefix('#').unwrap_or(t);
    let t = t.trim_end_matches("-->").trim_end_matches("*/").trim();
    let (end, rest) = if let Some(rest) = t.strip_prefix("endregion") {
        (true, rest)
    } else if let Some(rest) = t.strip_prefix("region") {
        (false, rest)
    } else {
        return None;
    };
    if !(rest.is_empty() || rest.starts_with(char::is_whitespace)) {
        return None;
    }
    Some((end, rest.trim()))
}

/// `<script …>` and `<style …>` at the start of a line: hoisted out of the page.
fn is_hoisted_block(trimmed: &str) -> bool {
    ["<script", "<style"].iter().any(|tag| {
        trimmed
            .strip_prefix(tag)
            .and_then(|r| r.chars().next())
            .is_some_and(|c| c == '>' || c.is_whitespace())
    })
}

fn hoisted_end(lines: &[(usize, Line<'_>)], start: usize) -> usize {
    let close = if lines[start].1.bare().trim_start().starts_with("<script") {
        "</script>"
    } else {
        "</style>"
    };
    for (j, (_, line)) in lines.iter().enumerate().skip(start) {
        if line.text.contains(close) {
            return j + 1;
        }
    }
    lines.len()
}

fn starts_html_block(trimmed: &str) -> bool {
    let rest = trimmed
        .strip_prefix("</")
        .or_else(|| trimmed.strip_prefix('<'));
    rest.and_then(|r| r.chars().next())
        .is_some_and(|c| c.is_ascii_alphabetic())
}

/// An HTML block runs to the next blank line (CommonMark's rule for the tags seen here).
fn html_block_end(lines: &[(usize, Line<'_>)], start: usize) -> usize {
    for (j, (_, line)) in lines.iter().enumerate().skip(start) {
        if line.bare().trim().is_empty() {
            return j;
        }
    }
    lines.len()
}

/// `{{ $frontmatter.key }}` replaced by the page's value, when it has a static one.
fn frontmatter_values(line: &str, frontmatter: Option<&Map<String, Value>>) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(open) = rest.find("{{") {
        let Some(close) = rest[open..].find("}}") else {
            break;
        };
        let expr = rest[open + 2..open + close].trim();
        let value = expr
            .strip_prefix("$frontmatter.")
            .and_then(|key| frontmatter?.get(key))
            .and_then(|v| match v {
                Value::String(s) => Some(s.clone()),
                Value::Number(n) => Some(n.to_string()),
                Value::Bool(b) => Some(b.to_string()),
                _ => None,
            });
        out.push_str(&rest[..open]);
        match value {
            Some(value) => out.push_str(&value),
            None => out.push_str(&rest[open..open + close + 2]),
        }
        rest = &rest[open + close + 2..];
    }
    out.push_str(rest);
    out
}

/// A `layout: home` page's hero and features as markdown (the theme shows them).
fn home_markdown(frontmatter: Option<&Map<String, Value>>) -> String {
    let Some(fm) = frontmatter else {
        return String::new();
    };
    let text = |v: Option<&Value>, key: &str| {
        v.and_then(|v| v.get(key))
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
    };
    let hero = fm.get("hero");
    let mut out = String::new();
    if let Some(name) =
        text(hero, "name").or_else(|| super::field(frontmatter, "title").map(str::to_owned))
    {
        out.push_str(&format!("# {name}\n\n"));
    }
    let mut said = false;
    for key in ["text", "tagline"] {
        if let Some(line) = text(hero, key) {
            out.push_str(&format!("{line}\n\n"));
            said = true;
        }
    }
    if !said {
        for key in ["description", "titleTemplate"] {
            if let Some(line) = super::field(frontmatter, key) {
                out.push_str(&format!("{line}\n\n"));
                break;
            }
        }
    }
    if let Some(actions) = hero
        .and_then(|h| h.get("actions"))
        .and_then(Value::as_array)
    {
        for action in actions {
            if let (Some(label), Some(link)) =
                (text(Some(action), "text"), text(Some(action), "link"))
            {
                out.push_str(&format!("- [{label}]({link})\n"));
            }
        }
        if !actions.is_empty() {
            out.push('\n');
        }
    }
    if let Some(features) = fm.get("features").and_then(Value::as_array) {
        for feature in features {
            match (text(Some(feature), "title"), text(Some(feature), "details")) {
                (Some(title), Some(details)) => {
                    out.push_str(&format!("- **{title}**: {details}\n"))
                }
                (Some(title), None) => out.push_str(&format!("- **{title}**\n")),
                (None, Some(details)) => out.push_str(&format!("- {details}\n")),
                (None, None) => {}
            }
        }
    }
    if out.is_empty() {
        return out;
    }
    if !out.ends_with("\n\n") {
        out.push('\n');
    }
    out
}

/// VitePress's heading ids (`@mdit-vue/shared` `slugify`): accents and control characters
/// removed, every run of spaces and punctuation (`.` included) one `-`, no `-` at either
/// end, a leading digit prefixed with `_`, lowercased.
pub fn slugify(text: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    const SPECIAL: &str = "~`!@#$%^&*()-_+=[]{}|\\;:\"'\u{201c}\u{201d}\u{2018}\u{2019}<>,.?/";
    let mut out = String::new();
    let mut dash = false;
    for c in text.nfkd() {
        if ('\u{300}'..='\u{36f}').contains(&c) || ('\u{0}'..='\u{1f}').contains(&c) {
            continue;
        }
        if c.is_whitespace() || SPECIAL.contains(c) {
            dash = true;
            continue;
        }
        if dash && !out.is_empty() {
            out.push('-');
        }
        dash = false;
        out.extend(c.to_lowercase());
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile::walk::SourceFile;

    fn render_with(
        files: &[(&str, &str)],
        rel: &str,
    ) -> (String, Vec<super::super::page::Problem>) {
        let dir = tempfile::tempdir().unwrap();
        let docs = dir.path().join("docs");
        std::fs::create_dir_all(&docs).unwrap();
        let mut sources: Vec<SourceFile> = files
            .iter()
            .map(|(rel, text)| SourceFile {
                rel: (*rel).into(),
                bytes: text.as_bytes().to_vec(),
            })
            .collect();
        sources.sort_by(|a, b| a.rel.cmp(&b.rel));
        let text = files.iter().find(|(r, _)| *r == rel).unwrap().1;
        let (frontmatter, body_offset) = split_frontmatter(text);
        let page = Page {
            rel,
            text,
            body_offset,
            frontmatter: frontmatter.as_ref(),
        };
        let generator = VitePress {
            settings: Settings {
                base_path: "/".into(),
                ..Settings::default()
            },
            rewrites: Vec::new(),
        };
        let sources = Sources::new(&docs, dir.path(), &sources);
        let mut cx = RenderCx::new(&sources, generator.settings(), rel);
        let out = generator.render(&page, &mut cx);
        (out, cx.problems)
    }

    fn split_frontmatter(text: &str) -> (Option<Map<String, Value>>, usize) {
        if let Some(rest) = text.strip_prefix("---\n")
            && let Some(end) = rest.find("\n---\n")
        {
            let fm = yaml_serde::from_str::<Value>(&rest[..end]).ok();
            let map = fm.and_then(|v| v.as_object().cloned());
            return (map, 4 + end + 5);
        }
        (None, 0)
    }

    fn render(text: &str) -> String {
        render_with(&[("page.md", text)], "page.md").0
    }

    #[test]
    fn plain_markdown_is_kept_byte_for_byte() {
        let text = "# Title\n\nSome *text* with <b>html</b>.\n\n<div class=\"x\">\nplain\n</div>\n\n```js\n::: tip\n<<< ./x.js\n```\n  trailing  \r\nno newline";
        assert_eq!(render(text), text);
    }

    #[test]
    fn containers_become_labelled_blockquotes() {
        let text = "a\n\n::: tip Feedback\nSay *so*.\n:::\n\n:::warning\nCareful\n:::\n";
        assert_eq!(
            render(text),
            "a\n\n> **Tip: Feedback**\n>\n> Say *so*.\n\n> **Warning**\n>\n> Careful\n"
        );
        let details = "::: details Why? {open}\nBecause.\n:::\n";
        assert_eq!(render(details), "> **Details: Why?**\n>\n> Because.\n");
    }

    #[test]
    fn nested_and_indented_containers() {
        let text = ":::: details Outer\n::: tip\ninner\n:::\n::::\n";
        assert_eq!(
            render(text),
            "> **Details: Outer**\n>\n> > **Tip**\n> >\n> > inner\n"
        );
        let listed = "1. Step\n\n   ::: info Note\n   Body\n   :::\n";
        assert_eq!(
            render(listed),
            "1. Step\n\n   > **Info: Note**\n   >\n   > Body\n"
        );
    }

    #[test]
    fn code_groups_become_labelled_blocks() {
        let text =
            "::: code-group\n\n```sh [npm]\nnpm i\n```\n\n```sh [pnpm]\npnpm add\n```\n\n:::\n";
        assert_eq!(
            render(text),
            "**npm**\n\n```sh\nnpm i\n```\n\n**pnpm**\n\n```sh\npnpm add\n```\n"
        );
    }

    #[test]
    fn snippet_imports_a_region_or_the_whole_file() {
        let yaml =
            "# comment\n#region content\n  name: x\n  on: push\n#endregion content\nafter: 1\n";
        let page = "Intro\n\n   <<< ./wf.yaml#content [.github/deploy.yml]\n\n<<< @/wf.yaml\n";
        let (out, problems) = render_with(
            &[
                ("guide/page.md", page),
                ("guide/wf.yaml", yaml),
                ("wf.yaml", "k: v\n"),
            ],
            "guide/page.md",
        );
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(
            out,
            "Intro\n\n   **.github/deploy.yml**\n\n   ```yaml\n   name: x\n   on: push\n   ```\n\n```yaml\nk: v\n```\n"
        );
    }

    #[test]
    fn markdown_includes_are_expanded() {
        let part = "---\ntitle: Part\n---\n# Part\n\n::: tip\nshared\n:::\n<!-- #region two -->\nsecond\n<!-- #endregion two -->\n";
        let page = "Intro\n\n<!--@include: ./parts/p.md-->\n\n<!--@include: @/parts/p.md#two-->\n\n```md\n<!--@include: ./parts/p.md{1,1}-->\n```\n";
        let (out, problems) = render_with(
            &[
                ("guide/page.md", page),
                ("guide/parts/p.md", part),
                ("parts/p.md", part),
            ],
            "guide/page.md",
        );
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(
            out,
            "Intro\n\n# Part\n\n> **Tip**\n>\n> shared\n<!-- #region two -->\nsecond\n<!-- #endregion two -->\n\nsecond\n\n```md\n# Part\n```\n"
        );
        let (_, problems) = render_with(&[("p.md", "<!--@include: ./p.md-->\n")], "p.md");
        assert!(problems[0].message.contains("includes itself"));
        let (_, problems) = render_with(
            &[("p.md", "<!--@include: ./q.md#nope-->\n"), ("q.md", "x\n")],
            "p.md",
        );
        assert!(problems[0].message.contains("anchor `nope`"));
        assert_eq!(render("::: v-pre\n{{ raw }}\n:::\n"), "{{ raw }}\n");
    }

    #[test]
    fn snippet_problems_are_errors() {
        let (out, problems) = render_with(&[("p.md", "<<< ./nope.ts\n")], "p.md");
        assert_eq!(out, "");
        assert!(problems[0].error && problems[0].message.contains("does not exist"));
        let (_, problems) =
            render_with(&[("p.md", "<<< ./a.ts#missing\n"), ("a.ts", "x\n")], "p.md");
        assert!(problems[0].message.contains("anchor `missing`"));
        let (_, problems) = render_with(&[("p.md", "<<< ./p.md\n")], "p.md");
        assert!(problems[0].message.contains("includes itself"));
    }

    #[test]
    fn scripts_styles_and_components_are_reduced() {
        let text = "<script setup>\nimport X from './X.vue'\n</script>\n\n# Blog\n\n<BlogIndex/>\n\n<ScrimbaLink href=\"https://s.com/x\" title=\"t\">Watch a lesson</ScrimbaLink>\n\n[[toc]]\n\n<style scoped>\n.a { color: red }\n</style>\n";
        assert_eq!(
            render(text),
            "\n# Blog\n\n\n[Watch a lesson](https://s.com/x)\n\n\n"
        );
    }

    #[test]
    fn vue_templates_keep_their_text_and_drop_data_loops() {
        let team = "<VPTeamPage>\n  <VPTeamPageTitle>\n    <template #title>Meet the Team</template>\n    <template #lead>\n      The team,\n      featured below.\n    </template>\n  </VPTeamPageTitle>\n  <VPTeamMembers :members=\"core\" />\n</VPTeamPage>\n";
        assert_eq!(
            render(team),
            "Meet the Team\n\nThe team,\nfeatured below.\n"
        );
        let list = "<div class=\"deps\">\n  <div v-for=\"d in data\">{{ d.name }}</div>\n</div>\n\nAfter\n";
        assert_eq!(render(list), "\nAfter\n");
    }

    #[test]
    fn headings_lose_their_components() {
        assert_eq!(render("## input <NonInheritBadge />\n"), "## input\n");
        assert_eq!(
            render("## Target Change [<Badge text=\"NRV\" type=\"warning\" />](#m)\n"),
            "## Target Change\n"
        );
    }

    #[test]
    fn frontmatter_values_are_substituted() {
        let text = "---\nversion: 3\n---\nVersion {{ $frontmatter.version }} and {{ $frontmatter.none }}.\n";
        assert_eq!(render(text), "Version 3 and {{ $frontmatter.none }}.\n");
    }

    #[test]
    fn twoslash_hides_the_preamble() {
        let text = "```ts twoslash [vite.config.ts]\nimport x from 'y'\n// @noErrors\n// ---cut---\nconst a = x\n//    ^?\n```\n";
        assert_eq!(render(text), "```ts [vite.config.ts]\nconst a = x\n```\n");
    }

    #[test]
    fn home_pages_show_their_hero() {
        let text = "---\nlayout: home\nhero:\n  name: Vite\n  text: Fast\n  actions:\n    - text: Start\n      link: /guide/\nfeatures:\n  - title: HMR\n    details: Instant.\n---\n\n<Home />\n";
        let out = render(text);
        assert_eq!(
            out,
            "# Vite\n\nFast\n\n- [Start](/guide/)\n\n- **HMR**: Instant.\n\n"
        );
    }

    #[test]
    fn slugs_follow_vitepress() {
        assert_eq!(slugify("build.target"), "build-target");
        assert_eq!(
            slugify("index.html and Project Root"),
            "index-html-and-project-root"
        );
        assert_eq!(slugify("server.fs.allow"), "server-fs-allow");
        assert_eq!(slugify("--Déjà  vu!--"), "deja-vu");
        assert_eq!(slugify("3.0 Release"), "_3-0-release");
        assert_eq!(
            slugify("`this.environment` in Hooks"),
            "this-environment-in-hooks"
        );
    }

    #[test]
    fn config_literals_are_read() {
        let src = r#"
const v = `x${1}`
// base: '/commented/'
export default defineConfig({
  base: '/docs/',
  locales: {
    root: { label: 'English', lang: 'en-US' },
    fr: { label: 'Français', lang: 'fr', themeConfig: { nav: [{ text: 'x', link: '/fr/' }] } },
    'zh': { label: '简体中文', link: 'https://cn.vite.dev' },
  },
  srcExclude: ['**/README.md', "drafts/**"],
  rewrites: { 'packages/:pkg/src/index.md': ':pkg/index.md' },
  transformHead(ctx) { const p = ctx.page.replace(/(^|\/)index\.md$/, '$1') },
  themeConfig: {
    sidebar: {
      '/guide/': [
        { text: 'Intro', items: [
          { text: 'Getting Started', link: '/guide/' },
          { text: `Migration from v${v}`, link: '/guide/migration' },
        ] },
      ],
      '/config/': [{ link: '/config/', text: 'Config' }],
    },
  },
})
"#;
        let values = ConfigValues::scan(src);
        assert_eq!(
            values.locales,
            [
                ("root".to_owned(), Some("en-US".to_owned())),
                ("fr".to_owned(), Some("fr".to_owned())),
                ("zh".to_owned(), None)
            ]
        );
        assert_eq!(values.base.as_deref(), Some("/docs/"));
        assert_eq!(values.src_exclude, ["**/README.md", "drafts/**"]);
        assert_eq!(
            values.rewrites,
            [(
                "packages/:pkg/src/index.md".to_owned(),
                ":pkg/index.md".to_owned()
            )]
        );
        assert_eq!(
            values.sidebar,
            [
                ("/guide/".to_owned(), Some("Getting Started".to_owned())),
                ("/guide/migration".to_owned(), None),
                ("/config/".to_owned(), Some("Config".to_owned())),
            ]
        );
        assert_eq!(
            rewrite(
                "packages/:pkg/src/index.md",
                ":pkg/index.md",
                "packages/foo/src/index.md"
            )
            .as_deref(),
            Some("foo/index.md")
        );
        assert_eq!(
            rewrite("a/:x.md", "b/:x.md", "a/y.md").as_deref(),
            Some("b/y.md")
        );
        assert_eq!(rewrite("a/:x.md", "b/:x.md", "c/y.md"), None);
    }

    #[test]
    fn sidebar_links_map_to_files_and_public_is_skipped() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("guide")).unwrap();
        std::fs::write(dir.path().join("guide/index.md"), "").unwrap();
        std::fs::write(dir.path().join("guide/why.md"), "").unwrap();
        let links = vec![
            ("/guide/".to_owned(), Some("Start".to_owned())),
            ("/guide/why.html".to_owned(), None),
            ("https://x.dev".to_owned(), None),
            ("/guide/".to_owned(), Some("Again".to_owned())),
            ("/missing".to_owned(), None),
        ];
        assert_eq!(
            nav_from_links(dir.path(), &links),
            [
                ("guide/index.md".to_owned(), Some("Start".to_owned())),
                ("guide/why.md".to_owned(), None)
            ]
        );
        let generator = VitePress {
            settings: Settings::default(),
            rewrites: Vec::new(),
        };
        assert_eq!(
            generator.role("public/robots.md", None),
            Role::Skip(Skip::SiteFile)
        );
        assert_eq!(generator.role("guide/why.md", None), Role::Page);
        assert_eq!(normalize_base("docs"), "/docs/");
        assert_eq!(normalize_base("/"), "/");
    }
}
