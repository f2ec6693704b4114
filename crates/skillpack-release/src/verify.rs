//! `verify`: what a host checks before it imports a release, against the publisher's public
//! key it was given out of band. Every check is reported; a failure says what is wrong,
//! where, and what to do. Nothing from the folder is executed (see below).
//!
//! A folder: `SHA256SUMS` signed by the key (`SHA256SUMS.sig`), every file it lists present
//! with that sha256 and no other file, the provenance envelope signed by the key and its
//! subjects exactly the listed files, `manifest.json` signed by the key, the binary the
//! manifest names self-contained, the image archive whole (every blob's digest) and holding
//! that same binary, and the binary carrying the catalog fingerprint the manifest names.
//!
//! A lone binary: its `manifest.json` signed by the key (`manifest.json.sig` beside it), the
//! binary's sha256 and size the manifest's, self-contained, carrying that fingerprint.
//!
//! Nothing is executed: the binary's fingerprint is read from its bytes (the baked
//! catalog's start-up record holds it as `blake3:<hex>`, the string `skillpack fingerprint`
//! prints and `--expect-fingerprint` compares), so a binary is checked before it ever runs,
//! for any architecture. (Running it would also need `fork`, which in a static glibc binary
//! links the name-service code `release` refuses.)

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::digest::{oci_digest, sha256_hex};
use crate::elf::Linkage;
use crate::folder::{self, MANIFEST, MANIFEST_SIG, SIGNATURE_FILES, SUMS, SUMS_SIG};
use crate::provenance;
use crate::sign::TrustedKey;

/// Every check, in order: `Ok(what passed)` or `Err(what failed — what to do)`.
#[derive(Debug, Default)]
pub struct Report {
    pub checks: Vec<Result<String, String>>,
}

impl Report {
    fn ok(&mut self, what: impl Into<String>) {
        self.checks.push(Ok(what.into()));
    }
    fn fail(&mut self, what: impl Into<String>) {
        self.checks.push(Err(what.into()));
    }
    fn check(&mut self, result: Result<String, String>) {
        self.checks.push(result);
    }
    pub fn passed(&self) -> bool {
        self.checks.iter().all(Result::is_ok)
    }
    pub fn failures(&self) -> impl Iterator<Item = &str> {
        self.checks
            .iter()
            .filter_map(|c| c.as_ref().err().map(String::as_str))
    }
}

fn read(path: &Path, missing: &str) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            format!("{}: missing — {missing}", path.display())
        } else {
            format!("{}: cannot read it: {e}", path.display())
        }
    })
}

