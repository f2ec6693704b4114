//! The baked catalog at run time: the archive and content blob embedded by `build.rs`,
//! read in place. Nothing is parsed, copied, allocated or decompressed at start-up; pages
//! of the binary are touched only when a request needs them, and a read decodes only the
//! frames of the content store it serves ([`content`]).

pub mod breakdown;
pub mod content;
mod decoder;

use std::borrow::Cow;
use std::sync::Arc;

pub use content::{Content, Damaged, Dictionary, View, set_cache_bytes};

use crate::model::{
    ArchivedCatalog, ArchivedDocument, ArchivedSkill, ArchivedSkillFile, ArchivedStored, Target,
};
use crate::tables::DocumentTables;

/// A handle on the catalog: a few references, free to copy.
#[derive(Clone, Copy)]
pub struct Catalog {
    archive: &'static ArchivedCatalog,
    content: Content<'static>,
    /// The archive's bytes (the content blob is `content`), for [`Catalog::verify`] and sizes.
    archive_bytes: &'static [u8],
    /// `<package version>+<first 12 hex digits of the fingerprint>`: `serverInfo.version`.
    server_version: &'static str,
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
    /// The catalog a build script baked with `skillpack_build` (what [`crate::baked!`]
    /// expands to).
    ///
    /// # Safety
    ///
    /// `archive` must be the `catalog.bin` that `skillpack_build` of the same version as
    /// this crate's `skillpack-build` dependency wrote, 16-byte aligned, and `content` the
    /// `content.bin` written with it. [`crate::baked!`] includes both and checks the
    /// version at compile time. Validating the archive here would walk all of it at every
    /// start-up, which is what this design avoids; the test suite and `skillpack info`
    /// validate it with [`Catalog::verify`] instead. `dictionary` is this catalog's own
    /// (a `static` the macro declares, empty until the first read needs it).
    pub unsafe fn from_baked(
        archive: &'static [u8],
        content: &'static [u8],
        dictionary: &'static Dictionary,
        server_version: &'static str,
    ) -> Catalog {
        // SAFETY: the caller guarantees bytes written with `rkyv::to_bytes` for exactly
        // this `Catalog` type (both sides use one `skillpack_build::model`), aligned and
        // embedded read-only.
        let archive_root = unsafe { rkyv::access_unchecked::<ArchivedCatalog>(archive) };
        Catalog {
            archive: archive_root,
            content: Content::new(content, &archive_root.store, dictionary),
            archive_bytes: archive,
            server_version,
        }
    }

    /// A catalog compiled in this process rather than baked into the binary: for tools,
    /// tests and benches that compile content folders at run time (the server itself only
    /// ever uses [`Catalog::from_baked`]).
    ///
    /// The archive is validated completely, then both buffers are leaked: the handle is two
    /// `'static` references, exactly as for the baked catalog, so every `cmd` function
    /// serves it unchanged. Compile once per catalog and keep the handle; each call leaks
    /// the archive and the content blob.
    pub fn from_compiled(output: crate::compile::Output) -> Result<Catalog, String> {
        let server_version: &'static str = output.server_version.clone().leak();
        let archive: &'static rkyv::util::AlignedVec = Box::leak(Box::new(output.archive()));
        let content: &'static [u8] = output.content.leak();
        let archive_root = rkyv::access::<ArchivedCatalog, rkyv::rancor::Error>(archive.as_slice())
            .map_err(|error| format!("the compiled archive does not validate: {error}"))?;
        let dictionary: &'static Dictionary = Box::leak(Box::default());
        Ok(Catalog {
            archive: archive_root,
            content: Content::new(content, &archive_root.store, dictionary),
            archive_bytes: archive.as_slice(),
            server_version,
        })
    }

