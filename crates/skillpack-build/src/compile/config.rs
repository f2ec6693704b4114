//! Build settings, read from `SKILLPACK_*` environment variables by `build.rs`.

use std::path::{Path, PathBuf};

use super::diag::Report;
use super::walk::Root;

pub const DEFAULT_CHUNK_BYTES: usize = 8 * 1024;
pub const MIN_CHUNK_BYTES: usize = 256;
pub const MAX_CHUNK_BYTES: usize = 1024 * 1024;
pub const DEFAULT_NAME: &str = "skillpack";

/// Every environment variable that changes the build (for `rerun-if-env-changed`).
pub const ENV_VARS: [&str; 12] = [
    "SKILLPACK_SKILLS_DIR",
    "SKILLPACK_DOCS_DIR",
    "SKILLPACK_NAME",
    "SKILLPACK_STRICT",
    "SKILLPACK_CHUNK_BYTES",
    "SKILLPACK_PREVIOUS",
    "SKILLPACK_RELEASE",
    "SKILLPACK_RELEASE_DATE",
    "SOURCE_DATE_EPOCH",
    "SKILLPACK_DOCS_FLAVOR",
    "SKILLPACK_DOCS_EXCLUDE",
    "SKILLPACK_DOCS_LOCALE",
];

/// Longest release label (`SKILLPACK_RELEASE`).
pub const MAX_LABEL_BYTES: usize = 64;

#[derive(Debug, Clone)]
pub struct Config {
    pub skills: Root,
    pub docs: Root,
    /// MCP server name.
    pub name: String,
    /// Warnings are errors.
    pub strict: bool,
    pub chunk_bytes: usize,
    /// Crate version, for `serverInfo.version` and the capability summary.
    pub crate_version: String,
    /// The previous release's manifest (`SKILLPACK_PREVIOUS`): this release is built
    /// against it and bakes the chain of earlier releases.
    pub previous: Option<PathBuf>,
    /// Release label (`SKILLPACK_RELEASE`), empty if unset.
    pub release: String,
    /// Release date in seconds since the epoch (`SKILLPACK_RELEASE_DATE`, else
    /// `SOURCE_DATE_EPOCH`); never the clock.
    pub epoch: Option<u64>,
    /// `SKILLPACK_DOCS_FLAVOR`: the docs tree's site generator by name (`plain` turns
    /// generator handling off); unset, it is detected (`site::detect`).
    pub docs_flavor: Option<String>,
    /// `SKILLPACK_DOCS_EXCLUDE`: globs over docs-relative paths that are not pages
    /// (comma- or newline-separated).
    pub docs_exclude: Vec<String>,
    /// `SKILLPACK_DOCS_LOCALE`: which locale of a tree with locales is served (`all` for
    /// every one); unset, the generator's default locale.
    pub docs_locale: crate::site::LocaleChoice,
}

/// Whether `label` can be a release label: it is a path segment of
/// `resource://catalog/changes/{since}`, so only characters that need no encoding, and
/// not something `since` would read as a fingerprint prefix.
pub fn is_release_label(label: &str) -> bool {
    !label.is_empty()
        && label.len() <= MAX_LABEL_BYTES
        && label
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-' | b'+'))
}

impl Config {
    /// Settings for content in `skills`/`docs` folders, with defaults for the rest.
    pub fn for_dirs(skills: impl Into<PathBuf>, docs: impl Into<PathBuf>) -> Config {
        let skills = skills.into();
        let docs = docs.into();
        Config {
            skills: Root {
                label: skills.display().to_string(),
                dir: skills,
                required: true,
            },
            docs: Root {
                label: docs.display().to_string(),
                dir: docs,
                required: true,
            },
            name: DEFAULT_NAME.to_owned(),
            strict: false,
            chunk_bytes: DEFAULT_CHUNK_BYTES,
            crate_version: env!("CARGO_PKG_VERSION").to_owned(),
            previous: None,
            release: String::new(),
            epoch: None,
            docs_flavor: None,
            docs_exclude: Vec::new(),
            docs_locale: crate::site::LocaleChoice::Default,
        }
    }

    /// Read the settings. `var` looks a variable up (the process environment in
    /// `build.rs`, a map in tests); relative folders are relative to `crate_root`.
    pub fn from_env(
        crate_root: &Path,
        crate_version: &str,
        var: impl Fn(&str) -> Option<String>,
    ) -> Result<Config, Report> {
        let mut report = Report::new(false);
        let root = |key: &str, default: &str| -> Root {
            match var(key).filter(|v| !v.trim().is_empty()) {
                Some(value) => {
                    let path = PathBuf::from(value.trim());
                    let dir = if path.is_absolute() {
                        path
                    } else {
                        crate_root.join(path)
                    };
                    Root {
                        label: dir.display().to_string(),
                        dir,
                        required: true,
                    }
                }
                None => Root {
                    dir: crate_root.join(default),
                    label: default.to_owned(),
                    required: false,
                },
            }
        };
        let skills = root("SKILLPACK_SKILLS_DIR", "skills");
        let docs = root("SKILLPACK_DOCS_DIR", "docs");

        let name = var("SKILLPACK_NAME")
            .map(|n| n.trim().to_owned())
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| DEFAULT_NAME.to_owned());
        if name.len() > 64 || !name.chars().all(|c| c.is_ascii_graphic()) {
            report.error(
                "SKILLPACK_NAME",
                None,
                format!("`{name}` is not a usable server name"),
                "use at most 64 printable ASCII characters without spaces, e.g. `acme-docs`",
            );
        }

