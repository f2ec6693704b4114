//! A page as Hugo renders it, in markdown: shortcodes first (Hugo runs them before
//! markdown, so in code blocks too: that is why examples are escaped `{{</* x */>}}`),
//! then the lines the render hooks change (GitHub alerts, glossary links `[term](g)`).

use serde_json::{Map, Value};

use super::Hugo;
use super::content::split_front_matter;
use super::tags::{self, Tag};
use crate::site::include::IncludeError;
use crate::site::links::url_key;
use crate::site::{Page, RenderCx, markup};

/// Where a text being expanded comes from: the page, or a file it includes (whose
/// problems are reported at the page's include line).
#[derive(Clone, Copy)]
pub struct Scope<'p> {
    pub rel: &'p str,
    pub fm: Option<&'p Map<String, Value>>,
    page: Option<&'p Page<'p>>,
    include_line: Option<usize>,
}

impl<'p> Scope<'p> {
    pub fn of(page: &'p Page<'p>) -> Scope<'p> {
        Scope {
            rel: page.rel,
            fm: page.frontmatter,
            page: Some(page),
            include_line: None,
        }
    }

    fn line(&self, offset: usize) -> Option<usize> {
        self.include_line
            .or_else(|| self.page.map(|p| p.line_of_body_offset(offset)))
    }

    fn nested(&self, line: Option<usize>) -> Scope<'p> {
        Scope {
            include_line: self.include_line.or(line),
            ..*self
        }
    }
}

/// Where a shortcode stands: what is before it on its line, and how a block it renders
/// continues on the next lines (the indentation of a list item or a quote).
pub struct Place<'t> {
    pub line: Option<usize>,
    /// `Some` when the shortcode starts its line (after indentation, `>` or a list
    /// marker): the prefix for the lines of a block it renders.
    pub continuation: Option<String>,
    /// Offset of the shortcode's inner text in the page body (for lines).
    pub inner_base: usize,
    pub scope: Scope<'t>,
}

impl Hugo {
    /// The page's body as its readers see it.
    pub(super) fn render_body(&self, page: &Page<'_>, cx: &mut RenderCx<'_>) -> String {
        let scope = Scope::of(page);
        let body = page.body();
        // TOML front matter (`+++`): Hugo reads it, the shared step only knows YAML.
        let skip = if body.starts_with("+++") {
            body.len() - split_front_matter(body).1.len()
        } else {
            0
        };
        let expanded = self.expand(&body[skip..], scope, skip, cx);
        self.rewrite_lines(&expanded, page.rel)
    }

    /// `text` with every shortcode replaced by what it renders. `base`: the offset of
    /// `text` in the page body, for line numbers.
    pub(super) fn expand(
        &self,
        text: &str,
        scope: Scope<'_>,
        base: usize,
        cx: &mut RenderCx<'_>,
    ) -> String {
        let mut out = String::with_capacity(text.len());
        let mut pos = 0;
        while let Some(tag) = tags::next_tag(text, pos) {
            out.push_str(&text[pos..tag.start]);
            pos = tag.end;
            if let Some(literal) = &tag.literal {
                out.push_str(literal);
                continue;
            }
            let line = scope.line(base + tag.start);
            if tag.closing {
                cx.warn(
                    line,
                    format!(
                        "closing shortcode `{}` has no opening tag",
                        &text[tag.start..tag.end]
                    ),
                    "remove it, or add the opening tag before it (Hugo fails on it)",
                );
                continue;
            }
            let close = tags::find_close(text, &tag);
            let inner = close.as_ref().map(|c| &text[tag.end..c.start]);
            if let Some(close) = &close {
                pos = close.end;
            }
            let prefix = line_prefix(text, tag.start);
            let place = Place {
                line,
                continuation: continuation(prefix),
                inner_base: base + tag.end,
                scope,
            };
            let rendered = self.shortcode(&tag, inner, &place, cx);
            out.push_str(&continue_lines(&rendered, place.continuation.as_deref()));
        }
        out.push_str(&text[pos..]);
        out
    }

    /// The text of another page (an include, a glossary term), its own shortcodes
    /// expanded, without its front matter and surrounding blank lines.
    pub(super) fn embed(
        &self,
        rel: &str,
        place: &Place<'_>,
        cx: &mut RenderCx<'_>,
    ) -> Option<String> {
        let abs = cx.sources.abs(rel);
        let nested = place.scope.nested(place.line);
        cx.include(place.line, abs, |cx, text| {
            let (_, body) = split_front_matter(&text);
            let expanded = self.expand(body, nested, 0, cx);
            expanded.trim_matches(['\n', '\r']).to_owned()
        })
    }

