//! Shared pieces of turning generator markup into markdown, and the measure of what is
//! left.
//!
//! The transforms work on lines, not on a parsed tree: served text must keep the author's
//! markdown byte for byte outside the markup it replaces, which a parse and re-render
//! (mdast → markdown) would reformat. So every generator walks lines with [`Lines`],
//! which knows whether a line is inside a fenced code block, and rewrites only lines that
//! are markup.

/// Lines of a text, each with its line ending, and whether it is inside fenced code.
pub struct Lines<'t> {
    rest: &'t str,
    fence: Option<Fence>,
}

#[derive(Debug, Clone, Copy)]
struct Fence {
    ch: u8,
    len: usize,
    indent: usize,
    /// How many `>` the fence's lines start with (a fence inside a blockquote).
    quotes: usize,
}

/// One line and where it stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Line<'t> {
    /// The line with its ending.
    pub text: &'t str,
    /// Inside a fenced code block (the fence lines themselves included).
    pub in_code: bool,
    /// This line opens a fenced code block: its info string.
    pub opens: Option<&'t str>,
    /// This line closes a fenced code block.
    pub closes: bool,
}

impl<'t> Line<'t> {
    /// The line without its ending.
    pub fn bare(&self) -> &'t str {
        self.text.trim_end_matches(['\n', '\r'])
    }
}

pub fn lines(text: &str) -> Lines<'_> {
    Lines {
        rest: text,
        fence: None,
    }
}

impl<'t> Iterator for Lines<'t> {
    type Item = Line<'t>;

    fn next(&mut self) -> Option<Line<'t>> {
        if self.rest.is_empty() {
            return None;
        }
        let end = self.rest.find('\n').map_or(self.rest.len(), |i| i + 1);
        let text = &self.rest[..end];
        self.rest = &self.rest[end..];
        let bare = text.trim_end_matches(['\n', '\r']);
        let (quotes, content) = strip_quotes(bare);
        let indent = indent_of(content);
        let trimmed = content.trim_start_matches([' ', '\t']);
        // A blockquote that ends (fewer `>` than the fence's) ends its fence too.
        if self.fence.is_some_and(|f| quotes < f.quotes) {
            self.fence = None;
        }
        match self.fence {
            Some(fence) => {
                let run = trimmed.bytes().take_while(|&b| b == fence.ch).count();
                let closes = quotes == fence.quotes
                    && indent < fence.indent + 4
                    && run >= fence.len
                    && trimmed[run..].trim().is_empty();
                if closes {
                    self.fence = None;
                }
                Some(Line {
                    text,
                    in_code: true,
                    opens: None,
                    closes,
                })
            }
            None => {
                if let Some(mut fence) = fence_open(trimmed, indent) {
                    fence.quotes = quotes;
                    let info = trimmed[fence.len..].trim();
                    self.fence = Some(fence);
                    return Some(Line {
                        text,
                        in_code: true,
                        opens: Some(info),
                        closes: false,
                    });
                }
                Some(Line {
                    text,
                    in_code: false,
                    opens: None,
                    closes: false,
                })
            }
        }
    }
}

fn fence_open(trimmed: &str, indent: usize) -> Option<Fence> {
    let ch = *trimmed.as_bytes().first()?;
    if ch != b'`' && ch != b'~' {
        return None;
    }
    let len = trimmed.bytes().take_while(|&b| b == ch).count();
    if len < 3 {
        return None;
    }
    // A backtick fence's info string has no backticks.
    if ch == b'`' && trimmed[len..].contains('`') {
        return None;
    }
    Some(Fence {
        ch,
        len,
        indent,
        quotes: 0,
    })
}

/// The number of blockquote markers a line starts with, and the line after them.
fn strip_quotes(line: &str) -> (usize, &str) {
    let mut quotes = 0;
    let mut rest = line;
    loop {
        let after_indent = rest.trim_start_matches(' ');
        if rest.len() - after_indent.len() > 3 {
            return (quotes, rest);
        }
        match after_indent.strip_prefix('>') {
            Some(after) => {
                quotes += 1;
                rest = after.strip_prefix(' ').unwrap_or(after);
            }
            None => return (quotes, rest),
        }
    }
}

/// The label an admonition kind is shown with (`warning` → `Warning`).
fn kind_label(kind: &str) -> String {
    let kind = kind.trim().trim_matches(['"', '\'']);
    let mut chars = kind.chars();
    match chars.next() {
        Some(first) => first
            .to_uppercase()
            .chain(chars.flat_map(|c| c.to_lowercase()))
            .collect(),
        None => "Note".into(),
    }
}

