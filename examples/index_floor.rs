//! How far the search index is from the least it could take: for each part of the
//! postings, the bytes it takes and the information-theoretic floor of what it encodes, and
//! what the whole archive would take with every such part at its floor, with and without
//! word positions (`docs/design/compact-archive.md`).
//!
//! ```sh
//! cargo run --release --example index_floor -- --skills DIR --docs DIR
//! ```
//!
//! The floors are counting bounds: no code, however clever, stores a term's passages in
//! fewer bits than log2 C(passages, df) on average over such sets, nor the positions of `tf`
//! occurrences among a passage's `L` tokens in fewer than log2 C(L, tf); the frequencies
//! and flags an entry carries are charged their order-0 entropy over the catalog. Parts the
//! floor does not model (the dictionary, content, records) are counted as they are.

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::ExitCode;

use skillpack_server::catalog::breakdown;
use skillpack_server::model::{P_BODY, P_CONTEXT, P_HEADING};
use skillpack_server::postings::{DocumentCursor, PassageCursor};

mod common;

fn main() -> ExitCode {
    let mut skills: Option<PathBuf> = None;
    let mut docs: Option<PathBuf> = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--skills" => skills = args.next().map(PathBuf::from),
            "--docs" => docs = args.next().map(PathBuf::from),
            other => {
                eprintln!(
                    "index_floor: unknown argument {other:?}; usage: --skills DIR --docs DIR"
                );
                return ExitCode::from(2);
            }
        }
    }
    let Some(catalog) = common::compile_catalog("index_floor", skills, docs) else {
        return ExitCode::FAILURE;
    };
    let archive = catalog.archive();
    let served = archive.totals.content_bytes.to_native() as f64;
    let baked = breakdown::of(&catalog).total() as f64;
    let index = &archive.search;
    let passages = index.passages.reader();
    let n_passages = index.passages.len() as u64;
    let n_documents = index.documents.len() as u64;
    let postings = index.postings.as_slice();

    let mut parts = Parts::default();
    // What non-simple entries carry besides positions: body, heading and context
    // frequencies and whether offsets follow, charged their order-0 entropy.
    let mut headers: HashMap<([u32; 3], bool), u64> = HashMap::new();
    let (mut entries, mut simple) = (0u64, 0u64);
    let mut document_tf: HashMap<u32, u64> = HashMap::new();
    let mut rice_bits = 0u64;
    for (_, entry) in index.terms() {
        let list = &postings[entry.passage_postings.clone()];
        parts.passage_ids_floor += log2_choose(n_passages, u64::from(entry.passage_df));
        // A Rice code's parameter for gaps of mean n/df, which a reader derives from the
        // term's df: no bits stored for it.
        let mean_gap = n_passages as f64 / f64::from(entry.passage_df.max(1));
        let rice_k = (mean_gap * std::f64::consts::LN_2).log2().floor().max(0.0) as u64;
        let mut last = 0u32;
        let mut walked = 0usize;
        for e in PassageCursor::new(list) {
            entries += 1;
            let is_simple = e.tf[P_BODY] == 1
                && e.tf[P_HEADING] == 0
                && e.tf[P_CONTEXT] == 0
                && !e.occurrences.offsets;
            simple += u64::from(is_simple);
            let gap = u64::from(e.passage - last);
            let id = varint_len((gap << 1) | u64::from(is_simple));
            let block = e.occurrences.bytes.len();
            // The entry's bytes: its id, its header, then its occurrence block, which ends it.
            let end = e.occurrences.bytes.as_ptr() as usize + block - list.as_ptr() as usize;
            parts.passage_ids += id as u64;
            // Quotient in unary, remainder in `rice_k` bits, the simple flag in one.
            rice_bits += (gap >> rice_k) + 1 + rice_k + 1;
            parts.headers += (end - walked - id - block) as u64;
            parts.positions += block as u64;
            walked = end;
            last = e.passage;
            if !is_simple {
                *headers
                    .entry((
                        [e.tf[P_BODY], e.tf[P_HEADING], e.tf[P_CONTEXT]],
                        e.occurrences.offsets,
                    ))
                    .or_default() += 1;
            }
            let tokens = passages.lengths(passages.row(e.passage))[P_BODY];
            let tf = e.tf[P_BODY];
            // Offsets, where an entry stores them, cost what they cost.
            parts.positions_floor += if e.occurrences.offsets {
                block as f64 * 8.0
            } else {
                log2_choose(u64::from(tokens.max(tf)), u64::from(tf))
            };
        }
        let documents = &postings[entry.document_postings.clone()];
        parts.document_postings += documents.len() as u64;
        let mut listed = 0u64;
        for e in DocumentCursor::new(documents) {
            listed += 1;
            for tf in e.tf {
                *document_tf.entry(tf).or_default() += 1;
            }
        }
        parts.document_postings_floor += log2_choose(n_documents, listed);
    }
    parts.passage_ids_floor += entropy_bits([simple, entries - simple].into_iter());
    parts.headers_floor = entropy_bits(headers.values().copied());
    parts.document_postings_floor += entropy_bits(document_tf.values().copied());
    let token_tables = index.token_starts.len() as f64;

    let rows = [
        (
            "passage ids and simple flags",
            parts.passage_ids,
            parts.passage_ids_floor,
        ),
        (
            "entry frequencies and flags",
            parts.headers,
            parts.headers_floor,
        ),
        ("positions", parts.positions, parts.positions_floor),
        (
            "document postings",
            parts.document_postings,
            parts.document_postings_floor,
        ),
    ];
    println!(
        "{n_passages} passages, {n_documents} documents, {entries} passage entries ({simple} simple)"
    );
    println!(
        "{:<32} {:>12} {:>12} {:>7}",
        "part", "bytes", "floor", "ratio"
    );
    let (mut now, mut floor) = (0.0, 0.0);
    for (name, bytes, bits) in rows {
        let least = bits / 8.0;
        println!(
            "{name:<32} {bytes:>12} {least:>12.0} {:>6.2}x",
            bytes as f64 / least.max(1.0)
        );
        now += bytes as f64;
        floor += least;
    }
    println!(
        "passage ids and simple flags as Rice codes (a practical code): {} bytes",
        rice_bits.div_ceil(8)
    );
    let at_floor = baked - now + floor;
    let positions_floor = parts.positions_floor / 8.0;
    let without_positions = at_floor - positions_floor - token_tables;
    println!(
        "baked today: {baked:.0} bytes, {:.3}x the {served:.0} served",
        baked / served
    );
    println!(
        "every part above at its floor: {at_floor:.0} bytes, {:.3}x",
        at_floor / served
    );
    println!(
        "and no positions or token tables: {without_positions:.0} bytes, {:.3}x",
        without_positions / served
    );
    ExitCode::SUCCESS
}

/// Bytes now and floors in bits, per part of the postings.
#[derive(Default)]
struct Parts {
    passage_ids: u64,
    passage_ids_floor: f64,
    headers: u64,
    headers_floor: f64,
    positions: u64,
    positions_floor: f64,
    document_postings: u64,
    document_postings_floor: f64,
}

/// log2 of the number of ways to choose `k` of `n`.
fn log2_choose(n: u64, k: u64) -> f64 {
    let k = k.min(n.saturating_sub(k));
    (0..k)
        .map(|i| ((n - i) as f64 / (k - i) as f64).log2())
        .sum()
}

/// Bits to code each of `counts`' events at its order-0 entropy, in all.
fn entropy_bits(counts: impl Iterator<Item = u64> + Clone) -> f64 {
    let total: u64 = counts.clone().sum();
    counts
        .filter(|&c| c > 0)
        .map(|c| c as f64 * (total as f64 / c as f64).log2())
        .sum()
}

fn varint_len(value: u64) -> usize {
    (64 - value.leading_zeros() as usize).max(1).div_ceil(7)
}
