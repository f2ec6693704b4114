//! `resources/list` and `resources/read`.
//!
//! The list is bounded: the three catalog resources and one entry per skill document (its
//! `SKILL.md` at the SEP-2640 `skill://` URI), paginated natively past
//! [`RESOURCES_PAGE_SIZE`]. Docs, references, chunks and sections
//! are reached through the indexes and templates, never enumerated here.
//!
//! A read of a document returns the whole body (attaching is a deliberate act) with its
//! outline and chunk catalog in `_meta`; chunk and `#anchor` reads return just that piece.

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use rmcp::model::{
    ListResourcesResult, MetaObject, ReadResourceResult, Resource, ResourceContents,
};
use serde::Serialize;
use serde::ser::{SerializeStruct, Serializer};
use serde_json::{Value, json};

use super::changes;
use super::cursor;
use super::errors::{CatalogError, Code, Repair};
use super::lookup::{self, Resolved};
use super::meta::meta;
use crate::catalog::Catalog;
use crate::contract::{
    META_CHUNK, META_DOCUMENT, META_RESOURCE, META_SECTION, RESOURCES_PAGE_SIZE,
};
use crate::model::{
    ArchivedCatalog, ArchivedDocKind, ArchivedDocument, ArchivedSkill, ArchivedStored,
    PreviousChange, Target,
};
use crate::tables::DocumentTables;
use crate::uri;

const LISTING: &str = "resources";
pub const JSON: &str = "application/json";
pub const MARKDOWN: &str = "text/markdown";

/// Number of entries `resources/list` enumerates in total.
pub fn listed_count(catalog: &Catalog) -> usize {
    3 + catalog.skills().len()
}

/// Entry `index` of the full resource listing.
fn entry(catalog: &Catalog, index: usize) -> Resource {
    let archive = catalog.archive();
    match index {
        0 => Resource::new(uri::CAPABILITIES, "capabilities")
            .with_title("Catalog capabilities")
            .with_description(format!(
                "What {} serves and does not do, its fingerprint, URI families, error codes and limits. Start here.",
                catalog.name()
            ))
            .with_mime_type(JSON)
            .with_size(u64::from(archive.capabilities.len.to_native())),
        1 => Resource::new(uri::SKILLS_INDEX, "skills_index")
            .with_title("Skills index")
            .with_description(format!(
                "One compact record per skill ({} skills): id, description, tags, capabilities, document URI, size.",
                archive.totals.skills.to_native()
            ))
            .with_mime_type(JSON)
            .with_size(u64::from(archive.skills_index.len.to_native())),
        2 => Resource::new(uri::DOCS_INDEX, "docs_index")
            .with_title("Docs index")
            .with_description(format!(
                "One record per doc ({} docs): path, URI, title, summary, size, chunk count.",
                archive.totals.docs.to_native()
            ))
            .with_mime_type(JSON)
            .with_size(u64::from(archive.docs_index.len.to_native())),
        _ => {
            // Each skill is listed once, as its SEP-2640 `SKILL.md` resource with the
            // metadata the extension asks for (name and description from the frontmatter,
            // `text/markdown`). Its chunked twin `resource://skills/{id}/document` is named
            // in `_meta`, and reading either URI returns the same outline and chunk catalog.
            let skill = catalog.skill((index - 3) as u32);
            let document = catalog.document(skill.document.to_native());
            let resource_meta = meta(
                META_RESOURCE,
                json!({
                    "kind": "skill",
                    "skill_id": skill.id.as_str(),
                    "version": document.version.as_str(),
                    "chunks": document.chunk_count.to_native(),
                    "record_uri": uri::skill_record(&skill.id),
                    "document_uri": document.uri.as_str(),
                }),
            );
            Resource::new(skill.skill_md_uri.as_str(), skill.id.as_str())
                .with_title(document.title.as_str())
                .with_description(frontmatter_description(skill))
                .with_mime_type(MARKDOWN)
                .with_size(u64::from(document.content.len.to_native()))
                .with_meta(resource_meta)
        }
    }
}

