//! The build-script entry point: settings, cargo's rerun lines, diagnostics on the
//! terminal, the compiled catalog in `OUT_DIR`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::compile::{self, Config, Report};

/// Compile `skills` and `docs` (relative to the package root, or absolute) into `OUT_DIR`
/// for `skillpack_server::main!()`. The one call a docs repository's `build.rs` makes; on
/// broken content it prints every problem and ends the build script with a failure.
///
/// `SKILLPACK_*` variables still apply and take precedence; [`Bake`] sets the other
/// settings in code.
pub fn bake(skills: impl AsRef<Path>, docs: impl AsRef<Path>) {
    Bake::new().skills(skills).docs(docs).run()
}

/// Build settings given in code. Each is the default for its `SKILLPACK_*` variable: a
/// variable set in the environment wins, so a CI job or a one-off build can redirect a
/// build without editing `build.rs`. Settings not given here fall back to the documented
/// defaults (`skills/` and `docs/`, optional when absent).
#[derive(Debug, Clone, Default)]
pub struct Bake {
    settings: BTreeMap<String, String>,
}

impl Bake {
    pub fn new() -> Bake {
        Bake::default()
    }

    /// The skills folder (`SKILLPACK_SKILLS_DIR`). Named explicitly, it must exist.
    pub fn skills(self, dir: impl AsRef<Path>) -> Bake {
        self.set("SKILLPACK_SKILLS_DIR", dir.as_ref().display().to_string())
    }

    /// The docs folder (`SKILLPACK_DOCS_DIR`). Named explicitly, it must exist.
    pub fn docs(self, dir: impl AsRef<Path>) -> Bake {
        self.set("SKILLPACK_DOCS_DIR", dir.as_ref().display().to_string())
    }

    /// The MCP server name (`SKILLPACK_NAME`).
    pub fn name(self, name: impl Into<String>) -> Bake {
        self.set("SKILLPACK_NAME", name)
    }

    /// Warnings fail the build (`SKILLPACK_STRICT`).
    pub fn strict(self, strict: bool) -> Bake {
        self.set("SKILLPACK_STRICT", if strict { "1" } else { "0" })
    }

    /// Largest chunk in bytes (`SKILLPACK_CHUNK_BYTES`).
    pub fn chunk_bytes(self, bytes: usize) -> Bake {
        self.set("SKILLPACK_CHUNK_BYTES", bytes.to_string())
    }

    /// The docs tree's site generator by name (`SKILLPACK_DOCS_FLAVOR`: `mkdocs`, `hugo`,
    /// …, or `plain` to serve every `.md` file as authored); unset, it is detected.
    pub fn docs_flavor(self, flavor: impl Into<String>) -> Bake {
        self.set("SKILLPACK_DOCS_FLAVOR", flavor)
    }

    /// Any setting by its variable name (see `compile::config::ENV_VARS`), for settings
    /// without a method of their own. An unknown name is reported when the build runs.
    pub fn set(mut self, variable: impl Into<String>, value: impl Into<String>) -> Bake {
        self.settings.insert(variable.into(), value.into());
        self
    }

