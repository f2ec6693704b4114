//! What changed since an earlier release, for every surface that tells it:
//! `resource://catalog/changes[/{since}]` (`cmd::resources`), the `whats-new` prompt
//! (`cmd::whats_new`), `catalog_list {"kind": "changes"}`, completion of `since`, the
//! `skillpack changes` release notes and the `skillpack manifest` of this release.
//!
//! The change sets were computed at build time against each earlier release this one
//! knows (`compile::history`); here they are only looked up and rendered. `since` names a
//! release by label, by fingerprint prefix (12 hex digits or more) or by date (the latest
//! release on or before it); this release itself is a valid `since` (nothing changed).

use serde_json::{Value, json};

use super::errors::{CANDIDATES, CatalogError, Code, Repair, did_you_mean};
use super::suggest;
use crate::catalog::Catalog;
use crate::compile::history::{self, Manifest};
use crate::contract::TOOL_LIST;
use crate::model::{
    ArchivedChangeKind, ArchivedChangeSet, ArchivedDocumentChange, ArchivedEarlierRelease,
    ArchivedFileChange, SAME_RELEASE, Target,
};
use crate::uri;

/// Hex digits a fingerprint prefix needs to name a release.
pub const MIN_PREFIX: usize = 12;

/// A release as this module shows it.
#[derive(Clone, Copy)]
pub struct Release<'a> {
    pub fingerprint: &'a str,
    pub label: &'a str,
    pub epoch: Option<u64>,
}

impl Release<'_> {
    pub fn short(&self) -> &str {
        let hex = self.fingerprint.trim_start_matches("blake3:");
        &hex[..hex.len().min(MIN_PREFIX)]
    }

    /// The label, else the short fingerprint.
    pub fn name(&self) -> &str {
        if self.label.is_empty() {
            self.short()
        } else {
            self.label
        }
    }

    pub fn date(&self) -> String {
        self.epoch.map(history::format_date).unwrap_or_default()
    }

    fn json(&self) -> Value {
        json!({
            "fingerprint": self.fingerprint,
            "label": self.label,
            "date": self.date(),
        })
    }
}

pub fn current(catalog: &Catalog) -> Release<'static> {
    let history = &catalog.archive().history;
    Release {
        fingerprint: catalog.fingerprint(),
        label: history.label.as_str(),
        epoch: history.epoch.as_ref().map(|e| e.to_native()),
    }
}

pub fn earlier(catalog: &Catalog) -> &'static [ArchivedEarlierRelease] {
    catalog.archive().history.earlier.as_slice()
}

pub fn release(earlier: &ArchivedEarlierRelease) -> Release<'_> {
    Release {
        fingerprint: earlier.fingerprint.as_str(),
        label: earlier.label.as_str(),
        epoch: earlier.epoch.as_ref().map(|e| e.to_native()),
    }
}

/// The release `which` names (an index into the earlier releases, or [`SAME_RELEASE`]).
pub fn since_release(catalog: &Catalog, which: u32) -> Release<'static> {
    match earlier(catalog).get(which as usize) {
        Some(e) => release(e),
        None => current(catalog),
    }
}

/// The release `which` names, as JSON (fingerprint, label, date).
pub fn since_json(catalog: &Catalog, which: u32) -> Value {
    since_release(catalog, which).json()
}

/// How `resource://catalog/changes/{since}` names a release: its label when no other known
/// release has it, else its short fingerprint.
pub fn since_name(catalog: &Catalog, which: u32) -> String {
    let named = since_release(catalog, which);
    let label_is_unique = !named.label.is_empty()
        && earlier(catalog)
            .iter()
            .map(release)
            .chain(std::iter::once(current(catalog)))
            .filter(|r| r.label == named.label)
            .count()
            == 1;
    if label_is_unique {
        named.label.to_owned()
    } else {
        named.short().to_owned()
    }
}

/// What `since` completes to: labels, then short fingerprints, newest first.
pub fn candidates(catalog: &Catalog) -> Vec<String> {
    let releases: Vec<Release> = std::iter::once(current(catalog))
        .chain(earlier(catalog).iter().map(release))
        .collect();
    let mut out: Vec<String> = Vec::new();
    for r in &releases {
        if !r.label.is_empty() && !out.iter().any(|c| c == r.label) {
            out.push(r.label.to_owned());
        }
    }
    for r in &releases {
        if !out.iter().any(|c| c == r.short()) {
            out.push(r.short().to_owned());
        }
    }
    out
}

