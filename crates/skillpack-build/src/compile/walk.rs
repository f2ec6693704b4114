//! Walk one content root: every regular file, sorted, read into memory, with the path
//! rules applied (UTF-8 names, no backslashes, no symlinks, hidden entries skipped).

use std::path::{Path, PathBuf};

use walkdir::WalkDir;

use super::diag::Report;

/// Largest single file the compiler accepts. Matches the per-skill byte limit: nothing
/// larger could be served as part of a skill, and a doc that large is not documentation.
pub const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;
/// Deepest folder nesting accepted below a root.
pub const MAX_DEPTH: usize = 32;

/// One content root as configured.
#[derive(Debug, Clone)]
pub struct Root {
    pub dir: PathBuf,
    /// How paths under this root are shown in diagnostics (`skills`, `/abs/path/docs`).
    pub label: String,
    /// Whether a missing folder is an error (it was configured explicitly) or an empty root.
    pub required: bool,
}

impl Root {
    pub fn display(&self, relative: &str) -> String {
        if relative.is_empty() {
            self.label.clone()
        } else {
            format!("{}/{relative}", self.label.trim_end_matches('/'))
        }
    }
}

#[derive(Debug, Clone)]
pub struct SourceFile {
    /// POSIX path relative to the root.
    pub rel: String,
    pub bytes: Vec<u8>,
}

/// Every regular file under `root`, sorted by relative path. Problems go to `report`;
/// offending entries are left out so that compilation can go on and report more.
pub fn walk(root: &Root, report: &mut Report) -> Vec<SourceFile> {
    let mut files = Vec::new();
    // The configured folder itself may be a link (a checkout mounted elsewhere): follow it.
    // Links *inside* the content are refused below.
    match std::fs::metadata(&root.dir) {
        Ok(meta) if meta.is_dir() => {}
        Ok(_) => {
            report.error(
                root.label.clone(),
                None,
                "is not a folder",
                "point the setting at a folder of content",
            );
            return files;
        }
        Err(_) if !root.required => return files,
        Err(error) => {
            report.error(
                root.label.clone(),
                None,
                format!("cannot be read: {error}"),
                "check that the folder exists (paths are absolute or relative to the crate root)",
            );
            return files;
        }
    }

    let walker = WalkDir::new(&root.dir)
        .follow_links(false)
        .sort_by_file_name()
        .max_depth(MAX_DEPTH + 1)
        .into_iter()
        .filter_entry(|entry| entry.depth() == 0 || !is_hidden(entry.file_name()));
    for entry in walker {
        let entry = match entry {
            Ok(entry) => entry,
            Err(error) => {
                let path = error
                    .path()
                    .map(|p| display_path(root, p))
                    .unwrap_or_else(|| root.label.clone());
                report.error(
                    path,
                    None,
                    format!("cannot be read: {error}"),
                    "fix the permissions or remove the entry",
                );
                continue;
            }
        };
        if entry.depth() == 0 {
            continue;
        }
        let shown = display_path(root, entry.path());
        let Some(rel) = relative(root, entry.path()) else {
            report.error(
                shown,
                None,
                "has a name that is not valid UTF-8",
                "rename it using UTF-8 characters; catalog paths become URIs",
            );
            continue;
        };
        let file_type = entry.file_type();
        if file_type.is_symlink() {
            report.error(
                shown,
                None,
                "is a symbolic link; symlinks are not allowed in content",
                "replace the link with a copy of its target (e.g. `cp -L`), so the catalog is exactly what is in the folder",
            );
            continue;
        }
        if let Some(bad) = bad_name(entry.file_name().to_str().unwrap_or_default()) {
            report.error(
                shown,
                None,
                bad,
                "rename it: paths become URIs and must be plain POSIX names",
            );
            continue;
        }
        if file_type.is_dir() {
            if entry.depth() > MAX_DEPTH {
                report.error(
                    shown,
                    None,
                    format!("is nested more than {MAX_DEPTH} folders deep"),
                    "flatten the folder structure",
                );
            }
            continue;
        }
        if !file_type.is_file() {
            report.error(
                shown,
                None,
                "is not a regular file (a FIFO, socket or device)",
                "remove it from the content folder",
            );
            continue;
        }
        match read_file(entry.path()) {
            Ok(bytes) => files.push(SourceFile { rel, bytes }),
            Err(ReadError::TooLarge(size)) => report.error(
                shown,
                None,
                format!("is {size} bytes; files may be at most {MAX_FILE_BYTES} bytes (16 MiB)"),
                "split it into smaller files or keep it out of the catalog",
            ),
            Err(ReadError::Io(error)) => report.error(
                shown,
                None,
                format!("cannot be read: {error}"),
                "fix the permissions or remove the file",
            ),
        }
    }
    files.sort_by(|a, b| a.rel.cmp(&b.rel));
    files
}

enum ReadError {
    TooLarge(u64),
    Io(std::io::Error),
}

fn read_file(path: &Path) -> Result<Vec<u8>, ReadError> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(ReadError::Io)?;
    let size = file.metadata().map_err(ReadError::Io)?.len();
    if size > MAX_FILE_BYTES {
        return Err(ReadError::TooLarge(size));
    }
    // Read at most one byte past the limit: the file may grow between stat and read.
    let mut bytes = Vec::with_capacity(size as usize);
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(ReadError::Io)?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(ReadError::TooLarge(bytes.len() as u64));
    }
    Ok(bytes)
}

pub fn is_hidden(name: &std::ffi::OsStr) -> bool {
    name.as_encoded_bytes().first() == Some(&b'.')
}

/// Why a file or folder name cannot become part of a URI, if it cannot.
fn bad_name(name: &str) -> Option<String> {
    if name.contains('\\') {
        Some("has a backslash in its name".into())
    } else if name.chars().any(char::is_control) {
        Some("has a control character in its name".into())
    } else {
        None
    }
}

fn relative(root: &Root, path: &Path) -> Option<String> {
    let rel = path.strip_prefix(&root.dir).ok()?;
    let mut parts = Vec::new();
    for component in rel.components() {
        parts.push(component.as_os_str().to_str()?);
    }
    Some(parts.join("/"))
}

fn display_path(root: &Root, path: &Path) -> String {
    match path.strip_prefix(&root.dir) {
        Ok(rel) => root.display(
            &rel.components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/"),
        ),
        Err(_) => path.to_string_lossy().into_owned(),
    }
}
