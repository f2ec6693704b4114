//! Connections for `serve --http`: the accept loop around hyper's HTTP/1 server, and the
//! limits that act on connections rather than requests.
//!
//! `--max-concurrency`, `--request-timeout` and `--max-body-bytes` act on requests. A
//! connection that never becomes a request (a `POST /mcp HTTP/1.1` line and then nothing,
//! or no byte at all) escapes them, and axum's `serve` (which this loop replaces; it is
//! modelled on it) configures neither a header timeout nor a cap: a few thousand such
//! connections exhausted the open-files limit, after which not even `/healthz` could be
//! accepted. Here:
//!
//! - **hyper's header-read timeout** (`--header-timeout`, driven by tokio's timer through
//!   [`HeadTimer`]) closes a connection whose request head is not complete in time;
//! - **an idle timeout for kept-alive connections** (`--idle-timeout`): hyper has none of
//!   its own, but it re-arms the header timer each time it starts waiting for the next
//!   request on a connection, so [`HeadTimer`] gives every wait after the first the idle
//!   allowance instead;
//! - **a cap on open connections** (`--max-connections`, an `Arc<Semaphore>` around
//!   accept: hyper, axum and tower limit requests, not connections) kept below the
//!   open-files limit, and [`HEALTH_RESERVE`] connections beyond it that answer `/healthz`
//!   only ([`Reserve`]), so that a probe still gets through while the cap is full;
//! - **back-off when `accept` fails** ("too many open files" above all): the listener stays
//!   readable, so retrying at once would spin a core;
//! - **counts** of every connection refused or closed for these reasons, and of requests
//!   that timed out (408) or were shed (503), in `/healthz` and in log lines written at
//!   most once per [`LOG_INTERVAL`] ([`report`]).

use std::collections::VecDeque;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::{Pin, pin};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Body;
use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper::rt::{Sleep, Timer};
use hyper_util::rt::{TokioIo, TokioTimer};
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore, watch};
use tower::ServiceExt;

/// Connections beyond `--max-connections` that are still accepted, to answer `/healthz`
/// (anything else gets 503). Probes come one at a time per prober; a few are plenty.
pub const HEALTH_RESERVE: usize = 8;
/// File descriptors the server needs besides connections: stdio, the listener, the
/// runtime's epoll and wake-up descriptors, the signal pipe — with room to spare.
pub const FD_MARGIN: u64 = 32;
/// At most one log line about refused or closed connections per this interval; the
/// counts in between are summed into the next line.
pub const LOG_INTERVAL: Duration = Duration::from_secs(10);
/// How long to wait before accepting again after `accept` failed for a reason other than
/// the peer (too many open files, out of buffers): connections closing meanwhile free
/// descriptors.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(100);

/// The limits on connections, already validated.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub header_timeout: Duration,
    pub idle_timeout: Duration,
    pub max_connections: usize,
}

// ---------------------------------------------------------------------------------------
// Open-files limit

/// The process's `RLIMIT_NOFILE` after [`raise_open_files_limit`].
#[derive(Debug, Clone)]
pub struct FileLimit {
    pub soft: u64,
    pub hard: u64,
    /// The soft limit before it was raised, if it was.
    pub raised_from: Option<u64>,
    /// Why raising failed, if it did.
    pub error: Option<String>,
}

/// Raise the soft open-files limit to the hard limit. Every connection is a descriptor,
/// and the soft limit is often 1,024 while the hard one is far higher (systemd, most
/// containers): the headroom is there for the taking, and an unprivileged process may
/// take it. `None` where the limit cannot be read (or off Unix).
pub fn raise_open_files_limit() -> Option<FileLimit> {
    #[cfg(unix)]
    {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit only writes the struct it is given, which lives on our stack.
        if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } != 0 {
            return None;
        }
        let mut result = FileLimit {
            soft: limit.rlim_cur,
            hard: limit.rlim_max,
            raised_from: None,
            error: None,
        };
        if limit.rlim_cur < limit.rlim_max {
            let raised = libc::rlimit {
                rlim_cur: limit.rlim_max,
                rlim_max: limit.rlim_max,
            };
            // SAFETY: setrlimit only reads the struct it is given.
            if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } == 0 {
                result.raised_from = Some(result.soft);
                result.soft = result.hard;
            } else {
                // macOS refuses an unlimited soft limit; the current one then stays.
                result.error = Some(std::io::Error::last_os_error().to_string());
            }
        }
        Some(result)
    }
    #[cfg(not(unix))]
    None
}

