//! Hugo.
//!
//! **Reads** the site config (`hugo.toml`, `hugo.yaml` or `hugo.json` beside or above the
//! content folder): `baseURL` (its path is the base path), `title`, `[params]` (site
//! variables `params.<name>` for `{{< param >}}`), `dataDir`; the files of the data folder
//! (`data/*.yaml|toml|json`), which shortcodes read; and every content page's front matter
//! (YAML `---` or TOML `+++`), once, for cascades, listings, titles, weights and lookups.
//!
//! **Serves** each page Hugo renders — regular pages, leaf bundles (`index.md`) and
//! section pages (`_index.md`) — with its shortcodes run as Hugo runs them, before
//! markdown and in code blocks too: `{{% include "/_common/x.md" %}}` expanded in place
//! (the page found by path relative to the page, then from the content root; front
//! matter dropped; its own shortcodes run; cycles and missing pages are errors);
//! `{{< ref >}}`/`{{< relref >}}` as the page's URL; `code-toggle` as a fenced code block
//! (data from `data/docs.yaml` as TOML); `new-in`/`deprecated-in` as "New in v0.x" (a
//! labelled blockquote around their content); `details` as a labelled blockquote;
//! `highlight` as fenced code; `param`, `eturl`, `get-page-desc`, `glossary-term` as the
//! text they stand for; images and embeds as links; page listings, data tables and the
//! glossary as markdown lists, tables and headings; escaped examples `{{</* x */>}}` as
//! the `{{< x >}}` Hugo prints. Shortcodes of the Hugo docs site follow SHORTCODES.md of
//! that tree (its templates carry no licence); an unknown shortcode is reported, its
//! tags dropped and its content kept. Render hooks: GitHub alerts `> [!NOTE]` become
//! `> **Note**`; `[term](g)` links point at the glossary entry (the term, its singular, or
//! the docs site's few irregular forms); a link destination Hugo's `GetPage` finds and a
//! plain lookup does not (another letter case, a content-root path written without `/`)
//! is rewritten to the page's URL, as the link hook writes it; with
//! `markup.goldmark.parser.attribute.block` on, `{.class}` lines under a block are
//! dropped. Headings get Hugo's default (`github`) ids; pages are also found at their
//! lowercased URL, `url:`, `slug:` and `aliases:`; nav order is Hugo's: by section, then
//! `weight` (unweighted last), then `linkTitle`/`title`, then path, with `linkTitle` as
//! the nav label (never the title); a section without `title` is titled from its folder.
//!
//! **Skips**: drafts (`draft: true`); pages expired or not yet published on the release
//! date (`SKILLPACK_RELEASE_DATE`, else `SOURCE_DATE_EPOCH`, stands for Hugo's build time;
//! the keys are the config's `[frontmatter] expiryDate`/`publishDate`, Hugo's defaults
//! otherwise; without a release date nothing expires, as a build never reads the clock);
//! pages Hugo does not render (`build.render: never`
//! or `link`, `_build`, `headless: true`): as partials when the page reaches readers
//! another way (an include target, or a headless bundle: `cascade: {build: {render:
//! never}}` on a section's `_index.md`, which covers the section itself), else as
//! unpublished; non-markdown files such as content adapters (`_content.gotmpl`) are site
//! files.

mod content;
mod data;
mod listings;
mod render;
mod shortcodes;
mod tags;

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::{Detection, Flavor, Generator, Page, RenderCx, Role, Settings, Skip, field, flag};
use crate::compile::diag::Report;
use crate::site::links::url_key;
use content::{Content, Publish, weight_of};

pub struct Hugo {
    settings: Settings,
    content: Content,
    /// The data folder's files by name (`docs`, `embedded_template_urls`).
    data: Map<String, Value>,
    /// `markup.goldmark.parser.attribute.block`: `{.class}` lines under blocks are
    /// attributes, not text.
    block_attributes: bool,
    /// `markup.goldmark.parser.autoDefinitionTermID`: definition terms get ids links use.
    definition_term_ids: bool,
    /// The release date (seconds), which stands for Hugo's build time in expiry and
    /// publish dates; without one no page expires (a build never reads the clock).
    release_epoch: Option<u64>,
    /// Front matter keys (lowercased) Hugo reads a page's expiry and publish dates from.
    expiry_keys: Vec<String>,
    publish_keys: Vec<String>,
}

