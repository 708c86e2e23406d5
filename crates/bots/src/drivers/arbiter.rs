//! The project's own interface (`arbiter`, `docs/protocols/arbiter.md`): one process per
//! game for any game, one line per message. The process is started and
//! greeted in `open` (handshake under [`STARTUP_TIME`]), told the game, then paused; each
//! turn resumes it, sends the position and `go`, and gives it the move time from there
//! until its `move` line; `finish` sends the result and `quit`, then kills its group.

use std::marker::PhantomData;
use std::path::Path;
use std::time::{Duration, Instant};

use protocols::arbiter::{self as proto, FromBot, Opponent, ToBot, Verdict};
use rules::{Outcome, Registered, Side};

use super::{Driver, Identity, command, exit_fault, failure_fault, give_up, quote};
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
    process: Box<jail::Process>,
    side: Side,
    /// The group's CPU time already reported in replies (the start-up counts with the
    /// first move).
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
        let cmd = command(bot, &ctx.workdir, &ctx.limits, &[]);
        let mut process = super::spawn(&cmd)?;
        let start = ctx.start.start_text().map(|text| proto::encode_start(ctx.kind, &text));
        let lines = [
            ToBot::Game { kind: ctx.kind, options: proto::all_options(ctx.kind, &ctx.options) },
            ToBot::Side(ctx.side),
            ToBot::Start(start),
        ];
        let told = async {
            handshake(&mut process).await?;
            let deadline = jail::Deadline::wall_in(STARTUP_TIME);
            match process.send(&to_text(&lines), deadline).await {
                Ok(()) => Ok(()),
                Err(failure) => Err(gone(&mut process, failure, &TurnClock::default()).await),
            }
        }
        .await;
        if let Err(fault) = told {
            return Err(StartError::Bot { fault, stderr: give_up(&mut process).await });
        }
        process.pause();
        Ok(Bot { process: Box::new(process), side: ctx.side, cpu_reported: Duration::ZERO, game: PhantomData })
    }

    async fn play_turn(&mut self, req: &TurnRequest<'_, G>) -> Reply<G::Move> {
        self.process.resume();
        let began = Instant::now();
        let deadline = req.clock.deadline_from_now(self.cpu_reported);
        let answer = self.ask(req, deadline).await;
        let elapsed = began.elapsed();
        self.process.pause();
        let cpu_now = self.process.cpu_time();
        let cpu = cpu_now.saturating_sub(self.cpu_reported);
        self.cpu_reported = cpu_now;
        let stderr = self.process.take_stderr().await;
        Reply { answer, elapsed, cpu, stderr }
    }

    async fn ask(&mut self, req: &TurnRequest<'_, G>, deadline: jail::Deadline) -> Result<G::Move, Fault> {
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
        lines.push(ToBot::Time(req.clock.wall_limit().map(|limit| limit.as_millis() as u64)));
        lines.push(ToBot::Go);
        if let Err(failure) = self.process.send(&to_text(&lines), deadline).await {
            return Err(gone(&mut self.process, failure, &req.clock).await);
        }
        let line = match self.process.read_line(deadline).await {
            Ok(line) => line,
            Err(failure) => return Err(gone(&mut self.process, failure, &req.clock).await),
        };
        match FromBot::parse(&line) {
            // Read here; checked by the rules when the referee plays it.
            FromBot::Move(text) => read_move(req.pos, &text, FaultKind::ProtocolError),
            _ => Err(Fault::new(FaultKind::ProtocolError, format!("expected \"move <move>\" after go, got {}", quote(line.as_bytes())))),
        }
    }

    async fn end(&mut self, outcome: &Outcome) {
        self.process.resume();
        let verdict = Verdict::for_side(outcome.winner, self.side);
        let lines = [ToBot::Result { verdict, scores: outcome.scores }, ToBot::Quit];
        let deadline = jail::Deadline::wall_in(QUIT_GRACE);
        if self.process.send(&to_text(&lines), deadline).await.is_ok() {
            let _ = self.process.wait(deadline).await;
        }
        self.process.kill().await;
    }
}

/// Asks a bot for its name and author: the handshake, then `quit`.
pub async fn describe(bot: &ProgramBot, workdir: &Path, sandboxed: bool) -> Result<Option<Identity>, StartError> {
    let limits = crate::Limits { sandboxed, ..bot.game.map_or(crate::Limits::NONE, crate::Limits::for_kind) };
    let mut cmd = command(bot, workdir, &limits, &[]);
    cmd.limits.memory = None;
    let mut process = super::spawn(&cmd)?;
    let identity = match handshake(&mut process).await {
        Ok(identity) => identity,
        Err(fault) => return Err(StartError::Bot { fault, stderr: give_up(&mut process).await }),
    };
    let deadline = jail::Deadline::wall_in(QUIT_GRACE);
    if process.send(&to_text(&[ToBot::Quit]), deadline).await.is_ok() {
        let _ = process.wait(deadline).await;
    }
    process.kill().await;
    Ok(identity)
}

/// Runs the handshake with a bot just started: `arbiter 1`, then `name`, `author` (each
/// optional, in any order) and `ready` from the bot. The name the bot gave, if any. On a
/// fault the caller gives the bot up (and keeps its stderr).
async fn handshake(process: &mut jail::Process) -> Result<Option<Identity>, Fault> {
    let deadline = jail::Deadline::wall_in(STARTUP_TIME);
    let startup = TurnClock { move_time: Some(STARTUP_TIME), ..TurnClock::default() };
    if let Err(failure) = process.send(&to_text(&[ToBot::Hello { version: proto::VERSION }]), deadline).await {
        return Err(gone(process, failure, &startup).await);
    }
    let (mut name, mut author) = (None, None);
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
            FromBot::Ready => break,
            _ => {
                let detail = format!("expected \"name\", \"author\" or \"ready\" after \"arbiter 1\", got {}", quote(line.as_bytes()));
                return Err(Fault::new(FaultKind::ProtocolError, detail));
            }
        }
    }
    Ok(name.map(|name| Identity { name, author, details: Vec::new() }))
}

/// The fault of a failed read or write; when the bot's output closed or a pipe broke,
/// how it exited (waiting briefly for it) says whether it crashed.
pub(super) async fn gone(process: &mut jail::Process, failure: jail::Failure, clock: &TurnClock) -> Fault {
    if !matches!(failure, jail::Failure::Eof | jail::Failure::Io(_)) {
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
    let mut text = String::new();
    for line in lines {
        text.push_str(&line.to_string());
        text.push('\n');
    }
    text.into_bytes()
}
