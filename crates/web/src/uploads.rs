//! Uploads for a class (`POST /api/submissions`) and their checks: a single source, a
//! manifest with its files, several files or a zip (`submissions` reads them), built in
//! the sandbox, then checked in the background (the doctor, then the entry check's
//! games), with each step shown as it happens (`GET .../check`). Uploads are bounded:
//! per client and per entrant in flight (from the request to the end of its check), on
//! the server in all, builds and checks at once server-wide (beyond those caps an
//! upload waits its turn), and bots kept per entrant; a refusal is a 429 with one line
//! and the code `quota`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::{Path as UrlPath, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Json, Response};
use axum::routing::get;
use rules::GameKind;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use submissions::{CheckEvent, DoctorReport, EntryCheckResult, SubmitOutcome, Upload};
use tokio::sync::Semaphore;

use crate::App;
use crate::auth::Caller;
use crate::error::{ApiError, ApiResult};
use crate::games;
use crate::quota::{Client, Quota, Slot, too_many};
use crate::upload_policy::{self, Claim, Refusal};

type AppState = State<Arc<App>>;

/// How much of the server uploads may take.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Uploads in flight (received, built or being checked) on the server.
    pub total: usize,
    /// ... from one client.
    pub per_client: usize,
    /// ... from one entrant.
    pub per_entrant: usize,
    /// Builds at once, server-wide (more wait their turn).
    pub builds: usize,
    /// Checks (doctor and entry check) at once, server-wide (more wait their turn).
    pub checks: usize,
    /// Bots an entrant may keep (each name is a bot; its versions are not counted).
    pub bots_per_entrant: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits { total: 32, per_client: 2, per_entrant: 2, builds: 4, checks: 4, bots_per_entrant: 10 }
    }
}

/// The server's uploads: the quotas and the checks in progress.
pub struct Uploads {
    pub limits: Limits,
    by_client: Arc<Quota<Client>>,
    by_entrant: Arc<Quota<String>>,
    builds: Arc<Semaphore>,
    checks: Arc<Semaphore>,
    /// Builds running now, and the most there were at once.
    building: Mutex<(usize, usize)>,
    progress: Mutex<HashMap<VersionKey, Arc<Mutex<Progress>>>>,
}

type VersionKey = (GameKind, String, u32);

/// A version's check as it goes.
#[derive(Clone, Debug, Serialize)]
pub struct Progress {
    /// `queued` (waiting for a check's turn), `doctor`, `entry check`, `done`.
    pub state: &'static str,
    /// What happened, one line each: the lines exchanged with the bot (`side 0: > go`),
    /// each problem, the entry check's start.
    pub lines: Vec<String>,
    pub doctor: Option<DoctorReport>,
    pub entry_check: Option<EntryCheckResult>,
}

/// How many checks' progress the server keeps: once there are more, the finished ones
/// go (their results stay with their versions).
const KEPT_CHECKS: usize = 256;

/// The most lines a check's progress keeps (the first ones, then the last).
const PROGRESS_LINES: usize = 400;

impl Progress {
    fn queued() -> Progress {
        Progress { state: "queued", lines: Vec::new(), doctor: None, entry_check: None }
    }

    fn tell(&mut self, event: CheckEvent) {
        use referee::doctor::Step;
        let line = match event {
            CheckEvent::Step(Step::Session { side }) => {
                self.state = "doctor";
                Some(format!("doctor: a session with the bot as side {}", side.index()))
            }
            CheckEvent::Step(Step::Line { side, line }) => {
                let text: String = line.text.chars().take(200).collect();
                Some(format!("side {}: {} {text}", side.index(), if line.to_bot { '>' } else { '<' }))
            }
            CheckEvent::Step(Step::Move { .. }) => None,
            CheckEvent::Step(Step::Problem(problem)) => {
                Some(format!("problem: {} (as side {}): {}", problem.kind.title(), problem.side.index(), problem.explanation))
            }
            CheckEvent::Doctor(report) => {
                let line = if report.fit {
                    format!("doctor: fit ({} moves without a problem)", report.moves)
                } else {
                    format!("doctor: {} problem(s)", report.problems.len())
                };
                self.doctor = Some(report);
                Some(line)
            }
            CheckEvent::EntryCheckStarted => {
                self.state = "entry check";
                Some(format!("entry check: games against {}", submissions::ENTRY_CHECK_BASELINE))
            }
            CheckEvent::EntryCheck(result) => {
                let line = format!("entry check: {}", result.summary);
                self.entry_check = Some(result);
                Some(line)
            }
        };
        if let Some(line) = line {
            if self.lines.len() == PROGRESS_LINES {
                self.lines.drain(PROGRESS_LINES / 2..PROGRESS_LINES / 2 + 1);
            }
            self.lines.push(line);
        }
    }
}

