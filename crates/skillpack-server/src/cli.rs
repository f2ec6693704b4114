//! The `skillpack` command line: `serve` (the default), `info`, `list`, `read`, `search`,
//! `fingerprint`. A binary's `main` (`skillpack_server::main!`) only calls [`main`] with
//! its baked catalog.

use std::io::Write;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::Duration;

use base64::Engine;
use clap::{Parser, Subcommand, ValueEnum};
use rmcp::model::ResourceContents;
use serde_json::json;

use crate::catalog::Catalog;
use crate::cmd;
use crate::model::ArchivedDocKind;
use crate::server::SkillpackServer;
use crate::transport::http;

mod release;

#[derive(Parser, Debug)]
#[command(
    name = "skillpack",
    about = "An MCP server for the Agent Skills and docs compiled into this binary.",
    long_about = "An MCP server for the Agent Skills and docs compiled into this binary.\n\n\
                  With no command it serves MCP over stdio. The catalog is fixed at build time \
                  and identified by its fingerprint (see `skillpack fingerprint`)."
)]
pub struct Cli {
    /// Log filter for stderr: `error`, `warn`, `info`, `debug`, `trace`, or `target=level`
    /// pairs (`skillpack=debug,rmcp=warn`). Defaults to RUST_LOG, then `info`.
    #[arg(long, global = true, value_name = "LEVEL")]
    pub log_level: Option<String>,

    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Serve MCP over stdio (the default), or Streamable HTTP with --http.
    Serve(ServeArgs),
    /// Print the catalog's name, fingerprint, counts and sizes.
    Info {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// List skills and/or docs, one per line (tab-separated).
    List {
        #[arg(value_enum)]
        kind: Option<ListKind>,
    },
    /// Print one resource by URI (text as is, binary files as raw bytes).
    Read {
        /// Any catalog URI, e.g. resource://catalog/skills_index or skill://pdf/SKILL.md.
        uri: String,
    },
    /// Search every skill, reference and doc; print the best matching sections.
    Search(SearchArgs),
    /// Print the catalog fingerprint (`blake3:<64 hex>`).
    Fingerprint,
    /// Print this release's manifest (JSON): keep it with the release and build the next
    /// one against it with SKILLPACK_PREVIOUS=<file>.
    Manifest {
        /// Also record this executable's sha256 and size (it reads its own file), so that
        /// the manifest is what an air-gapped host verifies the binary against.
        #[arg(long)]
        with_binary: bool,
    },
    /// Print what changed since an earlier release as markdown, for release notes.
    Changes {
        /// The earlier release: a label, a fingerprint prefix (12+ hex digits) or a date
        /// (YYYY-MM-DD, the latest release on or before it). Default: the previous release.
        #[arg(long, value_name = "RELEASE")]
        since: Option<String>,
    },
    /// Write an OCI image of this binary alone (no base image, no shell; user 65532,
    /// entrypoint `serve --http 0.0.0.0:8080`) and print its digest and tag. Reproducible:
    /// its date is the release date baked at build time (SOURCE_DATE_EPOCH), never the clock.
    Image {
        /// Write the image as an OCI layout folder (new or empty).
        #[arg(long, value_name = "DIR", required_unless_present = "archive")]
        layout: Option<std::path::PathBuf>,
        /// Write the image as an oci-archive tar (`podman load -i`, `skopeo copy oci-archive:…`).
        #[arg(long, value_name = "FILE")]
        archive: Option<std::path::PathBuf>,
        #[command(flatten)]
        source: SourceArgs,
    },
    /// Write the release folder: this binary, manifest.json (with the binary's sha256),
    /// CHANGES.md, the image archive, an SBOM and SHA256SUMS (`sha256sum -c SHA256SUMS`),
    /// signed with the publisher's ed25519 key: SHA256SUMS.sig and manifest.json.sig
    /// (`ssh-keygen -Y verify -n skillpack-release`) and provenance.intoto.jsonl (SLSA v1
    /// provenance in a DSSE envelope). Check it with `verify DIR --key PUB`.
    Release {
        /// The folder to write (new or empty).
        #[arg(long, value_name = "DIR")]
        out: std::path::PathBuf,
        /// The SBOM of this binary's crates to include (scripts/release makes one with
        /// cargo-cyclonedx).
        #[arg(long, value_name = "FILE")]
        sbom: Option<std::path::PathBuf>,
        #[command(flatten)]
        source: SourceArgs,
        #[command(flatten)]
        signing: SigningArgs,
    },
    /// Verify a release folder (or a binary shipped alone, with its signed manifest) against
    /// the publisher's public key: signatures, checksums, provenance, the image, the binary
    /// and the fingerprint it serves. Prints every check; exits non-zero if any fails.
    Verify {
        /// A release folder, or a release binary (its manifest.json and manifest.json.sig
        /// beside it, or given with --manifest and --signature).
        #[arg(value_name = "PATH")]
        path: std::path::PathBuf,
        /// The publisher's public key, as you received it out of band: the `.pub` file
        /// (`ssh-ed25519 AAAA…`) or a line of an allowed_signers file.
        #[arg(long, value_name = "PUB")]
        key: std::path::PathBuf,
        /// A lone binary's manifest. Default: manifest.json beside the binary.
        #[arg(long, value_name = "FILE")]
        manifest: Option<std::path::PathBuf>,
        /// The manifest's signature. Default: the manifest's path with `.sig` added.
        #[arg(long, value_name = "FILE")]
        signature: Option<std::path::PathBuf>,
    },
}

#[derive(clap::Args, Debug)]
pub struct SigningArgs {
    /// The publisher's ed25519 private key, in OpenSSH format (`ssh-keygen -t ed25519`).
    /// Or set SKILLPACK_SIGNING_KEY to the key itself (a CI secret). A passphrase-protected
    /// key is decrypted with SKILLPACK_SIGNING_KEY_PASSPHRASE.
    #[arg(long, value_name = "FILE", env = "SKILLPACK_SIGNING_KEY_FILE")]
    pub signing_key: Option<std::path::PathBuf>,
    /// Write the folder without signature or provenance (a host cannot tell who made it).
    #[arg(long, conflicts_with = "signing_key")]
    pub unsigned: bool,
    /// The source repository, for the provenance (`git remote get-url origin`).
    #[arg(long, value_name = "URL")]
    pub source_repository: Option<String>,
    /// The git ref built (`refs/tags/2026.12`), for the provenance.
    #[arg(long, value_name = "REF")]
    pub source_ref: Option<String>,
    /// The toolchain (`rustc --version`), for the provenance.
    #[arg(long, value_name = "VERSION")]
    pub rustc: Option<String>,
    /// The build target triple, for the provenance.
    #[arg(long, value_name = "TRIPLE")]
    pub target: Option<String>,
    /// The Cargo.lock the binary was built with: its sha256 goes into the provenance.
    #[arg(long, value_name = "FILE")]
    pub cargo_lock: Option<std::path::PathBuf>,
}

#[derive(clap::Args, Debug)]
pub struct SourceArgs {
    /// The source revision (a git commit) for the image's
    /// `org.opencontainers.image.revision`.
    #[arg(long, value_name = "REV")]
    pub revision: Option<String>,
}

#[derive(clap::Args, Debug)]
pub struct SearchArgs {
    /// What to look for: a question or keywords ("quoted phrases" must appear).
    #[arg(required = true, num_args = 1.., value_name = "QUERY")]
    pub query: Vec<String>,
    /// Which documents to search.
    #[arg(long, value_enum, default_value = "all")]
    pub kind: SearchKind,
    /// Hits per page (1–50).
    #[arg(long, default_value_t = crate::contract::SEARCH_DEFAULT_LIMIT)]
    pub limit: usize,
    /// `next_cursor` of a previous page.
    #[arg(long)]
    pub cursor: Option<String>,
    /// Another phrasing of the same need, searched too, the rankings fused (repeatable, at
    /// most 4): the `also` of `catalog_search`.
    #[arg(long, value_name = "PHRASING")]
    pub also: Vec<String>,
    /// Print the `catalog_search` tool result (JSON) instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum SearchKind {
    Skills,
    Docs,
    All,
}

#[derive(clap::Args, Debug)]
pub struct ServeArgs {
    /// Refuse to start unless the catalog fingerprint starts with this hex prefix (at least
    /// 12 hex digits, `blake3:` optional): pins a deployment to one content release.
    #[arg(long, value_name = "HEX")]
    pub expect_fingerprint: Option<String>,

