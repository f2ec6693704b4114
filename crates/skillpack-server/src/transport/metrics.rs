//! `serve --http … --metrics ADDR`: what the server did, for Prometheus (OpenMetrics text,
//! written by the Prometheus project's `prometheus-client`).
//!
//! The endpoint has a listener of its own ([`serve`]) rather than a path beside `/mcp`:
//! scrapers carry no client credential and must not need one, per-client counts are for
//! the operator rather than for every MCP client, and a scrape must not compete with
//! clients for `--max-connections` (nor be refused when the cap is full — which is when
//! the numbers matter most). Bind it to an address only the monitoring network reaches.
//!
//! Every label value comes from a closed set: MCP method names the server knows, its own
//! tool names, URI *families* (`catalog`, `skills`, `docs`, `skill`), error codes, HTTP
//! status codes, and client names the operator configured (`SKILLPACK_CLIENT_TOKENS`), or
//! `shared`, `oauth` and `anonymous`. No URI, document text or query word is ever a label:
//! cardinality stays bounded whatever clients send, and nothing read leaks into monitoring.

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use axum::routing::get;
use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeLabelSet, EncodeMetric};
use prometheus_client::metrics::counter::{ConstCounter, Counter};
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::{ConstGauge, Gauge};
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::{Registry, Unit};

use super::connections::Stats;
use crate::catalog::Catalog;

