//! What a bot did before it died is kept and shown; records are never overwritten and
//! `verify` reads their game and options; the referee's own failures (no temporary
//! folder, out of descriptors) are retried and never charged to a bot; a tournament stops
//! in order on SIGTERM and SIGHUP, and the game folders of a killed run are removed at
//! the next start, those of live runs never. Everything through the real `arbiter`.

mod common;

use common::arbiter;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

const ARBITER: &str = env!("CARGO_BIN_EXE_arbiter");

/// A Python program with a syntax error.
const BROKEN_PYTHON: &str = "import sys\n\ndef f(:\n    pass\n";

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A bot folder with a manifest and one program file.
fn bot(dir: &Path, name: &str, game: &str, protocol: &str, command: &str, file: (&str, &str)) -> PathBuf {
    let folder = dir.join(name);
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(
        folder.join("bot.toml"),
        format!("name = \"{name}\"\ngame = \"{game}\"\nprotocol = \"{protocol}\"\ncommand = {command}\n"),
    )
    .unwrap();
    std::fs::write(folder.join(file.0), file.1).unwrap();
    folder
}

/// What Python itself says about the broken program, run directly (the answer the
/// records must hold, found without Arbiter).
fn python_says(program: &Path) -> String {
    let out = Command::new("python3").arg(program).output().expect("python3 runs");
    assert!(!out.status.success());
    let said = text(&out.stderr);
    assert!(said.contains("SyntaxError"), "{said}");
    said
}

