//! The byte format of a document's tables — its outline, chunk table, links and what
//! changed since the previous release ([`DocumentTables`]) — written by the compiler at the
//! end of the document's last content frame and decoded by the server when a read needs
//! them (`catalog::Catalog::tables`).
//!
//! Why a format of its own rather than the archive's: these tables were most of what a
//! catalog bakes besides its text and index (synth-10000: 15 MB of 77 MB), and most of it
//! repeats the text or follows from it. Stored beside the text in one zstd frame, heading
//! texts, link texts and hrefs compress against the lines that hold them; what follows
//! from other fields is not stored at all, only marked when it does not:
//!
//! - a heading's anchor is the GitHub slug of its text, made unique in the document as the
//!   compiler makes it (`compile::markdown::Anchors`); its end is the start of the next
//!   heading of its level or above (or the end of the text); its parent is the nearest
//!   heading above it of a higher level;
//! - a chunk starts where the one before it ends; its heading is the last heading at or
//!   before its start; its id is its heading's anchor, or the id of the chunk that opened
//!   its section with `-N`;
//! - a link's fragment is the percent-encoded anchor its href names.
//!
//! Each value that does follow is *derived* by the one function both sides call ([`Derive`]):
//! the encoder writes a value only where the derivation gives another, so a decoded table
//! is the encoded one whatever the derivations get wrong.
//!
//! Numbers are LEB128 varints; a string is its byte length, then its bytes. Versions are
//! their 48 bits, big-endian. Decoding never panics: damaged bytes are an error.

use crate::compile::markdown::Anchors;
use crate::model::{Chunk, Document, Heading, Link, LinkTarget, NO_HEADING, PreviousChange};
use crate::postings::{read_varint, write_varint};

/// What a document's tables hold: the fields of [`crate::model::Document`] that are not
/// read in place from the archive.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DocumentTables {
    pub outline: Vec<Heading>,
    pub chunks: Vec<Chunk>,
    pub links: Vec<Link>,
    pub previous: PreviousChange,
}

impl DocumentTables {
    /// The tables `document` bakes into the content store.
    pub fn of(document: &Document) -> DocumentTables {
        DocumentTables {
            outline: document.outline.clone(),
            chunks: document.chunks.clone(),
            links: document.links.clone(),
            previous: document.previous.clone(),
        }
    }

    /// The heading a chunk shows: its outline heading's text, or `title`.
    pub fn chunk_heading<'a>(&'a self, chunk: &Chunk, title: &'a str) -> &'a str {
        self.outline
            .get(chunk.heading as usize)
            .map_or(title, |h| h.text.as_str())
    }

    /// The heading with this anchor, and its outline index.
    pub fn heading(&self, anchor: &str) -> Option<(u32, &Heading)> {
        self.outline
            .iter()
            .enumerate()
            .find(|(_, h)| h.anchor == anchor)
            .map(|(i, h)| (i as u32, h))
    }

    /// The chunk with this id, and its index.
    pub fn chunk(&self, id: &str) -> Option<(u32, &Chunk)> {
        self.chunks
            .iter()
            .enumerate()
            .find(|(_, c)| c.id == id)
            .map(|(i, c)| (i as u32, c))
    }

    /// About how many bytes the decoded tables occupy (for a cache's weigher).
    pub fn heap_size(&self) -> usize {
        let strings = |s: &str| s.len() + std::mem::size_of::<String>();
        self.outline
            .iter()
            .map(|h| std::mem::size_of::<Heading>() + h.text.len() + h.anchor.len())
            .sum::<usize>()
            + self
                .chunks
                .iter()
                .map(|c| std::mem::size_of::<Chunk>() + c.id.len())
                .sum::<usize>()
            + self
                .links
                .iter()
                .map(|l| {
                    std::mem::size_of::<Link>() + l.text.len() + l.href.len() + l.fragment.len()
                })
                .sum::<usize>()
            + match &self.previous {
                PreviousChange::Changed {
                    added,
                    changed,
                    removed,
                } => added
                    .iter()
                    .chain(changed)
                    .chain(removed)
                    .map(|a| strings(a))
                    .sum(),
                _ => 0,
            }
    }
}

