//! The tournaments the server shows: databases named on the command line (written by
//! `arbiter tournament`, perhaps while the server runs) and those the organiser starts
//! from the web, which the server runs itself with the same runner and database format.
//! A watcher per tournament recomputes the standings when games finish and broadcasts
//! them to the live pages.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use arena::{Live, ResolvedEntrant, RunOptions, Watch};
use serde::Serialize;
use serde_json::json;
use tokio::sync::{Notify, broadcast};
use tournament::TournamentConfig;

use crate::live::{LiveGame, Origin, Registry, Update, now_us};
use crate::tasks::Tasks;

/// How often a watcher looks for games stored by another process.
const POLL: Duration = Duration::from_millis(500);

/// How many standings messages a slow viewer may fall behind before it is dropped.
pub const UPDATE_BUFFER: usize = 256;

/// How long a finished game stays in memory (followable live) before its page reads the
/// stored record.
pub const LINGER: Duration = Duration::from_secs(60);

/// Where a tournament stands.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct RunState {
    /// Run by this server and not finished.
    pub running: bool,
    /// Run by this server to its end.
    pub finished: bool,
    /// Why the run stopped, if it failed.
    pub error: Option<String>,
    /// Who runs it while this server waits for that runner to let go.
    pub waiting: Option<String>,
    /// Programs (manifest folders) of the entrants, for refusing uploads while they play.
    #[serde(skip)]
    pub programs: Vec<PathBuf>,
}

/// A game of the tournament being played.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct InProgress {
    pub key: String,
    pub stage: usize,
    /// The round within the stage, from 0 (the pages count from 1).
    pub round: u32,
    /// The tie-break round of a tie-break game (from 1), shown instead of its round.
    pub tie_break: Option<u32>,
    pub live_id: String,
    pub names: [String; 2],
}

/// One tournament: its database and its live state.
pub struct Tournament {
    pub id: String,
    pub path: PathBuf,
    pub store: store::Store,
    /// Whether this server runs it (else another process may be writing it).
    pub managed: bool,
    state: Mutex<RunState>,
    in_progress: Mutex<BTreeMap<String, InProgress>>,
    latest: Mutex<Option<Arc<str>>>,
    pub updates: broadcast::Sender<Update>,
    pub notify: Notify,
    /// The server's tasks, for the lingering removal of finished live games.
    tasks: Tasks,
}

/// A line of the tournament list.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    pub id: String,
    pub name: String,
    pub game: String,
    pub status: String,
    pub games: u64,
    /// The database's file name.
    pub file: String,
    /// Where a running tournament stands, for people: "Stage 2 of 3 (final) · round 4",
    /// the earliest stage and round of its games in progress; `None` when none is.
    pub progress: Option<String>,
}

/// A finished game as the tournament page lists it.
#[derive(Clone, Debug, Serialize)]
pub struct GameLine {
    pub key: String,
    pub stage: usize,
    pub round: u32,
    /// The tie-break round of a tie-break game (from 1), shown instead of its round.
    pub tie_break: Option<u32>,
    pub names: [String; 2],
    pub winner: Option<usize>,
    pub scores: Option<[i64; 2]>,
    pub fault: Option<(usize, String)>,
    pub moves: u32,
}

impl Tournament {
    pub fn new(id: String, path: PathBuf, store: store::Store, managed: bool, tasks: Tasks) -> Tournament {
        // Each message is a whole snapshot; a viewer this many behind is dropped and its
        // browser reconnects to a fresh snapshot.
        let (updates, _) = broadcast::channel(UPDATE_BUFFER);
        Tournament {
            id,
            path,
            store,
            managed,
            state: Mutex::new(RunState::default()),
            in_progress: Mutex::new(BTreeMap::new()),
            latest: Mutex::new(None),
            updates,
            notify: Notify::new(),
            tasks,
        }
    }

