//! Streamable HTTP transport for shared deployments (`skillpack serve --http ADDR`).
//!
//! The catalog never changes inside one binary, so every request can be answered by any
//! replica: rmcp's Streamable HTTP service runs without session state (2026-07-28 requests
//! are stateless anyway; 2025-era clients get a session id on `initialize` that nothing is
//! stored under, so their follow-up requests need no affinity either). Around it, in the
//! order a request meets them:
//!
//! 1. CORS answers for browser origins the operator allowed (preflights never reach MCP);
//! 2. when `--metrics` or `--access-log` is on, [`super::observe`]: the clock and the
//!    request's note, counted and logged when the answer is ready (refusals included);
//! 3. credentials ([`super::auth`]): the shared `SKILLPACK_AUTH_TOKEN`, named client tokens,
//!    OAuth access tokens — 401 (403 for a missing scope) before any body is read;
//! 4. load shedding past `--max-concurrency` in-flight requests — 503 at once, no queue;
//! 5. a whole-request timeout — 408 for clients that stall mid-request;
//! 6. the body, read once under `--max-body-bytes` (413) by [`read_body`], which gives
//!    legacy `initialize` answers a stateless `Mcp-Session-Id` and turns rmcp's answer to a
//!    body it cannot read into a JSON-RPC error (400);
//! 7. rmcp: `Host` and `Origin` checks against DNS rebinding (403), `Accept` (406) and
//!    `Content-Type` (415) checks, then MCP itself.
//!
//! `GET /healthz` sits outside all of that: probes from kubelets and load balancers carry
//! neither a token nor an allowed `Host`, and it reveals nothing `serverInfo` does not
//! besides the counts of connections and requests refused (see below). So does the RFC 9728
//! metadata under `/.well-known/oauth-protected-resource` when OAuth is on: a client reads
//! it to learn where to get a token. `/metrics` has a listener of its own
//! ([`super::metrics`]).
//!
//! Before any of that, connections are limited by [`super::connections`]: a header-read
//! timeout, an idle timeout between kept-alive requests, and a cap on open connections
//! below the open-files limit with a few more reserved for `/healthz`.
//!
//! SIGTERM/SIGINT stop accepting connections, let in-flight requests finish (up to
//! `--shutdown-timeout`), then exit 0.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::error_handling::HandleErrorLayer;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tower::{BoxError, ServiceBuilder};
use tower_http::cors::{AllowHeaders, AllowOrigin, CorsLayer};

use rmcp::model::{ErrorCode, ErrorData, JsonRpcMessage, ServerJsonRpcMessage};

use super::access_log::AccessLog;
use super::auth::Auth;
use super::connections::{self, HEALTH_RESERVE, Limits, Stats};
use super::framing::{self, BOM, Incoming};
use super::metrics::Metrics;
use super::observe::{Observed, Observer};
use crate::server::SkillpackServer;

pub const DEFAULT_ADDR: &str = "127.0.0.1:8080";
pub const DEFAULT_PATH: &str = "/mcp";
pub const HEALTH_PATH: &str = "/healthz";
/// Real MCP requests to a read-only catalog are a few KiB; 1 MiB leaves room for any
/// client's `_meta` while keeping a flood of huge bodies cheap to refuse.
pub const DEFAULT_MAX_BODY_BYTES: usize = crate::contract::MAX_MESSAGE_BYTES;
/// Requests are answered from memory in microseconds, so this many in flight at once
/// means slow or hostile clients, not load worth queueing.
pub const DEFAULT_MAX_CONCURRENCY: u32 = 256;
pub const DEFAULT_REQUEST_TIMEOUT_SECS: u64 = 30;
/// Below Kubernetes' default 30 s termination grace period, so we exit before SIGKILL.
pub const DEFAULT_SHUTDOWN_TIMEOUT_SECS: u64 = 20;
/// Clients send a request head in one packet; 10 s is ample even over a slow link, and
/// bounds how long a connection that never sends one holds a descriptor.
pub const DEFAULT_HEADER_TIMEOUT_SECS: u64 = 10;
/// Above the 60 s idle timeout of common load balancers (AWS ALB, nginx's upstream
/// keep-alive), which must close first: a server that closes a pooled connection as the
/// balancer reuses it turns that request into a 502.
pub const DEFAULT_IDLE_TIMEOUT_SECS: u64 = 75;
/// Each open connection costs a descriptor and a few KiB; an MCP client holds one or a
/// few, so this many is a crowd for one replica. Lowered at start-up to fit under the
/// open-files limit.
pub const DEFAULT_MAX_CONNECTIONS: u32 = 1024;

