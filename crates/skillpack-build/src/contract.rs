//! The served contract in one place: URI templates, error codes, cache hints and page
//! sizes. Shared by the build script (which renders them into the capability summary)
//! and the server (which serves them), so the two cannot drift apart.

/// Content never changes inside one binary, so results may be cached for a long time and
/// shared across users. A new release changes `serverInfo.version` and the fingerprint.
pub const CACHE_TTL_MS: u64 = 24 * 60 * 60 * 1000;

/// Largest JSON-RPC message the server reads. A request is a method, a URI and a few
/// arguments; a thousand times the largest real one still bounds what a hostile client can
/// make the server buffer. Longer messages are skipped as they stream in and answered with
/// an Invalid Request error.
pub const MAX_MESSAGE_BYTES: usize = 1024 * 1024;

/// Page size of `resources/list` (native `nextCursor` pagination past it).
pub const RESOURCES_PAGE_SIZE: usize = 100;

/// `skills/list` pages hold at most this many skills…
pub const SKILLS_PAGE_SIZE: usize = 100;
/// …and stop before their manifests exceed this many file entries in total (a page always
/// holds at least one skill, and a skill is never split across pages), so that one page
/// stays a few hundred kilobytes however large the skills are.
pub const SKILLS_PAGE_FILES: usize = 2000;
/// Page size of `resources/directory/read`.
pub const DIRECTORY_PAGE_SIZE: usize = 100;

/// Namespace of skillpack's `_meta` keys.
pub const META_DOCUMENT: &str = "io.skillpack/document";
pub const META_CHUNK: &str = "io.skillpack/chunk";
pub const META_SECTION: &str = "io.skillpack/section";
pub const META_RESOURCE: &str = "io.skillpack/resource";
pub const META_SKILL: &str = "io.skillpack/skill";

pub struct Template {
    pub uri_template: &'static str,
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    pub mime_type: &'static str,
}

pub const TEMPLATES: &[Template] = &[
    Template {
        uri_template: "resource://catalog/changes/{since}",
        name: "changes_since",
        title: "Changes since an earlier release",
        description: "JSON: what changed from an earlier release to this one — documents and skill files added, removed and changed, and for changed documents the sections by anchor, each with the URI to read. `since` is a release label, a fingerprint prefix (12+ hex digits) or a date (YYYY-MM-DD: the latest release on or before it); resource://catalog/changes is the same against the previous release and lists the known releases.",
        mime_type: "application/json",
    },
    Template {
        uri_template: "resource://catalog/skills/{skill_id}",
        name: "skill_record",
        title: "Skill record",
        description: "JSON record of one skill: frontmatter, document URI, references (id, uri, title, size), files and version.",
        mime_type: "application/json",
    },
    Template {
        uri_template: "resource://skills/{skill_id}/document",
        name: "skill_document",
        title: "Skill document (SKILL.md)",
        description: "A skill's SKILL.md exactly as authored. _meta carries its outline and chunk catalog.",
        mime_type: "text/markdown",
    },
    Template {
        uri_template: "resource://skills/{skill_id}/references/{ref_id}",
        name: "skill_reference",
        title: "Skill reference document",
        description: "One reference document of a skill; ref ids are listed in the skill record.",
        mime_type: "text/markdown",
    },
    Template {
        uri_template: "resource://docs/{path*}",
        name: "doc",
        title: "Documentation page",
        description: "One markdown doc by its relative path (e.g. guide/usage.md); paths are listed in resource://catalog/docs_index.",
        mime_type: "text/markdown",
    },
    Template {
        uri_template: "resource://skills/{skill_id}/document/chunks/{chunk_id}",
        name: "skill_document_chunk",
        title: "Chunk of a skill document",
        description: "One precomputed chunk (at most the chunk size) of a SKILL.md; _meta gives next_chunk_uri.",
        mime_type: "text/markdown",
    },
    Template {
        uri_template: "resource://skills/{skill_id}/references/{ref_id}/chunks/{chunk_id}",
        name: "skill_reference_chunk",
        title: "Chunk of a skill reference",
        description: "One precomputed chunk of a reference document; _meta gives next_chunk_uri.",
        mime_type: "text/markdown",
    },
    Template {
        uri_template: "resource://docs/{path*}/chunks/{chunk_id}",
        name: "doc_chunk",
        title: "Chunk of a documentation page",
        description: "One precomputed chunk of a doc; chunk ids are in the doc's _meta chunk catalog.",
        mime_type: "text/markdown",
    },
    Template {
        uri_template: "resource://skills/{skill_id}/document{#anchor}",
        name: "skill_document_section",
        title: "Section of a skill document",
        description: "The section under one heading of a SKILL.md, by its GitHub-style anchor.",
        mime_type: "text/markdown",
    },
    Template {
        uri_template: "resource://skills/{skill_id}/references/{ref_id}{#anchor}",
        name: "skill_reference_section",
        title: "Section of a skill reference",
        description: "The section under one heading of a reference document, by its anchor.",
        mime_type: "text/markdown",
    },
    Template {
        uri_template: "resource://docs/{path*}{#anchor}",
        name: "doc_section",
        title: "Section of a documentation page",
        description: "The section under one heading of a doc, by its GitHub-style anchor (e.g. resource://docs/guide/usage.md#install).",
        mime_type: "text/markdown",
    },
];

