//! A MyST page → markdown: directives rendered, includes expanded, targets and comments
//! removed; inline roles, links and substitutions are [`super::inline`]'s.

use std::path::{Path, PathBuf};

use super::Project;
use super::blocks::{self, Block, Directive};
use super::index::{self, body_is_myst};
use crate::site::RenderCx;
use crate::site::include::{self, Sources};
use crate::site::markup;

/// How deep directive bodies and substitutions are rendered inside each other.
const MAX_NESTING: usize = 24;

/// Rendering one page.
pub struct Render<'r, 'a> {
    pub project: &'r Project,
    pub cx: &'r mut RenderCx<'a>,
    /// The page being served (links are written relative to it).
    pub page_rel: &'r str,
    /// Substitutions: the config's, then the page's frontmatter's.
    pub substitutions: &'r std::collections::BTreeMap<String, String>,
    /// The page's file text and its body's offset, while rendering the page's own text
    /// (for line numbers in problems); `None` inside bodies and included files.
    pub lines: Option<(&'r str, usize)>,
    pub depth: usize,
}

impl<'r, 'a> Render<'r, 'a> {
    /// A renderer for text nested in this one (a directive body, an included file).
    pub fn nested<'s>(&'s mut self) -> Render<'s, 'a> {
        Render {
            project: self.project,
            cx: self.cx,
            page_rel: self.page_rel,
            substitutions: self.substitutions,
            lines: None,
            depth: self.depth + 1,
        }
    }

    /// 1-based line in the page file of a byte offset into the text being rendered.
    pub fn line_at(&self, offset: usize) -> Option<usize> {
        let (text, body_offset) = self.lines?;
        let upto = (body_offset + offset).min(text.len());
        Some(text[..upto].bytes().filter(|&b| b == b'\n').count() + 1)
    }

    /// MyST text → markdown.
    pub fn text(&mut self, text: &str) -> String {
        if self.depth > MAX_NESTING {
            return text.to_owned();
        }
        let mut out = String::with_capacity(text.len());
        let mut at_start = true;
        for block in blocks::parse(text) {
            match block {
                Block::Line(line) => {
                    // `:orphan:` and friends at the top of a document are metadata.
                    if at_start && self.depth == 0 && is_metadata_field(line) {
                        continue;
                    }
                    at_start &= line.trim().is_empty();
                    out.push_str(&self.line(line));
                }
                Block::Code(raw) => {
                    at_start = false;
                    out.push_str(raw);
                }
                Block::Directive(directive) => {
                    at_start = false;
                    let rendered = self.directive(&directive);
                    out.push_str(&blocks::indent(&rendered, directive.indent));
                }
            }
        }
        out
    }

    /// One line outside fences.
    fn line(&mut self, line: &str) -> String {
        let t = line.trim();
        if index::label_line(t).is_some()
            || t.starts_with('%')
            || t == "+++"
            || t.starts_with("+++ ")
            || index::block_attributes(t).is_some()
            || (t.len() >= 3 && t.bytes().all(|b| b == b':'))
        {
            return String::new();
        }
        if let Some(rewritten) = self.link_definition(line) {
            return rewritten;
        }
        // A substitution alone on its line is a block: its value may hold directives.
        if let Some(key) = t.strip_prefix("{{").and_then(|r| r.strip_suffix("}}"))
            && !key.contains("}}")
            && let Some(value) = self.substitutions.get(key.trim()).cloned()
            && self.depth < MAX_NESTING
        {
            let indent = line.len() - line.trim_start().len();
            let rendered = self.nested().text(&ensure_newline(&value));
            return blocks::indent(&rendered, indent);
        }
        self.inline(line)
    }

