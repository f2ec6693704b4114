//! The release's provenance: an in-toto statement (v1) whose subjects are the release
//! folder's files with their sha256, and whose predicate is SLSA provenance v1 — what
//! source (repository, commit, dirty or not), what content (fingerprint, release label),
//! what toolchain and `Cargo.lock`, which builder. The statement has no clock and no path
//! in it: the same source, settings and builder give the same bytes. The DSSE envelope
//! around it (`sign::SigningKey::dsse`) is what depends on the key.
//!
//! <https://github.com/in-toto/attestation/blob/main/spec/v1/statement.md>,
//! <https://slsa.dev/spec/v1.0/provenance>.

use serde_json::{Map, Value, json};

pub const STATEMENT_TYPE: &str = "https://in-toto.io/Statement/v1";
pub const PREDICATE_TYPE: &str = "https://slsa.dev/provenance/v1";
/// The build type: how to read `externalParameters` and `internalParameters`.
pub const BUILD_TYPE: &str = "https://skillpack.dev/release/v1";
/// The file name of the envelope in the release folder (one DSSE envelope per line, as
/// SLSA's generators name theirs).
pub const FILE: &str = "provenance.intoto.jsonl";

/// What the release knows of how it was made (`scripts/release` passes it).
#[derive(Debug, Clone, Default)]
pub struct Facts {
    /// The source repository (`git remote get-url origin`, or the GitHub repository URL).
    pub repository: Option<String>,
    /// The git commit; `dirty` when the work tree had changes.
    pub commit: Option<String>,
    pub dirty: bool,
    /// The ref built (`refs/tags/2026.12`), if known.
    pub git_ref: Option<String>,
    /// `blake3:<hex>` and the release label and date of the baked catalog.
    pub fingerprint: String,
    pub label: String,
    pub date: String,
    /// The previous release's fingerprint, when built against one (`SKILLPACK_PREVIOUS`).
    pub previous: Option<String>,
    /// `rustc --version` (`rustc 1.91.0 (f8297e351 2025-10-28)`).
    pub rustc: Option<String>,
    /// The build target triple.
    pub target: Option<String>,
    /// sha256 hex of `Cargo.lock`.
    pub cargo_lock_sha256: Option<String>,
    pub builder: Builder,
}

/// Who ran the build.
#[derive(Debug, Clone, Default)]
pub struct Builder {
    /// A URI naming the builder: the workflow on GitHub Actions
    /// (`https://github.com/acme/docs/.github/workflows/release.yml@refs/tags/2026.12`), or
    /// `local` for a publisher's machine.
    pub id: String,
    /// The run, when there is one (`https://github.com/acme/docs/actions/runs/1/attempts/1`).
    pub invocation: Option<String>,
}

impl Builder {
    /// From GitHub Actions' default variables if they are set, else a local build.
    pub fn from_env(get: impl Fn(&str) -> Option<String>) -> Builder {
        let github = get("GITHUB_ACTIONS").is_some_and(|v| v == "true");
        match (
            github,
            get("GITHUB_SERVER_URL"),
            get("GITHUB_WORKFLOW_REF"),
            get("GITHUB_REPOSITORY"),
            get("GITHUB_RUN_ID"),
        ) {
            (true, Some(server), Some(workflow), repository, run) => Builder {
                id: format!("{server}/{workflow}"),
                invocation: repository.zip(run).map(|(repository, run)| {
                    let attempt = get("GITHUB_RUN_ATTEMPT").unwrap_or_else(|| "1".into());
                    format!("{server}/{repository}/actions/runs/{run}/attempts/{attempt}")
                }),
            },
            _ => Builder {
                id: "https://skillpack.dev/builders/local".into(),
                invocation: None,
            },
        }
    }
}

