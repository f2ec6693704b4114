//! The one shared step: a page of the docs root → the text it serves.
//!
//! The frontmatter block is kept as authored (titles, summaries and versions read it, as
//! for plain markdown); the body goes through the generator's [`Generator::render`]. A
//! plain site serves the file unchanged.

use std::path::PathBuf;

use serde_json::{Map, Value};

use super::include::{IncludeError, IncludeStack, Sources};
use super::{Settings, Site};

/// One page being served.
pub struct Page<'a> {
    /// Path under the docs root.
    pub rel: &'a str,
    /// The whole file as authored.
    pub text: &'a str,
    /// Where the body starts (after the frontmatter block, if any).
    pub body_offset: usize,
    /// The frontmatter, when it parses.
    pub frontmatter: Option<&'a Map<String, Value>>,
}

impl<'a> Page<'a> {
    pub fn body(&self) -> &'a str {
        &self.text[self.body_offset..]
    }

    /// 1-based line in the file of a byte offset into [`Page::body`].
    pub fn line_of_body_offset(&self, offset: usize) -> usize {
        let upto = (self.body_offset + offset).min(self.text.len());
        self.text[..upto].bytes().filter(|&b| b == b'\n').count() + 1
    }
}

/// A problem found while rendering a page, reported against it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// 1-based line in the page's file, when known.
    pub line: Option<usize>,
    pub message: String,
    pub fix: String,
    /// An error fails the build; a warning fails it only under `SKILLPACK_STRICT=1`.
    pub error: bool,
}

/// What a generator may use and report while rendering one page.
pub struct RenderCx<'a> {
    pub sources: &'a Sources<'a>,
    pub settings: &'a Settings,
    /// The files being expanded: the page at the bottom.
    pub stack: IncludeStack,
    pub problems: Vec<Problem>,
}

impl<'a> RenderCx<'a> {
    pub fn new(sources: &'a Sources<'a>, settings: &'a Settings, page_rel: &str) -> RenderCx<'a> {
        RenderCx {
            sources,
            settings,
            stack: IncludeStack::new(sources.abs(page_rel)),
            problems: Vec::new(),
        }
    }

    /// The folder of the file being expanded now (relative includes start there).
    pub fn current_dir(&self) -> PathBuf {
        self.stack
            .current()
            .parent()
            .map(PathBuf::from)
            .unwrap_or_default()
    }

    /// An include that could not be expanded: an error on the page.
    pub fn include_error(&mut self, line: Option<usize>, error: IncludeError) {
        let (message, fix) = error.explain();
        self.problems.push(Problem {
            line,
            message,
            fix,
            error: true,
        });
    }

    pub fn warn(
        &mut self,
        line: Option<usize>,
        message: impl Into<String>,
        fix: impl Into<String>,
    ) {
        self.problems.push(Problem {
            line,
            message: message.into(),
            fix: fix.into(),
            error: false,
        });
    }

    /// Read the file at `target` relative to `base`, expand it with `expand` while it is
    /// on the include stack (so that its own includes are checked for cycles), and return
    /// the result; `None` after reporting when it cannot be read.
    pub fn include(
        &mut self,
        line: Option<usize>,
        path: PathBuf,
        expand: impl FnOnce(&mut RenderCx<'a>, String) -> String,
    ) -> Option<String> {
        let path = super::include::normalize(&path);
        if let Err(error) = self.stack.enter(&path, self.sources) {
            self.include_error(line, error);
            return None;
        }
        let result = match self.sources.read(&path) {
            Ok(text) => Some(expand(self, text)),
            Err(error) => {
                self.include_error(line, error);
                None
            }
        };
        self.stack.leave();
        result
    }

    /// A site variable's static value (`site.title`, `config.extra.version`).
    pub fn variable(&self, name: &str) -> Option<&'a str> {
        self.settings.variables.get(name).map(String::as_str)
    }
}

/// The text `page` serves on `site`, and the problems rendering found.
pub fn serve(site: &Site, page: &Page<'_>, sources: &Sources<'_>) -> (String, Vec<Problem>) {
    let Some(generator) = &site.generator else {
        return (page.text.to_owned(), Vec::new());
    };
    let settings = generator.settings();
    let mut cx = RenderCx::new(sources, settings, page.rel);
    let body = generator.render(page, &mut cx);
    let mut text = String::with_capacity(page.body_offset + body.len());
    text.push_str(&page.text[..page.body_offset]);
    text.push_str(&body);
    (text, cx.problems)
}
