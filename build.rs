//! Compile `skills/` and `docs/` into the catalog this package's binary serves. The
//! compiler is the `skillpack-build` crate (crates/skillpack-build); `SKILLPACK_*`
//! variables override these folders and the other settings (README, "Build your own
//! catalog").

fn main() {
    skillpack_build::bake("skills", "docs");
}
