//! The compiler on fixture folders and on the public corpora, in-process (no rebuild of
//! the binary): every validation rule fails with the file and the rule named, the same
//! content always gives the same fingerprint and bytes, and real content compiles.

use crate::common;

use std::path::{Path, PathBuf};

use skillpack_server::compile::{self, Config, Severity};

/// A temp folder with `skills/` and `docs/` populated from `(path, bytes)` pairs, where
/// paths start with `skills/` or `docs/`.
struct Fixture {
    dir: tempfile::TempDir,
}

impl Fixture {
    fn new(files: &[(&str, &[u8])]) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("skills")).unwrap();
        std::fs::create_dir_all(dir.path().join("docs")).unwrap();
        let fixture = Fixture { dir };
        for (path, bytes) in files {
            fixture.write(path, bytes);
        }
        fixture
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    fn write(&self, rel: &str, bytes: &[u8]) {
        let path = self.path(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }

    fn config(&self) -> Config {
        Config::for_dirs(self.path("skills"), self.path("docs"))
    }

    fn compile(&self) -> Result<compile::Output, compile::Report> {
        compile::compile(&self.config())
    }

    /// The compile must fail; returns every error line.
    fn errors(&self) -> Vec<String> {
        match self.compile() {
            Ok(_) => panic!("the fixture compiled, but it should not"),
            Err(report) => report
                .diagnostics
                .iter()
                .filter(|d| d.severity == Severity::Error)
                .map(|d| d.to_string())
                .collect(),
        }
    }
}

const GOOD_SKILL: &str = "---\nname: pdf\ndescription: Fill and merge PDF forms. Use when a task involves PDFs.\nreferences:\n  forms: references/forms.md\n---\n# PDF\n\nWork with PDFs.\n\n## Forms\n\nSee [forms](references/forms.md).\n";

fn good_files() -> Vec<(&'static str, &'static [u8])> {
    vec![
        ("skills/pdf/SKILL.md", GOOD_SKILL.as_bytes()),
        ("skills/pdf/references/forms.md", b"# Forms\n\nFill them.\n"),
        ("skills/pdf/scripts/fill.py", b"print('fill')\n"),
        (
            "docs/guide/usage.md",
            b"# Usage\n\nRun it. Read [intro](../index.md#start).\n",
        ),
        ("docs/index.md", b"# Index\n\n## Start\n\nHello.\n"),
    ]
}

/// Assert one error line names `file` and contains every `words`.
fn assert_error(errors: &[String], file: &str, words: &[&str]) {
    let found = errors.iter().any(|e| {
        e.contains(file)
            && words
                .iter()
                .all(|w| e.to_lowercase().contains(&w.to_lowercase()))
    });
    assert!(
        found,
        "expected an error naming {file} with {words:?}, got:\n{}",
        errors.join("\n")
    );
    for error in errors {
        // path:line: … — fix   (or path: … — fix for folder-level problems)
        assert!(
            error.contains(": error: ") && error.contains(" — "),
            "format: {error}"
        );
    }
}

#[test]
fn good_fixture_compiles() {
    let fixture = Fixture::new(&good_files());
    let output = fixture
        .compile()
        .unwrap_or_else(|r| panic!("{:#?}", r.diagnostics));
    let catalog = &output.catalog;
    assert_eq!(catalog.skills.len(), 1);
    assert_eq!(catalog.skills[0].references[0].id, "forms");
    assert_eq!(catalog.totals.docs, 2);
    // The relative link resolves to a catalog URI with its anchor.
    let usage = catalog
        .documents
        .iter()
        .find(|d| d.path == "guide/usage.md")
        .unwrap();
    let link = &usage.links[0];
    let skillpack_build::model::LinkTarget::Document(target) = link.target else {
        panic!("{link:?} points at a document")
    };
    assert_eq!(
        catalog.documents[target as usize].uri,
        "resource://docs/index.md"
    );
    assert_eq!(link.fragment, "start");
    assert!(
        output.report.warnings().next().is_none(),
        "{:?}",
        output.report.diagnostics
    );
}

