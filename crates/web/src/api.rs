//! The JSON API under `/api` (documented in `docs/web.md`), which the pages use:
//! tournaments and their live standings, games live and finished, the testing ground,
//! human play, bots, and the organiser's actions.

use std::convert::Infallible;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use axum::Router;
use axum::extract::{Path as UrlPath, Query, State};
use axum::http::StatusCode;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Json, Response};
use axum::routing::{get, post};
use referee::Protocol;
use serde::Deserialize;
use serde_json::{Value, json};
use tokio_stream::wrappers::BroadcastStream;
use tokio_stream::{Stream, StreamExt};
use tournament::TournamentConfig;

use crate::App;
use crate::auth::{Caller, Organiser};
use crate::error::{ApiError, ApiJson, ApiResult};
use crate::games::{self, MoveRequest, PlayRequest, TestRequest};
use crate::live::{GameJson, Origin, Update};
use crate::quota::Client;

type AppState = State<Arc<App>>;

pub fn routes() -> Router<Arc<App>> {
    Router::new()
        .route("/api", get(index))
        .route("/api/rules", get(rules_list))
        .route("/api/bots", get(bots))
        .route("/api/presets", get(presets))
        .route("/api/tournaments", get(tournaments).post(start_tournament))
        .route("/api/tournaments/{id}", get(tournament))
        .route("/api/tournaments/{id}/events", get(tournament_events))
        .route("/api/tournaments/{id}/games", get(tournament_games))
        .route("/api/tournaments/{id}/game", get(tournament_game))
        .route("/api/games", get(games_list))
        .route("/api/games/{id}", get(game))
        .route("/api/games/{id}/events", get(game_events))
        .route("/api/games/{id}/move", post(human_move))
        .route("/api/games/{id}/choices", get(choices))
        .route("/api/test", post(test))
        .route("/api/play", post(play))
        .route("/api/freeze", get(frozen).post(freeze))
        .route("/api/{*rest}", get(unknown).post(unknown))
}

async fn index() -> Json<Value> {
    Json(json!({
        "docs": "docs/web.md",
        "endpoints": [
            "GET /api/rules", "GET /api/bots?game=G", "GET /api/presets",
            "GET /api/tournaments", "POST /api/tournaments (token)", "GET /api/tournaments/{id}",
            "GET /api/tournaments/{id}/events (SSE)", "GET /api/tournaments/{id}/games", "GET /api/tournaments/{id}/game?key=K",
            "GET /api/games", "GET /api/games/{id}", "GET /api/games/{id}/events (SSE)", "POST /api/games/{id}/move",
            "GET /api/games/{id}/choices?partial=P",
            "POST /api/test", "POST /api/play", "GET /api/submissions", "POST /api/submissions[?wait=false] (token)",
            "GET /api/submissions/{game}/{name}", "GET /api/submissions/{game}/{name}/{version}/check", "GET /api/uploads",
            "GET /api/freeze", "POST /api/freeze (token)",
            "GET /api/entrants (token)", "POST /api/entrants (token)", "GET /api/entrants/{name}",
            "POST /api/entrants/{name}/revoke (token)", "POST /api/entrants/{name}/token (token)", "GET /api/me",
            "GET /api/ladders", "POST /api/ladders (token)", "GET /api/ladders/{id}", "GET /api/ladders/{id}/games?before=N&limit=M",
            "POST /api/ladders/{id}/freeze (token)", "GET /api/bots/{game}/{name}",
            "GET /api/workers (token)", "POST /api/workers (token)", "POST /api/workers/{name}/revoke (token)",
            "GET /api/work (worker token)", "POST /api/work/{id}/join (worker token)", "GET /api/work/{id}/tournament (worker token)",
            "GET /api/work/{id}/bundles/{hash} (worker token)", "GET /api/work/{id}/blobs/{hash} (worker token)",
            "GET /api/work/{id}/stages/{stage}/fingerprints (worker token)", "POST /api/work/{id}/claim (worker token)",
            "POST /api/work/{id}/renew (worker token)", "POST /api/work/{id}/give-back (worker token)",
            "POST /api/work/{id}/results (worker token)", "GET /metrics"
        ]
    }))
}

