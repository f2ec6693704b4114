//! Chunking: cut a document into section-stable pieces of at most `max_bytes`.
//!
//! Rules (SPEC §2.3):
//! - Sections start at every H1/H2 heading; content before the first one is `intro`
//!   (frontmatter alone is folded into the first section).
//! - A chunk id is its section's anchor. An oversized section is split into parts `id`,
//!   `id-2`, `id-3`…, cut at top-level block boundaries, else at line boundaries, never
//!   inside a code block or a UTF-8 character. A code block larger than the limit becomes
//!   one oversized chunk rather than being cut. A part number whose id is a heading's
//!   anchor is skipped (`setup`, `setup-3` next to a heading `Setup 2`).
//! - Chunks are contiguous and cover the document exactly, so they concatenate back to it.
//! - Ids depend only on a section's own heading and size (and on the document's anchors),
//!   so editing one section does not rename the chunks of another: part ids `{anchor}-{n}`
//!   with `n >= 2` cannot collide across sections (the anchor is everything before the last
//!   `-`), are never anchors, and never equal the intro's id (`intro`, else `intro-0`,
//!   `intro-0-0`…, whose numbers are below 2). Property-tested in `tests/chunking_props.rs`.

use std::collections::HashSet;
use std::ops::Range;

use crate::model::{Chunk, Heading, NO_HEADING};

/// Headings at this level or above start a section.
pub const SECTION_LEVEL: u8 = 2;
pub const INTRO_ID: &str = "intro";

pub struct Input<'a> {
    pub text: &'a str,
    /// Where the markdown body starts (after frontmatter).
    pub body_offset: usize,
    pub outline: &'a [Heading],
    pub block_starts: &'a [usize],
    pub code_blocks: &'a [Range<usize>],
    pub max_bytes: usize,
}

pub fn chunk(input: &Input<'_>) -> Vec<Chunk> {
    let len = input.text.len();
    let sections: Vec<(usize, &Heading)> = input
        .outline
        .iter()
        .enumerate()
        .filter(|(_, h)| h.level <= SECTION_LEVEL)
        .collect();
    // No chunk takes an id that means a heading.
    let anchors: HashSet<&str> = input.outline.iter().map(|h| h.anchor.as_str()).collect();

    // (start, end, id, heading: an outline index or NO_HEADING) per section.
    let mut spans: Vec<(usize, usize, String, u32)> = Vec::new();
    let first = sections.first().map_or(len, |h| h.1.start as usize);
    let intro_is_empty = input.text[input.body_offset.min(first)..first]
        .trim()
        .is_empty();
    // A page without sections is one intro chunk; otherwise the text before the first
    // section is a chunk of its own only when it holds something.
    let has_intro = sections.is_empty() || (first > 0 && !intro_is_empty);
    if has_intro {
        let mut id = INTRO_ID.to_owned();
        while anchors.contains(id.as_str()) {
            id.push_str("-0");
        }
        spans.push((0, first, id, NO_HEADING));
    }
    for (i, &(index, h)) in sections.iter().enumerate() {
        let start = if i == 0 && spans.is_empty() {
            0
        } else {
            h.start as usize
        };
        let end = sections
            .get(i + 1)
            .map_or(len, |next| next.1.start as usize);
        spans.push((start, end, h.anchor.clone(), index as u32));
    }

    let mut chunks = Vec::new();
    for (start, end, id, heading) in spans {
        let parts = split(input, start, end);
        let mut number = 1;
        for (k, part) in parts.into_iter().enumerate() {
            let (chunk_id, chunk_heading) = if k == 0 {
                (id.clone(), heading)
            } else {
                let part_id = loop {
                    number += 1;
                    let candidate = format!("{id}-{number}");
                    if !anchors.contains(candidate.as_str()) {
                        break candidate;
                    }
                };
                (
                    part_id,
                    heading_at(input.outline, part.start).unwrap_or(heading),
                )
            };
            chunks.push(Chunk {
                id: chunk_id,
                heading: chunk_heading,
                start: part.start as u32,
                end: part.end as u32,
                version: crate::model::short_version(
                    input
                        .text
                        .as_bytes()
                        .get(part.start..part.end)
                        .unwrap_or_default(),
                ),
            });
        }
    }
    chunks
}

