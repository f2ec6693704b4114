//! A damaged binary (issue 27): one compressed frame of the content store with its bytes
//! flipped, in a copy of the built-in binary. `skillpack info` refuses it, naming what is
//! damaged and how to recover; a read of the damaged document answers `content_damaged`
//! (a JSON-RPC error, a tool error) and the server goes on serving everything else.

use crate::common;

use std::path::PathBuf;

use rmcp::model::ReadResourceRequestParams;
use serde_json::{Value, json};
use skillpack_build::compile::{self, Config};
use skillpack_build::model::Codec;

/// The built-in binary with the middle bytes of `document`'s first frame flipped, and that
/// document's URI. The blob the build embedded is found in the binary by its bytes: the
/// same content compiles to the same blob.
fn damaged_copy(dir: &std::path::Path) -> (PathBuf, String, String) {
    let root = common::crate_root();
    let output = compile::compile(&Config::for_dirs(root.join("skills"), root.join("docs")))
        .expect("the built-in content compiles");
    let mut binary = std::fs::read(common::builtin_binary()).expect("read the binary");
    let blob = &output.content;
    let at = binary
        .windows(blob.len())
        .position(|window| window == blob.as_slice())
        .expect("the binary embeds the content blob its content compiles to");
    let catalog = &output.catalog;
    let frame_of =
        |d: &skillpack_build::model::Document| catalog.store.frames[d.content.first_frame as usize];
    let (damaged, intact) = {
        let mut compressed = catalog
            .documents
            .iter()
            .filter(|d| frame_of(d).parts().0 == Some(Codec::ZstdDictionary));
        (compressed.next().unwrap(), compressed.next().unwrap())
    };
    let frame = frame_of(damaged);
    let middle = at + frame.offset as usize + frame.parts().1 / 2;
    for byte in &mut binary[middle..middle + 8] {
        *byte ^= 0x5a;
    }
    // Written here, but run only as the copy `install` makes (see `place_executable`).
    let bytes = dir.join("skillpack-damaged.bytes");
    std::fs::write(&bytes, &binary).unwrap();
    let path = dir.join("skillpack-damaged");
    common::place_executable(&bytes, &path).unwrap();
    (path, damaged.uri.clone(), intact.uri.clone())
}

#[tokio::test]
async fn a_damaged_frame_is_refused_by_info_and_answered_with_content_damaged() {
    let dir = tempfile::tempdir().unwrap();
    let (binary, damaged, intact) = damaged_copy(dir.path());

    // `info` validates every frame: it fails, says which document and what to do.
    let info = common::run(&binary, &["info"]);
    let stderr = String::from_utf8_lossy(&info.stderr);
    assert!(!info.status.success(), "info must fail: {stderr}");
    assert!(
        stderr.contains(&damaged) && stderr.contains("is damaged") && stderr.contains("rebuild"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    let json = common::run(&binary, &["info", "--json"]);
    let summary: Value = serde_json::from_slice(&json.stdout).expect("info --json prints JSON");
    assert_eq!(summary["archive_valid"], false);
    assert!(
        summary["archive_error"]
            .as_str()
            .unwrap()
            .contains(&damaged),
        "{summary}"
    );

    // Serving: the damaged document is an error that says what happened; the rest is served.
    let client = common::connect(&binary).await;
    let error = client
        .read_resource(ReadResourceRequestParams::new(damaged.as_str()))
        .await
        .expect_err("a damaged document cannot be read");
    let rmcp::ServiceError::McpError(error) = error else {
        panic!("{error:?}")
    };
    let data = error.data.expect("the error envelope");
    assert_eq!(data["machine_code"], "content_damaged", "{data}");
    assert!(
        data["human_message"]
            .as_str()
            .unwrap()
            .contains("fetch the release again"),
        "{data}"
    );
    let tool = common::tools::call(
        &client,
        "catalog_read",
        json!({"uri": damaged, "detail": "full"}),
    )
    .await;
    assert!(tool.is_error);
    assert_eq!(
        tool.structured["code"], "content_damaged",
        "{}",
        tool.structured
    );
    assert!(!common::read_text(&client, &intact).await.is_empty());
    // Still serving after both.
    assert!(
        !common::read_text(&client, "resource://catalog/capabilities")
            .await
            .is_empty()
    );
    client.cancel().await.unwrap();
}
