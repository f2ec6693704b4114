//! MDX as a site shows it, shared by Docusaurus and Starlight: ESM (`import`/`export`)
//! dropped, `{/* comments */}` dropped, `:::kind[Title]` containers as labelled
//! blockquotes, and JSX components reduced to what a reader sees of them (tabs as labelled
//! blocks, asides as blockquotes, cards and link cards as text and links, `<Code>` as a
//! fenced block, imported MDX partials inlined; unknown components keep their children).
//!
//! Why line-based and not a parser: no MDX crate turns MDX back into markdown without
//! reformatting the author's markdown (a parse and re-render loses spacing, list markers,
//! emphasis style…), and served text must keep every line that is not markup byte for
//! byte. So this walks lines, knows fenced code (indented with spaces or tabs: MDX has no
//! indented code blocks, so a tab-indented fence inside a component is still a fence), and
//! rewrites only the lines that are MDX syntax.

mod containers;
mod esm;
mod jsx;

use std::collections::HashMap;
use std::path::PathBuf;

use crate::site::include::Sources;
use crate::site::{RenderCx, markup};
use containers::*;
use esm::*;
use jsx::*;

/// A generator's own rewrite of one markdown line (the line with its ending, its 1-based
/// line in the page); `None` keeps the line.
pub(crate) type LineHook<'o> = &'o dyn Fn(&str, usize, &mut RenderCx<'_>) -> Option<String>;

/// How one generator reads MDX.
pub(crate) struct Mdx<'o> {
    /// JSX, ESM and `{/* */}` are read: an `.mdx` page, or any page where the generator
    /// compiles markdown as MDX (Docusaurus). Containers (`:::note`) are read either way.
    pub jsx: bool,
    /// Import specifier prefixes and the folders they stand for (`~/` → `docs/src/`,
    /// `@site/` → the Docusaurus project).
    pub aliases: &'o [(String, PathBuf)],
    pub line_hook: Option<LineHook<'o>>,
}

/// How deep components and containers are read inside each other.
const MAX_NESTING: usize = 32;

/// What a file's ESM binds: imported names and static `export const`s.
#[derive(Debug, Default)]
struct Scope {
    /// Local name → import specifier (`Foo` → `./_foo.mdx`).
    imports: HashMap<String, String>,
    /// `export const name = 'text'` → text.
    values: HashMap<String, String>,
}

/// One line of the source and whether it is fenced code.
#[derive(Debug, Clone, Copy)]
struct SrcLine<'t> {
    start: usize,
    text: &'t str,
    in_code: bool,
}

impl<'t> SrcLine<'t> {
    fn bare(&self) -> &'t str {
        self.text.trim_end_matches(['\n', '\r'])
    }

    fn end(&self) -> usize {
        self.start + self.text.len()
    }

    fn is_blank(&self) -> bool {
        self.text.trim().is_empty()
    }
}

/// Lines with fenced code marked. Unlike [`markup::lines`], a fence may be indented with
/// tabs or any number of spaces: inside JSX, MDX reads `\t```sh` as a fence.
fn split_lines(text: &str) -> Vec<SrcLine<'_>> {
    let mut out = Vec::new();
    let mut open: Option<(u8, usize)> = None;
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim();
        let in_code = match open {
            Some((ch, len)) => {
                let run = trimmed.bytes().take_while(|&b| b == ch).count();
                if run >= len && trimmed[run..].trim().is_empty() {
                    open = None;
                }
                true
            }
            None => match fence_open(trimmed) {
                Some(fence) => {
                    open = Some(fence);
                    true
                }
                None => false,
            },
        };
        out.push(SrcLine {
            start,
            text: line,
            in_code,
        });
        start += line.len();
    }
    out
}

fn fence_open(trimmed: &str) -> Option<(u8, usize)> {
    let ch = *trimmed.as_bytes().first()?;
    if ch != b'`' && ch != b'~' {
        return None;
    }
    let len = trimmed.bytes().take_while(|&b| b == ch).count();
    if len < 3 || (ch == b'`' && trimmed[len..].contains('`')) {
        return None;
    }
    Some((ch, len))
}

