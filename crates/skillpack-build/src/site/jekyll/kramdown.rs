//! kramdown's block syntax that CommonMark does not read: attribute lists, extensions,
//! the `{:toc}` list; and kramdown's heading ids.

use crate::site::markup::{self, Line};

/// Callout classes of the Jekyll docs theme and common ones, most specific first.
const CALLOUTS: &[&str] = &[
    "danger",
    "warning",
    "caution",
    "important",
    "tip",
    "unreleased",
    "info",
    "note",
];

/// A block attribute list `{: #id .class key="v"}`.
#[derive(Debug, Default, PartialEq)]
struct Ial {
    id: Option<String>,
    classes: Vec<String>,
}

impl Ial {
    fn parse(trimmed: &str) -> Option<Ial> {
        let inner = trimmed.strip_prefix("{:")?.strip_suffix('}')?;
        if inner.starts_with(':') || inner.starts_with('/') {
            return None;
        }
        let mut ial = Ial::default();
        for word in inner.split_whitespace() {
            if let Some(id) = word.strip_prefix('#') {
                ial.id = Some(id.to_owned());
            } else if let Some(class) = word.strip_prefix('.') {
                ial.classes.push(class.to_owned());
            }
        }
        Some(ial)
    }

    /// The label kind when the classes mark a callout (`.note .warning` → warning).
    fn callout(&self) -> Option<&'static str> {
        if !self.classes.iter().any(|c| CALLOUTS.contains(&c.as_str())) {
            return None;
        }
        CALLOUTS
            .iter()
            .find(|k| **k != "note" && **k != "info" && self.classes.iter().any(|c| c == *k))
            .copied()
            .or(Some("note"))
    }
}

fn is_heading(bare: &str) -> bool {
    let t = bare.trim_start();
    let hashes = t.bytes().take_while(|&b| b == b'#').count();
    (1..=6).contains(&hashes) && t[hashes..].starts_with([' ', '\t']) && markup::indent_of(bare) < 4
}

/// `## Title` + `{#id}`, unless it already has one.
fn with_heading_id(heading: &str, id: &str) -> String {
    let ending = &heading[heading.trim_end_matches(['\n', '\r']).len()..];
    let bare = heading.trim_end_matches(['\n', '\r']).trim_end();
    if bare.ends_with('}') && bare.contains("{#") {
        return heading.to_owned();
    }
    let ending = if ending.is_empty() { "\n" } else { ending };
    format!("{bare} {{#{id}}}{ending}")
}

/// kramdown's block extensions and attribute lists, line by line, code left alone.
pub fn kramdown(text: &str) -> String {
    if !text.contains("{:") {
        return text.to_owned();
    }
    let lines: Vec<Line<'_>> = markup::lines(text).collect();
    let mut out: Vec<String> = Vec::new();
    let mut pending_id: Option<String> = None;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if line.in_code {
            out.push(line.text.to_owned());
            i += 1;
            continue;
        }
        let bare = line.bare();
        let t = bare.trim();
        if t.starts_with("{::comment}") {
            i = lines[i..]
                .iter()
                .position(|l| l.text.contains("{:/comment}") || l.text.trim() == "{:/}")
                .map_or(lines.len(), |p| i + p + 1);
            continue;
        }
        if (t.starts_with("{::") && t.ends_with("/}"))
            || t.starts_with("{::nomarkdown")
            || t.starts_with("{:/")
        {
            i += 1;
            continue;
        }
        if t.starts_with("{:toc") {
            // The `* TOC` item it replaces goes too: the served page has its own outline.
            if out.last().is_some_and(|l| {
                let l = l.trim();
                l.ends_with("TOC") && l.len() <= 6
            }) {
                out.pop();
            }
            i += 1;
            continue;
        }
        if let Some(ial) = Ial::parse(t) {
            let follows_block = out.last().is_some_and(|l| !l.trim().is_empty());
            if follows_block {
                let last = out.len() - 1;
                if is_heading(&out[last]) {
                    if let Some(id) = &ial.id {
                        out[last] = with_heading_id(&out[last], id);
                    }
                } else if let Some(kind) = ial.callout() {
                    let start = out
                        .iter()
                        .rposition(|l| l.trim().is_empty())
                        .map_or(0, |p| p + 1);
                    let block: String = out.drain(start..).collect();
                    out.push(markup::blockquote(kind, None, &block));
                }
                i += 1;
                continue;
            }
            if let Some(kind) = ial.callout() {
                let end = block_end(&lines, i + 1);
                let block: String = lines[i + 1..end].iter().map(|l| l.text).collect();
                out.push(markup::blockquote(kind, None, &block));
                i = end;
                continue;
            }
            pending_id = ial.id;
            i += 1;
            continue;
        }
        if is_heading(bare) {
            let mut heading = line.text.to_owned();
            if let Some((before, ial)) = trailing_ial(bare) {
                heading = match ial.id {
                    Some(id) => with_heading_id(&format!("{before}\n"), &id),
                    None => format!("{}\n", before.trim_end()),
                };
            }
            if let Some(id) = pending_id.take() {
                heading = with_heading_id(&heading, &id);
            }
            out.push(heading);
            i += 1;
            continue;
        }
        if !t.is_empty() {
            pending_id = None;
        }
        out.push(line.text.to_owned());
        i += 1;
    }
    out.concat()
}

/// `## Title<span>4.0</span>{: #id }` → (`## Title<span>4.0</span>`, the list).
fn trailing_ial(bare: &str) -> Option<(&str, Ial)> {
    let t = bare.trim_end();
    if !t.ends_with('}') {
        return None;
    }
    let open = t.rfind("{:")?;
    let ial = Ial::parse(&t[open..])?;
    Some((&t[..open], ial))
}

/// The index after the block starting at `start`: up to a blank line, fenced code whole.
fn block_end(lines: &[Line<'_>], start: usize) -> usize {
    let mut j = start;
    while j < lines.len() {
        let line = lines[j];
        if !line.in_code && line.bare().trim().is_empty() {
            return j;
        }
        j += 1;
    }
    lines.len()
}

/// kramdown's automatic header ids: leading non-letters dropped, then everything but
/// ASCII letters, digits, spaces and `-`; spaces become `-`; lowercased; `section` if
/// nothing is left.
pub fn kramdown_id(text: &str) -> String {
    let start = text
        .find(|c: char| c.is_ascii_alphabetic())
        .unwrap_or(text.len());
    let id: String = text[start..]
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == ' ' || *c == '-')
        .map(|c| {
            if c == ' ' {
                '-'
            } else {
                c.to_ascii_lowercase()
            }
        })
        .collect();
    if id.is_empty() { "section".into() } else { id }
}
