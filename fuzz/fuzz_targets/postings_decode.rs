//! The search index's list decoders on arbitrary bytes (a damaged archive): a document
//! summary, a passage list and a document list never panic, a summary entry's impacts lie
//! inside the bytes (one per passage it says the run holds, or none when the bytes end),
//! and decoding a truncated list gives a prefix of what the whole list gives.
#![no_main]

use libfuzzer_sys::fuzz_target;
use skillpack_server::postings::{DocumentCursor, PassageCursor, Summary, SummaryCursor};

fn summaries(data: &[u8]) -> Vec<(Summary, Vec<u8>)> {
    let mut cursor = SummaryCursor::new(data);
    let mut out = Vec::new();
    while let Some(summary) = cursor.next() {
        let impacts = cursor.impacts(&summary);
        assert!(
            impacts.is_empty() || impacts.len() == summary.any.count_ones() as usize,
            "{summary:?}"
        );
        out.push((summary, impacts.to_vec()));
        if out.len() > data.len() {
            panic!("more entries than bytes");
        }
    }
    out
}

fuzz_target!(|data: &[u8]| {
    let whole = summaries(data);
    let cut = data.len() / 2;
    let part = summaries(&data[..cut]);
    assert!(part.len() <= whole.len());
    for ((a, _), (b, _)) in part.iter().zip(&whole) {
        assert_eq!(a.document, b.document);
        assert_eq!(a.own, b.own);
    }
    for entry in PassageCursor::new(data).take(data.len() + 1) {
        let _ = entry.occurrences.bytes.len();
    }
    assert!(DocumentCursor::new(data).count() <= data.len());
});