/// Whether line `i`, indented by `indent`, continues a list item above it.
fn in_list_item(lines: &[SrcLine<'_>], i: usize, indent: &str) -> bool {
    if indent.is_empty() {
        return false;
    }
    let width = markup::indent_of(indent);
    for line in lines[..i].iter().rev() {
        if line.is_blank() {
            continue;
        }
        let bare = line.bare();
        if markup::indent_of(bare) >= width {
            continue;
        }
        let t = bare.trim_start();
        let digits = t.bytes().take_while(u8::is_ascii_digit).count();
        return t.starts_with("- ")
            || t.starts_with("* ")
            || t.starts_with("+ ")
            || (digits > 0 && (t[digits..].starts_with(". ") || t[digits..].starts_with(") ")));
    }
    false
}

/// The index of the line holding byte `pos`.
fn line_at(lines: &[SrcLine<'_>], pos: usize) -> usize {
    match lines.binary_search_by(|l| l.start.cmp(&pos)) {
        Ok(i) => i,
        Err(i) => i.saturating_sub(1),
    }
}

/// The output being built, keeping blocks apart from the lines around them.
struct Out {
    text: String,
    /// A block was just written: a following non-blank line needs a blank line first.
    gap: bool,
    /// Markup was just rendered or dropped: blank lines that would pile up after it go.
    collapse: bool,
}

impl Out {
    fn line(&mut self, line: &str) {
        let blank = line.trim().is_empty();
        if blank && self.collapse && (self.text.is_empty() || self.text.ends_with("\n\n")) {
            return;
        }
        if self.gap && !blank {
            self.separate();
        }
        self.gap = false;
        self.collapse &= blank;
        self.text.push_str(line);
    }

    fn separate(&mut self) {
        if !self.text.is_empty() && !self.text.ends_with('\n') {
            self.text.push('\n');
        }
        if !self.text.is_empty() && !self.text.ends_with("\n\n") {
            self.text.push('\n');
        }
    }

    /// Markup that renders to nothing was dropped.
    fn dropped(&mut self) {
        self.collapse = true;
    }

    /// A block-level element or container: in MDX it stands apart from the text around
    /// it, so it does here too.
    fn rendered(&mut self, text: &str, indent: &str) {
        self.collapse = true;
        if text.trim().is_empty() {
            return;
        }
        let text = reindent(trim_blank_lines(text), indent);
        self.separate();
        self.text.push_str(&text);
        if !text.ends_with('\n') {
            self.text.push('\n');
        }
        self.gap = true;
    }
}

impl Mdx<'_> {
    /// `text` (a page body or partial, `first_line` its 1-based line in the file) as the
    /// site shows it.
    pub(crate) fn render(&self, text: &str, first_line: usize, cx: &mut RenderCx<'_>) -> String {
        let lines = split_lines(text);
        let mut scope = Scope::default();
        if self.jsx {
            // Imports are hoisted: a component may be used above its import line.
            collect_scope(&lines, &mut scope);
        }
        self.render_in(text, first_line, &scope, 0, cx)
    }

    fn render_in(
        &self,
        text: &str,
        first_line: usize,
        scope: &Scope,
        depth: usize,
        cx: &mut RenderCx<'_>,
    ) -> String {
        if depth > MAX_NESTING {
            // Components nested this deep are not documentation: serve the text as is
            // rather than recurse without bound.
            return text.to_owned();
        }
        let lines = split_lines(text);
        let mut out = Out {
            text: String::with_capacity(text.len()),
            gap: false,
            collapse: false,
        };
        let mut i = 0;
        while i < lines.len() {
            let line = lines[i];
            let line_no = first_line + i;
            if line.in_code {
                out.line(line.text);
                i += 1;
                continue;
            }
            let bare = line.bare();
            let trimmed = bare.trim_start_matches([' ', '\t']);
            let indent = &bare[..bare.len() - trimmed.len()];
            // Indentation means nothing to MDX, except inside a list item, where the
            // rendering must stay indented to remain in the item.
            let keep = if in_list_item(&lines, i, indent) {
                indent
            } else {
                ""
            };
            if self.jsx && indent.is_empty() && is_esm_start(trimmed) {
                i = esm_end(&lines, i);
                out.dropped();
                continue;
            }
            if self.jsx
                && trimmed.starts_with("{/*")
                && let Some((last, rest)) = comment_end(text, &lines, line.start + indent.len())
            {
                {
                    out.dropped();
                    if !rest.trim().is_empty() {
                        out.line(rest);
                    }
                    i = last + 1;
                    continue;
                }
            }
            if let Some(admonition) = admonition_open(trimmed) {
                let close = admonition_close(&lines, i);
                let body: String = lines[i + 1..close].iter().map(|l| l.text).collect();
                let body = strip_indent(&body, indent);
                let rendered = self.render_in(&body, line_no + 1, scope, depth + 1, cx);
                let quoted =
                    markup::blockquote(admonition.kind, admonition.title.as_deref(), &rendered);
                out.rendered(&quoted, keep);
                i = (close + 1).min(lines.len()).max(i + 1);
                continue;
            }
            if self.jsx
                && starts_component(trimmed)
                && let Some(element) = parse_element(text, &lines, line.start + indent.len())
            {
                let rendered = self.element(&element, line_no, scope, depth + 1, cx);
                out.rendered(&rendered, keep);
                let last = line_at(&lines, element.end.saturating_sub(1).max(line.start));
                let rest = &text[element.end.min(lines[last].end())..lines[last].end()];
                if !rest.trim().is_empty() {
                    let rest = self.inline(rest.trim_start(), line_no, scope, cx);
                    out.line(&rest);
                }
                i = last + 1;
                continue;
            }
            let rewritten = self.inline(line.text, line_no, scope, cx);
            out.line(&rewritten);
            i += 1;
        }
        out.text
    }

    /// A markdown line with inline MDX reduced (comments, inline components) and the
    /// generator's hook applied. Lines with none of it come back unchanged.
    fn inline(&self, line: &str, line_no: usize, scope: &Scope, cx: &mut RenderCx<'_>) -> String {
        let mut text = line.to_owned();
        if self.jsx {
            if text.contains("{/*") {
                text = strip_inline_comments(&text);
            }
            if text.contains('<') {
                text = inline_components(&text, scope);
            }
            if text.contains('{') {
                text = static_braces(&text);
            }
        }
        if let Some(hook) = self.line_hook
            && let Some(replaced) = hook(&text, line_no, cx)
        {
            return replaced;
        }
        text
    }

    /// What a block-level component renders to.
    fn element(
        &self,
        element: &Element<'_>,
        line_no: usize,
        scope: &Scope,
        depth: usize,
        cx: &mut RenderCx<'_>,
    ) -> String {
        let name = element.name.rsplit('.').next().unwrap_or(element.name);
        let tag = &element.tag;
        let inner = |cx: &mut RenderCx<'_>| -> String {
            match element.children {
                Some(children) => {
                    let children = normalize_children(children);
                    self.render_in(&children, line_no + 1, scope, depth, cx)
                }
                None => String::new(),
            }
        };
        if let Some(spec) = scope.imports.get(element.name)
            && is_markdown_specifier(spec)
        {
            return self.partial(spec, line_no, cx);
        }
        match name {
            "TabItem" => {
                let label = tag.string("label").or_else(|| tag.string("value"));
                let body = inner(cx);
                match label {
                    Some(label) => markup::tab(&label, &body),
                    None => body,
                }
            }
            "Aside" | "Admonition" => {
                let kind = tag.string("type").unwrap_or_else(|| "note".into());
                let title = tag.string("title");
                let body = inner(cx);
                markup::blockquote(&kind, title.as_deref(), &body)
            }
            "Card" => {
                let body = inner(cx);
                match tag.string("title") {
                    Some(title) => markup::tab(&title, &body),
                    None => body,
                }
            }
            "LinkCard" => {
                let title = tag.string("title").unwrap_or_default();
                let href = tag.string("href").unwrap_or_default();
                let mut text = format!("- [{title}]({href})");
                if let Some(description) = tag.string("description") {
                    text.push_str(": ");
                    text.push_str(&description);
                }
                text.push('\n');
                text
            }
            "LinkButton" => {
                let body = inner(cx);
                let href = tag.string("href").unwrap_or_default();
                format!("[{}]({href})\n", body.trim())
            }
            "Code" => self.code_block(tag, line_no, scope, cx).unwrap_or_default(),
            // `<LiteYouTubeEmbed id="…" title="…" />`: the video, as a link.
            _ if name.contains("YouTube") && tag.string("id").is_some() => {
                let id = tag.string("id").unwrap_or_default();
                let title = tag.string("title").unwrap_or_else(|| "Video".into());
                format!("[{title}](https://www.youtube.com/watch?v={id})\n")
            }
            _ if element.children.is_none() => inline_value(tag, scope),
            _ => {
                let body = inner(cx);
                // A component with a title and content (`<DetailedExplanation title="…">`,
                // a `<details>` in disguise) shows its title above the content.
                match tag.string("title") {
                    Some(title) if !body.trim().is_empty() => markup::tab(&title, &body),
                    _ => body,
                }
            }
        }
    }

    /// An imported MDX partial, rendered and inlined (`import Foo from './_foo.mdx'` …
    /// `<Foo />`).
    fn partial(&self, spec: &str, line_no: usize, cx: &mut RenderCx<'_>) -> String {
        let Some(path) = self.resolve(spec, cx) else {
            cx.warn(
                Some(line_no),
                format!("imports the partial `{spec}`, which names no file of this site"),
                "import partials by a relative path (`./_part.mdx`) or an alias the site defines",
            );
            return String::new();
        };
        cx.include(Some(line_no), path, |cx, text| {
            let body = &text[crate::compile::frontmatter::body_offset(&text)..];
            self.render(body, 1, cx)
        })
        .unwrap_or_default()
    }

    /// The file an import specifier names: relative, or through an alias.
    fn resolve(&self, spec: &str, cx: &RenderCx<'_>) -> Option<PathBuf> {
        let spec = spec.split('?').next().unwrap_or(spec);
        if spec.starts_with("./") || spec.starts_with("../") {
            return Some(Sources::join(&cx.current_dir(), spec));
        }
        self.aliases.iter().find_map(|(prefix, dir)| {
            spec.strip_prefix(prefix.as_str())
                .map(|rest| Sources::join(dir, rest))
        })
    }

    /// `<Code code={x} lang="json" title="…" />` as a fenced block, when its code is static:
    /// a string, a template literal, an `export const`, or a `?raw` import.
    fn code_block(
        &self,
        tag: &Tag<'_>,
        line_no: usize,
        scope: &Scope,
        cx: &mut RenderCx<'_>,
    ) -> Option<String> {
        let code = match tag.attr("code")? {
            Attr::Str(s) => s.to_owned(),
            Attr::Bool => return None,
            Attr::Expr(expr) => {
                let expr = expr.trim();
                if let Some(value) = static_expression(expr) {
                    value
                } else if let Some(value) = scope.values.get(expr) {
                    value.clone()
                } else {
                    let spec = scope.imports.get(expr)?;
                    if !spec.contains("?raw") {
                        return None;
                    }
                    let path = self.resolve(spec, cx)?;
                    match cx.sources.read(&path) {
                        Ok(text) => text,
                        Err(error) => {
                            cx.include_error(Some(line_no), error);
                            return None;
                        }
                    }
                }
            }
        };
        let lang = tag.value("lang", scope).unwrap_or_default();
        let title = tag.value("title", scope);
        Some(fenced(&lang, title.as_deref(), &code))
    }
}

