//! Every call of the store round-trips through a file, survives reopening, and refuses
//! what it must refuse with a message that names the file.

mod common;

use std::path::{Path, PathBuf};

use store::{Saved, Store, StoreError};
use tempfile::TempDir;

fn db(dir: &TempDir) -> PathBuf {
    dir.path().join("results.db")
}

async fn opened(path: &Path) -> Store {
    let store = Store::open(path).await.expect("open");
    store.begin_tournament("Legions 2007", "game = \"legions\"\n", "hash-1").await.expect("begin");
    store.save_entrants(&common::entrants()).await.expect("entrants");
    store
}

#[tokio::test]
async fn tournament_round_trips_and_another_is_refused() {
    let dir = TempDir::new().unwrap();
    let path = db(&dir);
    let store = Store::open(&path).await.unwrap();
    assert_eq!(store.tournament().await.unwrap(), None);
    store.begin_tournament("Legions 2007", "game = \"legions\"\n", "hash-1").await.unwrap();
    let row = store.tournament().await.unwrap().expect("recorded");
    assert_eq!((row.name.as_str(), row.config_text.as_str(), row.config_hash.as_str()), ("Legions 2007", "game = \"legions\"\n", "hash-1"));
    assert!(row.created_ms > 1_600_000_000_000, "created_ms is milliseconds since the epoch: {}", row.created_ms);

    // The same tournament again (a resume) is accepted and changes nothing.
    store.begin_tournament("Legions 2007", "game = \"legions\"\n", "hash-1").await.unwrap();
    assert_eq!(store.tournament().await.unwrap(), Some(row.clone()));

    let error = store.begin_tournament("Gomoku 2004", "game = \"gomoku\"\n", "hash-2").await.unwrap_err();
    assert!(matches!(error, StoreError::OtherTournament { .. }));
    let expected = format!("{} holds another tournament (\"Legions 2007\"); use another --db file", path.display());
    assert_eq!(error.to_string(), expected);
    assert_eq!(store.tournament().await.unwrap(), Some(row));
}

#[tokio::test]
async fn entrants_round_trip_idempotently() {
    let dir = TempDir::new().unwrap();
    let store = opened(&db(&dir)).await;
    assert_eq!(store.entrants().await.unwrap(), common::entrants());
    store.save_entrants(&common::entrants()).await.unwrap();
    assert_eq!(store.entrants().await.unwrap(), common::entrants());

    // A bot that moved keeps its entry, with the new path.
    let mut moved = common::entrants();
    moved[1].bot = "elsewhere/bob.toml".into();
    moved[1].submitted = Some("2024-03-02".into());
    store.save_entrants(&moved).await.unwrap();
    assert_eq!(store.entrants().await.unwrap(), moved);

    // Another entrant under a stored id is refused.
    let mut renamed = common::entrants();
    renamed[2].name = "dave".into();
    let error = store.save_entrants(&renamed).await.unwrap_err();
    assert!(error.to_string().ends_with("holds entrant 2 as \"carol\", not \"dave\"; use another --db file"), "{error}");
    assert_eq!(store.entrants().await.unwrap(), moved);
}

#[tokio::test]
async fn fingerprints_are_stored_once_per_stage_and_entrant() {
    let dir = TempDir::new().unwrap();
    let store = opened(&db(&dir)).await;
    assert_eq!(store.fingerprints(0).await.unwrap(), vec![]);
    let prints = vec![(2, None), (0, Some("ab".repeat(32)))];
    store.save_fingerprints(0, &prints).await.unwrap();
    // The first print taken for a stage stays; a new entrant's print is added.
    store.save_fingerprints(0, &[(0, Some("cd".repeat(32))), (1, None)]).await.unwrap();
    store.save_fingerprints(1, &[(0, Some("ef".repeat(32)))]).await.unwrap();
    assert_eq!(store.fingerprints(0).await.unwrap(), vec![(0, Some("ab".repeat(32))), (1, None), (2, None)]);
    assert_eq!(store.fingerprints(1).await.unwrap(), vec![(0, Some("ef".repeat(32)))]);
    assert_eq!(store.fingerprints(2).await.unwrap(), vec![]);
}

