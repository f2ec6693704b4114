//! Releases that know their history: three releases of a fixture catalog built in a row,
//! each against the previous one's manifest (compiled in-process, served over MCP through
//! an in-memory pipe), and the change sets, `whats-new`, completion, errors, the tool
//! fallback, `_meta` versions and the build-time checks of `SKILLPACK_PREVIOUS`; then the
//! same three releases as real binaries built by cargo, over stdio and Streamable HTTP.

use crate::common;

use std::path::{Path, PathBuf};

use rmcp::model::{
    ArgumentInfo, CompleteRequestParams, GetPromptRequestParams, ReadResourceRequestParams,
    Reference, ResourceContents,
};
use rmcp::service::RunningService;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};
use skillpack_server::catalog::Catalog;
use skillpack_server::cmd;
use skillpack_server::compile::{self, Config, Severity};
use skillpack_server::server::SkillpackServer;

const SKILL: &str = "---\nname: pdf\ndescription: Fill and merge PDF forms.\n---\n# PDF\n\nWork with PDFs.\n\n## Fill\n\nFill forms.\n\n## Merge\n\nMerge files.\n";
const GUIDE: &str = "# Guide\n\nIntro text.\n\n## Install\n\nRun the installer.\n\n## Usage\n\nUse it.\n\n### Flags\n\nSome flags.\n";
const GUIDE_2: &str = "# Guide\n\nIntro text.\n\n## Install\n\nRun the NEW installer.\n\n## Usage\n\nUse it.\n\n### Flags\n\nSome flags.\n";

/// One content folder whose releases are built in turn.
struct Releases {
    dir: tempfile::TempDir,
}

impl Releases {
    fn new() -> Releases {
        let releases = Releases {
            dir: tempfile::tempdir().unwrap(),
        };
        releases.write("skills/pdf/SKILL.md", SKILL);
        releases.write("skills/pdf/scripts/fill.py", "print('fill')\n");
        releases.write("docs/guide.md", GUIDE);
        releases.write("docs/old.md", "# Old\n\nSoon gone.\n");
        releases
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    fn write(&self, rel: &str, text: &str) {
        let path = self.path(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn config(&self, previous: Option<&Path>, label: &str, epoch: u64) -> Config {
        let mut config = Config::for_dirs(self.path("skills"), self.path("docs"));
        config.previous = previous.map(Path::to_path_buf);
        config.release = label.to_owned();
        config.epoch = Some(epoch);
        config
    }

    /// Compile a release and keep its manifest under `manifests/<label>.json`.
    fn build(&self, previous: Option<&str>, label: &str, epoch: u64) -> (Catalog, PathBuf) {
        let previous = previous.map(|p| self.path(&format!("manifests/{p}.json")));
        let output = compile::compile(&self.config(previous.as_deref(), label, epoch))
            .unwrap_or_else(|r| panic!("{label} does not compile: {:?}", r.diagnostics));
        let catalog = Catalog::from_compiled(output).expect("the archive validates");
        let manifest =
            serde_json::to_string_pretty(&cmd::changes::manifest(&catalog).unwrap()).unwrap();
        let path = self.path(&format!("manifests/{label}.json"));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, manifest).unwrap();
        (catalog, path)
    }
}

const DAY: u64 = 86_400;
/// 2026-01-01T00:00:00Z.
const V1_EPOCH: u64 = 1_767_225_600;

/// v1; v2 edits a section of the guide, adds a doc and a skill file; v3 removes a doc.
fn three_releases() -> (Releases, [Catalog; 3]) {
    let releases = Releases::new();
    let (v1, _) = releases.build(None, "v1", V1_EPOCH);
    releases.write("docs/guide.md", GUIDE_2);
    releases.write("docs/new.md", "# New\n\nFresh.\n");
    releases.write("skills/pdf/templates/form.txt", "name: ___\n");
    let (v2, _) = releases.build(Some("v1"), "v2", V1_EPOCH + 10 * DAY);
    std::fs::remove_file(releases.path("docs/old.md")).unwrap();
    let (v3, _) = releases.build(Some("v2"), "v3", V1_EPOCH + 20 * DAY);
    (releases, [v1, v2, v3])
}

type Client = RunningService<RoleClient, ()>;

/// An MCP client connected to `catalog` through an in-memory pipe.
async fn connect(catalog: Catalog) -> Client {
    let (client_io, server_io) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Ok(server) = SkillpackServer::new(catalog).serve(server_io).await {
            let _ = server.waiting().await;
        }
    });
    ().serve(client_io).await.expect("initialize")
}