#[test]
fn skill_name_rules() {
    for (name, why) in [
        ("PDF", "lowercase"),
        ("pdf--tools", "two hyphens"),
        ("-pdf", "start or end"),
        ("pdf_tools", "lowercase"),
    ] {
        let skill = format!("---\nname: {name}\ndescription: d\n---\n# x\n");
        let fixture = Fixture::new(&[(&format!("skills/{name}/SKILL.md"), skill.as_bytes())]);
        assert_error(
            &fixture.errors(),
            &format!("skills/{name}/SKILL.md:2:"),
            &[name, why],
        );
    }
    let long = "a".repeat(65);
    let skill = format!("---\nname: {long}\ndescription: d\n---\n");
    let fixture = Fixture::new(&[(&format!("skills/{long}/SKILL.md"), skill.as_bytes())]);
    assert_error(&fixture.errors(), "SKILL.md:2:", &["longer than 64"]);
}

#[test]
fn name_must_equal_folder() {
    let fixture = Fixture::new(&[(
        "skills/pdf-tools/SKILL.md",
        b"---\nname: pdf\ndescription: d\n---\n",
    )]);
    assert_error(
        &fixture.errors(),
        "skills/pdf-tools/SKILL.md:2:",
        &["does not match its folder", "rename"],
    );
}

#[test]
fn required_frontmatter() {
    let fixture = Fixture::new(&[("skills/pdf/SKILL.md", b"# No frontmatter\n")]);
    assert_error(
        &fixture.errors(),
        "skills/pdf/SKILL.md:1:",
        &["no yaml frontmatter", "name: pdf"],
    );
    let fixture = Fixture::new(&[("skills/pdf/SKILL.md", b"---\ndescription: d\n---\n")]);
    assert_error(&fixture.errors(), "skills/pdf/SKILL.md:1:", &["no `name`"]);
    let fixture = Fixture::new(&[("skills/pdf/SKILL.md", b"---\nname: pdf\n---\n")]);
    assert_error(
        &fixture.errors(),
        "skills/pdf/SKILL.md:1:",
        &["no `description`"],
    );
    let fixture = Fixture::new(&[(
        "skills/pdf/SKILL.md",
        b"---\nname: pdf\ndescription: \"\"\n---\n",
    )]);
    assert_error(&fixture.errors(), "skills/pdf/SKILL.md:3:", &["empty"]);
}

#[test]
fn yaml_syntax() {
    let fixture = Fixture::new(&[(
        "skills/pdf/SKILL.md",
        b"---\nname: pdf\ndescription: Use: when PDFs: appear\n---\n",
    )]);
    assert_error(
        &fixture.errors(),
        "skills/pdf/SKILL.md:3:",
        &["invalid yaml", "quote"],
    );
    let fixture = Fixture::new(&[("skills/pdf/SKILL.md", b"---\nname: pdf\ndescription: d\n")]);
    assert_error(
        &fixture.errors(),
        "skills/pdf/SKILL.md:1:",
        &["never closed"],
    );
}

#[test]
fn duplicate_skill_ids() {
    let skill = b"---\nname: deploy\ndescription: d\n---\n";
    let fixture = Fixture::new(&[
        ("skills/team-a/deploy/SKILL.md", skill),
        ("skills/team-b/deploy/SKILL.md", skill),
    ]);
    assert_error(
        &fixture.errors(),
        "skills/team-b/deploy/SKILL.md",
        &["`deploy` is already used by", "team-a/deploy/SKILL.md"],
    );
}

#[test]
fn declared_references_must_exist() {
    let fixture = Fixture::new(&[(
        "skills/pdf/SKILL.md",
        b"---\nname: pdf\ndescription: d\nreferences:\n  forms: references/forms.md\n---\n",
    )]);
    assert_error(
        &fixture.errors(),
        "skills/pdf/SKILL.md:4:",
        &["`forms`", "does not exist"],
    );
}

#[test]
fn duplicate_reference_ids() {
    // `api_guide.md` and `api-guide.md` both derive `api-guide`.
    let fixture = Fixture::new(&[
        (
            "skills/pdf/SKILL.md",
            b"---\nname: pdf\ndescription: d\n---\n",
        ),
        ("skills/pdf/api_guide.md", b"# A\n"),
        ("skills/pdf/api-guide.md", b"# B\n"),
    ]);
    assert_error(
        &fixture.errors(),
        "skills/pdf/api_guide.md",
        &["`api-guide` is already used by"],
    );
    // A declared id that is also derived from another file.
    let fixture = Fixture::new(&[
        (
            "skills/pdf/SKILL.md",
            b"---\nname: pdf\ndescription: d\nreferences:\n  notes: a.md\n---\n",
        ),
        ("skills/pdf/a.md", b"# A\n"),
        ("skills/pdf/notes.md", b"# B\n"),
    ]);
    assert_error(
        &fixture.errors(),
        "skills/pdf/notes.md",
        &["`notes` is already used by", "a.md"],
    );
}

