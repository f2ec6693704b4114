//! skillpack: Agent Skills and markdown docs compiled into one MCP server binary.
//!
//! # Layout
//!
//! The code follows the data, from content folders to MCP messages:
//!
//! - **content → compile (build time)**: [`compile`] walks `skills/` and `docs/`,
//!   validates everything, parses markdown, chunks it, hashes it and bakes a
//!   [`model::Catalog`] plus a content blob. `build.rs` runs it and writes the result into
//!   `OUT_DIR`; tests run it on any folder directly.
//! - **shared contract**: [`model`] (the baked data types), [`uri`] (canonical URIs and
//!   parsing), [`contract`] (templates, error codes, cache hints), [`analyze`] (how text
//!   becomes search terms) and [`postings`] (the index's byte format) are compiled into both
//!   the build script and the server, so they cannot disagree.
//! - **baked catalog (the state)**: [`catalog::Catalog`] reads the embedded archive in
//!   place: no parsing, copying or allocation at start-up.
//! - **search**: [`search::Index`] ranks the sections of any archive for a query, reading
//!   the baked postings in place.
//! - **MCP handlers**: [`server::SkillpackServer`] implements rmcp's `ServerHandler` and
//!   dispatches to one module per surface in [`cmd`] (resources, templates, tools, prompts,
//!   completion, errors…).
//! - **transports**: [`transport::stdio`] (one client; [`transport::framing`] reads
//!   bounded lines, answers malformed ones and bounds requests in flight) and
//!   [`transport::http`] (Streamable HTTP for shared deployments, stateless replicas).
//! - **sandbox**: [`sandbox`] gives up filesystem access (Landlock) once a transport is set
//!   up, so "no IO at run time" is enforced, not only promised.
//! - **CLI**: [`cli`] (`serve`, `info`, `list`, `read`, `search`, `fingerprint`); `src/bin` is a
//!   one-line `main`.

pub mod analyze;
pub mod catalog;
pub mod cli;
pub mod cmd;
pub mod compile;
pub mod contract;
pub mod model;
pub mod postings;
pub mod sandbox;
pub mod search;
pub mod server;
pub mod transport;
pub mod uri;
