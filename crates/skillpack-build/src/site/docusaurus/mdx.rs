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

use std::collections::HashMap;
use std::path::PathBuf;

use crate::site::include::Sources;
use crate::site::{RenderCx, markup};

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

// ---------------------------------------------------------------------------------------
// Tags and elements

/// An attribute value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Attr<'t> {
    Str(&'t str),
    Expr(&'t str),
    Bool,
}

/// An opening (or self-closing) JSX tag.
#[derive(Debug, Clone)]
pub(crate) struct Tag<'t> {
    pub name: &'t str,
    pub attrs: Vec<(&'t str, Attr<'t>)>,
    pub self_closing: bool,
    /// Byte offset just past the tag's `>`.
    pub end: usize,
}

impl<'t> Tag<'t> {
    fn attr(&self, name: &str) -> Option<Attr<'t>> {
        self.attrs.iter().find(|(n, _)| *n == name).map(|(_, v)| *v)
    }

    /// A string attribute (`label="npm"`, or `label={'npm'}`).
    fn string(&self, name: &str) -> Option<String> {
        match self.attr(name)? {
            Attr::Str(s) => Some(s.to_owned()),
            Attr::Expr(e) => static_expression(e),
            Attr::Bool => None,
        }
    }

    /// A string attribute, or an expression naming a static `export const`.
    fn value(&self, name: &str, scope: &Scope) -> Option<String> {
        self.string(name).or_else(|| match self.attr(name)? {
            Attr::Expr(e) => scope.values.get(e.trim()).cloned(),
            _ => None,
        })
    }
}

/// A component: its tag, its children (`None` when self-closing), where it ends.
struct Element<'t> {
    name: &'t str,
    tag: Tag<'t>,
    children: Option<&'t str>,
    end: usize,
}

/// Whether a line starts with a component tag (`<Tabs`, `<Foo.Bar`), not HTML.
fn starts_component(trimmed: &str) -> bool {
    let mut chars = trimmed.chars();
    chars.next() == Some('<') && chars.next().is_some_and(|c| c.is_ascii_uppercase())
}

/// The longest a tag may be (attributes with long template literals included).
const MAX_TAG_BYTES: usize = 64 * 1024;

/// The tag opening at `at` (a `<`), when it is one.
pub(crate) fn parse_tag(text: &str, at: usize) -> Option<Tag<'_>> {
    let bytes = text.as_bytes();
    if bytes.get(at) != Some(&b'<') {
        return None;
    }
    let limit = (at + MAX_TAG_BYTES).min(bytes.len());
    let mut p = at + 1;
    while p < limit && (bytes[p].is_ascii_alphanumeric() || bytes[p] == b'.' || bytes[p] == b'_') {
        p += 1;
    }
    let name = &text[at + 1..p];
    if !name.starts_with(|c: char| c.is_ascii_uppercase()) {
        return None;
    }
    let mut attrs = Vec::new();
    loop {
        while p < limit && bytes[p].is_ascii_whitespace() {
            p += 1;
        }
        if p >= limit {
            return None;
        }
        if bytes[p..].starts_with(b"/>") {
            return Some(Tag {
                name,
                attrs,
                self_closing: true,
                end: p + 2,
            });
        }
        if bytes[p] == b'>' {
            return Some(Tag {
                name,
                attrs,
                self_closing: false,
                end: p + 1,
            });
        }
        if bytes[p] == b'{' {
            p = matching_brace(bytes, p, limit)? + 1;
            continue;
        }
        let name_start = p;
        while p < limit
            && (bytes[p].is_ascii_alphanumeric() || matches!(bytes[p], b'-' | b':' | b'_'))
        {
            p += 1;
        }
        if p == name_start {
            return None;
        }
        let attr_name = &text[name_start..p];
        let mut q = p;
        while q < limit && bytes[q].is_ascii_whitespace() {
            q += 1;
        }
        if q < limit && bytes[q] == b'=' {
            q += 1;
            while q < limit && bytes[q].is_ascii_whitespace() {
                q += 1;
            }
            let quote = *bytes.get(q)?;
            match quote {
                b'"' | b'\'' => {
                    let close = q + 1 + bytes[q + 1..limit].iter().position(|&b| b == quote)?;
                    attrs.push((attr_name, Attr::Str(&text[q + 1..close])));
                    p = close + 1;
                }
                b'{' => {
                    let close = matching_brace(bytes, q, limit)?;
                    attrs.push((attr_name, Attr::Expr(&text[q + 1..close])));
                    p = close + 1;
                }
                _ => return None,
            }
        } else {
            attrs.push((attr_name, Attr::Bool));
        }
    }
}

