//! `skillpack-check`: the compiler's diagnostics for content folders, in a second and
//! before any rustc work. Same settings and same lines as the build (`SKILLPACK_*`
//! variables apply; flags override them); writes nothing.

use std::path::PathBuf;
use std::process::ExitCode;

use skillpack_build::Bake;

const USAGE: &str = "\
Usage: skillpack-check [--skills DIR] [--docs DIR] [--strict] [--name NAME] [--chunk-bytes N]
                       [--flavor NAME] [--exclude GLOB]... [--locale LOCALE] [--site] [--dump DIR]
                       [--root DIR]

Compile the skills and docs folders as `cargo build` would and print every problem as
`path[:line]: severity: what — how to fix`. Exits 1 if the content does not compile (with
--strict or SKILLPACK_STRICT=1, warnings count), 2 on a usage error. Writes nothing.

  --skills DIR       skills folder (default: SKILLPACK_SKILLS_DIR, else skills/ if present)
  --docs DIR         docs folder (default: SKILLPACK_DOCS_DIR, else docs/ if present)
  --strict           warnings are errors, as with SKILLPACK_STRICT=1
  --name NAME        server name to validate, as SKILLPACK_NAME
  --chunk-bytes N    largest chunk, as SKILLPACK_CHUNK_BYTES
  --flavor NAME      the docs tree's site generator, as SKILLPACK_DOCS_FLAVOR (plain, mdbook,
                     mkdocs, docusaurus, starlight, hugo, vitepress, jekyll, myst); unset,
                     it is detected from the files beside the docs folder
  --exclude GLOB     docs files that are not pages, as SKILLPACK_DOCS_EXCLUDE (repeatable)
  --locale LOCALE    which locale of a tree with locales is served, as SKILLPACK_DOCS_LOCALE
  --site             also print how the docs tree was read: pages, files that are not pages
                     and why, warnings by kind, and every line of generator markup or
                     include directive left in served text (outside code)
  --dump DIR         write every doc's served text to DIR/<path> (what agents read), into a
                     folder that is new or empty
  --root DIR         folder relative paths start from (default: the current folder;
                     a build uses the package root)
";

