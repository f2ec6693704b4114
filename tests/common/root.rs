//! Running a binary alone in an empty root: a temporary folder that holds the executable
//! and nothing else (no loader, no libraries, no `/proc`, no `/dev`, no `/etc`), entered as
//! `/` with `chroot`. As root (CI) that is plain `chroot`; elsewhere `unshare
//! --map-root-user chroot`, where user namespaces are allowed.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::external::on_ci;

/// `program` found on this process's `PATH`: the commands below clear the environment of
/// what they start, `PATH` included, so they name their programs by absolute path.
pub fn on_path(program: &str) -> String {
    std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|dir| dir.join(program))
        .find(|path| path.is_file())
        .map(|path| path.to_string_lossy().into_owned())
        .unwrap_or_else(|| program.to_owned())
}

/// How to enter a root here, or `None` (after saying why) when this machine cannot.
pub fn chroot_prefix() -> Option<Vec<String>> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        return Some(vec![on_path("chroot")]);
    }
    let unshare = ["unshare", "--user", "--map-root-user"];
    let works = Command::new(unshare[0])
        .args(&unshare[1..])
        .args(["chroot", "/", "true"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    if works {
        return Some(
            [
                on_path("unshare"),
                "--user".into(),
                "--map-root-user".into(),
                on_path("chroot"),
            ]
            .into(),
        );
    }
    if on_ci() {
        panic!(
            "the empty-root tests need root or user namespaces under SKILLPACK_CI=1 (CI runs as root)"
        );
    }
    eprintln!(
        "SKIP: cannot chroot here (not root, and `unshare --user --map-root-user` is refused)"
    );
    None
}

/// Whether this process is root (needed to run as another user inside a root).
pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// A folder with one executable at its top, to be entered as `/`.
pub struct EmptyRoot {
    dir: tempfile::TempDir,
    name: String,
    prefix: Vec<String>,
}

impl EmptyRoot {
    /// `binary` copied alone into a new folder, or `None` when this machine cannot chroot.
    pub fn with_binary(binary: &Path) -> Option<EmptyRoot> {
        let prefix = chroot_prefix()?;
        let dir = tempfile::tempdir().expect("a temporary folder");
        let name = binary
            .file_name()
            .and_then(|n| n.to_str())
            .expect("a binary name")
            .to_owned();
        super::place_executable(binary, &dir.path().join(&name)).expect("copy the binary");
        Some(EmptyRoot { dir, name, prefix })
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Every entry of the root, to show it holds the binary alone.
    pub fn entries(&self) -> Vec<PathBuf> {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(self.dir.path())
            .expect("read the root")
            .map(|e| e.expect("an entry").path())
            .collect();
        entries.sort();
        entries
    }

    /// `chroot ROOT /<binary>`, arguments to be added.
    pub fn command(&self) -> Command {
        let mut command = Command::new(&self.prefix[0]);
        command
            .args(&self.prefix[1..])
            .arg(self.dir.path())
            .arg(format!("/{}", self.name))
            // The environment of an empty container: no HOME or locale to find.
            .env_clear()
            .env("RUST_LOG", "info,rmcp=warn");
        command
    }

    pub fn tokio_command(&self) -> tokio::process::Command {
        tokio::process::Command::from(self.command())
    }
}
