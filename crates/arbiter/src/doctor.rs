//! `arbiter doctor BOT`: checks whether a program bot is fit to enter and explains each
//! problem in plain words with the lines exchanged (`referee::doctor`). The project's
//! protocol and the Gomocup protocol are examined in a scripted session in each seat; a
//! bot of another interface plays two games against the random player and the doctor
//! reports the referee's verdicts. Exit 0 when the bot is fit.

use anyhow::{Context, bail};
use rand::SeedableRng;
use referee::doctor::{self, Checkup, Problem, ProblemKind};
use referee::{BotSpec, GameSetup, Termination};
use rules::{GameKind, Side};

use crate::terminal::printable;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The bot: a bot.toml or its folder.
    bot: String,
    /// The game to examine a bot of `game = "any"` in [default: the first game `arbiter games` lists, gomoku].
    #[arg(long)]
    game: Option<String>,
    /// A game option, e.g. `-o width=20` (repeatable).
    #[arg(short = 'o', long = "option", value_name = "KEY=VALUE")]
    options: Vec<String>,
    /// A limit overriding the game's and the manifest's: move-ms, game-ms, cpu-ms,
    /// memory-mb, stderr-kb, disk-mb, files (repeatable).
    #[arg(short = 'l', long = "limit", value_name = "KEY=VALUE")]
    limits: Vec<String>,
    #[command(flatten)]
    sandbox: super::sandboxing::SandboxArgs,
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    let spec = BotSpec::from_arg(&args.bot)?;
    let BotSpec::Program(bot) = &spec else {
        bail!("{} is a built-in player: the doctor examines program bots (a bot.toml or its folder)", spec.name());
    };
    let kind = match (&args.game, bot.game) {
        (None, Some(game)) => game,
        // A bot of every game is examined in the registry's first game.
        (None, None) => GameKind::ALL[0],
        (Some(name), game) => {
            let kind = GameKind::from_name(name)?;
            if let Some(game) = game.filter(|&game| game != kind) {
                bail!("{} plays {game}, not {kind}", bot.manifest.name);
            }
            kind
        }
    };
    let options = super::parse_options(kind, &args.options)?;
    let overrides = super::play::parse_limits(&args.limits)?;
    let sandbox = super::sandboxing::decide(args.sandbox.to_policy(), true)?;
    super::sandboxing::warn(&sandbox);
    let mut limits = super::play::side_limits(referee::Limits::for_game(kind, &options), &spec, &overrides);
    limits.sandboxed = sandbox.sandboxed;
    let protocol = bot.manifest.protocol;
    println!("doctor: {} ({} protocol) in {kind}, {}", printable(&bot.manifest.name), protocol.name(), limits_text(&limits));
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().context("cannot start the async runtime")?;
    let workdir = tempfile::Builder::new().prefix("arbiter-doctor-").tempdir().context("cannot make a working folder")?;
    let checkup = if doctor::speaks(protocol) {
        println!("a scripted session in each seat, {} moves of the bot each:", doctor::TURNS);
        runtime.block_on(doctor::examine(bot, kind, &options, &limits, workdir.path())).context("the doctor could not examine the bot")?
    } else {
        println!(
            "the {} interface is checked by two games against the random player (the referee's verdicts; the lines exchanged are not shown):",
            protocol.name()
        );
        runtime.block_on(by_playing(&spec, kind, &options, limits))?
    };
    for (idx, problem) in checkup.problems.iter().enumerate() {
        print_problem(idx + 1, problem);
    }
    if checkup.is_fit() {
        println!("fit to enter: {} moves played without a problem", checkup.moves);
        Ok(())
    } else {
        bail!("{} is not fit to enter: {} problem(s), explained above", bot.manifest.name, checkup.problems.len())
    }
}

fn limits_text(limits: &referee::Limits) -> String {
    let secs = |d: Option<std::time::Duration>| d.map_or("none".to_string(), |d| format!("{} s", d.as_secs_f64()));
    let memory = limits.memory.map_or("none".to_string(), |bytes| format!("{} MB", bytes / (1024 * 1024)));
    format!("time per move {}, per game {}, memory {memory}", secs(limits.move_time), secs(limits.game_time))
}

fn print_problem(number: usize, problem: &Problem) {
    println!("\nproblem {number}: {} (as side {})", problem.kind.title(), problem.side.index());
    println!("   {}", printable(&problem.explanation));
    if !problem.exchange.is_empty() {
        println!("   lines exchanged (> to the bot, < from the bot), the last ones:");
        for line in &problem.exchange {
            println!("     {} {}", if line.to_bot { '>' } else { '<' }, printable(&line.text));
        }
    }
    if !problem.stderr.is_empty() {
        println!("   its stderr:");
        for line in problem.stderr.lines() {
            println!("     | {}", printable(line));
        }
    }
}

/// Two games against the random player, one in each seat; every fault of the bot is a
/// problem, with what it wrote on stderr then.
async fn by_playing(spec: &BotSpec, kind: GameKind, options: &rules::Options, limits: referee::Limits) -> anyhow::Result<Checkup> {
    let mut checkup = Checkup::default();
    let random = BotSpec::from_arg("random")?;
    for side in Side::BOTH {
        let mut rng = rand::rngs::ChaCha8Rng::seed_from_u64(side.index() as u64);
        let start = kind.random_start(options, &mut rng)?;
        let start = kind.new_position(options, start.as_deref())?;
        let mut setup = GameSetup::new(start, options.clone(), side.index() as u64);
        setup.limits[side.index()] = limits;
        setup.limits[1 - side.index()].sandboxed = limits.sandboxed;
        let bots = if side == Side::First { [spec, &random] } else { [&random, spec] };
        let record = referee::play_game(&setup, bots, |_, _| {})
            .await
            .with_context(|| format!("the game as side {} was not played", side.index()))?;
        checkup.moves += record.turns.iter().filter(|turn| turn.side == side.index() && turn.text.is_some()).count();
        let termination = &record.result.termination;
        if termination.side() != Some(side) {
            continue;
        }
        let kind = match termination {
            Termination::Crash { .. } => ProblemKind::Crash,
            Termination::IllegalMove { .. } => ProblemKind::IllegalMove,
            Termination::Timeout { .. } => ProblemKind::LateAnswer,
            _ => ProblemKind::WrongFormat,
        };
        let stderr = match record.startup.iter().find(|s| s.side == side.index()) {
            Some(startup) => startup.stderr.clone(),
            None => record.turns.iter().rev().find(|turn| turn.side == side.index()).map(|turn| turn.stderr.clone()).unwrap_or_default(),
        };
        let explanation = format!("the referee ended the game: {}", termination.describe(["side 0", "side 1"]));
        checkup.problems.push(Problem { kind, side, explanation, exchange: Vec::new(), stderr });
    }
    Ok(checkup)
}
