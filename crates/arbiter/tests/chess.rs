//! Chess through the real `arbiter`: UCI engines written here in Python (python-chess's
//! move generator, from the venv `scripts/setup-chess-tests` makes) against the built-in
//! instant engine (`arbiter bot random --uci`): the record keeps each move's analysis,
//! the options and commands sent, the clocks; an engine is kept across games; a late
//! engine loses on time with the clock's figures; adjudication; an illegal `bestmove`.
//! Then Debian's Stockfish, unchanged, in a sandboxed match at -j 2 from a PGN book with
//! an SPRT, whose PGN python-chess reads back and whose statistics
//! `tests/chess/check_match.py` computes again.

mod common;

use common::arbiter;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

const ARBITER: &str = env!("CARGO_BIN_EXE_arbiter");

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

/// Stockfish and python-chess, installed by the project's script when missing.
fn setup() -> PathBuf {
    let status = Command::new(repo().join("scripts/setup-chess-tests")).status().expect("the setup script runs");
    assert!(status.success(), "scripts/setup-chess-tests failed");
    repo().join("tests/chess/.venv/bin/python")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A UCI engine in Python: it answers each `go` with the first legal move in UCI order
/// and an info line scored `{score}` centipawns; `{before}` runs before it answers.
const ENGINE: &str = r#"import os, sys, time
import chess
board = chess.Board()
def say(line):
    print(line, flush=True)
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "uci":
        say("id name scripted")
        say("option name Hash type spin default 16 min 1 max 64")
        say("uciok")
    elif words[0] == "isready":
        say("readyok")
    elif words[0] == "position":
        at = words.index("moves") if "moves" in words else len(words)
        board = chess.Board() if words[1] == "startpos" else chess.Board(" ".join(words[2:at]))
        for uci in words[at + 1:]:
            board.push_uci(uci)
    elif words[0] == "go":
        move = sorted(m.uci() for m in board.legal_moves)[0]
        {before}
        say("info depth 7 seldepth 9 score cp {score} nodes 1234 nps 56789 time 21 pv %s" % move)
        say("info string pid %d" % os.getpid())
        say("bestmove %s" % move)
    elif words[0] == "quit":
        break
"#;

/// A UCI engine `name` in `dir`: the script above with `before` and `score`, run by the
/// venv's python, with `[uci]` options from `options` (TOML inline table text).
fn engine(dir: &Path, python: &Path, name: &str, before: &str, score: i32, options: &str) -> String {
    let folder = dir.join(name);
    std::fs::create_dir_all(&folder).unwrap();
    let script = ENGINE.replace("{before}", before).replace("{score}", &score.to_string());
    std::fs::write(folder.join("engine.py"), script).unwrap();
    std::fs::write(
        folder.join("bot.toml"),
        format!(
            "name = \"{name}\"\ngame = \"chess\"\nprotocol = \"uci\"\ncommand = [{:?}, \"./engine.py\"]\n[uci]\noptions = {options}\n",
            python.to_str().unwrap()
        ),
    )
    .unwrap();
    folder.to_str().unwrap().to_string()
}

/// The built-in instant engine, `arbiter bot random --uci`.
fn instant(dir: &Path) -> String {
    let folder = dir.join("instant");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(
        folder.join("bot.toml"),
        format!("name = \"instant\"\ngame = \"chess\"\nprotocol = \"uci\"\ncommand = [{ARBITER:?}, \"bot\", \"random\", \"--uci\", \"--seed\", \"5\"]\n"),
    )
    .unwrap();
    folder.to_str().unwrap().to_string()
}

fn records(dir: &Path) -> Vec<Value> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    paths.sort();
    paths.iter().map(|path| serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()).collect()
}

