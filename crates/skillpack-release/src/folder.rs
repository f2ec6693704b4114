//! The release folder: everything a host team receives for one docs release, checkable with
//! nothing but coreutils (`sha256sum -c SHA256SUMS`) and the binary itself.
//!
//! ```text
//! <out>/
//!   <binary>              the static catalog binary (skillpack, acme-docs, …)
//!   manifest.json         `<binary> manifest --with-binary`: content, history, the binary's sha256
//!   CHANGES.md            `<binary> changes`: release notes since the previous release
//!   <binary>-image.tar    the OCI image (oci-archive) of the binary alone
//!   <sbom>                the SBOM of the binary's crates, as the release script made it
//!   SHA256SUMS            sha256 of every file above
//! ```

use std::path::Path;

use crate::digest::sha256_hex;
use crate::image::{Image, ImageSpec};
use crate::out_dir::create_empty_dir;

/// What goes into the folder: the binary and what it says of itself.
pub struct Release<'a> {
    /// The binary's bytes, written as `image.binary_name`.
    pub binary: &'a [u8],
    /// `manifest --with-binary`, as JSON.
    pub manifest: &'a [u8],
    /// `changes`, as markdown.
    pub changes: &'a [u8],
    pub image: &'a ImageSpec,
    /// An SBOM file to include under its own name.
    pub sbom: Option<&'a Path>,
}

/// What was written.
#[derive(Debug, Clone)]
pub struct Written {
    /// File names in the folder, as `SHA256SUMS` lists them.
    pub files: Vec<String>,
    pub image: Image,
}

/// The name of the checksum file.
pub const SUMS: &str = "SHA256SUMS";

/// Write the release folder `out` (created; refused if it holds anything).
pub fn write(release: &Release, out: &Path) -> Result<Written, String> {
    let sbom = match release.sbom {
        Some(path) => Some((
            file_name(path)?,
            std::fs::read(path).map_err(|e| format!("{}: cannot read it: {e}", path.display()))?,
        )),
        None => None,
    };
    let image = Image::build(release.binary, release.image)?;
    let archive = image.archive()?;
    create_empty_dir(out)?;
    let name = &release.image.binary_name;
    let mut files = vec![
        (name.clone(), release.binary),
        ("manifest.json".to_owned(), release.manifest),
        ("CHANGES.md".to_owned(), release.changes),
        (format!("{name}-image.tar"), archive.as_slice()),
    ];
    if let Some((name, bytes)) = &sbom {
        files.push((name.clone(), bytes.as_slice()));
    }
    for (name, bytes) in &files {
        let path = out.join(name);
        std::fs::write(&path, bytes)
            .map_err(|e| format!("{}: cannot write it: {e}", path.display()))?;
    }
    make_executable(&out.join(name))?;
    let files = write_sums(out)?;
    Ok(Written { files, image })
}

#[cfg(unix)]
fn make_executable(path: &Path) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
        .map_err(|e| format!("{}: cannot make it executable: {e}", path.display()))
}

#[cfg(not(unix))]
fn make_executable(_path: &Path) -> Result<(), String> {
    Ok(())
}

/// Write `SHA256SUMS` for every other file in `dir`, sorted by name, in the format
/// `sha256sum -c` reads (`<hex>  <name>`). Returns the names.
pub fn write_sums(dir: &Path) -> Result<Vec<String>, String> {
    let mut names = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))? {
        let entry = entry.map_err(|e| format!("{}: {e}", dir.display()))?;
        let name = entry.file_name().into_string().map_err(|name| {
            format!(
                "{name:?} in {}: a file name that is not UTF-8",
                dir.display()
            )
        })?;
        if name != SUMS && entry.file_type().is_ok_and(|t| t.is_file()) {
            names.push(name);
        }
    }
    names.sort();
    let mut sums = String::new();
    for name in &names {
        let bytes = std::fs::read(dir.join(name)).map_err(|e| format!("{name}: {e}"))?;
        sums.push_str(&format!("{}  {name}\n", sha256_hex(&bytes)));
    }
    std::fs::write(dir.join(SUMS), sums).map_err(|e| format!("cannot write {SUMS}: {e}"))?;
    Ok(names)
}

fn file_name(path: &Path) -> Result<String, String> {
    path.file_name()
        .and_then(|name| name.to_str())
        .map(str::to_owned)
        .ok_or_else(|| format!("{}: no UTF-8 file name", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_are_what_sha256sum_writes() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("b.txt"), "b").unwrap();
        std::fs::write(dir.path().join("a.txt"), "abc").unwrap();
        let names = write_sums(dir.path()).unwrap();
        assert_eq!(names, ["a.txt", "b.txt"]);
        let sums = std::fs::read_to_string(dir.path().join(SUMS)).unwrap();
        assert_eq!(
            sums.lines().next().unwrap(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad  a.txt"
        );
        // Written again, the old sums file is not listed in itself.
        assert_eq!(write_sums(dir.path()).unwrap(), names);
    }
}
