//! Reading the content store ([`ContentStore`](crate::model::ContentStore)) at run time.
//!
//! A read decodes exactly the frames that hold the bytes it serves (a chunk is one frame, a
//! section the frames it spans, a document all of its own), in memory, into the buffer it
//! answers with: nothing is decompressed at start-up, nothing is written anywhere, and a
//! request never holds more than what it serves. Frames stored as is are served from the
//! binary's own pages without a copy.
//!
//! Every frame decodes on its own. The dictionary most text frames need is prepared on the
//! first read that needs it (a few microseconds, once) and referenced in place in the
//! archive; each thread keeps one zstd decoding context.
//!
//! A frame that fails to decode (only a damaged binary has one: every frame was decoded
//! back when `skillpack info` validated the build) is a [`Damaged`] error, never a panic.

use std::borrow::Cow;
use std::cell::RefCell;
use std::ops::Range;
use std::sync::OnceLock;

use zstd::zstd_safe::{DCtx, DDict};

use crate::model::{ArchivedContentStore, ArchivedStored, Codec};

/// The content store of one catalog: the blob, its frame table and the decoding state.
#[derive(Clone, Copy)]
pub struct Content<'a> {
    blob: &'a [u8],
    store: &'a ArchivedContentStore,
    dictionary: &'a Dictionary,
}

/// The prepared zstd dictionary of one catalog, made on first use. One per catalog:
/// `baked!` declares it as a `static`, [`super::Catalog::from_compiled`] leaks one.
#[derive(Default)]
pub struct Dictionary(OnceLock<Option<DDict<'static>>>);

impl Dictionary {
    pub const fn new() -> Dictionary {
        Dictionary(OnceLock::new())
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
    /// context owns tens of KiB of tables that are better made once than per read.
    static CONTEXT: RefCell<Option<DCtx<'static>>> = const { RefCell::new(None) };
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
                    Cow::Borrowed(b) => Cow::Borrowed(&b[from..to]),
                    Cow::Owned(mut v) => {
                        v.truncate(to);
                        v.drain(..from);
                        Cow::Owned(v)
                    }
                });
            }
            out.get_or_insert_with(|| Vec::with_capacity(end - start))
                .extend_from_slice(&bytes[from..to]);
        }
        Ok(Cow::Owned(out.unwrap_or_default()))
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

    /// The decoded length of frame `f`.
    fn frame_len(&self, f: u32) -> Result<usize, Damaged> {
        self.store
            .frames
            .get(f as usize)
            .map(|frame| frame.len.to_native() as usize)
            .ok_or_else(|| damaged(f, "no such frame"))
    }

    /// Frame `f`, decoded (or borrowed, when stored as is).
    pub fn frame(&self, f: u32) -> Result<Cow<'a, [u8]>, Damaged> {
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
                Ok(Cow::Borrowed(stored))
            } else {
                Err(damaged(f, "stored and decoded lengths differ"))
            };
        }
        let dictionary = match codec {
            Codec::ZstdDictionary => Some(
                self.prepared()
                    .ok_or_else(|| damaged(f, "the frame needs a dictionary the store lacks"))?,
            ),
            _ => None,
        };
        let mut out: Vec<u8> = Vec::with_capacity(len);
        let written = CONTEXT.with(|cell| {
            let mut cell = cell.borrow_mut();
            let context = cell.get_or_insert_with(DCtx::create);
            match dictionary {
                Some(dictionary) => context.decompress_using_ddict(&mut out, stored, dictionary),
                None => context.decompress_using_dict(&mut out, stored, &[]),
            }
        });
        match written {
            Ok(n) if n == len => Ok(Cow::Owned(out)),
            Ok(n) => Err(damaged(f, &format!("decodes to {n} bytes, not {len}"))),
            Err(code) => Err(damaged(f, zstd::zstd_safe::get_error_name(code))),
        }
    }

    /// The store's dictionary, prepared once (`None`: the store has none, or it is damaged).
    fn prepared(&self) -> Option<&'a DDict<'static>> {
        self.dictionary
            .0
            .get_or_init(|| {
                let span = &self.store.dictionary;
                let start = span.offset.to_native() as usize;
                let bytes = self
                    .blob
                    .get(start..start + span.len.to_native() as usize)?;
                if bytes.is_empty() {
                    return None;
                }
                // Copied once: the prepared dictionary must not borrow the store (the
                // `Dictionary` outlives no particular borrow of it in the type system).
                Some(DDict::create(bytes))
            })
            .as_ref()
    }
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
