//! The shortcodes that list pages or data: `render-list-of-pages-in-section`,
//! `render-table-of-pages-in-section`, `quick-reference`, `datatable`, `chroma-lexers`,
//! the highlighting style gallery and `root-configuration-keys`. They read the content
//! tree and data/docs.yaml, and write markdown definition lists, tables and headings.

use serde_json::Value;

use super::Hugo;
use super::content::logical_path;
use super::data::{at, cell};
use super::render::page_url;
use super::render::{Place, anchorize};
use super::tags::Tag;
use crate::site::RenderCx;

impl Hugo {
    /// The regular pages of the section at `path`, in Hugo's order, filtered by a list
    /// of data/page_filters.yaml (`filterType` include or exclude).
    pub(super) fn section_pages(
        &self,
        tag: &Tag,
        place: &Place<'_>,
        cx: &mut RenderCx<'_>,
    ) -> Vec<String> {
        let path = tag.arg("path", 0).unwrap_or("");
        let Some(index) = self.content.get_page(None, path) else {
            cx.warn(
                place.line,
                format!("{}: no section `{path}`", tag.name),
                "fix the `path` argument (Hugo fails on it too)",
            );
            return Vec::new();
        };
        let dir = index.rsplit_once('/').map_or("", |(d, _)| d).to_owned();
        let filter: Option<Vec<String>> = tag.named("filter").map(|name| {
            let list = self
                .data
                .get("page_filters")
                .and_then(|f| f.get(name))
                .and_then(Value::as_array);
            if list.is_none() {
                self.warn_data(
                    place,
                    cx,
                    format!("{}: data/page_filters.yaml has no `{name}`", tag.name),
                );
            }
            list.into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(|p| p.trim_end_matches('/').to_lowercase())
                .collect()
        });
        let include = tag.named("filterType").is_none_or(|t| t != "exclude");
        let mut pages: Vec<String> = self
            .content
            .children(&dir)
            .into_iter()
            .filter(|rel| !rel.ends_with("_index.md") && self.is_listed(rel))
            .filter(|rel| match &filter {
                Some(list) => list.contains(&logical_path(rel).to_lowercase()) == include,
                None => true,
            })
            .map(str::to_owned)
            .collect();
        self.sort_pages(&mut pages);
        pages
    }

    /// `render-list-of-pages-in-section` (a definition list: linked title, description)
    /// and `render-table-of-pages-in-section` (the same as a table).
    pub(super) fn pages_in_section(
        &self,
        tag: &Tag,
        place: &Place<'_>,
        cx: &mut RenderCx<'_>,
        table: bool,
    ) -> String {
        let prefix = tag
            .args
            .iter()
            .rev()
            .find(|(k, _)| k.as_deref() == Some("titlePrefix"))
            .map_or("", |(_, v)| v.as_str());
        let pages = self.section_pages(tag, place, cx);
        let mut out = String::new();
        if table {
            out.push_str("| Page | Description |\n| --- | --- |\n");
        }
        for rel in &pages {
            let title = self.page_title(rel);
            let link = format!("[{prefix}{title}]({})", page_url(rel));
            let description = self.description(rel);
            if table {
                out.push_str(&format!(
                    "| {link} | {} |\n",
                    description.replace('|', "\\|")
                ));
            } else {
                out.push_str(&format!("{link}\n: {description}\n\n"));
            }
        }
        out.trim_end().to_owned()
    }

    /// `{{% quick-reference section="functions" %}}`: each subsection with its pages.
    pub(super) fn quick_reference(
        &self,
        tag: &Tag,
        place: &Place<'_>,
        cx: &mut RenderCx<'_>,
    ) -> String {
        let section = tag.arg("section", 0).unwrap_or("").trim_matches('/');
        let mut sections: Vec<String> = self
            .content
            .children(section)
            .into_iter()
            .filter(|rel| rel.ends_with("/_index.md") && self.is_listed(rel))
            .map(str::to_owned)
            .collect();
        if sections.is_empty() {
            cx.warn(
                place.line,
                format!("quick-reference: no sections under `{section}`"),
                "fix the `section` argument",
            );
        }
        self.sort_pages(&mut sections);
        let mut out = String::new();
        for index in sections {
            let dir = index.trim_end_matches("/_index.md");
            out.push_str(&format!("## {}\n\n", self.page_title(&index)));
            let mut pages: Vec<String> = self
                .content
                .children(dir)
                .into_iter()
                .filter(|rel| !rel.ends_with("_index.md") && self.is_listed(rel))
                .map(str::to_owned)
                .collect();
            self.sort_pages(&mut pages);
            for rel in pages {
                let aliases = self.function_aliases(&rel);
                out.push_str(&format!(
                    "[{}]({}){aliases}\n: {}\n\n",
                    self.page_title(&rel),
                    page_url(&rel),
                    self.description(&rel)
                ));
            }
        }
        out.trim_end().to_owned()
    }

