//! YAML frontmatter: split it off a markdown file and render it as a JSON object exactly as
//! authored (every key, in order, with YAML scalars typed as YAML 1.2 types them).
//!
//! Parsing uses `yaml_serde` (the YAML organisation's serde_yaml), whose recursion and
//! alias-repetition limits turn "billion laughs" style frontmatter into an error instead of
//! an exponential expansion. Those limits count alias *jumps*, not bytes: 5,000 aliases
//! of one 100 KB string are 120 KB of YAML and 500 MB of JSON. So values are built through
//! [`bounded`], which stops once the frontmatter would grow past [`expansion_budget`].

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

/// Where the body starts: after the frontmatter block when it parses, after its closing
/// line when it does not (a doc with broken frontmatter is served with a warning, its
/// block kept out of the body as the site keeps it out of the page), else after any BOM.
pub fn body_offset(text: &str) -> usize {
    match parse(text) {
        Ok(Some(fm)) => fm.body_offset,
        Ok(None) => bom_len(text),
        Err(_) => block_end(text).unwrap_or_else(|| bom_len(text)),
    }
}

/// The end of a `---` … `---` block at the start of `text`, whatever it holds.
pub fn block_end(text: &str) -> Option<usize> {
    let start = bom_len(text);
    let after_open = strip_delimiter_line(&text[start..], "---")?;
    let mut offset = text.len() - after_open.len();
    for line in text[offset..].split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        if bare == "---" || bare == "..." {
            return Some(offset + line.len());
        }
        offset += line.len();
    }
    None
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
    if flow_depth(yaml) > MAX_FLOW_DEPTH {
        return Err(FrontmatterError {
            line: 2,
            message: format!(
                "invalid YAML frontmatter: `[`/`{{` collections are nested more than {MAX_FLOW_DEPTH} levels deep"
            ),
            fix: "flatten the frontmatter: values nest a few levels at most".into(),
        });
    }
    let fields = if yaml.trim().is_empty() {
        Map::new()
    } else {
        match bounded::from_yaml(yaml, expansion_budget(yaml.len())) {
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
                    || message.contains(bounded::TOO_LARGE)
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

/// Deeper flow nesting than this is refused before parsing (see [`flow_depth`]).
const MAX_FLOW_DEPTH: usize = 1000;

/// Deepest nesting of flow collections (`[`, `{`), counted without parsing. libyaml takes
/// time quadratic in that depth (80,000 `[` take 16 s; a 16 MiB file would take hours) and
/// yaml_serde refuses more than 128 levels anyway, so frontmatter nested far deeper is
/// refused before it reaches the parser. Quoted scalars and comments are skipped; brackets
/// inside plain scalars may over-count, which the limit's distance from 128 absorbs.
fn flow_depth(yaml: &str) -> usize {
    let (mut depth, mut deepest) = (0usize, 0usize);
    let mut quote: Option<char> = None;
    let (mut escaped, mut comment) = (false, false);
    let mut prev = '\n';
    for c in yaml.chars() {
        if comment {
            comment = c != '\n';
        } else if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if q == '"' && c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
        } else {
            match c {
                // A quote starts a scalar only where a scalar can start (not in `it's`).
                '"' | '\'' if prev.is_whitespace() || "[{,:".contains(prev) => quote = Some(c),
                '#' if prev.is_whitespace() => comment = true,
                '[' | '{' => {
                    depth += 1;
                    deepest = deepest.max(depth);
                }
                ']' | '}' => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        prev = c;
    }
    deepest
}

/// The most JSON a frontmatter of `yaml_len` bytes may expand to: room for ordinary use of
/// anchors (merge keys, a shared list) but not for an alias bomb.
pub fn expansion_budget(yaml_len: usize) -> usize {
    64 * 1024 + 4 * yaml_len
}

/// YAML → JSON with a byte budget, counted as values are built, so that an alias bomb is
/// refused before its expansion is allocated. Hand-written because serde_json's own
/// `Value` visitor has no budget and yaml_serde only bounds alias jumps.
mod bounded {
    use std::cell::Cell;
    use std::fmt;

    use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
    use serde_json::{Map, Number, Value};

    /// Start of the error message, recognised by the caller to suggest the right fix.
    pub const TOO_LARGE: &str = "the frontmatter expands to more than";

    pub fn from_yaml(yaml: &str, budget: usize) -> Result<Value, yaml_serde::Error> {
        let budget = Budget {
            total: budget,
            left: Cell::new(budget),
        };
        Seed(&budget).deserialize(yaml_serde::Deserializer::from_str(yaml))
    }

    struct Budget {
        total: usize,
        left: Cell<usize>,
    }

    impl Budget {
        /// Spend `bytes` (plus a little per value, so that a bomb of empty values counts).
        fn spend<E: de::Error>(&self, bytes: usize) -> Result<(), E> {
            let cost = bytes + 8;
            match self.left.get().checked_sub(cost) {
                Some(left) => {
                    self.left.set(left);
                    Ok(())
                }
                None => Err(E::custom(format!(
                    "{TOO_LARGE} {} bytes of values (YAML aliases repeat values)",
                    self.total
                ))),
            }
        }
    }

    #[derive(Clone, Copy)]
    struct Seed<'a>(&'a Budget);

    impl<'de> DeserializeSeed<'de> for Seed<'_> {
        type Value = Value;

        fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
            deserializer.deserialize_any(self)
        }
    }

    /// Keys are strings, as in serde_json's `Value`.
    struct Key<'a>(&'a Budget);

    impl<'de> DeserializeSeed<'de> for Key<'_> {
        type Value = String;

        fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<String, D::Error> {
            let key = String::deserialize(deserializer)?;
            self.0.spend(key.len())?;
            Ok(key)
        }
    }

    use serde::Deserialize;

    impl<'de> Visitor<'de> for Seed<'_> {
        type Value = Value;

        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("any valid JSON value")
        }

        fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
            self.0.spend(0)?;
            Ok(Value::Bool(v))
        }

        fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
            self.0.spend(0)?;
            Ok(Value::Number(v.into()))
        }

        fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
            self.0.spend(0)?;
            Ok(Value::Number(v.into()))
        }

        fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
            self.0.spend(0)?;
            // As serde_json does: NaN and infinities have no JSON spelling.
            Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
        }

        fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
            self.0.spend(v.len())?;
            Ok(Value::String(v.to_owned()))
        }

        fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
            self.0.spend(v.len())?;
            Ok(Value::String(v))
        }

        fn visit_none<E: de::Error>(self) -> Result<Value, E> {
            self.0.spend(0)?;
            Ok(Value::Null)
        }

        fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
            self.visit_none()
        }

        fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
            self.deserialize(deserializer)
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
            self.0.spend(0)?;
            let mut items = Vec::new();
            while let Some(item) = seq.next_element_seed(self)? {
                items.push(item);
            }
            Ok(Value::Array(items))
        }

        fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Value, A::Error> {
            self.0.spend(0)?;
            let mut map = Map::new();
            while let Some(key) = access.next_key_seed(Key(self.0))? {
                let value = access.next_value_seed(self)?;
                map.insert(key, value);
            }
            Ok(Value::Object(map))
        }
    }
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
        assert!(
            err.message.contains("limit") || err.message.contains(bounded::TOO_LARGE),
            "{err:?}"
        );
    }

    #[test]
    fn refuses_deep_flow_nesting_before_parsing() {
        let text = format!("---\nname: a\nx: {}\n---\n", "[".repeat(1_000_000));
        let err = parse(&text).unwrap_err();
        assert!(err.message.contains("nested more than"), "{err:?}");
        // Brackets in quotes, comments and words do not count.
        let quoted = "[".repeat(5000);
        let text = format!(
            "---\nname: a\ndescription: \"{quoted} \\\" {quoted}\"\nb: '{quoted}'\nc: it's [ok] # {quoted}\n---\n"
        );
        let fm = parse(&text).unwrap().unwrap();
        assert_eq!(fm.fields["c"], Value::from("it's [ok]"));
    }

    #[test]
    fn refuses_wide_alias_bombs() {
        // Few aliases (well under yaml_serde's jump limit), each repeating a large value.
        let big = "x".repeat(100_000);
        let aliases = vec!["*b"; 5000].join(", ");
        let text = format!("---\nname: a\nbase: &b [\"{big}\"]\nall: [{aliases}]\n---\n");
        let err = parse(&text).unwrap_err();
        assert!(err.message.contains(bounded::TOO_LARGE), "{err:?}");
        assert!(err.fix.contains("anchors"), "{err:?}");
        // Ordinary anchors and merge keys are fine.
        let text = "---\nname: a\nbase: &b {x: 1, y: [a, b]}\none: *b\ntwo: {<<: *b, z: 2}\n---\n";
        let fm = parse(text).unwrap().unwrap();
        assert_eq!(
            fm.fields["one"],
            serde_json::json!({"x": 1, "y": ["a", "b"]})
        );
        assert_eq!(fm.fields["two"]["z"], Value::from(2));
    }
}
