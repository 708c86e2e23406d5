//! The Nupud interface (seed 004, the project's stateless version of its procedures):
//! one process per call. Set-up call: `place white` / `place black` on stdin, six digits
//! on stdout (e.g. `143211`). Move call: `move white` / `move black` and the 6 board lines
//! on stdin, one move on stdout (e.g. `c1c3`). Empty stdin asks for the bot's name. Each
//! side has 5 minutes for the whole game: every call's wall time counts, from process
//! start to exit.
//!
//! The set-up stays hidden: a set-up call gets nothing but its own `place` line, so
//! Black's arrangement cannot depend on White's.
//!
//! Faults: an answer that is not one line of the expected shape (not six digits in a
//! set-up call; not two squares, such as `c1c3`, or a set-up in a move call) is a
//! `ProtocolError`; a well-formed answer the rules refuse (six digits that are not a
//! permutation of 432111, a move that is not legal) is an `IllegalMove`; running out of
//! the game's time is a `Timeout`; a non-zero exit or a signal is a `Crash`.

use std::path::Path;

use rules::{Game, MoveError, Outcome, Registered, nupud};

use super::{DESCRIBE_TIME, Driver, Identity, Launcher, command, quote, run_once};
use crate::{BoxFuture, Fault, FaultKind, ProgramBot, RefereeError, Reply, SeatContext, StartError, TurnClock, TurnRequest};

pub struct Bot {
    launcher: Launcher,
}

impl Bot {
    pub async fn open(bot: &ProgramBot, ctx: &SeatContext) -> Result<Bot, StartError> {
        Ok(Bot { launcher: Launcher::open(bot, ctx, &[]).await? })
    }

    async fn play_turn(&mut self, req: &TurnRequest<'_, nupud::Position>) -> Result<Reply<nupud::Move>, RefereeError> {
        let pos = req.pos;
        let Some(side) = pos.to_move() else {
            return Ok(Reply::fault(FaultKind::ProtocolError, "asked for a move after the end", Default::default(), Default::default()));
        };
        let input = if pos.is_setup_phase() { nupud::format_setup_input(side) } else { nupud::format_move_input(pos, side) };
        let once = self.launcher.run_once(input.as_bytes(), &req.clock).await?;
        let answer = match &once.output {
            Err(fault) => Err(fault.clone()),
            Ok(output) if pos.is_setup_phase() => read_setup(output),
            Ok(output) => read_move(pos, output),
        };
        Ok(once.reply(answer))
    }
}

impl Driver<nupud::Position> for Bot {
    fn turn<'a>(&'a mut self, req: &'a TurnRequest<'a, nupud::Position>) -> BoxFuture<'a, Result<Reply<nupud::Move>, RefereeError>> {
        Box::pin(self.play_turn(req))
    }

    fn finish<'a>(&'a mut self, _outcome: &'a Outcome) -> BoxFuture<'a, ()> {
        Box::pin(self.launcher.finish())
    }
}

fn protocol_error(detail: String) -> Fault {
    Fault::new(FaultKind::ProtocolError, detail)
}

/// The set-up a bot's answer to `place ...` gives.
fn read_setup(output: &[u8]) -> Result<nupud::Move, Fault> {
    let Ok(text) = std::str::from_utf8(output) else {
        return Err(protocol_error(format!("the set-up answer is not text: {}", quote(output))));
    };
    match nupud::parse_setup(text) {
        Ok(setup) => Ok(nupud::Move::Setup(setup)),
        Err(err @ nupud::NativeError::SetupValues(_)) => Err(Fault::new(FaultKind::IllegalMove, err.to_string())),
        Err(_) => Err(protocol_error(format!("the set-up answer {} is not one line of six digits", quote(output)))),
    }
}

