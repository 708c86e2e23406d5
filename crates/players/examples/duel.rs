//! Node-limited games between two built-in players, for tuning a rung: the same games on
//! any machine, whatever its load (the players' node limits stop them, not a clock).
//!
//! ```text
//! cargo run --release -p players --example duel -- GAME A B GAMES [KEY=VALUE ...]
//! cargo run --release -p players --example duel -- reversi medium greedy 200
//! ```
//!
//! Game `g` (from 0) starts from the game's random start drawn with seed `g / 2`, `A`
//! moving first in even games, and draws the players' randomness from seed `g`: the
//! seeding of `crates/players/tests/greedy.rs`, so a test's games are this example's
//! first games. `KEY=VALUE` are game options (`size=13`), except `opening=N`: the first
//! `N` plies of each game are random moves (drawn with seed `g / 2`, so a pair of games
//! shares them), for games whose start is always the same (Gomoku). Prints each game's
//! result to stderr and `A`'s record and share of the points to stdout.

use std::process::ExitCode;
use std::time::Instant;

use players::Builtin;
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;
use rules::{GameKind, Options};

fn main() -> ExitCode {
    match run(std::env::args().skip(1).collect()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("duel: {message}");
            eprintln!("usage: duel GAME A B GAMES [KEY=VALUE ...]");
            ExitCode::FAILURE
        }
    }
}

fn run(args: Vec<String>) -> Result<(), String> {
    let [game, a_name, b_name, games, options @ ..] = args.as_slice() else {
        return Err("expected at least four arguments".into());
    };
    let kind = GameKind::from_name(game).map_err(|err| err.to_string())?;
    let player = |name: &str| Builtin::parse(name).map_err(|err| err.to_string());
    let (a, b) = (player(a_name)?, player(b_name)?);
    let games: u64 = games.parse().map_err(|_| format!("{games} is not a number of games"))?;
    let mut opening = 0;
    let options: Options = options
        .iter()
        .filter(|kv| match kv.strip_prefix("opening=") {
            Some(n) => {
                opening = n.parse().unwrap_or(0);
                false
            }
            None => true,
        })
        .map(|kv| kv.split_once('=').map(|(k, v)| (k.to_string(), v.to_string())).ok_or_else(|| format!("{kv} is not KEY=VALUE")))
        .collect::<Result<_, _>>()?;
    let (mut wins, mut draws, mut losses) = (0u64, 0u64, 0u64);
    let (mut thought, mut moves) = (0.0f64, 0u64);
    for g in 0..games {
        let mut rng = ChaCha8Rng::seed_from_u64(g / 2);
        let start = kind.random_start(&options, &mut rng).map_err(|err| err.to_string())?;
        let mut pos = kind.new_position(&options, start.as_deref()).map_err(|err| err.to_string())?;
        for _ in 0..opening {
            let mv = Builtin::RANDOM.choose_text(&pos, &mut rng, &|| false).ok_or("no move in the opening")?;
            pos.play_text(&mv).map_err(|err| format!("{mv}: {err}"))?;
        }
        let a_first = g % 2 == 0;
        let mut rng = ChaCha8Rng::seed_from_u64(g);
        while let Some(side) = pos.to_move() {
            let a_moves = (side.index() == 0) == a_first;
            let clock = Instant::now();
            let mv = if a_moves { a } else { b }.choose_text(&pos, &mut rng, &|| false).ok_or("a player found no move")?;
            if a_moves {
                thought += clock.elapsed().as_secs_f64();
                moves += 1;
            }
            pos.play_text(&mv).map_err(|err| format!("{mv}: {err}"))?;
        }
        let result = match pos.outcome().and_then(|o| o.winner) {
            None => {
                draws += 1;
                "draw"
            }
            Some(winner) if (winner.index() == 0) == a_first => {
                wins += 1;
                "A wins"
            }
            Some(_) => {
                losses += 1;
                "B wins"
            }
        };
        eprintln!("game {g}: A {}, {result}", if a_first { "first" } else { "second" });
    }
    let share = (wins as f64 + draws as f64 / 2.0) / games.max(1) as f64;
    let ms = 1000.0 * thought / moves.max(1) as f64;
    println!("{game} {a_name} vs {b_name}: +{wins} ={draws} -{losses}, {:.1}% for A ({ms:.1} ms a move)", 100.0 * share);
    Ok(())
}
