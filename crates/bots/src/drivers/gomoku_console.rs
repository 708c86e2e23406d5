//! The Gomoku console interface (seed 000, `docs/bots.md`): one process per game that
//! drives a dialogue over stdin/stdout (messages in `protocols::gomoku_console`): it asks
//! `field?`, `figure?` and `step?` and moves with `step! B7`. `PROGRAM INFO` prints the
//! name and the author on two lines and exits.
//!
//! Decisions where the seed is silent:
//! - The process starts at the bot's first turn (so its first move is timed from its
//!   start, as the seed says, whichever side it plays) and is stopped (SIGSTOP) from its
//!   `step!` until its next turn; `finish` kills it.
//! - The bot may ask any question in any order, any number of times, and need not ask at
//!   all before `step!`. `step?` is answered with the opponent's last move, or `--` while
//!   the opponent has not moved in this game.
//! - The clock of a turn starts when the turn is given (the process resumed, or started)
//!   and starts again at the answer to the turn's first `step?` that tells an opponent's
//!   move, so a bot is timed from the answer to `step?` as the seed says, and a bot that
//!   never asks still has a deadline. The reply's time is measured from the later start.
//! - Lines longer than 1 KiB, and any line that is none of the four messages, are
//!   protocol errors; so is `step!` followed by something that is not a letter and
//!   digits. A letter and digits that is no empty cell (`K3`, an occupied cell) is an
//!   illegal move. Whatever the bot prints after its last move is ignored.
//! - Exiting (or closing stdout) before `step!` is a crash.

use std::path::Path;
use std::time::{Duration, Instant};

use protocols::gomoku_console::{Request, field_answer, figure_answer, is_move_shaped, step_answer};
use rules::{Outcome, Registered, Side, gomoku};

use super::{DESCRIBE_TIME, Driver, Identity, command, exit_fault, failure_fault, quote, run_once};
use crate::{
    BoxFuture, Fault, FaultKind, LastMove, ProgramBot, RefereeError, Reply, SeatContext, StartError, TurnClock, TurnRequest, read_move,
};

/// The longest line read from the bot.
const LINE_CAP: usize = 1024;

pub struct Bot {
    command: jail::Command,
    side: Side,
    // Boxed: a process is large, and the driver enum holds every interface's bot.
    process: Option<Box<jail::Process>>,
}

impl Bot {
    pub async fn open(bot: &ProgramBot, ctx: &SeatContext) -> Result<Bot, Fault> {
        let mut command = command(bot, &ctx.workdir, &ctx.limits, &[]);
        command.env.push((crate::SEED_VAR.into(), ctx.bot_seed().to_string().into()));
        command.limits.line_cap = LINE_CAP;
        Ok(Bot { command, side: ctx.side, process: None })
    }

