//! The figures a person reads say what they claim, checked against the records: a move's
//! `bot_us` (the bot's time, its waits for a CPU given back) is never less than the CPU
//! time the bot itself measured for that move; the standings' time per move is the
//! mean of the moves' times in the records, a turn that ended without a move left out.

mod common;

use common::{arbiter, ok};
use std::path::Path;

use serde_json::Value;

/// A bot of the project's protocol in Python that measures, per move, the CPU time of its
/// thread from reading `go` to writing its move (a little work: a few hundred
/// microseconds) and says it on stderr (`spent N ns`); with `timeout_at`, it sleeps
/// through that move instead.
fn measuring_bot(dir: &Path, name: &str, timeout_at: Option<u32>) -> String {
    let folder = dir.join(name);
    std::fs::create_dir_all(&folder).unwrap();
    let stall = timeout_at.map_or("None".to_string(), |n| n.to_string());
    let script = format!(
        "import sys, time\nlegal = []\nn = 0\nfor line in sys.stdin:\n    w = line.split()\n    if not w: continue\n    \
         if w[0] == 'arbiter': print('name {name}\\nready', flush=True)\n    elif w[0] == 'legal': legal = w[1:]\n    \
         elif w[0] == 'go':\n        n += 1\n        if n == {stall}:\n            time.sleep(30)\n        \
         began = time.thread_time_ns()\n        x = 0\n        for i in range(3000): x += i * i\n        \
         move = legal[x % len(legal)]\n        spent = time.thread_time_ns() - began\n        \
         print('spent %d ns' % spent, file=sys.stderr, flush=True)\n        print('move ' + move, flush=True)\n    \
         elif w[0] == 'quit': break\n"
    );
    std::fs::write(folder.join("bot.py"), script).unwrap();
    std::fs::write(
        folder.join("bot.toml"),
        format!("name = \"{name}\"\ngame = \"any\"\nprotocol = \"arbiter\"\ncommand = [\"python3\", \"./bot.py\"]\n"),
    )
    .unwrap();
    folder.to_str().unwrap().to_string()
}

/// Each turn of `side`'s with the CPU time it said it spent: (bot_us, spent ns).
fn charged_and_spent(record: &Value, side: u64) -> Vec<(u64, u64)> {
    record["turns"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|turn| turn["side"] == side && turn["text"].is_string())
        .filter_map(|turn| {
            let spent = turn["stderr"].as_str()?.lines().find_map(|l| l.strip_prefix("spent ")?.strip_suffix(" ns")?.parse().ok())?;
            Some((turn["bot_us"].as_u64().unwrap(), spent))
        })
        .collect()
}

#[test]
fn a_moves_bot_us_is_never_less_than_the_cpu_the_bot_used_for_it() {
    let dir = tempfile::tempdir().unwrap();
    let bot = measuring_bot(dir.path(), "measurer", None);
    for extra in [&[][..], &["--no-sandbox"][..]] {
        let records = dir.path().join(format!("records{}", extra.len()));
        let mut args = vec!["play", "connect4", &bot, "random", "--games", "4", "--seed", "3", "--record", records.to_str().unwrap()];
        args.extend(extra);
        ok(&arbiter(&args));
        let mut turns = 0;
        for entry in std::fs::read_dir(&records).unwrap() {
            let record: Value = serde_json::from_str(&std::fs::read_to_string(entry.unwrap().path()).unwrap()).unwrap();
            let side = if record["players"][0]["name"] == "measurer" { 0 } else { 1 };
            for (bot_us, spent_ns) in charged_and_spent(&record, side) {
                assert!(bot_us * 1000 >= spent_ns, "{extra:?}: charged {bot_us} us for a move that took {spent_ns} ns of its CPU");
                turns += 1;
            }
        }
        assert!(turns >= 8, "{extra:?}: {turns} moves measured");
    }
}

#[test]
fn the_standings_time_per_move_is_the_records_mean_over_moves_played() {
    let dir = tempfile::tempdir().unwrap();
    // It sleeps through its fourth move: a turn of 1 s that is no move.
    let stalling = measuring_bot(dir.path(), "stalling", Some(4));
    let config = format!(
        "name = \"figures\"\ngame = \"connect4\"\nseed = 4\n[limits]\nmove-ms = 1000\n\
         [[entrant]]\nname = \"stalling\"\nbot = \"{stalling}\"\n[[entrant]]\nname = \"random\"\nbot = \"random\"\n\
         [[stage]]\nformat = \"round-robin\"\ndeals = 1\nswap = false\n"
    );
    let path = dir.path().join("figures.toml");
    std::fs::write(&path, config).unwrap();
    let db = dir.path().join("figures.db");
    ok(&arbiter(&["tournament", path.to_str().unwrap(), "--db", db.to_str().unwrap()]));
    let listing = ok(&arbiter(&["replay", db.to_str().unwrap()]));
    let key = listing.lines().filter_map(|l| l.split_whitespace().next()).find(|w| w.contains('/')).expect("a game");
    let record: Value = serde_json::from_str(&ok(&arbiter(&["replay", db.to_str().unwrap(), "--game", key, "--json"]))).unwrap();
    assert_eq!(record["result"]["termination"]["kind"], "timeout", "{}", record["result"]);
    let moves: Vec<u64> = record["turns"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["side"] == 0 && t["text"].is_string())
        .map(|t| t["ms"].as_u64().unwrap())
        .collect();
    assert_eq!(moves.len(), 3);
    let mean = moves.iter().sum::<u64>() as f64 / moves.len() as f64;
    let standings: Value = serde_json::from_str(&ok(&arbiter(&["standings", "--db", db.to_str().unwrap(), "--format", "json"]))).unwrap();
    let row = standings["stages"][0]["rows"].as_array().unwrap().iter().find(|r| r["entrant"] == "stalling").unwrap().clone();
    let shown = row["avg_ms_per_move"].as_f64().unwrap();
    assert!((shown - mean).abs() < 0.01, "the standings show {shown} ms a move, the records' moves {moves:?} average {mean}");
}