/// An admonition as a labelled blockquote:
///
/// ```text
/// > **Warning: Breaking change**
/// >
/// > body
/// ```
///
/// `title` is the author's title, if any; `body` is markdown, not yet quoted. An empty
/// body gives the label line alone.
pub fn blockquote(kind: &str, title: Option<&str>, body: &str) -> String {
    let label = kind_label(kind);
    let mut out = String::new();
    match title.map(str::trim).filter(|t| !t.is_empty()) {
        Some(title) if !title.eq_ignore_ascii_case(&label) => {
            out.push_str(&format!("> **{label}: {title}**\n"))
        }
        _ => out.push_str(&format!("> **{label}**\n")),
    }
    let body = body.trim_matches('\n');
    if !body.is_empty() {
        out.push_str(">\n");
        out.push_str(&quote(body));
    }
    out
}

/// Every line of `body` prefixed with `> ` (`>` alone on blank lines).
pub fn quote(body: &str) -> String {
    let mut out = String::new();
    for line in body.lines() {
        if line.trim().is_empty() {
            out.push_str(">\n");
        } else {
            out.push_str("> ");
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// A content tab as a labelled block: its label in bold on a line of its own, then its
/// body.
pub fn tab(label: &str, body: &str) -> String {
    let label = label.trim().trim_matches(['"', '\'']);
    let mut out = format!("**{label}**\n\n");
    let body = body.trim_matches('\n');
    if !body.is_empty() {
        out.push_str(body);
        out.push('\n');
    }
    out
}

/// `text` with up to `n` leading spaces removed from every line (a tab counts as 4).
pub fn dedent(text: &str, n: usize) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let mut cut = 0;
        let mut width = 0;
        for b in line.bytes() {
            match b {
                b' ' if width < n => {
                    width += 1;
                    cut += 1;
                }
                b'\t' if width < n => {
                    width += 4;
                    cut += 1;
                }
                _ => break,
            }
        }
        out.push_str(&line[cut..]);
    }
    out
}

/// Leading spaces of a line (a tab counts as 4).
pub fn indent_of(line: &str) -> usize {
    let mut width = 0;
    for b in line.bytes() {
        match b {
            b' ' => width += 1,
            b'\t' => width += 4,
            _ => break,
        }
    }
    width
}

/// A line of generator markup outside code that survived rendering.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Leftover {
    /// 1-based line in the served text.
    pub line: usize,
    pub text: String,
    /// An include directive, not just markup.
    pub include: bool,
}

/// What remains of generator markup in served text: lines outside fenced code that look
/// like a directive, shortcode, container, template tag or JSX/ESM line. The measure of
/// issue 46 ("markup at most 1% of lines") and what `skillpack-check --site` lists.
pub fn leftovers(text: &str) -> (usize, Vec<Leftover>) {
    let mut total = 0;
    let mut found = Vec::new();
    // The frontmatter block is the page's metadata, not its text.
    let body_start = crate::compile::frontmatter::body_offset(text);
    let mut offset = 0;
    for (i, line) in lines(text).enumerate() {
        total += 1;
        let at = offset;
        offset += line.text.len();
        if at < body_start {
            continue;
        }
        let without_code = without_code_spans(line.bare());
        let bare = without_code.as_str();
        // An include left inside code is an example the site prints as written; MyST's
        // `{include}` fence is the directive itself.
        let include = if line.in_code {
            line.opens.is_some_and(|info| {
                info.starts_with("{include}") || info.starts_with("{literalinclude}")
            })
        } else {
            is_include(bare, None)
        };
        let markup = if line.in_code {
            // MyST directives are fenced code to CommonMark and markup to Sphinx.
            line.opens
                .is_some_and(|info| info.starts_with('{') && !info.starts_with("{{"))
        } else {
            is_markup(bare)
        };
        if include || markup {
            found.push(Leftover {
                line: i + 1,
                text: bare.chars().take(120).collect(),
                include,
            });
        }
    }
    (total, found)
}

/// A line with its inline code spans (`` `{{ x }}` ``) blanked: code is not markup.
fn without_code_spans(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(open) = rest.find('`') {
        let ticks = rest[open..].bytes().take_while(|&b| b == b'`').count();
        let fence = &rest[open..open + ticks];
        let after = &rest[open + ticks..];
        match after.find(fence) {
            Some(close) => {
                out.push_str(&rest[..open]);
                out.push_str("``");
                rest = &after[close + ticks..];
            }
            None => break,
        }
    }
    out.push_str(rest);
    out
}