pub const METRICS_PATH: &str = "/metrics";
/// What `prometheus-client` writes: OpenMetrics 1.0 text, which Prometheus asks for first.
const OPENMETRICS: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";
/// The Prometheus text format, for everyone else (`promtool check metrics`, curl, older
/// scrapers): see [`to_prometheus_text`].
const PROMETHEUS_TEXT: &str = "text/plain; version=0.0.4; charset=utf-8";

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    method: &'static str,
    tool: &'static str,
    client: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ReadLabels {
    family: &'static str,
    client: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ErrorLabels {
    method: &'static str,
    code: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct StatusLabels {
    status: u16,
    client: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct MethodLabels {
    method: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ReasonLabels {
    reason: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct BuildLabels {
    name: String,
    version: String,
    fingerprint: String,
    release: String,
}

type HistogramFamily<L> = Family<L, Histogram, fn() -> Histogram>;

/// Answers are made from memory in microseconds; a slow one takes milliseconds. 25 µs ×
/// 2^k up to about 0.8 s covers both ends with 16 buckets.
fn latency_histogram() -> Histogram {
    Histogram::new(exponential_buckets(0.000_025, 2.0, 16))
}

/// One request as the metrics see it (filled by [`super::observe`]).
pub struct Sample<'a> {
    pub status: u16,
    pub client: &'static str,
    pub method: &'static str,
    pub tool: &'static str,
    pub family: Option<&'static str>,
    pub error: Option<&'static str>,
    pub elapsed: Duration,
    pub search: Option<Duration>,
    pub auth_failure: Option<&'a str>,
}

/// The server's counters and histograms. Cheap to update from any thread: each series is
/// an atomic, found through a read-locked map.
#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    requests: Family<RequestLabels, Counter>,
    reads: Family<ReadLabels, Counter>,
    errors: Family<ErrorLabels, Counter>,
    responses: Family<StatusLabels, Counter>,
    duration: HistogramFamily<MethodLabels>,
    search: Histogram,
    auth_failures: Family<ReasonLabels, Counter>,
}

impl Metrics {
    pub fn new(catalog: &Catalog, stats: Arc<Stats>) -> Self {
        let mut registry = Registry::with_prefix("skillpack");
        let requests = Family::<RequestLabels, Counter>::default();
        registry.register(
            "mcp_requests",
            "MCP requests by JSON-RPC method, tool (tools/call) and client",
            requests.clone(),
        );
        let reads = Family::<ReadLabels, Counter>::default();
        registry.register(
            "resource_reads",
            "resources/read requests by URI family (catalog, skills, docs, skill) and client",
            reads.clone(),
        );
        let errors = Family::<ErrorLabels, Counter>::default();
        registry.register(
            "mcp_errors",
            "MCP requests answered with an error, by method and error-envelope code \
             (or JSON-RPC error name)",
            errors.clone(),
        );
        let responses = Family::<StatusLabels, Counter>::default();
        registry.register(
            "http_responses",
            "HTTP responses on the MCP path by status code and client",
            responses.clone(),
        );
        let duration: HistogramFamily<MethodLabels> =
            Family::new_with_constructor(latency_histogram);
        registry.register_with_unit(
            "request_duration",
            "Time from the request reaching the MCP path to its answer, by method",
            Unit::Seconds,
            duration.clone(),
        );
        let search = latency_histogram();
        registry.register_with_unit(
            "search_duration",
            "Time catalog_search spent answering (query parsing, ranking, snippets)",
            Unit::Seconds,
            search.clone(),
        );
        let auth_failures = Family::<ReasonLabels, Counter>::default();
        registry.register(
            "auth_failures",
            "Requests refused for their credential, by reason",
            auth_failures.clone(),
        );
        let build = Family::<BuildLabels, Gauge>::default();
        build
            .get_or_create(&BuildLabels {
                name: catalog.name().to_owned(),
                version: catalog.server_version().to_owned(),
                fingerprint: catalog.fingerprint().to_owned(),
                release: catalog.archive().history.label.as_str().to_owned(),
            })
            .set(1);
        registry.register(
            "build_info",
            "The catalog this binary serves: always 1, the identity is in the labels",
            build,
        );
        registry.register_collector(Box::new(Totals { stats }));
        Metrics {
            registry,
            requests,
            reads,
            errors,
            responses,
            duration,
            search,
            auth_failures,
        }
    }

    pub fn record(&self, sample: &Sample<'_>) {
        self.responses
            .get_or_create(&StatusLabels {
                status: sample.status,
                client: sample.client,
            })
            .inc();
        if let Some(reason) = sample.auth_failure {
            self.auth_failures
                .get_or_create(&ReasonLabels {
                    reason: auth_reason(reason),
                })
                .inc();
        }
        if sample.method == NO_METHOD {
            return;
        }
        self.requests
            .get_or_create(&RequestLabels {
                method: sample.method,
                tool: sample.tool,
                client: sample.client,
            })
            .inc();
        if let Some(family) = sample.family {
            self.reads
                .get_or_create(&ReadLabels {
                    family,
                    client: sample.client,
                })
                .inc();
        }
        if let Some(code) = sample.error {
            self.errors
                .get_or_create(&ErrorLabels {
                    method: sample.method,
                    code,
                })
                .inc();
        }
        self.duration
            .get_or_create(&MethodLabels {
                method: sample.method,
            })
            .observe(sample.elapsed.as_secs_f64());
        if let Some(search) = sample.search {
            self.search.observe(search.as_secs_f64());
        }
    }

    /// The exposition, as OpenMetrics text.
    pub fn encode(&self) -> String {
        let mut text = String::with_capacity(16 * 1024);
        // Writing into a String cannot fail; a collector's error would be a bug, and an
        // empty scrape says so plainly enough.
        if prometheus_client::encoding::text::encode(&mut text, &self.registry).is_err() {
            text.clear();
        }
        text
    }
}

/// The method label of a request whose JSON-RPC method was never read (refused before
/// rmcp saw it: a bad credential, a limit, a malformed body).
pub const NO_METHOD: &str = "";

/// The reasons [`super::auth`] gives, as a closed set of label values.
fn auth_reason(reason: &str) -> &'static str {
    const REASONS: &[&str] = &[
        "missing",
        "unknown_token",
        "malformed",
        "bad_signature",
        "unknown_key",
        "algorithm",
        "expired",
        "not_yet_valid",
        "issuer",
        "audience",
        "insufficient_scope",
    ];
    REASONS
        .iter()
        .find(|known| **known == reason)
        .copied()
        .unwrap_or("other")
}

/// Totals kept elsewhere ([`Stats`], the frame cache), read at scrape time.
#[derive(Debug)]
struct Totals {
    stats: Arc<Stats>,
}

impl Collector for Totals {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let counts = self.stats.counts();
        let (hits, misses) = crate::catalog::content::frame_cache_counts();
        let counters: [(&str, &str, u64); 8] = [
            (
                "connections_refused",
                "Connections beyond --max-connections answered 503",
                counts.refused,
            ),
            (
                "connection_header_timeouts",
                "Connections closed without a complete request head within --header-timeout",
                counts.header_timeouts,
            ),
            (
                "connection_idle_timeouts",
                "Kept-alive connections closed after --idle-timeout",
                counts.idle_timeouts,
            ),
            (
                "accept_errors",
                "Times accepting a connection failed (e.g. too many open files)",
                counts.accept_errors,
            ),
            (
                "requests_timed_out",
                "Requests answered 408 after --request-timeout",
                counts.request_timeouts,
            ),
            (
                "requests_shed",
                "Requests answered 503 past --max-concurrency",
                counts.shed,
            ),
            (
                "frame_cache_hits",
                "Content frames found decoded in the cache",
                hits,
            ),
            (
                "frame_cache_misses",
                "Content frames decoded because the cache did not hold them",
                misses,
            ),
        ];
        for (name, help, value) in counters {
            let counter = ConstCounter::new(value);
            counter.encode(encoder.encode_descriptor(
                name,
                help,
                None,
                counter.metric_type(),
            )?)?;
        }
        let open = ConstGauge::new(self.stats.open() as i64);
        open.encode(encoder.encode_descriptor(
            "connections_open",
            "Connections open now",
            None,
            open.metric_type(),
        )?)?;
        let max = ConstGauge::new(self.stats.max_connections as i64);
        max.encode(encoder.encode_descriptor(
            "connections_max",
            "The --max-connections cap in force",
            None,
            max.metric_type(),
        )?)?;
        Ok(())
    }
}

/// The OpenMetrics exposition in the Prometheus text format 0.0.4. The two differ only
/// in what this server writes as follows: a counter's `# HELP`/`# TYPE` name its family
/// (`x`) in OpenMetrics and its sample (`x_total`) in 0.0.4, `# UNIT` and `# EOF` exist
/// in OpenMetrics only. `prometheus-client` writes OpenMetrics alone, and tools that read
/// 0.0.4 (promtool's linter among them) take the family lines for a metric without
/// samples; this rewrite is those few lines, so it is done here rather than with a second
/// metrics library.
pub fn to_prometheus_text(openmetrics: &str) -> String {
    let mut text = String::with_capacity(openmetrics.len());
    let mut counters: Vec<&str> = Vec::new();
    for line in openmetrics.lines() {
        if let Some(name) = line
            .strip_prefix("# TYPE ")
            .and_then(|rest| rest.strip_suffix(" counter"))
        {
            counters.push(name);
        }
    }
    for line in openmetrics.lines() {
        if line == "# EOF" || line.starts_with("# UNIT ") {
            continue;
        }
        let family_line = ["# HELP ", "# TYPE "]
            .into_iter()
            .find_map(|prefix| line.strip_prefix(prefix).map(|rest| (prefix, rest)));
        if let Some((prefix, rest)) = family_line {
            let name = rest.split(' ').next().unwrap_or_default();
            if counters.contains(&name) {
                text.push_str(prefix);
                text.push_str(name);
                text.push_str("_total");
                text.push_str(&rest[name.len()..]);
                text.push('\n');
                continue;
            }
        }
        text.push_str(line);
        text.push('\n');
    }
    text
}

/// Whether a scraper's `Accept` header asks for OpenMetrics (Prometheus does, first).
fn wants_openmetrics(headers: &axum::http::HeaderMap) -> bool {
    headers
        .get(header::ACCEPT)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|accept| accept.contains("application/openmetrics-text"))
}

