//! Plays one game between two bots and writes its record. A bot is a built-in player,
//! a human at the terminal, or a program behind one of the interfaces (drivers in
//! [`drivers`]); whatever a bot does wrong ends as a [`Termination`] in the record,
//! never as an `Err`. An `Err` ([`RefereeError`]) is our own failure: the game was not
//! played and may be tried again.
//!
//! The game loop is generic over the game ([`play`]): seats answer with the game's own
//! moves, each parsed once (by the seat, from what the bot wrote) and checked once (by
//! the rules, when the referee plays it). [`play_game`] makes the one run-time choice of
//! the game, from its start position.

pub mod build;
pub mod drivers;
pub mod folders;
pub mod human;
pub mod limits;
pub mod manifest;
pub mod nofollow;
pub mod record;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use players::Builtin;
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;
use rules::{AnyPosition, Game, GameKind, Options, Outcome, Registered, Side, Visit};

pub use limits::{LimitOverrides, Limits};
pub use manifest::{BotSpec, Manifest, ManifestError, ProgramBot, Protocol};
pub use record::{GameRecord, PlayerRecord, ResultRecord, StartupRecord, Termination, TurnRecord};

/// Our own failure while playing a game, never a bot's: no working folder, no process
/// could be started for want of descriptors, processes or memory, no server socket. The
/// game was not played; trying again later may work.
#[derive(Debug, thiserror::Error)]
#[error("{what}: {error}")]
pub struct RefereeError {
    /// What the referee tried, e.g. "cannot make the game's working folder".
    pub what: String,
    pub error: std::io::Error,
}

impl RefereeError {
    pub fn new(what: impl Into<String>, error: std::io::Error) -> RefereeError {
        RefereeError { what: what.into(), error }
    }

    /// A bot asked to play a game it does not play: the caller's mistake, refused before
    /// anything starts.
    pub fn wrong_game(bot: &str, plays: GameKind, asked: GameKind) -> RefereeError {
        let error = std::io::Error::new(std::io::ErrorKind::InvalidInput, format!("it plays {plays}"));
        RefereeError::new(format!("bot {bot} cannot play {asked}"), error)
    }
}

/// A boxed future that may move between threads, for the driver trait.
pub type BoxFuture<'a, T> = std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send + 'a>>;

/// Whether an I/O error is the machine running short (descriptors, memory, disk space)
/// or failing, rather than something a bot did to its own files.
pub fn is_exhaustion(err: &std::io::Error) -> bool {
    use rustix::io::Errno;
    let Some(code) = err.raw_os_error() else { return false };
    [Errno::MFILE, Errno::NFILE, Errno::NOMEM, Errno::AGAIN, Errno::NOSPC, Errno::DQUOT, Errno::IO, Errno::ROFS]
        .iter()
        .any(|errno| errno.raw_os_error() == code)
}

/// Why a program could not be started, or asked for its self-description.
#[derive(Debug)]
pub enum StartError {
    /// The bot's fault, with what it wrote on stderr until then (a traceback, say).
    Bot { fault: Fault, stderr: jail::Log },
    /// Our own failure.
    Referee(RefereeError),
}

impl StartError {
    /// The bot's fault, `None` for our own failure.
    pub fn fault(&self) -> Option<&Fault> {
        match self {
            StartError::Bot { fault, .. } => Some(fault),
            StartError::Referee(_) => None,
        }
    }
}

impl From<Fault> for StartError {
    fn from(fault: Fault) -> StartError {
        StartError::Bot { fault, stderr: jail::Log::default() }
    }
}

impl From<RefereeError> for StartError {
    fn from(err: RefereeError) -> StartError {
        StartError::Referee(err)
    }
}

impl std::fmt::Display for StartError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StartError::Bot { fault, .. } => write!(f, "{}", fault.detail),
            StartError::Referee(err) => write!(f, "{err}"),
        }
    }
}

/// What kind of fault a bot made.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FaultKind {
    Timeout,
    IllegalMove,
    Crash,
    ProtocolError,
}

/// A bot's fault in one turn, with what a person needs to know.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    pub kind: FaultKind,
    pub detail: String,
}

impl Fault {
    pub fn new(kind: FaultKind, detail: impl Into<String>) -> Fault {
        Fault { kind, detail: detail.into() }
    }

