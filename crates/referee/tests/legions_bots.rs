//! The Legions interface end to end: the Python and C sample bots play whole games on a
//! 7×7 board against the built-in random player in both seats and tell their names;
//! misbehaving scripts lose as the spec's "Faults" section says (timeout and crash only;
//! garbage orders are skipped and the game goes on), leaving no process behind.

use std::path::{Path, PathBuf};
use std::time::Duration;

use players::Builtin;
use referee::{BotSpec, GameRecord, GameSetup, Termination, play_game};
use rules::{GameKind, Options};

fn bots_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bots/legions")
}

fn sample(language: &str) -> BotSpec {
    BotSpec::from_arg(bots_dir().join(language).to_str().unwrap()).unwrap()
}

fn setup(seed: u64) -> GameSetup {
    let options: Options = [("size".to_string(), "7".to_string())].into();
    let start = GameKind::Legions.new_position(&options, None).unwrap();
    GameSetup::new(start, options, seed)
}

/// A bot whose program is the shell script `script`, in its own folder under `dir`.
fn script_bot(dir: &Path, name: &str, script: &str) -> BotSpec {
    let folder = dir.join(name);
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("bot.sh"), script).unwrap();
    let manifest = format!("name = \"{name}\"\ngame = \"legions\"\nprotocol = \"legions\"\ncommand = [\"sh\", \"./bot.sh\"]\n");
    std::fs::write(folder.join("bot.toml"), manifest).unwrap();
    BotSpec::from_arg(folder.to_str().unwrap()).unwrap()
}

/// Whether process `pid` still runs (a zombie does not count).
fn is_running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| stat.rsplit_once(") ").map(|(_, rest)| !rest.starts_with('Z')))
        .unwrap_or(false)
}

/// Whether process `pid` is gone within a second: a SIGKILL is sent at once but the
/// kernel takes a moment to end the process.
async fn is_gone(pid: u32) -> bool {
    for _ in 0..100 {
        if !is_running(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    false
}

async fn play(setup: &GameSetup, bots: [&BotSpec; 2]) -> GameRecord {
    play_game(setup, bots, |_, _| {}).await
}

fn assert_normal_game(record: &GameRecord, program_side: usize) {
    assert_eq!(record.result.termination, Termination::Rules, "{:?}", record.result);
    assert!(record.result.scores.is_some());
    let own: Vec<_> = record.turns.iter().filter(|t| t.side == program_side).collect();
    assert!(!own.is_empty());
    assert!(own.iter().all(|t| !t.stderr.is_empty()), "every call writes a debug line");
    assert!(record.turns.iter().all(|t| t.note.is_some()), "the record notes what every order did");
}

#[tokio::test(flavor = "multi_thread")]
async fn sample_bots_play_whole_games_in_both_seats() {
    let random = BotSpec::Builtin(Builtin::Random);
    for (i, language) in ["python", "c"].into_iter().enumerate() {
        let bot = sample(language);
        let first = play(&setup(10 + i as u64), [&bot, &random]).await;
        assert_normal_game(&first, 0);
        let second = play(&setup(20 + i as u64), [&random, &bot]).await;
        assert_normal_game(&second, 1);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn sample_bots_tell_their_names() {
    let dir = tempfile::tempdir().unwrap();
    for (language, name) in [("python", "random-py"), ("c", "random-c")] {
        let BotSpec::Program(bot) = sample(language) else { unreachable!() };
        let identity = referee::drivers::describe(&bot, dir.path()).await.unwrap().unwrap();
        assert_eq!(identity.name, name);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_long_name_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let BotSpec::Program(bot) = script_bot(dir.path(), "long", "echo a-name-of-more-than-16-characters\n") else { unreachable!() };
    let fault = referee::drivers::describe(&bot, dir.path()).await.unwrap_err();
    assert_eq!(fault.kind, referee::FaultKind::ProtocolError);
}

#[tokio::test(flavor = "multi_thread")]
async fn timeouts_and_crashes_lose_as_a_taken_city() {
    let dir = tempfile::tempdir().unwrap();
    let random = BotSpec::Builtin(Builtin::Random);
    let sleeper = script_bot(dir.path(), "sleeper", "sleep 30 & echo $! > child.pid\nsleep 30\n");
    let crasher =
        script_bot(dir.path(), "crasher", "cat > /dev/null\nsleep 30 > /dev/null 2>&1 & echo $! > child.pid\necho 0 1 1\nexit 3\n");
    for (bot, kind) in [(&sleeper, "timeout"), (&crasher, "crash")] {
        for side in [0, 1] {
            let root = dir.path().join(format!("{kind}-{side}"));
            let mut setup = setup(7);
            setup.workdir_root = Some(root.clone());
            setup.limits[side].move_time = Some(Duration::from_millis(300));
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
            assert!(is_gone(pid).await, "the bot's child {pid} survived the game ({kind}, side {side})");
        }
    }
    let record = play(&setup(8), [&sample("c"), &random]).await;
    assert_normal_game(&record, 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn garbage_orders_are_skipped_and_the_game_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let random = BotSpec::Builtin(Builtin::Random);
    let garbage =
        script_bot(dir.path(), "garbage", "cat > /dev/null\nprintf 'attack!\\n1 2\\n0 0 0\\n0 1 9\\n'\nprintf '\\377\\376 junk'\n");
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
