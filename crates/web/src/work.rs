//! The HTTP workers' API under `/api/work` (`arbiter worker --server URL --token T`),
//! the organiser's worker tokens (`/api/workers`) and the Prometheus `/metrics`.
//!
//! A worker proves who it is with its own token (`Authorization: Bearer TOKEN`; only the
//! token's SHA-256 is kept, in `arena.db`) and never holds the database: the server
//! carries out its lease, renewal and store on the tournament's database with the
//! planner every database worker runs (`arena::shared::Planner`), so the guarantees are
//! the same (a lease in the database's clock, fenced stores, played once). A worker's
//! id in the queue starts with its name and a `/`: a call about a lease whose holder is
//! not the caller is refused. Every reported record is checked against the rules before
//! it is stored; a refused one is counted against its worker and its game goes back to
//! the queue. Bots' files reach the worker by content hash only.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::{FromRequestParts, Path as UrlPath, State};
use axum::http::request::Parts;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Json, Response};
use axum::routing::{get, post};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::App;
use crate::auth::{Organiser, token_hash};
use crate::error::{ApiError, ApiJson, ApiResult};

type AppState = State<Arc<App>>;

/// The code of a refused worker token, which `arbiter worker` stops on.
pub const TOKEN_REFUSED: &str = "worker-token-refused";

/// The most games one claim leases.
const MAX_CLAIM: usize = 16;

/// The most leases or results one call names.
const MAX_BATCH: usize = 256;

/// A worker that called within this long counts as active (`arbiter_workers_active`).
const ACTIVE_WITHIN_MS: i64 = 60_000;

pub fn routes() -> Router<Arc<App>> {
    Router::new()
        .route("/api/work", get(open_tournaments))
        .route("/api/work/{id}/join", post(join))
        .route("/api/work/{id}/tournament", get(tournament))
        .route("/api/work/{id}/bundles/{hash}", get(bundle))
        .route("/api/work/{id}/blobs/{hash}", get(blob))
        .route("/api/work/{id}/stages/{stage}/fingerprints", get(fingerprints))
        .route("/api/work/{id}/claim", post(claim))
        .route("/api/work/{id}/renew", post(renew))
        .route("/api/work/{id}/give-back", post(give_back))
        .route("/api/work/{id}/results", post(results))
        .route("/api/workers", get(list_workers).post(add_worker))
        .route("/api/workers/{name}/revoke", post(revoke_worker))
        .route("/metrics", get(metrics))
}

/// The planners of the tournaments HTTP workers play, opened on first use.
#[derive(Default)]
pub struct Work {
    planners: tokio::sync::Mutex<HashMap<String, Arc<arena::shared::Planner>>>,
}

/// Proof that the request carries a working (not revoked) worker token: the worker's
/// name.
pub struct WorkerCaller(pub String);

impl FromRequestParts<Arc<App>> for WorkerCaller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, app: &Arc<App>) -> Result<Self, Self::Rejection> {
        let header = parts.headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok());
        let Some(token) = header.and_then(|h| h.strip_prefix("Bearer ")).map(str::trim) else {
            return Err(ApiError::token_required("a worker needs its token (`arbiter workers add NAME` makes one)"));
        };
        match app.arena.worker_by_token(&token_hash(token)).await? {
            Some(name) => {
                let host =
                    parts.headers.get("x-arbiter-host").and_then(|v| v.to_str().ok()).map(|h| h.chars().take(200).collect::<String>());
                app.arena.worker_seen(&name, host.as_deref()).await?;
                Ok(WorkerCaller(name))
            }
            None => Err(ApiError {
                code: Some(TOKEN_REFUSED),
                ..ApiError::new(StatusCode::FORBIDDEN, "the server refused this worker's token (revoked or unknown)")
            }),
        }
    }
}

/// The tournaments HTTP workers may play: those the server shows that were recorded for
/// workers (`arbiter tournament CONFIG --db FILE|URL --for-workers`).
async fn open_tournaments(State(app): AppState, _worker: WorkerCaller) -> ApiResult<Json<Value>> {
    let mut open = Vec::new();
    for t in app.tournaments.all() {
        if arena::shared::is_for_workers(&t.store).await.unwrap_or(false) {
            let name = t.store.tournament().await?.map(|row| row.name).unwrap_or_default();
            open.push(json!({ "id": t.id, "name": name }));
        }
    }
    Ok(Json(json!({ "tournaments": open })))
}

