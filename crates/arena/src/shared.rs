//! A tournament played by workers on any number of machines: [`create`] records it in a
//! database, and every worker ([`work`], or an HTTP worker's [`work_remote`]) loops:
//! claim a queued game (a lease), play it while renewing the lease, store it fenced by
//! the lease. When nothing is left to claim, the [`Planner`] plans: under the planner's
//! lock, ask each stage's schedule (the pure `next(config, results)`) for its games and
//! queue the new ones, or decide the stage. A database worker has a planner of its own
//! (on PostgreSQL, no coordinator); an HTTP worker's [`Queue`] is `arbiter serve`, whose
//! planner does the same calls on its database (a SQLite file or PostgreSQL) and checks
//! each record it is sent against the rules before storing it. A worker killed at any
//! point loses nothing: its lease expires and the game is played again from the same
//! seed; a worker presumed dead cannot store it twice (`store::shared`).

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use referee::lanes::Lanes;
use referee::resources::GameResources;
use referee::{BotSpec, GameRecord};
use tokio::sync::{Mutex, Semaphore, mpsc};
use tokio::task::JoinSet;
use tournament::config::Format;
use tournament::progress::{self, Known, StageKnown, Step};
use tournament::{Entrant, EntrantId, GameOutcome, GameSpec, TournamentConfig};

use crate::stages::Stages;
use crate::{
    ArenaError, Event, GameJob, ResolvedEntrant, StagePrints, Starts, StoredStageResult, baseline_name, build_programs, bundles,
    outcome_of, stage_openings, tournament_hash, with_baselines,
};

/// The setting that holds the folder the config's relative paths are resolved against.
const CONFIG_DIR: &str = "config_dir";

/// The setting that says a tournament is being created (`pending`) or was (`done`): its
/// row is recorded first and its entrants and their files after, so a worker that comes
/// in between waits instead of reading half a tournament (a bot whose files are not
/// stored yet would be taken from the config's folder, under another fingerprint).
/// Absent in databases created before it: created.
const CREATING: &str = "creating";

/// How long a worker waits for a tournament being created before it gives up (its
/// creator may have stopped mid-way).
const CREATION_PATIENCE: Duration = Duration::from_secs(600);

/// The owner of the bundle of files the config reads (its openings files).
const CONFIG_FILES: &str = "config";

/// The owner of an entrant's bot's bundle.
fn bot_owner(id: EntrantId) -> String {
    format!("entrant:{id}")
}

/// How long an idle worker waits before it looks for work again.
const POLL: Duration = Duration::from_millis(500);

/// How long a worker keeps retrying a database that cannot be reached (restarting, the
/// network cut) before it gives up.
pub const RETRY_FOR: Duration = Duration::from_secs(300);

/// How many times a game may be claimed before a worker that fails to play it (the
/// referee's own failure, never a bot's) stops instead of giving it back again.
const MAX_ATTEMPTS: i64 = 10;

/// How a worker works.
#[derive(Clone, Debug)]
pub struct WorkOptions {
    /// Games played at the same time.
    pub jobs: usize,
    /// Whether the games run on lanes pinned to cores of their own (`referee::lanes`), as
    /// `arbiter tournament`'s do ([`RunOptions::pin`]).
    pub pin: bool,
    /// Whether program bots run inside the sandbox.
    pub sandboxed: bool,
    /// The sandbox level, as the worker reports it (`full`, `degraded: ...`, `none`).
    pub sandbox_level: String,
    /// How long a lease lasts without renewal (renewed every third of it).
    pub lease: Duration,
    /// Keep polling for work when the tournament is decided or not created yet.
    pub wait: bool,
    /// Where the bots fetched from the database are unpacked and built, each in a folder
    /// named by its files' hash (`CACHE/bots/HASH`).
    pub cache: PathBuf,
    /// Tests only: before committing its first stored game, the worker writes this file
    /// and stops there (so that a test can kill it while it stores).
    pub stall_before_commit: Option<PathBuf>,
    /// Tests only: after its first game, the worker writes the game's key to this file
    /// and waits until the file is removed before storing the game (so that a test can
    /// let its lease expire).
    pub pause_before_store: Option<PathBuf>,
}

/// What a worker tells its caller as it goes.
#[derive(Clone, Debug)]
pub enum WorkEvent {
    /// The worker joined under this id.
    Joined { worker: String },
    /// The planner queued games of a stage.
    Queued { stage: usize, games: usize },
    /// A stage was decided.
    Decided { stage: usize, result: StoredStageResult },
    /// A game was claimed (its attempt number: 1 for a first try).
    Claimed { key: String, attempt: i64 },
    /// A game this worker played was stored.
    Stored { outcome: Box<GameOutcome> },
    /// A game this worker played was not stored: its lease had passed to another attempt.
    Stale { key: String },
    /// A game was abandoned: its lease could not be renewed.
    LeaseLost { key: String },
    /// The database could not be reached; the worker tries again.
    Retrying { error: String },
    /// Something a person should know (the runner's notes).
    Note { text: String },
    /// The tournament is being created: the worker waits for it.
    AwaitingCreation,
    /// A game this worker played was not stored: the server's check refused its record.
    Refused { key: String, reason: String },
}

