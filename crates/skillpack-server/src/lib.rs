//! skillpack-server: a catalog baked by `skillpack-build`, served over MCP.
//!
//! A skillpack binary is a small package: its `build.rs` calls `skillpack_build::bake`, and
//! its `main.rs` is one line:
//!
//! ```text
//! skillpack_server::main!();
//! ```
//!
//! That expands to a `main` running the full CLI ([`cli`]: `serve` over stdio or `--http`,
//! `info`, `list`, `read`, `search`, `fingerprint`) over the catalog the build script wrote
//! into `OUT_DIR`. This crate is compiled once like any dependency; a content edit reruns
//! the build script and recompiles only that small package.
//!
//! # Layout
//!
//! The code follows the data, from the baked archive to MCP messages:
//!
//! - **contract** (from `skillpack-build`, re-exported so that both sides share one copy):
//!   [`model`] (the baked data types), [`uri`], [`contract`], [`analyze`], [`postings`];
//!   and [`compile`] itself, for tools, tests and benches that compile content in-process.
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
//! - **CLI**: [`cli`]; [`main!`] and [`baked!`] connect it to a build script's output.

pub use skillpack_build::{analyze, compile, contract, model, postings, site, tables, uri};

pub mod catalog;
pub mod cli;
pub mod cmd;
pub mod sandbox;
pub mod search;
pub mod server;
pub mod transport;

/// What the macros need from this crate's dependencies, under one path (not API).
#[doc(hidden)]
pub mod __private {
    pub use mimalloc::MiMalloc;
    pub use skillpack_build::VERSION as BUILD_CRATE_VERSION;

    /// `a == b` in a constant (`str` equality is not `const` yet).
    pub const fn same(a: &str, b: &str) -> bool {
        let (a, b) = (a.as_bytes(), b.as_bytes());
        if a.len() != b.len() {
            return false;
        }
        let mut i = 0;
        while i < a.len() {
            if a[i] != b[i] {
                return false;
            }
            i += 1;
        }
        true
    }
}

/// The [`catalog::Catalog`] that `skillpack_build::bake` wrote into this package's
/// `OUT_DIR`, embedded in the binary. Fails to compile if the build script used another
/// version of `skillpack-build` than this crate (the archive layout could differ).
#[macro_export]
macro_rules! baked {
    () => {{
        mod __skillpack_baked {
            include!(concat!(env!("OUT_DIR"), "/baked.rs"));
        }
        const _: () = ::core::assert!(
            $crate::__private::same(
                __skillpack_baked::BUILD_CRATE_VERSION,
                $crate::__private::BUILD_CRATE_VERSION
            ),
            "the catalog was baked by another version of skillpack-build than the one \
             skillpack-server uses: depend on the same version of both (build-dependency \
             and dependency)"
        );
        // The content store's prepared dictionary: made by the first read that needs it.
        static DICTIONARY: $crate::catalog::Dictionary = $crate::catalog::Dictionary::new();
        // SAFETY: `baked.rs`, `catalog.bin` and `content.bin` were written together by
        // `skillpack_build::bake` of the version checked above; `Aligned` is 16-byte aligned.
        unsafe {
            $crate::catalog::Catalog::from_baked(
                &__skillpack_baked::CATALOG.0,
                __skillpack_baked::CONTENT,
                &DICTIONARY,
                __skillpack_baked::SERVER_VERSION,
            )
        }
    }};
}

/// `fn main` for a skillpack binary: the full CLI over the [`baked!`] catalog, with the
/// allocator the benchmarks were measured with.
#[macro_export]
macro_rules! main {
    () => {
        // mimalloc rather than glibc's malloc: a document answer builds and frees a few
        // hundred small `serde_json` values (its `_meta` outline), and pipelined reads ran
        // 1.3 times faster with it (docs/benchmarks.md). Built without transparent huge
        // pages (`no_thp`): with them it backs its first arena with 2 MiB pages and idle
        // RSS grows by 6 MiB.
        #[global_allocator]
        static SKILLPACK_ALLOCATOR: $crate::__private::MiMalloc = $crate::__private::MiMalloc;

        fn main() -> ::std::process::ExitCode {
            $crate::cli::main($crate::baked!())
        }
    };
}
