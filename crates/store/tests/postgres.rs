//! The store on PostgreSQL (a throwaway cluster): every call answers as it does on a
//! SQLite file, and the shared work's leases hold: one holder per game, an expired lease
//! is claimed again with the next attempt, and only the current attempt's holder stores.

mod common;

use std::time::Duration;

use store::{Finished, Location, Saved, Store, StoreError, WorkerInfo};
use tournament::GameSpec;

fn worker(pid: u32) -> WorkerInfo {
    WorkerInfo { host: "test".into(), pid, version: "0.0.0".into(), sandbox: "none".into() }
}

/// Every store call of a tournament's life, with what each answered, as text.
async fn script(store: &Store) -> Vec<String> {
    let mut said = Vec::new();
    said.push(format!("{:?}", store.tournament().await.unwrap()));
    store.begin_tournament("Legions 2007", "game = \"legions\"\n", "hash-1").await.unwrap();
    said.push(format!(
        "{:?}",
        store.begin_tournament("Other", "", "hash-2").await.map_err(|e| matches!(e, StoreError::OtherTournament { .. }))
    ));
    store.save_entrants(&common::entrants()).await.unwrap();
    store.save_entrants(&common::entrants()).await.unwrap();
    let mut renamed = common::entrants();
    renamed[1].name = "bobby".into();
    said.push(format!("{:?}", store.save_entrants(&renamed).await.map_err(|e| matches!(e, StoreError::OtherEntrant { .. }))));
    said.push(format!("{:?}", store.entrants().await.unwrap()));
    store.save_fingerprints(0, &[(0, Some("aa".into())), (1, None)]).await.unwrap();
    store.save_fingerprints(0, &[(0, Some("bb".into()))]).await.unwrap();
    said.push(format!("{:?}", store.fingerprints(0).await.unwrap()));
    for n in [7, 3, 12, 5] {
        let key = format!("g{n}");
        said.push(format!("{:?}", store.save_game(&common::outcome(&key, n), &common::record(&key, 300)).await.unwrap()));
    }
    said.push(format!("{:?}", store.save_game(&common::outcome("g3", 3), &common::record("g3", 300)).await.unwrap()));
    said.push(format!("{:?}", store.save_game(&common::outcome("g3", 4), "{\"other\":1}").await.unwrap()));
    said.push(format!("{:?}", store.save_game(&common::outcome("g9", 9), "not json").await.map_err(|e| e.to_string())));
    said.push(format!("{:?}", store.games().await.unwrap()));
    said.push(format!("{:?}", store.game_count().await.unwrap()));
    said.push(format!("{:?}", store.game_record("g12").await.unwrap()));
    said.push(format!("{:?}", store.game_record("none").await.unwrap()));
    store.save_stage_result(1, "{\"a\":1}").await.unwrap();
    store.save_stage_result(0, "{\"b\":2}").await.unwrap();
    store.save_stage_result(1, "{\"a\":3}").await.unwrap();
    said.push(format!("{:?}", store.stage_results().await.unwrap()));
    for (stage, entrant, text) in [(0, Some(1), "x"), (0, None, "y"), (0, Some(1), "x"), (1, None, "y")] {
        store.save_note(stage, entrant, text).await.unwrap();
    }
    said.push(format!("{:?}", store.notes().await.unwrap()));
    said
}

