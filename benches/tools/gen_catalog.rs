//! `gen-catalog --documents N --seed S OUT`: write a deterministic synthetic catalog
//! (`OUT/skills`, `OUT/docs`) for benchmarks. See `benches/synth/mod.rs` for what it holds.
//! Bench tooling, built only with `--features bench`.

#[path = "../synth/mod.rs"]
mod synth;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;

#[derive(Parser)]
#[command(about = "Write a deterministic synthetic skills/ + docs/ catalog for benchmarks.")]
struct Args {
    /// Number of markdown documents (SKILL.md files, references and docs together).
    #[arg(long, default_value_t = 1000)]
    documents: usize,
    /// Seed: the same seed and size give the same bytes.
    #[arg(long, default_value_t = 7)]
    seed: u64,
    /// Output folder; its `skills/` and `docs/` are replaced.
    out: PathBuf,
}

fn main() -> ExitCode {
    let args = Args::parse();
    match synth::generate(&args.out, args.documents, args.seed) {
        Ok(summary) => {
            eprintln!(
                "gen-catalog: {} documents ({} skills, {} references, {} docs) and {} other skill files ({} binary), {} bytes, in {}",
                summary.documents(),
                summary.skills,
                summary.references,
                summary.docs,
                summary.other_files,
                summary.binary_files,
                summary.bytes,
                args.out.display()
            );
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("gen-catalog: cannot write {}: {error}", args.out.display());
            ExitCode::FAILURE
        }
    }
}
