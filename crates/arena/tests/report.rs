//! The standings report against databases written the way the runner writes them
//! (entrants, fingerprints when a stage starts, every game, the stage's stored result),
//! with games whose results a script decides, so that every expected table is known in
//! advance: the three wrong tables of the first release (Legions' double elimination,
//! Connect Four's 20×20 points order, Gomoku 2004's finalists) and each format's view
//! (groups, bracket, final with extra games, a stage still running).

use std::collections::BTreeMap;
use std::path::Path;

use arena::StoredStageResult;
use arena::report::{Report, StageReport};
use tournament::config::Format;
use tournament::schedule::{self, Next, StageContext};
use tournament::{Entrant, EntrantId, GameOutcome, GameSpec, TournamentConfig};

fn repo() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

fn preset(name: &str) -> String {
    std::fs::read_to_string(repo().join("presets").join(format!("{name}.toml"))).expect("the preset")
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime")
}

/// A game won by `winner` (an entrant, `None`: a draw), with scores when the game has them.
fn won(spec: &GameSpec, winner: Option<EntrantId>, scores: Option<[i64; 2]>) -> GameOutcome {
    let side = winner.map(|w| spec.players.iter().position(|&p| p == w).expect("the winner plays"));
    GameOutcome { spec: spec.clone(), winner: side, scores, fault: None, moves: [10, 10], time_ms: [20, 20] }
}

/// Writes a tournament into `db` as the runner does: stage after stage, the participants
/// (the previous stage's qualified, in order) fingerprinted when the stage starts, the
/// games the schedule asks for played by `play`, the stage's result stored when it is
/// decided. Stops once `stop_after` games are stored (a stage left running).
fn simulate(db: &Path, config_text: &str, play: impl Fn(usize, &GameSpec) -> GameOutcome, stop_after: Option<usize>) {
    let config = TournamentConfig::parse(config_text, "test.toml").expect("the config");
    runtime().block_on(async {
        let store = store::Store::open(db).await.expect("the store");
        store.begin_tournament(&config.name, config_text, "hash").await.expect("the tournament");
        let mut entrants: Vec<Entrant> = config
            .entrants
            .iter()
            .enumerate()
            .map(|(id, e)| Entrant { id, name: e.name.clone().expect("named"), bot: e.bot.clone(), submitted: e.submitted.clone() })
            .collect();
        let mut baselines = Vec::new();
        for stage in &config.stages {
            if stage.format.kind() == Format::EntryCheck {
                let id = entrants.len();
                entrants.push(Entrant { id, name: arena::baseline_name(stage), bot: "random".to_string(), submitted: None });
                baselines.push(Some(id));
            } else {
                baselines.push(None);
            }
        }
        store.save_entrants(&entrants).await.expect("the entrants");
        let mut participants: Vec<EntrantId> = (0..config.entrants.len()).collect();
        let mut stored = 0;
        for (idx, stage) in config.stages.iter().enumerate() {
            let prints: Vec<(EntrantId, Option<String>)> = participants.iter().map(|&id| (id, None)).collect();
            store.save_fingerprints(idx, &prints).await.expect("the fingerprints");
            let ctx = StageContext {
                index: idx,
                config: stage,
                entrants: &entrants,
                participants: &participants,
                baseline: baselines[idx],
                n_openings: 0,
                seed: config.seed,
            };
            let mut results: Vec<GameOutcome> = Vec::new();
            let result = loop {
                match schedule::next(&ctx, &results) {
                    Next::Done(result) => break result,
                    Next::Play(specs) => {
                        for spec in specs {
                            if stop_after == Some(stored) {
                                return;
                            }
                            let outcome = play(idx, &spec);
                            store.save_game(&outcome, "{}").await.expect("a game");
                            results.push(outcome);
                            stored += 1;
                        }
                    }
                }
            };
            let json = serde_json::to_string(&StoredStageResult {
                ranking: result.ranking,
                qualified: result.qualified.clone(),
                failed: result.failed,
            })
            .expect("a result serialises");
            store.save_stage_result(idx, &json).await.expect("the stage result");
            participants = result.qualified;
        }
    });
}

fn load(db: &Path) -> Report {
    runtime().block_on(async {
        let store = store::Store::open_read_only(db).await.expect("the store");
        arena::report::load_report(&store, "test.db").await.expect("the report")
    })
}

/// The stored games of one stage, read from the store.
fn stage_games(db: &Path, stage: usize) -> Vec<GameOutcome> {
    runtime().block_on(async {
        let store = store::Store::open_read_only(db).await.expect("the store");
        store.games().await.expect("the games").into_iter().filter(|g| g.spec.stage == stage).collect()
    })
}

