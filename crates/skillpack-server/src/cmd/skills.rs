//! The SEP-2640 Skills extension (`io.modelcontextprotocol/skills`): `skills/list`,
//! `skills/get` and `resources/directory/read`, answered from the baked catalog.
//!
//! rmcp's `SkillCatalog` walks a folder at run time; here every entry was computed at
//! build time (frontmatter as JSON, `sha256:` digests, sizes, the directory tree), so a
//! request only copies archived strings into rmcp's types. The file bytes themselves are
//! served by `resources/read` (`cmd::resources`), from the same blob the digests were
//! computed over.
//!
//! Errors follow the extension: an unknown skill or a URI that is not a directory is
//! `-32602` (Invalid params) on every protocol version, with the house envelope in
//! `error.data`. They are returned as [`SkillsError`]s; the server verifies their repair
//! call and sends them (`cmd::tools::verify`).

use rmcp::ErrorData;
use rmcp::model::{
    DIRECTORY_MIME_TYPE, GetSkillResult, ListResourcesResult, ListSkillsResult, Resource, Skill,
    SkillFrontmatter, SkillResource, SkillResources,
};
use serde_json::json;

use super::cursor;
use super::errors::{CANDIDATES, CatalogError, Code, Repair, did_you_mean_sorted};
use super::lookup::{self, Resolved};
use crate::catalog::Catalog;
use crate::contract::{DIRECTORY_PAGE_SIZE, META_SKILL, SKILLS_PAGE_FILES, SKILLS_PAGE_SIZE};
use crate::model::{ArchivedDirectory, ArchivedDirectoryChild, ArchivedSkill, Target};
use crate::uri;

const LISTING: &str = "skills";

/// A `skills/*` request that failed: because of the request (an envelope, sent as
/// `-32602` Invalid params on every protocol version) or because the archive is
/// inconsistent (an internal error, no envelope).
#[derive(Debug)]
pub enum SkillsError {
    Request(CatalogError),
    Archive(ErrorData),
}

impl From<CatalogError> for SkillsError {
    fn from(error: CatalogError) -> Self {
        SkillsError::Request(error)
    }
}

impl From<ErrorData> for SkillsError {
    fn from(error: ErrorData) -> Self {
        SkillsError::Archive(error)
    }
}
const SKILL_MD: &str = "/SKILL.md";

/// The `Skill` entry of one skill: its frontmatter as authored and the complete manifest
/// of its files (nested skills' files included), sorted by URI.
pub fn entry(catalog: &Catalog, skill: &ArchivedSkill) -> Result<Skill, ErrorData> {
    // Compiled from a frontmatter that was checked to hold string `name` and
    // `description`; failing here means the archive is inconsistent.
    let frontmatter: SkillFrontmatter =
        serde_json::from_str(&skill.frontmatter_json).map_err(|error| {
            ErrorData::internal_error(
                format!(
                    "the baked frontmatter of skill `{}` cannot be read: {error}",
                    skill.id
                ),
                None,
            )
        })?;
    let files = catalog
        .skill_files(skill)
        .iter()
        .map(|f| SkillResource::new(f.uri.as_str(), f.sha256.to_string(), f.size.to_native()))
        .collect();
    let document = catalog.document(skill.document.to_native());
    let meta = super::meta::meta(
        META_SKILL,
        json!({
            "id": skill.id.as_str(),
            "version": skill.version.as_str(),
            "record_uri": uri::skill_record(&skill.id),
            "document_uri": document.uri.as_str(),
        }),
    );
    Ok(Skill::new(
        skill.skill_md_uri.as_str(),
        frontmatter,
        SkillResources::Files(files),
    )
    .with_meta(meta))
}

