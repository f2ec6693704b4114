//! The bounds a ranking skips documents by ([`Bounds`]), before reading their entries:
//! from their terms' summaries (the first bound, [`Bounds::document_bound`], and from the
//! records alone, [`RecordWalk`]) and, passage by passage, from their
//! impacts (the second, [`Bounds::impact_bound`]). A document they rule out is only
//! counted. See the module documentation of [`super`] and `docs/design/search-pruning.md`.

use super::{Params, TermCursor, count_masked, count_masked_words, query};
use crate::model::{
    ArchivedDocumentStats, D_BODY, D_HEADINGS, DOCUMENT_FIELDS, P_BODY, P_HEADING, PASSAGE_FIELDS,
    long_joins_words,
};
use crate::postings::{IMPACT_SCALE, MASK_PASSAGES, Record, Summaries};

/// What the bounds need of one query, computed once per ranking so that a document costs
/// multiplications and a few divisions rather than a division per field and term: they
/// are computed for every document the terms reach.
///
/// (These were closures in [`super::Index::rank`]. As methods they are `#[inline(always)]`
/// and the pair bounds are borrowed: owning them, with `#[inline]`, made the ranking about
/// 2% slower at 100,000 documents, in three runs of alternating builds.)
pub(super) struct Bounds<'q, 'a> {
    params: &'q Params,
    /// Per pair of neighbouring query words (and per phrase): the terms it needs in a
    /// passage's text (bits) and the most its bonus earns (the words adjacent).
    pair_bounds: &'q [(u32, f32)],
    /// Per passage field, and per document field: `1 - b` and `b` over the average length.
    passage_norm: [(f32, f32); PASSAGE_FIELDS],
    document_norm: [(f32, f32); DOCUMENT_FIELDS],
    /// The summaries' impacts hold for these parameters (they were computed under them).
    pub(super) impacts: bool,
    /// [`crate::model::SearchIndex::long_joins`].
    long_joins: &'a [rkyv::Archived<u64>],
}

impl<'q, 'a> Bounds<'q, 'a> {
    pub(super) fn new(
        params: &'q Params,
        pair_bounds: &'q [(u32, f32)],
        passage_avg: &[f32; PASSAGE_FIELDS],
        document_avg: &[f32; DOCUMENT_FIELDS],
        impacts: bool,
        long_joins: &'a [rkyv::Archived<u64>],
    ) -> Self {
        Bounds {
            params,
            pair_bounds,
            passage_norm: std::array::from_fn(|f| {
                (
                    1.0 - params.passage_b[f],
                    params.passage_b[f] / passage_avg[f],
                )
            }),
            document_norm: std::array::from_fn(|f| {
                (1.0 - params.doc_b[f], params.doc_b[f] / document_avg[f])
            }),
            impacts,
            long_joins,
        }
    }

    /// The most the proximity and phrase bonuses can add to a passage whose text holds
    /// the query terms `present` (bit `i`: term `i`).
    #[inline(always)]
    pub(super) fn pair_bonus(&self, present: u32) -> f32 {
        self.pair_bounds
            .iter()
            .filter(|(mask, _)| present & mask == *mask)
            .map(|(_, bound)| bound)
            .sum()
    }