    /// The termination this fault causes when `side` made it.
    pub fn into_termination(self, side: Side) -> Termination {
        let (side, detail) = (side.index(), self.detail);
        match self.kind {
            FaultKind::Timeout => Termination::Timeout { side, detail },
            FaultKind::IllegalMove => Termination::IllegalMove { side, detail },
            FaultKind::Crash => Termination::Crash { side, detail },
            FaultKind::ProtocolError => Termination::ProtocolError { side, detail },
        }
    }
}

/// Everything a seat needs to know about its game.
#[derive(Clone, Debug)]
pub struct SeatContext {
    pub kind: GameKind,
    pub options: Options,
    pub start: AnyPosition,
    pub side: Side,
    pub limits: Limits,
    /// The bot's own working directory, fresh for this game.
    pub workdir: PathBuf,
    pub seed: u64,
}

/// The opponent's last move as a bot may see it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LastMove {
    /// The opponent has not moved yet in this game.
    None,
    /// The opponent moved, but the move stays secret for now (Nupud's set-up).
    Hidden,
    Move(String),
}

/// The time a side has for the turn it is asked to play.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct TurnClock {
    /// The per-move limit.
    pub move_time: Option<Duration>,
    /// What is left of the per-game wall-clock budget.
    pub game_time_left: Option<Duration>,
    /// What is left of the per-game CPU budget.
    pub cpu_left: Option<Duration>,
}

impl TurnClock {
    /// The wall-clock time this turn may take at most: the per-move limit, the game
    /// budget left, and, for a CPU budget, a guard of twice the CPU time left plus a
    /// second (a bot that waits instead of computing must not wait forever, and a bot
    /// that computes on a busy machine must meet the CPU limit first).
    pub fn wall_limit(&self) -> Option<Duration> {
        let cpu_guard = self.cpu_left.map(|left| left * 2 + Duration::from_secs(1));
        [self.move_time, self.game_time_left, cpu_guard].into_iter().flatten().min()
    }

    /// The deadline of a turn whose clock starts now. `cpu_used_before` is the CPU time
    /// the bot's process group has used so far (persistent processes) or zero.
    pub fn deadline_from_now(&self, cpu_used_before: Duration) -> jail::Deadline {
        jail::Deadline {
            wall: self.wall_limit().map(|limit| Instant::now() + limit),
            cpu: self.cpu_left.map(|left| cpu_used_before + left),
        }
    }

    /// A human-readable description of the limit that was hit, for fault details.
    pub fn describe(&self, limit: jail::TimeLimit) -> String {
        match limit {
            jail::TimeLimit::Cpu => {
                format!("out of CPU time (the game's CPU budget had {} s left at the start of this move)", secs(self.cpu_left))
            }
            jail::TimeLimit::Wall => match (self.move_time, self.game_time_left, self.cpu_left) {
                (Some(m), g, c) if g.is_none_or(|g| m <= g) && c.is_none_or(|c| m <= c * 2 + Duration::from_secs(1)) => {
                    format!("out of time ({} s per move)", fmt_secs(m))
                }
                (_, Some(_), _) => "out of time (game clock ran out)".to_string(),
                _ => "waited twice as long as the CPU time left, plus a second".to_string(),
            },
        }
    }
}

fn secs(d: Option<Duration>) -> String {
    d.map(fmt_secs).unwrap_or_else(|| "-".to_string())
}

fn fmt_secs(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 { format!("{s:.0}") } else { format!("{s:.3}") }
}

/// One request to play a turn of a game `G`.
#[derive(Debug)]
pub struct TurnRequest<'a, G> {
    pub pos: &'a G,
    pub last_move: LastMove,
    pub clock: TurnClock,
}

/// A seat's answer to a turn: a move of the game (read, not yet checked by the rules),
/// or the bot's fault.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reply<M> {
    pub answer: Result<M, Fault>,
    pub elapsed: Duration,
    /// CPU time the bot used for this turn (zero where it is not measured).
    pub cpu: Duration,
    pub stderr: jail::Log,
}

impl<M> Reply<M> {
    pub fn fault(kind: FaultKind, detail: impl Into<String>, elapsed: Duration, stderr: jail::Log) -> Reply<M> {
        Reply { answer: Err(Fault::new(kind, detail)), elapsed, cpu: Duration::ZERO, stderr }
    }
}

