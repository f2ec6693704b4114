//! Property tests of the chunker (SPEC §2.3) on generated markdown: chunks concatenate
//! back to the document exactly, ids are unique and stable, code blocks and UTF-8
//! characters are never cut, oversized chunks are code blocks, and editing one section's
//! body leaves every other section's chunk ids unchanged.
//!
//! The generator favours what breaks chunkers: tiny size limits, headings that collide
//! with split-part ids (`a` next to `a 2`), fences that contain heading-like lines,
//! multi-byte characters, CRLF, frontmatter and text before the first heading.

use std::collections::HashSet;

use proptest::prelude::*;
use skillpack_server::compile::{chunk, frontmatter, markdown};
use skillpack_server::model::Chunk;

/// The pieces one document is compiled into.
struct Chunked {
    chunks: Vec<Chunk>,
    code_blocks: Vec<std::ops::Range<usize>>,
}

fn run(text: &str, max_bytes: usize) -> Chunked {
    let body_offset = match frontmatter::parse(text) {
        Ok(Some(fm)) => fm.body_offset,
        _ => frontmatter::bom_len(text),
    };
    let scan = markdown::scan(text, body_offset);
    let outline = markdown::outline(&scan.headings, text.len());
    let chunks = chunk::chunk(&chunk::Input {
        text,
        body_offset,
        outline: &outline,
        block_starts: &scan.block_starts,
        code_blocks: &scan.code_blocks,
        max_bytes,
    });
    Chunked {
        chunks,
        code_blocks: scan.code_blocks,
    }
}

/// Heading texts chosen to collide: `a 2` slugs to `a-2`, the id of `a`'s second part.
fn heading() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "a",
        "a 2",
        "A-2",
        "a 2 2",
        "b",
        "b 3",
        "intro",
        "Intro 2",
        "Setup",
        "setup 2",
        "x",
        "Ünïcödé",
        "日本語",
        "",
    ])
    .prop_map(str::to_owned)
}

fn word() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "lorem",
        "ipsum",
        "é",
        "日本",
        "🦀",
        "`code`",
        "[link](x.md)",
        "*em*",
        "#",
        "##",
        "```",
        "a-2",
        "\\",
        "<div>",
        "|",
        "-",
    ])
    .prop_map(str::to_owned)
}

/// One block of a section body (never a heading, so that editing a body cannot change the
/// set of anchors other sections' ids are checked against).
fn block() -> impl Strategy<Value = String> {
    prop_oneof![
        // A paragraph, sometimes one very long line.
        // (Starting with a plain word: `#`, `-` or a fence at the start would make it a
        // heading, a list or code.)
        prop::collection::vec(word(), 1..60).prop_map(|w| format!("Text {}\n", w.join(" "))),
        // A fenced code block whose lines look like headings and fences.
        (
            prop::sample::select(vec!["```", "~~~", "````"]),
            prop::collection::vec(
                prop::sample::select(vec![
                    "## not a heading",
                    "let x = 1;",
                    "```not a close",
                    "é日🦀",
                    ""
                ]),
                0..30
            )
        )
            .prop_map(|(fence, lines)| {
                let mut s = format!("{fence}rust\n");
                for line in lines {
                    s.push_str(line);
                    s.push('\n');
                }
                s.push_str(fence);
                s.push('\n');
                s
            }),
        // A list with a fenced block inside an item.
        prop::collection::vec(word(), 1..10).prop_map(|w| format!(
            "- item {}\n  ```\n  ## inside\n  {}\n  ```\n- end\n",
            w.join(" "),
            w.join(" ")
        )),
        // An indented code block.
        prop::collection::vec(word(), 1..8)
            .prop_map(|w| format!("    code {}\n    more\n", w.join(" "))),
        Just("> quoted\n> text\n".to_owned()),
        Just("| a | b |\n|---|---|\n| 1 | 2 |\n".to_owned()),
    ]
}

fn body() -> impl Strategy<Value = String> {
    prop::collection::vec(block(), 0..12).prop_map(|blocks| blocks.join("\n"))
}

/// A document: optional frontmatter, optional preface, then `## heading` sections.
#[derive(Debug, Clone)]
struct Doc {
    frontmatter: bool,
    preface: String,
    sections: Vec<(u8, String, String)>,
    crlf: bool,
}

impl Doc {
    fn render(&self) -> String {
        let mut text = String::new();
        if self.frontmatter {
            text.push_str("---\nname: x\ndescription: y\n---\n");
        }
        text.push_str(&self.preface);
        for (level, heading, body) in &self.sections {
            text.push_str(&format!(
                "\n{} {heading}\n\n{body}",
                "#".repeat(*level as usize)
            ));
        }
        if self.crlf {
            text = text.replace('\n', "\r\n");
        }
        text
    }
}

fn doc() -> impl Strategy<Value = Doc> {
    (
        any::<bool>(),
        prop_oneof![Just(String::new()), body()],
        prop::collection::vec((1u8..=3, heading(), body()), 0..8),
        prop::bool::weighted(0.2),
    )
        .prop_map(|(frontmatter, preface, sections, crlf)| Doc {
            frontmatter,
            preface,
            sections,
            crlf,
        })
}

