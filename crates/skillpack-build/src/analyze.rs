//! Text analysis for search: one function turns text into index terms, used by the
//! compiler on every document and by the server on every query, so that a query is cut,
//! folded and stemmed exactly like the text it is matched against.
//!
//! Shared by `build.rs` (included with `#[path]`) and the runtime.
//!
//! - Words are found with Unicode word boundaries (UAX #29, `unicode-segmentation`),
//!   lowercased, stripped of diacritics (`unicode-normalization`), and stemmed with the Snowball English stemmer (`rust-stemmers`).
//! - Code identifiers are indexed whole *and* by their parts: `read_to_string` gives the
//!   term `read_to_string` and the words `read`, `to`, `string`; `HashMap` gives `hashmap`,
//!   `hash`, `map`; `vec.push` gives `vec.push`, `vec`, `push`.
//! - Words joined by `::`, `-` or `/` without spaces (`std::fs::read`, `skill-creator`,
//!   `src/main.rs`) also give the whole compound as one term.
//! - Every term carries its token position (parts of an identifier take consecutive
//!   positions, so the phrase "hash map" matches `HashMap`) and its byte range in the text
//!   (for snippets).
//! - Inside code (byte ranges the caller marks: code spans and blocks of a document, the
//!   code-shaped parts of a query) runs of operator characters are terms too (`->`, `?`,
//!   `..=`, `@`, `&`): in code they carry meaning (`-> !`, `x @ 1..=5`) that no word does.
//!   They take the position of the token that follows and add none, so the positions of
//!   words (phrases, proximity, field lengths) are the same with or without them.

use std::borrow::Cow;
use std::ops::Range;

use rust_stemmers::{Algorithm, Stemmer};
use unicode_segmentation::UnicodeSegmentation;

/// Longer tokens (hashes, base64, minified code) are skipped: nobody searches for them.
pub const MAX_TOKEN_BYTES: usize = 48;
/// At most this many words form one compound term.
const MAX_COMPOUND_WORDS: usize = 6;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TermKind {
    /// A plain word, stemmed.
    Word,
    /// An identifier as written, lowercased (`read_to_string`, `hashmap`, `vec.push`).
    Identifier,
    /// One part of an identifier, stemmed (`read`, `hash`).
    Part,
    /// Words joined by `::`, `-` or `/` (`std::fs::read`, `skill-creator`), lowercased.
    Compound,
    /// A run of operator characters inside code (`->`, `?`, `..=`), as written.
    Operator,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Term<'a> {
    pub text: &'a str,
    pub kind: TermKind,
    pub position: u32,
    /// Byte range in the analysed text.
    pub start: usize,
    pub end: usize,
}

/// Distinct words whose stems an [`Analyzer`] remembers (a few MiB at most).
const STEM_CACHE_ENTRIES: usize = 1 << 16;

/// Reusable analysis state (the stemmer and scratch buffers), so that analysing text does
/// not allocate per token.
pub struct Analyzer {
    stemmer: Stemmer,
    /// Stems of the words seen so far (words repeat: a 10,000-document build stems a few
    /// million words, a few tens of thousands of them distinct). Bounded, so that a
    /// long-lived analyzer fed hostile queries cannot grow without limit.
    stems: std::collections::HashMap<String, String, foldhash::fast::FixedState>,
    lower: String,
    compound: String,
    parts: Vec<(usize, usize)>,
    words: Vec<(usize, usize)>,
}

impl Default for Analyzer {
    fn default() -> Self {
        Analyzer::new()
    }
}

impl std::fmt::Debug for Analyzer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Analyzer(english)")
    }
}

impl Analyzer {
    pub fn new() -> Analyzer {
        Analyzer {
            stemmer: Stemmer::create(Algorithm::English),
            stems: Default::default(),
            lower: String::new(),
            compound: String::new(),
            parts: Vec::new(),
            words: Vec::new(),
        }
    }

