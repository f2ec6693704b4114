//! Docs trees as their site generator publishes them.
//!
//! A docs team's tree is written for a site generator (MkDocs, Docusaurus, Hugo, …), and
//! its readers see what that generator renders, not the source. This module reads a docs
//! root the way its generator does:
//!
//! - [`detect`]: which generator, from the files beside the docs root and its parents (or
//!   `SKILLPACK_DOCS_FLAVOR`), and why;
//! - one module per generator ([`mdbook`], [`mkdocs`], [`docusaurus`], [`starlight`],
//!   [`hugo`], [`vitepress`], [`jekyll`], [`myst`]), each implementing [`Generator`]: what
//!   its config decides, which files are pages, how its includes and markup become
//!   markdown, its heading ids, titles and nav order, and how its URLs map to files;
//! - the shared steps below them: [`page`] (a page → the text it serves), [`include`]
//!   (reading include targets with a depth limit and cycle detection), [`markup`] (labelled
//!   blockquotes, tabs, code-fence tracking, and the count of markup left over) and
//!   [`links`] (root-absolute, extensionless and `index` URLs to files).
//!
//! [`Flavor::Plain`] — no generator found, or `SKILLPACK_DOCS_FLAVOR=plain` — changes
//! nothing: every `.md` file is a page served byte for byte as authored.

pub mod detect;
pub mod include;
pub mod links;
pub mod markup;
pub mod page;

pub mod docusaurus;
pub mod hugo;
pub mod jekyll;
pub mod mdbook;
pub mod mkdocs;
pub mod myst;
pub mod starlight;
pub mod vitepress;

use std::collections::BTreeMap;
use std::fmt;

use serde_json::{Map, Value};

pub use detect::{Detection, detect};
pub use include::Sources;
pub use page::{Page, RenderCx};

/// The site generator a docs tree is written for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Flavor {
    /// CommonMark + GFM with YAML frontmatter, served as authored.
    Plain,
    MdBook,
    MkDocs,
    Docusaurus,
    Starlight,
    Hugo,
    VitePress,
    Jekyll,
    Myst,
}

impl Flavor {
    pub const ALL: [Flavor; 9] = [
        Flavor::Plain,
        Flavor::MdBook,
        Flavor::MkDocs,
        Flavor::Docusaurus,
        Flavor::Starlight,
        Flavor::Hugo,
        Flavor::VitePress,
        Flavor::Jekyll,
        Flavor::Myst,
    ];

    /// The name `SKILLPACK_DOCS_FLAVOR` takes and `skillpack info` shows.
    pub fn name(self) -> &'static str {
        match self {
            Flavor::Plain => "plain",
            Flavor::MdBook => "mdbook",
            Flavor::MkDocs => "mkdocs",
            Flavor::Docusaurus => "docusaurus",
            Flavor::Starlight => "starlight",
            Flavor::Hugo => "hugo",
            Flavor::VitePress => "vitepress",
            Flavor::Jekyll => "jekyll",
            Flavor::Myst => "myst",
        }
    }

    pub fn from_name(name: &str) -> Option<Flavor> {
        let name = name.trim().to_ascii_lowercase();
        let name = match name.as_str() {
            "sphinx" => "myst",
            "astro" => "starlight",
            "material" | "mkdocs-material" => "mkdocs",
            "markdown" | "none" | "off" => "plain",
            other => other,
        };
        Flavor::ALL.into_iter().find(|f| f.name() == name)
    }
}

impl fmt::Display for Flavor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a file under the docs root is not a page of its own.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Skip {
    /// A partial or include source: its text reaches pages through includes.
    Partial,
    /// The generator's config excludes it (or `SKILLPACK_DOCS_EXCLUDE` does): the pattern.
    Excluded(String),
    /// A draft, or a page the generator does not render (`build.render: never`, …).
    Unpublished(String),
    /// A translation in a locale that is not served (the locale).
    OtherLocale(String),
    /// Not a page the generator renders: its config, data, theme, assets.
    SiteFile,
}

