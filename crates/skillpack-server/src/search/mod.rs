//! Full-text search over the baked index ([`SearchIndex`](crate::model::SearchIndex)),
//! read in place: nothing is loaded or built at start-up, and a query allocates only in
//! proportion to its own size and the number of hits asked for.
//!
//! # Ranking model
//!
//! A hit is a *passage* (the text under one heading, within one chunk), scored as
//!
//! ```text
//! own   = BM25F(passage: heading, heading path, text)
//!       + proximity(query words close together in the passage)
//! score = own + parent_share · own(the parent section's passage)
//!       + doc_weight · BM25F(document: title, name, description, headings, text)
//! ```
//!
//! so that a section wins when its own words match and its document is about the query.
//! The parent's share is the section/page aggregation one level down: a subsection is read
//! in the context its parent's text sets up ("Running Single Tests" under "Running a Subset
//! of Tests by Name"), so when both match, the more specific section is not outranked by
//! the general one merely for being shorter on words.
//! Passages of one chunk collapse into one hit (the best passage names the section), and
//! the second, third… hit of the same document is damped (`same_document_decay`) so that
//! the first page shows several documents rather than one long one.
//!
//! Evaluation: `scripts/search-eval` (relevance set in `benches/relevance/`); latency:
//! `cargo bench --bench search`.
//!
//! # How a query runs
//!
//! Document-at-a-time: one cursor per query term walks its passage postings and its
//! document postings together; both lists are in document order, so each document is
//! finished (its passages scored, collapsed, damped) before the next begins, and only the
//! best `offset + limit` hits are kept. Once that many are in, the lowest of them is the
//! *threshold* a document must be able to reach to be read further.
//!
//! A term whose passage list is long (common words) also has a *document summary*
//! ([`crate::postings::Summary`]): per document its list reaches, where the document's run
//! of entries lies, the term's largest frequency per passage field, and which passages hold
//! it (a bit mask). Such a term's cursor walks its summary rather than its entries, and a
//! document is first bounded from its terms' summaries, the document's shortest passages
//! and its title, name and description frequencies, with `Params` at query time
//! ([`prunes`] says when the bound holds). Under the parameters the index's *impacts* were
//! computed for (`Params::default`), a summary also gives each passage's score for the
//! term, its best one and the term's document score (rounded up), so the bound needs no
//! division, and a document that passes it is bounded again passage by passage: the terms
//! each passage holds and the bonuses of their pairs, at the best passage, rather than
//! each term at its own best. The first bound and the count need only a summary's
//! fixed-width record (document, mask, best impact, document score), so for a document
//! where every query term has one they are all that is read; the rest of an entry is read
//! only for a document that passes. A document that cannot reach the threshold is
//! only counted: its hits (`total`) follow from the masks of its terms' passages and the
//! document's section and chunk joins ([`count_masked`]), and its entries are never read.
//! Only the documents that could make the page are read entry by entry, as a term without a
//! summary always is. There, a document's passage entries are read once: they give its
//! passages' BM25F and, summed, its own body and headings frequencies; proximity and phrases
//! (the occurrences) are read only for a document whose best passage, with every bonus at
//! its most, could still make the page. The bounds are never below a score, so the answer is
//! the one reading every entry gives (a unit test compares the two).
//!
//! A query that reaches tens of thousands of documents is ranked in parts at once when
//! helper threads are free ([`split`]): each part walks a run of consecutive documents as
//! above, and their pages are merged into the one a single walk gives.

mod bound;
pub mod fuse;
mod split;
pub use split::set_threads;
pub mod query;
pub mod snippet;

use std::borrow::Cow;
use std::ops::Range;
use std::sync::Arc;

use crate::analyze::Analyzer;
use crate::catalog::{Catalog, Content, Damaged};
use crate::model::{
    ArchivedCatalog, ArchivedDocument, ArchivedSearchIndex, D_BODY, D_HEADINGS, DOCUMENT_FIELDS,
    Heading, NO_HEADING, P_BODY, P_HEADING, PASSAGE_FIELDS, PassageRow, Passages,
};
use crate::postings::{
    DocumentCursor, DocumentEntry, IMPACT_PARAM_COUNT, OccurrenceBlock, Occurrences, PassageCursor,
    PassageEntry, Record, Summaries, Summary,
};
use crate::tables::DocumentTables;
use bound::Bounds;
pub use query::{MAX_QUERY_BYTES, Query};

/// The most hits one query can page through; past it, a narrower query is the answer.
pub const MAX_RESULTS: usize = crate::contract::SEARCH_MAX_RESULTS;
/// Occurrences of one term looked at per passage for proximity.
const MAX_OCCURRENCES: usize = 24;
/// Set in a candidate's occurrence block length when the block stores byte offsets.
const OFFSETS: u32 = 1 << 31;

/// Which documents to search.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Kind {
    /// Skill documents and their references.
    Skills,
    /// Docs.
    Docs,
    #[default]
    All,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Skills => "skills",
            Kind::Docs => "docs",
            Kind::All => "all",
        }
    }
}

/// The ranking model's parameters. [`Params::default`] is the tuned model; the evaluation
/// harness varies them.
#[derive(Debug, Clone, PartialEq)]
pub struct Params {
    pub k1: f32,
    /// Passage fields: heading, heading path, text.
    pub passage_weights: [f32; PASSAGE_FIELDS],
    pub passage_b: [f32; PASSAGE_FIELDS],
    pub doc_k1: f32,
    /// Document fields: title, name, description, headings, text.
    pub doc_weights: [f32; DOCUMENT_FIELDS],
    pub doc_b: [f32; DOCUMENT_FIELDS],
    /// Weight of the document score in a passage's score.
    pub doc_weight: f32,
    /// Weight of the proximity bonus.
    pub proximity: f32,
    /// Query words further apart than this (in tokens) earn no proximity bonus.
    pub proximity_window: u32,
    /// Score factor for each further hit of the same document.
    pub same_document_decay: f32,
    /// Query weight of an identifier part (`hash` in `HashMap`) relative to a word.
    pub part_weight: f32,
    /// Factor on the query weight of a term written as code (in backticks, or a
    /// code-shaped token: `snake_case`, `E-PAY-409`, `SQLSTATE`, `-> !`): an identifier
    /// or error code names the thing asked about; the prose around it only describes it.
    pub code_weight: f32,
    /// Query weight of a whole identifier or compound (`read_to_string`, `hand-written`),
    /// whose parts are query terms too.
    pub whole_weight: f32,
    /// A bonus of `heading_bonus · idf` for each query term in a passage's own heading,
    /// outside the saturation of BM25F: words of the heading say what the section is
    /// about, however often its text repeats other words.
    pub heading_bonus: f32,
    /// Share of its parent section's own score that a section adds to its own (when the
    /// parent's text matches too).
    pub parent_share: f32,
    /// Section choice weighs a query word by its idf among the document's sections, the
    /// BM25 idf with the document's sections as the collection (`ln(1 + (n - df + 0.5) /
    /// (df + 0.5))`); `false`: by the share of the document's sections that lack it (0 for
    /// a word in every section, so that sections which all hold every query word tie).
    pub section_idf: bool,
    /// Section choice counts an identifier or compound written in the query (`HashMap`,
    /// `skill-creator`) as common in the document as its most common spelling, whole or
    /// in words ("hash", "map"): docs write `HashMap` in code and "hash map" in prose, and
    /// which of the two a section uses does not set it apart. `false`: each spelling is
    /// counted on its own.
    pub one_name_spellings: bool,
    /// With alternative phrasings ([`fuse`]), the query's first hit stays first when the
    /// query alone leads clearly and no rephrasing that puts another hit first leads more
    /// clearly; `false`: rank fusion alone decides (as before issue 47).
    pub keep_clear_winner: bool,
    /// Section choice names a subsection over its parent section when the subsection's
    /// text holds every query word the parent's own text holds: the answer is in the more
    /// specific section, and the parent is its context ("Running Single Tests" under
    /// "Running a Subset of Tests by Name"). `false`: the local score alone decides.
    pub prefer_deeper: bool,
    /// With alternative phrasings ([`fuse`]), the section that speaks for a document is the
    /// one most phrasings name first in it, when more of them name it than name the best
    /// phrasing's; `false`: the best phrasing's section (as before issue 47).
    pub vote_sections: bool,
    /// With alternative phrasings, a query made only of code (a pasted key, flag, command
    /// or identifier: [`query::code_only`]) keeps its first hit first whatever its margin,
    /// under the same override as `keep_clear_winner`: the docs hold such a line as written,
    /// and several pages can hold it verbatim (a setting and the guides that use it), so
    /// its first hit need not lead by much to be the exact match. `false`: only a clear
    /// lead keeps the query's winner.
    pub keep_code_winner: bool,
    /// With `vote_sections`, phrasings vote for the section down the document's outline
    /// ([`fuse`]): from the whole document into the section that holds most of their first
    /// hits in it (itself or under it), until none lies deeper. A phrasing that names a
    /// section above another's does not vote against it, so a subsection refines its parent
    /// (the query's clear winner too, within its own section), and two phrasings naming two
    /// steps of one procedure outvote one that names another part of the page. `false`:
    /// first hits are counted by section alone, and the query's clear winner keeps its
    /// section as named.
    pub tree_vote: bool,
    /// The query keeps its clear winner (`keep_clear_winner`) only when the winner's passage
    /// holds [`fuse::VERBATIM_RUN`] of the query's words in a row as written (all of them,
    /// when fewer): the exact match of a pasted error, a phrase or a heading. A question's
    /// words can lead clearly by landing, scattered, in an unrelated section ("a made-up
    /// reply … contacting the website" in a code of conduct), and rephrasings that agree
    /// elsewhere should then decide. A query of code alone (`keep_code_winner`) needs no
    /// run. `false`: any clear lead keeps the winner.
    pub winner_verbatim: bool,
    /// With alternative phrasings ([`fuse`]), the part of a phrasing's vote for a hit that
    /// comes from the hit's score against the phrasing's own first hit; the rest comes
    /// from its rank, as reciprocal rank fusion gives it. 0: ranks alone (as before).
    pub score_share: f32,
    /// With alternative phrasings, the query keeps its first hit first, whatever its margin
    /// and whatever the rephrasings lead, when that hit holds [`fuse::PASTED_RUN`] or more
    /// of the query's words in a row as written and the query's second hit does not: a
    /// pasted error or log line found where the docs quote it. `false`: such a query keeps
    /// its winner only by the rules above.
    pub keep_pasted_winner: bool,
}

