//! mkdocs-include-markdown-plugin: `{% include-markdown "file.md" %}` and
//! `{% include "file" %}`, with their `start`/`end` markers, `dedent` and
//! `preserve-includer-indent`; `include-markdown` also rebases the included file's
//! relative links onto the including page (`rewrite-relative-urls`, on by default).
//!
//! The plugin runs on the page's markdown before it is converted (`on_page_markdown`), so
//! it comes before snippets; paths are relative to the including file. Directives inside
//! fenced code are left alone, as documentation of the syntax.

use std::path::Path;

use super::super::RenderCx;
use super::super::include::normalize;
use super::super::markup;

/// One directive, read from its `{% … %}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Directive {
    /// `include-markdown` (rebases links) or `include` (verbatim).
    pub markdown: bool,
    pub path: String,
    pub start: Option<String>,
    pub end: Option<String>,
    pub dedent: bool,
    pub preserve_indent: bool,
    pub rewrite_urls: bool,
}

/// The directive in `tag` (the text between `{%` and `%}`), if it is one.
pub fn parse(tag: &str) -> Option<Directive> {
    let tag = tag.trim();
    let (markdown, rest) = if let Some(rest) = tag.strip_prefix("include-markdown") {
        (true, rest)
    } else if let Some(rest) = tag.strip_prefix("include") {
        (false, rest)
    } else {
        return None;
    };
    if !rest.starts_with(char::is_whitespace) {
        return None;
    }
    let mut args = arguments(rest.trim());
    if args.is_empty() {
        return None;
    }
    let (key, path) = args.remove(0);
    if !key.is_empty() {
        return None;
    }
    let get = |name: &str| args.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());
    let boolean = |name: &str, default: bool| get(name).map_or(default, |v| v == "true");
    Some(Directive {
        markdown,
        path,
        start: get("start"),
        end: get("end"),
        dedent: boolean("dedent", false),
        preserve_indent: boolean("preserve-includer-indent", true),
        rewrite_urls: markdown && boolean("rewrite-relative-urls", true),
    })
}

/// `"path" start="a" dedent=true` → `[("", path), ("start", a), ("dedent", "true")]`.
fn arguments(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let (key, after_key) = match rest.find(['=', ' ', '\n', '\t', '"', '\'']) {
            Some(eq) if rest[eq..].starts_with('=') => (&rest[..eq], &rest[eq + 1..]),
            _ => ("", rest),
        };
        let (value, after) = match after_key.chars().next() {
            Some(q @ ('"' | '\'')) => match after_key[1..].find(q) {
                Some(close) => (&after_key[1..1 + close], &after_key[close + 2..]),
                None => (&after_key[1..], ""),
            },
            _ => {
                let end = after_key
                    .find(char::is_whitespace)
                    .unwrap_or(after_key.len());
                (&after_key[..end], &after_key[end..])
            }
        };
        out.push((key.trim().to_owned(), value.to_owned()));
        rest = after.trim_start();
    }
    out
}

