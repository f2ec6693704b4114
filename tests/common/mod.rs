//! Shared by the integration tests: spawn the real `skillpack` binary and talk MCP to it
//! through rmcp's client; build binaries over other content (the corpora, fixtures).
#![allow(dead_code)]

pub mod external;
pub mod hostile;
pub mod http;
pub mod raw;
pub mod root;
pub mod tools;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use rmcp::model::{ProtocolVersion, ReadResourceRequestParams, ResourceContents};
use rmcp::service::{ClientLifecycleMode, RunningService, serve_client_with_lifecycle};
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};

pub type Client = RunningService<RoleClient, ()>;

pub fn crate_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The binary built from the crate's own `skills/` and `docs/`.
pub fn builtin_binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_skillpack"))
}

fn command(binary: &Path, args: &[&str]) -> tokio::process::Command {
    let mut command = tokio::process::Command::new(binary);
    command.args(args);
    command.env("RUST_LOG", "warn");
    command
}

/// Spawn `binary` (serving stdio) and connect with the `initialize` handshake.
pub async fn connect(binary: &Path) -> Client {
    connect_with_args(binary, &[]).await
}

/// Spawn `binary` with command-line arguments and connect with `initialize`.
pub async fn connect_with_args(binary: &Path, args: &[&str]) -> Client {
    let transport = TokioChildProcess::new(command(binary, args)).expect("spawn skillpack");
    ().serve(transport).await.expect("initialize")
}

/// Spawn `binary` and connect with the stateless 2026-07-28 lifecycle (`server/discover`,
/// per-request `_meta`).
pub async fn connect_modern(binary: &Path) -> Client {
    let transport = TokioChildProcess::new(command(binary, &[])).expect("spawn skillpack");
    serve_client_with_lifecycle(
        (),
        transport,
        ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        },
    )
    .await
    .expect("discover")
}

/// Read a URI that must hold exactly one text content.
pub async fn read_text(client: &Client, uri: &str) -> String {
    let result = client
        .read_resource(ReadResourceRequestParams::new(uri))
        .await
        .unwrap_or_else(|e| panic!("read {uri}: {e}"));
    assert_eq!(result.contents.len(), 1, "{uri}");
    match &result.contents[0] {
        ResourceContents::TextResourceContents { text, .. } => text.clone(),
        other => panic!("{uri}: expected text, got {other:?}"),
    }
}

/// `../shared/corpora`, or `None` after printing why tests that need it are skipped.
pub fn corpora() -> Option<PathBuf> {
    let dir = crate_root().join("../shared/corpora");
    if dir.join("anthropic-skills/skills").is_dir() && dir.join("rust-book/src").is_dir() {
        Some(dir)
    } else {
        eprintln!(
            "SKIP: {} is absent; the tests over the public corpora need ../shared beside the clone",
            dir.display()
        );
        None
    }
}

/// The binary built over the corpora (anthropic-skills + the Rust book), or `None` (with
/// a skip message) when `../shared` is absent.
pub fn corpora_binary() -> Option<PathBuf> {
    let corpora = corpora()?;
    let skills = corpora.join("anthropic-skills/skills");
    let docs = corpora.join("rust-book/src");
    Some(
        variant(
            "corpora",
            &[
                ("SKILLPACK_SKILLS_DIR", skills.to_str().unwrap()),
                ("SKILLPACK_DOCS_DIR", docs.to_str().unwrap()),
            ],
        )
        .unwrap_or_else(|e| panic!("building the corpora variant failed:\n{e}")),
    )
}

/// Where content variants are built. One target directory for all variants, next to the
/// main one: dependencies compile once, only this crate rebuilds when the content changes,
/// and the binary under test (in `target/<triple>/release/`) is never overwritten.
fn variants_dir() -> PathBuf {
    crate_root().join("target/variants")
}

/// Run `cargo build --release` of the binary with `env` set, in the variants target dir.
/// Serialized across test threads and processes with a file lock.
pub fn build_with_env(env: &[(&str, &str)]) -> (Output, std::fs::File) {
    cargo_in_variants(BUILD_THE_BINARY, &crate_root(), env)
}

