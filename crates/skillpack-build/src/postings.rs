//! The byte format of postings lists, written by the compiler and decoded in place by the
//! search engine. Shared by `build.rs` (included with `#[path]`) and the runtime.
//!
//! Numbers are LEB128 varints (7 bits per byte). A list is a sequence of entries sorted by
//! id; ids are delta-coded from the previous entry (the first from 0).
//!
//! - Passage entry: `Δpassage`, one term frequency per passage field
//!   ([`PASSAGE_FIELDS`]), the byte length of the occurrence block, then one
//!   `(Δposition, Δbyte offset)` pair per occurrence in the body (positions are token
//!   numbers in the passage, byte offsets are relative to the passage start).
//! - Document entry: `Δdocument`, one term frequency per document field
//!   ([`DOCUMENT_FIELDS`]).
//!
//! Decoding never panics: a truncated list simply ends.

use crate::model::{DOCUMENT_FIELDS, PASSAGE_FIELDS};

pub fn write_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// Read a varint at `*at`, advancing it; `None` at the end of the data or on overflow.
#[inline]
pub fn read_varint(data: &[u8], at: &mut usize) -> Option<u64> {
    let mut value = 0u64;
    let mut shift = 0;
    loop {
        let byte = *data.get(*at)?;
        *at += 1;
        value |= u64::from(byte & 0x7f) << shift;
        if byte < 0x80 {
            return Some(value);
        }
        shift += 7;
        if shift > 63 {
            return None;
        }
    }
}

/// One occurrence of a term in a passage body.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Occurrence {
    pub position: u32,
    /// Byte offset from the passage start.
    pub offset: u32,
}

/// Append a passage entry. `occurrences` must be sorted by position.
pub fn write_passage_entry(
    out: &mut Vec<u8>,
    delta: u32,
    tf: &[u32; PASSAGE_FIELDS],
    occurrences: &[Occurrence],
) {
    write_varint(out, u64::from(delta));
    for &f in tf {
        write_varint(out, u64::from(f));
    }
    let mut block = Vec::with_capacity(occurrences.len() * 3);
    let (mut position, mut offset) = (0u32, 0u32);
    for o in occurrences {
        write_varint(&mut block, u64::from(o.position - position));
        write_varint(&mut block, u64::from(o.offset.wrapping_sub(offset)));
        position = o.position;
        offset = o.offset;
    }
    write_varint(out, block.len() as u64);
    out.extend_from_slice(&block);
}

pub fn write_document_entry(out: &mut Vec<u8>, delta: u32, tf: &[u32; DOCUMENT_FIELDS]) {
    write_varint(out, u64::from(delta));
    for &f in tf {
        write_varint(out, u64::from(f));
    }
}

/// A decoded passage entry; `occurrences` is the still-encoded occurrence block.
#[derive(Debug, Clone, Copy)]
pub struct PassageEntry<'a> {
    pub passage: u32,
    pub tf: [u32; PASSAGE_FIELDS],
    pub occurrences: &'a [u8],
}

/// Walks a passage postings list.
#[derive(Debug, Clone)]
pub struct PassageCursor<'a> {
    data: &'a [u8],
    at: usize,
    last: u32,
}

impl<'a> PassageCursor<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        PassageCursor {
            data,
            at: 0,
            last: 0,
        }
    }
}

impl<'a> Iterator for PassageCursor<'a> {
    type Item = PassageEntry<'a>;

    #[inline]
    fn next(&mut self) -> Option<PassageEntry<'a>> {
        let delta = read_varint(self.data, &mut self.at)?;
        let mut tf = [0u32; PASSAGE_FIELDS];
        for f in &mut tf {
            *f = read_varint(self.data, &mut self.at)? as u32;
        }
        let len = read_varint(self.data, &mut self.at)? as usize;
        let occurrences = self.data.get(self.at..self.at.checked_add(len)?)?;
        self.at += len;
        self.last = self.last.wrapping_add(delta as u32);
        Some(PassageEntry {
            passage: self.last,
            tf,
            occurrences,
        })
    }
}

/// A decoded document entry.
#[derive(Debug, Clone, Copy)]
pub struct DocumentEntry {
    pub document: u32,
    pub tf: [u32; DOCUMENT_FIELDS],
}

/// Walks a document postings list.
#[derive(Debug, Clone)]
pub struct DocumentCursor<'a> {
    data: &'a [u8],
    at: usize,
    last: u32,
}

impl<'a> DocumentCursor<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        DocumentCursor {
            data,
            at: 0,
            last: 0,
        }
    }
}

impl Iterator for DocumentCursor<'_> {
    type Item = DocumentEntry;

    #[inline]
    fn next(&mut self) -> Option<DocumentEntry> {
        let delta = read_varint(self.data, &mut self.at)?;
        let mut tf = [0u32; DOCUMENT_FIELDS];
        for f in &mut tf {
            *f = read_varint(self.data, &mut self.at)? as u32;
        }
        self.last = self.last.wrapping_add(delta as u32);
        Some(DocumentEntry {
            document: self.last,
            tf,
        })
    }
}

/// Decodes an occurrence block.
#[derive(Debug, Clone)]
pub struct Occurrences<'a> {
    data: &'a [u8],
    at: usize,
    last: Occurrence,
}

impl<'a> Occurrences<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Occurrences {
            data,
            at: 0,
            last: Occurrence::default(),
        }
    }
}

impl Iterator for Occurrences<'_> {
    type Item = Occurrence;

    #[inline]
    fn next(&mut self) -> Option<Occurrence> {
        let dp = read_varint(self.data, &mut self.at)?;
        let db = read_varint(self.data, &mut self.at)?;
        self.last = Occurrence {
            position: self.last.position.wrapping_add(dp as u32),
            offset: self.last.offset.wrapping_add(db as u32),
        };
        Some(self.last)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passage_entries_round_trip() {
        let mut out = Vec::new();
        let occ = [
            Occurrence {
                position: 3,
                offset: 20,
            },
            Occurrence {
                position: 300,
                offset: 10,
            },
        ];
        write_passage_entry(&mut out, 5, &[1, 0, 2], &occ);
        write_passage_entry(&mut out, 200, &[0, 1, 0], &[]);
        let entries: Vec<_> = PassageCursor::new(&out).collect();
        assert_eq!(entries.len(), 2);
        assert_eq!((entries[0].passage, entries[0].tf), (5, [1, 0, 2]));
        assert_eq!(
            Occurrences::new(entries[0].occurrences).collect::<Vec<_>>(),
            occ
        );
        assert_eq!((entries[1].passage, entries[1].tf), (205, [0, 1, 0]));
    }

    #[test]
    fn truncated_lists_end_without_panicking() {
        let mut out = Vec::new();
        write_document_entry(&mut out, 7, &[1, 2, 3, 4, 5]);
        write_document_entry(&mut out, 1, &[1, 2, 3, 4, 500]);
        for cut in 0..out.len() {
            let n = DocumentCursor::new(&out[..cut]).count();
            assert!(n <= 1);
        }
        assert_eq!(DocumentCursor::new(&out).nth(1).unwrap().document, 8);
        assert_eq!(read_varint(&[0xff; 12], &mut 0), None);
    }
}
