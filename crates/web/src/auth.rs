//! The organiser's token: actions that change what the server runs or holds (starting
//! a tournament, freezing submissions, uploads) need it as `Authorization: Bearer
//! TOKEN`; viewing needs nothing.

use axum::extract::FromRequestParts;
use axum::http::StatusCode;
use axum::http::request::Parts;
use std::io::Read;

use crate::error::ApiError;

/// A random token of 32 hex digits (128 bits from the kernel's generator).
pub fn random_token() -> String {
    let mut bytes = [0u8; 16];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .expect("the kernel's random generator /dev/urandom is readable");
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Compares two secrets in time that does not depend on where they differ.
pub fn same(given: &str, expected: &str) -> bool {
    let (a, b) = (given.as_bytes(), expected.as_bytes());
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
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
            None => Err(ApiError::new(
                StatusCode::UNAUTHORIZED,
                "this needs the organiser's token (header `Authorization: Bearer TOKEN`; `arbiter serve` printed it at start)",
            )),
        }
    }
}