/// The stored ranking of a stage, as names.
fn stored_ranking(db: &Path, stage: usize) -> Vec<String> {
    runtime().block_on(async {
        let store = store::Store::open_read_only(db).await.expect("the store");
        let names: BTreeMap<EntrantId, String> = store.entrants().await.expect("entrants").into_iter().map(|e| (e.id, e.name)).collect();
        let results = store.stage_results().await.expect("results");
        let (_, json) = results.into_iter().find(|(s, _)| *s == stage).expect("the stage is decided");
        let result: StoredStageResult = serde_json::from_str(&json).expect("a stored result");
        result.ranking.iter().map(|id| names[id].clone()).collect()
    })
}

fn names(stage: &StageReport) -> Vec<&str> {
    stage.rows.iter().map(|r| r.entrant.as_str()).collect()
}

/// Every row's games equal the games stored for its entrant in the stage.
fn check_game_counts(db: &Path, stage: &StageReport) {
    let games = stage_games(db, stage.index);
    for row in stage.rows.iter().chain(stage.groups.iter().flat_map(|g| &g.rows)) {
        let stored = games.iter().filter(|g| g.spec.players.contains(&row.entrant_id)).count();
        assert_eq!(row.games as usize, stored, "{} in stage {}", row.entrant, stage.name);
    }
}

/// The first release ranked Legions' double elimination again, with its participants in
/// entrant order: `legions-python`, who lost all 4 of its games, came first. The
/// bracket's order (the stored result) puts the champion first, and the bracket is shown.
#[test]
fn legions_double_elimination_shows_the_bracket_order() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let db = dir.path().join("legions.db");
    // Strength: greedy > legions-python > random > legions-c; the stronger scores its
    // strength, the weaker 0.
    let strength = [5i64, 40, 30, 98];
    simulate(
        &db,
        &preset("legions"),
        |_, spec| {
            let [a, b] = spec.players;
            let winner = if strength[a] > strength[b] { a } else { b };
            let scores = spec.players.map(|p| if p == winner { strength[p] } else { 0 });
            won(spec, Some(winner), Some(scores))
        },
        None,
    );
    let report = load(&db);
    let [groups, bracket] = &report.stages[..] else { panic!("two stages") };

    assert_eq!(groups.status, "decided");
    assert!(!groups.provisional);
    let tables: Vec<(&str, Vec<&str>)> =
        groups.groups.iter().map(|g| (g.name.as_str(), g.rows.iter().map(|r| r.entrant.as_str()).collect())).collect();
    // Dealt snake-wise from the config order: 1st and 4th in group 1, 2nd and 3rd in group 2.
    assert_eq!(tables, vec![("group 1", vec!["greedy", "legions-c"]), ("group 2", vec!["legions-python", "random"])]);
    assert_eq!(groups.groups[0].rows.iter().map(|r| r.points).collect::<Vec<_>>(), vec![196.0, 0.0]);
    assert_eq!(groups.groups.iter().map(|g| g.rows.iter().map(|r| r.rank).collect::<Vec<_>>()).collect::<Vec<_>>(), [[1, 2], [1, 2]]);
    assert_eq!(names(groups), stored_ranking(&db, 0));
    assert_eq!(groups.qualified, ["greedy", "legions-python"]);
    check_game_counts(&db, groups);

    assert_eq!(bracket.status, "decided");
    assert_eq!(names(bracket), ["greedy", "legions-python"]);
    assert_eq!(names(bracket), stored_ranking(&db, 1));
    let python = &bracket.rows[1];
    assert_eq!((python.points, python.games, python.first[2] + python.second[2]), (0.0, 4, 4));
    assert_eq!(bracket.rows[0].points, 392.0);
    check_game_counts(&db, bracket);
    // Two entrants: one winners' match, then the final (no reset).
    // (number, round, part, sides, winner, winner to, loser to)
    type Line<'a> = (usize, u32, &'a str, [&'a str; 2], Option<&'a str>, &'a str, &'a str);
    let matches: Vec<Line> = bracket
        .bracket
        .iter()
        .map(|m| {
            (
                m.number,
                m.round,
                m.part.as_str(),
                [m.sides[0].as_str(), m.sides[1].as_str()],
                m.winner.as_deref(),
                m.winner_to.as_str(),
                m.loser_to.as_str(),
            )
        })
        .collect();
    assert_eq!(
        matches,
        vec![
            (1, 1, "winners", ["greedy", "legions-python"], Some("greedy"), "match 2", "match 2"),
            (2, 2, "final", ["greedy", "legions-python"], Some("greedy"), "champion", "out"),
        ]
    );
    assert_eq!(bracket.bracket[1].points, Some([196.0, 0.0]));
    assert_eq!(bracket.bracket[1].games, 2);
}