    /// Serve Streamable HTTP on ADDR instead of stdio (`--http` alone: 127.0.0.1:8080).
    /// ADDR is IP:PORT or a bare PORT (loopback); port 0 picks a free port, logged at start.
    /// Set SKILLPACK_AUTH_TOKEN to require `Authorization: Bearer <token>` on the MCP path.
    #[arg(
        long,
        value_name = "ADDR",
        num_args = 0..=1,
        default_missing_value = http::DEFAULT_ADDR,
        value_parser = parse_listen_addr
    )]
    pub http: Option<SocketAddr>,

    /// Decoded content kept in memory between reads, in MiB (0: every read decodes the
    /// frames it serves). Reads decode about a kilobyte per microsecond; the cache makes a
    /// second read of the same chunk as fast as from uncompressed bytes.
    #[arg(
        long,
        value_name = "MIB",
        default_value_t = crate::catalog::content::DEFAULT_CACHE_BYTES / (1024 * 1024),
        env = "SKILLPACK_CACHE_MIB"
    )]
    pub cache_mib: u64,

    /// Threads searches may keep busy at once, each search's own included. A query whose
    /// words reach tens of thousands of documents is ranked in parts at once, each on a
    /// free core; the answer is the same. 0: as many as the cores this process may use; 1:
    /// every search on one thread.
    #[arg(
        long,
        value_name = "N",
        default_value_t = 0,
        env = "SKILLPACK_SEARCH_THREADS"
    )]
    pub search_threads: usize,

    #[command(flatten)]
    pub http_options: HttpArgs,
}