/// A document with at least one section (an H1 or H2 first).
fn sectioned_doc() -> impl Strategy<Value = Doc> {
    (doc(), 1u8..=2, heading(), body()).prop_map(|(mut doc, level, heading, body)| {
        doc.sections.insert(0, (level, heading, body));
        doc
    })
}

/// Far below the real minimum (256) to force many cuts; at least 4 so that any character
/// fits in a chunk.
fn max_bytes() -> impl Strategy<Value = usize> {
    prop_oneof![4usize..64, 64usize..512, 512usize..9000]
}

fn check(text: &str, max: usize) -> Result<(), TestCaseError> {
    let Chunked {
        chunks,
        code_blocks,
    } = run(text, max);
    prop_assert!(!chunks.is_empty());
    // Exact concatenation: contiguous, from 0 to the end, on character boundaries.
    let mut at = 0usize;
    for c in &chunks {
        let (start, end) = (c.start as usize, c.end as usize);
        prop_assert_eq!(start, at, "gap or overlap before {}", c.id);
        prop_assert!(end > start || text.is_empty(), "empty chunk {}", c.id);
        prop_assert!(text.is_char_boundary(start) && text.is_char_boundary(end));
        at = end;
    }
    prop_assert_eq!(at, text.len());
    let joined: String = chunks
        .iter()
        .map(|c| &text[c.start as usize..c.end as usize])
        .collect();
    prop_assert_eq!(&joined, text);
    // Unique ids.
    let ids: HashSet<&str> = chunks.iter().map(|c| c.id.as_str()).collect();
    prop_assert_eq!(ids.len(), chunks.len(), "duplicate ids: {:?}", chunks);
    // Code blocks are never cut.
    for c in &chunks[1..] {
        let cut = c.start as usize;
        prop_assert!(
            !code_blocks.iter().any(|b| b.start < cut && cut < b.end),
            "cut at {} inside a code block: {:?}",
            cut,
            code_blocks
        );
    }
    // A chunk over the limit is a code block (plus the whitespace after it).
    for c in &chunks {
        let (start, end) = (c.start as usize, c.end as usize);
        if end - start > max {
            let inside = code_blocks.iter().any(|b| {
                b.start <= start && text[b.end.min(end).max(start)..end].trim().is_empty()
            });
            prop_assert!(
                inside,
                "chunk {} is {} bytes > {} and not a code block",
                c.id,
                end - start,
                max
            );
        }
    }
    Ok(())
}

/// The chunk ids of every section, keyed by the section's index; chunks before the first
/// section (frontmatter, preface) under `None`.
fn ids_by_section(doc: &Doc, max: usize) -> Vec<Vec<String>> {
    let text = doc.render();
    let chunks = run(&text, max).chunks;
    // Where each section's heading line starts.
    let newline = if doc.crlf { "\r\n" } else { "\n" };
    let mut starts = Vec::new();
    let mut probe = doc.clone();
    for i in 0..doc.sections.len() {
        probe.sections.truncate(i);
        starts.push(probe.render().len() + newline.len());
        probe = doc.clone();
    }
    let mut by_section = vec![Vec::new(); doc.sections.len() + 1];
    for c in chunks {
        let section = starts.iter().rposition(|&s| s <= c.start as usize);
        by_section[section.map_or(0, |i| i + 1)].push(c.id);
    }
    by_section
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn chunks_cover_the_document_without_cutting_code(doc in doc(), max in max_bytes()) {
        check(&doc.render(), max)?;
    }

    #[test]
    fn chunking_is_deterministic(doc in doc(), max in max_bytes()) {
        let text = doc.render();
        prop_assert_eq!(run(&text, max).chunks, run(&text, max).chunks);
    }

    #[test]
    fn arbitrary_text_is_chunked_exactly(text in ".{0,2000}", max in 4usize..300) {
        check(&text, max)?;
    }

    #[test]
    fn editing_one_section_keeps_the_other_ids(
        doc in sectioned_doc(),
        max in max_bytes(),
        pick in any::<prop::sample::Index>(),
        new_body in body(),
    ) {
        // Only H1/H2 headings start sections (SPEC §2.3); edit one of those.
        let sections: Vec<usize> = (0..doc.sections.len()).filter(|&i| doc.sections[i].0 <= 2).collect();
        let edited_index = sections[pick.index(sections.len())];
        let mut edited = doc.clone();
        edited.sections[edited_index].2 = new_body;
        // The section runs until the next H1/H2: edits to its H3 subsections are edits to it.
        let owner = |i: usize| (0..=i).rev().find(|&j| doc.sections[j].0 <= 2);
        let before = ids_by_section(&doc, max);
        let after = ids_by_section(&edited, max);
        prop_assert_eq!(&before[0], &after[0], "the preface changed ids after editing section {}", edited_index);
        for i in 0..doc.sections.len() {
            if owner(i) == Some(edited_index) {
                continue;
            }
            prop_assert_eq!(
                &before[i + 1], &after[i + 1],
                "section {} ({:?}) changed ids after editing section {}",
                i, doc.sections[i].1, edited_index
            );
        }
    }
}
