//! Docs trees of seven site generators and the Rust book (mdBook), as they are in
//! `../shared/corpora`: each compiles in-process with no error, is read as its generator
//! reads it, serves every page the generator publishes and nothing else, leaves no include
//! directive and at most 1% of lines of generator markup outside code, and keeps only the
//! link warnings its generator would also fail on (docs/authoring/generators.md).

use crate::common;

use std::collections::BTreeMap;
use std::path::Path;

use skillpack_server::compile::{self, Config, Output};
use skillpack_server::model::DocKind;
use skillpack_server::site::markup;

/// One tree and what its generator publishes.
struct Tree {
    /// Docs root under `../shared/corpora`.
    docs: &'static str,
    flavor: &'static str,
    /// Pages the generator publishes from it (default locale).
    pages: usize,
    /// Docs-relative paths that must not be pages (partials, translations, drafts…).
    not_pages: &'static [&'static str],
    /// Link warnings left: links the generator itself cannot resolve either.
    link_warnings: usize,
}

const TREES: &[Tree] = &[
    Tree {
        docs: "generators/mkdocs-material/docs",
        flavor: "mkdocs",
        pages: 96,
        not_pages: &[],
        // 28 links to screenshots and `schema.json` the corpus did not copy; 7 anchors
        // broken on the live site too; 5 footnote, tab and code-block ids.
        link_warnings: 40,
    },
    Tree {
        docs: "generators/docusaurus-redux-toolkit/docs",
        flavor: "docusaurus",
        pages: 69,
        not_pages: &[],
        link_warnings: 0,
    },
    Tree {
        docs: "generators/hugo-docs/content/en",
        flavor: "hugo",
        pages: 789,
        not_pages: &["_common/", "quick-reference/glossary/action.md"],
        // `_common/` snippets and the glossary's term pages reach pages through
        // `include` and `glossary-term`.
        link_warnings: 0,
    },
    Tree {
        docs: "generators/vitepress-vite/docs",
        flavor: "vitepress",
        pages: 57,
        not_pages: &[],
        // Links from the Vite 5 and 6 blog posts to migration-guide sections the current
        // guide no longer has (VitePress does not check anchors; they open at the top).
        link_warnings: 18,
    },
    Tree {
        docs: "generators/jekyll/docs",
        flavor: "jekyll",
        pages: 206,
        not_pages: &["readme.md"],
        // Two HTML pages the corpus did not copy (`/`, `/showcase/`), a link broken on the
        // site too, and anchors that are ids of table rows.
        link_warnings: 6,
    },
    Tree {
        docs: "generators/starlight/docs/src/content/docs",
        flavor: "starlight",
        pages: 36,
        not_pages: &["de/", "zh-cn/", "fa/", "404.md"],
        link_warnings: 0,
    },
    Tree {
        docs: "generators/myst/docs",
        flavor: "myst",
        pages: 26,
        // The include source `faq/snippets/include-md.md` is read into the FAQ page.
        not_pages: &["faq/snippets/"],
        // `[my-external-link](my-external-link){.external}` (a demo link, broken on the
        // site too) and two anchors Sphinx resolves only through intersphinx to its own
        // docs.
        link_warnings: 3,
    },
    Tree {
        docs: "rust-book/src",
        flavor: "mdbook",
        // Every chapter SUMMARY.md lists; SUMMARY.md itself is the book's table of contents.
        pages: 111,
        not_pages: &["SUMMARY.md"],
        // Links to `../std/…`, `../reference/…`, `../nomicon/…`: sibling books on the same
        // site, outside this one.
        link_warnings: 33,
    },
];

fn compile_tree(docs: &Path) -> Output {
    let skills = tempfile::tempdir().unwrap();
    let config = Config::for_dirs(skills.path(), docs);
    compile::compile(&config).unwrap_or_else(|report| {
        panic!(
            "{} does not compile:\n{}",
            docs.display(),
            report
                .errors()
                .map(|e| e.to_string())
                .collect::<Vec<_>>()
                .join("\n")
        )
    })
}

/// Served lines of every doc, and the lines of generator markup and includes left.
fn leftovers(output: &Output) -> (usize, Vec<String>, Vec<String>) {
    let (mut total, mut markup_left, mut includes) = (0, Vec::new(), Vec::new());
    for document in &output.catalog.documents {
        if document.kind != DocKind::Doc {
            continue;
        }
        let text = String::from_utf8(output.read(document.content).unwrap()).unwrap();
        let (lines, left) = markup::leftovers(&text);
        total += lines;
        for line in left {
            let shown = format!("{}:{}: {}", document.path, line.line, line.text);
            if line.include {
                includes.push(shown);
            } else {
                markup_left.push(shown);
            }
        }
    }
    (total, markup_left, includes)
}

#[test]
fn generator_trees_serve_what_their_readers_see() {
    let Some(corpora) = common::corpora() else {
        return;
    };
    if !corpora.join("generators").is_dir() {
        eprintln!("SKIP: ../shared/corpora/generators is absent");
        return;
    }
    let mut failures: Vec<String> = Vec::new();
    for tree in TREES {
        let output = compile_tree(&corpora.join(tree.docs));
        let site = &output.site;
        let name = tree.docs;
        if site.flavor != tree.flavor {
            failures.push(format!(
                "{name}: read as {} ({}), not {}",
                site.flavor, site.why, tree.flavor
            ));
        }
        if site.pages.len() != tree.pages {
            failures.push(format!(
                "{name}: {} pages served, {} published",
                site.pages.len(),
                tree.pages
            ));
        }
        for prefix in tree.not_pages {
            if let Some(page) = site.pages.iter().find(|p| p.starts_with(prefix)) {
                failures.push(format!("{name}: {page} is served, but it is not a page"));
            }
        }
        let (total, markup_left, includes) = leftovers(&output);
        if markup_left.len() * 100 > total {
            failures.push(format!(
                "{name}: generator markup left on {} of {total} lines, e.g.\n  {}",
                markup_left.len(),
                markup_left
                    .iter()
                    .take(5)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join("\n  ")
            ));
        }
        if !includes.is_empty() {
            failures.push(format!(
                "{name}: {} include directives left, e.g.\n  {}",
                includes.len(),
                includes
                    .iter()
                    .take(5)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join("\n  ")
            ));
        }
        let mut kinds: BTreeMap<&str, Vec<String>> = BTreeMap::new();
        for warning in output.report.warnings() {
            let kind = if warning.message.starts_with("link `") {
                "link"
            } else {
                "other"
            };
            kinds.entry(kind).or_default().push(warning.to_string());
        }
        let links = kinds.get("link").map_or(0, Vec::len);
        if links > tree.link_warnings {
            failures.push(format!(
                "{name}: {links} link warnings (at most {} expected), e.g.\n  {}",
                tree.link_warnings,
                kinds["link"]
                    .iter()
                    .take(5)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join("\n  ")
            ));
        }
        eprintln!(
            "{name}: {} ({}): {} pages, {} not pages; {} of {total} lines markup, {} includes; warnings: {:?}",
            site.flavor,
            site.why,
            site.pages.len(),
            site.skipped.len(),
            markup_left.len(),
            includes.len(),
            kinds.iter().map(|(k, v)| (*k, v.len())).collect::<Vec<_>>()
        );
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}
