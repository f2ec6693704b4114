//! An OCI image of the catalog binary alone: one layer holding the binary at `/<name>`, no
//! base image, no shell, a numeric non-root user, and `serve --http 0.0.0.0:8080` as its
//! entrypoint. Written as an OCI image layout (a folder `umoci` and `skopeo` read as
//! `oci:DIR`) and as an `oci-archive` (that folder as one tar, which `podman load` and
//! `skopeo copy oci-archive:…` read), without any container daemon.
//!
//! Reproducible by construction: every tar header has fixed owner, mode and time (the
//! release date, or 0), the gzip header carries no time or name, and the JSON documents
//! are written by serde_json in a fixed key order. The documents are written here rather
//! than with the `oci-spec` crate, whose annotation and label maps are `HashMap`s: their
//! serialised order changes from run to run, and with it every digest.

use std::io::Write;
use std::path::Path;

use serde_json::{Map, Value, json};

use crate::digest::{oci_digest, sha256_hex};

/// The user the image runs as: the conventional "nonroot" id (distroless images use it),
/// numeric so that Kubernetes' `runAsNonRoot` can verify it without an `/etc/passwd`.
pub const USER: &str = "65532:65532";

/// The port of the image's entrypoint (`serve --http 0.0.0.0:8080`).
pub const PORT: u16 = 8080;

const MEDIA_MANIFEST: &str = "application/vnd.oci.image.manifest.v1+json";
const MEDIA_CONFIG: &str = "application/vnd.oci.image.config.v1+json";
const MEDIA_LAYER: &str = "application/vnd.oci.image.layer.v1.tar+gzip";
const MEDIA_INDEX: &str = "application/vnd.oci.image.index.v1+json";

/// What goes into the image besides the binary.
#[derive(Debug, Clone)]
pub struct ImageSpec {
    /// The file name of the binary in the image (`/skillpack`, `/acme-docs`).
    pub binary_name: String,
    /// The catalog's name (`skillpack manifest`'s `name`).
    pub name: String,
    /// `<crate version>+<12-hex fingerprint>`, as `--version` and `serverInfo` say it.
    pub version: String,
    /// The release label (`SKILLPACK_RELEASE`), if any.
    pub label: Option<String>,
    /// `blake3:<hex>`.
    pub fingerprint: String,
    /// The source revision (a git commit), if known.
    pub revision: Option<String>,
    /// The release date: seconds since the epoch and its RFC 3339 spelling, both as the
    /// binary's manifest gives them (`SOURCE_DATE_EPOCH` at build time). Never the clock.
    pub created: Option<(u64, String)>,
    /// The OCI architecture (`amd64`, `arm64`).
    pub architecture: String,
}

impl ImageSpec {
    /// The image's tag (`org.opencontainers.image.ref.name`): the release label, or the
    /// crate version and short fingerprint (`0.1.0-5c2dda73a9b1`).
    pub fn tag(&self) -> Result<String, String> {
        let tag = match &self.label {
            Some(label) => label.clone(),
            None => self.version.replace('+', "-"),
        };
        if valid_tag(&tag) {
            Ok(tag)
        } else {
            Err(format!(
                "the release label {tag:?} cannot be an image tag — use letters, digits and `.` `_` `-` (at most 128, starting with a letter or digit), as in SKILLPACK_RELEASE=2026.12"
            ))
        }
    }

    /// The name a container engine gives the loaded image: `<binary name>:<tag>`
    /// (`skillpack:2026.12`, `acme-docs:2026.12`). podman shows it as `localhost/…`, Docker
    /// as `docker.io/library/…`: the short name runs in both.
    pub fn reference(&self, tag: &str) -> String {
        format!("{}:{tag}", self.binary_name.to_ascii_lowercase())
    }