/// The outline index of the last heading at or before `offset`.
fn heading_at(outline: &[Heading], offset: usize) -> Option<u32> {
    // The outline is in document order: binary search, or a document with a million
    // headings inside one oversized section is quadratic.
    let i = outline.partition_point(|h| h.start as usize <= offset);
    i.checked_sub(1).map(|i| i as u32)
}

/// The code block that strictly contains `p` (`start < p < end`). Code blocks are in
/// document order and never overlap, so a binary search finds it: cutting a section with
/// a million code blocks must not test every block at every line.
fn code_around(code_blocks: &[Range<usize>], p: usize) -> Option<&Range<usize>> {
    let i = code_blocks.partition_point(|c| c.start < p);
    i.checked_sub(1)
        .map(|i| &code_blocks[i])
        .filter(|c| p < c.end)
}

/// The code block that `p` is in, counting its first byte (`start <= p < end`).
fn code_at(code_blocks: &[Range<usize>], p: usize) -> Option<&Range<usize>> {
    let i = code_blocks.partition_point(|c| c.start <= p);
    i.checked_sub(1)
        .map(|i| &code_blocks[i])
        .filter(|c| p < c.end)
}

fn split(input: &Input<'_>, start: usize, end: usize) -> Vec<Range<usize>> {
    let text = input.text;
    let max = input.max_bytes.max(1);
    let code = input.code_blocks;
    debug_assert!(code.windows(2).all(|w| w[0].end <= w[1].start));
    debug_assert!(input.block_starts.is_sorted());
    let mut parts = Vec::new();
    let mut cur = start;
    while end - cur > max {
        let mut limit = cur + max;
        while !text.is_char_boundary(limit) {
            limit -= 1;
        }
        // 1. The last top-level block boundary that fits.
        let block = {
            let i = input.block_starts.partition_point(|&b| b <= limit);
            i.checked_sub(1)
                .map(|i| input.block_starts[i])
                .filter(|&b| b > cur)
        };
        // 2. Else the last line boundary that fits and is not inside a code block,
        //    searched backwards, jumping over code blocks whole.
        let line = || {
            let mut hi = limit;
            while hi > cur {
                let p = cur + text[cur..hi].rfind('\n')? + 1;
                match code_around(code, p) {
                    None if p < end => return Some(p),
                    None => hi = p - 1,
                    Some(block) => hi = block.start,
                }
            }
            None
        };
        let cut = block.or_else(line).unwrap_or_else(|| {
            // 3. Nothing fits: a code block runs past the limit, or one line is longer than it.
            match code_at(code, cur) {
                Some(block) => block.end.min(end),
                None => match code_around(code, limit) {
                    Some(block) if block.start > cur => block.start,
                    Some(block) => block.end.min(end),
                    None => limit,
                },
            }
        });
        let cut = if cut > cur {
            cut
        } else {
            next_char_boundary(text, cur)
        };
        parts.push(cur..cut);
        cur = cut;
    }
    // Whitespace left after an oversized block is not worth a chunk of its own; after a
    // part that is within the limit it joins it only while the limit holds.
    match parts.last_mut() {
        Some(last)
            if text[cur..end].trim().is_empty()
                && (last.len() > max || end - last.start <= max) =>
        {
            last.end = end
        }
        _ => parts.push(cur..end),
    }
    parts
}

