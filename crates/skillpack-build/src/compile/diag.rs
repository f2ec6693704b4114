//! Build diagnostics: every problem as `path:line: what is wrong — how to fix it`.
//!
//! The compiler never stops at the first problem: it collects them all in a [`Report`] so
//! an author fixes a broken catalog in one round trip.

use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Error,
    Warning,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    /// Display path: the content root as configured, joined with the relative path.
    pub path: String,
    /// 1-based line, when the problem has one.
    pub line: Option<usize>,
    pub message: String,
    pub fix: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        match self.line {
            Some(line) => write!(f, "{}:{line}: {kind}: {}", self.path, self.message)?,
            None => write!(f, "{}: {kind}: {}", self.path, self.message)?,
        }
        if !self.fix.is_empty() {
            write!(f, " — {}", self.fix)?;
        }
        Ok(())
    }
}

/// Collects diagnostics. Warnings become errors when the build is strict.
#[derive(Debug, Default)]
pub struct Report {
    pub diagnostics: Vec<Diagnostic>,
    strict: bool,
}

impl Report {
    pub fn new(strict: bool) -> Self {
        Report {
            diagnostics: Vec::new(),
            strict,
        }
    }

    pub fn error(
        &mut self,
        path: impl Into<String>,
        line: Option<usize>,
        message: impl Into<String>,
        fix: impl Into<String>,
    ) {
        self.push(
            Severity::Error,
            path.into(),
            line,
            message.into(),
            fix.into(),
        );
    }

    /// A problem that is an error only under `SKILLPACK_STRICT=1`.
    pub fn warning(
        &mut self,
        path: impl Into<String>,
        line: Option<usize>,
        message: impl Into<String>,
        fix: impl Into<String>,
    ) {
        let severity = if self.strict {
            Severity::Error
        } else {
            Severity::Warning
        };
        self.push(severity, path.into(), line, message.into(), fix.into());
    }

    fn push(
        &mut self,
        severity: Severity,
        path: String,
        line: Option<usize>,
        message: String,
        fix: String,
    ) {
        self.diagnostics.push(Diagnostic {
            severity,
            path,
            line,
            message,
            fix,
        });
    }

    pub fn has_errors(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.severity == Severity::Error)
    }

    pub fn errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
    }

    pub fn warnings(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Warning)
    }

    /// Sorted by path and line so that output is stable and grouped per file.
    pub fn sort(&mut self) {
        self.diagnostics.sort_by(|a, b| {
            (&a.path, a.line, a.severity, &a.message)
                .cmp(&(&b.path, b.line, b.severity, &b.message))
        });
        self.diagnostics.dedup();
    }
}

/// Where a file stops being UTF-8, as `(line, message)` for a diagnostic.
pub fn not_utf8(bytes: &[u8], error: std::str::Utf8Error) -> (usize, String) {
    let valid = error.valid_up_to();
    // The valid prefix is UTF-8 by definition; count its newlines.
    let line = bytes[..valid].iter().filter(|&&b| b == b'\n').count() + 1;
    (
        line,
        format!("is not valid UTF-8 (invalid byte at offset {valid})"),
    )
}

/// Map a byte offset to a 1-based line number.
pub struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    pub fn new(text: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { starts }
    }

    pub fn line(&self, offset: usize) -> usize {
        match self.starts.binary_search(&offset) {
            Ok(i) => i + 1,
            Err(i) => i,
        }
    }
}