/// The connection cap for `requested` (`--max-connections`, `None`: the default) under
/// `soft_limit` open files, and a warning when the two disagree. The default is lowered to
/// fit; an explicit value is kept (the operator may know better, e.g. a limit raised
/// later), with a warning that accept will fail past the limit.
pub fn connection_cap(
    requested: Option<usize>,
    default: usize,
    soft_limit: Option<u64>,
) -> (usize, Option<String>) {
    let room = soft_limit.map(|soft| {
        soft.saturating_sub(FD_MARGIN + HEALTH_RESERVE as u64)
            .clamp(1, usize::MAX as u64) as usize
    });
    match (requested, room) {
        (None, Some(room)) if room < default => (
            room,
            Some(format!(
                "the open-files limit ({} descriptors) leaves room for {room} connections, \
                 fewer than the default --max-connections {default}; raise the hard limit \
                 (LimitNOFILE= in systemd, --ulimit nofile= in Docker) for more",
                soft_limit.unwrap_or_default()
            )),
        ),
        (None, _) => (default, None),
        (Some(requested), Some(room)) if requested > room => (
            requested,
            Some(format!(
                "--max-connections {requested} exceeds what the open-files limit ({} \
                 descriptors) allows, about {room}: past that, accepting fails with \"too many \
                 open files\" and /healthz cannot be reached; raise the limit or lower \
                 --max-connections",
                soft_limit.unwrap_or_default()
            )),
        ),
        (Some(requested), _) => (requested, None),
    }
}

// ---------------------------------------------------------------------------------------
// Counts

/// What happened to connections and requests the server did not serve normally: read by
/// `/healthz`, summarized in the log by [`report`].
#[derive(Debug, Default)]
pub struct Stats {
    pub max_connections: usize,
    open: AtomicU64,
    refused: AtomicU64,
    header_timeouts: AtomicU64,
    idle_timeouts: AtomicU64,
    accept_errors: AtomicU64,
    request_timeouts: AtomicU64,
    shed: AtomicU64,
    changed: Notify,
}

/// A snapshot of the counters of [`Stats`].
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    pub refused: u64,
    pub header_timeouts: u64,
    pub idle_timeouts: u64,
    pub accept_errors: u64,
    pub request_timeouts: u64,
    pub shed: u64,
}

impl Stats {
    pub fn new(max_connections: usize) -> Self {
        Stats {
            max_connections,
            ..Stats::default()
        }
    }

    fn bump(&self, counter: &AtomicU64) {
        counter.fetch_add(1, Ordering::Relaxed);
        self.changed.notify_one();
    }

    /// A request that did not complete within `--request-timeout` (408).
    pub fn request_timed_out(&self) {
        self.bump(&self.request_timeouts);
    }

    /// A request shed past `--max-concurrency` (503).
    pub fn request_shed(&self) {
        self.bump(&self.shed);
    }

    /// A request refused because it came over a connection beyond `--max-connections`.
    pub fn connection_refused(&self) {
        self.bump(&self.refused);
    }

    /// Connections open now.
    pub fn open(&self) -> u64 {
        self.open.load(Ordering::Relaxed)
    }

    /// The totals since start.
    pub fn counts(&self) -> Counts {
        let load = |counter: &AtomicU64| counter.load(Ordering::Relaxed);
        Counts {
            refused: load(&self.refused),
            header_timeouts: load(&self.header_timeouts),
            idle_timeouts: load(&self.idle_timeouts),
            accept_errors: load(&self.accept_errors),
            request_timeouts: load(&self.request_timeouts),
            shed: load(&self.shed),
        }
    }

    /// The `connections` and `requests` members of `/healthz` (totals since start).
    pub fn to_json(&self) -> Value {
        let counts = self.counts();
        json!({
            "connections": {
                "open": self.open.load(Ordering::Relaxed),
                "max": self.max_connections,
                "reserved_for_health": HEALTH_RESERVE,
                "refused": counts.refused,
                "header_timeouts": counts.header_timeouts,
                "idle_timeouts": counts.idle_timeouts,
                "accept_errors": counts.accept_errors,
            },
            "requests": {
                "timed_out": counts.request_timeouts,
                "shed": counts.shed,
            },
        })
    }
}

