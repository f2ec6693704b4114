//! What the server reads while it starts, picked from the catalog at build time.
//!
//! Start-up used to find these itself: the first doc by binary search over every document,
//! description examples by walking the first entries. Each of those touches lands on a
//! different page of the archive and maps 64–128 KiB of the executable into memory, for
//! the life of the process. Computed here, they are a few short strings stored beside the
//! archive's root (see the field order of [`Catalog`]).

use crate::model::{Catalog, DocKind, StartUp};
use crate::uri;

pub fn facts(catalog: &Catalog) -> StartUp {
    let first_doc = catalog
        .documents
        .partition_point(|d| d.kind != DocKind::Doc) as u32;
    let document_uri = catalog
        .skills
        .first()
        .map(|s| uri::skill_document(&s.id))
        .or_else(|| catalog.documents.first().map(|d| d.uri.clone()))
        .unwrap_or_else(|| uri::CAPABILITIES.to_owned());
    let (chunk_uri, chunk_id) = catalog
        .documents
        .iter()
        .find(|d| d.chunks.len() > 1)
        .map(|d| (d.uri.clone(), d.chunks[1].id.clone()))
        .unwrap_or_default();
    let skill_query = catalog
        .skills
        .first()
        .map_or("getting started".to_owned(), |s| s.id.replace('-', " "));
    let doc_query = catalog.documents[first_doc as usize..]
        .iter()
        .find(|d| !d.title.trim().is_empty())
        .map_or("overview".to_owned(), |d| {
            d.title
                .split_whitespace()
                .take(6)
                .collect::<Vec<_>>()
                .join(" ")
                .replace('"', "")
        });
    let tag = catalog
        .skills
        .iter()
        .find_map(|s| s.tags.first())
        .map_or("mcp".to_owned(), Clone::clone);
    let release = if catalog.history.label.is_empty() {
        super::render::short_fingerprint(&catalog.fingerprint).to_owned()
    } else {
        catalog.history.label.clone()
    };
    StartUp {
        release,
        earlier_releases: catalog.history.earlier.len() as u32,
        first_doc,
        document_uri,
        chunk_uri,
        chunk_id,
        skill_query,
        doc_query,
        tag,
    }
}