/// What `skillpack` without a command does: `serve` with every default.
impl Default for ServeArgs {
    fn default() -> Self {
        ServeArgs {
            expect_fingerprint: None,
            http: None,
            cache_mib: crate::catalog::content::DEFAULT_CACHE_BYTES / (1024 * 1024),
            search_threads: 0,
            http_options: HttpArgs::default(),
        }
    }
}

/// Options that only apply with `--http`.
#[derive(clap::Args, Debug)]
pub struct HttpArgs {
    /// URL path of the MCP endpoint.
    #[arg(long, value_name = "PATH", default_value = http::DEFAULT_PATH, requires = "http")]
    pub path: String,

    /// Also accept this Host header (name or name:port; repeat or comma-separate). Loopback
    /// names and a specific bind IP are always accepted; `*` turns the check off (only
    /// behind a proxy that checks host names itself).
    #[arg(long, value_name = "HOST", value_delimiter = ',', requires = "http")]
    pub allow_host: Vec<String>,

    /// Also accept requests from this browser origin (scheme://host[:port], scheme://host:*
    /// for any port; repeat or comma-separate). Loopback origins are always accepted,
    /// requests without Origin always pass; `*` turns the check off.
    #[arg(long, value_name = "ORIGIN", value_delimiter = ',', requires = "http")]
    pub allow_origin: Vec<String>,

    /// Largest request body accepted; bigger ones get 413.
    #[arg(long, value_name = "BYTES", default_value_t = http::DEFAULT_MAX_BODY_BYTES, requires = "http")]
    pub max_body_bytes: usize,

    /// Requests handled at once; more get 503 with Retry-After at once (no queueing).
    #[arg(
        long,
        value_name = "N",
        default_value_t = http::DEFAULT_MAX_CONCURRENCY,
        value_parser = clap::value_parser!(u32).range(1..),
        requires = "http"
    )]
    pub max_concurrency: u32,

    /// Seconds a request may take from its first byte to its response; slower gets 408.
    #[arg(long, value_name = "SECS", default_value_t = http::DEFAULT_REQUEST_TIMEOUT_SECS, requires = "http")]
    pub request_timeout: u64,

    /// Seconds to let in-flight requests finish after SIGTERM/SIGINT before exiting.
    #[arg(long, value_name = "SECS", default_value_t = http::DEFAULT_SHUTDOWN_TIMEOUT_SECS, requires = "http")]
    pub shutdown_timeout: u64,

    /// Seconds a new connection has to send a complete request head; it is closed otherwise.
    #[arg(
        long,
        value_name = "SECS",
        default_value_t = http::DEFAULT_HEADER_TIMEOUT_SECS,
        value_parser = clap::value_parser!(u64).range(1..),
        requires = "http"
    )]
    pub header_timeout: u64,

    /// Seconds a kept-alive connection may wait after an answer for its next request head
    /// to be complete; it is closed otherwise.
    #[arg(
        long,
        value_name = "SECS",
        default_value_t = http::DEFAULT_IDLE_TIMEOUT_SECS,
        value_parser = clap::value_parser!(u64).range(1..),
        requires = "http"
    )]
    pub idle_timeout: u64,

    /// Connections open at once [default: 1024, lowered to fit under the open-files
    /// limit]. Beyond it, a few more connections answer /healthz only (503 otherwise).
    #[arg(
        long,
        value_name = "N",
        value_parser = clap::value_parser!(u32).range(1..),
        requires = "http"
    )]
    pub max_connections: Option<u32>,

    /// Serve Prometheus metrics (OpenMetrics text) at http://ADDR/metrics, a listener of
    /// its own: scrapers need no client credential and never compete with clients for
    /// connections. ADDR is IP:PORT or a bare PORT (loopback). Labels carry method, tool,
    /// URI family, error code, status and configured client names, never URIs or queries.
    #[arg(long, value_name = "ADDR", value_parser = parse_listen_addr, requires = "http")]
    pub metrics: Option<SocketAddr>,

    /// Write one JSON line per MCP request to stderr: time, request id, client, method,
    /// tool or URI, status, error code, bytes, duration.
    #[arg(long, requires = "http")]
    pub access_log: bool,

    /// Also write catalog_search's query text into the access log (off by default: queries
    /// can say what users work on).
    #[arg(long, requires = "access_log")]
    pub access_log_queries: bool,

    /// Accept OAuth 2.1 access tokens (JWTs) issued by this issuer (the `iss` its tokens
    /// carry). Needs --oauth-resource and a key set (--oauth-jwks or SKILLPACK_OAUTH_JWKS).
    /// The --oauth-* settings apply with --http only: like SKILLPACK_AUTH_TOKEN, their
    /// variables are ignored over stdio, so one environment can serve both.
    #[arg(long, value_name = "URL", env = "SKILLPACK_OAUTH_ISSUER")]
    pub oauth_issuer: Option<String>,

    /// This server's resource URI as clients reach it (e.g. https://docs.example.com/mcp):
    /// the audience tokens must carry, and where RFC 9728 metadata points.
    #[arg(long, value_name = "URL", env = "SKILLPACK_OAUTH_RESOURCE")]
    pub oauth_resource: Option<String>,

    /// The identity provider's JSON Web Key Set, read once at start (the server fetches
    /// nothing at run time). Or put the JWKS itself in SKILLPACK_OAUTH_JWKS.
    #[arg(long, value_name = "FILE", env = "SKILLPACK_OAUTH_JWKS_FILE")]
    pub oauth_jwks: Option<std::path::PathBuf>,

    /// A scope every access token must grant (repeat or comma-separate); tokens without it
    /// get 403 insufficient_scope.
    #[arg(
        long,
        value_name = "SCOPE",
        value_delimiter = ',',
        env = "SKILLPACK_OAUTH_SCOPES"
    )]
    pub oauth_scope: Vec<String>,

    /// The authorization server named in the RFC 9728 metadata [default: the issuer].
    #[arg(long, value_name = "URL", requires = "http")]
    pub oauth_authorization_server: Option<String>,

    /// Seconds of clock skew allowed on a token's `exp` and `nbf`.
    #[arg(long, value_name = "SECS", default_value_t = crate::transport::auth::jwt::DEFAULT_LEEWAY_SECS, requires = "http")]
    pub oauth_leeway: u64,
}

