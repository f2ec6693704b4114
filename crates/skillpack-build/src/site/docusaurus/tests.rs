use super::*;
use crate::compile::walk::SourceFile;
use crate::site::Sources;
use crate::site::page::Problem;

/// A project in a temporary folder: `files` are written relative to it; those under
/// `docs/` are the docs root's.
pub(crate) struct Tree {
    pub dir: tempfile::TempDir,
    pub docs: Vec<SourceFile>,
}

pub(crate) fn tree(files: &[(&str, &str)]) -> Tree {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".git")).unwrap();
    std::fs::create_dir_all(dir.path().join("docs")).unwrap();
    let mut docs = Vec::new();
    for (path, text) in files {
        let abs = dir.path().join(path);
        std::fs::create_dir_all(abs.parent().unwrap()).unwrap();
        std::fs::write(&abs, text).unwrap();
        if let Some(rel) = path.strip_prefix("docs/") {
            docs.push(SourceFile {
                rel: rel.to_owned(),
                bytes: text.as_bytes().to_vec(),
            });
        }
    }
    docs.sort_by(|a, b| a.rel.cmp(&b.rel));
    Tree { dir, docs }
}

impl Tree {
    pub fn docs_dir(&self) -> PathBuf {
        self.dir.path().join("docs")
    }

    /// The docs page `rel` served by `generator`.
    pub fn serve(&self, generator: &dyn Generator, rel: &str) -> (String, Vec<Problem>) {
        let file = self.docs.iter().find(|f| f.rel == rel).unwrap();
        let text = std::str::from_utf8(&file.bytes).unwrap();
        let fm = crate::compile::frontmatter::parse(text).ok().flatten();
        let page = Page {
            rel,
            text,
            body_offset: crate::compile::frontmatter::body_offset(text),
            frontmatter: fm.as_ref().map(|f| &f.fields),
        };
        let sources = Sources::new(&self.docs_dir(), self.dir.path(), &self.docs);
        let mut cx = RenderCx::new(&sources, generator.settings(), rel);
        let body = generator.render(&page, &mut cx);
        (body, cx.problems)
    }

    /// `body` of the page `rel` through the MDX reader.
    pub fn mdx(&self, rel: &str, jsx: bool, body: &str) -> (String, Vec<Problem>) {
        let aliases = vec![("~/".to_owned(), self.dir.path().join("src"))];
        let mdx = Mdx {
            jsx,
            aliases: &aliases,
            line_hook: None,
        };
        let sources = Sources::new(&self.docs_dir(), self.dir.path(), &self.docs);
        let settings = Settings::default();
        let mut cx = RenderCx::new(&sources, &settings, rel);
        let out = mdx.render(body, 1, &mut cx);
        (out, cx.problems)
    }

    pub fn detection(&self, config: &str) -> Detection {
        Detection {
            flavor: Flavor::Docusaurus,
            why: String::new(),
            docs: self.docs_dir(),
            project: self.dir.path().join("website"),
            config: Some(self.dir.path().join(config)),
            boundary: self.dir.path().to_path_buf(),
            release_epoch: None,
        }
    }
}

fn mdx(body: &str) -> String {
    let t = tree(&[("docs/page.mdx", body)]);
    let (out, problems) = t.mdx("page.mdx", true, body);
    assert!(problems.is_empty(), "{problems:?}");
    out
}

#[test]
fn plain_markdown_is_served_byte_for_byte() {
    let body = "# Title\n\nSome *text*   with  spacing.\n\n\n\n- a\n    - b\n\n```mdx\nimport X from './x'\n<Tabs>\n:::tip\n{/* c */}\n```\n\n\t\tindented\n\n<details>\n<summary>More</summary>\n\nbody\n\n</details>\n\n## Heading {#custom-id}\n\nSee `<Tabs>` and a < b.\nno newline at the end";
    assert_eq!(mdx(body), body);
    let t = tree(&[]);
    assert_eq!(t.mdx("page.md", false, body).0, body);
}

