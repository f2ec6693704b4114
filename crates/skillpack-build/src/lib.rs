//! skillpack-build: the catalog compiler, run from a `build.rs`.
//!
//! A skillpack binary is a small package whose `build.rs` compiles content folders with
//! this crate and whose `main.rs` serves the result with `skillpack_server::main!()`:
//!
//! ```no_run
//! // build.rs
//! fn main() {
//!     skillpack_build::bake("skills", "docs");
//! }
//! ```
//!
//! # Layout
//!
//! - [`bake`] / [`Bake`]: the build-script entry point — settings (in code, overridden by
//!   `SKILLPACK_*` variables), `rerun-if-changed` lines, diagnostics, output in `OUT_DIR`.
//! - [`check`]: the same compile and the same diagnostics without writing anything (the
//!   `skillpack-check` binary), so authors see problems before any rustc work.
//! - [`compile`]: walk, validate, parse markdown, chunk, hash, index and bake a
//!   [`model::Catalog`] plus a content blob.
//! - The contract shared with the server, which reads the archive in place: [`model`] (the
//!   baked data types), [`uri`] (canonical URIs and parsing), [`contract`] (templates, error
//!   codes, cache hints), [`analyze`] (how text becomes search terms) and [`postings`] (the
//!   index's byte format). One copy of each, so build and run time cannot disagree.

// The crate doc's example is a whole build.rs file, so its `fn main` is the point.
#![allow(clippy::needless_doctest_main)]

pub mod analyze;
mod bake;
pub mod compile;
pub mod contract;
pub mod model;
pub mod packed;
pub mod postings;
pub mod site;
pub mod tables;
pub mod uri;

pub use bake::{Bake, bake, check, print_report};

/// This crate's version. The generated `baked.rs` records it, and `skillpack_server::main!`
/// refuses at compile time an archive written by another version (its layout may differ).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
