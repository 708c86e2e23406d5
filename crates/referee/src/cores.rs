//! The machine's cores as places to think: a player on the move (a program or a built-in)
//! holds one for its turn, so that however many games run at once, no more players
//! compute at once than there are cores, and none computes on a wall clock while it
//! waits for a core behind another. A turn waits for a core before its clock starts.
//!
//! One set per process, sized by [`set`] (the commands' `--cores`) or else by the cores
//! this process may run on.

use std::sync::{Arc, OnceLock};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The set: its permits, and how many it was made with.
struct Cores {
    permits: Arc<Semaphore>,
    size: usize,
}

static CORES: OnceLock<Cores> = OnceLock::new();

fn make(n: usize) -> Cores {
    Cores { permits: Arc::new(Semaphore::new(n)), size: n }
}

/// The cores this process may run on (its CPU affinity, or one if it cannot be read).
pub fn available() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Sizes the set: at most `n` players (at least one) think at once. The first call (or
/// the first turn, with [`available`]) decides; a later call with another number is
/// refused with the number in force.
pub fn set(n: usize) -> Result<(), usize> {
    let n = n.max(1);
    let size = CORES.get_or_init(|| make(n)).size;
    if size == n { Ok(()) } else { Err(size) }
}

fn cores() -> &'static Cores {
    CORES.get_or_init(|| make(available()))
}

/// A place to think for one turn, given back when dropped.
pub struct Core {
    _permit: OwnedSemaphorePermit,
}

/// Waits for a place to think (first come, first served).
pub async fn take() -> Core {
    let permit = Arc::clone(&cores().permits).acquire_owned().await.expect("the set of cores is never closed");
    Core { _permit: permit }
}
