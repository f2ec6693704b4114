//! mdBook.
//!
//! **Reads** `book.toml` when there is one (`[book] src`, default `src`: the folder the
//! chapters live in; `[output.html] site-url`: the base path), else the docs root is the
//! book's `src/` (a tree with `SUMMARY.md` and no `book.toml`, like the Rust book's
//! `src/`). `SUMMARY.md` is the book: its links, in order, are the chapters (their link
//! text is the sidebar's label), and it becomes [`Settings::nav`].
//!
//! **Serves** every chapter `SUMMARY.md` links to, with mdBook's preprocessing done:
//! `{{#include file}}`, `{{#include file:10:20}}` / `file:5` / `file::20` / `file:10:`
//! (1-based, inclusive), `{{#include file:anchor}}` (the lines between `ANCHOR: anchor`
//! and `ANCHOR_END: anchor`), `{{#rustdoc_include …}}` (mdBook includes the whole file
//! and hides the lines outside the range or anchor behind `# `; readers see only the
//! shown lines, so only those are served), `{{#playground file}}` (the file in a ```` ```rust ````
//! fence) and `{{#title …}}` (removed; it is the page's title). Includes are expanded
//! wherever they stand (inside code fences too, as mdBook does), recursively, relative
//! to the including file; `ANCHOR` marker lines never reach the reader; `\{{#…}}` is the
//! literal text. The Rust book's own `trpl-listing` preprocessor is read too:
//! `<Listing number="1-1" file-name="src/main.rs" caption="…">` … `</Listing>` becomes
//! `Filename: src/main.rs` above the listing and `Listing 1-1: …` below it, as its readers
//! see them.
//!
//! **Titles**: a page's title is the first heading on it (what readers see atop the
//! page; the Rust book's sections open with an H2 whose text is often fuller than the
//! sidebar label, e.g. "Appendix A: Keywords" for "A - Keywords"). `{{#title X}}` wins
//! (the author's explicit title); a chapter with no heading at all takes its `SUMMARY.md`
//! link text, which mdBook shows as the page's `<title>` and sidebar entry.
//!
//! **Skips** `SUMMARY.md` itself (the table of contents, not a page); markdown files that
//! chapters `{{#include}}` (partials); other markdown files `SUMMARY.md` does not link to
//! (mdBook does not render them); with `book.toml` in the docs root, files outside the
//! `src` folder. Draft chapters (`- [Title]()`) have no file, so nothing to skip.
//!
//! **Heading ids** follow mdBook's rule: lowercase ASCII letters, digits, `_` and `-`
//! kept, whitespace → `-`, everything else dropped (`Rc<T>` → `rct`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::{Map, Value};

use super::include::{self, Sources};
use super::markup;
use super::{Detection, Flavor, Generator, Page, RenderCx, Role, Settings, Skip};
use crate::compile::diag::Report;

/// The marker words of mdBook's anchors.
const ANCHOR_START: &str = "ANCHOR";
const ANCHOR_END: &str = "ANCHOR_END";

pub struct MdBook {
    settings: Settings,
    /// The chapters' folder below the docs root (`""`, or `src/` when the docs root is
    /// the book's root).
    src_prefix: String,
    /// Whether the book has a `SUMMARY.md` (without one every markdown file is a page).
    has_summary: bool,
    /// Chapters `SUMMARY.md` links to (docs-relative) → their link text.
    chapters: BTreeMap<String, String>,
    /// Markdown files some chapter includes (docs-relative).
    included: BTreeSet<String>,
    /// Titles the rules above give a chapter: `{{#title}}`, or the link text of a
    /// chapter without headings.
    titles: BTreeMap<String, String>,
}

