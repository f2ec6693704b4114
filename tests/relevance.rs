//! Search relevance over the corpora build, as a regression guard: the ranking model must
//! keep meeting the targets on the tuning split, and stay ahead of plain whole-document
//! BM25 on the held-out split (whose figures are reported by `scripts/search-eval`, never
//! tuned against). Also checks that the split is the committed, hash-defined one.

#[path = "../benches/relevance/eval.rs"]
pub(crate) mod eval;

use crate::common;

use sha2::{Digest, Sha256};
use skillpack_server::search::Params;

#[test]
fn the_split_is_fixed_by_hash() {
    let root = common::crate_root();
    for split in eval::SPLITS {
        let questions = eval::load(&root.join(format!("benches/relevance/{split}.tsv")));
        assert!(questions.len() >= 30, "{split}");
        for q in &questions {
            assert_eq!(
                held_out(&q.text),
                split == "heldout",
                "{split}: {:?}",
                q.text
            );
        }
    }
}

/// Every writer under `benches/relevance/writers/` rephrases every question that has
/// committed rephrasings, twice, and nothing else: `scripts/search-eval-writers` sums a
/// change over writers, and a writer missing a question (or rephrasing one no longer asked)
/// would make the sums compare unlike sets.
#[test]
fn every_writer_rephrases_every_rephrased_question_twice() {
    let relevance = common::crate_root().join("benches/relevance");
    // The committed rephrasings, relative to benches/relevance (the frozen split's agent's
    // file stands for that split: a writer is an agent that saw only the questions).
    let mut rephrased: Vec<std::path::PathBuf> = Vec::new();
    for folder in [relevance.clone(), relevance.join("generators")] {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if name.ends_with("-paraphrases.tsv") && name != "frozen-paraphrases-agent.tsv" {
                rephrased.push(path.strip_prefix(&relevance).unwrap().to_path_buf());
            }
        }
    }
    rephrased.sort();
    assert!(rephrased.len() >= 14, "{rephrased:?}");
    let writers: Vec<_> = std::fs::read_dir(relevance.join("writers"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.is_dir())
        .collect();
    assert!(writers.len() >= 2, "{writers:?}");
    for writer in &writers {
        for relative in &rephrased {
            let file = writer.join(relative);
            assert!(file.is_file(), "{} is missing", file.display());
            let stem = relative
                .file_name()
                .unwrap()
                .to_string_lossy()
                .replace("-paraphrases.tsv", ".tsv");
            let questions = eval::load(&relevance.join(relative).with_file_name(stem));
            let problems = eval::check_paraphrases(&questions, &eval::load_paraphrases(&file));
            assert!(
                problems.is_empty(),
                "{}:\n{}",
                file.display(),
                problems.join("\n")
            );
        }
    }
}

/// Every set of agents' first calls under `benches/relevance/first-calls/` has one call
/// for every question of every questions file it mirrors (the three tuning parts, their
/// held-out parts, the frozen split and the seven generator trees), and none for a question
/// not asked: `scripts/search-eval-first-calls` sums parts and sets, which must compare like
/// with like.
#[test]
fn every_set_of_first_calls_covers_its_questions() {
    let root = common::crate_root();
    let relevance = root.join("benches/relevance");
    let mut files: Vec<String> = [
        "tuning",
        "heldout",
        "httpx",
        "httpx-heldout",
        "cargo",
        "cargo-heldout",
        "frozen",
    ]
    .iter()
    .map(|name| format!("{name}.tsv"))
    .collect();
    // The trees' frozen questions, their second frozen set, then their tuning questions
    // (other sections).
    for folder in ["generators", "generators/frozen2", "generators/tuning"] {
        for entry in std::fs::read_dir(relevance.join(folder)).unwrap() {
            let name = entry.unwrap().file_name().to_string_lossy().into_owned();
            if name.ends_with(".tsv") && !name.ends_with("-paraphrases.tsv") {
                files.push(format!("{folder}/{name}"));
            }
        }
    }
    assert_eq!(files.len(), 28, "{files:?}");
    for relative in &files {
        assert!(
            !eval::load(&relevance.join(relative)).is_empty(),
            "{relative}"
        );
        first_call_sets(&root, relative);
    }
}

