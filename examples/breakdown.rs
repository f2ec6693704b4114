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

use skillpack_server::catalog::{Catalog, breakdown};
use skillpack_server::compile::{self, Config};

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
    let empty = tempfile_dir();
    let config = Config::for_dirs(
        skills.unwrap_or_else(|| empty.clone()),
        docs.unwrap_or_else(|| empty.clone()),
    );
    let output = match compile::compile(&config) {
        Ok(output) => output,
        Err(report) => {
            let _ = skillpack_build::print_report(&report, &mut std::io::stderr());
            return ExitCode::FAILURE;
        }
    };
    let served = output.catalog.totals.content_bytes;
    let catalog = match Catalog::from_compiled(output) {
        Ok(catalog) => catalog,
        Err(error) => {
            eprintln!("breakdown: {error}");
            return ExitCode::FAILURE;
        }
    };
    let sizes = breakdown::of(&catalog);
    if json {
        println!("{:#}", sizes.to_json(served));
    } else {
        print!("{}", sizes.table(served));
    }
    ExitCode::SUCCESS
}

/// An empty folder for a side that was not given.
fn tempfile_dir() -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("skillpack-breakdown-empty-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    dir
}
