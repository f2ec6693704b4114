//! Transports: how MCP messages reach the server.

pub mod http;
pub mod stdio;
