//! The error envelope: one shape, two carriers (SPEC §4 "Errors").
//!
//! - Non-tool requests (`resources/read`, …): a JSON-RPC error whose `data` is the envelope
//!   with `machine_code` / `human_message`.
//! - Tools: a result with `isError: true` and the envelope in `structuredContent`, with
//!   `code` / `message`.
//!
//! `details.candidates` holds did-you-mean suggestions computed from the baked ids, and
//! `repair` names the next step that fixes the request.
//!
//! The carriers are methods of [`VerifiedError`], which only
//! [`CatalogError::verified`] makes: the tool registry (`cmd::tools::verify`) runs the
//! repair call first, so every `repair` a client sees works when called literally. This
//! module sits below every surface and knows no tool.

use rmcp::ErrorData;
use serde_json::{Map, Value, json};

use crate::catalog::Catalog;
use crate::contract;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Code {
    SkillNotFound,
    ReferenceNotFound,
    DocNotFound,
    FileNotFound,
    NotADirectory,
    ChunkNotFound,
    AnchorNotFound,
    ReleaseNotFound,
    InvalidUri,
    InvalidPath,
    InvalidArgument,
    CursorInvalid,
    ContentDamaged,
}

impl Code {
    /// Every code, for whoever needs the closed set (the metrics' labels).
    pub const ALL: [Code; 13] = [
        Code::SkillNotFound,
        Code::ReferenceNotFound,
        Code::DocNotFound,
        Code::FileNotFound,
        Code::NotADirectory,
        Code::ChunkNotFound,
        Code::AnchorNotFound,
        Code::ReleaseNotFound,
        Code::InvalidUri,
        Code::InvalidPath,
        Code::InvalidArgument,
        Code::CursorInvalid,
        Code::ContentDamaged,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Code::SkillNotFound => "skill_not_found",
            Code::ReferenceNotFound => "reference_not_found",
            Code::DocNotFound => "doc_not_found",
            Code::FileNotFound => "file_not_found",
            Code::NotADirectory => "not_a_directory",
            Code::ChunkNotFound => "chunk_not_found",
            Code::AnchorNotFound => "anchor_not_found",
            Code::ReleaseNotFound => "release_not_found",
            Code::InvalidUri => "invalid_uri",
            Code::InvalidPath => "invalid_path",
            Code::InvalidArgument => "invalid_argument",
            Code::CursorInvalid => "cursor_invalid",
            Code::ContentDamaged => "content_damaged",
        }
    }

    fn is_not_found(self) -> bool {
        matches!(
            self,
            Code::SkillNotFound
                | Code::ReferenceNotFound
                | Code::DocNotFound
                | Code::FileNotFound
                | Code::ChunkNotFound
                | Code::AnchorNotFound
                | Code::ReleaseNotFound
        )
    }
}

/// The next step that fixes a failed request.
#[derive(Debug, Clone, PartialEq)]
pub struct Repair {
    /// Symbolic step, e.g. `read_index_then_retry`.
    pub next_step: &'static str,
    /// A tool to call, with arguments that work when passed literally. Before an error
    /// leaves the server, `cmd::tools::verify` runs this call in-process and replaces it
    /// with a listing that works should it fail.
    pub tool: Option<(&'static str, Value)>,
    /// What to do without tools.
    pub alternative: String,
}

impl Repair {
    /// `catalog_read {"uri": uri}`.
    pub fn read(next_step: &'static str, uri: &str, alternative: impl Into<String>) -> Repair {
        Repair {
            next_step,
            tool: Some((contract::TOOL_READ, json!({ "uri": uri }))),
            alternative: alternative.into(),
        }
    }

    /// `catalog_read {"uri": uri, "chunk_id": chunk_id}`.
    pub fn read_chunk(
        next_step: &'static str,
        uri: &str,
        chunk_id: &str,
        alternative: impl Into<String>,
    ) -> Repair {
        Repair {
            next_step,
            tool: Some((
                contract::TOOL_READ,
                json!({ "uri": uri, "chunk_id": chunk_id }),
            )),
            alternative: alternative.into(),
        }
    }

