//! Jekyll.
//!
//! **Reads** `_config.yml` (or `.yaml`) at the site source: `baseurl` (the base path),
//! `exclude` (excludes; Jekyll's own `node_modules`/`vendor`/`Gemfile` too), `include`,
//! `collections` and `collections_dir` (which are published, at which `permalink`),
//! `permalink` (posts), `defaults` (front matter by path and type: `permalink`,
//! `published`), `show_drafts`, `includes_dir`, `data_dir`, and every scalar as a site
//! variable (`site.repository`). `_data/**/*.{yml,yaml,json}` becomes `site.data`;
//! `_data/docs_nav.yml` (sections of `docs:` entries, `link:` URLs or names under
//! `_docs/`) gives the nav order.
//!
//! **Serves** pages (`.md`/`.markdown` outside `_` folders), posts (`_posts/YYYY-MM-DD-
//! title.*`) and the documents of collections with `output: true`, each also at the URL
//! its `permalink` (or its collection's pattern: `/:collection/:path/`,
//! `/blog/:year/:month/:day/:title/`) and `redirect_from` give, so links by URL resolve.
//! A post without `title:` is titled from its file name, as Jekyll does. Each page is
//! rendered as Jekyll renders it, Liquid first ([`liquid`], over the whole text, code
//! included, unless `render_with_liquid: false`): `{{ site.x }}` / `{{ page.x }}`,
//! `relative_url`/`absolute_url`, `{% link %}` and `{% post_url %}` as URLs, `{% raw %}`
//! as its text, loops and conditions over `site.data`, `{% include %}` of `_includes/`
//! rendered as Liquid with its parameters, `{% highlight %}` as a fenced block;
//! `jekyll.environment` is `production`, as for a published site. HTML tables the Liquid
//! step built (an options table from `_data`) become markdown tables (`tables.rs`); tables
//! written by hand stay as written. Then kramdown's block syntax (`kramdown.rs`): an
//! attribute list `{: .note}` / `{: .note .warning}` before or after a paragraph makes it
//! a labelled blockquote, `{: #id}` after a heading becomes its `{#id}`, other attribute
//! lists, `{::options /}`, `{::comment}` and the `* TOC` / `{:toc}` list are removed.
//! Heading ids follow kramdown's rule.
//!
//! **Skips**: `_includes/` (partials), `_drafts/` and `published: false` (unpublished),
//! collections without `output: true`, files in `_posts` without a date in their name,
//! other `_`-prefixed names (partials `include_relative` may read), `_data`, `_layouts`,
//! `_sass`, `_site` and other `_` folders (site files), and the config's `exclude`.

mod kramdown;
pub mod liquid;
mod tables;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::{Detection, Flavor, Generator, Page, RenderCx, Role, Settings, Skip, Sources};
use crate::compile::diag::Report;
use kramdown::{kramdown, kramdown_id};
use liquid::{Host, Scope};

/// A collection from `_config.yml`.
#[derive(Debug, Clone, PartialEq)]
struct Collection {
    label: String,
    output: bool,
    permalink: Option<String>,
}

/// A front matter default: the values pages under `path` (of `type`) get.
#[derive(Debug, Clone)]
struct FrontMatterDefault {
    path: String,
    kind: Option<String>,
    values: Map<String, Value>,
}

pub struct Jekyll {
    settings: Settings,
    /// `site` as Liquid sees it: the config, `data`, `baseurl`.
    site: Value,
    collections: Vec<Collection>,
    /// `collections_dir`, with a trailing `/` when set.
    collections_dir: String,
    posts_permalink: String,
    defaults: Vec<FrontMatterDefault>,
    /// `include:` entries: `_`/`.` names the site still reads.
    include: Vec<String>,
    show_drafts: bool,
    /// Each page's URL path (no base, leading `/`), by docs-relative path.
    page_urls: BTreeMap<String, String>,
    includes_dir: String,
}

impl Jekyll {
    pub fn load(detection: &Detection, report: &mut Report) -> Jekyll {
        let mut config = Map::new();
        let shown = detection.config.as_deref().map(|c| {
            c.strip_prefix(&detection.project)
                .unwrap_or(c)
                .display()
                .to_string()
        });
        if let Some(path) = &detection.config {
            match std::fs::read_to_string(path)
                .map_err(|e| e.to_string())
                .and_then(|t| parse_yaml(&t))
            {
                Ok(Value::Object(map)) => config = map,
                Ok(Value::Null) => {}
                Ok(_) => report.warning(
                    shown.as_deref().unwrap_or("_config.yml"),
                    None,
                    "the Jekyll config is not a mapping of keys to values",
                    "write `_config.yml` as `key: value` lines",
                ),
                Err(error) => report.warning(
                    shown.as_deref().unwrap_or("_config.yml"),
                    None,
                    format!("cannot read the Jekyll config: {error}"),
                    "fix the YAML; until then no exclude, collections, permalinks or site variables apply",
                ),
            }
        }
        let mut jekyll = Jekyll::from_config(config, &detection.docs, report);
        jekyll.settings.config_file = shown;
        jekyll
    }