    pub fn state(&self) -> RunState {
        self.state.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    fn set_state(&self, change: impl FnOnce(&mut RunState)) {
        change(&mut self.state.lock().unwrap_or_else(|p| p.into_inner()));
        self.notify.notify_one();
    }

    /// The tournament is about to run with these entrants: their programs are frozen from
    /// now on (called before the run is spawned, so that no upload slips in between).
    pub fn mark_running(&self, entrants: &[ResolvedEntrant]) {
        let programs = entrants
            .iter()
            .filter_map(|e| match &e.spec {
                referee::BotSpec::Program(bot) => bot.manifest_path.parent().map(Path::to_path_buf),
                _ => None,
            })
            .collect();
        self.set_state(|s| {
            s.running = true;
            s.error = None;
            s.programs = programs;
        });
    }

    /// A stored tournament this server ran to its end.
    pub fn mark_finished(&self) {
        self.set_state(|s| s.finished = true);
    }

    /// A tournament that cannot run, and why.
    pub fn fail(&self, error: String) {
        self.set_state(|s| s.error = Some(error));
    }

    pub fn in_progress(&self) -> Vec<InProgress> {
        self.in_progress.lock().unwrap_or_else(|p| p.into_inner()).values().cloned().collect()
    }

    fn status(&self, state: &RunState) -> String {
        match (&state.error, state.running, state.finished) {
            (Some(error), _, _) => format!("stopped: {}", crate::hide_paths(error)),
            (None, true, _) if state.waiting.is_some() => {
                format!("waiting: {} runs it", state.waiting.as_deref().unwrap_or_default())
            }
            (None, true, _) => "running".to_string(),
            (None, false, true) => "finished".to_string(),
            _ => "stored".to_string(),
        }
    }

    pub async fn summary(&self) -> Summary {
        let row = self.store.tournament().await.ok().flatten();
        let config = row.as_ref().and_then(|row| TournamentConfig::parse_without_entrants(&row.config_text, "").ok());
        let game = config.as_ref().map(|c| c.game.name().to_string()).unwrap_or_default();
        let stages: Vec<String> = config.map(|c| c.stages.iter().map(|s| s.name.clone()).collect()).unwrap_or_default();
        let progress = self
            .in_progress()
            .iter()
            .map(|g| (g.stage, g.round, g.tie_break))
            .min()
            .map(|(stage, round, tie_break)| progress_line(&stages, stage, round, tie_break));
        Summary {
            id: self.id.clone(),
            name: row.map(|r| r.name).unwrap_or_else(|| "(empty)".to_string()),
            game,
            status: self.status(&self.state()),
            games: self.store.game_count().await.unwrap_or(0),
            file: self.file_name(),
            progress,
        }
    }

    /// The database's file name (the API shows no server paths).
    fn file_name(&self) -> String {
        self.path.file_name().map_or_else(|| self.id.clone(), |n| n.to_string_lossy().into_owned())
    }

    /// The finished games, newest first, with the entrants' names.
    pub async fn games(&self) -> Result<Vec<GameLine>, store::StoreError> {
        Ok(game_lines(&self.store.entrants().await?, self.store.games().await?))
    }

    /// The standings message: report, games in progress, recent games, status.
    async fn compute(&self) -> Arc<str> {
        // The state first: a run is finished only after its last game is stored, so a
        // `finished` message always carries every game.
        let state = self.state();
        // The entrants and games are read once, for the report and the list alike.
        let file = self.file_name();
        let read = async {
            let entrants = self.store.entrants().await?;
            let games = self.store.games().await?;
            let report = arena::report::report_with(&self.store, &file, &entrants, &games).await;
            Ok::<_, store::StoreError>((report, game_lines(&entrants, games)))
        };
        let (report, games) = match read.await {
            Ok((report, games)) => (report.map_err(|err| err.to_string()), games),
            Err(err) => (Err(err.to_string()), Vec::new()),
        };
        let (report, report_error) = match report {
            Ok(report) => (Some(report), None),
            Err(err) => (None, Some(err)),
        };
        let body = json!({
            "id": self.id,
            "status": self.status(&state),
            "report": report,
            "report_error": report_error,
            "in_progress": self.in_progress(),
            "finished_games": games.len(),
            "recent": games.iter().take(30).collect::<Vec<_>>(),
            "sent_us": now_us(),
        });
        Arc::from(body.to_string())
    }

    /// The latest standings message (computed now if none yet) and a receiver of the
    /// later ones.
    pub async fn snapshot_and_subscribe(&self) -> (Arc<str>, broadcast::Receiver<Update>) {
        let mut receiver = self.updates.subscribe();
        let latest = self.latest.lock().unwrap_or_else(|p| p.into_inner()).clone();
        let snapshot = match latest {
            Some(latest) => latest,
            // The watcher's first message is on its way (it keeps `latest` before it
            // sends); a message computed here could be newer than it and arrive first.
            None => match receiver.recv().await {
                Ok((_, first)) => first,
                Err(_) => self.compute().await,
            },
        };
        (snapshot, receiver)
    }

    pub async fn latest(&self) -> Arc<str> {
        self.snapshot_and_subscribe().await.0
    }

    /// Recomputes and broadcasts the standings whenever games finish or start, here or
    /// in another process writing the same file. Runs for the server's life.
    pub async fn watch(self: Arc<Self>) {
        let mut last: Option<(u64, Vec<String>, RunState)> = None;
        loop {
            let count = self.store.game_count().await.unwrap_or(0);
            let keys: Vec<String> = self.in_progress().into_iter().map(|g| g.live_id).collect();
            let now = (count, keys, self.state());
            if last.as_ref() != Some(&now) {
                let message = self.compute().await;
                *self.latest.lock().unwrap_or_else(|p| p.into_inner()) = Some(Arc::clone(&message));
                let _ = self.updates.send(("standings", message));
                last = Some(now);
            }
            tokio::select! {
                _ = self.notify.notified() => {}
                _ = tokio::time::sleep(POLL) => {}
            }
        }
    }

    /// Runs (or resumes) the tournament in this server: every game is followable live
    /// while it is played and stored when it ends.
    pub async fn run(
        self: Arc<Self>,
        config: TournamentConfig,
        text: String,
        entrants: Vec<ResolvedEntrant>,
        mut options: RunOptions,
        registry: Arc<Registry>,
    ) {
        self.mark_running(&entrants);
        let this = Arc::clone(&self);
        let watch_registry = Arc::clone(&registry);
        options.watch = Some(Watch(Arc::new(move |live| this.on_live(&watch_registry, live))));
        let on_event = |event| match event {
            arena::Event::Waiting { holder } => self.set_state(|s| s.waiting = Some(holder)),
            _ if self.state().waiting.is_some() => self.set_state(|s| s.waiting = None),
            _ => self.notify.notify_one(),
        };
        let result = arena::run_tournament(&config, &text, &entrants, &self.store, &options, on_event).await;
        self.set_state(|s| {
            s.running = false;
            s.waiting = None;
            match result {
                Ok(_) => s.finished = true,
                Err(err) => s.error = Some(err.to_string()),
            }
        });
    }

    fn on_live(self: &Arc<Self>, registry: &Arc<Registry>, live: Live) {
        match live {
            Live::Started { key, stage, round, names, options, start } => {
                let id = registry.new_id();
                let origin = Origin::Tournament { tournament: self.id.clone(), key: key.clone(), label: None };
                let game = Arc::new(LiveGame::new(id.clone(), names.clone(), options, start, origin, None));
                game.start();
                registry.insert(game);
                self.in_progress.lock().unwrap_or_else(|p| p.into_inner()).insert(
                    key.clone(),
                    InProgress { tie_break: tournament::schedule::tie_break_round(&key), key, stage, round, live_id: id, names },
                );
            }
            Live::Turn { key, position, turn } => {
                let id = self.in_progress.lock().unwrap_or_else(|p| p.into_inner()).get(&key).map(|g| g.live_id.clone());
                if let Some(game) = id.and_then(|id| registry.get(&id)) {
                    game.turn(&position, &turn);
                }
            }
            Live::Ended { key, record } => {
                let gone = self.in_progress.lock().unwrap_or_else(|p| p.into_inner()).remove(&key);
                if let Some(gone) = gone {
                    if let Some(game) = registry.get(&gone.live_id) {
                        game.finish(&record);
                    }
                    let registry = Arc::clone(registry);
                    self.tasks.spawn(async move {
                        tokio::time::sleep(LINGER).await;
                        registry.remove(&gone.live_id);
                    });
                }
            }
            // The referee's own failure: the game is tried again under a new live id.
            Live::Abandoned { key, .. } => {
                let gone = self.in_progress.lock().unwrap_or_else(|p| p.into_inner()).remove(&key);
                if let Some(gone) = gone {
                    registry.remove(&gone.live_id);
                }
            }
        }
        self.notify.notify_one();
    }
}

/// The tournaments of the server.
pub struct Tournaments {
    list: Mutex<Vec<Arc<Tournament>>>,
    tasks: Tasks,
}

impl Tournaments {
    /// No tournaments yet; their runs and watchers will be `tasks`.
    pub fn new(tasks: Tasks) -> Tournaments {
        Tournaments { list: Mutex::new(Vec::new()), tasks }
    }

