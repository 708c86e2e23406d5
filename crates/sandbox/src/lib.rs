//! The sandbox for untrusted bots: the `arbiter-sandbox` helper program, which confines
//! itself (namespaces, a root of the bot's own, rlimits, no capabilities, Landlock,
//! seccomp, a clean environment) and then starts the bot as its child, and the library
//! the referee uses to build the helper's command line ([`Policy`]) and to probe what this
//! machine enforces ([`check`]).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

pub mod check;
mod confine;
mod filter;
pub mod helper;
pub mod keeper;
mod limits;
pub mod machine;
mod namespaces;
pub mod netns;
pub mod options;
pub mod probe;
pub mod root;
pub mod status;
mod sys;

pub use check::{Guarantee, Status, check};

/// Network access the bot gets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Net {
    /// No network at all: a new network namespace, no TCP in Landlock, only Unix
    /// sockets in seccomp.
    #[default]
    None,
    /// TCP connections to this port only (the Connect Four TCP interface), in the network
    /// namespace the helper was started in: one the referee made for this bot, holding
    /// nothing but its loopback and the referee's listener ([`netns`]).
    Given(u16),
    /// TCP connections to this port only, in the host's network namespace: the fallback
    /// where no namespace can be made (Landlock and seccomp alone hold the bot to the port).
    Connect(u16),
}

/// The bot's own filesystem, built by the helper ([`root`]): how its working folder
/// appears there and its disk quota (the system it shows is [`Policy::system`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Root {
    /// How the working folder is given.
    pub work: Work,
    /// The bot's disk quota: bytes of its working folder, `/tmp` and `/dev/shm` together
    /// (`None`: no cap but its memory's, which a `tmpfs` is charged to).
    pub disk: Option<u64>,
    /// The most files and folders there.
    pub files: Option<u64>,
}

/// The system a bot sees.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum System {
    /// The host's system folders ([`root::HOST_SYSTEM`], parts of `/etc`) and these
    /// further ones of the organiser's (toolchains installed outside `/usr`).
    Host { extra: Vec<PathBuf> },
    /// A system image: a folder holding a whole root filesystem (one built with
    /// `mmdebstrap`, an unpacked OCI image), shown read-only; only in a root of the bot's
    /// own.
    Image(PathBuf),
}

impl Default for System {
    fn default() -> System {
        System::Host { extra: Vec::new() }
    }
}

/// How the bot's working folder appears in its root.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Work {
    /// A fresh `tmpfs` at [`root::BOX`] holding a copy of the folder the referee prepared
    /// (a game's bot: nothing it writes reaches the disk).
    Copy,
    /// The folder itself, writable, at its own path (a build, whose output must stay).
    Bind,
}

/// What the helper enforces around one bot process.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Policy {
    /// The bot's own directory: its current directory, HOME and TMPDIR, the only place it
    /// may write.
    pub workdir: PathBuf,
    /// The bot's own folders and files, which it may read and execute besides the system's
    /// (its manifest's folder): nothing else of the machine.
    pub read_only: Vec<PathBuf>,
    /// The system the bot sees.
    pub system: System,
    /// A root of the bot's own ([`root`]); `None` leaves it the host's filesystem, held by
    /// Landlock alone (a machine without mount namespaces).
    pub root: Option<Root>,
    /// Address-space cap in bytes (`RLIMIT_AS`).
    pub memory: Option<u64>,
    /// CPU seconds per process (`RLIMIT_CPU`), a backstop behind the referee's clock.
    pub cpu_seconds: Option<u64>,
    /// Largest file the bot may write (`RLIMIT_FSIZE`); the helper's default when unset.
    pub file_size: Option<u64>,
    /// Most open files per process (`RLIMIT_NOFILE`); the helper's default when unset.
    pub open_files: Option<u64>,
    /// `RLIMIT_NPROC`: root is exempt from it, so the cgroup `pids` limit is the real one.
    pub processes: Option<u64>,
    pub net: Net,
    /// Variables the bot gets besides the allow-list (PATH, HOME, TMPDIR, LANG).
    pub env: Vec<(String, String)>,
    /// The referee's lifeline FIFO (see `docs/security.md`).
    pub lifeline: PathBuf,
    /// A second FIFO of the referee's (`--status`): when given, the helper writes the
    /// bot's wait status there (4 bytes, native order) as soon as the bot has ended, so
    /// that the referee need not wait for the helper's own exit, which tears down the
    /// bot's namespaces (milliseconds).
    pub status: Option<PathBuf>,
    /// Keep the sandbox for the moves of a per-move interface (`--zygote`): the helper's
    /// confined second stage stays, and starts one process of the program for each
    /// input the referee frames on its stdin (a 4-byte little-endian length, then the
    /// bytes), that process's stdin holding the input and its stdout and stderr the
    /// helper's; once the process has ended and whatever it left is killed, its wait
    /// status goes to the status FIFO. The end of the helper's stdin ends it.
    pub zygote: bool,
    /// Where the helper writes one line per layer: applied or not available, and why.
    pub report: Option<PathBuf>,
}

