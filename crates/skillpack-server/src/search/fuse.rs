//! Several phrasings of one need, one ranking: rank fusion, with each phrasing's scores.
//!
//! The caller of `catalog_search` is usually a language model, which can say the same thing
//! in the docs' technical terms when the user's words are not the docs' words. A
//! [`Request`] carries those alternative phrasings in `also`; each phrasing (the query
//! first) is ranked on its own, and the rankings are fused with reciprocal rank fusion
//! (Cormack, Clarke and Büttcher, SIGIR 2009), each phrasing's ranks weighed with its
//! scores (below):
//!
//! ```text
//! fused(hit) = Σ over the phrasings whose ranking holds the hit of share(hit)
//! ```
//!
//! where a share is `1 / (k + rank)` for ranks alone, with `k = 5` ([`RRF_K`]; the published
//! constant is 60, see there), and weighs the hit's score against the phrasing's own first
//! hit too (below). A hit is one chunk of one
//! document, as in a single ranking, where no two hits name the same chunk: two phrasings
//! that name different sections of one chunk vote for the same hit. It keeps the section,
//! passage and snippet of the phrasing that ranked it best.
//!
//! Votes are also counted by document: a document's rank in a ranking is the rank of its
//! first hit there, and one chunk of the document takes the document's fused score (its
//! other chunks keep their own, so one ranking fused alone keeps its order). Phrasings in
//! different words often land in different chunks of the page that answers: a rephrasing
//! finds the section named by its technical term, the question the section with the
//! user's example. Counted by chunk alone, their votes split and a page that one phrasing
//! alone ranks first wins; counted by document, they agree. On the shared splits with
//! agent-written rephrasings this took fused MRR from 0.857 to 0.970 (tuning) and from
//! 0.887 to 0.950 (held-out).
//!
//! The chunk that speaks for the document is the first hit of the phrasing that ranks the
//! document best (the earlier phrasing on a tie): the phrasing whose words match the page
//! best is the one to trust about where in the page the answer is. Rephrasings written in
//! the docs' general terms often agree on a page's "Summary" or introduction, which holds
//! all its terms; counting chunk votes let them outvote the section the best phrasing
//! chose. This took fused section@3 from 76/94 to 80/94 on the tuning split (held-out
//! 39/44 either way).
//!
//! Which section of the document that chunk names is then put to the phrasings, each
//! naming the section of its own first hit in the document, and voted down the outline
//! (`Params::tree_vote`): from the whole document into the section that holds the most of
//! those first hits, itself or under it, until none lies deeper. A phrasing that names a
//! page's introduction or a section above another's does not vote against the deeper one:
//! the question names "Closures", a rephrasing "Capturing the Environment" and another a
//! subsection of it, and the answer is in "Capturing the Environment". Two phrasings that
//! name two steps of one "Process" outvote one that names the page's "Output Format". The
//! query's clear winner (below) keeps its section, and only a subsection of it that other
//! phrasings name refines it. On the tuning split this took fused section@1 from 77/94 to
//! 82/94 (held-out 34/44 either way).
//!
//! Scores of different phrasings are never compared, so a phrasing with many rare words
//! does not drown the others. A phrasing's vote for a hit is its share `1 / (k + 1)` at
//! most, made of the hit's rank and of its score against the phrasing's own first hit
//! (`Params::score_share`, 0.75 of it):
//!
//! ```text
//! share(hit) = ((1 − s) · (k + 1) / (k + rank) + s · score / first score) / (k + 1)
//! ```
//!
//! Ranks alone give a first and a second place 1/6 and 1/7 whether the phrasing found them
//! 10 against 9.9 or 10 against 5: a phrasing that matched one section far better than the
//! next said so, and ranks dropped it. Chosen on the three tuning trees with three agents'
//! rephrasings each (`scripts/search-eval-writers`: fused section@1 476 to 487 of 567,
//! recall@1 544 to 558 of 600; 0.5 and 1 gave 483 and 484), confirmed on their held-out
//! parts (234 to 236 of 270, recall@1 263 to 266 of 285), and judged once on the frozen split
//! and the generator trees (issue 47; docs/design/search-ranking.md).
//!
//! One exception keeps an exact match from being outvoted. When the query alone leads
//! clearly (its first hit scores at least [`CLEAR_LEAD_MARGIN`] times its second, the
//! margin that decides whether a single search's first hit carries its text) and no
//! rephrasing that puts another hit first leads its own ranking more clearly, the query's
//! first hit counts as if every phrasing had ranked it first, and so stays first. A pasted
//! error, a configuration key or a flag usually matches one section verbatim and nothing
//! else as well; the rephrasings an agent writes before its first search are its guesses at
//! the docs' words, and several guesses that agree on a neighbouring topic outvoted the one
//! phrasing that matched (issue 47: a page the query alone ranked first, 90 against 39, fell
//! out of the top 10). An exact match holds the query's words as written: a lead counts only
//! when the winner's section holds [`VERBATIM_RUN`] of them in a row (`Params::winner_verbatim`),
//! since a question's words can also lead by landing, scattered, in an unrelated section.
//! Below that margin the query has not decided, and rank fusion decides
//! as before: rephrasings still help a vague query. Leads are ratios of a phrasing's own
//! scores, so comparing them compares no scores across phrasings. The margin is the one
//! the single search already used, not chosen for this rule; that a clearer rephrasing
//! overrides the query was chosen on the tuning split, where the query's lead alone took
//! fused R@1 from 0.942 to 0.933 (everyday words 0.900 to 0.850) and this left it as it was.

use std::collections::HashMap;

