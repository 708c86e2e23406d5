//! Building a bot: a manifest's `build` command, or the compiler of an upload, run
//! through `jail` like the bot itself (inside the sandbox when asked) with a deadline,
//! a memory cap and a process cap. The bot's folder is the build's working directory and,
//! in the sandbox, the only place it may write; nothing of a build runs outside.

use std::path::{Path, PathBuf};
use std::time::Duration;

/// Wall-clock limit of one build.
pub const BUILD_TIME: Duration = Duration::from_secs(60);
/// Memory cap of one build (the compiler and everything it starts).
pub const BUILD_MEMORY: u64 = 2 * 1024 * 1024 * 1024;
/// Most processes and threads of one build at once (gcc runs cc1, as, collect2, ld).
pub const BUILD_PROCESSES: u64 = 128;
/// A sandboxed build's `/tmp` and `/dev/shm` together: bytes and files (charged to its
/// memory, capped at [`BUILD_MEMORY`]).
pub const BUILD_SCRATCH: u64 = 512 * 1024 * 1024;
pub const BUILD_SCRATCH_FILES: u64 = 65_536;

/// The most bytes of a build's output kept in its log (the rest is cut and marked).
pub const BUILD_LOG_BYTES: usize = 64 * 1024;

/// One build to run.
#[derive(Clone, Debug)]
pub struct Build<'a> {
    /// The bot's folder: the build's working directory, the only place it may write.
    pub dir: &'a Path,
    /// The command and its arguments, as the manifest (or the upload's language) says.
    pub argv: &'a [String],
    /// The program to start instead of `argv[0]` (a toolchain's own compiler).
    pub program: Option<PathBuf>,
    /// Folders the build may read besides the system's and its own (a toolchain the
    /// organiser's server chose; never one a bot names).
    pub read_only: Vec<PathBuf>,
    /// Inside the sandbox (untrusted bots), or as it is (trusted ones).
    pub sandboxed: bool,
}

/// What a build gave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildRun {
    /// Why it failed, on one line ("exit status: 1", "ran out of time (60 s)"); `None`
    /// when it succeeded.
    pub failure: Option<String>,
    /// The command line, then its stderr and stdout, bounded by [`BUILD_LOG_BYTES`].
    pub log: String,
}

impl BuildRun {
    pub fn success(&self) -> bool {
        self.failure.is_none()
    }
}

/// Our own failure to run a build (not the build's).
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    #[error("the sandbox helper arbiter-sandbox is not built (cargo build --workspace)")]
    NoSandbox,
    /// The machine could not start it (descriptors, processes, memory; the helper).
    #[error("cannot start the build: {0}")]
    Start(std::io::Error),
}

