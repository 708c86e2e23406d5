//! Every preset of the seeds' tournaments runs end to end with its default entrants (the
//! sample and built-in bots), shrunk to fewer games but with every stage played; and bad
//! configs give one clear error line each.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

const ARBITER: &str = env!("CARGO_BIN_EXE_arbiter");

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

/// The preset with fewer games: fewer deals, matches and generated openings, Legions on
/// 7×7, and its relative paths made absolute.
fn shrunk(name: &str) -> String {
    let presets = repo().join("presets");
    let text = std::fs::read_to_string(presets.join(format!("{name}.toml"))).unwrap();
    let mut out = String::new();
    for line in text.lines() {
        let key = line.split('=').next().unwrap_or("").trim();
        let line = match key {
            "deals" if !line.contains("deals = 1") => "deals = 2".to_string(),
            "matches" => "matches = 2".to_string(),
            "size" => "size = 7".to_string(),
            _ => line.replace("generate = 5", "generate = 2"),
        };
        let line = line.replace("\"../bots/", &format!("\"{}/bots/", repo().display()));
        let line = line.replace("file = \"", &format!("file = \"{}/", presets.display()));
        out.push_str(&line);
        out.push('\n');
    }
    out
}

fn run_preset(name: &str) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join(format!("{name}.toml"));
    std::fs::write(&config, shrunk(name)).unwrap();
    let db = dir.path().join("results.db");
    let out =
        Command::new(ARBITER).args(["tournament", config.to_str().unwrap(), "--db", db.to_str().unwrap(), "-j", "2"]).output().unwrap();
    assert!(out.status.success(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
    let standings = Command::new(ARBITER).args(["standings", "--db", db.to_str().unwrap(), "--format", "json"]).output().unwrap();
    assert!(standings.status.success());
    let report: Value = serde_json::from_slice(&standings.stdout).unwrap();
    for stage in report["stages"].as_array().unwrap() {
        assert_eq!(stage["status"], "decided", "{name}: {stage}");
        assert!(stage["games"].as_u64().unwrap() > 0, "{name}: stage {} played no game", stage["name"]);
        assert!(!stage["rows"].as_array().unwrap().is_empty());
    }
    report
}

#[test]
fn gomoku_2004_runs_its_three_stages() {
    let report = run_preset("gomoku-2004");
    assert_eq!(report["stages"].as_array().unwrap().len(), 3);
    assert_eq!(report["stages"][2]["format"], "final");
}

#[test]
fn legions_runs_groups_then_double_elimination() {
    let report = run_preset("legions");
    assert_eq!(report["stages"][1]["format"], "double-elimination");
}

#[test]
fn connect4_2008_runs_both_categories() {
    let report = run_preset("connect4-2008");
    assert_eq!(report["stages"].as_array().unwrap().len(), 2);
}

#[test]
fn pahtum_2019_runs_its_championship() {
    let report = run_preset("pahtum-2019");
    assert_eq!(report["stages"][0]["scoring"], "match-3-1-0");
}

#[test]
fn nupud_1995_runs_its_double_round_robin() {
    let report = run_preset("nupud-1995");
    // Four entrants, every pair two games.
    assert_eq!(report["stages"][0]["games"], 12);
}

#[test]
fn bad_configs_give_one_clear_line() {
    let dir = tempfile::tempdir().unwrap();
    let base = "name = \"t\"\ngame = \"connect4\"\n[[entrant]]\nbot = \"random\"\n[[entrant]]\nbot = \"greedy\"\n";
    let cases: &[(&str, &str)] = &[
        ("name = \"t\"\ngame = \"chess\"\n[[entrant]]\nbot = \"random\"\n[[stage]]\nformat = \"round-robin\"\n", "unknown game"),
        (
            "name = \"t\"\ngame = \"connect4\"\n[[entrant]]\nbot = \"random\"\n[[entrant]]\nbot = \"no/such/bot\"\n[[stage]]\nformat = \"round-robin\"\n",
            "no/such/bot",
        ),
        (&format!("{base}[[stage]]\nformat = \"groups\"\ngroups = 3\n"), "power of two"),
        (&format!("{base}[[stage]]\nformat = \"round-robin\"\ncolour = 1\n"), "colour"),
    ];
    for (text, message) in cases {
        let config = dir.path().join("bad.toml");
        std::fs::write(&config, text).unwrap();
        let db = dir.path().join("bad.db");
        let out = Command::new(ARBITER).args(["tournament", config.to_str().unwrap(), "--db", db.to_str().unwrap()]).output().unwrap();
        assert!(!out.status.success(), "{text}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().count(), 1, "one line: {err}");
        assert!(err.contains(message), "{message:?} not in {err}");
    }
}