    /// Validate the archive completely (tests and `skillpack info`): every offset in
    /// bounds, every string UTF-8, every enum tag known; then every document and skill file
    /// (so every frame of the content store) decodes to the bytes its version or sha256
    /// digest names.
    pub fn verify(&self) -> Result<(), String> {
        rkyv::access::<ArchivedCatalog, rkyv::rancor::Error>(self.archive_bytes)
            .map_err(|error| format!("the archive does not validate: {error}"))?;
        for (index, document) in self.documents().iter().enumerate() {
            let bytes = self
                .read(&document.content)
                .map_err(|damage| format!("{}: {damage}", document.uri))?;
            self.tables(index as u32)
                .map_err(|damage| format!("{}: {damage}", document.uri))?;
            if blake3::hash(&bytes).to_hex()[..12] != *document.version.as_str() {
                return Err(format!(
                    "{} decodes to bytes other than those it was built from: this binary is \
                     corrupt; rebuild it or fetch the release again",
                    document.uri
                ));
            }
        }
        for file in self.files() {
            let bytes = self
                .read(&file.content)
                .map_err(|damage| format!("{}: {damage}", file.uri))?;
            if crate::compile::sha256_digest(&bytes) != file.sha256.to_string() {
                return Err(format!(
                    "{} decodes to bytes other than those it was built from: this binary is \
                     corrupt; rebuild it or fetch the release again",
                    file.uri
                ));
            }
        }
        Ok(())
    }

    /// `<package version>+<first 12 hex digits of the fingerprint>`.
    pub fn server_version(&self) -> &'static str {
        self.server_version
    }

    pub fn archive(&self) -> &'static ArchivedCatalog {
        self.archive
    }

    /// Bytes of the embedded archive (metadata, indexes, pre-rendered JSON) and of the
    /// content blob: what the catalog adds to the binary.
    pub fn embedded_bytes(&self) -> (usize, usize) {
        (self.archive_bytes.len(), self.content.blob().len())
    }

    /// The content store: every served byte, in frames.
    pub fn content(&self) -> Content<'static> {
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

    pub fn lookup(&self, uri: &str) -> Option<Target> {
        self.archive.lookup(uri)
    }

    /// The bytes of a stored file (a document, a skill file), decoded.
    pub fn read(&self, stored: &ArchivedStored) -> Result<Cow<'static, [u8]>, Damaged> {
        self.content.read(stored, 0..usize::MAX)
    }

    /// The text of a document (validated as UTF-8 at build time).
    pub fn text(&self, document: &ArchivedDocument) -> Result<Cow<'static, str>, Damaged> {
        self.content.text(&document.content, 0..usize::MAX)
    }

    /// A byte range of a document's text. Ranges come from the archive (chunk and section
    /// boundaries, on character boundaries); only the frames it spans are decoded.
    pub fn text_range(
        &self,
        document: &ArchivedDocument,
        start: impl Into<u64>,
        end: impl Into<u64>,
    ) -> Result<Cow<'static, str>, Damaged> {
        let (start, end) = (start.into() as usize, end.into() as usize);
        self.content.text(&document.content, start..end)
    }

    pub fn documents(&self) -> &'static [ArchivedDocument] {
        self.archive.documents.as_slice()
    }

    /// The docs (not skill documents): they sort after every skill document, from an index
    /// computed at build time.
    pub fn docs(&self) -> &'static [ArchivedDocument] {
        let all = self.documents();
        all.get(self.archive.startup.first_doc.to_native() as usize..)
            .unwrap_or_default()
    }

    /// The document at `index` (out of range is a bug of the caller's: indexes come from
    /// the archive).
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
            Target::SkillRecord(i) => Some(i),
            _ => None,
        }
    }

    /// A document's tables: its outline, chunk table, links and what changed since the
    /// previous release, decoded from the end of its last content frame (with its text,
    /// through the caches: a read that serves the text has decoded them already).
    pub fn tables(&self, index: u32) -> Result<Arc<DocumentTables>, Damaged> {
        let document = self.document(index);
        self.content.tables(
            index,
            &document.content,
            document.tables.to_native() as usize,
        )
    }
}

