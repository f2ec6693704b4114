//! The SEP-2640 Skills extension through the real binary over stdio: every skill in
//! `skills/list` (all pages), `skills/get` for each, every manifest entry read back with
//! `resources/read` and verified with rmcp's `SkillResource::verify`, frontmatter equal to
//! the YAML parsed independently, directory reads equal to the folders on disk — on the
//! built-in content, on the anthropic-skills corpus, and on a generated edge-case catalog
//! compared entry for entry with rmcp's own filesystem `SkillCatalog`.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use common::Client;
use rmcp::handler::server::skill_catalog::SkillCatalog;
use rmcp::model::{
    CacheScope, DIRECTORY_MIME_TYPE, ErrorCode, GetSkillRequestParams, PaginatedRequestParams,
    ReadResourceDirectoryRequestParams, ReadResourceRequestParams, Resource, ResourceContents,
    Skill, SkillResources, validate_skills,
};
use serde_json::Value;

/// skillpack's cache hint for results that cannot change inside one binary.
const TTL_MS: u64 = 24 * 60 * 60 * 1000;

// ---------------------------------------------------------------------------------------
// What is on disk, computed independently of the compiler.

/// Every non-hidden file under `dir`, by `/`-separated path relative to `dir`.
fn files_on_disk(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut found = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(current) = stack.pop() {
        for entry in std::fs::read_dir(&current).unwrap() {
            let entry = entry.unwrap();
            if entry.file_name().to_string_lossy().starts_with('.') {
                continue;
            }
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let rel = path.strip_prefix(dir).unwrap().to_str().unwrap();
                found.insert(rel.replace('\\', "/"), std::fs::read(&path).unwrap());
            }
        }
    }
    found
}

/// Skill folders (holding a `SKILL.md`), relative to the skills root.
fn skill_dirs_on_disk(root: &Path) -> BTreeSet<String> {
    files_on_disk(root)
        .keys()
        .filter_map(|rel| rel.strip_suffix("/SKILL.md").map(str::to_owned))
        .collect()
}

/// The frontmatter of a SKILL.md parsed with a YAML parser on its own: the text between
/// the first two `---` lines.
fn frontmatter_on_disk(skill_md: &[u8]) -> Value {
    let text = std::str::from_utf8(skill_md).unwrap();
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    assert_eq!(lines.next().map(str::trim_end), Some("---"));
    let mut yaml = String::new();
    for line in lines {
        if line.trim_end() == "---" {
            return yaml_serde::from_str(&yaml).unwrap();
        }
        yaml.push_str(line);
    }
    panic!("unclosed frontmatter");
}

/// `skill://<path>` spelled as RFC 3986 requires of a reg-name/segment: everything but
/// unreserved characters percent-encoded.
fn skill_uri(path: &str) -> String {
    let mut uri = String::from("skill://");
    for byte in path.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~' | b'/') {
            uri.push(byte as char);
        } else {
            uri.push_str(&format!("%{byte:02X}"));
        }
    }
    uri
}

// ---------------------------------------------------------------------------------------
// Talking to the server.

/// Every skill, walking `nextCursor`; checks that pages are bounded and never repeat or
/// split a skill. Returns the skills and the number of pages.
async fn list_all_skills(client: &Client) -> (Vec<Skill>, usize) {
    let mut skills: Vec<Skill> = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let page = client
            .list_skills(Some(
                PaginatedRequestParams::default().with_cursor(cursor.clone()),
            ))
            .await
            .expect("skills/list");
        pages += 1;
        assert!(pages < 1000, "pagination does not end");
        assert!(page.skills.len() <= 100, "a page holds at most 100 skills");
        let files: usize = page
            .skills
            .iter()
            .map(|s| match &s.resources {
                SkillResources::Files(files) => files.len(),
                _ => panic!("{}: skillpack never serves dynamic skills", s.uri),
            })
            .sum();
        assert!(
            page.skills.len() == 1 || files <= 2000,
            "page {pages} holds {files} manifest entries over {} skills",
            page.skills.len()
        );
        assert_eq!(page.cache_scope, Some(CacheScope::Public));
        assert_eq!(page.ttl_ms, Some(TTL_MS));
        skills.extend(page.skills);
        match page.next_cursor {
            Some(next) => {
                assert!(!skills.is_empty());
                cursor = Some(next);
            }
            None => break,
        }
    }
    let unique: BTreeSet<&str> = skills.iter().map(|s| s.uri.as_str()).collect();
    assert_eq!(unique.len(), skills.len(), "no skill is listed twice");
    validate_skills(&skills).expect("rmcp validate_skills");
    (skills, pages)
}