    /// Call `emit` for every term of `text`, in text order; positions start at `first`.
    /// Returns the position after the last token (the token count when `first` is 0).
    pub fn analyze(&mut self, text: &str, first: u32, emit: impl FnMut(Term<'_>)) -> u32 {
        self.analyze_code(text, first, &[], emit)
    }

    /// [`Analyzer::analyze`], with operator terms inside `code`: sorted, disjoint byte
    /// ranges of `text`.
    pub fn analyze_code(
        &mut self,
        text: &str,
        first: u32,
        code: &[Range<usize>],
        mut emit: impl FnMut(Term<'_>),
    ) -> u32 {
        let mut position = first;
        // The current run of words joined by `::`, `-` or `/`: (start, end) per word.
        let mut words = std::mem::take(&mut self.words);
        words.clear();
        let mut joiner_start: Option<usize> = None;
        // The current run of operator characters.
        let mut operator: Option<Range<usize>> = None;
        for (offset, segment) in text.split_word_bound_indices() {
            if is_word(segment) {
                let joined = joiner_start.is_some_and(|j| is_joiner(&text[j..offset]));
                if !joined || words.len() >= MAX_COMPOUND_WORDS {
                    position = self.flush(text, &mut words, position, &mut emit);
                }
                if let Some(run) = operator.take()
                    && !joined
                {
                    emit_operator(text, run, code, position, &mut emit);
                }
                words.push((offset, offset + segment.len()));
                joiner_start = Some(offset + segment.len());
            } else if segment.chars().all(char::is_whitespace) {
                position = self.flush(text, &mut words, position, &mut emit);
                if let Some(run) = operator.take() {
                    emit_operator(text, run, code, position, &mut emit);
                }
                joiner_start = None;
            } else if segment.chars().all(is_operator_char) {
                // Punctuation stays pending: `::` arrives as two `:` segments, and is a
                // joiner when a word follows.
                let end = offset + segment.len();
                operator = Some(operator.map_or(offset..end, |run| run.start..end));
            } else if let Some(run) = operator.take() {
                // A bracket or comma ends the run; the words before it cannot be joined
                // across it either.
                position = self.flush(text, &mut words, position, &mut emit);
                emit_operator(text, run, code, position, &mut emit);
            }
        }
        position = self.flush(text, &mut words, position, &mut emit);
        if let Some(run) = operator.take() {
            emit_operator(text, run, code, position, &mut emit);
        }
        self.words = words;
        position
    }

    /// Emit a run of joined words: the compound (when there are several words), then every
    /// word with its identifier parts.
    fn flush(
        &mut self,
        text: &str,
        words: &mut Vec<(usize, usize)>,
        mut position: u32,
        emit: &mut impl FnMut(Term<'_>),
    ) -> u32 {
        if words.is_empty() {
            return position;
        }
        if words.len() > 1 {
            let (start, end) = (words[0].0, words[words.len() - 1].1);
            if end - start <= MAX_TOKEN_BYTES * 2 {
                let mut compound = std::mem::take(&mut self.compound);
                lowercase_into(&text[start..end], &mut compound);
                emit(Term {
                    text: &compound,
                    kind: TermKind::Compound,
                    position,
                    start,
                    end,
                });
                self.compound = compound;
            }
        }
        for &(start, end) in words.iter() {
            position = self.word(text, start, end, position, emit);
        }
        words.clear();
        position
    }

    fn word(
        &mut self,
        text: &str,
        start: usize,
        end: usize,
        position: u32,
        emit: &mut impl FnMut(Term<'_>),
    ) -> u32 {
        let word = &text[start..end];
        if word.len() > MAX_TOKEN_BYTES {
            return position + 1;
        }
        let mut parts = std::mem::take(&mut self.parts);
        split_identifier(word, &mut parts);
        let mut lower = std::mem::take(&mut self.lower);
        let next = if parts.len() <= 1 {
            lowercase_into(word, &mut lower);
            let stemmed = self.stem(&lower);
            emit(Term {
                text: &stemmed,
                kind: TermKind::Word,
                position,
                start,
                end,
            });
            position + 1
        } else {
            lowercase_into(word, &mut lower);
            emit(Term {
                text: &lower,
                kind: TermKind::Identifier,
                position,
                start,
                end,
            });
            let mut p = position;
            for &(a, b) in parts.iter() {
                lowercase_into(&word[a..b], &mut lower);
                let stemmed = self.stem(&lower);
                emit(Term {
                    text: &stemmed,
                    kind: TermKind::Part,
                    position: p,
                    start: start + a,
                    end: start + b,
                });
                p += 1;
            }
            p
        };
        self.lower = lower;
        self.parts = parts;
        next
    }

    fn stem<'s>(&'s mut self, lower: &'s str) -> Cow<'s, str> {
        // The stemmer is for words; numbers and mixed tokens pass through unchanged.
        if !(lower.chars().all(char::is_alphabetic) || lower.contains('\'')) {
            return Cow::Borrowed(lower);
        }
        if !self.stems.contains_key(lower) {
            if self.stems.len() >= STEM_CACHE_ENTRIES {
                return self.stemmer.stem(lower);
            }
            let stemmed = self.stemmer.stem(lower).into_owned();
            self.stems.insert(lower.to_owned(), stemmed);
        }
        Cow::Borrowed(&self.stems[lower])
    }
}

/// Add `term` to a token table (`postings::write_token_starts`): `table[p]` is where the
/// token at position `p` starts, which is where the first term at `p` that is not an
/// operator starts (an operator takes the position of the token after it). A position no
/// term starts at (a token too long to index) repeats the start before it.
pub fn record_token_start(table: &mut Vec<u32>, term: &Term<'_>) {
    if term.kind != TermKind::Operator && term.position as usize >= table.len() {
        let last = table.last().copied().unwrap_or(0);
        table.resize(term.position as usize, last);
        table.push(term.start as u32);
    }
}

/// Emit the operator `text[run]` at `position` when it lies in `code` and means something
/// there: single dots, colons, dashes, slashes, `=`, `<` and `>` are too common in code
/// to tell anything apart (member access, types, assignment, generics), and long runs are
/// decoration (`---`, `////`).
fn emit_operator(
    text: &str,
    run: Range<usize>,
    code: &[Range<usize>],
    position: u32,
    emit: &mut impl FnMut(Term<'_>),
) {
    let op = &text[run.clone()];
    let common = matches!(op, "." | ":" | "=" | "<" | ">")
        || op.bytes().all(|b| b == b'-')
        || op.bytes().all(|b| b == b'/');
    if common || op.len() > MAX_OPERATOR_BYTES {
        return;
    }
    let i = code.partition_point(|c| c.end <= run.start);
    if code.get(i).is_some_and(|c| c.start <= run.start) {
        emit(Term {
            text: op,
            kind: TermKind::Operator,
            position,
            start: run.start,
            end: run.end,
        });
    }
}

/// Operators longer than this are not terms.
const MAX_OPERATOR_BYTES: usize = 3;

/// Characters that form operators in code (brackets, commas, semicolons and quotes do not).
pub fn is_operator_char(c: char) -> bool {
    matches!(
        c,
        '!' | '#'
            | '$'
            | '%'
            | '&'
            | '*'
            | '+'
            | '-'
            | '.'
            | '/'
            | ':'
            | '<'
            | '='
            | '>'
            | '?'
            | '@'
            | '^'
            | '|'
            | '~'
    )
}

/// A word segment holds at least one letter or digit (UAX #29 also yields punctuation and
/// whitespace segments).
fn is_word(segment: &str) -> bool {
    segment.chars().any(char::is_alphanumeric)
}

/// What may join two words into a compound term.
fn is_joiner(between: &str) -> bool {
    matches!(between, "::" | "-" | "/")
}

/// Lowercase `text` into `out`, dropping diacritics (`naïve` → `naive`: canonical
/// decomposition without combining marks) and folding typographic apostrophes to `'`.
fn lowercase_into(text: &str, out: &mut String) {
    use unicode_normalization::char::{decompose_canonical, is_combining_mark};
    out.clear();
    for c in text.chars() {
        match c {
            '\u{2019}' | '\u{2018}' => out.push('\''),
            c if c.is_ascii() => out.push(c.to_ascii_lowercase()),
            c => {
                for lower in c.to_lowercase() {
                    decompose_canonical(lower, |d| {
                        if !is_combining_mark(d) {
                            out.push(d);
                        }
                    });
                }
            }
        }
    }
}

/// Split an identifier into parts: at `_` and `.` between letters, and at case changes
/// (`HashMap` → `Hash`, `Map`; `HTTPServer` → `HTTP`, `Server`). Ranges are byte ranges in
/// `word`. A plain word gives one part.
fn split_identifier(word: &str, parts: &mut Vec<(usize, usize)>) {
    parts.clear();
    let mut start: Option<usize> = None;
    let mut prev: Option<char> = None;
    for (offset, c) in word.char_indices() {
        let next = word[offset + c.len_utf8()..].chars().next();
        // A `.` between digits (`3.14`, `1.2.0`) belongs to the number.
        let number_dot = c == '.'
            && prev.is_some_and(|p| p.is_ascii_digit())
            && next.is_some_and(|n| n.is_ascii_digit());
        if c == '_' || (c == '.' && !number_dot) {
            if let Some(s) = start.take() {
                parts.push((s, offset));
            }
        } else if let (Some(s), Some(p)) = (start, prev) {
            let camel = p.is_lowercase() && c.is_uppercase();
            let acronym_end =
                p.is_uppercase() && c.is_uppercase() && next.is_some_and(char::is_lowercase);
            if camel || acronym_end {
                parts.push((s, offset));
                start = Some(offset);
            }
        } else if start.is_none() {
            start = Some(offset);
        }
        prev = Some(c);
    }
    if let Some(s) = start {
        parts.push((s, word.len()));
    }
}

/// Query words that carry no topic: question words, auxiliaries, articles, pronouns and
/// prepositions. They are kept in the index (phrases need them) and dropped from ranked
/// queries, where "How do I ..." would otherwise favour prose that says "how do I".
/// A fixed list on purpose: it is part of the ranking model, evaluated with it, and must
/// not change under a dependency update. Sorted, stemmed forms, for binary search.
const STOPWORDS: &[&str] = &[
    "a",
    "about",
    "abov",
    "after",
    "again",
    "all",
    "am",
    "an",
    "and",
    "ani",
    "are",
    "aren't",
    "as",
    "at",
    "be",
    "been",
    "befor",
    "being",
    "between",
    "both",
    "but",
    "by",
    "can",
    "can't",
    "could",
    "couldn't",
    "did",
    "didn't",
    "do",
    "doe",
    "doesn't",
    "don't",
    "down",
    "dure",
    "each",
    "few",
    "for",
    "from",
    "further",
    "had",
    "has",
    "have",
    "having",
    "he",
    "her",
    "here",
    "herself",
    "him",
    "himself",
    "his",
    "how",
    "i",
    "i'm",
    "i'v",
    "if",
    "in",
    "into",
    "is",
    "isn't",
    "it",
    "it'",
    "itself",
    "just",
    "let",
    "me",
    "might",
    "more",
    "most",
    "must",
    "my",
    "myself",
    "need",
    "no",
    "nor",
    "not",
    "now",
    "of",
    "off",
    "on",
    "onc",
    "onli",
    "or",
    "other",
    "our",
    "ourselv",
    "out",
    "over",
    "own",
    "same",
    "shall",
    "she",
    "should",
    "shouldn't",
    "so",
    "some",
    "such",
    "than",
    "that",
    "the",
    "their",
    "them",
    "themselv",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "through",
    "to",
    "too",
    "under",
    "until",
    "up",
    "veri",
    "want",
    "was",
    "wasn't",
    "we",
    "were",
    "what",
    "when",
    "where",
    "whi",
    "which",
    "while",
    "who",
    "whom",
    "will",
    "with",
    "won't",
    "would",
    "wouldn't",
    "you",
    "your",
    "yourself",
    "yourselv",
];

/// Whether an analysed (lowercased, stemmed) term is a stopword.
pub fn is_stopword(term: &str) -> bool {
    STOPWORDS.binary_search(&term).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terms(text: &str) -> Vec<(String, TermKind, u32)> {
        let mut out = Vec::new();
        Analyzer::new().analyze(text, 0, |t| {
            out.push((t.text.to_owned(), t.kind, t.position));
        });
        out
    }

    fn texts(text: &str) -> Vec<String> {
        terms(text).into_iter().map(|t| t.0).collect()
    }

    #[test]
    fn stems_and_lowercases_words() {
        assert_eq!(
            texts("Running the Tests, quickly!"),
            ["run", "the", "test", "quick"]
        );
        assert_eq!(texts("Rust’s ownership"), ["rust", "ownership"]);
    }

    #[test]
    fn identifiers_are_indexed_whole_and_by_parts() {
        assert_eq!(
            terms("read_to_string HashMap"),
            [
                ("read_to_string".into(), TermKind::Identifier, 0),
                ("read".into(), TermKind::Part, 0),
                ("to".into(), TermKind::Part, 1),
                ("string".into(), TermKind::Part, 2),
                ("hashmap".into(), TermKind::Identifier, 3),
                ("hash".into(), TermKind::Part, 3),
                ("map".into(), TermKind::Part, 4),
            ]
        );
        assert_eq!(texts("HTTPServer"), ["httpserver", "http", "server"]);
        assert_eq!(texts("vec.push(4)"), ["vec.push", "vec", "push", "4"]);
        assert_eq!(texts("version 1.2.0"), ["version", "1.2.0"]);
    }

    #[test]
    fn paths_and_hyphenated_names_are_compounds() {
        assert_eq!(
            texts("std::collections::HashMap"),
            [
                "std::collections::hashmap",
                "std",
                "collect",
                "hashmap",
                "hash",
                "map"
            ]
        );
        assert_eq!(
            texts("skill-creator, a - b"),
            ["skill-creator", "skill", "creator", "a", "b"]
        );
        assert_eq!(
            texts("src/main.rs"),
            ["src/main.rs", "src", "main.rs", "main", "rs"]
        );
        // Spaces break a compound; so does other punctuation.
        assert_eq!(texts("std :: fs"), ["std", "fs"]);
        assert_eq!(texts("--release"), ["releas"]);
    }

    #[test]
    fn byte_ranges_point_into_the_text() {
        let text = "Use `Vec::new()` here";
        let mut seen = Vec::new();
        Analyzer::new().analyze(text, 0, |t| seen.push((t.text.to_owned(), t.start, t.end)));
        for (term, start, end) in &seen {
            let slice = &text[*start..*end];
            assert!(
                slice.to_lowercase().starts_with(&term[..1]),
                "{term} {slice}"
            );
        }
        assert!(
            seen.iter()
                .any(|(t, s, e)| t == "vec::new" && &text[*s..*e] == "Vec::new")
        );
    }

    #[test]
    fn operators_are_terms_only_in_code() {
        let code = |text: &str| {
            let mut out = Vec::new();
            let whole = 0..text.len();
            let end = Analyzer::new().analyze_code(text, 0, std::slice::from_ref(&whole), |t| {
                out.push((t.text.to_owned(), t.position));
            });
            (out, end)
        };
        // `-> !`: both operators sit at the position after `)`, which adds none.
        let (terms, end) = code("fn f() -> !");
        assert_eq!(
            terms,
            [
                ("fn".into(), 0),
                ("f".into(), 1),
                ("->".into(), 2),
                ("!".into(), 2)
            ]
        );
        assert_eq!(end, 2, "operators take no position of their own");
        let (terms, _) = code("n @ 1..=5");
        assert_eq!(
            terms,
            [
                ("n".into(), 0),
                ("@".into(), 1),
                ("1".into(), 1),
                ("..=".into(), 2),
                ("5".into(), 2)
            ]
        );
        let (terms, _) = code("x? &mut v");
        let found: Vec<&str> = terms.iter().map(|t| t.0.as_str()).collect();
        assert_eq!(found, ["x", "?", "&", "mut", "v"]);
        // Joiners stay compounds; common or long punctuation is not a term.
        let (terms, _) = code("std::fs a.b c = d <T> --- // e");
        assert!(
            terms.iter().all(|t| t.0.chars().any(char::is_alphanumeric)),
            "{terms:?}"
        );
        // Outside the code ranges, nothing changes.
        assert_eq!(texts("fn f() -> !"), ["fn", "f"]);
    }

    #[test]
    fn long_tokens_are_skipped_and_unicode_is_kept() {
        let hash = "a".repeat(MAX_TOKEN_BYTES + 1);
        assert_eq!(texts(&format!("x {hash} y")), ["x", "y"]);
        assert_eq!(texts("Größe naïve 東京"), ["große", "naiv", "東", "京"]);
    }

    #[test]
    fn stopwords_are_sorted_stemmed_forms() {
        assert!(
            STOPWORDS.windows(2).all(|w| w[0] < w[1]),
            "keep the list sorted"
        );
        let mut analyzer = Analyzer::new();
        for word in [
            "How", "do", "I", "the", "does", "which", "only", "very", "can’t", "I've",
        ] {
            let mut stemmed = String::new();
            analyzer.analyze(word, 0, |t| stemmed = t.text.to_owned());
            assert!(is_stopword(&stemmed), "{word} → {stemmed}");
        }
        assert!(!is_stopword("rust"));
    }
}