/// The repository's own `skills/` and `docs/` (what the `skillpack` binary bakes), compiled
/// in-process once: unit tests of this crate run on real content without a baked binary.
#[cfg(test)]
pub(crate) fn builtin() -> Catalog {
    static BUILTIN: std::sync::OnceLock<Catalog> = std::sync::OnceLock::new();
    *BUILTIN.get_or_init(|| {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let config =
            crate::compile::Config::from_env(&root, "0.0.0", |_| None).expect("default settings");
        let output = crate::compile::compile(&config).expect("the built-in content compiles");
        Catalog::from_compiled(output).expect("the archive validates")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cmd::resources;
    use crate::compile::{self, Config};
    use crate::model::Target;

    /// Every URI the catalog names, with the target it must resolve to.
    fn named_uris(catalog: &Catalog) -> Vec<(String, Target)> {
        let mut uris = vec![
            (crate::uri::CAPABILITIES.to_owned(), Target::Capabilities),
            (crate::uri::SKILLS_INDEX.to_owned(), Target::SkillsIndex),
            (crate::uri::DOCS_INDEX.to_owned(), Target::DocsIndex),
        ];
        for (i, skill) in catalog.skills().iter().enumerate() {
            uris.push((
                crate::uri::skill_record(&skill.id),
                Target::SkillRecord(i as u32),
            ));
        }
        for (d, document) in catalog.documents().iter().enumerate() {
            uris.push((document.uri.to_string(), Target::Document(d as u32)));
        }
        for (i, file) in catalog.files().iter().enumerate() {
            uris.push((file.uri.to_string(), Target::SkillFile(i as u32)));
        }
        for (i, directory) in catalog.archive().directories.iter().enumerate() {
            uris.push((directory.uri.to_string(), Target::Directory(i as u32)));
        }
        uris
    }

    fn assert_index_is_exact(catalog: &Catalog) {
        let uris = named_uris(catalog);
        assert_eq!(catalog.archive().uri_index.len(), uris.len());
        for (uri, target) in &uris {
            let found = catalog.lookup(uri);
            assert_eq!(found, Some(*target), "{uri}");
            // Near misses land on some slot too; the index must refuse them.
            for near in [
                format!("{uri}x"),
                uri[..uri.len() - 1].to_owned(),
                uri.to_uppercase(),
            ] {
                if !uris.iter().any(|(u, _)| *u == near) {
                    assert_eq!(catalog.lookup(&near), None, "{near}");
                }
            }
        }
    }

    /// What a read decodes of every document's tables is what the compiler made, on the
    /// built-in content and, when `../shared` is beside the clone, on both shared corpora:
    /// real headings (repeated ones, code spans, text beyond ASCII, anchors written out)
    /// and links, where the derivations `tables::decode` redoes could drift from the
    /// compiler's.
    #[test]
    fn every_documents_tables_decode_to_what_was_compiled() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let mut folders = vec![(root.join("skills"), root.join("docs"))];
        let corpora = root.join("../shared/corpora");
        if corpora.is_dir() {
            folders.push((
                corpora.join("anthropic-skills/skills"),
                corpora.join("rust-book/src"),
            ));
        } else {
            eprintln!(
                "the shared corpora are not checked: {} is absent",
                corpora.display()
            );
        }
        for (skills, docs) in folders {
            let output = match compile::compile(&Config::for_dirs(skills.clone(), docs)) {
                Ok(output) => output,
                Err(report) => panic!("{} does not compile: {report:?}", skills.display()),
            };
            assert!(output.catalog.documents.len() > 10);
            for document in &output.catalog.documents {
                let decoded = output.tables(document).expect("the tables decode");
                assert_eq!(decoded, DocumentTables::of(document), "{}", document.uri);
            }
        }
    }

    /// A catalog of generated prose in `dir`: `pages` documents of about 3 KiB and one
    /// text file of `file_kib` KiB in a skill, their words drawn by `seed`. Enough text
    /// for the compiler to train a dictionary.
    fn prose_catalog(dir: &std::path::Path, seed: u64, pages: usize, file_kib: usize) -> Catalog {
        const WORDS: &[&str] = &[
            "archive", "frame", "decode", "window", "release", "catalog", "section", "chunk",
            "binary", "search", "index", "anchor", "outline", "skill", "agent", "thread", "buffer",
            "prefix", "match", "literal", "sequence", "table", "entropy", "token",
        ];
        let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        let mut prose = |words: usize| {
            let mut text = String::new();
            for i in 0..words {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                text.push_str(WORDS[(state % WORDS.len() as u64) as usize]);
                text.push_str(if i % 12 == 11 { ".\n" } else { " " });
            }
            text
        };
        let write = |rel: &str, text: &str| {
            let path = dir.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        for page in 0..pages {
            write(
                &format!("docs/page-{page:03}.md"),
                &format!(
                    "# Page {page}\n\n{}\n\n## More\n\n{}\n",
                    prose(220),
                    prose(220)
                ),
            );
        }
        write(
            "skills/big-file/SKILL.md",
            "---\nname: big-file\ndescription: Carries a large text file.\n---\n# Big\n",
        );
        write("skills/big-file/notes.txt", &prose(file_kib * 1024 / 7));
        let config = Config::for_dirs(dir.join("skills"), dir.join("docs"));
        Catalog::from_compiled(compile::compile(&config).expect("compiles")).expect("valid")
    }

    /// Each thread decodes with a copy of one catalog's dictionary at a time
    /// (`catalog/decoder.rs`): two catalogs read in turn on one thread each get their own
    /// bytes back, and a text file's 256 KiB frame, four times a document's, decodes.
    #[test]
    fn catalogs_read_in_turn_on_one_thread_each_serve_their_own_bytes() {
        use crate::model::{Codec, DOCUMENT_FRAME_BYTES};
        let dirs = [tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap()];
        let catalogs = [
            prose_catalog(dirs[0].path(), 1, 60, 300),
            prose_catalog(dirs[1].path(), 2, 60, 40),
        ];
        let codec =
            |catalog: &Catalog, frame: u32| catalog.archive().store.frames[frame as usize].codec();
        // Each page read once, the catalogs in turn: every read decodes (a first read
        // finds nothing cached) with the other catalog's dictionary in the decoder.
        for page in 0..60 {
            for (c, catalog) in catalogs.iter().enumerate() {
                let rel = format!("docs/page-{page:03}.md");
                let document = catalog
                    .documents()
                    .iter()
                    .find(|d| d.uri.ends_with(&format!("page-{page:03}.md")))
                    .expect("the page is a document");
                let first = document.content.first_frame.to_native();
                assert_eq!(codec(catalog, first), Some(Codec::ZstdDictionary), "{rel}");
                let wanted = std::fs::read_to_string(dirs[c].path().join(&rel)).unwrap();
                assert_eq!(catalog.text(document).expect("decodes"), wanted, "{rel}");
            }
        }
        for (c, catalog) in catalogs.iter().enumerate() {
            let file = catalog
                .files()
                .iter()
                .find(|f| f.uri.ends_with("notes.txt"))
                .expect("the text file is served");
            let first = file.content.first_frame.to_native();
            assert_eq!(codec(catalog, first), Some(Codec::ZstdDictionary));
            if c == 0 {
                // The decoder has room for the catalog's largest frame, not a document's.
                let len = catalog.archive().store.frames[first as usize]
                    .len
                    .to_native();
                assert!(
                    len as usize > 2 * DOCUMENT_FRAME_BYTES,
                    "a frame of {len} bytes"
                );
            }
            let wanted = std::fs::read(dirs[c].path().join("skills/big-file/notes.txt"));
            assert_eq!(
                *catalog.read(&file.content).expect("decodes"),
                wanted.unwrap()[..]
            );
        }
    }

    /// A damaged dictionary (its entropy tables overwritten, as in a hand-damaged binary)
    /// makes every frame that needs it a `Damaged` error, not a panic, and leaves the
    /// frames stored without it readable.
    #[test]
    fn a_damaged_dictionary_is_an_error_for_the_frames_that_need_it() {
        use crate::model::Codec;
        let dir = tempfile::tempdir().unwrap();
        let catalog = prose_catalog(dir.path(), 3, 40, 8);
        let store = &catalog.archive().store;
        let mut blob = catalog.content().blob().to_vec();
        let start = store.dictionary.offset.to_native() as usize;
        // After the magic number and the dictionary id: the literals' Huffman table.
        for byte in &mut blob[start + 8..start + 72] {
            *byte = 0xff;
        }
        let blob: &'static [u8] = blob.leak();
        let dictionary: &'static Dictionary = Box::leak(Box::new(Dictionary::new()));
        let damaged = Content::new(blob, store, dictionary);
        let mut refused = 0;
        for document in catalog.documents() {
            let first = document.content.first_frame.to_native();
            let result = damaged.read(&document.content, 0..usize::MAX);
            match store.frames[first as usize].codec() {
                Some(Codec::ZstdDictionary) => {
                    let error = result.expect_err("decoded with a damaged dictionary");
                    assert!(error.reason.contains("dictionary"), "{error}");
                    refused += 1;
                }
                _ => assert_eq!(
                    result.expect("needs no dictionary"),
                    catalog.read(&document.content).unwrap()
                ),
            }
        }
        assert!(refused > 30, "{refused} documents refused");
    }

    #[test]
    fn the_uri_index_finds_every_uri_exactly_and_nothing_else() {
        assert_index_is_exact(&builtin());
        // Percent-encoded paths, ids and anchors, nested skills and directories.
        let dir = tempfile::tempdir().unwrap();
        let write = |rel: &str, text: &str| {
            let path = dir.path().join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        write(
            "skills/team/deploy-app/SKILL.md",
            "---\nname: deploy-app\ndescription: Deploy.\n---\n# Deploy\n\n## Ünïcode [step] 1\n\ntext\n",
        );
        write("skills/team/deploy-app/scripts/run me.sh", "echo hi\n");
        write(
            "skills/team/deploy-app/nested-one/SKILL.md",
            "---\nname: nested-one\ndescription: Nested.\n---\n# N\n",
        );
        write("docs/guide/a b/ça.md", "# Ça\n\n## Ä section?\n\nbody\n");
        let config = Config::for_dirs(dir.path().join("skills"), dir.path().join("docs"));
        let catalog =
            Catalog::from_compiled(compile::compile(&config).expect("compiles")).expect("valid");
        assert_index_is_exact(&catalog);
    }

    #[test]
    fn misses_in_a_large_catalog_still_get_did_you_mean_candidates() {
        let dir = tempfile::tempdir().unwrap();
        for i in 0..300 {
            let skill = dir.path().join(format!("skills/skill-{i:03}"));
            std::fs::create_dir_all(&skill).unwrap();
            std::fs::write(
                skill.join("SKILL.md"),
                format!("---\nname: skill-{i:03}\ndescription: Skill {i}.\n---\n# S\n"),
            )
            .unwrap();
            let docs = dir.path().join(format!("docs/area-{}", i % 7));
            std::fs::create_dir_all(&docs).unwrap();
            std::fs::write(docs.join(format!("page-{i:03}.md")), "# Page\n").unwrap();
        }
        let config = Config::for_dirs(dir.path().join("skills"), dir.path().join("docs"));
        let catalog =
            Catalog::from_compiled(compile::compile(&config).expect("compiles")).expect("valid");
        for (uri, wanted) in [
            ("resource://skills/skill-15o/document", "skill-150"),
            ("resource://catalog/skills/skill-2999", "skill-299"),
            ("resource://docs/area-3/page-1o1.md", "area-3/page-101.md"),
            ("resource://docs/area-3/page-101", "area-3/page-101.md"),
            ("resource://docs/area-4/page-101.md", "area-3/page-101.md"),
            ("skill://skill-15o/SKILL.md", "skill://skill-150/SKILL.md"),
        ] {
            let error = resources::read(&catalog, uri).expect_err(uri);
            assert!(
                error.candidates.iter().any(|c| c == wanted),
                "{uri}: {:?}",
                error.candidates
            );
        }
    }
}
