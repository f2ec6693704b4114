//! The catalog compiler: content folders in, a [`Catalog`] and a content blob out.
//!
//! `build.rs` runs it once per build; tests run it directly on any folder. One pass:
//!
//! 1. [`walk`] both roots (sorted, path rules applied);
//! 2. [`skills`]: find skill folders, validate frontmatter, assign files and references;
//! 3. for every markdown document: [`frontmatter`], [`markdown`] scan, outline, summary,
//!    [`chunk`]s;
//! 4. [`links`]: resolve relative links to catalog URIs;
//! 5. bake: content blob (identical files stored once), sha256/blake3 digests, versions,
//!    the fingerprint, directories, pre-rendered JSON ([`render`]), the perfect-hash URI
//!    index and the full-text search index ([`index`]).
//!
//! Every problem is collected into a [`Report`]; any error fails the whole compile.

pub mod chunk;
pub mod completions;
pub mod config;
pub mod date;
pub mod diag;
pub mod emit;
pub mod frontmatter;
pub mod history;
pub mod index;
pub mod links;
pub mod markdown;
pub mod render;
pub mod skills;
pub mod startup;
pub mod store;
pub mod walk;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use serde_json::Value;
use sha2::{Digest, Sha256};

pub use config::Config;
pub use diag::{Diagnostic, Report, Severity};

use crate::model::{
    CONTRACT_VERSION, Catalog, Directory, DirectoryChild, DocKind, Document, LinkTarget, Reference,
    Skill, SkillFile, Stored, Target, Totals, UriIndex,
};
use crate::uri;
use links::{Resolution, RootKind, Targets};
use skills::SkillSource;
use walk::SourceFile;

/// Longest summary served, in characters.
pub const SUMMARY_CHARS: usize = 300;

/// A compiled catalog.
pub struct Output {
    pub catalog: Catalog,
    /// File bytes referenced by the catalog's spans.
    pub content: Vec<u8>,
    /// Warnings (the compile succeeded).
    pub report: Report,
    /// `serverInfo.version`: `<package version>+<first 12 hex digits of the fingerprint>`.
    pub server_version: String,
    /// How the docs root was read: its site generator, and the files that are not pages.
    pub site: SiteReport,
}

/// How the docs root was read (`skillpack-check` and the build print it).
#[derive(Debug, Clone, Default)]
pub struct SiteReport {
    pub flavor: String,
    /// Why this flavor applies (`` `mkdocs.yml` in the docs folder's parent ``).
    pub why: String,
    /// Docs-relative paths of the pages served.
    pub pages: Vec<String>,
    /// Docs files that are not pages, each with the rule that says so.
    pub skipped: Vec<(String, crate::site::Skip)>,
    /// Files read from outside the docs root (includes, the generator's config): the
    /// build reruns when they change.
    pub read_outside: Vec<std::path::PathBuf>,
}

impl SiteReport {
    /// What the archive keeps of it, for `skillpack info`.
    pub fn to_model(&self) -> crate::model::DocsSite {
        let mut counts: BTreeMap<String, u32> = BTreeMap::new();
        for (_, skip) in &self.skipped {
            *counts.entry(skip.kind().to_owned()).or_default() += 1;
        }
        crate::model::DocsSite {
            flavor: self.flavor.clone(),
            why: self.why.clone(),
            pages: self.pages.len() as u32,
            not_pages: counts.into_iter().collect(),
        }
    }

    /// `mkdocs (`mkdocs.yml` in the docs folder's parent): 96 pages; 2 partial, 1 excluded`.
    pub fn summary(&self) -> String {
        let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
        for (_, skip) in &self.skipped {
            *counts.entry(skip.kind()).or_default() += 1;
        }
        let mut line = format!("{} ({}): {} pages", self.flavor, self.why, self.pages.len());
        if !counts.is_empty() {
            let parts: Vec<String> = counts.iter().map(|(k, n)| format!("{n} {k}")).collect();
            line.push_str(&format!("; not pages: {}", parts.join(", ")));
        }
        line
    }
}

impl Output {
    /// The catalog as the archive the server reads in place.
    pub fn catalog_bytes(&self) -> Vec<u8> {
        self.archive().into_vec()
    }

    /// The bytes of a document or skill file (`stored`: its `content`), decoded from the
    /// content store. For tests and tools; the server reads frames in place.
    pub fn read(&self, stored: Stored) -> std::io::Result<Vec<u8>> {
        store::decode(&self.content, &self.catalog.store, stored)
    }

    /// A document's tables (outline, chunk table, links, `previous`), decoded from the end
    /// of its last content frame as the server decodes them.
    pub fn tables(
        &self,
        document: &crate::model::Document,
    ) -> std::io::Result<crate::tables::DocumentTables> {
        let bytes = store::decode_tail(
            &self.content,
            &self.catalog.store,
            document.content,
            document.tables as usize,
        )?;
        crate::tables::decode(&bytes, document.content.len)
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
    }

    /// The archive in a buffer aligned for reading it in place.
    pub fn archive(&self) -> rkyv::util::AlignedVec {
        rkyv::to_bytes::<rkyv::rancor::Error>(&self.catalog).unwrap_or_else(|error| {
            unreachable!("serializing plain owned data cannot fail: {error}")
        })
    }
}