/// Credentials from the environment (never flags: a flag would show in `ps`).
#[derive(Debug, Default, Clone)]
pub struct Secrets {
    /// `SKILLPACK_AUTH_TOKEN`: the one shared token.
    pub auth_token: Option<String>,
    /// `SKILLPACK_CLIENT_TOKENS`: `name:sha256` pairs.
    pub client_tokens: Option<String>,
    /// `SKILLPACK_OAUTH_JWKS`: a JWKS as JSON text.
    pub jwks: Option<String>,
}

impl Secrets {
    pub fn from_env() -> Self {
        Secrets {
            auth_token: std::env::var("SKILLPACK_AUTH_TOKEN").ok(),
            client_tokens: std::env::var("SKILLPACK_CLIENT_TOKENS").ok(),
            jwks: std::env::var("SKILLPACK_OAUTH_JWKS").ok(),
        }
    }
}

impl Default for HttpArgs {
    fn default() -> Self {
        HttpArgs {
            path: http::DEFAULT_PATH.to_owned(),
            allow_host: Vec::new(),
            allow_origin: Vec::new(),
            max_body_bytes: http::DEFAULT_MAX_BODY_BYTES,
            max_concurrency: http::DEFAULT_MAX_CONCURRENCY,
            request_timeout: http::DEFAULT_REQUEST_TIMEOUT_SECS,
            shutdown_timeout: http::DEFAULT_SHUTDOWN_TIMEOUT_SECS,
            header_timeout: http::DEFAULT_HEADER_TIMEOUT_SECS,
            idle_timeout: http::DEFAULT_IDLE_TIMEOUT_SECS,
            max_connections: None,
            metrics: None,
            access_log: false,
            access_log_queries: false,
            oauth_issuer: None,
            oauth_resource: None,
            oauth_jwks: None,
            oauth_scope: Vec::new(),
            oauth_authorization_server: None,
            oauth_leeway: crate::transport::auth::jwt::DEFAULT_LEEWAY_SECS,
        }
    }
}

impl HttpArgs {
    /// Validate the flags and the credentials from the environment into transport
    /// options. Reads the `--oauth-jwks` file, if any: call before the sandbox.
    pub fn options(
        &self,
        addr: SocketAddr,
        secrets: &Secrets,
        catalog_name: &str,
    ) -> Result<http::HttpOptions, String> {
        use crate::transport::auth;
        let mut options = http::HttpOptions::new(addr);
        options.set_path(&self.path)?;
        options.allow_hosts(&self.allow_host)?;
        options.allow_origins(&self.allow_origin)?;
        let tokens = auth::tokens::Tokens::from_settings(
            secrets.auth_token.as_deref(),
            secrets.client_tokens.as_deref(),
        )?;
        let oauth = self.oauth(secrets, catalog_name)?;
        options.auth = std::sync::Arc::new(auth::Auth { tokens, oauth });
        options.metrics = self.metrics;
        options.access_log = self
            .access_log
            .then_some(crate::transport::access_log::AccessLog {
                queries: self.access_log_queries,
            });
        options.max_body_bytes = self.max_body_bytes;
        options.max_concurrency = self.max_concurrency as usize;
        options.request_timeout = Duration::from_secs(self.request_timeout.max(1));
        options.shutdown_timeout = Duration::from_secs(self.shutdown_timeout);
        options.header_timeout = Duration::from_secs(self.header_timeout.max(1));
        options.idle_timeout = Duration::from_secs(self.idle_timeout.max(1));
        options.max_connections = self.max_connections.map(|n| n as usize);
        Ok(options)
    }
}