/// `skills/list`: skills in id order, paged by [`SKILLS_PAGE_SIZE`] skills and
/// [`SKILLS_PAGE_FILES`] manifest entries.
pub fn list(catalog: &Catalog, cursor: Option<&str>) -> Result<ListSkillsResult, SkillsError> {
    let skills = catalog.skills();
    let start = match cursor {
        None => 0,
        Some(c) => cursor::decode(catalog, LISTING, c)?,
    };
    if start > skills.len() {
        return Err(CatalogError::new(
            Code::CursorInvalid,
            "This cursor points past the end of the listing.",
        )
        .field("cursor", cursor.unwrap_or_default())
        .into());
    }
    let mut page = Vec::new();
    let mut files = 0;
    let mut end = start;
    for skill in &skills[start..] {
        let count = catalog.skill_files(skill).len();
        if page.len() == SKILLS_PAGE_SIZE || (!page.is_empty() && files + count > SKILLS_PAGE_FILES)
        {
            break;
        }
        page.push(entry(catalog, skill)?);
        files += count;
        end += 1;
    }
    let mut result = ListSkillsResult::with_all_items(page);
    if end < skills.len() {
        result.next_cursor = Some(cursor::encode(catalog, LISTING, end));
    }
    Ok(result)
}

/// `skills/get`: the entry of the skill whose `SKILL.md` is exactly `raw`.
pub fn get(catalog: &Catalog, raw: &str) -> Result<GetSkillResult, SkillsError> {
    match skill_at(catalog, raw) {
        Some(skill) => Ok(GetSkillResult::new(entry(catalog, skill)?)),
        None => Err(unknown_skill(catalog, raw).into()),
    }
}

/// The skill whose `SKILL.md` URI is exactly `raw`. Skill identity is the URI as listed
/// (SEP-2640), so another spelling of it is not this skill: the error names the listed one.
fn skill_at(catalog: &Catalog, raw: &str) -> Option<&'static ArchivedSkill> {
    let Some(Target::SkillFile(file)) = catalog.lookup(raw) else {
        return None;
    };
    let file = catalog.files().get(file as usize)?;
    let folder = file.path.as_str().strip_suffix(SKILL_MD)?;
    let id = folder.rsplit('/').next().unwrap_or(folder);
    let skill = catalog.skill(catalog.skill_by_id(id)?);
    (skill.skill_md_uri.as_str() == raw).then_some(skill)
}

fn unknown_skill(catalog: &Catalog, raw: &str) -> CatalogError {
    let list_repair = Repair {
        next_step: "list_skills_then_retry",
        tool: None,
        alternative: format!(
            "Call skills/list (or read {}) for every skill's SKILL.md URI, and pass one back unchanged.",
            uri::SKILLS_INDEX
        ),
    };
    // Another spelling of a URI this server lists: name the listed one.
    if let Ok(parsed) = uri::parse(raw)
        && let Some(skill) = skill_at(catalog, &parsed.canonical())
    {
        return CatalogError::new(
            Code::SkillNotFound,
            format!(
                "`{}` is not the URI this server lists for skill `{}`; use {}.",
                uri::shorten(raw),
                skill.id,
                skill.skill_md_uri
            ),
        )
        .field("uri", raw)
        .reason("a skill is identified by its SKILL.md URI exactly as skills/list spells it")
        .candidates(vec![skill.skill_md_uri.as_str().to_owned()])
        .repair(list_repair)
        .uri(raw);
    }
    if let Err(error) = uri::parse(raw) {
        let code = match error {
            uri::UriError::Path(_) => Code::InvalidPath,
            uri::UriError::Invalid(_) => Code::InvalidUri,
        };
        return CatalogError::new(
            code,
            format!("`{}` is not a skill URI of this server.", uri::shorten(raw)),
        )
        .field("uri", raw)
        .reason(error.reason())
        .repair(list_repair)
        .uri(raw);
    }
    let wanted = raw
        .strip_suffix(SKILL_MD)
        .and_then(|folder| folder.rsplit('/').next())
        .unwrap_or(raw);
    let candidates = did_you_mean_sorted(wanted, catalog.skills(), |s| s.id.as_str(), CANDIDATES)
        .into_iter()
        .filter_map(|id| catalog.skill_by_id(&id))
        .map(|i| catalog.skill(i).skill_md_uri.as_str().to_owned())
        .collect();
    CatalogError::new(
        Code::SkillNotFound,
        format!("No skill is served at {}.", uri::shorten(raw)),
    )
    .field("uri", raw)
    .reason(
        "skills/get takes the SKILL.md URI of a skill this server serves, as skills/list gives it",
    )
    .candidates(candidates)
    .repair(list_repair)
    .uri(raw)
}