    /// `catalog_list {"kind": kind}` (plus `prefix` when given).
    pub fn list(
        next_step: &'static str,
        kind: &str,
        prefix: Option<&str>,
        alternative: impl Into<String>,
    ) -> Repair {
        let mut arguments = json!({ "kind": kind });
        if let Some(prefix) = prefix {
            arguments["prefix"] = Value::String(prefix.to_owned());
        }
        Repair {
            next_step,
            tool: Some((contract::TOOL_LIST, arguments)),
            alternative: alternative.into(),
        }
    }

    /// Any tool call.
    pub fn call(
        next_step: &'static str,
        tool: &'static str,
        arguments: Value,
        alternative: impl Into<String>,
    ) -> Repair {
        Repair {
            next_step,
            tool: Some((tool, arguments)),
            alternative: alternative.into(),
        }
    }
}

/// An error for the client, built by the surfaces and carried by the caller. Boxed: a
/// failed request builds one, while every `Result` that may hold it is passed around on
/// the success path too, which should not copy 270 bytes each time.
#[derive(Debug, Clone, PartialEq)]
pub struct CatalogError(Box<ErrorBody>);

/// What a [`CatalogError`] says; its fields are read through the error itself.
#[derive(Debug, Clone, PartialEq)]
pub struct ErrorBody {
    pub code: Code,
    pub message: String,
    /// The request field at fault (`uri`, `cursor`, `skill_id`…).
    pub field: &'static str,
    pub value: String,
    pub reason: String,
    pub candidates: Vec<String>,
    pub repair: Option<Repair>,
    /// The URI the request was about, if any.
    pub resource_uri: Option<String>,
}

/// A [`CatalogError`] whose `repair` call is known to work: the only kind that leaves the
/// server, since the carriers (JSON-RPC `error.data`, a tool's `isError` result) are its
/// methods.
#[derive(Debug, Clone, PartialEq)]
pub struct VerifiedError(CatalogError);

impl std::ops::Deref for CatalogError {
    type Target = ErrorBody;

    fn deref(&self) -> &ErrorBody {
        &self.0
    }
}

impl std::ops::DerefMut for CatalogError {
    fn deref_mut(&mut self) -> &mut ErrorBody {
        &mut self.0
    }
}

/// A read that found the binary's content damaged: not the client's fault, and nothing it
/// can retry; the message says how to recover.
impl From<crate::catalog::Damaged> for CatalogError {
    fn from(damage: crate::catalog::Damaged) -> Self {
        CatalogError::new(Code::ContentDamaged, damage.to_string())
            .field("frame", damage.frame.to_string())
            .reason(damage.reason)
    }
}

impl CatalogError {
    /// What the error says, unboxed.
    pub fn into_body(self) -> ErrorBody {
        *self.0
    }

    pub fn new(code: Code, message: impl Into<String>) -> Self {
        CatalogError(Box::new(ErrorBody {
            code,
            message: message.into(),
            field: "",
            value: String::new(),
            reason: String::new(),
            candidates: Vec::new(),
            repair: None,
            resource_uri: None,
        }))
    }

    pub fn field(mut self, field: &'static str, value: impl Into<String>) -> Self {
        self.field = field;
        self.value = value.into();
        self
    }

    pub fn reason(mut self, reason: impl Into<String>) -> Self {
        self.reason = reason.into();
        self
    }

    pub fn candidates(mut self, candidates: Vec<String>) -> Self {
        self.candidates = candidates;
        self
    }

    pub fn repair(mut self, repair: Repair) -> Self {
        self.repair = Some(repair);
        self
    }

    /// This error with the repair call `working` vouches for: given the code and the
    /// repair as built, it returns one that works (`cmd::tools::working_repair` runs the
    /// call in-process — tools are pure functions of the baked catalog: microseconds, no
    /// side effects — and puts in `catalog_list {}`, which always works, should it fail
    /// or be missing).
    pub fn verified(
        mut self,
        working: impl FnOnce(Code, Option<Repair>) -> Repair,
    ) -> VerifiedError {
        self.repair = Some(working(self.code, self.repair.take()));
        VerifiedError(self)
    }

    /// The URI the request was about, echoed whole (clients match on it) unless it is
    /// longer than any URI the server accepts: a hostile 10 MB URI must not come back as a
    /// 10 MB error (and a 10 MB log line).
    pub fn uri(mut self, uri: impl Into<String>) -> Self {
        let uri = uri.into();
        self.resource_uri = Some(if uri.len() > crate::uri::MAX_URI_BYTES {
            crate::uri::shorten(&uri)
        } else {
            uri
        });
        self
    }

