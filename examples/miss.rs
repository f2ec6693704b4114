use skillpack::catalog::Catalog;
use skillpack::compile::{self, Config};
fn main() {
    let d = std::path::PathBuf::from(std::env::args().nth(1).unwrap());
    let out = compile::compile(&Config::for_dirs(d.join("skills"), d.join("docs"))).unwrap();
    let c = Catalog::from_compiled(out).unwrap();
    let doc = c
        .documents()
        .iter()
        .find(|d| d.uri.starts_with("resource://docs/"))
        .unwrap()
        .uri
        .to_string();
    let skill = &c.skills()[c.skills().len() / 2];
    let cases = [
        ("doc miss", format!("{}x", doc.trim_end_matches(".md"))),
        (
            "skill miss",
            "resource://skills/deploy-cachex/document".to_string(),
        ),
        (
            "skill path miss",
            "skill://team-3/nothing-here/SKILL.md".to_string(),
        ),
        (
            "file miss",
            format!(
                "{}/nothing.md",
                skill.skill_md_uri.trim_end_matches("/SKILL.md")
            ),
        ),
        (
            "record miss",
            "resource://catalog/skills/zzz-top".to_string(),
        ),
        ("hit", skill.skill_md_uri.to_string()),
    ];
    for (name, uri) in cases {
        let t = std::time::Instant::now();
        let n = 200;
        let mut k = 0;
        for _ in 0..n {
            k += match skillpack::cmd::resources::read(&c, &uri) {
                Ok(_) => 1,
                Err(e) => e.candidates.len(),
            };
        }
        println!(
            "{name:16} {:>10.1} µs  ({k})",
            t.elapsed().as_secs_f64() * 1e6 / n as f64
        );
    }
}