#[tokio::test]
async fn games_round_trip_in_storage_order_with_their_records() {
    let dir = TempDir::new().unwrap();
    let store = opened(&db(&dir)).await;
    assert_eq!(store.games().await.unwrap(), vec![]);
    // Keys out of alphabetical order: the order of storage is kept.
    let keys = ["s0/m9/g1", "s0/m1/g0", "s1/m0/g0", "s0/m10/g0", "s2/m0/g3", "s0/m1/g1"];
    let mut expected = Vec::new();
    for (n, key) in keys.iter().enumerate() {
        let outcome = common::outcome(key, n as u32);
        store.save_game(&outcome, &common::record(key, 500)).await.unwrap();
        expected.push(outcome);
    }
    assert_eq!(store.games().await.unwrap(), expected);
    for key in keys {
        assert_eq!(store.game_record(key).await.unwrap(), Some(common::record(key, 500)));
    }
    assert_eq!(store.game_record("s9/m0/g0").await.unwrap(), None);
}

#[tokio::test]
async fn a_finished_game_is_never_stored_twice_and_the_first_stored_is_kept() {
    let dir = TempDir::new().unwrap();
    let path = db(&dir);
    let store = opened(&path).await;
    let first = common::outcome("s0/m0/g0", 1);
    assert_eq!(store.save_game(&first, "{\"first\":true}").await.unwrap(), Saved::Stored);
    // The same record again (a runner storing a game twice): nothing changes.
    assert_eq!(store.save_game(&first, "{\"first\":true}").await.unwrap(), Saved::Again);
    // Another record under the same key (a second runner played it too): the first
    // stays, and the caller learns which outcome counts.
    let again = common::outcome("s0/m0/g0", 2);
    assert_ne!(again, first);
    assert_eq!(store.save_game(&again, "{\"first\":false}").await.unwrap(), Saved::Kept(Box::new(first.clone())));
    assert_eq!(store.games().await.unwrap(), vec![first]);
    assert_eq!(store.game_record("s0/m0/g0").await.unwrap().as_deref(), Some("{\"first\":true}"));
}

#[tokio::test]
async fn a_game_is_refused_whole_when_any_part_is_wrong() {
    let dir = TempDir::new().unwrap();
    let store = opened(&db(&dir)).await;
    let error = store.save_game(&common::outcome("s0/m0/g0", 1), "{\"moves\": [").await.unwrap_err();
    assert!(matches!(error, StoreError::BadRecord { .. }), "{error:?}");
    // A player that is not a stored entrant breaks a foreign key: nothing is stored.
    let mut stranger = common::outcome("s0/m0/g1", 1);
    stranger.spec.players = [0, 7];
    let error = store.save_game(&stranger, "{}").await.unwrap_err();
    assert!(error.to_string().starts_with(&format!("cannot save a game in {}: ", db(&dir).display())), "{error}");
    assert_eq!(store.games().await.unwrap(), vec![]);
    assert_eq!(store.game_record("s0/m0/g1").await.unwrap(), None);
}

#[tokio::test]
async fn stage_results_round_trip_and_a_stage_saved_again_is_replaced() {
    let dir = TempDir::new().unwrap();
    let store = opened(&db(&dir)).await;
    assert_eq!(store.stage_results().await.unwrap(), vec![]);
    store.save_stage_result(1, "{\"ranking\":[2,0,1]}").await.unwrap();
    store.save_stage_result(0, "{\"ranking\":[0,1,2]}").await.unwrap();
    store.save_stage_result(1, "{\"ranking\":[2,1,0]}").await.unwrap();
    assert_eq!(
        store.stage_results().await.unwrap(),
        vec![(0, "{\"ranking\":[0,1,2]}".to_string()), (1, "{\"ranking\":[2,1,0]}".to_string())]
    );
}

#[tokio::test]
async fn notes_round_trip_once_each_in_order() {
    let dir = TempDir::new().unwrap();
    let store = opened(&db(&dir)).await;
    assert_eq!(store.notes().await.unwrap(), vec![]);
    let notes = [
        (0, Some(2), "failed the entry check: lost 0-2 to random"),
        (0, None, "run with --allow-degraded"),
        (1, Some(0), "changed during the stage: refused"),
    ];
    for _ in 0..2 {
        for (stage, entrant, text) in notes {
            store.save_note(stage, entrant, text).await.unwrap();
        }
    }
    let expected: Vec<_> = notes.iter().map(|&(stage, entrant, text)| (stage, entrant, text.to_string())).collect();
    assert_eq!(store.notes().await.unwrap(), expected);
}

