//! Inline MyST: roles (`{ref}`, `{doc}`, `{term}`, …), substitutions (`{{ key }}`),
//! links to reference targets (`[](#label)`, `[text](label)`, `<project:#label>`) and
//! URL schemes from `myst_url_schemes` (`<gh-pr:12>`). Code spans are left alone.

use super::index::explicit_title;
use super::render::{Render, code_span, relative_href};

/// How deep substitutions may expand into substitutions.
const MAX_SUBSTITUTION_DEPTH: usize = 4;

impl Render<'_, '_> {
    /// One line (or a directive's argument) with its inline markup rendered.
    pub fn inline(&mut self, text: &str) -> String {
        self.inline_at(text, 0)
    }

    fn inline_at(&mut self, text: &str, substitution_depth: usize) -> String {
        let bytes = text.as_bytes();
        let mut out = String::with_capacity(text.len());
        let mut i = 0;
        while i < bytes.len() {
            let rest = &text[i..];
            match bytes[i] {
                b'\\' => {
                    let len = rest[1..].chars().next().map_or(0, char::len_utf8);
                    out.push_str(&rest[..1 + len]);
                    i += 1 + len;
                }
                b'`' => {
                    let (span, len) = match code_span_at(rest) {
                        Some((_, len)) => (&rest[..len], len),
                        None => {
                            let run = rest.bytes().take_while(|&b| b == b'`').count();
                            (&rest[..run], run)
                        }
                    };
                    out.push_str(span);
                    i += len;
                    i += inline_attributes_len(&text[i..]);
                }
                b'{' if rest.starts_with("{{") => {
                    let (replacement, len) = self.substitution(rest, substitution_depth);
                    out.push_str(&replacement);
                    i += len;
                }
                b'{' => match role_at(rest) {
                    Some((name, content, len)) => {
                        let rendered = self.role(name, content);
                        out.push_str(&rendered);
                        i += len;
                    }
                    None => {
                        out.push('{');
                        i += 1;
                    }
                },
                b'!' if rest[1..].starts_with('[') => {
                    // Images keep their paths; attributes after them (`{w=50}`) go.
                    match link_at(&rest[1..]) {
                        Some(link) => {
                            out.push_str(&rest[..1 + link.len]);
                            i += 1 + link.len;
                            i += inline_attributes_len(&text[i..]);
                        }
                        None => {
                            out.push('!');
                            i += 1;
                        }
                    }
                }
                b'[' => match link_at(rest) {
                    Some(link) => {
                        let rendered = self.link(&link);
                        out.push_str(&rendered);
                        i += link.len;
                        i += inline_attributes_len(&text[i..]);
                    }
                    None => match span_at(rest) {
                        // `[text]{.class}`: a span; readers see its text.
                        Some((text, len)) => {
                            let rendered = self.inline(text);
                            out.push_str(&rendered);
                            i += len;
                        }
                        None => {
                            out.push('[');
                            i += 1;
                        }
                    },
                },
                b'<' => match autolink_at(rest) {
                    Some((target, len)) => {
                        out.push_str(&self.autolink(target, &rest[..len]));
                        i += len;
                        i += inline_attributes_len(&text[i..]);
                    }
                    None => {
                        out.push('<');
                        i += 1;
                    }
                },
                _ => {
                    let len = rest.chars().next().map_or(1, char::len_utf8);
                    out.push_str(&rest[..len]);
                    i += len;
                }
            }
        }
        out
    }

    /// `{{ key }}` at the start of `rest`: its value (rendered) and the length taken.
    fn substitution(&mut self, rest: &str, depth: usize) -> (String, usize) {
        let Some(close) = rest.find("}}") else {
            return ("{{".into(), 2);
        };
        let key = rest[2..close].trim();
        match self.substitutions.get(key) {
            Some(value) if depth < MAX_SUBSTITUTION_DEPTH => {
                let value = value.clone();
                let rendered = if value.contains('\n') {
                    // Block markup inside a line: rendered, then kept on the line.
                    let text = self.nested().text(&value);
                    text.split_whitespace().collect::<Vec<_>>().join(" ")
                } else {
                    self.inline_at(&value, depth + 1)
                };
                (rendered, close + 2)
            }
            _ => match self.jinja(key) {
                Some(value) => (value, close + 2),
                None => (rest[..close + 2].to_owned(), close + 2),
            },
        }
    }