/// One markdown document being compiled.
struct DocWork {
    uri: String,
    kind: DocKind,
    root: RootKind,
    /// Path relative to its root.
    rel: String,
    /// Path in the model (docs: `rel`; skill files: relative to the skill folder).
    path: String,
    name: String,
    shown: String,
    text: String,
    hash: blake3::Hash,
    title: String,
    summary: String,
    outline: Vec<crate::model::Heading>,
    chunks: Vec<crate::model::Chunk>,
    raw_links: Vec<markdown::RawLink>,
    links: Vec<links::ResolvedLink>,
}

pub fn compile(config: &Config) -> Result<Output, Report> {
    let mut report = Report::new(config.strict);
    let skill_files = walk::walk(&config.skills, &mut report);
    let doc_files = walk::walk(&config.docs, &mut report);

    // Skills.
    let layout = skills::layout(&config.skills, &skill_files, &mut report);
    let mut sources: Vec<SkillSource> = (0..layout.dirs.len())
        .filter_map(|i| skills::load(&config.skills, &skill_files, &layout, i, &mut report))
        .collect();
    sources.sort_by(|a, b| a.id.cmp(&b.id).then(a.dir.cmp(&b.dir)));
    for pair in sources.windows(2) {
        if pair[0].id == pair[1].id {
            report.error(
                config.skills.display(&format!("{}/SKILL.md", pair[1].dir)),
                None,
                format!(
                    "skill id `{}` is already used by {}",
                    pair[1].id,
                    config.skills.display(&format!("{}/SKILL.md", pair[0].dir))
                ),
                "skill ids are unique across the catalog: rename one of the skills (name and folder)",
            );
        }
    }
    let sizes = layout.sizes(&skill_files);
    for source in &sources {
        let (count, bytes) = layout
            .dir_index
            .get(&source.dir)
            .map_or((0, 0), |&i| sizes[i]);
        check_limits(&config.skills, source, count, bytes, &mut report);
    }

    // Documents: skill documents and references first, in skill order, then docs.
    let mut docs: Vec<DocWork> = Vec::new();
    for (skill_index, source) in sources.iter().enumerate() {
        let file = &skill_files[source.skill_md];
        if let Some(mut work) = document(
            config,
            RootKind::Skills,
            file,
            uri::skill_document(&source.id),
            DocKind::Skill {
                skill: skill_index as u32,
            },
            source.id.clone(),
            &mut report,
        ) {
            work.path = skills::SKILL_MD.to_owned();
            work.summary = markdown::summarize(&source.description, SUMMARY_CHARS);
            docs.push(work);
        }
        for (ref_index, (ref_id, file_index)) in source.references.iter().enumerate() {
            let file = &skill_files[*file_index];
            if let Some(mut work) = document(
                config,
                RootKind::Skills,
                file,
                uri::reference(&source.id, ref_id),
                DocKind::Reference {
                    skill: skill_index as u32,
                    reference: ref_index as u32,
                },
                ref_id.clone(),
                &mut report,
            ) {
                work.path = file.rel[source.dir.len() + 1..].to_owned();
                docs.push(work);
            }
        }
    }
    let mut site = load_site(config, &mut report);
    site.set_files(doc_files.iter().map(|f| f.rel.as_str()));
    let site_sources =
        crate::site::Sources::new(&config.docs.dir, &site.detection.boundary, &doc_files);
    let mut site_report = SiteReport {
        flavor: site.flavor().name().to_owned(),
        why: site.detection.why.clone(),
        ..SiteReport::default()
    };
    let mut page_frontmatter: HashMap<String, serde_json::Map<String, Value>> = HashMap::new();
    for file in &doc_files {
        let text = std::str::from_utf8(&file.bytes).ok();
        // Only a generator's rules read the frontmatter here (`document_text` parses the
        // served text's own): a plain tree parses each doc's YAML once, as before.
        let fm = text
            .filter(|_| site.generator.is_some() && crate::site::is_page_source(&file.rel, true))
            .and_then(|text| frontmatter::parse(text).ok().flatten());
        match site.role(&file.rel, fm.as_ref().map(|fm| &fm.fields)) {
            crate::site::Role::Page => {}
            crate::site::Role::Skip(crate::site::Skip::SiteFile) if site.generator.is_none() => {
                report.warning(
                    config.docs.display(&file.rel),
                    None,
                    "is not a markdown file, so it is not served",
                    "docs are *.md files; move other files out of the docs folder (or into a skill, where every file is served)",
                );
                continue;
            }
            crate::site::Role::Skip(skip) => {
                site_report.skipped.push((file.rel.clone(), skip));
                continue;
            }
        }
        site_report.pages.push(file.rel.clone());
        let Some(text) = text else {
            // Not UTF-8: `document` says so.
            if let Some(work) = document(
                config,
                RootKind::Docs,
                file,
                uri::doc(&file.rel),
                DocKind::Doc,
                file.rel.clone(),
                &mut report,
            ) {
                docs.push(work);
            }
            continue;
        };
        let served = if site.generator.is_some() {
            let page = crate::site::Page {
                rel: &file.rel,
                text,
                body_offset: fm
                    .as_ref()
                    .map_or_else(|| frontmatter::body_offset(text), |fm| fm.body_offset),
                frontmatter: fm.as_ref().map(|fm| &fm.fields),
            };
            let (served, problems) = crate::site::page::serve(&site, &page, &site_sources);
            let shown = config.docs.display(&file.rel);
            for problem in problems {
                if problem.error {
                    report.error(&shown, problem.line, problem.message, problem.fix);
                } else {
                    report.warning(&shown, problem.line, problem.message, problem.fix);
                }
            }
            Some(served)
        } else {
            None
        };
        let served_text = served.as_deref().unwrap_or(text);
        if let Some(mut work) = document_text(
            config,
            RootKind::Docs,
            &file.rel,
            served_text,
            uri::doc(&file.rel),
            DocKind::Doc,
            file.rel.clone(),
            &mut report,
        ) {
            if let Some(generator) = &site.generator {
                if let Some(title) = generator.title(&file.rel, fm.as_ref().map(|fm| &fm.fields)) {
                    work.title = title;
                }
                if let Some(locale) = site.locale_of(&file.rel)
                    && site.locale == crate::site::LocaleChoice::All
                {
                    work.title = format!("{} [{locale}]", work.title);
                }
            }
            docs.push(work);
        }
        if let Some(fm) = fm {
            page_frontmatter.insert(file.rel.clone(), fm.fields);
        }
    }
    site_report.read_outside = site_sources.read_outside();
    if let Some(config_file) = &site.detection.config {
        site_report.read_outside.push(config_file.clone());
    }

    let url_index = site.generator.as_ref().map(|_| {
        let pages: HashSet<&str> = site_report.pages.iter().map(String::as_str).collect();
        crate::site::links::UrlIndex::build(
            &site,
            site_report
                .pages
                .iter()
                .map(|rel| (rel.as_str(), page_frontmatter.get(rel))),
            doc_files
                .iter()
                .map(|f| f.rel.as_str())
                .filter(|rel| !pages.contains(rel)),
        )
    });
    let site_resolver = |from: &str, path: &str| {
        url_index
            .as_ref()
            .and_then(|index| index.resolve(&site, from, path))
    };
    resolve_links(
        &sources,
        &skill_files,
        &layout,
        &mut docs,
        url_index
            .as_ref()
            .map(|_| &site_resolver as links::SiteResolver<'_>),
        site.generator.as_deref(),
        &mut report,
    );
    let previous = config
        .previous
        .as_deref()
        .and_then(|path| history::load(path, &config.name, &mut report));

    if report.has_errors() {
        report.sort();
        return Err(report);
    }
    let nav = site.settings().nav;
    let mut output = bake(
        config,
        &sources,
        &skill_files,
        &layout,
        docs,
        previous.as_ref(),
        &nav,
        report,
    );
    output.catalog.docs_site = site_report.to_model();
    output.site = site_report;
    Ok(output)
}

/// `count` files and `bytes` bytes are under the skill's folder, nested skills included.
fn check_limits(
    root: &walk::Root,
    source: &SkillSource,
    count: usize,
    bytes: u64,
    report: &mut Report,
) {
    let shown = root.display(&format!("{}/SKILL.md", source.dir));
    if count > skills::MAX_SKILL_FILES {
        report.error(
            &shown,
            None,
            format!(
                "skill `{}` has {count} files; a skill may have at most {} (SKILL.md included)",
                source.id,
                skills::MAX_SKILL_FILES
            ),
            "split it into several skills or remove files agents do not need",
        );
    }
    if bytes > skills::MAX_SKILL_BYTES {
        report.error(
            &shown,
            None,
            format!(
                "skill `{}` holds {bytes} bytes; a skill may hold at most {} (16 MiB)",
                source.id,
                skills::MAX_SKILL_BYTES
            ),
            "move large assets out of the skill or split it",
        );
    }
}

/// The docs root's site generator: detected, or named by `SKILLPACK_DOCS_FLAVOR`.
fn load_site(config: &Config, report: &mut Report) -> crate::site::Site {
    if !config.docs.dir.is_dir() {
        return crate::site::Site::plain();
    }
    match crate::site::detect(&config.docs.dir, config.docs_flavor.as_deref()) {
        Ok(mut detection) => {
            detection.release_epoch = config.epoch;
            crate::site::Site::load(
                detection,
                config.docs_exclude.clone(),
                config.docs_locale.clone(),
                report,
            )
        }
        Err(message) => {
            report.error(
                "SKILLPACK_DOCS_FLAVOR",
                None,
                message,
                "unset it to detect the generator from the files beside the docs folder",
            );
            crate::site::Site::plain()
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn document(
    config: &Config,
    root_kind: RootKind,
    file: &SourceFile,
    uri: String,
    kind: DocKind,
    name: String,
    report: &mut Report,
) -> Option<DocWork> {
    let root = match root_kind {
        RootKind::Skills => &config.skills,
        RootKind::Docs => &config.docs,
    };
    let text = match std::str::from_utf8(&file.bytes) {
        Ok(text) => text,
        Err(error) => {
            let (line, message) = diag::not_utf8(&file.bytes, error);
            report.error(
                root.display(&file.rel),
                Some(line),
                message,
                "save the file as UTF-8; markdown documents are served as text",
            );
            return None;
        }
    };
    document_text(config, root_kind, &file.rel, text, uri, kind, name, report)
}

/// A document from the text it serves (for a page of a generator's tree, the rendered
/// text; otherwise the file as authored).
#[allow(clippy::too_many_arguments)]
fn document_text(
    config: &Config,
    root_kind: RootKind,
    rel: &str,
    text: &str,
    uri: String,
    kind: DocKind,
    name: String,
    report: &mut Report,
) -> Option<DocWork> {
    let root = match root_kind {
        RootKind::Skills => &config.skills,
        RootKind::Docs => &config.docs,
    };
    let shown = root.display(rel);
    let (fm_title, fm_summary, body_offset) = match frontmatter::parse(text) {
        Ok(Some(fm)) => (
            string_field(&fm.fields, "title").or_else(|| match kind {
                DocKind::Skill { .. } => string_field(&fm.fields, "name"),
                _ => None,
            }),
            string_field(&fm.fields, "description"),
            fm.body_offset,
        ),
        Ok(None) => (None, None, frontmatter::bom_len(text)),
        // A doc with broken frontmatter is served, as site generators render it: the
        // block stays out of the body, and the title comes from the page.
        Err(error) if root_kind == RootKind::Docs => {
            report.warning(
                &shown,
                Some(error.line),
                format!(
                    "{} (the page is served without its frontmatter fields)",
                    error.message
                ),
                error.fix,
            );
            (None, None, frontmatter::body_offset(text))
        }
        Err(error) => {
            report.error(shown, Some(error.line), error.message, error.fix);
            return None;
        }
    };
    let scan = markdown::scan(text, body_offset);
    let mut outline = markdown::outline(&scan.headings, text.len());
    for heading in &mut outline {
        let section = text
            .as_bytes()
            .get(heading.start as usize..heading.end as usize);
        heading.version = crate::model::short_version(section.unwrap_or_default());
    }
    let file_stem = rel
        .rsplit('/')
        .next()
        .unwrap_or(rel)
        .rsplit_once('.')
        .map_or(rel, |(stem, _)| stem)
        .to_owned();
    let title = fm_title
        .or_else(|| scan.first_h1.clone())
        // Chapters of books (mdBook) often open with an H2; that heading names the page
        // better than its file name does.
        .or_else(|| {
            scan.headings
                .first()
                .map(|h| h.text.clone())
                .filter(|t| !t.is_empty())
        })
        .unwrap_or(file_stem);
    let summary = fm_summary
        .or(scan.first_paragraph.clone())
        .map(|s| markdown::summarize(&s, SUMMARY_CHARS))
        .unwrap_or_default();
    let chunks = chunk::chunk(&chunk::Input {
        text,
        body_offset,
        outline: &outline,
        block_starts: &scan.block_starts,
        code_blocks: &scan.code_blocks,
        max_bytes: config.chunk_bytes,
    });
    Some(DocWork {
        uri,
        kind,
        root: root_kind,
        rel: rel.to_owned(),
        path: rel.to_owned(),
        name,
        shown,
        text: text.to_owned(),
        hash: blake3::hash(text.as_bytes()),
        title,
        summary,
        outline,
        chunks,
        raw_links: scan.links,
        links: Vec::new(),
    })
}

fn string_field(fields: &serde_json::Map<String, Value>, key: &str) -> Option<String> {
    fields
        .get(key)
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

fn resolve_links(
    sources: &[SkillSource],
    skill_files: &[SourceFile],
    layout: &skills::Layout,
    docs: &mut [DocWork],
    site: Option<links::SiteResolver<'_>>,
    generator: Option<&dyn crate::site::Generator>,
    report: &mut Report,
) {
    let mut targets = Targets::default();
    let served: HashSet<&str> = sources.iter().map(|s| s.dir.as_str()).collect();
    for (i, file) in skill_files.iter().enumerate() {
        if layout.owner[i].is_some_and(|o| served.contains(layout.dirs[o].as_str())) {
            targets
                .skills
                .insert(file.rel.clone(), uri::skill_file(&file.rel));
        }
    }
    for doc in docs.iter() {
        let table = match doc.root {
            RootKind::Skills => &mut targets.skills,
            RootKind::Docs => &mut targets.docs,
        };
        table.insert(doc.rel.clone(), doc.uri.clone());
        targets.anchors.insert(
            doc.uri.clone(),
            doc.outline.iter().map(|h| h.anchor.clone()).collect(),
        );
        if let Some(generator) = generator.filter(|_| doc.root == RootKind::Docs) {
            let mut ids: HashMap<String, String> = html_ids(&doc.text, &doc.outline);
            ids.extend(generator_ids(generator, &doc.text, &doc.outline));
            targets.site_anchors.insert(doc.uri.clone(), ids);
        }
    }
    for doc in docs.iter_mut() {
        let lines = diag::LineIndex::new(&doc.text);
        for raw in &doc.raw_links {
            match links::resolve(raw, doc.root, &doc.rel, &doc.uri, &targets, site) {
                Resolution::External => {}
                Resolution::Resolved(link) => doc.links.push(link),
                Resolution::Broken { reason, fix } => {
                    report.warning(&doc.shown, Some(lines.line(raw.offset)), reason, fix)
                }
            }
        }
    }
}

/// The ids a generator gives a page's headings (and, for some, its definition terms), in
/// page order, a repeated id numbered `-1`, `-2` as generators number them, each with the
/// catalog anchor of its section.
fn generator_ids(
    generator: &dyn crate::site::Generator,
    text: &str,
    outline: &[crate::model::Heading],
) -> Vec<(String, String)> {
    // (offset, id, catalog anchor of the section)
    let mut found: Vec<(usize, String, String)> = outline
        .iter()
        .map(|h| {
            (
                h.start as usize,
                generator.heading_id(&h.text),
                h.anchor.clone(),
            )
        })
        .collect();
    if generator.definition_term_ids() {
        let mut offset = 0;
        let mut previous: Option<(usize, &str)> = None;
        for line in crate::site::markup::lines(text) {
            let at = offset;
            offset += line.text.len();
            let bare = line.bare();
            if !line.in_code
                && let Some((term_at, term)) = previous
                && (bare.starts_with(": ") || bare == ":")
            {
                found.push((
                    term_at,
                    generator.heading_id(term),
                    section_anchor_at(outline, term_at),
                ));
            }
            previous = (!line.in_code && !bare.trim().is_empty() && !bare.starts_with(':'))
                .then_some((at, bare.trim()));
        }
        found.sort_by_key(|(at, _, _)| *at);
    }
    let mut seen: HashMap<String, usize> = HashMap::new();
    found
        .into_iter()
        .map(|(_, id, anchor)| {
            let count = seen.entry(id.clone()).or_default();
            let numbered = if *count == 0 {
                id
            } else {
                format!("{id}-{count}")
            };
            *count += 1;
            (numbered, anchor)
        })
        .collect()
}

/// The anchor of the section holding byte `offset` (empty before the first heading: the
/// page itself).
fn section_anchor_at(outline: &[crate::model::Heading], offset: usize) -> String {
    outline
        .iter()
        .rev()
        .find(|h| h.start as usize <= offset)
        .map_or(String::new(), |h| h.anchor.clone())
}

/// The `id="…"` attributes of raw HTML in a page (`<a id="x"></a>`, `<span id="x">`),
/// which a site's links may name, each with the anchor of the section it sits in (empty
/// before the first heading: the page itself).
fn html_ids(text: &str, outline: &[crate::model::Heading]) -> HashMap<String, String> {
    let mut ids = HashMap::new();
    let mut offset = 0;
    for line in crate::site::markup::lines(text) {
        let at = offset;
        offset += line.text.len();
        if line.in_code || !line.text.contains('<') {
            continue;
        }
        let mut rest = line.text;
        while let Some(i) = rest.find("id=") {
            let after = &rest[i + 3..];
            let before = rest[..i].chars().next_back();
            rest = after;
            if !before.is_some_and(char::is_whitespace) {
                continue;
            }
            let Some(quote) = after.chars().next().filter(|c| *c == '"' || *c == '\'') else {
                continue;
            };
            let Some(end) = after[1..].find(quote) else {
                continue;
            };
            let id = &after[1..1 + end];
            if id.is_empty() {
                continue;
            }
            ids.entry(id.to_owned())
                .or_insert_with(|| section_anchor_at(outline, at));
        }
    }
    ids
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `sha256:<64 hex>` of `bytes`: the digest form of skill files in SEP-2640 manifests, and
/// of the binary in `skillpack manifest --with-binary`.
pub fn sha256_digest(bytes: &[u8]) -> String {
    format!("sha256:{}", hex(&Sha256::digest(bytes)))
}

/// MIME type of a skill file, by extension. The types rmcp's `SkillCatalog` knows are
/// spelled as it spells them (so a host sees the same type from either server); other
/// extensions go to `mime_guess`; what neither knows is `text/plain` when the bytes are
/// text and `application/octet-stream` otherwise.
fn mime_type(path: &str, utf8: bool) -> String {
    let ext = path
        .rsplit('/')
        .next()
        .and_then(|name| name.rsplit_once('.'))
        .map(|(_, ext)| ext.to_ascii_lowercase());
    let known = match ext.as_deref() {
        Some("md" | "markdown") => Some("text/markdown"),
        Some("txt") => Some("text/plain"),
        Some("html" | "htm") => Some("text/html"),
        Some("css") => Some("text/css"),
        Some("csv") => Some("text/csv"),
        Some("xml") => Some("application/xml"),
        Some("json") => Some("application/json"),
        Some("yaml" | "yml") => Some("application/yaml"),
        Some("toml") => Some("application/toml"),
        Some("js" | "mjs" | "cjs") => Some("text/javascript"),
        // mime_guess says MPEG transport stream.
        Some("ts" | "mts" | "cts") => Some("text/x-typescript"),
        Some("py") => Some("text/x-python"),
        Some("rs") => Some("text/x-rust"),
        Some("sh" | "bash") => Some("application/x-sh"),
        Some("png") => Some("image/png"),
        Some("jpg" | "jpeg") => Some("image/jpeg"),
        Some("gif") => Some("image/gif"),
        Some("svg") => Some("image/svg+xml"),
        Some("webp") => Some("image/webp"),
        Some("pdf") => Some("application/pdf"),
        Some("zip") => Some("application/zip"),
        _ => None,
    };
    if let Some(mime) = known {
        return mime.to_owned();
    }
    match ext
        .as_deref()
        .and_then(|e| mime_guess::from_ext(e).first_raw())
    {
        Some(mime) => mime.to_owned(),
        None if utf8 => "text/plain".to_owned(),
        None => "application/octet-stream".to_owned(),
    }
}

/// Whether files of this type are binary whatever their bytes: an ASCII-only PDF or an
/// empty PNG is still sent as a base64 `blob`, never as `text` a client might display.
fn is_binary_mime(mime: &str) -> bool {
    let (kind, subtype) = mime.split_once('/').unwrap_or((mime, ""));
    match kind {
        "image" => subtype != "svg+xml",
        "audio" | "video" | "font" => true,
        "application" => {
            matches!(
                subtype,
                "pdf"
                    | "zip"
                    | "gzip"
                    | "x-gzip"
                    | "x-tar"
                    | "x-bzip2"
                    | "x-xz"
                    | "zstd"
                    | "x-7z-compressed"
                    | "x-rar-compressed"
                    | "java-archive"
                    | "wasm"
                    | "octet-stream"
                    | "x-font-ttf"
                    | "x-font-otf"
                    | "vnd.ms-fontobject"
                    | "x-sqlite3"
            ) || subtype.starts_with("vnd.openxmlformats")
                || subtype.starts_with("vnd.oasis.opendocument")
                || subtype.starts_with("vnd.ms-")
        }
        _ => false,
    }
}

#[allow(clippy::too_many_arguments)]
fn bake(
    config: &Config,
    sources: &[SkillSource],
    skill_files: &[SourceFile],
    layout: &skills::Layout,
    docs: Vec<DocWork>,
    previous: Option<&history::Manifest>,
    nav: &[(String, Option<String>)],
    report: Report,
) -> Output {
    let mut pending = store::Pending::default();
    let mut totals = Totals::default();
    // A skill document's frames follow its chunks, like any document's.
    let skill_doc_starts: HashMap<&str, Vec<usize>> = docs
        .iter()
        .filter(|w| w.root == RootKind::Skills)
        .map(|w| (w.rel.as_str(), chunk_starts(&w.chunks)))
        .collect();

    // Skill files, sorted by URI so that each skill's files are one contiguous range.
    let served: HashSet<&str> = sources.iter().map(|s| s.dir.as_str()).collect();
    let mut file_hashes: BTreeMap<String, blake3::Hash> = BTreeMap::new();
    let mut files: Vec<(String, &SourceFile)> = skill_files
        .iter()
        .enumerate()
        .filter(|(i, _)| layout.owner[*i].is_some_and(|o| served.contains(layout.dirs[o].as_str())))
        .map(|(_, f)| (uri::skill_file(&f.rel), f))
        .collect();
    files.sort_by(|a, b| a.0.cmp(&b.0));
    let mut file_items: HashMap<&str, store::Item> = HashMap::new();
    let mut model_file_items: Vec<store::Item> = Vec::with_capacity(files.len());
    let mut model_files: Vec<SkillFile> = files
        .iter()
        .map(|(file_uri, f)| {
            let hash = blake3::hash(&f.bytes);
            file_hashes.insert(file_uri.clone(), hash);
            let utf8 = std::str::from_utf8(&f.bytes).is_ok() && !f.bytes.contains(&0);
            let mime_type = mime_type(&f.rel, utf8);
            let is_text = utf8 && !is_binary_mime(&mime_type);
            let starts = skill_doc_starts
                .get(f.rel.as_str())
                .map_or(&[][..], Vec::as_slice);
            let item = if starts.is_empty() {
                pending.add_file(hash, &f.bytes, is_text)
            } else {
                pending.add(hash, &f.bytes, starts, is_text)
            };
            file_items.insert(f.rel.as_str(), item);
            model_file_items.push(item);
            totals.content_bytes += f.bytes.len() as u64;
            SkillFile {
                uri: file_uri.clone(),
                path: f.rel.clone(),
                mime_type,
                document: None,
                sha256: crate::model::Sha256(Sha256::digest(&f.bytes).into()),
                size: f.bytes.len() as u64,
                content: Stored::default(),
                is_text,
            }
        })
        .collect();

    // Documents.
    let mut documents: Vec<Document> = Vec::with_capacity(docs.len());
    let mut doc_index: HashMap<String, u32> = HashMap::new();
    // Skill files that are also documents (SKILL.md, references), by path: their
    // `skill://` reads carry the same `_meta` outline and chunk catalog.
    let mut skill_documents: HashMap<String, u32> = HashMap::new();
    let mut doc_items: Vec<store::Item> = Vec::with_capacity(docs.len());
    let mut resolved_links: Vec<Vec<links::ResolvedLink>> = Vec::with_capacity(docs.len());
    for work in docs {
        if work.root == RootKind::Skills {
            skill_documents.insert(work.rel.clone(), documents.len() as u32);
        }
        let item = match work.root {
            RootKind::Skills => file_items[work.rel.as_str()],
            RootKind::Docs => {
                totals.content_bytes += work.text.len() as u64;
                file_hashes.insert(work.uri.clone(), work.hash);
                pending.add(
                    work.hash,
                    work.text.as_bytes(),
                    &chunk_starts(&work.chunks),
                    true,
                )
            }
        };
        doc_items.push(item);
        resolved_links.push(work.links);
        match work.kind {
            DocKind::Doc => totals.docs += 1,
            DocKind::Reference { .. } => totals.references += 1,
            DocKind::Skill { .. } => {}
        }
        totals.chunks += work.chunks.len() as u64;
        doc_index.insert(work.rel.clone(), documents.len() as u32);
        documents.push(Document {
            uri: work.uri,
            kind: work.kind,
            path: work.path,
            name: work.name,
            title: work.title,
            summary: work.summary,
            content: Stored {
                len: work.text.len() as u32,
                ..Stored::default()
            },
            version: work.hash.to_hex()[..12].to_owned(),
            chunk_count: work.chunks.len() as u32,
            tables: 0,
            outline: work.outline,
            chunks: work.chunks,
            links: Vec::new(),
            previous: Default::default(),
        });
    }

    for file in &mut model_files {
        file.document = skill_documents.get(&file.path).copied();
    }

    // Links name their target by index (its URI is the target's own).
    let document_by_uri: HashMap<&str, u32> = documents
        .iter()
        .enumerate()
        .map(|(i, d)| (d.uri.as_str(), i as u32))
        .collect();
    let link_targets: Vec<Vec<crate::model::Link>> = resolved_links
        .into_iter()
        .map(|resolved| {
            resolved
                .into_iter()
                .filter_map(|link| {
                    let (base, fragment) = link.uri.split_once('#').unwrap_or((&link.uri, ""));
                    let target = match document_by_uri.get(base) {
                        Some(&d) => LinkTarget::Document(d),
                        None => LinkTarget::File(
                            model_files
                                .binary_search_by(|f| f.uri.as_str().cmp(base))
                                .ok()? as u32,
                        ),
                    };
                    Some(crate::model::Link {
                        target,
                        fragment: fragment.to_owned(),
                        text: link.text,
                        href: link.href,
                    })
                })
                .collect()
        })
        .collect();
    for (document, links) in documents.iter_mut().zip(link_targets) {
        document.links = links;
    }

    // Skills.
    let model_skills: Vec<Skill> = sources
        .iter()
        .map(|s| {
            let prefix = format!("{}/", uri::skill_file(&s.dir));
            let start = model_files.partition_point(|f| f.uri.as_str() < prefix.as_str());
            let end = start + model_files[start..].partition_point(|f| f.uri.starts_with(&prefix));
            let mut hasher = blake3::Hasher::new();
            let mut size = 0;
            for f in &model_files[start..end] {
                hasher.update(f.path.as_bytes());
                hasher.update(b"\0");
                hasher.update(file_hashes[&f.uri].as_bytes());
                size += f.size;
            }
            let skill_md_rel = format!("{}/{}", s.dir, skills::SKILL_MD);
            let document = &documents[doc_index[&skill_md_rel] as usize];
            let title = document
                .outline
                .iter()
                .find(|h| h.level == 1)
                .map_or(&document.title, |h| &h.text)
                .clone();
            Skill {
                id: s.id.clone(),
                path: s.dir.clone(),
                description: s.description.clone(),
                tags: s.tags.clone(),
                capabilities: s.capabilities.clone(),
                frontmatter_json: Value::Object(s.frontmatter.clone()).to_string(),
                document: doc_index[&skill_md_rel],
                references: s
                    .references
                    .iter()
                    .map(|(id, file)| Reference {
                        id: id.clone(),
                        document: doc_index[&skill_files[*file].rel],
                    })
                    .collect(),
                files_start: start as u32,
                files_end: end as u32,
                skill_md_uri: uri::skill_file(&skill_md_rel),
                title,
                version: hasher.finalize().to_hex()[..12].to_owned(),
                size,
                record: Stored::default(),
            }
        })
        .collect();
    totals.skills = model_skills.len() as u64;
    totals.skill_files = model_files.len() as u64;

    let directories = directories(sources, &model_files);
    let fingerprint = fingerprint(config, &file_hashes);

    let mut catalog = Catalog {
        store: Default::default(),
        name: config.name.clone(),
        fingerprint,
        chunk_bytes: config.chunk_bytes as u64,
        documents,
        skills: model_skills,
        files: model_files,
        directories,
        uri_index: UriIndex::default(),
        capabilities: Stored::default(),
        skills_index: Stored::default(),
        docs_index: Stored::default(),
        search: Default::default(),
        totals,
        completions: Default::default(),
        history: Default::default(),
        docs_site: Default::default(),
        startup: Default::default(),
    };
    // Each document's text, before compression (UTF-8: documents are checked when read).
    let texts: Vec<&str> = doc_items
        .iter()
        .map(|&item| std::str::from_utf8(pending.bytes(item)).unwrap_or_default())
        .collect();
    // The history comes after the fingerprint, which it must never influence.
    let earlier = history::chain(previous, &history::current_state(&catalog, &texts));
    history::previous_changes(&mut catalog.documents, &earlier);
    catalog.history = crate::model::History {
        crate_version: config.crate_version.clone(),
        label: config.release.clone(),
        epoch: config.epoch,
        earlier,
    };
    let records: Vec<String> = catalog
        .skills
        .iter()
        .map(|skill| render::skill_record(&catalog, skill))
        .collect();
    let indexes = [
        render::skills_index(&catalog),
        render::docs_index(&catalog, nav),
        render::capabilities(&catalog, &config.crate_version),
    ];
    catalog.uri_index = uri_index(&catalog);
    catalog.search = index::build(&catalog.documents, &catalog.skills, &texts, |_, text| {
        frontmatter::body_offset(text)
    });
    catalog.completions = completions::candidates(&catalog);
    catalog.startup = startup::facts(&catalog);
    drop(texts);

    // Each document's tables follow its text (`crate::tables`, `Pending::with_tail`).
    for (document, item) in catalog.documents.iter_mut().zip(&mut doc_items) {
        let mut tables = Vec::new();
        crate::tables::encode(
            &crate::tables::DocumentTables::of(document),
            document.content.len,
            &mut tables,
        );
        document.tables = tables.len() as u32;
        *item = pending.with_tail(*item, &tables);
    }

    // The pre-rendered JSON resources are served bytes like any file: in the store.
    let mut json =
        |text: &str| pending.add(blake3::hash(text.as_bytes()), text.as_bytes(), &[], true);
    let records: Vec<store::Item> = records.iter().map(|r| json(r)).collect();
    let [skills_index, docs_index, capabilities] = indexes.each_ref().map(|text| json(text));

    // Compress last: everything above read the text as it is.
    let packed = pending.pack();
    for (document, item) in catalog.documents.iter_mut().zip(&doc_items) {
        document.content = packed.stored(*item);
    }
    for (file, item) in catalog.files.iter_mut().zip(&model_file_items) {
        file.content = packed.stored(*item);
    }
    for (skill, item) in catalog.skills.iter_mut().zip(&records) {
        skill.record = packed.stored(*item);
    }
    catalog.skills_index = packed.stored(skills_index);
    catalog.docs_index = packed.stored(docs_index);
    catalog.capabilities = packed.stored(capabilities);
    catalog.totals.blob_bytes = packed.blob.len() as u64;
    catalog.store = packed.store;

    Output {
        server_version: render::server_version(&config.crate_version, &catalog.fingerprint),
        catalog,
        content: packed.blob,
        report,
        site: SiteReport::default(),
    }
}

/// Where a document's chunks start: its frames in the content store.
fn chunk_starts(chunks: &[crate::model::Chunk]) -> Vec<usize> {
    chunks.iter().map(|c| c.start as usize).collect()
}

/// Every directory at or under a skill root, with its direct children.
///
/// Linear in the number of files: each file contributes its ancestors up to the outermost
/// skill folder holding it, and children are grouped by parent in one pass.
fn directories(sources: &[SkillSource], files: &[SkillFile]) -> Vec<Directory> {
    let roots: HashSet<&str> = sources.iter().map(|s| s.dir.as_str()).collect();
    let mut dirs: BTreeSet<&str> = roots.iter().copied().collect();
    for f in files {
        let ancestors: Vec<&str> = std::iter::successors(Some(skills::split_dir(&f.path).0), |d| {
            (!d.is_empty()).then(|| skills::split_dir(d).0)
        })
        .take_while(|d| !d.is_empty())
        .collect();
        // Directories from the file's folder up to its outermost enclosing skill folder.
        if let Some(outermost) = ancestors.iter().rposition(|d| roots.contains(d)) {
            dirs.extend(&ancestors[..=outermost]);
        }
    }
    let mut by_uri: Vec<(String, &str)> = dirs.iter().map(|d| (uri::skill_file(d), *d)).collect();
    by_uri.sort();
    let position: HashMap<&str, u32> = by_uri
        .iter()
        .enumerate()
        .map(|(i, (_, d))| (*d, i as u32))
        .collect();
    let mut children: Vec<Vec<(&str, DirectoryChild)>> = vec![Vec::new(); by_uri.len()];
    for (i, f) in files.iter().enumerate() {
        if let Some(&parent) = position.get(skills::split_dir(&f.path).0) {
            children[parent as usize].push((f.uri.as_str(), DirectoryChild::File(i as u32)));
        }
    }
    for (sub_uri, sub) in &by_uri {
        if let Some(&parent) = position.get(skills::split_dir(sub).0) {
            children[parent as usize]
                .push((sub_uri.as_str(), DirectoryChild::Directory(position[sub])));
        }
    }
    by_uri
        .iter()
        .zip(children)
        .map(|((dir_uri, _), mut children)| {
            children.sort_by(|a, b| a.0.cmp(b.0));
            Directory {
                uri: dir_uri.clone(),
                children: children.into_iter().map(|(_, c)| c).collect(),
            }
        })
        .collect()
}

/// `blake3:<hex>` over the contract version, the settings that shape what is served, and
/// the sorted (uri, file hash) list.
fn fingerprint(config: &Config, hashes: &BTreeMap<String, blake3::Hash>) -> String {
    let mut hasher = blake3::Hasher::new();
    hasher.update(format!("skillpack-catalog\0contract={CONTRACT_VERSION}\0").as_bytes());
    hasher.update(format!("name={}\0chunk_bytes={}\0", config.name, config.chunk_bytes).as_bytes());
    for (uri, hash) in hashes {
        hasher.update(uri.as_bytes());
        hasher.update(b"\0");
        hasher.update(hash.to_hex().as_bytes());
        hasher.update(b"\n");
    }
    format!("blake3:{}", hasher.finalize().to_hex())
}

/// Every exact URI the catalog answers, with its target, in a perfect-hash index.
fn uri_index(catalog: &Catalog) -> UriIndex {
    let mut entries: Vec<(String, Target)> = vec![
        (uri::CAPABILITIES.to_owned(), Target::Capabilities),
        (uri::SKILLS_INDEX.to_owned(), Target::SkillsIndex),
        (uri::DOCS_INDEX.to_owned(), Target::DocsIndex),
    ];
    for (i, s) in catalog.skills.iter().enumerate() {
        entries.push((uri::skill_record(&s.id), Target::SkillRecord(i as u32)));
    }
    // Chunks are not in it: a chunk URI resolves through its document's (`model::UriIndex`).
    for (d, doc) in catalog.documents.iter().enumerate() {
        entries.push((doc.uri.clone(), Target::Document(d as u32)));
    }
    for (i, f) in catalog.files.iter().enumerate() {
        entries.push((f.uri.clone(), Target::SkillFile(i as u32)));
    }
    for (i, dir) in catalog.directories.iter().enumerate() {
        entries.push((dir.uri.clone(), Target::Directory(i as u32)));
    }
    // Unique by construction (distinct files, distinct ids per document); a duplicate would
    // make the generator search forever, so keep the first of any duplicate defensively.
    let mut seen = HashSet::new();
    entries.retain(|(uri, _)| seen.insert(uri.clone()));

    let keys: Vec<&str> = entries.iter().map(|(uri, _)| uri.as_str()).collect();
    let state = phf_generator::generate_hash(&keys);
    UriIndex {
        key: state.key,
        disps: state.disps.iter().flat_map(|&(a, b)| [a, b]).collect(),
        // Every target here has a slot: no chunk or change set, far fewer than 2^28 files.
        targets: state
            .map
            .iter()
            .map(|&i| entries[i].1.slot().unwrap_or(u32::MAX))
            .collect(),
    }
}
