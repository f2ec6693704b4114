//! The release-pipeline commands: `manifest`, `image`, `release` and `verify`. They read this
//! executable (to hash it, check that it is self-contained and package it) and write
//! files; `serve`'s zero-IO guarantee is about answering agents, not about these.

use std::path::Path;
use std::process::ExitCode;

use skillpack_release::digest::sha256_hex;
use skillpack_release::elf::Linkage;
use skillpack_release::folder;
use skillpack_release::image::{Image, ImageSpec};
use skillpack_release::provenance::{Builder, Facts};
use skillpack_release::sign::{SigningKey, TrustedKey};
use skillpack_release::verify;

use super::SigningArgs;

use crate::catalog::Catalog;
use crate::cmd;

/// `manifest [--with-binary]` as printed.
pub fn manifest_json(catalog: &Catalog, with_binary: bool) -> Result<String, String> {
    let mut manifest = cmd::changes::manifest(catalog).map_err(|damage| damage.to_string())?;
    if with_binary {
        let bytes = this_executable()?;
        manifest.binary = Some(crate::compile::history::BinaryInfo {
            sha256: crate::compile::sha256_digest(&bytes),
            size: bytes.len() as u64,
        });
    }
    serde_json::to_string_pretty(&manifest).map_err(|e| format!("cannot render the manifest: {e}"))
}

/// `image`: the OCI image of this binary, as a layout folder and/or an archive.
pub fn image(
    catalog: &Catalog,
    layout: Option<&Path>,
    archive: Option<&Path>,
    revision: Option<String>,
) -> Result<String, String> {
    let (bytes, spec) = this_release(catalog, revision)?;
    let image = Image::build(&bytes, &spec)?;
    if let Some(dir) = layout {
        image.write_layout(dir)?;
    }
    if let Some(file) = archive {
        std::fs::write(file, image.archive()?)
            .map_err(|e| format!("{}: cannot write it: {e}", file.display()))?;
    }
    Ok(format!("{} {}", image.manifest_digest, image.tag))
}

/// `release --out DIR`: the release folder.
pub fn folder(
    catalog: &Catalog,
    out: &Path,
    sbom: Option<&Path>,
    revision: Option<String>,
    signing: &SigningArgs,
) -> Result<String, String> {
    let key = signing_key(signing)?;
    let (bytes, spec) = this_release(catalog, revision.clone())?;
    let facts = facts(catalog, revision, signing)?;
    let mut manifest = manifest_json(catalog, true)?;
    manifest.push('\n');
    let changes = cmd::changes::resolve(catalog, None)
        .map(|which| cmd::changes::markdown(catalog, which, usize::MAX))
        .map_err(|error| error.into_body().message)?;
    let written = folder::write(
        &folder::Release {
            binary: &bytes,
            manifest: manifest.as_bytes(),
            changes: changes.as_bytes(),
            image: &spec,
            sbom,
            key: key.as_ref(),
            facts: &facts,
        },
        out,
    )?;
    let signed = match &written.signed_by {
        Some(keyid) => format!(
            "; signed by {keyid} ({}, {}, {}). Check it with: {} verify {} --key <publisher.pub>, or cd {} && sha256sum -c {}",
            folder::SUMS_SIG,
            folder::MANIFEST_SIG,
            skillpack_release::provenance::FILE,
            spec.binary_name,
            out.display(),
            out.display(),
            folder::SUMS
        ),
        None => format!(
            "; NOT signed (--unsigned). Check it with: cd {} && sha256sum -c {}",
            out.display(),
            folder::SUMS
        ),
    };
    Ok(format!(
        "{}: {} and {}; image {} named {}{signed}",
        out.display(),
        written.files.join(", "),
        folder::SUMS,
        written.image.manifest_digest,
        spec.reference(&written.image.tag),
    ))
}

/// The publisher's key: `--signing-key FILE` (or SKILLPACK_SIGNING_KEY_FILE), or the key
/// itself in SKILLPACK_SIGNING_KEY; none only with `--unsigned`.
fn signing_key(signing: &SigningArgs) -> Result<Option<SigningKey>, String> {
    let passphrase = std::env::var("SKILLPACK_SIGNING_KEY_PASSPHRASE").ok();
    let inline = std::env::var("SKILLPACK_SIGNING_KEY")
        .ok()
        .filter(|text| !text.trim().is_empty());
    if signing.unsigned {
        return Ok(None);
    }
    let (text, from) = match (&signing.signing_key, inline) {
        (Some(path), _) => (
            std::fs::read_to_string(path).map_err(|e| {
                format!(
                    "{}: cannot read the signing key: {e} — give the private key file made by `ssh-keygen -t ed25519`",
                    path.display()
                )
            })?,
            path.display().to_string(),
        ),
        (None, Some(text)) => (text, "SKILLPACK_SIGNING_KEY".to_owned()),
        (None, None) => {
            return Err(
                "no signing key: give --signing-key FILE (or set SKILLPACK_SIGNING_KEY_FILE, or SKILLPACK_SIGNING_KEY to the key itself); make one once with `ssh-keygen -t ed25519 -C <publisher> -f <file>` and keep it out of the repository (docs/pinning.md, \"The publisher's key\"), or pass --unsigned for a folder no host can authenticate".to_owned(),
            );
        }
    };
    SigningKey::from_openssh(&text, &from, passphrase.as_deref()).map(Some)
}