/// The release `since` names: `None` means the previous release (or, for a first
/// release, this one).
pub fn resolve(catalog: &Catalog, since: Option<&str>) -> Result<u32, CatalogError> {
    let releases = earlier(catalog);
    let Some(since) = since.map(str::trim).filter(|s| !s.is_empty()) else {
        return Ok(if releases.is_empty() { SAME_RELEASE } else { 0 });
    };
    let this = current(catalog);
    // 1. A label.
    if this.label == since {
        return Ok(SAME_RELEASE);
    }
    if let Some(i) = releases.iter().position(|r| r.label.as_str() == since) {
        return Ok(i as u32);
    }
    // 2. A fingerprint prefix.
    let hex = since
        .strip_prefix("blake3:")
        .unwrap_or(since)
        .to_ascii_lowercase();
    let is_hex = !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit());
    if is_hex && hex.len() >= MIN_PREFIX {
        let matches = |fingerprint: &str| {
            fingerprint
                .strip_prefix("blake3:")
                .is_some_and(|f| f.starts_with(&hex))
        };
        if matches(this.fingerprint) {
            return Ok(SAME_RELEASE);
        }
        if let Some(i) = releases.iter().position(|r| matches(&r.fingerprint)) {
            return Ok(i as u32);
        }
    }
    // 3. A date: the latest release on or before it (the newest in the chain on a tie).
    if let Some(until) = history::parse_date(since) {
        if this.epoch.is_some_and(|e| e <= until) {
            return Ok(SAME_RELEASE);
        }
        let mut best: Option<(u64, usize)> = None;
        for (i, r) in releases.iter().enumerate() {
            if let Some(epoch) = r.epoch.as_ref().map(|e| e.to_native())
                && epoch <= until
                && best.is_none_or(|(b, _)| epoch > b)
            {
                best = Some((epoch, i));
            }
        }
        if let Some((_, i)) = best {
            return Ok(i as u32);
        }
        return Err(unknown(
            catalog,
            since,
            "no release this one knows is dated on or before that date".to_owned(),
        ));
    }
    let reason = if is_hex && hex.len() < MIN_PREFIX {
        format!("a fingerprint prefix needs at least {MIN_PREFIX} hex digits")
    } else {
        "`since` is a release label, a fingerprint prefix (12 or more hex digits) or a date (YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ)".to_owned()
    };
    Err(unknown(catalog, since, reason))
}

fn unknown(catalog: &Catalog, since: &str, reason: String) -> CatalogError {
    let known = candidates(catalog);
    let mut close = did_you_mean(since, known.iter().map(String::as_str), CANDIDATES);
    if close.is_empty() {
        close = known.iter().take(CANDIDATES).cloned().collect();
    }
    // The previous release (or, for a first release, this one) always resolves.
    let repair = match close.first() {
        Some(best) => Repair::call(
            "list_changes_since_a_known_release",
            TOOL_LIST,
            json!({"kind": "changes", "since": best}),
            format!(
                "Read {} for the releases this one knows, then {}/<label or fingerprint prefix>.",
                uri::CHANGES,
                uri::CHANGES
            ),
        ),
        None => Repair::call(
            "list_changes_since_previous",
            TOOL_LIST,
            json!({"kind": "changes"}),
            format!("Read {} for the releases this one knows.", uri::CHANGES),
        ),
    };
    let known_count = earlier(catalog).len();
    CatalogError::new(
        Code::ReleaseNotFound,
        format!(
            "No release this one knows matches since = `{}`.",
            uri::shorten(since)
        ),
    )
    .field("since", since)
    .reason(format!(
        "{reason}; this release knows {known_count} earlier release(s)"
    ))
    .candidates(close)
    .repair(repair)
}

fn changes_of(catalog: &Catalog, which: u32) -> Option<&'static ArchivedChangeSet> {
    earlier(catalog).get(which as usize).map(|e| &e.changes)
}

fn kind_name(kind: &ArchivedChangeKind) -> &'static str {
    match kind {
        ArchivedChangeKind::Added => "added",
        ArchivedChangeKind::Removed => "removed",
        ArchivedChangeKind::Changed => "changed",
    }
}

