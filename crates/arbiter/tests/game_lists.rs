//! Every list of games in the docs and in the command line's help is the registry's
//! (`arbiter games --json`): a line that names four or more games by their names names
//! them all, so that a game added to the registry cannot be left out of a list (Reversi
//! was missing from `match --help` and `docs/tournaments.md`). Interface names such as
//! `gomoku-file` or `connect4-tcp` are words of their own and do not count.

use std::path::{Path, PathBuf};
use std::process::Command;

const ARBITER: &str = env!("CARGO_BIN_EXE_arbiter");

fn registry() -> Vec<String> {
    let out = Command::new(ARBITER).args(["games", "--json"]).output().unwrap();
    let games: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    games.as_array().unwrap().iter().map(|g| g["name"].as_str().unwrap().to_string()).collect()
}

/// The registry's games that a list of games in `line` leaves out: a list is four or
/// more game names in a row, with nothing but commas, backticks, "and" or "or" between
/// them (a game named in passing in a sentence is no list).
fn incomplete(line: &str, games: &[String]) -> Option<Vec<String>> {
    let words: Vec<String> = line
        .to_lowercase()
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect();
    let mut longest: Vec<&String> = Vec::new();
    let mut run: Vec<&String> = Vec::new();
    for word in &words {
        if games.contains(word) {
            run.push(word);
        } else if !matches!(word.as_str(), "and" | "or") {
            if run.len() > longest.len() {
                longest = std::mem::take(&mut run);
            }
            run.clear();
        }
    }
    if run.len() > longest.len() {
        longest = run;
    }
    let missing: Vec<String> = games.iter().filter(|g| !longest.contains(g)).cloned().collect();
    (longest.len() >= 4 && !missing.is_empty()).then_some(missing)
}

fn markdown_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            markdown_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "md") {
            out.push(path);
        }
    }
}

#[test]
fn every_list_of_games_lists_the_registry() {
    let games = registry();
    assert!(games.len() >= 6, "{games:?}");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = vec![root.join("README.md"), root.join("ARCHITECTURE.md")];
    markdown_files(&root.join("docs"), &mut files);
    let mut wrong = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for (n, line) in text.lines().enumerate() {
            if let Some(missing) = incomplete(line, &games) {
                wrong.push(format!(
                    "{}:{}: leaves out {}: {line}",
                    file.strip_prefix(&root).unwrap_or(file).display(),
                    n + 1,
                    missing.join(", ")
                ));
            }
        }
    }
    // The help of every command.
    let help = String::from_utf8(Command::new(ARBITER).arg("--help").output().unwrap().stdout).unwrap();
    let commands: Vec<String> = help
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .filter(|c| c != "help")
        .collect();
    assert!(commands.len() > 10, "{help}");
    for command in &commands {
        let out = Command::new(ARBITER).args([command.as_str(), "--help"]).output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        for line in text.lines() {
            if let Some(missing) = incomplete(line, &games) {
                wrong.push(format!("arbiter {command} --help leaves out {}: {line}", missing.join(", ")));
            }
        }
    }
    assert!(wrong.is_empty(), "lists of games that are not the registry's:\n{}", wrong.join("\n"));
}