/// The bytes and MIME type a `resources/read` returns.
async fn read_bytes(client: &Client, uri: &str) -> (Vec<u8>, Option<String>, bool) {
    let result = client
        .read_resource(ReadResourceRequestParams::new(uri))
        .await
        .unwrap_or_else(|e| panic!("read {uri}: {e}"));
    assert_eq!(result.contents.len(), 1, "{uri}");
    match &result.contents[0] {
        ResourceContents::TextResourceContents {
            uri: read_uri,
            text,
            mime_type,
            ..
        } => {
            assert_eq!(read_uri, uri);
            (text.as_bytes().to_vec(), mime_type.clone(), true)
        }
        ResourceContents::BlobResourceContents {
            uri: read_uri,
            blob,
            mime_type,
            ..
        } => {
            assert_eq!(read_uri, uri);
            let bytes = BASE64.decode(blob).unwrap_or_else(|e| panic!("{uri}: {e}"));
            (bytes, mime_type.clone(), false)
        }
        other => panic!("{uri}: unexpected contents {other:?}"),
    }
}

/// Every child of a directory, walking `nextCursor`.
async fn read_directory(client: &Client, uri: &str) -> Vec<Resource> {
    let mut children = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let mut params = ReadResourceDirectoryRequestParams::new(uri);
        if let Some(c) = cursor.take() {
            params = params.with_cursor(c);
        }
        let page = client
            .read_resource_directory(params)
            .await
            .unwrap_or_else(|e| panic!("resources/directory/read {uri}: {e}"));
        assert!(page.resources.len() <= 100);
        children.extend(page.resources);
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    children
}

/// The JSON-RPC error of a failed call.
fn rpc_error(error: rmcp::ServiceError) -> rmcp::ErrorData {
    match error {
        rmcp::ServiceError::McpError(error) => error,
        other => panic!("not a JSON-RPC error: {other:?}"),
    }
}

fn machine_code(error: &rmcp::ErrorData) -> &str {
    error
        .data
        .as_ref()
        .and_then(|d| d["machine_code"].as_str())
        .unwrap_or_default()
}

// ---------------------------------------------------------------------------------------
// The whole-catalog check.

#[derive(Debug, Default)]
struct Checked {
    skills: usize,
    pages: usize,
    files: usize,
    blobs: usize,
    directories: usize,
    mime_types: BTreeMap<String, usize>,
}

