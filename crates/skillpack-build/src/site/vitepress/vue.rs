//! Vue in VitePress pages: HTML blocks that are Vue templates, and components in headings.

/// Whether an HTML block is a Vue template: components, directives or interpolations.
pub fn is_vue_block(block: &str) -> bool {
    tags(block).any(|tag| is_component_tag(tag) || has_vue_attribute(tag)) || block.contains("{{")
}

/// The tags of an HTML text, `<` and `>` excluded.
fn tags(text: &str) -> impl Iterator<Item = &str> {
    text.split('<').skip(1).filter_map(|part| {
        let end = part.find('>')?;
        let tag = &part[..end];
        let name = tag_name(tag);
        // `<https://x.dev>` is an autolink and `Record<string, T>` a type, not tags.
        let is_tag = name.starts_with(|c: char| c.is_ascii_alphabetic())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
        is_tag.then_some(tag)
    })
}

fn tag_name(tag: &str) -> &str {
    let tag = tag.trim_start_matches('/');
    let end = tag
        .find(|c: char| c.is_whitespace() || c == '/' || c == '>')
        .unwrap_or(tag.len());
    &tag[..end]
}

/// `Badge`, `VPTeamMembers`, `svg-image`: not an HTML element.
fn is_component_tag(tag: &str) -> bool {
    let name = tag_name(tag);
    name.starts_with(|c: char| c.is_ascii_uppercase()) || name.contains('-') || name == "template"
}

fn has_vue_attribute(tag: &str) -> bool {
    tag.split_whitespace().skip(1).any(|attr| {
        attr.starts_with("v-")
            || attr.starts_with(':') && attr.len() > 1
            || attr.starts_with('@') && attr.len() > 1
            || attr.starts_with('#') && attr.len() > 1
    })
}

/// A Vue block as text: data-driven (`v-for`) blocks dropped, one-line components with an
/// `href` as links, other blocks as the paragraphs of their text.
pub fn vue_block_text(block: &str) -> String {
    if tags(block).any(|tag| tag.split_whitespace().any(|a| a.starts_with("v-for"))) {
        return String::new();
    }
    let lines: Vec<&str> = block.lines().collect();
    if let [line] = lines.as_slice()
        && let Some(link) = component_link(line)
    {
        return format!("{link}\n");
    }
    let mut paragraphs: Vec<String> = Vec::new();
    let mut current = String::new();
    for line in &lines {
        let text = text_content(line);
        let has_tag = tags(line).next().is_some();
        if !text.is_empty() {
            if !current.is_empty() {
                current.push('\n');
            }
            current.push_str(&text);
        }
        if has_tag && !current.is_empty() {
            paragraphs.push(std::mem::take(&mut current));
        }
    }
    if !current.is_empty() {
        paragraphs.push(current);
    }
    paragraphs
        .iter()
        .map(|p| format!("{p}\n"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `<ScrimbaLink href="u" …>Text</ScrimbaLink>` → `[Text](u)`.
fn component_link(line: &str) -> Option<String> {
    let first = tags(line).next()?;
    let href = attribute(first, "href")?;
    let text = text_content(line);
    (!text.is_empty()).then(|| format!("[{text}]({href})"))
}

fn attribute<'t>(tag: &'t str, name: &str) -> Option<&'t str> {
    let at = tag.find(&format!(" {name}=\""))? + name.len() + 3;
    let end = tag[at..].find('"')?;
    Some(&tag[at..at + end])
}

/// The text of an HTML line: tags and `{{ … }}` interpolations removed, spaces trimmed.
fn text_content(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(open) = rest.find(['<', '{']) {
        out.push_str(&rest[..open]);
        let closing = if rest[open..].starts_with("{{") {
            "}}"
        } else if rest[open..].starts_with('<') {
            ">"
        } else {
            out.push('{');
            rest = &rest[open + 1..];
            continue;
        };
        match rest[open..].find(closing) {
            Some(end) => rest = &rest[open + end + closing.len()..],
            None => {
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

pub fn has_inline_component(heading: &str) -> bool {
    tags(&without_code_spans(heading)).any(is_component_tag)
}

fn without_code_spans(text: &str) -> String {
    text.split('`').step_by(2).collect::<Vec<_>>().join(" ")
}

/// `## Default change [<Badge text="NRV" />](#x)` → `## Default change`.
pub fn heading_without_components(bare: &str) -> String {
    let mut out = String::new();
    let mut rest = bare;
    while let Some(open) = rest.find(['<', '`']) {
        out.push_str(&rest[..open]);
        if rest[open..].starts_with('`') {
            let end = rest[open + 1..]
                .find('`')
                .map_or(rest.len(), |e| open + e + 2);
            out.push_str(&rest[open..end]);
            rest = &rest[end..];
            continue;
        }
        let tag_end = rest[open..].find('>').map(|e| open + e + 1);
        match tag_end {
            Some(end) if is_component_tag(&rest[open + 1..end - 1]) => rest = &rest[end..],
            Some(end) => {
                out.push_str(&rest[open..end]);
                rest = &rest[end..];
            }
            None => {
                out.push_str(&rest[open..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    // A link left with no text (`[](#x)`) shows nothing.
    while let Some(at) = out.find("[](") {
        match out[at..].find(')') {
            Some(end) => out.replace_range(at..at + end + 1, ""),
            None => break,
        }
    }
    out.trim_end().to_owned()
}