    async fn play_turn(&mut self, req: &TurnRequest<'_, gomoku::Position>) -> Result<Reply<gomoku::Move>, RefereeError> {
        let pos = req.pos;
        let mut began = Instant::now();
        let cpu_before = self.process.as_ref().map_or(Duration::ZERO, |process| process.cpu_time());
        let mut deadline = req.clock.deadline_from_now(cpu_before);
        let process = match &mut self.process {
            Some(process) => process,
            None => match super::spawn(&self.command).await {
                Ok(process) => self.process.insert(Box::new(process)),
                Err(StartError::Referee(err)) => return Err(err),
                Err(StartError::Bot { fault, stderr }) => {
                    return Ok(Reply {
                        answer: Err(fault),
                        elapsed: began.elapsed(),
                        cpu: Duration::ZERO,
                        waited: jail::Waits::default(),
                        stderr,
                        input: String::new(),
                    });
                }
            },
        };
        if let Err(ran) = process.resume() {
            process.kill().await;
            let stderr = process.take_stderr().await;
            return Ok(Reply::fault(FaultKind::ProtocolError, super::ran_while_paused(ran).detail, began.elapsed(), stderr));
        }
        let last_move = match &req.last_move {
            LastMove::Move(text) => Some(text.as_str()),
            LastMove::None | LastMove::Hidden => None,
        };
        let mut clock_restarted = false;
        // The referee's answers of this turn, in order: the turn's input.
        let mut written = String::new();
        let answer = loop {
            let line = match process.read_line(deadline).await {
                Ok(line) => line,
                Err(failure) => break Err(fault_of(process, failure, &req.clock).await),
            };
            let request = Request::parse(&line);
            let reply = match &request {
                Request::Field => field_answer(pos),
                Request::Figure => figure_answer(self.side),
                Request::Step => step_answer(last_move),
                // A letter and digits off the board (`K3`) is an illegal move, as an
                // occupied cell is.
                Request::Move(mv) if is_move_shaped(mv) => break read_move(pos, mv, FaultKind::IllegalMove),
                Request::Move(_) => {
                    break Err(protocol_error(format!("sent {}, which is not step! with a move like B7", quote(line.as_bytes()))));
                }
                Request::Unknown(_) => {
                    break Err(protocol_error(format!(
                        "sent {}, which is none of field?, figure?, step? or step! <move>",
                        quote(line.as_bytes())
                    )));
                }
            };
            written.push_str(&reply);
            if let Err(failure) = process.send(reply.as_bytes(), deadline).await {
                break Err(fault_of(process, failure, &req.clock).await);
            }
            if request == Request::Step && last_move.is_some() && !clock_restarted {
                // The seed times a move from the answer to `step?`.
                clock_restarted = true;
                began = Instant::now();
                deadline = req.clock.deadline_from_now(cpu_before);
            }
        };
        let mut elapsed = began.elapsed();
        let cpu = process.cpu_time().saturating_sub(cpu_before);
        if answer.is_ok() {
            // Its settling before the pause is its own time.
            elapsed += process.pause().await;
        } else {
            process.kill().await;
            process.finish_stderr(Duration::from_millis(100)).await;
        }
        let stderr = process.take_stderr().await;
        Ok(Reply { answer, elapsed, cpu, waited: jail::Waits::default(), stderr, input: written })
    }
}

impl Driver<gomoku::Position> for Bot {
    fn turn<'a>(&'a mut self, req: &'a TurnRequest<'a, gomoku::Position>) -> BoxFuture<'a, Result<Reply<gomoku::Move>, RefereeError>> {
        Box::pin(self.play_turn(req))
    }

    fn finish<'a>(&'a mut self, _outcome: &'a Outcome) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            if let Some(process) = &mut self.process {
                process.kill().await;
            }
        })
    }
}

fn protocol_error(detail: String) -> Fault {
    Fault::new(FaultKind::ProtocolError, detail)
}

/// The fault for a failed read or write; a bot that is gone says how it ended.
async fn fault_of(process: &mut jail::Process, failure: jail::Failure, clock: &TurnClock) -> Fault {
    if failure.ended() {
        let ended = process.wait(jail::Deadline::wall_in(Duration::from_millis(100))).await;
        if let Ok(status) = ended {
            let how = exit_fault(status).map_or_else(|| "exited".to_string(), |fault| fault.detail);
            return super::with_memory_cause(process, Fault::new(FaultKind::Crash, format!("{how} before its move")));
        }
    }
    failure_fault(failure, clock)
}

/// Runs `PROGRAM INFO` in `workdir` and reads the two lines it prints.
pub async fn describe(bot: &ProgramBot, workdir: &Path, sandboxed: bool) -> Result<Option<Identity>, StartError> {
    tokio::fs::create_dir_all(workdir).await.map_err(|err| RefereeError::new("cannot prepare the working directory", err))?;
    let mut limits = crate::Limits::for_kind(gomoku::Position::KIND).with(&bot.manifest.limits);
    limits.sandboxed = sandboxed;
    let command = command(bot, workdir, &limits, &["INFO"]);
    let clock = TurnClock { move_time: Some(DESCRIBE_TIME), ..TurnClock::default() };
    let once = run_once(&command, b"", &clock).await?;
    let stderr = once.stderr.clone();
    let output = once.into_output()?;
    let identity = match String::from_utf8(output) {
        Ok(text) => super::gomoku_file::identity(&text),
        Err(_) => Err(Fault::new(FaultKind::ProtocolError, "the INFO answer is not text")),
    };
    identity.map(Some).map_err(|fault| StartError::Bot { fault, stderr })
}