/// Verify the release folder `dir`.
pub fn folder(dir: &Path, key: &TrustedKey) -> Report {
    let mut report = Report::default();
    let sums = match read(
        &dir.join(SUMS),
        "this is not a release folder (or not all of it was copied)",
    ) {
        Ok(sums) => sums,
        Err(error) => {
            report.fail(error);
            return report;
        }
    };

    // The signature first: nothing else in the folder means anything without it.
    let signed = read(
        &dir.join(SUMS_SIG),
        "the folder is not signed; ask the publisher for a signed release",
    )
    .and_then(|sig| key.check_sshsig(SUMS_SIG, &sig, &sums))
    .map(|()| format!("{SUMS_SIG}: {SUMS} is signed by {}", key.keyid()));
    report.check(signed);

    let listed = match folder::parse_sums(&sums) {
        Ok(listed) => listed,
        Err(error) => {
            report.fail(format!("{SUMS}: {error}"));
            return report;
        }
    };
    let mut contents = BTreeMap::new();
    for (name, expected) in &listed {
        let path = dir.join(name);
        match read(&path, &format!("{SUMS} lists it: copy the whole folder")) {
            Ok(bytes) => {
                let actual = sha256_hex(&bytes);
                if actual == *expected {
                    report.ok(format!("{name}: sha256 as listed"));
                } else {
                    report.fail(format!(
                        "{name}: sha256 {actual} ({} bytes), but {SUMS} says {expected} — the file was changed or cut short after the release; fetch it again from the publisher",
                        bytes.len()
                    ));
                }
                // Kept either way: what is wrong inside a changed file is said below too.
                contents.insert(name.clone(), bytes);
            }
            Err(error) => report.fail(error),
        }
    }
    match std::fs::read_dir(dir) {
        Ok(entries) => {
            let mut extra: Vec<String> = entries
                .filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|name| {
                    name != SUMS
                        && !SIGNATURE_FILES.contains(&name.as_str())
                        && !listed.iter().any(|(listed, _)| listed == name)
                })
                .collect();
            extra.sort();
            for name in extra {
                report.fail(format!(
                    "{name}: in the folder but not in {SUMS} — nobody vouches for it; remove it, or fetch the folder again"
                ));
            }
        }
        Err(error) => report.fail(format!("{}: cannot list it: {error}", dir.display())),
    }

    provenance_check(&mut report, dir, key, &listed);

    let Some(manifest) = contents.get(MANIFEST) else {
        if !listed.iter().any(|(name, _)| name == MANIFEST) {
            report.fail(format!(
                "{MANIFEST}: not in {SUMS} — this is not a release folder"
            ));
        }
        return report;
    };
    manifest_signature(&mut report, &dir.join(MANIFEST_SIG), key, manifest);
    let recorded = match recorded_binary(manifest) {
        Ok(recorded) => recorded,
        Err(error) => {
            report.fail(error);
            return report;
        }
    };
    let Some((name, binary)) = contents
        .iter()
        .find(|(_, bytes)| sha256_hex(bytes) == recorded.sha256)
    else {
        report.fail(format!(
            "{MANIFEST}: names a binary with sha256 {}, and no file of the folder has it — the binary was replaced; fetch the release again",
            recorded.sha256
        ));
        return report;
    };
    self_contained(&mut report, name, binary);
    let image_name = format!("{name}-image.tar");
    match contents.get(&image_name) {
        Some(archive) => {
            let checked = image(archive, binary, &recorded.fingerprint)
                .map(|digest| format!("{image_name}: whole (image {digest}), holds /{name} and names fingerprint {}", recorded.fingerprint))
                .map_err(|e| format!("{image_name}: {e}"));
            report.check(checked);
        }
        None if listed.iter().any(|(listed, _)| *listed == image_name) => {}
        None => report.fail(format!(
            "{image_name}: not in the folder — a release folder has the image of its binary"
        )),
    }
    carries_fingerprint(&mut report, name, binary, &recorded.fingerprint);
    report
}

/// Verify a binary shipped alone, with its manifest (`manifest.json`, signed in
/// `manifest.json.sig` beside it unless `signature` says otherwise).
pub fn binary(
    binary_path: &Path,
    manifest_path: &Path,
    signature: Option<&Path>,
    key: &TrustedKey,
) -> Report {
    let mut report = Report::default();
    let name = binary_path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| binary_path.display().to_string());
    let manifest = match read(
        manifest_path,
        "give the release's manifest.json with --manifest",
    ) {
        Ok(manifest) => manifest,
        Err(error) => {
            report.fail(error);
            return report;
        }
    };
    let signature_path = signature.map(Path::to_path_buf).unwrap_or_else(|| {
        let mut path = manifest_path.as_os_str().to_owned();
        path.push(".sig");
        PathBuf::from(path)
    });
    manifest_signature(&mut report, &signature_path, key, &manifest);
    let recorded = match recorded_binary(&manifest) {
        Ok(recorded) => recorded,
        Err(error) => {
            report.fail(error);
            return report;
        }
    };
    let bytes = match read(binary_path, "give the binary's path") {
        Ok(bytes) => bytes,
        Err(error) => {
            report.fail(error);
            return report;
        }
    };
    let actual = sha256_hex(&bytes);
    if actual == recorded.sha256 && bytes.len() as u64 == recorded.size {
        report.ok(format!(
            "{name}: sha256 and size as {MANIFEST} records them"
        ));
    } else {
        report.fail(format!(
            "{name}: sha256 {actual} ({} bytes), but {MANIFEST} records {} ({} bytes) — this is not the released binary; fetch it again",
            bytes.len(),
            recorded.sha256,
            recorded.size
        ));
    }
    self_contained(&mut report, &name, &bytes);
    carries_fingerprint(&mut report, &name, &bytes, &recorded.fingerprint);
    report
}

