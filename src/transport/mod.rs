//! Transports: how MCP messages reach the server.

pub mod framing;
pub mod stdio;
