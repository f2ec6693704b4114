//! The baked catalog: the data model `build.rs` writes and the server reads in place.
//!
//! This module is shared by the build script (which includes it with `#[path]`) and the
//! runtime. Everything here derives `rkyv::Archive`, so the server never deserializes the
//! catalog: it reinterprets the bytes embedded in the binary (`Archived*` types) and pages
//! them in on demand. That is what keeps cold start and idle memory flat as catalogs grow.
//!
//! File bytes are not stored here; they live in a separate content blob, in frames that
//! [`ContentStore`] describes (most of them zstd-compressed with a dictionary trained on
//! the catalog), and each served file is a run of frames ([`Stored`]), so identical files
//! (a `LICENSE.txt` in every skill) are stored once.

use rkyv::{Archive, Deserialize, Serialize};

/// Bumped whenever the meaning of served URIs or payloads changes; part of the fingerprint.
pub const CONTRACT_VERSION: u32 = 2;

/// A byte range in the content blob.
#[derive(Archive, Serialize, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[rkyv(derive(Debug))]
pub struct Span {
    pub offset: u64,
    pub len: u64,
}

/// Where a served file's bytes lie in the content store: `len` bytes from `offset` in the
/// `frame_count` consecutive frames from `first_frame`, decoded and read as one. A
/// document's frames are its text, cut at chunks past [`DOCUMENT_FRAME_BYTES`], and its
/// tables after it (in the last frame of text, or in a frame of their own when the text is
/// several); a small file of any other kind shares one frame with its neighbours
/// (at an offset in it), a larger one has a frame per [`FILE_FRAME_BYTES`]. Files are at
/// most 16 MiB, JSON resources far below 4 GiB.
#[derive(Archive, Serialize, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[rkyv(derive(Debug))]
pub struct Stored {
    pub first_frame: u32,
    pub frame_count: u32,
    pub offset: u32,
    pub len: u32,
}

/// A document's text is one frame, or several when it is longer than this: cut at the
/// chunk boundaries that keep each frame within it (a longer chunk is a frame of its own).
pub const DOCUMENT_FRAME_BYTES: usize = 64 * 1024;

/// Files other than documents are cut into frames of at most this many bytes: a read
/// decodes whole frames, and a larger frame compresses a little better.
pub const FILE_FRAME_BYTES: usize = 256 * 1024;

/// The served bytes: frames in the content blob, each stored as is or compressed with
/// zstd, most text frames with [`ContentStore::dictionary`] (trained at build time on this
/// catalog's own text, which is what lets an 8 KiB chunk compress like a whole book).
#[derive(Archive, Serialize, Debug, Default)]
#[rkyv(derive(Debug))]
pub struct ContentStore {
    /// The zstd dictionary's bytes in the content blob (empty: frames use none).
    pub dictionary: Span,
    pub frames: Vec<Frame>,
}

/// How a frame is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Codec {
    /// The bytes themselves (they did not compress).
    Raw,
    /// A zstd frame.
    Zstd,
    /// A zstd frame compressed with the catalog's dictionary.
    ZstdDictionary,
}

/// One frame of the content blob: `stored` bytes from `offset` decode to `len` bytes.
#[derive(Archive, Serialize, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[rkyv(derive(Debug))]
pub struct Frame {
    pub offset: u64,
    /// The stored length in the low 30 bits, the [`Codec`] in the top two (a frame is at
    /// most [`FILE_FRAME_BYTES`] or one chunk: far below 1 GiB). Packed so that a frame
    /// takes 16 bytes, not 24: a 10,000-document catalog has about 90,000 of them.
    pub stored: u32,
    pub len: u32,
}

const CODEC_SHIFT: u32 = 30;
const STORED_MASK: u32 = (1 << CODEC_SHIFT) - 1;

impl Frame {
    pub fn new(offset: u64, stored: usize, len: usize, codec: Codec) -> Frame {
        let tag = match codec {
            Codec::Raw => 0,
            Codec::Zstd => 1,
            Codec::ZstdDictionary => 2,
        };
        debug_assert!(stored <= STORED_MASK as usize);
        Frame {
            offset,
            stored: (stored as u32 & STORED_MASK) | (tag << CODEC_SHIFT),
            len: len as u32,
        }
    }
}

impl Frame {
    /// The codec (`None` for a tag no build writes) and the stored length.
    pub fn parts(&self) -> (Option<Codec>, usize) {
        (codec(self.stored), (self.stored & STORED_MASK) as usize)
    }
}

fn codec(stored: u32) -> Option<Codec> {
    match stored >> CODEC_SHIFT {
        0 => Some(Codec::Raw),
        1 => Some(Codec::Zstd),
        2 => Some(Codec::ZstdDictionary),
        _ => None,
    }
}

impl ArchivedFrame {
    /// `None` for a tag no build writes (a damaged archive).
    pub fn codec(&self) -> Option<Codec> {
        codec(self.stored.to_native())
    }

    pub fn stored_len(&self) -> usize {
        (self.stored.to_native() & STORED_MASK) as usize
    }
}

