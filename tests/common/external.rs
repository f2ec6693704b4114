//! Tools the CI installs (Python with the MCP SDK, nginx): tests that need one skip with
//! a message on a developer machine that lacks it, and fail under CI (`SKILLPACK_CI=1`,
//! set by `.ci/run`, or `CI=true`), where a missing tool means a broken install step.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Command, Stdio};

/// The first of `candidates` that runs `probe_args` successfully.
pub fn find(what: &str, candidates: &[&str], probe_args: &[&str]) -> Option<PathBuf> {
    let found = candidates.iter().find(|candidate| {
        Command::new(candidate)
            .args(probe_args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|status| status.success())
    });
    match found {
        Some(path) => Some(PathBuf::from(path)),
        None if on_ci() => {
            panic!("{what} is required under SKILLPACK_CI=1 but was not found ({candidates:?})")
        }
        None => {
            eprintln!("SKIP: {what} is not installed here; .ci/run installs it");
            None
        }
    }
}

pub fn on_ci() -> bool {
    std::env::var("SKILLPACK_CI").is_ok_and(|v| v == "1")
        || std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

/// A Python with the pinned MCP SDK importable: `$SKILLPACK_PYTHON`, the `.venv` that
/// `tests/interop/setup.sh` creates, or `python3` from `PATH`.
pub fn python_with_mcp() -> Option<PathBuf> {
    let configured = std::env::var("SKILLPACK_PYTHON").ok();
    let venv = super::crate_root().join(".venv/bin/python");
    let mut candidates: Vec<&str> = configured.iter().map(String::as_str).collect();
    candidates.extend([venv.to_str().unwrap_or("python3"), "python3"]);
    find(
        "Python with the `mcp` SDK (tests/interop/setup.sh installs it into .venv)",
        &candidates,
        &["-c", "import mcp, httpx2, jsonschema"],
    )
}

pub fn nginx() -> Option<PathBuf> {
    find(
        "nginx (apt-get install nginx)",
        &["nginx", "/usr/sbin/nginx"],
        &["-v"],
    )
}

/// Debian's skopeo: reads and copies OCI images (the image tests).
pub fn skopeo() -> Option<PathBuf> {
    find(
        "skopeo (apt-get install skopeo)",
        &["skopeo"],
        &["--version"],
    )
}

/// Debian's umoci: unpacks an OCI image into a runtime bundle (the image tests).
pub fn umoci() -> Option<PathBuf> {
    find("umoci (apt-get install umoci)", &["umoci"], &["--version"])
}

/// OpenSSH's ssh-keygen (Debian's openssh-client): makes the tests' throwaway signing keys
/// and checks release signatures with `-Y verify`, as a host does.
pub fn ssh_keygen() -> Option<PathBuf> {
    // ssh-keygen has no option that succeeds without a key: ask the shell whether it is there.
    find(
        "ssh-keygen (apt-get install openssh-client)",
        &["sh"],
        &["-c", "command -v ssh-keygen"],
    )
    .map(|_| PathBuf::from("ssh-keygen"))
}

/// A Python with securesystemslib and in-toto-attestation importable (the `.venv` that
/// `tests/interop/setup.sh` makes): checks the provenance envelope and statement.
pub fn python_with_in_toto() -> Option<PathBuf> {
    let configured = std::env::var("SKILLPACK_PYTHON").ok();
    let venv = super::crate_root().join(".venv/bin/python");
    let mut candidates: Vec<&str> = configured.iter().map(String::as_str).collect();
    candidates.extend([venv.to_str().unwrap_or("python3"), "python3"]);
    find(
        "Python with securesystemslib and in-toto-attestation (tests/interop/setup.sh installs them into .venv)",
        &candidates,
        &[
            "-c",
            "import securesystemslib.dsse, in_toto_attestation.v1.statement, cryptography",
        ],
    )
}

/// Debian's podman: `podman load` of the release image (the image tests).
pub fn podman() -> Option<PathBuf> {
    find(
        "podman (apt-get install podman)",
        &["podman"],
        &["--version"],
    )
}

/// Debian's docker.io: the daemon `dockerd` and its client, for `docker load`.
pub fn dockerd() -> Option<PathBuf> {
    find(
        "dockerd (apt-get install docker.io)",
        &["dockerd", "/usr/sbin/dockerd", "/usr/bin/dockerd"],
        &["--version"],
    )
}

/// The Docker client that comes with [`dockerd`].
pub fn docker() -> Option<PathBuf> {
    find(
        "docker (apt-get install docker.io)",
        &["/usr/bin/docker", "docker"],
        &["--version"],
    )
}

/// Debian's promtool (package `prometheus`): lints an exposition, checks rules and configs.
pub fn promtool() -> Option<PathBuf> {
    find(
        "promtool (apt-get install prometheus)",
        &["promtool", "/usr/bin/promtool"],
        &["--version"],
    )
}

/// Debian's Prometheus server (package `prometheus`): the metrics tests start their own on
/// loopback, with a temporary config and data folder.
pub fn prometheus() -> Option<PathBuf> {
    find(
        "prometheus (apt-get install prometheus)",
        &["prometheus", "/usr/bin/prometheus"],
        &["--version"],
    )
}

/// A Python with PyJWT and cryptography importable (tests/interop/requirements.txt), for
/// minting OAuth access tokens with a library nobody here wrote.
pub fn python_with_pyjwt() -> Option<PathBuf> {
    let configured = std::env::var("SKILLPACK_PYTHON").ok();
    let venv = super::crate_root().join(".venv/bin/python");
    let mut candidates: Vec<&str> = configured.iter().map(String::as_str).collect();
    candidates.extend([venv.to_str().unwrap_or("python3"), "python3"]);
    find(
        "Python with PyJWT and cryptography (tests/interop/setup.sh installs them into .venv)",
        &candidates,
        &["-c", "import jwt, cryptography, mcp"],
    )
}
