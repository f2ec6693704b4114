//! Compile `skills/` and `docs/` (or the folders named by `SKILLPACK_SKILLS_DIR` and
//! `SKILLPACK_DOCS_DIR`) into the catalog the binary serves. The compiler itself lives in
//! `src/compile` so that it is tested like any other code; this file only wires it to
//! cargo: settings from the environment, diagnostics to the terminal, output to OUT_DIR.

#[path = "src/analyze.rs"]
#[allow(dead_code)]
mod analyze;
// Parts of the compiler serve only the library and its tests.
#[path = "src/compile/mod.rs"]
#[allow(dead_code, unused_imports)]
mod compile;
#[path = "src/contract.rs"]
#[allow(dead_code)]
mod contract;
#[path = "src/model.rs"]
#[allow(dead_code)]
mod model;
#[path = "src/postings.rs"]
#[allow(dead_code)]
mod postings;
#[path = "src/uri.rs"]
#[allow(dead_code)]
mod uri;

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let crate_root =
        PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".into()));
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").unwrap_or_else(|_| ".".into()));
    let crate_version = std::env::var("CARGO_PKG_VERSION").unwrap_or_default();

    for var in compile::config::ENV_VARS {
        println!("cargo::rerun-if-env-changed={var}");
    }
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=src/compile");
    println!("cargo::rerun-if-changed=src/model.rs");
    println!("cargo::rerun-if-changed=src/contract.rs");
    println!("cargo::rerun-if-changed=src/uri.rs");
    println!("cargo::rerun-if-changed=src/analyze.rs");
    println!("cargo::rerun-if-changed=src/postings.rs");

    let config =
        match compile::Config::from_env(&crate_root, &crate_version, |key| std::env::var(key).ok())
        {
            Ok(config) => config,
            Err(report) => return fail(&report),
        };
    // Cargo scans a folder recursively for changes, so edits anywhere in the content rebuild.
    for root in [&config.skills, &config.docs] {
        println!("cargo::rerun-if-changed={}", root.dir.display());
    }
    if let Some(previous) = &config.previous {
        println!("cargo::rerun-if-changed={}", previous.display());
    }

    let started = std::time::Instant::now();
    let output = match compile::compile(&config) {
        Ok(output) => output,
        Err(report) => return fail(&report),
    };
    print_warnings(&output.report, &out_dir);
    if let Err(error) = compile::emit::write(&out_dir, &output, &crate_version) {
        eprintln!(
            "error: cannot write the compiled catalog to {}: {error}",
            out_dir.display()
        );
        return ExitCode::FAILURE;
    }
    let t = &output.catalog.totals;
    eprintln!(
        "skillpack: compiled {} skills, {} references, {} docs, {} chunks ({} bytes) in {:.2?}; fingerprint {}",
        t.skills,
        t.references,
        t.docs,
        t.chunks,
        t.content_bytes,
        started.elapsed(),
        output.catalog.fingerprint
    );
    ExitCode::SUCCESS
}

/// Print every problem, then fail the build without a panic backtrace.
fn fail(report: &compile::Report) -> ExitCode {
    let errors = report.errors().count();
    eprintln!("\nskillpack: the content does not compile ({errors} error(s)):\n");
    for diagnostic in &report.diagnostics {
        eprintln!("{diagnostic}");
    }
    eprintln!();
    ExitCode::FAILURE
}

/// Cargo shows every `cargo::warning` line; a large imported corpus can have hundreds of
/// broken links. Show the first ones and keep the full list in a file.
fn print_warnings(report: &compile::Report, out_dir: &std::path::Path) {
    const SHOWN: usize = 25;
    let warnings: Vec<String> = report.warnings().map(|w| w.to_string()).collect();
    for warning in warnings.iter().take(SHOWN) {
        println!("cargo::warning={}", one_line(warning));
    }
    if warnings.len() > SHOWN {
        let path = out_dir.join("warnings.txt");
        let saved = std::fs::write(&path, warnings.join("\n") + "\n").is_ok();
        println!(
            "cargo::warning=… and {} more warnings{} (SKILLPACK_STRICT=1 makes them errors)",
            warnings.len() - SHOWN,
            if saved {
                format!(", all listed in {}", path.display())
            } else {
                String::new()
            }
        );
    }
}

/// `cargo::warning` takes one line.
fn one_line(text: &str) -> String {
    text.replace('\n', " ")
}