const BUILD_THE_BINARY: &[&str] = &["build", "--release", "--bin", "skillpack"];

/// Run cargo with `args` in `cwd`, in the variants target dir, holding its lock (returned:
/// keep it while using what was built). `SKILLPACK_*` build settings are cleared, then
/// `env` is set.
pub fn cargo_in_variants(
    args: &[&str],
    cwd: &Path,
    env: &[(&str, &str)],
) -> (Output, std::fs::File) {
    let lock = lock_variants();
    (cargo_locked(args, cwd, env), lock)
}

/// Take the variants dir's lock: builds there are serialized across test threads and
/// processes (and with `scripts/bench` and `scripts/conformance`, which take it too). Hold
/// it while running anything that builds there (a script given `CARGO_TARGET_DIR`).
pub fn lock_variants() -> std::fs::File {
    let dir = variants_dir();
    std::fs::create_dir_all(&dir).expect("create target/variants");
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(dir.join("build.lock"))
        .expect("open the variants lock");
    lock.lock().expect("lock the variants dir");
    lock
}

/// Run cargo in the variants dir; the caller holds its lock.
fn cargo_locked(args: &[&str], cwd: &Path, env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO"));
    command
        .args(args)
        .arg("--target-dir")
        .arg(variants_dir())
        .current_dir(cwd)
        .env("CARGO_TERM_COLOR", "never");
    for var in skillpack_server::compile::config::ENV_VARS {
        command.env_remove(var);
    }
    for (key, value) in env {
        // cc makes cargo recompile every C dependency, and all above them, whenever
        // SOURCE_DATE_EPOCH changes: minutes per build in CI. The same date under a name
        // only skillpack reads costs nothing.
        assert_ne!(
            *key, "SOURCE_DATE_EPOCH",
            "give a test build its release date as SKILLPACK_RELEASE_DATE"
        );
        command.env(key, value);
    }
    command.output().expect("run cargo")
}

/// The variants target dir (`target/variants`), where tests build other packages and
/// content: dependencies compile once there.
pub fn variants_target() -> PathBuf {
    variants_dir()
}

/// Where release binaries land inside a target dir: `<triple>/release` when the build names
/// its target (the static default of `.cargo/config.toml`), `release` otherwise. Read off
/// the binary under test, which cargo placed by the same configuration, so that the tests
/// follow whatever the configuration says instead of repeating it: cargo marks both the
/// target dir and a target's folder in it with a `CACHEDIR.TAG`, so the binary's
/// `release` folder sits in a target's folder when the two folders above it are marked.
pub fn release_subdir() -> PathBuf {
    let binary = builtin_binary();
    let release = binary.parent().expect("the binary's folder");
    let above = release.parent().expect("the target dir");
    let marked = |dir: &Path| dir.join("CACHEDIR.TAG").is_file();
    match (above.file_name(), above.parent()) {
        (Some(triple), Some(target_dir)) if marked(above) && marked(target_dir) => {
            Path::new(triple).join("release")
        }
        _ => PathBuf::from("release"),
    }
}

/// The folder of release binaries built in the variants target dir.
pub fn variants_release_dir() -> PathBuf {
    variants_dir().join(release_subdir())
}

