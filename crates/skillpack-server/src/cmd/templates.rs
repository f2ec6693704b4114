//! `resources/templates/list`: the URI templates of the contract (`src/contract.rs`),
//! each with a title and a description saying what it returns.

use rmcp::model::ResourceTemplate;

use crate::contract;

/// `resources/templates/list`: every URI template of the contract.
pub fn list() -> Vec<ResourceTemplate> {
    contract::TEMPLATES
        .iter()
        .map(|t| {
            ResourceTemplate::new(t.uri_template, t.name)
                .with_title(t.title)
                .with_description(t.description)
                .with_mime_type(t.mime_type)
        })
        .collect()
}
