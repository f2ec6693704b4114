//! The stdio transport's line classifier on arbitrary bytes: never panics; an answer to a
//! line is a JSON-RPC error whose message is bounded however long the line; and a line
//! that is a response or a notification is never answered.
#![no_main]

use libfuzzer_sys::fuzz_target;
use skillpack_server::transport::framing::{Incoming, classify};

fuzz_target!(|data: &[u8]| {
    match classify(data) {
        Incoming::Answer(error, _id) => {
            assert!((-32700..=-32600).contains(&error.code.0), "{error:?}");
            assert!(error.message.len() < 1024, "{} bytes", error.message.len());
            if let Ok(serde_json::Value::Object(map)) = serde_json::from_slice(data) {
                let is_response = !map.contains_key("method")
                    && (map.contains_key("result") || map.contains_key("error"));
                assert!(!is_response, "answered a response");
                let is_notification =
                    map.get("method").is_some_and(|m| m.is_string()) && !map.contains_key("id");
                assert!(!is_notification, "answered a notification");
            }
        }
        Incoming::Message(_) | Incoming::Ignore(_) => {}
    }
});
