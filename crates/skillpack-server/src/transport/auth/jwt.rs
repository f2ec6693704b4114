//! OAuth 2.1 access tokens as JWTs (RFC 9068), checked the way the MCP authorization
//! specification asks of a resource server: the signature against the identity
//! provider's keys, the issuer, the audience (this server's resource URI, RFC 8707), the
//! expiry and not-before times with a small allowance for clock skew, and the scopes the
//! operator requires.
//!
//! The keys are a JWKS given at start (a file or a variable): the server reads nothing
//! after start and opens no connection, so it never fetches the provider's `jwks_uri`. A
//! key rotation at the provider is a rolling restart with the new set (publish the new key
//! beside the old one first, as providers do).
//!
//! Validation is `jsonwebtoken`'s (pure-Rust RustCrypto verifiers). Only asymmetric
//! algorithms are accepted: a resource server holds public keys, never a secret that
//! could also mint tokens; `alg: none` is refused before anything else is looked at.

use base64::Engine;
use jsonwebtoken::jwk::{AlgorithmParameters, Jwk, JwkSet};
use jsonwebtoken::{Algorithm, AlgorithmFamily, DecodingKey, Validation};
use serde::Deserialize;

/// Clock skew allowed on `exp` and `nbf` by default: a minute, what most resource
/// servers allow between hosts kept by NTP.
pub const DEFAULT_LEEWAY_SECS: u64 = 60;

/// Why a token was refused: a label for metrics (closed set) and a sentence for the
/// client's `error_description` and the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    pub reason: &'static str,
    pub description: String,
}

fn refused(reason: &'static str, description: impl Into<String>) -> Refused {
    Refused {
        reason,
        description: description.into(),
    }
}

/// Who a valid token speaks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    /// `client_id` (RFC 9068), else `azp`, else `sub`: the application calling.
    pub client: String,
    /// `sub`: the user or service the application acts for.
    pub subject: Option<String>,
}

struct Key {
    kid: Option<String>,
    /// The JWK's `alg`, when it names one: the key is then used for that algorithm only.
    alg: Option<Algorithm>,
    family: AlgorithmFamily,
    key: DecodingKey,
}

/// The validated `--oauth-*` settings and the public keys.
pub struct OAuth {
    keys: Vec<Key>,
    pub issuer: String,
    pub resource: String,
    pub scopes: Vec<String>,
    leeway: u64,
}

impl std::fmt::Debug for OAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuth")
            .field("keys", &self.keys.len())
            .field("issuer", &self.issuer)
            .field("resource", &self.resource)
            .field("scopes", &self.scopes)
            .field("leeway", &self.leeway)
            .finish()
    }
}

#[derive(Deserialize)]
struct Claims {
    sub: Option<String>,
    client_id: Option<String>,
    azp: Option<String>,
    /// RFC 8693 / RFC 9068: space-separated.
    scope: Option<String>,
    /// What some providers (Okta, Entra ID) send instead: a list, or a string.
    scp: Option<ScopeList>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum ScopeList {
    Text(String),
    List(Vec<String>),
}

impl OAuth {
    /// `jwks` is the JSON text of the key set, `source` where it came from (for errors).
    pub fn new(
        jwks: &str,
        source: &str,
        issuer: &str,
        resource: &str,
        scopes: Vec<String>,
        leeway: u64,
    ) -> Result<Self, String> {
        let set: JwkSet = serde_json::from_str(jwks).map_err(|error| {
            format!(
                "{source} is not a JSON Web Key Set ({error}); give the provider's JWKS \
                 document, the JSON its jwks_uri serves: {{\"keys\": [...]}}"
            )
        })?;
        let mut keys = Vec::new();
        for (index, jwk) in set.keys.iter().enumerate() {
            let label = match &jwk.common.key_id {
                Some(kid) => format!("key {} (kid {kid:?})", index + 1),
                None => format!("key {}", index + 1),
            };
            keys.push(key(jwk).map_err(|why| format!("{source}: {label}: {why}"))?);
        }
        if keys.is_empty() {
            return Err(format!(
                "{source} holds no key; give the identity provider's JWKS with its signing \
                 keys"
            ));
        }
        if issuer.trim().is_empty() {
            return Err(
                "--oauth-issuer is empty; give the issuer URL the identity provider \
                        writes in `iss` (its metadata's `issuer`)"
                    .to_owned(),
            );
        }
        Ok(OAuth {
            keys,
            issuer: issuer.trim().to_owned(),
            resource: resource.to_owned(),
            scopes,
            leeway,
        })
    }