#[derive(Archive, Serialize, Debug, Default)]
#[rkyv(derive(Debug))]
pub struct Catalog {
    /// Every markdown document: skill documents, references and docs. Skill documents and
    /// references first (in skill order), then docs sorted by path.
    pub documents: Vec<Document>,
    /// Where the bytes of every document and skill file lie in the content blob.
    pub store: ContentStore,
    /// Skills sorted by id.
    pub skills: Vec<Skill>,
    /// Every file of every skill, sorted by `skill://` URI, so that the files of a skill
    /// (including those of skills nested inside it) form one contiguous range.
    pub files: Vec<SkillFile>,
    /// Directories at or under a skill root, sorted by URI.
    pub directories: Vec<Directory>,
    /// Perfect-hash index of every exact URI the server answers.
    pub uri_index: UriIndex,
    /// Pre-rendered JSON bodies of the `resource://catalog/*` resources, in the content
    /// store (read only when those resources are).
    pub capabilities: Stored,
    pub skills_index: Stored,
    pub docs_index: Stored,
    /// The full-text index over every markdown document (see `compile::index`).
    pub search: SearchIndex,
    /// Completion candidates that are not already sorted lists of the catalog (skill ids,
    /// ref ids, chunk ids and anchors are: see `cmd::completion`).
    pub completions: Completions,
    /// This release (label, date) and the earlier releases it was built against, each with
    /// what changed since (see `compile::history`). Never part of the fingerprint.
    pub history: History,
    /// How the docs root was read: its site generator and why (`skillpack info`).
    pub docs_site: DocsSite,
    // What start-up reads comes last. rkyv writes a struct's out-of-line data (string
    // bytes, vector items) in field order and the struct itself after it, so these fields
    // and the bytes they point to sit together at the end of the archive, beside its root:
    // start-up touches that one corner instead of pages all over the archive. Each touch
    // maps 64–128 KiB of the executable, which counts as the server's memory for as long
    // as it runs (docs/benchmarks.md, idle RSS).
    pub name: String,
    /// `blake3:<64 hex>` over the sorted (uri, file hash) list, the contract version and the
    /// build settings that shape what is served.
    pub fingerprint: String,
    pub chunk_bytes: u64,
    pub totals: Totals,
    pub startup: StartUp,
}

/// Facts about the catalog that the server needs while it starts, computed at build time
/// so that start-up never searches the catalog for them (see the field order of
/// [`Catalog`]).
#[derive(Archive, Serialize, Debug, Default)]
#[rkyv(derive(Debug))]
pub struct StartUp {
    /// Index in `documents` of the first doc: docs sort after every skill document.
    pub first_doc: u32,
    /// Examples for the tool descriptions, naming real things of this catalog: a document
    /// URI, a chunk of a document that has several (both empty if there is none), search
    /// queries from a skill id and a doc title, and a skill tag.
    pub document_uri: String,
    pub chunk_uri: String,
    pub chunk_id: String,
    pub skill_query: String,
    pub doc_query: String,
    pub tag: String,
    /// This release's label, else its short fingerprint, and how many earlier releases it
    /// knows: the instructions and tool descriptions name them, and the history itself
    /// lies elsewhere in the archive.
    pub release: String,
    pub earlier_releases: u32,
}

/// The docs root's site generator, as the compiler detected it (`site::detect`).
#[derive(Archive, Serialize, Debug, Default, Clone)]
#[rkyv(derive(Debug))]
pub struct DocsSite {
    /// `plain`, `mkdocs`, `hugo`, …
    pub flavor: String,
    /// Why that flavor applies, relative to the docs root.
    pub why: String,
    /// Pages served.
    pub pages: u32,
    /// Docs files that are not pages (partials, excluded, drafts, other locales, site
    /// files), by kind: (`partial`, 3).
    pub not_pages: Vec<(String, u32)>,
}

/// Sorted candidate lists for `completion/complete`, computed at build time so that a
/// completion request is a binary search plus a bounded fuzzy pass.
#[derive(Archive, Serialize, Debug, Default)]
#[rkyv(derive(Debug))]
pub struct Completions {
    /// What `orient`'s `topic` completes to: skill tags, capabilities and ids and the doc
    /// folders, sorted and de-duplicated.
    pub topics: Vec<String>,
    /// Every doc path and every doc folder (with a trailing `/`), sorted by (parent
    /// folder, path): the children of one folder that start with a given prefix form one
    /// contiguous run, which is what segment-wise path completion looks up.
    pub doc_tree: Vec<TreeEntry>,
}

#[derive(Archive, Serialize, Debug, Clone, PartialEq, Eq)]
#[rkyv(derive(Debug))]
pub struct TreeEntry {
    /// Length in bytes of the parent folder prefix of `path` (`""` or `guide/`).
    pub parent_len: u32,
    /// `guide/usage.md`, or `guide/` for a folder.
    pub path: String,
}

impl ArchivedTreeEntry {
    pub fn parent(&self) -> &str {
        self.path
            .as_str()
            .get(..self.parent_len.to_native() as usize)
            .unwrap_or_default()
    }
}

#[derive(Archive, Serialize, Debug, Default, Clone, Copy)]
#[rkyv(derive(Debug))]
pub struct Totals {
    pub skills: u64,
    pub references: u64,
    pub docs: u64,
    pub skill_files: u64,
    pub chunks: u64,
    /// Bytes of every served file (skill files and docs), before de-duplication.
    pub content_bytes: u64,
    /// Bytes of the content blob (identical files stored once).
    pub blob_bytes: u64,
}

#[derive(Archive, Serialize, Debug, Clone, Copy, PartialEq, Eq)]
#[rkyv(derive(Debug, PartialEq, Eq))]
pub enum DocKind {
    /// A skill's `SKILL.md`.
    Skill { skill: u32 },
    /// A markdown file inside a skill other than `SKILL.md`.
    Reference { skill: u32, reference: u32 },
    /// A markdown file under the docs root.
    Doc,
}