/// `skill`, `reference` or `doc`, from the URI (a removed document is not in the catalog).
fn document_type(document_uri: &str) -> &'static str {
    if document_uri.starts_with(uri::DOCS_PREFIX) {
        "doc"
    } else if document_uri.contains("/references/") {
        "reference"
    } else {
        "skill"
    }
}

/// The URI to read for a changed section: `#anchor`, or for the text before the first
/// heading the document's first chunk (it has no anchor).
fn section_uri(catalog: &Catalog, document_uri: &str, anchor: &str) -> String {
    if !anchor.is_empty() {
        return uri::anchor(document_uri, anchor);
    }
    match catalog.lookup(document_uri) {
        Some(Target::Document(d)) => catalog
            .tables(d)
            .ok()
            .and_then(|tables| Some(uri::chunk(document_uri, &tables.chunks.first()?.id)))
            .unwrap_or_else(|| document_uri.to_owned()),
        _ => document_uri.to_owned(),
    }
}

/// One changed document as served: what changed and the URIs to read.
pub fn document_entry(catalog: &Catalog, change: &ArchivedDocumentChange) -> Value {
    let document_uri = change.uri.as_str();
    let sections: Vec<Value> = change
        .sections
        .iter()
        .map(|s| {
            let removed = s.kind == ArchivedChangeKind::Removed;
            json!({
                "anchor": s.anchor.as_str(),
                "change": kind_name(&s.kind),
                "uri": (!removed).then(|| section_uri(catalog, document_uri, &s.anchor)),
            })
        })
        .collect();
    let read: Vec<String> = match change.kind {
        ArchivedChangeKind::Added => vec![document_uri.to_owned()],
        ArchivedChangeKind::Removed => Vec::new(),
        ArchivedChangeKind::Changed if change.whole => vec![document_uri.to_owned()],
        ArchivedChangeKind::Changed => sections
            .iter()
            .filter_map(|s| s["uri"].as_str().map(str::to_owned))
            .collect(),
    };
    json!({
        "uri": document_uri,
        "type": document_type(document_uri),
        "change": kind_name(&change.kind),
        "skill": (!change.skill.is_empty()).then_some(change.skill.as_str()),
        "title": change.title.as_str(),
        "read": read,
        "sections": sections,
    })
}

pub fn file_entry(change: &ArchivedFileChange) -> Value {
    let removed = change.kind == ArchivedChangeKind::Removed;
    json!({
        "uri": change.uri.as_str(),
        "type": "file",
        "change": kind_name(&change.kind),
        "skill": (!change.skill.is_empty()).then_some(change.skill.as_str()),
        "title": change.uri.as_str().rsplit('/').next().unwrap_or_default(),
        "read": if removed { Vec::new() } else { vec![change.uri.as_str()] },
        "sections": [],
    })
}

/// Every entry of a change set, documents then files (each sorted by URI).
pub fn entries(catalog: &Catalog, which: u32) -> Vec<Value> {
    let Some(changes) = changes_of(catalog, which) else {
        return Vec::new();
    };
    changes
        .documents
        .iter()
        .map(|c| document_entry(catalog, c))
        .chain(changes.files.iter().map(file_entry))
        .collect()
}

fn counts(changes: Option<&ArchivedChangeSet>) -> Value {
    let count = |kinds: &mut dyn Iterator<Item = &ArchivedChangeKind>| {
        let (mut added, mut changed, mut removed) = (0, 0, 0);
        for kind in kinds {
            match kind {
                ArchivedChangeKind::Added => added += 1,
                ArchivedChangeKind::Changed => changed += 1,
                ArchivedChangeKind::Removed => removed += 1,
            }
        }
        json!({"added": added, "changed": changed, "removed": removed})
    };
    let (documents, files) = match changes {
        Some(c) => (
            count(&mut c.documents.iter().map(|d| &d.kind)),
            count(&mut c.files.iter().map(|f| &f.kind)),
        ),
        None => (
            count(&mut std::iter::empty()),
            count(&mut std::iter::empty()),
        ),
    };
    json!({"documents": documents, "files": files})
}

/// The earlier releases, newest first, each with the URI of its change set.
pub fn releases_json(catalog: &Catalog) -> Vec<Value> {
    earlier(catalog)
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let mut value = release(e).json();
            value["changes_uri"] = uri::changes(&since_name(catalog, i as u32)).into();
            value
        })
        .collect()
}

