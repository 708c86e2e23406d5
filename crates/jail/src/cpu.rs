//! CPU time of a process group: its live members' CPU clocks plus what they have reaped.
//!
//! A live member's time is read from its process CPU clock (`clock_getcpuclockid`: one
//! system call, nanoseconds). Finding the members, and what each has reaped from its
//! children, means reading `/proc/<pid>/stat` of every process on the machine, which
//! costs hundreds of microseconds; [`CpuMeter`] does that at most every [`RESCAN`],
//! and not at all in a group's first [`RESCAN`] (a new group is its leader alone), so
//! that measuring a move costs about a microsecond.

use std::time::{Duration, Instant};

/// Fields of `/proc/<pid>/stat` after the command name, 0-based from the state field.
const PGRP: usize = 2;
const CUTIME: usize = 13;
const CSTIME: usize = 14;

/// How often a meter looks for new members of the group.
pub const RESCAN: Duration = Duration::from_millis(100);

/// CPU time (user + system) of every live process in group `pgid`, plus the CPU time of
/// the children each has reaped. Processes that left the group or were reaped by
/// someone outside it are not counted.
pub fn group_cpu_time(pgid: i32) -> Duration {
    let mut meter = CpuMeter::new(pgid);
    meter.rescan();
    meter.read()
}

/// Measures the CPU time of one process group, remembering its members.
#[derive(Debug)]
pub struct CpuMeter {
    pgid: i32,
    members: Vec<Member>,
    scanned: Instant,
    /// The highest total read so far: a reading never goes back (a member that dies
    /// and is reaped takes its time with it until its reaper's is read at a scan).
    highest: Duration,
}

/// A process of the group: its CPU clock and the time of the children it had reaped
/// at the last scan.
#[derive(Debug)]
struct Member {
    clock: Option<CpuClock>,
    reaped: Duration,
}

impl Member {
    fn new(pid: i32, reaped: Duration) -> Member {
        Member { clock: CpuClock::of(pid), reaped }
    }

    /// Its own CPU time now (all its threads), `None` once it is gone.
    fn live(&self) -> Option<Duration> {
        self.clock?.read()
    }
}

/// A process's CPU clock. rustix has no `clock_getcpuclockid`, and its `clock_gettime`
/// takes only the fixed clocks: the two calls go to the C library here, each alone in a
/// safe function.
#[derive(Clone, Copy, Debug)]
struct CpuClock(libc::clockid_t);

impl CpuClock {
    /// The CPU clock of process `pid` (the caller's for 0); `None` when there is no such
    /// process.
    fn of(pid: i32) -> Option<CpuClock> {
        let mut clock: libc::clockid_t = 0;
        // SAFETY: `clock` is a live, writable `clockid_t`, the only memory the call
        // writes; it reads none.
        let failed = unsafe { libc::clock_getcpuclockid(pid, &mut clock) };
        (failed == 0).then_some(CpuClock(clock))
    }

    /// The process's CPU time now (user and system, all its threads); `None` once it is
    /// gone.
    fn read(self) -> Option<Duration> {
        let mut now = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        // SAFETY: `now` is a live, writable `timespec`, the only memory the call writes;
        // any clock id is safe to pass (an invalid one fails with EINVAL).
        if unsafe { libc::clock_gettime(self.0, &mut now) } != 0 {
            return None;
        }
        Some(Duration::new(now.tv_sec as u64, now.tv_nsec as u32))
    }
}

impl CpuMeter {
    /// A meter of the group led by `pgid`, which is taken to be its only member until
    /// the first scan, [`RESCAN`] from now: the group of a process just started.
    pub fn new(pgid: i32) -> CpuMeter {
        CpuMeter { pgid, members: vec![Member::new(pgid, Duration::ZERO)], scanned: Instant::now(), highest: Duration::ZERO }
    }

    /// The group's CPU time now: the known members, after a full scan for new ones if
    /// the last is older than [`RESCAN`].
    pub fn read(&mut self) -> Duration {
        if self.scanned.elapsed() >= RESCAN {
            self.rescan();
        }
        // Members that died or left the group drop out; their time stays counted where
        // a member of the group reaped them (from the next scan).
        let mut total = Duration::ZERO;
        self.members.retain(|member| match member.live() {
            Some(live) => {
                total += live + member.reaped;
                true
            }
            None => false,
        });
        self.highest = self.highest.max(total);
        self.highest
    }

