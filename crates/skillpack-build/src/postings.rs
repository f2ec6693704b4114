//! The byte formats of the search index, written by the compiler and decoded in place by
//! the search engine. Shared by `build.rs` (through this crate) and the runtime.
//!
//! Numbers are LEB128 varints (7 bits per byte). Lists are sorted by id; ids are
//! delta-coded from the previous entry (the first from 0).
//!
//! - **Passage entry**: `Δpassage << 1 | simple`, where a simple entry is one occurrence in
//!   the body and nothing else; otherwise `body frequency << 2 | fields << 1 | offsets`,
//!   then the heading and context frequencies if `fields`. Then one `Δposition` per
//!   occurrence in the body, each followed by `Δbyte offset` if `offsets`. Positions are token numbers in the passage; an occurrence's
//!   byte offset is normally where the token at its position starts, which the passage's
//!   token table gives ([`write_token_starts`]), so it is not stored. An entry carries
//!   offsets only when one of its occurrences starts elsewhere (an operator, which takes
//!   the position of the token after it; the first part of `__init__`).
//! - **Document entry**: `Δdocument`, a byte with one bit per document field and the
//!   frequency of each field whose bit is set. Only documents whose title, name or
//!   description hold the term have one: the body and headings fields are sums over the
//!   document's passages (each passage's body, and the heading of each passage that opens
//!   its section), which the search adds up from the passage entries it reads anyway.
//! - **Document summary** (only for a term with at least [`SUMMARY_MIN_ENTRIES`] passage
//!   entries): one entry per document its passage list reaches, in document order, so that
//!   a search can bound what the term adds to a document and count the document's hits
//!   without reading its passage entries ([`SummaryWriter`], [`Summaries`]). Each entry is
//!   a fixed-width [`Record`], read for every document: the document, the mask (bit `i`:
//!   passage `first_passage + i` holds the term in its heading or text; written for
//!   documents whose sections and chunks are each one run, see
//!   `DocumentStats::heading_joins`; for a document of more than 64 passages, where its
//!   mask of one word per 64 passages lies, after the cold stream), the largest of its
//!   impacts and the term's document
//!   score (below), and whether the run holds the term in a passage's text. The rest is
//!   in a cold stream of varints, read only for a document that passes the search's first
//!   bound: where the run of passage entries starts, its first passage, the term's largest
//!   frequency in any one passage per field, and with a mask which passages the run holds
//!   in any field and one byte per such passage, its *impact*: what the term's BM25F and
//!   heading bonus give that passage under [`IMPACT_PARAMS`], over the term's weight and
//!   idf, in 64ths rounded up ([`impact`]; 255: too large to say). The document score is
//!   BM25F over the document's fields, over weight and idf, in the same 64ths
//!   ([`document_impact`]).
//! - **Dictionary**: terms sorted by bytes, in blocks of [`TERM_BLOCK`] ([`DictionaryWriter`],
//!   [`find`]). A term is its shared prefix and suffix lengths (a nibble each when both are
//!   below 15, else `0xff` and two varints; the first of a block shares nothing), the
//!   suffix, `passage frequency << 1 | has a summary`, `document frequency << 1 | has a
//!   document list`, the document list's byte length if it has one, the summary's byte
//!   length if it has one, and the passage list's byte length. Its lists lie in the
//!   postings, passage list, document list then summary, in dictionary order, so a block
//!   knows where its first term's lists start and each term's follow from the lengths
//!   before it.
//! - **Token table** of a passage: the start of each token, as runs of tokens that start
//!   where a scan of the passage's text expects and the deltas of those that do not.
//!
//! Decoding never panics: truncated or damaged data simply ends a list.

use std::ops::Range;

/// The version of these formats: bumped whenever the bytes a compiler writes for the search
/// index change meaning, so that an index saved by another version (`examples/
/// search_latency --save`) is refused rather than misread. (A baked catalog is always read
/// by the binary that compiled it.) 2: summaries carry impacts; 3: and the best of them and
/// a document score; 4: summaries are fixed-width records and a cold stream; 5: and
/// documents of more than [`MASK_PASSAGES`] passages have masks of several words.
pub const INDEX_FORMAT: u32 = 5;

/// Fields of a passage, scored together with BM25F.
pub const PASSAGE_FIELDS: usize = 3;
/// The passage's own heading.
pub const P_HEADING: usize = 0;
/// The headings it sits under (its heading path without its own heading).
pub const P_CONTEXT: usize = 1;
/// The passage text (its heading line included).
pub const P_BODY: usize = 2;

/// Fields of a whole document, scored together with BM25F.
pub const DOCUMENT_FIELDS: usize = 5;
/// Title (skill name, first H1 or file name).
pub const D_TITLE: usize = 0;
/// Skill id, reference id and path, doc path.
pub const D_NAME: usize = 1;
/// Skill description, tags and capabilities.
pub const D_DESCRIPTION: usize = 2;
/// Every heading of the document.
pub const D_HEADINGS: usize = 3;
/// The whole text (frontmatter excluded).
pub const D_BODY: usize = 4;

pub fn write_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// Read a varint at `*at`, advancing it; `None` at the end of the data or on overflow.
// Always inlined: a search's walk over common words' summaries calls it a few times per
// document, and as a call it was a tenth of that walk.
#[inline(always)]
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

/// Skip `n` varints from `at`: the position after them, or `None` past the end.
#[inline]
fn skip_varints(data: &[u8], mut at: usize, mut n: usize) -> Option<usize> {
    // Eight bytes at a time while at least eight varints remain: a varint ends on each
    // byte whose high bit is clear, and eight bytes cannot end more than eight of them.
    // (Skipping the occurrences of a frequent word is most of walking its list.)
    while n >= 8 {
        let Some(chunk) = data.get(at..).and_then(|rest| rest.first_chunk::<8>()) else {
            break;
        };
        let ends = !u64::from_le_bytes(*chunk) & 0x8080_8080_8080_8080;
        n -= ends.count_ones() as usize;
        at += 8;
    }
    while n > 0 {
        let byte = *data.get(at)?;
        at += 1;
        if byte < 0x80 {
            n -= 1;
        }
    }
    Some(at)
}

/// One occurrence of a term in a passage body.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Occurrence {
    pub position: u32,
    /// Byte offset from the passage start.
    pub offset: u32,
}

/// Append a passage entry. `occurrences` must be sorted by position; `token_starts` is the
/// passage's token table (see [`write_token_starts`]): offsets equal to it are not stored.
pub fn write_passage_entry(
    out: &mut Vec<u8>,
    delta: u32,
    tf: &[u32; PASSAGE_FIELDS],
    occurrences: &[Occurrence],
    token_starts: &[u32],
) {
    debug_assert_eq!(tf[P_BODY] as usize, occurrences.len());
    let offsets = occurrences
        .iter()
        .any(|o| token_starts.get(o.position as usize) != Some(&o.offset));
    let fields = tf[P_HEADING] > 0 || tf[P_CONTEXT] > 0;
    // Most entries are one occurrence in the text and nothing else: one flag says so, and
    // the rest of what an entry can hold follows only when it does not.
    let simple = tf[P_BODY] == 1 && !fields && !offsets;
    write_varint(out, (u64::from(delta) << 1) | u64::from(simple));
    if !simple {
        write_varint(
            out,
            (u64::from(tf[P_BODY]) << 2) | (u64::from(fields) << 1) | u64::from(offsets),
        );
        if fields {
            write_varint(out, u64::from(tf[P_HEADING]));
            write_varint(out, u64::from(tf[P_CONTEXT]));
        }
    }
    let (mut position, mut offset) = (0u32, 0u32);
    for o in occurrences {
        write_varint(out, u64::from(o.position - position));
        if offsets {
            write_varint(out, u64::from(o.offset.wrapping_sub(offset)));
        }
        position = o.position;
        offset = o.offset;
    }
}