pub struct ErrorCode {
    pub code: &'static str,
    pub meaning: &'static str,
}

pub const ERROR_CODES: &[ErrorCode] = &[
    ErrorCode {
        code: "skill_not_found",
        meaning: "No skill has that id; details.candidates lists close ids.",
    },
    ErrorCode {
        code: "reference_not_found",
        meaning: "The skill has no reference with that id; the skill record lists its references.",
    },
    ErrorCode {
        code: "doc_not_found",
        meaning: "No doc at that path; resource://catalog/docs_index lists every path.",
    },
    ErrorCode {
        code: "file_not_found",
        meaning: "The skill has no file at that skill:// path; skills/get or the skill record lists its files.",
    },
    ErrorCode {
        code: "not_a_directory",
        meaning: "resources/directory/read of a URI that is not a skill directory (a file, or nothing); directory URIs are skill://<skill-path>[/<folder>] without a trailing slash.",
    },
    ErrorCode {
        code: "chunk_not_found",
        meaning: "The document has no chunk with that id; its _meta chunk catalog lists them.",
    },
    ErrorCode {
        code: "anchor_not_found",
        meaning: "The document has no heading with that anchor; its _meta outline lists them.",
    },
    ErrorCode {
        code: "release_not_found",
        meaning: "No release this one knows matches `since`; details.candidates lists known labels and fingerprint prefixes, resource://catalog/changes lists the releases.",
    },
    ErrorCode {
        code: "invalid_uri",
        meaning: "Not a URI of this catalog (unknown scheme or family, query string, too long).",
    },
    ErrorCode {
        code: "invalid_path",
        meaning: "A path that traverses (`..`), is absolute, or contains a backslash or NUL.",
    },
    ErrorCode {
        code: "invalid_argument",
        meaning: "A request argument is missing, of the wrong type or out of range.",
    },
    ErrorCode {
        code: "cursor_invalid",
        meaning: "A pagination cursor was not issued by this binary for this listing; restart without it.",
    },
    ErrorCode {
        code: "content_damaged",
        meaning: "The binary's own baked content does not decode (the binary was damaged after it was built): nothing the request can change; rebuild it or fetch the release again, and check it with `skillpack info`.",
    },
];

/// The tools (the fallback for clients that handle resources poorly). The capability
/// summary lists them; `cmd::tools::TOOLS` implements exactly these (a test checks).
pub struct ToolSummary {
    pub name: &'static str,
    pub purpose: &'static str,
}

pub const TOOL_LIST: &str = "catalog_list";
pub const TOOL_READ: &str = "catalog_read";
pub const TOOL_SEARCH: &str = "catalog_search";

pub const TOOLS: &[ToolSummary] = &[
    ToolSummary {
        name: TOOL_LIST,
        purpose: "List skills (default) or docs, one compact record each, filtered by tag or prefix; or with kind \"changes\" (optional `since`: a release label, fingerprint prefix or date) what changed since an earlier release, each entry with the URIs to read; house pagination has_more/next_cursor.",
    },
    ToolSummary {
        name: TOOL_READ,
        purpose: "Read any catalog URI (also skill://…). Default detail \"summary\": outline, first chunk and chunk catalog; chunk_id reads one chunk; detail \"full\" the whole body.",
    },
    ToolSummary {
        name: TOOL_SEARCH,
        purpose: "Ranked full-text search over every section of every skill, reference and doc: `query` (a question or keywords, \"quoted phrases\"), optional `kind` (skills, docs, all); each hit names the section_uri and chunk_uri to read, with a verbatim snippet; house pagination has_more/next_cursor.",
    },
];

/// The built-in prompts. Every skill is also a prompt named after its id, so a skill may
/// not be named like one of these (`compile::skills::RESERVED_PROMPT_NAMES`).
pub struct PromptSummary {
    pub name: &'static str,
    pub purpose: &'static str,
}

pub const PROMPT_ORIENT: &str = "orient";
pub const PROMPT_USE_SKILL: &str = "use-skill";
pub const PROMPT_FIND_SKILL: &str = "find-skill";
pub const PROMPT_WHATS_NEW: &str = "whats-new";

