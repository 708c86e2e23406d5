//! `arbiter bench-play GAME A B`: games per second and wall time per move of real bots
//! through the referee, the figures behind "referee overhead" in `docs/benchmarks.md`.

use std::time::{Duration, Instant};

use anyhow::Context;
use referee::{GameSetup, Termination};
use rules::GameKind;
use serde::Serialize;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The game.
    game: String,
    /// The first bot (random, greedy, or a bot.toml or its folder).
    a: String,
    /// The second bot.
    b: String,
    /// How many games to play, one after the other, sides alternating.
    #[arg(long, short = 'n', default_value_t = 20)]
    games: u32,
    /// A game option (repeatable).
    #[arg(short = 'o', long = "option", value_name = "KEY=VALUE")]
    options: Vec<String>,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct Figures {
    game: String,
    bots: [String; 2],
    games: u32,
    moves: u64,
    seconds: f64,
    games_per_second: f64,
    /// Mean wall time per move as the referee saw it (request to answer), microseconds.
    us_per_move: f64,
    /// Mean wall time per move over the whole run (everything the referee does
    /// included), microseconds.
    us_per_move_overall: f64,
    faults: u32,
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    let kind = GameKind::from_name(&args.game)?;
    let options = super::parse_options(kind, &args.options)?;
    let bots = [super::play::bot(&args.a, kind)?, super::play::bot(&args.b, kind)?];
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().context("cannot start the async runtime")?;
    let mut rng = <rand::rngs::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(1);
    let start_text = kind.random_start(&options, &mut rng)?;
    let start = kind.new_position(&options, start_text.as_deref())?;
    let (mut moves, mut turn_time, mut faults) = (0u64, Duration::ZERO, 0u32);
    let began = Instant::now();
    for idx in 0..args.games {
        let order = if idx % 2 == 0 { [0, 1] } else { [1, 0] };
        let setup = GameSetup::new(start.clone(), options.clone(), u64::from(idx));
        let record = runtime.block_on(referee::play_game(&setup, [&bots[order[0]], &bots[order[1]]], |_, _| {}));
        moves += record.moves.len() as u64;
        turn_time += record.turns.iter().map(|turn| Duration::from_millis(turn.ms)).sum::<Duration>();
        if record.result.termination != Termination::Rules {
            faults += 1;
        }
    }
    let seconds = began.elapsed().as_secs_f64();
    let figures = Figures {
        game: kind.name().to_string(),
        bots: [bots[0].name(), bots[1].name()],
        games: args.games,
        moves,
        seconds,
        games_per_second: f64::from(args.games) / seconds,
        us_per_move: turn_time.as_secs_f64() * 1e6 / moves.max(1) as f64,
        us_per_move_overall: seconds * 1e6 / moves.max(1) as f64,
        faults,
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&figures)?);
    } else {
        println!(
            "{} {} vs {}: {} games, {} moves in {:.2} s: {:.1} games/s, {:.1} µs per move ({} games lost by faults)",
            figures.game,
            figures.bots[0],
            figures.bots[1],
            figures.games,
            figures.moves,
            figures.seconds,
            figures.games_per_second,
            figures.us_per_move_overall,
            figures.faults
        );
    }
    Ok(())
}
