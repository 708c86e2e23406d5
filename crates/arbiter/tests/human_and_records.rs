//! A human at the terminal (scripted through stdin), game records written by `play
//! --record`, read back by `verify` and `replay`.

use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::Value;

fn arbiter_with_input(args: &[&str], input: &str) -> (bool, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("arbiter runs");
    let mut stdin = child.stdin.take().expect("piped");
    let input = input.to_string();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(input.as_bytes());
    });
    let output = child.wait_with_output().expect("arbiter ends");
    writer.join().expect("writer");
    (output.status.success(), String::from_utf8_lossy(&output.stdout).into_owned(), String::from_utf8_lossy(&output.stderr).into_owned())
}

#[test]
fn a_human_is_told_what_is_wrong_and_asked_again() {
    // Bad input first, then every column over and over until the game ends.
    let mut input = String::from("x\n9\n?\n");
    for _ in 0..20 {
        for col in 0..7 {
            input.push_str(&format!("{col}\n"));
        }
    }
    let (ok, out, err) = arbiter_with_input(&["play", "connect4", "human", "random", "--seed", "3"], &input);
    assert!(ok, "{err}");
    assert!(out.contains("You play blue"), "{out}");
    assert!(out.contains("That move cannot be played: cannot read move \"x\""), "{out}");
    assert!(out.contains("That move cannot be played: illegal move 9: no column 9 on a board 7 wide"), "{out}");
    assert!(out.contains("Legal moves: 0 1 2 3 4 5 6"), "{out}");
    assert!(out.contains("Game over."), "{out}");
    assert!(out.contains("game 1: human (blue) vs random (red)"), "{out}");
}

#[test]
fn a_human_who_leaves_loses() {
    let (ok, out, _) = arbiter_with_input(&["play", "gomoku", "random", "human", "--seed", "3"], "A0\n");
    assert!(ok);
    assert!(out.contains("random (X) wins"), "{out}");
    assert!(out.contains("crash by 0: the human player left (end of input)"), "{out}");
}

#[test]
fn records_are_complete_and_verify_and_replay_read_them() {
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("records");
    let rec_arg = rec.to_str().unwrap();
    let (ok, _, err) = arbiter_with_input(
        &["play", "legions", "greedy", "random", "-o", "size=7", "--games", "2", "--seed", "4", "--record", rec_arg],
        "",
    );
    assert!(ok, "{err}");
    let mut lines = String::new();
    for idx in 1..=2 {
        let text = std::fs::read_to_string(rec.join(format!("game-000{idx}.json"))).unwrap();
        assert_eq!(text.lines().count(), 1, "one line of JSON per record");
        let record: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(record["game"], "legions");
        assert_eq!(record["options"]["size"], "7");
        assert_eq!(record["players"][(idx - 1) % 2]["name"], "greedy");
        assert_eq!(record["result"]["termination"]["kind"], "rules");
        let turns = record["turns"].as_array().unwrap();
        assert_eq!(turns.len(), record["moves"].as_array().unwrap().len());
        assert!(turns.iter().all(|t| t["ms"].is_u64() && t["note"].is_string()), "every Legions turn notes its effects");
        lines.push_str(&text);
    }
    let (ok, out, err) = arbiter_with_input(&["verify", "legions", "-o", "size=7"], &lines);
    assert!(ok, "{err}");
    for (verdict, text) in out.lines().zip(lines.lines()) {
        let verdict: Value = serde_json::from_str(verdict).unwrap();
        let record: Value = serde_json::from_str(text).unwrap();
        assert_eq!(verdict["status"], "over");
        assert_eq!(verdict["winner"], record["result"]["winner"]);
        assert_eq!(verdict["scores"], record["result"]["scores"]);
    }
    let (ok, out, err) = arbiter_with_input(&["replay", rec.join("game-0001.json").to_str().unwrap()], "");
    assert!(ok, "{err}");
    assert!(out.starts_with("legions: greedy (player 0) vs random (player 1)"), "{out}");
    assert!(out.contains("1. player 0 plays"), "{out}");
    assert!(out.contains("by the rules"), "{out}");
}

#[test]
fn replay_refuses_what_is_not_a_record() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.json");
    std::fs::write(&path, "{\"moves\": []}").unwrap();
    let (ok, _, err) = arbiter_with_input(&["replay", path.to_str().unwrap()], "");
    assert!(!ok);
    assert!(err.contains("is neither a game record nor a results database"), "{err}");
    assert_eq!(err.lines().count(), 1);
}
