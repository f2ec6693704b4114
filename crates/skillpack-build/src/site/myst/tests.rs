use std::path::Path;

use super::*;
use crate::compile::walk::SourceFile;
use crate::site::{LocaleChoice, Site, Sources, detect, page};

const CONF: &str = r#"
extensions = ["myst_parser"]
exclude_patterns = ["_build", "drafts"]
myst_substitutions = {"project": "Widget", "link": "[the guide](#guide-label)"}
myst_url_schemes = {"http": None, "gh-pr": {"url": "https://github.com/o/r/pull/{{path}}", "title": "PR #{{path}}"}}
intersphinx_mapping = {"sphinx": ("https://www.sphinx-doc.org/en/master", None)}
"#;

/// A Sphinx project in a temporary repository: `docs/conf.py` and `files` under the
/// repository root.
fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".git")).unwrap();
    let mut all = vec![("docs/conf.py", CONF)];
    all.extend_from_slice(files);
    for (path, text) in all {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

fn site(docs: &Path) -> Site {
    let detection = detect(docs, None).unwrap();
    assert_eq!(detection.flavor, Flavor::Myst);
    let mut report = Report::new(false);
    Site::load(detection, Vec::new(), LocaleChoice::Default, &mut report)
}

fn serve(docs: &Path, rel: &str) -> (String, Vec<page::Problem>) {
    let site = site(docs);
    let mut files: Vec<SourceFile> = walkdir::WalkDir::new(docs)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| SourceFile {
            rel: e
                .path()
                .strip_prefix(docs)
                .unwrap()
                .to_string_lossy()
                .into_owned(),
            bytes: std::fs::read(e.path()).unwrap(),
        })
        .collect();
    files.sort_by(|a, b| a.rel.cmp(&b.rel));
    let sources = Sources::new(docs, &site.detection.boundary, &files);
    let text = std::fs::read_to_string(docs.join(rel)).unwrap();
    let fm = crate::compile::frontmatter::parse(&text).ok().flatten();
    let page = Page {
        rel,
        text: &text,
        body_offset: crate::compile::frontmatter::body_offset(&text),
        frontmatter: fm.as_ref().map(|f| &f.fields),
    };
    page::serve(&site, &page, &sources)
}

/// The body one page serves, from a project with just that page.
fn render_one(body: &str) -> String {
    let dir = project(&[("docs/index.md", body)]);
    let (served, problems) = serve(&dir.path().join("docs"), "index.md");
    assert!(problems.is_empty(), "{problems:?}");
    served
}

#[test]
fn plain_markdown_passes_byte_for_byte() {
    let plain = "# Title\r\n\nSome *text* with [a link](https://x.y) and `{note}` in code, {braces}.\n\n```{note}\n";
    let plain = &plain[..plain.len() - "```{note}\n".len()];
    assert_eq!(render_one(plain), plain);
    let code = "```python\n(label)=\n% not a comment\n{{ project }}\n```\n";
    assert_eq!(render_one(code), code);
}

#[test]
fn admonitions_become_labelled_blockquotes() {
    assert_eq!(
        render_one("```{note} First line.\nMore.\n```\n"),
        "> **Note**\n>\n> First line.\n> More.\n"
    );
    assert_eq!(
        render_one("::::{admonition} Heads up\n:class: tip\n\n:::{warning}\nInner\n:::\n::::\n"),
        "> **Heads up**\n>\n> > **Warning**\n> >\n> > Inner\n"
    );
    assert_eq!(
        render_one("```{versionadded} 1.2\nNew thing.\n```\n"),
        "*Added in version 1.2:* New thing.\n"
    );
    assert_eq!(
        render_one("- item\n\n  ```{tip}\n  Indented\n  ```\n"),
        "- item\n\n  > **Tip**\n  >\n  > Indented\n"
    );
}

#[test]
fn markup_lines_go_and_tabs_are_labelled() {
    assert_eq!(
        render_one(
            "(intro)=\n# Intro\n% a comment\n+++\n{#para .c}\nText `x`{l=python}, [a span]{.bg} and <https://x.y>{.c}.\n"
        ),
        "# Intro\nText `x`, a span and <https://x.y>.\n"
    );
    assert_eq!(
        render_one("::::{tab-set}\n:::{tab-item} Linux\nRun it.\n:::\n::::\n"),
        "**Linux**\n\nRun it.\n"
    );
    assert_eq!(
        render_one("```{eval-rst}\n.. note:: rst\n```\n"),
        "```rst\n.. note:: rst\n```\n"
    );
    assert_eq!(
        render_one("````{myst-example}\n*hi*\n````\n"),
        "```myst\n*hi*\n```\n\n*hi*\n"
    );
}

#[test]
fn list_tables_become_tables() {
    assert_eq!(
        render_one(
            ":::{list-table} Caption\n:header-rows: 1\n\n*   - A\n    - B\n*   - 1\n    - two\n lines\n:::\n"
        ),
        "**Caption**\n\n| A | B |\n| --- | --- |\n| 1 | two lines |\n"
    );
    let nested = "```{list-table}\n* - a\n  - ```py\n    x\n    ```\n```\n";
    assert_eq!(render_one(nested), "* - a\n  - ```py\n    x\n    ```\n");
}