#[test]
fn symlinks_are_errors() {
    let fixture = Fixture::new(&good_files());
    std::os::unix::fs::symlink("/etc/passwd", fixture.path("skills/pdf/passwd")).unwrap();
    std::os::unix::fs::symlink(fixture.path("docs"), fixture.path("docs/loop")).unwrap();
    let errors = fixture.errors();
    assert_error(&errors, "skills/pdf/passwd", &["symbolic link"]);
    assert_error(&errors, "docs/loop", &["symbolic link"]);
}

#[test]
fn hidden_files_are_ignored_and_cannot_be_references() {
    let mut files = good_files();
    files.push(("skills/pdf/.secret.md", b"# hidden\n"));
    files.push(("docs/.drafts/wip.md", b"# wip\n"));
    let fixture = Fixture::new(&files);
    let output = fixture.compile().unwrap();
    assert!(output.catalog.files.iter().all(|f| !f.path.contains("/.")));
    assert!(
        output
            .catalog
            .documents
            .iter()
            .all(|d| !d.path.contains(".drafts"))
    );

    let fixture = Fixture::new(&[
        (
            "skills/pdf/SKILL.md",
            b"---\nname: pdf\ndescription: d\nreferences:\n  secret: .secret.md\n---\n",
        ),
        ("skills/pdf/.secret.md", b"# hidden\n"),
    ]);
    assert_error(
        &fixture.errors(),
        "skills/pdf/SKILL.md:4:",
        &["hidden file"],
    );
}

#[test]
fn bad_paths() {
    use std::os::unix::ffi::OsStrExt;
    let fixture = Fixture::new(&good_files());
    let bad = std::ffi::OsStr::from_bytes(b"bad-\xff.md");
    std::fs::write(fixture.path("docs").join(bad), b"# x\n").unwrap();
    std::fs::write(fixture.path("docs/back\\slash.md"), b"# x\n").unwrap();
    let errors = fixture.errors();
    assert_error(&errors, "docs/bad-", &["not valid utf-8"]);
    assert_error(&errors, "docs/back\\slash.md", &["backslash"]);
}

#[test]
fn per_skill_limits() {
    let fixture = Fixture::new(&[(
        "skills/big/SKILL.md",
        b"---\nname: big\ndescription: d\n---\n",
    )]);
    for i in 0..512 {
        fixture.write(&format!("skills/big/assets/{i:03}.txt"), b"x");
    }
    assert_error(
        &fixture.errors(),
        "skills/big/SKILL.md",
        &["513 files", "at most 512"],
    );

    let fixture = Fixture::new(&[(
        "skills/big/SKILL.md",
        b"---\nname: big\ndescription: d\n---\n",
    )]);
    let chunk = vec![b'x'; 6 * 1024 * 1024];
    for i in 0..3 {
        fixture.write(&format!("skills/big/blob{i}.bin"), &chunk);
    }
    assert_error(
        &fixture.errors(),
        "skills/big/SKILL.md",
        &["at most 16777216"],
    );
}

#[test]
fn markdown_must_be_utf8() {
    let mut files = good_files();
    files.push(("docs/latin1.md", b"# Caf\xe9\n\nline two\n"));
    files.push(("skills/pdf/references/bad.md", b"ok\n\xc3\x28\n"));
    let errors = Fixture::new(&files).errors();
    assert_error(&errors, "docs/latin1.md:1:", &["not valid utf-8"]);
    assert_error(
        &errors,
        "skills/pdf/references/bad.md:2:",
        &["not valid utf-8"],
    );
}

#[test]
fn all_problems_are_reported_at_once() {
    let fixture = Fixture::new(&[
        (
            "skills/One/SKILL.md",
            b"---\nname: One\ndescription: d\n---\n",
        ),
        ("skills/two/SKILL.md", b"# none\n"),
        ("docs/bad.md", b"\xff"),
    ]);
    let errors = fixture.errors();
    assert!(errors.len() >= 3, "{errors:#?}");
}

