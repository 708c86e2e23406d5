//! Ladders: continuous leagues per game and options. A ladder takes in the current
//! version of every registered bot of its game (and each new version as it is uploaded),
//! plays games in the background between players near each other's rating on its share
//! of the workers, and rates them (`tournament::ladder`: Weng-Lin, bosses fixed). The
//! games are ordinary games of this server (watchable live, kept in `games/`); the
//! ladder's players, results and rating history are in the arena database.

use std::collections::{BTreeMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::{Path as UrlPath, State};
use axum::http::StatusCode;
use axum::response::Json;
use axum::routing::{get, post};
use referee::BotSpec;
use rules::{GameKind, Options};
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::sync::Notify;
use tournament::ladder::{self as rating, Candidate, Rating};

use crate::App;
use crate::auth::Organiser;
use crate::error::{ApiError, ApiJson, ApiResult};
use crate::games;
use crate::live::{LiveGame, Origin};

type AppState = State<Arc<App>>;

/// The ladders of this server and the workers they share.
pub struct Ladders {
    ladders: Mutex<BTreeMap<i64, Arc<Ladder>>>,
    /// The server's `-j` workers, shared by the tournaments and the ladders.
    pool: Arc<Pool>,
    /// The ladders' share of them.
    pub workers: usize,
    /// Held while a ladder decides to start a game and counts it as running, and while a
    /// ladder is frozen or thawed: once a freeze is answered, no game of the ladder that
    /// is not counted yet starts.
    starting: tokio::sync::Mutex<()>,
    /// Ladder games being played now, and the most there ever were at once.
    running: AtomicUsize,
    peak: AtomicUsize,
}

/// One ladder as it runs.
pub struct Ladder {
    pub id: i64,
    pub kind: GameKind,
    pub options: Options,
    /// The bosses, weakest first.
    pub bosses: Vec<String>,
    frozen: AtomicBool,
    /// Woken when something may let a new game start: an upload, a game's end, a thaw.
    wake: Notify,
    /// Players (bot, version) in a game now.
    busy: Mutex<HashSet<(String, i64)>>,
    /// Counts the games started, to alternate the sides.
    started: AtomicU64,
    /// Whether the ladder waits for a worker (every worker it may take is busy).
    waiting: AtomicBool,
}

impl Ladders {
    /// The ladders' share of `jobs` workers: `share` of them, at least one.
    pub fn new(jobs: usize, share: f64) -> Ladders {
        let workers = ((jobs as f64 * share).round() as usize).clamp(1, jobs.max(1));
        Ladders {
            ladders: Mutex::new(BTreeMap::new()),
            pool: Arc::new(Pool { jobs: jobs.max(1), share: workers, counts: Mutex::new(Counts::default()), freed: Notify::new() }),
            workers,
            starting: tokio::sync::Mutex::new(()),
            running: AtomicUsize::new(0),
            peak: AtomicUsize::new(0),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<i64, Arc<Ladder>>> {
        self.ladders.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn get(&self, id: i64) -> Option<Arc<Ladder>> {
        self.lock().get(&id).cloned()
    }

    /// Whether any ladder is playing (not frozen): tournaments then leave the ladders
    /// their share of the workers.
    pub fn any_playing(&self) -> bool {
        self.lock().values().any(|l| !l.frozen())
    }

    /// Tells the pool whether the ladders' share is to be kept for them (a ladder was
    /// added, frozen or thawed).
    fn refresh(&self) {
        self.pool.lock().reserved = self.any_playing();
        self.pool.freed.notify_waiters();
    }

    /// The workers a tournament's games take one each of: the pool, less the ladders'
    /// share while a ladder plays (at least one).
    pub fn tournament_workers(&self) -> arena::SharedWorkers {
        let pool = Arc::clone(&self.pool);
        arena::SharedWorkers(Arc::new(move || {
            let pool = Arc::clone(&pool);
            Box::pin(async move { Box::new(pool.take(Who::Tournament).await) as Box<dyn Send> })
        }))
    }

    /// Wakes the ladders of a game (a new version was uploaded).
    pub fn wake_game(&self, kind: GameKind) {
        self.lock().values().filter(|l| l.kind == kind).for_each(|l| l.wake.notify_one());
    }

    /// Starts every ladder of the arena database (at the server's start).
    pub async fn resume(app: &Arc<App>) -> Result<(), store::StoreError> {
        for row in app.arena.ladders().await? {
            let Ok(kind) = GameKind::from_name(&row.game) else {
                tracing::warn!("ladder {} plays an unknown game {:?}; skipped", row.id, row.game);
                continue;
            };
            let options: Options = serde_json::from_str(&row.options).unwrap_or_default();
            let bosses: Vec<String> = serde_json::from_str(&row.bosses).unwrap_or_default();
            spawn(app, Ladder::new(row.id, kind, options, bosses, row.frozen));
        }
        Ok(())
    }
}

/// The server's workers: a game of a tournament or of a ladder takes one, and gives it
/// back when it ends. The ladders take at most their share; tournaments leave it to them
/// while a ladder plays, so that a worker a tournament frees goes to a waiting ladder
/// until the ladders have their share, whichever started first.
struct Pool {
    jobs: usize,
    share: usize,
    counts: Mutex<Counts>,
    /// Woken when a worker is freed or the reservation changes.
    freed: Notify,
}

#[derive(Default)]
struct Counts {
    tournament: usize,
    ladder: usize,
    /// Whether a ladder plays (its share is kept from the tournaments).
    reserved: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Who {
    Tournament,
    Ladder,
}

/// A worker of the [`Pool`], given back on drop.
struct Worker {
    pool: Arc<Pool>,
    who: Who,
}

impl Pool {
    fn lock(&self) -> std::sync::MutexGuard<'_, Counts> {
        self.counts.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Waits for a worker that `who` may take.
    async fn take(self: Arc<Self>, who: Who) -> Worker {
        loop {
            let freed = self.freed.notified();
            tokio::pin!(freed);
            freed.as_mut().enable();
            if let Some(worker) = self.try_take(who) {
                return worker;
            }
            freed.await;
        }
    }

    /// A worker that `who` may take now, if there is one: a free one, within the
    /// ladders' share for a ladder, outside it (while a ladder plays) for a tournament.
    fn try_take(self: &Arc<Self>, who: Who) -> Option<Worker> {
        let mut counts = self.lock();
        let free = counts.tournament + counts.ladder < self.jobs;
        let allowed = match who {
            Who::Ladder => counts.ladder < self.share,
            Who::Tournament => {
                let kept = if counts.reserved { self.share } else { 0 };
                counts.tournament < self.jobs.saturating_sub(kept).max(1)
            }
        };
        if !(free && allowed) {
            return None;
        }
        match who {
            Who::Ladder => counts.ladder += 1,
            Who::Tournament => counts.tournament += 1,
        }
        Some(Worker { pool: Arc::clone(self), who })
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        {
            let mut counts = self.pool.lock();
            match self.who {
                Who::Ladder => counts.ladder -= 1,
                Who::Tournament => counts.tournament -= 1,
            }
        }
        self.pool.freed.notify_waiters();
    }
}

impl Ladder {
    fn new(id: i64, kind: GameKind, options: Options, bosses: Vec<String>, frozen: bool) -> Arc<Ladder> {
        Arc::new(Ladder {
            id,
            kind,
            options,
            bosses,
            frozen: AtomicBool::new(frozen),
            wake: Notify::new(),
            busy: Mutex::new(HashSet::new()),
            started: AtomicU64::new(0),
            waiting: AtomicBool::new(false),
        })
    }

    pub fn frozen(&self) -> bool {
        self.frozen.load(Ordering::SeqCst)
    }

    fn busy(&self) -> std::sync::MutexGuard<'_, HashSet<(String, i64)>> {
        self.busy.lock().unwrap_or_else(|p| p.into_inner())
    }
}

fn spawn(app: &Arc<App>, ladder: Arc<Ladder>) {
    app.ladders.lock().insert(ladder.id, Arc::clone(&ladder));
    app.ladders.refresh();
    let app = Arc::clone(app);
    app.tasks.clone().spawn(async move { run(app, ladder).await });
}

/// The ladder's loop: whenever one of the ladders' slots is free, the next pair plays.
async fn run(app: Arc<App>, ladder: Arc<Ladder>) {
    let stopping = app.tasks.stopping();
    loop {
        if ladder.frozen() {
            tokio::select! {
                () = stopping.cancelled() => return,
                () = ladder.wake.notified() => continue,
            }
        }
        let slot = match app.ladders.pool.try_take(Who::Ladder) {
            Some(worker) => worker,
            None => {
                ladder.waiting.store(true, Ordering::SeqCst);
                let worker = tokio::select! {
                    () = stopping.cancelled() => return,
                    worker = Arc::clone(&app.ladders.pool).take(Who::Ladder) => worker,
                };
                ladder.waiting.store(false, Ordering::SeqCst);
                worker
            }
        };
        let pair = match next_game(&app, &ladder).await {
            Ok(pair) => pair,
            Err(err) => {
                tracing::error!("ladder {}: {err}", ladder.id);
                None
            }
        };
        let Some(pair) = pair else {
            drop(slot);
            tokio::select! {
                () = stopping.cancelled() => return,
                () = ladder.wake.notified() => continue,
            }
        };
        // Counted as running before a freeze can be answered, or not started at all.
        let starting = app.ladders.starting.lock().await;
        if ladder.frozen() {
            let mut busy = ladder.busy();
            for player in &pair {
                busy.remove(&(player.bot.clone(), player.version));
            }
            continue;
        }
        let running = app.ladders.running.fetch_add(1, Ordering::SeqCst) + 1;
        app.ladders.peak.fetch_max(running, Ordering::SeqCst);
        drop(starting);
        let (app, ladder) = (Arc::clone(&app), Arc::clone(&ladder));
        app.tasks.clone().spawn(async move {
            if let Err(err) = play(&app, &ladder, &pair).await {
                tracing::error!("ladder {}: a game was not played: {err}", ladder.id);
            }
            app.ladders.running.fetch_sub(1, Ordering::SeqCst);
            {
                let mut busy = ladder.busy();
                for player in &pair {
                    busy.remove(&(player.bot.clone(), player.version));
                }
            }
            drop(slot);
            ladder.wake.notify_one();
        });
    }
}

/// A bot whose games end by its fault this many times in a row is paused (not paired)
/// until a new version of it enters.
pub const PAUSE_AFTER: i64 = 3;

/// The version of each registered bot of `kind` that plays in its ladders: its latest
/// that passed the entry check (a version that failed it, or is still being checked,
/// stays out; the one before it plays on).
async fn ladder_versions(app: &App, kind: GameKind) -> Vec<submissions::Version> {
    // Reading the versions' files blocks: not on a runtime thread.
    let submissions = app.submissions.clone();
    tokio::task::spawn_blocking(move || {
        let names = submissions.names(kind).unwrap_or_default();
        names
            .iter()
            .filter_map(|name| {
                let versions = submissions.versions(kind, name).ok()?;
                versions.into_iter().rev().find(|v| v.entry_check.as_ref().is_some_and(|c| c.passed))
            })
            .collect()
    })
    .await
    .unwrap_or_default()
}

/// Enters the version of every registered bot of the ladder's game that passed its
/// entry check and is not in yet, then picks the next pair (marked busy), sides
/// alternating. Paused players are left out, and a bot over its share of the ladder's
/// recent games waits (`tournament::ladder::next_pair`).
async fn next_game(app: &App, ladder: &Ladder) -> Result<Option<[store::LadderPlayer; 2]>, store::StoreError> {
    let players = app.arena.players(ladder.id).await?;
    let mut entered = false;
    for version in ladder_versions(app, ladder.kind).await {
        let current = players.iter().any(|p| !p.boss && p.active && p.bot == version.name && p.version == i64::from(version.version));
        if !current {
            let owner = app.arena.owner(ladder.kind.name(), &version.name).await?;
            let start = (rating::START_RATING, rating::START_UNCERTAINTY);
            app.arena.enter_version(ladder.id, &version.name, i64::from(version.version), owner.as_deref(), start).await?;
            entered = true;
        }
    }
    let players = if entered { app.arena.players(ladder.id).await? } else { players };
    let players: Vec<store::LadderPlayer> = players.into_iter().filter(|p| p.active && p.paused.is_none()).collect();
    let bots = players.iter().filter(|p| !p.boss).count();
    let recent = app.arena.games(Some(ladder.id), None, rating::window_size(bots) as i64).await?;
    let played = |p: &store::LadderPlayer| recent.iter().filter(|g| g.players.iter().any(|(b, v)| *b == p.bot && *v == p.version)).count();
    let mut busy = ladder.busy();
    let candidates: Vec<Candidate> = players
        .iter()
        .map(|p| Candidate {
            key: format!("{} v{}", p.bot, p.version),
            rating: Rating { rating: p.rating, uncertainty: p.uncertainty },
            games: p.games.max(0) as u32,
            boss: p.boss,
            busy: busy.contains(&(p.bot.clone(), p.version)),
            recent: played(p) as u32,
        })
        .collect();
    let window = rating::Window { games: recent.len() as u32 };
    let Some((a, b)) = rating::next_pair(&candidates, window) else { return Ok(None) };
    busy.insert((players[a].bot.clone(), players[a].version));
    busy.insert((players[b].bot.clone(), players[b].version));
    let pair = [players[a].clone(), players[b].clone()];
    Ok(Some(if ladder.started.fetch_add(1, Ordering::SeqCst) % 2 == 1 { [pair[1].clone(), pair[0].clone()] } else { pair }))
}

/// A player's name in its games: a boss by its name, a bot with its version.
fn player_name(player: &store::LadderPlayer) -> String {
    if player.boss { player.bot.clone() } else { format!("{} v{}", player.bot, player.version) }
}

/// Plays one game of the pair and records it with both players' new ratings.
async fn play(app: &Arc<App>, ladder: &Ladder, pair: &[store::LadderPlayer; 2]) -> Result<(), String> {
    let mut specs = Vec::new();
    for player in pair {
        specs.push(if player.boss {
            BotSpec::Builtin(players::Builtin::parse(&player.bot).map_err(|e| e.to_string())?)
        } else {
            let versions = app.submissions.versions(ladder.kind, &player.bot).map_err(|e| e.to_string())?;
            let version = versions
                .into_iter()
                .find(|v| i64::from(v.version) == player.version)
                .ok_or_else(|| format!("{} has no version {}", player.bot, player.version))?;
            BotSpec::from_arg(&version.path.to_string_lossy()).map_err(|e| e.to_string())?
        });
    }
    let seed = crate::live::now_us();
    let start = games::start_position(ladder.kind, &ladder.options, seed).map_err(|e| e.message)?;
    let names = [player_name(&pair[0]), player_name(&pair[1])];
    let origin = Origin::Ladder { ladder: ladder.id };
    let game = Arc::new(LiveGame::new(app.registry.new_ladder_id(), names, ladder.options.clone(), start, origin, None));
    app.registry.insert(Arc::clone(&game));
    let Some(record) = games::play_live(app, &game, [&specs[0], &specs[1]], seed, None).await else {
        return Err("the referee failed".into());
    };
    // Fresh ratings: nobody else played these two meanwhile (they were busy).
    let now = app.arena.players(ladder.id).await.map_err(|e| e.to_string())?;
    let current = |p: &store::LadderPlayer| {
        now.iter()
            .find(|n| n.bot == p.bot && n.version == p.version)
            .map_or(Rating::new(), |n| Rating { rating: n.rating, uncertainty: n.uncertainty })
    };
    let winner = record.result.winner;
    let (a, b) = rating::rate(current(&pair[0]), current(&pair[1]), winner, [pair[0].boss, pair[1].boss]);
    let termination = &record.result.termination;
    let detail = match termination {
        referee::Termination::Rules | referee::Termination::Adjudicated { .. } => None,
        referee::Termination::Timeout { detail, .. }
        | referee::Termination::IllegalMove { detail, .. }
        | referee::Termination::Crash { detail, .. }
        | referee::Termination::ProtocolError { detail, .. } => Some(detail.chars().take(200).collect()),
    };
    let result = store::LadderResult {
        game_id: game.id.clone(),
        players: [(pair[0].bot.clone(), pair[0].version), (pair[1].bot.clone(), pair[1].version)],
        winner,
        fault: termination.side().map(|side| (side.index(), termination.kind().to_string())),
        fault_detail: detail,
        ratings: [(a.rating, a.uncertainty), (b.rating, b.uncertainty)],
        pause_after: PAUSE_AFTER,
    };
    app.arena.record_game(ladder.id, &result).await.map_err(|e| e.to_string())?;
    Ok(())
}

pub fn routes() -> Router<Arc<App>> {
    Router::new()
        .route("/api/ladders", get(list).post(create))
        .route("/api/ladders/{id}", get(standings))
        .route("/api/ladders/{id}/games", get(ladder_games))
        .route("/api/ladders/{id}/freeze", post(freeze))
        .route("/api/bots/{game}/{name}", get(bot_page))
}

/// The ladders of `kind` where the bot's playing version is paused (its faults in a
/// row), each with why: `[{ladder, version, reason}]`, for its pages.
pub async fn pauses(app: &App, kind: GameKind, bot: &str) -> ApiResult<Vec<Value>> {
    let ladders: Vec<Arc<Ladder>> = app.ladders.lock().values().filter(|l| l.kind == kind).cloned().collect();
    let mut out = Vec::new();
    for ladder in ladders {
        for player in app.arena.players(ladder.id).await? {
            if player.bot == bot
                && player.active
                && !player.boss
                && let Some(reason) = player.paused
            {
                out.push(json!({ "ladder": ladder.id, "version": player.version, "reason": reason }));
            }
        }
    }
    Ok(out)
}

/// A bot's page: its owner, its versions, and per ladder of its game its standing, its
/// rating after each game (every version) and its recent games and faults.
async fn bot_page(
    State(app): AppState,
    caller: crate::auth::Caller,
    UrlPath((game, name)): UrlPath<(String, String)>,
) -> ApiResult<Json<Value>> {
    let kind = games::parse_game(&game)?;
    let versions = app.submissions.versions(kind, &name)?;
    if versions.is_empty() {
        return Err(ApiError::not_found(format!("there is no {} bot called {name}", crate::view::game_name(kind))));
    }
    let owner = app.arena.owner(kind.name(), &name).await?;
    let may_see = caller.may_see(owner.as_deref());
    let versions: Vec<Value> = versions
        .iter()
        .map(|v| {
            json!({
                "version": v.version, "uploaded": v.uploaded, "uploaded_ms": v.uploaded_ms, "language": v.language,
                "protocol": v.protocol.name(), "entry_check": v.entry_check,
                "compile_log": if may_see { json!(v.compile_log) } else { Value::Null },
            })
        })
        .collect();
    let history = app.arena.history(&name).await?;
    let ladders: Vec<Arc<Ladder>> = app.ladders.lock().values().filter(|l| l.kind == kind).cloned().collect();
    let mut standings = Vec::new();
    for ladder in &ladders {
        let players = app.arena.players(ladder.id).await?;
        let Some(current) = players.iter().find(|p| !p.boss && p.active && p.bot == name) else { continue };
        let games = app.arena.games(Some(ladder.id), Some(&name), 20).await?;
        let faults: Vec<Value> = app
            .arena
            .games(Some(ladder.id), Some(&name), 500)
            .await?
            .iter()
            .filter(|g| g.fault_side.is_some_and(|side| g.players[side as usize].0 == name))
            .take(20)
            .map(game_line)
            .collect();
        standings.push(json!({
            "ladder": ladder.id, "title": crate::view::heading(ladder.kind, &ladder.options), "frozen": ladder.frozen(),
            "rating": current.rating, "uncertainty": current.uncertainty, "version": current.version,
            "games": current.games, "wins": current.wins, "draws": current.draws, "losses": current.losses,
            "rank": players.iter().filter(|p| p.active && p.rating > current.rating).count() + 1,
            "paused": current.paused, "fault_streak": current.fault_streak, "pause_after": PAUSE_AFTER,
            "history": history.iter().filter(|h| h.ladder == ladder.id).collect::<Vec<_>>(),
            "recent": games.iter().map(game_line).collect::<Vec<_>>(),
            "faults": faults,
        }));
    }
    Ok(Json(json!({
        "game": kind.name(), "title": crate::view::game_name(kind), "name": name, "entrant": owner, "versions": versions, "ladders": standings,
    })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NewLadder {
    game: String,
    #[serde(default)]
    options: Options,
    #[serde(default)]
    bosses: Vec<String>,
}

async fn create(State(app): AppState, _: Organiser, ApiJson(req): ApiJson<NewLadder>) -> ApiResult<(StatusCode, Json<Value>)> {
    let kind = games::parse_game(&req.game)?;
    // The options are checked by making a start position.
    games::start_position(kind, &req.options, 0)?;
    let mut bosses = Vec::new();
    for (i, name) in req.bosses.iter().enumerate() {
        let builtin = players::Builtin::parse(name)
            .map_err(|_| ApiError::bad_request(format!("a boss is a built-in player ({}), not {name:?}", players::Builtin::names())))?;
        if !builtin.rung.plays(kind, &req.options) {
            return Err(ApiError::bad_request(format!("the built-in player {name} does not play {kind} with these options")));
        }
        if req.bosses[..i].contains(name) {
            return Err(ApiError::bad_request(format!("boss {name} is named twice")));
        }
        let count = req.bosses.len();
        bosses.push((name.clone(), rating::boss_rating(i, count), rating::BOSS_UNCERTAINTY));
    }
    let options = serde_json::to_string(&req.options).map_err(|e| ApiError::internal(e.to_string()))?;
    let id = app.arena.add_ladder(kind.name(), &options, &bosses).await?;
    spawn(&app, Ladder::new(id, kind, req.options, req.bosses, false));
    Ok((StatusCode::CREATED, Json(json!({ "id": id }))))
}

fn find(app: &App, id: &str) -> ApiResult<Arc<Ladder>> {
    id.parse::<i64>()
        .ok()
        .and_then(|id| app.ladders.get(id))
        .ok_or_else(|| ApiError::not_found(format!("there is no ladder {id} (the ladders page lists them)")))
}

/// A ladder's summary and standings: its active players, best first.
pub async fn ladder_json(app: &App, ladder: &Ladder) -> ApiResult<Value> {
    let players = app.arena.players(ladder.id).await?;
    let boss_ratings: Vec<f64> = {
        let mut r: Vec<f64> = players.iter().filter(|p| p.boss).map(|p| p.rating).collect();
        r.sort_by(f64::total_cmp);
        r
    };
    let standings: Vec<Value> = players
        .iter()
        .filter(|p| p.active)
        .map(|p| {
            json!({
                "entrant": p.entrant, "bot": p.bot, "version": if p.boss { Value::Null } else { json!(p.version) },
                "boss": p.boss, "rating": p.rating, "uncertainty": p.uncertainty, "games": p.games, "wins": p.wins,
                "draws": p.draws, "losses": p.losses, "paused": p.paused,
                "league": if p.boss { Value::Null } else { json!(rating::league(p.rating, &boss_ratings)) },
            })
        })
        .collect();
    let games = app.arena.games(Some(ladder.id), None, 1).await?.first().map_or(0, |g| g.number);
    Ok(json!({
        "id": ladder.id, "game": ladder.kind.name(), "title": crate::view::heading(ladder.kind, &ladder.options), "options": ladder.options,
        "bosses": ladder.bosses, "frozen": ladder.frozen(), "games": games, "workers": app.ladders.workers,
        "running": app.ladders.running.load(Ordering::SeqCst), "peak_running": app.ladders.peak.load(Ordering::SeqCst),
        "waiting_for_worker": ladder.waiting.load(Ordering::SeqCst), "standings": standings,
    }))
}

async fn list(State(app): AppState) -> ApiResult<Json<Value>> {
    let ladders: Vec<Arc<Ladder>> = app.ladders.lock().values().cloned().collect();
    let mut list = Vec::new();
    for ladder in ladders {
        let mut summary = ladder_json(&app, &ladder).await?;
        if let Some(object) = summary.as_object_mut() {
            object.remove("standings");
        }
        list.push(summary);
    }
    Ok(Json(Value::Array(list)))
}

async fn standings(State(app): AppState, UrlPath(id): UrlPath<String>) -> ApiResult<Json<Value>> {
    let ladder = find(&app, &id)?;
    Ok(Json(ladder_json(&app, &ladder).await?))
}

/// A ladder game as pages list it.
pub fn game_line(game: &store::LadderGame) -> Value {
    let name = |(bot, version): &(String, i64)| if *version == 0 { bot.clone() } else { format!("{bot} v{version}") };
    json!({
        "ladder": game.ladder, "number": game.number, "id": game.game_id,
        "names": [name(&game.players[0]), name(&game.players[1])], "bots": [game.players[0].0, game.players[1].0],
        "winner": game.winner, "fault_side": game.fault_side, "fault": game.fault, "finished_ms": game.finished_ms,
    })
}

/// A page of a ladder's games: `?before=N` (games numbered below N, the page after one
/// ending at N) and `?limit=M` (at most 100, default 50).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GamesPage {
    before: Option<i64>,
    limit: Option<i64>,
}

/// A ladder's games, newest first, a page at a time (ladder games are listed here, not
/// on the front page, which they would fill).
async fn ladder_games(
    State(app): AppState,
    UrlPath(id): UrlPath<String>,
    axum::extract::Query(page): axum::extract::Query<GamesPage>,
) -> ApiResult<Json<Value>> {
    let ladder = find(&app, &id)?;
    let limit = page.limit.unwrap_or(50);
    if !(1..=100).contains(&limit) {
        return Err(ApiError::bad_request(format!("limit = {limit}: give 1 to 100")));
    }
    let games = app.arena.games_before(Some(ladder.id), None, page.before, limit).await?;
    Ok(Json(Value::Array(games.iter().map(game_line).collect())))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FreezeRequest {
    frozen: bool,
}

async fn freeze(
    State(app): AppState,
    _: Organiser,
    UrlPath(id): UrlPath<String>,
    ApiJson(req): ApiJson<FreezeRequest>,
) -> ApiResult<Json<Value>> {
    let ladder = find(&app, &id)?;
    app.arena.set_frozen(ladder.id, req.frozen).await?;
    {
        let _starting = app.ladders.starting.lock().await;
        ladder.frozen.store(req.frozen, Ordering::SeqCst);
    }
    app.ladders.refresh();
    ladder.wake.notify_one();
    Ok(Json(json!({ "id": ladder.id, "frozen": req.frozen })))
}