/// A bracket of five: byes for the top seeds, a losers' bracket, the champion first.
#[test]
fn double_elimination_of_five_shows_byes_and_who_went_where() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let db = dir.path().join("de.db");
    let mut text = String::from("name = \"de\"\ngame = \"connect4\"\nseed = 5\n");
    for name in ["a", "b", "c", "d", "e"] {
        text.push_str(&format!("[[entrant]]\nname = \"{name}\"\nbot = \"random\"\n"));
    }
    text.push_str("[[stage]]\nname = \"league\"\nformat = \"round-robin\"\ndeals = 1\nscoring = \"game-1-half-0\"\n");
    text.push_str("[[stage]]\nname = \"bracket\"\nformat = \"double-elimination\"\ndeals = 1\nscoring = \"game-1-half-0\"\n");
    // The league seeds a, b, c, d, e (the lower id wins); in the bracket the higher id
    // wins: e is the champion, though seeded last.
    simulate(
        &db,
        &text,
        |stage, spec| {
            let winner = if stage == 0 { spec.players.iter().min() } else { spec.players.iter().max() };
            won(spec, winner.copied(), None)
        },
        None,
    );
    let report = load(&db);
    assert_eq!(names(&report.stages[0]), ["a", "b", "c", "d", "e"]);
    let stage = &report.stages[1];
    assert_eq!(names(stage), stored_ranking(&db, 1));
    assert_eq!(names(stage)[0], "e");
    let last = stage.bracket.last().expect("a bracket");
    assert_eq!(last.part, "final");
    assert_eq!(last.winner.as_deref(), Some("e"));
    assert_eq!(last.winner_to, "champion");
    // Seed 1 (a) meets the bye in the first round and goes on without a game.
    let first = &stage.bracket[0];
    assert_eq!((first.sides[0].as_str(), first.sides[1].as_str(), first.games), ("a", "bye", 0));
    assert_eq!(first.winner.as_deref(), Some("a"));
    // Every match's loser goes to a later match or out; every entrant loses at most twice.
    for m in &stage.bracket {
        if let Some(to) = m.loser_to.strip_prefix("match ") {
            assert!(to.parse::<usize>().expect("a number") > m.number, "{m:?}");
        }
        if m.part == "winners" {
            assert!(m.loser_to.starts_with("match "), "{m:?}");
        } else {
            assert_eq!(m.loser_to, "out", "{m:?}");
        }
    }
    for row in &stage.rows {
        let lost = stage.bracket.iter().filter(|m| m.loser.as_deref() == Some(row.entrant.as_str())).count();
        assert!(lost <= 2, "{} lost {lost} matches", row.entrant);
        if row.entrant != "e" {
            assert!(lost >= 1, "{} is not the champion but never lost", row.entrant);
        }
    }
    check_game_counts(&db, stage);
}

/// The first release ranked Connect Four's second round robin with its participants in
/// entrant order instead of the first stage's ranking: the game keys it looked for were
/// not the stored ones, and an entrant with 22 points came below one with 20.
#[test]
fn connect4_2008_second_stage_is_in_points_order() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let db = dir.path().join("c4.db");
    // tcp-c, tcp-python, arbiter-c, arbiter-python, random, greedy: the stronger wins,
    // by another order in each category; some pairs draw their first game.
    let strength = [[2, 5, 1, 4, 0, 3], [4, 0, 5, 1, 3, 2]];
    simulate(
        &db,
        &preset("connect4-2008"),
        |stage, spec| {
            let [a, b] = spec.players;
            if spec.key.ends_with("/d0/g0") && (a + b) % 3 == 0 {
                return won(spec, None, None);
            }
            let s = strength[stage];
            won(spec, Some(if s[a] > s[b] { a } else { b }), None)
        },
        None,
    );
    let report = load(&db);
    for stage in &report.stages {
        assert_eq!(stage.status, "decided");
        assert_eq!(names(stage), stored_ranking(&db, stage.index));
        let points: Vec<f64> = stage.rows.iter().map(|r| r.points).collect();
        assert!(points.windows(2).all(|w| w[0] >= w[1]), "points rise down the table of {}: {points:?}", stage.name);
        check_game_counts(&db, stage);
    }
    assert_eq!(names(&report.stages[0]), ["tcp-python", "arbiter-python", "greedy", "tcp-c", "arbiter-c", "random"]);
    assert_eq!(names(&report.stages[1]), ["arbiter-c", "tcp-c", "random", "greedy", "arbiter-python", "tcp-python"]);
    // Points computed here from the stored games: 1 a win, ½ a draw.
    let games = stage_games(&db, 1);
    for row in &report.stages[1].rows {
        let expected: f64 = games
            .iter()
            .filter_map(|g| {
                let side = g.side_of(row.entrant_id)?;
                Some(match g.winner {
                    None => 0.5,
                    Some(w) if w == side => 1.0,
                    Some(_) => 0.0,
                })
            })
            .sum();
        assert_eq!(row.points, expected, "{}", row.entrant);
    }
}

