//! One module per MCP surface. Each takes the [`Catalog`](crate::catalog::Catalog) and
//! request arguments and returns rmcp result types or a
//! [`CatalogError`](errors::CatalogError); none of them does IO.
//!
//! The modules stand on three floors, and an import only goes down (a test below holds
//! them to it):
//!
//! 1. **support**, what every surface uses: the error envelope (`errors`), cursors,
//!    URI lookup, the release history (`changes`), completion values (`suggest`), `_meta`
//!    objects, and what tools and prompts are made of (`tool_def`, `prompt_def`);
//! 2. **surfaces**, one file each: `resources`, `templates`, `skills`, the tools
//!    `catalog_list`, `catalog_read`, `catalog_search`, and the prompts `orient`,
//!    `use_skill`, `find_skill`, `whats_new`. No surface imports another;
//! 3. **registries**, which list and dispatch the surfaces: `tools` (and the verification
//!    of every error's repair call, which runs a tool), `prompts`, and `completion`
//!    (`completion/complete`, which hands prompt arguments to their prompt).

pub mod catalog_list;
pub mod catalog_read;
pub mod catalog_search;
pub mod changes;
pub mod completion;
pub mod cursor;
pub mod errors;
pub mod find_skill;
pub mod lookup;
pub mod meta;
pub mod orient;
pub mod prompt_def;
pub mod prompts;
pub mod resources;
pub mod skills;
pub mod suggest;
pub mod templates;
pub mod tool_def;
pub mod tools;
pub mod use_skill;
pub mod whats_new;

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};
    use std::path::Path;

    /// The floors of the module docs, bottom up.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    enum Floor {
        Support,
        Surface,
        Registry,
    }
    use Floor::*;

    /// Every file of `cmd/` and its floor. A new file must be placed here.
    const FLOORS: &[(&str, Floor)] = &[
        ("errors", Support),
        ("cursor", Support),
        ("lookup", Support),
        ("changes", Support),
        ("suggest", Support),
        ("meta", Support),
        ("tool_def", Support),
        ("prompt_def", Support),
        ("resources", Surface),
        ("templates", Surface),
        ("skills", Surface),
        ("catalog_list", Surface),
        ("catalog_read", Surface),
        ("catalog_search", Surface),
        ("orient", Surface),
        ("use_skill", Surface),
        ("find_skill", Surface),
        ("whats_new", Surface),
        ("tools", Registry),
        ("prompts", Registry),
        ("completion", Registry),
    ];

    fn floor(module: &str) -> Option<Floor> {
        FLOORS.iter().find(|(m, _)| *m == module).map(|(_, f)| *f)
    }

    /// The modules of `cmd/` that `source` names through `super::` or `crate::cmd::`
    /// (`use` lines, grouped `{a, b}` imports, and paths in code; comment lines aside).
    fn named_modules(source: &str, own: &str) -> BTreeSet<String> {
        let mut found = BTreeSet::new();
        for line in source.lines() {
            if line.trim_start().starts_with("//") {
                continue;
            }
            for prefix in ["super::", "crate::cmd::"] {
                for (at, _) in line.match_indices(prefix) {
                    let mut rest = &line[at + prefix.len()..];
                    // `super::super::x` from a test module inside the file.
                    while let Some(stripped) = rest.strip_prefix("super::") {
                        rest = stripped;
                    }
                    let names: Vec<&str> = match rest.strip_prefix('{') {
                        Some(group) => group
                            .split('}')
                            .next()
                            .unwrap_or_default()
                            .split(',')
                            .collect(),
                        None => vec![rest],
                    };
                    for name in names {
                        let name: String = name
                            .trim()
                            .chars()
                            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                            .collect();
                        if name != own && floor(&name).is_some() {
                            found.insert(name);
                        }
                    }
                }
            }
        }
        found
    }

    #[test]
    fn imports_go_down_the_floors_and_never_round() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/cmd");
        let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for entry in std::fs::read_dir(&dir).expect("read src/cmd") {
            let path = entry.expect("a src/cmd entry").path();
            let Some(module) = path.file_stem().and_then(|s| s.to_str()) else {
                continue;
            };
            if module == "mod" {
                continue;
            }
            assert!(
                floor(module).is_some(),
                "src/cmd/{module}.rs stands on no floor: add it to FLOORS (cmd/mod.rs)"
            );
            let source = std::fs::read_to_string(&path).expect("read a cmd source");
            graph.insert(module.to_owned(), named_modules(&source, module));
        }
        assert_eq!(
            graph.len(),
            FLOORS.len(),
            "FLOORS names a file that is gone"
        );
        let mut wrong = Vec::new();
        for (module, imports) in &graph {
            let from = floor(module).unwrap();
            for import in imports {
                let to = floor(import).unwrap();
                let allowed = match from {
                    Support | Surface => to == Support,
                    Registry => true,
                };
                if !allowed {
                    wrong.push(format!("{module} ({from:?}) -> {import} ({to:?})"));
                }
            }
        }
        assert!(
            wrong.is_empty(),
            "imports against the floors:\n{}",
            wrong.join("\n")
        );
        // No circle at all, within a floor either: depth-first, a module met again while
        // its own imports are being visited closes one.
        fn visit<'a>(
            module: &'a str,
            graph: &'a BTreeMap<String, BTreeSet<String>>,
            path: &mut Vec<&'a str>,
            done: &mut BTreeSet<&'a str>,
        ) {
            if let Some(start) = path.iter().position(|m| *m == module) {
                panic!("import circle: {} -> {module}", path[start..].join(" -> "));
            }
            if !done.insert(module) {
                return;
            }
            path.push(module);
            for import in &graph[module] {
                visit(import, graph, path, done);
            }
            path.pop();
        }
        let mut done = BTreeSet::new();
        for module in graph.keys() {
            visit(module, &graph, &mut Vec::new(), &mut done);
        }
    }

    #[test]
    fn the_scan_sees_every_form_of_import() {
        let source = "use super::{errors, tool_def::{Args, ToolDef}};\n\
                      use super::suggest::{self, Context};\n\
                      // use super::tools;\n\
                      let x = super::super::changes::body(c, 1);\n\
                      let y = crate::cmd::lookup::resolve(c, u);";
        let found: Vec<String> = named_modules(source, "orient").into_iter().collect();
        assert_eq!(
            found,
            ["changes", "errors", "lookup", "suggest", "tool_def"]
        );
    }
}
