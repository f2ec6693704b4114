//! Search relevance over the corpora build, as a regression guard: the ranking model must
//! keep meeting the targets on the tuning split, and stay ahead of plain whole-document
//! BM25 on the held-out split (whose figures are reported by `scripts/search-eval`, never
//! tuned against). Also checks that the split is the committed, hash-defined one.

#[path = "../benches/relevance/eval.rs"]
mod eval;

mod common;

use sha2::{Digest, Sha256};
use skillpack_server::search::Params;

#[test]
fn the_split_is_fixed_by_hash() {
    let root = common::crate_root();
    for split in eval::SPLITS {
        let questions = eval::load(&root.join(format!("benches/relevance/{split}.tsv")));
        assert!(questions.len() >= 30, "{split}");
        for q in &questions {
            let digest = Sha256::digest(q.text.as_bytes());
            // sha256 mod 3 == sum of the bytes' weights mod 3, since 256 ≡ 1 (mod 3).
            let held_out = digest.iter().map(|&b| b as u32).sum::<u32>() % 3 == 0;
            assert_eq!(held_out, split == "heldout", "{split}: {:?}", q.text);
        }
    }
}

/// The corpora compiled in-process (archive, content), or `None` (skipped, with a message)
/// when `../shared` is absent.
fn compiled_corpora() -> Option<(rkyv::util::AlignedVec<16>, Vec<u8>)> {
    let corpora = common::corpora()?;
    Some(eval::compile_corpora(&corpora).unwrap())
}

#[test]
fn ranking_meets_its_targets() {
    let Some((archive, content)) = compiled_corpora() else {
        return;
    };
    let index = eval::index(&archive, &content);
    let baseline = eval::Baseline::new(&index);
    let root = common::crate_root();
    let load = |split: &str| eval::load(&root.join(format!("benches/relevance/{split}.tsv")));

    let tuning = load("tuning");
    let (ours, plain) =
        eval::evaluate(&index, &baseline, &tuning, &Params::default(), |_| {}).unwrap();
    eprintln!(
        "{}\n{}",
        ours.line("tuning / skillpack"),
        plain.line("tuning / plain BM25")
    );
    assert!(ours.recall1() >= 0.85, "{}", ours.line("tuning"));
    assert!(ours.recall3() >= 0.95, "{}", ours.line("tuning"));
    assert!(ours.mrr() >= 0.88, "{}", ours.line("tuning"));
    assert!(ours.section3() >= 0.90, "{}", ours.line("tuning"));

    let heldout = load("heldout");
    let (ours, plain) =
        eval::evaluate(&index, &baseline, &heldout, &Params::default(), |_| {}).unwrap();
    eprintln!(
        "{}\n{}",
        ours.line("heldout / skillpack"),
        plain.line("heldout / plain BM25")
    );
    assert!(ours.mrr() >= plain.mrr(), "{}", ours.line("heldout"));
    assert!(
        ours.recall3() >= plain.recall3(),
        "{}",
        ours.line("heldout")
    );
}

/// The ranking skips documents whose best possible score cannot make the page (a bound that
/// must cover everything a hit can add, parent sections' shares included): a short page
/// must hold exactly the first hits of a long one, for every question of the set.
#[test]
fn a_short_page_is_the_head_of_a_long_one() {
    use skillpack_server::search::{Kind, Request};
    let Some((archive, content)) = compiled_corpora() else {
        return;
    };
    let index = eval::index(&archive, &content);
    let mut compared = 0;
    for split in eval::SPLITS {
        for q in eval::load(&common::crate_root().join(format!("benches/relevance/{split}.tsv"))) {
            let page = |limit| {
                index.search(&Request {
                    query: &q.text,
                    kind: Kind::All,
                    offset: 0,
                    limit,
                })
            };
            let long = page(50);
            for limit in [1, 3, 10] {
                let short = page(limit);
                let head = &long.hits[..limit.min(long.hits.len())];
                assert_eq!(short.hits, head, "{:?}, limit {limit}", q.text);
                assert_eq!(short.total, long.total, "{:?}", q.text);
                compared += 1;
            }
        }
    }
    assert!(compared >= 300, "{compared}");
}
