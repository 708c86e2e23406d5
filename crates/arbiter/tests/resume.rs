//! A tournament killed with SIGKILL at random points and resumed again and again ends
//! with the same results as one uninterrupted run with the same seed, and no finished
//! game is stored (or played) twice: the store refuses a second copy of a game, which
//! would make the resumed run fail.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};
use serde_json::Value;

const ARBITER: &str = env!("CARGO_BIN_EXE_arbiter");

/// A bot behind the project's protocol: `arbiter bot KIND --seed SEED`, deterministic.
fn bot(dir: &Path, name: &str, kind: &str, seed: u64) -> PathBuf {
    let folder = dir.join(name);
    std::fs::create_dir_all(&folder).unwrap();
    let manifest = format!(
        "name = \"{name}\"\ngame = \"connect4\"\nprotocol = \"arbiter\"\ncommand = [\"{ARBITER}\", \"bot\", \"{kind}\", \"--seed\", \"{seed}\"]\n"
    );
    std::fs::write(folder.join("bot.toml"), manifest).unwrap();
    folder
}

fn config(dir: &Path) -> PathBuf {
    let mut text = String::from("name = \"resume test\"\ngame = \"connect4\"\nseed = 11\n");
    for (name, kind, seed) in [("p-random-1", "random", 1), ("p-greedy-2", "greedy", 2), ("p-random-3", "random", 3)] {
        let folder = bot(dir, name, kind, seed);
        text.push_str(&format!("[[entrant]]\nname = \"{name}\"\nbot = \"{}\"\n", folder.display()));
    }
    text.push_str("[[entrant]]\nname = \"greedy\"\nbot = \"greedy\"\n[[entrant]]\nname = \"random\"\nbot = \"random\"\n");
    text.push_str("[[stage]]\nname = \"league\"\nformat = \"round-robin\"\ndeals = 1\nscoring = \"game-1-half-0\"\n");
    text.push_str("[[stage]]\nname = \"final\"\nformat = \"final\"\ntop = 3\ndeals = 1\nscoring = \"game-1-half-0\"\ntie-breaks = [\"head-to-head\", \"extra-games\", \"submission\"]\n");
    let path = dir.join("tournament.toml");
    std::fs::write(&path, text).unwrap();
    path
}

fn tournament(config: &Path, db: &Path) -> Command {
    let mut cmd = Command::new(ARBITER);
    cmd.args(["tournament", config.to_str().unwrap(), "--db", db.to_str().unwrap(), "-j", "2"]);
    cmd.stdout(Stdio::null()).stderr(Stdio::piped());
    cmd
}

/// The stored games without their timing, sorted by key.
fn games(db: &Path) -> Vec<Value> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let mut games: Vec<Value> = runtime.block_on(async {
        let store = store::Store::open_read_only(db).await.unwrap();
        store.games().await.unwrap().into_iter().map(|g| serde_json::to_value(g).unwrap()).collect()
    });
    for game in &mut games {
        game.as_object_mut().unwrap().remove("time_ms");
    }
    games.sort_by_key(|g| g["spec"]["key"].as_str().unwrap().to_string());
    games
}

/// How many games `db` holds so far (0 while the file is still being set up).
fn stored_games(db: &Path) -> usize {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        match store::Store::open_read_only(db).await {
            Ok(store) => store.games().await.map_or(0, |games| games.len()),
            Err(_) => 0,
        }
    })
}

