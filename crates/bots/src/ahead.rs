//! Sandboxes started ahead for the next games of bots with a process per move (Pah-tum,
//! Nupud, Legions, the Gomoku file interface): when such a seat opens in the sandbox, a
//! sandbox for the same bot's next game starts in the background, so that its game finds
//! it ready. Nothing of a game is kept for another: each game gets a sandbox (a zygote,
//! `jail::Process::spawn_zygote`) and a working folder no bot code has run in, removed
//! at the game's end.

use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use tokio::task::JoinHandle;

use crate::folders::GameFolder;
use crate::pool::Pool;
use crate::{Limits, ProgramBot, Protocol, StartError};

/// A sandbox ready for one game of one seat: its zygote, started in a fresh folder of its
/// own that holds the bot's working directory.
pub struct Prepared {
    pub folder: GameFolder,
    pub workdir: PathBuf,
    pub command: jail::Command,
    pub zygote: jail::Process,
}

impl Prepared {
    /// Makes the folder, copies the bot's working directory in and starts the zygote of
    /// `PROGRAM ARGS` there. A bot whose files cannot be copied is at fault; anything
    /// else is ours.
    pub async fn start(bot: &ProgramBot, limits: &Limits, args: &[String]) -> Result<Prepared, StartError> {
        let (folder, workdir) = crate::drivers::own_folder(bot).await?;
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let mut command = crate::drivers::command(bot, &workdir, limits, &args);
        command.per_move = true;
        let started = {
            let command = command.clone();
            tokio::task::spawn_blocking(move || jail::Process::spawn_zygote(&command))
                .await
                .unwrap_or_else(|cancelled| Err(std::io::Error::other(cancelled)))
        };
        match started {
            Ok(zygote) => Ok(Prepared { folder, workdir, command, zygote }),
            Err(err) => {
                folder.remove_async().await;
                let what = format!("cannot start the sandbox for {}", command.program.display());
                Err(StartError::Referee(crate::RefereeError::new(what, err)))
            }
        }
    }

    /// Ends it: its zygote killed, its folder removed.
    pub async fn retire(mut self) {
        self.zygote.kill().await;
        drop(self.zygote);
        self.folder.remove_async().await;
    }
}

/// One sandbox being started, or started, for the next game of a bot.
type Stocked = (String, JoinHandle<Option<Prepared>>);

/// The sandboxes started ahead, and how many seats of each bot play now: the stock keeps
/// as many sandboxes of a bot as it has seats in play (two for a bot that plays itself),
/// the oldest ended beyond the stock's size. A stock dropped without [`Ahead::close`]
/// ends them all the same: each zygote dies with its handle, each folder with its own.
pub struct Ahead {
    state: Mutex<State>,
    size: usize,
    closed: AtomicBool,
}

#[derive(Default)]
struct State {
    stock: VecDeque<Stocked>,
    in_use: HashMap<String, usize>,
}

/// A seat of a bot in play, counted by the stock until it is dropped.
pub struct InUse {
    ahead: Arc<Ahead>,
    key: String,
}

impl Drop for InUse {
    fn drop(&mut self) {
        let mut state = self.ahead.state.lock().expect("the stock's lock is never poisoned");
        if let Some(count) = state.in_use.get_mut(&self.key) {
            *count -= 1;
            if *count == 0 {
                state.in_use.remove(&self.key);
            }
        }
    }
}

impl Ahead {
    /// A stock of at most `size` sandboxes (at least one); [`Pool::size_for`] gives the
    /// size a run of parallel games needs.
    pub fn new(size: usize) -> Arc<Ahead> {
        Arc::new(Ahead { state: Mutex::default(), size: size.max(1), closed: AtomicBool::new(false) })
    }

    /// Whether a seat of `protocol` uses a sandbox prepared ahead when there is a stock:
    /// one with a process per move, in the sandbox.
    pub fn serves(protocol: Protocol, sandboxed: bool) -> bool {
        sandboxed && matches!(protocol, Protocol::GomokuFile | Protocol::Legions | Protocol::Pahtum | Protocol::Nupud)
    }

    /// What tells sandboxes apart: the bot and its limits as a pool tells processes
    /// apart, and the arguments its moves are run with (the Gomoku file interface's
    /// mark).
    pub fn key(bot: &ProgramBot, limits: &Limits, args: &[String]) -> String {
        format!("{}|{}", Pool::key(bot, limits), args.join("\u{1f}"))
    }

    /// A seat of `bot` under `limits` with `args` opens: the sandbox stocked for it, if
    /// any (it may still be starting), and the seat counted until its [`InUse`] drops.
    /// The stock then starts sandboxes for the bot's next games, one for each of its
    /// seats in play, unless it is closed (or there is no runtime to start them on).
    pub fn open(self: &Arc<Self>, bot: &ProgramBot, limits: &Limits, args: &[String]) -> (Option<JoinHandle<Option<Prepared>>>, InUse) {
        let key = Ahead::key(bot, limits, args);
        let runtime = tokio::runtime::Handle::try_current().ok().filter(|_| !self.closed.load(Ordering::SeqCst));
        let mut evicted = Vec::new();
        let taken = {
            let mut state = self.state.lock().expect("the stock's lock is never poisoned");
            let taken = state.stock.iter().position(|(stocked, _)| *stocked == key).and_then(|at| state.stock.remove(at));
            let seats = {
                let count = state.in_use.entry(key.clone()).or_default();
                *count += 1;
                *count
            };
            if let Some(runtime) = &runtime {
                let stocked = state.stock.iter().filter(|(stocked, _)| *stocked == key).count();
                for _ in stocked..seats {
                    let (bot, limits, args) = (bot.clone(), *limits, args.to_vec());
                    state.stock.push_back((key.clone(), runtime.spawn(async move { Prepared::start(&bot, &limits, &args).await.ok() })));
                }
                while state.stock.len() > self.size {
                    evicted.extend(state.stock.pop_front());
                }
            }
            taken.map(|(_, handle)| handle)
        };
        if let Some(runtime) = runtime {
            for (_, handle) in evicted {
                runtime.spawn(retire(handle));
            }
        }
        (taken, InUse { ahead: Arc::clone(self), key })
    }

    /// How many sandboxes are stocked (started or starting).
    pub fn len(&self) -> usize {
        self.state.lock().expect("the stock's lock is never poisoned").stock.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Ends every stocked sandbox and starts no more (at the end of a run).
    pub async fn close(&self) {
        self.closed.store(true, Ordering::SeqCst);
        let all: Vec<Stocked> = self.state.lock().expect("the stock's lock is never poisoned").stock.drain(..).collect();
        for (_, handle) in all {
            retire(handle).await;
        }
    }
}

/// Ends a stocked sandbox once it has started.
async fn retire(handle: JoinHandle<Option<Prepared>>) {
    if let Ok(Some(prepared)) = handle.await {
        prepared.retire().await;
    }
}

impl std::fmt::Debug for Ahead {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Ahead({} of {} stocked)", self.len(), self.size)
    }
}
