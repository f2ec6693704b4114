//! `serve --http … --access-log`: one JSON line per request on the MCP path, on stderr.
//!
//! Who called (the client name of their token, or the OAuth token's client id and
//! subject), what (JSON-RPC method, tool, resource URI), how it went (HTTP status, error
//! code, bytes, duration), when, and the request id that joins the line to a proxy's. The
//! search query is logged only with `--access-log-queries`: queries can carry what a user
//! is working on, which an audit log should not collect unless the operator decides so.
//!
//! Lines go to stderr with one `write` each (stdout belongs to the protocol on stdio, and
//! a line written whole is not interleaved with another thread's), beside the server's own
//! log lines, which are not JSON: `grep '^{'` separates them.

use std::io::Write;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{Map, Value, json};

use super::note::Note;

#[derive(Debug, Clone)]
pub struct AccessLog {
    pub queries: bool,
}

impl AccessLog {
    pub fn write(
        &self,
        when: SystemTime,
        request_id: &str,
        note: &Note,
        status: u16,
        bytes: Option<u64>,
        elapsed: Duration,
    ) {
        let mut line = self.line(when, request_id, note, status, bytes, elapsed);
        line.push('\n');
        // A full or closed stderr must not fail the request; the line is lost.
        let _ = std::io::stderr().lock().write_all(line.as_bytes());
    }

    pub fn line(
        &self,
        when: SystemTime,
        request_id: &str,
        note: &Note,
        status: u16,
        bytes: Option<u64>,
        elapsed: Duration,
    ) -> String {
        let mut fields = Map::new();
        fields.insert("time".into(), json!(rfc3339(when)));
        fields.insert("request_id".into(), json!(request_id));
        fields.insert("transport".into(), json!("http"));
        let (client, auth) = match &note.identity {
            Some(identity) => (Value::from(identity.client.as_str()), identity.kind),
            None if note.auth_failure.is_some() => (Value::Null, "refused"),
            None => (Value::Null, "none"),
        };
        fields.insert("client".into(), client);
        fields.insert("auth".into(), json!(auth));
        if let Some(subject) = note.identity.as_ref().and_then(|i| i.subject.as_deref()) {
            fields.insert("subject".into(), json!(subject));
        }
        if let Some(reason) = note.auth_failure {
            fields.insert("auth_error".into(), json!(reason));
        }
        fields.insert("http_method".into(), json!(note.http_method));
        fields.insert("method".into(), json!(note.method));
        if let Some(tool) = note.tool {
            fields.insert("tool".into(), json!(tool));
        }
        if let Some(uri) = &note.uri {
            fields.insert("uri".into(), json!(uri));
        }
        if self.queries
            && let Some(query) = &note.query
        {
            fields.insert("query".into(), json!(query));
        }
        fields.insert("status".into(), json!(status));
        fields.insert("error".into(), json!(note.error));
        fields.insert("bytes".into(), json!(bytes));
        fields.insert(
            "duration_ms".into(),
            json!((elapsed.as_secs_f64() * 1e6).round() / 1e3),
        );
        if let Some(id) = &note.rpc_id {
            fields.insert("rpc_id".into(), json!(id));
        }
        if let Some(traceparent) = &note.traceparent {
            fields.insert("traceparent".into(), json!(traceparent));
        }
        Value::Object(fields).to_string()
    }
}

/// `2026-12-05T23:40:11.123Z`: UTC, milliseconds. The compiler's `compile::date` writes
/// the seconds; no date crate for one format.
fn rfc3339(when: SystemTime) -> String {
    let since = when.duration_since(UNIX_EPOCH).unwrap_or_default();
    let seconds = crate::compile::date::format_date(since.as_secs());
    format!(
        "{}.{:03}Z",
        seconds.trim_end_matches('Z'),
        since.subsec_millis()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_rfc3339_utc() {
        let when = UNIX_EPOCH + Duration::from_millis(1_796_514_011_123);
        assert_eq!(rfc3339(when), "2026-12-05T23:40:11.123Z");
    }

    #[test]
    fn queries_only_when_asked() {
        let note = Note {
            method: Some("tools/call"),
            tool: Some("catalog_search"),
            query: Some("secret project".into()),
            ..Note::default()
        };
        let when = UNIX_EPOCH;
        let quiet =
            AccessLog { queries: false }.line(when, "r1", &note, 200, Some(10), Duration::ZERO);
        assert!(!quiet.contains("secret project"), "{quiet}");
        let loud =
            AccessLog { queries: true }.line(when, "r1", &note, 200, Some(10), Duration::ZERO);
        let parsed: Value = serde_json::from_str(&loud).unwrap();
        assert_eq!(parsed["query"], "secret project");
        assert_eq!(parsed["tool"], "catalog_search");
        assert_eq!(parsed["transport"], "http");
    }
}
