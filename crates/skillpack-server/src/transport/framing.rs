//! Newline-delimited JSON-RPC over a byte stream (stdio), answering every request.
//!
//! Hand-written instead of rmcp's `AsyncRwTransport`, which by design ignores lines that
//! are not JSON without a word, answers a well-formed request whose params do not fit with
//! an error that has lost the request's id (so the client waits for its answer until it
//! times out), and drops oversized lines silently. Here:
//!
//! - a message is at most [`MAX_MESSAGE_BYTES`]; a longer line is skipped as it streams in,
//!   so memory stays bounded, and answered with `-32600 Invalid Request`;
//! - a line that is not JSON (bad syntax, invalid UTF-8, nesting deeper than serde_json's
//!   128 levels) is answered with `-32700 Parse error`;
//! - JSON that is not an MCP message is answered with `-32600 Invalid Request`, or with
//!   `-32602 Invalid params` when it is a request whose params do not fit its method — with
//!   the request's id whenever it can be read;
//! - notifications and responses are never answered: JSON-RPC forbids it, and it keeps two
//!   peers from bouncing errors at each other forever.
//!
//! When the id cannot be read the error carries no id, as MCP 2026-07-28 §Error Responses
//! specifies (JSON-RPC 2.0 says `null`, which older MCP schemas do not allow; rmcp emits
//! the same shape).
//!
//! At most [`MAX_IN_FLIGHT`] requests are handled at once: once that many await their
//! answers, no further line is read until one is written. rmcp reads as fast as it can and
//! starts a task per request, so without this a client that pipelines thousands of reads
//! makes the server hold every pending answer in memory (hundreds of MiB) before the
//! writer catches up; with it, memory stays bounded by what is in flight and the pipe
//! itself pushes back on the client.
//!
//! Writes go through one `FramedWrite` so that every message is appended whole: a send
//! cancelled half-way leaves its bytes in the buffer for the next flush instead of splicing
//! two messages together.
//!
//! Answers that are ready together are written together: a send flushes only when no other
//! answer is waiting to be written, or when [`FLUSH_BYTES`] are buffered. A lone request
//! is answered at once; a pipelining client gets its answers in a few large writes instead
//! of one write (and one wake-up of its reader) per answer.

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use futures::SinkExt;
use rmcp::RoleServer;
use rmcp::model::{
    ClientNotification, ErrorCode, ErrorData, JsonRpcMessage, NumberOrString, RequestId,
    ResourceContents, ServerResult,
};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, BufReader};
use tokio::sync::{Mutex, Semaphore};
use tokio_util::bytes::{BufMut, BytesMut};
use tokio_util::codec::{Encoder, FramedWrite};

use crate::catalog::Catalog;
use crate::cmd::resources::{DocumentMeta, deferred_document};
pub use crate::contract::MAX_MESSAGE_BYTES;
use crate::contract::META_DOCUMENT;
use crate::uri::shorten;

/// A UTF-8 byte-order mark, skipped before a message (stdio lines and HTTP bodies).
pub const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Requests handled at once on one stdio connection (see the module docs).
pub const MAX_IN_FLIGHT: usize = 64;

/// Buffered answer bytes past which a send flushes even though more answers are waiting
/// (see the module docs): the pipe's default capacity.
pub const FLUSH_BYTES: usize = 64 * 1024;

type Writer<W> = FramedWrite<W, AnswerCodec>;

/// Writes each outgoing message as one line of JSON.
///
/// Serialised with sonic-rs rather than serde_json (what rmcp's codec uses): answers are
/// mostly long markdown strings, and sonic-rs escapes them with SIMD, several times faster
/// on documents of tens of KiB. Its output is byte-for-byte serde_json's (numbers, escapes,
/// key order); a unit test holds it to that.
///
/// Document reads arrive with a placeholder for their `_meta` (the server runs with
/// [`MetaDelivery::Deferred`](crate::cmd::resources::MetaDelivery::Deferred)): the codec writes the document's outline, chunk catalog
/// and links in its place straight from the archive, so that no `serde_json` values are
/// built for them. The bytes are the ones the value would have given; the same test checks
/// every built-in document.
#[derive(Debug, Clone, Copy)]
pub struct AnswerCodec {
    catalog: Catalog,
}

