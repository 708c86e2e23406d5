//! The only crate that starts bot processes: each in its own process group, with a
//! memory cap, kill-on-drop of the whole group, pausing between moves, bounded reads
//! of its stdout, its stderr drained concurrently into a bounded per-move log, and CPU
//! time accounted over the group. Every wait is under a [`Deadline`].

use std::ffi::OsString;
use std::io;
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rustix::process::{Pid, Resource, Rlimit, Signal};

/// How much CPU time a bot that has answered may use to settle before it is paused
/// anyway ([`Process::pause`]): an honest engine settles in microseconds; a bot that
/// keeps a thread busy gains no more than this, charged to its clock.
pub const SETTLE_CPU: Duration = Duration::from_millis(5);

/// How long the referee waits at most for a bot to settle when the machine gives it no
/// CPU (a safety bound: settling takes microseconds of the bot's CPU).
pub const SETTLE_WALL: Duration = Duration::from_millis(250);

/// The CPU time a paused bot may be found to have used from its pause to its resumption
/// (what its threads ran before the stop took hold) before it counts as having undone
/// the pause ([`Process::resume`]).
pub const PAUSE_SLACK: Duration = Duration::from_millis(10);

/// How much nicer than the referee bots run (capped at 19): at the referee's usual 0 and
/// a bot's 10, the scheduler gives the referee about nine tenths of a core it shares
/// with a busy bot.
pub const BOT_NICE: i32 = 10;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, ChildStdin};

pub mod affinity;
pub mod cgroup;
mod cpu;
pub use sandbox::netns;
mod orphans;
#[doc(hidden)]
pub mod ticker;

pub use cpu::{CpuMeter, Waits, group_cpu_time};

/// How to start a bot process.
#[derive(Clone, Debug)]
pub struct Command {
    pub program: PathBuf,
    pub args: Vec<OsString>,
    /// The bot's working directory (its own, fresh for each game).
    pub cwd: PathBuf,
    /// Variables added to the environment.
    pub env: Vec<(OsString, OsString)>,
    pub limits: Limits,
    /// Confinement by the sandbox helper, or `None` for a trusted bot.
    pub sandbox: Option<Sandbox>,
    /// A process for one move: never paused, it ends with its move. Without the sandbox
    /// such a process is not named to the keeper of plain processes (`orphans.rs`), nor,
    /// in the keeper's absence, given the parent-death signal (a fork of the referee, about
    /// a millisecond of its CPU a start, on every move): a process never stopped cannot be
    /// left stopped by its referee's death.
    pub per_move: bool,
}

impl Command {
    /// Whether a failed [`Process::spawn`] is the bot's doing (its program is missing, not
    /// executable or not a program) rather than ours (out of descriptors, processes or
    /// memory, no temporary folder, no cgroup). Through the sandbox the program started
    /// is our own helper, so every failure to start it is ours; the helper reports a bot
    /// it cannot start by exiting with a message on stderr.
    pub fn blames_program(&self, err: &io::Error) -> bool {
        use nix::errno::Errno;
        if self.sandbox.is_some() {
            return false;
        }
        let Some(code) = err.raw_os_error() else { return false };
        matches!(
            Errno::from_raw(code),
            Errno::ENOENT
                | Errno::EACCES
                | Errno::ENOEXEC
                | Errno::ENOTDIR
                | Errno::ELOOP
                | Errno::ETXTBSY
                | Errno::ENAMETOOLONG
                | Errno::EISDIR
        )
    }
}

/// How the sandbox confines a bot (see `crates/sandbox` and `docs/security.md`): the
/// helper program restricts itself (namespaces, a root of the bot's own, rlimits,
/// Landlock, seccomp, a clean environment) and starts the bot; the bot runs in cgroups of
/// its own (memory, process count, CPU time, kill of everything it started, a freezer);
/// a lifeline FIFO kills it when the referee dies.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sandbox {
    /// The helper program, `arbiter-sandbox`.
    pub helper: PathBuf,
    /// The bot's own folders, which it may read besides the system (its manifest's
    /// folder): never anything taken from its command.
    pub read_only: Vec<PathBuf>,
    /// Its network: none, or the referee's listener in a namespace of the bot's own.
    pub net: Net,
    /// A root of its own ([`sandbox::root`]): `None` where this machine cannot build one
    /// (then Landlock alone holds it to its folders; `arbiter sandbox-check` says so).
    pub root: Option<sandbox::Root>,
    /// Most processes (and threads) at once.
    pub processes: Option<u64>,
    /// Largest file it may write, bytes.
    pub file_size: Option<u64>,
    /// Most open files.
    pub open_files: Option<u64>,
    /// Whether to put the bot in cgroups (when the machine offers them).
    pub cgroups: bool,
}

/// The network a sandboxed bot gets.
#[derive(Clone, Debug, Default)]
pub enum Net {
    /// None at all (a network namespace of its own, no sockets).
    #[default]
    None,
    /// A network namespace the referee made for it ([`netns::NetNamespace`]), where the
    /// referee listens on `127.0.0.1:port`; TCP connections to that port alone.
    Listener { namespace: Arc<netns::NetNamespace>, port: u16 },
    /// TCP connections to `127.0.0.1:port` of the host's network: the fallback where no
    /// namespace can be made (Landlock and seccomp alone hold the bot to the port).
    HostPort(u16),
}

impl PartialEq for Net {
    fn eq(&self, other: &Net) -> bool {
        match (self, other) {
            (Net::None, Net::None) => true,
            (Net::Listener { namespace: a, port: p }, Net::Listener { namespace: b, port: q }) => Arc::ptr_eq(a, b) && p == q,
            (Net::HostPort(p), Net::HostPort(q)) => p == q,
            _ => false,
        }
    }
}

impl Eq for Net {}

/// Resource limits of one process (and everything it starts).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Address-space cap in bytes (`RLIMIT_AS`), inherited by the bot's children.
    pub memory: Option<u64>,
    /// The longest stdout line read; a longer one is a protocol error.
    pub line_cap: usize,
    /// The most stdout bytes read in one answer of a per-move process.
    pub output_cap: usize,
    /// The most stderr bytes kept per move; the rest is counted and dropped.
    pub stderr_cap: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { memory: None, line_cap: 64 * 1024, output_cap: 1024 * 1024, stderr_cap: 64 * 1024 }
    }
}

/// Until when a wait may last: a wall-clock instant and a cap on the CPU time the
/// process group has used in all (for CPU budgets such as Connect Four's), and whether
/// the time the bot waits for a CPU moves the wall-clock instant (`credit`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Deadline {
    pub wall: Option<Instant>,
    pub cpu: Option<Duration>,
    pub credit: Option<Credit>,
}

impl Deadline {
    pub fn wall_in(duration: Duration) -> Deadline {
        Deadline { wall: Some(Instant::now() + duration), cpu: None, credit: None }
    }
}

/// A wall-clock limit that does not count the time the bot was ready to run but waited
/// for a CPU (the kernel's run-queue wait of its tasks), nor the time the machine's host
/// took from it (steal): the readings when its clock started, and the most it may be
/// given back. See [`Process::credit`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Credit {
    pub start: Instant,
    /// [`Process::waits`] when the clock started.
    pub wait: Waits,
    /// [`Process::cpu_time`] when the clock started.
    pub cpu: Duration,
    /// The most given back: a machine that never lets the bot run still ends the turn.
    pub cap: Duration,
}

