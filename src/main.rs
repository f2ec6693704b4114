//! The `skillpack` binary: this repository's `skills/` and `docs/`, baked by `build.rs`,
//! served with the full CLI. Everything else is in crates/skillpack-server.

skillpack_server::main!();
