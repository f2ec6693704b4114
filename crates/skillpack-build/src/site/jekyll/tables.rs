//! HTML tables that Liquid built from data (`{% for o in site.data.options %}<tr>…`) as
//! markdown tables.
//!
//! Readers of the site see a table; in served markdown the HTML around it is most of the
//! text (a cell is `<td><p><code class="option">source: DIR</code></p></td>`). A table
//! the page's author wrote by hand, verbatim in the source, is plain markdown and stays as
//! it is; only tables the Liquid step produced or changed are converted.

use crate::site::markup;

/// `rendered` with every HTML table that is not verbatim in `source` as a markdown table.
pub fn generated_to_markdown(rendered: &str, source: &str) -> String {
    if !rendered.contains("<table") {
        return rendered.to_owned();
    }
    let lines: Vec<markup::Line<'_>> = markup::lines(rendered).collect();
    let mut out = String::with_capacity(rendered.len());
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let start = (!line.in_code).then(|| line.text.find("<table")).flatten();
        let Some(start) = start else {
            out.push_str(line.text);
            i += 1;
            continue;
        };
        let Some(end_line) = (i..lines.len()).find(|&j| lines[j].text.contains("</table>")) else {
            out.push_str(line.text);
            i += 1;
            continue;
        };
        let block: String = lines[i..=end_line].iter().map(|l| l.text).collect();
        let close = block
            .rfind("</table>")
            .map_or(block.len(), |e| e + "</table>".len());
        let table = &block[start..close];
        let markdown = if source.contains(table) {
            None
        } else {
            to_markdown(table)
        };
        let Some(markdown) = markdown else {
            out.push_str(&block);
            i = end_line + 1;
            continue;
        };
        let before = block[..start].trim_end();
        if !before.is_empty() {
            out.push_str(before);
            out.push('\n');
        }
        // Blank lines around it: an HTML block (`<div>`) would swallow the table otherwise.
        out.push('\n');
        out.push_str(&markdown);
        out.push('\n');
        let after = block[close..].trim();
        if !after.is_empty() {
            out.push_str(after);
            out.push('\n');
        }
        i = end_line + 1;
    }
    out
}

/// An HTML table as a markdown table: the first row (of `<th>` cells, else the first row)
/// is the header. `None` when it has no rows.
fn to_markdown(table: &str) -> Option<String> {
    let rows: Vec<Vec<String>> = segments(table, "tr")
        .iter()
        .map(|row| {
            cells(row)
                .iter()
                .map(|c| inline_markdown(c).replace('|', "\\|"))
                .collect()
        })
        .filter(|r: &Vec<String>| !r.is_empty())
        .collect();
    let width = rows.iter().map(Vec::len).max()?;
    let mut out = String::new();
    for (n, row) in rows.iter().enumerate() {
        out.push('|');
        for k in 0..width {
            let cell = row.get(k).map(String::as_str).unwrap_or("");
            out.push_str(&format!(" {cell} |"));
        }
        out.push('\n');
        if n == 0 {
            out.push('|');
            out.push_str(&" --- |".repeat(width));
            out.push('\n');
        }
    }
    Some(out)
}

/// The insides of every `<tag …>…</tag>` in `html`, in order (not nested).
fn segments<'h>(html: &'h str, tag: &str) -> Vec<&'h str> {
    let open = format!("<{tag}");
    let close = format!("</{tag}>");
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(at) = rest.find(&open) {
        let after = &rest[at + open.len()..];
        // `<tr>` or `<tr class…>`, not `<track>`.
        if !after.starts_with(['>', ' ', '\n', '\t']) {
            rest = after;
            continue;
        }
        let Some(body_start) = after.find('>') else {
            break;
        };
        let body = &after[body_start + 1..];
        let end = body.find(&close).unwrap_or(body.len());
        out.push(&body[..end]);
        rest = &body[end..];
    }
    out
}

fn cells(row: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = row;
    loop {
        let th = rest.find("<th");
        let td = rest.find("<td");
        let (at, tag) = match (th, td) {
            (Some(a), Some(b)) if a < b => (a, "th"),
            (Some(a), None) => (a, "th"),
            (_, Some(b)) => (b, "td"),
            (None, None) => break,
        };
        let after = &rest[at + 3..];
        if !after.starts_with(['>', ' ', '\n', '\t']) {
            rest = after;
            continue;
        }
        let Some(body_start) = after.find('>') else {
            break;
        };
        let body = &after[body_start + 1..];
        let close = format!("</{tag}>");
        let end = body.find(&close).unwrap_or(body.len());
        out.push(&body[..end]);
        rest = &body[end..];
    }
    out
}

/// A cell's HTML as one line of inline markdown.
fn inline_markdown(html: &str) -> String {
    let mut out = String::new();
    let mut rest = html;
    let mut links: Vec<String> = Vec::new();
    while let Some(open) = rest.find('<') {
        out.push_str(&rest[..open]);
        let Some(len) = rest[open..].find('>') else {
            out.push_str(&rest[open..]);
            rest = "";
            break;
        };
        let tag = &rest[open + 1..open + len];
        rest = &rest[open + len + 1..];
        let closing = tag.starts_with('/');
        let name: String = tag
            .trim_start_matches('/')
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect::<String>()
            .to_ascii_lowercase();
        match (name.as_str(), closing) {
            ("code", false) => {
                let end = rest.find("</code>").unwrap_or(rest.len());
                let inner = inline_markdown(&rest[..end]);
                out.push_str(&format!("`{}`", inner.trim_matches('`')));
                rest = rest.get(end + "</code>".len()..).unwrap_or("");
            }
            ("strong" | "b", _) => out.push_str("**"),
            ("em" | "i", _) => out.push('*'),
            ("a", false) => {
                out.push('[');
                links.push(attribute(tag, "href").unwrap_or_default().to_owned());
            }
            ("a", true) => {
                let href = links.pop().unwrap_or_default();
                out.push_str(&format!("]({href})"));
            }
            ("p" | "br" | "div" | "li", _) => out.push(' '),
            _ => {}
        }
    }
    out.push_str(rest);
    let text = out
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&");
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn attribute<'t>(tag: &'t str, name: &str) -> Option<&'t str> {
    let key = format!("{name}=\"");
    let at = tag.find(&key)? + key.len();
    let end = tag[at..].find('"')?;
    Some(&tag[at..at + end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_tables_become_markdown() {
        let rendered = "Intro\n\n<div class=\"scroll\">\n<table>\n  <thead>\n    <tr><th>Setting</th><th>Flag</th></tr>\n  </thead>\n  <tbody>\n<tr>\n  <td><p class=\"name\"><strong>Safe</strong></p><p>Disable <a href=\"/docs/plugins/\">plugins</a> &amp; more</p></td>\n  <td><p><code class=\"flag\">--safe</code></p><p><code>a|b</code></p></td>\n</tr>\n  </tbody>\n</table>\n</div>\n\nAfter\n";
        let source = "Intro\n\n<div class=\"scroll\">\n<table>\n{% for s in site.data.x %}…\n";
        assert_eq!(
            generated_to_markdown(rendered, source),
            "Intro\n\n<div class=\"scroll\">\n\n| Setting | Flag |\n| --- | --- |\n| **Safe** Disable [plugins](/docs/plugins/) & more | `--safe` `a\\|b` |\n\n</div>\n\nAfter\n"
        );
    }

    #[test]
    fn authored_tables_and_code_stay() {
        let text = "<table><tr><td>x</td></tr></table>\n\n```html\n<table><tr><td>{{ y }}</td></tr></table>\n```\n";
        assert_eq!(generated_to_markdown(text, text), text);
    }
}
