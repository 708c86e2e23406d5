//! Helpers shared by the jail's tests against real processes: a process's state from
//! `/proc`, polling until something holds, and a guard that kills what a failed test
//! left behind.
#![allow(dead_code, reason = "each test binary that includes this module uses a part of it")]

use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal};

/// The state letter of `pid` (`None` once it is gone or a zombie).
pub fn state(pid: i32) -> Option<char> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat[stat.rfind(')')? + 2..].chars().next().filter(|c| !matches!(c, 'Z' | 'X'))
}

/// Polls `done` every millisecond until it holds; false after `limit`.
pub fn eventually(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let until = Instant::now() + limit;
    while Instant::now() < until {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    done()
}

/// Kills a process left behind when a test fails (forget it once the process is gone,
/// so that a process id used again is never signalled).
pub struct KillOnDrop(pub i32);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        if state(self.0).is_some() {
            let _ = rustix::process::kill_process(Pid::from_raw(self.0).expect("a process id"), Signal::KILL);
        }
    }
}