#[tokio::test]
async fn reopening_keeps_everything_and_read_only_sees_it() {
    let dir = TempDir::new().unwrap();
    let path = db(&dir);
    let store = opened(&path).await;
    store.save_fingerprints(0, &[(0, Some("00".repeat(32))), (1, None)]).await.unwrap();
    let games: Vec<_> = (0..5).map(|n| common::outcome(&format!("s0/m{n}/g0"), n)).collect();
    for game in &games {
        store.save_game(game, &common::record(&game.spec.key, 2000)).await.unwrap();
    }
    store.save_stage_result(0, "{}").await.unwrap();
    store.save_note(0, Some(1), "slow").await.unwrap();
    let tournament = store.tournament().await.unwrap();
    store.close().await;
    drop(store);

    for reopened in [Store::open(&path).await.unwrap(), Store::open_read_only(&path).await.unwrap()] {
        assert_eq!(reopened.tournament().await.unwrap(), tournament);
        assert_eq!(reopened.entrants().await.unwrap(), common::entrants());
        assert_eq!(reopened.fingerprints(0).await.unwrap(), vec![(0, Some("00".repeat(32))), (1, None)]);
        assert_eq!(reopened.games().await.unwrap(), games);
        assert_eq!(reopened.game_record("s0/m3/g0").await.unwrap(), Some(common::record("s0/m3/g0", 2000)));
        assert_eq!(reopened.stage_results().await.unwrap(), vec![(0, "{}".to_string())]);
        assert_eq!(reopened.notes().await.unwrap(), vec![(0, Some(1), "slow".to_string())]);
    }
}

#[tokio::test]
async fn read_only_reads_beside_a_writer_and_cannot_write() {
    let dir = TempDir::new().unwrap();
    let path = db(&dir);
    let writer = opened(&path).await;
    let reader = Store::open_read_only(&path).await.unwrap();
    writer.save_game(&common::outcome("s0/m0/g0", 0), "{}").await.unwrap();
    assert_eq!(reader.games().await.unwrap().len(), 1);
    let error = reader.save_note(0, None, "from a reader").await.unwrap_err();
    assert!(error.to_string().starts_with(&format!("cannot save a note in {}: ", path.display())), "{error}");
}

#[tokio::test]
async fn opening_refuses_missing_and_foreign_files_with_a_clear_message() {
    let dir = TempDir::new().unwrap();
    let missing = dir.path().join("missing.db");
    let error = Store::open_read_only(&missing).await.unwrap_err();
    assert_eq!(error.to_string(), format!("cannot open {}: no such file", missing.display()));
    assert!(!missing.exists(), "a read-only open creates nothing");

    let text = dir.path().join("notes.txt");
    std::fs::write(&text, "this is not a database, only some text long enough to be read as a header").unwrap();
    // The one rule for a file a person names: the same line from every open.
    for error in [Store::open(&text).await.unwrap_err(), Store::open_read_only(&text).await.unwrap_err()] {
        assert_eq!(error.to_string(), format!("{} is not an arbiter results database: it is not an SQLite file", text.display()));
    }

    // Another program's SQLite file.
    let other = dir.path().join("other.db");
    {
        let options = sqlx::sqlite::SqliteConnectOptions::new().filename(&other).create_if_missing(true);
        let pool = sqlx::SqlitePool::connect_with(options).await.unwrap();
        sqlx::query("CREATE TABLE accounts (id INTEGER PRIMARY KEY)").execute(&pool).await.unwrap();
        pool.close().await;
    }
    for error in [Store::open(&other).await.unwrap_err(), Store::open_read_only(&other).await.unwrap_err()] {
        assert_eq!(
            error.to_string(),
            format!("{} is not an arbiter results database: it is another program's SQLite file", other.display())
        );
    }

    let cannot = dir.path().join("no-such-folder").join("results.db");
    let error = Store::open(&cannot).await.unwrap_err();
    assert!(error.to_string().starts_with(&format!("cannot open {}: ", cannot.display())), "{error}");
}

#[tokio::test]
async fn a_file_from_a_newer_arbiter_is_refused() {
    let dir = TempDir::new().unwrap();
    let path = db(&dir);
    opened(&path).await.close().await;
    {
        let options = sqlx::sqlite::SqliteConnectOptions::new().filename(&path);
        let pool = sqlx::SqlitePool::connect_with(options).await.unwrap();
        sqlx::query(
            "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) VALUES (99, 'future', 1, x'00', 0)",
        )
        .execute(&pool)
        .await
        .unwrap();
        pool.close().await;
    }
    let expected =
        format!("{} was written by a newer arbiter (schema version 99); use a newer arbiter or another --db file", path.display());
    assert_eq!(Store::open(&path).await.unwrap_err().to_string(), expected);
    assert_eq!(Store::open_read_only(&path).await.unwrap_err().to_string(), expected);
}