#[test]
fn warnings_become_errors_in_strict_mode() {
    let mut files = good_files();
    files.push(("docs/image.png", b"\x89PNG"));
    files.push(("docs/links.md", b"# Links\n\n[gone](missing.md)\n"));
    let fixture = Fixture::new(&files);
    let output = fixture.compile().unwrap();
    let warnings: Vec<String> = output.report.warnings().map(|w| w.to_string()).collect();
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("docs/image.png") && w.contains("not a markdown file")),
        "{warnings:?}"
    );
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("docs/links.md:3:") && w.contains("missing.md")),
        "{warnings:?}"
    );

    let mut config = fixture.config();
    config.strict = true;
    let report = compile::compile(&config).err().expect("strict build fails");
    assert!(report.errors().any(|e| e.path.ends_with("docs/image.png")));
}

#[test]
fn a_doc_with_broken_frontmatter_is_served_with_a_warning_and_fails_only_when_strict() {
    // What a large MkDocs tree had: a list item that is not YAML, and a mis-indented key.
    let mut files = good_files();
    files.push((
        "docs/proposal.md",
        b"---\nauthors:\n  - @name\n---\n# Proposal\n\nThe body.\n",
    ));
    files.push((
        "docs/rfc.md",
        b"---\ntitle: RFC\n  status: draft\n---\nThe RFC body.\n",
    ));
    let fixture = Fixture::new(&files);
    let output = fixture
        .compile()
        .expect("broken doc frontmatter does not stop a build");
    let warnings: Vec<String> = output.report.warnings().map(|w| w.to_string()).collect();
    for path in ["docs/proposal.md:", "docs/rfc.md:"] {
        assert!(
            warnings.iter().any(|w| w.contains(path)
                && w.contains("invalid YAML frontmatter")
                && w.contains(" — ")),
            "{path} named with a line and a fix: {warnings:?}"
        );
    }
    let proposal = output
        .catalog
        .documents
        .iter()
        .find(|d| d.path == "proposal.md")
        .expect("served");
    // The title comes from the page; the frontmatter block is not a section of it.
    assert_eq!(proposal.title, "Proposal");
    assert_eq!(proposal.outline.len(), 1);
    let text = output.read(proposal.content).unwrap();
    assert!(text.starts_with(b"---\nauthors:"), "served as authored");
    let rfc = output
        .catalog
        .documents
        .iter()
        .find(|d| d.path == "rfc.md")
        .unwrap();
    assert_eq!(rfc.title, "rfc", "no heading: the file name");

    let mut config = fixture.config();
    config.strict = true;
    let report = compile::compile(&config).err().expect("strict build fails");
    assert!(
        report
            .errors()
            .any(|e| e.path.ends_with("docs/proposal.md"))
    );
    // Skills keep their strict rules: SEP-2640 serves their frontmatter.
    let fixture = Fixture::new(&[(
        "skills/pdf/SKILL.md",
        b"---\nname: pdf\ndescription: d\n  bad: indent\n---\n",
    )]);
    assert_error(&fixture.errors(), "skills/pdf/SKILL.md:", &["invalid yaml"]);
}

#[test]
fn a_plain_tree_stays_plain_and_excludes_apply() {
    let mut files = good_files();
    files.push(("docs/page.mdx", b"# MDX\n"));
    files.push(("docs/drafts/wip.md", b"# Work in progress\n"));
    let fixture = Fixture::new(&files);
    let output = fixture.compile().unwrap();
    assert_eq!(output.site.flavor, "plain");
    assert!(
        output
            .report
            .warnings()
            .any(|w| w.path.ends_with("docs/page.mdx") && w.message.contains("not a markdown file")),
        "a plain tree does not read MDX"
    );
    assert!(
        output
            .catalog
            .documents
            .iter()
            .any(|d| d.path == "drafts/wip.md")
    );

    let mut config = fixture.config();
    config.docs_exclude = vec!["drafts/**".into()];
    let output = compile::compile(&config).unwrap();
    assert!(
        !output
            .catalog
            .documents
            .iter()
            .any(|d| d.path == "drafts/wip.md")
    );
    assert!(
        output
            .site
            .skipped
            .iter()
            .any(|(rel, skip)| rel == "drafts/wip.md" && skip.to_string().contains("drafts/**"))
    );
}