impl Counts {
    fn since(self, before: Counts) -> Counts {
        Counts {
            refused: self.refused - before.refused,
            header_timeouts: self.header_timeouts - before.header_timeouts,
            idle_timeouts: self.idle_timeouts - before.idle_timeouts,
            accept_errors: self.accept_errors - before.accept_errors,
            request_timeouts: self.request_timeouts - before.request_timeouts,
            shed: self.shed - before.shed,
        }
    }

    /// What happened, for an operator: one clause per non-zero count.
    fn describe(self, stats: &Stats) -> String {
        let mut parts = Vec::new();
        if self.refused > 0 {
            parts.push(format!(
                "{} refused: --max-connections {} already open (only /healthz is answered \
                 beyond it)",
                plural(self.refused, "connection"),
                stats.max_connections
            ));
        }
        if self.header_timeouts > 0 {
            parts.push(format!(
                "{} closed: no complete request head within --header-timeout",
                plural(self.header_timeouts, "connection")
            ));
        }
        if self.accept_errors > 0 {
            parts.push(format!(
                "accepting a connection failed {} (e.g. too many open files): raise the \
                 open-files limit or lower --max-connections",
                plural(self.accept_errors, "time")
            ));
        }
        if self.request_timeouts > 0 {
            parts.push(format!(
                "{} timed out with 408: body or answer slower than --request-timeout",
                plural(self.request_timeouts, "request")
            ));
        }
        if self.shed > 0 {
            parts.push(format!(
                "{} shed with 503: --max-concurrency requests already in flight",
                plural(self.shed, "request")
            ));
        }
        if self.idle_timeouts > 0 {
            parts.push(format!(
                "{} closed after --idle-timeout",
                plural(self.idle_timeouts, "kept-alive connection")
            ));
        }
        parts.join("; ")
    }
}

fn plural(count: u64, noun: &str) -> String {
    if count == 1 {
        format!("1 {noun}")
    } else {
        format!("{count} {noun}s")
    }
}

/// Log what [`Stats`] counted: at once for the first event, then at most one line per
/// [`LOG_INTERVAL`] with the counts since the previous line, so that a flood of refused
/// connections costs a line every few seconds rather than one each. Idle kept-alive
/// connections closing is routine, so alone it is logged at debug level only.
pub async fn report(stats: Arc<Stats>) {
    let mut last = Counts::default();
    loop {
        stats.changed.notified().await;
        let now = stats.counts();
        let delta = now.since(last);
        last = now;
        if delta == Counts::default() {
            continue;
        }
        let open = stats.open.load(Ordering::Relaxed);
        let summary = delta.describe(&stats);
        let routine = Counts {
            idle_timeouts: delta.idle_timeouts,
            ..Counts::default()
        };
        if delta == routine {
            tracing::debug!(open, "{summary}");
        } else {
            tracing::warn!(
                open,
                max_connections = stats.max_connections,
                "{summary} (since the last such line; totals at /healthz)"
            );
        }
        tokio::time::sleep(LOG_INTERVAL).await;
    }
}

// ---------------------------------------------------------------------------------------
// Timers

/// The timer given to hyper for its header-read timeout on one connection. hyper arms it
/// whenever it starts waiting for a request head: when the connection opens (the header
/// timeout applies as configured) and after each response on a kept-alive connection —
/// where this timer substitutes the idle timeout, since hyper has no idle timeout of its
/// own. So a kept-alive connection may stay silent for `--idle-timeout` after an answer,
/// and its next request head must be complete by then.
struct HeadTimer {
    idle: Duration,
    /// How many times hyper armed the timer: 1 while the first head is awaited.
    heads: Arc<AtomicU32>,
}

impl HeadTimer {
    fn deadline(&self, header_deadline: Instant) -> Instant {
        if self.heads.fetch_add(1, Ordering::Relaxed) == 0 {
            header_deadline
        } else {
            TokioTimer::new().now() + self.idle
        }
    }
}

impl Timer for HeadTimer {
    fn sleep(&self, duration: Duration) -> Pin<Box<dyn Sleep>> {
        TokioTimer::new().sleep(duration)
    }

    fn sleep_until(&self, deadline: Instant) -> Pin<Box<dyn Sleep>> {
        TokioTimer::new().sleep_until(self.deadline(deadline))
    }

    fn reset(&self, sleep: &mut Pin<Box<dyn Sleep>>, new_deadline: Instant) {
        TokioTimer::new().reset(sleep, self.deadline(new_deadline));
    }

    fn now(&self) -> Instant {
        TokioTimer::new().now()
    }
}

// ---------------------------------------------------------------------------------------
// The reserve for /healthz