    fn details(&self) -> Value {
        json!({
            "field": self.field,
            "value": crate::uri::shorten(&self.value),
            "reason": self.reason,
            "candidates": self.candidates,
        })
    }

    fn repair_json(&self) -> Value {
        match &self.repair {
            None => Value::Null,
            Some(repair) => {
                let mut map = Map::new();
                map.insert("next_step".into(), repair.next_step.into());
                if let Some((tool, arguments)) = &repair.tool {
                    map.insert("tool".into(), (*tool).into());
                    map.insert("arguments".into(), arguments.clone());
                }
                map.insert("alternative".into(), repair.alternative.clone().into());
                Value::Object(map)
            }
        }
    }
}

impl VerifiedError {
    /// The error as verified.
    pub fn error(&self) -> &CatalogError {
        &self.0
    }

    /// The envelope as carried in JSON-RPC `error.data`.
    pub fn rpc_envelope(&self, catalog: &Catalog) -> Value {
        let this = &self.0;
        let mut envelope = json!({
            "machine_code": this.code.as_str(),
            "human_message": this.message,
            "details": this.details(),
            "temporary": false,
            "retry_after_ms": null,
            "repair": this.repair_json(),
            "resource_uri": this.resource_uri,
            "fingerprint": catalog.fingerprint(),
        });
        // The base protocol's resource-not-found convention (SEP-2164) puts the URI at
        // `data.uri`; keep it there too for clients that only know that.
        if let Some(uri) = &this.resource_uri {
            envelope["uri"] = Value::String(crate::uri::shorten(uri));
        }
        envelope
    }

    /// The envelope as carried in a tool result's `structuredContent`.
    pub fn tool_envelope(&self, catalog: &Catalog) -> Value {
        let this = &self.0;
        json!({
            "code": this.code.as_str(),
            "message": this.message,
            "details": this.details(),
            "temporary": false,
            "retry_after_ms": null,
            "repair": this.repair_json(),
            "resource_uri": this.resource_uri,
            "fingerprint": catalog.fingerprint(),
        })
    }

    /// What a client that shows only text sees of a tool error: the message, the
    /// did-you-mean candidates and the repair call.
    pub fn tool_text(&self) -> String {
        let this = &self.0;
        let mut text = this.message.clone();
        if !this.reason.is_empty() {
            text.push_str(&format!(" ({})", this.reason));
        }
        if !this.candidates.is_empty() {
            text.push_str(&format!(" Did you mean: {}?", this.candidates.join(", ")));
        }
        if let Some(repair) = &this.repair {
            match &repair.tool {
                Some((tool, arguments)) => {
                    text.push_str(&format!(" Next: {tool} {arguments}."));
                }
                None => text.push_str(&format!(" Next: {}", repair.alternative)),
            }
        }
        text.push_str(&format!(" [code: {}]", this.code.as_str()));
        text
    }

    /// The JSON-RPC carrier. Not-found errors use the resource-not-found code, which rmcp
    /// maps to `-32602` for 2026-07-28 peers and `-32002` for older ones.
    pub fn into_error_data(self, catalog: &Catalog) -> ErrorData {
        let data = Some(self.rpc_envelope(catalog));
        let ErrorBody { code, message, .. } = self.0.into_body();
        if code.is_not_found() {
            ErrorData::resource_not_found(message, data)
        } else if code == Code::ContentDamaged {
            ErrorData::internal_error(message, data)
        } else {
            ErrorData::invalid_params(message, data)
        }
    }

