//! What the examples share: compiling content folders in-process into a catalog they can
//! read, as `build.rs` would bake it, with the compiler's diagnostics on stderr.

use std::path::PathBuf;

use skillpack_server::catalog::Catalog;
use skillpack_server::compile::{self, Config};

/// Compile `skills` and `docs` (a side not given is an empty folder) and open the result;
/// `None` once what went wrong is printed, prefixed with `tool`.
pub fn compile_catalog(
    tool: &str,
    skills: Option<PathBuf>,
    docs: Option<PathBuf>,
) -> Option<Catalog> {
    let output = compile_output(tool, skills, docs)?;
    Catalog::from_compiled(output)
        .map_err(|error| eprintln!("{tool}: {error}"))
        .ok()
}

/// Compile `skills` and `docs` (a side not given is an empty folder): what `build.rs`
/// would bake; `None` once what went wrong is printed, prefixed with `tool`.
pub fn compile_output(
    tool: &str,
    skills: Option<PathBuf>,
    docs: Option<PathBuf>,
) -> Option<compile::Output> {
    let empty = std::env::temp_dir().join(format!("skillpack-{tool}-empty-{}", std::process::id()));
    if let Err(error) = std::fs::create_dir_all(&empty) {
        eprintln!("{tool}: {}: {error}", empty.display());
        return None;
    }
    let config = Config::for_dirs(
        skills.unwrap_or_else(|| empty.clone()),
        docs.unwrap_or(empty),
    );
    match compile::compile(&config) {
        Ok(output) => Some(output),
        Err(report) => {
            let _ = skillpack_build::print_report(&report, &mut std::io::stderr());
            None
        }
    }
}
