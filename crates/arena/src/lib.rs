//! Runs a tournament: asks each stage's schedule for the games it needs, plays them with
//! the referee on N parallel workers, writes each finished game to the store at once, and
//! resumes from the store after a crash, a kill or Ctrl-C (finished games are never played
//! again; unfinished ones are played from the start).

pub mod bundles;
pub mod doctor;
mod entrants;
mod outcome;
pub mod pgn;
pub mod report;
pub mod shared;
mod stages;
#[cfg(test)]
mod tests;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use referee::ahead::Ahead;
use referee::lanes::Lanes;
use referee::pool::Pool;
use referee::resources::GameResources;
use referee::{BotSpec, GameRecord, GameSetup, LimitOverrides, Limits};
use rules::{AnyPosition, GameKind, Options};
use serde::{Deserialize, Serialize};
use tokio::sync::Semaphore;
use tokio::task::JoinSet;
use tournament::config::{Format, StageConfig};
use tournament::progress::{self, Known, StageKnown, Step};
use tournament::{Entrant, EntrantId, GameOutcome, GameSpec, TournamentConfig};

pub use entrants::{ResolvedEntrant, resolve_entrants};
pub use outcome::outcome_of;
use stages::{Record, Stages};

/// Why a tournament could not run (the bots' faults are results, not errors).
#[derive(Debug, thiserror::Error)]
pub enum ArenaError {
    #[error(transparent)]
    Store(#[from] store::StoreError),
    #[error("{0}")]
    Busy(store::StoreError),
    /// An entrant's bot (or a stage's baseline) named something that cannot be played.
    #[error("{0}")]
    Bot(String),
    /// The threads that play the games could not be started.
    #[error("cannot start the threads that play the games: {0}")]
    Lanes(std::io::Error),
    /// The referee could not ask a program for its self-description (not the bot's fault).
    #[error("cannot ask {bot} for its self-description: {error}")]
    Describe { bot: String, error: referee::RefereeError },
    /// A task of ours (packing, unpacking, a worker's lane) failed.
    #[error("{what} task failed: {error}")]
    Task { what: &'static str, error: tokio::task::JoinError },
    /// A program bot's folder cannot be packed for the database.
    #[error("bot {bot}: {message}")]
    Pack { bot: String, message: String },
    /// The files the config reads cannot be packed for the database.
    #[error("{0}")]
    ConfigFiles(String),
    /// Files stored in a shared database are refused (damaged or hostile).
    #[error("the stored files of {what} in {db} are refused: {message}")]
    StoredFiles { what: String, db: String, message: String },
    /// A stored file the config reads is not text.
    #[error("the stored file {0} is not text (UTF-8)")]
    NotText(String),
    /// A bot fetched from the database cannot be unpacked into the cache.
    #[error("cannot unpack bot {bot} into {}: {error}", cache.display())]
    Unpack { bot: String, cache: PathBuf, error: std::io::Error },
    /// A bot fetched from the database cannot be played.
    #[error("bot {bot} as stored: {message}")]
    StoredBot { bot: String, message: String },
    /// The tournament's config stored in a shared database does not read.
    #[error(transparent)]
    StoredConfig(tournament::ConfigError),
    /// A shared database holds no tournament.
    #[error("{db} holds no tournament yet: create one with `arbiter tournament CONFIG --db URL`")]
    NoTournament { db: String },
    /// A shared database's tournament has been in creation too long.
    #[error(
        "the tournament in {db} has been in creation for {minutes} minutes: its `arbiter tournament CONFIG --db URL` may have stopped mid-way; run it again"
    )]
    CreationStalled { db: String, minutes: u64 },
    #[error("stage {stage}: {message}")]
    Stage { stage: String, message: String },
    #[error(
        "bot {name} changed during stage {stage} (its program was {was}, now {now}); restore it, or start a new tournament with another --db file"
    )]
    ChangedBot { name: String, stage: String, was: String, now: String },
    #[error("bot {name} was replaced before stage {stage}, which does not allow replacements")]
    ReplacedBot { name: String, stage: String },
    /// Our own failure, not a bot's: the game is not stored and is played by the next run.
    #[error("the referee failed to play game {key} {attempts} times (not a bot's fault): {error}")]
    Referee { key: String, attempts: u32, error: String },
    /// An HTTP worker's call to `arbiter serve` failed: `transient` when it may work if
    /// tried again (the server restarting, the network cut, the server busy).
    #[error("{message}")]
    Remote { message: String, transient: bool },
}

impl ArenaError {
    /// Whether the run may go on if tried again later: the database could not be reached.
    pub fn is_transient(&self) -> bool {
        match self {
            ArenaError::Store(error) => error.is_transient(),
            ArenaError::Remote { transient, .. } => *transient,
            _ => false,
        }
    }
}

