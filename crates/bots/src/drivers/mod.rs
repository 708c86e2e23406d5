//! Bots as programs: one driver per interface, chosen by the manifest's protocol, and
//! the process plumbing they share (through `jail`, the only crate that starts them).

pub mod arbiter;
pub mod connect4_tcp;
pub mod gomocup;
pub mod gomoku_console;
pub mod gomoku_file;
mod kept;
pub mod per_move;
pub mod uci;

use std::path::Path;
use std::process::ExitStatus;
use std::time::{Duration, Instant};

use rules::{Game, Outcome, Registered};

pub use protocols::quote;

use crate::{BoxFuture, Fault, FaultKind, ProgramBot, Protocol, RefereeError, Reply, SeatContext, StartError, TurnClock, TurnRequest};

/// A bot's own account of itself (Gomoku `INFO`, Legions and Nupud empty stdin, the
/// Connect Four and project protocols' name, Gomocup's `ABOUT`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Identity {
    pub name: String,
    pub author: Option<String>,
    /// Further facts as key and value (Gomocup's `version`, `country`, ...).
    pub details: Vec<(String, String)>,
}

/// A program bot playing game `G`, behind its interface: the project's protocol for any
/// game, or a native interface for its own game. Its answers are `G`'s moves, read from
/// what the bot wrote (not yet checked by the rules: the referee plays them).
pub trait Driver<G: Game>: Send {
    /// Asks the bot for its move. A misbehaving bot is a fault in the reply; an `Err` is
    /// our own failure (a per-move process that could not be started for want of
    /// descriptors, say).
    fn turn<'a>(&'a mut self, req: &'a TurnRequest<'a, G>) -> BoxFuture<'a, Result<Reply<G::Move>, RefereeError>>;

    /// Tells the bot the game is over where its interface has a way to, and stops every
    /// process it started.
    fn finish<'a>(&'a mut self, outcome: &'a Outcome) -> BoxFuture<'a, ()>;

    /// What the bot said of its last move (a UCI engine's search), taken once; `None`
    /// for the interfaces that say nothing of the kind.
    fn analysis(&mut self) -> Option<crate::Analysis> {
        None
    }
}

/// Gets a program bot ready for a game of `G` (per-game processes start here): builds
/// it if it needs it, then opens its interface. A bot that cannot start returns its fault
/// (and its stderr) and loses; a bot whose interface plays another game is our caller's
/// mistake, an `Err` before anything starts.
pub async fn open<G: Registered>(bot: &ProgramBot, ctx: &SeatContext) -> Result<Box<dyn Driver<G>>, StartError> {
    if let Some(game) = bot.manifest.protocol.game()
        && game != G::KIND
    {
        return Err(StartError::Referee(RefereeError::wrong_game(&bot.manifest.name, game, G::KIND)));
    }
    if bot.manifest.protocol == Protocol::Arbiter {
        // Built there when a fresh process is needed, not for one from the pool.
        return Ok(Box::new(arbiter::Bot::<G>::open(bot, ctx).await?));
    }
    build(bot, ctx.limits.sandboxed).await?;
    match bot.manifest.protocol {
        Protocol::Arbiter => unreachable!("opened above"),
        Protocol::GomokuFile => native(gomoku_file::Bot::open(bot, ctx).await?),
        Protocol::GomokuConsole => native(gomoku_console::Bot::open(bot, ctx).await?),
        Protocol::Gomocup => native(gomocup::Bot::open(bot, ctx).await?),
        Protocol::Legions => native(per_move::Bot::<protocols::legions::Codec>::open(bot, ctx).await?),
        Protocol::Pahtum => native(per_move::Bot::<protocols::pahtum::Codec>::open(bot, ctx).await?),
        Protocol::Nupud => native(per_move::Bot::<protocols::nupud::Codec>::open(bot, ctx).await?),
        Protocol::Connect4Tcp => native(connect4_tcp::Bot::open(bot, ctx).await?),
        Protocol::Uci => native(uci::Bot::open(bot, ctx).await?),
    }
}

