//! The site's config and its `data/` folder, which shortcodes read (`code-toggle config=`,
//! `datatable`, `eturl`, page filters), and the conversions their output needs.

use std::path::Path;

use serde_json::{Map, Value};

/// A config or data file parsed by its extension (TOML, YAML or JSON).
pub fn parse_by_extension(path: &Path, text: &str) -> Result<Value, String> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    match ext.as_str() {
        "toml" => toml::from_str::<Value>(text).map_err(|e| e.to_string()),
        "yaml" | "yml" => yaml_serde::from_str::<Value>(text).map_err(|e| e.to_string()),
        "json" => serde_json::from_str::<Value>(text).map_err(|e| e.to_string()),
        other => Err(format!("`.{other}` is not a format Hugo reads data from")),
    }
}

/// The files of the `data/` folder, by name without extension (`docs`, `page_filters`).
/// Files that do not parse are left out with the reason, for a warning.
pub fn load_data_dir(dir: &Path) -> (Map<String, Value>, Vec<(String, String)>) {
    let mut data = Map::new();
    let mut problems = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return (data, problems);
    };
    let mut paths: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    for path in paths {
        if !path.is_file() {
            continue;
        }
        let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else {
            continue;
        };
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        match parse_by_extension(&path, &text) {
            Ok(value) => {
                data.insert(stem.to_owned(), value);
            }
            Err(error) => problems.push((path.display().to_string(), error)),
        }
    }
    (data, problems)
}

/// The value at a dotted path (`config.imaging.avif`), keys matched case-insensitively as
/// Hugo matches config keys.
pub fn at<'v>(value: &'v Value, dotted: &str) -> Option<&'v Value> {
    let mut current = value;
    for key in dotted.split('.').filter(|k| !k.is_empty()) {
        let map = current.as_object()?;
        current = map.get(key).or_else(|| {
            map.iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(key))
                .map(|(_, v)| v)
        })?;
    }
    Some(current)
}

/// `value` without nulls (TOML has none).
fn without_nulls(value: &Value) -> Option<Value> {
    match value {
        Value::Null => None,
        Value::Array(items) => Some(Value::Array(
            items.iter().filter_map(without_nulls).collect(),
        )),
        Value::Object(map) => Some(Value::Object(
            map.iter()
                .filter_map(|(k, v)| without_nulls(v).map(|v| (k.clone(), v)))
                .collect(),
        )),
        other => Some(other.clone()),
    }
}

/// `value` as a TOML document under the table `keys` (`[imaging.avif]`), or at the top
/// when `keys` is empty; `None` when TOML cannot hold it.
pub fn to_toml(keys: &[&str], value: &Value) -> Option<String> {
    let mut wrapped = without_nulls(value).unwrap_or(Value::Object(Map::new()));
    for key in keys.iter().rev() {
        let mut map = Map::new();
        map.insert((*key).to_owned(), wrapped);
        wrapped = Value::Object(map);
    }
    if !wrapped.is_object() {
        return None;
    }
    toml::to_string(&wrapped).ok()
}

/// A scalar or list as table-cell text.
pub fn cell(value: &Value) -> String {
    let text = match value {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        Value::Array(items) => items.iter().map(cell).collect::<Vec<_>>().join(", "),
        Value::Object(_) => serde_json::to_string(value).unwrap_or_default(),
        other => other.to_string(),
    };
    text.replace('|', "\\|").replace('\n', " ")
}

/// The format a config snippet is written in: JSON, TOML or YAML.
pub fn snippet_format(text: &str) -> &'static str {
    let trimmed = text.trim_start();
    if trimmed.starts_with('{') {
        return "json";
    }
    let tomlish = text.lines().any(|line| {
        let t = line.trim();
        (t.starts_with('[') && t.ends_with(']') && !t.starts_with("[ ") && !t.contains(": "))
            || t.split_once('=').is_some_and(|(key, _)| {
                let key = key.trim();
                !key.is_empty()
                    && !key.contains(':')
                    && key
                        .chars()
                        .all(|c| c.is_alphanumeric() || "_-.'\" ".contains(c))
            })
    });
    if tomlish { "toml" } else { "yaml" }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toml_from_data() {
        let value: Value =
            serde_json::json!({"quality": 75, "hint": "photo", "none": null, "list": ["a"]});
        let toml = to_toml(&["imaging", "webp"], &value).unwrap();
        assert!(toml.starts_with("[imaging.webp]\n"), "{toml}");
        assert!(toml.contains("quality = 75"));
        assert!(!toml.contains("none"));
    }

    #[test]
    fn formats_of_snippets() {
        assert_eq!(snippet_format("[params]\ncolor = 'red'\n"), "toml");
        assert_eq!(snippet_format("params:\n  color: red\n"), "yaml");
        assert_eq!(snippet_format("{\"a\": 1}"), "json");
    }

    #[test]
    fn dotted_paths_ignore_case() {
        let value = serde_json::json!({"config": {"HTTPCache": {"a": 1}}});
        assert_eq!(
            at(&value, "config.httpcache.a"),
            Some(&serde_json::json!(1))
        );
    }
}
