//! skillpack's release artifacts: what turns a built catalog binary into the files a host
//! team verifies and deploys. The binary's own `image` and `release` commands call it with
//! the binary's bytes, manifest and release notes; `scripts/release` (and the
//! docs-repository template's copy of it) builds the binary and the SBOM, then runs
//! `<binary> release`.
//!
//! # Layout
//!
//! - [`elf`]: is a binary self-contained? No interpreter, no needed shared library, no
//!   glibc name-service code linked in. The release refuses a binary that is not.
//! - [`image`]: an OCI image of the binary alone (no base image, no shell), as an OCI
//!   layout folder and an `oci-archive` tar, reproducibly: the same binary and release
//!   facts give the same bytes and digest on any machine and at any path.
//! - [`folder`]: the release folder: the binary, its manifest, release notes, the image
//!   archive, the SBOM and `SHA256SUMS` that `sha256sum -c` accepts.
//! - [`sign`]: the publisher's ed25519 key (OpenSSH format): SSHSIG signatures of
//!   `SHA256SUMS` and `manifest.json` (`ssh-keygen -Y verify` checks them), DSSE envelopes.
//! - [`provenance`]: the in-toto statement with its SLSA v1 provenance predicate.
//! - [`verify`]: `verify`: a folder, or a binary with its signed manifest, against a
//!   trusted public key; every check named, every failure said with what to do.
//! - [`digest`]: sha256 helpers shared by the modules above.
//! - [`out_dir`]: the folder a command writes to is new or empty, never overwritten.
//!
//! Nothing here is used by `serve`: these are release-pipeline commands, which read the
//! executable and write files.

pub mod digest;
pub mod elf;
pub mod folder;
pub mod image;
pub mod out_dir;
pub mod provenance;
pub mod sign;
pub mod verify;
