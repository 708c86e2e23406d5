//! What `arbiter-sandbox -- PROGRAM ARGS...` does, in two stages. The first waits for
//! the referee's go on the lifeline, enters new namespaces and starts the second, the
//! helper program again, as pid 1 of the new PID namespace; the second mounts that
//! namespace's own `/proc`, confines itself layer by layer and becomes the bot with a
//! clean environment (`exec`). The first stage stays the bot's parent so that it can
//! kill the whole group when the lifeline breaks (the referee died, even by SIGKILL), and
//! ends the way the bot ended. Given `--zygote`, the second stage, fully confined, stays
//! instead: it starts one process of the program per move the referee sends it, kills
//! whatever that process left behind once it has ended, and reports its status, so that
//! a per-move interface pays for the namespaces, the cgroups and the confinement once a
//! game rather than once a move.

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, Read, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};

use rustix::io::Errno;
use rustix::process::{Pid, Signal, WaitOptions, getpgid, getpgrp, getpid, getppid, kill_process, kill_process_group, setpgid, wait};

use crate::options::{Options, ProcView};
use crate::{confine, filter, limits, namespaces, root, sys};

/// The PATH a bot gets.
pub const SAFE_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// One confinement layer and what became of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layer {
    pub name: &'static str,
    /// `Ok(detail)` when applied, `Err(reason)` when not available.
    pub outcome: Result<String, String>,
}

impl std::fmt::Display for Layer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.outcome {
            Ok(detail) => write!(f, "{}: applied: {detail}", self.name),
            Err(reason) => write!(f, "{}: not available: {reason}", self.name),
        }
    }
}

/// Why the helper could not start the bot (its own failure, not the bot's).
#[derive(Debug, thiserror::Error)]
pub enum HelperError {
    #[error("cannot open the lifeline {0}: {1}")]
    Lifeline(PathBuf, io::Error),
    #[error("cannot open the status FIFO {0}: {1}")]
    Status(PathBuf, io::Error),
    #[error("the lifeline closed before the go: the referee is gone")]
    NoGo,
    #[error("cannot write the report {0}: {1}")]
    Report(PathBuf, io::Error),
    #[error("cannot start {0}: {1}")]
    Spawn(String, io::Error),
    #[error("cannot wait for the bot: {0}")]
    Wait(io::Error),
    #[error("cannot read the next move from the referee: {0}")]
    Frame(io::Error),
    #[error("cannot report the end of a move: {0}")]
    Reported(io::Error),
    #[error("cannot build the bot's root: {0}")]
    Root(String),
}

impl HelperError {
    /// The exit code the helper ends with: 127 for a program that is not there, 126 for
    /// one that cannot run, 125 for the helper's own failures (as `env` and `timeout`).
    pub fn exit_code(&self) -> i32 {
        match self {
            HelperError::Spawn(_, err) if err.kind() == io::ErrorKind::NotFound => 127,
            HelperError::Spawn(..) => 126,
            _ => 125,
        }
    }
}

