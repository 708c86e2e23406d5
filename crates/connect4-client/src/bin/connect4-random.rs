//! Connect Four random player over TCP (the seed's baseline), the Rust client library's
//! example: drops its disc into a random column that has room. Debug output goes to
//! stderr. Usage: `connect4-random [HOST:PORT]` (else `ARBITER_ADDR`).

use std::process::ExitCode;

use connect4_client::{Board, GameResult, Player};
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};

struct Random {
    rng: ChaCha8Rng,
}

impl Player for Random {
    fn name(&self) -> String {
        "random-rs".to_string()
    }

    fn wake(&mut self, width: usize, height: usize, i_start: bool) {
        eprintln!("new game {width}x{height}, {} start", if i_start { "I" } else { "they" });
    }

    fn play(&mut self, board: &Board, last_move: Option<usize>) -> usize {
        let open = board.open_columns();
        let column = open[self.rng.random_range(0..open.len())];
        eprintln!("they played {last_move:?}, I play {column}");
        column
    }

    fn game_over(&mut self, result: GameResult) {
        eprintln!("game over: {}", result.name());
    }
}

fn main() -> ExitCode {
    let seed = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64)
        ^ u64::from(std::process::id());
    let mut player = Random { rng: ChaCha8Rng::seed_from_u64(seed) };
    match connect4_client::run(&mut player, &connect4_client::address()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("connect4-random: {err}");
            ExitCode::FAILURE
        }
    }
}