fn is_include(bare: &str, opens: Option<&str>) -> bool {
    let t = bare.trim();
    t.contains("{{#include")
        || t.contains("{{#rustdoc_include")
        || t.contains("{{< include")
        || t.contains("{{% include")
        || t.starts_with("--8<--")
        || t.starts_with("{% include")
        || t.starts_with("<<< ")
        || opens.is_some_and(|info| {
            info.starts_with("{include}") || info.starts_with("{literalinclude}")
        })
}

fn is_markup(bare: &str) -> bool {
    let t = bare.trim_start();
    if t.is_empty() {
        return false;
    }
    let starts = |p: &str| t.starts_with(p);
    starts("{{<")
        || starts("{{%")
        || starts("{%")
        || starts("{{#")
        || t.contains("{{ ") && t.contains(" }}")
        || starts(":::")
        || starts("!!! ")
        || starts("??? ")
        || starts("???+ ")
        || starts("=== \"")
        || starts("<!-- md:")
        || starts("{/*")
        || starts("{: ")
        || starts("{::")
        || starts("(") && t.ends_with(")=") && !t.contains(' ')
        || is_esm_import(t)
        || starts("export ")
        || is_component_line(t)
}

/// An ES module import line (`import X from './x.mdx'`, `import './style.css'`), not prose
/// that starts with the word.
fn is_esm_import(t: &str) -> bool {
    let Some(rest) = t.strip_prefix("import ") else {
        return false;
    };
    let quoted = |s: &str| s.starts_with('\'') || s.starts_with('"');
    quoted(rest.trim_start())
        || rest
            .split_once(" from ")
            .is_some_and(|(_, source)| quoted(source.trim_start()))
}

/// A line that is a JSX/Vue component tag (`<Tabs>`, `</TabItem>`, `<Badge text="x" />`).
fn is_component_line(t: &str) -> bool {
    let rest = t.strip_prefix("</").or_else(|| t.strip_prefix('<'));
    rest.and_then(|r| r.chars().next())
        .is_some_and(|c| c.is_ascii_uppercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fences_are_tracked() {
        let text = "a\n```rust\nlet x;\n```\nb\n~~~~\n```\n~~~~\n";
        let flags: Vec<bool> = lines(text).map(|l| l.in_code).collect();
        assert_eq!(flags, [false, true, true, true, false, true, true, true]);
        let opens: Vec<Option<&str>> = lines(text).map(|l| l.opens).collect();
        assert_eq!(opens[1], Some("rust"));
    }

    #[test]
    fn fences_inside_blockquotes_and_tab_indents_are_code() {
        let text = "> ```sh\n> {{< not markup >}}\n> ```\n> after\n\t```\n\t!!! x\n\t```\n";
        let flags: Vec<bool> = lines(text).map(|l| l.in_code).collect();
        assert_eq!(flags, [true, true, true, false, true, true, true]);
        // A blockquote that ends ends its fence.
        let text = "> ```\n> code\nplain !!!\n";
        let flags: Vec<bool> = lines(text).map(|l| l.in_code).collect();
        assert_eq!(flags, [true, true, false]);
        assert!(
            leftovers("import data from a CSV file is easy\n")
                .1
                .is_empty()
        );
        assert_eq!(leftovers("import Tabs from '@theme/Tabs';\n").1.len(), 1);
    }

    #[test]
    fn blockquotes_and_tabs() {
        assert_eq!(
            blockquote("warning", Some("Careful"), "Body.\n\nMore.\n"),
            "> **Warning: Careful**\n>\n> Body.\n>\n> More.\n"
        );
        assert_eq!(blockquote("note", None, ""), "> **Note**\n");
        assert_eq!(tab("\"Linux\"", "text\n"), "**Linux**\n\ntext\n");
        assert_eq!(dedent("    a\n      b\n", 4), "a\n  b\n");
    }

    #[test]
    fn markup_is_counted_outside_code() {
        let text = "# T\n\n!!! note\n\n```\n!!! not markup\n```\n{{< x >}}\n```{note}\nhi\n```\n{{#include a.rs}}\n";
        let (total, found) = leftovers(text);
        assert_eq!(total, 12);
        let lines: Vec<usize> = found.iter().map(|l| l.line).collect();
        assert_eq!(lines, [3, 8, 9, 12]);
        assert!(found.last().unwrap().include);
    }
}
