//! What the whole project defines that one page's rendering needs: reference targets
//! (`(label)=`, `{#id}` block attributes, `:name:` options, glossary terms, `{py:…}`
//! objects), each page's title and heading anchors, the toctrees, and which files are
//! `{include}`d.

use std::collections::{BTreeSet, HashMap};

use super::blocks::{self, Block};

/// Where a reference target leads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The page (docs-relative).
    pub rel: String,
    /// The heading anchor: the target's, or the section's it is in.
    pub anchor: Option<String>,
    /// What a link with no text of its own shows (the heading's or term's text).
    pub title: Option<String>,
}

/// One toctree entry: a document path as written (no extension needed), or a glob.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TocEntry {
    pub target: String,
    pub title: Option<String>,
    pub glob: bool,
}

#[derive(Debug, Default)]
pub struct Index {
    /// Lowercased label → target (Sphinx compares labels lowercased).
    pub labels: HashMap<String, Target>,
    /// Page → its first heading's text.
    pub titles: HashMap<String, String>,
    /// Page → its headings' anchors → their text.
    pub anchors: HashMap<String, HashMap<String, String>>,
    /// Page → its toctrees' entries, in order.
    pub toctrees: HashMap<String, Vec<TocEntry>>,
    /// Docs-relative files some page `{include}`s.
    pub included: BTreeSet<String>,
}

/// Directives whose bodies are not MyST (code, math, other languages, generated content).
pub fn body_is_myst(name: &str) -> bool {
    !matches!(
        name,
        "code-block"
            | "code"
            | "sourcecode"
            | "code-cell"
            | "literalinclude"
            | "math"
            | "raw"
            | "eval-rst"
            | "csv-table"
            | "mermaid"
            | "graphviz"
            | "py-script"
            | "myst-to-html"
            | "myst-config"
            | "docutils-cli-help"
            | "toctree"
            | "include"
    )
}

impl Index {
    pub fn target(&self, label: &str) -> Option<&Target> {
        self.labels.get(&label.trim().to_lowercase())
    }

    /// Read one page (docs-relative `rel`).
    pub fn scan_page(&mut self, rel: &str, text: &str) {
        let mut scan = PageScan {
            index: self,
            rel,
            pending: Vec::new(),
            glossary: false,
            section: None,
        };
        scan.text(text);
        scan.flush(None, None);
    }

    fn define(&mut self, label: &str, target: Target) {
        self.labels
            .entry(label.trim().to_lowercase())
            .or_insert(target);
    }
}

struct PageScan<'i> {
    index: &'i mut Index,
    rel: &'i str,
    /// Labels waiting for the block they name.
    pending: Vec<String>,
    /// After a `{.glossary}` attribute: definition-list terms are targets.
    glossary: bool,
    /// The anchor of the heading whose section the scan is in: targets that are not
    /// headings lead there, the nearest place a link can land.
    section: Option<String>,
}