/// The frontmatter `description` exactly as authored (SEP-2640: the `SKILL.md` resource's
/// description is the frontmatter's), or the trimmed one should the JSON be unreadable.
fn frontmatter_description(skill: &ArchivedSkill) -> String {
    // Only the one field is read: `resources/list` calls this for every skill on a page.
    #[derive(serde::Deserialize)]
    struct Frontmatter {
        description: Option<Value>,
    }
    serde_json::from_str::<Frontmatter>(&skill.frontmatter_json)
        .ok()
        .and_then(|fm| match fm.description? {
            Value::String(description) => Some(description),
            _ => None,
        })
        .unwrap_or_else(|| skill.description.as_str().to_owned())
}

pub fn list(catalog: &Catalog, cursor: Option<&str>) -> Result<ListResourcesResult, CatalogError> {
    let total = listed_count(catalog);
    let start = match cursor {
        None => 0,
        Some(c) => cursor::decode(catalog, LISTING, c)?,
    };
    if start > total {
        return Err(CatalogError::new(
            Code::CursorInvalid,
            "This cursor points past the end of the listing.",
        )
        .field("cursor", cursor.unwrap_or_default())
        .repair(Repair::list(
            "restart_listing",
            "skills",
            None,
            "Repeat resources/list without a cursor.",
        )));
    }
    let end = (start + RESOURCES_PAGE_SIZE).min(total);
    let mut result =
        ListResourcesResult::with_all_items((start..end).map(|i| entry(catalog, i)).collect());
    if end < total {
        result.next_cursor = Some(cursor::encode(catalog, LISTING, end));
    }
    Ok(result)
}

pub fn read(catalog: &Catalog, raw: &str) -> Result<ReadResourceResult, CatalogError> {
    read_with(catalog, raw, MetaDelivery::Inline)
}

/// `resources/read`, with documents' `_meta` delivered as `delivery` says.
pub fn read_with(
    catalog: &Catalog,
    raw: &str,
    delivery: MetaDelivery,
) -> Result<ReadResourceResult, CatalogError> {
    let resolved = lookup::resolve(catalog, raw)?;
    let archive = catalog.archive();
    let contents = match resolved {
        Resolved {
            target: Target::Capabilities,
            ..
        } => json_contents(catalog, uri::CAPABILITIES, &archive.capabilities)?,
        Resolved {
            target: Target::SkillsIndex,
            ..
        } => json_contents(catalog, uri::SKILLS_INDEX, &archive.skills_index)?,
        Resolved {
            target: Target::DocsIndex,
            ..
        } => json_contents(catalog, uri::DOCS_INDEX, &archive.docs_index)?,
        Resolved {
            target: Target::SkillRecord(i),
            ..
        } => {
            let skill = catalog.skill(i);
            json_contents(catalog, &uri::skill_record(&skill.id), &skill.record)?
        }
        Resolved {
            target: Target::Document(d),
            heading: None,
        } => document_contents(catalog, d, delivery)?,
        Resolved {
            target: Target::Document(d),
            heading: Some(heading),
        } => section_contents(catalog, d, heading)?,
        Resolved {
            target: Target::Chunk { document, chunk },
            ..
        } => chunk_contents(catalog, document, chunk as usize)?,
        Resolved {
            target: Target::SkillFile(i),
            ..
        } => {
            let file = &catalog.files()[i as usize];
            let bytes = catalog.read(&file.content)?;
            // `is_text` files were checked to be UTF-8 when compiled; `from_utf8` confirms it
            // several times faster than `from_utf8_lossy`, which decodes char by char.
            let contents = match std::str::from_utf8(&bytes) {
                Ok(text) if file.is_text => ResourceContents::text(text, file.uri.as_str()),
                _ => ResourceContents::blob(BASE64.encode(&bytes), file.uri.as_str()),
            };
            let contents = contents.with_mime_type(file.mime_type.as_str());
            // A SKILL.md or reference read by its skill:// URI carries the same outline
            // and chunk catalog as its resource:// twin; the bytes are untouched.
            match file.document.as_ref() {
                Some(d) => {
                    contents.with_meta(document_meta_entry(d.to_native(), catalog, delivery)?)
                }
                None => contents,
            }
        }
        Resolved {
            target: Target::Changes(i),
            ..
        } => ResourceContents::text(changes::body(catalog, i), raw).with_mime_type(JSON),
        Resolved {
            target: Target::Directory(i),
            ..
        } => {
            let dir = &archive.directories[i as usize];
            return Err(CatalogError::new(
                Code::InvalidUri,
                format!("{} is a directory, not a file.", dir.uri),
            )
            .field("uri", raw)
            .reason("directories have no content of their own")
            .repair(Repair::read(
                "list_directory",
                &dir.uri,
                format!(
                    "List it with resources/directory/read {{\"uri\": \"{}\"}}, then read one of its files.",
                    dir.uri
                ),
            ))
            .uri(raw));
        }
    };
    Ok(ReadResourceResult::new(vec![contents]))
}