/// Records a tournament in a shared database (the config, its entrants, the folder its
/// relative paths start from, each program bot's folder and the files the config reads),
/// for workers that have nothing but the URL. Creating the same tournament again stores
/// the bots' files as they are now (a bot changed since is refused by the fingerprint
/// checks as on one machine); another tournament is refused.
///
/// Workers wait while it runs ([`CREATING`]). `pause` (tests only): once the tournament
/// is recorded, write that file and wait until it is removed before going on.
pub async fn create(
    config: &TournamentConfig,
    config_text: &str,
    entrants: &[ResolvedEntrant],
    store: &store::Store,
    config_dir: &Path,
    pause: Option<&Path>,
) -> Result<(), ArenaError> {
    let hash = tournament_hash(config_text, entrants);
    // Marked before the row is recorded, so no worker sees the row unmarked; not when the
    // database holds another tournament (recording it is refused below).
    if store.tournament().await?.is_none_or(|row| row.config_hash == hash) {
        store.save_setting(CREATING, "pending").await?;
    }
    store.begin_tournament(&config.name, config_text, &hash).await?;
    if let Some(path) = pause {
        hold_until_removed(path, b"creating").await;
    }
    let config_dir = std::fs::canonicalize(config_dir).unwrap_or_else(|_| config_dir.to_path_buf());
    let (mut all, specs, _) = with_baselines(config, entrants, &config_dir)?;
    // Bots named by a path relative to where the command ran (`--bots DIR`) are stored
    // absolute, so that every worker finds them from the config's folder.
    for entrant in &mut all {
        let path = Path::new(&entrant.bot);
        if !config_dir.join(path).exists()
            && path.exists()
            && let Ok(absolute) = std::fs::canonicalize(path)
        {
            entrant.bot = absolute.to_string_lossy().into_owned();
        }
    }
    store.save_entrants(&all).await?;
    store.save_setting(CONFIG_DIR, &config_dir.to_string_lossy()).await?;
    store_files(config, &all, &specs, store, &config_dir).await?;
    store.save_setting(CREATING, "done").await?;
    Ok(())
}

/// Stores each program bot's folder ([`bundles::pack_bot`]) and the files the config
/// reads, contents by their SHA-256.
async fn store_files(
    config: &TournamentConfig,
    all: &[Entrant],
    specs: &[BotSpec],
    store: &store::Store,
    config_dir: &Path,
) -> Result<(), ArenaError> {
    for (entrant, spec) in all.iter().zip(specs) {
        let BotSpec::Program(bot) = spec else { continue };
        let bot = bot.clone();
        let packed = tokio::task::spawn_blocking(move || bundles::pack_bot(&bot))
            .await
            .map_err(|error| ArenaError::Task { what: "a packing", error })?
            .map_err(|message| ArenaError::Pack { bot: entrant.name.clone(), message })?;
        store.save_bundle(&bot_owner(entrant.id), &packed.listing.hash(), &packed.listing.json(), &packed.contents).await?;
    }
    let mut paths: Vec<String> =
        config.stages.iter().filter_map(|stage| stage.openings.file.as_ref()).map(|p| p.to_string_lossy().into_owned()).collect();
    paths.sort();
    paths.dedup();
    if !paths.is_empty() {
        let dir = config_dir.to_path_buf();
        let packed = tokio::task::spawn_blocking(move || bundles::pack_config_files(&dir, &paths))
            .await
            .map_err(|error| ArenaError::Task { what: "a packing", error })?
            .map_err(ArenaError::ConfigFiles)?;
        store.save_bundle(CONFIG_FILES, &packed.listing.hash(), &packed.listing.json(), &packed.contents).await?;
    }
    Ok(())
}

/// A bundle stored under `owner` (`what` names it in messages), checked
/// ([`bundles::Listing::parse`]), with its contents fetched and checked against their
/// hashes, unless `cached` says this machine has it already (then the contents are not
/// fetched).
async fn fetch_bundle(
    store: &store::Store,
    owner: &str,
    what: &str,
    cached: impl Fn(&str) -> bool,
) -> Result<Option<(bundles::Listing, HashMap<String, Vec<u8>>)>, ArenaError> {
    let Some((hash, json)) = store.bundle(owner).await? else { return Ok(None) };
    let refused = |message: String| ArenaError::StoredFiles { what: what.to_string(), db: store.location().name(), message };
    let listing = bundles::Listing::parse(&json).map_err(refused)?;
    if listing.hash() != hash {
        return Err(refused("their list does not match its hash".to_string()));
    }
    let mut contents = HashMap::new();
    if cached(&hash) {
        return Ok(Some((listing, contents)));
    }
    for file in &listing.files {
        if !contents.contains_key(&file.sha256) {
            let content = store.blob(&file.sha256).await?.ok_or_else(|| refused(format!("{:?}: its content is not stored", file.path)))?;
            contents.insert(file.sha256.clone(), content);
        }
    }
    bundles::check_contents(&listing, &contents).map_err(refused)?;
    Ok(Some((listing, contents)))
}

/// An entrant's bot as a worker plays it: fetched from the database into the cache when
/// the database holds its files (identified by their hash on every machine), else (a
/// built-in, or a tournament created before bots travelled) resolved from the config's
/// folder.
async fn worker_bot(
    store: &store::Store,
    entrant: &Entrant,
    config: &TournamentConfig,
    config_dir: &Path,
    cache: &Path,
) -> Result<BotSpec, ArenaError> {
    let bots = cache.join("bots");
    let cached = |hash: &str| bots.join(hash).is_dir();
    let Some((listing, contents)) = fetch_bundle(store, &bot_owner(entrant.id), &format!("bot {}", entrant.name), cached).await? else {
        return crate::entrants::resolve_bot(&entrant.bot, config_dir, config.game).map_err(ArenaError::Bot);
    };
    unpacked_bot(entrant, listing, contents, config.game, cache).await
}

