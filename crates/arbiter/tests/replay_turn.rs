//! `arbiter replay RECORD --turn N --bot BOT`: every turn a project-protocol bot played
//! keeps what the referee wrote to it, and fed again to the same bot (a fresh session:
//! the handshake, the game, that side's turns up to N) it answers the recorded move, with
//! its stderr; another bot answers its own; turns without input and turns out of range
//! are one clear line. A Gomocup brain's turns keep the commands written to it (its
//! first turn from `START 10` on) and replay the same way; the Gomoku file and console
//! interfaces and Connect Four's TCP one keep what they wrote too.

use std::path::Path;
use std::process::{Command, Output};

const ARBITER: &str = env!("CARGO_BIN_EXE_arbiter");

/// A bot whose answer depends on the whole session: at its k-th `go` it plays the
/// k-th legal move (wrapping), and it logs its side and the count on stderr.
const COUNTING_BOT: &str = r#"import sys
legal, side, k = [], "?", 0
for line in sys.stdin:
    word, _, rest = line.rstrip("\n").partition(" ")
    if word == "arbiter":
        print("name counting")
        print("ready", flush=True)
    elif word == "side":
        side = rest
    elif word == "legal":
        legal = rest.split(" ")
    elif word == "go":
        print("side %s go %d of %d moves" % (side, k, len(legal)), file=sys.stderr, flush=True)
        print("move " + legal[k % len(legal)], flush=True)
        k += 1
    elif word == "quit":
        break
"#;

fn bot(dir: &Path, name: &str, program: &str) -> String {
    let folder = dir.join(name);
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("bot.py"), program).unwrap();
    std::fs::write(
        folder.join("bot.toml"),
        format!("name = \"{name}\"\ngame = \"any\"\nprotocol = \"arbiter\"\ncommand = [\"python3\", \"./bot.py\"]\n"),
    )
    .unwrap();
    folder.to_string_lossy().into_owned()
}

fn arbiter(args: &[&str]) -> Output {
    Command::new(ARBITER).args(args).output().unwrap()
}

fn stdout(out: &Output) -> String {
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout.clone()).unwrap()
}

#[test]
fn a_recorded_turn_replays_to_the_same_answer_with_its_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let counting = bot(dir.path(), "counting", COUNTING_BOT);
    let first = bot(dir.path(), "first", &COUNTING_BOT.replace("legal[k % len(legal)]", "legal[0]"));
    let records = dir.path().join("records");
    // The counting bot moves second: its turns are the even ones, its side is 1.
    stdout(&arbiter(&["play", "connect4", "greedy", &counting, "--no-sandbox", "--seed", "5", "--record", records.to_str().unwrap()]));
    let record = records.join("game-0001.json");
    let text = std::fs::read_to_string(&record).unwrap();
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    let turns = value["turns"].as_array().unwrap();
    let record = record.to_str().unwrap();
    let mut replayed = 0;
    for (i, turn) in turns.iter().enumerate() {
        let n = (i + 1).to_string();
        if turn["side"] == 0 {
            // The built-in player's turns keep no input.
            assert!(turn.get("input").is_none(), "{turn}");
            continue;
        }
        let input = turn["input"].as_str().unwrap();
        assert!(input.contains("\nposition ") && input.ends_with("go\n"), "{input:?}");
        let out = stdout(&arbiter(&["replay", record, "--turn", &n, "--bot", &counting, "--no-sandbox"]));
        let recorded = turn["text"].as_str().unwrap();
        assert!(out.contains(&format!("answer: {recorded}\nrecorded: {recorded} (the same)")), "turn {n}:\n{out}");
        // Its stderr is this session's: the side it was told and its count of turns.
        assert!(out.contains(&format!("side 1 go {} of", i / 2)), "turn {n}:\n{out}");
        assert!(out.contains(&format!("> {}", input.lines().last().unwrap())), "{out}");
        replayed += 1;
    }
    assert!(replayed >= 3, "{text}");
    // Another bot gives its own answer, marked when it differs.
    let fourth_turn = &turns[3];
    let out = stdout(&arbiter(&["replay", record, "--turn", "4", "--bot", &first, "--no-sandbox"]));
    let legal: Vec<&str> =
        fourth_turn["input"].as_str().unwrap().lines().find_map(|l| l.strip_prefix("legal ")).unwrap().split(' ').collect();
    assert!(out.contains(&format!("answer: {}\n", legal[0])), "{out}");
    let same = legal[0] == fourth_turn["text"].as_str().unwrap();
    assert!(out.contains(if same { "(the same)" } else { "(different)" }), "{out}");

    // Refusals: one line each.
    for (args, expected) in [
        (vec!["--turn", "1"], "has no input kept"),
        (vec!["--turn", "0"], "the game has turns 1 to"),
        (vec!["--turn", "999"], "the game has turns 1 to"),
    ] {
        let mut all = vec!["replay", record];
        all.extend(args.iter().copied());
        all.extend(["--bot", counting.as_str(), "--no-sandbox"]);
        let out = arbiter(&all);
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(expected), "{args:?}: {err}");
    }
}

/// A Gomocup brain that plays the first empty cell in reading order after each command
/// that asks for a move, and logs its count of moves on stderr.
const FIRST_EMPTY_BRAIN: &str = r#"import sys
taken, k, board = set(), 0, False
def play():
    global k
    x, y = next((x, y) for y in range(10) for x in range(10) if (x, y) not in taken)
    taken.add((x, y))
    print("move %d" % k, file=sys.stderr, flush=True)
    k += 1
    print("%d,%d" % (x, y), flush=True)