/// How a run goes.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Games played at the same time.
    pub jobs: usize,
    /// The folder the config's relative paths are resolved against.
    pub config_dir: PathBuf,
    /// Whether program bots run inside the sandbox.
    pub sandboxed: bool,
    /// Whether games run on lanes of their own (`referee::lanes`), each pinned to a CPU
    /// of its own when `jobs` is at most the CPUs this process may use; `false` plays
    /// them on the caller's runtime, the scheduler placing them and their bots.
    pub pin: bool,
    /// Sees every game while it is played (the web arena's live views); `None` for none.
    pub watch: Option<Watch>,
    /// When another runner holds the tournament: wait for it to let go (true), or refuse
    /// at once with [`ArenaError::Busy`] naming the holder (false).
    pub wait_for_runner: bool,
    /// Workers shared with other work of the process (the web arena's ladders): each game
    /// also waits for one of them, besides one of the run's `jobs`; `None` for none.
    pub shared: Option<SharedWorkers>,
}

/// Where a run takes a shared worker for each game: the future resolves once the game
/// may start, to a guard that the game holds until it ends (dropping it frees the
/// worker).
#[derive(Clone)]
pub struct SharedWorkers(pub Arc<dyn Fn() -> SharedWorker + Send + Sync>);

/// A shared worker on its way ([`SharedWorkers`]).
pub type SharedWorker = std::pin::Pin<Box<dyn std::future::Future<Output = Box<dyn Send>> + Send>>;

impl std::fmt::Debug for SharedWorkers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SharedWorkers")
    }
}

/// How long a runner waiting for another's lock waits between two looks.
const LOCK_POLL: std::time::Duration = std::time::Duration::from_millis(500);

/// How often at most a stage's leader is worked out for [`Event::GameFinished`].
pub const LEADER_EVERY: Duration = Duration::from_millis(200);

/// A game of the tournament while it is played, move by move.
#[derive(Clone, Debug)]
pub enum Live {
    /// A game starts: its key, stage, round, the players' entrant names and the start.
    Started { key: String, stage: usize, round: u32, names: [String; 2], options: Options, start: AnyPosition },
    /// A move was accepted: the position after it and the turn's record.
    Turn { key: String, position: AnyPosition, turn: Box<referee::TurnRecord> },
    /// The game ended (its record is stored before this is sent).
    Ended { key: String, record: Box<GameRecord> },
    /// The game was given up by the referee's own failure (it is tried again later, with a
    /// new `Started`): nothing of it counts.
    Abandoned { key: String, reason: String },
}

/// A function that sees [`Live`] updates, called from the games' tasks.
#[derive(Clone)]
pub struct Watch(pub Arc<dyn Fn(Live) + Send + Sync>);

impl std::fmt::Debug for Watch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Watch(..)")
    }
}

/// What the runner tells its caller as it goes (for progress bars and live pages).
#[derive(Clone, Debug)]
pub enum Event {
    /// Another runner holds the tournament; this one waits for it (told once per holder).
    Waiting {
        holder: String,
    },
    /// A stage starts (or resumes): its name and how many of its games are stored.
    StageStarted {
        stage: usize,
        name: String,
        finished: usize,
    },
    /// The schedule asked for more games: the total known so far in this stage.
    Planned {
        stage: usize,
        total: usize,
    },
    /// A game ended and is stored. `leader`: the stage's leader so far, worked out at
    /// most every [`LEADER_EVERY`] and when the last game in play ends (`None`: not
    /// worked out this time); the standings of a stage of thousands of games are not
    /// worth computing at the end of every game for a progress line.
    GameFinished {
        stage: usize,
        outcome: Box<GameOutcome>,
        leader: Option<String>,
    },
    /// An entrant failed its stage's entry check before playing (its self-description
    /// failed): who and why (a `Note` says the same for people).
    EntrantFailed {
        stage: usize,
        entrant: EntrantId,
        reason: String,
    },
    /// Something a person should know (an entrant failed the entry check, ...).
    Note {
        stage: usize,
        text: String,
    },
    StageFinished {
        stage: usize,
        result: StoredStageResult,
    },
}

/// A decided stage as stored.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredStageResult {
    pub ranking: Vec<EntrantId>,
    pub qualified: Vec<EntrantId>,
    pub failed: Vec<(EntrantId, String)>,
}

/// The name under which the runner adds a stage's baseline to the entrants.
pub fn baseline_name(stage: &StageConfig) -> String {
    format!("baseline ({})", stage.format.baseline().unwrap_or("random"))
}

/// The lanes `jobs` games at a time are played on when `pin` (`referee::lanes`: each
/// pinned to a core of its own when there are cores enough), or none (the games then run
/// on the caller's runtime): for every command that plays bots' games.
pub fn start_lanes(pin: bool, jobs: usize) -> Result<Option<Arc<Lanes>>, ArenaError> {
    if !pin {
        return Ok(None);
    }
    Lanes::start(jobs, true).map(Some).map_err(ArenaError::Lanes)
}