impl PageScan<'_> {
    fn flush(&mut self, anchor: Option<&str>, title: Option<&str>) {
        for label in std::mem::take(&mut self.pending) {
            let target = Target {
                rel: self.rel.to_owned(),
                anchor: anchor.map(str::to_owned).or_else(|| self.section.clone()),
                title: title.map(str::to_owned),
            };
            self.index.define(&label, target);
        }
    }

    fn page_target(&self, title: Option<&str>) -> Target {
        Target {
            rel: self.rel.to_owned(),
            anchor: self.section.clone(),
            title: title.map(str::to_owned),
        }
    }

    fn text(&mut self, text: &str) {
        let blocks = blocks::parse(text);
        for (i, block) in blocks.iter().enumerate() {
            match block {
                Block::Line(line) => {
                    let next = blocks[i + 1..].iter().find_map(|b| match b {
                        Block::Line(l) if !l.trim().is_empty() => Some(*l),
                        Block::Line(_) => None,
                        _ => Some(""),
                    });
                    self.line(line, next.unwrap_or(""));
                }
                Block::Code(_) => self.flush(None, None),
                Block::Directive(directive) => self.directive(directive),
            }
        }
    }

    fn line(&mut self, line: &str, next: &str) {
        let t = line.trim();
        if t.is_empty() || t.starts_with('%') {
            return;
        }
        if let Some(label) = label_line(t) {
            self.pending.push(label.to_owned());
            return;
        }
        if let Some(attributes) = block_attributes(t) {
            for part in attributes.split_whitespace() {
                if let Some(id) = part.strip_prefix('#') {
                    self.pending.push(id.to_owned());
                }
                if part == ".glossary" {
                    self.glossary = true;
                }
            }
            return;
        }
        if let Some(heading) = heading_text(line) {
            let anchor = crate::compile::markdown::heading_slug(&heading);
            self.index
                .titles
                .entry(self.rel.to_owned())
                .or_insert_with(|| heading.clone());
            self.index
                .anchors
                .entry(self.rel.to_owned())
                .or_default()
                .entry(anchor.clone())
                .or_insert_with(|| heading.clone());
            self.flush(Some(&anchor), Some(&heading));
            self.section = Some(anchor);
            self.glossary = false;
            return;
        }
        for id in inline_ids(line) {
            let target = self.page_target(None);
            self.index.define(id, target);
        }
        if self.glossary
            && !line.starts_with([' ', '\t', ':'])
            && next.trim_start().starts_with(':')
        {
            let target = self.page_target(Some(t));
            self.index.define(t, target);
        }
        self.flush(None, None);
    }

    fn directive(&mut self, d: &blocks::Directive<'_>) {
        let caption = d
            .options
            .get("caption")
            .map(String::as_str)
            .or(Some(d.argument).filter(|a| !a.is_empty()));
        self.flush(None, caption);
        if let Some(name) = d.options.get("name") {
            let target = self.page_target(caption);
            self.index.define(name, target);
        }
        match d.name {
            "include" => {
                if let Some(rel) = docs_path(self.rel, d.argument) {
                    self.index.included.insert(rel);
                }
            }
            "toctree" => {
                let glob = d.options.contains_key("glob");
                let entries = toctree_entries(&d.body, glob);
                self.index
                    .toctrees
                    .entry(self.rel.to_owned())
                    .or_default()
                    .extend(entries);
            }
            "glossary" => {
                for term in d
                    .body
                    .lines()
                    .filter(|l| !l.trim().is_empty() && !l.starts_with([' ', '\t']))
                {
                    let target = self.page_target(Some(term.trim()));
                    self.index.define(term, target);
                }
            }
            "eval-rst" => {
                for line in d.body.lines() {
                    let t = line.trim();
                    let name = blocks::option_line(t)
                        .filter(|(k, _)| *k == "name")
                        .map(|(_, v)| v)
                        .or_else(|| t.strip_prefix(".. _").and_then(|l| l.strip_suffix(':')));
                    if let Some(name) = name {
                        let target = self.page_target(None);
                        self.index.define(name, target);
                    }
                }
            }
            "figure-md" | "autodoc2-object" => {
                let name = d.argument.split_whitespace().next().unwrap_or("");
                if !name.is_empty() {
                    let target = self.page_target(None);
                    self.index.define(name, target);
                }
                if d.name == "figure-md" {
                    self.text(&d.body);
                    self.flush(None, None);
                }
            }
            name if name.starts_with("py:") => {
                let object = d.argument.split('(').next().unwrap_or("").trim();
                if !object.is_empty() {
                    let target = self.page_target(Some(object));
                    self.index.define(object, target);
                }
            }
            name if body_is_myst(name) => {
                let glossary = std::mem::take(&mut self.glossary);
                self.text(&d.body);
                self.flush(None, None);
                self.glossary = glossary;
            }
            _ => {}
        }
    }
}

/// Ids that inline attributes give spans, links and images (`[text]{#id}`).
fn inline_ids(line: &str) -> Vec<&str> {
    let mut ids = Vec::new();
    let mut from = 0;
    while let Some(at) = line[from..].find("{#").map(|i| i + from) {
        let after_inline = at > 0 && matches!(line.as_bytes()[at - 1], b']' | b')' | b'`');
        let rest = &line[at + 2..];
        let end = rest.find(['}', ' ']).unwrap_or(rest.len());
        if after_inline && end > 0 {
            ids.push(&rest[..end]);
        }
        from = at + 2;
    }
    ids
}

/// `(label)=` → `label`.
pub fn label_line(t: &str) -> Option<&str> {
    let label = t.strip_prefix('(')?.strip_suffix(")=")?;
    (!label.is_empty() && !label.contains(['(', ')'])).then_some(label)
}