    /// The members known now and their own CPU time (without what they reaped): what
    /// a check that a stopped group stayed stopped starts from ([`Clocks::ran`]).
    pub fn clocks(&self) -> Clocks {
        Clocks(self.members.iter().filter_map(|member| Some((member.clock?, member.live()?))).collect())
    }

    fn rescan(&mut self) {
        self.scanned = Instant::now();
        let Ok(entries) = std::fs::read_dir("/proc") else {
            return;
        };
        let mut members = Vec::new();
        for entry in entries.flatten() {
            let name = entry.file_name();
            if let Some(pid) = name.to_str().and_then(|n| n.parse::<i32>().ok())
                && let Some(reaped) = reaped_in_group(pid, self.pgid)
            {
                members.push(Member::new(pid, reaped));
            }
        }
        self.members = members;
    }
}

/// Some processes' CPU clocks and their readings at one moment ([`CpuMeter::clocks`]).
#[derive(Debug)]
pub struct Clocks(Vec<(CpuClock, Duration)>);

impl Clocks {
    /// The CPU time these processes have used since, summed (those gone count for
    /// nothing): a child reaped meanwhile, or found by a scan of the group meanwhile,
    /// cannot look like a stopped process running.
    pub fn ran(&self) -> Duration {
        self.0.iter().filter_map(|(clock, then)| Some(clock.read()?.saturating_sub(*then))).sum()
    }
}

/// The CPU time of the children `pid` has reaped, if it is in group `pgid`.
fn reaped_in_group(pid: i32, pgid: i32) -> Option<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may hold spaces and parentheses: split after the last ')'.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_ascii_whitespace().collect();
    if fields.get(PGRP)?.parse::<i32>().ok()? != pgid {
        return None;
    }
    let ticks: u64 = fields.get(CUTIME..=CSTIME)?.iter().map(|f| f.parse::<u64>().ok()).sum::<Option<u64>>()?;
    Some(from_ticks(ticks))
}

/// A count of the kernel's clock ticks (`/proc`'s unit of CPU time) as a duration.
fn from_ticks(ticks: u64) -> Duration {
    let ticks_per_second = rustix::param::clock_ticks_per_second().max(1);
    Duration::from_nanos(ticks.saturating_mul(1_000_000_000) / ticks_per_second)
}

/// Reads the run-queue wait of every thread of the processes given (the second field of
/// `/proc/PID/task/TID/schedstat`: nanoseconds ready to run but not running), again and
/// again (a turn reads it before and after), each thread's file kept open from one read
/// to the next: opening a file of `/proc` costs several times reading one
/// (`docs/benchmarks.md`). Threads and processes that are gone count for nothing: a file
/// kept open belongs to its thread, and once the thread is gone its read fails and the
/// file is opened again by its path (a thread that took the same number since is read),
/// or dropped. The kernel adds a wait when the thread runs again: a wait under way is not
/// in it yet (see [`stalled`]).
#[derive(Debug, Default)]
pub struct WaitReader {
    /// Each thread's file and the wait it held at the last read.
    open: std::collections::HashMap<i32, (std::fs::File, u64)>,
    /// Each thread's wait at the last [`WaitReader::mark`].
    marked: std::collections::HashMap<i32, u64>,
}

impl WaitReader {
    pub fn read(&mut self, pids: impl IntoIterator<Item = i32>) -> Duration {
        let tids: Vec<i32> = pids.into_iter().flat_map(task_ids).collect();
        self.read_threads(tids)
    }

    /// The summed wait of the threads `tids` (thread ids: `/proc/TID` is each one's own).
    pub fn read_threads(&mut self, tids: impl IntoIterator<Item = i32>) -> Duration {
        let mut total = Duration::ZERO;
        let mut seen = std::collections::HashSet::new();
        for tid in tids {
            seen.insert(tid);
            let mut nanos = self.open.get(&tid).and_then(|(file, _)| schedstat_wait(file));
            if nanos.is_none() {
                self.open.remove(&tid);
                if let Ok(file) = std::fs::File::open(format!("/proc/{tid}/schedstat")) {
                    nanos = schedstat_wait(&file);
                    self.open.insert(tid, (file, 0));
                }
            }
            if let (Some(nanos), Some(entry)) = (nanos, self.open.get_mut(&tid)) {
                entry.1 = nanos;
            }
            total += Duration::from_nanos(nanos.unwrap_or(0));
        }
        self.open.retain(|tid, _| seen.contains(tid));
        total
    }

