//! Where the bytes of a catalog would go, without building a binary over it: compiles the
//! given folders in-process and prints what `skillpack info` prints of a binary baked from
//! them (`docs/benchmarks.md`, "Build and size").
//!
//! ```sh
//! cargo run --release --example breakdown -- --skills DIR --docs DIR [--json]
//! ```
//! A missing `--skills` or `--docs` means an empty folder.

use std::path::PathBuf;
use std::process::ExitCode;

use skillpack_server::catalog::breakdown;

mod common;

fn main() -> ExitCode {
    let mut skills: Option<PathBuf> = None;
    let mut docs: Option<PathBuf> = None;
    let mut json = false;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--skills" => skills = args.next().map(PathBuf::from),
            "--docs" => docs = args.next().map(PathBuf::from),
            "--json" => json = true,
            other => {
                eprintln!(
                    "breakdown: unknown argument {other:?}; usage: --skills DIR --docs DIR [--json]"
                );
                return ExitCode::from(2);
            }
        }
    }
    let Some(catalog) = common::compile_catalog("breakdown", skills, docs) else {
        return ExitCode::FAILURE;
    };
    let served = catalog.archive().totals.content_bytes.to_native();
    let sizes = breakdown::of(&catalog);
    if json {
        println!("{:#}", sizes.to_json(served));
    } else {
        print!("{}", sizes.table(served));
    }
    ExitCode::SUCCESS
}