/// Damaged tables: bytes that no encoder wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Malformed(pub &'static str);

impl std::fmt::Display for Malformed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "document tables are malformed ({})", self.0)
    }
}

impl std::error::Error for Malformed {}

// Heading flags, beside the level in the heading's first byte.
const LEVEL_MASK: u8 = 0b0000_0111;
const H_ANCHOR: u8 = 1 << 3;
const H_END: u8 = 1 << 4;
const H_PARENT: u8 = 1 << 5;

// Chunk flags.
const C_START: u8 = 1 << 0;
const C_HEADING: u8 = 1 << 1;
/// The id, written out.
const C_ID_WRITTEN: u8 = 1 << 2;
/// The id is the section's first chunk's id with `-N`; N follows.
const C_ID_PART: u8 = 1 << 3;

// Link flags.
const L_FILE: u8 = 1 << 0;
const L_FRAGMENT_WRITTEN: u8 = 1 << 1;

const PREVIOUS_FIRST: u8 = 0;
const PREVIOUS_UNCHANGED: u8 = 1;
const PREVIOUS_ADDED: u8 = 2;
const PREVIOUS_CHANGED: u8 = 3;

/// The derivations both sides share.
#[derive(Default)]
struct Derive {
    anchors: Anchors,
}

impl Derive {
    /// The slug the compiler starts from for a heading of this text without an explicit id,
    /// when the text is ASCII (`None` otherwise: the anchor is then written out).
    ///
    /// Why not `github_slugger::slug`, which the compiler calls: it matches Unicode
    /// categories with a regex, and calling it here linked the `regex` crates into the
    /// server (580 KB of code, twice the start-up relocations, a regex compiled on the first
    /// read). On ASCII text its categories reduce to this: letters lowercased, digits and
    /// `_` kept, space and `-` become `-`, everything else goes (`tests` compares the two).
    /// Headings with other text are rare and their anchors compress beside them.
    fn base(text: &str) -> Option<String> {
        if !text.is_ascii() {
            return None;
        }
        // One allocation of the text's length: collecting `char`s grows the string as it
        // goes, and this runs for every heading of every document read.
        let mut slug = String::with_capacity(text.len());
        for b in text.bytes() {
            match b {
                b'a'..=b'z' | b'0'..=b'9' | b'_' => slug.push(b as char),
                b'A'..=b'Z' => slug.push(b.to_ascii_lowercase() as char),
                b' ' | b'-' => slug.push('-'),
                _ => {}
            }
        }
        Some(if slug.is_empty() {
            "section".to_owned()
        } else {
            slug
        })
    }

    /// The anchor the compiler gives a heading whose slug is `base`, given the anchors of
    /// the headings before it.
    fn anchor(&self, base: &str) -> String {
        self.anchors.peek(base)
    }

    /// [`Derive::anchor`] of `base`, taken ([`Derive::take`] with `derived`) in one step:
    /// what decoding does for every heading whose anchor is not written, with one copy of
    /// the slug rather than three.
    fn claim(&mut self, base: String) -> String {
        self.anchors.claim_owned(base)
    }

    /// Take a heading's anchor: later slugs are de-duplicated against it as the compiler
    /// de-duplicated them. `derived` says it is [`Derive::anchor`] of `base`, which keeps
    /// the next search for that slug from starting over (100,000 identical headings).
    fn take(&mut self, base: Option<&str>, anchor: &str, derived: bool) {
        match base {
            Some(base) if derived => {
                self.anchors.claim(base, 1);
            }
            _ => self.anchors.mark(anchor),
        }
    }

    /// Where each heading ends, from the levels and starts of the outline: at the next
    /// heading of its level or above, else at `len`. One pass with the headings still
    /// open, as the compiler's outline is made.
    fn ends(outline: &[(u8, u32)], len: u32) -> Vec<u32> {
        let mut ends = vec![len; outline.len()];
        let mut open: Vec<usize> = Vec::new();
        for (i, &(level, start)) in outline.iter().enumerate() {
            while let Some(&j) = open.last().filter(|&&j| outline[j].0 >= level) {
                ends[j] = start;
                open.pop();
            }
            open.push(i);
        }
        ends
    }