#[derive(Archive, Serialize, Debug)]
#[rkyv(derive(Debug))]
pub struct Document {
    /// Canonical `resource://` URI.
    pub uri: String,
    pub kind: DocKind,
    /// Docs: path relative to the docs root. Skill files: path relative to the skill root.
    pub path: String,
    /// MCP resource `name`: skill id, ref id or doc path.
    pub name: String,
    pub title: String,
    /// At most three sentences.
    pub summary: String,
    pub content: Stored,
    /// First 12 hex digits of the blake3 hash of the bytes.
    pub version: String,
    /// Chunks in the document: listings show it without reading the chunk table.
    pub chunk_count: u32,
    /// Bytes of the document's tables ([`crate::tables`]: outline, chunk table, links,
    /// `previous`), which end its last content frame, after its text (a frame of their own
    /// when the text is cut into several, so that a read of one part of a long document
    /// decodes that part and the tables, not its last part too). They are read with
    /// the text, and in its frame compress against it.
    pub tables: u32,
    // The tables themselves: compiled here, baked into the content store, not the archive.
    #[rkyv(with = rkyv::with::Skip)]
    pub outline: Vec<Heading>,
    #[rkyv(with = rkyv::with::Skip)]
    pub chunks: Vec<Chunk>,
    #[rkyv(with = rkyv::with::Skip)]
    pub links: Vec<Link>,
    /// What changed in this document since the previous release (its `_meta` says so, so
    /// that a client holding the previous release's sections knows which to keep).
    #[rkyv(with = rkyv::with::Skip)]
    pub previous: PreviousChange,
}

/// A document against the previous release.
#[derive(Archive, Serialize, Debug, Clone, PartialEq, Eq, Default)]
#[rkyv(derive(Debug))]
pub enum PreviousChange {
    /// This release was built without a previous manifest.
    #[default]
    FirstRelease,
    Unchanged,
    Added,
    /// Anchors of the sections added, changed (own text) and removed. All three are empty
    /// when only the text before the first heading changed.
    Changed {
        added: Vec<String>,
        changed: Vec<String>,
        removed: Vec<String>,
    },
}

#[derive(Archive, Serialize, Debug, Clone, PartialEq, Eq)]
#[rkyv(derive(Debug))]
pub struct Heading {
    pub level: u8,
    pub text: String,
    /// GitHub-style slug, unique within the document.
    pub anchor: String,
    /// Byte range of the section: from the heading to the next heading of the same or a
    /// higher level (or the end of the document). Documents are far below 4 GiB.
    pub start: u32,
    pub end: u32,
    /// Outline index of the section this one is part of (the nearest heading above it of a
    /// higher level), or [`NO_HEADING`] for a top-level section.
    pub parent: u32,
    /// First 48 bits of the blake3 hash of the section's bytes (`start..end`): the same
    /// bytes keep the same version in every release ([`short_version`]).
    pub version: u64,
}

#[derive(Archive, Serialize, Debug, Clone, PartialEq, Eq)]
#[rkyv(derive(Debug))]
pub struct Chunk {
    /// Section-stable id: the section's anchor, `-2`, `-3`… for the parts of a split section.
    pub id: String,
    /// The heading it shows: an index into the document's outline, or [`NO_HEADING`] for
    /// the text before the first section, shown under the document's title
    /// ([`ArchivedDocument::chunk_heading`]). An index, not the text: the outline has it.
    pub heading: u32,
    pub start: u32,
    pub end: u32,
    /// First 48 bits of the blake3 hash of the chunk's bytes ([`short_version`]).
    pub version: u64,
}

impl Document {
    /// [`ArchivedDocument::chunk_heading`], before archiving.
    pub fn chunk_heading(&self, chunk: &Chunk) -> &str {
        self.outline
            .get(chunk.heading as usize)
            .map_or(self.title.as_str(), |h| h.text.as_str())
    }
}

/// A content version: the first 48 bits of the blake3 hash of the bytes, which print as
/// the same 12 hex digits as a document's `version`.
pub fn short_version(bytes: &[u8]) -> u64 {
    let hash = blake3::hash(bytes);
    hash.as_bytes()[..6]
        .iter()
        .fold(0u64, |acc, b| (acc << 8) | u64::from(*b))
}

/// The 12 hex digits of a [`short_version`].
pub fn version_hex(version: u64) -> String {
    format!("{version:012x}")
}

#[derive(Archive, Serialize, Debug, Clone, PartialEq, Eq)]
#[rkyv(derive(Debug))]
pub struct Link {
    pub text: String,
    /// As written in the markdown.
    pub href: String,
    /// What it resolves to: its catalog URI is the target's, then `#` and `fragment` when
    /// that is not empty ([`ArchivedCatalog::link_uri`]). Stored as an index, not a URI:
    /// links are the most repeated strings of a linked docs site.
    pub target: LinkTarget,
    /// The anchor, as written into the URI (percent-encoded).
    pub fragment: String,
}

#[derive(Archive, Serialize, Debug, Clone, Copy, PartialEq, Eq)]
#[rkyv(derive(Debug, PartialEq, Eq))]
pub enum LinkTarget {
    Document(u32),
    /// A skill file that is not a document (a script, a template).
    File(u32),
}

#[derive(Archive, Serialize, Debug)]
#[rkyv(derive(Debug))]
pub struct Skill {
    pub id: String,
    /// Folder path relative to the skills root (`team/deploy-app`).
    pub path: String,
    pub description: String,
    pub tags: Vec<String>,
    pub capabilities: Vec<String>,
    /// The frontmatter exactly as authored, rendered as a JSON object.
    pub frontmatter_json: String,
    /// Index of the `SKILL.md` document.
    pub document: u32,
    pub references: Vec<Reference>,
    /// Range into [`Catalog::files`]: this skill's files, nested skills' files included.
    pub files_start: u32,
    pub files_end: u32,
    /// `skill://<path>/SKILL.md`.
    pub skill_md_uri: String,
    /// What to call it in a listing: its SKILL.md's first top-level heading ("PDF
    /// processing"), else the document's title (the frontmatter name).
    pub title: String,
    /// First 12 hex digits of blake3 over the skill's (path, file hash) list.
    pub version: String,
    /// Sum of the sizes of the skill's files.
    pub size: u64,
    /// Pre-rendered body of `resource://catalog/skills/{id}`, in the content store.
    pub record: Stored,
}