/// The body of `resource://catalog/changes[/{since}]`.
pub fn body(catalog: &Catalog, which: u32) -> String {
    let changes = changes_of(catalog, which);
    let first_release = earlier(catalog).is_empty();
    let entries = entries(catalog, which);
    let (documents, files): (Vec<Value>, Vec<Value>) =
        entries.into_iter().partition(|e| e["type"] != "file");
    json!({
        "release": current(catalog).json(),
        "since": (!first_release).then(|| since_release(catalog, which).json()),
        "first_release": first_release,
        "counts": counts(changes),
        "documents": documents,
        "files": files,
        "earlier_releases": releases_json(catalog),
        "how_to_read": "Read only the URIs in each entry's `read`: a section (#anchor) or chunk URI for a changed section, the document URI for a new or wholly changed one. Sections and chunks that are not listed kept their bytes, and their version in _meta, since that release.",
    })
    .to_string()
}

/// The change set as markdown, for release notes (`skillpack changes`) and `whats-new`.
/// At most `limit` documents and files are itemised.
pub fn markdown(catalog: &Catalog, which: u32, limit: usize) -> String {
    let this = current(catalog);
    let mut out = format!("# {} {}", catalog.name(), this.name());
    if !this.date().is_empty() {
        out.push_str(&format!(" ({})", &this.date()[..10]));
    }
    out.push('\n');
    if earlier(catalog).is_empty() {
        out.push_str(
            "\nThe first release of its chain: it was built without a previous release's manifest, so there is nothing to compare with.\n",
        );
        return out;
    }
    let since = since_release(catalog, which);
    out.push_str(&format!(
        "\nChanges since {}{} (fingerprint {}).\n",
        since.name(),
        if since.date().is_empty() {
            String::new()
        } else {
            format!(" of {}", &since.date()[..10])
        },
        since.short()
    ));
    let entries = entries(catalog, which);
    if entries.is_empty() {
        out.push_str("\nNothing changed.\n");
        return out;
    }
    let c = counts(changes_of(catalog, which));
    out.push_str(&format!(
        "\nDocuments: {} added, {} changed, {} removed. Skill files: {} added, {} changed, {} removed.\n",
        c["documents"]["added"],
        c["documents"]["changed"],
        c["documents"]["removed"],
        c["files"]["added"],
        c["files"]["changed"],
        c["files"]["removed"],
    ));
    // Grouped by skill (in id order), then the docs.
    let mut groups: Vec<(Option<&str>, Vec<&Value>)> = Vec::new();
    let mut sorted: Vec<&Value> = entries.iter().take(limit).collect();
    sorted.sort_by(|a, b| {
        let key = |e: &Value| {
            (
                e["skill"].is_null(),
                e["skill"].as_str().unwrap_or("").to_owned(),
            )
        };
        key(a).cmp(&key(b))
    });
    for entry in sorted {
        let skill = entry["skill"].as_str();
        match groups.last_mut() {
            Some((s, list)) if *s == skill => list.push(entry),
            _ => groups.push((skill, vec![entry])),
        }
    }
    for (skill, list) in groups {
        match skill {
            Some(skill) => out.push_str(&format!("\n## Skill `{skill}`\n\n")),
            None => out.push_str("\n## Docs\n\n"),
        }
        for entry in list {
            let change = entry["change"].as_str().unwrap_or_default();
            let title = entry["title"].as_str().unwrap_or_default();
            let entry_uri = entry["uri"].as_str().unwrap_or_default();
            out.push_str(&format!("- {change}: {title} ({entry_uri})\n"));
            for section in entry["sections"].as_array().into_iter().flatten() {
                let anchor = section["anchor"].as_str().unwrap_or_default();
                let what = if anchor.is_empty() {
                    "text before the first heading".to_owned()
                } else {
                    format!("section `#{anchor}`")
                };
                let change = section["change"].as_str().unwrap_or_default();
                match section["uri"].as_str() {
                    Some(read) => out.push_str(&format!("  - {what} {change}: {read}\n")),
                    None => out.push_str(&format!("  - {what} {change}\n")),
                }
            }
        }
    }
    if entries.len() > limit {
        out.push_str(&format!(
            "\n… and {} more: {TOOL_LIST} {{\"kind\": \"changes\", \"since\": \"{}\"}} lists them all.\n",
            entries.len() - limit,
            since_name(catalog, which)
        ));
    }
    out
}

