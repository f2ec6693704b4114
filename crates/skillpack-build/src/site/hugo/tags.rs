//! Shortcode tags as Hugo reads them: `{{< name args >}}`, `{{% name args %}}`, closing
//! `{{< /name >}}`, self-closing `{{< name />}}`, and escaped examples `{{</* name */>}}`
//! (printed literally, without the comment markers). Hugo reads shortcodes before
//! markdown, so inside code blocks and code spans too.

/// One shortcode tag in a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tag {
    /// Byte range of the tag in the text.
    pub start: usize,
    pub end: usize,
    /// `{{% %}}`: its output is markdown (ours always is).
    pub markdown: bool,
    pub name: String,
    pub closing: bool,
    pub self_closing: bool,
    /// An escaped example: the text Hugo prints for it.
    pub literal: Option<String>,
    /// Positional arguments have no name.
    pub args: Vec<(Option<String>, String)>,
}

impl Tag {
    /// A named argument, or the positional one at `index`.
    pub fn arg(&self, name: &str, index: usize) -> Option<&str> {
        self.named(name).or_else(|| self.positional(index))
    }

    pub fn named(&self, name: &str) -> Option<&str> {
        self.args
            .iter()
            .find(|(k, _)| k.as_deref().is_some_and(|k| k.eq_ignore_ascii_case(name)))
            .map(|(_, v)| v.as_str())
    }

    pub fn positional(&self, index: usize) -> Option<&str> {
        self.args
            .iter()
            .filter(|(k, _)| k.is_none())
            .nth(index)
            .map(|(_, v)| v.as_str())
    }

    pub fn positionals(&self) -> impl Iterator<Item = &str> {
        self.args
            .iter()
            .filter(|(k, _)| k.is_none())
            .map(|(_, v)| v.as_str())
    }
}

/// Longest tag read (a runaway `{{<` with no end is not a tag).
const MAX_TAG_BYTES: usize = 4096;

/// The next tag at or after `from`.
pub fn next_tag(text: &str, from: usize) -> Option<Tag> {
    let mut at = from;
    while let Some(found) = text.get(at..)?.find("{{") {
        let start = at + found;
        if let Some(tag) = parse_tag(text, start) {
            return Some(tag);
        }
        at = start + 2;
    }
    None
}

/// The tag starting at `start` (which holds `{{`), if one does.
pub fn parse_tag(text: &str, start: usize) -> Option<Tag> {
    let bytes = text.as_bytes();
    let delim = *bytes.get(start + 2)?;
    if delim != b'<' && delim != b'%' {
        return None;
    }
    let close = if delim == b'<' { ">}}" } else { "%}}" };
    let mut limit = (start + MAX_TAG_BYTES).min(text.len());
    while !text.is_char_boundary(limit) {
        limit -= 1;
    }
    let mut i = skip_ws(text, start + 3);
    if text[i..].starts_with("/*") {
        return escaped(text, start, i + 2, delim, close, limit);
    }
    let closing = text[i..].starts_with('/');
    if closing {
        i = skip_ws(text, i + 1);
    }
    let name_start = i;
    while i < limit {
        let c = bytes[i];
        if c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.') || c >= 0x80 {
            i += 1;
        } else {
            break;
        }
    }
    if i == name_start {
        return None;
    }
    let name = text[name_start..i].to_owned();
    let mut args = Vec::new();
    let mut self_closing = false;
    loop {
        i = skip_ws(text, i);
        if i >= limit {
            return None;
        }
        if text[i..].starts_with(close) {
            i += close.len();
            break;
        }
        if text[i..].starts_with('/') {
            let j = skip_ws(text, i + 1);
            if text[j..].starts_with(close) {
                self_closing = true;
                i = j + close.len();
                break;
            }
        }
        let (first, after) = token(text, i, close, limit)?;
        i = after;
        if text[i..].starts_with('=') {
            let (value, after) = token(text, i + 1, close, limit)?;
            i = after;
            args.push((Some(first), value));
        } else {
            args.push((None, first));
        }
    }
    Some(Tag {
        start,
        end: i,
        markdown: delim == b'%',
        name,
        closing,
        self_closing,
        literal: None,
        args,
    })
}

/// `{{</* inner */>}}`: Hugo prints `{{< inner >}}`.
fn escaped(
    text: &str,
    start: usize,
    inner_start: usize,
    delim: u8,
    close: &str,
    limit: usize,
) -> Option<Tag> {
    let mut search = inner_start;
    while search < limit {
        let found = search + text[search..limit].find("*/")?;
        let after = skip_ws(text, found + 2);
        if text[after..].starts_with(close) {
            let end = after + close.len();
            let literal = format!(
                "{{{{{}{}{}",
                delim as char,
                &text[inner_start..found],
                close
            );
            let name = text[inner_start..found]
                .trim()
                .trim_start_matches('/')
                .split_whitespace()
                .next()
                .unwrap_or("")
                .to_owned();
            return Some(Tag {
                start,
                end,
                markdown: delim == b'%',
                name,
                closing: false,
                self_closing: true,
                literal: Some(literal),
                args: Vec::new(),
            });
        }
        search = found + 2;
    }
    None
}