/// Everything `serve --http` can be told, already validated.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    pub addr: SocketAddr,
    pub path: String,
    /// `None`: any `Host` is accepted (`--allow-host '*'`).
    pub allowed_hosts: Option<Vec<String>>,
    /// `None`: any `Origin` is accepted (`--allow-origin '*'`).
    pub allowed_origins: Option<Vec<OriginRule>>,
    /// Credentials accepted on the MCP path; none configured: anyone may call.
    pub auth: Arc<Auth>,
    /// `--metrics ADDR`: serve `/metrics` on this address.
    pub metrics: Option<SocketAddr>,
    /// `--access-log`: one JSON line per request on stderr.
    pub access_log: Option<AccessLog>,
    pub max_body_bytes: usize,
    pub max_concurrency: usize,
    pub request_timeout: Duration,
    pub shutdown_timeout: Duration,
    pub header_timeout: Duration,
    pub idle_timeout: Duration,
    /// `--max-connections`; `None`: [`DEFAULT_MAX_CONNECTIONS`], lowered to fit under the
    /// open-files limit by [`fit_to_open_files_limit`].
    pub max_connections: Option<usize>,
}

impl HttpOptions {
    /// Defaults for `addr`: loopback hosts and origins only, no token.
    pub fn new(addr: SocketAddr) -> Self {
        HttpOptions {
            addr,
            path: DEFAULT_PATH.to_owned(),
            allowed_hosts: Some(default_hosts(addr)),
            allowed_origins: Some(default_origins()),
            auth: Arc::new(Auth::default()),
            metrics: None,
            access_log: None,
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            max_concurrency: DEFAULT_MAX_CONCURRENCY as usize,
            request_timeout: Duration::from_secs(DEFAULT_REQUEST_TIMEOUT_SECS),
            shutdown_timeout: Duration::from_secs(DEFAULT_SHUTDOWN_TIMEOUT_SECS),
            header_timeout: Duration::from_secs(DEFAULT_HEADER_TIMEOUT_SECS),
            idle_timeout: Duration::from_secs(DEFAULT_IDLE_TIMEOUT_SECS),
            max_connections: None,
        }
    }

    /// Add `--allow-host` values; `*` turns the check off.
    pub fn allow_hosts(&mut self, hosts: &[String]) -> Result<(), String> {
        for host in hosts.iter().map(|h| h.trim()) {
            if host == "*" {
                self.allowed_hosts = None;
                continue;
            }
            validate_host(host)?;
            if let Some(list) = &mut self.allowed_hosts {
                list.push(host.to_ascii_lowercase());
            }
        }
        Ok(())
    }

    /// Add `--allow-origin` values; `*` turns the check off.
    pub fn allow_origins(&mut self, origins: &[String]) -> Result<(), String> {
        for origin in origins.iter().map(|o| o.trim()) {
            if origin == "*" {
                self.allowed_origins = None;
                continue;
            }
            let rule = OriginRule::parse(origin)?;
            if let Some(list) = &mut self.allowed_origins {
                list.push(rule);
            }
        }
        Ok(())
    }

    pub fn set_path(&mut self, path: &str) -> Result<(), String> {
        // Plain path characters only: axum reads `{…}`, `:` and `*` as captures.
        let plain = path
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/-._~".contains(c));
        let reserved = path == HEALTH_PATH || path.starts_with(super::auth::metadata::WELL_KNOWN);
        if !path.starts_with('/') || reserved || !plain {
            return Err(format!(
                "--path must be an absolute URL path of letters, digits and - . _ ~ other than \
                 {HEALTH_PATH}, like /mcp; got {path:?}"
            ));
        }
        self.path = path.to_owned();
        Ok(())
    }
}

/// Raise the soft open-files limit to the hard one, settle the connection cap under it
/// (`options.max_connections` is `Some` afterwards) and log both. Call before the sandbox.
pub fn fit_to_open_files_limit(options: &mut HttpOptions) {
    let limit = connections::raise_open_files_limit();
    let (cap, warning) = connections::connection_cap(
        options.max_connections,
        DEFAULT_MAX_CONNECTIONS as usize,
        limit.as_ref().map(|limit| limit.soft),
    );
    options.max_connections = Some(cap);
    match &limit {
        Some(limit) => tracing::info!(
            open_files_soft = limit.soft,
            open_files_hard = limit.hard,
            raised_from = limit.raised_from,
            max_connections = cap,
            reserved_for_health = HEALTH_RESERVE,
            header_timeout_s = options.header_timeout.as_secs_f64(),
            idle_timeout_s = options.idle_timeout.as_secs_f64(),
            "connection limits: at most {cap} open connections (+{HEALTH_RESERVE} for /healthz \
             only) under an open-files limit of {}",
            limit.soft
        ),
        None => tracing::info!(
            max_connections = cap,
            reserved_for_health = HEALTH_RESERVE,
            "connection limits: at most {cap} open connections (+{HEALTH_RESERVE} for /healthz \
             only); the open-files limit is unknown"
        ),
    }
    if let Some(error) = limit.as_ref().and_then(|limit| limit.error.as_ref()) {
        tracing::warn!(%error, "could not raise the soft open-files limit to the hard limit");
    }
    if let Some(warning) = warning {
        tracing::warn!("{warning}");
    }
}