/// `text` (the file at the absolute path `file`) with its directives expanded. `first_line` is the page line `text` starts at, `None` inside an
/// included file.
pub fn expand(text: &str, file: &Path, cx: &mut RenderCx<'_>, first_line: Option<usize>) -> String {
    if !text.contains("{%") {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut code_ends: Vec<(usize, usize)> = Vec::new();
    let mut at = 0;
    for line in markup::lines(text) {
        if line.in_code {
            code_ends.push((at, at + line.text.len()));
        }
        at += line.text.len();
    }
    let in_code = |pos: usize| code_ends.iter().any(|&(s, e)| pos >= s && pos < e);
    let mut rest_from = 0;
    let mut search = 0;
    while let Some(open) = text[search..].find("{%").map(|i| search + i) {
        let Some(close) = text[open..].find("%}").map(|i| open + i) else {
            break;
        };
        search = close + 2;
        let Some(directive) = parse(&text[open + 2..close]).filter(|_| !in_code(open)) else {
            continue;
        };
        let line_start = text[..open].rfind('\n').map_or(0, |i| i + 1);
        let indent: String = text[line_start..open]
            .chars()
            .take_while(|c| *c == ' ' || *c == '\t')
            .collect();
        let line = first_line.map(|f| f + text[..open].matches('\n').count());
        out.push_str(&text[rest_from..open]);
        out.push_str(&include(&directive, file, &indent, cx, line));
        rest_from = close + 2;
    }
    out.push_str(&text[rest_from..]);
    out
}

fn include(
    d: &Directive,
    file: &Path,
    indent: &str,
    cx: &mut RenderCx<'_>,
    line: Option<usize>,
) -> String {
    let dir = file.parent().unwrap_or(Path::new(""));
    let target = normalize(&dir.join(&d.path));
    let target_for_links = target.clone();
    let included = cx.include(line, target, |cx, content| {
        let part = select(&content, d.start.as_deref(), d.end.as_deref());
        let part = if d.dedent { dedent_all(&part) } else { part };
        let expanded = expand(&part, &target_for_links, cx, None);
        if d.rewrite_urls {
            rebase_links(
                &expanded,
                target_for_links.parent().unwrap_or(Path::new("")),
                dir,
            )
        } else {
            expanded
        }
    });
    let Some(text) = included else {
        return String::new();
    };
    if !d.preserve_indent || indent.is_empty() {
        return text;
    }
    let mut out = String::with_capacity(text.len());
    for (i, l) in text.split_inclusive('\n').enumerate() {
        if i > 0 && !l.trim().is_empty() {
            out.push_str(indent);
        }
        out.push_str(l);
    }
    out
}

/// The parts of `text` between `start` and `end` markers (all of them, in order).
fn select(text: &str, start: Option<&str>, end: Option<&str>) -> String {
    if start.is_none() && end.is_none() {
        return text.to_owned();
    }
    let mut out = String::new();
    let mut rest = text;
    loop {
        let from = match start {
            Some(s) => match rest.find(s) {
                Some(i) => i + s.len(),
                None => break,
            },
            None => 0,
        };
        let after = &rest[from..];
        let (piece, next) = match end.and_then(|e| after.find(e).map(|i| (i, e.len()))) {
            Some((i, len)) => (&after[..i], &after[i + len..]),
            None => (after, ""),
        };
        out.push_str(piece);
        if start.is_none() || next.is_empty() {
            break;
        }
        rest = next;
    }
    out
}

/// The paths the directives in `text` name, as written.
pub fn targets(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut search = 0;
    while let Some(open) = text[search..].find("{%").map(|i| search + i) {
        let Some(close) = text[open..].find("%}").map(|i| open + i) else {
            break;
        };
        if let Some(d) = parse(&text[open + 2..close]) {
            found.push(d.path);
        }
        search = close + 2;
    }
    found
}

fn dedent_all(text: &str) -> String {
    let common = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(markup::indent_of)
        .min()
        .unwrap_or(0);
    markup::dedent(text, common)
}

/// Relative link targets in `text` (written from `from_dir`) rewritten to be relative to
/// `to_dir`: `[x](../a.md)` in `docs/sub/part.md` included by `docs/page.md` → `[x](a.md)`.
pub fn rebase_links(text: &str, from_dir: &Path, to_dir: &Path) -> String {
    if from_dir == to_dir {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("](") {
        out.push_str(&rest[..at + 2]);
        rest = &rest[at + 2..];
        let end = rest.find([')', ' ']).unwrap_or(rest.len());
        let url = &rest[..end];
        out.push_str(&rebase(url, from_dir, to_dir).unwrap_or_else(|| url.to_owned()));
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

fn rebase(url: &str, from_dir: &Path, to_dir: &Path) -> Option<String> {
    if url.is_empty()
        || url.starts_with(['#', '/', '<'])
        || url.contains("://")
        || url.starts_with("mailto:")
    {
        return None;
    }
    let (path, fragment) = match url.find(['#', '?']) {
        Some(i) => (&url[..i], &url[i..]),
        None => (url, ""),
    };
    let target = normalize(&from_dir.join(path));
    let relative = relative_path(&target, to_dir)?;
    Some(format!("{relative}{fragment}"))
}

/// `target` relative to the folder `base` (both absolute, normalized).
fn relative_path(target: &Path, base: &Path) -> Option<String> {
    let t: Vec<_> = target.components().collect();
    let b: Vec<_> = base.components().collect();
    let common = t.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut parts: Vec<String> = vec!["..".into(); b.len() - common];
    for c in &t[common..] {
        parts.push(c.as_os_str().to_str()?.to_owned());
    }
    Some(parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directives_and_their_options() {
        let d = parse(" include-markdown \"../a.md\" start=\"<!--s-->\" dedent=true ").unwrap();
        assert!(d.markdown && d.dedent && d.rewrite_urls && d.preserve_indent);
        assert_eq!(d.path, "../a.md");
        assert_eq!(d.start.as_deref(), Some("<!--s-->"));
        let d = parse("include 'code.py'").unwrap();
        assert!(!d.markdown && !d.rewrite_urls);
        assert_eq!(parse("if x"), None);
        assert_eq!(parse("includes \"x\""), None);
    }

    #[test]
    fn markers_and_links() {
        assert_eq!(
            select(
                "a<!--s-->b<!--e-->c<!--s-->d<!--e-->",
                Some("<!--s-->"),
                Some("<!--e-->")
            ),
            "bd"
        );
        assert_eq!(select("abc", None, Some("c")), "ab");
        assert_eq!(
            rebase_links(
                "[x](../a.md#h) [y](https://x.org) [z](#k)",
                Path::new("/d/sub"),
                Path::new("/d")
            ),
            "[x](a.md#h) [y](https://x.org) [z](#k)"
        );
        assert_eq!(
            rebase_links("[x](b.md)", Path::new("/d/sub"), Path::new("/d/other")),
            "[x](../sub/b.md)"
        );
    }
}
