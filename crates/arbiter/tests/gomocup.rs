//! The Gomocup interface through the real `arbiter`: the sample engine plays the built-in
//! players and the samples of the other Gomoku interfaces and of the project's protocol
//! in both seats, from the empty board and from a start position; `info` shows its
//! `ABOUT`; its `MESSAGE`/`DEBUG` lines are kept in the record; engines that answer `OK`
//! late, write log lines around their moves, refuse `START 10` or answer off the board.

mod common;

use common::arbiter;
use std::path::{Path, PathBuf};

use serde_json::Value;

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

fn sample(path: &str) -> String {
    repo().join("bots").join(path).to_str().unwrap().to_string()
}

/// A Gomocup bot made of one Python script in `dir/name`.
fn script_bot(dir: &Path, name: &str, script: &str) -> String {
    let folder = dir.join(name);
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(
        folder.join("bot.toml"),
        format!("name = \"{name}\"\ngame = \"gomoku\"\nprotocol = \"gomocup\"\ncommand = [\"python3\", \"./brain.py\"]\n"),
    )
    .unwrap();
    std::fs::write(folder.join("brain.py"), script).unwrap();
    folder.to_str().unwrap().to_string()
}

/// A brain in Python that keeps the board and plays its first empty cell (column by
/// column); `{start}` is what it does on `START`, `{move}` what it writes before each
/// move.
const BRAIN: &str = r#"import sys, time
board = set()
def say(line):
    print(line, flush=True)
def move():
    {move}
    for x in range(10):
        for y in range(10):
            if (x, y) not in board:
                board.add((x, y))
                say("%d,%d" % (x, y))
                return
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "START":
        {start}
    elif words[0] == "INFO":
        say("UNKNOWN " + line.strip())
    elif words[0] == "BEGIN":
        move()
    elif words[0] == "TURN":
        x, y = map(int, words[1].split(","))
        board.add((x, y))
        move()
    elif words[0] == "BOARD":
        for stone in sys.stdin:
            if stone.strip() == "DONE":
                break
            x, y, _ = map(int, stone.split(","))
            board.add((x, y))
        move()
    elif words[0] == "END":
        break
"#;

fn brain(start: &str, before_move: &str) -> String {
    BRAIN.replace("{start}", start).replace("{move}", before_move)
}

/// Plays `a` against `b` with `--json` and a record folder; returns the summary and the
/// records.
fn play(a: &str, b: &str, extra: &[&str], records: &Path) -> (Value, Vec<Value>) {
    let mut args = vec!["play", "gomoku", a, b, "--seed", "7", "--json", "--no-sandbox", "--record", records.to_str().unwrap()];
    args.extend(extra);
    let out = arbiter(&args);
    assert!(out.status.success(), "{a} vs {b}: {}", text(&out.stderr));
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut files: Vec<PathBuf> = std::fs::read_dir(records).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    let records = files.iter().map(|f| serde_json::from_str(&std::fs::read_to_string(f).unwrap()).unwrap()).collect();
    (summary, records)
}

fn logs_of_turn(turn: &Value) -> &str {
    turn["stderr"].as_str().unwrap_or_default()
}

/// The turn logs of the side `name` played in a record.
fn logs_of(record: &Value, name: &str) -> String {
    let side = record["players"].as_array().unwrap().iter().position(|p| p["name"] == name).unwrap();
    let turns = record["turns"].as_array().unwrap();
    turns.iter().filter(|t| t["side"] == side).map(|t| t["stderr"].as_str().unwrap_or_default()).collect()
}

#[test]
fn the_sample_engine_plays_everyone_in_both_seats() {
    let engine = sample("gomocup/c");
    let opponents =
        ["random".to_string(), "greedy".to_string(), sample("gomoku-file/c"), sample("gomoku-console/python"), sample("arbiter/c")];
    for opponent in &opponents {
        let dir = tempfile::tempdir().unwrap();
        let (summary, records) = play(&engine, opponent, &["-n", "2"], dir.path());
        let games = summary["games"].as_array().unwrap();
        assert_eq!(games.len(), 2);
        for game in games {
            assert_eq!(game["termination"]["kind"], "rules", "against {opponent}: {game}");
        }
        assert_eq!(games[0]["players"][0], "gomocup-sample-c");
        assert_eq!(games[1]["players"][1], "gomocup-sample-c");
        // Its DEBUG lines (and its stderr) are in the record, turn by turn.
        for record in &records {
            let logs = logs_of(record, "gomocup-sample-c");
            assert!(logs.contains("stdout: DEBUG score "), "{logs}");
            assert!(logs.contains("playing "), "{logs}");
        }
    }
}