impl Hugo {
    pub fn load(detection: &Detection, report: &mut Report) -> Hugo {
        let config = read_config(detection, report);
        let mut settings = Settings {
            base_path: base_path(config.get("baseURL").and_then(Value::as_str).unwrap_or("/")),
            config_file: detection.config.as_ref().map(|c| {
                c.strip_prefix(&detection.project)
                    .unwrap_or(c)
                    .display()
                    .to_string()
            }),
            ..Settings::default()
        };
        if let Some(title) = config.get("title").and_then(Value::as_str) {
            settings
                .variables
                .insert("site.title".into(), title.to_owned());
        }
        if let Some(params) = config.get("params") {
            flatten("params", params, &mut settings.variables);
        }
        let data_dir = config
            .get("dataDir")
            .and_then(Value::as_str)
            .unwrap_or("data");
        let (data, problems) = data::load_data_dir(&detection.project.join(data_dir));
        for (file, error) in problems {
            report.warning(
                file,
                None,
                format!("Hugo data file does not parse: {error}"),
                "fix its syntax; shortcodes that read it render nothing until then",
            );
        }
        let content = Content::scan(&detection.docs);
        let block_attributes = data::at(
            &Value::Object(config.clone()),
            "markup.goldmark.parser.attribute.block",
        )
        .and_then(Value::as_bool)
        .unwrap_or(false);
        let definition_term_ids = data::at(
            &Value::Object(config.clone()),
            "markup.goldmark.parser.autoDefinitionTermID",
        )
        .and_then(Value::as_bool)
        .unwrap_or(false);
        let date_keys = |name: &str, default: &[&str]| -> Vec<String> {
            match config.get("frontmatter").and_then(|f| f.get(name)) {
                Some(Value::Array(keys)) => keys
                    .iter()
                    .filter_map(Value::as_str)
                    .filter(|k| !k.starts_with(':'))
                    .map(str::to_lowercase)
                    .collect(),
                _ => default.iter().map(|k| (*k).to_owned()).collect(),
            }
        };
        let mut hugo = Hugo {
            settings,
            content,
            data,
            block_attributes,
            definition_term_ids,
            release_epoch: detection.release_epoch,
            expiry_keys: date_keys("expiryDate", &["expirydate", "unpublishdate"]),
            publish_keys: date_keys(
                "publishDate",
                &["publishdate", "pubdate", "published", "date"],
            ),
        };
        hugo.settings.nav = hugo.nav();
        hugo
    }

