//! `skillpack-peer --skills DIR [--transport pipes|stdio]`: the comparison server for
//! `scripts/bench`. An ordinary MCP skills server built on rmcp's own `SkillCatalog`
//! (feature `skills-fs`): at start-up it walks the skills folder, reads and hashes every
//! file, then serves `skills/list`, `skills/get`, `resources/directory/read`,
//! `resources/list` and `resources/read` from that snapshot — the handler of rmcp's own
//! documentation example, nothing slower or faster added.
//!
//! It runs like skillpack (current-thread tokio runtime, logs to stderr, the non-blocking
//! `stdio_pipes` transport by default) so that the comparison measures the design — load at
//! start-up versus compiled in — and not the plumbing. `--transport stdio` selects rmcp's
//! plain `stdio()` transport to show what the transport alone costs.
//!
//! Bench tooling, built only with `--features bench`; the shipped binary never links
//! `skills-fs`.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Parser, ValueEnum};
use rmcp::handler::server::skill_catalog::SkillCatalog;
use rmcp::model::{
    GetSkillRequestParams, GetSkillResult, ListResourcesResult, ListSkillsResult,
    PaginatedRequestParams, ReadResourceDirectoryRequestParams, ReadResourceDirectoryResult,
    ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};

#[derive(Parser)]
#[command(about = "rmcp SkillCatalog server over stdio: the runtime-loading peer for benchmarks.")]
struct Args {
    /// The skills folder to load at start-up.
    #[arg(long)]
    skills: PathBuf,
    #[arg(long, value_enum, default_value_t = Transport::Pipes)]
    transport: Transport,
}

#[derive(ValueEnum, Clone, Copy, PartialEq, Eq)]
enum Transport {
    /// rmcp `stdio_pipes()`: non-blocking pipes on the reactor (what skillpack uses).
    Pipes,
    /// rmcp `stdio()`: tokio's blocking stdin/stdout (a thread hop per read and write).
    Stdio,
}

#[derive(Clone)]
struct Peer {
    skills: Arc<SkillCatalog>,
}

impl ServerHandler for Peer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_resources()
                .enable_skills_with_directory_read()
                .build(),
        )
    }

    async fn list_skills(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListSkillsResult, ErrorData> {
        Ok(self.skills.list_skills())
    }

    async fn get_skill(
        &self,
        request: GetSkillRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetSkillResult, ErrorData> {
        self.skills.get_skill(&request.uri)
    }

    async fn read_resource_directory(
        &self,
        request: ReadResourceDirectoryRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceDirectoryResult, ErrorData> {
        self.skills.read_resource_directory(&request.uri)
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(ListResourcesResult::with_all_items(self.skills.resources()))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        self.skills
            .read_resource(&request.uri)
            .map(Into::into)
            .ok_or_else(|| ErrorData::resource_not_found(request.uri, None))
    }
}

fn main() -> ExitCode {
    let args = Args::parse();
    // Logging exactly as skillpack's: RUST_LOG, else `info`.
    skillpack_server::cli::init_logging(None, "info");
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("skillpack-peer: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(serve(args)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("skillpack-peer: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn serve(args: Args) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    // Loaded before serving, as in rmcp's documentation: `initialize` is answered once the
    // snapshot exists.
    let skills = Arc::new(SkillCatalog::from_dir(&args.skills)?);
    let peer = Peer { skills };
    let running = match args.transport {
        Transport::Pipes => peer.serve(rmcp::transport::io::stdio_pipes()).await?,
        Transport::Stdio => peer.serve(rmcp::transport::stdio()).await?,
    };
    running.waiting().await?;
    Ok(())
}