/// What the provenance says: the catalog's own facts, the source and toolchain
/// `scripts/release` passes, and the builder from GitHub Actions' variables (or local).
fn facts(
    catalog: &Catalog,
    revision: Option<String>,
    signing: &SigningArgs,
) -> Result<Facts, String> {
    let manifest = cmd::changes::manifest(catalog).map_err(|damage| damage.to_string())?;
    let (commit, dirty) = match revision {
        Some(revision) => match revision.strip_suffix("-dirty") {
            Some(commit) => (Some(commit.to_owned()), true),
            None => (Some(revision), false),
        },
        None => (None, false),
    };
    let cargo_lock_sha256 = match &signing.cargo_lock {
        Some(path) => Some(sha256_hex(&std::fs::read(path).map_err(|e| {
            format!("{}: cannot read it for the provenance: {e}", path.display())
        })?)),
        None => None,
    };
    Ok(Facts {
        repository: signing.source_repository.clone(),
        commit,
        dirty,
        git_ref: signing.source_ref.clone(),
        fingerprint: manifest.fingerprint,
        label: manifest.release.label,
        date: manifest.release.date,
        previous: manifest.history.first().map(|r| r.fingerprint.clone()),
        rustc: signing.rustc.clone(),
        target: signing.target.clone(),
        cargo_lock_sha256,
        builder: Builder::from_env(|name| std::env::var(name).ok().filter(|v| !v.is_empty())),
    })
}

/// `verify PATH --key PUB`: a folder, or a lone binary with its signed manifest.
pub fn verify(
    path: &Path,
    key: &Path,
    manifest: Option<&Path>,
    signature: Option<&Path>,
) -> ExitCode {
    let trusted = match std::fs::read_to_string(key)
        .map_err(|e| format!("{}: cannot read the public key: {e}", key.display()))
        .and_then(|text| TrustedKey::parse_all(&text, &key.display().to_string()))
    {
        Ok(trusted) => trusted,
        Err(error) => {
            eprintln!("error: {error}");
            return ExitCode::FAILURE;
        }
    };
    if !path.exists() {
        eprintln!(
            "error: {}: no such folder or file — give the release folder, or the binary (with its manifest.json beside it)",
            path.display()
        );
        return ExitCode::FAILURE;
    }
    // Against each trusted key (an allowed_signers file may hold two while the publisher
    // rotates): the first that verifies it, else the report with the fewest failures.
    let mut reports: Vec<(verify::Report, &TrustedKey)> = Vec::new();
    for trusted in &trusted {
        let report = if path.is_dir() {
            verify::folder(path, trusted)
        } else {
            let beside = path
                .parent()
                .unwrap_or(Path::new("."))
                .join(folder::MANIFEST);
            verify::binary(path, manifest.unwrap_or(&beside), signature, trusted)
        };
        let passed = report.passed();
        reports.push((report, trusted));
        if passed {
            break;
        }
    }
    let Some((report, trusted)) = reports
        .into_iter()
        .min_by_key(|(report, _)| report.failures().count())
    else {
        return ExitCode::FAILURE;
    };
    for check in &report.checks {
        match check {
            Ok(what) => println!("ok: {what}"),
            Err(what) => eprintln!("FAILED: {what}"),
        }
    }
    if report.passed() {
        println!(
            "verified: {} is the release signed by {}",
            path.display(),
            trusted.keyid()
        );
        ExitCode::SUCCESS
    } else {
        eprintln!(
            "error: {} is NOT verified ({} of {} checks failed) — do not import it",
            path.display(),
            report.failures().count(),
            report.checks.len()
        );
        ExitCode::FAILURE
    }
}

fn this_executable() -> Result<Vec<u8>, String> {
    std::env::current_exe()
        .and_then(std::fs::read)
        .map_err(|error| {
            format!(
                "cannot read this executable: {error} — run it from a readable path (with --with-binary, or leave it out and record `sha256sum` of the binary beside the manifest)"
            )
        })
}

/// This executable's bytes, refused unless self-contained, and its image's facts.
fn this_release(
    catalog: &Catalog,
    revision: Option<String>,
) -> Result<(Vec<u8>, ImageSpec), String> {
    let bytes = this_executable()?;
    let linkage = Linkage::read(&bytes).map_err(|e| format!("this executable: {e}"))?;
    let problems = linkage.problems();
    if !problems.is_empty() {
        return Err(format!(
            "this binary is not self-contained, so it is no release: {}",
            problems.join("; ")
        ));
    }
    let binary_name = std::env::current_exe()
        .ok()
        .and_then(|path| path.file_name()?.to_str().map(str::to_owned))
        .unwrap_or_else(|| catalog.name().to_owned());
    let manifest = cmd::changes::manifest(catalog).map_err(|damage| damage.to_string())?;
    let non_empty = |text: &str| (!text.is_empty()).then(|| text.to_owned());
    Ok((
        bytes,
        ImageSpec {
            binary_name,
            name: manifest.name,
            version: catalog.server_version().to_owned(),
            label: non_empty(&manifest.release.label),
            fingerprint: manifest.fingerprint,
            revision,
            created: manifest
                .release
                .epoch
                .zip(non_empty(&manifest.release.date)),
            architecture: linkage.architecture.to_owned(),
        },
    ))
}
