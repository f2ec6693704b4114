//! The Liquid that Jekyll runs over a page before kramdown sees it, rendered to text.
//!
//! Jekyll renders Liquid over the whole file, code blocks included, so this works on the
//! raw text, not on markdown lines. Supported: `{{ expr | filter: args }}` outputs (unknown
//! variables are nil and print nothing, as in Liquid); `raw`, `comment`, `if`/`elsif`/
//! `else`/`unless`, `case`/`when`, `for` (`limit`, `offset`, `reversed`, ranges,
//! `forloop`), `tablerow`, `assign`, `capture`, `highlight` (→ a fenced block); and,
//! through [`Host`], `include`, `include_relative`, `link` and `post_url`. Tags with no
//! text meaning (`seo`, `feed_meta`, plugin tags) print nothing; their block bodies are
//! kept.
//!
//! A line holding only tags is dropped with its line ending: Liquid would leave a blank or
//! indented line there, and inside an HTML table CommonMark reads that as the end of the
//! HTML block and the next indented line as code; kramdown, which Jekyll uses, does not.

use serde_json::{Map, Value};

/// Deepest nesting of blocks and includes followed.
const MAX_DEPTH: usize = 24;
/// Most loop iterations in one page: a bound on what data can expand to.
const MAX_ITERATIONS: usize = 20_000;

/// What the page's site provides: includes and URLs of other files.
pub trait Host {
    /// The rendered text of `_includes/name` (or `name` beside the page when `relative`),
    /// with `include` bound to `params`; empty after reporting a problem.
    fn include(
        &mut self,
        name: &str,
        relative: bool,
        params: Map<String, Value>,
        scope: &mut Scope,
    ) -> String;
    /// The URL of the file at `path` (`{% link _docs/x.md %}`).
    fn link(&mut self, path: &str) -> String;
    /// The URL of the post named `name` (`{% post_url 2010-07-21-name %}`).
    fn post_url(&mut self, name: &str) -> String;
}

/// The variables in scope: `site`, `page`, `jekyll` at the bottom, loops and includes above.
pub struct Scope {
    frames: Vec<Map<String, Value>>,
    iterations: usize,
    depth: usize,
}

impl Scope {
    pub fn new(globals: Map<String, Value>) -> Scope {
        Scope {
            frames: vec![globals],
            iterations: 0,
            depth: 0,
        }
    }

    fn get(&self, name: &str) -> Option<&Value> {
        self.frames.iter().rev().find_map(|f| f.get(name))
    }

    /// `assign` and `capture` write to the page's scope (Liquid's rule: they outlive loops).
    fn set(&mut self, name: &str, value: Value) {
        if let Some(frame) = self.frames.first_mut() {
            frame.insert(name.to_owned(), value);
        }
    }

    /// Run `f` with `frame` on top of the scope.
    pub fn with_frame<T>(
        &mut self,
        frame: Map<String, Value>,
        f: impl FnOnce(&mut Scope) -> T,
    ) -> T {
        self.frames.push(frame);
        self.depth += 1;
        let out = f(self);
        self.depth -= 1;
        self.frames.pop();
        out
    }

    pub fn too_deep(&self) -> bool {
        self.depth > MAX_DEPTH
    }
}

/// `src` with its Liquid rendered.
pub fn render(src: &str, scope: &mut Scope, host: &mut dyn Host) -> String {
    let src = drop_tag_lines(src);
    let tokens = tokenize(&src);
    let mut pos = 0;
    let nodes = parse(&tokens, &mut pos, &[]);
    let mut out = String::new();
    render_nodes(&nodes, scope, host, &mut out);
    out
}

// ---------------------------------------------------------------------------------------
// Tokens

