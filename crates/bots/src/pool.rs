//! Bot processes kept from one game to the next (`reuse`, `docs/protocols/arbiter.md`):
//! a pool of paused processes whose bots said in their handshake that they can play game
//! after game. Each keeps a working folder of its own for all its games; a game takes a
//! process out (so no two games ever share one) and gives it back at its end only when
//! the bot did nothing wrong in it. Beyond the pool's size the process idle the longest
//! is ended.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::folders::GameFolder;
use crate::{Limits, ProgramBot};

/// A paused bot process between two games, with its own working folder.
pub struct Resident {
    /// Which bot, under which limits, it is (see [`Pool::key`]).
    pub key: String,
    pub process: Box<jail::Process>,
    /// The folder that holds its working directory, [`Resident::workdir`].
    pub folder: GameFolder,
    /// The games it has played so far.
    pub games: u32,
}

/// The name of a resident's working directory inside its folder.
const WORKDIR: &str = "bot";

impl Resident {
    /// The working directory of a process kept in `folder`.
    pub fn workdir_in(folder: &Path) -> PathBuf {
        folder.join(WORKDIR)
    }

    /// Ends it: kills its process group and removes its folder, off the runtime's
    /// threads.
    pub async fn retire(mut self) {
        self.process.kill().await;
        drop(self.process);
        self.folder.remove_async().await;
    }
}

/// The paused processes waiting for their next game. A pool dropped without
/// [`Pool::close`] ends them all the same: each process dies with its handle (kill on
/// drop), each folder with its own.
pub struct Pool {
    idle: Mutex<VecDeque<Resident>>,
    size: usize,
    /// Keys of bots found unable to play another game in their process (a Gomocup
    /// brain that does not answer `RESTART` with `OK`): theirs are not kept.
    refused: Mutex<std::collections::HashSet<String>>,
}

impl Pool {
    /// A pool that keeps at most `size` processes waiting (at least one).
    pub fn new(size: usize) -> Arc<Pool> {
        Arc::new(Pool { idle: Mutex::new(VecDeque::new()), size: size.max(1), refused: Mutex::default() })
    }

    /// The size a run of `jobs` parallel games among `programs` program bots is given:
    /// one process per program plus both seats of every parallel game, so that a round
    /// robin finds every bot's process waiting for it.
    pub fn size_for(programs: usize, jobs: usize) -> usize {
        programs + 2 * jobs
    }

    /// What tells processes apart: the bot (its manifest and its program's fingerprint)
    /// and what was fixed when its process started (memory cap, stderr cap, sandbox).
    pub fn key(bot: &ProgramBot, limits: &Limits) -> String {
        format!(
            "{}|{}|{:?}|{}|{}",
            bot.manifest_path.display(),
            bot.fingerprint().unwrap_or_default(),
            limits.memory,
            limits.stderr_per_move,
            limits.sandboxed
        )
    }

    /// Notes that the bot of `key` cannot play another game in its process: its
    /// processes are no longer kept.
    pub fn refuse(&self, key: &str) {
        self.refused.lock().expect("the pool's lock is never poisoned").insert(key.to_string());
    }

    /// Whether processes of `key` may be kept (see [`Pool::refuse`]).
    pub fn keeps(&self, key: &str) -> bool {
        !self.refused.lock().expect("the pool's lock is never poisoned").contains(key)
    }

    /// Takes out a waiting process of `key` (the one that waited least), if any. On a
    /// pinned lane (`jail::affinity::lane_cpu`) one started on this lane comes first (its
    /// pipes are watched here); one started on another lane is moved to this lane's CPU.
    pub fn take(&self, key: &str) -> Option<Resident> {
        let here = jail::affinity::lane_cpu();
        let taken = {
            let mut idle = self.idle.lock().expect("the pool's lock is never poisoned");
            let at = idle
                .iter()
                .rposition(|resident| resident.key == key && resident.process.lane() == here)
                .or_else(|| idle.iter().rposition(|resident| resident.key == key))?;
            idle.remove(at)
        };
        if let (Some(resident), Some(cpu)) = (&taken, here) {
            resident.process.move_to_cpu(cpu);
        }
        taken
    }

    /// Puts a process back to wait for its next game; returns the one that waited
    /// longest when the pool is over its size (the caller retires it).
    pub fn put(&self, resident: Resident) -> Option<Resident> {
        let mut idle = self.idle.lock().expect("the pool's lock is never poisoned");
        idle.push_back(resident);
        if idle.len() > self.size { idle.pop_front() } else { None }
    }

    /// How many processes wait.
    pub fn len(&self) -> usize {
        self.idle.lock().expect("the pool's lock is never poisoned").len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Ends every waiting process (at the end of a run).
    pub async fn close(&self) {
        let all: Vec<Resident> = self.idle.lock().expect("the pool's lock is never poisoned").drain(..).collect();
        for resident in all {
            resident.retire().await;
        }
    }
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Pool({} of {} waiting)", self.len(), self.size)
    }
}
