//! Bad input a person gives gets one line they can read, the same from every command:
//! a `--db` file that is missing, a folder, not a database or another program's (never
//! an SQLite error code), a TOML file with a mistake (the line and the key, no caret
//! drawing), a bot that does not exist (named with its entrant), and names that are too
//! long or hold invisible or direction characters (refused by the one rule for names);
//! names of wide characters line up in the text tables; `standings` reads a file
//! without leaving `-wal` or `-shm` files beside it.

use std::path::Path;
use std::process::{Command, Output};

const ARBITER: &str = env!("CARGO_BIN_EXE_arbiter");

fn arbiter(dir: &Path, args: &[&str]) -> Output {
    Command::new(ARBITER).args(args).current_dir(dir).output().expect("arbiter runs")
}

/// The one line on stderr of a command that must fail.
fn refusal(dir: &Path, args: &[&str]) -> String {
    let out = arbiter(dir, args);
    assert!(!out.status.success(), "{args:?} should fail");
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: one line, got {err}");
    assert!(!err.contains("code:") && !err.contains("error returned from database"), "{args:?}: no SQLite wording: {err}");
    err.trim_end().to_string()
}

const CONFIG: &str = "name = \"t\"\ngame = \"connect4\"\n[[entrant]]\nname = \"a\"\nbot = \"random\"\n[[entrant]]\nname = \"b\"\nbot = \"greedy\"\n[[stage]]\nname = \"s\"\nformat = \"round-robin\"\n";

#[test]
fn a_file_that_is_no_results_database_gets_the_same_line_from_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("folder.db")).unwrap();
    std::fs::write(d.join("text.db"), "hello, I am a text file\n").unwrap();
    std::fs::write(d.join("t.toml"), CONFIG).unwrap();
    // Another program's SQLite file, made by SQLite (Python's module).
    let foreign = d.join("foreign.db");
    let made = Command::new("python3")
        .args(["-c", "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('CREATE TABLE notes (t TEXT)'); c.commit()"])
        .arg(&foreign)
        .status()
        .expect("python3 runs");
    assert!(made.success());
    let foreign_bytes = std::fs::read(&foreign).unwrap();
    // (file, the line every command gives)
    let cases = [
        ("missing.db", "cannot open missing.db: no such file"),
        ("folder.db", "folder.db is not an arbiter results database: it is a folder"),
        ("text.db", "text.db is not an arbiter results database: it is not an SQLite file"),
        ("foreign.db", "foreign.db is not an arbiter results database: it is another program's SQLite file"),
        ("text.db/x.db", "cannot open text.db/x.db: text.db is not a folder"),
    ];
    for (file, line) in cases {
        let mut commands: Vec<Vec<&str>> = vec![vec!["standings", "--db", file], vec!["replay", file, "--game", "k"]];
        if file != "missing.db" {
            // A tournament makes a missing file; every other case it refuses alike.
            commands.push(vec!["tournament", "t.toml", "--db", file]);
        }
        for args in commands {
            let said = refusal(d, &args);
            assert_eq!(said, format!("arbiter: {line}"), "{args:?}");
        }
    }
    // Nothing was written to the files refused.
    assert_eq!(std::fs::read_to_string(d.join("text.db")).unwrap(), "hello, I am a text file\n");
    assert!(std::fs::read(&foreign).unwrap() == foreign_bytes, "foreign.db was written to");
}

#[test]
fn standings_reads_a_tournament_file_and_leaves_nothing_beside_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("t.toml"), CONFIG).unwrap();
    let out = arbiter(d, &["tournament", "t.toml", "--db", "t.db", "-j", "1"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let beside = || {
        let mut names: Vec<String> = std::fs::read_dir(d).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        names.sort();
        names
    };
    let before = beside();
    assert!(!before.iter().any(|n| n.ends_with("-wal") || n.ends_with("-shm")), "the tournament closed its file: {before:?}");
    for args in [&["standings", "--db", "t.db"][..], &["standings", "--db", "t.db", "--format", "json"], &["replay", "t.db"]] {
        let out = arbiter(d, args);
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(beside(), before, "{args:?} left files beside t.db");
    }
}

#[test]
fn toml_mistakes_are_one_short_line_with_the_line_and_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("bot")).unwrap();
    // (bot.toml, the line people read)
    let manifests = [
        (
            "name = \"x\"\ngame = \"connect4\"\nprotocol = \"arbitr\"\ncommand = [\"python3\"]\n",
            "bot/bot.toml: line 3: protocol: unknown value \"arbitr\": expected one of",
        ),
        ("name = \"x\ngame = \"connect4\"\n", "bot/bot.toml: line 1: name: invalid basic string"),
        (
            "name = \"x\"\ngame = \"connect4\"\nprotocol = \"arbiter\"\ncommand = [\"python3\"]\nfoo = 1\n",
            "bot/bot.toml: line 5: unknown key \"foo\": expected one of",
        ),
    ];
    for (manifest, line) in manifests {
        std::fs::write(d.join("bot/bot.toml"), manifest).unwrap();
        for args in [&["play", "connect4", "bot", "random", "--no-sandbox"][..], &["doctor", "bot", "--no-sandbox"], &["info", "bot"]] {
            let said = refusal(d, args);
            assert!(said.contains(line), "{args:?}: {said}");
            assert!(!said.contains("TOML parse error") && !said.contains('^') && !said.contains(" | "), "{args:?}: {said}");
        }
    }
    // (config, the line people read)
    let configs = [
        (CONFIG.replace("round-robin", "round-robbin"), "line 11: format: unknown value \"round-robbin\": expected one of"),
        (CONFIG.replace("round-robin", "round-robbin"), "(did you mean round-robin?)"),
        (
            CONFIG.replace("name = \"t\"", "name = \"t\"\nseed = \"abc\""),
            "line 2: seed: invalid type: string \"abc\", expected a whole number",
        ),
        (CONFIG.replace("bot = \"greedy\"", "bot = \"nothere\""), "entrant b: no bot \"nothere\""),
    ];
    for (config, line) in configs {
        std::fs::write(d.join("c.toml"), &config).unwrap();
        let said = refusal(d, &["tournament", "c.toml", "--db", "c.db"]);
        assert!(said.contains(line), "{said}");
    }
}

