//! The content store: every served file's bytes, as frames in one blob ([`ContentStore`]).
//!
//! Files are registered while the catalog is compiled ([`Pending::add`]: identical bytes
//! once, a document in one frame (cut at chunk boundaries past [`DOCUMENT_FRAME_BYTES`]),
//! its tables at the end of that frame, or in one of their own after a document cut into
//! several, any other file every [`FILE_FRAME_BYTES`]); [`Pending::pack`] then compresses every frame at once:
//!
//! - Text frames are compressed with zstd and a dictionary trained on a sample of this
//!   catalog's own text frames. A chunk alone is a few KiB, too little for a compressor
//!   to learn its vocabulary from; the dictionary holds the vocabulary (markdown syntax,
//!   the words and identifiers of the docs), so each frame compresses almost as well as
//!   the whole corpus would, and still decodes on its own.
//! - Binary frames (images, fonts, archives) are compressed without it.
//! - A frame that does not shrink by at least 1/16 is stored as is: decoding it would cost
//!   time for nothing.
//!
//! Frames are compressed in parallel and laid out in registration order, so the same
//! content gives the same blob on any number of threads. Training is single-threaded and
//! deterministic, like every zstd call here.

use std::collections::HashMap;

use rayon::prelude::*;

use crate::model::{
    Codec, ContentStore, DOCUMENT_FRAME_BYTES, FILE_FRAME_BYTES, Frame, Span, Stored,
};

/// The compression level of text frames. With the dictionary, level 12 stores 5–12% fewer
/// bytes than level 3 (built-in content 131.9 against 142.9 KB, the Rust book 408 against
/// 443 KB, synth-10000 21.5 against 23.0 MB) and costs no measurable time: a chunk is
/// small, and compiling synth-10000 in-process took 8.5 s against 8.2 s
/// (`examples/breakdown`, docs/design/compact-archive.md). Level 15 would add
/// 3 s there, level 19 6 s, for 5% more. Decoding speed does not depend on the level.
const LEVEL: i32 = 12;
/// Files that are not text (fonts, images, archives) compress without the dictionary, and
/// at a higher level: most of them are already compressed and stay as they are, the rest
/// (fonts) are few and large, and level 9 stores them in 12% fewer bytes than level 3 at
/// 4 times its cost (5.4 MB of fonts: 2.22 against 2.51 MB, 0.2 s).
const BINARY_LEVEL: i32 = 9;

/// The dictionary is about this fraction of the text it is trained on...
const DICTIONARY_SHARE: usize = 32;
/// ...within these bounds (below the minimum, a catalog has too little text to train on
/// and its frames use none).
const DICTIONARY_MIN: usize = 4 * 1024;
const DICTIONARY_MAX: usize = 112 * 1024;
/// Samples handed to the trainer are pieces of frames of at most this many bytes.
const TRAINING_PIECE: usize = 8 * 1024;
/// At most this much text is sampled for training (every n-th text frame): training time
/// grows with the sample, and a few MiB of a catalog teach what all of it would.
const SAMPLE_MAX: usize = 2 * 1024 * 1024;

/// Handle of a registered file: its index in [`Pending`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Item(u32);

struct Registered {
    /// The file's bytes, then its tail ([`Pending::with_tail`]).
    bytes: Vec<u8>,
    /// Bytes of the file itself: `bytes` past it are the tail.
    len: usize,
    /// Frame boundaries: ascending offsets inside `bytes`, the first 0.
    cuts: Vec<usize>,
    text: bool,
    /// It may share a frame with the files registered around it ([`Pending::add_file`]).
    shared: bool,
}

/// Files registered for the store, not yet compressed.
#[derive(Default)]
pub struct Pending {
    items: Vec<Registered>,
    by_hash: HashMap<blake3::Hash, Item>,
}