    /// Notes each thread's wait as of the last read: [`WaitReader::waited`] tells which
    /// waited since.
    pub fn mark(&mut self) {
        self.marked = self.open.iter().map(|(tid, (_, nanos))| (*tid, *nanos)).collect();
    }

    /// The threads whose wait grew between the last [`WaitReader::mark`] and the last read
    /// (threads new since count from nothing).
    pub fn waited(&self) -> Vec<i32> {
        self.open.iter().filter(|(tid, (_, nanos))| *nanos > self.marked.get(tid).copied().unwrap_or(0)).map(|(tid, _)| *tid).collect()
    }
}

/// Tells whether every thread of a bot has gone to sleep (blocked in a read, a wait, a
/// sleep), reading `/proc/TID/stat` of each, each thread's file kept open from one look
/// to the next, as [`WaitReader`] does: the referee freezes a bot that has answered once
/// it has settled, so that no thread is stopped in the middle of what it does after its
/// answer (an engine clearing its "thinking" flag).
#[derive(Debug, Default)]
pub struct StateReader {
    open: std::collections::HashMap<i32, std::fs::File>,
}

impl StateReader {
    /// Whether none of `tids` is running or ready to run (`R`) or in an uninterruptible
    /// wait (`D`, busy with I/O). Threads that are gone count as asleep.
    pub fn all_asleep(&mut self, tids: impl IntoIterator<Item = i32>) -> bool {
        let mut seen = std::collections::HashSet::new();
        let mut asleep = true;
        for tid in tids {
            seen.insert(tid);
            let mut state = self.open.get(&tid).and_then(thread_state);
            if state.is_none() {
                self.open.remove(&tid);
                if let Ok(file) = std::fs::File::open(format!("/proc/{tid}/stat")) {
                    state = thread_state(&file);
                    self.open.insert(tid, file);
                }
            }
            if matches!(state, Some(b'R' | b'D')) {
                asleep = false;
                break;
            }
        }
        if asleep {
            self.open.retain(|tid, _| seen.contains(tid));
        }
        asleep
    }
}

/// The state letter an open `stat` holds now (after the command name, which may hold
/// spaces and parentheses).
fn thread_state(file: &std::fs::File) -> Option<u8> {
    use std::os::unix::fs::FileExt;
    let mut buffer = [0u8; 512];
    let n = file.read_at(&mut buffer, 0).ok()?;
    let text = &buffer[..n];
    let end = text.iter().rposition(|&b| b == b')')?;
    text.get(end + 2).copied()
}

/// The thread ids of process `pid`'s threads.
pub(crate) fn threads_of(pids: impl IntoIterator<Item = i32>) -> Vec<i32> {
    pids.into_iter().flat_map(task_ids).collect()
}

/// The number of CPUs that the threads `tids` may run on together (the union of their
/// affinities), at least 1; `None` when none can be read.
pub fn cpus_allowed(tids: impl IntoIterator<Item = i32>) -> Option<u32> {
    let mut union: Option<rustix::thread::CpuSet> = None;
    for tid in tids {
        let Some(pid) = rustix::process::Pid::from_raw(tid) else { continue };
        let Ok(set) = rustix::thread::sched_getaffinity(Some(pid)) else { continue };
        let all = union.get_or_insert_with(rustix::thread::CpuSet::new);
        for cpu in 0..rustix::thread::CpuSet::MAX_CPU {
            if set.is_set(cpu) {
                all.set(cpu);
            }
        }
    }
    union.map(|set| set.count().max(1))
}

/// The wait (second field) that an open `schedstat` holds now, read from its start.
fn schedstat_wait(file: &std::fs::File) -> Option<u64> {
    use std::os::unix::fs::FileExt;
    let mut buffer = [0u8; 256];
    let n = file.read_at(&mut buffer, 0).ok()?;
    std::str::from_utf8(&buffer[..n]).ok()?.split_ascii_whitespace().nth(1)?.parse().ok()
}

