//! What each shortcode renders, in markdown. Hugo's own (`ref`, `relref`, `param`,
//! `highlight`, `details`, `figure`, `qr`, `youtube`, `vimeo`, `x`, `instagram`, `gist`)
//! and those of the Hugo documentation site (`include`, `code-toggle`, `new-in`,
//! `deprecated-in`, `eturl`, `glossary-term`, `glossary`, `img`, page listings, data
//! tables…), whose templates are not in the tree: their behaviour is the one
//! SHORTCODES.md beside the Hugo docs corpus describes.

use serde_json::Value;

use super::Hugo;
use super::data::{at, cell, snippet_format, to_toml};
use super::render::{Place, anchorize, block_inner, page_url, urlize};
use super::tags::Tag;
use crate::site::links::url_key;
use crate::site::{RenderCx, markup};

/// The glossary section the `glossary`/`glossary-term` shortcodes and `[term](g)` links
/// read.
pub const GLOSSARY: &str = "quick-reference/glossary";

/// Link texts the docs site's link hook maps to a glossary term by hand, as no
/// singularizing finds them.
const IRREGULAR_TERMS: &[(&str, &str)] = &[
    ("chaining", "chain"),
    ("ci/cd", "cicd"),
    ("interleaved", "interleave"),
    ("localize", "localization"),
    ("localized", "localization"),
    ("paginating", "paginate"),
    ("walking", "walk"),
];

impl Hugo {
    /// What the shortcode `tag` (with `inner` text when paired) renders.
    pub(super) fn shortcode(
        &self,
        tag: &Tag,
        inner: Option<&str>,
        place: &Place<'_>,
        cx: &mut RenderCx<'_>,
    ) -> String {
        let name = tag.name.to_ascii_lowercase();
        match name.as_str() {
            "include" => self.include(tag, place, cx),
            "code-toggle" => self.code_toggle(tag, inner, place, cx),
            "new-in" => self.version_note("New in", tag, inner, place, cx),
            "deprecated-in" => self.version_note("Deprecated in", tag, inner, place, cx),
            "eturl" => self.eturl(tag, place, cx),
            "glossary-term" => self.glossary_term(tag, place, cx),
            "glossary" => self.glossary(place, cx),
            "img" | "imgproc" | "figure" => image(tag),
            "youtube" | "vimeo" | "x" | "tweet" | "instagram" | "gist" => embed_link(&name, tag),
            "qr" => qr(tag, inner, place),
            "highlight" => highlight(tag, inner, place),
            "hl" => format!("`{}`", inner.unwrap_or("").trim()),
            "details" => {
                let body = self.expand_inner(inner, place, cx);
                markup::blockquote("details", tag.arg("summary", 0), &body)
                    .trim_end()
                    .to_owned()
            }
            "param" => self.param(tag, place, cx),
            "ref" | "relref" => self.reference(tag, place, cx),
            "get-page-desc" => self.page_description(tag, place, cx),
            "current-go-version" => "(the Go version Hugo is built with)".into(),
            "module-mounts-note" => {
                "You can also define this directory with a [module mount](/configuration/module/#mounts).".into()
            }
            "newtemplatesystem" => markup::blockquote(
                "note",
                None,
                "Hugo's template system changed in v0.146.0: see the [new template system overview](/templates/new-templatesystem-overview/).",
            )
            .trim_end()
            .to_owned(),
            "render-list-of-pages-in-section" => self.pages_in_section(tag, place, cx, false),
            "render-table-of-pages-in-section" => self.pages_in_section(tag, place, cx, true),
            "quick-reference" => self.quick_reference(tag, place, cx),
            "datatable" => self.datatable(tag, place, cx),
            "chroma-lexers" => self.chroma_lexers(),
            "syntax-highlighting-styles" => self.highlighting_styles(false),
            "syntax-highlighting-styles-light-with-counterpart" => self.highlighting_styles(true),
            "root-configuration-keys" => self.root_configuration_keys(),
            "per-lang-config-keys" => {
                "(Hugo generates this list from its configuration data, which is not part of these docs: see the [configuration reference](/configuration/all/).)".into()
            }
            _ => {
                cx.warn(
                    place.line,
                    format!("shortcode `{}` is not one skillpack knows; its tags are left out and its content kept", tag.name),
                    "if it has a markdown meaning, describe it in the Hugo generator (src/site/hugo)",
                );
                self.expand_inner(inner, place, cx)
            }
        }
    }

