//! A request's record as it passes the layers of the MCP path: who called ([`Identity`],
//! written by [`super::auth`]) and what the request did ([`Note`], filled in by
//! [`super::observe`] and written out by [`super::metrics`] and [`super::access_log`]).
//! A leaf: the layers that fill the note in and the ones that read it depend on it, and it
//! on none of them.

use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The metrics label of callers of a server that asks for no credential.
pub const ANONYMOUS_LABEL: &str = "anonymous";

/// Who made a request, once authenticated.
#[derive(Debug, Clone)]
pub struct Identity {
    /// The metrics label: a configured client name, `shared` or `oauth`.
    pub label: &'static str,
    /// The name for the access log: the client name, or the token's client id.
    pub client: String,
    /// The JWT's subject, when there is one.
    pub subject: Option<String>,
    /// `token` or `jwt`.
    pub kind: &'static str,
}

/// What one request did, filled in as it passes the layers.
#[derive(Debug, Default)]
pub struct Note {
    /// `POST` (a message), `GET` (a stream a stateless server does not offer), `DELETE`…
    pub http_method: &'static str,
    pub identity: Option<Identity>,
    pub auth_failure: Option<&'static str>,
    pub method: Option<&'static str>,
    pub tool: Option<&'static str>,
    pub uri: Option<String>,
    pub query: Option<String>,
    pub rpc_id: Option<String>,
    pub traceparent: Option<String>,
    pub error: Option<&'static str>,
    pub search: Option<Duration>,
}

/// A request's [`Note`], shared between the layers it passes.
#[derive(Debug, Clone, Default)]
pub struct NoteHandle(Arc<Mutex<Note>>);

impl NoteHandle {
    pub(super) fn with(&self, change: impl FnOnce(&mut Note)) {
        // A poisoned note only loses one request's record; never panic over it.
        if let Ok(mut note) = self.0.lock() {
            change(&mut note);
        }
    }

    pub fn set_identity(&self, identity: &Identity) {
        self.with(|note| note.identity = Some(identity.clone()));
    }

    pub fn set_auth_failure(&self, reason: &'static str) {
        self.with(|note| note.auth_failure = Some(reason));
    }

    pub(super) fn take(&self) -> Note {
        self.0
            .lock()
            .map(|mut note| std::mem::take(&mut *note))
            .unwrap_or_default()
    }
}
