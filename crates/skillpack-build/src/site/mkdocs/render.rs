//! Material for MkDocs' markdown extensions as plain markdown.
//!
//! Block constructs (admonitions, collapsible details, content tabs) own the lines
//! indented 4 spaces under them, `pymdownx.blocks` the lines up to their closing `///`;
//! their bodies are rendered again, so that tabs in admonitions and admonitions in list
//! items come out right. Everything else is rewritten line by line, only where a line
//! holds markup ([`super::inline`]): icons, attribute lists, `markdown` div wrappers,
//! shortcodes, fence attributes.

use super::super::markup::{self, Line};
use super::config::Extensions;
use super::inline::{
    code_span_segments, content_column, has_markdown_attribute, heading_attrs, is_block_attr_list,
    strip_icons, strip_inline_attr_lists, strip_trailing_attr_list, substitute,
};
use super::shortcodes::{self, Place};

/// What rendering a page needs besides its text.
pub struct Renderer<'r> {
    pub ext: &'r Extensions,
    /// The shortcodes hook is configured: `<!-- md:… -->` are expanded (else they are
    /// the HTML comments they look like, and are dropped).
    pub shortcodes: bool,
    /// mkdocstrings is on: `::: package.module` stands for generated API documentation.
    pub mkdocstrings: bool,
    /// Static `extra` values for `{{ … }}` when the macros plugin is on.
    pub variables: Option<&'r std::collections::BTreeMap<String, String>>,
    pub page_rel: &'r str,
}

/// What rendering has seen so far in a page.
#[derive(Default)]
pub struct State {
    /// Level of the last heading: an option anchor becomes a heading one below it.
    last_heading: usize,
    /// Open `<div>`s on lines of their own: whether each is a `markdown` wrapper.
    divs: Vec<bool>,
    /// Shortcodes the hook does not know (it fails the build on them).
    pub unknown: Vec<String>,
}

/// A block construct's opening line.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Opening {
    /// What goes before the construct on its first line (indent, `:   `).
    prefix: String,
    /// Column its body is indented to.
    body_indent: usize,
    kind: Construct,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Construct {
    Admonition { kind: String, title: Option<String> },
    Tab { label: String },
}

