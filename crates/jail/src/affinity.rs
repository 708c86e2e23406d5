//! CPU affinity: the CPUs this process may run on, a thread pinned to one of them (a
//! lane of games, `referee::lanes`), and a kept process moved to the CPU of the lane
//! that takes it. Bots started from a pinned thread inherit its CPU; what is pinned here
//! is for speed (a game's referee and bots wake each other on one CPU, not across two),
//! never a limit a bot could be held to: the sandbox does not stop a bot from changing
//! its own affinity.

use std::cell::Cell;

use rustix::io::Errno;
use rustix::process::Pid;
use rustix::thread::{CpuSet, sched_getaffinity, sched_setaffinity};

thread_local! {
    /// The CPU this thread was pinned to by [`pin_this_thread`], if any.
    static LANE_CPU: Cell<Option<usize>> = const { Cell::new(None) };
}

/// The CPUs the calling thread may run on (a process's, called from a thread not pinned
/// here), in increasing order; empty if they cannot be read.
pub fn allowed_cpus() -> Vec<usize> {
    let Ok(set) = sched_getaffinity(None) else { return Vec::new() };
    (0..CpuSet::MAX_CPU).filter(|&cpu| set.is_set(cpu)).collect()
}

/// The set of `cpu` alone; EINVAL for a CPU beyond what a set holds.
fn only(cpu: usize) -> rustix::io::Result<CpuSet> {
    if cpu >= CpuSet::MAX_CPU {
        return Err(Errno::INVAL);
    }
    let mut set = CpuSet::new();
    set.set(cpu);
    Ok(set)
}

/// Pins the calling thread to `cpu`; threads and processes it starts from then on
/// inherit that CPU, and [`lane_cpu`] on this thread returns it.
pub fn pin_this_thread(cpu: usize) -> rustix::io::Result<()> {
    sched_setaffinity(None, &only(cpu)?)?;
    LANE_CPU.with(|c| c.set(Some(cpu)));
    Ok(())
}

/// The CPU the calling thread was pinned to by [`pin_this_thread`], if any.
pub fn lane_cpu() -> Option<usize> {
    LANE_CPU.with(Cell::get)
}

/// Moves every thread of each of `pids` to `cpu` (for a kept process taken by a game on
/// another lane: it is paused, so it starts no thread meanwhile). Threads that end
/// meanwhile, or that cannot be moved, are skipped: this is for speed only.
pub fn move_to(pids: impl IntoIterator<Item = i32>, cpu: usize) {
    let Ok(set) = only(cpu) else { return };
    for tid in pids.into_iter().flat_map(crate::cpu::task_ids) {
        let _ = sched_setaffinity(Pid::from_raw(tid), &set);
    }
}
