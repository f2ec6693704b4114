//! Catalog URIs: building the canonical form (build time) and parsing what clients send
//! (run time). Shared by `build.rs` and the server so both agree on one spelling.
//!
//! Canonical form: every path segment percent-encoded with [`SEGMENT`] (non-ASCII, spaces,
//! controls and URI delimiters encoded; everything else literal), except `skill://` URIs,
//! whose segments keep only RFC 3986 `unreserved` characters literal ([`SKILL_SEGMENT`]),
//! exactly as rmcp's `SkillCatalog` spells them. A client may send any
//! equivalent spelling (`%41` for `A`, a literal space); [`parse`] decodes once, rejects
//! traversal, and [`ParsedUri::canonical`] re-encodes, so lookups are exact-match.

use percent_encoding::{
    AsciiSet, CONTROLS, NON_ALPHANUMERIC, percent_decode_str, utf8_percent_encode,
};

pub const CAPABILITIES: &str = "resource://catalog/capabilities";
pub const SKILLS_INDEX: &str = "resource://catalog/skills_index";
pub const DOCS_INDEX: &str = "resource://catalog/docs_index";
/// What changed since the previous release; `CHANGES/{since}` since an earlier one.
pub const CHANGES: &str = "resource://catalog/changes";
pub const SKILL_RECORD_PREFIX: &str = "resource://catalog/skills/";
pub const SKILLS_PREFIX: &str = "resource://skills/";
pub const DOCS_PREFIX: &str = "resource://docs/";
pub const SKILL_SCHEME: &str = "skill://";
pub const CHUNKS: &str = "/chunks/";

/// Longest URI the server will parse. Catalog URIs are far shorter; anything longer is
/// refused before any work is done on it.
pub const MAX_URI_BYTES: usize = 4096;

/// Characters encoded inside one path segment (and in chunk ids and anchors).
pub const SEGMENT: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'%')
    .add(b'/')
    .add(b'<')
    .add(b'>')
    .add(b'?')
    .add(b'[')
    .add(b'\\')
    .add(b']')
    .add(b'^')
    .add(b'`')
    .add(b'{')
    .add(b'|')
    .add(b'}');

/// Characters encoded inside a `skill://` path segment: everything but RFC 3986
/// `unreserved`. This is the spelling rmcp's `SkillCatalog` gives the same folder, and it
/// keeps the first segment (the URI authority) a valid `reg-name` as SEP-2640 asks: a
/// folder named `a:b` or `me@team` must not turn into a port or a user name.
pub const SKILL_SEGMENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

pub fn encode_segment(segment: &str) -> String {
    utf8_percent_encode(segment, SEGMENT).to_string()
}

/// Whether `encoded` is exactly `encode_segment(raw)`, without allocating.
pub fn is_encoded_segment(encoded: &str, raw: &str) -> bool {
    let mut rest = encoded;
    for piece in utf8_percent_encode(raw, SEGMENT) {
        match rest.strip_prefix(piece) {
            Some(after) => rest = after,
            None => return false,
        }
    }
    rest.is_empty()
}

/// Encode a relative `/`-separated path segment by segment.
pub fn encode_path(path: &str) -> String {
    path.split('/')
        .map(encode_segment)
        .collect::<Vec<_>>()
        .join("/")
}

pub fn skill_record(skill_id: &str) -> String {
    format!("{SKILL_RECORD_PREFIX}{}", encode_segment(skill_id))
}

pub fn skill_document(skill_id: &str) -> String {
    format!("{SKILLS_PREFIX}{}/document", encode_segment(skill_id))
}

pub fn reference(skill_id: &str, ref_id: &str) -> String {
    format!(
        "{SKILLS_PREFIX}{}/references/{}",
        encode_segment(skill_id),
        encode_segment(ref_id)
    )
}

/// `resource://catalog/changes/{since}`.
pub fn changes(since: &str) -> String {
    format!("{CHANGES}/{}", encode_segment(since))
}

pub fn doc(path: &str) -> String {
    format!("{DOCS_PREFIX}{}", encode_path(path))
}

pub fn chunk(document_uri: &str, chunk_id: &str) -> String {
    PartUri::chunk(document_uri, chunk_id).to_string()
}

