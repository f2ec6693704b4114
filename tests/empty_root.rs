//! The release binary is self-contained: its ELF headers name no interpreter and no shared
//! library, it links none of glibc's name service, and copied alone into an empty root (no
//! loader, no libraries, no `/proc`, no `/dev`, no `/etc`) it serves MCP over stdio and over
//! HTTP, on an address and on `localhost`, with its sandbox covering every thread.

use crate::common;

use std::path::Path;
use std::process::Stdio;

use common::http::{HttpServer, connect_legacy, connect_modern};
use common::root::EmptyRoot;
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, ReadResourceRequestParams};
use rmcp::transport::TokioChildProcess;
use serde_json::json;
use skillpack_release::elf::{Linkage, check_static};
use tokio::io::AsyncReadExt;

/// The sandbox line a server logs when it restricted every thread.
const EVERY_THREAD: &str = "enforced on every thread";

#[test]
fn the_binaries_are_static_and_use_no_name_service() {
    for binary in [common::builtin_binary(), common::release_binary()] {
        let bytes = std::fs::read(&binary).unwrap();
        let linkage = Linkage::read(&bytes).unwrap();
        assert_eq!(linkage.interpreter, None, "{}", binary.display());
        assert!(
            linkage.needed.is_empty(),
            "{}: {linkage:?}",
            binary.display()
        );
        assert!(
            linkage.has_symbols,
            "{}: stripped, so its name-service use cannot be checked",
            binary.display()
        );
        assert!(
            linkage.name_service.is_empty(),
            "{} links glibc's name service: {:?}",
            binary.display(),
            linkage.name_service
        );
        assert_eq!(linkage.architecture, "amd64");
        check_static(&binary).unwrap();
    }
}

/// The check fails on what it must fail on: a C program linked the ordinary way (an
/// interpreter and libc.so.6), and the same program linked statically, which carries
/// glibc's `getaddrinfo` (the name service).
#[test]
fn a_binary_with_a_loader_libraries_or_the_name_service_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("lookup.c");
    std::fs::write(
        &source,
        "#include <netdb.h>\nint main(void) { struct addrinfo *found; return getaddrinfo(\"example.com\", 0, 0, &found); }\n",
    )
    .unwrap();
    let compile = |output: &Path, extra: &[&str]| {
        let result = std::process::Command::new("cc")
            .args(extra)
            .arg(&source)
            .arg("-o")
            .arg(output)
            .output()
            .expect("run cc (gcc is on every machine that builds skillpack: blake3 and mimalloc need it)");
        assert!(
            result.status.success(),
            "cc failed: {}",
            String::from_utf8_lossy(&result.stderr)
        );
    };

    let dynamic = dir.path().join("dynamic");
    compile(&dynamic, &[]);
    let linkage = Linkage::read(&std::fs::read(&dynamic).unwrap()).unwrap();
    assert!(linkage.interpreter.is_some(), "{linkage:?}");
    assert!(
        linkage.needed.iter().any(|lib| lib.starts_with("libc.so")),
        "{linkage:?}"
    );
    let error = check_static(&dynamic).unwrap_err();
    assert!(error.contains("dynamically linked"), "{error}");
    assert!(error.contains("needs shared libraries: libc.so"), "{error}");

    let resolving = dir.path().join("static");
    compile(&resolving, &["-static"]);
    let linkage = Linkage::read(&std::fs::read(&resolving).unwrap()).unwrap();
    assert_eq!(
        (linkage.interpreter.as_ref(), linkage.needed.len()),
        (None, 0)
    );
    assert!(
        linkage.name_service.iter().any(|f| f == "getaddrinfo"),
        "{linkage:?}"
    );
    let error = check_static(&resolving).unwrap_err();
    assert!(
        error.contains("links glibc's name service (getaddrinfo"),
        "{error}"
    );
}

/// The Landlock ABI this kernel offers (0: none), from `info --json` outside the root.
fn landlock_abi(binary: &Path) -> i64 {
    let output = common::run(binary, &["info", "--json"]);
    let info: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    info["sandbox"]["abi"].as_i64().unwrap_or(0)
}

