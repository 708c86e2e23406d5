//! The Gomocup interface (Piskvork's "pbrain" protocol, `docs/bots.md`, "gomocup";
//! messages in `protocols::gomocup`): one process per game, a Gomocup engine (a
//! "brain") as it enters Gomocup. The process is started in `open`, told `START 10`
//! (answered `OK` within [`STARTUP_TIME`]) and the limits as `INFO` lines, then paused;
//! each turn resumes it, sends `INFO time_left` where the game has a budget and `BEGIN`,
//! `TURN x,y` or `BOARD ... DONE`, and gives it the move time from there until its move
//! `x,y`; `finish` sends `END` and kills its group. When the caller keeps processes
//! ([`crate::pool`]), a brain that played a game without fault is paused into the pool
//! instead, in a folder of its own, and its next game begins with `RESTART` (answered
//! `OK`) and the game's `INFO` lines; a brain that answers `RESTART` otherwise is ended
//! without blame, and that bot's processes are no longer kept.
//!
//! A turn's input in the record is the commands written for it; the first turn's begins
//! with what was written at the start (`START 10` or `RESTART`, and the `INFO` lines).
//!
//! The brain's `MESSAGE`, `DEBUG`, `SUGGEST` lines (and `ERROR`/`UNKNOWN` while a move is
//! awaited) are kept in its turn's log in the record, after what it wrote on stderr, each
//! line as written with `stdout: ` before it; those written before its first turn come
//! with its first turn. They count against the same per-move cap as stderr.

use std::path::Path;
use std::time::{Duration, Instant};

use protocols::gomocup::{Answer, Awaiting, Command, Heard, Info, NO_LIMIT_MS, game_infos, turn_command};
use rules::{Outcome, Registered, Side, gomoku};

use super::arbiter::{QUIT_GRACE, STARTUP_TIME, gone};
use super::kept::{self, Kept};
use super::{Driver, Identity, command, give_up, quote};
use crate::pool::{Pool, Resident};
use crate::{BoxFuture, Fault, FaultKind, ProgramBot, RefereeError, Reply, SeatContext, StartError, TurnClock, TurnRequest};

/// The board size sent with `START`: Arbiter's Gomoku is 10×10 only.
pub const BOARD_SIZE: u64 = gomoku::SIZE as u64;

/// The time an engine gets for its first move of a game beyond the move's limit: its
/// set-up at its first search (GomocupJudge, Gomocup's manager, gives every move a
/// tolerance of a second; `docs/bots.md`).
pub const FIRST_MOVE_SETUP: Duration = Duration::from_secs(1);

/// The memory an engine is told it has (`INFO max_memory`) and held to when its limits
/// set none: Gomocup's own limit, which engines size their tables for; "no limit" (0)
/// makes them take their defaults, which may take longer to set up than a move lasts.
pub const DEFAULT_MEMORY: u64 = 350 * 1024 * 1024;

/// The longest line read from a brain.
const LINE_CAP: usize = 4096;

/// A Gomocup brain playing Gomoku.
pub struct Bot {
    /// Its process, and where it goes at the game's end.
    kept: Kept,
    side: Side,
    /// Whether the brain has had a turn in this game (then `TURN` tells it all it needs).
    told: bool,
    /// The group's CPU time already reported in replies (the start-up counts with the
    /// first move).
    cpu_reported: Duration,
    /// Protocol lines kept for the next turn's log, and their byte cap.
    log: ProtocolLog,
    /// What was written to it before its first turn of this game (`START 10` or
    /// `RESTART`, and the `INFO` lines): its first turn's input begins with it.
    opening: String,
    /// What was written to it in the turn being played, for its record.
    written: String,
}

impl Driver<gomoku::Position> for Bot {
    fn turn<'a>(&'a mut self, req: &'a TurnRequest<'a, gomoku::Position>) -> BoxFuture<'a, Result<Reply<gomoku::Move>, RefereeError>> {
        Box::pin(async move { Ok(self.play_turn(req).await) })
    }

    fn finish<'a>(&'a mut self, _outcome: &'a Outcome) -> BoxFuture<'a, ()> {
        // Kept: paused since its last move, until its next game's RESTART.
        Box::pin(async move { self.kept.finish(b"", Command::End.format().as_bytes()).await })
    }
}

impl Bot {
    /// A brain for this game: a kept process restarted, when the caller keeps them and
    /// one waits, else a fresh one (in a folder of its own when processes are kept).
    pub async fn open(bot: &ProgramBot, ctx: &SeatContext) -> Result<Bot, StartError> {
        let key = Pool::key(bot, &ctx.limits);
        kept::open(
            bot,
            ctx,
            key,
            |brain: &mut Bot| &mut brain.kept,
            |resident, pool| Box::pin(async move { Bot::restart(resident, ctx, &pool).await }),
            |workdir| Box::pin(async move { Bot::start(bot, ctx, &workdir).await }),
        )
        .await
    }

