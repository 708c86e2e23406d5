//! Sample entrants, outcomes and records shared by the store's tests and benchmark.

#![allow(dead_code)]

use tournament::{Entrant, GameOutcome, GameSpec};

pub fn entrants() -> Vec<Entrant> {
    vec![
        Entrant { id: 0, name: "alice".into(), bot: "bots/alice/bot.toml".into(), submitted: Some("2024-03-01T10:00:00Z".into()) },
        Entrant { id: 1, name: "bob".into(), bot: "random".into(), submitted: None },
        Entrant { id: 2, name: "carol".into(), bot: "greedy".into(), submitted: None },
    ]
}

/// A finished game whose every field depends on `n`, so that a wrong row shows.
pub fn outcome(key: &str, n: u32) -> GameOutcome {
    GameOutcome {
        spec: GameSpec {
            key: key.to_string(),
            stage: (n % 3) as usize,
            round: n / 3,
            match_key: format!("m{}", n / 2),
            players: [(n % 3) as usize, ((n + 1) % 3) as usize],
            opening: if n.is_multiple_of(4) { None } else { Some(n as usize) },
            // Past i64::MAX, to check seeds survive exactly.
            seed: u64::MAX - u64::from(n),
        },
        winner: match n % 3 {
            0 => None,
            side => Some(side as usize - 1),
        },
        scores: if n.is_multiple_of(2) { Some([i64::from(n), -7]) } else { None },
        fault: if n % 5 == 1 { Some(((n % 2) as usize, "timeout".into())) } else { None },
        moves: [n, n + 1],
        time_ms: [u64::from(n) * 10, 1 << 40],
    }
}

/// A referee-like record of about `bytes` bytes of JSON, its content fixed by `key`.
pub fn record(key: &str, bytes: usize) -> String {
    let mut moves = Vec::new();
    let mut len = 0;
    let mut i = 0u64;
    while len < bytes {
        let entry = format!(r#"{{"side":{},"move":"{}","ms":{},"note":"{key}"}}"#, i % 2, (i * 7) % 19, (i * 13) % 997);
        len += entry.len() + 1;
        moves.push(entry);
        i += 1;
    }
    format!(r#"{{"key":"{key}","game":"connect4","moves":[{}]}}"#, moves.join(","))
}

/// `games` finished games with records of about `bytes` bytes each, as the benchmarks
/// store them.
pub fn prepared(games: u32, bytes: usize) -> Vec<(GameOutcome, String)> {
    (0..games)
        .map(|n| {
            let key = format!("s0/m{n}/g0");
            let record = record(&key, bytes);
            (outcome(&key, n), record)
        })
        .collect()
}