/// Reads a move a bot wrote as text: a text the game cannot read is a fault of
/// `unreadable` (a protocol error for most interfaces; an illegal move where the
/// interface counts an impossible square as one), a readable one is left for the rules
/// to check when it is played.
pub fn read_move<G: Game>(pos: &G, text: &str, unreadable: FaultKind) -> Result<G::Move, Fault> {
    match pos.parse_move(text) {
        Ok(mv) => Ok(mv),
        Err(err @ rules::MoveError::Parse { .. }) => Err(Fault::new(unreadable, err.to_string())),
        Err(err) => Err(Fault::new(FaultKind::IllegalMove, err.to_string())),
    }
}

/// One side of a game in progress.
enum Seat<G: Game> {
    Builtin { builtin: Builtin, rng: Box<ChaCha8Rng> },
    Human(human::Human),
    Remote(human::Remote),
    Program(Box<dyn drivers::Driver<G>>),
}

impl<G: Registered> Seat<G> {
    async fn open(spec: &BotSpec, ctx: &SeatContext) -> Result<Seat<G>, StartError> {
        Ok(match spec {
            BotSpec::Builtin(builtin) => {
                let stream = ctx.seed ^ (0x9e37_79b9_7f4a_7c15u64.wrapping_mul(ctx.side.index() as u64 + 1));
                Seat::Builtin { builtin: *builtin, rng: Box::new(ChaCha8Rng::seed_from_u64(stream)) }
            }
            BotSpec::Human => Seat::Human(human::Human::terminal(ctx.side)),
            BotSpec::Remote(remote) => Seat::Remote(remote.clone()),
            BotSpec::Program(bot) => Seat::Program(drivers::open::<G>(bot, ctx).await?),
        })
    }

    async fn turn(&mut self, req: &TurnRequest<'_, G>) -> Result<Reply<G::Move>, RefereeError> {
        Ok(match self {
            Seat::Builtin { builtin, rng } => {
                let began = Instant::now();
                let answer =
                    builtin.choose(req.pos, rng.as_mut()).ok_or_else(|| Fault::new(FaultKind::ProtocolError, "no move in an ongoing game"));
                Reply { answer, elapsed: began.elapsed(), cpu: Duration::ZERO, stderr: jail::Log::default() }
            }
            Seat::Human(human) => human.turn(req).await,
            Seat::Remote(remote) => remote.turn(req).await,
            Seat::Program(driver) => driver.turn(req).await?,
        })
    }

    async fn finish(&mut self, outcome: &Outcome) {
        match self {
            Seat::Builtin { .. } | Seat::Remote(_) => {}
            Seat::Human(human) => human.finish(outcome),
            Seat::Program(driver) => driver.finish(outcome).await,
        }
    }
}

/// What a game is played from.
#[derive(Clone, Debug)]
pub struct GameSetup {
    pub start: AnyPosition,
    pub options: Options,
    pub seed: u64,
    /// Limits of side 0 and side 1.
    pub limits: [Limits; 2],
    /// Where the bots' working directories are made (`side-0`, `side-1`, fresh for this
    /// game); when `None`, a game folder in the temporary folder ([`folders`]), removed
    /// after the game.
    pub workdir_root: Option<PathBuf>,
}

impl GameSetup {
    /// A game from `start` with the game's own limits for both sides.
    pub fn new(start: AnyPosition, options: Options, seed: u64) -> GameSetup {
        let limits = Limits::for_game(start.kind(), &options);
        GameSetup { start, options, seed, limits: [limits; 2], workdir_root: None }
    }
}