/// The planner of tournament `id`, opened on first use (its bots unpacked into the data
/// folder's `cache/`).
async fn planner(app: &Arc<App>, id: &str) -> ApiResult<Arc<arena::shared::Planner>> {
    let mut planners = app.work.planners.lock().await;
    if let Some(planner) = planners.get(id) {
        return Ok(Arc::clone(planner));
    }
    let t = app.tournaments.get(id).ok_or_else(|| ApiError::not_found(format!("no tournament {id:?} (GET /api/work lists them)")))?;
    if !arena::shared::is_for_workers(&t.store).await.map_err(arena_error)? {
        return Err(ApiError::conflict(format!(
            "tournament {id:?} was not recorded for workers: record it with `arbiter tournament CONFIG --db FILE|URL --for-workers`"
        )));
    }
    // A PostgreSQL tournament is shown through a read-only store: the queue needs one
    // that writes.
    let store = match t.store.location() {
        store::Location::File(_) => t.store.clone(),
        location @ store::Location::Postgres(_) => store::Store::open_at(location, 16).await?,
    };
    let (events, _) = tokio::sync::mpsc::unbounded_channel();
    let cache = app.config.data.join("cache");
    let planner = arena::shared::Planner::open(&store, &cache, app.sandboxed(), false, &mut |_| {}, events).await.map_err(arena_error)?;
    let planner = Arc::new(planner);
    planners.insert(id.to_string(), Arc::clone(&planner));
    Ok(planner)
}

fn arena_error(error: arena::ArenaError) -> ApiError {
    if error.is_transient() {
        ApiError::new(StatusCode::SERVICE_UNAVAILABLE, crate::hide_paths(&error.to_string()))
    } else {
        ApiError::internal(crate::hide_paths(&error.to_string()))
    }
}

/// Who a worker process says it is when it joins.
#[derive(Deserialize)]
struct JoinRequest {
    host: String,
    pid: u32,
    version: String,
    sandbox: String,
}

async fn join(
    State(app): AppState,
    WorkerCaller(name): WorkerCaller,
    UrlPath(id): UrlPath<String>,
    ApiJson(request): ApiJson<JoinRequest>,
) -> ApiResult<Json<Value>> {
    let planner = planner(&app, &id).await?;
    let clip = |text: &str| text.chars().filter(|c| !c.is_control()).take(200).collect::<String>();
    let info =
        store::WorkerInfo { host: clip(&request.host), pid: request.pid, version: clip(&request.version), sandbox: clip(&request.sandbox) };
    let worker = planner.store().register_worker_as(&format!("{name}/"), &info).await?;
    Ok(Json(json!({ "worker": worker })))
}

/// The tournament as a worker needs it: the config's text, the entrants (baselines
/// included) with the hash of each one's files, and the hash of the files the config
/// reads; never a server path.
async fn tournament(State(app): AppState, _worker: WorkerCaller, UrlPath(id): UrlPath<String>) -> ApiResult<Json<Value>> {
    let planner = planner(&app, &id).await?;
    let store = planner.store();
    let row = store.tournament().await?.ok_or_else(|| ApiError::not_found("the tournament is not recorded yet"))?;
    let mut entrants = Vec::new();
    for entrant in planner.tournament().entrants() {
        let files = store.bundle(&format!("entrant:{}", entrant.id)).await?.map(|(hash, _)| hash);
        // A program's path is the server's own business: a worker gets its files' hash.
        let bot = if files.is_some() { String::new() } else { entrant.bot.clone() };
        entrants.push(json!({ "id": entrant.id, "name": entrant.name, "bot": bot, "files": files }));
    }
    let config_files = store.bundle("config").await?.map(|(hash, _)| hash);
    Ok(Json(json!({ "name": row.name, "config": row.config_text, "entrants": entrants, "config_files": config_files })))
}

