//! The Universal Chess Interface (`docs/bots.md`, "uci"; messages in `protocols::uci`):
//! a chess engine as it enters fastchess or cutechess, one process kept across games.
//! The process is started in `open`, told `uci` (answered `uciok` within
//! [`STARTUP_TIME`]), its options from the manifest's `[uci]` (and the command line's or
//! the entrant's) with `setoption`, then `ucinewgame` and `isready` (answered `readyok`),
//! then paused; each turn resumes it, sends `position startpos|fen ... moves ...` (every
//! move since the start, so that it can tell repetitions) and `go` with both clocks
//! (`wtime btime winc binc [movestogo]`), or `movetime` under a limit per move, with
//! `nodes`/`depth` where the settings ask, and gives it the turn's time from there until
//! its `bestmove`, keeping its last `info` line with a score (depth, score, nodes, nps,
//! pv) as the move's analysis. An engine that runs out of time is told `stop`, and kept
//! if it then answers. `finish` sends `quit` and kills its group, or, when the caller
//! keeps processes ([`crate::pool`]) and the engine made no fault, pauses it into the
//! pool, in a folder of its own; its next game begins with `ucinewgame` and `isready`.
//!
//! A turn's input in the record is the commands written for it; the first turn's begins
//! with what was written before (`uci`, the options, `ucinewgame`, `isready`). The
//! engine's `info string` lines and lines the protocol does not know are kept in its
//! turn's log after its stderr, each with `stdout: ` before it, within the per-move cap.

use std::path::Path;
use std::time::{Duration, Instant};

use protocols::uci::{Answer, Command, Go, Score};
use rules::{Outcome, Registered, Side, chess};

use super::arbiter::{QUIT_GRACE, STARTUP_TIME, gone};
use super::gomocup::ProtocolLog;
use super::kept::{self, Kept};
use super::{Driver, Identity, command, give_up, quote};
use crate::pool::{Pool, Resident};
use crate::{Analysis, BoxFuture, Fault, FaultKind, ProgramBot, RefereeError, Reply, SeatContext, StartError, TurnClock, TurnRequest};

/// The longest line read from an engine (a long principal variation fits).
const LINE_CAP: usize = 64 * 1024;

/// A UCI engine playing chess.
pub struct Bot {
    /// Its process, and where it goes at the game's end.
    kept: Kept,
    side: Side,
    settings: crate::manifest::UciSettings,
    /// The group's CPU time already reported in replies (the start counts with the
    /// first move).
    cpu_reported: Duration,
    log: ProtocolLog,
    /// What was written before its first turn of this game.
    opening: String,
    written: String,
    /// The analysis of its last move, until the referee takes it.
    analysis: Option<Analysis>,
}

impl Driver<chess::Position> for Bot {
    fn turn<'a>(&'a mut self, req: &'a TurnRequest<'a, chess::Position>) -> BoxFuture<'a, Result<Reply<ChessMove>, RefereeError>> {
        Box::pin(async move { Ok(self.play_turn(req).await) })
    }

    fn finish<'a>(&'a mut self, _outcome: &'a Outcome) -> BoxFuture<'a, ()> {
        // Kept: paused since its last move, until its next game's ucinewgame.
        Box::pin(async move { self.kept.finish(b"", Command::Quit.format().as_bytes()).await })
    }

    fn analysis(&mut self) -> Option<Analysis> {
        self.analysis.take()
    }
}

/// A move of chess.
type ChessMove = <chess::Position as rules::Game>::Move;

/// The key of a kept engine: the pool's, and its options (an engine set up otherwise is
/// another engine).
fn key(bot: &ProgramBot, ctx: &SeatContext) -> String {
    format!("{}|uci {:?}", Pool::key(bot, &ctx.limits), bot.manifest.uci.options)
}

impl Bot {
    /// An engine for this game: a kept process told a new game, when the caller keeps
    /// them and one waits, else a fresh one (in a folder of its own when processes are
    /// kept).
    pub async fn open(bot: &ProgramBot, ctx: &SeatContext) -> Result<Bot, StartError> {
        kept::open(
            bot,
            ctx,
            key(bot, ctx),
            |engine: &mut Bot| &mut engine.kept,
            |resident, pool| Box::pin(async move { Bot::restart(resident, bot, ctx, &pool).await }),
            |workdir| Box::pin(async move { Bot::start(bot, ctx, &workdir).await }),
        )
        .await
    }