fn main() -> ExitCode {
    match parse() {
        Ok(Some((bake, root, show))) => check(&bake, &root, show),
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
/// What to show beyond the diagnostics.
#[derive(Default)]
struct Show {
    site: bool,
    dump: Option<PathBuf>,
}

fn parse() -> Result<Option<(Flags, PathBuf, Show)>, lexopt::Error> {
    use lexopt::prelude::*;
    let mut flags = Vec::new();
    let mut excludes: Vec<String> = Vec::new();
    let mut show = Show::default();
    let mut root = PathBuf::from(".");
    let mut parser = lexopt::Parser::from_env();
    while let Some(arg) = parser.next()? {
        match arg {
            Long("skills") => flags.push(("SKILLPACK_SKILLS_DIR", parser.value()?.string()?)),
            Long("docs") => flags.push(("SKILLPACK_DOCS_DIR", parser.value()?.string()?)),
            Long("name") => flags.push(("SKILLPACK_NAME", parser.value()?.string()?)),
            Long("chunk-bytes") => flags.push(("SKILLPACK_CHUNK_BYTES", parser.value()?.string()?)),
            Long("strict") => flags.push(("SKILLPACK_STRICT", "1".to_owned())),
            Long("flavor") => flags.push(("SKILLPACK_DOCS_FLAVOR", parser.value()?.string()?)),
            Long("locale") => flags.push(("SKILLPACK_DOCS_LOCALE", parser.value()?.string()?)),
            Long("exclude") => excludes.push(parser.value()?.string()?),
            Long("site") => show.site = true,
            Long("dump") => show.dump = Some(parser.value()?.into()),
            Long("root") => root = parser.value()?.into(),
            Short('h') | Long("help") => return Ok(None),
            _ => return Err(arg.unexpected()),
        }
    }
    if !excludes.is_empty() {
        flags.push(("SKILLPACK_DOCS_EXCLUDE", excludes.join("\n")));
    }
    Ok(Some((flags, root, show)))
}

fn check(flags: &[(&'static str, String)], root: &std::path::Path, show: Show) -> ExitCode {
    let env = |key: &str| {
        flags
            .iter()
            .rev()
            .find(|(flag, _)| *flag == key)
            .map(|(_, value)| value.clone())
            .or_else(|| std::env::var(key).ok())
    };
    let version = env!("CARGO_PKG_VERSION");
    let report = Bake::new().config(root, version, env).and_then(|config| {
        skillpack_build::compile::compile(&config).map(|output| (config, output))
    });
    let mut stdout = std::io::stdout().lock();
    match report {
        Ok((config, output)) => {
            let warnings = &output.report;
            let _ = skillpack_build::print_report(warnings, &mut stdout);
            if show.site {
                let _ = print_site(&output, &mut stdout);
            }
            if let Some(dir) = &show.dump
                && let Err(error) = dump(&output, dir)
            {
                eprintln!(
                    "skillpack-check: cannot write the served docs to {}: {error}",
                    dir.display()
                );
                return ExitCode::FAILURE;
            }
            eprintln!("skillpack-check: docs: {}", output.site.summary());
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

/// `--site`: how the docs tree was read, and what generator markup is left.
fn print_site(
    output: &skillpack_build::compile::Output,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    use std::collections::BTreeMap;

    use skillpack_build::model::DocKind;
    use skillpack_build::site::markup;

    let site = &output.site;
    writeln!(out, "\nsite: {}", site.summary())?;
    for (rel, skip) in &site.skipped {
        if skip.kind() != "site-file" {
            writeln!(out, "  not a page: {rel}: {skip}")?;
        }
    }
    let mut kinds: BTreeMap<&str, usize> = BTreeMap::new();
    for warning in output.report.warnings() {
        *kinds.entry(warning_kind(&warning.message)).or_default() += 1;
    }
    let kinds: Vec<String> = kinds.iter().map(|(k, n)| format!("{n} {k}")).collect();
    writeln!(
        out,
        "warnings: {}",
        if kinds.is_empty() {
            "none".into()
        } else {
            kinds.join(", ")
        }
    )?;
    let (mut total, mut markup_lines, mut includes) = (0, 0, 0);
    let mut listed = Vec::new();
    for document in &output.catalog.documents {
        if document.kind != DocKind::Doc {
            continue;
        }
        let bytes = output.read(document.content)?;
        let text = String::from_utf8_lossy(&bytes);
        let (lines, left) = markup::leftovers(&text);
        total += lines;
        for leftover in left {
            if leftover.include {
                includes += 1;
            } else {
                markup_lines += 1;
            }
            listed.push(format!(
                "  {}:{}: {}",
                document.path, leftover.line, leftover.text
            ));
        }
    }
    let share = if total == 0 {
        0.0
    } else {
        100.0 * markup_lines as f64 / total as f64
    };
    writeln!(
        out,
        "served: {} pages, {total} lines; generator markup left on {markup_lines} lines ({share:.2}%), include directives left: {includes}",
        site.pages.len()
    )?;
    for line in listed {
        writeln!(out, "{line}")?;
    }
    Ok(())
}

/// A warning's kind, for counts.
fn warning_kind(message: &str) -> &'static str {
    if message.starts_with("link `") {
        if message.contains("names the anchor") {
            "link-anchor"
        } else {
            "link"
        }
    } else if message.contains("frontmatter") {
        "frontmatter"
    } else if message.contains("include") {
        "include"
    } else if message.contains("not a markdown file") {
        "not-markdown"
    } else {
        "other"
    }
}

/// `--dump DIR`: every doc's served text at `DIR/<path>`.
fn dump(output: &skillpack_build::compile::Output, dir: &std::path::Path) -> std::io::Result<()> {
    if dir.exists() && std::fs::read_dir(dir)?.next().is_some() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::AlreadyExists,
            "the folder is not empty; name a new or empty folder",
        ));
    }
    for document in &output.catalog.documents {
        if document.kind != skillpack_build::model::DocKind::Doc {
            continue;
        }
        let path = dir.join(&document.path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(path, output.read(document.content)?)?;
    }
    eprintln!(
        "skillpack-check: wrote the served docs to {}",
        dir.display()
    );
    Ok(())
}