    fn from_config(config: Map<String, Value>, docs: &Path, report: &mut Report) -> Jekyll {
        let text = |key: &str| config.get(key).and_then(Value::as_str).map(str::to_owned);
        let baseurl = text("baseurl").unwrap_or_default();
        let collections = collections_of(&config);
        let collections_dir = text("collections_dir")
            .map(|d| format!("{}/", d.trim_matches('/')))
            .filter(|d| d != "/")
            .unwrap_or_default();
        let posts_permalink = permalink_style(text("permalink").as_deref().unwrap_or("date"));
        let defaults = defaults_of(&config);
        let strings = |key: &str| -> Vec<String> {
            config
                .get(key)
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(|v| v.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default()
        };
        let mut excludes = Vec::new();
        for entry in strings("exclude").iter().map(String::as_str).chain([
            "node_modules",
            "vendor",
            "Gemfile",
            "Gemfile.lock",
        ]) {
            let entry = entry.trim_matches('/');
            if entry.is_empty() {
                continue;
            }
            excludes.push(entry.to_owned());
            excludes.push(format!("{entry}/**"));
        }
        let mut variables = BTreeMap::new();
        flatten("site", &Value::Object(config.clone()), &mut variables, 0);
        let data_dir = text("data_dir").unwrap_or_else(|| "_data".into());
        let mut site = config.clone();
        site.insert("data".into(), load_data(&docs.join(&data_dir), report, 0));
        site.insert("baseurl".into(), Value::String(baseurl.clone()));
        let mut jekyll = Jekyll {
            settings: Settings {
                base_path: normalize_base(&baseurl),
                variables,
                excludes,
                ..Settings::default()
            },
            site: Value::Object(site),
            collections,
            collections_dir,
            posts_permalink,
            defaults,
            include: strings("include"),
            show_drafts: config.get("show_drafts").and_then(Value::as_bool) == Some(true),
            page_urls: BTreeMap::new(),
            includes_dir: text("includes_dir").unwrap_or_else(|| "_includes".into()),
        };
        jekyll.page_urls = jekyll.scan_urls(docs);
        jekyll.settings.nav = jekyll.nav_from_data();
        jekyll
    }

    /// Every markdown file's URL, for `{% link %}`, `{% post_url %}` and the nav.
    fn scan_urls(&self, docs: &Path) -> BTreeMap<String, String> {
        let mut urls = BTreeMap::new();
        for entry in walkdir::WalkDir::new(docs)
            .max_depth(crate::compile::walk::MAX_DEPTH)
            .into_iter()
            .filter_entry(|e| e.depth() == 0 || !e.file_name().to_string_lossy().starts_with('.'))
            .flatten()
        {
            if !entry.file_type().is_file() {
                continue;
            }
            let Ok(rest) = entry.path().strip_prefix(docs) else {
                continue;
            };
            let rel = rest.to_string_lossy().replace('\\', "/");
            if !super::is_page_source(&rel, false) {
                continue;
            }
            let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
            let fm = crate::compile::frontmatter::parse(&text).ok().flatten();
            if let Some(url) = self.url_of(&rel, fm.as_ref().map(|f| &f.fields)) {
                urls.insert(rel, url);
            }
        }
        urls
    }

    /// `_data/docs_nav.yml`: sections whose `docs` are URLs (`link:`) or names under `_docs`.
    fn nav_from_data(&self) -> Vec<(String, Option<String>)> {
        let by_url: BTreeMap<String, &String> = self
            .page_urls
            .iter()
            .map(|(rel, url)| (super::links::normalize_url(url), rel))
            .collect();
        let Some(sections) = self
            .site
            .pointer("/data/docs_nav")
            .and_then(Value::as_array)
        else {
            return Vec::new();
        };
        let mut nav: Vec<(String, Option<String>)> = Vec::new();
        for section in sections {
            let Some(docs) = section.get("docs").and_then(Value::as_array) else {
                continue;
            };
            for doc in docs {
                let rel = match doc {
                    Value::String(name) => ["md", "markdown"]
                        .iter()
                        .map(|ext| format!("{}_docs/{name}.{ext}", self.collections_dir))
                        .find(|rel| self.page_urls.contains_key(rel)),
                    other => other
                        .get("link")
                        .and_then(Value::as_str)
                        .and_then(|link| by_url.get(&super::links::normalize_url(link)))
                        .map(|rel| (*rel).clone()),
                };
                if let Some(rel) = rel
                    && !nav.iter().any(|(r, _)| r == &rel)
                {
                    let title = doc.get("title").and_then(Value::as_str).map(str::to_owned);
                    nav.push((rel, title));
                }
            }
        }
        nav
    }

    /// The collection a path belongs to, and the path inside its folder.
    fn collection_of<'r>(&self, rel: &'r str) -> Option<(&Collection, &'r str)> {
        let rest = rel.strip_prefix(&self.collections_dir)?;
        let (folder, inside) = rest.split_once('/')?;
        let label = folder.strip_prefix('_')?;
        self.collections
            .iter()
            .find(|c| c.label == label)
            .map(|c| (c, inside))
    }

