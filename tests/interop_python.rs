//! Interop with a client nobody here wrote: the official MCP Python SDK drives the real
//! binary over stdio and over Streamable HTTP (with a bearer token), on 2025-11-25 and
//! 2026-07-28, through `tests/interop/sdk_transports.py`. Every run must read the same
//! bytes.

use crate::common;

use std::process::Command;

use common::builtin_binary;
use common::http::HttpServer;
use serde_json::Value;

fn run_script(python: &std::path::Path, args: &[&str], env: &[(&str, &str)]) -> Vec<Value> {
    let script = common::crate_root().join("tests/interop/sdk_transports.py");
    let mut command = Command::new(python);
    command.arg(&script).args(args);
    for (key, value) in env {
        command.env(key, value);
    }
    let output = command.output().expect("run python");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "{args:?} failed:\n{stdout}\n{stderr}"
    );
    stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect()
}

#[test]
fn python_sdk_reads_the_same_catalog_over_stdio_and_http_on_both_protocols() {
    let Some(python) = common::external::python_with_mcp() else {
        return;
    };
    let binary = builtin_binary();
    let mut runs = run_script(&python, &["--stdio", binary.to_str().unwrap()], &[]);

    let token = "interop-token-51d2";
    let server = HttpServer::start(&binary, &[], &[("SKILLPACK_AUTH_TOKEN", token)]);
    runs.extend(run_script(
        &python,
        &["--http", &server.url(), "--token-env", "INTEROP_TOKEN"],
        &[("INTEROP_TOKEN", token)],
    ));

    let seen: Vec<(String, String)> = runs
        .iter()
        .map(|run| {
            (
                run["transport"].as_str().unwrap().to_owned(),
                run["protocol"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    for transport in ["stdio", "http"] {
        for protocol in ["2025-11-25", "2026-07-28"] {
            assert!(
                seen.contains(&(transport.to_owned(), protocol.to_owned())),
                "no {transport} run on {protocol}: {seen:?}"
            );
        }
    }
    let first = &runs[0];
    assert!(first["resources"].as_u64().unwrap() > 3);
    for run in &runs {
        for field in [
            "digest",
            "resources",
            "templates",
            "tools",
            "prompts",
            "server",
        ] {
            assert_eq!(
                run[field], first[field],
                "{field} differs: {run} vs {first}"
            );
        }
    }
}