impl Params {
    /// The parameters a summary's impacts depend on, laid out as the index keeps them
    /// ([`crate::postings::IMPACT_PARAMS`]): impacts are used only where the two are equal.
    pub fn impact_params(&self) -> [f32; IMPACT_PARAM_COUNT] {
        let [w0, w1, w2] = self.passage_weights;
        let [b0, b1, b2] = self.passage_b;
        let [d0, d1, d2, d3, d4] = self.doc_weights;
        let [c0, c1, c2, c3, c4] = self.doc_b;
        [
            self.k1,
            w0,
            w1,
            w2,
            b0,
            b1,
            b2,
            self.heading_bonus,
            self.doc_k1,
            d0,
            d1,
            d2,
            d3,
            d4,
            c0,
            c1,
            c2,
            c3,
            c4,
        ]
    }
}

impl Default for Params {
    fn default() -> Self {
        Params {
            k1: 1.2,
            passage_weights: [3.0, 1.0, 1.0],
            passage_b: [0.3, 0.3, 0.5],
            doc_k1: 1.2,
            doc_weights: [4.0, 2.0, 3.0, 1.5, 1.0],
            doc_b: [0.3, 0.3, 0.5, 0.5, 0.75],
            doc_weight: 2.0,
            proximity: 0.5,
            proximity_window: 8,
            same_document_decay: 0.9,
            part_weight: 0.6,
            code_weight: 1.25,
            whole_weight: 0.5,
            heading_bonus: 1.0,
            parent_share: 0.25,
            section_idf: true,
            one_name_spellings: true,
            keep_clear_winner: true,
            prefer_deeper: true,
            vote_sections: true,
            keep_code_winner: true,
            tree_vote: true,
            winner_verbatim: true,
            score_share: 0.75,
            keep_pasted_winner: true,
        }
    }
}

/// A view of a catalog to search: the archive and the content store it points into. Works
/// on the baked catalog and on any archive compiled in-process (tests, benchmarks).
#[derive(Clone, Copy)]
pub struct Index<'a> {
    pub archive: &'a ArchivedCatalog,
    pub content: Content<'a>,
}

impl std::fmt::Debug for Index<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Index")
            .field("passages", &self.archive.search.passages.len())
            .field("terms", &self.archive.search.term_count.to_native())
            .finish()
    }
}

impl From<&Catalog> for Index<'static> {
    fn from(catalog: &Catalog) -> Self {
        Index {
            archive: catalog.archive(),
            content: catalog.content(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Request<'q> {
    pub query: &'q str,
    pub kind: Kind,
    /// Hits to skip (pagination).
    pub offset: usize,
    pub limit: usize,
    /// Alternative phrasings of the same need, whose rankings are fused with the query's
    /// ([`fuse`]); empty for a plain search.
    pub also: &'q [&'q str],
}

/// One ranked hit: a chunk, and the most specific section in it that matched.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    pub document: u32,
    pub passage: u32,
    pub chunk: u32,
    /// Outline index of the section's heading; `None` for text before the first heading.
    pub heading: Option<u32>,
    pub score: f32,
    /// Byte range of the snippet in the document text.
    pub snippet: Range<usize>,
    /// In a fused search's phrasing rankings, the snippet is chosen only for the hits the
    /// page shows ([`fuse::search`]): until then, which phrasing ranked the hit (0: the
    /// query) and its place in that ranking, and `snippet` is empty.
    pub(crate) unchosen: Option<(usize, usize)>,
}

#[derive(Debug, Clone, Default)]
pub struct Results {
    /// Hits `offset..offset + limit` of the ranking.
    pub hits: Vec<Hit>,
    /// Matching hits in total (at most [`MAX_RESULTS`] are reachable).
    pub total: usize,
    /// More hits follow this page.
    pub has_more: bool,
    /// Query words that occur nowhere in the catalog (they were ignored).
    pub unknown: Vec<String>,
    /// Common words (stopwords) the query searched and the index holds nowhere: it holds
    /// them only in code, headings and titles ([`query::Query::common`]).
    pub common: Vec<String>,
    /// The query held no word to search for (empty, or only punctuation).
    pub empty_query: bool,
    /// The first hit of the ranking stands clearly above the rest: a query alone scores
    /// it at least [`CLEAR_LEAD_MARGIN`] times the second (or finds nothing else); fused
    /// phrasings ([`fuse`]) put it first in more than half of their rankings. Says nothing
    /// about this ranking's order; a query's own clear lead is what fusion keeps first.
    pub clear_lead: bool,
}

/// How far a query's first hit must score above its second to lead clearly, when the query
/// is alone. Chosen on the tuning split to be at least as often right as the rule for
/// fused rankings: where the rule held, the first hit lay inside the expected section for
/// 38 of 44 questions with this margin alone (86%; 64% of all 104 questions) and for 70 of
/// 84 with the majority of the agent's rephrasings (83%; 76% of all).
pub const CLEAR_LEAD_MARGIN: f32 = 1.3;

/// A scored passage waiting to become a hit.
#[derive(Clone, Copy)]
struct Candidate {
    passage: u32,
    chunk: u32,
    heading: u32,
    /// The outline index of the section `heading` is part of.
    parent: u32,
    score: f32,
    /// The passage's score for choosing among the sections of its document.
    local: f32,
    /// Where its occurrence refs start in their arena ([`Refs`]): one per query term.
    refs: u32,
}

/// Where the occurrence block of each query term in a passage lies in the postings bytes
/// (`(0, 0)` when the term is absent), with [`OFFSETS`] set in the length when the block
/// stores byte offsets: `n_terms` consecutive entries per candidate, which refers to them
/// by index. Offsets rather than slices, and out of the candidate, keep candidates small:
/// they are copied a lot.
type Refs = Vec<(u32, u32)>;

/// One phrasing ranked ([`Index::ranking`]): its results, and what choosing a hit's snippet
/// needs (the parsed query, the ranked candidates and their occurrence refs).
pub(super) struct Ranking {
    pub(super) results: Results,
    query: Query,
    candidates: Vec<Candidate>,
    refs: Refs,
}

