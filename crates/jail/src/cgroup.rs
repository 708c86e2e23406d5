//! cgroups for bot processes: a memory cap the kernel enforces with its OOM killer, a
//! process-count cap, CPU time that survives the processes it measured, and killing
//! every process of a bot run however it detached itself (new session, double fork).
//!
//! Machines differ: a hybrid layout has the memory and pids controllers in cgroup v1
//! and `cgroup.kill` and `cpu.stat` in v2; a pure v2 machine has everything in v2; a
//! container may have nothing writable. [`detect`] looks once per process and each
//! guarantee is taken from wherever it is offered (v1 first for memory and pids, v2
//! first for killing and CPU time); what no hierarchy offers is reported missing and a
//! [`BotCgroup`] then simply does without it.
//!
//! Only the project's own cgroups are touched: a folder `arbiter` at the top of each
//! hierarchy used (left in place, since other referees may be using it), and in it
//! one child `<referee-pid>-<n>` per bot run, removed when the [`BotCgroup`] is dropped.
//! The referee holds an `flock` on each child while it lives, so a referee that died
//! without cleaning up (SIGKILL) is told from a living one whatever PID namespace it ran
//! in: the next referee to start ([`sweep`]) kills what is left in the dead one's
//! cgroups (a bot it had stopped included) and removes them.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal};

/// The folder, at the top of each hierarchy, that holds every cgroup of the project.
pub const FOLDER: &str = "arbiter";

/// How long [`BotCgroup::kill`] waits for the kernel to empty a cgroup.
const KILL_WAIT: Duration = Duration::from_secs(2);

/// How long dropping a [`BotCgroup`] retries removing a directory the kernel is still
/// emptying.
const RMDIR_WAIT: Duration = Duration::from_secs(1);

/// What this machine offers; each is `Some(where and how)` when available.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Support {
    pub memory: Option<String>,
    pub pids: Option<String>,
    pub kill: Option<String>,
    pub cpu: Option<String>,
}

/// What this machine offers: looked up on the first call, then remembered.
pub fn detect() -> Support {
    let layout = layout();
    let describe = |what: &str, base: &Path| format!("{what} under {}", base.display());
    let mut support = Support::default();
    if let Some(base) = &layout.v1.memory {
        let swap = if layout.v1.memsw { " and memory.memsw.limit_in_bytes" } else { " (swap not capped)" };
        support.memory = Some(describe(&format!("cgroup v1 memory.limit_in_bytes{swap}"), base));
    } else if let Some(v2) = layout.v2.as_ref().filter(|v2| v2.memory) {
        support.memory = Some(describe("cgroup v2 memory.max", &v2.base));
    }
    if let Some(base) = &layout.v1.pids {
        support.pids = Some(describe("cgroup v1 pids.max", base));
    } else if let Some(v2) = layout.v2.as_ref().filter(|v2| v2.pids) {
        support.pids = Some(describe("cgroup v2 pids.max", &v2.base));
    }
    if let Some(v2) = layout.v2.as_ref().filter(|v2| v2.kill) {
        support.kill = Some(describe("cgroup v2 cgroup.kill", &v2.base));
    } else if let Some(base) = &layout.v1.freezer {
        support.kill = Some(describe("cgroup v1 freezer, then SIGKILL to every member", base));
    }
    if let Some(v2) = &layout.v2 {
        support.cpu = Some(describe("cgroup v2 cpu.stat", &v2.base));
    } else if let Some(base) = &layout.v1.cpuacct {
        support.cpu = Some(describe("cgroup v1 cpuacct.usage", base));
    }
    support
}

/// The cgroup v2 hierarchy: its `arbiter` folder and what that folder offers its children.
#[derive(Debug)]
struct V2 {
    base: PathBuf,
    memory: bool,
    pids: bool,
    kill: bool,
}

/// The `arbiter` folder of each cgroup v1 controller used.
#[derive(Debug, Default)]
struct V1 {
    memory: Option<PathBuf>,
    /// Whether the memory controller also caps memory plus swap.
    memsw: bool,
    pids: Option<PathBuf>,
    cpuacct: Option<PathBuf>,
    freezer: Option<PathBuf>,
}

#[derive(Debug, Default)]
struct Layout {
    v2: Option<V2>,
    v1: V1,
}

fn layout() -> &'static Layout {
    static LAYOUT: OnceLock<Layout> = OnceLock::new();
    LAYOUT.get_or_init(|| {
        let mountinfo = fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
        probe(&mountinfo)
    })
}

