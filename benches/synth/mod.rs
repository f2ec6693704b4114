//! Deterministic synthetic catalogs for benchmarks: `skills/` and `docs/` folders of
//! realistic content at any size, the same bytes for the same seed and size.
//!
//! Shared by the `gen-catalog` binary (which `scripts/bench` runs) and the criterion
//! benches (which compile a catalog in-process). It is bench tooling: nothing in the
//! shipped binary calls it.
//!
//! What a catalog of `documents` markdown documents holds:
//! - `documents / 4` skills, half of them nested one level under a team folder, each a
//!   `SKILL.md` with Agent Skills frontmatter (some declaring `references:`), one to three
//!   references, and other files: a `LICENSE.txt` identical in every skill (stored once),
//!   a script in every other skill, a JSON template in every third, and a PNG (binary, so
//!   served as a base64 blob) in every eighth;
//! - the remaining documents under `docs/`, in section folders two levels deep.
//!
//! Every markdown document has headings at levels 1–4, paragraphs, bullet and numbered
//! lists, fenced code blocks, some tables and block quotes, and valid relative links (to
//! other documents, to headings of other documents, within the document, and a few
//! external ones), so the compiler's link resolution and chunking do real work. Sizes
//! spread from about 1 KiB to 12 KiB, with one document in fifty ten times larger so that
//! chunking splits it.

// Compiled into two crates (the generator binary and the criterion bench) that use
// different parts of it.
#![allow(dead_code)]

use std::fmt::Write as _;
use std::io;
use std::path::Path;

/// What [`generate`] wrote.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Summary {
    pub skills: usize,
    pub references: usize,
    pub docs: usize,
    /// Non-markdown skill files (license, scripts, templates, images).
    pub other_files: usize,
    pub binary_files: usize,
    pub bytes: u64,
}

impl Summary {
    pub fn documents(&self) -> usize {
        self.skills + self.references + self.docs
    }
}

const WORDS: &[&str] = &[
    "agent",
    "archive",
    "artifact",
    "audit",
    "backup",
    "batch",
    "branch",
    "buffer",
    "build",
    "bundle",
    "cache",
    "catalog",
    "channel",
    "checkpoint",
    "client",
    "cluster",
    "commit",
    "config",
    "connector",
    "container",
    "context",
    "cursor",
    "dataset",
    "deploy",
    "digest",
    "endpoint",
    "event",
    "export",
    "feature",
    "fingerprint",
    "gateway",
    "handler",
    "index",
    "ingest",
    "instance",
    "job",
    "journal",
    "kernel",
    "key",
    "label",
    "layer",
    "ledger",
    "lease",
    "limit",
    "listener",
    "manifest",
    "metric",
    "migration",
    "mirror",
    "module",
    "monitor",
    "namespace",
    "node",
    "operator",
    "package",
    "pipeline",
    "plugin",
    "policy",
    "pool",
    "probe",
    "profile",
    "prompt",
    "proxy",
    "query",
    "queue",
    "quota",
    "record",
    "region",
    "registry",
    "release",
    "replica",
    "report",
    "request",
    "resource",
    "rollout",
    "route",
    "runner",
    "schema",
    "secret",
    "segment",
    "server",
    "service",
    "session",
    "shard",
    "signal",
    "snapshot",
    "source",
    "stage",
    "stream",
    "tenant",
    "token",
    "topic",
    "trace",
    "tracker",
    "trigger",
    "vault",
    "version",
    "volume",
    "webhook",
    "worker",
    "workflow",
    "zone",
];

const VERBS: &[&str] = &[
    "configure",
    "deploy",
    "inspect",
    "rotate",
    "validate",
    "migrate",
    "restore",
    "scale",
    "monitor",
    "debug",
    "publish",
    "review",
    "schedule",
    "archive",
    "compare",
    "export",
    "import",
    "index",
    "pin",
    "verify",
    "upgrade",
    "rebuild",
    "drain",
    "promote",
    "tune",
];