#[derive(Archive, Serialize, Debug, Clone, PartialEq, Eq)]
#[rkyv(derive(Debug))]
pub struct Reference {
    pub id: String,
    pub document: u32,
}

#[derive(Archive, Serialize, Debug)]
#[rkyv(derive(Debug))]
pub struct SkillFile {
    /// `skill://<skill path>/<file path>`, percent-encoded.
    pub uri: String,
    /// Path relative to the skills root.
    pub path: String,
    pub mime_type: String,
    /// Index of the document this file also is (a `SKILL.md` or a reference), if any.
    pub document: Option<u32>,
    /// Its SHA-256, shown as `sha256:<64 lowercase hex>` (SEP-2640).
    pub sha256: Sha256,
    pub size: u64,
    pub content: Stored,
    /// UTF-8 without NUL and not of a binary type: served as text, otherwise as a base64
    /// blob.
    pub is_text: bool,
}

/// A SHA-256 digest: 32 bytes in the archive, `sha256:<64 lowercase hex>` when shown.
#[derive(Archive, Serialize, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[rkyv(derive(Debug))]
pub struct Sha256(pub [u8; 32]);

fn write_sha256(bytes: &[u8; 32], f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
    f.write_str("sha256:")?;
    for b in bytes {
        write!(f, "{b:02x}")?;
    }
    Ok(())
}

impl std::fmt::Display for Sha256 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write_sha256(&self.0, f)
    }
}

impl std::fmt::Display for ArchivedSha256 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write_sha256(&self.0, f)
    }
}

#[derive(Archive, Serialize, Debug)]
#[rkyv(derive(Debug))]
pub struct Directory {
    /// `skill://<path>` without a trailing slash.
    pub uri: String,
    pub children: Vec<DirectoryChild>,
}

#[derive(Archive, Serialize, Debug, Clone, Copy, PartialEq, Eq)]
#[rkyv(derive(Debug, PartialEq, Eq))]
pub enum DirectoryChild {
    File(u32),
    Directory(u32),
}

/// This release and the earlier ones it knows, newest first.
#[derive(Archive, Serialize, Debug, Default)]
#[rkyv(derive(Debug))]
pub struct History {
    /// The crate version that built this release (for the manifest).
    pub crate_version: String,
    pub label: String,
    /// `SOURCE_DATE_EPOCH` (seconds), if the build set it.
    pub epoch: Option<u64>,
    /// Earlier releases, newest first (at most `compile::history::MAX_RELEASES`), each with
    /// the change set from it to this release.
    pub earlier: Vec<EarlierRelease>,
}

#[derive(Archive, Serialize, Debug, Clone, PartialEq, Eq)]
#[rkyv(derive(Debug))]
pub struct EarlierRelease {
    /// `blake3:<64 hex>`.
    pub fingerprint: String,
    pub label: String,
    pub epoch: Option<u64>,
    pub changes: ChangeSet,
}

/// What changed from an earlier release to this one. Both lists are sorted by URI.
#[derive(Archive, Serialize, Deserialize, Debug, Clone, PartialEq, Eq, Default)]
#[rkyv(derive(Debug))]
pub struct ChangeSet {
    /// Markdown documents (skill documents, references, docs).
    pub documents: Vec<DocumentChange>,
    /// Skill files that are not markdown documents (scripts, templates, assets).
    pub files: Vec<FileChange>,
}

#[derive(Archive, Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[rkyv(derive(Debug, PartialEq, Eq))]
pub enum ChangeKind {
    Added,
    Removed,
    Changed,
}

#[derive(Archive, Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
#[rkyv(derive(Debug))]
pub struct DocumentChange {
    pub uri: String,
    pub kind: ChangeKind,
    /// The skill it belongs to, or empty for a doc.
    pub skill: String,
    pub title: String,
    /// Its version in the earlier release (empty if added): what lets the next release
    /// compose change sets exactly.
    pub from_version: String,
    /// For a changed document, its sections by anchor, in reading order. An empty anchor
    /// is the text before the first heading.
    pub sections: Vec<SectionChange>,
    /// A changed document whose sections in the earlier release are not known (it was
    /// removed and added back in between): read it whole.
    pub whole: bool,
}

#[derive(Archive, Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
#[rkyv(derive(Debug))]
pub struct SectionChange {
    pub anchor: String,
    pub kind: ChangeKind,
    /// The version of the section's own text (heading to the next heading) in the earlier
    /// release; empty if added.
    pub from_own: String,
}

#[derive(Archive, Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
#[rkyv(derive(Debug))]
pub struct FileChange {
    pub uri: String,
    pub kind: ChangeKind,
    pub skill: String,
    /// First 12 hex digits of its sha256 in the earlier release (empty if added).
    pub from_sha256: String,
}

/// What an exact URI resolves to.
#[derive(Archive, Serialize, Debug, Clone, Copy, PartialEq, Eq)]
#[rkyv(derive(Debug, PartialEq, Eq))]
pub enum Target {
    Capabilities,
    SkillsIndex,
    DocsIndex,
    SkillRecord(u32),
    Document(u32),
    Chunk {
        document: u32,
        chunk: u32,
    },
    SkillFile(u32),
    Directory(u32),
    /// `resource://catalog/changes[/{since}]`: the change set against earlier release
    /// `i` (an index into `History::earlier`), or [`SAME_RELEASE`] for this very release.
    /// Never in the URI index: `since` is resolved by `cmd::changes`.
    Changes(u32),
}

