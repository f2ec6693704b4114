//! RFC 9728 protected-resource metadata: how an MCP client learns, from a `401`, which
//! authorization server issues tokens for this server and with which scopes.
//!
//! The document is served at the well-known URI made from the resource URI as RFC 9728
//! §3.1 says — `/.well-known/oauth-protected-resource` inserted between the host and the
//! path, so `https://docs.example.com/mcp` has its metadata at
//! `https://docs.example.com/.well-known/oauth-protected-resource/mcp` — and at the root
//! form too, which clients try next (MCP authorization, "Protected Resource Metadata
//! Discovery"). Both are public: they say where to get a token, nothing more.

use axum::http::Uri;
use serde_json::json;

pub const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";

#[derive(Debug, Clone)]
pub struct ResourceMetadata {
    /// The document's JSON text.
    pub document: String,
    /// Its absolute URL, for `WWW-Authenticate: Bearer resource_metadata="…"`.
    pub url: String,
    /// The local paths it is served at.
    pub paths: Vec<String>,
}

/// Check `--oauth-resource`: an absolute http(s) URL without fragment (RFC 8707 §2).
pub fn parse_resource(resource: &str) -> Result<Uri, String> {
    let invalid = |why: &str| {
        format!(
            "--oauth-resource must be this server's absolute URL as clients reach it, e.g. \
             https://docs.example.com/mcp ({why}); got {resource:?}"
        )
    };
    if resource.contains('#') {
        return Err(invalid("no fragment"));
    }
    let uri: Uri = resource.parse().map_err(|_| invalid("not a URL"))?;
    match uri.scheme_str() {
        Some("https") | Some("http") => {}
        _ => return Err(invalid("scheme https or http")),
    }
    if uri.authority().is_none() {
        return Err(invalid("a host is needed"));
    }
    if uri.query().is_some() {
        return Err(invalid("no query"));
    }
    Ok(uri)
}

impl ResourceMetadata {
    pub fn new(
        resource: &str,
        authorization_servers: &[String],
        scopes: &[String],
        name: &str,
    ) -> Result<Self, String> {
        let uri = parse_resource(resource)?;
        let path = uri.path().trim_end_matches('/');
        let origin = format!(
            "{}://{}",
            uri.scheme_str().unwrap_or("https"),
            uri.authority().map(|a| a.as_str()).unwrap_or_default()
        );
        let local = format!("{WELL_KNOWN}{path}");
        let url = format!("{origin}{local}");
        let mut paths = vec![local];
        if !path.is_empty() {
            paths.push(WELL_KNOWN.to_owned());
        }
        let mut document = json!({
            "resource": resource,
            "authorization_servers": authorization_servers,
            "bearer_methods_supported": ["header"],
            "resource_name": name,
        });
        if !scopes.is_empty() {
            document["scopes_supported"] = json!(scopes);
        }
        Ok(ResourceMetadata {
            document: document.to_string(),
            url,
            paths,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_well_known_uri_inserts_the_suffix_before_the_path() {
        let meta = ResourceMetadata::new(
            "https://docs.example.com/mcp",
            &["https://idp.example.com".to_owned()],
            &["catalog.read".to_owned()],
            "docs",
        )
        .unwrap();
        assert_eq!(
            meta.url,
            "https://docs.example.com/.well-known/oauth-protected-resource/mcp"
        );
        assert_eq!(
            meta.paths,
            [
                "/.well-known/oauth-protected-resource/mcp",
                "/.well-known/oauth-protected-resource"
            ]
        );
        let doc: serde_json::Value = serde_json::from_str(&meta.document).unwrap();
        assert_eq!(doc["resource"], "https://docs.example.com/mcp");
        assert_eq!(doc["scopes_supported"][0], "catalog.read");
        for bad in [
            "docs.example.com/mcp",
            "ftp://x/mcp",
            "https://x/mcp#f",
            "https://x/mcp?a=1",
        ] {
            let error = parse_resource(bad).unwrap_err();
            assert!(error.contains("--oauth-resource"), "{bad}: {error}");
        }
    }
}
