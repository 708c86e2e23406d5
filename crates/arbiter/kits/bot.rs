//! {{NAME}}: a bot for Arbiter over its own protocol (docs/protocols/arbiter.md in
//! Arbiter's repository; arbiter-interface: arbiter, which the web arena's upload form reads). It starts as a random player: it plays a random move of the
//! `legal` line. Make it better in `choose_move`. The standard library only: it builds
//! with `rustc` alone, offline.
//!
//! The referee writes one line at a time on stdin; the bot answers on stdout, one line,
//! flushed. Debug output goes to stderr (it is kept in the game record, per move).

use std::io::{BufRead, Write};

/// A small random generator (xorshift), seeded from the clock and the process id.
struct Rng(u64);

impl Rng {
    fn new() -> Rng {
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_nanos() as u64);
        Rng(nanos ^ (u64::from(std::process::id()) << 32) | 1)
    }

    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// The move to play. `legal` lists every legal move in the game's notation; it is empty
/// in a game whose moves cannot be listed (Legions), where "" is a turn without orders.
fn choose_move(legal: &[String], rng: &mut Rng) -> String {
    if legal.is_empty() { String::new() } else { legal[rng.below(legal.len())].clone() }
}

fn main() {
    let mut rng = Rng::new();
    let mut legal: Vec<String> = Vec::new();
    let mut out = std::io::stdout();
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        let line = line.trim_end_matches('\r');
        let (word, rest) = line.split_once(' ').unwrap_or((line, ""));
        match word {
            "arbiter" => {
                writeln!(out, "name {{NAME}}\nready").unwrap();
                out.flush().unwrap();
            }
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
