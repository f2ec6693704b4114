//! What every tool is made of: a [`ToolDef`] (name, definition, run), [`definition`] (the
//! parts every tool shares) and [`Args`] (argument checks). Below the tools: the registry
//! that lists them is `cmd::tools`.
//!
//! - [`definition`] fills in what every tool has: the JSON Schema 2020-12 dialect,
//!   annotations (`readOnlyHint`, `idempotentHint`, `openWorldHint: false`) and
//!   `_meta["anthropic/maxResultSizeChars"]`;
//! - [`Args`] checks arguments (unknown names, types, ranges, enums) and turns mistakes into
//!   `invalid_argument` errors that name the field and offer the call without it.

use std::sync::Arc;

use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::{Map, Value};

use super::errors::{CatalogError, Code, Repair, did_you_mean};
use crate::catalog::Catalog;
use crate::contract::MAX_RESULT_SIZE_CHARS;

pub const JSON_SCHEMA_2020_12: &str = "https://json-schema.org/draft/2020-12/schema";
pub const META_MAX_RESULT_SIZE: &str = "anthropic/maxResultSizeChars";

/// A tool: its name, how to describe it, how to run it.
pub struct ToolDef {
    pub name: &'static str,
    /// The `tools/list` entry.
    pub definition: fn(&Catalog) -> Tool,
    /// Run with the request's arguments: the `structuredContent` of a success (it must
    /// match the definition's `outputSchema`), or an error envelope.
    pub call: fn(&Catalog, &JsonObject) -> Result<Value, CatalogError>,
}

/// A tool definition with what every tool here shares: the 2020-12 dialect on both
/// schemas, honest annotations (read-only, idempotent, closed-world: the catalog is fixed
/// in the binary) and the result-size hint for Claude Code.
pub fn definition(
    name: &'static str,
    title: &str,
    description: String,
    input_schema: Value,
    output_schema: Value,
) -> Tool {
    let annotations = ToolAnnotations::with_title(title)
        .read_only(true)
        .destructive(false)
        .idempotent(true)
        .open_world(false);
    Tool::new(name, description, Arc::new(schema(input_schema)))
        .with_title(title)
        .with_raw_output_schema(Arc::new(schema(output_schema)))
        .with_annotations(annotations)
        .with_meta(super::meta::meta(
            META_MAX_RESULT_SIZE,
            MAX_RESULT_SIZE_CHARS.into(),
        ))
}

/// A schema object with `$schema` first.
fn schema(body: Value) -> JsonObject {
    let mut object = Map::new();
    object.insert("$schema".into(), JSON_SCHEMA_2020_12.into());
    if let Value::Object(body) = body {
        object.extend(body);
    }
    object
}

/// The arguments of one call, checked against what the tool accepts. Every mistake is an
/// `invalid_argument` error naming the field, and (for an optional field) offering the
/// same call without it — omitting an optional argument always means its default.
pub struct Args<'a> {
    tool: &'static str,
    map: &'a JsonObject,
    required: &'static [&'static str],
}

