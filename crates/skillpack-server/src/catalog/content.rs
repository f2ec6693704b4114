//! Reading the content store ([`ContentStore`](crate::model::ContentStore)) at run time.
//!
//! A read decodes exactly the frames that hold the bytes it serves (a chunk is one frame, a
//! section the frames it spans, a document all of its own), in memory, into the buffer it
//! answers with: nothing is decompressed at start-up, nothing is written anywhere, and a
//! request never holds more than what it serves. Frames stored as is are served from the
//! binary's own pages without a copy.
//!
//! Every frame decodes on its own. Each thread keeps one zstd decoding context and, made on
//! the first read that needs it (a few microseconds, once), a copy of the dictionary most
//! text frames need, digested in place with room for a frame's output right after it
//! ([`super::decoder`]).
//!
//! Decoded frames are kept in a cache bounded by bytes ([`set_cache_bytes`]; `serve
//! --cache-mib`), as a database keeps a block cache: decoding costs about a microsecond
//! per kilobyte, and what agents read once they tend to read again (a skill's SKILL.md, a
//! search's first hit, the same section across sessions of an HTTP deployment). A read
//! served from it costs a copy; start-up creates nothing of it.
//!
//! A frame that fails to decode (only a damaged binary has one: every frame was decoded
//! back when `skillpack info` validated the build) is a [`Damaged`] error, never a panic.

use std::borrow::Cow;
use std::cell::RefCell;
use std::ops::{Deref, Range};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use zstd::zstd_safe::DCtx;

use super::decoder::PrefixDecoder;

use crate::model::{ArchivedContentStore, ArchivedStored, Codec};
use crate::tables::DocumentTables;

/// The content store of one catalog: the blob, its frame table and the decoding state.
#[derive(Clone, Copy)]
pub struct Content<'a> {
    blob: &'a [u8],
    store: &'a ArchivedContentStore,
    dictionary: &'a Dictionary,
}

/// One catalog's decoding state, made on first use: its identity for the threads'
/// decoders and the caches of decoded frames and tables. One per catalog: `baked!`
/// declares it as a `static`, [`super::Catalog::from_compiled`] leaks one.
#[derive(Default)]
pub struct Dictionary {
    identity: OnceLock<u64>,
    /// Set when zstd refused the store's dictionary (a damaged binary): later reads answer
    /// at once, rather than each copying and digesting it again to be refused again.
    refused: AtomicBool,
    cache: OnceLock<Option<FrameCache>>,
    tables: OnceLock<Option<TablesCache>>,
}

impl Dictionary {
    pub const fn new() -> Dictionary {
        Dictionary {
            identity: OnceLock::new(),
            refused: AtomicBool::new(false),
            cache: OnceLock::new(),
            tables: OnceLock::new(),
        }
    }

    /// A number no other `Dictionary` of this process has: what a thread's decoder is
    /// made for (an address could be reused by a catalog made after this one is dropped).
    fn identity(&self) -> u64 {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        *self
            .identity
            .get_or_init(|| NEXT.fetch_add(1, Ordering::Relaxed))
    }
}

type FrameCache = quick_cache::sync::Cache<u32, Arc<[u8]>, ByLength>;
type TablesCache = quick_cache::sync::Cache<u32, Arc<DocumentTables>, ByHeapSize>;

/// Weighs decoded tables by the memory they hold.
#[derive(Clone)]
struct ByHeapSize;

impl quick_cache::Weighter<u32, Arc<DocumentTables>> for ByHeapSize {
    fn weight(&self, _document: &u32, tables: &Arc<DocumentTables>) -> u64 {
        tables.heap_size().max(1) as u64
    }
}

/// The share of the cache bound that decoded tables may hold (the rest is frames): a
/// document's tables decode to about a tenth of its text.
const TABLES_SHARE: u64 = 4;

/// Weighs a decoded frame by its length.
#[derive(Clone)]
struct ByLength;

impl quick_cache::Weighter<u32, Arc<[u8]>> for ByLength {
    fn weight(&self, _frame: &u32, bytes: &Arc<[u8]>) -> u64 {
        bytes.len().max(1) as u64
    }
}

