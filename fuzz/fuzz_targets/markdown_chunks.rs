//! The markdown scanner, outliner and chunker on arbitrary text and chunk sizes: never
//! panic or hang; chunks concatenate back to the text exactly, on character boundaries,
//! with unique ids, never cutting a code block, and over the size limit only for a code
//! block; outline anchors are unique and their sections nest inside the text; the outline
//! and chunk table encode to document tables that decode back to them, and the tables cut
//! short or with a byte flipped decode to an error, never a panic.
#![no_main]

use std::collections::HashSet;

use libfuzzer_sys::fuzz_target;
use skillpack_server::compile::{chunk, frontmatter, markdown};
use skillpack_server::tables::{self, DocumentTables};

fuzz_target!(|data: &[u8]| {
    let (max, text) = match data {
        [a, b, rest @ ..] => (16 + (u16::from_le_bytes([*a, *b]) as usize % 4096), rest),
        _ => return,
    };
    let text = String::from_utf8_lossy(text);
    let text = text.as_ref();
    let body_offset = match frontmatter::parse(text) {
        Ok(Some(fm)) => fm.body_offset,
        _ => frontmatter::bom_len(text),
    };
    let scan = markdown::scan(text, body_offset);
    let outline = markdown::outline(&scan.headings, text.len());
    let anchors: HashSet<&str> = outline.iter().map(|h| h.anchor.as_str()).collect();
    assert_eq!(anchors.len(), outline.len(), "duplicate anchors");
    for h in &outline {
        assert!(h.start <= h.end && h.end as usize <= text.len());
        assert!(text.is_char_boundary(h.start as usize) && text.is_char_boundary(h.end as usize));
    }
    let _ = markdown::summarize(scan.first_paragraph.as_deref().unwrap_or(""), 300);

    let chunks = chunk::chunk(&chunk::Input {
        text,
        body_offset,
        outline: &outline,
        block_starts: &scan.block_starts,
        code_blocks: &scan.code_blocks,
        max_bytes: max,
    });
    assert!(!chunks.is_empty());
    let mut at = 0usize;
    let mut ids = HashSet::new();
    for c in &chunks {
        let (start, end) = (c.start as usize, c.end as usize);
        assert_eq!(start, at, "gap or overlap before {}", c.id);
        assert!(text.is_char_boundary(end));
        assert!(ids.insert(c.id.as_str()), "duplicate chunk id {}", c.id);
        if start > 0 {
            assert!(
                !scan
                    .code_blocks
                    .iter()
                    .any(|b| b.start < start && start < b.end),
                "cut inside a code block at {start}"
            );
        }
        if end - start > max {
            let in_code = scan
                .code_blocks
                .iter()
                .any(|b| b.start <= start && text[b.end.clamp(start, end)..end].trim().is_empty());
            let one_char = text[start..end].chars().count() == 1;
            assert!(
                in_code || one_char,
                "chunk {} is {} bytes > {max}",
                c.id,
                end - start
            );
        }
        at = end;
    }
    assert_eq!(at, text.len());

    let tables = DocumentTables {
        outline,
        chunks,
        ..DocumentTables::default()
    };
    let len = text.len() as u32;
    let mut bytes = Vec::new();
    tables::encode(&tables, len, &mut bytes);
    assert_eq!(tables::decode(&bytes, len).as_ref(), Ok(&tables));
    let cut = max % bytes.len().max(1);
    assert!(tables::decode(&bytes[..cut], len).is_err());
    if let Some(byte) = bytes.get_mut(cut) {
        *byte ^= (max as u8) | 1;
        let _ = tables::decode(&bytes, len);
    }
});
