//! Development tool: random playouts per second of one game on one thread.
//! Usage: cargo run --release -p rules --example playouts -- GAME [key=value]... [secs=2]

use std::time::{Duration, Instant};

use rand::SeedableRng;
use rand::rngs::SmallRng;
use rules::{GameKind, Options};

fn main() {
    let mut args = std::env::args().skip(1);
    let kind = GameKind::from_name(&args.next().expect("game name")).expect("known game");
    let mut options = Options::new();
    let mut secs = 2.0;
    for arg in args {
        let (k, v) = arg.split_once('=').expect("key=value");
        if k == "secs" {
            secs = v.parse().expect("seconds");
        } else {
            options.insert(k.to_string(), v.to_string());
        }
    }
    let mut rng = SmallRng::seed_from_u64(1);
    let start_text = kind.random_start(&options, &mut rng).expect("options");
    let start = kind.new_position(&options, start_text.as_deref()).expect("start");
    let t0 = Instant::now();
    let mut games = 0u64;
    let mut plies = 0u64;
    while t0.elapsed() < Duration::from_secs_f64(secs) {
        for _ in 0..1000 {
            let mut pos = start.clone();
            pos.random_playout(&mut rng);
            plies += pos.n_moves() as u64;
            games += 1;
        }
    }
    let el = t0.elapsed().as_secs_f64();
    println!("{}: {:.0} games/s, {:.1} plies/game", kind, games as f64 / el, plies as f64 / games as f64);
}
