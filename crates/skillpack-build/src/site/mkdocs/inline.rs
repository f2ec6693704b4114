//! Inline markup of Python-Markdown's extensions: attribute lists (`attr_list`),
//! Material's icons (`pymdownx.emoji`), `markdown` attributes (`md_in_html`) and macros'
//! `{{ … }}`, each found outside code spans and rewritten only where present.

use std::collections::BTreeMap;

use super::super::markup;

/// Where a list item's or definition's content starts (`-   x` → 4, `1. x` → 3).
pub(super) fn content_column(bare: &str) -> Option<usize> {
    let indent = markup::indent_of(bare);
    let t = bare.trim_start();
    if t.starts_with("[^") && t.contains("]:") {
        return Some(indent + 4);
    }
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    let marker = if t.starts_with(['-', '*', '+', ':']) {
        1
    } else if (1..=9).contains(&digits) && t[digits..].starts_with(['.', ')']) {
        digits + 1
    } else {
        return None;
    };
    let spaces = t[marker..].bytes().take_while(|&b| b == b' ').count();
    if spaces == 0 && marker < t.len() {
        return None;
    }
    let spaces = if (1..=4).contains(&spaces) { spaces } else { 1 };
    Some(indent + marker + spaces)
}

/// A heading's trailing attribute list reduced to what markdown keeps, its id:
/// `{ id="9.7.0" }` and `{ #x data-toc-label="X" }` → `{ #x }`; no id → removed.
pub(super) fn heading_attrs(content: &str) -> Option<String> {
    let trimmed = content.trim_end();
    if !trimmed.ends_with('}') {
        return None;
    }
    let open = trimmed.rfind('{')?;
    let before = &trimmed[..open];
    if !before.is_empty() && !before.ends_with(' ') {
        return None;
    }
    let inner = trimmed[open + 1..trimmed.len() - 1].trim();
    let inner = inner.strip_prefix(':').unwrap_or(inner).trim();
    let tokens = attr_tokens(inner)?;
    let id = tokens.iter().find_map(|t| {
        t.strip_prefix('#').map(str::to_owned).or_else(|| {
            t.strip_prefix("id=")
                .map(|v| v.trim_matches(['"', '\'']).to_owned())
        })
    });
    let simple = tokens.len() == 1 && tokens[0].starts_with('#') && inner.starts_with('#');
    if simple && (trimmed[open..].starts_with("{ #") || trimmed[open..].starts_with("{#")) {
        return None;
    }
    let before = before.trim_end();
    Some(match id {
        Some(id) => format!("{before} {{ #{id} }}"),
        None => before.to_owned(),
    })
}

/// The tokens of an attribute list (`.class`, `#id`, `key=value`, `key="a b"`, `key`);
/// `None` when it does not read as one.
pub(super) fn attr_tokens(inner: &str) -> Option<Vec<String>> {
    let mut tokens = Vec::new();
    let mut rest = inner.trim();
    while !rest.is_empty() {
        let end = match rest.find('=') {
            Some(eq) if !rest[..eq].contains(char::is_whitespace) => {
                let value = &rest[eq + 1..];
                if let Some(q) = value.chars().next().filter(|c| *c == '"' || *c == '\'') {
                    let close = value[1..].find(q)?;
                    eq + 1 + close + 2
                } else {
                    eq + 1 + value.find(char::is_whitespace).unwrap_or(value.len())
                }
            }
            _ => rest.find(char::is_whitespace).unwrap_or(rest.len()),
        };
        let token = &rest[..end];
        let name = token.split('=').next().unwrap_or("");
        let valid_name = name.trim_start_matches(['.', '#']);
        if valid_name.is_empty()
            || !valid_name
                .chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | ':' | '+' | '*'))
        {
            return None;
        }
        tokens.push(token.to_owned());
        rest = rest[end..].trim_start();
    }
    (!tokens.is_empty()).then_some(tokens)
}

/// A line that is only an attribute list (`{ .annotate }`, `{: .class }`).
pub(super) fn is_block_attr_list(trimmed: &str) -> bool {
    let Some(inner) = trimmed.strip_prefix('{').and_then(|t| t.strip_suffix('}')) else {
        return false;
    };
    let inner = inner.trim();
    let inner = inner.strip_prefix(':').unwrap_or(inner);
    attr_tokens(inner).is_some_and(|t| {
        t.iter()
            .any(|t| t.starts_with(['.', '#']) || t.contains('='))
    })
}

/// `{ … }` right after a link, image or emphasis (`[x](y){ .md-button }`) removed.
pub(super) fn strip_inline_attr_lists(text: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len());
    let mut changed = false;
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        let before = &rest[..open];
        let attached = before.ends_with([')', ']', '*', '_', '`']);
        let close = rest[open..].find('}').map(|c| open + c);
        match close {
            Some(close)
                if attached
                    && attr_tokens(rest[open + 1..close].trim().trim_start_matches(':'))
                        .is_some() =>
            {
                out.push_str(before);
                rest = &rest[close + 1..];
                changed = true;
            }
            _ => {
                out.push_str(&rest[..=open]);
                rest = &rest[open + 1..];
            }
        }
    }
    out.push_str(rest);
    changed.then_some(out)
}

