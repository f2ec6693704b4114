//! Where the bytes a binary bakes go: the archive and the content blob, by component
//! (`skillpack info`, `docs/benchmarks.md`).
//!
//! Sizes are counted from the archive as it is read in place: each component is the
//! archived size of its structs plus the bytes they point to (string bytes too long to sit
//! inline, vector items). What no component claims — the root, alignment padding, the
//! inline headers of fields counted elsewhere — is `other`, so the parts add up to the
//! archive exactly.

use rkyv::string::ArchivedString;
use rkyv::vec::ArchivedVec;

use super::Catalog;
use crate::model::{ArchivedChangeSet, ArchivedDocument, ArchivedEarlierRelease};
use crate::postings::{DocumentCursor, PassageCursor};

/// Bytes per component. Every field is a byte count.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Breakdown {
    /// Every served file's bytes as stored (identical files once; compressed frames and
    /// the dictionary), and the documents' tables at the end of their frames.
    pub content: usize,
    /// Of `content`, before compression: the documents' tables (outlines, chunk tables,
    /// links, `previous`; `crate::tables`), which compress with the text they follow.
    pub document_tables: usize,
    /// The content store's frame table (where each frame lies, how it is stored).
    pub content_frames: usize,
    /// Search: the term dictionary (entries and their text).
    pub search_dictionary: usize,
    /// Search: passage postings without the occurrence blocks (ids, field frequencies).
    pub search_postings: usize,
    /// Search: where each term occurs in a passage (token positions, and byte offsets where
    /// the token table does not give them).
    pub search_positions: usize,
    /// Search: where each token of a passage starts (for snippets).
    pub search_token_tables: usize,
    /// Search: document postings (field frequencies per document).
    pub search_document_postings: usize,
    /// Search: the passages and per-document statistics.
    pub search_passages: usize,
    /// Each document's record: URI, path, title, summary, version, where its tables lie.
    pub documents: usize,
    /// Skills, skill files and directories (without their pre-rendered JSON).
    pub skills_files: usize,
    /// The perfect-hash URI index.
    pub uri_index: usize,
    /// The skills' frontmatter as JSON (the pre-rendered resources, the capabilities,
    /// indexes and skill records, are served bytes in the content store).
    pub json: usize,
    /// Completion candidates.
    pub completions: usize,
    /// Earlier releases and what changed since each.
    pub history: usize,
    /// Archive bytes no component above claims: the root, padding, inline field headers.
    pub other: usize,
}

