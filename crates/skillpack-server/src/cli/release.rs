//! The release-pipeline commands: `manifest`, `image` and `release`. They read this
//! executable (to hash it, check that it is self-contained and package it) and write
//! files; `serve`'s zero-IO guarantee is about answering agents, not about these.

use std::path::Path;

use skillpack_release::elf::Linkage;
use skillpack_release::folder;
use skillpack_release::image::{Image, ImageSpec};

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
) -> Result<String, String> {
    let (bytes, spec) = this_release(catalog, revision)?;
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
        },
        out,
    )?;
    Ok(format!(
        "{}: {} and {}; image {} tagged {}. Check it with: cd {} && sha256sum -c {}",
        out.display(),
        written.files.join(", "),
        folder::SUMS,
        written.image.manifest_digest,
        written.image.tag,
        out.display(),
        folder::SUMS
    ))
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