/// A native interface's driver, for its own game `N`, as a driver of `G`, which [`open`]
/// checked is `N`.
fn native<G: Registered, N: Registered, D: Driver<N> + 'static>(driver: D) -> Result<Box<dyn Driver<G>>, StartError> {
    Ok(Box::new(Native { driver, game: std::marker::PhantomData::<fn() -> N> }))
}

/// A driver of game `N` seated in a game `G` that is `N`: each turn's position and move
/// go through the registry's typed path (`AnyPosition`, `AnyMove`), not a downcast. A
/// turn of another game is our caller's mistake, an `Err`.
struct Native<N, D> {
    driver: D,
    game: std::marker::PhantomData<fn() -> N>,
}

impl<G: Registered, N: Registered, D: Driver<N>> Driver<G> for Native<N, D> {
    fn turn<'a>(&'a mut self, req: &'a TurnRequest<'a, G>) -> BoxFuture<'a, Result<Reply<G::Move>, RefereeError>> {
        Box::pin(async move {
            let mismatch = || {
                let error = std::io::Error::new(std::io::ErrorKind::InvalidInput, format!("its driver plays {}", N::KIND));
                RefereeError::new(format!("a driver was asked for a turn of {}", G::KIND), error)
            };
            let any = req.pos.clone().into_any();
            let pos = N::from_any(&any).ok_or_else(mismatch)?;
            let own = TurnRequest { pos, last_move: req.last_move.clone(), clock: req.clock };
            let Reply { answer, elapsed, cpu, waited, stderr, input } = self.driver.turn(&own).await?;
            let answer = match answer {
                Ok(mv) => Ok(G::move_from_any(N::move_into_any(mv)).ok_or_else(mismatch)?),
                Err(fault) => Err(fault),
            };
            Ok(Reply { answer, elapsed, cpu, waited, stderr, input })
        })
    }

    fn finish<'a>(&'a mut self, outcome: &'a Outcome) -> BoxFuture<'a, ()> {
        self.driver.finish(outcome)
    }

    fn analysis(&mut self) -> Option<crate::Analysis> {
        self.driver.analysis()
    }
}

/// Asks a bot for its name and author through its interface, running it in `workdir`;
/// `None` for an interface without a self-description (Pah-tum). A bot that fails says
/// why, with what it wrote on stderr.
pub async fn describe(bot: &ProgramBot, workdir: &Path) -> Result<Option<Identity>, StartError> {
    describe_in(bot, workdir, false).await
}

/// [`describe`], inside the sandbox when `sandboxed` (an untrusted bot's self-description,
/// as in a sandboxed tournament's entry check).
pub async fn describe_in(bot: &ProgramBot, workdir: &Path, sandboxed: bool) -> Result<Option<Identity>, StartError> {
    build(bot, sandboxed).await?;
    match bot.manifest.protocol {
        Protocol::GomokuFile => gomoku_file::describe(bot, workdir, sandboxed).await,
        Protocol::GomokuConsole => gomoku_console::describe(bot, workdir, sandboxed).await,
        Protocol::Gomocup => gomocup::describe(bot, workdir, sandboxed).await,
        Protocol::Legions => per_move::describe::<protocols::legions::Codec>(bot, workdir, sandboxed).await,
        // The Pah-tum interface has no self-description.
        Protocol::Pahtum => Ok(None),
        Protocol::Nupud => per_move::describe::<protocols::nupud::Codec>(bot, workdir, sandboxed).await,
        Protocol::Connect4Tcp => connect4_tcp::describe(bot, workdir, sandboxed).await,
        Protocol::Arbiter => arbiter::describe(bot, workdir, sandboxed).await,
        Protocol::Uci => uci::describe(bot, workdir, sandboxed).await,
    }
}

/// Builds the bot if it needs it: a build that fails (or a link where its build lock goes)
/// is the bot's fault, a build that could not be run is ours.
async fn build(bot: &ProgramBot, sandboxed: bool) -> Result<(), StartError> {
    bot.build_if_needed(sandboxed).await.map_err(|err| {
        if err.is_ours() {
            StartError::Referee(crate::RefereeError::new("cannot build the bot", std::io::Error::other(err.to_string())))
        } else {
            Fault::new(FaultKind::Crash, err.to_string()).into()
        }
    })
}