/// What [`Pending::pack`] returns: the blob, the frame table, and where each item lies.
pub struct Packed {
    pub blob: Vec<u8>,
    pub store: ContentStore,
    stored: Vec<Stored>,
}

impl Packed {
    pub fn stored(&self, item: Item) -> Stored {
        self.stored[item.0 as usize]
    }
}

impl Pending {
    /// Register a file's bytes (stored once per distinct content: the first registration's
    /// frame cuts win). `chunk_starts` are a document's chunk offsets: its frames are cut
    /// at some of them ([`document_cuts`]); empty for any other file. `text` selects the
    /// dictionary.
    pub fn add(
        &mut self,
        hash: blake3::Hash,
        bytes: &[u8],
        chunk_starts: &[usize],
        text: bool,
    ) -> Item {
        if let Some(&item) = self.by_hash.get(&hash) {
            return item;
        }
        let mut cuts: Vec<usize> = if chunk_starts.is_empty() {
            (0..bytes.len().max(1)).step_by(FILE_FRAME_BYTES).collect()
        } else {
            document_cuts(chunk_starts, bytes.len())
        };
        cuts.retain(|&c| c < bytes.len());
        if cuts.first() != Some(&0) {
            cuts.insert(0, 0);
        }
        cuts.dedup();
        let item = Item(self.items.len() as u32);
        self.items.push(Registered {
            bytes: bytes.to_vec(),
            len: bytes.len(),
            cuts,
            text,
            shared: false,
        });
        self.by_hash.insert(hash, item);
        item
    }

    /// Register a file that is not a document (a script, a template, an image, a font):
    /// one no larger than its class's share bound ([`SHARED_TEXT_BYTES`],
    /// [`SHARED_BINARY_BYTES`]) shares a frame with the files registered next to it (a
    /// skill's files are registered together), since small files compress poorly alone
    /// and files of one skill repeat each other (a font family, a skill's scripts).
    pub fn add_file(&mut self, hash: blake3::Hash, bytes: &[u8], text: bool) -> Item {
        if self.by_hash.contains_key(&hash) {
            return self.add(hash, bytes, &[], text);
        }
        let item = self.add(hash, bytes, &[], text);
        let registered = &mut self.items[item.0 as usize];
        registered.shared = registered.len <= shared_bound(text);
        item
    }

    /// `item` with `tail` appended to its last frame: bytes stored and decoded with the
    /// file's own but not part of it (a document's tables). The same item when it has no
    /// tail yet or this one; another item holding the same file otherwise (two documents of
    /// identical text with different tables).
    pub fn with_tail(&mut self, item: Item, tail: &[u8]) -> Item {
        let registered = &mut self.items[item.0 as usize];
        if registered.bytes.len() == registered.len && !registered.shared {
            append_tail(registered, tail);
            return item;
        }
        if &registered.bytes[registered.len..] == tail {
            return item;
        }
        let mut copy = Registered {
            bytes: registered.bytes[..registered.len].to_vec(),
            len: registered.len,
            // The file's own cuts: not the one before the tail it had.
            cuts: registered
                .cuts
                .iter()
                .copied()
                .filter(|&cut| cut < registered.len)
                .collect(),
            text: registered.text,
            shared: false,
        };
        append_tail(&mut copy, tail);
        self.items.push(copy);
        Item(self.items.len() as u32 - 1)
    }

    /// The bytes of a registered item (without its tail), before compression.
    pub fn bytes(&self, item: Item) -> &[u8] {
        let registered = &self.items[item.0 as usize];
        &registered.bytes[..registered.len]
    }

