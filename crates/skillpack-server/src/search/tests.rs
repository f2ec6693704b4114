//! The engine on a small catalog compiled in-process.

use super::*;
use crate::compile::{self, Config};
use crate::model::ArchivedDocKind;
use crate::postings::IMPACT_SCALE;

thread_local! {
    /// Set by a test to rank without document summaries, reading every entry.
    static EXHAUSTIVE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

pub(super) fn exhaustive() -> bool {
    EXHAUSTIVE.with(std::cell::Cell::get)
}

thread_local! {
    /// Documents the ranking skipped by their summaries, on this thread.
    static SKIPPED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

pub(super) fn skipped() {
    SKIPPED.with(|n| n.set(n.get() + 1));
}

thread_local! {
    /// Of those, the documents only the summaries' impacts ruled out, on this thread.
    static IMPACT_SKIPPED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

thread_local! {
    /// Of those, the documents of more than 64 passages counted from masks of several
    /// words, on this thread.
    static LONG_SKIPPED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

pub(super) fn long_skipped() {
    LONG_SKIPPED.with(|n| n.set(n.get() + 1));
}

pub(super) fn impact_skipped() -> bool {
    IMPACT_SKIPPED.with(|n| n.set(n.get() + 1));
    true
}

/// A compiled fixture, leaked so that it can be searched as a `'static` catalog.
pub(crate) fn fixture() -> Catalog {
    compile_fixture(write_fixture)
}

/// Compile the files that `write(path, text)` is called with.
pub(crate) fn compile_fixture(files: impl FnOnce(&dyn Fn(&str, &str))) -> Catalog {
    let dir = tempfile::tempdir().unwrap();
    let write = |rel: &str, text: &str| {
        let path = dir.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    std::fs::create_dir_all(dir.path().join("skills")).unwrap();
    std::fs::create_dir_all(dir.path().join("docs")).unwrap();
    files(&write);
    let config = Config::for_dirs(dir.path().join("skills"), dir.path().join("docs"));
    let output = compile::compile(&config).expect("the fixture compiles");
    Catalog::from_compiled(output).expect("the fixture's archive validates")
}

fn write_fixture(write: &dyn Fn(&str, &str)) {
    write(
        "skills/pdf-forms/SKILL.md",
        "---\nname: pdf-forms\ndescription: Fill in PDF forms and extract their fields. Use when a user hands you a PDF form.\n---\n\n\
         # PDF forms\n\nRead the form, then fill it.\n\n## Filling fields\n\nCall `fill_form_fields` with a map of field names.\n\n\
         ## Flattening\n\nFlatten the form so that nobody edits it afterwards.\n\n\
         ## Files\n\n- `reference/checkboxes.md` - tickbox states\n",
    );
    write(
        "skills/pdf-forms/reference/checkboxes.md",
        "# Checkboxes\n\nA checkbox field takes `/Yes` or `/Off`.\n\n## Radio groups\n\nRadio buttons share one field name.\n",
    );
    write(
        "skills/slides/SKILL.md",
        "---\nname: slides\ndescription: Build slide decks with a consistent theme.\n---\n\n# Slides\n\nPick a theme first.\n",
    );
    write(
        "docs/guide.md",
        "# Guide\n\nThis guide explains the collections.\n\n## Hash maps\n\nUse `HashMap::new` to create one; \
         `std::collections::HashMap` stores keys with values.\n\n### Entry API\n\nThe entry API inserts a key only if it is absent: \
         `map.entry(key).or_insert(0)`.\n\n## Reading files\n\nCall `read_to_string` to read a whole file into a String. Große Dateien? \
         Naïve readers fail on them.\n",
    );
    write(
        "docs/other.md",
        "# Other\n\nNothing about maps here, only the hash of a file and a word on reading.\n",
    );
    let mut padding = String::from("# Long\n\n");
    for i in 0..40 {
        padding.push_str(&format!(
            "## Part {i}\n\nfiller text about widgets number {i}.\n\n"
        ));
    }
    write("docs/long.md", &padding);
}

fn search(catalog: &Catalog, query: &str, kind: Kind, limit: usize) -> (Index<'static>, Results) {
    let index = Index::from(catalog);
    let results = index.search(&Request {
        query,
        kind,
        offset: 0,
        limit,
        also: &[],
    });
    (index, results)
}

/// `(document uri, anchor of the hit's section)` of every hit.
fn hits(index: &Index<'_>, results: &Results) -> Vec<(String, String)> {
    results
        .hits
        .iter()
        .map(|hit| {
            let uri = index.document(hit.document).uri.to_string();
            let tables = index.tables(hit.document).unwrap();
            let anchor = index
                .heading_path(hit, &tables)
                .last()
                .map(|h| h.anchor.to_string())
                .unwrap_or_default();
            (uri, anchor)
        })
        .collect()
}

#[test]
fn finds_the_most_specific_section() {
    let catalog = fixture();
    let (index, results) = search(&catalog, "insert a key only if absent", Kind::All, 5);
    assert_eq!(
        hits(&index, &results)[0],
        ("resource://docs/guide.md".into(), "entry-api".into())
    );
    let tables = index.tables(results.hits[0].document).unwrap();
    let path: Vec<&str> = index
        .heading_path(&results.hits[0], &tables)
        .iter()
        .map(|h| h.text.as_str())
        .collect();
    assert_eq!(path, ["Guide", "Hash maps", "Entry API"]);
}

#[test]
fn a_subsection_is_read_in_its_parents_context() {
    let catalog = compile_fixture(|write| {
        write(
            "docs/testing.md",
            "# Testing\n\n## Running a subset of tests by name\n\nPass a name to `cargo test` and \
             only the tests whose name contains it run.\n\n\
             ### Running single tests\n\nGive the full path of a function to run just it, by name.\n\n\
             ### Ignoring some tests\n\nMark slow ones `#[ignore]` so that they are skipped unless asked.\n",
        );
        // "one" is a common word in any real catalog.
        write(
            "docs/numbers.md",
            "# Numbers\n\n## One\n\nOne is one.\n\n## Two\n\nTwo is one more than one.\n\n\
             ## Three\n\nOne, two, three.\n",
        );
    });
    let index = Index::from(&catalog);
    let request = Request {
        query: "run one test by its name",
        kind: Kind::All,
        offset: 0,
        limit: 3,
        also: &[],
    };
    let first = |params: &Params| {
        let results = index.search_with(&request, params);
        hits(&index, &results)[0].1.clone()
    };
    let alone = Params {
        parent_share: 0.0,
        prefer_deeper: false,
        ..Params::default()
    };
    // Scored alone, the parent's more numerous matching words win; read in the context of
    // its parent (whose words match too), the subsection on running one test is the hit.
    assert_eq!(first(&alone), "running-a-subset-of-tests-by-name");
    assert_eq!(first(&Params::default()), "running-single-tests");
}

#[test]
fn a_subsection_holding_its_parents_words_is_named_over_it() {
    let catalog = compile_fixture(|write| {
        write(
            "docs/deploy.md",
            "# Deploying\n\n## Rolling restarts\n\nA rolling restart restarts the replicas one \
             by one. Each rolling restart reads every token again, so a token removed before \
             a rolling restart stops working after it.\n\n\
             ### Revocation\n\nRemove the token, then do a rolling restart.\n\n\
             ### Draining\n\nA replica drains its connections before a restart.\n",
        );
    });
    let index = Index::from(&catalog);
    let first = |query: &str, params: &Params| {
        let request = Request {
            query,
            kind: Kind::All,
            offset: 0,
            limit: 3,
            also: &[],
        };
        let results = index.search_with(&request, params);
        hits(&index, &results)[0].1.clone()
    };
    // The parent's text holds every word, more often: on its local score alone it is named.
    // "Revocation" holds every word the parent's text holds, so it is the answer.
    let parent_alone = Params {
        prefer_deeper: false,
        ..Params::default()
    };
    let query = "rolling restart token";
    assert_eq!(first(query, &parent_alone), "rolling-restarts");
    assert_eq!(first(query, &Params::default()), "revocation");
    // Neither subsection holds "replicas" with the rest: the parent stays named.
    let query = "rolling restart replicas";
    assert_eq!(first(query, &Params::default()), "rolling-restarts");
}

#[test]
fn code_identifiers_match_whole_and_by_parts() {
    let catalog = fixture();
    for query in ["read_to_string", "read to string", "ReadToString"] {
        let (index, results) = search(&catalog, query, Kind::All, 3);
        assert_eq!(
            hits(&index, &results)[0],
            ("resource://docs/guide.md".into(), "reading-files".into()),
            "{query}"
        );
    }
    let (index, results) = search(&catalog, "std::collections::HashMap", Kind::All, 3);
    assert_eq!(hits(&index, &results)[0].1, "hash-maps");
    let (index, results) = search(&catalog, "hash map", Kind::All, 3);
    assert_eq!(hits(&index, &results)[0].1, "hash-maps");
}

#[test]
fn quoted_phrases_must_appear() {
    let catalog = fixture();
    let (index, results) = search(&catalog, "\"whole file\"", Kind::All, 10);
    assert_eq!(
        hits(&index, &results),
        [(
            "resource://docs/guide.md".to_owned(),
            "reading-files".to_owned()
        )]
    );
    // The same words, not adjacent in this order: no hit.
    let (_, results) = search(&catalog, "\"file whole\"", Kind::All, 10);
    assert!(results.hits.is_empty());
    let (_, results) = search(&catalog, "\"file unheardofword\"", Kind::All, 10);
    assert!(results.hits.is_empty());
    assert_eq!(results.unknown, ["unheardofword"]);
}

#[test]
fn kind_filters_documents() {
    let catalog = fixture();
    let (index, results) = search(&catalog, "field", Kind::Skills, 10);
    assert!(!results.hits.is_empty());
    assert!(
        results
            .hits
            .iter()
            .all(|h| index.document(h.document).kind != ArchivedDocKind::Doc)
    );
    let (index, results) = search(&catalog, "file", Kind::Docs, 10);
    assert!(!results.hits.is_empty());
    assert!(
        results
            .hits
            .iter()
            .all(|h| index.document(h.document).kind == ArchivedDocKind::Doc)
    );
    let (_, results) = search(&catalog, "checkbox", Kind::Docs, 10);
    assert!(results.hits.is_empty());
}

#[test]
fn skill_descriptions_count() {
    let catalog = fixture();
    // "hands" occurs only in the description of pdf-forms.
    let (index, results) = search(&catalog, "user hands you a form", Kind::All, 3);
    assert_eq!(
        index.document(results.hits[0].document).uri.as_str(),
        "resource://skills/pdf-forms/document"
    );
}

#[test]
fn lines_that_name_a_document_describe_it() {
    // "tickbox" occurs only in the SKILL.md line that names reference/checkboxes.md: the
    // reference is found by it (anchor text), not only the line itself.
    let catalog = fixture();
    let (index, results) = search(&catalog, "tickbox states", Kind::All, 5);
    let found = hits(&index, &results);
    assert!(
        found
            .iter()
            .any(|(uri, _)| uri == "resource://skills/pdf-forms/references/reference-checkboxes"),
        "{found:?}"
    );
}

#[test]
fn pages_concatenate_to_the_full_ranking() {
    let catalog = fixture();
    let index = Index::from(&catalog);
    let request = |offset, limit| Request {
        query: "filler widgets number",
        kind: Kind::All,
        offset,
        limit,
        also: &[],
    };
    let all = index.search(&request(0, 30));
    assert_eq!(all.hits.len(), 30);
    assert!(all.has_more && all.total == 40, "{}", all.total);
    let mut paged = Vec::new();
    for page in 0..3 {
        let results = index.search(&request(page * 10, 10));
        assert_eq!(results.total, all.total);
        assert!(results.has_more);
        paged.extend(results.hits);
    }
    assert_eq!(paged, all.hits);
    let last = index.search(&request(30, 10));
    assert_eq!(last.hits.len(), 10);
    assert!(!last.has_more);
    assert!(index.search(&request(40, 10)).hits.is_empty());
}

#[test]
fn snippets_are_exact_excerpts_of_the_hit_chunk() {
    let catalog = fixture();
    let index = Index::from(&catalog);
    let queries = [
        "file",
        "reading",
        "Große Dateien",
        "naive",
        "hash",
        "checkbox yes",
        "theme",
        "widgets 17",
        "PDF forms",
    ];
    for query in queries {
        let results = index.search(&Request {
            query,
            kind: Kind::All,
            offset: 0,
            limit: 50,
            also: &[],
        });
        assert!(!results.hits.is_empty(), "{query}");
        for hit in &results.hits {
            let document = index.document(hit.document);
            let tables = index.tables(hit.document).unwrap();
            let chunk = &tables.chunks[hit.chunk as usize];
            let text = index.text(document).unwrap();
            let chunk_text = &text[chunk.start as usize..chunk.end as usize];
            let snippet = &text[hit.snippet.clone()];
            assert!(!snippet.trim().is_empty(), "{query}: empty snippet");
            assert!(
                snippet.len() <= snippet::SNIPPET_BYTES,
                "{query}: {snippet:?}"
            );
            assert!(chunk_text.contains(snippet), "{query}: {snippet:?}");
        }
    }
}

/// A fused search chooses snippets only for the hits of the page it returns: each is the
/// snippet a phrasing's own search gives that passage, on every page.
#[test]
fn a_fused_page_shows_the_snippets_its_phrasings_chose() {
    let catalog = fixture();
    let index = Index::from(&catalog);
    let requests: [(&str, &[&str]); 3] = [
        (
            "read a whole file",
            &["read_to_string", "whole file into a String"],
        ),
        ("hash map entry", &["entry API or_insert", "radio buttons"]),
        ("filler widgets", &["widgets 17", "Große Dateien"]),
    ];
    for (query, also) in requests {
        let alone: Vec<Results> = std::iter::once(query)
            .chain(also.iter().copied())
            .map(|phrasing| {
                index.search(&Request {
                    query: phrasing,
                    kind: Kind::All,
                    offset: 0,
                    limit: MAX_RESULTS,
                    also: &[],
                })
            })
            .collect();
        let mut shown = 0;
        for offset in [0, 3] {
            let fused = index.search(&Request {
                query,
                kind: Kind::All,
                offset,
                limit: 4,
                also,
            });
            for hit in &fused.hits {
                assert!(!hit.snippet.is_empty(), "{query} at {offset}: no snippet");
                assert_eq!(hit.unchosen, None, "{query} at {offset}");
                let chosen = alone.iter().any(|results| {
                    results
                        .hits
                        .iter()
                        .any(|h| h.passage == hit.passage && h.snippet == hit.snippet)
                });
                assert!(
                    chosen,
                    "{query} at {offset}: {:?} is no phrasing's",
                    hit.snippet
                );
                shown += 1;
            }
        }
        assert!(shown > 4, "{query}: two pages of hits");
    }
}

#[test]
fn hostile_queries_do_not_panic() {
    let catalog = fixture();
    let index = Index::from(&catalog);
    let mut queries: Vec<String> = vec![
        String::new(),
        "   ".into(),
        "\"".into(),
        "\"\"".into(),
        "\"\" \"".into(),
        "?!…".into(),
        "::".into(),
        "a-".into(),
        "-a".into(),
        "_".into(),
        "é".repeat(2000),
        "word ".repeat(500),
        "\u{0}\u{feff}x".into(),
        "東京 hash".into(),
    ];
    // Every prefix of a query with multi-byte characters and quotes.
    let text = "Größe \"hash map\" read_to_string 東京::x-y/z";
    for (i, _) in text.char_indices() {
        queries.push(text[..i].to_owned());
    }
    for query in &queries {
        for kind in [Kind::All, Kind::Skills, Kind::Docs] {
            let results = index.search(&Request {
                query,
                kind,
                offset: 3,
                limit: 7,
                also: &[],
            });
            assert!(results.hits.len() <= 7);
        }
    }
    let empty = index.search(&Request {
        query: "?!",
        kind: Kind::All,
        offset: 0,
        limit: 10,
        also: &[],
    });
    assert!(empty.empty_query && empty.hits.is_empty());
    let nonsense = index.search(&Request {
        query: "qwxzzy plorbnak",
        kind: Kind::All,
        offset: 0,
        limit: 10,
        also: &[],
    });
    assert!(!nonsense.empty_query && nonsense.hits.is_empty());
    assert_eq!(nonsense.unknown, ["qwxzzy", "plorbnak"]);
}

#[test]
fn only_stopwords_still_search() {
    let catalog = fixture();
    // Every word is a stopword: they are searched rather than dropped, where the index
    // holds them (here a skill's description: "Fill in PDF forms and extract their fields").
    let (_, results) = search(&catalog, "in their", Kind::All, 5);
    assert!(!results.hits.is_empty() && results.unknown.is_empty());
    // Stopwords that occur only in prose are not found, and not reported as words that
    // occur nowhere: the answer names them as common words.
    let (_, results) = search(&catalog, "the", Kind::All, 5);
    assert!(results.hits.is_empty() && results.unknown.is_empty());
    assert_eq!(results.common, ["the"]);
    assert!(!results.empty_query);
}

/// A document where stopwords stand in prose, in a heading and in code.
fn write_stopwords(write: &dyn Fn(&str, &str)) {
    write(
        "docs/memory.md",
        "# Memory\n\n## The stack and the heap\n\nA value lives on the stack until it moves.\n\n\
         ## Loops\n\nWalk a vector:\n\n```rust\nfor x in v {\n    println!(\"{x}\");\n}\n```\n\n\
         ## Maps\n\nYou insert a key into the map, and insert key pairs in bulk.\n",
    );
}

#[test]
fn prose_stopwords_are_not_indexed() {
    let catalog = compile_fixture(write_stopwords);
    let search_index = &catalog.archive().search;
    let entries = |term: &str| -> Vec<(u32, [u32; 3])> {
        let entry = search_index.term(term).unwrap();
        crate::postings::PassageCursor::new(search_index.bytes(&entry.passage_postings))
            .map(|e| (e.passage, e.tf))
            .collect()
    };
    // "the" is in a heading (and its passage's body, which is not indexed) and in the
    // prose below it: only the heading counts.
    let the = entries("the");
    assert!(!the.is_empty());
    assert!(the.iter().all(|(_, tf)| tf[P_BODY] == 0), "{the:?}");
    // Its frequency still counts the passages whose prose holds it ("A value lives on the
    // stack", "into the map"), so that it is no rarer than it is.
    assert_eq!(the.len(), 1);
    assert_eq!(search_index.term("the").unwrap().passage_df, 2);
    // `for` and `in` in code are indexed with their positions.
    for keyword in ["for", "in"] {
        let found = entries(keyword);
        assert!(
            found.iter().any(|(_, tf)| tf[P_BODY] == 1),
            "{keyword}: {found:?}"
        );
    }
    // A passage's length still counts its stopwords: its heading line's 5 tokens and "A
    // value lives on the stack until it moves", 9.
    let index = Index::from(&catalog);
    let (_, results) = search(&catalog, "value lives", Kind::All, 1);
    let passage = search_index.passages.get(results.hits[0].passage);
    assert_eq!(passage.lengths[P_BODY], 14);
    // Searched by what the index holds.
    let (_, results) = search(&catalog, "`in`", Kind::All, 1);
    assert_eq!(hits(&index, &results)[0].1, "loops");
    let (_, results) = search(&catalog, "the", Kind::All, 1);
    assert_eq!(hits(&index, &results)[0].1, "the-stack-and-the-heap");
}

#[test]
fn phrases_keep_the_distance_of_their_stopwords() {
    let catalog = compile_fixture(write_stopwords);
    let index = Index::from(&catalog);
    // "insert a key": one word between "insert" and "key", as in the phrase.
    let (_, results) = search(&catalog, "\"insert the key\"", Kind::All, 5);
    assert_eq!(
        hits(&index, &results),
        [("resource://docs/memory.md".to_owned(), "maps".to_owned())]
    );
    let snippet = &index
        .text(index.document(results.hits[0].document))
        .unwrap()[results.hits[0].snippet.clone()];
    assert!(snippet.contains("insert a key"), "{snippet}");
    // Adjacent words are not the phrase with a word between them, nor the reverse.
    let (_, results) = search(&catalog, "\"insert the the key\"", Kind::All, 5);
    assert!(results.hits.is_empty());
    let (_, results) = search(&catalog, "\"key the insert\"", Kind::All, 5);
    assert!(results.hits.is_empty());
    let (_, results) = search(&catalog, "\"insert key\"", Kind::All, 5);
    assert_eq!(results.hits.len(), 1);
}

#[test]
fn index_is_deterministic() {
    let a = fixture();
    let b = fixture();
    let (x, y) = (&a.archive().search, &b.archive().search);
    assert_eq!(x.postings.as_slice(), y.postings.as_slice());
    assert_eq!(x.dictionary.as_slice(), y.dictionary.as_slice());
    assert_eq!(x.token_starts.as_slice(), y.token_starts.as_slice());
    assert!(x.terms().map(|t| t.0).eq(y.terms().map(|t| t.0)));
}

/// The first hit of `query`: `(document uri, anchor)`.
fn first_hit(index: &Index<'_>, query: &str, params: &Params) -> (String, String) {
    let results = index.search_with(
        &Request {
            query,
            also: &[],
            kind: Kind::All,
            offset: 0,
            limit: 5,
        },
        params,
    );
    hits(index, &results).into_iter().next().unwrap_or_default()
}

#[test]
fn names_written_like_stopwords_are_kept() {
    let catalog = compile_fixture(|write| {
        write(
            "docs/traits.md",
            "# Traits\n\n## Display\n\nDisplay shows a value to users: convert a type to text for people.\n\n\
             ## From and Into\n\nOne trait builds a value out of another; the other is its mirror image.\n",
        );
        write(
            "docs/loops.md",
            "# Loops\n\n## Looping with while\n\nRepeat until a condition is false.\n\n\
             ## Looping with for\n\nWalk the items of a collection.\n",
        );
    });
    let index = Index::from(&catalog);
    let params = Params::default();
    // "From" and "Into" are capitalised mid-sentence: trait names, not prepositions.
    let found = first_hit(
        &index,
        "how do I convert a type with From and Into",
        &params,
    );
    assert_eq!(found.1, "from-and-into");
    // Backticked keywords are code.
    let found = first_hit(&index, "how do I loop with `for`", &params);
    assert_eq!(found.1, "looping-with-for");
    let found = first_hit(&index, "how do I loop with `while`", &params);
    assert_eq!(found.1, "looping-with-while");
    // In prose they are still stopwords: "from" does not pull the trait section.
    let found = first_hit(&index, "convert a type to text from a value", &params);
    assert_eq!(found.1, "display");
}

#[test]
fn operators_in_code_are_terms() {
    let catalog = compile_fixture(|write| {
        write(
            "docs/functions.md",
            "# Functions\n\n## Returning values\n\nA function returns its last expression: `fn five() -> i32`.\n\n\
             ## Diverging functions\n\nSome never come back:\n\n```rust\nfn bail() -> ! {\n    panic!(\"stop\")\n}\n```\n",
        );
        write(
            "docs/patterns.md",
            "# Patterns\n\n## Ranges\n\nMatch a range of values with `1..=5`.\n\n\
             ## Bindings\n\nName the value you test: `n @ 1..=5`.\n",
        );
    });
    let index = Index::from(&catalog);
    let params = Params::default();
    assert_eq!(
        first_hit(&index, "fn f() -> !", &params),
        (
            "resource://docs/functions.md".into(),
            "diverging-functions".into()
        )
    );
    assert_eq!(
        first_hit(&index, "x @ 1..=5", &params),
        ("resource://docs/patterns.md".into(), "bindings".into())
    );
    // Operators are terms only in code: the `!` of a sentence is not one.
    let operator = |text: &str| catalog.archive().search.term(text).is_some();
    assert!(operator("->") && operator("!") && operator("@") && operator("..="));
    let prose = compile_fixture(|write| write("docs/a.md", "# A\n\nStop! Really? Yes -> no.\n"));
    assert!(
        prose
            .archive()
            .search
            .terms()
            .all(|(text, _)| text.chars().any(char::is_alphanumeric)),
        "no operator terms outside code"
    );
}

#[test]
fn the_section_is_chosen_by_what_sets_it_apart() {
    // "server" is in every section of the page; "timeout" in one. The section about the
    // server's configuration has the most of the word every section shares; the one that
    // answers is the one with the word that sets it apart.
    let catalog = compile_fixture(|write| {
        write(
            "docs/deploy.md",
            "# Deploying\n\n## Configuring the server\n\nThe server reads its config when the server starts; \
             restart the server after a change so that the server sees it.\n\n\
             ## Limits\n\nThe server drops a request after the timeout.\n\n\
             ## Logs\n\nThe server writes its logs to stdout.\n\n\
             ## Ports\n\nThe server listens on a port.\n\n\
             ## Users\n\nThe server runs as its own user.\n",
        );
        // Elsewhere "timeout" is common and "server" rare: the catalog's idf alone would
        // pick the section with the most of the rare word.
        for (i, topic) in ["Sockets", "Retries"].iter().enumerate() {
            write(
                &format!("docs/network-{i}.md"),
                &format!(
                    "# {topic}\n\n## Timeout\n\nEach call has a timeout.\n\n## Timeout again\n\nA timeout, then another timeout.\n"
                ),
            );
        }
    });
    let index = Index::from(&catalog);
    assert_eq!(
        first_hit(&index, "server timeout", &Params::default()),
        ("resource://docs/deploy.md".into(), "limits".into())
    );
}

#[test]
fn quotes_in_a_longer_query_rank_rather_than_filter() {
    let catalog = compile_fixture(|write| {
        write(
            "docs/payments.md",
            "# Payment errors\n\n## E-PAY-409\n\nThe bank refused the charge: \
             `E-PAY-409: payment \"insufficient funds\" rejected`. Ask for another card.\n\n\
             ## E-PAY-500\n\nThe payment service is down; retry later.\n",
        );
        write(
            "docs/cards.md",
            "# Cards\n\nA card expired last month cannot pay; a card expired long ago neither.\n",
        );
    });
    let index = Index::from(&catalog);
    // A pasted error line whose quoted reason differs from the docs' example.
    let (index, results) = (
        index,
        index.search(&Request {
            query: "E-PAY-409: payment \"card expired\" rejected",
            also: &[],
            kind: Kind::All,
            offset: 0,
            limit: 5,
        }),
    );
    assert_eq!(
        hits(&index, &results)[0],
        ("resource://docs/payments.md".into(), "e-pay-409".into())
    );
    // The quoted phrase still counts: among passages with the same words, the one that
    // holds it comes first.
    let (_, results) = search(&catalog, "card \"card expired\"", Kind::All, 5);
    assert_eq!(
        index.document(results.hits[0].document).uri.as_str(),
        "resource://docs/cards.md"
    );
    // A query that is one quoted phrase is strict.
    let (_, results) = search(&catalog, "\"card expired\"", Kind::All, 5);
    assert_eq!(results.hits.len(), 1);
    let (_, results) = search(&catalog, "\"expired card\"", Kind::All, 5);
    assert!(results.hits.is_empty());
}

#[test]
fn error_codes_and_identifiers_outweigh_the_prose_around_them() {
    // Two documents alike but for one word: a word of prose in one, an error code in the
    // other. Weighed alike they tie (and the first in the catalog wins).
    let catalog = compile_fixture(|write| {
        write("docs/a.md", "# Notes\n\nThe reply holds a timeout value.\n");
        write(
            "docs/b.md",
            "# Notes\n\nThe reply holds a SQLSTATE value.\n",
        );
    });
    let index = Index::from(&catalog);
    let plain = Params {
        code_weight: 1.0,
        ..Params::default()
    };
    for query in ["timeout SQLSTATE", "SQLSTATE after a timeout"] {
        assert_eq!(first_hit(&index, query, &plain).0, "resource://docs/a.md");
        assert_eq!(
            first_hit(&index, query, &Params::default()).0,
            "resource://docs/b.md",
            "{query}"
        );
    }
}

#[test]
fn link_lists_do_not_take_slots() {
    let catalog = compile_fixture(|write| {
        write(
            "docs/release.md",
            "# Releasing\n\n## Tagging\n\nTag the commit that passed the checks.\n\n\
             ## See also\n\n- [Rolling back a release](rollback.md)\n- [Release checklist](checklist.md)\n",
        );
        write(
            "docs/rollback.md",
            "# Rolling back\n\nRedeploy the previous binary.\n",
        );
        write("docs/checklist.md", "# Checklist\n\nRun the tests.\n");
    });
    let (index, results) = search(&catalog, "rolling back a release", Kind::All, 10);
    let found = hits(&index, &results);
    assert_eq!(found[0].0, "resource://docs/rollback.md");
    assert!(
        found.iter().all(|(_, anchor)| anchor != "see-also"),
        "{found:?}"
    );
}

#[test]
fn no_two_hits_name_the_same_chunk() {
    // Subsections share their section's chunk: one hit names the chunk, by its best
    // section.
    let catalog = compile_fixture(|write| {
        write(
            "docs/gizmos.md",
            "# Gizmos\n\n## Kinds of gizmos\n\nThere are gizmos of every kind.\n\n\
             ### Alpha gizmos\n\nalpha gizmos glow.\n\n### Beta gizmos\n\nbeta gizmos hum.\n",
        );
    });
    let (_, results) = search(&catalog, "gizmos", Kind::All, 10);
    let mut chunks: Vec<(u32, u32)> = results.hits.iter().map(|h| (h.document, h.chunk)).collect();
    let n = chunks.len();
    chunks.sort_unstable();
    chunks.dedup();
    assert_eq!(chunks.len(), n, "{:?}", results.hits);
    assert_eq!(results.total, results.hits.len());
    let (index, results) = search(&catalog, "beta gizmos hum", Kind::All, 10);
    assert_eq!(hits(&index, &results)[0].1, "beta-gizmos");
}

#[test]
fn on_a_short_page_the_section_holding_the_words_best_is_chosen() {
    // Every section of this one-chunk page says "return", "closure" and "function": no
    // query word is rarer in one section than in another. Weighed by the share of sections
    // that lack them (none), every word counts 0 and the first section is named; weighed
    // by their idf among the sections, small and equal, the section that holds them in
    // its heading is.
    let catalog = compile_fixture(|write| {
        write(
            "docs/closures.md",
            "# Advanced closures\n\nA function can take a closure and return a closure.\n\n\
             ## Function pointers\n\nA function pointer is a function type; a closure can \
             coerce to it, and a function can return it.\n\n\
             ## Returning closures\n\nTo return a closure from a function, box it: the \
             closure has no name.\n",
        );
        write(
            "docs/other.md",
            "# Iterators\n\nAn iterator adapter takes a closure.\n",
        );
    });
    let index = Index::from(&catalog);
    let query = "how do I return a closure from a function?";
    let shares = Params {
        section_idf: false,
        ..Params::default()
    };
    assert_eq!(
        first_hit(&index, query, &shares),
        (
            "resource://docs/closures.md".into(),
            "advanced-closures".into()
        )
    );
    assert_eq!(
        first_hit(&index, query, &Params::default()),
        (
            "resource://docs/closures.md".into(),
            "returning-closures".into()
        )
    );
}

#[test]
fn an_identifier_and_its_words_are_one_name_in_section_choice() {
    // Every section is about hash maps; one writes `HashMap`, the others "hash map". The
    // query writes `HashMap`: which spelling a section uses does not set it apart; the
    // section that says "insert" most does.
    let catalog = compile_fixture(|write| {
        write(
            "docs/maps.md",
            "# Hash maps\n\nA hash map stores values by key.\n\n\
             ## Creating a hash map\n\nCreate one with `HashMap::new()`, then insert a key and its value.\n\n\
             ## Adding a key once\n\nInsert a key into the hash map only once: a second insert \
             of the same key is refused.\n\n\
             ## Iterating over a hash map\n\nEach key of the hash map comes out once.\n",
        );
        write("docs/other.md", "# Sets\n\nA set stores keys alone.\n");
    });
    let index = Index::from(&catalog);
    let query = "How do I insert a key into a HashMap?";
    let apart = Params {
        one_name_spellings: false,
        ..Params::default()
    };
    assert_eq!(
        first_hit(&index, query, &apart),
        (
            "resource://docs/maps.md".into(),
            "creating-a-hash-map".into()
        )
    );
    assert_eq!(
        first_hit(&index, query, &Params::default()),
        ("resource://docs/maps.md".into(), "adding-a-key-once".into())
    );
}

#[test]
fn a_clear_lead_is_a_margin_alone_and_a_majority_fused() {
    let catalog = fixture();
    let index = Index::from(&catalog);
    fn request<'q>(query: &'q str, also: &'q [&'q str], limit: usize) -> Request<'q> {
        Request {
            query,
            kind: Kind::All,
            offset: 0,
            limit,
            also,
        }
    }
    let mut seen = [false; 2];
    for query in [
        "radio buttons",
        "entry API or_insert",
        "read a whole file",
        "hash",
        "filler widgets",
        "the",
    ] {
        // A query alone: the margin over the second hit, whatever the page size.
        let two = index.search(&request(query, &[], 2));
        let expected = match two.hits.as_slice() {
            [] => false,
            [_] => true,
            [first, second, ..] => first.score >= CLEAR_LEAD_MARGIN * second.score,
        };
        for limit in [1, 2, 10] {
            assert_eq!(
                index.search(&request(query, &[], limit)).clear_lead,
                expected,
                "{query}, limit {limit}"
            );
        }
        seen[usize::from(expected)] = true;
    }
    assert_eq!(seen, [true, true], "both kinds of lead among the queries");
    // Fused: the rankings that put the fused first hit first must be more than half.
    let firsts = |query: &str| {
        let hit = &index.search(&request(query, &[], 1)).hits[0];
        (hit.document, hit.chunk)
    };
    for (query, also) in [
        (
            "read a whole file",
            &["read_to_string", "radio buttons"][..],
        ),
        (
            "read a whole file",
            &["read_to_string", "whole file into a String"][..],
        ),
        ("hash map entry", &["radio buttons", "flatten the form"][..]),
    ] {
        let fused = index.search(&request(query, also, 3));
        let first = (fused.hits[0].document, fused.hits[0].chunk);
        let leading = std::iter::once(query)
            .chain(also.iter().copied())
            .filter(|p| firsts(p) == first)
            .count();
        assert_eq!(
            fused.clear_lead,
            2 * leading > 1 + also.len(),
            "{query} {also:?}"
        );
    }
}

/// A catalog whose common words have document summaries: a few words in most passages,
/// rarer ones, identifiers, skills with descriptions, text before the first heading,
/// documents of more passages than a mask holds (some with hits joined across its words),
/// and long sections cut into chunks.
fn summarised_fixture() -> Catalog {
    compile_fixture(|write| {
        let words = [
            "cache", "deploy", "archive", "handler", "release", "notes", "retry", "timeout",
            "widget", "config", "server", "client", "token", "queue", "worker", "schedule",
        ];
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = move |n: usize| {
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            (state.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 33) as usize % n
        };
        let word = |next: &mut dyn FnMut(usize) -> usize| {
            // Small indices much more often: a few words in most passages.
            let i = next(words.len())
                .min(next(words.len()))
                .min(next(words.len()));
            words[i]
        };
        for d in 0..70 {
            let mut text = String::new();
            if d % 5 == 0 {
                text.push_str(&format!(
                    "Preface {} {}.\n\n",
                    word(&mut next),
                    word(&mut next)
                ));
            }
            text.push_str(&format!(
                "# {} {} {d}\n\n",
                word(&mut next),
                word(&mut next)
            ));
            // Documents of more than 64 passages, some far more, with sections across
            // the 64-passage boundaries.
            let sections = match d {
                7 => 80,
                13 => 61,
                29 => 130,
                41 => 190,
                _ => 3 + next(9),
            };
            // Most of a long document's words are filler, so that common words' bounds
            // rule it out of many pages and its hits are counted from masks.
            let long = sections > 60;
            let word = |next: &mut dyn FnMut(usize) -> usize| {
                if long && next(6) != 0 {
                    "lorem"
                } else {
                    word(next)
                }
            };
            for s in 0..sections {
                let level = 2 + next(3);
                text.push_str(&format!(
                    "{} {} {} {s}\n\n",
                    "#".repeat(level),
                    word(&mut next),
                    word(&mut next)
                ));
                let len = if s % 11 == 5 { 900 } else { 5 + next(60) };
                for w in 0..len {
                    if w % 37 == 36 {
                        text.push_str(&format!("`{}_{}` ", word(&mut next), word(&mut next)));
                    } else {
                        text.push_str(word(&mut next));
                        text.push(if w % 9 == 8 { '.' } else { ' ' });
                    }
                    if w % 120 == 119 {
                        text.push_str("\n\n");
                    }
                }
                text.push_str("\n\n");
            }
            if d % 4 == 0 {
                let name = format!("skill-{d}");
                write(
                    &format!("skills/{name}/SKILL.md"),
                    &format!(
                        "---\nname: {name}\ndescription: {} the {} with {}.\n---\n\n{text}",
                        word(&mut next),
                        word(&mut next),
                        word(&mut next)
                    ),
                );
            } else {
                write(&format!("docs/doc-{d}.md"), &text);
            }
        }
        // Long documents whose chunks run across the 64-passage words of their masks: a
        // chunk of `size` passages (a section and its subsections) holds the query words
        // in its first and last passages only, so wherever passage 64k - 1 is inside a
        // chunk, the hit before the boundary is joined to the one after it only through
        // the carry of the chunk's run of joins from one mask word into the next. (After
        // the other documents, so that the page is full and they are counted from masks.)
        for size in [7, 9, 11, 13] {
            let mut text = format!("# Carry {size}\n\n");
            let filler = |words: usize| "lorem ".repeat(words);
            for part in 0..230 / size {
                text.push_str(&format!(
                    "## Part {part}\n\n{} cache deploy {}\n\n",
                    filler(20),
                    filler(40)
                ));
                for sub in 1..size - 1 {
                    text.push_str(&format!("### Aside {sub}\n\n{}\n\n", filler(30)));
                }
                text.push_str(&format!(
                    "### Close\n\n{} cache release notes {}\n\n",
                    filler(40),
                    filler(20)
                ));
            }
            write(&format!("docs/tail-carry-{size}.md"), &text);
        }
    })
}

/// Of the (stemmed) term's long documents (more than 64 passages, counted from masks of several
/// words), the boundaries between mask words (passages 64k - 1 and 64k) where a matching
/// passage before the boundary and one after it are one hit only by a run of heading or
/// chunk joins across it, the passage just before it not matching: there the count needs
/// the run's carry from one word into the next ([`count_masked_words`]).
fn carried_across_words(search: &ArchivedSearchIndex, term: &str) -> usize {
    let entry = search.term(term).expect("the term");
    let summaries = Summaries::new(search.bytes(&entry.summaries)).expect("a summary");
    let mut carried = 0;
    for i in 0..summaries.len() {
        let record = summaries.record(i).expect("a record");
        let stats = &search.documents[record.document as usize];
        let Some(words) = crate::model::long_joins_words(stats) else {
            continue;
        };
        let mask = summaries.wide(&record).expect("a mask of several words");
        let start = stats.heading_joins.to_native() as usize;
        let own = |p: usize| u64::from_le_bytes(mask[p / 64]) >> (p % 64) & 1 == 1;
        let n = stats.passage_count.to_native() as usize;
        for kind in [0, words] {
            let joined = |p: usize| {
                search.long_joins[start + kind + p / 64].to_native() >> (p % 64) & 1 == 1
            };
            for boundary in (64..n).step_by(64) {
                let before = (1..boundary)
                    .rev()
                    .take_while(|&p| joined(p))
                    .any(|p| own(p - 1));
                let after = (boundary..n).take_while(|&p| joined(p)).any(own);
                carried += usize::from(!own(boundary - 1) && before && after);
            }
        }
    }
    carried
}

/// Queries over [`summarised_fixture`]: common words, phrases, identifiers, stopwords,
/// unknown words, empty.
const SUMMARISED_QUERIES: [&str; 16] = [
    "cache",
    "archive handler",
    "configure the cache",
    "deploy release notes",
    "error retry timeout",
    "widget",
    "schedule worker queue token",
    "cache_deploy",
    "\"release notes\" deploy",
    "\"archive handler\"",
    "how do I retry a timeout in the client handler with a token",
    "preface",
    "skill-8",
    "zzzz",
    "the",
    "",
];

/// Pruning by document summaries returns exactly what reading every entry returns: the
/// same hits, scores, snippets, `total` and flags, on every page, for each kind, fused or
/// not, and under other parameters.
#[test]
fn summaries_prune_without_changing_any_answer() {
    let catalog = summarised_fixture();
    let index = Index::from(&catalog);
    let search = &index.archive.search;
    // The fixture does what it is for: the common words have summaries, masks are written
    // and one document has too many passages for one.
    let summarised = search
        .terms()
        .filter(|(_, entry)| !entry.summaries.is_empty())
        .count();
    assert!(summarised >= 8, "{summarised} terms with summaries");
    let long: Vec<u32> = search
        .documents
        .iter()
        .map(|d| d.passage_count.to_native())
        .filter(|&n| n > 64)
        .collect();
    assert!(long.len() >= 3 && long.iter().any(|&n| n > 128), "{long:?}");
    // And hits join across the words of long documents' masks only through the carry.
    let carried = carried_across_words(search, "cach");
    assert!(carried >= 6, "{carried} joins carried across mask words");
    let others = Params {
        parent_share: 0.6,
        passage_b: [0.0, 1.0, 0.9],
        proximity: 2.0,
        same_document_decay: 0.5,
        ..Params::default()
    };
    let mut unprunable = Params::default();
    unprunable.passage_b[2] = -0.1;
    let mut compared = 0;
    for params in [Params::default(), others, unprunable] {
        for query in SUMMARISED_QUERIES {
            for also in [&[][..], &["deploy cache", "handler"][..]] {
                for kind in [Kind::All, Kind::Skills, Kind::Docs] {
                    // (0, 2): exactly what `clear_lead` reads; the deeper pages keep
                    // more hits, so a lower threshold to enter them.
                    for (offset, limit) in [
                        (0, 1),
                        (0, 2),
                        (0, 10),
                        (3, 5),
                        (17, 20),
                        (44, 12),
                        (190, 10),
                    ] {
                        let request = Request {
                            query,
                            kind,
                            offset,
                            limit,
                            also,
                        };
                        EXHAUSTIVE.with(|e| e.set(true));
                        let exhaustive = index.search_with(&request, &params);
                        EXHAUSTIVE.with(|e| e.set(false));
                        let pruned = index.search_with(&request, &params);
                        assert_eq!(
                            format!("{pruned:?}"),
                            format!("{exhaustive:?}"),
                            "{query:?} {also:?} {kind:?} {offset}+{limit}"
                        );
                        compared += usize::from(exhaustive.total > 0);
                    }
                }
            }
        }
    }
    assert!(compared > 500, "{compared} answers with hits");
    // And the summaries did skip documents, some only by their impacts.
    assert!(SKIPPED.with(std::cell::Cell::get) > 1000);
    let long = LONG_SKIPPED.with(std::cell::Cell::get);
    assert!(long > 50, "{long} long documents counted from masks");
    let by_impacts = IMPACT_SKIPPED.with(std::cell::Cell::get);
    assert!(
        by_impacts > 100,
        "{by_impacts} documents skipped by impacts"
    );
}

/// The summaries' impacts are computed under the default parameters, so that the default
/// ranking can use them; they would still give the same answers otherwise, only slower.
#[test]
fn impacts_are_for_the_default_parameters() {
    assert_eq!(
        Params::default().impact_params(),
        crate::postings::IMPACT_PARAMS
    );
    let catalog = summarised_fixture();
    let index = Index::from(&catalog);
    let search = &index.archive.search;
    assert_eq!(
        search.impact_params.map(|v| v.to_native()),
        crate::postings::IMPACT_PARAMS
    );
}

/// Every impact is at least what the ranking scores the passage for the term (over its
/// weight and idf), read from the passage's entry: a lower one would skip a document that
/// can make the page.
#[test]
fn impacts_bound_every_passage_score() {
    let catalog = summarised_fixture();
    let index = Index::from(&catalog);
    let search = &index.archive.search;
    let params = Params::default();
    let avg = search.passage_avg_len.map(|v| v.to_native());
    let passages = search.passages.reader();
    let mut checked = 0;
    for (_, entry) in search.terms().filter(|(_, e)| !e.summaries.is_empty()) {
        let list = search.bytes(&entry.passage_postings);
        let summaries = Summaries::new(search.bytes(&entry.summaries)).expect("a summary");
        summaries.validate(list.len()).expect("a valid summary");
        // Where each entry of the list starts, and its passage.
        let mut starts = std::collections::HashMap::new();
        let mut walk = PassageCursor::new(list);
        loop {
            let at = walk.position() as u32;
            let Some(e) = walk.next() else { break };
            starts.insert(at, e.passage);
        }
        for i in 0..summaries.len() {
            let run = summaries.summary(i).expect("an entry");
            let stats = &search.documents[run.document as usize];
            let first = stats.first_passage.to_native();
            let end = first + stats.passage_count.to_native();
            let impacts = summaries.impacts(&run);
            // The record's best impact is the largest of the entry's.
            if run.own.is_some() {
                assert_eq!(Some(&run.best), impacts.iter().max(), "{run:?}");
            }
            let entries = PassageCursor::resume(list, run.at as usize, first + run.first)
                .take_while(|e| e.passage < end);
            // The run starts with the entry of its first passage.
            assert_eq!(starts.get(&run.at), Some(&(first + run.first)), "{run:?}");
            for e in entries {
                let i = e.passage - first;
                assert!(run.own.is_none() || run.any >> i & 1 == 1);
                if run.own.is_none() {
                    continue;
                }
                let k = (run.any & ((1u64 << i) - 1)).count_ones() as usize;
                let lengths = passages.lengths(passages.row(e.passage));
                let norm = |f: usize| {
                    (1.0 - params.passage_b[f] + params.passage_b[f] * lengths[f] as f32 / avg[f])
                        .max(1e-3)
                };
                let mut tf = 0.0;
                for f in 0..PASSAGE_FIELDS {
                    if e.tf[f] > 0 {
                        tf += params.passage_weights[f] * e.tf[f] as f32 / norm(f);
                    }
                }
                let mut score = tf / (params.k1 + tf);
                if e.tf[P_HEADING] > 0 {
                    score += params.heading_bonus / norm(P_HEADING);
                }
                assert!(
                    f32::from(impacts[k]) / IMPACT_SCALE >= score,
                    "{score} {impacts:?}"
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 2_000, "{checked} impacts");
}

/// What `count_hits` and `group_hits` count for the matching passages `own` of a document
/// whose passages have these headings and chunks: a new hit unless the previous matching
/// passage shares the heading or the chunk.
fn hits_by_entries(own: u64, headings: &[u32], chunks: &[u32]) -> usize {
    let mut hits = 0;
    let mut last: Option<usize> = None;
    for p in (0..headings.len()).filter(|&p| own & 1 << p != 0) {
        if !last.is_some_and(|q| headings[q] == headings[p] || chunks[q] == chunks[p]) {
            hits += 1;
        }
        last = Some(p);
    }
    hits
}

#[test]
fn masks_count_hits_as_the_entries_do() {
    // Passages 0..6: headings a a b b c c, chunks 0 1 1 2 2 2.
    let headings = [0u32, 0, 1, 1, 2, 2];
    let chunks = [0u32, 1, 1, 2, 2, 2];
    let (mut heading_joins, mut chunk_joins) = (0u64, 0u64);
    for i in 1..6 {
        heading_joins |= u64::from(headings[i] == headings[i - 1]) << i;
        chunk_joins |= u64::from(chunks[i] == chunks[i - 1]) << i;
    }
    for own in 0u64..64 {
        assert_eq!(
            count_masked(own, heading_joins, chunk_joins),
            hits_by_entries(own, &headings, &chunks),
            "{own:06b}"
        );
    }
    assert_eq!(count_masked(u64::MAX, u64::MAX - 1, 0), 1);
    assert_eq!(count_masked(1 << 63 | 1, 0, 0), 2);
    // Documents of 64 passages, sections and chunks of random lengths, passage 63 included.
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut random = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for _ in 0..2000 {
        let (heading_breaks, chunk_breaks, own) = (random(), random() & random(), random());
        let (mut heading_joins, mut chunk_joins) = (0u64, 0u64);
        let (mut headings, mut chunks) = ([0u32; 64], [0u32; 64]);
        for i in 1..64 {
            let (new_heading, new_chunk) = (heading_breaks >> i & 1, chunk_breaks >> i & 1);
            headings[i] = headings[i - 1] + new_heading as u32;
            chunks[i] = chunks[i - 1] + new_chunk as u32;
            heading_joins |= (1 - new_heading) << i;
            chunk_joins |= (1 - new_chunk) << i;
        }
        assert_eq!(
            count_masked(own, heading_joins, chunk_joins),
            hits_by_entries(own, &headings, &chunks)
        );
    }
    // Documents of 65 to 256 passages: masks of several words, sections, chunks and runs
    // of matching passages across the words' boundaries.
    for n in (65..=256usize).step_by(7).chain([127, 128, 129, 192, 193]) {
        for round in 0..200 {
            let words = n.div_ceil(64);
            let (mut headings, mut chunks) = (vec![0u32; n], vec![0u32; n]);
            let (mut heading_joins, mut chunk_joins) = (vec![0u64; words], vec![0u64; words]);
            let mut own = vec![0u64; words];
            // Sparse breaks in some rounds: long sections and chunks across boundaries.
            let sparse = round % 3;
            for i in 0..n {
                let mut r = random();
                for _ in 0..sparse {
                    r &= random();
                }
                if i > 0 {
                    let (new_heading, new_chunk) = (r & 1, r >> 1 & r >> 2 & 1);
                    headings[i] = headings[i - 1] + new_heading as u32;
                    chunks[i] = chunks[i - 1] + new_chunk as u32;
                    heading_joins[i / 64] |= (1 - new_heading) << (i % 64);
                    chunk_joins[i / 64] |= (1 - new_chunk) << (i % 64);
                }
                own[i / 64] |= u64::from(random() % 4 < 1 + round as u64 % 3) << (i % 64);
            }
            let by_entries = {
                let mut hits = 0;
                let mut last: Option<usize> = None;
                for p in (0..n).filter(|&p| own[p / 64] >> (p % 64) & 1 != 0) {
                    if !last.is_some_and(|q| headings[q] == headings[p] || chunks[q] == chunks[p]) {
                        hits += 1;
                    }
                    last = Some(p);
                }
                hits
            };
            assert_eq!(
                count_masked_words(words, |k| own[k], |k| (heading_joins[k], chunk_joins[k])),
                by_entries,
                "{n} passages, round {round}"
            );
        }
    }
    // Sections that end, or go on, at the words' boundaries.
    assert_eq!(
        count_masked_words(3, |_| u64::MAX, |_| (u64::MAX - 1, 0)),
        3
    );
    assert_eq!(
        count_masked_words(3, |_| u64::MAX, |k| (u64::MAX - u64::from(k == 0), 0)),
        1
    );
    assert_eq!(
        count_masked_words(2, |k| [1 << 63, 1][k], |k| ([0, 1][k], 0)),
        1
    );
    assert_eq!(count_masked_words(2, |k| [1 << 63, 1][k], |_| (0, 0)), 2);
}

/// A search ranked in parts (each part a walk over consecutive documents, the parts sharing
/// their threshold) gives what one walk gives, wherever the cuts fall: the same candidates
/// in the same order with the same scores and occurrence refs, and the same total.
#[test]
fn parts_rank_as_one_walk() {
    let catalog = summarised_fixture();
    let index = Index::from(&catalog);
    let search = &index.archive.search;
    let others = Params {
        parent_share: 0.6,
        proximity: 2.0,
        same_document_decay: 0.5,
        ..Params::default()
    };
    let mut compared = 0;
    let mut split_apart = 0;
    for params in [Params::default(), others] {
        for text in SUMMARISED_QUERIES {
            let query = query::parse(search, text, &params, &mut Analyzer::new());
            if query.is_empty() || query.impossible {
                continue;
            }
            let pruning = prunes(&query, &params);
            for kind in [Kind::All, Kind::Skills, Kind::Docs] {
                let range = index.kind_range(kind);
                let (start, end) = (range.start, range.end);
                let third = (end - start) / 3;
                let cut_sets: [Vec<u32>; 5] = [
                    vec![start + (end - start) / 2],
                    vec![start + 1],
                    vec![end.saturating_sub(1)],
                    vec![start + third, start + 2 * third],
                    (start + 1..end).step_by(7).collect(),
                ];
                for keep in [2, 10, 37, MAX_RESULTS] {
                    let one = index.rank_span(&query, range.clone(), keep, &params, pruning, None);
                    for cuts in &cut_sets {
                        let mut spans = Vec::new();
                        let mut from = start;
                        for &cut in cuts.iter().filter(|&&c| c > start && c < end) {
                            spans.push(from..cut);
                            from = cut;
                        }
                        spans.push(from..end);
                        split_apart += usize::from(spans.len() > 1);
                        let parts = split::Plan::at(spans.clone()).run(keep, |span, shared| {
                            index.rank_span(&query, span, keep, &params, pruning, Some(shared))
                        });
                        let what = format!("{text:?} {kind:?} keep {keep} {spans:?}");
                        assert_eq!(parts.2, one.2, "total, {what}");
                        assert_eq!(parts.0.len(), one.0.len(), "hits, {what}");
                        let n_terms = query.terms.len();
                        for (a, b) in parts.0.iter().zip(&one.0) {
                            assert_eq!(
                                (a.passage, a.chunk, a.heading, a.parent),
                                (b.passage, b.chunk, b.heading, b.parent),
                                "{what}"
                            );
                            assert_eq!(a.score.to_bits(), b.score.to_bits(), "{what}");
                            assert_eq!(a.local.to_bits(), b.local.to_bits(), "{what}");
                            let refs = |r: &Refs, c: &Candidate| {
                                r[c.refs as usize..c.refs as usize + n_terms].to_vec()
                            };
                            assert_eq!(refs(&parts.1, a), refs(&one.1, b), "{what}");
                        }
                        compared += usize::from(one.2 > 0);
                    }
                }
            }
        }
    }
    assert!(compared > 500, "{compared} rankings with hits compared");
    assert!(split_apart > 500, "{split_apart} rankings in several parts");
}

/// The parts of a large search each reach about as many documents, and together they are
/// the range searched, with no part empty.
#[test]
fn parts_cut_the_range_by_the_largest_summary() {
    let catalog = summarised_fixture();
    let index = Index::from(&catalog);
    let search = &index.archive.search;
    let summaries = search
        .terms()
        .filter_map(|(_, entry)| crate::postings::Summaries::new(search.bytes(&entry.summaries)))
        .max_by_key(crate::postings::Summaries::len)
        .expect("the fixture has summaries");
    let documents = search.documents.len() as u32;
    for range in [0..documents, 3..documents - 5, 10..11] {
        let first = summaries.seek(0, range.start);
        let end = summaries.seek(first, range.end);
        for parts in 1..=5 {
            let spans = split::spans(&summaries, first..end, range.clone(), parts);
            assert!(!spans.is_empty() && spans.len() <= parts, "{spans:?}");
            assert_eq!(spans[0].start, range.start);
            assert_eq!(spans.last().map(|s| s.end), Some(range.end));
            for pair in spans.windows(2) {
                assert_eq!(pair[0].end, pair[1].start, "{spans:?}");
            }
            assert!(spans.iter().all(|s| !s.is_empty()), "{spans:?}");
            if parts > 1 && end - first >= 4 * parts {
                // Each part holds about its share of the summary's documents.
                for span in &spans {
                    let reached = summaries.seek(0, span.end) - summaries.seek(0, span.start);
                    let share = (end - first) / parts;
                    assert!(
                        reached + 2 >= share && reached <= share + 2,
                        "{reached} of {} in {span:?} ({parts} parts)",
                        end - first
                    );
                }
            }
        }
    }
}

/// The threshold the parts share orders as the floats do, negatives and `f32::MIN`
/// included, and only ever rises.
#[test]
fn shared_threshold_orders_as_floats() {
    let values = [f32::MIN, -3.5, -0.0, 0.0, 1e-30, 0.25, 4.72, 90.0, f32::MAX];
    for &a in &values {
        let shared = split::Threshold::new();
        assert_eq!(shared.get(), f32::MIN);
        shared.raise(a);
        assert_eq!(shared.get().to_bits(), a.to_bits());
        for &b in &values {
            let shared = split::Threshold::new();
            shared.raise(a);
            shared.raise(b);
            let most = if b.total_cmp(&a).is_gt() { b } else { a };
            assert_eq!(shared.get().to_bits(), most.to_bits(), "{a} then {b}");
        }
    }
}

/// Threads are taken from one pool and given back after each search; a search holds one
/// for itself while it runs.
#[test]
fn threads_are_shared_and_given_back() {
    let pool = split::Pool::new(3);
    let threads = split::Threads::of(&pool, 1);
    let seat = threads.seat();
    assert_eq!(seat.count, 1, "a search holds its own thread");
    let helpers = split::Taken::take(&pool, 5);
    assert_eq!(helpers.count, 2, "two helpers free of three threads");
    assert_eq!(
        threads.seat().count,
        0,
        "a search in flight at once holds none"
    );
    drop(helpers);
    {
        let one = split::Taken::take(&pool, 1);
        assert_eq!(one.count, 1);
        assert_eq!(split::Taken::take(&pool, 0).count, 0);
        assert_eq!(split::Taken::take(&pool, 4).count, 1, "the one still free");
    }
    drop(seat);
    assert_eq!(split::Taken::take(&pool, 9).count, 3, "all back");
    let one = split::Pool::new(1);
    let seat = split::Threads::of(&one, 1).seat();
    assert_eq!(
        split::Taken::take(&one, 9).count,
        0,
        "one thread: no helpers"
    );
    drop(seat);
    assert_eq!(split::Taken::take(&split::Pool::new(0), 9).count, 0);
}

fn pool_free(pool: &split::Pool) -> usize {
    // What a ranking's plan would find free: take all, give back.
    split::Taken::take(pool, usize::MAX).count
}

/// Searches whose rankings split over the threads free, a search with `also` among them
/// (each phrasing's ranking in parts), give what they give on one thread: the same page,
/// snippets, scores and totals, and every thread is given back.
#[test]
fn searches_in_parts_answer_as_on_one_thread() {
    let catalog = summarised_fixture();
    let index = Index::from(&catalog);
    let params = Params::default();
    let busy = split::Pool::new(3);
    let one = split::Pool::new(1);
    let mut compared = 0;
    for query in SUMMARISED_QUERIES {
        for also in [
            &[][..],
            &["deploy cache", "handler"][..],
            &["retry timeout", "archive", "release notes worker"][..],
        ] {
            for kind in [Kind::All, Kind::Docs] {
                for (offset, limit) in [(0, 3), (0, 10), (7, 5)] {
                    let request = Request {
                        query,
                        kind,
                        offset,
                        limit,
                        also,
                    };
                    let in_parts = index.search_in(&request, &params, split::Threads::of(&busy, 1));
                    let alone = index.search_in(&request, &params, split::Threads::of(&one, 1));
                    let what = format!("{query:?} {also:?} {kind:?} {offset}+{limit}");
                    assert_eq!(in_parts.hits, alone.hits, "{what}");
                    assert_eq!(
                        (in_parts.total, in_parts.has_more, in_parts.clear_lead),
                        (alone.total, alone.has_more, alone.clear_lead),
                        "{what}"
                    );
                    compared += usize::from(!alone.hits.is_empty());
                }
            }
        }
    }
    assert_eq!(pool_free(&busy), 3, "every thread given back");
    assert_eq!(pool_free(&one), 1);
    assert!(compared > 100, "{compared} searches with hits compared");
}