    /// The settings in force: the environment over the code, relative paths resolved
    /// against `package_root`.
    pub fn config(
        &self,
        package_root: &Path,
        package_version: &str,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Config, Report> {
        let unknown: Vec<&String> = self
            .settings
            .keys()
            .filter(|key| !compile::config::ENV_VARS.contains(&key.as_str()))
            .collect();
        if let Some(key) = unknown.first() {
            let mut report = Report::new(false);
            report.error(
                "build.rs",
                None,
                format!("`{key}` is not a skillpack build setting"),
                format!(
                    "use one of {} (or the Bake methods of the same names)",
                    compile::config::ENV_VARS.join(", ")
                ),
            );
            return Err(report);
        }
        Config::from_env(package_root, package_version, |key| {
            env(key)
                .filter(|value| !value.trim().is_empty())
                .or_else(|| self.settings.get(key).cloned())
        })
    }

    /// Run inside a build script: compile, write the catalog into `OUT_DIR`, and end the
    /// process with a failure (no panic, no backtrace) if the content does not compile.
    pub fn run(self) {
        if let Err(code) = self.try_run() {
            std::process::exit(code);
        }
    }

    fn try_run(&self) -> Result<(), i32> {
        let package_root = PathBuf::from(cargo_var("CARGO_MANIFEST_DIR").unwrap_or(".".into()));
        let out_dir = PathBuf::from(cargo_var("OUT_DIR").unwrap_or(".".into()));
        let package_version = cargo_var("CARGO_PKG_VERSION").unwrap_or_default();

        for var in compile::config::ENV_VARS {
            println!("cargo::rerun-if-env-changed={var}");
        }
        println!("cargo::rerun-if-changed=build.rs");
        let config = self
            .config(&package_root, &package_version, |key| {
                std::env::var(key).ok()
            })
            .map_err(|report| fail(&report))?;
        // Cargo scans a folder recursively for changes, so edits anywhere in the content
        // rebuild. A folder that does not exist yet is watched too: creating it rebuilds.
        for root in [&config.skills, &config.docs] {
            println!("cargo::rerun-if-changed={}", root.dir.display());
        }
        if let Some(previous) = &config.previous {
            println!("cargo::rerun-if-changed={}", previous.display());
        }

        let started = Instant::now();
        let output = compile::compile(&config).map_err(|report| fail(&report))?;
        // Includes read from beside the docs root (a book's listings, a repository's
        // changelog) and the generator's config shape what is served: edits rebuild.
        for path in &output.site.read_outside {
            println!("cargo::rerun-if-changed={}", path.display());
        }
        print_warnings(&output.report, &out_dir);
        if let Err(error) = compile::emit::write(&out_dir, &output) {
            eprintln!(
                "error: cannot write the compiled catalog to {}: {error}",
                out_dir.display()
            );
            return Err(1);
        }
        let t = &output.catalog.totals;
        eprintln!("skillpack: docs: {}", output.site.summary());
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
        Ok(())
    }
}

/// Compile the content as a build would and return every diagnostic, writing nothing: the
/// `skillpack-check` binary, and tests. `Ok` holds the warnings of a catalog that compiles.
pub fn check(config: &Config) -> Result<Report, Report> {
    compile::compile(config).map(|output| output.report)
}

/// Write a report the way a failing build prints it: a header when there are errors, then
/// one line per problem, `path[:line]: severity: what — how to fix`.
pub fn print_report(report: &Report, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    let errors = report.errors().count();
    if errors > 0 {
        writeln!(
            out,
            "\nskillpack: the content does not compile ({errors} error(s)):\n"
        )?;
    }
    for diagnostic in &report.diagnostics {
        writeln!(out, "{diagnostic}")?;
    }
    if errors > 0 {
        writeln!(out)?;
    }
    Ok(())
}

fn cargo_var(key: &str) -> Option<String> {
    std::env::var(key).ok()
}

fn fail(report: &Report) -> i32 {
    // Nothing useful is left to do if stderr is gone.
    let _ = print_report(report, &mut std::io::stderr().lock());
    1
}

/// Cargo shows every `cargo::warning` line; a large imported corpus can have hundreds of
/// broken links. Show the first ones and keep the full list in a file.
fn print_warnings(report: &Report, out_dir: &Path) {
    const SHOWN: usize = 25;
    let warnings: Vec<String> = report.warnings().map(|w| w.to_string()).collect();
    for warning in warnings.iter().take(SHOWN) {
        // `cargo::warning` takes one line.
        println!("cargo::warning={}", warning.replace('\n', " "));
    }
    if warnings.len() > SHOWN {
        let path = out_dir.join("warnings.txt");
        let saved = std::fs::write(&path, warnings.join("\n") + "\n").is_ok();
        println!(
            "cargo::warning=… and {} more warnings{} (SKILLPACK_STRICT=1 makes them errors; skillpack-check lists them all)",
            warnings.len() - SHOWN,
            if saved {
                format!(", all listed in {}", path.display())
            } else {
                String::new()
            }
        );
    }
}
