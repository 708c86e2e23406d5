//! The pages and their assets, embedded in the binary (no front-end build step): plain
//! HTML, CSS and JavaScript modules that read the JSON API.

use std::sync::Arc;

use axum::Router;
use axum::extract::Path;
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;

use crate::App;

/// Every asset: its name under `/assets/`, content type and text.
const ASSETS: &[(&str, &str, &str)] = &[
    ("app.css", "text/css; charset=utf-8", include_str!("../assets/app.css")),
    ("app.js", "text/javascript; charset=utf-8", include_str!("../assets/app.js")),
    ("board.js", "text/javascript; charset=utf-8", include_str!("../assets/board.js")),
];

const INDEX: &str = include_str!("../assets/index.html");
const TOURNAMENT: &str = include_str!("../assets/tournament.html");
const GAME: &str = include_str!("../assets/game.html");
const TEST: &str = include_str!("../assets/test.html");
const PLAY: &str = include_str!("../assets/play.html");
const SUBMIT: &str = include_str!("../assets/submit.html");

pub fn routes() -> Router<Arc<App>> {
    Router::new()
        .route("/", get(|| async { Html(INDEX) }))
        .route("/tournaments/{id}", get(|| async { Html(TOURNAMENT) }))
        .route("/tournaments/{id}/game", get(|| async { Html(GAME) }))
        .route("/games/{id}", get(|| async { Html(GAME) }))
        .route("/test", get(|| async { Html(TEST) }))
        .route("/play", get(|| async { Html(PLAY) }))
        .route("/submit", get(|| async { Html(SUBMIT) }))
        .route("/assets/{name}", get(asset))
}

async fn asset(Path(name): Path<String>) -> Response {
    match ASSETS.iter().find(|(n, _, _)| *n == name) {
        Some((_, kind, body)) => ([(header::CONTENT_TYPE, *kind), (header::CACHE_CONTROL, "no-cache")], *body).into_response(),
        None => (StatusCode::NOT_FOUND, format!("no asset {name}")).into_response(),
    }
}