/// An entrant's bot from its checked bundle, unpacked into `CACHE/bots/HASH` (unless
/// that folder is there: then `contents` may be empty) and identified by the bundle's
/// hash on every machine.
pub async fn unpacked_bot(
    entrant: &Entrant,
    listing: bundles::Listing,
    contents: HashMap<String, Vec<u8>>,
    game: rules::GameKind,
    cache: &Path,
) -> Result<BotSpec, ArenaError> {
    let bots = cache.join("bots");
    let unpacking = listing.clone();
    let into = bots.clone();
    let folder = tokio::task::spawn_blocking(move || bundles::unpack(&into, &unpacking, &contents))
        .await
        .map_err(|error| ArenaError::Task { what: "an unpacking", error })?
        .map_err(|error| ArenaError::Unpack { bot: entrant.name.clone(), cache: bots.clone(), error })?;
    let manifest = folder.join(listing.manifest.as_deref().unwrap_or("bot.toml"));
    let mut spec = crate::entrants::resolve_bot(&manifest.to_string_lossy(), &folder, game)
        .map_err(|message| ArenaError::StoredBot { bot: entrant.name.clone(), message })?;
    if let BotSpec::Program(bot) = &mut spec {
        bot.stored = Some(listing.hash());
    }
    Ok(spec)
}

/// An entrant's bot that has no stored files, for a worker that takes no path from the
/// server: a built-in player (`random`, `greedy`, ...); a program is refused.
pub fn built_in_bot(entrant: &Entrant, game: rules::GameKind) -> Result<BotSpec, ArenaError> {
    let refused = || ArenaError::StoredBot {
        bot: entrant.name.clone(),
        message: "it is a program whose files the server does not hold; a worker runs no program by a path the server names".to_string(),
    };
    // Resolved against no folder: only a built-in's name resolves to a built-in.
    match crate::entrants::resolve_bot(&entrant.bot, Path::new("/nonexistent"), game) {
        Ok(BotSpec::Program(_)) | Err(_) => Err(refused()),
        Ok(spec) => Ok(spec),
    }
}

/// The texts of the files the config reads, as stored, by the paths the config gives.
async fn config_files(store: &store::Store) -> Result<HashMap<PathBuf, String>, ArenaError> {
    let Some((listing, contents)) = fetch_bundle(store, CONFIG_FILES, "the config", |_| false).await? else { return Ok(HashMap::new()) };
    listing
        .files
        .iter()
        .map(|file| {
            let text = String::from_utf8(contents[&file.sha256].clone()).map_err(|_| ArenaError::NotText(file.path.clone()))?;
            Ok((PathBuf::from(&file.path), text))
        })
        .collect()
}

/// The tournament as a worker knows it: read from the database, or (an HTTP worker's)
/// assembled from what the server sends ([`Tournament::assemble`]).
pub struct Tournament {
    config: TournamentConfig,
    config_dir: PathBuf,
    /// The files the config reads, as stored.
    files: HashMap<PathBuf, String>,
    all: Vec<Entrant>,
    specs: Arc<Vec<BotSpec>>,
    /// Each stage's baseline's id.
    baselines: Vec<Option<EntrantId>>,
    /// The real entrants (the baselines follow them).
    entrants: usize,
}

impl Tournament {
    /// A tournament from its stored config text, its entrants (baselines included, as
    /// stored) with their bots, and the texts of the files the config reads; relative
    /// paths start from `config_dir`.
    pub fn assemble(
        config_text: &str,
        source: &str,
        all: Vec<Entrant>,
        specs: Vec<BotSpec>,
        files: HashMap<PathBuf, String>,
        config_dir: PathBuf,
    ) -> Result<Tournament, ArenaError> {
        let config = TournamentConfig::parse_without_entrants(config_text, source).map_err(ArenaError::StoredConfig)?;
        let baselines: Vec<Option<EntrantId>> = config
            .stages
            .iter()
            .map(|stage| {
                (stage.format.kind() == Format::EntryCheck).then(|| all.iter().position(|e| e.name == baseline_name(stage))).flatten()
            })
            .collect();
        let entrants = all.len() - baselines.iter().flatten().collect::<HashSet<_>>().len();
        Ok(Tournament { config, config_dir, files, all, specs: Arc::new(specs), baselines, entrants })
    }

    pub fn config(&self) -> &TournamentConfig {
        &self.config
    }

    /// The entrants, baselines included.
    pub fn entrants(&self) -> &[Entrant] {
        &self.all
    }

    /// What a stage's games start from ([`Starts`]), and the options they are played
    /// under.
    fn starts(&self, idx: usize) -> Result<(Starts, rules::Options), ArenaError> {
        let config = &self.config;
        let stage = &config.stages[idx];
        let stage_options = stage.options.clone().unwrap_or_else(|| config.options.clone());
        let openings = stage_openings(config, stage, idx, &stage_options, &self.config_dir, &self.files)?;
        Ok((Starts::new(config.game, &stage_options, &openings, config.seed, &stage.name)?, stage_options))
    }
}

/// What a worker gets when it asks for a game.
#[derive(Debug)]
pub enum Claim {
    /// A game, leased to it.
    Game(store::Lease),
    /// Every open game is leased to others: one may come back (its worker died).
    Wait,
    /// Every stage is decided.
    Decided,
}

/// What became of a game a worker played.
#[derive(Clone, Debug, PartialEq)]
pub enum Reported {
    Stored,
    /// Its lease had passed to another attempt: nothing was stored.
    Stale,
    /// The server's check refused the record (an HTTP worker's): nothing was stored and
    /// the game went back to the queue.
    Refused(String),
}