/// The default bound of the frame cache: the served bytes of a large catalog's hot part
/// (64 MiB holds every document of a 10,000-document catalog of 5 KiB pages).
pub const DEFAULT_CACHE_BYTES: u64 = 64 * 1024 * 1024;

static CACHE_BYTES: AtomicU64 = AtomicU64::new(DEFAULT_CACHE_BYTES);

/// Frame-cache lookups that found the frame decoded already, and those that decoded it
/// (`serve --metrics` exports both). Process-wide like the bound; a relaxed add costs a
/// few nanoseconds against the microseconds of a read.
static FRAME_HITS: AtomicU64 = AtomicU64::new(0);
static FRAME_MISSES: AtomicU64 = AtomicU64::new(0);

/// Frame-cache hits and misses since start (`(hits, misses)`), for the metrics endpoint.
pub fn frame_cache_counts() -> (u64, u64) {
    (
        FRAME_HITS.load(Ordering::Relaxed),
        FRAME_MISSES.load(Ordering::Relaxed),
    )
}

/// Shards of the frame cache: enough for the few threads `serve --http` runs on.
const CACHE_SHARDS: usize = 8;

/// Bound the caches of every catalog read from now on (0: no cache, every read decodes):
/// decoded frames, and decoded document tables within a quarter of it. Set once, before
/// serving: a cache already made keeps its bound.
pub fn set_cache_bytes(bytes: u64) {
    CACHE_BYTES.store(bytes, Ordering::Relaxed);
}

/// A decoded frame: borrowed from the binary (stored as is) or shared with the cache.
pub enum Frame<'a> {
    Borrowed(&'a [u8]),
    Shared(Arc<[u8]>),
}

impl Deref for Frame<'_> {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            Frame::Borrowed(bytes) => bytes,
            Frame::Shared(bytes) => bytes,
        }
    }
}

/// Text in place ([`Content::view`]): a range of a decoded frame, or a copy when the range
/// spans frames.
pub struct View<'a> {
    frame: Option<Frame<'a>>,
    range: Range<usize>,
    owned: String,
}

impl Deref for View<'_> {
    type Target = str;

    fn deref(&self) -> &str {
        match &self.frame {
            // SAFETY: `Content::view` checked these bytes to be UTF-8, and neither the
            // frame (immutable, shared or borrowed) nor the range changes after that.
            Some(frame) => unsafe { std::str::from_utf8_unchecked(&frame[self.range.clone()]) },
            None => &self.owned,
        }
    }
}

/// A frame that does not decode: the binary is damaged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Damaged {
    pub frame: u32,
    pub reason: String,
}

impl std::fmt::Display for Damaged {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "content frame {} is damaged ({}): this binary is corrupt; rebuild it or fetch \
             the release again (`skillpack info` validates every frame)",
            self.frame, self.reason
        )
    }
}

impl std::error::Error for Damaged {}

thread_local! {
    /// One decoding context per thread (stdio serves on one, HTTP on a few workers): a
    /// context owns tens of KiB of tables that are better made once than per read. For
    /// frames without the dictionary.
    static CONTEXT: RefCell<Option<DCtx<'static>>> = const { RefCell::new(None) };
    /// And a decoder for frames with it per catalog read on this thread (a server reads
    /// one), kept as long as the thread ([`super::decoder`] says why).
    static DECODERS: RefCell<Vec<PrefixDecoder>> = const { RefCell::new(Vec::new()) };
}

impl<'a> Content<'a> {
    /// `dictionary` must belong to this store alone: it keeps the store's dictionary.
    pub fn new(
        blob: &'a [u8],
        store: &'a ArchivedContentStore,
        dictionary: &'a Dictionary,
    ) -> Self {
        Content {
            blob,
            store,
            dictionary,
        }
    }

