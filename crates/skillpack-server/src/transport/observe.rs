//! What each request on the MCP path did, for the metrics ([`super::metrics`]) and the
//! access log ([`super::access_log`]).
//!
//! A request's [`Note`] is made by the [`observe`] middleware (outermost on the MCP path,
//! so that refusals are seen too) and travels in the HTTP request's extensions: the auth
//! middleware writes the caller into it, and [`Observed`] — the MCP service wrapped around
//! the server — writes the JSON-RPC method, the tool or URI, the error code and the search
//! time, reading them from the request rmcp already parsed and the result the server
//! returned. Nothing is parsed twice. When neither metrics nor the access log is on, none
//! of this is in the path: the router serves [`crate::server::SkillpackServer`] directly.

use std::future::Future;
use std::sync::Arc;
use std::time::{Instant, SystemTime};

use axum::extract::{Request, State};
use axum::http::header;
use axum::middleware::Next;
use axum::response::Response;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CompleteRequestParams, CompleteResult, CustomRequest,
    CustomResult, DiscoverResult, GetPromptRequestParams, GetPromptResponse, GetSkillRequestParams,
    GetSkillResult, InitializeRequestParams, InitializeResult, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListSkillsResult, ListToolsResult,
    PaginatedRequestParams, ReadResourceDirectoryRequestParams, ReadResourceDirectoryResult,
    ReadResourceRequestParams, ReadResourceResponse, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};

use super::access_log::AccessLog;
use super::metrics::{Metrics, NO_METHOD, Sample, uri_family};
use super::note::ANONYMOUS_LABEL;
pub use super::note::{Note, NoteHandle};
use crate::server::SkillpackServer;

/// What the server records: either or both may be on.
#[derive(Debug)]
pub struct Observer {
    pub metrics: Option<Arc<Metrics>>,
    pub log: Option<AccessLog>,
}

/// The outermost middleware of the MCP path: start the clock and the note, and when the
/// answer is ready, count it and log it.
pub async fn observe(
    State(observer): State<Arc<Observer>>,
    mut request: Request,
    next: Next,
) -> Response {
    let start = Instant::now();
    let wall = SystemTime::now();
    let handle = NoteHandle::default();
    let http_method = http_method_label(request.method());
    request.extensions_mut().insert(handle.clone());
    let request_id = observer.log.as_ref().map(|_| request_id(request.headers()));
    let response = next.run(request).await;
    let elapsed = start.elapsed();
    let mut note = handle.take();
    note.http_method = http_method;
    let status = response.status().as_u16();
    let bytes = response_bytes(&response);
    if let Some(metrics) = &observer.metrics {
        metrics.record(&Sample {
            status,
            client: note
                .identity
                .as_ref()
                .map_or(ANONYMOUS_LABEL, |identity| identity.label),
            method: note.method.unwrap_or(NO_METHOD),
            tool: note.tool.unwrap_or(""),
            family: note.uri.as_deref().map(uri_family),
            error: note.error,
            elapsed,
            search: note.search,
            auth_failure: note.auth_failure,
        });
    }
    if let Some(log) = &observer.log {
        log.write(
            wall,
            request_id.as_deref().unwrap_or_default(),
            &note,
            status,
            bytes,
            elapsed,
        );
    }
    response
}

fn http_method_label(method: &axum::http::Method) -> &'static str {
    use axum::http::Method;
    [
        Method::POST,
        Method::GET,
        Method::DELETE,
        Method::OPTIONS,
        Method::HEAD,
        Method::PUT,
        Method::PATCH,
    ]
    .iter()
    .find(|known| *known == method)
    .map_or("OTHER", |known| known.as_str())
}

/// The proxy's `X-Request-Id` when it sent a sane one (so log lines join across hops),
/// else a new random id.
fn request_id(headers: &axum::http::HeaderMap) -> String {
    headers
        .get("x-request-id")
        .and_then(|value| value.to_str().ok())
        .filter(|id| {
            !id.is_empty()
                && id.len() <= 128
                && id
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"-_.:/+=".contains(&b))
        })
        .map(str::to_owned)
        .unwrap_or_else(|| uuid::Uuid::new_v4().simple().to_string())
}

/// The body's length: exact for the JSON answers this server writes.
fn response_bytes(response: &Response) -> Option<u64> {
    axum::body::HttpBody::size_hint(response.body())
        .exact()
        .or_else(|| {
            response
                .headers()
                .get(header::CONTENT_LENGTH)
                .and_then(|value| value.to_str().ok())
                .and_then(|value| value.parse().ok())
        })
}