/// Runs (or resumes) the tournament to its end. When the config allows it (`reuse`),
/// bots that can play game after game keep their processes between their games, in a
/// pool for the whole run, ended with it. In the sandbox, bots with a process per move
/// find their next game's sandbox started ahead (`referee::ahead`), a stock ended with
/// the run too.
pub async fn run_tournament(
    config: &TournamentConfig,
    config_text: &str,
    entrants: &[ResolvedEntrant],
    store: &store::Store,
    options: &RunOptions,
    mut on_event: impl FnMut(Event),
) -> Result<Vec<StoredStageResult>, ArenaError> {
    // Every entrant and every stage's baseline may have a process waiting.
    let size = Pool::size_for(entrants.len() + config.stages.len(), options.jobs.max(1));
    let resources = GameResources::new(
        config.reuse.then(|| Pool::new(size)),
        options.sandboxed.then(|| Ahead::new(size)),
        start_lanes(options.pin, options.jobs)?,
    );
    let result = async {
        // One runner per tournament, from before the first read of its games to the end.
        let lock = lock_runner(store, options.wait_for_runner, &mut on_event).await?;
        store.begin_tournament(&config.name, config_text, &tournament_hash(config_text, entrants)).await?;
        let (all, specs, baselines) = with_baselines(config, entrants, &options.config_dir)?;
        store.save_entrants(&all).await?;
        let stages = Stages::new(store, config, (&all, &specs), &options.config_dir, options.sandboxed).await?;
        let runner = Runner {
            stages,
            n_entrants: entrants.len(),
            baselines: &baselines,
            specs: Arc::new(specs.clone()),
            options,
            resources: &resources,
            lock: &|| lock.check(),
            referee: None,
        };
        runner.run(on_event).await
    }
    .await;
    resources.close().await;
    result
}

/// Stands in for the referee in tests of the runner: plays a game (its spec, its start,
/// the attempt) and gives its record or the referee's failure.
pub(crate) type StandIn = Arc<
    dyn Fn(GameSpec, AnyPosition) -> std::pin::Pin<Box<dyn Future<Output = Result<GameRecord, referee::RefereeError>> + Send>>
        + Send
        + Sync,
>;

/// The local runner: carries out the stage progression's steps (`tournament::progress`)
/// against its record, playing the games on up to `jobs` workers.
pub(crate) struct Runner<'a, R: Record> {
    stages: Stages<'a, R>,
    /// How many of the entrants are the config's own (the baselines follow).
    n_entrants: usize,
    baselines: &'a [Option<EntrantId>],
    specs: Arc<Vec<BotSpec>>,
    options: &'a RunOptions,
    /// The processes kept between games, the sandboxes started ahead, the lanes.
    resources: &'a GameResources,
    /// Checks that the run still holds its runner lock, before a game is stored.
    lock: &'a (dyn Fn() -> Result<(), store::StoreError> + Sync),
    /// Tests only: plays the games instead of the referee.
    referee: Option<StandIn>,
}

/// The stage the local runner is in, as far as this run knows it.
struct StageRun {
    idx: usize,
    starts: Arc<Starts>,
    limits: LimitOverrides,
    participants: Vec<EntrantId>,
    /// Whether its `StageStarted` was told.
    announced: bool,
    /// Whether its programs were built and checked against its prints in this run.
    checked: bool,
    /// What its game tasks share, made on its first game.
    job: Option<GameJob>,
    /// When its leader was last worked out for the progress.
    leader_at: Option<std::time::Instant>,
}