    /// Starts a fresh brain in `workdir`: `START`, then the game's `INFO` lines.
    async fn start(bot: &ProgramBot, ctx: &SeatContext, workdir: &Path) -> Result<Bot, StartError> {
        let mut cmd = command(bot, workdir, &ctx.limits, &[]);
        cmd.env.push((crate::SEED_VAR.into(), ctx.bot_seed().to_string().into()));
        cmd.limits.line_cap = LINE_CAP;
        cmd.limits.memory = Some(memory(ctx));
        let mut process = super::spawn(&cmd).await?;
        let mut log = ProtocolLog::new(ctx.limits.stderr_per_move);
        let text: String = infos(ctx).iter().map(Command::format).collect();
        let started = async {
            start(&mut process, &mut log).await?;
            match process.send(text.as_bytes(), jail::Deadline::wall_in(STARTUP_TIME)).await {
                Ok(()) => Ok(()),
                Err(failure) => Err(gone(&mut process, failure, &TurnClock::default()).await),
            }
        }
        .await;
        if let Err(fault) = started {
            let mut stderr = give_up(&mut process).await;
            log.append_to(&mut stderr);
            return Err(StartError::Bot { fault, stderr });
        }
        process.pause().await;
        Ok(Bot {
            kept: Kept::fresh(process),
            side: ctx.side,
            told: false,
            cpu_reported: Duration::ZERO,
            log,
            opening: Command::Start(BOARD_SIZE).format() + &text,
            written: String::new(),
        })
    }

    /// Plays this game with a kept process: `RESTART`, answered `OK` within
    /// [`STARTUP_TIME`], then the game's `INFO` lines, then paused until its first turn.
    /// A process that cannot is handed back to be retired; one that answers `RESTART`
    /// with anything but `OK` also marks its bot as one whose processes are not kept.
    async fn restart(mut resident: Resident, ctx: &SeatContext, pool: &std::sync::Arc<Pool>) -> Result<Bot, Resident> {
        if resident.process.try_exit().is_some() {
            return Err(resident);
        }
        let mut log = ProtocolLog::new(ctx.limits.stderr_per_move);
        let process = &mut resident.process;
        // A kept process that ran while it waited is not given another game.
        if process.resume().is_err() {
            return Err(resident);
        }
        let deadline = jail::Deadline::wall_in(STARTUP_TIME);
        if process.send(Command::Restart.format().as_bytes(), deadline).await.is_err() {
            return Err(resident);
        }
        loop {
            let Ok(line) = process.read_line(deadline).await else { return Err(resident) };
            match Awaiting::Ok.hear(&line) {
                Heard::Nothing => {}
                Heard::Log(kept) => log.push(&kept),
                Heard::Ok => break,
                _ => {
                    pool.refuse(&resident.key);
                    return Err(resident);
                }
            }
        }
        let text: String = infos(ctx).iter().map(Command::format).collect();
        if process.send(text.as_bytes(), deadline).await.is_err() {
            return Err(resident);
        }
        process.pause().await;
        let cpu_reported = process.cpu_time();
        Ok(Bot {
            kept: Kept::from_pool(resident, pool),
            cpu_reported,
            side: ctx.side,
            told: false,
            log,
            opening: Command::Restart.format() + &text,
            written: String::new(),
        })
    }

    fn process(&mut self) -> &mut jail::Process {
        self.kept.process()
    }

    async fn play_turn(&mut self, req: &TurnRequest<'_, gomoku::Position>) -> Reply<gomoku::Move> {
        // Read before the clock starts: the referee's own reading is not the bot's time.
        let wait_before = req.clock.wait_before(self.process());
        let resumed = self.process().resume();
        let began = Instant::now();
        // An engine sets itself up at its first search (its hash table sized to the memory
        // it was told): its first move of a game gets the set-up allowance on top of the
        // move's limit, as Gomocup's own managers give every move a tolerance.
        let mut clock = req.clock;
        if !self.told {
            clock.move_time = clock.move_time.map(|limit| limit + FIRST_MOVE_SETUP);
        }
        let deadline = clock.deadline_crediting(began, self.cpu_reported, wait_before);
        let answer = match resumed {
            Ok(()) => self.ask(req, deadline).await,
            Err(ran) => Err(super::ran_while_paused(ran)),
        };
        self.told = true;
        self.kept.faulted |= answer.is_err();
        let process = self.process();
        let (elapsed, waited) = TurnClock::charged(process, began, &deadline);
        // Its settling before the pause is its own time.
        let elapsed = elapsed + process.pause().await;
        let cpu_now = process.cpu_time();
        let mut stderr = process.take_stderr().await;
        let cpu = cpu_now.saturating_sub(self.cpu_reported);
        self.cpu_reported = cpu_now;
        self.log.append_to(&mut stderr);
        let input = std::mem::take(&mut self.opening) + &std::mem::take(&mut self.written);
        Reply { answer, elapsed, cpu, waited, stderr, input }
    }