#[derive(Debug, Clone, PartialEq)]
enum Token<'s> {
    Text(&'s str),
    /// `{{ … }}`: the expression.
    Output(&'s str),
    /// `{% name args %}`.
    Tag {
        name: &'s str,
        args: &'s str,
    },
    /// The text of a `raw` block, verbatim.
    Raw(&'s str),
}

/// Lines holding only tags (outside `raw`) lose their indentation and line ending.
fn drop_tag_lines(src: &str) -> String {
    let mut out = String::with_capacity(src.len());
    let mut in_raw = false;
    for line in src.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        let only_tags = tags_only(bare.trim());
        let tag_line = match (&only_tags, in_raw) {
            (Some(names), false) => {
                // `{% raw %}` alone: the raw text starts on the next line.
                in_raw = names.last().is_some_and(|n| *n == "raw");
                true
            }
            (Some(names), true) if names.first().is_some_and(|n| *n == "endraw") => {
                in_raw = names.last().is_some_and(|n| *n == "raw");
                true
            }
            _ => {
                in_raw = raw_state_after(line, in_raw);
                false
            }
        };
        if tag_line {
            out.push_str(bare.trim());
        } else {
            out.push_str(line);
        }
    }
    out
}

/// Tags that print nothing themselves: a line of them alone is dropped. (A line holding an
/// `include` keeps its line ending: what the include prints ends a line.)
const CONTROL_TAGS: &[&str] = &[
    "if",
    "elsif",
    "else",
    "endif",
    "unless",
    "endunless",
    "case",
    "when",
    "endcase",
    "for",
    "endfor",
    "break",
    "continue",
    "tablerow",
    "endtablerow",
    "assign",
    "capture",
    "endcapture",
    "comment",
    "endcomment",
    "raw",
    "endraw",
    "highlight",
    "endhighlight",
];

/// The tag names of a line made only of control tags, or `None`.
fn tags_only(trimmed: &str) -> Option<Vec<&str>> {
    if trimmed.is_empty() {
        return None;
    }
    let mut names = Vec::new();
    let mut rest = trimmed;
    while !rest.is_empty() {
        let inner = rest.strip_prefix("{%")?;
        let end = inner.find("%}")?;
        let tag = inner[..end].trim_matches('-').trim();
        let name = tag.split_whitespace().next().unwrap_or("");
        if !CONTROL_TAGS.contains(&name) {
            return None;
        }
        names.push(name);
        rest = inner[end + 2..].trim_start();
    }
    Some(names)
}

/// Whether a `raw` block is open after `line`.
fn raw_state_after(line: &str, mut in_raw: bool) -> bool {
    let mut rest = line;
    while let Some(at) = rest.find("{%") {
        let Some(end) = rest[at..].find("%}") else {
            break;
        };
        let name = rest[at + 2..at + end]
            .trim_matches('-')
            .split_whitespace()
            .next()
            .unwrap_or("");
        match name {
            "raw" if !in_raw => in_raw = true,
            "endraw" if in_raw => in_raw = false,
            _ => {}
        }
        rest = &rest[at + end + 2..];
    }
    in_raw
}

fn tokenize(src: &str) -> Vec<Token<'_>> {
    let mut tokens = Vec::new();
    let mut rest = src;
    let mut trim_next = false;
    while !rest.is_empty() {
        let Some(open) = find_open(rest) else {
            push_text(&mut tokens, rest, trim_next, false);
            break;
        };
        let is_tag = rest[open..].starts_with("{%");
        let close = if is_tag { "%}" } else { "}}" };
        let Some(len) = rest[open + 2..].find(close) else {
            push_text(&mut tokens, rest, trim_next, false);
            break;
        };
        let inner = &rest[open + 2..open + 2 + len];
        let trim_before = inner.starts_with('-');
        let trim_after = inner.ends_with('-') && inner.len() > 1;
        push_text(&mut tokens, &rest[..open], trim_next, trim_before);
        let inner = inner.trim_start_matches('-').trim_end_matches('-').trim();
        rest = &rest[open + 2 + len + 2..];
        trim_next = trim_after;
        if !is_tag {
            tokens.push(Token::Output(inner));
            continue;
        }
        let (name, args) = inner.split_once(char::is_whitespace).unwrap_or((inner, ""));
        let args = args.trim();
        if name == "raw" || name == "comment" {
            let end_name = if name == "raw" {
                "endraw"
            } else {
                "endcomment"
            };
            let (body, after, trim_after) = until_end_tag(rest, end_name);
            if name == "raw" {
                tokens.push(Token::Raw(body));
            }
            rest = after;
            trim_next = trim_after;
            continue;
        }
        tokens.push(Token::Tag { name, args });
    }
    tokens
}

/// What `-%}` trims: spaces, one line break, and the next line's indentation. Liquid trims
/// every blank line too, which on real pages glues a heading to the paragraph after it
/// (`## Title {%- include badge.html -%}` then a blank line); one line break keeps the
/// badge on the heading's line and the paragraph its own.
fn trim_line_start(text: &str) -> &str {
    let t = text.trim_start_matches([' ', '\t']);
    let t = t
        .strip_prefix("\r\n")
        .or_else(|| t.strip_prefix('\n'))
        .unwrap_or(t);
    t.trim_start_matches([' ', '\t'])
}

/// What `{%-` trims: the same, backwards.
fn trim_line_end(text: &str) -> &str {
    let t = text.trim_end_matches([' ', '\t']);
    let t = t
        .strip_suffix('\n')
        .map(|t| t.strip_suffix('\r').unwrap_or(t))
        .unwrap_or(t);
    t.trim_end_matches([' ', '\t'])
}

