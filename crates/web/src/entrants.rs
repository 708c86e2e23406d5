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

/// Who to let in: one `name`, a list of `names`, or a `csv` text (one entrant a line,
/// the name in the first column; a first line `name` is a header).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NewEntrants {
    name: Option<String>,
    names: Option<Vec<String>>,
    csv: Option<String>,
}

/// The most entrants one request lets in (a class or a few).
pub const MAX_ENTRANTS_AT_ONCE: usize = 300;

/// The names of a CSV text: the first field of each record (the `csv` crate reads the
/// quoting), blank lines and a `name` header left out.
fn csv_names(text: &str) -> ApiResult<Vec<String>> {
    let mut reader = csv::ReaderBuilder::new().has_headers(false).flexible(true).trim(csv::Trim::All).from_reader(text.as_bytes());
    let mut names = Vec::new();
    for (line, record) in reader.records().enumerate() {
        let record = record.map_err(|err| ApiError::bad_request(format!("csv: line {}: {err}", line + 1)))?;
        let Some(first) = record.get(0).map(|f| f.trim_start_matches('\u{feff}').trim()) else { continue };
        if first.is_empty() || (line == 0 && first.eq_ignore_ascii_case("name")) {
            continue;
        }
        names.push(first.to_string());
    }
    Ok(names)
}

/// An entrant's name: the one rule for names, and 1–32 of `A-Z a-z 0-9 - _`, as a
/// bot's (it is a URL part).
fn check_name(name: &str) -> ApiResult<()> {
    text::check_slug("entrant name", name).map_err(|err| ApiError::bad_request(err.to_string()))
}

/// Lets one entrant in (`{"name"}` → `{name, token}`), or many at once (`{"names"}` or
/// `{"csv"}` → `{"entrants": [{name, token}]}`), all or none: a bad, repeated or taken
/// name refuses the whole request, naming every such name.
async fn create(State(app): AppState, _: Organiser, ApiJson(req): ApiJson<NewEntrants>) -> ApiResult<(StatusCode, Json<Value>)> {
    let (names, one) = match (req.name, req.names, req.csv) {
        (Some(name), None, None) => (vec![name], true),
        (None, Some(names), None) => (names, false),
        (None, None, Some(text)) => (csv_names(&text)?, false),
        _ => return Err(ApiError::bad_request("give one of `name`, `names` (a list) or `csv` (one name a line)")),
    };
    if names.is_empty() {
        return Err(ApiError::bad_request("no names given"));
    }
    if names.len() > MAX_ENTRANTS_AT_ONCE {
        return Err(ApiError::bad_request(format!("{} names: at most {MAX_ENTRANTS_AT_ONCE} in one request", names.len())));
    }
    let mut refused = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for name in &names {
        if let Err(err) = check_name(name) {
            refused.push(err.message);
        } else if !seen.insert(name.as_str()) {
            refused.push(format!("{name} is listed twice"));
        }
    }
    if !refused.is_empty() {
        return Err(ApiError::bad_request(format!("nobody was let in: {}", refused.join("; "))));
    }
    let taken: Vec<String> = app.arena.entrants().await?.into_iter().map(|e| e.name).filter(|n| seen.contains(n.as_str())).collect();
    if !taken.is_empty() {
        let what = if one {
            format!("there is already an entrant called {}", taken[0])
        } else {
            format!("nobody was let in: already entrants: {}", taken.join(", "))
        };
        return Err(ApiError::conflict(what));
    }
    let made: Vec<(String, String)> = names.iter().map(|name| (name.clone(), random_token())).collect();
    let hashed: Vec<(String, String)> = made.iter().map(|(name, token)| (name.clone(), token_hash(token))).collect();
    if !app.arena.add_entrants(&hashed).await? {
        return Err(ApiError::conflict("nobody was let in: a name was taken meanwhile; try again"));
    }
    if one {
        let (name, token) = &made[0];
        return Ok((StatusCode::CREATED, Json(json!({ "name": name, "token": token }))));
    }
    let list: Vec<Value> = made.iter().map(|(name, token)| json!({ "name": name, "token": token })).collect();
    Ok((StatusCode::CREATED, Json(json!({ "entrants": list }))))
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
            let paused = crate::ladders::pauses(&app, kind, &bot).await?;
            bots.push(json!({
                "game": game, "title": crate::view::game_name(kind), "name": bot, "version": version.version, "uploaded": version.uploaded,
                "entry_check": version.entry_check.as_ref().map(|c| c.summary.clone()),
                "passed": version.entry_check.as_ref().map(|c| c.passed),
                "paused": paused,
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