fn next_char_boundary(text: &str, from: usize) -> usize {
    let mut p = from + 1;
    while p < text.len() && !text.is_char_boundary(p) {
        p += 1;
    }
    p.min(text.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile::markdown;

    fn run(text: &str, max: usize) -> Vec<Chunk> {
        let body_offset = crate::compile::frontmatter::parse(text)
            .unwrap()
            .map_or(0, |fm| fm.body_offset);
        let scan = markdown::scan(text, body_offset);
        let outline = markdown::outline(&scan.headings, text.len());
        chunk(&Input {
            text,
            body_offset,
            outline: &outline,
            block_starts: &scan.block_starts,
            code_blocks: &scan.code_blocks,
            max_bytes: max,
        })
    }

    fn check_cover(text: &str, chunks: &[Chunk]) {
        let joined: String = chunks
            .iter()
            .map(|c| &text[c.start as usize..c.end as usize])
            .collect();
        assert_eq!(joined, text);
        let ids: HashSet<_> = chunks.iter().map(|c| &c.id).collect();
        assert_eq!(ids.len(), chunks.len(), "ids unique: {chunks:?}");
    }

    #[test]
    fn sections_become_chunks() {
        let text = "---\nname: x\n---\n# Title\n\nIntro text.\n\n## Install\n\nSteps.\n\n### Linux\n\nMore.\n\n## Use\n\nUse it.\n";
        let chunks = run(text, 8192);
        let ids: Vec<_> = chunks.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, ["title", "install", "use"]);
        assert_eq!(
            chunks[0].start, 0,
            "frontmatter folds into the first section"
        );
        check_cover(text, &chunks);
    }

    #[test]
    fn text_before_the_first_heading_is_intro() {
        let text = "Some preface.\n\n## A\n\nx\n";
        let chunks = run(text, 8192);
        let ids: Vec<_> = chunks.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, ["intro", "a"]);
        check_cover(text, &chunks);
        assert_eq!(run("", 100).len(), 1);
        check_cover("", &run("", 100));
    }

    #[test]
    fn oversized_sections_split_without_cutting_code() {
        let mut text = String::from("## Big\n\n");
        for i in 0..40 {
            text.push_str(&format!("Paragraph {i} with some words in it.\n\n"));
        }
        text.push_str("```rust\n");
        for i in 0..50 {
            text.push_str(&format!("let x{i} = {i};\n"));
        }
        text.push_str("```\n\n## Next\n\nend\n");
        let chunks = run(&text, 300);
        check_cover(&text, &chunks);
        assert_eq!(chunks[0].id, "big");
        assert_eq!(chunks[1].id, "big-2");
        let fence = text.find("```rust").unwrap();
        let fence_end = text.rfind("```\n").unwrap() + 4;
        for c in &chunks {
            let (s, e) = (c.start as usize, c.end as usize);
            assert!(
                !(s > fence && s < fence_end),
                "chunk starts inside the code block"
            );
            assert!(
                e - s <= 300 || (s == fence && e >= fence_end),
                "{c:?} fence {fence}..{fence_end}"
            );
        }
        assert_eq!(chunks.last().unwrap().id, "next");
    }

    #[test]
    fn long_lines_split_on_char_boundaries() {
        let text = format!("## Wide\n\n{}\n", "é".repeat(1000));
        let chunks = run(&text, 101);
        check_cover(&text, &chunks);
        assert!(chunks.iter().all(|c| c.end - c.start <= 101));
    }

    #[test]
    fn split_parts_skip_ids_that_name_headings() {
        let mut text = String::from("## Setup\n\n");
        for _ in 0..20 {
            text.push_str("Lorem ipsum dolor sit amet.\n\n");
        }
        text.push_str("## Setup 2\n\nother\n");
        let chunks = run(&text, 200);
        check_cover(&text, &chunks);
        let ids: Vec<_> = chunks.iter().map(|c| c.id.as_str()).collect();
        assert!(ids.contains(&"setup-2"));
        assert_eq!(ids.iter().filter(|id| **id == "setup-2").count(), 1);
        assert_eq!(chunks.last().unwrap().heading, 1, "the heading `Setup 2`");
        assert_eq!(chunks.last().unwrap().id, "setup-2");
    }

    #[test]
    fn editing_one_section_keeps_other_ids() {
        let a = "# T\n\n## One\n\nshort\n\n## Two\n\nshort\n";
        let b = format!(
            "# T\n\n## One\n\n{}\n\n## Two\n\nshort\n",
            "long text. ".repeat(100)
        );
        let ids = |t: &str| run(t, 200).into_iter().map(|c| c.id).collect::<Vec<_>>();
        let (ia, ib) = (ids(a), ids(&b));
        assert!(ib.contains(&"two".to_string()) && ia.contains(&"two".to_string()));
        assert!(ib.len() > ia.len());
    }
}