/// Finds the cgroup mounts in `mountinfo` and makes (or finds) the `arbiter` folder in
/// each hierarchy needed; a hierarchy where that fails is not used. v1 controllers are
/// used for what v2 does not offer: memory and pids first, and CPU time and killing
/// only without v2.
fn probe(mountinfo: &str) -> Layout {
    let mut v2_mount = None;
    let mut v1_mounts: Vec<(PathBuf, Vec<&str>)> = Vec::new();
    for line in mountinfo.lines() {
        // "id parent dev root mountpoint options [optional...] - fstype source superoptions"
        let Some((left, right)) = line.split_once(" - ") else { continue };
        let Some(mountpoint) = left.split(' ').nth(4) else { continue };
        let mut right = right.split(' ');
        let (Some(fstype), Some(_source), Some(superoptions)) = (right.next(), right.next(), right.next()) else { continue };
        let mountpoint = PathBuf::from(unescape(mountpoint));
        match fstype {
            "cgroup2" if v2_mount.is_none() => v2_mount = Some(mountpoint),
            "cgroup" => v1_mounts.push((mountpoint, superoptions.split(',').collect())),
            _ => {}
        }
    }
    let mut layout = Layout { v2: v2_mount.as_deref().and_then(probe_v2), v1: V1::default() };
    // The `arbiter` folder of the first v1 hierarchy with `controller` whose folder has
    // `file` (the root of a v1 hierarchy lacks freezer.state and pids.max).
    let v1 = |controller: &str, file: &str| {
        let (mountpoint, _) = v1_mounts.iter().find(|(_, options)| options.contains(&controller))?;
        make_base(mountpoint).filter(|base| base.join(file).exists())
    };
    let v2 = layout.v2.as_ref();
    layout.v1.memory = v1("memory", "memory.limit_in_bytes");
    layout.v1.memsw = layout.v1.memory.as_ref().is_some_and(|base| base.join("memory.memsw.limit_in_bytes").exists());
    layout.v1.pids = v1("pids", "pids.max");
    if v2.is_none() {
        layout.v1.cpuacct = v1("cpuacct", "cpuacct.usage");
    }
    if !v2.is_some_and(|v2| v2.kill) {
        layout.v1.freezer = v1("freezer", "freezer.state");
    }
    layout
}

fn probe_v2(mountpoint: &Path) -> Option<V2> {
    let base = make_base(mountpoint)?;
    // The children of `arbiter` get the memory and pids controllers where the parent has
    // them to give (never on a hybrid machine, where v1 holds them); enabling them in
    // `arbiter` itself is all we may do, since the parent is not ours.
    let available = fs::read_to_string(base.join("cgroup.controllers")).unwrap_or_default();
    let enabled = fs::read_to_string(base.join("cgroup.subtree_control")).unwrap_or_default();
    let has = |list: &str, c: &str| list.split_ascii_whitespace().any(|x| x == c);
    let mut enable = String::new();
    for controller in ["memory", "pids"] {
        if has(&available, controller) && !has(&enabled, controller) {
            enable.push_str(&format!(" +{controller}"));
        }
    }
    if !enable.is_empty() {
        // Fails if the folder holds processes (not ours to hold any): then without.
        let _ = write(&base.join("cgroup.subtree_control"), enable.trim_start());
    }
    let enabled = fs::read_to_string(base.join("cgroup.subtree_control")).unwrap_or_default();
    Some(V2 { memory: has(&enabled, "memory"), pids: has(&enabled, "pids"), kill: base.join("cgroup.kill").exists(), base })
}

/// Makes (or finds) `<mountpoint>/arbiter` and [`sweep`]s it. `None` if the hierarchy is
/// not writable.
fn make_base(mountpoint: &Path) -> Option<PathBuf> {
    let base = mountpoint.join(FOLDER);
    match fs::create_dir(&base) {
        Ok(()) => return Some(base),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(_) => return None,
    }
    // Proof that it is writable: the test costs one mkdir and one rmdir, once.
    let probe = base.join(format!("probe-{}", std::process::id()));
    fs::create_dir(&probe).ok()?;
    let _ = fs::remove_dir(&probe);
    sweep(&base);
    Some(base)
}

