//! CPU time of a process group, summed from `/proc/<pid>/stat` of its members.
//!
//! Finding the members means reading every process's stat file, which costs hundreds of
//! microseconds; [`CpuMeter`] does that at most every [`RESCAN`] and otherwise reads only
//! the members it already knows, so that measuring a move costs a few microseconds.

use std::time::{Duration, Instant};

/// Fields of `/proc/<pid>/stat` after the command name, 0-based from the state field.
const PGRP: usize = 2;
const UTIME: usize = 11;
const CSTIME: usize = 14;

/// How often a meter looks for new members of the group.
pub const RESCAN: Duration = Duration::from_millis(100);

/// CPU time (user + system) of every live process in group `pgid`, plus the CPU time of
/// the children each has reaped. Processes that left the group or were reaped by
/// someone outside it are not counted.
pub fn group_cpu_time(pgid: i32) -> Duration {
    let mut meter = CpuMeter::new(pgid);
    meter.rescan();
    meter.total()
}

/// Measures the CPU time of one process group, remembering its members.
#[derive(Debug)]
pub struct CpuMeter {
    pgid: i32,
    members: Vec<i32>,
    scanned: Option<Instant>,
}

impl CpuMeter {
    pub fn new(pgid: i32) -> CpuMeter {
        CpuMeter { pgid, members: vec![pgid], scanned: None }
    }

    /// The group's CPU time now: the known members, after a full scan for new ones if
    /// the last is older than [`RESCAN`].
    pub fn read(&mut self) -> Duration {
        if self.scanned.is_none_or(|at| at.elapsed() >= RESCAN) {
            self.rescan();
        }
        self.total()
    }

    fn rescan(&mut self) {
        self.scanned = Some(Instant::now());
        self.members.clear();
        let Ok(entries) = std::fs::read_dir("/proc") else {
            return;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            if let Some(pid) = name.to_str().and_then(|n| n.parse::<i32>().ok())
                && stat_ticks(pid, self.pgid).is_some()
            {
                self.members.push(pid);
            }
        }
    }

    fn total(&mut self) -> Duration {
        let ticks_per_second = rustix::param::clock_ticks_per_second().max(1);
        let pgid = self.pgid;
        let mut ticks = 0u64;
        // Members that died or left the group drop out; their time stays counted where
        // a member of the group reaped them.
        self.members.retain(|&pid| match stat_ticks(pid, pgid) {
            Some(used) => {
                ticks += used;
                true
            }
            None => false,
        });
        Duration::from_nanos(ticks.saturating_mul(1_000_000_000) / ticks_per_second)
    }
}

/// The CPU ticks of `pid` (its own and its reaped children's) if it is in `pgid`.
fn stat_ticks(pid: i32, pgid: i32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may hold spaces and parentheses: split after the last ')'.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_ascii_whitespace().collect();
    if fields.get(PGRP)?.parse::<i32>().ok()? != pgid {
        return None;
    }
    fields.get(UTIME..=CSTIME)?.iter().map(|f| f.parse::<u64>().ok()).sum()
}

#[cfg(test)]
mod tests {
    #[test]
    fn own_group_has_cpu_time() {
        let pgid = rustix::process::getpgrp().as_raw_nonzero().get();
        let mut x = 0u64;
        for i in 0..20_000_000u64 {
            x = x.wrapping_add(i * i);
        }
        assert!(x > 0);
        assert!(super::group_cpu_time(pgid) > std::time::Duration::ZERO);
        let mut meter = super::CpuMeter::new(pgid);
        assert!(meter.read() > std::time::Duration::ZERO);
        assert_eq!(super::group_cpu_time(i32::MAX - 7), std::time::Duration::ZERO);
    }
}
