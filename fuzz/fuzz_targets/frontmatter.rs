//! The frontmatter parser on arbitrary text: never panics or hangs (libFuzzer's timeout),
//! the body starts on a character boundary after the frontmatter, and the parsed values
//! stay within the expansion budget (no alias bomb gets through).
#![no_main]

use libfuzzer_sys::fuzz_target;
use skillpack_server::compile::frontmatter;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    match frontmatter::parse(&text) {
        Ok(Some(fm)) => {
            assert!(fm.body_offset <= text.len());
            assert!(text.is_char_boundary(fm.body_offset));
            let size = serde_json::Value::Object(fm.fields.clone())
                .to_string()
                .len();
            // JSON spelling adds quotes, commas and escapes to the counted bytes.
            assert!(
                size <= 8 * frontmatter::expansion_budget(text.len()),
                "{size} bytes of frontmatter from {} bytes",
                text.len()
            );
            for key in fm.fields.keys() {
                let line = fm.line_of(key);
                assert!(line >= 1 && line <= text.lines().count() + 1);
            }
        }
        Ok(None) => {}
        Err(error) => {
            assert!(error.line >= 1);
            assert!(!error.message.is_empty() && !error.fix.is_empty());
        }
    }
});