/// Which limit ran out.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TimeLimit {
    Wall,
    Cpu,
}

/// Why a read, a write or a wait gave up.
#[derive(Debug, PartialEq, Eq, Clone)]
pub enum Failure {
    Timeout(TimeLimit),
    /// The bot closed its stdout (or exited) before answering.
    Eof,
    /// A line or an answer longer than the cap.
    TooLong(usize),
    /// Its stdin was closed already.
    StdinClosed,
    /// Writing to its stdin failed (the pipe broke: the bot is gone).
    Write(String),
    /// Reading its stdout failed.
    Read(String),
    /// Waiting for it to exit failed.
    Wait(String),
    /// The sandbox's helper did not start a move as it must (it ended or answered before
    /// it was ready, or the move could not be framed for it).
    Sandbox(String),
}

impl Failure {
    /// Whether the bot's pipes are gone (its output closed, a write, read or wait
    /// failed): how it exited then says what happened. A timeout or an over-long line
    /// is not.
    pub fn ended(&self) -> bool {
        !matches!(self, Failure::Timeout(_) | Failure::TooLong(_))
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Timeout(TimeLimit::Wall) => write!(f, "out of time"),
            Failure::Timeout(TimeLimit::Cpu) => write!(f, "out of CPU time"),
            Failure::Eof => write!(f, "closed its output before answering"),
            Failure::TooLong(cap) => write!(f, "wrote more than {cap} bytes without a line end"),
            Failure::StdinClosed => write!(f, "stdin is closed"),
            Failure::Write(err) => write!(f, "cannot write to the bot: {err}"),
            Failure::Read(err) => write!(f, "cannot read from the bot: {err}"),
            Failure::Wait(err) | Failure::Sandbox(err) => write!(f, "{err}"),
        }
    }
}

/// The stderr a bot wrote during one move, bounded.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Log {
    pub text: String,
    /// Bytes written beyond the cap and dropped; 0 when nothing was cut.
    pub dropped: u64,
}

impl Log {
    pub fn is_truncated(&self) -> bool {
        self.dropped > 0
    }
}

/// The read end of a bot's stderr and what was read from it. Bytes are read only while
/// the log's lock is held, so every byte is either still in the pipe or in the log:
/// a reader that takes the lock and drains the pipe sees everything written so far.
struct StderrPipe {
    pipe: tokio::net::unix::pipe::Receiver,
    log: Mutex<LogBuffer>,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Drained {
    Open,
    Closed,
}

impl StderrPipe {
    /// Reads everything the pipe holds now into the log (bounded), without waiting.
    fn drain(&self) -> Drained {
        let mut log = self.log.lock().expect("stderr log lock");
        let read = drain_now(&self.pipe, |bytes| {
            let kept = log.cap.saturating_sub(log.bytes.len()).min(bytes.len());
            log.bytes.extend_from_slice(&bytes[..kept]);
            log.dropped += (bytes.len() - kept) as u64;
            true
        });
        read.unwrap_or(Drained::Closed)
    }
}

#[derive(Default)]
struct LogBuffer {
    bytes: Vec<u8>,
    dropped: u64,
    cap: usize,
}

/// A running bot process. Dropping it kills its whole process group.
pub struct Process {
    child: Child,
    pgid: Pid,
    stdin: Option<ChildStdin>,
    stdout: tokio::net::unix::pipe::Receiver,
    pending: Vec<u8>,
    stdout_closed: bool,
    stderr: Arc<StderrPipe>,
    stderr_task: tokio::task::JoinHandle<()>,
    limits: Limits,
    cpu: CpuSource,
    /// The sandbox's lifeline: the helper kills the bot when this closes.
    _lifeline: Option<std::fs::File>,
    /// The sandbox helper's status FIFO (held open read-write, so it never ends): the
    /// bot's wait status arrives there before the helper tears its namespaces down, or
    /// a zygote's after each move.
    status: Option<tokio::net::unix::pipe::Receiver>,
    /// Whether this is a zygote ([`Process::spawn_zygote`]).
    zygote: bool,
    _lifeline_dir: Option<tempfile::TempDir>,
    started: Instant,
    exit: Option<ExitStatus>,
    /// Whether the keeper of plain processes holds its group (`orphans.rs`), until the
    /// leader is reaped.
    kept: bool,
    /// Whether the leader has been reaped. From then on its process group id is ours only
    /// while a member of the group lives, so the group is killed at that moment
    /// ([`Process::ended`]) and never signalled again: a later signal could reach another
    /// program's group that got the same id.
    reaped: bool,
    paused: bool,
    /// What the bot's pause started from, and whether its cgroup froze it.
    paused_at: Option<(PauseMark, bool)>,
    /// Its threads' states, read while it settles ([`Process::pause`]).
    states: cpu::StateReader,
    /// The CPU of the lane (`referee::lanes`) it was started on: its pipes are watched
    /// by that lane's runtime.
    lane: Option<usize>,
    /// The bot's working folder as the referee reaches it, in the bot's own root
    /// (`/proc/PID/root/box`), when it has one: see [`Process::files`].
    files: Option<PathBuf>,
    /// Whether a zygote's first message, [`sandbox::status::READY`], has been read.
    announced: bool,
    /// Whether the bot's disk quota was full when it (or its last move) ended, as the
    /// helper told.
    disk_full: bool,
}

impl Process {
    /// Starts the program in a new process group with piped stdin, stdout and stderr
    /// (through the sandbox helper when the command has a sandbox).
    pub fn spawn(command: &Command) -> io::Result<Process> {
        Process::start(command, false)
    }

    /// [`Process::spawn`] from async code. A sandboxed start waits on the kernel (the
    /// helper's `exec`, its cgroups made and joined: a cgroup's lock may be held for a
    /// grace period, some 10 ms), so it runs on a blocking thread and the runtime's
    /// threads go on serving the other games; a plain start (a `vfork` and `exec`, as
    /// tokio's own spawn) runs here.
    pub async fn spawn_async(command: &Command) -> io::Result<Process> {
        if command.sandbox.is_none() {
            return Process::spawn(command);
        }
        let command = command.clone();
        let lane = affinity::lane_cpu();
        let mut process = tokio::task::spawn_blocking(move || Process::spawn(&command))
            .await
            // Cancelled when the runtime shuts down (a match stopped early).
            .unwrap_or_else(|cancelled| Err(io::Error::other(cancelled)))?;
        process.lane = lane;
        process.cpu.on_lane.store(lane.is_some(), std::sync::atomic::Ordering::Relaxed);
        Ok(process)
    }

    /// The CPU of the lane the process was started on (`None`: not on a pinned lane).
    pub fn lane(&self) -> Option<usize> {
        self.lane
    }

