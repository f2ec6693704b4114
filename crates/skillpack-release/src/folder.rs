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
//!   SHA256SUMS.sig        SSHSIG signature of SHA256SUMS by the publisher's key
//!   manifest.json.sig     SSHSIG signature of manifest.json (for a binary shipped alone)
//!   provenance.intoto.jsonl  the in-toto statement (SLSA provenance v1), signed in DSSE
//! ```
//!
//! Everything but the last three is the same bytes for the same source and settings; the
//! three depend on the key too (`sign`, `provenance`), and `SHA256SUMS` does not list them.

use std::path::Path;

use crate::digest::sha256_hex;
use crate::image::{Image, ImageSpec};
use crate::out_dir::create_empty_dir;
use crate::provenance::{self, Facts};
use crate::sign::{PAYLOAD_TYPE, SigningKey};

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
    /// The publisher's key: with it the folder is signed and carries its provenance.
    pub key: Option<&'a SigningKey>,
    /// What the provenance statement says of the build.
    pub facts: &'a Facts,
}

/// What was written.
#[derive(Debug, Clone)]
pub struct Written {
    /// File names in the folder, as `SHA256SUMS` lists them.
    pub files: Vec<String>,
    pub image: Image,
    /// The signing key's id (`SHA256:…`), when the folder was signed.
    pub signed_by: Option<String>,
}

/// The name of the checksum file.
pub const SUMS: &str = "SHA256SUMS";
/// Its signature.
pub const SUMS_SIG: &str = "SHA256SUMS.sig";
/// The manifest, and its signature.
pub const MANIFEST: &str = "manifest.json";
pub const MANIFEST_SIG: &str = "manifest.json.sig";

/// The files of a signed folder that `SHA256SUMS` does not list: they depend on the key.
pub const SIGNATURE_FILES: [&str; 3] = [SUMS_SIG, MANIFEST_SIG, provenance::FILE];

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
        (MANIFEST.to_owned(), release.manifest),
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
    let signed_by = match release.key {
        Some(key) => Some(sign(out, key, release.facts, release.manifest)?),
        None => None,
    };
    Ok(Written {
        files,
        image,
        signed_by,
    })
}

/// Sign the folder: `SHA256SUMS.sig`, `manifest.json.sig` and the provenance envelope.
fn sign(out: &Path, key: &SigningKey, facts: &Facts, manifest: &[u8]) -> Result<String, String> {
    let sums = std::fs::read(out.join(SUMS)).map_err(|e| format!("cannot read {SUMS}: {e}"))?;
    let subjects = parse_sums(&sums).map_err(|e| format!("{SUMS}: {e}"))?;
    let envelope = key.dsse(PAYLOAD_TYPE, &provenance::statement(facts, &subjects));
    let mut envelope_line = envelope;
    envelope_line.push(b'\n');
    for (name, bytes) in [
        (SUMS_SIG, key.sshsig(&sums)?.into_bytes()),
        (MANIFEST_SIG, key.sshsig(manifest)?.into_bytes()),
        (provenance::FILE, envelope_line),
    ] {
        let path = out.join(name);
        std::fs::write(&path, bytes)
            .map_err(|e| format!("{}: cannot write it: {e}", path.display()))?;
    }
    Ok(key.public().keyid())
}

/// The `(name, sha256 hex)` lines of a `SHA256SUMS` file, as this module writes it and
/// `sha256sum` reads it (`<64 hex>  <name>`; a `*` before the name marks binary mode).
/// Names are plain file names of the folder.
pub fn parse_sums(bytes: &[u8]) -> Result<Vec<(String, String)>, String> {
    let text = std::str::from_utf8(bytes).map_err(|_| "not UTF-8 text".to_owned())?;
    let mut entries = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line_no = number + 1;
        let bad = || format!("line {line_no} is not `<sha256 hex>  <file name>`: {line:.80?}");
        let (hex, name) = line.split_once(' ').ok_or_else(bad)?;
        let name = name
            .strip_prefix(' ')
            .or_else(|| name.strip_prefix('*'))
            .ok_or_else(bad)?;
        if hex.len() != 64 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(bad());
        }
        if name.is_empty() || name.contains('/') || name == "." || name == ".." {
            return Err(format!(
                "line {line_no} names {name:?}, which is not a file of this folder"
            ));
        }
        if entries.iter().any(|(seen, _)| seen == name) {
            return Err(format!("line {line_no} lists {name:?} a second time"));
        }
        entries.push((name.to_owned(), hex.to_ascii_lowercase()));
    }
    if entries.is_empty() {
        return Err("it lists no file".to_owned());
    }
    Ok(entries)
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
        if name != SUMS
            && !SIGNATURE_FILES.contains(&name.as_str())
            && entry.file_type().is_ok_and(|t| t.is_file())
        {
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