/// Everything a host can observe of the skills, checked against the folder on disk.
async fn check_skills(client: &Client, root: &Path) -> Checked {
    let mut checked = Checked::default();
    let (skills, pages) = list_all_skills(client).await;
    checked.skills = skills.len();
    checked.pages = pages;

    let dirs = skill_dirs_on_disk(root);
    let listed: BTreeSet<String> = skills.iter().map(|s| s.uri.clone()).collect();
    let expected: BTreeSet<String> = dirs
        .iter()
        .map(|d| skill_uri(&format!("{d}/SKILL.md")))
        .collect();
    assert_eq!(listed, expected, "skills/list lists every skill folder");

    let resources = client.list_all_resources().await.expect("resources/list");
    let mut bytes_read: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    for skill in &skills {
        skill
            .validate()
            .unwrap_or_else(|e| panic!("{}: {e}", skill.uri));
        let got = client
            .get_skill(GetSkillRequestParams::new(&skill.uri))
            .await
            .unwrap_or_else(|e| panic!("skills/get {}: {e}", skill.uri));
        assert_eq!(&got.skill, skill, "skills/get equals the listed entry");
        assert_eq!(got.cache_scope, Some(CacheScope::Public));
        assert_eq!(got.ttl_ms, Some(TTL_MS));

        let dir = dirs
            .iter()
            .find(|d| skill_uri(&format!("{d}/SKILL.md")) == skill.uri)
            .unwrap();
        let on_disk = files_on_disk(&root.join(dir));
        let frontmatter = serde_json::to_value(&skill.frontmatter).unwrap();
        assert_eq!(
            frontmatter,
            frontmatter_on_disk(&on_disk["SKILL.md"]),
            "{}: frontmatter verbatim",
            skill.uri
        );

        // The SKILL.md resource in resources/list carries the frontmatter's metadata.
        let listing = resources
            .iter()
            .find(|r| r.uri == skill.uri)
            .unwrap_or_else(|| panic!("{} in resources/list", skill.uri));
        assert_eq!(listing.name, skill.frontmatter.name);
        assert_eq!(
            listing.description.as_deref(),
            Some(skill.frontmatter.description.as_str())
        );
        assert_eq!(listing.mime_type.as_deref(), Some("text/markdown"));
        assert_eq!(listing.size, Some(on_disk["SKILL.md"].len() as u64));

        let SkillResources::Files(files) = &skill.resources else {
            unreachable!()
        };
        let manifest: BTreeSet<String> = files.iter().map(|f| f.uri.clone()).collect();
        let expected: BTreeSet<String> = on_disk
            .keys()
            .map(|rel| skill_uri(&format!("{dir}/{rel}")))
            .collect();
        assert_eq!(manifest, expected, "{}: manifest is complete", skill.uri);
        assert!(files.len() <= 512);

        for file in files {
            let rel = &file.uri[skill_uri(dir).len() + 1..];
            let rel = percent_encoding::percent_decode_str(rel)
                .decode_utf8()
                .unwrap()
                .into_owned();
            let disk = &on_disk[&rel];
            let bytes = match bytes_read.get(&file.uri) {
                Some(bytes) => bytes.clone(),
                None => {
                    let (bytes, mime, is_text) = read_bytes(client, &file.uri).await;
                    let mime = mime.unwrap_or_else(|| panic!("{}: mimeType", file.uri));
                    *checked.mime_types.entry(mime.clone()).or_default() += 1;
                    let text_like = std::str::from_utf8(disk).is_ok() && !disk.contains(&0);
                    if !text_like {
                        assert!(!is_text, "{}: binary bytes must come as a blob", file.uri);
                    }
                    if mime.starts_with("font/")
                        || mime == "application/pdf"
                        || mime == "application/gzip"
                        || (mime.starts_with("image/") && mime != "image/svg+xml")
                    {
                        assert!(!is_text, "{}: {mime} must come as a blob", file.uri);
                    }
                    if rel.ends_with(".md") {
                        assert_eq!(mime, "text/markdown", "{}", file.uri);
                    }
                    if !is_text {
                        checked.blobs += 1;
                    }
                    checked.files += 1;
                    bytes_read.insert(file.uri.clone(), bytes.clone());
                    bytes
                }
            };
            file.verify(&bytes)
                .unwrap_or_else(|e| panic!("SkillResource::verify: {e}"));
            assert_eq!(&bytes, disk, "{} reads back byte-exact", file.uri);
        }

        // Every folder of the skill lists exactly its files and sub-folders on disk.
        let mut folders: BTreeSet<String> = BTreeSet::from([String::new()]);
        for rel in on_disk.keys() {
            let mut parent = rel.as_str();
            while let Some((up, _)) = parent.rsplit_once('/') {
                folders.insert(up.to_owned());
                parent = up;
            }
        }
        for folder in &folders {
            let (path, prefix) = if folder.is_empty() {
                (dir.clone(), String::new())
            } else {
                (format!("{dir}/{folder}"), format!("{folder}/"))
            };
            let mut expected: BTreeMap<String, (String, Option<u64>)> = BTreeMap::new();
            for (rel, bytes) in &on_disk {
                let Some(rest) = rel.strip_prefix(&prefix) else {
                    continue;
                };
                match rest.split_once('/') {
                    None => {
                        expected.insert(
                            skill_uri(&format!("{path}/{rest}")),
                            (rest.to_owned(), Some(bytes.len() as u64)),
                        );
                    }
                    Some((sub, _)) => {
                        expected
                            .insert(skill_uri(&format!("{path}/{sub}")), (sub.to_owned(), None));
                    }
                }
            }
            let children = read_directory(client, &skill_uri(&path)).await;
            let got: BTreeMap<String, (String, Option<u64>)> = children
                .iter()
                .map(|c| {
                    let is_dir = c.mime_type.as_deref() == Some(DIRECTORY_MIME_TYPE);
                    assert_eq!(is_dir, c.size.is_none(), "{}: files carry sizes", c.uri);
                    (c.uri.clone(), (c.name.clone(), c.size))
                })
                .collect();
            assert_eq!(got, expected, "directory {}", skill_uri(&path));
            checked.directories += 1;
        }
    }
    checked
}