/// Bind the listening socket (before the runtime starts and the sandbox closes in).
pub fn bind(addr: SocketAddr) -> Result<std::net::TcpListener, String> {
    let listener = std::net::TcpListener::bind(addr).map_err(|error| {
        format!("cannot listen on {addr}: {error} — pick a free port with --http HOST:PORT")
    })?;
    listener
        .set_nonblocking(true)
        .map_err(|error| format!("cannot make the listener on {addr} non-blocking: {error}"))?;
    Ok(listener)
}

/// Serve on `listener` (from [`bind`]) until SIGTERM/SIGINT, then drain in-flight requests
/// and return. `metrics_listener`: bound for `--metrics`.
pub async fn serve(
    server: SkillpackServer,
    listener: std::net::TcpListener,
    metrics_listener: Option<std::net::TcpListener>,
    options: HttpOptions,
) -> Result<(), String> {
    // Handlers go in before the listener announces itself, so a supervisor that signals
    // right after start still gets a clean drain rather than the default "terminate".
    let mut signals = Signals::install()?;
    let listener = tokio::net::TcpListener::from_std(listener)
        .map_err(|error| format!("cannot use the listener on {}: {error}", options.addr))?;
    let local = listener
        .local_addr()
        .map_err(|error| format!("cannot read the listening address: {error}"))?;
    warn_about_exposure(&options, local);
    let catalog = *server.catalog();
    let limits = Limits {
        header_timeout: options.header_timeout,
        idle_timeout: options.idle_timeout,
        max_connections: options
            .max_connections
            .unwrap_or(DEFAULT_MAX_CONNECTIONS as usize)
            .max(1),
    };
    let stats = Arc::new(Stats::new(limits.max_connections));
    tokio::spawn(connections::report(stats.clone()));
    let health = health_body(&server);
    let metrics = metrics_listener
        .as_ref()
        .map(|_| Arc::new(Metrics::new(&catalog, stats.clone())));
    let (metrics_stop, metrics_stopped) = tokio::sync::watch::channel(false);
    let metrics_task = match (metrics_listener, &metrics) {
        (Some(listener), Some(metrics)) => {
            let metrics_local = listener
                .local_addr()
                .map_err(|error| format!("cannot read the --metrics address: {error}"))?;
            tracing::info!(
                url = %format!("http://{metrics_local}{}", super::metrics::METRICS_PATH),
                "serving metrics"
            );
            let mut stopped = metrics_stopped;
            Some(tokio::spawn(super::metrics::serve(
                listener,
                metrics.clone(),
                async move {
                    let _ = stopped.wait_for(|stop| *stop).await;
                },
            )))
        }
        _ => None,
    };
    let app = router_with(server, &options, stats.clone(), metrics);
    let reserve_app = reserve_router(health, stats.clone());
    tracing::info!(
        url = %format!("http://{local}{}", options.path),
        health = %format!("http://{local}{HEALTH_PATH}"),
        name = catalog.name(),
        version = catalog.server_version(),
        fingerprint = catalog.fingerprint(),
        auth = %options.auth.describe(),
        access_log = options.access_log.is_some(),
        "serving MCP over Streamable HTTP"
    );

    let (draining_tx, draining_rx) = tokio::sync::oneshot::channel::<Signals>();
    let graceful = connections::serve(listener, app, reserve_app, limits, stats, async move {
        let name = signals.recv().await;
        tracing::info!(
            signal = name,
            "shutting down: no new connections, finishing in-flight requests"
        );
        let _ = draining_tx.send(signals);
    });
    let grace = options.shutdown_timeout;
    let deadline = async move {
        let Ok(mut signals) = draining_rx.await else {
            return std::future::pending().await;
        };
        tokio::select! {
            _ = tokio::time::sleep(grace) => tracing::warn!(
                seconds = grace.as_secs_f64(),
                "requests still in flight after --shutdown-timeout; exiting anyway"
            ),
            name = signals.recv() => tracing::warn!(signal = name, "second signal; exiting now"),
        }
    };
    tokio::select! {
        () = graceful => {}
        () = deadline => {}
    }
    // The metrics listener outlives the drain, so the last scrape still sees it; it stops
    // with the server.
    let _ = metrics_stop.send(true);
    if let Some(task) = metrics_task
        && let Ok(Err(error)) = task.await
    {
        tracing::warn!("{error}");
    }
    tracing::info!("stopped");
    Ok(())
}

