//! The pause between a bot's moves, through the real commands (`play`, `match`,
//! `tournament`): a threaded engine that finishes its bookkeeping after its answer (as
//! the world's engines do) never loses on time because of the pause, thousands of moves
//! at 50 ms; a bot that sends itself SIGCONT from a timer gains no time on its
//! opponent's (frozen in the sandbox; found out and faulted outside it); and a bot that
//! pins itself and spinning children to its CPU is timed out like the same work in one
//! process (the wait behind its own processes is not given back).

mod common;

use common::{arbiter, ok};
use std::path::Path;

use serde_json::Value;

/// A bot folder holding the test's C source `source` (from `tests/data`), built by its
/// manifest.
fn c_bot(dir: &Path, name: &str, source: &str, manifest: &str) -> String {
    let folder = dir.join(name);
    std::fs::create_dir_all(&folder).unwrap();
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(source);
    std::fs::copy(data, folder.join(source)).unwrap();
    std::fs::write(folder.join("bot.toml"), manifest).unwrap();
    folder.to_str().unwrap().to_string()
}

/// The threaded Gomocup engine (`tests/data/threaded_brain.c`).
fn threaded_brain(dir: &Path) -> String {
    c_bot(
        dir,
        "threaded",
        "threaded_brain.c",
        "name = \"threaded\"\ngame = \"gomoku\"\nprotocol = \"gomocup\"\ncommand = [\"./brain\"]\n\
         build = [\"cc\", \"-O2\", \"-pthread\", \"-o\", \"brain\", \"threaded_brain.c\"]\n",
    )
}

/// A tournament of `entrants` (name, bot) with the limits given, `deals` deals a pair,
/// run with `-j jobs`; its database.
fn tournament(dir: &Path, name: &str, game: &str, entrants: &[(&str, &str)], limits: &str, deals: usize, jobs: usize) -> String {
    let mut config = format!("name = \"{name}\"\ngame = \"{game}\"\nseed = 7\n[limits]\n{limits}\n");
    for (entrant, bot) in entrants {
        config.push_str(&format!("[[entrant]]\nname = \"{entrant}\"\nbot = \"{bot}\"\n"));
    }
    config.push_str(&format!("[[stage]]\nformat = \"round-robin\"\ndeals = {deals}\n"));
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(&path, config).unwrap();
    let db = dir.join(format!("{name}.db"));
    let jobs = jobs.to_string();
    ok(&arbiter(&["tournament", path.to_str().unwrap(), "--db", db.to_str().unwrap(), "-j", &jobs]));
    db.to_str().unwrap().to_string()
}

/// Every game record of a tournament's database.
fn stored(db: &str) -> Vec<Value> {
    let listing = ok(&arbiter(&["replay", db]));
    listing
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .filter(|word| word.contains('/'))
        .map(|key| serde_json::from_str(&ok(&arbiter(&["replay", db, "--game", key, "--json"]))).unwrap())
        .collect()
}

/// The turns of a `play --json` or `match --json`'s recorded games (`--record DIR`).
fn recorded(dir: &Path) -> Vec<Value> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| serde_json::from_str(&std::fs::read_to_string(entry.unwrap().path()).unwrap()).unwrap())
        .collect()
}

fn moves_of(records: &[Value]) -> usize {
    records.iter().map(|r| r["turns"].as_array().map_or(0, Vec::len)).sum()
}

fn termination(record: &Value) -> &Value {
    &record["result"]["termination"]
}