    /// Runs (or resumes) `tournament` in the background, as one of the server's tasks.
    pub fn spawn_run(
        &self,
        tournament: &Arc<Tournament>,
        config: TournamentConfig,
        text: String,
        entrants: Vec<ResolvedEntrant>,
        options: RunOptions,
        registry: Arc<Registry>,
    ) {
        self.tasks.spawn(Arc::clone(tournament).run(config, text, entrants, options, registry));
    }

    pub fn all(&self) -> Vec<Arc<Tournament>> {
        self.list.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    pub fn get(&self, id: &str) -> Option<Arc<Tournament>> {
        self.all().into_iter().find(|t| t.id == id)
    }

    /// Adds a tournament and starts its watcher; its id is unique (`name`, `name-2`, ...).
    pub fn add(&self, base_id: &str, path: PathBuf, store: store::Store, managed: bool) -> Arc<Tournament> {
        let mut list = self.list.lock().unwrap_or_else(|p| p.into_inner());
        let mut id = base_id.to_string();
        let mut n = 2;
        while list.iter().any(|t| t.id == id) {
            id = format!("{base_id}-{n}");
            n += 1;
        }
        let tournament = Arc::new(Tournament::new(id, path, store, managed, self.tasks.clone()));
        list.push(Arc::clone(&tournament));
        self.tasks.spawn(Arc::clone(&tournament).watch());
        tournament
    }

    /// The running tournament of this server (if any) that has a program inside `folder`
    /// as an entrant: its stage holds the bot frozen.
    pub fn playing(&self, folder: &Path) -> Option<String> {
        let folder = folder.canonicalize().unwrap_or_else(|_| folder.to_path_buf());
        self.all().into_iter().find_map(|t| {
            let state = t.state();
            let plays = state.running && state.programs.iter().any(|p| p.canonicalize().unwrap_or_else(|_| p.clone()).starts_with(&folder));
            plays.then(|| t.id.clone())
        })
    }
}

/// Where a tournament stands, for people: "Stage 2 of 3 (final) · round 4" (counted
/// from 1; a single stage has no "of"; a stage's name when it has one).
fn progress_line(stages: &[String], stage: usize, round: u32, tie_break: Option<u32>) -> String {
    let name = stages.get(stage).filter(|n| !n.is_empty()).map(|n| format!(" ({n})")).unwrap_or_default();
    let of = if stages.len() > 1 { format!(" of {}", stages.len()) } else { String::new() };
    match tie_break {
        Some(t) => format!("Stage {}{of}{name} · tie-break {t}", stage + 1),
        None => format!("Stage {}{of}{name} · round {}", stage + 1, round + 1),
    }
}

/// The finished games as the pages list them, newest first, with the entrants' names.
fn game_lines(entrants: &[tournament::Entrant], games: Vec<tournament::GameOutcome>) -> Vec<GameLine> {
    let name = |id: usize| entrants.get(id).map_or_else(|| format!("#{id}"), |e| e.name.clone());
    let mut lines: Vec<GameLine> = games
        .into_iter()
        .map(|o| GameLine {
            names: o.spec.players.map(name),
            tie_break: tournament::schedule::tie_break_round(&o.spec.key),
            key: o.spec.key,
            stage: o.spec.stage,
            round: o.spec.round,
            winner: o.winner,
            scores: o.scores,
            fault: o.fault,
            moves: o.moves[0] + o.moves[1],
        })
        .collect();
    lines.reverse();
    lines
}

/// A file-name-safe id from a name: lower-case letters, digits and `-`.
pub fn slug(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    let out = out.trim_end_matches('-').chars().take(40).collect::<String>();
    if out.is_empty() { "tournament".to_string() } else { out }
}
