//! Reading literal values out of a JS/TS site config (`docusaurus.config.ts`,
//! `sidebars.ts`, `astro.config.mjs`). These are programs and cannot be run here, so they
//! are tokenized (strings, names, punctuation; comments skipped) and the few literal values
//! the site needs are picked out by key. A value the config computes is not seen: the
//! caller falls back to the generator's default.

/// One token of JS.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Tok {
    Str(String),
    Ident(String),
    Punct(char),
}

/// The tokens of `text`, comments left out, template literals as strings (their `${}`
/// parts kept as text).
pub(crate) fn tokens(text: &str) -> Vec<Tok> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c == '/' && chars.get(i + 1) == Some(&'/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && chars.get(i + 1) == Some(&'*') {
            i += 2;
            while i < chars.len() && !(chars[i] == '*' && chars.get(i + 1) == Some(&'/')) {
                i += 1;
            }
            i += 2;
        } else if matches!(c, '"' | '\'' | '`') {
            let mut value = String::new();
            i += 1;
            while i < chars.len() && chars[i] != c {
                if chars[i] == '\\' && i + 1 < chars.len() {
                    i += 1;
                }
                value.push(chars[i]);
                i += 1;
            }
            i += 1;
            out.push(Tok::Str(value));
        } else if c.is_alphanumeric() || c == '_' || c == '$' {
            let start = i;
            while i < chars.len()
                && (chars[i].is_alphanumeric() || chars[i] == '_' || chars[i] == '$')
            {
                i += 1;
            }
            out.push(Tok::Ident(chars[start..i].iter().collect()));
        } else {
            out.push(Tok::Punct(c));
            i += 1;
        }
    }
    out
}

/// Whether `tok` is the key `name` (`name` or `'name'`).
fn is_key(tok: &Tok, name: &str) -> bool {
    matches!(tok, Tok::Ident(n) | Tok::Str(n) if n == name)
}

/// Where the value of the first `name: …` (or `name = …`) at or after `from` starts.
pub(crate) fn value_at(toks: &[Tok], name: &str, from: usize) -> Option<usize> {
    (from..toks.len().saturating_sub(1)).find_map(|i| {
        (is_key(&toks[i], name) && matches!(toks[i + 1], Tok::Punct(':') | Tok::Punct('=')))
            .then_some(i + 2)
    })
}

/// The string value of the first `name: '…'` at or after `from`.
pub(crate) fn string_value(toks: &[Tok], name: &str, from: usize) -> Option<String> {
    let mut from = from;
    while let Some(at) = value_at(toks, name, from) {
        if let Some(Tok::Str(value)) = toks.get(at) {
            return Some(value.clone());
        }
        from = at;
    }
    None
}

/// The index of the bracket closing the one at `open`.
pub(crate) fn closing(toks: &[Tok], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, tok) in toks.iter().enumerate().skip(open) {
        match tok {
            Tok::Punct('{' | '[' | '(') => depth += 1,
            Tok::Punct('}' | ']' | ')') => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// The strings of the array value of the first `name: [ … ]` at or after `from`.
pub(crate) fn string_array(toks: &[Tok], name: &str, from: usize) -> Option<Vec<String>> {
    let at = value_at(toks, name, from)?;
    if toks.get(at) != Some(&Tok::Punct('[')) {
        return None;
    }
    let end = closing(toks, at)?;
    Some(
        toks[at..end]
            .iter()
            .filter_map(|t| match t {
                Tok::Str(s) => Some(s.clone()),
                _ => None,
            })
            .collect(),
    )
}

/// The keys of the object literal opening at `open` (its own keys, not nested ones).
pub(crate) fn object_keys(toks: &[Tok], open: usize) -> Vec<(String, usize)> {
    let Some(end) = closing(toks, open) else {
        return Vec::new();
    };
    let mut keys = Vec::new();
    let mut depth = 0usize;
    let mut i = open;
    while i < end {
        match &toks[i] {
            Tok::Punct('{' | '[' | '(') => depth += 1,
            Tok::Punct('}' | ']' | ')') => depth = depth.saturating_sub(1),
            Tok::Ident(k) | Tok::Str(k)
                if depth == 1
                    && toks.get(i + 1) == Some(&Tok::Punct(':'))
                    && matches!(toks[i - 1], Tok::Punct('{') | Tok::Punct(',')) =>
            {
                keys.push((k.clone(), i + 2));
            }
            _ => {}
        }
        i += 1;
    }
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_literal_values_and_skips_comments() {
        let text = "// baseUrl: '/old/'\nconst config = { baseUrl: '/docs/', /* x: 'y' */ include: ['a/**', \"b\"], n: { 'zh-cn': { lang: 'zh' }, root: {} } }";
        let toks = tokens(text);
        assert_eq!(string_value(&toks, "baseUrl", 0).as_deref(), Some("/docs/"));
        assert_eq!(string_value(&toks, "x", 0), None);
        assert_eq!(
            string_array(&toks, "include", 0).unwrap(),
            ["a/**".to_owned(), "b".to_owned()]
        );
        let n = value_at(&toks, "n", 0).unwrap();
        let keys: Vec<String> = object_keys(&toks, n).into_iter().map(|(k, _)| k).collect();
        assert_eq!(keys, ["zh-cn", "root"]);
    }
}