    /// A front matter value, or the `defaults` value for the page's path and type.
    fn effective<'v>(
        &'v self,
        rel: &str,
        fm: Option<&'v Map<String, Value>>,
        key: &str,
    ) -> Option<&'v Value> {
        if let Some(v) = fm.and_then(|fm| fm.get(key)) {
            return Some(v);
        }
        let kind = match self.collection_of(rel) {
            Some((c, _)) => c.label.as_str(),
            None if rel.starts_with("_drafts/") => "drafts",
            None => "pages",
        };
        // Later, more specific defaults win, as in Jekyll.
        self.defaults
            .iter()
            .filter(|d| d.kind.as_deref().is_none_or(|k| k == kind))
            .filter(|d| {
                d.path.is_empty() || rel == d.path || rel.starts_with(&format!("{}/", d.path))
            })
            .filter_map(|d| d.values.get(key).map(|v| (d.path.len(), v)))
            .max_by_key(|(len, _)| *len)
            .map(|(_, v)| v)
    }

    /// The URL path (leading `/`, no base) the site publishes `rel` at, when it is not
    /// simply its file path.
    fn url_of(&self, rel: &str, fm: Option<&Map<String, Value>>) -> Option<String> {
        let permalink = self
            .effective(rel, fm, "permalink")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let stem = super::strip_page_extension(rel);
        if let Some((collection, inside)) = self.collection_of(rel) {
            let inside_stem = super::strip_page_extension(inside);
            let pattern = permalink.unwrap_or_else(|| {
                match (&collection.permalink, collection.label.as_str()) {
                    (Some(p), _) => permalink_style(p),
                    (None, "posts") => self.posts_permalink.clone(),
                    (None, _) => "/:collection/:path:output_ext".into(),
                }
            });
            let mut parts = Placeholders {
                collection: collection.label.clone(),
                path: inside_stem.to_owned(),
                name: inside_stem
                    .rsplit('/')
                    .next()
                    .unwrap_or(inside_stem)
                    .to_owned(),
                ..Placeholders::default()
            };
            if collection.label == "posts" {
                let base = parts.name.clone();
                if let Some((date, title)) = post_date(&base) {
                    parts.date = Some(date);
                    parts.name = title.to_owned();
                }
                parts.categories = categories(fm);
            }
            if let Some(slug) = fm.and_then(|f| f.get("slug")).and_then(Value::as_str) {
                parts.slug = Some(slug.to_owned());
            }
            return Some(parts.expand(&pattern));
        }
        let permalink = permalink?;
        let parts = Placeholders {
            path: stem.to_owned(),
            name: stem.rsplit('/').next().unwrap_or(stem).to_owned(),
            categories: categories(fm),
            ..Placeholders::default()
        };
        Some(parts.expand(&permalink))
    }

    fn page_variable(&self, rel: &str, fm: Option<&Map<String, Value>>) -> Value {
        let mut page = fm.cloned().unwrap_or_default();
        let url = self
            .page_urls
            .get(rel)
            .cloned()
            .unwrap_or_else(|| format!("/{}", super::links::url_key(rel)));
        page.entry("url").or_insert(Value::String(url));
        page.entry("path").or_insert(Value::String(rel.to_owned()));
        let name = rel.rsplit('/').next().unwrap_or(rel);
        page.entry("name").or_insert(Value::String(name.to_owned()));
        if let Some(title) = self.title(rel, fm) {
            page.entry("title").or_insert(Value::String(title));
        }
        Value::Object(page)
    }

    fn globals(&self, page: &Page<'_>) -> Map<String, Value> {
        let mut globals = Map::new();
        globals.insert("site".into(), self.site.clone());
        globals.insert(
            "page".into(),
            self.page_variable(page.rel, page.frontmatter),
        );
        let mut jekyll = Map::new();
        jekyll.insert("environment".into(), Value::String("production".into()));
        if let Some(version) = self.site.get("version") {
            jekyll.insert("version".into(), version.clone());
        }
        globals.insert("jekyll".into(), Value::Object(jekyll));
        globals
    }
}

fn parse_yaml(text: &str) -> Result<Value, String> {
    if text.trim().is_empty() {
        return Ok(Value::Null);
    }
    yaml_serde::from_str::<Value>(text).map_err(|e| e.to_string())
}

fn normalize_base(baseurl: &str) -> String {
    let trimmed = baseurl.trim().trim_matches('/');
    if trimmed.is_empty() {
        "/".into()
    } else {
        format!("/{trimmed}/")
    }
}