/// Removes the cgroups in `base` (an `arbiter` folder) left by referees that died
/// without cleaning up, killing what is still in them (a stopped bot too: SIGKILL
/// reaches a stopped process). A child is left alone
/// while the process its name gives (`<referee-pid>-<n>`) is alive here, or while its
/// `flock` is held (a living referee whose process id is not seen from here, in another
/// PID namespace). Runs once per process when the hierarchy is first used; it does not
/// wait for the killed to leave: a child not yet empty is removed by a thread of its
/// own.
pub fn sweep(base: &Path) {
    let Ok(entries) = fs::read_dir(base) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(referee) = name.to_str().and_then(|n| n.split_once('-')).and_then(|(pid, _)| pid.parse::<u32>().ok()) else {
            continue;
        };
        if referee == std::process::id() || Path::new(&format!("/proc/{referee}")).exists() {
            continue;
        }
        let dir = entry.path();
        // Not ours to touch while some referee holds it (or it is gone already).
        let Ok(lock) = lock(&dir) else { continue };
        if !read_pids(&dir).is_empty() {
            let kill = dir.join("cgroup.kill");
            if !(kill.exists() && write(&kill, "1").is_ok()) {
                // cgroup v1: no cgroup.kill. A frozen member takes the signal when thawed.
                signal_members(&dir);
                let _ = write(&dir.join("freezer.state"), "THAWED");
            }
        }
        if fs::remove_dir(&dir).is_err() {
            // Members still leaving: wait for them off this thread (a referee may sweep
            // from async code), holding the lock until the directory is gone.
            let _ = std::thread::Builder::new().name("cgroup-sweep".into()).spawn(move || {
                wait_until(KILL_WAIT + RMDIR_WAIT, || {
                    signal_members(&dir);
                    fs::remove_dir(&dir).is_ok()
                });
                drop(lock);
            });
        }
    }
}

/// Opens `dir` and takes its `flock` without waiting; fails when another holder has it.
fn lock(dir: &Path) -> io::Result<fs::File> {
    let file = fs::File::open(dir).map_err(|e| context(dir, e))?;
    rustix::fs::flock(&file, rustix::fs::FlockOperation::NonBlockingLockExclusive).map_err(|e| context(dir, e.into()))?;
    Ok(file)
}

