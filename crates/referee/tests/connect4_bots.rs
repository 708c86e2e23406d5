//! The Connect Four TCP interface end to end: the Python and C sample clients play whole
//! games on 7 × 6 and 20 × 20 against the built-in random player in both seats and tell
//! their names; misbehaving scripts (never connect, exit at once, no name, a bad name, garbage,
//! silence, a full column, burning CPU past the budget, leaving mid-game) lose with the
//! right termination, leave no process behind, and the next game is normal.

mod common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::{Normal, Script, assert_normal_game, is_gone, play, random, sample, script_bot};
use referee::{BotSpec, GameRecord, GameSetup, Termination};
use rules::{GameKind, Options};

fn setup(size: usize, seed: u64) -> GameSetup {
    let options: Options =
        if size == 7 { Options::new() } else { [("width".into(), size.to_string()), ("height".into(), size.to_string())].into() };
    let start = GameKind::Connect4.new_position(&options, None).unwrap();
    GameSetup::new(start, options, seed)
}

/// What every fault script starts with: it writes its pid next to itself, and can
/// connect to `ARBITER_ADDR` and send lines.
const PRELUDE: &str = r#"
import os, socket, sys, time
open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "pid"), "w").write(str(os.getpid()))
def connect():
    host, port = os.environ["ARBITER_ADDR"].rsplit(":", 1)
    conn = socket.create_connection((host, int(port)))
    return conn.makefile("rw")
def send(f, text):
    f.write(text + "\n")
    f.flush()
"#;

/// A bot whose program is the Python script `body` (after [`PRELUDE`]), in its own
/// folder under `dir`; also the path of the file it writes its pid to.
fn prelude_bot(dir: &Path, name: &str, body: &str) -> (BotSpec, PathBuf) {
    let script = Script { game: "connect4", protocol: "connect4-tcp", file: "bot.py", command: &["python3", "./bot.py"] };
    (script_bot(dir, name, script, &format!("{PRELUDE}\n{body}\n")), dir.join(name).join("pid"))
}

/// A normal game (see [`assert_normal_game`]) whose program wrote `new game` first and
/// then one debug line per move.
fn assert_normal_logged_game(record: &GameRecord, program_side: usize) {
    let own = assert_normal_game(record, program_side, Normal::default());
    let log: String = own.iter().map(|t| t.stderr.as_str()).collect();
    assert!(log.starts_with("new game"), "{log}");
    assert_eq!(log.matches(", I play ").count(), own.len(), "one debug line per move: {log}");
}