    pub fn key_count(&self) -> usize {
        self.keys.len()
    }

    /// Check one bearer token. `Err` says why it is refused; `insufficient_scope` is the
    /// one refusal that is a 403 rather than a 401.
    pub fn check(&self, token: &str) -> Result<Caller, Refused> {
        let alg = header_algorithm(token)?;
        let family = family_of(alg).ok_or_else(|| {
            refused(
                "algorithm",
                format!(
                    "tokens signed with {alg:?} are not accepted: a resource server holds \
                     public keys only (use RS*, PS*, ES* or EdDSA)"
                ),
            )
        })?;
        let header = jsonwebtoken::decode_header(token)
            .map_err(|error| refused("malformed", format!("the JWT header is invalid: {error}")))?;
        let candidates: Vec<&Key> = self
            .keys
            .iter()
            .filter(|key| match (&header.kid, &key.kid) {
                (Some(wanted), Some(kid)) => wanted == kid,
                (Some(_), None) => false,
                (None, _) => true,
            })
            .filter(|key| key.family == family && key.alg.is_none_or(|a| a == alg))
            .collect();
        if candidates.is_empty() {
            return Err(refused(
                "unknown_key",
                match &header.kid {
                    Some(kid) => format!(
                        "no key with kid {kid:?} for {alg:?} in the key set this server was \
                         started with"
                    ),
                    None => format!("no {alg:?} key in the key set this server was started with"),
                },
            ));
        }
        let mut validation = Validation::new(alg);
        validation.leeway = self.leeway;
        validation.validate_nbf = true;
        validation.set_issuer(&[&self.issuer]);
        validation.set_audience(&[&self.resource]);
        validation.set_required_spec_claims(&["exp", "iss", "aud"]);
        let mut last = None;
        for candidate in candidates {
            match jsonwebtoken::decode::<Claims>(token, &candidate.key, &validation) {
                Ok(data) => return self.authorize(data.claims),
                Err(error) => {
                    let refusal = translate(&error);
                    // A wrong signature under one key may verify under the next; anything
                    // else about the token is the same under every key.
                    if refusal.reason != "bad_signature" {
                        return Err(refusal);
                    }
                    last = Some(refusal);
                }
            }
        }
        Err(last.unwrap_or_else(|| refused("bad_signature", "the signature does not verify")))
    }