    /// Each heading's parent: the nearest heading above it of a higher level.
    fn parents(levels: &[u8]) -> Vec<u32> {
        let mut parents = Vec::with_capacity(levels.len());
        let mut open: Vec<usize> = Vec::new();
        for (i, &level) in levels.iter().enumerate() {
            while open.last().is_some_and(|&j| levels[j] >= level) {
                open.pop();
            }
            parents.push(open.last().map_or(NO_HEADING, |&j| j as u32));
            open.push(i);
        }
        parents
    }

    /// The last heading at or before `offset`.
    fn heading_at(outline: &[Heading], offset: u32) -> u32 {
        outline
            .partition_point(|h| h.start <= offset)
            .checked_sub(1)
            .map_or(NO_HEADING, |i| i as u32)
    }

    /// A link's fragment as the compiler writes it: the anchor its href names, encoded.
    fn fragment(href: &str) -> String {
        let Some((_, fragment)) = href.trim().split_once('#') else {
            return String::new();
        };
        let anchor = percent_encoding::percent_decode_str(fragment).decode_utf8_lossy();
        if anchor.is_empty() {
            return String::new();
        }
        crate::uri::encode_segment(&anchor)
    }
}

/// Append `tables` of a document whose text is `len` bytes to `out`.
pub fn encode(tables: &DocumentTables, len: u32, out: &mut Vec<u8>) {
    let mut derive = Derive::default();
    let shape: Vec<(u8, u32)> = tables.outline.iter().map(|h| (h.level, h.start)).collect();
    let levels: Vec<u8> = shape.iter().map(|s| s.0).collect();
    let (ends, parents) = (Derive::ends(&shape, len), Derive::parents(&levels));

    write_varint(out, tables.outline.len() as u64);
    let mut last_start = 0u32;
    for (i, h) in tables.outline.iter().enumerate() {
        let base = Derive::base(&h.text);
        let anchor_written = base
            .as_deref()
            .is_none_or(|base| derive.anchor(base) != h.anchor);
        derive.take(base.as_deref(), &h.anchor, !anchor_written);
        let end_written = ends[i] != h.end;
        let parent_written = parents[i] != h.parent;
        // Markdown has six levels; 0 in the first byte says the level follows.
        let level_written = h.level == 0 || h.level > LEVEL_MASK;
        out.push(
            if level_written { 0 } else { h.level }
                | if anchor_written { H_ANCHOR } else { 0 }
                | if end_written { H_END } else { 0 }
                | if parent_written { H_PARENT } else { 0 },
        );
        if level_written {
            out.push(h.level);
        }
        write_str(out, &h.text);
        write_varint(out, u64::from(h.start.wrapping_sub(last_start)));
        last_start = h.start;
        if anchor_written {
            write_str(out, &h.anchor);
        }
        if end_written {
            write_varint(out, u64::from(h.end.wrapping_sub(h.start)));
        }
        if parent_written {
            write_varint(out, u64::from(h.parent.wrapping_add(1)));
        }
        out.extend_from_slice(&h.version.to_be_bytes()[2..]);
    }

    write_varint(out, tables.chunks.len() as u64);
    let mut previous_end = 0u32;
    // The id of the chunk that opened the current section, and the last part number.
    let mut section_id = "";
    for c in &tables.chunks {
        let start_written = c.start != previous_end;
        let heading_written = Derive::heading_at(&tables.outline, c.start) != c.heading;
        let anchor = tables
            .outline
            .get(c.heading as usize)
            .map(|h| h.anchor.as_str());
        let part = (!section_id.is_empty())
            .then(|| {
                c.id.strip_prefix(section_id)?
                    .strip_prefix('-')?
                    .parse::<u64>()
                    .ok()
            })
            .flatten()
            .filter(|n| format!("{section_id}-{n}") == c.id);
        let (id_flag, opens) = if anchor == Some(c.id.as_str()) {
            (0, true)
        } else if part.is_some() {
            (C_ID_PART, false)
        } else {
            (C_ID_WRITTEN, true)
        };
        out.push(
            if start_written { C_START } else { 0 }
                | if heading_written { C_HEADING } else { 0 }
                | id_flag,
        );
        if start_written {
            write_varint(out, u64::from(c.start));
        }
        if heading_written {
            write_varint(out, u64::from(c.heading.wrapping_add(1)));
        }
        match (id_flag, part) {
            (C_ID_WRITTEN, _) => write_str(out, &c.id),
            (C_ID_PART, Some(n)) => write_varint(out, n),
            _ => {}
        }
        if opens {
            section_id = &c.id;
        }
        write_varint(out, u64::from(c.end.wrapping_sub(c.start)));
        out.extend_from_slice(&c.version.to_be_bytes()[2..]);
        previous_end = c.end;
    }

    write_varint(out, tables.links.len() as u64);
    for l in &tables.links {
        let (file, index) = match l.target {
            LinkTarget::Document(d) => (false, d),
            LinkTarget::File(f) => (true, f),
        };
        let fragment_written = Derive::fragment(&l.href) != l.fragment;
        out.push(
            if file { L_FILE } else { 0 }
                | if fragment_written {
                    L_FRAGMENT_WRITTEN
                } else {
                    0
                },
        );
        write_varint(out, u64::from(index));
        write_str(out, &l.text);
        write_str(out, &l.href);
        if fragment_written {
            write_str(out, &l.fragment);
        }
    }

    match &tables.previous {
        PreviousChange::FirstRelease => out.push(PREVIOUS_FIRST),
        PreviousChange::Unchanged => out.push(PREVIOUS_UNCHANGED),
        PreviousChange::Added => out.push(PREVIOUS_ADDED),
        PreviousChange::Changed {
            added,
            changed,
            removed,
        } => {
            out.push(PREVIOUS_CHANGED);
            for list in [added, changed, removed] {
                write_varint(out, list.len() as u64);
                for anchor in list {
                    write_str(out, anchor);
                }
            }
        }
    }
}