    fn new(kept: Kept, ctx: &SeatContext, bot: &ProgramBot, log: ProtocolLog, opening: String) -> Bot {
        Bot {
            cpu_reported: Duration::ZERO,
            kept,
            side: ctx.side,
            settings: bot.manifest.uci.clone(),
            log,
            opening,
            written: String::new(),
            analysis: None,
        }
    }

    /// Starts a fresh engine in `workdir`: `uci` .. `uciok`, its options, `ucinewgame`,
    /// `isready` .. `readyok`.
    async fn start(bot: &ProgramBot, ctx: &SeatContext, workdir: &Path) -> Result<Bot, StartError> {
        let mut cmd = command(bot, workdir, &ctx.limits, &[]);
        cmd.limits.line_cap = LINE_CAP;
        let mut process = super::spawn(&cmd).await?;
        let mut log = ProtocolLog::new(ctx.limits.stderr_per_move);
        let mut opening = Command::Uci.format();
        let setup: String = bot
            .manifest
            .uci
            .options
            .iter()
            .map(|(name, value)| Command::SetOption { name: name.clone(), value: (!value.is_empty()).then(|| value.clone()) }.format())
            .chain([Command::UciNewGame.format(), Command::IsReady.format()])
            .collect();
        let started = async {
            handshake(&mut process, &mut log, &Command::Uci.format(), Awaited::UciOk).await?;
            handshake(&mut process, &mut log, &setup, Awaited::ReadyOk).await
        }
        .await;
        if let Err(fault) = started {
            let mut stderr = give_up(&mut process).await;
            log.append_to(&mut stderr);
            return Err(StartError::Bot { fault, stderr });
        }
        opening.push_str(&setup);
        process.pause().await;
        Ok(Bot::new(Kept::fresh(process), ctx, bot, log, opening))
    }

    /// Plays this game with a kept process: `ucinewgame` and `isready`, answered
    /// `readyok` within [`STARTUP_TIME`], then paused until its first turn. One that
    /// cannot is handed back to be retired.
    async fn restart(mut resident: Resident, bot: &ProgramBot, ctx: &SeatContext, pool: &std::sync::Arc<Pool>) -> Result<Bot, Resident> {
        if resident.process.try_exit().is_some() {
            return Err(resident);
        }
        let mut log = ProtocolLog::new(ctx.limits.stderr_per_move);
        let text = Command::UciNewGame.format() + &Command::IsReady.format();
        // A kept process that ran while it waited is not given another game.
        if resident.process.resume().is_err() {
            return Err(resident);
        }
        if handshake(&mut resident.process, &mut log, &text, Awaited::ReadyOk).await.is_err() {
            pool.refuse(&resident.key);
            return Err(resident);
        }
        resident.process.pause().await;
        let mut engine = Bot::new(Kept::from_pool(resident, pool), ctx, bot, log, text);
        engine.cpu_reported = engine.process().cpu_time();
        Ok(engine)
    }

    fn process(&mut self) -> &mut jail::Process {
        self.kept.process()
    }

