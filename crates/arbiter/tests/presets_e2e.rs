//! Every preset of `presets/`, from a fresh checkout's state (the sample C bots not yet
//! built), run by the real `arbiter` binary, interrupted with Ctrl-C (SIGINT) once a few
//! games are stored, resumed by the same command to its end; then its standings
//! (`arbiter standings --format json`) are checked against the database, read here on
//! its own: every stage's table is in the order the stage decided (its stored result),
//! each row's games and points are those of the games stored for it (points recomputed
//! here from the stage's scoring), points never rise down a table ranked by points, and
//! the double elimination's champion won the last match.
//!
//! The presets are shrunk as in `presets.rs` (fewer deals and matches, Legions on 7×7,
//! two generated openings) so that the whole file runs in a few minutes on two cores;
//! every stage of every preset is still played.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use tournament::{Entrant, EntrantId, GameOutcome};

const ARBITER: &str = env!("CARGO_BIN_EXE_arbiter");

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

/// Copies a folder's files (not hidden ones, not Python caches).
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let name = entry.file_name();
        let name_text = name.to_string_lossy();
        if name_text.starts_with('.') || name_text == "__pycache__" {
            continue;
        }
        let path = entry.path();
        if path.is_dir() {
            copy_dir(&path, &to.join(&name));
        } else {
            std::fs::copy(&path, to.join(&name)).unwrap();
        }
    }
}

/// A fresh checkout's `presets/` and `bots/` in `dir`: the programs that a manifest
/// builds are removed, whatever an earlier build left in this tree.
fn fresh_checkout(dir: &Path) {
    copy_dir(&repo().join("presets"), &dir.join("presets"));
    copy_dir(&repo().join("bots"), &dir.join("bots"));
    for game in std::fs::read_dir(dir.join("bots")).unwrap().flatten() {
        for bot in std::fs::read_dir(game.path()).unwrap().flatten() {
            let Ok(text) = std::fs::read_to_string(bot.path().join("bot.toml")) else { continue };
            let manifest: toml::Table = text.parse().unwrap();
            if manifest.contains_key("build") {
                let program = manifest["command"][0].as_str().unwrap();
                let _ = std::fs::remove_file(bot.path().join(program));
                assert!(!bot.path().join(program).exists());
            }
        }
    }
}

/// The preset with fewer games: fewer deals and matches, fewer generated openings,
/// Legions on 7×7 (the values `presets.rs` runs).
fn shrunk(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let key = line.split('=').next().unwrap_or("").trim();
        let line = match key {
            "deals" if !line.contains("deals = 1") => "deals = 2".to_string(),
            "matches" => "matches = 2".to_string(),
            "size" => "size = 7".to_string(),
            _ => line.replace("generate = 5", "generate = 2"),
        };
        out.push_str(&line);
        out.push('\n');
    }
    out
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
}

fn stored_games(db: &Path) -> usize {
    runtime().block_on(async {
        match store::Store::open_read_only(db).await {
            Ok(store) => store.game_count().await.map_or(0, |n| n as usize),
            Err(_) => 0,
        }
    })
}

/// What the database holds, read with the store's plain accessors.
struct Stored {
    entrants: Vec<Entrant>,
    games: Vec<GameOutcome>,
    /// Stage index → the stored result (`ranking`, `qualified`, `failed`).
    results: BTreeMap<usize, Value>,
}

fn read_db(db: &Path) -> Stored {
    runtime().block_on(async {
        let store = store::Store::open_read_only(db).await.unwrap();
        let results =
            store.stage_results().await.unwrap().into_iter().map(|(stage, json)| (stage, serde_json::from_str(&json).unwrap())).collect();
        Stored { entrants: store.entrants().await.unwrap(), games: store.games().await.unwrap(), results }
    })
}

impl Stored {
    fn name(&self, id: EntrantId) -> &str {
        &self.entrants.iter().find(|e| e.id == id).unwrap().name
    }

    fn id(&self, name: &str) -> EntrantId {
        self.entrants.iter().find(|e| e.name == name).unwrap().id
    }