#[test]
fn admonitions_become_labelled_blockquotes() {
    assert_eq!(
        mdx(":::tip Dev Tools\n\nUse *them*.\n\n:::\nAfter.\n"),
        "> **Tip: Dev Tools**\n>\n> Use *them*.\n\nAfter.\n"
    );
    assert_eq!(
        mdx(":::note[Heads up]\nBody\n:::\n"),
        "> **Note: Heads up**\n>\n> Body\n"
    );
    // Nested, the inner with fewer colons; a fence inside is not a closing line.
    assert_eq!(
        mdx("::::danger\nOuter\n:::info\nInner\n```\n:::\n```\n:::\n::::\n"),
        "> **Danger**\n>\n> Outer\n>\n> > **Info**\n> >\n> > Inner\n> > ```\n> > :::\n> > ```\n"
    );
    // Inside a list item it stays in the item.
    assert_eq!(
        mdx("1. Step\n\n   :::caution\n   Careful\n   :::\n"),
        "1. Step\n\n   > **Caution**\n   >\n   > Careful\n"
    );
    // Unclosed: runs to the end, as remark-directive reads it.
    assert_eq!(mdx(":::note\nOpen\n"), "> **Note**\n>\n> Open\n");
    // `.md` read as CommonMark still has containers.
    let t = tree(&[]);
    assert_eq!(
        t.mdx("a.md", false, ":::tip\nx\n:::\n<Tabs>\n").0,
        "> **Tip**\n>\n> x\n\n<Tabs>\n"
    );
}

#[test]
fn esm_and_comments_are_dropped() {
    let body = "import Tabs from '@theme/Tabs';\nimport {\n  A,\n  B as C,\n} from './x';\n\nexport const meta = {\n  a: 1,\n\n  b: `x\n\ny`,\n};\n\nText {/* note */} here.\n\n{/* a\nlong comment */}\n\nEnd.\n";
    assert_eq!(mdx(body), "Text  here.\n\nEnd.\n");
    assert_eq!(
        mdx("Write `{/* kept */}`, not {/* gone */}this.\n"),
        "Write `{/* kept */}`, not this.\n"
    );
}

#[test]
fn tabs_become_labelled_blocks() {
    let docusaurus = "<Tabs>\n  <TabItem value=\"npm\" label=\"npm\" default>\n\n```bash\nnpm i x\n```\n\n  </TabItem>\n  <TabItem value=\"yarn\">\n\nyarn add x\n\n  </TabItem>\n</Tabs>\nAfter\n";
    assert_eq!(
        mdx(docusaurus),
        "**npm**\n\n```bash\nnpm i x\n```\n\n**yarn**\n\nyarn add x\n\nAfter\n"
    );
    // Starlight: inline items, and tab-indented fences (still fences to MDX).
    let starlight = "<Tabs syncKey=\"pkg\">\n\t<TabItem label=\"Stars\">Sirius, Vega</TabItem>\n\t<TabItem label=\"npm\" icon=\"seti:npm\">\n\t\t```sh\n\t\t</TabItem> inside code\n\t\t```\n\t</TabItem>\n</Tabs>\n";
    assert_eq!(
        mdx(starlight),
        "**Stars**\n\nSirius, Vega\n\n**npm**\n\n```sh\n</TabItem> inside code\n```\n"
    );
}

#[test]
fn components_are_reduced_to_what_readers_see() {
    assert_eq!(
        mdx("<Aside type=\"caution\" title=\"Watch out\">\nHot.\n</Aside>\n"),
        "> **Caution: Watch out**\n>\n> Hot.\n"
    );
    assert_eq!(
        mdx(
            "<CardGrid stagger>\n\t<Card title=\"Fast\" icon=\"rocket\">\n\t\tVery.\n\t</Card>\n</CardGrid>\n"
        ),
        "**Fast**\n\nVery.\n"
    );
    assert_eq!(
        mdx("<LinkCard title=\"Guide\" href=\"/guide/\" description=\"Read it\" />\n"),
        "- [Guide](/guide/): Read it\n"
    );
    assert_eq!(
        mdx(
            "### Title <Badge text=\"New\" variant=\"tip\" />\n\nUse <Icon name=\"x\" /> and `<Badge text=\"kept\" />`.\n"
        ),
        "### Title New\n\nUse  and `<Badge text=\"kept\" />`.\n"
    );
    assert_eq!(
        mdx("<Steps>\n\n1. One\n2. Two\n\n</Steps>\n"),
        "1. One\n2. Two\n"
    );
    assert_eq!(
        mdx("<FileTree>\n- src\n  - a.ts\n</FileTree>\n"),
        "- src\n  - a.ts\n"
    );
    // Unknown components keep their children; self-closing ones with nothing to show go.
    assert_eq!(
        mdx(
            "<Preview>\n<Fragment slot=\"x\">\n\nKept *text*.\n\n</Fragment>\n</Preview>\n<SidebarPreview config={[{ a: '}' }]} />\nEnd\n"
        ),
        "Kept *text*.\n\nEnd\n"
    );
    assert_eq!(
        mdx("<DetailedExplanation title=\"Details\">\n\nMore.\n\n</DetailedExplanation>\n"),
        "**Details**\n\nMore.\n"
    );
    // JSX style objects have no HTML meaning; `{\"text\"}` is its text.
    assert_eq!(
        mdx("<td style={{ width: '3px' }}>{\"[{ id: 1 }]\"}</td>\n"),
        "<td>[{ id: 1 }]</td>\n"
    );
}