impl AnswerCodec {
    pub fn new(catalog: Catalog) -> Self {
        AnswerCodec { catalog }
    }
}

impl Encoder<TxJsonRpcMessage<RoleServer>> for AnswerCodec {
    type Error = std::io::Error;

    fn encode(
        &mut self,
        message: TxJsonRpcMessage<RoleServer>,
        dst: &mut BytesMut,
    ) -> Result<(), Self::Error> {
        let start = dst.len();
        sonic_rs::to_writer(dst.writer(), &message).map_err(std::io::Error::other)?;
        if let Some((document, placeholder)) = deferred_document_meta(&message) {
            self.write_document_meta(dst, start, document, placeholder)?;
        }
        dst.put_u8(b'\n');
        Ok(())
    }
}

impl AnswerCodec {
    /// Replace the last `placeholder` (serialised) in `dst[start..]` with the document's
    /// `_meta`. The last one: `_meta` comes after `text` in a resource's contents, so a
    /// document whose text happened to hold the same characters cannot be mistaken for it.
    fn write_document_meta(
        &self,
        dst: &mut BytesMut,
        start: usize,
        document: u32,
        placeholder: &Value,
    ) -> std::io::Result<()> {
        let placeholder = sonic_rs::to_vec(placeholder).map_err(std::io::Error::other)?;
        let Some(at) = dst[start..]
            .windows(placeholder.len())
            .rposition(|window| window == placeholder.as_slice())
        else {
            return Err(std::io::Error::other(
                "a deferred document `_meta` placeholder was not written where expected",
            ));
        };
        let at = start + at;
        // What follows the placeholder is a few closing brackets (and cache hints). It is
        // copied aside rather than split off: a split buffer is shared, and writing into it
        // again would copy everything buffered so far.
        let tail = dst[at + placeholder.len()..].to_vec();
        dst.truncate(at);
        let tables = self
            .catalog
            .tables(document)
            .map_err(std::io::Error::other)?;
        let meta = DocumentMeta(
            self.catalog.archive(),
            self.catalog.document(document),
            &tables,
        );
        sonic_rs::to_writer(dst.writer(), &meta).map_err(std::io::Error::other)?;
        dst.extend_from_slice(&tail);
        Ok(())
    }
}

/// The `_meta` placeholder of a `resources/read` answer, and the document it stands for.
/// A read answers with one `contents` entry (`cmd::resources::read_with`); that is what
/// makes the last occurrence of the placeholder the one to replace.
fn deferred_document_meta(message: &TxJsonRpcMessage<RoleServer>) -> Option<(u32, &Value)> {
    let JsonRpcMessage::Response(response) = message else {
        return None;
    };
    let ServerResult::ReadResourceResult(result) = &response.result else {
        return None;
    };
    let meta = match result.contents.as_slice() {
        [ResourceContents::TextResourceContents { meta, .. }]
        | [ResourceContents::BlobResourceContents { meta, .. }] => meta.as_ref()?,
        _ => return None,
    };
    let placeholder = meta.get(META_DOCUMENT)?;
    Some((deferred_document(placeholder)?, placeholder))
}