/// The whole HTTP surface: `/healthz`, the MCP endpoint with its guards, and a 404 that
/// says where things are.
pub fn router(server: SkillpackServer, options: &HttpOptions, stats: Arc<Stats>) -> Router {
    router_with(server, options, stats, None)
}

/// [`router`], recording into `metrics` (and the access log, when the options ask).
pub fn router_with(
    server: SkillpackServer,
    options: &HttpOptions,
    stats: Arc<Stats>,
    metrics: Option<Arc<Metrics>>,
) -> Router {
    let health = health_body(&server);
    let observer = (metrics.is_some() || options.access_log.is_some()).then(|| {
        Arc::new(Observer {
            metrics,
            log: options.access_log.clone(),
        })
    });
    let mut mcp_routes = match &observer {
        // Observed only when something records: otherwise rmcp calls the server directly.
        Some(_) => {
            let observed = Observed {
                server,
                log_queries: options.access_log.as_ref().is_some_and(|log| log.queries),
            };
            mcp_route(options, stats.clone(), move || Ok(observed.clone()))
        }
        None => mcp_route(options, stats.clone(), move || Ok(server.clone())),
    };
    if options.auth.is_enabled() {
        mcp_routes = mcp_routes.layer(middleware::from_fn_with_state(
            options.auth.clone(),
            super::auth::require,
        ));
    }
    if let Some(observer) = observer {
        mcp_routes = mcp_routes.layer(middleware::from_fn_with_state(
            observer,
            super::observe::observe,
        ));
    }
    mcp_routes = mcp_routes.layer(cors_layer(options));
    let path = options.path.clone();
    let mut app = Router::new().route(HEALTH_PATH, health_route(health, stats));
    if let Some(oauth) = &options.auth.oauth {
        app = app.merge(super::auth::metadata_routes(oauth).layer(metadata_cors()));
    }
    app.merge(mcp_routes).fallback(move || async move {
        (
            StatusCode::NOT_FOUND,
            format!("Not Found: MCP is served at {path}, health at {HEALTH_PATH}\n"),
        )
    })
}

/// The MCP path's service and its request limits, around whatever `factory` makes.
fn mcp_route<S>(
    options: &HttpOptions,
    stats: Arc<Stats>,
    factory: impl Fn() -> Result<S, std::io::Error> + Send + Sync + 'static,
) -> Router
where
    S: rmcp::ServerHandler + Send + 'static,
{
    let mcp = ServiceBuilder::new()
        .layer(HandleErrorLayer::new(move |error: BoxError| {
            limit_error_response(error, stats.clone())
        }))
        .load_shed()
        .concurrency_limit(options.max_concurrency)
        .timeout(options.request_timeout)
        .layer(middleware::from_fn_with_state(
            options.max_body_bytes,
            read_body,
        ))
        .service(StreamableHttpService::new(
            factory,
            NeverSessionManager::default().into(),
            rmcp_config(options),
        ));
    Router::new().route_service(&options.path, mcp)
}

/// Browser-based clients read the RFC 9728 metadata cross-origin before they have a
/// token; it is public, so any origin may.
fn metadata_cors() -> CorsLayer {
    CorsLayer::new()
        .allow_origin(AllowOrigin::any())
        .allow_methods([Method::GET])
}

fn rmcp_config(options: &HttpOptions) -> StreamableHttpServerConfig {
    let mut config = StreamableHttpServerConfig::default()
        // No sessions: a replica that never saw the `initialize` can answer what follows.
        .with_legacy_session_mode(false)
        // One JSON body per request: nothing here streams, and proxies buffer JSON happily.
        .with_json_response(true)
        .with_max_request_body_bytes(options.max_body_bytes);
    config = match &options.allowed_hosts {
        Some(hosts) => config.with_allowed_hosts(hosts.clone()),
        None => config.disable_allowed_hosts(),
    };
    match &options.allowed_origins {
        // rmcp validates Origin only when told to: an empty list means "off" there.
        Some(origins) => config
            .with_allowed_origins(origins.iter().map(OriginRule::to_rmcp))
            .enforce_origin_validation(),
        None => config.disable_allowed_origins(),
    }
}