async fn unknown(UrlPath(rest): UrlPath<String>) -> ApiError {
    ApiError::not_found(format!("no API endpoint /api/{rest} (GET /api lists them)"))
}

async fn rules_list() -> Json<Value> {
    let games: Vec<Value> = rules::GameKind::ALL
        .iter()
        .map(|kind| {
            let options: Vec<Value> =
                kind.options().iter().map(|o| json!({ "name": o.name, "default": o.default, "help": o.help })).collect();
            // The game's interfaces: its native ones first, then the project's own.
            let mut protocols: Vec<&Protocol> = Protocol::ALL.iter().filter(|p| p.game() == Some(*kind)).collect();
            protocols.extend(Protocol::ALL.iter().filter(|p| p.game().is_none()));
            json!({
                "name": kind.name(),
                "title": kind.title(),
                "side_names": kind.side_names(),
                "notation": kind.notation(),
                "options": options,
                "protocols": protocols.iter().map(|p| p.name()).collect::<Vec<_>>(),
            })
        })
        .collect();
    Json(Value::Array(games))
}

#[derive(Deserialize)]
struct GameQuery {
    game: Option<String>,
}

async fn bots(State(app): AppState, Query(query): Query<GameQuery>) -> ApiResult<Json<Value>> {
    let kind = match &query.game {
        Some(game) => Some(games::parse_game(game)?),
        None => None,
    };
    // Every built-in player that plays the game asked for (with its default options), or
    // all of them; `perfect` names its game.
    let mut list: Vec<Value> = players::Builtin::ALL
        .iter()
        .filter(|b| kind.is_none_or(|kind| b.rung.plays(kind, &Default::default())))
        .map(|b| {
            let game = b.rung.only().map_or(Value::Null, |only| json!(only.game.name()));
            json!({ "name": b.name(), "kind": "builtin", "game": game })
        })
        .collect();
    list.extend(app.registered_bots(kind));
    Ok(Json(Value::Array(list)))
}

async fn presets(State(app): AppState) -> Json<Value> {
    Json(Value::Array(preset_names(&app).await.into_iter().map(Value::String).collect()))
}

async fn preset_names(app: &App) -> Vec<String> {
    let Some(dir) = app.presets_folder() else { return Vec::new() };
    let mut names: Vec<String> = Vec::new();
    if let Ok(mut entries) = tokio::fs::read_dir(dir).await {
        while let Ok(Some(entry)) = entries.next_entry().await {
            if let Some(name) = entry.file_name().to_str().and_then(|n| n.strip_suffix(".toml")) {
                names.push(name.to_string());
            }
        }
    }
    names.sort();
    names
}

async fn tournaments(State(app): AppState) -> Json<Value> {
    let mut list = Vec::new();
    for t in app.tournaments.all() {
        list.push(serde_json::to_value(t.summary().await).unwrap_or(Value::Null));
    }
    // Files skipped at start, for the organiser to see.
    for bad in app.unreadable.lock().unwrap_or_else(|p| p.into_inner()).iter() {
        list.push(json!({
            "id": unreadable_id(&bad.file), "name": bad.file, "game": "", "status": format!("unreadable: {}", bad.error),
            "games": 0, "file": bad.file,
        }));
    }
    Json(Value::Array(list))
}

/// The id under which a skipped file is listed.
fn unreadable_id(file: &str) -> String {
    crate::tournaments::slug(file.strip_suffix(".db").unwrap_or(file))
}

fn find_tournament(app: &App, id: &str) -> ApiResult<Arc<crate::tournaments::Tournament>> {
    if let Some(t) = app.tournaments.get(id) {
        return Ok(t);
    }
    let unreadable = app.unreadable.lock().unwrap_or_else(|p| p.into_inner());
    match unreadable.iter().find(|bad| unreadable_id(&bad.file) == id) {
        Some(bad) => Err(ApiError::not_found(format!("tournament file {} could not be read at start: {}", bad.file, bad.error))),
        None => Err(ApiError::not_found(format!("no tournament {id:?} (GET /api/tournaments lists them)"))),
    }
}

