//! Skills: find skill folders, validate `SKILL.md` frontmatter (Agent Skills rules plus
//! skillpack's `tags`, `capabilities` and `references`), and assign every file and
//! reference to its skill.

use std::collections::{BTreeMap, HashMap};

use serde_json::{Map, Value};

use super::diag::Report;
use super::frontmatter::{self, Frontmatter};
use super::walk::{Root, SourceFile};

pub const SKILL_MD: &str = "SKILL.md";
/// Per-skill limits, as in the SEP-2640 specification and rmcp's `SkillCatalog`.
pub const MAX_SKILL_FILES: usize = 512;
pub const MAX_SKILL_BYTES: u64 = 16 * 1024 * 1024;
pub const MAX_NAME_CHARS: usize = 64;
/// The Agent Skills limit on `description`.
pub const MAX_DESCRIPTION_CHARS: usize = 1024;
/// What hosts show of a description in their skill listings; longer ones get cut.
pub const LISTED_DESCRIPTION_CHARS: usize = 500;
pub const MAX_COMPATIBILITY_CHARS: usize = 500;
/// Prompt names the server defines itself; a skill may not be named like one, because
/// every skill is also a prompt named after its id.
pub const RESERVED_PROMPT_NAMES: [&str; 4] = ["orient", "use-skill", "find-skill", "whats-new"];

#[derive(Debug, Clone)]
pub struct SkillSource {
    /// Folder path relative to the skills root.
    pub dir: String,
    pub id: String,
    /// Index of `SKILL.md` in the skills root's files.
    pub skill_md: usize,
    pub frontmatter: Map<String, Value>,
    pub description: String,
    pub tags: Vec<String>,
    pub capabilities: Vec<String>,
    /// (ref id, file index), sorted by ref id.
    pub references: Vec<(String, usize)>,
}

/// Whether `name` follows the Agent Skills naming rules; the reason when it does not.
pub fn check_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("is empty".into());
    }
    if name.chars().count() > MAX_NAME_CHARS {
        return Err(format!("is longer than {MAX_NAME_CHARS} characters"));
    }
    if !name
        .chars()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    {
        return Err("may only contain lowercase letters a-z, digits and hyphens".into());
    }
    if name.starts_with('-') || name.ends_with('-') {
        return Err("may not start or end with a hyphen".into());
    }
    if name.contains("--") {
        return Err("may not contain two hyphens in a row".into());
    }
    Ok(())
}

