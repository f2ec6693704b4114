use std::path::Path;

use super::*;
use crate::compile::walk::SourceFile;
use crate::site::Sources;
use crate::site::page::Problem;

/// A site project in a tempdir: `mkdocs.yml`, `docs/…` and other files.
struct Tree {
    dir: tempfile::TempDir,
}

impl Tree {
    fn new(config: &str, files: &[(&str, &str)]) -> Tree {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".git")).unwrap();
        std::fs::create_dir_all(dir.path().join("docs")).unwrap();
        std::fs::write(dir.path().join("mkdocs.yml"), config).unwrap();
        for (path, text) in files {
            let path = dir.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        Tree { dir }
    }

    fn detection(&self) -> Detection {
        let root = self.dir.path();
        Detection {
            flavor: Flavor::MkDocs,
            why: "test".into(),
            docs: root.join("docs"),
            project: root.to_path_buf(),
            config: Some(root.join("mkdocs.yml")),
            boundary: root.to_path_buf(),
            release_epoch: None,
        }
    }

    fn load(&self) -> (MkDocs, Report) {
        let mut report = Report::new(false);
        let generator = MkDocs::load(&self.detection(), &mut report);
        (generator, report)
    }

    fn docs(&self) -> Vec<SourceFile> {
        let mut files = Vec::new();
        walk(&self.dir.path().join("docs"), "", &mut files);
        files.sort_by(|a, b| a.rel.cmp(&b.rel));
        files
    }

    /// The page's served body and the problems rendering found.
    fn serve(&self, rel: &str) -> (String, Vec<Problem>) {
        let (generator, _) = self.load();
        let files = self.docs();
        let sources = Sources::new(&self.dir.path().join("docs"), self.dir.path(), &files);
        let text = std::fs::read_to_string(self.dir.path().join("docs").join(rel)).unwrap();
        let page = Page {
            rel,
            text: &text,
            body_offset: 0,
            frontmatter: None,
        };
        let mut cx = RenderCx::new(&sources, generator.settings(), rel);
        let out = generator.render(&page, &mut cx);
        (out, cx.problems)
    }
}

fn walk(dir: &Path, prefix: &str, out: &mut Vec<SourceFile>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let rel = if prefix.is_empty() {
            name.clone()
        } else {
            format!("{prefix}/{name}")
        };
        if entry.path().is_dir() {
            walk(&entry.path(), &rel, out);
        } else {
            out.push(SourceFile {
                rel,
                bytes: std::fs::read(entry.path()).unwrap(),
            });
        }
    }
}

fn frontmatter(yaml: &str) -> Map<String, Value> {
    match yaml_serde::from_str::<Value>(yaml).unwrap() {
        Value::Object(map) => map,
        _ => panic!("not a map"),
    }
}

const MATERIAL: &str = "site_url: https://example.org/proj/\nmarkdown_extensions:\n  - admonition\n  - pymdownx.details\n  - pymdownx.tabbed:\n      alternate_style: true\n  - attr_list\n  - md_in_html\n  - pymdownx.emoji:\n      emoji_index: !!python/name:material.extensions.emoji.twemoji\n  - pymdownx.snippets:\n      auto_append:\n        - includes/links.md\n";

#[test]
fn plain_pages_are_served_byte_for_byte() {
    let config = "markdown_extensions:\n  - admonition\n  - pymdownx.snippets\n";
    let body = "# Title\n\nText with `!!! note` in code, a [link](x.md) and {braces}.\n\n```md\n!!! note\n    body\n```\n\n    !!! indented code\n";
    let tree = Tree::new(config, &[("docs/index.md", body)]);
    let (served, problems) = tree.serve("index.md");
    assert_eq!(served, body);
    assert!(problems.is_empty());
}