/// A folder of its own for a process that may be kept from game to game, with the
/// bot's working directory prepared in it (as a game's folder would have it); the folder
/// and the working directory's path. A bot whose files cannot be copied (a link out of
/// its folder) is at fault; anything else is ours.
pub(crate) async fn own_folder(bot: &ProgramBot) -> Result<(crate::folders::GameFolder, std::path::PathBuf), StartError> {
    let own =
        crate::folders::GameFolder::create_async().await.map_err(|err| RefereeError::new("cannot make a bot's working folder", err))?;
    let workdir = crate::pool::Resident::workdir_in(own.path());
    let copy = bot.clone();
    let prepared = {
        let workdir = workdir.clone();
        tokio::task::spawn_blocking(move || std::fs::create_dir(&workdir).and_then(|()| copy.copy_workdir(&workdir)))
            .await
            // Cancelled when the runtime shuts down with the game (a match stopped early).
            .unwrap_or_else(|cancelled| Err(std::io::Error::other(cancelled)))
    };
    match prepared {
        Ok(()) => Ok((own, workdir)),
        Err(err) => {
            own.remove_async().await;
            Err(if err.kind() == std::io::ErrorKind::InvalidInput {
                Fault::new(FaultKind::Crash, format!("cannot prepare the working directory: {err}")).into()
            } else {
                StartError::Referee(RefereeError::new("cannot prepare a bot's working folder", err))
            })
        }
    }
}

/// How long a sandbox kept for a bot's moves may take to have its root ready (a safety
/// bound: it takes milliseconds).
const SANDBOX_READY: Duration = Duration::from_secs(30);

/// How long `describe` waits for a bot's answer.
pub const DESCRIBE_TIME: Duration = Duration::from_secs(5);

/// Most processes (and threads) a sandboxed bot may have at once.
pub const SANDBOX_PROCESSES: u64 = 128;

/// The `jail` command that starts `bot` in `workdir` with extra arguments, inside the
/// sandbox when the limits say so.
pub fn command(bot: &ProgramBot, workdir: &Path, limits: &crate::Limits, extra_args: &[&str]) -> jail::Command {
    let mut args: Vec<std::ffi::OsString> = bot.command[1..].iter().map(Into::into).collect();
    args.extend(extra_args.iter().map(Into::into));
    let sandbox = limits.sandboxed.then(|| jail::Sandbox {
        helper: sandbox::helper_path().unwrap_or_else(|| "arbiter-sandbox".into()),
        // Its own folder, and nothing its command or arguments name: the system it may
        // read is the same for every bot (`sandbox::machine`).
        read_only: vec![bot.folder().to_path_buf()],
        net: jail::Net::None,
        root: sandbox::machine::roots_supported().then_some(sandbox::Root {
            work: sandbox::Work::Copy,
            disk: limits.disk,
            files: limits.files,
        }),
        processes: Some(SANDBOX_PROCESSES),
        file_size: None,
        open_files: None,
        cgroups: true,
    });
    jail::Command {
        program: bot.command[0].clone().into(),
        args,
        cwd: workdir.to_path_buf(),
        env: Vec::new(),
        limits: jail::Limits { memory: limits.memory, stderr_cap: limits.stderr_per_move, ..jail::Limits::default() },
        sandbox,
        per_move: false,
    }
}

/// Starts a bot's process. A program that cannot be run (missing, not executable) is
/// the bot's fault; anything else (out of descriptors, no sandbox helper) is ours.
pub async fn spawn(cmd: &jail::Command) -> Result<jail::Process, StartError> {
    jail::Process::spawn_async(cmd).await.map_err(|err| {
        let what = format!("cannot start {}", cmd.program.display());
        if cmd.blames_program(&err) {
            StartError::from(Fault::new(FaultKind::Crash, format!("{what}: {err}")))
        } else {
            StartError::Referee(RefereeError::new(what, err))
        }
    })
}

/// Kills a bot that is given up (its whole group) and returns everything it wrote on
/// stderr, waiting briefly for the pipe to close so that nothing it wrote is lost.
pub async fn give_up(process: &mut jail::Process) -> jail::Log {
    process.kill().await;
    process.finish_stderr(Duration::from_millis(100)).await;
    process.take_stderr().await
}

