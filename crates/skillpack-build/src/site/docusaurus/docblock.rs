//! `docblock://` links of remark-typescript-tools' `linkDocblocks` plugin: a paragraph
//! that is only `[summary,remarks](docblock://query/createApi.ts?token=CreateApiOptions.baseQuery)`
//! is replaced at build time by those sections of the TSDoc comment on that declaration in
//! the plugin's `basedir`. Here the comment is found by scanning the TypeScript source
//! (the declaration by name, members inside its braces, the `/** */` right above it), not
//! by the TypeScript compiler the plugin runs; overloads are picked by `&overload=N`.

use std::path::PathBuf;

use crate::site::RenderCx;
use crate::site::include::Sources;

/// Where the plugin reads TypeScript sources from (`extractorSettings.basedir`).
pub(crate) struct Docblocks {
    pub basedir: PathBuf,
}

/// One `docblock://` link.
#[derive(Debug, PartialEq, Eq)]
struct Link<'l> {
    /// What comes before the link on its line: indentation, a list marker.
    prefix: &'l str,
    sections: Vec<&'l str>,
    file: &'l str,
    token: &'l str,
    overload: usize,
}

fn parse_link(bare: &str) -> Option<Link<'_>> {
    let at = bare.find("](docblock://")?;
    let open = bare[..at].rfind('[')?;
    let prefix = &bare[..open];
    if !prefix
        .trim()
        .trim_end_matches(['.', ')'])
        .chars()
        .all(|c| c.is_ascii_digit() || c == '-' || c == '*' || c == '+')
    {
        return None;
    }
    let url_start = at + "](docblock://".len();
    let close = url_start + bare[url_start..].find(')')?;
    if !bare[close + 1..].trim().is_empty() {
        return None;
    }
    let url = &bare[url_start..close];
    let (file, query) = url.split_once('?')?;
    let mut token = None;
    let mut overload = 0;
    for pair in query.split('&') {
        match pair.split_once('=') {
            Some(("token", t)) => token = Some(t),
            Some(("overload", n)) => overload = n.parse().unwrap_or(0),
            _ => {}
        }
    }
    Some(Link {
        prefix,
        sections: bare[open + 1..at].split(',').map(str::trim).collect(),
        file,
        token: token?,
        overload,
    })
}

impl Docblocks {
    /// The line replaced by the doc comment sections it links to, when it is a docblock
    /// link alone on its line.
    pub(crate) fn rewrite(
        &self,
        line: &str,
        line_no: usize,
        cx: &mut RenderCx<'_>,
    ) -> Option<String> {
        if !line.contains("docblock://") {
            return None;
        }
        let bare = line.trim_end_matches(['\n', '\r']);
        let link = parse_link(bare)?;
        let path = Sources::join(&self.basedir, link.file);
        let source = match cx.sources.read(&path) {
            Ok(source) => source,
            Err(error) => {
                cx.include_error(Some(line_no), error);
                return Some(format!("{}{}\n", link.prefix, link.token));
            }
        };
        let Some(comment) = doc_comment(&source, link.token, link.overload) else {
            cx.warn(
                Some(line_no),
                format!(
                    "links to the doc comment of `{}` in `{}`, which has none",
                    link.token,
                    cx.sources.shown(&path)
                ),
                "fix the token (`Interface.member`) or add a `/** … */` comment above the declaration",
            );
            return Some(format!("{}`{}`\n", link.prefix, link.token));
        };
        let sections = Sections::parse(&comment);
        let text: Vec<String> = link
            .sections
            .iter()
            .filter_map(|name| sections.get(name))
            .filter(|s| !s.trim().is_empty())
            .collect();
        Some(place(link.prefix, &text.join("\n\n")))
    }
}