    /// Starts a zygote for a per-move interface: the sandbox helper with its cgroups,
    /// namespaces and confinement, kept for a series of moves, each of which starts one
    /// process of the command inside it ([`Process::run_move`]). A command without a
    /// sandbox has no helper to keep: an `InvalidInput` error.
    pub fn spawn_zygote(command: &Command) -> io::Result<Process> {
        if command.sandbox.is_none() {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, "only a sandboxed command has a zygote"));
        }
        Process::start(command, true)
    }

    /// Whether the process's end is known from the sandbox helper's report, before the
    /// helper's own exit (see [`Process::kill`]): once it has ended, killing the rest can
    /// be left to a task of its own.
    pub fn reports_end(&self) -> bool {
        self.status.is_some()
    }

    fn start(command: &Command, zygote: bool) -> io::Result<Process> {
        let mut lifeline_dir = None;
        let mut lifeline = None;
        let mut status = None;
        let mut cmd = match &command.sandbox {
            None => {
                let mut cmd = tokio::process::Command::new(&command.program);
                cmd.args(&command.args).envs(command.env.iter().map(|(k, v)| (k, v)));
                cmd
            }
            Some(sandbox) => {
                // The lifeline: a FIFO in a folder of the referee's that the referee
                // holds open read-write for the bot's whole life.
                let dir = tempfile::Builder::new().prefix("arbiter-lifeline-").tempdir()?;
                let fifo = dir.path().join("lifeline");
                nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRUSR | nix::sys::stat::Mode::S_IWUSR).map_err(io::Error::from)?;
                lifeline = Some(std::fs::OpenOptions::new().read(true).write(true).open(&fifo)?);
                let mut policy = sandbox::Policy::new(&command.cwd, &fifo);
                policy.zygote = zygote;
                let status_fifo = dir.path().join("status");
                nix::unistd::mkfifo(&status_fifo, nix::sys::stat::Mode::S_IRUSR | nix::sys::stat::Mode::S_IWUSR)
                    .map_err(io::Error::from)?;
                status = Some(tokio::net::unix::pipe::OpenOptions::new().read_write(true).open_receiver(&status_fifo)?);
                policy.status = Some(status_fifo);
                // Real paths: the bot's root is built from them, and a link on the way would
                // be followed inside that root, where it leads nowhere.
                policy.read_only = sandbox.read_only.iter().map(|p| std::fs::canonicalize(p).unwrap_or_else(|_| p.clone())).collect();
                policy.system = sandbox::machine::system().clone();
                policy.root = sandbox.root.clone();
                if policy.root.is_some() {
                    policy.workdir = std::fs::canonicalize(&command.cwd).unwrap_or_else(|_| command.cwd.clone());
                }
                // A memory cgroup caps what the bot really uses; the address-space rlimit
                // is only the fallback (it also binds the helper, whose threads reserve
                // address space, so a small cap could keep it from starting the bot).
                let cgroup_memory = sandbox.cgroups && cgroup::detect().memory.is_some();
                policy.memory = if cgroup_memory { None } else { command.limits.memory };
                policy.processes = sandbox.processes.or(policy.processes);
                policy.file_size = sandbox.file_size.or(policy.file_size);
                policy.open_files = sandbox.open_files.or(policy.open_files);
                policy.net = match &sandbox.net {
                    Net::None => sandbox::Net::None,
                    Net::Listener { port, .. } => sandbox::Net::Given(*port),
                    Net::HostPort(port) => sandbox::Net::Connect(*port),
                };
                policy.env =
                    command.env.iter().map(|(k, v)| (k.to_string_lossy().into_owned(), v.to_string_lossy().into_owned())).collect();
                lifeline_dir = Some(dir);
                let mut cmd = tokio::process::Command::new(&sandbox.helper);
                cmd.args(policy.to_args()).arg(&command.program).args(&command.args);
                cmd
            }
        };
        cmd.current_dir(&command.cwd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .kill_on_drop(true);
        let started = Instant::now();
        // A plain process has no lifeline: the keeper kills it when the referee ends (but
        // for a per-move one: see `Command::per_move`).
        let kept = command.sandbox.is_none() && !command.per_move;
        let mut child = match command.sandbox.as_ref().map(|s| &s.net) {
            // Started from a thread inside the bot's network namespace, which it inherits.
            Some(Net::Listener { namespace, .. }) => {
                let runtime = tokio::runtime::Handle::try_current().map_err(io::Error::other)?;
                namespace.run(|| {
                    let _entered = runtime.enter();
                    cmd.spawn()
                })?
            }
            _ if kept => orphans::spawn(cmd)?,
            _ => cmd.spawn()?,
        };
        let raw = child.id().and_then(|id| i32::try_from(id).ok()).expect("a just-started child has an id");
        let pgid = Pid::from_raw(raw).expect("child ids are positive");
        // Below the referee's CPU priority: on a busy machine the referee still reads an
        // answer, and stops the bot's clock, at once. Inherited by what the bot starts;
        // behind the sandbox helper it is in place before the go byte starts the bot.
        let own = rustix::process::getpriority_process(None).unwrap_or(0);
        let _ = rustix::process::setpriority_process(Some(pgid), (own + BOT_NICE).min(19));
        let mut cgroup = None;
        match (&command.sandbox, lifeline.as_mut()) {
            (Some(sandbox), Some(lifeline)) => {
                // Into the cgroups before the helper starts the bot, then the go byte.
                let support = cgroup::detect();
                if sandbox.cgroups
                    && (support.memory.is_some() || support.pids.is_some() || support.kill.is_some() || support.cpu.is_some())
                {
                    let group = cgroup::BotCgroup::create(command.limits.memory, sandbox.processes)?;
                    group.add(raw)?;
                    cgroup = Some(Arc::new(group));
                }
                use std::io::Write;
                lifeline.write_all(b"g")?;
            }
            _ => {
                // Without the helper the limits are set from outside right after the start.
                if let Some(bytes) = command.limits.memory {
                    let _ = rustix::process::prlimit(Some(pgid), Resource::As, Rlimit { current: Some(bytes), maximum: Some(bytes) });
                }
                let _ = rustix::process::prlimit(Some(pgid), Resource::Core, Rlimit { current: Some(0), maximum: Some(0) });
            }
        }
        // Through the helper's own entry in /proc: its root is the bot's once built.
        let files = command
            .sandbox
            .as_ref()
            .and_then(|s| s.root.as_ref())
            .filter(|root| root.work == sandbox::Work::Copy)
            .map(|_| PathBuf::from(format!("/proc/{raw}/root")).join(sandbox::root::BOX.trim_start_matches('/')));
        let stdin = child.stdin.take();
        let stdout = tokio::net::unix::pipe::Receiver::from_owned_fd(child.stdout.take().expect("stdout is piped").into_owned_fd()?)?;
        let stderr_fd = child.stderr.take().expect("stderr is piped").into_owned_fd()?;
        let stderr = Arc::new(StderrPipe {
            pipe: tokio::net::unix::pipe::Receiver::from_owned_fd(stderr_fd)?,
            log: Mutex::new(LogBuffer { cap: command.limits.stderr_cap, ..LogBuffer::default() }),
        });
        let drain = Arc::clone(&stderr);
        let stderr_task = tokio::spawn(async move {
            // Drain whenever there is something to read, so the bot never blocks on a
            // full pipe. Reading happens under the log's lock (see `StderrPipe`).
            while drain.pipe.readable().await.is_ok() {
                if drain.drain() == Drained::Closed {
                    break;
                }
            }
        });
        Ok(Process {
            child,
            pgid,
            stdin,
            stdout,
            pending: Vec::new(),
            stdout_closed: false,
            stderr,
            stderr_task,
            limits: command.limits,
            cpu: CpuSource {
                meter: Mutex::new(CpuMeter::new(raw)),
                waits: Mutex::default(),
                cgroup,
                leader: raw,
                on_lane: std::sync::atomic::AtomicBool::new(affinity::lane_cpu().is_some()),
                given: Mutex::new(None),
                turn_cpu: Mutex::new(None),
                helper_threads: Mutex::new(Vec::new()),
            },
            _lifeline: lifeline,
            status,
            zygote,
            _lifeline_dir: lifeline_dir,
            started,
            exit: None,
            kept: kept && orphans::kept(),
            reaped: false,
            paused: false,
            paused_at: None,
            states: cpu::StateReader::default(),
            lane: affinity::lane_cpu(),
            files,
            announced: false,
            disk_full: false,
        })
    }

    pub fn id(&self) -> i32 {
        self.pgid.as_raw_nonzero().get()
    }

    /// Time since the process was started.
    pub fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    /// CPU time used so far by the process group (live members and the children they
    /// have reaped).
    pub fn cpu_time(&self) -> Duration {
        self.cpu.read()
    }

    /// How long the bot's tasks have been ready to run but waiting for a CPU, summed
    /// (the kernel's run-queue wait, `/proc/PID/task/TID/schedstat`): every task of its
    /// cgroup in the sandbox, else every thread of the process the referee started.
    pub fn cpu_wait(&self) -> Duration {
        self.cpu.wait()
    }

    /// Moves the bot's processes and their threads to `cpu` ([`affinity::move_to`]):
    /// every process of its cgroup in the sandbox, else the one the referee started. For
    /// a process started on one lane (`referee::lanes`) and taken by a game on another.
    pub fn move_to_cpu(&self, cpu: usize) {
        self.cpu.on_lane.store(true, std::sync::atomic::Ordering::Relaxed);
        affinity::move_to(self.cpu.pids(), cpu);
    }

    /// The readings a turn's [`Credit`] starts from: [`Process::cpu_wait`] and the
    /// machine's steal ([`cpu::recent_steal`]).
    pub fn waits(&self) -> Waits {
        let queue = self.cpu_wait();
        // The threads that wait from here on are those whose CPUs the credit counts, and
        // the CPU time the bot uses from here on is what fills them.
        self.cpu.waits.lock().expect("wait reader lock").mark();
        *self.cpu.turn_cpu.lock().expect("turn cpu lock") = Some(self.cpu.read());
        Waits { queue, steal: cpu::recent_steal() }
    }

    /// What a turn clocked from `credit` gives back ([`cpu::given_back`]): the bot's wait
    /// for a CPU since then, but no more than the time the bot did not itself fill every
    /// CPU of the machine (a bot whose own threads outnumber the CPUs waits behind
    /// itself, which is not given back); and of the machine's steal since then, no more
    /// than the time the bot neither ran nor waited; both within the credit's cap.
    pub fn credit(&self, credit: &Credit) -> Waits {
        self.cpu.credit(credit)
    }

    /// Writes to the bot's stdin.
    pub async fn send(&mut self, bytes: &[u8], deadline: Deadline) -> Result<(), Failure> {
        let Some(stdin) = self.stdin.as_mut() else {
            return Err(Failure::StdinClosed);
        };
        let write = async {
            stdin.write_all(bytes).await?;
            stdin.flush().await
        };
        match watch(&self.cpu, deadline, write).await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(err)) => Err(Failure::Write(err.to_string())),
            Err(limit) => Err(Failure::Timeout(limit)),
        }
    }

    /// Closes the bot's stdin (end of input for per-move processes).
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// Reads one line from stdout, without its line end (`\n` or `\r\n`).
    pub async fn read_line(&mut self, deadline: Deadline) -> Result<String, Failure> {
        let cap = self.limits.line_cap;
        loop {
            if let Some(line) = take_line(&mut self.pending) {
                return Ok(line);
            }
            if self.pending.len() > cap {
                return Err(Failure::TooLong(cap));
            }
            if self.stdout_closed {
                return Err(Failure::Eof);
            }
            self.fill(deadline).await?;
        }
    }

    /// Reads stdout to its end (for per-move processes), at most `output_cap` bytes.
    pub async fn read_to_end(&mut self, deadline: Deadline) -> Result<Vec<u8>, Failure> {
        let cap = self.limits.output_cap;
        while !self.stdout_closed {
            if self.pending.len() > cap {
                return Err(Failure::TooLong(cap));
            }
            self.fill(deadline).await?;
        }
        Ok(std::mem::take(&mut self.pending))
    }

    /// Reads what stdout holds next, within the deadline. When the wall-clock time is up,
    /// what the pipe holds at that moment is still taken: the referee looks at the
    /// deadline, and an answer that came while the referee itself was late to look (its
    /// thread kept from a CPU, its machine's CPUs taken by the host) was in time as far
    /// as anyone can tell; each such look reads at most a chunk, and the line cap bounds
    /// them.
    async fn fill(&mut self, deadline: Deadline) -> Result<(), Failure> {
        let mut chunk = [0u8; 8192];
        let stdout = &mut self.stdout;
        let read = match watch(&self.cpu, deadline, stdout.read(&mut chunk)).await {
            Ok(read) => read,
            Err(TimeLimit::Wall) => match read_now(stdout, &mut chunk) {
                Ok(n) => Ok(n),
                Err(_) => return Err(Failure::Timeout(TimeLimit::Wall)),
            },
            Err(limit) => return Err(Failure::Timeout(limit)),
        };
        match read {
            Ok(0) => {
                self.stdout_closed = true;
                Ok(())
            }
            Ok(n) => {
                self.pending.extend_from_slice(&chunk[..n]);
                Ok(())
            }
            Err(err) => Err(Failure::Read(err.to_string())),
        }
    }

    /// Waits for the process itself to exit while buffering its stdout (at most
    /// `output_cap` bytes), then kills the rest of its group (children it left behind
    /// may hold the pipe open) and returns the whole output. For per-move processes,
    /// whose time runs from start to exit.
    pub async fn run_to_exit(&mut self, deadline: Deadline) -> Result<(ExitStatus, Vec<u8>), Failure> {
        let cap = self.limits.output_cap;
        let status = loop {
            if self.pending.len() > cap {
                return Err(Failure::TooLong(cap));
            }
            if self.stdout_closed {
                break self.wait(deadline).await?;
            }
            let mut chunk = [0u8; 8192];
            let (child, stdout, status) = (&mut self.child, &mut self.stdout, &mut self.status);
            let step = async {
                tokio::select! {
                    status = exited(child, status) => Step::Exited(status),
                    read = stdout.read(&mut chunk) => Step::Read(read),
                }
            };
            match watch(&self.cpu, deadline, step).await {
                Err(limit) => return Err(Failure::Timeout(limit)),
                Ok(Step::Exited(Ok(exit))) => {
                    self.ended(exit);
                    break exit.status();
                }
                Ok(Step::Gone(Ok(status))) => {
                    self.ended(Exit::Reaped(status));
                    break status;
                }
                Ok(Step::Exited(Err(err)) | Step::Gone(Err(err))) => return Err(Failure::Wait(err.to_string())),
                Ok(Step::Read(Ok(0))) => self.stdout_closed = true,
                Ok(Step::Read(Ok(n))) => self.pending.extend_from_slice(&chunk[..n]),
                Ok(Step::Read(Err(err))) => return Err(Failure::Read(err.to_string())),
            }
        };
        // What the process wrote before it exited is in the pipe: kill the stragglers
        // that could keep it open (done already if the leader was reaped), then read it
        // to the end.
        self.kill_group();
        let drain = Deadline::wall_in(Duration::from_secs(1));
        let output = self.read_to_end(drain).await?;
        Ok((status, output))
    }

    /// One move of a zygote ([`Process::spawn_zygote`]): sends `input` (framed, with the
    /// variables `env` the move's process gets besides the command's) for the move's process, buffers stdout (at most `output_cap` bytes) until that process has
    /// ended and the zygote has killed whatever it left, then takes what is left in the
    /// pipe. Its stderr is read as any process's ([`Process::take_stderr`]). When the
    /// zygote itself ends instead, its status comes back and [`Process::try_exit`] has it.
    pub async fn run_move(&mut self, input: &[u8], env: &[(String, String)], deadline: Deadline) -> Result<(ExitStatus, Vec<u8>), Failure> {
        if !self.zygote {
            return Err(Failure::Sandbox("not a zygote".to_string()));
        }
        self.ready(deadline).await?;
        let frame = sandbox::helper::frame(input, env).map_err(|err| Failure::Sandbox(err.to_string()))?;
        self.send(&frame, deadline).await?;
        let cap = self.limits.output_cap;
        let status = loop {
            if self.pending.len() > cap {
                return Err(Failure::TooLong(cap));
            }
            let mut chunk = [0u8; 8192];
            let mut raw = [0u8; sandbox::status::LEN];
            let closed = self.stdout_closed;
            let (child, stdout, fifo) = (&mut self.child, &mut self.stdout, self.status.as_mut().expect("a zygote has a status FIFO"));
            let step = async {
                tokio::select! {
                    // The zygote writes a message at once (less than a pipe's atomic write).
                    read = fifo.read_exact(&mut raw) => Step::Exited(read.map(|_| Exit::told(raw))),
                    gone = child.wait() => Step::Gone(gone),
                    read = stdout.read(&mut chunk), if !closed => Step::Read(read),
                }
            };
            match watch(&self.cpu, deadline, step).await {
                Err(limit) => return Err(Failure::Timeout(limit)),
                Ok(Step::Exited(Ok(exit))) => {
                    self.disk_full = exit.disk_full();
                    break exit.status();
                }
                Ok(Step::Exited(Err(err)) | Step::Gone(Err(err))) => return Err(Failure::Wait(err.to_string())),
                Ok(Step::Gone(Ok(status))) => {
                    self.ended(Exit::Reaped(status));
                    break status;
                }
                Ok(Step::Read(Ok(0))) => self.stdout_closed = true,
                Ok(Step::Read(Ok(n))) => self.pending.extend_from_slice(&chunk[..n]),
                Ok(Step::Read(Err(err))) => return Err(Failure::Read(err.to_string())),
            }
        };
        // Everything the move's processes wrote is in the pipe by now: they have all ended.
        let pending = &mut self.pending;
        let drained = drain_now(&self.stdout, |bytes| {
            pending.extend_from_slice(bytes);
            pending.len() <= cap
        });
        match drained {
            Ok(Drained::Closed) => self.stdout_closed = true,
            Ok(Drained::Open) => {}
            Err(err) => return Err(Failure::Read(err.to_string())),
        }
        if self.pending.len() > cap {
            return Err(Failure::TooLong(cap));
        }
        Ok((status, std::mem::take(&mut self.pending)))
    }

    /// Waits until a zygote has its bot's root in place ([`sandbox::status::READY`]), once;
    /// at once for any other process. The referee reaches the bot's working folder
    /// ([`Process::files`]) only after this.
    pub async fn ready(&mut self, deadline: Deadline) -> Result<(), Failure> {
        if !self.zygote || self.announced {
            return Ok(());
        }
        let mut raw = [0u8; sandbox::status::LEN];
        let (child, fifo) = (&mut self.child, self.status.as_mut().expect("a zygote has a status FIFO"));
        let step = async {
            tokio::select! {
                read = fifo.read_exact(&mut raw) => Step::Exited(read.map(|_| Exit::told(raw))),
                gone = child.wait() => Step::Gone(gone),
            }
        };
        match watch(&self.cpu, deadline, step).await {
            Err(limit) => Err(Failure::Timeout(limit)),
            Ok(Step::Exited(Ok(Exit::Ready))) => {
                self.announced = true;
                Ok(())
            }
            Ok(Step::Exited(Ok(exit))) => Err(Failure::Sandbox(format!("the sandbox sent {:?} before it was ready", exit.status()))),
            Ok(Step::Gone(Ok(status))) => {
                self.ended(Exit::Reaped(status));
                Err(Failure::Sandbox(format!("the sandbox ended before it was ready: {status}")))
            }
            Ok(Step::Exited(Err(err)) | Step::Gone(Err(err))) => Err(Failure::Sandbox(err.to_string())),
            Ok(Step::Read(_)) => unreachable!("no read is raced here"),
        }
    }

    /// Where the referee reaches the bot's working folder: in a root of the bot's own, its
    /// `/box` through the helper's `/proc` entry (for a zygote, once [`Process::ready`]:
    /// the folder lives as long as the sandbox does); `None` where the working folder is
    /// the one the command gave (`Command::cwd`).
    pub fn files(&self) -> Option<&std::path::Path> {
        self.files.as_deref()
    }

    /// Whether the bot's disk quota (its working folder, `/tmp` and `/dev/shm` together)
    /// is full: as the helper told at the bot's (or its last move's) end, or, while it
    /// runs in a root of its own, as its working folder shows now.
    pub fn disk_full(&self) -> bool {
        self.disk_full || (self.exit.is_none() && self.files.as_deref().is_some_and(sandbox::status::is_full))
    }

    /// Waits for the process to exit.
    pub async fn wait(&mut self, deadline: Deadline) -> Result<ExitStatus, Failure> {
        if let Some(status) = self.exit {
            return Ok(status);
        }
        match watch(&self.cpu, deadline, exited(&mut self.child, &mut self.status)).await {
            Ok(Ok(exit)) => {
                self.ended(exit);
                Ok(exit.status())
            }
            Ok(Err(err)) => Err(Failure::Wait(err.to_string())),
            Err(limit) => Err(Failure::Timeout(limit)),
        }
    }

    /// The exit status if the process has exited, without waiting.
    pub fn try_exit(&mut self) -> Option<ExitStatus> {
        if self.exit.is_none()
            && let Some(status) = self.child.try_wait().ok().flatten()
        {
            self.ended(Exit::Reaped(status));
        }
        self.exit
    }

    /// The memory cap the process runs under, bytes.
    pub fn memory_cap(&self) -> Option<u64> {
        self.limits.memory
    }

    /// Whether the bot ran into its memory cap (an OOM kill in its cgroup).
    pub fn memory_exceeded(&self) -> bool {
        self.cpu.cgroup.as_ref().is_some_and(|group| group.hit_memory_limit())
    }

    /// Whether the bot ran into its process cap (its cgroup refused a fork).
    pub fn processes_exceeded(&self) -> bool {
        self.cpu.cgroup.as_ref().is_some_and(|group| group.hit_pids_limit())
    }

    /// Pauses the bot so that it cannot think on the opponent's time, once it has settled.
    ///
    /// First it may settle: until every thread of it is asleep (blocked in a read, a
    /// wait, a sleep), at most [`SETTLE_CPU`] of its CPU time, so that no thread of an engine that has
    /// just answered is stopped halfway through what it does after its answer (clearing
    /// its "thinking" flag) and finds itself out of step when it runs again. The time
    /// is the bot's (returned, for its clock): a bot that keeps a thread busy gains
    /// nothing from it. Then its cgroup is frozen, which nothing it does can undo (the
    /// sandbox); a plain process's group is stopped (SIGSTOP), and [`Process::resume`]
    /// checks that it stayed stopped.
    pub async fn pause(&mut self) -> Duration {
        if self.paused || self.reaped {
            return Duration::ZERO;
        }
        let settled = self.settle().await;
        let frozen = self.cpu.cgroup.as_ref().filter(|group| group.can_freeze()).is_some_and(|group| group.freeze().is_ok());
        if !frozen {
            let _ = rustix::process::kill_process_group(self.pgid, Signal::STOP);
        }
        self.paused = true;
        self.paused_at = Some((self.cpu.mark(), frozen));
        settled
    }

    /// Waits until every thread of the bot is asleep, or it has used [`SETTLE_CPU`]
    /// meanwhile (a bot that keeps a thread busy), or [`SETTLE_WALL`] has passed (a
    /// machine that gives it no CPU), giving up the CPU between looks: on a lane the
    /// bot's threads share the referee's CPU. Returns the time charged to the bot.
    async fn settle(&mut self) -> Duration {
        let began = Instant::now();
        let cpu_before = self.cpu.read();
        loop {
            let threads = self.cpu.threads();
            if self.states.all_asleep(threads) {
                break;
            }
            // A bot that keeps a thread busy: it has had its share.
            if self.cpu.read().saturating_sub(cpu_before) >= SETTLE_CPU || began.elapsed() >= SETTLE_WALL {
                break;
            }
            rustix::thread::sched_yield();
            tokio::task::yield_now().await;
        }
        // Its own time: at most what it could have used of a CPU.
        began.elapsed().min(SETTLE_CPU)
    }

    /// Lets a paused bot run again. `Err(cpu)`: the bot ran while it was paused, `cpu`
    /// of CPU time beyond what its pause allows ([`PAUSE_SLACK`]): it undid the pause
    /// (a stopped plain process that is sent SIGCONT, by itself or a helper of its own),
    /// a fault of its own. A frozen bot cannot run at all.
    pub fn resume(&mut self) -> Result<(), Duration> {
        if !self.paused {
            return Ok(());
        }
        self.paused = false;
        let paused_at = self.paused_at.take();
        if self.reaped {
            return Ok(());
        }
        let ran = paused_at.as_ref().map(|(mark, _)| self.cpu.ran_since(mark));
        match (&paused_at, &self.cpu.cgroup) {
            (Some((_, true)), Some(group)) => {
                let _ = group.thaw();
            }
            _ => {
                let _ = rustix::process::kill_process_group(self.pgid, Signal::CONT);
            }
        }
        match ran {
            Some(ran) if ran > PAUSE_SLACK => Err(ran),
            _ => Ok(()),
        }
    }

    /// Whether the bot is paused ([`Process::pause`]).
    pub fn is_paused(&self) -> bool {
        self.paused
    }

    /// Kills the process group, unless its leader was reaped (then it was killed at that
    /// moment, and its id may belong to another group by now).
    fn kill_group(&self) {
        if !self.reaped {
            let _ = rustix::process::kill_process_group(self.pgid, Signal::KILL);
        }
    }

    /// Kills the whole process group (and the bot's cgroups, which hold what left the
    /// group) and reaps the leader.
    pub async fn kill(&mut self) {
        self.kill_group();
        if let Some(group) = &self.cpu.cgroup {
            group.kill_async().await;
        }
        if !self.reaped {
            let _ = self.child.start_kill();
            if let Ok(status) = self.child.wait().await {
                self.ended(Exit::Reaped(status));
            }
        }
    }

    /// Notes the process's exit. When its leader has been reaped, its process id may be
    /// given again once its group is empty: the group is killed now, while the id is
    /// still its own (what is left of the group keeps the id taken), and never signalled
    /// after; and the keeper of plain processes lets the group go.
    fn ended(&mut self, exit: Exit) {
        if self.exit.is_none() {
            self.exit = Some(exit.status());
            self.disk_full |= exit.disk_full();
            // The helper writes what it tells of the bot's end before it exits itself: a
            // reaped helper's message is in the pipe, if it was not read.
            if let (Exit::Reaped(_), Some(fifo)) = (exit, &self.status) {
                let mut raw = [0u8; sandbox::status::LEN];
                if read_now(fifo, &mut raw).ok() == Some(raw.len()) {
                    self.disk_full |= Exit::told(raw).disk_full();
                }
            }
        }
        if let Exit::Reaped(_) = exit
            && !self.reaped
        {
            let _ = rustix::process::kill_process_group(self.pgid, Signal::KILL);
            self.reaped = true;
            if std::mem::take(&mut self.kept) {
                orphans::forget(self.id());
            }
        }
    }

    /// The stderr written since the last call (at most the cap). Everything the bot wrote
    /// before this call is in it: what is still in the pipe is drained first.
    pub async fn take_stderr(&mut self) -> Log {
        self.stderr.drain();
        let mut log = self.stderr.log.lock().expect("stderr log lock");
        let text = String::from_utf8_lossy(&log.bytes).into_owned();
        let dropped = log.dropped;
        log.bytes.clear();
        log.dropped = 0;
        Log { text, dropped }
    }

    /// Waits (up to `limit`) for the stderr pipe to close, for per-move processes whose
    /// log must be complete.
    pub async fn finish_stderr(&mut self, limit: Duration) {
        let _ = tokio::time::timeout(limit, &mut self.stderr_task).await;
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        // Kill the whole group, not just the leader: children must not outlive the bot.
        self.kill_group();
        // Before the leader is reaped (after this, by the runtime): its id is still ours.
        if self.kept {
            orphans::forget(self.id());
        }
        self.stderr_task.abort();
        // The lifeline's folder is removed off the runtime's threads: removing a folder
        // can wait for the disk (a discard, 0.2-0.4 ms on this project's machines). Its
        // FIFOs are closed there too, after the folder has gone: the last close of a FIFO
        // whose folder is gone frees the folder, and with it its block (the same discard,
        // seen with `perf` on the lanes' threads). The status pipe leaves the runtime's
        // reactor here. A task the runtime drops unrun still does all this, as it drops
        // what it holds.
        if let Some(dir) = self._lifeline_dir.take() {
            let lifeline = self._lifeline.take();
            let status = self.status.take().and_then(|pipe| pipe.into_blocking_fd().ok());
            off_the_runtime(move || {
                drop(dir);
                drop((lifeline, status));
            });
        }
    }
}