#[test]
fn a_generator_tree_is_detected_and_its_pages_rendered() {
    // A MkDocs project: mkdocs.yml beside docs/, an MDX file is not an MkDocs page, and an
    // admonition is served as a labelled blockquote.
    let fixture = Fixture::new(&[
        (
            "mkdocs.yml",
            b"site_name: Demo\nnav:\n  - b.md\n  - a.md\nmarkdown_extensions:\n  - admonition\n",
        ),
        (
            "docs/a.md",
            b"# A\n\n!!! warning \"Careful\"\n    Mind the gap.\n\nPlain [link](b.md).\n",
        ),
        ("docs/b.md", b"# B\n\nJust markdown.\n"),
    ]);
    std::fs::create_dir_all(fixture.path(".git")).unwrap();
    let output = fixture.compile().unwrap();
    assert_eq!(output.site.flavor, "mkdocs");
    assert!(
        output.site.why.contains("mkdocs.yml"),
        "{}",
        output.site.why
    );
    assert_eq!(output.catalog.docs_site.flavor, "mkdocs");
    let doc = |path: &str| {
        let d = output
            .catalog
            .documents
            .iter()
            .find(|d| d.path == path)
            .unwrap();
        String::from_utf8(output.read(d.content).unwrap()).unwrap()
    };
    assert_eq!(
        doc("b.md"),
        "# B\n\nJust markdown.\n",
        "plain markdown byte for byte"
    );
    let a = doc("a.md");
    assert!(!a.contains("!!!"), "{a}");
    assert!(a.contains("> **Warning: Careful**"), "{a}");
    assert!(a.contains("> Mind the gap."), "{a}");

    let mut config = fixture.config();
    config.docs_flavor = Some("plain".into());
    let output = compile::compile(&config).unwrap();
    assert_eq!(output.site.flavor, "plain");
    let a = output
        .catalog
        .documents
        .iter()
        .find(|d| d.path == "a.md")
        .unwrap();
    assert!(
        String::from_utf8(output.read(a.content).unwrap())
            .unwrap()
            .contains("!!! warning")
    );
}

#[test]
fn only_the_default_locale_is_served_unless_a_setting_picks_another() {
    let fixture = Fixture::new(&[
        (
            "astro.config.mjs",
            b"import starlight from '@astrojs/starlight';\nexport default defineConfig({ integrations: [starlight({ title: 'X', defaultLocale: 'root', locales: { root: { label: 'English', lang: 'en' }, de: { label: 'Deutsch', lang: 'de' } } })] });\n",
        ),
        ("docs/guide.md", b"---\ntitle: Guide\n---\nHow to install.\n"),
        ("docs/only-en.md", b"---\ntitle: English only\n---\nText.\n"),
        ("docs/de/guide.md", b"---\ntitle: Anleitung\n---\nWie man installiert.\n"),
    ]);
    std::fs::create_dir_all(fixture.path(".git")).unwrap();
    let served = |locale: &str| {
        let mut config = fixture.config();
        config.docs_locale = match locale {
            "" => skillpack_server::site::LocaleChoice::Default,
            "all" => skillpack_server::site::LocaleChoice::All,
            one => skillpack_server::site::LocaleChoice::One(one.into()),
        };
        let output = compile::compile(&config).unwrap();
        assert_eq!(output.site.flavor, "starlight");
        let mut docs: Vec<String> = output
            .catalog
            .documents
            .iter()
            .map(|d| format!("{} ({})", d.path, d.title))
            .collect();
        docs.sort();
        docs
    };
    assert_eq!(
        served(""),
        ["guide.md (Guide)", "only-en.md (English only)"]
    );
    assert_eq!(
        served("de"),
        ["de/guide.md (Anleitung)", "only-en.md (English only)"]
    );
    assert_eq!(
        served("all"),
        [
            "de/guide.md (Anleitung [de])",
            "guide.md (Guide)",
            "only-en.md (English only)"
        ]
    );
}