async fn read(client: &Client, uri: &str) -> (String, Value) {
    let result = client
        .read_resource(ReadResourceRequestParams::new(uri))
        .await
        .unwrap_or_else(|e| panic!("read {uri}: {e}"));
    match &result.contents[0] {
        ResourceContents::TextResourceContents { text, meta, .. } => (
            text.clone(),
            serde_json::to_value(meta).unwrap_or(Value::Null),
        ),
        other => panic!("{uri}: {other:?}"),
    }
}

async fn read_json(client: &Client, uri: &str) -> Value {
    serde_json::from_str(&read(client, uri).await.0).unwrap()
}

async fn read_error(client: &Client, uri: &str) -> Value {
    let error = client
        .read_resource(ReadResourceRequestParams::new(uri))
        .await
        .expect_err(uri);
    let rmcp::ServiceError::McpError(error) = error else {
        panic!("{uri}: {error:?}")
    };
    error.data.expect("error.data")
}

fn entry<'a>(changes: &'a Value, uri: &str) -> &'a Value {
    changes["documents"]
        .as_array()
        .into_iter()
        .chain(changes["files"].as_array())
        .flatten()
        .find(|e| e["uri"] == uri)
        .unwrap_or_else(|| panic!("no entry for {uri} in {changes:#}"))
}

