//! MyST's block structure, as far as serving needs it: fenced code, directives (in
//! backtick/tilde fences with a `{name}` info string, or in `:::{name}` colon fences)
//! and the lines between them.
//!
//! A directive's body is kept as text and parsed again when it is rendered: directives
//! nest (`::::{tab-set}` around `:::{tab-item}`), and only the renderer knows which bodies
//! are MyST (admonitions) and which are not (`{code-block}`, `{eval-rst}`).

use std::collections::BTreeMap;

/// One block of a MyST text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Block<'t> {
    /// Lines outside any fence, each with its ending.
    Line(&'t str),
    /// A fenced code block that is not a directive, as authored.
    Code(&'t str),
    Directive(Directive<'t>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Directive<'t> {
    /// `note`, `code-block`, `py:function`.
    pub name: &'t str,
    /// The text after `{name}` on the opening line.
    pub argument: &'t str,
    /// `:key: value` lines (or a `---` YAML block) at the start of the body.
    pub options: BTreeMap<String, String>,
    /// The body after the options, de-indented by the opening fence's indent.
    pub body: String,
    /// The opening fence's indent (spaces), to put back on the rendered output.
    pub indent: usize,
    /// The whole directive as authored, fences included.
    pub raw: &'t str,
    /// Byte offset of the opening line in the parsed text.
    pub start: usize,
}

/// The blocks of `text`, in order.
pub fn parse(text: &str) -> Vec<Block<'_>> {
    let lines: Vec<(usize, &str)> = text
        .split_inclusive('\n')
        .scan(0, |at, line| {
            let start = *at;
            *at += line.len();
            Some((start, line))
        })
        .collect();
    let mut blocks = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let (start, line) = lines[i];
        let Some(open) = opening(line) else {
            blocks.push(Block::Line(line));
            i += 1;
            continue;
        };
        let close = (i + 1..lines.len()).find(|&j| open.closed_by(lines[j].1));
        let last = close.unwrap_or(lines.len() - 1);
        let end = lines[last].0 + lines[last].1.len();
        let raw = &text[start..end];
        let inner_end = match close {
            Some(j) => lines[j].0,
            None => end,
        };
        let inner = &text[start + line.len()..inner_end.max(start + line.len())];
        match open.directive {
            Some((name, argument)) => {
                let (options, body) = split_options(&dedent(inner, open.indent));
                blocks.push(Block::Directive(Directive {
                    name,
                    argument: argument.trim(),
                    options,
                    body,
                    indent: open.indent,
                    raw,
                    start,
                }));
            }
            None => blocks.push(Block::Code(raw)),
        }
        i = last + 1;
    }
    blocks
}

/// An opening fence line.
struct Open<'t> {
    ch: u8,
    len: usize,
    indent: usize,
    /// `{name} argument` when the fence is a directive.
    directive: Option<(&'t str, &'t str)>,
}

impl Open<'_> {
    fn closed_by(&self, line: &str) -> bool {
        let bare = line.trim_end_matches(['\n', '\r']);
        let indent = bare.len() - bare.trim_start_matches(' ').len();
        let t = &bare[indent..];
        let run = t.bytes().take_while(|&b| b == self.ch).count();
        (self.ch == b':' || indent < self.indent + 4)
            && run >= self.len
            && t[run..].trim().is_empty()
    }
}

fn opening(line: &str) -> Option<Open<'_>> {
    let bare = line.trim_end_matches(['\n', '\r']);
    let mut indent = bare.len() - bare.trim_start_matches(' ').len();
    let mut t = &bare[indent..];
    // A fence opening a list item (`- ```yaml`): code, whatever its info string (its
    // body is indented to the item's content, which a directive could not re-indent).
    let mut in_item = false;
    while let Some(marker) = list_marker(t) {
        in_item = true;
        indent += marker;
        t = &t[marker..];
    }
    let ch = *t.as_bytes().first()?;
    if !matches!(ch, b'`' | b'~' | b':') {
        return None;
    }
    let len = t.bytes().take_while(|&b| b == ch).count();
    if len < 3 {
        return None;
    }
    let info = t[len..].trim();
    if ch == b'`' && info.contains('`') {
        return None;
    }
    let mut directive = directive_name(info).filter(|_| !in_item);
    // `:::name` (no braces): a container with a CSS class; its content is MyST.
    if ch == b':' && directive.is_none() && is_class_name(info) {
        directive = Some(("div", info));
    }
    // A colon fence is only a fence when it names a directive (colon_fence); a bare
    // `:::` line is a div container of attrs_block, or text.
    if ch == b':' && directive.is_none() {
        return None;
    }
    Some(Open {
        ch,
        len,
        indent,
        directive,
    })
}

fn is_class_name(info: &str) -> bool {
    !info.is_empty()
        && info
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'))
}