impl<'a, R: Record> Runner<'a, R> {
    async fn run(mut self, mut on_event: impl FnMut(Event)) -> Result<Vec<StoredStageResult>, ArenaError> {
        let config = self.stages.config;
        let all = self.stages.all;
        let mut known: Vec<StageKnown> =
            self.stages.started().await?.into_iter().map(|participants| StageKnown { participants, ..StageKnown::default() }).collect();
        let mut finished: Vec<GameOutcome> = self.stages.record.games().await?;
        let mut results = Vec::new();
        let mut current: Option<StageRun> = None;
        // A stage's games run on up to `jobs` workers, and the progression is asked again
        // whenever fewer games are under way than there are workers (a game ended): a
        // bracket's next match or a Swiss round starts as soon as its players are known,
        // not when a whole batch has ended. One game more than the workers waits for the
        // first worker free (`GameJob::permits`), so that a worker starts its next game as
        // soon as it ends one, while the runner stores the one that ended.
        let mut running: JoinSet<Attempt> = JoinSet::new();
        let mut in_flight: HashSet<String> = HashSet::new();
        // Why the run stops, once it must: no new game starts, and those that finish
        // meanwhile are still stored.
        let mut stop: Option<ArenaError> = None;
        loop {
            if stop.is_none() && running.len() < self.options.jobs.max(1) + 1 {
                let step = progress::next(
                    config,
                    &Known { entrants: all, n_entrants: self.n_entrants, baselines: self.baselines, games: &finished, stages: &known },
                );
                match step {
                    Step::Openings { stage: idx } => {
                        let stage = &config.stages[idx];
                        let stage_options = stage.options.clone().unwrap_or_else(|| config.options.clone());
                        let openings = stage_openings(config, stage, idx, &stage_options, &self.options.config_dir, &HashMap::new())?;
                        let starts = Arc::new(Starts::new(config.game, &stage_options, &openings, config.seed, &stage.name)?);
                        known[idx].openings = Some(openings.len());
                        let limits = config.limits.overridden_by(stage.limits);
                        current = Some(StageRun {
                            idx,
                            starts,
                            limits,
                            participants: Vec::new(),
                            announced: false,
                            checked: false,
                            job: None,
                            leader_at: None,
                        });
                        in_flight.clear();
                        continue;
                    }
                    Step::Enter { stage: idx, candidates, entry_check } => {
                        let participants = self.stages.entry_check(idx, candidates, entry_check, &mut on_event).await?;
                        let run = current.as_mut().expect("a stage's openings come before its start");
                        run.participants.clone_from(&participants);
                        self.announce(run, &finished, &mut on_event);
                        self.stages.start_programs(idx, &participants, &mut on_event).await?;
                        run.checked = true;
                        known[idx].participants = Some(participants);
                        continue;
                    }
                    Step::Play { stage: idx, participants, games } => {
                        let run = current.as_mut().expect("a stage's openings come before its games");
                        run.participants = participants;
                        self.announce(run, &finished, &mut on_event);
                        // Programs matter only while the stage has games to play: a decided
                        // stage is not held against a bot changed since.
                        if !run.checked {
                            self.stages.start_programs(idx, &run.participants, &mut on_event).await?;
                            run.checked = true;
                        }
                        let stored: HashSet<&str> = finished.iter().filter(|o| o.spec.stage == idx).map(|o| o.spec.key.as_str()).collect();
                        let new: Vec<GameSpec> = games.into_iter().filter(|g| !in_flight.contains(&g.key)).collect();
                        let planned: HashSet<&str> = stored
                            .iter()
                            .copied()
                            .chain(new.iter().map(|g| g.key.as_str()))
                            .chain(in_flight.iter().map(String::as_str))
                            .collect();
                        on_event(Event::Planned { stage: idx, total: planned.len() });
                        if new.is_empty() && running.is_empty() {
                            return Err(ArenaError::Stage {
                                stage: config.stages[idx].name.clone(),
                                message: "the schedule asks for no new game but is not done".to_string(),
                            });
                        }
                        if !new.is_empty() && run.job.is_none() {
                            run.job = Some(self.job(run).await?);
                        }
                        if let Some(job) = &run.job {
                            for spec in new {
                                let start = run
                                    .starts
                                    .for_game(&spec)
                                    .map_err(|message| ArenaError::Stage { stage: config.stages[idx].name.clone(), message })?;
                                in_flight.insert(spec.key.clone());
                                job.spawn(&mut running, spec, start, 1, Duration::ZERO);
                            }
                        }
                    }
                    // Games still under way that the schedule no longer needs finish and
                    // are stored first.
                    Step::Decide { .. } if !running.is_empty() => {}
                    Step::Decide { stage: idx, participants, result } => {
                        let mut run = current.take().expect("a stage's openings come before its result");
                        run.participants = participants;
                        self.announce(&mut run, &finished, &mut on_event);
                        let stored = self.stages.decide(idx, result, &mut on_event).await?;
                        on_event(Event::StageFinished { stage: idx, result: stored.clone() });
                        known[idx].result = Some(stored.to_stage_result());
                        results.push(stored);
                        continue;
                    }
                    Step::Done => return Ok(results),
                }
            }
            let Some(joined) = running.join_next().await else {
                match stop.take() {
                    Some(err) => return Err(err),
                    None => continue,
                }
            };
            let Some(run) = current.as_mut() else { continue };
            let Some(job) = &run.job else { continue };
            let stage = &config.stages[run.idx];
            let (spec, start, attempt, result) = match joined {
                Ok(Ok(Some(game))) => game,
                Ok(Ok(None)) => continue,
                Ok(Err(err)) => {
                    // A changed program: the games running are stopped too.
                    running.abort_all();
                    job.permits.close();
                    stop.get_or_insert(err);
                    continue;
                }
                Err(err) if err.is_cancelled() => continue,
                Err(err) => {
                    return Err(ArenaError::Stage { stage: stage.name.clone(), message: format!("a game task failed: {err}") });
                }
            };
            let record = match result {
                Ok(record) => record,
                Err(err) if stop.is_none() && attempt < ATTEMPTS => {
                    let wait = RETRY_WAIT * 2u32.pow(attempt - 1);
                    let text = format!(
                        "game {} was not played, by the referee's fault (not a bot's): {err}; trying again in {} s (attempt {} of {ATTEMPTS})",
                        spec.key,
                        wait.as_secs(),
                        attempt + 1
                    );
                    on_event(Event::Note { stage: run.idx, text });
                    job.spawn(&mut running, spec, start, attempt + 1, wait);
                    continue;
                }
                Err(err) => {
                    // The games running finish and are stored.
                    job.permits.close();
                    in_flight.remove(&spec.key);
                    stop.get_or_insert(ArenaError::Referee { key: spec.key.clone(), attempts: attempt, error: err.to_string() });
                    continue;
                }
            };
            in_flight.remove(&spec.key);
            let outcome = store_game(self.stages.record, self.lock, spec, &record).await?;
            if let Some((watch, _)) = &job.watch {
                (watch.0)(Live::Ended { key: outcome.spec.key.clone(), record: Box::new(record) });
            }
            finished.push(outcome.clone());
            let due = running.is_empty() || run.leader_at.is_none_or(|at| at.elapsed() >= LEADER_EVERY);
            let leader = due
                .then(|| {
                    run.leader_at = Some(std::time::Instant::now());
                    let so_far: Vec<GameOutcome> = finished.iter().filter(|o| o.spec.stage == run.idx).cloned().collect();
                    leader(stage, &run.participants, all, &so_far)
                })
                .flatten();
            on_event(Event::GameFinished { stage: run.idx, outcome: Box::new(outcome), leader });
        }
    }

