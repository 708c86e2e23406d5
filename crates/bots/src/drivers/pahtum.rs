//! The Pah-tum interface (seed 003): one process per move; the board, 56 characters, on
//! stdin; the same board with one `-` turned into the bot's letter on stdout. 1 s and
//! 128 MB per move by default. The interface has no self-description.

use std::path::Path;

use rules::{MoveError, Outcome, pahtum};

use super::{Driver, Identity, Launcher, quote};
use crate::{BoxFuture, Fault, FaultKind, ProgramBot, RefereeError, Reply, SeatContext, StartError, TurnRequest};

pub struct Bot {
    launcher: Launcher,
}

impl Bot {
    pub async fn open(bot: &ProgramBot, ctx: &SeatContext) -> Result<Bot, StartError> {
        Ok(Bot { launcher: Launcher::open(bot, ctx, &[]).await? })
    }

    async fn play_turn(&mut self, req: &TurnRequest<'_, pahtum::Position>) -> Result<Reply<pahtum::Move>, RefereeError> {
        let pos = req.pos;
        let once = self.launcher.run_once(pahtum::format_board(pos).as_bytes(), &req.clock).await?;
        let answer = match &once.output {
            Err(fault) => Err(fault.clone()),
            Ok(output) => read_answer(pos, output),
        };
        Ok(once.reply(answer))
    }
}

impl Driver<pahtum::Position> for Bot {
    fn turn<'a>(&'a mut self, req: &'a TurnRequest<'a, pahtum::Position>) -> BoxFuture<'a, Result<Reply<pahtum::Move>, RefereeError>> {
        Box::pin(self.play_turn(req))
    }

    fn finish<'a>(&'a mut self, _outcome: &'a Outcome) -> BoxFuture<'a, ()> {
        Box::pin(self.launcher.finish())
    }
}

/// The move a bot's output makes: malformed text is a protocol error, a board that is
/// not one legal move away from the input is an illegal move.
fn read_answer(pos: &pahtum::Position, output: &[u8]) -> Result<pahtum::Move, Fault> {
    let Ok(text) = std::str::from_utf8(output) else {
        return Err(Fault::new(FaultKind::ProtocolError, format!("the answer is not text: {}", quote(output))));
    };
    match pahtum::move_from_answer(pos, text) {
        Ok(mv) => Ok(mv),
        Err(MoveError::Parse { reason, .. }) => {
            Err(Fault::new(FaultKind::ProtocolError, format!("the answer {} is not a board: {reason}", quote(output))))
        }
        Err(err) => Err(Fault::new(FaultKind::IllegalMove, err.to_string())),
    }
}

pub async fn describe(_bot: &ProgramBot, _workdir: &Path, _sandboxed: bool) -> Result<Option<Identity>, StartError> {
    Ok(None)
}