pub fn anchor(document_uri: &str, anchor: &str) -> String {
    PartUri::anchor(document_uri, anchor).to_string()
}

/// The URI of a part of a document — a chunk (`<document uri>/chunks/<id>`) or a section
/// (`<document uri>#<anchor>`) — written out without intermediate strings
/// ([`PartUri::push_to`]; documents' `_meta` writes one per heading and per chunk on every
/// read).
#[derive(Clone, Copy, Debug)]
pub struct PartUri<'a> {
    document: &'a str,
    separator: &'static str,
    id: &'a str,
}

impl<'a> PartUri<'a> {
    pub fn chunk(document: &'a str, chunk_id: &'a str) -> Self {
        PartUri {
            document,
            separator: CHUNKS,
            id: chunk_id,
        }
    }

    pub fn anchor(document: &'a str, anchor: &'a str) -> Self {
        PartUri {
            document,
            separator: "#",
            id: anchor,
        }
    }

    /// Append the URI to `out`: what `Display` writes, without the formatter's machinery
    /// (a serializer then escapes it in one pass, not piece by piece).
    pub fn push_to(&self, out: &mut String) {
        out.reserve(self.document.len() + self.separator.len() + self.id.len());
        out.push_str(self.document);
        out.push_str(self.separator);
        out.extend(utf8_percent_encode(self.id, SEGMENT));
    }
}

impl std::fmt::Display for PartUri<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}{}{}",
            self.document,
            self.separator,
            utf8_percent_encode(self.id, SEGMENT)
        )
    }
}

/// `skill://<path>` for a file or directory path relative to the skills root, each segment
/// encoded with [`SKILL_SEGMENT`].
pub fn skill_file(path: &str) -> String {
    let encoded: Vec<String> = path
        .split('/')
        .map(|segment| utf8_percent_encode(segment, SKILL_SEGMENT).to_string())
        .collect();
    format!("{SKILL_SCHEME}{}", encoded.join("/"))
}

/// What a syntactically valid catalog URI names (it may still not exist).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Family {
    Capabilities,
    SkillsIndex,
    DocsIndex,
    /// `resource://catalog/changes[/{since}]`: `since` names an earlier release (a
    /// fingerprint prefix, a label or a date), resolved by `cmd::changes`.
    Changes {
        since: Option<String>,
    },
    SkillRecord {
        skill_id: String,
    },
    SkillDocument {
        skill_id: String,
    },
    Reference {
        skill_id: String,
        ref_id: String,
    },
    Doc {
        path: String,
    },
    /// A `skill://` file or directory, by its path relative to the skills root.
    SkillPath {
        path: String,
    },
}

impl Family {
    /// Canonical URI of this family member.
    pub fn canonical(&self) -> String {
        match self {
            Family::Capabilities => CAPABILITIES.to_owned(),
            Family::SkillsIndex => SKILLS_INDEX.to_owned(),
            Family::DocsIndex => DOCS_INDEX.to_owned(),
            Family::Changes { since: None } => CHANGES.to_owned(),
            Family::Changes { since: Some(since) } => changes(since),
            Family::SkillRecord { skill_id } => skill_record(skill_id),
            Family::SkillDocument { skill_id } => skill_document(skill_id),
            Family::Reference { skill_id, ref_id } => reference(skill_id, ref_id),
            Family::Doc { path } => doc(path),
            Family::SkillPath { path } => skill_file(path),
        }
    }