fn uris(changes: &Value) -> Vec<(String, String)> {
    changes["documents"]
        .as_array()
        .into_iter()
        .chain(changes["files"].as_array())
        .flatten()
        .map(|e| {
            (
                e["uri"].as_str().unwrap().to_owned(),
                e["change"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// What v3 says changed since v1: v2's edit, new doc and skill file, and v3's removal.
const V3_SINCE_V1: &[(&str, &str)] = &[
    ("resource://docs/guide.md", "changed"),
    ("resource://docs/new.md", "added"),
    ("resource://docs/old.md", "removed"),
    ("skill://pdf/templates/form.txt", "added"),
];

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
        .collect()
}

#[tokio::test]
async fn three_releases_know_what_changed_since_each_earlier_one() {
    let (_releases, [v1, v2, v3]) = three_releases();

    // The first release knows no history and says so.
    let first = connect(v1).await;
    let changes = read_json(&first, "resource://catalog/changes").await;
    assert_eq!(changes["first_release"], true);
    assert!(changes["since"].is_null());
    assert_eq!(changes["documents"], json!([]));
    first.cancel().await.unwrap();

    // v2 against v1: the edited section, the new doc and the new skill file.
    let client = connect(v2).await;
    let changes = read_json(&client, "resource://catalog/changes").await;
    assert_eq!(changes["release"]["label"], "v2");
    assert_eq!(changes["since"]["label"], "v1");
    assert_eq!(
        uris(&changes),
        pairs(&[
            ("resource://docs/guide.md", "changed"),
            ("resource://docs/new.md", "added"),
            ("skill://pdf/templates/form.txt", "added"),
        ])
    );
    let guide = entry(&changes, "resource://docs/guide.md");
    assert_eq!(
        guide["sections"],
        json!([{"anchor": "install", "change": "changed", "uri": "resource://docs/guide.md#install"}])
    );
    assert_eq!(guide["read"], json!(["resource://docs/guide.md#install"]));
    assert_eq!(
        entry(&changes, "resource://docs/new.md")["read"],
        json!(["resource://docs/new.md"])
    );
    assert_eq!(
        entry(&changes, "skill://pdf/templates/form.txt")["skill"],
        "pdf"
    );
    client.cancel().await.unwrap();

    // v3 against v2 (the previous release) and against v1 (composed through v2).
    let client = connect(v3).await;
    let since_v2 = read_json(&client, "resource://catalog/changes").await;
    assert_eq!(since_v2["since"]["label"], "v2");
    assert_eq!(
        uris(&since_v2),
        pairs(&[("resource://docs/old.md", "removed")])
    );
    assert_eq!(
        entry(&since_v2, "resource://docs/old.md")["read"],
        json!([])
    );
    let since_v1 = read_json(&client, "resource://catalog/changes/v1").await;
    assert_eq!(since_v1["since"]["label"], "v1");
    assert_eq!(uris(&since_v1), pairs(V3_SINCE_V1));
    assert_eq!(
        entry(&since_v1, "resource://docs/guide.md")["read"],
        json!(["resource://docs/guide.md#install"])
    );
    let earlier: Vec<&str> = since_v1["earlier_releases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["label"].as_str().unwrap())
        .collect();
    assert_eq!(earlier, ["v2", "v1"]);

    // `since` by fingerprint prefix and by date names the same release as its label.
    let v1_fingerprint = since_v1["since"]["fingerprint"]
        .as_str()
        .unwrap()
        .to_owned();
    let by_prefix = read_json(
        &client,
        &format!("resource://catalog/changes/{}", &v1_fingerprint[7..7 + 12]),
    )
    .await;
    assert_eq!(by_prefix["documents"], since_v1["documents"]);
    // v2 is dated 2026-01-11: the 15th names it, the 5th names v1.
    let by_date = read_json(&client, "resource://catalog/changes/2026-01-15").await;
    assert_eq!(by_date["since"]["label"], "v2");
    let by_date = read_json(&client, "resource://catalog/changes/2026-01-05").await;
    assert_eq!(by_date["since"]["label"], "v1");
    // This release itself: nothing changed.
    let same = read_json(&client, "resource://catalog/changes/v3").await;
    assert_eq!(same["documents"], json!([]));

    // Unknown `since`: the envelope with candidates, and a repair that works.
    for bad in ["v0", "2025-12-01", "abcdef", "../../etc", "%00"] {
        let uri = format!("resource://catalog/changes/{bad}");
        let data = read_error(&client, &uri).await;
        if data["machine_code"] == "invalid_uri" || data["machine_code"] == "invalid_path" {
            continue;
        }
        assert_eq!(data["machine_code"], "release_not_found", "{bad}: {data}");
        let candidates = data["details"]["candidates"].as_array().unwrap();
        assert!(!candidates.is_empty(), "{bad}: {data}");
        let repair = &data["repair"];
        assert_eq!(repair["tool"], "catalog_list", "{data}");
        let fixed = common::tools::ok(&client, "catalog_list", repair["arguments"].clone()).await;
        assert_eq!(fixed["kind"], "changes");
    }
    let data = read_error(&client, "resource://catalog/changes/v0").await;
    let candidates = data["details"]["candidates"].as_array().unwrap();
    assert!(candidates.contains(&json!("v1")), "{data}");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn whats_new_completion_and_the_tool_fallback() {
    let (_releases, [_, _, v3]) = three_releases();
    let client = connect(v3).await;

    // whats-new without `since`: the previous release; with it, any earlier one.
    let prompt = client
        .get_prompt(GetPromptRequestParams::new("whats-new"))
        .await
        .unwrap();
    let text = prompt.messages[0].content.as_text().unwrap().text.clone();
    assert!(text.contains("since v2"), "{text}");
    assert!(text.contains("resource://docs/old.md"), "{text}");
    assert!(!text.contains("guide.md"), "{text}");
    let mut arguments = serde_json::Map::new();
    arguments.insert("since".into(), "v1".into());
    let prompt = client
        .get_prompt(GetPromptRequestParams::new("whats-new").with_arguments(arguments.clone()))
        .await
        .unwrap();
    let text = prompt.messages[0].content.as_text().unwrap().text.clone();
    assert!(text.contains("## Skill `pdf`"), "{text}");
    assert!(text.contains("## Docs"), "{text}");
    assert!(text.contains("resource://docs/guide.md#install"), "{text}");
    assert!(text.contains("Read only the URIs listed above"), "{text}");
    arguments.insert("since".into(), "nope".into());
    let error = client
        .get_prompt(GetPromptRequestParams::new("whats-new").with_arguments(arguments))
        .await
        .expect_err("unknown since");
    let rmcp::ServiceError::McpError(error) = error else {
        panic!("{error:?}")
    };
    assert_eq!(error.data.unwrap()["machine_code"], "release_not_found");

    // Completion of `since`, for the template and for the prompt.
    for reference in [
        Reference::for_resource("resource://catalog/changes/{since}"),
        Reference::for_prompt("whats-new"),
    ] {
        let done = client
            .complete(CompleteRequestParams::new(
                reference,
                ArgumentInfo::new("since", "v"),
            ))
            .await
            .unwrap();
        assert_eq!(done.completion.values, ["v3", "v2", "v1"]);
    }

    // The tool fallback pages through the same entries.
    let page = common::tools::ok(
        &client,
        "catalog_list",
        json!({"kind": "changes", "since": "v1", "limit": 3}),
    )
    .await;
    assert_eq!(page["total"], 4);
    assert_eq!(page["has_more"], true);
    assert_eq!(page["since"]["label"], "v1");
    let rest = common::tools::ok(
        &client,
        "catalog_list",
        json!({"kind": "changes", "since": "v1", "limit": 3, "cursor": page["next_cursor"]}),
    )
    .await;
    assert_eq!(rest["items"][0]["uri"], "skill://pdf/templates/form.txt");
    let tools = client.list_all_tools().await.unwrap();
    let list = tools.iter().find(|t| t.name == "catalog_list").unwrap();
    let validator = common::tools::output_validator(list);
    common::tools::assert_valid(&validator, &page, "catalog_list changes");
    let envelope = common::tools::err(
        &client,
        "catalog_list",
        json!({"kind": "changes", "since": "v9"}),
    )
    .await;
    assert_eq!(envelope["code"], "release_not_found");
    common::tools::run_repair(&client, &envelope).await;
    let envelope = common::tools::err(
        &client,
        "catalog_list",
        json!({"kind": "docs", "since": "v1"}),
    )
    .await;
    assert_eq!(envelope["code"], "invalid_argument");

    // orient and the capability summary name the release and how to ask.
    let orient = client
        .get_prompt(GetPromptRequestParams::new("orient"))
        .await
        .unwrap();
    let text = orient.messages[0].content.as_text().unwrap().text.clone();
    assert!(
        text.contains("release v3") && text.contains("whats-new"),
        "{text}"
    );
    let capabilities = read_json(&client, "resource://catalog/capabilities").await;
    assert_eq!(capabilities["release"]["label"], "v3");
    assert_eq!(capabilities["release"]["earlier_releases"], 2);
    let info = client.peer_info().unwrap();
    let instructions = info.instructions.clone().unwrap_or_default();
    assert!(instructions.contains("whats-new"), "{instructions}");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn unchanged_sections_and_chunks_keep_their_version() {
    let (_releases, [v1, v2, _]) = three_releases();
    let (old, new) = (connect(v1).await, connect(v2).await);
    let (_, old_meta) = read(&old, "resource://docs/guide.md").await;
    let (_, new_meta) = read(&new, "resource://docs/guide.md").await;
    let (old_doc, new_doc) = (
        &old_meta["io.skillpack/document"],
        &new_meta["io.skillpack/document"],
    );
    assert_ne!(old_doc["version"], new_doc["version"]);
    let versions = |doc: &Value| -> Vec<(String, String)> {
        doc["outline"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| {
                (
                    h["anchor"].as_str().unwrap().to_owned(),
                    h["version"].as_str().unwrap().to_owned(),
                )
            })
            .collect()
    };
    let (before, after) = (versions(old_doc), versions(new_doc));
    for ((anchor, a), (_, b)) in before.iter().zip(&after) {
        match anchor.as_str() {
            // The edited section, and the H1 section that holds it.
            "install" | "guide" => assert_ne!(a, b, "{anchor}"),
            _ => assert_eq!(a, b, "{anchor}"),
        }
    }
    // The section read says the same version as the outline.
    let (_, section) = read(&new, "resource://docs/guide.md#usage").await;
    assert_eq!(
        section["io.skillpack/section"]["version"].as_str().unwrap(),
        after.iter().find(|(a, _)| a == "usage").unwrap().1
    );
    assert_eq!(
        section["io.skillpack/section"]["document_version"],
        new_doc["version"]
    );
    // _meta says which sections changed since the previous release.
    assert_eq!(new_doc["changes"]["status"], "changed");
    assert_eq!(new_doc["changes"]["sections_changed"], json!(["install"]));
    assert!(
        old_doc.get("changes").is_none(),
        "a first release has no changes"
    );
    let (_, index_meta) = read(&new, "resource://skills/pdf/document").await;
    assert_eq!(
        index_meta["io.skillpack/document"]["changes"]["status"],
        "unchanged"
    );

    // Chunks: a chunk whose bytes did not change keeps its version.
    let small = Releases::new();
    let long = |edit: &str| {
        let mut text = String::from("# Long\n\n");
        for i in 0..6 {
            text.push_str(&format!("## Part {i}\n\n{}\n\n", "words ".repeat(80)));
        }
        text.push_str(&format!("## Last\n\n{edit}\n"));
        text
    };
    small.write("docs/long.md", &long("one"));
    let mut config = small.config(None, "a", V1_EPOCH);
    config.chunk_bytes = 512;
    let a = Catalog::from_compiled(compile::compile(&config).unwrap()).unwrap();
    small.write("docs/long.md", &long("two"));
    let b = Catalog::from_compiled(compile::compile(&config).unwrap()).unwrap();
    let chunk_versions = |catalog: &Catalog| -> Vec<(String, u64)> {
        let document = catalog
            .documents()
            .iter()
            .position(|d| d.path == "long.md")
            .unwrap();
        catalog
            .tables(document as u32)
            .unwrap()
            .chunks
            .iter()
            .map(|c| (c.id.clone(), c.version))
            .collect()
    };
    let (before, after) = (chunk_versions(&a), chunk_versions(&b));
    assert!(before.len() > 3, "{before:?}");
    assert_eq!(before.len(), after.len());
    let differing: Vec<&str> = before
        .iter()
        .zip(&after)
        .filter(|(x, y)| x.1 != y.1)
        .map(|(x, _)| x.0.as_str())
        .collect();
    assert_eq!(differing, ["last"]);
    old.cancel().await.unwrap();
    new.cancel().await.unwrap();
}

#[test]
fn history_never_changes_the_fingerprint_and_builds_are_reproducible() {
    let releases = Releases::new();
    releases.build(None, "v1", V1_EPOCH);
    releases.write("docs/new.md", "# New\n");
    let previous = releases.path("manifests/v1.json");
    let with = |previous: Option<&Path>, label: &str| {
        compile::compile(&releases.config(previous, label, V1_EPOCH + DAY)).unwrap()
    };
    let a = with(Some(&previous), "v2");
    let b = with(Some(&previous), "v2");
    let alone = with(None, "other");
    assert_eq!(a.catalog.fingerprint, alone.catalog.fingerprint);
    assert_eq!(
        a.catalog_bytes(),
        b.catalog_bytes(),
        "same inputs, same bytes"
    );
    assert_ne!(a.catalog_bytes(), alone.catalog_bytes());

    // The manifest itself is deterministic, and round-trips through the build.
    let catalog = Catalog::from_compiled(a).unwrap();
    let manifest = cmd::changes::manifest(&catalog).unwrap();
    let again = cmd::changes::manifest(&Catalog::from_compiled(b).unwrap()).unwrap();
    assert_eq!(manifest, again);
    assert_eq!(manifest.history.len(), 1);
    assert_eq!(manifest.history[0].label, "v1");
    assert_eq!(manifest.release.date, "2026-01-02T00:00:00Z");
    assert_eq!(manifest.skill_files.len(), 2);
    let guide = manifest
        .documents
        .iter()
        .find(|d| d.uri == "resource://docs/guide.md")
        .unwrap();
    let anchors: Vec<&str> = guide.sections.iter().map(|s| s.anchor.as_str()).collect();
    assert_eq!(anchors, ["guide", "install", "usage", "flags"]);
    assert_eq!(guide.sections[0].size, GUIDE.len() as u64);
}

#[test]
fn the_chain_is_bounded() {
    let releases = Releases::new();
    let mut previous: Option<String> = None;
    for i in 0..(compile::history::MAX_RELEASES + 3) {
        releases.write("docs/counter.md", &format!("# Counter\n\n{i}\n"));
        let label = format!("r{i}");
        releases.build(previous.as_deref(), &label, V1_EPOCH + i as u64 * DAY);
        previous = Some(label);
    }
    let manifest: Value = serde_json::from_str(
        &std::fs::read_to_string(releases.path(&format!("manifests/{}.json", previous.unwrap())))
            .unwrap(),
    )
    .unwrap();
    let history = manifest["history"].as_array().unwrap();
    assert_eq!(history.len(), compile::history::MAX_RELEASES);
    assert_eq!(history[0]["label"], "r51");
    assert_eq!(history[49]["label"], "r2");
    // Every change set is against this release: the counter changed since each.
    for release in history {
        assert_eq!(
            release["changes"]["documents"][0]["uri"],
            "resource://docs/counter.md"
        );
    }
}

#[test]
fn broken_previous_manifests_fail_the_build_with_path_what_and_fix() {
    let releases = Releases::new();
    let (_, good) = releases.build(None, "v1", V1_EPOCH);
    let good_text = std::fs::read_to_string(&good).unwrap();
    let cases: Vec<(&str, String, &str)> = vec![
        ("missing.json", String::new(), "cannot read"),
        (
            "garbage.json",
            "{ not json".into(),
            "is not a skillpack manifest",
        ),
        (
            "future.json",
            good_text.replace("skillpack-manifest/1", "skillpack-manifest/9"),
            "unknown manifest format",
        ),
        (
            "fingerprint.json",
            good_text.replacen("\"fingerprint\": \"blake3:", "\"fingerprint\": \"md5:", 1),
            "fingerprint",
        ),
        (
            "field.json",
            good_text.replacen("\"documents\"", "\"documentz\"", 1),
            "is not a valid skillpack-manifest/1 manifest",
        ),
    ];
    for (name, text, words) in cases {
        let path = releases.path(&format!("bad/{name}"));
        if !text.is_empty() {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, text).unwrap();
        }
        let report = match compile::compile(&releases.config(Some(&path), "v2", V1_EPOCH)) {
            Ok(_) => panic!("{name} compiled"),
            Err(report) => report,
        };
        let errors: Vec<String> = report
            .diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .map(|d| d.to_string())
            .collect();
        assert!(
            errors
                .iter()
                .any(|e| e.contains(&path.display().to_string())
                    && e.contains(words)
                    && e.contains(" — ")),
            "{name}: {errors:#?}"
        );
    }
}

#[test]
fn release_settings_are_checked() {
    let root = Path::new("/tmp");
    let config = |vars: &[(&str, &str)]| {
        Config::from_env(root, "0.1.0", |key| {
            vars.iter()
                .find(|(k, _)| *k == key)
                .map(|(_, v)| (*v).to_owned())
        })
    };
    let ok = config(&[
        ("SKILLPACK_RELEASE", "v1.2.0"),
        ("SOURCE_DATE_EPOCH", "1767225600"),
        ("SKILLPACK_PREVIOUS", "release/manifest.json"),
    ])
    .unwrap();
    assert_eq!(ok.release, "v1.2.0");
    assert_eq!(ok.epoch, Some(1_767_225_600));
    assert_eq!(ok.previous, Some(root.join("release/manifest.json")));
    // SKILLPACK_RELEASE_DATE is the same date under a name only skillpack reads, and wins.
    let both = config(&[
        ("SKILLPACK_RELEASE_DATE", "1767312000"),
        ("SOURCE_DATE_EPOCH", "1767225600"),
    ])
    .unwrap();
    assert_eq!(both.epoch, Some(1_767_312_000));
    let blank = config(&[
        ("SKILLPACK_RELEASE_DATE", " "),
        ("SOURCE_DATE_EPOCH", "1767225600"),
    ])
    .unwrap();
    assert_eq!(blank.epoch, Some(1_767_225_600), "a blank value is unset");
    assert_eq!(config(&[]).unwrap().epoch, None);
    for (key, value) in [
        ("SKILLPACK_RELEASE", "has space"),
        ("SKILLPACK_RELEASE", "a/b"),
        ("SOURCE_DATE_EPOCH", "yesterday"),
        ("SOURCE_DATE_EPOCH", "-5"),
        ("SKILLPACK_RELEASE_DATE", "2026-01-01"),
        ("SKILLPACK_RELEASE_DATE", "253402300800"),
    ] {
        let report = config(&[(key, value)]).expect_err(value);
        let line = report.diagnostics[0].to_string();
        assert!(line.starts_with(key) && line.contains(" — "), "{line}");
    }
}

#[tokio::test]
async fn the_built_binary_is_a_first_release_and_prints_its_manifest() {
    let binary = common::builtin_binary();
    let output = common::run(&binary, &["manifest"]);
    assert!(output.status.success());
    let manifest: compile::history::Manifest =
        serde_json::from_slice(&output.stdout).expect("the manifest parses back");
    assert_eq!(manifest.format, compile::history::FORMAT);
    let fingerprint = common::run(&binary, &["fingerprint"]);
    assert_eq!(
        String::from_utf8_lossy(&fingerprint.stdout).trim(),
        manifest.fingerprint
    );
    assert!(manifest.history.is_empty());
    // Printing it twice gives the same bytes.
    assert_eq!(common::run(&binary, &["manifest"]).stdout, output.stdout);

    // With the binary's own sha256, as an air-gapped host checks it with sha256sum; such a
    // manifest is still one the next release can be built against.
    let with_binary = common::run(&binary, &["manifest", "--with-binary"]);
    assert!(with_binary.status.success());
    let with_binary: Value = serde_json::from_slice(&with_binary.stdout).unwrap();
    let bytes = std::fs::read(&binary).unwrap();
    use sha2::Digest;
    let expected: String = sha2::Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(
        with_binary["binary"]["sha256"],
        format!("sha256:{expected}")
    );
    assert_eq!(with_binary["binary"]["size"], bytes.len());
    assert!(
        serde_json::to_value(&manifest)
            .unwrap()
            .get("binary")
            .is_none()
    );
    let dir = tempfile::tempdir().unwrap();
    let previous = dir.path().join("manifest.json");
    std::fs::write(&previous, with_binary.to_string()).unwrap();
    let root = common::crate_root();
    let mut config = Config::for_dirs(root.join("skills"), root.join("docs"));
    config.previous = Some(previous);
    let next = compile::compile(&config).expect("builds against a manifest with `binary`");
    assert_eq!(next.catalog.history.earlier.len(), 1);

    let notes = common::run(&binary, &["changes"]);
    assert!(notes.status.success());
    assert!(String::from_utf8_lossy(&notes.stdout).contains("first release of its chain"));
    let unknown = common::run(&binary, &["changes", "--since", "v0.0.1"]);
    assert!(!unknown.status.success());
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("release_not_found"));

    let client = common::connect(&binary).await;
    let changes: Value =
        serde_json::from_str(&common::read_text(&client, "resource://catalog/changes").await)
            .unwrap();
    assert_eq!(changes["first_release"], true);
    client.cancel().await.unwrap();
}

/// The same three releases as real binaries: each built by cargo with `SKILLPACK_PREVIOUS`
/// naming the manifest the previous binary printed, then asked over stdio (rmcp's client
/// against the spawned binary) and, for one case, over Streamable HTTP.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_real_binaries_over_stdio_and_http() {
    let releases = Releases::new();
    let build = |previous: Option<&Path>, label: &str, epoch: u64| -> PathBuf {
        let (skills, docs) = (releases.path("skills"), releases.path("docs"));
        let epoch = epoch.to_string();
        let mut env = vec![
            ("SKILLPACK_SKILLS_DIR", skills.to_str().unwrap()),
            ("SKILLPACK_DOCS_DIR", docs.to_str().unwrap()),
            ("SKILLPACK_RELEASE", label),
            ("SKILLPACK_RELEASE_DATE", epoch.as_str()),
        ];
        if let Some(previous) = previous {
            env.push(("SKILLPACK_PREVIOUS", previous.to_str().unwrap()));
        }
        let binary = common::variant(&format!("release-{label}"), &env)
            .unwrap_or_else(|e| panic!("building {label} failed:\n{e}"));
        // What a release pipeline keeps beside the binary.
        let output = common::run(&binary, &["manifest"]);
        assert!(output.status.success(), "{label}: manifest");
        let manifest = releases.path(&format!("binaries/{label}.json"));
        std::fs::create_dir_all(manifest.parent().unwrap()).unwrap();
        std::fs::write(&manifest, &output.stdout).unwrap();
        binary
    };
    let manifest = |label: &str| releases.path(&format!("binaries/{label}.json"));

    let v1 = build(None, "v1", V1_EPOCH);
    releases.write("docs/guide.md", GUIDE_2);
    releases.write("docs/new.md", "# New\n\nFresh.\n");
    releases.write("skills/pdf/templates/form.txt", "name: ___\n");
    let v2 = build(Some(&manifest("v1")), "v2", V1_EPOCH + 10 * DAY);
    std::fs::remove_file(releases.path("docs/old.md")).unwrap();
    let v3 = build(Some(&manifest("v2")), "v3", V1_EPOCH + 20 * DAY);

    // The manifests chain, and `info` shows the chain.
    let v3_manifest: Value =
        serde_json::from_slice(&std::fs::read(manifest("v3")).unwrap()).unwrap();
    let chain: Vec<&str> = v3_manifest["history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["label"].as_str().unwrap())
        .collect();
    assert_eq!(chain, ["v2", "v1"], "{v3_manifest:#}");
    let info: Value =
        serde_json::from_slice(&common::run(&v3, &["info", "--json"]).stdout).unwrap();
    assert_eq!(info["release"]["label"], "v3");
    assert_eq!(
        info["release"]["earlier"].as_array().unwrap().len(),
        2,
        "{info:#}"
    );

    // Over stdio: the change sets against the previous release and against v1.
    let client = common::connect(&v3).await;
    let since_v2 = read_json(&client, "resource://catalog/changes").await;
    assert_eq!(since_v2["since"]["label"], "v2");
    assert_eq!(
        uris(&since_v2),
        pairs(&[("resource://docs/old.md", "removed")])
    );
    let since_v1 = read_json(&client, "resource://catalog/changes/v1").await;
    assert_eq!(uris(&since_v1), pairs(V3_SINCE_V1));
    assert_eq!(
        entry(&since_v1, "resource://docs/guide.md")["sections"],
        json!([{"anchor": "install", "change": "changed", "uri": "resource://docs/guide.md#install"}])
    );

    // whats-new without and with `since`.
    let text = |prompt: rmcp::model::GetPromptResult| {
        prompt.messages[0].content.as_text().unwrap().text.clone()
    };
    let default = text(
        client
            .get_prompt(GetPromptRequestParams::new("whats-new"))
            .await
            .unwrap(),
    );
    assert!(
        default.contains("since v2") && default.contains("resource://docs/old.md"),
        "{default}"
    );
    let mut arguments = serde_json::Map::new();
    arguments.insert("since".into(), "v1".into());
    let since = text(
        client
            .get_prompt(GetPromptRequestParams::new("whats-new").with_arguments(arguments))
            .await
            .unwrap(),
    );
    assert!(
        since.contains("resource://docs/guide.md#install"),
        "{since}"
    );

    // Completion of `since`, and the error for an unknown one with a repair that works.
    let done = client
        .complete(CompleteRequestParams::new(
            Reference::for_resource("resource://catalog/changes/{since}"),
            ArgumentInfo::new("since", "v"),
        ))
        .await
        .unwrap();
    assert_eq!(done.completion.values, ["v3", "v2", "v1"]);
    let data = read_error(&client, "resource://catalog/changes/v0").await;
    assert_eq!(data["machine_code"], "release_not_found", "{data}");
    assert!(
        data["details"]["candidates"]
            .as_array()
            .unwrap()
            .contains(&json!("v1"))
    );
    let fixed =
        common::tools::ok(&client, "catalog_list", data["repair"]["arguments"].clone()).await;
    assert_eq!(fixed["kind"], "changes");

    // Unchanged sections keep their version from v1 to v3; the edited one does not.
    let old = common::connect(&v1).await;
    for (anchor, kept) in [("usage", true), ("flags", true), ("install", false)] {
        let uri = format!("resource://docs/guide.md#{anchor}");
        let (_, before) = read(&old, &uri).await;
        let (_, after) = read(&client, &uri).await;
        let version = |meta: &Value| meta["io.skillpack/section"]["version"].clone();
        assert!(version(&before).is_string(), "{before:#}");
        assert_eq!(version(&before) == version(&after), kept, "{anchor}");
    }
    old.cancel().await.unwrap();
    client.cancel().await.unwrap();

    // Release notes from the CLI.
    let notes = common::run(&v3, &["changes", "--since", "v1"]);
    assert!(notes.status.success());
    let notes = String::from_utf8_lossy(&notes.stdout);
    assert!(
        notes.contains("resource://docs/guide.md#install"),
        "{notes}"
    );

    let notes = common::run(&v2, &["changes"]);
    let notes = String::from_utf8_lossy(&notes.stdout);
    assert!(
        notes.contains("v1") && notes.contains("resource://docs/new.md"),
        "{notes}"
    );

    // Over Streamable HTTP: the same change set against v1, from a 2026-07-28 client.
    let server = common::http::HttpServer::start(&v3, &[], &[]);
    let http = common::http::connect_modern(&server.url(), None).await;
    let over_http = read_json(&http, "resource://catalog/changes/v1").await;
    assert_eq!(over_http, since_v1);
    http.cancel().await.unwrap();
}

/// A C string that looks like the compiler's `__TIME__` (`hh:mm:ss`) or `__DATE__`
/// (`Mmm dd yyyy`), NUL on both sides, in `bytes`.
fn build_clock_strings(bytes: &[u8]) -> Vec<String> {
    const MONTHS: [&[u8]; 12] = [
        b"Jan", b"Feb", b"Mar", b"Apr", b"May", b"Jun", b"Jul", b"Aug", b"Sep", b"Oct", b"Nov",
        b"Dec",
    ];
    let digit = |b: u8| b.is_ascii_digit();
    let time = |w: &[u8]| {
        digit(w[0])
            && digit(w[1])
            && w[2] == b':'
            && digit(w[3])
            && digit(w[4])
            && w[5] == b':'
            && digit(w[6])
            && digit(w[7])
    };
    let date = |w: &[u8]| {
        MONTHS.contains(&&w[..3])
            && w[3] == b' '
            && (w[4] == b' ' || digit(w[4]))
            && digit(w[5])
            && w[6] == b' '
            && w[7..11].iter().all(|&b| digit(b))
    };
    let mut found = Vec::new();
    for (len, matches) in [(8, &time as &dyn Fn(&[u8]) -> bool), (11, &date)] {
        for window in bytes.windows(len + 2) {
            if window[0] == 0 && window[len + 1] == 0 && matches(&window[1..=len]) {
                found.push(String::from_utf8_lossy(&window[1..=len]).into_owned());
            }
        }
    }
    found
}

/// A plain release build embeds no build clock: mimalloc's C code prints `__DATE__` and
/// `__TIME__`, which `.cargo/config.toml` pins (docs/pinning.md, "Verifying a binary").
/// Without that, two builds of the same commit differ (scripts/reproducible).
#[test]
fn the_binary_embeds_no_build_clock() {
    assert_eq!(
        build_clock_strings(b"x\0Dec  1 2026\0y\x0000:23:31\0"),
        ["00:23:31", "Dec  1 2026"],
        "the scanner finds what the compiler writes"
    );
    let binary = std::fs::read(common::builtin_binary()).unwrap();
    let found = build_clock_strings(&binary);
    assert!(
        found.is_empty(),
        "the binary embeds a build date or time {found:?}: is .cargo/config.toml's HOST_CFLAGS in effect?"
    );
}