const FILLER: &[&str] = &[
    "the", "a", "each", "every", "this", "that", "its", "your", "one", "any", "when", "before",
    "after", "while", "until", "so", "then", "only", "also", "never", "always", "with", "without",
    "from", "into", "for", "to", "of", "on", "in", "by", "and", "or", "but", "not", "is", "are",
    "was", "has", "have", "can", "must", "should", "may", "runs", "keeps", "returns", "reads",
    "writes", "holds", "sends", "stores", "checks", "fails", "waits", "first", "last", "next",
    "same", "new", "old", "small", "large", "fast", "slow", "safe",
];

const LANGUAGES: &[&str] = &["rust", "python", "sh", "json", "yaml", "toml", "sql"];

/// Generate a catalog of `documents` markdown documents under `out` (`out/skills`,
/// `out/docs`), replacing what was there.
pub fn generate(out: &Path, documents: usize, seed: u64) -> io::Result<Summary> {
    for sub in ["skills", "docs"] {
        let dir = out.join(sub);
        if dir.exists() {
            std::fs::remove_dir_all(&dir)?;
        }
        std::fs::create_dir_all(&dir)?;
    }
    let plan = Plan::new(documents.max(2), seed);
    let mut summary = Summary::default();
    for (index, doc) in plan.docs.iter().enumerate() {
        let mut rng =
            fastrand::Rng::with_seed(seed ^ (index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let text = render(&plan, index, &mut rng);
        write(out, &doc.path, text.as_bytes(), &mut summary)?;
        match doc.kind {
            Kind::Skill { .. } => summary.skills += 1,
            Kind::Reference { .. } => summary.references += 1,
            Kind::Doc => summary.docs += 1,
        }
    }
    for (index, skill) in plan.skills.iter().enumerate() {
        let mut rng =
            fastrand::Rng::with_seed(!seed ^ (index as u64).wrapping_mul(0xD1B5_4A32_D192_ED03));
        write(
            out,
            &format!("skills/{}/LICENSE.txt", skill.dir),
            LICENSE.as_bytes(),
            &mut summary,
        )?;
        summary.other_files += 1;
        if index % 2 == 0 {
            let script = script(&skill.id, &mut rng);
            write(
                out,
                &format!("skills/{}/scripts/{}.py", skill.dir, skill.script),
                script.as_bytes(),
                &mut summary,
            )?;
            summary.other_files += 1;
        }
        if index % 3 == 0 {
            let template = format!(
                "{{\n  \"skill\": \"{}\",\n  \"{}\": {},\n  \"{}\": \"{}\"\n}}\n",
                skill.id,
                pick(&mut rng, WORDS),
                rng.u32(1..10_000),
                pick(&mut rng, WORDS),
                pick(&mut rng, VERBS)
            );
            write(
                out,
                &format!("skills/{}/templates/config.json", skill.dir),
                template.as_bytes(),
                &mut summary,
            )?;
            summary.other_files += 1;
        }
        if index % 8 == 0 {
            write(
                out,
                &format!("skills/{}/assets/diagram.png", skill.dir),
                &png(&mut rng),
                &mut summary,
            )?;
            summary.other_files += 1;
            summary.binary_files += 1;
        }
    }
    Ok(summary)
}

fn write(out: &Path, rel: &str, bytes: &[u8], summary: &mut Summary) -> io::Result<()> {
    let path = out.join(rel);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::write(&path, bytes)?;
    summary.bytes += bytes.len() as u64;
    Ok(())
}

const LICENSE: &str = "Copyright the synthetic catalog authors.\n\n\
Licensed under the Apache License, Version 2.0 (the \"License\"); you may not use this file \
except in compliance with the License. Unless required by applicable law or agreed to in \
writing, software distributed under the License is distributed on an \"AS IS\" BASIS, \
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.\n";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Skill { skill: usize },
    Reference { skill: usize },
    Doc,
}

/// Every document's path, title and section headings, decided before any is written so
/// that links can point at headings of other documents.
struct Plan {
    docs: Vec<DocPlan>,
    skills: Vec<SkillPlan>,
    /// Index range of the docs in `docs`.
    first_doc: usize,
}

struct DocPlan {
    /// Relative to the output folder (`skills/…` or `docs/…`).
    path: String,
    kind: Kind,
    title: String,
    /// H2 headings, distinct within the document; their anchors are `slug(heading)`.
    sections: Vec<String>,
    /// A large document, split into several chunks.
    large: bool,
}

struct SkillPlan {
    id: String,
    /// Folder relative to `skills/`.
    dir: String,
    description: String,
    /// `(ref file stem, document index)`.
    references: Vec<(String, usize)>,
    declares_references: bool,
    script: String,
}

impl Plan {
    fn new(documents: usize, seed: u64) -> Plan {
        let mut rng = fastrand::Rng::with_seed(seed);
        let skill_count = (documents / 4).max(1);
        let mut docs = Vec::with_capacity(documents);
        let mut skills = Vec::with_capacity(skill_count);
        let mut remaining = documents;
        for s in 0..skill_count {
            // Keep at least one document per remaining skill.
            let left_after = skill_count - s - 1;
            let max_refs = remaining.saturating_sub(1 + left_after).min(3);
            let refs = if max_refs == 0 {
                0
            } else {
                rng.usize(1..=max_refs)
            };
            let id = format!("{}-{}-{s:05}", pick(&mut rng, VERBS), pick(&mut rng, WORDS));
            let dir = if s % 2 == 0 {
                id.clone()
            } else {
                format!("team-{}/{id}", (s / 2) % 16)
            };
            docs.push(DocPlan {
                path: format!("skills/{dir}/SKILL.md"),
                kind: Kind::Skill { skill: s },
                title: title_case(&id.replace('-', " ")),
                sections: vec![
                    "When to use".into(),
                    "Steps".into(),
                    "References".into(),
                    "Troubleshooting".into(),
                ],
                large: false,
            });
            let mut references = Vec::new();
            let mut used = std::collections::BTreeSet::new();
            for r in 0..refs {
                let mut stem = format!("{}-{}", pick(&mut rng, VERBS), pick(&mut rng, WORDS));
                if !used.insert(stem.clone()) {
                    stem = format!("{stem}-{r}");
                    used.insert(stem.clone());
                }
                references.push((stem.clone(), docs.len()));
                docs.push(DocPlan {
                    path: format!("skills/{dir}/references/{stem}.md"),
                    kind: Kind::Reference { skill: s },
                    title: title_case(&stem.replace('-', " ")),
                    sections: sections(&mut rng),
                    large: rng.usize(0..50) == 0,
                });
            }
            remaining -= 1 + refs;
            skills.push(SkillPlan {
                description: format!(
                    "{} {} {} for {} {}. Use when you need to {} a {} or check its {}.",
                    title_case(pick(&mut rng, VERBS)),
                    pick(&mut rng, WORDS),
                    pick(&mut rng, WORDS),
                    pick(&mut rng, WORDS),
                    pick(&mut rng, WORDS),
                    pick(&mut rng, VERBS),
                    pick(&mut rng, WORDS),
                    pick(&mut rng, WORDS),
                ),
                declares_references: s % 4 == 0,
                script: format!("{}_{}", pick(&mut rng, VERBS), pick(&mut rng, WORDS)),
                id,
                dir,
                references,
            });
        }
        let first_doc = docs.len();
        let sections_count = ((remaining as f64).sqrt() as usize / 2).max(1);
        for d in 0..remaining {
            let section = d % sections_count;
            let sub = (d / sections_count) % 4;
            let stem = format!("{}-{}-{d:05}", pick(&mut rng, VERBS), pick(&mut rng, WORDS));
            docs.push(DocPlan {
                path: format!("docs/area-{section:03}/part-{sub}/{stem}.md"),
                kind: Kind::Doc,
                title: title_case(&stem[..stem.len() - 6].replace('-', " ")),
                sections: sections(&mut rng),
                large: rng.usize(0..50) == 0,
            });
        }
        Plan {
            docs,
            skills,
            first_doc,
        }
    }
}

/// Distinct H2 headings of lowercase words, so their anchors are predictable.
fn sections(rng: &mut fastrand::Rng) -> Vec<String> {
    let count = rng.usize(3..=6);
    let mut out: Vec<String> = Vec::with_capacity(count);
    while out.len() < count {
        let heading = format!(
            "{} the {} {}",
            title_case(pick(rng, VERBS)),
            pick(rng, WORDS),
            pick(rng, WORDS)
        );
        if !out.contains(&heading) {
            out.push(heading);
        }
    }
    out
}

/// GitHub-style anchor of a heading made of ASCII words and spaces.
fn slug(heading: &str) -> String {
    heading.to_ascii_lowercase().replace(' ', "-")
}

fn title_case(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_ascii_uppercase().to_string() + chars.as_str(),
        None => String::new(),
    }
}