/// `resources/directory/read`: the direct children of a skill folder (files and
/// sub-folders, in URI order), paged by [`DIRECTORY_PAGE_SIZE`].
pub fn read_directory(
    catalog: &Catalog,
    raw: &str,
    cursor: Option<&str>,
) -> Result<ListResourcesResult, SkillsError> {
    // Directory URIs have no trailing slash; accept one rather than fail on it.
    let wanted = match raw.strip_suffix('/') {
        Some(stripped) if !stripped.ends_with('/') && stripped.contains("://") => stripped,
        _ => raw,
    };
    let index = match lookup::resolve(catalog, wanted) {
        Ok(Resolved {
            target: Target::Directory(i),
            heading: None,
        }) => i,
        Ok(_) => {
            return Err(not_a_directory(
                catalog,
                raw,
                format!(
                    "{} is a file, not a directory; read it with resources/read.",
                    uri::shorten(raw)
                ),
            )
            .into());
        }
        Err(error) if error.code == Code::FileNotFound => {
            return Err(not_a_directory(
                catalog,
                raw,
                format!("No directory is served at {}.", uri::shorten(raw)),
            )
            .into());
        }
        Err(error) => return Err(error.into()),
    };
    let directory = &catalog.archive().directories[index as usize];
    let listing = format!("directory:{index}");
    let children = directory.children.as_slice();
    let start = match cursor {
        None => 0,
        Some(c) => cursor::decode(catalog, &listing, c)?,
    };
    if start > children.len() {
        return Err(CatalogError::new(
            Code::CursorInvalid,
            "This cursor points past the end of the directory.",
        )
        .field("cursor", cursor.unwrap_or_default())
        .into());
    }
    let end = (start + DIRECTORY_PAGE_SIZE).min(children.len());
    let mut result = ListResourcesResult::with_all_items(
        children[start..end]
            .iter()
            .map(|child| child_resource(catalog, child))
            .collect(),
    );
    if end < children.len() {
        result.next_cursor = Some(cursor::encode(catalog, &listing, end));
    }
    Ok(result)
}

fn child_resource(catalog: &Catalog, child: &ArchivedDirectoryChild) -> Resource {
    match child {
        ArchivedDirectoryChild::File(i) => {
            let file = &catalog.files()[i.to_native() as usize];
            let name = file.path.as_str().rsplit('/').next().unwrap_or_default();
            Resource::new(file.uri.as_str(), name)
                .with_mime_type(file.mime_type.as_str())
                .with_size(file.size.to_native())
        }
        ArchivedDirectoryChild::Directory(i) => {
            let directory = &catalog.archive().directories[i.to_native() as usize];
            Resource::new(directory.uri.as_str(), directory_name(directory))
                .with_mime_type(DIRECTORY_MIME_TYPE)
        }
    }
}

/// The folder's own name, decoded from the last segment of its URI.
fn directory_name(directory: &ArchivedDirectory) -> String {
    let segment = directory
        .uri
        .as_str()
        .rsplit('/')
        .next()
        .unwrap_or_default();
    percent_encoding::percent_decode_str(segment)
        .decode_utf8_lossy()
        .into_owned()
}

fn not_a_directory(catalog: &Catalog, raw: &str, message: String) -> CatalogError {
    let directories = &catalog.archive().directories;
    CatalogError::new(Code::NotADirectory, message)
        .field("uri", raw)
        .reason("resources/directory/read lists a skill folder: skill://<skill-path> or one of its sub-folders, without a trailing slash")
        .candidates(did_you_mean_sorted(
            raw,
            directories.as_slice(),
            |d| d.uri.as_str(),
            CANDIDATES,
        ))
        .repair(Repair {
            next_step: "read_skill_root",
            tool: None,
            alternative: "Take a skill's SKILL.md URI from skills/list, drop `/SKILL.md` and list that directory; descend into children whose mimeType is inode/directory.".into(),
        })
        .uri(raw)
}
