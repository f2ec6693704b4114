//! Completion candidates that the catalog does not already hold as sorted lists: the
//! topics `orient` completes, and the doc folder tree that segment-wise `path` completion
//! walks. Skill ids, ref ids, chunk ids and anchors are completed from the catalog's own
//! (sorted or document-ordered) lists.

use std::collections::BTreeSet;

use crate::model::{Catalog, Completions, DocKind, TreeEntry};

pub fn candidates(catalog: &Catalog) -> Completions {
    Completions {
        topics: topics(catalog),
        doc_tree: doc_tree(catalog),
    }
}

fn topics(catalog: &Catalog) -> Vec<String> {
    let mut topics: BTreeSet<String> = BTreeSet::new();
    for skill in &catalog.skills {
        topics.insert(skill.id.clone());
        topics.extend(skill.tags.iter().cloned());
        topics.extend(skill.capabilities.iter().cloned());
    }
    for doc in catalog.documents.iter().filter(|d| d.kind == DocKind::Doc) {
        if let Some((folder, _)) = doc.path.split_once('/') {
            topics.insert(folder.to_owned());
        }
    }
    topics.retain(|t| !t.trim().is_empty());
    topics.into_iter().collect()
}

fn doc_tree(catalog: &Catalog) -> Vec<TreeEntry> {
    let mut paths: BTreeSet<String> = BTreeSet::new();
    for doc in catalog.documents.iter().filter(|d| d.kind == DocKind::Doc) {
        paths.insert(doc.path.clone());
        let mut end = 0;
        while let Some(slash) = doc.path[end..].find('/') {
            end += slash + 1;
            paths.insert(doc.path[..end].to_owned());
        }
    }
    let mut tree: Vec<TreeEntry> = paths
        .into_iter()
        .map(|path| {
            let trimmed = path.strip_suffix('/').unwrap_or(&path);
            let parent_len = trimmed.rfind('/').map_or(0, |i| i + 1) as u32;
            TreeEntry { parent_len, path }
        })
        .collect();
    tree.sort_by(|a, b| {
        let parent = |e: &TreeEntry| e.path[..e.parent_len as usize].to_owned();
        parent(a).cmp(&parent(b)).then_with(|| a.path.cmp(&b.path))
    });
    tree
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Document, Stored};

    fn doc(path: &str) -> Document {
        Document {
            uri: crate::uri::doc(path),
            kind: DocKind::Doc,
            path: path.into(),
            name: path.into(),
            title: String::new(),
            summary: String::new(),
            content: Stored::default(),
            version: String::new(),
            chunk_count: 0,
            tables: 0,
            outline: Vec::new(),
            chunks: Vec::new(),
            links: Vec::new(),
            previous: Default::default(),
        }
    }

    #[test]
    fn doc_tree_groups_children_by_folder() {
        let catalog = Catalog {
            documents: ["index.md", "guide/b.md", "guide/a/x.md", "zeta.md"]
                .into_iter()
                .map(doc)
                .collect(),
            ..Default::default()
        };
        let tree: Vec<(String, String)> = doc_tree(&catalog)
            .into_iter()
            .map(|e| (e.path[..e.parent_len as usize].to_owned(), e.path))
            .collect();
        let expected = [
            ("", "guide/"),
            ("", "index.md"),
            ("", "zeta.md"),
            ("guide/", "guide/a/"),
            ("guide/", "guide/b.md"),
            ("guide/a/", "guide/a/x.md"),
        ];
        assert_eq!(
            tree,
            expected
                .iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect::<Vec<_>>()
        );
    }
}
