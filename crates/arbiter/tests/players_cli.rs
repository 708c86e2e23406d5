//! The built-in players' ladder as a user meets it: `arbiter players`, `arbiter analyse`,
//! the rungs' names in `play`, and the refusals of names that do not fit.

use std::process::{Command, Output};

use serde_json::Value;

fn arbiter(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_arbiter")).args(args).output().expect("arbiter runs")
}

fn stdout(output: &Output) -> String {
    assert!(output.status.success(), "failed: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout.clone()).expect("utf-8")
}

#[test]
fn analyse_solves_connect4_exactly() {
    // The start and its columns as Pascal Pons' solver publishes them; then a position of
    // his test set Test_L2_R1 (1-based there: 67152117737262713366376314254, score 6).
    assert_eq!(stdout(&arbiter(&["analyse", "connect4", "--moves", ""])), "{\"score\":1,\"move_scores\":[-2,-1,0,1,0,-1,-2]}\n");
    let moves: Vec<String> = "67152117737262713366376314254".chars().map(|c| (c.to_digit(10).expect("a digit") - 1).to_string()).collect();
    let line = stdout(&arbiter(&["analyse", "connect4", "--moves", &moves.join(" ")]));
    let json: Value = serde_json::from_str(&line).expect("one JSON line");
    assert_eq!(json["score"], 6, "{line}");
    let columns = json["move_scores"].as_array().expect("columns");
    assert_eq!(columns.len(), 7);
    assert_eq!(columns.iter().filter_map(Value::as_i64).max(), Some(6), "{line}");
    // A full column is null: column 3 after six discs in it.
    let line = stdout(&arbiter(&["analyse", "connect4", "--moves", "3 3 3 3 3 3"]));
    let json: Value = serde_json::from_str(&line).expect("one JSON line");
    assert_eq!(json["move_scores"][3], Value::Null, "{line}");
}

#[test]
fn analyse_searches_other_games_with_the_strong_player() {
    let args = ["analyse", "gomoku", "--moves", "E5 E6", "--nodes", "3000"];
    let line = stdout(&arbiter(&args));
    assert_eq!(line, stdout(&arbiter(&args)), "a node limit gives the same answer every run");
    let json: Value = serde_json::from_str(&line).expect("one JSON line");
    assert!(json["move"].is_string() && json["eval"]["score"].is_i64() && json["depth"].as_u64() >= Some(1), "{line}");
    // Reversi's rungs search with alpha-beta too; Pah-tum's with tree search.
    let line = stdout(&arbiter(&["analyse", "reversi", "--nodes", "3000"]));
    let json: Value = serde_json::from_str(&line).expect("one JSON line");
    assert!(json["eval"]["score"].is_i64() && json["depth"].as_u64() >= Some(2), "{line}");
    let line = stdout(&arbiter(&["analyse", "pahtum", "--nodes", "500"]));
    let json: Value = serde_json::from_str(&line).expect("one JSON line");
    assert_eq!(json["playouts"], 500, "{line}");
    assert!(json["eval"]["win_rate"].is_f64(), "{line}");
}

#[test]
fn players_lists_the_rungs_of_every_game() {
    let json: Value = serde_json::from_str(&stdout(&arbiter(&["players", "--json"]))).expect("json");
    let games = json.as_array().expect("a list");
    assert_eq!(games.len(), rules::GameKind::ALL.len());
    for game in games {
        let names: Vec<&str> = game["players"].as_array().expect("players").iter().filter_map(|p| p["name"].as_str()).collect();
        let expected: &[&str] = if game["game"] == "connect4" {
            &["random", "greedy", "medium", "strong", "perfect"]
        } else {
            &["random", "greedy", "medium", "strong"]
        };
        assert_eq!(names, expected, "{}", game["game"]);
    }
    // Connect Four's ladder is measured: each rung above the one below (docs/players.md).
    let connect4 = games.iter().find(|g| g["game"] == "connect4").expect("connect4");
    let elos: Vec<i64> = connect4["players"].as_array().expect("players").iter().filter_map(|p| p["elo"].as_i64()).collect();
    assert_eq!(elos.len(), 5, "{connect4}");
    assert!(elos.windows(2).take(3).all(|pair| pair[0] < pair[1]), "{elos:?}");
    // So is Legions' (its round robin at the seed's limits): random < greedy < medium < strong.
    let legions = games.iter().find(|g| g["game"] == "legions").expect("legions");
    let elos: Vec<i64> = legions["players"].as_array().expect("players").iter().filter_map(|p| p["elo"].as_i64()).collect();
    assert_eq!(elos.len(), 4, "{legions}");
    assert!(elos.windows(2).all(|pair| pair[0] < pair[1]), "{elos:?}");
    assert!(stdout(&arbiter(&["players"])).contains("perfect"));
}

#[test]
fn the_rungs_play_by_name() {
    let json: Value =
        serde_json::from_str(&stdout(&arbiter(&["play", "connect4", "perfect", "medium", "--games", "2", "--seed", "3", "--json"])))
            .expect("json");
    assert_eq!(json["players"][0]["points"], 2.0, "perfect wins both games: {json}");
    let args = ["play", "gomoku", "strong:2000", "medium", "--games", "2", "--seed", "3", "--json"];
    let first = stdout(&arbiter(&args));
    assert_eq!(first, stdout(&arbiter(&args)), "node limits make games reproducible");
}

#[test]
fn names_that_do_not_fit_get_one_clear_line() {
    let cases: &[(&[&str], &str)] = &[
        (&["play", "gomoku", "perfect", "random"], "built-in player perfect cannot play gomoku"),
        (&["play", "connect4", "perfect", "random", "-o", "width=8"], "built-in player perfect cannot play connect4"),
        (&["play", "connect4", "strong:lots", "random"], "the node limit after ':' must be a whole number above 0"),
        (&["play", "connect4", "greedy:9", "random"], "greedy searches nothing, so it takes no node limit"),
        (&["analyse", "connect4", "--moves", "3 9"], "move 2 (\"9\")"),
    ];
    for (args, expected) in cases {
        let output = arbiter(args);
        assert!(!output.status.success(), "{args:?} succeeded");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{args:?}: {stderr}");
    }
}