#[test]
fn snippets_expand_with_ranges_sections_and_auto_append() {
    let page = "# P\n\n--8<-- \"includes/part.md\"\n\n```py\n--8<-- \"src/code.py:2:3\"\n```\n\n    --8<-- \"includes/sections.md:two\"\n\n;--8<-- \"shown.md\"\n\n--8<--\nincludes/part.md\n;includes/disabled.md\n--8<--\n";
    let tree = Tree::new(
        MATERIAL,
        &[
            ("docs/index.md", page),
            ("includes/part.md", "Part.\n"),
            ("includes/links.md", "[x]: https://x.org\n"),
            (
                "includes/sections.md",
                "a\n<!-- --8<-- [start:two] -->\nb\n<!-- --8<-- [end:two] -->\nc\n",
            ),
            ("src/code.py", "one\ntwo\nthree\nfour\n"),
        ],
    );
    let (served, problems) = tree.serve("index.md");
    assert_eq!(
        served,
        "# P\n\nPart.\n\n```py\ntwo\nthree\n```\n\n    b\n\n--8<-- \"shown.md\"\n\nPart.\n\n[x]: https://x.org\n"
    );
    assert!(problems.is_empty(), "{problems:?}");
}

#[test]
fn missing_snippets_warn_unless_check_paths_and_cycles_fail() {
    let tree = Tree::new(
        "markdown_extensions:\n  - pymdownx.snippets:\n      check_paths: true\n",
        &[
            ("docs/index.md", "--8<-- \"gone.md\"\n"),
            ("docs/a.md", "--8<-- \"docs/b.md\"\n"),
            ("docs/b.md", "--8<-- \"docs/a.md\"\n"),
        ],
    );
    let (_, problems) = tree.serve("index.md");
    assert!(problems[0].error && problems[0].message.contains("gone.md"));
    let (_, problems) = tree.serve("a.md");
    assert!(
        problems
            .iter()
            .any(|p| p.error && p.message.contains("includes itself"))
    );

    let lenient = Tree::new(
        "markdown_extensions:\n  - pymdownx.snippets\n",
        &[("docs/index.md", "Before\n--8<-- \"gone.md\"\nAfter\n")],
    );
    let (served, problems) = lenient.serve("index.md");
    assert_eq!(served, "Before\nAfter\n");
    assert!(!problems[0].error && problems[0].message.contains("MkDocs leaves it out"));
}

#[test]
fn include_markdown_expands_and_rebases_links() {
    let tree = Tree::new(
        "plugins:\n  - include-markdown\n",
        &[
            (
                "docs/index.md",
                "# Home\n\n{% include-markdown \"parts/intro.md\" start=\"<!--s-->\" end=\"<!--e-->\" %}\n\n- item\n    {% include \"parts/code.txt\" %}\n\n```\n{% include \"shown.md\" %}\n```\n",
            ),
            (
                "docs/parts/intro.md",
                "skip<!--s-->See [a](../a.md) and [b](b.md).<!--e-->skip",
            ),
            ("docs/parts/code.txt", "one\ntwo\n"),
        ],
    );
    let (served, problems) = tree.serve("index.md");
    assert_eq!(
        served,
        "# Home\n\nSee [a](a.md) and [b](parts/b.md).\n\n- item\n    one\n    two\n\n\n```\n{% include \"shown.md\" %}\n```\n"
    );
    assert!(problems.is_empty(), "{problems:?}");
    let (generator, _) = tree.load();
    assert_eq!(
        generator.role("parts/intro.md", None),
        Role::Skip(Skip::Partial)
    );
}

