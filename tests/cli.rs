//! The command line of the real binary: identity, inspection commands and pinning.

use crate::common;

use common::{builtin_binary, run};

fn stdout(args: &[&str]) -> String {
    let output = run(&builtin_binary(), args);
    assert!(
        output.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

fn fingerprint() -> String {
    stdout(&["fingerprint"]).trim().to_owned()
}

#[test]
fn version_carries_the_fingerprint() {
    let fp = fingerprint();
    assert_eq!(
        stdout(&["--version"]).trim(),
        format!("skillpack {}+{}", env!("CARGO_PKG_VERSION"), &fp[7..19])
    );
}

#[test]
fn info_reports_counts_sizes_and_fingerprint() {
    let text = stdout(&["info"]);
    assert!(text.contains(&fingerprint()), "{text}");
    let json: serde_json::Value = serde_json::from_str(&stdout(&["info", "--json"])).unwrap();
    assert_eq!(json["fingerprint"], fingerprint());
    assert!(json["skills"].as_u64().unwrap() >= 3);
    assert!(json["docs"].as_u64().unwrap() >= 5);
    // This repository's docs are plain markdown: no site generator's files above them.
    assert!(text.contains("docs site:    plain ("), "{text}");
    assert_eq!(json["docs_site"]["flavor"], "plain");
    assert_eq!(json["docs_site"]["pages"], json["docs"]);
    let on_disk: u64 = walkdir::WalkDir::new(common::crate_root().join("skills"))
        .into_iter()
        .chain(walkdir::WalkDir::new(common::crate_root().join("docs")))
        .map(Result::unwrap)
        .filter(|e| e.file_type().is_file() && !e.file_name().to_string_lossy().starts_with('.'))
        .map(|e| e.metadata().unwrap().len())
        .sum();
    assert_eq!(
        json["content_bytes"].as_u64(),
        Some(on_disk),
        "every byte of content is served"
    );
    // The archive and the de-duplicated blob are embedded in the binary, nothing else of
    // the catalog is.
    let embedded = json["archive_bytes"].as_u64().unwrap() + json["blob_bytes"].as_u64().unwrap();
    let binary = std::fs::metadata(common::builtin_binary()).unwrap().len();
    assert!(json["archive_bytes"].as_u64().unwrap() > 0);
    assert!(
        embedded < binary,
        "{embedded} embedded bytes in a {binary}-byte binary"
    );
}

#[test]
fn list_and_read() {
    let listing = stdout(&["list"]);
    let skill_line = listing
        .lines()
        .find(|l| l.starts_with("skill\t"))
        .expect("a skill");
    let uri = skill_line.split('\t').nth(2).unwrap();
    let id = skill_line.split('\t').nth(1).unwrap();
    let text = stdout(&["read", uri]);
    let on_disk = std::fs::read_to_string(
        common::crate_root()
            .join("skills")
            .join(id)
            .join("SKILL.md"),
    )
    .unwrap();
    assert_eq!(text, on_disk);
    assert!(
        stdout(&["list", "docs"])
            .lines()
            .all(|l| l.starts_with("doc\t"))
    );
    assert!(
        stdout(&["list", "skills"])
            .lines()
            .all(|l| l.starts_with("skill\t"))
    );

    let missing = run(&builtin_binary(), &["read", "resource://docs/nope.md"]);
    assert!(!missing.status.success());
    let stderr = String::from_utf8_lossy(&missing.stderr);
    assert!(
        stderr.contains("doc_not_found") && stderr.contains("docs_index"),
        "{stderr}"
    );
    assert!(missing.stdout.is_empty());
}

#[test]
fn expect_fingerprint_refuses_a_different_catalog() {
    let wrong = run(
        &builtin_binary(),
        &["serve", "--expect-fingerprint", "000000000000"],
    );
    assert!(!wrong.status.success());
    let stderr = String::from_utf8_lossy(&wrong.stderr);
    assert!(
        stderr.contains("refusing to start") && stderr.contains(&fingerprint()),
        "{stderr}"
    );
    assert!(wrong.stdout.is_empty(), "nothing on the protocol stream");

    let malformed = run(&builtin_binary(), &["serve", "--expect-fingerprint", "abc"]);
    assert!(!malformed.status.success());
    assert!(String::from_utf8_lossy(&malformed.stderr).contains("at least 12 hex digits"));
}

#[tokio::test]
async fn expect_fingerprint_serves_the_pinned_catalog() {
    let fp = fingerprint();
    for pin in [&fp[7..19], fp.as_str(), &fp[..20]] {
        let client =
            common::connect_with_args(&builtin_binary(), &["serve", "--expect-fingerprint", pin])
                .await;
        let resources = client.list_all_resources().await.unwrap();
        assert!(!resources.is_empty());
        client.cancel().await.unwrap();
    }
}

/// `--log-level` takes a level or `target=level` pairs, overrides RUST_LOG, and a filter
/// it cannot read is reported and replaced by the default, never fatal.
#[test]
fn log_level_filters_stderr() {
    // stdin is empty: the server starts, logs, sees the end of input before any
    // `initialize` and exits (with status 1, which is not what this test is about).
    let stderr = |level: &str| {
        let output = std::process::Command::new(builtin_binary())
            .args(["--log-level", level, "serve"])
            .env("RUST_LOG", "error")
            .stdin(std::process::Stdio::null())
            .output()
            .expect("run skillpack");
        assert!(output.stdout.is_empty(), "logs never go to stdout");
        String::from_utf8_lossy(&output.stderr).into_owned()
    };
    const STARTED: &str = "serving MCP over stdio";
    assert!(stderr("info").contains(STARTED));
    assert!(!stderr("warn").contains(STARTED));
    assert!(stderr("rmcp=off,skillpack=info").contains(STARTED));
    assert!(!stderr("info,skillpack=error").contains(STARTED));
    let bad = stderr("skillpack=[loud");
    assert!(
        bad.contains("ignoring --log-level") && bad.contains("target=level"),
        "{bad}"
    );
    assert!(
        bad.contains(STARTED),
        "falls back to the default, info: {bad}"
    );
}
