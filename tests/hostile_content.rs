//! Hostile content at build time: symlinks out of the root, huge files, pathological
//! markdown, YAML bombs, invalid UTF-8, CRLF and byte-order marks. Each is refused with a
//! clear `path:line: what — how to fix` or handled exactly, and none hangs the build.
//!
//! The compiler runs in-process on generated fixtures; one test runs a real `cargo build`
//! over hostile content to show the build fails with the diagnostics and no panic.

use crate::common;

use std::path::PathBuf;
use std::sync::mpsc;
use std::time::Duration;

use skillpack_server::compile::{self, Config, Severity};

/// Fail instead of hanging. Every fixture here compiles in well under a second or two;
/// the cases that hung before (identical headings, code blocks in list items, deep YAML
/// flow nesting) took minutes to hours.
const HANG: Duration = Duration::from_secs(300);

struct Fixture {
    dir: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("skills")).unwrap();
        std::fs::create_dir_all(dir.path().join("docs")).unwrap();
        Fixture { dir }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    fn write(&self, rel: &str, bytes: impl AsRef<[u8]>) -> &Self {
        let path = self.path(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
        self
    }

    fn config(&self) -> Config {
        Config::for_dirs(self.path("skills"), self.path("docs"))
    }

    /// Compile on another thread, failing the test if it does not finish within `HANG`.
    fn compile(&self) -> Result<compile::Output, Vec<String>> {
        let config = self.config();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(compile::compile(&config).map_err(|report| {
                report
                    .diagnostics
                    .iter()
                    .filter(|d| d.severity == Severity::Error)
                    .map(|d| d.to_string())
                    .collect::<Vec<_>>()
            }));
        });
        rx.recv_timeout(HANG)
            .unwrap_or_else(|_| panic!("the compiler did not finish within {HANG:?}: it hangs"))
    }

    fn errors(&self) -> Vec<String> {
        match self.compile() {
            Ok(_) => panic!("the fixture compiled, but it should not"),
            Err(errors) => errors,
        }
    }
}

/// One error names `file` (relative to the fixture) and contains every word, and has the
/// `what — how to fix` shape.
fn assert_error(errors: &[String], fixture: &Fixture, file: &str, words: &[&str]) {
    let path = fixture.path(file).display().to_string();
    let found = errors.iter().any(|e| {
        e.starts_with(&path)
            && e.contains(" — ")
            && words
                .iter()
                .all(|w| e.to_lowercase().contains(&w.to_lowercase()))
    });
    assert!(
        found,
        "no error for {file} with {words:?} in:\n{}",
        errors.join("\n")
    );
}

const SKILL: &str = "---\nname: pdf\ndescription: Fill PDF forms.\n---\n# PDF\n\nUse it.\n";

/// Every document's chunks concatenate back to it exactly.
fn assert_chunks_cover(output: &compile::Output) {
    for doc in &output.catalog.documents {
        let text = output.read(doc.content).unwrap();
        let mut at = 0u32;
        for chunk in &doc.chunks {
            assert_eq!(
                chunk.start, at,
                "{}: gap before chunk {}",
                doc.uri, chunk.id
            );
            at = chunk.end;
        }
        assert_eq!(at as usize, text.len(), "{}: chunks stop short", doc.uri);
    }
}

