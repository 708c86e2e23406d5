//! `arbiter standings` in every format shows each stage as the JSON report does: one
//! table per group with its cross table, a double elimination's table in the order of
//! its stored result with its bracket, the Elo column labelled with what it covers, the
//! cross table in Markdown too; a stage still running is marked provisional; and the
//! progress's last line names the leader the standings show (the leader is worked out
//! at most every 200 ms, and when the last game in play ends).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

const ARBITER: &str = env!("CARGO_BIN_EXE_arbiter");

fn standings(db: &Path, format: &str) -> String {
    let out = Command::new(ARBITER).args(["standings", "--db", db.to_str().unwrap(), "--format", format]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// Legions on 7×7 between built-ins: groups of two, the leaders to a double elimination.
fn legions(dir: &Path) -> PathBuf {
    let config = dir.join("legions.toml");
    let mut text = String::from("name = \"L\"\ngame = \"legions\"\nseed = 9\n[options]\nsize = 7\n");
    for (name, bot) in [("r1", "random"), ("g1", "greedy"), ("r2", "random"), ("g2", "greedy")] {
        text.push_str(&format!("[[entrant]]\nname = \"{name}\"\nbot = \"{bot}\"\n"));
    }
    text.push_str("[[stage]]\nname = \"groups\"\nformat = \"groups\"\ngroups = 2\ndeals = 1\nswap = true\nscoring = \"score-sum\"\n");
    text.push_str("[[stage]]\nname = \"bracket\"\nformat = \"double-elimination\"\ndeals = 1\nswap = true\nextra-deals = 1\nscoring = \"score-sum\"\n");
    std::fs::write(&config, text).unwrap();
    let db = dir.join("legions.db");
    let out =
        Command::new(ARBITER).args(["tournament", config.to_str().unwrap(), "--db", db.to_str().unwrap(), "-j", "2"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    db
}

/// The entrant names of the text table that follows the line `caption:`.
fn text_table(text: &str, caption: &str) -> Vec<String> {
    let mut lines = text.lines().skip_while(|l| *l != format!("{caption}:"));
    assert!(lines.next().is_some(), "no table {caption:?} in\n{text}");
    lines.next().expect("a header");
    lines
        .take_while(|l| l.starts_with("  ") && l.trim().chars().next().is_some_and(|c| c.is_ascii_digit()))
        .map(|l| l.split_whitespace().nth(1).unwrap().to_string())
        .collect()
}

fn json_names(rows: &Value) -> Vec<String> {
    rows.as_array().unwrap().iter().map(|r| r["entrant"].as_str().unwrap().to_string()).collect()
}

#[test]
fn every_format_shows_groups_and_the_bracket() {
    let dir = tempfile::tempdir().unwrap();
    let db = legions(dir.path());
    let report: Value = serde_json::from_str(&standings(&db, "json")).unwrap();
    let [groups, bracket] = report["stages"].as_array().unwrap().as_slice() else { panic!("two stages") };

    let text = standings(&db, "text");
    // Groups: one table per group, in the JSON's order, each with its cross table.
    for group in groups["groups"].as_array().unwrap() {
        let name = group["name"].as_str().unwrap();
        assert_eq!(text_table(&text, name), json_names(&group["rows"]), "{text}");
        assert!(text.contains(&format!("{name}: cross table")), "{text}");
    }
    assert_eq!(groups["groups"].as_array().unwrap().len(), 2);
    assert!(text.contains("ranking of the stage: 1 "), "{text}");
    // The bracket stage: its table in the stored order, then the bracket.
    assert_eq!(text_table(&text, "standings"), json_names(&bracket["rows"]), "{text}");
    assert!(text.contains("bracket (matches in playing order):"), "{text}");
    let champion = bracket["rows"][0]["entrant"].as_str().unwrap();
    let final_line = text.lines().rfind(|l| l.contains(" final ")).expect("the final's line");
    assert!(final_line.contains(champion) && final_line.contains("champion"), "{final_line}");
    assert!(text.contains(&format!("qualified: {champion}")), "{text}");
    assert!(text.contains("Elo ± 95% (this stage)"), "{text}");

    let md = standings(&db, "md");
    assert_eq!(md.matches("cross table").count(), 3, "two groups and the bracket stage:\n{md}");
    assert!(md.contains("bracket (matches in playing order):"), "{md}");
    assert!(md.contains("| match | round | part |"), "{md}");
    let html = standings(&db, "html");
    for caption in ["group 1", "group 2", "bracket (matches in playing order)", "standings"] {
        assert!(html.contains(&format!("<caption>{caption}</caption>")), "{caption}: {html}");
    }
    let csv = standings(&db, "csv");
    let header = csv.lines().next().unwrap();
    assert!(header.starts_with("stage,status,group,rank,entrant,"), "{header}");
    assert_eq!(csv.lines().filter(|l| l.starts_with("groups,decided,group ")).count(), 4, "{csv}");
}

#[test]
fn a_running_stage_is_marked_provisional() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("long.toml");
    std::fs::write(
        &config,
        "name = \"long\"\ngame = \"connect4\"\n[[entrant]]\nbot = \"random\"\n[[entrant]]\nbot = \"greedy\"\n[[stage]]\nname = \"league\"\nformat = \"round-robin\"\ndeals = 2000\n",
    )
    .unwrap();
    let db = dir.path().join("long.db");
    let mut child = Command::new(ARBITER)
        .args(["tournament", config.to_str().unwrap(), "--db", db.to_str().unwrap(), "-j", "1"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let until = Instant::now() + Duration::from_secs(60);
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    loop {
        assert!(child.try_wait().unwrap().is_none(), "the run ended before it could be interrupted");
        assert!(Instant::now() < until, "no game stored within a minute");
        let stored = runtime.block_on(async {
            match store::Store::open_read_only(&db).await {
                Ok(store) => store.game_count().await.unwrap_or(0),
                Err(_) => 0,
            }
        });
        if stored >= 1 {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let text = standings(&db, "text");
    assert!(text.lines().next().unwrap().contains("running, provisional standings"), "{text}");
    let report: Value = serde_json::from_str(&standings(&db, "json")).unwrap();
    assert_eq!(report["stages"][0]["provisional"], true);
    assert_eq!(report["stages"][0]["rows"].as_array().unwrap().len(), 2);
}

#[test]
fn the_last_progress_line_names_the_leader_of_the_standings() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("c4.toml");
    let mut text = String::from("name = \"C\"\ngame = \"connect4\"\nseed = 5\n");
    for (name, bot) in [("r1", "random"), ("r2", "random"), ("r3", "random"), ("g1", "greedy"), ("r4", "random"), ("r5", "random")] {
        text.push_str(&format!("[[entrant]]\nname = \"{name}\"\nbot = \"{bot}\"\n"));
    }
    text.push_str("[[stage]]\nname = \"all\"\nformat = \"round-robin\"\ndeals = 3\nscoring = \"game-1-half-0\"\n");
    std::fs::write(&config, text).unwrap();
    let db = dir.path().join("c4.db");
    let out =
        Command::new(ARBITER).args(["tournament", config.to_str().unwrap(), "--db", db.to_str().unwrap(), "-j", "2"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // Not a terminal: a line every tenth of the stage, the last when all 90 games are in.
    let stderr = String::from_utf8(out.stderr).unwrap();
    let last = stderr.lines().rfind(|l| l.contains(" games, ") && l.contains("leader: ")).expect(&stderr);
    let count = last.trim().split_once(" games, ").unwrap().0;
    let leader = last.rsplit_once("leader: ").unwrap().1;
    assert_eq!(count, "90/90", "{stderr}");
    let report: Value = serde_json::from_str(&standings(&db, "json")).unwrap();
    let names = json_names(&report["stages"][0]["rows"]);
    assert_eq!(leader, names[0], "the standings: {names:?}");
}

/// An entry check's entrants meet only the baseline: its stage shows no cross table (it
/// was a square of dashes), and an Elo margin that two games cannot give is not shown as
/// "± 0".
#[test]
fn an_entry_check_has_no_cross_table_and_no_margin_of_zero() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("check.toml");
    let mut text = String::from("name = \"check\"\ngame = \"connect4\"\nseed = 11\n");
    for n in 0..8 {
        text.push_str(&format!("[[entrant]]\nname = \"r{n}\"\nbot = \"random\"\n"));
    }
    text.push_str("[[stage]]\nname = \"check\"\nformat = \"entry-check\"\n");
    std::fs::write(&config, text).unwrap();
    let db = dir.path().join("check.db");
    let out =
        Command::new(ARBITER).args(["tournament", config.to_str().unwrap(), "--db", db.to_str().unwrap(), "-j", "2"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    for format in ["text", "md", "html"] {
        let shown = standings(&db, format);
        assert!(!shown.to_lowercase().contains("cross table"), "{format}:\n{shown}");
        assert!(!shown.contains("± 0 ") && !shown.contains("± 0\n") && !shown.contains("± 0<"), "{format}:\n{shown}");
    }
    let report: Value = serde_json::from_str(&standings(&db, "json")).unwrap();
    assert_eq!(report["stages"][0]["cross"], serde_json::json!([]));
    assert_eq!(report["stages"][0]["rows"].as_array().unwrap().len(), 8);
}
