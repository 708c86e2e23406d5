//! The project's own interface (`arbiter`, `docs/protocols/arbiter.md`): one process per
//! game for any game, one line per message, or one process for game after game when the
//! bot says `reuse` and the caller keeps processes ([`crate::pool`]). A process is started
//! and greeted in `open` (handshake under [`STARTUP_TIME`]) or taken from the pool, told
//! the game, then paused; each turn resumes it, sends the position and `go`, and gives it
//! the move time from the moment those lines are written until its `move` line is read;
//! `finish` sends the result, then either pauses it back into the pool (no fault in this
//! game) or sends `quit` and kills its group.

use std::marker::PhantomData;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use protocols::arbiter::{self as proto, FromBot, Opponent, ToBot, Verdict};
use rules::{Outcome, Registered, Side};

use super::kept::Kept;
use super::{Driver, Identity, command, exit_fault, failure_fault, give_up, quote};
use crate::pool::{Pool, Resident};
use crate::{
    BoxFuture, Fault, FaultKind, LastMove, ProgramBot, RefereeError, Reply, SeatContext, StartError, TurnClock, TurnRequest, read_move,
};

/// How long a bot has from its start to the end of its handshake (`ready`).
pub const STARTUP_TIME: Duration = Duration::from_secs(10);

/// How long a bot may take to exit after `quit` before its group is killed.
pub const QUIT_GRACE: Duration = Duration::from_millis(200);

/// How long a bot whose output closed is waited for, to report how it exited.
const EXIT_WAIT: Duration = Duration::from_millis(200);

/// A bot of the project's protocol playing game `G`.
pub struct Bot<G> {
    /// Its process, and where it goes at the game's end (kept when processes may be
    /// and the bot said `reuse`).
    kept: Kept,
    side: Side,
    /// The group's CPU time already reported in replies (the start-up counts with the
    /// first move; a process from the pool starts from what it had used before).
    cpu_reported: Duration,
    game: PhantomData<fn() -> G>,
}

impl<G: Registered> Driver<G> for Bot<G> {
    fn turn<'a>(&'a mut self, req: &'a TurnRequest<'a, G>) -> BoxFuture<'a, Result<Reply<G::Move>, RefereeError>> {
        Box::pin(async move { Ok(self.play_turn(req).await) })
    }

    fn finish<'a>(&'a mut self, outcome: &'a Outcome) -> BoxFuture<'a, ()> {
        Box::pin(self.end(outcome))
    }
}

impl<G: Registered> Bot<G> {
    pub async fn open(bot: &ProgramBot, ctx: &SeatContext) -> Result<Bot<G>, StartError> {
        let Some(pool) = &ctx.pool else {
            super::build(bot, ctx.limits.sandboxed).await?;
            return Ok(Bot::start(bot, ctx, &ctx.workdir).await?.0);
        };
        let key = Pool::key(bot, &ctx.limits);
        while let Some(resident) = pool.take(&key) {
            match Bot::continue_with(resident, ctx, pool).await {
                Ok(bot) => return Ok(bot),
                // It died while it waited: a fresh one plays.
                Err(resident) => resident.retire().await,
            }
        }
        super::build(bot, ctx.limits.sandboxed).await?;
        let (own, workdir) = super::own_folder(bot).await?;
        match Bot::start(bot, ctx, &workdir).await {
            Ok((mut started, reuse)) => {
                started.kept.set_home(own, reuse.then(|| (Arc::clone(pool), key)));
                Ok(started)
            }
            Err(err) => {
                own.remove_async().await;
                Err(err)
            }
        }
    }

    /// Starts a fresh process in `workdir`: the handshake, then the game's lines; and
    /// whether the bot said it can play another game in it (`reuse`).
    async fn start(bot: &ProgramBot, ctx: &SeatContext, workdir: &Path) -> Result<(Bot<G>, bool), StartError> {
        let mut cmd = command(bot, workdir, &ctx.limits, &[]);
        cmd.env.push((crate::SEED_VAR.into(), ctx.bot_seed().to_string().into()));
        let mut process = super::spawn(&cmd).await?;
        let told = async {
            let said = handshake(&mut process).await?;
            let deadline = jail::Deadline::wall_in(STARTUP_TIME);
            match process.send(&to_text(&game_lines(ctx)), deadline).await {
                Ok(()) => Ok(said),
                Err(failure) => Err(gone(&mut process, failure, &TurnClock::default()).await),
            }
        }
        .await;
        let said = match told {
            Ok(said) => said,
            Err(fault) => return Err(StartError::Bot { fault, stderr: give_up(&mut process).await }),
        };
        process.pause().await;
        Ok((Bot { kept: Kept::fresh(process), side: ctx.side, cpu_reported: Duration::ZERO, game: PhantomData }, said.reuse))
    }