/// A bundle's list (JSON) by its hash: the worker checks that it hashes to it.
async fn bundle(State(app): AppState, _worker: WorkerCaller, UrlPath((id, hash)): UrlPath<(String, String)>) -> ApiResult<Response> {
    let planner = planner(&app, &id).await?;
    let files = planner.store().bundle_by_hash(&hash).await?.ok_or_else(|| ApiError::not_found(format!("no bundle {hash}")))?;
    Ok(([(header::CONTENT_TYPE, "application/json")], files).into_response())
}

/// A file's content by its SHA-256: the worker checks that it hashes to it.
async fn blob(State(app): AppState, _worker: WorkerCaller, UrlPath((id, hash)): UrlPath<(String, String)>) -> ApiResult<Response> {
    let planner = planner(&app, &id).await?;
    let content = planner.store().blob(&hash).await?.ok_or_else(|| ApiError::not_found(format!("no file {hash}")))?;
    Ok(([(header::CONTENT_TYPE, "application/octet-stream")], content).into_response())
}

async fn fingerprints(
    State(app): AppState,
    _worker: WorkerCaller,
    UrlPath((id, stage)): UrlPath<(String, usize)>,
) -> ApiResult<Json<Value>> {
    let planner = planner(&app, &id).await?;
    Ok(Json(json!({ "fingerprints": planner.store().fingerprints(stage).await? })))
}

/// The caller's own worker id (from its join), refused when it is another worker's.
fn own(name: &str, worker: &str) -> ApiResult<()> {
    match worker.strip_prefix(name).and_then(|rest| rest.strip_prefix('/')) {
        Some(_) => Ok(()),
        None => Err(ApiError::new(StatusCode::FORBIDDEN, format!("worker {worker:?} is not this token's (its ids start with {name}/)"))),
    }
}

/// A lease's length as a worker asks for it, within 0.3 s and 10 minutes.
fn lease_length(seconds: f64) -> ApiResult<Duration> {
    if !(seconds.is_finite() && (0.3..=600.0).contains(&seconds)) {
        return Err(ApiError::bad_request("lease_seconds must be between 0.3 and 600"));
    }
    Ok(Duration::from_secs_f64(seconds))
}

#[derive(Deserialize)]
struct ClaimRequest {
    worker: String,
    lease_seconds: f64,
    #[serde(default = "one")]
    count: usize,
}

fn one() -> usize {
    1
}

/// A leased game as a worker gets it.
#[derive(Serialize, Deserialize)]
pub struct LeaseJson {
    pub key: String,
    pub attempt: i64,
    pub spec: tournament::GameSpec,
}

async fn claim(
    State(app): AppState,
    WorkerCaller(name): WorkerCaller,
    UrlPath(id): UrlPath<String>,
    ApiJson(request): ApiJson<ClaimRequest>,
) -> ApiResult<Json<Value>> {
    own(&name, &request.worker)?;
    let length = lease_length(request.lease_seconds)?;
    let planner = planner(&app, &id).await?;
    let mut games = Vec::new();
    let mut state = "open";
    for _ in 0..request.count.clamp(1, MAX_CLAIM) {
        match planner.claim(&request.worker, length).await.map_err(arena_error)? {
            arena::shared::Claim::Game(lease) => {
                games.push(LeaseJson { key: lease.spec.key.clone(), attempt: lease.attempt, spec: lease.spec })
            }
            arena::shared::Claim::Wait => break,
            arena::shared::Claim::Decided => {
                state = "decided";
                break;
            }
        }
    }
    Ok(Json(json!({ "games": games, "state": state })))
}

/// A lease a worker names: its game and attempt (the holder is the caller's `worker`).
#[derive(Deserialize)]
struct LeaseRef {
    key: String,
    attempt: i64,
}

#[derive(Deserialize)]
struct RenewRequest {
    worker: String,
    lease_seconds: f64,
    leases: Vec<LeaseRef>,
}

