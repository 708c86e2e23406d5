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
