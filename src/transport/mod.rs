//! Transports: how MCP messages reach the server.

pub mod stdio;
