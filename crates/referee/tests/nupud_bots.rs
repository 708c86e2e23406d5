//! The Nupud interface end to end: the Python and C sample bots play whole games against
//! the built-in random player in both seats and tell their names; Black's set-up call
//! learns nothing of White's; misbehaving scripts lose with the right termination
//! (timeout, crash, protocol error, illegal move), leaving no process behind.

mod common;

use std::time::Duration;

use common::{Normal, Script, assert_normal_game, is_gone, play, random, sample, script_bot};
use referee::GameSetup;
use rules::GameKind;

const NUPUD: Script = Script::sh("nupud", "nupud");

/// A normal Nupud game: scores, two set-ups and some moves, a debug line in every call.
const NORMAL: Normal = Normal { scores: true, min_moves: 3, every_turn_logs: true, every_turn_noted: false };

fn setup(seed: u64) -> GameSetup {
    let start = GameKind::Nupud.new_position(&Default::default(), None).unwrap();
    GameSetup::new(start, Default::default(), seed)
}

#[tokio::test(flavor = "multi_thread")]
async fn sample_bots_play_whole_games_in_both_seats() {
    common::samples_play_both_seats("nupud", setup, NORMAL).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn sample_bots_tell_their_names() {
    common::samples_tell_their_names("nupud").await;
}

/// Black's set-up call gets `place black` and nothing else, whatever White set up.
#[tokio::test(flavor = "multi_thread")]
async fn blacks_set_up_call_learns_nothing_of_whites() {
    let dir = tempfile::tempdir().unwrap();
    // Logs every call's input, sets up, and stops the game at its first move call.
    let logger = script_bot(
        dir.path(),
        "logger",
        NUPUD,
        "cat > input\ncat input >> calls.log\ncase $(head -c 5 input) in place) echo 432111;; *) exit 3;; esac\n",
    );
    let random = random();
    let mut white_setups = Vec::new();
    for seed in [1, 2, 3] {
        let root = dir.path().join(format!("game-{seed}"));
        let mut setup = setup(seed);
        setup.workdir_root = Some(root.clone());
        let record = play(&setup, [&random, &logger]).await;
        assert_eq!(record.moves.len(), 3, "White's set-up, Black's, White's first move");
        white_setups.push(record.moves[0].clone());
        let calls = std::fs::read_to_string(root.join("side-1/calls.log")).unwrap();
        assert!(calls.starts_with("place black\nmove black\n"), "{calls:?}");
    }
    white_setups.dedup();
    assert!(white_setups.len() > 1, "the games start from different White set-ups");
}

#[tokio::test(flavor = "multi_thread")]
async fn misbehaving_bots_lose_with_the_right_termination() {
    let dir = tempfile::tempdir().unwrap();
    let random = random();
    // Each answers the set-up call well (but one), then misbehaves in its first move.
    let set_up_then = |action: &str| format!("read line\ncase \"$line\" in place*) echo 143211; exit 0;; esac\n{action}\n");
    let cases = [
        ("sleeper", set_up_then("sleep 30 & echo $! > child.pid\nsleep 30"), "timeout"),
        ("crasher", set_up_then("sleep 30 > /dev/null 2>&1 & echo $! > child.pid\nexit 3"), "crash"),
        ("garbage", set_up_then("echo 'my move: the best one'"), "protocol-error"),
        ("two-lines", set_up_then("echo c1c2; echo c1c3"), "protocol-error"),
        ("illegal-move", set_up_then("echo a1a6"), "illegal-move"),
        ("illegal-set-up", "echo 443211\n".to_string(), "illegal-move"),
        ("bad-set-up", "echo white\n".to_string(), "protocol-error"),
    ];
    for (name, script, kind) in &cases {
        let bot = script_bot(dir.path(), name, NUPUD, script);
        for side in [0, 1] {
            let root = dir.path().join(format!("{name}-{side}"));
            let mut setup = setup(5);
            setup.workdir_root = Some(root.clone());
            // Tight only where the timeout is the thing tested (see pahtum_bots.rs).
            let game_ms = if *kind == "timeout" { 500 } else { 30_000 };
            setup.limits[side].game_time = Some(Duration::from_millis(game_ms));
            let bots = if side == 0 { [&bot, &random] } else { [&random, &bot] };
            let record = play(&setup, bots).await;
            let result = &record.result;
            assert_eq!(result.termination.kind(), *kind, "{name} as side {side}: {result:?}");
            assert_eq!(result.termination.side().map(|s| s.index()), Some(side), "{name}");
            assert_eq!(result.winner, Some(1 - side), "{name}");
            assert_eq!(result.scores, None, "a forfeit has no final scores");
            assert_eq!(record.turns.last().unwrap().side, side);
            let pid_file = root.join(format!("side-{side}/child.pid"));
            if let Ok(pid) = std::fs::read_to_string(&pid_file) {
                let pid: u32 = pid.trim().parse().unwrap();
                assert!(is_gone(pid, common::GONE).await, "the child {pid} of {name} survived the game");
            }
        }
    }
    let record = play(&setup(6), [&sample("nupud", "c"), &random]).await;
    assert_normal_game(&record, 0, NORMAL);
}
