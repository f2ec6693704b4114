//! Snippets: an exact excerpt of the hit's passage around the densest cluster of matched
//! query terms. Exact (not reflowed or ellipsised) so that an agent can find it verbatim
//! in the chunk it reads next.

use std::ops::Range;

use super::query::{MAX_TERMS, Query};
use crate::postings::{OccurrenceBlock, Occurrences};

/// Target snippet length in bytes.
pub const SNIPPET_BYTES: usize = 220;
/// Context kept before the first matched term.
const LEAD_BYTES: usize = 60;
const MAX_MATCHES: usize = 128;

/// Byte range of the snippet in the document `text`. `token_starts` is the passage's token
/// table: where an occurrence starts when its block does not say.
pub fn choose(
    query: &Query,
    passage_text: &str,
    passage_start: usize,
    occurrences: &[OccurrenceBlock<'_>; MAX_TERMS],
    token_starts: &[u32],
) -> Range<usize> {
    // (offset in passage, term) of every occurrence, in text order.
    let mut matches = [(0u32, 0u8); MAX_MATCHES];
    let mut n = 0;
    for (term, block) in occurrences.iter().enumerate().take(query.terms.len()) {
        if query.terms[term].weight == 0.0 {
            continue;
        }
        for o in Occurrences::new(*block) {
            if n == MAX_MATCHES {
                break;
            }
            let offset = if block.offsets {
                o.offset
            } else {
                token_starts.get(o.position as usize).copied().unwrap_or(0)
            };
            matches[n] = (offset, term as u8);
            n += 1;
        }
    }
    let matches = &mut matches[..n];
    matches.sort_unstable();

    // The window of SNIPPET_BYTES - LEAD_BYTES covering the most distinct terms.
    let span = (SNIPPET_BYTES - LEAD_BYTES) as u32;
    let mut best = (0usize, 0u32);
    for i in 0..matches.len() {
        let mut seen = 0u32;
        for m in matches[i..]
            .iter()
            .take_while(|m| m.0 - matches[i].0 <= span)
        {
            seen |= 1 << m.1;
        }
        if seen.count_ones() > best.1.count_ones() {
            best = (i, seen);
        }
    }
    let anchor = matches.get(best.0).map_or(0, |m| m.0 as usize);
    let lead = if matches.is_empty() { 0 } else { LEAD_BYTES };
    let from = excerpt_start(passage_text, anchor.saturating_sub(lead), anchor);
    let to = excerpt_end(passage_text, from + SNIPPET_BYTES);
    let (from, to) = trim(passage_text, from, to);
    passage_start + from..passage_start + to
}

/// A start at a word boundary at or after `at` (but not past `anchor`), on the same
/// paragraph as the anchor when there is a blank line in between.
fn excerpt_start(text: &str, at: usize, anchor: usize) -> usize {
    let mut anchor = anchor.min(text.len());
    while !text.is_char_boundary(anchor) {
        anchor -= 1;
    }
    let mut at = at.min(anchor);
    while !text.is_char_boundary(at) {
        at += 1;
    }
    if let Some(blank) = text[at..anchor].rfind("\n\n") {
        at += blank + 2;
    }
    if at > 0 && at < anchor {
        // Move past a partial word.
        if let Some((space, c)) = text[at..anchor]
            .char_indices()
            .find(|(_, c)| c.is_whitespace())
        {
            let prev = text[..at].chars().next_back();
            if prev.is_some_and(|c| !c.is_whitespace()) {
                // Whitespace is not always one byte: a no-break space is two.
                at += space + c.len_utf8();
            }
        }
    }
    at.min(anchor)
}

/// An end at a word boundary at or before `at`.
fn excerpt_end(text: &str, at: usize) -> usize {
    if at >= text.len() {
        return text.len();
    }
    let mut at = at;
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    match text[..at].rfind(char::is_whitespace) {
        Some(space) if space > at.saturating_sub(40) => space,
        _ => at,
    }
}

fn trim(text: &str, from: usize, to: usize) -> (usize, usize) {
    let slice = &text[from..to.max(from)];
    let lead = slice.len() - slice.trim_start().len();
    let trimmed = slice.trim();
    (from + lead, from + lead + trimmed.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_start_past_a_partial_word_lands_on_a_char_boundary() {
        // A no-break space (two bytes) ends the partial word the excerpt would start in.
        let text = "abc\u{a0}def ghi jkl";
        for at in 0..text.len() {
            let start = excerpt_start(text, at, text.len());
            assert!(text.is_char_boundary(start), "from {at}: {start}");
        }
        assert_eq!(
            excerpt_start(text, 1, text.len()),
            5,
            "after the no-break space"
        );
        let end = excerpt_end(text, 4);
        assert!(text.is_char_boundary(end));
    }
}
