//! `arbiter bench`: random playouts per second of each game on one thread, the
//! figures behind `docs/benchmarks.md`.

use std::time::{Duration, Instant};

use anyhow::Context;
use rand::SeedableRng;
use rand::rngs::SmallRng;
use rules::GameKind;
use serde::Serialize;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Configurations to measure, as GAME or GAME:key=value,key=value (e.g.
    /// connect4:width=20,height=20). Default: every game (the seeds' at their sizes).
    configs: Vec<String>,
    /// Seconds to measure each configuration.
    #[arg(long, default_value_t = 3.0)]
    secs: f64,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

/// The default configurations with the targets of the rules issue (games/s on one core).
const DEFAULTS: &[(&str, f64)] = &[
    ("connect4", 1_500_000.0),
    ("connect4:width=20,height=20", 300_000.0),
    ("gomoku", 300_000.0),
    ("pahtum:blocked=5", 300_000.0),
    ("nupud", 1_000_000.0),
    ("legions:size=17", 1_000.0),
];

#[derive(Serialize)]
struct Figure {
    config: String,
    games: u64,
    seconds: f64,
    games_per_second: f64,
    plies_per_game: f64,
    target: Option<f64>,
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    let configs: Vec<(String, Option<f64>)> = if args.configs.is_empty() {
        // The seeds' games at their sizes with their targets, then every other game of
        // the registry at its default options.
        let mut configs: Vec<(String, Option<f64>)> = DEFAULTS.iter().map(|(config, target)| (config.to_string(), Some(*target))).collect();
        for kind in GameKind::ALL {
            if !DEFAULTS.iter().any(|(config, _)| config.split(':').next() == Some(kind.name())) {
                configs.push((kind.name().to_string(), None));
            }
        }
        configs
    } else {
        args.configs.iter().map(|config| (config.clone(), None)).collect()
    };
    let mut figures = Vec::new();
    if !args.json {
        println!("{:<30} {:>14} {:>12} {:>12}", "config", "games/s", "plies/game", "target");
    }
    for (config, target) in configs {
        let figure = measure(&config, args.secs, target).with_context(|| format!("benchmark {config}"))?;
        if !args.json {
            let target = figure.target.map(|t| format!("{t:.0}")).unwrap_or_default();
            println!("{:<30} {:>14.0} {:>12.1} {:>12}", figure.config, figure.games_per_second, figure.plies_per_game, target);
        }
        figures.push(figure);
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&figures)?);
    }
    Ok(())
}

fn measure(config: &str, secs: f64, target: Option<f64>) -> anyhow::Result<Figure> {
    let (game, opts) = config.split_once(':').unwrap_or((config, ""));
    let kind = GameKind::from_name(game)?;
    let pairs: Vec<String> = opts.split(',').filter(|s| !s.is_empty()).map(str::to_string).collect();
    let options = super::parse_options(kind, &pairs)?;
    let mut rng = SmallRng::seed_from_u64(1);
    let start_text = kind.random_start(&options, &mut rng)?;
    let start = kind.new_position(&options, start_text.as_deref())?;
    let budget = Duration::from_secs_f64(secs);
    let began = Instant::now();
    let (mut games, mut plies) = (0u64, 0u64);
    // Check the clock once per batch so that reading it costs nothing measurable; games
    // that cannot list their moves (Legions) have long, slow playouts.
    let batch = if kind.is_enumerable() { 1000 } else { 10 };
    while began.elapsed() < budget {
        for _ in 0..batch {
            let mut pos = start.clone();
            pos.random_playout(&mut rng);
            plies += (pos.n_moves() - start.n_moves()) as u64;
            games += 1;
        }
    }
    let seconds = began.elapsed().as_secs_f64();
    Ok(Figure {
        config: config.to_string(),
        games,
        seconds,
        games_per_second: games as f64 / seconds,
        plies_per_game: plies as f64 / games as f64,
        target,
    })
}