    /// The front matter the shared step read, else the one the scan read (TOML `+++`).
    fn front_matter<'a>(
        &'a self,
        rel: &str,
        given: Option<&'a Map<String, Value>>,
    ) -> Option<&'a Map<String, Value>> {
        given.or_else(|| self.content.meta(rel).map(|m| &m.fm))
    }

    /// Why Hugo leaves the page out on the release date: expired (`expiryDate` on or
    /// before it) or not yet published (`publishDate`/`date` after it).
    fn out_of_date(&self, fm: Option<&Map<String, Value>>) -> Option<String> {
        let epoch = self.release_epoch?;
        let fm = fm?;
        let date = |keys: &[String]| {
            keys.iter().find_map(|key| {
                let (name, value) = fm.iter().find(|(k, _)| k.to_lowercase() == *key)?;
                let text = value.as_str()?.trim();
                let day = crate::compile::date::parse_date(text.get(..10)?)?;
                Some((name.clone(), text.to_owned(), day - 86_399))
            })
        };
        if let Some((name, text, start)) = date(&self.expiry_keys)
            && start <= epoch
        {
            return Some(format!(
                "expired on {text} (`{name}`), before the release date"
            ));
        }
        if let Some((name, text, start)) = date(&self.publish_keys)
            && start > epoch
        {
            return Some(format!(
                "published on {text} (`{name}`), after the release date"
            ));
        }
        None
    }

    /// Whether Hugo lists the page: rendered, not a draft.
    fn is_listed(&self, rel: &str) -> bool {
        matches!(
            self.role(rel, self.content.meta(rel).map(|m| &m.fm)),
            Role::Page
        )
    }

    /// Hugo's default page order: `weight` (unweighted last), then the link title, then
    /// the path.
    fn sort_pages(&self, pages: &mut [String]) {
        pages.sort_by_cached_key(|rel| {
            let fm = self.content.meta(rel).map(|m| &m.fm);
            let weight = weight_of(fm);
            (
                weight == 0,
                weight,
                self.link_title(rel).to_lowercase(),
                rel.clone(),
            )
        });
    }

    /// `title`, else the section's name as Hugo titles it, else the file's name.
    fn page_title(&self, rel: &str) -> String {
        let fm = self.content.meta(rel).map(|m| &m.fm);
        field(fm, "title")
            .map(str::to_owned)
            .unwrap_or_else(|| default_title(rel))
    }

    fn link_title(&self, rel: &str) -> String {
        let fm = self.content.meta(rel).map(|m| &m.fm);
        field(fm, "linkTitle")
            .map(str::to_owned)
            .unwrap_or_else(|| self.page_title(rel))
    }

    /// Every listed page in nav order: a section's `_index.md`, then its pages and
    /// subsections sorted together.
    fn nav(&self) -> Vec<(String, Option<String>)> {
        let mut sections: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for rel in self.content.pages.keys() {
            if rel == "_index.md" || !self.is_listed(rel) {
                continue;
            }
            if let Some(section) = self.content.section_of(rel) {
                sections.entry(section).or_default().push(rel.clone());
            }
        }
        let mut out = Vec::new();
        if self.content.pages.contains_key("_index.md") && self.is_listed("_index.md") {
            out.push(("_index.md".to_owned(), Some(self.link_title("_index.md"))));
        }
        self.nav_section("", &mut sections, &mut out, 0);
        out
    }

    fn nav_section(
        &self,
        dir: &str,
        sections: &mut BTreeMap<String, Vec<String>>,
        out: &mut Vec<(String, Option<String>)>,
        depth: usize,
    ) {
        let Some(mut children) = sections.remove(dir) else {
            return;
        };
        self.sort_pages(&mut children);
        for rel in children {
            out.push((rel.clone(), Some(self.link_title(&rel))));
            if let Some(sub) = rel.strip_suffix("/_index.md")
                && depth < 64
            {
                self.nav_section(sub, sections, out, depth + 1);
            }
        }
    }
}

impl Generator for Hugo {
    fn flavor(&self) -> Flavor {
        Flavor::Hugo
    }

    fn settings(&self) -> &Settings {
        &self.settings
    }

    fn role(&self, rel: &str, frontmatter: Option<&Map<String, Value>>) -> Role {
        let frontmatter = self.front_matter(rel, frontmatter);
        if flag(frontmatter, "draft") {
            return Role::Skip(Skip::Unpublished("`draft: true`".into()));
        }
        if let Some(why) = self.out_of_date(frontmatter) {
            return Role::Skip(Skip::Unpublished(why));
        }
        match self.content.publish(rel, frontmatter) {
            Publish::Rendered => Role::Page,
            Publish::NotRenderedCascade(_) => Role::Skip(Skip::Partial),
            Publish::NotRenderedOwn(_) if self.content.include_targets.contains(rel) => {
                Role::Skip(Skip::Partial)
            }
            Publish::NotRenderedOwn(why) => Role::Skip(Skip::Unpublished(why)),
        }
    }

    fn render(&self, page: &Page<'_>, cx: &mut RenderCx<'_>) -> String {
        self.render_body(page, cx)
    }

    fn heading_id(&self, text: &str) -> String {
        render::anchorize(text)
    }

    fn definition_term_ids(&self) -> bool {
        self.definition_term_ids
    }

    fn title(&self, rel: &str, frontmatter: Option<&Map<String, Value>>) -> Option<String> {
        if field(frontmatter, "title").is_some() {
            return None;
        }
        // TOML front matter: the shared step does not read it, the scan did.
        if let Some(title) = field(self.front_matter(rel, None), "title") {
            return Some(title.to_owned());
        }
        if rel == "_index.md" {
            return self.settings.variables.get("site.title").cloned();
        }
        rel.ends_with("/_index.md").then(|| default_title(rel))
    }

