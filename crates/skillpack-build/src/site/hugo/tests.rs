use std::path::Path;

use super::*;
use crate::compile::walk::SourceFile;
use crate::site::{LocaleChoice, Site, Sources, page};

/// A Hugo project in a tempdir: `hugo.toml`, `data/` and `content/` files.
fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".git")).unwrap();
    std::fs::create_dir_all(dir.path().join("content")).unwrap();
    let mut has_config = false;
    for (rel, text) in files {
        let path = dir.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
        has_config |= *rel == "hugo.toml";
    }
    if !has_config {
        std::fs::write(
            dir.path().join("hugo.toml"),
            "baseURL = 'https://example.org/'\n",
        )
        .unwrap();
    }
    dir
}

struct Served {
    site: Site,
    files: Vec<SourceFile>,
    docs: std::path::PathBuf,
    boundary: std::path::PathBuf,
}

fn load(docs: &Path) -> Served {
    let detection = crate::site::detect(docs, None).unwrap();
    assert_eq!(detection.flavor, Flavor::Hugo);
    let boundary = detection.boundary.clone();
    let mut report = Report::new(false);
    let site = Site::load(detection, Vec::new(), LocaleChoice::Default, &mut report);
    let mut files = Vec::new();
    for entry in walkdir::WalkDir::new(docs).sort_by_file_name() {
        let entry = entry.unwrap();
        if entry.file_type().is_file() {
            let rel = entry.path().strip_prefix(docs).unwrap();
            files.push(SourceFile {
                rel: rel.to_string_lossy().replace('\\', "/"),
                bytes: std::fs::read(entry.path()).unwrap(),
            });
        }
    }
    files.sort_by(|a, b| a.rel.cmp(&b.rel));
    Served {
        site,
        files,
        docs: docs.to_path_buf(),
        boundary,
    }
}

impl Served {
    fn hugo(&self) -> &dyn Generator {
        self.site.generator.as_deref().unwrap()
    }

    fn fm(&self, rel: &str) -> Option<Map<String, Value>> {
        let file = self.files.iter().find(|f| f.rel == rel).unwrap();
        let text = std::str::from_utf8(&file.bytes).unwrap();
        crate::compile::frontmatter::parse(text)
            .ok()
            .flatten()
            .map(|f| f.fields)
    }

    fn role(&self, rel: &str) -> Role {
        self.site.role(rel, self.fm(rel).as_ref())
    }

    /// The body `rel` serves, and the problems found.
    fn serve(&self, rel: &str) -> (String, Vec<crate::site::page::Problem>) {
        let sources = Sources::new(&self.docs, &self.boundary, &self.files);
        let file = self.files.iter().find(|f| f.rel == rel).unwrap();
        let text = std::str::from_utf8(&file.bytes).unwrap();
        let fm = self.fm(rel);
        let page = Page {
            rel,
            text,
            body_offset: crate::compile::frontmatter::body_offset(text),
            frontmatter: fm.as_ref(),
        };
        let (served, problems) = page::serve(&self.site, &page, &sources);
        (served[page.body_offset..].to_owned(), problems)
    }
}

const HEADLESS: &str =
    "---\ncascade:\n  build:\n    list: never\n    render: never\n---\n\n<!-- snippets -->\n";

#[test]
fn plain_markdown_is_served_byte_for_byte() {
    let body = "\n# Title\n\nSome *text* with a [link](/other/) and `{{ .Title }}`.\n\n```go-html-template\n{{ range .Pages }}\n{{ end }}\n```\n\n> a quote\n\n- item\n";
    let dir = project(&[
        ("content/page.md", &format!("---\ntitle: Page\n---\n{body}")),
        ("content/other.md", "---\ntitle: Other\n---\n"),
    ]);
    let served = load(&dir.path().join("content"));
    let (text, problems) = served.serve("page.md");
    assert_eq!(text, body);
    assert!(problems.is_empty());
}