    fn stage_games(&self, stage: usize) -> Vec<&GameOutcome> {
        self.games.iter().filter(|g| g.spec.stage == stage).collect()
    }

    fn ranking(&self, stage: usize) -> Vec<String> {
        self.results[&stage]["ranking"].as_array().unwrap().iter().map(|id| self.name(id.as_u64().unwrap() as usize).to_string()).collect()
    }
}

/// Whether a game is a tie-break extra game (its key's round tag is `x…`).
fn is_extra(game: &GameOutcome) -> bool {
    game.spec.key.split('/').nth(1).is_some_and(|tag| tag.starts_with('x'))
}

/// Points by `scoring` (as docs/tournaments.md defines them) of `games`, by entrant.
fn points(scoring: &str, games: &[&GameOutcome]) -> BTreeMap<EntrantId, f64> {
    let mut points: BTreeMap<EntrantId, f64> = BTreeMap::new();
    let result = |game: &GameOutcome, side: usize| match game.winner {
        None => 0.5,
        Some(w) if w == side => 1.0,
        Some(_) => 0.0,
    };
    match scoring {
        "game-2-1-0" | "game-1-half-0" => {
            let scale = if scoring == "game-2-1-0" { 2.0 } else { 1.0 };
            for game in games {
                for side in 0..2 {
                    *points.entry(game.spec.players[side]).or_default() += scale * result(game, side);
                }
            }
        }
        "score-sum" => {
            for game in games {
                for side in 0..2 {
                    *points.entry(game.spec.players[side]).or_default() += game.scores.unwrap()[side] as f64;
                }
            }
        }
        "match-3-1-0" => {
            // A match goes to the larger sum of score differences over its games.
            let mut matches: BTreeMap<&str, BTreeMap<EntrantId, i64>> = BTreeMap::new();
            for game in games {
                let totals = matches.entry(game.spec.match_key.as_str()).or_default();
                for side in 0..2 {
                    let diff = match game.scores {
                        Some(s) => s[side] - s[1 - side],
                        None => (2.0 * result(game, side) - 1.0) as i64,
                    };
                    *totals.entry(game.spec.players[side]).or_default() += diff;
                }
            }
            for totals in matches.values() {
                for (&id, &diff) in totals {
                    *points.entry(id).or_default() += match diff {
                        d if d > 0 => 3.0,
                        0 => 1.0,
                        _ => 0.0,
                    };
                }
            }
        }
        other => panic!("no independent scoring for {other}"),
    }
    points
}

