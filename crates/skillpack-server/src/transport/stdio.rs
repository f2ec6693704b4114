//! stdio transport: what Claude Code/Desktop, Cursor and Codex spawn. stdout carries only
//! protocol messages; logs go to stderr.

use rmcp::ServiceExt;
use rmcp::transport::io::stdio_pipes;

use super::framing::LineTransport;
use crate::cmd::resources::MetaDelivery;
use crate::server::SkillpackServer;

/// Serve one client on stdin/stdout until it disconnects.
pub async fn serve(
    server: SkillpackServer,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    // Non-blocking pipes when the client spawned us with pipes (the normal case), so reads
    // and writes stay on the reactor instead of a blocking thread per message. This reopens
    // /proc/self/fd/{0,1}: the last files the process opens.
    let (stdin, stdout) = stdio_pipes();
    // From here on the process cannot open a file. The runtime is single-threaded and has
    // started no thread yet, so the restriction covers every thread it will ever have: the
    // helpers a large search starts (`search::set_threads`) are started from this one.
    crate::sandbox::restrict().log();
    // The codec writes documents' `_meta` straight from the archive (MetaDelivery).
    let catalog = *server.catalog();
    let server = server.with_meta_delivery(MetaDelivery::Deferred);
    let running = server
        .serve(LineTransport::new(stdin, stdout, catalog))
        .await?;
    tracing::info!("stdio session started");
    let reason = running.waiting().await?;
    tracing::info!(?reason, "stdio session ended");
    Ok(())
}
