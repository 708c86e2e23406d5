//! Entrants: people the organiser lets upload and test their own bots, each with a token
//! of their own (shown once; the server keeps its hash), which the organiser can revoke
//! or reissue; and what an entrant may see or do with a bot or a game (their own logs,
//! nobody else's).

use std::sync::Arc;

use axum::Router;
use axum::extract::{Path as UrlPath, State};
use axum::http::StatusCode;
use axum::response::Json;
use axum::routing::{get, post};
use rules::GameKind;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::App;
use crate::auth::{Caller, Organiser, random_token, token_hash};
use crate::error::{ApiError, ApiJson, ApiResult};

type AppState = State<Arc<App>>;

pub fn routes() -> Router<Arc<App>> {
    Router::new()
        .route("/api/entrants", get(list).post(create))
        .route("/api/entrants/{name}", get(entrant))
        .route("/api/entrants/{name}/revoke", post(revoke))
        .route("/api/entrants/{name}/token", post(reissue))
        .route("/api/me", get(me))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NewEntrant {
    name: String,
}

/// An entrant's name: the one rule for names, and 1–32 of `A-Z a-z 0-9 - _`, as a
/// bot's (it is a URL part).
fn check_name(name: &str) -> ApiResult<()> {
    text::check_slug("entrant name", name).map_err(|err| ApiError::bad_request(err.to_string()))
}

async fn create(State(app): AppState, _: Organiser, ApiJson(req): ApiJson<NewEntrant>) -> ApiResult<(StatusCode, Json<Value>)> {
    check_name(&req.name)?;
    let token = random_token();
    if !app.arena.add_entrant(&req.name, &token_hash(&token)).await? {
        return Err(ApiError::conflict(format!("there is already an entrant called {}", req.name)));
    }
    Ok((StatusCode::CREATED, Json(json!({ "name": req.name, "token": token }))))
}

async fn list(State(app): AppState, _: Organiser) -> ApiResult<Json<Value>> {
    let owners = app.arena.owners().await?;
    let list: Vec<Value> = app
        .arena
        .entrants()
        .await?
        .into_iter()
        .map(|e| {
            let bots: Vec<Value> =
                owners.iter().filter(|(_, _, owner)| *owner == e.name).map(|(game, bot, _)| json!({ "game": game, "name": bot })).collect();
            json!({ "name": e.name, "created_ms": e.created_ms, "revoked": e.revoked, "bots": bots })
        })
        .collect();
    Ok(Json(Value::Array(list)))
}

async fn known(app: &App, name: &str) -> ApiResult<store::EntrantRow> {
    app.arena.entrants().await?.into_iter().find(|e| e.name == name).ok_or_else(|| ApiError::not_found(format!("no entrant called {name}")))
}

/// An entrant's public page: their name and bots (current versions).
async fn entrant(State(app): AppState, UrlPath(name): UrlPath<String>) -> ApiResult<Json<Value>> {
    let row = known(&app, &name).await?;
    let mut bots = Vec::new();
    for (game, bot, owner) in app.arena.owners().await? {
        if owner != name {
            continue;
        }
        let Ok(kind) = GameKind::from_name(&game) else { continue };
        if let Ok(Some(version)) = app.submissions.current(kind, &bot) {
            bots.push(json!({
                "game": game, "title": crate::view::game_name(kind), "name": bot, "version": version.version, "uploaded": version.uploaded,
                "entry_check": version.entry_check.as_ref().map(|c| c.summary.clone()),
            }));
        }
    }
    Ok(Json(json!({ "name": row.name, "created_ms": row.created_ms, "revoked": row.revoked, "bots": bots })))
}

async fn revoke(State(app): AppState, _: Organiser, UrlPath(name): UrlPath<String>) -> ApiResult<Json<Value>> {
    known(&app, &name).await?;
    app.arena.revoke(&name).await?;
    Ok(Json(json!({ "name": name, "revoked": true })))
}

async fn reissue(State(app): AppState, _: Organiser, UrlPath(name): UrlPath<String>) -> ApiResult<Json<Value>> {
    known(&app, &name).await?;
    let token = random_token();
    app.arena.reissue(&name, &token_hash(&token)).await?;
    Ok(Json(json!({ "name": name, "token": token })))
}

/// Who the token in the request belongs to.
async fn me(caller: Caller) -> Json<Value> {
    Json(match caller {
        Caller::Organiser => json!({ "role": "organiser" }),
        Caller::Entrant(name) => json!({ "role": "entrant", "name": name }),
        Caller::Anyone => json!({ "role": "anyone" }),
    })
}

/// The owners of a game's two sides, when the sides are registered bots of `kind` that an
/// entrant uploaded (a side is named by its bot, as the testing ground and the ladders
/// name them).
pub async fn side_owners(app: &App, kind: GameKind, names: &[String; 2]) -> ApiResult<[Option<String>; 2]> {
    let bot = |name: &str| name.split_once(" v").map_or(name, |(bot, _)| bot).to_string();
    Ok([app.arena.owner(kind.name(), &bot(&names[0])).await?, app.arena.owner(kind.name(), &bot(&names[1])).await?])
}

/// Which sides' logs `caller` may not see.
pub async fn hidden_sides(app: &App, caller: &Caller, kind: GameKind, names: &[String; 2]) -> ApiResult<[bool; 2]> {
    let owners = side_owners(app, kind, names).await?;
    Ok([!caller.may_see(owners[0].as_deref()), !caller.may_see(owners[1].as_deref())])
}

/// Clears the stderr of the hidden sides in a game document or event (its `turns`, its
/// `turn` and its `startup`).
pub fn strip_logs(value: &mut Value, hidden: [bool; 2]) {
    if !hidden.contains(&true) {
        return;
    }
    let mut strip = |item: &mut Value| {
        let side = item.get("side").and_then(Value::as_u64).unwrap_or(2) as usize;
        if side < 2
            && hidden[side]
            && let Some(object) = item.as_object_mut()
        {
            object.remove("stderr");
            object.remove("stderr_dropped");
            object.insert("log_hidden".into(), Value::Bool(true));
        }
    };
    for list in ["turns", "startup"] {
        if let Some(Value::Array(items)) = value.get_mut(list) {
            items.iter_mut().for_each(&mut strip);
        }
    }
    if let Some(turn) = value.get_mut("turn") {
        strip(turn);
    }
}

/// Refuses `caller` a testing-ground match or human game with a bot an entrant owns,
/// unless the caller is that entrant, owns the other bot of the match, or is the
/// organiser: an entrant tests their own bots against anyone, and nobody else starts
/// games of theirs.
pub async fn check_match(app: &App, caller: &Caller, kind: GameKind, bots: &[&str]) -> ApiResult<()> {
    if *caller == Caller::Organiser {
        return Ok(());
    }
    let mut owners = Vec::new();
    for bot in bots {
        owners.push(app.arena.owner(kind.name(), bot).await?);
    }
    let me = match caller {
        Caller::Entrant(name) => Some(name.as_str()),
        _ => None,
    };
    let owns_one = me.is_some_and(|me| owners.iter().any(|o| o.as_deref() == Some(me)));
    match owners.iter().zip(bots).find(|(owner, _)| owner.is_some()) {
        Some((_, bot)) if !owns_one => Err(ApiError::new(
            StatusCode::FORBIDDEN,
            format!("{bot} belongs to an entrant: only its owner (with their token) or the organiser can start its games"),
        )),
        _ => Ok(()),
    }
}