/// Runs `work` on a blocking thread of the current tokio runtime, without waiting for it
/// (a runtime shutting down drops it unrun, and with it what it holds), or here when no
/// runtime is running: for a drop's work that may wait on the kernel.
pub(crate) fn off_the_runtime(work: impl FnOnce() + Send + 'static) {
    match tokio::runtime::Handle::try_current() {
        Ok(runtime) => drop(runtime.spawn_blocking(work)),
        Err(_) => work(),
    }
}

/// Reads what a pipe holds now, without waiting. Tokio's own `try_read` reads nothing
/// while the runtime has not yet seen the pipe become readable, so bytes already in it
/// could be left for later (a move's last output after its status, a move's stderr for
/// the next move's log): when it finds nothing, the system call is made directly. The
/// `try_read` first keeps the runtime's idea of the pipe right (it forgets a readiness
/// that found nothing), so that a task waiting for the pipe to be readable does not spin.
fn read_now(pipe: &tokio::net::unix::pipe::Receiver, buffer: &mut [u8]) -> io::Result<usize> {
    match pipe.try_read(buffer) {
        Err(err) if err.kind() == io::ErrorKind::WouldBlock => rustix::io::read(pipe, buffer).map_err(io::Error::from),
        read => read,
    }
}

/// Reads what `pipe` holds now ([`read_now`]), handing each piece to `take`, until the
/// pipe is empty ([`Drained::Open`]), closed ([`Drained::Closed`]) or `take` says stop
/// (`false`: counted as open).
fn drain_now(pipe: &tokio::net::unix::pipe::Receiver, mut take: impl FnMut(&[u8]) -> bool) -> io::Result<Drained> {
    let mut chunk = [0u8; 16 * 1024];
    loop {
        match read_now(pipe, &mut chunk) {
            Ok(0) => return Ok(Drained::Closed),
            Ok(n) => {
                if !take(&chunk[..n]) {
                    return Ok(Drained::Open);
                }
            }
            Err(err) if err.kind() == io::ErrorKind::WouldBlock => return Ok(Drained::Open),
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            Err(err) => return Err(err),
        }
    }
}