/// A line that is only block attributes (`{#id .class key="v"}`): its inside.
pub fn block_attributes(t: &str) -> Option<&str> {
    let inner = t.strip_prefix('{')?.strip_suffix('}')?;
    let first = inner.trim_start().chars().next()?;
    (matches!(first, '#' | '.') || inner.contains('=')).then_some(inner)
}

/// The plain text of an ATX heading line (inline markup reduced to its text).
pub fn heading_text(line: &str) -> Option<String> {
    let t = line.trim_end_matches(['\n', '\r']);
    let indent = t.len() - t.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let t = &t[indent..];
    let hashes = t.bytes().take_while(|&b| b == b'#').count();
    if !(1..=6).contains(&hashes) || !(t.len() == hashes || t[hashes..].starts_with([' ', '\t'])) {
        return None;
    }
    let mut text = String::new();
    for event in pulldown_cmark::Parser::new(t) {
        match event {
            pulldown_cmark::Event::Text(s) | pulldown_cmark::Event::Code(s) => text.push_str(&s),
            _ => {}
        }
    }
    Some(text.trim().to_owned())
}

/// A toctree's entries (`path`, `Title <path>`; `self` and URLs left out).
pub fn toctree_entries(body: &str, glob: bool) -> Vec<TocEntry> {
    body.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with(':'))
        .filter_map(|line| {
            let (title, target) = explicit_title(line);
            if target == "self" || target.contains("://") {
                return None;
            }
            Some(TocEntry {
                target: target.to_owned(),
                title: title.map(str::to_owned),
                glob: glob && target.contains(['*', '?', '[']),
            })
        })
        .collect()
}

/// `Title <target>` → (Some(`Title`), `target`); `target` → (None, `target`).
pub fn explicit_title(text: &str) -> (Option<&str>, &str) {
    let t = text.trim();
    if let Some(inner) = t.strip_suffix('>')
        && let Some(open) = inner.rfind('<')
    {
        let title = inner[..open].trim();
        let target = inner[open + 1..].trim();
        if !title.is_empty() && !target.is_empty() {
            return (Some(title), target);
        }
    }
    (None, t)
}

/// A path as Sphinx reads it in a document at `from_rel`: relative to the document's
/// folder, or to the docs root when it starts with `/`. `None` when it leaves the docs root.
pub fn docs_path(from_rel: &str, path: &str) -> Option<String> {
    let path = path.trim();
    let (base, path) = match path.strip_prefix('/') {
        Some(rest) => ("", rest),
        None => (from_rel.rsplit_once('/').map_or("", |(d, _)| d), path),
    };
    crate::site::links::join(base, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_titles_and_toctrees() {
        let mut index = Index::default();
        index.scan_page(
            "guide/a.md",
            "(top)=\n# Guide `A`\n\n(para)=\nText.\n\n{#attr-id}\n## Sub\n\n```{figure} x.png\n:name: fig\n```\n\n```{toctree}\n:glob:\nb\nOther <../c.md>\nsub/*\nself\n```\n\n```{include} part.md\n```\n\n{.glossary}\nMy Term\n: Its meaning\n",
        );
        let top = index.target("TOP").unwrap();
        assert_eq!(top.anchor.as_deref(), Some("guide-a"));
        assert_eq!(top.title.as_deref(), Some("Guide A"));
        assert_eq!(
            index.target("para").unwrap().anchor.as_deref(),
            Some("guide-a")
        );
        assert_eq!(
            index.target("attr-id").unwrap().anchor.as_deref(),
            Some("sub")
        );
        assert_eq!(index.target("fig").unwrap().rel, "guide/a.md");
        assert!(index.target("my term").is_some());
        assert_eq!(index.titles["guide/a.md"], "Guide A");
        let entries: Vec<&str> = index.toctrees["guide/a.md"]
            .iter()
            .map(|e| e.target.as_str())
            .collect();
        assert_eq!(entries, ["b", "../c.md", "sub/*"]);
        assert!(index.toctrees["guide/a.md"][2].glob);
        assert!(index.included.contains("guide/part.md"));
        assert_eq!(docs_path("a/b.md", "/x/y"), Some("x/y".into()));
        assert_eq!(docs_path("a.md", "../x"), None);
    }
}