use super::split::Threads;
use super::{CLEAR_LEAD_MARGIN, Hit, Index, MAX_RESULTS, Params, Request, Results};

/// The constant of reciprocal rank fusion. The published 60 was set for fusing the runs of
/// whole retrieval systems, where agreement deep in long lists is the signal. Here the
/// phrasings are an agent's guesses at one need, and what a phrasing says is in its first
/// few places: at 60 a first place counts only 1.15 times a tenth (1/61 against 1/70), so
/// fusion counted how many phrasings found a page, hardly how high. At 5 a first place
/// counts 2.5 times a tenth. Chosen on the three tuning trees (fused section@1 summed over
/// them: 156 of 189 at 60, 30 and 20, 157 at 15, 158 at 3 and 10, 159 at 5), confirmed on
/// their held-out parts (section@1 75 to 76 of 90, section@3 80 to 83), then judged once
/// on the frozen split and the generator trees (issue 47; docs/design/search-ranking.md).
pub const RRF_K: f32 = 5.0;
/// Most alternative phrasings one request carries.
pub const MAX_ALSO: usize = 4;
/// Words of the query in a row, as written, that make its clear winner an exact match
/// (`Params::winner_verbatim`): a phrase, not a pair of words that often stand together.
/// Three and four gave the same figures on both tuning trees; the shorter is kept.
pub const VERBATIM_RUN: usize = 3;
/// Words of the query in a row, as written, that make its first hit a pasted line's
/// (`Params::keep_pasted_winner`): twice [`VERBATIM_RUN`], more than a question repeats of a
/// page by chance. Five, six and eight gave the same figures on every tuning part.
pub const PASTED_RUN: usize = 6;

/// How [`fuse`] weighs the phrasings: the parameters of [`Params`] it reads.
#[derive(Clone, Copy, Debug)]
pub struct Fusion {
    /// `Params::vote_sections`: the phrasings vote for the section that speaks for a
    /// document.
    pub vote_sections: bool,
    /// `Params::score_share`: the part of a vote that comes from the hit's score against
    /// its phrasing's first (0: reciprocal rank fusion alone).
    pub score_share: f32,
}

impl From<&Params> for Fusion {
    fn from(params: &Params) -> Self {
        Fusion {
            vote_sections: params.vote_sections,
            score_share: params.score_share,
        }
    }
}

/// Fuse rankings (each best first) into one, best first, at most [`MAX_RESULTS`] hits.
///
/// A hit's score becomes its fused score. Ties go to the hit ranked best in any list, then
/// to the earlier list (the query before its rephrasings), then to document order. With
/// `query_leads` (the first list, the query's, leads clearly), the first list's first hit
/// takes the score of a hit every list ranks first, `lists.len() / (k + 1)`: no other hit
/// can reach it, since a list's share is at most `1 / (k + 1)` and the first list ranks
/// them lower. With `tree`, sections are voted down the outline (`tree_vote`).
pub fn fuse(
    lists: &[Vec<Hit>],
    query_leads: bool,
    tree: Option<&Path<'_>>,
    fusion: Fusion,
) -> Vec<Hit> {
    let Fusion {
        vote_sections,
        score_share,
    } = fusion;
    struct Fused {
        hit: Hit,
        score: f32,
        best: (usize, usize),
    }
    // Per document: its votes as a document (in each list, the rank of its first hit), one
    // past the last list that voted for it, the chunk that speaks for it (the first hit
    // in the list that ranks the document best, the earlier list on a tie) and each list's
    // first hit in it.
    struct Document {
        votes: f32,
        next_list: usize,
        best_rank: usize,
        chunk: u32,
        firsts: Vec<Hit>,
        // Which of `firsts` is the best phrasing's (it names `chunk`).
        speaker: usize,
    }
    let mut fused: Vec<Fused> = Vec::new();
    // A hit is a chunk: each single ranking names a chunk once, by its best section.
    let mut at: HashMap<(u32, u32), usize> = HashMap::new();
    let mut documents: HashMap<u32, Document> = HashMap::new();
    for (list, hits) in lists.iter().enumerate() {
        let first_score = hits.iter().map(|h| h.score).fold(0.0, f32::max);
        for (rank, hit) in hits.iter().enumerate() {
            let by_rank = (RRF_K + 1.0) / (RRF_K + (rank + 1) as f32);
            let by_score = if first_score > 0.0 {
                (hit.score / first_score).clamp(0.0, 1.0)
            } else {
                by_rank
            };
            let share = ((1.0 - score_share) * by_rank + score_share * by_score) / (RRF_K + 1.0);
            let document = documents.entry(hit.document).or_insert(Document {
                votes: 0.0,
                next_list: 0,
                best_rank: rank,
                chunk: hit.chunk,
                firsts: Vec::new(),
                speaker: 0,
            });
            if document.next_list <= list {
                if vote_sections {
                    document.firsts.push(hit.clone());
                }
                document.votes += share;
                document.next_list = list + 1;
                if rank < document.best_rank {
                    document.best_rank = rank;
                    document.chunk = hit.chunk;
                    document.speaker = document.firsts.len().saturating_sub(1);
                }
            }
            let key = (hit.document, hit.chunk);
            match at.get(&key) {
                Some(&i) => {
                    let entry = &mut fused[i];
                    entry.score += share;
                    if (rank, list) < entry.best {
                        entry.hit = hit.clone();
                        entry.best = (rank, list);
                    }
                }
                None => {
                    at.insert(key, fused.len());
                    fused.push(Fused {
                        hit: hit.clone(),
                        score: share,
                        best: (rank, list),
                    });
                }
            }
        }
    }
    let order = |a: &Fused, b: &Fused| {
        b.score
            .total_cmp(&a.score)
            .then(a.best.cmp(&b.best))
            .then(a.hit.document.cmp(&b.hit.document))
            .then(a.hit.passage.cmp(&b.hit.passage))
    };
    // The chunk that speaks for each document carries the document's votes: phrasings that
    // find one document agree even when they name different chunks of it. Its other chunks
    // keep their own votes, which are never more than the document's.
    if vote_sections {
        // The query's clear winner names its own section: an exact match knows where it is.
        // Voted down the outline, a subsection of it that other phrasings name can refine it.
        let winner = lists[0].first().filter(|_| query_leads).map(|h| h.document);
        for (&id, document) in documents.iter_mut() {
            let kept = winner == Some(id);
            let voted = match tree {
                Some(path) => tree_vote(document.speaker, &document.firsts, path, kept),
                None if kept => None,
                None => vote_for_section(document.chunk, &document.firsts),
            };
            if let Some(hit) = voted {
                document.chunk = hit.chunk;
                // The chunk keeps its own votes and place; it names the section voted for.
                let entry = &mut fused[at[&(hit.document, hit.chunk)]];
                entry.hit = Hit {
                    score: entry.hit.score,
                    ..hit.clone()
                };
            }
        }
    }
    for entry in &mut fused {
        let document = &documents[&entry.hit.document];
        if document.chunk == entry.hit.chunk {
            entry.score = document.votes;
        }
    }
    // The query's clear winner is the first hit of the first list, which is also the chunk
    // that speaks for its document (no list ranks a document better than first, and the
    // earlier list wins the tie), unless a deeper section inside it now speaks for it.
    let winner = lists[0]
        .first()
        .filter(|_| query_leads)
        .map(|h| (h.document, documents[&h.document].chunk));
    if let Some(winner) = winner
        && let Some(winner) = fused
            .iter_mut()
            .find(|f| (f.hit.document, f.hit.chunk) == winner)
    {
        winner.score = lists.len() as f32 / (RRF_K + 1.0);
    }
    fused.sort_by(order);
    fused.truncate(MAX_RESULTS);
    fused
        .into_iter()
        .map(|f| Hit {
            score: f.score,
            ..f.hit
        })
        .collect()
}