#[test]
fn roles_follow_the_config() {
    let config = "exclude_docs: |\n  drafts/\n  *.tmp.md\n  !keep.tmp.md\ndraft_docs: |\n  wip/\nplugins:\n  - blog\nmarkdown_extensions:\n  - pymdownx.snippets:\n      base_path: [docs/snippets, .]\n";
    let tree = Tree::new(
        config,
        &[
            ("docs/index.md", "--8<-- \"abbr.md\"\n"),
            ("docs/snippets/abbr.md", "*[HTML]: x\n"),
            ("docs/guide/README.md", "x"),
            ("docs/guide/index.md", "x"),
            ("docs/other/README.md", "x"),
            ("docs/templates/page.md", "x"),
        ],
    );
    let (generator, report) = tree.load();
    assert!(report.diagnostics.is_empty(), "{:?}", report.diagnostics);
    let role = |rel: &str| generator.role(rel, None);
    assert_eq!(role("index.md"), Role::Page);
    assert_eq!(role("snippets/abbr.md"), Role::Skip(Skip::Partial));
    assert!(matches!(role("drafts/a.md"), Role::Skip(Skip::Excluded(p)) if p.contains("drafts/")));
    assert!(matches!(role("x/y.tmp.md"), Role::Skip(Skip::Excluded(_))));
    assert_eq!(role("keep.tmp.md"), Role::Page);
    assert!(matches!(
        role("templates/page.md"),
        Role::Skip(Skip::Excluded(_))
    ));
    assert!(matches!(role("wip/a.md"), Role::Skip(Skip::Unpublished(_))));
    assert!(matches!(
        role("guide/README.md"),
        Role::Skip(Skip::Unpublished(_))
    ));
    assert_eq!(role("other/README.md"), Role::Page);
    let draft = frontmatter("draft: true\ndate: 2024-01-02\n");
    assert!(matches!(
        generator.role("blog/posts/a.md", Some(&draft)),
        Role::Skip(Skip::Unpublished(_))
    ));
    // Only posts are drafts, and broken frontmatter (None) is simply a page.
    assert_eq!(generator.role("guide/a.md", Some(&draft)), Role::Page);
    assert_eq!(generator.role("blog/posts/a.md", None), Role::Page);
}

#[test]
fn meta_files_make_blog_posts_drafts() {
    let tree = Tree::new(
        "plugins:\n  - blog\n  - meta\n",
        &[
            ("docs/blog/posts/wip/.meta.yml", "draft: true\n"),
            ("docs/blog/posts/wip/a.md", "x"),
            ("docs/blog/posts/b.md", "x"),
        ],
    );
    let (generator, _) = tree.load();
    assert!(matches!(
        generator.role("blog/posts/wip/a.md", None),
        Role::Skip(Skip::Unpublished(_))
    ));
    let published = frontmatter("draft: false\n");
    assert_eq!(
        generator.role("blog/posts/wip/a.md", Some(&published)),
        Role::Page
    );
    assert_eq!(generator.role("blog/posts/b.md", None), Role::Page);
}

#[test]
fn a_config_that_does_not_parse_is_a_warning() {
    let tree = Tree::new(
        "nav: [unclosed\n  - : :\n",
        &[("docs/index.md", "!!! note\n    Still rendered.\n")],
    );
    let (generator, report) = tree.load();
    assert_eq!(report.diagnostics.len(), 1);
    assert!(report.diagnostics[0].message.contains("could not be read"));
    assert_eq!(generator.role("index.md", None), Role::Page);
    assert_eq!(
        tree.serve("index.md").0,
        "> **Note**\n>\n> Still rendered.\n"
    );
}

#[test]
fn settings_nav_and_variables() {
    let config = "site_url: https://example.org/proj/\nnav:\n  - Home: index.md\n  - Guide:\n    - guide/intro.md\nextra:\n  version: 2.1\n  analytics:\n    key: !ENV KEY\n";
    let tree = Tree::new(config, &[("docs/index.md", "x")]);
    let (generator, _) = tree.load();
    let settings = generator.settings();
    assert_eq!(settings.base_path, "/proj/");
    assert_eq!(
        settings.nav,
        vec![
            ("index.md".into(), Some("Home".into())),
            ("guide/intro.md".into(), None)
        ]
    );
    assert_eq!(settings.variables["config.extra.version"], "2.1");
    assert_eq!(settings.variables["extra.analytics.key"], "KEY");
}

