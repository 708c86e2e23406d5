//! The two Gomoku interfaces end to end: the Python and C sample bots of each play
//! complete games against the built-in random player in both seats and describe
//! themselves; small scripts that misbehave on purpose lose with the right termination,
//! leave no process behind, and the next game is normal.

mod common;

use std::path::Path;
use std::time::Duration;

use common::{Script, bot_in, is_gone, play, random, sample};
use referee::drivers::{Identity, describe};
use referee::{BotSpec, GameRecord, GameSetup, Termination};
use rules::GameKind;

fn setup(seed: u64, move_ms: u64) -> GameSetup {
    let start = GameKind::Gomoku.new_position(&Default::default(), None).unwrap();
    let mut setup = GameSetup::new(start, Default::default(), seed);
    for limits in &mut setup.limits {
        limits.move_time = Some(Duration::from_millis(move_ms));
    }
    setup
}

/// The stderr of each turn `side` played.
fn logs(record: &GameRecord, side: usize) -> Vec<&str> {
    record.turns.iter().filter(|turn| turn.side == side).map(|turn| turn.stderr.as_str()).collect()
}

/// A bot made of one script in a fresh folder; `{dir}` in the script is that folder.
fn temp_script_bot(protocol: &str, script: &str) -> (tempfile::TempDir, BotSpec) {
    let dir = tempfile::tempdir().unwrap();
    let script = script.replace("{dir}", dir.path().to_str().unwrap());
    let spec = bot_in(dir.path(), "script", Script::sh("gomoku", protocol), &script);
    (dir, spec)
}

/// Asserts that every process id a script wrote into `{dir}/pids` is gone already, with
/// no wait.
async fn assert_none_left(dir: &Path) {
    let pids = std::fs::read_to_string(dir.join("pids")).unwrap_or_default();
    assert!(!pids.trim().is_empty(), "the script recorded no process id");
    for pid in pids.split_whitespace() {
        let pid: u32 = pid.parse().unwrap();
        assert!(is_gone(pid, Duration::ZERO).await, "process {pid} survived the game");
    }
}

async fn plays_both_seats(bot: &BotSpec, seed: u64) -> [GameRecord; 2] {
    let first = play(&setup(seed, 5000), [bot, &random()]).await;
    let second = play(&setup(seed + 1, 5000), [&random(), bot]).await;
    for (side, record) in [(0, &first), (1, &second)] {
        assert_eq!(record.result.termination, Termination::Rules, "seat {side}: {:?}", record.result);
        let logs = logs(record, side);
        assert!(!logs.is_empty());
        assert!(logs.iter().any(|log| !log.is_empty()), "seat {side}: no debug log");
    }
    [first, second]
}