    /// Tells that the stage starts (or resumes), once: with how many of its games are
    /// stored.
    fn announce(&self, run: &mut StageRun, finished: &[GameOutcome], on_event: &mut impl FnMut(Event)) {
        if run.announced {
            return;
        }
        run.announced = true;
        let stage_done = finished.iter().filter(|o| o.spec.stage == run.idx).count();
        on_event(Event::StageStarted { stage: run.idx, name: self.stages.config.stages[run.idx].name.clone(), finished: stage_done });
    }

    /// What the stage's game tasks share.
    async fn job(&self, run: &StageRun) -> Result<GameJob, ArenaError> {
        let all = self.stages.all;
        let names: Vec<String> = all.iter().map(|e| e.name.clone()).collect();
        let stage = &self.stages.config.stages[run.idx];
        Ok(GameJob {
            specs: Arc::clone(&self.specs),
            permits: Arc::new(Semaphore::new(self.options.jobs.max(1))),
            options: run.starts.options.clone(),
            limits: run.limits,
            sandboxed: self.options.sandboxed,
            pool: self.resources.pool(),
            ahead: self.resources.ahead(),
            lanes: self.resources.lanes().cloned(),
            watch: self.options.watch.clone().map(|w| (w, names.clone())),
            names: Arc::new(names),
            prints: Arc::new(StagePrints::load(self.stages.record, run.idx, &stage.name, all).await?),
            shared: self.options.shared.clone(),
            referee: self.referee.clone(),
        })
    }
}

/// The entrants and their bots with every entry check's baseline added after them (so
/// that its games are games like any other), and each stage's baseline's id.
#[allow(clippy::type_complexity)]
fn with_baselines(
    config: &TournamentConfig,
    entrants: &[ResolvedEntrant],
    config_dir: &Path,
) -> Result<(Vec<Entrant>, Vec<BotSpec>, Vec<Option<EntrantId>>), ArenaError> {
    let mut all: Vec<Entrant> = entrants.iter().map(|e| e.entrant.clone()).collect();
    let mut specs: Vec<BotSpec> = entrants.iter().map(|e| e.spec.clone()).collect();
    let mut baselines = Vec::new();
    for stage in &config.stages {
        if stage.format.kind() == Format::EntryCheck {
            let name = baseline_name(stage);
            let id = match all.iter().position(|e| e.name == name) {
                Some(id) => id,
                None => {
                    let bot = stage.format.baseline().unwrap_or("random").to_string();
                    let spec = entrants::resolve_bot(&bot, config_dir, config.game).map_err(ArenaError::Bot)?;
                    all.push(Entrant { id: all.len(), name: name.clone(), bot, submitted: None });
                    specs.push(spec);
                    all.len() - 1
                }
            };
            baselines.push(Some(id));
        } else {
            baselines.push(None);
        }
    }
    Ok((all, specs, baselines))
}

/// Takes the tournament's runner lock, waiting for another runner to let go when asked
/// to (and telling the caller who it waits for), else refusing with the holder's name.
async fn lock_runner(store: &store::Store, wait: bool, on_event: &mut impl FnMut(Event)) -> Result<store::RunnerLock, ArenaError> {
    let mut told: Option<String> = None;
    loop {
        match store.lock_runner().await {
            Ok(lock) => return Ok(lock),
            Err(busy @ store::StoreError::Busy { .. }) if !wait => return Err(ArenaError::Busy(busy)),
            Err(store::StoreError::Busy { holder, .. }) => {
                let holder = holder.to_string();
                if told.as_ref() != Some(&holder) {
                    on_event(Event::Waiting { holder: holder.clone() });
                    told = Some(holder);
                }
                tokio::time::sleep(LOCK_POLL).await;
            }
            Err(error) => return Err(error.into()),
        }
    }
}