/// [`HEALTH_RESERVE`] places for connections accepted while the cap is full. When all are
/// taken, a new connection takes the place of the oldest, which is closed: a flood of
/// connections that send nothing then cannot keep a probe out — the probe's request
/// arrives within a round trip, long before [`HEALTH_RESERVE`] newer connections push it
/// out. (Refusing newcomers instead would let the flood's first few hold the reserve for
/// the whole header timeout.)
struct Reserve {
    /// Held until a connection's socket is closed, so that an evicted connection's
    /// descriptor is free before the next one is accepted.
    permits: Arc<Semaphore>,
    /// Oldest first, with the signal that evicts each.
    places: Mutex<VecDeque<(u64, Arc<Notify>)>>,
    next_id: AtomicU64,
}

/// A place in the [`Reserve`], given back on drop.
struct ReservePlace {
    reserve: Arc<Reserve>,
    id: u64,
    evicted: Arc<Notify>,
    _permit: OwnedSemaphorePermit,
}

impl Reserve {
    fn new() -> Self {
        Reserve {
            permits: Arc::new(Semaphore::new(HEALTH_RESERVE)),
            places: Mutex::default(),
            next_id: AtomicU64::new(0),
        }
    }

    fn places(&self) -> std::sync::MutexGuard<'_, VecDeque<(u64, Arc<Notify>)>> {
        self.places.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A place, once one is free: the oldest connection is evicted if none is, and the
    /// accept loop waits (a task switch) for it to close.
    async fn enter(self: &Arc<Self>, stats: &Stats) -> ReservePlace {
        let permit = match self.permits.clone().try_acquire_owned() {
            Ok(permit) => permit,
            Err(_) => {
                if let Some((_, oldest)) = self.places().pop_front() {
                    // A stored permit: the oldest connection's task sees it when it next
                    // waits.
                    oldest.notify_one();
                    stats.connection_refused();
                }
                // Every place is held by a connection that is closing (or just evicted).
                self.permits
                    .clone()
                    .acquire_owned()
                    .await
                    .expect("the reserve's semaphore is never closed")
            }
        };
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let evicted = Arc::new(Notify::new());
        self.places().push_back((id, evicted.clone()));
        ReservePlace {
            reserve: self.clone(),
            id,
            evicted,
            _permit: permit,
        }
    }
}

impl Drop for ReservePlace {
    fn drop(&mut self) {
        self.reserve.places().retain(|(id, _)| *id != self.id);
    }
}

/// What a connection holds while it is open: a place under the cap, or in the reserve.
enum Place {
    Capped(#[allow(dead_code)] OwnedSemaphorePermit),
    Reserve(ReservePlace),
}

impl Place {
    /// Resolves when the connection must give its place to a newer one.
    async fn evicted(&self) {
        match self {
            Place::Capped(_) => std::future::pending().await,
            Place::Reserve(place) => place.evicted.notified().await,
        }
    }
}

// ---------------------------------------------------------------------------------------
// The accept loop

/// Serve `app` on `listener` until `shutdown` resolves, then stop accepting, let open
/// connections finish their requests (idle ones close at once) and return. Connections
/// beyond `limits.max_connections` are served by `reserve_app` (`/healthz` only).
pub async fn serve(
    listener: TcpListener,
    app: Router,
    reserve_app: Router,
    limits: Limits,
    stats: Arc<Stats>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) {
    let capped = Arc::new(Semaphore::new(limits.max_connections));
    let reserve = Arc::new(Reserve::new());
    // As in axum's `serve`: the signal's receiver is dropped on shutdown, which every
    // connection sees as `closed()`; each connection holds a receiver of `close_rx`, so
    // `close_tx.closed()` resolves once the last one ends.
    let (signal_tx, signal_rx) = watch::channel(());
    tokio::spawn(async move {
        shutdown.await;
        drop(signal_rx);
    });
    let (close_tx, close_rx) = watch::channel(());
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = signal_tx.closed() => break,
        };
        let (stream, peer) = match accepted {
            Ok(accepted) => accepted,
            Err(error) => {
                accept_failed(&error, &stats).await;
                continue;
            }
        };
        let (place, app) = match capped.clone().try_acquire_owned() {
            Ok(permit) => (Place::Capped(permit), app.clone()),
            Err(_) => (
                Place::Reserve(reserve.enter(&stats).await),
                reserve_app.clone(),
            ),
        };
        let connection = Connection {
            stream,
            peer,
            place,
            app,
            limits,
            stats: stats.clone(),
        };
        let signal_tx = signal_tx.clone();
        let close_rx = close_rx.clone();
        tokio::spawn(async move {
            connection.run(signal_tx).await;
            drop(close_rx);
        });
    }
    drop(close_rx);
    drop(listener);
    close_tx.closed().await;
}