async fn tournament(State(app): AppState, UrlPath(id): UrlPath<String>) -> ApiResult<Response> {
    let t = find_tournament(&app, &id)?;
    let latest = t.latest().await;
    Ok(([(axum::http::header::CONTENT_TYPE, "application/json")], latest.to_string()).into_response())
}

/// A server-sent event stream: the snapshot first, then every update; a viewer that
/// falls too far behind is dropped (its browser reconnects and gets a new snapshot).
fn event_stream(
    first: Event,
    updates: tokio::sync::broadcast::Receiver<Update>,
) -> Sse<impl Stream<Item = Result<Event, Infallible>> + Send + 'static> {
    let rest = BroadcastStream::new(updates).map_while(|item| item.ok()).map(|(name, data)| Ok(Event::default().event(name).data(&*data)));
    Sse::new(tokio_stream::once(Ok(first)).chain(rest)).keep_alive(KeepAlive::default())
}

async fn tournament_events(State(app): AppState, UrlPath(id): UrlPath<String>) -> ApiResult<impl IntoResponse> {
    let t = find_tournament(&app, &id)?;
    let (snapshot, updates) = t.snapshot_and_subscribe().await;
    Ok(event_stream(Event::default().event("standings").data(&*snapshot), updates))
}

async fn tournament_games(State(app): AppState, UrlPath(id): UrlPath<String>) -> ApiResult<Json<Value>> {
    let t = find_tournament(&app, &id)?;
    Ok(Json(json!({ "finished": t.games().await?, "in_progress": t.in_progress() })))
}

#[derive(Deserialize)]
struct KeyQuery {
    key: Option<String>,
}

async fn tournament_game(
    State(app): AppState,
    caller: Caller,
    UrlPath(id): UrlPath<String>,
    Query(query): Query<KeyQuery>,
) -> ApiResult<Json<Value>> {
    let doc = tournament_game_doc(&app, &id, query).await?;
    Ok(Json(game_for(&app, &caller, doc).await?))
}

async fn tournament_game_doc(app: &App, id: &str, query: KeyQuery) -> ApiResult<GameJson> {
    let id = id.to_string();
    let t = find_tournament(app, &id)?;
    let key = query.key.ok_or_else(|| ApiError::bad_request("missing the game's key (?key=...)"))?;
    if let Some(text) = t.store.game_record(&key).await? {
        let mut record: referee::GameRecord =
            serde_json::from_str(&text).map_err(|err| ApiError::internal(format!("the stored record of {key}: {err}")))?;
        // The record names the bots as they call themselves; the tournament's pages name
        // its entrants (two entrants may share a bot), as the live game did.
        let mut label = None;
        if let Some(line) = t.games().await?.into_iter().find(|g| g.key == key) {
            let stages: Vec<String> = match t.store.tournament().await? {
                Some(row) => TournamentConfig::parse_without_entrants(&row.config_text, "the config")
                    .map(|config| config.stages.iter().map(|s| s.name.clone()).collect())
                    .unwrap_or_default(),
                None => Vec::new(),
            };
            let stage = stages.get(line.stage).cloned().unwrap_or_else(|| format!("stage {}", line.stage + 1));
            label = Some(format!("{stage}, round {}", line.round + 1));
            let [first, second] = line.names;
            record.players[0].name = first;
            record.players[1].name = second;
        }
        let origin = Origin::Tournament { tournament: id.clone(), key: key.clone(), label };
        return GameJson::from_record(format!("{id}:{key}"), &record, Some(origin)).map_err(ApiError::internal);
    }
    let live = t.in_progress().into_iter().find(|g| g.key == key);
    match live.and_then(|g| app.registry.get(&g.live_id)) {
        Some(game) => Ok(game.snapshot()),
        None => Err(ApiError::not_found(format!("tournament {id} has no game {key:?}"))),
    }
}

