//! `arbiter bench-play GAME A B`: games per second and wall time per move of real bots
//! through the referee, the figures behind "The referee's cost per move" in
//! `docs/benchmarks.md`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use referee::resources::GameResources;
use referee::{BotSpec, GameRecord, GameSetup, RefereeError, Termination};
use serde::Serialize;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    game: crate::game_args::GameChoice,
    /// The first bot (random, greedy, or a bot.toml or its folder).
    a: String,
    /// The second bot.
    b: String,
    /// How many games to play, one after the other, sides alternating.
    #[arg(long, short = 'n', default_value_t = 20)]
    games: u32,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    sandbox: super::sandboxing::SandboxArgs,
    #[command(flatten)]
    reuse: crate::game_args::ReuseArgs,
    #[command(flatten)]
    pin: super::PinArgs,
}

#[derive(Serialize)]
struct Figures {
    game: String,
    bots: [String; 2],
    games: u32,
    moves: u64,
    seconds: f64,
    games_per_second: f64,
    /// Mean wall time from one move to the next after the first move of each game
    /// (the bots' start excluded: the steady state of a game), microseconds.
    us_per_move_steady: f64,
    /// Mean wall time per move over the whole run (everything the referee does
    /// included), microseconds.
    us_per_move_overall: f64,
    /// Mean bot time per move as the records give it (request written to answer read
    /// for a persistent process; start to exit for a process per move), microseconds.
    us_bot_per_move: f64,
    /// Mean time the referee spent around each move (the whole turn minus the bot's
    /// time, from the records), microseconds.
    us_referee_per_move: f64,
    /// The most the referee spent around one move, microseconds.
    us_referee_max: u64,
    faults: u32,
}

/// Plays one game, `order` naming which bot takes each side, and measures its steady
/// state: the wall time from each move to the next after the first move (both bots
/// running by then, so each is the time one move costs, the referee's work included)
/// and how many such moves there were.
async fn play_timed(setup: GameSetup, bots: Arc<[BotSpec; 2]>, order: [usize; 2]) -> (Result<GameRecord, RefereeError>, (Duration, u64)) {
    let (mut steady_time, mut steady_moves) = (Duration::ZERO, 0u64);
    let mut last: Option<Instant> = None;
    let record = referee::play_game(&setup, [&bots[order[0]], &bots[order[1]]], |_, _| {
        let now = Instant::now();
        if let Some(last) = last {
            steady_time += now - last;
            steady_moves += 1;
        }
        last = Some(now);
    })
    .await;
    (record, (steady_time, steady_moves))
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    let (kind, options, overrides) = args.game.read()?;
    let bots = [crate::game_args::bot(&args.a, kind)?, crate::game_args::bot(&args.b, kind)?];
    if bots.iter().any(|b| matches!(b, BotSpec::Human)) {
        bail!("bench-play times bots; use `arbiter play` to play against one");
    }
    let bots = Arc::new(bots);
    let has_programs = bots.iter().any(|b| matches!(b, BotSpec::Program(_)));
    let sandbox = super::sandboxing::decide(args.sandbox.to_policy(), has_programs)?;
    super::sandboxing::warn(&sandbox);
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().context("cannot start the async runtime")?;
    // The games are played as a tournament plays them: on a lane, pinned to a core.
    let resources = GameResources::new(args.reuse.pool(1), crate::game_args::ahead(sandbox.sandboxed, 1), args.pin.lanes(1)?);
    let mut rng = <rand::rngs::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(1);
    let start_text = kind.random_start(&options, &mut rng)?;
    let start = kind.new_position(&options, start_text.as_deref())?;
    let (mut moves, mut faults) = (0u64, 0u32);
    let (mut turns, mut bot_us, mut referee_us, mut referee_max) = (0u64, 0u64, 0u64, 0u64);
    let (mut steady_time, mut steady_moves) = (Duration::ZERO, 0u64);
    let began = Instant::now();
    for idx in 0..args.games {
        let order = if idx % 2 == 0 { [0, 1] } else { [1, 0] };
        let mut setup = GameSetup::new(start.clone(), options.clone(), u64::from(idx));
        setup.pool = resources.pool();
        setup.ahead = resources.ahead();
        setup.limits = order.map(|player| crate::game_args::side_limits(setup.limits[0], &bots[player], &overrides));
        for limits in &mut setup.limits {
            limits.sandboxed = sandbox.sandboxed;
        }
        let game = play_timed(setup, Arc::clone(&bots), order);
        let (record, steady) = match resources.lanes() {
            Some(lanes) => runtime.block_on(lanes.run(game)),
            None => runtime.block_on(game),
        };
        let record = record.with_context(|| format!("game {} was not played", idx + 1))?;
        steady_time += steady.0;
        steady_moves += steady.1;
        moves += record.moves.len() as u64;
        for side in record.timing.iter().flatten() {
            turns += side.turns;
            bot_us += side.bot_us;
            referee_us += side.referee_us;
            referee_max = referee_max.max(side.referee_max_us);
        }
        if record.result.termination != Termination::Rules {
            faults += 1;
        }
    }
    let seconds = began.elapsed().as_secs_f64();
    runtime.block_on(resources.close());
    let figures = Figures {
        game: kind.name().to_string(),
        bots: [bots[0].name(), bots[1].name()],
        games: args.games,
        moves,
        seconds,
        games_per_second: f64::from(args.games) / seconds,
        us_per_move_steady: steady_time.as_secs_f64() * 1e6 / steady_moves.max(1) as f64,
        us_per_move_overall: seconds * 1e6 / moves.max(1) as f64,
        us_bot_per_move: bot_us as f64 / turns.max(1) as f64,
        us_referee_per_move: referee_us as f64 / turns.max(1) as f64,
        us_referee_max: referee_max,
        faults,
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&figures)?);
    } else {
        println!(
            "{} {} vs {}: {} games, {} moves in {:.2} s: {:.1} games/s, {:.1} µs per move overall, {:.1} µs per move after the first of each game; per move the bot {:.1} µs, the referee around it {:.1} µs (at most {} µs) ({} games lost by faults)",
            figures.game,
            figures.bots[0],
            figures.bots[1],
            figures.games,
            figures.moves,
            figures.seconds,
            figures.games_per_second,
            figures.us_per_move_overall,
            figures.us_per_move_steady,
            figures.us_bot_per_move,
            figures.us_referee_per_move,
            figures.us_referee_max,
            figures.faults
        );
    }
    Ok(())
}