#[test]
fn code_components_show_static_code() {
    let page = "import raw from '../examples/conf.json?raw';\nexport const js = `console.log(1)`;\n\n<Code code={raw} lang=\"json\" title=\"conf.json\" />\n\n<Code code={js} lang=\"js\" />\n\n<Code code={fetched} lang=\"js\" />\n";
    let t = tree(&[
        ("docs/page.mdx", page),
        ("examples/conf.json", "{ \"a\": 1 }\n"),
    ]);
    let (out, problems) = t.mdx("page.mdx", true, page);
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(
        out,
        "```json title=\"conf.json\"\n{ \"a\": 1 }\n```\n\n```js\nconsole.log(1)\n```\n\n"
    );
    let missing = "import raw from './nope.json?raw';\n\n<Code code={raw} lang=\"json\" />\n";
    let (_, problems) = t.mdx("page.mdx", true, missing);
    assert!(problems[0].error && problems[0].message.contains("nope.json"));
}

#[test]
fn partials_are_inlined_once_and_cycles_refused() {
    let t = tree(&[
        ("docs/page.mdx", ""),
        (
            "docs/_part.mdx",
            "---\ntitle: x\n---\nimport Inner from '~/inner.mdx';\n\nPart with <Inner />.\n\n<Inner />\n",
        ),
        ("src/inner.mdx", "**inner**\n"),
        (
            "docs/_loop.mdx",
            "import Loop from './_loop.mdx';\n\n<Loop />\n",
        ),
    ]);
    let (out, problems) = t.mdx(
        "page.mdx",
        true,
        "import Part from './_part.mdx';\n\n<Part />\n",
    );
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(out, "Part with .\n\n**inner**\n");
    let (_, problems) = t.mdx(
        "page.mdx",
        true,
        "import Loop from './_loop.mdx';\n\n<Loop />\n",
    );
    assert!(
        problems
            .iter()
            .any(|p| p.error && p.message.contains("includes itself"))
    );
    let (_, problems) = t.mdx(
        "page.mdx",
        true,
        "import Gone from './_gone.mdx';\n\n<Gone />\n",
    );
    assert!(
        problems
            .iter()
            .any(|p| p.error && p.message.contains("does not exist"))
    );
}

const CONFIG: &str = "const config = {\n  baseUrl: '/base/',\n  presets: [['classic', { docs: { path: '../docs', routeBasePath: 'guide', sidebarPath: './sidebars.ts', include: ['{api,usage}/**/*.{md,mdx}'], remarkPlugins: [[linkDocblocks, { extractorSettings: { basedir: resolve(__dirname, '../src') } }]] } }]],\n  // routeBasePath: 'old',\n}\n";

const SIDEBARS: &str = "export default { docs: [{ type: 'category', label: 'Usage', items: ['usage/second', 'usage/intro'] }, { type: 'autogenerated', dirName: 'api' }] }\n";

fn site() -> Tree {
    tree(&[
        ("website/docusaurus.config.ts", CONFIG),
        ("website/sidebars.ts", SIDEBARS),
        (
            "docs/usage/intro.md",
            "---\nid: intro\nsidebar_label: Start\n---\n# Intro\n",
        ),
        (
            "docs/usage/02-other.md",
            "---\nid: second\nslug: /elsewhere\n---\n# Second\n",
        ),
        (
            "docs/api/b.mdx",
            "---\nsidebar_position: 1\n---\n# B\n\n[summary,remarks](docblock://lib.ts?token=Api.run)\n",
        ),
        (
            "docs/api/a.mdx",
            "# A\n\n- [summary](docblock://lib.ts?token=Missing)\n",
        ),
        ("docs/api/_shared.mdx", "shared\n"),
        ("docs/api/draft.md", "---\ndraft: true\n---\n"),
        ("docs/notes/x.md", "# Not included\n"),
        (
            "src/lib.ts",
            "export interface Api {\n  /**\n   * Runs it.\n   * @remarks\n   * Twice.\n   */\n  run(): void\n}\n",
        ),
    ])
}