/// Takes the first complete line out of `buffer`, without its line end (`\n` or
/// `\r\n`); `None` while the buffer holds no line end. Bytes that are not UTF-8 are
/// replaced.
pub fn take_line(buffer: &mut Vec<u8>) -> Option<String> {
    let end = buffer.iter().position(|&b| b == b'\n')?;
    let mut line: Vec<u8> = buffer.drain(..=end).collect();
    line.pop();
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    Some(String::from_utf8_lossy(&line).into_owned())
}

/// Waits for the bot's end: its wait status from the sandbox helper's status FIFO when
/// there is one (sent before the helper's own exit, which tears the bot's namespaces
/// down), else the process's exit.
async fn exited(child: &mut Child, status: &mut Option<tokio::net::unix::pipe::Receiver>) -> io::Result<Exit> {
    let Some(fifo) = status.as_mut() else { return child.wait().await.map(Exit::Reaped) };
    loop {
        let mut raw = [0u8; sandbox::status::LEN];
        let exit = tokio::select! {
            exited = child.wait() => exited.map(Exit::Reaped),
            // The helper writes a message at once (less than a pipe's atomic write).
            read = fifo.read_exact(&mut raw) => read.map(|_| Exit::told(raw)),
        };
        // A zygote's readiness, not yet taken by `Process::ready`, is no end.
        if !matches!(exit, Ok(Exit::Ready)) {
            return exit;
        }
    }
}