    /// The few Jinja expressions a substitution can hold that need no Python: string
    /// literals joined with `+`, `env.docname`, and the `upper`/`lower` filters.
    fn jinja(&self, expression: &str) -> Option<String> {
        let mut parts = expression.split('|');
        let value = parts.next()?.trim();
        let mut out = String::new();
        for term in value.split('+').map(str::trim) {
            let literal = term
                .strip_prefix('"')
                .and_then(|t| t.strip_suffix('"'))
                .or_else(|| term.strip_prefix('\'').and_then(|t| t.strip_suffix('\'')));
            match (literal, term) {
                (Some(text), _) if !text.contains(['"', '\'']) => out.push_str(text),
                (None, "env.docname") => {
                    out.push_str(crate::site::strip_page_extension(self.page_rel))
                }
                _ => return None,
            }
        }
        for filter in parts.map(str::trim) {
            out = match filter {
                "upper" => out.to_uppercase(),
                "lower" => out.to_lowercase(),
                _ => return None,
            };
        }
        Some(out)
    }

    /// A link reference definition (`[name]: dest "title"`) with its destination
    /// resolved; `None` when the line is not one.
    pub fn link_definition(&mut self, line: &str) -> Option<String> {
        let indent = line.len() - line.trim_start_matches(' ').len();
        if indent > 3 {
            return None;
        }
        let rest = &line[indent..];
        let close = closing_bracket(rest)?;
        let after = rest[close + 1..].strip_prefix(':')?;
        let spaces = after.len() - after.trim_start_matches([' ', '\t']).len();
        let dest_and_rest = &after[spaces..];
        let dest_len = dest_and_rest
            .find(char::is_whitespace)
            .unwrap_or(dest_and_rest.len());
        let dest = &dest_and_rest[..dest_len];
        if dest.is_empty() || rest.starts_with("[^") {
            return None;
        }
        let (href, _) = self.resolve(dest)?;
        let head_len = indent + close + 2 + spaces;
        Some(format!(
            "{}{href}{}",
            &line[..head_len],
            &dest_and_rest[dest_len..]
        ))
    }

    /// A role as the text its readers see.
    fn role(&mut self, name: &str, content: &str) -> String {
        let (title, target) = explicit_title(content);
        let shown = title.unwrap_or(target);
        match name {
            // `{ref}`sphinx:label`` goes to another project's docs through intersphinx.
            "ref" | "doc" if self.project.is_intersphinx(target) => shown.to_owned(),
            "ref" | "numref" | "any" | "myst" => match self.ref_target(target) {
                Some((href, found)) => {
                    format!(
                        "[{}]({href})",
                        title
                            .map(str::to_owned)
                            .or(found)
                            .unwrap_or_else(|| target.to_owned())
                    )
                }
                None => {
                    if name == "ref" {
                        self.cx.warn(
                            None,
                            format!("{{ref}}`{content}` names the label `{target}`, which no page defines"),
                            "define it with a `(label)=` line before the heading, or fix the name",
                        );
                    }
                    shown.to_owned()
                }
            },
            "doc" => match self.doc_target(target) {
                Some((href, found)) => {
                    format!(
                        "[{}]({href})",
                        title
                            .map(str::to_owned)
                            .or(found)
                            .unwrap_or_else(|| target.to_owned())
                    )
                }
                None => {
                    self.cx.warn(
                        None,
                        format!("{{doc}}`{content}` names the document `{target}`, which does not exist"),
                        "fix the path (relative to the page, or to the docs folder with a leading `/`, without extension)",
                    );
                    shown.to_owned()
                }
            },
            "download" => format!("[{}]({target})", shown.trim_start_matches(['~', '!'])),
            "math" => format!("${content}$"),
            "eq" => format!("({content})"),
            "strong" => format!("**{content}**"),
            "emphasis" => format!("*{content}*"),
            "pep" => format!("PEP {content}"),
            "rfc" => format!("RFC {content}"),
            "code" | "samp" | "file" | "command" | "program" | "option" | "envvar" | "kbd"
            | "literal" | "regexp" | "mimetype" | "makevar" | "confval" => code_span(content),
            "octicon" | "fa" | "fab" | "fas" | "far" | "icon" => String::new(),
            _ if name.starts_with("material-") => String::new(),
            _ if name.ends_with(":ref") || name.ends_with(":doc") || name.ends_with(":term") => {
                shown.to_owned()
            }
            // Objects of a domain (`py:class`, `external:class`): their name as code.
            _ if name.contains(':') => code_span(shown.trim_start_matches(['~', '!'])),
            _ if name.starts_with("bdg-") || name.starts_with("button-") => shown.to_owned(),
            // `term`, `sub`, `sup`, `abbr`, `guilabel`, `menuselection`, `sub-ref`, …
            _ => shown.to_owned(),
        }
    }

