//! One module per MCP surface. Each takes the [`Catalog`](crate::catalog::Catalog) and
//! request arguments and returns rmcp result types or a
//! [`CatalogError`](errors::CatalogError); none of them does IO.

pub mod catalog_list;
pub mod catalog_read;
pub mod catalog_search;
pub mod changes;
pub mod completion;
pub mod cursor;
pub mod errors;
pub mod find_skill;
pub mod lookup;
pub mod prompts;
pub mod resources;
pub mod skills;
pub mod templates;
pub mod tools;
