//! `arbiter doctor` through the real binary: a fit bot of each protocol the doctor
//! speaks passes with exit 0; one small misbehaving bot per problem gets that problem
//! explained, with the lines exchanged, and exit 1; a bot of another interface is
//! checked by playing. The doctor decides in seconds whatever the game's budget: a bot
//! that answers with a sentence is named at once as a wrong answer, in every interface,
//! and a silent one within seconds.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const ARBITER: &str = env!("CARGO_BIN_EXE_arbiter");

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

fn doctor(bot: &str, extra: &[&str]) -> Output {
    let mut args = vec!["doctor", bot, "--no-sandbox"];
    args.extend(extra);
    Command::new(ARBITER).args(&args).output().expect("arbiter runs")
}

/// A Gomoku bot of the project's protocol in Python: `{prelude}` runs at its start,
/// `{hello}` answers `arbiter 1`, `{go}` answers `go` (with `legal` the legal moves).
const BOT: &str = r#"import sys, time
{prelude}
legal = []
for line in sys.stdin:
    words = line.split()
    word = words[0] if words else ""
    if word == "arbiter":
        {hello}
    elif word == "legal":
        legal = words[1:]
    elif word == "go":
        {go}
    elif word == "quit":
        break
"#;

const HELLO: &str = "print(\"name patient\"); print(\"ready\", flush=True)";
const GO: &str = "print(\"move \" + legal[0], flush=True)";

fn bot(dir: &Path, prelude: &str, hello: &str, go: &str) -> String {
    bot_of(dir, "gomoku", "arbiter", prelude, hello, go)
}

/// The same bot with its manifest naming `game` and `protocol`.
fn bot_of(dir: &Path, game: &str, protocol: &str, prelude: &str, hello: &str, go: &str) -> String {
    let folder = dir.join("bot");
    std::fs::create_dir_all(&folder).unwrap();
    let manifest = format!("name = \"patient\"\ngame = \"{game}\"\nprotocol = \"{protocol}\"\ncommand = [\"python3\", \"./bot.py\"]\n");
    std::fs::write(folder.join("bot.toml"), manifest).unwrap();
    std::fs::write(folder.join("bot.py"), BOT.replace("{prelude}", prelude).replace("{hello}", hello).replace("{go}", go)).unwrap();
    folder.to_str().unwrap().to_string()
}

/// Runs the doctor on a misbehaving bot and checks that it is unfit and that every
/// expected piece is in the report.
fn diagnoses(prelude: &str, hello: &str, go: &str, extra: &[&str], expected: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let out = doctor(&bot(dir.path(), prelude, hello, go), extra);
    let report = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{report}");
    assert!(text(&out.stderr).starts_with("arbiter: patient is not fit to enter: "), "{}", text(&out.stderr));
    for piece in expected {
        assert!(report.contains(piece), "{piece:?} is not in:\n{report}");
    }
}

#[test]
fn fit_bots_pass() {
    // The per-move Python bot starts an interpreter each move (through pyenv's shims on
    // this machine kind, a handful of processes): on a loaded machine that went past
    // Pah-tum's 1 s a move in a CI run, so it is given 10 s; being fit is what is checked.
    for (sample, game, extra, expected) in [
        ("arbiter/python", "gomoku", &[][..], "fit to enter: 6 moves played without a problem"),
        ("arbiter/c", "pahtum", &[], "fit to enter: 6 moves played without a problem"),
        ("arbiter/c", "nupud", &[], "fit to enter: 6 moves played without a problem"),
        ("gomocup/c", "gomoku", &[], "fit to enter: 6 moves played without a problem"),
        ("pahtum/python", "pahtum", &["--limit", "move-ms=10000"], "fit to enter: "),
    ] {
        let args = [&["--limit", "memory-mb=256", "--game", game][..], extra].concat();
        let out = doctor(repo().join("bots").join(sample).to_str().unwrap(), &args);
        let report = text(&out.stdout);
        assert!(out.status.success(), "{sample}: {report}{}", text(&out.stderr));
        assert!(report.contains(expected), "{sample}: {report}");
        assert!(!report.contains("problem 1"), "{sample}: {report}");
    }
    // In the sandbox, under Pah-tum's cap of 128 MB: the helper beside the bot is not
    // counted as the bot's memory.
    let sample = repo().join("bots/arbiter/python");
    let out = Command::new(ARBITER).args(["doctor", sample.to_str().unwrap(), "--game", "pahtum"]).output().unwrap();
    let report = text(&out.stdout);
    assert!(out.status.success(), "{report}{}", text(&out.stderr));
    assert!(report.contains("memory 128 MB") && report.contains("fit to enter: 6 moves"), "{report}");
    // The patient as written plays well.
    let dir = tempfile::tempdir().unwrap();
    let out = doctor(&bot(dir.path(), "", HELLO, GO), &[]);
    assert!(out.status.success(), "{}", text(&out.stdout));
}

