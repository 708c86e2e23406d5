//! The project's own interface (`arbiter`, `docs/protocols/arbiter.md`): one process per
//! game for any of the five games, one line per message. The process is started and
//! greeted in `open` (handshake under [`STARTUP_TIME`]), told the game, then paused; each
//! turn resumes it, sends the position and `go`, and gives it the move time from there
//! until its `move` line; `finish` sends the result and `quit`, then kills its group.

use std::path::Path;
use std::time::{Duration, Instant};

use protocols::arbiter::{self as proto, FromBot, Opponent, ToBot, Verdict};
use rules::{MoveError, Outcome, Side};

use super::{Identity, command, exit_fault, failure_fault, give_up, quote};
use crate::{Fault, FaultKind, LastMove, ProgramBot, Reply, SeatContext, StartError, TurnClock, TurnRequest};

/// How long a bot has from its start to the end of its handshake (`ready`).
pub const STARTUP_TIME: Duration = Duration::from_secs(10);

/// How long a bot may take to exit after `quit` before its group is killed.
pub const QUIT_GRACE: Duration = Duration::from_millis(200);

/// How long a bot whose output closed is waited for, to report how it exited.
const EXIT_WAIT: Duration = Duration::from_millis(200);

pub struct Bot {
    /// Boxed: a process is large and `Driver` holds every interface's bot by value.
    process: Box<jail::Process>,
    side: Side,
    /// The group's CPU time already reported in replies (the start-up counts with the
    /// first move).
    cpu_reported: Duration,
}

impl Bot {
    pub async fn open(bot: &ProgramBot, ctx: &SeatContext) -> Result<Bot, StartError> {
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
        Ok(Bot { process: Box::new(process), side: ctx.side, cpu_reported: Duration::ZERO })
    }

    pub async fn turn(&mut self, req: &TurnRequest<'_>) -> Reply {
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

    async fn ask(&mut self, req: &TurnRequest<'_>, deadline: jail::Deadline) -> Result<String, Fault> {
        let mut lines = Vec::with_capacity(5);
        match &req.last_move {
            LastMove::None => {}
            LastMove::Hidden => lines.push(ToBot::Opponent(Opponent::Hidden)),
            LastMove::Move(text) => lines.push(ToBot::Opponent(Opponent::Move(text.clone()))),
        }
        lines.push(ToBot::Position(proto::format_position(req.pos)));
        if let Some(moves) = req.pos.legal_moves_text() {
            lines.push(ToBot::Legal(moves));
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
            FromBot::Move(text) => match req.pos.check_text(&text) {
                Ok(canonical) => Ok(canonical),
                Err(err @ MoveError::Parse { .. }) => Err(Fault::new(FaultKind::ProtocolError, err.to_string())),
                Err(err) => Err(Fault::new(FaultKind::IllegalMove, err.to_string())),
            },
            _ => Err(Fault::new(FaultKind::ProtocolError, format!("expected \"move <move>\" after go, got {}", quote(line.as_bytes())))),
        }
    }

    pub async fn finish(&mut self, outcome: &Outcome) {
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
    let limits = crate::Limits { sandboxed, ..crate::Limits::for_kind(bot.game) };
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
    Ok(name.map(|name| Identity { name, author }))
}

/// The fault of a failed read or write; when the bot's output closed or a pipe broke,
/// how it exited (waiting briefly for it) says whether it crashed.
async fn gone(process: &mut jail::Process, failure: jail::Failure, clock: &TurnClock) -> Fault {
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
