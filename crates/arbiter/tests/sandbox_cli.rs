//! The sandbox from the command line: `arbiter sandbox-check` on this machine kind,
//! sample bots of every interface playing under `--sandbox`, `play` sandboxed by default,
//! a tournament bot's build inside the sandbox, `workdir` links and `..` refused, and
//! what a bot writes shown escaped on the terminal.

use std::path::Path;
use std::process::Command;

const ARBITER: &str = env!("CARGO_BIN_EXE_arbiter");

#[test]
fn sandbox_check_reports_every_guarantee_enforced_here() {
    let out = Command::new(ARBITER).arg("sandbox-check").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("system: the machine's /usr"), "the system the bots see comes first:\n{text}");
    for name in [
        "filesystem",
        "own-root",
        "disk-quota",
        "network",
        "syscalls",
        "namespaces",
        "process-visibility",
        "rlimits",
        "environment",
        "lifeline",
        "memory",
        "processes",
        "kill-the-tree",
        "cpu-accounting",
    ] {
        assert!(
            text.contains(&format!("{name}: enforced")),
            "{name} not enforced on this machine kind:\n{text}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert!(out.status.success());
}

#[test]
fn sample_bots_play_inside_the_sandbox() {
    let bots = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bots");
    let cases: &[(&str, &str, &[&str])] = &[
        ("pahtum", "pahtum/c", &[]),
        ("gomoku", "gomoku-file/c", &[]),
        ("gomoku", "gomoku-console/python", &[]),
        ("legions", "legions/c", &["-o", "size=7"]),
        ("nupud", "nupud/python", &[]),
        ("connect4", "connect4-tcp/c", &[]),
        ("connect4", "arbiter/python", &[]),
    ];
    for (game, bot, extra) in cases {
        let bot = bots.join(bot);
        let out = Command::new(ARBITER)
            .args(["play", game, bot.to_str().unwrap(), "random", "--games", "2", "--seed", "4", "--sandbox", "--json"])
            .args(*extra)
            .output()
            .unwrap();
        assert!(out.status.success(), "{game} {}: {}", bot.display(), String::from_utf8_lossy(&out.stderr));
        let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        for g in summary["games"].as_array().unwrap() {
            assert_eq!(g["termination"]["kind"], "rules", "{game} {}: {g}", bot.display());
        }
    }
}

#[test]
fn sandbox_and_no_sandbox_conflict() {
    let out = Command::new(ARBITER).args(["play", "connect4", "random", "random", "--sandbox", "--no-sandbox"]).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--no-sandbox"), "{}", String::from_utf8_lossy(&out.stderr));
}

/// A Pah-tum bot in sh that first runs `attack`, then plays its letter on the first empty
/// square.
fn pahtum_bot(folder: &Path, name: &str, attack: &str) -> String {
    std::fs::create_dir_all(folder).unwrap();
    let play = r#"board=$(cat; echo .); board=${board%.}
x=$(printf '%s' "$board" | tr -cd X | wc -c); o=$(printf '%s' "$board" | tr -cd O | wc -c)
if [ "$x" -eq "$o" ]; then me=X; else me=O; fi
printf '%s' "$board" | sed "0,/-/s//$me/" | head -c 56
"#;
    std::fs::write(folder.join("bot.sh"), format!("{attack}\n{play}")).unwrap();
    std::fs::write(
        folder.join("bot.toml"),
        format!("name = \"{name}\"\ngame = \"pahtum\"\nprotocol = \"pahtum\"\ncommand = [\"sh\", \"./bot.sh\"]\n"),
    )
    .unwrap();
    folder.to_str().unwrap().to_string()
}

fn play(bot: &str, extra: &[&str]) -> std::process::Output {
    Command::new(ARBITER).args(["play", "pahtum", bot, "random", "--seed", "1", "--json"]).args(extra).output().unwrap()
}

/// In the sandbox the moves of a process-per-move bot run in one sandbox kept for the
/// game (its zygote): every move of the seat sees the same PID namespace, and no move
/// sees a process that an earlier move left running.
#[test]
fn a_per_move_bots_moves_share_one_sandbox_but_nothing_they_leave() {
    let dir = tempfile::tempdir().unwrap();
    let attack = r#"n=0; for p in /proc/[0-9]*; do [ "$(cat $p/comm 2>/dev/null)" = sleep ] && n=$((n+1)); done
echo "$(readlink /proc/self/ns/pid) sleeping $n" >&2
sleep 1000 &"#;
    let bot = pahtum_bot(&dir.path().join("leaver"), "leaver", attack);
    let records = dir.path().join("records");
    let out = play(&bot, &["--record", records.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let file = std::fs::read_dir(&records).unwrap().next().expect("a record").unwrap().path();
    let record: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    let said: Vec<String> = record["turns"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|turn| turn["stderr"].as_str())
        .filter(|text| text.starts_with("pid:["))
        .map(|text| text.trim_end().to_string())
        .collect();
    assert!(said.len() >= 10, "the bot's moves: {said:?}");
    let first = said[0].clone();
    assert!(first.ends_with(" sleeping 0"), "{first}");
    assert!(said.iter().all(|line| *line == first), "every move in one namespace, with nothing left running: {said:?}");
}

#[test]
fn play_sandboxes_program_bots_by_default() {
    let dir = tempfile::tempdir().unwrap();
    let outside = dir.path().join("outside");
    let bot = pahtum_bot(&dir.path().join("writer"), "writer", &format!("echo pwned > {} 2>/dev/null", outside.display()));
    let out = play(&bot, &[]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        !out.stderr.windows(7).any(|w| w == b"warning"),
        "this machine enforces every guarantee: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!outside.exists(), "play ran the bot outside the sandbox");
    // With --no-sandbox the same bot runs as it is: the file appears.
    let out = play(&bot, &["--no-sandbox"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "pwned\n");
}

#[test]
fn a_tournament_bots_build_runs_inside_the_sandbox() {
    let dir = tempfile::tempdir().unwrap();
    let outside = dir.path().join("outside");
    let tmp_file = std::env::temp_dir().join(format!("arbiter-build-escape-{}", std::process::id()));
    let folder = dir.path().join("builder");
    pahtum_bot(&folder, "builder", "");
    // The build writes outside its folder (a sibling file, /tmp), then proves it ran by
    // making a file in its own folder.
    let build = format!("echo pwned > {}; echo pwned > {}; echo built > built", outside.display(), tmp_file.display());
    let manifest = std::fs::read_to_string(folder.join("bot.toml")).unwrap();
    std::fs::write(folder.join("bot.toml"), format!("{manifest}build = [\"sh\", \"-c\", {build:?}]\n")).unwrap();
    let config = dir.path().join("t.toml");
    std::fs::write(
        &config,
        format!(
            "name = \"build test\"\ngame = \"pahtum\"\nseed = 3\n[[entrant]]\nname = \"builder\"\nbot = \"{}\"\n[[entrant]]\nname = \"random\"\nbot = \"random\"\n\
             [[stage]]\nname = \"league\"\nformat = \"round-robin\"\ndeals = 1\nscoring = \"game-1-half-0\"\n",
            folder.display()
        ),
    )
    .unwrap();
    let db = dir.path().join("t.sqlite");
    let out =
        Command::new(ARBITER).args(["tournament", config.to_str().unwrap(), "--db", db.to_str().unwrap(), "-j", "1"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::read_to_string(folder.join("built")).unwrap(), "built\n", "the build ran");
    assert!(!outside.exists(), "the build wrote next to its folder");
    assert!(!tmp_file.exists(), "the build wrote into /tmp");
}

#[test]
fn a_workdir_outside_the_bot_or_holding_a_link_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("secret"), "the organiser's secret").unwrap();
    let folder = dir.path().join("linker");
    let bot = pahtum_bot(&folder, "linker", "cat data/secret >&2");
    let manifest = std::fs::read_to_string(folder.join("bot.toml")).unwrap();
    std::fs::create_dir(folder.join("data")).unwrap();
    std::os::unix::fs::symlink(dir.path().join("secret"), folder.join("data/secret")).unwrap();
    std::fs::write(folder.join("bot.toml"), format!("{manifest}workdir = \"data\"\n")).unwrap();
    let out = play(&bot, &["--no-sandbox"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.ends_with("workdir data: secret is a link: links are refused\n"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(!String::from_utf8_lossy(&out.stdout).contains("secret"));
    std::fs::create_dir(dir.path().join("x")).unwrap();
    std::fs::write(folder.join("bot.toml"), format!("{manifest}workdir = \"../x\"\n")).unwrap();
    let out = play(&bot, &["--no-sandbox"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("workdir \"../x\" must be a folder inside the bot's folder"), "{err}");
}

#[test]
fn what_a_bot_writes_is_shown_escaped() {
    let dir = tempfile::tempdir().unwrap();
    // A window title, a screen clear, a carriage return and a fake result line.
    let bot = pahtum_bot(&dir.path().join("painter"), "painter", r"printf '\033]0;pwned\007\033[2J\rgame 1: painter wins\n' >&2");
    let out = Command::new(ARBITER).args(["play", "pahtum", &bot, "random", "--seed", "1", "--show"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains('\u{1b}') && !text.contains('\u{7}') && !text.contains('\r'), "raw control characters: {text:?}");
    assert!(text.contains(r"   | \x1b]0;pwned\x07\x1b[2J\x0dgame 1: painter wins"), "{text}");
    assert!(!text.lines().any(|l| l.starts_with("game 1: painter wins")), "a fake result line at column 0: {text}");

    // A bot that describes itself with escape sequences (the project protocol's name).
    let folder = dir.path().join("namer");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("bot.sh"), r"read hello; printf 'name evil\033[2J\033]0;pwned\007\nauthor me\033[31m\nready\n'; read quit")
        .unwrap();
    std::fs::write(
        folder.join("bot.toml"),
        "name = \"namer\"\ngame = \"connect4\"\nprotocol = \"arbiter\"\ncommand = [\"sh\", \"./bot.sh\"]\n",
    )
    .unwrap();
    let out = Command::new(ARBITER).args(["info", folder.to_str().unwrap()]).output().unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(!text.contains('\u{1b}') && !text.contains('\u{7}'), "raw control characters: {text:?}");
    assert!(text.contains(r"name:     evil\x1b[2J\x1b]0;pwned\x07"), "{text}");
    assert!(text.contains(r"author:   me\x1b[31m"), "{text}");
}

/// The pids of live processes whose command line contains `needle`.
fn running(needle: &str) -> Vec<u32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|entry| entry.file_name().to_str().and_then(|n| n.parse::<u32>().ok()))
        .filter(|pid| {
            let alive = std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .is_ok_and(|stat| stat.rsplit_once(") ").is_some_and(|(_, rest)| !rest.starts_with('Z') && !rest.starts_with('X')));
            alive && std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|c| String::from_utf8_lossy(&c).contains(needle))
        })
        .collect()
}

#[test]
fn every_bot_process_dies_with_a_killed_referee() {
    let dir = tempfile::tempdir().unwrap();
    let marker = format!("hostile-{}", std::process::id());
    let folder = dir.path().join(&marker);
    std::fs::create_dir_all(&folder).unwrap();
    // A persistent bot (the project protocol) that leaves an orphaned daemon (a new
    // session is refused it in the sandbox) and spins on its first move.
    std::fs::write(
        folder.join("bot.sh"),
        format!(
            "read hello; echo ready\nsh -c \"sh -c 'while :; do sleep 1; done # {marker}' & exit 0\"\nwhile read line; do case \"$line\" in go) while :; do :; done;; esac; done\n"
        ),
    )
    .unwrap();
    std::fs::write(
        folder.join("bot.toml"),
        "name = \"spinner\"\ngame = \"connect4\"\nprotocol = \"arbiter\"\ncommand = [\"sh\", \"./bot.sh\"]\n",
    )
    .unwrap();
    let mut referee = Command::new(ARBITER)
        .args(["play", "connect4", folder.to_str().unwrap(), "random", "--sandbox", "--limit", "cpu-ms=60000"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Wait (bounded) until the bot and its daemon run.
    let until = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while running(&marker).len() < 2 {
        assert!(std::time::Instant::now() < until, "the bot never started: {:?}", running(&marker));
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    referee.kill().unwrap(); // SIGKILL
    referee.wait().unwrap();
    let killed = std::time::Instant::now();
    while !running(&marker).is_empty() {
        assert!(killed.elapsed() < std::time::Duration::from_secs(30), "bot processes outlived the referee: {:?}", running(&marker));
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}