/// How a process's end was learnt.
#[derive(Copy, Clone, Debug)]
enum Exit {
    /// The leader was reaped: its process id is free for the system to give again once
    /// no member of its group is left.
    Reaped(ExitStatus),
    /// The sandbox helper's status FIFO told the bot's status, and whether its disk quota
    /// was full; the helper (the leader) is not reaped yet, so its id stays ours.
    Told(ExitStatus, bool),
    /// A zygote's first message, [`sandbox::status::READY`], where an end was awaited:
    /// read before the first move ([`Process::ready`]), it never comes here.
    Ready,
}

impl Exit {
    fn told(raw: [u8; sandbox::status::LEN]) -> Exit {
        use std::os::unix::process::ExitStatusExt;
        match sandbox::status::decode(raw) {
            sandbox::status::Message::Ready => Exit::Ready,
            sandbox::status::Message::Ended { status, disk_full } => Exit::Told(ExitStatus::from_raw(status), disk_full),
        }
    }

    fn status(self) -> ExitStatus {
        use std::os::unix::process::ExitStatusExt;
        match self {
            Exit::Reaped(status) | Exit::Told(status, _) => status,
            // Never awaited as an end (see above); taken as a failed start if it were.
            Exit::Ready => ExitStatus::from_raw(125 << 8),
        }
    }