    /// Whether this names a markdown document (so `/chunks/` and `#anchor` apply).
    pub fn is_document(&self) -> bool {
        matches!(
            self,
            Family::SkillDocument { .. } | Family::Reference { .. } | Family::Doc { .. }
        )
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedUri {
    pub family: Family,
    /// Decoded chunk id from a `/chunks/{chunk_id}` suffix.
    pub chunk: Option<String>,
    /// Decoded anchor from a `#fragment`.
    pub anchor: Option<String>,
}

impl ParsedUri {
    /// Canonical URI of the document (or other resource), without chunk or anchor.
    pub fn base(&self) -> String {
        self.family.canonical()
    }

    /// Canonical URI of the exact resource (chunk included, anchor excluded).
    pub fn canonical(&self) -> String {
        let base = self.base();
        match &self.chunk {
            Some(chunk_id) => chunk(&base, chunk_id),
            None => base,
        }
    }
}

/// Why a URI could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UriError {
    /// Not a URI of this catalog, or malformed (`invalid_uri`).
    Invalid(String),
    /// A path that tries to leave its root or cannot name a file (`invalid_path`).
    Path(String),
}

impl UriError {
    pub fn reason(&self) -> &str {
        match self {
            UriError::Invalid(reason) | UriError::Path(reason) => reason,
        }
    }
}

/// Parse a URI a client sent. Never panics, whatever the input.
pub fn parse(raw: &str) -> Result<ParsedUri, UriError> {
    if raw.is_empty() {
        return Err(UriError::Invalid("the URI is empty".into()));
    }
    if raw.len() > MAX_URI_BYTES {
        return Err(UriError::Invalid(format!(
            "the URI is {} bytes long; catalog URIs are at most {MAX_URI_BYTES} bytes",
            raw.len()
        )));
    }
    if raw.chars().any(|c| c.is_control()) {
        return Err(UriError::Invalid(
            "the URI contains control characters (NUL, newline, …); percent-encode or remove them"
                .into(),
        ));
    }
    let (without_fragment, fragment) = match raw.split_once('#') {
        Some((uri, fragment)) => (uri, Some(fragment)),
        None => (raw, None),
    };
    let anchor = match fragment {
        Some(fragment) => {
            let anchor = decode(fragment)?;
            if anchor.is_empty() {
                return Err(UriError::Invalid(
                    "the URI ends with an empty `#` fragment; name a heading anchor or drop the `#`"
                        .into(),
                ));
            }
            Some(anchor)
        }
        None => None,
    };
    if without_fragment.contains('?') {
        return Err(UriError::Invalid(
            "catalog URIs take no query string (`?…`); remove it".into(),
        ));
    }
    let (family, chunk) = parse_family(without_fragment)?;
    if (chunk.is_some() || anchor.is_some()) && !family.is_document() {
        return Err(UriError::Invalid(
            "`/chunks/…` and `#anchor` apply only to document URIs (resource://skills/…/document, …/references/…, resource://docs/…)".into(),
        ));
    }
    if chunk.is_some() && anchor.is_some() {
        return Err(UriError::Invalid(
            "use either `/chunks/{chunk_id}` or `#anchor`, not both".into(),
        ));
    }
    Ok(ParsedUri {
        family,
        chunk,
        anchor,
    })
}

fn parse_family(uri: &str) -> Result<(Family, Option<String>), UriError> {
    // Scheme and authority are case-insensitive (RFC 3986 §6.2.2.1).
    let Some((scheme, rest)) = uri.split_once("://") else {
        return Err(UriError::Invalid(format!(
            "`{}` is not a URI: expected `resource://…` or `skill://…`",
            shorten(uri)
        )));
    };
    match scheme.to_ascii_lowercase().as_str() {
        "resource" => parse_resource(rest),
        "skill" => {
            let path = decode_path(rest)?;
            Ok((Family::SkillPath { path }, None))
        }
        other => Err(UriError::Invalid(format!(
            "unknown URI scheme `{}`: this catalog serves `resource://` and `skill://` URIs",
            shorten(other)
        ))),
    }
}

fn parse_resource(rest: &str) -> Result<(Family, Option<String>), UriError> {
    let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
    match authority.to_ascii_lowercase().as_str() {
        "catalog" => match path {
            "capabilities" => Ok((Family::Capabilities, None)),
            "skills_index" => Ok((Family::SkillsIndex, None)),
            "docs_index" => Ok((Family::DocsIndex, None)),
            "changes" => Ok((Family::Changes { since: None }, None)),
            _ if path.starts_with("changes/") => {
                let since = decode_segment(&path["changes/".len()..])?;
                Ok((Family::Changes { since: Some(since) }, None))
            }
            _ => match path.strip_prefix("skills/") {
                Some(id) => Ok((
                    Family::SkillRecord {
                        skill_id: decode_segment(id)?,
                    },
                    None,
                )),
                None => Err(UriError::Invalid(format!(
                    "unknown catalog resource `resource://catalog/{}`: expected capabilities, skills_index, docs_index, changes, changes/{{since}} or skills/{{skill_id}}",
                    shorten(path)
                ))),
            },
        },
        "skills" => {
            let (path, chunk) = split_chunk(path)?;
            let mut parts = path.splitn(3, '/');
            let skill_id = decode_segment(parts.next().unwrap_or(""))?;
            let family = match (parts.next(), parts.next()) {
                (Some("document"), None) => Family::SkillDocument { skill_id },
                (Some("references"), Some(ref_id)) => Family::Reference {
                    skill_id,
                    ref_id: decode_segment(ref_id)?,
                },
                _ => {
                    return Err(UriError::Invalid(format!(
                        "`resource://skills/{}` names nothing: expected resource://skills/{{skill_id}}/document or resource://skills/{{skill_id}}/references/{{ref_id}}",
                        shorten(path)
                    )));
                }
            };
            Ok((family, chunk))
        }
        "docs" => {
            let (path, chunk) = split_chunk(path)?;
            Ok((
                Family::Doc {
                    path: decode_path(path)?,
                },
                chunk,
            ))
        }
        other => Err(UriError::Invalid(format!(
            "unknown resource family `resource://{}`: expected resource://catalog/…, resource://skills/… or resource://docs/…",
            shorten(other)
        ))),
    }
}

/// Split a trailing `/chunks/{chunk_id}`. Document paths end in `.md` (docs) or in
/// `document`/a ref id (skills), so a `/chunks/` followed by one more segment is a chunk.
fn split_chunk(path: &str) -> Result<(&str, Option<String>), UriError> {
    match path.rsplit_once(CHUNKS) {
        Some((document, chunk_id))
            if !chunk_id.contains('/') && !document.is_empty() && is_document_path(document) =>
        {
            let chunk_id = decode(chunk_id)?;
            if chunk_id.is_empty() {
                return Err(UriError::Invalid(
                    "the chunk id after `/chunks/` is empty".into(),
                ));
            }
            Ok((document, Some(chunk_id)))
        }
        _ => Ok((path, None)),
    }
}

fn is_document_path(path: &str) -> bool {
    path.ends_with(".md")
        || path.ends_with("/document")
        || path
            .rsplit_once('/')
            .is_some_and(|(parent, _)| parent.ends_with("/references"))
}

fn decode(text: &str) -> Result<String, UriError> {
    percent_decode_str(text)
        .decode_utf8()
        .map(|decoded| decoded.into_owned())
        .map_err(|_| {
            UriError::Invalid(format!(
                "`{}` percent-decodes to bytes that are not UTF-8",
                shorten(text)
            ))
        })
}

fn decode_segment(segment: &str) -> Result<String, UriError> {
    let decoded = decode(segment)?;
    check_segment(&decoded, segment)?;
    if decoded.contains('/') {
        return Err(UriError::Path(format!(
            "`{}` decodes to a value containing `/`; ids are single path segments",
            shorten(segment)
        )));
    }
    Ok(decoded)
}

/// Decode a relative path and reject anything that is not a plain relative POSIX path.
fn decode_path(path: &str) -> Result<String, UriError> {
    let decoded = decode(path)?;
    if decoded.starts_with('/') {
        return Err(UriError::Path(format!(
            "`{}` is an absolute path; catalog paths are relative (e.g. resource://docs/guide/usage.md)",
            shorten(&decoded)
        )));
    }
    for segment in decoded.split('/') {
        check_segment(segment, path)?;
    }
    Ok(decoded)
}

fn check_segment(segment: &str, raw: &str) -> Result<(), UriError> {
    match segment {
        "" => Err(UriError::Path(format!(
            "`{}` has an empty path segment (`//` or a trailing `/`)",
            shorten(raw)
        ))),
        "." | ".." => Err(UriError::Path(format!(
            "`{}` contains a `{segment}` segment; paths may not traverse directories",
            shorten(raw)
        ))),
        _ if segment.contains('\\') => Err(UriError::Path(format!(
            "`{}` contains a backslash; use `/` as the path separator",
            shorten(raw)
        ))),
        _ if segment.chars().any(char::is_control) => Err(UriError::Path(format!(
            "`{}` decodes to control characters (NUL, newline, …)",
            shorten(raw)
        ))),
        _ => Ok(()),
    }
}

/// Quote at most 120 characters of hostile input back in an error message.
pub fn shorten(text: &str) -> String {
    const MAX: usize = 120;
    if text.chars().count() <= MAX {
        text.to_owned()
    } else {
        let head: String = text.chars().take(MAX).collect();
        format!("{head}… ({} bytes)", text.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_part_uri_pushed_is_the_one_displayed() {
        for id in [
            "install",
            "my notes (v2)!",
            "ünïcode-héading",
            "a/b#c?d",
            "",
            "100%",
        ] {
            for part in [
                PartUri::chunk("resource://docs/a.md", id),
                PartUri::anchor("resource://docs/a.md", id),
            ] {
                let mut pushed = String::from("kept ");
                part.push_to(&mut pushed);
                assert_eq!(pushed, format!("kept {part}"), "{id:?}");
            }
        }
    }

    #[test]
    fn builds_canonical_uris() {
        assert_eq!(
            doc("guide/my file.md"),
            "resource://docs/guide/my%20file.md"
        );
        assert_eq!(
            chunk(&skill_document("pdf"), "install"),
            "resource://skills/pdf/document/chunks/install"
        );
        assert_eq!(skill_file("team/x/ü.txt"), "skill://team/x/%C3%BC.txt");
        // Sub-delimiters and `:`/`@` are encoded too, as rmcp's SkillCatalog does.
        assert_eq!(
            skill_file("me@team:1/my notes (v2)!.md"),
            "skill://me%40team%3A1/my%20notes%20%28v2%29%21.md"
        );
    }

    #[test]
    fn parses_every_family() {
        let p = parse("resource://docs/guide/a.md/chunks/intro-2").unwrap();
        assert_eq!(
            p.family,
            Family::Doc {
                path: "guide/a.md".into()
            }
        );
        assert_eq!(p.chunk.as_deref(), Some("intro-2"));
        let p = parse("resource://skills/pdf/references/forms#fill-it").unwrap();
        assert_eq!(
            p.family,
            Family::Reference {
                skill_id: "pdf".into(),
                ref_id: "forms".into()
            }
        );
        assert_eq!(p.anchor.as_deref(), Some("fill-it"));
        // A docs folder named `chunks` is a path, not a chunk.
        let p = parse("resource://docs/chunks/a.md").unwrap();
        assert_eq!(p.chunk, None);
        assert_eq!(
            parse("RESOURCE://catalog/skills/pdf").unwrap().family,
            Family::SkillRecord {
                skill_id: "pdf".into()
            }
        );
    }

    #[test]
    fn equivalent_spellings_share_a_canonical_form() {
        let a = parse("resource://docs/my%20file.md").unwrap();
        let b = parse("resource://docs/my file.md").unwrap();
        let c = parse("resource://docs/my%20fil%65.md").unwrap();
        assert_eq!(a.canonical(), b.canonical());
        assert_eq!(a.canonical(), c.canonical());
    }

    #[test]
    fn rejects_traversal_and_hostile_input() {
        for bad in [
            "resource://docs/../etc/passwd",
            "resource://docs/%2e%2e/secret.md",
            "resource://docs/a/%2E%2E%2F..%2Fb.md",
            "resource://docs//etc/passwd",
            "resource://docs/%2Fetc/passwd",
            "resource://docs/a\\b.md",
            "resource://docs/a%5Cb.md",
            "resource://docs/a%00.md",
            "skill://pdf/../../etc",
            "resource://skills/..%2Fx/document",
        ] {
            assert!(
                matches!(parse(bad), Err(UriError::Path(_))),
                "{bad} should be an invalid path: {:?}",
                parse(bad)
            );
        }
        for bad in [
            "",
            "http://example.com",
            "resource://nope/x",
            "resource://docs/a.md?x=1",
            "no scheme",
            "resource://docs/a\u{0}.md",
        ] {
            assert!(
                matches!(parse(bad), Err(UriError::Invalid(_))),
                "{bad:?} should be an invalid URI"
            );
        }
        let long = format!("resource://docs/{}.md", "a".repeat(100_000));
        assert!(matches!(parse(&long), Err(UriError::Invalid(_))));
        // Double encoding decodes once: `%252e` is a literal `%2e`, not a traversal.
        assert!(parse("resource://docs/%252e%252e/x.md").is_ok());
    }
}