pub const PROMPTS: &[PromptSummary] = &[
    PromptSummary {
        name: PROMPT_ORIENT,
        purpose: "Overview of the catalog and where to start; optional `topic` narrows it.",
    },
    PromptSummary {
        name: PROMPT_USE_SKILL,
        purpose: "`skill_id` (completed): the skill's SKILL.md embedded, with the instruction to follow it.",
    },
    PromptSummary {
        name: PROMPT_FIND_SKILL,
        purpose: "`task` (free text): the skills that best match it by search over skill documents and references, best first, each with its description, document URI and best matching section.",
    },
    PromptSummary {
        name: PROMPT_WHATS_NEW,
        purpose: "Optional `since` (completed: a release label, fingerprint prefix or date; omitted means the previous release): what changed since then, grouped by skill and doc, with the section and document URIs to read — only those.",
    },
];

/// Default page size of `catalog_search`, and its maximum. Three: on the tuning split,
/// searched with an agent's rephrasings as `also`, the fourth and fifth hits named an
/// answering section the first three lacked for none of the 104 questions (90 had one in
/// the first three, 90 in the first five), and each hit costs an agent about 600 bytes.
pub const SEARCH_DEFAULT_LIMIT: usize = 3;
/// The most section text one page of search results carries (`section_text`, first page
/// only): the first hit's section when it is at most this many bytes, then the runners-up's
/// small sections ([`SEARCH_SMALL_SECTION_BYTES`]) while the page's carried text stays within
/// it. With the default three hits such an answer stays under about 6 KB, the read budget of
/// one question. An agent whose first hit is right reads that section anyway (its bytes plus
/// about 490 bytes of `catalog_read` envelope, and a turn); carried, a wrong first hit wastes
/// its bytes. On the tuning split, searched with an agent's rephrasings as `also`
/// (`scripts/agent-trial sizes`), carrying up to 4 KiB (and runners-up up to 1 KiB)
/// answered 71 of 104 questions in one call against 50 with the earlier rule (2 KiB, or
/// 3.5 KiB on a clear lead), at about the same bytes read (search and read: median 5.3
/// against 5.2 KB, p90 10.4 against 9.8 KB); held-out: 29 of 48 against 26, 6.0 against 5.8
/// KB; with the phrasings' vote down the outline, 76 of 104. A 6 KiB page answered more
/// (88, replayed by `benches/trials/experiments/page_budgets.py`) but put the search answer
/// alone at 7.3 KB at p90, against 6.2.
pub const SEARCH_SECTION_TEXT_BYTES: usize = 4096;
/// A hit after the first carries its section's text when the section is at most this many
/// bytes and fits in what is left of the page's [`SEARCH_SECTION_TEXT_BYTES`]: when the
/// answering section ranks second or third it is usually a short sibling of the first, and
/// carrying it spares the agent a call for a few hundred bytes. On the tuning split
/// (replayed, as above) 1 KiB took one call from 68 to 76 of 104 (512 bytes: 71; 2 KiB: 76
/// again, with more bytes read).
pub const SEARCH_SMALL_SECTION_BYTES: usize = 1024;
pub const SEARCH_MAX_LIMIT: usize = 50;
/// Longer queries are refused (the engine cuts at this many bytes).
pub const SEARCH_MAX_QUERY_BYTES: usize = 1024;
/// The most hits one query can page through; past it, a narrower query is the answer.
pub const SEARCH_MAX_RESULTS: usize = 200;

/// Default page size of `catalog_list`, and its maximum.
pub const LIST_DEFAULT_LIMIT: usize = 25;
pub const LIST_MAX_LIMIT: usize = 100;

/// Budgets of `catalog_read`'s default `summary` (bytes of JSON). A document's summary is
/// its outline with section sizes and URIs, cut to `SUMMARY_OUTLINE_BYTES` (plus a skill's
/// references, 3 KB at most), and its text only when the document is one chunk (at most
/// `SUMMARY_TEXT_BYTES` of it) or no larger than the outline budget: the agent picks the
/// section to read from the outline, so a summary stays near 4 KB whatever the size.
pub const SUMMARY_TEXT_BYTES: usize = 8 * 1024;
pub const SUMMARY_OUTLINE_BYTES: usize = 4 * 1024;
/// The chunk catalog of a section read: the chunks that cover it.
pub const SUMMARY_CHUNKS_BYTES: usize = 5 * 1024;

/// `_meta["anthropic/maxResultSizeChars"]` on every tool: Claude Code's ceiling, so that a
/// deliberate `detail: "full"` is not cut at its default 25k-token limit.
pub const MAX_RESULT_SIZE_CHARS: u64 = 500_000;