/// [`Target::Changes`] of this release itself: nothing changed.
pub const SAME_RELEASE: u32 = u32::MAX;

/// A perfect-hash map from URI to [`Target`], generated at build time with
/// `phf_generator` and probed at run time with `phf_shared` — the same scheme as a
/// `phf::Map`, but with its tables stored in the catalog blob rather than in generated
/// Rust source, so that rustc's work does not grow with the catalog.
///
/// It stores no URI strings: a target determines its canonical URI (a document's `uri`, a
/// file's…), so a probe is confirmed against the entry it lands on
/// ([`ArchivedCatalog::lookup`]). That keeps the index at a few bytes per URI, and a
/// lookup touches only the pages that the read then serves from anyway. Chunk URIs are not
/// in it: a chunk is its document's URI plus `/chunks/<id>`, found in the document's chunk
/// table once the document is (`cmd::lookup`), which the read decodes anyway.
#[derive(Archive, Serialize, Debug, Default)]
#[rkyv(derive(Debug))]
pub struct UriIndex {
    pub key: u64,
    /// Displacement pairs, flattened: `disps[2i]`, `disps[2i + 1]`.
    pub disps: Vec<u32>,
    /// The target of the URI hashed to each slot, as [`Target::slot`] packs it.
    pub targets: Vec<u32>,
}

/// A slot packs a target's kind in its top four bits and its index in the rest.
const SLOT_SHIFT: u32 = 28;

impl Target {
    /// The target as one number, for the URI index (`None` for the targets it never
    /// holds: chunks and change sets, and indexes past 2^28).
    pub fn slot(self) -> Option<u32> {
        let (kind, index) = match self {
            Target::Capabilities => (0, 0),
            Target::SkillsIndex => (1, 0),
            Target::DocsIndex => (2, 0),
            Target::SkillRecord(i) => (3, i),
            Target::Document(i) => (4, i),
            Target::SkillFile(i) => (5, i),
            Target::Directory(i) => (6, i),
            Target::Chunk { .. } | Target::Changes(_) => return None,
        };
        (index < 1 << SLOT_SHIFT).then_some(kind << SLOT_SHIFT | index)
    }

    /// The target a slot holds (`None` for a kind no build writes).
    pub fn from_slot(slot: u32) -> Option<Target> {
        let index = slot & ((1 << SLOT_SHIFT) - 1);
        Some(match slot >> SLOT_SHIFT {
            0 => Target::Capabilities,
            1 => Target::SkillsIndex,
            2 => Target::DocsIndex,
            3 => Target::SkillRecord(index),
            4 => Target::Document(index),
            5 => Target::SkillFile(index),
            6 => Target::Directory(index),
            _ => return None,
        })
    }
}

impl ArchivedUriIndex {
    /// The target whose slot `uri` hashes to: the answer if the catalog serves `uri`, and
    /// some unrelated target otherwise (see [`ArchivedCatalog::lookup`]).
    pub fn candidate(&self, uri: &str) -> Option<Target> {
        let len = self.targets.len();
        let buckets = self.disps.len() / 2;
        if len == 0 || buckets == 0 {
            return None;
        }
        let hashes = phf_shared::hash(uri, &self.key.to_native());
        let bucket = (hashes.g % buckets as u32) as usize;
        let d1 = self.disps[2 * bucket].to_native();
        let d2 = self.disps[2 * bucket + 1].to_native();
        let slot = phf_shared::displace(hashes.f1, hashes.f2, d1, d2) % len as u32;
        Target::from_slot(self.targets.get(slot as usize)?.to_native())
    }

    /// Number of URIs in the index.
    pub fn len(&self) -> usize {
        self.targets.len()
    }

    pub fn is_empty(&self) -> bool {
        self.targets.is_empty()
    }
}

impl ArchivedCatalog {
    /// The catalog URI a link resolves to.
    pub fn link_uri(&self, link: &Link) -> String {
        let base = match link.target {
            LinkTarget::Document(d) => self.documents.get(d as usize).map(|d| d.uri.as_str()),
            LinkTarget::File(f) => self.files.get(f as usize).map(|f| f.uri.as_str()),
        }
        .unwrap_or_default();
        if link.fragment.is_empty() {
            base.to_owned()
        } else {
            format!("{base}#{}", link.fragment)
        }
    }

    /// The target of `uri`, if the catalog serves exactly that URI (canonical spelling).
    pub fn lookup(&self, uri: &str) -> Option<Target> {
        let target = self.uri_index.candidate(uri)?;
        self.spells(target, uri).then_some(target)
    }

    /// Whether `uri` is the canonical URI of `target`.
    pub fn spells(&self, target: Target, uri: &str) -> bool {
        use crate::uri;
        match target {
            Target::Capabilities => uri == uri::CAPABILITIES,
            Target::SkillsIndex => uri == uri::SKILLS_INDEX,
            Target::DocsIndex => uri == uri::DOCS_INDEX,
            Target::SkillRecord(i) => self.skills.get(i as usize).is_some_and(|skill| {
                uri.strip_prefix(uri::SKILL_RECORD_PREFIX)
                    .is_some_and(|rest| uri::is_encoded_segment(rest, &skill.id))
            }),
            Target::Document(d) => self
                .documents
                .get(d as usize)
                .is_some_and(|document| document.uri == uri),
            Target::SkillFile(i) => self
                .files
                .get(i as usize)
                .is_some_and(|file| file.uri == uri),
            Target::Directory(i) => self
                .directories
                .get(i as usize)
                .is_some_and(|directory| directory.uri == uri),
            Target::Chunk { .. } | Target::Changes(_) => false,
        }
    }
}

