//! Releases that know their history.
//!
//! A release's **manifest** (`skillpack manifest`) describes what it serves — every
//! document with its sections' versions, every skill file with its sha256 — and carries the
//! change sets from each earlier release it knows to itself. The next release is built
//! against it (`SKILLPACK_PREVIOUS`): the compiler diffs the manifest's state against the
//! content it compiles, and composes the manifest's change sets with that diff, so every
//! earlier release gets an exact change set against the new one. Change sets keep the
//! earlier side's versions (`from_version`, `from_own`, `from_sha256`): that is what makes
//! the composition exact, even when a later release reverts an edit.
//!
//! Nothing here reads the clock, and nothing here feeds the fingerprint: the same content
//! is the same fingerprint whatever its history.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::diag::Report;
use crate::model::{
    ChangeKind, ChangeSet, DocumentChange, EarlierRelease, FileChange, SectionChange, version_hex,
};

/// The manifest format this build writes and reads.
pub const FORMAT: &str = "skillpack-manifest/1";
/// How many earlier releases a release remembers.
pub const MAX_RELEASES: usize = 50;

// ---- the manifest ---------------------------------------------------------------------

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    pub format: String,
    pub name: String,
    pub fingerprint: String,
    pub crate_version: String,
    pub release: ReleaseInfo,
    pub documents: Vec<ManifestDocument>,
    pub skill_files: Vec<ManifestFile>,
    /// Earlier releases, newest first, each with what changed from it to this release.
    pub history: Vec<ManifestRelease>,
    /// The release binary itself, when the manifest was printed with `--with-binary`: what
    /// an air-gapped host checks with its own `sha256sum` (docs/pinning.md). Ignored when
    /// the next release is built against this manifest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub binary: Option<BinaryInfo>,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct BinaryInfo {
    /// `sha256:<64 hex>` of the executable's bytes.
    pub sha256: String,
    pub size: u64,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq, Default)]