/// The thread ids of process `pid` (none once it is gone).
pub(crate) fn task_ids(pid: i32) -> impl Iterator<Item = i32> {
    std::fs::read_dir(format!("/proc/{pid}/task"))
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| entry.file_name().to_str().and_then(|name| name.parse().ok()))
}

/// Whether one of the threads of `pids` is ready to run (state `R`, running or waiting
/// for a CPU), and the processes' CPU time now (their CPU clocks, exact even while
/// they run): two looks a moment apart with a thread ready and the same CPU time mean
/// the bot is kept from every CPU right now.
pub fn stalled(pids: impl IntoIterator<Item = i32>) -> (bool, Duration) {
    let (mut ready, mut ran) = (false, Duration::ZERO);
    for pid in pids {
        ran += Member::new(pid, Duration::ZERO).live().unwrap_or_default();
        for task in tasks(pid) {
            let Ok(stat) = std::fs::read_to_string(task.join("stat")) else {
                continue;
            };
            // The state follows the command name, which may hold spaces and parentheses.
            ready |= stat.rfind(')').is_some_and(|end| stat[end + 1..].trim_start().starts_with('R'));
        }
    }
    (ready, ran)
}

/// The folders of the threads of process `pid` (none once it is gone).
fn tasks(pid: i32) -> impl Iterator<Item = std::path::PathBuf> {
    task_ids(pid).map(move |tid| std::path::PathBuf::from(format!("/proc/{pid}/task/{tid}")))
}

/// What a turn gives back, or the readings it starts from: the bot's wait for a CPU (the
/// kernel's run-queue wait of its tasks) and the time the machine's host took from its
/// CPUs (steal).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Waits {
    pub queue: Duration,
    pub steal: Duration,
}

impl Waits {
    pub fn total(self) -> Duration {
        self.queue + self.steal
    }

    /// The same, no more than `limit` in all (the steal cut first).
    pub fn at_most(self, limit: Duration) -> Waits {
        let queue = self.queue.min(limit);
        Waits { queue, steal: self.steal.min(limit - queue) }
    }
}

/// What a turn gives back after `elapsed` of wall-clock time in which the bot used `used`
/// of CPU time on a machine of `cpus` CPUs, its tasks waited `waited` for a CPU (summed),
/// and the machine's host took `stolen` from the machine's CPUs (summed):
/// - the wait, but no more than the time in which the bot did not fill every CPU itself
///   (`elapsed - used / cpus`: a bot with more busy threads than CPUs waits behind
///   itself, and gets none of that back);
/// - of the steal, no more than the time in which the bot was neither running nor
///   waiting for a CPU (`elapsed - used - waited`): a virtual CPU taken by its host
///   stops its task's CPU clock without a wait, so that is where a steal that fell on
///   the bot (or on the referee while the bot's answer waited for it) shows; a bot that
///   slept in that time gets at most the machine's steal back;
/// - both together, no more than `cap` nor than the first bound.
pub fn given_back(waited: Duration, stolen: Duration, elapsed: Duration, used: Duration, cpus: u32, cap: Duration) -> Waits {
    let bound = elapsed.saturating_sub(used / cpus.max(1)).min(cap);
    let queue = waited.min(bound);
    let neither = elapsed.saturating_sub(used + waited);
    let steal = stolen.min(neither).min(bound - queue);
    Waits { queue, steal }
}

/// The time the machine's host has taken from its CPUs so far, summed over them: the
/// steal column of `/proc/stat`'s `cpu` line (zero on a machine that is not virtual, or
/// where it cannot be read). The kernel counts it in clock ticks (10 ms), at its timer
/// interrupts, so a steal shows a few milliseconds after it and rounded to ticks.
pub fn machine_steal() -> Duration {
    use std::os::unix::fs::FileExt;
    static STAT: std::sync::OnceLock<Option<std::fs::File>> = std::sync::OnceLock::new();
    let Some(file) = STAT.get_or_init(|| std::fs::File::open("/proc/stat").ok()) else {
        return Duration::ZERO;
    };
    let mut buffer = [0u8; 256];
    let read = file.read_at(&mut buffer, 0).unwrap_or(0);
    steal_of(&buffer[..read]).unwrap_or_default()
}