/// A program's self-description through its interface (built-ins always pass; an
/// interface without one, Pah-tum's, passes), inside the sandbox when the games are. The
/// inner `Err` is the bot's failure (with the last line it wrote on stderr); the outer
/// one is ours, which fails no bot.
async fn describe(spec: &BotSpec, config_dir: &Path, sandboxed: bool) -> Result<Result<(), String>, ArenaError> {
    let BotSpec::Program(bot) = spec else {
        return Ok(Ok(()));
    };
    let referee_error = |error: referee::RefereeError| ArenaError::Describe { bot: bot.manifest.name.clone(), error };
    let dir = tempfile_dir(config_dir).map_err(|err| referee_error(referee::RefereeError::new("cannot make a working directory", err)))?;
    match referee::drivers::describe_in(bot, dir.path(), sandboxed).await {
        Ok(_) => Ok(Ok(())),
        Err(referee::StartError::Referee(err)) => Err(referee_error(err)),
        Err(referee::StartError::Bot { fault, stderr }) => {
            let last_words = stderr.text.lines().rev().map(str::trim).find(|line| !line.is_empty());
            let said =
                last_words.map(|line| format!(" (its stderr ends: {})", line.chars().take(200).collect::<String>())).unwrap_or_default();
            Ok(Err(format!("no self-description: {}{said}", fault.detail)))
        }
    }
}

fn tempfile_dir(_config_dir: &Path) -> std::io::Result<tempfile::TempDir> {
    tempfile::Builder::new().prefix("arbiter-describe-").tempdir()
}

/// The leader of a stage so far, for the progress line.
fn leader(stage: &StageConfig, participants: &[EntrantId], all: &[Entrant], results: &[GameOutcome]) -> Option<String> {
    let table = tournament::standings::standings(stage, participants, all, results);
    table.rows.first().map(|row| all[row.entrant].name.clone())
}

/// Builds the participants' programs that need it ([`referee::ProgramBot::build_if_needed`],
/// inside the sandbox when the games are), so that a stage fingerprints what its games
/// will run: a program built later (by the first game's driver) would look changed.
/// Returns the programs that failed to build and why (their games record the failure as
/// the bot's).
async fn build_programs(participants: &[EntrantId], specs: &[BotSpec], sandboxed: bool) -> Vec<(EntrantId, String)> {
    let mut failed = Vec::new();
    for &id in participants {
        let BotSpec::Program(bot) = &specs[id] else { continue };
        if let Err(err) = bot.build_if_needed(sandboxed).await {
            failed.push((id, err.to_string()));
        }
    }
    failed
}

/// The fingerprints a stage started with, checked before and after every game: a program
/// edited during its stage stops the run. The check is cheap: the program's size and
/// modification time, hashed again only when they moved ([`referee::ProgramBot::fingerprint`]).
struct StagePrints {
    stage: String,
    /// Entrant names by id.
    names: Vec<String>,
    prints: Vec<(EntrantId, Option<String>)>,
}

impl StagePrints {
    async fn load(store: &impl Record, idx: usize, stage: &str, all: &[Entrant]) -> Result<StagePrints, ArenaError> {
        let names = all.iter().map(|e| e.name.clone()).collect();
        Ok(StagePrints { stage: stage.to_string(), names, prints: store.fingerprints(idx).await? })
    }

    /// Refuses a game's player whose program is not the one the stage started with.
    async fn check(&self, players: [EntrantId; 2], specs: &Arc<Vec<BotSpec>>) -> Result<(), ArenaError> {
        for id in players {
            let Some((_, was)) = self.prints.iter().find(|(p, _)| *p == id) else { continue };
            let spec = specs[id].clone();
            let now = tokio::task::spawn_blocking(move || fingerprint(&spec))
                .await
                .map_err(|err| ArenaError::Stage { stage: self.stage.clone(), message: format!("a fingerprint task failed: {err}") })?;
            if now != *was {
                return Err(ArenaError::ChangedBot {
                    name: self.names.get(id).cloned().unwrap_or_else(|| format!("entrant {id}")),
                    stage: self.stage.clone(),
                    was: short_print(was.as_deref(), "none"),
                    now: short_print(now.as_deref(), "missing"),
                });
            }
        }
        Ok(())
    }
}

/// A fingerprint as messages show it: the first 12 hex digits, or `absent`.
fn short_print(print: Option<&str>, absent: &str) -> String {
    print.map_or_else(|| absent.to_string(), |p| p.chars().take(12).collect())
}

