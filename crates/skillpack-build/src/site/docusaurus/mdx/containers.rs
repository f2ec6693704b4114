//! Containers (`:::note[Title]` … `:::`): Docusaurus admonitions and Starlight asides,
//! nested by colon count or by depth.

use super::*;

pub(super) struct Admonition<'t> {
    pub(super) kind: &'t str,
    pub(super) title: Option<String>,
}

/// `:::tip`, `:::note[Title]`, `:::caution Title` (Docusaurus' older form),
/// `:::tip{title="x"}`.
pub(super) fn admonition_open(trimmed: &str) -> Option<Admonition<'_>> {
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
pub(super) fn attribute_in_braces(attrs: &str, name: &str) -> Option<String> {
    let at = attrs.find(&format!("{name}="))?;
    let rest = &attrs[at + name.len() + 1..];
    let quote = rest.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let rest = &rest[1..];
    Some(rest[..rest.find(quote)?].to_owned())
}

pub(super) fn is_container_close(trimmed: &str) -> bool {
    let colons = trimmed.bytes().take_while(|&b| b == b':').count();
    colons >= 3 && trimmed[colons..].trim().is_empty()
}

/// The line closing the container opened on line `open` (nested containers counted), or
/// the end of the text: an unclosed container runs to the end, as in remark-directive.
pub(super) fn admonition_close(lines: &[SrcLine<'_>], open: usize) -> usize {
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