pub fn write_document_entry(out: &mut Vec<u8>, delta: u32, tf: &[u32; DOCUMENT_FIELDS]) {
    write_varint(out, u64::from(delta));
    let mask = tf
        .iter()
        .enumerate()
        .fold(0u8, |m, (f, &n)| m | (u8::from(n > 0) << f));
    out.push(mask);
    for &n in tf.iter().filter(|&&n| n > 0) {
        write_varint(out, u64::from(n));
    }
}

/// A decoded passage entry; `occurrences` is the still-encoded occurrence block.
#[derive(Debug, Clone, Copy)]
pub struct PassageEntry<'a> {
    pub passage: u32,
    pub tf: [u32; PASSAGE_FIELDS],
    pub occurrences: OccurrenceBlock<'a>,
}

/// The occurrences of a term in one passage, still encoded.
#[derive(Debug, Clone, Copy, Default)]
pub struct OccurrenceBlock<'a> {
    pub bytes: &'a [u8],
    /// Each position is followed by its byte offset.
    pub offsets: bool,
}

impl OccurrenceBlock<'_> {
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }
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

impl<'a> PassageCursor<'a> {
    /// Where the next entry starts in the list.
    pub fn position(&self) -> usize {
        self.at
    }

    /// A cursor on the list `data` at byte `at`, where an entry for `passage` starts (a
    /// [`Summary`] says where a document's run starts and its first passage): its delta
    /// from the entry before, which was not read, is peeked and discounted.
    pub fn resume(data: &'a [u8], at: usize, passage: u32) -> Self {
        let mut peek = at;
        let delta = read_varint(data, &mut peek).map_or(0, |header| (header >> 1) as u32);
        PassageCursor {
            data,
            at,
            last: passage.wrapping_sub(delta),
        }
    }
}

impl<'a> Iterator for PassageCursor<'a> {
    type Item = PassageEntry<'a>;

    #[inline]
    fn next(&mut self) -> Option<PassageEntry<'a>> {
        let header = read_varint(self.data, &mut self.at)?;
        let mut tf = [0u32; PASSAGE_FIELDS];
        let mut offsets = false;
        if header & 1 != 0 {
            tf[P_BODY] = 1;
        } else {
            let more = read_varint(self.data, &mut self.at)?;
            tf[P_BODY] = (more >> 2) as u32;
            offsets = more & 1 != 0;
            if more & 2 != 0 {
                tf[P_HEADING] = read_varint(self.data, &mut self.at)? as u32;
                tf[P_CONTEXT] = read_varint(self.data, &mut self.at)? as u32;
            }
        }
        let per_occurrence = if offsets { 2 } else { 1 };
        let start = self.at;
        self.at = skip_varints(self.data, self.at, tf[P_BODY] as usize * per_occurrence)?;
        self.last = self.last.wrapping_add((header >> 1) as u32);
        Some(PassageEntry {
            passage: self.last,
            tf,
            occurrences: OccurrenceBlock {
                bytes: &self.data[start..self.at],
                offsets,
            },
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
        let mask = *self.data.get(self.at)?;
        self.at += 1;
        for (f, n) in tf.iter_mut().enumerate() {
            if mask & (1 << f) != 0 {
                *n = read_varint(self.data, &mut self.at)? as u32;
            }
        }
        self.last = self.last.wrapping_add(delta as u32);
        Some(DocumentEntry {
            document: self.last,
            tf,
        })
    }
}

// ---- document summaries ---------------------------------------------------------------

/// A term has a document summary when its passage list has at least this many entries:
/// shorter lists cost little to read whole, and a summary entry costs about a quarter of a
/// document's run of entries.
pub const SUMMARY_MIN_ENTRIES: u32 = 256;

/// Documents of at most this many passages can have their passages as a bit mask.
pub const MASK_PASSAGES: u32 = 64;

/// The ranking parameters the summaries' impacts are computed under, kept in the index
/// ([`crate::model::SearchIndex::impact_params`]) so that a search under other parameters
/// knows not to use them: `k1`, the passage field weights, their length factors, the
/// heading bonus; then `doc_k1`, the document field weights and their length factors (the
/// search's `Params::default`; a test keeps the two together).
pub const IMPACT_PARAMS: [f32; IMPACT_PARAM_COUNT] = [
    1.2, 3.0, 1.0, 1.0, 0.3, 0.3, 0.5, 1.0, // passages
    1.2, 4.0, 2.0, 3.0, 1.5, 1.0, 0.3, 0.3, 0.5, 0.5, 0.75, // documents
];

pub const IMPACT_PARAM_COUNT: usize = 19;

/// Impacts are stored in 64ths.
pub const IMPACT_SCALE: f32 = 64.0;

/// A passage's impact byte for a term with frequencies `tf` in a passage of field lengths
/// `lengths`, under `params` (as [`IMPACT_PARAMS`]) and the index's average lengths `avg`:
/// the search's passage score of the term (`tf / (k1 + tf)` of the weighted frequencies,
/// plus the heading bonus over the heading's length factor when the heading holds it), in
/// 64ths, rounded up with a margin so that float rounding in another order stays below
/// it; 255 when it does not fit (read as no bound at all).
pub fn impact(
    tf: &[u32; PASSAGE_FIELDS],
    lengths: &[u32; PASSAGE_FIELDS],
    params: &[f32; IMPACT_PARAM_COUNT],
    avg: &[f32; PASSAGE_FIELDS],
) -> u8 {
    let (k1, weights, b, heading_bonus) = (
        params[0],
        [params[1], params[2], params[3]],
        [params[4], params[5], params[6]],
        params[7],
    );
    let norm = |f: usize| (1.0 - b[f] + b[f] * lengths[f] as f32 / avg[f]).max(1e-3);
    let mut weighted = 0.0;
    for f in 0..PASSAGE_FIELDS {
        if tf[f] > 0 {
            weighted += weights[f] * tf[f] as f32 / norm(f);
        }
    }
    let mut score = weighted / (k1 + weighted);
    if tf[P_HEADING] > 0 {
        score += heading_bonus / norm(P_HEADING);
    }
    to_impact(score)
}

/// A score over weight and idf in 64ths, rounded up with a margin; 255 when it does not fit.
fn to_impact(score: f32) -> u8 {
    let scaled = (score * IMPACT_SCALE + 0.01).ceil();
    if (0.0..255.0).contains(&scaled) {
        scaled as u8
    } else {
        255
    }
}

/// A term's document score byte ([`impact`]) for its frequencies `tf` in a document of
/// field lengths `lengths`: the search's `tf / (doc_k1 + tf)` of the weighted frequencies,
/// under `params` and the index's average document lengths `avg`.
pub fn document_impact(
    tf: &[u32; DOCUMENT_FIELDS],
    lengths: &[u32; DOCUMENT_FIELDS],
    params: &[f32; IMPACT_PARAM_COUNT],
    avg: &[f32; DOCUMENT_FIELDS],
) -> u8 {
    let k1 = params[8];
    let mut weighted = 0.0;
    for f in 0..DOCUMENT_FIELDS {
        if tf[f] > 0 {
            let (weight, b) = (params[9 + f], params[14 + f]);
            let norm = 1.0 - b + b * lengths[f] as f32 / avg[f];
            weighted += weight * tf[f] as f32 / norm.max(1e-3);
        }
    }
    to_impact(weighted / (k1 + weighted))
}

/// What a term's passage list holds for one document, without its entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Summary {
    pub document: u32,
    /// Where the document's run of entries starts in the passage list.
    pub at: u32,
    /// The run's first passage, less the document's first passage.
    pub first: u32,
    /// Bit `i`: passage `first_passage + i` holds the term in its heading or text (see
    /// [`PassageEntry`]); `None` when not written (more than [`MASK_PASSAGES`] passages, or
    /// sections or chunks not in one run each).
    pub own: Option<u64>,
    /// The term's largest frequency in any one passage of the run, per passage field.
    pub most: [u32; PASSAGE_FIELDS],
    /// With `own`: bit `i`, passage `first_passage + i` has an entry (any field), and its
    /// impact is byte number (the bits below `i` in `any`) from `impacts` in the summary's
    /// bytes ([`Summaries::impacts`]).
    pub any: u64,
    pub impacts: u32,
    /// With `own`: the largest of the impacts, and the term's document score byte
    /// ([`document_impact`]).
    pub best: u8,
    pub document_score: u8,
}