fn pick<'a>(rng: &mut fastrand::Rng, from: &[&'a str]) -> &'a str {
    from[rng.usize(0..from.len())]
}

fn sentence(rng: &mut fastrand::Rng) -> String {
    let length = rng.usize(6..=18);
    let mut out = String::new();
    for i in 0..length {
        let word = match rng.u8(0..10) {
            0..=4 => pick(rng, FILLER),
            5..=7 => pick(rng, WORDS),
            _ => pick(rng, VERBS),
        };
        if i == 0 {
            out.push_str(&title_case(word));
        } else {
            out.push(' ');
            if rng.u8(0..40) == 0 {
                let _ = write!(out, "`{word}`");
                continue;
            }
            if rng.u8(0..60) == 0 {
                let _ = write!(out, "**{word}**");
                continue;
            }
            out.push_str(word);
        }
    }
    out.push('.');
    out
}

fn paragraph(rng: &mut fastrand::Rng, sentences: std::ops::RangeInclusive<usize>) -> String {
    let count = rng.usize(sentences);
    (0..count)
        .map(|_| sentence(rng))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Relative path from the folder of `from` to `to` (both relative to the output root).
fn relative(from: &str, to: &str) -> String {
    let from_dir: Vec<&str> = from.split('/').collect::<Vec<_>>();
    let from_dir = &from_dir[..from_dir.len() - 1];
    let to_parts: Vec<&str> = to.split('/').collect();
    let common = from_dir
        .iter()
        .zip(&to_parts)
        .take_while(|(a, b)| a == b)
        .count();
    let mut out: Vec<&str> = vec![".."; from_dir.len() - common];
    out.extend(&to_parts[common..]);
    out.join("/")
}

/// A document another one may link to: same root (links do not cross roots).
fn link_target(plan: &Plan, index: usize, rng: &mut fastrand::Rng) -> Option<usize> {
    let doc = &plan.docs[index];
    let range = match doc.kind {
        Kind::Doc => plan.first_doc..plan.docs.len(),
        _ => 0..plan.first_doc,
    };
    if range.len() < 2 {
        return None;
    }
    // Mostly near neighbours (a section links within itself), sometimes anywhere.
    let target = if rng.bool() {
        let offset = rng.usize(1..=8.min(range.len() - 1));
        range.start + (index - range.start + offset) % range.len()
    } else {
        rng.usize(range)
    };
    (target != index).then_some(target)
}

fn render(plan: &Plan, index: usize, rng: &mut fastrand::Rng) -> String {
    let doc = &plan.docs[index];
    let mut out = String::with_capacity(8 * 1024);
    match doc.kind {
        Kind::Skill { skill } => {
            let s = &plan.skills[skill];
            let _ = writeln!(
                out,
                "---\nname: {}\ndescription: \"{}\"",
                s.id, s.description
            );
            out.push_str("license: Apache-2.0\n");
            let _ = writeln!(out, "tags: [{}, {}]", pick(rng, WORDS), pick(rng, WORDS));
            let _ = writeln!(
                out,
                "capabilities: [{}-{}]",
                pick(rng, VERBS),
                pick(rng, WORDS)
            );
            let _ = writeln!(
                out,
                "metadata:\n  owner: team-{}\n  tier: \"{}\"",
                skill % 16,
                skill % 3 + 1
            );
            if s.declares_references && !s.references.is_empty() {
                out.push_str("references:\n");
                for (stem, _) in &s.references {
                    let _ = writeln!(out, "  {stem}: references/{stem}.md");
                }
            }
            out.push_str("---\n\n");
        }
        Kind::Reference { .. } => {}
        Kind::Doc => {
            if rng.bool() {
                let _ = writeln!(
                    out,
                    "---\ntitle: {}\ndescription: {}\n---\n",
                    doc.title,
                    sentence(rng)
                );
            }
        }
    }
    let _ = writeln!(out, "# {}\n", doc.title);
    let _ = writeln!(out, "{}\n", paragraph(rng, 2..=4));

    if let Kind::Skill { skill } = doc.kind {
        render_skill_body(plan, index, skill, rng, &mut out);
        return out;
    }
    let rounds = if doc.large { 8 } else { 1 };
    for round in 0..rounds {
        for (s, heading) in doc.sections.iter().enumerate() {
            if round == 0 {
                let _ = writeln!(out, "## {heading}\n");
            } else {
                let _ = writeln!(out, "## {heading} part {}\n", round + 1);
            }
            section_body(plan, index, rng, &mut out);
            let subsections = rng.usize(0..=1);
            for sub in 0..subsections {
                let _ = writeln!(
                    out,
                    "### {} {} {}\n",
                    title_case(pick(rng, VERBS)),
                    pick(rng, WORDS),
                    s * 10 + sub
                );
                section_body(plan, index, rng, &mut out);
                if rng.u8(0..4) == 0 {
                    let _ = writeln!(out, "#### {} notes\n", title_case(pick(rng, WORDS)));
                    let _ = writeln!(out, "{}\n", paragraph(rng, 1..=3));
                }
            }
        }
    }
    out
}

fn render_skill_body(
    plan: &Plan,
    index: usize,
    skill: usize,
    rng: &mut fastrand::Rng,
    out: &mut String,
) {
    let s = &plan.skills[skill];
    let doc = &plan.docs[index];
    let _ = writeln!(out, "## {}\n", doc.sections[0]);
    for _ in 0..rng.usize(2..=4) {
        let _ = writeln!(out, "- {}", sentence(rng));
    }
    let _ = writeln!(out, "\n## {}\n", doc.sections[1]);
    for step in 1..=rng.usize(3..=7) {
        let _ = writeln!(out, "{step}. {}", sentence(rng));
    }
    out.push('\n');
    code_block(rng, out);
    if skill.is_multiple_of(2) {
        let _ = writeln!(
            out,
            "Run [the helper script](scripts/{}.py) when the steps above are not enough. {}\n",
            s.script,
            sentence(rng)
        );
    }
    let _ = writeln!(out, "## {}\n", doc.sections[2]);
    for (stem, target) in &s.references {
        let target_doc = &plan.docs[*target];
        let _ = writeln!(
            out,
            "- [{}](references/{stem}.md): {}",
            target_doc.title,
            sentence(rng)
        );
        if rng.bool() {
            let heading = &target_doc.sections[rng.usize(0..target_doc.sections.len())];
            let _ = writeln!(
                out,
                "  See [{heading}](references/{stem}.md#{}).",
                slug(heading)
            );
        }
    }
    let _ = writeln!(out, "\n## {}\n", doc.sections[3]);
    let _ = writeln!(out, "{}\n", paragraph(rng, 2..=5));
    let _ = writeln!(out, "> {}\n", sentence(rng));
    let _ = writeln!(
        out,
        "Back to [when to use this skill](#{}).",
        slug(&doc.sections[0])
    );
}

fn section_body(plan: &Plan, index: usize, rng: &mut fastrand::Rng, out: &mut String) {
    let doc = &plan.docs[index];
    for _ in 0..rng.usize(1..=2) {
        let mut text = paragraph(rng, 2..=5);
        if rng.u8(0..3) == 0
            && let Some(target) = link_target(plan, index, rng)
        {
            let target_doc = &plan.docs[target];
            let href = relative(&doc.path, &target_doc.path);
            if rng.bool() {
                let heading = &target_doc.sections[rng.usize(0..target_doc.sections.len())];
                let _ = write!(text, " See [{heading}]({href}#{}).", slug(heading));
            } else {
                let _ = write!(text, " See [{}]({href}).", target_doc.title);
            }
        }
        if rng.u8(0..12) == 0 {
            let heading = &doc.sections[rng.usize(0..doc.sections.len())];
            let _ = write!(
                text,
                " Compare [{}](#{}).",
                heading.to_ascii_lowercase(),
                slug(heading)
            );
        }
        if rng.u8(0..15) == 0 {
            let _ = write!(
                text,
                " Upstream: <https://example.com/{}/{}>.",
                pick(rng, WORDS),
                pick(rng, WORDS)
            );
        }
        let _ = writeln!(out, "{text}\n");
    }
    match rng.u8(0..10) {
        0..=2 => {
            for _ in 0..rng.usize(2..=6) {
                let _ = writeln!(out, "- {}", sentence(rng));
            }
            out.push('\n');
        }
        3..=4 => {
            for step in 1..=rng.usize(2..=6) {
                let _ = writeln!(out, "{step}. {}", sentence(rng));
            }
            out.push('\n');
        }
        5..=7 => code_block(rng, out),
        8 => {
            let _ = writeln!(
                out,
                "| {} | {} | {} |\n|---|---|---|",
                title_case(pick(rng, WORDS)),
                pick(rng, WORDS),
                pick(rng, WORDS)
            );
            for _ in 0..rng.usize(2..=6) {
                let _ = writeln!(
                    out,
                    "| `{}` | {} | {} |",
                    pick(rng, WORDS),
                    rng.u32(1..1000),
                    pick(rng, VERBS)
                );
            }
            out.push('\n');
        }
        _ => {
            let _ = writeln!(out, "> **Note:** {}\n", sentence(rng));
        }
    }
}

fn code_block(rng: &mut fastrand::Rng, out: &mut String) {
    let language = pick(rng, LANGUAGES);
    let _ = writeln!(out, "```{language}");
    for line in 0..rng.usize(3..=18) {
        let indent = if line > 0 && rng.bool() { "    " } else { "" };
        let _ = match language {
            "rust" => writeln!(
                out,
                "{indent}let {} = {}::{}(\"{}\")?;",
                pick(rng, WORDS),
                pick(rng, WORDS),
                pick(rng, VERBS),
                pick(rng, WORDS)
            ),
            "python" => writeln!(
                out,
                "{indent}{} = client.{}(\"{}\", retries={})",
                pick(rng, WORDS),
                pick(rng, VERBS),
                pick(rng, WORDS),
                rng.u8(1..9)
            ),
            "sh" => writeln!(
                out,
                "{indent}{} {} --{}={}",
                pick(rng, WORDS),
                pick(rng, VERBS),
                pick(rng, WORDS),
                pick(rng, WORDS)
            ),
            "json" => writeln!(
                out,
                "{indent}\"{}\": \"{}\",",
                pick(rng, WORDS),
                pick(rng, WORDS)
            ),
            "yaml" => writeln!(out, "{indent}{}: {}", pick(rng, WORDS), pick(rng, WORDS)),
            "toml" => writeln!(out, "{} = \"{}\"", pick(rng, WORDS), pick(rng, WORDS)),
            _ => writeln!(
                out,
                "SELECT {} FROM {} WHERE {} = {};",
                pick(rng, WORDS),
                pick(rng, WORDS),
                pick(rng, WORDS),
                rng.u32(1..100)
            ),
        };
        // A `#` line inside a fence is code, not a heading: the chunker must not cut here.
        if language == "python" && rng.u8(0..8) == 0 {
            let _ = writeln!(out, "# {} the {}", pick(rng, VERBS), pick(rng, WORDS));
        }
    }
    out.push_str("```\n\n");
}

fn script(id: &str, rng: &mut fastrand::Rng) -> String {
    let mut out = format!(
        "#!/usr/bin/env python3\n\"\"\"Helper for the {id} skill.\"\"\"\n\nimport sys\n\n\ndef main():\n"
    );
    for _ in 0..rng.usize(3..=12) {
        let _ = writeln!(out, "    {} = \"{}\"", pick(rng, WORDS), pick(rng, WORDS));
    }
    out.push_str("    return 0\n\n\nif __name__ == \"__main__\":\n    sys.exit(main())\n");
    out
}

/// Bytes that start like a PNG and are not UTF-8, so they are served as a base64 blob.
fn png(rng: &mut fastrand::Rng) -> Vec<u8> {
    let mut bytes = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
    let len = rng.usize(1024..8192);
    bytes.extend((0..len).map(|_| rng.u8(..)));
    bytes
}