    fn disk_full(self) -> bool {
        matches!(self, Exit::Told(_, true))
    }
}

enum Step {
    Exited(io::Result<Exit>),
    /// A zygote ended (not a move's process).
    Gone(io::Result<ExitStatus>),
    Read(io::Result<usize>),
}

/// Where a process's CPU time comes from: its cgroup when it has one (exact, children
/// and daemons included), else the group's processes in `/proc`.
struct CpuSource {
    meter: Mutex<CpuMeter>,
    /// The bot's threads' run-queue waits, their files kept open between reads.
    waits: Mutex<cpu::WaitReader>,
    cgroup: Option<Arc<cgroup::BotCgroup>>,
    /// The process the referee started (the group's leader).
    leader: i32,
    /// Whether it runs on a lane's CPU (started on a lane, or moved to one).
    on_lane: std::sync::atomic::AtomicBool,
    /// The most a turn's credit gave back so far, and the start of that turn.
    given: Mutex<Option<(Instant, Waits)>>,
    /// The bot's CPU time when its turn's readings were taken ([`Process::waits`]).
    turn_cpu: Mutex<Option<Duration>>,
    /// The threads of the sandbox helper's first stage (the leader), read until both
    /// are there.
    helper_threads: Mutex<Vec<i32>>,
}

impl CpuSource {
    /// The bot's processes whose threads are read for waits: its cgroup's in the
    /// sandbox, else the one the referee started.
    fn pids(&self) -> Vec<i32> {
        match &self.cgroup {
            Some(group) => group.pids(),
            None => vec![self.leader],
        }
    }

    /// The run-queue wait of the bot's processes: in the sandbox, every process of its
    /// cgroup but the helper's first stage (ours: its threads wake when the bot is
    /// frozen and thawed, and their waits are not the bot's).
    fn wait(&self) -> Duration {
        let Some(group) = &self.cgroup else {
            return self.waits.lock().expect("wait reader lock").read([self.leader]);
        };
        // Every thread of the cgroup, one file kept open, less the helper's (its two
        // threads, its own and the lifeline's watcher, are made at its start and never
        // more: read again until both are there).
        let mut helper = self.helper_threads.lock().expect("helper threads lock");
        if helper.len() < 2 {
            *helper = cpu::threads_of([self.leader]);
        }
        let mut threads = group.threads();
        threads.retain(|tid| !helper.contains(tid));
        self.waits.lock().expect("wait reader lock").read_threads(threads)
    }

    /// The thread ids of the bot: every thread of its cgroup in the sandbox, else the
    /// threads of the process the referee started.
    fn threads(&self) -> Vec<i32> {
        match &self.cgroup {
            Some(group) => group.threads(),
            None => cpu::threads_of([self.leader]),
        }
    }