fn find_open(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(i) = text[from..].find('{') {
        let at = from + i;
        if matches!(bytes.get(at + 1), Some(b'{' | b'%')) {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

fn push_text<'s>(tokens: &mut Vec<Token<'s>>, text: &'s str, trim_start: bool, trim_end: bool) {
    let mut text = text;
    if trim_start {
        text = trim_line_start(text);
    }
    if trim_end {
        text = trim_line_end(text);
    }
    if !text.is_empty() {
        tokens.push(Token::Text(text));
    }
}

/// The text up to `{% end_name %}`, the text after it, and whether that tag trims after.
fn until_end_tag<'s>(text: &'s str, end_name: &str) -> (&'s str, &'s str, bool) {
    let mut from = 0;
    while let Some(at) = text[from..].find("{%") {
        let at = from + at;
        let Some(len) = text[at + 2..].find("%}") else {
            break;
        };
        let inner = &text[at + 2..at + 2 + len];
        if inner.trim_matches('-').trim() == end_name {
            let body = &text[..at];
            let body = if inner.starts_with('-') {
                trim_line_end(body)
            } else {
                body
            };
            return (body, &text[at + 2 + len + 2..], inner.ends_with('-'));
        }
        from = at + 2;
    }
    (text, "", false)
}

// ---------------------------------------------------------------------------------------
// Nodes

#[derive(Debug)]
enum Node<'s> {
    Text(&'s str),
    Output(&'s str),
    /// Branches: condition (`None` for `else`), negated (`unless`), body.
    If(Vec<(Option<&'s str>, bool, Vec<Node<'s>>)>),
    Case(&'s str, Vec<(Option<&'s str>, Vec<Node<'s>>)>),
    For {
        args: &'s str,
        body: Vec<Node<'s>>,
        empty: Vec<Node<'s>>,
    },
    Capture(&'s str, Vec<Node<'s>>),
    Highlight(&'s str, Vec<Node<'s>>),
    /// A block tag with no meaning here: its body shows.
    Block(Vec<Node<'s>>),
    Tag {
        name: &'s str,
        args: &'s str,
    },
}

const BLOCKS: &[&str] = &[
    "if",
    "unless",
    "case",
    "for",
    "tablerow",
    "capture",
    "highlight",
];

/// Nodes up to one of `stops` (left at `pos`).
fn parse<'s>(tokens: &[Token<'s>], pos: &mut usize, stops: &[&str]) -> Vec<Node<'s>> {
    parse_nested(tokens, pos, stops, 0)
}

fn parse_nested<'s>(
    tokens: &[Token<'s>],
    pos: &mut usize,
    stops: &[&str],
    depth: usize,
) -> Vec<Node<'s>> {
    let mut nodes = Vec::new();
    while *pos < tokens.len() {
        match tokens[*pos] {
            Token::Text(t) | Token::Raw(t) => {
                nodes.push(Node::Text(t));
                *pos += 1;
            }
            Token::Output(e) => {
                nodes.push(Node::Output(e));
                *pos += 1;
            }
            Token::Tag { name, args } => {
                if stops.contains(&name) {
                    return nodes;
                }
                *pos += 1;
                nodes.push(parse_tag(tokens, pos, name, args, depth + 1));
            }
        }
    }
    nodes
}

fn parse_tag<'s>(
    tokens: &[Token<'s>],
    pos: &mut usize,
    name: &'s str,
    args: &'s str,
    depth: usize,
) -> Node<'s> {
    // Blocks nested deeper than any template needs print their tags as nothing.
    if depth > MAX_DEPTH * 4 {
        return Node::Tag { name, args };
    }
    let parse = |tokens: &[Token<'s>], pos: &mut usize, stops: &[&str]| {
        parse_nested(tokens, pos, stops, depth)
    };
    match name {
        "if" | "unless" => {
            let end = if name == "if" { "endif" } else { "endunless" };
            let mut branches = Vec::new();
            let mut condition = Some(args);
            let mut negated = name == "unless";
            loop {
                let body = parse(tokens, pos, &["elsif", "else", end]);
                branches.push((condition, negated, body));
                match tokens.get(*pos) {
                    Some(Token::Tag {
                        name: "elsif",
                        args,
                    }) => {
                        condition = Some(args);
                        negated = false;
                        *pos += 1;
                    }
                    Some(Token::Tag { name: "else", .. }) => {
                        condition = None;
                        negated = false;
                        *pos += 1;
                    }
                    Some(_) => {
                        *pos += 1;
                        break;
                    }
                    None => break,
                }
            }
            Node::If(branches)
        }
        "case" => {
            // Text before the first `when` prints nothing.
            let _ = parse(tokens, pos, &["when", "else", "endcase"]);
            let mut branches = Vec::new();
            loop {
                match tokens.get(*pos) {
                    Some(Token::Tag { name: "when", args }) => {
                        *pos += 1;
                        let body = parse(tokens, pos, &["when", "else", "endcase"]);
                        branches.push((Some(*args), body));
                    }
                    Some(Token::Tag { name: "else", .. }) => {
                        *pos += 1;
                        let body = parse(tokens, pos, &["when", "else", "endcase"]);
                        branches.push((None, body));
                    }
                    Some(_) => {
                        *pos += 1;
                        break;
                    }
                    None => break,
                }
            }
            Node::Case(args, branches)
        }
        "for" | "tablerow" => {
            let end = if name == "for" {
                "endfor"
            } else {
                "endtablerow"
            };
            let body = parse(tokens, pos, &["else", end]);
            let mut empty = Vec::new();
            if let Some(Token::Tag { name: "else", .. }) = tokens.get(*pos) {
                *pos += 1;
                empty = parse(tokens, pos, &[end]);
            }
            *pos += 1;
            Node::For { args, body, empty }
        }
        "capture" | "highlight" => {
            let end = if name == "capture" {
                "endcapture"
            } else {
                "endhighlight"
            };
            let body = parse(tokens, pos, &[end]);
            *pos += 1;
            if name == "capture" {
                Node::Capture(args, body)
            } else {
                Node::Highlight(args, body)
            }
        }
        other if !BLOCKS.contains(&other) && has_end(tokens, *pos, other) => {
            let end = format!("end{other}");
            let end: &str = &end;
            let mut body = Vec::new();
            while *pos < tokens.len() {
                if let Token::Tag { name, .. } = tokens[*pos]
                    && name == end
                {
                    *pos += 1;
                    break;
                }
                let mut part = parse(tokens, pos, &[end]);
                body.append(&mut part);
            }
            Node::Block(body)
        }
        _ => Node::Tag { name, args },
    }
}