    fn annotations(&self) -> Map<String, Value> {
        let mut annotations = Map::new();
        let mut put = |key: &str, value: &str| {
            annotations.insert(key.to_owned(), Value::String(value.to_owned()));
        };
        put("org.opencontainers.image.title", &self.name);
        put("org.opencontainers.image.version", &self.version);
        if let Some(revision) = &self.revision {
            put("org.opencontainers.image.revision", revision);
        }
        if let Some((_, date)) = &self.created {
            put("org.opencontainers.image.created", date);
        }
        put("io.skillpack.fingerprint", &self.fingerprint);
        if let Some(label) = &self.label {
            put("io.skillpack.release", label);
        }
        annotations
    }
}

/// Docker's tag grammar, which also satisfies OCI's `ref.name`: so that the same tag works
/// with skopeo, podman and `docker load`.
fn valid_tag(tag: &str) -> bool {
    let mut chars = tag.chars();
    tag.len() <= 128
        && chars.next().is_some_and(|c| c.is_ascii_alphanumeric())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

/// A built image: its blobs and the layout's two top-level files, in memory.
#[derive(Debug, Clone)]
pub struct Image {
    /// `(digest, bytes)`: the layer, the config and the manifest.
    blobs: Vec<(String, Vec<u8>)>,
    index: Vec<u8>,
    /// Docker's `manifest.json`.
    docker_manifest: Vec<u8>,
    /// The image manifest's digest: the image's identity (`skopeo inspect`'s `Digest`).
    pub manifest_digest: String,
    pub tag: String,
    mtime: u64,
}

const OCI_LAYOUT: &[u8] = b"{\"imageLayoutVersion\":\"1.0.0\"}";

impl Image {
    pub fn build(binary: &[u8], spec: &ImageSpec) -> Result<Image, String> {
        let tag = spec.tag()?;
        let mtime = spec.created.as_ref().map_or(0, |(epoch, _)| *epoch);

        // The layer: the binary alone, owned by root and not writable by the user it runs as.
        let mut layer_tar = tar::Builder::new(Vec::new());
        append(&mut layer_tar, &spec.binary_name, binary, 0o555, mtime)
            .map_err(|e| format!("cannot write the image layer: {e}"))?;
        let layer_tar = layer_tar
            .into_inner()
            .map_err(|e| format!("cannot write the image layer: {e}"))?;
        let diff_id = oci_digest(&layer_tar);
        let mut gzip = flate2::GzBuilder::new()
            .mtime(0)
            .write(Vec::new(), flate2::Compression::best());
        gzip.write_all(&layer_tar)
            .map_err(|e| format!("cannot compress the image layer: {e}"))?;
        let layer = gzip
            .finish()
            .map_err(|e| format!("cannot compress the image layer: {e}"))?;

        let annotations = spec.annotations();
        let entrypoint = json!([
            format!("/{}", spec.binary_name),
            "serve",
            "--http",
            format!("0.0.0.0:{PORT}")
        ]);
        let mut config = Map::new();
        if let Some((_, date)) = &spec.created {
            config.insert("created".into(), json!(date));
        }
        config.insert("architecture".into(), json!(spec.architecture));
        config.insert("os".into(), json!("linux"));
        config.insert(
            "config".into(),
            json!({
                "User": USER,
                "ExposedPorts": { format!("{PORT}/tcp"): {} },
                "Entrypoint": entrypoint,
                "WorkingDir": "/",
                "StopSignal": "SIGTERM",
                "Labels": annotations,
            }),
        );
        config.insert(
            "rootfs".into(),
            json!({ "type": "layers", "diff_ids": [diff_id] }),
        );
        let mut history = Map::new();
        if let Some((_, date)) = &spec.created {
            history.insert("created".into(), json!(date));
        }
        history.insert(
            "created_by".into(),
            json!(format!(
                "skillpack-release: /{} alone, a static binary",
                spec.binary_name
            )),
        );
        config.insert("history".into(), json!([history]));
        let config = to_bytes(&Value::Object(config));

        let manifest = to_bytes(&json!({
            "schemaVersion": 2,
            "mediaType": MEDIA_MANIFEST,
            "config": descriptor(MEDIA_CONFIG, &config),
            "layers": [descriptor(MEDIA_LAYER, &layer)],
            "annotations": annotations,
        }));
        let manifest_digest = oci_digest(&manifest);

        let mut entry = descriptor(MEDIA_MANIFEST, &manifest);
        let mut index_annotations = annotations.clone();
        index_annotations.insert(
            "org.opencontainers.image.ref.name".into(),
            Value::String(tag.clone()),
        );
        // podman and containerd (Docker's containerd image store) name a loaded image after
        // this annotation, a whole reference; without it podman takes the bare tag as the
        // image's name (`localhost/2026.12:latest`).
        index_annotations.insert(
            "io.containerd.image.name".into(),
            Value::String(spec.reference(&tag)),
        );
        entry["platform"] = json!({ "architecture": spec.architecture, "os": "linux" });
        entry["annotations"] = Value::Object(index_annotations);
        let index = to_bytes(&json!({
            "schemaVersion": 2,
            "mediaType": MEDIA_INDEX,
            "manifests": [entry],
        }));

        // Docker's own archive index beside the OCI one, as `docker save` (25 and later)
        // writes it: Docker's classic image store reads only this file, and names the image
        // after `RepoTags`.
        let docker_manifest = to_bytes(&json!([{
            "Config": blob_path(&oci_digest(&config)),
            "RepoTags": [spec.reference(&tag)],
            "Layers": [blob_path(&oci_digest(&layer))],
        }]));

        let mut blobs = vec![
            (oci_digest(&layer), layer),
            (oci_digest(&config), config),
            (manifest_digest.clone(), manifest),
        ];
        blobs.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(Image {
            blobs,
            index,
            docker_manifest,
            manifest_digest,
            tag,
            mtime,
        })
    }

    /// The layout's files, relative to its root, in the order the archive holds them.
    fn files(&self) -> Vec<(String, &[u8])> {
        let mut files = vec![
            ("oci-layout".to_owned(), OCI_LAYOUT),
            ("index.json".to_owned(), self.index.as_slice()),
        ];
        for (digest, bytes) in &self.blobs {
            files.push((blob_path(digest), bytes.as_slice()));
        }
        files
    }

    /// Write the OCI image layout into `dir` (created; refused if it holds anything).
    pub fn write_layout(&self, dir: &Path) -> Result<(), String> {
        crate::out_dir::create_empty_dir(dir)?;
        for (path, bytes) in self.files() {
            let to = dir.join(&path);
            if let Some(parent) = to.parent() {
                std::fs::create_dir_all(parent)
                    .map_err(|e| format!("{}: cannot create it: {e}", parent.display()))?;
            }
            std::fs::write(&to, bytes)
                .map_err(|e| format!("{}: cannot write it: {e}", to.display()))?;
        }
        Ok(())
    }

    /// The layout as one tar (an `oci-archive`), folders before their files.
    pub fn archive(&self) -> Result<Vec<u8>, String> {
        let fail = |e: std::io::Error| format!("cannot write the image archive: {e}");
        let mut archive = tar::Builder::new(Vec::new());
        append(&mut archive, "oci-layout", OCI_LAYOUT, 0o644, self.mtime).map_err(fail)?;
        append(&mut archive, "index.json", &self.index, 0o644, self.mtime).map_err(fail)?;
        append(
            &mut archive,
            "manifest.json",
            &self.docker_manifest,
            0o644,
            self.mtime,
        )
        .map_err(fail)?;
        append_dir(&mut archive, "blobs/", self.mtime).map_err(fail)?;
        append_dir(&mut archive, "blobs/sha256/", self.mtime).map_err(fail)?;
        for (path, bytes) in self.files().into_iter().skip(2) {
            append(&mut archive, &path, bytes, 0o644, self.mtime).map_err(fail)?;
        }
        archive.into_inner().map_err(fail)
    }

    /// Every blob's digest, sorted (for reports and tests).
    pub fn blob_digests(&self) -> Vec<&str> {
        self.blobs
            .iter()
            .map(|(digest, _)| digest.as_str())
            .collect()
    }

    /// sha256 of the archive's bytes.
    pub fn archive_sha256(&self) -> Result<String, String> {
        Ok(sha256_hex(&self.archive()?))
    }
}

/// Where a blob lies in the layout (and the archive).
fn blob_path(digest: &str) -> String {
    format!("blobs/sha256/{}", digest.trim_start_matches("sha256:"))
}

fn descriptor(media_type: &str, bytes: &[u8]) -> Value {
    json!({ "mediaType": media_type, "digest": oci_digest(bytes), "size": bytes.len() })
}

fn to_bytes(value: &Value) -> Vec<u8> {
    serde_json::to_vec(value).expect("serde_json writes a Value to memory")
}

/// A regular file with a fixed owner (root), mode and time, and no user or group names.
fn append<W: Write>(
    builder: &mut tar::Builder<W>,
    path: &str,
    bytes: &[u8],
    mode: u32,
    mtime: u64,
) -> std::io::Result<()> {
    let mut header = fixed_header(tar::EntryType::Regular, mode, mtime);
    header.set_size(bytes.len() as u64);
    header.set_path(path)?;
    header.set_cksum();
    builder.append(&header, bytes)
}

fn append_dir<W: Write>(
    builder: &mut tar::Builder<W>,
    path: &str,
    mtime: u64,
) -> std::io::Result<()> {
    let mut header = fixed_header(tar::EntryType::Directory, 0o755, mtime);
    header.set_size(0);
    header.set_path(path)?;
    header.set_cksum();
    builder.append(&header, std::io::empty())
}

fn fixed_header(kind: tar::EntryType, mode: u32, mtime: u64) -> tar::Header {
    let mut header = tar::Header::new_ustar();
    header.set_entry_type(kind);
    header.set_mode(mode);
    header.set_uid(0);
    header.set_gid(0);
    header.set_mtime(mtime);
    header
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> ImageSpec {
        ImageSpec {
            binary_name: "skillpack".into(),
            name: "skillpack".into(),
            version: "0.1.0+5c2dda73a9b1".into(),
            label: None,
            fingerprint: "blake3:5c2d".into(),
            revision: Some("abc123".into()),
            created: Some((1767225600, "2026-01-01T00:00:00Z".into())),
            architecture: "amd64".into(),
        }
    }

    #[test]
    fn same_inputs_same_digest_and_bytes() {
        let a = Image::build(b"\x7fELF binary", &spec()).unwrap();
        let b = Image::build(b"\x7fELF binary", &spec()).unwrap();
        assert_eq!(a.manifest_digest, b.manifest_digest);
        assert_eq!(a.archive().unwrap(), b.archive().unwrap());
        let other = Image::build(b"\x7fELF other", &spec()).unwrap();
        assert_ne!(a.manifest_digest, other.manifest_digest);
        assert_eq!(a.tag, "0.1.0-5c2dda73a9b1");
    }

    #[test]
    fn the_config_runs_the_binary_as_a_non_root_user() {
        let image = Image::build(b"bin", &spec()).unwrap();
        let config = image
            .blobs
            .iter()
            .map(|(_, bytes)| serde_json::from_slice::<Value>(bytes))
            .filter_map(Result::ok)
            .find(|value| value.get("rootfs").is_some())
            .expect("a config blob");
        assert_eq!(config["config"]["User"], USER);
        assert_eq!(
            config["config"]["Entrypoint"],
            json!(["/skillpack", "serve", "--http", "0.0.0.0:8080"])
        );
        assert_eq!(config["created"], "2026-01-01T00:00:00Z");
        assert_eq!(
            config["config"]["Labels"]["io.skillpack.fingerprint"],
            "blake3:5c2d"
        );
    }

    #[test]
    fn a_label_that_cannot_be_a_tag_is_refused() {
        let mut bad = spec();
        bad.label = Some("release 1/2".into());
        let error = Image::build(b"bin", &bad).err().unwrap();
        assert!(error.contains("SKILLPACK_RELEASE"), "{error}");
        bad.label = Some("2026.12".into());
        assert_eq!(Image::build(b"bin", &bad).unwrap().tag, "2026.12");
    }
}
