//! The search index's list decoders on arbitrary bytes (a damaged archive): a document
//! summary, a passage list and a document list never panic, a summary entry's impacts lie
//! inside the bytes (one per passage it says the run holds, or none when the bytes end),
//! so does a multi-word passage mask, a summary that validates has increasing documents,
//! every entry readable and every multi-word mask within its bytes, and
//! decoding a truncated list gives a prefix of what the whole list gives.
#![no_main]

use libfuzzer_sys::fuzz_target;
use skillpack_server::postings::{DocumentCursor, PassageCursor, RECORD_WIDE, Summaries};

fn summaries(data: &[u8]) {
    let Some(summaries) = Summaries::new(data) else {
        return;
    };
    assert!(summaries.len() * 16 < data.len());
    let valid = summaries.validate(data.len()).is_ok();
    let mut last = None;
    for i in 0..summaries.len() {
        let record = summaries.record(i).expect("a record within the count");
        let entry = summaries.summary(i);
        if valid {
            assert!(last.is_none_or(|l| l < record.document));
        }
        last = Some(record.document);
        // Seeking stays within the records, whatever their order.
        let seek = summaries.seek(i, record.document);
        assert!((i..=summaries.len()).contains(&seek));
        if valid {
            assert_eq!(
                seek, i,
                "a valid summary's record is where its document is sought"
            );
        }
        let wide = summaries.wide(&record);
        if let Some(words) = wide {
            assert_eq!(words.len() as u64, record.own >> 32);
            assert!(words.len() * 8 <= data.len());
        }
        if valid && record.cold & RECORD_WIDE != 0 {
            assert!(wide.is_some(), "{record:?}");
        }
        if let Some(summary) = entry {
            assert_eq!(summary.document, record.document);
            let impacts = summaries.impacts(&summary);
            assert!(
                impacts.is_empty() || impacts.len() == summary.any.count_ones() as usize,
                "{summary:?}"
            );
        }
    }
    assert_eq!(summaries.record(summaries.len()), None);
}

fuzz_target!(|data: &[u8]| {
    summaries(data);
    for entry in PassageCursor::new(data).take(data.len() + 1) {
        let _ = entry.occurrences.bytes.len();
    }
    let whole: Vec<_> = DocumentCursor::new(data).map(|e| e.document).collect();
    assert!(whole.len() <= data.len());
    let part: Vec<_> = DocumentCursor::new(&data[..data.len() / 2])
        .map(|e| e.document)
        .collect();
    assert!(whole.starts_with(&part));
});
