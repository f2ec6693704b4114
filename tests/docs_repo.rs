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
    std::fs::copy(
        common::variants_target().join("release").join(package),
        &binary,
    )
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
