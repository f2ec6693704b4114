//! Markdown structure with pulldown-cmark: headings, top-level blocks, code blocks,
//! links, the first H1 and the first paragraph — everything the outline, the chunker,
//! the summary and link resolution need, with byte offsets into the original file.

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
use unicode_segmentation::UnicodeSegmentation;

use crate::model::{Heading, NO_HEADING};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawHeading {
    pub level: u8,
    pub text: String,
    /// `{#id}` heading attribute, when written.
    pub explicit_id: Option<String>,
    pub start: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawLink {
    pub text: String,
    pub href: String,
    pub offset: usize,
}

#[derive(Debug, Default)]
pub struct Scan {
    pub first_h1: Option<String>,
    pub first_paragraph: Option<String>,
    pub headings: Vec<RawHeading>,
    /// Starts of top-level blocks, snapped back to the start of their line.
    pub block_starts: Vec<usize>,
    /// Byte ranges of every code block, at any depth.
    pub code_blocks: Vec<Range<usize>>,
    /// Byte ranges of every inline code span, backticks included.
    pub code_spans: Vec<Range<usize>>,
    pub links: Vec<RawLink>,
    /// Byte ranges of every link (`[text](href)`, `<https://…>`), in text order.
    pub link_ranges: Vec<Range<usize>>,
}

fn options() -> Options {
    Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_HEADING_ATTRIBUTES
}

/// Scan the markdown body `text[body_offset..]`; offsets in the result are into `text`.
pub fn scan(text: &str, body_offset: usize) -> Scan {
    let body = &text[body_offset..];
    let mut scan = Scan::default();
    let mut depth = 0usize;
    // Text being collected for the innermost heading / link / first paragraph.
    let mut heading: Option<(RawHeading, String)> = None;
    let mut links: Vec<(RawLink, String)> = Vec::new();
    let mut paragraph: Option<String> = None;
    let mut image_depth = 0usize;

    for (event, range) in Parser::new_ext(body, options()).into_offset_iter() {
        let start = range.start + body_offset;
        let end = range.end + body_offset;
        match &event {
            Event::Start(_) | Event::Rule if depth == 0 => {
                scan.block_starts.push(line_start(text, start));
            }
            Event::Code(_) => scan.code_spans.push(start..end),
            _ => {}
        }
        match event {
            Event::Start(tag) => {
                depth += 1;
                match tag {
                    Tag::Heading { level, id, .. } => {
                        heading = Some((
                            RawHeading {
                                level: level as u8,
                                text: String::new(),
                                explicit_id: id.map(|id| id.to_string()),
                                start: line_start(text, start),
                            },
                            String::new(),
                        ));
                    }
                    Tag::Paragraph if depth == 1 && scan.first_paragraph.is_none() => {
                        paragraph = Some(String::new());
                    }
                    Tag::CodeBlock(_) => scan
                        .code_blocks
                        .push(line_start(text, start)..line_end(text, end)),
                    Tag::Link { dest_url, .. } => {
                        scan.link_ranges.push(start..end);
                        links.push((
                            RawLink {
                                text: String::new(),
                                href: dest_url.to_string(),
                                offset: start,
                            },
                            String::new(),
                        ))
                    }
                    Tag::Image { .. } => image_depth += 1,
                    _ => {}
                }
            }
            Event::End(tag) => {
                depth = depth.saturating_sub(1);
                match tag {
                    TagEnd::Heading(_) => {
                        if let Some((mut h, text)) = heading.take() {
                            h.text = collapse_whitespace(&text);
                            if h.level == 1 && scan.first_h1.is_none() && !h.text.is_empty() {
                                scan.first_h1 = Some(h.text.clone());
                            }
                            scan.headings.push(h);
                        }
                    }
                    TagEnd::Paragraph if depth == 0 => {
                        if let Some(p) = paragraph.take() {
                            let p = collapse_whitespace(&p);
                            if !p.is_empty() {
                                scan.first_paragraph = Some(p);
                            }
                        }
                    }
                    TagEnd::Link => {
                        if let Some((mut link, text)) = links.pop() {
                            link.text = collapse_whitespace(&text);
                            scan.links.push(link);
                        }
                    }
                    TagEnd::Image => image_depth = image_depth.saturating_sub(1),
                    _ => {}
                }
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some((_, buf)) = heading.as_mut() {
                    buf.push_str(&t);
                }
                if let Some((_, buf)) = links.last_mut() {
                    buf.push_str(&t);
                }
                if image_depth == 0
                    && let Some(buf) = paragraph.as_mut()
                {
                    buf.push_str(&t);
                }
            }
            Event::SoftBreak | Event::HardBreak => {
                if let Some((_, buf)) = heading.as_mut() {
                    buf.push(' ');
                }
                if let Some(buf) = paragraph.as_mut() {
                    buf.push(' ');
                }
            }
            _ => {}
        }
    }
    // The chunker binary-searches both: keep them sorted whatever the parser's event order.
    scan.block_starts.sort_unstable();
    scan.block_starts.dedup();
    scan.code_blocks.sort_by_key(|c| c.start);
    scan.code_spans.sort_by_key(|c| c.start);
    scan.link_ranges.sort_by_key(|l| l.start);
    scan.links.sort_by_key(|l| l.offset);
    scan
}

/// The outline: every heading with a unique GitHub-style anchor and its section range.
pub fn outline(headings: &[RawHeading], len: usize) -> Vec<Heading> {
    let mut anchors = Anchors::default();
    let mut outline = Vec::with_capacity(headings.len());
    // The headings whose sections are still open, outermost first.
    let mut open: Vec<usize> = Vec::new();
    for (i, h) in headings.iter().enumerate() {
        while open.last().is_some_and(|&j| headings[j].level >= h.level) {
            open.pop();
        }
        let parent = open.last().map_or(NO_HEADING, |&j| j as u32);
        open.push(i);
        let end = headings[i + 1..]
            .iter()
            .find(|next| next.level <= h.level)
            .map_or(len, |next| next.start);
        let base = match &h.explicit_id {
            Some(id) if !id.is_empty() => id.clone(),
            _ => heading_slug(&h.text),
        };
        let anchor = anchors.claim(&base, 1);
        outline.push(Heading {
            level: h.level,
            text: h.text.clone(),
            anchor,
            start: h.start as u32,
            end: end as u32,
            parent,
            // Needs the text: `compile::document` fills it in.
            version: 0,
        });
    }
    outline
}

/// Anchors handed out so far in one document (GitHub's de-duplication).
///
/// Hashed with foldhash's fixed seed: the server redoes this for every document it reads
/// (`tables::decode` derives anchors), a handful of short keys where SipHash's per-key cost
/// showed in the profile, and only membership is asked (no order to keep stable).
#[derive(Default)]
pub struct Anchors {
    used: HashSet<String, foldhash::fast::FixedState>,
    /// Per base, the `N` the last search stopped at: ids are only ever added, so the
    /// smallest free `N` never goes down, and a document of 100,000 identical headings
    /// costs 100,000 probes instead of five billion.
    next: HashMap<String, usize, foldhash::fast::FixedState>,
}

impl Anchors {
    /// What [`Anchors::claim`] would hand out for `base` (with `first` 1), without
    /// claiming it.
    pub fn peek(&self, base: &str) -> String {
        if !self.used.contains(base) {
            return base.to_owned();
        }
        let mut next = self.next.get(base).copied().unwrap_or(1).max(1);
        loop {
            let candidate = format!("{base}-{next}");
            if !self.used.contains(&candidate) {
                return candidate;
            }
            next += 1;
        }
    }

    /// Take `anchor` as it is (one handed out elsewhere: it was claimed from another base).
    pub fn mark(&mut self, anchor: &str) {
        self.used.insert(anchor.to_owned());
    }

    /// [`Anchors::claim`] of `base` with `first` 1, taking the slug by value: when it is
    /// free, the slug itself is the anchor.
    pub fn claim_owned(&mut self, base: String) -> String {
        if self.used.contains(base.as_str()) {
            return self.claim(&base, 1);
        }
        self.used.insert(base.clone());
        base
    }

    /// `base`, or `base-N` for the smallest `N >= first` not yet used.
    pub fn claim(&mut self, base: &str, first: usize) -> String {
        if self.used.insert(base.to_owned()) {
            return base.to_owned();
        }
        let next = self.next.entry(base.to_owned()).or_insert(first);
        *next = (*next).max(first);
        loop {
            let candidate = format!("{base}-{next}");
            *next += 1;
            if self.used.insert(candidate.clone()) {
                return candidate;
            }
        }
    }
}

/// At most three sentences, at most `max_chars` characters (cut at a word, with `…`).
pub fn summarize(text: &str, max_chars: usize) -> String {
    let mut summary = String::new();
    for sentence in text.split_sentence_bounds().take(3) {
        summary.push_str(sentence);
    }
    let summary = summary.trim();
    if summary.chars().count() <= max_chars {
        return summary.to_owned();
    }
    let mut cut = String::new();
    for word in summary.split_word_bounds() {
        if cut.chars().count() + word.chars().count() > max_chars.saturating_sub(1) {
            break;
        }
        cut.push_str(word);
    }
    format!("{}…", cut.trim_end())
}

fn collapse_whitespace(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `offset`, moved past the rest of its line when only a line break remains on it.
fn line_end(text: &str, offset: usize) -> usize {
    let rest = &text[offset..];
    if rest.starts_with("\r\n") {
        offset + 2
    } else if rest.starts_with('\n') {
        offset + 1
    } else {
        offset
    }
}

fn line_start(text: &str, offset: usize) -> usize {
    let line = text[..offset].rfind('\n').map_or(0, |nl| nl + 1);
    if text[line..offset]
        .chars()
        .all(|c| matches!(c, ' ' | '\t' | '\u{feff}'))
    {
        line
    } else {
        offset
    }
}

/// The slug a heading without an explicit id starts from: GitHub's slug of its text, or
/// `section` when that is empty (a heading of punctuation only).
pub(crate) fn heading_slug(text: &str) -> String {
    let slug = github_slugger::slug(text);
    if slug.is_empty() {
        "section".to_owned()
    } else {
        slug
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scans_structure() {
        let text = "# Title\n\nFirst *para*. Second one! Third? Fourth.\n\n## Install `it`\n\n```sh\n# not a heading\n```\n\nSee [the guide](guide.md#x).\n\n## Install it\n";
        let scan = scan(text, 0);
        assert_eq!(scan.first_h1.as_deref(), Some("Title"));
        assert_eq!(
            scan.first_paragraph.as_deref(),
            Some("First para. Second one! Third? Fourth.")
        );
        let levels: Vec<_> = scan
            .headings
            .iter()
            .map(|h| (h.level, h.text.as_str()))
            .collect();
        assert_eq!(levels, [(1, "Title"), (2, "Install it"), (2, "Install it")]);
        assert_eq!(scan.code_blocks.len(), 1);
        assert_eq!(scan.links[0].href, "guide.md#x");
        assert_eq!(scan.links[0].text, "the guide");
        let outline = outline(&scan.headings, text.len());
        let anchors: Vec<_> = outline.iter().map(|h| h.anchor.as_str()).collect();
        assert_eq!(anchors, ["title", "install-it", "install-it-1"]);
        assert_eq!(outline[0].end as usize, text.len());
        assert_eq!(outline[1].end, outline[2].start);
        assert!(text[outline[2].start as usize..].starts_with("## Install it"));
    }

    #[test]
    fn every_section_knows_the_section_it_is_part_of() {
        // Levels may skip (# then ###) and come back up (#### then ##).
        let text = "# A\n\n### B\n\n## C\n\n#### D\n\n## E\n\n# F\n\n## G\n";
        let scan = scan(text, 0);
        let outline = outline(&scan.headings, text.len());
        let parents: Vec<_> = outline
            .iter()
            .map(|h| outline.get(h.parent as usize).map(|p| p.text.as_str()))
            .collect();
        assert_eq!(
            parents,
            [
                None,
                Some("A"),
                Some("A"),
                Some("C"),
                Some("A"),
                None,
                Some("F")
            ]
        );
        for h in &outline {
            if let Some(p) = outline.get(h.parent as usize) {
                assert!(p.level < h.level && p.start < h.start && h.end <= p.end);
            }
        }
    }

    #[test]
    fn summary_is_at_most_three_sentences() {
        assert_eq!(summarize("One. Two. Three. Four.", 400), "One. Two. Three.");
        let long = "word ".repeat(200);
        let s = summarize(&long, 50);
        assert!(s.chars().count() <= 50 && s.ends_with('…'), "{s}");
    }
}
