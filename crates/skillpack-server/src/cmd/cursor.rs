//! Opaque pagination cursors. A cursor names a listing and an offset and carries a check
//! value bound to this binary's fingerprint, so a cursor that was edited, belongs to
//! another listing or comes from another release is refused instead of silently
//! returning the wrong page.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

use super::errors::{CatalogError, Code, Repair};
use crate::catalog::Catalog;

fn check(catalog: &Catalog, listing: &str, offset: usize) -> String {
    let mut hasher = blake3::Hasher::new();
    hasher.update(catalog.fingerprint().as_bytes());
    hasher.update(b"\0");
    hasher.update(listing.as_bytes());
    hasher.update(b"\0");
    hasher.update(offset.to_string().as_bytes());
    hasher.finalize().to_hex()[..16].to_owned()
}

pub fn encode(catalog: &Catalog, listing: &str, offset: usize) -> String {
    URL_SAFE_NO_PAD.encode(format!(
        "{listing}:{offset}:{}",
        check(catalog, listing, offset)
    ))
}

/// The offset a cursor points at, or `cursor_invalid`.
pub fn decode(catalog: &Catalog, listing: &str, cursor: &str) -> Result<usize, CatalogError> {
    let invalid = |reason: &str| {
        CatalogError::new(
            Code::CursorInvalid,
            "This cursor was not issued by this server for this listing.",
        )
        .field("cursor", cursor)
        .reason(reason.to_owned())
        .repair(Repair::list(
            "restart_listing",
            "skills",
            None,
            "Repeat the request without a cursor to start from the first page, then pass each next cursor back unchanged.",
        ))
    };
    if cursor.len() > 256 {
        return Err(invalid(
            "the cursor is longer than any cursor this server issues",
        ));
    }
    let decoded = URL_SAFE_NO_PAD
        .decode(cursor)
        .ok()
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .ok_or_else(|| invalid("the cursor is not in this server's cursor format"))?;
    let mut parts = decoded.rsplitn(3, ':');
    let (Some(mac), Some(offset), Some(name)) = (parts.next(), parts.next(), parts.next()) else {
        return Err(invalid("the cursor is not in this server's cursor format"));
    };
    if name != listing {
        return Err(invalid("the cursor belongs to a different listing"));
    }
    let offset: usize = offset
        .parse()
        .map_err(|_| invalid("the cursor is not in this server's cursor format"))?;
    if mac != check(catalog, listing, offset) {
        return Err(invalid(
            "the cursor was modified, or was issued by a different build of this catalog",
        ));
    }
    Ok(offset)
}