fn fingerprint(spec: &BotSpec) -> Option<String> {
    match spec {
        BotSpec::Program(bot) => bot.fingerprint(),
        _ => None,
    }
}

/// The stage's start positions besides the default, read or generated now (so they stay
/// secret until the stage starts). An openings file is read from `dir`, unless `stored`
/// holds its text (a shared database's copy, by the path the config gives).
fn stage_openings(
    config: &TournamentConfig,
    stage: &StageConfig,
    idx: usize,
    options: &Options,
    dir: &Path,
    stored: &HashMap<PathBuf, String>,
) -> Result<Vec<String>, ArenaError> {
    let fail = |message: String| ArenaError::Stage { stage: stage.name.clone(), message };
    let file_text = match &stage.openings.file {
        Some(file) if stored.contains_key(file) => Some(stored[file].clone()),
        Some(file) => {
            let path = dir.join(file);
            Some(std::fs::read_to_string(&path).map_err(|err| fail(format!("cannot read openings {}: {err}", path.display())))?)
        }
        None => None,
    };
    let seed = tournament::openings::stage_seed(config.seed, idx);
    tournament::openings::stage_openings(config.game, options, &stage.openings, file_text.as_deref(), seed, &players::medium_wins_within)
        .map_err(|err| fail(err.to_string()))
}

/// The start positions of a stage: the game's default start, and the openings.
struct Starts {
    kind: GameKind,
    options: Options,
    default: Option<AnyPosition>,
    openings: Vec<AnyPosition>,
    seed: u64,
}

impl Starts {
    fn new(kind: GameKind, options: &Options, openings: &[String], seed: u64, stage: &str) -> Result<Starts, ArenaError> {
        let fail = |message: String| ArenaError::Stage { stage: stage.to_string(), message };
        let default = kind.new_position(options, None).ok();
        let openings = openings
            .iter()
            .enumerate()
            .map(|(n, text)| kind.new_position(options, Some(text)).map_err(|err| fail(format!("opening {}: {err}", n + 1))))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Starts { kind, options: options.clone(), default, openings, seed })
    }

    /// The start of a game. A game without a default start (Pah-tum) gets a random one,
    /// the same for every game of its match that asks for the default.
    fn for_game(&self, spec: &GameSpec) -> Result<AnyPosition, String> {
        match spec.opening {
            Some(n) => self
                .openings
                .get(n)
                .cloned()
                .ok_or_else(|| format!("game {} needs opening {}, which the stage does not have", spec.key, n + 1)),
            None => match &self.default {
                Some(pos) => Ok(pos.clone()),
                None => {
                    let seed = tournament::derive_seed(self.seed, &format!("{}/default-start", spec.match_key));
                    let mut rng = <rand::rngs::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(seed);
                    let text = self.kind.random_start(&self.options, &mut rng).map_err(|err| err.to_string())?;
                    self.kind.new_position(&self.options, text.as_deref()).map_err(|err| err.to_string())
                }
            },
        }
    }
}

/// How many times a game is tried when the referee itself fails (never a bot's fault).
pub const ATTEMPTS: u32 = 3;

/// The wait before a game's second attempt; it doubles for each further one.
pub const RETRY_WAIT: Duration = Duration::from_secs(1);

/// What a game task gives back: the game, its start, which attempt it was, and the
/// record or the referee's failure; `None` when the game was not started (the run is
/// stopping); an `Err` stops the run (a program changed during its stage).
type Attempt = Result<Option<(GameSpec, AnyPosition, u32, Result<GameRecord, referee::RefereeError>)>, ArenaError>;

/// What every game task of a stage shares.
#[derive(Clone)]
struct GameJob {
    specs: Arc<Vec<BotSpec>>,
    permits: Arc<Semaphore>,
    options: Options,
    limits: LimitOverrides,
    sandboxed: bool,
    /// Where processes wait between games (`reuse`).
    pool: Option<Arc<Pool>>,
    /// Where sandboxes of the next games are started ahead (in the sandbox).
    ahead: Option<Arc<Ahead>>,
    /// The threads the games run on (`RunOptions::pin`); `None`: the caller's runtime.
    lanes: Option<Arc<Lanes>>,
    watch: Option<(Watch, Vec<String>)>,
    /// The entrants' names by id: a record names its sides as the tournament does, not
    /// by their manifests (two entrants may run the same program).
    names: Arc<Vec<String>>,
    prints: Arc<StagePrints>,
    shared: Option<SharedWorkers>,
    /// Tests only: plays the games instead of the referee.
    referee: Option<StandIn>,
}

impl GameJob {
    /// Plays `spec` from `start` on a task of `running`, after `wait` and once a worker is
    /// free.
    fn spawn(&self, running: &mut JoinSet<Attempt>, spec: GameSpec, start: AnyPosition, attempt: u32, wait: Duration) {
        let job = self.clone();
        running.spawn(async move {
            tokio::time::sleep(wait).await;
            // Closed when the run stops: the game is left for the next run.
            let Ok(_permit) = Arc::clone(&job.permits).acquire_owned().await else { return Ok(None) };
            let _shared = match &job.shared {
                Some(shared) => Some((shared.0)().await),
                None => None,
            };
            let record = job.play(&spec, &start).await?;
            Ok(Some((spec, start, attempt, record)))
        });
    }