/// Reads a PGN back with python-chess: each game's White, Black, Result, Termination,
/// the number of moves, and the first move's comment, as JSON lines.
fn read_pgn(python: &Path, pgn: &Path) -> Vec<Value> {
    let script = r#"import json, sys, chess.pgn
with open(sys.argv[1]) as handle:
    while (game := chess.pgn.read_game(handle)) is not None:
        assert not game.errors, game.errors
        moves = list(game.mainline())
        print(json.dumps({"white": game.headers["White"], "black": game.headers["Black"], "result": game.headers["Result"],
            "termination": game.headers.get("Termination"), "plies": len(moves), "tc": game.headers.get("TimeControl"),
            "first": moves[0].comment if moves else None, "clock": moves[0].clock() if moves else None}))
"#;
    let out = Command::new(python).args(["-c", script, pgn.to_str().unwrap()]).output().unwrap();
    assert!(out.status.success(), "python-chess reads the PGN: {}", text(&out.stderr));
    text(&out.stdout).lines().map(|line| serde_json::from_str(line).unwrap()).collect()
}

#[test]
fn the_record_keeps_analysis_options_commands_and_clocks_and_engines_are_kept() {
    let python = setup();
    let dir = tempfile::tempdir().unwrap();
    let scripted = engine(dir.path(), &python, "scripted", "pass", 25, "{ Threads = 1 }");
    let (rec, pgn) = (dir.path().join("records"), dir.path().join("games.pgn"));
    let out = arbiter(&[
        "play",
        "chess",
        &scripted,
        &instant(dir.path()),
        "--games",
        "2",
        "--seed",
        "3",
        "--no-sandbox",
        "--limit",
        "tc=5+0.1",
        "--engine-option",
        "Hash=8",
        "--record",
        rec.to_str().unwrap(),
        "--pgn",
        pgn.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}{}", text(&out.stdout), text(&out.stderr));
    let games = records(&rec);
    assert_eq!(games.len(), 2);
    let mine = |game: &Value, side: u64| -> Vec<Value> {
        game["turns"].as_array().unwrap().iter().filter(|t| t["side"] == side && t["text"].is_string()).cloned().collect()
    };
    // Game 1: the scripted engine is White.
    let turns = mine(&games[0], 0);
    let first = &turns[0];
    let input = first["input"].as_str().unwrap();
    for line in ["uci\n", "setoption name Hash value 8\n", "setoption name Threads value 1\n", "ucinewgame\n", "isready\n"] {
        assert!(input.contains(line), "{line:?} in {input:?}");
    }
    assert!(input.ends_with("position startpos\ngo wtime 5000 btime 5000 winc 100 binc 100\n"), "{input:?}");
    assert_eq!(
        first["analysis"],
        serde_json::json!({"depth": 7, "seldepth": 9, "cp": 25, "nodes": 1234, "nps": 56789, "time_ms": 21, "pv": [first["text"]]})
    );
    let clock = first["clock_ms"].as_u64().expect("the clock after the move");
    assert!(clock > 4000 && clock <= 5100, "5 s less the move, plus 0.1 s: {clock}");
    let second = turns[1]["input"].as_str().unwrap();
    assert!(second.starts_with("position startpos moves "), "{second:?}");
    assert!(second.contains(&format!("go wtime {clock} btime ")), "its own clock as the referee keeps it: {second:?}");
    // Game 2: the same process, told a new game; the scripted engine is Black.
    let pid = |turn: &Value| {
        turn["stderr"].as_str().unwrap().lines().find_map(|l| l.strip_prefix("stdout: info string pid ")).map(str::to_string)
    };
    let again = mine(&games[1], 1);
    assert_eq!(pid(&again[0]), pid(first), "the engine is kept across games");
    assert!(again[0]["input"].as_str().unwrap().starts_with("ucinewgame\nisready\nposition startpos moves "));
    // The PGN, read back by python-chess: the same games, results and comments.
    let read = read_pgn(&python, &pgn);
    assert_eq!(read.len(), 2);
    for (game, record) in read.iter().zip(&games) {
        let result = match record["result"]["winner"].as_u64() {
            Some(0) => "1-0",
            Some(_) => "0-1",
            None => "1/2-1/2",
        };
        assert_eq!(game["result"], result);
        assert_eq!(game["plies"].as_u64(), Some(record["moves"].as_array().unwrap().len() as u64));
        assert_eq!(game["tc"], "5+0.1");
    }
    assert_eq!((read[0]["white"].as_str(), read[1]["black"].as_str()), (Some("scripted"), Some("scripted")));
    assert!(read[0]["first"].as_str().unwrap().starts_with("+0.25/7 "), "{}", read[0]["first"]);
    assert_eq!(read[0]["clock"].as_f64(), Some(clock as f64 / 1000.0), "python-chess reads the [%clk] the record holds");
}

#[test]
fn a_late_engine_loses_on_time_with_the_clocks_figures() {
    let python = setup();
    let dir = tempfile::tempdir().unwrap();
    let slow = engine(dir.path(), &python, "slow", "time.sleep(0.4)", 0, "{}");
    let (rec, pgn) = (dir.path().join("records"), dir.path().join("games.pgn"));
    let out = arbiter(&[
        "play",
        "chess",
        &slow,
        &instant(dir.path()),
        "--no-sandbox",
        "--limit",
        "tc=1",
        "--record",
        rec.to_str().unwrap(),
        "--pgn",
        pgn.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let game = &records(&rec)[0];
    let result = &game["result"];
    assert_eq!((result["winner"].as_u64(), result["termination"]["kind"].as_str()), (Some(1), Some("timeout")), "{result}");
    let detail = result["termination"]["detail"].as_str().unwrap();
    // "lost on time: the move took 0.401 s, its clock showed 0.197 s at the start of the
    // move" when the move came in and was late, "lost on time: no move within the
    // 0.198 s its clock showed at the start of the move" when none came in time.
    let figures: Vec<f64> = detail.split(' ').filter_map(|word| word.parse().ok()).collect();
    assert!(detail.starts_with("lost on time: ") && detail.contains("its clock showed"), "{detail}");
    let showed = *figures.last().expect("the clock's figure");
    assert!(showed < 1.0, "moves were taken off the clock: {detail}");
    if let [took, showed] = figures[..] {
        assert!(took > showed, "{detail}");
    }
    // 1 s, about 0.4 s a move: the third move runs out (the second on a loaded machine,
    // the fourth where the host's steal during the sleeps was given back).
    let moves = game["turns"].as_array().unwrap().iter().filter(|t| t["side"] == 0).count();
    assert!((2..=4).contains(&moves), "{moves} moves");
    let read = read_pgn(&python, &pgn);
    assert_eq!((read[0]["termination"].as_str(), read[0]["result"].as_str()), (Some("time forfeit"), Some("0-1")));
}

#[test]
fn adjudication_resigns_an_engine_that_scores_itself_lost() {
    let python = setup();
    let dir = tempfile::tempdir().unwrap();
    let losing = engine(dir.path(), &python, "losing", "pass", -700, "{}");
    let rec = dir.path().join("records");
    let out = arbiter(&[
        "play",
        "chess",
        &instant(dir.path()),
        &losing,
        "--no-sandbox",
        "--limit",
        "tc=5+0.1",
        "--resign",
        "movecount=3,score=600",
        "--record",
        rec.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let game = &records(&rec)[0];
    assert_eq!(game["result"]["termination"]["kind"], "adjudication");
    assert_eq!(game["result"]["winner"], 0, "Black resigns");
    assert_eq!(game["moves"].as_array().unwrap().len(), 6, "on its third move");
    assert!(text(&out.stdout).contains("adjudication: Black resigns"), "{}", text(&out.stdout));
    // Without the rule the game goes on.
    let bad = arbiter(&["play", "chess", "random", "random", "--resign", "movecount=3"]);
    assert!(!bad.status.success() && text(&bad.stderr).contains("score=CENTIPAWNS"), "{}", text(&bad.stderr));
}

#[test]
fn an_illegal_bestmove_loses_and_books_are_refused_clearly() {
    let python = setup();
    let dir = tempfile::tempdir().unwrap();
    let illegal = engine(dir.path(), &python, "illegal", "move = 'e2e5'", 0, "{}");
    let out = arbiter(&["play", "chess", &illegal, &instant(dir.path()), "--no-sandbox", "--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let summary: Value = serde_json::from_str(&text(&out.stdout)).unwrap();
    let termination = &summary["games"][0]["termination"];
    assert_eq!(termination["kind"], "illegal-move", "{termination}");
    assert!(termination["detail"].as_str().unwrap().starts_with("bestmove \"e2e5\": illegal move e2e5"), "{termination}");
    let book = dir.path().join("bad.pgn");
    std::fs::write(&book, "[Event \"x\"]\n\n1. e4 e4 *\n").unwrap();
    let out = arbiter(&["play", "chess", "random", "random", "--openings", book.to_str().unwrap()]);
    let err = text(&out.stderr);
    assert!(!out.status.success() && err.lines().count() == 1 && err.contains("game 1: e4 is not legal"), "{err}");
    let out = arbiter(&["play", "gomoku", "random", "random", "--pgn", dir.path().join("x.pgn").to_str().unwrap()]);
    assert!(!out.status.success() && text(&out.stderr).contains("PGN is chess's"), "{}", text(&out.stderr));
}

#[test]
fn stockfish_enters_unchanged_and_its_match_statistics_are_fastchess_s() {
    let python = setup();
    let dir = tempfile::tempdir().unwrap();
    let stockfish = |name: &str, nodes: u32| {
        let folder = dir.path().join(name);
        std::fs::create_dir_all(&folder).unwrap();
        let manifest = format!(
            "name = \"{name}\"\ngame = \"chess\"\nprotocol = \"uci\"\ncommand = [\"/usr/games/stockfish\"]\n[uci]\noptions = {{ Hash = 16, Threads = 1 }}\nnodes = {nodes}\n"
        );
        std::fs::write(folder.join("bot.toml"), manifest).unwrap();
        folder.to_str().unwrap().to_string()
    };
    let (strong, weak) = (stockfish("sf-3000", 3000), stockfish("sf-300", 300));
    let book = dir.path().join("book.pgn");
    std::fs::write(
        &book,
        "[Event \"a\"]\n\n1. e4 e5 2. Nf3 Nc6 *\n\n[Event \"b\"]\n\n1. d4 d5 2. c4 e6 *\n\n[Event \"c\"]\n\n1. c4 c5 2. Nc3 Nc6 *\n",
    )
    .unwrap();
    let (pgn, summary) = (dir.path().join("games.pgn"), dir.path().join("summary.json"));
    // Sandboxed (the default), two games at a time, at a node limit (the same games on
    // any machine, whatever its load) under a clock.
    let out = arbiter(&[
        "match",
        "chess",
        &strong,
        &weak,
        "--games",
        "6",
        "-j",
        "2",
        "--seed",
        "11",
        "--limit",
        "tc=20+0.2",
        "--openings",
        book.to_str().unwrap(),
        "--openings-plies",
        "3",
        "--sprt",
        "elo0=0,elo1=5",
        "--pgn",
        pgn.to_str().unwrap(),
        "--json",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    std::fs::write(&summary, &out.stdout).unwrap();
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["faults"], serde_json::json!([0, 0]), "no engine made a fault");
    assert_eq!(json["games"], 6);
    // python-chess reads every game back, replays it to the result the PGN gives, and
    // the pentanomial, nElo and LLR computed from its games are the summary's.
    let check = Command::new(&python)
        .args([
            repo().join("tests/chess/check_match.py").to_str().unwrap(),
            summary.to_str().unwrap(),
            pgn.to_str().unwrap(),
            "sf-3000",
            "0",
            "5",
        ])
        .output()
        .unwrap();
    assert!(check.status.success(), "{}{}", text(&check.stdout), text(&check.stderr));
    let read = read_pgn(&python, &pgn);
    assert_eq!(read.len(), 6);
    assert!(read.iter().all(|game| game["first"] == "book"), "each game opens with its book line: {read:?}");
}
