//! Interoperability with a client nobody here wrote: the official Python MCP SDK (pinned in
//! `tests/interop/requirements.txt`) drives the real binary over stdio and checks the
//! SEP-2640 skills surface from its side (`tests/interop/python_sdk_skills.py`): every skill
//! listed, every manifest digest and size verified on the bytes it reads, frontmatter
//! equal to PyYAML's parse, directory reads, errors.
//!
//! The SDK lives in `.venv` (created by `tests/interop/setup.sh`, which `.ci/run` runs).
//! Without `python3` the tests skip with a message, except under CI (`CI=true`), where
//! that is a failure.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// `.venv/bin/python` with the pinned SDK installed, or `None` (after saying why) when
/// this machine has no `python3` and is not CI.
fn python() -> Option<PathBuf> {
    static VENV: OnceLock<Option<PathBuf>> = OnceLock::new();
    VENV.get_or_init(|| {
        let root = common::crate_root();
        if Command::new("python3").arg("--version").output().is_err() {
            assert!(
                !std::env::var("CI").is_ok_and(|ci| ci == "true" || ci == "1"),
                "python3 is missing on CI: .ci/run must install it for the Python SDK interop test"
            );
            eprintln!("SKIP: python3 is not installed, so the Python SDK interop test did not run");
            return None;
        }
        let setup = Command::new("bash")
            .arg(root.join("tests/interop/setup.sh"))
            .output()
            .expect("run tests/interop/setup.sh");
        assert!(
            setup.status.success(),
            "tests/interop/setup.sh could not install the pinned Python SDK into .venv:\n{}{}",
            String::from_utf8_lossy(&setup.stdout),
            String::from_utf8_lossy(&setup.stderr)
        );
        Some(root.join(".venv/bin/python"))
    })
    .clone()
}

fn run_sdk_check(python: &Path, binary: &Path, skills_root: &Path) {
    let script = common::crate_root().join("tests/interop/python_sdk_skills.py");
    let output = Command::new(python)
        .arg(&script)
        .arg(binary)
        .arg(skills_root)
        .output()
        .expect("run the Python SDK interop script");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    eprintln!("{stdout}{stderr}");
    assert!(
        output.status.success(),
        "the Python SDK found a problem with {}:\n{stdout}{stderr}",
        binary.display()
    );
    assert!(stdout.contains("2 passed, 0 failed"), "{stdout}");
}

#[test]
fn python_sdk_verifies_builtin_skills() {
    let Some(python) = python() else {
        return;
    };
    run_sdk_check(
        &python,
        &common::builtin_binary(),
        &common::crate_root().join("skills"),
    );
}

#[test]
fn python_sdk_verifies_corpus_skills() {
    let Some(python) = python() else {
        return;
    };
    let Some(binary) = common::corpora_binary() else {
        return;
    };
    let root = common::corpora().unwrap().join("anthropic-skills/skills");
    run_sdk_check(&python, &binary, &root);
}