async fn renew(
    State(app): AppState,
    WorkerCaller(name): WorkerCaller,
    UrlPath(id): UrlPath<String>,
    ApiJson(request): ApiJson<RenewRequest>,
) -> ApiResult<Json<Value>> {
    own(&name, &request.worker)?;
    let length = lease_length(request.lease_seconds)?;
    if request.leases.len() > MAX_BATCH {
        return Err(ApiError::bad_request(format!("at most {MAX_BATCH} leases a call")));
    }
    let planner = planner(&app, &id).await?;
    let store = planner.store();
    let mut renewed = Vec::new();
    for lease in &request.leases {
        // Only a lease this worker holds is renewed (the store checks the holder too).
        let held = store.lease(&lease.key, lease.attempt, &request.worker).await?;
        renewed.push(match held {
            Some(held) => store.renew(&held, length).await?,
            None => false,
        });
    }
    Ok(Json(json!({ "renewed": renewed })))
}

#[derive(Deserialize)]
struct GiveBackRequest {
    worker: String,
    leases: Vec<LeaseRef>,
}

async fn give_back(
    State(app): AppState,
    WorkerCaller(name): WorkerCaller,
    UrlPath(id): UrlPath<String>,
    ApiJson(request): ApiJson<GiveBackRequest>,
) -> ApiResult<Json<Value>> {
    own(&name, &request.worker)?;
    if request.leases.len() > MAX_BATCH {
        return Err(ApiError::bad_request(format!("at most {MAX_BATCH} leases a call")));
    }
    let planner = planner(&app, &id).await?;
    for lease in &request.leases {
        if let Some(held) = planner.store().lease(&lease.key, lease.attempt, &request.worker).await? {
            planner.store().give_back(&held).await?;
        }
    }
    Ok(Json(json!({ "given_back": request.leases.len() })))
}

/// A played game as a worker reports it.
#[derive(Deserialize)]
struct ResultJson {
    key: String,
    attempt: i64,
    /// The referee's record (JSON), which the server checks.
    record: Value,
}

#[derive(Deserialize)]
struct ResultsRequest {
    worker: String,
    results: Vec<ResultJson>,
}

/// Stores reported games, each checked and fenced by its lease; says for each `stored`,
/// `stale` (its lease had passed to another attempt), `refused` (with the reason: the
/// check refused the record; the game goes back to the queue) or `not-yours` (the caller
/// holds no such lease: never had it, or the game is stored).
async fn results(
    State(app): AppState,
    WorkerCaller(name): WorkerCaller,
    UrlPath(id): UrlPath<String>,
    ApiJson(request): ApiJson<ResultsRequest>,
) -> ApiResult<Json<Value>> {
    own(&name, &request.worker)?;
    if request.results.len() > MAX_BATCH {
        return Err(ApiError::bad_request(format!("at most {MAX_BATCH} results a call")));
    }
    let planner = planner(&app, &id).await?;
    let mut answers = Vec::new();
    for result in &request.results {
        let reported =
            planner.report(&request.worker, &result.key, result.attempt, &result.record.to_string()).await.map_err(arena_error)?;
        let answer = match reported {
            None => json!({ "key": result.key, "status": "not-yours" }),
            Some((arena::shared::Reported::Stored, outcome)) => {
                if let Some(outcome) = outcome {
                    let fault = outcome.fault.as_ref().map(|(side, _)| *side);
                    let moves = i64::from(outcome.moves[0]) + i64::from(outcome.moves[1]);
                    let ms = i64::try_from(outcome.time_ms[0].saturating_add(outcome.time_ms[1])).unwrap_or(i64::MAX);
                    app.arena.count_report(&name, &store::WorkerReport { stored: Some((fault, moves, ms)), refused: None }).await?;
                }
                json!({ "key": result.key, "status": "stored" })
            }
            Some((arena::shared::Reported::Stale, _)) => json!({ "key": result.key, "status": "stale" }),
            Some((arena::shared::Reported::Refused(reason), _)) => {
                tracing::warn!("worker {name}: the record of game {} was refused: {reason}", result.key);
                let refusal = format!("game {}: {reason}", result.key);
                app.arena.count_report(&name, &store::WorkerReport { stored: None, refused: Some(refusal) }).await?;
                json!({ "key": result.key, "status": "refused", "reason": reason })
            }
        };
        answers.push(answer);
    }
    Ok(Json(json!({ "results": answers })))
}

