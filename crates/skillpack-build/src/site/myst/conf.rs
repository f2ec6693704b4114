//! The literal values Sphinx's `conf.py` sets that the site needs.
//!
//! `conf.py` is Python and is never executed: top-level assignments `name = <literal>`
//! are read with a small parser of Python literals (strings, numbers, `True`/`False`/
//! `None`, lists, tuples, dicts). An assignment whose value is not a literal (a call, a
//! name, an f-string with fields) is skipped, as if it were not there.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

/// Top-level `name = literal` assignments of a Python file, by name (the last one wins).
pub fn assignments(source: &str) -> BTreeMap<String, Value> {
    let mut values = BTreeMap::new();
    let mut offset = 0;
    for line in source.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let Some((name, rest)) = assignment_start(line) else {
            continue;
        };
        let value_at = start + (line.len() - rest.len());
        let mut parser = Parser {
            s: source,
            i: value_at,
        };
        if let Some(value) = parser.value() {
            values.insert(name.to_owned(), value);
        }
    }
    values
}

/// `name = …` at the start of a line: the name and the text after `=`.
fn assignment_start(line: &str) -> Option<(&str, &str)> {
    let first = line.chars().next()?;
    if !(first.is_ascii_alphabetic() || first == '_') {
        return None;
    }
    let end = line
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(line.len());
    let name = &line[..end];
    let rest = line[end..].trim_start_matches([' ', '\t']);
    let rest = rest.strip_prefix('=')?;
    if rest.starts_with('=') {
        return None;
    }
    Some((name, rest))
}

struct Parser<'s> {
    s: &'s str,
    i: usize,
}

impl<'s> Parser<'s> {
    fn rest(&self) -> &'s str {
        &self.s[self.i..]
    }

    /// Skip spaces, newlines and comments.
    fn skip(&mut self) {
        loop {
            let rest = self.rest();
            let trimmed = rest.trim_start_matches([' ', '\t', '\n', '\r', '\\']);
            self.i += rest.len() - trimmed.len();
            if trimmed.starts_with('#') {
                self.i += trimmed.find('\n').unwrap_or(trimmed.len());
                continue;
            }
            break;
        }
    }

    fn eat(&mut self, c: char) -> bool {
        self.skip();
        if self.rest().starts_with(c) {
            self.i += c.len_utf8();
            true
        } else {
            false
        }
    }

    fn value(&mut self) -> Option<Value> {
        self.skip();
        let rest = self.rest();
        let c = rest.chars().next()?;
        match c {
            '{' => self.dict(),
            '[' => self.list(']'),
            '(' => self.list(')'),
            '"' | '\'' => self.strings(),
            _ if rest.starts_with("r\"") || rest.starts_with("r'") => self.strings(),
            _ => self.word(),
        }
    }

    /// One or more adjacent string literals (Python joins them).
    fn strings(&mut self) -> Option<Value> {
        let mut out = String::new();
        let mut any = false;
        loop {
            self.skip();
            let rest = self.rest();
            let raw = rest.starts_with("r\"") || rest.starts_with("r'");
            let body = if raw { &rest[1..] } else { rest };
            let Some(quote) = body.chars().next().filter(|c| *c == '"' || *c == '\'') else {
                break;
            };
            let triple: String = std::iter::repeat_n(quote, 3).collect();
            let (delimiter, open) = if body.starts_with(&triple) {
                (triple.as_str(), 3)
            } else {
                (&body[..1], 1)
            };
            let inner = &body[open..];
            let mut end = None;
            let mut chars = inner.char_indices();
            let mut text = String::new();
            while let Some((at, ch)) = chars.next() {
                if inner[at..].starts_with(delimiter) {
                    end = Some(at);
                    break;
                }
                if ch == '\\' && !raw {
                    match chars.next() {
                        Some((_, 'n')) => text.push('\n'),
                        Some((_, 't')) => text.push('\t'),
                        Some((_, '\n')) => {}
                        Some((_, other)) => text.push(other),
                        None => break,
                    }
                    continue;
                }
                text.push(ch);
            }
            let end = end?;
            self.i += (rest.len() - body.len()) + open + end + delimiter.len();
            out.push_str(&text);
            any = true;
        }
        any.then_some(Value::String(out))
    }

    fn word(&mut self) -> Option<Value> {
        let rest = self.rest();
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '-'))
            .unwrap_or(rest.len());
        let word = &rest[..end];
        let value = match word {
            "True" => Value::Bool(true),
            "False" => Value::Bool(false),
            "None" => Value::Null,
            _ => {
                if let Ok(n) = word.parse::<i64>() {
                    Value::from(n)
                } else if let Ok(f) = word.parse::<f64>() {
                    Value::from(f)
                } else {
                    return None;
                }
            }
        };
        self.i += end;
        // `1 + 2`, `x.y()`: not a literal.
        let after = self.rest().trim_start_matches([' ', '\t']);
        if !(after.is_empty() || after.starts_with([',', ']', ')', '}', '\n', '\r', '#', ':'])) {
            return None;
        }
        Some(value)
    }

    fn list(&mut self, close: char) -> Option<Value> {
        self.i += 1;
        let mut items = Vec::new();
        loop {
            if self.eat(close) {
                return Some(Value::Array(items));
            }
            items.push(self.value()?);
            if !self.eat(',') {
                return self.eat(close).then_some(Value::Array(items));
            }
        }
    }

    fn dict(&mut self) -> Option<Value> {
        self.i += 1;
        let mut map = Map::new();
        loop {
            if self.eat('}') {
                return Some(Value::Object(map));
            }
            let key = match self.value()? {
                Value::String(s) => s,
                other => other.to_string(),
            };
            if !self.eat(':') {
                return None;
            }
            let value = self.value()?;
            map.insert(key, value);
            if !self.eat(',') {
                return self.eat('}').then_some(Value::Object(map));
            }
        }
    }
}

/// A string-valued setting.
pub fn string(values: &BTreeMap<String, Value>, name: &str) -> Option<String> {
    values.get(name)?.as_str().map(str::to_owned)
}

/// A list of strings.
pub fn strings(values: &BTreeMap<String, Value>, name: &str) -> Vec<String> {
    values
        .get(name)
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_literal_assignments_and_skips_the_rest() {
        let source = r#"
from x import y
project = "MyST Parser"
copyright = f"{date.today().year}, x"
version = __version__
exclude_patterns = ["_build", 'Thumbs.db',  # comment
    ".DS_Store"]
myst_heading_anchors = 2
myst_substitutions = {
    "role": "[role](#syntax/roles)",
    'key2': "a" "b",
}
schemes = {"gh": {"url": "https://x/{{path}}", "title": None, "classes": ["github"]}}
flag = True
if x == 1:
    pass
"#;
        let values = assignments(source);
        assert_eq!(string(&values, "project").as_deref(), Some("MyST Parser"));
        assert!(!values.contains_key("copyright"));
        assert!(!values.contains_key("version"));
        assert_eq!(
            strings(&values, "exclude_patterns"),
            ["_build", "Thumbs.db", ".DS_Store"]
        );
        assert_eq!(values["myst_heading_anchors"], Value::from(2));
        assert_eq!(
            values["myst_substitutions"]["role"],
            "[role](#syntax/roles)"
        );
        assert_eq!(values["myst_substitutions"]["key2"], "ab");
        assert_eq!(values["schemes"]["gh"]["url"], "https://x/{{path}}");
        assert_eq!(values["flag"], Value::Bool(true));
    }
}
