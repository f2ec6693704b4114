//! Is a binary self-contained? A release is copied alone into hosts that may have no C
//! library of the right version, or none at all (an empty container). That holds when the
//! ELF file has no interpreter (`PT_INTERP`: the dynamic loader a kernel would need to
//! find), needs no shared library (`DT_NEEDED`), and links no code of glibc's name service:
//! a static glibc that resolves host or user names `dlopen`s the host's NSS modules, which
//! must then be of the very glibc version it was linked with (and has crashed static
//! binaries that were not).

use object::elf;
use object::read::elf::{Dyn, ElfFile64, FileHeader, ProgramHeader};
use object::{Endianness, Object, ObjectSymbol, SymbolKind};

/// What the ELF headers say about how a binary is linked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Linkage {
    /// The `PT_INTERP` path, for a dynamically linked binary.
    pub interpreter: Option<String>,
    /// Every `DT_NEEDED` library.
    pub needed: Vec<String>,
    /// Name-service functions whose code is linked in (`getaddrinfo`, `getpwuid_r`, …).
    pub name_service: Vec<String>,
    /// Whether the file has a symbol table to check `name_service` against.
    pub has_symbols: bool,
    /// The OCI architecture name (`amd64`, `arm64`), from the ELF machine.
    pub architecture: &'static str,
}

/// glibc functions that reach the name service (NSS): host, service, user and group
/// look-ups. Matched as names or name prefixes of defined functions.
const NAME_SERVICE: &[&str] = &[
    "getaddrinfo",
    "getnameinfo",
    "gethostby",
    "gethostent",
    "getservby",
    "getservent",
    "getprotoby",
    "getnetby",
    "getpwnam",
    "getpwuid",
    "getpwent",
    "getgrnam",
    "getgrgid",
    "getgrent",
    "getgrouplist",
    "initgroups",
    "__nss_lookup",
    "__nss_database",
];

impl Linkage {
    /// Read the headers of an x86_64 or aarch64 ELF executable.
    pub fn read(bytes: &[u8]) -> Result<Linkage, String> {
        let file = ElfFile64::<Endianness>::parse(bytes)
            .map_err(|e| format!("not a 64-bit ELF file ({e})"))?;
        let endian = file.endian();
        let architecture = match file.elf_header().e_machine(endian) {
            elf::EM_X86_64 => "amd64",
            elf::EM_AARCH64 => "arm64",
            other => {
                return Err(format!(
                    "an ELF file for machine {other}, not x86_64 or aarch64"
                ));
            }
        };
        let mut interpreter = None;
        for header in file.elf_program_headers() {
            if header.p_type(endian) == elf::PT_INTERP {
                let path = header
                    .data(endian, bytes)
                    .map_err(|_| "a PT_INTERP header points outside the file".to_owned())?;
                let path = path.split(|&b| b == 0).next().unwrap_or_default();
                interpreter = Some(String::from_utf8_lossy(path).into_owned());
            }
        }
        let sections = file.elf_section_table();
        let mut needed = Vec::new();
        if let Some((entries, strings_index)) = sections
            .dynamic(endian, bytes)
            .map_err(|e| format!("unreadable dynamic section ({e})"))?
        {
            let strings = sections
                .strings(endian, bytes, strings_index)
                .map_err(|e| format!("unreadable dynamic string table ({e})"))?;
            for entry in entries {
                if entry.tag32(endian) == Some(elf::DT_NEEDED) {
                    let name = entry
                        .string(endian, strings)
                        .map_err(|e| format!("unreadable DT_NEEDED name ({e})"))?;
                    needed.push(String::from_utf8_lossy(name).into_owned());
                }
            }
        }
        let mut name_service: Vec<String> = file
            .symbols()
            .filter(|symbol| symbol.is_definition() && symbol.kind() == SymbolKind::Text)
            .filter_map(|symbol| symbol.name().ok())
            .filter(|name| NAME_SERVICE.iter().any(|prefix| name.starts_with(prefix)))
            .map(str::to_owned)
            .collect();
        name_service.sort();
        name_service.dedup();
        Ok(Linkage {
            interpreter,
            needed,
            name_service,
            has_symbols: file.symbols().next().is_some(),
            architecture,
        })
    }

    /// Every reason the binary is not self-contained, each saying how to fix it; empty when
    /// it is.
    pub fn problems(&self) -> Vec<String> {
        const REBUILD: &str = "build it with skillpack's .cargo/config.toml in effect (`cargo build --release`; a RUSTFLAGS variable replaces the config's flags, so unset it or add `-C target-feature=+crt-static` to it)";
        let mut problems = Vec::new();
        if let Some(interpreter) = &self.interpreter {
            problems.push(format!(
                "it is dynamically linked: it needs the loader {interpreter} — {REBUILD}"
            ));
        }
        if !self.needed.is_empty() {
            problems.push(format!(
                "it needs shared libraries: {} — {REBUILD}",
                self.needed.join(", ")
            ));
        }
        if !self.name_service.is_empty() {
            // The public functions first (getaddrinfo…), glibc's internals (__nss_…) after.
            let mut names: Vec<&str> = self.name_service.iter().map(String::as_str).collect();
            names.sort_by_key(|name| (name.starts_with('_'), *name));
            let shown = names.len().min(4);
            let more = match names.len() - shown {
                0 => String::new(),
                n => format!(" and {n} more"),
            };
            problems.push(format!(
                "it links glibc's name service ({}{more}), which a static binary can only use with the host's NSS modules of the same glibc version — resolve no host or user names at run time (skillpack's `serve --http` takes an IP address or `localhost`)",
                names[..shown].join(", ")
            ));
        }
        if !self.has_symbols {
            problems.push(
                "it has no symbol table, so the name-service check cannot be made — build without `strip` in the release profile".to_owned(),
            );
        }
        problems
    }
}

/// Check a binary on disk: `Ok` with its linkage when it is self-contained, `Err` with one
/// line per problem otherwise.
pub fn check_static(path: &std::path::Path) -> Result<Linkage, String> {
    let bytes =
        std::fs::read(path).map_err(|e| format!("{}: cannot read it: {e}", path.display()))?;
    let linkage = Linkage::read(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    let problems = linkage.problems();
    if problems.is_empty() {
        Ok(linkage)
    } else {
        Err(problems
            .iter()
            .map(|problem| format!("{}: not self-contained: {problem}", path.display()))
            .collect::<Vec<_>>()
            .join("\n"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn not_elf_is_a_clear_error() {
        let error = Linkage::read(b"#!/bin/sh\necho hi\n").unwrap_err();
        assert!(error.contains("not a 64-bit ELF file"), "{error}");
    }

    #[test]
    fn problems_name_the_fix() {
        let dynamic = Linkage {
            interpreter: Some("/lib64/ld-linux-x86-64.so.2".to_owned()),
            needed: vec!["libc.so.6".to_owned(), "libm.so.6".to_owned()],
            name_service: vec!["getaddrinfo".to_owned()],
            has_symbols: true,
            architecture: "amd64",
        };
        let problems = dynamic.problems();
        assert_eq!(problems.len(), 3, "{problems:?}");
        assert!(problems[0].contains("/lib64/ld-linux-x86-64.so.2"));
        assert!(problems[1].contains("libc.so.6, libm.so.6"));
        assert!(problems[2].contains("getaddrinfo"));
        assert!(problems.iter().all(|p| p.contains(" — ")), "{problems:?}");
        let fine = Linkage {
            interpreter: None,
            needed: vec![],
            name_service: vec![],
            has_symbols: true,
            architecture: "amd64",
        };
        assert!(fine.problems().is_empty());
    }
}
