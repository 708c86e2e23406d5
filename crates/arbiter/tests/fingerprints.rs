//! Programs are fingerprinted after they are built, and a program edited while its stage
//! runs stops the run: before its next game, with one line naming the bot, keeping the
//! games played before the edit and storing none the edited program played.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

const ARBITER: &str = env!("CARGO_BIN_EXE_arbiter");

fn sha256(path: &Path) -> String {
    Sha256::digest(std::fs::read(path).unwrap()).iter().map(|b| format!("{b:02x}")).collect()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
}

/// How many games `db` holds so far (0 while the file is still being set up).
fn stored_games(db: &Path) -> usize {
    runtime().block_on(async {
        match store::Store::open_read_only(db).await {
            Ok(store) => store.game_count().await.map_or(0, |n| n as usize),
            Err(_) => 0,
        }
    })
}

/// Every stored game of `db`: the players' entrant ids and the programs' SHA-256 as the
/// records name them.
fn stored(db: &Path) -> Vec<([usize; 2], [Option<String>; 2])> {
    runtime().block_on(async {
        let store = store::Store::open_read_only(db).await.unwrap();
        let mut out = Vec::new();
        for game in store.games().await.unwrap() {
            let record: serde_json::Value = serde_json::from_str(&store.game_record(&game.spec.key).await.unwrap().unwrap()).unwrap();
            let prints = [0, 1].map(|side| record["players"][side]["sha256"].as_str().map(String::from));
            out.push((game.spec.players, prints));
        }
        out
    })
}

/// A Connect Four tournament of `bot` (entrant 0), `random` and `greedy`, long enough to
/// be interrupted: a round robin of 100 deals.
fn config(dir: &Path, bot: &Path) -> PathBuf {
    let path = dir.join("t.toml");
    let text = format!(
        "name = \"t\"\ngame = \"connect4\"\n[[entrant]]\nbot = \"{}\"\n[[entrant]]\nbot = \"random\"\n[[entrant]]\nbot = \"greedy\"\n[[stage]]\nname = \"league\"\nformat = \"round-robin\"\ndeals = 100\n",
        bot.display()
    );
    std::fs::write(&path, text).unwrap();
    path
}

