//! Which site generator a docs root is written for, and why we think so.
//!
//! The generator's own files sit beside the docs root or in one of its parents (a docs
//! root is often `docs/` or `content/en` inside the site project): look there, nearest
//! folder first, up to the repository root (the first folder with `.git`), at most
//! [`MAX_PARENTS`] folders up. `SKILLPACK_DOCS_FLAVOR` overrides it; `plain` turns it off.

use std::path::{Path, PathBuf};

use super::Flavor;

/// How many parents above the docs root are searched when no `.git` stops the search.
pub const MAX_PARENTS: usize = 5;

/// The generator of a docs root.
#[derive(Debug, Clone)]
pub struct Detection {
    pub flavor: Flavor,
    /// Why, in words for `skillpack info` (`mkdocs.yml in the docs folder's parent`):
    /// relative to the docs root, so the same tree says the same thing on any machine.
    pub why: String,
    /// The docs root.
    pub docs: PathBuf,
    /// The site project: the folder holding the generator's config (the docs root when
    /// there is none).
    pub project: PathBuf,
    /// The generator's config file, when there is one.
    pub config: Option<PathBuf>,
    /// The repository root (the nearest folder with `.git` at or above the docs root),
    /// else the project: include targets must stay inside it.
    pub boundary: PathBuf,
    /// The release date (`SKILLPACK_RELEASE_DATE`, seconds since the epoch), which stands
    /// for the generator's build time (Hugo's `expiryDate`); never the clock.
    pub release_epoch: Option<u64>,
}

impl Detection {
    pub fn plain(why: &str) -> Detection {
        Detection {
            flavor: Flavor::Plain,
            why: why.to_owned(),
            docs: PathBuf::new(),
            project: PathBuf::new(),
            config: None,
            boundary: PathBuf::new(),
            release_epoch: None,
        }
    }
}

/// A file or folder that marks a generator, relative to a searched folder.
struct Marker {
    flavor: Flavor,
    path: &'static str,
    /// What the file must contain, when its name alone is not enough (`conf.py`).
    contains: Option<&'static str>,
}

const MARKERS: &[Marker] = &[
    m(Flavor::MdBook, "book.toml", None),
    m(Flavor::MkDocs, "mkdocs.yml", None),
    m(Flavor::MkDocs, "mkdocs.yaml", None),
    m(Flavor::Docusaurus, "docusaurus.config.ts", None),
    m(Flavor::Docusaurus, "docusaurus.config.js", None),
    m(Flavor::Docusaurus, "docusaurus.config.mjs", None),
    m(Flavor::Docusaurus, "website/docusaurus.config.ts", None),
    m(Flavor::Docusaurus, "website/docusaurus.config.js", None),
    m(Flavor::Docusaurus, "website/docusaurus.config.mjs", None),
    m(Flavor::Starlight, "astro.config.mjs", Some("starlight")),
    m(Flavor::Starlight, "astro.config.ts", Some("starlight")),
    m(Flavor::Starlight, "astro.config.js", Some("starlight")),
    m(Flavor::Hugo, "hugo.toml", None),
    m(Flavor::Hugo, "hugo.yaml", None),
    m(Flavor::Hugo, "hugo.json", None),
    m(Flavor::VitePress, ".vitepress/config.ts", None),
    m(Flavor::VitePress, ".vitepress/config.mts", None),
    m(Flavor::VitePress, ".vitepress/config.js", None),
    m(Flavor::VitePress, ".vitepress/config.mjs", None),
    m(Flavor::Jekyll, "_config.yml", None),
    m(Flavor::Jekyll, "_config.yaml", None),
    m(Flavor::Myst, "conf.py", Some("myst")),
];

const fn m(flavor: Flavor, path: &'static str, contains: Option<&'static str>) -> Marker {
    Marker {
        flavor,
        path,
        contains,
    }
}

