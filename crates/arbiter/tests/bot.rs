//! `arbiter bot`: a built-in player as a program over the project's own protocol, run as
//! an external process by `arbiter play` for every game, and spoken to directly.

use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::Value;

const ARBITER: &str = env!("CARGO_BIN_EXE_arbiter");

#[test]
fn greedy_as_a_program_plays_every_game() {
    let dir = std::env::temp_dir().join(format!("arbiter-bot-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    for game in ["gomoku", "connect4", "pahtum", "legions", "nupud"] {
        let manifest = dir.join(format!("{game}.toml"));
        let text = format!(
            "name = \"greedy-bot\"\ngame = \"{game}\"\nprotocol = \"arbiter\"\ncommand = [{ARBITER:?}, \"bot\", \"greedy\", \"--seed\", \"4\"]\n"
        );
        std::fs::write(&manifest, text).expect("write manifest");
        let mut args = vec!["play", game, manifest.to_str().expect("utf-8 path"), "random", "--games", "2", "--seed", "9", "--json"];
        if game == "legions" {
            args.extend(["-o", "size=7"]);
        }
        // The program lives outside the manifest's folder: in the sandbox a bot sees only
        // its own folder and the system, so its folder is named a system path, as an
        // organiser names a toolchain's (`docs/security.md`).
        let installed = std::path::Path::new(ARBITER).parent().expect("the binary's folder");
        let output = Command::new(ARBITER).args(&args).env("ARBITER_SYSTEM_PATHS", installed).output().expect("arbiter runs");
        assert!(output.status.success(), "{game}: {}", String::from_utf8_lossy(&output.stderr));
        let json: Value = serde_json::from_slice(&output.stdout).expect("json");
        let games = json["games"].as_array().expect("games");
        assert_eq!(games.len(), 2);
        for played in games {
            assert_eq!(played["termination"]["kind"], "rules", "{game}: {played}");
        }
        // Side 0 in game 1, side 1 in game 2: both seats work.
        assert_eq!(games[0]["players"][0], "greedy-bot");
        assert_eq!(games[1]["players"][1], "greedy-bot");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_session_on_stdin() {
    let mut child = Command::new(ARBITER)
        .args(["bot", "random", "--seed", "1"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("arbiter bot starts");
    let session = "arbiter 1\ngame connect4 width=4 height=4\nside 1\nstart -\n\
                   opponent 2\nposition ..../..../..../..X.\nlegal 0 1 2 3\ntime 1000\ngo\n\
                   opponent 2\nposition ..../..../..X./..XO\nlegal 0 1 2 3\ntime -\ngo\n\
                   result loss\n\
                   game connect4 width=4 height=4\nside 0\nstart -\n\
                   position ..../..../..../....\nlegal 0 1 2 3\ntime -\ngo\n\
                   result win\nquit\n";
    child.stdin.take().expect("stdin").write_all(session.as_bytes()).expect("write session");
    let output = child.wait_with_output().expect("arbiter bot ends");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let stdout = String::from_utf8(output.stdout).expect("utf-8");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines[..4], ["name arbiter-random", "author Arbiter built-in players", "reuse", "ready"]);
    assert_eq!(lines.len(), 7, "{stdout}");
    // The second position need not follow from the bot's first move: it rebuilds its
    // position from the line where the two differ. After `result`, a second game in the
    // same process (it said `reuse`).
    assert!(lines[4..].iter().all(|line| line.starts_with("move ")), "{stdout}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.lines().filter(|line| line.contains("plays")).count(), 3, "a debug line per move: {stderr}");
}