    fn directive(&mut self, d: &Directive<'_>) -> String {
        let name = d.name;
        match name {
            "note" | "warning" | "tip" | "important" | "hint" | "caution" | "attention"
            | "danger" | "error" | "seealso" | "todo" => {
                // These take no title: the argument is the start of the content.
                let content = if d.argument.is_empty() {
                    d.body.clone()
                } else {
                    format!("{}\n{}", d.argument, d.body)
                };
                let body = self.nested().text(&content);
                markup::blockquote(admonition_label(name), None, &body)
            }
            "admonition" | "dropdown" | "topic" | "sidebar" | "card" | "grid-item-card" => {
                self.titled(d)
            }
            "versionadded" | "versionchanged" | "deprecated" | "versionremoved" => {
                self.version_note(d)
            }
            "code-block" | "code" | "sourcecode" | "code-cell" => {
                let language = d.argument.split_whitespace().next().unwrap_or("");
                caption_then(d, &fence(language, &d.body))
            }
            "literalinclude" => self.literal_include(d),
            "include" => self.include(d),
            "toctree" => self.toctree(d),
            "eval-rst" => fence("rst", &d.body),
            "myst-example" => {
                let highlight = d.options.get("highlight").map_or("myst", String::as_str);
                let shown = d.options.get("alt-output").unwrap_or(&d.body).clone();
                let rendered = self.nested().text(&shown);
                format!(
                    "{}\n{}",
                    fence(highlight, &d.body),
                    rendered.trim_start_matches('\n')
                )
            }
            "myst-to-html" => fence("myst", &d.body),
            "myst-admonitions" => self.admonition_tabs(d.argument),
            "tab-item" => {
                let body = self.nested().text(&d.body);
                let label = self.inline(d.argument);
                markup::tab(&label, &body)
            }
            "button-ref" | "button-link" => self.button(d),
            "image" => image(d),
            "figure" => {
                let caption = self.nested().text(&d.body);
                let caption = caption.trim_matches('\n');
                if caption.is_empty() {
                    image(d)
                } else {
                    format!("{}\n{caption}\n", image(d))
                }
            }
            "rubric" => format!("**{}**\n", self.inline(d.argument)),
            "math" => format!("$$\n{}$$\n", ensure_newline(&d.body)),
            "list-table" => {
                let table = list_table(&d.body, &d.options);
                let body = match table {
                    Some(table) => self.inline(&table),
                    None => self.nested().text(&d.body),
                };
                self.with_caption(d.argument, &body)
            }
            "table" | "figure-md" => {
                let body = self.nested().text(&d.body);
                self.with_caption(d.argument, &body)
            }
            "csv-table" => self.with_caption(d.argument, &fence("csv", &d.body)),
            // Raw HTML as its source: left loose in markdown, its text would be read as
            // markdown (MyST-Parser's live preview holds MyST in a `<textarea>`).
            "raw" if d.argument.trim() == "html" => fence("html", &d.body),
            "py-script" => fence("python", &d.body),
            "mermaid" | "graphviz" => fence(name, &d.body),
            // Generated from the project's code or the environment at build time (the
            // config tables of MyST-Parser's own docs, API summaries, a page's contents):
            // nothing in the source to serve.
            "raw" | "contents" | "myst-config" | "myst-warnings" | "docutils-cli-help"
            | "autodoc2-object" | "autodoc2-summary" | "autosummary" | "automodule"
            | "autoclass" | "autofunction" | "doc-directive" => String::new(),
            _ if name.starts_with("py:") || name.starts_with("std:") => {
                let kind = name.rsplit(':').next().unwrap_or(name);
                let signature = format!("{kind} {}", d.argument);
                let body = self.nested().text(&d.body);
                format!(
                    "{}\n\n{}",
                    code_span(&signature),
                    body.trim_start_matches('\n')
                )
            }
            _ if body_is_myst(name) => self.nested().text(&d.body),
            _ => fence("", &d.body),
        }
    }

    /// An admonition with a title of its own (`{admonition} Title`, dropdowns, cards).
    fn titled(&mut self, d: &Directive<'_>) -> String {
        let title = self.inline(d.argument).trim().to_owned();
        let body = self.nested().text(&d.body);
        let body = body.trim_matches('\n');
        let title = match d.options.get("link") {
            Some(link) if !title.is_empty() => {
                let (href, _) = match d.options.get("link-type").map(String::as_str) {
                    Some("ref") => self.ref_target(link).unwrap_or((link.clone(), None)),
                    Some("doc") => self.doc_target(link).unwrap_or((link.clone(), None)),
                    _ => (link.clone(), None),
                };
                format!("[{title}]({href})")
            }
            _ => title,
        };
        if matches!(d.name, "card" | "grid-item-card") {
            return match (title.is_empty(), body.is_empty()) {
                (true, _) => format!("{body}\n"),
                (false, true) => format!("**{title}**\n"),
                (false, false) => format!("**{title}**\n\n{body}\n"),
            };
        }
        let label = if title.is_empty() { "Note" } else { &title };
        let mut out = format!("> **{label}**\n");
        if !body.is_empty() {
            out.push_str(">\n");
            out.push_str(&markup::quote(body));
        }
        out
    }