#[serde(deny_unknown_fields)]
pub struct ReleaseInfo {
    /// `SKILLPACK_RELEASE`, or empty.
    pub label: String,
    /// `YYYY-MM-DDTHH:MM:SSZ` from `SOURCE_DATE_EPOCH`, or empty.
    pub date: String,
    pub epoch: Option<u64>,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct ManifestDocument {
    pub uri: String,
    /// `skill`, `reference` or `doc`.
    pub kind: String,
    /// The skill it belongs to; empty for a doc.
    pub skill: String,
    pub title: String,
    /// First 12 hex digits of blake3 over the bytes (the `version` the server serves).
    pub version: String,
    pub hash: String,
    pub size: u64,
    /// Version of the text before the first heading (frontmatter included).
    pub intro: String,
    pub sections: Vec<ManifestSection>,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct ManifestSection {
    pub anchor: String,
    pub level: u8,
    /// Version of the whole section as `<document uri>#<anchor>` serves it (subsections
    /// included).
    pub version: String,
    /// Version of its own text: its heading up to the next heading of any level.
    pub own: String,
    /// Bytes of the whole section.
    pub size: u64,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct ManifestFile {
    pub uri: String,
    pub skill: String,
    /// The `resource://` URI of the document this file also is (a `SKILL.md` or a
    /// reference), whose changes are reported by section instead.
    pub document: Option<String>,
    pub sha256: String,
    pub size: u64,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct ManifestRelease {
    pub fingerprint: String,
    pub label: String,
    pub date: String,
    pub epoch: Option<u64>,
    pub changes: ManifestChanges,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq, Default)]
#[serde(deny_unknown_fields)]
pub struct ManifestChanges {
    pub documents: Vec<ManifestDocumentChange>,
    pub files: Vec<ManifestFileChange>,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct ManifestDocumentChange {
    pub uri: String,
    pub change: String,
    pub skill: String,
    pub title: String,
    pub from_version: String,
    pub whole: bool,
    pub sections: Vec<ManifestSectionChange>,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct ManifestSectionChange {
    pub anchor: String,
    pub change: String,
    pub from_own: String,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct ManifestFileChange {
    pub uri: String,
    pub change: String,
    pub skill: String,
    pub from_sha256: String,
}

pub fn kind_name(kind: ChangeKind) -> &'static str {
    match kind {
        ChangeKind::Added => "added",
        ChangeKind::Removed => "removed",
        ChangeKind::Changed => "changed",
    }
}

fn parse_kind(name: &str) -> Option<ChangeKind> {
    match name {
        "added" => Some(ChangeKind::Added),
        "removed" => Some(ChangeKind::Removed),
        "changed" => Some(ChangeKind::Changed),
        _ => None,
    }
}

impl ManifestChanges {
    pub fn from_model(changes: &ChangeSet) -> Self {
        ManifestChanges {
            documents: changes
                .documents
                .iter()
                .map(|d| ManifestDocumentChange {
                    uri: d.uri.clone(),
                    change: kind_name(d.kind).to_owned(),
                    skill: d.skill.clone(),
                    title: d.title.clone(),
                    from_version: d.from_version.clone(),
                    whole: d.whole,
                    sections: d
                        .sections
                        .iter()
                        .map(|s| ManifestSectionChange {
                            anchor: s.anchor.clone(),
                            change: kind_name(s.kind).to_owned(),
                            from_own: s.from_own.clone(),
                        })
                        .collect(),
                })
                .collect(),
            files: changes
                .files
                .iter()
                .map(|f| ManifestFileChange {
                    uri: f.uri.clone(),
                    change: kind_name(f.kind).to_owned(),
                    skill: f.skill.clone(),
                    from_sha256: f.from_sha256.clone(),
                })
                .collect(),
        }
    }

    fn to_model(&self) -> Result<ChangeSet, String> {
        let kind = |name: &str| {
            parse_kind(name).ok_or_else(|| {
                format!(
                    "`{}` is not a change (added, removed or changed)",
                    crate::uri::shorten(name)
                )
            })
        };
        let mut documents = Vec::with_capacity(self.documents.len());
        for d in &self.documents {
            let mut sections = Vec::with_capacity(d.sections.len());
            for s in &d.sections {
                sections.push(SectionChange {
                    anchor: s.anchor.clone(),
                    kind: kind(&s.change)?,
                    from_own: s.from_own.clone(),
                });
            }
            documents.push(DocumentChange {
                uri: d.uri.clone(),
                kind: kind(&d.change)?,
                skill: d.skill.clone(),
                title: d.title.clone(),
                from_version: d.from_version.clone(),
                sections,
                whole: d.whole,
            });
        }
        let mut files = Vec::with_capacity(self.files.len());
        for f in &self.files {
            files.push(FileChange {
                uri: f.uri.clone(),
                kind: kind(&f.change)?,
                skill: f.skill.clone(),
                from_sha256: f.from_sha256.clone(),
            });
        }
        Ok(ChangeSet { documents, files })
    }
}

// ---- dates: `compile::date` --------------------------------------------------------

pub use super::date::{format_date, parse_date};

// ---- state and diffs ------------------------------------------------------------------

/// What one release serves, as far as change sets need it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct State {
    pub documents: BTreeMap<String, DocState>,
    pub files: BTreeMap<String, FileState>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocState {
    pub skill: String,
    pub title: String,
    pub version: String,
    /// `(anchor, own version)` in reading order, the text before the first heading first
    /// under the anchor `""`; `None` when not known (see [`DocumentChange::whole`]).
    pub sections: Option<Vec<(String, String)>>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileState {
    pub skill: String,
    /// First 12 hex digits of the sha256.
    pub sha256: String,
}

/// `sha256:<hex>` → its first 12 hex digits (what change sets compare).
pub fn short_sha256(sha256: &str) -> String {
    let hex = sha256.strip_prefix("sha256:").unwrap_or(sha256);
    hex.get(..12).unwrap_or(hex).to_owned()
}

/// The sections of a document as change sets see them: the text before the first heading
/// and each heading's own text (up to the next heading of any level), by anchor.
pub fn own_sections<'a>(
    text: &[u8],
    outline: impl Iterator<Item = (&'a str, u64)> + Clone,
) -> Vec<(String, String)> {
    let starts: Vec<u64> = outline.clone().map(|(_, start)| start).collect();
    let first = starts.first().copied().unwrap_or(text.len() as u64);
    let slice = |a: u64, b: u64| text.get(a as usize..b as usize).unwrap_or_default();
    let mut sections = vec![(
        String::new(),
        version_hex(crate::model::short_version(slice(0, first))),
    )];
    for (i, (anchor, start)) in outline.enumerate() {
        let end = starts.get(i + 1).copied().unwrap_or(text.len() as u64);
        sections.push((
            anchor.to_owned(),
            version_hex(crate::model::short_version(slice(start, end))),
        ));
    }
    sections
}

impl State {
    pub fn from_manifest(manifest: &Manifest) -> State {
        let mut state = State::default();
        for d in &manifest.documents {
            let mut sections = vec![(String::new(), d.intro.clone())];
            sections.extend(d.sections.iter().map(|s| (s.anchor.clone(), s.own.clone())));
            state.documents.insert(
                d.uri.clone(),
                DocState {
                    skill: d.skill.clone(),
                    title: d.title.clone(),
                    version: d.version.clone(),
                    sections: Some(sections),
                },
            );
        }
        for f in manifest.skill_files.iter().filter(|f| f.document.is_none()) {
            state.files.insert(
                f.uri.clone(),
                FileState {
                    skill: f.skill.clone(),
                    sha256: short_sha256(&f.sha256.to_string()),
                },
            );
        }
        state
    }

    /// The state of the release a change set (from it to `self`) starts from.
    pub fn rewind(&self, changes: &ChangeSet) -> State {
        let mut state = self.clone();
        for change in &changes.documents {
            match change.kind {
                ChangeKind::Added => {
                    state.documents.remove(&change.uri);
                }
                ChangeKind::Removed => {
                    state.documents.insert(
                        change.uri.clone(),
                        DocState {
                            skill: change.skill.clone(),
                            title: change.title.clone(),
                            version: change.from_version.clone(),
                            sections: None,
                        },
                    );
                }
                ChangeKind::Changed => {
                    let Some(doc) = state.documents.get_mut(&change.uri) else {
                        continue;
                    };
                    doc.version = change.from_version.clone();
                    doc.sections = match (&doc.sections, change.whole) {
                        (Some(now), false) => {
                            let mut then = now.clone();
                            for s in &change.sections {
                                match s.kind {
                                    ChangeKind::Added => then.retain(|(a, _)| *a != s.anchor),
                                    ChangeKind::Changed => {
                                        if let Some(entry) =
                                            then.iter_mut().find(|(a, _)| *a == s.anchor)
                                        {
                                            entry.1 = s.from_own.clone();
                                        }
                                    }
                                    ChangeKind::Removed => {
                                        then.push((s.anchor.clone(), s.from_own.clone()))
                                    }
                                }
                            }
                            Some(then)
                        }
                        _ => None,
                    };
                }
            }
        }
        for change in &changes.files {
            match change.kind {
                ChangeKind::Added => {
                    state.files.remove(&change.uri);
                }
                ChangeKind::Removed | ChangeKind::Changed => {
                    state.files.insert(
                        change.uri.clone(),
                        FileState {
                            skill: change.skill.clone(),
                            sha256: change.from_sha256.clone(),
                        },
                    );
                }
            }
        }
        state
    }
}

/// What changed from `old` to `new`, sorted by URI.
pub fn diff(old: &State, new: &State) -> ChangeSet {
    let mut changes = ChangeSet::default();
    for (uri, kind, old_doc, new_doc) in merge(&old.documents, &new.documents) {
        let shown = new_doc.or(old_doc).expect("one side exists");
        let mut change = DocumentChange {
            uri: uri.clone(),
            kind,
            skill: shown.skill.clone(),
            title: shown.title.clone(),
            from_version: old_doc.map(|d| d.version.clone()).unwrap_or_default(),
            sections: Vec::new(),
            whole: false,
        };
        if kind == ChangeKind::Changed {
            match (
                old_doc.and_then(|d| d.sections.as_ref()),
                new_doc.and_then(|d| d.sections.as_ref()),
            ) {
                (Some(then), Some(now)) => change.sections = section_changes(then, now),
                _ => change.whole = true,
            }
        }
        changes.documents.push(change);
    }
    for (uri, kind, old_file, new_file) in merge(&old.files, &new.files) {
        let shown = new_file.or(old_file).expect("one side exists");
        changes.files.push(FileChange {
            uri: uri.clone(),
            kind,
            skill: shown.skill.clone(),
            from_sha256: old_file.map(|f| f.sha256.clone()).unwrap_or_default(),
        });
    }
    changes
}

trait Versioned {
    fn same(&self, other: &Self) -> bool;
}

impl Versioned for DocState {
    fn same(&self, other: &Self) -> bool {
        self.version == other.version
    }
}

impl Versioned for FileState {
    fn same(&self, other: &Self) -> bool {
        self.sha256 == other.sha256
    }
}

/// The entries that differ between two sorted maps, in key order.
fn merge<'a, T: Versioned>(
    old: &'a BTreeMap<String, T>,
    new: &'a BTreeMap<String, T>,
) -> Vec<(&'a String, ChangeKind, Option<&'a T>, Option<&'a T>)> {
    let mut out = Vec::new();
    for (uri, now) in new {
        match old.get(uri) {
            None => out.push((uri, ChangeKind::Added, None, Some(now))),
            Some(then) if !then.same(now) => {
                out.push((uri, ChangeKind::Changed, Some(then), Some(now)))
            }
            Some(_) => {}
        }
    }
    for (uri, then) in old {
        if !new.contains_key(uri) {
            out.push((uri, ChangeKind::Removed, Some(then), None));
        }
    }
    out.sort_by(|a, b| a.0.cmp(b.0));
    out
}

fn section_changes(then: &[(String, String)], now: &[(String, String)]) -> Vec<SectionChange> {
    let old: BTreeMap<&str, &str> = then.iter().map(|(a, v)| (a.as_str(), v.as_str())).collect();
    let new: BTreeMap<&str, &str> = now.iter().map(|(a, v)| (a.as_str(), v.as_str())).collect();
    let mut changes: Vec<SectionChange> = now
        .iter()
        .filter_map(|(anchor, own)| match old.get(anchor.as_str()) {
            None => Some(SectionChange {
                anchor: anchor.clone(),
                kind: ChangeKind::Added,
                from_own: String::new(),
            }),
            Some(before) if before != own => Some(SectionChange {
                anchor: anchor.clone(),
                kind: ChangeKind::Changed,
                from_own: (*before).to_owned(),
            }),
            Some(_) => None,
        })
        .collect();
    changes.extend(
        then.iter()
            .filter(|(anchor, _)| !new.contains_key(anchor.as_str()))
            .map(|(anchor, own)| SectionChange {
                anchor: anchor.clone(),
                kind: ChangeKind::Removed,
                from_own: own.clone(),
            }),
    );
    changes
}

// ---- building against the previous release --------------------------------------------

/// Read and check the previous release's manifest. Problems go to `report` as
/// `path: what — how to fix`.
pub fn load(path: &Path, name: &str, report: &mut Report) -> Option<Manifest> {
    let shown = path.display().to_string();
    const HOW: &str = "set SKILLPACK_PREVIOUS to the file `skillpack manifest > manifest.json` wrote for the previous release, or unset it to build a first release";
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) => {
            report.error(
                &shown,
                None,
                format!(
                    "cannot read the previous release's manifest (SKILLPACK_PREVIOUS): {error}"
                ),
                HOW,
            );
            return None;
        }
    };
    // Read the format first, so that a manifest of another version gets that message
    // rather than the first field this version does not know.
    #[derive(Deserialize)]
    struct Format {
        format: Option<Value>,
    }
    use serde_json::Value;
    match serde_json::from_str::<Format>(&text) {
        Err(error) => {
            report.error(
                &shown,
                Some(error.line()),
                format!("is not a skillpack manifest: {error}"),
                HOW,
            );
            return None;
        }
        Ok(Format {
            format: Some(Value::String(format)),
        }) if format == FORMAT => {}
        Ok(Format { format }) => {
            report.error(
                &shown,
                None,
                format!(
                    "unknown manifest format {}; this build reads `{FORMAT}`",
                    format.map_or("(none)".to_owned(), |f| crate::uri::shorten(&f.to_string()))
                ),
                "write the manifest with `skillpack manifest` of a release built by a compatible skillpack version",
            );
            return None;
        }
    }
    let manifest: Manifest = match serde_json::from_str(&text) {
        Ok(manifest) => manifest,
        Err(error) => {
            report.error(
                &shown,
                Some(error.line()),
                format!("is not a valid {FORMAT} manifest: {error}"),
                "use the manifest exactly as `skillpack manifest` printed it",
            );
            return None;
        }
    };
    let mut problems = Vec::new();
    let check_release = |problems: &mut Vec<String>, what: &str, fingerprint: &str, label: &str| {
        if !is_fingerprint(fingerprint) {
            problems.push(format!(
                "{what} has the fingerprint `{}`, not `blake3:` and 64 hex digits",
                crate::uri::shorten(fingerprint)
            ));
        }
        if !label.is_empty() && !super::config::is_release_label(label) {
            problems.push(format!(
                "{what} has the label `{}`, which is not a release label",
                crate::uri::shorten(label)
            ));
        }
    };
    check_release(
        &mut problems,
        "the release",
        &manifest.fingerprint,
        &manifest.release.label,
    );
    for (i, release) in manifest.history.iter().enumerate() {
        check_release(
            &mut problems,
            &format!("history[{i}]"),
            &release.fingerprint,
            &release.label,
        );
        if let Err(problem) = release.changes.to_model() {
            problems.push(format!("history[{i}]: {problem}"));
        }
    }
    for problem in problems.iter().take(5) {
        report.error(
            &shown,
            None,
            problem.clone(),
            "use the manifest exactly as `skillpack manifest` printed it",
        );
    }
    if !problems.is_empty() {
        return None;
    }
    if manifest.name != name {
        report.warning(
            &shown,
            None,
            format!(
                "the previous release is of the catalog `{}`, this build is `{name}`",
                crate::uri::shorten(&manifest.name)
            ),
            "check SKILLPACK_PREVIOUS names this catalog's manifest (or SKILLPACK_NAME, if the catalog was renamed on purpose)",
        );
    }
    Some(manifest)
}

pub fn is_fingerprint(text: &str) -> bool {
    text.strip_prefix("blake3:").is_some_and(|hex| {
        hex.len() == 64 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    })
}

/// The earlier releases of a release whose state is `current`, built against `previous`:
/// the previous release with the diff against it, then the previous release's own
/// history, each change set composed with that diff. Newest first, at most
/// [`MAX_RELEASES`].
pub fn chain(previous: Option<&Manifest>, current: &State) -> Vec<EarlierRelease> {
    let Some(previous) = previous else {
        return Vec::new();
    };
    let before = State::from_manifest(previous);
    let mut earlier = vec![EarlierRelease {
        fingerprint: previous.fingerprint.clone(),
        label: previous.release.label.clone(),
        epoch: previous.release.epoch,
        changes: diff(&before, current),
    }];
    for release in previous.history.iter().take(MAX_RELEASES - 1) {
        // `load` checked every change set converts.
        let Ok(changes) = release.changes.to_model() else {
            continue;
        };
        earlier.push(EarlierRelease {
            fingerprint: release.fingerprint.clone(),
            label: release.label.clone(),
            epoch: release.epoch,
            changes: diff(&before.rewind(&changes), current),
        });
    }
    earlier
}

/// The skill each skill file belongs to: the innermost skill whose folder holds it
/// (nested skills' files are also in their parent's range).
pub fn file_owners(catalog: &crate::model::Catalog) -> Vec<usize> {
    let mut owners: Vec<Option<usize>> = vec![None; catalog.files.len()];
    for (i, skill) in catalog.skills.iter().enumerate() {
        for slot in &mut owners[skill.files_start as usize..skill.files_end as usize] {
            let deeper = slot.is_none_or(|o| catalog.skills[o].path.len() < skill.path.len());
            if deeper {
                *slot = Some(i);
            }
        }
    }
    owners
        .into_iter()
        .map(|o| o.unwrap_or(usize::MAX))
        .collect()
}

/// The state of a catalog being compiled (`texts`: each document's text, in order).
pub fn current_state(catalog: &crate::model::Catalog, texts: &[&str]) -> State {
    use crate::model::DocKind;
    let mut state = State::default();
    let skill_id = |i: u32| catalog.skills.get(i as usize).map_or("", |s| s.id.as_str());
    for (document, text) in catalog.documents.iter().zip(texts) {
        let text = text.as_bytes();
        let skill = match document.kind {
            DocKind::Skill { skill } | DocKind::Reference { skill, .. } => skill_id(skill),
            DocKind::Doc => "",
        };
        state.documents.insert(
            document.uri.clone(),
            DocState {
                skill: skill.to_owned(),
                title: document.title.clone(),
                version: document.version.clone(),
                sections: Some(own_sections(
                    text,
                    document
                        .outline
                        .iter()
                        .map(|h| (h.anchor.as_str(), u64::from(h.start))),
                )),
            },
        );
    }
    let owners = file_owners(catalog);
    for (file, owner) in catalog.files.iter().zip(owners) {
        if file.document.is_some() {
            continue;
        }
        state.files.insert(
            file.uri.clone(),
            FileState {
                skill: catalog
                    .skills
                    .get(owner)
                    .map_or(String::new(), |s| s.id.clone()),
                sha256: short_sha256(&file.sha256.to_string()),
            },
        );
    }
    state
}

/// Each document's change against the previous release (`earlier[0]`), for its `_meta`.
pub fn previous_changes(documents: &mut [crate::model::Document], earlier: &[EarlierRelease]) {
    use crate::model::PreviousChange;
    let Some(previous) = earlier.first() else {
        return;
    };
    let changes: BTreeMap<&str, &DocumentChange> = previous
        .changes
        .documents
        .iter()
        .map(|c| (c.uri.as_str(), c))
        .collect();
    for document in documents {
        document.previous = match changes.get(document.uri.as_str()) {
            None => PreviousChange::Unchanged,
            Some(change) if change.kind == ChangeKind::Added => PreviousChange::Added,
            Some(change) => {
                let anchors = |kind: ChangeKind| -> Vec<String> {
                    change
                        .sections
                        .iter()
                        .filter(|s| s.kind == kind && !s.anchor.is_empty())
                        .map(|s| s.anchor.clone())
                        .collect()
                };
                PreviousChange::Changed {
                    added: anchors(ChangeKind::Added),
                    changed: anchors(ChangeKind::Changed),
                    removed: anchors(ChangeKind::Removed),
                }
            }
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_round_trip() {
        assert_eq!(format_date(0), "1970-01-01T00:00:00Z");
        assert_eq!(format_date(1_700_000_000), "2023-11-14T22:13:20Z");
        assert_eq!(format_date(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(parse_date("2023-11-14T22:13:20Z"), Some(1_700_000_000));
        assert_eq!(parse_date("2000-02-29"), Some(951_782_400 + 86_399));
        for bad in [
            "2023-02-29",
            "2023-13-01",
            "2023-1-01",
            "20231114",
            "2023-11-14T25:00:00Z",
            "2023-11-14x",
            "",
            "٢٠٢٣-11-14",
        ] {
            assert_eq!(parse_date(bad), None, "{bad}");
        }
    }

    fn doc(version: &str, sections: &[(&str, &str)]) -> DocState {
        DocState {
            skill: String::new(),
            title: "T".into(),
            version: version.into(),
            sections: Some(
                sections
                    .iter()
                    .map(|(a, v)| ((*a).to_owned(), (*v).to_owned()))
                    .collect(),
            ),
        }
    }

    fn state(docs: &[(&str, DocState)]) -> State {
        State {
            documents: docs
                .iter()
                .map(|(u, d)| ((*u).to_owned(), d.clone()))
                .collect(),
            files: BTreeMap::new(),
        }
    }

    #[test]
    fn composed_change_sets_equal_direct_diffs_even_across_a_revert() {
        let r0 = state(&[
            ("a", doc("1", &[("", "i"), ("x", "x1"), ("y", "y1")])),
            ("b", doc("1", &[("", "i")])),
        ]);
        let r1 = state(&[
            (
                "a",
                doc("2", &[("", "i"), ("x", "x2"), ("y", "y1"), ("z", "z1")]),
            ),
            ("c", doc("1", &[("", "i")])),
        ]);
        // a's x goes back to what it was in r0; b comes back unchanged.
        let r2 = state(&[
            ("a", doc("3", &[("", "i"), ("x", "x1"), ("z", "z1")])),
            ("b", doc("1", &[("", "i")])),
            ("c", doc("2", &[("", "j")])),
        ]);
        let d01 = diff(&r0, &r1);
        let rewound = r1.rewind(&d01);
        assert_eq!(rewound.documents["a"], r0.documents["a"]);
        let composed = diff(&rewound, &r2);
        let mut direct = diff(&r0, &r2);
        // `b` was removed and added back: known only by version, and unchanged.
        assert!(composed.documents.iter().all(|d| d.uri != "b"));
        direct.documents.retain(|d| d.uri != "b");
        assert_eq!(composed, direct);
        let a = &composed.documents[0];
        assert_eq!(a.uri, "a");
        let sections: Vec<(&str, ChangeKind)> = a
            .sections
            .iter()
            .map(|s| (s.anchor.as_str(), s.kind))
            .collect();
        assert_eq!(
            sections,
            [("z", ChangeKind::Added), ("y", ChangeKind::Removed)]
        );
    }
}