impl MdBook {
    pub fn load(detection: &Detection, report: &mut Report) -> MdBook {
        let mut settings = Settings {
            base_path: "/".into(),
            ..Settings::default()
        };
        let mut src_dir = detection.docs.clone();
        if let Some(config) = &detection.config {
            settings.config_file = Some(shown(config, &detection.project));
            if let Some(book) = read_book_toml(config, report) {
                src_dir = detection.project.join(&book.src);
                if let Some(base) = book.site_url {
                    settings.base_path = base;
                }
            }
        }
        let src_prefix = src_prefix(&detection.docs, &src_dir);
        let summary_path = src_dir.join("SUMMARY.md");
        let summary = std::fs::read_to_string(&summary_path).ok();
        let mut book = MdBook {
            settings,
            src_prefix,
            has_summary: summary.is_some(),
            chapters: BTreeMap::new(),
            included: BTreeSet::new(),
            titles: BTreeMap::new(),
        };
        if let Some(summary) = &summary {
            for (path, title) in summary_chapters(summary) {
                let rel = format!("{}{}", book.src_prefix, path);
                book.settings.nav.push((rel.clone(), Some(title.clone())));
                book.chapters.entry(rel).or_insert(title);
            }
        }
        book.scan_chapters(&detection.docs, &src_dir);
        book
    }

    /// Read every markdown file of the book once: which markdown files chapters include
    /// (partials), and the titles `{{#title}}` or a missing heading give.
    fn scan_chapters(&mut self, docs: &Path, src_dir: &Path) {
        for entry in walkdir::WalkDir::new(src_dir)
            .into_iter()
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_file())
        {
            let path = entry.path();
            if !super::is_page_source(&path.to_string_lossy(), false) {
                continue;
            }
            let Ok(text) = std::fs::read_to_string(path) else {
                continue;
            };
            let dir = path.parent().unwrap_or(src_dir);
            for target in include_targets(&text) {
                let abs = Sources::join(dir, &target);
                if let Some(rel) = docs_rel(docs, &abs) {
                    self.included.insert(rel);
                }
            }
            let Some(rel) = docs_rel(docs, path) else {
                continue;
            };
            if let Some(title) = title_directive(&text) {
                self.titles.insert(rel, title);
            } else if !has_heading(&text)
                && let Some(label) = self.chapters.get(&rel)
            {
                self.titles.insert(rel, label.clone());
            }
        }
    }
}

impl Generator for MdBook {
    fn flavor(&self) -> Flavor {
        Flavor::MdBook
    }

    fn settings(&self) -> &Settings {
        &self.settings
    }

    fn role(&self, rel: &str, _frontmatter: Option<&Map<String, Value>>) -> Role {
        let Some(in_src) = rel.strip_prefix(self.src_prefix.as_str()) else {
            return Role::Skip(Skip::Unpublished(format!(
                "outside the book's source folder `{}`",
                self.src_prefix.trim_end_matches('/')
            )));
        };
        if in_src == "SUMMARY.md" {
            return Role::Skip(Skip::SiteFile);
        }
        if !self.has_summary || self.chapters.contains_key(rel) {
            return Role::Page;
        }
        if self.included.contains(rel) {
            return Role::Skip(Skip::Partial);
        }
        Role::Skip(Skip::Unpublished(
            "SUMMARY.md does not link to it, so mdBook does not render it".into(),
        ))
    }

    fn render(&self, page: &Page<'_>, cx: &mut RenderCx<'_>) -> String {
        let body = page.body();
        let expanded = expand_links(body, cx, page, 0);
        rewrite_listings(&expanded)
    }

    fn heading_id(&self, text: &str) -> String {
        normalize_id(text)
    }

    fn title(&self, rel: &str, _frontmatter: Option<&Map<String, Value>>) -> Option<String> {
        self.titles.get(rel).cloned()
    }
}

/// What `book.toml` decides for us.
struct BookToml {
    src: String,
    site_url: Option<String>,
}

fn read_book_toml(path: &Path, report: &mut Report) -> Option<BookToml> {
    let text = std::fs::read_to_string(path).ok()?;
    let value: toml::Value = match toml::from_str(&text) {
        Ok(value) => value,
        Err(error) => {
            report.warning(
                path.display().to_string(),
                None,
                format!("book.toml does not parse: {error}"),
                "fix the TOML; until then the docs folder is read as the book's src folder",
            );
            return None;
        }
    };
    let src = value
        .get("book")
        .and_then(|b| b.get("src"))
        .and_then(toml::Value::as_str)
        .unwrap_or("src")
        .trim_matches('/')
        .to_owned();
    let site_url = value
        .get("output")
        .and_then(|o| o.get("html"))
        .and_then(|h| h.get("site-url"))
        .and_then(toml::Value::as_str)
        .map(base_path);
    Some(BookToml { src, site_url })
}

