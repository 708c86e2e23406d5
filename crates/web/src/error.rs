//! Errors of the HTTP API: every refusal is a status and one clear line, as JSON
//! `{"error": "..."}`; a request that is refused changes nothing.

use axum::Json;
use axum::extract::rejection::JsonRejection;
use axum::extract::{FromRequest, Request};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde::de::DeserializeOwned;

/// A refused or failed request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    pub status: StatusCode,
    pub message: String,
    /// A machine-readable name of the refusal where a client may act on it
    /// (`token-required`), beside the line for people.
    pub code: Option<&'static str>,
}

impl ApiError {
    pub fn new(status: StatusCode, message: impl Into<String>) -> ApiError {
        ApiError { status, message: message.into(), code: None }
    }

    /// A request that needs a token and has none (401, code `token-required`): the
    /// message says whose token, in words for people.
    pub fn token_required(message: impl Into<String>) -> ApiError {
        ApiError { code: Some("token-required"), ..ApiError::new(StatusCode::UNAUTHORIZED, message) }
    }

    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, message)
    }

    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, message)
    }

    pub fn conflict(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::CONFLICT, message)
    }

    pub fn unprocessable(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, message)
    }

    pub fn internal(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, message)
    }
}

#[derive(Serialize)]
struct ErrorBody<'a> {
    error: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    code: Option<&'a str>,
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status, Json(ErrorBody { error: &self.message, code: self.code })).into_response()
    }
}

impl From<store::StoreError> for ApiError {
    fn from(err: store::StoreError) -> ApiError {
        ApiError::internal(crate::hide_paths(&err.to_string()))
    }
}

/// A submission's refusal as its own status (a bad name is 400, an unknown version
/// 404, ...), our failure a 500; never a server path.
impl From<submissions::SubmitError> for ApiError {
    fn from(err: submissions::SubmitError) -> ApiError {
        let status = StatusCode::from_u16(err.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        ApiError::new(status, crate::hide_paths(&err.to_string()))
    }
}

/// A JSON body whose rejection (not JSON, a missing field, a wrong type) is a 400 with
/// serde's explanation, in the API's error shape.
pub struct ApiJson<T>(pub T);

impl<S, T> FromRequest<S> for ApiJson<T>
where
    T: DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        match Json::<T>::from_request(req, state).await {
            Ok(Json(value)) => Ok(ApiJson(value)),
            Err(rejection) => Err(json_rejection(rejection)),
        }
    }
}

fn json_rejection(rejection: JsonRejection) -> ApiError {
    let status = match rejection {
        JsonRejection::MissingJsonContentType(_) => StatusCode::UNSUPPORTED_MEDIA_TYPE,
        // Too large (413), or cut off or stalled past the body timeout (400).
        JsonRejection::BytesRejection(ref bytes) => bytes.status(),
        _ => StatusCode::BAD_REQUEST,
    };
    ApiError::new(status, format!("bad request body: {}", rejection.body_text()))
}

pub type ApiResult<T> = Result<T, ApiError>;