/// [`machine_steal`] read at most [`STEAL_FRESH`] ago (reading `/proc/stat` costs several
/// microseconds, and a turn's start reads it): what a turn's credit starts from, an
/// earlier reading giving back no less.
pub fn recent_steal() -> Duration {
    static LAST: std::sync::Mutex<Option<(Instant, Duration)>> = std::sync::Mutex::new(None);
    let mut last = LAST.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    match *last {
        Some((read, steal)) if read.elapsed() < STEAL_FRESH => steal,
        _ => {
            let steal = machine_steal();
            *last = Some((Instant::now(), steal));
            steal
        }
    }
}

/// How old a reading of [`recent_steal`] may be.
pub const STEAL_FRESH: Duration = Duration::from_millis(1);

/// The steal of the start of a `/proc/stat` (its first line, `cpu user nice system idle
/// iowait irq softirq steal ...`, in clock ticks).
fn steal_of(stat: &[u8]) -> Option<Duration> {
    let line = std::str::from_utf8(stat.split(|&b| b == b'\n').next()?).ok()?;
    let mut fields = line.split_ascii_whitespace();
    if fields.next()? != "cpu" {
        return None;
    }
    Some(from_ticks(fields.nth(7)?.parse().ok()?))
}

/// The CPUs of the machine a bot could run on: those online (`/sys/devices/system/cpu/online`,
/// e.g. `0-3,8`), at least those this process may use.
pub fn machine_cpus() -> u32 {
    static CPUS: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    *CPUS.get_or_init(|| {
        let ours = std::thread::available_parallelism().map_or(1, |n| n.get() as u32);
        let online = std::fs::read_to_string("/sys/devices/system/cpu/online").ok().and_then(|text| count_cpus(text.trim()));
        online.unwrap_or(ours).max(ours).max(1)
    })
}

