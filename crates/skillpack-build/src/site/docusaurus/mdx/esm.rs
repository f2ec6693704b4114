//! ESM and comments in MDX: `import`/`export` blocks (ended by a blank line, as MDX
//! ends them), the names they bind, and `{/* … */}` comments.

use super::*;

/// A line starting an `import` or `export` statement (MDX reads them at column 0).
pub(super) fn is_esm_start(trimmed: &str) -> bool {
    if let Some(rest) = trimmed.strip_prefix("import") {
        let rest_t = rest.trim_start();
        return (rest.starts_with([' ', '{', '*']) || rest.starts_with(['\'', '"']))
            && (trimmed.contains(" from ")
                || rest_t.starts_with(['\'', '"', '{', '*'])
                || rest_t.starts_with("type ")
                || rest_t.ends_with(','));
    }
    if let Some(rest) = trimmed.strip_prefix("export ") {
        let word = rest
            .trim_start()
            .split(|c: char| !c.is_ascii_alphanumeric())
            .next()
            .unwrap_or("");
        return matches!(
            word,
            "const"
                | "let"
                | "var"
                | "function"
                | "default"
                | "class"
                | "async"
                | "type"
                | "interface"
                | ""
        );
    }
    false
}

/// The line after the ESM block starting on line `start`: MDX ends it at a blank line
/// (outside brackets and template literals) or the end of the text.
pub(super) fn esm_end(lines: &[SrcLine<'_>], start: usize) -> usize {
    let mut scan = JsScan::default();
    let mut i = start;
    while i < lines.len() {
        if i > start && lines[i].is_blank() && scan.depth <= 0 && !scan.in_template {
            break;
        }
        scan.feed(lines[i].text);
        i += 1;
    }
    i
}

/// Bracket depth and template-literal state across lines of JS.
#[derive(Default)]
pub(super) struct JsScan {
    depth: i32,
    in_template: bool,
}

impl JsScan {
    fn feed(&mut self, line: &str) {
        let bytes = line.as_bytes();
        let mut p = 0;
        while p < bytes.len() {
            let b = bytes[p];
            if self.in_template {
                match b {
                    b'\\' => p += 1,
                    b'`' => self.in_template = false,
                    _ => {}
                }
                p += 1;
                continue;
            }
            match b {
                b'{' | b'(' | b'[' => self.depth += 1,
                b'}' | b')' | b']' => self.depth -= 1,
                b'`' => self.in_template = true,
                b'"' | b'\'' => {
                    p += 1;
                    while p < bytes.len() && bytes[p] != b && bytes[p] != b'\n' {
                        if bytes[p] == b'\\' {
                            p += 1;
                        }
                        p += 1;
                    }
                }
                b'/' if bytes.get(p + 1) == Some(&b'/') => return,
                _ => {}
            }
            p += 1;
        }
    }
}

/// Imports and static exports of every top-level ESM block.
pub(super) fn collect_scope(lines: &[SrcLine<'_>], scope: &mut Scope) {
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if !line.in_code && is_esm_start(line.bare()) {
            let end = esm_end(lines, i);
            let block: String = lines[i..end].iter().map(|l| l.text).collect();
            read_esm(&block, scope);
            i = end;
        } else {
            i += 1;
        }
    }
}

/// `import A, { B as C } from 'x'` → A and C bound to `x`; `export const n = 'text'`.
pub(super) fn read_esm(block: &str, scope: &mut Scope) {
    let mut rest = block;
    while let Some(at) = find_word(rest, "import") {
        let statement = &rest[at + "import".len()..];
        let Some(from) = statement.find("from") else {
            break;
        };
        let clause = statement[..from].trim();
        let after = statement[from + 4..].trim_start();
        let Some(quote) = after.chars().next().filter(|c| *c == '"' || *c == '\'') else {
            rest = &statement[from + 4..];
            continue;
        };
        let Some(len) = after[1..].find(quote) else {
            break;
        };
        let spec = &after[1..1 + len];
        bind_clause(clause, spec, scope);
        rest = &after[1 + len..];
    }
    let mut rest = block;
    while let Some(at) = rest.find("export const ") {
        let statement = &rest[at + "export const ".len()..];
        rest = statement;
        let Some(eq) = statement.find('=') else {
            break;
        };
        let name = statement[..eq].trim();
        if !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
        {
            continue;
        }
        let value = statement[eq + 1..].trim_start();
        let Some(quote) = value
            .chars()
            .next()
            .filter(|c| matches!(c, '"' | '\'' | '`'))
        else {
            continue;
        };
        let Some(len) = value[1..].find(quote) else {
            continue;
        };
        let literal = &value[..len + 2];
        if let Some(text) = static_expression(literal) {
            scope.values.insert(name.to_owned(), text);
        }
    }
}

/// `word` standing alone (start of text or after whitespace or `;`), followed by a space,
/// `{` or `*`.
pub(super) fn find_word(text: &str, word: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(at) = text[from..].find(word).map(|a| a + from) {
        let before_ok = at == 0
            || text[..at]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_whitespace() || c == ';');
        let after_ok = text[at + word.len()..].starts_with([' ', '{', '*', '\n', '\t']);
        if before_ok && after_ok {
            return Some(at);
        }
        from = at + word.len();
    }
    None
}

pub(super) fn bind_clause(clause: &str, spec: &str, scope: &mut Scope) {
    let clause = clause.strip_prefix("type ").unwrap_or(clause).trim();
    let (default, named) = match clause.find('{') {
        Some(open) => {
            let close = clause.rfind('}').unwrap_or(clause.len());
            (
                clause[..open].trim().trim_end_matches(',').trim(),
                &clause[(open + 1).min(close)..close],
            )
        }
        None => (clause, ""),
    };
    let default = default.strip_prefix("* as ").unwrap_or(default).trim();
    if !default.is_empty() && !default.contains(char::is_whitespace) {
        scope.imports.insert(default.to_owned(), spec.to_owned());
    }
    for name in named.split(',') {
        let name = name.trim().strip_prefix("type ").unwrap_or(name.trim());
        let local = name.rsplit(" as ").next().unwrap_or(name).trim();
        if !local.is_empty() {
            scope.imports.insert(local.to_owned(), spec.to_owned());
        }
    }
}

/// A `{/* … */}` comment starting at `at`: the index of its last line and what follows
/// it there.
pub(super) fn comment_end<'t>(
    text: &'t str,
    lines: &[SrcLine<'_>],
    at: usize,
) -> Option<(usize, &'t str)> {
    let close = at + text[at..].find("*/}")? + 3;
    let last = line_at(lines, close - 1);
    Some((last, &text[close..lines[last].end()]))
}

/// A line without its `{/* … */}` comments (code spans left alone).
pub(super) fn strip_inline_comments(line: &str) -> String {
    let bytes = line.as_bytes();
    let mut out = String::with_capacity(line.len());
    let mut copied = 0;
    let mut pos = 0;
    while pos < bytes.len() {
        if bytes[pos] == b'`' {
            pos = skip_code_span(bytes, pos, bytes.len());
            continue;
        }
        if bytes[pos..].starts_with(b"{/*") {
            let Some(close) = line[pos..].find("*/}") else {
                break;
            };
            out.push_str(&line[copied..pos]);
            pos += close + 3;
            copied = pos;
            continue;
        }
        pos += 1;
    }
    out.push_str(&line[copied..]);
    out
}
