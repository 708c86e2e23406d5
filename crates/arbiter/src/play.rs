//! `arbiter play GAME A B`: games between players, sides alternating, with the result
//! of each game and a summary (text or JSON).

use anyhow::{Context, bail};
use players::Builtin;
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;
use referee::{GameResult, Termination};
use rules::{AnyPosition, GameKind, Options, Side};
use serde::Serialize;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The game: gomoku, connect4, pahtum, legions, nupud (`arbiter games` lists them).
    game: String,
    /// The first player: random or greedy. It moves first in games 1, 3, 5, ...
    a: String,
    /// The second player: random or greedy. It moves first in games 2, 4, 6, ...
    b: String,
    /// How many games to play; sides alternate, and each pair of games shares its start.
    #[arg(long, short = 'n', default_value_t = 1)]
    games: u32,
    /// Seed of all randomness: the same seed plays the same games. Random if not given.
    #[arg(long)]
    seed: Option<u64>,
    /// A game option, e.g. `-o width=20 -o height=20` (repeatable).
    #[arg(short = 'o', long = "option", value_name = "KEY=VALUE")]
    options: Vec<String>,
    /// A file with the start position in the game's start text (Gomoku field,
    /// Pah-tum board); by default the game's own or a random one from the seed.
    #[arg(long, value_name = "FILE")]
    start: Option<std::path::PathBuf>,
    /// Print the position after every move.
    #[arg(long)]
    show: bool,
    /// Print a machine-readable summary (JSON) instead of text.
    #[arg(long)]
    json: bool,
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
    termination: String,
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
    let kind = GameKind::from_name(&args.game)?;
    let options = super::parse_options(kind, &args.options)?;
    let players = [player(&args.a)?, player(&args.b)?];
    let seed = args.seed.unwrap_or_else(fresh_seed);
    let start_file = match &args.start {
        Some(path) => Some(std::fs::read_to_string(path).with_context(|| format!("cannot read start position {}", path.display()))?),
        None => None,
    };
    if args.games == 0 {
        bail!("--games must be at least 1");
    }
    if !args.json {
        println!("{kind}: {} vs {}, {} game(s), seed {seed}", args.a, args.b, args.games);
    }
    // Two copies of one player get numbered names, so that the results tell them apart.
    let names = if args.a == args.b { [format!("{}-1", args.a), format!("{}-2", args.b)] } else { [args.a.clone(), args.b.clone()] };
    let mut tallies = names.map(|name| Tally { name, ..Tally::default() });
    let mut reports = Vec::new();
    let mut start_pos: Option<AnyPosition> = None;
    for idx in 0..args.games {
        // Each pair of games (2k, 2k+1) plays from one start with the sides swapped.
        if idx % 2 == 0 || start_pos.is_none() {
            let text = match &start_file {
                Some(text) => Some(text.clone()),
                None => kind.random_start(&options, &mut ChaCha8Rng::seed_from_u64(derive(seed, u64::from(idx / 2) | 1 << 63)))?,
            };
            start_pos = Some(kind.new_position(&options, text.as_deref()).context("start position")?);
        }
        let start = start_pos.as_ref().expect("set above");
        let order = if idx % 2 == 0 { [0, 1] } else { [1, 0] };
        let game_seed = derive(seed, u64::from(idx));
        if args.show {
            println!(
                "\ngame {}: {} ({}) vs {} ({})\n{}",
                idx + 1,
                tallies[order[0]].name,
                kind.side_names()[0],
                tallies[order[1]].name,
                kind.side_names()[1],
                start.picture()
            );
        }
        let result = referee::play_game(start, [players[order[0]], players[order[1]]], game_seed, |pos, text| {
            if args.show {
                let side = Side::from_index((pos.n_moves() + 1) % 2).map_or("", |s| kind.side_names()[s.index()]);
                println!("{}. {side} plays {text}\n{}", pos.n_moves(), pos.picture());
            }
        });
        let report = report(kind, idx, game_seed, start, &result, [&tallies[order[0]].name, &tallies[order[1]].name]);
        for (side_idx, &player_idx) in order.iter().enumerate() {
            let tally = &mut tallies[player_idx];
            match result.outcome.winner {
                None => {
                    tally.draws += 1;
                    tally.points += 0.5;
                }
                Some(side) if side.index() == side_idx => {
                    tally.wins += 1;
                    tally.points += 1.0;
                }
                Some(_) => tally.losses += 1,
            }
            if let Some(scores) = result.outcome.scores {
                *tally.score_sum.get_or_insert(0) += scores[side_idx];
            }
        }
        if !args.json {
            println!("{}", describe(kind, &report));
        }
        reports.push(report);
    }
    let average_moves = reports.iter().map(|r| r.moves.len() as f64).sum::<f64>() / reports.len() as f64;
    let summary = Summary { game: kind.name(), options, seed, games: reports, players: tallies, average_moves };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&summary)?);
    } else {
        println!("\nsummary after {} game(s), {:.1} moves on average:", summary.games.len(), average_moves);
        for tally in &summary.players {
            let total = f64::from(tally.wins + tally.draws + tally.losses);
            let sums = tally.score_sum.map(|s| format!(", game scores {s} in all")).unwrap_or_default();
            println!(
                "  {:<10} {} wins, {} draws, {} losses: {} points ({:.1}%){sums}",
                tally.name,
                tally.wins,
                tally.draws,
                tally.losses,
                tally.points,
                100.0 * tally.points / total
            );
        }
    }
    Ok(())
}

fn player(name: &str) -> anyhow::Result<Builtin> {
    Builtin::from_name(name).with_context(|| format!("unknown player {name:?} (built-in players: random, greedy)"))
}

fn report(kind: GameKind, idx: u32, seed: u64, start: &AnyPosition, result: &GameResult, names: [&String; 2]) -> GameReport {
    let termination = match &result.termination {
        Termination::Rules => "rules".to_string(),
        Termination::IllegalMove { side, text, error } => {
            format!("illegal move {text:?} by {}: {error}", kind.side_names()[side.index()])
        }
    };
    GameReport {
        index: idx + 1,
        seed,
        players: [names[0].clone(), names[1].clone()],
        start: start.start_text(),
        moves: result.moves.clone(),
        winner: result.outcome.winner.map(Side::index),
        winner_name: result.outcome.winner.map(|side| names[side.index()].clone()),
        scores: result.outcome.scores,
        termination,
    }
}

fn describe(kind: GameKind, report: &GameReport) -> String {
    let sides = kind.side_names();
    let verdict = match (&report.winner, &report.winner_name) {
        (Some(side), Some(name)) => format!("{name} ({}) wins", sides[*side]),
        _ => "draw".to_string(),
    };
    let scores = report.scores.map(|[a, b]| format!(", {a}:{b}")).unwrap_or_default();
    let how = if report.termination == "rules" { String::new() } else { format!(" ({})", report.termination) };
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

/// A seed for one part of a run, from the run's seed (SplitMix64 finaliser).
pub fn derive(seed: u64, part: u64) -> u64 {
    let mut z = seed ^ part.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn fresh_seed() -> u64 {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    derive(nanos as u64, u64::from(std::process::id()))
}