/// Whether a question belongs to the held-out third: its text's sha256 is 0 mod 3.
fn held_out(question: &str) -> bool {
    let digest = Sha256::digest(question.as_bytes());
    // sha256 mod 3 == sum of the bytes' weights mod 3, since 256 ≡ 1 (mod 3).
    digest.iter().map(|&b| b as u32).sum::<u32>() % 3 == 0
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

    let paraphrases_of = |split: &str| {
        eval::load_paraphrases(&root.join(format!("benches/relevance/{split}-paraphrases.tsv")))
    };
    for split in eval::SPLITS {
        let questions = load(split);
        let problems = eval::check(&index, &questions, false);
        assert!(problems.is_empty(), "{split}.tsv:\n{}", problems.join("\n"));
        let problems = eval::check_paraphrases(&questions, &paraphrases_of(split));
        assert!(problems.is_empty(), "{split}:\n{}", problems.join("\n"));
        for q in &questions {
            assert!(
                q.kind.is_empty() || q.kind == "everyday",
                "{split}.tsv: {:?} has kind {:?}; the shared splits mark only `everyday`",
                q.text,
                q.kind
            );
        }
    }

    // The targets hold for the questions the ranking was tuned on; the questions in a
    // newcomer's everyday words (added later, marked `everyday`) are reported beside them
    // and kept in the held-out check below.
    let (everyday, tuning): (Vec<_>, Vec<_>) = load("tuning")
        .into_iter()
        .partition(|q| q.kind == "everyday");
    assert!(!everyday.is_empty() && !tuning.is_empty());
    let evaluate = |label: &str, questions: &[eval::Question]| {
        let (ours, plain) =
            eval::evaluate(&index, &baseline, questions, &Params::default(), |_| {}).unwrap();
        eprintln!(
            "{}\n{}",
            ours.line(&format!("{label} / skillpack")),
            plain.line(&format!("{label} / plain BM25"))
        );
        (ours, plain)
    };
    evaluate("tuning, everyday words", &everyday);
    let (ours, _) = evaluate("tuning, the others", &tuning);
    assert!(ours.recall1() >= 0.85, "{}", ours.line("tuning"));
    assert!(ours.recall3() >= 0.95, "{}", ours.line("tuning"));
    assert!(ours.mrr() >= 0.88, "{}", ours.line("tuning"));
    // The target is 0.90 and is not met since no two hits may name the same chunk (issue 17's
    // friction point): a chunk holding several sections names one of them, sometimes not
    // the one asked for (0.905 before, 0.824 after, 0.851 with section choice by idf among
    // the document's sections). A floor, not the target.
    assert!(ours.section3() >= 0.83, "{}", ours.line("tuning"));

    let (ours, plain) = evaluate("heldout", &load("heldout"));
    assert!(ours.mrr() >= plain.mrr(), "{}", ours.line("heldout"));
    assert!(
        ours.recall3() >= plain.recall3(),
        "{}",
        ours.line("heldout")
    );

    // With an agent's rephrasings fused (`also`, written from the question alone), every
    // split finds more than its query alone, and stays ahead of plain BM25 fused the same
    // way (counting votes by chunk only, tuning fell to 0.857 against BM25's 0.909). The
    // margin was 0.03 until rank fusion's constant went from 60 to 5 (`fuse::RRF_K`), which
    // lifts both rankings fused: MRR over plain BM25 went from 0.059 to 0.066 on tuning and
    // from 0.034 to 0.027 on held-out (ours 0.928 to 0.958, plain 0.894 to 0.931).
    for split in eval::SPLITS {
        let questions = load(split);
        let paraphrases = paraphrases_of(split);
        let (single, fused, plain) = alone_and_fused(&index, &baseline, &questions, &paraphrases);
        eprintln!(
            "{}\n{}",
            fused.line(&format!("{split} / skillpack + also")),
            plain.line(&format!("{split} / plain BM25 + also"))
        );
        assert!(fused.mrr() >= single.mrr(), "{}", fused.line(split));
        assert!(fused.recall3() >= single.recall3(), "{}", fused.line(split));
        assert!(
            fused.section3() >= single.section3(),
            "{}",
            fused.line(split)
        );
        assert!(
            fused.section1() >= single.section1(),
            "{}",
            fused.line(split)
        );
        assert!(
            fused.mrr() >= plain.mrr() + 0.025,
            "{}\n{}",
            fused.line(split),
            plain.line("plain BM25 + also")
        );
    }
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
                    also: &[],
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

/// The frozen split (`benches/relevance/frozen.tsv`) over the corpora committed in
/// `benches/corpora`, so it always runs: every question names a document and section the
/// build serves, every question has its alternative phrasings, and the ranking keeps the
/// floors below. The floors are the figures of the ranking the split was written against
/// (docs/design/search-ranking.md, "Before"), less a small margin: a ranking change must not
/// lower them. The split is never used to choose a parameter.
#[test]
fn frozen_split_keeps_its_floors() {
    let root = common::crate_root();
    let (archive, content) = eval::compile_frozen_corpora(&root).unwrap();
    let index = eval::index(&archive, &content);
    let questions = eval::load(&root.join("benches/relevance/frozen.tsv"));
    assert!(questions.len() >= 100, "{}", questions.len());
    let problems = eval::check(&index, &questions, true);
    assert!(problems.is_empty(), "frozen.tsv:\n{}", problems.join("\n"));
    for (kind, _) in eval::KINDS {
        assert!(
            questions.iter().filter(|q| q.kind == kind).count() >= 10,
            "{kind}"
        );
    }

    let baseline = eval::Baseline::new(&index);
    let (ours, plain) =
        eval::evaluate(&index, &baseline, &questions, &Params::default(), |_| {}).unwrap();
    eprintln!(
        "{}\n{}",
        ours.line("frozen / skillpack"),
        plain.line("frozen / plain BM25")
    );
    let floor = FROZEN_FLOORS;
    assert!(ours.recall1() >= floor.recall1, "{}", ours.line("frozen"));
    assert!(ours.recall3() >= floor.recall3, "{}", ours.line("frozen"));
    assert!(ours.mrr() >= floor.mrr, "{}", ours.line("frozen"));
    assert!(ours.section3() >= floor.section3, "{}", ours.line("frozen"));
    assert!(
        ours.mrr() >= plain.mrr() + floor.mrr_over_bm25,
        "{}\n{}",
        ours.line("frozen"),
        plain.line("plain BM25")
    );

    // The alternative phrasings fused (`also`) find at least what the query alone finds,
    // with the author's rephrasings and with those of an agent that saw only the question.
    // With an agent's, the four targets hold on content the ranking was never tuned
    // on (0.892 / 0.983 / 0.935 / 0.927, since the phrasing that ranks a page best names its
    // section; 0.873 section@3 before; 0.883 / 0.983 / 0.932 / 0.927 since the query's clear
    // winner stays first, issue 47).
    for (label, file, meets_targets) in [
        ("also", "frozen-paraphrases.tsv", false),
        ("also (agent)", "frozen-paraphrases-agent.tsv", true),
    ] {
        let paraphrases = eval::load_paraphrases(&root.join("benches/relevance").join(file));
        let problems = eval::check_paraphrases(&questions, &paraphrases);
        assert!(problems.is_empty(), "{file}:\n{}", problems.join("\n"));
        let (fused, _) = eval::evaluate_fused(
            &index,
            &baseline,
            &questions,
            &paraphrases,
            &Params::default(),
            |_| {},
        )
        .unwrap();
        let line = fused.line(&format!("frozen / skillpack + {label}"));
        eprintln!("{line}");
        assert!(fused.recall3() >= ours.recall3(), "{line}");
        assert!(fused.mrr() >= floor.fused_mrr, "{line}");
        assert!(fused.section1() >= floor.fused_section1, "{line}");
        if meets_targets {
            assert!(fused.recall1() >= 0.85, "{line}");
            assert!(fused.recall3() >= 0.95, "{line}");
            assert!(fused.mrr() >= 0.90, "{line}");
            assert!(fused.section3() >= 0.90, "{line}");
        }
    }

    // Agents' own first calls (`benches/relevance/first-calls/`): the section target
    // with agents' calls, summed over every set of them (0.882 and 0.836 for the two sets
    // written 2026-12-06, 0.859 together), and the answering page first at least as often
    // as the question alone finds it.
    let mut first_calls = eval::Scores::default();
    for (set, calls) in first_call_sets(&root, "frozen.tsv") {
        let scores = first_call_scores(&index, &baseline, &questions, &calls);
        let line = scores.line(&format!("frozen / skillpack first calls ({set})"));
        eprintln!("{line}");
        assert!(scores.recall1() >= ours.recall1(), "{line}");
        first_calls.merge(&scores);
    }
    let line = first_calls.line("frozen / skillpack first calls (every set)");
    assert!(first_calls.section1() >= 0.85, "{line}");
}

/// The default ranking's scores for the questions searched as agents' first calls wrote them.
fn first_call_scores(
    index: &skillpack_server::search::Index<'_>,
    baseline: &eval::Baseline,
    questions: &[eval::Question],
    calls: &eval::FirstCalls,
) -> eval::Scores {
    eval::evaluate_first_calls(
        index,
        baseline,
        questions,
        calls,
        &Params::default(),
        |_| {},
    )
    .unwrap()
    .0
}

/// Every set of agents' first calls (at least two) for the questions file `relative` (to
/// `benches/relevance`), each checked to cover exactly its questions
/// ([`eval::first_call_sets`]).
fn first_call_sets(root: &std::path::Path, relative: &str) -> Vec<(String, eval::FirstCalls)> {
    let sets = eval::first_call_sets(
        &root.join("benches/relevance"),
        std::path::Path::new(relative),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(sets.len() >= 2, "{relative}: {} sets", sets.len());
    sets
}

/// The frozen questions over the seven generator trees (`benches/relevance/generators/`,
/// written from the rendered pages, never tuned on), each tree compiled as its site
/// generator publishes it: with the questions' `also` phrasings, the answering section is
/// the first hit for at least 85% of the questions that name a section, issue 47's target
/// (0.786 with the flat vote, 0.857 since phrasings vote down the outline), and the page
/// figures stay at or above the query alone's. `scripts/search-eval-generators` prints the
/// same totals. Skipped with a message when `../shared` is absent.
#[test]
fn generator_trees_keep_the_section_target() {
    let Some(corpora) = common::corpora() else {
        return;
    };
    let root = common::crate_root();
    let skills = tempfile::tempdir().unwrap();
    let mut total = eval::Scores::default();
    let mut total_alone = eval::Scores::default();
    let mut first_calls = eval::Scores::default();
    let mut second_alone = eval::Scores::default();
    let mut second_calls = eval::Scores::default();
    let mut trees = 0;
    for entry in std::fs::read_dir(root.join("benches/relevance/generators")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let Some(tree) = name.strip_suffix(".tsv") else {
            continue;
        };
        if tree.ends_with("-paraphrases") {
            continue;
        }
        // The docs root is named on the file's first line: "docs root `content/en`".
        let first = std::fs::read_to_string(&path).unwrap();
        let docs_root = first
            .lines()
            .next()
            .and_then(|line| line.split("docs root `").nth(1))
            .and_then(|rest| rest.split('`').next())
            .unwrap_or_else(|| panic!("{name}: the first line names no docs root"));
        let docs = corpora.join("generators").join(tree).join(docs_root);
        let (archive, content) = eval::compile_dirs(skills.path(), &docs).unwrap();
        let index = eval::index(&archive, &content);
        let baseline = eval::Baseline::new(&index);
        let questions = eval::load(&path);
        let problems = eval::check(&index, &questions, true);
        assert!(problems.is_empty(), "{name}:\n{}", problems.join("\n"));
        let paraphrases =
            eval::load_paraphrases(&path.with_file_name(format!("{tree}-paraphrases.tsv")));
        let (alone, fused, _) = alone_and_fused(&index, &baseline, &questions, &paraphrases);
        eprintln!("{}", fused.line(&format!("{tree} / skillpack + also")));
        total.merge(&fused);
        total_alone.merge(&alone);
        for (_, calls) in first_call_sets(&root, &format!("generators/{name}")) {
            first_calls.merge(&first_call_scores(&index, &baseline, &questions, &calls));
        }
        // The tree's second frozen set: agents' first calls only (no written rephrasings).
        let second = eval::load(&path.with_file_name("frozen2").join(&name));
        let problems = eval::check(&index, &second, true);
        assert!(
            problems.is_empty(),
            "frozen2/{name}:\n{}",
            problems.join("\n")
        );
        let (alone, _) =
            eval::evaluate(&index, &baseline, &second, &Params::default(), |_| {}).unwrap();
        second_alone.merge(&alone);
        for (_, calls) in first_call_sets(&root, &format!("generators/frozen2/{name}")) {
            second_calls.merge(&first_call_scores(&index, &baseline, &second, &calls));
        }
        trees += 1;
    }
    assert_eq!(trees, 7, "the seven generator trees");
    let line = total.line("generator trees / skillpack + also");
    eprintln!(
        "{line}\n{}",
        total_alone.line("generator trees / skillpack")
    );
    assert!(total.with_section >= 50, "{line}");
    assert!(total.section1() >= 0.85, "{line}");
    assert!(total.recall1() >= total_alone.recall1(), "{line}");
    assert!(total.recall3() >= total_alone.recall3(), "{line}");
    // With agents' own first calls (every set summed; 0.839 and 0.804 for the two sets of
    // 2026-12-06, 0.821 together: short of the 0.85 target, so the floor is that less about
    // two questions, to be raised once the target is reached).
    let line = first_calls.line("generator trees / skillpack first calls (every set)");
    eprintln!("{line}");
    assert!(first_calls.section1() >= 0.80, "{line}");
    assert!(first_calls.recall1() >= total_alone.recall1(), "{line}");
    // The second frozen set (`generators/frozen2/`, eight more questions a tree, written
    // 2026-12-07 with the plan committed before they were judged): 0.929 and 0.982 for its
    // two sets of first calls, 0.955 together, so the floor is that less about three
    // questions; and both frozen sets together keep the target (0.888 measured).
    let line = second_calls.line("generator trees' second set / skillpack first calls");
    eprintln!("{line}");
    assert!(second_calls.with_section >= 100, "{line}");
    assert!(second_calls.section1() >= 0.92, "{line}");
    assert!(second_calls.recall1() >= second_alone.recall1(), "{line}");
    let mut both = first_calls;
    both.merge(&second_calls);
    let line = both.line("generator trees' two frozen sets / skillpack first calls");
    eprintln!("{line}");
    assert!(both.section1() >= 0.85, "{line}");
}

/// The httpx docs (`benches/corpora/httpx`, committed), the second tuning tree: 66 questions
/// written from its pages, a third of them held out by the hash rule of the shared splits,
/// with an agent's rephrasings written from the questions alone. Untuned, with `also`, the
/// answering section came first for 35/45 tuning and 19/21 held-out questions; with the
/// query's clear winner kept only as an exact match (`Params::winner_verbatim`, chosen on
/// the two tuning trees), 36/45 and 19/21. The floor keeps that less two questions, and the
/// fused page figures at or above the query alone's.
#[test]
fn httpx_tree_keeps_its_floors() {
    committed_tree_keeps_its_floors("httpx", "benches/corpora/httpx/docs", 66, 0.80);
}

/// The Cargo book (`benches/corpora/cargo`, committed), the third tuning tree: 77 questions
/// written from its pages (97 pages, 48 of them command pages generated from man pages, and
/// a 2,400-line page of unstable features), split and rephrased as httpx's. Measured before
/// anything was chosen on it, with `also`, the answering section came first for 37/50
/// tuning and 22/25 held-out questions; with rank fusion's constant at 5
/// (`fuse::RRF_K`, chosen on the three tuning trees), 40/50 and 21/25. The floor keeps that
/// less two questions, and the fused page figures at or above the query alone's.
#[test]
fn cargo_tree_keeps_its_floors() {
    // 77 questions, two of which a whole page answers (no section).
    committed_tree_keeps_its_floors("cargo", "benches/corpora/cargo/src", 75, 0.78);
}

/// A tuning tree committed under `benches/corpora`: its questions label real sections, its
/// held-out part is the hash rule's, every question has its rephrasings, `with_section` of
/// them name a section, and with their rephrasings the answering section comes first for at
/// least `floor` of those.
fn committed_tree_keeps_its_floors(tree: &str, docs: &str, with_section: usize, floor: f64) {
    let root = common::crate_root();
    let skills = tempfile::tempdir().unwrap();
    let (archive, content) = eval::compile_dirs(skills.path(), &root.join(docs)).unwrap();
    let index = eval::index(&archive, &content);
    let baseline = eval::Baseline::new(&index);
    let mut total = eval::Scores::default();
    let mut total_alone = eval::Scores::default();
    for split in [tree.to_string(), format!("{tree}-heldout")] {
        let path = root.join(format!("benches/relevance/{split}.tsv"));
        let questions = eval::load(&path);
        let problems = eval::check(&index, &questions, true);
        assert!(problems.is_empty(), "{split}.tsv:\n{}", problems.join("\n"));
        for q in &questions {
            let expected = split.ends_with("-heldout");
            assert_eq!(held_out(&q.text), expected, "{split}: {:?}", q.text);
        }
        let paraphrases = eval::load_paraphrases(
            &root.join(format!("benches/relevance/{split}-paraphrases.tsv")),
        );
        let problems = eval::check_paraphrases(&questions, &paraphrases);
        assert!(problems.is_empty(), "{split}:\n{}", problems.join("\n"));
        let (alone, fused, _) = alone_and_fused(&index, &baseline, &questions, &paraphrases);
        eprintln!("{}", fused.line(&format!("{split} / skillpack + also")));
        total.merge(&fused);
        total_alone.merge(&alone);
    }
    let line = total.line(&format!("{tree} / skillpack + also"));
    eprintln!(
        "{line}\n{}",
        total_alone.line(&format!("{tree} / skillpack"))
    );
    assert_eq!(total.with_section, with_section, "{line}");
    assert!(total.section1() >= floor, "{line}");
    assert!(total.recall1() >= total_alone.recall1(), "{line}");
    assert!(total.recall3() >= total_alone.recall3(), "{line}");
}

/// The default ranking's scores for the questions alone and with their phrasings fused,
/// and plain BM25's fused the same way.
fn alone_and_fused(
    index: &skillpack_server::search::Index<'_>,
    baseline: &eval::Baseline,
    questions: &[eval::Question],
    paraphrases: &std::collections::HashMap<String, Vec<String>>,
) -> (eval::Scores, eval::Scores, eval::Scores) {
    let (alone, _) =
        eval::evaluate(index, baseline, questions, &Params::default(), |_| {}).unwrap();
    let (fused, plain) = eval::evaluate_fused(
        index,
        baseline,
        questions,
        paraphrases,
        &Params::default(),
        |_| {},
    )
    .unwrap();
    (alone, fused, plain)
}

struct Floors {
    recall1: f64,
    recall3: f64,
    mrr: f64,
    section3: f64,
    /// MRR over plain whole-document BM25 on the same questions (may be negative: the
    /// ranking must not fall further behind).
    mrr_over_bm25: f64,
    fused_mrr: f64,
    /// The first hit inside the answering section, with `also` (either set of rephrasings).
    fused_section1: f64,
}

/// The frozen split's floors: the figures of the ranking it was written against, less
/// about 0.02 (R@1 0.758, R@3 0.883, MRR 0.822, section@3 0.791, 0.048 MRR over plain
/// BM25; with `also` MRR 0.941). With the class fixes of issue 17 (identifiers, operators,
/// local section choice, soft quotes, code weight, one hit per chunk) single-query figures
/// rose a little (0.767 / 0.883 / 0.833 / 0.809) and fused MRR fell to 0.914; fusing by
/// chunk and choosing sections by their idf in the document left single-query figures as
/// they were and raised fused MRR to 0.928, so its floor is 0.90; counting fused votes by
/// document as well (chosen on the tuning split's agent-written rephrasings) left it at
/// 0.929, and the floor rose to 0.91 (0.935 with an agent's rephrasings, which must keep it
/// too). The targets
/// (single query: R@1 0.85, R@3 0.95, MRR 0.90, section@3 0.90, MRR 0.05 over plain BM25)
/// are not met. Fused section@1 (the first hit inside the answering section: an answer in
/// one call) was 0.736 and 0.755 before issue 47 named a subsection over its parent and let
/// phrasings vote for a document's section, 0.791 and 0.782 after, and 0.800 and 0.791
/// once the phrasings voted down the outline (`Params::tree_vote`, chosen on the tuning
/// split), 0.809 and 0.791 once the query's clear winner had to be an exact match (chosen
/// on the two tuning trees, the shared corpora's and httpx's), 0.827 and 0.809 with rank
/// fusion's constant at 5, and 0.845 and 0.818 once a phrasing's vote counted its scores
/// too (both chosen on the three tuning trees); its floor is 0.78 (the target is
/// 0.85). Raise the floors to the targets
/// once reached; never lower them to pass.
const FROZEN_FLOORS: Floors = Floors {
    recall1: 0.73,
    recall3: 0.86,
    mrr: 0.80,
    section3: 0.77,
    mrr_over_bm25: 0.025,
    fused_mrr: 0.91,
    fused_section1: 0.78,
};