    /// `{{% include "/_common/x.md" %}}`: the page at that path (relative to the page
    /// first, then from the content root), rendered in place.
    pub(super) fn include(&self, tag: &Tag, place: &Place<'_>, cx: &mut RenderCx<'_>) -> String {
        let Some(path) = tag.arg("path", 0) else {
            cx.warn(
                place.line,
                "`include` names no page",
                "write `{{% include \"/_common/file.md\" %}}`",
            );
            return String::new();
        };
        match self.content.get_page(Some(place.scope.rel), path) {
            Some(rel) => {
                let rel = rel.to_owned();
                self.embed(&rel, place, cx).unwrap_or_default()
            }
            None => {
                cx.include_error(place.line, IncludeError::Missing(path.to_owned()));
                String::new()
            }
        }
    }

    /// Lines outside code the render hooks change: `> [!NOTE]` alerts become labelled
    /// blockquotes, `[term](g)` links point at the glossary's entry.
    fn rewrite_lines(&self, text: &str, rel: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let lines: Vec<markup::Line<'_>> = markup::lines(text).collect();
        for (i, line) in lines.iter().enumerate() {
            if line.in_code {
                out.push_str(line.text);
                continue;
            }
            if let Some(alert) = alert_line(line.text) {
                out.push_str(&alert);
                // The label is a paragraph of its own, as in a labelled blockquote.
                if let Some(next) = lines.get(i + 1) {
                    let next = next.bare().trim();
                    if next.starts_with('>') && next != ">" {
                        let prefix = alert.split("**").next().unwrap_or(">").trim_end();
                        out.push_str(prefix);
                        out.push_str(&alert[alert.trim_end_matches(['\n', '\r']).len()..]);
                    }
                }
                continue;
            }
            if self.block_attributes
                && is_block_attribute(line.bare())
                && i > 0
                && !lines[i - 1].bare().trim().is_empty()
            {
                // `{.class}` under a block: Hugo sets it on the block's HTML and prints nothing.
                continue;
            }
            let mut text = std::borrow::Cow::Borrowed(line.text);
            if text.contains("](g)") {
                text = std::borrow::Cow::Owned(self.glossary_links(&text));
            }
            if let Some(fixed) = self.hook_links(&text, rel) {
                text = std::borrow::Cow::Owned(fixed);
            }
            out.push_str(&text);
        }
        out
    }
}

impl Hugo {
    /// The line with the link destinations the docs site's link hook resolves and a plain
    /// lookup does not (another case: `/functions/urls/absURL/`; a path from the content
    /// root written without `/`) rewritten to the page's URL, as the hook writes them.
    /// `None` when no destination changes.
    fn hook_links(&self, line: &str, rel: &str) -> Option<String> {
        if !line.contains("](") && !line.contains("]:") {
            return None;
        }
        let mut changed = false;
        let mut out = String::with_capacity(line.len());
        let mut pos = 0;
        for (start, end) in link_destinations(line) {
            if let Some(fixed) = self.hooked_destination(&line[start..end], rel) {
                out.push_str(&line[pos..start]);
                out.push_str(&fixed);
                pos = end;
                changed = true;
            }
        }
        if !changed {
            return None;
        }
        out.push_str(&line[pos..]);
        Some(out)
    }

    fn hooked_destination(&self, dest: &str, rel: &str) -> Option<String> {
        if dest.is_empty() || dest.starts_with('#') || dest.starts_with("//") || dest == "g" {
            return None;
        }
        let scheme = dest.split_once(':').is_some_and(|(s, _)| {
            !s.is_empty()
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
        });
        if scheme {
            return None;
        }
        let split = dest.find(['#', '?']).unwrap_or(dest.len());
        let (path, rest) = dest.split_at(split);
        if path.is_empty() {
            return None;
        }
        let dir = rel.rsplit_once('/').map_or("", |(d, _)| d);
        let plain = match path.strip_prefix('/') {
            Some(absolute) => {
                let base = self.settings.base_path.trim_matches('/');
                let unbased = absolute
                    .strip_prefix(base)
                    .filter(|_| !base.is_empty())
                    .unwrap_or(absolute);
                self.content.exact(unbased) || unbased.to_lowercase() == unbased
            }
            None => super::content::join(dir, path).is_some_and(|joined| {
                self.content.exact(&joined)
                    || (joined.to_lowercase() == joined
                        && self.content.get_page(None, &joined).is_some())
            }),
        };
        if plain {
            return None;
        }
        let target = self
            .content
            .get_page(Some(rel), path)
            .or_else(|| self.content.get_page(Some(rel), path.trim_end_matches('/')))?;
        Some(format!("{}{rest}", page_url(target)))
    }
}