impl Breakdown {
    /// The archive's components: (name, bytes), in the order `info` prints them.
    pub fn archive_parts(&self) -> [(&'static str, usize); 14] {
        [
            ("content frames", self.content_frames),
            ("search dictionary", self.search_dictionary),
            ("search postings", self.search_postings),
            ("search positions", self.search_positions),
            ("search token tables", self.search_token_tables),
            ("search document postings", self.search_document_postings),
            ("search passages", self.search_passages),
            ("document records", self.documents),
            ("skills and files", self.skills_files),
            ("URI index", self.uri_index),
            ("frontmatter JSON", self.json),
            ("completions", self.completions),
            ("history", self.history),
            ("other", self.other),
        ]
    }

    /// Archive bytes (everything but the content).
    pub fn archive(&self) -> usize {
        self.archive_parts().iter().map(|(_, n)| n).sum()
    }

    /// Everything the binary bakes: archive and content.
    pub fn total(&self) -> usize {
        self.archive() + self.content
    }

    /// `total / served`, to three decimals (0 when nothing is served).
    pub fn ratio(&self, served: u64) -> f64 {
        if served == 0 {
            0.0
        } else {
            (self.total() as f64 / served as f64 * 1000.0).round() / 1000.0
        }
    }

    /// `info --json`'s `baked` object.
    pub fn to_json(&self, served: u64) -> serde_json::Value {
        let mut archive = serde_json::Map::new();
        for (name, bytes) in self.archive_parts() {
            archive.insert(name.replace(' ', "_"), bytes.into());
        }
        serde_json::json!({
            "total_bytes": self.total(),
            "ratio_to_served": self.ratio(served),
            "content_bytes": self.content,
            "document_tables_bytes": self.document_tables,
            "archive_bytes": self.archive(),
            "archive": archive,
        })
    }

    /// `info`'s lines: the total against the bytes served, then each part with its share.
    pub fn table(&self, served: u64) -> String {
        use std::fmt::Write;
        let share = |bytes: usize| bytes as f64 * 100.0 / self.total().max(1) as f64;
        let mut out = format!(
            "baked:        {} bytes in all, {:.2}x the {served} bytes served\n",
            self.total(),
            self.ratio(served)
        );
        let parts = std::iter::once(("content", self.content)).chain(self.archive_parts());
        for (i, (name, bytes)) in parts.enumerate() {
            let _ = writeln!(out, "  {name:<28}{bytes:>12}  {:>5.1}%", share(bytes));
            if i == 0 {
                let _ = writeln!(
                    out,
                    "    of which document tables, before compression: {} bytes",
                    self.document_tables
                );
            }
        }
        out
    }
}

/// Out-of-line bytes of a string (short strings sit inside the struct that holds them).
fn heap(s: &ArchivedString) -> usize {
    if s.len() > rkyv::string::repr::INLINE_CAPACITY {
        s.len()
    } else {
        0
    }
}

/// The items of a vector, without what they point to.
fn items<T>(v: &ArchivedVec<T>) -> usize {
    std::mem::size_of_val(v.as_slice())
}

fn strings(v: &ArchivedVec<ArchivedString>) -> usize {
    items(v) + v.iter().map(heap).sum::<usize>()
}

pub fn of(catalog: &Catalog) -> Breakdown {
    let archive = catalog.archive();
    let mut b = Breakdown {
        content: catalog.content().blob().len(),
        ..Breakdown::default()
    };

    b.content_frames = items(&archive.store.frames);

    // Search.
    let search = &archive.search;
    b.search_dictionary = items(&search.dictionary) + items(&search.blocks);
    for (_, term) in search.terms() {
        let list = search.bytes(&term.passage_postings);
        let occurrences: usize = PassageCursor::new(list)
            .map(|e| e.occurrences.bytes.len())
            .sum();
        b.search_positions += occurrences;
        // Document summaries (long lists only) count with the postings they summarise.
        b.search_postings += list.len() - occurrences + search.bytes(&term.summaries).len();
        let documents = search.bytes(&term.document_postings);
        debug_assert!(DocumentCursor::new(documents).count() <= term.document_df as usize);
        b.search_document_postings += documents.len();
    }
    b.search_token_tables = items(&search.token_starts);
    b.search_passages = items(&search.passages.documents)
        + items(&search.passages.rows.bytes)
        + items(&search.passages.rows.widths)
        + items(&search.passages.rows.offsets)
        + items(&search.documents);

    // Documents.
    b.documents = items(&archive.documents);
    for d in archive.documents.iter() {
        b.documents += document(d);
        b.document_tables += d.tables.to_native() as usize;
    }

    // Skills, files, directories and their JSON.
    b.skills_files = items(&archive.skills) + items(&archive.files) + items(&archive.directories);
    for s in archive.skills.iter() {
        b.json += heap(&s.frontmatter_json);
        b.skills_files += heap(&s.id)
            + heap(&s.path)
            + heap(&s.description)
            + strings(&s.tags)
            + strings(&s.capabilities)
            + heap(&s.skill_md_uri)
            + heap(&s.title)
            + heap(&s.version)
            + items(&s.references)
            + s.references.iter().map(|r| heap(&r.id)).sum::<usize>();
    }
    for f in archive.files.iter() {
        b.skills_files += heap(&f.uri) + heap(&f.path) + heap(&f.mime_type);
    }
    for d in archive.directories.iter() {
        b.skills_files += heap(&d.uri) + items(&d.children);
    }

    b.uri_index = items(&archive.uri_index.disps) + items(&archive.uri_index.targets);
    let completions = &archive.completions;
    b.completions = strings(&completions.topics)
        + items(&completions.doc_tree)
        + completions
            .doc_tree
            .iter()
            .map(|e| heap(&e.path))
            .sum::<usize>();
    let history = &archive.history;
    b.history = heap(&history.crate_version)
        + heap(&history.label)
        + items(&history.earlier)
        + history.earlier.iter().map(release).sum::<usize>();

    let counted = b.archive() - b.other;
    b.other = catalog.embedded_bytes().0.saturating_sub(counted);
    b
}

/// What one document's record points to.
fn document(d: &ArchivedDocument) -> usize {
    heap(&d.uri)
        + heap(&d.path)
        + heap(&d.name)
        + heap(&d.title)
        + heap(&d.summary)
        + heap(&d.version)
}

fn release(r: &ArchivedEarlierRelease) -> usize {
    heap(&r.fingerprint) + heap(&r.label) + change_set(&r.changes)
}

fn change_set(c: &ArchivedChangeSet) -> usize {
    items(&c.documents)
        + c.documents
            .iter()
            .map(|d| {
                heap(&d.uri)
                    + heap(&d.skill)
                    + heap(&d.title)
                    + heap(&d.from_version)
                    + items(&d.sections)
                    + d.sections
                        .iter()
                        .map(|s| heap(&s.anchor) + heap(&s.from_own))
                        .sum::<usize>()
            })
            .sum::<usize>()
        + items(&c.files)
        + c.files
            .iter()
            .map(|f| heap(&f.uri) + heap(&f.skill) + heap(&f.from_sha256))
            .sum::<usize>()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The parts add up to the archive, and every component that the built-in catalog has
    /// is counted (none is silently zero).
    #[test]
    fn the_parts_add_up_to_the_archive() {
        let catalog = crate::catalog::builtin();
        let b = of(&catalog);
        let (archive, content) = catalog.embedded_bytes();
        assert_eq!(b.archive(), archive);
        assert_eq!(b.content, content);
        assert!(
            b.document_tables > 0 && b.document_tables < content * 4,
            "{b:?}"
        );
        for (name, bytes) in b.archive_parts() {
            if name != "history" {
                assert!(bytes > 0, "{name} is empty: {b:?}");
            }
        }
        // `other` is padding and headers: a small share, or a component is missing.
        assert!(b.other * 10 < archive, "{b:?}");
    }
}
