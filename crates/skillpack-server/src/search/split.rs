//! A large search walked in parts at once, one core each.
//!
//! The ranking visits every document a query's words reach ([`super::Index::rank_span`]),
//! so on a catalog of 100,000 documents a query of common words costs milliseconds of one
//! core however well it prunes (`docs/design/search-pruning.md`). Documents are scored
//! independently of one another, so the documents can be cut into consecutive parts, each
//! ranked by its own walk, and the parts' pages merged: each part's page holds every hit of
//! its documents that could make the whole page (a part's threshold is never above the whole
//! walk's), ties go by passage as in one walk, and each document is counted in `total` by
//! exactly one part. So the answer is the one a single walk gives (a unit test compares
//! them).
//!
//! The parts share their thresholds ([`Threshold`]): a hit that scores below the last of
//! another part's full page has `keep` hits ahead of it and cannot make the merged page, so
//! every part may prune by the highest threshold any part has reached. Without that, each
//! part pays for the low threshold at the start of a walk, and the two parts of a search
//! at 100,000 documents took 18% more CPU time than one walk; which part raises it first
//! changes how much is pruned, never the answer.
//!
//! A search splits only when it reaches enough documents for the walk to outweigh starting a
//! thread (about [`PART_MIN_DOCUMENTS`] per part), and only onto threads that are free: the
//! process allows `n` at once ([`set_threads`]`(n)`), shared by every search in flight,
//! each of which holds one for itself while it runs. So a busy server, whose workers are
//! each running a search, ranks each on its own thread, as before, rather than starting
//! more threads than it has cores.

use std::ops::Range;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};

use super::query::Query;
use super::{Candidate, Refs, ranking_order};
use crate::model::ArchivedSearchIndex;
use crate::postings::Summaries;

/// Documents a part's walk reaches, at least, for a search to split. Below it a walk takes
/// about a millisecond, and what each part spends building its own threshold up again, with
/// starting a thread (about 28 µs), eats much of the gain: at 10,000 synthetic documents two
/// parts took 0.85–0.93 ms of wall-clock time against 1.09–1.11 ms for one walk, for more
/// CPU time. So a catalog of 10,000 documents never splits, and its searches stay as they
/// were.
pub const PART_MIN_DOCUMENTS: usize = 8_192;

/// Threads searches may keep busy at once, of which how many are free: one count for the
/// whole process ([`set_threads`]), or a test's own.
pub(super) struct Pool(AtomicUsize);

impl Pool {
    pub(super) const fn new(threads: usize) -> Pool {
        Pool(AtomicUsize::new(threads))
    }

    fn free(&self) -> usize {
        self.0.load(Ordering::Relaxed)
    }
}

/// The process's threads for searches: none until [`set_threads`].
static PROCESS: Pool = Pool::new(0);

/// Let searches keep up to `threads` threads busy at once, searching threads included: a
/// search holds one for itself while it runs (its seat) and may take what is left as
/// helpers. 0, the default, means no helpers: every search runs on its caller's thread
/// alone (a library user opts in; the server sets it from the cores it may use). Meant to
/// be called once, at start-up, before any search.
pub fn set_threads(threads: usize) {
    PROCESS.0.store(threads, Ordering::Relaxed);
}

/// How a search may use threads: the pool it takes them from, and the documents a walk
/// must reach for a thread of its own to pay.
#[derive(Clone, Copy)]
pub(super) struct Threads<'p> {
    pool: &'p Pool,
    min_documents: usize,
}

impl Threads<'static> {
    /// The process's pool ([`set_threads`]), walks split from [`PART_MIN_DOCUMENTS`].
    pub(super) fn process() -> Self {
        Threads {
            pool: &PROCESS,
            min_documents: PART_MIN_DOCUMENTS,
        }
    }
}

impl<'p> Threads<'p> {
    /// `pool`'s threads, for walks that reach at least `min_documents` (tests split small
    /// catalogs).
    #[cfg(test)]
    pub(super) fn of(pool: &'p Pool, min_documents: usize) -> Self {
        Threads {
            pool,
            min_documents: min_documents.max(1),
        }
    }

    /// The thread a search runs on, held while it runs, so that searches in flight at once
    /// (the HTTP server's workers) leave no helper for another to start beyond the pool:
    /// with none free the search runs all the same, holding nothing.
    pub(super) fn seat(self) -> Taken<'p> {
        Taken::take(self.pool, 1)
    }
}

/// Threads taken from a pool, given back when dropped (even if a search panicked).
pub(super) struct Taken<'p> {
    pool: &'p Pool,
    pub(super) count: usize,
}

impl<'p> Taken<'p> {
    /// Up to `wanted` free threads of `pool` (possibly none).
    pub(super) fn take(pool: &'p Pool, wanted: usize) -> Taken<'p> {
        let count = pool
            .0
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |free| {
                (free > 0 && wanted > 0).then(|| free - free.min(wanted))
            })
            .map_or(0, |free| free.min(wanted));
        Taken { pool, count }
    }
}

impl Drop for Taken<'_> {
    fn drop(&mut self) {
        if self.count > 0 {
            self.pool.0.fetch_add(self.count, Ordering::AcqRel);
        }
    }
}

/// How one search is cut: consecutive document ranges, the first for the calling thread.
pub(super) struct Plan<'p> {
    spans: Vec<Range<u32>>,
    _helpers: Taken<'p>,
}