    /// Plays `spec` from `start`: the referee's record, or its failure (the inner
    /// `Err`). A program edited during its stage stops the run before its next game, and
    /// a game it played after the edit is not stored (checked again at the end).
    async fn play(&self, spec: &GameSpec, start: &AnyPosition) -> Result<Result<GameRecord, referee::RefereeError>, ArenaError> {
        match &self.lanes {
            Some(lanes) => {
                // The game on the lane holds no handle of the lanes: the lanes are dropped
                // with the run, not with the last game a stop left on them.
                let job = GameJob { lanes: None, ..self.clone() };
                let (spec, start) = (spec.clone(), start.clone());
                lanes.run(async move { job.play_here(&spec, &start).await }).await
            }
            None => self.play_here(spec, start).await,
        }
    }

    /// [`play`](GameJob::play) on the runtime it is called on.
    async fn play_here(&self, spec: &GameSpec, start: &AnyPosition) -> Result<Result<GameRecord, referee::RefereeError>, ArenaError> {
        let job = self;
        job.prints.check(spec.players, &job.specs).await?;
        let bots = [&job.specs[spec.players[0]], &job.specs[spec.players[1]]];
        let mut setup = GameSetup::new(start.clone(), job.options.clone(), spec.seed);
        setup.pool = job.pool.clone();
        setup.ahead = job.ahead.clone();
        setup.limits = [0, 1].map(|side| side_limits(setup.limits[side], bots[side], &job.limits));
        for side_limits in &mut setup.limits {
            side_limits.sandboxed = job.sandboxed;
        }
        if let Some((watch, names)) = &job.watch {
            let names = spec.players.map(|id| names.get(id).cloned().unwrap_or_default());
            let options = job.options.clone();
            (watch.0)(Live::Started { key: spec.key.clone(), stage: spec.stage, round: spec.round, names, options, start: start.clone() });
        }
        let key = spec.key.clone();
        let record = match &job.referee {
            Some(stand_in) => stand_in(spec.clone(), start.clone()).await,
            None => {
                referee::play_game(&setup, bots, |pos, turn| {
                    if let Some((watch, _)) = &job.watch {
                        (watch.0)(Live::Turn { key: key.clone(), position: pos.clone(), turn: Box::new(turn.clone()) });
                    }
                })
                .await
            }
        };
        if let (Err(err), Some((watch, _))) = (&record, &job.watch) {
            (watch.0)(Live::Abandoned { key: key.clone(), reason: err.to_string() });
        }
        let mut record = record;
        if let Ok(record) = &mut record {
            for (player, id) in record.players.iter_mut().zip(spec.players) {
                if let Some(name) = job.names.get(id) {
                    player.name.clone_from(name);
                }
            }
        }
        job.prints.check(spec.players, &job.specs).await?;
        Ok(record)
    }
}

/// Stores a finished game, holding the runner lock; a game already stored (by a runner
/// before this one) with another record is noted and counts as first stored.
async fn store_game(
    store: &impl Record,
    lock: &(dyn Fn() -> Result<(), store::StoreError> + Sync),
    spec: GameSpec,
    record: &GameRecord,
) -> Result<GameOutcome, ArenaError> {
    let outcome = outcome_of(spec, record);
    let json = serde_json::to_string(record).expect("a record serialises");
    lock()?;
    Ok(match store.save_game(&outcome, &json).await? {
        store::Saved::Stored | store::Saved::Again => outcome,
        store::Saved::Kept(kept) => {
            let text = format!("game {} was stored before with another result; the first stored counts", kept.spec.key);
            store.save_note(kept.spec.stage, None, &text).await?;
            *kept
        }
    })
}

/// A side's limits: the game's, then the bot's manifest, then the tournament's.
fn side_limits(base: Limits, bot: &BotSpec, overrides: &LimitOverrides) -> Limits {
    let mut limits = base;
    if let BotSpec::Program(program) = bot {
        limits = limits.with(&program.manifest.limits);
    }
    limits.with(overrides)
}

/// Identifies a tournament in its database: the config text and the resolved entrants.
fn tournament_hash(config_text: &str, entrants: &[ResolvedEntrant]) -> String {
    use sha2::{Digest, Sha256};
    let mut hasher = Sha256::new();
    hasher.update(config_text.as_bytes());
    for e in entrants {
        hasher.update(b"\n");
        hasher.update(e.entrant.name.as_bytes());
        hasher.update(b"=");
        hasher.update(e.entrant.bot.as_bytes());
    }
    hex::encode(hasher.finalize())
}
