//! The sandbox from the command line: `arbiter sandbox-check` on this machine kind, and
//! sample bots of every interface playing under `--sandbox`.

use std::path::Path;
use std::process::Command;

const ARBITER: &str = env!("CARGO_BIN_EXE_arbiter");

#[test]
fn sandbox_check_reports_every_guarantee_enforced_here() {
    let out = Command::new(ARBITER).arg("sandbox-check").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    for name in [
        "filesystem",
        "network",
        "syscalls",
        "namespaces",
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
fn allow_degraded_needs_the_sandbox() {
    let out = Command::new(ARBITER).args(["play", "connect4", "random", "random", "--allow-degraded-sandbox"]).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--sandbox"));
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
    // A persistent bot (the project protocol) that starts a daemon in a new session and
    // spins on its first move.
    std::fs::write(
        folder.join("bot.sh"),
        format!(
            "read hello; echo ready\nsetsid sh -c 'while :; do sleep 1; done # {marker}' &\nwhile read line; do case \"$line\" in go) while :; do :; done;; esac; done\n"
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
