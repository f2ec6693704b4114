//! Tools: the fallback surface for clients that handle resources poorly. Self-sufficient
//! from `tools/list` alone, read-only, closed-world. This is their registry, above the
//! tools themselves (one file each, `catalog_*`), which are made of `cmd::tool_def`.
//!
//! # Adding a tool
//!
//! A tool is one file under `src/cmd/` exporting a [`ToolDef`] constant: its name, a
//! function that builds its definition (built once per server, from the catalog, so that
//! examples name real ids) and a function that runs it. Add the constant to [`TOOLS`] and
//! a line to `contract::TOOLS` (the capability summary lists it; a test checks the two
//! agree).
//!
//! [`call`] wraps success as `structuredContent` + the same JSON as text, and errors as
//! `isError: true` + the envelope + a one-line text. Every error's `repair` call is
//! verified first ([`verify`], which every carrier of an error takes).

use rmcp::model::{CallToolResult, ContentBlock, JsonObject, Tool};
use serde_json::{Value, json};

use super::errors::{CatalogError, Code, Repair, VerifiedError, did_you_mean};
use super::tool_def::ToolDef;
use super::{catalog_list, catalog_read, catalog_search};
use crate::catalog::Catalog;
use crate::contract;

/// Every tool, in `tools/list` order.
pub const TOOLS: &[ToolDef] = &[catalog_list::TOOL, catalog_read::TOOL, catalog_search::TOOL];

pub fn find(name: &str) -> Option<&'static ToolDef> {
    TOOLS.iter().find(|t| t.name == name)
}

/// The `tools/list` entries.
pub fn list(catalog: &Catalog) -> Vec<Tool> {
    TOOLS.iter().map(|t| (t.definition)(catalog)).collect()
}

/// `tools/call`. `Err` only for a tool this server does not have (a protocol error);
/// everything that goes wrong inside a tool is an `isError` result the model can read.
pub fn call(
    catalog: &Catalog,
    name: &str,
    arguments: Option<&JsonObject>,
) -> Result<CallToolResult, VerifiedError> {
    let Some(tool) = find(name) else {
        return Err(verify(catalog, unknown_tool(name)));
    };
    let empty = JsonObject::new();
    match (tool.call)(catalog, arguments.unwrap_or(&empty)) {
        Ok(value) => Ok(CallToolResult::structured(value)),
        Err(error) => {
            let error = verify(catalog, error);
            let mut result = CallToolResult::structured_error(error.tool_envelope(catalog));
            result.content = vec![ContentBlock::text(error.tool_text())];
            Ok(result)
        }
    }
}

/// Run a tool in-process; `None` when there is no such tool.
pub fn run(
    catalog: &Catalog,
    name: &str,
    arguments: &JsonObject,
) -> Option<Result<Value, CatalogError>> {
    find(name).map(|tool| (tool.call)(catalog, arguments))
}

fn unknown_tool(name: &str) -> CatalogError {
    CatalogError::new(
        Code::InvalidArgument,
        format!("This server has no tool `{}`.", crate::uri::shorten(name)),
    )
    .field("name", name)
    .reason(format!(
        "the tools are {}",
        TOOLS.iter().map(|t| t.name).collect::<Vec<_>>().join(", ")
    ))
    .candidates(did_you_mean(name, TOOLS.iter().map(|t| t.name), 3))
}

/// An error ready to leave the server: its repair call verified ([`working_repair`]).
/// Every carrier takes one: the server's JSON-RPC errors and [`call`]'s `isError` results.
pub fn verify(catalog: &Catalog, error: CatalogError) -> VerifiedError {
    error.verified(|code, repair| working_repair(catalog, code, repair))
}