impl HttpArgs {
    /// The `--oauth-*` settings, all or none.
    fn oauth(
        &self,
        secrets: &Secrets,
        catalog_name: &str,
    ) -> Result<Option<crate::transport::auth::OAuthServer>, String> {
        use crate::transport::auth::{OAuthServer, jwt, metadata};
        let any = self.oauth_issuer.is_some()
            || self.oauth_resource.is_some()
            || self.oauth_jwks.is_some()
            || secrets.jwks.is_some()
            || !self.oauth_scope.is_empty()
            || self.oauth_authorization_server.is_some();
        if !any {
            return Ok(None);
        }
        let (jwks, source) = match (&self.oauth_jwks, &secrets.jwks) {
            (Some(_), Some(_)) => {
                return Err("both --oauth-jwks (SKILLPACK_OAUTH_JWKS_FILE) and \
                            SKILLPACK_OAUTH_JWKS are set; give the key set one way"
                    .to_owned());
            }
            (Some(path), None) => {
                let text = std::fs::read_to_string(path).map_err(|error| {
                    format!(
                        "cannot read --oauth-jwks {}: {error}; give the path of the identity \
                         provider's JWKS (the JSON its jwks_uri serves)",
                        path.display()
                    )
                })?;
                (text, format!("--oauth-jwks {}", path.display()))
            }
            (None, Some(text)) => (text.clone(), "SKILLPACK_OAUTH_JWKS".to_owned()),
            (None, None) => {
                return Err(
                    "OAuth is half configured: give the identity provider's key set \
                            with --oauth-jwks FILE or SKILLPACK_OAUTH_JWKS (the server reads \
                            nothing after start, so it never fetches jwks_uri)"
                        .to_owned(),
                );
            }
        };
        let issuer = self.oauth_issuer.as_deref().ok_or(
            "OAuth is half configured: --oauth-issuer (SKILLPACK_OAUTH_ISSUER) is missing; give \
             the issuer URL the identity provider writes in `iss`",
        )?;
        let resource = self.oauth_resource.as_deref().ok_or(
            "OAuth is half configured: --oauth-resource (SKILLPACK_OAUTH_RESOURCE) is missing; \
             give this server's URL as clients reach it, e.g. https://docs.example.com/mcp",
        )?;
        let scopes: Vec<String> = self
            .oauth_scope
            .iter()
            .map(|scope| scope.trim().to_owned())
            .filter(|scope| !scope.is_empty())
            .collect();
        if let Some(bad) = scopes.iter().find(|scope| {
            !scope
                .chars()
                .all(|c| c.is_ascii_graphic() && c != '"' && c != '\\')
        }) {
            return Err(format!(
                "--oauth-scope {bad:?} is not a scope token (RFC 6749 §3.3: printable ASCII, \
                 no spaces, quotes or backslashes)"
            ));
        }
        let metadata = metadata::ResourceMetadata::new(
            resource,
            &[self
                .oauth_authorization_server
                .clone()
                .unwrap_or_else(|| issuer.to_owned())],
            &scopes,
            catalog_name,
        )?;
        let validator =
            jwt::OAuth::new(&jwks, &source, issuer, resource, scopes, self.oauth_leeway)?;
        Ok(Some(OAuthServer {
            validator,
            metadata,
        }))
    }
}

/// `IP:PORT`, `localhost:PORT` or a bare `PORT` (on loopback).
fn parse_listen_addr(text: &str) -> Result<SocketAddr, String> {
    let text = text.trim();
    if let Ok(port) = text.parse::<u16>() {
        return Ok(SocketAddr::from(([127, 0, 0, 1], port)));
    }
    if let Some(port) = text.strip_prefix("localhost:")
        && let Ok(port) = port.parse::<u16>()
    {
        return Ok(SocketAddr::from(([127, 0, 0, 1], port)));
    }
    text.parse().map_err(|_| {
        format!(
            "expected IP:PORT such as 127.0.0.1:8080, 0.0.0.0:8080 or [::1]:8080, or a bare port; \
             got {text:?}"
        )
    })
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ListKind {
    Skills,
    Docs,
}

/// The whole command line over `catalog` (what `skillpack_server::main!` calls with the
/// baked one).
pub fn main(catalog: Catalog) -> ExitCode {
    use clap::{CommandFactory, FromArgMatches};
    let matches = Cli::command()
        .version(catalog.server_version())
        .get_matches();
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|error| error.exit());
    let serving = matches!(cli.command, None | Some(Command::Serve(_)));
    // rmcp logs every stateless HTTP request at info; its warnings (refused Host/Origin)
    // are what an operator needs by default.
    init_logging(
        cli.log_level.as_deref(),
        if serving { "info,rmcp=warn" } else { "warn" },
    );
    match cli.command.unwrap_or(Command::Serve(ServeArgs::default())) {
        Command::Serve(args) => serve(catalog, args),
        Command::Info { json } => info(&catalog, json),
        Command::List { kind } => list(&catalog, kind),
        Command::Read { uri } => read(&catalog, &uri),
        Command::Search(args) => search(&catalog, args),
        Command::Fingerprint => {
            println!("{}", catalog.fingerprint());
            ExitCode::SUCCESS
        }
        Command::Manifest { with_binary } => manifest(&catalog, with_binary),
        Command::Changes { since } => changes(&catalog, since.as_deref()),
        Command::Image {
            layout,
            archive,
            source,
        } => outcome(release::image(
            &catalog,
            layout.as_deref(),
            archive.as_deref(),
            source.revision,
        )),
        Command::Release {
            out,
            sbom,
            source,
            signing,
        } => outcome(release::folder(
            &catalog,
            &out,
            sbom.as_deref(),
            source.revision,
            &signing,
        )),
        Command::Verify {
            path,
            key,
            manifest,
            signature,
        } => release::verify(&path, &key, manifest.as_deref(), signature.as_deref()),
    }
}

