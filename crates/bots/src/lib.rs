//! Program bots: their manifests (`bot.toml`), their builds, their fingerprints, the
//! drivers that speak each bot interface, and the vocabulary the referee and the drivers
//! share (a turn asked, a reply, a fault, a start that failed). Every process of a bot is
//! started through `jail`, inside the sandbox unless the caller says otherwise.

pub mod ahead;
pub mod build;
pub mod doctor;
pub mod drivers;
pub mod folders;
pub mod limits;
pub mod manifest;
pub mod nofollow;
pub mod pool;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use rules::{AnyPosition, Game, GameKind, Options, Side};
use serde::{Deserialize, Serialize};

pub use limits::{LimitOverrides, Limits};
pub use manifest::{Manifest, ManifestError, ProgramBot, Protocol};

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
    /// The bot's own working directory, fresh for this game (not made for a seat that
    /// does not use it, see [`SeatContext::uses_game_folder`]).
    pub workdir: PathBuf,
    pub seed: u64,
    /// Where processes of bots that can play game after game are kept between games
    /// (`None`: one process per game, the default of the seeds' contests).
    pub pool: Option<std::sync::Arc<pool::Pool>>,
    /// Where sandboxes for the next games of bots with a process per move are started
    /// ahead (`None`: each seat starts its own when it opens).
    pub ahead: Option<std::sync::Arc<ahead::Ahead>>,
}

/// The variable that gives a program bot its seed: the same game (the same `--seed`) gives
/// the same seeds, so that a bot that seeds its randomness from it plays the same moves.
pub const SEED_VAR: &str = "ARBITER_SEED";

/// A seed derived from `seed` and `n` (SplitMix64's mix), as an unsigned 32-bit number:
/// every language reads it whole (JavaScript's numbers, Java's `int` as a `long`).
pub fn derive_seed(seed: u64, n: u64) -> u32 {
    let mut z = seed ^ n.wrapping_add(1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    ((z ^ (z >> 31)) >> 32) as u32
}

impl SeatContext {
    /// The seed this game gives its program bot on this side (`ARBITER_SEED`, and the
    /// project protocol's `seed` line): derived from the game's seed and the side.
    pub fn bot_seed(&self) -> u32 {
        derive_seed(self.seed, 0x5eed_0000 | self.side.index() as u64)
    }

    /// Whether `bot` works in a folder of the game's (`workdir`): every program does,
    /// except one whose process may be kept (the project protocol, Gomocup, UCI) when
    /// processes are kept (`pooled`), which has a folder of its own for as long as its
    /// process lives, and one with a process per move in the sandbox when sandboxes are
    /// started ahead (`ahead`, [`ahead::Ahead::serves`]), which works in its sandbox's own.
    pub fn uses_game_folder(bot: &ProgramBot, sandboxed: bool, pooled: bool, ahead: bool) -> bool {
        let protocol = bot.manifest.protocol;
        !(pooled && matches!(protocol, Protocol::Arbiter | Protocol::Gomocup | Protocol::Uci)
            || ahead && ahead::Ahead::serves(protocol, sandboxed))
    }
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

/// The most of a bot's wait for a CPU a turn gives back, in multiples of its wall-clock
/// limit: a machine that starves a bot still ends its turn, after five times its limit.
pub const WAIT_GIVEN_BACK: u32 = 4;

/// The time a side has for the turn it is asked to play.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct TurnClock {
    /// The per-move limit.
    pub move_time: Option<Duration>,
    /// What is left of the per-game wall-clock budget.
    pub game_time_left: Option<Duration>,
    /// What is left of the per-game CPU budget.
    pub cpu_left: Option<Duration>,
    /// The per-move CPU limit (`move-cpu-ms`).
    pub move_cpu: Option<Duration>,
    /// Added to the side's clock after this move (chess's increment), for engines that
    /// plan their time (UCI's `winc`/`binc`).
    pub increment: Option<Duration>,
    /// The moves until the side's clock gets its time again, this one included (UCI's
    /// `movestogo`), under a time control of so many moves.
    pub moves_to_go: Option<u32>,
    /// How far past `game_time_left` the move may end and still count.
    pub margin: Option<Duration>,
    /// The opponent's clock, for interfaces that tell both (UCI's `wtime` and `btime`).
    pub opponent: Option<OpponentClock>,
}

/// The other side's clock as a turn sees it.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct OpponentClock {
    /// What is left on it.
    pub left: Duration,
    /// Its increment per move.
    pub increment: Option<Duration>,
}

impl TurnClock {
    /// The CPU time this turn may use: the per-move CPU limit or the game's CPU budget
    /// left, whichever is less.
    fn cpu_allowance(&self) -> Option<Duration> {
        [self.move_cpu, self.cpu_left].into_iter().flatten().min()
    }

