//! `pymdownx.snippets`: `--8<-- "file"` lines, the block form, `;`-escaped and disabled
//! lines, line ranges and `[start:name]` sections, and `auto_append`.
//!
//! Snippets is a preprocessor: it runs over every line of the page, fenced code included
//! (embedding a source file in a code block is its main use), and the included text takes
//! the indentation of the marker line. Paths are tried in each `base_path` folder
//! (relative to the folder of `mkdocs.yml`), never relative to the including file.

use std::path::{Path, PathBuf};

use super::super::RenderCx;
use super::super::include::{IncludeError, line_range};
use super::config::Snippets;

/// What a page's snippets are resolved against.
pub struct SnippetCx<'c> {
    pub options: &'c Snippets,
    /// The folder `mkdocs.yml` is in: `base_path` entries are relative to it.
    pub config_dir: &'c Path,
}

/// One snippet line, read.
#[derive(Debug, PartialEq, Eq)]
pub enum Marker<'l> {
    /// `--8<-- "file"`: the indent and the file spec.
    Inline { indent: &'l str, spec: String },
    /// A lone `--8<--`: opens or closes the block form.
    Block { indent: &'l str },
    /// `;--8<-- …`: shown as written, one `;` less.
    Escaped,
}

/// The snippet marker on `line` (no line ending), if any.
pub fn marker(line: &str) -> Option<Marker<'_>> {
    let trimmed = line.trim_start_matches([' ', '\t']);
    let indent = &line[..line.len() - trimmed.len()];
    if trimmed.starts_with(';') {
        let rest = trimmed.trim_start_matches(';');
        return marker(rest).map(|_| Marker::Escaped);
    }
    let dashes = trimmed.bytes().take_while(|&b| b == b'-').count();
    if dashes == 0 || !trimmed[dashes..].starts_with("8<") {
        return None;
    }
    let after = &trimmed[dashes + 2..];
    let dashes_after = after.bytes().take_while(|&b| b == b'-').count();
    if dashes_after == 0 {
        return None;
    }
    let rest = after[dashes_after..].trim_end_matches('\r');
    if rest.is_empty() {
        return Some(Marker::Block { indent });
    }
    let spec = rest.trim_start_matches([' ', '\t']);
    if spec.len() == rest.len() {
        return None;
    }
    let quote = spec.chars().next()?;
    if quote != '"' && quote != '\'' || spec.len() < 3 || !spec.ends_with(quote) {
        return None;
    }
    let inner = &spec[1..spec.len() - 1];
    Some(Marker::Inline {
        indent,
        spec: inner.replace(&format!("\\{quote}"), &quote.to_string()),
    })
}

/// `text` with its snippets expanded. `first_line` is the page line `text` starts at (for
/// problems), `None` inside an included file.
pub fn expand(
    text: &str,
    cx: &mut RenderCx<'_>,
    sn: &SnippetCx<'_>,
    first_line: Option<usize>,
) -> String {
    if !text.contains("8<") {
        return text.to_owned();
    }
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let bare = line.trim_end_matches(['\n', '\r']);
        let at = first_line.map(|f| f + i);
        match marker(bare) {
            None => out.push_str(line),
            Some(Marker::Escaped) => {
                let semicolon = line.find(';').unwrap_or(0);
                out.push_str(&line[..semicolon]);
                out.push_str(&line[semicolon + 1..]);
            }
            Some(Marker::Inline { indent, spec }) => {
                out.push_str(&include(&spec, indent, cx, sn, at));
            }
            Some(Marker::Block { indent }) => {
                let close = lines[i + 1..].iter().position(|l| {
                    matches!(
                        marker(l.trim_end_matches(['\n', '\r'])),
                        Some(Marker::Block { .. })
                    )
                });
                let Some(close) = close else {
                    out.push_str(line);
                    i += 1;
                    continue;
                };
                for (k, name_line) in lines[i + 1..i + 1 + close].iter().enumerate() {
                    let name = name_line.trim();
                    if name.is_empty() || name.starts_with(';') {
                        continue;
                    }
                    let at = first_line.map(|f| f + i + 1 + k);
                    out.push_str(&include(name, indent, cx, sn, at));
                }
                i += close + 2;
                continue;
            }
        }
        i += 1;
    }
    out
}