    /// Plays this game with a process from the pool: the game's lines, then paused
    /// until its first turn. A process that cannot take them is handed back to be
    /// retired.
    async fn continue_with(mut resident: Resident, ctx: &SeatContext, pool: &Arc<Pool>) -> Result<Bot<G>, Resident> {
        if resident.process.try_exit().is_some() {
            return Err(resident);
        }
        // A kept process that ran while it waited is not given another game.
        if resident.process.resume().is_err() {
            return Err(resident);
        }
        let deadline = jail::Deadline::wall_in(STARTUP_TIME);
        if resident.process.send(&to_text(&game_lines(ctx)), deadline).await.is_err() {
            return Err(resident);
        }
        resident.process.pause().await;
        let cpu_reported = resident.process.cpu_time();
        Ok(Bot { kept: Kept::from_pool(resident, pool), cpu_reported, side: ctx.side, game: PhantomData })
    }

    async fn play_turn(&mut self, req: &TurnRequest<'_, G>) -> Reply<G::Move> {
        let cpu_before = self.cpu_reported;
        let process = self.kept.process();
        let (answer, elapsed, waited, input) = match process.resume() {
            Ok(()) => {
                let (answer, elapsed, waited, input) = ask(process, req, cpu_before).await;
                // Its settling before the pause is its own time.
                (answer, elapsed + process.pause().await, waited, input)
            }
            Err(ran) => (Err(super::ran_while_paused(ran)), Duration::ZERO, jail::Waits::default(), String::new()),
        };
        let cpu_now = process.cpu_time();
        let stderr = process.take_stderr().await;
        let cpu = cpu_now.saturating_sub(self.cpu_reported);
        self.cpu_reported = cpu_now;
        self.kept.faulted |= answer.is_err();
        Reply { answer, elapsed, cpu, waited, stderr, input }
    }

    /// Tells the bot the result; kept, it is paused until its next game, else told
    /// `quit` too.
    async fn end(&mut self, outcome: &Outcome) {
        let verdict = Verdict::for_side(outcome.winner, self.side);
        let result = ToBot::Result { verdict, scores: outcome.scores };
        let goodbye = to_text(std::slice::from_ref(&result));
        self.kept.finish(&goodbye, &to_text(&[result, ToBot::Quit])).await;
    }
}

/// The lines of a turn: the opponent's last move, the position, the legal moves (games
/// that list them), the time, `go`.
pub fn turn_lines<G: Registered>(req: &TurnRequest<'_, G>) -> String {
    let mut lines = Vec::with_capacity(5);
    match &req.last_move {
        LastMove::None => {}
        LastMove::Hidden => lines.push(ToBot::Opponent(Opponent::Hidden)),
        LastMove::Move(text) => lines.push(ToBot::Opponent(Opponent::Move(text.clone()))),
    }
    lines.push(ToBot::Position(req.pos.position_line()));
    if G::INFO.enumerable {
        let mut moves = Vec::new();
        req.pos.legal_moves(&mut moves);
        lines.push(ToBot::Legal(moves.iter().map(|mv| req.pos.format_move(mv)).collect()));
    }
    lines.push(ToBot::Time(req.clock.announced().map(|limit| limit.as_millis() as u64)));
    lines.push(ToBot::Go);
    text_of(&lines)
}

/// What a fresh process of the project's protocol is told before its first turn, for a
/// game of `kind` from `start` (its start text, if not the default) on `side`: the
/// handshake's first line and the game's lines.
pub fn session_start(kind: rules::GameKind, options: &rules::Options, start: Option<&str>, side: Side) -> String {
    let start = start.map(|text| proto::encode_start(kind, text));
    text_of(&[
        ToBot::Hello { version: proto::VERSION },
        ToBot::Game { kind, options: proto::all_options(kind, options) },
        ToBot::Side(side),
        ToBot::Start(start),
    ])
}

/// Lines as the bot reads them, one message each.
fn text_of(lines: &[ToBot]) -> String {
    lines.iter().map(|line| format!("{line}\n")).collect()
}

/// Asks for the bot's move. The clock runs from the moment its turn's lines are written
/// (the bot was woken just before) until its answer is read, less the bot's wait for a
/// CPU where the limit gives it back: the answer, that time, the wait given back, and
/// the lines written.
async fn ask<G: Registered>(
    process: &mut jail::Process,
    req: &TurnRequest<'_, G>,
    cpu_before: Duration,
) -> (Result<G::Move, Fault>, Duration, jail::Waits, String) {
    let input = turn_lines(req);
    // Read before the clock starts: the referee's own reading is not the bot's time.
    let wait_before = req.clock.wait_before(process);
    // The clock starts before the lines are written: the bot may read them, and work,
    // before the write returns to the referee (on a lane they share a CPU, and the bot
    // may run first). Writing has the turn's own limit; a bot that does not read is out
    // of time.
    let began = Instant::now();
    let written = process.send(input.as_bytes(), req.clock.deadline_from(began, cpu_before)).await;
    if let Err(failure) = written {
        return (Err(gone(process, failure, &req.clock).await), began.elapsed(), jail::Waits::default(), input);
    }
    let deadline = req.clock.deadline_crediting(began, cpu_before, wait_before);
    let line = match process.read_line(deadline).await {
        Ok(line) => line,
        Err(failure) => {
            let (elapsed, waited) = TurnClock::charged(process, began, &deadline);
            return (Err(gone(process, failure, &req.clock).await), elapsed, waited, input);
        }
    };
    let (elapsed, waited) = TurnClock::charged(process, began, &deadline);
    let answer = match FromBot::parse(&line) {
        // Read here; checked by the rules when the referee plays it.
        FromBot::Move(text) => read_move(req.pos, &text, FaultKind::ProtocolError),
        _ => Err(Fault::new(FaultKind::ProtocolError, format!("expected \"move <move>\" after go, got {}", quote(line.as_bytes())))),
    };
    (answer, elapsed, waited, input)
}