/// The first stage: waits for the go, enters the namespaces, starts the second stage
/// (which confines itself and becomes the bot), waits for it and returns its status.
pub fn run(options: &Options) -> Result<ExitStatus, HelperError> {
    // The bot's process group, whose id is the helper's pid (so it cannot be given to
    // another group while the helper lives): the referee stops, continues and kills it.
    // Killing it must never reach the referee's group.
    if getpgrp() != getpid() {
        let _ = setpgid(None, None);
    }
    let group = getpgrp();
    // SIGHUP reaches a stopped, orphaned group when the referee dies: the helper must
    // live on to see the lifeline break. Once the helper has left the bot's group for the
    // referee's (see `leave_the_bots_group`), the signals a terminal or a supervisor
    // sends to the referee's group must not end or stop it either: the referee's own
    // handling ends its games. Children start with an empty mask (std resets it).
    let _ = sys::block(&[Signal::HUP, Signal::INT, Signal::QUIT, Signal::TSTP, Signal::TERM]);

    // Opened now, before the namespaces: close-on-exec, so the bot never holds it. A
    // zygote reports each move's end itself.
    let mut status_fifo = match &options.status {
        Some(path) if !options.zygote => Some(open_status(path).map_err(|err| HelperError::Status(path.clone(), err))?),
        _ => None,
    };
    let mut layers = Vec::new();
    match &options.lifeline {
        Some(path) => {
            let mut fifo = open_lifeline(path).map_err(|err| HelperError::Lifeline(path.clone(), err))?;
            await_go(&mut fifo)?;
            layers.push(Layer { name: "lifeline", outcome: Ok(format!("watching {}", path.display())) });
            // Before the PID namespace: the kernel refuses new threads after it.
            std::thread::spawn(move || watch(fifo, group));
        }
        None => layers.push(Layer { name: "lifeline", outcome: Err("no --lifeline given".to_string()) }),
    }
    let (namespaces, proc_view) = match namespaces::enter(options.net) {
        Ok((detail, view)) => (Ok(detail), view),
        Err(reason) => (Err(reason), ProcView::Host),
    };
    layers.push(Layer { name: "namespaces", outcome: namespaces });
    // Create the report now: once confined, the second stage cannot create files outside
    // the bot's folder (it appends its own lines).
    if let Some(path) = &options.report {
        let text: String = layers.iter().map(|l| format!("{l}\n")).collect();
        std::fs::write(path, text).map_err(|err| HelperError::Report(path.clone(), err))?;
    }
    // The second stage is this program again, the first child in the new PID namespace
    // (its pid 1): only a process inside can mount that namespace's procfs, and only a
    // fresh program can get there without `unsafe` (no fork hook in safe Rust).
    let mut command = Command::new("/proc/self/exe");
    command.arg0("arbiter-sandbox").arg("--inner").arg(proc_view.name()).args(std::env::args_os().skip(1));
    let mut child = command.spawn().map_err(|err| HelperError::Spawn("the helper's second stage".to_string(), err))?;
    if !options.zygote {
        leave_the_bots_group();
    }
    let status = wait_for_exit(&mut child).map_err(HelperError::Wait)?;
    if let Some(fifo) = status_fifo.as_mut() {
        // Let go of the bot's pipes first: closed at the exit, they would close only after
        // the namespaces are torn down, and the referee reads them to their end.
        if let Ok(null) = File::options().read(true).write(true).open("/dev/null") {
            let _ = rustix::stdio::dup2_stdin(&null);
            let _ = rustix::stdio::dup2_stdout(&null);
            let _ = rustix::stdio::dup2_stderr(&null);
        }
        // The referee may be gone: nothing to do about a failed write.
        let full = options.root.as_ref().is_some_and(|root| crate::status::is_full(&scratch_of(root)));
        let _ = fifo.write_all(&crate::status::encode(status.into_raw(), full));
    }
    Ok(status)
}

/// The bot's tmpfs as seen from its root (its working folder, `/tmp` and `/dev/shm` share
/// it): its working folder there, or its `/tmp` where its working folder is the host's.
fn scratch_of(root: &crate::Root) -> PathBuf {
    match root.work {
        crate::Work::Copy => PathBuf::from(crate::root::BOX),
        crate::Work::Bind => PathBuf::from("/tmp"),
    }
}

/// Moves the helper out of the bot's process group into its parent's (the referee's),
/// so that the referee's stop and continue around every move of a persistent bot reach
/// the bot alone: stopping and continuing the helper too woke its two threads twice a
/// move, on the bot's clock. The group keeps the helper's pid as its id (the bot is in
/// it) and the helper keeps the pid while it lives, so the referee's signals to it never
/// reach another group. Where the parent's group cannot be joined (another session: the
/// referee is gone), the helper stays.
fn leave_the_bots_group() {
    // No parent in sight (0) asks for the helper's own group, as getpgid(0) does.
    if let Ok(referees) = getpgid(getppid()) {
        let _ = setpgid(None, Some(referees));
    }
}

/// Waits until the second stage (the bot) has ended and reaps it. Waiting on a pidfd
/// instead of in `waitpid` keeps the helper asleep while the bot is stopped and
/// continued: a parent in `waitpid` is woken by each of its child's stops and continues.
fn wait_for_exit(child: &mut std::process::Child) -> io::Result<ExitStatus> {
    use rustix::event::{PollFd, PollFlags, poll};
    let pid = i32::try_from(child.id()).ok().and_then(rustix::process::Pid::from_raw);
    if let Some(pidfd) = pid.and_then(|pid| rustix::process::pidfd_open(pid, rustix::process::PidfdFlags::empty()).ok()) {
        loop {
            let mut fds = [PollFd::new(&pidfd, PollFlags::IN)];
            match poll(&mut fds, None) {
                Ok(_) if !fds[0].revents().is_empty() => break,
                Ok(_) | Err(rustix::io::Errno::INTR) => {}
                Err(_) => break,
            }
        }
    }
    child.wait()
}