    /// The wall-clock time this turn may take at most: the per-move limit, the game
    /// budget left, and, for CPU limits, a guard of twice the CPU time allowed plus a
    /// second (a bot that waits instead of computing must not wait forever, and a bot
    /// that computes on a busy machine must meet the CPU limit first).
    pub fn wall_limit(&self) -> Option<Duration> {
        let cpu_guard = self.cpu_allowance().map(|left| left * 2 + Duration::from_secs(1));
        let clock = self.game_time_left.map(|left| left + self.margin.unwrap_or_default());
        [self.move_time, clock, cpu_guard].into_iter().flatten().min()
    }

    /// The time a bot is told it has for this turn (the project protocol's `time`): the
    /// least of the per-move limit, the game's wall-clock budget left and its CPU time
    /// allowed, since a bot that stays within it meets every limit.
    pub fn announced(&self) -> Option<Duration> {
        [self.move_time, self.game_time_left, self.cpu_allowance()].into_iter().flatten().min()
    }

    /// The deadline of a turn whose clock starts now. `cpu_used_before` is the CPU time
    /// the bot's process group has used so far (persistent processes) or zero.
    pub fn deadline_from_now(&self, cpu_used_before: Duration) -> jail::Deadline {
        self.deadline_from(Instant::now(), cpu_used_before)
    }

    /// The deadline of a turn whose clock started at `start`.
    pub fn deadline_from(&self, start: Instant, cpu_used_before: Duration) -> jail::Deadline {
        jail::Deadline {
            wall: self.wall_limit().map(|limit| start + limit),
            cpu: self.cpu_allowance().map(|left| cpu_used_before + left),
            credit: None,
        }
    }

    /// Whether this turn has a wall-clock limit of the organiser's (per move or per
    /// game), which does not count the bot's waits for a CPU (`docs/bots.md`, "Time").
    pub fn credits_waits(&self) -> bool {
        self.move_time.is_some() || self.game_time_left.is_some()
    }

    /// The bot's wait for a CPU and the machine's steal so far ([`jail::Process::waits`])
    /// where this turn gives them back, else zero (not read): what
    /// [`TurnClock::deadline_crediting`] takes as `wait_before`, read before the clock
    /// starts.
    pub fn wait_before(&self, process: &jail::Process) -> jail::Waits {
        if self.credits_waits() { process.waits() } else { jail::Waits::default() }
    }

    /// The deadline of a turn whose clock started at `start`, `wait_before` being the
    /// readings then ([`TurnClock::wait_before`]): with a wall-clock limit of the
    /// organiser's, the time the bot waits for a CPU during the turn, and the time the
    /// machine's host takes from it, are given back, at most [`WAIT_GIVEN_BACK`] times
    /// the limit.
    pub fn deadline_crediting(&self, start: Instant, cpu_used_before: Duration, wait_before: jail::Waits) -> jail::Deadline {
        let mut deadline = self.deadline_from(start, cpu_used_before);
        if self.credits_waits() {
            deadline.credit = self.wall_limit().map(|limit| jail::Credit {
                start,
                wait: wait_before,
                cpu: cpu_used_before,
                cap: limit * WAIT_GIVEN_BACK,
            });
        }
        deadline
    }

    /// The time a turn clocked from `start` under `deadline` counts against the bot
    /// now, and what it gave back (the wait for a CPU, the steal).
    pub fn charged(process: &jail::Process, start: Instant, deadline: &jail::Deadline) -> (Duration, jail::Waits) {
        let elapsed = start.elapsed();
        let waited = deadline.credit.map_or_else(jail::Waits::default, |credit| process.credit(&credit)).at_most(elapsed);
        (elapsed - waited.total(), waited)
    }

    /// A human-readable description of the limit that was hit, for fault details.
    pub fn describe(&self, limit: jail::TimeLimit) -> String {
        match limit {
            jail::TimeLimit::Cpu => match (self.move_cpu, self.cpu_left) {
                (Some(per_move), left) if left.is_none_or(|left| per_move <= left) => {
                    format!("out of CPU time ({} s of CPU per move)", fmt_secs(per_move))
                }
                _ => format!("out of CPU time (the game's CPU budget had {} s left at the start of this move)", secs(self.cpu_left)),
            },
            jail::TimeLimit::Wall => match (self.move_time, self.game_time_left, self.cpu_allowance()) {
                (Some(m), g, c) if g.is_none_or(|g| m <= g) && c.is_none_or(|c| m <= c * 2 + Duration::from_secs(1)) => {
                    format!("out of time ({} s per move)", fmt_secs(m))
                }
                (_, Some(left), _) => {
                    format!(
                        "lost on time: no move within the {} s its clock showed at the start of the move{}",
                        fmt_secs(left),
                        self.margin_note()
                    )
                }
                _ => "waited twice as long as the CPU time allowed, plus a second".to_string(),
            },
        }
    }
}

impl TurnClock {
    /// `, margin 0.05 s` where the clock has a margin, else nothing.
    fn margin_note(&self) -> String {
        self.margin.filter(|m| !m.is_zero()).map(|m| format!(", margin {} s", fmt_secs(m))).unwrap_or_default()
    }