/// Bytes of a summary record ([`Summaries`]).
pub const RECORD_BYTES: usize = 16;
/// Records per block of a summary: each block says where its records' cold entries and
/// runs start.
pub const SUMMARY_BLOCK: usize = 64;
/// Bytes of a block's offsets (cold stream, passage list).
const BLOCK_BYTES: usize = 8;
/// In a record's `cold` field: the document's passages are a mask (`own` is written, and
/// the record's impact bytes are meaningful).
pub const RECORD_MASK: u16 = 1 << 14;
/// In a record's `cold` field: some passage of the run holds the term in its text.
pub const RECORD_BODY: u16 = 1 << 15;
/// In a record's `cold` field: the document has more than [`MASK_PASSAGES`] passages and
/// its passages are a mask of several words ([`Summaries::wide`]); the record's `own` says
/// where they are, and its impact bytes bound every passage.
pub const RECORD_WIDE: u16 = 1 << 13;
/// The low bits of a record's `cold` field: where its cold entry starts, from its block's.
/// A cold entry is at most about 100 bytes (five varints of 32 bits, a 64-bit one, 64
/// impacts), so 63 of them fit in 13 bits.
const RECORD_COLD: u16 = RECORD_WIDE - 1;

/// The fixed-width part of a document summary entry: what a search reads for every
/// document a common word reaches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Record {
    pub document: u32,
    /// The passage mask ([`Summary::own`]; 0 when there is none), or with [`RECORD_WIDE`]
    /// where the mask's words start in the cold stream (low 32 bits) and how many there are.
    pub own: u64,
    pub best: u8,
    pub document_score: u8,
    /// [`RECORD_MASK`], [`RECORD_BODY`] and where the cold entry starts in its block.
    pub cold: u16,
}

impl Record {
    #[inline(always)]
    fn from_bytes(bytes: &[u8; RECORD_BYTES]) -> Self {
        let [
            d0,
            d1,
            d2,
            d3,
            o0,
            o1,
            o2,
            o3,
            o4,
            o5,
            o6,
            o7,
            best,
            score,
            c0,
            c1,
        ] = *bytes;
        Record {
            document: u32::from_le_bytes([d0, d1, d2, d3]),
            own: u64::from_le_bytes([o0, o1, o2, o3, o4, o5, o6, o7]),
            best,
            document_score: score,
            cold: u16::from_le_bytes([c0, c1]),
        }
    }

    /// Its impact bytes bound the document under [`IMPACT_PARAMS`]: it has a mask, and
    /// neither byte says "too large".
    #[inline(always)]
    pub fn bounded(&self) -> bool {
        self.cold & RECORD_MASK != 0 && self.best < u8::MAX && self.document_score < u8::MAX
    }

    /// Its impact bytes bound a document of more than [`MASK_PASSAGES`] passages, whose
    /// passages are a mask of several words ([`Summaries::wide`]).
    #[inline(always)]
    pub fn wide_bounded(&self) -> bool {
        self.cold & RECORD_WIDE != 0 && self.best < u8::MAX && self.document_score < u8::MAX
    }

    /// Some passage of the run holds the term in its text (`most[P_BODY] > 0`).
    #[inline(always)]
    pub fn in_body(&self) -> bool {
        self.cold & RECORD_BODY != 0
    }
}

/// Writes a term's document summary, one [`Summary`] per document its passage list
/// reaches, in document order: a count (u32), then a fixed-width [`Record`] per document
/// (document u32, `own` u64, `best`, `document_score`, `cold` u16, little-endian), then
/// per [`SUMMARY_BLOCK`] records where the block's cold entries start in the cold stream
/// and where its first run starts in the passage list (u32 each), then the cold stream.
/// A cold entry holds what a search reads only for a document it may score:
/// `(at less the block's at) << 1 | first is 0`, `first` unless 0, the largest frequencies
/// (one byte `heading | context << 2 | body << 4` when each fits (below 3, 3 and 15), else
/// `0xff` and three varints), and with a mask `any` (from the run's first passage, as the
/// mask) and one impact byte per bit of it. The multi-word masks of documents of more
/// than [`MASK_PASSAGES`] passages (u64 words) follow the cold stream: apart, so that they
/// do not push cold entries past what a record's offset can say.
#[derive(Debug, Default)]
pub struct SummaryWriter {
    records: Vec<u8>,
    blocks: Vec<u8>,
    cold: Vec<u8>,
    wide: Vec<u8>,
    /// Records that point into `wide`: their offsets become the cold stream's once its
    /// length is known.
    wide_records: Vec<usize>,
    count: u32,
    block_cold: usize,
    block_at: u32,
}