/// A paragraph or list line ending in an attribute list (`text { .annotate }`).
pub(super) fn strip_trailing_attr_list(text: &str) -> Option<String> {
    let trimmed = text.trim_end();
    let inner = trimmed.strip_suffix('}')?;
    let open = inner.rfind('{')?;
    let before = &inner[..open];
    if !before.ends_with(' ') || before.trim().is_empty() {
        return None;
    }
    let tokens = attr_tokens(inner[open + 1..].trim().trim_start_matches(':'))?;
    if !tokens
        .iter()
        .all(|t| t.starts_with(['.', '#']) || t.contains('='))
    {
        return None;
    }
    Some(before.trim_end().to_owned())
}

/// Material's icon sets, written `:material-account:`, `:octicons-mark-github-16:`.
pub(super) const ICON_SETS: [&str; 4] = ["material-", "octicons-", "fontawesome-", "simple-"];

/// Icons removed (they render as pictures), with an attribute list attached to them.
pub(super) fn strip_icons(text: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut changed = false;
    while let Some(colon) = rest.find(':') {
        let after = &rest[colon + 1..];
        let is_icon = ICON_SETS.iter().any(|set| after.starts_with(set));
        let name_len = after
            .bytes()
            .take_while(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'-')
            .count();
        if is_icon && after[name_len..].starts_with(':') {
            out.push_str(&rest[..colon]);
            let mut next = &after[name_len + 1..];
            if next.starts_with('{')
                && let Some(close) = next.find('}')
                && attr_tokens(next[1..close].trim()).is_some()
            {
                next = &next[close + 1..];
            }
            // The space after an icon goes with it when nothing is before it, and so do
            // a `&nbsp;` or a dash that only set it apart at the start of an item
            // (`- :material-x: - text` must not become a nested list).
            if next.starts_with(' ') && (out.is_empty() || out.ends_with([' ', '[', '(', '"', '>']))
            {
                next = &next[1..];
            }
            if out.trim().is_empty() || content_column(&out) == Some(out.len()) {
                for separator in ["&nbsp; ", "- ", "– ", "— "] {
                    if let Some(after) = next.strip_prefix(separator) {
                        next = after;
                    }
                }
            }
            rest = next;
            changed = true;
        } else {
            out.push_str(&rest[..=colon]);
            rest = after;
        }
    }
    out.push_str(rest);
    changed.then_some(out)
}

/// `{{ config.extra.x }}` / `{{ extra.x }}` / `{{ x }}` with a static `extra` value.
pub(super) fn substitute(text: &str, vars: &BTreeMap<String, String>) -> Option<String> {
    if !text.contains("{{") {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut changed = false;
    while let Some(open) = rest.find("{{") {
        let Some(close) = rest[open..].find("}}").map(|c| open + c) else {
            break;
        };
        let name = rest[open + 2..close].trim();
        let value = vars
            .get(name)
            .or_else(|| vars.get(&format!("config.{name}")))
            .or_else(|| vars.get(&format!("config.extra.{name}")));
        out.push_str(&rest[..open]);
        match value {
            Some(v) => {
                out.push_str(v);
                changed = true;
            }
            None => out.push_str(&rest[open..close + 2]),
        }
        rest = &rest[close + 2..];
    }
    out.push_str(rest);
    changed.then_some(out)
}

/// Whether an HTML start tag carries md_in_html's `markdown` attribute.
pub(super) fn has_markdown_attribute(tag: &str) -> bool {
    let inner = tag
        .trim_start_matches('<')
        .trim_end_matches('>')
        .trim_end_matches('/');
    let mut quote = None;
    let mut word = String::new();
    for c in inner.chars().chain(std::iter::once(' ')) {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, c) if c.is_whitespace() || c == '=' => {
                if word == "markdown" {
                    return true;
                }
                word.clear();
            }
            (None, c) => word.push(c),
        }
    }
    false
}

/// `text` split into runs outside and inside code spans (`true` for code).
pub(super) fn code_span_segments(text: &str) -> Vec<(&str, bool)> {
    let mut segments = Vec::new();
    let bytes = text.as_bytes();
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'`' {
            i += 1;
            continue;
        }
        let run = bytes[i..].iter().take_while(|&&b| b == b'`').count();
        let search_from = i + run;
        let mut j = search_from;
        let mut close = None;
        while j < bytes.len() {
            if bytes[j] == b'`' {
                let r = bytes[j..].iter().take_while(|&&b| b == b'`').count();
                if r == run {
                    close = Some(j);
                    break;
                }
                j += r;
            } else {
                j += 1;
            }
        }
        match close {
            Some(c) => {
                if start < i {
                    segments.push((&text[start..i], false));
                }
                segments.push((&text[i..c + run], true));
                i = c + run;
                start = i;
            }
            None => i += run,
        }
    }
    if start < text.len() {
        segments.push((&text[start..], false));
    }
    segments
}
