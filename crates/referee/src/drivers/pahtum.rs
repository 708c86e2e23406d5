//! The Pah-tum interface (seed 003): one process per move; the board, 56 characters, on
//! stdin; the same board with one `-` turned into the bot's letter on stdout. 1 s and
//! 128 MB per move by default. The interface has no self-description.

use std::path::Path;

use rules::{AnyPosition, MoveError, Outcome, pahtum};

use super::{Identity, command, quote, run_once};
use crate::{Fault, FaultKind, ProgramBot, RefereeError, Reply, SeatContext, StartError, TurnRequest};

pub struct Bot {
    command: jail::Command,
}

impl Bot {
    pub async fn open(bot: &ProgramBot, ctx: &SeatContext) -> Result<Bot, Fault> {
        Ok(Bot { command: command(bot, &ctx.workdir, &ctx.limits, &[]) })
    }

    pub async fn turn(&mut self, req: &TurnRequest<'_>) -> Result<Reply, RefereeError> {
        let AnyPosition::Pahtum(pos) = req.pos else {
            unreachable!("a pahtum bot plays pahtum (checked with the manifest)");
        };
        let once = run_once(&self.command, pahtum::format_board(pos).as_bytes(), &req.clock).await?;
        let answer = match &once.output {
            Err(fault) => Err(fault.clone()),
            Ok(output) => read_answer(pos, output),
        };
        Ok(once.reply(answer))
    }

    pub async fn finish(&mut self, _outcome: &Outcome) {}
}

/// The move a bot's output makes: malformed text is a protocol error, a board that is
/// not one legal move away from the input is an illegal move.
fn read_answer(pos: &pahtum::Position, output: &[u8]) -> Result<String, Fault> {
    let Ok(text) = std::str::from_utf8(output) else {
        return Err(Fault::new(FaultKind::ProtocolError, format!("the answer is not text: {}", quote(output))));
    };
    match pahtum::move_from_answer(pos, text) {
        Ok(mv) => Ok(rules::Game::format_move(pos, &mv)),
        Err(MoveError::Parse { reason, .. }) => {
            Err(Fault::new(FaultKind::ProtocolError, format!("the answer {} is not a board: {reason}", quote(output))))
        }
        Err(err) => Err(Fault::new(FaultKind::IllegalMove, err.to_string())),
    }
}

pub async fn describe(_bot: &ProgramBot, _workdir: &Path, _sandboxed: bool) -> Result<Option<Identity>, StartError> {
    Ok(None)
}