/// The width of a list item marker and its space at the start of `t` (`- `, `12. `).
fn list_marker(t: &str) -> Option<usize> {
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    let marker = match t.as_bytes().get(digits) {
        Some(b'-' | b'*' | b'+') if digits == 0 => 1,
        Some(b'.' | b')') if digits > 0 && digits < 10 => digits + 1,
        _ => return None,
    };
    let spaces = t[marker..].bytes().take_while(|&b| b == b' ').count();
    (1..=4).contains(&spaces).then_some(marker + spaces)
}

/// `{name} argument` → (`name`, `argument`).
fn directive_name(info: &str) -> Option<(&str, &str)> {
    let rest = info.strip_prefix('{')?;
    let close = rest.find('}')?;
    let name = &rest[..close];
    let valid = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | ':' | '.' | '+'));
    valid.then(|| (name, &rest[close + 1..]))
}

/// `:key: value` option lines, or a YAML block between `---` lines, at the start of a
/// directive's body; the rest is the body (one blank line after options dropped).
pub fn split_options(inner: &str) -> (BTreeMap<String, String>, String) {
    let mut options = BTreeMap::new();
    let lines: Vec<&str> = inner.split_inclusive('\n').collect();
    let mut i = 0;
    if lines.first().map(|l| l.trim()) == Some("---")
        && let Some(end) = (1..lines.len()).find(|&j| lines[j].trim() == "---")
    {
        let yaml: String = lines[1..end].concat();
        if let Ok(serde_json::Value::Object(map)) = yaml_serde::from_str::<serde_json::Value>(&yaml)
        {
            for (key, value) in map {
                let value = match value {
                    serde_json::Value::String(s) => s,
                    serde_json::Value::Null => String::new(),
                    other => other.to_string(),
                };
                options.insert(key, value);
            }
        }
        i = end + 1;
    } else {
        while i < lines.len() {
            let Some((key, value)) = option_line(lines[i]) else {
                break;
            };
            options.insert(key.to_owned(), value.to_owned());
            i += 1;
        }
    }
    if i > 0 && lines.get(i).is_some_and(|l| l.trim().is_empty()) {
        i += 1;
    }
    (options, lines[i.min(lines.len())..].concat())
}

/// `:key: value` → (`key`, `value`).
pub fn option_line(line: &str) -> Option<(&str, &str)> {
    let t = line.trim();
    let rest = t.strip_prefix(':')?;
    let close = rest.find(':')?;
    let key = &rest[..close];
    let valid = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'));
    let value = &rest[close + 1..];
    (valid && (value.is_empty() || value.starts_with(' '))).then(|| (key, value.trim()))
}

/// `text` with up to `n` leading spaces removed from each line.
pub fn dedent(text: &str, n: usize) -> String {
    if n == 0 {
        return text.to_owned();
    }
    text.split_inclusive('\n')
        .map(|line| {
            let spaces = line.len() - line.trim_start_matches(' ').len();
            &line[spaces.min(n)..]
        })
        .collect()
}

/// `text` with `n` spaces before every line that is not blank.
pub fn indent(text: &str, n: usize) -> String {
    if n == 0 {
        return text.to_owned();
    }
    let pad = " ".repeat(n);
    text.split_inclusive('\n')
        .map(|line| {
            if line.trim().is_empty() {
                line.to_owned()
            } else {
                format!("{pad}{line}")
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directives_code_and_lines() {
        let text = "a\n```{note} Title\n:class: x\n\nBody\n```\n```py\n{not}\n```\n::::{tab-set}\n:::{tab-item} A\nx\n:::\n::::\n:::\n";
        let blocks = parse(text);
        assert_eq!(blocks.len(), 5);
        assert_eq!(blocks[0], Block::Line("a\n"));
        let Block::Directive(note) = &blocks[1] else {
            panic!()
        };
        assert_eq!((note.name, note.argument), ("note", "Title"));
        assert_eq!(note.options["class"], "x");
        assert_eq!(note.body, "Body\n");
        assert_eq!(blocks[2], Block::Code("```py\n{not}\n```\n"));
        let Block::Directive(tabs) = &blocks[3] else {
            panic!()
        };
        assert_eq!(tabs.body, ":::{tab-item} A\nx\n:::\n");
        assert_eq!(blocks[4], Block::Line(":::\n"));
    }

    #[test]
    fn yaml_options_and_indented_fences() {
        let (options, body) = split_options("---\nalt: A fish\nwidth: 20\n---\nText\n");
        assert_eq!(options["alt"], "A fish");
        assert_eq!(options["width"], "20");
        assert_eq!(body, "Text\n");
        let table =
            "* - ````md\n    ```{x}\n    ---\n    a: 1\n    ---\n    ```\n    ````\n  - b\n";
        assert_eq!(parse(table)[0], Block::Code(&table[..table.len() - 6]));
        let blocks = parse("- item\n\n  ```{tip}\n  Indented\n  ```\n");
        let Block::Directive(tip) = &blocks[2] else {
            panic!()
        };
        assert_eq!((tip.indent, tip.body.as_str()), (2, "Indented\n"));
    }
}