fn start(config: &Path, db: &Path) -> Child {
    Command::new(ARBITER)
        .args(["tournament", config.to_str().unwrap(), "--db", db.to_str().unwrap(), "-j", "2"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Waits (up to a minute) until `db` holds at least `n` games; the run must still be going.
fn wait_for_games(child: &mut Child, db: &Path, n: usize) -> usize {
    let until = Instant::now() + Duration::from_secs(60);
    loop {
        assert!(child.try_wait().unwrap().is_none(), "the run ended before it could be interrupted");
        assert!(Instant::now() < until, "{n} games were not stored within a minute");
        let count = stored_games(db);
        if count >= n {
            return count;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Waits (up to a minute) for the run to end; its stderr.
fn wait_for_end(mut child: Child) -> (bool, String) {
    let until = Instant::now() + Duration::from_secs(60);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > until {
            child.kill().unwrap();
            panic!("the run did not stop within a minute of the edit");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    (out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned())
}

fn error_lines(stderr: &str) -> Vec<&str> {
    stderr.lines().filter(|l| l.starts_with("arbiter:")).collect()
}

#[test]
fn a_program_edited_during_its_stage_stops_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("edited");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("bot.toml"), "name = \"edited\"\ngame = \"connect4\"\nprotocol = \"arbiter\"\ncommand = [\"./bot.sh\"]\n")
        .unwrap();
    let program = folder.join("bot.sh");
    std::fs::write(&program, format!("#!/bin/sh\nexec \"{ARBITER}\" bot greedy --seed 1\n")).unwrap();
    Command::new("chmod").args(["+x", program.to_str().unwrap()]).status().unwrap();
    let original = sha256(&program);
    let config = config(dir.path(), &folder);
    let db = dir.path().join("t.db");

    let mut child = start(&config, &db);
    let before_edit = wait_for_games(&mut child, &db, 4);
    let mut text = std::fs::read_to_string(&program).unwrap();
    text.push_str("# edited while its stage runs\n");
    // Written beside it and renamed over it: the program is being started all the time,
    // and writing into a file while it is executed fails (ETXTBSY).
    let replacement = folder.join("bot.sh.new");
    std::fs::write(&replacement, text).unwrap();
    Command::new("chmod").args(["+x", replacement.to_str().unwrap()]).status().unwrap();
    std::fs::rename(&replacement, &program).unwrap();
    let edited = sha256(&program);

    let (success, stderr) = wait_for_end(child);
    assert!(!success, "the run went on with an edited program: {stderr}");
    let errors = error_lines(&stderr);
    assert_eq!(errors.len(), 1, "{stderr}");
    assert!(errors[0].contains("bot edited changed during stage league"), "{stderr}");

    let games = stored(&db);
    assert!(games.len() >= before_edit, "games stored before the edit were lost: {} < {before_edit}", games.len());
    assert!(games.len() < 300, "the stage ran to its end");
    let mut by_it = 0;
    for (players, prints) in &games {
        if let Some(side) = players.iter().position(|&p| p == 0) {
            by_it += 1;
            assert_eq!(prints[side].as_deref(), Some(original.as_str()), "a game of another program was stored");
            assert_ne!(prints[side].as_deref(), Some(edited.as_str()));
        }
    }
    assert!(by_it > 0, "the bot played before the edit");
}

/// A bot built from a source file (the sample C bots' way): on a fresh checkout its
/// program does not exist until the stage starts. The fingerprint is the built
/// program's, so a resumed run goes on; an edited source is rebuilt by the next game and
/// stops the run, that game not stored.
#[test]
fn a_built_program_resumes_and_a_rebuilt_one_stops_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("built");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(
        folder.join("bot.toml"),
        "name = \"built\"\ngame = \"connect4\"\nprotocol = \"arbiter\"\ncommand = [\"./bot.sh\"]\nbuild = [\"cp\", \"source.sh\", \"bot.sh\"]\n",
    )
    .unwrap();
    let source = folder.join("source.sh");
    std::fs::write(&source, format!("#!/bin/sh\nexec \"{ARBITER}\" bot greedy --seed 2\n")).unwrap();
    Command::new("chmod").args(["+x", source.to_str().unwrap()]).status().unwrap();
    assert!(!folder.join("bot.sh").exists());
    let config = config(dir.path(), &folder);
    let db = dir.path().join("t.db");

    // First run, killed mid-stage (SIGKILL).
    let mut child = start(&config, &db);
    wait_for_games(&mut child, &db, 3);
    child.kill().unwrap();
    child.wait().unwrap();
    let built = sha256(&folder.join("bot.sh"));
    assert!(stored(&db).iter().all(|(players, prints)| players[0] != 0 || prints[0].as_deref() == Some(built.as_str())));

    // The same command resumes: the program it built is the one fingerprinted.
    let mut child = start(&config, &db);
    let resumed_from = wait_for_games(&mut child, &db, stored_games(&db) + 3);
    // The source changes: the next game of the bot rebuilds it, and the run stops.
    let mut text = std::fs::read_to_string(&source).unwrap();
    text.push_str("# a fix\n");
    std::fs::write(&source, text).unwrap();
    let (success, stderr) = wait_for_end(child);
    assert!(!success, "the run went on with a rebuilt program: {stderr}");
    let errors = error_lines(&stderr);
    assert_eq!(errors.len(), 1, "{stderr}");
    assert!(errors[0].contains("bot built changed during stage league"), "{stderr}");
    let games = stored(&db);
    assert!(games.len() >= resumed_from);
    for (players, prints) in &games {
        if let Some(side) = players.iter().position(|&p| p == 0) {
            assert_eq!(prints[side].as_deref(), Some(built.as_str()), "a game of the rebuilt program was stored");
        }
    }
}