/// `site-url` as a base path: `/book/` (a full URL keeps only its path).
fn base_path(site_url: &str) -> String {
    let path = match site_url.split_once("://") {
        Some((_, rest)) => rest.find('/').map_or("/", |i| &rest[i..]),
        None => site_url,
    };
    let trimmed = path.trim_matches('/');
    if trimmed.is_empty() {
        "/".into()
    } else {
        format!("/{trimmed}/")
    }
}

/// Where the chapters are below the docs root: `""` when the docs root is the src folder
/// (or not its parent), `src/` when the docs root holds it.
fn src_prefix(docs: &Path, src_dir: &Path) -> String {
    let canon = |p: &Path| p.canonicalize().unwrap_or_else(|_| include::normalize(p));
    let (docs, src) = (canon(docs), canon(src_dir));
    match src.strip_prefix(&docs) {
        Ok(rest) if !rest.as_os_str().is_empty() => {
            format!("{}/", rest.to_string_lossy().replace('\\', "/"))
        }
        _ => String::new(),
    }
}

fn docs_rel(docs: &Path, abs: &Path) -> Option<String> {
    let canon = |p: &Path| p.canonicalize().unwrap_or_else(|_| include::normalize(p));
    let rest = canon(abs).strip_prefix(canon(docs)).ok()?.to_path_buf();
    Some(rest.to_string_lossy().replace('\\', "/"))
}

fn shown(path: &Path, project: &Path) -> String {
    path.strip_prefix(project)
        .unwrap_or(path)
        .to_string_lossy()
        .into_owned()
}

/// The chapters of `SUMMARY.md` in order: (path relative to src, link text). Draft
/// chapters (empty link) and part titles have no file and are left out.
pub fn summary_chapters(summary: &str) -> Vec<(String, String)> {
    let mut chapters = Vec::new();
    for line in markup::lines(summary).filter(|l| !l.in_code) {
        let item = line.bare().trim_start();
        let item = item
            .strip_prefix("- ")
            .or_else(|| item.strip_prefix("* "))
            .unwrap_or(item)
            .trim_start();
        let Some((text, target)) = link_at_start(item) else {
            continue;
        };
        let target = target.split('#').next().unwrap_or("").trim();
        let target = target.trim_start_matches("./");
        if target.is_empty() {
            continue;
        }
        let decoded = percent_encoding::percent_decode_str(target)
            .decode_utf8_lossy()
            .into_owned();
        chapters.push((decoded, text.to_owned()));
    }
    chapters
}

/// `[text](target)` at the start of `s`: brackets nest, code spans hide brackets.
fn link_at_start(s: &str) -> Option<(&str, &str)> {
    let rest = s.strip_prefix('[')?;
    let mut depth = 0usize;
    let mut in_code = false;
    let mut close = None;
    for (i, c) in rest.char_indices() {
        match c {
            '`' => in_code = !in_code,
            '[' if !in_code => depth += 1,
            ']' if !in_code => {
                if depth == 0 {
                    close = Some(i);
                    break;
                }
                depth -= 1;
            }
            _ => {}
        }
    }
    let close = close?;
    let text = &rest[..close];
    let after = rest[close + 1..].strip_prefix('(')?;
    let end = after.find(')')?;
    let target = after[..end].trim();
    let target = target
        .strip_prefix('<')
        .and_then(|t| t.strip_suffix('>'))
        .unwrap_or(target);
    Some((text, target))
}