impl SummaryWriter {
    /// Append a document's entry (`summary.impacts` is not read; `impacts`, one per bit of
    /// `summary.any`, are written when it has a mask). `wide`: for a document of more than
    /// [`MASK_PASSAGES`] passages, its passage mask (bit `i` of word `i / 64`: passage
    /// `first_passage + i`), or empty; `summary.best` must then bound every passage.
    pub fn push(&mut self, summary: &Summary, impacts: &[u8], wide: &[u64]) {
        debug_assert!(wide.is_empty() || summary.own.is_none());
        debug_assert!(summary.own.is_none() || impacts.len() == summary.any.count_ones() as usize);
        if (self.count as usize).is_multiple_of(SUMMARY_BLOCK) {
            self.block_cold = self.cold.len();
            self.block_at = summary.at;
            self.blocks
                .extend_from_slice(&(self.block_cold as u32).to_le_bytes());
            self.blocks.extend_from_slice(&summary.at.to_le_bytes());
        }
        let offset = self.cold.len() - self.block_cold;
        debug_assert!(offset <= usize::from(RECORD_COLD));
        let at_first = summary.first == 0;
        write_varint(
            &mut self.cold,
            u64::from(summary.at - self.block_at) << 1 | u64::from(at_first),
        );
        if !at_first {
            write_varint(&mut self.cold, u64::from(summary.first));
        }
        let [heading, context, body] = summary.most;
        if heading < 3 && context < 3 && body < 15 {
            self.cold.push((heading | context << 2 | body << 4) as u8);
        } else {
            self.cold.push(0xff);
            for n in summary.most {
                write_varint(&mut self.cold, u64::from(n));
            }
        }
        if summary.own.is_some() {
            write_varint(&mut self.cold, summary.any >> summary.first.min(63));
            self.cold.extend_from_slice(impacts);
        }
        let cold = offset as u16 & RECORD_COLD
            | if summary.own.is_some() {
                RECORD_MASK
            } else {
                0
            }
            | if body > 0 { RECORD_BODY } else { 0 }
            | if wide.is_empty() { 0 } else { RECORD_WIDE };
        let own = if wide.is_empty() {
            summary.own.unwrap_or(0)
        } else {
            self.wide_records.push(self.records.len());
            let start = self.wide.len() as u64;
            for word in wide {
                self.wide.extend_from_slice(&word.to_le_bytes());
            }
            start | (wide.len() as u64) << 32
        };
        self.records
            .extend_from_slice(&summary.document.to_le_bytes());
        self.records.extend_from_slice(&own.to_le_bytes());
        self.records.push(summary.best);
        self.records.push(summary.document_score);
        self.records.extend_from_slice(&cold.to_le_bytes());
        self.count += 1;
    }

    /// The summary's bytes.
    pub fn finish(mut self) -> Vec<u8> {
        for &r in &self.wide_records {
            let own = &mut self.records[r + 4..r + 8];
            let start = u32::from_le_bytes(own.try_into().expect("4 bytes"));
            own.copy_from_slice(&(start + self.cold.len() as u32).to_le_bytes());
        }
        let mut out = Vec::with_capacity(
            4 + self.records.len() + self.blocks.len() + self.cold.len() + self.wide.len(),
        );
        out.extend_from_slice(&self.count.to_le_bytes());
        out.extend_from_slice(&self.records);
        out.extend_from_slice(&self.blocks);
        out.extend_from_slice(&self.cold);
        out.extend_from_slice(&self.wide);
        out
    }
}

/// A term's document summary, read in place ([`SummaryWriter`] has the layout).
#[derive(Debug, Clone, Copy)]
pub struct Summaries<'a> {
    records: &'a [[u8; RECORD_BYTES]],
    blocks: &'a [[u8; BLOCK_BYTES]],
    cold: &'a [u8],
}

impl<'a> Summaries<'a> {
    /// The summary in `data`, or `None` when its parts do not fit in it. (Only the lengths
    /// are checked: [`Summaries::validate`] checks the rest, once, where an archive is
    /// loaded; reading never panics either way.)
    pub fn new(data: &'a [u8]) -> Option<Self> {
        let (count, rest) = data.split_first_chunk::<4>()?;
        let count = u32::from_le_bytes(*count) as usize;
        let (records, rest) = rest.split_at_checked(count.checked_mul(RECORD_BYTES)?)?;
        let (blocks, cold) =
            rest.split_at_checked(count.div_ceil(SUMMARY_BLOCK).checked_mul(BLOCK_BYTES)?)?;
        Some(Summaries {
            records: records.as_chunks().0,
            blocks: blocks.as_chunks().0,
            cold,
        })
    }

    /// Documents summarised.
    pub fn len(&self) -> usize {
        self.records.len()
    }

    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// The fixed-width part of entry `i`.
    #[inline(always)]
    pub fn record(&self, i: usize) -> Option<Record> {
        self.records.get(i).map(Record::from_bytes)
    }

    /// The first record from `from` on whose document is `document` or later (a binary
    /// search: records are in document order); [`Summaries::len`] when there is none.
    pub fn seek(&self, from: usize, document: u32) -> usize {
        let from = from.min(self.records.len());
        from + self.records[from..].partition_point(|r| Record::from_bytes(r).document < document)
    }

    /// Block `b`'s start in the cold stream and in the passage list.
    fn block(&self, b: usize) -> Option<(usize, u32)> {
        let [c0, c1, c2, c3, a0, a1, a2, a3] = *self.blocks.get(b)?;
        Some((
            u32::from_le_bytes([c0, c1, c2, c3]) as usize,
            u32::from_le_bytes([a0, a1, a2, a3]),
        ))
    }

    /// Entry `i` whole: its record and its cold entry (`None` past the end, or where the
    /// bytes are damaged).
    pub fn summary(&self, i: usize) -> Option<Summary> {
        let record = self.record(i)?;
        let (block_cold, block_at) = self.block(i / SUMMARY_BLOCK)?;
        let data = self.cold;
        let mut at = block_cold.checked_add(usize::from(record.cold & RECORD_COLD))?;
        let header = read_varint(data, &mut at)?;
        let first = if header & 1 != 0 {
            0
        } else {
            read_varint(data, &mut at)? as u32
        };
        let byte = *data.get(at)?;
        at += 1;
        let most = if byte == 0xff {
            [
                read_varint(data, &mut at)? as u32,
                read_varint(data, &mut at)? as u32,
                read_varint(data, &mut at)? as u32,
            ]
        } else {
            let byte = u32::from(byte);
            [byte & 3, byte >> 2 & 3, byte >> 4]
        };
        let masked = record.cold & RECORD_MASK != 0;
        let (mut any, mut impacts) = (0, 0);
        if masked {
            any = read_varint(data, &mut at)?
                .checked_shl(first.min(63))
                .unwrap_or(0);
            impacts = u32::try_from(at).ok()?;
        }
        Some(Summary {
            document: record.document,
            at: block_at.wrapping_add((header >> 1) as u32),
            first,
            own: masked.then_some(record.own),
            most,
            any,
            impacts,
            best: record.best,
            document_score: record.document_score,
        })
    }

    /// The passage mask of a record with [`RECORD_WIDE`], as little-endian words; `None`
    /// without one, or when its words lie past the bytes.
    #[inline(always)]
    pub fn wide(&self, record: &Record) -> Option<&'a [[u8; 8]]> {
        if record.cold & RECORD_WIDE == 0 {
            return None;
        }
        let start = record.own as u32 as usize;
        let end = start.checked_add(((record.own >> 32) as usize).checked_mul(8)?)?;
        Some(self.cold.get(start..end)?.as_chunks().0)
    }

    /// The impacts of an entry [`Summaries::summary`] returned, one per bit of its `any`
    /// (empty without a mask, or when the data ends early).
    pub fn impacts(&self, summary: &Summary) -> &'a [u8] {
        let start = summary.impacts as usize;
        let n = summary.any.count_ones() as usize;
        if summary.own.is_none() {
            return &[];
        }
        self.cold.get(start..start + n).unwrap_or_default()
    }

    /// Check what a search relies on, for a summary of a passage list of `list_len`
    /// bytes: documents increasing, and each block's offsets and each record's cold entry
    /// within the bytes, block offsets never decreasing. (Damaged bytes that pass give
    /// wrong answers at worst, never a panic.)
    pub fn validate(&self, list_len: usize) -> Result<(), String> {
        let mut last: Option<u32> = None;
        let mut previous = (0usize, 0u32);
        for (b, records) in self.records.chunks(SUMMARY_BLOCK).enumerate() {
            let (cold, at) = self.block(b).ok_or("a block's offsets are missing")?;
            if cold < previous.0 || at < previous.1 {
                return Err(format!("block {b}'s offsets decrease"));
            }
            if cold > self.cold.len() || at as usize > list_len {
                return Err(format!("block {b}'s offsets lie past the bytes"));
            }
            previous = (cold, at);
            for bytes in records {
                let record = Record::from_bytes(bytes);
                if last.is_some_and(|l| l >= record.document) {
                    return Err(format!("documents do not increase at {}", record.document));
                }
                last = Some(record.document);
                if cold + usize::from(record.cold & RECORD_COLD) >= self.cold.len() {
                    return Err(format!(
                        "document {}'s cold entry lies past the bytes",
                        record.document
                    ));
                }
                if record.cold & RECORD_WIDE != 0 && self.wide(&record).is_none() {
                    return Err(format!(
                        "document {}'s passage mask lies past the bytes",
                        record.document
                    ));
                }
            }
        }
        Ok(())
    }
}