impl Candidate {
    fn new(passage: u32, passages: &Passages<'_>, row: PassageRow) -> Self {
        let (chunk, heading, parent) = passages.place(row);
        Candidate {
            passage,
            chunk,
            heading,
            parent,
            score: 0.0,
            local: 0.0,
            refs: 0,
        }
    }
}

struct TermCursor<'a> {
    weight: f32,
    passage_idf: f32,
    document_idf: f32,
    passages: PassageCursor<'a>,
    documents: DocumentCursor<'a>,
    passage: Option<PassageEntry<'a>>,
    document: Option<DocumentEntry>,
    /// The term's frequencies in the document being ranked.
    frequencies: [u32; DOCUMENT_FIELDS],
    /// The most this term can add to a passage's BM25F and heading bonus.
    passage_bound: f32,
    /// `weight` times each idf, which the impacts of its summary are scaled by.
    passage_scale: f32,
    document_scale: f32,
    /// The term's document summary, when it has one and the ranking prunes by summaries
    /// ([`prunes`]): then `passage` is read only within a document being scored
    /// (`entered`), and `record` (number `at`) says what the next document the term
    /// reaches holds.
    summaries: Option<Summaries<'a>>,
    record: Option<Record>,
    at: usize,
    /// `record`'s whole entry, read only for a document that passes the first bound
    /// ([`TermCursor::read_run`]).
    run: Option<Summary>,
    list: &'a [u8],
    entered: bool,
}

impl<'a> TermCursor<'a> {
    /// A cursor at the start of term `t`'s lists, walking its summary when it has one and
    /// the ranking prunes ([`prunes`]).
    fn new(index: &'a ArchivedSearchIndex, t: &query::QueryTerm, pruning: bool) -> Self {
        let n_passages = index.passages.len();
        let n_documents = index.documents.len();
        let list = index.bytes(&t.entry.passage_postings);
        let mut passages = PassageCursor::new(list);
        let mut docs = DocumentCursor::new(index.bytes(&t.entry.document_postings));
        // (A summary whose parts do not fit in its bytes is not read.)
        let summaries = (pruning && !t.entry.summaries.is_empty())
            .then(|| Summaries::new(index.bytes(&t.entry.summaries)))
            .flatten();
        let record = summaries.and_then(|s| s.record(0));
        let passage = if summaries.is_some() {
            None
        } else {
            passages.next()
        };
        let document = docs.next();
        let passage_idf = idf(n_passages, t.entry.passage_df);
        let document_idf = idf(n_documents, t.entry.document_df);
        TermCursor {
            weight: t.weight,
            passage_idf,
            document_idf,
            passage_scale: t.weight * passage_idf,
            document_scale: t.weight * document_idf,
            passages,
            documents: docs,
            passage,
            document,
            frequencies: [0; DOCUMENT_FIELDS],
            passage_bound: 0.0,
            summaries,
            record,
            at: 0,
            run: None,
            list,
            entered: false,
        }
    }

    /// The next document the term's passages reach: its summary's, or its next entry's.
    #[inline]
    fn next_document(&self, passages: &Passages<'_>) -> Option<u32> {
        if self.summaries.is_some() {
            self.record.map(|r| r.document)
        } else {
            self.passage.map(|e| passages.document(e.passage))
        }
    }

    /// Past the summarised run of the current document, unread.
    #[inline]
    fn skip_run(&mut self) {
        if let (Some(summaries), Some(_)) = (self.summaries, self.record) {
            self.at += 1;
            self.record = summaries.record(self.at);
            self.run = None;
        }
    }

    /// At the first summary record of document `d` or later, where a walk over a later
    /// part of the documents starts ([`split`]).
    fn seek_record(&mut self, d: u32) {
        if let Some(summaries) = self.summaries
            && self.record.is_some_and(|r| r.document < d)
        {
            self.at = summaries.seek(self.at, d);
            self.record = summaries.record(self.at);
            self.run = None;
        }
    }

    /// Read the whole summary entry of document `d`, when the term's summary reaches it
    /// (`run`; `None` otherwise).
    #[inline]
    fn read_run(&mut self, d: u32) {
        self.run = match (self.summaries, self.record) {
            (Some(summaries), Some(record)) if record.document == d => summaries.summary(self.at),
            _ => None,
        };
    }

    /// Read the summarised run of document `d` (which starts at `first_passage`) from
    /// its entries, as a term without a summary is read (after [`TermCursor::read_run`]).
    #[inline]
    fn enter(&mut self, d: u32, first_passage: u32) {
        if self.record.is_some_and(|r| r.document == d) {
            // (Without its entry, from damaged bytes, the run is passed over unread.)
            self.passage = None;
            if let Some(run) = self.run.filter(|r| r.document == d) {
                self.passages = PassageCursor::resume(
                    self.list,
                    run.at as usize,
                    first_passage.wrapping_add(run.first),
                );
                self.passage = self.passages.next();
            }
            self.entered = true;
        }
    }

    /// Done with the document it entered: back to reading summaries.
    #[inline]
    fn leave(&mut self) {
        if self.entered {
            self.entered = false;
            self.passage = None;
            self.skip_run();
        }
    }
}

/// Whether the ranking can skip a document by its terms' summaries under these parameters:
/// the bound ([`Index::rank`]) assumes that every score part grows with each frequency and
/// shrinks with each length, and that a document found only by its title counts one hit,
/// which hold for weights, saturations and length factors in their usual ranges. A quoted
/// phrase that must match filters passages by their positions, which a summary does not
/// hold. Otherwise every document is read, as before summaries.
fn prunes(query: &Query, params: &Params) -> bool {
    let finite_non_negative = |x: f32| x.is_finite() && x >= 0.0;
    !query.strict
        && query
            .terms
            .iter()
            .all(|t| t.weight.is_finite() && t.weight > 0.0)
        && params.k1.is_finite()
        && params.k1 > 0.0
        && params.doc_k1.is_finite()
        && params.doc_k1 > 0.0
        && params
            .passage_weights
            .iter()
            .all(|&w| finite_non_negative(w))
        && params.doc_weights.iter().all(|&w| finite_non_negative(w))
        && params.passage_b.iter().all(|&b| (0.0..=1.0).contains(&b))
        && params.doc_b.iter().all(|&b| (0.0..=1.0).contains(&b))
        && finite_non_negative(params.heading_bonus)
        && finite_non_negative(params.proximity)
        && finite_non_negative(params.doc_weight)
        && finite_non_negative(params.parent_share)
        && (0.0..=1.0).contains(&params.same_document_decay)
}

/// The hits among a document's matching passages `own` (bit `i`: passage `first_passage +
/// i`), grouped as [`group_hits`] and [`count_hits`] group them: a passage joins the
/// matching passage before it when every passage from that one to it shares the heading,
/// or the chunk, of the passage before it (`heading_joins`, `chunk_joins`).
#[inline]
fn count_masked(own: u64, heading_joins: u64, chunk_joins: u64) -> usize {
    count_masked_words(1, |_| own, |_| (heading_joins, chunk_joins))
}

/// [`count_masked`] for a document of `words` × 64 passages at most: `own(k)`, and
/// `joins(k)` as `(heading_joins, chunk_joins)`, are word `k` of each (bit `i` of word
/// `i / 64`: passage `first_passage + i`).
fn count_masked_words(
    words: usize,
    own: impl Fn(usize) -> u64,
    joins: impl Fn(usize) -> (u64, u64),
) -> usize {
    // A passage joins the matching passage before it exactly when some earlier matching
    // passage reaches it through joined passages only (if one does, the nearest does: its
    // span is part of the farther one's). Which passages matching passages reach is a
    // carry through each run of joins, so the count is a few word operations, without a
    // loop or a branch per passage: this runs for nearly every document a query reaches.
    // Over one number of `words` × 64 bits: the last passage of a word seeds the first of
    // the next, and a run of joins that reaches a word's top carries into the next word's
    // addition. (For one word, as `count_masked`, both carries are constants and fold
    // away.)
    let (mut previous, mut carries, mut count) = (0u64, [false; 2], 0usize);
    for k in 0..words {
        let own = own(k);
        let seeds_from = own << 1 | previous;
        previous = own >> 63;
        let (heading, chunk) = joins(k);
        let reached = |joins: u64, carry: &mut bool| {
            let seeds = seeds_from & joins;
            // Adding a seed clears the run of joins from it up (the carry stops past the
            // run, or goes on into the next word).
            let (sum, over) = joins.overflowing_add(seeds);
            let (sum, carried) = sum.overflowing_add(u64::from(*carry));
            *carry = over | carried;
            (joins & !sum) | seeds
        };
        let [heading_carry, chunk_carry] = &mut carries;
        let joined = own & (reached(heading, heading_carry) | reached(chunk, chunk_carry));
        // (One population count: without the instruction in the baseline target, it is a
        // dozen operations.)
        count += (own & !joined).count_ones() as usize;
    }
    count
}