/// A pre-rendered JSON resource, from the content store.
fn json_contents(
    catalog: &Catalog,
    uri: &str,
    json: &ArchivedStored,
) -> Result<ResourceContents, CatalogError> {
    let text = catalog.content().text(json, 0..usize::MAX)?;
    Ok(ResourceContents::text(text, uri).with_mime_type(JSON))
}

fn document_contents(
    catalog: &Catalog,
    index: u32,
    delivery: MetaDelivery,
) -> Result<ResourceContents, CatalogError> {
    let document = catalog.document(index);
    Ok(
        ResourceContents::text(catalog.text(document)?, document.uri.as_str())
            .with_mime_type(MARKDOWN)
            .with_meta(document_meta_entry(index, catalog, delivery)?),
    )
}

/// How a read hands over a document's `_meta["io.skillpack/document"]`.
///
/// rmcp types `_meta` as a `serde_json` map, so putting the outline, chunk catalog and
/// links in it means building hundreds of small `Value`s on every read and freeing them
/// once written: measured, that was more than half of the stdio server's work per
/// document read. The stdio transport serialises answers itself, so it asks for
/// [`MetaDelivery::Deferred`]: the read carries a placeholder, and the transport's codec
/// writes [`DocumentMeta`] straight from the archive in its place
/// ([`crate::transport::framing::AnswerCodec`]). The bytes on the wire are the same
/// either way; a unit test there holds them to it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MetaDelivery {
    /// The `_meta` value itself: for HTTP, the CLI and anything else that serialises the
    /// result with serde.
    #[default]
    Inline,
    /// A placeholder naming the document, for a writer that resolves it
    /// ([`deferred_document`]).
    Deferred,
}

/// The placeholder's prefix. Under `_meta["io.skillpack/document"]` skillpack otherwise
/// puts an object, so only a placeholder is a string there; the NUL makes sure it never
/// reads as a name or a URI should it be seen anywhere else.
const DEFERRED_PREFIX: &str = "\u{0}io.skillpack/deferred-document-meta:";

/// The document whose `_meta` a [`MetaDelivery::Deferred`] read left for its writer.
pub(crate) fn deferred_document(value: &Value) -> Option<u32> {
    value.as_str()?.strip_prefix(DEFERRED_PREFIX)?.parse().ok()
}

fn document_meta_entry(
    document: u32,
    catalog: &Catalog,
    delivery: MetaDelivery,
) -> Result<MetaObject, CatalogError> {
    // Decoded here either way: a deferred `_meta` is written from the same tables, which
    // then come from the cache, and damage is reported by the read, not by the writer.
    let tables = catalog.tables(document)?;
    let value = match delivery {
        MetaDelivery::Inline => document_meta(catalog, document, &tables),
        MetaDelivery::Deferred => Value::String(format!("{DEFERRED_PREFIX}{document}")),
    };
    Ok(meta(META_DOCUMENT, value))
}

/// `_meta["io.skillpack/document"]` of a document as a `serde_json` value.
pub fn document_meta(catalog: &Catalog, document: u32, tables: &DocumentTables) -> Value {
    // Serialising plain strings and integers into a `Value` cannot fail.
    serde_json::to_value(DocumentMeta(
        catalog.archive(),
        catalog.document(document),
        tables,
    ))
    .unwrap_or_default()
}

/// `_meta["io.skillpack/document"]` of a document: uri, title, version, size, outline,
/// chunk catalog, links. Serialised straight from the archive (the catalog's, for where
/// links point) and the document's tables, without building values.
#[derive(Clone, Copy)]
pub struct DocumentMeta<'a>(
    pub &'a ArchivedCatalog,
    pub &'a ArchivedDocument,
    pub &'a DocumentTables,
);