/// `collections:` as a mapping (`docs: {output: true}`) or a list of labels; `posts` is
/// always there and always published.
fn collections_of(config: &Map<String, Value>) -> Vec<Collection> {
    let mut collections = Vec::new();
    match config.get("collections") {
        Some(Value::Object(map)) => {
            for (label, settings) in map {
                collections.push(Collection {
                    label: label.clone(),
                    output: settings.get("output").and_then(Value::as_bool) == Some(true),
                    permalink: settings
                        .get("permalink")
                        .and_then(Value::as_str)
                        .map(str::to_owned),
                });
            }
        }
        Some(Value::Array(labels)) => {
            for label in labels.iter().filter_map(Value::as_str) {
                collections.push(Collection {
                    label: label.to_owned(),
                    output: false,
                    permalink: None,
                });
            }
        }
        _ => {}
    }
    match collections.iter_mut().find(|c| c.label == "posts") {
        Some(posts) => posts.output = true,
        None => collections.push(Collection {
            label: "posts".into(),
            output: true,
            permalink: None,
        }),
    }
    collections
}

fn defaults_of(config: &Map<String, Value>) -> Vec<FrontMatterDefault> {
    let Some(list) = config.get("defaults").and_then(Value::as_array) else {
        return Vec::new();
    };
    list.iter()
        .filter_map(|d| {
            let scope = d.get("scope");
            Some(FrontMatterDefault {
                path: scope
                    .and_then(|s| s.get("path"))
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .trim_matches('/')
                    .to_owned(),
                kind: scope
                    .and_then(|s| s.get("type"))
                    .and_then(Value::as_str)
                    .map(str::to_owned),
                values: d.get("values")?.as_object()?.clone(),
            })
        })
        .collect()
}

/// Jekyll's named permalink styles as patterns.
fn permalink_style(style: &str) -> String {
    match style {
        "date" => "/:categories/:year/:month/:day/:title:output_ext".into(),
        "pretty" => "/:categories/:year/:month/:day/:title/".into(),
        "ordinal" => "/:categories/:year/:y_day/:title:output_ext".into(),
        "weekdate" => "/:categories/:year/W:week/:short_day/:title:output_ext".into(),
        "none" => "/:categories/:title:output_ext".into(),
        pattern => pattern.to_owned(),
    }
}

/// `2016-10-06-release-3-3-is-here` → ((2016, 10, 06), `release-3-3-is-here`).
fn post_date(name: &str) -> Option<((String, String, String), &str)> {
    let bytes = name.as_bytes();
    let digits = |r: std::ops::Range<usize>| {
        bytes
            .get(r.clone())
            .is_some_and(|b| b.iter().all(u8::is_ascii_digit))
    };
    if !(digits(0..4)
        && bytes.get(4) == Some(&b'-')
        && digits(5..7)
        && bytes.get(7) == Some(&b'-')
        && digits(8..10))
    {
        return None;
    }
    let title = name.get(10..)?.strip_prefix('-')?;
    Some((
        (
            name[0..4].to_owned(),
            name[5..7].to_owned(),
            name[8..10].to_owned(),
        ),
        title,
    ))
}

fn categories(fm: Option<&Map<String, Value>>) -> Vec<String> {
    let Some(fm) = fm else { return Vec::new() };
    let mut out = Vec::new();
    for key in ["categories", "category"] {
        match fm.get(key) {
            Some(Value::String(s)) => out.extend(s.split_whitespace().map(str::to_owned)),
            Some(Value::Array(items)) => out.extend(items.iter().map(liquid::to_text)),
            _ => {}
        }
    }
    out
}

#[derive(Debug, Default)]
struct Placeholders {
    collection: String,
    path: String,
    name: String,
    slug: Option<String>,
    date: Option<(String, String, String)>,
    categories: Vec<String>,
}

impl Placeholders {
    /// A permalink pattern with its `:placeholders` filled in.
    fn expand(&self, pattern: &str) -> String {
        let slug = self
            .slug
            .clone()
            .unwrap_or_else(|| liquid::slugify(&self.name));
        let (year, month, day) = self.date.clone().unwrap_or_default();
        let categories = self
            .categories
            .iter()
            .map(|c| liquid::slugify(c))
            .collect::<Vec<_>>()
            .join("/");
        let values: [(&str, String); 13] = [
            ("collection", self.collection.clone()),
            ("categories", categories),
            ("output_ext", ".html".into()),
            ("short_year", year.get(2..).unwrap_or("").to_owned()),
            ("i_month", month.trim_start_matches('0').to_owned()),
            ("i_day", day.trim_start_matches('0').to_owned()),
            ("basename", self.name.clone()),
            ("title", slug.clone()),
            ("month", month),
            ("path", self.path.clone()),
            ("name", self.name.clone()),
            ("slug", slug),
            ("year", year),
        ];
        let mut out = String::new();
        let mut rest = pattern;
        while let Some(at) = rest.find(':') {
            out.push_str(&rest[..at]);
            let after = &rest[at + 1..];
            match values.iter().find(|(k, _)| after.starts_with(k)) {
                Some((k, v)) => {
                    out.push_str(v);
                    rest = &after[k.len()..];
                }
                None if after.starts_with("day") => {
                    out.push_str(&self.date.clone().unwrap_or_default().2);
                    rest = &after[3..];
                }
                None => {
                    out.push(':');
                    rest = after;
                }
            }
        }
        out.push_str(rest);
        // An empty `:categories` leaves `//`.
        while out.contains("//") {
            out = out.replace("//", "/");
        }
        if !out.starts_with('/') {
            out.insert(0, '/');
        }
        out
    }
}