/// Runs the preset from a fresh checkout, interrupts it with SIGINT once 2 games are
/// stored, resumes it to its end; the database and the standings JSON.
fn interrupted_and_resumed(name: &str) -> (tempfile::TempDir, PathBuf, Value) {
    let dir = tempfile::tempdir().unwrap();
    fresh_checkout(dir.path());
    let config = dir.path().join("presets").join(format!("{name}.toml"));
    std::fs::write(&config, shrunk(&std::fs::read_to_string(&config).unwrap())).unwrap();
    let db = dir.path().join("results.db");
    let command = || {
        let mut cmd = Command::new(ARBITER);
        cmd.args(["tournament", config.to_str().unwrap(), "--db", db.to_str().unwrap(), "-j", "2"]);
        cmd.current_dir(dir.path()).stdout(Stdio::null()).stderr(Stdio::piped());
        cmd
    };

    let mut child = command().spawn().unwrap();
    let until = Instant::now() + Duration::from_secs(120);
    loop {
        assert!(child.try_wait().unwrap().is_none(), "{name}: the run ended before it could be interrupted");
        assert!(Instant::now() < until, "{name}: 2 games were not stored within two minutes");
        if stored_games(&db) >= 2 {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let status = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(status.success());
    let out = child.wait_with_output().unwrap();
    assert!(!out.status.success(), "{name}: the interrupted run says it succeeded");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("interrupted"), "{name}: {stderr}");
    let interrupted_at = stored_games(&db);

    let out = command().output().unwrap();
    assert!(out.status.success(), "{name}: the resumed run failed: {}", String::from_utf8_lossy(&out.stderr));
    let games = read_db(&db).games;
    assert!(games.len() >= interrupted_at, "{name}: stored games were lost");

    let standings = Command::new(ARBITER).args(["standings", "--db", db.to_str().unwrap(), "--format", "json"]).output().unwrap();
    assert!(standings.status.success(), "{name}: {}", String::from_utf8_lossy(&standings.stderr));
    let report: Value = serde_json::from_slice(&standings.stdout).unwrap();
    check(name, &db, &report);
    (dir, db, report)
}

fn names(rows: &Value) -> Vec<String> {
    rows.as_array().unwrap().iter().map(|r| r["entrant"].as_str().unwrap().to_string()).collect()
}

/// The standings against the database.
fn check(name: &str, db: &Path, report: &Value) {
    let stored = read_db(db);
    for stage in report["stages"].as_array().unwrap() {
        let idx = stage["index"].as_u64().unwrap() as usize;
        let label = format!("{name}, stage {}", stage["name"]);
        assert_eq!(stage["status"], "decided", "{label}");
        assert_eq!(stage["provisional"], false, "{label}");
        let games = stored.stage_games(idx);
        assert!(!games.is_empty(), "{label}: no game");
        assert_eq!(stage["games"].as_u64().unwrap() as usize, games.len(), "{label}");
        let format = stage["format"].as_str().unwrap();
        let scoring = stage["scoring"].as_str().unwrap();
        let played = |who: &str| games.iter().filter(|g| g.spec.players.contains(&stored.id(who))).count();

        // In the order the stage decided: its stored ranking (a final shows its
        // finalists: those of the ranking who played in it).
        let ranking = stored.ranking(idx);
        let expected: Vec<String> = ranking.iter().filter(|who| format != "final" || played(who) > 0).cloned().collect();
        assert_eq!(names(&stage["rows"]), expected, "{label}: not in the stored order");

        let counted: Vec<&GameOutcome> = games.iter().copied().filter(|g| !is_extra(g)).collect();
        let expected_points = points(scoring, &counted);
        let groups = stage["groups"].as_array().unwrap();
        let tables: Vec<&Value> = if groups.is_empty() { vec![&stage["rows"]] } else { groups.iter().map(|g| &g["rows"]).collect() };
        for row in stage["rows"].as_array().unwrap().iter().chain(groups.iter().flat_map(|g| g["rows"].as_array().unwrap())) {
            let who = row["entrant"].as_str().unwrap();
            assert_eq!(row["games"].as_u64().unwrap() as usize, played(who), "{label}: games of {who}");
            let want = expected_points.get(&stored.id(who)).copied().unwrap_or(0.0);
            assert_eq!(row["points"].as_f64().unwrap(), want, "{label}: points of {who}");
        }
        if matches!(format, "round-robin" | "final" | "groups" | "swiss" | "gauntlet") {
            for table in &tables {
                let points: Vec<f64> = table.as_array().unwrap().iter().map(|r| r["points"].as_f64().unwrap()).collect();
                assert!(points.windows(2).all(|w| w[0] >= w[1]), "{label}: points rise down the table: {points:?}");
            }
        }
        if !groups.is_empty() {
            // Each group's table keeps the stage's order, and the groups hold everyone.
            let mut all: Vec<String> = Vec::new();
            for group in groups {
                let rows = names(&group["rows"]);
                let in_order: Vec<String> = ranking.iter().filter(|who| rows.contains(who)).cloned().collect();
                assert_eq!(rows, in_order, "{label}: {}", group["name"]);
                all.extend(rows);
            }
            all.sort();
            let mut everyone = ranking.clone();
            everyone.sort();
            assert_eq!(all, everyone, "{label}: the groups");
        }
        if format == "double-elimination" {
            // The last match: the games of the last round played.
            let last_round = games.iter().map(|g| g.spec.round).max().unwrap();
            let last: Vec<&GameOutcome> = games.iter().copied().filter(|g| g.spec.round == last_round).collect();
            let champion = stored.id(&ranking[0]);
            let opponent = last[0].spec.players.into_iter().find(|&p| p != champion).unwrap();
            assert!(last.iter().all(|g| g.spec.players.contains(&champion)), "{label}: the champion did not play the last match");
            let totals = points(scoring, &last);
            let (own, other) = (totals[&champion], totals[&opponent]);
            assert!(own >= other, "{label}: the champion lost the last match {own} to {other}");
            if own == other {
                let submitted = |id: EntrantId| stored.entrants.iter().find(|e| e.id == id).unwrap().submitted.clone();
                assert!(submitted(champion) <= submitted(opponent), "{label}: a level last match goes to the earlier submission");
            }
            let bracket = stage["bracket"].as_array().unwrap();
            assert_eq!(bracket.last().unwrap()["winner"], ranking[0].as_str(), "{label}");
            assert_eq!(stage["rows"][0]["entrant"], ranking[0].as_str());
        }
        let qualified: Vec<String> = stored.results[&idx]["qualified"]
            .as_array()
            .unwrap()
            .iter()
            .map(|id| stored.name(id.as_u64().unwrap() as usize).to_string())
            .collect();
        assert_eq!(stage["qualified"].as_array().unwrap().iter().map(|q| q.as_str().unwrap()).collect::<Vec<_>>(), qualified);
    }
}

#[test]
fn gomoku_2004_resumes_and_shows_what_its_stages_decided() {
    let (_dir, _db, report) = interrupted_and_resumed("gomoku-2004");
    let formats: Vec<&str> = report["stages"].as_array().unwrap().iter().map(|s| s["format"].as_str().unwrap()).collect();
    assert_eq!(formats, ["entry-check", "round-robin", "final"]);
}

#[test]
fn legions_resumes_and_shows_its_groups_and_bracket() {
    let (_dir, _db, report) = interrupted_and_resumed("legions");
    assert_eq!(report["stages"][0]["groups"].as_array().unwrap().len(), 2);
    assert_eq!(report["stages"][1]["format"], "double-elimination");
    assert!(!report["stages"][1]["bracket"].as_array().unwrap().is_empty());
}

#[test]
fn connect4_2008_resumes_on_a_fresh_checkout() {
    let (_dir, _db, report) = interrupted_and_resumed("connect4-2008");
    assert_eq!(report["stages"].as_array().unwrap().len(), 2);
    // Six entrants, every pair 2 deals of two games, in both categories.
    for stage in report["stages"].as_array().unwrap() {
        assert_eq!(stage["games"], 60);
    }
}

#[test]
fn pahtum_2019_resumes_and_shows_its_championship() {
    let (_dir, _db, report) = interrupted_and_resumed("pahtum-2019");
    assert_eq!(report["stages"][0]["scoring"], "match-3-1-0");
}

#[test]
fn nupud_1995_resumes_and_shows_its_double_round_robin() {
    let (_dir, _db, report) = interrupted_and_resumed("nupud-1995");
    // Four entrants, every pair two games.
    assert_eq!(report["stages"][0]["games"], 12);
}

/// Every preset in `presets/` runs: those above with checks of their own, every other one
/// (a game's preset, added with the game) here, with the checks every preset gets.
#[test]
fn every_other_preset_resumes() {
    let mut presets: Vec<String> = std::fs::read_dir(repo().join("presets"))
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.strip_suffix(".toml").map(String::from))
        .collect();
    presets.sort();
    let this = include_str!("presets_e2e.rs");
    for preset in presets {
        if this.contains(&format!("interrupted_and_resumed(\"{preset}\")")) {
            continue;
        }
        let (_dir, _db, report) = interrupted_and_resumed(&preset);
        assert!(report["stages"].as_array().is_some_and(|stages| !stages.is_empty()), "{preset}: no stages in its standings");
    }
}