/// The server as the HTTP transport serves it when something is observed: the same
/// answers, with the note of each request filled in on the way.
#[derive(Clone)]
pub struct Observed {
    pub server: SkillpackServer,
    pub log_queries: bool,
}

/// The note rmcp hands over with the request: the HTTP request's parts are in the
/// context's extensions, and the note in theirs.
fn note_of(context: &RequestContext<RoleServer>) -> Option<NoteHandle> {
    context
        .extensions
        .get::<axum::http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<NoteHandle>())
        .cloned()
}

impl Observed {
    /// Run `call` (the server's own handler) and write what it did into the request's
    /// note, if it has one.
    async fn noted<T>(
        &self,
        context: &RequestContext<RoleServer>,
        method: &'static str,
        uri: Option<&str>,
        call: impl Future<Output = Result<T, ErrorData>>,
    ) -> Result<T, ErrorData> {
        let Some(handle) = note_of(context) else {
            return call.await;
        };
        let rpc_id = context.id.to_string();
        let traceparent = traceparent(context);
        let uri = uri.map(str::to_owned);
        let result = call.await;
        let error = result.as_ref().err().map(rpc_error_code);
        handle.with(|note| {
            note.method = Some(method);
            note.uri = uri;
            note.rpc_id = Some(rpc_id);
            note.traceparent = traceparent;
            note.error = error;
        });
        result
    }
}

/// The W3C `traceparent` a client put in the request's `_meta` (SEP-414), for the log.
fn traceparent(context: &RequestContext<RoleServer>) -> Option<String> {
    context
        .meta
        .get("traceparent")
        .and_then(|value| value.as_str())
        .filter(|value| value.len() <= 64 && value.bytes().all(|b| b.is_ascii_graphic()))
        .map(str::to_owned)
}