/// `auto_append` files, each after a blank line, as pymdownx appends them.
pub fn append(body: &str, cx: &mut RenderCx<'_>, sn: &SnippetCx<'_>) -> String {
    let mut out = body.to_owned();
    for name in &sn.options.auto_append {
        let text = include(name, "", cx, sn, None);
        if text.is_empty() {
            continue;
        }
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        out.push('\n');
        out.push_str(&text);
    }
    out
}

/// The text a snippet spec names, indented like its marker, its own snippets expanded.
fn include(
    spec: &str,
    indent: &str,
    cx: &mut RenderCx<'_>,
    sn: &SnippetCx<'_>,
    line: Option<usize>,
) -> String {
    if spec.starts_with("http://") || spec.starts_with("https://") {
        cx.warn(
            line,
            format!("includes the remote snippet `{spec}`, which is not fetched at build time"),
            "copy the file into the repository and include it by path",
        );
        return String::new();
    }
    let Some((path, selection)) = locate(spec, sn, cx) else {
        missing(spec, cx, sn, line);
        return String::new();
    };
    let shown = cx.sources.shown(&path);
    let mut section_missing = None;
    let expanded = cx.include(line, path, |cx, text| {
        let selected = match select(&text, &selection) {
            Some(selected) => selected,
            None => {
                section_missing = Some(selection.clone());
                String::new()
            }
        };
        expand(&selected, cx, sn, None)
    });
    if let Some(Selection::Section(name)) = section_missing {
        let error = IncludeError::NoAnchor {
            path: shown,
            anchor: name,
        };
        if sn.options.check_paths {
            cx.include_error(line, error);
        } else {
            let (message, fix) = error.explain();
            cx.warn(line, message, fix);
        }
    }
    let Some(text) = expanded else {
        return String::new();
    };
    indented(&text, indent)
}

fn missing(spec: &str, cx: &mut RenderCx<'_>, sn: &SnippetCx<'_>, line: Option<usize>) {
    let tried: Vec<String> = sn
        .options
        .base_path
        .iter()
        .map(|b| {
            cx.sources.shown(&super::super::include::normalize(
                &sn.config_dir.join(b).join(file_part(spec)),
            ))
        })
        .collect();
    let shown = tried.first().cloned().unwrap_or_else(|| spec.to_owned());
    if sn.options.check_paths {
        cx.include_error(line, IncludeError::Missing(shown));
    } else {
        cx.warn(
            line,
            format!(
                "includes the snippet `{spec}`, which is in no snippet base path (tried {}); MkDocs leaves it out",
                tried.join(", ")
            ),
            "fix the path (snippet paths are relative to `base_path` in mkdocs.yml, `.` by default: the folder of mkdocs.yml) or add the file",
        );
    }
}

/// What part of a file a spec takes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selection {
    Whole,
    /// 1-based inclusive ranges, either end open.
    Lines(Vec<(Option<usize>, Option<usize>)>),
    Section(String),
}

/// The file a spec names (in the first base path that has it) and the part it takes.
fn locate(spec: &str, sn: &SnippetCx<'_>, cx: &RenderCx<'_>) -> Option<(PathBuf, Selection)> {
    let (file, selection) = split_spec(spec);
    let candidates = if file == spec {
        vec![(file, selection)]
    } else {
        // A file name may itself hold a `:`; the whole spec as a path wins when it exists.
        vec![(spec, Selection::Whole), (file, selection)]
    };
    for (name, selection) in candidates {
        for base in &sn.options.base_path {
            let path = super::super::include::normalize(&sn.config_dir.join(base).join(name));
            if cx.sources.exists(&path) {
                return Some((path, selection));
            }
        }
    }
    None
}

fn file_part(spec: &str) -> &str {
    split_spec(spec).0
}