/// A command that prints its result or one error line.
fn outcome(result: Result<String, String>) -> ExitCode {
    match result {
        Ok(text) => {
            println!("{text}");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

fn manifest(catalog: &Catalog, with_binary: bool) -> ExitCode {
    outcome(release::manifest_json(catalog, with_binary))
}

fn changes(catalog: &Catalog, since: Option<&str>) -> ExitCode {
    match cmd::changes::resolve(catalog, since) {
        Ok(which) => {
            print!("{}", cmd::changes::markdown(catalog, which, usize::MAX));
            ExitCode::SUCCESS
        }
        Err(error) => report_error(&error),
    }
}

/// Log to stderr, filtered by `flag` (`--log-level`), else RUST_LOG, else `default`. Public
/// for the bench peer, which must log exactly as the server does.
pub fn init_logging(flag: Option<&str>, default: &str) {
    // `Targets` rather than `EnvFilter`: the same `level` and `target=level` directives
    // without span and field filters, which a server that logs a few lines does not need.
    // `EnvFilter` compiles its directive grammar as regexes at start-up, which brought the
    // regex engines into the binary and a few hundred KiB of their code into idle memory.
    use std::str::FromStr;
    use tracing_subscriber::filter::Targets;
    use tracing_subscriber::prelude::*;
    let parse = |directive: &str| Targets::from_str(directive.trim());
    let fallback = || parse(default).unwrap_or_default();
    let filter = match flag {
        Some(directive) => parse(directive).unwrap_or_else(|error| {
            eprintln!(
                "skillpack: ignoring --log-level {directive:?}: {error} (use a level such as `debug`, or `target=level` pairs such as `skillpack=debug,rmcp=warn`)"
            );
            fallback()
        }),
        None => match std::env::var("RUST_LOG") {
            Ok(directive) if !directive.trim().is_empty() => {
                parse(&directive).unwrap_or_else(|error| {
                    eprintln!("skillpack: ignoring RUST_LOG={directive:?}: {error}");
                    fallback()
                })
            }
            _ => fallback(),
        },
    };
    let _ = tracing_subscriber::registry()
        .with(
            tracing_subscriber::fmt::layer()
                .with_writer(std::io::stderr)
                .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr())),
        )
        .with(filter)
        .try_init();
}

/// Check `--expect-fingerprint`: `Err(message)` when it is malformed or does not match.
pub fn check_fingerprint(catalog: &Catalog, expected: &str) -> Result<(), String> {
    let wanted = expected
        .trim()
        .trim_start_matches("blake3:")
        .to_ascii_lowercase();
    if wanted.len() < 12 || !wanted.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err(format!(
            "--expect-fingerprint takes at least 12 hex digits of a catalog fingerprint, got {expected:?}; \
             `skillpack fingerprint` prints this binary's"
        ));
    }
    let actual = catalog.fingerprint().trim_start_matches("blake3:");
    if !actual.starts_with(&wanted) {
        return Err(format!(
            "refusing to start: this binary serves catalog {} but --expect-fingerprint wants {wanted}…; \
             deploy the binary built from the expected content, or update the pin",
            catalog.fingerprint()
        ));
    }
    Ok(())
}

fn serve(catalog: Catalog, args: ServeArgs) -> ExitCode {
    crate::catalog::set_cache_bytes(args.cache_mib.saturating_mul(1024 * 1024));
    if let Some(expected) = &args.expect_fingerprint
        && let Err(message) = check_fingerprint(&catalog, expected)
    {
        eprintln!("skillpack: {message}");
        return ExitCode::from(2);
    }
    // Counted before the sandbox closes in (`cores`).
    let cores = cores();
    crate::search::set_threads(match args.search_threads {
        0 => cores,
        threads => threads,
    });
    match args.http {
        Some(addr) => serve_http(catalog, addr, &args.http_options, cores),
        None => serve_stdio(catalog),
    }
}

/// The cores this process may use. The count reads the cgroup CPU quota from /proc and
/// /sys, so the server counts them before the sandbox closes in: Landlock would refuse the
/// reads, and the count would then be every CPU of the machine instead of the container's
/// share.
fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

fn serve_stdio(catalog: Catalog) -> ExitCode {
    // One client, one pipe: a single thread is all the runtime needs (a large search may
    // take helper threads of its own: `search::set_threads`).
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("skillpack: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    tracing::info!(
        name = catalog.name(),
        version = catalog.server_version(),
        fingerprint = catalog.fingerprint(),
        "serving MCP over stdio"
    );
    match runtime.block_on(crate::transport::stdio::serve(SkillpackServer::new(
        catalog,
    ))) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("skillpack: {error}");
            ExitCode::FAILURE
        }
    }
}