fn idf(n: usize, df: u32) -> f32 {
    let n = n as f32;
    let df = df as f32;
    (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
}

impl<'a> Index<'a> {
    pub fn search(&self, request: &Request<'_>) -> Results {
        self.search_with(request, &Params::default())
    }

    pub fn search_with(&self, request: &Request<'_>, params: &Params) -> Results {
        self.search_in(request, params, split::Threads::process())
    }

    /// [`Index::search_with`], taking threads from `threads`: the search holds one for
    /// itself while it runs, and may take free ones ([`split`]).
    fn search_in(
        &self,
        request: &Request<'_>,
        params: &Params,
        threads: split::Threads<'_>,
    ) -> Results {
        let _seat = threads.seat();
        if !request.also.is_empty() {
            return fuse::search(self, request, params, threads);
        }
        let mut ranking = self.ranking(request, params, threads);
        let mut hits = std::mem::take(&mut ranking.results.hits);
        for hit in &mut hits {
            self.choose_snippet(hit, &ranking);
        }
        Results {
            hits,
            ..ranking.results
        }
    }

    /// A search without `also`, its hits' snippets still to choose
    /// ([`Index::choose_snippet`]).
    fn ranking(
        &self,
        request: &Request<'_>,
        params: &Params,
        threads: split::Threads<'_>,
    ) -> Ranking {
        let index = &self.archive.search;
        let mut analyzer = Analyzer::new();
        let query = query::parse(index, request.query, params, &mut analyzer);
        let mut results = Results {
            unknown: query.unknown.clone(),
            common: query.common.clone(),
            empty_query: query.terms.is_empty()
                && query.unknown.is_empty()
                && query.common.is_empty(),
            ..Results::default()
        };
        if query.is_empty() || query.impossible {
            return Ranking {
                results,
                query,
                candidates: Vec::new(),
                refs: Vec::new(),
            };
        }
        // Two at least: whether the first leads clearly depends on the second.
        let keep = request
            .offset
            .saturating_add(request.limit)
            .clamp(2, MAX_RESULTS);
        let (ranked, refs, total) = self.rank(&query, request.kind, keep, params, threads);
        results.clear_lead = match ranked.as_slice() {
            [] => false,
            [_] => true,
            [first, second, ..] => first.score >= CLEAR_LEAD_MARGIN * second.score,
        };
        results.total = total;
        results.has_more = total.min(MAX_RESULTS) > request.offset.saturating_add(request.limit);
        results.hits = ranked
            .iter()
            .enumerate()
            .skip(request.offset)
            .take(request.limit)
            .map(|(place, c)| self.hit(c, place))
            .collect();
        Ranking {
            results,
            query,
            candidates: ranked,
            refs,
        }
    }

    /// The best `keep` candidates of documents of `kind`, best first, and how many there
    /// are in all: one walk over the documents, or, for a search that reaches enough of
    /// them while a core is free, a walk per part of them at once ([`split`]).
    fn rank(
        &self,
        query: &Query,
        kind: Kind,
        keep: usize,
        params: &Params,
        threads: split::Threads<'_>,
    ) -> (Vec<Candidate>, Refs, usize) {
        let range = self.kind_range(kind);
        let pruning = prunes(query, params) && !tests::exhaustive();
        match split::plan(threads, &self.archive.search, query, range.clone(), pruning) {
            Some(plan) => plan.run(keep, |span, shared| {
                self.rank_span(query, span, keep, params, pruning, Some(shared))
            }),
            None => self.rank_span(query, range, keep, params, pruning, None),
        }
    }

    /// [`Index::rank`] over the documents of `range` alone, pruning by summaries where
    /// `pruning` ([`prunes`]) allows. Ranked as one part of a split search, it also reads
    /// and raises the threshold the parts share: a hit below another part's full page cannot
    /// make the merged one.
    fn rank_span(
        &self,
        query: &Query,
        range: Range<u32>,
        keep: usize,
        params: &Params,
        pruning: bool,
        shared: Option<&split::Threshold>,
    ) -> (Vec<Candidate>, Refs, usize) {
        let index: &'a ArchivedSearchIndex = &self.archive.search;
        let documents = index.documents.as_slice();
        let passages = index.passages.reader();
        let mut cursors: Vec<TermCursor<'a>> = query
            .terms
            .iter()
            .map(|t| TermCursor::new(index, t, pruning))
            .collect();
        // Without a summarised term there is nothing to bound a document by before reading
        // it: the walk is the one before summaries.
        let pruning = pruning && cursors.iter().any(|c| c.summaries.is_some());
        let passage_document = |p: u32| passages.document(p);
        // Skip to the first document of the range.
        for cursor in &mut cursors {
            while cursor
                .passage
                .is_some_and(|e| passage_document(e.passage) < range.start)
            {
                cursor.passage = cursor.passages.next();
            }
            cursor.seek_record(range.start);
            while cursor.document.is_some_and(|e| e.document < range.start) {
                cursor.document = cursor.documents.next();
            }
        }
        let passage_avg: [f32; PASSAGE_FIELDS] = index.passage_avg_len.map(|v| v.to_native());
        let document_avg: [f32; DOCUMENT_FIELDS] = index.document_avg_len.map(|v| v.to_native());
        let pairs = proximity_pairs(query);
        let concepts = concepts(query);
        // A first bound for skipping documents that cannot make the page, known before their
        // entries are read: BM25 saturates below 1 (times idf), and the heading bonus peaks
        // on a one-word heading.
        let shortest_heading = 1.0 - params.passage_b[P_HEADING]
            + params.passage_b[P_HEADING] / passage_avg[P_HEADING].max(1.0);
        for c in &mut cursors {
            c.passage_bound = c.weight
                * c.passage_idf
                * (1.0 + params.heading_bonus / shortest_heading.max(1e-3));
        }
        let pair_idf =
            |&(a, b): &(usize, usize)| cursors[a].passage_idf.min(cursors[b].passage_idf);
        // What a passage holding each phrase earns (strict phrases filter instead).
        let phrase_pairs = if query.strict {
            Vec::new()
        } else {
            phrase_pairs(query)
        };
        let phrase_idf: Vec<f32> = phrase_pairs
            .iter()
            .map(|pairs| pairs.iter().map(pair_idf).sum())
            .collect();
        // The most proximity and phrases can add to a passage: per pair of neighbouring
        // words (and per phrase), the terms it needs in the text and what it earns at most
        // (the words adjacent); in all, what a passage with every term can earn.
        let mut pair_bounds: Vec<(u32, f32)> = pairs
            .iter()
            .map(|pair| (1 << pair.0 | 1 << pair.1, params.proximity * pair_idf(pair)))
            .collect();
        for (phrase, idf) in query.phrases.iter().zip(&phrase_idf) {
            let mask = phrase.terms.iter().fold(0u32, |m, &(t, _)| m | 1 << t);
            pair_bounds.push((mask, params.proximity * idf));
        }
        let proximity_bound = params.proximity
            * (pairs.iter().map(pair_idf).sum::<f32>() + phrase_idf.iter().sum::<f32>());

        // The best `keep` candidates so far, in ranking order.
        let mut top: Vec<Candidate> = Vec::with_capacity(keep * 2 + 8);
        let mut buffer: Vec<Candidate> = Vec::new();
        // The occurrence refs of `buffer`'s candidates, and of those kept in `top`.
        let (mut doc_refs, mut kept_refs): (Refs, Refs) = (Vec::new(), Vec::new());
        // Per candidate of `buffer`, the score each query term adds to it (`n_terms` a row).
        let n_terms = query.terms.len();
        let mut term_scores: Vec<f32> = Vec::new();
        // Per hit of a document: (its candidate in `buffer`, its best score).
        let mut groups: Vec<(usize, f32)> = Vec::new();
        let mut scores: Vec<f32> = Vec::new();
        let mut order: Vec<u32> = Vec::new();
        // The score a hit needs to make the top `keep` (known once `keep` hits are in).
        let mut threshold = f32::MIN;
        let postings = index.postings.as_slice();
        let postings_start = postings.as_ptr() as usize;
        let mut total = 0usize;
        let mut positions: Vec<Vec<u32>> = vec![Vec::new(); query.terms.len()];
        // The summaries' impacts hold for the parameters they were computed under.
        let impacts =
            pruning && params.impact_params() == index.impact_params.map(|v| v.to_native());
        let bounds = Bounds::new(
            params,
            &pair_bounds,
            &passage_avg,
            &document_avg,
            impacts,
            index.long_joins.as_slice(),
        );
        // Whether documents can be bounded from their terms' records alone. Most documents
        // a common word reaches: every query term that is in the document has an impact
        // record there, so the first bound is the records' bytes alone (as `document_bound`
        // computes it), and a document it rules out is counted from their masks without
        // reading anything else. The walk goes past those, and stops at each document whose
        // entries must be read.
        let quick = impacts && cursors.iter().all(|c| c.summaries.is_some());
        let mut walk = quick.then(|| bound::RecordWalk::new(&cursors)).flatten();
        loop {
            if let Some(shared) = shared {
                threshold = threshold.max(shared.get());
            }
            // A document entered to be scored is done.
            for c in cursors.iter_mut() {
                c.leave();
            }
            if let Some(walk) = &mut walk {
                walk.run(
                    &bounds,
                    &mut cursors,
                    documents,
                    range.end,
                    threshold,
                    &mut total,
                );
            }
            // The next document any cursor is on.
            let mut d = u32::MAX;
            for c in &cursors {
                if let Some(next) = c.next_document(&passages) {
                    d = d.min(next);
                }
                if let Some(e) = c.document {
                    d = d.min(e.document);
                }
            }
            if d == u32::MAX || d >= range.end {
                break;
            }
            let stats = &documents[d as usize];

            let first_passage = stats.first_passage.to_native();
            let end = first_passage + stats.passage_count.to_native();

            // With summaries, a document is first bounded by them: by each term's largest
            // frequencies in any one of its passages, the bonuses of the terms found in
            // its text, and the most the document score can add (each term's BM25F
            // saturates below its idf). One that cannot make the page has its hits counted
            // from the summaries' passage masks, and its entries are never read.
            if pruning {
                for c in cursors.iter_mut() {
                    c.read_run(d);
                }
                let titled = cursors
                    .iter()
                    .any(|c| c.document.is_some_and(|e| e.document == d));
                let (parent, passage_part, document_part) =
                    bounds.document_bound(&cursors, d, stats);
                // (Widened a little: the scores are summed in another order than this bound.)
                let below = |bound: f32| bound * 1.0001 + 1e-6 < threshold;
                let skip = below(parent * passage_part + document_part)
                    || (impacts
                        && bounds
                            .impact_bound(&cursors, d, end)
                            .is_some_and(|most| below(parent * most + document_part))
                        && tests::impact_skipped());
                if skip {
                    tests::skipped();
                    for c in cursors.iter_mut() {
                        if c.document.is_some_and(|e| e.document == d) {
                            c.document = c.documents.next();
                        }
                    }
                    // (Counted here, not in a function of its own: as one, the ranking
                    // measured 1-2% slower at 100,000 documents.)
                    let joins = (
                        stats.heading_joins.to_native(),
                        stats.chunk_joins.to_native(),
                    );
                    let maskable =
                        crate::model::maskable_of(stats.passage_count.to_native(), joins.0);
                    let matched = if maskable {
                        let mut own = 0u64;
                        for c in cursors.iter_mut() {
                            if c.summaries.is_some() {
                                if let Some(record) = c.record.filter(|r| r.document == d) {
                                    own |= record.own;
                                    c.skip_run();
                                }
                                continue;
                            }
                            while let Some(e) = c.passage.filter(|e| e.passage < end) {
                                if holds(&e) {
                                    own |= 1u64 << e.passage.wrapping_sub(first_passage).min(63);
                                }
                                c.passage = c.passages.next();
                            }
                        }
                        count_masked(own, joins.0, joins.1)
                    } else {
                        for c in cursors.iter_mut() {
                            c.enter(d, first_passage);
                        }
                        count_hits(query, &mut cursors, end, &passages, &mut positions)
                    };
                    let fallback = matched == 0 && titled && stats.passage_count.to_native() > 0;
                    total += if fallback { 1 } else { matched };
                    continue;
                }
                for c in cursors.iter_mut() {
                    c.enter(d, first_passage);
                }
            }

            // The document fields that only document postings hold (title, name,
            // description); its body and headings frequencies are summed below from the
            // passage entries, which are read once for both.
            // Skipped unread when even its first bound cannot make the page: only its hits
            // are counted.
            let mut first_bound = proximity_bound;
            let mut titled = false;
            for c in &cursors {
                let in_passages = c.passage.is_some_and(|e| e.passage < end);
                let in_fields = c.document.is_some_and(|e| e.document == d);
                titled |= in_fields;
                if in_passages || in_fields {
                    first_bound += params.doc_weight * c.weight * c.document_idf
                        / (1.0 + params.parent_share.max(0.0));
                }
                if in_passages {
                    first_bound += c.passage_bound;
                }
            }
            if (1.0 + params.parent_share.max(0.0)) * first_bound < threshold {
                for c in cursors.iter_mut() {
                    if c.document.is_some_and(|e| e.document == d) {
                        c.document = c.documents.next();
                    }
                }
                let matched = count_hits(query, &mut cursors, end, &passages, &mut positions);
                let fallback =
                    matched == 0 && titled && !query.strict && stats.passage_count.to_native() > 0;
                total += if fallback { 1 } else { matched };
                continue;
            }
            for c in cursors.iter_mut() {
                c.frequencies = match c.document.filter(|e| e.document == d) {
                    Some(e) => {
                        c.document = c.documents.next();
                        e.tf
                    }
                    None => [0; DOCUMENT_FIELDS],
                };
            }

            // Its passages, each scored by BM25F and its heading bonus; proximity and
            // phrases come once the document is known to be able to make the page.
            buffer.clear();
            term_scores.clear();
            doc_refs.clear();
            // Per query term, the document's passages that hold it in any field.
            let mut df = [0u32; query::MAX_TERMS];
            let mut most_bm25 = f32::MIN;
            loop {
                let p = cursors
                    .iter()
                    .filter_map(|c| c.passage.map(|e| e.passage))
                    .filter(|&p| p < end)
                    .min();
                let Some(p) = p else { break };
                let row = passages.row(p);
                let lengths = passages.lengths(row);
                let opens_section = passages.opens_section(row);
                let mut candidate = Candidate::new(p, &passages, row);
                let mut refs = [(0u32, 0u32); query::MAX_TERMS];
                let mut scores_here = [0f32; query::MAX_TERMS];
                let mut blocks = [OccurrenceBlock::default(); query::MAX_TERMS];
                let mut own = false;
                // Terms with occurrences in the text: only their pairs can earn proximity.
                let mut present = 0u32;
                for (i, c) in cursors.iter_mut().enumerate() {
                    if let Some(e) = c.passage.filter(|e| e.passage == p) {
                        present |= u32::from(!e.occurrences.is_empty()) << i;
                        c.frequencies[D_BODY] += e.tf[P_BODY];
                        if e.tf[P_HEADING] > 0 && opens_section {
                            c.frequencies[D_HEADINGS] += e.tf[P_HEADING];
                        }
                        own |= holds(&e);
                        df[i] += 1;
                        let mut tf = 0.0;
                        let norm = |f: usize| {
                            let len = lengths[f] as f32;
                            (1.0 - params.passage_b[f] + params.passage_b[f] * len / passage_avg[f])
                                .max(1e-3)
                        };
                        #[allow(clippy::needless_range_loop)] // `f` indexes parallel arrays
                        for f in 0..PASSAGE_FIELDS {
                            if e.tf[f] > 0 {
                                tf += params.passage_weights[f] * e.tf[f] as f32 / norm(f);
                            }
                        }
                        let mut score = c.weight * c.passage_idf * tf / (params.k1 + tf);
                        if e.tf[P_HEADING] > 0 {
                            score +=
                                params.heading_bonus * c.weight * c.passage_idf / norm(P_HEADING);
                        }
                        candidate.score += score;
                        scores_here[i] = score;
                        blocks[i] = e.occurrences;
                        let start = e.occurrences.bytes.as_ptr() as usize - postings_start;
                        let len = e.occurrences.bytes.len() as u32
                            | if e.occurrences.offsets { OFFSETS } else { 0 };
                        refs[i] = (start as u32, len);
                        c.passage = c.passages.next();
                    }
                }
                if !own || (query.strict && !phrases_match(query, &blocks, &mut positions)) {
                    continue;
                }
                let bonus_bound = bounds.pair_bonus(present);
                most_bm25 = most_bm25.max(candidate.score + bonus_bound);
                candidate.refs = doc_refs.len() as u32;
                doc_refs.extend_from_slice(&refs[..n_terms]);
                buffer.push(candidate);
                term_scores.extend_from_slice(&scores_here[..n_terms]);
            }

            // The document's score.
            let mut doc_score = 0.0;
            for c in &cursors {
                let frequencies = &c.frequencies;
                if frequencies.iter().all(|&n| n == 0) {
                    continue;
                }
                let mut tf = 0.0;
                #[allow(clippy::needless_range_loop)] // `f` indexes five parallel arrays
                for f in 0..DOCUMENT_FIELDS {
                    if frequencies[f] > 0 {
                        let len = stats.lengths[f].to_native() as f32;
                        let norm = 1.0 - params.doc_b[f] + params.doc_b[f] * len / document_avg[f];
                        tf += params.doc_weights[f] * frequencies[f] as f32 / norm.max(1e-3);
                    }
                }
                doc_score += c.weight * c.document_idf * tf / (params.doc_k1 + tf);
            }

            if buffer.is_empty() && doc_score > 0.0 && !query.strict {
                // The document matches only by its title, name or description: point at its
                // beginning.
                let first = stats.first_passage.to_native();
                if stats.passage_count.to_native() > 0 {
                    let mut candidate = Candidate::new(first, &passages, passages.row(first));
                    candidate.refs = doc_refs.len() as u32;
                    doc_refs.extend(std::iter::repeat_n((0, 0), n_terms));
                    buffer.push(candidate);
                    term_scores.extend(std::iter::repeat_n(0.0, n_terms));
                    most_bm25 = most_bm25.max(0.0);
                }
            }
            if buffer.is_empty() {
                continue;
            }
            // A document whose best possible hit cannot reach the top `keep` is only counted
            // (a hit scores at most its BM25F, every bonus, and a parent's share of as much).
            // (Widened a little: the scores are summed in another order than this bound.)
            let bound =
                params.doc_weight * doc_score + (1.0 + params.parent_share.max(0.0)) * most_bm25;
            if bound * 1.0001 + 1e-6 < threshold {
                group_hits(&buffer, &mut groups);
                total += groups.len();
                continue;
            }
            for (candidate, row) in buffer
                .iter_mut()
                .zip(term_scores.chunks_exact_mut(n_terms.max(1)))
            {
                let mut blocks = [OccurrenceBlock::default(); query::MAX_TERMS];
                for (block, &(start, len)) in blocks
                    .iter_mut()
                    .zip(&doc_refs[candidate.refs as usize..])
                    .take(n_terms)
                {
                    *block = occurrence_block(postings, start, len);
                }
                let mut scores_here = [0f32; query::MAX_TERMS];
                scores_here[..row.len()].copy_from_slice(row);
                // The bonuses count for section choice as the words they pair do: each
                // pair's share goes half to each of its two terms.
                let mut bonus = proximity(&pairs, &cursors, &blocks, params, &mut scores_here);
                for ((phrase, idf), pairs) in
                    query.phrases.iter().zip(&phrase_idf).zip(&phrase_pairs)
                {
                    if phrase_matches(phrase, &blocks, &mut positions) {
                        bonus += params.proximity * idf;
                        let share = params.proximity * idf / (2.0 * pairs.len().max(1) as f32);
                        for &(a, b) in pairs {
                            scores_here[a] += share;
                            scores_here[b] += share;
                        }
                    }
                }
                candidate.score += bonus;
                let len = row.len();
                row.copy_from_slice(&scores_here[..len]);
            }
            // Whether the document can make the page is known from its scores (a parent's
            // share adds at most `parent_share` of the best): which sections its hits name
            // is only worked out when it can.
            let most = buffer.iter().map(|c| c.score).fold(f32::MIN, f32::max);
            if most * (1.0 + params.parent_share.max(0.0)) + params.doc_weight * doc_score
                < threshold
            {
                group_hits(&buffer, &mut groups);
                total += groups.len();
                continue;
            }
            if params.one_name_spellings {
                let raw = df;
                for (i, parts) in concepts.iter().enumerate() {
                    for &j in parts {
                        df[i] = df[i].max(raw[j]);
                    }
                }
            }
            within_document(
                &mut buffer,
                &term_scores,
                stats.passage_count.to_native(),
                &df,
                params.section_idf,
            );
            inherit_from_parents(&mut buffer, params.parent_share);
            if params.prefer_deeper {
                prefer_deeper(&mut buffer, &doc_refs, n_terms);
            }
            group_hits(&buffer, &mut groups);
            total += groups.len();
            let best =
                groups.iter().map(|g| g.1).fold(f32::MIN, f32::max) + params.doc_weight * doc_score;
            if best < threshold {
                continue;
            }
            // The document's hits carry its best scores, best first; which sections they
            // name is decided by the local score, where words that every section of the
            // document shares count for little.
            scores.clear();
            scores.extend(groups.iter().map(|g| g.1 + params.doc_weight * doc_score));
            scores.sort_by(|a, b| b.total_cmp(a));
            order.clear();
            order.extend(groups.iter().map(|g| g.0 as u32));
            order.sort_by(|&a, &b| {
                let (a, b) = (&buffer[a as usize], &buffer[b as usize]);
                b.local.total_cmp(&a.local).then(a.passage.cmp(&b.passage))
            });
            // Later hits of the document are damped.
            let mut factor = 1.0;
            for (&k, &score) in order.iter().zip(&scores) {
                let score = score * factor;
                if score < threshold {
                    break;
                }
                let candidate = buffer[k as usize];
                let from = candidate.refs as usize;
                enter(
                    &mut top,
                    Candidate {
                        score,
                        refs: kept_refs.len() as u32,
                        ..candidate
                    },
                );
                kept_refs.extend_from_slice(&doc_refs[from..from + n_terms]);
                factor *= params.same_document_decay;
            }
            // As soon as the page is full, what it takes to enter it: the sooner it is known,
            // the more documents are only counted.
            if top.len() >= keep {
                top.truncate(keep);
                threshold = top.last().map_or(f32::MIN, |c| c.score);
                if let Some(shared) = shared {
                    shared.raise(threshold);
                }
            }
        }
        top.truncate(keep);
        (top, kept_refs, total)
    }

    /// Documents of `kind`: skill documents and references come first in the catalog,
    /// docs after them (from `first_doc`, computed at build time).
    fn kind_range(&self, kind: Kind) -> Range<u32> {
        let documents = self.archive.documents.as_slice();
        let first_doc = self.archive.startup.first_doc.to_native();
        match kind {
            Kind::Skills => 0..first_doc,
            Kind::Docs => first_doc..documents.len() as u32,
            Kind::All => 0..documents.len() as u32,
        }
    }

    /// The hit of a ranking's candidate at `place`, its snippet still to choose.
    fn hit(&self, candidate: &Candidate, place: usize) -> Hit {
        let passage = self.archive.search.passages.get(candidate.passage);
        Hit {
            document: passage.document,
            passage: candidate.passage,
            chunk: candidate.chunk,
            heading: (passage.heading != NO_HEADING).then_some(passage.heading),
            score: candidate.score,
            snippet: 0..0,
            unchosen: Some((0, place)),
        }
    }

    /// Chooses the snippet of a hit of `ranking` whose snippet is still to choose.
    pub(super) fn choose_snippet(&self, hit: &mut Hit, ranking: &Ranking) {
        let Some((_, place)) = hit.unchosen.take() else {
            return;
        };
        let Some(candidate) = ranking.candidates.get(place) else {
            return;
        };
        hit.snippet = self.snippet(&ranking.query, candidate, &ranking.refs);
    }

    fn snippet(&self, query: &Query, candidate: &Candidate, refs: &Refs) -> Range<usize> {
        let passage = self.archive.search.passages.get(candidate.passage);
        let document = passage.document;
        let start = passage.start as usize;
        // A damaged frame gives no snippet here; rendering the hit reports the damage.
        let passage_text = self
            .content
            .view(
                &self.document(document).content,
                start..passage.end as usize,
            )
            .ok();
        let passage_text = passage_text.as_deref().unwrap_or_default();
        let postings = self.archive.search.postings.as_slice();
        let mut blocks = [OccurrenceBlock::default(); query::MAX_TERMS];
        for (block, &(start, len)) in blocks
            .iter_mut()
            .zip(refs.get(candidate.refs as usize..).unwrap_or_default())
            .take(query.terms.len())
        {
            *block = occurrence_block(postings, start, len);
        }
        // The token table as far as the last occurrence whose block stores no offsets.
        let needed = blocks
            .iter()
            .filter(|block| !block.offsets)
            .filter_map(|&block| Occurrences::new(block).last())
            .map(|o| o.position as usize + 1)
            .max()
            .unwrap_or(0);
        let mut token_starts = Vec::new();
        self.archive
            .search
            .token_starts(&passage, passage_text, needed, &mut token_starts);
        snippet::choose(query, passage_text, start, &blocks, &token_starts)
    }

    pub fn document(&self, index: u32) -> &'a ArchivedDocument {
        &self.archive.documents[index as usize]
    }

    /// The text of a document (UTF-8, checked at build time).
    pub fn text(&self, document: &ArchivedDocument) -> Result<Cow<'a, str>, Damaged> {
        self.content.text(&document.content, 0..usize::MAX)
    }

    /// A byte range of a document's text. Ranges come from the archive (passages and
    /// snippets fall on character boundaries): only the frames it spans are decoded.
    pub fn text_range(
        &self,
        document: &ArchivedDocument,
        range: Range<usize>,
    ) -> Result<Cow<'a, str>, Damaged> {
        self.content.text(&document.content, range)
    }

    /// A document's tables (outline, chunk table, links), decoded through the cache.
    pub fn tables(&self, document: u32) -> Result<Arc<DocumentTables>, Damaged> {
        let record = self.document(document);
        self.content.tables(
            document,
            &record.content,
            record.tables.to_native() as usize,
        )
    }

    /// The headings from the document's top down to the hit's own heading, from the hit's
    /// document's `tables`.
    pub fn heading_path<'t>(&self, hit: &Hit, tables: &'t DocumentTables) -> Vec<&'t Heading> {
        let outline = tables.outline.as_slice();
        let Some(h) = hit.heading else {
            return Vec::new();
        };
        let Some(own) = outline.get(h as usize) else {
            return Vec::new();
        };
        let mut path = vec![own];
        // Parents come before their children in the outline; the walk only goes backwards.
        let (mut at, mut parent) = (h, own.parent);
        while let Some(heading) = outline.get(parent as usize).filter(|_| parent < at) {
            path.push(heading);
            (at, parent) = (parent, heading.parent);
        }
        path.reverse();
        path
    }
}