#[tokio::test(flavor = "multi_thread")]
async fn sample_bots_play_whole_games_in_both_seats_on_both_boards() {
    let random = random();
    for (i, language) in ["python", "c"].into_iter().enumerate() {
        let bot = sample("connect4-tcp", language);
        for size in [7, 20] {
            let seed = 100 * i as u64 + size as u64;
            assert_normal_logged_game(&play(&setup(size, seed), [&bot, &random]).await, 0);
            assert_normal_logged_game(&play(&setup(size, seed + 1), [&random, &bot]).await, 1);
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn describe_reads_the_names() {
    let dir = tempfile::tempdir().unwrap();
    for (language, name) in [("python", "random-py"), ("c", "random-c")] {
        let BotSpec::Program(bot) = sample("connect4-tcp", language) else { unreachable!("a sample bot is a program") };
        let identity = referee::drivers::describe(&bot, dir.path()).await.unwrap().unwrap();
        assert_eq!(identity.name, name);
    }
}

const SILENT: &str = "time.sleep(30)";
const EXITS: &str = "sys.exit(3)";
const MUTE: &str = "f = connect()\ntime.sleep(30)";
const BAD_NAME: &str = "f = connect()\nf.readline()\nsend(f, 'I am a bot')\ntime.sleep(30)";
const GARBAGE: &str = "f = connect()\nf.readline()\nsend(f, 'name garbage')\nfor line in f:\n    if line.startswith('move'):\n        send(f, 'the middle one')";
const SLEEPER: &str =
    "f = connect()\nf.readline()\nsend(f, 'name sleeper')\nfor line in f:\n    if line.startswith('move'):\n        time.sleep(30)";
const COLUMN_0: &str =
    "f = connect()\nf.readline()\nsend(f, 'name zero')\nfor line in f:\n    if line.startswith('move'):\n        send(f, '0')";
/// Burns CPU in eight processes (itself and seven children), so that the group's CPU
/// time outruns the wall clock even on a busy machine.
const BURNER: &str = "f = connect()\nf.readline()\nsend(f, 'name burner')\nfor line in f:\n    if line.startswith('move'):\n        os.fork(); os.fork(); os.fork()\n        while True:\n            pass";
const LEAVER: &str = "f = connect()\nf.readline()\nsend(f, 'name leaver')\nfor line in f:\n    if line.startswith('move'):\n        send(f, '3')\n        break\nsys.exit(0)";

#[tokio::test(flavor = "multi_thread")]
async fn misbehaving_bots_lose_and_leave_nothing_behind() {
    let dir = tempfile::tempdir().unwrap();
    let random = random();
    // (name, script, per-move limit in ms, CPU budget in ms, termination, part of the detail)
    let cases = [
        // A limit leaves room for a Python start on a loaded machine wherever the phase
        // before the fault must be reached (its pid written, connect, then say nothing /
        // sleep): at 1 s a loaded machine killed the silent bot before it wrote its pid.
        ("silent", SILENT, Some(5000), None, "crash", "did not connect to ARBITER_ADDR=127.0.0.1:"),
        ("exits", EXITS, None, None, "crash", "exited with status 3 before connecting"),
        ("mute", MUTE, Some(5000), None, "timeout", "sent no name within 5 s"),
        ("bad-name", BAD_NAME, None, None, "protocol-error", "\\\"I am a bot\\\""),
        ("garbage", GARBAGE, None, None, "protocol-error", "\\\"the middle one\\\""),
        ("sleeper", SLEEPER, Some(5000), None, "timeout", "out of time (5 s per move)"),
        ("burner", BURNER, None, Some(300), "timeout", "out of CPU time (the game's CPU budget had 0.300 s left"),
        ("leaver", LEAVER, None, None, "crash", "before answering"),
    ];
    for (i, (name, body, move_ms, cpu_ms, kind, detail)) in cases.into_iter().enumerate() {
        let (bot, pid_file) = prelude_bot(dir.path(), name, body);
        for side in [0, 1] {
            let mut game = setup(7, 100 + i as u64);
            game.limits[side].move_time = move_ms.map(Duration::from_millis);
            if let Some(ms) = cpu_ms {
                game.limits[side].game_cpu = Some(Duration::from_millis(ms));
            }
            let bots = if side == 0 { [&bot, &random] } else { [&random, &bot] };
            let record = play(&game, bots).await;
            let termination = &record.result.termination;
            assert_eq!(termination.kind(), kind, "{name}: {termination:?}");
            assert_eq!(termination.side().map(rules::Side::index), Some(side), "{name}: {termination:?}");
            assert!(format!("{termination:?}").contains(detail), "{name}: {termination:?}");
            assert_eq!(record.result.winner, Some(1 - side), "{name}");
            let pid: u32 = std::fs::read_to_string(&pid_file).expect("the script wrote its pid").trim().parse().unwrap();
            assert!(is_gone(pid, common::GONE).await, "{name}: its process survived the game");
        }
    }
    // A full column: two copies of a bot that always plays column 0 fill it in six moves;
    // the seventh move is the first player's, into the full column.
    let (zero, _) = prelude_bot(dir.path(), "zero", COLUMN_0);
    let record = play(&setup(7, 7), [&zero, &zero]).await;
    assert_eq!(record.moves, vec!["0"; 6]);
    assert!(
        matches!(&record.result.termination, Termination::IllegalMove { side: 0, detail } if detail.contains("full")),
        "{:?}",
        record.result
    );
    // The run goes on: the next game is normal.
    assert_normal_logged_game(&play(&setup(7, 8), [&sample("connect4-tcp", "python"), &random]).await, 0);
}
