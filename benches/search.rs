//! Query latency over a synthetic catalog of 10,000 chunks.
//!
//! The catalog is generated into a temporary folder (1,000 docs of 10 sections, words drawn
//! from a Zipf-like distribution so that postings lists have realistic lengths, with code
//! identifiers sprinkled in), compiled in-process with `compile::compile` and searched
//! through the same `search::Index` the server uses — no binary rebuild.
//!
//! `cargo bench --bench search`; the median per query is in the report (and in
//! `target/criterion/search_10k_chunks/*/new/estimates.json`).

use std::fmt::Write as _;
use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use skillpack_server::compile::{self, Config};
use skillpack_server::model::ArchivedCatalog;
use skillpack_server::search::{Index, Kind, Request};

const DOCS: usize = 1_000;
const SECTIONS: usize = 10;
const WORDS_PER_SECTION: usize = 140;
const VOCABULARY: usize = 5_000;

/// A small deterministic generator (xorshift64*): the bench needs reproducible text, not
/// statistical quality, and this avoids a dependency for it.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A rank in `0..n`, small ranks much more likely (roughly Zipf).
    fn zipf(&mut self, n: usize) -> usize {
        let u = (self.next() >> 11) as f64 / (1u64 << 53) as f64;
        ((n as f64).powf(u) as usize).saturating_sub(1).min(n - 1)
    }
}

/// Pronounceable made-up words, distinct for every rank.
fn word(rank: usize) -> String {
    const SYLLABLES: [&str; 20] = [
        "ka", "lo", "mi", "ne", "ru", "sa", "to", "vi", "ze", "po", "da", "fe", "gu", "hi", "jo",
        "qua", "tre", "bly", "sno", "cra",
    ];
    let mut out = String::new();
    let mut n = rank + 20;
    while n > 0 {
        out.push_str(SYLLABLES[n % 20]);
        n /= 20;
    }
    out
}

/// Write the catalog; returns one identifier that occurs in it (for the identifier query).
fn generate(root: &std::path::Path) -> String {
    let docs = root.join("docs");
    let skills = root.join("skills/example-skill");
    std::fs::create_dir_all(&docs).unwrap();
    std::fs::create_dir_all(&skills).unwrap();
    std::fs::write(
        skills.join("SKILL.md"),
        "---\nname: example-skill\ndescription: A skill so that the skills root is not empty.\n---\n\n# Example\n\nNothing to see.\n",
    )
    .unwrap();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut sample = String::new();
    for d in 0..DOCS {
        let mut text = format!("# {} {}\n\n", word(rng.zipf(VOCABULARY)), word(d));
        for s in 0..SECTIONS {
            let _ = write!(
                text,
                "## {} {} {}\n\n",
                word(rng.zipf(VOCABULARY)),
                word(rng.zipf(VOCABULARY)),
                s
            );
            for w in 0..WORDS_PER_SECTION {
                let rank = rng.zipf(VOCABULARY);
                if w % 40 == 39 {
                    // Identifier parts come from below the most common words, as in real
                    // docs where `HashMap::new` is rarer than "the".
                    let identifier = format!(
                        "{}_{}::{}",
                        word(50 + rank),
                        word(50 + rng.zipf(VOCABULARY)),
                        word(50 + rng.zipf(VOCABULARY))
                    );
                    let _ = write!(text, "`{identifier}()` ");
                    if d == DOCS / 2 && sample.is_empty() {
                        sample = identifier;
                    }
                } else {
                    text.push_str(&word(rank));
                    text.push(if w % 12 == 11 { '.' } else { ' ' });
                }
                if w % 60 == 59 {
                    text.push_str("\n\n");
                }
            }
            text.push_str("\n\n");
        }
        std::fs::write(docs.join(format!("doc-{d:04}.md")), text).unwrap();
    }
    sample
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let identifier = generate(dir.path());
    let config = Config::for_dirs(dir.path().join("skills"), dir.path().join("docs"));
    let started = std::time::Instant::now();
    let output = compile::compile(&config).unwrap_or_else(|report| {
        panic!(
            "the synthetic catalog does not compile: {:?}",
            report.diagnostics
        )
    });
    let compiled_in = started.elapsed();
    let bytes = output.catalog_bytes();
    let mut aligned = rkyv::util::AlignedVec::<16>::with_capacity(bytes.len());
    aligned.extend_from_slice(&bytes);
    let archive = rkyv::access::<ArchivedCatalog, rkyv::rancor::Error>(&aligned).unwrap();
    let dictionary = skillpack_server::catalog::Dictionary::new();
    let index = Index {
        archive,
        content: skillpack_server::catalog::Content::new(
            &output.content,
            &archive.store,
            &dictionary,
        ),
    };
    eprintln!(
        "synthetic catalog: {} chunks, {} passages, {} terms, {} postings bytes; compiled in {compiled_in:.2?}",
        archive.totals.chunks,
        archive.search.passages.len(),
        archive.search.term_count,
        archive.search.postings.len()
    );
    assert!(archive.totals.chunks.to_native() >= 10_000);

    let queries = [
        // A word in nine passages out of ten: the worst case (real queries drop such
        // words as stopwords).
        ("common_word", word(3)),
        ("two_words", format!("{} {}", word(40), word(400))),
        (
            "question",
            format!(
                "how do I {} the {} with {} and {}",
                word(12),
                word(150),
                word(900),
                word(2500)
            ),
        ),
        ("rare_word", word(4_000)),
        ("identifier", identifier),
        (
            "phrase",
            format!("\"{} {}\" {}", word(30), word(80), word(300)),
        ),
        ("unknown_word", "zzzzqqqq".to_owned()),
    ];
    let mut group = c.benchmark_group("search_10k_chunks");
    group.sample_size(60);
    group.warm_up_time(std::time::Duration::from_millis(500));
    group.measurement_time(std::time::Duration::from_secs(2));
    for (name, query) in &queries {
        let request = Request {
            query,
            kind: Kind::All,
            offset: 0,
            limit: 10,
            also: &[],
        };
        let results = index.search(&request);
        eprintln!("{name}: {query:?} → {} hits", results.total);
        group.bench_function(*name, |b| {
            b.iter(|| black_box(index.search(black_box(&request))))
        });
    }
    // A question with two rephrasings fused (`also`): three rankings, each to the 200
    // reachable hits, then fusion.
    let question = &queries[2].1;
    let phrasings = [
        format!("{} {}", word(150), word(900)),
        format!("{} {} {}", word(12), word(2500), word(60)),
    ];
    let also: Vec<&str> = phrasings.iter().map(String::as_str).collect();
    let request = Request {
        query: question,
        kind: Kind::All,
        offset: 0,
        limit: 10,
        also: &also,
    };
    eprintln!(
        "question_also: {question:?} + {also:?} → {} hits",
        index.search(&request).total
    );
    group.bench_function("question_also", |b| {
        b.iter(|| black_box(index.search(black_box(&request))))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