/// Decodes an occurrence block: positions, and byte offsets where the block stores them
/// (`offset` is 0 where it does not: the token table gives it, see
/// [`OccurrenceBlock::offsets`]).
#[derive(Debug, Clone)]
pub struct Occurrences<'a> {
    block: OccurrenceBlock<'a>,
    at: usize,
    last: Occurrence,
}

impl<'a> Occurrences<'a> {
    pub fn new(block: OccurrenceBlock<'a>) -> Self {
        Occurrences {
            block,
            at: 0,
            last: Occurrence::default(),
        }
    }
}

impl Iterator for Occurrences<'_> {
    type Item = Occurrence;

    #[inline]
    fn next(&mut self) -> Option<Occurrence> {
        let data = self.block.bytes;
        let dp = read_varint(data, &mut self.at)?;
        self.last.position = self.last.position.wrapping_add(dp as u32);
        if self.block.offsets {
            let db = read_varint(data, &mut self.at)?;
            self.last.offset = self.last.offset.wrapping_add(db as u32);
        }
        Some(self.last)
    }
}

// ---- token tables ----------------------------------------------------------------------

/// Where tokens are likely to start in a passage's text, for [`write_token_starts`] and
/// [`read_token_starts`]: at each byte of a word (an ASCII letter or digit, or any byte of
/// a character beyond ASCII) that follows a byte that is not. That agrees with the
/// analyzer (`crate::analyze`) on most tokens, so a table stores only where it does not:
/// the parts of `HashMap` (where the analyzer starts one more token), `Rust's` and `3.14`
/// (where it starts one fewer), long tokens and repeated starts.
///
/// Written by hand, eight bytes at a time: a snippet scans the passage it is cut from on
/// every hit, and the scan must be a pure function of the text that the compiler and the
/// server compute alike. Nothing else decides what a table stores, so a disagreement with
/// the analyzer costs bytes, never an answer.
struct Predictor<'t> {
    bytes: &'t [u8],
    /// The next eight bytes to scan, and whether the byte before them is a word's.
    at: usize,
    after_word: bool,
    /// Likely starts in the eight bytes at `base` not yet returned, one high bit per byte.
    pending: u64,
    base: usize,
    /// The likely start found last and not yet passed (`usize::MAX`: none is left).
    found: usize,
}

impl<'t> Predictor<'t> {
    fn new(text: &'t str) -> Self {
        let mut predictor = Predictor {
            bytes: text.as_bytes(),
            at: 0,
            after_word: false,
            pending: 0,
            base: 0,
            found: 0,
        };
        predictor.found = predictor.next_start().unwrap_or(usize::MAX);
        predictor
    }

    /// The first likely start after `last` (at or after 0 when there is none yet). Starts
    /// never decrease, so the scan only goes forward.
    #[inline]
    fn next_after(&mut self, last: Option<u32>) -> Option<u32> {
        let from = last.map_or(0, |l| l as usize + 1);
        while self.found < from {
            self.found = self.next_start().unwrap_or(usize::MAX);
        }
        u32::try_from(self.found).ok()
    }

    #[inline]
    fn next_start(&mut self) -> Option<usize> {
        const ONES: u64 = 0x0101_0101_0101_0101;
        const HIGH: u64 = 0x8080_8080_8080_8080;
        loop {
            if self.pending != 0 {
                let i = (self.pending.trailing_zeros() / 8) as usize;
                self.pending &= self.pending - 1;
                return Some(self.base + i);
            }
            let rest = self.bytes.get(self.at..).unwrap_or_default();
            let w = match rest.first_chunk::<8>() {
                Some(chunk) => u64::from_le_bytes(*chunk),
                None if rest.is_empty() => return None,
                None => {
                    // The last bytes padded with zeros, which are not a word's.
                    let mut chunk = [0u8; 8];
                    chunk[..rest.len()].copy_from_slice(rest);
                    u64::from_le_bytes(chunk)
                }
            };
            let low = w & !HIGH;
            // High bit of each byte whose low seven bits lie in `lo..=hi` (no carries
            // between bytes below 0x80).
            let within = |lo: u8, hi: u8| {
                (low + ONES * u64::from(0x80 - lo)) & !(low + ONES * u64::from(0x7f - hi)) & HIGH
            };
            let word = ((within(b'a', b'z') | within(b'A', b'Z') | within(b'0', b'9'))
                & !(w & HIGH))
                | (w & HIGH);
            self.pending = word & !((word << 8) | if self.after_word { 0x80 } else { 0 });
            self.after_word = word >> 63 != 0;
            self.base = self.at;
            self.at += 8;
        }
    }
}

/// Append a passage's token table: `starts[p]` is where the token at position `p` starts
/// in `text`, the passage's text (non-decreasing). Each token the [`Predictor`] places
/// right is counted in a run, and each other one stored: varints of the run's length and
/// the token's delta from the previous start, alternating, and a last run. Prose is a few
/// long runs; code, long tokens and repeated starts cost a delta each.
pub fn write_token_starts(out: &mut Vec<u8>, starts: &[u32], text: &str) {
    let mut predictor = Predictor::new(text);
    let mut run = 0u64;
    let mut last: Option<u32> = None;
    for &start in starts {
        if predictor.next_after(last) == Some(start) {
            run += 1;
        } else {
            write_varint(out, run);
            run = 0;
            write_varint(out, u64::from(start.saturating_sub(last.unwrap_or(0))));
        }
        last = Some(last.map_or(start, |l| l.max(start)));
    }
    write_varint(out, run);
}

/// Decode the first `count` entries of a token table written for `text` into `out`
/// (cleared first); stops early on damaged data or text.
pub fn read_token_starts(data: &[u8], count: usize, text: &str, out: &mut Vec<u32>) {
    out.clear();
    // A token holds a byte of the text at least: a damaged count cannot reserve more.
    out.reserve(count.min(text.len()));
    let mut predictor = Predictor::new(text);
    let mut at = 0usize;
    let mut last: Option<u32> = None;
    while out.len() < count {
        let Some(run) = read_varint(data, &mut at) else {
            return;
        };
        for _ in 0..run.min((count - out.len()) as u64) {
            let Some(start) = predictor.next_after(last) else {
                return;
            };
            out.push(start);
            last = Some(start);
        }
        if out.len() == count {
            return;
        }
        let Some(delta) = read_varint(data, &mut at) else {
            return;
        };
        let start = last.unwrap_or(0).wrapping_add(delta as u32);
        out.push(start);
        last = Some(last.map_or(start, |l| l.max(start)));
    }
}