#[test]
fn roles_headless_bundles_drafts_and_build_options() {
    let dir = project(&[
        ("content/_common/_index.md", HEADLESS),
        ("content/_common/snippet.md", "---\n---\nSnippet.\n"),
        ("content/guide/_index.md", "---\ntitle: Guide\n---\n"),
        (
            "content/guide/draft.md",
            "---\ntitle: D\ndraft: true\n---\n",
        ),
        (
            "content/guide/never.md",
            "---\ntitle: N\nbuild:\n  render: never\n---\n",
        ),
        (
            "content/guide/used.md",
            "---\ntitle: U\n_build:\n  render: never\n---\nUsed.\n",
        ),
        (
            "content/guide/page.md",
            "---\ntitle: P\n---\n{{% include \"used\" %}}\n",
        ),
        (
            "content/glossary/_index.md",
            "---\ntitle: G\nbuild:\n  render: always\ncascade:\n  build:\n    render: never\n---\n",
        ),
        (
            "content/glossary/term.md",
            "---\ntitle: term\n---\nA term.\n",
        ),
        ("content/news/_content.gotmpl", "{{ x }}"),
    ]);
    let served = load(&dir.path().join("content"));
    assert_eq!(served.role("_common/_index.md"), Role::Skip(Skip::Partial));
    assert_eq!(served.role("_common/snippet.md"), Role::Skip(Skip::Partial));
    assert_eq!(served.role("guide/_index.md"), Role::Page);
    assert_eq!(served.role("guide/page.md"), Role::Page);
    assert!(matches!(
        served.role("guide/draft.md"),
        Role::Skip(Skip::Unpublished(_))
    ));
    assert!(matches!(
        served.role("guide/never.md"),
        Role::Skip(Skip::Unpublished(_))
    ));
    assert_eq!(served.role("guide/used.md"), Role::Skip(Skip::Partial));
    assert_eq!(served.role("glossary/_index.md"), Role::Page);
    assert_eq!(served.role("glossary/term.md"), Role::Skip(Skip::Partial));
    assert_eq!(
        served.role("news/_content.gotmpl"),
        Role::Skip(Skip::SiteFile)
    );
}

#[test]
fn includes_expand_in_place_and_report_missing_and_cycles() {
    let dir = project(&[
        ("content/_common/_index.md", HEADLESS),
        (
            "content/_common/a.md",
            "---\n_comment: keep\n---\n\nSnippet with `code`.\n\n> [!NOTE]\n> Careful.\n",
        ),
        (
            "content/_common/loop.md",
            "---\n---\n{{% include \"/_common/loop.md\" %}}\n",
        ),
        (
            "content/page.md",
            "---\ntitle: P\n---\nBefore.\n\n{{% include \"/_common/a.md\" %}}\n\n1. Step\n\n   {{< include \"_common/a.md\" >}}\n\nAfter.\n",
        ),
        (
            "content/missing.md",
            "---\ntitle: M\n---\n{{% include \"/_common/nope.md\" %}}\n",
        ),
        (
            "content/cycle.md",
            "---\ntitle: C\n---\n{{% include \"/_common/loop.md\" %}}\n",
        ),
    ]);
    let served = load(&dir.path().join("content"));
    let (text, problems) = served.serve("page.md");
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(
        text,
        "Before.\n\nSnippet with `code`.\n\n> **Note**\n>\n> Careful.\n\n1. Step\n\n   Snippet with `code`.\n\n   > **Note**\n   >\n   > Careful.\n\nAfter.\n"
    );
    let (_, problems) = served.serve("missing.md");
    assert!(problems[0].error && problems[0].message.contains("/_common/nope.md"));
    assert_eq!(problems[0].line, Some(4));
    let (_, problems) = served.serve("cycle.md");
    assert!(
        problems
            .iter()
            .any(|p| p.error && p.message.contains("includes itself"))
    );
}

#[test]
fn shortcodes_render_as_markdown() {
    let dir = project(&[
        (
            "hugo.toml",
            "baseURL = 'https://example.org/docs/'\ntitle = 'Site'\n[params]\nminVersion = 'v0.1.0'\n",
        ),
        (
            "data/embedded_template_urls.toml",
            "'base_url' = 'https://github.com/x/templates'\n'rss' = 'rss.xml'\n",
        ),
        (
            "data/docs.yaml",
            "config:\n  imaging:\n    quality: 75\n    hint: photo\n",
        ),
        (
            "content/page.md",
            "---\ntitle: P\n---\n{{< new-in 0.153.0 />}}\n\n{{< deprecated-in 0.155.0 >}}\nUse `Meta`.\n{{< /deprecated-in >}}\n\n{{< code-toggle file=hugo >}}\n[params]\ncolor = 'red'\n{{< /code-toggle >}}\n\n{{< code-toggle config=imaging />}}\n\nSee [rss]({{% eturl rss %}}) and `{{</* ref \"x\" */>}}`; Hugo {{% param \"minVersion\" %}}.\n\n{{< youtube abc >}}\n",
        ),
    ]);
    let served = load(&dir.path().join("content"));
    assert_eq!(served.site.settings().base_path, "/docs/");
    let (text, problems) = served.serve("page.md");
    assert!(problems.is_empty(), "{problems:?}");
    let expected = "New in v0.153.0\n\n> **Deprecated in v0.155.0**\n>\n> Use `Meta`.\n\n```toml {file=\"hugo.toml\"}\n[params]\ncolor = 'red'\n```\n\n```toml\n[imaging]\nquality = 75\nhint = \"photo\"\n```\n\nSee [rss](https://github.com/x/templates/rss.xml) and `{{< ref \"x\" >}}`; Hugo v0.1.0.\n\n[YouTube video](https://www.youtube.com/watch?v=abc)\n";
    assert_eq!(text, expected);
}