    /// What tells later whether a paused bot ran ([`CpuSource::ran_since`]): its
    /// cgroup's CPU time (exact, whatever ended), else its known processes' own clocks
    /// (a child reaped meanwhile, whose time a group's reading takes in at its next scan,
    /// must not look like running).
    fn mark(&self) -> PauseMark {
        match self.cgroup.as_ref().and_then(|group| group.cpu_time()) {
            Some(time) => PauseMark::Cgroup(time),
            None => PauseMark::Clocks(self.meter.lock().expect("cpu meter lock").clocks()),
        }
    }

    /// The CPU time the bot used since `mark`.
    fn ran_since(&self, mark: &PauseMark) -> Duration {
        match mark {
            PauseMark::Cgroup(then) => self.cgroup.as_ref().and_then(|group| group.cpu_time()).unwrap_or(*then).saturating_sub(*then),
            PauseMark::Clocks(clocks) => clocks.ran(),
        }
    }

    /// [`cpu::stalled`] of the bot's processes.
    fn stalled(&self) -> (bool, Duration) {
        cpu::stalled(self.pids())
    }

    /// What a turn clocked from `credit` gives back now, and never less than it gave
    /// at an earlier look of the same turn: the processes of a move that have ended take
    /// their waits with them, and the record must say what the deadline was given.
    fn credit(&self, credit: &Credit) -> Waits {
        let waited = self.wait().saturating_sub(credit.wait.queue);
        let stolen = cpu::machine_steal().saturating_sub(credit.wait.steal);
        // From the turn's start ([`Process::waits`]): what the bot used before (its start,
        // its settling after an earlier move) does not fill this turn's CPUs.
        let before = self.turn_cpu.lock().expect("turn cpu lock").unwrap_or(credit.cpu).max(credit.cpu);
        let used = self.read().saturating_sub(before);
        let now = cpu::given_back(waited, stolen, credit.start.elapsed(), used, self.cpus(), credit.cap);
        let mut given = self.given.lock().expect("credit lock");
        match *given {
            Some((start, earlier)) if start == credit.start && earlier.total() >= now.total() => earlier,
            _ => {
                *given = Some((credit.start, now));
                now
            }
        }
    }

    /// The CPUs the bot may use, against which its wait is weighed: one on a lane (its
    /// game was given a core of its own, whatever the bot made of its affinity), else
    /// those the threads that waited may run on together (their affinities: a thread
    /// that never waited, allowed everywhere, widens nothing), at least one.
    fn cpus(&self) -> u32 {
        if self.on_lane.load(std::sync::atomic::Ordering::Relaxed) {
            return 1;
        }
        let waited = self.waits.lock().expect("wait reader lock").waited();
        cpu::cpus_allowed(waited).unwrap_or(1).min(cpu::machine_cpus())
    }

    fn read(&self) -> Duration {
        if let Some(time) = self.cgroup.as_ref().and_then(|group| group.cpu_time()) {
            return time;
        }
        self.meter.lock().expect("cpu meter lock").read()
    }
}

/// What a pause starts from, to tell at the resumption whether the bot ran.
#[derive(Debug)]
enum PauseMark {
    Cgroup(Duration),
    Clocks(cpu::Clocks),
}

/// How soon a bot found kept from every CPU at its deadline is looked at again.
const LOOK_AGAIN: Duration = Duration::from_millis(1);

/// Runs `work` until it finishes or the deadline passes. A CPU cap is checked every
/// 20 ms against the group's CPU time (new members are looked for every 100 ms). With a
/// credit, the wall-clock instant moves by the bot's wait for a CPU, read when it comes.
async fn watch<T>(cpu_meter: &CpuSource, deadline: Deadline, work: impl std::future::Future<Output = T>) -> Result<T, TimeLimit> {
    let wall = async {
        let Some(limit) = deadline.wall else {
            return std::future::pending().await;
        };
        let mut at = limit;
        let mut ran_before = None;
        loop {
            tokio::time::sleep_until(at.into()).await;
            let Some(credit) = &deadline.credit else {
                break;
            };
            let later = limit + cpu_meter.credit(credit).total();
            if later > at {
                at = later;
                ran_before = None;
                continue;
            }
            // A wait under way is counted only once the thread runs again: while a thread
            // of the bot is ready to run and the bot has not run since the last look, it is
            // kept from every CPU now, and is looked at again a moment later.
            let (ready, ran) = cpu_meter.stalled();
            let stalled = ready && ran_before.is_none_or(|before| ran == before);
            if !stalled || at + LOOK_AGAIN > limit + credit.cap {
                break;
            }
            ran_before = Some(ran);
            at += LOOK_AGAIN;
        }
    };
    let cpu = async {
        match deadline.cpu {
            Some(cap) => {
                let period = Duration::from_millis(20);
                let mut tick = tokio::time::interval_at(tokio::time::Instant::now() + period, period);
                loop {
                    tick.tick().await;
                    if cpu_meter.read() >= cap {
                        break;
                    }
                }
            }
            None => std::future::pending().await,
        }
    };
    // The work first: when the referee, late to look, finds the work done and the time up
    // at the same look, the work was done in time as far as anyone can tell. (Every
    // work here is bounded: a line, an answer, a write, an exit.)
    tokio::select! {
        biased;
        out = work => Ok(out),
        () = wall => Err(TimeLimit::Wall),
        () = cpu => Err(TimeLimit::Cpu),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a process wrote before the referee drains its pipe is read at once, even when
    /// the runtime has not yet seen the pipe become readable (no await in between): the
    /// case where tokio's own `try_read` reads nothing.
    #[tokio::test(flavor = "current_thread")]
    async fn a_drain_reads_what_the_pipe_holds_before_the_runtime_sees_it() {
        let (sender, receiver) = tokio::net::unix::pipe::pipe().expect("a pipe");
        rustix::io::write(&sender, b"the last words").expect("write");
        let mut buffer = [0u8; 64];
        assert_eq!(
            receiver.try_read(&mut buffer).map_err(|err| err.kind()),
            Err(io::ErrorKind::WouldBlock),
            "tokio's try_read waits for the runtime"
        );
        let read = read_now(&receiver, &mut buffer).expect("read");
        assert_eq!(&buffer[..read], b"the last words");
        assert_eq!(read_now(&receiver, &mut buffer).map_err(|err| err.kind()), Err(io::ErrorKind::WouldBlock));
    }

    /// A drain that found the pipe empty leaves the runtime waiting for it to become
    /// readable again, so that the task draining a bot's stderr sleeps rather than spins
    /// (reading by the system call alone never tells the runtime, which then reports the
    /// pipe readable for ever).
    #[tokio::test(flavor = "current_thread")]
    async fn a_drained_pipe_is_waited_for_again() {
        let (sender, receiver) = tokio::net::unix::pipe::pipe().expect("a pipe");
        rustix::io::write(&sender, b"a line").expect("write");
        receiver.readable().await.expect("readable");
        let mut buffer = [0u8; 64];
        assert_eq!(read_now(&receiver, &mut buffer).expect("read"), 6);
        assert_eq!(read_now(&receiver, &mut buffer).map_err(|err| err.kind()), Err(io::ErrorKind::WouldBlock));
        // Nothing writes any more: a wait for readability must not end.
        let waited = tokio::time::timeout(Duration::from_millis(20), receiver.readable()).await;
        assert!(waited.is_err(), "the runtime still takes the empty pipe for readable");
    }
}