// The fields the search scores: defined with the postings that count them.
pub use crate::postings::{
    D_BODY, D_DESCRIPTION, D_HEADINGS, D_NAME, D_TITLE, DOCUMENT_FIELDS, P_BODY, P_CONTEXT,
    P_HEADING, PASSAGE_FIELDS,
};

/// A passage heading of no heading (text before the first heading).
pub const NO_HEADING: u32 = u32::MAX;

/// The full-text index, built at compile time and read in place: a sorted term dictionary
/// whose entries point at postings lists in one byte array (formats in `postings`).
///
/// The unit of retrieval is the *passage*: the text between two consecutive cuts, where
/// every heading (any level) and every chunk boundary is a cut. A passage therefore lies
/// in exactly one chunk and under exactly one most specific heading, which is what a hit
/// names. Passages are numbered in document order, so the passages of a document are one
/// contiguous range and postings lists visit documents in order.
#[derive(Archive, Serialize, Debug, Default)]
#[rkyv(derive(Debug))]
pub struct SearchIndex {
    /// The terms, sorted and front-coded in blocks (`postings::DictionaryWriter`).
    pub dictionary: Vec<u8>,
    /// Per block of the dictionary: where it starts in `dictionary`, and where its first
    /// term's lists start in `postings`.
    pub blocks: Vec<TermBlock>,
    pub term_count: u32,
    pub postings: Vec<u8>,
    /// Every passage, in passage order ([`PassageTable`]).
    pub passages: PassageTable,
    /// Every passage's token table (`postings::write_token_starts`), at
    /// [`Passage::tokens`]: where each token of its body starts.
    pub token_starts: Vec<u8>,
    /// One per [`Catalog::documents`] entry, same order.
    pub documents: Vec<DocumentStats>,
    /// Average field lengths in tokens, for BM25 length normalisation.
    pub passage_avg_len: [f32; PASSAGE_FIELDS],
    pub document_avg_len: [f32; DOCUMENT_FIELDS],
    /// The parameters the document summaries' impacts were computed under
    /// ([`crate::postings::IMPACT_PARAMS`]); a search under others does not use them.
    pub impact_params: [f32; crate::postings::IMPACT_PARAM_COUNT],
    /// The joins of documents of more than [`crate::postings::MASK_PASSAGES`] passages
    /// ([`DocumentStats::heading_joins`]), `n / 64` rounded up heading words then as many chunk
    /// words for a document of `n` passages (bit `i` of word `i / 64`: passage
    /// `first_passage + i`): kept apart so that every document's stats stay one size.
    pub long_joins: Vec<u64>,
}

#[derive(Archive, Serialize, Debug, Clone, Copy, PartialEq, Eq)]
#[rkyv(derive(Debug))]
pub struct TermBlock {
    // Offsets, not lengths: u32 holds them because rkyv's 32-bit relative pointers keep
    // the whole archive below 2 GiB (8 bytes a block rather than 16 with a u64).
    pub dictionary: u32,
    pub postings: u32,
}

/// A passage as the compiler builds it, and as [`ArchivedSearchIndex::passage`] reads it
/// back from the [`PassageTable`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Passage {
    pub document: u32,
    /// Index into the document's chunks.
    pub chunk: u32,
    /// Index into the document's outline, or [`NO_HEADING`].
    pub heading: u32,
    /// The outline index of `heading`'s parent, or [`NO_HEADING`]: here so that ranking
    /// does not reach into the outline for it.
    pub parent: u32,
    /// Byte range in the document.
    pub start: u32,
    pub end: u32,
    /// Where its token table starts in [`SearchIndex::token_starts`] (it has
    /// `lengths[P_BODY]` entries).
    pub tokens: u32,
    /// Field lengths in tokens.
    pub lengths: [u32; PASSAGE_FIELDS],
    /// It starts at its heading: the first passage of its section. A document's headings
    /// field counts each heading once, as the heading field of this passage.
    pub opens_section: bool,
}

/// The passages: each one's document as a plain column (the ranking asks it of every
/// posting it reads), the rest packed into as many bits per field as the catalog needs
/// (`packed`; a 10,000-document catalog's passages take 16 bytes each instead of 44).
#[derive(Archive, Serialize, Debug, Default)]
#[rkyv(derive(Debug))]
pub struct PassageTable {
    pub documents: Vec<u32>,
    pub rows: crate::packed::PackedRows,
}

// The fields of a passage row in `PassageTable::rows`. Headings and parents are stored
// plus one, so that NO_HEADING is 0.
const PASSAGE_CHUNK: usize = 0;
const PASSAGE_HEADING: usize = 1;
const PASSAGE_PARENT: usize = 2;
const PASSAGE_START: usize = 3;
const PASSAGE_END: usize = 4;
const PASSAGE_TOKENS: usize = 5;
const PASSAGE_LENGTHS: usize = 6;
const PASSAGE_OPENS: usize = PASSAGE_LENGTHS + PASSAGE_FIELDS;
const PASSAGE_ROW: usize = PASSAGE_OPENS + 1;

