//! STUB: the arbiter interface; to be written.

use std::path::Path;

use rules::Outcome;

use super::Identity;
use crate::{Fault, FaultKind, ProgramBot, Reply, SeatContext, TurnRequest};

pub struct Bot {}

impl Bot {
    pub async fn open(_bot: &ProgramBot, _ctx: &SeatContext) -> Result<Bot, Fault> {
        Err(Fault::new(FaultKind::Crash, "the arbiter interface is not written yet"))
    }

    pub async fn turn(&mut self, _req: &TurnRequest<'_>) -> Reply {
        unreachable!("a stub bot never opens")
    }

    pub async fn finish(&mut self, _outcome: &Outcome) {}
}

pub async fn describe(_bot: &ProgramBot, _workdir: &Path) -> Result<Option<Identity>, Fault> {
    Err(Fault::new(FaultKind::Crash, "the arbiter interface is not written yet"))
}