/// What connections beyond `--max-connections` are served: `/healthz`, and 503 for
/// anything else (the connection then closes, freeing its place).
fn reserve_router(health: serde_json::Value, stats: Arc<Stats>) -> Router {
    let refused = stats.clone();
    Router::new()
        .route(HEALTH_PATH, health_route(health, stats))
        .fallback(move || async move {
            refused.connection_refused();
            (
                StatusCode::SERVICE_UNAVAILABLE,
                [(header::RETRY_AFTER, "1")],
                "Service Unavailable: too many open connections on this replica \
                 (--max-connections); retry shortly\n",
            )
        })
}

/// `GET /healthz`: the catalog's identity, and what the connection and request limits
/// refused so far.
fn health_route(health: serde_json::Value, stats: Arc<Stats>) -> axum::routing::MethodRouter {
    get(move || async move {
        let mut body = health.clone();
        if let (Some(body), serde_json::Value::Object(counts)) =
            (body.as_object_mut(), stats.to_json())
        {
            body.extend(counts);
        }
        (
            [(header::CONTENT_TYPE, "application/json")],
            body.to_string(),
        )
    })
}

fn health_body(server: &SkillpackServer) -> serde_json::Value {
    let catalog = server.catalog();
    serde_json::json!({
        "status": "ok",
        "name": catalog.name(),
        "version": catalog.server_version(),
        "fingerprint": catalog.fingerprint(),
    })
}

/// What the tower limits report, as HTTP: shed load is 503 (retry elsewhere or later), a
/// stalled request is 408. Both are counted, and logged at most every few seconds: one
/// line per refused request would let a flood fill the log.
async fn limit_error_response(error: BoxError, stats: Arc<Stats>) -> Response {
    if error.is::<tower::load_shed::error::Overloaded>() {
        stats.request_shed();
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            [(header::RETRY_AFTER, "1")],
            "Service Unavailable: too many requests in flight on this replica; retry shortly\n",
        )
            .into_response();
    }
    if error.is::<tower::timeout::error::Elapsed>() {
        stats.request_timed_out();
        return (
            StatusCode::REQUEST_TIMEOUT,
            "Request Timeout: the request did not complete in time; send the whole request promptly\n",
        )
            .into_response();
    }
    tracing::error!(%error, "unexpected error from the HTTP stack");
    (StatusCode::INTERNAL_SERVER_ERROR, "Internal Server Error\n").into_response()
}

// ---------------------------------------------------------------------------------------
// The body: read once, bounded; stateless sessions; malformed messages

/// Read a POST body once, under `--max-body-bytes` (413 past it, before rmcp sees a byte),
/// and hand it to rmcp with two corrections around it:
///
/// - **Sessions without state.** Each legacy `initialize` answer gets an `Mcp-Session-Id`
///   that no replica keeps anything under. The 2025-era transport lets a server assign one;
///   clients then send it back on every request, and since rmcp runs without sessions here,
///   whichever replica receives it serves the request as if it had none — no affinity, no
///   shared store. Without an id, clients and the conformance suite take the server for one
///   that cannot multiplex requests. The id is random (not a counter), so it says nothing
///   about the server.
/// - **Malformed messages get JSON-RPC errors.** rmcp answers a JSON body it cannot read as
///   a message (bad syntax, invalid UTF-8, deep nesting, a batch, a wrong `id`, params that
///   do not fit the method…) with `415 Unsupported Media Type` and a line of text, which
///   tells a client that sent `Content-Type: application/json` nothing it can act on. Such
///   bodies are classified exactly as the stdio transport classifies lines
///   ([`framing::classify`]) and answered with `400 Bad Request` and the same JSON-RPC error
///   (`-32700`, `-32600` or `-32602`, with the request's id whenever it can be read). rmcp
///   parses first, so well-formed requests are parsed once; only the rejected ones twice.
///
/// A byte-order mark before the JSON is dropped (RFC 8259 §8.1), as on stdio.
async fn read_body(State(max_body_bytes): State<usize>, request: Request, next: Next) -> Response {
    if request.method() != Method::POST {
        return next.run(request).await;
    }
    let declared_json = is_json(request.headers());
    let (mut parts, body) = request.into_parts();
    let mut bytes = match axum::body::to_bytes(body, max_body_bytes).await {
        Ok(bytes) => bytes,
        Err(error) => return unreadable_body(&error, max_body_bytes),
    };
    if bytes.starts_with(BOM) {
        bytes = bytes.slice(BOM.len()..);
        parts
            .headers
            .insert(header::CONTENT_LENGTH, HeaderValue::from(bytes.len()));
    }
    let initialize = is_initialize(&bytes);
    let mut response = next
        .run(Request::from_parts(parts, bytes.clone().into()))
        .await;
    // With a JSON Content-Type, rmcp's only 415 is "fail to deserialize request body".
    if declared_json && response.status() == StatusCode::UNSUPPORTED_MEDIA_TYPE {
        return malformed_message(&bytes);
    }
    if initialize
        && response.status() == StatusCode::OK
        && !response.headers().contains_key(SESSION_ID)
    {
        let id = uuid::Uuid::new_v4().simple().to_string();
        if let Ok(value) = HeaderValue::from_str(&id) {
            response.headers_mut().insert(SESSION_ID, value);
        }
    }
    response
}