#[test]
fn a_start_position_reaches_the_engine_as_a_board() {
    let dir = tempfile::tempdir().unwrap();
    let start = dir.path().join("start.txt");
    // X has four in a column at A0..A3 (A4 is free), 0 four in a row at C9..F9: the
    // engine, X, must play its five at once, A4, which it can only know from BOARD.
    let field = "X.........\nX.........\nX.........\nX.........\n..........\n..........\n..........\n..........\n..........\n..0000....\n";
    std::fs::write(&start, field).unwrap();
    let records = dir.path().join("records");
    let (summary, _) = play(&sample("gomocup/c"), "random", &["--start", start.to_str().unwrap()], &records);
    let game = &summary["games"][0];
    assert_eq!(game["moves"], serde_json::json!(["A4"]), "{game}");
    assert_eq!(game["winner_name"], "gomocup-sample-c");
}

#[test]
fn info_shows_the_about_line() {
    let out = arbiter(&["info", &sample("gomocup/c"), "--no-sandbox"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let shown = text(&out.stdout);
    for line in ["protocol: gomocup", "name:     Sample Brain", "author:   Arbiter sample bots", "version:  1.0", "country:  LV"] {
        assert!(shown.contains(line), "{line:?} is not in:\n{shown}");
    }
}

#[test]
fn a_late_ok_and_log_lines_around_the_moves() {
    let dir = tempfile::tempdir().unwrap();
    let start = "say(\"MESSAGE loading\"); time.sleep(0.5); say(\"DEBUG loaded\"); say(\"\"); say(\"OK\")";
    let bot = script_bot(dir.path(), "late", &brain(start, "say(\"MESSAGE thinking\")"));
    let (summary, records) = play(&bot, "random", &["-n", "2", "--limit", "game-ms=60000"], &dir.path().join("records"));
    for game in summary["games"].as_array().unwrap() {
        assert_eq!(game["termination"]["kind"], "rules", "{game}");
    }
    for record in &records {
        let logs = logs_of(record, "late");
        // The lines before OK come with the first turn; the engine's UNKNOWN answers to
        // the INFO lines are kept too.
        assert!(logs.starts_with("stdout: MESSAGE loading\nstdout: DEBUG loaded\n"), "{logs}");
        assert!(logs.contains("stdout: UNKNOWN INFO timeout_turn 5000\n"), "{logs}");
        // The game budget is the match time, and what is left of it comes before each turn.
        assert!(logs.contains("stdout: UNKNOWN INFO timeout_match 60000\n"), "{logs}");
        let time_left = logs.lines().filter(|line| line.starts_with("stdout: UNKNOWN INFO time_left ")).count();
        let turns = record["turns"].as_array().unwrap().iter().filter(|t| logs_of_turn(t).contains("MESSAGE thinking")).count();
        assert_eq!(time_left, turns, "{logs}");
        assert!(logs.contains("stdout: MESSAGE thinking\n"), "{logs}");
    }
}

#[test]
fn an_engine_that_refuses_start_10_gets_one_clear_line() {
    let dir = tempfile::tempdir().unwrap();
    let bot = script_bot(dir.path(), "big-boards", &brain("say(\"ERROR only 15x15 and 20x20\")", ""));
    let out = arbiter(&["play", "gomoku", &bot, "random", "--seed", "1", "--no-sandbox"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let shown = text(&out.stdout);
    let line = shown.lines().find(|l| l.starts_with("game 1:")).unwrap();
    assert!(
        line.ends_with(
            "(protocol-error by X: refused START 10 (\"ERROR only 15x15 and 20x20\"): Arbiter's Gomoku is played on a 10×10 board only, and this engine does not play that size)"
        ),
        "{line}"
    );
}

#[test]
fn faults_of_the_move() {
    let cases = [
        ("say(\"12,3\"); return", "illegal-move", "answered 12,3 to BEGIN: off the 10×10 board (x and y go from 0 to 9)"),
        ("say(\"E4\"); return", "protocol-error", "answered \"E4\" to BEGIN, expected a move x,y (or MESSAGE, DEBUG)"),
        ("sys.exit(3)", "crash", "exited with status 3 before answering"),
        (
            "say(\"ERROR no move here\"); time.sleep(3); return",
            "timeout",
            "out of time (1 s per move) (the last ERROR or UNKNOWN it wrote: \"ERROR no move here\")",
        ),
    ];
    for (before_move, kind, detail) in cases {
        let dir = tempfile::tempdir().unwrap();
        let bot = script_bot(dir.path(), "faulty", &brain("say(\"OK\")", before_move));
        let (summary, _) = play(&bot, "random", &["--limit", "move-ms=1000"], &dir.path().join("records"));
        let termination = &summary["games"][0]["termination"];
        assert_eq!(termination["kind"], kind, "{termination}");
        assert_eq!(termination["side"], 0);
        assert_eq!(termination["detail"], detail);
    }
}