    fn link(&mut self, link: &Link<'_>) -> String {
        let text = self.inline(link.text);
        let (href, found) = self
            .resolve(link.dest)
            .unwrap_or_else(|| (link.raw_dest.to_owned(), None));
        let shown = if text.trim().is_empty() {
            // A link with no text shows its target's title, else its target.
            found.unwrap_or_else(|| link.dest.trim_start_matches('#').to_owned())
        } else {
            text
        };
        format!("[{shown}]({href}{})", link.title)
    }

    fn autolink(&mut self, target: &str, raw: &str) -> String {
        let is_special = target.starts_with("project:")
            || target.starts_with("path:")
            || self.project.url_scheme(target).is_some();
        if !is_special {
            return raw.to_owned();
        }
        match self.resolve(target) {
            Some((href, title)) => {
                let shown = title.unwrap_or_else(|| {
                    target
                        .trim_start_matches("project:")
                        .trim_start_matches("path:")
                        .to_owned()
                });
                format!("[{shown}]({href})")
            }
            None => raw.to_owned(),
        }
    }

    /// A link destination as the site resolves it: (href to serve, title for a link
    /// with no text). `None` leaves the link as written.
    fn resolve(&mut self, dest: &str) -> Option<(String, Option<String>)> {
        let dest = dest.trim();
        let dest = dest.strip_prefix("project:").unwrap_or(dest);
        if let Some(path) = dest.strip_prefix("path:") {
            return Some((path.to_owned(), Some(path.to_owned())));
        }
        if let Some(expanded) = self.project.url_scheme(dest) {
            return Some(expanded);
        }
        if has_scheme(dest) {
            return None;
        }
        let decoded = percent_encoding::percent_decode_str(dest)
            .decode_utf8_lossy()
            .into_owned();
        if let Some(id) = decoded.strip_prefix('#') {
            let own = self.project.index.anchors.get(self.page_rel);
            if let Some(text) = own.and_then(|anchors| anchors.get(id)) {
                return Some((dest.to_owned(), Some(text.clone())));
            }
            return self.ref_target(id);
        }
        let (path, fragment) = decoded.split_once('#').unwrap_or((&decoded, ""));
        if let Some((rel, title)) = self.project.doc(self.page_rel, path) {
            let title = match fragment {
                "" => title,
                f => self
                    .project
                    .index
                    .anchors
                    .get(&rel)
                    .and_then(|a| a.get(f))
                    .cloned(),
            };
            return Some((dest.to_owned(), title));
        }
        if fragment.is_empty() {
            return self.ref_target(path);
        }
        None
    }

    /// A reference target: its href from this page and its title.
    pub fn ref_target(&self, label: &str) -> Option<(String, Option<String>)> {
        let target = self.project.index.target(label)?;
        let mut href = if target.rel == self.page_rel {
            String::new()
        } else {
            relative_href(self.page_rel, &target.rel)
        };
        if let Some(anchor) = &target.anchor {
            href.push('#');
            href.push_str(anchor);
        }
        if href.is_empty() {
            href = relative_href(self.page_rel, &target.rel);
        }
        Some((href, target.title.clone()))
    }

    /// A document by its Sphinx name (relative, or `/`-rooted, extension optional).
    pub fn doc_target(&self, name: &str) -> Option<(String, Option<String>)> {
        let (rel, title) = self.project.doc(self.page_rel, name)?;
        Some((relative_href(self.page_rel, &rel), title))
    }
}

/// `[text](dest "title")` at the start of a string.
pub struct Link<'t> {
    pub text: &'t str,
    /// The destination, `<…>` removed.
    pub dest: &'t str,
    /// The destination as written.
    pub raw_dest: &'t str,
    /// ` "title"` as written, or empty.
    pub title: &'t str,
    pub len: usize,
}