fn has_end(tokens: &[Token<'_>], from: usize, name: &str) -> bool {
    // A plugin's block ends within a page's worth of tags; looking further is quadratic.
    tokens[from..]
        .iter()
        .take(10_000)
        .any(|t| matches!(t, Token::Tag { name: n, .. } if n.strip_prefix("end") == Some(name)))
}

// ---------------------------------------------------------------------------------------
// Rendering

fn render_nodes(nodes: &[Node<'_>], scope: &mut Scope, host: &mut dyn Host, out: &mut String) {
    if scope.too_deep() {
        return;
    }
    for node in nodes {
        match node {
            Node::Text(t) => out.push_str(t),
            Node::Output(e) => out.push_str(&to_text(&eval(e, scope))),
            Node::If(branches) => {
                for (condition, negated, body) in branches {
                    let taken = match condition {
                        None => true,
                        Some(c) => condition_holds(c, scope) != *negated,
                    };
                    if taken {
                        render_nodes(body, scope, host, out);
                        break;
                    }
                }
            }
            Node::Case(subject, branches) => {
                let value = eval(subject, scope);
                let taken = branches.iter().find(|(when, _)| match when {
                    None => true,
                    Some(w) => split_outside_quotes(w, &[",", " or "])
                        .iter()
                        .any(|alt| equal(&value, &eval(alt, scope))),
                });
                if let Some((_, body)) = taken {
                    render_nodes(body, scope, host, out);
                }
            }
            Node::For { args, body, empty } => render_for(args, body, empty, scope, host, out),
            Node::Capture(name, body) => {
                let mut captured = String::new();
                render_nodes(body, scope, host, &mut captured);
                scope.set(name.trim(), Value::String(captured));
            }
            Node::Highlight(args, body) => {
                let mut code = String::new();
                render_nodes(body, scope, host, &mut code);
                let lang = args.split_whitespace().next().unwrap_or("");
                let code = code.trim_start_matches(['\n', '\r']).trim_end();
                out.push_str(&format!("```{lang}\n{code}\n```\n"));
            }
            Node::Block(body) => render_nodes(body, scope, host, out),
            Node::Tag { name, args } => render_tag(name, args, scope, host, out),
        }
    }
}

fn render_tag(name: &str, args: &str, scope: &mut Scope, host: &mut dyn Host, out: &mut String) {
    match name {
        "assign" => {
            if let Some((var, expr)) = args.split_once('=') {
                let value = eval(expr, scope);
                scope.set(var.trim(), value);
            }
        }
        "include" | "include_relative" => {
            let (file, params) = include_args(args, scope);
            if !file.is_empty() {
                let text = host.include(&file, name == "include_relative", params, scope);
                out.push_str(&text);
            }
        }
        "link" => {
            let path = interpolate(args.trim(), scope);
            out.push_str(&host.link(&path));
        }
        "post_url" => {
            let post = interpolate(args.trim(), scope);
            out.push_str(&host.post_url(&post));
        }
        // Tags that print nothing in a page body (`seo`, `feed_meta`, `break` outside a
        // loop, plugin tags) and stray closers.
        _ => {}
    }
}

/// `{% include {{ page.name }} %}` and `{% post_url {{ slug }} %}` name things with output
/// tags of their own.
fn interpolate(text: &str, scope: &Scope) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(open) = rest.find("{{") {
        let Some(close) = rest[open..].find("}}") else {
            break;
        };
        out.push_str(&rest[..open]);
        out.push_str(&to_text(&eval(&rest[open + 2..open + close], scope)));
        rest = &rest[open + close + 2..];
    }
    out.push_str(rest);
    out
}

/// `name.html key=value key="text"` → the file name and its parameters.
fn include_args(args: &str, scope: &Scope) -> (String, Map<String, Value>) {
    let args = interpolate(args, scope);
    let args = args.trim();
    let (file, rest) = args.split_once(char::is_whitespace).unwrap_or((args, ""));
    let mut params = Map::new();
    let mut rest = rest.trim();
    while let Some(eq) = rest.find('=') {
        let key = rest[..eq].trim().to_owned();
        let value_start = rest[eq + 1..].trim_start();
        let (value, after) = match value_start.chars().next() {
            Some(q @ ('"' | '\'')) => {
                let end = value_start[1..]
                    .find(q)
                    .map_or(value_start.len(), |e| e + 2);
                (
                    &value_start[..end],
                    &value_start[end.min(value_start.len())..],
                )
            }
            _ => {
                let end = value_start
                    .find(char::is_whitespace)
                    .unwrap_or(value_start.len());
                (&value_start[..end], &value_start[end..])
            }
        };
        params.insert(key, eval(value, scope));
        rest = after.trim_start();
    }
    (file.to_owned(), params)
}

fn render_for(
    args: &str,
    body: &[Node<'_>],
    empty: &[Node<'_>],
    scope: &mut Scope,
    host: &mut dyn Host,
    out: &mut String,
) {
    let Some((var, rest)) = args.split_once(" in ") else {
        return;
    };
    let var = var.trim();
    let rest = rest.trim();
    // `collection limit:2 offset:1 reversed`: the collection ends at the first option.
    let (collection, options) = split_for_options(rest);
    let mut items = iterable(&eval(collection, scope));
    let mut limit = None;
    let mut offset = 0;
    let mut reversed = false;
    for option in options.split_whitespace() {
        if let Some(n) = option.strip_prefix("limit:") {
            limit = to_number(&eval(n, scope)).map(|n| n.max(0.0) as usize);
        } else if let Some(n) = option.strip_prefix("offset:") {
            offset = to_number(&eval(n, scope)).map_or(0, |n| n.max(0.0) as usize);
        } else if option == "reversed" {
            reversed = true;
        }
    }
    if reversed {
        items.reverse();
    }
    let items: Vec<Value> = items
        .into_iter()
        .skip(offset)
        .take(limit.unwrap_or(usize::MAX))
        .collect();
    if items.is_empty() {
        render_nodes(empty, scope, host, out);
        return;
    }
    let length = items.len();
    for (i, item) in items.into_iter().enumerate() {
        scope.iterations += 1;
        if scope.iterations > MAX_ITERATIONS {
            return;
        }
        let mut frame = Map::new();
        frame.insert(var.to_owned(), item);
        let mut forloop = Map::new();
        forloop.insert("index".into(), Value::from(i + 1));
        forloop.insert("index0".into(), Value::from(i));
        forloop.insert("first".into(), Value::Bool(i == 0));
        forloop.insert("last".into(), Value::Bool(i + 1 == length));
        forloop.insert("length".into(), Value::from(length));
        forloop.insert("rindex".into(), Value::from(length - i));
        frame.insert("forloop".into(), Value::Object(forloop));
        scope.with_frame(frame, |scope| render_nodes(body, scope, host, out));
    }
}

fn split_for_options(rest: &str) -> (&str, &str) {
    if rest.starts_with('(') {
        let end = rest.find(')').map_or(rest.len(), |e| e + 1);
        return (&rest[..end], &rest[end..]);
    }
    match rest.find(char::is_whitespace) {
        Some(at) => (&rest[..at], &rest[at..]),
        None => (rest, ""),
    }
}

fn iterable(value: &Value) -> Vec<Value> {
    match value {
        Value::Array(items) => items.clone(),
        // A hash iterates as `[key, value]` pairs.
        Value::Object(map) => map
            .iter()
            .map(|(k, v)| Value::Array(vec![Value::String(k.clone()), v.clone()]))
            .collect(),
        Value::Null => Vec::new(),
        other => vec![other.clone()],
    }
}

// ---------------------------------------------------------------------------------------
// Expressions

/// `value | filter: arg, arg | filter`.
pub fn eval(expr: &str, scope: &Scope) -> Value {
    let parts = split_outside_quotes(expr, &["|"]);
    let Some((first, filters)) = parts.split_first() else {
        return Value::Null;
    };
    let mut value = value_of(first, scope);
    for filter in filters {
        let (name, args) = filter.split_once(':').unwrap_or((filter, ""));
        let args: Vec<Value> = if args.trim().is_empty() {
            Vec::new()
        } else {
            split_outside_quotes(args, &[","])
                .iter()
                .map(|a| value_of(a, scope))
                .collect()
        };
        value = apply_filter(name.trim(), value, &args, scope);
    }
    value
}

/// `expr` split at `seps` outside quotes and brackets, each part trimmed.
fn split_outside_quotes<'e>(expr: &'e str, seps: &[&str]) -> Vec<&'e str> {
    let mut parts = Vec::new();
    let mut quote: Option<char> = None;
    let mut depth = 0i32;
    let mut start = 0;
    let mut i = 0;
    let bytes = expr.as_bytes();
    while i < expr.len() {
        let c = bytes[i] as char;
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None => match c {
                '"' | '\'' => quote = Some(c),
                '[' | '(' => depth += 1,
                ']' | ')' => depth -= 1,
                _ if depth == 0 && expr.is_char_boundary(i) => {
                    if let Some(sep) = seps.iter().find(|s| expr[i..].starts_with(**s)) {
                        parts.push(expr[start..i].trim());
                        i += sep.len();
                        start = i;
                        continue;
                    }
                }
                _ => {}
            },
        }
        i += 1;
    }
    parts.push(expr[start..].trim());
    parts
}