/// `site.x.y` → value for every scalar of the config (a few levels deep).
fn flatten(prefix: &str, value: &Value, out: &mut BTreeMap<String, String>, depth: usize) {
    match value {
        Value::Object(map) if depth < 4 => {
            for (k, v) in map {
                flatten(&format!("{prefix}.{k}"), v, out, depth + 1);
            }
        }
        Value::String(_) | Value::Number(_) | Value::Bool(_) => {
            out.insert(prefix.to_owned(), liquid::to_text(value));
        }
        _ => {}
    }
}

/// `_data/` as `site.data`: each YAML/JSON file under its name, folders as nested maps.
fn load_data(dir: &Path, report: &mut Report, depth: usize) -> Value {
    let mut data = Map::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Value::Object(data);
    };
    let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        if name.starts_with('.') {
            continue;
        }
        if path.is_dir() {
            if depth < 8 {
                data.insert(name.to_owned(), load_data(&path, report, depth + 1));
            }
            continue;
        }
        let Some((stem, ext)) = name.rsplit_once('.') else {
            continue;
        };
        let parsed = match ext {
            "yml" | "yaml" => std::fs::read_to_string(&path)
                .map_err(|e| e.to_string())
                .and_then(|t| parse_yaml(&t)),
            "json" => std::fs::read_to_string(&path)
                .map_err(|e| e.to_string())
                .and_then(|t| serde_json::from_str(&t).map_err(|e| e.to_string())),
            _ => continue,
        };
        match parsed {
            Ok(value) => {
                data.insert(stem.to_owned(), value);
            }
            Err(error) => report.warning(
                path.display().to_string(),
                None,
                format!("cannot read this data file: {error}"),
                "fix it; pages that loop over it show nothing from it until then",
            ),
        }
    }
    Value::Object(data)
}

impl Generator for Jekyll {
    fn flavor(&self) -> Flavor {
        Flavor::Jekyll
    }

    fn settings(&self) -> &Settings {
        &self.settings
    }

    fn role(&self, rel: &str, frontmatter: Option<&Map<String, Value>>) -> Role {
        let included = |name: &str| self.include.iter().any(|i| i.trim_matches('/') == name);
        if rel.starts_with("_drafts/") {
            return if self.show_drafts {
                Role::Page
            } else {
                Role::Skip(Skip::Unpublished(
                    "a draft in `_drafts/` (`show_drafts` is off)".into(),
                ))
            };
        }
        if let Some((collection, inside)) = self.collection_of(rel) {
            if !collection.output {
                return Role::Skip(Skip::Unpublished(format!(
                    "collection `{}` has no `output: true` in _config.yml",
                    collection.label
                )));
            }
            if collection.label == "posts" {
                let name = inside.rsplit('/').next().unwrap_or(inside);
                if post_date(super::strip_page_extension(name)).is_none() {
                    return Role::Skip(Skip::Unpublished(
                        "a post's file name must start with its date, `YYYY-MM-DD-title`".into(),
                    ));
                }
            }
        } else {
            let first = rel.split('/').next().unwrap_or(rel);
            let includes_dir = self.includes_dir.trim_matches('/');
            if rel.starts_with(&format!("{includes_dir}/")) {
                return Role::Skip(Skip::Partial);
            }
            if (first.starts_with('_') || first.starts_with('.'))
                && rel.contains('/')
                && !included(first)
            {
                return Role::Skip(Skip::SiteFile);
            }
            let name = rel.rsplit('/').next().unwrap_or(rel);
            if (name.starts_with('_')
                || name.starts_with('.')
                || name.starts_with('#')
                || name.ends_with('~'))
                && !included(name)
            {
                // Jekyll does not render these; `include_relative` can still read them.
                return Role::Skip(Skip::Partial);
            }
        }
        if self
            .effective(rel, frontmatter, "published")
            .and_then(Value::as_bool)
            == Some(false)
        {
            return Role::Skip(Skip::Unpublished("`published: false`".into()));
        }
        Role::Page
    }

    fn render(&self, page: &Page<'_>, cx: &mut RenderCx<'_>) -> String {
        let body = page.body();
        let liquid_off = page
            .frontmatter
            .and_then(|fm| fm.get("render_with_liquid"))
            .and_then(Value::as_bool)
            == Some(false);
        let rendered = if liquid_off || !has_liquid(body) {
            body.to_owned()
        } else {
            let mut scope = Scope::new(self.globals(page));
            let mut host = SiteHost { jekyll: self, cx };
            liquid::render(body, &mut scope, &mut host)
        };
        kramdown(&tables::generated_to_markdown(&rendered, body))
    }

    fn heading_id(&self, text: &str) -> String {
        kramdown_id(text)
    }

