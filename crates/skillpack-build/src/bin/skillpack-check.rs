//! `skillpack-check`: the compiler's diagnostics for content folders, in a second and
//! before any rustc work. Same settings and same lines as the build (`SKILLPACK_*`
//! variables apply; flags override them); writes nothing.

use std::path::PathBuf;
use std::process::ExitCode;

use skillpack_build::Bake;

const USAGE: &str = "\
Usage: skillpack-check [--skills DIR] [--docs DIR] [--strict] [--name NAME] [--chunk-bytes N] [--root DIR]

Compile the skills and docs folders as `cargo build` would and print every problem as
`path[:line]: severity: what — how to fix`. Exits 1 if the content does not compile (with
--strict or SKILLPACK_STRICT=1, warnings count), 2 on a usage error. Writes nothing.

  --skills DIR       skills folder (default: SKILLPACK_SKILLS_DIR, else skills/ if present)
  --docs DIR         docs folder (default: SKILLPACK_DOCS_DIR, else docs/ if present)
  --strict           warnings are errors, as with SKILLPACK_STRICT=1
  --name NAME        server name to validate, as SKILLPACK_NAME
  --chunk-bytes N    largest chunk, as SKILLPACK_CHUNK_BYTES
  --root DIR         folder relative paths start from (default: the current folder;
                     a build uses the package root)
";

fn main() -> ExitCode {
    match parse() {
        Ok(Some((bake, root))) => check(&bake, &root),
        Ok(None) => {
            print!("{USAGE}");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("skillpack-check: {error}\n\n{USAGE}");
            ExitCode::from(2)
        }
    }
}

/// Settings as (`SKILLPACK_*` variable, value), in the order given.
type Flags = Vec<(&'static str, String)>;

/// Flags become settings given "in code", which the environment would override in a build;
/// here the command line is the more explicit of the two, so flags are applied as the
/// environment's values instead (see `check`).
fn parse() -> Result<Option<(Flags, PathBuf)>, lexopt::Error> {
    use lexopt::prelude::*;
    let mut flags = Vec::new();
    let mut root = PathBuf::from(".");
    let mut parser = lexopt::Parser::from_env();
    while let Some(arg) = parser.next()? {
        match arg {
            Long("skills") => flags.push(("SKILLPACK_SKILLS_DIR", parser.value()?.string()?)),
            Long("docs") => flags.push(("SKILLPACK_DOCS_DIR", parser.value()?.string()?)),
            Long("name") => flags.push(("SKILLPACK_NAME", parser.value()?.string()?)),
            Long("chunk-bytes") => flags.push(("SKILLPACK_CHUNK_BYTES", parser.value()?.string()?)),
            Long("strict") => flags.push(("SKILLPACK_STRICT", "1".to_owned())),
            Long("root") => root = parser.value()?.into(),
            Short('h') | Long("help") => return Ok(None),
            _ => return Err(arg.unexpected()),
        }
    }
    Ok(Some((flags, root)))
}

fn check(flags: &[(&'static str, String)], root: &std::path::Path) -> ExitCode {
    let env = |key: &str| {
        flags
            .iter()
            .rev()
            .find(|(flag, _)| *flag == key)
            .map(|(_, value)| value.clone())
            .or_else(|| std::env::var(key).ok())
    };
    let version = env!("CARGO_PKG_VERSION");
    let report = Bake::new()
        .config(root, version, env)
        .and_then(|config| skillpack_build::check(&config).map(|report| (config, report)));
    let mut stdout = std::io::stdout().lock();
    match report {
        Ok((config, warnings)) => {
            let _ = skillpack_build::print_report(&warnings, &mut stdout);
            eprintln!(
                "skillpack-check: {} and {} compile ({} warning(s))",
                config.skills.label,
                config.docs.label,
                warnings.warnings().count()
            );
            ExitCode::SUCCESS
        }
        Err(report) => {
            let _ = skillpack_build::print_report(&report, &mut stdout);
            ExitCode::FAILURE
        }
    }
}