    async fn ask(&mut self, req: &TurnRequest<'_, gomoku::Position>, deadline: jail::Deadline) -> Result<gomoku::Move, Fault> {
        let process = self.kept.process();
        let mut text = String::new();
        if let Some(left) = req.clock.game_time_left {
            text.push_str(&Command::Info(Info::TimeLeft((left.as_millis() as u64).min(NO_LIMIT_MS))).format());
        }
        let turn = turn_command(req.pos, self.side, self.told);
        text.push_str(&turn.format());
        self.written = text.clone();
        if let Err(failure) = process.send(text.as_bytes(), deadline).await {
            return Err(gone(process, failure, &req.clock).await);
        }
        let sent = turn.format().lines().next().unwrap_or_default().to_string();
        // The engine's last ERROR or UNKNOWN of this turn: why it may not answer in time.
        let mut complaint: Option<String> = None;
        loop {
            let line = match process.read_line(deadline).await {
                Ok(line) => line,
                Err(failure) => {
                    let timed_out = matches!(failure, jail::Failure::Timeout(_));
                    let mut fault = gone(process, failure, &req.clock).await;
                    if let Some(said) = complaint.as_deref().filter(|_| timed_out) {
                        fault.detail = format!("{} (the last ERROR or UNKNOWN it wrote: {})", fault.detail, quote(said.as_bytes()));
                    }
                    return Err(fault);
                }
            };
            match Awaiting::Move.hear(&line) {
                Heard::Nothing => {}
                Heard::Log(kept) => {
                    if matches!(Answer::parse(&kept), Answer::Error(_) | Answer::Unknown(_)) {
                        complaint = Some(kept.clone());
                    }
                    self.log.push(&kept);
                }
                Heard::Move(cell) => {
                    return cell.to_move().ok_or_else(|| {
                        Fault::new(
                            FaultKind::IllegalMove,
                            format!("answered {cell} to {sent}: off the 10×10 board (x and y go from 0 to 9)"),
                        )
                    });
                }
                Heard::Wrong { line, expected } => return Err(wrong(&sent, &line, expected)),
                Heard::Ok | Heard::About(_) | Heard::Refused(_) => return Err(wrong(&sent, &line, Awaiting::Move.expected())),
            }
        }
    }
}

/// The `INFO` lines that tell a brain the game's limits.
fn infos(ctx: &SeatContext) -> Vec<Command> {
    let ms = |d: Option<Duration>| d.map(|d| d.as_millis() as u64);
    game_infos(ms(ctx.limits.move_time), ms(ctx.limits.game_time), Some(memory(ctx)))
}

/// The memory cap an engine runs under and is told: its limits', else [`DEFAULT_MEMORY`].
fn memory(ctx: &SeatContext) -> u64 {
    ctx.limits.memory.unwrap_or(DEFAULT_MEMORY)
}

/// The fault of a line that breaks the protocol after the command `sent`.
fn wrong(sent: &str, line: &str, expected: &str) -> Fault {
    Fault::new(FaultKind::ProtocolError, format!("answered {} to {sent}, expected {expected}", quote(line.as_bytes())))
}

/// Sends `START 10` and waits for `OK`, keeping the lines before it.
async fn start(process: &mut jail::Process, log: &mut ProtocolLog) -> Result<(), Fault> {
    let deadline = jail::Deadline::wall_in(STARTUP_TIME);
    let startup = TurnClock { move_time: Some(STARTUP_TIME), ..TurnClock::default() };
    let sent = Command::Start(BOARD_SIZE).format();
    if let Err(failure) = process.send(sent.as_bytes(), deadline).await {
        return Err(gone(process, failure, &startup).await);
    }
    loop {
        let line = match process.read_line(deadline).await {
            Ok(line) => line,
            Err(jail::Failure::Timeout(_)) => {
                let detail = format!("no OK to START {BOARD_SIZE} within {} s of the start", STARTUP_TIME.as_secs());
                return Err(Fault::new(FaultKind::Timeout, detail));
            }
            Err(failure) => {
                let mut fault = gone(process, failure, &startup).await;
                fault.detail = format!("after START {BOARD_SIZE}: {}", fault.detail);
                return Err(fault);
            }
        };
        match Awaiting::Ok.hear(&line) {
            Heard::Nothing => {}
            Heard::Log(kept) => log.push(&kept),
            Heard::Ok => return Ok(()),
            Heard::Refused(said) => return Err(Fault::new(FaultKind::ProtocolError, refused_start(&said))),
            Heard::Wrong { line, expected } => return Err(wrong(&format!("START {BOARD_SIZE}"), &line, expected)),
            Heard::Move(_) | Heard::About(_) => return Err(wrong(&format!("START {BOARD_SIZE}"), &line, Awaiting::Ok.expected())),
        }
    }
}

