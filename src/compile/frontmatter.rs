//! YAML frontmatter: split it off a markdown file and render it as a JSON object exactly as
//! authored (every key, in order, with YAML scalars typed as YAML 1.2 types them).
//!
//! Parsing uses `yaml_serde` (the YAML organisation's serde_yaml), whose recursion and
//! alias-repetition limits turn "billion laughs" style frontmatter into an error instead of
//! an exponential expansion.

use serde_json::{Map, Value};

/// Where the frontmatter sits in the file.
#[derive(Debug, Clone, PartialEq)]
pub struct Frontmatter {
    pub fields: Map<String, Value>,
    /// Byte offset of the first byte after the closing `---` line.
    pub body_offset: usize,
    /// The YAML text between the delimiters.
    yaml: String,
}

impl Frontmatter {
    /// 1-based line of `key:` at the top level of the frontmatter, for diagnostics.
    pub fn line_of(&self, key: &str) -> usize {
        for (i, line) in self.yaml.lines().enumerate() {
            let stripped = line
                .strip_prefix(key)
                .or_else(|| line.strip_prefix(&format!("\"{key}\"")))
                .or_else(|| line.strip_prefix(&format!("'{key}'")));
            if let Some(rest) = stripped
                && rest.trim_start().starts_with(':')
            {
                return i + 2;
            }
        }
        1
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrontmatterError {
    pub line: usize,
    pub message: String,
    pub fix: String,
}

/// Length of a UTF-8 byte-order mark at the start of `text` (0 or 3).
pub fn bom_len(text: &str) -> usize {
    if text.starts_with('\u{feff}') { 3 } else { 0 }
}

/// Split and parse frontmatter. `Ok(None)` when the file has none.
pub fn parse(text: &str) -> Result<Option<Frontmatter>, FrontmatterError> {
    let start = bom_len(text);
    let Some(after_open) = strip_delimiter_line(&text[start..], "---") else {
        return Ok(None);
    };
    let yaml_start = text.len() - after_open.len();
    // Find the closing delimiter: a line that is exactly `---` or `...`.
    let mut offset = yaml_start;
    let mut close = None;
    for line in text[yaml_start..].split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        if bare == "---" || bare == "..." {
            close = Some((offset, offset + line.len()));
            break;
        }
        offset += line.len();
    }
    let Some((yaml_end, body_offset)) = close else {
        return Err(FrontmatterError {
            line: 1,
            message: "frontmatter opened with `---` on line 1 is never closed".into(),
            fix: "add a line containing only `---` after the last frontmatter key".into(),
        });
    };
    let yaml = &text[yaml_start..yaml_end];
    let fields = if yaml.trim().is_empty() {
        Map::new()
    } else {
        match yaml_serde::from_str::<Value>(yaml) {
            Ok(Value::Object(map)) => map,
            Ok(Value::Null) => Map::new(),
            Ok(other) => {
                return Err(FrontmatterError {
                    line: 2,
                    message: format!(
                        "frontmatter is a YAML {}, not a mapping of keys to values",
                        kind(&other)
                    ),
                    fix: "write the frontmatter as `key: value` lines".into(),
                });
            }
            Err(error) => {
                let line = error.location().map(|l| l.line() + 1).unwrap_or(2);
                let message = error.to_string();
                let fix = if message.contains("repetition limit")
                    || message.contains("recursion limit")
                {
                    "remove the YAML anchors/aliases (`&name`, `*name`) or nesting that expands the frontmatter; write the values out"
                } else if message.contains("expected a string")
                    || message.contains("key must be a string")
                {
                    "use plain strings as frontmatter keys"
                } else {
                    "fix the YAML syntax (quote values that contain `: ` or start with a special character)"
                };
                return Err(FrontmatterError {
                    line,
                    message: format!("invalid YAML frontmatter: {}", strip_location(&message)),
                    fix: fix.into(),
                });
            }
        }
    };
    Ok(Some(Frontmatter {
        fields,
        body_offset,
        yaml: yaml.to_owned(),
    }))
}

fn strip_delimiter_line<'a>(text: &'a str, delimiter: &str) -> Option<&'a str> {
    let rest = text.strip_prefix(delimiter)?;
    let rest = rest.trim_start_matches([' ', '\t']);
    rest.strip_prefix("\r\n")
        .or_else(|| rest.strip_prefix('\n'))
}

fn strip_location(message: &str) -> &str {
    // yaml_serde appends " at line N column M"; the diagnostic carries the line already.
    match message.find(" at line ") {
        Some(i) => &message[..i],
        None => message,
    }
}

pub fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "list",
        Value::Object(_) => "mapping",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_and_types_fields_in_order() {
        let text = "---\nname: pdf\ndescription: \"Work: with PDFs\"\nversion: 2\nenabled: true\nmetadata:\n  owner: docs\n---\n# Body\n";
        let fm = parse(text).unwrap().unwrap();
        let keys: Vec<_> = fm.fields.keys().cloned().collect();
        assert_eq!(
            keys,
            ["name", "description", "version", "enabled", "metadata"]
        );
        assert_eq!(fm.fields["version"], Value::from(2));
        assert_eq!(fm.fields["enabled"], Value::Bool(true));
        assert_eq!(&text[fm.body_offset..], "# Body\n");
        assert_eq!(fm.line_of("description"), 3);
    }

    #[test]
    fn handles_crlf_and_bom() {
        let text = "\u{feff}---\r\nname: x\r\n---\r\nbody";
        let fm = parse(text).unwrap().unwrap();
        assert_eq!(fm.fields["name"], Value::from("x"));
        assert_eq!(&text[fm.body_offset..], "body");
    }

    #[test]
    fn reports_bad_yaml_with_a_line() {
        let err = parse("---\nname: x\ndescription: a: b\n---\n").unwrap_err();
        assert_eq!(err.line, 3, "{err:?}");
        let err = parse("---\nname: x\n").unwrap_err();
        assert!(err.message.contains("never closed"));
        assert!(parse("# no frontmatter\n").unwrap().is_none());
    }

    #[test]
    fn refuses_alias_bombs() {
        let mut yaml = String::from("---\na0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..12 {
            let prev = i - 1;
            yaml.push_str(&format!(
                "a{i}: &a{i} [*a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}]\n"
            ));
        }
        yaml.push_str("---\n");
        let err = parse(&yaml).unwrap_err();
        assert!(err.message.contains("limit"), "{err:?}");
    }
}
