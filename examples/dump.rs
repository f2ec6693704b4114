use skillpack::catalog::Catalog;
fn main() {
    let c = Catalog::baked();
    for d in c.documents() {
        let r = skillpack::cmd::resources::read(&c, &d.uri).unwrap();
        println!("{}", serde_json::to_string(&r).unwrap());
        for ch in d.chunks.iter() {
            let u = skillpack::uri::chunk(&d.uri, &ch.id);
            println!(
                "{}",
                serde_json::to_string(&skillpack::cmd::resources::read(&c, &u).unwrap()).unwrap()
            );
        }
        for h in d.outline.iter() {
            let u = skillpack::uri::anchor(&d.uri, &h.anchor);
            println!(
                "{}",
                serde_json::to_string(&skillpack::cmd::resources::read(&c, &u).unwrap()).unwrap()
            );
        }
    }
    for f in c.files() {
        println!(
            "{}",
            serde_json::to_string(&skillpack::cmd::resources::read(&c, &f.uri).unwrap()).unwrap()
        );
    }
    println!(
        "{}",
        serde_json::to_string(&skillpack::cmd::resources::list(&c, None).unwrap()).unwrap()
    );
}