    /// Compress every frame and lay out the blob: the dictionary first, then each item's
    /// frames in registration order, a shared frame where its first file was registered.
    pub fn pack(self) -> Packed {
        let layout = self.layout();
        let frame_bytes = |frame: &Layout| -> std::borrow::Cow<'_, [u8]> {
            match frame {
                Layout::Own { item, range } => {
                    std::borrow::Cow::Borrowed(&self.items[*item].bytes[range.clone()])
                }
                Layout::Shared { items, .. } => std::borrow::Cow::Owned(
                    items
                        .iter()
                        .flat_map(|&i| self.items[i].bytes.iter().copied())
                        .collect(),
                ),
            }
        };
        let is_text = |frame: &Layout| match frame {
            Layout::Own { item, .. } => self.items[*item].text,
            Layout::Shared { text, .. } => *text,
        };
        let dictionary = train(
            layout
                .frames
                .iter()
                .filter(|f| is_text(f))
                .filter_map(|f| match f {
                    // Shared frames are trained on through their files, one sample each.
                    Layout::Own { item, range } => Some(&self.items[*item].bytes[range.clone()]),
                    Layout::Shared { .. } => None,
                })
                .chain(
                    layout
                        .frames
                        .iter()
                        .filter(|f| is_text(f))
                        .filter_map(|f| match f {
                            Layout::Shared { items, .. } => Some(items),
                            Layout::Own { .. } => None,
                        })
                        .flatten()
                        .map(|&i| self.items[i].bytes.as_slice()),
                ),
        );
        let with_dictionary = (!dictionary.is_empty())
            .then(|| zstd::dict::EncoderDictionary::copy(&dictionary, LEVEL));
        let compressed: Vec<(Codec, Vec<u8>, usize)> = layout
            .frames
            .par_iter()
            .map_init(
                || Compressors::new(with_dictionary.as_ref()),
                |compressors, frame| {
                    let bytes = frame_bytes(frame);
                    let (codec, compressed) = compressors.compress(&bytes, is_text(frame));
                    let len = bytes.len();
                    (codec, compressed.unwrap_or_else(|| bytes.into_owned()), len)
                },
            )
            .collect();

        let mut blob = dictionary;
        let store_dictionary = Span {
            offset: 0,
            len: blob.len() as u64,
        };
        let mut table = Vec::with_capacity(compressed.len());
        for (codec, bytes, len) in compressed {
            table.push(Frame::new(blob.len() as u64, bytes.len(), len, codec));
            blob.extend_from_slice(&bytes);
        }
        Packed {
            blob,
            store: ContentStore {
                dictionary: store_dictionary,
                frames: table,
            },
            stored: layout.stored,
        }
    }

    /// Which bytes go into which frame, in blob order, and where each item lies.
    fn layout(&self) -> Placement {
        let mut frames: Vec<Layout> = Vec::new();
        let mut stored = vec![Stored::default(); self.items.len()];
        // The shared frame still open for each class (binary, text): (frame, its length).
        let mut open: [Option<(usize, usize)>; 2] = [None, None];
        for (i, item) in self.items.iter().enumerate() {
            if item.shared {
                let class = usize::from(item.text);
                let bound = shared_bound(item.text);
                let (frame, at) = match open[class] {
                    Some((frame, at)) if at + item.len <= bound => (frame, at),
                    _ => {
                        frames.push(Layout::Shared {
                            items: Vec::new(),
                            text: item.text,
                        });
                        (frames.len() - 1, 0)
                    }
                };
                if let Layout::Shared { items, .. } = &mut frames[frame] {
                    items.push(i);
                }
                open[class] = Some((frame, at + item.len));
                stored[i] = Stored {
                    first_frame: frame as u32,
                    frame_count: 1,
                    offset: at as u32,
                    len: item.len as u32,
                };
                continue;
            }
            let first = frames.len() as u32;
            let len = item.bytes.len();
            let ends = item.cuts.iter().skip(1).copied().chain([len]);
            for (start, end) in item.cuts.iter().copied().zip(ends) {
                frames.push(Layout::Own {
                    item: i,
                    range: start..end,
                });
            }
            stored[i] = Stored {
                first_frame: first,
                frame_count: item.cuts.len() as u32,
                offset: 0,
                len: item.len as u32,
            };
        }
        Placement { frames, stored }
    }
}