/// The sandbox line of a server's log says it covers every thread (where the kernel has
/// Landlock at all).
fn assert_every_thread(abi: i64, log: &str) {
    if abi == 0 {
        assert!(log.contains("sandbox: unavailable"), "{log}");
    } else {
        assert!(
            log.contains(EVERY_THREAD),
            "the sandbox must cover every thread:\n{log}"
        );
    }
}

#[test]
fn info_runs_alone_in_an_empty_root() {
    let binary = common::release_binary();
    let Some(root) = EmptyRoot::with_binary(&binary) else {
        return;
    };
    assert_eq!(root.entries().len(), 1, "the root holds the binary alone");
    let output = root.command().args(["info", "--json"]).output().unwrap();
    assert!(
        output.status.success(),
        "info in an empty root: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let info: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(info["archive_valid"], true, "{info}");
    assert_eq!(info["release"]["label"], common::RELEASE_LABEL, "{info}");
    if landlock_abi(&binary) > 0 {
        assert_eq!(info["sandbox"]["verified"], true, "{info}");
    }
    let text = root.command().arg("info").output().unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("fingerprint:  blake3:"), "{text}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_stdio_session_runs_alone_in_an_empty_root() {
    let binary = common::release_binary();
    let Some(root) = EmptyRoot::with_binary(&binary) else {
        return;
    };
    let (transport, stderr) = TokioChildProcess::builder(root.tokio_command())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn the binary in its root");
    let mut stderr = stderr.expect("stderr");
    let client = match ().serve(transport).await {
        Ok(client) => client,
        Err(error) => {
            let mut log = String::new();
            let _ = stderr.read_to_string(&mut log).await;
            panic!("initialize over stdio in an empty root: {error}\nserver stderr:\n{log}");
        }
    };
    let info = client.peer_info().expect("server info");
    let server = info.server_info.as_ref().expect("serverInfo");
    assert!(server.version.starts_with("0.1.0+"), "{server:?}");
    let tools = client.list_all_tools().await.unwrap();
    assert!(
        tools.iter().any(|t| t.name == "catalog_search"),
        "{tools:?}"
    );
    let doc = client
        .read_resource(ReadResourceRequestParams::new("resource://docs/index.md"))
        .await
        .expect("read a doc");
    assert_eq!(doc.contents.len(), 1);
    let found = client
        .call_tool(
            CallToolRequestParams::new("catalog_search").with_arguments(
                json!({"query": "pin a release"})
                    .as_object()
                    .unwrap()
                    .clone(),
            ),
        )
        .await
        .unwrap();
    let hits = found.structured_content.expect("structured hits");
    assert!(
        hits["hits"].as_array().is_some_and(|h| !h.is_empty()),
        "{hits}"
    );
    client.cancel().await.unwrap();
    let mut log = String::new();
    stderr.read_to_string(&mut log).await.unwrap();
    assert_every_thread(landlock_abi(&binary), &log);
}

#[tokio::test(flavor = "multi_thread")]
async fn http_serves_alone_in_an_empty_root_on_an_address_and_on_localhost() {
    let binary = common::release_binary();
    let Some(root) = EmptyRoot::with_binary(&binary) else {
        return;
    };
    let abi = landlock_abi(&binary);
    for (listen, host) in [("127.0.0.1:0", "127.0.0.1"), ("localhost:0", "localhost")] {
        let server = HttpServer::start_command(root.command(), listen, &[], &[]);
        let url = format!("http://{host}:{}/mcp", server.addr.port());
        // A random session id for the legacy handshake: getrandom(2), not /dev/urandom,
        // which the root does not have.
        let legacy = connect_legacy(&url, None).await;
        let text = common::read_text(&legacy, "resource://catalog/skills_index").await;
        assert!(text.contains("agent-friendly-mcp"), "{listen}: {text}");
        legacy.cancel().await.unwrap();
        let modern = connect_modern(&url, None).await;
        let tools = modern.list_all_tools().await.unwrap();
        assert!(!tools.is_empty(), "{listen}");
        modern.cancel().await.unwrap();
        assert_every_thread(abi, &server.log());
    }
}