impl PassageTable {
    pub fn new(passages: &[Passage]) -> PassageTable {
        let rows: Vec<[u32; PASSAGE_ROW]> = passages
            .iter()
            .map(|p| {
                let mut row = [0u32; PASSAGE_ROW];
                row[PASSAGE_CHUNK] = p.chunk;
                row[PASSAGE_HEADING] = p.heading.wrapping_add(1);
                row[PASSAGE_PARENT] = p.parent.wrapping_add(1);
                row[PASSAGE_START] = p.start;
                row[PASSAGE_END] = p.end;
                row[PASSAGE_TOKENS] = p.tokens;
                row[PASSAGE_LENGTHS..PASSAGE_OPENS].copy_from_slice(&p.lengths);
                row[PASSAGE_OPENS] = u32::from(p.opens_section);
                row
            })
            .collect();
        PassageTable {
            documents: passages.iter().map(|p| p.document).collect(),
            rows: crate::packed::PackedRows::pack(&rows),
        }
    }
}

impl ArchivedPassageTable {
    pub fn len(&self) -> usize {
        self.documents.len()
    }

    pub fn is_empty(&self) -> bool {
        self.documents.is_empty()
    }

    /// A reader of the passages, made once per query.
    pub fn reader(&self) -> Passages<'_> {
        Passages {
            documents: self.documents.as_slice(),
            rows: self.rows.reader(),
        }
    }

    /// Passage `p`, every field (for a reader of a few passages: a hit).
    pub fn get(&self, p: u32) -> Passage {
        self.reader().get(p)
    }
}

/// Reads passages of a [`PassageTable`] ([`ArchivedPassageTable::reader`]).
#[derive(Clone, Copy)]
pub struct Passages<'a> {
    documents: &'a [rkyv::rend::u32_le],
    rows: crate::packed::Reader<'a, PASSAGE_ROW>,
}

/// One passage's packed fields ([`Passages::row`]), read with [`Passages`]' methods.
pub type PassageRow = crate::packed::Row;

impl Passages<'_> {
    /// The document of passage `p` (`u32::MAX` past the end).
    #[inline]
    pub fn document(&self, p: u32) -> u32 {
        self.documents
            .get(p as usize)
            .map_or(u32::MAX, |d| d.to_native())
    }

    /// Passage `p`'s packed fields, loaded at once.
    #[inline]
    pub fn row(&self, p: u32) -> PassageRow {
        self.rows.row(p)
    }

    /// A passage's chunk, heading and parent (outline indexes, or [`NO_HEADING`]).
    #[inline]
    pub fn place(&self, row: PassageRow) -> (u32, u32, u32) {
        (
            self.rows.field(row, PASSAGE_CHUNK),
            self.rows.field(row, PASSAGE_HEADING).wrapping_sub(1),
            self.rows.field(row, PASSAGE_PARENT).wrapping_sub(1),
        )
    }

    /// A passage's field lengths in tokens.
    #[inline]
    pub fn lengths(&self, row: PassageRow) -> [u32; PASSAGE_FIELDS] {
        [
            self.rows.field(row, PASSAGE_LENGTHS),
            self.rows.field(row, PASSAGE_LENGTHS + 1),
            self.rows.field(row, PASSAGE_LENGTHS + 2),
        ]
    }

    /// Whether a passage starts at its heading.
    #[inline]
    pub fn opens_section(&self, row: PassageRow) -> bool {
        self.rows.field(row, PASSAGE_OPENS) != 0
    }

    /// Passage `p`, every field.
    pub fn get(&self, p: u32) -> Passage {
        let row = self.row(p);
        let (chunk, heading, parent) = self.place(row);
        Passage {
            document: self.document(p),
            chunk,
            heading,
            parent,
            start: self.rows.field(row, PASSAGE_START),
            end: self.rows.field(row, PASSAGE_END),
            tokens: self.rows.field(row, PASSAGE_TOKENS),
            lengths: self.lengths(row),
            opens_section: self.opens_section(row),
        }
    }
}

#[derive(Archive, Serialize, Debug, Clone, PartialEq)]
#[rkyv(derive(Debug))]
pub struct DocumentStats {
    pub first_passage: u32,
    pub passage_count: u32,
    pub lengths: [u32; DOCUMENT_FIELDS],
    /// Bit `i` (from 1, for the first [`crate::postings::MASK_PASSAGES`] passages): passage
    /// `first_passage + i` has the heading of the passage before it. With
    /// [`DocumentStats::chunk_joins`], it lets a search count a document's hits from the
    /// passage masks of its terms' summaries ([`crate::postings::Summary::own`]): two
    /// matching passages are one hit when they share a section or a chunk, which, each
    /// being one run of passages, holds when every passage between them has the same
    /// heading, or the same chunk, as the one before it. For a document of more passages,
    /// where its joins start in [`SearchIndex::long_joins`]. `u64::MAX` (with
    /// `chunk_joins`) when not recorded: a heading or chunk in more than one run.
    pub heading_joins: u64,
    /// Bit `i`: passage `first_passage + i` is in the chunk of the passage before it
    /// (`u64::MAX` for a document of more than [`crate::postings::MASK_PASSAGES`]
    /// passages).
    pub chunk_joins: u64,
    /// The shortest of the document's passages, per passage field (in tokens; headings
    /// among the passages that have one): with a summary's largest frequencies, what
    /// bounds a term's BM25F in any one of them.
    pub shortest: [u32; PASSAGE_FIELDS],
}

/// Words of each of a document's two joins in [`SearchIndex::long_joins`], for a document
/// of more than [`crate::postings::MASK_PASSAGES`] passages whose joins are recorded
/// (`heading_joins` not `u64::MAX`: [`DocumentStats::heading_joins`]). Over plain numbers,
/// so that the compiler, which writes a long document's masks for such a document only,
/// and a search, which reads them ([`long_joins_words`]), test one predicate.
#[inline]
pub fn long_joins_words_of(passage_count: u32, heading_joins: u64) -> Option<usize> {
    let per_word = crate::postings::MASK_PASSAGES;
    (passage_count > per_word && heading_joins != u64::MAX)
        .then_some(passage_count.div_ceil(per_word) as usize)
}