/// The one line for a brain that refused `START 10`.
pub fn refused_start(said: &str) -> String {
    format!(
        "refused START {BOARD_SIZE} ({}): Arbiter's Gomoku is played on a {BOARD_SIZE}×{BOARD_SIZE} board only, and this engine does not play that size",
        quote(said.as_bytes())
    )
}

/// Asks a brain about itself: `ABOUT`, then `END`. Its `name` is the bot's name, its
/// `author` the author; the other pairs (`version`, `country`, ...) are kept as they are.
pub async fn describe(bot: &ProgramBot, workdir: &Path, sandboxed: bool) -> Result<Option<Identity>, StartError> {
    let limits = crate::Limits { sandboxed, ..crate::Limits::for_kind(gomoku::Position::KIND) };
    let mut cmd = command(bot, workdir, &limits, &[]);
    cmd.limits.memory = None;
    cmd.limits.line_cap = LINE_CAP;
    let mut process = super::spawn(&cmd).await?;
    let deadline = jail::Deadline::wall_in(STARTUP_TIME);
    let clock = TurnClock { move_time: Some(STARTUP_TIME), ..TurnClock::default() };
    let asked = async {
        if let Err(failure) = process.send(Command::About.format().as_bytes(), deadline).await {
            return Err(gone(&mut process, failure, &clock).await);
        }
        loop {
            let line = match process.read_line(deadline).await {
                Ok(line) => line,
                Err(failure) => return Err(gone(&mut process, failure, &clock).await),
            };
            match Awaiting::About.hear(&line) {
                Heard::Nothing | Heard::Log(_) => {}
                Heard::About(about) => return Ok(about),
                Heard::Refused(said) => {
                    return Err(Fault::new(FaultKind::ProtocolError, format!("refused ABOUT ({})", quote(said.as_bytes()))));
                }
                Heard::Wrong { line, expected } => return Err(wrong("ABOUT", &line, expected)),
                Heard::Ok | Heard::Move(_) => return Err(wrong("ABOUT", &line, Awaiting::About.expected())),
            }
        }
    }
    .await;
    let about = match asked {
        Ok(about) => about,
        Err(fault) => return Err(StartError::Bot { fault, stderr: give_up(&mut process).await }),
    };
    let end = jail::Deadline::wall_in(QUIT_GRACE);
    if process.send(Command::End.format().as_bytes(), end).await.is_ok() {
        let _ = process.wait(end).await;
    }
    process.kill().await;
    let Some(name) = about.get("name").filter(|name| !name.trim().is_empty()) else {
        return Err(Fault::new(
            FaultKind::ProtocolError,
            format!("its ABOUT line {} has no name=\"...\"", quote(about.to_string().as_bytes())),
        )
        .into());
    };
    let details = about.pairs.iter().filter(|(key, _)| key != "name" && key != "author").cloned().collect();
    Ok(Some(Identity { name: name.to_string(), author: about.get("author").map(str::to_string), details }))
}

/// The protocol lines a brain (or a UCI engine) wrote for the log, under a byte cap per
/// turn.
pub(super) struct ProtocolLog {
    lines: String,
    dropped: u64,
    cap: usize,
}

impl ProtocolLog {
    pub(super) fn new(cap: usize) -> ProtocolLog {
        ProtocolLog { lines: String::new(), dropped: 0, cap }
    }

    pub(super) fn push(&mut self, line: &str) {
        let entry = format!("stdout: {line}\n");
        if self.lines.len() + entry.len() <= self.cap {
            self.lines.push_str(&entry);
        } else {
            self.dropped += entry.len() as u64;
        }
    }

    /// Moves the kept lines to the end of a turn's stderr log.
    pub(super) fn append_to(&mut self, stderr: &mut jail::Log) {
        stderr.text.push_str(&std::mem::take(&mut self.lines));
        stderr.dropped += std::mem::take(&mut self.dropped);
    }
}
