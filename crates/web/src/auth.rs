//! The organiser's token: actions that change what the server runs or holds (starting
//! a tournament, freezing submissions, uploads) need it as `Authorization: Bearer
//! TOKEN`; viewing needs nothing.

use axum::extract::FromRequestParts;
use axum::http::StatusCode;
use axum::http::request::Parts;

use crate::error::ApiError;

/// A random token of 32 hex digits (128 bits from the kernel's generator).
pub fn random_token() -> String {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).expect("the kernel's random generator answers");
    hex::encode(bytes)
}

/// Compares two secrets in time that does not depend on where they differ.
pub fn same(given: &str, expected: &str) -> bool {
    use subtle::ConstantTimeEq;
    bool::from(given.as_bytes().ct_eq(expected.as_bytes()))
}

/// Proof that the request carries the organiser's token.
pub struct Organiser;

/// The expected token, as the router's state gives it.
pub trait HasToken {
    fn token(&self) -> &str;
}

impl<S: HasToken + Send + Sync> FromRequestParts<S> for Organiser {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let header = parts.headers.get(axum::http::header::AUTHORIZATION).and_then(|v| v.to_str().ok());
        match header.and_then(|h| h.strip_prefix("Bearer ")) {
            Some(token) if same(token.trim(), state.token()) => Ok(Organiser),
            Some(_) => Err(ApiError::new(StatusCode::FORBIDDEN, "wrong organiser token")),
            None => {
                Err(ApiError::token_required("sign in with the organiser's token to do this (`arbiter serve` printed it when it started)"))
            }
        }
    }
}

/// The hash under which an entrant's token is stored (SHA-256, hex): the token itself is
/// shown once and kept nowhere on the server.
pub fn token_hash(token: &str) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(token.as_bytes()))
}

/// Who sends a request: the organiser, an entrant (by the token the organiser gave
/// them), or anyone (no token). A token that is neither is refused (403), so a revoked
/// or mistyped token never passes for "anyone".
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Caller {
    Organiser,
    Entrant(String),
    Anyone,
}

impl Caller {
    /// Whether this caller may see what `owner` (an entrant, or nobody) keeps private: the
    /// owner and the organiser may; anything unowned is public.
    pub fn may_see(&self, owner: Option<&str>) -> bool {
        match (self, owner) {
            (_, None) | (Caller::Organiser, _) => true,
            (Caller::Entrant(me), Some(owner)) => me == owner,
            (Caller::Anyone, Some(_)) => false,
        }
    }
}

impl FromRequestParts<std::sync::Arc<crate::App>> for Caller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, app: &std::sync::Arc<crate::App>) -> Result<Self, Self::Rejection> {
        let header = parts.headers.get(axum::http::header::AUTHORIZATION).and_then(|v| v.to_str().ok());
        let Some(token) = header.and_then(|h| h.strip_prefix("Bearer ")).map(str::trim) else {
            return Ok(Caller::Anyone);
        };
        if same(token, &app.config.token) {
            return Ok(Caller::Organiser);
        }
        match app.arena.entrant_by_token(&token_hash(token)).await? {
            Some(name) => Ok(Caller::Entrant(name)),
            None => Err(ApiError::new(StatusCode::FORBIDDEN, "this token is not valid: mistyped, or revoked by the organiser")),
        }
    }
}