/// The testing ground's and human play's games, running and finished (the newest 100);
/// ladder games are listed by their ladders (`/api/ladders/{id}/games`), not here.
async fn games_list(State(app): AppState) -> Json<Value> {
    let running: Vec<Value> = app
        .registry
        .running()
        .iter()
        .filter(|g| !matches!(g.origin, Origin::Ladder { .. }))
        .map(|g| json!({ "id": g.id, "game": g.kind.name(), "names": g.names, "origin": g.origin, "live": true }))
        .collect();
    let mut finished: Vec<Value> = Vec::new();
    for id in app.registry.stored_ids().await.into_iter().filter(|id| !id.starts_with(crate::live::LADDER_PREFIX)).take(100) {
        let Some((record, origin)) = app.registry.load_record(&id).await else { continue };
        let names = [record.players[0].name.clone(), record.players[1].name.clone()];
        let result = crate::live::ResultJson::of(&record.result, &names);
        finished.push(json!({ "id": id, "game": record.game, "names": names, "origin": origin, "live": false, "result": result }));
    }
    Json(json!({ "running": running, "finished": finished }))
}

async fn find_game(app: &App, id: &str) -> ApiResult<GameJson> {
    if let Some(game) = app.registry.get(id) {
        return Ok(game.snapshot());
    }
    let (record, origin) = app.registry.load_record(id).await.ok_or_else(|| ApiError::not_found(format!("no game {id:?}")))?;
    GameJson::from_record(id.to_string(), &record, origin).map_err(ApiError::internal)
}

/// A game document as `caller` may see it: the logs of sides played by another
/// entrant's bot are left out.
async fn game_for(app: &App, caller: &Caller, doc: GameJson) -> ApiResult<Value> {
    let kind = games::parse_game(&doc.game)?;
    let hidden = crate::entrants::hidden_sides(app, caller, kind, &doc.names).await?;
    let mut value = serde_json::to_value(&doc).map_err(|e| ApiError::internal(e.to_string()))?;
    crate::entrants::strip_logs(&mut value, hidden);
    Ok(value)
}

async fn game(State(app): AppState, caller: Caller, UrlPath(id): UrlPath<String>) -> ApiResult<Json<Value>> {
    let doc = find_game(&app, &id).await?;
    Ok(Json(game_for(&app, &caller, doc).await?))
}

/// A game's events. A browser's event stream carries no token, so the logs of every
/// side an entrant's bot plays are left out of it, for everyone; the owner reads them
/// with `GET /api/games/{id}` and their token.
async fn game_events(State(app): AppState, UrlPath(id): UrlPath<String>) -> ApiResult<Response> {
    let Some(game) = app.registry.get(&id) else {
        // A finished game: its snapshot is all there is.
        let snapshot = game_for(&app, &Caller::Anyone, find_game(&app, &id).await?).await?;
        let first = Event::default().event("snapshot").data(snapshot.to_string());
        return Ok(Sse::new(tokio_stream::once(Ok::<_, Infallible>(first))).into_response());
    };
    let hidden = crate::entrants::hidden_sides(&app, &Caller::Anyone, game.kind, &game.names).await?;
    let (snapshot, updates) = game.snapshot_and_subscribe();
    let snapshot = game_for(&app, &Caller::Anyone, snapshot).await?;
    let first = Event::default().event("snapshot").data(snapshot.to_string());
    if !hidden.contains(&true) {
        return Ok(event_stream(first, updates).into_response());
    }
    let rest = BroadcastStream::new(updates).map_while(|item| item.ok()).map(move |(name, data)| {
        let data = match serde_json::from_str::<Value>(&data) {
            Ok(mut value) => {
                crate::entrants::strip_logs(&mut value, hidden);
                value.to_string()
            }
            Err(_) => data.to_string(),
        };
        Ok::<_, Infallible>(Event::default().event(name).data(data))
    });
    Ok(Sse::new(tokio_stream::once(Ok(first)).chain(rest)).keep_alive(KeepAlive::default()).into_response())
}

#[derive(Deserialize)]
struct PartialQuery {
    #[serde(default)]
    partial: String,
}

