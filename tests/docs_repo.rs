//! Library mode: the docs-repository template (`examples/docs-repo/`) copied out of this
//! workspace, its dependencies pointed at it by path, built with cargo, and served — over
//! stdio through rmcp's client, and over HTTP — with the full CLI of the main binary.

use crate::common;

use std::path::{Path, PathBuf};

use common::http::HttpServer;
use rmcp::model::{CallToolRequestParams, ReadResourceRequestParams};
use serde_json::json;

/// The template, copied to a temporary folder (its `target/`, if any, left behind) with
/// its dependencies on this workspace's crates by absolute path and this workspace's
/// `Cargo.lock`, so that the engine built in the shared variants dir is reused.
///
/// Each test names its copy differently: cargo leaves a top-level package's path out of its
/// artifact names, so two copies named alike would share (and mistake for fresh) each
/// other's build script in the shared target dir.
fn copy_template(package: &str) -> tempfile::TempDir {
    let root = common::crate_root();
    let template = root.join("examples/docs-repo");
    let dir = tempfile::tempdir().expect("temporary folder");
    for entry in walkdir::WalkDir::new(&template)
        .into_iter()
        .filter_entry(|e| e.file_name() != "target")
    {
        let entry = entry.expect("walk the template");
        let to = dir
            .path()
            .join(entry.path().strip_prefix(&template).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&to).unwrap();
        } else {
            std::fs::copy(entry.path(), &to).unwrap();
        }
    }
    let manifest = dir.path().join("Cargo.toml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let crates = root.join("crates");
    let pointed = text.replace(
        "../skillpack/crates",
        crates.to_str().expect("a UTF-8 workspace path"),
    );
    assert_ne!(
        pointed, text,
        "the template names its skillpack dependencies by path"
    );
    let named = pointed.replace("name = \"acme-docs\"", &format!("name = \"{package}\""));
    assert!(named.contains(&format!("name = \"{package}\"")));
    std::fs::write(&manifest, named).unwrap();
    std::fs::copy(root.join("Cargo.lock"), dir.path().join("Cargo.lock")).unwrap();
    dir
}

/// `cargo build --release` of the copy; the binary is copied out of the shared target dir
/// (the next build there overwrites it) into the copy's folder.
fn build(repo: &Path, package: &str, env: &[(&str, &str)]) -> Result<PathBuf, String> {
    let (output, _lock) = common::cargo_in_variants(&["build", "--release"], repo, env);
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    if !output.status.success() {
        return Err(stderr);
    }
    let binary = repo.join(package);
    common::place_executable(&common::variants_release_dir().join(package), &binary)
        .expect("copy the built binary");
    Ok(binary)
}

fn stdout_of(binary: &Path, args: &[&str]) -> String {
    let output = common::run(binary, args);
    assert!(
        output.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("UTF-8")
}

#[tokio::test(flavor = "multi_thread")]
async fn a_docs_repository_builds_and_serves_its_own_catalog() {
    let repo = copy_template("acme-docs");
    let binary = build(repo.path(), "acme-docs", &[])
        .unwrap_or_else(|e| panic!("the template builds:\n{e}"));

    // The catalog is the template's content, compiled by its build.rs.
    let info: serde_json::Value =
        serde_json::from_str(&stdout_of(&binary, &["info", "--json"])).unwrap();
    assert_eq!(info["skills"], 1, "{info}");
    assert_eq!(info["docs"], 1, "{info}");
    assert_eq!(info["archive_valid"], true, "{info}");
    let fingerprint = stdout_of(&binary, &["fingerprint"]).trim().to_owned();
    assert!(fingerprint.starts_with("blake3:"), "{fingerprint}");

    // MCP over stdio, pinned to its own fingerprint.
    let hex = &fingerprint["blake3:".len()..];
    let client =
        common::connect_with_args(&binary, &["serve", "--expect-fingerprint", &hex[..16]]).await;
    let text = common::read_text(&client, "resource://docs/index.md").await;
    assert!(text.contains("ACME-CAT-404"), "{text}");
    let skills = common::read_text(&client, "resource://catalog/skills_index").await;
    assert!(skills.contains("hello-catalog"), "{skills}");
    let found = client
        .call_tool(
            CallToolRequestParams::new("catalog_search").with_arguments(
                json!({"query": "ACME-CAT-404 record not found"})
                    .as_object()
                    .unwrap()
                    .clone(),
            ),
        )
        .await
        .expect("catalog_search");
    let hits = found.structured_content.expect("structured hits");
    assert_eq!(
        hits["hits"][0]["uri"]
            .as_str()
            .map(|u| u.starts_with("resource://docs/index.md")),
        Some(true),
        "{hits}"
    );
    client.cancel().await.unwrap();

    // A pin on another release refuses to start.
    let refused = common::run(&binary, &["serve", "--expect-fingerprint", "000000000000"]);
    assert!(!refused.status.success());
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains(&hex[..12]),
        "the refusal names the baked fingerprint"
    );

    // Streamable HTTP, as with the main binary.
    let server = HttpServer::start(&binary, &["--expect-fingerprint", &hex[..12]], &[]);
    let health = common::http::request(server.addr, "GET", "/healthz", &[], b"").await;
    assert_eq!(health.status, 200);
    assert!(health.body.contains(&fingerprint), "{}", health.body);
    let http_client = common::http::connect_modern(&server.url(), None).await;
    let read = http_client
        .read_resource(ReadResourceRequestParams::new("resource://docs/index.md"))
        .await
        .expect("read over HTTP");
    assert_eq!(read.contents.len(), 1);
}