// ---- the dictionary ----------------------------------------------------------------------

/// Terms per dictionary block: a lookup binary-searches the blocks' first terms, then reads
/// at most this many terms.
pub const TERM_BLOCK: usize = 16;

/// A dictionary entry, decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TermEntry {
    /// Passages and documents containing the term in any field.
    pub passage_df: u32,
    pub document_df: u32,
    /// Byte ranges of the postings.
    pub passage_postings: Range<usize>,
    pub document_postings: Range<usize>,
    /// The document summary (empty when the term has none).
    pub summaries: Range<usize>,
}

/// Writes the dictionary, one term at a time in sorted order, with each term's lists.
#[derive(Default)]
pub struct DictionaryWriter {
    pub dictionary: Vec<u8>,
    pub postings: Vec<u8>,
    /// Per block: where it starts in `dictionary`, where its first term's lists start in
    /// `postings`.
    pub blocks: Vec<(u32, u32)>,
    pub count: u32,
    previous: Vec<u8>,
}

impl DictionaryWriter {
    pub fn push(
        &mut self,
        term: &str,
        passage_df: u32,
        document_df: u32,
        passage_list: &[u8],
        document_list: &[u8],
        summary: &[u8],
    ) {
        let term = term.as_bytes();
        let shared = if (self.count as usize).is_multiple_of(TERM_BLOCK) {
            self.blocks
                .push((self.dictionary.len() as u32, self.postings.len() as u32));
            0
        } else {
            term.iter()
                .zip(&self.previous)
                .take_while(|(a, b)| a == b)
                .count()
        };
        let suffix = term.len() - shared;
        // One byte for both lengths when both are short, as they mostly are.
        if shared < SHORT && suffix < SHORT {
            self.dictionary.push((shared as u8) << 4 | suffix as u8);
        } else {
            self.dictionary.push(0xff);
            write_varint(&mut self.dictionary, shared as u64);
            write_varint(&mut self.dictionary, suffix as u64);
        }
        self.dictionary.extend_from_slice(&term[shared..]);
        write_varint(
            &mut self.dictionary,
            u64::from(passage_df) << 1 | u64::from(!summary.is_empty()),
        );
        // Most terms have no document entries (their title, name or description lacks
        // them): a 0 then stands for the list's length too.
        if document_list.is_empty() {
            write_varint(&mut self.dictionary, u64::from(document_df) << 1);
        } else {
            write_varint(&mut self.dictionary, u64::from(document_df) << 1 | 1);
            write_varint(&mut self.dictionary, document_list.len() as u64);
        }
        if !summary.is_empty() {
            write_varint(&mut self.dictionary, summary.len() as u64);
        }
        write_varint(&mut self.dictionary, passage_list.len() as u64);
        self.postings.extend_from_slice(passage_list);
        self.postings.extend_from_slice(document_list);
        self.postings.extend_from_slice(summary);
        self.previous.clear();
        self.previous.extend_from_slice(term);
        self.count += 1;
    }
}

/// Reads one block of the dictionary, term by term.
pub struct BlockReader<'a> {
    data: &'a [u8],
    at: usize,
    postings: usize,
    left: usize,
    term: Vec<u8>,
}

impl<'a> BlockReader<'a> {
    /// Block `i` of a dictionary with `blocks` as [`DictionaryWriter::blocks`] says, and
    /// `count` terms in all.
    pub fn new(dictionary: &'a [u8], start: usize, postings: usize, left: usize) -> Self {
        BlockReader {
            data: dictionary,
            at: start,
            postings,
            left: left.min(TERM_BLOCK),
            term: Vec::new(),
        }
    }

    /// The next term of the block and its entry (`term()` gives its text).
    pub fn next_entry(&mut self) -> Option<TermEntry> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let (shared, suffix) = read_lengths(self.data, &mut self.at)?;
        let bytes = self.data.get(self.at..self.at.checked_add(suffix)?)?;
        self.at += suffix;
        self.term.truncate(shared.min(self.term.len()));
        self.term.extend_from_slice(bytes);
        let passage = read_varint(self.data, &mut self.at)?;
        let passage_df = (passage >> 1) as u32;
        let document = read_varint(self.data, &mut self.at)?;
        let document_df = (document >> 1) as u32;
        let document_len = if document & 1 == 1 {
            read_varint(self.data, &mut self.at)? as usize
        } else {
            0
        };
        let summary_len = if passage & 1 == 1 {
            read_varint(self.data, &mut self.at)? as usize
        } else {
            0
        };
        let passage_len = read_varint(self.data, &mut self.at)? as usize;
        let passage_postings = self.postings..self.postings.checked_add(passage_len)?;
        let document_postings =
            passage_postings.end..passage_postings.end.checked_add(document_len)?;
        let summaries = document_postings.end..document_postings.end.checked_add(summary_len)?;
        self.postings = summaries.end;
        Some(TermEntry {
            passage_df,
            document_df,
            passage_postings,
            document_postings,
            summaries,
        })
    }

    /// The text of the term [`BlockReader::next_entry`] last returned (bytes of UTF-8
    /// text, checked where it matters).
    pub fn term(&self) -> &[u8] {
        &self.term
    }
}

/// Shared prefix and suffix lengths below this fit in one byte together (a nibble each).
const SHORT: usize = 15;

/// A dictionary entry's shared prefix and suffix lengths: one byte, or `0xff` and two
/// varints.
fn read_lengths(data: &[u8], at: &mut usize) -> Option<(usize, usize)> {
    let byte = *data.get(*at)?;
    *at += 1;
    if byte != 0xff {
        return Some(((byte >> 4) as usize, (byte & 15) as usize));
    }
    let shared = read_varint(data, at)? as usize;
    let suffix = read_varint(data, at)? as usize;
    Some((shared, suffix))
}

/// The first term of a block, without decoding the rest.
pub fn first_term(dictionary: &[u8], start: usize) -> Option<&[u8]> {
    let mut at = start;
    let (_shared, len) = read_lengths(dictionary, &mut at)?;
    dictionary.get(at..at.checked_add(len)?)
}

/// Look a term up: binary search of the blocks' first terms, then a walk through one
/// block. `blocks` as [`DictionaryWriter::blocks`] (dictionary offset, postings offset).
pub fn find(
    dictionary: &[u8],
    blocks: &[(u32, u32)],
    count: u32,
    term: &[u8],
) -> Option<TermEntry> {
    find_with(dictionary, blocks.len(), |i| blocks[i], count, term)
}

