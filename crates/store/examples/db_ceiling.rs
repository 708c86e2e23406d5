//! Measures how many games a second one PostgreSQL server takes from many workers at
//! once before it becomes the bottleneck: simulated workers (each its own connections,
//! as a worker process has) that claim a game and store its result, with no game played
//! in between, for 1, 2, 4, ... workers; every game is checked to be stored once. Prints
//! figures. Run on an empty database:
//! `cargo run --release -p store --example db_ceiling -- postgres://USER@HOST:PORT/DB [GAMES] [WORKERS...]`.

#[path = "../tests/common/mod.rs"]
mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use store::{Finished, Location, Store, WorkerInfo};

const RECORD_BYTES: usize = 20_000;
/// The connections of each simulated worker (a real `worker -j 1` opens up to 4).
const CONNECTIONS: u32 = 2;

/// A simulated worker's open database and its registered id.
async fn connect(url: &str, n: usize) -> (Store, String) {
    let store = Store::open_at(&Location::parse(url), CONNECTIONS).await.expect("a worker opens the database");
    let info = WorkerInfo { host: "bench".into(), pid: n as u32, version: "bench".into(), sandbox: "none".into() };
    let worker = store.register_worker(&info).await.expect("a worker registers");
    (store, worker)
}

/// One simulated worker: claims and stores until the queue is empty; the games it stored.
async fn work(store: Arc<Store>, worker: String, prepared: Arc<Vec<(tournament::GameOutcome, String)>>) -> u64 {
    let mut stored = 0;
    let lease = Duration::from_secs(600);
    while let Some(held) = store.claim(&worker, lease).await.expect("claim") {
        let index: usize =
            held.spec.key.split('/').nth(1).and_then(|m| m.strip_prefix('m')).and_then(|m| m.parse().ok()).expect("a key of ours");
        let (outcome, record) = &prepared[index];
        let mut outcome = outcome.clone();
        outcome.spec = held.spec.clone();
        let finished = store.finish(&held, &outcome, record, async {}).await.expect("store");
        assert!(matches!(finished, Finished::Stored(_)), "a game of a lease held was refused");
        stored += 1;
    }
    stored
}

#[tokio::main]
async fn main() {
    let mut args = std::env::args().skip(1);
    let url = args.next().expect("usage: db_ceiling URL [GAMES] [WORKERS...]");
    let games: u32 = args.next().map_or(2000, |n| n.parse().expect("GAMES is a number"));
    let mut counts: Vec<usize> = args.map(|n| n.parse().expect("WORKERS are numbers")).collect();
    if counts.is_empty() {
        counts = vec![1, 2, 4, 8, 16, 32, 64];
    }
    let prepared = Arc::new(common::prepared(games, RECORD_BYTES));

    let creator = Store::open_at(&Location::parse(&url), 2).await.expect("open the PostgreSQL database");
    creator.begin_tournament("bench", "", "bench").await.expect("begin");
    creator.save_entrants(&common::entrants()).await.expect("entrants");
    println!("{games} games a step, records of {} bytes, {CONNECTIONS} connections a worker", prepared[0].1.len());
    for (step, &workers) in counts.iter().enumerate() {
        // A batch of its own per step: the keys say the step, the index says the game.
        let specs: Vec<_> = prepared
            .iter()
            .enumerate()
            .map(|(i, (outcome, _))| {
                let mut spec = outcome.spec.clone();
                spec.key = format!("s{step}/m{i}/g0");
                spec
            })
            .collect();
        let before = creator.game_count().await.expect("count");
        creator.enqueue(&specs).await.expect("queue");
        // Connected before the clock starts: a worker connects once, not per game.
        let mut connected = Vec::new();
        for n in 0..workers {
            let (store, worker) = connect(&url, n).await;
            connected.push((Arc::new(store), worker));
        }
        let start = Instant::now();
        let tasks: Vec<_> =
            connected.iter().map(|(store, worker)| tokio::spawn(work(Arc::clone(store), worker.clone(), Arc::clone(&prepared)))).collect();
        let mut stored = 0;
        for task in tasks {
            stored += task.await.expect("a worker");
        }
        let elapsed = start.elapsed();
        for (store, _) in &connected {
            store.close().await;
        }
        let after = creator.game_count().await.expect("count");
        assert_eq!(stored, u64::from(games), "the workers stored another number of games");
        assert_eq!(after - before, u64::from(games), "the database holds another number of games");
        println!(
            "{workers:>3} workers: {:.0} games/s ({:.2} s, {:.2} ms a game for each worker)",
            f64::from(games) / elapsed.as_secs_f64(),
            elapsed.as_secs_f64(),
            elapsed.as_secs_f64() * 1e3 * workers as f64 / f64::from(games)
        );
    }
    creator.close().await;
}