/// What `since` completes to (template variable and prompt argument).
pub fn complete_since(catalog: &Catalog, value: &str) -> rmcp::model::CompletionInfo {
    let known = candidates(catalog);
    suggest::from_list(value, known.iter().map(String::as_str))
}

// ---- the manifest ---------------------------------------------------------------------

/// This release's manifest, from the archive and the content store (every document is
/// decoded to hash its sections: a damaged binary has no manifest).
pub fn manifest(catalog: &Catalog) -> Result<Manifest, crate::catalog::Damaged> {
    use crate::compile::history::{
        ManifestChanges, ManifestDocument, ManifestFile, ManifestRelease, ManifestSection,
        ReleaseInfo,
    };
    use crate::model::{ArchivedDocKind, version_hex};
    let archive = catalog.archive();
    let this = current(catalog);
    let skill_id = |i: u32| {
        catalog
            .skills()
            .get(i as usize)
            .map_or("", |s| s.id.as_str())
    };
    let documents = catalog
        .documents()
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let text = catalog.read(&d.content)?;
            let text = text.as_ref();
            let tables = catalog.tables(i as u32)?;
            let own = history::own_sections(
                text,
                tables
                    .outline
                    .iter()
                    .map(|h| (h.anchor.as_str(), u64::from(h.start))),
            );
            let (kind, skill) = match d.kind {
                ArchivedDocKind::Skill { skill } => ("skill", skill_id(skill.to_native())),
                ArchivedDocKind::Reference { skill, .. } => {
                    ("reference", skill_id(skill.to_native()))
                }
                ArchivedDocKind::Doc => ("doc", ""),
            };
            Ok(ManifestDocument {
                uri: d.uri.to_string(),
                kind: kind.to_owned(),
                skill: skill.to_owned(),
                title: d.title.to_string(),
                version: d.version.to_string(),
                hash: format!("blake3:{}", blake3::hash(text).to_hex()),
                size: u64::from(d.content.len.to_native()),
                intro: own[0].1.clone(),
                sections: tables
                    .outline
                    .iter()
                    .zip(&own[1..])
                    .map(|(h, (_, own))| ManifestSection {
                        anchor: h.anchor.to_string(),
                        level: h.level,
                        version: version_hex(h.version),
                        own: own.clone(),
                        size: u64::from(h.end - h.start),
                    })
                    .collect(),
            })
        })
        .collect::<Result<_, _>>()?;
    // The innermost skill holding each file (nested skills' files are in both ranges).
    let mut owners: Vec<Option<usize>> = vec![None; catalog.files().len()];
    for (i, skill) in catalog.skills().iter().enumerate() {
        let range = skill.files_start.to_native() as usize..skill.files_end.to_native() as usize;
        for slot in owners.get_mut(range).unwrap_or_default() {
            if slot.is_none_or(|o| catalog.skills()[o].path.len() < skill.path.len()) {
                *slot = Some(i);
            }
        }
    }
    let skill_files = catalog
        .files()
        .iter()
        .zip(owners)
        .map(|(f, owner)| ManifestFile {
            uri: f.uri.to_string(),
            skill: owner.map_or(String::new(), |o| catalog.skills()[o].id.to_string()),
            document: f
                .document
                .as_ref()
                .map(|d| catalog.document(d.to_native()).uri.to_string()),
            sha256: f.sha256.to_string(),
            size: f.size.to_native(),
        })
        .collect();
    let history = earlier(catalog)
        .iter()
        .map(|e| {
            let r = release(e);
            ManifestRelease {
                fingerprint: r.fingerprint.to_owned(),
                label: r.label.to_owned(),
                date: r.date(),
                epoch: r.epoch,
                changes: ManifestChanges::from_model(
                    &rkyv::deserialize::<crate::model::ChangeSet, rkyv::rancor::Error>(&e.changes)
                        .unwrap_or_default(),
                ),
            }
        })
        .collect();
    Ok(Manifest {
        format: history::FORMAT.to_owned(),
        name: catalog.name().to_owned(),
        fingerprint: this.fingerprint.to_owned(),
        crate_version: archive.history.crate_version.to_string(),
        release: ReleaseInfo {
            label: this.label.to_owned(),
            date: this.date(),
            epoch: this.epoch,
        },
        documents,
        skill_files,
        history,
        binary: None,
    })
}
