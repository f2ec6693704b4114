//! `uri::parse` on arbitrary input: never panics; whatever it accepts is a plain relative
//! path (no traversal, no backslash, no control characters, no empty segment); and the
//! canonical spelling of what it accepts parses back to the same canonical spelling.
#![no_main]

use libfuzzer_sys::fuzz_target;
use skillpack_server::uri::{self, Family, MAX_URI_BYTES};

fn assert_plain(value: &str, allow_slash: bool) {
    assert!(!value.starts_with('/'), "absolute: {value:?}");
    for segment in value.split('/') {
        assert!(!segment.is_empty(), "empty segment: {value:?}");
        assert!(segment != "." && segment != "..", "traversal: {value:?}");
        assert!(!segment.contains('\\'), "backslash: {value:?}");
        assert!(!segment.chars().any(char::is_control), "control: {value:?}");
    }
    assert!(
        allow_slash || !value.contains('/'),
        "slash in an id: {value:?}"
    );
}

fuzz_target!(|data: &[u8]| {
    let Ok(raw) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(parsed) = uri::parse(raw) else {
        return;
    };
    match &parsed.family {
        Family::Doc { path } | Family::SkillPath { path } => assert_plain(path, true),
        Family::SkillRecord { skill_id } | Family::SkillDocument { skill_id } => {
            assert_plain(skill_id, false)
        }
        Family::Reference { skill_id, ref_id } => {
            assert_plain(skill_id, false);
            assert_plain(ref_id, false);
        }
        Family::Changes { since: Some(since) } => assert_plain(since, false),
        Family::Capabilities
        | Family::SkillsIndex
        | Family::DocsIndex
        | Family::Changes { since: None } => {}
    }
    if let Some(chunk) = &parsed.chunk {
        assert!(!chunk.is_empty());
    }
    let canonical = parsed.canonical();
    if canonical.len() <= MAX_URI_BYTES {
        let again = uri::parse(&canonical)
            .unwrap_or_else(|e| panic!("canonical {canonical:?} of {raw:?} does not parse: {e:?}"));
        assert_eq!(
            again.canonical(),
            canonical,
            "canonical form is not stable for {raw:?}"
        );
    }
});