#[test]
fn settings_given_in_build_rs_apply_and_the_environment_overrides_them() {
    const PACKAGE: &str = "acme-docs-settings";
    let repo = copy_template(PACKAGE);
    std::fs::write(
        repo.path().join("build.rs"),
        "fn main() {\n    skillpack_build::Bake::new()\n        .skills(\"skills\")\n        .docs(\"docs\")\n        .name(\"acme-docs\")\n        .strict(true)\n        .run();\n}\n",
    )
    .unwrap();
    let binary = build(repo.path(), PACKAGE, &[]).unwrap_or_else(|e| panic!("builds:\n{e}"));
    let info: serde_json::Value =
        serde_json::from_str(&stdout_of(&binary, &["info", "--json"])).unwrap();
    assert_eq!(info["name"], "acme-docs");

    let binary = build(
        repo.path(),
        PACKAGE,
        &[("SKILLPACK_NAME", "acme-docs-staging")],
    )
    .unwrap_or_else(|e| panic!("builds:\n{e}"));
    let info: serde_json::Value =
        serde_json::from_str(&stdout_of(&binary, &["info", "--json"])).unwrap();
    assert_eq!(info["name"], "acme-docs-staging");

    // strict(true) from build.rs: a broken link, only a warning by default, fails the build
    // with the usual `path:line: what — how to fix` line.
    std::fs::write(
        repo.path().join("docs/broken.md"),
        "# Broken\n\nSee [the guide](missing.md).\n",
    )
    .unwrap();
    let error =
        build(repo.path(), PACKAGE, &[]).expect_err("strict mode set in build.rs fails the build");
    assert!(error.contains("docs/broken.md:3:"), "{error}");
    assert!(error.contains("missing.md"), "{error}");
}

#[test]
fn an_unknown_setting_in_build_rs_fails_with_the_known_ones() {
    const PACKAGE: &str = "acme-docs-unknown-setting";
    let repo = copy_template(PACKAGE);
    std::fs::write(
        repo.path().join("build.rs"),
        "fn main() {\n    skillpack_build::Bake::new().set(\"SKILLPACK_DOC_DIR\", \"docs\").run();\n}\n",
    )
    .unwrap();
    let error = build(repo.path(), PACKAGE, &[]).expect_err("an unknown setting fails the build");
    assert!(
        error.contains("`SKILLPACK_DOC_DIR` is not a skillpack build setting"),
        "{error}"
    );
    assert!(error.contains("SKILLPACK_DOCS_DIR"), "{error}");
}

/// The `run:` block of the template's release workflow step with this `id`.
fn workflow_step(repo: &Path, id: &str) -> String {
    let text = std::fs::read_to_string(repo.join(".github/workflows/release.yml")).unwrap();
    let workflow: serde_json::Value = yaml_serde::from_str(&text).expect("the workflow is YAML");
    let steps = workflow["jobs"]["release"]["steps"]
        .as_array()
        .expect("jobs.release.steps");
    steps
        .iter()
        .find(|step| step["id"] == id)
        .and_then(|step| step["run"].as_str())
        .unwrap_or_else(|| panic!("the workflow has no step `{id}` with a `run:`"))
        .to_owned()
}