    fn title(&self, rel: &str, frontmatter: Option<&Map<String, Value>>) -> Option<String> {
        if super::field(frontmatter, "title").is_some() {
            return None;
        }
        // A post without a title shows its file name's title, capitalised.
        let (collection, inside) = self.collection_of(rel)?;
        if collection.label != "posts" {
            return None;
        }
        let name = super::strip_page_extension(inside.rsplit('/').next().unwrap_or(inside));
        let (_, slug) = post_date(name)?;
        Some(
            slug.split('-')
                .filter(|w| !w.is_empty())
                .map(|w| {
                    let mut c = w.chars();
                    c.next()
                        .map(|f| f.to_uppercase().chain(c).collect::<String>())
                        .unwrap_or_default()
                })
                .collect::<Vec<_>>()
                .join(" "),
        )
    }

    fn urls(&self, rel: &str, frontmatter: Option<&Map<String, Value>>) -> Vec<String> {
        let mut urls: Vec<String> = self.url_of(rel, frontmatter).into_iter().collect();
        // jekyll-redirect-from publishes a redirect at each of these.
        match frontmatter.and_then(|fm| fm.get("redirect_from")) {
            Some(Value::String(s)) => urls.push(s.clone()),
            Some(Value::Array(items)) => {
                urls.extend(items.iter().filter_map(|v| v.as_str().map(str::to_owned)))
            }
            _ => {}
        }
        urls
    }
}

fn has_liquid(text: &str) -> bool {
    text.contains("{{") || text.contains("{%")
}

/// The site side of Liquid for one page: includes read through the include stack, URLs
/// of other files.
struct SiteHost<'j, 'c, 'a> {
    jekyll: &'j Jekyll,
    cx: &'c mut RenderCx<'a>,
}

impl Host for SiteHost<'_, '_, '_> {
    fn include(
        &mut self,
        name: &str,
        relative: bool,
        params: Map<String, Value>,
        scope: &mut Scope,
    ) -> String {
        if scope.too_deep() {
            return String::new();
        }
        let path = if relative {
            Sources::join(&self.cx.current_dir(), name)
        } else {
            let dir = Sources::join(self.cx.sources.docs_dir(), &self.jekyll.includes_dir);
            Sources::join(&dir, name)
        };
        let path = super::include::normalize(&path);
        if let Err(error) = self.cx.stack.enter(&path, self.cx.sources) {
            self.cx.include_error(None, error);
            return String::new();
        }
        let out = match self.cx.sources.read(&path) {
            Ok(text) => {
                let mut frame = Map::new();
                frame.insert("include".into(), Value::Object(params));
                let out = scope.with_frame(frame, |scope| liquid::render(&text, scope, self));
                // A one-line include (a badge) is used inside a line: its file's final
                // line break would split that line.
                match out.strip_suffix('\n') {
                    Some(line) if !line.contains('\n') => line.to_owned(),
                    _ => out,
                }
            }
            Err(error) => {
                self.cx.include_error(None, error);
                String::new()
            }
        };
        self.cx.stack.leave();
        out
    }

    fn link(&mut self, path: &str) -> String {
        let rel = path.trim().trim_start_matches('/');
        let url = self.jekyll.page_urls.get(rel).cloned();
        if url.is_none() && self.cx.sources.doc(rel).is_none() {
            self.cx.warn(
                None,
                format!("`{{% link {rel} %}}` names a file that does not exist (Jekyll stops the build here)"),
                "give the path of an existing file from the site source, e.g. `_docs/install.md`",
            );
        }
        let url = url.unwrap_or_else(|| format!("/{rel}"));
        with_base(&self.jekyll.settings.base_path, &url)
    }

    fn post_url(&mut self, name: &str) -> String {
        let wanted = super::strip_page_extension(name.trim().trim_start_matches('/'));
        let found = self.jekyll.page_urls.iter().find(|(rel, _)| {
            self.jekyll.collection_of(rel).is_some_and(|(c, inside)| {
                c.label == "posts"
                    && (super::strip_page_extension(inside) == wanted
                        || super::strip_page_extension(inside).rsplit('/').next() == Some(wanted))
            })
        });
        match found {
            Some((_, url)) => with_base(&self.jekyll.settings.base_path, url),
            None => {
                self.cx.warn(
                    None,
                    format!("`{{% post_url {wanted} %}}` names no post in `_posts` (Jekyll stops the build here)"),
                    "name a post by its file name without extension, e.g. `2010-07-21-name`",
                );
                format!("/_posts/{wanted}")
            }
        }
    }
}

