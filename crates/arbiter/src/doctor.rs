//! `arbiter doctor BOT`: checks whether a program bot is fit to enter and explains each
//! problem in plain words with the lines exchanged (`arena::doctor`, as the web arena's
//! entry check does), printing each problem as it is found. The project's protocol and
//! the Gomocup protocol are examined in a scripted session in each seat; a bot of
//! another interface plays two games against the random player and the doctor reports
//! the referee's verdicts. Every exchange is bounded by seconds. Exit 0 when the bot is
//! fit.

use anyhow::{Context, bail};
use referee::BotSpec;
use referee::doctor::{self, Problem, Step};
use rules::GameKind;

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
    let overrides = crate::game_args::parse_limits(&args.limits)?;
    let sandbox = super::sandboxing::decide(args.sandbox.to_policy(), true)?;
    super::sandboxing::warn(&sandbox);
    let mut limits = crate::game_args::side_limits(referee::Limits::for_game(kind, &options), &spec, &overrides);
    limits.sandboxed = sandbox.sandboxed;
    let protocol = bot.manifest.protocol;
    println!("doctor: {} ({} protocol) in {kind}, {}", printable(&bot.manifest.name), protocol.name(), limits_text(&limits));
    if doctor::speaks(protocol) {
        println!(
            "a scripted session in each seat, {} moves of the bot each (it is told at most {} s a move):",
            doctor::TURNS,
            doctor::EXCHANGE_TIME.as_secs()
        );
    } else {
        println!(
            "the {} interface is checked by two games against the random player, at most {} s a move (the referee's verdicts; the lines exchanged are not shown):",
            protocol.name(),
            arena::doctor::MOVE_BOUND.as_secs()
        );
    }
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().context("cannot start the async runtime")?;
    // Each problem is printed as soon as it is found.
    let mut found = 0;
    let mut on_step = |step: Step| {
        if let Step::Problem(problem) = step {
            found += 1;
            print_problem(found, &problem);
        }
    };
    let checkup = runtime.block_on(arena::doctor::examine(bot, kind, &options, &limits, &mut on_step))?;
    if checkup.is_fit() {
        println!("fit to enter: {} moves played without a problem", checkup.moves);
        Ok(())
    } else {
        bail!("{} is not fit to enter: {} problem(s), explained above", bot.manifest.name, checkup.problems.len())
    }
}

/// The limits as the referee applies them: wall-clock time per move and per game, the
/// CPU budget (per game, and per move where there is one) and the memory cap.
fn limits_text(limits: &referee::Limits) -> String {
    let secs = |d: Option<std::time::Duration>| d.map_or("none".to_string(), |d| format!("{} s", d.as_secs_f64()));
    let memory = limits.memory.map_or("none".to_string(), |bytes| format!("{} MB", bytes / (1024 * 1024)));
    let mut cpu = format!("CPU per game {}", secs(limits.game_cpu));
    if limits.move_cpu.is_some() {
        cpu.push_str(&format!(", per move {}", secs(limits.move_cpu)));
    }
    format!("time per move {}, per game {}, {cpu}, memory {memory}", secs(limits.move_time), secs(limits.game_time))
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
