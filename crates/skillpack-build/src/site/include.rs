//! Reading what pages include: files of the docs root from memory, files beside it (a
//! book's `listings/`, a repository's `CHANGELOG.md`) from disk at build time, never
//! anything outside the repository; a depth limit, and a clear error for a cycle or a
//! missing file.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};

use crate::compile::walk::SourceFile;

/// Deepest chain of includes followed (a page including a file including a file…).
pub const MAX_INCLUDE_DEPTH: usize = 8;

/// Why an include could not be expanded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IncludeError {
    Missing(String),
    Outside(String),
    Cycle(Vec<String>),
    TooDeep(String),
    NotText(String),
    NoAnchor { path: String, anchor: String },
}

impl IncludeError {
    /// What is wrong, and how to fix it.
    pub fn explain(&self) -> (String, String) {
        match self {
            IncludeError::Missing(path) => (
                format!("includes `{path}`, which does not exist"),
                "fix the path (it is relative to the including file unless the generator says otherwise) or add the file".into(),
            ),
            IncludeError::Outside(path) => (
                format!("includes `{path}`, which is outside the repository"),
                "include only files inside the repository that holds the docs".into(),
            ),
            IncludeError::Cycle(chain) => (
                format!("includes itself: {}", chain.join(" → ")),
                "break the cycle: one of these files must not include the other".into(),
            ),
            IncludeError::TooDeep(path) => (
                format!("nests includes more than {MAX_INCLUDE_DEPTH} deep (at `{path}`)"),
                "flatten the includes".into(),
            ),
            IncludeError::NotText(path) => (
                format!("includes `{path}`, which is not UTF-8 text"),
                "include only text files".into(),
            ),
            IncludeError::NoAnchor { path, anchor } => (
                format!("includes the anchor `{anchor}` of `{path}`, which has no such anchor"),
                "fix the anchor name, or add `ANCHOR: name` / `ANCHOR_END: name` lines (or the generator's markers) around the part".into(),
            ),
        }
    }
}

/// The files a site's pages may read: the docs root's in memory, the rest of the
/// repository on disk.
pub struct Sources<'a> {
    docs_dir: PathBuf,
    boundary: PathBuf,
    files: &'a [SourceFile],
    /// Files read from outside the docs root: the build reruns when they change.
    read_outside: RefCell<BTreeSet<PathBuf>>,
}

impl<'a> Sources<'a> {
    /// `files` sorted by `rel` (as `walk` returns them).
    pub fn new(docs_dir: &Path, boundary: &Path, files: &'a [SourceFile]) -> Sources<'a> {
        let canon = |p: &Path| p.canonicalize().unwrap_or_else(|_| normalize(p));
        Sources {
            docs_dir: canon(docs_dir),
            boundary: canon(boundary),
            files,
            read_outside: RefCell::new(BTreeSet::new()),
        }
    }

    pub fn docs_dir(&self) -> &Path {
        &self.docs_dir
    }

    /// A file of the docs root by its relative path.
    pub fn doc(&self, rel: &str) -> Option<&'a SourceFile> {
        self.files
            .binary_search_by(|f| f.rel.as_str().cmp(rel))
            .ok()
            .map(|i| &self.files[i])
    }

    /// Every file of the docs root.
    pub fn docs(&self) -> &'a [SourceFile] {
        self.files
    }

    /// The absolute path of a docs-relative path.
    pub fn abs(&self, rel: &str) -> PathBuf {
        self.docs_dir.join(rel)
    }

    /// The docs-relative path of an absolute one, when it is under the docs root.
    pub fn rel(&self, abs: &Path) -> Option<String> {
        let rest = abs.strip_prefix(&self.docs_dir).ok()?;
        let parts: Option<Vec<&str>> = rest.components().map(|c| c.as_os_str().to_str()).collect();
        Some(parts?.join("/"))
    }

    /// How a path is shown in diagnostics: docs-relative when it can be.
    pub fn shown(&self, abs: &Path) -> String {
        self.rel(abs).unwrap_or_else(|| {
            abs.strip_prefix(&self.boundary)
                .map(|p| p.display().to_string())
                .unwrap_or_else(|_| abs.display().to_string())
        })
    }

    /// `target` relative to the folder `base` (absolute), normalized.
    pub fn join(base: &Path, target: &str) -> PathBuf {
        normalize(&base.join(target))
    }

    /// The text of the file at `abs`: from memory when it is under the docs root, else
    /// from disk when it is inside the repository.
    pub fn read(&self, abs: &Path) -> Result<String, IncludeError> {
        let abs = normalize(abs);
        let shown = self.shown(&abs);
        // Hidden files (`.vitepress/…`) are not walked; they are read from disk below.
        if let Some(rel) = self.rel(&abs)
            && let Some(file) = self.doc(&rel)
        {
            return String::from_utf8(file.bytes.clone()).map_err(|_| IncludeError::NotText(shown));
        }
        if !abs.starts_with(&self.boundary) {
            return Err(IncludeError::Outside(shown));
        }
        match std::fs::read(&abs) {
            Ok(bytes) => {
                self.read_outside.borrow_mut().insert(abs.clone());
                String::from_utf8(bytes).map_err(|_| IncludeError::NotText(shown))
            }
            Err(_) => Err(IncludeError::Missing(shown)),
        }
    }

    /// Whether a file exists at `abs` (in memory or, inside the repository, on disk).
    pub fn exists(&self, abs: &Path) -> bool {
        let abs = normalize(abs);
        if let Some(rel) = self.rel(&abs)
            && self.doc(&rel).is_some()
        {
            return true;
        }
        abs.starts_with(&self.boundary) && abs.is_file()
    }

    /// Files read from disk outside the docs root so far.
    pub fn read_outside(&self) -> Vec<PathBuf> {
        self.read_outside.borrow().iter().cloned().collect()
    }
}

