// Compile skills/ and docs/ into the binary. Every setting is optional; SKILLPACK_*
// variables override what is given here, e.g.
//   skillpack_build::Bake::new().skills("skills").docs("docs").name("acme-docs").strict(true).run();
fn main() {
    skillpack_build::bake("skills", "docs");
}
