//! What the integration tests of `arbiter` share: the binary run with arguments,
//! `arbiter verify` run on records, and waits for workers' hooks and ends. Each test program uses part of it.
#![allow(dead_code)]

use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::Value;

/// Runs `arbiter verify GAME ARGS...` on `lines` (one record each, written from a thread
/// while the output is read); its output lines as JSON, one per input line.
pub fn verify(game: &str, args: &[String], lines: &[String]) -> Vec<Value> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(["verify", game])
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start arbiter");
    let input = lines.join("\n") + "\n";
    let mut stdin = child.stdin.take().expect("piped stdin");
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()).expect("write stdin"));
    let output = child.wait_with_output().expect("arbiter runs");
    writer.join().expect("writer thread");
    assert!(output.status.success(), "verify failed: {}", String::from_utf8_lossy(&output.stderr));
    let out: Vec<Value> = String::from_utf8(output.stdout)
        .expect("utf-8")
        .lines()
        .map(|line| serde_json::from_str(line).expect("each output line is JSON"))
        .collect();
    assert_eq!(out.len(), lines.len(), "one output line per input line");
    out
}

/// Runs the `arbiter` binary with `args`; its output.
pub fn arbiter(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_arbiter")).args(args).output().expect("arbiter runs")
}

/// The standard output of a run that must succeed (else the test fails with its stderr).
pub fn ok(output: &std::process::Output) -> String {
    assert!(output.status.success(), "arbiter failed: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// How long [`wait_for_file`] and [`ended`] wait before the test fails.
pub const PATIENCE: std::time::Duration = std::time::Duration::from_secs(180);

/// Waits until a test hook of a worker wrote `file` (the worker's stderr in `log`).
pub fn wait_for_file(file: &std::path::Path, log: &std::path::Path) {
    let since = std::time::Instant::now();
    while !file.exists() {
        assert!(since.elapsed() < PATIENCE, "{} never came: {}", file.display(), std::fs::read_to_string(log).unwrap_or_default());
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

/// Waits for a process to end, killing it after [`PATIENCE`].
pub fn ended(child: &mut std::process::Child, what: &str) -> std::process::ExitStatus {
    let since = std::time::Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if since.elapsed() > PATIENCE {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what} did not end within {PATIENCE:?}");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Whether a worker id is that of the process `pid` (ids are `[name/]host:pid:joined_ms`).
pub fn is_of(worker: &str, pid: u32) -> bool {
    worker.split(':').nth(1) == Some(pid.to_string().as_str())
}

/// A deterministic Connect Four bot behind the project's protocol, `arbiter bot PLAYER
/// --seed SEED`, in `dir/name` (node-limited searches take a few milliseconds a move, so
/// games last a while).
pub fn seeded_bot(dir: &std::path::Path, name: &str, player: &str, seed: u64) {
    let folder = dir.join(name);
    std::fs::create_dir_all(&folder).unwrap();
    let arbiter = env!("CARGO_BIN_EXE_arbiter");
    let manifest = format!(
        "name = \"{name}\"\ngame = \"connect4\"\nprotocol = \"arbiter\"\ncommand = [\"{arbiter}\", \"bot\", \"{player}\", \"--seed\", \"{seed}\"]\n"
    );
    std::fs::write(folder.join("bot.toml"), manifest).unwrap();
}

/// `dir/tournament.toml`: a Connect Four league of `entrants` (name, bot) with two deals,
/// then a final of the top two.
pub fn league_and_final(dir: &std::path::Path, name: &str, seed: u64, entrants: &[(&str, &str)]) -> std::path::PathBuf {
    let mut text = format!("name = \"{name}\"\ngame = \"connect4\"\nseed = {seed}\n");
    for (name, bot) in entrants {
        text.push_str(&format!("[[entrant]]\nname = \"{name}\"\nbot = \"{bot}\"\n"));
    }
    text.push_str("[[stage]]\nname = \"league\"\nformat = \"round-robin\"\ndeals = 2\nscoring = \"game-1-half-0\"\n");
    text.push_str("[[stage]]\nname = \"final\"\nformat = \"final\"\ntop = 2\ndeals = 1\nscoring = \"game-1-half-0\"\n");
    text.push_str("tie-breaks = [\"head-to-head\", \"extra-games\", \"submission\"]\n");
    let path = dir.join("tournament.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// The games stored in `db` (a file or a URL) without their timing, sorted by key: what
/// two runs of one config must agree on.
pub fn stored_games(db: &str) -> Vec<Value> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let mut games: Vec<Value> = runtime.block_on(async {
        let store = store::Store::open_read_only_at(&store::Location::parse(db)).await.unwrap();
        let games = store.games().await.unwrap().into_iter().map(|g| serde_json::to_value(g).unwrap()).collect();
        store.close().await;
        games
    });
    for game in &mut games {
        game.as_object_mut().unwrap().remove("time_ms");
    }
    games.sort_by_key(|g| g["spec"]["key"].as_str().unwrap().to_string());
    games
}