    fn version_note(&mut self, d: &Directive<'_>) -> String {
        let (version, rest) = d
            .argument
            .split_once(char::is_whitespace)
            .unwrap_or((d.argument, ""));
        let words = match d.name {
            "versionadded" => "Added in version",
            "versionchanged" => "Changed in version",
            "deprecated" => "Deprecated since version",
            _ => "Removed in version",
        };
        let content = format!("{}\n{}", rest.trim(), d.body);
        let body = self.nested().text(content.trim_start_matches('\n'));
        let body = body.trim_matches('\n');
        if body.is_empty() {
            format!("*{words} {version}*\n")
        } else {
            format!("*{words} {version}:* {body}\n")
        }
    }

    fn with_caption(&mut self, caption: &str, body: &str) -> String {
        let caption = self.inline(caption);
        let body = ensure_newline(body.trim_start_matches('\n'));
        if caption.trim().is_empty() {
            body
        } else {
            format!("**{}**\n\n{body}", caption.trim())
        }
    }

    fn button(&mut self, d: &Directive<'_>) -> String {
        let target = d.argument.trim();
        let text = self.nested().text(&d.body);
        let text = text.trim();
        let (href, title) = match (d.name, d.options.get("ref-type").map(String::as_str)) {
            ("button-link", _) => (target.to_owned(), None),
            (_, Some("doc")) => self.doc_target(target).unwrap_or((target.to_owned(), None)),
            _ => self
                .ref_target(target)
                .or_else(|| self.doc_target(target))
                .unwrap_or((target.to_owned(), None)),
        };
        let text = if text.is_empty() {
            title.unwrap_or_else(|| target.to_owned())
        } else {
            text.to_owned()
        };
        format!("[{text}]({href})\n")
    }

    /// `{myst-admonitions} note, tip`: one tab per kind, each with a sample admonition
    /// (what MyST-Parser's docs directive generates).
    fn admonition_tabs(&mut self, kinds: &str) -> String {
        let mut out = String::new();
        for kind in kinds.split(',').map(str::trim).filter(|k| !k.is_empty()) {
            let sample =
                markup::blockquote(admonition_label(kind), None, &format!("This is a {kind}"));
            out.push_str(&markup::tab(kind, &sample));
            out.push('\n');
        }
        out
    }

    fn toctree(&mut self, d: &Directive<'_>) -> String {
        if d.options.contains_key("hidden") {
            return String::new();
        }
        let glob = d.options.contains_key("glob");
        let mut out = String::new();
        if let Some(caption) = d.options.get("caption") {
            out.push_str(&format!("**{}**\n\n", caption.trim()));
        }
        for entry in index::toctree_entries(&d.body, glob) {
            for (rel, title) in self.project.toc_pages(self.page_rel, &entry) {
                let title = title
                    .or_else(|| self.project.index.titles.get(&rel).cloned())
                    .unwrap_or_else(|| rel.clone());
                let href = relative_href(self.page_rel, &rel);
                out.push_str(&format!("- [{title}]({href})\n"));
            }
        }
        out
    }

    /// The file a directive names: relative to the file being read, or to the docs root
    /// when it starts with `/`.
    fn directive_path(&self, argument: &str) -> PathBuf {
        let argument = argument.trim();
        match argument.strip_prefix('/') {
            Some(rest) => Sources::join(self.cx.sources.docs_dir(), rest),
            None => Sources::join(&self.cx.current_dir(), argument),
        }
    }

