//! The baked catalog at run time: the archive and content blob embedded by `build.rs`,
//! read in place. Nothing is parsed, copied or allocated at start-up; pages of the binary
//! are touched only when a request needs them.

use crate::model::{
    ArchivedCatalog, ArchivedDocument, ArchivedSkill, ArchivedSkillFile, ArchivedSpan,
    ArchivedTarget,
};

/// Byte data aligned for the archive (`include_bytes!` only guarantees alignment 1).
#[repr(C, align(16))]
pub struct Aligned<T: ?Sized>(pub T);

mod baked {
    include!(concat!(env!("OUT_DIR"), "/baked.rs"));
}

/// `<crate version>+<first 12 hex digits of the fingerprint>`.
pub const SERVER_VERSION: &str = baked::SERVER_VERSION;

/// A handle on the catalog: two references, free to copy.
#[derive(Clone, Copy)]
pub struct Catalog {
    archive: &'static ArchivedCatalog,
    content: &'static [u8],
}

impl std::fmt::Debug for Catalog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Catalog")
            .field("name", &self.name())
            .field("fingerprint", &self.fingerprint())
            .finish()
    }
}

impl Catalog {
    /// The catalog compiled into this binary.
    pub fn baked() -> Catalog {
        // SAFETY: `build.rs` wrote these bytes with `rkyv::to_bytes` for exactly this
        // `Catalog` type (both are compiled from `src/model.rs`), they are embedded
        // read-only and 16-byte aligned. Validating them here would walk the whole archive
        // at every start-up, which is what this design avoids; the test suite validates
        // the archive with `rkyv::access` instead.
        let archive = unsafe { rkyv::access_unchecked::<ArchivedCatalog>(&baked::CATALOG.0) };
        Catalog {
            archive,
            content: baked::CONTENT,
        }
    }

    /// A catalog over an archive and content blob from elsewhere: a catalog compiled
    /// in-process (tests, benchmarks). The bytes must live as long as the program.
    pub fn from_parts(archive: &'static ArchivedCatalog, content: &'static [u8]) -> Catalog {
        Catalog { archive, content }
    }

    /// Validate the embedded archive completely (for tests and `skillpack info`).
    pub fn verify_baked() -> Result<(), String> {
        rkyv::access::<ArchivedCatalog, rkyv::rancor::Error>(&baked::CATALOG.0)
            .map(|_| ())
            .map_err(|error| error.to_string())
    }

    pub fn archive(&self) -> &'static ArchivedCatalog {
        self.archive
    }

    /// The content blob the archive's spans point into.
    pub fn content(&self) -> &'static [u8] {
        self.content
    }

    pub fn name(&self) -> &'static str {
        self.archive.name.as_str()
    }

    /// `blake3:<64 hex>`.
    pub fn fingerprint(&self) -> &'static str {
        self.archive.fingerprint.as_str()
    }

    /// First 12 hex digits of the fingerprint.
    pub fn short_fingerprint(&self) -> &'static str {
        let hex = self.fingerprint().trim_start_matches("blake3:");
        &hex[..hex.len().min(12)]
    }

    pub fn lookup(&self, uri: &str) -> Option<&'static ArchivedTarget> {
        self.archive.uri_index.get(uri)
    }

    pub fn bytes(&self, span: &ArchivedSpan) -> &'static [u8] {
        let start = span.offset.to_native() as usize;
        let end = start + span.len.to_native() as usize;
        self.content.get(start..end).unwrap_or_default()
    }

    /// The text of a document (validated as UTF-8 at build time).
    pub fn text(&self, document: &ArchivedDocument) -> &'static str {
        let bytes = self.bytes(&document.content);
        // Documents are checked to be UTF-8 when compiled; fall back to an empty string
        // rather than panic should the archive and blob ever disagree.
        std::str::from_utf8(bytes).unwrap_or_default()
    }

    /// A byte range of a document's text. Ranges come from the archive (chunk and section
    /// boundaries, on character boundaries); only the slice is validated, not the document.
    pub fn text_range(&self, document: &ArchivedDocument, start: u64, end: u64) -> &'static str {
        let bytes = self.bytes(&document.content);
        bytes
            .get(start as usize..end as usize)
            .and_then(|slice| std::str::from_utf8(slice).ok())
            .unwrap_or_default()
    }

    pub fn documents(&self) -> &'static [ArchivedDocument] {
        self.archive.documents.as_slice()
    }

    pub fn document(&self, index: u32) -> &'static ArchivedDocument {
        &self.archive.documents[index as usize]
    }

    pub fn skills(&self) -> &'static [ArchivedSkill] {
        self.archive.skills.as_slice()
    }

    pub fn skill(&self, index: u32) -> &'static ArchivedSkill {
        &self.archive.skills[index as usize]
    }

    pub fn files(&self) -> &'static [ArchivedSkillFile] {
        self.archive.files.as_slice()
    }

    /// The files of a skill, nested skills' files included.
    pub fn skill_files(&self, skill: &ArchivedSkill) -> &'static [ArchivedSkillFile] {
        let start = skill.files_start.to_native() as usize;
        let end = skill.files_end.to_native() as usize;
        self.archive.files.get(start..end).unwrap_or_default()
    }

    /// Index of the skill with this id.
    pub fn skill_by_id(&self, id: &str) -> Option<u32> {
        match self.lookup(&crate::uri::skill_record(id))? {
            ArchivedTarget::SkillRecord(i) => Some(i.to_native()),
            _ => None,
        }
    }
}
