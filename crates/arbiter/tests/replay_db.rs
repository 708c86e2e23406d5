//! `arbiter replay` on a tournament's database: the list of its games with their keys,
//! one game replayed, its record exported as the JSON line `play --record` writes; and
//! one clear line for a file that is not a results database or a key it does not hold.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const ARBITER: &str = env!("CARGO_BIN_EXE_arbiter");

fn arbiter(args: &[&str]) -> Output {
    Command::new(ARBITER).args(args).output().unwrap()
}

fn stdout(out: &Output) -> String {
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout.clone()).unwrap()
}

/// The one line a refused command prints.
fn refusal(out: &Output) -> String {
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert!(err.starts_with("arbiter: "), "{err}");
    err
}

/// A finished tournament of built-ins (two entrants named apart from their bots): its
/// database.
fn tournament(dir: &Path) -> PathBuf {
    let config = dir.join("t.toml");
    std::fs::write(
        &config,
        "name = \"t\"\ngame = \"connect4\"\nseed = 3\n[[entrant]]\nname = \"first-bot\"\nbot = \"random\"\n[[entrant]]\nname = \"second-bot\"\nbot = \"greedy\"\n[[stage]]\nname = \"league\"\nformat = \"round-robin\"\ndeals = 2\nswap = true\n",
    )
    .unwrap();
    let db = dir.join("t.db");
    stdout(&arbiter(&["tournament", config.to_str().unwrap(), "--db", db.to_str().unwrap(), "-j", "1"]));
    db
}

/// The stored games' keys and records, read from the store.
fn stored(db: &Path) -> Vec<(String, String)> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let store = store::Store::open_read_only(db).await.unwrap();
        let mut out = Vec::new();
        for game in store.games().await.unwrap() {
            let record = store.game_record(&game.spec.key).await.unwrap().unwrap();
            out.push((game.spec.key, record));
        }
        out
    })
}

#[test]
fn lists_replays_and_exports_a_tournament_game() {
    let dir = tempfile::tempdir().unwrap();
    let db = tournament(dir.path());
    let db_arg = db.to_str().unwrap();
    let games = stored(&db);
    // One pair, two deals of two games.
    assert_eq!(games.len(), 4);

    // The list: a header, then one line per stored game, in the order stored, with the
    // entrants' names.
    let list = stdout(&arbiter(&["replay", db_arg]));
    let lines: Vec<&str> = list.lines().collect();
    assert_eq!(lines.len(), 1 + games.len(), "{list}");
    assert!(lines[0].starts_with("key"), "{list}");
    for ((key, _), line) in games.iter().zip(&lines[1..]) {
        assert_eq!(line.split_whitespace().next(), Some(key.as_str()), "{list}");
        assert!(line.contains("league") && line.contains("first-bot") && line.contains("second-bot"), "{line}");
    }

    // One game replayed: the entrants' names, then the start and every move.
    let (key, record_text) = &games[1];
    let record: referee::GameRecord = serde_json::from_str(record_text).unwrap();
    let replay = stdout(&arbiter(&["replay", db_arg, "--game", key, "--all"]));
    let first = replay.lines().next().unwrap();
    assert!(first.starts_with("connect4: "), "{first}");
    assert!(first.contains("first-bot") && first.contains("second-bot"), "{first}");
    assert!(first.contains(&format!("{} moves", record.moves.len())), "{first}");
    let plays = replay.lines().filter(|l| l.contains(" plays ")).count();
    assert_eq!(plays, record.moves.len(), "{replay}");

    // Its record, as `play --record` writes one: a JSON line with the same fields.
    let json = stdout(&arbiter(&["replay", db_arg, "--game", key, "--json"]));
    assert_eq!(json, format!("{record_text}\n"));
    let exported: referee::GameRecord = serde_json::from_str(&json).unwrap();
    assert_eq!(exported, record);
    let records = dir.path().join("records");
    stdout(&arbiter(&["play", "connect4", "random", "greedy", "--seed", "1", "--record", records.to_str().unwrap()]));
    let written = std::fs::read_dir(&records).unwrap().flatten().next().unwrap().path();
    let played: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(written).unwrap()).unwrap();
    let from_db: serde_json::Value = serde_json::from_str(&json).unwrap();
    let fields = |v: &serde_json::Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    assert_eq!(fields(&from_db), fields(&played));
    // ... which `replay` reads back.
    let file = dir.path().join("game.json");
    let said = stdout(&arbiter(&["replay", db_arg, "--game", key, "--export", file.to_str().unwrap()]));
    assert!(said.contains(file.to_str().unwrap()), "{said}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), json);
    let again = stdout(&arbiter(&["replay", file.to_str().unwrap(), "--all"]));
    assert_eq!(again.lines().filter(|l| l.contains(" plays ")).count(), record.moves.len());
    // An existing file is never overwritten.
    let err = refusal(&arbiter(&["replay", db_arg, "--game", &games[0].0, "--export", file.to_str().unwrap()]));
    assert!(err.contains("never overwritten"), "{err}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), json);
}

#[test]
fn bad_input_gets_one_clear_line() {
    let dir = tempfile::tempdir().unwrap();
    let db = tournament(dir.path());
    let db_arg = db.to_str().unwrap();

    let err = refusal(&arbiter(&["replay", db_arg, "--game", "s0/r9/0-1/m0/d0/g0"]));
    assert!(err.contains("no game \"s0/r9/0-1/m0/d0/g0\""), "{err}");

    // A text file, and a SQLite database of another program.
    let text = dir.path().join("t.toml");
    let other = dir.path().join("other.db");
    let made = Command::new("python3")
        .args(["-c", "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('create table t (x)'); c.commit()"])
        .arg(&other)
        .status()
        .unwrap();
    assert!(made.success());
    for file in [&text, &other] {
        let name = file.to_str().unwrap();
        for args in [vec!["replay", name, "--game", "s0/r0/0-1/m0/d0/g0"], vec!["standings", "--db", name]] {
            let err = refusal(&arbiter(&args));
            assert!(err.contains(&format!("{name} is not an arbiter results database")), "{args:?}: {err}");
        }
    }
    let err = refusal(&arbiter(&["replay", text.to_str().unwrap()]));
    assert!(err.contains("neither a game record nor a results database"), "{err}");
    let err = refusal(&arbiter(&["replay", other.to_str().unwrap()]));
    assert!(err.contains("is not an arbiter results database"), "{err}");
}
