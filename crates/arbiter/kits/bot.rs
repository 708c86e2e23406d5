//! {{NAME}}: a bot for Arbiter over its own protocol (docs/protocols/arbiter.md in
//! Arbiter's repository; arbiter-interface: arbiter, which the web arena's upload form reads). It starts as a random player: it plays a random move of the
//! `legal` line. Make it better in `choose_move`. The standard library only: it builds
//! with `rustc` alone, offline.
//!
//! The referee writes one line at a time on stdin; the bot answers on stdout, one line,
//! flushed. Debug output goes to stderr (it is kept in the game record, per move).

use std::io::{BufRead, Write};

/// A small random generator (splitmix64) from the game's seed for this side (the
/// `seed` line; ARBITER_SEED before it): the same `--seed` gives the same games.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) % n as u64) as usize
    }
}

/// The move to play. `legal` lists every legal move in the game's notation; it is empty
/// in a game whose moves cannot be listed (Legions), where "" is a turn without orders.
fn choose_move(legal: &[String], rng: &mut Rng) -> String {
    if legal.is_empty() { String::new() } else { legal[rng.below(legal.len())].clone() }
}

fn main() {
    let mut rng = Rng::new(std::env::var("ARBITER_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0));
    let mut legal: Vec<String> = Vec::new();
    let mut out = std::io::stdout();
    for line in std::io::stdin().lock().lines() {
        // No `let ... else`: the kit builds with Debian 12's rustc (1.63) too.
        let line = match line {
            Ok(line) => line,
            Err(_) => break,
        };
        let line = line.trim_end_matches('\r');
        let (word, rest) = line.split_once(' ').unwrap_or((line, ""));
        match word {
            "arbiter" => {
                writeln!(out, "name {{NAME}}\nready").unwrap();
                out.flush().unwrap();
            }
            "seed" => rng = Rng::new(rest.parse().unwrap_or(0)),
            "position" => legal.clear(),
            "legal" => legal = rest.split(' ').map(str::to_string).collect(),
            "go" => {
                let mv = choose_move(&legal, &mut rng);
                eprintln!("playing {mv:?}");
                writeln!(out, "move {mv}").unwrap();
                out.flush().unwrap();
            }
            "quit" => break,
            // Other lines (game, side, start, opponent, time, result) are not needed here.
            _ => {}
        }
    }
}
