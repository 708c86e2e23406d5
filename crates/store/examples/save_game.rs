//! Measures what the database adds per finished game: the time of `save_game` with a
//! typical record of about 20 KB, on a fresh file in a temporary folder. Prints figures,
//! asserts nothing. Run: `cargo run --release -p store --example save_game [GAMES]`.

#[path = "../tests/common/mod.rs"]
mod common;

use std::time::Instant;

use store::Store;

const RECORD_BYTES: usize = 20_000;

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let games: u32 = std::env::args().nth(1).map_or(2000, |n| n.parse().expect("GAMES is a number"));
    let dir = tempfile::TempDir::new().expect("a temporary folder");
    let path = dir.path().join("results.db");
    let store = Store::open(&path).await.expect("open");
    store.begin_tournament("bench", "", "bench").await.expect("begin");
    store.save_entrants(&common::entrants()).await.expect("entrants");
    let prepared = common::prepared(games, RECORD_BYTES);
    let record_bytes = prepared[0].1.len();

    let start = Instant::now();
    for (outcome, record) in &prepared {
        store.save_game(outcome, record).await.expect("save");
    }
    let saving = start.elapsed();

    let start = Instant::now();
    let stored = store.games().await.expect("read");
    let reading = start.elapsed();
    assert_eq!(stored.len(), prepared.len());
    store.close().await;
    let file_bytes = std::fs::metadata(&path).expect("the file").len();

    println!("{games} games, records of {record_bytes} bytes, file {:.1} MB", file_bytes as f64 / 1e6);
    println!(
        "save_game: {:.0} µs per game ({:.0} games/s)",
        saving.as_secs_f64() * 1e6 / f64::from(games),
        f64::from(games) / saving.as_secs_f64()
    );
    println!("games(): {:.1} ms for all {games} outcomes", reading.as_secs_f64() * 1e3);
}