/// What the person of a human game may click next, after the part of the move composed so
/// far (Legions' orders): `{"choices": [cell names]}` ([`rules::Game::choices`]).
async fn choices(State(app): AppState, UrlPath(id): UrlPath<String>, Query(query): Query<PartialQuery>) -> ApiResult<Json<Value>> {
    let game = app.registry.get(&id).filter(|g| g.human.is_some() && !g.finished());
    let game = game.ok_or_else(|| ApiError::not_found(format!("no game {id:?} is being played by a person")))?;
    Ok(Json(json!({ "choices": game.position().choices(&query.partial) })))
}

async fn human_move(State(app): AppState, UrlPath(id): UrlPath<String>, ApiJson(req): ApiJson<MoveRequest>) -> ApiResult<Json<Value>> {
    let kind = app.registry.get(&id).map(|game| game.kind);
    let accepted = games::human_move(&app, &id, req)?;
    // As the move list writes it (Connect Four's "column 4" for `3`), for the page's message.
    let shown = kind.map_or_else(|| accepted.clone(), |kind| kind.move_for_people(&accepted));
    Ok(Json(json!({ "accepted": accepted, "shown": shown })))
}

async fn test(
    State(app): AppState,
    client: Client,
    caller: Caller,
    ApiJson(req): ApiJson<TestRequest>,
) -> ApiResult<(StatusCode, Json<games::Started>)> {
    let kind = games::parse_game(&req.game)?;
    crate::entrants::check_match(&app, &caller, kind, &[&req.bots[0], &req.bots[1]]).await?;
    Ok((StatusCode::CREATED, Json(games::start_match(&app, client, req)?)))
}

async fn play(
    State(app): AppState,
    client: Client,
    caller: Caller,
    ApiJson(req): ApiJson<PlayRequest>,
) -> ApiResult<(StatusCode, Json<games::Started>)> {
    let kind = games::parse_game(&req.game)?;
    crate::entrants::check_match(&app, &caller, kind, &[&req.bot]).await?;
    Ok((StatusCode::CREATED, Json(games::start_human(&app, client, req)?)))
}

async fn frozen(State(app): AppState) -> Json<Value> {
    Json(json!({ "frozen": app.frozen() }))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FreezeRequest {
    frozen: bool,
}

async fn freeze(State(app): AppState, _: Organiser, ApiJson(req): ApiJson<FreezeRequest>) -> Json<Value> {
    app.set_frozen(req.frozen);
    Json(json!({ "frozen": app.frozen() }))
}

/// Starting a tournament: a preset by name or a config's text; the entrants are the
/// config's, the registered bots of the game, or both.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StartTournament {
    pub preset: Option<String>,
    pub config: Option<String>,
    /// `config` (default), `submissions` or `both`.
    #[serde(default)]
    pub entrants: Option<String>,
    /// A ladder whose players (the current version of each bot in it, bosses left out)
    /// are the entrants instead: a contest's final after the ladder is frozen.
    #[serde(default)]
    pub ladder: Option<i64>,
}

