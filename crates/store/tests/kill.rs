//! A process saving games is killed with SIGKILL at several points; afterwards every game
//! it reported saved is there, every stored game is whole (outcome and record, the record
//! parses), nothing half-written exists, and the file takes new games again.
//!
//! The writer is this test binary run again with `WRITER_DB` set (the file has its own
//! `main`, hence `harness = false`), so that no separate program is needed.

mod common;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, Stdio};

use store::{Saved, Store};

/// Set in the writer's environment: the file it writes.
const WRITER_DB: &str = "STORE_KILL_TEST_WRITER_DB";
/// Games saved at once by the writer, as a runner with `-j 3` would.
const WRITERS: u32 = 3;
/// A typical record's size.
const RECORD_BYTES: usize = 20_000;
/// After how many reported games each run is killed.
const KILL_AFTER: [usize; 4] = [1, 9, 60, 200];

fn main() {
    if let Some(path) = std::env::var_os(WRITER_DB) {
        write_until_killed(Path::new(&path));
    }
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
    for kill_after in KILL_AFTER {
        let dir = tempfile::TempDir::new().expect("a temporary folder");
        let path = dir.path().join("results.db");
        let reported = run_writer_and_kill(&path, kill_after);
        let stored = runtime.block_on(check_whole(&path, &reported));
        println!("killed after {kill_after} games reported, {stored} stored: all whole");
    }
}

/// Saves games from `WRITERS` tasks at once, printing each key once it is stored, until
/// the process is killed.
fn write_until_killed(path: &Path) -> ! {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("a runtime");
    runtime.block_on(async {
        let store = Store::open(path).await.expect("open");
        store.begin_tournament("kill test", "", "kill-test").await.expect("begin");
        store.save_entrants(&common::entrants()).await.expect("entrants");
        let tasks: Vec<_> = (0..WRITERS)
            .map(|writer| {
                let store = store.clone();
                tokio::spawn(async move {
                    for n in 0.. {
                        let key = format!("w{writer}/g{n}");
                        store.save_game(&common::outcome(&key, n), &common::record(&key, RECORD_BYTES)).await.expect("save");
                        // Rust's stdout is line-buffered: the key leaves at once.
                        println!("{key}");
                    }
                })
            })
            .collect();
        for task in tasks {
            task.await.expect("a writer task");
        }
    });
    unreachable!("the writers never stop")
}

/// Runs a writer on `path`, kills it once it has reported `kill_after` games, and
/// returns the keys it reported.
fn run_writer_and_kill(path: &Path, kill_after: usize) -> Vec<String> {
    let mut child = Command::new(std::env::current_exe().expect("the test binary"))
        .env(WRITER_DB, path)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start the writer");
    let stdout = child.stdout.take().expect("piped stdout");
    let mut reported = Vec::new();
    for line in BufReader::new(stdout).lines() {
        reported.push(line.expect("a line from the writer"));
        if reported.len() == kill_after {
            break;
        }
    }
    // `kill` is SIGKILL on Unix: no destructor, no rollback, no checkpoint runs.
    child.kill().expect("kill the writer");
    let status = child.wait().expect("reap the writer");
    assert_eq!(reported.len(), kill_after, "the writer stopped by itself: {status}");
    assert_eq!(status.signal(), Some(9), "the writer ended by SIGKILL, not {status}");
    reported
}

/// Checks the file after the kill; returns the number of games stored.
async fn check_whole(path: &Path, reported: &[String]) -> usize {
    // A reader first: it must cope with the log the killed writer left.
    let reader = Store::open_read_only(path).await.expect("open read-only after the kill");
    let games = reader.games().await.expect("read the games");
    for key in reported {
        assert!(games.iter().any(|game| &game.spec.key == key), "game {key} was reported saved but is missing");
    }
    // Each writer saved its games in order: what is stored is a prefix of each sequence.
    let mut next: BTreeMap<String, u32> = BTreeMap::new();
    for game in &games {
        let (writer, n) = game.spec.key.split_once("/g").expect("a writer's key");
        let n: u32 = n.parse().expect("a game number");
        let expected = next.entry(writer.to_string()).or_insert(0);
        assert_eq!(n, *expected, "{writer}: game {n} stored where game {expected} was due");
        *expected += 1;
        assert_eq!(game, &common::outcome(&game.spec.key, n), "the outcome of {}", game.spec.key);
        let record = reader.game_record(&game.spec.key).await.expect("read a record").expect("every game has its record");
        serde_json::from_str::<serde_json::Value>(&record).expect("the record parses");
        assert_eq!(record, common::record(&game.spec.key, RECORD_BYTES), "the record of {}", game.spec.key);
    }
    drop(reader);

    // Below the API: no record without its game, no game without its record, a sound file.
    let options = sqlx::sqlite::SqliteConnectOptions::new().filename(path);
    let pool = sqlx::SqlitePool::connect_with(options).await.expect("open the file directly");
    let orphans: i64 = sqlx::query_scalar(
        "SELECT (SELECT count(*) FROM game_records WHERE key NOT IN (SELECT key FROM games)) \
              + (SELECT count(*) FROM games WHERE key NOT IN (SELECT key FROM game_records))",
    )
    .fetch_one(&pool)
    .await
    .expect("count orphans");
    assert_eq!(orphans, 0, "half-written games");
    let integrity: String = sqlx::query_scalar("PRAGMA integrity_check").fetch_one(&pool).await.expect("check integrity");
    assert_eq!(integrity, "ok");
    pool.close().await;

    // The file resumes: a stored game is refused, a new one is taken.
    let store = Store::open(path).await.expect("reopen after the kill");
    store.begin_tournament("kill test", "", "kill-test").await.expect("the same tournament");
    let first = &reported[0];
    let n: u32 = first.split_once("/g").expect("a key").1.parse().expect("a number");
    let again = store.save_game(&common::outcome(first, n), "{}").await.expect("a stored game again");
    assert!(matches!(again, Saved::Kept(_)), "{again:?}");
    store.save_game(&common::outcome("resumed/g0", 0), "{}").await.expect("a new game after the kill");
    assert_eq!(store.games().await.expect("read the games").len(), games.len() + 1);
    store.close().await;
    games.len()
}