/// `Content-Type: application/json` (any parameters), the same test rmcp applies.
fn is_json(headers: &axum::http::HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| {
            value
                .split(';')
                .next()
                .unwrap_or_default()
                .trim()
                .eq_ignore_ascii_case("application/json")
        })
}

/// The JSON-RPC error for a JSON body that is not an MCP message the server can take, as
/// `400 Bad Request`. Unlike stdio, HTTP must answer notifications and responses too: the
/// transport says to refuse input it cannot accept with an error status, and a JSON-RPC
/// error without an id may go with it.
fn malformed_message(body: &[u8]) -> Response {
    let (error, id) = match framing::classify(body) {
        Incoming::Answer(error, id) => (error, id),
        Incoming::Ignore("blank line") => (
            ErrorData::new(
                ErrorCode::PARSE_ERROR,
                "Parse error: the request body is empty; send one JSON-RPC message as JSON",
                None,
            ),
            None,
        ),
        Incoming::Ignore(what) => (
            ErrorData::invalid_request(
                format!(
                    "Invalid Request: the body is a {what}, which this server cannot accept; \
                     send a JSON-RPC request (an object with `jsonrpc`, `id` and `method`)"
                ),
                None,
            ),
            None,
        ),
        // The classifier read a message that rmcp did not: refuse it all the same.
        Incoming::Message(_) => (
            ErrorData::invalid_request(
                "Invalid Request: the body could not be read as an MCP message",
                None,
            ),
            None,
        ),
    };
    tracing::debug!(
        code = error.code.0,
        "answering a malformed HTTP message: {}",
        error.message
    );
    let message: ServerJsonRpcMessage = JsonRpcMessage::error(error, id);
    match serde_json::to_vec(&message) {
        Ok(json) => (
            StatusCode::BAD_REQUEST,
            [(header::CONTENT_TYPE, "application/json")],
            json,
        )
            .into_response(),
        Err(_) => (StatusCode::BAD_REQUEST, "Bad Request\n").into_response(),
    }
}

const SESSION_ID: &str = "mcp-session-id";

fn is_initialize(body: &[u8]) -> bool {
    #[derive(serde::Deserialize)]
    struct Method<'a> {
        #[serde(borrow)]
        method: Option<std::borrow::Cow<'a, str>>,
    }
    // Most requests never mention it: skip the parse.
    body.windows(12).any(|window| window == b"\"initialize\"")
        && serde_json::from_slice::<Method>(body)
            .is_ok_and(|probe| probe.method.as_deref() == Some("initialize"))
}

fn unreadable_body(error: &axum::Error, max_body_bytes: usize) -> Response {
    let too_large = std::error::Error::source(error)
        .is_some_and(|source| source.is::<http_body_util::LengthLimitError>());
    if too_large {
        (
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("Payload Too Large: request body exceeds {max_body_bytes} bytes"),
        )
            .into_response()
    } else {
        (
            StatusCode::BAD_REQUEST,
            format!("Bad Request: could not read the request body: {error}"),
        )
            .into_response()
    }
}

// ---------------------------------------------------------------------------------------
// Host and Origin policy (DNS rebinding)

/// Loopback names, plus the bind address itself when it is one specific non-loopback IP
/// (clients that dial `10.0.0.5:8080` send that as `Host`). A wildcard bind accepts only
/// loopback until `--allow-host` names the hosts clients really use.
fn default_hosts(addr: SocketAddr) -> Vec<String> {
    let mut hosts = vec![
        "localhost".to_owned(),
        "127.0.0.1".to_owned(),
        "::1".to_owned(),
    ];
    let ip = addr.ip();
    if !ip.is_loopback() && !ip.is_unspecified() {
        hosts.push(ip.to_string());
    }
    hosts
}

fn validate_host(host: &str) -> Result<(), String> {
    let bare = !host.is_empty() && !host.contains(['/', '@', ' ']);
    if bare && axum::http::uri::Authority::try_from(host).is_ok() {
        return Ok(());
    }
    Err(format!(
        "--allow-host takes a host name or host:port as clients send it in the Host header \
         (e.g. docs.example.com or docs.example.com:8080), not a URL; got {host:?}"
    ))
}