/// Where a worker's games come from and go to: the database itself (a worker with its
/// URL, [`work`]), or `arbiter serve` over HTTP (a worker with a token), which carries
/// out the same calls on its database. Lease, renewal and fenced store mean the same
/// for both: the store's ([`store::Store::claim`], [`store::Store::renew`],
/// [`store::Store::finish`]).
pub trait Queue: Send + Sync + 'static {
    /// A game to play (planning first when nothing is queued).
    fn claim(&self, length: Duration) -> impl Future<Output = Result<Claim, ArenaError>> + Send;
    /// `false`: the lease is no longer this worker's (the game is to be abandoned).
    fn renew(&self, lease: &store::Lease, length: Duration) -> impl Future<Output = Result<bool, ArenaError>> + Send;
    /// Gives a game back unplayed.
    fn give_back(&self, lease: &store::Lease) -> impl Future<Output = Result<(), ArenaError>> + Send;
    /// Stores a played game, fenced by its lease. `before_commit`: a test's stall.
    fn finish(
        &self,
        lease: &store::Lease,
        record: &GameRecord,
        before_commit: impl Future<Output = ()> + Send,
    ) -> impl Future<Output = Result<Reported, ArenaError>> + Send;
    /// The programs' fingerprints a stage started with.
    fn fingerprints(&self, stage: usize) -> impl Future<Output = Result<Vec<(EntrantId, Option<String>)>, ArenaError>> + Send;
}

/// The planner of a tournament kept in a database, and its queue's keeper: every
/// database worker has one, and `arbiter serve` has one for each tournament its HTTP
/// workers play (then it is the only planner of the database; on PostgreSQL database
/// workers may plan beside it, under the advisory lock).
pub struct Planner {
    store: store::Store,
    tournament: Arc<Tournament>,
    /// Whether the entry checks (the planner's own games) run in the sandbox.
    sandboxed: bool,
    /// One planning at a time in this process (the others wait here, not holding a
    /// database connection).
    planning: Mutex<()>,
    /// Each stage's starts, made once (for the checks of reported records).
    starts: Mutex<HashMap<usize, Arc<(Starts, rules::Options)>>>,
    /// How many games were stored when a planning last found nothing to claim, and
    /// whether it found the tournament decided: planning is a function of the stored
    /// games, so until one more is stored it would answer the same (idle workers polling
    /// a queue whose games are all leased, or a decided tournament, do not replan).
    last_plan: std::sync::Mutex<Option<(u64, bool)>>,
    events: mpsc::UnboundedSender<WorkEvent>,
}

/// What the planner found.
enum Planned {
    /// Games are queued (or leased) for this stage.
    Open,
    /// Every stage is decided.
    Decided,
}

impl Planner {
    /// The planner of the tournament `store` holds, once it is created (`wait`: polls
    /// while there is none). Its bots are fetched into `cache`; `events` hears what it
    /// does.
    pub async fn open(
        store: &store::Store,
        cache: &Path,
        sandboxed: bool,
        wait: bool,
        on_event: &mut impl FnMut(WorkEvent),
        events: mpsc::UnboundedSender<WorkEvent>,
    ) -> Result<Planner, ArenaError> {
        let mut creating_since: Option<Instant> = None;
        let tournament = loop {
            match retrying(on_event, || load(store, cache)).await? {
                Loaded::Ready(tournament) => break *tournament,
                Loaded::Creating => {
                    if creating_since.is_none() {
                        on_event(WorkEvent::AwaitingCreation);
                    }
                    let since = *creating_since.get_or_insert_with(Instant::now);
                    if since.elapsed() > CREATION_PATIENCE {
                        return Err(ArenaError::CreationStalled { db: store.location().name(), minutes: CREATION_PATIENCE.as_secs() / 60 });
                    }
                    tokio::time::sleep(POLL).await;
                }
                Loaded::Absent if wait => tokio::time::sleep(POLL).await,
                Loaded::Absent => {
                    return Err(ArenaError::NoTournament { db: store.location().name() });
                }
            }
        };
        Ok(Planner {
            store: store.clone(),
            tournament: Arc::new(tournament),
            sandboxed,
            planning: Mutex::new(()),
            starts: Mutex::new(HashMap::new()),
            last_plan: std::sync::Mutex::new(None),
            events,
        })
    }

    pub fn tournament(&self) -> &Arc<Tournament> {
        &self.tournament
    }

    pub fn store(&self) -> &store::Store {
        &self.store
    }

    fn tell(&self, event: WorkEvent) {
        let _ = self.events.send(event);
    }

    /// A game for `worker` (an id the store registered), planning when none is queued.
    pub async fn claim(&self, worker: &str, length: Duration) -> Result<Claim, ArenaError> {
        if let Some(lease) = self.store.claim(worker, length).await? {
            return Ok(Claim::Game(lease));
        }
        let stored = self.store.game_count().await?;
        let last = *self.last_plan.lock().unwrap_or_else(|p| p.into_inner());
        match last {
            Some((count, true)) if count == stored => return Ok(Claim::Decided),
            Some((count, false)) if count == stored => return Ok(Claim::Wait),
            _ => {}
        }
        let claim = match self.plan().await? {
            Planned::Decided => Claim::Decided,
            Planned::Open => self.store.claim(worker, length).await?.map_or(Claim::Wait, Claim::Game),
        };
        if !matches!(claim, Claim::Game(_)) {
            *self.last_plan.lock().unwrap_or_else(|p| p.into_inner()) = Some((stored, matches!(claim, Claim::Decided)));
        }
        Ok(claim)
    }

    /// Plans under the planner's lock: queues the games the schedules ask for, decides
    /// the stages that are done.
    async fn plan(&self) -> Result<Planned, ArenaError> {
        let _local = self.planning.lock().await;
        let lock = self.store.plan_lock().await?;
        let planned = self.plan_locked().await;
        lock.release().await;
        planned
    }