/// `text` where the link stood: the first line after its prefix (a list marker keeps
/// its item), the others indented to match.
fn place(prefix: &str, text: &str) -> String {
    if text.trim().is_empty() {
        return String::new();
    }
    let hang = " ".repeat(prefix.chars().count());
    let mut out = String::new();
    for (i, line) in text.lines().enumerate() {
        if i == 0 {
            out.push_str(prefix);
        } else if !line.trim().is_empty() {
            out.push_str(&hang);
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// The sections of a TSDoc comment the plugin can show.
#[derive(Debug, Default, PartialEq, Eq)]
struct Sections {
    summary: String,
    remarks: String,
    examples: Vec<String>,
    params: Vec<(String, String)>,
    overload_summary: String,
    overload_remarks: String,
}

impl Sections {
    /// `comment` is the text of a `/** … */` without its delimiters and `*` margins.
    fn parse(comment: &str) -> Sections {
        let mut sections = Sections::default();
        let mut tag = String::new();
        let mut body = String::new();
        let mut in_code = false;
        for line in comment.lines() {
            let trimmed = line.trim_start();
            if trimmed.starts_with("```") {
                in_code = !in_code;
            }
            if !in_code && trimmed.starts_with('@') {
                sections.take(&tag, &body);
                let (name, rest) = trimmed
                    .split_once(char::is_whitespace)
                    .unwrap_or((trimmed, ""));
                tag = name.to_owned();
                body = format!("{rest}\n");
                continue;
            }
            body.push_str(line);
            body.push('\n');
        }
        sections.take(&tag, &body);
        sections
    }

    fn take(&mut self, tag: &str, body: &str) {
        let text = inline_tags(body.trim_matches('\n')).trim().to_owned();
        match tag {
            "" => self.summary = text,
            "@remarks" => self.remarks = text,
            "@example" => self.examples.push(text),
            "@overloadSummary" => self.overload_summary = text,
            "@overloadRemarks" => self.overload_remarks = text,
            "@param" => {
                let (name, desc) = text.split_once(char::is_whitespace).unwrap_or((&text, ""));
                let desc = desc.trim_start().trim_start_matches('-').trim_start();
                self.params.push((name.to_owned(), desc.to_owned()));
            }
            _ => {}
        }
    }

    fn get(&self, name: &str) -> Option<String> {
        Some(match name {
            "summary" => self.summary.clone(),
            "remarks" => self.remarks.clone(),
            "examples" => self.examples.join("\n\n"),
            "overloadSummary" => self.overload_summary.clone(),
            "overloadRemarks" => self.overload_remarks.clone(),
            "params" if !self.params.is_empty() => {
                let mut out = String::from("#### Parameters:\n\n");
                for (name, desc) in &self.params {
                    out.push_str(&format!("- **{name}** {desc}\n"));
                }
                out.trim_end().to_owned()
            }
            _ => return None,
        })
    }
}

/// `{@link Foo}` → `Foo`, `{@link Foo | text}` → `text`.
fn inline_tags(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find("{@") {
        let Some(close) = rest[open..].find('}') else {
            break;
        };
        out.push_str(&rest[..open]);
        let inner = &rest[open + 2..open + close];
        let inner = inner.split_once(char::is_whitespace).map_or("", |(_, r)| r);
        let shown = inner.rsplit('|').next().unwrap_or(inner).trim();
        out.push_str(shown);
        rest = &rest[open + close + 1..];
    }
    out.push_str(rest);
    out
}

// ---------------------------------------------------------------------------------------
// Finding the comment

/// Parts of TypeScript source that are code (not comments or strings), so braces and
/// names are counted only there.
fn code_mask(source: &str) -> Vec<bool> {
    let bytes = source.as_bytes();
    let mut mask = vec![true; bytes.len()];
    let mut p = 0;
    while p < bytes.len() {
        let start = p;
        match bytes[p] {
            b'/' if bytes.get(p + 1) == Some(&b'/') => {
                while p < bytes.len() && bytes[p] != b'\n' {
                    p += 1;
                }
            }
            b'/' if bytes.get(p + 1) == Some(&b'*') => {
                p += 2;
                while p + 1 < bytes.len() && !(bytes[p] == b'*' && bytes[p + 1] == b'/') {
                    p += 1;
                }
                p = (p + 2).min(bytes.len());
            }
            quote @ (b'"' | b'\'' | b'`') => {
                p += 1;
                while p < bytes.len() && bytes[p] != quote {
                    if bytes[p] == b'\\' {
                        p += 1;
                    }
                    if quote != b'`' && bytes.get(p) == Some(&b'\n') {
                        break;
                    }
                    p += 1;
                }
                p = (p + 1).min(bytes.len());
            }
            _ => {
                p += 1;
                continue;
            }
        }
        for m in &mut mask[start..p] {
            *m = false;
        }
    }
    mask
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$'
}

/// Offsets in `range` where `name` stands as a whole word in code at brace depth
/// `depth` (relative to the range's start).
fn occurrences(
    source: &str,
    mask: &[bool],
    range: std::ops::Range<usize>,
    name: &str,
    depth: usize,
) -> Vec<usize> {
    let bytes = source.as_bytes();
    let mut found = Vec::new();
    let mut level = 0usize;
    let mut p = range.start;
    while p < range.end {
        if !mask[p] {
            p += 1;
            continue;
        }
        match bytes[p] {
            b'{' => level += 1,
            b'}' => level = level.saturating_sub(1),
            _ => {}
        }
        if level == depth
            && bytes[p..].starts_with(name.as_bytes())
            && (p == 0 || !is_ident(bytes[p - 1]))
            && !bytes.get(p + name.len()).copied().is_some_and(is_ident)
        {
            found.push(p);
            p += name.len();
            continue;
        }
        p += 1;
    }
    found
}

/// Whether the word before `at` makes it a declaration of a top-level name.
fn declares(source: &str, at: usize) -> bool {
    let before = source[..at].trim_end();
    let word = before
        .rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .next()
        .unwrap_or("");
    matches!(
        word,
        "interface"
            | "type"
            | "class"
            | "function"
            | "const"
            | "let"
            | "var"
            | "enum"
            | "namespace"
    )
}

/// Whether the name at `at` is a member declaration (`name:`, `name?:`, `name(`, `name<`).
fn is_member(source: &str, at: usize, name: &str) -> bool {
    let after = source[at + name.len()..].trim_start();
    let after = after.strip_prefix('?').unwrap_or(after).trim_start();
    after.starts_with(':') || after.starts_with('(') || after.starts_with('<')
}

/// The body `{ … }` of the declaration at `at`: from its first `{` in code to the match.
fn body_of(source: &str, mask: &[bool], at: usize) -> Option<std::ops::Range<usize>> {
    let bytes = source.as_bytes();
    let open = (at..bytes.len()).find(|&p| mask[p] && bytes[p] == b'{')?;
    let mut depth = 0usize;
    for p in open..bytes.len() {
        if !mask[p] {
            continue;
        }
        match bytes[p] {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(open..p + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// The doc comment above the declaration `token` (`Name` or `Name.member.member`), the
/// `overload`-th when the last name is declared more than once.
fn doc_comment(source: &str, token: &str, overload: usize) -> Option<String> {
    let mask = code_mask(source);
    let mut parts = token.split('.');
    let first = parts.next()?;
    let members: Vec<&str> = parts.collect();
    let tops: Vec<usize> = occurrences(source, &mask, 0..source.len(), first, 0)
        .into_iter()
        .filter(|&at| declares(source, at))
        .collect();
    let mut at = if members.is_empty() {
        *tops.get(overload).or(tops.first())?
    } else {
        *tops.first()?
    };
    for (i, member) in members.iter().enumerate() {
        let body = body_of(source, &mask, at)?;
        let found: Vec<usize> = occurrences(source, &mask, body.clone(), member, 1)
            .into_iter()
            .filter(|&p| is_member(source, p, member))
            .collect();
        let pick = if i + 1 == members.len() { overload } else { 0 };
        at = *found.get(pick).or(found.first())?;
    }
    comment_above(source, at)
}

/// The `/** … */` right above `at`, with only modifiers between, without its delimiters
/// and `*` margins.
fn comment_above(source: &str, at: usize) -> Option<String> {
    let mut before = source[..at].trim_end();
    loop {
        let word_start = before
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .map_or(0, |i| i + 1);
        let word = &before[word_start..];
        if matches!(
            word,
            "export"
                | "declare"
                | "readonly"
                | "async"
                | "default"
                | "public"
                | "static"
                | "interface"
                | "type"
                | "class"
                | "function"
                | "const"
                | "let"
                | "var"
                | "enum"
                | "namespace"
                | "abstract"
        ) {
            before = before[..word_start].trim_end();
        } else {
            break;
        }
    }
    let body = before.strip_suffix("*/")?;
    let open = body.rfind("/**")?;
    let body = &body[open + 3..];
    let mut out = String::new();
    for line in body.lines() {
        let trimmed = line.trim_start();
        let line = match trimmed.strip_prefix('*') {
            Some(rest) => rest.strip_prefix(' ').unwrap_or(rest),
            None => line,
        };
        out.push_str(line.trim_end());
        out.push('\n');
    }
    Some(out.trim_matches('\n').to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOURCE: &str = r#"
import { x } from './x'

/**
 * Interface Test!
 * @remarks
 * Some more infos, see {@link Other}.
 */
export interface Test {
  /** not this one: { braces } in a comment */
  other: string
  /**
   * This is a function
   * @overloadSummary
   * The first overload
   * @param foo - some info about the first parameter
   * @example
   * ```ts
   * nestedFunction('a')
   * ```
   */
  nestedFunction(foo: string): void
  /**
   * This is a function
   * @overloadSummary
   * The second overload
   */
  nestedFunction(foo: string, bar: number): void
}

/** The token. */
export const skipToken = Symbol.for('x')
"#;

    #[test]
    fn finds_comments_by_token_and_overload() {
        let test = Sections::parse(&doc_comment(SOURCE, "Test", 0).unwrap());
        assert_eq!(test.summary, "Interface Test!");
        assert_eq!(test.remarks, "Some more infos, see Other.");
        let first = Sections::parse(&doc_comment(SOURCE, "Test.nestedFunction", 0).unwrap());
        assert_eq!(first.overload_summary, "The first overload");
        assert_eq!(
            first.get("params").unwrap(),
            "#### Parameters:\n\n- **foo** some info about the first parameter"
        );
        assert_eq!(first.examples, ["```ts\nnestedFunction('a')\n```"]);
        let second = Sections::parse(&doc_comment(SOURCE, "Test.nestedFunction", 1).unwrap());
        assert_eq!(second.overload_summary, "The second overload");
        assert_eq!(
            Sections::parse(&doc_comment(SOURCE, "skipToken", 0).unwrap()).summary,
            "The token."
        );
        assert_eq!(doc_comment(SOURCE, "Missing", 0), None);
        assert_eq!(doc_comment(SOURCE, "Test.missing", 0), None);
    }

    #[test]
    fn links_keep_their_list_item() {
        let link =
            parse_link("1. [summary,remarks](docblock://a/b.ts?token=T.m&overload=1)").unwrap();
        assert_eq!(link.prefix, "1. ");
        assert_eq!(link.sections, ["summary", "remarks"]);
        assert_eq!((link.file, link.token, link.overload), ("a/b.ts", "T.m", 1));
        assert_eq!(
            parse_link("see [summary](docblock://a.ts?token=T) here"),
            None
        );
        assert_eq!(place("1. ", "One\n\nTwo"), "1. One\n\n   Two\n");
    }
}