/// The parts to rank `query` over the documents of `range` in, when it is worth splitting
/// and helpers are free; `None` to rank it in one walk. Only a ranking that prunes by
/// summaries splits: the parts' boundaries come from the summary of the query term that
/// reaches the most documents, so that each part visits about as many documents, and such
/// a walk enters a later part's documents by binary search over fixed-width records,
/// without reading the lists before them.
pub(super) fn plan<'p>(
    threads: Threads<'p>,
    index: &ArchivedSearchIndex,
    query: &Query,
    range: Range<u32>,
    pruning: bool,
) -> Option<Plan<'p>> {
    if !pruning || threads.pool.free() == 0 {
        return None;
    }
    let (largest, records) = largest(index, query, range.clone())?;
    let wanted = (records.len() / threads.min_documents).saturating_sub(1);
    let helpers = Taken::take(threads.pool, wanted);
    if helpers.count == 0 {
        return None;
    }
    Some(Plan {
        spans: spans(&largest, records, range, helpers.count + 1),
        _helpers: helpers,
    })
}

/// The summary of the query term that reaches the most documents, and the numbers of its
/// records inside `range`.
fn largest<'i>(
    index: &'i ArchivedSearchIndex,
    query: &Query,
    range: Range<u32>,
) -> Option<(Summaries<'i>, Range<usize>)> {
    let largest = query
        .terms
        .iter()
        .filter_map(|t| Summaries::new(index.bytes(&t.entry.summaries)))
        .max_by_key(Summaries::len)?;
    let first = largest.seek(0, range.start);
    let end = largest.seek(first, range.end);
    Some((largest, first..end))
}

/// `range` cut into at most `parts` consecutive spans, each holding about as many of the
/// documents of `records` (the numbers of `summaries`' records inside `range`). No span
/// is empty, and together they are `range`.
pub(super) fn spans(
    summaries: &Summaries<'_>,
    records: Range<usize>,
    range: Range<u32>,
    parts: usize,
) -> Vec<Range<u32>> {
    let reached = records.len();
    let mut spans = Vec::with_capacity(parts);
    let mut start = range.start;
    for part in 1..parts {
        let cut = summaries
            .record(records.start + reached * part / parts)
            .map_or(range.end, |r| r.document)
            .clamp(start, range.end);
        if cut > start {
            spans.push(start..cut);
            start = cut;
        }
    }
    if start < range.end || spans.is_empty() {
        spans.push(start..range.end);
    }
    spans
}

type Ranked = (Vec<Candidate>, Refs, usize);

/// The highest threshold any part of a search has reached, as an `f32` in a `u32` whose
/// integer order is the floats' order, so that raising it is one `fetch_max`.
pub(super) struct Threshold(AtomicU32);

impl Threshold {
    pub(super) fn new() -> Self {
        Threshold(AtomicU32::new(order_key(f32::MIN)))
    }

    /// The highest threshold yet.
    #[inline]
    pub(super) fn get(&self) -> f32 {
        from_order_key(self.0.load(Ordering::Relaxed))
    }

    /// At least `threshold` from now on.
    #[inline]
    pub(super) fn raise(&self, threshold: f32) {
        self.0.fetch_max(order_key(threshold), Ordering::Relaxed);
    }
}

/// `x`'s bits, mapped so that unsigned order is `f32::total_cmp`'s: negatives flipped
/// whole, positives with the sign bit set.
fn order_key(x: f32) -> u32 {
    let bits = x.to_bits();
    if bits >> 31 == 1 {
        !bits
    } else {
        bits | 1 << 31
    }
}

fn from_order_key(key: u32) -> f32 {
    f32::from_bits(if key >> 31 == 1 {
        key & !(1 << 31)
    } else {
        !key
    })
}

impl Plan<'_> {
    /// A plan of the given spans, holding no helper (for tests).
    #[cfg(test)]
    pub(super) fn at(spans: Vec<Range<u32>>) -> Self {
        Plan {
            spans,
            _helpers: Taken {
                pool: &PROCESS,
                count: 0,
            },
        }
    }

    /// Every part ranked by `rank` (the first on this thread, each other on a helper of its
    /// own), and their pages merged into the best `keep`, as one walk would keep them.
    pub(super) fn run(
        self,
        keep: usize,
        rank: impl Fn(Range<u32>, &Threshold) -> Ranked + Sync,
    ) -> Ranked {
        let shared = Threshold::new();
        let rank = |span| rank(span, &shared);
        let rank = &rank;
        let (first, rest) = self.spans.split_first().expect("a plan has a part");
        let parts: Vec<Ranked> = std::thread::scope(|scope| {
            let helpers: Vec<_> = rest
                .iter()
                .map(|span| {
                    let part = span.clone();
                    std::thread::Builder::new()
                        .name("skillpack-search".to_owned())
                        .spawn_scoped(scope, move || rank(part))
                        .map_err(|_| span.clone())
                })
                .collect();
            let mut parts = vec![rank(first.clone())];
            for helper in helpers {
                parts.push(match helper {
                    Ok(handle) => handle
                        .join()
                        .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
                    // (No thread to be had: the part is ranked here.)
                    Err(span) => rank(span),
                });
            }
            parts
        });
        merge(parts, keep)
    }
}

/// The parts' pages as one: the best `keep` of their candidates in ranking order, with
/// their occurrence refs moved into one arena.
fn merge(parts: Vec<Ranked>, keep: usize) -> Ranked {
    let mut top = Vec::with_capacity(parts.iter().map(|p| p.0.len()).sum());
    let mut refs = Vec::with_capacity(parts.iter().map(|p| p.1.len()).sum());
    let mut total = 0;
    for (candidates, part_refs, part_total) in parts {
        let base = refs.len() as u32;
        top.extend(candidates.into_iter().map(|c| Candidate {
            refs: c.refs + base,
            ..c
        }));
        refs.extend(part_refs);
        total += part_total;
    }
    top.sort_by(ranking_order);
    top.truncate(keep);
    (top, refs, total)
}
