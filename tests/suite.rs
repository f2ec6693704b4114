//! The integration tests: one test binary, one module per file beside this one.
//!
//! Each file here used to be a test binary of its own, and each of them linked the server,
//! rmcp's client and tokio in release mode: 24 binaries at about 35 s of compiling each, a
//! quarter of CI's build. As modules of one crate, that code is compiled and linked once.
//! Run one file's tests by its module name: `cargo test --release --test suite tools::`.
//!
//! `tests/common/` holds what the modules share: starting the real binary and its content
//! variants, rmcp's client, raw stdio and HTTP sessions, the Python SDK.

mod common;

mod check;
mod chunking_props;
mod cli;
mod compile;
mod completion;
mod damaged;
mod docs_repo;
mod empty_root;
mod errors;
mod fusion;
mod generators;
mod hostile_content;
mod hostile_http;
mod hostile_stdio;
mod interop;
mod interop_python;
mod load_http;
mod operations;
mod prompts;
mod release_folder;
mod releases;
mod relevance;
mod resources;
mod scale_out;
mod search;
mod skills;
mod streamable_http;
mod tools;
mod zero_io;