    fn include(&mut self, d: &Directive<'_>) -> String {
        let path = self.directive_path(d.argument);
        let line = self.line_at(d.start);
        let page_dir = self
            .cx
            .sources
            .abs(self.page_rel)
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        let included_dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let literal_language = d
            .options
            .get("code")
            .cloned()
            .or_else(|| d.options.contains_key("literal").then(String::new));
        let (project, page_rel, substitutions, depth) = (
            self.project,
            self.page_rel,
            self.substitutions,
            self.depth + 1,
        );
        let result = self.cx.include(line, path, |cx, text| {
            let text = slice_include(&text, &d.options);
            if let Some(language) = &literal_language {
                return fence(language, &text);
            }
            let text = relative_links(&text, &included_dir, &page_dir, &d.options);
            let offset = d
                .options
                .get("heading-offset")
                .and_then(|n| n.trim().parse::<usize>().ok())
                .unwrap_or(0);
            let text = offset_headings(&text, offset);
            let mut inner = Render {
                project,
                cx,
                page_rel,
                substitutions,
                lines: None,
                depth,
            };
            inner.text(&text)
        });
        result.unwrap_or_default()
    }

    fn literal_include(&mut self, d: &Directive<'_>) -> String {
        let path = self.directive_path(d.argument);
        let line = self.line_at(d.start);
        let language = d
            .options
            .get("language")
            .cloned()
            .unwrap_or_else(|| language_of(&path).to_owned());
        let text = self
            .cx
            .include(line, path, |_, text| literal_slice(&text, &d.options));
        match text {
            Some(text) => caption_then(d, &fence(&language, &text)),
            None => String::new(),
        }
    }
}

/// The label an admonition kind is shown with (`seealso` → `See also`).
fn admonition_label(kind: &str) -> &str {
    if kind == "seealso" { "See also" } else { kind }
}

/// `:orphan:`, `:tocdepth:`, `:nocomments:`, `:nosearch:` (document metadata).
fn is_metadata_field(line: &str) -> bool {
    blocks::option_line(line)
        .is_some_and(|(key, _)| matches!(key, "orphan" | "tocdepth" | "nocomments" | "nosearch"))
}

/// A directive's `:caption:` as a bold line above `block`.
fn caption_then(d: &Directive<'_>, block: &str) -> String {
    match d.options.get("caption").filter(|c| !c.trim().is_empty()) {
        Some(caption) => format!("**{}**\n\n{block}", caption.trim()),
        None => block.to_owned(),
    }
}

/// `body` in a fenced code block whose fence no line of it can close.
pub fn fence(language: &str, body: &str) -> String {
    let longest = body
        .lines()
        .map(|l| l.trim_start().bytes().take_while(|&b| b == b'`').count())
        .max()
        .unwrap_or(0);
    let ticks = "`".repeat(longest.max(2) + 1);
    format!("{ticks}{language}\n{}{ticks}\n", ensure_newline(body))
}

fn ensure_newline(text: &str) -> String {
    if text.is_empty() || text.ends_with('\n') {
        text.to_owned()
    } else {
        format!("{text}\n")
    }
}

/// `text` as an inline code span.
pub fn code_span(text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let ticks = "`".repeat(longest + 1);
    let pad = if text.starts_with('`') || text.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{ticks}{pad}{text}{pad}{ticks}")
}

fn image(d: &Directive<'_>) -> String {
    let alt = d.options.get("alt").map_or("", String::as_str);
    format!("![{alt}]({})\n", d.argument.trim())
}

/// The language a file's extension names, for its fence.
fn language_of(path: &Path) -> &'static str {
    match path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase()
        .as_str()
    {
        "py" => "python",
        "rs" => "rust",
        "js" | "mjs" => "javascript",
        "ts" => "typescript",
        "md" => "markdown",
        "rst" => "rst",
        "toml" => "toml",
        "yaml" | "yml" => "yaml",
        "json" => "json",
        "sh" | "bash" => "bash",
        "html" => "html",
        "css" => "css",
        "c" | "h" => "c",
        "cpp" | "hpp" => "cpp",
        "ini" | "cfg" => "ini",
        _ => "",
    }
}