fn manifest_signature(report: &mut Report, path: &Path, key: &TrustedKey, manifest: &[u8]) {
    let what = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| MANIFEST_SIG.to_owned());
    let checked = read(
        path,
        "the manifest is not signed; ask the publisher for a signed release",
    )
    .and_then(|sig| key.check_sshsig(&what, &sig, manifest))
    .map(|()| format!("{what}: {MANIFEST} is signed by {}", key.keyid()));
    report.check(checked);
}

struct Recorded {
    sha256: String,
    size: u64,
    fingerprint: String,
}

fn recorded_binary(manifest: &[u8]) -> Result<Recorded, String> {
    let value: Value =
        serde_json::from_slice(manifest).map_err(|e| format!("{MANIFEST}: not JSON ({e})"))?;
    let sha256 = value["binary"]["sha256"]
        .as_str()
        .and_then(|s| s.strip_prefix("sha256:"))
        .ok_or_else(|| {
            format!("{MANIFEST}: no `binary.sha256` — it was written without --with-binary, so it cannot vouch for a binary")
        })?;
    Ok(Recorded {
        sha256: sha256.to_owned(),
        size: value["binary"]["size"].as_u64().unwrap_or(0),
        fingerprint: value["fingerprint"].as_str().unwrap_or("").to_owned(),
    })
}

fn self_contained(report: &mut Report, name: &str, bytes: &[u8]) {
    let checked = Linkage::read(bytes)
        .map_err(|e| format!("{name}: {e}"))
        .and_then(|linkage| {
            let problems = linkage.problems();
            if problems.is_empty() {
                Ok(format!("{name}: self-contained (static, no name service)"))
            } else {
                Err(format!(
                    "{name}: not self-contained: {}",
                    problems.join("; ")
                ))
            }
        });
    report.check(checked);
}

/// The binary's baked catalog carries the manifest's fingerprint.
fn carries_fingerprint(report: &mut Report, name: &str, binary: &[u8], fingerprint: &str) {
    let hex = fingerprint.strip_prefix("blake3:").unwrap_or("");
    if hex.len() != 64 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        report.fail(format!(
            "{MANIFEST}: its fingerprint {fingerprint:?} is not `blake3:<64 hex>` — not a manifest of a release"
        ));
        return;
    }
    let needle = fingerprint.as_bytes();
    if binary.windows(needle.len()).any(|window| window == needle) {
        report.ok(format!(
            "{name}: serves the catalog {fingerprint}, as {MANIFEST} says (pin it with --expect-fingerprint {})",
            &hex[..16]
        ));
    } else {
        report.fail(format!(
            "{name}: does not carry the fingerprint {fingerprint} that {MANIFEST} names — the manifest belongs to another release"
        ));
    }
}