/// The occurrence block a candidate records as `(start, length | OFFSETS)` in `postings`.
#[inline]
fn occurrence_block(postings: &[u8], start: u32, len: u32) -> OccurrenceBlock<'_> {
    OccurrenceBlock {
        bytes: postings
            .get(start as usize..(start + (len & !OFFSETS)) as usize)
            .unwrap_or_default(),
        offsets: len & OFFSETS != 0,
    }
}

/// Whether a passage holds the term itself, in its heading or text. A section that matches
/// only by the headings above it (every section of "Releasing" has "release" there) is not
/// a hit of its own: the section whose heading it is names that match.
fn holds(entry: &PassageEntry<'_>) -> bool {
    entry.tf[P_HEADING] > 0 || entry.tf[P_BODY] > 0
}

/// Walk the passages of a document that cannot make the page, only counting its hits as
/// the ranking would (see [`group_hits`]).
fn count_hits(
    query: &Query,
    cursors: &mut [TermCursor<'_>],
    end: u32,
    passages: &Passages<'_>,
    positions: &mut [Vec<u32>],
) -> usize {
    let mut count = 0;
    let mut last: Option<(u32, u32)> = None;
    loop {
        let p = cursors
            .iter()
            .filter_map(|c| c.passage.map(|e| e.passage))
            .filter(|&p| p < end)
            .min();
        let Some(p) = p else { break };
        let mut blocks = [OccurrenceBlock::default(); query::MAX_TERMS];
        let mut own = false;
        for (i, c) in cursors.iter_mut().enumerate() {
            if let Some(e) = c.passage.filter(|e| e.passage == p) {
                own |= holds(&e);
                blocks[i] = e.occurrences;
                c.passage = c.passages.next();
            }
        }
        if !own || (query.strict && !phrases_match(query, &blocks, positions)) {
            continue;
        }
        let (chunk, heading, _) = passages.place(passages.row(p));
        let here = (heading, chunk);
        if !last.is_some_and(|(heading, chunk)| heading == here.0 || chunk == here.1) {
            count += 1;
        }
        last = Some(here);
    }
    count
}

/// The hits of a document: its matching passages (in passage order) grouped so that no two
/// hits name the same section or the same chunk. A section's passages are adjacent, and so
/// are a chunk's, so a group is a run of passages each sharing its section or its chunk
/// with the previous one; it counts the same whichever passages score best. Each group is
/// `(the candidate that names it: best local score, the group's best score)`.
fn group_hits(buffer: &[Candidate], groups: &mut Vec<(usize, f32)>) {
    groups.clear();
    for (i, c) in buffer.iter().enumerate() {
        let joined =
            i > 0 && (buffer[i - 1].heading == c.heading || buffer[i - 1].chunk == c.chunk);
        match groups.last_mut() {
            Some(group) if joined => {
                if c.local > buffer[group.0].local {
                    group.0 = i;
                }
                group.1 = group.1.max(c.score);
            }
            _ => groups.push((i, c.score)),
        }
    }
}

/// Add to each candidate's local score its term scores, each weighted by how rare the term
/// is among the document's `passages` (`df` counts those that hold it, in any field):
/// within a document, a word every section has (the subject of the title, a parent
/// heading) sets no section apart, and a word few sections have does. With `section_idf`
/// the weight is the BM25 idf with the document's sections as the collection; it is small
/// but not 0 for a word every section holds, so that when every section holds every query
/// word (a short page) the section that holds them best (in its heading) is chosen rather
/// than the first. Otherwise it is the share of sections that lack the word. The weight
/// multiplies a score that carries the catalog's idf: a word rare in the document but
/// common in the catalog ("one") keeps the small score its catalog idf gives it.
fn within_document(
    buffer: &mut [Candidate],
    term_scores: &[f32],
    passages: u32,
    df: &[u32; query::MAX_TERMS],
    section_idf: bool,
) {
    let stride = term_scores.len() / buffer.len().max(1);
    if stride == 0 {
        return;
    }
    // Only the query's terms: a logarithm per term and document is what this costs.
    let mut weights = [0f32; query::MAX_TERMS];
    let n = passages.max(1);
    for (weight, &df) in weights.iter_mut().zip(df).take(stride) {
        *weight = if section_idf {
            idf(n as usize, df)
        } else {
            (1.0 - df as f32 / n as f32).max(0.0)
        };
    }
    for (candidate, scores) in buffer.iter_mut().zip(term_scores.chunks_exact(stride)) {
        candidate.local += scores
            .iter()
            .zip(&weights)
            .map(|(score, weight)| score * weight)
            .sum::<f32>();
    }
}

/// Add to each candidate `share` of its parent section's own score, when the parent matched
/// too (its best passage, if it spans chunks). Candidates are in passage order, so a
/// parent's passages come before its children's: walking backwards, every child reads its
/// parent's score before the parent's own inheritance changes it.
fn inherit_from_parents(buffer: &mut [Candidate], share: f32) {
    if share == 0.0 || buffer.len() < 2 {
        return;
    }
    for i in (1..buffer.len()).rev() {
        let parent = buffer[i].parent;
        if parent == NO_HEADING {
            continue;
        }
        let mut inherited: Option<(f32, f32)> = None;
        for c in buffer[..i].iter().rev().take_while(|c| c.heading >= parent) {
            if c.heading == parent {
                let (score, local) = inherited.unwrap_or((f32::MIN, f32::MIN));
                inherited = Some((score.max(c.score), local.max(c.local)));
            }
        }
        if let Some((score, local)) = inherited {
            buffer[i].score += share * score;
            buffer[i].local += share * local;
        }
    }
}

/// Name a subsection rather than its parent section when the subsection's text holds every
/// query term the parent's text holds (and one at least): its local score becomes a hair
/// above the parent's, plus a thousandth of its own so that such siblings keep their order.
/// Candidates are in passage order, parents before their children, so a grandchild that
/// qualifies under a child that did is lifted above both.
fn prefer_deeper(buffer: &mut [Candidate], refs: &Refs, n_terms: usize) {
    // The query terms with occurrences in a candidate's text (a term's occurrence block is
    // empty when it matches only the heading or the headings above).
    let in_text = |c: &Candidate| {
        let own = &refs[c.refs as usize..c.refs as usize + n_terms];
        own.iter()
            .enumerate()
            .filter(|(_, (_, len))| len & !OFFSETS > 0)
            .fold(0u32, |mask, (i, _)| mask | 1 << i)
    };
    if buffer.len() < 2 {
        return;
    }
    // Each candidate's terms once, not once per pair.
    let held: Vec<u32> = buffer.iter().map(in_text).collect();
    for i in 0..buffer.len() {
        let parent = buffer[i];
        if parent.heading == NO_HEADING {
            continue;
        }
        let terms = held[i];
        for (child, &own) in buffer[i + 1..].iter_mut().zip(&held[i + 1..]) {
            if child.parent != parent.heading || child.heading == parent.heading {
                continue;
            }
            if own != 0 && own & terms == terms && child.local < parent.local * 1.0001 {
                child.local = parent.local * 1.0001 + 1e-3 * child.local;
            }
        }
    }
}

/// Ranking order: best first, ties in catalog order, so results are deterministic.
///
/// (The page is kept in this order, each candidate put in its place as it enters. It was
/// sorted whenever a document added to a full page: a fused search ranks every phrasing to
/// [`MAX_RESULTS`], and sorting 200 candidates for each document that entered was a fifth
/// of its instructions at 10,000 documents.)
fn ranking_order(a: &Candidate, b: &Candidate) -> std::cmp::Ordering {
    b.score.total_cmp(&a.score).then(a.passage.cmp(&b.passage))
}

/// Puts a candidate into the page, kept in [`ranking_order`].
fn enter(page: &mut Vec<Candidate>, candidate: Candidate) {
    let at = page.partition_point(|c| ranking_order(c, &candidate).is_lt());
    page.insert(at, candidate);
}

/// Per query term, the other terms that spell one of its parts (an identifier's or a
/// compound's words: `hash` and `map` of `HashMap`); empty for plain words.
fn concepts(query: &Query) -> Vec<Vec<usize>> {
    use crate::analyze::TermKind;
    query
        .terms
        .iter()
        .map(|whole| {
            if !matches!(whole.kind, TermKind::Identifier | TermKind::Compound) {
                return Vec::new();
            }
            (0..query.terms.len())
                .filter(|&j| {
                    let part = &query.terms[j];
                    part.text != whole.text
                        && matches!(part.kind, TermKind::Word | TermKind::Part)
                        && whole.span.0 <= part.span.0
                        && part.span.1 <= whole.span.1
                })
                .collect()
        })
        .collect()
}

/// Pairs of query terms that are neighbours in the query (words and identifier parts).
fn proximity_pairs(query: &Query) -> Vec<(usize, usize)> {
    use crate::analyze::TermKind;
    let mut order: Vec<usize> = (0..query.terms.len())
        .filter(|&i| {
            let t = &query.terms[i];
            t.weight > 0.0 && matches!(t.kind, TermKind::Word | TermKind::Part | TermKind::Operator)
        })
        .collect();
    order.sort_by_key(|&i| query.terms[i].position);
    order.windows(2).map(|w| (w[0], w[1])).collect()
}

/// `params.proximity` × the sum over neighbouring query terms found near each other of
/// `min idf / distance`; each pair's bonus is also added half to each term's `shares`.
fn proximity(
    pairs: &[(usize, usize)],
    cursors: &[TermCursor<'_>],
    occurrences: &[OccurrenceBlock<'_>; query::MAX_TERMS],
    params: &Params,
    shares: &mut [f32; query::MAX_TERMS],
) -> f32 {
    let mut bonus = 0.0;
    for &(a, b) in pairs {
        if occurrences[a].is_empty() || occurrences[b].is_empty() {
            continue;
        }
        let mut xs = [0u32; MAX_OCCURRENCES];
        let mut ys = [0u32; MAX_OCCURRENCES];
        let nx = fill(&mut xs, occurrences[a]);
        let ny = fill(&mut ys, occurrences[b]);
        let (mut i, mut j, mut best) = (0, 0, u32::MAX);
        while i < nx && j < ny && best > 1 {
            best = best.min(xs[i].abs_diff(ys[j]).max(1));
            if xs[i] < ys[j] {
                i += 1;
            } else {
                j += 1;
            }
        }
        if best <= params.proximity_window {
            let idf = cursors[a].passage_idf.min(cursors[b].passage_idf);
            let pair = params.proximity * idf / best as f32;
            bonus += pair;
            shares[a] += pair / 2.0;
            shares[b] += pair / 2.0;
        }
    }
    bonus
}

fn fill(out: &mut [u32; MAX_OCCURRENCES], block: OccurrenceBlock<'_>) -> usize {
    let mut n = 0;
    for o in Occurrences::new(block).take(MAX_OCCURRENCES) {
        out[n] = o.position;
        n += 1;
    }
    n
}

/// Whether every quoted phrase occurs in the passage, word by word.
fn phrases_match(
    query: &Query,
    occurrences: &[OccurrenceBlock<'_>; query::MAX_TERMS],
    positions: &mut [Vec<u32>],
) -> bool {
    query
        .phrases
        .iter()
        .all(|phrase| phrase_matches(phrase, occurrences, positions))
}

/// Whether a quoted phrase occurs in the passage, word by word.
fn phrase_matches(
    phrase: &query::Phrase,
    occurrences: &[OccurrenceBlock<'_>; query::MAX_TERMS],
    positions: &mut [Vec<u32>],
) -> bool {
    if phrase
        .terms
        .iter()
        .any(|&(term, _)| occurrences[term].is_empty())
    {
        return false;
    }
    for &(term, _) in &phrase.terms {
        positions[term].clear();
        positions[term].extend(Occurrences::new(occurrences[term]).map(|o| o.position));
    }
    let (first, first_offset) = phrase.terms[0];
    positions[first].iter().any(|&p| {
        let start = p.wrapping_sub(first_offset);
        phrase.terms.iter().all(|&(term, offset)| {
            positions[term]
                .binary_search(&start.wrapping_add(offset))
                .is_ok()
        })
    })
}

/// Per phrase, its pairs of neighbouring words: a passage that holds the phrase earns for
/// each pair what two adjacent query words earn for proximity, once more.
fn phrase_pairs(query: &Query) -> Vec<Vec<(usize, usize)>> {
    query
        .phrases
        .iter()
        .map(|phrase| phrase.terms.windows(2).map(|w| (w[0].0, w[1].0)).collect())
        .collect()
}

#[cfg(test)]
pub(crate) mod tests;

/// Outside tests, the ranking always prunes where it can.
#[cfg(not(test))]
mod tests {
    #[inline(always)]
    pub(super) fn exhaustive() -> bool {
        false
    }

    #[inline(always)]
    pub(super) fn skipped() {}

    #[inline(always)]
    pub(super) fn long_skipped() {}

    #[inline(always)]
    pub(super) fn impact_skipped() -> bool {
        true
    }
}