/// The number of CPUs in a kernel CPU list (`0-3,8`).
fn count_cpus(list: &str) -> Option<u32> {
    list.split(',')
        .map(|part| match part.split_once('-') {
            Some((a, b)) => Some(b.parse::<u32>().ok()?.checked_sub(a.parse::<u32>().ok()?)? + 1),
            None => part.parse::<u32>().ok().map(|_| 1),
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    /// A child in a process group of its own, killed on drop: `script` under `/bin/sh`.
    /// (Not the tests' own group, whose leader may be gone: a CI runner that started the
    /// suite in the background and exited leaves a group without its leader.)
    struct Group(std::process::Child);

    impl Group {
        fn start(script: &str) -> Group {
            use std::os::unix::process::CommandExt;
            let child = std::process::Command::new("/bin/sh").args(["-c", script]).process_group(0).spawn().expect("start /bin/sh");
            Group(child)
        }

        fn pgid(&self) -> i32 {
            self.0.id() as i32
        }
    }

    impl Drop for Group {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }

    #[test]
    fn own_group_has_cpu_time() {
        let group = Group::start("while :; do :; done");
        let mut meter = super::CpuMeter::new(group.pgid());
        let until = std::time::Instant::now() + Duration::from_secs(30);
        while super::group_cpu_time(group.pgid()) < Duration::from_millis(20) {
            assert!(std::time::Instant::now() < until, "a busy loop used no CPU in 30 s");
            std::thread::sleep(Duration::from_millis(5));
        }
        assert!(meter.read() > Duration::ZERO);
        assert_eq!(super::group_cpu_time(i32::MAX - 7), Duration::ZERO);
    }

    #[test]
    fn a_new_group_is_not_scanned_at_once() {
        // A process just started is its group's only member: reading it must not cost a
        // scan of every process on the machine (which once took most of a short game).
        let group = Group::start("exec sleep 60");
        let mut meter = super::CpuMeter::new(group.pgid());
        let made = meter.scanned;
        meter.read();
        assert_eq!(meter.scanned, made);
        assert_eq!(meter.members.len(), 1);
    }

    #[test]
    fn a_wait_is_given_back_only_where_others_kept_the_bot_from_a_cpu() {
        let ms = Duration::from_millis;
        let back = |queue, steal| super::Waits { queue: ms(queue), steal: ms(steal) };
        // (waited, stolen, elapsed, used, cpus, cap) -> given back
        let table = [
            // One thread, kept from its CPU half the time: the whole wait.
            ((ms(150), ms(0), ms(300), ms(150), 2, ms(800)), back(150, 0)),
            // The same on one CPU.
            ((ms(150), ms(0), ms(300), ms(150), 1, ms(800)), back(150, 0)),
            // Four busy threads on two CPUs filled both all along: nothing back, however
            // long their summed wait.
            ((ms(600), ms(0), ms(300), ms(600), 2, ms(800)), back(0, 0)),
            // Three threads on two CPUs: back only the time the bot did not fill both.
            ((ms(300), ms(0), ms(300), ms(500), 2, ms(800)), back(50, 0)),
            // A starving machine: the cap.
            ((ms(5000), ms(0), ms(6000), ms(100), 2, ms(800)), back(800, 0)),
            // No wait, nothing back.
            ((ms(0), ms(0), ms(300), ms(150), 2, ms(800)), back(0, 0)),
            // The fairness bot's lost turn: 52 ms in all, of which it ran 38 and waited 1,
            // while its host took 10 ms from each of the two CPUs: the 13 ms in which it
            // neither ran nor waited are given back.
            ((ms(1), ms(20), ms(52), ms(38), 2, ms(200)), back(1, 13)),
            // The same with a steal smaller than that time: the steal only.
            ((ms(1), ms(10), ms(52), ms(38), 2, ms(200)), back(1, 10)),
            // A steal on a machine where the bot ran or waited all along: nothing of it.
            ((ms(10), ms(20), ms(50), ms(40), 2, ms(200)), back(10, 0)),
            // A bot that slept 30 ms of its turn gets no more than the machine's steal.
            ((ms(0), ms(10), ms(50), ms(20), 2, ms(200)), back(0, 10)),
            // Without steal a sleep is the bot's own time.
            ((ms(0), ms(0), ms(50), ms(20), 2, ms(200)), back(0, 0)),
            // Both under the cap, the wait first.
            ((ms(150), ms(100), ms(300), ms(50), 2, ms(200)), back(150, 50)),
        ];
        let both = back(30, 20);
        assert_eq!((both.at_most(ms(60)), both.at_most(ms(40)), both.at_most(ms(10))), (both, back(30, 10), back(10, 0)));
        for ((waited, stolen, elapsed, used, cpus, cap), expected) in table {
            assert_eq!(
                super::given_back(waited, stolen, elapsed, used, cpus, cap),
                expected,
                "{waited:?} {stolen:?} {elapsed:?} {used:?} {cpus}"
            );
        }
    }

    #[test]
    fn the_steal_is_read_from_the_cpu_line() {
        let ticks = rustix::param::clock_ticks_per_second();
        let stat = b"cpu  359 0 464 11717 53 0 12 4 0 0\ncpu0 148 0 196 5949 2 0 2 1 0 0\n";
        assert_eq!(super::steal_of(stat), Some(Duration::from_nanos(4 * 1_000_000_000 / ticks)));
        // A kernel before steal was counted, or something else: nothing.
        assert_eq!(super::steal_of(b"cpu  359 0 464 11717\n"), None);
        assert_eq!(super::steal_of(b"intr 5 6 7 8 9 10 11 12 13\n"), None);
        // This machine's own file parses, and a reading never goes back.
        let earlier = super::recent_steal();
        assert!(super::machine_steal() >= earlier);
    }

    #[test]
    fn a_reader_kept_from_read_to_read_agrees_with_a_fresh_one() {
        // Three busy loops on this machine's CPUs wait for one now and then; stopped,
        // their waits hold still, so a reader that kept their files open since before
        // and a fresh one must read the same, and again once one of them is gone.
        let loops: Vec<Group> = (0..3).map(|_| Group::start("while :; do :; done")).collect();
        let pids: Vec<i32> = loops.iter().map(Group::pgid).collect();
        let mut kept = super::WaitReader::default();
        let until = std::time::Instant::now() + Duration::from_secs(30);
        while kept.read(pids.clone()) == Duration::ZERO {
            assert!(std::time::Instant::now() < until, "three busy loops never waited for a CPU in 30 s");
            std::thread::sleep(Duration::from_millis(20));
        }
        let stop = |pid: i32, signal| rustix::process::kill_process(rustix::process::Pid::from_raw(pid).unwrap(), signal).unwrap();
        for &pid in &pids {
            stop(pid, rustix::process::Signal::STOP);
        }
        // A stopped thread's wait stops growing once it is off its CPU's queue.
        std::thread::sleep(Duration::from_millis(50));
        let both = (kept.read(pids.clone()), super::WaitReader::default().read(pids.clone()));
        assert_eq!(both.0, both.1);
        assert!(both.0 > Duration::ZERO);
        let mut loops = loops;
        drop(loops.pop());
        let both = (kept.read(pids.clone()), super::WaitReader::default().read(pids.clone()));
        assert_eq!(both.0, both.1, "after one loop's end");
        assert_eq!(kept.open.len(), 2, "the ended loop's file is dropped");
        // Stopped, the two left wait no more: none waited since a mark.
        kept.mark();
        kept.read(pids.clone());
        assert!(kept.waited().is_empty(), "{:?}", kept.waited());
        for &pid in &pids[..2] {
            stop(pid, rustix::process::Signal::CONT);
        }
    }

    #[test]
    fn the_run_queue_wait_of_this_process_is_read() {
        // This test's own threads have waited for a CPU now and then, or at least the
        // reading works and a gone process counts for nothing.
        let me = std::process::id() as i32;
        let _ = super::WaitReader::default().read([me]);
        assert_eq!(super::WaitReader::default().read([i32::MAX - 7]), Duration::ZERO);
        assert!(std::fs::read_to_string(format!("/proc/{me}/task/{me}/schedstat")).is_ok(), "schedstat is readable here");
    }

    #[test]
    fn a_busy_process_is_ready_and_runs_and_a_sleeping_one_is_not_ready() {
        let mut busy = std::process::Command::new("sh").args(["-c", "while :; do :; done"]).spawn().unwrap();
        let mut sleeping = std::process::Command::new("sleep").arg("30").spawn().unwrap();
        let (busy_pid, sleeping_pid) = (busy.id() as i32, sleeping.id() as i32);
        // Until the busy loop has run a little and the sleep has gone to sleep.
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        let (ready, first) = loop {
            let (ready, ran) = super::stalled([busy_pid]);
            let (sleeper_ready, _) = super::stalled([sleeping_pid]);
            if ready && !sleeper_ready && ran > Duration::ZERO {
                break (ready, ran);
            }
            assert!(std::time::Instant::now() < deadline, "the busy loop never showed as ready and running");
            std::thread::sleep(Duration::from_millis(10));
        };
        assert!(ready);
        // A process that runs shows more CPU time at a later look.
        let later = loop {
            let (_, ran) = super::stalled([busy_pid]);
            if ran > first {
                break ran;
            }
            assert!(std::time::Instant::now() < deadline, "the busy loop's CPU time never grew");
            std::thread::sleep(Duration::from_millis(10));
        };
        assert!(later > first);
        assert_eq!(super::stalled([i32::MAX - 7]), (false, Duration::ZERO));
        let _ = busy.kill();
        let _ = sleeping.kill();
        let _ = busy.wait();
        let _ = sleeping.wait();
    }

    #[test]
    fn cpu_lists_are_counted() {
        assert_eq!(super::count_cpus("0-1"), Some(2));
        assert_eq!(super::count_cpus("0-3,8,10-11"), Some(7));
        assert_eq!(super::count_cpus("5"), Some(1));
        assert_eq!(super::count_cpus("x"), None);
        assert!(super::machine_cpus() >= 1);
    }

    #[test]
    fn a_reading_never_goes_back() {
        let group = Group::start("while :; do :; done");
        let mut meter = super::CpuMeter::new(group.pgid());
        let until = std::time::Instant::now() + Duration::from_secs(30);
        let mut first = meter.read();
        while first == Duration::ZERO {
            assert!(std::time::Instant::now() < until, "a busy loop used no CPU in 30 s");
            std::thread::sleep(Duration::from_millis(5));
            first = meter.read();
        }
        meter.members.clear();
        assert_eq!(meter.read(), first);
    }
}