fn value_of(term: &str, scope: &Scope) -> Value {
    let term = term.trim();
    if term.is_empty() {
        return Value::Null;
    }
    if let Some(s) = unquote(term) {
        return Value::String(s.to_owned());
    }
    match term {
        "true" => return Value::Bool(true),
        "false" => return Value::Bool(false),
        "nil" | "null" => return Value::Null,
        "empty" | "blank" => return Value::String(String::new()),
        _ => {}
    }
    if let Ok(n) = term.parse::<i64>() {
        return Value::from(n);
    }
    if let Ok(n) = term.parse::<f64>() {
        return Value::from(n);
    }
    if let Some(range) = term.strip_prefix('(').and_then(|r| r.strip_suffix(')'))
        && let Some((a, b)) = range.split_once("..")
    {
        let a = to_number(&value_of(a, scope)).unwrap_or(0.0) as i64;
        let b = to_number(&value_of(b, scope)).unwrap_or(0.0) as i64;
        let b = b.min(a.saturating_add(MAX_ITERATIONS as i64));
        return Value::Array((a..=b).map(Value::from).collect());
    }
    lookup(term, scope)
}

fn unquote(term: &str) -> Option<&str> {
    for q in ['"', '\''] {
        if term.len() >= 2
            && term.starts_with(q)
            && term.ends_with(q)
            && !term[1..term.len() - 1].contains(q)
        {
            return Some(&term[1..term.len() - 1]);
        }
    }
    None
}