    /// Carries out the stage progression's steps until it asks for games (queued) or
    /// every stage is decided.
    async fn plan_locked(&self) -> Result<Planned, ArenaError> {
        let store = &self.store;
        let t = &*self.tournament;
        let config = &t.config;
        let finished: Vec<GameOutcome> = store.games().await?;
        let decided: HashMap<usize, String> = store.stage_results().await?.into_iter().collect();
        let mut stages = Stages::new(store, config, (&t.all, &t.specs), &t.config_dir, self.sandboxed).await?;
        let mut known = Vec::new();
        for (idx, participants) in stages.started().await?.into_iter().enumerate() {
            let result = match decided.get(&idx) {
                Some(json) => Some(
                    serde_json::from_str::<StoredStageResult>(json)
                        .map_err(|err| ArenaError::Stage {
                            stage: config.stages[idx].name.clone(),
                            message: format!("its stored result is damaged: {err}"),
                        })?
                        .to_stage_result(),
                ),
                None => None,
            };
            known.push(StageKnown { openings: None, participants, result });
        }
        let mut on_event = |event: Event| {
            if let Event::Note { text, .. } = event {
                self.tell(WorkEvent::Note { text });
            }
        };
        loop {
            let known_now = Known { entrants: &t.all, n_entrants: t.entrants, baselines: &t.baselines, games: &finished, stages: &known };
            match progress::next(config, &known_now) {
                Step::Openings { stage: idx } => {
                    let stage = &config.stages[idx];
                    let stage_options = stage.options.clone().unwrap_or_else(|| config.options.clone());
                    known[idx].openings = Some(stage_openings(config, stage, idx, &stage_options, &t.config_dir, &t.files)?.len());
                }
                Step::Enter { stage: idx, candidates, entry_check } => {
                    let participants = stages.entry_check(idx, candidates, entry_check, &mut on_event).await?;
                    stages.start_programs(idx, &participants, &mut on_event).await?;
                    known[idx].participants = Some(participants);
                }
                Step::Play { stage: idx, games, .. } => {
                    store.enqueue(&games).await?;
                    self.tell(WorkEvent::Queued { stage: idx, games: games.len() });
                    return Ok(Planned::Open);
                }
                Step::Decide { stage: idx, result, .. } => {
                    let stored = stages.decide(idx, result, &mut on_event).await?;
                    // Games still leased that the schedule no longer needs are not stored.
                    store.drop_queued(idx).await?;
                    known[idx].result = Some(stored.to_stage_result());
                    self.tell(WorkEvent::Decided { stage: idx, result: stored });
                }
                Step::Done => return Ok(Planned::Decided),
            }
        }
    }

    /// Checks a record an HTTP worker reports for the lease `worker` holds of game `key`
    /// at `attempt` ([`check_record`]) and stores it fenced by the lease. A refused
    /// record stores nothing and gives the game back at once (another worker plays it).
    /// `Ok(None)`: `worker` holds no such lease (never had it, or the game is stored).
    pub async fn report(
        &self,
        worker: &str,
        key: &str,
        attempt: i64,
        record_json: &str,
    ) -> Result<Option<(Reported, Option<GameOutcome>)>, ArenaError> {
        let Some(lease) = self.store.lease(key, attempt, worker).await? else { return Ok(None) };
        let starts = self.stage_starts(lease.spec.stage).await?;
        let checked = serde_json::from_str::<GameRecord>(record_json)
            .map_err(|err| format!("the record is not a game record: {err}"))
            .and_then(|record| check_record(&self.tournament, &starts.0, &starts.1, &lease.spec, &record).map(|()| record));
        let record = match checked {
            Ok(record) => record,
            Err(reason) => {
                self.store.give_back(&lease).await?;
                return Ok(Some((Reported::Refused(reason), None)));
            }
        };
        let outcome = outcome_of(lease.spec.clone(), &record);
        // Stored as the server writes it (the worker's text is not kept as sent).
        let json = serde_json::to_string(&record).expect("a record serialises");
        Ok(Some(match self.store.finish(&lease, &outcome, &json, async {}).await? {
            store::Finished::Stored(_) => (Reported::Stored, Some(outcome)),
            store::Finished::Stale => (Reported::Stale, None),
        }))
    }

    async fn stage_starts(&self, idx: usize) -> Result<Arc<(Starts, rules::Options)>, ArenaError> {
        let mut starts = self.starts.lock().await;
        if let Some(made) = starts.get(&idx) {
            return Ok(Arc::clone(made));
        }
        let made = Arc::new(self.tournament.starts(idx)?);
        starts.insert(idx, Arc::clone(&made));
        Ok(made)
    }
}