fn provenance_check(
    report: &mut Report,
    dir: &Path,
    key: &TrustedKey,
    listed: &[(String, String)],
) {
    let what = provenance::FILE;
    let checked = read(&dir.join(what), "the folder has no provenance; ask the publisher for a signed release")
        .and_then(|bytes| {
            let line = bytes.split(|b| *b == b'\n').next().unwrap_or(&[]);
            key.check_dsse(what, line)
        })
        .and_then(|payload| {
            let statement: Value = serde_json::from_slice(&payload)
                .map_err(|e| format!("{what}: the statement is not JSON ({e})"))?;
            if statement["_type"] != provenance::STATEMENT_TYPE
                || statement["predicateType"] != provenance::PREDICATE_TYPE
            {
                return Err(format!(
                    "{what}: not an in-toto statement with SLSA v1 provenance (`_type` {}, `predicateType` {})",
                    statement["_type"], statement["predicateType"]
                ));
            }
            let subjects: Vec<(String, String)> = statement["subject"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|s| {
                    (
                        s["name"].as_str().unwrap_or("").to_owned(),
                        s["digest"]["sha256"].as_str().unwrap_or("").to_owned(),
                    )
                })
                .collect();
            for (name, sha) in listed {
                match subjects.iter().find(|(subject, _)| subject == name) {
                    Some((_, digest)) if digest == sha => {}
                    Some((_, digest)) => {
                        return Err(format!(
                            "{what}: its subject {name} has sha256 {digest}, {SUMS} says {sha} — the provenance is of another build"
                        ));
                    }
                    None => {
                        return Err(format!("{what}: {name} is not one of its subjects — the provenance is of another build"));
                    }
                }
            }
            if let Some((name, _)) = subjects.iter().find(|(s, _)| !listed.iter().any(|(l, _)| l == s)) {
                return Err(format!("{what}: its subject {name} is not in {SUMS}"));
            }
            let source = &statement["predicate"]["buildDefinition"]["externalParameters"]["source"];
            Ok(format!(
                "{what}: signed by {}; SLSA provenance of these {} files, from {} at {}, built by {}",
                key.keyid(),
                listed.len(),
                source["uri"].as_str().unwrap_or("an unnamed repository"),
                source["digest"]["gitCommit"].as_str().unwrap_or("an unknown commit"),
                statement["predicate"]["runDetails"]["builder"]["id"].as_str().unwrap_or("?")
            ))
        });
    report.check(checked);
}