/// `a.b[0]["c"][var].size`.
fn lookup(path: &str, scope: &Scope) -> Value {
    let mut segments: Vec<Value> = Vec::new();
    let mut rest = path;
    let name_end = rest.find(['.', '[']).unwrap_or(rest.len());
    let root = &rest[..name_end];
    rest = &rest[name_end..];
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('.') {
            let end = r.find(['.', '[']).unwrap_or(r.len());
            segments.push(Value::String(r[..end].to_owned()));
            rest = &r[end..];
        } else if let Some(r) = rest.strip_prefix('[') {
            let end = matching_bracket(r).unwrap_or(r.len());
            segments.push(value_of(&r[..end], scope));
            rest = r.get(end + 1..).unwrap_or("");
        } else {
            break;
        }
    }
    let mut value = match scope.get(root) {
        Some(v) => v.clone(),
        None => return Value::Null,
    };
    for segment in segments {
        value = index(&value, &segment);
    }
    value
}

fn matching_bracket(text: &str) -> Option<usize> {
    let mut depth = 0;
    for (i, c) in text.char_indices() {
        match c {
            '[' => depth += 1,
            ']' if depth == 0 => return Some(i),
            ']' => depth -= 1,
            _ => {}
        }
    }
    None
}

fn index(value: &Value, key: &Value) -> Value {
    match (value, key) {
        (Value::Object(map), Value::String(k)) => match map.get(k) {
            Some(v) => v.clone(),
            None if k == "size" => Value::from(map.len()),
            None => Value::Null,
        },
        (Value::Array(items), Value::Number(n)) => {
            let i = n.as_i64().unwrap_or(0);
            let i = if i < 0 { items.len() as i64 + i } else { i };
            usize::try_from(i)
                .ok()
                .and_then(|i| items.get(i))
                .cloned()
                .unwrap_or(Value::Null)
        }
        (Value::Array(items), Value::String(k)) => match k.as_str() {
            "size" => Value::from(items.len()),
            "first" => items.first().cloned().unwrap_or(Value::Null),
            "last" => items.last().cloned().unwrap_or(Value::Null),
            _ => Value::Null,
        },
        (Value::String(s), Value::String(k)) if k == "size" => Value::from(s.chars().count()),
        _ => Value::Null,
    }
}

/// How Liquid prints a value.
pub fn to_text(value: &Value) -> String {
    match value {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::Array(items) => items.iter().map(to_text).collect(),
        Value::Object(_) => value.to_string(),
    }
}

fn to_number(value: &Value) -> Option<f64> {
    match value {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

fn truthy(value: &Value) -> bool {
    !matches!(value, Value::Null | Value::Bool(false))
}

fn is_empty(value: &Value) -> bool {
    match value {
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
        _ => false,
    }
}

fn equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(_), Value::Number(_)) => to_number(a) == to_number(b),
        (x, Value::String(s)) | (Value::String(s), x) if s.is_empty() && !x.is_string() => {
            is_empty(x)
        }
        _ => a == b,
    }
}

/// `a == b and c or d`: `and`/`or` from the right, as Liquid groups them.
fn condition_holds(condition: &str, scope: &Scope) -> bool {
    split_outside_quotes(condition, &[" or "])
        .iter()
        .any(|alt| {
            split_outside_quotes(alt, &[" and "])
                .iter()
                .all(|c| comparison(c, scope))
        })
}

fn comparison(term: &str, scope: &Scope) -> bool {
    for op in ["==", "!=", "<>", ">=", "<=", ">", "<", " contains "] {
        let parts = split_outside_quotes(term, &[op]);
        if let [a, b] = parts.as_slice() {
            let a = eval(a, scope);
            let b = eval(b, scope);
            return match op {
                "==" => equal(&a, &b),
                "!=" | "<>" => !equal(&a, &b),
                " contains " => match (&a, &b) {
                    (Value::String(s), _) => s.contains(&to_text(&b)),
                    (Value::Array(items), _) => items.iter().any(|i| equal(i, &b)),
                    _ => false,
                },
                _ => match (to_number(&a), to_number(&b)) {
                    (Some(x), Some(y)) => match op {
                        ">=" => x >= y,
                        "<=" => x <= y,
                        ">" => x > y,
                        _ => x < y,
                    },
                    _ => false,
                },
            };
        }
    }
    truthy(&eval(term, scope))
}

