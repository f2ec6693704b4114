use skillpack::catalog::Catalog;
fn main() {
    let c = Catalog::baked();
    let kind = std::env::args().nth(1).unwrap();
    let uris: Vec<String> = match kind.as_str() {
        "doc" => c.documents().iter().map(|d| d.uri.to_string()).collect(),
        "file" => c.files().iter().map(|f| f.uri.to_string()).collect(),
        _ => c
            .documents()
            .iter()
            .flat_map(|d| {
                d.chunks
                    .iter()
                    .map(move |ch| skillpack::uri::chunk(&d.uri, &ch.id))
            })
            .collect(),
    };
    let mut total = 0;
    for _ in 0..2000 {
        for u in &uris {
            let r = skillpack::cmd::resources::read(&c, u).unwrap();
            total += serde_json::to_vec(&r).unwrap().len();
        }
    }
    println!("{} reads {}", uris.len() * 2000, total);
}