/// What one run of a per-move process gave.
pub struct Once {
    /// Its stdout, or why it could not be had.
    pub output: Result<Vec<u8>, Fault>,
    pub elapsed: Duration,
    pub cpu: Duration,
    /// The bot's wait for a CPU and the steal, not counted in `elapsed` (see
    /// `Reply::waited`).
    pub waited: jail::Waits,
    pub stderr: jail::Log,
    /// What was written to its stdin (lossy UTF-8).
    pub input: String,
}

impl Once {
    /// A reply with `answer` and this run's time, log and input.
    pub fn reply<M>(self, answer: Result<M, Fault>) -> Reply<M> {
        Reply { answer, elapsed: self.elapsed, cpu: self.cpu, waited: self.waited, stderr: self.stderr, input: self.input }
    }

    /// What the process wrote on stdout, or its fault with its stderr (for
    /// self-descriptions).
    pub fn into_output(self) -> Result<Vec<u8>, StartError> {
        self.output.map_err(|fault| StartError::Bot { fault, stderr: self.stderr })
    }
}

/// Runs a per-move process: starts it, writes `input` to its stdin and closes it,
/// collects its stdout until it exits, all within the turn's wall limit counted from
/// before the start; then kills whatever it left running. A
/// non-zero exit or a death by signal is a crash. An `Err` is our own failure to start it.
pub async fn run_once(cmd: &jail::Command, input: &[u8], clock: &TurnClock) -> Result<Once, RefereeError> {
    let began = Instant::now();
    let mut process = match spawn(cmd).await {
        Ok(process) => process,
        Err(StartError::Referee(err)) => return Err(err),
        Err(StartError::Bot { fault, stderr }) => {
            return Ok(Once {
                output: Err(fault),
                elapsed: began.elapsed(),
                cpu: Duration::ZERO,
                waited: jail::Waits::default(),
                stderr,
                input: String::from_utf8_lossy(input).into_owned(),
            });
        }
    };
    let wait_before = clock.wait_before(&process);
    let deadline = clock.deadline_crediting(began, Duration::ZERO, wait_before);
    let result = async {
        // A bot may exit without reading its input: a broken pipe here is not a fault.
        let _ = process.send(input, deadline).await;
        process.close_stdin();
        process.run_to_exit(deadline).await
    }
    .await;
    let (elapsed, waited) = TurnClock::charged(&process, began, &deadline);
    let cpu = process.cpu_time();
    let over_memory = process.memory_exceeded();
    let disk_full = process.disk_full();
    // A sandboxed bot that ended on its own is all gone but for its helper, which is
    // tearing the bot's namespaces down (milliseconds): that and the cgroup's removal
    // go on in the background instead of holding up the game.
    let ended = process.reports_end() && result.is_ok();
    if !ended {
        process.kill().await;
    }
    process.finish_stderr(Duration::from_millis(100)).await;
    let stderr = process.take_stderr().await;
    if ended {
        tokio::spawn(async move { process.kill().await });
    }
    let output = move_output(cmd, result, over_memory, clock).map_err(|fault| with_disk_cause(disk_full, fault));
    Ok(Once { output, elapsed, cpu, waited, stderr, input: String::from_utf8_lossy(input).into_owned() })
}

/// What a per-move process's run gave: its stdout, or its fault (over its memory cap,
/// a non-zero exit or a death by signal, a failed read or wait).
fn move_output(
    cmd: &jail::Command,
    result: Result<(ExitStatus, Vec<u8>), jail::Failure>,
    over_memory: bool,
    clock: &TurnClock,
) -> Result<Vec<u8>, Fault> {
    match result {
        _ if over_memory => Err(memory_fault(cmd)),
        Ok((status, output)) => match exit_fault(status) {
            Some(fault) => Err(fault),
            None => Ok(output),
        },
        Err(failure) => Err(failure_fault(failure, clock)),
    }
}