    /// ` (T, i18n)`: a function's aliases, as the quick reference shows them.
    pub(super) fn function_aliases(&self, rel: &str) -> String {
        let aliases = self.content.meta(rel).and_then(|m| {
            at(
                &Value::Object(m.fm.clone()),
                "params.functions_and_methods.aliases",
            )
            .cloned()
        });
        match aliases.as_ref().and_then(Value::as_array) {
            Some(list) if !list.is_empty() => format!(" ({})", cell(&Value::Array(list.clone()))),
            _ => String::new(),
        }
    }

    pub(super) fn description(&self, rel: &str) -> String {
        self.content
            .meta(rel)
            .and_then(|m| m.str("description"))
            .unwrap_or("")
            .to_owned()
    }

    /// `{{< datatable "config" "mediaTypes" "_key" "suffixes" >}}`: a table of the map (or
    /// list) at `config.mediaTypes` in data/docs.yaml, one column per named field (`_key`:
    /// the map key).
    pub(super) fn datatable(&self, tag: &Tag, place: &Place<'_>, cx: &mut RenderCx<'_>) -> String {
        let args: Vec<&str> = tag.positionals().collect();
        if args.len() < 3 {
            cx.warn(
                place.line,
                "datatable needs a data path and columns",
                "write `{{< datatable \"config\" \"mediaTypes\" \"_key\" \"suffixes\" >}}`",
            );
            return String::new();
        }
        let path = format!("{}.{}", args[0], args[1]);
        let Some(value) = self.data.get("docs").and_then(|d| at(d, &path)) else {
            self.warn_data(
                place,
                cx,
                format!("datatable: data/docs.yaml has no `{path}`"),
            );
            return String::new();
        };
        let columns = &args[2..];
        let rows: Vec<(String, &Value)> = match value {
            Value::Object(map) => map.iter().map(|(k, v)| (k.clone(), v)).collect(),
            Value::Array(items) => items
                .iter()
                .enumerate()
                .map(|(i, v)| (i.to_string(), v))
                .collect(),
            _ => Vec::new(),
        };
        let header: Vec<&str> = columns
            .iter()
            .map(|c| if *c == "_key" { "key" } else { c })
            .collect();
        let mut out = format!(
            "| {} |\n|{}\n",
            header.join(" | "),
            " --- |".repeat(columns.len())
        );
        for (key, row) in rows {
            let cells: Vec<String> = columns
                .iter()
                .map(|c| {
                    if *c == "_key" {
                        key.clone()
                    } else {
                        row.get(*c).map(cell).unwrap_or_default()
                    }
                })
                .collect();
            out.push_str(&format!("| {} |\n", cells.join(" | ")));
        }
        out.trim_end().to_owned()
    }

    /// `{{< chroma-lexers >}}`: the languages Chroma highlights, with their identifiers.
    pub(super) fn chroma_lexers(&self) -> String {
        let lexers = self
            .data
            .get("docs")
            .and_then(|d| at(d, "chroma.lexers"))
            .and_then(Value::as_array);
        let mut out = String::from("| Language | Identifiers |\n| --- | --- |\n");
        for lexer in lexers.into_iter().flatten() {
            let name = lexer.get("Name").map(cell).unwrap_or_default();
            let aliases = lexer.get("Aliases").map(cell).unwrap_or_default();
            out.push_str(&format!("| {name} | {aliases} |\n"));
        }
        out.trim_end().to_owned()
    }

    /// The gallery of highlighting styles (a heading each, its mode and counterpart), or
    /// the table of light styles with a dark counterpart.
    pub(super) fn highlighting_styles(&self, counterparts: bool) -> String {
        let styles = self
            .data
            .get("docs")
            .and_then(|d| at(d, "chroma.styles"))
            .and_then(Value::as_array);
        let field = |s: &Value, k: &str| s.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
        let mut out = String::new();
        if counterparts {
            out.push_str("| Light style | Dark counterpart |\n| --- | --- |\n");
        }
        for style in styles.into_iter().flatten() {
            let (name, mode, counterpart) = (
                field(style, "name"),
                field(style, "mode"),
                field(style, "counterpart"),
            );
            if counterparts {
                if mode == "light" && !counterpart.is_empty() {
                    out.push_str(&format!(
                        "| [{name}](#{}) | [{counterpart}](#{}) |\n",
                        anchorize(&name),
                        anchorize(&counterpart)
                    ));
                }
            } else {
                out.push_str(&format!("### {name}\n\nMode: {mode}."));
                if !counterpart.is_empty() {
                    out.push_str(&format!(
                        " Counterpart: [{counterpart}](#{}).",
                        anchorize(&counterpart)
                    ));
                }
                out.push_str("\n\n");
            }
        }
        out.trim_end().to_owned()
    }

    /// `{{< root-configuration-keys >}}`: the top-level keys of the config, in a sentence.
    pub(super) fn root_configuration_keys(&self) -> String {
        let keys = self
            .data
            .get("docs")
            .and_then(|d| at(d, "config"))
            .and_then(Value::as_object);
        let mut names: Vec<&String> = keys.into_iter().flat_map(|m| m.keys()).collect();
        names.sort_by_key(|k| k.to_lowercase());
        names
            .iter()
            .map(|k| format!("`{k}`"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}