#[test]
fn symlinks_out_of_the_root_are_refused() {
    let f = Fixture::new();
    f.write("skills/pdf/SKILL.md", SKILL);
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.md"), "# secret\n").unwrap();
    let link = |target: &std::path::Path, at: &str| {
        std::fs::create_dir_all(f.path(at).parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(target, f.path(at)).unwrap();
    };
    link(outside.path(), "skills/pdf/references"); // a folder outside the root
    link(&outside.path().join("secret.md"), "docs/secret.md"); // a file outside the root
    link(&f.path("docs/missing.md"), "docs/dangling.md");
    link(&f.path("docs"), "docs/loop"); // a cycle
    link(
        std::path::Path::new("../../../../../../etc/passwd"),
        "docs/passwd.md",
    );
    let errors = f.errors();
    for path in [
        "skills/pdf/references",
        "docs/secret.md",
        "docs/dangling.md",
        "docs/loop",
        "docs/passwd.md",
    ] {
        assert_error(&errors, &f, path, &["symbolic link", "cp -L"]);
    }
    assert!(
        errors.iter().all(|e| !e.contains("secret\n")),
        "a linked file was read"
    );
}

#[test]
fn a_symlinked_root_is_followed() {
    // The folder named by SKILLPACK_DOCS_DIR may itself be a link (a checkout mounted
    // elsewhere); only links inside the content are refused.
    let f = Fixture::new();
    f.write("real-docs/guide.md", "# Guide\n");
    std::fs::remove_dir(f.path("docs")).unwrap();
    std::os::unix::fs::symlink(f.path("real-docs"), f.path("docs")).unwrap();
    let output = f.compile().expect("a symlinked root compiles");
    assert_eq!(output.catalog.totals.docs, 1);
}

#[test]
fn huge_files_are_refused_without_reading_them() {
    let f = Fixture::new();
    f.write("skills/pdf/SKILL.md", SKILL);
    // Sparse: the test does not write gigabytes, and a compiler that read the file before
    // checking its size would take long and allocate a gigabyte.
    for (rel, size) in [
        ("docs/huge.md", 16 * 1024 * 1024 + 1),
        ("skills/pdf/assets/disk.img", 1 << 30),
    ] {
        let path = f.path(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::File::create(&path).unwrap().set_len(size).unwrap();
    }
    let errors = f.errors();
    assert_error(
        &errors,
        &f,
        "docs/huge.md",
        &["16777217 bytes", "at most 16777216"],
    );
    assert_error(
        &errors,
        &f,
        "skills/pdf/assets/disk.img",
        &["1073741824 bytes"],
    );
}

#[test]
fn deeply_nested_markdown_compiles_exactly() {
    let f = Fixture::new();
    f.write("docs/quotes.md", format!("{}deep\n", "> ".repeat(100_000)));
    f.write(
        "docs/lists.md",
        (0..2000)
            .map(|i| format!("{}- item {i}\n", "  ".repeat(i)))
            .collect::<String>(),
    );
    f.write("docs/brackets.md", "[".repeat(4_000_000));
    f.write("docs/emphasis.md", "*a **b ***c ".repeat(300_000));
    f.write("docs/html.md", "<div>\n".repeat(1_000_000));
    f.write(
        "docs/table.md",
        format!("{}|\n{}|\n", "|a".repeat(100_000), "|-".repeat(100_000)),
    );
    let output = f.compile().expect("pathological markdown still compiles");
    assert_eq!(output.catalog.totals.docs, 6);
    assert_chunks_cover(&output);
}

#[test]
fn pathological_structure_compiles_in_linear_time() {
    let f = Fixture::new();
    // 100,000 identical headings: de-duplicating anchors by trying `a-1`, `a-2`… from 1
    // each time was five billion probes.
    f.write("docs/same.md", "## a\n".repeat(100_000));
    // A million code blocks inside one oversized section: testing every block at every
    // candidate cut was hours.
    f.write("docs/fences.md", "- ```\n  x\n  ```\n".repeat(1_000_000));
    // Millions of tiny paragraphs in one section.
    f.write("docs/paragraphs.md", "a\n\n".repeat(5_000_000));
    let output = f.compile().expect("compiles");
    assert_chunks_cover(&output);
    let same = output
        .catalog
        .documents
        .iter()
        .find(|d| d.path == "same.md")
        .unwrap();
    assert_eq!(same.outline[99_999].anchor, "a-99999");
    assert_eq!(same.chunks.len(), 100_000);
}

#[test]
fn yaml_bombs_are_refused() {
    let f = Fixture::new();
    // Billion laughs: ten levels of ten aliases each.
    let mut laughs = String::from(
        "---\nname: laughs\ndescription: d\na0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n",
    );
    for i in 1..10 {
        let prev = format!("*a{}", i - 1);
        laughs.push_str(&format!(
            "a{i}: &a{i} [{}]\n",
            [prev.as_str(); 10].join(", ")
        ));
    }
    laughs.push_str("---\n# Laughs\n");
    f.write("skills/laughs/SKILL.md", laughs);
    // Few aliases, each repeating a large value: under the alias-jump limit, 500 MB of JSON.
    let wide = format!(
        "---\nname: wide\ndescription: d\nbase: &b [\"{}\"]\nall: [{}]\n---\n",
        "x".repeat(100_000),
        vec!["*b"; 5000].join(", ")
    );
    f.write("skills/wide/SKILL.md", wide);
    // Nesting that makes the YAML parser quadratic.
    f.write(
        "skills/deep/SKILL.md",
        format!(
            "---\nname: deep\ndescription: d\nx: {}\n---\n",
            "[".repeat(2_000_000)
        ),
    );
    f.write(
        "skills/self/SKILL.md",
        "---\nname: self\ndescription: d\na: &a [*a]\n---\n",
    );
    f.write("docs/bomb.md", "---\ntitle: &t [*t]\n---\n# Doc\n");
    let errors = f.errors();
    for skill in ["laughs", "wide", "self"] {
        assert_error(
            &errors,
            &f,
            &format!("skills/{skill}/SKILL.md:"),
            &["invalid yaml frontmatter", "anchors/aliases"],
        );
    }
    assert_error(
        &errors,
        &f,
        "skills/deep/SKILL.md:2:",
        &["nested more than 1000"],
    );
    // A doc's frontmatter bomb is refused the same way, and the doc served without it
    // (a warning: a bad page does not stop a release).
    std::fs::create_dir_all(f.path("no-skills")).unwrap();
    let config = Config::for_dirs(f.path("no-skills"), f.path("docs"));
    let output = compile::compile(&config).expect("a doc's broken frontmatter is a warning");
    let warnings: Vec<String> = output.report.warnings().map(|w| w.to_string()).collect();
    assert_error(
        &warnings,
        &f,
        "docs/bomb.md:",
        &["invalid yaml frontmatter"],
    );
    let bomb = output
        .catalog
        .documents
        .iter()
        .find(|d| d.path == "bomb.md")
        .unwrap();
    assert_eq!(
        bomb.title, "Doc",
        "titled from the page, not the refused frontmatter"
    );
}

#[test]
fn invalid_utf8_is_refused_in_names_and_text_but_served_in_binary_files() {
    use std::os::unix::ffi::OsStrExt;
    let f = Fixture::new();
    f.write(
        "skills/pdf/SKILL.md",
        b"---\nname: pdf\ndescription: d\n---\n# PDF\n\nfine\n\xff\xfe broken\n",
    );
    f.write(
        "skills/bad-fm/SKILL.md",
        b"---\nname: bad-fm\ndescription: caf\xe9\n---\n",
    );
    f.write(
        "skills/bin/SKILL.md",
        "---\nname: bin\ndescription: d\n---\n",
    );
    f.write("skills/bin/logo.bin", b"\x89PNG\r\n\x1a\n\xff\xfe\x00\x01");
    let folder = std::ffi::OsStr::from_bytes(b"caf\xe9");
    std::fs::create_dir_all(f.path("skills").join(folder)).unwrap();
    std::fs::write(f.path("skills").join(folder).join("SKILL.md"), SKILL).unwrap();
    let errors = f.errors();
    assert_error(
        &errors,
        &f,
        "skills/pdf/SKILL.md:8:",
        &["not valid utf-8", "save the file as utf-8"],
    );
    assert_error(
        &errors,
        &f,
        "skills/bad-fm/SKILL.md:3:",
        &["not valid utf-8"],
    );
    assert_error(&errors, &f, "skills/caf", &["not valid utf-8", "rename"]);
    assert!(
        errors.iter().all(|e| !e.contains("logo.bin")),
        "a binary skill file is an error:\n{}",
        errors.join("\n")
    );

    // Alone, the binary file is served byte-exact as a blob.
    let f = Fixture::new();
    f.write(
        "skills/bin/SKILL.md",
        "---\nname: bin\ndescription: d\n---\n",
    );
    f.write("skills/bin/logo.bin", b"\x89PNG\r\n\x1a\n\xff\xfe\x00\x01");
    let output = f.compile().unwrap();
    let file = output
        .catalog
        .files
        .iter()
        .find(|file| file.path.ends_with("logo.bin"))
        .unwrap();
    assert!(!file.is_text);
    assert_eq!(
        output.read(file.content).unwrap(),
        b"\x89PNG\r\n\x1a\n\xff\xfe\x00\x01"
    );
}

#[test]
fn crlf_and_byte_order_marks_are_handled_exactly() {
    let f = Fixture::new();
    let skill = "\u{feff}---\r\nname: pdf\r\ndescription: Fill PDF forms. Use it for forms.\r\n---\r\n# PDF\r\n\r\nIntro.\r\n\r\n## Install it\r\n\r\n```sh\r\n# not a heading\r\n```\r\n\r\n## Use\r\n\r\nGo.\r\n";
    f.write("skills/pdf/SKILL.md", skill);
    f.write(
        "docs/bom.md",
        "\u{feff}# Title\n\nFirst paragraph.\n\n## Next\n\nText.\n",
    );
    f.write(
        "docs/crlf.md",
        "Preface line.\r\n\r\n# Windows\r\n\r\nBody.\r\n",
    );
    let output = f.compile().expect("CRLF and BOM content compiles");
    assert_chunks_cover(&output);
    let doc = |path: &str| {
        output
            .catalog
            .documents
            .iter()
            .find(|d| d.path == path)
            .unwrap_or_else(|| panic!("{path}"))
    };
    let skill_doc = output
        .catalog
        .documents
        .iter()
        .find(|d| d.uri.starts_with("resource://skills/pdf/document"))
        .unwrap();
    let anchors: Vec<_> = skill_doc
        .outline
        .iter()
        .map(|h| h.anchor.as_str())
        .collect();
    assert_eq!(anchors, ["pdf", "install-it", "use"]);
    assert_eq!(skill_doc.title, "pdf");
    assert_eq!(doc("bom.md").title, "Title");
    assert_eq!(doc("bom.md").outline[0].anchor, "title");
    assert_eq!(doc("bom.md").summary, "First paragraph.");
    assert_eq!(doc("crlf.md").title, "Windows");
    // The served bytes are the file's bytes, CR and BOM included.
    assert_eq!(output.read(skill_doc.content).unwrap(), skill.as_bytes());

    // Diagnostics count CRLF lines correctly.
    let f = Fixture::new();
    f.write(
        "skills/pdf/SKILL.md",
        "---\r\nname: pdf\r\ndescription: a: b\r\n---\r\n",
    );
    assert_error(&f.errors(), &f, "skills/pdf/SKILL.md:3:", &["invalid yaml"]);
}

#[test]
fn cargo_build_fails_on_hostile_content_with_diagnostics_and_no_panic() {
    let f = Fixture::new();
    f.write(
        "skills/wide/SKILL.md",
        format!(
            "---\nname: wide\ndescription: d\nbase: &b [\"{}\"]\nall: [{}]\n---\n",
            "x".repeat(100_000),
            vec!["*b"; 5000].join(", ")
        ),
    );
    f.write("docs/ok.md", "# ok\n");
    std::os::unix::fs::symlink("/etc/passwd", f.path("docs/passwd.md")).unwrap();
    let skills = f.path("skills");
    let docs = f.path("docs");
    let (output, _lock) = common::build_with_env(&[
        ("SKILLPACK_SKILLS_DIR", skills.to_str().unwrap()),
        ("SKILLPACK_DOCS_DIR", docs.to_str().unwrap()),
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "the build must fail:\n{stderr}");
    assert!(
        stderr.contains(&format!("{}/wide/SKILL.md:", skills.display()))
            && stderr.contains(": error: invalid YAML frontmatter")
            && stderr.contains("expands to more than")
            && stderr.contains(" — remove the YAML anchors/aliases"),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!(
            "{}/passwd.md: error: is a symbolic link",
            docs.display()
        )),
        "{stderr}"
    );
    assert!(
        !stderr.contains("panicked") && !stderr.contains("RUST_BACKTRACE"),
        "{stderr}"
    );
}