/// One allowed browser origin: `scheme://host[:port]` (the scheme's default port when
/// omitted), `scheme://host:*` for any port, or `null`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OriginRule {
    Null,
    Tuple {
        scheme: String,
        host: String,
        /// `None`: any port.
        port: Option<u16>,
    },
}

impl OriginRule {
    pub fn parse(text: &str) -> Result<Self, String> {
        if text.eq_ignore_ascii_case("null") {
            return Ok(OriginRule::Null);
        }
        let invalid = || {
            format!(
                "--allow-origin takes an origin as browsers send it: scheme://host, \
                 scheme://host:port or scheme://host:* (any port), e.g. https://app.example.com; \
                 got {text:?}"
            )
        };
        let (scheme, rest) = text.split_once("://").ok_or_else(invalid)?;
        let scheme = scheme.to_ascii_lowercase();
        if !matches!(scheme.as_str(), "http" | "https") || rest.is_empty() || rest.contains('/') {
            return Err(invalid());
        }
        let (authority, any_port) = match rest.strip_suffix(":*") {
            Some(authority) => (authority, true),
            None => (rest, false),
        };
        let authority = axum::http::uri::Authority::try_from(authority).map_err(|_| invalid())?;
        if any_port && authority.port().is_some() {
            return Err(invalid());
        }
        let port = match (any_port, authority.port_u16()) {
            (true, _) => None,
            (false, Some(port)) => Some(port),
            (false, None) => Some(if scheme == "https" { 443 } else { 80 }),
        };
        Ok(OriginRule::Tuple {
            host: normalize_host(authority.host()),
            scheme,
            port,
        })
    }

    /// The same rule in rmcp's syntax (always with an explicit port or `:*`, so rmcp's
    /// deprecated "port-less matches any port" reading never applies).
    fn to_rmcp(&self) -> String {
        match self {
            OriginRule::Null => "null".to_owned(),
            OriginRule::Tuple { scheme, host, port } => {
                let host = if host.contains(':') {
                    format!("[{host}]")
                } else {
                    host.clone()
                };
                match port {
                    Some(port) => format!("{scheme}://{host}:{port}"),
                    None => format!("{scheme}://{host}:*"),
                }
            }
        }
    }

    /// Whether a request's `Origin` header value matches. rmcp does the enforcing; this
    /// copy of its rule only decides which origins get CORS answers (rmcp's matcher is
    /// private), so the two cannot drift apart in a way that widens access.
    fn matches(&self, origin: &str) -> bool {
        let origin = origin.trim();
        match self {
            OriginRule::Null => origin.eq_ignore_ascii_case("null"),
            OriginRule::Tuple { scheme, host, port } => {
                let Some((origin_scheme, rest)) = origin.split_once("://") else {
                    return false;
                };
                let Ok(authority) = axum::http::uri::Authority::try_from(rest) else {
                    return false;
                };
                let origin_port = authority.port_u16().or(match origin_scheme {
                    "http" => Some(80),
                    "https" => Some(443),
                    _ => None,
                });
                origin_scheme.eq_ignore_ascii_case(scheme)
                    && normalize_host(authority.host()) == *host
                    && port.is_none_or(|port| origin_port == Some(port))
            }
        }
    }
}

fn normalize_host(host: &str) -> String {
    host.trim_start_matches('[')
        .trim_end_matches(']')
        .to_ascii_lowercase()
}

/// Local tools (an inspector on localhost, any port) may talk to a local server.
fn default_origins() -> Vec<OriginRule> {
    ["http", "https"]
        .into_iter()
        .flat_map(|scheme| {
            ["localhost", "127.0.0.1", "::1"].map(|host| OriginRule::Tuple {
                scheme: scheme.to_owned(),
                host: host.to_owned(),
                port: None,
            })
        })
        .collect()
}

/// Browser clients on an allowed origin need CORS answers to call `/mcp` at all
/// (`Content-Type: application/json` always triggers a preflight). With `*`, any origin
/// gets them.
fn cors_layer(options: &HttpOptions) -> CorsLayer {
    let allow_origin = match &options.allowed_origins {
        None => AllowOrigin::mirror_request(),
        Some(rules) => {
            let rules = rules.clone();
            AllowOrigin::predicate(move |origin: &HeaderValue, _| {
                origin
                    .to_str()
                    .is_ok_and(|origin| rules.iter().any(|rule| rule.matches(origin)))
            })
        }
    };
    CorsLayer::new()
        .allow_origin(allow_origin)
        .allow_methods([Method::POST])
        // Mirrored rather than listed: `Mcp-Param-*` names depend on the tools.
        .allow_headers(AllowHeaders::mirror_request())
        .expose_headers([
            header::WWW_AUTHENTICATE,
            header::HeaderName::from_static(SESSION_ID),
        ])
        .max_age(Duration::from_secs(3600))
}