/// Opens the status FIFO for writing without waiting: the referee holds it open
/// read-write, so there is always a reader.
fn open_status(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    let fifo = std::fs::OpenOptions::new().write(true).custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32).open(path)?;
    let flags = rustix::fs::fcntl_getfl(&fifo)?;
    rustix::fs::fcntl_setfl(&fifo, flags - rustix::fs::OFlags::NONBLOCK)?;
    Ok(fifo)
}

/// The second stage: mounts the bot's own `/proc` (or falls back to the host's, mostly
/// hidden by Landlock), confines itself layer by layer, and becomes the bot (`exec`),
/// keeping its pid: pid 1 of the bot's PID namespace. Returns only on failure.
pub fn run_inner(options: &Options, proc_view: ProcView) -> HelperError {
    // The first stage, the bot's parent, is outside the bot's process group, where a
    // kill of the referee's whole group reaches it: the bot dies with it (kept across the
    // `exec`: the bot gains no privilege). On a failure the lifeline and the cgroup's kill
    // remain.
    let _ = rustix::process::set_parent_process_death_signal(Some(rustix::process::Signal::KILL));
    // Opened before the bot's root is built and the confinement shuts the referee's
    // folders away.
    let status = match (&options.status, options.zygote) {
        (Some(path), true) => match open_status(path) {
            Ok(fifo) => Some(fifo),
            Err(err) => return HelperError::Status(path.clone(), err),
        },
        _ => None,
    };
    let report = match &options.report {
        Some(path) => match File::options().append(true).open(path) {
            Ok(file) => Some((path, file)),
            Err(err) => return HelperError::Report(path.clone(), err),
        },
        None => None,
    };
    let mut layers = Vec::new();
    // The bot's own root, or (without one) the host's filesystem with a /proc of its own.
    let mut workdir = options.workdir.clone();
    let proc_view = match (&options.root, proc_view) {
        (Some(root), ProcView::Fresh) => {
            let Some(given) = &options.workdir else { return HelperError::Root("a root needs --workdir".to_string()) };
            match root::build(&options.system, root, given, &options.read_only) {
                Ok(built) => {
                    layers.push(Layer { name: "root", outcome: Ok(built.detail) });
                    workdir = Some(root::workdir_inside(root, given));
                    ProcView::Fresh
                }
                Err(reason) => return HelperError::Root(reason),
            }
        }
        (Some(_), ProcView::Host) => {
            return HelperError::Root("no mount namespace of its own (the helper needs root or CAP_SYS_ADMIN)".to_string());
        }
        (None, ProcView::Fresh) => match namespaces::mount_fresh_proc() {
            Ok(detail) => {
                layers.push(Layer { name: "proc", outcome: Ok(detail) });
                ProcView::Fresh
            }
            Err(reason) => {
                layers.push(Layer { name: "proc", outcome: Err(format!("{reason}; landlock hides the host's processes instead")) });
                ProcView::Host
            }
        },
        (None, ProcView::Host) => {
            layers.push(Layer {
                name: "proc",
                outcome: Err("no mount namespace of its own; landlock hides the host's processes instead".to_string()),
            });
            ProcView::Host
        }
    };
    let filters = filter::compile(options.net, !options.zygote);
    // Looked for in the bot's root, where it has one.
    let program = resolve(&options.command[0], options);
    let in_root = options.root.as_ref().and(workdir.as_deref());
    layers.push(Layer { name: "rlimits", outcome: limits::set(options) });
    layers.push(Layer { name: "capabilities", outcome: limits::drop_capabilities() });
    layers.push(Layer { name: "landlock", outcome: confine::apply(options, proc_view, in_root) });
    layers.push(Layer { name: "seccomp", outcome: filters.and_then(|filters| filter::apply(&filters, options.net, !options.zygote)) });
    let env = environment(options, workdir.as_deref(), options.root.is_some());
    let names: Vec<&str> = env.iter().map(|(k, _)| k.as_str()).collect();
    layers.push(Layer { name: "environment", outcome: Ok(format!("only {}", names.join(", "))) });
    if let Some((path, mut file)) = report {
        let text: String = layers.iter().map(|l| format!("{l}\n")).collect();
        if let Err(err) = file.write_all(text.as_bytes()) {
            return HelperError::Report(path.clone(), err);
        }
    }

    let mut command = Command::new(&program);
    command.args(&options.command[1..]).env_clear().envs(env);
    if let Some(workdir) = &workdir {
        command.current_dir(workdir);
    }
    if options.zygote {
        let scratch = options.root.as_ref().map(scratch_of);
        return match status {
            Some(status) => serve_moves(command, status, scratch),
            None => HelperError::Status(PathBuf::from("(none)"), io::Error::other("a zygote needs --status")),
        };
    }
    let err = command.exec();
    HelperError::Spawn(program.to_string_lossy().into_owned(), err)
}