    fn expand_inner(
        &self,
        inner: Option<&str>,
        place: &Place<'_>,
        cx: &mut RenderCx<'_>,
    ) -> String {
        let Some(inner) = inner else {
            return String::new();
        };
        let text = block_inner(inner, place.continuation.as_deref());
        self.expand(&text, place.scope, place.inner_base, cx)
    }

    pub(super) fn warn_data(&self, place: &Place<'_>, cx: &mut RenderCx<'_>, what: String) {
        cx.warn(
            place.line,
            what,
            "add the entry to the site's data/ folder or fix the shortcode's argument (Hugo fails on it too)",
        );
    }

    /// `{{< code-toggle file=hugo >}}…{{< /code-toggle >}}` (or `config=a.b`,
    /// `dataKey=a.b` from data/docs.yaml): one config snippet as a fenced code block, in
    /// TOML when it comes from data.
    fn code_toggle(
        &self,
        tag: &Tag,
        inner: Option<&str>,
        place: &Place<'_>,
        cx: &mut RenderCx<'_>,
    ) -> String {
        let from_data = tag
            .named("config")
            .map(|key| (format!("config.{key}"), key.split('.').collect::<Vec<_>>()))
            .or_else(|| {
                tag.named("dataKey").map(|key| {
                    let keys: Vec<&str> = if tag.named("skipHeader") == Some("true") {
                        Vec::new()
                    } else {
                        key.rsplit('.').take(1).collect()
                    };
                    (key.to_owned(), keys)
                })
            });
        let (format, code) = match from_data {
            Some((path, keys)) => {
                let Some(value) = self.data.get("docs").and_then(|docs| at(docs, &path)) else {
                    self.warn_data(
                        place,
                        cx,
                        format!("code-toggle: data/docs.yaml has no `{path}`"),
                    );
                    return String::new();
                };
                match to_toml(&keys, value) {
                    Some(toml) => ("toml", toml),
                    None => (
                        "json",
                        serde_json::to_string_pretty(value).unwrap_or_default(),
                    ),
                }
            }
            None => {
                let code = self.expand_inner(inner, place, cx);
                (snippet_format(&code), code)
            }
        };
        let mut info = format.to_owned();
        if let Some(file) = tag.named("file") {
            let last = file.rsplit('/').next().unwrap_or(file);
            let file = if last.contains('.') {
                file.to_owned()
            } else {
                format!("{file}.{format}")
            };
            info.push_str(&format!(" {{file=\"{file}\"}}"));
        }
        fenced(&info, &code)
    }

    /// `{{< new-in 0.153.0 />}}`: "New in v0.153.0"; with inner text, a note labelled so.
    fn version_note(
        &self,
        label: &str,
        tag: &Tag,
        inner: Option<&str>,
        place: &Place<'_>,
        cx: &mut RenderCx<'_>,
    ) -> String {
        let version = tag.arg("version", 0).unwrap_or("").trim();
        let version = if version.is_empty() || version.starts_with('v') {
            version.to_owned()
        } else {
            format!("v{version}")
        };
        let text = format!("{label} {version}").trim().to_owned();
        let body = self.expand_inner(inner, place, cx);
        if body.trim().is_empty() {
            return text;
        }
        let quoted = markup::blockquote(&text, None, &body);
        quoted.trim_end().to_owned()
    }