/// The first release showed Gomoku 2004's final with the first three entrants by id
/// (`console-c`, 0 games) instead of the round robin's top three (`greedy-2` left out).
/// The final here is a three-way cycle that extra games decide.
#[test]
fn gomoku_2004_final_shows_its_finalists_and_extra_games() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let db = dir.path().join("gomoku.db");
    // file-c, file-python, console-c, console-python, greedy, greedy-2, the baseline.
    let strength = [3, 0, 2, 0, 4, 5, 1];
    simulate(
        &db,
        &preset("gomoku-2004"),
        |stage, spec| {
            let [a, b] = spec.players;
            if stage == 2 && !schedule::is_extra_game(spec) {
                // The finalists beat each other in a cycle: greedy-2 > greedy > file-c > greedy-2.
                let beats = |x: usize, y: usize| matches!((x, y), (5, 4) | (4, 0) | (0, 5));
                return won(spec, Some(if beats(a, b) { a } else { b }), None);
            }
            won(spec, Some(if strength[a] > strength[b] { a } else { b }), None)
        },
        None,
    );
    let report = load(&db);
    let [entry, round_robin, last] = &report.stages[..] else { panic!("three stages") };
    assert_eq!(names(entry), ["file-c", "console-c", "greedy", "greedy-2", "file-python", "console-python"]);
    assert_eq!(entry.qualified, ["file-c", "console-c", "greedy", "greedy-2"]);
    assert_eq!(names(round_robin), ["greedy-2", "greedy", "file-c", "console-c"]);
    assert_eq!(names(last), ["greedy-2", "greedy", "file-c"]);
    assert_eq!(stored_ranking(&db, 2)[..3], names(last)[..]);
    // Equal points (each won its two deals against one and lost them to the other); the
    // extra games decided, and they count among the finalists' games.
    assert!(last.rows.iter().all(|r| r.points == last.rows[0].points), "{:?}", last.rows);
    let extra = stage_games(&db, 2).iter().filter(|g| schedule::is_extra_game(&g.spec)).count();
    assert!(extra > 0, "extra games were played");
    for stage in &report.stages {
        assert_eq!(stage.status, "decided");
        check_game_counts(&db, stage);
    }
}

/// A stage still running shows the live table, marked provisional, with participants in
/// their seeding order; a stage not started shows nothing.
#[test]
fn a_running_stage_is_provisional() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let db = dir.path().join("c4.db");
    let strength = [[2, 5, 1, 4, 0, 3], [4, 0, 5, 1, 3, 2]];
    // The first stage has 150 games: stop 40 games into the second.
    simulate(
        &db,
        &preset("connect4-2008"),
        |stage, spec| {
            let s = strength[stage];
            let [a, b] = spec.players;
            won(spec, Some(if s[a] > s[b] { a } else { b }), None)
        },
        Some(190),
    );
    let report = load(&db);
    let [first, second] = &report.stages[..] else { panic!("two stages") };
    assert_eq!((first.status.as_str(), first.provisional), ("decided", false));
    assert_eq!((second.status.as_str(), second.provisional, second.games), ("running", true, 40));
    assert!(second.qualified.is_empty());
    assert_eq!(second.rows.len(), 6);
    let points: Vec<f64> = second.rows.iter().map(|r| r.points).collect();
    assert!(points.windows(2).all(|w| w[0] >= w[1]), "{points:?}");
    check_game_counts(&db, second);

    let dir = tempfile::tempdir().expect("a temp dir");
    let db = dir.path().join("start.db");
    simulate(&db, &preset("legions"), |_, spec| won(spec, Some(spec.players[0]), Some([1, 0])), Some(0));
    let started = load(&db);
    assert_eq!(started.stages[0].status, "running");
    assert!(started.stages[0].provisional);
    assert_eq!(started.stages[0].groups.len(), 2, "a groups stage shows its groups from the start");
    assert_eq!(started.stages[1].status, "not started");
    assert!(started.stages[1].rows.is_empty() && started.stages[1].bracket.is_empty());
}
