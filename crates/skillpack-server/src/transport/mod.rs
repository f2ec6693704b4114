//! Transports: how MCP messages reach the server.

pub mod access_log;
pub mod auth;
pub mod connections;
pub mod framing;
pub mod http;
pub mod metrics;
pub mod note;
pub mod observe;
pub mod stdio;