/// Runs a build to its end (or its deadline) and kills whatever it left running.
pub async fn run(build: &Build<'_>) -> Result<BuildRun, BuildError> {
    let argv = build.argv;
    let sandbox = if build.sandboxed {
        // What the build may read is the system, its folder and the toolchain its caller
        // names: never a folder taken from its command.
        Some(jail::Sandbox {
            helper: sandbox::helper_path().ok_or(BuildError::NoSandbox)?,
            read_only: build.read_only.clone(),
            net: jail::Net::None,
            // Its folder writable at its own path (what it makes must stay there); its
            // /tmp a tmpfs of its own, larger than a bot's.
            root: sandbox::machine::roots_supported().then_some(sandbox::Root {
                work: sandbox::Work::Bind,
                disk: Some(BUILD_SCRATCH),
                files: Some(BUILD_SCRATCH_FILES),
            }),
            processes: Some(BUILD_PROCESSES),
            file_size: None,
            open_files: None,
            cgroups: true,
        })
    } else {
        None
    };
    let command = jail::Command {
        program: build.program.clone().unwrap_or_else(|| PathBuf::from(&argv[0])),
        args: argv[1..].iter().map(Into::into).collect(),
        cwd: build.dir.to_path_buf(),
        env: Vec::new(),
        limits: jail::Limits {
            memory: Some(BUILD_MEMORY),
            output_cap: BUILD_LOG_BYTES,
            stderr_cap: BUILD_LOG_BYTES,
            ..jail::Limits::default()
        },
        sandbox,
        per_move: false,
    };
    let mut log = format!("$ {}\n", argv.join(" "));
    let mut process = match jail::Process::spawn_async(&command).await {
        Ok(process) => process,
        // Outside the sandbox a program that is not there is the build's own fault.
        Err(err) if command.sandbox.is_none() && !crate::is_exhaustion(&err) => {
            let failure = format!("cannot start {}: {err}", argv[0]);
            log.push_str(&failure);
            return Ok(BuildRun { failure: Some(failure), log });
        }
        Err(err) => return Err(BuildError::Start(err)),
    };
    process.close_stdin();
    let result = process.run_to_exit(jail::Deadline::wall_in(BUILD_TIME)).await;
    let over_memory = process.memory_exceeded();
    process.kill().await;
    process.finish_stderr(Duration::from_millis(200)).await;
    let stderr = process.take_stderr().await;
    log.push_str(&stderr.text);
    let mut failure = match result {
        Ok((status, stdout)) => {
            log.push_str(&String::from_utf8_lossy(&stdout));
            if status.code() == Some(NOT_THERE) && build.sandboxed && stderr.text.contains("cannot start") {
                Some(missing_toolchain(argv))
            } else if let Some(program) = shell_not_found(argv, status.code(), &stderr.text).filter(|_| build.sandboxed) {
                Some(missing_toolchain(&[program.to_string()]))
            } else {
                (!status.success()).then(|| format!("{} failed: {status}", argv[0]))
            }
        }
        Err(jail::Failure::Timeout(_)) => Some(format!("{} ran out of time ({} s)", argv[0], BUILD_TIME.as_secs())),
        Err(failure) => Some(format!("{}: {failure}", argv[0])),
    };
    if over_memory {
        failure = Some(format!("{} exceeded its memory cap of {} MB", argv[0], BUILD_MEMORY / (1024 * 1024)));
    }
    if let Some(failure) = &failure {
        log.push_str(&format!("\n{failure}"));
    }
    if stderr.dropped > 0 {
        log.push_str(&format!("\n[{} more bytes of output cut]", stderr.dropped));
    }
    Ok(BuildRun { failure, log: bounded(log) })
}

/// The sandbox helper's exit code for a program that is not in the bot's root.
const NOT_THERE: i32 = 127;

/// The one line for a compiler that is not in the bots' root: which language's (by the
/// build's command: `env GOCACHE=... go build` is Go's), and what the organiser (or the
/// student at home) does about it.
pub fn missing_toolchain(argv: &[String]) -> String {
    let words = argv.iter().flat_map(|a| a.split(' ')).filter(|w| !matches!(*w, "env" | "sh" | "-c") && !w.contains('='));
    let program = words.map(|w| w.rsplit('/').next().unwrap_or(w)).next().unwrap_or_default();
    match languages::Language::of_program(program) {
        Some(language) => format!(
            "{program} is not in the bots' system: the {} toolchain is missing; install Debian's {} (scripts/setup-languages), \
             or list its folders in ARBITER_SYSTEM_PATHS, or use a system image that has it (`arbiter languages` lists what the bots have)",
            language.spec().title,
            language.spec().packages.join(" "),
        ),
        None => format!("{program} is not in the bots' system (`arbiter languages` lists the toolchains the bots have)"),
    }
}

/// The program a build's shell (`sh -c "javac ... && jar ..."`) did not find, from its
/// `sh: 1: javac: not found`.
fn shell_not_found<'a>(argv: &[String], code: Option<i32>, stderr: &'a str) -> Option<&'a str> {
    if argv.first().map(String::as_str) != Some("sh") || code != Some(NOT_THERE) {
        return None;
    }
    stderr.lines().find_map(|line| line.strip_suffix(": not found")?.rsplit(": ").next())
}

/// Cuts a log to [`BUILD_LOG_BYTES`] on a character boundary.
fn bounded(mut log: String) -> String {
    if log.len() > BUILD_LOG_BYTES {
        let mut end = BUILD_LOG_BYTES;
        while !log.is_char_boundary(end) {
            end -= 1;
        }
        log.truncate(end);
        log.push_str("\n[cut]");
    }
    log
}