/// What one incoming line is.
#[derive(Debug)]
pub enum Incoming {
    /// A message for the MCP service.
    Message(Box<RxJsonRpcMessage<RoleServer>>),
    /// Not a message: answer with this error (and this id, when it could be read).
    Answer(ErrorData, Option<RequestId>),
    /// Not a message, and JSON-RPC forbids answering it (notification, response, blank).
    Ignore(&'static str),
}

/// Classify one line (without its newline), or one HTTP body that rmcp could not read.
/// Pure, so it is unit-tested and fuzzed.
pub fn classify(line: &[u8]) -> Incoming {
    // RFC 8259 §8.1 lets parsers ignore a byte-order mark, as rmcp does.
    let line = line.strip_prefix(BOM).unwrap_or(line);
    let line = line.trim_ascii();
    if line.is_empty() {
        return Incoming::Ignore("blank line");
    }
    let error = match serde_json::from_slice::<RxJsonRpcMessage<RoleServer>>(line) {
        Ok(message) => return Incoming::Message(Box::new(message)),
        Err(error) => error,
    };
    let value = match error.classify() {
        serde_json::error::Category::Data => serde_json::from_slice::<Value>(line).ok(),
        _ => None,
    };
    match value {
        Some(value) => not_a_message(&value, &error),
        None => Incoming::Answer(
            ErrorData::new(
                ErrorCode::PARSE_ERROR,
                format!(
                    "Parse error: the message is not JSON ({}); send each JSON-RPC message as one UTF-8 JSON object (one line on stdio, one body over HTTP)",
                    shorten(&error.to_string())
                ),
                None,
            ),
            None,
        ),
    }
}

/// Valid JSON that did not parse as an MCP message: say what is wrong with it.
fn not_a_message(value: &Value, error: &serde_json::Error) -> Incoming {
    let invalid =
        |message: &str| ErrorData::invalid_request(format!("Invalid Request: {message}"), None);
    let Value::Object(map) = value else {
        let message = match value {
            Value::Array(items) if items.is_empty() => "an empty JSON array is not a message",
            Value::Array(_) => {
                "JSON-RPC batches are not supported (MCP removed them in 2025-06-18); send each message on its own (one line on stdio, one POST over HTTP)"
            }
            _ => "a JSON-RPC message is a JSON object",
        };
        return Incoming::Answer(invalid(message), None);
    };
    let id = map.get("id").and_then(request_id);
    match map.get("method") {
        Some(Value::String(method)) => {
            if !map.contains_key("id") {
                return Incoming::Ignore("malformed notification");
            }
            let Some(id) = id else {
                return Incoming::Answer(invalid("`id` must be a string or an integer"), None);
            };
            if map.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
                return Incoming::Answer(invalid("`jsonrpc` must be \"2.0\""), Some(id));
            }
            // serde's untagged-enum error says nothing useful; other errors name the field.
            let detail = error.to_string();
            let detail = if detail.starts_with("unrecognized JSON-RPC message") {
                String::new()
            } else {
                format!(" ({})", shorten(&detail))
            };
            Incoming::Answer(
                ErrorData::invalid_params(
                    format!(
                        "Invalid params: the params do not match what `{}` takes{detail}; see the method in the MCP schema",
                        shorten(method),
                    ),
                    None,
                ),
                Some(id),
            )
        }
        Some(_) => Incoming::Answer(invalid("`method` must be a string"), id),
        None if map.contains_key("result") || map.contains_key("error") => {
            Incoming::Ignore("malformed response")
        }
        None => Incoming::Answer(invalid("a request needs a `method`"), id),
    }
}

fn request_id(value: &Value) -> Option<RequestId> {
    match value {
        Value::String(s) => Some(NumberOrString::String(s.as_str().into())),
        Value::Number(n) => n.as_i64().map(NumberOrString::Number),
        _ => None,
    }
}

/// The stdio transport: reads bounded lines from `R`, writes whole messages to `W`.
pub struct LineTransport<R, W> {
    reader: BufReader<R>,
    line: Vec<u8>,
    /// Bytes seen so far of an oversized line being skipped.
    skipping: Option<usize>,
    max: usize,
    writer: Arc<Mutex<Option<Writer<W>>>>,
    /// An error answer `receive` owes the client; kept here so that a cancelled `receive`
    /// (rmcp polls it inside `select!`) sends it on the next call instead of losing it.
    owed: Option<Owed>,
    in_flight: Arc<InFlight>,
    /// Sends started and not yet buffered: while any is waiting, the one writing leaves
    /// the flush to it (see the module docs).
    waiting: Arc<AtomicUsize>,
}

/// One send's place in [`LineTransport::waiting`], given back when the message is buffered
/// or the send is dropped, whichever comes first.
struct Waiting(Option<Arc<AtomicUsize>>);

impl Waiting {
    /// Stop waiting; `true` if no other send is waiting now.
    fn done(&mut self) -> bool {
        self.0
            .take()
            .is_none_or(|w| w.fetch_sub(1, Ordering::AcqRel) == 1)
    }
}

