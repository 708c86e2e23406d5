//! `arbiter play GAME A B`: games between bots (built-in, human, or programs named by
//! their manifests), sides alternating, with the result of each game, a summary (text
//! or JSON), and optionally a record file per game (new files only: an earlier run's
//! records in the folder are kept).

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;
use referee::resources::GameResources;
use referee::{BotSpec, GameRecord, GameSetup, Termination};
use rules::{AnyPosition, GameKind, Options};
use serde::Serialize;

use crate::game_args::{GameChoice, ReuseArgs, RunArgs, ahead, bot, derive, print_stderr, side_limits, write_record};
use crate::terminal::printable;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    game: GameChoice,
    /// The first bot: random, greedy, human, or a bot.toml (or its folder). It moves
    /// first in games 1, 3, 5, ...
    a: String,
    /// The second bot, named the same way. It moves first in games 2, 4, 6, ...
    b: String,
    /// How many games to play; sides alternate, and each pair of games shares its start.
    #[arg(long, short = 'n', default_value_t = 1)]
    games: u32,
    /// A file with the start position in the game's start text (Gomoku field,
    /// Pah-tum board); by default the game's own or a random one from the seed.
    #[arg(long, value_name = "FILE")]
    start: Option<PathBuf>,
    /// Print the position after every move, with the bots' debug output.
    #[arg(long)]
    show: bool,
    #[command(flatten)]
    run: RunArgs,
    #[command(flatten)]
    sandbox: super::sandboxing::SandboxArgs,
    #[command(flatten)]
    reuse: ReuseArgs,
    #[command(flatten)]
    engine: super::engine_args::EngineArgs,
    #[command(flatten)]
    pin: super::PinArgs,
}

#[derive(Serialize)]
struct GameReport {
    index: u32,
    seed: u64,
    /// The player names, side 0 (moves first) first.
    players: [String; 2],
    start: Option<String>,
    moves: Vec<String>,
    /// Side index of the winner, or null for a draw.
    winner: Option<usize>,
    /// Name of the winning player, or null for a draw.
    winner_name: Option<String>,
    scores: Option<[i64; 2]>,
    termination: Termination,
    #[serde(skip_serializing_if = "Option::is_none")]
    record: Option<PathBuf>,
}

#[derive(Serialize, Default)]
struct Tally {
    name: String,
    wins: u32,
    draws: u32,
    losses: u32,
    /// 1 per win, 1/2 per draw.
    points: f64,
    /// Sum of the player's game scores, in games that have scores.
    score_sum: Option<i64>,
    /// Games lost by a fault (timeout, illegal move, crash, protocol error).
    faults: u32,
}