/// Append `tail` to a file's bytes: to its last frame when the file is one frame, so that
/// a read of a short document decodes one frame; as a frame of its own when the file is
/// cut into several, so that a read of one part of a long document decodes that part and
/// the tail, not the last part as well.
fn append_tail(registered: &mut Registered, tail: &[u8]) {
    if registered.cuts.len() > 1 && !tail.is_empty() {
        registered.cuts.push(registered.len);
    }
    registered.bytes.extend_from_slice(tail);
}

/// A frame to be: a range of one item's bytes, or whole items one after the other.
enum Layout {
    Own {
        item: usize,
        range: std::ops::Range<usize>,
    },
    Shared {
        items: Vec<usize>,
        text: bool,
    },
}

struct Placement {
    frames: Vec<Layout>,
    stored: Vec<Stored>,
}

/// Text files of at most this many bytes share frames: a read of one decodes a frame no
/// larger than a document's.
pub const SHARED_TEXT_BYTES: usize = 64 * 1024;
/// Binary files of at most this many bytes share frames: what one read decodes stays
/// bounded, and a font family compresses as one (anthropic-skills' 5.4 MB of fonts and
/// other files: 2.34 against 2.64 MB at level 9).
pub const SHARED_BINARY_BYTES: usize = 1024 * 1024;

fn shared_bound(text: bool) -> usize {
    if text {
        SHARED_TEXT_BYTES
    } else {
        SHARED_BINARY_BYTES
    }
}

/// Where a document's frames start: at 0, then at the chunk start before which the frame
/// would pass [`DOCUMENT_FRAME_BYTES`]. A whole document compresses better than its chunks
/// one by one (each frame pays its own header and starts without context: the Rust book
/// stored 338 against 408 KB, synth-10000 15.7 against 21.5 MB), and a chunk read decodes
/// its frame once, then reads it from the cache; the bound keeps what one read decodes
/// small in a very long document. A chunk longer than the bound is a frame of its own.
fn document_cuts(chunk_starts: &[usize], len: usize) -> Vec<usize> {
    let mut bounds: Vec<usize> = chunk_starts.iter().copied().filter(|&s| s < len).collect();
    bounds.push(len);
    let mut cuts = vec![0];
    for pair in bounds.windows(2) {
        let (start, end) = (pair[0], pair[1]);
        let frame_start = *cuts.last().unwrap_or(&0);
        if start > frame_start && end - frame_start > DOCUMENT_FRAME_BYTES {
            cuts.push(start);
        }
    }
    cuts
}

/// The bytes of `stored`, decoded from a packed blob (for tests and tools that hold a
/// compiled [`super::Output`]; the server reads in place, frame by frame, with its own
/// decoding contexts).
pub fn decode(blob: &[u8], store: &ContentStore, stored: Stored) -> std::io::Result<Vec<u8>> {
    let bytes = decode_frames(blob, store, stored)?;
    let start = stored.offset as usize;
    bytes
        .get(start..start + stored.len as usize)
        .map(<[u8]>::to_vec)
        .ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "the frames are shorter than the file",
            )
        })
}

/// The last `len` bytes of `stored`'s frames: the tail [`Pending::with_tail`] appended.
pub fn decode_tail(
    blob: &[u8],
    store: &ContentStore,
    stored: Stored,
    len: usize,
) -> std::io::Result<Vec<u8>> {
    let bytes = decode_frames(blob, store, stored)?;
    match bytes.len().checked_sub(len) {
        Some(start) if start >= (stored.offset + stored.len) as usize => {
            Ok(bytes[start..].to_vec())
        }
        _ => Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "the frames are shorter than the file and its tail",
        )),
    }
}