#[test]
fn macros_substitute_extra_values() {
    let config = "plugins:\n  - macros\nextra:\n  version: 2.1\n";
    let tree = Tree::new(
        config,
        &[(
            "docs/index.md",
            "Version {{ config.extra.version }} and {{ version }}, `{{ version }}` and {{ unknown }}.\n",
        )],
    );
    let (served, _) = tree.serve("index.md");
    assert_eq!(
        served,
        "Version 2.1 and 2.1, `{{ version }}` and {{ unknown }}.\n"
    );
}

#[test]
fn heading_ids_follow_toc_slugify() {
    assert_eq!(
        slugify("Caret, Mark & Tilde", Slugify::Markdown),
        "caret-mark-tilde"
    );
    assert_eq!(slugify("– Version", Slugify::Markdown), "version");
    assert_eq!(
        slugify("Überblick der API", Slugify::Markdown),
        "uberblick-der-api"
    );
    assert_eq!(slugify("Überblick", Slugify::MarkdownUnicode), "überblick");
    assert_eq!(
        slugify("Caret, Mark & Tilde", Slugify::Pymdownx { lower: true }),
        "caret-mark--tilde"
    );
    let tree = Tree::new(
        "markdown_extensions:\n  - toc:\n      slugify: !!python/object/apply:pymdownx.slugs.slugify\n        kwds:\n          case: lower\n",
        &[("docs/index.md", "x")],
    );
    let (generator, _) = tree.load();
    assert_eq!(generator.heading_id("A & B"), "a--b");
}

#[test]
fn blog_posts_have_their_date_urls() {
    let tree = Tree::new("plugins:\n  - blog\n", &[("docs/index.md", "x")]);
    let (generator, _) = tree.load();
    let fm = frontmatter("date: 2023-11-30\nslug: hello-world\n");
    assert_eq!(
        generator.urls("blog/posts/hello.md", Some(&fm)),
        vec!["blog/2023/11/30/hello-world".to_string()]
    );
    let fm = frontmatter("date:\n  created: 2024-02-01\n");
    assert_eq!(
        generator.urls("blog/posts/My Post.md", Some(&fm)),
        vec!["blog/2024/02/01/my-post".to_string()]
    );
    assert!(generator.urls("guide.md", Some(&fm)).is_empty());
}

#[test]
fn shortcodes_need_the_hook() {
    let page = "#### <!-- md:setting config.x -->\n\n<!-- md:version 1.0 -->\n";
    let with_hook = Tree::new(
        "hooks:\n  - hooks/shortcodes.py\n",
        &[
            ("docs/index.md", page),
            (
                "hooks/shortcodes.py",
                "def on_page_markdown(markdown, **kw):\n    # <!-- md:(\\w+)(.*?) -->\n    pass\n",
            ),
        ],
    );
    let (served, _) = with_hook.serve("index.md");
    assert_eq!(
        served,
        "#### `x` { #config.x }\n\n[config.x]: #config.x\n\nMinimum version: [1.0](changelog/index.md#1.0)\n"
    );
    let without = Tree::new(
        "site_name: x\n",
        &[("docs/index.md", "Text <!-- md:version 1.0 -->\n")],
    );
    let (served, _) = without.serve("index.md");
    assert_eq!(served, "Text\n");
}

#[test]
fn pulldown_reads_the_heading_ids_we_write() {
    use pulldown_cmark::{Event, Options, Parser, Tag};
    let ids: Vec<String> = Parser::new_ext(
        "### 9.7.6 <small>x</small> { #9.7.6 }\n\n#### `note` { #+type:note }\n",
        Options::ENABLE_HEADING_ATTRIBUTES,
    )
    .filter_map(|e| match e {
        Event::Start(Tag::Heading { id, .. }) => id.map(|i| i.to_string()),
        _ => None,
    })
    .collect();
    assert_eq!(ids, ["9.7.6", "+type:note"]);
}
