//! The pages and their assets, embedded in the binary (no front-end build step): plain
//! HTML, CSS and JavaScript modules that read the JSON API; and the Content-Security-
//! Policy that lets in exactly their scripts.

use std::sync::{Arc, OnceLock};

use axum::Router;
use axum::extract::Path;
use axum::http::header;
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;

use crate::App;

/// Every asset: its name under `/assets/`, content type and text.
const ASSETS: &[(&str, &str, &str)] = &[
    ("app.css", "text/css; charset=utf-8", include_str!("../assets/app.css")),
    ("app.js", "text/javascript; charset=utf-8", include_str!("../assets/app.js")),
    ("board.js", "text/javascript; charset=utf-8", include_str!("../assets/board.js")),
    ("favicon.svg", "image/svg+xml", include_str!("../assets/favicon.svg")),
];

const INDEX: &str = include_str!("../assets/index.html");
const TOURNAMENT: &str = include_str!("../assets/tournament.html");
const GAME: &str = include_str!("../assets/game.html");
const TEST: &str = include_str!("../assets/test.html");
const PLAY: &str = include_str!("../assets/play.html");
const SUBMIT: &str = include_str!("../assets/submit.html");
const ENTRANTS: &str = include_str!("../assets/entrants.html");
const ENTRANT: &str = include_str!("../assets/entrant.html");
const LADDERS: &str = include_str!("../assets/ladders.html");
const LADDER: &str = include_str!("../assets/ladder.html");
const BOT: &str = include_str!("../assets/bot.html");
const WORKERS: &str = include_str!("../assets/workers.html");
/// The page of an address that is no page (no script).
pub const NOT_FOUND: &str = include_str!("../assets/notfound.html");

/// Every page with a script.
const PAGES: &[&str] = &[INDEX, TOURNAMENT, GAME, TEST, PLAY, SUBMIT, ENTRANTS, ENTRANT, LADDERS, LADDER, BOT, WORKERS];

pub fn routes() -> Router<Arc<App>> {
    Router::new()
        .route("/", get(|| async { Html(INDEX) }))
        .route("/tournaments/{id}", get(|| async { Html(TOURNAMENT) }))
        .route("/tournaments/{id}/game", get(|| async { Html(GAME) }))
        .route("/games/{id}", get(|| async { Html(GAME) }))
        .route("/test", get(|| async { Html(TEST) }))
        .route("/play", get(|| async { Html(PLAY) }))
        .route("/submit", get(|| async { Html(SUBMIT) }))
        .route("/entrants", get(|| async { Html(ENTRANTS) }))
        .route("/entrants/{name}", get(|| async { Html(ENTRANT) }))
        .route("/ladders", get(|| async { Html(LADDERS) }))
        .route("/ladders/{id}", get(|| async { Html(LADDER) }))
        .route("/bots/{game}/{name}", get(|| async { Html(BOT) }))
        .route("/workers", get(|| async { Html(WORKERS) }))
        .route("/favicon.ico", get(|| async { asset(Path("favicon.svg".to_string())).await }))
        .route("/assets/{name}", get(asset))
}

async fn asset(Path(name): Path<String>) -> Response {
    match ASSETS.iter().find(|(n, _, _)| *n == name) {
        Some((_, kind, body)) => ([(header::CONTENT_TYPE, *kind), (header::CACHE_CONTROL, "no-cache")], *body).into_response(),
        None => crate::error::ApiError::not_found(format!("no asset {name}")).into_response(),
    }
}

/// The Content-Security-Policy of every response: scripts only from this server's
/// `/assets/` and the pages' own inline scripts (by their SHA-256), no plugins, no
/// framing, requests only to this server. Inline `style` attributes stay allowed (the
/// pages set a few; a style cannot run code).
pub fn content_security_policy() -> &'static str {
    static POLICY: OnceLock<String> = OnceLock::new();
    POLICY.get_or_init(|| {
        let hashes: Vec<String> =
            PAGES.iter().flat_map(|page| inline_scripts(page)).map(|script| format!("'sha256-{}'", sha256_base64(script))).collect();
        format!(
            "default-src 'none'; script-src 'self' {}; style-src 'self' 'unsafe-inline'; img-src 'self' data:; \
             connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
            hashes.join(" ")
        )
    })
}

/// The text of every inline `<script>` of a page (those without `src`).
fn inline_scripts(page: &str) -> Vec<&str> {
    let mut scripts = Vec::new();
    let mut rest = page;
    while let Some(open) = rest.find("<script") {
        let Some(tag_end) = rest[open..].find('>').map(|end| open + end) else { break };
        let tag = &rest[open..tag_end];
        let Some(close) = rest[tag_end..].find("</script>").map(|end| tag_end + end) else { break };
        if !tag.contains("src=") {
            scripts.push(&rest[tag_end + 1..close]);
        }
        rest = &rest[close..];
    }
    scripts
}

fn sha256_base64(text: &str) -> String {
    use base64::Engine;
    use sha2::Digest;
    base64::engine::general_purpose::STANDARD.encode(sha2::Sha256::digest(text.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_page_has_its_inline_script_hashed_in_the_policy() {
        for page in PAGES {
            let scripts = inline_scripts(page);
            assert_eq!(scripts.len(), 1, "each page has one inline module script");
            assert!(content_security_policy().contains(&sha256_base64(scripts[0])));
        }
        assert_eq!(inline_scripts("<script src=\"/a.js\"></script><script>x()</script>"), ["x()"]);
    }
}