/// The metrics listener's routes: `GET /metrics`, and a 404 that says where they are.
pub fn router(metrics: Arc<Metrics>) -> Router {
    Router::new()
        .route(
            METRICS_PATH,
            get(move |headers: axum::http::HeaderMap| async move {
                let exposition = metrics.encode();
                if wants_openmetrics(&headers) {
                    ([(header::CONTENT_TYPE, OPENMETRICS)], exposition).into_response()
                } else {
                    (
                        [(header::CONTENT_TYPE, PROMETHEUS_TEXT)],
                        to_prometheus_text(&exposition),
                    )
                        .into_response()
                }
            }),
        )
        .fallback(|| async {
            (
                StatusCode::NOT_FOUND,
                format!("Not Found: metrics are served at {METRICS_PATH}\n"),
            )
        })
}

/// Serve [`router`] on `listener` (bound before the sandbox) until `shutdown` resolves.
pub async fn serve(
    listener: std::net::TcpListener,
    metrics: Arc<Metrics>,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<(), String> {
    let listener = tokio::net::TcpListener::from_std(listener)
        .map_err(|error| format!("cannot use the --metrics listener: {error}"))?;
    axum::serve(listener, router(metrics))
        .with_graceful_shutdown(shutdown)
        .await
        .map_err(|error| format!("the --metrics listener failed: {error}"))
}

/// Which family a resource URI belongs to: a bounded label, never the URI itself.
pub fn uri_family(uri: &str) -> &'static str {
    use crate::uri;
    if uri.starts_with(uri::SKILL_SCHEME) {
        "skill"
    } else if uri.starts_with(uri::DOCS_PREFIX) {
        "docs"
    } else if uri.starts_with(uri::SKILLS_PREFIX) {
        "skills"
    } else if uri.starts_with("resource://catalog/") {
        "catalog"
    } else {
        "other"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uri_families_are_a_closed_set() {
        assert_eq!(uri_family("skill://pdf/SKILL.md"), "skill");
        assert_eq!(uri_family("resource://docs/guide/intro.md"), "docs");
        assert_eq!(uri_family("resource://skills/pdf/document"), "skills");
        assert_eq!(uri_family("resource://catalog/skills_index"), "catalog");
        assert_eq!(uri_family("https://evil/secret words"), "other");
        assert_eq!(auth_reason("expired"), "expired");
        assert_eq!(auth_reason("a query word"), "other");
    }

    #[test]
    fn counters_are_renamed_for_the_prometheus_text_format() {
        let openmetrics = "# HELP a_requests Requests.\n# TYPE a_requests counter\n\
                           a_requests_total{x=\"1\"} 2\n# HELP a_open Open.\n# TYPE a_open gauge\n\
                           a_open 3\n# UNIT a_d seconds\n# EOF\n";
        assert_eq!(
            to_prometheus_text(openmetrics),
            "# HELP a_requests_total Requests.\n# TYPE a_requests_total counter\n\
             a_requests_total{x=\"1\"} 2\n# HELP a_open Open.\n# TYPE a_open gauge\na_open 3\n"
        );
    }
}