/// The statement's bytes: subjects are `(file name, sha256 hex)`, in `SHA256SUMS` order.
pub fn statement(facts: &Facts, subjects: &[(String, String)]) -> Vec<u8> {
    let subject: Vec<Value> = subjects
        .iter()
        .map(|(name, sha256)| json!({ "name": name, "digest": { "sha256": sha256 } }))
        .collect();

    let mut source = Map::new();
    if let Some(repository) = &facts.repository {
        source.insert("uri".into(), json!(git_uri(repository, facts)));
    }
    if let Some(commit) = &facts.commit {
        source.insert("digest".into(), json!({ "gitCommit": commit }));
    }
    let mut external = Map::new();
    external.insert("source".into(), Value::Object(source.clone()));
    external.insert("dirty".into(), json!(facts.dirty));
    external.insert("release".into(), json!(facts.label));
    external.insert("releaseDate".into(), json!(facts.date));
    if let Some(previous) = &facts.previous {
        external.insert("previousRelease".into(), json!(previous));
    }
    let mut internal = Map::new();
    if let Some(target) = &facts.target {
        internal.insert("target".into(), json!(target));
    }
    if let Some(rustc) = &facts.rustc {
        internal.insert("rustc".into(), json!(rustc));
    }

    let mut dependencies = Vec::new();
    if !source.is_empty() {
        dependencies.push(Value::Object(source));
    }
    if let Some(sha256) = &facts.cargo_lock_sha256 {
        dependencies.push(json!({ "name": "Cargo.lock", "digest": { "sha256": sha256 } }));
    }
    if let Some(rustc) = &facts.rustc {
        dependencies.push(json!({ "name": "rustc", "annotations": { "version": rustc } }));
    }

    let mut metadata = Map::new();
    if let Some(invocation) = &facts.builder.invocation {
        metadata.insert("invocationId".into(), json!(invocation));
    }
    let fingerprint = facts.fingerprint.trim_start_matches("blake3:");
    let statement = json!({
        "_type": STATEMENT_TYPE,
        "subject": subject,
        "predicateType": PREDICATE_TYPE,
        "predicate": {
            "buildDefinition": {
                "buildType": BUILD_TYPE,
                "externalParameters": external,
                "internalParameters": internal,
                "resolvedDependencies": dependencies,
            },
            "runDetails": {
                "builder": { "id": facts.builder.id },
                "metadata": metadata,
                // The catalog the binary serves, by its content fingerprint.
                "byproducts": [{
                    "name": "catalog",
                    "digest": { "blake3": fingerprint },
                    "annotations": { "fingerprint": facts.fingerprint, "release": facts.label },
                }],
            },
        },
    });
    serde_json::to_vec(&statement).expect("serde_json writes a Value to memory")
}

/// SLSA's source URI: `git+<repository>@<ref>` (the ref when known).
fn git_uri(repository: &str, facts: &Facts) -> String {
    let base = if repository.starts_with("git+") {
        repository.to_owned()
    } else {
        format!("git+{repository}")
    };
    match &facts.git_ref {
        Some(git_ref) => format!("{base}@{git_ref}"),
        None => base,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_statement_names_source_content_toolchain_and_builder() {
        let facts = Facts {
            repository: Some("https://github.com/acme/docs".into()),
            commit: Some("0123".into()),
            git_ref: Some("refs/tags/2026.12".into()),
            fingerprint: "blake3:abcd".into(),
            label: "2026.12".into(),
            rustc: Some("rustc 1.91.0".into()),
            cargo_lock_sha256: Some("ff".into()),
            builder: Builder::from_env(|name| {
                Some(
                    match name {
                        "GITHUB_ACTIONS" => "true",
                        "GITHUB_SERVER_URL" => "https://github.com",
                        "GITHUB_WORKFLOW_REF" => {
                            "acme/docs/.github/workflows/release.yml@refs/tags/2026.12"
                        }
                        "GITHUB_REPOSITORY" => "acme/docs",
                        "GITHUB_RUN_ID" => "42",
                        _ => return None,
                    }
                    .into(),
                )
            }),
            ..Facts::default()
        };
        let bytes = statement(&facts, &[("skillpack".into(), "aa".into())]);
        assert_eq!(
            bytes,
            statement(&facts, &[("skillpack".into(), "aa".into())])
        );
        let value: Value = serde_json::from_slice(&bytes).unwrap();
        let predicate = &value["predicate"];
        assert_eq!(value["subject"][0]["digest"]["sha256"], "aa");
        assert_eq!(
            predicate["buildDefinition"]["externalParameters"]["source"]["uri"],
            "git+https://github.com/acme/docs@refs/tags/2026.12"
        );
        assert_eq!(
            predicate["runDetails"]["builder"]["id"],
            "https://github.com/acme/docs/.github/workflows/release.yml@refs/tags/2026.12"
        );
        assert_eq!(
            predicate["runDetails"]["metadata"]["invocationId"],
            "https://github.com/acme/docs/actions/runs/42/attempts/1"
        );
        assert_eq!(
            predicate["buildDefinition"]["resolvedDependencies"][1]["digest"]["sha256"],
            "ff"
        );
        let local = Builder::from_env(|_| None);
        assert!(local.id.ends_with("/local"), "{local:?}");
    }
}
