//! The interfaces with a process per move (Legions, Pah-tum, Nupud): one driver over
//! their codecs (`protocols::per_move`). Each turn runs the bot's command once
//! ([`Launcher::run_once`]: in the sandbox through a zygote kept for the game), with the
//! codec's request on stdin, and reads the move from what it printed: the time counts
//! from the process's start to its exit; a timeout, a crash or the memory cap is the
//! launcher's fault, a refused answer the codec's (a protocol error or an illegal move).
//! A codec with a name answer ([`protocols::per_move::Named`]) describes its bot by
//! running it once with empty stdin.

use std::marker::PhantomData;
use std::path::Path;

use protocols::per_move::{Blame, Named, PerMove, Refusal};
use rules::{Outcome, Registered};

use super::{DESCRIBE_TIME, Driver, Identity, Launcher, command, run_once};
use crate::{BoxFuture, Fault, FaultKind, ProgramBot, RefereeError, Reply, SeatContext, StartError, TurnClock, TurnRequest};

/// A bot of the per-move interface `C`.
pub struct Bot<C> {
    launcher: Launcher,
    codec: PhantomData<fn() -> C>,
}

type Move<C> = <<C as PerMove>::Game as rules::Game>::Move;

impl<C: PerMove> Bot<C> {
    pub async fn open(bot: &ProgramBot, ctx: &SeatContext) -> Result<Bot<C>, StartError> {
        Ok(Bot { launcher: Launcher::open(bot, ctx, &[]).await?, codec: PhantomData })
    }

    async fn play_turn(&mut self, req: &TurnRequest<'_, C::Game>) -> Result<Reply<Move<C>>, RefereeError> {
        let input = match C::request(req.pos) {
            Ok(input) => input,
            Err(refused) => {
                let fault = fault(&refused);
                return Ok(Reply::fault(fault.kind, fault.detail, Default::default(), Default::default()));
            }
        };
        let once = self.launcher.run_once(input.as_bytes(), &req.clock).await?;
        let answer = match &once.output {
            Err(fault) => Err(fault.clone()),
            Ok(output) => C::answer(req.pos, output).map_err(|refused| fault(&refused)),
        };
        Ok(once.reply(answer))
    }
}

impl<C: PerMove> Driver<C::Game> for Bot<C> {
    fn turn<'a>(&'a mut self, req: &'a TurnRequest<'a, C::Game>) -> BoxFuture<'a, Result<Reply<Move<C>>, RefereeError>> {
        Box::pin(self.play_turn(req))
    }

    fn finish<'a>(&'a mut self, _outcome: &'a Outcome) -> BoxFuture<'a, ()> {
        Box::pin(self.launcher.finish())
    }
}

/// The fault of a refused request or answer.
fn fault(refused: &impl Refusal) -> Fault {
    let kind = match refused.blame() {
        Blame::ProtocolError => FaultKind::ProtocolError,
        Blame::IllegalMove => FaultKind::IllegalMove,
    };
    Fault::new(kind, refused.to_string())
}

/// The bot's name: it is run once with empty stdin, under [`DESCRIBE_TIME`], and
/// prints it.
pub async fn describe<C: Named>(bot: &ProgramBot, workdir: &Path, sandboxed: bool) -> Result<Option<Identity>, StartError> {
    let mut limits = crate::Limits::for_kind(<C::Game as Registered>::KIND).with(&bot.manifest.limits);
    limits.sandboxed = sandboxed;
    let cmd = command(bot, workdir, &limits, &[]);
    let clock = TurnClock { move_time: Some(DESCRIBE_TIME), ..TurnClock::default() };
    let once = run_once(&cmd, b"", &clock).await?;
    let stderr = once.stderr.clone();
    let output = once.into_output()?;
    match C::name(&output) {
        Ok(name) => Ok(Some(Identity { name, author: None, details: Vec::new() })),
        Err(refused) => Err(StartError::Bot { fault: Fault::new(FaultKind::ProtocolError, refused.to_string()), stderr }),
    }
}