/// The zygote: for each input framed on stdin, one process of `command` with the input on
/// its stdin (then closed) and the helper's stdout and stderr; once it has ended, every
/// other process of the sandbox is killed and reaped, and its wait status is written to
/// `status`. Returns at the end of stdin (a clean exit) or on a failure of its own.
///
/// Nothing a move's process does reaches the zygote or the next move: as pid 1 of the PID
/// namespace it gets only the signals it handles from inside, and it is not dumpable, so
/// its memory, its environment and its descriptors (the referee's pipes and FIFO) stay
/// closed to the processes it starts, which run as the same user. Outside a PID namespace
/// of its own (a machine without namespaces) each move's process gets a process group of
/// its own, and what it leaves in that group is killed.
fn serve_moves(mut command: Command, mut status: File, scratch: Option<PathBuf>) -> HelperError {
    use rustix::process::{DumpableBehavior, set_dumpable_behavior};
    if let Err(err) = set_dumpable_behavior(DumpableBehavior::NotDumpable) {
        return HelperError::Spawn("the zygote".to_string(), err.into());
    }
    let alone = getpid().is_init();
    command.stdin(Stdio::piped());
    if !alone {
        command.process_group(0);
    }
    let program = command.get_program().to_string_lossy().into_owned();
    let mut control = io::stdin().lock();
    // Everything is in place: the referee may reach the bot's working folder now.
    if let Err(err) = status.write_all(&crate::status::READY) {
        return HelperError::Reported(err);
    }
    loop {
        let (input, env) = match read_frame(&mut control) {
            Ok(Some(frame)) => frame,
            Ok(None) => std::process::exit(0),
            Err(err) => return HelperError::Frame(err),
        };
        // The move's own variables (its seed), over those of the last move.
        command.envs(env);
        let ended = match command.spawn() {
            Ok(mut child) => {
                if let Some(mut stdin) = child.stdin.take() {
                    // A process may end without reading its input: a broken pipe is no fault.
                    let _ = stdin.write_all(&input);
                }
                let ended = child.wait();
                end_leftovers(alone, child.id());
                match ended {
                    Ok(ended) => ended,
                    Err(err) => return HelperError::Wait(err),
                }
            }
            Err(err) => {
                // As the one-shot helper would end: its message on stderr, its exit code.
                let err = HelperError::Spawn(program.clone(), err);
                eprintln!("arbiter-sandbox: {err}");
                ExitStatus::from_raw(err.exit_code() << 8)
            }
        };
        let full = scratch.as_deref().is_some_and(crate::status::is_full);
        if let Err(err) = status.write_all(&crate::status::encode(ended.into_raw(), full)) {
            return HelperError::Reported(err);
        }
    }
}

/// The most bytes one move's input may have.
const FRAME_CAP: usize = 64 * 1024 * 1024;

