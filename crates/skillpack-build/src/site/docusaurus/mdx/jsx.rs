//! JSX in MDX: tags and their attributes, elements with their children up to the
//! matching closing tag (fenced code and code spans skipped), and the indentation MDX
//! ignores but CommonMark reads.

use super::*;

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
    pub(super) fn attr(&self, name: &str) -> Option<Attr<'t>> {
        self.attrs.iter().find(|(n, _)| *n == name).map(|(_, v)| *v)
    }

    /// A string attribute (`label="npm"`, or `label={'npm'}`).
    pub(super) fn string(&self, name: &str) -> Option<String> {
        match self.attr(name)? {
            Attr::Str(s) => Some(s.to_owned()),
            Attr::Expr(e) => static_expression(e),
            Attr::Bool => None,
        }
    }

    /// A string attribute, or an expression naming a static `export const`.
    pub(super) fn value(&self, name: &str, scope: &Scope) -> Option<String> {
        self.string(name).or_else(|| match self.attr(name)? {
            Attr::Expr(e) => scope.values.get(e.trim()).cloned(),
            _ => None,
        })
    }
}

/// A component: its tag, its children (`None` when self-closing), where it ends.
pub(super) struct Element<'t> {
    pub(super) name: &'t str,
    pub(super) tag: Tag<'t>,
    pub(super) children: Option<&'t str>,
    pub(super) end: usize,
}

/// Whether a line starts with a component tag (`<Tabs`, `<Foo.Bar`), not HTML.
pub(super) fn starts_component(trimmed: &str) -> bool {
    let mut chars = trimmed.chars();
    chars.next() == Some('<') && chars.next().is_some_and(|c| c.is_ascii_uppercase())
}

/// The longest a tag may be (attributes with long template literals included).
pub(super) const MAX_TAG_BYTES: usize = 64 * 1024;

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
pub(super) fn matching_brace(bytes: &[u8], open: usize, limit: usize) -> Option<usize> {
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
pub(super) fn skip_code_span(bytes: &[u8], pos: usize, line_end: usize) -> usize {
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
pub(super) fn parse_element<'t>(
    text: &'t str,
    lines: &[SrcLine<'_>],
    at: usize,
) -> Option<Element<'t>> {
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
pub(super) fn find_close(
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
pub(super) fn normalize_children(raw: &str) -> String {
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
pub(super) fn common_indent<'l>(lines: impl Iterator<Item = &'l str>) -> String {
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
pub(super) fn strip_indent(text: &str, indent: &str) -> String {
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
pub(super) fn trim_blank_lines(text: &str) -> &str {
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
pub(super) fn reindent(text: &str, indent: &str) -> String {
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