/// The `}` matching the `{` at `open`, skipping strings and template literals.
fn matching_brace(bytes: &[u8], open: usize, limit: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut p = open;
    while p < limit {
        match bytes[p] {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(p);
                }
            }
            quote @ (b'"' | b'\'' | b'`') => {
                p += 1;
                while p < limit && bytes[p] != quote {
                    if bytes[p] == b'\\' {
                        p += 1;
                    }
                    p += 1;
                }
            }
            _ => {}
        }
        p += 1;
    }
    None
}

/// Past the code span opening at `pos` (a run of backticks), or past the run when it is
/// never closed on this line.
fn skip_code_span(bytes: &[u8], pos: usize, line_end: usize) -> usize {
    let run = bytes[pos..line_end]
        .iter()
        .take_while(|&&b| b == b'`')
        .count();
    let mut p = pos + run;
    while p < line_end {
        if bytes[p] == b'`' {
            let other = bytes[p..line_end]
                .iter()
                .take_while(|&&b| b == b'`')
                .count();
            if other == run {
                return p + other;
            }
            p += other;
        } else if bytes[p] == b'\n' {
            break;
        } else {
            p += 1;
        }
    }
    pos + run
}

/// The component starting at `at`, with its children up to the matching closing tag.
fn parse_element<'t>(text: &'t str, lines: &[SrcLine<'_>], at: usize) -> Option<Element<'t>> {
    let tag = parse_tag(text, at)?;
    if tag.self_closing {
        return Some(Element {
            name: tag.name,
            end: tag.end,
            children: None,
            tag,
        });
    }
    let (close_start, close_end) = find_close(text, lines, tag.end, tag.name)?;
    Some(Element {
        name: tag.name,
        children: Some(&text[tag.end..close_start]),
        end: close_end,
        tag,
    })
}

/// The `</name>` closing a tag whose children start at `from`: nested tags of the same
/// name counted, fenced code and code spans skipped.
fn find_close(
    text: &str,
    lines: &[SrcLine<'_>],
    from: usize,
    name: &str,
) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    let name_bytes = name.as_bytes();
    let mut depth = 1usize;
    let mut pos = from;
    while pos < bytes.len() {
        let line = lines[line_at(lines, pos)];
        let line_end = line.end();
        if line.in_code {
            pos = line_end;
            continue;
        }
        match bytes[pos] {
            b'`' => {
                pos = skip_code_span(bytes, pos, line_end);
                continue;
            }
            b'<' => {
                let after_name = |start: usize| -> bool {
                    bytes[start..].starts_with(name_bytes)
                        && bytes
                            .get(start + name_bytes.len())
                            .is_none_or(|&b| b.is_ascii_whitespace() || b == b'>' || b == b'/')
                };
                if bytes.get(pos + 1) == Some(&b'/') && after_name(pos + 2) {
                    let gt = pos + bytes[pos..].iter().position(|&b| b == b'>')?;
                    depth -= 1;
                    if depth == 0 {
                        return Some((pos, gt + 1));
                    }
                    pos = gt + 1;
                    continue;
                }
                if after_name(pos + 1)
                    && let Some(tag) = parse_tag(text, pos)
                {
                    if !tag.self_closing {
                        depth += 1;
                    }
                    pos = tag.end;
                    continue;
                }
            }
            _ => {}
        }
        pos += 1;
    }
    None
}

/// Children as markdown: the blank rest of the opening tag's line and the indentation
/// before the closing tag dropped, the common indentation removed (MDX ignores it; to
/// CommonMark four columns would be code).
fn normalize_children(raw: &str) -> String {
    if !raw.contains('\n') {
        return raw.trim().to_owned();
    }
    let mut pieces: Vec<&str> = raw.split_inclusive('\n').collect();
    let first_inline = pieces.first().is_some_and(|p| !p.trim().is_empty());
    let first = if first_inline {
        pieces[0].trim_start().to_owned()
    } else {
        String::new()
    };
    pieces.remove(0);
    let last = match pieces.last() {
        Some(piece) if !piece.ends_with('\n') => {
            let piece = *piece;
            pieces.pop();
            (!piece.trim().is_empty()).then(|| format!("{}\n", piece.trim_end()))
        }
        _ => None,
    };
    let prefix = common_indent(pieces.iter().copied());
    let mut out = first;
    for piece in pieces {
        if piece.trim().is_empty() {
            out.push_str(piece.trim_start_matches([' ', '\t']));
        } else {
            out.push_str(&piece[prefix.len().min(piece.len())..]);
        }
    }
    if let Some(last) = last {
        out.push_str(strip_indent(&last, &prefix).trim_start());
    }
    out
}

/// The whitespace prefix every non-blank line shares.
fn common_indent<'l>(lines: impl Iterator<Item = &'l str>) -> String {
    let mut common: Option<&str> = None;
    for line in lines {
        if line.trim().is_empty() {
            continue;
        }
        let indent = &line[..line.len() - line.trim_start_matches([' ', '\t']).len()];
        common = Some(match common {
            None => indent,
            Some(c) => {
                let shared = c
                    .bytes()
                    .zip(indent.bytes())
                    .take_while(|(a, b)| a == b)
                    .count();
                &c[..shared]
            }
        });
    }
    common.unwrap_or("").to_owned()
}