/// A fenced code block long enough to hold `code`.
fn fenced(lang: &str, title: Option<&str>, code: &str) -> String {
    let longest = code.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat((longest + 1).max(3));
    let mut out = format!("{fence}{lang}");
    if let Some(title) = title {
        out.push_str(&format!(" title=\"{title}\""));
    }
    out.push('\n');
    out.push_str(code);
    if !code.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&fence);
    out.push('\n');
    out
}

/// Whether an import specifier names a markdown file (an MDX partial).
fn is_markdown_specifier(spec: &str) -> bool {
    let path = spec.split('?').next().unwrap_or(spec).to_ascii_lowercase();
    path.ends_with(".mdx") || path.ends_with(".md") || path.ends_with(".markdown")
}

/// Components inside a line of text: `<Badge text="New" />` → `New`, `<Kbd>K</Kbd>` →
/// `K`; code spans are left alone.
fn inline_components(line: &str, scope: &Scope) -> String {
    let bytes = line.as_bytes();
    let mut out = String::with_capacity(line.len());
    let mut copied = 0;
    let mut pos = 0;
    while pos < bytes.len() {
        if bytes[pos] == b'`' {
            pos = skip_code_span(bytes, pos, bytes.len());
            continue;
        }
        if bytes[pos] == b'<'
            && bytes.get(pos + 1).is_some_and(u8::is_ascii_uppercase)
            && let Some(tag) = parse_tag(line, pos)
        {
            let (replacement, end) = if tag.self_closing {
                (inline_value(&tag, scope), tag.end)
            } else {
                let lines = split_lines(line);
                match find_close(line, &lines, tag.end, tag.name) {
                    Some((close_start, close_end)) => {
                        let inner = &line[tag.end..close_start];
                        let inner = inline_components(inner, scope);
                        (inner, close_end)
                    }
                    None => {
                        pos += 1;
                        continue;
                    }
                }
            };
            out.push_str(&line[copied..pos]);
            out.push_str(&replacement);
            copied = end;
            pos = end;
            continue;
        }
        pos += 1;
    }
    out.push_str(&line[copied..]);
    out
}