impl Skip {
    /// One word for counts and `skillpack-check`.
    pub fn kind(&self) -> &'static str {
        match self {
            Skip::Partial => "partial",
            Skip::Excluded(_) => "excluded",
            Skip::Unpublished(_) => "unpublished",
            Skip::OtherLocale(_) => "other-locale",
            Skip::SiteFile => "site-file",
        }
    }
}

impl fmt::Display for Skip {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Skip::Partial => {
                f.write_str("a partial or include source, served inside the pages that include it")
            }
            Skip::Excluded(pattern) => write!(f, "excluded by `{pattern}`"),
            Skip::Unpublished(why) => write!(f, "not published: {why}"),
            Skip::OtherLocale(locale) => write!(f, "a translation (locale `{locale}`), not served"),
            Skip::SiteFile => f.write_str("a site file (config, data, theme or asset), not a page"),
        }
    }
}

/// What the site makes of one file under the docs root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Role {
    Page,
    Skip(Skip),
}

/// Which locales are served, when the tree has a locale layout (`SKILLPACK_DOCS_LOCALE`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum LocaleChoice {
    /// The generator's default locale only.
    #[default]
    Default,
    /// One locale: its pages, and default-locale pages it has not translated (the
    /// generators fall back to them too).
    One(String),
    /// Every locale, each page's title marked with its language.
    All,
}

/// What a generator's config decides that the shared steps use.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    /// The site's base path (`/`, `/docs/`): root-absolute links start with it.
    pub base_path: String,
    /// The default locale's name (`en`), when the tree has locales.
    pub default_locale: Option<String>,
    /// Folders under the docs root that hold other locales' pages (`de`, `zh-cn`).
    pub locale_dirs: Vec<String>,
    /// Site variables with a static value (`site.title`, `version`), by dotted name.
    pub variables: BTreeMap<String, String>,
    /// Globs of docs-relative paths the config excludes.
    pub excludes: Vec<String>,
    /// Docs-relative paths of pages in nav order, each with the nav's title if it has one.
    pub nav: Vec<(String, Option<String>)>,
    /// Where the generator config was read from, relative to the project, for `info`.
    pub config_file: Option<String>,
}

/// Everything one generator knows about a tree. Implementations live one per module.
pub trait Generator: Send + Sync {
    fn flavor(&self) -> Flavor;

    /// What the config decides (base path, locales, variables, excludes, nav).
    fn settings(&self) -> &Settings;

    /// What the site makes of a file (`rel` under the docs root; `frontmatter` when it is a
    /// markdown page whose frontmatter parses). Locales and excludes are applied before.
    fn role(&self, rel: &str, frontmatter: Option<&Map<String, Value>>) -> Role;

    /// The page as its readers see it, in markdown: includes expanded, markup rendered.
    /// Plain markdown in it must come out byte for byte.
    fn render(&self, page: &Page<'_>, cx: &mut RenderCx<'_>) -> String;

    /// The id the generator gives a heading without an explicit one; links may use it.
    fn heading_id(&self, text: &str) -> String {
        github_slugger::slug(text)
    }

    /// Whether the generator gives definition-list terms (`Term` / `: definition`) ids
    /// of their own, numbered with the headings' (Hugo's `autoDefinitionTermID`).
    fn definition_term_ids(&self) -> bool {
        false
    }

    /// The page's title where the generator's rules say something beyond `title:` and
    /// the first heading (nav titles, `linkTitle`…).
    fn title(&self, _rel: &str, _frontmatter: Option<&Map<String, Value>>) -> Option<String> {
        None
    }

    /// URL paths (below the base path, no leading or trailing `/`) the site publishes this
    /// page at, besides the ones its file path gives (`slug:`, `permalink:`, `id:`,
    /// `aliases:`); links to any of them resolve to it.
    fn urls(&self, _rel: &str, _frontmatter: Option<&Map<String, Value>>) -> Vec<String> {
        Vec::new()
    }
}

/// The docs root as its generator reads it: the detection and the generator.
pub struct Site {
    pub detection: Detection,
    pub generator: Option<Box<dyn Generator>>,
    /// `SKILLPACK_DOCS_EXCLUDE`: globs over docs-relative paths.
    pub extra_excludes: Vec<String>,
    pub locale: LocaleChoice,
    excludes: Option<globset::GlobSet>,
    exclude_patterns: Vec<String>,
    /// Every docs-relative path of the tree (`Site::set_files`): a chosen locale's
    /// translation replaces the default page of the same path.
    files: std::collections::HashSet<String>,
}