/// Every frame of `stored`, decoded and concatenated (its tail included).
fn decode_frames(blob: &[u8], store: &ContentStore, stored: Stored) -> std::io::Result<Vec<u8>> {
    let damaged =
        |what: &str| std::io::Error::new(std::io::ErrorKind::InvalidData, what.to_owned());
    let dictionary = blob
        .get(
            store.dictionary.offset as usize
                ..(store.dictionary.offset + store.dictionary.len) as usize,
        )
        .ok_or_else(|| damaged("the dictionary lies outside the blob"))?;
    let first = stored.first_frame as usize;
    let frames = store
        .frames
        .get(first..first + stored.frame_count as usize)
        .ok_or_else(|| damaged("no such frames"))?;
    let mut out = Vec::with_capacity(stored.len as usize);
    for frame in frames {
        let (codec, stored_len) = frame.parts();
        let at = frame.offset as usize;
        let bytes = blob
            .get(at..at + stored_len)
            .ok_or_else(|| damaged("a frame lies outside the blob"))?;
        let len = frame.len as usize;
        match codec {
            Some(Codec::Raw) => out.extend_from_slice(bytes),
            Some(Codec::Zstd) => {
                out.extend(zstd::bulk::Decompressor::new()?.decompress(bytes, len)?)
            }
            Some(Codec::ZstdDictionary) => out.extend(
                zstd::bulk::Decompressor::with_dictionary(dictionary)?.decompress(bytes, len)?,
            ),
            None => return Err(damaged("unknown codec")),
        }
    }
    Ok(out)
}

/// A dictionary trained on `frames` (empty when there is too little text to train on, or
/// training fails: the frames then compress without one).
fn train<'a>(frames: impl Iterator<Item = &'a [u8]>) -> Vec<u8> {
    // The trainer learns from many samples of about the size of what is compressed with
    // the dictionary's help, not from a few whole documents (with too few samples it
    // fails): frames are cut into pieces for it.
    let frames: Vec<&[u8]> = frames
        .filter(|f| !f.is_empty())
        .flat_map(|f| f.chunks(TRAINING_PIECE))
        .collect();
    let total: usize = frames.iter().map(|f| f.len()).sum();
    let size = (total / DICTIONARY_SHARE).min(DICTIONARY_MAX);
    if size < DICTIONARY_MIN {
        return Vec::new();
    }
    // Every n-th frame, so that the sample spans the whole catalog.
    let step = total.div_ceil(SAMPLE_MAX).max(1);
    let sample: Vec<&[u8]> = frames.iter().step_by(step).copied().collect();
    let sizes: Vec<usize> = sample.iter().map(|f| f.len()).collect();
    let data = sample.concat();
    train_fast_cover(&data, &sizes, size).unwrap_or_default()
}

/// zstd's fastCover trainer, run once with fixed parameters: `None` when it fails.
///
/// The `zstd` crate's `dict::from_continuous` calls `ZDICT_trainFromBuffer`, which trains
/// five times (k from 50 to 2000) on three quarters of the sample and keeps the dictionary
/// that compresses the rest best: 39 of the built-in content's 100 ms compile, 160 ms on
/// synth-10000. One training at k = 200 on the whole sample took 10 and 38 ms and stores
/// every catalog measured within 0.2% of the chosen dictionary's bytes, most in fewer
/// (docs/design/compact-archive.md, "A sixth pass"). No safe wrapper takes fixed
/// parameters, so this calls the C entry point (the crate's `experimental` feature) itself.
fn train_fast_cover(data: &[u8], sizes: &[usize], capacity: usize) -> Option<Vec<u8>> {
    use zstd::zstd_safe::zstd_sys as sys;
    if sizes.iter().sum::<usize>() != data.len() {
        return None;
    }
    let count = u32::try_from(sizes.len()).ok()?;
    let parameters = sys::ZDICT_fastCover_params_t {
        k: 200,
        d: 8,
        // Zero: the library's defaults (f = 20, accel = 1, level 3 for the statistics, an
        // id derived from the dictionary's content, so that builds stay reproducible).
        f: 0,
        steps: 0,
        nbThreads: 0,
        splitPoint: 0.0,
        accel: 0,
        shrinkDict: 0,
        shrinkDictMaxRegression: 0,
        zParams: sys::ZDICT_params_t {
            compressionLevel: 0,
            notificationLevel: 0,
            dictID: 0,
        },
    };
    let mut out = vec![0u8; capacity];
    // SAFETY: `out` has `capacity` writable bytes, and `data` is exactly the `count`
    // samples whose lengths `sizes` gives (checked above); the trainer reads and writes
    // nothing else, and keeps no pointer past the call.
    let written = unsafe {
        sys::ZDICT_trainFromBuffer_fastCover(
            out.as_mut_ptr().cast(),
            capacity,
            data.as_ptr().cast(),
            sizes.as_ptr(),
            count,
            parameters,
        )
    };
    // SAFETY: a pure function of the code it is given.
    if unsafe { sys::ZDICT_isError(written) } != 0 {
        return None;
    }
    out.truncate(written);
    Some(out)
}