/// The section that speaks for a document when more phrasings name it first in the document
/// than name the section of the speaking `chunk` (the best phrasing's): `firsts` holds each
/// phrasing's first hit in the document, in phrasing order. The best phrasing knows best
/// where the page is; several phrasings that agree on one section of it know better where
/// in the page the answer is. `None`: the speaking chunk's section stands.
fn vote_for_section(chunk: u32, firsts: &[Hit]) -> Option<&Hit> {
    let votes = |heading: Option<u32>| firsts.iter().filter(|h| h.heading == heading).count();
    let speaking = firsts.iter().find(|h| h.chunk == chunk)?;
    let mut most = votes(speaking.heading);
    let mut chosen = None;
    for hit in firsts {
        let n = votes(hit.heading);
        if n > most {
            (most, chosen) = (n, Some(hit));
        }
    }
    chosen
}

/// The headings from the document's top down to the given one, itself included (empty
/// for the text before the first heading, which stands for the whole document).
pub type Path<'a> = dyn Fn(u32, Option<u32>) -> Vec<u32> + 'a;

/// The section the phrasings' first hits in a document (`firsts`, in phrasing order; the
/// best phrasing's is `firsts[speaking]`) agree on, voted down the document's outline: from
/// the whole document, into the section that holds the most of them, itself or under it
/// (on a tie, the one that holds the speaking hit, else the earlier phrasing's), and so on
/// until none of them lies deeper. A first hit in a section above does not vote against a
/// subsection: it names the section the subsection belongs to, so a phrasing that names a
/// subsection refines the others' section, and two phrasings that name two steps of one
/// procedure outvote a third that names another part of the page. With `within_speaking`
/// (the query's clear winner) the vote starts from the speaking section and can only go
/// deeper. `None`: the speaking hit's section stands.
fn tree_vote<'h>(
    speaking: usize,
    firsts: &'h [Hit],
    path: &Path<'_>,
    within_speaking: bool,
) -> Option<&'h Hit> {
    // Most documents are found by one phrasing, or named by one section: nothing to vote.
    let named = firsts.get(speaking)?.heading;
    if firsts.iter().all(|h| h.heading == named) {
        return None;
    }
    let paths: Vec<Vec<u32>> = firsts.iter().map(|h| path(h.document, h.heading)).collect();
    let mut alive: Vec<usize> = (0..firsts.len()).collect();
    let mut depth = 0;
    if within_speaking {
        let top = &paths[speaking];
        alive.retain(|&i| paths[i].starts_with(top));
        depth = top.len();
    }
    loop {
        // Groups of the first hits below this depth, by their section at this depth.
        let mut groups: Vec<(u32, Vec<usize>)> = Vec::new();
        for &i in &alive {
            if let Some(&h) = paths[i].get(depth) {
                match groups.iter_mut().find(|(g, _)| *g == h) {
                    Some((_, members)) => members.push(i),
                    None => groups.push((h, vec![i])),
                }
            }
        }
        if groups.is_empty() {
            break;
        }
        let best = groups
            .iter()
            .enumerate()
            .max_by_key(|(order, (_, members))| {
                (
                    members.len(),
                    members.contains(&speaking),
                    std::cmp::Reverse(*order),
                )
            })
            .map(|(order, _)| order)
            .unwrap_or(0);
        alive = groups.swap_remove(best).1;
        depth += 1;
    }
    // The first hits left name the same section; the speaking one, else the earliest.
    let chosen = if alive.contains(&speaking) {
        speaking
    } else {
        alive[0]
    };
    (firsts[chosen].heading != firsts[speaking].heading).then(|| &firsts[chosen])
}