fn with_base(base: &str, url: &str) -> String {
    let base = base.trim_end_matches('/');
    format!("{base}{url}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile::walk::SourceFile;

    const CONFIG: &str = r#"
baseurl: ""
url: https://docs.example.org
repository: https://github.com/example/site
version: 4.4.1
collections:
  docs:
    permalink: "/:collection/:path/"
    output: true
  posts:
    permalink: "/blog/:year/:month/:day/:title/"
    output: true
  hidden:
    output: false
defaults:
- scope:
    path: _docs/old
  values:
    published: false
exclude:
- readme.md
"#;

    struct Tree {
        _dir: tempfile::TempDir,
        docs: PathBuf,
        files: Vec<SourceFile>,
        jekyll: Jekyll,
    }

    fn tree(files: &[(&str, &str)]) -> Tree {
        let dir = tempfile::tempdir().unwrap();
        let docs = dir.path().join("docs");
        for (rel, text) in files.iter().chain(&[("_config.yml", CONFIG)]) {
            let path = docs.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        let config = parse_yaml(CONFIG).unwrap().as_object().unwrap().clone();
        let mut report = Report::new(false);
        let jekyll = Jekyll::from_config(config, &docs, &mut report);
        let mut sources: Vec<SourceFile> = files
            .iter()
            .map(|(rel, text)| SourceFile {
                rel: (*rel).into(),
                bytes: text.as_bytes().to_vec(),
            })
            .collect();
        sources.sort_by(|a, b| a.rel.cmp(&b.rel));
        Tree {
            docs,
            files: sources,
            jekyll,
            _dir: dir,
        }
    }

    impl Tree {
        fn render(&self, rel: &str) -> (String, Vec<super::super::page::Problem>) {
            let file = self.files.iter().find(|f| f.rel == rel).unwrap();
            let text = std::str::from_utf8(&file.bytes).unwrap();
            let fm = crate::compile::frontmatter::parse(text).ok().flatten();
            let page = Page {
                rel,
                text,
                body_offset: crate::compile::frontmatter::body_offset(text),
                frontmatter: fm.as_ref().map(|f| &f.fields),
            };
            let sources = Sources::new(&self.docs, self.docs.parent().unwrap(), &self.files);
            let mut cx = RenderCx::new(&sources, self.jekyll.settings(), rel);
            let out = self.jekyll.render(&page, &mut cx);
            (out, cx.problems)
        }
    }

    fn body(tree: &Tree, rel: &str) -> String {
        let (out, problems) = tree.render(rel);
        assert!(problems.is_empty(), "{problems:?}");
        out
    }

    #[test]
    fn plain_markdown_is_kept_byte_for_byte() {
        let text =
            "---\ntitle: T\n---\n# T\n\nText with {braces} and `code`.\n\n```\n{: .note}\n```\n";
        let t = tree(&[("a.md", text)]);
        assert_eq!(
            body(&t, "a.md"),
            "# T\n\nText with {braces} and `code`.\n\n```\n{: .note}\n```\n"
        );
    }

    #[test]
    fn site_variables_urls_and_links() {
        let page = "---\ntitle: A\n---\n[#1]({{ site.repository }}/issues/1) [b]({{ '/docs/b/' | relative_url }}) [c]({% link _docs/sub/c.md %}) [p]({% post_url 2020-01-02-hello %})\n";
        let t = tree(&[
            ("_docs/a.md", page),
            ("_docs/sub/c.md", "---\ntitle: C\n---\n"),
            ("_posts/2020-01-02-hello.markdown", "---\n---\nhi\n"),
        ]);
        assert_eq!(
            body(&t, "_docs/a.md"),
            "[#1](https://github.com/example/site/issues/1) [b](/docs/b/) [c](/docs/sub/c/) [p](/blog/2020/01/02/hello/)\n"
        );
        let (_, problems) =
            tree(&[("a.md", "---\n---\n{% link _docs/nope.md %}\n")]).render("a.md");
        assert!(problems[0].message.contains("does not exist") && !problems[0].error);
    }

    #[test]
    fn includes_render_as_liquid_and_missing_ones_are_errors() {
        let t = tree(&[
            (
                "a.md",
                "---\n---\n## New {%- include badge.html version=\"4.0\" -%}\n{: #new}\n\n{% include table.html scope=site.data.vars %}\n",
            ),
            (
                "_includes/badge.html",
                "<span class=\"badge\">{{ include.version }}</span>\n",
            ),
            (
                "_includes/table.html",
                "<table>\n{% for v in include.scope %}\n<tr><td>{{ v.name }}</td></tr>\n{% endfor %}\n</table>\n",
            ),
            ("_data/vars.yml", "- name: site\n- name: page\n"),
        ]);
        assert_eq!(
            body(&t, "a.md"),
            "## New<span class=\"badge\">4.0</span> {#new}\n\n\n| site |\n| --- |\n| page |\n\n\n"
        );
        let (_, problems) = tree(&[("a.md", "---\n---\n{% include nope.html %}\n")]).render("a.md");
        assert!(problems[0].error && problems[0].message.contains("does not exist"));
        let (_, problems) = tree(&[
            ("_includes/x.html", "{% include x.html %}"),
            ("a.md", "---\n---\n{% include x.html %}\n"),
        ])
        .render("a.md");
        assert!(
            problems[0].message.contains("includes itself"),
            "{problems:?}"
        );
    }

    #[test]
    fn attribute_lists_make_callouts_and_heading_ids() {
        let text = "---\n---\n## 4.4.1 / 2025\n{: #v4-4-1}\n\n{: .note .warning}\nCareful\nnow.\n\nPara.\n{: .note}\n\n{: .image-description}\nCaption.\n\n* TOC\n{:toc}\n\n{::options parse_block_html=\"true\" /}\n";
        let t = tree(&[("a.md", text)]);
        assert_eq!(
            body(&t, "a.md"),
            "## 4.4.1 / 2025 {#v4-4-1}\n\n> **Warning**\n>\n> Careful\n> now.\n\n> **Note**\n>\n> Para.\n\nCaption.\n\n\n"
        );
    }

    #[test]
    fn raw_and_highlight() {
        let text = "---\n---\n{% raw %}\n```liquid\n{{ page.title }}\n```\n{% endraw %}\n\n{% highlight ruby %}\nputs 1\n{% endhighlight %}\n";
        let t = tree(&[("a.md", text)]);
        assert_eq!(
            body(&t, "a.md"),
            "```liquid\n{{ page.title }}\n```\n\n```ruby\nputs 1\n```\n"
        );
    }

    #[test]
    fn roles_follow_the_config() {
        let t = tree(&[]);
        let j = &t.jekyll;
        assert_eq!(j.role("_docs/a.md", None), Role::Page);
        assert_eq!(j.role("_posts/2020-01-02-x.markdown", None), Role::Page);
        assert!(matches!(
            j.role("_posts/notes.md", None),
            Role::Skip(Skip::Unpublished(_))
        ));
        assert!(matches!(
            j.role("_drafts/x.md", None),
            Role::Skip(Skip::Unpublished(_))
        ));
        assert!(matches!(
            j.role("_hidden/x.md", None),
            Role::Skip(Skip::Unpublished(_))
        ));
        assert!(matches!(
            j.role("_docs/old/x.md", None),
            Role::Skip(Skip::Unpublished(_))
        ));
        assert_eq!(j.role("_includes/x.md", None), Role::Skip(Skip::Partial));
        assert_eq!(j.role("_layouts/x.md", None), Role::Skip(Skip::SiteFile));
        assert_eq!(j.role("pages/_part.md", None), Role::Skip(Skip::Partial));
        let mut fm = Map::new();
        fm.insert("published".into(), Value::Bool(false));
        assert!(matches!(
            j.role("pages/x.md", Some(&fm)),
            Role::Skip(Skip::Unpublished(_))
        ));
        assert!(j.settings.excludes.iter().any(|e| e == "readme.md"));
    }

    #[test]
    fn urls_titles_and_nav() {
        let t = tree(&[
            ("_docs/index.md", "---\ntitle: Q\npermalink: /docs/\n---\n"),
            (
                "_docs/install/ruby.md",
                "---\ntitle: R\nredirect_from: /old/ruby/\n---\n",
            ),
            ("_posts/2016-10-06-release-3-3-is-here.md", "---\n---\n"),
            (
                "_data/docs_nav.yml",
                "- title: Start\n  docs:\n  - link: /docs/install/ruby/\n  - link: /docs/\n",
            ),
        ]);
        let j = &t.jekyll;
        let fm: Map<String, Value> =
            serde_json::from_str(r#"{"redirect_from": "/old/ruby/"}"#).unwrap();
        assert_eq!(
            j.urls("_docs/install/ruby.md", Some(&fm)),
            ["/docs/install/ruby/", "/old/ruby/"]
        );
        assert_eq!(
            j.urls("_posts/2016-10-06-release-3-3-is-here.md", None),
            ["/blog/2016/10/06/release-3-3-is-here/"]
        );
        assert_eq!(
            j.title("_posts/2016-10-06-release-3-3-is-here.md", None)
                .as_deref(),
            Some("Release 3 3 Is Here")
        );
        assert_eq!(
            j.settings.nav,
            [
                ("_docs/install/ruby.md".to_owned(), None),
                ("_docs/index.md".to_owned(), None)
            ]
        );
        assert_eq!(
            j.settings
                .variables
                .get("site.repository")
                .map(String::as_str),
            Some("https://github.com/example/site")
        );
    }

    #[test]
    fn a_broken_config_is_a_warning_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("_config.yml");
        std::fs::write(&config, "exclude: [unclosed\n").unwrap();
        let detection = Detection {
            flavor: Flavor::Jekyll,
            why: String::new(),
            docs: dir.path().to_path_buf(),
            project: dir.path().to_path_buf(),
            config: Some(config),
            boundary: dir.path().to_path_buf(),
            release_epoch: None,
        };
        let mut report = Report::new(false);
        let jekyll = Jekyll::load(&detection, &mut report);
        assert_eq!(jekyll.settings.base_path, "/");
        let shown = format!("{report:?}");
        assert!(
            shown.contains("_config.yml") && shown.contains("cannot read the Jekyll config"),
            "{shown}"
        );
    }

    #[test]
    fn kramdown_ids() {
        assert_eq!(
            kramdown_id("Front Matter Defaults"),
            "front-matter-defaults"
        );
        assert_eq!(
            kramdown_id("4.0 Release: `where` filter"),
            "release-where-filter"
        );
        assert_eq!(kramdown_id("v4.4.1"), "v441");
        assert_eq!(kramdown_id("123"), "section");
    }
}