/// A valid name close to `raw` (`PDF_Tools` → `pdf-tools`).
pub fn suggest_name(raw: &str) -> String {
    let mut out = String::new();
    for c in raw.chars() {
        let c = c.to_ascii_lowercase();
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            out.push(c);
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    let out: String = out.trim_matches('-').chars().take(MAX_NAME_CHARS).collect();
    let out = out.trim_end_matches('-').to_owned();
    if out.is_empty() {
        "my-skill".into()
    } else {
        out
    }
}

/// Reference id derived from a path relative to the skill folder:
/// `reference/mcp_best_practices.md` → `reference-mcp-best-practices`.
pub fn derive_ref_id(relative: &str) -> String {
    let stem = relative.rsplit_once('.').map_or(relative, |(stem, _)| stem);
    let mut out = String::new();
    for c in stem.chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() {
            out.push(c);
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_matches('-').to_owned()
}

pub fn is_markdown(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    lower.ends_with(".md") || lower.ends_with(".markdown")
}

/// Skill folder of every `SKILL.md`, and the innermost skill of every file.
///
/// Everything here is indexed so that the compile stays linear in the number of files:
/// per-skill questions (its `SKILL.md`, its own files, a declared path) are answered by
/// lookups, never by scanning every file of the catalog once per skill.
pub struct Layout {
    /// Skill folders, sorted.
    pub dirs: Vec<String>,
    /// For each file: index into `dirs` of its innermost skill, if any.
    pub owner: Vec<Option<usize>>,
    /// For each skill folder: index of its `SKILL.md` in the files.
    pub skill_md: Vec<usize>,
    /// For each skill folder: the files whose innermost skill it is, in file order.
    pub members: Vec<Vec<usize>>,
    /// Skill folder → index into `dirs`.
    pub dir_index: HashMap<String, usize>,
    /// File path relative to the root → index into the files.
    pub file_index: HashMap<String, usize>,
}

impl Layout {
    /// Skill folders that contain `rel`, innermost first.
    pub fn enclosing<'a>(&'a self, rel: &'a str) -> impl Iterator<Item = usize> + 'a {
        let mut path = rel;
        std::iter::from_fn(move || {
            loop {
                let (parent, _) = path.rsplit_once('/')?;
                path = parent;
                if let Some(&i) = self.dir_index.get(parent) {
                    return Some(i);
                }
            }
        })
    }

    /// Number of files and bytes under each skill folder, nested skills' files included.
    pub fn sizes(&self, files: &[SourceFile]) -> Vec<(usize, u64)> {
        let mut sizes = vec![(0usize, 0u64); self.dirs.len()];
        for file in files {
            for i in self.enclosing(&file.rel) {
                sizes[i].0 += 1;
                sizes[i].1 += file.bytes.len() as u64;
            }
        }
        sizes
    }
}

pub fn layout(root: &Root, files: &[SourceFile], report: &mut Report) -> Layout {
    let mut dirs = Vec::new();
    for file in files {
        let (dir, name) = split_dir(&file.rel);
        if name == SKILL_MD {
            if dir.is_empty() {
                report.error(
                    root.display(&file.rel),
                    None,
                    "SKILL.md sits at the top of the skills folder; a skill needs its own folder",
                    format!("move it to {}/<skill-name>/SKILL.md", root.label),
                );
            } else {
                dirs.push(dir.to_owned());
            }
        } else if name.eq_ignore_ascii_case(SKILL_MD) {
            report.error(
                root.display(&file.rel),
                None,
                format!(
                    "is named `{name}`; the skill entry point must be named exactly `SKILL.md`"
                ),
                "rename the file to SKILL.md",
            );
        }
    }
    dirs.sort();
    let mut layout = Layout {
        dir_index: dirs
            .iter()
            .enumerate()
            .map(|(i, d)| (d.clone(), i))
            .collect(),
        file_index: files
            .iter()
            .enumerate()
            .map(|(i, f)| (f.rel.clone(), i))
            .collect(),
        skill_md: vec![usize::MAX; dirs.len()],
        members: vec![Vec::new(); dirs.len()],
        owner: Vec::with_capacity(files.len()),
        dirs,
    };
    for (index, file) in files.iter().enumerate() {
        let owner = layout.enclosing(&file.rel).next();
        if let Some(owner) = owner {
            layout.members[owner].push(index);
            if split_dir(&file.rel).1 == SKILL_MD {
                layout.skill_md[owner] = index;
            }
        }
        layout.owner.push(owner);
    }
    for (file, owner) in files.iter().zip(&layout.owner) {
        if owner.is_none() {
            report.warning(
                root.display(&file.rel),
                None,
                "is not inside a skill folder (no SKILL.md in its folder or above), so it is not served",
                "move it into a skill folder, or out of the skills folder",
            );
        }
    }
    layout
}

pub fn is_under(path: &str, dir: &str) -> bool {
    path.len() > dir.len() && path.starts_with(dir) && path.as_bytes()[dir.len()] == b'/'
}

pub fn split_dir(path: &str) -> (&str, &str) {
    path.rsplit_once('/').unwrap_or(("", path))
}

/// Validate one skill. Returns `None` when the skill is too broken to serve (the
/// problems are in `report`).
pub fn load(
    root: &Root,
    files: &[SourceFile],
    layout: &Layout,
    skill: usize,
    report: &mut Report,
) -> Option<SkillSource> {
    let dir = &layout.dirs[skill];
    let skill_md_rel = format!("{dir}/{SKILL_MD}");
    let skill_md = *layout.skill_md.get(skill).filter(|&&i| i < files.len())?;
    let shown = root.display(&skill_md_rel);
    let (_, folder) = split_dir(dir);

    let text = match std::str::from_utf8(&files[skill_md].bytes) {
        Ok(text) => text,
        Err(error) => {
            let (line, message) = super::diag::not_utf8(&files[skill_md].bytes, error);
            report.error(
                shown,
                Some(line),
                message,
                "save the file as UTF-8; SKILL.md is served as text",
            );
            return None;
        }
    };
    let fm = match frontmatter::parse(text) {
        Ok(Some(fm)) => fm,
        Ok(None) => {
            report.error(
                shown,
                Some(1),
                "has no YAML frontmatter",
                format!(
                    "start the file with:\n---\nname: {}\ndescription: What this skill does and when to use it.\n---",
                    suggest_name(folder)
                ),
            );
            return None;
        }
        Err(error) => {
            report.error(shown, Some(error.line), error.message, error.fix);
            return None;
        }
    };
    let fields = &fm.fields;
    let mut ok = true;

    // name
    match fields.get("name") {
        None => {
            report.error(
                &shown,
                Some(1),
                "frontmatter has no `name`",
                match check_name(folder) {
                    Ok(()) => format!("add `name: {folder}` (the skill's folder name)"),
                    Err(_) => format!(
                        "add `name: {0}` and rename the folder to `{0}`",
                        suggest_name(folder)
                    ),
                },
            );
            ok = false;
        }
        Some(Value::String(name)) => {
            if let Err(why) = check_name(name) {
                report.error(
                    &shown,
                    Some(fm.line_of("name")),
                    format!("skill name `{name}` {why}"),
                    format!(
                        "use 1-{MAX_NAME_CHARS} lowercase letters, digits and single inner hyphens, e.g. `{}` (and rename the folder to match)",
                        suggest_name(name)
                    ),
                );
                ok = false;
            } else if name != folder {
                report.error(
                    &shown,
                    Some(fm.line_of("name")),
                    format!("skill name `{name}` does not match its folder name `{folder}`"),
                    format!("rename the folder to `{name}` or set `name: {folder}`"),
                );
                ok = false;
            }
        }
        Some(other) => {
            report.error(
                &shown,
                Some(fm.line_of("name")),
                format!("`name` is a {}, not a string", frontmatter::kind(other)),
                format!("write `name: {folder}`"),
            );
            ok = false;
        }
    }
    if let Some(reserved) = RESERVED_PROMPT_NAMES.iter().find(|r| **r == folder) {
        report.error(
            &shown,
            Some(fm.line_of("name")),
            format!("skill name `{reserved}` collides with the built-in prompt `{reserved}` (every skill is also a prompt named after its id)"),
            format!("rename the skill, e.g. `{reserved}-skill`"),
        );
        ok = false;
    }

    // description
    let description = match fields.get("description") {
        None => {
            report.error(
                &shown,
                Some(1),
                "frontmatter has no `description`",
                "add `description:` saying what the skill does and when to use it",
            );
            ok = false;
            String::new()
        }
        Some(Value::String(d)) if d.trim().is_empty() => {
            report.error(
                &shown,
                Some(fm.line_of("description")),
                "`description` is empty",
                "say what the skill does and when to use it",
            );
            ok = false;
            String::new()
        }
        Some(Value::String(d)) => {
            let chars = d.chars().count();
            if chars > MAX_DESCRIPTION_CHARS {
                report.warning(
                    &shown,
                    Some(fm.line_of("description")),
                    format!("`description` is {chars} characters; the Agent Skills limit is {MAX_DESCRIPTION_CHARS}"),
                    "shorten it and move detail into the body of SKILL.md",
                );
            } else if chars > LISTED_DESCRIPTION_CHARS {
                report.warning(
                    &shown,
                    Some(fm.line_of("description")),
                    format!("`description` is {chars} characters; hosts show about {LISTED_DESCRIPTION_CHARS} in their skill listings and cut the rest"),
                    "put what the skill does and when to use it in the first sentences, and keep it under 500 characters",
                );
            }
            d.trim().to_owned()
        }
        Some(other) => {
            report.error(
                &shown,
                Some(fm.line_of("description")),
                format!(
                    "`description` is a {}, not a string",
                    frontmatter::kind(other)
                ),
                "write the description as one string (quote it if it contains `: `)",
            );
            ok = false;
            String::new()
        }
    };

    optional_string(fields, "license", None, &fm, &shown, report, &mut ok);
    optional_string(
        fields,
        "compatibility",
        Some(MAX_COMPATIBILITY_CHARS),
        &fm,
        &shown,
        report,
        &mut ok,
    );
    if let Some(value) = fields.get("metadata") {
        match value {
            Value::Object(map) => {
                for (key, v) in map {
                    if !v.is_string() {
                        report.error(
                            &shown,
                            Some(fm.line_of("metadata")),
                            format!(
                                "`metadata.{key}` is a {}; metadata maps keys to strings",
                                frontmatter::kind(v)
                            ),
                            format!(
                                "quote the value: `{key}: \"{}\"`",
                                v.to_string().trim_matches('"')
                            ),
                        );
                        ok = false;
                    }
                }
            }
            other => {
                report.error(
                    &shown,
                    Some(fm.line_of("metadata")),
                    format!(
                        "`metadata` is a {}, not a mapping",
                        frontmatter::kind(other)
                    ),
                    "write `metadata:` followed by indented `key: \"value\"` lines",
                );
                ok = false;
            }
        }
    }
    if let Some(value) = fields.get("allowed-tools") {
        let fine = match value {
            Value::String(_) => true,
            Value::Array(items) => items.iter().all(Value::is_string),
            _ => false,
        };
        if !fine {
            report.error(
                &shown,
                Some(fm.line_of("allowed-tools")),
                format!("`allowed-tools` is a {}", frontmatter::kind(value)),
                "write the tools as one space-separated string, e.g. `allowed-tools: Bash(git:*) Read`",
            );
            ok = false;
        }
    }
    let tags = string_list(fields, "tags", &fm, &shown, report, &mut ok);
    let capabilities = string_list(fields, "capabilities", &fm, &shown, report, &mut ok);

    let references = references(root, files, layout, skill, &fm, &shown, report, &mut ok);

    if !ok {
        return None;
    }
    Some(SkillSource {
        dir: dir.clone(),
        id: folder.to_owned(),
        skill_md,
        frontmatter: fm.fields.clone(),
        description,
        tags,
        capabilities,
        references,
    })
}

fn optional_string(
    fields: &Map<String, Value>,
    key: &str,
    max_chars: Option<usize>,
    fm: &Frontmatter,
    shown: &str,
    report: &mut Report,
    ok: &mut bool,
) {
    match fields.get(key) {
        None => {}
        Some(Value::String(s)) => {
            if let Some(max) = max_chars
                && s.chars().count() > max
            {
                report.error(
                    shown,
                    Some(fm.line_of(key)),
                    format!(
                        "`{key}` is {} characters; at most {max} are allowed",
                        s.chars().count()
                    ),
                    format!("shorten `{key}`"),
                );
                *ok = false;
            }
        }
        Some(other) => {
            report.error(
                shown,
                Some(fm.line_of(key)),
                format!("`{key}` is a {}, not a string", frontmatter::kind(other)),
                format!("write `{key}` as one string"),
            );
            *ok = false;
        }
    }
}

fn string_list(
    fields: &Map<String, Value>,
    key: &str,
    fm: &Frontmatter,
    shown: &str,
    report: &mut Report,
    ok: &mut bool,
) -> Vec<String> {
    match fields.get(key) {
        None => Vec::new(),
        Some(Value::Array(items)) if items.iter().all(Value::is_string) => items
            .iter()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect(),
        Some(other) => {
            report.error(
                shown,
                Some(fm.line_of(key)),
                format!(
                    "`{key}` must be a list of strings, not a {}",
                    frontmatter::kind(other)
                ),
                format!("write `{key}: [first, second]`"),
            );
            *ok = false;
            Vec::new()
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn references(
    root: &Root,
    files: &[SourceFile],
    layout: &Layout,
    skill: usize,
    fm: &Frontmatter,
    shown: &str,
    report: &mut Report,
    ok: &mut bool,
) -> Vec<(String, usize)> {
    let dir = &layout.dirs[skill];
    let line = fm.line_of("references");
    // Declared: ref id → path relative to the skill folder.
    let mut declared: BTreeMap<String, usize> = BTreeMap::new();
    let mut declared_files: HashMap<usize, String> = HashMap::new();
    match fm.fields.get("references") {
        None => {}
        Some(Value::Object(map)) => {
            for (ref_id, path) in map {
                let Some(path) = path.as_str() else {
                    report.error(
                        shown,
                        Some(line),
                        format!(
                            "reference `{ref_id}` maps to a {}, not a path",
                            frontmatter::kind(path)
                        ),
                        format!("write `{ref_id}: references/{ref_id}.md`"),
                    );
                    *ok = false;
                    continue;
                };
                if let Err(why) = check_name(ref_id) {
                    report.error(
                        shown,
                        Some(line),
                        format!("reference id `{ref_id}` {why}"),
                        format!(
                            "use a lowercase kebab-case id such as `{}`",
                            suggest_name(ref_id)
                        ),
                    );
                    *ok = false;
                    continue;
                }
                let clean = path.trim().trim_start_matches("./");
                let target = format!("{dir}/{clean}");
                let hidden = clean.split('/').any(|s| s.starts_with('.'));
                let index = layout.file_index.get(&target).copied();
                match index {
                    _ if clean.starts_with('/')
                        || clean.split('/').any(|s| s == ".." || s.is_empty())
                        || clean.contains('\\') =>
                    {
                        report.error(
                            shown,
                            Some(line),
                            format!("reference `{ref_id}` points at `{path}`, which is not a plain path inside the skill folder"),
                            "use a relative path inside the skill folder, without `..`, leading `/` or backslashes",
                        );
                        *ok = false;
                    }
                    _ if hidden => {
                        report.error(
                            shown,
                            Some(line),
                            format!("reference `{ref_id}` points at hidden file `{path}`; hidden files are never served"),
                            "rename the file so that no part of its path starts with `.`",
                        );
                        *ok = false;
                    }
                    None => {
                        report.error(
                            shown,
                            Some(line),
                            format!(
                                "reference `{ref_id}` points at `{path}`, which does not exist"
                            ),
                            format!("create {} or fix the path", root.display(&target)),
                        );
                        *ok = false;
                    }
                    Some(i)
                        if !is_markdown(&files[i].rel)
                            || files[i].rel.ends_with(&format!("/{SKILL_MD}")) =>
                    {
                        report.error(
                            shown,
                            Some(line),
                            format!("reference `{ref_id}` points at `{path}`, which is not a markdown reference"),
                            "references are markdown files (.md) other than SKILL.md; other files are served as skill files without a declaration",
                        );
                        *ok = false;
                    }
                    Some(i) if layout.owner[i] != Some(skill) => {
                        report.error(
                            shown,
                            Some(line),
                            format!("reference `{ref_id}` points at `{path}`, which belongs to a skill nested inside this one"),
                            "declare it in the nested skill's SKILL.md instead",
                        );
                        *ok = false;
                    }
                    Some(i) => {
                        if let Some(previous) = declared_files.get(&i) {
                            report.error(
                                shown,
                                Some(line),
                                format!(
                                    "references `{previous}` and `{ref_id}` both point at `{path}`"
                                ),
                                "declare each reference file once",
                            );
                            *ok = false;
                        } else {
                            declared_files.insert(i, ref_id.clone());
                            declared.insert(ref_id.clone(), i);
                        }
                    }
                }
            }
        }
        Some(other) => {
            report.error(
                shown,
                Some(line),
                format!(
                    "`references` is a {}, not a mapping",
                    frontmatter::kind(other)
                ),
                "write `references:` followed by indented `ref-id: path/to/file.md` lines",
            );
            *ok = false;
        }
    }

    // Undeclared markdown files get derived ids.
    let mut all: BTreeMap<String, usize> = declared.clone();
    let mut origin: HashMap<String, usize> =
        declared.iter().map(|(k, v)| (k.clone(), *v)).collect();
    for &i in &layout.members[skill] {
        let file = &files[i];
        if declared_files.contains_key(&i)
            || !is_markdown(&file.rel)
            || file.rel == format!("{dir}/{SKILL_MD}")
        {
            continue;
        }
        let relative = &file.rel[dir.len() + 1..];
        let id = derive_ref_id(relative);
        if id.is_empty() {
            report.error(
                root.display(&file.rel),
                None,
                "cannot be given a reference id (its name has no letters or digits)",
                format!("rename it, or declare it under `references:` in {}", shown),
            );
            *ok = false;
            continue;
        }
        if let Some(&other) = origin.get(&id) {
            report.error(
                root.display(&file.rel),
                None,
                format!(
                    "reference id `{id}` is already used by {}",
                    root.display(&files[other].rel)
                ),
                format!("declare distinct ids under `references:` in {shown}, or rename one of the files"),
            );
            *ok = false;
            continue;
        }
        origin.insert(id.clone(), i);
        all.insert(id, i);
    }
    all.into_iter().collect()
}