/// A compressor whose frames carry zstd's 4-byte content checksum: a damaged frame then
/// fails to decode (a `content_damaged` error) instead of serving other bytes.
fn checked(mut compressor: zstd::bulk::Compressor<'_>) -> Option<zstd::bulk::Compressor<'_>> {
    compressor
        .set_parameter(zstd::zstd_safe::CParameter::ChecksumFlag(true))
        .ok()?;
    Some(compressor)
}

/// One thread's compressors: with the dictionary (text) and without (binary files).
struct Compressors<'d> {
    text: Option<zstd::bulk::Compressor<'d>>,
    plain: Option<zstd::bulk::Compressor<'static>>,
}

impl<'d> Compressors<'d> {
    fn new(dictionary: Option<&'d zstd::dict::EncoderDictionary<'static>>) -> Self {
        Compressors {
            text: dictionary
                .and_then(|d| zstd::bulk::Compressor::with_prepared_dictionary(d).ok())
                .and_then(checked),
            plain: zstd::bulk::Compressor::new(BINARY_LEVEL)
                .ok()
                .and_then(checked),
        }
    }

    /// The codec and compressed bytes of a frame, or `Raw` and `None` when compressing
    /// does not pay (or the compressor could not be made: the frame is then stored as is).
    fn compress(&mut self, bytes: &[u8], text: bool) -> (Codec, Option<Vec<u8>>) {
        let (codec, compressed) = match (&mut self.text, text) {
            (Some(with_dictionary), true) => {
                (Codec::ZstdDictionary, with_dictionary.compress(bytes).ok())
            }
            _ => (
                Codec::Zstd,
                self.plain.as_mut().and_then(|c| c.compress(bytes).ok()),
            ),
        };
        match compressed {
            Some(c) if c.len() < bytes.len() - bytes.len() / 16 => (codec, Some(c)),
            _ => (Codec::Raw, None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(packed: &Packed, stored: Stored) -> Vec<u8> {
        super::decode(&packed.blob, &packed.store, stored).unwrap()
    }

    #[test]
    fn every_item_decodes_to_its_bytes_and_identical_bytes_are_stored_once() {
        let mut pending = Pending::default();
        let mut text = String::new();
        let words = [
            "deploy", "service", "release", "pin", "rollback", "cache", "token",
        ];
        for i in 0..3000 {
            text.push_str(&format!(
                "## Section {i}\n\n{} the {} with `skillpack serve` and {} release {}.\n\n",
                words[i % 7],
                words[i * 3 % 7],
                words[i * 5 % 7],
                i * 7919 % 1000
            ));
        }
        // Noise (xorshift), which no compressor shrinks: an image, say.
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let image: Vec<u8> = (0..300_000)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                (state >> 24) as u8
            })
            .collect();
        let starts: Vec<usize> = text
            .match_indices("## ")
            .map(|(i, _)| i)
            .step_by(10)
            .collect();
        let doc = pending.add(
            blake3::hash(text.as_bytes()),
            text.as_bytes(),
            &starts,
            true,
        );
        let again = pending.add(blake3::hash(text.as_bytes()), text.as_bytes(), &[], true);
        let binary = pending.add(blake3::hash(&image), &image, &[], false);
        let empty = pending.add(blake3::hash(b""), b"", &[], true);
        assert_eq!(doc, again);
        let packed = pending.pack();
        assert!(packed.store.dictionary.len > 0, "enough text to train on");
        let d = packed.stored(doc);
        // About 200 KB of text: frames of at most DOCUMENT_FRAME_BYTES, cut at chunk starts.
        let frames = &packed.store.frames[d.first_frame as usize..][..d.frame_count as usize];
        assert_eq!(frames.len(), text.len().div_ceil(DOCUMENT_FRAME_BYTES));
        let mut at = 0;
        for frame in frames {
            assert!(starts.contains(&at), "a frame starts at byte {at}");
            assert!(frame.len as usize <= DOCUMENT_FRAME_BYTES);
            at += frame.len as usize;
        }
        assert_eq!(decode(&packed, d), text.as_bytes());
        assert_eq!(decode(&packed, packed.stored(binary)), image);
        assert_eq!(packed.stored(binary).frame_count, 2, "256 KiB frames");
        assert_eq!(decode(&packed, packed.stored(empty)), b"");
        // Text compresses with the dictionary; noise is stored as is.
        let codec = |i: u32| packed.store.frames[i as usize].parts().0;
        assert_eq!(codec(d.first_frame), Some(Codec::ZstdDictionary));
        assert_eq!(codec(packed.stored(binary).first_frame), Some(Codec::Raw));
        assert!(packed.blob.len() < text.len() / 4 + image.len() + 64 * 1024);
    }

    #[test]
    fn a_tail_is_not_part_of_the_file_and_has_a_frame_of_its_own_after_several() {
        let mut pending = Pending::default();
        let text = "# Doc\n\n".to_owned() + &"words of the document. ".repeat(5000);
        let hash = blake3::hash(text.as_bytes());
        let starts = [0, 60_000];
        let item = pending.add(hash, text.as_bytes(), &starts, true);
        let tail = b"the document's tables";
        assert_eq!(pending.with_tail(item, tail), item);
        assert_eq!(pending.with_tail(item, tail), item, "the same tail again");
        // The same text with other tables: another item, which holds the text again.
        let other = pending.with_tail(item, b"other tables");
        assert_ne!(other, item);
        assert_eq!(pending.bytes(other), text.as_bytes());
        // A short document: one frame, its tail at the end of it.
        let short = "# Short\n\nA few words.\n";
        let one = pending.add(blake3::hash(short.as_bytes()), short.as_bytes(), &[0], true);
        assert_eq!(pending.with_tail(one, tail), one);
        let packed = pending.pack();
        for (item, tail) in [(item, &tail[..]), (other, &b"other tables"[..])] {
            let stored = packed.stored(item);
            assert_eq!(stored.len as usize, text.len());
            // Two frames of text, then the tail alone: a read of the first part decodes
            // that part and the tables, not the second part as well.
            assert_eq!(stored.frame_count, 3);
            assert_eq!(decode(&packed, stored), text.as_bytes());
            assert_eq!(
                super::decode_tail(&packed.blob, &packed.store, stored, tail.len()).unwrap(),
                tail
            );
            let frame = |i: u32| packed.store.frames[(stored.first_frame + i) as usize].len;
            assert_eq!(frame(1) as usize, text.len() - 60_000);
            assert_eq!(frame(2) as usize, tail.len());
        }
        let stored = packed.stored(one);
        assert_eq!(stored.frame_count, 1);
        assert_eq!(decode(&packed, stored), short.as_bytes());
        assert_eq!(
            super::decode_tail(&packed.blob, &packed.store, stored, tail.len()).unwrap(),
            tail
        );
        assert_eq!(
            packed.store.frames[stored.first_frame as usize].len as usize,
            short.len() + tail.len()
        );
    }

    #[test]
    fn small_files_share_frames_by_class_and_read_back_alone() {
        let mut pending = Pending::default();
        let mut items = Vec::new();
        // Scripts and images of a few skills, interleaved as a skill's files are.
        for i in 0..40u32 {
            let script = format!(
                "#!/bin/sh\n# script {i}\necho {}\n",
                "step ".repeat(i as usize)
            )
            .into_bytes();
            let image: Vec<u8> = (0..5000u32)
                .map(|b| (b.wrapping_mul(i + 7) >> 3) as u8)
                .collect();
            items.push((
                pending.add_file(blake3::hash(&script), &script, true),
                script,
            ));
            items.push((pending.add_file(blake3::hash(&image), &image, false), image));
        }
        // A file above the bound has frames of its own.
        let large = vec![7u8; SHARED_BINARY_BYTES + 1];
        let large_item = pending.add_file(blake3::hash(&large), &large, false);
        // A document with the bytes of a shared file gets frames of its own for its tail.
        let (first_script, first_bytes) = (items[0].0, items[0].1.clone());
        let with_tables = pending.with_tail(first_script, b"tables");
        assert_ne!(with_tables, first_script);
        let packed = pending.pack();
        for (item, bytes) in &items {
            assert_eq!(&decode(&packed, packed.stored(*item)), bytes);
        }
        assert_eq!(decode(&packed, packed.stored(large_item)), large);
        assert_eq!(decode(&packed, packed.stored(with_tables)), first_bytes);
        // Far fewer frames than files: the 40 scripts in one, the images in one.
        let shared: std::collections::HashSet<u32> = items
            .iter()
            .map(|(item, _)| packed.stored(*item).first_frame)
            .collect();
        assert_eq!(shared.len(), 2, "{shared:?}");
        assert!(
            items
                .iter()
                .any(|(item, _)| packed.stored(*item).offset > 0)
        );
        assert!(packed.stored(large_item).frame_count > 1);
    }

    #[test]
    fn documents_are_cut_at_chunk_starts_only_past_the_frame_bound() {
        let cap = DOCUMENT_FRAME_BYTES;
        // A short document: one frame, whatever its chunks.
        assert_eq!(document_cuts(&[0, 100, 5000], 9000), [0]);
        // Chunks of a third of the bound: three to a frame.
        let third = cap / 3;
        let starts: Vec<usize> = (0..10).map(|i| i * third).collect();
        assert_eq!(
            document_cuts(&starts, 10 * third),
            [0, 3 * third, 6 * third, 9 * third]
        );
        // A chunk longer than the bound is a frame of its own.
        assert_eq!(
            document_cuts(&[0, 10, 10 + 2 * cap], 20 + 2 * cap),
            [0, 10, 10 + 2 * cap]
        );
        // Chunk starts past the end (none are, but bytes decide) and an empty document.
        assert_eq!(document_cuts(&[0, 50], 40), [0]);
        assert_eq!(document_cuts(&[0], 0), [0]);
    }

    #[test]
    fn the_same_content_packs_to_the_same_bytes_on_any_number_of_threads() {
        let build = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| {
                let mut pending = Pending::default();
                for i in 0..200 {
                    let text = format!(
                        "# Page {i}\n\n{}\n",
                        "words and more words ".repeat(i % 50 + 5)
                    );
                    pending.add(blake3::hash(text.as_bytes()), text.as_bytes(), &[0], true);
                }
                pending.pack().blob
            })
        };
        assert!(build(1) == build(4));
    }
}
