//! Transports: how MCP messages reach the server.

pub mod connections;
pub mod framing;
pub mod http;
pub mod stdio;