/// A request with alternative phrasings: every phrasing ranked to [`MAX_RESULTS`] (so that
/// pages of the fused ranking do not depend on the page asked for), then fused.
///
/// `total` is the most hits any phrasing matched or the fused count if larger; `unknown`
/// lists the words no phrasing's catalog holds, once each (and `common` its stopwords so);
/// the query is empty only when every phrasing is.
pub(super) fn search(
    index: &Index<'_>,
    request: &Request<'_>,
    params: &Params,
    threads: Threads<'_>,
) -> Results {
    let mut lists = Vec::with_capacity(1 + request.also.len());
    let mut total = 0;
    let mut unknown: Vec<String> = Vec::new();
    let mut common: Vec<String> = Vec::new();
    let mut empty = true;
    // Each phrasing's ranking, whose hits' snippets are chosen only for the page shown: of
    // the up to 200 hits each phrasing ranks, a page shows ten.
    let mut rankings = Vec::with_capacity(1 + request.also.len());
    for (p, phrasing) in std::iter::once(request.query)
        .chain(request.also.iter().copied())
        .enumerate()
    {
        let mut ranking = index.ranking(
            &Request {
                query: phrasing,
                kind: request.kind,
                offset: 0,
                limit: MAX_RESULTS,
                also: &[],
            },
            params,
            threads,
        );
        let mut results = std::mem::take(&mut ranking.results);
        rankings.push(ranking);
        for hit in &mut results.hits {
            if let Some((phrasing, _)) = &mut hit.unchosen {
                *phrasing = p;
            }
        }
        total = total.max(results.total);
        empty &= results.empty_query;
        for word in results.unknown {
            if !unknown.contains(&word) {
                unknown.push(word);
            }
        }
        for word in results.common {
            if !common.contains(&word) {
                common.push(word);
            }
        }
        lists.push(results.hits);
    }
    // How clearly each phrasing's first hit leads its own ranking: first score over second
    // (a ratio, so phrasings compare without comparing their scores). A phrasing that finds
    // one hit leads without doubt; one that finds nothing does not lead.
    let lead = |list: &[Hit]| match list {
        [] => 0.0,
        [_] => f32::INFINITY,
        [first, second, ..] => first.score / second.score,
    };
    let query_lead = lead(&lists[0]);
    // The query keeps its winner when it leads clearly, by the margin a single search uses,
    // and more clearly than every rephrasing that puts another hit first: the phrasing
    // with the exact match is the one that knows. A rephrasing that leads more clearly
    // elsewhere is evidence too (the query's words can match a heading by accident, "panic
    // instead of returning a Result"), and then rank fusion weighs the two as before.
    // A query of code alone is an exact match however narrowly it leads (`keep_code_winner`).
    // A lead is an exact match's when the winner holds the query's words as written; a
    // question's words can also lead by landing, scattered, in an unrelated section.
    let verbatim = |list: &[Hit]| {
        !params.winner_verbatim
            || list
                .first()
                .is_some_and(|first| holds_verbatim(index, request.query, first, VERBATIM_RUN))
    };
    // A pasted line: the winner holds a long run of the query's words as written, and the
    // query's runner-up does not. Rephrasings guess at the words; this is where they are.
    let holds_run = |hit: &Hit| holds_verbatim(index, request.query, hit, PASTED_RUN);
    let pasted = params.keep_pasted_winner
        && words(request.query).len() >= PASTED_RUN
        && lists[0].first().is_some_and(holds_run)
        && lists[0].get(1).is_none_or(|second| !holds_run(second));
    let query_leads = pasted
        || (params.keep_clear_winner
            && ((query_lead >= CLEAR_LEAD_MARGIN && verbatim(&lists[0]))
                || (params.keep_code_winner && super::query::code_only(request.query)))
            && lists[1..].iter().all(|list| {
                let agrees =
                    |h: &Hit| (h.document, h.chunk) == (lists[0][0].document, lists[0][0].chunk);
                list.first().is_none_or(agrees) || lead(list) < query_lead
            }));
    let path = |document: u32, heading: Option<u32>| -> Vec<u32> {
        let Some(heading) = heading else {
            return Vec::new();
        };
        let Ok(tables) = index.tables(document) else {
            return vec![heading];
        };
        let outline = tables.outline.as_slice();
        let mut path = vec![heading];
        let mut at = heading;
        while let Some(own) = outline.get(at as usize) {
            if own.parent >= at {
                break;
            }
            at = own.parent;
            path.push(at);
        }
        path.reverse();
        path
    };
    let fused = fuse(
        &lists,
        query_leads,
        params.tree_vote.then_some(&path as &Path<'_>),
        Fusion::from(params),
    );
    let end = request.offset.saturating_add(request.limit);
    // Rank fusion scores are close together whatever the agreement (1/6 against 1/7),
    // so a clear lead is counted in rankings: more than half put the fused first hit first.
    // The query's own clear lead is one too: its winner is first, as in a search without
    // `also`, and carries its text as it would there.
    let leading = fused.first().map_or(0, |first| {
        lists
            .iter()
            .filter(|list| {
                list.first()
                    .is_some_and(|h| (h.document, h.chunk) == (first.document, first.chunk))
            })
            .count()
    });
    Results {
        clear_lead: query_leads || 2 * leading > lists.len(),
        total: total.max(fused.len()),
        has_more: fused.len() > end,
        hits: fused
            .into_iter()
            .skip(request.offset)
            .take(request.limit)
            .map(|mut hit| {
                if let Some(ranking) = hit.unchosen.and_then(|(p, _)| rankings.get(p)) {
                    index.choose_snippet(&mut hit, ranking);
                }
                hit
            })
            .collect(),
        unknown,
        common,
        empty_query: empty,
    }
}

/// The words of a text as written, for exact matches: runs of letters and digits. Not the
/// index's analyzer: it stems words and drops common ones ("a", "of"), and an exact match
/// is the words as written, common ones included.
fn words(text: &str) -> Vec<&str> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect()
}