impl<'a> Args<'a> {
    /// Refuse names the tool does not take (`additionalProperties: false`).
    pub fn new(
        tool: &'static str,
        map: &'a JsonObject,
        accepted: &'static [&'static str],
        required: &'static [&'static str],
    ) -> Result<Self, CatalogError> {
        let args = Args {
            tool,
            map,
            required,
        };
        if let Some(unknown) = map.keys().find(|k| !accepted.contains(&k.as_str())) {
            let candidates = did_you_mean(unknown, accepted.iter().copied(), 3);
            let mut error = args.invalid(
                "arguments",
                unknown,
                format!(
                    "`{}` is not an argument of {tool}; it takes {}",
                    crate::uri::shorten(unknown),
                    accepted.join(", ")
                ),
            );
            // A misspelt required argument: the call without it cannot work, the call
            // with it spelt right may (the repair is verified before it is sent).
            if let Some(best) = candidates.first()
                && required.contains(&best.as_str())
                && !map.contains_key(best)
            {
                let mut arguments = map.clone();
                if let Some(value) = arguments.remove(unknown) {
                    arguments.insert(best.clone(), value);
                }
                error = error.repair(Repair::call(
                    "rename_argument",
                    tool,
                    Value::Object(arguments),
                    format!("Spell the argument `{best}`, as the tool's inputSchema says."),
                ));
            }
            return Err(error.candidates(candidates));
        }
        for name in required {
            if !map.contains_key(*name) {
                return Err(args.invalid(name, "", format!("`{name}` is required")));
            }
        }
        Ok(args)
    }

    /// An `invalid_argument` error about `field` (an argument name, or `arguments` for an
    /// unknown name given as `value`).
    pub fn invalid(&self, field: &'static str, value: &str, reason: String) -> CatalogError {
        let culprit = if field == "arguments" { value } else { field };
        let error = CatalogError::new(
            Code::InvalidArgument,
            format!("Invalid arguments for {}: {reason}.", self.tool),
        )
        .field(field, value)
        .reason(reason);
        if self.required.contains(&culprit) {
            return error;
        }
        error.repair(self.without(
            "retry_without_argument",
            culprit,
            format!(
                "Omit `{}` (omitting it means its default) or fix it as the tool's inputSchema says.",
                crate::uri::shorten(culprit)
            ),
        ))
    }

    /// This call without one argument, as a repair.
    pub fn without(&self, next_step: &'static str, name: &str, alternative: String) -> Repair {
        let mut arguments = self.map.clone();
        arguments.remove(name);
        Repair::call(next_step, self.tool, Value::Object(arguments), alternative)
    }

    fn get(&self, name: &str) -> Option<&'a Value> {
        self.map.get(name).filter(|v| !v.is_null())
    }

    fn shown(value: &Value) -> String {
        match value {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        }
    }

    pub fn string(
        &self,
        name: &'static str,
        max_bytes: usize,
    ) -> Result<Option<&'a str>, CatalogError> {
        match self.get(name) {
            None => Ok(None),
            Some(Value::String(s)) if s.is_empty() => {
                Err(self.invalid(name, s, format!("`{name}` is empty")))
            }
            Some(Value::String(s)) if s.len() > max_bytes => Err(self.invalid(
                name,
                s,
                format!(
                    "`{name}` is {} bytes long; at most {max_bytes} are accepted",
                    s.len()
                ),
            )),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(other) => Err(self.invalid(
                name,
                &Self::shown(other),
                format!("`{name}` must be a string, not {}", json_type(other)),
            )),
        }
    }

    pub fn required_string(
        &self,
        name: &'static str,
        max_bytes: usize,
    ) -> Result<&'a str, CatalogError> {
        self.string(name, max_bytes)?
            .ok_or_else(|| self.invalid(name, "", format!("`{name}` is required")))
    }

    pub fn choice(
        &self,
        name: &'static str,
        allowed: &[&'static str],
    ) -> Result<Option<&'static str>, CatalogError> {
        let Some(value) = self.get(name) else {
            return Ok(None);
        };
        match value
            .as_str()
            .and_then(|s| allowed.iter().find(|a| **a == s))
        {
            Some(choice) => Ok(Some(choice)),
            None => {
                // The closest allowed values first, then the others.
                let shown = Self::shown(value);
                let mut candidates = did_you_mean(&shown, allowed.iter().copied(), allowed.len());
                for a in allowed {
                    if !candidates.iter().any(|c| c == a) {
                        candidates.push((*a).to_owned());
                    }
                }
                Err(self
                    .invalid(
                        name,
                        &shown,
                        format!("`{name}` must be one of {}", allowed.join(", ")),
                    )
                    .candidates(candidates))
            }
        }
    }

    pub fn integer(
        &self,
        name: &'static str,
        min: u64,
        max: u64,
    ) -> Result<Option<u64>, CatalogError> {
        let Some(value) = self.get(name) else {
            return Ok(None);
        };
        // 10.0 is an integer in JSON Schema; accept it as one.
        let number = value.as_u64().or_else(|| {
            value
                .as_f64()
                .filter(|f| f.fract() == 0.0 && *f >= 0.0)
                .map(|f| f as u64)
        });
        match number {
            Some(n) if (min..=max).contains(&n) => Ok(Some(n)),
            _ => Err(self.invalid(
                name,
                &Self::shown(value),
                format!("`{name}` must be an integer from {min} to {max}"),
            )),
        }
    }
}

fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
