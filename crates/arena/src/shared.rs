//! A tournament on a shared PostgreSQL database, played by workers on any number of
//! machines with no coordinator: [`create`] records it, and every worker ([`work`])
//! loops: claim a queued game (a lease), play it while renewing the lease, store it
//! fenced by the lease; when nothing is left to claim, plan: under the database's
//! planner lock, ask each stage's schedule (the pure `next(config, results)`) for its
//! games and queue the new ones, or decide the stage. A worker killed at any point loses
//! nothing: its lease expires and the game is played again from the same seed; a worker
//! presumed dead cannot store it twice (`store::shared`).

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use referee::BotSpec;
use referee::lanes::Lanes;
use referee::resources::GameResources;
use tokio::sync::{Mutex, Semaphore, mpsc};
use tokio::task::JoinSet;
use tournament::config::Format;
use tournament::progress::{self, Known, StageKnown, Step};
use tournament::{Entrant, EntrantId, GameOutcome, TournamentConfig};

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
    if !store.is_shared() {
        return Err(store::StoreError::NotShared { file: store.location().name() }.into());
    }
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
    let unpacking = listing.clone();
    let into = bots.clone();
    let folder = tokio::task::spawn_blocking(move || bundles::unpack(&into, &unpacking, &contents))
        .await
        .map_err(|error| ArenaError::Task { what: "an unpacking", error })?
        .map_err(|error| ArenaError::Unpack { bot: entrant.name.clone(), cache: bots.clone(), error })?;
    let manifest = folder.join(listing.manifest.as_deref().unwrap_or("bot.toml"));
    let mut spec = crate::entrants::resolve_bot(&manifest.to_string_lossy(), config_dir, config.game)
        .map_err(|message| ArenaError::StoredBot { bot: entrant.name.clone(), message })?;
    if let BotSpec::Program(bot) = &mut spec {
        bot.stored = Some(listing.hash());
    }
    Ok(spec)
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