// ---------------------------------------------------------------------------------------
// Built-in content and the corpus.

#[tokio::test]
async fn builtin_skills_are_served_completely_and_verify() {
    let client = common::connect_modern(&common::builtin_binary()).await;
    let capabilities = &client.peer_info().expect("discover").capabilities;
    assert!(capabilities.supports_directory_read());
    assert!(capabilities.resources.is_some());
    let checked = check_skills(&client, &common::crate_root().join("skills")).await;
    assert!(checked.skills >= 4, "{checked:?}");
    assert!(checked.directories > checked.skills, "{checked:?}");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn legacy_clients_get_the_same_skills() {
    // An `initialize` session (2025-11-25 and older) sees the same entries.
    let client = common::connect(&common::builtin_binary()).await;
    let checked = check_skills(&client, &common::crate_root().join("skills")).await;
    assert!(checked.skills >= 4);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn first_listed_skill_has_a_subfolder() {
    // The conformance suite's `sep-2640-skills-directory` scenario probes the first listed
    // skill for an `inode/directory` child; the built-in catalog must offer one.
    let client = common::connect_modern(&common::builtin_binary()).await;
    let page = client.list_skills(None).await.unwrap();
    let first = &page.skills[0];
    let root = first.uri.strip_suffix("/SKILL.md").unwrap();
    let children = read_directory(&client, root).await;
    assert!(
        children
            .iter()
            .any(|c| c.mime_type.as_deref() == Some(DIRECTORY_MIME_TYPE)),
        "{root}: {children:?}"
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn corpus_skills_are_served_completely_and_verify() {
    let Some(binary) = common::corpora_binary() else {
        return;
    };
    let root = common::corpora().unwrap().join("anthropic-skills/skills");
    let client = common::connect_modern(&binary).await;
    let checked = check_skills(&client, &root).await;
    eprintln!("corpus: {checked:?}");
    assert_eq!(checked.skills, skill_dirs_on_disk(&root).len());
    assert!(checked.files >= 200, "{checked:?}");
    // Fonts, a PDF and a .gz come back byte-exact as blobs.
    for mime in ["font/ttf", "application/pdf", "application/gzip"] {
        assert!(checked.mime_types.contains_key(mime), "{mime}: {checked:?}");
    }
    assert!(checked.blobs >= 56, "{checked:?}");
    client.cancel().await.unwrap();
}

// ---------------------------------------------------------------------------------------
// A generated catalog of edge cases, compared with rmcp's SkillCatalog over the same folder.

fn write(root: &Path, rel: &str, bytes: impl AsRef<[u8]>) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

fn skill_md(name: &str, extra: &str) -> String {
    format!(
        "---\nname: {name}\ndescription: Does {name} things. Use it when {name} is needed.\n{extra}---\n\n# {name}\n\nBody of {name}.\n"
    )
}

/// Skills that exercise paging (by count and by manifest size), nesting, prefixes with
/// URI delimiters, odd file names, binary and hidden files.
fn edge_fixture() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let skills = dir.path().join("skills");
    for i in 1..=5 {
        let name = format!("bulk-{i}");
        write(&skills, &format!("{name}/SKILL.md"), skill_md(&name, ""));
        for f in 0..450 {
            write(
                &skills,
                &format!("{name}/data/part-{f:03}.txt"),
                format!("{name} part {f}\n"),
            );
        }
    }
    for i in 1..=120 {
        let name = format!("skill-{i:03}");
        write(&skills, &format!("{name}/SKILL.md"), skill_md(&name, ""));
    }
    write(
        &skills,
        "outer/SKILL.md",
        skill_md(
            "outer",
            "license: Apache-2.0\nversion: 2\nexperimental: true\nratio: 0.5\nmissing: null\nreleased: 2024-05-01\nmetadata:\n  owner: \"docs team\"\n  tier: \"1\"\nallowed-tools: Bash(git:*) Read\nx-custom:\n  nested: [1, two, {three: 3}]\n",
        ),
    );
    write(&skills, "outer/templates/invoice.md", "# Invoice\n");
    write(&skills, "outer/inner/SKILL.md", skill_md("inner", ""));
    write(
        &skills,
        "outer/inner/scripts/run.sh",
        "#!/bin/sh\necho inner\n",
    );
    write(
        &skills,
        "me@team:x/deploy-app/SKILL.md",
        skill_md("deploy-app", ""),
    );
    write(
        &skills,
        "me@team:x/deploy-app/notes/my notes (v2).md",
        "# Notes\n",
    );
    write(&skills, "me@team:x/deploy-app/data/ü.txt", "umlaut\n");
    write(&skills, "me@team:x/deploy-app/data/100%.txt", "percent\n");
    write(
        &skills,
        "me@team:x/deploy-app/data/a+b=c;d,e!.txt",
        "delims\n",
    );
    write(
        &skills,
        "team two/review/SKILL.md",
        skill_md("review", "description-extra: \"quoted: yes\"\n"),
    );
    let binary: Vec<u8> = (0..=255u8).cycle().take(3000).collect();
    write(&skills, "team two/review/assets/blob.bin", &binary);
    write(
        &skills,
        "team two/review/assets/nul.txt",
        b"text with a \0 NUL\n",
    );
    write(&skills, "team two/review/assets/latin1.txt", b"caf\xe9\n");
    write(
        &skills,
        "team two/review/assets/ascii.pdf",
        b"%PDF-1.4 all ascii\n%%EOF\n",
    );
    write(&skills, "team two/review/assets/empty.png", b"");
    write(
        &skills,
        "team two/review/assets/LICENSE",
        "plain text without extension\n",
    );
    // Hidden entries are neither listed nor served, by skillpack and rmcp alike.
    write(&skills, "team two/review/.hidden.txt", "secret\n");
    write(&skills, "team two/review/.git/config", "[core]\n");
    write(
        &skills,
        ".hidden-skill/SKILL.md",
        skill_md("hidden-skill", ""),
    );
    let docs = dir.path().join("docs");
    write(&docs, "index.md", "# Edge docs\n\nOne page.\n");
    dir
}

fn edge_binary(fixture: &Path) -> PathBuf {
    common::variant(
        "skills-edge",
        &[
            (
                "SKILLPACK_SKILLS_DIR",
                fixture.join("skills").to_str().unwrap(),
            ),
            ("SKILLPACK_DOCS_DIR", fixture.join("docs").to_str().unwrap()),
            ("SKILLPACK_NAME", "skills-edge"),
        ],
    )
    .unwrap_or_else(|e| panic!("building the skills-edge variant failed:\n{e}"))
}

#[tokio::test]
async fn edge_catalog_matches_rmcp_skill_catalog() {
    let fixture = edge_fixture();
    let binary = edge_binary(fixture.path());
    let root = fixture.path().join("skills");
    let client = common::connect_modern(&binary).await;

    let checked = check_skills(&client, &root).await;
    eprintln!("skills-edge: {checked:?}");
    assert_eq!(checked.skills, 5 + 120 + 4, "{checked:?}");
    assert!(
        checked.pages >= 3,
        "paged by count and by manifest size: {checked:?}"
    );

    // rmcp's reference implementation over the same folder: same URIs, frontmatter,
    // digests and sizes, same directory listings, same SKILL.md resources, same bytes.
    let reference = SkillCatalog::from_dir(&root).unwrap();
    let (ours, _) = list_all_skills(&client).await;
    let ours: BTreeMap<&str, &Skill> = ours.iter().map(|s| (s.uri.as_str(), s)).collect();
    let theirs = reference.skills();
    assert_eq!(ours.len(), theirs.len());
    for skill in &theirs {
        let mine = ours
            .get(skill.uri.as_str())
            .unwrap_or_else(|| panic!("{} missing", skill.uri));
        assert_eq!(mine.frontmatter, skill.frontmatter, "{}", skill.uri);
        assert_eq!(mine.resources, skill.resources, "{}", skill.uri);

        let SkillResources::Files(files) = &skill.resources else {
            unreachable!()
        };
        for file in files.iter().filter(|f| !f.uri.contains("/data/part-")) {
            let (bytes, mime, _) = read_bytes(&client, &file.uri).await;
            let expected = reference.read_resource(&file.uri).unwrap();
            let (expected_bytes, expected_mime) = match &expected.contents[0] {
                ResourceContents::TextResourceContents {
                    text, mime_type, ..
                } => (text.as_bytes().to_vec(), mime_type.clone()),
                ResourceContents::BlobResourceContents {
                    blob, mime_type, ..
                } => (BASE64.decode(blob).unwrap(), mime_type.clone()),
                other => panic!("{}: unexpected contents {other:?}", file.uri),
            };
            assert_eq!(bytes, expected_bytes, "{}", file.uri);
            if expected_mime.is_some() {
                assert_eq!(mime, expected_mime, "{}", file.uri);
            }
        }
        let dir = skill.uri.strip_suffix("/SKILL.md").unwrap();
        let mut folders = vec![dir.to_owned()];
        while let Some(folder) = folders.pop() {
            let mut mine = read_directory(&client, &folder).await;
            let mut theirs = reference
                .read_resource_directory(&folder)
                .unwrap()
                .resources;
            mine.sort_by(|a, b| a.uri.cmp(&b.uri));
            theirs.sort_by(|a, b| a.uri.cmp(&b.uri));
            let key = |r: &Resource| (r.uri.clone(), r.name.clone(), r.is_directory(), r.size);
            assert_eq!(
                mine.iter().map(key).collect::<Vec<_>>(),
                theirs.iter().map(key).collect::<Vec<_>>(),
                "{folder}"
            );
            folders.extend(
                theirs
                    .iter()
                    .filter(|r| r.is_directory())
                    .map(|r| r.uri.clone()),
            );
        }
    }
    let listed = client.list_all_resources().await.unwrap();
    for expected in reference.resources() {
        let mine = listed
            .iter()
            .find(|r| r.uri == expected.uri)
            .unwrap_or_else(|| panic!("{} in resources/list", expected.uri));
        assert_eq!(
            (&mine.name, &mine.description, &mine.mime_type, mine.size),
            (
                &expected.name,
                &expected.description,
                &expected.mime_type,
                expected.size
            )
        );
    }
    // The odd names are encoded like rmcp encodes them (the authority stays a reg-name).
    assert!(ours.contains_key("skill://me%40team%3Ax/deploy-app/SKILL.md"));
    assert!(ours.contains_key("skill://team%20two/review/SKILL.md"));
    client.cancel().await.unwrap();
}

// ---------------------------------------------------------------------------------------
// Errors: the codes SEP-2640 requires, a precise envelope, and the server keeps serving.

#[tokio::test]
async fn unknown_skills_and_hostile_uris_get_the_spec_errors() {
    let client = common::connect_modern(&common::builtin_binary()).await;
    let good = "skill://agent-friendly-mcp/SKILL.md";

    // skills/get: -32602 for anything that is not a served skill, on every spelling.
    for (uri, code, candidate) in [
        (
            "skill://agent-friendly-mcpp/SKILL.md",
            "skill_not_found",
            Some(good),
        ),
        ("skill://nope/SKILL.md", "skill_not_found", None),
        (
            "skill://agent%2Dfriendly-mcp/SKILL.md",
            "skill_not_found",
            Some(good),
        ),
        (
            "skill://agent-friendly-mcp/references/SKILL.md",
            "skill_not_found",
            None,
        ),
        (
            "skill://x/../agent-friendly-mcp/SKILL.md",
            "invalid_path",
            None,
        ),
        (
            "skill://x/%2e%2e/agent-friendly-mcp/SKILL.md",
            "invalid_path",
            None,
        ),
        (
            "resource://skills/agent-friendly-mcp/SKILL.md",
            "invalid_uri",
            None,
        ),
        // Not a SKILL.md URI at all: rmcp's dispatcher answers before the handler.
        ("skill://agent-friendly-mcp", "", None),
        ("skill://agent-friendly-mcp/SKILL.md?x=1", "", None),
    ] {
        let error = rpc_error(
            client
                .get_skill(GetSkillRequestParams::new(uri))
                .await
                .expect_err(uri),
        );
        assert_eq!(error.code, ErrorCode::INVALID_PARAMS, "{uri}: {error:?}");
        assert_eq!(machine_code(&error), code, "{uri}: {error:?}");
        if let Some(candidate) = candidate {
            let data = error.data.as_ref().unwrap();
            assert!(
                data["details"]["candidates"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|c| c == candidate),
                "{uri}: {data}"
            );
        }
        assert!(!error.message.is_empty());
    }

    // resources/read: unknown files, paths outside a skill and `..` segments.
    for (uri, code) in [
        ("skill://nope/SKILL.md", "skill_not_found"),
        ("skill://agent-friendly-mcp/nope.md", "file_not_found"),
        (
            "skill://agent-friendly-mcp/../secrets/SKILL.md",
            "invalid_path",
        ),
        ("skill://agent-friendly-mcp/%2e%2e/x.md", "invalid_path"),
        (
            "skill://agent-friendly-mcp/references/..%2f..%2fx",
            "invalid_path",
        ),
        ("skill://agent-friendly-mcp/a%00b", "invalid_path"),
        ("skill:///etc/passwd", "invalid_path"),
        ("skill://agent-friendly-mcp", "invalid_uri"),
    ] {
        let error = rpc_error(
            client
                .read_resource(ReadResourceRequestParams::new(uri))
                .await
                .expect_err(uri),
        );
        assert_eq!(error.code, ErrorCode::INVALID_PARAMS, "{uri}: {error:?}");
        assert_eq!(machine_code(&error), code, "{uri}: {error:?}");
    }
    let error = rpc_error(
        client
            .read_resource(ReadResourceRequestParams::new(
                "skill://agent-friendly-mcpp/references/tools.md",
            ))
            .await
            .unwrap_err(),
    );
    let candidates = error.data.unwrap()["details"]["candidates"].clone();
    assert_eq!(
        candidates[0], "skill://agent-friendly-mcp/references/tools.md",
        "did-you-mean keeps the rest of the path"
    );

    // resources/directory/read: -32602 for files, unknown folders and traversal.
    for (uri, code) in [
        ("skill://agent-friendly-mcp/SKILL.md", "not_a_directory"),
        ("skill://agent-friendly-mcp/nope", "not_a_directory"),
        ("skill://nope", "skill_not_found"),
        ("skill://agent-friendly-mcp/references/..", "invalid_path"),
        ("skill://agent-friendly-mcp/%2E%2E", "invalid_path"),
        ("resource://docs/index.md", "not_a_directory"),
        ("https://example.com/", "invalid_uri"),
    ] {
        let error = rpc_error(
            client
                .read_resource_directory(ReadResourceDirectoryRequestParams::new(uri))
                .await
                .expect_err(uri),
        );
        assert_eq!(error.code, ErrorCode::INVALID_PARAMS, "{uri}: {error:?}");
        assert_eq!(machine_code(&error), code, "{uri}: {error:?}");
    }
    // A forged cursor is refused, not followed.
    let error = rpc_error(
        client
            .read_resource_directory(
                ReadResourceDirectoryRequestParams::new("skill://agent-friendly-mcp")
                    .with_cursor("bogus"),
            )
            .await
            .unwrap_err(),
    );
    assert_eq!(machine_code(&error), "cursor_invalid");
    let error = rpc_error(
        client
            .list_skills(Some(
                PaginatedRequestParams::default().with_cursor(Some("bogus".into())),
            ))
            .await
            .unwrap_err(),
    );
    assert_eq!(machine_code(&error), "cursor_invalid");

    // A trailing slash on a directory is tolerated; the server still serves.
    let children = read_directory(&client, "skill://agent-friendly-mcp/").await;
    assert!(children.iter().any(|c| c.uri == good));
    let skill = client
        .get_skill(GetSkillRequestParams::new(good))
        .await
        .unwrap();
    assert_eq!(skill.skill.name(), "agent-friendly-mcp");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn legacy_clients_get_resource_not_found_for_unknown_files() {
    // Before 2026-07-28 an unknown resource is -32002; skills/get stays -32602.
    let client = common::connect(&common::builtin_binary()).await;
    let error = rpc_error(
        client
            .read_resource(ReadResourceRequestParams::new("skill://nope/SKILL.md"))
            .await
            .unwrap_err(),
    );
    assert_eq!(error.code, ErrorCode::RESOURCE_NOT_FOUND);
    let error = rpc_error(
        client
            .get_skill(GetSkillRequestParams::new("skill://nope/SKILL.md"))
            .await
            .unwrap_err(),
    );
    assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn skill_md_reads_carry_the_document_outline() {
    // A SKILL.md read by its skill:// URI has the same outline and chunk catalog as its
    // resource:// twin, so a client that found it in resources/list can read by chunk.
    let client = common::connect_modern(&common::builtin_binary()).await;
    let result = client
        .read_resource(ReadResourceRequestParams::new(
            "skill://agent-friendly-mcp/SKILL.md",
        ))
        .await
        .unwrap();
    let ResourceContents::TextResourceContents { meta, .. } = &result.contents[0] else {
        panic!("SKILL.md is text")
    };
    let meta = serde_json::to_value(meta).unwrap();
    let document = &meta["io.skillpack/document"];
    assert_eq!(
        document["uri"],
        "resource://skills/agent-friendly-mcp/document"
    );
    assert!(!document["chunks"].as_array().unwrap().is_empty());
    client.cancel().await.unwrap();
}