impl Uploads {
    pub fn new(limits: Limits) -> Uploads {
        Uploads {
            by_client: Quota::new(("upload", "uploads", "in flight"), limits.total, limits.per_client),
            by_entrant: Quota::of(("upload", "uploads", "in flight"), "entrant", limits.total, limits.per_entrant),
            builds: Arc::new(Semaphore::new(limits.builds.max(1))),
            checks: Arc::new(Semaphore::new(limits.checks.max(1))),
            building: Mutex::new((0, 0)),
            progress: Mutex::new(HashMap::new()),
            limits,
        }
    }

    fn progress(&self) -> std::sync::MutexGuard<'_, HashMap<VersionKey, Arc<Mutex<Progress>>>> {
        self.progress.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn building(&self) -> std::sync::MutexGuard<'_, (usize, usize)> {
        self.building.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Uploads in flight, builds running and the most builds there were at once.
    pub fn load(&self) -> Value {
        let (running, peak) = *self.building();
        json!({
            "in_flight": self.by_client.in_use(), "builds_running": running, "peak_builds": peak,
            "limits": {
                "total": self.limits.total, "per_client": self.limits.per_client, "per_entrant": self.limits.per_entrant,
                "builds": self.limits.builds, "checks": self.limits.checks, "bots_per_entrant": self.limits.bots_per_entrant,
            },
        })
    }
}

pub fn routes() -> Router<Arc<App>> {
    Router::new()
        .route(
            "/api/submissions",
            get(list).post(upload).layer(axum::extract::DefaultBodyLimit::max(submissions::MAX_UPLOAD_BYTES + 256 * 1024)),
        )
        .route("/api/submissions/{game}/{name}", get(versions))
        .route("/api/submissions/{game}/{name}/{version}/check", get(check_progress))
        .route("/api/uploads", get(load))
}

/// Versions as `caller` may see them: the compiler's output of another entrant's bot
/// is left out (it quotes the source), and so is what the bot wrote on stderr in the
/// doctor's report; each names its owner.
pub async fn versions_for(app: &App, caller: &Caller, versions: Vec<submissions::Version>) -> ApiResult<Vec<Value>> {
    let mut shown = Vec::new();
    for mut version in versions {
        let owner = app.arena.owner(version.game.name(), &version.name).await?;
        if !caller.may_see(owner.as_deref()) {
            version.compile_log = String::new();
            if let Some(doctor) = &mut version.doctor {
                doctor.problems.iter_mut().for_each(|p| p.stderr = String::new());
            }
        }
        let mut value = serde_json::to_value(&version).map_err(|e| ApiError::internal(e.to_string()))?;
        if let Some(object) = value.as_object_mut() {
            object.insert("entrant".into(), json!(owner));
        }
        shown.push(value);
    }
    Ok(shown)
}

async fn list(State(app): AppState, caller: Caller) -> ApiResult<Json<Vec<Value>>> {
    let list = app.submissions.list()?;
    Ok(Json(versions_for(&app, &caller, list).await?))
}

async fn versions(State(app): AppState, caller: Caller, UrlPath((game, name)): UrlPath<(String, String)>) -> ApiResult<Json<Vec<Value>>> {
    let kind = games::parse_game(&game)?;
    let versions = app.submissions.versions(kind, &name)?;
    if versions.is_empty() {
        return Err(ApiError::not_found(format!("no {kind} bot {name:?} is registered")));
    }
    Ok(Json(versions_for(&app, &caller, versions).await?))
}

async fn load(State(app): AppState) -> Json<Value> {
    Json(app.uploads.load())
}