impl Serialize for DocumentMeta<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let (document, tables) = (self.1, self.2);
        let doc_uri = document.uri.as_str();
        let mut map = serializer.serialize_struct("DocumentMeta", 8)?;
        map.serialize_field("uri", doc_uri)?;
        map.serialize_field("title", document.title.as_str())?;
        map.serialize_field("version", document.version.as_str())?;
        map.serialize_field("size", &document.content.len.to_native())?;
        map.serialize_field("outline", &Outline(doc_uri, tables))?;
        map.serialize_field("chunks", &Chunks(document, tables))?;
        map.serialize_field("links", &Links(self.0, tables))?;
        // Only releases built against a previous one know what changed.
        if !matches!(tables.previous, PreviousChange::FirstRelease) {
            map.serialize_field("changes", &Changes(&tables.previous))?;
        }
        map.end()
    }
}

/// `changes` of a document's `_meta`: what changed since the previous release, so that a
/// client holding that release's sections and chunks knows which to keep (those not
/// listed; their `version`s match).
struct Changes<'a>(&'a PreviousChange);

impl Serialize for Changes<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let empty: &[String] = &[];
        let (status, added, changed, removed) = match self.0 {
            PreviousChange::Changed {
                added,
                changed,
                removed,
            } => (
                "changed",
                added.as_slice(),
                changed.as_slice(),
                removed.as_slice(),
            ),
            PreviousChange::Added => ("added", empty, empty, empty),
            _ => ("unchanged", empty, empty, empty),
        };
        let mut map = serializer.serialize_struct("Changes", 5)?;
        map.serialize_field("since", "previous release")?;
        map.serialize_field("status", status)?;
        map.serialize_field("sections_added", &Anchors(added))?;
        map.serialize_field("sections_changed", &Anchors(changed))?;
        map.serialize_field("sections_removed", &Anchors(removed))?;
        map.end()
    }
}

struct Anchors<'a>(&'a [String]);

impl Serialize for Anchors<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(|a| a.as_str()))
    }
}

struct Outline<'a>(&'a str, &'a DocumentTables);

impl Serialize for Outline<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let doc_uri = self.0;
        serializer.collect_seq(self.1.outline.iter().map(|h| OutlineEntry {
            level: h.level,
            text: h.text.as_str(),
            anchor: h.anchor.as_str(),
            uri: PartUriString(uri::PartUri::anchor(doc_uri, &h.anchor)),
            version: Version(h.version),
            start: h.start,
            end: h.end,
        }))
    }
}

#[derive(Serialize)]
struct OutlineEntry<'a> {
    level: u8,
    text: &'a str,
    anchor: &'a str,
    uri: PartUriString<'a>,
    /// Of the whole section: unchanged bytes, unchanged version, in every release.
    version: Version,
    start: u32,
    end: u32,
}

/// A section or chunk version: 12 hex digits, like a document's.
#[derive(Clone, Copy)]
struct Version(u64);

impl Serialize for Version {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        // What `{:012x}` writes, on the stack: a document's `_meta` has two versions per
        // heading and chunk, and the formatter's padding path costs more than the digits.
        const HEX: &[u8; 16] = b"0123456789abcdef";
        if self.0 >> 48 != 0 {
            return serializer.collect_str(&format_args!("{:012x}", self.0));
        }
        let mut digits = [0u8; 12];
        for (i, digit) in digits.iter_mut().enumerate() {
            *digit = HEX[((self.0 >> (44 - 4 * i)) & 0xf) as usize];
        }
        serializer.serialize_str(std::str::from_utf8(&digits).unwrap_or_default())
    }
}

/// A part URI ([`uri::PartUri`]) as one JSON string: written into a buffer first, so the
/// serializer escapes it in one pass rather than each piece `collect_str` hands it.
struct PartUriString<'a>(uri::PartUri<'a>);

impl Serialize for PartUriString<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut uri = String::new();
        self.0.push_to(&mut uri);
        serializer.serialize_str(&uri)
    }
}

struct Chunks<'a>(&'a ArchivedDocument, &'a DocumentTables);