/// docutils' `include` options: `:start-line:`/`:end-line:` (Python slice bounds, then)
/// `:start-after:`/`:end-before:` (text).
fn slice_include(text: &str, options: &std::collections::BTreeMap<String, String>) -> String {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let bound = |key: &str| -> Option<usize> {
        let n: i64 = options.get(key)?.trim().parse().ok()?;
        let len = lines.len() as i64;
        Some(if n < 0 { (len + n).max(0) } else { n.min(len) } as usize)
    };
    let start = bound("start-line").unwrap_or(0);
    let end = bound("end-line").unwrap_or(lines.len()).max(start);
    let mut text = lines[start..end].concat();
    if let Some(after) = options.get("start-after")
        && let Some(at) = text.find(after.as_str())
    {
        text = text[at + after.len()..].to_owned();
    }
    if let Some(before) = options.get("end-before")
        && let Some(at) = text.find(before.as_str())
    {
        text.truncate(at);
    }
    text
}

/// Sphinx's `literalinclude` options: `:start-at:`/`:start-after:`, `:end-at:`/
/// `:end-before:` (the first line containing the text), then `:lines:` (`1,3,5-7,9-`),
/// then `:dedent:`.
fn literal_slice(text: &str, options: &std::collections::BTreeMap<String, String>) -> String {
    let mut lines: Vec<&str> = text.split_inclusive('\n').collect();
    let find = |lines: &[&str], key: &str| -> Option<usize> {
        let needle = options.get(key)?;
        lines.iter().position(|l| l.contains(needle.as_str()))
    };
    if let Some(i) = find(&lines, "start-at") {
        lines.drain(..i);
    } else if let Some(i) = find(&lines, "start-after") {
        lines.drain(..=i);
    }
    if let Some(i) = find(&lines, "end-at") {
        lines.truncate(i + 1);
    } else if let Some(i) = find(&lines, "end-before") {
        lines.truncate(i);
    }
    if let Some(spec) = options.get("lines") {
        let picked = pick_lines(&lines, spec);
        lines = picked;
    }
    let text = lines.concat();
    match options
        .get("dedent")
        .and_then(|n| n.trim().parse::<usize>().ok())
    {
        Some(n) => markup::dedent(&text, n),
        None => text,
    }
}

/// `1,3,5-7,9-` (1-based) of `lines`.
fn pick_lines<'l>(lines: &[&'l str], spec: &str) -> Vec<&'l str> {
    let mut out = Vec::new();
    for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (first, last) = match part.split_once('-') {
            Some((a, b)) => (
                a.trim().parse::<usize>().unwrap_or(1),
                b.trim().parse::<usize>().unwrap_or(lines.len()),
            ),
            None => match part.parse::<usize>() {
                Ok(n) => (n, n),
                Err(_) => continue,
            },
        };
        for n in first.max(1)..=last.min(lines.len()) {
            out.push(lines[n - 1]);
        }
    }
    out
}

/// Headings of included text pushed down `offset` levels (`:heading-offset:`).
fn offset_headings(text: &str, offset: usize) -> String {
    if offset == 0 {
        return text.to_owned();
    }
    let hashes = "#".repeat(offset);
    markup::lines(text)
        .map(|line| {
            if !line.in_code && index::heading_text(line.text).is_some() {
                let indent = line.text.len() - line.text.trim_start_matches(' ').len();
                format!("{}{hashes}{}", &line.text[..indent], &line.text[indent..])
            } else {
                line.text.to_owned()
            }
        })
        .collect()
}

/// `:relative-docs: prefix` and `:relative-images:`: link and image paths of included
/// text, written relative to the included file, rewritten relative to the page.
fn relative_links(
    text: &str,
    included_dir: &Path,
    page_dir: &Path,
    options: &std::collections::BTreeMap<String, String>,
) -> String {
    let docs_prefix = options.get("relative-docs").map(|p| p.trim().to_owned());
    let images = options.contains_key("relative-images");
    if docs_prefix.is_none() && !images {
        return text.to_owned();
    }
    let rewrite = |is_image: bool, dest: &str| -> Option<String> {
        if dest.starts_with('#') || dest.starts_with('/') || dest.contains(':') {
            return None;
        }
        let applies = if is_image {
            images
        } else {
            docs_prefix
                .as_deref()
                .is_some_and(|prefix| dest.starts_with(prefix))
        };
        if !applies {
            return None;
        }
        let target = include::normalize(&included_dir.join(dest));
        Some(relative_path(page_dir, &target))
    };
    markup::lines(text)
        .map(|line| {
            if line.in_code {
                line.text.to_owned()
            } else {
                rewrite_destinations(line.text, &rewrite)
            }
        })
        .collect()
}

