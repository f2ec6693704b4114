// The full skillpack CLI (serve over stdio or --http, info, list, read, search, fingerprint)
// over the catalog build.rs baked.
skillpack_server::main!();