/// Decode the tables [`encode`] wrote for a document whose text is `len` bytes.
pub fn decode(bytes: &[u8], len: u32) -> Result<DocumentTables, Malformed> {
    let mut r = Reader { bytes, at: 0 };
    let mut derive = Derive::default();

    let count = r.count("outline")?;
    // (text, level, start, written anchor, written end, written parent, version) first:
    // ends and parents derive from the headings after and before.
    let mut outline: Vec<Heading> = Vec::with_capacity(count);
    let mut written_end: Vec<Option<u32>> = Vec::with_capacity(count);
    let mut written_parent: Vec<Option<u32>> = Vec::with_capacity(count);
    let mut start = 0u32;
    for _ in 0..count {
        let first = r.byte()?;
        let level = match first & LEVEL_MASK {
            0 => r.byte()?,
            level => level,
        };
        let text = r.string()?;
        start = start.wrapping_add(r.u32()?);
        let anchor = if first & H_ANCHOR != 0 {
            let anchor = r.string()?;
            derive.take(None, &anchor, false);
            anchor
        } else {
            match Derive::base(&text) {
                Some(base) => derive.claim(base),
                None => return Err(Malformed("a heading of non-ASCII text without its anchor")),
            }
        };
        written_end.push(if first & H_END != 0 {
            Some(start.wrapping_add(r.u32()?))
        } else {
            None
        });
        written_parent.push(if first & H_PARENT != 0 {
            Some(r.u32()?.wrapping_sub(1))
        } else {
            None
        });
        let version = r.version()?;
        outline.push(Heading {
            level,
            text,
            anchor,
            start,
            end: 0,
            parent: 0,
            version,
        });
    }
    let shape: Vec<(u8, u32)> = outline.iter().map(|h| (h.level, h.start)).collect();
    let levels: Vec<u8> = shape.iter().map(|s| s.0).collect();
    let (ends, parents) = (Derive::ends(&shape, len), Derive::parents(&levels));
    for (i, h) in outline.iter_mut().enumerate() {
        h.end = written_end[i].unwrap_or(ends[i]);
        h.parent = written_parent[i].unwrap_or(parents[i]);
    }

    let count = r.count("chunk table")?;
    let mut chunks: Vec<Chunk> = Vec::with_capacity(count);
    let mut previous_end = 0u32;
    let mut section_id = String::new();
    for _ in 0..count {
        let flags = r.byte()?;
        let start = if flags & C_START != 0 {
            r.u32()?
        } else {
            previous_end
        };
        let heading = if flags & C_HEADING != 0 {
            r.u32()?.wrapping_sub(1)
        } else {
            Derive::heading_at(&outline, start)
        };
        let id = if flags & C_ID_WRITTEN != 0 {
            let id = r.string()?;
            section_id = id.clone();
            id
        } else if flags & C_ID_PART != 0 {
            let n = r.varint()?;
            format!("{section_id}-{n}")
        } else {
            let id = outline
                .get(heading as usize)
                .map(|h| h.anchor.clone())
                .ok_or(Malformed("a chunk names a heading the outline lacks"))?;
            section_id = id.clone();
            id
        };
        let end = start.wrapping_add(r.u32()?);
        let version = r.version()?;
        chunks.push(Chunk {
            id,
            heading,
            start,
            end,
            version,
        });
        previous_end = end;
    }

    let count = r.count("links")?;
    let mut links: Vec<Link> = Vec::with_capacity(count);
    for _ in 0..count {
        let flags = r.byte()?;
        let index = r.u32()?;
        let text = r.string()?;
        let href = r.string()?;
        let fragment = if flags & L_FRAGMENT_WRITTEN != 0 {
            r.string()?
        } else {
            Derive::fragment(&href)
        };
        links.push(Link {
            text,
            href,
            target: if flags & L_FILE != 0 {
                LinkTarget::File(index)
            } else {
                LinkTarget::Document(index)
            },
            fragment,
        });
    }

    let previous = match r.byte()? {
        PREVIOUS_FIRST => PreviousChange::FirstRelease,
        PREVIOUS_UNCHANGED => PreviousChange::Unchanged,
        PREVIOUS_ADDED => PreviousChange::Added,
        PREVIOUS_CHANGED => {
            let mut lists: [Vec<String>; 3] = Default::default();
            for list in &mut lists {
                let n = r.count("change lists")?;
                for _ in 0..n {
                    list.push(r.string()?);
                }
            }
            let [added, changed, removed] = lists;
            PreviousChange::Changed {
                added,
                changed,
                removed,
            }
        }
        _ => return Err(Malformed("an unknown change kind")),
    };
    if r.at != bytes.len() {
        return Err(Malformed("bytes after the tables"));
    }
    Ok(DocumentTables {
        outline,
        chunks,
        links,
        previous,
    })
}