#[test]
fn no_handshake() {
    diagnoses(
        "",
        "pass",
        GO,
        &[],
        &[
            "problem 1: no handshake (as side 0)",
            "it did not finish the handshake within 10 s of its start: after \"arbiter 1\" the bot writes",
            "     > arbiter 1",
        ],
    );
}

#[test]
fn wrong_format() {
    diagnoses(
        "",
        HELLO,
        "print(legal[0], flush=True)",
        &[],
        &[
            "problem 1: answer in the wrong format (as side 0)",
            "it answered \"A0\": the answer is \"move A0\", with the word move",
            "     > go\n     < A0\n",
        ],
    );
}

#[test]
fn a_move_for_the_wrong_side() {
    // It plays the first move of the start whatever the position.
    diagnoses(
        "",
        HELLO,
        "print(\"move A0\", flush=True)",
        &[],
        &[
            "a move for the wrong side or an illegal move (as side 1)",
            "it played \"A0\", which the rules refuse here: illegal move A0: cell A0 is occupied by X. That move",
            "That move is the first player's at the start: the bot plays side 1 here",
            "     > side 1\n",
            "     < move A0\n",
        ],
    );
}

#[test]
fn unflushed_output() {
    let unflushed = |code: &str| code.replace(", flush=True", "");
    // stdout block-buffered whatever the environment says (PYTHONUNBUFFERED), written
    // out at exit.
    let buffered = "import atexit; sys.stdout = open(1, \"w\", closefd=False); atexit.register(sys.stdout.flush)";
    diagnoses(
        buffered,
        &unflushed(HELLO),
        &unflushed(GO),
        &[],
        &[
            "problem 1: unflushed output (as side 0)",
            "when its input was closed it wrote \"name patient\\nready\": its output sits in a buffer until it exits. Flush stdout",
            "     < ready\n",
        ],
    );
}

#[test]
fn an_answer_after_the_time() {
    diagnoses(
        "",
        HELLO,
        &format!("time.sleep(1.0); {GO}"),
        &["--limit", "move-ms=300"],
        &[
            "problem 1: no answer in time (as side 0)",
            "but the limit is 0.30 s per move: the referee would have ended the game as a timeout",
            "     > time 300\n     > go\n     < move A0\n",
        ],
    );
}

#[test]
fn writes_besides_the_answer() {
    diagnoses(
        "",
        HELLO,
        &format!("print(\"thinking about \" + str(len(legal)), flush=True); {GO}"),
        &[],
        &[
            "problem 1: writes to stdout besides its answers (as side 0)",
            "before its move it wrote 1 other line(s) (\"thinking about 100\"): the referee counts any other line as a protocol error and the bot loses; write debug output to stderr",
            "     < thinking about 100\n",
        ],
    );
}

#[test]
fn a_crash_shows_its_stderr() {
    diagnoses(
        "",
        HELLO,
        "sys.stderr.write(\"about to fail\\n\"); raise ValueError(\"no move for \" + legal[0])",
        &[],
        &[
            "problem 1: crash (as side 0)",
            "it ended before its move: exited with status 1; its stderr is below",
            "     | about to fail\n",
            "     | ValueError: no move for A0\n",
            "     > go\n",
        ],
    );
}