/// Byte ranges of the link destinations on a line: inline `[text](dest "title")` and
/// reference definitions `[label]: dest`.
fn link_destinations(line: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let trimmed = line.trim_start();
    let indent = line.len() - trimmed.len();
    if indent < 4
        && trimmed.starts_with('[')
        && let Some(close) = trimmed.find("]:")
    {
        let after = indent + close + 2;
        let start = after + (line[after..].len() - line[after..].trim_start().len());
        let end = line[start..]
            .find(char::is_whitespace)
            .map_or(line.len(), |i| start + i);
        if end > start {
            out.push((start, end));
        }
        return out;
    }
    let mut search = 0;
    while let Some(found) = line[search..].find("](") {
        let start = search + found + 2;
        let mut depth = 0usize;
        let mut end = line.len();
        for (i, c) in line[start..].char_indices() {
            match c {
                '(' => depth += 1,
                ')' if depth == 0 => {
                    end = start + i;
                    break;
                }
                ')' => depth -= 1,
                c if c.is_whitespace() => {
                    end = start + i;
                    break;
                }
                _ => {}
            }
        }
        if end > start && !line[start..end].starts_with('<') {
            out.push((start, end));
        }
        search = end.max(start);
    }
    out
}

/// A line that is only a block attribute list (`{.class #id key="v"}`), which Goldmark
/// attaches to the block above when `markup.goldmark.parser.attribute.block` is on.
pub fn is_block_attribute(bare: &str) -> bool {
    let t = bare.trim();
    let Some(inner) = t.strip_prefix('{').and_then(|r| r.strip_suffix('}')) else {
        return false;
    };
    let inner = inner.trim();
    !inner.is_empty()
        && !inner.contains(['{', '}'])
        && (inner.starts_with(['.', '#'])
            || inner.split_once('=').is_some_and(|(key, _)| {
                !key.is_empty()
                    && key
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
            }))
}

/// `> [!WARNING]` (or `> [!WARNING]+ Title`) as `> **Warning**` (`> **Warning: Title**`).
pub fn alert_line(text: &str) -> Option<String> {
    let bare = text.trim_end_matches(['\n', '\r']);
    let ending = &text[bare.len()..];
    let indent_len = bare.len() - bare.trim_start().len();
    let rest = bare[indent_len..].strip_prefix('>')?;
    let quote_prefix = &bare[..indent_len + 1];
    let rest = rest.trim_start();
    let rest = rest.strip_prefix("[!")?;
    let close = rest.find(']')?;
    let kind = &rest[..close];
    if kind.is_empty() || !kind.chars().all(|c| c.is_ascii_alphabetic()) {
        return None;
    }
    let title = rest[close + 1..].trim_start_matches(['+', '-']).trim();
    let quoted = markup::blockquote(kind, Some(title), "");
    let label = quoted.trim_end_matches('\n').trim_start_matches("> ");
    Some(format!("{quote_prefix} {label}{ending}"))
}

/// The text of the line before `at`.
fn line_prefix(text: &str, at: usize) -> &str {
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    &text[start..at]
}

/// How the lines of a block continue when a shortcode starts its line after `prefix`:
/// indentation and `>` as they are, a list marker as spaces. `None` mid-line.
pub fn continuation(prefix: &str) -> Option<String> {
    if prefix.chars().all(|c| c == ' ' || c == '\t' || c == '>') {
        return Some(prefix.to_owned());
    }
    let lead = prefix.len() - prefix.trim_start_matches([' ', '\t', '>']).len();
    let marker = &prefix[lead..];
    let body = marker.trim_end();
    if body.len() == marker.len() {
        return None;
    }
    let is_marker = matches!(body, "-" | "*" | "+")
        || (body.len() > 1
            && body.ends_with(['.', ')'])
            && body[..body.len() - 1].chars().all(|c| c.is_ascii_digit()));
    is_marker.then(|| format!("{}{}", &prefix[..lead], " ".repeat(marker.len())))
}