/// Plays one game to its end and returns its record: the one run-time choice of the
/// game (the start position's), then [`play`] for that game. `on_turn` sees the position
/// after every accepted move with that turn's record (for `--show`, live views). Whatever
/// a bot does is in the record; an `Err` is our own failure (the game was not played to
/// its end, and no side is to blame), or a bot that does not play this game.
pub async fn play_game(
    setup: &GameSetup,
    bots: [&BotSpec; 2],
    on_turn: impl FnMut(&AnyPosition, &TurnRecord) + Send,
) -> Result<GameRecord, RefereeError> {
    struct Play<'a, F> {
        setup: &'a GameSetup,
        bots: [&'a BotSpec; 2],
        on_turn: F,
    }
    impl<'a, F: FnMut(&AnyPosition, &TurnRecord) + Send + 'a> Visit for Play<'a, F> {
        type Output = BoxFuture<'a, Result<GameRecord, RefereeError>>;
        fn visit<G: Registered>(self, start: &G) -> Self::Output {
            let (setup, bots, mut on_turn, start) = (self.setup, self.bots, self.on_turn, start.clone());
            Box::pin(play::<G>(setup, start, bots, move |pos: &G, turn: &TurnRecord| on_turn(&pos.clone().into_any(), turn)))
        }
    }
    setup.start.visit(Play { setup, bots, on_turn }).await
}

/// Plays one game of `G` from `start` (the setup's start position, typed) to its end.
/// Checks first that each program bot plays `G`.
pub async fn play<G: Registered>(
    setup: &GameSetup,
    start: G,
    bots: [&BotSpec; 2],
    mut on_turn: impl FnMut(&G, &TurnRecord) + Send,
) -> Result<GameRecord, RefereeError> {
    for bot in bots {
        if let BotSpec::Program(program) = bot
            && program.game != G::KIND
        {
            return Err(RefereeError::wrong_game(&program.manifest.name, program.game, G::KIND));
        }
    }
    let started = Instant::now();
    let started_ms = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64);
    let kind = G::KIND;
    let folder = match &setup.workdir_root {
        Some(_) => None,
        None => {
            Some(folders::GameFolder::create_async().await.map_err(|err| RefereeError::new("cannot make the game's working folder", err))?)
        }
    };
    let root: PathBuf = match (&setup.workdir_root, &folder) {
        (Some(root), _) => {
            tokio::fs::create_dir_all(root).await.map_err(|err| RefereeError::new("cannot make the games' working folder", err))?;
            root.clone()
        }
        (None, Some(folder)) => folder.path().to_path_buf(),
        (None, None) => unreachable!("a game folder is made when no root is given"),
    };
    let players = [player_record(bots[0], &setup.limits[0]), player_record(bots[1], &setup.limits[1])];
    let mut pos = start;
    let mut moves = Vec::new();
    let mut turns: Vec<TurnRecord> = Vec::new();
    let mut startup: Vec<StartupRecord> = Vec::new();
    let mut termination = Termination::Rules;

    // Open both seats; a bot that cannot start loses.
    let mut seats: Vec<Seat<G>> = Vec::with_capacity(2);
    for side in Side::BOTH {
        let ctx = SeatContext {
            kind,
            options: setup.options.clone(),
            start: setup.start.clone(),
            side,
            limits: setup.limits[side.index()],
            workdir: root.join(format!("side-{}", side.index())),
            seed: setup.seed,
        };
        let opening = Instant::now();
        let opened = match prepare_workdir(&ctx.workdir, bots[side.index()]).await {
            Ok(()) => Seat::<G>::open(bots[side.index()], &ctx).await,
            // A link or a special file in the bot's `workdir`, refused, is the bot's doing.
            Err(err) if err.kind() == std::io::ErrorKind::InvalidInput => {
                Err(Fault::new(FaultKind::Crash, format!("cannot prepare the working directory: {err}")).into())
            }
            Err(err) => {
                Err(StartError::Referee(RefereeError::new(format!("cannot prepare the working folder of side {}", side.index()), err)))
            }
        };
        match opened {
            Ok(seat) => seats.push(seat),
            Err(StartError::Bot { fault, stderr }) => {
                startup.push(StartupRecord {
                    side: side.index(),
                    ms: opening.elapsed().as_millis() as u64,
                    stderr: stderr.text,
                    stderr_dropped: stderr.dropped,
                });
                termination = fault.into_termination(side);
                break;
            }
            Err(StartError::Referee(err)) => return Err(err),
        }
    }

    let mut wall_used = [Duration::ZERO; 2];
    let mut cpu_used = [Duration::ZERO; 2];
    let mut last_move = LastMove::None;
    if termination == Termination::Rules {
        while let Some(side) = pos.to_move() {
            let idx = side.index();
            let limits = &setup.limits[idx];
            let clock = TurnClock {
                move_time: limits.move_time,
                game_time_left: limits.game_time.map(|t| t.saturating_sub(wall_used[idx])),
                cpu_left: limits.game_cpu.map(|t| t.saturating_sub(cpu_used[idx])),
            };
            let request = TurnRequest { pos: &pos, last_move: last_move.clone(), clock };
            let reply = seats[idx].turn(&request).await?;
            wall_used[idx] += reply.elapsed;
            cpu_used[idx] += reply.cpu;
            let mut turn = TurnRecord {
                side: idx,
                text: None,
                ms: reply.elapsed.as_millis() as u64,
                stderr: reply.stderr.text,
                stderr_dropped: reply.stderr.dropped,
                note: None,
            };
            // The move as the seat read it, checked once, here, by the rules.
            let accepted = match reply.answer {
                Err(fault) => Err(fault),
                Ok(mv) => {
                    let text = pos.format_move(&mv);
                    pos.play(&mv).map(|()| text).map_err(|err| Fault::new(FaultKind::IllegalMove, err.to_string()))
                }
            };
            match accepted {
                Ok(canonical) => {
                    turn.text = Some(canonical.clone());
                    turn.note = pos.turn_note();
                    on_turn(&pos, &turn);
                    turns.push(turn);
                    last_move = if pos.hides_last_move() { LastMove::Hidden } else { LastMove::Move(canonical.clone()) };
                    moves.push(canonical);
                }
                Err(fault) => {
                    turns.push(turn);
                    termination = fault.into_termination(side);
                    break;
                }
            }
        }
    }

    let outcome = match termination.side() {
        Some(loser) => pos.forfeit(loser),
        None => pos.outcome().expect("play stops by the rules only at the end"),
    };
    for seat in &mut seats {
        seat.finish(&outcome).await;
    }
    drop(seats);
    if let Some(folder) = folder {
        folder.remove_async().await;
    }
    Ok(GameRecord {
        game: kind.name().to_string(),
        options: setup.options.clone(),
        start: setup.start.start_text(),
        seed: setup.seed,
        players,
        moves,
        turns,
        startup,
        result: ResultRecord { winner: outcome.winner.map(Side::index), scores: outcome.scores, termination },
        started_ms,
        duration_ms: started.elapsed().as_millis() as u64,
    })
}