/// [`find`] over blocks given by index (the archived block table is not a slice of
/// tuples).
pub fn find_with(
    dictionary: &[u8],
    block_count: usize,
    block: impl Fn(usize) -> (u32, u32),
    count: u32,
    term: &[u8],
) -> Option<TermEntry> {
    // The last block whose first term is at most `term`.
    let (mut lo, mut hi) = (0usize, block_count);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        match first_term(dictionary, block(mid).0 as usize) {
            Some(first) if first <= term => lo = mid + 1,
            _ => hi = mid,
        }
    }
    let i = lo.checked_sub(1)?;
    let (start, postings) = block(i);
    let left = (count as usize).saturating_sub(i * TERM_BLOCK);
    let mut reader = BlockReader::new(dictionary, start as usize, postings as usize, left);
    while let Some(entry) = reader.next_entry() {
        match reader.term().cmp(term) {
            std::cmp::Ordering::Equal => return Some(entry),
            std::cmp::Ordering::Greater => return None,
            std::cmp::Ordering::Less => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passage_entries_round_trip_with_offsets_only_where_the_table_differs() {
        let table = [0, 4, 9, 15];
        let at_tokens = [
            Occurrence {
                position: 1,
                offset: 4,
            },
            Occurrence {
                position: 3,
                offset: 15,
            },
        ];
        let elsewhere = [Occurrence {
            position: 2,
            offset: 7,
        }];
        let mut out = Vec::new();
        write_passage_entry(&mut out, 5, &[1, 0, 2], &at_tokens, &table);
        write_passage_entry(&mut out, 200, &[0, 1, 0], &[], &table);
        write_passage_entry(&mut out, 1, &[0, 0, 1], &elsewhere, &table);
        let entries: Vec<_> = PassageCursor::new(&out).collect();
        assert_eq!(entries.len(), 3);
        assert_eq!((entries[0].passage, entries[0].tf), (5, [1, 0, 2]));
        assert!(!entries[0].occurrences.offsets);
        let positions: Vec<u32> = Occurrences::new(entries[0].occurrences)
            .map(|o| o.position)
            .collect();
        assert_eq!(positions, [1, 3]);
        assert_eq!((entries[1].passage, entries[1].tf), (205, [0, 1, 0]));
        assert!(entries[1].occurrences.is_empty());
        assert_eq!(entries[2].passage, 206);
        assert!(entries[2].occurrences.offsets);
        assert_eq!(
            Occurrences::new(entries[2].occurrences).collect::<Vec<_>>(),
            elsewhere
        );
    }

    /// Summaries of many documents, over several blocks: some without a mask, some with
    /// wide frequencies, a first passage past 0, every impact byte.
    fn sample_summaries() -> Vec<(Summary, Vec<u8>)> {
        (0..200u32)
            .map(|i| {
                let masked = i % 7 != 3;
                let first = if i % 5 == 0 { i % 60 } else { 0 };
                let any = if masked {
                    (u64::MAX >> (i % 64)) << first.min(63)
                } else {
                    0
                };
                let impacts: Vec<u8> = (0..any.count_ones()).map(|k| (k * 7 + i) as u8).collect();
                let summary = Summary {
                    document: i * 3 + i % 2,
                    at: i * 1000 + i * i,
                    first,
                    own: masked.then_some(any & 0x5555_5555_5555_5555),
                    most: if i % 11 == 0 {
                        [3, 0, 200]
                    } else {
                        [i % 3, 0, i % 15]
                    },
                    any,
                    impacts: 0,
                    best: impacts.iter().copied().max().unwrap_or(0),
                    document_score: (i % 256) as u8,
                };
                (summary, impacts)
            })
            .collect()
    }

    /// The multi-word mask of sample entry `i`: some of those without a one-word mask.
    fn sample_wide(i: usize, summary: &Summary) -> Vec<u64> {
        if summary.own.is_some() || i.is_multiple_of(2) {
            return Vec::new();
        }
        (0..i % 4 + 2)
            .map(|k| (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> k)
            .collect()
    }

    fn write_summaries(all: &[(Summary, Vec<u8>)]) -> Vec<u8> {
        let mut writer = SummaryWriter::default();
        for (i, (summary, impacts)) in all.iter().enumerate() {
            writer.push(summary, impacts, &sample_wide(i, summary));
        }
        writer.finish()
    }

    #[test]
    fn summaries_round_trip_record_by_record_and_validate() {
        let all = sample_summaries();
        let bytes = write_summaries(&all);
        let summaries = Summaries::new(&bytes).expect("a summary");
        assert_eq!(summaries.len(), all.len());
        summaries.validate(1 << 30).expect("valid");
        // The fixed part: a count, then 16 bytes per record, then 8 per block of 64.
        assert_eq!(&bytes[..4], &200u32.to_le_bytes());
        assert_eq!(
            &bytes[4 + 16 * 65..4 + 16 * 65 + 4],
            &all[65].0.document.to_le_bytes()
        );
        let blocks = 4 + 16 * 200;
        assert_eq!(
            &bytes[blocks + 12..blocks + 16],
            &all[64].0.at.to_le_bytes()
        );
        for (i, (summary, impacts)) in all.iter().enumerate() {
            let record = summaries.record(i).expect("a record");
            assert_eq!(record.document, summary.document);
            let wide = sample_wide(i, summary);
            let read: Vec<u64> = summaries
                .wide(&record)
                .unwrap_or_default()
                .iter()
                .map(|w| u64::from_le_bytes(*w))
                .collect();
            assert_eq!(read, wide, "entry {i}");
            assert_eq!(
                record.wide_bounded(),
                !wide.is_empty() && summary.best < 255 && summary.document_score < 255
            );
            if wide.is_empty() {
                assert_eq!(record.own, summary.own.unwrap_or(0));
            }
            assert_eq!(record.in_body(), summary.most[P_BODY] > 0);
            assert_eq!(
                record.bounded(),
                summary.own.is_some() && summary.best < 255 && summary.document_score < 255
            );
            let read = summaries.summary(i).expect("an entry");
            assert_eq!(Summary { impacts: 0, ..read }, *summary, "entry {i}");
            assert_eq!(summaries.impacts(&read), impacts.as_slice(), "entry {i}");
        }
        assert_eq!(summaries.record(all.len()), None);
        assert_eq!(summaries.summary(all.len()), None);
        // Seeking a document finds its record, or the next one's, from any earlier record.
        for (i, (summary, _)) in all.iter().enumerate() {
            assert_eq!(summaries.seek(0, summary.document), i);
            assert_eq!(summaries.seek(i / 2, summary.document), i);
            assert_eq!(summaries.seek(i, 0), i, "never back");
            let next = all.get(i + 1).map_or(u32::MAX, |s| s.0.document);
            if summary.document + 1 < next {
                assert_eq!(summaries.seek(0, summary.document + 1), i + 1);
            }
        }
        assert_eq!(summaries.seek(0, u32::MAX), all.len());
        assert_eq!(summaries.seek(all.len() + 5, 0), all.len(), "past the end");
        // Cut short, the parts no longer fit; a cold stream cut short fails validation.
        for cut in 0..blocks + 200 * 8 / 64 {
            assert!(Summaries::new(&bytes[..cut]).is_none(), "cut at {cut}");
        }
        let cold = blocks + 4 * 8;
        let cut = Summaries::new(&bytes[..cold + 10]).expect("the fixed part");
        assert!(cut.validate(1 << 30).is_err());
        assert!(summaries.validate(1000).is_err(), "runs past the list");
        // Documents out of order, and a block's offset past the cold stream.
        let mut swapped = bytes.clone();
        swapped[4 + 16..4 + 20].copy_from_slice(&0u32.to_le_bytes());
        assert!(
            Summaries::new(&swapped)
                .expect("fits")
                .validate(1 << 30)
                .is_err()
        );
        let mut far = bytes.clone();
        far[blocks + 8..blocks + 12].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(
            Summaries::new(&far)
                .expect("fits")
                .validate(1 << 30)
                .is_err()
        );
        // A multi-word mask past the bytes, or longer than they hold.
        let wide = (0..all.len())
            .find(|&i| !sample_wide(i, &all[i].0).is_empty())
            .expect("a sample with a multi-word mask");
        for own in [u64::from(u32::MAX) | 2 << 32, 4 | u64::from(u32::MAX) << 32] {
            let mut damaged = bytes.clone();
            damaged[4 + 16 * wide + 4..4 + 16 * wide + 12].copy_from_slice(&own.to_le_bytes());
            let damaged = Summaries::new(&damaged).expect("fits");
            assert!(damaged.validate(1 << 30).is_err());
            let record = damaged.record(wide).expect("a record");
            assert_eq!(damaged.wide(&record), None);
        }
    }

    #[test]
    fn passage_lists_resume_mid_list() {
        // A passage list read from its middle gives the entries a walk from the start does.
        let mut list = Vec::new();
        let mut starts = Vec::new();
        let mut previous = 0;
        for p in [4u32, 9, 10, 300, 301, 5000] {
            starts.push(list.len());
            write_passage_entry(&mut list, p - previous, &[0, 1, 0], &[], &[]);
            previous = p;
        }
        let all: Vec<u32> = PassageCursor::new(&list).map(|e| e.passage).collect();
        for (i, &at) in starts.iter().enumerate() {
            let resumed: Vec<u32> = PassageCursor::resume(&list, at, all[i])
                .map(|e| e.passage)
                .collect();
            assert_eq!(resumed, all[i..]);
        }
    }

    #[test]
    fn document_entries_round_trip() {
        let mut out = Vec::new();
        write_document_entry(&mut out, 7, &[0, 0, 0, 0, 3]);
        write_document_entry(&mut out, 1, &[1, 2, 0, 4, 500]);
        let entries: Vec<_> = DocumentCursor::new(&out).collect();
        assert_eq!((entries[0].document, entries[0].tf), (7, [0, 0, 0, 0, 3]));
        assert_eq!((entries[1].document, entries[1].tf), (8, [1, 2, 0, 4, 500]));
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
        let mut passages = Vec::new();
        let o = [Occurrence {
            position: 3,
            offset: 99,
        }];
        write_passage_entry(&mut passages, 1, &[0, 0, 1], &o, &[0, 1, 2, 3]);
        write_passage_entry(&mut passages, 1, &[0, 0, 1], &o, &[0, 1, 2, 3]);
        for cut in 0..passages.len() {
            assert!(PassageCursor::new(&passages[..cut]).count() <= 1);
        }
        assert_eq!(read_varint(&[0xff; 12], &mut 0), None);
        let mut starts = Vec::new();
        read_token_starts(&[0xff, 0x0f], 10, "some text here", &mut starts);
        assert!(starts.len() < 10);
    }

    /// The analyzer's token table of `text`, as the compiler builds it.
    fn table(text: &str) -> Vec<u32> {
        let mut table = Vec::new();
        crate::analyze::Analyzer::new().analyze(text, 0, |t| {
            crate::analyze::record_token_start(&mut table, &t);
        });
        table
    }

    #[test]
    fn token_tables_round_trip_and_store_only_what_the_text_does_not_give() {
        let prose = "Ownership is Rust's most unique feature, and it enables Rust to make \
                     memory safety guarantees without needing a garbage collector. Version 3.14 \
                     is out; e.g. the naïve café.";
        let code = "let map: HashMap<String, Vec<u8>> = read_to_string(\"a.txt\")?; \
                    HTTPServer::new(__init__, x.len()) -> ! // ok";
        let long = format!("short {} word again", "x".repeat(60));
        for text in [
            prose,
            code,
            long.as_str(),
            "",
            "   ",
            "_lead ’quoted’ don't",
        ] {
            let starts = table(text);
            let mut out = vec![0xaa];
            write_token_starts(&mut out, &starts, text);
            let mut back = Vec::new();
            read_token_starts(&out[1..], starts.len(), text, &mut back);
            assert_eq!(back, starts, "{text:?}");
            for n in 0..starts.len() {
                read_token_starts(&out[1..], n, text, &mut back);
                assert_eq!(back, starts[..n], "first {n} of {text:?}");
            }
            for cut in 1..out.len() {
                read_token_starts(&out[1..cut], starts.len(), text, &mut back);
                assert_eq!(back, starts[..back.len()], "cut at {cut} of {text:?}");
            }
        }
        // Plain prose is one run: the table is its length alone.
        let plain = "Ownership is the most unique feature of this language, and it enables \
                     memory safety guarantees without needing a garbage collector.";
        let mut out = Vec::new();
        write_token_starts(&mut out, &table(plain), plain);
        assert_eq!(out.len(), 1, "{out:?}");
        // Tables written for other text decode to something else, without panicking.
        let starts = table(code);
        let mut out = Vec::new();
        write_token_starts(&mut out, &starts, code);
        let mut back = Vec::new();
        read_token_starts(&out, starts.len(), prose, &mut back);
        assert_ne!(back, starts);
        read_token_starts(&out, starts.len(), "", &mut back);
        assert!(back.len() < starts.len());
    }

    #[test]
    fn skipping_varints_eight_bytes_at_a_time_lands_where_one_at_a_time_does() {
        let mut data = Vec::new();
        for i in 0..300u64 {
            write_varint(
                &mut data,
                (i * 7919) % [1, 200, 20_000, 3_000_000][i as usize % 4],
            );
        }
        for n in 0..=301 {
            let mut at = 0;
            let mut expected = Some(0);
            for _ in 0..n {
                expected = read_varint(&data, &mut at).map(|_| at);
                if expected.is_none() {
                    break;
                }
            }
            assert_eq!(skip_varints(&data, 0, n), expected, "{n} varints");
        }
    }

    #[test]
    fn the_dictionary_finds_every_term_and_its_lists() {
        let mut terms: Vec<String> = (0..100).map(|i| format!("term{i:03}")).collect();
        terms.push("a".into());
        terms.push("ab".into());
        // Lengths past a nibble: a long shared prefix, a long suffix.
        terms.push("an_identifier_of_some_length".into());
        terms.push("an_identifier_of_some_length_and_more".into());
        terms.push("an_identifier_of_some_lengthy_suffix_that_goes_on".into());
        terms.sort();
        let mut writer = DictionaryWriter::default();
        for (i, t) in terms.iter().enumerate() {
            let lists = vec![i as u8; i % 5 + 1];
            let summary = if i % 3 == 0 {
                &lists[..lists.len().min(2)]
            } else {
                &[][..]
            };
            writer.push(t, i as u32, i as u32 / 2, &lists, &lists[1..], summary);
        }
        let mut at = 0usize;
        for (i, t) in terms.iter().enumerate() {
            let entry = find(
                &writer.dictionary,
                &writer.blocks,
                writer.count,
                t.as_bytes(),
            )
            .unwrap_or_else(|| panic!("{t}"));
            assert_eq!(entry.passage_df, i as u32);
            assert_eq!(entry.document_df, i as u32 / 2);
            assert_eq!(entry.passage_postings, at..at + i % 5 + 1);
            assert_eq!(entry.document_postings.len(), i % 5);
            assert_eq!(entry.document_postings.end, entry.summaries.start);
            assert_eq!(
                entry.summaries.len(),
                if i % 3 == 0 { (i % 5 + 1).min(2) } else { 0 }
            );
            at = entry.summaries.end;
        }
        for missing in ["", "b", "term", "term1000", "zz", "aa"] {
            assert_eq!(
                find(
                    &writer.dictionary,
                    &writer.blocks,
                    writer.count,
                    missing.as_bytes()
                ),
                None,
                "{missing}"
            );
        }
    }
}