/// Build the binary over other content and copy it to `target/variants/bin/<name>/`.
///
/// Several tests ask for the same variants, and each build of a different variant
/// recompiles this crate in the shared variants dir. A copy is therefore reused when it was
/// built from the same settings, the same content (its catalog fingerprint, computed
/// in-process) and the same code (the binary under test, which cargo rebuilds on any source
/// change).
pub fn variant(name: &str, env: &[(&str, &str)]) -> Result<PathBuf, String> {
    let target = variants_dir().join("bin").join(name);
    let copy = target.join("skillpack");
    let stamp = target.join("stamp");
    let key = variant_key(env);
    let fresh = || match (&key, std::fs::read_to_string(&stamp)) {
        (Some(key), Ok(previous)) => *key == previous && copy.is_file(),
        _ => false,
    };
    if fresh() {
        return Ok(copy);
    }
    let _lock = lock_variants();
    // Tests run in parallel: another one may have built this variant while this one waited.
    if fresh() {
        return Ok(copy);
    }
    let output = cargo_locked(BUILD_THE_BINARY, &crate_root(), env);
    if !output.status.success() {
        return Err(String::from_utf8_lossy(&output.stderr).into_owned());
    }
    let built = variants_release_dir().join("skillpack");
    std::fs::create_dir_all(&target).map_err(|e| e.to_string())?;
    let staging = target.join("skillpack.tmp");
    place_executable(&built, &staging)?;
    std::fs::rename(&staging, &copy).map_err(|e| e.to_string())?;
    match key {
        Some(key) => std::fs::write(&stamp, key).map_err(|e| e.to_string())?,
        None => {
            let _ = std::fs::remove_file(&stamp);
        }
    }
    Ok(copy)
}

/// What a variant binary depends on, or `None` when the content does not compile (then
/// the build runs and reports it).
fn variant_key(env: &[(&str, &str)]) -> Option<String> {
    let root = crate_root();
    let config =
        skillpack_server::compile::Config::from_env(&root, env!("CARGO_PKG_VERSION"), |key| {
            env.iter()
                .find(|(k, _)| *k == key)
                .map(|(_, v)| v.to_string())
        })
        .ok()?;
    let fingerprint = skillpack_server::compile::compile(&config)
        .ok()?
        .catalog
        .fingerprint;
    // The fingerprint leaves out the history: the previous manifest is part of the key.
    let previous = config
        .previous
        .as_ref()
        .map(|path| std::fs::read(path).map(|bytes| blake3::hash(&bytes).to_hex().to_string()))
        .transpose()
        .ok()?;
    let code = std::fs::metadata(builtin_binary()).ok()?;
    let modified = code
        .modified()
        .ok()?
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?;
    Some(format!(
        "{env:?}\n{fingerprint}\n{previous:?}\n{}:{}\n",
        code.len(),
        modified.as_nanos()
    ))
}

/// The release binary: the shipped build (no dev-dependency features), dated and labelled
/// as `scripts/release` would build it, from the crate's own content. The empty-root and
/// release-folder tests run it.
pub fn release_binary() -> PathBuf {
    variant(
        "release",
        &[
            ("SKILLPACK_RELEASE", RELEASE_LABEL),
            ("SKILLPACK_RELEASE_DATE", RELEASE_EPOCH),
        ],
    )
    .unwrap_or_else(|e| panic!("building the release binary failed:\n{e}"))
}

pub const RELEASE_LABEL: &str = "2026.12";
/// 2026-12-01T00:00:00Z.
pub const RELEASE_EPOCH: &str = "1796083200";

/// Lowercase hex sha256, as `sha256sum` prints it.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Put a copy of the executable `from` at `to`, written by another process (`install`).
///
/// A file this process writes is open for writing for a moment, and a child another test
/// thread forks in that moment holds the descriptor until it execs; running the file then
/// fails with "Text file busy" (ETXTBSY). Written by `install`, the descriptor is never in
/// this process, so no child of it can hold one.
pub fn place_executable(from: &Path, to: &Path) -> Result<(), String> {
    let output = Command::new("install")
        .args(["-m", "0755", "-T"])
        .arg(from)
        .arg(to)
        .output()
        .map_err(|e| format!("install {}: {e}", to.display()))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(format!(
            "install {} {}: {}",
            from.display(),
            to.display(),
            String::from_utf8_lossy(&output.stderr)
        ))
    }
}

/// Run the binary with arguments and return its output.
pub fn run(binary: &Path, args: &[&str]) -> Output {
    Command::new(binary)
        .args(args)
        .env("RUST_LOG", "warn")
        .output()
        .expect("run skillpack")
}
