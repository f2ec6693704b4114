//! What a host team receives: the release folder (`skillpack release`) and the OCI image
//! (`skillpack image`), checked with tools nobody here wrote — coreutils' `sha256sum -c`,
//! Debian's `skopeo` and `umoci` — and the unpacked image root run as the image says (its
//! user, its binary) and spoken to over MCP. The same binary gives the same folder and the
//! same image digest from anywhere; `scripts/reproducible` shows the binary itself is the
//! same from two checkouts.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::http::{HttpServer, connect_legacy};

/// The release binary copied to `dir/skillpack` (the name the image's entrypoint uses).
fn placed(dir: &Path) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let binary = dir.join("skillpack");
    common::place_executable(&common::release_binary(), &binary).unwrap();
    binary
}

fn stdout_of(command: &mut Command) -> String {
    let output = command.output().expect("run");
    assert!(
        output.status.success(),
        "{command:?} failed: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

fn release(binary: &Path, out: &Path, sbom: &Path) -> std::process::Output {
    Command::new(binary)
        .args(["release", "--out"])
        .arg(out)
        .arg("--sbom")
        .arg(sbom)
        .args(["--revision", "0123456789abcdef0123456789abcdef01234567"])
        .output()
        .unwrap()
}

#[test]
fn the_release_folder_checks_out_and_is_the_same_from_two_paths() {
    let work = tempfile::tempdir().unwrap();
    let sbom = work.path().join("skillpack.cdx.json");
    std::fs::write(&sbom, r#"{"bomFormat":"CycloneDX"}"#).unwrap();
    let first = placed(&work.path().join("a"));
    let second = placed(&work.path().join("elsewhere/deeper"));
    let (out_a, out_b) = (work.path().join("out-a"), work.path().join("b/out"));
    for (binary, out) in [(&first, &out_a), (&second, &out_b)] {
        let output = release(binary, out, &sbom);
        assert!(
            output.status.success(),
            "release: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let said = String::from_utf8_lossy(&output.stdout);
        assert!(said.contains("sha256sum -c SHA256SUMS"), "{said}");
        // What a host runs on the folder it received.
        let checked = stdout_of(
            Command::new("sha256sum")
                .arg("-c")
                .arg("SHA256SUMS")
                .current_dir(out),
        );
        assert_eq!(checked.lines().count(), 5, "{checked}");
        assert!(
            checked.lines().all(|line| line.ends_with(": OK")),
            "{checked}"
        );
    }
    let sums = |out: &Path| std::fs::read_to_string(out.join("SHA256SUMS")).unwrap();
    assert_eq!(sums(&out_a), sums(&out_b), "the same folder from two paths");
    let listed = sums(&out_a);
    let names: Vec<&str> = listed
        .lines()
        .map(|line| line.split_once("  ").unwrap().1)
        .collect();
    assert_eq!(
        names,
        [
            "CHANGES.md",
            "manifest.json",
            "skillpack",
            "skillpack-image.tar",
            "skillpack.cdx.json"
        ]
    );

    // Each file is what the binary says of itself.
    let folder_binary = out_a.join("skillpack");
    assert_eq!(
        std::fs::read(&folder_binary).unwrap(),
        std::fs::read(&first).unwrap()
    );
    let manifest = stdout_of(Command::new(&folder_binary).args(["manifest", "--with-binary"]));
    assert_eq!(
        std::fs::read_to_string(out_a.join("manifest.json")).unwrap(),
        manifest
    );
    let recorded: serde_json::Value = serde_json::from_str(&manifest).unwrap();
    let sha = common::sha256_hex(&std::fs::read(&folder_binary).unwrap());
    assert_eq!(recorded["binary"]["sha256"], format!("sha256:{sha}"));
    assert_eq!(recorded["release"]["label"], common::RELEASE_LABEL);
    let changes = stdout_of(Command::new(&folder_binary).arg("changes"));
    assert_eq!(
        std::fs::read_to_string(out_a.join("CHANGES.md")).unwrap(),
        changes
    );

    // A release never writes over an earlier one.
    let again = release(&first, &out_a, &sbom);
    assert!(!again.status.success());
    let error = String::from_utf8_lossy(&again.stderr);
    assert!(error.contains("already holds files"), "{error}");
    stdout_of(
        Command::new("sha256sum")
            .arg("-c")
            .arg("SHA256SUMS")
            .current_dir(&out_a),
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_image_is_read_by_skopeo_and_umoci_and_its_root_serves_mcp() {
    let (Some(skopeo), Some(umoci)) = (common::external::skopeo(), common::external::umoci())
    else {
        return;
    };
    let work = tempfile::tempdir().unwrap();
    let binary = placed(&work.path().join("bin"));
    let (layout, archive) = (work.path().join("layout"), work.path().join("image.tar"));
    let said = stdout_of(
        Command::new(&binary)
            .args(["image", "--layout"])
            .arg(&layout)
            .arg("--archive")
            .arg(&archive),
    );
    let (digest, tag) = said.trim().split_once(' ').expect("`<digest> <tag>`");
    assert_eq!(tag, common::RELEASE_LABEL);
    let fingerprint = stdout_of(Command::new(&binary).arg("fingerprint"));

    // skopeo reads the archive, and sees what the binary said.
    let inspected: serde_json::Value = serde_json::from_str(&stdout_of(
        Command::new(&skopeo)
            .arg("inspect")
            .arg(format!("oci-archive:{}", archive.display())),
    ))
    .unwrap();
    assert_eq!(inspected["Digest"], digest, "{inspected}");
    assert_eq!(inspected["Architecture"], "amd64");
    assert_eq!(inspected["Os"], "linux");
    assert_eq!(
        inspected["Created"], "2026-12-01T00:00:00Z",
        "from the release date it was built with"
    );
    let labels = &inspected["Labels"];
    assert_eq!(labels["io.skillpack.fingerprint"], fingerprint.trim());
    assert_eq!(labels["io.skillpack.release"], common::RELEASE_LABEL);
    assert!(
        labels["org.opencontainers.image.version"]
            .as_str()
            .is_some_and(|v| v.starts_with("0.1.0+")),
        "{labels}"
    );
    assert_eq!(
        inspected["Layers"].as_array().map(Vec::len),
        Some(1),
        "one layer"
    );
    let config: serde_json::Value = serde_json::from_str(&stdout_of(
        Command::new(&skopeo)
            .args(["inspect", "--config"])
            .arg(format!("oci:{}:{tag}", layout.display())),
    ))
    .unwrap();
    assert_eq!(config["config"]["User"], "65532:65532", "{config}");

    // umoci unpacks the layout into a runtime bundle: a root holding the binary alone.
    let bundle = work.path().join("bundle");
    let mut unpack = Command::new(&umoci);
    unpack.arg("unpack");
    if !common::root::is_root() {
        unpack.arg("--rootless");
    }
    stdout_of(
        unpack
            .arg("--image")
            .arg(format!("{}:{tag}", layout.display()))
            .arg(&bundle),
    );
    let runtime: serde_json::Value =
        serde_json::from_slice(&std::fs::read(bundle.join("config.json")).unwrap()).unwrap();
    assert_eq!(runtime["process"]["user"]["uid"], 65532, "{runtime}");
    assert_eq!(
        runtime["process"]["args"],
        serde_json::json!(["/skillpack", "serve", "--http", "0.0.0.0:8080"])
    );
    let rootfs = bundle.join("rootfs");
    let entries: Vec<_> = std::fs::read_dir(&rootfs)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(entries, ["skillpack"], "the image holds the binary alone");
    assert_eq!(
        std::fs::read(rootfs.join("skillpack")).unwrap(),
        std::fs::read(&binary).unwrap()
    );

    // Run the unpacked root as the image's user, as a runtime would (on a loopback port
    // instead of 0.0.0.0:8080), and speak MCP to it.
    if !common::root::is_root() {
        eprintln!("SKIP: running the unpacked image as its user needs root (CI runs as root)");
        return;
    }
    let mut command = Command::new(common::root::on_path("chroot"));
    command
        .arg("--userspec=65532:65532")
        .arg(&rootfs)
        .arg("/skillpack")
        .env_clear();
    let server = HttpServer::start_command(command, "127.0.0.1:0", &[], &[]);
    let client = connect_legacy(&server.url(), None).await;
    let text = common::read_text(&client, "resource://catalog/capabilities").await;
    assert!(text.contains(fingerprint.trim()), "{text}");
    client.cancel().await.unwrap();
    let log = server.log();
    assert!(
        log.contains("enforced on every thread") || log.contains("sandbox: unavailable"),
        "{log}"
    );
}