    /// The blob's bytes (what the binary bakes as content).
    pub fn blob(&self) -> &'a [u8] {
        self.blob
    }

    pub fn frame_count(&self) -> usize {
        self.store.frames.len()
    }

    /// `range` of a stored file's bytes (clamped to its length), decoding only the frames
    /// it spans.
    pub fn read(
        &self,
        stored: &ArchivedStored,
        range: Range<usize>,
    ) -> Result<Cow<'a, [u8]>, Damaged> {
        let len = stored.len.to_native() as usize;
        let end = range.end.min(len);
        let start = range.start.min(end);
        if start == end {
            return Ok(Cow::Borrowed(&[]));
        }
        // From here on, offsets into the concatenated frames.
        let base = stored.offset.to_native() as usize;
        let (start, end) = (base + start, base + end);
        let first = stored.first_frame.to_native();
        let count = stored.frame_count.to_native();
        let mut at = 0usize;
        let mut out: Option<Vec<u8>> = None;
        for f in first..first.saturating_add(count) {
            let (frame_start, frame_end) = (at, at + self.frame_len(f)?);
            at = frame_end;
            if frame_end <= start {
                continue;
            }
            if frame_start >= end {
                break;
            }
            let bytes = self.frame(f)?;
            let from = start.saturating_sub(frame_start);
            let to = end.min(frame_end) - frame_start;
            // The whole range in this one frame: no concatenation.
            if out.is_none() && frame_end >= end {
                return Ok(match bytes {
                    Frame::Borrowed(b) => Cow::Borrowed(&b[from..to]),
                    Frame::Shared(b) => Cow::Owned(b[from..to].to_vec()),
                });
            }
            out.get_or_insert_with(|| Vec::with_capacity(end - start))
                .extend_from_slice(&bytes[from..to]);
        }
        Ok(Cow::Owned(out.unwrap_or_default()))
    }

    /// `range` of a stored file's text without copying it when it lies in one frame (the
    /// frame is held, borrowed from the binary or shared with the cache), else assembled
    /// as [`Content::read`] does: for a reader that only looks at the text (a search hit's
    /// snippet).
    pub fn view(&self, stored: &ArchivedStored, range: Range<usize>) -> Result<View<'a>, Damaged> {
        let len = stored.len.to_native() as usize;
        let end = range.end.min(len);
        let start = range.start.min(end);
        let base = stored.offset.to_native() as usize;
        let (start, end) = (base + start, base + end);
        let first = stored.first_frame.to_native();
        let count = stored.frame_count.to_native();
        let mut at = 0usize;
        for f in first..first.saturating_add(count) {
            let frame_end = at + self.frame_len(f)?;
            if start >= at && end <= frame_end && start < end {
                let frame = self.frame(f)?;
                let bytes = frame
                    .get(start - at..end - at)
                    .ok_or_else(|| damaged(f, "shorter than its length"))?;
                std::str::from_utf8(bytes).map_err(|_| not_utf8(f))?;
                return Ok(View {
                    frame: Some(frame),
                    range: start - at..end - at,
                    owned: String::new(),
                });
            }
            at = frame_end;
        }
        Ok(View {
            frame: None,
            range: 0..0,
            owned: self.text(stored, start - base..end - base)?.into_owned(),
        })
    }

    /// [`Content::read`] as text. Documents are UTF-8 (checked at build time) and ranges
    /// fall on character boundaries (chunks, sections, passages); anything else is damage.
    pub fn text(
        &self,
        stored: &ArchivedStored,
        range: Range<usize>,
    ) -> Result<Cow<'a, str>, Damaged> {
        let first = stored.first_frame.to_native();
        match self.read(stored, range)? {
            Cow::Borrowed(bytes) => std::str::from_utf8(bytes)
                .map(Cow::Borrowed)
                .map_err(|_| not_utf8(first)),
            Cow::Owned(bytes) => String::from_utf8(bytes)
                .map(Cow::Owned)
                .map_err(|_| not_utf8(first)),
        }
    }

    /// The document tables ([`crate::tables`]) that end `stored`'s last frame, `len` bytes
    /// long, decoded through the tables cache under the key `document`.
    pub fn tables(
        &self,
        document: u32,
        stored: &ArchivedStored,
        len: usize,
    ) -> Result<Arc<DocumentTables>, Damaged> {
        let cache = self.dictionary.tables.get_or_init(|| {
            let bytes = CACHE_BYTES.load(Ordering::Relaxed) / TABLES_SHARE;
            new_cache(bytes, 2048, ByHeapSize)
        });
        if let Some(hit) = cache.as_ref().and_then(|c| c.get(&document)) {
            return Ok(hit);
        }
        let count = stored.frame_count.to_native();
        let Some(last) = (stored.first_frame.to_native() + count)
            .checked_sub(1)
            .filter(|_| count > 0)
        else {
            return Err(damaged(
                stored.first_frame.to_native(),
                "a document without frames",
            ));
        };
        let frame = self.frame(last)?;
        let bytes = frame
            .len()
            .checked_sub(len)
            .and_then(|start| frame.get(start..))
            .ok_or_else(|| damaged(last, "shorter than the document's tables"))?;
        let text_len = stored.len.to_native();
        let tables = crate::tables::decode(bytes, text_len)
            .map(Arc::new)
            .map_err(|malformed| damaged(last, &malformed.to_string()))?;
        if let Some(cache) = cache {
            cache.insert(document, tables.clone());
        }
        Ok(tables)
    }

    /// The decoded length of frame `f`.
    fn frame_len(&self, f: u32) -> Result<usize, Damaged> {
        self.store
            .frames
            .get(f as usize)
            .map(|frame| frame.len.to_native() as usize)
            .ok_or_else(|| damaged(f, "no such frame"))
    }

    /// Frame `f`, decoded (or borrowed, when stored as is), through the cache.
    pub fn frame(&self, f: u32) -> Result<Frame<'a>, Damaged> {
        let cache = self.dictionary.cache.get_or_init(|| {
            let bytes = CACHE_BYTES.load(Ordering::Relaxed);
            // About one entry per 8 KiB frame: the estimate only sizes the tables.
            new_cache(bytes, 8192, ByLength)
        });
        if let Some(hit) = cache.as_ref().and_then(|c| c.get(&f)) {
            FRAME_HITS.fetch_add(1, Ordering::Relaxed);
            return Ok(Frame::Shared(hit));
        }
        let frame = self.decode(f)?;
        if matches!(frame, Frame::Shared(_)) {
            FRAME_MISSES.fetch_add(1, Ordering::Relaxed);
        }
        if let (Some(cache), Frame::Shared(bytes)) = (cache, &frame) {
            cache.insert(f, bytes.clone());
        }
        Ok(frame)
    }

    /// Frame `f` decoded now (or borrowed, when stored as is), without the cache.
    fn decode(&self, f: u32) -> Result<Frame<'a>, Damaged> {
        let frame = self
            .store
            .frames
            .get(f as usize)
            .ok_or_else(|| damaged(f, "no such frame"))?;
        let offset = frame.offset.to_native() as usize;
        let stored = self
            .blob
            .get(offset..offset.saturating_add(frame.stored_len()))
            .ok_or_else(|| damaged(f, "outside the content blob"))?;
        let len = frame.len.to_native() as usize;
        let codec = frame.codec().ok_or_else(|| damaged(f, "unknown codec"))?;
        if codec == Codec::Raw {
            return if stored.len() == len {
                Ok(Frame::Borrowed(stored))
            } else {
                Err(damaged(f, "stored and decoded lengths differ"))
            };
        }
        if codec == Codec::ZstdDictionary {
            return self.decode_with_dictionary(f, stored, len);
        }
        // Decoded straight into the allocation the cache keeps: one allocation of the
        // frame's exact length and no copy (a `Vec` turned into an `Arc` is copied). The
        // zeros cost a pass over memory the decoder then overwrites while it is cache-hot,
        // and keep this free of `unsafe`; a `TrustedLen` iterator collects in place.
        let mut out: Arc<[u8]> = std::iter::repeat_n(0u8, len).collect();
        let buffer = Arc::get_mut(&mut out).ok_or_else(|| damaged(f, "a shared buffer"))?;
        let written = CONTEXT.with(|cell| {
            let mut cell = cell.borrow_mut();
            let context = cell.get_or_insert_with(DCtx::create);
            context.decompress_using_dict(buffer, stored, &[])
        });
        match written {
            Ok(n) if n == len => Ok(Frame::Shared(out)),
            Ok(n) => Err(damaged(f, &format!("decodes to {n} bytes, not {len}"))),
            Err(code) => Err(damaged(f, zstd::zstd_safe::get_error_name(code))),
        }
    }

    /// A frame compressed with the store's dictionary, decoded by this thread's
    /// [`PrefixDecoder`] for this catalog (made first, on the thread's first such read).
    fn decode_with_dictionary(
        &self,
        f: u32,
        stored: &[u8],
        len: usize,
    ) -> Result<Frame<'a>, Damaged> {
        let identity = self.dictionary.identity();
        let unusable = || {
            damaged(
                f,
                "the frame needs a dictionary the store lacks or cannot load",
            )
        };
        DECODERS.with(|cell| {
            let mut decoders = cell.borrow_mut();
            let at = match decoders.iter().position(|d| d.holds(identity)) {
                Some(at) => at,
                None if self.dictionary.refused.load(Ordering::Relaxed) => return Err(unusable()),
                None => {
                    let Some(decoder) = self.new_decoder(identity) else {
                        self.dictionary.refused.store(true, Ordering::Relaxed);
                        return Err(unusable());
                    };
                    decoders.push(decoder);
                    decoders.len() - 1
                }
            };
            match decoders[at].decode(stored) {
                Ok(bytes) if bytes.len() == len => Ok(Frame::Shared(Arc::from(bytes))),
                Ok(bytes) => Err(damaged(
                    f,
                    &format!("decodes to {} bytes, not {len}", bytes.len()),
                )),
                Err(reason) => Err(damaged(f, reason)),
            }
        })
    }

    /// A decoder for this catalog's dictionary with room for its largest frame (`None`:
    /// the store has no dictionary, or zstd refuses it).
    fn new_decoder(&self, identity: u64) -> Option<PrefixDecoder> {
        let span = &self.store.dictionary;
        let start = span.offset.to_native() as usize;
        let bytes = self
            .blob
            .get(start..start.saturating_add(span.len.to_native() as usize))
            .filter(|bytes| !bytes.is_empty())?;
        // A pass over the frame table, once per thread and catalog: a decoder made for a
        // smaller frame would have to be freed and made again when a larger one came, and
        // none is freed while serving.
        let largest = self
            .store
            .frames
            .iter()
            .filter(|frame| frame.codec() == Some(Codec::ZstdDictionary))
            .map(|frame| frame.len.to_native() as usize)
            .max()?;
        PrefixDecoder::new(identity, bytes, largest)
    }
}

/// A cache bounded by `bytes` of weight (`None` when 0: no cache), for entries of about
/// `typical` bytes.
fn new_cache<V: Clone, W: quick_cache::Weighter<u32, V> + Clone>(
    bytes: u64,
    typical: u64,
    weighter: W,
) -> Option<quick_cache::sync::Cache<u32, V, W>> {
    if bytes == 0 {
        return None;
    }
    // A fixed number of shards: left to itself the cache would size them from
    // `available_parallelism`, which reads cgroup files, and a read after start-up must
    // touch no file (the sandbox refuses it; tests/zero_io.rs).
    let options = quick_cache::OptionsBuilder::new()
        .estimated_items_capacity((bytes / typical).clamp(16, 1 << 20) as usize)
        .weight_capacity(bytes)
        .shards(CACHE_SHARDS)
        .build()
        .ok()?;
    Some(quick_cache::sync::Cache::with_options(
        options,
        weighter,
        Default::default(),
        Default::default(),
    ))
}

fn damaged(frame: u32, reason: &str) -> Damaged {
    Damaged {
        frame,
        reason: reason.to_owned(),
    }
}

fn not_utf8(frame: u32) -> Damaged {
    damaged(frame, "text that is not UTF-8")
}
