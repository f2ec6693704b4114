use skillpack::compile::{self, Config};
fn main() {
    let dir = std::env::args().nth(1).unwrap();
    let d = std::path::Path::new(&dir);
    let config = Config::for_dirs(d.join("skills"), d.join("docs"));
    let t = std::time::Instant::now();
    let out = compile::compile(&config).unwrap();
    eprintln!("compile {:?}", t.elapsed());
    let t = std::time::Instant::now();
    let all = out.catalog_bytes();
    eprintln!("archive {:?}", t.elapsed());
    println!("archive {} content {}", all.len(), out.content.len());
}