/// JSX left in HTML and text that shows nothing or a constant: `style={{ … }}` object
/// attributes dropped (HTML has no such syntax), `{"text"}` replaced by its text. Code
/// spans are left alone.
fn static_braces(line: &str) -> String {
    let bytes = line.as_bytes();
    let mut out = String::with_capacity(line.len());
    let mut copied = 0;
    let mut pos = 0;
    while pos < bytes.len() {
        match bytes[pos] {
            b'`' => {
                pos = skip_code_span(bytes, pos, bytes.len());
                continue;
            }
            b'{' => {
                let Some(close) = matching_brace(bytes, pos, bytes.len()) else {
                    pos += 1;
                    continue;
                };
                let inner = &line[pos + 1..close];
                let object_attribute = pos > 0 && bytes[pos - 1] == b'=' && inner.starts_with('{');
                if object_attribute {
                    let name_start = line[..pos - 1]
                        .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
                        .map_or(0, |i| i + 1);
                    let cut = line[..name_start].trim_end_matches([' ', '\t']).len();
                    out.push_str(&line[copied..cut]);
                    copied = close + 1;
                } else if let Some(text) = static_expression(inner) {
                    out.push_str(&line[copied..pos]);
                    out.push_str(&text);
                    copied = close + 1;
                }
                pos = close + 1;
            }
            _ => pos += 1,
        }
    }
    out.push_str(&line[copied..]);
    out
}

/// What a self-closing component shows in running text: a badge's text, else nothing.
fn inline_value(tag: &Tag<'_>, scope: &Scope) -> String {
    let name = tag.name.rsplit('.').next().unwrap_or(tag.name);
    match name {
        "Badge" => tag.value("text", scope).unwrap_or_default(),
        "Icon" => String::new(),
        _ => String::new(),
    }
}

/// A JS expression with a static string value: a quoted string or a template literal
/// without `${}`.
fn static_expression(expr: &str) -> Option<String> {
    let expr = expr.trim();
    let quote = expr.chars().next()?;
    if !matches!(quote, '"' | '\'' | '`') || expr.len() < 2 || !expr.ends_with(quote) {
        return None;
    }
    let inner = &expr[1..expr.len() - 1];
    if quote == '`' && inner.contains("${") {
        return None;
    }
    if inner.contains(quote) && !inner.contains('\\') {
        return None;
    }
    Some(unescape_js(inner))
}

fn unescape_js(s: &str) -> String {
    if !s.contains('\\') {
        return s.to_owned();
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}
