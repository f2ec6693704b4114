//! `gen-history --releases N CONTENT OUT`: the manifest of the N-th of N releases that led
//! up to a catalog, for benchmarking a build with a long history (docs/benchmarks.md).
//!
//! CONTENT holds `skills/` and `docs/` (e.g. from gen-catalog). A copy of it under
//! `OUT.d/` is compiled N times in-process, each release against the previous one's
//! manifest, as a release pipeline would: between releases one doc gains a paragraph, one
//! release-notes doc is added, and every fifth release removes the oldest notes doc. OUT is
//! the last manifest; building CONTENT itself with `SKILLPACK_PREVIOUS=OUT` gives a release
//! with N earlier releases (up to the bound) and a change set against each.
//! Bench tooling, built only with `--features bench`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::Parser;
use skillpack_server::catalog::Catalog;
use skillpack_server::cmd;
use skillpack_server::compile::{self, Config};

#[derive(Parser)]
#[command(about = "Write the manifest of the last of N synthetic releases of a catalog.")]
struct Args {
    /// Number of releases before the one to benchmark.
    #[arg(long, default_value_t = 50)]
    releases: u32,
    /// Folder with `skills/` and `docs/`: the content of the release to benchmark.
    content: PathBuf,
    /// Where to write the last manifest.
    out: PathBuf,
}

/// 2026-01-01T00:00:00Z; releases are a week apart.
const FIRST_RELEASE: u64 = 1_767_225_600;
const WEEK: u64 = 7 * 86_400;

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("gen-history: {error}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &Args) -> Result<(), String> {
    let work = PathBuf::from(format!("{}.d", args.out.display()));
    let _ = std::fs::remove_dir_all(&work);
    copy_tree(&args.content, &work).map_err(|e| format!("copy {}: {e}", args.content.display()))?;
    let docs = work.join("docs");
    let edited: Vec<PathBuf> = walkdir::WalkDir::new(&docs)
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.path().extension().is_some_and(|x| x == "md"))
        .map(|e| e.into_path())
        .collect();
    if edited.is_empty() {
        return Err(format!("{} has no markdown docs to edit", docs.display()));
    }
    let start = Instant::now();
    let mut previous: Option<PathBuf> = None;
    for release in 1..=args.releases {
        if release > 1 {
            let doc = &edited[release as usize % edited.len()];
            let mut text = std::fs::read_to_string(doc).map_err(|e| e.to_string())?;
            text.push_str(&format!("\nRevised in release {release}.\n"));
            std::fs::write(doc, text).map_err(|e| e.to_string())?;
            let notes = docs.join(format!("release-notes/r{release:03}.md"));
            std::fs::create_dir_all(notes.parent().unwrap()).map_err(|e| e.to_string())?;
            std::fs::write(&notes, format!("# Release {release}\n\nWhat changed.\n"))
                .map_err(|e| e.to_string())?;
            if release % 5 == 0 {
                let oldest = docs.join(format!("release-notes/r{:03}.md", release - 3));
                std::fs::remove_file(oldest).map_err(|e| e.to_string())?;
            }
        }
        let mut config = Config::for_dirs(work.join("skills"), &docs);
        config.previous = previous.clone();
        config.release = format!("r{release}");
        config.epoch = Some(FIRST_RELEASE + u64::from(release - 1) * WEEK);
        let output = compile::compile(&config).map_err(|report| {
            let lines: Vec<String> = report.diagnostics.iter().map(|d| d.to_string()).collect();
            format!("release {release} does not compile:\n{}", lines.join("\n"))
        })?;
        let catalog = Catalog::from_compiled(output).map_err(|e| format!("{e:?}"))?;
        let manifest =
            serde_json::to_vec(&cmd::changes::manifest(&catalog).map_err(|e| e.to_string())?)
                .map_err(|e| e.to_string())?;
        let path = work.join(format!("manifest-r{release:03}.json"));
        std::fs::write(&path, manifest).map_err(|e| e.to_string())?;
        previous = Some(path);
    }
    let last = previous.expect("at least one release");
    std::fs::copy(&last, &args.out).map_err(|e| format!("write {}: {e}", args.out.display()))?;
    eprintln!(
        "gen-history: {} releases of {} in {:.1} s; last manifest {} ({} bytes)",
        args.releases,
        args.content.display(),
        start.elapsed().as_secs_f64(),
        args.out.display(),
        std::fs::metadata(&args.out).map(|m| m.len()).unwrap_or(0),
    );
    Ok(())
}

fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry?;
        let target = to.join(entry.path().strip_prefix(from).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target)?;
        } else {
            std::fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}