fn apply_filter(name: &str, value: Value, args: &[Value], scope: &Scope) -> Value {
    let arg = |i: usize| args.get(i).map(to_text).unwrap_or_default();
    let text = || to_text(&value);
    let site = |key: &str| {
        scope
            .get("site")
            .and_then(|s| s.get(key))
            .map(to_text)
            .unwrap_or_default()
    };
    match name {
        "relative_url" => Value::String(relative_url(&site("baseurl"), &text())),
        "absolute_url" => Value::String(format!(
            "{}{}",
            site("url").trim_end_matches('/'),
            relative_url(&site("baseurl"), &text())
        )),
        "prepend" => Value::String(format!("{}{}", arg(0), text())),
        "append" => Value::String(format!("{}{}", text(), arg(0))),
        "default" => {
            if truthy(&value) && !is_empty(&value) {
                value
            } else {
                args.first().cloned().unwrap_or(Value::Null)
            }
        }
        "downcase" => Value::String(text().to_lowercase()),
        "upcase" => Value::String(text().to_uppercase()),
        "capitalize" => {
            let t = text();
            let mut chars = t.chars();
            Value::String(
                chars
                    .next()
                    .map(|c| c.to_uppercase().chain(chars).collect())
                    .unwrap_or_default(),
            )
        }
        "strip" => Value::String(text().trim().to_owned()),
        "lstrip" => Value::String(text().trim_start().to_owned()),
        "rstrip" => Value::String(text().trim_end().to_owned()),
        "replace" => Value::String(text().replace(&arg(0), &arg(1))),
        "remove" => Value::String(text().replace(&arg(0), "")),
        "split" => Value::Array(
            text()
                .split(&arg(0))
                .map(|s| Value::String(s.to_owned()))
                .collect(),
        ),
        "join" => match &value {
            Value::Array(items) => {
                Value::String(items.iter().map(to_text).collect::<Vec<_>>().join(&arg(0)))
            }
            _ => value,
        },
        "size" => match &value {
            Value::Array(a) => Value::from(a.len()),
            Value::Object(o) => Value::from(o.len()),
            _ => Value::from(text().chars().count()),
        },
        "first" => iterable(&value).first().cloned().unwrap_or(Value::Null),
        "last" => iterable(&value).last().cloned().unwrap_or(Value::Null),
        "reverse" => {
            let mut items = iterable(&value);
            items.reverse();
            Value::Array(items)
        }
        "sort" => {
            let mut items = iterable(&value);
            let key = arg(0);
            items.sort_by_key(|item| {
                if key.is_empty() {
                    to_text(item)
                } else {
                    to_text(&index(item, &Value::String(key.clone())))
                }
            });
            Value::Array(items)
        }
        "where" => {
            let key = Value::String(arg(0));
            let wanted = args.get(1).cloned().unwrap_or(Value::Null);
            Value::Array(
                iterable(&value)
                    .into_iter()
                    .filter(|item| {
                        let got = index(item, &key);
                        equal(&got, &wanted) || matches!(&got, Value::Array(a) if a.iter().any(|x| equal(x, &wanted)))
                    })
                    .collect(),
            )
        }
        "slugify" => Value::String(slugify(&text())),
        "escape" | "xml_escape" => Value::String(
            text()
                .replace('&', "&amp;")
                .replace('<', "&lt;")
                .replace('>', "&gt;")
                .replace('"', "&quot;"),
        ),
        "strip_html" => Value::String(strip_html(&text())),
        "jsonify" => Value::String(value.to_string()),
        "plus" | "minus" | "times" => match (
            to_number(&value),
            to_number(args.first().unwrap_or(&Value::Null)),
        ) {
            (Some(a), Some(b)) => {
                let n = match name {
                    "plus" => a + b,
                    "minus" => a - b,
                    _ => a * b,
                };
                if n.fract() == 0.0 {
                    Value::from(n as i64)
                } else {
                    Value::from(n)
                }
            }
            _ => value,
        },
        "number_of_words" => Value::from(text().split_whitespace().count()),
        // Markdown, dates, typography, URL escapes: the text as it is reads the same.
        _ => value,
    }
}

fn relative_url(baseurl: &str, path: &str) -> String {
    if path.contains("://") || path.starts_with("//") {
        return path.to_owned();
    }
    let base = baseurl.trim_end_matches('/');
    let path = path.trim_start_matches('/');
    format!("{base}/{path}")
}

/// Jekyll's `slugify` (default mode): lowercase, every run of non-alphanumerics one `-`.
pub fn slugify(text: &str) -> String {
    let mut out = String::new();
    let mut dash = false;
    for c in text.chars() {
        if c.is_alphanumeric() {
            if dash && !out.is_empty() {
                out.push('-');
            }
            dash = false;
            out.extend(c.to_lowercase());
        } else {
            dash = true;
        }
    }
    out
}