/// Every line of `text` without the leading `indent` (or as much of it as it has).
fn strip_indent(text: &str, indent: &str) -> String {
    if indent.is_empty() {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let shared = line
            .bytes()
            .zip(indent.bytes())
            .take_while(|(a, b)| a == b)
            .count();
        out.push_str(&line[shared..]);
    }
    out
}

/// `text` without blank lines at its start and end.
fn trim_blank_lines(text: &str) -> &str {
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        if !line.trim().is_empty() {
            break;
        }
        start += line.len();
    }
    let rest = &text[start..];
    let end = rest.trim_end().len();
    let end = rest[end..].find('\n').map_or(rest.len(), |nl| end + nl + 1);
    &rest[..end]
}

/// Every non-blank line of `text` prefixed with `indent`.
fn reindent(text: &str, indent: &str) -> String {
    if indent.is_empty() {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len() + indent.len() * 8);
    for line in text.split_inclusive('\n') {
        if !line.trim().is_empty() {
            out.push_str(indent);
        }
        out.push_str(line);
    }
    out
}

// ---------------------------------------------------------------------------------------
// Containers (`:::note[Title]` … `:::`)

struct Admonition<'t> {
    kind: &'t str,
    title: Option<String>,
}

/// `:::tip`, `:::note[Title]`, `:::caution Title` (Docusaurus' older form),
/// `:::tip{title="x"}`.
fn admonition_open(trimmed: &str) -> Option<Admonition<'_>> {
    let colons = trimmed.bytes().take_while(|&b| b == b':').count();
    if colons < 3 {
        return None;
    }
    let rest = &trimmed[colons..];
    let kind_len = rest
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || *b == b'-' || *b == b'_')
        .count();
    if kind_len == 0 {
        return None;
    }
    let kind = &rest[..kind_len];
    let after = rest[kind_len..].trim_end();
    let title = if let Some(label) = after.strip_prefix('[') {
        let mut depth = 1usize;
        let mut end = None;
        for (i, c) in label.char_indices() {
            match c {
                '[' => depth += 1,
                ']' => {
                    depth -= 1;
                    if depth == 0 {
                        end = Some(i);
                        break;
                    }
                }
                _ => {}
            }
        }
        end.map(|e| label[..e].to_owned())
    } else if after.starts_with('{') {
        attribute_in_braces(after, "title")
    } else {
        Some(after.trim().to_owned())
    };
    Some(Admonition {
        kind,
        title: title.filter(|t| !t.trim().is_empty()),
    })
}