#[test]
fn a_slow_start() {
    diagnoses(
        "time.sleep(5.5)",
        HELLO,
        GO,
        &[],
        &["problem 1: slow start (as side 0)", "from its start to the end of its handshake; the referee allows 10 s"],
    );
}

#[test]
fn memory_near_the_cap() {
    // 200 MB reserved (not touched) under a cap of 256 MB: over 80%.
    diagnoses(
        "blob = bytearray(200 * 1024 * 1024)",
        HELLO,
        GO,
        &["--limit", "memory-mb=256"],
        &["memory near the cap (as side 0)", "more than 80% of its cap of 256 MB"],
    );
}

#[test]
fn a_gomocup_engine_in_arbiter_notation() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("engine");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(
        folder.join("bot.toml"),
        "name = \"engine\"\ngame = \"gomoku\"\nprotocol = \"gomocup\"\ncommand = [\"sh\", \"./engine.sh\"]\n",
    )
    .unwrap();
    std::fs::write(
        folder.join("engine.sh"),
        "read start\necho OK\nwhile read line; do case \"$line\" in BEGIN|TURN*) echo B7;; esac; done\n",
    )
    .unwrap();
    let out = doctor(folder.to_str().unwrap(), &[]);
    let report = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{report}");
    assert!(
        report.contains("it answered \"B7\": \"B7\" is Arbiter's notation; a Gomocup engine answers x,y from 0 (B7 is 1,7)"),
        "{report}"
    );
    assert!(report.contains("     > BEGIN\n     < B7\n"), "{report}");
}

#[test]
fn a_gomocup_engine_that_refuses_the_board() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("big");
    std::fs::create_dir_all(&folder).unwrap();
    let manifest = "name = \"big\"\ngame = \"gomoku\"\nprotocol = \"gomocup\"\ncommand = [\"sh\", \"./engine.sh\"]\n";
    std::fs::write(folder.join("bot.toml"), manifest).unwrap();
    std::fs::write(folder.join("engine.sh"), "read start\necho 'MESSAGE hello'\necho 'ERROR 15x15 only'\nread more\n").unwrap();
    let out = doctor(folder.to_str().unwrap(), &[]);
    let report = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{report}");
    assert!(report.contains("problem 1: no handshake (as side 0)"), "{report}");
    assert!(
        report.contains(
            "it refused to start: it answered \"ERROR 15x15 only\" to START 10. Arbiter's Gomoku is played on a 10×10 board only"
        ),
        "{report}"
    );
    assert!(report.contains("     > START 10\n     < MESSAGE hello\n     < ERROR 15x15 only\n"), "{report}");
    assert!(!report.contains("problem 2"), "one seat is enough: {report}");
}

/// Runs the doctor on `bot`; its report, and how long it took.
fn timed(bot: &str, extra: &[&str]) -> (String, std::time::Duration) {
    let began = std::time::Instant::now();
    let out = doctor(bot, extra);
    let took = began.elapsed();
    let report = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{report}{}", text(&out.stderr));
    (report, took)
}

#[test]
fn a_sentence_is_a_wrong_answer_named_at_once() {
    // Connect Four: two minutes of CPU time a game, which let the doctor wait 482 s.
    let dir = tempfile::tempdir().unwrap();
    let bot = bot_of(dir.path(), "connect4", "arbiter", "", HELLO, "print(\"I think column 2 is nice :)\", flush=True)");
    let (report, took) = timed(&bot, &[]);
    for piece in [
        "doctor: patient (arbiter protocol) in connect4, time per move none, per game none, CPU per game 120 s, memory 4096 MB",
        "problem 1: answer in the wrong format (as side 0)",
        "it answered \"I think column 2 is nice :)\" to \"go\" and no move followed within 1 s: the answer is \"move <move>\" in connect4's notation, e.g. \"move 0\"",
        "     > time 3000\n     > go\n     < I think column 2 is nice :)\n",
    ] {
        assert!(report.contains(piece), "{piece:?} is not in:\n{report}");
    }
    assert!(!report.contains("B7"), "a Gomoku example for Connect Four: {report}");
    assert!(took < std::time::Duration::from_secs(10), "named after {took:?}");
}