    /// The most a hit of document `d` can score, from its terms' summaries: each term's
    /// largest frequency per field in any one of its passages, over the length factors
    /// of the document's shortest passage per field; the bonuses of the term pairs
    /// found in its text; a parent's share of as much; and the most the document score
    /// can add (title, name and description frequencies as stored, headings and text
    /// at most the largest in a passage times the passages that hold the term; a term
    /// without a summary at its idf, where BM25F saturates). Every score part grows
    /// with each frequency and shrinks with each length ([`super::prunes`]).
    #[inline(always)]
    pub(super) fn document_bound(
        &self,
        cursors: &[TermCursor<'_>],
        d: u32,
        stats: &ArchivedDocumentStats,
    ) -> (f32, f32, f32) {
        let end = stats.first_passage.to_native() + stats.passage_count.to_native();
        // Field weights over length factors, at the document's shortest passage, and
        // the heading bonus over its length factor: only for a term without impacts
        // here (four divisions, for every document the terms reach).
        let shortest = || -> ([f32; PASSAGE_FIELDS], f32) {
            let weighted = std::array::from_fn(|f| {
                let len = stats.shortest[f].to_native() as f32;
                let (base, slope) = self.passage_norm[f];
                self.params.passage_weights[f] / (base + slope * len).max(1e-3)
            });
            let len = stats.shortest[P_HEADING].to_native() as f32;
            let (base, slope) = self.passage_norm[P_HEADING];
            (
                weighted,
                self.params.heading_bonus / (base + slope * len).max(1e-3),
            )
        };
        let mut at_shortest: Option<([f32; PASSAGE_FIELDS], f32)> = None;
        // The document's own lengths, for the summarised terms' document score.
        let mut document_weighted: Option<[f32; DOCUMENT_FIELDS]> = None;
        let mut passage_bound = 0.0;
        let mut document_bound = 0.0;
        let mut present = 0u32;
        // The passages that hold a term, when every term found in the document's
        // passages says which: with one, no parent section of it can match too.
        let mut holding: Option<u64> = Some(0);
        for (i, c) in cursors.iter().enumerate() {
            let fields = c.document.filter(|e| e.document == d).map(|e| e.tf);
            let run = c.run.filter(|r| r.document == d && c.summaries.is_some());
            let in_passages = if c.summaries.is_some() {
                run.is_some()
            } else {
                c.passage.is_some_and(|e| e.passage < end)
            };
            // With impacts, the term's best passage and its document score are stored
            // under these parameters: no division. (The bytes hold for a document the
            // term's passages reach; title, name and description are in them.)
            if let Some(run) = run.filter(|r| {
                self.impacts && r.own.is_some() && r.best < u8::MAX && r.document_score < u8::MAX
            }) {
                passage_bound += c.passage_scale * f32::from(run.best) / IMPACT_SCALE;
                document_bound += c.document_scale * f32::from(run.document_score) / IMPACT_SCALE;
                present |= u32::from(run.most[P_BODY] > 0) << i;
                holding = holding.zip(run.own).map(|(all, own)| all | own);
                continue;
            }
            if let Some(run) = run {
                let most = &run.most;
                let (weighted, heading_norm) = *at_shortest.get_or_insert_with(shortest);
                let mut tf = 0.0;
                for f in 0..PASSAGE_FIELDS {
                    tf += most[f] as f32 * weighted[f];
                }
                let scale = c.weight * c.passage_idf;
                passage_bound += scale * tf / (self.params.k1 + tf);
                if most[P_HEADING] > 0 {
                    passage_bound += scale * heading_norm;
                }
                present |= u32::from(most[P_BODY] > 0) << i;
                holding = holding.zip(run.own).map(|(all, own)| all | own);
            } else if in_passages {
                passage_bound += c.passage_bound;
                present |= 1 << i;
                holding = None;
            }
            if !in_passages && fields.is_none() {
                continue;
            }
            if c.summaries.is_none() {
                document_bound += c.weight * c.document_idf;
                continue;
            }
            let mut frequencies = fields.map_or([0.0; DOCUMENT_FIELDS], |tf| tf.map(|n| n as f32));
            if let Some(run) = run {
                let holding = run
                    .own
                    .map_or(stats.passage_count.to_native(), u64::count_ones)
                    as f32;
                frequencies[D_HEADINGS] = run.most[P_HEADING] as f32 * holding;
                frequencies[D_BODY] = run.most[P_BODY] as f32 * holding;
            }
            let weights = document_weighted.get_or_insert_with(|| {
                std::array::from_fn(|f| {
                    let len = stats.lengths[f].to_native() as f32;
                    let (base, slope) = self.document_norm[f];
                    self.params.doc_weights[f] / (base + slope * len).max(1e-3)
                })
            });
            let mut tf = 0.0;
            for f in 0..DOCUMENT_FIELDS {
                tf += frequencies[f] * weights[f];
            }
            document_bound += c.weight * c.document_idf * tf / (self.params.doc_k1 + tf);
        }
        let bonus = self.pair_bonus(present);
        let parent = if holding.is_some_and(|own| own & own.wrapping_sub(1) == 0) {
            1.0
        } else {
            1.0 + self.params.parent_share
        };
        (
            parent,
            passage_bound + bonus,
            self.params.doc_weight * document_bound,
        )
    }

    /// A second, tighter bound for a document that passes the first: per passage that
    /// holds a query term, what its terms' impacts and the bonuses of the pairs it holds
    /// give, at the best such passage, rather than each term at its best passage. The
    /// summary bound takes each term at its best, and in a catalog where every passage
    /// holds the query's words those are seldom one passage (at 100,000 documents it
    /// left about ten times the documents that can make the page). `None` when a term
    /// found in the document has no impacts there.
    #[inline(always)]
    pub(super) fn impact_bound(&self, cursors: &[TermCursor<'_>], d: u32, end: u32) -> Option<f32> {
        // Per term whose summary has an entry here: the passages it holds (any field),
        // their impacts, its weight times idf, and its bit; gathered once, not once per
        // passage.
        let mut lanes = [(0u64, &[][..], 0f32, 0u32); query::MAX_TERMS];
        let mut n = 0;
        let mut union = 0u64;
        for (t, c) in cursors.iter().enumerate() {
            match (&c.summaries, c.run.as_ref().filter(|r| r.document == d)) {
                (Some(summaries), Some(run)) => {
                    union |= run.own?;
                    *lanes.get_mut(n)? = (run.any, summaries.impacts(run), c.passage_scale, 1 << t);
                    n += 1;
                }
                (Some(_), None) => {}
                (None, _) => {
                    if c.passage.is_some_and(|e| e.passage < end) {
                        return None;
                    }
                }
            }
        }
        let mut most = 0f32;
        let mut bits = union;
        while bits != 0 {
            let i = bits.trailing_zeros();
            bits &= bits - 1;
            let below = (1u64 << i) - 1;
            let mut score = 0.0;
            let mut present = 0u32;
            for &(any, impacts, scale, bit) in &lanes[..n] {
                if any >> i & 1 == 0 {
                    continue;
                }
                let k = (any & below).count_ones() as usize;
                let byte = impacts.get(k).copied().unwrap_or(u8::MAX);
                score += if byte == u8::MAX {
                    f32::INFINITY
                } else {
                    scale * f32::from(byte) / IMPACT_SCALE
                };
                present |= bit;
            }
            let bonus = self.pair_bonus(present);
            most = most.max(score + bonus);
        }
        Some(most)
    }
}

/// Past the documents every query term's records rule out, counting them, in one loop over
/// the terms' records ([`RecordWalk::run`]). Made once per ranking where every term has a
/// summary with impacts.
pub(super) struct RecordWalk<'a> {
    n: usize,
    summaries: [Option<Summaries<'a>>; query::MAX_TERMS],
    /// Per term: `passage_scale` and `document_scale`.
    scales: [(f32, f32); query::MAX_TERMS],
    /// Per term: the record it is on ([`NO_RECORD`] past the last), its number, and the
    /// next document whose title, name or description holds the term.
    records: [Record; query::MAX_TERMS],
    at: [usize; query::MAX_TERMS],
    titles: [u32; query::MAX_TERMS],
}

/// A record past every document.
const NO_RECORD: Record = Record {
    document: u32::MAX,
    own: 0,
    best: 0,
    document_score: 0,
    cold: 0,
};

impl<'a> RecordWalk<'a> {
    /// For cursors that all walk summaries (`None` otherwise).
    pub(super) fn new(cursors: &[TermCursor<'a>]) -> Option<Self> {
        let mut walk = RecordWalk {
            n: cursors.len(),
            summaries: [None; query::MAX_TERMS],
            scales: [(0.0, 0.0); query::MAX_TERMS],
            records: [NO_RECORD; query::MAX_TERMS],
            at: [0; query::MAX_TERMS],
            titles: [u32::MAX; query::MAX_TERMS],
        };
        if walk.n > query::MAX_TERMS {
            return None;
        }
        for (t, c) in cursors.iter().enumerate() {
            walk.summaries[t] = Some(c.summaries?);
            walk.scales[t] = (c.passage_scale, c.document_scale);
        }
        Some(walk)
    }

    /// Counts the documents the terms' records rule out, from where the cursors are, and
    /// stops at the first one it cannot. A document every query term in which has an
    /// impact record is bounded from the records' bytes alone (as
    /// [`Bounds::document_bound`] bounds it from the whole entries); one the bound rules
    /// out has its hits counted from the records' masks into `total`. The cursors are left
    /// on the document it stopped at, whose entries the ranking then reads.
    ///
    /// (Nearly every document a common word reaches ends here, most of them in a row: a
    /// loop of its own over the terms' records, rather than the ranking's loop over the
    /// cursors, took 6–8% of the CPU time and 10.5% of the instructions off a search at
    /// 100,000 documents.)
    pub(super) fn run(
        &mut self,
        bounds: &Bounds<'_, '_>,
        cursors: &mut [TermCursor<'a>],
        documents: &[ArchivedDocumentStats],
        end: u32,
        threshold: f32,
        total: &mut usize,
    ) {
        let n = self.n;
        self.load(cursors);
        let mut moved = false;
        loop {
            let mut d = u32::MAX;
            for t in 0..n {
                d = d.min(self.records[t].document).min(self.titles[t]);
            }
            if d >= end {
                break;
            }
            let Some(stats) = documents.get(d as usize) else {
                break;
            };
            let passage_count = stats.passage_count.to_native();
            let heading_joins = stats.heading_joins.to_native();
            // More passages than a word: the records point at masks of several words.
            let long = passage_count > MASK_PASSAGES;
            let mut titled = false;
            let (mut passage_bound, mut document_bound) = (0f32, 0f32);
            let (mut present, mut own) = (0u32, 0u64);
            let mut bounded = true;
            for t in 0..n {
                let in_fields = self.titles[t] == d;
                titled |= in_fields;
                let r = &self.records[t];
                if r.document == d {
                    let (passage_scale, document_scale) = self.scales[t];
                    bounded &= if long { r.wide_bounded() } else { r.bounded() };
                    passage_bound += passage_scale * f32::from(r.best) / IMPACT_SCALE;
                    document_bound += document_scale * f32::from(r.document_score) / IMPACT_SCALE;
                    present |= u32::from(r.in_body()) << t;
                    own |= r.own;
                } else {
                    bounded &= !in_fields;
                }
            }
            if !bounded {
                break;
            }
            // At most one passage holds a term (no population count: see `count_masked`).
            // (A long document's parent share is bounded as if several passages held a
            // term: its masks are not read unless needed.)
            let holding = if long { u64::MAX } else { own };
            let parent = if holding & holding.wrapping_sub(1) == 0 {
                1.0
            } else {
                1.0 + bounds.params.parent_share
            };
            let bound = parent * (passage_bound + bounds.pair_bonus(present))
                + bounds.params.doc_weight * document_bound;
            // (Widened as in the ranking; a NaN bound is not below.)
            let below = bound * 1.0001 + 1e-6 < threshold;
            if !below {
                break;
            }
            let matched = if crate::model::maskable_of(passage_count, heading_joins) {
                count_masked(own, heading_joins, stats.chunk_joins.to_native())
            } else {
                match self.count_long(bounds, d, stats) {
                    Some(matched) => {
                        super::tests::long_skipped();
                        matched
                    }
                    None => break,
                }
            };
            super::tests::skipped();
            moved = true;
            for (t, c) in cursors.iter_mut().enumerate().take(n) {
                if self.titles[t] == d {
                    c.document = c.documents.next();
                    self.titles[t] = c.document.map_or(u32::MAX, |e| e.document);
                }
                if self.records[t].document == d {
                    self.at[t] += 1;
                    self.records[t] = self.summaries[t]
                        .and_then(|s| s.record(self.at[t]))
                        .unwrap_or(NO_RECORD);
                }
            }
            let fallback = matched == 0 && titled && passage_count > 0;
            *total += if fallback { 1 } else { matched };
        }
        self.store(cursors, moved);
    }

    /// The hits of a document of more than a word of passages, from its terms' masks of
    /// several words and its joins; `None` when it has none to count from (joins not
    /// recorded, or a mask missing or of another length: damaged bytes).
    fn count_long(
        &self,
        bounds: &Bounds<'_, '_>,
        d: u32,
        stats: &ArchivedDocumentStats,
    ) -> Option<usize> {
        let words = long_joins_words(stats)?;
        let start = usize::try_from(stats.heading_joins.to_native()).ok()?;
        let joins = bounds
            .long_joins
            .get(start..start.checked_add(words.checked_mul(2)?)?)?;
        let mut masks: [&[[u8; 8]]; query::MAX_TERMS] = [&[]; query::MAX_TERMS];
        for (t, mask) in masks.iter_mut().enumerate().take(self.n) {
            let record = &self.records[t];
            if record.document == d {
                *mask = self.summaries[t]?
                    .wide(record)
                    .filter(|m| m.len() == words)?;
            }
        }
        let masks = &masks[..self.n];
        Some(count_masked_words(
            words,
            |k| {
                masks
                    .iter()
                    .filter_map(|m| m.get(k))
                    .fold(0, |own, word| own | u64::from_le_bytes(*word))
            },
            |k| (joins[k].to_native(), joins[words + k].to_native()),
        ))
    }

    /// Where the cursors are.
    fn load(&mut self, cursors: &[TermCursor<'a>]) {
        for (t, c) in cursors.iter().enumerate().take(self.n) {
            self.records[t] = c.record.unwrap_or(NO_RECORD);
            self.at[t] = c.at;
            self.titles[t] = c.document.map_or(u32::MAX, |e| e.document);
        }
    }

    /// The cursors to where the walk is (their document entries are already there), if it
    /// `moved`.
    fn store(&self, cursors: &mut [TermCursor<'a>], moved: bool) {
        if !moved {
            return;
        }
        for (t, c) in cursors.iter_mut().enumerate().take(self.n) {
            if c.at != self.at[t] {
                c.at = self.at[t];
                c.record = self.summaries[t].and_then(|s| s.record(self.at[t]));
                c.run = None;
            }
        }
    }
}