#[test]
fn reserved_prompt_names_are_errors() {
    let fixture = Fixture::new(&[(
        "skills/orient/SKILL.md",
        b"---\nname: orient\ndescription: d\n---\n",
    )]);
    assert_error(
        &fixture.errors(),
        "skills/orient/SKILL.md:2:",
        &["collides with the built-in prompt"],
    );
}

/// Copy a folder recursively (files only), for determinism checks.
fn copy_tree(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from).sort_by_file_name() {
        let entry = entry.unwrap();
        let target = to.join(entry.path().strip_prefix(from).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

#[test]
fn same_content_same_fingerprint_and_bytes() {
    let root = common::crate_root();
    let compile_copy = |touch: bool| {
        let dir = tempfile::tempdir().unwrap();
        copy_tree(&root.join("skills"), &dir.path().join("skills"));
        copy_tree(&root.join("docs"), &dir.path().join("docs"));
        if touch {
            // Different mtimes must not matter.
            for entry in walkdir::WalkDir::new(dir.path()) {
                let entry = entry.unwrap();
                if entry.file_type().is_file() {
                    let file = std::fs::File::options()
                        .write(true)
                        .open(entry.path())
                        .unwrap();
                    file.set_modified(
                        std::time::SystemTime::UNIX_EPOCH
                            + std::time::Duration::from_secs(1_000_000),
                    )
                    .unwrap();
                }
            }
        }
        let output = compile::compile(&Config::for_dirs(
            dir.path().join("skills"),
            dir.path().join("docs"),
        ))
        .unwrap();
        (
            output.catalog.fingerprint.clone(),
            output.catalog_bytes(),
            output.content,
        )
    };
    let (fp_a, bytes_a, content_a) = compile_copy(false);
    let (fp_b, bytes_b, content_b) = compile_copy(true);
    assert_eq!(fp_a, fp_b);
    assert!(bytes_a == bytes_b, "archive bytes differ");
    assert!(content_a == content_b, "content blob differs");

    // And the fingerprint is the one baked into the binary built from the same folders.
    let baked = skillpack_server::baked!();
    assert_eq!(baked.fingerprint(), fp_a);
}

#[test]
fn editing_content_changes_the_fingerprint() {
    let fixture = Fixture::new(&good_files());
    let before = fixture.compile().unwrap().catalog.fingerprint;
    fixture.write("docs/index.md", b"# Index\n\n## Start\n\nHello!\n");
    let after = fixture.compile().unwrap().catalog.fingerprint;
    assert_ne!(before, after);
    let mut config = fixture.config();
    config.chunk_bytes = 1024;
    assert_ne!(
        compile::compile(&config).unwrap().catalog.fingerprint,
        after
    );
}

#[test]
fn baked_archive_is_valid() {
    skillpack_server::baked!()
        .verify()
        .expect("the embedded archive validates");
}

#[test]
fn corpora_compile() {
    let Some(corpora) = common::corpora() else {
        return;
    };
    let config = Config::for_dirs(
        corpora.join("anthropic-skills/skills"),
        corpora.join("rust-book/src"),
    );
    let output = compile::compile(&config)
        .unwrap_or_else(|r| panic!("{:#?}", r.errors().collect::<Vec<_>>()));
    let catalog = &output.catalog;
    assert_eq!(catalog.skills.len(), 13);
    // Every chapter of the book: SUMMARY.md is its table of contents (mdBook), not a page.
    assert_eq!(catalog.totals.docs, 111);
    assert_eq!(output.site.flavor, "mdbook");
    for document in &catalog.documents {
        let bytes = output.read(document.content).unwrap();
        let text = std::str::from_utf8(&bytes).unwrap();
        // Chunks cover the document exactly, in order, within the size limit unless a
        // single code block is larger.
        let mut at = 0;
        for chunk in &document.chunks {
            assert_eq!(chunk.start, at, "{}: contiguous", document.uri);
            let piece = &text[chunk.start as usize..chunk.end as usize];
            assert!(
                piece.len() <= catalog.chunk_bytes as usize || piece.contains("```"),
                "{} chunk {} is {} bytes",
                document.uri,
                chunk.id,
                piece.len()
            );
            at = chunk.end;
        }
        assert_eq!(
            at, document.content.len,
            "{}: chunks reach the end",
            document.uri
        );
        // Outline anchors are unique.
        let mut anchors: Vec<_> = document.outline.iter().map(|h| &h.anchor).collect();
        anchors.sort();
        anchors.dedup();
        assert_eq!(anchors.len(), document.outline.len(), "{}", document.uri);
    }
    // Links written as rendered `.html` pages resolve to the markdown documents.
    let linked = catalog
        .documents
        .iter()
        .flat_map(|d| &d.links)
        .filter(|l| l.href.contains(".html"))
        .count();
    assert!(linked > 50, "{linked} .html links resolved");
}

#[test]
fn cargo_build_fails_on_broken_content_without_a_panic() {
    let fixture = Fixture::new(&[
        (
            "skills/Bad/SKILL.md",
            b"---\nname: Bad\ndescription: d\n---\n",
        ),
        ("docs/ok.md", b"# ok\n"),
    ]);
    let skills = fixture.path("skills");
    let docs = fixture.path("docs");
    let (output, _lock) = common::build_with_env(&[
        ("SKILLPACK_SKILLS_DIR", skills.to_str().unwrap()),
        ("SKILLPACK_DOCS_DIR", docs.to_str().unwrap()),
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "the build must fail:\n{stderr}");
    assert!(
        stderr.contains(&format!(
            "{}/Bad/SKILL.md:2: error: skill name `Bad`",
            skills.display()
        )),
        "{stderr}"
    );
    assert!(stderr.contains(" — use 1-64 lowercase letters"), "{stderr}");
    assert!(
        !stderr.contains("panicked") && !stderr.contains("RUST_BACKTRACE"),
        "{stderr}"
    );
}

#[test]
fn bad_settings_fail_with_a_clear_message() {
    let root = common::crate_root();
    let vars = [
        ("SKILLPACK_CHUNK_BYTES", "12"),
        ("SKILLPACK_STRICT", "maybe"),
    ];
    let report = Config::from_env(&root, "0.0.0", |k| {
        vars.iter()
            .find(|(key, _)| *key == k)
            .map(|(_, v)| v.to_string())
    })
    .expect_err("bad settings are refused");
    let text: Vec<String> = report.diagnostics.iter().map(|d| d.to_string()).collect();
    assert!(
        text.iter()
            .any(|t| t.starts_with("SKILLPACK_CHUNK_BYTES: error:")),
        "{text:?}"
    );
    assert!(
        text.iter()
            .any(|t| t.starts_with("SKILLPACK_STRICT: error:")),
        "{text:?}"
    );
    let missing = [("SKILLPACK_DOCS_DIR", "/nonexistent/docs")];
    let config = Config::from_env(&root, "0.0.0", |k| {
        missing
            .iter()
            .find(|(key, _)| *key == k)
            .map(|(_, v)| v.to_string())
    })
    .unwrap();
    let report = compile::compile(&config)
        .err()
        .expect("a missing folder is an error");
    assert!(report.errors().any(|e| e.path == "/nonexistent/docs"));
}

#[test]
fn editing_content_rebuilds_the_binary() {
    // `build.rs` declares rerun-if-changed on the content folders and rerun-if-env-changed
    // on the settings: a rebuild after an edit must serve the edit.
    let fixture = Fixture::new(&good_files());
    let skills = fixture.path("skills");
    let docs = fixture.path("docs");
    let env = [
        ("SKILLPACK_SKILLS_DIR", skills.to_str().unwrap()),
        ("SKILLPACK_DOCS_DIR", docs.to_str().unwrap()),
        ("SKILLPACK_NAME", "fixture-docs"),
    ];
    let info = |binary: &Path| -> serde_json::Value {
        serde_json::from_slice(&common::run(binary, &["info", "--json"]).stdout).unwrap()
    };
    let first = info(&common::variant("rebuild", &env).unwrap());
    assert_eq!(first["name"], "fixture-docs");
    assert_eq!(first["docs"], 2);
    let mut config = fixture.config();
    config.name = "fixture-docs".into();
    let expected = compile::compile(&config).unwrap().catalog.fingerprint;
    assert_eq!(
        first["fingerprint"].as_str(),
        Some(expected.as_str()),
        "build.rs and the library agree"
    );

    fixture.write("docs/guide/new.md", b"# New page\n");
    let second = info(&common::variant("rebuild", &env).unwrap());
    assert_eq!(second["docs"], 3);
    assert_ne!(first["fingerprint"], second["fingerprint"]);
}
