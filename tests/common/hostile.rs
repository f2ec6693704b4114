//! Hostile input shared by the stdio and HTTP tests, so both transports face the same cases.

/// URIs that try to leave their root, are not catalog URIs, or are absurdly long, each
/// with the `machine_code` of the precise error the catalog answers with.
pub fn hostile_uris() -> Vec<(String, &'static str)> {
    let long = |n: usize| "x".repeat(n);
    vec![
        ("resource://docs/../etc/passwd".into(), "invalid_path"),
        (
            "resource://docs/%2e%2e/%2e%2e/etc/passwd".into(),
            "invalid_path",
        ),
        ("resource://docs/%2E%2E%2Fsecret.md".into(), "invalid_path"),
        (
            "resource://docs/guide/..%2F..%2F..%2Fetc%2Fpasswd".into(),
            "invalid_path",
        ),
        // Double encoding decodes once: a folder literally named `%2e%2e`, which is absent.
        (
            "resource://docs/%252e%252e/%252e%252e/etc/passwd".into(),
            "doc_not_found",
        ),
        ("resource://docs//etc/passwd".into(), "invalid_path"),
        ("resource://docs/%2Fetc%2Fpasswd".into(), "invalid_path"),
        ("file:///etc/passwd".into(), "invalid_uri"),
        ("/etc/passwd".into(), "invalid_uri"),
        ("C:\\Windows\\win.ini".into(), "invalid_uri"),
        (
            "resource://docs/..\\..\\windows\\win.ini".into(),
            "invalid_path",
        ),
        ("resource://docs/a%5C..%5Cb.md".into(), "invalid_path"),
        ("resource://docs/index.md%00.png".into(), "invalid_path"),
        ("resource://docs/index.md\u{0}".into(), "invalid_uri"),
        ("skill://../../etc/passwd".into(), "invalid_path"),
        (
            "skill://agent-friendly-mcp/%2e%2e/%2e%2e/etc/passwd".into(),
            "invalid_path",
        ),
        (
            "resource://skills/..%2F..%2Fetc/document".into(),
            "invalid_path",
        ),
        (
            "resource://skills/agent-friendly-mcp/references/..%2F..%2Fx".into(),
            "invalid_path",
        ),
        (
            format!("resource://docs/{}.md", long(100_000)),
            "invalid_uri",
        ),
        (
            format!("resource://catalog/skills/{}", long(4000)),
            "skill_not_found",
        ),
        (
            format!("resource://skills/{}/document", long(4000)),
            "skill_not_found",
        ),
        (
            format!(
                "resource://skills/agent-friendly-mcp/references/{}",
                long(4000)
            ),
            "reference_not_found",
        ),
        (
            format!("resource://docs/index.md/chunks/{}", long(4000)),
            "chunk_not_found",
        ),
        (
            format!("resource://docs/index.md#{}", long(4000)),
            "anchor_not_found",
        ),
        (
            format!("resource://docs/{}.md", "%41".repeat(1300)),
            "doc_not_found",
        ),
    ]
}

/// A process's resident and peak memory (`VmRSS`, `VmHWM`) in KiB, from `/proc` (Linux).
pub fn memory_kib(pid: u32) -> (u64, u64) {
    let status =
        std::fs::read_to_string(format!("/proc/{pid}/status")).expect("read /proc/<pid>/status");
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap_or_else(|| panic!("{name} missing in /proc status"))
    };
    (field("VmRSS:"), field("VmHWM:"))
}