fn serve_http(catalog: Catalog, addr: SocketAddr, args: &HttpArgs, cores: usize) -> ExitCode {
    // Credentials come from the environment only: a flag would show up in `ps`.
    let secrets = Secrets::from_env();
    let mut options = match args.options(addr, &secrets, catalog.name()) {
        Ok(options) => options,
        Err(message) => {
            eprintln!("skillpack: {message}");
            return ExitCode::from(2);
        }
    };
    drop(secrets);
    // Every connection is a descriptor: take the headroom the hard limit allows and fit
    // the connection cap under it, before the sandbox (which reads nothing here, but the
    // limits belong with the rest of start-up).
    http::fit_to_open_files_limit(&mut options);
    // Bind first, then give up the filesystem (and new binds/connections), then start the
    // worker threads: Landlock covers the calling thread and the threads it spawns later,
    // so restricting before the runtime exists covers every thread the server will have.
    let listener = match http::bind(options.addr) {
        Ok(listener) => listener,
        Err(message) => {
            eprintln!("skillpack: {message}");
            return ExitCode::FAILURE;
        }
    };
    let metrics_listener = match options.metrics.map(http::bind).transpose() {
        Ok(listener) => listener,
        Err(message) => {
            eprintln!("skillpack: --metrics: {message}");
            return ExitCode::FAILURE;
        }
    };
    // Many clients at once: use every core the process may use (counted before the sandbox
    // closed in, as `serve` says).
    crate::sandbox::restrict().log();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(cores)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("skillpack: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(http::serve(
        SkillpackServer::new(catalog),
        listener,
        metrics_listener,
        options,
    )) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("skillpack: {error}");
            ExitCode::FAILURE
        }
    }
}

/// `mkdocs (`mkdocs.yml` in the docs folder's parent); not pages: 3 partial`.
fn docs_site_line(site: &crate::model::ArchivedDocsSite) -> String {
    let flavor = if site.flavor.is_empty() {
        "plain"
    } else {
        site.flavor.as_str()
    };
    let mut line = format!("{flavor} ({})", site.why);
    if !site.not_pages.is_empty() {
        let parts: Vec<String> = site
            .not_pages
            .iter()
            .map(|entry| format!("{} {}", entry.1, entry.0))
            .collect();
        line.push_str(&format!("; not pages: {}", parts.join(", ")));
    }
    line
}