    /// `{{% eturl render-link %}}`: the URL of an embedded template's source.
    fn eturl(&self, tag: &Tag, place: &Place<'_>, cx: &mut RenderCx<'_>) -> String {
        let key = tag.arg("name", 0).unwrap_or("");
        let table = self.data.get("embedded_template_urls");
        let base = table
            .and_then(|t| t.get("base_url"))
            .and_then(Value::as_str);
        let path = table.and_then(|t| t.get(key)).and_then(Value::as_str);
        match (base, path) {
            (Some(base), Some(path)) => format!("{}/{}", base.trim_end_matches('/'), path),
            _ => {
                self.warn_data(
                    place,
                    cx,
                    format!("eturl: data/embedded_template_urls.toml has no `{key}`"),
                );
                String::new()
            }
        }
    }

    fn glossary_page(&self, term: &str) -> Option<String> {
        let path = format!("/{GLOSSARY}/{}", urlize(term));
        self.content.get_page(None, &path).map(str::to_owned)
    }

    /// `{{% glossary-term "cascade" %}}`: the body of that glossary page.
    fn glossary_term(&self, tag: &Tag, place: &Place<'_>, cx: &mut RenderCx<'_>) -> String {
        let term = tag.arg("term", 0).unwrap_or("");
        match self.glossary_page(term) {
            Some(rel) => self.embed(&rel, place, cx).unwrap_or_default(),
            None => {
                cx.warn(
                    place.line,
                    format!("glossary-term: there is no glossary page for `{term}` in {GLOSSARY}/"),
                    "fix the term, or add the glossary page (Hugo fails on it too)",
                );
                String::new()
            }
        }
    }

    /// `{{% glossary %}}`: every glossary term as a heading (its anchor is the one
    /// `[term](g)` links use) and its text.
    fn glossary(&self, place: &Place<'_>, cx: &mut RenderCx<'_>) -> String {
        let mut terms: Vec<(String, String)> = self
            .content
            .pages
            .iter()
            .filter(|(rel, _)| {
                rel.strip_prefix(GLOSSARY)
                    .and_then(|r| r.strip_prefix('/'))
                    .is_some_and(|r| !r.contains('/') && r != "_index.md")
            })
            .map(|(rel, meta)| {
                let title = meta.str("title").map(str::to_owned).unwrap_or_else(|| {
                    url_key(rel)
                        .rsplit('/')
                        .next()
                        .unwrap_or("")
                        .replace('-', " ")
                });
                (title, rel.clone())
            })
            .collect();
        terms.sort_by_key(|(title, _)| title.to_lowercase());
        let mut out = String::new();
        for (title, rel) in terms {
            let body = self.embed(&rel, place, cx).unwrap_or_default();
            if !out.is_empty() {
                out.push_str("\n\n");
            }
            out.push_str(&format!("## {title}\n\n{body}"));
        }
        out
    }

    /// `[text](g)` links: to the glossary entry of the term (or its singular), as the
    /// docs site's link render hook does; unknown terms stay (Hugo warns about them).
    pub(super) fn glossary_links(&self, line: &str) -> String {
        let mut out = String::with_capacity(line.len());
        let mut rest = line;
        while let Some(at) = rest.find("](g)") {
            let before = &rest[..at];
            let Some(open) = link_text_start(before) else {
                out.push_str(&rest[..at + 4]);
                rest = &rest[at + 4..];
                continue;
            };
            let term = plain_text(&before[open + 1..]);
            out.push_str(before);
            match self.glossary_term_anchor(&term) {
                Some(anchor) => out.push_str(&format!("](/{GLOSSARY}/#{anchor})")),
                None => out.push_str("](g)"),
            }
            rest = &rest[at + 4..];
        }
        out.push_str(rest);
        out
    }

    fn glossary_term_anchor(&self, term: &str) -> Option<String> {
        let mut forms = singular_forms(term);
        if let Some((_, base)) = IRREGULAR_TERMS.iter().find(|(given, _)| *given == term) {
            forms.push((*base).to_owned());
        }
        forms
            .into_iter()
            .find(|t| self.glossary_page(t).is_some())
            .map(|t| anchorize(&t))
    }