/// Whether `record` is a game of `spec` as the rules play it: the tournament's game and
/// the stage's options, the game's seed, its start (opening), its players, every move
/// legal ([`rules::replay`], as `arbiter verify` checks), and a result the moves give (a
/// game over by the rules ends as they say; a fault ends a game the rules had not ended,
/// lost by the side at fault). The refusal in words, else `Ok`.
fn check_record(
    tournament: &Tournament,
    starts: &Starts,
    options: &rules::Options,
    spec: &GameSpec,
    record: &GameRecord,
) -> Result<(), String> {
    let kind = tournament.config.game;
    if rules::GameKind::from_name(&record.game).ok() != Some(kind) {
        return Err(format!("a record of {:?}, not of {kind}", record.game));
    }
    if record.options != *options {
        return Err("the record's options are not the stage's".to_string());
    }
    if record.seed != spec.seed {
        return Err(format!("the record's seed is {}, not the game's {}", record.seed, spec.seed));
    }
    for side in 0..2 {
        let name = tournament.all.get(spec.players[side]).map(|e| e.name.as_str());
        if name != Some(record.players[side].name.as_str()) {
            return Err(format!("side {side} is {:?} in the record, not the game's {:?}", record.players[side].name, name.unwrap_or("?")));
        }
    }
    let start = starts.for_game(spec)?;
    let expected = start.start_text();
    let given = kind.new_position(options, record.start.as_deref()).map_err(|err| format!("the record's start: {err}"))?;
    if given.start_text() != expected {
        return Err("the record's start is not the game's (its opening)".to_string());
    }
    let replayed = rules::replay::replay(kind, options, record.start.as_deref(), &record.moves);
    let position = match replayed {
        rules::replay::Replayed::Played(position) => position,
        rules::replay::Replayed::Illegal { ply, error } => return Err(format!("move {} is illegal: {error}", ply + 1)),
        rules::replay::Replayed::Invalid { error } => return Err(error),
    };
    let result = &record.result;
    match (&result.termination, position.outcome()) {
        (referee::Termination::Rules, Some(outcome)) => {
            if result.winner != outcome.winner.map(|side| side.index()) || result.scores != outcome.scores {
                return Err(format!(
                    "the record's result (winner {:?}, scores {:?}) is not the rules' (winner {:?}, scores {:?})",
                    result.winner,
                    result.scores,
                    outcome.winner.map(|side| side.index()),
                    outcome.scores
                ));
            }
        }
        (referee::Termination::Rules, None) => {
            return Err("the record says the game ended by the rules, but its moves do not end it".to_string());
        }
        (_, Some(_)) => return Err("the game is over by the rules after its moves, but the record ends it otherwise".to_string()),
        (referee::Termination::Adjudicated { winner, .. }, None) => {
            if result.winner != *winner {
                return Err("the record's winner is not its adjudication's".to_string());
            }
        }
        (termination, None) => {
            let at_fault = termination.side().map(|side| side.index());
            if at_fault.is_some() && result.winner != at_fault.map(|side| 1 - side) {
                return Err("the record's winner is not the opponent of the side at fault".to_string());
            }
        }
    }
    Ok(())
}

/// A worker with the database's URL: its queue is the database, and it plans there.
struct DbQueue {
    planner: Arc<Planner>,
    id: String,
}

impl Queue for DbQueue {
    async fn claim(&self, length: Duration) -> Result<Claim, ArenaError> {
        self.planner.claim(&self.id, length).await
    }
    async fn renew(&self, lease: &store::Lease, length: Duration) -> Result<bool, ArenaError> {
        Ok(self.planner.store.renew(lease, length).await?)
    }
    async fn give_back(&self, lease: &store::Lease) -> Result<(), ArenaError> {
        Ok(self.planner.store.give_back(lease).await?)
    }
    async fn finish(
        &self,
        lease: &store::Lease,
        record: &GameRecord,
        before_commit: impl Future<Output = ()> + Send,
    ) -> Result<Reported, ArenaError> {
        let outcome = outcome_of(lease.spec.clone(), record);
        let json = serde_json::to_string(record).expect("a record serialises");
        Ok(match self.planner.store.finish(lease, &outcome, &json, before_commit).await? {
            store::Finished::Stored(_) => Reported::Stored,
            store::Finished::Stale => Reported::Stale,
        })
    }
    async fn fingerprints(&self, stage: usize) -> Result<Vec<(EntrantId, Option<String>)>, ArenaError> {
        Ok(self.planner.store.fingerprints(stage).await?)
    }
}

/// Everything a worker's lanes share.
struct Worker<Q: Queue> {
    queue: Q,
    id: String,
    options: WorkOptions,
    tournament: Arc<Tournament>,
    /// The stages this worker has prepared to play (programs built, prints loaded).
    kits: Mutex<HashMap<usize, Arc<StageKit>>>,
    events: mpsc::UnboundedSender<WorkEvent>,
    /// Whether the test stall and pause were used (once each).
    stalled: std::sync::atomic::AtomicBool,
    paused: std::sync::atomic::AtomicBool,
    /// Where the sandboxes of its next games are started ahead (in the sandbox).
    ahead: Option<Arc<referee::ahead::Ahead>>,
    /// The threads the games run on (`WorkOptions::pin`); `None`: the caller's runtime.
    game_lanes: Option<Arc<Lanes>>,
}

/// What a worker needs to play a stage's games.
struct StageKit {
    starts: Starts,
    job: GameJob,
}

/// Plays games of the database's tournament until it is decided (or, with `wait`, for
/// ever), on `jobs` lanes; `on_event` sees what happens. Our own failures (a database
/// unreachable for [`RETRY_FOR`], a bot changed during its stage, a game the referee
/// keeps failing) stop the worker with an error; a leased game it held is given back.
pub async fn work(
    store: &store::Store,
    options: &WorkOptions,
    info: &store::WorkerInfo,
    mut on_event: impl FnMut(WorkEvent),
) -> Result<(), ArenaError> {
    if !store.is_shared() {
        return Err(store::StoreError::NotShared { file: store.location().name() }.into());
    }
    let id = retrying(&mut on_event, || store.register_worker(info)).await?;
    on_event(WorkEvent::Joined { worker: id.clone() });
    let (events, received) = mpsc::unbounded_channel();
    let planner = Planner::open(store, &options.cache, options.sandboxed, options.wait, &mut on_event, events.clone()).await?;
    let tournament = Arc::clone(&planner.tournament);
    let queue = DbQueue { planner: Arc::new(planner), id: id.clone() };
    play_games(queue, id, tournament, options, (events, received), on_event).await
}

