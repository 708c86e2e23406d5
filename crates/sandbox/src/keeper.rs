//! `arbiter-sandbox --keeper`: the keeper of a referee's plain (unsandboxed) bots. The
//! referee starts one keeper, with a pipe as its stdin, and writes `+PGID` to it for each
//! plain bot it starts (the bot's process group) and `-PGID` once the bot's leader is
//! reaped. When the pipe ends (the referee exited, or died however it died: the kernel
//! closes its end), the keeper kills every group still named (SIGKILL, which also ends a
//! stopped process) and exits. So a plain bot the referee was stopping when it was killed
//! does not stay stopped for good, and the referee starts its plain bots the cheap way
//! (`posix_spawn`) instead of forking itself to set a parent-death signal in each.

use std::collections::BTreeSet;
use std::io::BufRead;

use rustix::process::{Pid, Signal, kill_process_group};

/// The line the keeper writes on its stdout once it is ready (so that a referee can tell
/// a helper program that keeps from an older one).
pub const GREETING: &str = "keeping\n";

/// Says it is ready, reads the referee's lines until their end, then kills the groups
/// still named.
pub fn run() -> ! {
    // Only the end of its input ends the keeper: not a terminal's hang-up or Ctrl-C
    // (it has a process group of its own too), which the referee may outlive.
    let _ = crate::sys::block(&[Signal::HUP, Signal::INT, Signal::QUIT, Signal::TERM]);
    {
        use std::io::Write;
        let mut stdout = std::io::stdout().lock();
        let _ = stdout.write_all(GREETING.as_bytes()).and_then(|()| stdout.flush());
    }
    let mut groups = BTreeSet::new();
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        apply(&mut groups, &line);
    }
    // Every group named is above 1 ([`apply`]).
    for pid in groups.iter().copied().filter_map(Pid::from_raw) {
        let _ = kill_process_group(pid, Signal::KILL);
    }
    std::process::exit(0)
}

/// One line of the referee's: `+PGID` adds a group, `-PGID` removes it; anything else
/// (not a positive process id) is ignored.
fn apply(groups: &mut BTreeSet<i32>, line: &str) {
    let (add, id) = match line.split_at_checked(1) {
        Some(("+", id)) => (true, id),
        Some(("-", id)) => (false, id),
        _ => return,
    };
    let Ok(id) = id.parse::<i32>() else { return };
    if id <= 1 {
        return;
    }
    if add {
        groups.insert(id);
    } else {
        groups.remove(&id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_add_and_remove_groups_and_nothing_else() {
        let mut groups = BTreeSet::new();
        for line in ["+100", "+200", "-100", "+1", "+0", "+-5", "x300", "+abc", "", "+300"] {
            apply(&mut groups, line);
        }
        assert_eq!(groups.into_iter().collect::<Vec<_>>(), vec![200, 300]);
    }
}
