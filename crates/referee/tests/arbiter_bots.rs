//! The project's own interface (`arbiter`): the Python and C sample bots play complete
//! games of every game against the built-in random player in both seats, and small
//! scripts that misbehave on purpose lose with the right termination, leave no process
//! behind, and do not disturb the next game.

mod common;

use std::path::Path;
use std::time::Duration;

use common::{bots_dir, is_gone, play, random, sample};
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;
use referee::{BotSpec, GameRecord, GameSetup, ProgramBot, Termination};
use rules::{GameKind, Options};

fn options(kind: GameKind) -> Options {
    match kind {
        GameKind::Legions => [("size".to_string(), "7".to_string())].into(),
        _ => Options::new(),
    }
}

fn setup(kind: GameKind, seed: u64) -> GameSetup {
    let options = options(kind);
    let start = kind.random_start(&options, &mut ChaCha8Rng::seed_from_u64(seed)).expect("options are valid");
    let pos = kind.new_position(&options, start.as_deref()).expect("a start position");
    GameSetup::new(pos, options, seed)
}

/// A manifest for `kind` in `dir` whose command is `command`.
fn manifest(dir: &Path, kind: GameKind, name: &str, command: &[String]) -> BotSpec {
    let quoted: Vec<String> = command.iter().map(|part| format!("{part:?}")).collect();
    let text = format!("name = {name:?}\ngame = \"{kind}\"\nprotocol = \"arbiter\"\ncommand = [{}]\n", quoted.join(", "));
    let path = dir.join(format!("{name}-{kind}.toml"));
    std::fs::write(&path, text).expect("write manifest");
    BotSpec::from_arg(path.to_str().expect("utf-8 path")).expect("a valid manifest")
}

fn path_text(path: &Path) -> String {
    std::fs::canonicalize(path).expect("path exists").to_string_lossy().into_owned()
}