#[derive(Serialize)]
struct Summary {
    game: &'static str,
    options: Options,
    seed: u64,
    games: Vec<GameReport>,
    players: [Tally; 2],
    average_moves: f64,
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    let (kind, options, overrides) = args.game.read()?;
    let mut bots = [bot(&args.a, kind)?, bot(&args.b, kind)?];
    args.engine.apply_options(&mut bots)?;
    let (adjudication, pgn) = (args.engine.adjudication()?, args.engine.pgn_out(kind)?);
    let bots = std::sync::Arc::new(bots);
    let has_programs = bots.iter().any(|b| matches!(b, BotSpec::Program(_)));
    let sandbox = super::sandboxing::decide(args.sandbox.to_policy(), has_programs)?;
    super::sandboxing::warn(&sandbox);
    let seed = args.run.seed.unwrap_or_else(fresh_seed);
    let start_file = match &args.start {
        Some(path) => Some(std::fs::read_to_string(path).with_context(|| format!("cannot read start position {}", path.display()))?),
        None => None,
    };
    if args.games == 0 {
        bail!("--games must be at least 1");
    }
    let book = args.engine.book(kind, &options, seed)?;
    if book.is_some() && start_file.is_some() {
        bail!("--start and --openings both give the start: use one");
    }
    if let Some(dir) = &args.run.record {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create record folder {}", dir.display()))?;
    }
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().context("cannot start the async runtime")?;
    // A person at the terminal answers through a blocking read, which a lane's runtime
    // cannot host; and a game against a person has no clock to be fair to.
    let person = bots.iter().any(|b| matches!(b, BotSpec::Human));
    let resources = GameResources::new(args.reuse.pool(1), ahead(sandbox.sandboxed, 1), if person { None } else { args.pin.lanes(1)? });
    if !args.run.json {
        println!("{kind}: {} vs {}, {} game(s), seed {seed}", args.a, args.b, args.games);
    }
    // Two copies of one player get numbered names, so that the results tell them apart.
    let names = if bots[0].name() == bots[1].name() {
        [format!("{}-1", bots[0].name()), format!("{}-2", bots[1].name())]
    } else {
        [bots[0].name(), bots[1].name()]
    };
    let mut tallies = names.clone().map(|name| Tally { name, ..Tally::default() });
    let mut reports = Vec::new();
    let mut start_pos: Option<AnyPosition> = None;
    for idx in 0..args.games {
        // Each pair of games (2k, 2k+1) plays from one start with the sides swapped.
        if idx % 2 == 0 || start_pos.is_none() {
            let text = match (&start_file, &book) {
                (_, Some(book)) => Some(book[(idx / 2) as usize % book.len()].clone()),
                (Some(text), None) => Some(text.clone()),
                (None, None) => kind.random_start(&options, &mut ChaCha8Rng::seed_from_u64(derive(seed, u64::from(idx / 2) | 1 << 63)))?,
            };
            start_pos = Some(kind.new_position(&options, text.as_deref()).context("start position")?);
        }
        let start = start_pos.clone().expect("set above");
        let order = if idx % 2 == 0 { [0, 1] } else { [1, 0] };
        let game_seed = derive(seed, u64::from(idx));
        let mut setup = GameSetup::new(start.clone(), options.clone(), game_seed);
        setup.pool = resources.pool();
        setup.ahead = resources.ahead();
        setup.adjudication = adjudication;
        setup.limits = order.map(|player| side_limits(setup.limits[0], &bots[player], &overrides));
        for limits in &mut setup.limits {
            limits.sandboxed = sandbox.sandboxed;
        }
        if args.show {
            println!(
                "\ngame {}: {} ({}) vs {} ({})\n{}",
                idx + 1,
                printable(&names[order[0]]),
                kind.side_names()[0],
                printable(&names[order[1]]),
                kind.side_names()[1],
                start.picture()
            );
        }
        let show = args.show;
        let game = {
            let bots = std::sync::Arc::clone(&bots);
            async move {
                referee::play_game(&setup, [&bots[order[0]], &bots[order[1]]], |pos, turn| {
                    if show {
                        let side = kind.side_names()[turn.side];
                        println!("{}. {side} plays {} ({} ms)", pos.n_moves(), turn.text.as_deref().unwrap_or("?"), turn.ms);
                        if let Some(note) = &turn.note {
                            println!("   {note}");
                        }
                        print_stderr(&turn.stderr, turn.stderr_dropped);
                        println!("{}", pos.picture());
                    }
                })
                .await
            }
        };
        // As a tournament plays it: on a lane, pinned to a core with its bots.
        let record = match resources.lanes() {
            Some(lanes) => runtime.block_on(lanes.run(game)),
            None => runtime.block_on(game),
        }
        .with_context(|| format!("game {} was not played", idx + 1))?;
        if show && let Some(last) = record.turns.last().filter(|turn| turn.text.is_none()) {
            print_stderr(&last.stderr, last.stderr_dropped);
        }
        // A bot that failed to start: what it wrote is all there is to go by (a
        // traceback, a missing library), so it is shown even without --show.
        if !args.run.json {
            for startup in &record.startup {
                let name = &names[order[startup.side]];
                if startup.stderr.is_empty() {
                    println!("{name} failed to start and wrote nothing on stderr");
                } else {
                    println!("{name} failed to start; its stderr:");
                    print_stderr(&startup.stderr, startup.stderr_dropped);
                }
            }
        }
        let path = match &args.run.record {
            Some(dir) => Some(write_record(dir, &record)?),
            None => None,
        };
        if let Some(pgn) = &pgn {
            pgn.write(&record, "Arbiter play", (idx + 1).to_string(), [&names[order[0]], &names[order[1]]])?;
        }
        let report = report(idx, &record, [&names[order[0]], &names[order[1]]], path);
        for (side_idx, &player_idx) in order.iter().enumerate() {
            let tally = &mut tallies[player_idx];
            match record.result.winner {
                None => {
                    tally.draws += 1;
                    tally.points += 0.5;
                }
                Some(side) if side == side_idx => {
                    tally.wins += 1;
                    tally.points += 1.0;
                }
                Some(_) => tally.losses += 1,
            }
            if record.result.termination.side().is_some_and(|s| s.index() == side_idx) {
                tally.faults += 1;
            }
            if let Some(scores) = record.result.scores {
                *tally.score_sum.get_or_insert(0) += scores[side_idx];
            }
        }
        if !args.run.json {
            println!("{}", printable(&describe(kind, &report)));
        }
        reports.push(report);
    }
    runtime.block_on(resources.close());
    let written: Vec<PathBuf> = reports.iter().filter_map(|r| r.record.clone()).collect();
    let average_moves = reports.iter().map(|r| r.moves.len() as f64).sum::<f64>() / reports.len() as f64;
    let summary = Summary { game: kind.name(), options, seed, games: reports, players: tallies, average_moves };
    if args.run.json {
        println!("{}", serde_json::to_string_pretty(&summary)?);
    } else {
        println!("\nsummary after {} game(s), {:.1} moves on average:", summary.games.len(), average_moves);
        let width = summary.players.iter().map(|t| text::width(&printable(&t.name))).max().unwrap_or(0);
        for tally in &summary.players {
            let total = f64::from(tally.wins + tally.draws + tally.losses);
            let sums = tally.score_sum.map(|s| format!(", game scores {s} in all")).unwrap_or_default();
            let faults = if tally.faults > 0 { format!(", {} lost by faults", tally.faults) } else { String::new() };
            println!(
                "  {} {} wins, {} draws, {} losses: {} points ({:.1}%){sums}{faults}",
                text::pad(&printable(&tally.name), width),
                tally.wins,
                tally.draws,
                tally.losses,
                tally.points,
                100.0 * tally.points / total
            );
        }
        if let (Some(first), Some(last)) = (written.first(), written.last()) {
            let name = |path: &Path| path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            let dir = args.run.record.as_deref().unwrap_or(Path::new("."));
            if written.len() == 1 {
                println!("record written to {}", first.display());
            } else {
                println!("{} records written to {}: {} to {}", written.len(), dir.display(), name(first), name(last));
            }
        }
    }
    Ok(())
}