#[test]
fn includes_slice_and_rewrite_links() {
    let dir = project(&[
        (
            "CHANGELOG.md",
            "# Changes\n\nSee [x](docs/guide.md) and [y](other.md).\n<!-- end -->\nhidden\n",
        ),
        (
            "docs/index.md",
            "```{include} ../CHANGELOG.md\n:relative-docs: docs/\n:end-before: <!-- end -->\n:heading-offset: 1\n```\n",
        ),
        ("docs/guide.md", "# Guide\n"),
        (
            "docs/code.md",
            "```{literalinclude} snippet.py\n:lines: 2-3\n:caption: Example\n```\n\n```{code-block} toml\na = 1\n```\n",
        ),
        ("docs/snippet.py", "import x\ndef f():\n    pass\n# end\n"),
        ("docs/missing.md", "```{include} nope.md\n```\n"),
        ("docs/a.md", "```{include} b.md\n```\n"),
        ("docs/b.md", "```{include} a.md\n```\n"),
    ]);
    let docs = dir.path().join("docs");
    let (served, problems) = serve(&docs, "index.md");
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(
        served,
        "## Changes\n\nSee [x](guide.md) and [y](other.md).\n"
    );
    let (served, _) = serve(&docs, "code.md");
    assert_eq!(
        served,
        "**Example**\n\n```python\ndef f():\n    pass\n```\n\n```toml\na = 1\n```\n"
    );
    let (_, problems) = serve(&docs, "missing.md");
    assert!(problems[0].error && problems[0].message.contains("nope.md"));
    assert_eq!(problems[0].line, Some(1));
    let (_, problems) = serve(&docs, "a.md");
    assert!(problems[0].error && problems[0].message.contains("includes itself"));
}

#[test]
fn labels_roles_and_substitutions_resolve() {
    let dir = project(&[
        (
            "docs/index.md",
            "# Home\n\n```{toctree}\n:hidden:\nguide\n```\n",
        ),
        (
            "docs/guide.md",
            "(guide-label)=\n# The Guide\n\n## Part `two`\n\n{.glossary}\nWidget\n: A thing.\n",
        ),
        (
            "docs/use.md",
            "---\nmyst:\n  substitutions:\n    local: Local\n---\n# Use\n\nSee [](#guide-label), [text](guide-label), {ref}`guide-label`, {ref}`Mine <guide-label>`.\nRead {doc}`guide`, the {term}`Widget`, {{ project }} and {{ link }}, {{ local }}.\nIn <gh-pr:12> and <project:#guide-label>; {ref}`sphinx:rst-roles`; [](guide.md#part-two).\n\n[def]: guide-label\n",
        ),
        ("docs/bad.md", "# Bad\n\n{ref}`nowhere`\n"),
    ]);
    let docs = dir.path().join("docs");
    let (served, problems) = serve(&docs, "use.md");
    assert!(problems.is_empty(), "{problems:?}");
    let body = &served[served.find("# Use").unwrap()..];
    assert_eq!(
        body,
        "# Use\n\nSee [The Guide](guide.md#the-guide), [text](guide.md#the-guide), [The Guide](guide.md#the-guide), [Mine](guide.md#the-guide).\nRead [The Guide](guide.md), the Widget, Widget and [the guide](guide.md#the-guide), Local.\nIn [PR #12](https://github.com/o/r/pull/12) and [The Guide](guide.md#the-guide); sphinx:rst-roles; [Part two](guide.md#part-two).\n\n[def]: guide.md#the-guide\n"
    );
    let (served, problems) = serve(&docs, "bad.md");
    assert_eq!(served, "# Bad\n\nnowhere\n");
    assert!(!problems[0].error && problems[0].message.contains("nowhere"));
}

#[test]
fn toctrees_give_nav_and_roles() {
    let dir = project(&[
        (
            "docs/index.md",
            "# Home\n\n```{toctree}\n:hidden:\nguide\nsub/index\n```\n\n```{include} part.md\n```\n",
        ),
        (
            "docs/guide.md",
            "# Guide\n\n```{toctree}\n:caption: More\nExtra title <extra>\n```\n",
        ),
        ("docs/extra.md", "# Extra\n"),
        ("docs/sub/index.md", "# Sub\n"),
        ("docs/orphan.md", "# Orphan\n"),
        ("docs/part.md", "included\n"),
        ("docs/drafts/wip.md", "# WIP\n"),
    ]);
    let docs = dir.path().join("docs");
    let site = site(&docs);
    let nav: Vec<(String, Option<String>)> = site.settings().nav;
    let paths: Vec<&str> = nav.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(paths, ["index.md", "guide.md", "extra.md", "sub/index.md"]);
    assert_eq!(nav[2].1.as_deref(), Some("Extra title"));
    assert_eq!(site.role("orphan.md", None), Role::Page);
    assert_eq!(site.role("part.md", None), Role::Skip(Skip::Partial));
    assert!(matches!(
        site.role("drafts/wip.md", None),
        Role::Skip(Skip::Excluded(_))
    ));
    let (served, _) = serve(&docs, "index.md");
    assert_eq!(served, "# Home\n\n\nincluded\n");
    let (served, _) = serve(&docs, "guide.md");
    assert_eq!(served, "# Guide\n\n**More**\n\n- [Extra title](extra.md)\n");
}

#[test]
fn self_referencing_substitutions_stop() {
    let body =
        "---\nsubstitutions:\n  loop: \"a {{ loop }}\\nb\"\n---\nx {{ loop }} y\n\n{{ loop }}\n";
    let served = render_one(body);
    assert!(served.contains("x a"), "{served}");
}

#[test]
fn heading_ids_follow_myst() {
    let dir = project(&[("docs/index.md", "# X\n")]);
    let site = site(&dir.path().join("docs"));
    let generator = site.generator.as_ref().unwrap();
    assert_eq!(generator.heading_id("🔎 Overview"), "-overview");
    assert_eq!(generator.heading_id("C++ & Rust_2"), "c--rust_2");
}