/// `rendered`'s lines after the first prefixed with `continuation` (blank lines with its
/// `>` only), so a block stays inside the list item or quote the shortcode was in.
fn continue_lines(rendered: &str, continuation: Option<&str>) -> String {
    let Some(prefix) = continuation.filter(|p| !p.is_empty()) else {
        return rendered.to_owned();
    };
    let blank_prefix = prefix.trim_end();
    let mut out = String::with_capacity(rendered.len());
    for (i, line) in rendered.split_inclusive('\n').enumerate() {
        if i > 0 {
            let bare = line.trim_end_matches(['\n', '\r']);
            out.push_str(if bare.trim().is_empty() {
                blank_prefix
            } else {
                prefix
            });
        }
        out.push_str(line);
    }
    out
}

/// The inner text of a paired shortcode written as a block: without the line break after
/// the opening tag and the indentation before the closing one, each line without the
/// block's continuation prefix.
pub fn block_inner(inner: &str, continuation: Option<&str>) -> String {
    let inner = inner
        .strip_prefix("\r\n")
        .or_else(|| inner.strip_prefix('\n'))
        .unwrap_or(inner);
    let inner = match inner.rfind('\n') {
        Some(i) if inner[i + 1..].trim().is_empty() => &inner[..i + 1],
        _ => inner,
    };
    let prefix = continuation.unwrap_or("");
    if prefix.is_empty() {
        return inner.to_owned();
    }
    let mut out = String::with_capacity(inner.len());
    for line in inner.split_inclusive('\n') {
        let stripped = line
            .strip_prefix(prefix)
            .or_else(|| line.strip_prefix(prefix.trim_end()))
            .unwrap_or_else(|| line.trim_start_matches([' ', '\t']));
        out.push_str(stripped);
    }
    out
}

/// Hugo's `anchorize` with the default `github` id type: letters, digits and `_`
/// lowercased, spaces and `-` as `-`, the rest dropped.
pub fn anchorize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c == '-' || c == ' ' {
            out.push('-');
        } else if c == '_' || c.is_alphanumeric() {
            out.extend(c.to_lowercase());
        }
    }
    out
}

/// Hugo's `urlize` of a term (`front matter` → `front-matter`).
pub fn urlize(text: &str) -> String {
    text.trim()
        .to_lowercase()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join("-")
}

/// The URL Hugo publishes a page at (`/functions/lang/translate/`).
pub fn page_url(rel: &str) -> String {
    let key = url_key(rel).to_lowercase();
    if key.is_empty() {
        "/".into()
    } else {
        format!("/{key}/")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alerts() {
        assert_eq!(alert_line("> [!NOTE]\n").as_deref(), Some("> **Note**\n"));
        assert_eq!(
            alert_line("  > [!WARNING]+ Radiation hazard\n").as_deref(),
            Some("  > **Warning: Radiation hazard**\n")
        );
        assert_eq!(alert_line("> plain quote\n"), None);
        assert_eq!(alert_line("| `f.[!j]xt` |\n"), None);
    }

    #[test]
    fn block_attributes() {
        assert!(is_block_attribute("{.no-wrap-first-col}"));
        assert!(is_block_attribute("{class=\"foo bar\" id=\"baz\"}"));
        assert!(!is_block_attribute("{{ .Title }}"));
        assert!(!is_block_attribute("{ \"json\": 1 }"));
    }

    #[test]
    fn continuations() {
        assert_eq!(continuation("   ").as_deref(), Some("   "));
        assert_eq!(continuation("1. ").as_deref(), Some("   "));
        assert_eq!(continuation("> - ").as_deref(), Some(">   "));
        assert_eq!(continuation("text "), None);
        assert_eq!(continue_lines("a\n\nb", Some("  > ")), "a\n  >\n  > b");
        assert_eq!(
            block_inner("\n  x = 1\n  y = 2\n  ", Some("  ")),
            "x = 1\ny = 2\n"
        );
    }

    #[test]
    fn anchors() {
        assert_eq!(anchorize("Front matter"), "front-matter");
        assert_eq!(anchorize("CI/CD"), "cicd");
        assert_eq!(anchorize("`page.Store` method"), "pagestore-method");
        assert_eq!(urlize("Front  Matter"), "front-matter");
    }
}