    fn urls(&self, rel: &str, frontmatter: Option<&Map<String, Value>>) -> Vec<String> {
        let frontmatter = self.front_matter(rel, frontmatter);
        let key = url_key(rel);
        let mut urls = vec![key.to_lowercase()];
        let dir = key.rsplit_once('/').map_or("", |(d, _)| d);
        if let Some(url) = field(frontmatter, "url") {
            urls.push(url.trim_matches('/').to_owned());
        }
        if let Some(slug) = field(frontmatter, "slug")
            && !rel.ends_with("_index.md")
        {
            let section = if rel.ends_with("/index.md") {
                dir.rsplit_once('/').map_or("", |(d, _)| d)
            } else {
                dir
            };
            let url = if section.is_empty() {
                slug.to_owned()
            } else {
                format!("{section}/{slug}")
            };
            urls.push(url.to_lowercase());
            urls.push(url);
        }
        let aliases = frontmatter.and_then(|fm| fm.get("aliases"));
        let aliases: Vec<&str> = match aliases {
            Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).collect(),
            Some(Value::String(one)) => vec![one.as_str()],
            _ => Vec::new(),
        };
        for alias in aliases {
            let alias = alias.trim();
            let url = match alias.strip_prefix('/') {
                Some(absolute) => absolute.to_owned(),
                None => content::join(dir, alias).unwrap_or_default(),
            };
            urls.push(url.trim_matches('/').to_owned());
        }
        urls.retain(|u| *u != key);
        urls.dedup();
        urls
    }
}

/// The site config as JSON, or an empty object (with a warning) when it does not parse.
fn read_config(detection: &Detection, report: &mut Report) -> Map<String, Value> {
    let Some(path) = &detection.config else {
        return Map::new();
    };
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) => {
            report.warning(
                path.display().to_string(),
                None,
                format!("cannot read the Hugo config: {error}"),
                "make it readable; the site is read with Hugo's defaults until then",
            );
            return Map::new();
        }
    };
    match data::parse_by_extension(path, &text) {
        Ok(Value::Object(map)) => map,
        Ok(_) => Map::new(),
        Err(error) => {
            report.warning(
                path.display().to_string(),
                None,
                format!("the Hugo config does not parse: {error}"),
                "fix its syntax (`hugo config` shows what Hugo reads); the site is read with Hugo's defaults until then",
            );
            Map::new()
        }
    }
}

/// The path of `baseURL` (`https://example.org/docs/` → `/docs/`).
fn base_path(base_url: &str) -> String {
    let after_scheme = base_url
        .split_once("://")
        .map_or(base_url, |(_, rest)| rest);
    let path = if base_url.contains("://") {
        after_scheme.find('/').map_or("", |i| &after_scheme[i..])
    } else {
        after_scheme
    };
    let path = path.trim_matches('/');
    if path.is_empty() {
        "/".into()
    } else {
        format!("/{path}/")
    }
}

/// Scalars of `value` as dotted variables under `prefix` (`params.ghrepo`).
fn flatten(prefix: &str, value: &Value, out: &mut BTreeMap<String, String>) {
    match value {
        Value::Object(map) => {
            for (key, value) in map {
                flatten(&format!("{prefix}.{key}"), value, out);
            }
        }
        Value::String(s) => {
            out.insert(prefix.to_owned(), s.clone());
        }
        Value::Number(_) | Value::Bool(_) => {
            out.insert(prefix.to_owned(), value.to_string());
        }
        _ => {}
    }
}

/// The title Hugo gives a page without one: its section's (or bundle's or file's) name,
/// words capitalized (`capitalizeListTitles`).
fn default_title(rel: &str) -> String {
    let key = url_key(rel);
    let name = key.rsplit('/').next().unwrap_or(&key);
    name.split(['-', '_', ' '])
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut chars = w.chars();
            chars
                .next()
                .map(|c| c.to_uppercase().chain(chars).collect::<String>())
                .unwrap_or_default()
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests;
