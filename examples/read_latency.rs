//! Chunk read latency in-process, with and without the frame cache: compiles the given
//! folders, then reads every chunk of every document through `catalog::Content` (what a
//! chunk read decodes and copies, without a transport) for `--rounds` rounds after a first
//! one, and prints p50, p90 and p99 (`docs/design/compact-archive.md`).
//! `--documents` reads each document's whole text once a round instead; `--tables` decodes
//! each document's tables (outline, chunk table, links) from its decoded frame once a
//! round, what a document's first read pays beside the frame itself. `--frames` decodes
//! every frame of the content store once a round, without the cache: the decoder alone,
//! and its throughput.
//!
//! ```sh
//! cargo run --release --example read_latency -- --skills DIR --docs DIR [--rounds 20] [--cache-mib N] [--documents | --tables | --frames]
//! ```
//! `--cache-mib 0` decodes on every read, as `serve --cache-mib 0` does.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use skillpack_server::catalog::set_cache_bytes;

mod common;

fn main() -> ExitCode {
    let mut skills: Option<PathBuf> = None;
    let mut docs: Option<PathBuf> = None;
    let mut rounds = 20usize;
    let mut whole = false;
    let mut tables_only = false;
    let mut frames_only = false;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--documents" {
            whole = true;
            continue;
        }
        if arg == "--tables" {
            tables_only = true;
            continue;
        }
        if arg == "--frames" {
            frames_only = true;
            continue;
        }
        let value = args.next();
        match (arg.as_str(), value) {
            ("--skills", Some(v)) => skills = Some(v.into()),
            ("--docs", Some(v)) => docs = Some(v.into()),
            ("--rounds", Some(v)) if v.parse::<usize>().is_ok_and(|n| n > 0) => {
                rounds = v.parse().unwrap_or(20)
            }
            ("--cache-mib", Some(v)) if v.parse::<u64>().is_ok() => {
                set_cache_bytes(v.parse::<u64>().unwrap_or(64) * 1024 * 1024)
            }
            _ => {
                eprintln!(
                    "read_latency: bad argument {arg:?}; usage: [--skills DIR] [--docs DIR] \
                     [--rounds N] [--cache-mib N] [--documents | --tables | --frames]"
                );
                return ExitCode::from(2);
            }
        }
    }
    if frames_only {
        // Set before the catalog is made (its validation reads every frame): a cache keeps
        // the bound it was made with. None, so that every read below decodes.
        set_cache_bytes(0);
    }
    let Some(catalog) = common::compile_catalog("read_latency", skills, docs) else {
        return ExitCode::FAILURE;
    };
    let archive = catalog.archive();
    let content = catalog.content();
    if tables_only {
        return time_tables(&catalog, rounds);
    }
    if frames_only {
        return time_frames(&catalog, rounds);
    }
    let mut nanos: Vec<u128> = Vec::new();
    // Round 0 fills the cache (when there is one) and is not timed.
    for round in 0..=rounds {
        for (d, document) in archive.documents.iter().enumerate() {
            let Ok(chunks) = catalog.tables(d as u32).map(|t| t.chunks.len()) else {
                eprintln!("read_latency: {}: damaged tables", document.uri);
                return ExitCode::FAILURE;
            };
            // `--documents`: one read of the whole text per document, else one per chunk.
            let reads = if whole { chunks.min(1) } else { chunks };
            for c in 0..reads {
                // What a chunk read does: its document's chunk table, then its bytes.
                let started = Instant::now();
                let text = catalog.tables(d as u32).and_then(|tables| {
                    let range = if whole {
                        0..tables.chunks.last().map_or(0, |chunk| chunk.end as usize)
                    } else {
                        let chunk = &tables.chunks[c];
                        chunk.start as usize..chunk.end as usize
                    };
                    content.text(&document.content, range)
                });
                let elapsed = started.elapsed().as_nanos();
                if let Err(error) = text {
                    eprintln!("read_latency: {}: {error}", document.uri);
                    return ExitCode::FAILURE;
                }
                if round > 0 {
                    nanos.push(elapsed);
                }
            }
        }
    }
    if nanos.is_empty() {
        eprintln!("read_latency: the catalog has no chunks");
        return ExitCode::FAILURE;
    }
    report(nanos, if whole { "document" } else { "chunk" })
}

/// `--tables`: `tables::decode` of every document's tables, from bytes decoded beforehand
/// (the frame is not timed, nor any cache), `rounds` times.
fn time_tables(catalog: &skillpack_server::catalog::Catalog, rounds: usize) -> ExitCode {
    let content = catalog.content();
    let mut encoded: Vec<(Vec<u8>, u32)> = Vec::new();
    for document in catalog.documents() {
        let stored = &document.content;
        let tables = document.tables.to_native() as usize;
        let count = stored.frame_count.to_native();
        let last = stored.first_frame.to_native() + count.saturating_sub(1);
        let bytes = match content.frame(last) {
            Ok(frame) if count > 0 && frame.len() >= tables => {
                frame[frame.len() - tables..].to_vec()
            }
            _ => {
                eprintln!("read_latency: {}: damaged frame", document.uri);
                return ExitCode::FAILURE;
            }
        };
        encoded.push((bytes, stored.len.to_native()));
    }
    let mut nanos: Vec<u128> = Vec::with_capacity(encoded.len() * rounds);
    for _ in 0..rounds {
        for (bytes, len) in &encoded {
            let started = Instant::now();
            let decoded = skillpack_server::tables::decode(bytes, *len);
            nanos.push(started.elapsed().as_nanos());
            if decoded.is_err() {
                eprintln!("read_latency: tables that do not decode");
                return ExitCode::FAILURE;
            }
        }
    }
    report(nanos, "tables")
}

/// `--frames`: every frame of the content store decoded once a round, `rounds` times,
/// without the cache (frames stored as they are cost a borrow). Prints the decoded bytes
/// per second too.
fn time_frames(catalog: &skillpack_server::catalog::Catalog, rounds: usize) -> ExitCode {
    let content = catalog.content();
    let mut nanos: Vec<u128> = Vec::with_capacity(content.frame_count() * rounds);
    let mut bytes = 0usize;
    for _ in 0..rounds {
        for f in 0..content.frame_count() as u32 {
            let started = Instant::now();
            let frame = content.frame(f);
            nanos.push(started.elapsed().as_nanos());
            match frame {
                Ok(frame) => bytes += frame.len(),
                Err(error) => {
                    eprintln!("read_latency: {error}");
                    return ExitCode::FAILURE;
                }
            }
        }
    }
    let total: u128 = nanos.iter().sum();
    if total > 0 {
        println!(
            "{bytes} bytes decoded at {:.0} MB/s, {:.2} µs per frame on average",
            bytes as f64 * 1e3 / total as f64,
            total as f64 / 1e3 / nanos.len().max(1) as f64
        );
    }
    report(nanos, "frame")
}

fn report(mut nanos: Vec<u128>, what: &str) -> ExitCode {
    if nanos.is_empty() {
        eprintln!("read_latency: nothing to read");
        return ExitCode::FAILURE;
    }
    nanos.sort_unstable();
    let at = |q: usize| nanos[(nanos.len() * q / 100).min(nanos.len() - 1)] as f64 / 1000.0;
    println!(
        "{} {what} reads: p50 {:.2} µs, p90 {:.2} µs, p99 {:.2} µs",
        nanos.len(),
        at(50),
        at(90),
        at(99)
    );
    ExitCode::SUCCESS
}