/// `line` with each `[…](dest)` / `![…](dest)` destination passed through `rewrite`.
fn rewrite_destinations(line: &str, rewrite: &dyn Fn(bool, &str) -> Option<String>) -> String {
    let mut out = String::with_capacity(line.len());
    let mut last = 0;
    let mut from = 0;
    while let Some(at) = line[from..].find("](").map(|i| i + from) {
        let dest_start = at + 2;
        let Some(len) = line[dest_start..].find([')', ' ']) else {
            break;
        };
        let dest = &line[dest_start..dest_start + len];
        let is_image = opening_bracket(&line[..at])
            .is_some_and(|open| open > 0 && line.as_bytes()[open - 1] == b'!');
        if let Some(new) = rewrite(is_image, dest) {
            out.push_str(&line[last..dest_start]);
            out.push_str(&new);
            last = dest_start + len;
        }
        from = dest_start + len;
    }
    out.push_str(&line[last..]);
    out
}

/// Where the `[` matching a `]` at the end of `before` is.
fn opening_bracket(before: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (i, b) in before.bytes().enumerate().rev() {
        match b {
            b']' => depth += 1,
            b'[' if depth == 0 => return Some(i),
            b'[' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// The path from folder `from` to `to` (both absolute), `/`-separated.
pub fn relative_path(from: &Path, to: &Path) -> String {
    let from: Vec<_> = from.components().collect();
    let to: Vec<_> = to.components().collect();
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<String> = vec!["..".into(); from.len() - common];
    parts.extend(
        to[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    parts.join("/")
}

/// A link from the page `from_rel` to the docs file `to_rel` (both docs-relative).
pub fn relative_href(from_rel: &str, to_rel: &str) -> String {
    let from_dir = from_rel.rsplit_once('/').map_or("", |(d, _)| d);
    let from: Vec<&str> = from_dir.split('/').filter(|s| !s.is_empty()).collect();
    let to: Vec<&str> = to_rel.split('/').filter(|s| !s.is_empty()).collect();
    let common = from
        .iter()
        .zip(&to)
        .take_while(|(a, b)| a == b)
        .count()
        .min(to.len().saturating_sub(1));
    let mut parts: Vec<&str> = vec![".."; from.len() - common];
    parts.extend(&to[common..]);
    parts.join("/")
}

/// A `{list-table}` body (`* - cell` rows) as a markdown table, when every cell is one
/// line; `None` otherwise.
fn list_table(body: &str, options: &std::collections::BTreeMap<String, String>) -> Option<String> {
    let mut rows: Vec<Vec<String>> = Vec::new();
    let item = |t: &str| -> Option<String> {
        let rest = t.strip_prefix(['*', '-', '+'])?;
        (rest.is_empty() || rest.starts_with([' ', '\t'])).then(|| rest.trim_start().to_owned())
    };
    for line in body.lines() {
        let t = line.trim_start();
        if t.is_empty() {
            continue;
        }
        if t.contains("```") || t.contains("~~~") {
            return None;
        }
        match item(t) {
            Some(rest) => match item(&rest) {
                Some(cell) if line.starts_with(['*', '-', '+']) => rows.push(vec![cell]),
                _ => rows.last_mut()?.push(rest),
            },
            None => {
                let cell = rows.last_mut()?.last_mut()?;
                cell.push(' ');
                cell.push_str(t);
            }
        }
    }
    let width = rows.iter().map(Vec::len).max()?;
    let header_rows = options
        .get("header-rows")
        .and_then(|n| n.trim().parse::<usize>().ok())
        .unwrap_or(0)
        .min(1);
    let row = |cells: &[String]| -> String {
        let mut cells: Vec<String> = cells.iter().map(|c| c.replace('|', "\\|")).collect();
        cells.resize(width, String::new());
        format!("| {} |\n", cells.join(" | "))
    };
    let mut out = String::new();
    let (head, rest) = if header_rows == 1 {
        (rows[0].clone(), &rows[1..])
    } else {
        (vec![String::new(); width], &rows[..])
    };
    out.push_str(&row(&head));
    out.push_str(&format!("|{}\n", " --- |".repeat(width)));
    for cells in rest {
        out.push_str(&row(cells));
    }
    Some(out)
}
