//! CPU time of a process group, summed from `/proc/<pid>/stat` of its members.

use std::time::Duration;

/// Fields of `/proc/<pid>/stat` after the command name, 0-based from the state field.
const PGRP: usize = 2;
const UTIME: usize = 11;
const CSTIME: usize = 14;

/// CPU time (user + system) of every live process in group `pgid`, plus the CPU time of
/// the children each has reaped. Processes that left the group or were reaped by
/// someone outside it are not counted.
pub fn group_cpu_time(pgid: i32) -> Duration {
    let ticks = rustix::param::clock_ticks_per_second().max(1);
    let mut total: u64 = 0;
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Duration::ZERO;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|n| n.parse::<i32>().ok()) else {
            continue;
        };
        if let Some(ticks_used) = stat_ticks(pid, pgid) {
            total += ticks_used;
        }
    }
    Duration::from_nanos(total.saturating_mul(1_000_000_000) / ticks)
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
        assert_eq!(super::group_cpu_time(i32::MAX - 7), std::time::Duration::ZERO);
    }
}