async fn start_tournament(
    State(app): AppState,
    _: Organiser,
    ApiJson(req): ApiJson<StartTournament>,
) -> ApiResult<(StatusCode, Json<Value>)> {
    let (text, config_dir) = match (&req.preset, &req.config) {
        (Some(preset), None) => {
            let names = preset_names(&app).await;
            if !names.contains(preset) {
                return Err(ApiError::not_found(format!("no preset {preset:?} (presets: {})", names.join(", "))));
            }
            let dir = app.presets_folder().expect("presets exist").to_path_buf();
            let path = dir.join(format!("{preset}.toml"));
            let text = tokio::fs::read_to_string(&path)
                .await
                .map_err(|err| ApiError::internal(format!("cannot read {}: {err}", path.display())))?;
            (text, dir)
        }
        (None, Some(text)) => (text.clone(), app.tournament_folder()),
        _ => {
            return Err(ApiError::bad_request(
                "give either `preset` (a name from /api/presets) or `config` (a tournament config's TOML text)",
            ));
        }
    };
    let mode = match (&req.ladder, req.entrants.as_deref()) {
        (Some(_), None | Some("ladder")) => "ladder",
        (Some(_), Some(other)) => return Err(ApiError::bad_request(format!("give a ladder or entrants: {other:?}, not both"))),
        (None, mode) => mode.unwrap_or("config"),
    };
    if !matches!(mode, "config" | "submissions" | "both" | "ladder") {
        return Err(ApiError::bad_request(format!("entrants must be config, submissions or both, not {mode:?}")));
    }
    // Errors name the lines of the text as given (the expanded text is re-written).
    let given = if mode == "config" {
        TournamentConfig::parse(&text, "the config")
    } else {
        TournamentConfig::parse_without_entrants(&text, "the config")
    };
    let given = given.map_err(|err| ApiError::bad_request(err.to_string()))?;
    // The entrants as the config names them, so that a refusal quotes its text (the
    // stored config's paths are made absolute below).
    if mode == "config" {
        arena::resolve_entrants(&given, &config_dir, None).map_err(|err| ApiError::bad_request(crate::hide_paths(&err)))?;
    }
    let registered = match req.ladder {
        Some(id) => ladder_entrants(&app, id, given.game).await?,
        None => app.registered_entrants(given.game),
    };
    // Paths are made absolute on the disk: work for a blocking thread.
    let text = {
        let (text, config_dir, mode) = (text.clone(), config_dir.clone(), mode.to_string());
        tokio::task::spawn_blocking(move || expand_config(&text, &config_dir, &mode, registered))
            .await
            .map_err(|err| ApiError::internal(format!("cannot read the config: {err}")))??
    };
    let config = TournamentConfig::parse(&text, "the config").map_err(|err| ApiError::bad_request(err.to_string()))?;
    // The config's paths were made absolute above: the API shows none of them.
    let entrants = arena::resolve_entrants(&config, &config_dir, None).map_err(|err| ApiError::bad_request(crate::hide_paths(&err)))?;
    let folder = app.tournament_folder();
    let _picking = app.starting.lock().await;
    let base = crate::tournaments::slug(&config.name);
    let mut path = folder.join(format!("{base}.db"));
    let mut n = 2;
    while tokio::fs::try_exists(&path).await.unwrap_or(false) {
        path = folder.join(format!("{base}-{n}.db"));
        n += 1;
    }
    let store = store::Store::open(&path).await?;
    let id_base = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or(base);
    let t = app.tournaments.add(&id_base, path, store, true);
    let options = app.tournament_options(config_dir, false);
    t.mark_running(&entrants);
    app.tournaments.spawn_run(&t, config, text, entrants, options, Arc::clone(&app.registry));
    Ok((StatusCode::CREATED, Json(json!({ "id": t.id }))))
}

/// The config as the server stores and runs it: entrants replaced or extended by the
/// registered bots, and every path made absolute, so that the stored text alone can
/// resume the tournament after a restart.
fn expand_config(text: &str, dir: &Path, mode: &str, registered: Vec<(String, PathBuf, String)>) -> ApiResult<String> {
    let mut table: toml::Table = text.parse().map_err(|err: toml::de::Error| ApiError::bad_request(format!("the config: {err}")))?;
    let game = table.get("game").and_then(|g| g.as_str()).ok_or_else(|| ApiError::bad_request("the config: missing `game`"))?;
    let kind = games::parse_game(game)?;
    let absolute = |path: &str| -> String {
        let joined = dir.join(path);
        joined.canonicalize().unwrap_or(joined).to_string_lossy().into_owned()
    };
    if mode == "submissions" || mode == "ladder" {
        table.remove("entrant");
        table.remove("bots");
    }
    if let Some(toml::Value::String(bots)) = table.get_mut("bots") {
        *bots = absolute(bots);
    }
    if let Some(toml::Value::Array(entrants)) = table.get_mut("entrant") {
        for entrant in entrants.iter_mut() {
            if let Some(toml::Value::String(bot)) = entrant.get_mut("bot")
                && !(players::Builtin::is_builtin_name(bot) || bot == "human")
            {
                *bot = absolute(bot);
            }
        }
    }
    if let Some(toml::Value::Array(stages)) = table.get_mut("stage") {
        for stage in stages.iter_mut() {
            if let Some(toml::Value::String(file)) = stage.get_mut("openings").and_then(|o| o.get_mut("file")) {
                *file = absolute(file);
            }
        }
    }
    if mode != "config" {
        if registered.is_empty() && mode != "both" {
            return Err(ApiError::bad_request(format!("no registered {kind} bots yet (POST /api/submissions)")));
        }
        let list = table.entry("entrant").or_insert_with(|| toml::Value::Array(Vec::new()));
        if let toml::Value::Array(list) = list {
            for (name, path, submitted) in registered {
                let mut entrant = toml::Table::new();
                entrant.insert("name".into(), toml::Value::String(name));
                entrant.insert("bot".into(), toml::Value::String(path.to_string_lossy().into_owned()));
                entrant.insert("submitted".into(), toml::Value::String(submitted));
                list.push(toml::Value::Table(entrant));
            }
        }
    }
    toml::to_string(&table).map_err(|err| ApiError::internal(format!("cannot write the config: {err}")))
}