/// The chain of files being expanded, to refuse cycles and runaway depth.
#[derive(Debug, Default, Clone)]
pub struct IncludeStack {
    chain: Vec<PathBuf>,
}

impl IncludeStack {
    pub fn new(page: PathBuf) -> IncludeStack {
        IncludeStack { chain: vec![page] }
    }

    /// Enter `path`; an error when it is already being expanded or the chain is too deep.
    pub fn enter(&mut self, path: &Path, sources: &Sources<'_>) -> Result<(), IncludeError> {
        if self.chain.iter().any(|p| p == path) {
            let mut shown: Vec<String> = self.chain.iter().map(|p| sources.shown(p)).collect();
            shown.push(sources.shown(path));
            return Err(IncludeError::Cycle(shown));
        }
        if self.chain.len() > MAX_INCLUDE_DEPTH {
            return Err(IncludeError::TooDeep(sources.shown(path)));
        }
        self.chain.push(path.to_path_buf());
        Ok(())
    }

    pub fn leave(&mut self) {
        self.chain.pop();
    }

    /// The file being expanded now (the page itself at the bottom).
    pub fn current(&self) -> &Path {
        self.chain
            .last()
            .map(PathBuf::as_path)
            .unwrap_or(Path::new(""))
    }
}

/// `.` and `..` resolved without touching the filesystem.
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// Lines `first..=last` (1-based, either open) of `text`, as mdBook's `{{#include f:2:5}}`
/// and Sphinx's `:lines:` take them.
pub fn line_range(text: &str, first: Option<usize>, last: Option<usize>) -> String {
    let first = first.unwrap_or(1).max(1);
    let mut out = String::new();
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let n = i + 1;
        if n < first {
            continue;
        }
        if last.is_some_and(|last| n > last) {
            break;
        }
        out.push_str(line);
    }
    out
}

/// The part of `text` between `ANCHOR: name` and `ANCHOR_END: name` lines (mdBook's
/// anchors; other generators' markers are passed as `start`/`end` words), the marker lines
/// themselves and other anchors' markers left out. `None` when the anchor is not there.
pub fn anchored(text: &str, name: &str, start: &str, end: &str) -> Option<String> {
    let mut out = String::new();
    let mut inside = false;
    let mut found = false;
    for line in text.split_inclusive('\n') {
        if let Some(marked) = marker(line, start) {
            if marked == name {
                inside = true;
                found = true;
            }
            continue;
        }
        if let Some(marked) = marker(line, end) {
            if marked == name {
                inside = false;
            }
            continue;
        }
        if inside {
            out.push_str(line);
        }
    }
    found.then_some(out)
}

/// The anchor a marker line names (`// ANCHOR: here` → `here`).
fn marker<'l>(line: &'l str, word: &str) -> Option<&'l str> {
    let at = line.find(word)?;
    let rest = line[at + word.len()..].trim_start();
    let rest = rest.strip_prefix(':')?.trim();
    let name = rest
        .split(|c: char| c.is_whitespace() || c == '*' || c == '-' && rest.ends_with("-->"))
        .next()
        .unwrap_or("");
    Some(name.trim_end_matches("-->"))
}

/// `text` without any anchor marker lines (what a whole-file include shows).
pub fn without_markers(text: &str, start: &str, end: &str) -> String {
    text.split_inclusive('\n')
        .filter(|line| marker(line, start).is_none() && marker(line, end).is_none())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_and_anchors() {
        let text = "a\nb\nc\nd\n";
        assert_eq!(line_range(text, Some(2), Some(3)), "b\nc\n");
        assert_eq!(line_range(text, Some(3), None), "c\nd\n");
        assert_eq!(line_range(text, None, Some(1)), "a\n");
        let code = "fn main() {\n    // ANCHOR: here\n    let x = 1;\n    // ANCHOR_END: here\n}\n";
        assert_eq!(
            anchored(code, "here", "ANCHOR", "ANCHOR_END").as_deref(),
            Some("    let x = 1;\n")
        );
        assert_eq!(anchored(code, "there", "ANCHOR", "ANCHOR_END"), None);
        assert_eq!(
            without_markers(code, "ANCHOR", "ANCHOR_END"),
            "fn main() {\n    let x = 1;\n}\n"
        );
    }

    #[test]
    fn cycles_and_escapes_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("docs")).unwrap();
        let files = vec![SourceFile {
            rel: "a.md".into(),
            bytes: b"x".to_vec(),
        }];
        let sources = Sources::new(&dir.path().join("docs"), dir.path(), &files);
        let a = sources.abs("a.md");
        assert_eq!(sources.read(&a).unwrap(), "x");
        let mut stack = IncludeStack::new(a.clone());
        let error = stack.enter(&a, &sources).unwrap_err();
        assert!(matches!(error, IncludeError::Cycle(ref c) if c == &["a.md", "a.md"]));
        let outside = Sources::join(sources.docs_dir(), "../../etc/passwd");
        assert!(matches!(
            sources.read(&outside),
            Err(IncludeError::Outside(_))
        ));
        assert!(matches!(
            sources.read(&sources.abs("nope.md")),
            Err(IncludeError::Missing(_))
        ));
    }
}
