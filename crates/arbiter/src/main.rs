//! The `arbiter` command: argument parsing and wiring of the library crates. Each
//! subcommand lives in its own module; errors end here as one line and an exit code.

mod analyse;
mod bench;
mod bench_play;
mod bot;
mod doctor;
mod engine_args;
mod game_args;
mod games;
mod host;
mod info;
mod languages_cmd;
mod logs;
mod match_cmd;
mod new_kit;
mod openings_cmd;
mod play;
mod players_cmd;
mod remote_worker;
mod replay;
mod replay_turn;
mod sandboxing;
mod serve;
mod shared_work;
mod standings_cmd;
mod system_cmd;
mod terminal;
mod tournament_cmd;
mod verify;
mod worker_cmd;
mod workers_cmd;

use std::process::ExitCode;

use anyhow::{Context, bail};
use clap::{Parser, Subcommand};
use rules::{GameKind, Options};

/// Referee and tournament system for game-playing programs.
#[derive(Parser, Debug)]
#[command(name = "arbiter", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// List the games, their options and defaults.
    Games(games::Args),
    /// Play games between players and print the results.
    Play(play::Args),
    /// Play a head-to-head match and report the Elo difference (optionally as a sequential test).
    Match(match_cmd::Args),
    /// Check game records: JSON lines on stdin, one JSON verdict per line on stdout.
    Verify(verify::Args),
    /// Measure random playouts per second of each game on one thread.
    Bench(bench::Args),
    /// Measure games per second and time per move of real bots through the referee.
    BenchPlay(bench_play::Args),
    /// Run a built-in player as a bot program speaking the project's own protocol.
    Bot(bot::Args),
    /// List the built-in players of each game with their measured strength.
    Players(players_cmd::Args),
    /// Analyse a position: exact for Connect Four 7x6, the strong player's search otherwise.
    Analyse(analyse::Args),
    /// Host games between clients over TCP (the Connect Four test environment).
    Host(host::Args),
    /// Show what a bot says about itself through its interface.
    Info(info::Args),
    /// Check that a bot is fit to enter: a short session through its interface, each problem explained.
    Doctor(doctor::Args),
    /// Write a starter kit: a bot that plays legal moves, its manifest and a README.
    New(new_kit::Args),
    /// List the languages bots may be written in, with the version each has in the bots' root.
    Languages(languages_cmd::Args),
    /// Step through a game record, or list, replay and export the games of a results database.
    Replay(replay::Args),
    /// Generate reproducible start positions for a tournament.
    Openings(openings_cmd::Args),
    /// Run (or resume) a tournament from its config, storing every game.
    Tournament(tournament_cmd::Args),
    /// Play a tournament's games from any machine: from its PostgreSQL database, or from `arbiter serve` over HTTP.
    Worker(worker_cmd::Args),
    /// Make, revoke and list the tokens of HTTP workers (`worker --server URL --token T`).
    Workers(workers_cmd::Args),
    /// Print the standings and the cross table of a tournament's database.
    Standings(standings_cmd::Args),
    /// Serve the web arena: live tournaments, replays, the testing ground, human play, submissions.
    Serve(serve::Args),
    /// Say which of the sandbox's guarantees this machine enforces.
    SandboxCheck(sandboxing::CheckArgs),
    /// Build the bots' system image (Debian's packages of every language, with mmdebstrap).
    System(system_cmd::Args),
}

/// Sets the system every sandboxed bot sees from `ARBITER_SYSTEM_IMAGE` or
/// `ARBITER_SYSTEM_PATHS`, refusing a value that cannot be used.
fn sandbox_system() -> anyhow::Result<()> {
    use sandbox::machine::{IMAGE_VAR, PATHS_VAR};
    let system = sandbox::machine::from_environment().with_context(|| format!("{IMAGE_VAR} or {PATHS_VAR}"))?;
    if let Some(system) = system {
        sandbox::machine::set_system(system)?;
    }
    Ok(())
}

fn main() -> ExitCode {
    quiet_on_closed_output();
    let matches = <Cli as clap::CommandFactory>::command().get_matches();
    let cli = <Cli as clap::FromArgMatches>::from_arg_matches(&matches).unwrap_or_else(|err| err.exit());
    logs::init(matches.subcommand_name().unwrap_or("arbiter"));
    // The system the bots see, as the organiser set it in the environment: checked once,
    // before any bot starts (`docs/security.md`).
    if let Err(err) = sandbox_system() {
        eprintln!("arbiter: {err:#}");
        return ExitCode::FAILURE;
    }
    let result = match cli.command {
        Command::Games(args) => games::run(&args),
        Command::Play(args) => play::run(&args),
        Command::Match(args) => match_cmd::run(&args),
        Command::Verify(args) => verify::run(&args),
        Command::Bench(args) => bench::run(&args),
        Command::BenchPlay(args) => bench_play::run(&args),
        Command::Bot(args) => bot::run(&args),
        Command::Players(args) => players_cmd::run(&args),
        Command::Analyse(args) => analyse::run(&args),
        Command::Host(args) => host::run(&args),
        Command::Info(args) => info::run(&args),
        Command::Doctor(args) => doctor::run(&args),
        Command::New(args) => new_kit::run(&args),
        Command::Languages(args) => languages_cmd::run(&args),
        Command::Replay(args) => replay::run(&args),
        Command::Openings(args) => openings_cmd::run(&args),
        Command::Tournament(args) => tournament_cmd::run(&args),
        Command::Standings(args) => standings_cmd::run(&args),
        Command::Serve(args) => serve::run(&args),
        Command::Worker(args) => worker_cmd::run(&args),
        Command::Workers(args) => workers_cmd::run(&args),
        Command::SandboxCheck(args) => sandboxing::run_check(&args),
        Command::System(args) => system_cmd::run(&args),
    };
    // Games a stopped run dropped on its lanes are still being torn down there (their
    // bots killed, their folders removed): the process waits for that before it exits.
    referee::lanes::join_dropped();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("arbiter: {}", one_line(&err));
            ExitCode::FAILURE
        }
    }
}

