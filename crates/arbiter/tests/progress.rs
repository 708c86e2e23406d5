//! What `arbiter tournament` prints as it runs, read as a terminal shows it (through
//! `script`, a pseudo-terminal): no full bar at "0/0 games" when a stage starts, every
//! `note:` line on a line of its own (never run into the bar), a rate of games per second
//! that counts this run's games only (a resumed stage's earlier games are not counted as
//! played in an instant), and game records that name their sides as the tournament's
//! entrants, not by their manifests.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const ARBITER: &str = env!("CARGO_BIN_EXE_arbiter");

/// A tournament of program bots (the project protocol's random player in Python, under
/// two entrant names), `greedy`, and with `check` a bot that crashes at its start and an
/// entry check (the crasher fails it: a note) before the round robin (3 entrants, 18
/// games, without the check).
fn config(dir: &Path, check: bool) -> std::path::PathBuf {
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bots/arbiter/python");
    let crash = dir.join("crash");
    std::fs::create_dir_all(&crash).unwrap();
    std::fs::write(
        crash.join("bot.toml"),
        "name = \"crash-manifest\"\ngame = \"connect4\"\nprotocol = \"arbiter\"\ncommand = [\"python3\", \"-c\", \"import sys; sys.exit(3)\"]\n",
    )
    .unwrap();
    let mut text = format!(
        "name = \"progress\"\ngame = \"connect4\"\nseed = 5\n\
         [[entrant]]\nname = \"student-one\"\nbot = \"{sample}\"\n\
         [[entrant]]\nname = \"student-two\"\nbot = \"{sample}\"\n\
         [[entrant]]\nname = \"g\"\nbot = \"greedy\"\n",
        sample = sample.display()
    );
    if check {
        text.push_str("[[entrant]]\nname = \"crashy\"\nbot = \"crash\"\n[[stage]]\nname = \"check\"\nformat = \"entry-check\"\n");
    }
    text.push_str("[[stage]]\nname = \"rr\"\nformat = \"round-robin\"\ndeals = 3\n");
    let path = dir.join("t.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// Runs the tournament in a pseudo-terminal; what the terminal was sent, split into the
/// pieces of text each line start or carriage return begins, escape sequences removed.
fn in_terminal(dir: &Path, config: &Path, db: &Path) -> Vec<String> {
    let command = format!("{ARBITER} tournament {} --db {} -j 1 --no-sandbox", config.display(), db.display());
    let out =
        Command::new("script").args(["-qec", &command, "/dev/null"]).current_dir(dir).stdin(Stdio::null()).output().expect("script runs");
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success(), "{text}");
    let mut plain = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            // CSI: ESC [ parameters, then a final letter.
            if chars.peek() == Some(&'[') {
                chars.next();
                for d in chars.by_ref() {
                    if d.is_ascii_alphabetic() {
                        break;
                    }
                }
            }
            continue;
        }
        plain.push(c);
    }
    plain.split(['\n', '\r']).map(str::to_string).filter(|piece| !piece.trim().is_empty()).collect()
}

/// Each games-per-second figure the bar showed (`12.5 games/s`, or indicatif's own
/// `12.5/s` with thousands separators), with its position ("12/18").
fn rates(pieces: &[String]) -> Vec<(String, f64)> {
    pieces
        .iter()
        .filter_map(|piece| {
            let position = piece.split_once(" games,")?.0.rsplit(' ').next()?.to_string();
            let figure = piece.split(", ").find_map(|part| part.strip_suffix(" games/s").or_else(|| part.strip_suffix("/s")))?;
            let rate: f64 = figure.replace(',', "").parse().ok()?;
            Some((position, rate))
        })
        .collect()
}

#[test]
fn the_bar_never_shows_0_of_0_and_notes_get_lines_of_their_own() {
    let dir = tempfile::tempdir().unwrap();
    let config = config(dir.path(), true);
    let db = dir.path().join("t.db");
    let pieces = in_terminal(dir.path(), &config, &db);
    let all = pieces.join("\n");
    assert!(!pieces.iter().any(|p| p.contains(" 0/0 games")), "a bar at 0/0:\n{all}");
    let notes: Vec<&String> = pieces.iter().filter(|p| p.contains("note:")).collect();
    assert!(notes.iter().any(|n| n.contains("crashy failed the entry check")), "{all}");
    for note in &notes {
        assert!(note.starts_with("  note: ") && !note.contains(" games"), "a note ran into the bar: {note:?}\n{all}");
    }
    assert!(!rates(&pieces).is_empty(), "the bar showed a rate:\n{all}");
    // The records name the entrants, as the standings do.
    let out = Command::new(ARBITER).args(["replay", db.to_str().unwrap()]).output().unwrap();
    let list = String::from_utf8_lossy(&out.stdout);
    let key = list.lines().find(|l| l.contains("student-one")).and_then(|l| l.split_whitespace().next()).expect(&list).to_string();
    let out = Command::new(ARBITER).args(["replay", db.to_str().unwrap(), "--game", &key, "--json"]).output().unwrap();
    let record: serde_json::Value = serde_json::from_slice(&out.stdout).expect("a record");
    let names: Vec<&str> = record["players"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert!(names.contains(&"student-one"), "{names:?}");
    assert!(!names.contains(&"arbiter-random-py"), "the manifest's name: {names:?}");
}

#[test]
fn a_resumed_stage_counts_only_this_runs_games_per_second() {
    let dir = tempfile::tempdir().unwrap();
    let config = config(dir.path(), false);
    let db = dir.path().join("t.db");
    // A first run, stopped (as Ctrl-C stops it) once a few round-robin games are stored.
    let mut child = Command::new(ARBITER)
        .args(["tournament", config.to_str().unwrap(), "--db", db.to_str().unwrap(), "-j", "1", "--no-sandbox"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let began = Instant::now();
    loop {
        assert!(began.elapsed() < Duration::from_secs(120), "no round-robin games were stored");
        if stored_round_robin_games(&db) >= 4 {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    rustix::process::kill_process(rustix::process::Pid::from_raw(child.id() as i32).unwrap(), rustix::process::Signal::INT).unwrap();
    child.wait().unwrap();
    let before = stored_round_robin_games(&db);
    assert!(before < 18, "the first run was stopped before the end ({before} of 18)");
    // The second run resumes in a terminal.
    let pieces = in_terminal(dir.path(), &config, &db);
    let all = pieces.join("\n");
    assert!(pieces.iter().any(|p| p.contains(&format!("resuming: {before} games already played"))), "{all}");
    let rates = rates(&pieces);
    assert!(!rates.is_empty(), "{all}");
    // Each game here starts Python processes (tens of milliseconds): a rate of thousands
    // of games a second could only count the earlier run's games as played at once.
    for (position, rate) in &rates {
        assert!(*rate < 1000.0, "{rate} games/s at {position}:\n{all}");
    }
}

/// Games of the round robin (stage 1) stored in the file so far, read through
/// `arbiter replay`, which lists a database's games.
fn stored_round_robin_games(db: &Path) -> usize {
    if !db.exists() {
        return 0;
    }
    let out = Command::new(ARBITER).args(["replay", db.to_str().unwrap()]).output().unwrap();
    String::from_utf8_lossy(&out.stdout).lines().filter(|l| l.split_whitespace().nth(1) == Some("rr")).count()
}
