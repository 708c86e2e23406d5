//! Measures what sharing a game through PostgreSQL costs apart from playing it: per
//! game, a claim (the lease), one heartbeat (a renewal) and the fenced store of a result
//! with a record of about 20 KB, one after the other on one connection, against the
//! plain store of the same game in a SQLite file (what `tournament` on one machine
//! does). Prints figures, asserts nothing. Run on an empty database:
//! `cargo run -p store --example lease_cost -- postgres://USER@HOST:PORT/DB [GAMES]`.

#[path = "../tests/common/mod.rs"]
mod common;

use std::time::{Duration, Instant};

use store::{Finished, Location, Store, WorkerInfo};

const RECORD_BYTES: usize = 20_000;

/// Prints a step's time per game.
fn report(what: &str, total: Duration, games: u32) {
    println!("{what}: {:.0} µs per game", total.as_secs_f64() * 1e6 / f64::from(games));
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let url = std::env::args().nth(1).expect("usage: lease_cost URL [GAMES]");
    let games: u32 = std::env::args().nth(2).map_or(1000, |n| n.parse().expect("GAMES is a number"));
    let prepared = common::prepared(games, RECORD_BYTES);

    let shared = Store::open_at(&Location::parse(&url), 2).await.expect("open the PostgreSQL database");
    shared.begin_tournament("bench", "", "bench").await.expect("begin");
    shared.save_entrants(&common::entrants()).await.expect("entrants");
    let info = WorkerInfo { host: "bench".into(), pid: std::process::id(), version: "bench".into(), sandbox: "none".into() };
    let worker = shared.register_worker(&info).await.expect("a worker");
    let start = Instant::now();
    let specs: Vec<_> = prepared.iter().map(|(outcome, _)| outcome.spec.clone()).collect();
    shared.enqueue(&specs).await.expect("queue");
    let queueing = start.elapsed();
    let lease = Duration::from_secs(600);
    let (mut claiming, mut renewing, mut storing) = (Duration::ZERO, Duration::ZERO, Duration::ZERO);
    for (outcome, record) in &prepared {
        let t = Instant::now();
        let held = shared.claim(&worker, lease).await.expect("claim").expect("a queued game");
        claiming += t.elapsed();
        let t = Instant::now();
        assert!(shared.renew(&held, lease).await.expect("renew"));
        renewing += t.elapsed();
        let mut outcome = outcome.clone();
        outcome.spec = held.spec.clone();
        let t = Instant::now();
        let finished = shared.finish(&held, &outcome, record, async {}).await.expect("store");
        storing += t.elapsed();
        assert!(matches!(finished, Finished::Stored(_)));
    }
    shared.close().await;

    let dir = tempfile::TempDir::new().expect("a temporary folder");
    let file = Store::open(&dir.path().join("results.db")).await.expect("open the SQLite file");
    file.begin_tournament("bench", "", "bench").await.expect("begin");
    file.save_entrants(&common::entrants()).await.expect("entrants");
    let start = Instant::now();
    for (outcome, record) in &prepared {
        file.save_game(outcome, record).await.expect("save");
    }
    let saving = start.elapsed();
    file.close().await;

    println!("{games} games, records of {} bytes", prepared[0].1.len());
    report("PostgreSQL queue (one batch)", queueing, games);
    report("PostgreSQL claim", claiming, games);
    report("PostgreSQL heartbeat", renewing, games);
    report("PostgreSQL fenced store", storing, games);
    report("PostgreSQL claim + heartbeat + store", claiming + renewing + storing, games);
    report("SQLite store (save_game)", saving, games);
}
