//! The Pah-tum interface end to end: the Python and C sample bots play whole games
//! against the built-in random player in both seats; the interface has no name request;
//! misbehaving scripts lose with the right termination and the opponent credited 1666,
//! leaving no process behind.

use std::path::{Path, PathBuf};
use std::time::Duration;

use players::Builtin;
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;
use referee::{BotSpec, GameRecord, GameSetup, Termination, play_game};
use rules::GameKind;

fn bots_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bots/pahtum")
}

fn sample(language: &str) -> BotSpec {
    BotSpec::from_arg(bots_dir().join(language).to_str().unwrap()).unwrap()
}

/// A game from a random start board drawn from `seed`.
fn setup(seed: u64) -> GameSetup {
    let options = Default::default();
    let board = GameKind::Pahtum.random_start(&options, &mut ChaCha8Rng::seed_from_u64(seed)).unwrap();
    let start = GameKind::Pahtum.new_position(&options, board.as_deref()).unwrap();
    GameSetup::new(start, options, seed)
}

/// A bot whose program is the shell script `script`, in its own folder under `dir`.
fn script_bot(dir: &Path, name: &str, script: &str) -> BotSpec {
    let folder = dir.join(name);
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("bot.sh"), script).unwrap();
    let manifest = format!("name = \"{name}\"\ngame = \"pahtum\"\nprotocol = \"pahtum\"\ncommand = [\"sh\", \"./bot.sh\"]\n");
    std::fs::write(folder.join("bot.toml"), manifest).unwrap();
    BotSpec::from_arg(folder.to_str().unwrap()).unwrap()
}

/// Whether process `pid` is gone within a second (a zombie counts as gone): a SIGKILL
/// is sent at once, but the kernel takes a moment to end the process.
async fn is_gone(pid: u32) -> bool {
    for _ in 0..100 {
        let running = std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|stat| stat.rsplit_once(") ").map(|(_, rest)| !rest.starts_with('Z')))
            .unwrap_or(false);
        if !running {
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
async fn the_interface_has_no_name_request() {
    let dir = tempfile::tempdir().unwrap();
    for language in ["python", "c"] {
        let BotSpec::Program(bot) = sample(language) else { unreachable!() };
        assert_eq!(referee::drivers::describe(&bot, dir.path()).await.unwrap(), None);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn misbehaving_bots_lose_and_the_opponent_gets_1666() {
    let dir = tempfile::tempdir().unwrap();
    let random = BotSpec::Builtin(Builtin::Random);
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
        let bot = script_bot(dir.path(), name, script);
        for side in [0, 1] {
            let root = dir.path().join(format!("{name}-{side}"));
            let mut setup = setup(5);
            setup.workdir_root = Some(root.clone());
            setup.limits[side].move_time = Some(Duration::from_millis(300));
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
                assert!(is_gone(pid).await, "the child {pid} of {name} survived the game");
            }
        }
    }
    let record = play(&setup(6), [&sample("c"), &random]).await;
    assert_normal_game(&record, 0);
}