fn report(idx: u32, record: &GameRecord, names: [&String; 2], path: Option<PathBuf>) -> GameReport {
    GameReport {
        index: idx + 1,
        seed: record.seed,
        players: [names[0].clone(), names[1].clone()],
        start: record.start.clone(),
        moves: record.moves.clone(),
        winner: record.result.winner,
        winner_name: record.result.winner.map(|side| names[side].clone()),
        scores: record.result.scores,
        termination: record.result.termination.clone(),
        record: path,
    }
}

fn describe(kind: GameKind, report: &GameReport) -> String {
    let sides = kind.side_names();
    let verdict = match (&report.winner, &report.winner_name) {
        (Some(side), Some(name)) => format!("{name} ({}) wins", sides[*side]),
        _ => "draw".to_string(),
    };
    let scores = report.scores.map(|[a, b]| format!(", {a}:{b}")).unwrap_or_default();
    let how = match &report.termination {
        Termination::Rules => String::new(),
        other => format!(" ({})", other.describe(sides)),
    };
    format!(
        "game {}: {} ({}) vs {} ({}): {verdict}{scores} after {} moves{how}",
        report.index,
        report.players[0],
        sides[0],
        report.players[1],
        sides[1],
        report.moves.len()
    )
}

fn fresh_seed() -> u64 {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    derive(nanos as u64, u64::from(std::process::id()))
}