/// The lines that tell a bot its game: `game`, `side`, `start`.
fn game_lines(ctx: &SeatContext) -> [ToBot; 4] {
    let start = ctx.start.start_text().map(|text| proto::encode_start(ctx.kind, &text));
    [
        ToBot::Game { kind: ctx.kind, options: proto::all_options(ctx.kind, &ctx.options) },
        ToBot::Side(ctx.side),
        ToBot::Seed(ctx.bot_seed()),
        ToBot::Start(start),
    ]
}

/// Asks a bot for its name and author: the handshake, then `quit`.
pub async fn describe(bot: &ProgramBot, workdir: &Path, sandboxed: bool) -> Result<Option<Identity>, StartError> {
    let limits = crate::Limits { sandboxed, ..bot.game.map_or(crate::Limits::NONE, crate::Limits::for_kind) };
    let mut cmd = command(bot, workdir, &limits, &[]);
    cmd.limits.memory = None;
    let mut process = super::spawn(&cmd).await?;
    let identity = match handshake(&mut process).await {
        Ok(said) => said.identity,
        Err(fault) => return Err(StartError::Bot { fault, stderr: give_up(&mut process).await }),
    };
    let deadline = jail::Deadline::wall_in(QUIT_GRACE);
    if process.send(&to_text(&[ToBot::Quit]), deadline).await.is_ok() {
        let _ = process.wait(deadline).await;
    }
    process.kill().await;
    Ok(identity)
}

/// What a bot says of itself in its handshake.
struct Said {
    /// The name (and author) it gave, if any.
    identity: Option<Identity>,
    /// Whether it can play game after game in one process.
    reuse: bool,
}

/// Runs the handshake with a bot just started: `arbiter 1`, then `name`, `author`,
/// `reuse` (each optional, in any order) and `ready` from the bot. On a fault the caller
/// gives the bot up (and keeps its stderr).
async fn handshake(process: &mut jail::Process) -> Result<Said, Fault> {
    let deadline = jail::Deadline::wall_in(STARTUP_TIME);
    let startup = TurnClock { move_time: Some(STARTUP_TIME), ..TurnClock::default() };
    if let Err(failure) = process.send(&to_text(&[ToBot::Hello { version: proto::VERSION }]), deadline).await {
        return Err(gone(process, failure, &startup).await);
    }
    let (mut name, mut author, mut reuse) = (None, None, false);
    loop {
        let line = match process.read_line(deadline).await {
            Ok(line) => line,
            Err(jail::Failure::Timeout(_)) => {
                let detail = format!("no \"ready\" within {} s of the start", STARTUP_TIME.as_secs());
                return Err(Fault::new(FaultKind::Timeout, detail));
            }
            Err(failure) => {
                let mut fault = gone(process, failure, &startup).await;
                fault.detail = format!("during the handshake: {}", fault.detail);
                return Err(fault);
            }
        };
        match FromBot::parse(&line) {
            FromBot::Name(text) => name = Some(text),
            FromBot::Author(text) => author = Some(text),
            FromBot::Reuse => reuse = true,
            FromBot::Ready => break,
            _ => {
                let detail =
                    format!("expected \"name\", \"author\", \"reuse\" or \"ready\" after \"arbiter 1\", got {}", quote(line.as_bytes()));
                return Err(Fault::new(FaultKind::ProtocolError, detail));
            }
        }
    }
    Ok(Said { identity: name.map(|name| Identity { name, author, details: Vec::new() }), reuse })
}

/// The fault of a failed read or write; when the bot's output closed or a pipe broke,
/// how it exited (waiting briefly for it) says whether it crashed.
pub(super) async fn gone(process: &mut jail::Process, failure: jail::Failure, clock: &TurnClock) -> Fault {
    if !failure.ended() {
        return failure_fault(failure, clock);
    }
    let status = process.wait(jail::Deadline::wall_in(EXIT_WAIT)).await;
    let detail = match status.ok().and_then(exit_fault) {
        Some(fault) => format!("{} before answering", fault.detail),
        None if process.try_exit().is_some() => "exited before answering".to_string(),
        None => failure_fault(failure, clock).detail,
    };
    super::with_memory_cause(process, Fault::new(FaultKind::Crash, detail))
}

fn to_text(lines: &[ToBot]) -> Vec<u8> {
    text_of(lines).into_bytes()
}