/// Plays the games `queue` leases (an HTTP worker's: `arbiter serve`'s) of `tournament`
/// until it is decided (or, with `wait`, for ever), on `jobs` lanes, as [`work`] does.
pub async fn work_remote<Q: Queue>(
    queue: Q,
    id: String,
    tournament: Tournament,
    options: &WorkOptions,
    on_event: impl FnMut(WorkEvent),
) -> Result<(), ArenaError> {
    let channel = mpsc::unbounded_channel();
    play_games(queue, id, Arc::new(tournament), options, channel, on_event).await
}

async fn play_games<Q: Queue>(
    queue: Q,
    id: String,
    tournament: Arc<Tournament>,
    options: &WorkOptions,
    (events, mut received): (mpsc::UnboundedSender<WorkEvent>, mpsc::UnboundedReceiver<WorkEvent>),
    mut on_event: impl FnMut(WorkEvent),
) -> Result<(), ArenaError> {
    let ahead =
        options.sandboxed.then(|| referee::ahead::Ahead::new(referee::pool::Pool::size_for(tournament.specs.len(), options.jobs.max(1))));
    let resources = GameResources::new(None, ahead, crate::start_lanes(options.pin, options.jobs.max(1))?);
    let worker = Arc::new(Worker {
        queue,
        id,
        options: options.clone(),
        tournament,
        kits: Mutex::new(HashMap::new()),
        events,
        stalled: std::sync::atomic::AtomicBool::new(false),
        paused: std::sync::atomic::AtomicBool::new(false),
        ahead: resources.ahead(),
        game_lanes: resources.lanes().cloned(),
    });
    let mut lanes = JoinSet::new();
    for _ in 0..options.jobs.max(1) {
        let worker = Arc::clone(&worker);
        lanes.spawn(async move { worker.lane().await });
    }
    drop(worker);
    let mut failure = None;
    loop {
        tokio::select! {
            Some(event) = received.recv() => on_event(event),
            joined = lanes.join_next() => match joined {
                None => break,
                Some(Ok(Ok(()))) => {}
                Some(Ok(Err(error))) => {
                    // The other lanes stop too; their leases expire or are given back.
                    lanes.abort_all();
                    failure.get_or_insert(error);
                }
                Some(Err(error)) if error.is_cancelled() => {}
                Some(Err(error)) => {
                    lanes.abort_all();
                    failure.get_or_insert(ArenaError::Task { what: "a worker's", error });
                }
            },
        }
    }
    while let Ok(event) = received.try_recv() {
        on_event(event);
    }
    // Once every task that held the worker has ended.
    resources.close().await;
    failure.map_or(Ok(()), Err)
}

/// What a worker finds in the database.
enum Loaded {
    /// No tournament yet.
    Absent,
    /// A tournament being created ([`CREATING`]): its entrants or files may be missing.
    Creating,
    Ready(Box<Tournament>),
}

/// Reads the tournament, its entrants and their bots (fetched into `cache`), once its
/// creation is over.
async fn load(store: &store::Store, cache: &Path) -> Result<Loaded, ArenaError> {
    let Some(row) = store.tournament().await? else { return Ok(Loaded::Absent) };
    if store.setting(CREATING).await?.as_deref() == Some("pending") {
        return Ok(Loaded::Creating);
    }
    let name = store.location().name();
    let config = TournamentConfig::parse_without_entrants(&row.config_text, &name).map_err(ArenaError::StoredConfig)?;
    let config_dir = PathBuf::from(store.setting(CONFIG_DIR).await?.unwrap_or_else(|| ".".to_string()));
    let all = store.entrants().await?;
    let mut specs = Vec::with_capacity(all.len());
    for entrant in &all {
        specs.push(worker_bot(store, entrant, &config, &config_dir, cache).await?);
    }
    let files = config_files(store).await?;
    Ok(Loaded::Ready(Box::new(Tournament::assemble(&row.config_text, &name, all, specs, files, config_dir)?)))
}

/// Whether the tournament `store` holds was recorded for workers ([`create`]) and its
/// creation is over: the tournaments `arbiter serve` offers its HTTP workers.
pub async fn is_for_workers(store: &store::Store) -> Result<bool, ArenaError> {
    Ok(store.tournament().await?.is_some() && store.setting(CREATING).await?.as_deref() == Some("done"))
}

/// Calls `call` until it succeeds or fails for good: a database that cannot be reached
/// is tried again (waits doubling from 0.2 s to 5 s) for up to [`RETRY_FOR`].
pub async fn retrying<T, F, E>(on_event: &mut impl FnMut(WorkEvent), mut call: impl FnMut() -> F) -> Result<T, ArenaError>
where
    F: Future<Output = Result<T, E>>,
    E: Into<ArenaError>,
{
    let since = Instant::now();
    let mut wait = Duration::from_millis(200);
    loop {
        match call().await.map_err(Into::into) {
            Ok(value) => return Ok(value),
            Err(error) if error.is_transient() && since.elapsed() < RETRY_FOR => {
                on_event(WorkEvent::Retrying { error: error.to_string() });
                tokio::time::sleep(wait).await;
                wait = (wait * 2).min(Duration::from_secs(5));
            }
            Err(error) => return Err(error),
        }
    }
}

impl<Q: Queue> Worker<Q> {
    fn tell(&self, event: WorkEvent) {
        let _ = self.events.send(event);
    }

    /// One lane: claims and plays games (its queue plans when there is nothing to claim).
    async fn lane(&self) -> Result<(), ArenaError> {
        let lease_length = self.options.lease;
        loop {
            match retrying(&mut |e| self.tell(e), || self.queue.claim(lease_length)).await? {
                Claim::Game(lease) => self.play(lease).await?,
                Claim::Decided if !self.options.wait => return Ok(()),
                Claim::Decided | Claim::Wait => tokio::time::sleep(POLL).await,
            }
        }
    }