/// Plays every game in both seats against random: normal ends, the bot's debug lines kept.
async fn plays_every_game(name: &str, command: &[String]) {
    let dir = tempfile::tempdir().expect("temp dir");
    for (idx, kind) in GameKind::ALL.into_iter().enumerate() {
        let bot = manifest(dir.path(), kind, name, command);
        for bot_side in [0, 1] {
            let random = random();
            let bots = if bot_side == 0 { [&bot, &random] } else { [&random, &bot] };
            let record = play(&setup(kind, 10 + idx as u64), bots).await;
            assert_eq!(record.result.termination, Termination::Rules, "{name} {kind} side {bot_side}");
            let log: String = record.turns.iter().filter(|t| t.side == bot_side).map(|t| t.stderr.as_str()).collect();
            assert!(log.contains("playing"), "{name} {kind}: the debug log is kept: {log:?}");
            assert_eq!(record.players[bot_side].protocol.as_deref(), Some("arbiter"));
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn python_sample_plays_every_game_in_both_seats() {
    let script = path_text(&bots_dir("arbiter").join("python/random_bot.py"));
    plays_every_game("random-py", &["python3".to_string(), script]).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn c_sample_plays_every_game_in_both_seats() {
    let BotSpec::Program(bot) = sample("arbiter", "c") else {
        panic!("a program bot");
    };
    bot.build_if_needed(false).await.expect("the C sample builds");
    let program = path_text(&bots_dir("arbiter").join("c/random"));
    plays_every_game("random-c", &[program]).await;
}

/// A Python script speaking the handshake, then `on_go` (Python statements) at each `go`.
fn script(dir: &Path, name: &str, on_go: &str) -> Vec<String> {
    let text = format!(
        "import os, subprocess, sys, time\n\
         open('pids', 'a').write('%d\\n' % os.getpid())\n\
         for line in sys.stdin:\n\
         \x20   line = line.strip()\n\
         \x20   if line.startswith('arbiter'):\n\
         \x20       print('name {name}\\nready', flush=True)\n\
         \x20   elif line == 'go':\n\
         {on_go}\n"
    );
    let path = dir.join(format!("{name}.py"));
    std::fs::write(&path, text).expect("write script");
    vec!["python3".to_string(), path_text(&path)]
}

fn go_body(lines: &[&str]) -> String {
    lines.iter().map(|line| format!("        {line}")).collect::<Vec<_>>().join("\n")
}

/// Plays `kind` with the faulty bot at `side` against random, checks that no process
/// it wrote into its `pids` file survives, and returns the record.
async fn faulty_game(kind: GameKind, bot: &BotSpec, side: usize, tweak: impl FnOnce(&mut GameSetup)) -> GameRecord {
    let root = tempfile::tempdir().expect("temp dir");
    let mut setup = setup(kind, 7);
    setup.workdir_root = Some(root.path().to_path_buf());
    tweak(&mut setup);
    let random = random();
    let bots = if side == 0 { [bot, &random] } else { [&random, bot] };
    let record = play(&setup, bots).await;
    let pids = std::fs::read_to_string(root.path().join(format!("side-{side}/pids"))).unwrap_or_default();
    for pid in pids.lines().filter_map(|line| line.trim().parse::<u32>().ok()) {
        // A killed process may take the kernel a moment to take down: 2 s at most.
        assert!(is_gone(pid, common::GONE).await, "process {pid} of the bot survived the game");
    }
    record
}

/// After a fault, the next game with a well-behaved bot is normal.
async fn next_game_is_normal() {
    let dir = tempfile::tempdir().expect("temp dir");
    let script = path_text(&bots_dir("arbiter").join("python/random_bot.py"));
    let bot = manifest(dir.path(), GameKind::Connect4, "random-py", &["python3".to_string(), script]);
    let record = play(&setup(GameKind::Connect4, 3), [&bot, &random()]).await;
    assert_eq!(record.result.termination, Termination::Rules);
}

fn detail(termination: &Termination) -> &str {
    match termination {
        Termination::Rules => "",
        Termination::Timeout { detail, .. }
        | Termination::IllegalMove { detail, .. }
        | Termination::Crash { detail, .. }
        | Termination::ProtocolError { detail, .. }
        | Termination::Adjudicated { detail, .. } => detail,
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn garbage_is_a_protocol_error() {
    let dir = tempfile::tempdir().unwrap();
    let bot = manifest(
        dir.path(),
        GameKind::Connect4,
        "garbage",
        &script(dir.path(), "garbage", &go_body(&["print('hello there', flush=True)"])),
    );
    let record = faulty_game(GameKind::Connect4, &bot, 1, |_| {}).await;
    assert!(matches!(record.result.termination, Termination::ProtocolError { side: 1, .. }), "{:?}", record.result.termination);
    assert!(detail(&record.result.termination).contains("\"hello there\""), "{:?}", record.result.termination);
    assert_eq!(record.result.winner, Some(0));
    next_game_is_normal().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unreadable_move_is_a_protocol_error_and_an_illegal_one_an_illegal_move() {
    let dir = tempfile::tempdir().unwrap();
    let bot = manifest(
        dir.path(),
        GameKind::Connect4,
        "unreadable",
        &script(dir.path(), "unreadable", &go_body(&["print('move left', flush=True)"])),
    );
    let record = faulty_game(GameKind::Connect4, &bot, 0, |_| {}).await;
    assert!(matches!(record.result.termination, Termination::ProtocolError { side: 0, .. }), "{:?}", record.result.termination);
    let bot =
        manifest(dir.path(), GameKind::Connect4, "illegal", &script(dir.path(), "illegal", &go_body(&["print('move 9', flush=True)"])));
    let record = faulty_game(GameKind::Connect4, &bot, 0, |_| {}).await;
    assert!(matches!(record.result.termination, Termination::IllegalMove { side: 0, .. }), "{:?}", record.result.termination);
    assert!(detail(&record.result.termination).contains("no column 9"), "{:?}", record.result.termination);
    // Pah-tum scores a forfeit: the opponent gets 1666.
    let bot =
        manifest(dir.path(), GameKind::Pahtum, "occupied", &script(dir.path(), "occupied", &go_body(&["print('move A1', flush=True)"])));
    let record = faulty_game(GameKind::Pahtum, &bot, 0, |_| {}).await;
    assert!(!matches!(record.result.termination, Termination::Rules), "{:?}", record.result.termination);
    assert_eq!(record.result.scores.map(|s| s[1]), Some(1666));
    next_game_is_normal().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn never_answering_is_a_timeout_and_kills_its_children() {
    let dir = tempfile::tempdir().unwrap();
    let body = go_body(&["child = subprocess.Popen(['sleep', '60'])", "open('pids', 'a').write('%d\\n' % child.pid)", "time.sleep(60)"]);
    let bot = manifest(dir.path(), GameKind::Gomoku, "silent", &script(dir.path(), "silent", &body));
    let record = faulty_game(GameKind::Gomoku, &bot, 1, |setup| setup.limits[1].move_time = Some(Duration::from_millis(300))).await;
    assert!(matches!(record.result.termination, Termination::Timeout { side: 1, .. }), "{:?}", record.result.termination);
    assert!(detail(&record.result.termination).contains("0.300 s per move"), "{:?}", record.result.termination);
    next_game_is_normal().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn exiting_early_is_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    let bot = manifest(dir.path(), GameKind::Nupud, "quitter", &script(dir.path(), "quitter", &go_body(&["sys.exit(3)"])));
    let record = faulty_game(GameKind::Nupud, &bot, 0, |_| {}).await;
    assert!(matches!(record.result.termination, Termination::Crash { side: 0, .. }), "{:?}", record.result.termination);
    assert!(detail(&record.result.termination).contains("exited with status 3"), "{:?}", record.result.termination);
    next_game_is_normal().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_missing_handshake_is_a_protocol_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nohello.py");
    std::fs::write(&path, "import os, sys\nopen('pids', 'a').write('%d\\n' % os.getpid())\nsys.stdin.readline()\nprint('move 3', flush=True)\nsys.stdin.read()\n").unwrap();
    let bot = manifest(dir.path(), GameKind::Connect4, "nohello", &["python3".to_string(), path_text(&path)]);
    let record = faulty_game(GameKind::Connect4, &bot, 1, |_| {}).await;
    assert!(matches!(record.result.termination, Termination::ProtocolError { side: 1, .. }), "{:?}", record.result.termination);
    assert!(detail(&record.result.termination).contains("\"move 3\""), "{:?}", record.result.termination);
    assert!(record.turns.is_empty(), "the game ends before the first move");
    next_game_is_normal().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn burning_the_cpu_budget_is_a_timeout() {
    let dir = tempfile::tempdir().unwrap();
    // Two burning children beside the bot: the budget counts the whole process group, and
    // three burners use it up well before the wall-clock guard of the same length.
    let body = go_body(&[
        "for _ in range(2):",
        "    child = subprocess.Popen([sys.executable, '-c', 'while True: pass'])",
        "    open('pids', 'a').write('%d\\n' % child.pid)",
        "while True:",
        "    pass",
    ]);
    let bot = manifest(dir.path(), GameKind::Connect4, "burner", &script(dir.path(), "burner", &body));
    let record = faulty_game(GameKind::Connect4, &bot, 0, |setup| {
        setup.limits[0].game_cpu = Some(Duration::from_millis(300));
        setup.limits[0].move_time = None;
    })
    .await;
    assert!(matches!(record.result.termination, Termination::Timeout { side: 0, .. }), "{:?}", record.result.termination);
    // The wall-clock guard is twice the CPU time left plus a second: the CPU budget
    // runs out first even on a busy machine.
    assert!(detail(&record.result.termination).contains("out of CPU time"), "{:?}", record.result.termination);
    next_game_is_normal().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn describe_reads_the_handshake() {
    let dir = tempfile::tempdir().unwrap();
    let script = path_text(&bots_dir("arbiter").join("python/random_bot.py"));
    let BotSpec::Program(bot) = manifest(dir.path(), GameKind::Gomoku, "random-py", &["python3".to_string(), script]) else {
        panic!("a program bot");
    };
    let bot: ProgramBot = *bot;
    let identity = referee::drivers::describe(&bot, dir.path()).await.expect("describes itself").expect("has a name");
    assert_eq!(identity.name, "random-py");
    assert_eq!(identity.author.as_deref(), Some("Arbiter sample bots"));
}
