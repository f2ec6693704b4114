//! `skillpack-check`: the compiler's diagnostics without a build, line for line what
//! `cargo build` prints for the same content.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

/// Build `skillpack-check` in the shared variants dir and copy it out (the next build there
/// may replace it).
fn check_binary() -> PathBuf {
    static BINARY: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BINARY
        .get_or_init(|| {
            let (output, _lock) = common::cargo_in_variants(
                &[
                    "build",
                    "--release",
                    "-p",
                    "skillpack-build",
                    "--bin",
                    "skillpack-check",
                ],
                &common::crate_root(),
                &[],
            );
            assert!(
                output.status.success(),
                "building skillpack-check failed:\n{}",
                String::from_utf8_lossy(&output.stderr)
            );
            let copy = common::variants_target().join("bin/skillpack-check");
            std::fs::create_dir_all(copy.parent().unwrap()).unwrap();
            let staging = copy.with_extension("tmp");
            common::place_executable(
                &common::variants_release_dir().join("skillpack-check"),
                &staging,
            )
            .unwrap();
            std::fs::rename(&staging, &copy).unwrap();
            copy
        })
        .clone()
}

/// Content with two errors (a skill without a description, a doc whose frontmatter is not
/// YAML) and a warning (a broken link).
fn broken_content() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let write = |rel: &str, text: &str| {
        let path = dir.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(
        "skills/no-description/SKILL.md",
        "---\nname: no-description\n---\n\n# Hi\n",
    );
    write("docs/index.md", "# Index\n\nSee [the guide](guide.md).\n");
    write("docs/bad.md", "---\ntitle: [unclosed\n---\n\n# Bad\n");
    dir
}

fn run(binary: &Path, args: &[&str], cwd: &Path) -> std::process::Output {
    let mut command = Command::new(binary);
    command.args(args).current_dir(cwd);
    for var in skillpack_server::compile::config::ENV_VARS {
        command.env_remove(var);
    }
    command.output().expect("run skillpack-check")
}

/// The diagnostic lines of a build or a check (`path[:line]: error|warning: …`).
fn diagnostic_lines(text: &str, root: &Path) -> Vec<String> {
    let root = root.display().to_string();
    let mut lines: Vec<String> = text
        .lines()
        // Cargo indents a failed build script's output, and prefixes its warnings.
        .map(|line| {
            line.trim_start()
                .trim_start_matches("warning: skillpack@0.1.0: ")
        })
        .filter(|line| line.starts_with(&root))
        .filter(|line| line.contains(": error: ") || line.contains(": warning: "))
        .map(str::to_owned)
        .collect();
    lines.sort();
    lines
}

#[test]
fn check_prints_what_the_build_prints_and_fails() {
    let content = broken_content();
    let skills = content.path().join("skills");
    let docs = content.path().join("docs");
    let checked = run(
        &check_binary(),
        &[
            "--skills",
            skills.to_str().unwrap(),
            "--docs",
            docs.to_str().unwrap(),
        ],
        content.path(),
    );
    assert_eq!(
        checked.status.code(),
        Some(1),
        "content with errors exits 1"
    );
    let check_lines = diagnostic_lines(&String::from_utf8_lossy(&checked.stdout), content.path());
    assert_eq!(
        check_lines
            .iter()
            .filter(|l| l.contains(": error: "))
            .count(),
        1,
        "{check_lines:#?}"
    );
    // A doc's broken frontmatter is a warning: the page is served without it.
    assert!(
        check_lines
            .iter()
            .any(|l| l.contains("docs/bad.md:3: warning: invalid YAML frontmatter")),
        "{check_lines:#?}"
    );
    assert!(
        check_lines
            .iter()
            .any(|l| l.contains("docs/index.md:3: warning:")),
        "{check_lines:#?}"
    );
    for line in &check_lines {
        assert!(
            line.contains(" — "),
            "every problem says how to fix it: {line}"
        );
    }

    let (built, _lock) = common::build_with_env(&[
        ("SKILLPACK_SKILLS_DIR", skills.to_str().unwrap()),
        ("SKILLPACK_DOCS_DIR", docs.to_str().unwrap()),
    ]);
    assert!(!built.status.success(), "the build fails too");
    let build_lines = diagnostic_lines(&String::from_utf8_lossy(&built.stderr), content.path());
    assert_eq!(check_lines, build_lines, "the same lines as the build");
}

#[test]
fn check_passes_clean_content_and_strict_turns_warnings_into_errors() {
    let content = broken_content();
    std::fs::remove_dir_all(content.path().join("skills")).unwrap();
    std::fs::remove_file(content.path().join("docs/bad.md")).unwrap();
    // Relative to --root, like a build's paths are relative to its package.
    let clean = run(
        &check_binary(),
        &["--root", content.path().to_str().unwrap()],
        Path::new("/"),
    );
    assert_eq!(
        clean.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&clean.stderr)
    );
    assert!(String::from_utf8_lossy(&clean.stdout).contains("docs/index.md:3: warning:"));

    let strict = run(&check_binary(), &["--strict"], content.path());
    assert_eq!(strict.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&strict.stdout).contains("docs/index.md:3: error:"));

    // SKILLPACK_* variables apply as in a build.
    let mut command = Command::new(check_binary());
    command
        .current_dir(content.path())
        .env("SKILLPACK_STRICT", "1");
    assert_eq!(command.output().unwrap().status.code(), Some(1));
}

#[test]
fn check_rejects_unknown_flags_and_a_missing_folder() {
    let dir = tempfile::tempdir().unwrap();
    let usage = run(&check_binary(), &["--sklls", "x"], dir.path());
    assert_eq!(usage.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&usage.stderr).contains("Usage: skillpack-check"));

    let missing = run(&check_binary(), &["--docs", "nowhere"], dir.path());
    assert_eq!(missing.status.code(), Some(1));
    let out = String::from_utf8_lossy(&missing.stdout);
    assert!(out.contains("nowhere: error: cannot be read"), "{out}");
}
