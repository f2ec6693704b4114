//! The literal values of a VitePress config, read from its tokens: the config is
//! TypeScript or JavaScript and cannot be run, so only string literals (and arrays and
//! objects of them) are read; anything computed (`${…}` template literals, calls) is
//! left out.

#[derive(Debug, Clone, PartialEq)]
enum Token {
    /// A string literal's value; `None` for a template literal with `${…}`.
    Str(Option<String>),
    Ident(String),
    Punct(char),
}

/// JS/TS source → tokens, comments dropped, regex literals skipped. Enough to read object
/// literals with string values; never fails.
fn tokenize(src: &str) -> Vec<Token> {
    let chars: Vec<char> = src.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c.is_whitespace() {
            i += 1;
        } else if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            i += 2;
            while i + 1 < chars.len() && !(chars[i] == '*' && chars[i + 1] == '/') {
                i += 1;
            }
            i += 2;
        } else if c == '/' && regex_may_start(tokens.last()) {
            i = skip_regex(&chars, i);
        } else if c == '\'' || c == '"' || c == '`' {
            let (value, end) = string_literal(&chars, i);
            tokens.push(Token::Str(value));
            i = end;
        } else if c.is_alphanumeric() || c == '_' || c == '$' {
            let start = i;
            while i < chars.len()
                && (chars[i].is_alphanumeric() || chars[i] == '_' || chars[i] == '$')
            {
                i += 1;
            }
            tokens.push(Token::Ident(chars[start..i].iter().collect()));
        } else {
            tokens.push(Token::Punct(c));
            i += 1;
        }
    }
    tokens
}

fn regex_may_start(previous: Option<&Token>) -> bool {
    match previous {
        None => true,
        Some(Token::Punct(p)) => "(,=:[!&|?{};+-*%<>~^".contains(*p),
        Some(Token::Ident(word)) => matches!(word.as_str(), "return" | "typeof" | "case"),
        Some(Token::Str(_)) => false,
    }
}

fn skip_regex(chars: &[char], start: usize) -> usize {
    let mut i = start + 1;
    let mut in_class = false;
    while i < chars.len() && chars[i] != '\n' {
        match chars[i] {
            '\\' => i += 1,
            '[' => in_class = true,
            ']' => in_class = false,
            '/' if !in_class => {
                i += 1;
                while i < chars.len() && chars[i].is_alphabetic() {
                    i += 1;
                }
                return i;
            }
            _ => {}
        }
        i += 1;
    }
    i
}

/// The value of the string literal starting at `start`, and where it ends.
fn string_literal(chars: &[char], start: usize) -> (Option<String>, usize) {
    let quote = chars[start];
    let mut value = String::new();
    let mut interpolated = false;
    let mut i = start + 1;
    while i < chars.len() {
        let c = chars[i];
        if c == '\\' {
            if let Some(&escaped) = chars.get(i + 1) {
                value.push(match escaped {
                    'n' => '\n',
                    't' => '\t',
                    other => other,
                });
            }
            i += 2;
            continue;
        }
        if c == quote {
            return ((!interpolated).then_some(value), i + 1);
        }
        if quote == '`' && c == '$' && chars.get(i + 1) == Some(&'{') {
            interpolated = true;
            let mut depth = 0;
            while i < chars.len() {
                match chars[i] {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            i += 1;
            continue;
        }
        if quote != '`' && c == '\n' {
            break;
        }
        value.push(c);
        i += 1;
    }
    ((!interpolated).then_some(value), i)
}

/// The literal values VitePress's config decides that we use.
#[derive(Debug, Default, PartialEq)]
pub struct ConfigValues {
    pub base: Option<String>,
    pub src_exclude: Vec<String>,
    pub rewrites: Vec<(String, String)>,
    /// Sidebar `link`s in order, each with its `text` when that is a literal.
    pub sidebar: Vec<(String, Option<String>)>,
    /// `locales` keys (`root`, `fr`), each with its literal `lang`.
    pub locales: Vec<(String, Option<String>)>,
}

impl ConfigValues {
    pub fn scan(src: &str) -> ConfigValues {
        let tokens = tokenize(src);
        let mut values = ConfigValues::default();
        for (i, token) in tokens.iter().enumerate() {
            let Token::Ident(key) = token else { continue };
            if tokens.get(i + 1) != Some(&Token::Punct(':')) || !is_key_position(&tokens, i) {
                continue;
            }
            let value = &tokens[i + 2..];
            match key.as_str() {
                "base" if values.base.is_none() => {
                    if let Some(Token::Str(Some(base))) = value.first() {
                        values.base = Some(base.clone());
                    }
                }
                "srcExclude" => values.src_exclude.extend(string_array(value)),
                "rewrites" => values.rewrites.extend(string_pairs(value)),
                "sidebar" => values.sidebar.extend(sidebar_links(value)),
                "locales" if values.locales.is_empty() => values.locales = object_entries(value),
                _ => {}
            }
        }
        values
    }
}

/// A key of an object literal: after `{` or `,`.
fn is_key_position(tokens: &[Token], i: usize) -> bool {
    i == 0 || matches!(tokens[i - 1], Token::Punct('{') | Token::Punct(','))
}

/// The tokens of the bracketed value at the start of `tokens` (`[…]` or `{…}`), brackets
/// included; empty when it does not start with one.
fn bracketed(tokens: &[Token]) -> &[Token] {
    let Some(Token::Punct(open @ ('[' | '{'))) = tokens.first() else {
        return &[];
    };
    let close = if *open == '[' { ']' } else { '}' };
    let mut depth = 0usize;
    for (j, token) in tokens.iter().enumerate() {
        match token {
            Token::Punct(c) if *c == *open || "[{(".contains(*c) => depth += 1,
            Token::Punct(c) if *c == close || "]})".contains(*c) => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return &tokens[..=j];
                }
            }
            _ => {}
        }
    }
    tokens
}

