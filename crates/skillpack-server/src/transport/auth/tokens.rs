//! Static bearer tokens: the single shared `SKILLPACK_AUTH_TOKEN`, and named client
//! credentials in `SKILLPACK_CLIENT_TOKENS`.
//!
//! Named credentials are given as the SHA-256 digests of the tokens, never the tokens: the
//! variable can sit in a manifest or a secret store that many people read, and what it
//! holds cannot be presented as a credential. `printf %s "$TOKEN" | sha256sum` makes a
//! digest with nothing of ours. Several digests may share a name, so a client's new token
//! can be added beside the old one, the client moved over, and the old digest removed by
//! a rolling restart — the name in the access log and metrics never changes.
//!
//! Only digests are kept in memory, for the shared token too, and a presented token is
//! compared by its digest in constant time: neither its content nor its length leaks
//! through timing, and no secret is in memory to be logged.

use sha2::{Digest, Sha256};

/// The metrics and log name of callers with the shared `SKILLPACK_AUTH_TOKEN`.
pub const SHARED_NAME: &str = "shared";
/// Names a configured client may not take: the labels of other kinds of callers.
const RESERVED: &[&str] = &[SHARED_NAME, "oauth", "anonymous"];
const MAX_NAME: usize = 64;

type Sha256Digest = [u8; 32];

/// The accepted static tokens, by digest, each with its client's name.
#[derive(Clone, Default)]
pub struct Tokens {
    entries: Vec<(Sha256Digest, &'static str)>,
}

impl Tokens {
    /// From the environment's values: `shared` (`SKILLPACK_AUTH_TOKEN`) and `named`
    /// (`SKILLPACK_CLIENT_TOKENS`). `None` when neither is set.
    pub fn from_settings(
        shared: Option<&str>,
        named: Option<&str>,
    ) -> Result<Option<Self>, String> {
        let mut tokens = Tokens::default();
        if let Some(secret) = shared {
            validate_secret(secret)?;
            tokens.entries.push((digest(secret), SHARED_NAME));
        }
        if let Some(list) = named {
            tokens.add_named(list)?;
        }
        Ok((!tokens.entries.is_empty()).then_some(tokens))
    }

    /// `name:sha256hex` entries separated by commas, whitespace or newlines.
    fn add_named(&mut self, list: &str) -> Result<(), String> {
        let entries: Vec<&str> = list
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|entry| !entry.is_empty())
            .collect();
        if entries.is_empty() {
            return Err("SKILLPACK_CLIENT_TOKENS is set but holds no entry; unset it, or list \
                 `name:sha256` pairs such as `search-team:$(printf %s \"$TOKEN\" | sha256sum | cut -c1-64)`"
                .to_owned());
        }
        for (index, entry) in entries.iter().enumerate() {
            let place = format!("SKILLPACK_CLIENT_TOKENS entry {} ({entry:?})", index + 1);
            let (name, hex) = entry.split_once(':').ok_or_else(|| {
                format!(
                    "{place} is not `name:sha256`: give each client a name, a colon and the \
                     SHA-256 of its token in hex (`printf %s \"$TOKEN\" | sha256sum`)"
                )
            })?;
            validate_name(name).map_err(|why| format!("{place}: {why}"))?;
            let digest = parse_digest(hex).ok_or_else(|| {
                format!(
                    "{place}: the digest must be 64 hex digits, the SHA-256 of the token as \
                     `printf %s \"$TOKEN\" | sha256sum` prints it (not the token itself)"
                )
            })?;
            if let Some((_, other)) = self.entries.iter().find(|(known, _)| *known == digest) {
                return Err(format!(
                    "{place}: this digest is already given to {other:?}; each token must name \
                     one client (make a new token with `openssl rand -hex 32`)"
                ));
            }
            // Leaked once at start: names are metric labels for the life of the process,
            // and the operator's list bounds how many there are.
            let name: &'static str = match self.entries.iter().find(|(_, known)| *known == name) {
                Some((_, known)) => known,
                None => Box::leak(name.to_owned().into_boxed_str()),
            };
            self.entries.push((digest, name));
        }
        Ok(())
    }

    /// The name of the client whose token this is, if it is one. Every digest is compared,
    /// each in constant time, so the time taken says nothing about which one matched.
    pub fn accepts(&self, presented: &str) -> Option<&'static str> {
        let presented = digest(presented);
        let mut found = None;
        for (digest, name) in &self.entries {
            if constant_time_eq(digest, &presented) {
                found = Some(*name);
            }
        }
        found
    }

    /// How many tokens and how many distinct clients (for the start-up log line).
    pub fn counts(&self) -> (usize, usize) {
        let mut names: Vec<&str> = self.entries.iter().map(|(_, name)| *name).collect();
        names.sort_unstable();
        names.dedup();
        (self.entries.len(), names.len())
    }
}