        let strict = match var("SKILLPACK_STRICT").as_deref().map(str::trim) {
            None | Some("") | Some("0") | Some("false") => false,
            Some("1") | Some("true") => true,
            Some(other) => {
                report.error(
                    "SKILLPACK_STRICT",
                    None,
                    format!("`{other}` is not a boolean"),
                    "set SKILLPACK_STRICT=1 to make warnings errors, or 0 / unset it",
                );
                false
            }
        };

        let chunk_bytes = match var("SKILLPACK_CHUNK_BYTES").as_deref().map(str::trim) {
            None | Some("") => DEFAULT_CHUNK_BYTES,
            Some(value) => match value.parse::<usize>() {
                Ok(n) if (MIN_CHUNK_BYTES..=MAX_CHUNK_BYTES).contains(&n) => n,
                _ => {
                    report.error(
                        "SKILLPACK_CHUNK_BYTES",
                        None,
                        format!("`{value}` is not a chunk size in bytes between {MIN_CHUNK_BYTES} and {MAX_CHUNK_BYTES}"),
                        format!("set a whole number of bytes such as {DEFAULT_CHUNK_BYTES}, or unset it for the default"),
                    );
                    DEFAULT_CHUNK_BYTES
                }
            },
        };

        let previous = var("SKILLPACK_PREVIOUS")
            .map(|v| v.trim().to_owned())
            .filter(|v| !v.is_empty())
            .map(|value| {
                let path = PathBuf::from(value);
                if path.is_absolute() {
                    path
                } else {
                    crate_root.join(path)
                }
            });

        let release = var("SKILLPACK_RELEASE")
            .map(|v| v.trim().to_owned())
            .unwrap_or_default();
        if !release.is_empty() && !is_release_label(&release) {
            report.error(
                "SKILLPACK_RELEASE",
                None,
                format!("`{}` is not a usable release label", crate::uri::shorten(&release)),
                format!("use 1 to {MAX_LABEL_BYTES} characters among letters, digits and . _ - +, e.g. `v1.4.0` or `2026.11`"),
            );
        }

        // The release date. `SKILLPACK_RELEASE_DATE` first: the `cc` crate makes cargo
        // rerun every C dependency's build script (zstd, mimalloc) when SOURCE_DATE_EPOCH
        // changes, and recompile everything above them, minutes on 2 cores; a variable only
        // this build script reads reruns only the content crate. Both mean the same.
        let date_key = ["SKILLPACK_RELEASE_DATE", "SOURCE_DATE_EPOCH"]
            .into_iter()
            .find(|key| var(key).is_some_and(|v| !v.trim().is_empty()));
        let epoch = date_key.and_then(|key| {
            let value = var(key).unwrap_or_default();
            let value = value.trim();
            match value.parse::<u64>() {
                // Dates past year 9999 cannot be written as YYYY-MM-DD.
                Ok(seconds) if seconds < 253_402_300_800 => Some(seconds),
                _ => {
                    report.error(
                        key,
                        None,
                        format!("`{}` is not a time in seconds since 1970-01-01 UTC", crate::uri::shorten(value)),
                        format!("set it to a whole number of seconds, e.g. `{key}=$(git log -1 --format=%ct)`, or unset it"),
                    );
                    None
                }
            }
        });

        let docs_flavor = var("SKILLPACK_DOCS_FLAVOR")
            .map(|v| v.trim().to_owned())
            .filter(|v| !v.is_empty());
        if let Some(name) = &docs_flavor
            && crate::site::Flavor::from_name(name).is_none()
        {
            let names: Vec<&str> = crate::site::Flavor::ALL.iter().map(|f| f.name()).collect();
            report.error(
                "SKILLPACK_DOCS_FLAVOR",
                None,
                format!("`{}` is not a docs flavor", crate::uri::shorten(name)),
                format!("use one of {}, or unset it to detect the generator from the files beside the docs folder", names.join(", ")),
            );
        }
        let docs_exclude: Vec<String> = var("SKILLPACK_DOCS_EXCLUDE")
            .unwrap_or_default()
            .split([',', '\n'])
            .map(str::trim)
            .filter(|g| !g.is_empty())
            .map(str::to_owned)
            .collect();
        let docs_locale = match var("SKILLPACK_DOCS_LOCALE").as_deref().map(str::trim) {
            None | Some("") => crate::site::LocaleChoice::Default,
            Some("all") | Some("*") => crate::site::LocaleChoice::All,
            Some(locale) => crate::site::LocaleChoice::One(locale.to_ascii_lowercase()),
        };

        if report.has_errors() {
            return Err(report);
        }
        Ok(Config {
            skills,
            docs,
            name,
            strict,
            chunk_bytes,
            crate_version: crate_version.to_owned(),
            previous,
            release,
            epoch,
            docs_flavor,
            docs_exclude,
            docs_locale,
        })
    }
}