/// The move a bot's answer to `move ...` gives; its legality is left to the referee,
/// which refuses an illegal one as an illegal move.
fn read_move(pos: &nupud::Position, output: &[u8]) -> Result<nupud::Move, Fault> {
    let Ok(text) = std::str::from_utf8(output) else {
        return Err(protocol_error(format!("the answer is not text: {}", quote(output))));
    };
    let line = text.trim();
    if line.is_empty() {
        return Err(protocol_error("no move in the answer".to_string()));
    }
    if line.contains('\n') {
        return Err(protocol_error(format!("the answer {} has more than one line", quote(output))));
    }
    match pos.parse_move(line) {
        Ok(mv @ nupud::Move::Step { .. }) => Ok(mv),
        // Six digits read as a set-up (legal or not): not what a move call asks for.
        Ok(nupud::Move::Setup(_)) | Err(MoveError::Illegal { .. }) => {
            Err(protocol_error(format!("the answer {} is a set-up, not a move like c1c3", quote(output))))
        }
        Err(MoveError::Parse { reason, .. }) => Err(protocol_error(format!("the answer {} is not a move: {reason}", quote(output)))),
        Err(err) => Err(protocol_error(format!("the answer {} is not a move: {err}", quote(output)))),
    }
}

/// The bot's name: it is run with empty stdin and prints one line of at most 16
/// characters.
pub async fn describe(bot: &ProgramBot, workdir: &Path, sandboxed: bool) -> Result<Option<Identity>, StartError> {
    let mut limits = crate::Limits::for_kind(nupud::Position::KIND).with(&bot.manifest.limits);
    limits.sandboxed = sandboxed;
    let cmd = command(bot, workdir, &limits, &[]);
    let clock = TurnClock { move_time: Some(DESCRIBE_TIME), ..TurnClock::default() };
    let once = run_once(&cmd, b"", &clock).await?;
    let stderr = once.stderr.clone();
    let output = once.into_output()?;
    let text = String::from_utf8_lossy(&output);
    match protocols::names::nupud_name(&text) {
        Ok(name) => Ok(Some(Identity { name, author: None, details: Vec::new() })),
        Err(_) => {
            let fault = protocol_error(format!("the name answer {} is not one line of 1 to 16 characters", quote(&output)));
            Err(StartError::Bot { fault, stderr })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(pos: &nupud::Position, answer: Result<nupud::Move, Fault>) -> Result<String, Fault> {
        answer.map(|mv| pos.format_move(&mv))
    }

    #[test]
    fn answers_are_sorted_into_faults() {
        let setup = nupud::Position::new_game();
        assert_eq!(text(&setup, read_setup(b"143211\n")), Ok("143211".to_string()));
        assert_eq!(read_setup(b"443211\n").unwrap_err().kind, FaultKind::IllegalMove);
        assert_eq!(read_setup(b"c1c3\n").unwrap_err().kind, FaultKind::ProtocolError);
        assert_eq!(read_setup(b"143211\n143211\n").unwrap_err().kind, FaultKind::ProtocolError);

        let play =
            nupud::Position::from_setups(nupud::Setup::new([4, 3, 2, 1, 1, 1]).unwrap(), nupud::Setup::new([1, 1, 1, 2, 3, 4]).unwrap());
        assert_eq!(text(&play, read_move(&play, b"c1c3\n")), Ok("c1c3".to_string()));
        assert_eq!(text(&play, read_move(&play, b" C1-C3 \r\n")), Ok("c1c3".to_string()));
        assert_eq!(read_move(&play, b"hello\n").unwrap_err().kind, FaultKind::ProtocolError);
        assert_eq!(read_move(&play, b"").unwrap_err().kind, FaultKind::ProtocolError);
        assert_eq!(read_move(&play, b"c1c3\nc1c2\n").unwrap_err().kind, FaultKind::ProtocolError);
        assert_eq!(read_move(&play, b"432111\n").unwrap_err().kind, FaultKind::ProtocolError);
        assert_eq!(read_move(&play, b"444444\n").unwrap_err().kind, FaultKind::ProtocolError);
        // Well-formed: the referee judges it (and refuses it as an illegal move).
        let step = read_move(&play, b"c1c6\n").expect("a well-formed step");
        assert_eq!(play.format_move(&step), "c1c6");
        assert!(play.clone().play(&step).is_err());
    }
}