/// The entrants a ladder gives a tournament: its bots (each at the version playing in
/// the ladder), as `registered_entrants` gives them.
async fn ladder_entrants(app: &App, id: i64, kind: rules::GameKind) -> ApiResult<Vec<(String, PathBuf, String)>> {
    let ladder = app.ladders.get(id).ok_or_else(|| ApiError::not_found(format!("there is no ladder {id}")))?;
    if ladder.kind != kind {
        return Err(ApiError::bad_request(format!("ladder {id} plays {}, the config {kind}", ladder.kind)));
    }
    let mut entrants = Vec::new();
    for player in app.arena.players(id).await?.into_iter().filter(|p| p.active && !p.boss) {
        let versions = app.submissions.versions(kind, &player.bot).map_err(ApiError::from)?;
        if let Some(v) = versions.into_iter().find(|v| i64::from(v.version) == player.version) {
            entrants.push((v.name, v.path, v.uploaded));
        }
    }
    Ok(entrants)
}

/// Picks up the tournaments this server started: finished ones are shown, unfinished
/// ones resume where they stopped (every finished game is kept).
pub async fn resume_managed(app: &Arc<App>) -> Result<(), String> {
    let folder = app.tournament_folder();
    let mut files: Vec<PathBuf> = Vec::new();
    let mut entries = tokio::fs::read_dir(&folder).await.map_err(|err| format!("cannot read {}: {err}", folder.display()))?;
    while let Ok(Some(entry)) = entries.next_entry().await {
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "db") {
            files.push(path);
        }
    }
    files.sort();
    for path in files {
        // A file that is not one of our tournaments (corrupt, foreign, unreadable) is
        // skipped with a warning, never a reason not to start.
        let read = async {
            let store = crate::open_tournament_file(&path).await?;
            let Some(row) = store.tournament().await? else { return Ok(None) };
            let decided = store.stage_results().await?.len();
            Ok::<_, store::StoreError>(Some((store, row, decided)))
        };
        let (store, row, decided) = match read.await {
            Ok(Some(read)) => read,
            Ok(None) => continue,
            Err(err) => {
                app.skip_unreadable(&path, &err.to_string());
                continue;
            }
        };
        let id = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let file = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let t = app.tournaments.add(&id, path.clone(), store, true);
        let config = match TournamentConfig::parse(&row.config_text, &file) {
            Ok(config) => config,
            Err(err) => {
                t.fail(err.to_string());
                continue;
            }
        };
        if decided >= config.stages.len() {
            t.mark_finished();
            continue;
        }
        match arena::resolve_entrants(&config, &folder, None) {
            Ok(entrants) => {
                // Another process may still run it (an old server lingering, `arbiter
                // tournament` on the same file): wait for it to let go.
                let options = app.tournament_options(folder.clone(), true);
                t.mark_running(&entrants);
                app.tournaments.spawn_run(&t, config, row.config_text, entrants, options, Arc::clone(&app.registry));
            }
            Err(err) => t.fail(crate::hide_paths(&format!("cannot resume: {err}"))),
        }
    }
    Ok(())
}