#[test]
fn config_decides_base_path_pages_and_nav() {
    let t = site();
    let mut report = Report::new(false);
    let d = Docusaurus::load(&t.detection("website/docusaurus.config.ts"), &mut report);
    assert!(!report.has_errors());
    assert_eq!(d.settings.base_path, "/base/guide/");
    let nav: Vec<(&str, Option<&str>)> = d
        .settings
        .nav
        .iter()
        .map(|(p, l)| (p.as_str(), l.as_deref()))
        .collect();
    assert_eq!(
        nav,
        [
            ("usage/02-other.md", None),
            ("usage/intro.md", Some("Start")),
            ("api/b.mdx", None),
            ("api/a.mdx", None),
        ]
    );
    assert_eq!(d.role("api/_shared.mdx", None), Role::Skip(Skip::Partial));
    assert_eq!(d.role("_inc/x.md", None), Role::Skip(Skip::Partial));
    assert!(matches!(
        d.role("notes/x.md", None),
        Role::Skip(Skip::Excluded(_))
    ));
    let draft: Map<String, Value> = serde_json::from_str(r#"{"draft": true}"#).unwrap();
    assert!(matches!(
        d.role("api/draft.md", Some(&draft)),
        Role::Skip(Skip::Unpublished(_))
    ));
    assert_eq!(d.role("api/a.mdx", None), Role::Page);
}

#[test]
fn ids_and_slugs_are_urls() {
    let fm = |json: &str| serde_json::from_str::<Map<String, Value>>(json).unwrap();
    let t = site();
    let mut report = Report::new(false);
    let d = Docusaurus::load(&t.detection("website/docusaurus.config.ts"), &mut report);
    assert_eq!(
        d.urls(
            "api/otherExports.mdx",
            Some(&fm(r#"{"id": "other-exports"}"#))
        ),
        ["api/other-exports"]
    );
    assert_eq!(
        d.urls(
            "tutorials/overview.md",
            Some(&fm(r#"{"id": "tutorials-overview", "slug": "overview"}"#))
        ),
        ["tutorials/overview", "tutorials/tutorials-overview"]
    );
    assert_eq!(
        d.urls("usage/02-other.md", Some(&fm(r#"{"slug": "/elsewhere/"}"#))),
        ["elsewhere", "usage/other"]
    );
    assert_eq!(d.urls("guide/index.md", None), ["guide", "guide/index"]);
}

#[test]
fn docblock_links_become_the_comment_text() {
    let t = site();
    let mut report = Report::new(false);
    let d = Docusaurus::load(&t.detection("website/docusaurus.config.ts"), &mut report);
    let (out, problems) = t.serve(&d, "api/b.mdx");
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(out, "# B\n\nRuns it.\n\nTwice.\n");
    let (out, problems) = t.serve(&d, "api/a.mdx");
    assert_eq!(out, "# A\n\n- `Missing`\n");
    assert!(!problems[0].error && problems[0].message.contains("Missing"));
}

#[test]
fn markdown_format_detect_reads_md_as_commonmark() {
    let t = tree(&[
        (
            "website/docusaurus.config.js",
            "module.exports = { markdown: { format: 'detect' } }\n",
        ),
        ("docs/a.md", "import X from 'x'\n\n:::tip\nT\n:::\n"),
        ("docs/b.mdx", "import X from 'x'\n\nB\n"),
    ]);
    let mut report = Report::new(false);
    let d = Docusaurus::load(&t.detection("website/docusaurus.config.js"), &mut report);
    assert_eq!(d.settings.base_path, "/docs/");
    assert_eq!(
        t.serve(&d, "a.md").0,
        "import X from 'x'\n\n> **Tip**\n>\n> T\n"
    );
    assert_eq!(t.serve(&d, "b.mdx").0, "B\n");
}

#[test]
fn broken_mdx_never_panics_and_keeps_its_text() {
    let nested = "<A>\n".repeat(200) + "deep\n" + &"</A>\n".repeat(200);
    let inputs = [
        "<Tabs\n",
        "<Tabs>\nnever closed\n",
        "<Card title=\"x\n",
        "<A b={ unclosed\n",
        "{/* never closed\n",
        "import {\n",
        "export const x = `unterminated\n\ntext\n",
        ":::\n",
        ":::note[unclosed title\nx\n",
        "\u{3000}:::note\n\u{3000}x\n:::\n",
        "- a\n  <Tabs>\n\u{3001}<TabItem label=\"é\">ü</TabItem>\n  </Tabs>\n",
        "`<Tabs>` and ``</Tabs>`` in code\n",
        "<td style={{ a: '}' }}>{'x'}{\"y\"}{z}</td>\n",
        nested.as_str(),
    ];
    for input in inputs {
        let out = mdx(input);
        assert!(out.len() <= input.len() * 4 + 64, "{input:?} → {out:?}");
    }
    assert_eq!(mdx("<Tabs>\nnever closed\n"), "<Tabs>\nnever closed\n");
    assert!(mdx(&nested).contains("deep"));
}
