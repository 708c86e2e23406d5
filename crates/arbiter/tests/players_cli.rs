//! The built-in players' ladder as a user meets it: `arbiter players`, `arbiter analyse`,
//! the rungs' names in `play`, and the refusals of names that do not fit.

mod common;

use common::arbiter;
use std::process::Output;

use serde_json::Value;

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
fn players_lists_the_rungs_of_every_game_per_board_measured() {
    let json: Value = serde_json::from_str(&stdout(&arbiter(&["players", "--json"]))).expect("json");
    let boards = json.as_array().expect("a list");
    let listed: Vec<(&str, &str)> =
        boards.iter().map(|b| (b["game"].as_str().expect("game"), b["board"].as_str().expect("a measured board"))).collect();
    // Every game on its default board, and Connect Four on 20x20 too, with its options.
    let mut expected: Vec<(&str, &str)> = rules::GameKind::ALL
        .iter()
        .map(|kind| {
            let board = match kind.name() {
                "gomoku" => "10x10",
                "connect4" => "7x6",
                "pahtum" => "7x7",
                "legions" => "17x17",
                "nupud" => "6x6",
                "reversi" => "8x8",
                "chess" => "8x8",
                other => panic!("a game this test does not know: {other}"),
            };
            (kind.name(), board)
        })
        .collect();
    expected.insert(2, ("connect4", "20x20"));
    assert_eq!(listed, expected);
    for board in boards {
        let names: Vec<&str> = board["players"].as_array().expect("players").iter().filter_map(|p| p["name"].as_str()).collect();
        let expected: &[&str] = if board["game"] == "connect4" && board["board"] == "7x6" {
            &["random", "greedy", "medium", "strong", "perfect"]
        } else {
            &["random", "greedy", "medium", "strong"]
        };
        assert_eq!(names, expected, "{board}");
        // Every ladder is measured: each rung above the one below (docs/players.md).
        let elos: Vec<i64> = board["players"].as_array().expect("players").iter().filter_map(|p| p["elo"].as_i64()).collect();
        assert_eq!(elos.len(), names.len(), "{board}");
        assert!(elos.windows(2).take(3).all(|pair| pair[0] < pair[1]), "{elos:?}");
    }
    let wide = boards.iter().find(|b| b["board"] == "20x20").expect("20x20");
    assert_eq!(wide["options"], serde_json::json!({ "width": "20", "height": "20" }));
    // docs/players.md's three 200-game matches up the 20x20 ladder (greedy 193 of 200
    // against random, medium 183 against greedy, strong 194 against medium), each score
    // made Elo and summed up the ladder.
    let elo = |points: f64| (-400.0 * (200.0 / points - 1.0).log10()).round() as i64;
    let steps = [elo(193.0), elo(183.0), elo(194.0)];
    let elos: Vec<i64> = wide["players"].as_array().expect("players").iter().filter_map(|p| p["elo"].as_i64()).collect();
    assert_eq!(elos, [0, steps[0], steps[0] + steps[1], steps[0] + steps[1] + steps[2]]);
    let text = stdout(&arbiter(&["players"]));
    assert!(text.contains("connect4 7x6\n") && text.contains("connect4 20x20 (-o width=20 -o height=20)\n"), "{text}");
    assert_eq!(text.matches("perfect").count(), 1, "perfect plays 7x6 only: {text}");
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