/// When whoever reads our output stops reading (`arbiter replay DB | head`), ends the
/// command quietly with the status of a process killed by SIGPIPE (141), as Unix tools
/// do, instead of Rust's print macros' panic message.
fn quiet_on_closed_output() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let message = payload.downcast_ref::<String>().map(String::as_str).or_else(|| payload.downcast_ref::<&str>().copied());
        if message.is_some_and(|m| m.starts_with("failed printing to stdout") && m.contains("Broken pipe")) {
            std::process::exit(141);
        }
        default(info)
    }));
}

/// An error and its causes on one line: "what we tried: why it failed". A cause whose
/// words the line already holds (an error that prints its source) is not repeated.
fn one_line(err: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in err.chain().map(ToString::to_string) {
        if line.contains(&cause) {
            continue;
        }
        if !line.is_empty() {
            line.push_str(": ");
        }
        line.push_str(&cause);
    }
    line
}

/// How many players may think at once (`--cores`), for the commands that play games in
/// parallel.
#[derive(clap::Args, Debug, Clone, Default)]
struct CoresArgs {
    /// Players that compute at the same time (default: the
    /// cores this process may use). With more games at once (-j), a turn waits for a
    /// core before its clock starts.
    #[arg(long, value_name = "N")]
    cores: Option<usize>,
}

impl CoresArgs {
    /// Sizes the referee's set of cores and says so, in one line on stderr, when `-j`
    /// plays more games at once than players may think at once (their turns then take
    /// turns for the cores), or when `--cores` is above the machine's (bots then share
    /// cores while their wall clocks run); `quiet` for a command with no program bots.
    fn apply(&self, jobs: usize, quiet: bool) -> anyhow::Result<()> {
        let machine = referee::cores::available();
        let cores = match self.cores {
            Some(0) => bail!("--cores must be at least 1"),
            Some(n) => n,
            None => machine,
        };
        if let Err(in_force) = referee::cores::set(cores) {
            bail!("--cores {cores}: the cores were already set to {in_force}");
        }
        if quiet {
            return Ok(());
        }
        if cores > machine {
            eprintln!(
                "warning: --cores {cores} lets {cores} players compute at once on {machine} core(s): they share the cores while their wall-clock time runs; use --cores {machine} or less, or time moves in CPU time (move-cpu-ms)"
            );
        } else if jobs > cores {
            eprintln!(
                "note: -j {jobs} plays {jobs} games at once on {cores} core(s): at most {cores} player(s) compute at once, each on a core of its own, and a turn waits for a free core before its clock starts"
            );
        }
        Ok(())
    }
}

/// Whether games run on cores of their own (`--no-pin`), for the commands that play
/// bots' games.
#[derive(clap::Args, Debug, Clone, Default)]
struct PinArgs {
    /// Leave the games' threads and bots to the scheduler: by default, with no more
    /// games at a time (-j) than cores, each game and its bots run on a core of its own.
    #[arg(long)]
    no_pin: bool,
}

impl PinArgs {
    /// Whether the games run on cores of their own (no `--no-pin`).
    fn pinned(&self) -> bool {
        !self.no_pin
    }

    /// The lanes `jobs` games at a time are played on ([`arena::start_lanes`]), or none
    /// with `--no-pin`.
    fn lanes(&self, jobs: usize) -> anyhow::Result<Option<std::sync::Arc<referee::lanes::Lanes>>> {
        Ok(arena::start_lanes(self.pinned(), jobs)?)
    }
}

/// Reads `-o key=value` arguments into game options, checked against the game.
fn parse_options(kind: GameKind, pairs: &[String]) -> anyhow::Result<Options> {
    let mut options = Options::new();
    for pair in pairs {
        let Some((key, value)) = pair.split_once('=') else {
            bail!("option {pair:?} is not key=value (e.g. -o width=20)");
        };
        let key = key.trim();
        if options.insert(key.to_string(), value.trim().to_string()).is_some() {
            bail!("option {key} is given twice");
        }
    }
    // Building the default start checks every name and value, so a typo is reported
    // before any work starts rather than in the middle of it.
    let mut rng = <rand::rngs::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(0);
    let start = kind.random_start(&options, &mut rng)?;
    kind.new_position(&options, start.as_deref()).with_context(|| format!("options for {kind}"))?;
    Ok(options)
}
