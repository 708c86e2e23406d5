//! The Legions interface end to end: the Python and C sample bots play whole games on a
//! 7×7 board against the built-in random player in both seats and tell their names;
//! misbehaving scripts lose as `docs/games.md` and `docs/bots.md` say (timeout and crash
//! only; garbage orders are skipped and the game goes on), leaving no process behind.

mod common;

use std::time::Duration;

use common::{Normal, Script, assert_normal_game, is_gone, play, random, sample, script_bot};
use referee::{BotSpec, GameSetup, Termination};
use rules::{GameKind, Options};

const LEGIONS: Script = Script::sh("legions", "legions");

/// A normal Legions game: scores, a debug line in every call, a note on every turn.
const NORMAL: Normal = Normal { scores: true, min_moves: 0, every_turn_logs: true, every_turn_noted: true };

fn setup(seed: u64) -> GameSetup {
    let options: Options = [("size".to_string(), "7".to_string())].into();
    let start = GameKind::Legions.new_position(&options, None).unwrap();
    GameSetup::new(start, options, seed)
}

#[tokio::test(flavor = "multi_thread")]
async fn sample_bots_play_whole_games_in_both_seats() {
    common::samples_play_both_seats("legions", setup, NORMAL).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn sample_bots_tell_their_names() {
    common::samples_tell_their_names("legions").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_long_name_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let BotSpec::Program(bot) = script_bot(dir.path(), "long", LEGIONS, "echo a-name-of-more-than-16-characters\n") else { unreachable!() };
    let fault = referee::drivers::describe(&bot, dir.path()).await.unwrap_err();
    assert_eq!(fault.fault().map(|fault| fault.kind), Some(referee::FaultKind::ProtocolError));
}

#[tokio::test(flavor = "multi_thread")]
async fn timeouts_and_crashes_lose_as_a_taken_city() {
    let dir = tempfile::tempdir().unwrap();
    let random = random();
    let sleeper = script_bot(dir.path(), "sleeper", LEGIONS, "sleep 30 & echo $! > child.pid\nsleep 30\n");
    let crasher = script_bot(
        dir.path(),
        "crasher",
        LEGIONS,
        "cat > /dev/null\nsleep 30 > /dev/null 2>&1 & echo $! > child.pid\necho 0 1 1\nexit 3\n",
    );
    for (bot, kind) in [(&sleeper, "timeout"), (&crasher, "crash")] {
        for side in [0, 1] {
            let root = dir.path().join(format!("{kind}-{side}"));
            let mut setup = setup(7);
            setup.workdir_root = Some(root.clone());
            // Tight only where the timeout is the thing tested (see pahtum_bots.rs).
            let move_ms = if kind == "timeout" { 300 } else { 30_000 };
            setup.limits[side].move_time = Some(Duration::from_millis(move_ms));
            let bots = if side == 0 { [bot, &random] } else { [&random, bot] };
            let record = play(&setup, bots).await;
            assert_eq!(record.result.termination.kind(), kind, "{:?}", record.result);
            assert_eq!(record.result.termination.side().map(|s| s.index()), Some(side));
            assert_eq!(record.result.winner, Some(1 - side));
            let mut scores = [0, 0];
            scores[1 - side] = 98;
            assert_eq!(record.result.scores, Some(scores), "2·n² to the opponent");
            assert_eq!(record.turns.last().unwrap().side, side);
            assert_eq!(record.turns.last().unwrap().text, None);
            let pid: u32 = std::fs::read_to_string(root.join(format!("side-{side}/child.pid"))).unwrap().trim().parse().unwrap();
            assert!(is_gone(pid, common::GONE).await, "the bot's child {pid} survived the game ({kind}, side {side})");
        }
    }
    let record = play(&setup(8), [&sample("legions", "c"), &random]).await;
    assert_normal_game(&record, 0, NORMAL);
}

#[tokio::test(flavor = "multi_thread")]
async fn garbage_orders_are_skipped_and_the_game_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let random = random();
    let garbage = script_bot(
        dir.path(),
        "garbage",
        LEGIONS,
        "cat > /dev/null\nprintf 'attack!\\n1 2\\n0 0 0\\n0 1 9\\n'\nprintf '\\377\\376 junk'\n",
    );
    let record = play(&setup(9), [&garbage, &random]).await;
    assert!(matches!(record.result.termination, Termination::Rules), "{:?}", record.result);
    let first = &record.turns[0];
    assert_eq!(first.text.as_deref(), Some("attack!; 1 2; 0 0 0; 0 1 9; \u{fffd}\u{fffd} junk"));
    let note = first.note.as_deref().unwrap();
    assert!(note.contains("attack!: skipped: not an order"), "{note}");
    assert!(note.contains("0 0 0: skipped: count below 1"), "{note}");
    assert!(note.contains("0 1 9: skipped: only 5 legions left"), "{note}");
    // The garbage bot never takes a province: the random player ends the game.
    assert!(record.turns.len() > 2);
}