#[test]
fn a_threaded_engine_never_loses_on_time_because_of_the_pause() {
    let dir = tempfile::tempdir().unwrap();
    let brain = threaded_brain(dir.path());
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let mut moves = 0;
    // A match at as many games at once as cores, and at twice as many.
    for jobs in [cores, 2 * cores] {
        let records = dir.path().join(format!("match-{jobs}"));
        let jobs = jobs.to_string();
        let out = arbiter(&[
            "match",
            "gomoku",
            &brain,
            &brain,
            "--games",
            "16",
            "-j",
            &jobs,
            "--seed",
            "5",
            "--limit",
            "move-ms=50",
            "--json",
            "--record",
            records.to_str().unwrap(),
        ]);
        let summary: Value = serde_json::from_str(&ok(&out)).unwrap();
        let played = recorded(&records);
        for record in &played {
            assert_eq!(termination(record)["kind"], "rules", "-j {jobs}: {}", termination(record));
        }
        assert_eq!(summary["faults"], serde_json::json!([0, 0]), "-j {jobs}: {summary}");
        moves += moves_of(&played);
    }
    // Through play.
    let records = dir.path().join("play");
    let out = arbiter(&[
        "play",
        "gomoku",
        &brain,
        &brain,
        "--games",
        "4",
        "--seed",
        "6",
        "--limit",
        "move-ms=50",
        "--json",
        "--record",
        records.to_str().unwrap(),
    ]);
    let summary: Value = serde_json::from_str(&ok(&out)).unwrap();
    for game in summary["games"].as_array().unwrap() {
        assert!(matches!(game["termination"]["kind"].as_str(), Some("rules")), "play: {game}");
    }
    moves += moves_of(&recorded(&records));
    // Through a tournament, at twice as many games at once as cores.
    let db = tournament(dir.path(), "threaded", "gomoku", &[("one", &brain), ("two", &brain)], "move-ms = 50", 4, 2 * cores);
    let played = stored(&db);
    for record in &played {
        assert_eq!(termination(record)["kind"], "rules", "tournament: {}", termination(record));
    }
    moves += moves_of(&played);
    assert!(moves >= 1000, "the engine played {moves} moves");
}

/// The bot that sends itself SIGCONT from a timer (`tests/data/sigcont_bot.c`).
fn sigcont_bot(dir: &Path) -> String {
    c_bot(
        dir,
        "sigcont",
        "sigcont_bot.c",
        "name = \"sigcont\"\ngame = \"any\"\nprotocol = \"arbiter\"\ncommand = [\"./sigcont\"]\n\
         build = [\"cc\", \"-O2\", \"-pthread\", \"-o\", \"sigcont\", \"sigcont_bot.c\", \"-lrt\"]\n",
    )
}

/// An opponent of the project's protocol that takes 0.2 s over each move.
fn sleepy_bot(dir: &Path) -> String {
    let folder = dir.join("sleepy");
    std::fs::create_dir_all(&folder).unwrap();
    let script = "import sys, time, random\nlegal = []\nfor line in sys.stdin:\n    w = line.split()\n    if not w: continue\n    \
                  if w[0] == 'arbiter': print('name sleepy\\nready', flush=True)\n    elif w[0] == 'legal': legal = w[1:]\n    \
                  elif w[0] == 'go':\n        time.sleep(0.2)\n        print('move ' + legal[-1], flush=True)\n    \
                  elif w[0] == 'quit': break\n";
    std::fs::write(folder.join("sleepy.py"), script).unwrap();
    std::fs::write(
        folder.join("bot.toml"),
        "name = \"sleepy\"\ngame = \"any\"\nprotocol = \"arbiter\"\ncommand = [\"python3\", \"./sleepy.py\"]\n",
    )
    .unwrap();
    folder.to_str().unwrap().to_string()
}

/// The CPU time the SIGCONT bot's pondering thread had between its moves, as it said.
fn pondered(records: &[Value], name: &str) -> Vec<f64> {
    let mut said = Vec::new();
    for record in records {
        let players = &record["players"];
        let side = if players[0]["name"] == name { 0 } else { 1 };
        for turn in record["turns"].as_array().unwrap().iter().filter(|t| t["side"] == side) {
            for line in turn["stderr"].as_str().unwrap_or_default().lines() {
                if let Some(ms) = line.strip_prefix("pondered ").and_then(|rest| rest.strip_suffix(" ms")) {
                    said.push(ms.parse().unwrap());
                }
            }
        }
    }
    said
}

/// While its opponent takes 0.2 s a move, the SIGCONT bot ponders at most what it
/// settles (a few ms) between its moves: frozen, its timer cannot wake it.
fn assert_no_pondering(records: &[Value], what: &str) {
    let said = pondered(records, "sigcont");
    assert!(said.len() >= 2, "{what}: the bot said too little: {said:?}");
    for ms in &said {
        assert!(*ms < 25.0, "{what}: the bot pondered {ms} ms on its opponent's time: {said:?}");
    }
    for record in records {
        assert_eq!(termination(record)["kind"], "rules", "{what}: {}", termination(record));
    }
}