/// `file.md:3:5,9:` → lines; `file.md:name` → a section; anything else → the whole file.
pub fn split_spec(spec: &str) -> (&str, Selection) {
    let Some((file, suffix)) = spec.split_once(':').filter(|(f, _)| !f.is_empty()) else {
        return (spec, Selection::Whole);
    };
    // Windows drive letters (`C:\…`) are paths, not selections.
    if file.len() == 1 {
        return (spec, Selection::Whole);
    }
    if suffix
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic())
        && suffix
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        return (file, Selection::Section(suffix.to_owned()));
    }
    let mut ranges = Vec::new();
    for part in suffix.split(',') {
        let mut ends = part.splitn(2, ':');
        let parse = |s: Option<&str>| -> Result<Option<usize>, ()> {
            match s.map(str::trim) {
                None | Some("") => Ok(None),
                Some(n) => n.parse::<usize>().map(Some).map_err(|_| ()),
            }
        };
        let (Ok(first), Ok(last)) = (parse(ends.next()), parse(ends.next())) else {
            return (spec, Selection::Whole);
        };
        ranges.push((first, last));
    }
    (file, Selection::Lines(ranges))
}

/// The part of `text` a selection takes, section markers left out; `None` when the
/// section is not there.
pub fn select(text: &str, selection: &Selection) -> Option<String> {
    match selection {
        Selection::Whole => Some(without_section_markers(text)),
        Selection::Lines(ranges) => Some(
            ranges
                .iter()
                .map(|&(first, last)| line_range(text, first, last))
                .collect::<String>(),
        ),
        Selection::Section(name) => section(text, name),
    }
}

fn section_marker(line: &str) -> Option<(bool, &str)> {
    let at = line.find("8<")?;
    let before = &line[..at];
    if !before.ends_with('-') {
        return None;
    }
    let rest = line[at + 2..].trim_start_matches('-').trim_start();
    let rest = rest.strip_prefix('[')?;
    let (kind, rest) = rest.split_once(':')?;
    let name = rest.split(']').next()?;
    match kind {
        "start" => Some((true, name)),
        "end" => Some((false, name)),
        _ => None,
    }
}

fn without_section_markers(text: &str) -> String {
    text.split_inclusive('\n')
        .filter(|l| section_marker(l).is_none())
        .collect()
}

fn section(text: &str, name: &str) -> Option<String> {
    let mut out = String::new();
    let mut inside = false;
    let mut found = false;
    for line in text.split_inclusive('\n') {
        match section_marker(line) {
            Some((true, n)) if n == name => {
                inside = true;
                found = true;
            }
            Some((false, n)) if n == name => inside = false,
            Some(_) => {}
            None if inside => out.push_str(line),
            None => {}
        }
    }
    found.then_some(out)
}

/// Every line of `text` after `indent` (blank lines too, as pymdownx does), ending in a
/// newline.
fn indented(text: &str, indent: &str) -> String {
    let mut out = String::with_capacity(text.len() + indent.len() * 8);
    for line in text.split_inclusive('\n') {
        out.push_str(indent);
        out.push_str(line);
    }
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_and_specs() {
        assert_eq!(
            marker("  --8<-- \"a.md\""),
            Some(Marker::Inline {
                indent: "  ",
                spec: "a.md".into()
            })
        );
        assert_eq!(marker("-8<-"), Some(Marker::Block { indent: "" }));
        assert_eq!(marker(";--8<-- \"a.md\""), Some(Marker::Escaped));
        assert_eq!(marker("--8<-- a.md"), None);
        assert_eq!(marker("text --8<-- \"a.md\""), None);
        assert_eq!(marker("--8<-- \"é"), None);
        assert_eq!(
            split_spec("a.md:3:5"),
            ("a.md", Selection::Lines(vec![(Some(3), Some(5))]))
        );
        assert_eq!(
            split_spec("a.md:name"),
            ("a.md", Selection::Section("name".into()))
        );
        assert_eq!(split_spec("a.md"), ("a.md", Selection::Whole));
        assert_eq!(split_spec("a.md:x y"), ("a.md:x y", Selection::Whole));
        assert_eq!(select("a\nb\n", &Selection::Section("nope".into())), None);
    }
}
