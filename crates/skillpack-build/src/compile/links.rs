//! Resolve relative markdown links to catalog URIs.

use std::collections::{HashMap, HashSet};

use percent_encoding::percent_decode_str;

use super::markdown::RawLink;
use crate::site::links::join;
use crate::uri;

/// A link resolved to the catalog URI it points at (the archive stores the target's index
/// instead: `model::Link`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedLink {
    pub text: String,
    /// As written in the markdown.
    pub href: String,
    /// The catalog URI it resolves to (with `#anchor` when the link has one).
    pub uri: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RootKind {
    Skills,
    Docs,
}

/// Everything a link may point at: path relative to a root → canonical URI.
#[derive(Debug, Default)]
pub struct Targets {
    pub skills: HashMap<String, String>,
    pub docs: HashMap<String, String>,
    /// Document URI → its anchors.
    pub anchors: HashMap<String, HashSet<String>>,
    /// Document URI → the ids its site generator gives its headings, each with the
    /// catalog anchor of that heading (empty for a plain tree).
    pub site_anchors: HashMap<String, HashMap<String, String>>,
}

/// How a docs tree's site generator resolves the links its plain resolution does not
/// (root-absolute, extensionless, by URL): docs-relative path of the page → its target's
/// docs-relative path.
pub type SiteResolver<'a> = &'a dyn Fn(&str, &str) -> Option<String>;

pub enum Resolution {
    /// Not a relative link (`https:`, `mailto:`…): left alone.
    External,
    Resolved(ResolvedLink),
    Broken {
        reason: String,
        fix: String,
    },
}

pub fn resolve(
    link: &RawLink,
    from_root: RootKind,
    from_rel: &str,
    from_uri: &str,
    targets: &Targets,
    site: Option<SiteResolver<'_>>,
) -> Resolution {
    let href = link.href.trim();
    if href.is_empty() || has_scheme(href) || href.starts_with("//") {
        return Resolution::External;
    }
    let (path_part, fragment) = match href.split_once('#') {
        Some((p, f)) => (p, Some(f)),
        None => (href, None),
    };
    let path_part = path_part.split_once('?').map_or(path_part, |(p, _)| p);
    let anchor = fragment
        .map(|f| percent_decode_str(f).decode_utf8_lossy().into_owned())
        .filter(|f| !f.is_empty());

    let target_uri = if path_part.is_empty() {
        from_uri.to_owned()
    } else {
        let decoded = percent_decode_str(path_part).decode_utf8_lossy();
        // The file a site generator's rules give the link: a page (its URI), or a file of
        // the site that is not a page (an image, a download), which is not checked further.
        let by_site = || -> Option<Result<&String, ()>> {
            let site = site.filter(|_| from_root == RootKind::Docs)?;
            let rel = site(from_rel, &decoded)?;
            Some(targets.docs.get(&rel).ok_or(()))
        };
        if path_part.starts_with('/') || path_part.starts_with("@site/") {
            return match by_site() {
                Some(Ok(uri)) => with_anchor(link, href, uri.clone(), anchor, targets),
                Some(Err(())) => Resolution::External,
                None => Resolution::Broken {
                    reason: format!(
                        "link `{href}` is an absolute path, which cannot be resolved inside the catalog"
                    ),
                    fix: "use a path relative to this file".into(),
                },
            };
        }
        let base = from_rel.rsplit_once('/').map_or("", |(dir, _)| dir);
        let Some(joined) = join(base, &decoded) else {
            return match by_site() {
                Some(Ok(uri)) => with_anchor(link, href, uri.clone(), anchor, targets),
                Some(Err(())) => Resolution::External,
                None => Resolution::Broken {
                    reason: format!("link `{href}` leaves the content folder"),
                    fix: "link only to files inside the catalog".into(),
                },
            };
        };
        let table = match from_root {
            RootKind::Skills => &targets.skills,
            RootKind::Docs => &targets.docs,
        };
        // Static-site generators (mdBook, MkDocs…) link to the rendered `.html` page of a
        // markdown source; such a link means the markdown document.
        let rendered_source = || {
            let stem = joined
                .strip_suffix(".html")
                .or_else(|| joined.strip_suffix(".htm"))?;
            table.get(&format!("{stem}.md"))
        };
        match table.get(&joined).or_else(rendered_source) {
            Some(uri) => uri.clone(),
            None => match by_site() {
                Some(Ok(uri)) => uri.clone(),
                Some(Err(())) => return Resolution::External,
                None => {
                    return Resolution::Broken {
                        reason: format!("link `{href}` points at `{joined}`, which is not in the catalog"),
                        fix: "fix the link, or add the file (hidden and non-markdown docs files are not served)".into(),
                    };
                }
            },
        }
    };
    with_anchor(link, href, target_uri, anchor, targets)
}

fn with_anchor(
    link: &RawLink,
    href: &str,
    target_uri: String,
    anchor: Option<String>,
    targets: &Targets,
) -> Resolution {
    let uri = match &anchor {
        Some(anchor) => {
            let by_site = targets
                .site_anchors
                .get(&target_uri)
                .and_then(|ids| ids.get(anchor));
            if let Some(known) = targets.anchors.get(&target_uri)
                && !known.contains(anchor)
            {
                if let Some(catalog_anchor) = by_site {
                    // An id before the first heading names the document itself.
                    let uri = if catalog_anchor.is_empty() {
                        target_uri.clone()
                    } else {
                        uri::anchor(&target_uri, catalog_anchor)
                    };
                    return Resolution::Resolved(ResolvedLink {
                        text: link.text.clone(),
                        href: link.href.clone(),
                        uri,
                    });
                }
                return Resolution::Broken {
                    reason: format!(
                        "link `{href}` names the anchor `#{anchor}`, but the target has no such heading"
                    ),
                    fix: "link to an existing heading (anchors are GitHub-style heading slugs)"
                        .into(),
                };
            }
            uri::anchor(&target_uri, anchor)
        }
        None => target_uri,
    };
    Resolution::Resolved(ResolvedLink {
        text: link.text.clone(),
        href: link.href.clone(),
        uri,
    })
}

fn has_scheme(href: &str) -> bool {
    match href.split_once(':') {
        Some((scheme, _)) => {
            !scheme.is_empty()
                && scheme
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_alphabetic())
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joins_and_refuses_escapes() {
        assert_eq!(join("a/b", "../c.md").as_deref(), Some("a/c.md"));
        assert_eq!(join("", "./x/y.md").as_deref(), Some("x/y.md"));
        assert_eq!(join("a", "../../x"), None);
        assert!(has_scheme("https://x"));
        assert!(has_scheme("mailto:a@b"));
        assert!(!has_scheme("guide.md"));
        assert!(!has_scheme("a/b:c.md"));
    }
}