    fn authorize(&self, claims: Claims) -> Result<Caller, Refused> {
        let granted: Vec<&str> = match (&claims.scope, &claims.scp) {
            (Some(scope), _) => scope.split_whitespace().collect(),
            (None, Some(ScopeList::Text(scope))) => scope.split_whitespace().collect(),
            (None, Some(ScopeList::List(scopes))) => scopes.iter().map(String::as_str).collect(),
            (None, None) => Vec::new(),
        };
        let missing: Vec<&str> = self
            .scopes
            .iter()
            .map(String::as_str)
            .filter(|scope| !granted.contains(scope))
            .collect();
        if !missing.is_empty() {
            return Err(refused(
                "insufficient_scope",
                format!("the token lacks the scope {}", missing.join(" ")),
            ));
        }
        let client = claims
            .client_id
            .or(claims.azp)
            .or_else(|| claims.sub.clone())
            .unwrap_or_else(|| "unnamed".to_owned());
        Ok(Caller {
            client: printable(&client),
            subject: claims.sub.as_deref().map(printable),
        })
    }
}

/// A claim as it goes into a log line: control characters dropped, at most 128 chars.
fn printable(text: &str) -> String {
    text.chars().filter(|c| !c.is_control()).take(128).collect()
}

/// The header's `alg`, read before jsonwebtoken parses it: `none` (and names it does not
/// know) deserve their own refusal rather than a parse error.
fn header_algorithm(token: &str) -> Result<Algorithm, Refused> {
    let malformed = || {
        refused(
            "malformed",
            "not a JWT: expected three base64url parts separated by dots",
        )
    };
    let mut parts = token.split('.');
    let (Some(header), Some(_), Some(_), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(malformed());
    };
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(header.trim_end_matches('='))
        .map_err(|_| malformed())?;
    #[derive(Deserialize)]
    struct Header {
        alg: Option<String>,
    }
    let header: Header = serde_json::from_slice(&bytes).map_err(|_| malformed())?;
    let alg = header.alg.unwrap_or_default();
    if alg.eq_ignore_ascii_case("none") {
        return Err(refused(
            "algorithm",
            "unsigned tokens (alg: none) are never accepted",
        ));
    }
    alg.parse::<Algorithm>().map_err(|_| {
        refused(
            "algorithm",
            format!("the algorithm {alg:?} is not one this server verifies"),
        )
    })
}

fn family_of(alg: Algorithm) -> Option<AlgorithmFamily> {
    [
        AlgorithmFamily::Rsa,
        AlgorithmFamily::Ec,
        AlgorithmFamily::Ed,
    ]
    .into_iter()
    .find(|family| family.algorithms().contains(&alg))
}

fn key(jwk: &Jwk) -> Result<Key, String> {
    let family = match &jwk.algorithm {
        AlgorithmParameters::RSA(_) => AlgorithmFamily::Rsa,
        AlgorithmParameters::EllipticCurve(_) => AlgorithmFamily::Ec,
        AlgorithmParameters::OctetKeyPair(_) => AlgorithmFamily::Ed,
        AlgorithmParameters::OctetKey(_) => {
            return Err(
                "a symmetric (`oct`) key: a resource server verifies with public \
                        keys only; remove it from the set"
                    .to_owned(),
            );
        }
        _ => {
            return Err(
                "a key type this server cannot use (RSA, EC and OKP are supported)".to_owned(),
            );
        }
    };
    let alg = match jwk.common.key_algorithm {
        None => None,
        Some(key_alg) => {
            let name = serde_json::to_value(key_alg)
                .ok()
                .and_then(|value| value.as_str().map(str::to_owned))
                .unwrap_or_default();
            let alg = name
                .parse::<Algorithm>()
                .ok()
                .filter(|alg| family_of(*alg) == Some(family));
            Some(alg.ok_or_else(|| {
                format!("its `alg` {name:?} is not a signature algorithm for this key type")
            })?)
        }
    };
    let key =
        DecodingKey::from_jwk(jwk).map_err(|error| format!("not a usable public key: {error}"))?;
    Ok(Key {
        kid: jwk.common.key_id.clone(),
        alg,
        family,
        key,
    })
}

fn translate(error: &jsonwebtoken::errors::Error) -> Refused {
    use jsonwebtoken::errors::ErrorKind;
    match error.kind() {
        ErrorKind::ExpiredSignature => refused("expired", "the token has expired"),
        ErrorKind::ImmatureSignature => {
            refused("not_yet_valid", "the token is not valid yet (nbf)")
        }
        ErrorKind::InvalidIssuer => refused("issuer", "the token was issued by another issuer"),
        ErrorKind::InvalidAudience => refused(
            "audience",
            "the token's audience is not this server's resource URI",
        ),
        ErrorKind::InvalidSignature => refused("bad_signature", "the signature does not verify"),
        ErrorKind::InvalidAlgorithm => {
            refused("algorithm", "the token's algorithm does not fit the key")
        }
        ErrorKind::MissingRequiredClaim(claim) => refused(
            "malformed",
            format!("the token has no `{}` claim", printable(claim)),
        ),
        ErrorKind::InvalidClaimFormat(claim) => refused(
            "malformed",
            format!("the token's `{}` claim is malformed", printable(claim)),
        ),
        _ => refused("malformed", "the token could not be read as a JWT"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b64(json: &str) -> String {
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(json)
    }

    #[test]
    fn unsigned_and_symmetric_tokens_are_refused_by_their_header() {
        let none = format!("{}.{}.", b64(r#"{"alg":"none"}"#), b64(r#"{"sub":"x"}"#));
        let error = header_algorithm(&none).unwrap_err();
        assert_eq!(error.reason, "algorithm");
        assert!(error.description.contains("alg: none"));
        let hs = format!("{}.{}.sig", b64(r#"{"alg":"HS256"}"#), b64("{}"));
        assert_eq!(family_of(header_algorithm(&hs).unwrap()), None);
        assert_eq!(header_algorithm("abc").unwrap_err().reason, "malformed");
        assert_eq!(header_algorithm("a.b.c.d").unwrap_err().reason, "malformed");
    }

    #[test]
    fn key_sets_are_checked_at_start() {
        let refused = |jwks: &str, source: &str| {
            OAuth::new(jwks, source, "https://idp", "https://r/mcp", vec![], 60).unwrap_err()
        };
        let oct = r#"{"keys":[{"kty":"oct","k":"c2VjcmV0"}]}"#;
        let error = refused(oct, "SKILLPACK_OAUTH_JWKS");
        assert!(error.contains("symmetric"), "{error}");
        let error = refused("{}", "jwks.json");
        assert!(error.contains("jwks.json"), "{error}");
        let error = refused(r#"{"keys":[]}"#, "jwks.json");
        assert!(error.contains("no key"), "{error}");
    }
}