/// The image archive: every file of the layout whole, every blob its digest, the layer
/// holding exactly `binary`, the fingerprint label the manifest's. Returns the image digest.
pub fn image(archive: &[u8], binary: &[u8], fingerprint: &str) -> Result<String, String> {
    let damaged = |e: std::io::Error| {
        format!("not a whole image archive ({e}) — it was cut short or damaged; fetch it again")
    };
    let mut files = BTreeMap::new();
    let mut tar = tar::Archive::new(archive);
    for entry in tar.entries().map_err(damaged)? {
        let mut entry = entry.map_err(damaged)?;
        let path = entry
            .path()
            .map_err(damaged)?
            .to_string_lossy()
            .into_owned();
        let mut bytes = Vec::new();
        entry.read_to_end(&mut bytes).map_err(damaged)?;
        files.insert(path, bytes);
    }
    let blob = |digest: &str| -> Result<&Vec<u8>, String> {
        let path = format!("blobs/sha256/{}", digest.trim_start_matches("sha256:"));
        let bytes = files.get(&path).ok_or_else(|| {
            format!(
                "not a whole image archive: {path} is missing — it was cut short; fetch it again"
            )
        })?;
        if oci_digest(bytes) != digest {
            return Err(format!(
                "{path} does not have its digest — the archive is damaged; fetch it again"
            ));
        }
        Ok(bytes)
    };
    let json = |bytes: &[u8], what: &str| -> Result<Value, String> {
        serde_json::from_slice(bytes).map_err(|e| format!("{what} is not JSON ({e})"))
    };
    let index = json(
        files.get("index.json").ok_or(
            "not a whole image archive: index.json is missing — it was cut short; fetch it again",
        )?,
        "index.json",
    )?;
    let manifest_digest = index["manifests"][0]["digest"]
        .as_str()
        .ok_or("index.json names no image")?
        .to_owned();
    let manifest = json(blob(&manifest_digest)?, "the image manifest")?;
    let config = json(
        blob(
            manifest["config"]["digest"]
                .as_str()
                .ok_or("the image manifest names no config")?,
        )?,
        "the image config",
    )?;
    let layer = blob(
        manifest["layers"][0]["digest"]
            .as_str()
            .ok_or("the image manifest names no layer")?,
    )?;
    // At most the binary's size and some headers: a layer is never inflated without bound.
    let limit = binary.len() as u64 + 64 * 1024;
    let mut inflated = Vec::new();
    flate2::read::GzDecoder::new(layer.as_slice())
        .take(limit + 1)
        .read_to_end(&mut inflated)
        .map_err(|e| format!("the layer does not decompress ({e}) — the archive is damaged"))?;
    let mut held = Vec::new();
    let mut layer_tar = tar::Archive::new(inflated.as_slice());
    for entry in layer_tar
        .entries()
        .map_err(|e| format!("the layer is not a tar ({e})"))?
    {
        let mut entry = entry.map_err(|e| format!("the layer is damaged ({e})"))?;
        let mut bytes = Vec::new();
        entry
            .read_to_end(&mut bytes)
            .map_err(|e| format!("the layer is damaged ({e})"))?;
        held.push(bytes);
    }
    if held.len() != 1 || held[0] != binary {
        return Err(
            "its layer does not hold exactly the folder's binary — the image is of another build"
                .into(),
        );
    }
    let label = config["config"]["Labels"]["io.skillpack.fingerprint"]
        .as_str()
        .unwrap_or("");
    if label != fingerprint {
        return Err(format!(
            "its label io.skillpack.fingerprint is {label:?}, the manifest's fingerprint {fingerprint:?}"
        ));
    }
    Ok(manifest_digest)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::image::{Image, ImageSpec};

    fn archive(binary: &[u8]) -> Vec<u8> {
        let spec = ImageSpec {
            binary_name: "skillpack".into(),
            name: "skillpack".into(),
            version: "0.1.0+5c2dda73a9b1".into(),
            label: Some("2026.12".into()),
            fingerprint: "blake3:5c2d".into(),
            revision: None,
            created: None,
            architecture: "amd64".into(),
        };
        Image::build(binary, &spec).unwrap().archive().unwrap()
    }

    #[test]
    fn an_image_is_whole_holds_the_binary_and_says_when_it_is_not() {
        let bytes = archive(b"\x7fELF the binary");
        assert!(image(&bytes, b"\x7fELF the binary", "blake3:5c2d").is_ok());
        let other = image(&bytes, b"\x7fELF another", "blake3:5c2d").unwrap_err();
        assert!(other.contains("does not hold exactly"), "{other}");
        let label = image(&bytes, b"\x7fELF the binary", "blake3:ffff").unwrap_err();
        assert!(label.contains("io.skillpack.fingerprint"), "{label}");
        for cut in [0, 100, 1024, bytes.len() / 2, bytes.len() - 2048] {
            let error = image(&bytes[..cut], b"\x7fELF the binary", "blake3:5c2d").unwrap_err();
            assert!(
                error.contains("not a whole image archive"),
                "{cut}: {error}"
            );
        }
        // Garbage is an error, never a panic.
        assert!(image(&[0xff; 4096], b"x", "blake3:5c2d").is_err());
    }

    #[test]
    fn sums_lines_that_are_not_files_of_the_folder_are_refused() {
        let hex = "a".repeat(64);
        assert!(folder::parse_sums(format!("{hex}  skillpack\n").as_bytes()).is_ok());
        for bad in [
            format!("{hex}  ../etc/passwd\n"),
            format!("{hex}  dir/file\n"),
            format!("{hex} skillpack\n"),
            "abc  skillpack\n".to_owned(),
            format!("{hex}  a\n{hex}  a\n"),
            String::new(),
        ] {
            assert!(folder::parse_sums(bad.as_bytes()).is_err(), "{bad:?}");
        }
    }
}