impl Policy {
    /// A policy with the defaults for everything but the two required paths.
    pub fn new(workdir: impl Into<PathBuf>, lifeline: impl Into<PathBuf>) -> Policy {
        Policy {
            workdir: workdir.into(),
            read_only: Vec::new(),
            system: System::default(),
            root: None,
            memory: None,
            cpu_seconds: None,
            file_size: None,
            open_files: None,
            processes: None,
            net: Net::None,
            env: Vec::new(),
            lifeline: lifeline.into(),
            status: None,
            zygote: false,
            report: None,
        }
    }

    /// The helper's options for this policy, ending in `--`: append the bot's program
    /// and arguments.
    pub fn to_args(&self) -> Vec<OsString> {
        let mut args: Vec<OsString> = Vec::new();
        let mut push = |key: &str, value: OsString| {
            args.push(key.into());
            args.push(value);
        };
        push("--workdir", self.workdir.clone().into());
        for path in &self.read_only {
            push("--read-only", path.clone().into());
        }
        match &self.system {
            System::Host { extra } => {
                for path in extra {
                    push("--system-path", path.clone().into());
                }
            }
            System::Image(image) => push("--system", image.clone().into()),
        }
        if let Some(root) = &self.root {
            push(
                "--root",
                match root.work {
                    Work::Copy => "copy".into(),
                    Work::Bind => "bind".into(),
                },
            );
            if let Some(bytes) = root.disk {
                push("--disk", bytes.to_string().into());
            }
            if let Some(files) = root.files {
                push("--files", files.to_string().into());
            }
        }
        let numbers = [
            ("--memory", self.memory),
            ("--cpu-seconds", self.cpu_seconds),
            ("--file-size", self.file_size),
            ("--open-files", self.open_files),
            ("--processes", self.processes),
        ];
        for (key, value) in numbers {
            if let Some(value) = value {
                push(key, value.to_string().into());
            }
        }
        match self.net {
            Net::None => {}
            Net::Given(port) => push("--net", format!("given:{port}").into()),
            Net::Connect(port) => push("--net", format!("connect:{port}").into()),
        }
        for (key, value) in &self.env {
            push("--env", format!("{key}={value}").into());
        }
        push("--lifeline", self.lifeline.clone().into());
        if let Some(status) = &self.status {
            push("--status", status.clone().into());
        }
        if let Some(report) = &self.report {
            push("--report", report.clone().into());
        }
        if self.zygote {
            args.push("--zygote".into());
        }
        args.push("--".into());
        args
    }
}

/// The helper program: `$ARBITER_SANDBOX`, else `arbiter-sandbox` next to the current
/// executable, else in its parent folder (test binaries live in `target/*/deps/`).
pub fn helper_path() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("ARBITER_SANDBOX") {
        return Some(PathBuf::from(path));
    }
    let exe = std::env::current_exe().ok()?;
    let dir = exe.parent()?;
    [Some(dir), dir.parent()].into_iter().flatten().map(|d| d.join(HELPER_NAME)).find(|p| is_file(p))
}

const HELPER_NAME: &str = "arbiter-sandbox";

fn is_file(path: &Path) -> bool {
    path.metadata().is_ok_and(|m| m.is_file())
}