    /// The fault of a move that ended after its clock (and its margin) ran out, with the
    /// clock's figures: for the referee, which checks each move's time against the clock.
    pub fn late(&self, took: Duration) -> Option<Fault> {
        let left = self.game_time_left?;
        (took > left + self.margin.unwrap_or_default()).then(|| {
            Fault::new(
                FaultKind::Timeout,
                format!(
                    "lost on time: the move took {} s, its clock showed {} s at the start of the move{}",
                    fmt_secs(took),
                    fmt_secs(left),
                    self.margin_note()
                ),
            )
        })
    }
}

fn secs(d: Option<Duration>) -> String {
    d.map(fmt_secs).unwrap_or_else(|| "-".to_string())
}

fn fmt_secs(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 { format!("{s:.0}") } else { format!("{s:.3}") }
}

/// What an engine said of its move (UCI's last `info` line with a score before its
/// `bestmove`): its search's depth, score, nodes, speed and principal variation, kept in
/// the record and the PGN's comments.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Analysis {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seldepth: Option<u32>,
    /// The score in centipawns, from the side to move's point of view.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cp: Option<i32>,
    /// A mate in so many moves (negative: being mated), instead of `cp`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mate: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nps: Option<u64>,
    /// The engine's own time for the search, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pv: Vec<String>,
}

impl Analysis {
    /// The score as fastchess writes it in a PGN comment: `+0.31`, `-1.05`, `+M5` (mate
    /// in so many plies), `-M4`; `None` without a score.
    pub fn score_text(&self) -> Option<String> {
        if let Some(mate) = self.mate {
            let plies = if mate > 0 { mate * 2 - 1 } else { -mate * 2 };
            return Some(format!("{}M{plies}", if mate > 0 { "+" } else { "-" }));
        }
        self.cp.map(|cp| format!("{}{:.2}", if cp < 0 { "-" } else { "+" }, f64::from(cp.unsigned_abs()) / 100.0))
    }
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
    /// The time the bot waited for a CPU, and the time the machine's host took from it,
    /// that its clock did not count (already taken out of `elapsed`; zero where the limit
    /// does not give them back).
    pub waited: jail::Waits,
    pub stderr: jail::Log,
    /// What the referee wrote to the bot for this turn, as text: its stdin, the commands
    /// of a session, the field file it was given, a TCP line (empty where nothing is
    /// written: built-in players, people).
    pub input: String,
}

impl<M> Reply<M> {
    pub fn fault(kind: FaultKind, detail: impl Into<String>, elapsed: Duration, stderr: jail::Log) -> Reply<M> {
        Reply {
            answer: Err(Fault::new(kind, detail)),
            elapsed,
            cpu: Duration::ZERO,
            waited: jail::Waits::default(),
            stderr,
            input: String::new(),
        }
    }

    /// The same reply, with what the referee wrote for the turn.
    pub fn with_input(mut self, input: impl Into<String>) -> Reply<M> {
        self.input = input.into();
        self
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

/// Why play stopped. `side` is the side at fault (0 moved first).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Termination {
    /// The game ended by its rules.
    Rules,
    /// A time limit ran out (per move, per game, or CPU budget).
    Timeout { side: usize, detail: String },
    /// The bot's move was refused by the rules.
    IllegalMove { side: usize, detail: String },
    /// The bot's process died, failed to start, or exited before answering.
    Crash { side: usize, detail: String },
    /// The bot broke its interface (garbage, an unknown message, an over-long line).
    ProtocolError { side: usize, detail: String },
    /// The referee decided the game on the engines' scores before it ended by the rules
    /// (chess's resign and draw adjudication): nobody's fault; `winner` is the side that
    /// won, `None` for a draw.
    #[serde(rename = "adjudication")]
    Adjudicated { winner: Option<usize>, detail: String },
}

impl Termination {
    /// The side at fault, `None` for an end by the rules.
    pub fn side(&self) -> Option<Side> {
        match self {
            Termination::Rules | Termination::Adjudicated { .. } => None,
            Termination::Timeout { side, .. }
            | Termination::IllegalMove { side, .. }
            | Termination::Crash { side, .. }
            | Termination::ProtocolError { side, .. } => Side::from_index(*side),
        }
    }

    pub fn kind(&self) -> &'static str {
        match self {
            Termination::Rules => "rules",
            Termination::Timeout { .. } => "timeout",
            Termination::IllegalMove { .. } => "illegal-move",
            Termination::Crash { .. } => "crash",
            Termination::ProtocolError { .. } => "protocol-error",
            Termination::Adjudicated { .. } => "adjudication",
        }
    }

    /// One line for people: "rules", or "timeout by side 1: out of time (5 s per move)".
    pub fn describe(&self, side_names: [&str; 2]) -> String {
        match self {
            Termination::Rules => "by the rules".to_string(),
            Termination::Adjudicated { detail, .. } => format!("adjudication: {detail}"),
            Termination::Timeout { side, detail }
            | Termination::IllegalMove { side, detail }
            | Termination::Crash { side, detail }
            | Termination::ProtocolError { side, detail } => {
                format!("{} by {}: {detail}", self.kind(), side_names.get(*side).copied().unwrap_or("?"))
            }
        }
    }
}