pub fn link_at(s: &str) -> Option<Link<'_>> {
    let close = closing_bracket(s)?;
    let after = &s[close + 1..];
    let inner_start = close + 2;
    if !after.starts_with('(') {
        return None;
    }
    let inner = &s[inner_start..];
    let (raw_dest, dest, rest_at) = if inner.starts_with('<') {
        let end = inner.find('>')?;
        (&inner[..=end], &inner[1..end], end + 1)
    } else {
        let mut depth = 0usize;
        let mut end = inner.len();
        for (i, c) in inner.char_indices() {
            match c {
                '(' => depth += 1,
                ')' if depth == 0 => {
                    end = i;
                    break;
                }
                ')' => depth -= 1,
                c if c.is_whitespace() => {
                    end = i;
                    break;
                }
                _ => {}
            }
        }
        (&inner[..end], &inner[..end], end)
    };
    let tail = &inner[rest_at..];
    let close_paren = tail.find(')')?;
    let title = &tail[..close_paren];
    if !title.trim().is_empty() && !title.trim_start().starts_with(['"', '\'', '(']) {
        return None;
    }
    Some(Link {
        text: &s[1..close],
        dest,
        raw_dest,
        title,
        len: inner_start + rest_at + close_paren + 1,
    })
}

/// The `]` closing the `[` at the start of `s` (nesting, code spans and escapes aware).
fn closing_bracket(s: &str) -> Option<usize> {
    let bytes = s.as_bytes();
    let mut depth = 0usize;
    let mut i = 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 1,
            b'`' => {
                if let Some((_, len)) = code_span_at(&s[i..]) {
                    i += len;
                    continue;
                }
            }
            b'[' => depth += 1,
            b']' if depth == 0 => return Some(i),
            b']' => depth -= 1,
            _ => {}
        }
        i += 1;
    }
    None
}

/// `[text]{attributes}` at the start of `s`: the text and the length taken.
fn span_at(s: &str) -> Option<(&str, usize)> {
    let close = closing_bracket(s)?;
    let attributes = inline_attributes_len(&s[close + 1..]);
    (attributes > 0).then(|| (&s[1..close], close + 1 + attributes))
}

/// A code span at the start of `s`: its content and length.
fn code_span_at(s: &str) -> Option<(&str, usize)> {
    let run = s.bytes().take_while(|&b| b == b'`').count();
    if run == 0 {
        return None;
    }
    let mut from = run;
    while let Some(at) = s[from..].find('`').map(|i| i + from) {
        let close = s[at..].bytes().take_while(|&b| b == b'`').count();
        if close == run {
            return Some((&s[run..at], at + close));
        }
        from = at + close;
    }
    None
}

/// `{name}` followed by a code span at the start of `s`: (name, content, length).
fn role_at(s: &str) -> Option<(&str, &str, usize)> {
    let close = s.find('}')?;
    let name = &s[1..close];
    let valid = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | ':' | '+' | '.'));
    if !valid {
        return None;
    }
    let (content, len) = code_span_at(&s[close + 1..])?;
    Some((name, content, close + 1 + len))
}

/// `<scheme:…>` at the start of `s`: its target and length.
fn autolink_at(s: &str) -> Option<(&str, usize)> {
    let end = s.find('>')?;
    let target = &s[1..end];
    let ok = has_scheme(target) && !target.contains([' ', '<', '\n']);
    ok.then_some((target, end + 1))
}

/// Inline attributes right after a code span, link or image (`{l=python}`, `{.external}`,
/// `{w=50}`): their length, to drop them.
fn inline_attributes_len(s: &str) -> usize {
    let Some(inner) = s.strip_prefix('{') else {
        return 0;
    };
    let Some(close) = inner.find('}') else {
        return 0;
    };
    let attributes = inner[..close].trim();
    let looks_like = !attributes.is_empty()
        && (attributes.starts_with(['.', '#']) || attributes.contains('='))
        && !attributes.contains('{');
    if looks_like { close + 2 } else { 0 }
}

/// Whether `s` starts with a URL scheme (`https:`, `inv:`, `gh-pr:`).
pub fn has_scheme(s: &str) -> bool {
    let Some(colon) = s.find(':') else {
        return false;
    };
    let scheme = &s[..colon];
    !scheme.is_empty()
        && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}