fn strip_html(text: &str) -> String {
    let mut out = String::new();
    let mut in_tag = false;
    for c in text.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            _ if !in_tag => out.push(c),
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Fake;

    impl Host for Fake {
        fn include(
            &mut self,
            name: &str,
            _relative: bool,
            params: Map<String, Value>,
            scope: &mut Scope,
        ) -> String {
            let mut frame = Map::new();
            frame.insert("include".into(), Value::Object(params));
            let template = match name {
                "badge.html" => "<span>{{ include.version }}</span>",
                _ => "",
            };
            scope.with_frame(frame, |scope| render(template, scope, &mut Fake))
        }
        fn link(&mut self, path: &str) -> String {
            format!("/url-of/{path}")
        }
        fn post_url(&mut self, name: &str) -> String {
            format!("/post/{name}/")
        }
    }

    fn run(src: &str) -> String {
        let globals: Map<String, Value> = serde_json::from_str(
            r#"{"site": {"repository": "https://github.com/x/y", "baseurl": "", "url": "https://x.dev",
                "data": {"opts": [{"name": "A", "flag": "-a"}, {"name": "B"}]}},
                "page": {"title": "T", "list": ["where expression", "find"]}}"#,
        )
        .unwrap();
        let mut scope = Scope::new(globals);
        render(src, &mut scope, &mut Fake)
    }

    #[test]
    fn outputs_filters_and_urls() {
        assert_eq!(
            run("[#1]({{ site.repository }}/issues/1)"),
            "[#1](https://github.com/x/y/issues/1)"
        );
        assert_eq!(run("[x]({{ '/docs/x/' | relative_url }})"), "[x](/docs/x/)");
        assert_eq!(run("{{ '/a/' | absolute_url }}"), "https://x.dev/a/");
        assert_eq!(
            run("{{ page.missing }}|{{ page.title | downcase | append: '!' }}"),
            "|t!"
        );
        assert_eq!(
            run("[a]({% link _docs/a.md %}) {% post_url 2010-07-21-n %}"),
            "[a](/url-of/_docs/a.md) /post/2010-07-21-n/"
        );
        assert_eq!(
            run("{{ 'Where expression' | slugify }}"),
            "where-expression"
        );
    }

    #[test]
    fn raw_is_verbatim_and_comments_vanish() {
        assert_eq!(
            run("a {% raw %}{{ x }} {% if %}{% endraw %} b"),
            "a {{ x }} {% if %} b"
        );
        assert_eq!(
            run("{% raw %}\n```liquid\n{% for p in x %}\n```\n{% endraw %}\nafter\n"),
            "```liquid\n{% for p in x %}\n```\nafter\n"
        );
        assert_eq!(run("a{% comment %} {{ x }} {% endcomment %}b"), "ab");
    }

    #[test]
    fn loops_over_data_and_conditions() {
        let src = "<table>\n  {% for o in site.data.opts %}\n  <tr><td>{{ o.name }}</td>{% if o.flag %}<td>{{ o.flag }}</td>{% else %}<td>none</td>{% endif %}</tr>\n  {% endfor %}\n</table>\n";
        assert_eq!(
            run(src),
            "<table>\n  <tr><td>A</td><td>-a</td></tr>\n  <tr><td>B</td><td>none</td></tr>\n</table>\n"
        );
        assert_eq!(
            run("{% for x in page.list limit:1 %}{{ forloop.index }}:{{ x }}{% endfor %}"),
            "1:where expression"
        );
        assert_eq!(
            run("{% for i in (1..3) reversed %}{{ i }}{% endfor %}"),
            "321"
        );
        assert_eq!(
            run("{% unless page.title == 'T' %}no{% else %}yes{% endunless %}"),
            "yes"
        );
        assert_eq!(
            run("{% if page.title contains 'T' and site.nope %}a{% elsif 2 > 1 %}b{% endif %}"),
            "b"
        );
        assert_eq!(
            run("{% case page.title %}{% when 'X', 'T' %}t{% else %}e{% endcase %}"),
            "t"
        );
    }

    #[test]
    fn assign_capture_highlight_include() {
        assert_eq!(
            run("{% assign s = page.list | first | slugify %}{{ s }}"),
            "where-expression"
        );
        assert_eq!(
            run("{% capture c %}x{{ page.title }}{% endcapture %}[{{ c }}]"),
            "[xT]"
        );
        assert_eq!(
            run("{% highlight ruby linenos %}\nputs 1\n{% endhighlight %}\n"),
            "```ruby\nputs 1\n```\n"
        );
        assert_eq!(
            run("## Title {%- include badge.html version=\"4.0\" -%}\n\nNext\n"),
            "## Title<span>4.0</span>\nNext\n"
        );
        assert_eq!(
            run("{% include badge.html version=page.title %}\nafter"),
            "<span>T</span>\nafter"
        );
        assert_eq!(
            run("{% seo %}{% render_time %}body{% endrender_time %}"),
            "body"
        );
    }

    #[test]
    fn odd_input_does_not_panic() {
        assert_eq!(run("{{ 'héllo|wörld' | upcase }}"), "HÉLLO|WÖRLD");
        assert_eq!(run("{{ 'ü' == 'ü' }}{% if 'ä' == 'ä' %}y{% endif %}"), "y");
        let deep = format!(
            "{}x{}",
            "{% if true %}".repeat(5000),
            "{% endif %}".repeat(5000)
        );
        assert!(run(&deep).contains('x'));
        assert_eq!(run("{{ unclosed"), "{{ unclosed");
        assert_eq!(run("{% for i in (1..999999999) %}{% endfor %}done"), "done");
    }

    #[test]
    fn tag_only_lines_leave_no_blank_lines() {
        assert_eq!(
            run("a\n  {% if true %}\nb\n  {% endif %}\nc\n"),
            "a\nb\nc\n"
        );
        assert_eq!(run("x {% if true %}y{% endif %}\n"), "x y\n");
    }
}