#[test]
fn code_toggle_in_a_list_item_stays_in_it() {
    let dir = project(&[(
        "content/page.md",
        "---\ntitle: P\n---\n1. Set it:\n\n   {{< code-toggle file=hugo >}}\n   a = 1\n   {{< /code-toggle >}}\n",
    )]);
    let served = load(&dir.path().join("content"));
    let (text, _) = served.serve("page.md");
    assert_eq!(
        text,
        "1. Set it:\n\n   ```toml {file=\"hugo.toml\"}\n   a = 1\n   ```\n"
    );
}

#[test]
fn refs_glossary_links_and_unknown_shortcodes() {
    let dir = project(&[
        (
            "content/functions/lang/Translate.md",
            "---\ntitle: lang.Translate\n---\n",
        ),
        (
            "content/quick-reference/glossary/_index.md",
            "---\ntitle: Glossary\nbuild:\n  render: always\ncascade:\n  build:\n    render: never\n---\n\n{{% glossary %}}\n",
        ),
        (
            "content/quick-reference/glossary/front-matter.md",
            "---\ntitle: front matter\n---\nMetadata.\n",
        ),
        (
            "content/quick-reference/glossary/chain.md",
            "---\ntitle: chain\n---\nCalls in a row.\n",
        ),
        (
            "content/page.md",
            "---\ntitle: P\n---\nSee [it]({{< ref \"Translate\" >}}), [t]({{< relref \"/functions/lang/translate.md#x\" >}}) and [_front matter_](g), [chaining](g), [nothing](g).\n\n{{< mystery >}}kept{{< /mystery >}}\n\n[a]: /Functions/lang/translate/\n[b]: /functions/lang/Translate/\n[c]: lang/Translate.md\n",
        ),
    ]);
    let served = load(&dir.path().join("content"));
    let (text, problems) = served.serve("page.md");
    assert_eq!(
        text,
        "See [it](/functions/lang/translate/), [t](/functions/lang/translate/#x) and [_front matter_](/quick-reference/glossary/#front-matter), [chaining](/quick-reference/glossary/#chain), [nothing](g).\n\nkept\n\n[a]: /functions/lang/translate/\n[b]: /functions/lang/Translate/\n[c]: lang/Translate.md\n"
    );
    assert_eq!(problems.len(), 1);
    assert!(problems[0].message.contains("mystery"));
    let (glossary, _) = served.serve("quick-reference/glossary/_index.md");
    assert_eq!(
        glossary,
        "\n## chain\n\nCalls in a row.\n\n## front matter\n\nMetadata.\n"
    );
}

#[test]
fn titles_urls_heading_ids_and_nav() {
    let dir = project(&[
        ("content/_index.md", "---\ntitle: Home\n---\n"),
        (
            "content/b-section/_index.md",
            "---\ntitle: B\nweight: 1\n---\n",
        ),
        ("content/b-section/z.md", "---\ntitle: Z\nweight: 1\n---\n"),
        (
            "content/b-section/a.md",
            "---\ntitle: A\nlinkTitle: Short A\n---\n",
        ),
        ("content/b-section/m.md", "---\ntitle: M\nweight: 2\n---\n"),
        ("content/a-section/_index.md", "---\n---\n"),
        (
            "content/a-section/Page.md",
            "---\ntitle: Page\nslug: my-page\naliases: [/old/page, older]\nurl: /custom/path/\n---\n",
        ),
    ]);
    let served = load(&dir.path().join("content"));
    let hugo = served.hugo();
    let nav: Vec<(String, Option<String>)> = served.site.settings().nav;
    let order: Vec<&str> = nav.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(
        order,
        [
            "_index.md",
            "b-section/_index.md",
            "b-section/z.md",
            "b-section/m.md",
            "b-section/a.md",
            "a-section/_index.md",
            "a-section/Page.md"
        ]
    );
    assert_eq!(nav[4].1.as_deref(), Some("Short A"));
    assert_eq!(
        hugo.title(
            "a-section/_index.md",
            served.fm("a-section/_index.md").as_ref()
        ),
        Some("A Section".into())
    );
    assert_eq!(
        hugo.title("b-section/a.md", served.fm("b-section/a.md").as_ref()),
        None
    );
    let urls = hugo.urls("a-section/Page.md", served.fm("a-section/Page.md").as_ref());
    for url in [
        "a-section/page",
        "custom/path",
        "a-section/my-page",
        "old/page",
        "a-section/older",
    ] {
        assert!(urls.contains(&url.to_owned()), "{url} in {urls:?}");
    }
    assert_eq!(
        hugo.heading_id("The `.Site.Title` method"),
        "the-sitetitle-method"
    );
    assert_eq!(hugo.heading_id("Ünïcode & more"), "ünïcode--more");
}