impl Serialize for Chunks<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let (document, tables) = (self.0, self.1);
        let doc_uri = document.uri.as_str();
        serializer.collect_seq(tables.chunks.iter().map(|c| ChunkEntry {
            id: c.id.as_str(),
            uri: PartUriString(uri::PartUri::chunk(doc_uri, &c.id)),
            heading: tables.chunk_heading(c, &document.title),
            version: Version(c.version),
            size: c.end - c.start,
        }))
    }
}

#[derive(Serialize)]
struct ChunkEntry<'a> {
    id: &'a str,
    uri: PartUriString<'a>,
    heading: &'a str,
    version: Version,
    size: u32,
}

struct Links<'a>(&'a ArchivedCatalog, &'a DocumentTables);

impl Serialize for Links<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.1.links.iter().map(|l| LinkEntry {
            text: l.text.as_str(),
            href: l.href.as_str(),
            uri: self.0.link_uri(l),
        }))
    }
}

#[derive(Serialize)]
struct LinkEntry<'a> {
    text: &'a str,
    href: &'a str,
    uri: String,
}

fn chunk_contents(
    catalog: &Catalog,
    document: u32,
    index: usize,
) -> Result<ResourceContents, CatalogError> {
    let tables = catalog.tables(document)?;
    let document = catalog.document(document);
    let chunks = tables.chunks.as_slice();
    let chunk = &chunks[index];
    let chunk_uri = uri::chunk(&document.uri, &chunk.id);
    let neighbour = |i: Option<usize>| {
        i.and_then(|i| chunks.get(i))
            .map(|c| Value::String(uri::chunk(&document.uri, &c.id)))
            .unwrap_or(Value::Null)
    };
    let value = json!({
        "document_uri": document.uri.as_str(),
        "chunk_id": chunk.id.as_str(),
        "heading": tables.chunk_heading(chunk, &document.title),
        "index": index + 1,
        "count": chunks.len(),
        "version": crate::model::version_hex(chunk.version),
        "document_version": document.version.as_str(),
        "start": chunk.start,
        "end": chunk.end,
        "prev_chunk_uri": neighbour(index.checked_sub(1)),
        "next_chunk_uri": neighbour(Some(index + 1)),
    });
    Ok(ResourceContents::text(
        catalog.text_range(document, chunk.start, chunk.end)?,
        chunk_uri,
    )
    .with_mime_type(MARKDOWN)
    .with_meta(meta(META_CHUNK, value)))
}

fn section_contents(
    catalog: &Catalog,
    document: u32,
    heading: u32,
) -> Result<ResourceContents, CatalogError> {
    let tables = catalog.tables(document)?;
    let document = catalog.document(document);
    let heading = &tables.outline[heading as usize];
    let (start, end) = (heading.start, heading.end);
    let chunk_ids: Vec<&str> = tables
        .chunks
        .iter()
        .filter(|c| c.start < end && c.end > start)
        .map(|c| c.id.as_str())
        .collect();
    let value = json!({
        "document_uri": document.uri.as_str(),
        "anchor": heading.anchor.as_str(),
        "heading": heading.text.as_str(),
        "level": heading.level,
        "version": crate::model::version_hex(heading.version),
        "document_version": document.version.as_str(),
        "start": start,
        "end": end,
        "chunk_ids": chunk_ids,
    });
    Ok(ResourceContents::text(
        catalog.text_range(document, start, end)?,
        uri::anchor(&document.uri, &heading.anchor),
    )
    .with_mime_type(MARKDOWN)
    .with_meta(meta(META_SECTION, value)))
}

/// Kind of a document for display (`skill`, `reference`, `doc`).
pub fn kind_name(document: &ArchivedDocument) -> &'static str {
    match document.kind {
        ArchivedDocKind::Skill { .. } => "skill",
        ArchivedDocKind::Reference { .. } => "reference",
        ArchivedDocKind::Doc => "doc",
    }
}

#[cfg(test)]
mod tests {
    use super::Version;

    #[test]
    fn a_version_serialises_as_its_twelve_hex_digits() {
        for version in [
            0,
            1,
            0xabc,
            0x0123_4567_89ab,
            0xffff_ffff_ffff,
            1 << 48,
            u64::MAX,
        ] {
            let written = serde_json::to_string(&Version(version)).unwrap_or_default();
            assert_eq!(written, format!("\"{version:012x}\""), "{version:#x}");
        }
    }
}