    /// What this worker needs to play a stage's games, made on its first game there: the
    /// stage's programs built here (in the sandbox when the games are) and the prints the
    /// stage started with, which each game's players are checked against.
    async fn kit(&self, idx: usize) -> Result<Arc<StageKit>, ArenaError> {
        let mut kits = self.kits.lock().await;
        if let Some(kit) = kits.get(&idx) {
            return Ok(Arc::clone(kit));
        }
        let t = &*self.tournament;
        let config = &t.config;
        let stage = &config.stages[idx];
        let (starts, stage_options) = t.starts(idx)?;
        let prints = retrying(&mut |e| self.tell(e), || self.queue.fingerprints(idx)).await?;
        let participants: Vec<EntrantId> = prints.iter().map(|(id, _)| *id).collect();
        for (id, reason) in build_programs(&participants, &t.specs, self.options.sandboxed).await {
            self.tell(WorkEvent::Note { text: format!("{} could not be built here for {}: {reason}", t.all[id].name, stage.name) });
        }
        let job = GameJob {
            specs: Arc::clone(&t.specs),
            permits: Arc::new(Semaphore::new(1)),
            options: stage_options,
            limits: config.limits.overridden_by(stage.limits),
            sandboxed: self.options.sandboxed,
            pool: None,
            ahead: self.ahead.clone(),
            lanes: self.game_lanes.clone(),
            watch: None,
            names: Arc::new(t.all.iter().map(|e| e.name.clone()).collect()),
            prints: Arc::new(StagePrints { stage: stage.name.clone(), names: t.all.iter().map(|e| e.name.clone()).collect(), prints }),
            shared: None,
            referee: None,
        };
        let kit = Arc::new(StageKit { starts, job });
        kits.insert(idx, Arc::clone(&kit));
        Ok(kit)
    }

    /// Plays a leased game, renewing the lease meanwhile, and stores it fenced by the
    /// lease. A lease that cannot be renewed abandons the game (another worker plays it).
    async fn play(&self, lease: store::Lease) -> Result<(), ArenaError> {
        let queue = &self.queue;
        let key = lease.spec.key.clone();
        self.tell(WorkEvent::Claimed { key: key.clone(), attempt: lease.attempt });
        let played = async {
            let kit = self.kit(lease.spec.stage).await?;
            let start = kit
                .starts
                .for_game(&lease.spec)
                .map_err(|message| ArenaError::Stage { stage: self.tournament.config.stages[lease.spec.stage].name.clone(), message })?;
            kit.job.play(&lease.spec, &start).await
        };
        let renewing = async {
            loop {
                tokio::time::sleep(self.options.lease / 3).await;
                match queue.renew(&lease, self.options.lease).await {
                    Ok(true) => {}
                    Ok(false) => return,
                    // The database (or server) is away: the game goes on, and its store is fenced.
                    Err(error) if error.is_transient() => self.tell(WorkEvent::Retrying { error: error.to_string() }),
                    Err(_) => return,
                }
            }
        };
        let result = tokio::select! {
            result = played => result,
            () = renewing => {
                self.tell(WorkEvent::LeaseLost { key });
                return Ok(());
            }
        };
        let record = match result {
            Ok(Ok(record)) => record,
            Ok(Err(referee_error)) => {
                let _ = queue.give_back(&lease).await;
                if lease.attempt >= MAX_ATTEMPTS {
                    return Err(ArenaError::Referee { key, attempts: lease.attempt as u32, error: referee_error.to_string() });
                }
                let text = format!("game {key} was not played, by the referee's fault (not a bot's): {referee_error}; it is given back");
                self.tell(WorkEvent::Note { text });
                return Ok(());
            }
            Err(error) => {
                let _ = queue.give_back(&lease).await;
                return Err(error);
            }
        };
        self.pause(&key).await;
        let finished = retrying(&mut |e| self.tell(e), || queue.finish(&lease, &record, self.stall())).await?;
        match finished {
            Reported::Stored => self.tell(WorkEvent::Stored { outcome: Box::new(outcome_of(lease.spec.clone(), &record)) }),
            Reported::Stale => self.tell(WorkEvent::Stale { key }),
            Reported::Refused(reason) => self.tell(WorkEvent::Refused { key, reason }),
        }
        Ok(())
    }

    /// The test pause before a store (see [`WorkOptions::pause_before_store`]).
    async fn pause(&self, key: &str) {
        let Some(path) = &self.options.pause_before_store else { return };
        if !self.paused.swap(true, std::sync::atomic::Ordering::SeqCst) {
            hold_until_removed(path, key.as_bytes()).await;
        }
    }

    /// The test stall before a commit (see [`WorkOptions::stall_before_commit`]).
    async fn stall(&self) {
        let Some(path) = &self.options.stall_before_commit else { return };
        if self.stalled.swap(true, std::sync::atomic::Ordering::SeqCst) {
            return;
        }
        let _ = write_whole(path, self.id.as_bytes());
        std::future::pending::<()>().await;
    }
}

/// A test hook's pause: writes `content` to `path` ([`write_whole`]) and waits until the
/// test removes the file (at once when it cannot be written).
async fn hold_until_removed(path: &Path, content: &[u8]) {
    if write_whole(path, content).is_err() {
        return;
    }
    while path.exists() {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Writes a test hook's file whole: into a file beside it, then renamed, so that a test
/// that waits for the file to appear never reads it half written.
fn write_whole(path: &Path, content: &[u8]) -> std::io::Result<()> {
    let mut partial = path.as_os_str().to_owned();
    partial.push(".partial");
    std::fs::write(&partial, content)?;
    std::fs::rename(&partial, path)
}