impl Site {
    /// A plain site: nothing detected, nothing rendered.
    pub fn plain() -> Site {
        Site {
            detection: Detection::plain("no site generator configured"),
            generator: None,
            extra_excludes: Vec::new(),
            locale: LocaleChoice::Default,
            excludes: None,
            exclude_patterns: Vec::new(),
            files: Default::default(),
        }
    }

    /// Read the generator's config for `detection`. Problems (a config that does not
    /// parse, a glob that is not one) are reported against the config file.
    pub fn load(
        detection: Detection,
        extra_excludes: Vec<String>,
        locale: LocaleChoice,
        report: &mut crate::compile::diag::Report,
    ) -> Site {
        let generator: Option<Box<dyn Generator>> = match detection.flavor {
            Flavor::Plain => None,
            Flavor::MdBook => Some(Box::new(mdbook::MdBook::load(&detection, report))),
            Flavor::MkDocs => Some(Box::new(mkdocs::MkDocs::load(&detection, report))),
            Flavor::Docusaurus => Some(Box::new(docusaurus::Docusaurus::load(&detection, report))),
            Flavor::Starlight => Some(Box::new(starlight::Starlight::load(&detection, report))),
            Flavor::Hugo => Some(Box::new(hugo::Hugo::load(&detection, report))),
            Flavor::VitePress => Some(Box::new(vitepress::VitePress::load(&detection, report))),
            Flavor::Jekyll => Some(Box::new(jekyll::Jekyll::load(&detection, report))),
            Flavor::Myst => Some(Box::new(myst::Myst::load(&detection, report))),
        };
        let mut exclude_patterns: Vec<String> = generator
            .as_ref()
            .map(|g| g.settings().excludes.clone())
            .unwrap_or_default();
        exclude_patterns.extend(extra_excludes.iter().cloned());
        let mut builder = globset::GlobSetBuilder::new();
        let mut kept = Vec::new();
        for pattern in &exclude_patterns {
            match globset::GlobBuilder::new(pattern).literal_separator(false).build() {
                Ok(glob) => {
                    builder.add(glob);
                    kept.push(pattern.clone());
                }
                Err(error) => report.warning(
                    "SKILLPACK_DOCS_EXCLUDE",
                    None,
                    format!("`{pattern}` is not a glob: {error}"),
                    "write globs over paths relative to the docs folder, e.g. `drafts/**` or `**/_*.md`",
                ),
            }
        }
        let excludes = if kept.is_empty() {
            None
        } else {
            builder.build().ok()
        };
        Site {
            detection,
            generator,
            extra_excludes,
            locale,
            excludes,
            exclude_patterns: kept,
            files: Default::default(),
        }
    }

    /// The tree's files (docs-relative paths), for rules that depend on other files.
    pub fn set_files<'a>(&mut self, rels: impl IntoIterator<Item = &'a str>) {
        self.files = rels.into_iter().map(str::to_owned).collect();
    }

    pub fn flavor(&self) -> Flavor {
        self.detection.flavor
    }

    /// The settings of the generator (empty for a plain site).
    pub fn settings(&self) -> Settings {
        self.generator
            .as_ref()
            .map(|g| g.settings().clone())
            .unwrap_or_default()
    }

    /// What the site makes of the file at `rel`: excludes first, then locales, then the
    /// generator's own rules. A plain site serves every markdown file (`.md`,
    /// `.markdown`); with a generator, `.mdx` pages are pages too.
    pub fn role(&self, rel: &str, frontmatter: Option<&Map<String, Value>>) -> Role {
        if let Some(set) = &self.excludes {
            let matches = set.matches(rel);
            if let Some(&i) = matches.first() {
                return Role::Skip(Skip::Excluded(self.exclude_patterns[i].clone()));
            }
        }
        let Some(generator) = &self.generator else {
            return if is_page_source(rel, false) {
                Role::Page
            } else {
                Role::Skip(Skip::SiteFile)
            };
        };
        if !is_page_source(rel, true) {
            return Role::Skip(Skip::SiteFile);
        }
        match self.locale_of(rel) {
            Some(locale) => {
                let served = match &self.locale {
                    LocaleChoice::Default => false,
                    LocaleChoice::One(chosen) => chosen == &locale,
                    LocaleChoice::All => true,
                };
                if !served {
                    return Role::Skip(Skip::OtherLocale(locale));
                }
            }
            // A default-locale page the chosen locale has translated: the translation
            // is served in its place.
            None => {
                if let LocaleChoice::One(chosen) = &self.locale
                    && self.files.contains(&format!("{chosen}/{rel}"))
                {
                    let default = generator
                        .settings()
                        .default_locale
                        .clone()
                        .unwrap_or_else(|| "default".into());
                    return Role::Skip(Skip::OtherLocale(default));
                }
            }
        }
        generator.role(rel, frontmatter)
    }

    /// The non-default locale a page belongs to, by its first folder.
    pub fn locale_of(&self, rel: &str) -> Option<String> {
        let generator = self.generator.as_ref()?;
        let first = rel.split_once('/')?.0;
        generator
            .settings()
            .locale_dirs
            .iter()
            .find(|d| d.as_str() == first)
            .cloned()
    }
}