impl Drop for Waiting {
    fn drop(&mut self) {
        self.done();
    }
}

/// Requests read and not yet answered, and the permits that bound them.
struct InFlight {
    permits: Semaphore,
    /// Ids of the requests holding a permit: a permit comes back once per id — when its
    /// answer is written or the client cancels it (rmcp then sends no answer) — so a
    /// duplicate or unknown id can neither leak nor mint one.
    ids: std::sync::Mutex<HashSet<RequestId>>,
}

impl InFlight {
    fn new(limit: usize) -> Self {
        InFlight {
            permits: Semaphore::new(limit),
            ids: std::sync::Mutex::new(HashSet::new()),
        }
    }

    /// The request `id` took a permit (already acquired and forgotten by the caller).
    /// `false` if the id was already in flight: the caller gives the permit back.
    fn start(&self, id: RequestId) -> bool {
        self.ids
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id)
    }

    fn finish(&self, id: &RequestId) {
        if self
            .ids
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(id)
        {
            self.permits.add_permits(1);
        }
    }
}

struct Owed {
    message: TxJsonRpcMessage<RoleServer>,
    fed: bool,
}

enum LineRead {
    Line,
    /// A line longer than the limit, of this many bytes (newline excluded), was skipped.
    TooLong(usize),
    Eof,
    Io(std::io::Error),
}

impl<R, W> LineTransport<R, W>
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    /// `catalog` is the one the server answers from: the codec writes documents' `_meta`
    /// from it ([`AnswerCodec`]).
    pub fn new(read: R, write: W, catalog: Catalog) -> Self {
        Self::with_max_message_bytes(read, write, catalog, MAX_MESSAGE_BYTES)
    }

    pub fn with_max_message_bytes(read: R, write: W, catalog: Catalog, max: usize) -> Self {
        let mut writer = FramedWrite::new(write, AnswerCodec::new(catalog));
        // `feed` would otherwise write out whatever is buffered past 8 KiB.
        writer.set_backpressure_boundary(FLUSH_BYTES);
        LineTransport {
            reader: BufReader::new(read),
            line: Vec::new(),
            skipping: None,
            max,
            writer: Arc::new(Mutex::new(Some(writer))),
            owed: None,
            in_flight: Arc::new(InFlight::new(MAX_IN_FLIGHT)),
            waiting: Arc::new(AtomicUsize::new(0)),
        }
    }

    /// Read one line into `self.line`, never letting it grow past `self.max`. Cancel-safe:
    /// bytes are moved from the reader's buffer synchronously, so a dropped future leaves
    /// the partial line (or the skip count) for the next call.
    async fn read_line(&mut self) -> LineRead {
        loop {
            let available = match self.reader.fill_buf().await {
                Ok(available) => available,
                Err(error) => return LineRead::Io(error),
            };
            if available.is_empty() {
                return LineRead::Eof;
            }
            let newline = available.iter().position(|&b| b == b'\n');
            let take = newline.map_or(available.len(), |i| i + 1);
            let content = newline.unwrap_or(available.len());
            let done = match self.skipping.as_mut() {
                Some(skipped) => {
                    *skipped += content;
                    newline.is_some()
                }
                None if self.line.len() + content > self.max => {
                    self.skipping = Some(self.line.len() + content);
                    self.line = Vec::new();
                    newline.is_some()
                }
                None => {
                    self.line.extend_from_slice(&available[..take]);
                    newline.is_some()
                }
            };
            self.reader.consume(take);
            if done {
                return match self.skipping.take() {
                    Some(skipped) => LineRead::TooLong(skipped),
                    None => LineRead::Line,
                };
            }
        }
    }

    /// Send what `receive` owes, if anything. `false` when the output is closed.
    async fn pay_debt(&mut self) -> bool {
        let Some(owed) = self.owed.as_mut() else {
            return true;
        };
        let mut guard = self.writer.lock().await;
        let Some(writer) = guard.as_mut() else {
            return false;
        };
        if !owed.fed {
            if writer.feed(owed.message.clone()).await.is_err() {
                return false;
            }
            owed.fed = true;
        }
        if writer.flush().await.is_err() {
            return false;
        }
        self.owed = None;
        true
    }
}