#[test]
fn a_bot_that_sends_itself_sigcont_gains_no_time() {
    let dir = tempfile::tempdir().unwrap();
    let sigcont = sigcont_bot(dir.path());
    let sleepy = sleepy_bot(dir.path());

    let records = dir.path().join("play");
    ok(&arbiter(&["play", "connect4", &sigcont, &sleepy, "--games", "2", "--seed", "1", "--record", records.to_str().unwrap()]));
    assert_no_pondering(&recorded(&records), "play");

    let records = dir.path().join("match");
    ok(&arbiter(&[
        "match",
        "connect4",
        &sigcont,
        &sleepy,
        "--games",
        "2",
        "-j",
        "2",
        "--seed",
        "1",
        "--record",
        records.to_str().unwrap(),
    ]));
    assert_no_pondering(&recorded(&records), "match");

    let db = tournament(dir.path(), "sigcont", "connect4", &[("sigcont", &sigcont), ("sleepy", &sleepy)], "", 1, 2);
    assert_no_pondering(&stored(&db), "tournament");

    // Outside the sandbox a plain process is stopped, which its timer does undo: the
    // referee finds it ran while paused, and it loses.
    let out = arbiter(&["play", "connect4", &sigcont, &sleepy, "--games", "1", "--seed", "1", "--no-sandbox", "--json"]);
    let summary: Value = serde_json::from_str(&ok(&out)).unwrap();
    let game = &summary["games"][0];
    assert_eq!(game["termination"]["kind"], "protocol-error", "{game}");
    assert!(game["termination"]["detail"].as_str().unwrap().contains("ran while it was paused"), "{game}");
    assert_eq!(game["winner_name"], "sleepy", "{game}");
}

/// A Pah-tum bot in Python that spends 1.5 s of CPU time over its first move (the limit
/// is 1 s of wall-clock time, waits for a CPU given back): in one process, or shared by
/// itself and three children, all pinned to the CPU it is on (each spins until it has
/// used its share; it answers once they have ended).
fn spinning_bot(dir: &Path, name: &str, children: usize) -> String {
    let folder = dir.join(name);
    std::fs::create_dir_all(&folder).unwrap();
    let script = format!(
        "import os, sys, time\nboard = sys.stdin.read()\ncpu = min(os.sched_getaffinity(0))\nos.sched_setaffinity(0, {{cpu}})\n\
         share = 1.5 / ({children} + 1)\n\
         def spin():\n    until = time.process_time() + share\n    while time.process_time() < until:\n        pass\n\
         kids = []\nfor _ in range({children}):\n    pid = os.fork()\n    if pid == 0:\n        spin()\n        os._exit(0)\n    kids.append(pid)\n\
         spin()\nfor pid in kids:\n    os.waitpid(pid, 0)\n\
         me = 'X' if board.count('X') == board.count('O') else 'O'\nprint(board.replace('-', me, 1)[:56], end='')\n"
    );
    std::fs::write(folder.join("bot.py"), script).unwrap();
    std::fs::write(
        folder.join("bot.toml"),
        format!("name = \"{name}\"\ngame = \"pahtum\"\nprotocol = \"pahtum\"\ncommand = [\"python3\", \"./bot.py\"]\n"),
    )
    .unwrap();
    folder.to_str().unwrap().to_string()
}

#[test]
fn a_bot_pinned_with_spinning_children_is_timed_out_as_one_process() {
    let dir = tempfile::tempdir().unwrap();
    for (name, children) in [("alone", 0), ("crowd", 3)] {
        let bot = spinning_bot(dir.path(), name, children);
        let out = arbiter(&["play", "pahtum", &bot, "random", "--games", "1", "--seed", "2", "--json"]);
        let summary: Value = serde_json::from_str(&ok(&out)).unwrap();
        assert_eq!(summary["games"][0]["termination"]["kind"], "timeout", "play {name}: {}", summary["games"][0]);

        let out = arbiter(&["match", "pahtum", &bot, "random", "--games", "2", "-j", "2", "--seed", "2", "--json"]);
        let summary: Value = serde_json::from_str(&ok(&out)).unwrap();
        assert_eq!(summary["faults"][0], 2, "match {name}: both games lost on time: {summary}");

        let db = tournament(dir.path(), name, "pahtum", &[(name, &bot), ("random", "random")], "move-ms = 1000", 1, 2);
        for record in stored(&db) {
            assert_eq!(termination(&record)["kind"], "timeout", "tournament {name}: {}", termination(&record));
        }
    }
}