/// Whether the hit's passage (its section's own text, with its heading) holds `run` of the
/// query's words in a row as written, or the whole query when it has fewer. Words are runs
/// of letters and digits, compared lowercase. Only the passage that matched is read: a few
/// hundred words, where its chunk can hold many sections.
fn holds_verbatim(index: &Index<'_>, query: &str, hit: &Hit, run: usize) -> bool {
    let query = query.to_lowercase();
    let asked = words(&query);
    let n = run.min(asked.len());
    if n == 0 {
        return false;
    }
    let runs: std::collections::HashSet<&[&str]> = asked.windows(n).collect();
    let holds = |text: &str| {
        words(&text.to_lowercase())
            .windows(n)
            .any(|w| runs.contains(w))
    };
    let passage = index.archive.search.passages.get(hit.passage);
    let document = index.document(hit.document);
    let range = passage.start as usize..passage.end as usize;
    if index
        .text_range(document, range)
        .is_ok_and(|text| holds(&text))
    {
        return true;
    }
    // A passage that continues its section does not start with the heading.
    !passage.opens_section
        && hit.heading.is_some_and(|h| {
            index.tables(hit.document).is_ok_and(|tables| {
                tables
                    .outline
                    .get(h as usize)
                    .is_some_and(|heading| holds(&heading.text))
            })
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reciprocal rank fusion alone, the section of the best phrasing speaking.
    const RANKS: Fusion = Fusion {
        vote_sections: false,
        score_share: 0.0,
    };
    /// Reciprocal rank fusion, the phrasings voting for the section.
    const VOTING: Fusion = Fusion {
        vote_sections: true,
        score_share: 0.0,
    };

    fn hit(document: u32, heading: u32) -> Hit {
        Hit {
            document,
            passage: document * 100 + heading,
            chunk: heading,
            heading: Some(heading),
            score: 1.0,
            snippet: 0..0,
            unchosen: None,
        }
    }

    fn scored(document: u32, score: f32) -> Hit {
        Hit {
            score,
            ..hit(document, 0)
        }
    }

    #[test]
    fn a_phrasing_that_leads_far_outvotes_one_that_nearly_ties() {
        // The query finds pages 1 and 2 nearly tied; the rephrasing finds page 2 far ahead
        // of page 1. Ranks alone tie them (a first and a second place each), and the tie
        // goes to the query's first; with scores, the rephrasing's clear preference counts.
        let lists = [
            vec![scored(1, 10.0), scored(2, 9.9)],
            vec![scored(2, 8.0), scored(1, 2.0)],
        ];
        let order = |share: f32| -> Vec<u32> {
            fuse(
                &lists,
                false,
                None,
                Fusion {
                    vote_sections: false,
                    score_share: share,
                },
            )
            .iter()
            .map(|h| h.document)
            .collect()
        };
        assert_eq!(order(0.0), [1, 2]);
        assert_eq!(order(0.75), [2, 1]);
        // A phrasing's share is at most 1 / (k + 1) whatever its scale: a hit every list
        // ranks first scores as with ranks alone.
        let agreed = fuse(
            &[vec![scored(3, 50.0)], vec![scored(3, 0.5)]],
            false,
            None,
            Fusion {
                vote_sections: false,
                score_share: 0.75,
            },
        );
        assert!((agreed[0].score - 2.0 / (RRF_K + 1.0)).abs() < 1e-6);
    }

    #[test]
    fn a_hit_in_every_list_beats_a_hit_first_in_one() {
        let fused = fuse(
            &[
                vec![hit(1, 0), hit(2, 0), hit(3, 0)],
                vec![hit(4, 0), hit(2, 0), hit(5, 0)],
            ],
            false,
            None,
            RANKS,
        );
        let order: Vec<u32> = fused.iter().map(|h| h.document).collect();
        assert_eq!(order, [2, 1, 4, 3, 5]);
        let expected = 2.0 / (RRF_K + 2.0);
        assert!((fused[0].score - expected).abs() < 1e-6);
    }

    #[test]
    fn most_phrasings_choose_the_section_that_speaks_for_a_document() {
        // The query ranks document 1 best, by its section 1; both rephrasings name its
        // section 2 first in it (one after another document).
        let lists = [
            vec![hit(1, 1), hit(1, 2)],
            vec![hit(1, 2), hit(3, 0)],
            vec![hit(3, 0), hit(1, 2)],
        ];
        let voted = fuse(&lists, false, None, VOTING);
        assert_eq!((voted[0].document, voted[0].heading), (1, Some(2)));
        // Its fused score is the document's: the section voted for took its votes.
        let expected = 2.0 / (RRF_K + 1.0) + 1.0 / (RRF_K + 2.0);
        assert!((voted[0].score - expected).abs() < 1e-6);
        // Without voting, the best phrasing's section speaks.
        let best = fuse(&lists, false, None, RANKS);
        assert_eq!((best[0].document, best[0].heading), (1, Some(1)));
        // A tie keeps the best phrasing's section.
        let tie = fuse(&lists[..2], false, None, VOTING);
        assert_eq!((tie[0].document, tie[0].heading), (1, Some(1)));
        // The query's clear winner keeps its section whatever the votes.
        let kept = fuse(&lists, true, None, VOTING);
        assert_eq!((kept[0].document, kept[0].heading), (1, Some(1)));
    }

    #[test]
    fn phrasings_vote_for_the_section_down_the_outline() {
        // Document 1: a page (0) with "Output Format" (1), "Process" (2) and its steps 6 (3)
        // and 7 (4), and "Capturing the Environment" (5) with a subsection (6).
        const PARENT: [Option<u32>; 7] =
            [None, Some(0), Some(0), Some(2), Some(2), Some(0), Some(5)];
        let outline = |_: u32, heading: Option<u32>| -> Vec<u32> {
            let mut path: Vec<u32> =
                std::iter::successors(heading, |&h| PARENT[h as usize]).collect();
            path.reverse();
            path
        };
        let tree = Some(&outline as &Path<'_>);
        let first = |lists: &[Vec<Hit>], query_leads: bool, tree: Option<&Path<'_>>| {
            let fused = fuse(lists, query_leads, tree, VOTING);
            (fused[0].document, fused[0].heading)
        };
        // The question names the page, a rephrasing a section of it, another a subsection of
        // that: each names where the one before it is, deeper. Counted by section alone, the
        // three tie and the best phrasing's (the page) stands.
        let deeper = [vec![hit(1, 0)], vec![hit(1, 5)], vec![hit(1, 6)]];
        assert_eq!(first(&deeper, false, tree), (1, Some(6)));
        assert_eq!(first(&deeper, false, None), (1, Some(0)));
        // Two rephrasings name two steps of one procedure, the question another part of the
        // page: the procedure holds most first hits, and its first step by the earlier
        // phrasing is named.
        let steps = [vec![hit(1, 1)], vec![hit(1, 3)], vec![hit(1, 4)]];
        assert_eq!(first(&steps, false, tree), (1, Some(3)));
        assert_eq!(first(&steps, false, None), (1, Some(1)));
        // The query's clear winner keeps its section against a majority elsewhere in the
        // page, stays first, and only a subsection of it that a rephrasing names refines it.
        let kept = [
            vec![hit(1, 2), hit(2, 0)],
            vec![hit(2, 0), hit(1, 1)],
            vec![hit(2, 0), hit(1, 1)],
        ];
        assert_eq!(first(&kept, true, tree), (1, Some(2)));
        let refined = [
            vec![hit(1, 2), hit(2, 0)],
            vec![hit(2, 0), hit(1, 4)],
            vec![hit(2, 0), hit(1, 1)],
        ];
        assert_eq!(first(&refined, true, tree), (1, Some(4)));
        assert_eq!(first(&refined, true, None), (1, Some(2)));
        // Phrasings that name different sections of one chunk: the best phrasing's section
        // is the one outvoted, not the first phrasing's.
        let mut difference = hit(1, 1);
        let mut declarative = hit(1, 2);
        (difference.chunk, declarative.chunk) = (0, 0);
        let one_chunk = [
            vec![hit(2, 0), declarative.clone()],
            vec![difference],
            vec![declarative],
        ];
        assert_eq!(first(&one_chunk, false, tree), (1, Some(2)));
        assert_eq!(first(&one_chunk, false, None), (1, Some(1)));
    }

    #[test]
    fn sections_are_fused_one_by_one_and_keep_their_best_ranking() {
        let mut second = hit(1, 2);
        second.snippet = 5..9;
        let fused = fuse(
            &[vec![hit(1, 1), hit(1, 2)], vec![second.clone()]],
            false,
            None,
            RANKS,
        );
        assert_eq!(fused.len(), 2);
        // Both lists rank the document first; the earlier list's chunk speaks for it.
        assert_eq!(fused[0].heading, Some(1));
        assert_eq!(fused[1].heading, Some(2));
        assert_eq!(fused[1].snippet, 5..9, "the snippet of the best ranking");
    }

    /// `(document uri, rank)` of every hit of a search on the small fixture.
    fn search_fixture(query: &str, also: &[&str], offset: usize, limit: usize) -> Vec<String> {
        let catalog = Box::leak(Box::new(crate::search::tests::fixture()));
        let index = Index::from(&*catalog);
        let results = index.search(&Request {
            query,
            kind: crate::search::Kind::All,
            offset,
            limit,
            also,
        });
        results
            .hits
            .iter()
            .map(|h| index.document(h.document).uri.to_string())
            .collect()
    }

    /// The URI of the first hit of a search of the whole catalog, and whether it leads
    /// clearly.
    fn first_hit(index: &Index<'_>, query: &str, also: &[&str], params: &Params) -> (String, bool) {
        let results = index.search_with(
            &Request {
                query,
                kind: crate::search::Kind::All,
                offset: 0,
                limit: 5,
                also,
            },
            params,
        );
        let first = index.document(results.hits[0].document).uri.to_string();
        (first, results.clear_lead)
    }

    #[test]
    fn a_pasted_line_keeps_the_section_that_quotes_it_first() {
        // Hugo's case (issue 47): the warning is quoted in one section, and the query alone
        // ranks it first, but narrowly; rephrasings in the command's words put the command's
        // page first. Six of the query's words in a row, held by its first hit and not by
        // its second, keep that hit first (`Params::keep_pasted_winner`).
        let catalog = Box::leak(Box::new(crate::search::tests::compile_fixture(|write| {
            write(
                "docs/modules.md",
                "# Modules\n\n## Staleness detection\n\nWhen a module's package.hugo.json \
                 changes, every build warns until you pack again:\n\n```text\nWARN  npm \
                 dependencies are out of sync, please run \"hugo mod npm pack\"\n```\n",
            );
            write(
                "docs/npm-pack.md",
                "# hugo mod npm pack\n\n## Synopsis\n\nHugo warns when the npm dependencies \
                 of your modules are out of sync with package.json; then run hugo mod npm \
                 pack, which writes package.json from the package.hugo.json of every \
                 module.\n",
            );
        })));
        let index = Index::from(&*catalog);
        let query = "WARN npm dependencies are out of sync, please run \"hugo mod npm pack\"";
        let also = [
            "hugo mod npm pack package.hugo.json",
            "module npm dependencies package.json out of sync",
        ];
        let ranked = |params: &Params, also: &[&str]| first_hit(&index, query, also, params);
        let quoted = "resource://docs/modules.md".to_string();
        let unpasted = Params {
            keep_pasted_winner: false,
            ..Params::default()
        };
        let alone = ranked(&Params::default(), &[]);
        assert_eq!(alone.0, quoted);
        assert!(
            !alone.1,
            "the query alone must lead narrowly for the rule to matter"
        );
        assert_ne!(ranked(&unpasted, &also).0, quoted);
        assert_eq!(ranked(&Params::default(), &also).0, quoted);
    }

    #[test]
    fn a_clear_lead_without_the_query_s_words_in_a_row_is_no_exact_match() {
        // The question's words land, scattered, in a code of conduct and lead clearly
        // there; both rephrasings agree on the mock transport. Only a winner that holds
        // three of the query's words in a row as written (`Params::winner_verbatim`) is
        // kept first against them.
        let catalog = Box::leak(Box::new(crate::search::tests::compile_fixture(|write| {
            write(
                "docs/conduct.md",
                "# Code of Conduct\n\n## Behaviour\n\nDo not send made-up stories about other \
                 members, do not keep contacting a member who asked you to stop, and wait for a \
                 reply before you post on their website again.\n",
            );
            write(
                "docs/transports.md",
                "# Transports\n\n## Mock transports\n\nIn tests, a mock transport hands every \
                 request to a handler that returns a canned response, so nothing goes over \
                 the network.\n\n## Proxies\n\nA proxy transport sends each request through \
                 a proxy server and returns its response.\n",
            );
        })));
        let index = Index::from(&*catalog);
        let query = "for my tests hand back a made-up reply instead of contacting the website";
        let also = [
            "mock transport returns a canned response",
            "fake response handler transport",
        ];
        let first = |params: &Params, also: &[&str]| first_hit(&index, query, also, params).0;
        let conduct = "resource://docs/conduct.md";
        let transports = "resource://docs/transports.md";
        let any_lead = Params {
            winner_verbatim: false,
            ..Params::default()
        };
        assert_eq!(first(&Params::default(), &[]), conduct);
        assert_eq!(first(&any_lead, &also), conduct);
        assert_eq!(first(&Params::default(), &also), transports);
    }

    #[test]
    fn a_rephrasing_brings_in_what_the_query_alone_misses() {
        let checkboxes = "resource://skills/pdf-forms/references/reference-checkboxes";
        let alone = search_fixture("read a whole file", &[], 0, 10);
        assert_eq!(
            alone.first().map(String::as_str),
            Some("resource://docs/guide.md")
        );
        assert!(!alone.iter().any(|u| u == checkboxes), "{alone:?}");
        let fused = search_fixture("read a whole file", &["radio buttons"], 0, 10);
        assert!(fused.iter().any(|u| u == checkboxes), "{fused:?}");
        // What the query found first stays near the top.
        assert!(
            fused[..2].iter().any(|u| u == "resource://docs/guide.md"),
            "{fused:?}"
        );
    }

    #[test]
    fn fused_pages_are_the_head_of_one_ranking() {
        let also = ["hash map entry", "radio buttons"];
        let whole = search_fixture("reading files", &also, 0, 50);
        assert!(whole.len() > 3, "{whole:?}");
        for limit in [1, 2, 3] {
            assert_eq!(
                search_fixture("reading files", &also, 0, limit),
                whole[..limit]
            );
            assert_eq!(
                search_fixture("reading files", &also, limit, limit),
                whole[limit..(2 * limit).min(whole.len())]
            );
        }
    }

    #[test]
    fn two_sections_of_one_chunk_are_one_hit() {
        // Two phrasings name different sections of the same chunk (a section and its
        // subsection): one hit, with both votes, named as the better ranking names it.
        let section = hit(1, 1);
        let subsection = Hit {
            heading: Some(2),
            passage: 102,
            ..hit(1, 1)
        };
        let fused = fuse(
            &[
                vec![hit(3, 0), section.clone(), hit(2, 0)],
                vec![subsection.clone(), hit(2, 0), hit(4, 0)],
            ],
            false,
            None,
            RANKS,
        );
        let chunks: Vec<(u32, u32)> = fused.iter().map(|h| (h.document, h.chunk)).collect();
        assert_eq!(chunks, [(1, 1), (2, 0), (3, 0), (4, 0)]);
        let expected = 1.0 / (RRF_K + 1.0) + 1.0 / (RRF_K + 2.0);
        assert!((fused[0].score - expected).abs() < 1e-6);
        assert_eq!(fused[0].heading, Some(2), "named by the better ranking");
    }

    #[test]
    fn phrasings_that_find_one_document_in_different_chunks_agree() {
        // Each phrasing ranks another page first and document 1 second, each time by a
        // different chunk: by chunk, three single votes at rank 2 lose to each rank 1; by
        // document, document 1 has three votes.
        let fused = fuse(
            &[
                vec![hit(2, 0), hit(1, 0)],
                vec![hit(3, 0), hit(1, 1)],
                vec![hit(4, 0), hit(1, 2)],
            ],
            false,
            None,
            RANKS,
        );
        assert_eq!(fused[0].document, 1, "{fused:?}");
        assert_eq!(
            fused[0].chunk, 0,
            "named by the query's chunk (earliest list)"
        );
        let expected = 3.0 / (RRF_K + 2.0);
        assert!((fused[0].score - expected).abs() < 1e-6);
        // A document only a later phrasing finds has that phrasing's vote.
        let late = fuse(&[vec![hit(2, 0)], vec![hit(1, 0)]], false, None, RANKS);
        assert!(
            late.iter()
                .all(|h| (h.score - 1.0 / (RRF_K + 1.0)).abs() < 1e-6)
        );
        let order: Vec<(u32, u32)> = fused.iter().map(|h| (h.document, h.chunk)).collect();
        assert_eq!(order, [(1, 0), (2, 0), (3, 0), (4, 0), (1, 1), (1, 2)]);
    }

    #[test]
    fn the_phrasing_that_ranks_a_document_best_names_its_chunk() {
        // The query puts document 1 first by chunk 0; both rephrasings rank it second, by
        // chunk 1 (say, its "Summary"). Chunk 1 has more votes of its own, but the query
        // is the phrasing that matches the page best, so chunk 0 speaks for the document.
        let fused = fuse(
            &[
                vec![hit(1, 0), hit(2, 0)],
                vec![hit(3, 0), hit(1, 1)],
                vec![hit(4, 0), hit(1, 1)],
            ],
            false,
            None,
            RANKS,
        );
        assert_eq!((fused[0].document, fused[0].chunk), (1, 0), "{fused:?}");
        let expected = 1.0 / (RRF_K + 1.0) + 2.0 / (RRF_K + 2.0);
        assert!((fused[0].score - expected).abs() < 1e-6);
        // Chunk 1 keeps its own two votes and stays a hit of its own.
        let other = fused.iter().find(|h| (h.document, h.chunk) == (1, 1));
        assert!(other.is_some_and(|h| (h.score - 2.0 / (RRF_K + 2.0)).abs() < 1e-6));
        // When a rephrasing ranks the document better than the query, its chunk speaks.
        let fused = fuse(
            &[vec![hit(2, 0), hit(1, 0)], vec![hit(1, 1), hit(3, 0)]],
            false,
            None,
            RANKS,
        );
        assert_eq!((fused[0].document, fused[0].chunk), (1, 1), "{fused:?}");
    }

    #[test]
    fn the_query_s_clear_winner_stays_first() {
        // Issue 47's shape: the query ranks document 1 first and then eleven others that
        // four rephrasings all rank first, none of which finds document 1. Counted by rank
        // alone, each of the eleven has five votes and document 1 one: it falls out of the
        // top 10.
        let others: Vec<Hit> = (10..21).map(|d| hit(d, 0)).collect();
        let query: Vec<Hit> = std::iter::once(hit(1, 0))
            .chain(others.iter().cloned())
            .collect();
        let mut lists = vec![query];
        lists.extend(std::iter::repeat_n(others.clone(), 4));
        let outvoted = fuse(&lists, false, None, RANKS);
        let at = outvoted.iter().position(|h| h.document == 1);
        assert_eq!(at, Some(11), "{outvoted:?}");
        // When the query leads clearly, its first hit counts as every phrasing's first.
        let kept = fuse(&lists, true, None, RANKS);
        assert_eq!((kept[0].document, kept[0].chunk), (1, 0), "{kept:?}");
        assert!((kept[0].score - 5.0 / (RRF_K + 1.0)).abs() < 1e-6);
        // The rest is fused as before: only the winner moved.
        let rest: Vec<u32> = kept[1..].iter().map(|h| h.document).collect();
        let before: Vec<u32> = outvoted
            .iter()
            .map(|h| h.document)
            .filter(|&d| d != 1)
            .collect();
        assert_eq!(rest, before);
        // Document 1, second for the query and first for the rephrasing, has the most votes
        // (the_phrasing_that_ranks_a_document_best_names_its_chunk puts it first); the
        // query's clear winner still goes before it.
        let fused = fuse(
            &[vec![hit(2, 0), hit(1, 0)], vec![hit(1, 1), hit(3, 0)]],
            true,
            None,
            RANKS,
        );
        assert_eq!((fused[0].document, fused[0].chunk), (2, 0), "{fused:?}");
        assert_eq!((fused[1].document, fused[1].chunk), (1, 1), "{fused:?}");
    }

    #[test]
    fn one_list_keeps_its_order() {
        let list = vec![hit(3, 0), hit(1, 0), hit(2, 1)];
        let fused = fuse(std::slice::from_ref(&list), false, None, RANKS);
        let order: Vec<_> = fused.iter().map(|h| (h.document, h.heading)).collect();
        let expected: Vec<_> = list.iter().map(|h| (h.document, h.heading)).collect();
        assert_eq!(order, expected);
        // Several hits of one document included.
        let list = vec![hit(1, 0), hit(1, 1), hit(2, 0), hit(1, 2), hit(3, 0)];
        let alone: Vec<(u32, u32)> = fuse(std::slice::from_ref(&list), false, None, RANKS)
            .iter()
            .map(|h| (h.document, h.chunk))
            .collect();
        assert_eq!(alone, [(1, 0), (1, 1), (2, 0), (1, 2), (3, 0)]);
    }
}
