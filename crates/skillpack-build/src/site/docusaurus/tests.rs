use super::*;
use crate::compile::walk::SourceFile;
use crate::site::{LocaleChoice, Site, Sources};

/// Renders every page of `SKILLPACK_DUMP_DOCS` into `SKILLPACK_DUMP_OUT` (a development aid:
/// `cargo test -p skillpack-build --lib site::docusaurus::tests::dump -- --ignored`).
#[test]
#[ignore]
fn dump() {
    let (Ok(docs), Ok(out)) = (
        std::env::var("SKILLPACK_DUMP_DOCS"),
        std::env::var("SKILLPACK_DUMP_OUT"),
    ) else {
        return;
    };
    let docs = PathBuf::from(docs);
    let mut files: Vec<SourceFile> = walkdir::WalkDir::new(&docs)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| SourceFile {
            rel: e.path().strip_prefix(&docs).unwrap().to_string_lossy().into(),
            bytes: std::fs::read(e.path()).unwrap(),
        })
        .collect();
    files.sort_by(|a, b| a.rel.cmp(&b.rel));
    let mut report = Report::new(false);
    let detection = crate::site::detect(&docs, None).unwrap();
    let site = Site::load(detection, Vec::new(), LocaleChoice::Default, &mut report);
    let sources = Sources::new(&docs, &site.detection.boundary, &files);
    for file in &files {
        let Ok(text) = std::str::from_utf8(&file.bytes) else {
            continue;
        };
        let fm = crate::compile::frontmatter::parse(text).ok().flatten();
        let role = site.role(&file.rel, fm.as_ref().map(|f| &f.fields));
        if role != Role::Page {
            println!("skip {} {role:?}", file.rel);
            continue;
        }
        let page = Page {
            rel: &file.rel,
            text,
            body_offset: crate::compile::frontmatter::body_offset(text),
            frontmatter: fm.as_ref().map(|f| &f.fields),
        };
        let (served, problems) = crate::site::page::serve(&site, &page, &sources);
        for p in problems {
            println!("{}:{:?}: {} ({})", file.rel, p.line, p.message, p.error);
        }
        let path = Path::new(&out).join(&file.rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, served).unwrap();
    }
    println!("nav: {:#?}", site.settings().nav);
}
