//! The Pah-tum interface end to end: the Python and C sample bots play whole games
//! against the built-in random player in both seats; the interface has no name request;
//! misbehaving scripts lose with the right termination and the opponent credited 1666,
//! leaving no process behind.

mod common;

use std::time::Duration;

use common::{Normal, Script, assert_normal_game, is_gone, play, random, sample, script_bot};
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;
use referee::{BotSpec, GameSetup};
use rules::GameKind;

const PAHTUM: Script = Script::sh("pahtum", "pahtum");

/// A normal Pah-tum game: scores and a debug line in every call.
const NORMAL: Normal = Normal { scores: true, min_moves: 0, every_turn_logs: true, every_turn_noted: false };

/// A game from a random start board drawn from `seed`.
fn setup(seed: u64) -> GameSetup {
    let options = Default::default();
    let board = GameKind::Pahtum.random_start(&options, &mut ChaCha8Rng::seed_from_u64(seed)).unwrap();
    let start = GameKind::Pahtum.new_position(&options, board.as_deref()).unwrap();
    GameSetup::new(start, options, seed)
}

#[tokio::test(flavor = "multi_thread")]
async fn sample_bots_play_whole_games_in_both_seats() {
    common::samples_play_both_seats("pahtum", setup, NORMAL).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_interface_has_no_name_request() {
    let dir = tempfile::tempdir().unwrap();
    for language in ["python", "c"] {
        let BotSpec::Program(bot) = sample("pahtum", language) else { unreachable!() };
        assert_eq!(referee::drivers::describe(&bot, dir.path()).await.unwrap(), None);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn misbehaving_bots_lose_and_the_opponent_gets_1666() {
    let dir = tempfile::tempdir().unwrap();
    let random = random();
    // Puts the bot's letter on the first two empty squares: two changes.
    let two = "python3 -c 'import sys; b = sys.stdin.read(); l = \"X\" if b.count(\"X\") == b.count(\"O\") else \"O\"; \
               sys.stdout.write(b.replace(\"-\", l, 2))'\n";
    let cases = [
        ("sleeper", "sleep 30 & echo $! > child.pid\nsleep 30\n", "timeout"),
        ("crasher", "sleep 30 > /dev/null 2>&1 & echo $! > child.pid\nexit 3\n", "crash"),
        ("garbage", "cat > /dev/null\necho 'B4 is my move'\n", "protocol-error"),
        ("two-changes", two, "illegal-move"),
        ("unchanged", "cat\n", "illegal-move"),
    ];
    for (name, script, kind) in cases {
        let bot = script_bot(dir.path(), name, PAHTUM, script);
        for side in [0, 1] {
            let root = dir.path().join(format!("{name}-{side}"));
            let mut setup = setup(5);
            setup.workdir_root = Some(root.clone());
            // Tight only where the timeout is the thing tested: a loaded machine must
            // never turn a crash or a bad answer into a timeout.
            let move_ms = if kind == "timeout" { 300 } else { 30_000 };
            setup.limits[side].move_time = Some(Duration::from_millis(move_ms));
            let bots = if side == 0 { [&bot, &random] } else { [&random, &bot] };
            let record = play(&setup, bots).await;
            let result = &record.result;
            assert_eq!(result.termination.kind(), kind, "{name} as side {side}: {result:?}");
            assert_eq!(result.termination.side().map(|s| s.index()), Some(side), "{name}");
            assert_eq!(result.winner, Some(1 - side), "{name}");
            let mut scores = [0, 0];
            scores[1 - side] = 1666;
            assert_eq!(result.scores, Some(scores), "{name}: the opponent is credited 1666");
            assert_eq!(record.turns.last().unwrap().side, side);
            if let Ok(pid) = std::fs::read_to_string(root.join(format!("side-{side}/child.pid"))) {
                let pid: u32 = pid.trim().parse().unwrap();
                assert!(is_gone(pid, common::GONE).await, "the child {pid} of {name} survived the game");
            }
        }
    }
    let record = play(&setup(6), [&sample("pahtum", "c"), &random]).await;
    assert_normal_game(&record, 0, NORMAL);
}