/// One forwarding method of [`ServerHandler`]: the server's own, noted.
macro_rules! noted {
    ($(#[$attr:meta])* $name:ident, $method:literal, $params:ty, $result:ty) => {
        $(#[$attr])*
        async fn $name(
            &self,
            request: $params,
            context: RequestContext<RoleServer>,
        ) -> Result<$result, ErrorData> {
            let noting = context.clone();
            self.noted(&noting, $method, None, self.server.$name(request, context))
                .await
        }
    };
    ($name:ident, $method:literal, $params:ty, $result:ty, uri) => {
        async fn $name(
            &self,
            request: $params,
            context: RequestContext<RoleServer>,
        ) -> Result<$result, ErrorData> {
            let noting = context.clone();
            let uri = request.uri.clone();
            self.noted(
                &noting,
                $method,
                Some(&uri),
                self.server.$name(request, context),
            )
            .await
        }
    };
}

/// Every method [`SkillpackServer`] answers, forwarded; the rest keep rmcp's defaults,
/// which are the server's too (they read only `get_info`).
impl ServerHandler for Observed {
    fn get_info(&self) -> ServerConfig {
        self.server.get_info()
    }

    async fn ping(&self, context: RequestContext<RoleServer>) -> Result<(), ErrorData> {
        let noting = context.clone();
        self.noted(&noting, "ping", None, self.server.ping(context))
            .await
    }

    async fn discover(
        &self,
        context: RequestContext<RoleServer>,
    ) -> Result<DiscoverResult, ErrorData> {
        let noting = context.clone();
        self.noted(
            &noting,
            "server/discover",
            None,
            self.server.discover(context),
        )
        .await
    }

    noted!(
        initialize,
        "initialize",
        InitializeRequestParams,
        InitializeResult
    );
    noted!(
        list_resources,
        "resources/list",
        Option<PaginatedRequestParams>,
        ListResourcesResult
    );
    noted!(
        list_resource_templates,
        "resources/templates/list",
        Option<PaginatedRequestParams>,
        ListResourceTemplatesResult
    );
    noted!(
        read_resource,
        "resources/read",
        ReadResourceRequestParams,
        ReadResourceResponse,
        uri
    );
    noted!(
        list_skills,
        "skills/list",
        Option<PaginatedRequestParams>,
        ListSkillsResult
    );
    noted!(
        get_skill,
        "skills/get",
        GetSkillRequestParams,
        GetSkillResult,
        uri
    );
    noted!(
        read_resource_directory,
        "resources/directory/read",
        ReadResourceDirectoryRequestParams,
        ReadResourceDirectoryResult,
        uri
    );
    noted!(
        list_tools,
        "tools/list",
        Option<PaginatedRequestParams>,
        ListToolsResult
    );
    noted!(
        list_prompts,
        "prompts/list",
        Option<PaginatedRequestParams>,
        ListPromptsResult
    );
    noted!(
        get_prompt,
        "prompts/get",
        GetPromptRequestParams,
        GetPromptResponse
    );
    noted!(
        complete,
        "completion/complete",
        CompleteRequestParams,
        CompleteResult
    );

    noted!(
        #[allow(deprecated)] // logging is deprecated (SEP-2577); the server still answers it
        set_level,
        "logging/setLevel",
        rmcp::model::SetLevelRequestParams,
        ()
    );

    async fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        let noting = context.clone();
        let method = method_label(&request.method);
        self.noted(
            &noting,
            method,
            None,
            self.server.on_custom_request(request, context),
        )
        .await
    }

    /// A tool call is noted with its tool, its error envelope's code (tool errors are
    /// results, not JSON-RPC errors), its search time, and its query when the operator
    /// asked for queries in the log.
    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let Some(handle) = note_of(&context) else {
            return self.server.call_tool(request, context).await;
        };
        let tool = crate::cmd::tools::find(&request.name).map_or("unknown", |t| t.name);
        let query = (self.log_queries && tool == "catalog_search")
            .then(|| {
                request
                    .arguments
                    .as_ref()
                    .and_then(|arguments| arguments.get("query"))
                    .and_then(|query| query.as_str())
                    .map(|query| query.chars().take(512).collect::<String>())
            })
            .flatten();
        let rpc_id = context.id.to_string();
        let traceparent = traceparent(&context);
        let start = Instant::now();
        let result = self.server.call_tool(request, context).await;
        let search = (tool == "catalog_search").then(|| start.elapsed());
        let error = match &result {
            Ok(CallToolResponse::Complete(call)) if call.is_error == Some(true) => Some(
                call.structured_content
                    .as_ref()
                    .and_then(|content| content.get("code"))
                    .and_then(|code| code.as_str())
                    .map_or("tool_error", envelope_code),
            ),
            Ok(_) => None,
            Err(error) => Some(rpc_error_code(error)),
        };
        handle.with(|note| {
            note.method = Some("tools/call");
            note.tool = Some(tool);
            note.query = query;
            note.rpc_id = Some(rpc_id);
            note.traceparent = traceparent;
            note.error = error;
            note.search = search;
        });
        result
    }
}

/// MCP methods as metric labels: the ones a client may call, anything else `other`.
const METHODS: &[&str] = &[
    "initialize",
    "server/discover",
    "ping",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/read",
    "resources/templates/list",
    "resources/subscribe",
    "resources/unsubscribe",
    "resources/directory/read",
    "prompts/list",
    "prompts/get",
    "completion/complete",
    "logging/setLevel",
    "skills/list",
    "skills/get",
];

fn method_label(method: &str) -> &'static str {
    METHODS
        .iter()
        .find(|known| **known == method)
        .copied()
        .unwrap_or("other")
}

/// A JSON-RPC error as a label: its envelope's code (`data.machine_code`), else the
/// JSON-RPC error's name.
fn rpc_error_code(error: &ErrorData) -> &'static str {
    let machine_code = error
        .data
        .as_ref()
        .and_then(|data| data.get("machine_code"))
        .and_then(|code| code.as_str());
    match machine_code {
        Some(code) => envelope_code(code),
        None => match error.code.0 {
            -32700 => "parse_error",
            -32600 => "invalid_request",
            -32601 => "method_not_found",
            -32602 => "invalid_params",
            -32603 => "internal_error",
            -32002 => "resource_not_found",
            _ => "jsonrpc_error",
        },
    }
}

fn envelope_code(code: &str) -> &'static str {
    crate::cmd::errors::Code::ALL
        .iter()
        .map(|known| known.as_str())
        .find(|known| *known == code)
        .unwrap_or("other")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_come_from_closed_sets() {
        assert_eq!(method_label("tools/call"), "tools/call");
        assert_eq!(method_label("secret/words"), "other");
        assert_eq!(envelope_code("doc_not_found"), "doc_not_found");
        assert_eq!(envelope_code("free text"), "other");
    }
}