/// The processes of a per-move interface, one per move, all of one command. Without the
/// sandbox each move starts its process afresh ([`run_once`]). In the sandbox the moves
/// run in a zygote (`jail::Process::spawn_zygote`): the helper with its cgroups,
/// namespaces and confinement, kept for the game, which starts each move's process
/// inside and kills what it leaves, so that a move pays for the bot's own start only.
/// A zygote is kept while its moves end cleanly and given up after any fault (a crash,
/// a timeout, the memory cap); a move after that gets a fresh one. With a stock of
/// sandboxes started ahead ([`crate::ahead`]) the seat's first zygote, and the folder it
/// works in, come from the stock.
pub struct Launcher {
    command: jail::Command,
    /// The seat's seed ([`SeatContext::bot_seed`]); each move's process gets one derived
    /// from it and the move's number (`ARBITER_SEED`).
    seed: Option<u32>,
    /// The moves started so far.
    moves: u64,
    /// The zygote of the last move, when it ended cleanly.
    kept: Option<jail::Process>,
    /// A zygote being started for the next move.
    next: Option<tokio::task::JoinHandle<std::io::Result<jail::Process>>>,
    /// The folder of its own that the seat works in, when it came with a sandbox of the
    /// stock (else the game's folder, not the launcher's).
    own: Option<crate::folders::GameFolder>,
    /// The seat, counted by the stock while it plays.
    _in_use: Option<crate::ahead::InUse>,
}

impl Launcher {
    /// In the sandbox, and inside a runtime, the first zygote starts at once, off the
    /// runtime's threads, so that it is ready by the seat's first move.
    pub fn new(mut command: jail::Command) -> Launcher {
        command.per_move = true;
        let next = match (&command.sandbox, tokio::runtime::Handle::try_current()) {
            (Some(_), Ok(runtime)) => {
                let command = command.clone();
                Some(runtime.spawn_blocking(move || jail::Process::spawn_zygote(&command)))
            }
            _ => None,
        };
        Launcher { command, seed: None, moves: 0, kept: None, next, own: None, _in_use: None }
    }

    /// The launcher of a seat that runs `bot` with `args` on each move: in the game's
    /// folder ([`Launcher::new`]), or, for a seat the stock serves
    /// ([`crate::ahead::Ahead::serves`]), in the sandbox started ahead for it (else one
    /// started now), in a folder of its own; either way the stock then starts the
    /// sandbox of the bot's next game.
    pub async fn open(bot: &ProgramBot, ctx: &SeatContext, args: &[&str]) -> Result<Launcher, StartError> {
        let ahead = ctx.ahead.as_ref().filter(|_| crate::ahead::Ahead::serves(bot.manifest.protocol, ctx.limits.sandboxed));
        let Some(ahead) = ahead else {
            let mut launcher = Launcher::new(command(bot, &ctx.workdir, &ctx.limits, args));
            launcher.seed = Some(ctx.bot_seed());
            return Ok(launcher);
        };
        let args: Vec<String> = args.iter().map(|arg| arg.to_string()).collect();
        let (stocked, in_use) = ahead.open(bot, &ctx.limits, &args);
        let prepared = match stocked {
            Some(handle) => handle.await.ok().flatten(),
            None => None,
        };
        // A sandbox started ahead by a game on another lane is moved to this one's CPU.
        if let (Some(prepared), Some(cpu)) = (&prepared, jail::affinity::lane_cpu()) {
            prepared.zygote.move_to_cpu(cpu);
        }
        let prepared = match prepared {
            Some(prepared) => prepared,
            None => crate::ahead::Prepared::start(bot, &ctx.limits, &args).await?,
        };
        Ok(Launcher {
            command: prepared.command,
            seed: Some(ctx.bot_seed()),
            moves: 0,
            kept: Some(prepared.zygote),
            next: None,
            own: Some(prepared.folder),
            _in_use: Some(in_use),
        })
    }

    /// The bot's working directory as its command gives it: the game's, or the seat's own
    /// (in a root of the bot's own, only the files put there before its sandbox started).
    pub fn workdir(&self) -> &Path {
        &self.command.cwd
    }

    /// Whether the bot runs in a root of its own, its working folder a tmpfs there.
    pub fn in_own_root(&self) -> bool {
        self.command.sandbox.as_ref().is_some_and(|s| s.root.is_some())
    }

