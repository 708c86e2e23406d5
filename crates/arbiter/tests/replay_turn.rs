//! `arbiter replay RECORD --turn N --bot BOT`: every turn a project-protocol bot played
//! keeps what the referee wrote to it, and fed again to the same bot (a fresh session:
//! the handshake, the game, that side's turns up to N) it answers the recorded move, with
//! its stderr; another bot answers its own; turns without input and turns out of range
//! are one clear line.

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
