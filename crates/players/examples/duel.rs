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
//! shares them), for games whose start is always the same (Gomoku, Connect Four);
//! `quiet=P` draws those plies again while `medium`, playing both sides, wins within `P`
//! plies from them (a start decided at once, as the tournament's generated openings
//! refuse: `openings::decided_early`). `seed=S` seeds the
//! games as `arbiter match --seed S` does instead (game `g` from `derive(S, g)`, each
//! side's built-in from that seed as the referee draws it), so with node-limited players
//! (or ones that read no clock, `medium`) they are that match's games; `from=N` starts at
//! game `N`; `show=1` prints the last position of each game `A` loses, `at=P` the
//! position before ply `P` (from 1) of each game, with the move chosen there. Prints each
//! game's result (its length in plies, final scores and `A`'s running lead every 50
//! plies, `A`'s first) to stderr and `A`'s record and share of the points to stdout.

use std::process::ExitCode;
use std::time::Instant;

use players::{Builtin, Play};
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

/// The seed of part `part` of a run seeded `seed`, as `arbiter` derives it (splitmix64).
fn derive(seed: u64, part: u64) -> u64 {
    let mut z = seed ^ part.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn run(args: Vec<String>) -> Result<(), String> {
    let [game, a_name, b_name, games, options @ ..] = args.as_slice() else {
        return Err("expected at least four arguments".into());
    };
    let kind = GameKind::from_name(game).map_err(|err| err.to_string())?;
    let player = |name: &str| Builtin::parse(name).map_err(|err| err.to_string());
    let (a, b) = (player(a_name)?, player(b_name)?);
    let games: u64 = games.parse().map_err(|_| format!("{games} is not a number of games"))?;
    let (mut opening, mut match_seed, mut from, mut show, mut at, mut quiet) = (0, None, 0u64, false, 0usize, 0usize);
    let options: Options = options
        .iter()
        .filter(|kv| match kv.split_once('=') {
            Some(("opening", n)) => {
                opening = n.parse().unwrap_or(0);
                false
            }
            Some(("seed", n)) => {
                match_seed = n.parse::<u64>().ok();
                false
            }
            Some(("quiet", n)) => {
                quiet = n.parse().unwrap_or(0);
                false
            }
            Some(("from", n)) => {
                from = n.parse().unwrap_or(0);
                false
            }
            Some(("at", n)) => {
                at = n.parse().unwrap_or(0);
                false
            }
            Some(("show", n)) => {
                show = n == "1";
                false
            }
            _ => true,
        })
        .map(|kv| kv.split_once('=').map(|(k, v)| (k.to_string(), v.to_string())).ok_or_else(|| format!("{kv} is not KEY=VALUE")))
        .collect::<Result<_, _>>()?;
    let (mut wins, mut draws, mut losses) = (0u64, 0u64, 0u64);
    let (mut thought, mut moves) = (0.0f64, 0u64);
    for g in from..from + games {
        let mut rng = match match_seed {
            Some(seed) => ChaCha8Rng::seed_from_u64(derive(seed, (g / 2) | (1 << 63))),
            None => ChaCha8Rng::seed_from_u64(g / 2),
        };
        let start = kind.random_start(&options, &mut rng).map_err(|err| err.to_string())?;
        let mut pos;
        let mut attempts = 0;
        loop {
            pos = kind.new_position(&options, start.as_deref()).map_err(|err| err.to_string())?;
            for _ in 0..opening {
                let mv = Builtin::RANDOM.choose_text(&pos, &mut rng, &|| false).ok_or("no move in the opening")?;
                pos.play_text(&mv).map_err(|err| format!("{mv}: {err}"))?;
            }
            attempts += 1;
            if quiet == 0 || opening == 0 || !players::medium_wins_within(&pos, quiet) {
                break;
            }
            if attempts == 1000 {
                return Err(format!("game {g}: no opening of {opening} plies that medium does not win within {quiet}"));
            }
        }
        let a_first = g % 2 == 0;
        // One RNG for both players, or (`seed=`) one per side as the referee seeds them.
        let mut rngs = match match_seed {
            Some(seed) => {
                let game_seed = derive(seed, g);
                [0u64, 1].map(|side| ChaCha8Rng::seed_from_u64(game_seed ^ 0x9e37_79b9_7f4a_7c15u64.wrapping_mul(side + 1)))
            }
            None => [ChaCha8Rng::seed_from_u64(g), ChaCha8Rng::seed_from_u64(0)],
        };
        let mut plies = 0;
        // A's running lead every 50 plies (before the move of that ply).
        let mut leads = Vec::new();
        while let Some(side) = pos.to_move() {
            let a_moves = (side.index() == 0) == a_first;
            let rng = &mut rngs[if match_seed.is_some() { side.index() } else { 0 }];
            let clock = Instant::now();
            let mv = if a_moves { a } else { b }.choose_text(&pos, rng, &|| false).ok_or("a player found no move")?;
            plies += 1;
            if plies == at {
                eprintln!("game {g}, ply {plies} ({} to move, {mv}):\n{}", if a_moves { "A" } else { "B" }, pos.picture());
            }
            if plies % 50 == 0
                && let Some([s0, s1]) = pos.running_scores()
            {
                leads.push(format!("{plies}:{:+}", if a_first { s0 - s1 } else { s1 - s0 }));
            }
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
                if show {
                    eprintln!("game {g}, lost by A ({}):\n{}", if a_first { "player 0" } else { "player 1" }, pos.picture());
                }
                "B wins"
            }
        };
        let scores = pos.outcome().and_then(|o| o.scores).map(|s| if a_first { s } else { [s[1], s[0]] });
        let scores = scores.map(|[a, b]| format!(", {a}:{b}")).unwrap_or_default();
        eprintln!(
            "game {g}: A {}, {result} after {plies} plies{scores} (A's lead {})",
            if a_first { "first" } else { "second" },
            leads.join(" ")
        );
    }
    let share = (wins as f64 + draws as f64 / 2.0) / games.max(1) as f64;
    let ms = 1000.0 * thought / moves.max(1) as f64;
    println!("{game} {a_name} vs {b_name}: +{wins} ={draws} -{losses}, {:.1}% for A ({ms:.1} ms a move)", 100.0 * share);
    Ok(())
}
