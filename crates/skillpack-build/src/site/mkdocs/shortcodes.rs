//! Material for MkDocs' `<!-- md:… -->` shortcodes, as its `shortcodes.py` hook expands
//! them (`on_page_markdown`, the pattern `<!-- md:(\w+)(.*?) -->`), in short markdown.
//!
//! The hook turns each into an HTML badge: an icon whose tooltip says what it means
//! (`Minimum version`, `Default value`) and, for most, a text (`9.2.0`, `` `true` ``). We
//! keep the meaning as words: `Minimum version: [9.2.0](…changelog…#9.2.0)`. Settings and
//! options are anchors: `<!-- md:setting config.blog_dir -->` becomes
//! `` `blog_dir` { #config.blog_dir } `` plus the `[config.blog_dir]: #config.blog_dir`
//! link definition pages rely on, exactly what the hook emits.

/// One shortcode found in a line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shortcode<'l> {
    /// Byte range of `<!-- md:… -->` in the line.
    pub start: usize,
    pub end: usize,
    pub kind: &'l str,
    /// Trimmed arguments (`9.2.0`, `` `true` ``, `config.blog_dir`).
    pub args: &'l str,
}

/// Every shortcode on `line`, in order.
pub fn find(line: &str) -> Vec<Shortcode<'_>> {
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(at) = line[from..].find("<!-- md:") {
        let start = from + at;
        let name_start = start + "<!-- md:".len();
        let name_len = line[name_start..]
            .bytes()
            .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
            .count();
        let Some(close) = line[name_start + name_len..].find(" -->") else {
            break;
        };
        let end = name_start + name_len + close + " -->".len();
        if name_len > 0 {
            found.push(Shortcode {
                start,
                end,
                kind: &line[name_start..name_start + name_len],
                args: line[name_start + name_len..end - " -->".len()].trim(),
            });
        }
        from = end;
    }
    found
}

/// How a badge is written where it stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// Alone on its line (other badges aside): label and text.
    Alone,
    /// Inside prose: the version alone reads as prose (`Prior to 5.0.0, …`).
    Prose,
    /// Inside a heading with other words: the text only; an icon-only badge disappears.
    Heading,
}

/// A setting's or option's anchor and shown name (`config.blog_dir` → `blog_dir`).
pub fn anchor_name(kind: &str, args: &str) -> Option<(String, String)> {
    let (anchor, separators): (String, &[char]) = match kind {
        "setting" => (args.to_owned(), &['.', '*']),
        "option" => (format!("+{args}"), &['.', ':']),
        _ => return None,
    };
    let name = args.rsplit(separators).next().unwrap_or(args).to_owned();
    Some((anchor, name))
}

/// The markdown a badge shortcode becomes (`None` for an unknown one: the hook fails the
/// build on it). `page_rel` is the page's docs-relative path, for the links it holds.
pub fn badge(kind: &str, args: &str, page_rel: &str, place: Place) -> Option<String> {
    let up = "../".repeat(page_rel.matches('/').count());
    let labelled = |label: &str, text: &str| -> String {
        match (place, text.is_empty()) {
            (Place::Heading, _) => text.to_owned(),
            (_, true) => label.to_owned(),
            (_, false) => format!("{label}: {text}"),
        }
    };
    let text = match kind {
        "version" => {
            let (label, page, spec) = match args.strip_prefix("insiders-") {
                Some(spec) => (
                    "Minimum Insiders version",
                    "insiders/changelog/index.md",
                    spec,
                ),
                None => ("Minimum version", "changelog/index.md", args),
            };
            let link = if spec.is_empty() {
                String::new()
            } else {
                format!("[{args}]({up}{page}#{spec})")
            };
            match place {
                Place::Prose => {
                    if link.is_empty() {
                        label.to_owned()
                    } else {
                        link
                    }
                }
                _ => labelled(label, &link),
            }
        }
        "sponsors" => labelled("Sponsors only", ""),
        "flag" => {
            let flag = args.split(' ').next().unwrap_or("");
            let label = match flag {
                "experimental" => "Experimental",
                "required" => "Required value",
                "customization" => "Customization",
                "metadata" => "Metadata property",
                "multiple" => "Multiple instances",
                _ => return None,
            };
            labelled(label, "")
        }
        "option" | "setting" => {
            let (_, name) = anchor_name(kind, args)?;
            format!("`{name}`")
        }
        "feature" => labelled("Optional feature", args),
        "plugin" => labelled("Plugin", args),
        "extension" => labelled("Markdown extension", args),
        "utility" => labelled("Third-party utility", args),
        "example" => {
            let base = format!("https://mkdocs-material.github.io/examples/{args}");
            labelled("Example", &format!("[`.zip`]({base}.zip), [view]({base}/)"))
        }
        "demo" => labelled(
            "Demo repository",
            &format!("[{args}](https://github.com/mkdocs-material/{args})"),
        ),
        "default" => match args {
            "none" => labelled("Default value is empty", ""),
            "computed" => labelled("Default value is computed", ""),
            "" => labelled("Default value", ""),
            value => labelled("Default value", value),
        },
        _ => return None,
    };
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_shortcodes_like_the_hook() {
        let line = "<!-- md:version 9.2.0 --> <!-- md:default `true` -->";
        let found = find(line);
        assert_eq!(found.len(), 2);
        assert_eq!((found[0].kind, found[0].args), ("version", "9.2.0"));
        assert_eq!((found[1].kind, found[1].args), ("default", "`true`"));
        assert_eq!(
            &line[found[1].start..found[1].end],
            "<!-- md:default `true` -->"
        );
        assert!(find("<!-- a comment -->").is_empty());
    }

    #[test]
    fn badges_read_as_words() {
        let b = |k, a, p| badge(k, a, "setup/page.md", p);
        assert_eq!(
            b("version", "9.2.0", Place::Alone).unwrap(),
            "Minimum version: [9.2.0](../changelog/index.md#9.2.0)"
        );
        assert_eq!(
            b("version", "5.0.0", Place::Prose).unwrap(),
            "[5.0.0](../changelog/index.md#5.0.0)"
        );
        assert_eq!(
            b("version", "insiders-4.1.0", Place::Alone).unwrap(),
            "Minimum Insiders version: [insiders-4.1.0](../insiders/changelog/index.md#4.1.0)"
        );
        assert_eq!(
            b("default", "none", Place::Alone).unwrap(),
            "Default value is empty"
        );
        assert_eq!(
            b("default", "`true`", Place::Alone).unwrap(),
            "Default value: `true`"
        );
        assert_eq!(
            b("flag", "experimental", Place::Alone).unwrap(),
            "Experimental"
        );
        assert_eq!(b("flag", "metadata", Place::Heading).unwrap(), "");
        assert_eq!(
            b("setting", "config.blog_dir", Place::Alone).unwrap(),
            "`blog_dir`"
        );
        assert_eq!(b("bogus", "", Place::Alone), None);
        assert_eq!(
            anchor_name("option", "type:note"),
            Some(("+type:note".into(), "note".into()))
        );
        assert_eq!(
            anchor_name("setting", "meta.social.cards_layout"),
            Some(("meta.social.cards_layout".into(), "cards_layout".into()))
        );
    }
}
