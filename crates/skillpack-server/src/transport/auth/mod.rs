//! Who may call the MCP path, and who they are.
//!
//! Three kinds of credential, any of them together, each an `Authorization: Bearer …`:
//!
//! - the shared secret `SKILLPACK_AUTH_TOKEN` (client name `shared`), and named client
//!   tokens, given as digests in `SKILLPACK_CLIENT_TOKENS` ([`tokens`]);
//! - OAuth 2.1 access tokens (JWTs) from the estate's identity provider, checked against
//!   a JWKS given at start ([`jwt`]); this server is then an OAuth resource server and
//!   publishes RFC 9728 metadata ([`metadata`]).
//!
//! A static token is tried first (a digest lookup); anything else is read as a JWT when
//! OAuth is configured. The caller's identity goes into the request's extensions and the
//! request's [`super::observe::NoteHandle`], for the access log and metrics. Refusals are
//! `401` with a `WWW-Authenticate` challenge — with `resource_metadata` when OAuth is on,
//! as the MCP authorization specification requires — or `403 insufficient_scope`.

pub mod jwt;
pub mod metadata;
pub mod tokens;

use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::note::NoteHandle;
pub use super::note::{ANONYMOUS_LABEL, Identity};

/// The metrics label of OAuth callers: their `client_id`s are the provider's to choose,
/// so they appear in the access log only, never as labels (cardinality stays bounded).
pub const OAUTH_LABEL: &str = "oauth";
/// Everything the server accepts, validated at start.
#[derive(Debug, Default)]
pub struct Auth {
    pub tokens: Option<tokens::Tokens>,
    pub oauth: Option<OAuthServer>,
}

#[derive(Debug)]
pub struct OAuthServer {
    pub validator: jwt::OAuth,
    pub metadata: metadata::ResourceMetadata,
}

impl Auth {
    pub fn is_enabled(&self) -> bool {
        self.tokens.is_some() || self.oauth.is_some()
    }

    /// What the start-up log says about credentials.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(tokens) = &self.tokens {
            let (count, clients) = tokens.counts();
            parts.push(format!("{count} bearer token(s) for {clients} client(s)"));
        }
        if let Some(oauth) = &self.oauth {
            parts.push(format!(
                "OAuth access tokens from {} for {} ({} key(s))",
                oauth.validator.issuer,
                oauth.validator.resource,
                oauth.validator.key_count()
            ));
        }
        if parts.is_empty() {
            "none".to_owned()
        } else {
            parts.join(" and ")
        }
    }

    fn check(&self, presented: Option<&str>) -> Result<Identity, Refusal> {
        let Some(credentials) = presented else {
            return Err(self.refusal("missing", None));
        };
        if let Some(name) = self.tokens.as_ref().and_then(|t| t.accepts(credentials)) {
            return Ok(Identity {
                label: name,
                client: name.to_owned(),
                subject: None,
                kind: "token",
            });
        }
        let Some(oauth) = &self.oauth else {
            return Err(self.refusal("unknown_token", None));
        };
        match oauth.validator.check(credentials) {
            Ok(caller) => Ok(Identity {
                label: OAUTH_LABEL,
                client: caller.client,
                subject: caller.subject,
                kind: "jwt",
            }),
            // A static token mistyped is not a malformed JWT: say what the server expects.
            Err(refused) if refused.reason == "malformed" && self.tokens.is_some() => {
                Err(self.refusal("unknown_token", Some(refused.description)))
            }
            Err(refused) => Err(self.refusal(refused.reason, Some(refused.description))),
        }
    }

    fn refusal(&self, reason: &'static str, detail: Option<String>) -> Refusal {
        let oauth = self.oauth.as_ref();
        let mut params: Vec<String> = Vec::new();
        let status = if reason == "insufficient_scope" {
            StatusCode::FORBIDDEN
        } else {
            StatusCode::UNAUTHORIZED
        };
        if reason != "missing" {
            let error = if reason == "insufficient_scope" {
                "insufficient_scope"
            } else {
                "invalid_token"
            };
            params.push(format!("error=\"{error}\""));
            let description = detail
                .clone()
                .unwrap_or_else(|| "the bearer token is not valid for this server".to_owned());
            params.push(format!(
                "error_description=\"{}\"",
                description.replace(['"', '\\'], "'")
            ));
        }
        match oauth {
            Some(oauth) => {
                params.push(format!("resource_metadata=\"{}\"", oauth.metadata.url));
                if !oauth.validator.scopes.is_empty() {
                    params.push(format!("scope=\"{}\"", oauth.validator.scopes.join(" ")));
                }
            }
            None => params.insert(0, "realm=\"skillpack\"".to_owned()),
        }
        let challenge = format!("Bearer {}", params.join(", "));
        let message = match (reason, oauth) {
            ("missing", Some(oauth)) => format!(
                "Unauthorized: this server requires `Authorization: Bearer <token>`: an OAuth \
                 access token from {} (see {}){}\n",
                oauth.validator.issuer,
                oauth.metadata.url,
                if self.tokens.is_some() {
                    ", or a client token"
                } else {
                    ""
                }
            ),
            ("missing", None) => "Unauthorized: this server requires `Authorization: Bearer \
                                  <token>` (the value of SKILLPACK_AUTH_TOKEN, or your client \
                                  token)\n"
                .to_owned(),
            (_, _) if status == StatusCode::FORBIDDEN => format!(
                "Forbidden: {}\n",
                detail.unwrap_or_else(|| "insufficient scope".to_owned())
            ),
            (_, _) => format!(
                "Unauthorized: {}\n",
                detail
                    .unwrap_or_else(|| "the bearer token is not valid for this server".to_owned())
            ),
        };
        Refusal {
            status,
            reason,
            challenge,
            message,
        }
    }
}

/// Why a request was refused, as HTTP.
struct Refusal {
    status: StatusCode,
    reason: &'static str,
    challenge: String,
    message: String,
}

impl Refusal {
    fn into_response(self) -> Response {
        let mut response = (self.status, self.message).into_response();
        if let Ok(value) = HeaderValue::from_str(&self.challenge) {
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, value);
        }
        response
    }
}

/// The middleware on the MCP path: authenticate, or refuse before any body is read.
pub async fn require(
    State(auth): State<Arc<Auth>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    mut request: Request,
    next: Next,
) -> Response {
    let presented = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.split_once(' '))
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
        .map(|(_, credentials)| credentials.trim());
    let note = request.extensions().get::<NoteHandle>().cloned();
    match auth.check(presented) {
        Ok(identity) => {
            if let Some(note) = &note {
                note.set_identity(&identity);
            }
            request.extensions_mut().insert(identity);
            next.run(request).await
        }
        Err(refusal) => {
            if refusal.reason == "missing" {
                tracing::warn!(%peer, "rejected a request without a bearer token");
            } else {
                tracing::warn!(%peer, reason = refusal.reason, "rejected a request with a wrong bearer token");
            }
            if let Some(note) = &note {
                note.set_auth_failure(refusal.reason);
            }
            refusal.into_response()
        }
    }
}

/// `GET` on the RFC 9728 well-known paths.
pub fn metadata_routes(oauth: &OAuthServer) -> axum::Router {
    let mut router = axum::Router::new();
    for path in &oauth.metadata.paths {
        let document = oauth.metadata.document.clone();
        router = router.route(
            path,
            axum::routing::get(move || async move {
                (
                    [
                        (header::CONTENT_TYPE, "application/json"),
                        (header::CACHE_CONTROL, "public, max-age=3600"),
                    ],
                    document,
                )
            }),
        );
    }
    router
}
