//! Misbehaving bots through a per-move interface (Pah-tum): each small script does one
//! thing wrong; it must lose that game with the right termination (the opponent
//! credited 1666), leave no process behind, and the next game must be normal.

mod common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::{Script, all_gone, play, random, script_bot};
use referee::{BotSpec, GameRecord, GameSetup};
use rules::{GameKind, Options};

/// A start board from the seed (5 blocked squares).
const START: &str = "-------\n------+\n---+---\n-------\n--++---\n-------\n+------\n";

/// A Pah-tum bot running its script with `/bin/sh`.
const PAHTUM: Script = Script { command: &["/bin/sh", "./bot.sh"], ..Script::sh("pahtum", "pahtum") };

/// A correct bot in sh: puts its letter on the first empty square.
const GOOD: &str = r#"board=$(cat; echo .); board=${board%.}
x=$(printf '%s' "$board" | tr -cd X | wc -c); o=$(printf '%s' "$board" | tr -cd O | wc -c)
if [ "$x" -eq "$o" ]; then me=X; else me=O; fi
printf '%s' "$board" | sed "0,/-/s//$me/" | head -c 56
"#;

/// Plays `bot` against random from [`START`], `move_ms` per move, in `workdir`.
async fn play_from_start(bot: &BotSpec, bot_first: bool, move_ms: u64, workdir: &Path) -> GameRecord {
    let options = Options::new();
    let start = GameKind::Pahtum.new_position(&options, Some(START)).unwrap();
    let mut setup = GameSetup::new(start, options, 7);
    for limits in &mut setup.limits {
        limits.move_time = Some(Duration::from_millis(move_ms));
        limits.stderr_per_move = 1000;
    }
    setup.workdir_root = Some(workdir.to_path_buf());
    let random = random();
    let bots = if bot_first { [bot, &random] } else { [&random, bot] };
    play(&setup, bots).await
}

/// Pids the scripts wrote into `pids` files anywhere under `dir`.
fn recorded_pids(dir: &Path) -> Vec<u32> {
    let mut pids = Vec::new();
    let mut stack: Vec<PathBuf> = vec![dir.to_path_buf()];
    while let Some(path) = stack.pop() {
        for entry in std::fs::read_dir(&path).into_iter().flatten().flatten() {
            let p = entry.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.file_name().is_some_and(|n| n == "pids") {
                pids.extend(std::fs::read_to_string(&p).unwrap().lines().filter_map(|l| l.trim().parse::<u32>().ok()));
            }
        }
    }
    pids
}

/// Asserts that all of `pids` are gone within 5 s.
async fn assert_all_gone(pids: &[u32]) {
    assert!(all_gone(pids, common::GONE).await, "processes survived the game: {pids:?}");
}

struct Case {
    name: &'static str,
    script: &'static str,
    kind: &'static str,
    detail: &'static str,
}

const CASES: &[Case] = &[
    Case {
        name: "never-answers",
        script: "echo $$ >> \"$PWD/pids\"; cat >/dev/null; exec sleep 1000",
        kind: "timeout",
        detail: "out of time",
    },
    Case { name: "sleeps-past-deadline", script: "echo $$ >> \"$PWD/pids\"; sleep 2; cat", kind: "timeout", detail: "0.300 s per move" },
    Case { name: "crashes", script: "cat >/dev/null; kill -SEGV $$", kind: "crash", detail: "SIGSEGV" },
    Case {
        name: "exits-with-error",
        script: "cat >/dev/null; echo 'cannot cope' >&2; exit 3",
        kind: "crash",
        detail: "exited with status 3",
    },
    Case { name: "exits-before-answering", script: "exit 0", kind: "protocol-error", detail: "not a board" },
    Case { name: "prints-garbage", script: "cat >/dev/null; echo 'hello referee'", kind: "protocol-error", detail: "\"hello referee\\n\"" },
    Case {
        name: "plays-occupied-square",
        script: "cat >/dev/null; printf 'X------\\n------+\\n---+---\\n-------\\n--++---\\n-------\\n+------\\n'",
        kind: "illegal-move",
        detail: "",
    },
    Case { name: "closes-stdout-early", script: "exec >&-; echo $$ >> \"$PWD/pids\"; sleep 1000", kind: "timeout", detail: "" },
    Case { name: "endless-output", script: "cat >/dev/null; head -c 1073741824 /dev/zero", kind: "protocol-error", detail: "more than" },
];

#[tokio::test(flavor = "multi_thread")]
async fn each_misbehaving_bot_loses_with_the_right_reason() {
    let dir = tempfile::tempdir().unwrap();
    let good = script_bot(dir.path(), "good", PAHTUM, GOOD);
    for case in CASES {
        let bot = script_bot(dir.path(), case.name, PAHTUM, case.script);
        for bot_first in [true, false] {
            let work = dir.path().join(format!("work-{}-{bot_first}", case.name));
            // Tight only where the timeout is the thing tested: a loaded machine must
            // never turn a crash or a bad answer into a timeout.
            let move_ms = if case.kind == "timeout" { 300 } else { 30_000 };
            let record = play_from_start(&bot, bot_first, move_ms, &work).await;
            let side = if bot_first { 0 } else { 1 };
            let termination = serde_json::to_value(&record.result.termination).unwrap();
            assert_eq!(termination["kind"], case.kind, "{}: {termination}", case.name);
            assert_eq!(termination["side"], side, "{}", case.name);
            assert!(termination["detail"].as_str().unwrap().contains(case.detail), "{}: {termination}", case.name);
            let mut scores = [0, 0];
            scores[1 - side] = 1666;
            assert_eq!(record.result.scores, Some(scores), "{}: the opponent is credited 1666", case.name);
            assert_eq!(record.result.winner, Some(1 - side));
            assert_all_gone(&recorded_pids(&work)).await;
        }
        // The next game is normal.
        let record = play_from_start(&good, true, 30_000, &dir.path().join(format!("next-{}", case.name))).await;
        assert_eq!(record.result.termination, referee::Termination::Rules, "after {}", case.name);
        assert_eq!(record.moves.len(), 44);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_child_left_running_is_killed_after_the_move() {
    let dir = tempfile::tempdir().unwrap();
    let script = format!("sleep 1000 & echo $! >> \"$PWD/pids\"\n{GOOD}");
    let bot = script_bot(dir.path(), "spawns-child", PAHTUM, &script);
    let work = dir.path().join("work");
    let record = play_from_start(&bot, true, 30_000, &work).await;
    assert_eq!(record.result.termination, referee::Termination::Rules);
    let pids = recorded_pids(&work);
    assert_eq!(pids.len(), 22, "one child per move");
    assert_all_gone(&pids).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_stderr_flood_is_cut_to_exactly_the_cap() {
    let dir = tempfile::tempdir().unwrap();
    let script = format!("head -c 200000 /dev/zero | tr '\\0' 'e' >&2\n{GOOD}");
    let bot = script_bot(dir.path(), "floods-stderr", PAHTUM, &script);
    let record = play_from_start(&bot, true, 30_000, &dir.path().join("work")).await;
    assert_eq!(record.result.termination, referee::Termination::Rules);
    for turn in record.turns.iter().filter(|turn| turn.side == 0) {
        assert_eq!(turn.stderr.len(), 1000);
        assert_eq!(turn.stderr_dropped, 199_000);
    }
}