/// The standings without the timing column.
fn standings(db: &Path) -> Value {
    let out = Command::new(ARBITER).args(["standings", "--db", db.to_str().unwrap(), "--format", "json"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut value: Value = serde_json::from_slice(&out.stdout).unwrap();
    for stage in value["stages"].as_array_mut().unwrap() {
        for row in stage["rows"].as_array_mut().unwrap() {
            row.as_object_mut().unwrap().remove("avg_ms_per_move");
        }
    }
    value
}

#[test]
fn killed_and_resumed_equals_uninterrupted() {
    let dir = tempfile::tempdir().unwrap();
    let config = config(dir.path());

    let whole = dir.path().join("whole.db");
    let out = tournament(&config, &whole).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let reference = games(&whole);
    assert!(reference.len() >= 26, "both stages played: {} games", reference.len());

    let killed = dir.path().join("killed.db");
    let mut rng = ChaCha8Rng::seed_from_u64(2024);
    let mut kills = 0;
    let mut finished = false;
    for _ in 0..100 {
        // Each run is killed once it has stored a random 1 to 4 more games (a game of the
        // other worker is then in progress), until a run gets to the end by itself.
        let before = stored_games(&killed);
        let more = rng.random_range(1..=4);
        let mut child = tournament(&config, &killed).spawn().unwrap();
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break Some(status);
            }
            if stored_games(&killed) >= before + more {
                break None;
            }
            std::thread::sleep(Duration::from_millis(5));
        };
        match status {
            Some(status) => {
                let stderr = child.wait_with_output().unwrap().stderr;
                assert!(status.success(), "a resumed run failed: {}", String::from_utf8_lossy(&stderr));
                finished = true;
                break;
            }
            None => {
                child.kill().unwrap(); // SIGKILL
                child.wait().unwrap();
                kills += 1;
            }
        }
    }
    assert!(finished, "the tournament never finished after {kills} kills");
    assert!(kills >= 3, "the test killed the run only {kills} times");
    assert_eq!(games(&killed), reference, "the same games with the same results");
    assert_eq!(standings(&killed), standings(&whole));
}

#[test]
fn a_bot_changed_during_a_stage_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    // A program bot (a script starting `arbiter bot greedy`) in a long round robin, so
    // that the run can be stopped mid-stage.
    let script = dir.path().join("slow");
    std::fs::create_dir_all(&script).unwrap();
    std::fs::write(script.join("bot.toml"), "name = \"slow\"\ngame = \"connect4\"\nprotocol = \"arbiter\"\ncommand = [\"./bot.sh\"]\n")
        .unwrap();
    std::fs::write(script.join("bot.sh"), format!("#!/bin/sh\nexec \"{ARBITER}\" bot greedy --seed 1\n")).unwrap();
    std::process::Command::new("chmod").args(["+x", script.join("bot.sh").to_str().unwrap()]).status().unwrap();
    let config = dir.path().join("t.toml");
    std::fs::write(
        &config,
        format!(
            "name = \"t\"\ngame = \"connect4\"\n[options]\nwidth = 20\nheight = 20\n[[entrant]]\nbot = \"{}\"\n[[entrant]]\nbot = \"random\"\n[[entrant]]\nbot = \"greedy\"\n[[stage]]\nformat = \"round-robin\"\ndeals = 40\n",
            script.display()
        ),
    )
    .unwrap();
    let db = dir.path().join("t.db");
    // Start, wait until some games are stored, kill.
    let mut child = tournament(&config, &db).spawn().unwrap();
    let until = Instant::now() + Duration::from_secs(60);
    loop {
        assert!(child.try_wait().unwrap().is_none(), "the run ended before it could be interrupted");
        assert!(Instant::now() < until, "no game was stored within a minute");
        if stored_games(&db) > 0 {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    // The program changes; the resumed run must refuse it. Written beside it and renamed
    // over it: a sandbox helper the killed run had started may still be executing the old
    // file for a moment, and writing into a file being executed fails (ETXTBSY).
    let mut program = std::fs::read_to_string(script.join("bot.sh")).unwrap();
    program.push_str("# a change\n");
    std::fs::write(script.join("bot.sh.new"), program).unwrap();
    std::process::Command::new("chmod").args(["+x", script.join("bot.sh.new").to_str().unwrap()]).status().unwrap();
    std::fs::rename(script.join("bot.sh.new"), script.join("bot.sh")).unwrap();
    let out = tournament(&config, &db).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bot slow changed during stage round-robin"), "{err}");
    assert_eq!(err.lines().filter(|l| l.starts_with("arbiter:")).count(), 1, "{err}");
}