fn write_str(out: &mut Vec<u8>, s: &str) {
    write_varint(out, s.len() as u64);
    out.extend_from_slice(s.as_bytes());
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn byte(&mut self) -> Result<u8, Malformed> {
        let byte = *self.bytes.get(self.at).ok_or(Malformed("truncated"))?;
        self.at += 1;
        Ok(byte)
    }

    fn varint(&mut self) -> Result<u64, Malformed> {
        read_varint(self.bytes, &mut self.at).ok_or(Malformed("truncated"))
    }

    fn u32(&mut self) -> Result<u32, Malformed> {
        u32::try_from(self.varint()?).map_err(|_| Malformed("a number out of range"))
    }

    /// A count of entries that each take at least one byte: no more than the bytes left.
    fn count(&mut self, what: &'static str) -> Result<usize, Malformed> {
        let n = self.varint()?;
        if n > (self.bytes.len() - self.at) as u64 {
            return Err(Malformed(what));
        }
        Ok(n as usize)
    }

    fn string(&mut self) -> Result<String, Malformed> {
        let len = self.varint()? as usize;
        let end = self
            .at
            .checked_add(len)
            .filter(|&end| end <= self.bytes.len())
            .ok_or(Malformed("truncated"))?;
        let text = std::str::from_utf8(&self.bytes[self.at..end])
            .map_err(|_| Malformed("text that is not UTF-8"))?;
        self.at = end;
        Ok(text.to_owned())
    }

    fn version(&mut self) -> Result<u64, Malformed> {
        let end = self.at + 6;
        let bytes = self.bytes.get(self.at..end).ok_or(Malformed("truncated"))?;
        self.at = end;
        Ok(bytes.iter().fold(0u64, |acc, b| (acc << 8) | u64::from(*b)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn heading(level: u8, text: &str, anchor: &str, start: u32, end: u32, parent: u32) -> Heading {
        Heading {
            level,
            text: text.into(),
            anchor: anchor.into(),
            start,
            end,
            parent,
            version: 0x0123_4567_89ab ^ u64::from(start),
        }
    }

    fn chunk(id: &str, heading: u32, start: u32, end: u32) -> Chunk {
        Chunk {
            id: id.into(),
            heading,
            start,
            end,
            version: 0xfedc_ba98_7654 ^ u64::from(start),
        }
    }

    fn roundtrip(tables: &DocumentTables, len: u32) -> usize {
        let mut bytes = Vec::new();
        encode(tables, len, &mut bytes);
        assert_eq!(decode(&bytes, len).as_ref(), Ok(tables));
        bytes.len()
    }

    #[test]
    fn what_follows_from_other_fields_is_not_stored_and_decodes_back() {
        let tables = DocumentTables {
            outline: vec![
                heading(1, "Guide", "guide", 0, 300, NO_HEADING),
                heading(2, "Install it", "install-it", 20, 120, 0),
                heading(3, "On Linux", "on-linux", 60, 120, 1),
                heading(2, "Install it", "install-it-1", 120, 300, 0),
            ],
            chunks: vec![
                chunk("guide", 0, 0, 20),
                chunk("install-it", 1, 20, 90),
                chunk("install-it-2", 2, 90, 120),
                chunk("install-it-1", 3, 120, 300),
            ],
            links: vec![
                Link {
                    text: "setup".into(),
                    href: "setup.md#step%201".into(),
                    target: LinkTarget::Document(3),
                    fragment: "step%201".into(),
                },
                Link {
                    text: "script".into(),
                    href: "scripts/run.sh".into(),
                    target: LinkTarget::File(7),
                    fragment: String::new(),
                },
            ],
            previous: PreviousChange::Changed {
                added: vec!["on-linux".into()],
                changed: vec![],
                removed: vec!["old".into()],
            },
        };
        let size = roundtrip(&tables, 300);
        // Texts, hrefs, versions and a few numbers: no anchor, end, parent or chunk id.
        let strings: usize = ["Guide", "Install it", "On Linux", "Install it"]
            .iter()
            .map(|s| s.len() + 1)
            .sum::<usize>()
            + ["setup", "setup.md#step%201", "script", "scripts/run.sh"]
                .iter()
                .map(|s| s.len() + 1)
                .sum::<usize>()
            + ["on-linux", "old"]
                .iter()
                .map(|s| s.len() + 1)
                .sum::<usize>();
        assert!(size <= strings + 8 * 6 + 40, "{size} bytes");
    }

    #[test]
    fn values_that_do_not_follow_are_written_out() {
        let tables = DocumentTables {
            outline: vec![
                // An explicit id, then a slug that collides with it.
                heading(2, "Setup", "custom", 10, 50, NO_HEADING),
                heading(2, "Custom", "custom-1", 50, 90, NO_HEADING),
                // An end and a parent the derivation would not give; a level past 7.
                heading(9, "Deep", "deep", 90, 95, 0),
            ],
            chunks: vec![
                // The intro before the first heading, then a gap and a written id.
                chunk("intro", NO_HEADING, 0, 10),
                chunk("odd-one", 0, 12, 50),
                chunk("custom-1", 5, 50, 200),
            ],
            links: vec![Link {
                text: String::new(),
                href: "a.md#x".into(),
                target: LinkTarget::Document(0),
                fragment: "y".into(),
            }],
            previous: PreviousChange::Added,
        };
        roundtrip(&tables, 200);
        roundtrip(&DocumentTables::default(), 0);
    }

    /// The server derives anchors without `github_slugger` (and its regex): on ASCII text
    /// it must give the compiler's slug, and other text has its anchor written out.
    #[test]
    fn ascii_slugs_are_github_slugs_and_other_anchors_are_written() {
        let slugged = crate::compile::markdown::heading_slug;
        for b in 0u8..128 {
            let text = format!("A{}b {}", b as char, b as char);
            assert_eq!(Derive::base(&text), Some(slugged(&text)), "byte {b:#04x}");
        }
        // Pseudo-random ASCII headings, a fixed sequence.
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..2_000 {
            let len = (state >> 60) as usize + 1;
            let text: String = (0..len)
                .map(|_| {
                    state = state
                        .wrapping_mul(6_364_136_223_846_793_005)
                        .wrapping_add(1);
                    ((state >> 33) % 128) as u8 as char
                })
                .collect();
            assert_eq!(Derive::base(&text), Some(slugged(&text)), "{text:?}");
        }
        assert_eq!(Derive::base("Café au lait"), None);
        // Non-ASCII headings, repeated, and an ASCII slug that collides with one of them.
        let tables = DocumentTables {
            outline: vec![
                heading(2, "Café", "café", 0, 10, NO_HEADING),
                heading(2, "Café", "café-1", 10, 20, NO_HEADING),
                heading(2, "Straße → Ziel", "straße--ziel", 20, 30, NO_HEADING),
                heading(2, "cafe", "cafe", 30, 40, NO_HEADING),
                heading(2, "Install", "install", 40, 50, NO_HEADING),
                heading(2, "Install", "install-1", 50, 60, NO_HEADING),
            ],
            ..DocumentTables::default()
        };
        let size = roundtrip(&tables, 60);
        let texts: usize = [
            "Café",
            "Café",
            "Straße → Ziel",
            "cafe",
            "Install",
            "Install",
        ]
        .iter()
        .map(|t| t.len() + 1)
        .sum();
        let anchors: usize = ["café", "café-1", "straße--ziel"]
            .iter()
            .map(|a| a.len() + 1)
            .sum();
        assert_eq!(
            size,
            1 + texts + anchors + 6 * (1 + 1 + 6) + 3,
            "{size} bytes"
        );
        let mut bytes = Vec::new();
        encode(&tables, 60, &mut bytes);
        // A non-ASCII heading whose anchor flag is cleared cannot be decoded.
        let mut damaged = bytes.clone();
        damaged[1] &= !H_ANCHOR;
        assert!(decode(&damaged, 60).is_err());
    }

    /// 100,000 identical headings (as `tests/hostile_content.rs` compiles) encode and
    /// decode in linear time: neither anchors nor parents are searched for from the start.
    #[test]
    fn identical_headings_encode_and_decode_in_linear_time() {
        let n = 100_000u32;
        let outline: Vec<Heading> = (0..n)
            .map(|i| {
                let anchor = if i == 0 {
                    "a".to_owned()
                } else {
                    format!("a-{i}")
                };
                heading(2, "a", &anchor, i * 5, (i + 1) * 5, NO_HEADING)
            })
            .collect();
        let tables = DocumentTables {
            outline,
            ..DocumentTables::default()
        };
        let size = roundtrip(&tables, n * 5);
        // A level byte, the text, one start delta and the version per heading: nothing
        // else is written.
        assert_eq!(size, 3 + n as usize * (1 + 2 + 1 + 6) + 3);
    }

    #[test]
    fn damaged_tables_are_an_error_never_a_panic() {
        let tables = DocumentTables {
            outline: vec![heading(2, "Setup", "setup", 0, 40, NO_HEADING)],
            chunks: vec![chunk("setup", 0, 0, 40)],
            links: vec![],
            previous: PreviousChange::Unchanged,
        };
        let mut bytes = Vec::new();
        encode(&tables, 40, &mut bytes);
        for cut in 0..bytes.len() {
            assert!(decode(&bytes[..cut], 40).is_err(), "cut at {cut}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(decode(&longer, 40).is_err());
        for i in 0..bytes.len() {
            for flip in [0x01u8, 0x80, 0xff] {
                let mut damaged = bytes.clone();
                damaged[i] ^= flip;
                let _ = decode(&damaged, 40);
            }
        }
        // A huge count must not allocate for it.
        let mut huge = Vec::new();
        write_varint(&mut huge, u64::MAX >> 1);
        assert!(decode(&huge, 0).is_err());
    }
}