#[tokio::test(flavor = "multi_thread")]
async fn file_samples_play_both_seats_and_keep_memory() {
    for (language, seed) in [("python", 10), ("c", 20)] {
        let records = plays_both_seats(&sample("gomoku-file", language), seed).await;
        for (side, record) in records.iter().enumerate() {
            // The samples count their moves in a file of their working directory.
            let mark = if side == 0 { 'X' } else { '0' };
            for (idx, log) in logs(record, side).iter().enumerate() {
                assert!(log.starts_with(&format!("move {} as {mark}: ", idx + 1)), "{language}: {log:?}");
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn console_samples_play_both_seats() {
    for (language, seed) in [("python", 30), ("c", 40)] {
        let [first, second] = plays_both_seats(&sample("gomoku-console", language), seed).await;
        // A persistent bot's log is taken right after its move; a line that reaches the
        // referee late lands in its next turn, so the logs are checked joined.
        let joined = logs(&first, 0).concat();
        assert!(joined.starts_with("X after --: "), "{language}: {joined:?}");
        let joined = logs(&second, 1).concat();
        assert!(joined.starts_with(&format!("0 after {}: ", second.moves[0])), "{language}: {joined:?}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn samples_describe_themselves() {
    let expected = Identity { name: "Random Player".to_string(), author: Some("Arbiter sample bots".to_string()), details: Vec::new() };
    for interface in ["gomoku-file", "gomoku-console"] {
        for language in ["python", "c"] {
            let BotSpec::Program(bot) = sample(interface, language) else { unreachable!() };
            let workdir = tempfile::tempdir().unwrap();
            let identity = describe(&bot, workdir.path()).await.map_err(|err| err.to_string());
            assert_eq!(identity, Ok(Some(expected.clone())), "{interface} {language}");
        }
    }
}

/// Picks the first empty cell of the field file `$2` and writes it into `$3`.
const FIRST_EMPTY: &str = r#"awk '!done && (i = index($0, ".")) { print substr("ABCDEFGHIJ", i, 1) (NR - 1); done = 1 }' "$2" > "$3""#;

#[tokio::test(flavor = "multi_thread")]
async fn file_workdir_persists_across_moves() {
    let script = format!("n=$(cat count 2>/dev/null || echo 0)\nn=$((n + 1))\necho $n > count\necho \"move $n\" >&2\n{FIRST_EMPTY}\n");
    let (_dir, bot) = temp_script_bot("gomoku-file", &script);
    for (seed, seat) in [(50, 0), (51, 1)] {
        let bots = if seat == 0 { [&bot, &random()] } else { [&random(), &bot] };
        let record = play(&setup(seed, 2000), bots).await;
        assert_eq!(record.result.termination, Termination::Rules);
        let logs = logs(&record, seat);
        assert!(logs.len() >= 5, "{logs:?}");
        for (idx, log) in logs.iter().enumerate() {
            assert_eq!(*log, format!("move {}\n", idx + 1));
        }
    }
}

/// Plays a misbehaving script as side 1 against the random player and checks the
/// termination's kind and detail, that none of its processes survived, and that the next
/// game is normal.
async fn loses(protocol: &str, script: &str, kind: &str, detail: &str) {
    let script = format!("echo $$ >> {{dir}}/pids\n{script}");
    let (dir, bot) = temp_script_bot(protocol, &script);
    // Tight only where the timeout is the thing tested: a loaded machine must never turn
    // a crash or a bad answer into a timeout.
    let move_ms = if kind == "timeout" { 300 } else { 30_000 };
    let record = play(&setup(60, move_ms), [&random(), &bot]).await;
    let termination = &record.result.termination;
    assert_eq!(termination.kind(), kind, "{script}: {termination:?}");
    assert_eq!(termination.side().map(|side| side.index()), Some(1));
    assert_eq!(record.result.winner, Some(0));
    let text = format!("{termination:?}");
    assert!(text.contains(detail), "{script}: {text} lacks {detail:?}");
    assert_none_left(dir.path()).await;
    let good = sample(protocol, "c");
    let next = play(&setup(61, 30_000), [&good, &random()]).await;
    assert_eq!(next.result.termination, Termination::Rules);
}

#[tokio::test(flavor = "multi_thread")]
async fn file_faults() {
    let file = "gomoku-file";
    loses(file, "exit 0", "protocol-error", "exited without writing answer.txt").await;
    loses(file, ": > \"$3\"", "protocol-error", "answer.txt is empty").await;
    loses(file, "echo 'hello world' > \"$3\"", "protocol-error", "answer.txt holds \\\"hello world\\\\n\\\"").await;
    loses(file, "mkdir \"$3\"", "protocol-error", "answer.txt is not a plain file").await;
    loses(file, "echo K3 > \"$3\"", "illegal-move", "K3").await;
    let occupied = r#"awk '!done && (i = match($0, /[X0]/)) { print substr("ABCDEFGHIJ", i, 1) (NR - 1); done = 1 }' "$2" > "$3""#;
    loses(file, occupied, "illegal-move", "occupied").await;
    loses(file, &format!("{FIRST_EMPTY}\nsleep 30 &\necho $! >> {{dir}}/pids\nwait"), "timeout", "out of time (0.300 s per move)").await;
    loses(file, &format!("{FIRST_EMPTY}\nexit 1"), "crash", "exited with status 1").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn console_faults() {
    let console = "gomoku-console";
    loses(console, "echo hello\nsleep 30", "protocol-error", "sent \\\"hello\\\"").await;
    loses(console, "echo 'step! here'\nsleep 30", "protocol-error", "not step! with a move").await;
    loses(console, "echo 'step! K3'\nsleep 30", "illegal-move", "K3").await;
    let occupied = "echo step?\nread last\necho \"step! $last\"\nsleep 30";
    loses(console, occupied, "illegal-move", "occupied").await;
    let silent = "echo step?\nread last\nsleep 30 &\necho $! >> {dir}/pids\nwait";
    loses(console, silent, "timeout", "out of time (0.300 s per move)").await;
    loses(console, "echo figure?\nread figure\nexit 0", "crash", "exited before its move").await;
    loses(console, "echo figure?\nread figure\nexit 3", "crash", "exited with status 3 before its move").await;
    loses(console, "head -c 5000 /dev/zero | tr '\\0' x\nsleep 30", "protocol-error", "more than 1024 bytes").await;
}

/// Asks `field?`, reads the field and sets `move` to its first empty cell.
const ASK_FIRST_EMPTY: &str = r#"
  echo field?
  move=""
  for row in 0 1 2 3 4 5 6 7 8 9; do
    read line
    if [ -z "$move" ]; then
      rest=${line%%.*}
      if [ ${#rest} -lt 10 ]; then move="$(echo ABCDEFGHIJ | cut -c$(( ${#rest} + 1 )))$row"; fi
    fi
  done
"#;

#[tokio::test(flavor = "multi_thread")]
async fn console_bot_is_told_the_game() {
    // Asks everything, `step?` twice, and plays the first empty cell.
    let script = format!(
        r#"
while true; do
  echo figure?; read figure
  echo step?; read last
  echo step?; read again
  [ "$last" = "$again" ] || {{ echo "step? changed: $last $again"; exit 1; }}
  {ASK_FIRST_EMPTY}
  echo "$figure $last" >&2
  echo "step! $move"
done
"#
    );
    let (_dir, bot) = temp_script_bot("gomoku-console", &script);
    let record = play(&setup(70, 30_000), [&random(), &bot]).await;
    assert_eq!(record.result.termination, Termination::Rules, "{:?}", record.result);
    let expected: String = record
        .turns
        .iter()
        .enumerate()
        .filter(|(_, turn)| turn.side == 1)
        .map(|(idx, _)| format!("0 {}\n", record.moves[idx - 1]))
        .collect();
    assert_eq!(logs(&record, 1).concat(), expected);
    let record = play(&setup(71, 30_000), [&bot, &random()]).await;
    assert_eq!(record.result.termination, Termination::Rules, "{:?}", record.result);
    assert!(logs(&record, 0).concat().starts_with("X --\n"));
}

#[tokio::test(flavor = "multi_thread")]
async fn console_move_is_timed_from_the_answer_to_step() {
    // Thinks 2 s before `step?` and 2 s after it in its first turn, 3 s per move: a
    // second left for the rest of the move even on a loaded machine, and 4 s moving
    // first is past the limit however fast the machine.
    let script = format!(
        r#"
turn=0
while true; do
  turn=$((turn + 1))
  [ $turn = 1 ] && sleep 2
  echo step?; read last
  [ $turn = 1 ] && sleep 2
  {ASK_FIRST_EMPTY}
  echo "step! $move"
done
"#
    );
    let (_dir, bot) = temp_script_bot("gomoku-console", &script);
    // Moving second, its clock starts again at the answer that tells X's first move.
    let record = play(&setup(80, 3000), [&random(), &bot]).await;
    assert_eq!(record.result.termination, Termination::Rules, "{:?}", record.result);
    // Moving first there is no move to wait for: timed from the process start.
    let record = play(&setup(81, 3000), [&bot, &random()]).await;
    assert_eq!(record.result.termination.kind(), "timeout", "{:?}", record.result);
    assert_eq!(record.result.termination.side().map(|side| side.index()), Some(0));
}

#[tokio::test(flavor = "multi_thread")]
async fn faulty_descriptions() {
    let cases = [
        ("gomoku-file", "exit 0", "exited without writing answer.txt"),
        ("gomoku-file", "printf '\\nMSU\\n' > \"$3\"", "has no name"),
        ("gomoku-console", "exit 2", "exited with status 2"),
        ("gomoku-console", "true", "has no name"),
    ];
    for (protocol, script, detail) in cases {
        let (_dir, bot) = temp_script_bot(protocol, script);
        let BotSpec::Program(bot) = bot else { unreachable!() };
        let workdir = tempfile::tempdir().unwrap();
        let fault = describe(&bot, workdir.path()).await.unwrap_err();
        assert!(fault.to_string().contains(detail), "{protocol} {script}: {fault:?}");
    }
    let (_dir, bot) = temp_script_bot("gomoku-console", "echo Solo");
    let BotSpec::Program(bot) = bot else { unreachable!() };
    let workdir = tempfile::tempdir().unwrap();
    assert_eq!(
        describe(&bot, workdir.path()).await.map_err(|err| err.to_string()),
        Ok(Some(Identity { name: "Solo".to_string(), author: None, details: Vec::new() }))
    );
}