/// Whether a document's passages are counted from one mask word: at most
/// [`crate::postings::MASK_PASSAGES`] of them, with joins recorded. The compiler writes
/// masks for such a document, and a search counts it from them, by this one predicate.
#[inline]
pub fn maskable_of(passage_count: u32, heading_joins: u64) -> bool {
    passage_count <= crate::postings::MASK_PASSAGES && heading_joins != u64::MAX
}

/// [`long_joins_words_of`] for a document's archived stats.
#[inline]
pub fn long_joins_words(stats: &ArchivedDocumentStats) -> Option<usize> {
    long_joins_words_of(
        stats.passage_count.to_native(),
        stats.heading_joins.to_native(),
    )
}

impl ArchivedSearchIndex {
    /// The dictionary entry of an analysed term.
    pub fn term(&self, text: &str) -> Option<crate::postings::TermEntry> {
        let blocks = self.blocks.as_slice();
        crate::postings::find_with(
            self.dictionary.as_slice(),
            blocks.len(),
            |i| {
                (
                    blocks[i].dictionary.to_native(),
                    blocks[i].postings.to_native(),
                )
            },
            self.term_count.to_native(),
            text.as_bytes(),
        )
    }

    /// Check every term's document summary ([`crate::postings::Summaries::validate`]),
    /// which the archive's own validation does not look into: for an index this binary did
    /// not compile (`examples/search_latency --load`).
    pub fn validate_summaries(&self) -> Result<(), String> {
        for (d, stats) in self.documents.iter().enumerate() {
            if let Some(words) = long_joins_words(stats) {
                let start = stats.heading_joins.to_native();
                let end = usize::try_from(start)
                    .ok()
                    .and_then(|start| start.checked_add(words.checked_mul(2)?));
                if end.is_none_or(|end| end > self.long_joins.len()) {
                    return Err(format!("document {d}'s joins lie past the table"));
                }
            }
        }
        for (term, entry) in self.terms() {
            if entry.summaries.is_empty() {
                continue;
            }
            let bytes = self
                .postings
                .as_slice()
                .get(entry.summaries.clone())
                .ok_or_else(|| format!("{term:?}: its summary lies past the postings"))?;
            let summaries = crate::postings::Summaries::new(bytes)
                .ok_or_else(|| format!("{term:?}: its summary's parts do not fit in it"))?;
            summaries
                .validate(entry.passage_postings.len())
                .map_err(|error| format!("{term:?}: {error}"))?;
        }
        Ok(())
    }

    /// Every term with its entry, in dictionary order (tests, `skillpack info`).
    pub fn terms(&self) -> impl Iterator<Item = (String, crate::postings::TermEntry)> + '_ {
        let count = self.term_count.to_native() as usize;
        self.blocks.iter().enumerate().flat_map(move |(i, block)| {
            let mut reader = crate::postings::BlockReader::new(
                self.dictionary.as_slice(),
                block.dictionary.to_native() as usize,
                block.postings.to_native() as usize,
                count.saturating_sub(i * crate::postings::TERM_BLOCK),
            );
            std::iter::from_fn(move || {
                let entry = reader.next_entry()?;
                Some((String::from_utf8_lossy(reader.term()).into_owned(), entry))
            })
        })
    }

    pub fn bytes(&self, range: &std::ops::Range<usize>) -> &[u8] {
        self.postings
            .as_slice()
            .get(range.clone())
            .unwrap_or_default()
    }

    /// The first `count` entries of a passage's token table (at most all of them), decoded
    /// into `out`; `text` is the passage's text, which the table was written for.
    pub fn token_starts(&self, passage: &Passage, text: &str, count: usize, out: &mut Vec<u32>) {
        let start = passage.tokens as usize;
        let table = self
            .token_starts
            .as_slice()
            .get(start..)
            .unwrap_or_default();
        crate::postings::read_token_starts(
            table,
            count.min(passage.lengths[P_BODY] as usize),
            text,
            out,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_target_packs_into_a_slot_and_back_where_the_index_can_hold_it() {
        let held = [
            Target::Capabilities,
            Target::SkillsIndex,
            Target::DocsIndex,
            Target::SkillRecord(7),
            Target::Document(0),
            Target::Document((1 << SLOT_SHIFT) - 1),
            Target::SkillFile(123_456),
            Target::Directory(3),
        ];
        for target in held {
            let slot = target.slot().expect("the index holds it");
            assert_eq!(Target::from_slot(slot), Some(target));
        }
        // Never in the index: chunks, change sets, indexes past 2^28.
        assert_eq!(
            Target::Chunk {
                document: 1,
                chunk: 2
            }
            .slot(),
            None
        );
        assert_eq!(Target::Changes(0).slot(), None);
        assert_eq!(Target::Document(1 << SLOT_SHIFT).slot(), None);
        // A kind no build writes.
        assert_eq!(Target::from_slot(u32::MAX), None);
    }

    #[test]
    fn a_digest_shows_as_sep_2640_spells_it() {
        let mut bytes = [0u8; 32];
        bytes[0] = 0xab;
        bytes[31] = 0x01;
        let shown = Sha256(bytes).to_string();
        assert_eq!(shown.len(), "sha256:".len() + 64);
        assert!(shown.starts_with("sha256:ab00") && shown.ends_with("0001"));
    }
}