fn spec(key: &str) -> GameSpec {
    common::outcome(key, 1).spec
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn postgres_answers_as_sqlite_does_and_leases_fence_the_results() {
    let Some(cluster) = pgtest::Cluster::start() else { return };

    // The same calls, the same answers.
    let dir = tempfile::tempdir().unwrap();
    let file = Store::open(&dir.path().join("results.db")).await.unwrap();
    let shared = Store::open_at(&Location::parse(&cluster.database()), 4).await.unwrap();
    assert_eq!(script(&shared).await, script(&file).await);
    let again = Store::open_read_only_at(shared.location()).await.unwrap();
    assert_eq!(again.games().await.unwrap(), file.games().await.unwrap());
    // A file has the queue too (`arbiter serve` leases its games to HTTP workers): empty here.
    assert!(matches!(file.claim("w", Duration::from_secs(1)).await, Ok(None)));

    // Leases, in a database of their own.
    let store = Store::open_at(&Location::parse(&cluster.database()), 16).await.unwrap();
    store.begin_tournament("Legions 2007", "", "hash-1").await.unwrap();
    store.save_entrants(&common::entrants()).await.unwrap();
    let a = store.register_worker(&worker(1)).await.unwrap();
    let b = store.register_worker(&worker(2)).await.unwrap();
    let keys: Vec<String> = (0..200).map(|n| format!("k{n:03}")).collect();
    store.enqueue(&keys.iter().map(|k| spec(k)).collect::<Vec<_>>()).await.unwrap();
    store.enqueue(&[spec("k000")]).await.unwrap();
    assert_eq!(store.open_games().await.unwrap(), 200);

    // 200 claims at once from 16 connections: each game to exactly one holder.
    let claims = (0..200).map(|n| {
        let store = store.clone();
        let worker = if n % 2 == 0 { a.clone() } else { b.clone() };
        tokio::spawn(async move { store.claim(&worker, Duration::from_secs(600)).await.unwrap().expect("a game for every claim") })
    });
    let mut claimed = Vec::new();
    for claim in claims {
        claimed.push(claim.await.unwrap());
    }
    let mut got: Vec<String> = claimed.iter().map(|lease| lease.spec.key.clone()).collect();
    got.sort();
    assert_eq!(got, keys, "each game leased once");
    assert!(claimed.iter().all(|lease| lease.attempt == 1));
    assert_eq!(store.claim(&a, Duration::from_secs(600)).await.unwrap(), None, "nothing left to claim");

    // A lease that expires is claimed again with the next attempt; its old holder can
    // neither renew it nor store its game.
    let first = claimed.iter().find(|lease| lease.spec.key == "k000").unwrap().clone();
    store.give_back(&first).await.unwrap();
    let second = store.claim(&b, Duration::from_millis(1)).await.unwrap().expect("the given-back game");
    assert_eq!((second.spec.key.as_str(), second.attempt), ("k000", 2));
    // Its 1 ms lease has expired by the time the next claim is made (the database's
    // clock moves on between statements).
    let third = loop {
        if let Some(lease) = store.claim(&a, Duration::from_secs(600)).await.unwrap() {
            break lease;
        }
    };
    assert_eq!((third.spec.key.as_str(), third.attempt), ("k000", 3));
    let outcome = common::outcome("k000", 1);
    for stale in [&first, &second] {
        assert!(!store.renew(stale, Duration::from_secs(600)).await.unwrap());
        assert_eq!(store.finish(stale, &outcome, "{}", async {}).await.unwrap(), Finished::Stale);
    }
    assert_eq!(store.game_count().await.unwrap(), 0, "nothing stored by a stale holder");
    assert!(store.renew(&third, Duration::from_secs(600)).await.unwrap());
    assert_eq!(store.finish(&third, &outcome, "{}", async {}).await.unwrap(), Finished::Stored(Saved::Stored));
    assert_eq!(store.finish(&third, &outcome, "{}", async {}).await.unwrap(), Finished::Stale, "stored once");
    assert_eq!(store.game_count().await.unwrap(), 1);
    assert_eq!(store.game_workers().await.unwrap(), vec![("k000".to_string(), a.clone())]);
    assert_eq!(store.open_games().await.unwrap(), 199);

    // A decided stage's leftovers are dropped: their holders cannot store them.
    store.drop_queued(1).await.unwrap();
    let leftover = claimed.iter().find(|lease| lease.spec.key == "k001").unwrap();
    assert_eq!(store.finish(leftover, &common::outcome("k001", 1), "{}", async {}).await.unwrap(), Finished::Stale);
    assert_eq!(store.open_games().await.unwrap(), 0);
    assert_eq!(store.workers().await.unwrap().len(), 2);
}

/// A claim skips the row another claim holds locked (`FOR UPDATE SKIP LOCKED`) instead of
/// waiting for it: a second connection holds the oldest game's row lock in an open
/// transaction, as a claim does between its select and its commit, and a claim made
/// meanwhile gets the next game at once. (Without `SKIP LOCKED` it would wait for that
/// transaction: the timeout, far beyond any need, turns the wait into a failure.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_claim_skips_the_game_another_claim_holds_locked() {
    use sqlx::Connection;
    let Some(cluster) = pgtest::Cluster::start() else { return };
    let url = cluster.database();
    let store = Store::open_at(&Location::parse(&url), 4).await.unwrap();
    store.begin_tournament("Legions 2007", "", "hash-1").await.unwrap();
    store.save_entrants(&common::entrants()).await.unwrap();
    let a = store.register_worker(&worker(1)).await.unwrap();
    store.enqueue(&[spec("first"), spec("second")]).await.unwrap();

    let mut other = sqlx::PgConnection::connect(&url).await.unwrap();
    let mut held = other.begin().await.unwrap();
    let locked: String = sqlx::query_scalar("SELECT key FROM queue ORDER BY seq LIMIT 1 FOR UPDATE").fetch_one(&mut *held).await.unwrap();
    assert_eq!(locked, "first");
    let claim = tokio::time::timeout(Duration::from_secs(30), store.claim(&a, Duration::from_secs(600))).await;
    let lease = claim.expect("the claim waited for the locked row").unwrap().expect("a game");
    assert_eq!(lease.spec.key, "second");
    held.rollback().await.unwrap();
    assert_eq!(store.claim(&a, Duration::from_secs(600)).await.unwrap().map(|l| l.spec.key), Some("first".to_string()));

    // Bundles of files: stored by owner, contents by hash, a later save replacing the list.
    store.save_bundle("entrant:0", "h1", "[1]", &[("c1".into(), b"one".to_vec()), ("c2".into(), b"two".to_vec())]).await.unwrap();
    store.save_bundle("entrant:0", "h2", "[2]", &[("c1".into(), b"one".to_vec())]).await.unwrap();
    assert_eq!(store.bundle("entrant:0").await.unwrap(), Some(("h2".to_string(), "[2]".to_string())));
    assert_eq!(store.bundle("entrant:1").await.unwrap(), None);
    assert_eq!(store.blob("c2").await.unwrap(), Some(b"two".to_vec()));
    assert_eq!(store.blob("c3").await.unwrap(), None);
}