/// A worker's row as the API shows it, with its mean time per move.
fn worker_json(row: &store::WorkerRow) -> Value {
    let mean_ms = (row.moves > 0).then(|| row.move_ms as f64 / row.moves as f64);
    json!({
        "name": row.name, "created_ms": row.created_ms, "revoked": row.revoked, "host": row.host,
        "last_heartbeat_ms": row.last_seen_ms, "games": row.games, "faults": row.faults,
        "refused": row.refused, "last_refusal": row.last_refusal, "moves": row.moves, "mean_ms_per_move": mean_ms,
    })
}

async fn list_workers(State(app): AppState, _organiser: Organiser) -> ApiResult<Json<Value>> {
    let rows = app.arena.workers().await?;
    Ok(Json(json!({ "workers": rows.iter().map(worker_json).collect::<Vec<_>>() })))
}

#[derive(Deserialize)]
struct AddWorker {
    name: String,
}

/// A worker's name: 1 to 64 letters, digits, `-`, `_` or `.` (it starts the worker's
/// ids in the queue, before a `/`).
pub fn check_worker_name(name: &str) -> Result<(), String> {
    if name.is_empty() || name.len() > 64 || !name.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c)) {
        return Err(format!("worker name {name:?}: use 1 to 64 letters, digits, '-', '_' or '.'"));
    }
    Ok(())
}

async fn add_worker(State(app): AppState, _organiser: Organiser, ApiJson(request): ApiJson<AddWorker>) -> ApiResult<Json<Value>> {
    check_worker_name(&request.name).map_err(ApiError::bad_request)?;
    let token = crate::auth::random_token();
    if !app.arena.add_worker(&request.name, &token_hash(&token)).await? {
        return Err(ApiError::conflict(format!("there is a worker {:?} already", request.name)));
    }
    Ok(Json(json!({ "name": request.name, "token": token })))
}

async fn revoke_worker(State(app): AppState, _organiser: Organiser, UrlPath(name): UrlPath<String>) -> ApiResult<Json<Value>> {
    if !app.arena.revoke_worker(&name).await? {
        return Err(ApiError::not_found(format!("no worker {name:?}")));
    }
    Ok(Json(json!({ "name": name, "revoked": true })))
}

/// The Prometheus text format (version 0.0.4): per tournament recorded for workers, its
/// games waiting, leased, stored and waiting again after a failed attempt; and the
/// workers that called in the last minute.
/// A gauge: its name, its help line, and its values by label.
type Gauge = (&'static str, &'static str, Vec<(String, u64)>);

async fn metrics(State(app): AppState) -> ApiResult<Response> {
    let mut lines: Vec<Gauge> = vec![
        ("arbiter_games_pending", "Games queued and not leased now (waiting for a worker).", Vec::new()),
        ("arbiter_games_leased", "Games leased to a worker now.", Vec::new()),
        ("arbiter_games_stored", "Games stored.", Vec::new()),
        (
            "arbiter_games_failed",
            "Games waiting again after an attempt that stored nothing (expired lease, refused record, referee failure).",
            Vec::new(),
        ),
    ];
    for t in app.tournaments.all() {
        if !arena::shared::is_for_workers(&t.store).await.unwrap_or(false) {
            continue;
        }
        let counts = t.store.queue_counts().await?;
        let stored = t.store.game_count().await?;
        let label = format!("{{tournament=\"{}\"}}", t.id.replace('\\', "\\\\").replace('"', "\\\""));
        for (idx, value) in [counts.pending, counts.leased, stored, counts.failed].into_iter().enumerate() {
            lines[idx].2.push((label.clone(), value));
        }
    }
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64);
    let active =
        app.arena.workers().await?.iter().filter(|w| !w.revoked && w.last_seen_ms.is_some_and(|at| now - at <= ACTIVE_WITHIN_MS)).count();
    let mut text = String::new();
    for (name, help, values) in &lines {
        text.push_str(&format!("# HELP {name} {help}\n# TYPE {name} gauge\n"));
        for (label, value) in values {
            text.push_str(&format!("{name}{label} {value}\n"));
        }
    }
    text.push_str(&format!(
        "# HELP arbiter_workers_active HTTP workers (tokens) that called in the last minute.\n# TYPE arbiter_workers_active gauge\narbiter_workers_active {active}\n"
    ));
    Ok(([(header::CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8")], text).into_response())
}