#[test]
fn names_follow_one_rule_in_configs_and_manifests() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let long = "x".repeat(300);
    // (entrant name, what the refusal says)
    let names = [
        (long.as_str(), "is 300 columns wide: the most is 40"),
        ("b\u{202e}evil", "holds U+202E, a character that changes the direction of text"),
        ("b\u{200e}x", "holds U+200E"),
        ("b\u{200f}x", "holds U+200F"),
        ("b\u{061c}x", "holds U+061C"),
        ("zero\u{200b}width", "holds U+200B, an invisible zero-width character"),
        ("line\u{2028}sep", "holds U+2028, a line or paragraph separator"),
    ];
    for (name, words) in names {
        let config = CONFIG.replace("name = \"b\"", &format!("name = \"{name}\""));
        std::fs::write(d.join("c.toml"), config).unwrap();
        let said = refusal(d, &["tournament", "c.toml", "--db", "c.db"]);
        assert!(said.contains("line 7: entrant name") && said.contains(words), "{name:?}: {said}");
        assert!(!said.contains('\u{202e}') && !said.contains('\u{2028}'), "the refusal shows no raw invisible character: {said:?}");
    }
    assert!(!d.join("c.db").exists(), "nothing was stored");
    std::fs::create_dir(d.join("bot")).unwrap();
    for (field, value, words) in [
        ("name", "sneaky\u{200e}", "holds U+200E"),
        ("name", "a\u{2029}b", "holds U+2029"),
        ("author", "Ann\u{200b}", "holds U+200B"),
        ("author", "Ann\u{061c}", "holds U+061C"),
        ("name", long.as_str(), "the most is 40"),
    ] {
        let name = if field == "name" { value } else { "ok" };
        let author = if field == "author" { value } else { "Ann" };
        let manifest = format!(
            "name = \"{name}\"\nauthor = \"{author}\"\ngame = \"connect4\"\nprotocol = \"arbiter\"\ncommand = [\"python3\", \"./b.py\"]\n"
        );
        std::fs::write(d.join("bot/bot.toml"), manifest).unwrap();
        let said = refusal(d, &["info", "bot"]);
        assert!(said.contains(field) && said.contains(words), "{field} {value:?}: {said}");
    }
}

#[test]
fn wide_names_line_up_in_the_text_tables() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut config = String::from("name = \"wide\"\ngame = \"connect4\"\nseed = 3\n");
    for (name, bot) in [("象棋高手", "greedy"), ("🤖bot", "random"), ("plain", "random")] {
        config.push_str(&format!("[[entrant]]\nname = \"{name}\"\nbot = \"{bot}\"\n"));
    }
    config.push_str("[[stage]]\nname = \"s\"\nformat = \"round-robin\"\n");
    std::fs::write(d.join("w.toml"), config).unwrap();
    let out = arbiter(d, &["tournament", "w.toml", "--db", "w.db", "-j", "1"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(arbiter(d, &["standings", "--db", "w.db"]).stdout).unwrap();
    // Every row of the standings table puts its points column at the same terminal
    // column as the header's "points".
    let lines: Vec<&str> = text.lines().collect();
    let header = lines.iter().position(|l| l.contains("entrant") && l.contains("points")).expect("a header");
    let column = text::width(&lines[header][..lines[header].find("points").unwrap()]);
    for row in &lines[header + 1..header + 4] {
        let cells: Vec<&str> = row.split_whitespace().collect();
        let points = cells[2];
        let at = row.find(&format!(" {points} ")).expect("the points cell") + 1;
        assert_eq!(text::width(&row[..at]), column, "{row:?} in\n{text}");
    }
    // The cross table's cells too: each row's first cell starts at the same column.
    let cross = lines.iter().position(|l| l.starts_with("cross table")).expect("a cross table");
    let mut ends: Vec<usize> = lines[cross + 2..cross + 5]
        .iter()
        .map(|l| {
            let starts: Vec<usize> =
                l.char_indices().filter(|&(i, c)| c != ' ' && (i == 0 || l[..i].ends_with(' '))).map(|(i, _)| i).collect();
            text::width(&l[..starts[starts.len() - 3]])
        })
        .collect();
    ends.dedup();
    assert_eq!(ends.len(), 1, "the cross table's cells start at one column\n{text}");
}