impl std::fmt::Debug for Tokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Tokens(<{} redacted>)", self.entries.len())
    }
}

fn digest(secret: &str) -> Sha256Digest {
    Sha256::digest(secret.as_bytes()).into()
}

/// Written here rather than taken from a crate: one loop over 32 bytes whose time does
/// not depend on where they differ, which is all `subtle::ConstantTimeEq` would add.
fn constant_time_eq(a: &Sha256Digest, b: &Sha256Digest) -> bool {
    let difference = a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y));
    std::hint::black_box(difference) == 0
}

fn parse_digest(hex: &str) -> Option<Sha256Digest> {
    let hex = hex.trim();
    if hex.len() != 64 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let mut digest = [0u8; 32];
    for (i, byte) in digest.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(digest)
}

fn validate_name(name: &str) -> Result<(), String> {
    let plain = name
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b));
    if name.is_empty() || name.len() > MAX_NAME || !plain {
        return Err(format!(
            "the client name {name:?} must be 1 to {MAX_NAME} letters, digits, `-`, `_` or \
             `.` (it becomes a metrics label and an access-log field)"
        ));
    }
    if RESERVED.contains(&name) {
        return Err(format!(
            "the client name {name:?} is reserved ({}: the labels of the shared token, OAuth \
             callers and servers without credentials); pick another",
            RESERVED.join(", ")
        ));
    }
    Ok(())
}

pub fn validate_secret(secret: &str) -> Result<(), String> {
    if secret.is_empty() {
        return Err(
            "SKILLPACK_AUTH_TOKEN is set but empty; unset it to serve without a token, \
                    or set it to a long random secret"
                .to_owned(),
        );
    }
    if secret.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(
            "SKILLPACK_AUTH_TOKEN contains whitespace or control characters, \
                    which cannot travel in an Authorization header; use e.g. \
                    `openssl rand -hex 32`"
                .to_owned(),
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(secret: &str) -> String {
        digest(secret).iter().map(|b| format!("{b:02x}")).collect()
    }

    #[test]
    fn tokens_compare_by_digest_and_never_print() {
        let tokens = Tokens::from_settings(Some("s3cret-value"), None)
            .unwrap()
            .unwrap();
        assert_eq!(tokens.accepts("s3cret-value"), Some(SHARED_NAME));
        assert_eq!(tokens.accepts("s3cret-valu"), None);
        assert_eq!(tokens.accepts(""), None);
        assert!(!format!("{tokens:?}").contains("s3cret"));
        assert!(Tokens::from_settings(Some(""), None).is_err());
        assert!(Tokens::from_settings(Some("two words"), None).is_err());
        assert!(Tokens::from_settings(None, None).unwrap().is_none());
    }

    #[test]
    fn named_tokens_map_to_their_client_and_several_may_share_a_name() {
        let list = format!(
            "search-team:{}, docs-bot:{}\nsearch-team:{}",
            hex("alpha"),
            hex("beta"),
            hex("alpha-next")
        );
        let tokens = Tokens::from_settings(None, Some(&list)).unwrap().unwrap();
        assert_eq!(tokens.accepts("alpha"), Some("search-team"));
        assert_eq!(tokens.accepts("alpha-next"), Some("search-team"));
        assert_eq!(tokens.accepts("beta"), Some("docs-bot"));
        assert_eq!(
            tokens.accepts(&hex("beta")),
            None,
            "the digest is not the token"
        );
        assert_eq!(tokens.counts(), (3, 2));
    }

    #[test]
    fn bad_entries_say_which_and_how_to_fix() {
        for (list, needle) in [
            ("", "holds no entry"),
            ("team", "entry 1"),
            ("team:abc", "64 hex digits"),
            (&format!("bad name:{}", hex("x")), "entry 1"),
            (&format!("shared:{}", hex("x")), "reserved"),
            (&format!("a:{0},b:{0}", hex("x")), "already given to \"a\""),
        ] {
            let error = Tokens::from_settings(None, Some(list)).unwrap_err();
            assert!(error.contains(needle), "{list:?}: {error}");
            assert!(error.contains("SKILLPACK_CLIENT_TOKENS"), "{error}");
        }
    }
}