#[test]
fn a_syntax_errors_traceback_is_in_the_record_and_shown() {
    let dir = tempfile::tempdir().unwrap();
    // One process per game (the project's protocol): it dies before its handshake.
    let persistent = bot(dir.path(), "broken", "connect4", "arbiter", "[\"python3\", \"./bot.py\"]", ("bot.py", BROKEN_PYTHON));
    let expected = python_says(&persistent.join("bot.py"));
    let records = dir.path().join("records");
    let out = arbiter(&[
        "play",
        "connect4",
        persistent.to_str().unwrap(),
        "random",
        "--seed",
        "1",
        "--show",
        "--record",
        records.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let shown = text(&out.stdout);
    assert!(shown.contains("broken failed to start; its stderr:"), "{shown}");
    for line in expected.lines() {
        assert!(shown.contains(&format!("   | {line}")), "{line:?} is not in:\n{shown}");
    }
    let record: Value = serde_json::from_str(&std::fs::read_to_string(records.join("game-0001.json")).unwrap()).unwrap();
    assert_eq!(record["startup"][0]["side"], 0);
    assert_eq!(record["startup"][0]["stderr"], expected.as_str());
    assert_eq!(record["result"]["termination"]["kind"], "crash");
    assert_eq!(record["result"]["termination"]["side"], 0);
    let detail = record["result"]["termination"]["detail"].as_str().unwrap();
    assert!(detail.contains("exited with status 1"), "{detail}");
    assert_eq!(record["turns"], Value::Array(Vec::new()));
    // The same through the Connect Four interface, which waits for a connection.
    let client = bot(dir.path(), "broken-tcp", "connect4", "connect4-tcp", "[\"python3\", \"./bot.py\"]", ("bot.py", BROKEN_PYTHON));
    let out = arbiter(&["play", "connect4", "random", client.to_str().unwrap(), "--record", records.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("broken-tcp failed to start; its stderr:"), "{}", text(&out.stdout));
    let record: Value = serde_json::from_str(&std::fs::read_to_string(records.join("game-0002.json")).unwrap()).unwrap();
    assert_eq!(record["startup"][0]["side"], 1);
    assert_eq!(record["startup"][0]["stderr"], python_says(&client.join("bot.py")).as_str());
    assert_eq!(record["result"]["termination"]["side"], 1);

    // `info` shows it too, and fails with one line.
    let out = arbiter(&["info", persistent.to_str().unwrap()]);
    assert!(!out.status.success());
    let shown = text(&out.stdout);
    for line in expected.lines() {
        assert!(shown.contains(&format!("   | {line}")), "{line:?} is not in:\n{shown}");
    }
    let err = text(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("arbiter: the bot did not describe itself: during the handshake: exited with status 1"), "{err}");

    // One process per move (Legions): the traceback is the failed turn's stderr.
    let per_move = bot(dir.path(), "broken-legions", "legions", "legions", "[\"python3\", \"./bot.py\"]", ("bot.py", BROKEN_PYTHON));
    let expected = python_says(&per_move.join("bot.py"));
    let out = arbiter(&["play", "legions", per_move.to_str().unwrap(), "random", "-o", "size=5", "--record", records.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let record: Value = serde_json::from_str(&std::fs::read_to_string(records.join("game-0003.json")).unwrap()).unwrap();
    assert_eq!(record["turns"][0]["stderr"], expected.as_str());
    assert_eq!(record["result"]["termination"]["detail"], "exited with status 1");
    let out = arbiter(&["info", per_move.to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(text(&out.stdout).contains("   | SyntaxError: invalid syntax"), "{}", text(&out.stdout));
}

/// The records in `dir`, by file name.
fn records_in(dir: &Path) -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| {
            let entry = entry.unwrap();
            (entry.file_name().to_string_lossy().into_owned(), std::fs::read_to_string(entry.path()).unwrap())
        })
        .collect();
    files.sort();
    files
}

fn seed_of(record: &str) -> u64 {
    serde_json::from_str::<Value>(record).unwrap()["seed"].as_u64().unwrap()
}

#[test]
fn record_runs_into_one_folder_keep_every_game() {
    let dir = tempfile::tempdir().unwrap();
    let records = dir.path().join("games");
    let play = |seed: &str, games: &str| {
        Command::new(ARBITER)
            .args(["play", "connect4", "random", "greedy", "-n", games, "--seed", seed, "--record", records.to_str().unwrap()])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let first = play("1", "2").wait_with_output().unwrap();
    assert!(first.status.success(), "{}", text(&first.stderr));
    assert!(text(&first.stdout).contains(&format!("2 records written to {}: game-0001.json to game-0002.json", records.display())));
    let before = records_in(&records);
    assert_eq!(before.iter().map(|(name, _)| name.as_str()).collect::<Vec<_>>(), ["game-0001.json", "game-0002.json"]);

    let second = play("2", "2").wait_with_output().unwrap();
    assert!(second.status.success(), "{}", text(&second.stderr));
    assert!(text(&second.stdout).contains(&format!("2 records written to {}: game-0003.json to game-0004.json", records.display())));
    let after = records_in(&records);
    assert_eq!(after.len(), 4);
    assert_eq!(after[..2], before[..], "the first run's records are untouched");

    // A gap: numbering goes on after the highest number.
    std::fs::rename(records.join("game-0004.json"), records.join("game-0010.json")).unwrap();
    let third = play("3", "1").wait_with_output().unwrap();
    assert!(text(&third.stdout).contains(&format!("record written to {}", records.join("game-0011.json").display())));

    // Two runs at once: every game of both is kept, each in a file of its own.
    let (a, b) = (play("4", "4"), play("5", "4"));
    let (a, b) = (a.wait_with_output().unwrap(), b.wait_with_output().unwrap());
    assert!(a.status.success() && b.status.success(), "{} {}", text(&a.stderr), text(&b.stderr));
    let all = records_in(&records);
    assert_eq!(all.len(), 5 + 8);
    // Each run's games (their seeds, as a run without --record reports them) are all in
    // files.
    for (out, seed) in [(&a, 4), (&b, 5)] {
        let json = Command::new(ARBITER)
            .args(["play", "connect4", "random", "greedy", "-n", "4", "--seed", &seed.to_string(), "--json"])
            .output()
            .unwrap();
        let summary: Value = serde_json::from_slice(&json.stdout).unwrap();
        let mut expected: Vec<u64> = summary["games"].as_array().unwrap().iter().map(|g| g["seed"].as_u64().unwrap()).collect();
        expected.sort();
        let said = text(&out.stdout);
        assert!(said.contains("4 records written to"), "{said}");
        let mut stored: Vec<u64> = all.iter().filter(|(_, r)| expected.contains(&seed_of(r))).map(|(_, r)| seed_of(r)).collect();
        stored.sort();
        assert_eq!(stored, expected, "every game of the run with seed {seed} is in a file");
    }
}

#[test]
fn verify_reads_a_records_game_and_options() {
    let dir = tempfile::tempdir().unwrap();
    let records = dir.path().join("games");
    let out =
        arbiter(&["play", "legions", "greedy", "random", "-o", "size=7", "-n", "2", "--seed", "9", "--record", records.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let lines: Vec<String> = records_in(&records).into_iter().map(|(_, record)| record).collect();
    let input = lines.concat();
    let verify = |args: &[&str], input: &str| {
        use std::io::Write;
        let mut child =
            Command::new(ARBITER).args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
        text(&out.stdout).lines().map(|line| serde_json::from_str::<Value>(line).unwrap()).collect::<Vec<_>>()
    };
    // Without -o: the record's own size, and the result the referee recorded.
    let verdicts = verify(&["verify", "legions"], &input);
    assert_eq!(verdicts.len(), 2);
    for (verdict, line) in verdicts.iter().zip(&lines) {
        let record: Value = serde_json::from_str(line).unwrap();
        assert_eq!(record["options"]["size"], "7");
        assert_eq!(verdict["status"], "over", "{verdict}");
        assert_eq!(verdict["winner"], record["result"]["winner"]);
        assert_eq!(verdict["scores"], record["result"]["scores"]);
    }
    // The same as the moves alone with -o size=7.
    let bare: String = lines
        .iter()
        .map(|line| {
            let record: Value = serde_json::from_str(line).unwrap();
            format!("{}\n", serde_json::json!({ "moves": record["moves"] }))
        })
        .collect();
    assert_eq!(verify(&["verify", "legions", "-o", "size=7"], &bare), verdicts);
    assert_eq!(verify(&["verify", "legions", "-o", "size=7"], &input), verdicts, "-o that agrees with the record");
    // A record of another game, or of other options: refused, one line each.
    let refused = verify(&["verify", "gomoku"], &input);
    assert_eq!(refused.len(), 2);
    for verdict in &refused {
        assert_eq!(verdict["status"], "invalid");
        assert_eq!(verdict["error"], "a record of legions, not of gomoku: verify it with `arbiter verify legions`");
    }
    for verdict in verify(&["verify", "legions", "-o", "size=9"], &input) {
        assert_eq!(verdict["error"], "the record was played with size=7, not size=9 as -o says");
    }
}

/// A Legions bot that thinks for a while and plays no orders (a legal turn); it
/// leaves no process behind when the referee dies.
fn slow_legions_bot(dir: &Path) -> PathBuf {
    bot(dir, "slow", "legions", "legions", "[\"sh\", \"./bot.sh\"]", ("bot.sh", "cat > /dev/null\nsleep 0.2\n"))
}

/// A round robin of `bots` (names and bot arguments), one deal with the sides swapped.
fn config(dir: &Path, game: &str, options: &str, bots: &[(&str, String)]) -> PathBuf {
    let mut text = format!("name = \"faults\"\ngame = \"{game}\"\nseed = 3\n{options}\n");
    for (name, bot) in bots {
        text.push_str(&format!("[[entrant]]\nname = \"{name}\"\nbot = \"{bot}\"\n"));
    }
    text.push_str("[[stage]]\nname = \"league\"\nformat = \"round-robin\"\ndeals = 1\nscoring = \"game-1-half-0\"\n");
    let path = dir.join(format!("{game}.toml"));
    std::fs::write(&path, text).unwrap();
    path
}

fn legions_config(dir: &Path) -> PathBuf {
    let slow = slow_legions_bot(dir);
    config(
        dir,
        "legions",
        "[options]\nsize = 3",
        &[("slow", slow.display().to_string()), ("greedy", "greedy".to_string()), ("random", "random".to_string())],
    )
}

fn tournament(config: &Path, db: &Path, tmp: &Path) -> Command {
    let mut cmd = Command::new(ARBITER);
    cmd.args(["tournament", config.to_str().unwrap(), "--db", db.to_str().unwrap(), "-j", "2", "--no-sandbox"]);
    cmd.env("TMPDIR", tmp).stdout(Stdio::null()).stderr(Stdio::piped());
    cmd
}

/// The stored games' records (none while the file is being set up).
fn stored(db: &Path) -> Vec<Value> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let Ok(store) = store::Store::open_read_only(db).await else { return Vec::new() };
        let Ok(games) = store.games().await else { return Vec::new() };
        let mut records = Vec::new();
        for game in games {
            let record = store.game_record(&game.spec.key).await.unwrap().expect("a stored game has its record");
            records.push(serde_json::from_str(&record).unwrap());
        }
        records
    })
}

/// Every stored game ended by the rules: none is charged to a bot.
fn assert_all_by_the_rules(db: &Path) {
    for record in stored(db) {
        assert_eq!(record["result"]["termination"]["kind"], "rules", "{}", record["result"]);
    }
}

fn game_folders(tmp: &Path) -> Vec<PathBuf> {
    let mut folders: Vec<PathBuf> = std::fs::read_dir(tmp)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.file_name().unwrap().to_string_lossy().starts_with("arbiter-game-"))
        .collect();
    folders.sort();
    folders
}

/// Polls `done` every 10 ms for up to 60 s.
fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let began = Instant::now();
    while !done() {
        assert!(began.elapsed() < Duration::from_secs(60), "waited 60 s for {what}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn finish(child: Child) -> (std::process::ExitStatus, String) {
    let out = child.wait_with_output().unwrap();
    (out.status, text(&out.stderr))
}

#[test]
fn a_missing_temporary_folder_is_retried_and_charged_to_nobody() {
    let dir = tempfile::tempdir().unwrap();
    let bot = bot(
        dir.path(),
        "program",
        "connect4",
        "arbiter",
        &format!("[\"{ARBITER}\", \"bot\", \"greedy\", \"--seed\", \"1\"]"),
        ("README", ""),
    );
    let config = config(dir.path(), "connect4", "", &[("program", bot.display().to_string()), ("random", "random".to_string())]);
    let db = dir.path().join("t.db");
    let missing = dir.path().join("missing");
    let (status, err) = finish(tournament(&config, &db, &missing).spawn().unwrap());
    assert!(!status.success());
    for attempt in [2, 3] {
        assert!(err.contains(&format!("trying again in {} s (attempt {attempt} of 3)", 1 << (attempt - 2))), "{err}");
    }
    assert!(err.contains("was not played, by the referee's fault (not a bot's): cannot make the game's working folder"), "{err}");
    let last = err.lines().last().unwrap();
    assert!(last.starts_with("arbiter: the referee failed to play game s0/"), "{last}");
    assert!(last.contains("3 times (not a bot's fault): cannot make the game's working folder"), "{last}");
    assert!(last.ends_with("run the same command to resume once that is fixed"), "{last}");
    assert_eq!(stored(&db).len(), 0, "no game is stored, none charged to a bot");

    // Once the folder is there, the same command plays every game, by the rules.
    std::fs::create_dir(&missing).unwrap();
    let (status, err) = finish(tournament(&config, &db, &missing).spawn().unwrap());
    assert!(status.success(), "{err}");
    assert_eq!(stored(&db).len(), 2);
    assert_all_by_the_rules(&db);
    assert_eq!(game_folders(&missing), Vec::<PathBuf>::new());
}

#[test]
fn no_descriptor_limit_charges_a_bot() {
    let dir = tempfile::tempdir().unwrap();
    let bot = bot(
        dir.path(),
        "program",
        "connect4",
        "arbiter",
        &format!("[\"{ARBITER}\", \"bot\", \"greedy\", \"--seed\", \"1\"]"),
        ("README", ""),
    );
    let config = config(dir.path(), "connect4", "", &[("program", bot.display().to_string()), ("random", "random".to_string())]);
    // From too few descriptors to open the database up to enough for the whole run:
    // whatever the limit, no stored game is charged to a bot, and a run that falls short
    // says it was the referee.
    let mut retried = false;
    let mut completed = false;
    for limit in 8..64 {
        let db = dir.path().join(format!("limit-{limit}.db"));
        let mut cmd = Command::new("sh");
        cmd.args(["-c", &format!("ulimit -n {limit} && exec \"$@\""), "sh", ARBITER, "tournament"]);
        cmd.args([config.to_str().unwrap(), "--db", db.to_str().unwrap(), "-j", "1", "--no-sandbox"]);
        let (status, err) = finish(cmd.stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap());
        assert_all_by_the_rules(&db);
        if status.success() {
            assert_eq!(stored(&db).len(), 2, "limit {limit}: {err}");
            completed = true;
            break;
        }
        if err.contains("trying again") {
            retried = true;
            assert!(err.contains("Too many open files"), "limit {limit}: {err}");
            assert!(err.lines().last().unwrap().contains("(not a bot's fault)"), "limit {limit}: {err}");
        }
    }
    assert!(retried, "some limit made the referee fail and try again");
    assert!(completed, "a limit of 63 descriptors is enough for the run");
}

/// A bot of the project protocol that, asked for its first move, fills its working
/// folder with 20,000 files (slow to remove), leaves a `filled` file there, and thinks
/// for an hour.
const FILLER: &str = r#"import sys, time
for line in sys.stdin:
    if line.startswith("arbiter"):
        print("name filler\nready", flush=True)
    elif line.strip() == "go":
        for i in range(20000):
            open(f"f{i}", "w").close()
        open("filled", "w").close()
        time.sleep(3600)
"#;

#[test]
fn a_stopped_run_ends_only_once_its_games_folders_are_gone() {
    let dir = tempfile::tempdir().unwrap();
    let filler = bot(dir.path(), "filler", "connect4", "arbiter", r#"["python3", "./filler.py"]"#, ("filler.py", FILLER));
    let config = config(
        dir.path(),
        "connect4",
        "[limits]\nmove-ms = 3600000",
        &[("filler", filler.display().to_string()), ("random", "random".to_string())],
    );
    let db = dir.path().join("t.db");
    let tmp = dir.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let child = tournament(&config, &db, &tmp).spawn().unwrap();
    // Both games run at once (-j 2); the filler has filled its folder in one of them.
    let filled = || game_folders(&tmp).iter().any(|game| walk(game).iter().any(|f| f.ends_with("filled")));
    wait_for("a filled folder", filled);
    rustix::process::kill_process(rustix::process::Pid::from_raw(child.id() as i32).unwrap(), rustix::process::Signal::TERM).unwrap();
    let (status, err) = finish(child);
    assert_eq!(status.code(), Some(1), "{err}");
    // The games stopped were dropped on their lanes' threads, which removed their folders
    // before the process ended: nothing of them, not even half removed.
    let left: Vec<String> = std::fs::read_dir(&tmp).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert_eq!(left, Vec::<String>::new(), "{err}");
}

/// Every file under `dir`, at any depth.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}

#[test]
fn sigterm_and_sighup_stop_a_tournament_like_ctrl_c() {
    let dir = tempfile::tempdir().unwrap();
    let config = legions_config(dir.path());
    let db = dir.path().join("t.db");
    let tmp = dir.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    for (signal, name) in [(rustix::process::Signal::TERM, "SIGTERM"), (rustix::process::Signal::HUP, "SIGHUP")] {
        let before = stored(&db).len();
        let child = tournament(&config, &db, &tmp).spawn().unwrap();
        wait_for("a game to be stored", || stored(&db).len() > before);
        let pid = rustix::process::Pid::from_raw(child.id() as i32).unwrap();
        rustix::process::kill_process(pid, signal).unwrap();
        let (status, err) = finish(child);
        assert_eq!(status.code(), Some(1), "{err}");
        let last = err.lines().last().unwrap();
        assert_eq!(
            last,
            format!("arbiter: interrupted by {name}: every finished game is stored in {}; run the same command to resume", db.display())
        );
        assert_eq!(game_folders(&tmp), Vec::<PathBuf>::new(), "the games in progress left no folder");
    }
    let (status, err) = finish(tournament(&config, &db, &tmp).spawn().unwrap());
    assert!(status.success(), "{err}");
    let records = stored(&db);
    assert_eq!(records.len(), 6, "three pairs, two games each");
    assert_all_by_the_rules(&db);
}

#[test]
fn a_killed_runs_folders_go_at_the_next_start_and_live_ones_stay() {
    let dir = tempfile::tempdir().unwrap();
    let config = legions_config(dir.path());
    let tmp = dir.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let db = dir.path().join("killed.db");
    // Killed outright while a game is in progress: its folder stays behind. (A game may
    // end between the look and the kill; then try again.)
    let mut left = Vec::new();
    for _ in 0..20 {
        let mut child = tournament(&config, &db, &tmp).spawn().unwrap();
        wait_for("a game folder", || !game_folders(&tmp).is_empty());
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        left = game_folders(&tmp);
        if !left.is_empty() {
            break;
        }
    }
    assert!(!left.is_empty(), "a killed run left a game folder");
    // The killed run is gone once nothing holds its folders' locks any more: its pid is
    // reaped at once, but the kernel may let its locks go a moment later (under load,
    // /proc/locks still named the dead pid after the wait, about once in 20 runs), and a
    // start before that rightly leaves the folder to a later run.
    for folder in &left {
        let lock = std::fs::File::open(folder.join(".lock")).unwrap();
        wait_for("the killed run's lock to be let go", || lock.try_lock().is_ok());
    }
    // A run killed between making a folder and its lock file leaves it empty, under the
    // name it has while it is made; over a minute old, the next start removes it too.
    let half_made = tmp.join("arbiter-making-killed");
    std::fs::create_dir(&half_made).unwrap();
    std::fs::File::open(&half_made).unwrap().set_modified(std::time::SystemTime::now() - Duration::from_secs(120)).unwrap();

    // The next start (another tournament, its own database) removes them before it
    // makes folders of its own.
    let live_db = dir.path().join("live.db");
    let live = tournament(&config, &live_db, &tmp).spawn().unwrap();
    wait_for("the new run's game folder", || game_folders(&tmp).iter().any(|f| !left.contains(f)));
    for folder in &left {
        assert!(!folder.exists(), "{} is removed", folder.display());
    }
    assert!(!half_made.exists(), "a half-made folder of a dead run is removed");
    // A start while that run plays leaves its folders alone: it plays on by the rules.
    let quick = config_builtins(dir.path());
    let (status, err) = finish(tournament(&quick, &dir.path().join("quick.db"), &tmp).spawn().unwrap());
    assert!(status.success(), "{err}");
    assert!(!err.contains("removed"), "{err}");
    let (status, err) = finish(live);
    assert!(status.success(), "{err}");
    assert!(err.contains(&format!("game folder(s) left in {} by runs that died", tmp.display())), "{err}");
    assert_eq!(stored(&live_db).len(), 6);
    assert_all_by_the_rules(&live_db);

    // The killed run resumes.
    let (status, err) = finish(tournament(&config, &db, &tmp).spawn().unwrap());
    assert!(status.success(), "{err}");
    assert!(!err.contains("removed"), "nothing left to remove: {err}");
    assert_eq!(stored(&db).len(), 6);
    assert_eq!(game_folders(&tmp), Vec::<PathBuf>::new());
}

/// A quick tournament of the built-in players.
fn config_builtins(dir: &Path) -> PathBuf {
    let folder = dir.join("quick");
    std::fs::create_dir_all(&folder).unwrap();
    config(&folder, "connect4", "", &[("greedy", "greedy".to_string()), ("random", "random".to_string())])
}