    /// Where the referee reaches the bot's working files between moves (the Gomoku file
    /// interface's field and answer): in a root of the bot's own, its working folder there
    /// (the sandbox kept for the moves is started, or taken, and awaited until ready);
    /// else the working directory. `Ok(None)`: the sandbox failed to start, which the move
    /// will report.
    pub async fn files(&mut self) -> Result<std::path::PathBuf, RefereeError> {
        if !self.in_own_root() {
            return Ok(self.command.cwd.clone());
        }
        let program = self.command.program.display().to_string();
        let what = || format!("cannot start the sandbox for {program}");
        let mut zygote = self.zygote().await.map_err(|err| RefereeError::new(what(), err))?;
        let ready = zygote.ready(jail::Deadline::wall_in(SANDBOX_READY)).await;
        let files = zygote.files().map(Path::to_path_buf);
        self.kept = Some(zygote);
        match (ready, files) {
            (Ok(()), Some(files)) => Ok(files),
            (Err(failure), _) => Err(RefereeError::new(what(), std::io::Error::other(failure.to_string()))),
            (Ok(()), None) => Err(RefereeError::new(what(), std::io::Error::other("its root has no working folder"))),
        }
    }

    /// At the game's end: its zygote killed (as when dropped, not waited for), the
    /// seat's own folder removed.
    pub async fn finish(&mut self) {
        drop(self.kept.take());
        if let Some(own) = self.own.take() {
            own.remove_async().await;
        }
    }

    /// One move: [`run_once`] of the launcher's command, in the sandbox through its zygote.
    pub async fn run_once(&mut self, input: &[u8], clock: &TurnClock) -> Result<Once, RefereeError> {
        // Each move's process its own seed, derived from the seat's and the move's number.
        self.moves += 1;
        let env: Vec<(String, String)> = self
            .seed
            .map(|seed| (crate::SEED_VAR.to_string(), crate::derive_seed(u64::from(seed), self.moves).to_string()))
            .into_iter()
            .collect();
        if self.command.sandbox.is_none() {
            let mut command = self.command.clone();
            command.env.extend(env.iter().map(|(k, v)| (k.into(), v.into())));
            return run_once(&command, input, clock).await;
        }
        let mut zygote = match self.zygote().await {
            Ok(zygote) => zygote,
            Err(err) => return Err(RefereeError::new(format!("cannot start the sandbox for {}", self.command.program.display()), err)),
        };
        // Ready before the move's clock starts: setting up the sandbox is not the bot's time.
        if let Err(failure) = zygote.ready(jail::Deadline::wall_in(SANDBOX_READY)).await {
            return Err(RefereeError::new(
                format!("the sandbox for {} did not get ready", self.command.program.display()),
                std::io::Error::other(failure.to_string()),
            ));
        }
        let began = Instant::now();
        let cpu_before = zygote.cpu_time();
        let wait_before = clock.wait_before(&zygote);
        let deadline = clock.deadline_crediting(began, cpu_before, wait_before);
        let result = zygote.run_move(input, &env, deadline).await;
        let (elapsed, waited) = TurnClock::charged(&zygote, began, &deadline);
        let cpu = zygote.cpu_time().saturating_sub(cpu_before);
        let over_memory = zygote.memory_exceeded();
        if let Some(status) = zygote.try_exit()
            && !over_memory
        {
            // The zygote is ours: a move's process cannot end it (it is pid 1 of the
            // sandbox's PID namespace, and not dumpable).
            return Err(RefereeError::new(
                format!("the sandbox of {} ended during a move", self.command.program.display()),
                std::io::Error::other(format!("{status}")),
            ));
        }
        let output = move_output(&self.command, result, over_memory, clock).map_err(|fault| with_disk_cause(zygote.disk_full(), fault));
        let stderr = if output.is_ok() {
            let stderr = zygote.take_stderr().await;
            self.kept = Some(zygote);
            stderr
        } else {
            give_up(&mut zygote).await
        };
        Ok(Once { output, elapsed, cpu, waited, stderr, input: String::from_utf8_lossy(input).into_owned() })
    }