/// One `{{#…}}` link of mdBook's preprocessor, by byte span in the text.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Link<'t> {
    start: usize,
    end: usize,
    kind: LinkKind<'t>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum LinkKind<'t> {
    /// `\{{#…}}`: the text without its backslash.
    Escaped(&'t str),
    Include(&'t str),
    RustdocInclude(&'t str),
    Playground(&'t str),
    Title(&'t str),
}

/// Every `{{#type args}}` of a known type in `text`, in order (mdBook's own pattern).
fn find_links(text: &str) -> Vec<Link<'_>> {
    let mut links = Vec::new();
    let mut from = 0;
    while let Some(at) = text[from..].find("{{").map(|i| i + from) {
        let escaped = at > 0 && text.as_bytes()[at - 1] == b'\\';
        let Some(close) = text[at..].find("}}").map(|i| i + at) else {
            break;
        };
        let inner = text[at + 2..close].trim_start();
        let Some(inner) = inner.strip_prefix('#') else {
            from = at + 2;
            continue;
        };
        if escaped {
            links.push(Link {
                start: at - 1,
                end: close + 2,
                kind: LinkKind::Escaped(&text[at..close + 2]),
            });
            from = close + 2;
            continue;
        }
        let (kind, args) = inner
            .split_once(char::is_whitespace)
            .map(|(k, a)| (k, a.trim()))
            .unwrap_or((inner, ""));
        let kind = match kind {
            "include" if !args.is_empty() => Some(LinkKind::Include(args)),
            "rustdoc_include" if !args.is_empty() => Some(LinkKind::RustdocInclude(args)),
            "playground" | "playpen" if !args.is_empty() => Some(LinkKind::Playground(args)),
            "title" if !args.is_empty() => Some(LinkKind::Title(args)),
            _ => None,
        };
        match kind {
            Some(kind) if !args.contains('\n') || matches!(kind, LinkKind::Title(_)) => {
                links.push(Link {
                    start: at,
                    end: close + 2,
                    kind,
                });
                from = close + 2;
            }
            _ => from = at + 2,
        }
    }
    links
}

/// Which part of a file an include takes.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    /// 1-based, inclusive, either end open.
    Lines(Option<usize>, Option<usize>),
    Anchor(String),
}

/// `path[:a[:b]]` or `path:anchor` → the path and the part (mdBook's
/// `parse_range_or_anchor`).
fn parse_include(spec: &str) -> (&str, Part) {
    let spec = spec.split_whitespace().next().unwrap_or("");
    let mut parts = spec.split(':');
    let path = parts.next().unwrap_or("");
    let first = parts.next();
    let start = match first {
        None | Some("") => None,
        Some(s) => match s.parse::<usize>() {
            Ok(n) => Some(n.max(1)),
            Err(_) => return (path, Part::Anchor(s.to_owned())),
        },
    };
    let end = parts.next().map(|s| s.parse::<usize>());
    let part = match (start, end) {
        (Some(start), Some(Ok(end))) => Part::Lines(Some(start), Some(end)),
        (Some(start), Some(Err(_))) => Part::Lines(Some(start), None),
        (Some(start), None) => Part::Lines(Some(start), Some(start)),
        (None, Some(Ok(end))) => Part::Lines(None, Some(end)),
        (None, _) => Part::Lines(None, None),
    };
    (path, part)
}

/// The lines of `text` an include shows its readers, markers left out, without the
/// final line ending (the directive's own line keeps its ending). `None` when the
/// anchor is not in the file.
fn shown_part(text: &str, part: &Part) -> Option<String> {
    let taken = match part {
        Part::Lines(None, None) => text.to_owned(),
        Part::Lines(first, last) => include::line_range(text, *first, *last),
        Part::Anchor(name) => include::anchored(text, name, ANCHOR_START, ANCHOR_END)?,
    };
    let mut shown = include::without_markers(&taken, ANCHOR_START, ANCHOR_END);
    while shown.ends_with('\n') || shown.ends_with('\r') {
        shown.pop();
    }
    Some(shown)
}

/// Markdown files `text` includes (for partial detection): targets ending in `.md`.
fn include_targets(text: &str) -> Vec<String> {
    find_links(text)
        .into_iter()
        .filter_map(|link| match link.kind {
            LinkKind::Include(args) | LinkKind::RustdocInclude(args) => {
                let (path, _) = parse_include(args);
                super::is_page_source(path, false).then(|| path.to_owned())
            }
            _ => None,
        })
        .collect()
}

/// `{{#title X}}`'s X, the first one.
fn title_directive(text: &str) -> Option<String> {
    find_links(text)
        .into_iter()
        .find_map(|link| match link.kind {
            LinkKind::Title(title) => Some(title.trim().to_owned()),
            _ => None,
        })
}

/// Whether `text` has an ATX or `===` heading outside code.
fn has_heading(text: &str) -> bool {
    let mut previous_text = false;
    for line in markup::lines(text) {
        if line.in_code {
            previous_text = false;
            continue;
        }
        let t = line.bare().trim_start();
        let hashes = t.bytes().take_while(|&b| b == b'#').count();
        if (1..=6).contains(&hashes) && (t.len() == hashes || t[hashes..].starts_with(' ')) {
            return true;
        }
        if previous_text && !t.is_empty() && t.bytes().all(|b| b == b'=') {
            return true;
        }
        previous_text = !t.is_empty();
    }
    false
}

/// `text` with mdBook's `{{#…}}` links replaced by what they stand for; included text
/// is expanded in turn (relative to its own folder).
fn expand_links(text: &str, cx: &mut RenderCx<'_>, page: &Page<'_>, depth: usize) -> String {
    let links = find_links(text);
    if links.is_empty() {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for link in links {
        out.push_str(&text[last..link.start]);
        last = link.end;
        // Lines are only known for the page's own text, not inside included files.
        let line = (depth == 0).then(|| page.line_of_body_offset(link.start));
        match link.kind {
            LinkKind::Escaped(literal) => out.push_str(literal),
            LinkKind::Title(_) => {}
            LinkKind::Include(args) | LinkKind::RustdocInclude(args) => {
                let (path, part) = parse_include(args);
                let target = Sources::join(&cx.current_dir(), path);
                let shown_path = cx.sources.shown(&target);
                let included = cx.include(line, target, |cx, content| {
                    match shown_part(&content, &part) {
                        Some(shown) => expand_links(&shown, cx, page, depth + 1),
                        None => {
                            let Part::Anchor(anchor) = &part else {
                                return String::new();
                            };
                            let (message, fix) = include::IncludeError::NoAnchor {
                                path: shown_path.clone(),
                                anchor: anchor.clone(),
                            }
                            .explain();
                            // mdBook includes nothing and carries on: a warning, not an error.
                            cx.warn(line, message, fix);
                            String::new()
                        }
                    }
                });
                out.push_str(&included.unwrap_or_default());
            }
            LinkKind::Playground(args) => {
                let mut words = args.split_whitespace();
                let path = words.next().unwrap_or("");
                let attributes: Vec<&str> = words.collect();
                let target = Sources::join(&cx.current_dir(), path);
                if let Some(content) = cx.include(line, target, |_, content| content) {
                    out.push_str(&playground_block(&content, &attributes));
                }
            }
        }
    }
    out.push_str(&text[last..]);
    out
}

/// What `{{#playground file attrs}}` stands for: the file in a rust fence.
fn playground_block(content: &str, attributes: &[&str]) -> String {
    let info = if attributes.is_empty() {
        "rust".to_owned()
    } else {
        format!("rust,{}", attributes.join(","))
    };
    let content = include::without_markers(content, ANCHOR_START, ANCHOR_END);
    let newline = if content.ends_with('\n') { "" } else { "\n" };
    format!("```{info}\n{content}{newline}```\n")
}

/// The Rust book's `<Listing …>` / `</Listing>` lines (its `trpl-listing` preprocessor)
/// as the text its readers see: `Filename: …` above, `Listing N: caption` below.
fn rewrite_listings(text: &str) -> String {
    if !text.contains("<Listing") {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut open: Vec<Listing> = Vec::new();
    for line in markup::lines(text) {
        let bare = line.bare().trim();
        if !line.in_code {
            if bare.starts_with("<Listing") && bare.ends_with('>') {
                let listing = Listing::parse(bare);
                if let Some(file_name) = &listing.file_name {
                    out.push_str(&format!("Filename: {file_name}\n"));
                }
                open.push(listing);
                continue;
            }
            if bare == "</Listing>" {
                if let Some(caption) = open.pop().and_then(|l| l.caption_line()) {
                    out.push_str(&caption);
                    out.push('\n');
                }
                continue;
            }
        }
        out.push_str(line.text);
    }
    out
}

#[derive(Debug, Default)]
struct Listing {
    number: Option<String>,
    caption: Option<String>,
    file_name: Option<String>,
}

impl Listing {
    fn parse(tag: &str) -> Listing {
        Listing {
            number: attribute(tag, "number"),
            caption: attribute(tag, "caption"),
            file_name: attribute(tag, "file-name"),
        }
    }

    fn caption_line(&self) -> Option<String> {
        match (&self.number, &self.caption) {
            (Some(number), Some(caption)) => Some(format!("Listing {number}: {caption}")),
            (Some(number), None) => Some(format!("Listing {number}")),
            (None, Some(caption)) => Some(caption.clone()),
            (None, None) => None,
        }
    }
}

/// The value of `name="…"` in an HTML-ish tag.
fn attribute(tag: &str, name: &str) -> Option<String> {
    let mut from = 0;
    while let Some(at) = tag[from..].find(name).map(|i| i + from) {
        let before_ok = at > 0 && tag.as_bytes()[at - 1].is_ascii_whitespace();
        let rest = &tag[at + name.len()..];
        if before_ok && let Some(rest) = rest.trim_start().strip_prefix('=') {
            let rest = rest.trim_start();
            let quote = rest.chars().next()?;
            if quote == '"' || quote == '\'' {
                let value = &rest[1..];
                let end = value.find(quote)?;
                return Some(value[..end].to_owned());
            }
        }
        from = at + name.len();
    }
    None
}

/// mdBook's heading id (`utils::normalize_id`) of a heading's text.
pub fn normalize_id(text: &str) -> String {
    text.trim()
        .trim_start_matches('#')
        .trim()
        .chars()
        .filter_map(|c| {
            if c.is_alphanumeric() || c == '_' || c == '-' {
                Some(c.to_ascii_lowercase())
            } else if c.is_whitespace() {
                Some('-')
            } else {
                None
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile::walk::SourceFile;
    use crate::site::{LocaleChoice, Site, detect, page};

    /// A book in a temporary repository: `files` under its root (`book/…`).
    fn book(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".git")).unwrap();
        for (path, text) in files {
            let path = dir.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        dir
    }

    fn site(docs: &Path) -> Site {
        let detection = detect(docs, None).unwrap();
        assert_eq!(detection.flavor, Flavor::MdBook);
        let mut report = Report::new(false);
        let site = Site::load(detection, Vec::new(), LocaleChoice::Default, &mut report);
        assert!(report.warnings().next().is_none());
        site
    }

    fn docs_files(docs: &Path) -> Vec<SourceFile> {
        let mut files: Vec<SourceFile> = walkdir::WalkDir::new(docs)
            .into_iter()
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_file())
            .map(|e| SourceFile {
                rel: docs_rel(docs, e.path()).unwrap(),
                bytes: std::fs::read(e.path()).unwrap(),
            })
            .collect();
        files.sort_by(|a, b| a.rel.cmp(&b.rel));
        files
    }

    /// The page at `rel` as served, and its problems.
    fn serve(docs: &Path, rel: &str) -> (String, Vec<page::Problem>) {
        let site = site(docs);
        let files = docs_files(docs);
        let sources = Sources::new(docs, &site.detection.boundary, &files);
        let text = std::fs::read_to_string(docs.join(rel)).unwrap();
        let page = Page {
            rel,
            text: &text,
            body_offset: 0,
            frontmatter: None,
        };
        page::serve(&site, &page, &sources)
    }

    const SUMMARY: &str = "# Summary\n\n[Intro](intro.md)\n\n- [Getting `Started`](ch01.md)\n  - [Nested [x]](sub/ch02.md)\n- [Draft]()\n\n---\n\n[Appendix](appendix.md)\n";
    const LISTING: &str = "use std::io;\n\n// ANCHOR: main\nfn main() {\n    // ANCHOR: print\n    println!(\"hi\");\n    // ANCHOR_END: print\n}\n// ANCHOR_END: main\n";

    #[test]
    fn summary_gives_chapters_in_order_without_drafts() {
        let chapters = summary_chapters(SUMMARY);
        let paths: Vec<&str> = chapters.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(paths, ["intro.md", "ch01.md", "sub/ch02.md", "appendix.md"]);
        assert_eq!(chapters[1].1, "Getting `Started`");
        assert_eq!(chapters[2].1, "Nested [x]");
    }

    #[test]
    fn includes_take_ranges_anchors_and_hide_markers() {
        let dir = book(&[
            ("book/src/SUMMARY.md", "- [A](a.md)\n"),
            (
                "book/src/a.md",
                "# A\n\n```rust\n{{#include ../listings/main.rs}}\n```\n\n```rust\n{{#include ../listings/main.rs:2:4}}\n```\n\n```rust\n{{#include ../listings/main.rs:print}}\n```\n\n```rust\n{{#rustdoc_include ../listings/main.rs:main}}\n```\n\n```rust\n{{#include ../listings/main.rs:5}}\n```\n",
            ),
            ("book/listings/main.rs", LISTING),
        ]);
        let (served, problems) = serve(&dir.path().join("book/src"), "a.md");
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(
            served,
            "# A\n\n```rust\nuse std::io;\n\nfn main() {\n    println!(\"hi\");\n}\n```\n\n```rust\n\nfn main() {\n```\n\n```rust\n    println!(\"hi\");\n```\n\n```rust\nfn main() {\n    println!(\"hi\");\n}\n```\n\n```rust\n\n```\n"
        );
    }

    #[test]
    fn range_forms_follow_mdbook() {
        assert_eq!(parse_include("f.rs"), ("f.rs", Part::Lines(None, None)));
        assert_eq!(
            parse_include("f.rs:3"),
            ("f.rs", Part::Lines(Some(3), Some(3)))
        );
        assert_eq!(
            parse_include("f.rs::3"),
            ("f.rs", Part::Lines(None, Some(3)))
        );
        assert_eq!(
            parse_include("f.rs:3:"),
            ("f.rs", Part::Lines(Some(3), None))
        );
        assert_eq!(
            parse_include("f.rs:2:5"),
            ("f.rs", Part::Lines(Some(2), Some(5)))
        );
        assert_eq!(
            parse_include("f.rs:here"),
            ("f.rs", Part::Anchor("here".into()))
        );
    }

    #[test]
    fn missing_files_cycles_and_anchors_are_reported() {
        let dir = book(&[
            ("src/SUMMARY.md", "- [A](a.md)\n- [B](b.md)\n- [C](c.md)\n"),
            ("src/a.md", "# A\n{{#include nope.rs}}\n"),
            ("src/b.md", "# B\n{{#include part.md}}\n"),
            ("src/part.md", "{{#include b.md}}\n"),
            ("src/c.md", "# C\n{{#include x.rs:nowhere}}\n"),
            ("src/x.rs", "fn x() {}\n"),
        ]);
        let docs = dir.path().join("src");
        let (served, problems) = serve(&docs, "a.md");
        assert_eq!(served, "# A\n\n");
        assert!(problems[0].error && problems[0].message.contains("nope.rs"));
        assert_eq!(problems[0].line, Some(2));
        let (_, problems) = serve(&docs, "b.md");
        assert!(problems[0].error && problems[0].message.contains("includes itself"));
        let (served, problems) = serve(&docs, "c.md");
        assert_eq!(served, "# C\n\n");
        assert!(!problems[0].error && problems[0].message.contains("nowhere"));
    }

    #[test]
    fn plain_pages_pass_byte_for_byte_and_escapes_stay_literal() {
        let plain = "# T\r\n\nSome *text*, a {{ brace }} and \\{{#include x.rs}}\n\n<Listing>\n";
        let dir = book(&[
            ("src/SUMMARY.md", "- [T](t.md)\n- [U](u.md)\n"),
            ("src/t.md", plain),
            ("src/u.md", "# U\n\nJust text.\n"),
        ]);
        let docs = dir.path().join("src");
        assert_eq!(serve(&docs, "u.md").0, "# U\n\nJust text.\n");
        let (served, _) = serve(&docs, "t.md");
        assert_eq!(
            served,
            "# T\r\n\nSome *text*, a {{ brace }} and {{#include x.rs}}\n\n"
        );
    }

    #[test]
    fn playground_title_and_listings() {
        let dir = book(&[
            ("src/SUMMARY.md", "- [Label](p.md)\n- [Q](q.md)\n"),
            (
                "src/p.md",
                "{{#title Custom}}\nText.\n\n{{#playground x.rs editable}}\n\n<Listing number=\"1-2\" file-name=\"src/main.rs\" caption=\"Some `code`\">\n\n```rust\nfn main() {}\n```\n\n</Listing>\n",
            ),
            ("src/q.md", "No heading here.\n"),
            ("src/x.rs", "fn x() {}\n"),
        ]);
        let docs = dir.path().join("src");
        let (served, problems) = serve(&docs, "p.md");
        assert!(problems.is_empty());
        assert_eq!(
            served,
            "\nText.\n\n```rust,editable\nfn x() {}\n```\n\n\nFilename: src/main.rs\n\n```rust\nfn main() {}\n```\n\nListing 1-2: Some `code`\n"
        );
        let site = site(&docs);
        let generator = site.generator.as_ref().unwrap();
        assert_eq!(generator.title("p.md", None).as_deref(), Some("Custom"));
        assert_eq!(generator.title("q.md", None).as_deref(), Some("Q"));
    }

    #[test]
    fn roles_follow_summary() {
        let dir = book(&[
            ("src/SUMMARY.md", "- [A](a.md)\n"),
            ("src/a.md", "# A\n{{#include part.md}}\n"),
            ("src/part.md", "part\n"),
            ("src/orphan.md", "# Orphan\n"),
        ]);
        let site = site(&dir.path().join("src"));
        assert_eq!(site.role("a.md", None), Role::Page);
        assert_eq!(site.role("SUMMARY.md", None), Role::Skip(Skip::SiteFile));
        assert_eq!(site.role("part.md", None), Role::Skip(Skip::Partial));
        assert!(matches!(
            site.role("orphan.md", None),
            Role::Skip(Skip::Unpublished(_))
        ));
        assert_eq!(
            site.settings().nav,
            [("a.md".to_owned(), Some("A".to_owned()))]
        );
    }

    #[test]
    fn book_toml_names_the_src_folder_and_base_path() {
        let dir = book(&[
            (
                "book.toml",
                "[book]\ntitle = \"x\"\nsrc = \"text\"\n\n[output.html]\nsite-url = \"/guide/\"\n",
            ),
            ("text/SUMMARY.md", "- [A](a.md)\n"),
            ("text/a.md", "# A\n"),
            ("README.md", "# Repo\n"),
        ]);
        let site = site(dir.path());
        assert_eq!(site.settings().base_path, "/guide/");
        assert_eq!(site.role("text/a.md", None), Role::Page);
        assert!(matches!(
            site.role("README.md", None),
            Role::Skip(Skip::Unpublished(_))
        ));
        assert_eq!(site.settings().nav[0].0, "text/a.md");
        assert_eq!(base_path("https://doc.rust-lang.org/book"), "/book/");
    }

    #[test]
    fn heading_ids_follow_mdbook() {
        let book = MdBook {
            settings: Settings::default(),
            src_prefix: String::new(),
            has_summary: false,
            chapters: BTreeMap::new(),
            included: BTreeSet::new(),
            titles: BTreeMap::new(),
        };
        assert_eq!(
            book.heading_id("Preventing Reference Cycles: Turning an Rc<T> into a Weak<T>"),
            "preventing-reference-cycles-turning-an-rct-into-a-weakt"
        );
        assert_eq!(
            book.heading_id("A Shortcut: the ? Operator"),
            "a-shortcut-the--operator"
        );
        assert_eq!(book.heading_id("macro_rules! Über"), "macro_rules-Über");
    }
}