/// A move's frame for a zygote: a 4-byte little-endian length, then that many bytes: a
/// 4-byte little-endian length of the variables, the variables (`KEY=VALUE`, each ended
/// by a NUL byte), and the move's input.
pub fn frame(input: &[u8], env: &[(String, String)]) -> io::Result<Vec<u8>> {
    let mut vars = Vec::new();
    for (key, value) in env {
        if key.is_empty() || key.contains(['=', '\0']) || value.contains('\0') {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, format!("a variable that cannot be framed: {key:?}")));
        }
        vars.extend_from_slice(format!("{key}={value}\0").as_bytes());
    }
    let too_long = |what: usize| io::Error::new(io::ErrorKind::InvalidInput, format!("an input of {what} bytes"));
    let payload = 4 + vars.len() + input.len();
    let length = u32::try_from(payload).map_err(|_| too_long(payload))?;
    let vars_length = u32::try_from(vars.len()).map_err(|_| too_long(vars.len()))?;
    let mut frame = Vec::with_capacity(4 + payload);
    frame.extend_from_slice(&length.to_le_bytes());
    frame.extend_from_slice(&vars_length.to_le_bytes());
    frame.extend_from_slice(&vars);
    frame.extend_from_slice(input);
    Ok(frame)
}

/// A move's input and the variables its process gets.
type Frame = (Vec<u8>, Vec<(String, String)>);

/// One framed input ([`frame`]): the input and its variables; `None` at the end of the
/// stream.
fn read_frame(control: &mut impl Read) -> io::Result<Option<Frame>> {
    let mut length = [0u8; 4];
    match control.read_exact(&mut length) {
        Ok(()) => {}
        Err(err) if err.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(err) => return Err(err),
    }
    let length = u32::from_le_bytes(length) as usize;
    if length > FRAME_CAP {
        return Err(io::Error::new(io::ErrorKind::InvalidData, format!("an input of {length} bytes, more than {FRAME_CAP}")));
    }
    let mut payload = vec![0u8; length];
    control.read_exact(&mut payload)?;
    let bad = || io::Error::new(io::ErrorKind::InvalidData, "a frame whose variables do not fit it");
    let vars_length = payload.get(..4).map(|b| u32::from_le_bytes(b.try_into().expect("four bytes")) as usize).ok_or_else(bad)?;
    let vars = payload.get(4..4 + vars_length).ok_or_else(bad)?;
    let mut env = Vec::new();
    for pair in vars.split(|&b| b == 0).filter(|pair| !pair.is_empty()) {
        let text = std::str::from_utf8(pair).map_err(|_| bad())?;
        let (key, value) = text.split_once('=').ok_or_else(bad)?;
        env.push((key.to_string(), value.to_string()));
    }
    Ok(Some((payload[4 + vars_length..].to_vec(), env)))
}

/// Kills what a move's process left running and reaps it: as pid 1 of the namespace,
/// every other process in it (a signal to -1 from there reaches the namespace only);
/// else the process group the move's process was started in.
fn end_leftovers(alone: bool, leader: u32) {
    if alone {
        // kill(-1, SIGKILL): every process this one may signal.
        let _ = kill_process_group(Pid::INIT, Signal::KILL);
        // Until none is left to reap (ECHILD).
        // `wait`, not `waitpid(None)`: that one waits for the caller's group alone (0).
        while let Ok(_) | Err(Errno::INTR) = wait(WaitOptions::empty()) {}
    } else if let Some(leader) = i32::try_from(leader).ok().and_then(Pid::from_raw) {
        let _ = kill_process_group(leader, Signal::KILL);
    }
}

/// Ends the helper as the bot ended: the same exit code, or death by the same signal
/// (the referee then sees "killed by signal N"). SIGPIPE, which the Rust runtime
/// ignores in the helper (and no safe call restores), comes out as exit code 128 + 13.
pub fn exit_like(status: ExitStatus) -> ! {
    if let Some(signal) = status.signal().and_then(Signal::from_named_raw) {
        // Only that signal: others the helper blocked (a terminal's SIGINT to the
        // referee's group) may be pending, and would end it first.
        let _ = sys::unblock(&[signal]);
        // The Rust runtime handles SIGSEGV and SIGBUS (stack overflow detection); its
        // handler restores the default action and returns, so a second raise kills.
        let _ = sys::raise(signal);
        let _ = sys::raise(signal);
        std::process::exit(128 + signal.as_raw());
    }
    std::process::exit(status.code().unwrap_or(125))
}