fn player_record(spec: &BotSpec, limits: &Limits) -> PlayerRecord {
    let limits = limits.to_record();
    // Players that are not programs are named, and kind, only.
    let plain = |name: String, kind: &str| PlayerRecord {
        name,
        kind: kind.to_string(),
        protocol: None,
        manifest: None,
        command: None,
        sha256: None,
        limits,
    };
    match spec {
        BotSpec::Builtin(builtin) => plain(builtin.name().to_string(), "builtin"),
        BotSpec::Remote(remote) => plain(remote.name.clone(), "human"),
        BotSpec::Human => plain("human".to_string(), "human"),
        BotSpec::Program(bot) => PlayerRecord {
            name: bot.manifest.name.clone(),
            kind: "program".to_string(),
            protocol: Some(bot.manifest.protocol.name().to_string()),
            manifest: Some(bot.manifest_path.to_string_lossy().into_owned()),
            command: Some(bot.command.clone()),
            sha256: bot.fingerprint(),
            limits,
        },
    }
}

/// Makes the bot's fresh working directory and copies its manifest's `workdir` files in
/// (without following links, off the runtime's threads).
async fn prepare_workdir(dir: &Path, spec: &BotSpec) -> std::io::Result<()> {
    let (dir, bot) = match spec {
        BotSpec::Program(bot) => (dir.to_path_buf(), Some(bot.clone())),
        _ => (dir.to_path_buf(), None),
    };
    tokio::task::spawn_blocking(move || {
        if dir.exists() {
            std::fs::remove_dir_all(&dir)?;
        }
        // Never its parents: this may finish after its game was dropped (a blocking task
        // runs to its end) and must not make the removed game folder anew.
        std::fs::create_dir(&dir)?;
        if let Some(bot) = bot {
            bot.copy_workdir(&dir)?;
        }
        Ok(())
    })
    .await
    .expect("preparing a working directory does not panic")
}