/// Errors of one peer (it reset before we accepted) need no pause; anything else — above
/// all "too many open files" — is counted, and accepting pauses for [`ACCEPT_BACKOFF`].
async fn accept_failed(error: &std::io::Error, stats: &Stats) {
    use std::io::ErrorKind;
    if matches!(
        error.kind(),
        ErrorKind::ConnectionRefused | ErrorKind::ConnectionAborted | ErrorKind::ConnectionReset
    ) {
        return;
    }
    tracing::debug!(%error, "accept failed");
    stats.bump(&stats.accept_errors);
    tokio::time::sleep(ACCEPT_BACKOFF).await;
}

struct Connection {
    stream: tokio::net::TcpStream,
    peer: SocketAddr,
    place: Place,
    app: Router,
    limits: Limits,
    stats: Arc<Stats>,
}

impl Connection {
    async fn run(self, signal: watch::Sender<()>) {
        let Connection {
            stream,
            peer,
            place,
            app,
            limits,
            stats,
        } = self;
        stats.open.fetch_add(1, Ordering::Relaxed);
        // Reserve connections answer one probe and close: their place is needed again.
        let keep_alive = matches!(place, Place::Capped(_));
        let heads = Arc::new(AtomicU32::new(0));
        let mut builder = hyper::server::conn::http1::Builder::new();
        builder
            .timer(HeadTimer {
                idle: limits.idle_timeout,
                heads: heads.clone(),
            })
            .header_read_timeout(limits.header_timeout)
            .keep_alive(keep_alive);
        let service = hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
            // What `into_make_service_with_connect_info` would add (the token check logs it).
            request.extensions_mut().insert(ConnectInfo(peer));
            app.clone().oneshot(request.map(Body::new))
        });
        // In a block so that the socket is closed before the place is given back: the cap
        // counts descriptors, and the next connection may be accepted at once.
        let outcome = {
            let mut connection = pin!(builder.serve_connection(TokioIo::new(stream), service));
            let mut shutting_down = pin!(signal.closed());
            let mut draining = false;
            loop {
                tokio::select! {
                    outcome = connection.as_mut() => break Some(outcome),
                    () = &mut shutting_down, if !draining => {
                        connection.as_mut().graceful_shutdown();
                        draining = true;
                    }
                    () = place.evicted() => break None,
                }
            }
        };
        if let Some(Err(error)) = outcome {
            if error.is_timeout() {
                let counter = if heads.load(Ordering::Relaxed) <= 1 {
                    &stats.header_timeouts
                } else {
                    &stats.idle_timeouts
                };
                stats.bump(counter);
            } else {
                tracing::trace!(%peer, %error, "connection ended with an error");
            }
        }
        stats.open.fetch_sub(1, Ordering::Relaxed);
        drop(place);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_cap_fits_under_the_open_files_limit() {
        assert_eq!(connection_cap(None, 1024, Some(1 << 20)), (1024, None));
        assert_eq!(connection_cap(None, 1024, None), (1024, None));
        let (cap, warning) = connection_cap(None, 1024, Some(256));
        assert_eq!(cap, 256 - FD_MARGIN as usize - HEALTH_RESERVE);
        assert!(warning.unwrap().contains("open-files limit"));
        let (cap, warning) = connection_cap(None, 1024, Some(10));
        assert_eq!(cap, 1);
        assert!(warning.is_some());
    }

    #[test]
    fn an_explicit_cap_is_kept_with_a_warning_when_too_high() {
        assert_eq!(connection_cap(Some(100), 1024, Some(1024)), (100, None));
        let (cap, warning) = connection_cap(Some(5000), 1024, Some(1024));
        assert_eq!(cap, 5000);
        assert!(warning.unwrap().contains("too many open files"));
    }

    #[test]
    fn raising_the_open_files_limit_reaches_the_hard_limit() {
        let limit = raise_open_files_limit();
        #[cfg(unix)]
        {
            let limit = limit.expect("getrlimit works on Unix");
            assert!(
                limit.error.is_some() || limit.soft == limit.hard,
                "{limit:?}"
            );
        }
        #[cfg(not(unix))]
        assert!(limit.is_none());
    }
}