#[test]
fn a_gomocup_engine_that_answers_with_a_sentence() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("chatty");
    std::fs::create_dir_all(&folder).unwrap();
    let manifest = "name = \"chatty\"\ngame = \"gomoku\"\nprotocol = \"gomocup\"\ncommand = [\"sh\", \"./engine.sh\"]\n";
    std::fs::write(folder.join("bot.toml"), manifest).unwrap();
    let engine = "read start\necho OK\nwhile read line; do case \"$line\" in BEGIN|TURN*) echo 'I play at 5 5, good luck!';; END) exit 0;; esac; done\n";
    std::fs::write(folder.join("engine.sh"), engine).unwrap();
    let (report, took) = timed(folder.to_str().unwrap(), &[]);
    assert!(report.contains("problem 1: answer in the wrong format (as side 0)"), "{report}");
    assert!(report.contains("it answered \"I play at 5 5, good luck!\" to \"BEGIN\""), "{report}");
    assert!(report.contains("the answer is the move as x,y"), "{report}");
    assert!(!report.contains("no answer in time"), "{report}");
    assert!(took < std::time::Duration::from_secs(10), "named after {took:?}");
}

#[test]
fn a_silent_bot_is_decided_in_seconds_whatever_the_games_budget() {
    let dir = tempfile::tempdir().unwrap();
    let bot = bot_of(dir.path(), "connect4", "arbiter", "", HELLO, "pass");
    let (report, took) = timed(&bot, &[]);
    for piece in [
        "problem 1: no answer in time (as side 0)",
        "it gave no answer within 5.0 s of \"go\", though it was told it had 3.00 s for the move; the referee would wait up to 241 s a move in this game",
    ] {
        assert!(report.contains(piece), "{piece:?} is not in:\n{report}");
    }
    // Two seats of 5 s and 2 s to look for unflushed output: not 482 s each.
    assert!(took < std::time::Duration::from_secs(40), "decided after {took:?}");
}

#[test]
fn every_interface_names_a_wrong_answer() {
    // A per-move interface (Pah-tum's board in, board out) answered with a sentence.
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("bot");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(
        folder.join("bot.toml"),
        "name = \"talker\"\ngame = \"pahtum\"\nprotocol = \"pahtum\"\ncommand = [\"python3\", \"./bot.py\"]\n",
    )
    .unwrap();
    std::fs::write(folder.join("bot.py"), "import sys\nsys.stdin.read()\nprint('I choose C4, good luck')\n").unwrap();
    let (report, took) = timed(folder.to_str().unwrap(), &[]);
    assert!(report.contains("problem 1: answer in the wrong format (as side 0)"), "{report}");
    assert!(report.contains("I choose C4, good luck"), "the line received: {report}");
    assert!(took < std::time::Duration::from_secs(30), "{took:?}");
    // A starter kit (the project's protocol) uploaded as a Connect Four TCP bot.
    let dir = tempfile::tempdir().unwrap();
    let bot = bot_of(dir.path(), "connect4", "connect4-tcp", "", HELLO, GO);
    let (report, took) = timed(&bot, &[]);
    assert!(report.contains("problem 1: no handshake (as side 0)"), "{report}");
    assert!(report.contains("did not connect to ARBITER_ADDR"), "{report}");
    assert!(report.contains("every `arbiter new` kit speaks `arbiter`"), "{report}");
    assert!(took < std::time::Duration::from_secs(40), "{took:?}");
}

#[test]
fn a_crash_by_a_signal_is_worded_for_people() {
    diagnoses(
        "import os",
        HELLO,
        "os.kill(os.getpid(), 11)",
        &[],
        &["problem 1: crash (as side 0)", "it ended before its move: killed by signal 11 (SIGSEGV)"],
    );
}