    async fn play_turn(&mut self, req: &TurnRequest<'_, chess::Position>) -> Reply<ChessMove> {
        // Read before the clock starts: the referee's own reading is not the bot's time.
        let wait_before = req.clock.wait_before(self.process());
        let resumed = self.process().resume();
        let began = Instant::now();
        let deadline = req.clock.deadline_crediting(began, self.cpu_reported, wait_before);
        let answer = match resumed {
            Ok(()) => self.ask(req, deadline).await,
            Err(ran) => Err(super::ran_while_paused(ran)),
        };
        let process = self.kept.process();
        let (elapsed, waited) = TurnClock::charged(process, began, &deadline);
        // Late: told to stop, and kept for another game if it then answers.
        let late = matches!(&answer, Err(fault) if fault.kind == FaultKind::Timeout);
        let recovered = late && stop(process, &mut self.log).await;
        self.kept.faulted |= answer.is_err() && !recovered;
        let process = self.process();
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

    /// The `go` command of this turn.
    fn go(&self, clock: &TurnClock) -> Go {
        let ms = |d: Duration| d.as_millis() as u64;
        let mut go = Go { nodes: self.settings.nodes, depth: self.settings.depth, ..Go::default() };
        match (clock.game_time_left, clock.move_time) {
            (Some(left), _) => {
                let own = (Some(ms(left)), clock.increment.map(ms));
                let other = clock.opponent.map_or((None, None), |o| (Some(ms(o.left)), o.increment.map(ms)));
                let (white, black) = if self.side == Side::First { (own, other) } else { (other, own) };
                (go.wtime, go.winc, go.btime, go.binc) = (white.0, white.1, black.0, black.1);
                go.movestogo = clock.moves_to_go;
            }
            (None, Some(per_move)) => go.movetime = Some(ms(per_move)),
            (None, None) => {}
        }
        go
    }

    async fn ask(&mut self, req: &TurnRequest<'_, chess::Position>, deadline: jail::Deadline) -> Result<ChessMove, Fault> {
        let go = self.go(&req.clock);
        let text = Command::Position(req.pos.uci_position()).format() + &Command::Go(go).format();
        self.written = text.clone();
        let process = self.kept.process();
        if let Err(failure) = process.send(text.as_bytes(), deadline).await {
            return Err(gone(process, failure, &req.clock).await);
        }
        let mut analysis: Option<Analysis> = None;
        loop {
            let line = match process.read_line(deadline).await {
                Ok(line) => line,
                Err(failure) => return Err(gone(process, failure, &req.clock).await),
            };
            match Answer::parse(&line) {
                Answer::Info(info) => {
                    if let Some(text) = &info.string {
                        self.log.push(&format!("info string {text}"));
                    }
                    // The main line's scored info; a bound is the search's guess so far.
                    if info.score.is_some() && info.multipv.is_none_or(|pv| pv == 1) {
                        let (cp, mate) = match info.score {
                            Some(Score::Cp(cp)) => (Some(cp), None),
                            Some(Score::Mate(m)) => (None, Some(m)),
                            None => (None, None),
                        };
                        let kept = analysis.get_or_insert_with(Analysis::default);
                        *kept = Analysis {
                            depth: info.depth.or(kept.depth),
                            seldepth: info.seldepth.or(kept.seldepth),
                            cp,
                            mate,
                            nodes: info.nodes.or(kept.nodes),
                            nps: info.nps.or(kept.nps),
                            time_ms: info.time.or(kept.time_ms),
                            pv: if info.pv.is_empty() { std::mem::take(&mut kept.pv) } else { info.pv },
                        };
                    } else if let Some(kept) = analysis.as_mut() {
                        kept.nodes = info.nodes.or(kept.nodes);
                        kept.nps = info.nps.or(kept.nps);
                        kept.time_ms = info.time.or(kept.time_ms);
                    }
                }
                Answer::BestMove { mv, .. } => {
                    self.analysis = analysis;
                    return crate::read_move(req.pos, &mv, FaultKind::IllegalMove)
                        .map_err(|fault| Fault::new(fault.kind, format!("bestmove {}: {}", quote(mv.as_bytes()), fault.detail)));
                }
                Answer::Empty | Answer::Id { .. } | Answer::Option(_) | Answer::UciOk | Answer::ReadyOk => {}
                Answer::Unknown(text) => self.log.push(&text),
            }
        }
    }
}

/// What a handshake waits for.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Awaited {
    UciOk,
    ReadyOk,
}

impl Awaited {
    fn name(self) -> &'static str {
        match self {
            Awaited::UciOk => "uciok",
            Awaited::ReadyOk => "readyok",
        }
    }
}