/// The tournament as a worker knows it, read from the database.
struct Tournament {
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

/// Everything a worker's lanes share.
struct Worker {
    store: store::Store,
    id: String,
    options: WorkOptions,
    tournament: Tournament,
    /// One lane of this worker plans at a time (the others wait here, not holding a
    /// database connection).
    planning: Mutex<()>,
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

/// What the planner found.
enum Planned {
    /// Games are queued (or leased) for this stage.
    Open,
    /// Every stage is decided.
    Decided,
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
    let mut creating_since: Option<Instant> = None;
    let tournament = loop {
        match retrying(&mut on_event, || load(store, &options.cache)).await? {
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
            Loaded::Absent if options.wait => tokio::time::sleep(POLL).await,
            Loaded::Absent => {
                return Err(ArenaError::NoTournament { db: store.location().name() });
            }
        }
    };
    let (events, mut received) = mpsc::unbounded_channel();
    let ahead =
        options.sandboxed.then(|| referee::ahead::Ahead::new(referee::pool::Pool::size_for(tournament.specs.len(), options.jobs.max(1))));
    let resources = GameResources::new(None, ahead, crate::start_lanes(options.pin, options.jobs.max(1))?);
    let worker = Arc::new(Worker {
        store: store.clone(),
        id,
        options: options.clone(),
        tournament,
        planning: Mutex::new(()),
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
    let baselines: Vec<Option<EntrantId>> = config
        .stages
        .iter()
        .map(|stage| (stage.format.kind() == Format::EntryCheck).then(|| all.iter().position(|e| e.name == baseline_name(stage))).flatten())
        .collect();
    let entrants = all.len() - baselines.iter().flatten().collect::<HashSet<_>>().len();
    Ok(Loaded::Ready(Box::new(Tournament { config, config_dir, files, all, specs: Arc::new(specs), baselines, entrants })))
}

/// Calls `call` until it succeeds or fails for good: a database that cannot be reached
/// is tried again (waits doubling from 0.2 s to 5 s) for up to [`RETRY_FOR`].
async fn retrying<T, F, E>(on_event: &mut impl FnMut(WorkEvent), mut call: impl FnMut() -> F) -> Result<T, ArenaError>
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

impl Worker {
    fn tell(&self, event: WorkEvent) {
        let _ = self.events.send(event);
    }

    /// One lane: claims and plays games, and plans when there is nothing to claim.
    async fn lane(&self) -> Result<(), ArenaError> {
        let store = &self.store;
        let lease_length = self.options.lease;
        loop {
            let claimed = retrying(&mut |e| self.tell(e), || store.claim(&self.id, lease_length)).await?;
            if let Some(lease) = claimed {
                self.play(lease).await?;
                continue;
            }
            match retrying(&mut |e| self.tell(e), || self.plan()).await? {
                Planned::Decided if !self.options.wait => return Ok(()),
                Planned::Decided => tokio::time::sleep(POLL).await,
                Planned::Open => {
                    let claimed = retrying(&mut |e| self.tell(e), || store.claim(&self.id, lease_length)).await?;
                    match claimed {
                        Some(lease) => self.play(lease).await?,
                        // Every open game is leased: one may come back (its worker died).
                        None => tokio::time::sleep(POLL).await,
                    }
                }
            }
        }
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
        let t = &self.tournament;
        let config = &t.config;
        let finished: Vec<GameOutcome> = store.games().await?;
        let decided: HashMap<usize, String> = store.stage_results().await?.into_iter().collect();
        let mut stages = Stages::new(store, config, (&t.all, &t.specs), &t.config_dir, self.options.sandboxed).await?;
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

    /// What this worker needs to play a stage's games, made on its first game there: the
    /// stage's programs built here (in the sandbox when the games are) and the prints the
    /// stage started with, which each game's players are checked against.
    async fn kit(&self, idx: usize) -> Result<Arc<StageKit>, ArenaError> {
        let mut kits = self.kits.lock().await;
        if let Some(kit) = kits.get(&idx) {
            return Ok(Arc::clone(kit));
        }
        let t = &self.tournament;
        let config = &t.config;
        let stage = &config.stages[idx];
        let stage_options = stage.options.clone().unwrap_or_else(|| config.options.clone());
        let openings = stage_openings(config, stage, idx, &stage_options, &t.config_dir, &t.files)?;
        let starts = Starts::new(config.game, &stage_options, &openings, config.seed, &stage.name)?;
        let participants: Vec<EntrantId> = self.store.fingerprints(idx).await?.into_iter().map(|(id, _)| id).collect();
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
            prints: Arc::new(StagePrints::load(&self.store, idx, &stage.name, &t.all).await?),
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
        let store = &self.store;
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
                match store.renew(&lease, self.options.lease).await {
                    Ok(true) => {}
                    Ok(false) => return,
                    // The database is away: the game goes on, and its store is fenced.
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
                let _ = store.give_back(&lease).await;
                if lease.attempt >= MAX_ATTEMPTS {
                    return Err(ArenaError::Referee { key, attempts: lease.attempt as u32, error: referee_error.to_string() });
                }
                let text = format!("game {key} was not played, by the referee's fault (not a bot's): {referee_error}; it is given back");
                self.tell(WorkEvent::Note { text });
                return Ok(());
            }
            Err(error) => {
                let _ = store.give_back(&lease).await;
                return Err(error);
            }
        };
        self.pause(&key).await;
        let outcome = outcome_of(lease.spec.clone(), &record);
        let json = serde_json::to_string(&record).expect("a record serialises");
        let finished = retrying(&mut |e| self.tell(e), || store.finish(&lease, &outcome, &json, self.stall())).await?;
        match finished {
            store::Finished::Stored(_) => self.tell(WorkEvent::Stored { outcome: Box::new(outcome) }),
            store::Finished::Stale => self.tell(WorkEvent::Stale { key }),
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