/// A version's check: as it goes (while it runs) or its result. The lines exchanged and
/// the doctor's problems are for the bot's owner and the organiser; anyone sees the
/// state and the entry check's result.
async fn check_progress(
    State(app): AppState,
    caller: Caller,
    UrlPath((game, name, version)): UrlPath<(String, String, String)>,
) -> ApiResult<Json<Value>> {
    let kind = games::parse_game(&game)?;
    let number: u32 = version
        .trim_start_matches('v')
        .parse()
        .map_err(|_| ApiError::bad_request(format!("{version:?} is not a version number (1, 2, ...)")))?;
    let stored = app.submissions.version(kind, &name, number)?;
    let running = app.uploads.progress().get(&(kind, name.clone(), number)).cloned();
    let mut progress = match running {
        Some(progress) => progress.lock().unwrap_or_else(|p| p.into_inner()).clone(),
        None => Progress {
            state: if stored.entry_check.is_some() { "done" } else { "not checked" },
            lines: Vec::new(),
            doctor: stored.doctor.clone(),
            entry_check: stored.entry_check.clone(),
        },
    };
    let owner = app.arena.owner(kind.name(), &name).await?;
    if !caller.may_see(owner.as_deref()) {
        progress.lines.clear();
        if let Some(doctor) = &mut progress.doctor {
            doctor.problems.iter_mut().for_each(|p| p.stderr = String::new());
        }
    }
    Ok(Json(json!({ "name": name, "game": kind.name(), "version": number, "check": progress })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct UploadQuery {
    /// Whether to answer once the check is done (the default) or at once, once built.
    #[serde(default)]
    wait: Option<bool>,
}

/// Both shares an upload holds until its check ends: its client's, and its entrant's.
struct Held {
    _client: Slot<Client>,
    _entrant: Option<Slot<String>>,
}

/// An upload (multipart form): `source` (one file: a source, or a zip), or `manifest`
/// (bot.toml) with `files`, or `files` alone (several files or zips, with or without a
/// bot.toml); `name`, `game`, `protocol`, `language`, `options` (a JSON object) as text.
async fn upload(
    State(app): AppState,
    caller: Caller,
    client: Client,
    Query(query): Query<UploadQuery>,
    mut form: axum::extract::Multipart,
) -> ApiResult<Response> {
    if caller == Caller::Anyone {
        return Err(ApiError::token_required(
            "sign in with your token to upload: an entrant's (the organiser gives it) or the organiser's",
        ));
    }
    if app.frozen() {
        return Err(ApiError::conflict("submissions are frozen by the organiser"));
    }
    // The shares first: an upload over them is refused before its body is read.
    let held = Held {
        _client: app.uploads.by_client.take(client)?,
        _entrant: match &caller {
            Caller::Entrant(me) => Some(app.uploads.by_entrant.take(me.clone())?),
            _ => None,
        },
    };
    let upload = read_form(&mut form).await?;
    let (game, name) = upload.target();
    // A bot frozen by a running stage takes no upload (its folder is looked up on the
    // disk: work for a blocking thread).
    if let (Some(game), Some(name)) = (game, name.clone())
        && submissions::check_name(&name).is_ok()
        && let Some(tournament) = {
            let (app, folder) = (Arc::clone(&app), app.submissions.root().join(game.name()).join(&name));
            tokio::task::spawn_blocking(move || app.tournaments.playing(&folder)).await.ok().flatten()
        }
    {
        return Err(ApiError::conflict(format!(
            "{game} bot {name} plays in tournament {tournament}, which is running: its program is frozen until the tournament ends"
        )));
    }
    let claim = claim(&app, &caller, game, name).await?;
    let outcome = {
        let _turn = Arc::clone(&app.uploads.builds).acquire_owned().await.expect("the build semaphore is never closed");
        {
            let mut building = app.uploads.building();
            building.0 += 1;
            building.1 = building.1.max(building.0);
        }
        let outcome = app.submissions.submit(upload, app.sandboxed()).await;
        app.uploads.building().0 -= 1;
        outcome
    };
    if let Some((game, name, me)) = &claim
        && !matches!(outcome, Ok(SubmitOutcome::Accepted(_)))
        && app.submissions.current(*game, name).ok().flatten().is_none()
    {
        app.arena.unclaim(game.name(), name, me).await?;
    }
    match outcome? {
        SubmitOutcome::Accepted(version) => {
            let path = format!("/api/submissions/{}/{}/{}/check", version.game.name(), version.name, version.version);
            let done = spawn_check(&app, *version.clone(), Some(held));
            if query.wait.unwrap_or(true) {
                let checked = match done.await {
                    Ok(checked) => checked,
                    Err(_) => return Err(ApiError::internal("the check was stopped (the server is stopping)")),
                };
                let doctor = checked.doctor.clone();
                return Ok((StatusCode::CREATED, Json(json!({ "version": checked, "doctor": doctor, "check": path }))).into_response());
            }
            Ok((StatusCode::CREATED, Json(json!({ "version": version, "doctor": Value::Null, "check": path }))).into_response())
        }
        SubmitOutcome::CompileFailed { log } => Ok((
            StatusCode::UNPROCESSABLE_ENTITY,
            Json(json!({ "error": "compilation failed: the compiler's output is in `log`; nothing was stored", "log": log })),
        )
            .into_response()),
    }
}

/// Runs a version's check in the background, holding the upload's shares until it
/// ends; its progress is shown by `GET .../check` meanwhile. The checked version comes
/// through the receiver (dropped if the server stops first).
fn spawn_check(app: &Arc<App>, version: submissions::Version, held: Option<Held>) -> tokio::sync::oneshot::Receiver<submissions::Version> {
    let (send, receive) = tokio::sync::oneshot::channel();
    let key = (version.game, version.name.clone(), version.version);
    let progress = Arc::new(Mutex::new(Progress::queued()));
    {
        // Finished checks stay to be read (their lines) until many more have run.
        let mut all = app.uploads.progress();
        if all.len() >= KEPT_CHECKS {
            all.retain(|_, p| p.lock().unwrap_or_else(|p| p.into_inner()).state != "done");
        }
        all.insert(key.clone(), Arc::clone(&progress));
    }
    let app = Arc::clone(app);
    app.tasks.clone().spawn(async move {
        let _held = held;
        let _turn = Arc::clone(&app.uploads.checks).acquire_owned().await.expect("the check semaphore is never closed");
        let mut tell = |event: CheckEvent| progress.lock().unwrap_or_else(|p| p.into_inner()).tell(event);
        let checked = app.submissions.check(&version, app.sandboxed(), &mut tell).await;
        progress.lock().unwrap_or_else(|p| p.into_inner()).state = "done";
        match checked {
            Ok(checked) => {
                app.ladders.wake_game(checked.game);
                let _ = send.send(checked);
            }
            Err(err) => tracing::error!("the check of {} v{} failed: {err}", version.name, version.version),
        }
    });
    receive
}

/// Checks the latest version of every bot that was stored but not checked (the server
/// stopped during its check).
pub fn resume(app: &Arc<App>) {
    for version in app.submissions.list().unwrap_or_default() {
        if version.entry_check.is_none() {
            // Nobody waits for its answer: the result is stored with the version.
            drop(spawn_check(app, version, None));
        }
    }
}

/// An entrant's claim on the bot of the upload ([`upload_policy::claim`]): a new name
/// becomes theirs, within their share. The claim made, to give back if nothing is
/// stored.
async fn claim(app: &App, caller: &Caller, game: Option<GameKind>, name: Option<String>) -> ApiResult<Option<(GameKind, String, String)>> {
    let (Caller::Entrant(me), Some(game), Some(name)) = (caller, game, name) else { return Ok(None) };
    if submissions::check_name(&name).is_err() {
        // The submission refuses a bad name with its own message.
        return Ok(None);
    }
    let existed = app.submissions.current(game, &name).ok().flatten().is_some();
    let owner = app.arena.owner(game.name(), &name).await?;
    match upload_policy::claim(me, game, &name, owner.as_deref(), existed).map_err(refused)? {
        Claim::Theirs => Ok(None),
        Claim::New => {
            let mine = app.arena.owners().await?.iter().filter(|(_, _, owner)| owner == me).count();
            upload_policy::within_share(mine, app.uploads.limits.bots_per_entrant).map_err(refused)?;
            // Another upload of the same name may have claimed it meanwhile.
            let owner = app.arena.claim(game.name(), &name, me).await?;
            upload_policy::claim(me, game, &name, Some(&owner), true).map_err(refused)?;
            Ok(Some((game, name, me.clone())))
        }
    }
}

/// The answer refusing an upload: 403 for a bot that is not the caller's, 429 (code
/// `quota`) beyond their share of bots, 400 for a form that makes no upload, the
/// submissions' own status for theirs.
fn refused(refusal: Refusal) -> ApiError {
    match refusal {
        Refusal::Submission(err) => ApiError::from(err),
        Refusal::AnotherEntrants { .. } | Refusal::Organisers { .. } => ApiError::new(StatusCode::FORBIDDEN, refusal.to_string()),
        Refusal::TooManyBots { .. } => too_many(refusal.to_string()),
        _ => ApiError::bad_request(refusal.to_string()),
    }
}

/// Reads the upload form's parts into an upload ([`upload_policy::Form`]).
async fn read_form(form: &mut axum::extract::Multipart) -> ApiResult<Upload> {
    let part_error =
        |err: axum::extract::multipart::MultipartError| ApiError::new(err.status(), format!("bad upload: {}", err.body_text()));
    let mut parts = upload_policy::Form::default();
    while let Some(field) = form.next_field().await.map_err(part_error)? {
        let name = field.name().unwrap_or("").to_string();
        let file_name = field.file_name().map(str::to_string);
        let bytes = field.bytes().await.map_err(part_error)?.to_vec();
        parts.add(&name, file_name.as_deref(), bytes).map_err(refused)?;
    }
    // Expanding zips is work for a blocking thread.
    tokio::task::spawn_blocking(move || parts.into_upload())
        .await
        .map_err(|err| ApiError::internal(format!("cannot read the upload: {err}")))?
        .map_err(refused)
}