    /// `{{% param "minVersion" %}}`: the page's parameter, else the site's.
    fn param(&self, tag: &Tag, place: &Place<'_>, cx: &mut RenderCx<'_>) -> String {
        let name = tag.arg("name", 0).unwrap_or("");
        let from_page = place.scope.fm.and_then(|fm| {
            let fm = Value::Object(fm.clone());
            at(&fm, &format!("params.{name}"))
                .or_else(|| at(&fm, name))
                .cloned()
        });
        if let Some(value) = from_page {
            return cell(&value);
        }
        if let Some(value) = cx.variable(&format!("params.{name}")) {
            return value.to_owned();
        }
        cx.warn(
            place.line,
            format!("param: neither the page nor the site config has the parameter `{name}`"),
            "add it under `params` in the page's front matter or in hugo.toml",
        );
        String::new()
    }

    /// `{{< ref "path" >}}` / `relref`: the page's URL, found by path (relative to the page,
    /// then from the content root) or by its file name.
    fn reference(&self, tag: &Tag, place: &Place<'_>, cx: &mut RenderCx<'_>) -> String {
        let target = tag.arg("path", 0).unwrap_or("");
        let (path, fragment) = match target.split_once('#') {
            Some((p, f)) => (p, Some(f)),
            None => (target, None),
        };
        let found = if path.is_empty() {
            Some(place.scope.rel.to_owned())
        } else {
            self.content
                .get_page(Some(place.scope.rel), path)
                .map(str::to_owned)
                .or_else(|| match self.content.by_name(path) {
                    [only] => Some(only.clone()),
                    _ => None,
                })
        };
        let Some(rel) = found else {
            cx.warn(
                place.line,
                format!("{}: no page `{path}`", tag.name),
                "fix the path: it is relative to the page, or to the content root when it starts with `/` (Hugo fails with REF_NOT_FOUND)",
            );
            return target.to_owned();
        };
        let mut url = page_url(&rel);
        if let Some(fragment) = fragment {
            url.push('#');
            url.push_str(fragment);
        }
        url
    }

    /// `{{% get-page-desc "/path" %}}`: that page's `description`.
    fn page_description(&self, tag: &Tag, place: &Place<'_>, cx: &mut RenderCx<'_>) -> String {
        let path = tag.arg("path", 0).unwrap_or("");
        let description = self
            .content
            .get_page(Some(place.scope.rel), path)
            .and_then(|rel| self.content.meta(rel))
            .and_then(|meta| meta.str("description"));
        match description {
            Some(d) => d.to_owned(),
            None => {
                cx.warn(
                    place.line,
                    format!("get-page-desc: no page `{path}` with a description"),
                    "fix the path, or give the page a `description`",
                );
                String::new()
            }
        }
    }
}

/// A fenced code block long enough for the backticks inside it.
pub fn fenced(info: &str, code: &str) -> String {
    let longest = code
        .lines()
        .map(|l| l.trim_start().bytes().take_while(|&b| b == b'`').count())
        .max()
        .unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    let code = code.trim_end_matches(['\n', '\r']);
    format!("{fence}{info}\n{code}\n{fence}")
}

/// `img`, `imgproc`, `figure`: the image (linked when `link` is set) and its caption.
fn image(tag: &Tag) -> String {
    let src = tag.arg("src", 0).unwrap_or("");
    let alt = tag.named("alt").or(tag.named("title")).unwrap_or("");
    let mut out = format!("![{alt}]({src})");
    if let Some(link) = tag.named("link") {
        out = format!("[{out}]({link})");
    }
    if let Some(caption) = tag.named("caption").filter(|c| !c.trim().is_empty()) {
        out.push_str(&format!("\n\n{caption}"));
    }
    out
}