    /// The kept zygote, else the one being started, else a new one; one that died while
    /// it waited (killed from outside) is replaced.
    async fn zygote(&mut self) -> std::io::Result<jail::Process> {
        if let Some(mut kept) = self.kept.take()
            && kept.try_exit().is_none()
        {
            return Ok(kept);
        }
        if let Some(next) = self.next.take()
            && let Ok(Ok(mut next)) = next.await
            && next.try_exit().is_none()
        {
            return Ok(next);
        }
        let command = self.command.clone();
        tokio::task::spawn_blocking(move || jail::Process::spawn_zygote(&command)).await.map_err(std::io::Error::other)?
    }
}

/// The fault of a bot killed for going over its memory cap of `cap` bytes.
fn memory_fault_of(cap: Option<u64>) -> Fault {
    let cap = cap.map(|bytes| format!(" of {} MB", bytes / (1024 * 1024))).unwrap_or_default();
    Fault::new(FaultKind::Crash, format!("exceeded its memory cap{cap} and was killed"))
}

/// The fault of a per-move process killed for going over its memory cap.
pub fn memory_fault(cmd: &jail::Command) -> Fault {
    memory_fault_of(cmd.limits.memory)
}

/// A crash of a bot that ran into its memory cap (its cgroup killed it) is a memory
/// fault; any fault of a bot whose disk quota is full says so; any other fault stays as
/// it is.
pub fn with_memory_cause(process: &jail::Process, fault: Fault) -> Fault {
    if fault.kind == FaultKind::Crash && process.memory_exceeded() {
        return memory_fault_of(process.memory_cap());
    }
    with_disk_cause(process.disk_full(), fault)
}

/// A fault of a bot whose disk quota was full, said so in its detail.
pub fn with_disk_cause(disk_full: bool, mut fault: Fault) -> Fault {
    if disk_full {
        fault.detail.push_str(" (its disk quota was full: see the disk-mb and files limits)");
    }
    fault
}

/// The fault of a bot found to have run while it was paused between its moves
/// (`jail::Process::resume`): `cpu` of CPU time beyond what its pause allows.
pub fn ran_while_paused(cpu: Duration) -> Fault {
    Fault::new(
        FaultKind::ProtocolError,
        format!("ran while it was paused between its moves ({} ms of CPU time): a bot must not undo its pause", cpu.as_millis()),
    )
}

/// The fault of a bot whose disk quota is full, where the referee could not write its
/// files.
pub fn disk_full_fault(what: &str) -> Fault {
    Fault::new(FaultKind::Crash, format!("{what}: its disk quota is full (see the disk-mb and files limits)"))
}

/// The fault of a process that exited with `status`, `None` for a clean exit.
pub fn exit_fault(status: ExitStatus) -> Option<Fault> {
    use std::os::unix::process::ExitStatusExt;
    if status.success() {
        return None;
    }
    let detail = match (status.code(), status.signal()) {
        (Some(code), _) => format!("exited with status {code}"),
        (None, Some(signal)) => format!("killed by signal {signal} ({})", signal_name(signal)),
        _ => "ended abnormally".to_string(),
    };
    Some(Fault::new(FaultKind::Crash, detail))
}

fn signal_name(signal: i32) -> &'static str {
    match signal {
        4 => "SIGILL",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        13 => "SIGPIPE",
        15 => "SIGTERM",
        24 => "SIGXCPU",
        25 => "SIGXFSZ",
        _ => "signal",
    }
}

/// The fault for a failed read, write or wait.
pub fn failure_fault(failure: jail::Failure, clock: &TurnClock) -> Fault {
    match failure {
        jail::Failure::Timeout(limit) => Fault::new(FaultKind::Timeout, clock.describe(limit)),
        jail::Failure::Eof => Fault::new(FaultKind::Crash, "closed its output before answering"),
        jail::Failure::TooLong(cap) => Fault::new(FaultKind::ProtocolError, format!("wrote more than {cap} bytes without a line end")),
        other @ (jail::Failure::StdinClosed
        | jail::Failure::Write(_)
        | jail::Failure::Read(_)
        | jail::Failure::Wait(_)
        | jail::Failure::Sandbox(_)) => Fault::new(FaultKind::Crash, other.to_string()),
    }
}