/// Detect the generator of the docs root `docs`. `setting` is `SKILLPACK_DOCS_FLAVOR`.
pub fn detect(docs: &Path, setting: Option<&str>) -> Result<Detection, String> {
    let forced = match setting.map(str::trim).filter(|s| !s.is_empty()) {
        None => None,
        Some(name) => match Flavor::from_name(name) {
            Some(flavor) => Some(flavor),
            None => {
                let names: Vec<&str> = Flavor::ALL.iter().map(|f| f.name()).collect();
                return Err(format!(
                    "`{name}` is not a docs flavor; use one of {}",
                    names.join(", ")
                ));
            }
        },
    };
    if forced == Some(Flavor::Plain) {
        let mut detection = Detection::plain("SKILLPACK_DOCS_FLAVOR=plain");
        detection.docs = docs.to_path_buf();
        detection.project = docs.to_path_buf();
        detection.boundary = docs.to_path_buf();
        return Ok(detection);
    }
    let folders = searched_folders(docs);
    // Includes may read anything in the repository; without one (a tree copied out of
    // its repository), anything in the site project's parent: a book's `listings/`
    // beside `src/`, a `CHANGELOG.md` beside the Sphinx source folder.
    let git_root = folders.iter().find(|f| f.join(".git").exists()).cloned();
    let boundary_of = |project: &Path| {
        git_root
            .clone()
            .unwrap_or_else(|| project.parent().unwrap_or(project).to_path_buf())
    };
    let boundary = boundary_of(folders.first().map_or(docs, PathBuf::as_path));
    for (up, folder) in folders.iter().enumerate() {
        for marker in MARKERS {
            if forced.is_some_and(|f| f != marker.flavor) {
                continue;
            }
            let path = folder.join(marker.path);
            if !path.is_file() {
                continue;
            }
            if let Some(needle) = marker.contains {
                let text = std::fs::read_to_string(&path).unwrap_or_default();
                if !text.contains(needle) {
                    continue;
                }
            }
            let project = match marker.path.split_once('/') {
                // `website/docusaurus.config.ts`: the site project is `website/`;
                // `.vitepress/config.ts`: the project is the folder holding `.vitepress`.
                Some((dir, _)) if !dir.starts_with('.') => folder.join(dir),
                _ => folder.clone(),
            };
            let why = match forced {
                Some(_) => format!(
                    "SKILLPACK_DOCS_FLAVOR={}, config `{}` {}",
                    marker.flavor.name(),
                    marker.path,
                    place(up)
                ),
                None => format!("`{}` {}", marker.path, place(up)),
            };
            return Ok(Detection {
                flavor: marker.flavor,
                why,
                docs: docs.to_path_buf(),
                boundary: boundary_of(&project),
                project,
                config: Some(path),
                release_epoch: None,
            });
        }
        // mdBook's one required file: a book without book.toml still has SUMMARY.md.
        if up == 0
            && forced.is_none_or(|f| f == Flavor::MdBook)
            && folder.join("SUMMARY.md").is_file()
        {
            let project = folder.parent().unwrap_or(folder).to_path_buf();
            return Ok(Detection {
                flavor: Flavor::MdBook,
                why: "`SUMMARY.md` in the docs folder (mdBook's table of contents)".into(),
                docs: docs.to_path_buf(),
                boundary: boundary_of(&project),
                project,
                config: None,
                release_epoch: None,
            });
        }
    }
    match forced {
        Some(flavor) => Ok(Detection {
            flavor,
            why: format!(
                "SKILLPACK_DOCS_FLAVOR={} (no config file found)",
                flavor.name()
            ),
            docs: docs.to_path_buf(),
            project: docs.to_path_buf(),
            config: None,
            boundary,
            release_epoch: None,
        }),
        None => {
            let mut detection =
                Detection::plain("no site generator's files beside the docs folder or above it");
            detection.docs = docs.to_path_buf();
            detection.project = docs.to_path_buf();
            detection.boundary = boundary;
            Ok(detection)
        }
    }
}

fn place(up: usize) -> String {
    match up {
        0 => "in the docs folder".into(),
        1 => "in the docs folder's parent".into(),
        n => format!("{n} folders above the docs folder"),
    }
}

/// The docs root and its parents, nearest first, up to the repository root.
fn searched_folders(docs: &Path) -> Vec<PathBuf> {
    let start = docs.canonicalize().unwrap_or_else(|_| docs.to_path_buf());
    let mut folders = Vec::new();
    let mut current = Some(start.as_path());
    while let Some(folder) = current {
        folders.push(folder.to_path_buf());
        if folder.join(".git").exists() || folders.len() > MAX_PARENTS {
            break;
        }
        current = folder.parent();
    }
    folders
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_nearest_config_and_says_where() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".git")).unwrap();
        std::fs::create_dir_all(dir.path().join("site/docs")).unwrap();
        std::fs::write(dir.path().join("site/mkdocs.yml"), "site_name: x\n").unwrap();
        std::fs::write(dir.path().join("hugo.toml"), "").unwrap();
        let found = detect(&dir.path().join("site/docs"), None).unwrap();
        assert_eq!(found.flavor, Flavor::MkDocs);
        assert_eq!(found.why, "`mkdocs.yml` in the docs folder's parent");
        assert!(found.project.ends_with("site"));
    }

    #[test]
    fn the_setting_wins_and_plain_turns_it_off() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".git")).unwrap();
        std::fs::write(dir.path().join("mkdocs.yml"), "site_name: x\n").unwrap();
        assert_eq!(
            detect(dir.path(), Some("plain")).unwrap().flavor,
            Flavor::Plain
        );
        assert_eq!(
            detect(dir.path(), Some("hugo")).unwrap().flavor,
            Flavor::Hugo
        );
        assert!(
            detect(dir.path(), Some("gatsby"))
                .unwrap_err()
                .contains("not a docs flavor")
        );
    }

    #[test]
    fn stops_at_the_repository_root() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("mkdocs.yml"), "site_name: x\n").unwrap();
        std::fs::create_dir_all(dir.path().join("repo/.git")).unwrap();
        std::fs::create_dir_all(dir.path().join("repo/docs")).unwrap();
        let found = detect(&dir.path().join("repo/docs"), None).unwrap();
        assert_eq!(found.flavor, Flavor::Plain);
    }
}