impl Renderer<'_> {
    /// `text` rendered; plain markdown comes out byte for byte.
    pub fn render(&self, text: &str, state: &mut State) -> String {
        let lines: Vec<Line<'_>> = markup::lines(text).collect();
        let mut out = String::with_capacity(text.len());
        // Content columns of the list items and definitions open here: a line indented 4
        // past the innermost one is indented code, not markup.
        let mut columns: Vec<usize> = Vec::new();
        // Indented code starts after a blank line (it cannot interrupt a paragraph).
        let mut after_blank = true;
        let mut indented_code = false;
        let mut i = 0;
        while i < lines.len() {
            let line = lines[i];
            if line.in_code {
                out.push_str(&fence_info(line).unwrap_or_else(|| line.text.to_owned()));
                after_blank = false;
                i += 1;
                continue;
            }
            if line.text.trim().is_empty() {
                after_blank = true;
            } else {
                let indent = markup::indent_of(line.text);
                let code_indent = columns.last().copied().unwrap_or(0) + 4;
                indented_code = indent >= code_indent && (after_blank || indented_code);
                after_blank = false;
                if indented_code {
                    out.push_str(line.text);
                    i += 1;
                    continue;
                }
                while columns.last().is_some_and(|&c| c > indent) {
                    columns.pop();
                }
                if let Some(column) = content_column(line.bare()) {
                    columns.push(column);
                }
            }
            if self.mkdocstrings
                && let Some(identifier) = autodoc_identifier(line.bare())
            {
                // The options under it (indented YAML) configure what is generated.
                let last = body_end(&lines, i, markup::indent_of(line.text) + 4);
                let ending = &line.text[line.bare().len()..];
                out.push_str(&format!(
                    "API reference of `{identifier}` (generated from its source by mkdocstrings){ending}"
                ));
                i = last + 1;
                continue;
            }
            if self.ext.blocks
                && let Some((block, next)) = self.generic_block(&lines, i, state)
            {
                out.push_str(&block);
                i = next;
                continue;
            }
            if let Some(opening) = self.opening(line.bare()) {
                let last = body_end(&lines, i, opening.body_indent);
                let body: String = lines[i + 1..=last].iter().map(|l| l.text).collect();
                let body = self.render(&markup::dedent(&body, opening.body_indent), state);
                let block = match &opening.kind {
                    Construct::Admonition { kind, title } => {
                        markup::blockquote(kind, title.as_deref(), &body)
                    }
                    Construct::Tab { label } => markup::tab(label, &body),
                };
                out.push_str(&reindent(&block, &opening.prefix, opening.body_indent - 4));
                i = last + 1;
                continue;
            }
            let continues_prose = i > 0 && continues_prose(lines[i - 1]);
            match self.line(line, continues_prose, state) {
                Some(rewritten) => out.push_str(&rewritten),
                None => out.push_str(line.text),
            }
            i += 1;
        }
        out
    }

    /// A `pymdownx.blocks` block opening at `lines[i]` (`/// warning | Title`, options
    /// indented under it, content up to the `///` closing it): its rendering and the
    /// index after its closing line.
    fn generic_block(
        &self,
        lines: &[Line<'_>],
        i: usize,
        state: &mut State,
    ) -> Option<(String, usize)> {
        let (slashes, name, title) = block_header(lines[i].bare())?;
        let mut j = i + 1;
        let mut options = Vec::new();
        while j < lines.len()
            && markup::indent_of(lines[j].text) >= 4
            && !lines[j].text.trim().is_empty()
        {
            options.push(lines[j].bare().trim());
            j += 1;
        }
        let content_start = j;
        let mut depth = 1;
        let close = loop {
            let line = lines.get(j)?;
            if !line.in_code {
                let t = line.bare().trim();
                if t.len() == slashes && t.bytes().all(|b| b == b'/') {
                    depth -= 1;
                    if depth == 0 {
                        break j;
                    }
                } else if block_header(line.bare()).is_some_and(|(n, _, _)| n == slashes) {
                    depth += 1;
                }
            }
            j += 1;
        };
        let body: String = lines[content_start..close].iter().map(|l| l.text).collect();
        let body = self.render(&body, state);
        let option = |key: &str| {
            options.iter().find_map(|o| {
                o.strip_prefix(key)
                    .and_then(|r| r.trim_start().strip_prefix(':'))
                    .map(|v| v.trim().trim_matches(['"', '\'']).to_owned())
            })
        };
        let title = title.map(|t| self.inline(&t, false).unwrap_or(t));
        let rendered = match name.as_str() {
            "tab" => markup::tab(title.as_deref().unwrap_or(""), &body),
            "html" | "define" | "caption" => body,
            "admonition" | "details" => {
                let kind = option("type").unwrap_or_else(|| {
                    if name == "details" {
                        "details".into()
                    } else {
                        "note".into()
                    }
                });
                markup::blockquote(&kind, title.as_deref(), &body)
            }
            kind => markup::blockquote(kind, title.as_deref(), &body),
        };
        Some((rendered, close + 1))
    }

    /// A block construct opening on this line, if the extension for it is on.
    fn opening(&self, bare: &str) -> Option<Opening> {
        let indent = markup::indent_of(bare);
        let rest = bare.trim_start_matches([' ', '\t']);
        let (definition, rest) = match rest.strip_prefix(':') {
            Some(after) if after.starts_with("   ") => (true, after.trim_start_matches(' ')),
            _ => (false, rest),
        };
        let column = if definition { indent + 4 } else { indent };
        let prefix = if definition {
            format!(
                "{}:   ",
                &bare[..bare.len() - bare.trim_start_matches([' ', '\t']).len()]
            )
        } else {
            bare[..bare.len() - bare.trim_start_matches([' ', '\t']).len()].to_owned()
        };
        let kind = if let Some(after) = rest.strip_prefix("!!!").filter(|_| self.ext.admonition) {
            admonition(after)?
        } else if let Some(after) = rest.strip_prefix("???").filter(|_| self.ext.details) {
            admonition(after.strip_prefix('+').unwrap_or(after))?
        } else if let Some(after) = rest.strip_prefix("===").filter(|_| self.ext.tabbed) {
            let after = after.strip_prefix(['+', '!']).unwrap_or(after);
            let label = after.strip_prefix(' ')?.trim();
            let label = label.strip_prefix('"')?.strip_suffix('"')?;
            Construct::Tab {
                label: self
                    .inline(label, false)
                    .unwrap_or_else(|| label.to_owned()),
            }
        } else {
            return None;
        };
        let kind = match kind {
            Construct::Admonition { kind, title } => Construct::Admonition {
                kind,
                title: title.map(|t| self.inline(&t, false).unwrap_or(t)),
            },
            tab => tab,
        };
        Some(Opening {
            prefix,
            body_indent: column + 4,
            kind,
        })
    }

    /// A line outside code and outside block openings, rewritten if it holds markup.
    fn line(&self, line: Line<'_>, continues_prose: bool, state: &mut State) -> Option<String> {
        let bare = line.bare();
        let ending = &line.text[bare.len()..];
        let trimmed = bare.trim();
        if let Some(keep) = self.div_line(trimmed, state) {
            return (!keep).then(String::new);
        }
        if self.ext.attr_list && is_block_attr_list(trimmed) {
            return Some(String::new());
        }
        if let Some(level) = heading_level(bare) {
            let rewritten = self.heading(bare, state);
            state.last_heading = level;
            return rewritten.map(|h| format!("{h}{ending}"));
        }
        if self.shortcodes
            && let Some(option) = self.option_heading(bare, state)
        {
            return Some(format!("{option}{ending}"));
        }
        let shortcoded = self.shortcodes_in(bare, continues_prose, state);
        let current = shortcoded.as_deref().unwrap_or(bare);
        let inline = self.inline(current, true);
        if shortcoded.is_none() && inline.is_none() {
            return None;
        }
        Some(format!("{}{ending}", inline.as_deref().unwrap_or(current)))
    }

    /// `<div … markdown>` wrappers and their `</div>` lines: `Some(false)` drops the line,
    /// `Some(true)` keeps it, `None` when it is not a lone div line.
    fn div_line(&self, trimmed: &str, state: &mut State) -> Option<bool> {
        if trimmed.starts_with("<div") && trimmed.ends_with('>') && !trimmed.contains("</div>") {
            let wrapper = self.ext.md_in_html && has_markdown_attribute(trimmed);
            state.divs.push(wrapper);
            return Some(!wrapper);
        }
        if trimmed == "</div>" {
            let wrapper = state.divs.pop().unwrap_or(false);
            return Some(!wrapper);
        }
        None
    }

    /// A heading line rewritten: shortcodes as the hook titles them, icons out, its
    /// attribute list reduced to the id.
    fn heading(&self, bare: &str, state: &mut State) -> Option<String> {
        let hashes = &bare[..bare.len() - bare.trim_start_matches([' ', '#']).len()];
        let content = &bare[hashes.len()..];
        let mut rewritten: Option<String> = None;
        let mut definition = String::new();
        if !self.shortcodes && content.contains("<!-- md:") {
            // Without the hook they are HTML comments: nothing shows.
            let mut text = content.to_owned();
            for sc in shortcodes::find(content).iter().rev() {
                text.replace_range(sc.start..sc.end, "");
            }
            rewritten = Some(text.trim().to_owned());
        } else if content.contains("<!-- md:") {
            let found = shortcodes::find(content);
            let only = found.len() == 1
                && content
                    .replace(&content[found[0].start..found[0].end], "")
                    .trim()
                    .is_empty();
            if only
                && let Some((anchor, name)) = shortcodes::anchor_name(found[0].kind, found[0].args)
            {
                rewritten = Some(format!("`{name}` {{ #{anchor} }}"));
                if found[0].kind == "setting" {
                    definition = format!("\n\n[{anchor}]: #{anchor}");
                }
            } else {
                let place = if only { Place::Alone } else { Place::Heading };
                let text = self.replace_shortcodes(content, &found, place, false, state);
                let text = text.trim_start();
                let text = text
                    .strip_prefix("– ")
                    .or_else(|| text.strip_prefix("- "))
                    .unwrap_or(text);
                rewritten = Some(text.to_owned());
            }
        }
        let current = rewritten.as_deref().unwrap_or(content);
        let inline = self.inline(current, false);
        let current = inline.as_deref().unwrap_or(current);
        let attrs = heading_attrs(current);
        if rewritten.is_none() && inline.is_none() && attrs.is_none() {
            return None;
        }
        let current = attrs.as_deref().unwrap_or(current);
        Some(format!("{hashes}{current}{definition}"))
    }

    /// A line that is only `<!-- md:option x -->` becomes a heading one level below the
    /// last: the hook gives the option an anchor, and in markdown only headings have one.
    fn option_heading(&self, bare: &str, state: &State) -> Option<String> {
        let found = shortcodes::find(bare);
        let [only] = found.as_slice() else {
            return None;
        };
        if only.kind != "option" || only.start != 0 || only.end != bare.len() {
            return None;
        }
        let (anchor, name) = shortcodes::anchor_name(only.kind, only.args)?;
        let level = (state.last_heading + 1).clamp(2, 6);
        Some(format!("{} `{name}` {{ #{anchor} }}", "#".repeat(level)))
    }

    /// Shortcodes in a non-heading line as words; `None` when there are none.
    fn shortcodes_in(
        &self,
        bare: &str,
        continues_prose: bool,
        state: &mut State,
    ) -> Option<String> {
        if !bare.contains("<!-- md:") {
            return None;
        }
        let found = shortcodes::find(bare);
        if found.is_empty() {
            return None;
        }
        if !self.shortcodes {
            let mut out = bare.to_owned();
            for sc in found.iter().rev() {
                out.replace_range(sc.start..sc.end, "");
            }
            return Some(out.trim_end().to_owned());
        }
        let mut rest = bare.to_owned();
        for sc in found.iter().rev() {
            rest.replace_range(sc.start..sc.end, "");
        }
        let rest = rest.trim();
        let place = if (rest.is_empty() || rest == ":") && !continues_prose {
            Place::Alone
        } else {
            Place::Prose
        };
        Some(self.replace_shortcodes(bare, &found, place, continues_prose, state))
    }

    fn replace_shortcodes(
        &self,
        text: &str,
        found: &[shortcodes::Shortcode<'_>],
        place: Place,
        continues_prose: bool,
        state: &mut State,
    ) -> String {
        let mut out = String::with_capacity(text.len());
        let mut at = 0;
        let mut previous_was_badge = false;
        // Badges that lead a line (before any words) keep their label even in prose.
        let mut words_before = false;
        for sc in found {
            let between = &text[at..sc.start];
            words_before |= between.chars().any(char::is_alphanumeric);
            let place = match place {
                Place::Prose if !words_before && !continues_prose => Place::Alone,
                other => other,
            };
            let rendered = match shortcodes::badge(sc.kind, sc.args, self.page_rel, place) {
                Some(r) => r,
                None => {
                    state
                        .unknown
                        .push(format!("{} {}", sc.kind, sc.args).trim().to_owned());
                    String::new()
                }
            };
            // Badges side by side read as a list: `Minimum version: 9.2.0 · Experimental`.
            if previous_was_badge
                && between.trim().is_empty()
                && place == Place::Alone
                && !rendered.is_empty()
            {
                out.push_str(" · ");
            } else {
                out.push_str(between);
            }
            out.push_str(&rendered);
            previous_was_badge = !rendered.is_empty();
            at = sc.end;
        }
        out.push_str(&text[at..]);
        out
    }

    /// Inline markup outside code spans: icons, attribute lists after links and images (and
    /// at the end of `prose` lines), `{{ variables }}`. `None` when nothing changed.
    fn inline(&self, text: &str, prose: bool) -> Option<String> {
        let needs = text.contains(':') || text.contains('{');
        if !needs {
            return None;
        }
        let mut out = String::with_capacity(text.len());
        let mut changed = false;
        for (segment, code) in code_span_segments(text) {
            if code {
                out.push_str(segment);
                continue;
            }
            let mut s = segment.to_owned();
            if self.ext.emoji
                && let Some(r) = strip_icons(&s)
            {
                s = r;
                changed = true;
            }
            if self.ext.attr_list
                && let Some(r) = strip_inline_attr_lists(&s)
            {
                s = r;
                changed = true;
            }
            if let Some(vars) = self.variables
                && let Some(r) = substitute(&s, vars)
            {
                s = r;
                changed = true;
            }
            out.push_str(&s);
        }
        if prose
            && self.ext.attr_list
            && let Some(r) = strip_trailing_attr_list(&out)
        {
            out = r;
            changed = true;
        }
        if changed && out.ends_with(' ') && !text.ends_with(' ') {
            out.truncate(out.trim_end_matches(' ').len());
        }
        changed.then_some(out)
    }
}

/// Whether the line after `previous` continues a paragraph of prose (badges that lead
/// it read as part of a sentence): `previous` is text, not a blank, heading or badge line.
fn continues_prose(previous: Line<'_>) -> bool {
    let bare = previous.bare();
    if previous.in_code || bare.trim().is_empty() || heading_level(bare).is_some() {
        return false;
    }
    let mut rest = bare.to_owned();
    for sc in shortcodes::find(bare).iter().rev() {
        rest.replace_range(sc.start..sc.end, "");
    }
    let rest = rest.trim();
    !(rest.is_empty() || rest == ":")
}

/// `::: package.module.Class`: the identifier mkdocstrings documents.
fn autodoc_identifier(bare: &str) -> Option<&str> {
    let identifier = bare.trim_start().strip_prefix(":::")?.trim();
    let valid = !identifier.is_empty()
        && identifier
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '.' | '_' | ':' | '-' | '/'));
    valid.then_some(identifier)
}