fn warn_about_exposure(options: &HttpOptions, local: SocketAddr) {
    let exposed = !local.ip().is_loopback();
    if exposed && !options.auth.is_enabled() {
        tracing::warn!(
            address = %local,
            "listening beyond loopback without credentials (SKILLPACK_AUTH_TOKEN, \
             SKILLPACK_CLIENT_TOKENS or --oauth-*): anyone who can reach this address can read \
             the catalog"
        );
    }
    if options.allowed_hosts.is_none() {
        tracing::warn!(
            "Host validation is off (--allow-host '*'): only do this behind a proxy that \
             enforces its own host names"
        );
    } else if local.ip().is_unspecified()
        && options.allowed_hosts.as_ref() == Some(&default_hosts(local))
    {
        tracing::warn!(
            "bound to {} but only loopback Host headers are allowed; add the names clients \
             use with --allow-host (e.g. --allow-host docs.example.com)",
            local.ip()
        );
    }
    if options.allowed_origins.is_none() {
        tracing::warn!(
            "Origin validation is off (--allow-origin '*'): any web page may call this server"
        );
    }
}

// ---------------------------------------------------------------------------------------
// Signals

/// SIGTERM and SIGINT (Ctrl-C), registered at once so none is missed between start-up and
/// the first `recv`.
struct Signals {
    #[cfg(unix)]
    terminate: tokio::signal::unix::Signal,
    #[cfg(unix)]
    interrupt: tokio::signal::unix::Signal,
}

impl Signals {
    fn install() -> Result<Self, String> {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            let install = |kind: SignalKind, name: &str| {
                signal(kind).map_err(|error| format!("cannot install the {name} handler: {error}"))
            };
            Ok(Signals {
                terminate: install(SignalKind::terminate(), "SIGTERM")?,
                interrupt: install(SignalKind::interrupt(), "SIGINT")?,
            })
        }
        #[cfg(not(unix))]
        Ok(Signals {})
    }

    async fn recv(&mut self) -> &'static str {
        #[cfg(unix)]
        {
            tokio::select! {
                _ = self.terminate.recv() => "SIGTERM",
                _ = self.interrupt.recv() => "SIGINT",
            }
        }
        #[cfg(not(unix))]
        {
            let _ = tokio::signal::ctrl_c().await;
            "Ctrl-C"
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origin_rules_parse_and_match_like_browsers_send_them() {
        let app = OriginRule::parse("https://App.Example.com").unwrap();
        assert!(app.matches("https://app.example.com"));
        assert!(app.matches("https://app.example.com:443"));
        assert!(!app.matches("https://app.example.com:8443"));
        assert!(!app.matches("http://app.example.com"));
        assert!(!app.matches("https://evil.example.com"));
        assert_eq!(app.to_rmcp(), "https://app.example.com:443");

        let any_port = OriginRule::parse("http://[::1]:*").unwrap();
        assert!(any_port.matches("http://[::1]:6274"));
        assert_eq!(any_port.to_rmcp(), "http://[::1]:*");

        assert_eq!(OriginRule::parse("null").unwrap(), OriginRule::Null);
        assert!(OriginRule::Null.matches("null"));
        for bad in [
            "app.example.com",
            "ftp://x",
            "https://",
            "https://x/path",
            "https://x:1:*",
        ] {
            let error = OriginRule::parse(bad).unwrap_err();
            assert!(error.contains("--allow-origin"), "{bad}: {error}");
        }
    }

    #[test]
    fn host_rules_take_names_not_urls() {
        let mut options = HttpOptions::new("0.0.0.0:8080".parse().unwrap());
        options
            .allow_hosts(&["docs.example.com".into(), "docs.internal:8080".into()])
            .unwrap();
        let hosts = options.allowed_hosts.clone().unwrap();
        assert!(hosts.contains(&"docs.example.com".to_owned()));
        assert!(hosts.contains(&"docs.internal:8080".to_owned()));
        let error = options
            .allow_hosts(&["https://docs.example.com".into()])
            .unwrap_err();
        assert!(error.contains("not a URL"), "{error}");
        options.allow_hosts(&["*".into()]).unwrap();
        assert!(options.allowed_hosts.is_none());
    }

    #[test]
    fn a_specific_bind_address_is_an_allowed_host() {
        let hosts = default_hosts("10.1.2.3:8080".parse().unwrap());
        assert!(hosts.contains(&"10.1.2.3".to_owned()));
        assert_eq!(default_hosts("0.0.0.0:8080".parse().unwrap()).len(), 3);
    }
}