/// The repair call of an error, verified: the call is run in-process (tools are pure
/// functions of the baked catalog, so this costs microseconds and changes nothing) and,
/// should it fail, or should there be none, `catalog_list {}`, which always works, takes
/// its place.
pub fn working_repair(catalog: &Catalog, code: Code, repair: Option<Repair>) -> Repair {
    let works = repair
        .as_ref()
        .and_then(|r| r.tool.as_ref())
        .and_then(|(tool, arguments)| run(catalog, tool, arguments.as_object()?))
        .is_some_and(|outcome| outcome.is_ok());
    if works && let Some(repair) = repair {
        return repair;
    }
    let fallback = Some((contract::TOOL_LIST, json!({})));
    match repair {
        Some(mut repair) => {
            if repair.tool.is_some() {
                tracing::warn!(
                    code = code.as_str(),
                    "repair call did not work; offering catalog_list instead"
                );
            }
            repair.tool = fallback;
            repair
        }
        None => Repair {
            next_step: "list_catalog",
            tool: fallback,
            alternative: format!(
                "Read {} for what this server serves and its URI families.",
                crate::uri::CAPABILITIES
            ),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::{TOOL_READ, TOOL_SEARCH};
    use crate::search::tests::fixture;

    #[test]
    fn every_tool_is_in_the_contract_and_back() {
        let registry: Vec<&str> = TOOLS.iter().map(|t| t.name).collect();
        let contract: Vec<&str> = contract::TOOLS.iter().map(|t| t.name).collect();
        assert_eq!(registry, contract);
    }

    fn run_ok(catalog: &Catalog, tool: &str, arguments: Value) -> Value {
        run(catalog, tool, arguments.as_object().unwrap())
            .unwrap()
            .unwrap_or_else(|e| panic!("{tool} {arguments}: {e:?}"))
    }

    #[test]
    fn search_hit_sizes_are_the_bytes_a_read_returns() {
        let catalog = fixture();
        let result = run_ok(
            &catalog,
            TOOL_SEARCH,
            json!({"query": "entry API or_insert"}),
        );
        let hit = &result["hits"][0];
        let size_of = |uri: &Value| {
            let read = run_ok(&catalog, TOOL_READ, json!({"uri": uri, "detail": "full"}));
            assert_eq!(
                read["size"].as_u64(),
                Some(read["text"].as_str().unwrap().len() as u64)
            );
            read["size"].clone()
        };
        assert_eq!(hit["section_size"], size_of(&hit["section_uri"]));
        assert_eq!(hit["chunk_size"], size_of(&hit["chunk_uri"]));
    }

    #[test]
    fn a_carried_section_is_what_a_read_of_its_uri_returns() {
        let catalog = fixture();
        let result = run_ok(&catalog, TOOL_SEARCH, json!({"query": "radio buttons"}));
        let hit = &result["hits"][0];
        let text = hit["section_text"]
            .as_str()
            .expect("the first hit's small section is carried");
        let read = run_ok(&catalog, TOOL_READ, json!({"uri": hit["section_uri"]}));
        assert_eq!(read["text"].as_str(), Some(text));
        assert_eq!(read["size"], hit["section_size"]);
    }

    #[test]
    fn repairs_of_bad_searches_work_as_given() {
        let catalog = fixture();
        for input in [
            json!({}),
            json!({"query": ""}),
            json!({"query": "   "}),
            json!({"query": "?!"}),
            json!({"query": 5}),
            json!({"query": "x".repeat(crate::search::MAX_QUERY_BYTES + 1)}),
            json!({"query": "a", "kind": "skill"}),
            json!({"query": "a", "limit": 0}),
            json!({"query": "a", "limit": 51}),
            json!({"query": "a", "limit": "ten"}),
            json!({"query": "a", "cursor": 3}),
            json!({"query": "a", "qurey": "b"}),
        ] {
            let error = run(&catalog, TOOL_SEARCH, input.as_object().unwrap())
                .unwrap()
                .unwrap_err();
            // As built, before verification (which would put in `catalog_list {}`).
            let built = error.repair.clone().and_then(|r| r.tool);
            let (tool, arguments) = built.clone().unwrap_or((contract::TOOL_LIST, json!({})));
            run_ok(&catalog, tool, arguments);
            if built.is_some() {
                assert_eq!(
                    verify(&catalog, error.clone()).error().repair,
                    error.repair,
                    "{input}: a working repair is kept"
                );
            }
        }
    }
}