/// `/// name | title`: the slash count, the block's name and its title.
fn block_header(bare: &str) -> Option<(usize, String, Option<String>)> {
    let t = bare.trim();
    let slashes = t.bytes().take_while(|&b| b == b'/').count();
    if slashes < 3 {
        return None;
    }
    let rest = t[slashes..].trim_start();
    let (name, title) = match rest.split_once('|') {
        Some((name, title)) => (
            name.trim(),
            Some(title.trim().to_owned()).filter(|t| !t.is_empty()),
        ),
        None => (rest.trim(), None),
    };
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_alphanumeric() || c == '-' || c == '_')
    {
        return None;
    }
    Some((slashes, name.to_owned(), title))
}

/// The last line of a block construct's body: lines indented to `indent`, and blank
/// lines between them.
fn body_end(lines: &[Line<'_>], opening: usize, indent: usize) -> usize {
    let mut last = opening;
    for (j, line) in lines.iter().enumerate().skip(opening + 1) {
        if line.text.trim().is_empty() {
            continue;
        }
        if markup::indent_of(line.text) >= indent {
            last = j;
        } else {
            break;
        }
    }
    last
}

/// `block` (a rendered construct) placed where the construct was: its first line after
/// `prefix`, the rest indented to `indent` columns.
fn reindent(block: &str, prefix: &str, indent: usize) -> String {
    if prefix.is_empty() && indent == 0 {
        return block.to_owned();
    }
    let pad = " ".repeat(indent);
    let mut out = String::with_capacity(block.len() + 8 * indent);
    for (i, line) in block.split_inclusive('\n').enumerate() {
        if i == 0 {
            out.push_str(prefix);
        } else if line.trim().is_empty() && !line.starts_with('>') {
            out.push_str(line);
            continue;
        } else {
            out.push_str(&pad);
        }
        out.push_str(line);
    }
    out
}

/// `!!! type "Title"` after the marker: the type and title (`""` → no title bar, kept
/// as no title; none → the type's label).
fn admonition(after: &str) -> Option<Construct> {
    let after = after.strip_prefix(' ').unwrap_or(after).trim_end();
    let (words, title) = match after.find('"') {
        Some(q) => {
            let title = after[q + 1..].strip_suffix('"')?;
            (&after[..q], Some(title.to_owned()))
        }
        None => (after, None),
    };
    let kind = words.split_whitespace().next()?;
    if !kind
        .chars()
        .all(|c| c.is_alphanumeric() || c == '-' || c == '_')
    {
        return None;
    }
    Some(Construct::Admonition {
        kind: kind.to_owned(),
        title,
    })
}

/// A fence opening with superfences' attribute form (```` ``` { .sh .no-copy } ````)
/// rewritten to its language.
fn fence_info(line: Line<'_>) -> Option<String> {
    let info = line.opens?;
    if !info.starts_with('{') {
        return None;
    }
    let bare = line.bare();
    let ending = &line.text[bare.len()..];
    let at = bare.find(info)?;
    let inner = info.trim_start_matches('{').trim_end_matches('}');
    let language = inner
        .split_whitespace()
        .find_map(|t| t.strip_prefix('.'))
        .unwrap_or("");
    let head = bare[..at].trim_end();
    let sep = if language.is_empty() { "" } else { " " };
    Some(format!("{head}{sep}{language}{ending}"))
}

/// `#`…`######` then a space (or nothing): the heading's level.
fn heading_level(bare: &str) -> Option<usize> {
    if markup::indent_of(bare) > 3 {
        return None;
    }
    let t = bare.trim_start();
    let level = t.bytes().take_while(|&b| b == b'#').count();
    if !(1..=6).contains(&level) {
        return None;
    }
    let rest = &t[level..];
    (rest.is_empty() || rest.starts_with(' ') || rest.starts_with('\t')).then_some(level)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all_on() -> Extensions {
        Extensions {
            admonition: true,
            details: true,
            tabbed: true,
            emoji: true,
            attr_list: true,
            md_in_html: true,
            ..Extensions::default()
        }
    }

    fn render(text: &str) -> String {
        let ext = all_on();
        let r = Renderer {
            ext: &ext,
            shortcodes: true,
            mkdocstrings: true,
            variables: None,
            page_rel: "setup/page.md",
        };
        r.render(text, &mut State::default())
    }

    #[test]
    fn plain_markdown_is_untouched() {
        let text = "# Title\n\nSome *text* with `code {x}` and a [link](a.md).\n\n- item: value\n\n```yaml\n!!! not an admonition\n```\n\n    indented code\n\nTrailing {braces} in prose.\n";
        assert_eq!(render(text), text);
    }

    #[test]
    fn admonitions_and_details_are_labelled_blockquotes() {
        assert_eq!(
            render("!!! warning \"Careful\"\n\n    Body line.\n\n    More.\n\nAfter.\n"),
            "> **Warning: Careful**\n>\n> Body line.\n>\n> More.\n\nAfter.\n"
        );
        assert_eq!(
            render("???+ tip\n    Folded.\n"),
            "> **Tip**\n>\n> Folded.\n"
        );
        assert_eq!(render("!!! note \"\"\n    x\n"), "> **Note**\n>\n> x\n");
    }

    #[test]
    fn nested_constructs_render_recursively() {
        let text = "=== \"Linux\"\n\n    !!! note\n\n        ``` sh\n        !!! in code\n        ```\n\n=== \":material-apple: macOS\"\n\n    Use brew.\n";
        assert_eq!(
            render(text),
            "**Linux**\n\n> **Note**\n>\n> ``` sh\n> !!! in code\n> ```\n\n**macOS**\n\nUse brew.\n"
        );
    }

    #[test]
    fn constructs_inside_list_items_and_definitions_keep_their_place() {
        assert_eq!(
            render("1.  Step\n\n    !!! info\n        Inside.\n"),
            "1.  Step\n\n    > **Info**\n    >\n    > Inside.\n"
        );
        assert_eq!(
            render(":   !!! note\n\n        Lorem.\n"),
            ":   > **Note**\n    >\n    > Lorem.\n"
        );
    }

    #[test]
    fn icons_attr_lists_and_grid_wrappers_go() {
        let text = "<div class=\"grid cards\" markdown>\n\n-   :material-clock-fast:{ .lg .middle } __Set up__\n\n    [:octicons-arrow-right-24: Start](start.md){ .md-button }\n\n</div>\n";
        assert_eq!(
            render(text),
            "\n-   __Set up__\n\n    [Start](start.md)\n\n"
        );
        assert_eq!(render("Text.\n{ .annotate }\n"), "Text.\n");
        assert_eq!(render("- :material-plus: - `plus`\n"), "- `plus`\n");
        assert_eq!(
            render("-   :material-x:{ .lg } &nbsp; __A__\n"),
            "-   __A__\n"
        );
        assert_eq!(render("a :material-x: - b\n"), "a - b\n");
        assert_eq!(render("A list (1) { .annotate }\n"), "A list (1)\n");
        assert_eq!(render("`:material-x:` stays\n"), "`:material-x:` stays\n");
        assert_eq!(
            render("<div class=\"x\">\n\nk\n\n</div>\n"),
            "<div class=\"x\">\n\nk\n\n</div>\n"
        );
    }

    #[test]
    fn headings_keep_only_their_id() {
        assert_eq!(
            render("### 9.7.6 <small>March</small> { id=\"9.7.6\" }\n"),
            "### 9.7.6 <small>March</small> { #9.7.6 }\n"
        );
        assert_eq!(
            render("### Changes { data-search-exclude }\n"),
            "### Changes\n"
        );
        assert_eq!(render("## Title { #custom }\n"), "## Title { #custom }\n");
        assert_eq!(render("## Title {#custom}\n"), "## Title {#custom}\n");
    }

    #[test]
    fn shortcodes_become_words_and_anchors() {
        assert_eq!(
            render(
                "#### <!-- md:setting config.blog_dir -->\n\n<!-- md:version 9.2.0 -->\n<!-- md:default `true` --> <!-- md:flag experimental -->\n"
            ),
            "#### `blog_dir` { #config.blog_dir }\n\n[config.blog_dir]: #config.blog_dir\n\nMinimum version: [9.2.0](../changelog/index.md#9.2.0)\nDefault value: `true` · Experimental\n"
        );
        assert_eq!(
            render("### Types\n\n<!-- md:option type:note -->\n"),
            "### Types\n\n#### `note` { #+type:note }\n"
        );
        assert_eq!(
            render(":   <!-- md:version 7.3.5 --> <!-- md:default computed --> – Text\n"),
            ":   Minimum version: [7.3.5](../changelog/index.md#7.3.5) · Default value is computed – Text\n"
        );
        assert_eq!(
            render("Prior to <!-- md:version 5.0.0 -->, search\n"),
            "Prior to [5.0.0](../changelog/index.md#5.0.0), search\n"
        );
        assert_eq!(
            render(
                "### <!-- md:flag metadata --> – Metadata property { #metadata data-toc-label=\"Metadata property\" }\n"
            ),
            "### Metadata property { #metadata }\n"
        );
    }

    #[test]
    fn indented_code_is_code_but_continuations_are_not() {
        assert_eq!(
            render("Para.\n\n    !!! code :material-x:\n    more\n"),
            "Para.\n\n    !!! code :material-x:\n    more\n"
        );
        assert_eq!(
            render(
                "  [^1]:\n    Prior to <!-- md:version 5.0.0 -->, x\n    <!-- md:version 5.0.0 -->.\n"
            ),
            "  [^1]:\n    Prior to [5.0.0](../changelog/index.md#5.0.0), x\n    [5.0.0](../changelog/index.md#5.0.0).\n"
        );
    }

    #[test]
    fn pymdownx_blocks_render_like_their_classic_forms() {
        let ext = Extensions {
            blocks: true,
            ..all_on()
        };
        let r = Renderer {
            ext: &ext,
            shortcodes: false,
            mkdocstrings: false,
            variables: None,
            page_rel: "a.md",
        };
        let text = "/// warning | Careful\n\nBody.\n\n//// tab | One\nInner.\n////\n///\n\n/// details | More\n    type: tip\n\nHidden.\n///\n\n/// html | div\nKept.\n///\n";
        assert_eq!(
            r.render(text, &mut State::default()),
            "> **Warning: Careful**\n>\n> Body.\n>\n> **One**\n>\n> Inner.\n\n> **Tip: More**\n>\n> Hidden.\n\nKept.\n"
        );
    }

    #[test]
    fn odd_input_never_panics() {
        let ext = Extensions {
            blocks: true,
            ..all_on()
        };
        let r = Renderer {
            ext: &ext,
            shortcodes: true,
            mkdocstrings: true,
            variables: None,
            page_rel: "é/ü.md",
        };
        for text in [
            "!!!\n",
            "!!! \"\n",
            "??? é \"ü\n    x",
            "=== \"\n",
            "=== é\n",
            "<!-- md:\n",
            "<!-- md:version",
            "# <!-- md:setting -->\n",
            "#### <!-- md:option é -->\n",
            "{",
            "}",
            "{ }\n",
            "# {\n",
            "# }\n",
            "# é { #é }\n",
            "[x](y){ é=\"\n",
            ":material-:\n",
            ":material-é:\n",
            "- :material-x:",
            "///\n",
            "/// é |\n",
            "/// a\nno close\n",
            "```\n",
            "1.\n    !!! note\n",
            ":   \n",
            "[^1]:\n",
            "\t!!! note\n\tx\n",
            "<div markdown>\n</div>\n</div>\n",
        ] {
            let _ = r.render(text, &mut State::default());
        }
    }

    #[test]
    fn mkdocstrings_lines_name_what_they_document() {
        assert_eq!(
            render(
                "## API\n\n::: pkg.mod.Class\n    options:\n      show_source: false\n\nText.\n"
            ),
            "## API\n\nAPI reference of `pkg.mod.Class` (generated from its source by mkdocstrings)\n\nText.\n"
        );
        assert_eq!(
            render("::: note\n"),
            "API reference of `note` (generated from its source by mkdocstrings)\n"
        );
        assert_eq!(render("::: not an identifier\n"), "::: not an identifier\n");
    }

    #[test]
    fn fence_attributes_become_the_language() {
        assert_eq!(
            render("``` { .sh .no-copy }\nls\n```\n"),
            "``` sh\nls\n```\n"
        );
    }
}