    /// The JSON-RPC carrier with `-32602` (Invalid params) whatever the protocol version
    /// and code: what SEP-2640 requires of `skills/get` and `resources/directory/read`, and
    /// what `prompts/get` and `tools/call` use for unknown names and bad arguments.
    pub fn into_invalid_params(self, catalog: &Catalog) -> ErrorData {
        let data = Some(self.rpc_envelope(catalog));
        ErrorData::invalid_params(self.0.into_body().message, data)
    }
}

/// How many did-you-mean candidates an error carries.
pub const CANDIDATES: usize = 5;

/// Up to `limit` ids from `known` that look like `wanted`: prefix matches first, then by
/// edit distance (at most a third of the length, and at most 3).
pub fn did_you_mean<'a>(
    wanted: &str,
    known: impl IntoIterator<Item = &'a str>,
    limit: usize,
) -> Vec<String> {
    let wanted_lower = wanted.to_lowercase();
    let wanted_chars = wanted_lower.chars().count();
    let max_distance = (wanted_chars / 3).clamp(1, 3);
    let mut scored: Vec<(usize, usize, &str)> = Vec::new();
    for candidate in known {
        // Ids are mostly lowercase already: compare them as they are, without a copy.
        let lower: std::borrow::Cow<str> =
            if candidate.is_ascii() && !candidate.bytes().any(|b| b.is_ascii_uppercase()) {
                candidate.into()
            } else {
                candidate.to_lowercase().into()
            };
        let gap = wanted_chars.abs_diff(lower.chars().count());
        // One a prefix of the other: the edit distance is the length difference.
        if !wanted_lower.is_empty()
            && (lower.starts_with(&wanted_lower) || wanted_lower.starts_with(&*lower))
        {
            scored.push((0, gap, candidate));
            continue;
        }
        // The distance is at least the length difference: skip the quadratic
        // comparison when that alone rules a candidate out (hostile input can be long).
        if gap > max_distance {
            continue;
        }
        let distance = strsim::levenshtein(&wanted_lower, &lower);
        if distance <= max_distance {
            scored.push((1, distance, candidate));
        }
    }
    scored.sort();
    scored.dedup_by(|a, b| a.2 == b.2);
    scored
        .into_iter()
        .take(limit)
        .map(|(_, _, c)| c.to_owned())
        .collect()
}

/// Lists up to this long are searched whole for did-you-mean candidates.
pub const FULL_SCAN: usize = 64;

/// [`did_you_mean`] over a list sorted by `key`, with bounded work: a list of up to
/// [`FULL_SCAN`] entries is searched whole; a longer one only around where `wanted` would
/// sort (`FULL_SCAN` entries), which holds every prefix match and the entries that share
/// its beginning — where most typos land. An error answer must not cost time in proportion
/// to the catalog: a client repeating a wrong URI would otherwise stall the server, and a
/// 10,000-document catalog made each miss cost milliseconds.
pub fn did_you_mean_sorted<T>(
    wanted: &str,
    sorted: &[T],
    key: impl Fn(&T) -> &str,
    limit: usize,
) -> Vec<String> {
    if sorted.len() <= FULL_SCAN {
        return did_you_mean(wanted, sorted.iter().map(&key), limit);
    }
    let at = sorted.partition_point(|entry| key(entry) < wanted);
    let start = at
        .saturating_sub(FULL_SCAN / 2)
        .min(sorted.len() - FULL_SCAN);
    did_you_mean(
        wanted,
        sorted[start..start + FULL_SCAN].iter().map(key),
        limit,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_by_prefix_and_edit_distance() {
        let known = ["pdf", "pptx", "docx", "xlsx", "skill-creator"];
        assert_eq!(did_you_mean("pdg", known, 3), ["pdf"]);
        assert_eq!(did_you_mean("skill", known, 3), ["skill-creator"]);
        assert!(did_you_mean("zzzzzzzz", known, 3).is_empty());
        assert_eq!(did_you_mean("PDG", ["PDF", "Pptx"], 3), ["PDF"]);
    }

    #[test]
    fn sorted_lists_are_searched_near_the_wanted_id() {
        let small = ["alpha", "beta", "gamma"];
        assert_eq!(did_you_mean_sorted("betta", &small, |s| s, 3), ["beta"]);
        let ids: Vec<String> = (0..10_000).map(|i| format!("skill-{i:05}")).collect();
        // Prefix matches and close ids, found without scanning all 10,000.
        assert_eq!(
            did_you_mean_sorted("skill-0421", &ids, |s| s.as_str(), 3),
            ["skill-04210", "skill-04211", "skill-04212"]
        );
        assert_eq!(
            did_you_mean_sorted("skill-09998x", &ids, |s| s.as_str(), 1),
            ["skill-09998"]
        );
        assert_eq!(
            did_you_mean_sorted("skill-00001", &ids, |s| s.as_str(), 1),
            ["skill-00001"]
        );
        assert!(did_you_mean_sorted("zzz", &ids, |s| s.as_str(), 3).is_empty());
    }
}