/// Undoes the octal escapes (`\040` for a space) of a mountinfo path.
fn unescape(field: &str) -> String {
    if !field.contains('\\') {
        return field.to_owned();
    }
    let bytes = field.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\'
            && let Some(code) = field.get(i + 1..i + 4).and_then(|s| u8::from_str_radix(s, 8).ok())
        {
            out.push(code);
            i += 4;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The cgroups of one bot run: one directory in each hierarchy that provides something
/// asked for. Dropping it kills every member and removes the directories.
#[derive(Debug)]
pub struct BotCgroup {
    /// Every directory created, in creation order; a process added goes into each.
    dirs: Vec<PathBuf>,
    /// Where each thing is read or done, as (directory, is cgroup v2).
    memory: Option<(PathBuf, bool)>,
    pids: Option<(PathBuf, bool)>,
    cpu: Option<(PathBuf, bool)>,
    kill: Option<Kill>,
    /// The `flock` of each directory, held while it exists (see [`sweep`]).
    locks: Vec<fs::File>,
    /// The files read at every move, opened once ([`Counter`]): the CPU time, and the
    /// memory cgroup's OOM events (v2 `memory.events`; v1 `memory.oom_control`).
    cpu_counter: Counter,
    memory_counter: Counter,
    /// How the bot is paused between its moves, where its cgroup can freeze it.
    freezer: Option<Freezer>,
    /// The file that lists the thread ids of every member (v2 `cgroup.threads`, v1
    /// `tasks`), kept open.
    threads_counter: Counter,
}

/// A pause the bot cannot undo: its cgroup frozen by the kernel, which no signal from
/// inside (a SIGCONT it sends itself) thaws.
#[derive(Debug)]
enum Freezer {
    /// `cgroup.freeze` (cgroup v2, Linux 5.2), opened once for writing.
    V2(fs::File),
    /// `freezer.state` (cgroup v1), opened once for writing.
    V1(fs::File),
}

impl Freezer {
    fn set(&self, frozen: bool) -> io::Result<()> {
        use std::os::unix::fs::FileExt;
        let text: &[u8] = match (self, frozen) {
            (Freezer::V2(_), true) => b"1",
            (Freezer::V2(_), false) => b"0",
            (Freezer::V1(_), true) => b"FROZEN",
            (Freezer::V1(_), false) => b"THAWED",
        };
        let (Freezer::V2(file) | Freezer::V1(file)) = self;
        file.write_at(text, 0).map(drop)
    }
}

/// A cgroup file read again and again (at every move, or while a CPU limit runs), kept
/// open and read from its start: an open of a cgroup file costs several times its read
/// (about 6.8 µs against 1.2 µs here, `docs/benchmarks.md`). After the cgroup is removed
/// the read fails, as a fresh open would. For the small files it holds (a few lines, far
/// under its buffer of 4 KiB), one read gives the whole file.
#[derive(Debug, Default)]
struct Counter(OnceLock<Option<fs::File>>, Option<PathBuf>);

impl Counter {
    fn of(path: PathBuf) -> Counter {
        Counter(OnceLock::new(), Some(path))
    }

    /// The file's whole text now, or `None` when there is no such file.
    fn read(&self) -> Option<String> {
        use std::os::unix::fs::FileExt;
        let path = self.1.as_ref()?;
        let file = self.0.get_or_init(|| fs::File::open(path).ok()).as_ref()?;
        let mut buffer = [0u8; 4096];
        match file.read_at(&mut buffer, 0) {
            // Longer than the buffer: read it whole the long way.
            Ok(n) if n == buffer.len() => fs::read_to_string(path).ok(),
            Ok(n) => std::str::from_utf8(&buffer[..n]).ok().map(str::to_string),
            Err(_) => None,
        }
    }
}

#[derive(Debug)]
enum Kill {
    /// Writing `1` to `cgroup.kill` (cgroup v2, Linux 5.14).
    V2(PathBuf),
    /// Freezing, signalling every member, thawing (cgroup v1 freezer).
    Freezer(PathBuf),
}

impl BotCgroup {
    /// Makes the cgroups of one bot run, with a memory cap (bytes, swap included where
    /// the kernel can cap it) and a process-count cap, in every hierarchy that offers what
    /// is needed. On a machine without writable cgroups this holds nothing and every
    /// method does nothing.
    fn empty() -> BotCgroup {
        BotCgroup {
            dirs: Vec::new(),
            memory: None,
            pids: None,
            cpu: None,
            kill: None,
            locks: Vec::new(),
            cpu_counter: Counter::default(),
            memory_counter: Counter::default(),
            freezer: None,
            threads_counter: Counter::default(),
        }
    }

    /// Makes this run's cgroups, with the caps set. Blocking: making a cgroup waits for
    /// the kernel's cgroup lock, which another cgroup's move may hold for a grace period
    /// of the kernel's (some 10 ms here); async code starts bots with
    /// `Process::spawn_async`.
    pub fn create(memory: Option<u64>, pids: Option<u64>) -> io::Result<BotCgroup> {
        testing::delay_create();
        static RUNS: AtomicU64 = AtomicU64::new(0);
        let layout = layout();
        let name = format!("{}-{}", std::process::id(), RUNS.fetch_add(1, Ordering::Relaxed));
        let mut cg = BotCgroup::empty();
        // Directories are pushed as they are made, so that an error drops what exists.
        if let Some(v2) = &layout.v2 {
            let dir = cg.make_dir(&v2.base, &name)?;
            if let Some(bytes) = memory.filter(|_| v2.memory && layout.v1.memory.is_none()) {
                write(&dir.join("memory.max"), &bytes.to_string())?;
                // Swap would let a bot hold twice its cap; not every kernel has the file.
                let _ = write(&dir.join("memory.swap.max"), "0");
                cg.memory = Some((dir.clone(), true));
            }
            if let Some(n) = pids.filter(|_| v2.pids && layout.v1.pids.is_none()) {
                write(&dir.join("pids.max"), &n.to_string())?;
                cg.pids = Some((dir.clone(), true));
            }
            if v2.kill {
                cg.kill = Some(Kill::V2(dir.clone()));
            }
            cg.cpu = Some((dir, true));
        }
        if let (Some(bytes), Some(base)) = (memory, &layout.v1.memory) {
            let dir = cg.make_dir(base, &name)?;
            // The cap must be in place before any process is added: charges made while
            // uncapped would not be refused.
            write(&dir.join("memory.limit_in_bytes"), &bytes.to_string())?;
            if layout.v1.memsw {
                write(&dir.join("memory.memsw.limit_in_bytes"), &bytes.to_string())?;
            }
            cg.memory = Some((dir, false));
        }
        if let (Some(n), Some(base)) = (pids, &layout.v1.pids) {
            let dir = cg.make_dir(base, &name)?;
            write(&dir.join("pids.max"), &n.to_string())?;
            cg.pids = Some((dir, false));
        }
        if cg.cpu.is_none()
            && let Some(base) = &layout.v1.cpuacct
        {
            let dir = cg.make_dir(base, &name)?;
            cg.cpu = Some((dir, false));
        }
        if cg.kill.is_none()
            && let Some(base) = &layout.v1.freezer
        {
            let dir = cg.make_dir(base, &name)?;
            cg.kill = Some(Kill::Freezer(dir));
        }
        if let Some((dir, v2)) = &cg.cpu {
            cg.cpu_counter = Counter::of(dir.join(if *v2 { "cpu.stat" } else { "cpuacct.usage" }));
        }
        if let Some((dir, v2)) = &cg.memory {
            cg.memory_counter = Counter::of(dir.join(if *v2 { "memory.events" } else { "memory.oom_control" }));
        }
        // The v2 cgroup freezes on its own (`cgroup.freeze`, no controller needed); a v1
        // machine without it freezes in its freezer hierarchy.
        let open = |path: PathBuf| fs::OpenOptions::new().write(true).open(&path).map_err(|e| context(&path, e));
        if let Some(v2) = cg.dirs.first().filter(|_| layout.v2.is_some()).map(|dir| dir.join("cgroup.freeze")).filter(|f| f.exists()) {
            cg.freezer = Some(Freezer::V2(open(v2)?));
        } else if let Some(Kill::Freezer(dir)) = &cg.kill {
            cg.freezer = Some(Freezer::V1(open(dir.join("freezer.state"))?));
        }
        if let Some(dir) = cg.members_dir() {
            let v2 = layout.v2.is_some();
            cg.threads_counter = Counter::of(dir.join(if v2 { "cgroup.threads" } else { "tasks" }));
        }
        Ok(cg)
    }

    /// Whether the bot can be frozen ([`BotCgroup::freeze`]).
    pub fn can_freeze(&self) -> bool {
        self.freezer.is_some()
    }

    /// Freezes every member: none runs again until [`BotCgroup::thaw`], whatever it
    /// does (the kernel traps each at its next return to user space). Does not wait for
    /// the last to stop.
    pub fn freeze(&self) -> io::Result<()> {
        match &self.freezer {
            Some(freezer) => freezer.set(true),
            None => Err(io::Error::new(io::ErrorKind::Unsupported, "no freezer for this cgroup")),
        }
    }

    /// Lets every member run again.
    pub fn thaw(&self) -> io::Result<()> {
        match &self.freezer {
            Some(freezer) => freezer.set(false),
            None => Err(io::Error::new(io::ErrorKind::Unsupported, "no freezer for this cgroup")),
        }
    }

    /// The thread ids of every member.
    pub fn threads(&self) -> Vec<i32> {
        self.threads_counter.read().map(|text| text.lines().filter_map(|line| line.trim().parse().ok()).collect()).unwrap_or_default()
    }

    /// Makes `<base>/<name>` (or reuses the directory of the same name that it finds
    /// once it is made: two v1 controllers may share one hierarchy).
    fn make_dir(&mut self, base: &Path, name: &str) -> io::Result<PathBuf> {
        let dir = base.join(name);
        if self.dirs.contains(&dir) {
            return Ok(dir);
        }
        match fs::create_dir(&dir) {
            Ok(()) => {}
            // Left by a dead referee that had our process id: empty, or else not ours to
            // reuse.
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                fs::remove_dir(&dir).and_then(|()| fs::create_dir(&dir)).map_err(|e| context(&dir, e))?
            }
            Err(e) => return Err(context(&dir, e)),
        }
        self.dirs.push(dir.clone());
        // Nobody else can hold it: a sweep skips the cgroups of a live process id.
        self.locks.push(lock(&dir)?);
        Ok(dir)
    }

    /// Moves process `pid` into every cgroup of this run; the children it starts later
    /// are born there. Add a process before it starts anything.
    pub fn add(&self, pid: i32) -> io::Result<()> {
        let pid = pid.to_string();
        for dir in &self.dirs {
            write(&dir.join("cgroup.procs"), &pid)?;
        }
        Ok(())
    }

    /// The CPU time (user + system) of every process that has been a member, including
    /// those gone.
    pub fn cpu_time(&self) -> Option<Duration> {
        let (_, v2) = self.cpu.as_ref()?;
        let text = self.cpu_counter.read()?;
        if *v2 { field(&text, "usage_usec").map(Duration::from_micros) } else { text.trim().parse().ok().map(Duration::from_nanos) }
    }

    /// The most memory (bytes) the members used at once, where the kernel records it.
    pub fn memory_peak(&self) -> Option<u64> {
        let (dir, v2) = self.memory.as_ref()?;
        let file = if *v2 { "memory.peak" } else { "memory.max_usage_in_bytes" };
        fs::read_to_string(dir.join(file)).ok()?.trim().parse().ok()
    }

    /// Whether the kernel's OOM killer acted because the memory cap was reached.
    ///
    /// This counts OOM events, not the times the cap was touched (v1 `memory.failcnt`,
    /// v2 `max`): those also count page cache reclaimed when a bot writes a big file,
    /// which is not a memory fault.
    pub fn hit_memory_limit(&self) -> bool {
        let Some((dir, v2)) = &self.memory else { return false };
        if *v2 {
            let events = self.memory_counter.read().unwrap_or_default();
            field(&events, "oom").is_some_and(|n| n > 0) || field(&events, "oom_kill").is_some_and(|n| n > 0)
        } else {
            let control = self.memory_counter.read().unwrap_or_default();
            match field(&control, "oom_kill") {
                Some(n) => n > 0 || field(&control, "under_oom").is_some_and(|n| n > 0),
                // Kernels before 4.13 do not count OOM kills.
                None => {
                    fs::read_to_string(dir.join("memory.failcnt")).ok().and_then(|s| s.trim().parse::<u64>().ok()).is_some_and(|n| n > 0)
                }
            }
        }
    }

    /// Whether a process failed to start because the process-count cap was reached.
    pub fn hit_pids_limit(&self) -> bool {
        let Some((dir, _)) = &self.pids else { return false };
        let events = fs::read_to_string(dir.join("pids.events")).unwrap_or_default();
        field(&events, "max").is_some_and(|n| n > 0)
    }

    /// [`BotCgroup::kill`] from async code: the waits run on a blocking thread, so the
    /// runtime's threads go on serving other tasks (a kill may wait up to [`KILL_WAIT`]).
    pub async fn kill_async(self: &Arc<Self>) {
        let group = Arc::clone(self);
        let _ = tokio::task::spawn_blocking(move || group.kill()).await;
    }

    /// Kills every member, wherever it moved in the process tree, and waits (at most
    /// [`KILL_WAIT`]) until the kernel has removed them all. Blocking: async code calls
    /// [`BotCgroup::kill_async`].
    pub fn kill(&self) {
        testing::delay();
        match &self.kill {
            Some(Kill::V2(dir)) => {
                let _ = write(&dir.join("cgroup.kill"), "1");
            }
            Some(Kill::Freezer(dir)) => {
                // Frozen processes cannot fork, so the list read is complete; SIGKILL
                // takes effect when they thaw, and a process with SIGKILL pending
                // cannot fork either.
                if write(&dir.join("freezer.state"), "FROZEN").is_ok() {
                    wait_until(KILL_WAIT, || fs::read_to_string(dir.join("freezer.state")).is_ok_and(|s| s.trim() != "FREEZING"));
                }
                signal_members(dir);
                let _ = write(&dir.join("freezer.state"), "THAWED");
            }
            None => {}
        }
        let Some(dir) = self.members_dir() else { return };
        wait_until(KILL_WAIT, || {
            let pids = read_pids(dir);
            if pids.is_empty() {
                return true;
            }
            // No freezer and no cgroup.kill, or a member that escaped the freeze: the
            // pids cap bounds how many can appear between two rounds.
            if !matches!(self.kill, Some(Kill::V2(_))) {
                signal_members(dir);
            }
            false
        });
    }

    /// The members: the process ids of every process in this run's cgroups.
    pub fn pids(&self) -> Vec<i32> {
        self.members_dir().map(read_pids).unwrap_or_default()
    }

    /// Every directory this run created (removed when it is dropped).
    pub fn dirs(&self) -> &[PathBuf] {
        &self.dirs
    }

    /// The directory whose `cgroup.procs` is read for the members.
    fn members_dir(&self) -> Option<&Path> {
        self.dirs.first().map(PathBuf::as_path)
    }
}

impl Drop for BotCgroup {
    /// Kills what is left and removes the directories. When a tokio runtime is running,
    /// all of it is done on one of its blocking threads, never on the thread that drops
    /// the cgroup; else here.
    fn drop(&mut self) {
        // A cleanup's own cgroup ends here once its directories are gone.
        if self.dirs.is_empty() {
            return;
        }
        // The counters' files closed before the directories go.
        self.cpu_counter = Counter::default();
        self.memory_counter = Counter::default();
        self.threads_counter = Counter::default();
        self.freezer = None;
        let group = BotCgroup {
            dirs: std::mem::take(&mut self.dirs),
            memory: None,
            pids: None,
            cpu: None,
            kill: self.kill.take(),
            locks: std::mem::take(&mut self.locks),
            cpu_counter: Counter::default(),
            memory_counter: Counter::default(),
            freezer: None,
            threads_counter: Counter::default(),
        };
        let mut cleanup = Cleanup { group };
        // Even an empty cgroup's removal waits for the kernel's cgroup lock, which a move
        // into another cgroup may hold for a grace period (8 ms on a lane's thread, seen
        // with `perf`): all of it on a blocking thread.
        crate::off_the_runtime(move || {
            if !cleanup.try_now() {
                cleanup.finish();
            }
        });
    }
}

/// What a dropped [`BotCgroup`] leaves to do: a cgroup with only its directories and
/// its way to kill.
struct Cleanup {
    group: BotCgroup,
}

impl Cleanup {
    /// Removes the directories if nothing is left in them, without waiting; true when
    /// all are gone.
    fn try_now(&mut self) -> bool {
        if !self.group.pids().is_empty() {
            return false;
        }
        testing::delay_remove();
        let gone = self.group.dirs.iter().rev().all(|dir| match fs::remove_dir(dir) {
            Ok(()) => true,
            Err(e) => e.kind() == io::ErrorKind::NotFound,
        });
        if gone {
            self.group.dirs.clear();
        }
        gone
    }

    /// Kills the members and removes the directories, waiting as long as needed (at most
    /// [`KILL_WAIT`] and [`RMDIR_WAIT`] per directory).
    fn finish(mut self) {
        self.finish_here();
    }

    fn finish_here(&mut self) {
        if !self.group.pids().is_empty() {
            self.group.kill();
        }
        for dir in std::mem::take(&mut self.group.dirs).iter().rev() {
            // The last members may still be leaving after the list read empty.
            wait_until(RMDIR_WAIT, || match fs::remove_dir(dir) {
                Ok(()) => true,
                Err(e) => e.kind() == io::ErrorKind::NotFound,
            });
        }
    }
}

impl Drop for Cleanup {
    /// A cleanup dropped before it ran (a runtime shutting down refuses new blocking
    /// work and drops it) finishes here, on this thread: dropping its cgroup instead
    /// would hand the same cleanup to the same runtime again, without end.
    fn drop(&mut self) {
        if !self.group.dirs.is_empty() {
            self.finish_here();
        }
    }
}

/// A hook for tests of callers: makes every [`BotCgroup::kill`] take longer, as a
/// cgroup whose members are slow to leave would. Zero (no delay) unless a test sets it.
#[doc(hidden)]
pub mod testing {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::time::Duration;

    static DELAY_MS: AtomicU64 = AtomicU64::new(0);
    static CREATE_DELAY_MS: AtomicU64 = AtomicU64::new(0);
    static REMOVE_DELAY_MS: AtomicU64 = AtomicU64::new(0);

    /// Every kill from now on first waits `delay` (zero: no wait).
    pub fn slow_kills(delay: Duration) {
        DELAY_MS.store(delay.as_millis() as u64, Ordering::Relaxed);
    }

    /// Every [`BotCgroup::create`](super::BotCgroup::create) from now on first waits
    /// `delay` (zero: no wait), as the kernel makes a cgroup's directory wait behind
    /// another's move into its cgroup.
    pub fn slow_creates(delay: Duration) {
        CREATE_DELAY_MS.store(delay.as_millis() as u64, Ordering::Relaxed);
    }

    /// Every removal of a dropped cgroup's directories from now on first waits `delay`
    /// (zero: no wait), as the kernel makes a cgroup's removal wait behind another's move
    /// into its cgroup.
    pub fn slow_removals(delay: Duration) {
        REMOVE_DELAY_MS.store(delay.as_millis() as u64, Ordering::Relaxed);
    }

    pub(super) fn delay() {
        sleep(&DELAY_MS);
    }

    pub(super) fn delay_remove() {
        sleep(&REMOVE_DELAY_MS);
    }

    pub(super) fn delay_create() {
        sleep(&CREATE_DELAY_MS);
    }

    fn sleep(millis: &AtomicU64) {
        let ms = millis.load(Ordering::Relaxed);
        if ms > 0 {
            std::thread::sleep(Duration::from_millis(ms));
        }
    }
}

/// SIGKILL to every process listed in `dir/cgroup.procs`.
fn signal_members(dir: &Path) {
    for pid in read_pids(dir) {
        if let Some(pid) = Pid::from_raw(pid) {
            let _ = rustix::process::kill_process(pid, Signal::KILL);
        }
    }
}

fn read_pids(dir: &Path) -> Vec<i32> {
    let procs = fs::read_to_string(dir.join("cgroup.procs")).unwrap_or_default();
    procs.lines().filter_map(|l| l.trim().parse().ok()).collect()
}

/// The value of `key` in a cgroup file of "key value" lines.
fn field(text: &str, key: &str) -> Option<u64> {
    text.lines().find_map(|l| l.strip_prefix(key)?.strip_prefix(' ')?.trim().parse().ok())
}

/// Polls `done` (backing off from 50 µs to 5 ms) until it holds or `limit` has passed.
fn wait_until(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let until = Instant::now() + limit;
    let mut pause = Duration::from_micros(50);
    loop {
        if done() {
            return true;
        }
        if Instant::now() >= until {
            return false;
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(5));
    }
}

/// Writes `value` to an existing cgroup file in one `write`, as the kernel expects.
fn write(path: &Path, value: &str) -> io::Result<()> {
    let mut file = fs::OpenOptions::new().write(true).open(path).map_err(|e| context(path, e))?;
    file.write_all(value.as_bytes()).map_err(|e| context(path, e))
}

fn context(path: &Path, e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("cgroup {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const HYBRID: &str = "\
25 24 0:22 / /sys/fs/cgroup ro,nosuid - tmpfs tmpfs ro,mode=755
26 25 0:23 / /sys/fs/cgroup/unified rw,nosuid - cgroup2 cgroup2 rw
30 25 0:27 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid shared:12 - cgroup cgroup rw,cpu,cpuacct
31 25 0:28 / /sys/fs/cgroup/my\\040memory rw,nosuid - cgroup cgroup rw,memory
";

    #[test]
    fn parses_mountinfo_fields() {
        assert_eq!(unescape("/sys/fs/cgroup/my\\040memory"), "/sys/fs/cgroup/my memory");
        assert_eq!(field("usage_usec 1234\nuser_usec 1000\n", "usage_usec"), Some(1234));
        assert_eq!(field("oom 0\noom_kill 3\n", "oom"), Some(0));
        assert_eq!(field("oom_kill 3\n", "oom"), None);
        // Nothing under those paths exists here (or they are not writable): nothing used,
        // and nothing fails.
        let layout = probe(&HYBRID.replace("/sys/fs/cgroup", "/nonexistent/cgroup"));
        assert!(layout.v2.is_none() && layout.v1.memory.is_none() && layout.v1.cpuacct.is_none());
    }

    #[test]
    fn nothing_to_use_means_nothing_done() {
        let cg = BotCgroup::empty();
        assert!(cg.add(std::process::id() as i32).is_ok());
        assert_eq!(cg.cpu_time(), None);
        assert_eq!(cg.memory_peak(), None);
        assert!(!cg.hit_memory_limit() && !cg.hit_pids_limit());
        assert!(cg.pids().is_empty());
        cg.kill();
    }

    /// The v1 freezer path, used where there is no `cgroup.kill`: a shell that starts
    /// processes as fast as it can, with no process cap, is still emptied in one kill.
    /// Runs where a v1 freezer is mounted (this machine kind); a pure v2 machine uses
    /// `cgroup.kill` and has nothing to test here.
    #[test]
    fn freezer_kills_a_process_spawning_loop() {
        use std::io::Write as _;
        let mountinfo = fs::read_to_string("/proc/self/mountinfo").unwrap();
        let Some(mountpoint) = mountinfo.lines().find_map(|l| {
            let (left, right) = l.split_once(" - ")?;
            right.starts_with("cgroup ").then_some(())?;
            right.rsplit(' ').next()?.split(',').any(|o| o == "freezer").then_some(())?;
            Some(PathBuf::from(unescape(left.split(' ').nth(4)?)))
        }) else {
            eprintln!("no cgroup v1 freezer here: cgroup.kill is used instead");
            return;
        };
        let base = make_base(&mountpoint).expect("the v1 freezer is mounted but not writable (run as root)");
        let mut cg = BotCgroup::empty();
        let dir = cg.make_dir(&base, &format!("{}-freezer-test", std::process::id())).unwrap();
        cg.kill = Some(Kill::Freezer(dir.clone()));
        let script = "read _; i=0; while [ $i -lt 3000 ]; do sleep 1000 & i=$((i+1)); done; wait";
        let mut child = std::process::Command::new("/bin/sh").args(["-c", script]).stdin(std::process::Stdio::piped()).spawn().unwrap();
        cg.add(child.id() as i32).unwrap();
        child.stdin.take().unwrap().write_all(b"go\n").unwrap();
        assert!(wait_until(Duration::from_secs(10), || cg.pids().len() > 100), "the loop never got going");
        cg.kill();
        assert!(cg.pids().is_empty(), "{} processes survived the kill", cg.pids().len());
        use std::os::unix::process::ExitStatusExt as _;
        assert_eq!(child.wait().unwrap().signal(), Some(9));
        assert_eq!(fs::read_to_string(dir.join("freezer.state")).unwrap().trim(), "THAWED");
        drop(cg);
        assert!(!dir.exists());
    }
}