impl<R, W> Transport<RoleServer> for LineTransport<R, W>
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let writer = self.writer.clone();
        let in_flight = self.in_flight.clone();
        let answered = match &item {
            JsonRpcMessage::Response(response) => Some(response.id.clone()),
            JsonRpcMessage::Error(error) => error.id.clone(),
            _ => None,
        };
        self.waiting.fetch_add(1, Ordering::AcqRel);
        let mut waiting = Waiting(Some(self.waiting.clone()));
        async move {
            let mut guard = writer.lock().await;
            let sent = match guard.as_mut() {
                Some(writer) => match writer.feed(item).await {
                    // The last answer waiting flushes for everyone before it. A send
                    // dropped before it got here stops waiting too (`Waiting::drop`), and
                    // the next send, or `close`, flushes what this one leaves buffered.
                    Ok(()) if waiting.done() || writer.write_buffer().len() >= FLUSH_BYTES => {
                        writer.flush().await
                    }
                    Ok(()) => Ok(()),
                    Err(error) => Err(error),
                },
                None => Err(std::io::Error::new(
                    std::io::ErrorKind::NotConnected,
                    "the stdio transport is closed",
                )),
            };
            drop(guard);
            if let Some(id) = answered {
                in_flight.finish(&id);
            }
            sent
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            if !self.pay_debt().await {
                return None;
            }
            // Wait for a free slot before reading: this is the back-pressure. Cancel-safe:
            // a dropped wait takes nothing, and the permit is only kept for a request.
            let in_flight = self.in_flight.clone();
            let Ok(permit) = in_flight.permits.acquire().await else {
                return None;
            };
            let answer = match self.read_line().await {
                LineRead::Line => {
                    // `classify` trims the newline and returns owned data.
                    let incoming = classify(&self.line);
                    // Keep the allocation for the next line unless a large one grew it.
                    if self.line.capacity() > 64 * 1024 {
                        self.line = Vec::new();
                    } else {
                        self.line.clear();
                    }
                    match incoming {
                        Incoming::Message(message) => {
                            // Starting a request's tracking is a side effect: it stays in
                            // the arm, not in a guard.
                            #[allow(clippy::collapsible_match)]
                            match message.as_ref() {
                                JsonRpcMessage::Request(request) => {
                                    if in_flight.start(request.id.clone()) {
                                        permit.forget();
                                    }
                                }
                                JsonRpcMessage::Notification(notification) => {
                                    if let ClientNotification::CancelledNotification(cancel) =
                                        &notification.notification
                                        && let Some(id) = &cancel.params.request_id
                                    {
                                        in_flight.finish(id);
                                    }
                                }
                                _ => {}
                            }
                            return Some(*message);
                        }
                        Incoming::Ignore(why) => {
                            tracing::debug!("ignoring an incoming line: {why}");
                            continue;
                        }
                        Incoming::Answer(error, id) => {
                            tracing::debug!(
                                code = error.code.0,
                                "answering a malformed message: {}",
                                error.message
                            );
                            (error, id)
                        }
                    }
                }
                LineRead::TooLong(bytes) => {
                    tracing::warn!(
                        bytes,
                        limit = self.max,
                        "skipped an oversized incoming message"
                    );
                    (
                        ErrorData::invalid_request(
                            format!(
                                "Invalid Request: the message is {bytes} bytes; this server accepts at most {} bytes per message",
                                self.max
                            ),
                            None,
                        ),
                        None,
                    )
                }
                LineRead::Eof => return None,
                LineRead::Io(error) => {
                    tracing::error!("cannot read stdin: {error}");
                    return None;
                }
            };
            self.owed = Some(Owed {
                message: JsonRpcMessage::error(answer.0, answer.1),
                fed: false,
            });
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        let writer = self.writer.lock().await.take();
        if let Some(mut writer) = writer {
            writer.flush().await?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn answer(line: &str) -> (i32, Option<RequestId>, String) {
        match classify(line.as_bytes()) {
            Incoming::Answer(error, id) => (error.code.0, id, error.message.into_owned()),
            other => panic!("{line}: expected an answer, got {other:?}"),
        }
    }

    #[test]
    fn messages_pass_through() {
        for line in [
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            "\u{feff}{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"ping\"}\r",
            r#"{"jsonrpc":"2.0","id":2,"method":"no/such/method"}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        ] {
            assert!(
                matches!(classify(line.as_bytes()), Incoming::Message(_)),
                "{line}"
            );
        }
    }

    #[test]
    fn garbage_is_a_parse_error_without_id() {
        for line in ["{not json", "{\"a\":", "[[[[", "\"unterminated"] {
            let (code, id, _) = answer(line);
            assert_eq!((code, id), (-32700, None), "{line}");
        }
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        assert_eq!(answer(&deep).0, -32700);
        let bad_utf8 =
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"a\":\"\xff\"}}";
        assert!(matches!(classify(bad_utf8), Incoming::Answer(e, None) if e.code.0 == -32700));
    }

    #[test]
    fn wrong_shapes_keep_their_id() {
        let (code, id, message) =
            answer(r#"{"jsonrpc":"2.0","id":5,"method":"resources/read","params":"oops"}"#);
        assert_eq!((code, id), (-32602, Some(NumberOrString::Number(5))));
        assert!(message.contains("resources/read"), "{message}");
        let (code, id, _) = answer(r#"{"jsonrpc":"1.0","id":"x","method":"ping"}"#);
        assert_eq!(
            (code, id),
            (-32600, Some(NumberOrString::String("x".into())))
        );
        assert_eq!(
            answer(r#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#).1,
            None
        );
        assert_eq!(
            answer(r#"{"jsonrpc":"2.0","id":7}"#),
            (
                -32600,
                Some(NumberOrString::Number(7)),
                "Invalid Request: a request needs a `method`".into()
            )
        );
        assert_eq!(answer("[]").0, -32600);
        assert!(
            answer(r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#)
                .2
                .contains("batches")
        );
        assert_eq!(answer("42").0, -32600);
        assert_eq!(answer(r#"{"jsonrpc":"2.0","id":3,"method":7}"#).0, -32600);
    }

    #[test]
    fn notifications_and_responses_are_never_answered() {
        for line in [
            "",
            "   ",
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":"bad"}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{}}"#,
            r#"{"jsonrpc":"2.0","error":"nonsense"}"#,
        ] {
            assert!(
                !matches!(classify(line.as_bytes()), Incoming::Answer(..)),
                "{line}"
            );
        }
    }

    /// The stdio codec writes exactly what serde_json (rmcp's codec, and the HTTP
    /// transport) writes, for every kind of answer the catalog gives: documents with their
    /// `_meta`, tool results with floating-point scores, error envelopes, tricky text.
    #[test]
    fn answer_codec_writes_what_serde_json_writes() {
        use rmcp::model::{CallToolResult, ServerResult};

        use crate::cmd::resources::MetaDelivery;
        use crate::cmd::{resources, tools};

        let catalog = crate::catalog::builtin();
        // What the codec is given (documents' `_meta` deferred, as the stdio server reads
        // them) and what serde_json must agree with (the `_meta` value built in full).
        let mut results: Vec<(ServerResult, ServerResult)> = Vec::new();
        let mut read = |uri: &str| {
            let with = |delivery| {
                let read = resources::read_with(&catalog, uri, delivery).expect("reads");
                ServerResult::ReadResourceResult(read)
            };
            results.push((with(MetaDelivery::Deferred), with(MetaDelivery::Inline)));
        };
        let mut deferred = 0;
        for document in catalog.documents() {
            read(&document.uri);
            deferred += 1;
        }
        // The same documents by their SEP-2640 `skill://` URIs, and files without `_meta`.
        for file in catalog.files() {
            read(&file.uri);
            deferred += usize::from(file.document.is_some());
        }
        assert!(deferred > catalog.documents().len());
        for arguments in [
            json!({"query": "chunk catalog outline"}),
            json!({"query": "\"unterminated phrase"}),
            json!({"kind": "nonsense"}),
        ] {
            let arguments = arguments.as_object().cloned();
            let call = |name| tools::call(&catalog, name, arguments.as_ref()).expect("known tool");
            for name in ["catalog_search", "catalog_list"] {
                let result = ServerResult::CallToolResult(call(name));
                results.push((result.clone(), result));
            }
        }
        let tricky = ServerResult::CallToolResult(CallToolResult::structured(json!({
            "text": "é \u{0} \u{1f} \u{7f} \u{2028} </script> \"quoted\" back\\slash \t\r\n 🦀",
            "floats": [0.1, 1e-7, 123456789.0, 1e300, -0.0, f64::MAX, 2.5e-320],
            "integers": [u64::MAX, i64::MIN],
        })));
        results.push((tricky.clone(), tricky));
        assert!(results.len() > 10);
        let mut codec = AnswerCodec::new(catalog);
        for (i, (given, inline)) in results.into_iter().enumerate() {
            let id = NumberOrString::Number(i as i64);
            let inline: TxJsonRpcMessage<RoleServer> = JsonRpcMessage::response(inline, id.clone());
            let mut expected = serde_json::to_vec(&inline).expect("serde_json serialises");
            expected.push(b'\n');
            let mut written = BytesMut::new();
            codec
                .encode(JsonRpcMessage::response(given, id), &mut written)
                .expect("the codec serialises");
            assert!(
                written[..] == expected[..],
                "answer {i} differs:\n{}\n{}",
                String::from_utf8_lossy(&written),
                String::from_utf8_lossy(&expected)
            );
        }
        let error = JsonRpcMessage::error(ErrorData::invalid_request("bad \u{1}", None), None);
        let mut written = BytesMut::new();
        codec.encode(error.clone(), &mut written).expect("encodes");
        let mut expected = serde_json::to_vec(&error).expect("serialises");
        expected.push(b'\n');
        assert_eq!(written[..], expected[..]);
    }

    /// A document whose text holds the very characters of a `_meta` placeholder: the
    /// codec replaces the placeholder after the text, and leaves the text alone.
    #[test]
    fn deferred_meta_is_written_in_place_of_its_own_placeholder() {
        use rmcp::model::ReadResourceResult;

        use crate::cmd::resources::{self, MetaDelivery};

        let catalog = crate::catalog::builtin();
        let document = catalog.documents().first().expect("a document");
        let deferred =
            resources::read_with(&catalog, &document.uri, MetaDelivery::Deferred).expect("reads");
        let ResourceContents::TextResourceContents {
            meta: Some(placeholder),
            ..
        } = &deferred.contents[0]
        else {
            panic!("a document read has text and `_meta`");
        };
        let Some(Value::String(placeholder_text)) = placeholder.get(META_DOCUMENT) else {
            panic!("a deferred read leaves a placeholder string");
        };
        let message = |meta| {
            let contents = ResourceContents::text(placeholder_text.as_str(), document.uri.as_str())
                .with_meta(meta);
            JsonRpcMessage::response(
                ServerResult::ReadResourceResult(ReadResourceResult::new(vec![contents])),
                NumberOrString::Number(1),
            )
        };
        let tables = catalog.tables(0).expect("the tables decode");
        let inline = crate::cmd::meta::meta(
            META_DOCUMENT,
            resources::document_meta(&catalog, 0, &tables),
        );
        let mut expected = serde_json::to_vec(&message(inline)).expect("serialises");
        expected.push(b'\n');
        let mut written = BytesMut::new();
        AnswerCodec::new(catalog)
            .encode(message(placeholder.clone()), &mut written)
            .expect("encodes");
        assert!(
            written[..] == expected[..],
            "{}",
            String::from_utf8_lossy(&written)
        );
        assert!(!written.is_empty());
    }

    #[test]
    fn hostile_values_are_not_echoed_in_full() {
        let line = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"resources/read","params":"{}"}}"#,
            "x".repeat(100_000)
        );
        let (_, _, message) = answer(&line);
        assert!(message.len() < 1000, "{} bytes", message.len());
    }
}