#[test]
fn bad_config_is_a_warning() {
    let dir = project(&[("hugo.toml", "baseURL = [\n"), ("content/page.md", "x\n")]);
    let detection = crate::site::detect(&dir.path().join("content"), None).unwrap();
    let mut report = Report::new(false);
    let site = Site::load(detection, Vec::new(), LocaleChoice::Default, &mut report);
    assert!(
        report
            .warnings()
            .any(|w| w.message.contains("does not parse"))
    );
    assert_eq!(site.settings().base_path, "/");
}

#[test]
fn toml_front_matter_is_read_and_not_served() {
    let dir = project(&[(
        "content/page.md",
        "+++\ntitle = 'Toml page'\ndraft = false\nweight = 3\n+++\n\nBody.\n",
    )]);
    let served = load(&dir.path().join("content"));
    let (text, _) = served.serve("page.md");
    assert_eq!(text, "\nBody.\n");
    assert_eq!(
        served.hugo().title("page.md", None),
        Some("Toml page".into())
    );
}

#[test]
fn block_attributes_are_dropped_when_the_config_turns_them_on() {
    let page = "---\ntitle: P\n---\n| a |\n| - |\n| 1 |\n{.wide}\n\n```md\nx\n{.kept}\n```\n";
    let on = project(&[
        (
            "hugo.toml",
            "[markup.goldmark.parser.attribute]\nblock = true\n",
        ),
        ("content/page.md", page),
    ]);
    let (text, _) = load(&on.path().join("content")).serve("page.md");
    assert_eq!(text, "| a |\n| - |\n| 1 |\n\n```md\nx\n{.kept}\n```\n");
    let off = project(&[("content/page.md", page)]);
    let (text, _) = load(&off.path().join("content")).serve("page.md");
    assert_eq!(text, &page[17..]);
}

#[test]
fn odd_input_never_panics() {
    let long = format!("{{{{< x \"{}", "é".repeat(3000));
    let long_escaped = format!("{{{{</* {}", "é".repeat(3000));
    let cases = [
        "{{<",
        "{{< é",
        "{{< a \"é",
        "{{</* é */",
        "1é {{< new-in 1 >}}\nx\n{{< /new-in >}}",
        "é. {{% include %}}",
        "{{< /nothing >}}",
        "{{< code-toggle config=nope />}}",
        "{{< datatable \"a\" >}}",
        "> [!]\n> [!é]\n",
        "[x](g) [](g) ](g)",
        "[é]: /É/",
        "{{< ref \"\" >}}{{< param >}}{{% eturl %}}{{< glossary-term \"é\" >}}",
        &long,
        &long_escaped,
    ];
    for case in cases {
        let dir = project(&[("content/page.md", &format!("---\ntitle: P\n---\n{case}\n"))]);
        let served = load(&dir.path().join("content"));
        let _ = served.serve("page.md");
    }
}

#[test]
fn expired_and_future_pages_on_the_release_date() {
    let dir = project(&[
        (
            "content/old.md",
            "---\ntitle: O\nexpiryDate: 2026-11-18\n---\n",
        ),
        (
            "content/new.md",
            "---\ntitle: N\nexpiryDate: '2028-02-18'\ndate: 2026-01-01\n---\n",
        ),
        (
            "content/future.md",
            "---\ntitle: F\ndate: 2027-01-01\n---\n",
        ),
    ]);
    let detection = crate::site::detect(&dir.path().join("content"), None).unwrap();
    let mut hugo = Hugo::load(&detection, &mut Report::new(false));
    let fm = |rel: &str| {
        let text = std::fs::read_to_string(dir.path().join("content").join(rel)).unwrap();
        crate::compile::frontmatter::parse(&text)
            .unwrap()
            .unwrap()
            .fields
    };
    hugo.release_epoch = None;
    assert_eq!(hugo.role("old.md", Some(&fm("old.md"))), Role::Page);
    // 2026-12-05T00:00:00Z
    hugo.release_epoch = Some(1_796_428_800);
    assert!(matches!(
        hugo.role("old.md", Some(&fm("old.md"))),
        Role::Skip(Skip::Unpublished(why)) if why.contains("expired on 2026-11-18")
    ));
    assert_eq!(hugo.role("new.md", Some(&fm("new.md"))), Role::Page);
    assert!(matches!(
        hugo.role("future.md", Some(&fm("future.md"))),
        Role::Skip(Skip::Unpublished(why)) if why.contains("after the release date")
    ));
}