/// `title="x"` inside a directive's `{…}` attributes.
fn attribute_in_braces(attrs: &str, name: &str) -> Option<String> {
    let at = attrs.find(&format!("{name}="))?;
    let rest = &attrs[at + name.len() + 1..];
    let quote = rest.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let rest = &rest[1..];
    Some(rest[..rest.find(quote)?].to_owned())
}

fn is_container_close(trimmed: &str) -> bool {
    let colons = trimmed.bytes().take_while(|&b| b == b':').count();
    colons >= 3 && trimmed[colons..].trim().is_empty()
}

/// The line closing the container opened on line `open` (nested containers counted), or
/// the end of the text: an unclosed container runs to the end, as in remark-directive.
fn admonition_close(lines: &[SrcLine<'_>], open: usize) -> usize {
    let mut depth = 1usize;
    for (i, line) in lines.iter().enumerate().skip(open + 1) {
        if line.in_code {
            continue;
        }
        let trimmed = line.bare().trim();
        if is_container_close(trimmed) {
            depth -= 1;
            if depth == 0 {
                return i;
            }
        } else if admonition_open(trimmed).is_some() {
            depth += 1;
        }
    }
    lines.len()
}

// ---------------------------------------------------------------------------------------
// ESM and comments

/// A line starting an `import` or `export` statement (MDX reads them at column 0).
fn is_esm_start(trimmed: &str) -> bool {
    if let Some(rest) = trimmed.strip_prefix("import") {
        let rest_t = rest.trim_start();
        return (rest.starts_with([' ', '{', '*']) || rest.starts_with(['\'', '"']))
            && (trimmed.contains(" from ")
                || rest_t.starts_with(['\'', '"', '{', '*'])
                || rest_t.starts_with("type ")
                || rest_t.ends_with(','));
    }
    if let Some(rest) = trimmed.strip_prefix("export ") {
        let word = rest
            .trim_start()
            .split(|c: char| !c.is_ascii_alphanumeric())
            .next()
            .unwrap_or("");
        return matches!(
            word,
            "const"
                | "let"
                | "var"
                | "function"
                | "default"
                | "class"
                | "async"
                | "type"
                | "interface"
                | ""
        );
    }
    false
}

/// The line after the ESM block starting on line `start`: MDX ends it at a blank line
/// (outside brackets and template literals) or the end of the text.
fn esm_end(lines: &[SrcLine<'_>], start: usize) -> usize {
    let mut scan = JsScan::default();
    let mut i = start;
    while i < lines.len() {
        if i > start && lines[i].is_blank() && scan.depth <= 0 && !scan.in_template {
            break;
        }
        scan.feed(lines[i].text);
        i += 1;
    }
    i
}

/// Bracket depth and template-literal state across lines of JS.
#[derive(Default)]
struct JsScan {
    depth: i32,
    in_template: bool,
}

impl JsScan {
    fn feed(&mut self, line: &str) {
        let bytes = line.as_bytes();
        let mut p = 0;
        while p < bytes.len() {
            let b = bytes[p];
            if self.in_template {
                match b {
                    b'\\' => p += 1,
                    b'`' => self.in_template = false,
                    _ => {}
                }
                p += 1;
                continue;
            }
            match b {
                b'{' | b'(' | b'[' => self.depth += 1,
                b'}' | b')' | b']' => self.depth -= 1,
                b'`' => self.in_template = true,
                b'"' | b'\'' => {
                    p += 1;
                    while p < bytes.len() && bytes[p] != b && bytes[p] != b'\n' {
                        if bytes[p] == b'\\' {
                            p += 1;
                        }
                        p += 1;
                    }
                }
                b'/' if bytes.get(p + 1) == Some(&b'/') => return,
                _ => {}
            }
            p += 1;
        }
    }
}

/// Imports and static exports of every top-level ESM block.
fn collect_scope(lines: &[SrcLine<'_>], scope: &mut Scope) {
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if !line.in_code && is_esm_start(line.bare()) {
            let end = esm_end(lines, i);
            let block: String = lines[i..end].iter().map(|l| l.text).collect();
            read_esm(&block, scope);
            i = end;
        } else {
            i += 1;
        }
    }
}

/// `import A, { B as C } from 'x'` → A and C bound to `x`; `export const n = 'text'`.
fn read_esm(block: &str, scope: &mut Scope) {
    let mut rest = block;
    while let Some(at) = find_word(rest, "import") {
        let statement = &rest[at + "import".len()..];
        let Some(from) = statement.find("from") else {
            break;
        };
        let clause = statement[..from].trim();
        let after = statement[from + 4..].trim_start();
        let Some(quote) = after.chars().next().filter(|c| *c == '"' || *c == '\'') else {
            rest = &statement[from + 4..];
            continue;
        };
        let Some(len) = after[1..].find(quote) else {
            break;
        };
        let spec = &after[1..1 + len];
        bind_clause(clause, spec, scope);
        rest = &after[1 + len..];
    }
    let mut rest = block;
    while let Some(at) = rest.find("export const ") {
        let statement = &rest[at + "export const ".len()..];
        rest = statement;
        let Some(eq) = statement.find('=') else {
            break;
        };
        let name = statement[..eq].trim();
        if !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
        {
            continue;
        }
        let value = statement[eq + 1..].trim_start();
        let Some(quote) = value
            .chars()
            .next()
            .filter(|c| matches!(c, '"' | '\'' | '`'))
        else {
            continue;
        };
        let Some(len) = value[1..].find(quote) else {
            continue;
        };
        let literal = &value[..len + 2];
        if let Some(text) = static_expression(literal) {
            scope.values.insert(name.to_owned(), text);
        }
    }
}

/// `word` standing alone (start of text or after whitespace or `;`), followed by a space,
/// `{` or `*`.
fn find_word(text: &str, word: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(at) = text[from..].find(word).map(|a| a + from) {
        let before_ok = at == 0
            || text[..at]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_whitespace() || c == ';');
        let after_ok = text[at + word.len()..].starts_with([' ', '{', '*', '\n', '\t']);
        if before_ok && after_ok {
            return Some(at);
        }
        from = at + word.len();
    }
    None
}

fn bind_clause(clause: &str, spec: &str, scope: &mut Scope) {
    let clause = clause.strip_prefix("type ").unwrap_or(clause).trim();
    let (default, named) = match clause.find('{') {
        Some(open) => {
            let close = clause.rfind('}').unwrap_or(clause.len());
            (
                clause[..open].trim().trim_end_matches(',').trim(),
                &clause[(open + 1).min(close)..close],
            )
        }
        None => (clause, ""),
    };
    let default = default.strip_prefix("* as ").unwrap_or(default).trim();
    if !default.is_empty() && !default.contains(char::is_whitespace) {
        scope.imports.insert(default.to_owned(), spec.to_owned());
    }
    for name in named.split(',') {
        let name = name.trim().strip_prefix("type ").unwrap_or(name.trim());
        let local = name.rsplit(" as ").next().unwrap_or(name).trim();
        if !local.is_empty() {
            scope.imports.insert(local.to_owned(), spec.to_owned());
        }
    }
}

/// A `{/* … */}` comment starting at `at`: the index of its last line and what follows
/// it there.
fn comment_end<'t>(text: &'t str, lines: &[SrcLine<'_>], at: usize) -> Option<(usize, &'t str)> {
    let close = at + text[at..].find("*/}")? + 3;
    let last = line_at(lines, close - 1);
    Some((last, &text[close..lines[last].end()]))
}

/// A line without its `{/* … */}` comments (code spans left alone).
fn strip_inline_comments(line: &str) -> String {
    let bytes = line.as_bytes();
    let mut out = String::with_capacity(line.len());
    let mut copied = 0;
    let mut pos = 0;
    while pos < bytes.len() {
        if bytes[pos] == b'`' {
            pos = skip_code_span(bytes, pos, bytes.len());
            continue;
        }
        if bytes[pos..].starts_with(b"{/*") {
            let Some(close) = line[pos..].find("*/}") else {
                break;
            };
            out.push_str(&line[copied..pos]);
            pos += close + 3;
            copied = pos;
            continue;
        }
        pos += 1;
    }
    out.push_str(&line[copied..]);
    out
}