/// `youtube`, `vimeo`, `x`, `instagram`, `gist`: a link to the embedded post or video.
fn embed_link(name: &str, tag: &Tag) -> String {
    let id = tag.arg("id", 0).unwrap_or("");
    let user = tag.arg("user", 0).unwrap_or("");
    let (label, url) = match name {
        "youtube" => (
            "YouTube video",
            format!("https://www.youtube.com/watch?v={id}"),
        ),
        "vimeo" => ("Vimeo video", format!("https://vimeo.com/{id}")),
        "instagram" => (
            "Instagram post",
            format!("https://www.instagram.com/p/{id}/"),
        ),
        "gist" => (
            "Gist",
            format!(
                "https://gist.github.com/{user}/{}",
                tag.arg("id", 1).unwrap_or("")
            ),
        ),
        _ => (
            "Post on X",
            format!(
                "https://x.com/{user}/status/{}",
                tag.named("id").unwrap_or("")
            ),
        ),
    };
    let label = tag.named("title").unwrap_or(label);
    format!("[{label}]({url})")
}

/// `qr`: what the QR code encodes.
fn qr(tag: &Tag, inner: Option<&str>, place: &Place<'_>) -> String {
    let text = match tag.named("text") {
        Some(text) => text.to_owned(),
        None => block_inner(inner.unwrap_or(""), place.continuation.as_deref()),
    };
    if text.trim_end().contains('\n') {
        format!("QR code of:\n\n{}", fenced("text", &text))
    } else {
        format!("QR code of `{}`", text.trim())
    }
}

/// `{{< highlight go "opts" >}}code{{< /highlight >}}`: a fenced block (a code span with
/// `hl_inline=true`).
fn highlight(tag: &Tag, inner: Option<&str>, place: &Place<'_>) -> String {
    let code = inner.unwrap_or("");
    let options = tag.arg("options", 1).unwrap_or("");
    if options.replace(' ', "").contains("hl_inline=true") {
        return format!("`{}`", code.trim());
    }
    let lang = tag.arg("lang", 0).unwrap_or("");
    fenced(lang, &block_inner(code, place.continuation.as_deref()))
}

/// Where the text of the link ending at the end of `before` starts (its `[`).
fn link_text_start(before: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in before.char_indices().rev() {
        match c {
            ']' => depth += 1,
            '[' if depth == 0 => return Some(i),
            '[' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// A link text as plain words: no emphasis or code marks, lowercase.
fn plain_text(text: &str) -> String {
    let cleaned: String = text
        .chars()
        .filter(|c| !matches!(c, '_' | '*' | '`'))
        .collect();
    cleaned
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// The term as written, then as a singular (the site's render hook singularizes).
fn singular_forms(term: &str) -> Vec<String> {
    let mut forms = vec![term.to_owned()];
    let (head, last) = term.rsplit_once(' ').map_or(("", term), |(h, l)| (h, l));
    let join = |word: String| {
        if head.is_empty() {
            word
        } else {
            format!("{head} {word}")
        }
    };
    if let Some(stem) = last.strip_suffix("ies") {
        forms.push(join(format!("{stem}y")));
    }
    for suffix in ["ches", "shes", "sses", "xes"] {
        if let Some(stem) = last.strip_suffix(suffix) {
            forms.push(join(format!("{stem}{}", &suffix[..suffix.len() - 2])));
        }
    }
    if let Some(stem) = last.strip_suffix('s')
        && !last.ends_with("ss")
    {
        forms.push(join(stem.to_owned()));
    }
    forms
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn singulars() {
        assert!(singular_forms("section pages").contains(&"section page".to_owned()));
        assert!(singular_forms("taxonomies").contains(&"taxonomy".to_owned()));
        assert!(singular_forms("branches").contains(&"branch".to_owned()));
    }

    #[test]
    fn fences_outgrow_their_content() {
        assert_eq!(fenced("toml", "a = 1\n"), "```toml\na = 1\n```");
        assert_eq!(fenced("md", "```\nx\n```"), "````md\n```\nx\n```\n````");
    }

    #[test]
    fn link_texts() {
        assert_eq!(link_text_start("see [_front matter_"), Some(4));
        assert_eq!(plain_text("_Front  matter_"), "front matter");
    }
}