/// Sends `text` and waits for `awaited` within [`STARTUP_TIME`], keeping unknown lines
/// for the log.
async fn handshake(process: &mut jail::Process, log: &mut ProtocolLog, text: &str, awaited: Awaited) -> Result<(), Fault> {
    let deadline = jail::Deadline::wall_in(STARTUP_TIME);
    let clock = TurnClock { move_time: Some(STARTUP_TIME), ..TurnClock::default() };
    let sent = text.lines().last().unwrap_or_default().to_string();
    if let Err(failure) = process.send(text.as_bytes(), deadline).await {
        return Err(gone(process, failure, &clock).await);
    }
    loop {
        let line = match process.read_line(deadline).await {
            Ok(line) => line,
            Err(jail::Failure::Timeout(_)) => {
                let detail = format!("no {} to {sent} within {} s", awaited.name(), STARTUP_TIME.as_secs());
                return Err(Fault::new(FaultKind::Timeout, detail));
            }
            Err(failure) => {
                let mut fault = gone(process, failure, &clock).await;
                fault.detail = format!("after {sent}: {}", fault.detail);
                return Err(fault);
            }
        };
        match Answer::parse(&line) {
            Answer::UciOk if awaited == Awaited::UciOk => return Ok(()),
            Answer::ReadyOk if awaited == Awaited::ReadyOk => return Ok(()),
            Answer::Unknown(text) => log.push(&text),
            Answer::Info(info) => {
                if let Some(text) = info.string {
                    log.push(&format!("info string {text}"));
                }
            }
            Answer::BestMove { .. } => {
                let detail = format!("answered {} to {sent}, expected {}", quote(line.as_bytes()), awaited.name());
                return Err(Fault::new(FaultKind::ProtocolError, detail));
            }
            _ => {}
        }
    }
}

/// Tells a late engine to stop and waits a moment for its `bestmove`: whether it came
/// (the engine still answers, and may play another game).
async fn stop(process: &mut jail::Process, log: &mut ProtocolLog) -> bool {
    let deadline = jail::Deadline::wall_in(QUIT_GRACE * 5);
    if process.send(Command::Stop.format().as_bytes(), deadline).await.is_err() {
        return false;
    }
    loop {
        match process.read_line(deadline).await {
            Ok(line) => match Answer::parse(&line) {
                Answer::BestMove { .. } => return true,
                Answer::Unknown(text) => log.push(&text),
                _ => {}
            },
            Err(_) => return false,
        }
    }
}

/// Asks an engine about itself: `uci`, its `id name` and `id author`, then `quit`.
pub async fn describe(bot: &ProgramBot, workdir: &Path, sandboxed: bool) -> Result<Option<Identity>, StartError> {
    let limits = crate::Limits { sandboxed, ..crate::Limits::for_kind(chess::Position::KIND) };
    let mut cmd = command(bot, workdir, &limits, &[]);
    cmd.limits.memory = None;
    cmd.limits.line_cap = LINE_CAP;
    let mut process = super::spawn(&cmd).await?;
    let deadline = jail::Deadline::wall_in(STARTUP_TIME);
    let clock = TurnClock { move_time: Some(STARTUP_TIME), ..TurnClock::default() };
    let (mut name, mut author, mut details) = (None, None, Vec::new());
    let asked = async {
        if let Err(failure) = process.send(Command::Uci.format().as_bytes(), deadline).await {
            return Err(gone(&mut process, failure, &clock).await);
        }
        loop {
            let line = match process.read_line(deadline).await {
                Ok(line) => line,
                Err(failure) => return Err(gone(&mut process, failure, &clock).await),
            };
            match Answer::parse(&line) {
                Answer::Id { key, value } if key == "name" => name = Some(value),
                Answer::Id { key, value } if key == "author" => author = Some(value),
                Answer::Id { key, value } => details.push((key, value)),
                Answer::UciOk => return Ok(()),
                _ => {}
            }
        }
    }
    .await;
    if let Err(fault) = asked {
        return Err(StartError::Bot { fault, stderr: give_up(&mut process).await });
    }
    let end = jail::Deadline::wall_in(QUIT_GRACE);
    if process.send(Command::Quit.format().as_bytes(), end).await.is_ok() {
        let _ = process.wait(end).await;
    }
    process.kill().await;
    let Some(name) = name.filter(|name| !name.trim().is_empty()) else {
        return Err(Fault::new(FaultKind::ProtocolError, "said uciok without an id name line before it").into());
    };
    Ok(Some(Identity { name, author, details }))
}