/// Run a workflow step as GitHub's runner would (`bash -e`), in the repository, building in
/// the shared variants dir under its lock.
fn run_step(repo: &Path, script: &str, env: &[(&str, &str)]) -> std::process::Output {
    let _lock = common::lock_variants();
    let mut command = std::process::Command::new("bash");
    command
        .args(["-e", "-c", script])
        .current_dir(repo)
        .env("CARGO_TARGET_DIR", common::variants_target())
        .env("CARGO_TERM_COLOR", "never");
    for var in skillpack_server::compile::config::ENV_VARS {
        command.env_remove(var);
    }
    for (key, value) in env {
        command.env(key, value);
    }
    command.output().expect("run bash")
}

fn assert_ran(what: &str, output: &std::process::Output) -> String {
    assert!(
        output.status.success(),
        "{what} failed:\n{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The step of the template's release workflow that `uses:` `action`, with its `with:`.
fn workflow_action(repo: &Path, action: &str) -> serde_json::Value {
    let text = std::fs::read_to_string(repo.join(".github/workflows/release.yml")).unwrap();
    let workflow: serde_json::Value = yaml_serde::from_str(&text).expect("the workflow is YAML");
    workflow["jobs"]["release"]["steps"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|step| {
            step["uses"]
                .as_str()
                .is_some_and(|uses| uses.starts_with(action))
        })
        .cloned()
        .unwrap_or_else(|| panic!("the workflow has no step using {action}"))
}

/// The template's release workflow, minus what needs GitHub (downloading the previous
/// release, GitHub's attestation, publishing): its `release` and `verify` steps, exactly as
/// written, signing with a throwaway key given as the repository secret would give it, for
/// a first release and for the next one built against the first one's manifest.
#[test]
fn the_template_releases_as_its_workflow_does_and_chains_releases() {
    if common::external::find(
        "cargo-cyclonedx (cargo install cargo-cyclonedx --version 0.5.9 --locked)",
        &["cargo"],
        &["cyclonedx", "--version"],
    )
    .is_none()
    {
        return;
    }
    let Some(ssh_keygen) = common::external::ssh_keygen() else {
        return;
    };
    const PACKAGE: &str = "acme-docs-release";
    let repo = copy_template(PACKAGE);
    // The publisher's key: made now, never stored; its public half committed as the
    // workflow expects, the private key given as the secret's text.
    let keys = tempfile::tempdir().unwrap();
    let key = keys.path().join("release-signing");
    let made = std::process::Command::new(&ssh_keygen)
        .args([
            "-q",
            "-t",
            "ed25519",
            "-N",
            "",
            "-C",
            "acme-docs release",
            "-f",
        ])
        .arg(&key)
        .output()
        .unwrap();
    assert!(made.status.success(), "{made:?}");
    std::fs::copy(
        keys.path().join("release-signing.pub"),
        repo.path().join("release-signing.pub"),
    )
    .unwrap();
    let secret = std::fs::read_to_string(&key).unwrap();
    let runner_temp = tempfile::tempdir().unwrap();
    let runner_temp = runner_temp.path().to_str().unwrap();
    let attest = workflow_action(repo.path(), "actions/attest-build-provenance@");
    assert_eq!(
        attest["with"]["subject-checksums"], "dist/SHA256SUMS",
        "GitHub's attestation covers every file SHA256SUMS lists: {attest}"
    );
    assert_eq!(
        std::fs::read(repo.path().join("scripts/release")).unwrap(),
        std::fs::read(common::crate_root().join("scripts/release")).unwrap(),
        "the template carries skillpack's scripts/release unchanged"
    );
    // One plain build first: it turns the copied Cargo.lock (skillpack's) into the
    // template's own, which the release's `--locked` build then requires.
    build(repo.path(), PACKAGE, &[]).unwrap_or_else(|e| panic!("the template builds:\n{e}"));

    let release = workflow_step(repo.path(), "release");
    let verify = workflow_step(repo.path(), "verify");
    assert!(release.contains("scripts/release --out dist"), "{release}");
    let first = run_step(
        repo.path(),
        &release,
        &[
            ("SKILLPACK_RELEASE", "2026.11"),
            ("SKILLPACK_PREVIOUS", ""),
            ("SKILLPACK_STRICT", "1"),
            ("SOURCE_DATE_EPOCH", "1793491200"),
            ("SKILLPACK_SIGNING_KEY", &secret),
        ],
    );
    let said = assert_ran("the first release", &first);
    assert!(said.contains("sha256sum -c SHA256SUMS"), "{said}");
    assert!(said.contains("signed by SHA256:"), "{said}");
    let verify_run = run_step(repo.path(), &verify, &[("RUNNER_TEMP", runner_temp)]);
    let verified = assert_ran("verifying the first release", &verify_run);
    assert!(verified.contains(&format!("{PACKAGE}: OK")), "{verified}");
    let both = format!("{verified}{}", String::from_utf8_lossy(&verify_run.stderr));
    assert!(
        both.contains("Good \"skillpack-release\" signature for publisher"),
        "OpenSSH checked the signature: {both}"
    );
    assert!(
        verified.contains("verified: . is the release signed by SHA256:"),
        "{verified}"
    );
    let provenance: serde_json::Value = {
        let dist = repo.path().join("dist");
        let line = std::fs::read_to_string(dist.join("provenance.intoto.jsonl")).unwrap();
        let envelope: serde_json::Value = serde_json::from_str(line.trim()).unwrap();
        use base64::Engine;
        let payload = base64::engine::general_purpose::STANDARD
            .decode(envelope["payload"].as_str().unwrap())
            .unwrap();
        serde_json::from_slice(&payload).unwrap()
    };
    let build = &provenance["predicate"]["buildDefinition"];
    assert_eq!(build["externalParameters"]["release"], "2026.11");
    assert_eq!(
        build["internalParameters"]["target"], "x86_64-unknown-linux-gnu",
        "{provenance}"
    );
    assert!(
        build["internalParameters"]["rustc"]
            .as_str()
            .is_some_and(|v| v.starts_with("rustc ")),
        "{provenance}"
    );
    let lock = common::sha256_hex(&std::fs::read(repo.path().join("Cargo.lock")).unwrap());
    assert_eq!(
        build["resolvedDependencies"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["name"] == "Cargo.lock")
            .map(|d| d["digest"]["sha256"].clone()),
        Some(serde_json::json!(lock)),
        "{provenance}"
    );
    assert!(
        verified.contains(&format!("{PACKAGE}.cdx.json: OK")),
        "the SBOM is in the folder: {verified}"
    );
    assert!(
        verified.contains(&format!("{PACKAGE}-image.tar: OK")),
        "{verified}"
    );
    let dist = repo.path().join("dist");
    let sbom: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dist.join(format!("{PACKAGE}.cdx.json"))).unwrap())
            .unwrap();
    assert_eq!(sbom["bomFormat"], "CycloneDX");
    let components: Vec<&str> = sbom["components"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["name"].as_str())
        .collect();
    assert!(
        components.contains(&"skillpack-server") && components.contains(&"rmcp"),
        "{components:?}"
    );
    assert!(
        !components.contains(&"tempfile"),
        "no dev-dependency in the binary's SBOM"
    );
    let leftovers: Vec<_> = walkdir::WalkDir::new(repo.path())
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().ends_with(".cdx.json"))
        .filter(|e| !e.path().starts_with(&dist))
        .collect();
    assert!(
        leftovers.is_empty(),
        "the SBOM tool's files are cleaned up: {leftovers:?}"
    );

    // The next release, against the first one's manifest, after a content edit.
    std::fs::rename(&dist, repo.path().join("previous")).unwrap();
    let index = repo.path().join("docs/index.md");
    let mut text = std::fs::read_to_string(&index).unwrap();
    text.push_str("\n## Changed in 2026.12\n\nA section added for the next release.\n");
    std::fs::write(&index, text).unwrap();
    let previous = repo.path().join("previous/manifest.json");
    let second = run_step(
        repo.path(),
        &release,
        &[
            ("SKILLPACK_RELEASE", "2026.12"),
            ("SKILLPACK_PREVIOUS", previous.to_str().unwrap()),
            ("SKILLPACK_STRICT", "1"),
            ("SOURCE_DATE_EPOCH", common::RELEASE_EPOCH),
            ("SKILLPACK_SIGNING_KEY", &secret),
        ],
    );
    assert_ran("the second release", &second);
    assert_ran(
        "verifying the second release",
        &run_step(repo.path(), &verify, &[("RUNNER_TEMP", runner_temp)]),
    );
    let changes = std::fs::read_to_string(dist.join("CHANGES.md")).unwrap();
    assert!(changes.contains("2026.11"), "{changes}");
    assert!(
        changes.contains("section `#changed-in-202612` added"),
        "{changes}"
    );
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dist.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["release"]["label"], "2026.12");
    assert_eq!(manifest["history"][0]["label"], "2026.11");
}