fn skip_ws(text: &str, mut i: usize) -> usize {
    let bytes = text.as_bytes();
    while i < bytes.len() && bytes[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

/// One argument token: `"quoted \" text"`, `` `raw` ``, or a bare word.
fn token(text: &str, i: usize, close: &str, limit: usize) -> Option<(String, usize)> {
    let bytes = text.as_bytes();
    match bytes.get(i)? {
        b'"' => {
            let mut out = String::new();
            let mut j = i + 1;
            while j < limit {
                match bytes[j] {
                    b'\\' if j + 1 < limit => {
                        let next = text[j + 1..].chars().next()?;
                        out.push(next);
                        j += 1 + next.len_utf8();
                    }
                    b'"' => return Some((out, j + 1)),
                    _ => {
                        let c = text[j..].chars().next()?;
                        out.push(c);
                        j += c.len_utf8();
                    }
                }
            }
            None
        }
        b'`' => {
            let end = text[i + 1..limit].find('`')?;
            Some((text[i + 1..i + 1 + end].to_owned(), i + 2 + end))
        }
        _ => {
            let mut j = i;
            while j < limit {
                let rest = &text[j..];
                if bytes[j].is_ascii_whitespace()
                    || bytes[j] == b'='
                    || rest.starts_with(close)
                    || (rest.starts_with('/') && text[skip_ws(text, j + 1)..].starts_with(close))
                {
                    break;
                }
                j += rest.chars().next()?.len_utf8();
            }
            (j > i).then(|| (text[i..j].to_owned(), j))
        }
    }
}

/// The closing tag of the paired `open`: the next `{{< /name >}}` before any other
/// opening of the same name (a shortcode with no closing tag is not paired).
pub fn find_close(text: &str, open: &Tag) -> Option<Tag> {
    if open.self_closing || open.closing {
        return None;
    }
    let mut at = open.end;
    while let Some(tag) = next_tag(text, at) {
        at = tag.end;
        if tag.literal.is_some() || !tag.name.eq_ignore_ascii_case(&open.name) {
            continue;
        }
        if tag.closing {
            return Some(tag);
        }
        if !tag.self_closing {
            return None;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_and_arguments() {
        let text = "a {{< img\n  src=\"x.jpg\"\n  alt=\"A \\\"b\\\"\" >}} b";
        let tag = next_tag(text, 0).unwrap();
        assert_eq!(tag.name, "img");
        assert_eq!(tag.named("src"), Some("x.jpg"));
        assert_eq!(tag.named("alt"), Some("A \"b\""));
        assert_eq!(&text[tag.end..], " b");
        let tag = next_tag("{{<deprecated-in 0.158.0 />}}", 0).unwrap();
        assert!(tag.self_closing);
        assert_eq!(tag.positional(0), Some("0.158.0"));
        let tag = next_tag("{{% include \"/_common/x.md\" %}}", 0).unwrap();
        assert!(tag.markdown);
        assert_eq!(tag.positional(0), Some("/_common/x.md"));
        let tag = next_tag("{{</ code-toggle >}}", 0).unwrap();
        assert!(tag.closing);
    }

    #[test]
    fn escaped_examples_print_literally() {
        let tag = next_tag("`{{</* ref \"x\" */>}}`", 0).unwrap();
        assert_eq!(tag.literal.as_deref(), Some("{{< ref \"x\" >}}"));
        let tag = next_tag("{{%/* include \"a\" */%}}", 0).unwrap();
        assert_eq!(tag.literal.as_deref(), Some("{{% include \"a\" %}}"));
    }

    #[test]
    fn pairs() {
        let text = "{{< new-in 1 >}}x{{< /new-in >}}{{< new-in 2 >}}";
        let open = next_tag(text, 0).unwrap();
        let close = find_close(text, &open).unwrap();
        assert_eq!(&text[open.end..close.start], "x");
        let second = next_tag(text, close.end).unwrap();
        assert_eq!(find_close(text, &second), None);
        let text = "{{< youtube a >}} {{< youtube b >}}{{< /youtube >}}";
        let open = next_tag(text, 0).unwrap();
        assert_eq!(find_close(text, &open), None);
        assert_eq!(next_tag("{{ .Title }} {{ x }}", 0), None);
    }
}