for line in sys.stdin:
    words = line.strip().replace(",", " ").split()
    if not words:
        continue
    if board:
        if words[0] == "DONE":
            board = False
            play()
        else:
            taken.add((int(words[0]), int(words[1])))
    elif words[0] in ("START", "RESTART"):
        print("OK", flush=True)
    elif words[0] == "BEGIN":
        play()
    elif words[0] == "TURN":
        taken.add((int(words[1]), int(words[2])))
        play()
    elif words[0] == "BOARD":
        board = True
    elif words[0] == "END":
        break
"#;

#[test]
fn a_gomocup_brains_turn_keeps_the_commands_written_and_replays_to_the_same_answer() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("brain");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("brain.py"), FIRST_EMPTY_BRAIN).unwrap();
    std::fs::write(
        folder.join("bot.toml"),
        "name = \"brain\"\ngame = \"gomoku\"\nprotocol = \"gomocup\"\ncommand = [\"python3\", \"./brain.py\"]\n",
    )
    .unwrap();
    let brain = folder.to_string_lossy().into_owned();
    let records = dir.path().join("records");
    stdout(&arbiter(&["play", "gomoku", "greedy", &brain, "--no-sandbox", "--seed", "5", "--record", records.to_str().unwrap()]));
    let record = records.join("game-0001.json");
    let value: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&record).unwrap()).unwrap();
    let turns = value["turns"].as_array().unwrap();
    let moves: Vec<&str> = value["moves"].as_array().unwrap().iter().map(|m| m.as_str().unwrap()).collect();
    // Gomocup's x,y of a move in the notation (`B7`: column B is x 1, row 7 is y 7).
    let cell = |mv: &str| format!("{},{}", mv.as_bytes()[0] - b'A', &mv[1..]);
    // The brain's first turn: its start (the board size, the seed's limits as INFO
    // lines: 5 s a move, no game budget, Gomocup's 350 MiB where the seed sets no
    // memory limit, freestyle) and the greedy
    // player's first move; every later turn, that side's last move.
    let golden = format!(
        "START 10\nINFO timeout_turn 5000\nINFO timeout_match 0\nINFO max_memory 367001600\nINFO game_type 1\nINFO rule 0\nTURN {}\n",
        cell(moves[0])
    );
    assert_eq!(turns[1]["input"], golden.as_str());
    assert_eq!(turns[3]["input"], format!("TURN {}\n", cell(moves[2])).as_str());
    let record = record.to_str().unwrap();
    for n in [2, 4, 6] {
        let out = stdout(&arbiter(&["replay", record, "--turn", &n.to_string(), "--bot", &brain, "--no-sandbox"]));
        let recorded = moves[n - 1];
        assert!(out.contains(&format!("answer: {recorded}\nrecorded: {recorded} (the same)")), "turn {n}:\n{out}");
        assert!(out.contains(&format!("move {}", n / 2 - 1)), "its stderr: turn {n}:\n{out}");
        assert!(out.contains(&format!("> TURN {}", cell(moves[n - 2]))), "{out}");
    }
}

/// A record of `greedy` against the sample bot `bots/KIND/python` playing `game`.
fn sample_game(dir: &Path, game: &str, kind: &str) -> serde_json::Value {
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bots").join(kind).join("python");
    let records = dir.join(kind);
    stdout(&arbiter(&[
        "play",
        game,
        "greedy",
        sample.to_str().unwrap(),
        "--no-sandbox",
        "--seed",
        "5",
        "--record",
        records.to_str().unwrap(),
    ]));
    serde_json::from_str(&std::fs::read_to_string(records.join("game-0001.json")).unwrap()).unwrap()
}

/// The Gomoku field after `moves` (notation), as the seed's file writes it: ten rows of
/// ten, `X` the first player, `0` the second, `.` empty.
fn field(moves: &[serde_json::Value]) -> String {
    let mut rows = vec![vec!['.'; 10]; 10];
    for (i, mv) in moves.iter().enumerate() {
        let mv = mv.as_str().unwrap().as_bytes();
        rows[(mv[1] - b'0') as usize][(mv[0] - b'A') as usize] = if i % 2 == 0 { 'X' } else { '0' };
    }
    rows.iter().map(|row| row.iter().collect::<String>() + "\n").collect()
}

#[test]
fn the_file_console_and_tcp_interfaces_keep_what_the_referee_wrote_each_turn() {
    let dir = tempfile::tempdir().unwrap();
    // The file interface: the field file of the turn.
    let game = sample_game(dir.path(), "gomoku", "gomoku-file");
    let moves = game["moves"].as_array().unwrap();
    for n in [2, 4] {
        assert_eq!(game["turns"][n - 1]["input"], field(&moves[..n - 1]).as_str(), "turn {n}");
    }
    // The console: its answers to its questions (the field among them, and the
    // opponent's last move to `step?`).
    let game = sample_game(dir.path(), "gomoku", "gomoku-console");
    let moves = game["moves"].as_array().unwrap();
    let input = game["turns"][3]["input"].as_str().unwrap();
    assert!(input.contains(&field(&moves[..3])), "{input}");
    assert!(input.lines().any(|l| l == moves[2].as_str().unwrap()), "{input}");
    // Connect Four over TCP: the one line of the turn, the board as the seed writes it
    // (rows top first, `T` the opponent's disc in the column it played).
    let game = sample_game(dir.path(), "connect4", "connect4-tcp");
    let column: usize = game["moves"][0].as_str().unwrap().parse().unwrap();
    let bottom: String = (0..7).map(|x| if x == column { 'T' } else { '.' }).collect();
    let input = game["turns"][1]["input"].as_str().unwrap();
    assert!(input.ends_with(&format!(" {}/{bottom}\n", ["......."; 5].join("/"))), "{input}");
    assert!(input.starts_with("move ") && input.lines().count() == 1, "{input}");
}
