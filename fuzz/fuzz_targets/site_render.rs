//! Every site generator's page rendering on arbitrary text: never panics or hangs
//! (libFuzzer's timeout), whatever the markup — unclosed containers, components and
//! fences, includes of missing files or of the page itself, broken frontmatter.
//!
//! The first byte picks the generator; the rest is the page, served from a small tree
//! (the generator's config beside a docs folder holding the page, an `other.md` and a
//! `_partial.mdx`) made once per process in a temporary folder.
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use skillpack_server::compile::{Report, frontmatter, walk::SourceFile};
use skillpack_server::site::{self, Flavor, LocaleChoice, Page, Site, Sources};

/// (flavor, config file, its text, the page's file name)
const TREES: &[(Flavor, &str, &str, &str)] = &[
    (
        Flavor::MdBook,
        "book.toml",
        "[book]\nsrc = \"docs\"\n",
        "page.md",
    ),
    (
        Flavor::MkDocs,
        "mkdocs.yml",
        "site_name: x\nmarkdown_extensions:\n  - admonition\n  - pymdownx.details\n  - pymdownx.superfences\n  - pymdownx.tabbed\n  - pymdownx.snippets\n  - attr_list\n",
        "page.md",
    ),
    (
        Flavor::Docusaurus,
        "docusaurus.config.js",
        "module.exports = { baseUrl: '/' };\n",
        "page.mdx",
    ),
    (
        Flavor::Starlight,
        "astro.config.mjs",
        "import starlight from '@astrojs/starlight';\nexport default { integrations: [starlight({ locales: { root: { lang: 'en' }, de: {} } })] };\n",
        "page.mdx",
    ),
    (
        Flavor::Hugo,
        "hugo.toml",
        "baseURL = '/'\n[markup.goldmark.parser.attribute]\nblock = true\n",
        "page.md",
    ),
    (
        Flavor::VitePress,
        ".vitepress/config.js",
        "export default { base: '/' }\n",
        "page.md",
    ),
    (
        Flavor::Jekyll,
        "_config.yml",
        "baseurl: ''\ncollections:\n  docs:\n    output: true\n",
        "page.md",
    ),
    (
        Flavor::Myst,
        "conf.py",
        "extensions = ['myst_parser']\nmyst_enable_extensions = ['colon_fence']\n",
        "page.md",
    ),
];

struct Tree {
    site: Site,
    docs: PathBuf,
    boundary: PathBuf,
    page: &'static str,
}

fn trees() -> &'static Vec<Tree> {
    static TREES_MADE: OnceLock<(PathBuf, Vec<Tree>)> = OnceLock::new();
    &TREES_MADE
        .get_or_init(|| {
            let root =
                std::env::temp_dir().join(format!("skillpack-fuzz-site-{}", std::process::id()));
            let mut made = Vec::new();
            for (flavor, config, text, page) in TREES {
                let project = root.join(flavor.name());
                let docs = project.join("docs");
                std::fs::create_dir_all(docs.join("sub")).unwrap();
                std::fs::create_dir_all(project.join(".git")).unwrap();
                let config = project.join(config);
                std::fs::create_dir_all(config.parent().unwrap()).unwrap();
                std::fs::write(&config, text).unwrap();
                std::fs::write(docs.join("SUMMARY.md"), "- [Page](page.md)\n").unwrap();
                let detection = site::detect(&docs, Some(flavor.name())).unwrap();
                let boundary = detection.boundary.clone();
                let site = Site::load(
                    detection,
                    Vec::new(),
                    LocaleChoice::Default,
                    &mut Report::new(false),
                );
                made.push(Tree {
                    site,
                    docs,
                    boundary,
                    page,
                });
            }
            (root, made)
        })
        .1
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let trees = trees();
    let tree = &trees[pick as usize % trees.len()];
    let text = String::from_utf8_lossy(rest).into_owned();
    let mut files = vec![
        SourceFile {
            rel: "_partial.mdx".into(),
            bytes: b"Partial *text*.\n".to_vec(),
        },
        SourceFile {
            rel: "other.md".into(),
            bytes: b"# Other\n\n{{#include page.md}}\n".to_vec(),
        },
        SourceFile {
            rel: tree.page.into(),
            bytes: text.clone().into_bytes(),
        },
        SourceFile {
            rel: "sub/x.md".into(),
            bytes: b"--8<-- \"../page.md\"\n".to_vec(),
        },
    ];
    files.sort_by(|a, b| a.rel.cmp(&b.rel));
    let sources = Sources::new(&tree.docs, &tree.boundary, &files);
    let parsed = frontmatter::parse(&text).ok().flatten();
    let fields = parsed.as_ref().map(|fm| &fm.fields);
    let _ = tree.site.role(tree.page, fields);
    let page = Page {
        rel: tree.page,
        text: &text,
        body_offset: frontmatter::body_offset(&text),
        frontmatter: fields,
    };
    let (served, problems) = site::page::serve(&tree.site, &page, &sources);
    // The frontmatter block is served as written.
    assert!(served.starts_with(&text[..page.body_offset]));
    for problem in problems {
        assert!(!problem.message.is_empty());
    }
    let _ = site::markup::leftovers(&served);
});
