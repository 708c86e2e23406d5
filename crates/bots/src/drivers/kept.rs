//! A process kept for a whole game, and from game to game when the caller keeps
//! processes ([`crate::pool`]): the project's protocol, Gomocup and UCI share it. A game
//! opens one from the pool or starts a fresh one (in a folder of its own when processes
//! may be kept); its end puts it back, paused, when the bot made no fault and it still
//! runs, and otherwise tells it to quit, kills its group and removes its folder.

use std::path::PathBuf;
use std::sync::Arc;

use super::arbiter::QUIT_GRACE;
use crate::folders::GameFolder;
use crate::pool::{Pool, Resident};
use crate::{BoxFuture, ProgramBot, SeatContext, StartError};

/// A bot's process for this game, and where it goes at the game's end.
pub(crate) struct Kept {
    /// There until the game's end gives it back to the pool.
    process: Option<Box<jail::Process>>,
    /// The folder of its own that a process runs in when processes may be kept (the
    /// game's folder otherwise).
    own: Option<GameFolder>,
    /// Where it goes back at the end of a game it played without fault.
    keep: Option<(Arc<Pool>, String)>,
    /// The games its process played before this one.
    games: u32,
    /// Whether it made a fault in this game (then it is not kept).
    pub(crate) faulted: bool,
}

impl Kept {
    /// A process started for this game, in the game's folder until [`open`] says
    /// otherwise.
    pub(crate) fn fresh(process: jail::Process) -> Kept {
        Kept { process: Some(Box::new(process)), own: None, keep: None, games: 0, faulted: false }
    }

    /// A process from the pool, which goes back there after a game without fault.
    pub(crate) fn from_pool(resident: Resident, pool: &Arc<Pool>) -> Kept {
        let Resident { key, process, folder, games } = resident;
        Kept { process: Some(process), own: Some(folder), keep: Some((Arc::clone(pool), key)), games, faulted: false }
    }

    /// A fresh process running in `own`, kept after the game when `keep` says where.
    pub(crate) fn set_home(&mut self, own: GameFolder, keep: Option<(Arc<Pool>, String)>) {
        self.own = Some(own);
        self.keep = keep;
    }

    pub(crate) fn process(&mut self) -> &mut jail::Process {
        self.process.as_mut().expect("a bot has its process until its game ends")
    }

    /// At the game's end: a process that may be kept, made no fault and still runs is
    /// told `goodbye` (resumed for it, unless empty; a process that cannot take it is
    /// not kept) and paused back into the pool; any other is resumed, told `quit`
    /// (`goodbye` included where it has one), given [`QUIT_GRACE`] to exit, then killed
    /// with its group, and its own folder removed.
    pub(crate) async fn finish(&mut self, goodbye: &[u8], quit: &[u8]) {
        let deadline = jail::Deadline::wall_in(QUIT_GRACE);
        if let Some((pool, key)) = self.keep.take()
            && !self.faulted
            && self.process().try_exit().is_none()
        {
            let told = goodbye.is_empty() || {
                let process = self.process();
                process.resume().is_ok() && process.send(goodbye, deadline).await.is_ok() && {
                    process.pause().await;
                    true
                }
            };
            if told {
                // Paused since its last move (or its goodbye), until its next game.
                let process = self.process.take().expect("a bot has its process until its game ends");
                let folder = self.own.take().expect("a kept process has a folder of its own");
                if let Some(longest) = pool.put(Resident { key, process, folder, games: self.games + 1 }) {
                    longest.retire().await;
                }
                return;
            }
        }
        let process = self.process();
        let _ = process.resume();
        if process.send(quit, deadline).await.is_ok() {
            let _ = process.wait(deadline).await;
        }
        process.kill().await;
        if let Some(own) = self.own.take() {
            own.remove_async().await;
        }
    }
}

/// A bot's seat for this game with a kept process: without a pool, `start` in the
/// game's folder; with one, a waiting process of `key` given the game by `restart` (one
/// that cannot is retired and the next tried), else `start` in a folder of its own, the
/// process kept afterwards while the pool keeps `key`'s. `kept` is the seat's [`Kept`].
pub(crate) async fn open<'a, B>(
    bot: &'a ProgramBot,
    ctx: &'a SeatContext,
    key: String,
    kept: fn(&mut B) -> &mut Kept,
    mut restart: impl FnMut(Resident, Arc<Pool>) -> BoxFuture<'a, Result<B, Resident>>,
    start: impl FnOnce(PathBuf) -> BoxFuture<'a, Result<B, StartError>>,
) -> Result<B, StartError> {
    let Some(pool) = &ctx.pool else {
        return start(ctx.workdir.clone()).await;
    };
    while pool.keeps(&key)
        && let Some(resident) = pool.take(&key)
    {
        match restart(resident, Arc::clone(pool)).await {
            Ok(seat) => return Ok(seat),
            // It died while it waited, or cannot play another game: a fresh one plays.
            Err(resident) => resident.retire().await,
        }
    }
    let (own, workdir) = super::own_folder(bot).await?;
    match start(workdir).await {
        Ok(mut seat) => {
            let keep = pool.keeps(&key).then(|| (Arc::clone(pool), key));
            kept(&mut seat).set_home(own, keep);
            Ok(seat)
        }
        Err(err) => {
            own.remove_async().await;
            Err(err)
        }
    }
}