/// Whether a file is markdown a page can be written in (`.mdx` only for generators that
/// read MDX; a plain tree serves `.md` and `.markdown` as before).
pub fn is_page_source(rel: &str, with_mdx: bool) -> bool {
    let lower = rel.to_ascii_lowercase();
    lower.ends_with(".md") || lower.ends_with(".markdown") || (with_mdx && lower.ends_with(".mdx"))
}

/// A page source of the docs root as a generator reads it at load (for sidebars, ids and
/// slugs across pages), before the compiler's own walk.
pub struct PageOnDisk {
    /// Docs-relative path.
    pub rel: String,
    /// Its frontmatter, when it parses.
    pub frontmatter: Option<Map<String, Value>>,
}

/// Every page source (`.md`, `.markdown`, `.mdx`) under `docs`, sorted by path, hidden
/// entries and `node_modules/` skipped, each with its frontmatter.
pub fn pages_on_disk(docs: &std::path::Path) -> Vec<PageOnDisk> {
    let mut pages = Vec::new();
    let walker = walkdir::WalkDir::new(docs)
        .sort_by_file_name()
        .max_depth(crate::compile::walk::MAX_DEPTH + 1)
        .into_iter()
        .filter_entry(|e| {
            e.depth() == 0
                || !(crate::compile::walk::is_hidden(e.file_name())
                    || e.file_name() == "node_modules")
        });
    for entry in walker.filter_map(Result::ok) {
        if !entry.file_type().is_file() {
            continue;
        }
        let Ok(rel) = entry.path().strip_prefix(docs) else {
            continue;
        };
        let rel = rel.to_string_lossy().replace('\\', "/");
        if !is_page_source(&rel, true) {
            continue;
        }
        let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
        let frontmatter = crate::compile::frontmatter::parse(&text)
            .ok()
            .flatten()
            .map(|fm| fm.fields);
        pages.push(PageOnDisk { rel, frontmatter });
    }
    pages
}

/// A docs-relative path without its markdown extension (`guide/intro.mdx` → `guide/intro`).
pub fn strip_page_extension(rel: &str) -> &str {
    for ext in [".md", ".mdx", ".markdown"] {
        if rel.len() > ext.len() && rel[rel.len() - ext.len()..].eq_ignore_ascii_case(ext) {
            return &rel[..rel.len() - ext.len()];
        }
    }
    rel
}

/// A string field of a frontmatter map, trimmed, when present and not empty.
pub fn field<'a>(frontmatter: Option<&'a Map<String, Value>>, key: &str) -> Option<&'a str> {
    frontmatter?
        .get(key)?
        .as_str()
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

/// A boolean frontmatter field (`draft: true`).
pub fn flag(frontmatter: Option<&Map<String, Value>>, key: &str) -> bool {
    frontmatter
        .and_then(|fm| fm.get(key))
        .is_some_and(|v| v.as_bool() == Some(true) || v.as_str() == Some("true"))
}