/// The keys of the object literal at the start of `tokens` (identifiers or strings), each
/// with the literal `lang` of its value.
fn object_entries(tokens: &[Token]) -> Vec<(String, Option<String>)> {
    let span = bracketed(tokens);
    let mut entries: Vec<(String, Option<String>)> = Vec::new();
    let mut depth = 0usize;
    for (j, token) in span.iter().enumerate() {
        match token {
            Token::Punct('{' | '[' | '(') => depth += 1,
            Token::Punct('}' | ']' | ')') => depth = depth.saturating_sub(1),
            Token::Ident(key) | Token::Str(Some(key))
                if span.get(j + 1) == Some(&Token::Punct(':')) && is_key_position(span, j) =>
            {
                if depth == 1 {
                    entries.push((key.clone(), None));
                } else if depth == 2
                    && key == "lang"
                    && let (Some(entry), Some(Token::Str(Some(lang)))) =
                        (entries.last_mut(), span.get(j + 2))
                {
                    entry.1 = Some(lang.clone());
                }
            }
            _ => {}
        }
    }
    entries
}

fn string_array(tokens: &[Token]) -> Vec<String> {
    bracketed(tokens)
        .iter()
        .filter_map(|t| match t {
            Token::Str(Some(s)) => Some(s.clone()),
            _ => None,
        })
        .collect()
}

/// `{ 'a': 'b', … }` → [(a, b)].
fn string_pairs(tokens: &[Token]) -> Vec<(String, String)> {
    let span = bracketed(tokens);
    span.windows(3)
        .filter_map(|w| match w {
            [Token::Str(Some(k)), Token::Punct(':'), Token::Str(Some(v))] => {
                Some((k.clone(), v.clone()))
            }
            _ => None,
        })
        .collect()
}

/// Every `{ text, link }` object in the sidebar value, in the order of its `link`.
fn sidebar_links(tokens: &[Token]) -> Vec<(String, Option<String>)> {
    let span = bracketed(tokens);
    struct Item {
        text: Option<String>,
        link: Option<(usize, String)>,
    }
    let mut stack: Vec<Item> = Vec::new();
    let mut found: Vec<(usize, String, Option<String>)> = Vec::new();
    for (j, token) in span.iter().enumerate() {
        match token {
            Token::Punct('{') => stack.push(Item {
                text: None,
                link: None,
            }),
            Token::Punct('}') => {
                if let Some(Item {
                    text,
                    link: Some((at, link)),
                }) = stack.pop()
                {
                    found.push((at, link, text));
                }
            }
            Token::Ident(key)
                if is_key_position(span, j) && span.get(j + 1) == Some(&Token::Punct(':')) =>
            {
                let value = match span.get(j + 2) {
                    Some(Token::Str(Some(s))) => Some(s.clone()),
                    _ => None,
                };
                if let Some(item) = stack.last_mut() {
                    match key.as_str() {
                        "text" => item.text = value,
                        "link" => item.link = value.map(|v| (j, v)),
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    found.sort_by_key(|(at, _, _)| *at);
    found
        .into_iter()
        .map(|(_, link, text)| (link, text))
        .collect()
}