fn info(catalog: &Catalog, as_json: bool) -> ExitCode {
    let archive = catalog.archive();
    let t = &archive.totals;
    let (sandbox, verified) = crate::sandbox::probe();
    // The server never validates the archive (it reads it in place at start-up); `info`
    // does, completely, so a release can be checked before it ships.
    let validation = catalog.verify();
    let archive_valid = validation.is_ok();
    let breakdown = crate::catalog::breakdown::of(catalog);
    let mut sandbox_json = sandbox.to_json();
    sandbox_json["verified"] = json!(verified);
    let summary = json!({
        "name": catalog.name(),
        "version": catalog.server_version(),
        "fingerprint": catalog.fingerprint(),
        "contract_version": crate::model::CONTRACT_VERSION,
        "skills": t.skills.to_native(),
        "references": t.references.to_native(),
        "skill_files": t.skill_files.to_native(),
        "docs": t.docs.to_native(),
        "chunks": t.chunks.to_native(),
        "chunk_bytes": archive.chunk_bytes.to_native(),
        "content_bytes": t.content_bytes.to_native(),
        "blob_bytes": t.blob_bytes.to_native(),
        "archive_bytes": catalog.embedded_bytes().0,
        "archive_valid": archive_valid,
        "archive_error": validation.as_ref().err(),
        "baked": breakdown.to_json(t.content_bytes.to_native()),
        "uris": archive.uri_index.len(),
        "docs_site": {
            "flavor": archive.docs_site.flavor.as_str(),
            "why": archive.docs_site.why.as_str(),
            "pages": archive.docs_site.pages.to_native(),
            "not_pages": archive.docs_site.not_pages.iter()
                .map(|entry| (entry.0.to_string(), json!(entry.1.to_native())))
                .collect::<serde_json::Map<String, serde_json::Value>>(),
        },
        "release": {
            "label": archive.history.label.as_str(),
            "date": cmd::changes::current(catalog).date(),
            "earlier": cmd::changes::releases_json(catalog),
        },
        "sandbox": sandbox_json,
    });
    if as_json {
        println!("{summary:#}");
    } else {
        println!("name:         {}", catalog.name());
        println!("version:      {}", catalog.server_version());
        println!("fingerprint:  {}", catalog.fingerprint());
        println!("contract:     {}", crate::model::CONTRACT_VERSION);
        println!(
            "skills:       {} ({} references, {} skill files)",
            t.skills, t.references, t.skill_files
        );
        println!("docs:         {}", t.docs);
        println!("docs site:    {}", docs_site_line(&archive.docs_site));
        println!(
            "chunks:       {} (at most {} bytes each)",
            t.chunks, archive.chunk_bytes
        );
        println!(
            "content:      {} bytes ({} bytes stored after de-duplication)",
            t.content_bytes, t.blob_bytes
        );
        println!(
            "archive:      {} bytes{}",
            breakdown.archive(),
            if archive_valid {
                ", validated"
            } else {
                ", DOES NOT VALIDATE (below): rebuild the binary or fetch the release again"
            }
        );
        print!("{}", breakdown.table(t.content_bytes.to_native()));
        println!("uris:         {}", archive.uri_index.len());
        let this = cmd::changes::current(catalog);
        let earlier = cmd::changes::earlier(catalog);
        println!(
            "release:      {}{}{}",
            this.name(),
            dated(&this.date()),
            if earlier.is_empty() {
                ", the first of its chain".to_owned()
            } else {
                format!(", built against {} earlier release(s):", earlier.len())
            }
        );
        for release in earlier {
            let named = cmd::changes::release(release);
            println!(
                "              {} ({}){}: {} documents and {} skill files changed since",
                named.name(),
                named.short(),
                dated(&named.date()),
                release.changes.documents.len(),
                release.changes.files.len(),
            );
        }
        println!(
            "sandbox:      {}{}",
            sandbox.describe(),
            match verified {
                Some(true) => " (checked now: a restricted thread could not open a file)",
                Some(false) => " (checked now: A RESTRICTED THREAD COULD STILL OPEN A FILE)",
                None => "",
            }
        );
    }
    if let Err(error) = &validation {
        eprintln!("skillpack: this binary's archive does not validate: {error}");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

/// ` of <date>`, or nothing for an undated release.
fn dated(date: &str) -> String {
    if date.is_empty() {
        String::new()
    } else {
        format!(" of {date}")
    }
}

fn list(catalog: &Catalog, kind: Option<ListKind>) -> ExitCode {
    let mut out = std::io::stdout().lock();
    if kind != Some(ListKind::Docs) {
        for skill in catalog.skills() {
            let document = catalog.document(skill.document.to_native());
            let _ = writeln!(
                out,
                "skill\t{}\t{}\t{}",
                skill.id, document.uri, document.summary
            );
        }
    }
    if kind != Some(ListKind::Skills) {
        for document in catalog.documents() {
            if document.kind == ArchivedDocKind::Doc {
                let _ = writeln!(
                    out,
                    "doc\t{}\t{}\t{}",
                    document.path, document.uri, document.title
                );
            }
        }
    }
    ExitCode::SUCCESS
}

fn search(catalog: &Catalog, args: SearchArgs) -> ExitCode {
    let mut arguments = serde_json::Map::new();
    arguments.insert("query".into(), args.query.join(" ").into());
    let kind = match args.kind {
        SearchKind::Skills => "skills",
        SearchKind::Docs => "docs",
        SearchKind::All => "all",
    };
    arguments.insert("kind".into(), kind.into());
    arguments.insert("limit".into(), args.limit.into());
    if let Some(cursor) = args.cursor {
        arguments.insert("cursor".into(), cursor.into());
    }
    if !args.also.is_empty() {
        arguments.insert("also".into(), args.also.into());
    }
    // A large catalog's search uses the cores as the server's does (the same answer).
    crate::search::set_threads(cores());
    // The same code as the tool, so the CLI shows what an agent gets.
    match (cmd::catalog_search::TOOL.call)(catalog, &arguments) {
        Ok(result) => {
            let printed = if args.json {
                format!("{result:#}\n")
            } else {
                cmd::catalog_search::render_text(&result)
            };
            if std::io::stdout()
                .lock()
                .write_all(printed.as_bytes())
                .is_err()
            {
                return ExitCode::FAILURE;
            }
            ExitCode::SUCCESS
        }
        Err(error) => report_error(&error),
    }
}

fn report_error(error: &cmd::errors::CatalogError) -> ExitCode {
    eprintln!("skillpack: {} ({})", error.message, error.code.as_str());
    if !error.reason.is_empty() {
        eprintln!("  reason: {}", error.reason);
    }
    if !error.candidates.is_empty() {
        eprintln!("  did you mean: {}", error.candidates.join(", "));
    }
    if let Some(repair) = &error.repair {
        eprintln!("  next: {}", repair.alternative);
    }
    ExitCode::FAILURE
}

fn read(catalog: &Catalog, uri: &str) -> ExitCode {
    match cmd::resources::read(catalog, uri) {
        Ok(result) => {
            let mut out = std::io::stdout().lock();
            for contents in result.contents {
                let written = match contents {
                    ResourceContents::TextResourceContents { text, .. } => {
                        out.write_all(text.as_bytes())
                    }
                    ResourceContents::BlobResourceContents { blob, .. } => {
                        match base64::engine::general_purpose::STANDARD.decode(blob) {
                            Ok(bytes) => out.write_all(&bytes),
                            Err(error) => Err(std::io::Error::other(error)),
                        }
                    }
                    _ => Ok(()),
                };
                if written.is_err() {
                    return ExitCode::FAILURE;
                }
            }
            ExitCode::SUCCESS
        }
        Err(error) => report_error(&error),
    }
}