/// Opens the lifeline without waiting for a writer: the referee holds its end open from
/// before it starts the helper, so no writer means the referee is gone, and the first
/// read then sees the end of the file (a plain open would wait for a writer forever).
/// Reads block again after the open.
fn open_lifeline(path: &std::path::Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    let fifo = std::fs::OpenOptions::new().read(true).custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32).open(path)?;
    let flags = rustix::fs::fcntl_getfl(&fifo)?;
    rustix::fs::fcntl_setfl(&fifo, flags - rustix::fs::OFlags::NONBLOCK)?;
    Ok(fifo)
}

/// Blocks until the referee's go (one byte) arrives on the lifeline.
fn await_go(fifo: &mut File) -> Result<(), HelperError> {
    let mut byte = [0u8; 1];
    loop {
        match fifo.read(&mut byte) {
            Ok(0) => return Err(HelperError::NoGo),
            Ok(_) => return Ok(()),
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            Err(err) => return Err(HelperError::Lifeline(PathBuf::from("(fifo)"), err)),
        }
    }
}

/// Reads the lifeline until it breaks, then kills the bot's whole group, and the helper
/// (which may have left that group).
fn watch(mut fifo: File, group: Pid) {
    let mut buffer = [0u8; 64];
    loop {
        match fifo.read(&mut buffer) {
            Ok(0) => break,
            Ok(_) => {}
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    let _ = kill_process_group(group, Signal::KILL);
    let _ = kill_process(getpid(), Signal::KILL);
    std::process::exit(137);
}

/// A bare program name is looked up in the bot's own PATH ([`bot_path`]), in the bot's
/// root where it has one: the program is the one the bot would find itself, whatever the
/// referee's PATH (a person's `pyenv` shims, say).
fn resolve(program: &OsString, options: &Options) -> PathBuf {
    let path = Path::new(program);
    if path.components().count() > 1 || path.is_absolute() {
        return path.to_path_buf();
    }
    let search = bot_path(options);
    std::env::split_paths(&search)
        .map(|dir| dir.join(path))
        .find(|candidate| candidate.metadata().is_ok_and(|m| m.is_file()))
        .unwrap_or_else(|| path.to_path_buf())
}

/// The bot's PATH: the system's folders of programs, then the `bin` folders of the
/// organiser's further system folders (toolchains installed outside `/usr`).
pub fn bot_path(options: &Options) -> String {
    let mut path = SAFE_PATH.to_string();
    if let crate::System::Host { extra } = &options.system {
        for dir in extra {
            let bin = dir.join("bin");
            if bin.is_dir() {
                path.push(':');
                path.push_str(&bin.to_string_lossy());
            }
        }
    }
    path
}

/// The bot's whole environment: the allow-list and the referee's pairs. Its home is its
/// working folder (`workdir`, as the bot sees it); its temporary folder its private `/tmp`
/// in a root of its own (`own_root`), else its working folder.
pub fn environment(options: &Options, workdir: Option<&Path>, own_root: bool) -> Vec<(String, String)> {
    let home = workdir.map_or_else(|| "/".to_string(), |w| w.to_string_lossy().into_owned());
    let temp = if own_root { "/tmp".to_string() } else { home.clone() };
    let mut env = vec![
        ("PATH".to_string(), bot_path(options)),
        ("HOME".to_string(), home),
        ("TMPDIR".to_string(), temp),
        ("LANG".to_string(), "C.UTF-8".to_string()),
    ];
    env.extend(toolchain_homes(&options.system));
    env.extend(options.env.iter().cloned());
    env
}

/// Where a toolchain installed in a home folder finds itself, when the organiser lists
/// its folders as further system folders: rustup's proxies (`.cargo/bin/rustc`) read
/// the toolchains from `RUSTUP_HOME` and `CARGO_HOME`, by default in the home folder,
/// which a bot's is not.
pub fn toolchain_homes(system: &crate::System) -> Vec<(String, String)> {
    let crate::System::Host { extra } = system else { return Vec::new() };
    let mut homes = Vec::new();
    for dir in extra {
        let variable = match dir.file_name().and_then(|n| n.to_str()) {
            Some(".rustup" | "rustup") => "RUSTUP_HOME",
            Some(".cargo" | "cargo") => "CARGO_HOME",
            _ => continue,
        };
        homes.push((variable.to_string(), dir.to_string_lossy().into_owned()));
    }
    homes
}
