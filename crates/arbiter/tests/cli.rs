//! The `arbiter` command as a user meets it: games, play (seeded, JSON, errors).

mod common;

use common::arbiter;
use std::process::Output;

use serde_json::Value;

fn stdout(output: &Output) -> String {
    assert!(output.status.success(), "failed: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout.clone()).expect("utf-8")
}

#[test]
fn games_lists_every_game_with_its_options() {
    let text = stdout(&arbiter(&["games"]));
    for kind in rules::GameKind::ALL {
        assert!(text.contains(kind.name()), "{} missing from:\n{text}", kind.name());
    }
    assert!(text.contains("-o width=7"), "{text}");
    assert!(text.contains("-o size=17"), "{text}");
    // One entry per registered game, in the registry's order.
    let json: Value = serde_json::from_str(&stdout(&arbiter(&["games", "--json"]))).expect("json");
    let names: Vec<&str> = json.as_array().expect("a list").iter().filter_map(|game| game["name"].as_str()).collect();
    let registered: Vec<&str> = rules::GameKind::ALL.iter().map(|kind| kind.name()).collect();
    assert_eq!(names, registered);
}

#[test]
fn the_same_seed_plays_the_same_games() {
    for game in ["gomoku", "connect4", "pahtum", "legions", "nupud"] {
        let mut args = vec!["play", game, "greedy", "random", "--games", "2", "--seed", "42", "--json"];
        if game == "legions" {
            args.extend(["-o", "size=7"]);
        }
        let first = stdout(&arbiter(&args));
        assert_eq!(first, stdout(&arbiter(&args)), "{game}");
        let json: Value = serde_json::from_str(&first).expect("json");
        assert_eq!(json["games"].as_array().map(Vec::len), Some(2));
        // Sides alternate: greedy moves first in game 1, random in game 2.
        assert_eq!(json["games"][0]["players"][0], "greedy");
        assert_eq!(json["games"][1]["players"][0], "random");
        let total = json["players"][0]["points"].as_f64().unwrap() + json["players"][1]["points"].as_f64().unwrap();
        assert_eq!(total, 2.0, "{game}: points add up to the number of games");
    }
}

#[test]
fn play_shows_positions_and_a_summary() {
    let text = stdout(&arbiter(&["play", "connect4", "random", "random", "--seed", "1", "--show", "-o", "width=20", "-o", "height=20"]));
    assert!(text.contains("game 1:"), "{text}");
    assert!(text.contains("summary after 1 game(s)"), "{text}");
    assert!(text.contains("1. blue plays"), "{text}");
}

#[test]
fn greedy_beats_random_in_every_game() {
    for (game, opts) in [("gomoku", None), ("connect4", None), ("pahtum", None), ("legions", Some("size=7")), ("nupud", None)] {
        let mut args = vec!["play", game, "greedy", "random", "--games", "20", "--seed", "5", "--json"];
        if let Some(opts) = opts {
            args.extend(["-o", opts]);
        }
        let json: Value = serde_json::from_str(&stdout(&arbiter(&args))).expect("json");
        let greedy = json["players"][0]["points"].as_f64().unwrap();
        assert!(greedy >= 15.0, "{game}: greedy scored only {greedy} of 20 against random");
    }
}

#[test]
fn bad_input_gets_one_clear_line() {
    let cases: &[(&[&str], &str)] = &[
        (&["play", "checkers", "random", "random"], "unknown game \"checkers\""),
        (
            &["play", "connect4", "random", "smart"],
            "no bot \"smart\": not a built-in player (random, greedy, medium, strong or perfect), not human",
        ),
        (&["play", "connect4", "random", "random", "-o", "width=40"], "option width=\"40\": must be between 4 and 32"),
        (&["play", "connect4", "random", "random", "-o", "size=7"], "has no option \"size\""),
        (&["play", "connect4", "random", "random", "-o", "width"], "is not key=value"),
        (&["verify", "gomoku", "-o", "width=3"], "has no option \"width\""),
    ];
    for (args, message) in cases {
        let output = arbiter(args);
        assert!(!output.status.success(), "{args:?} should fail");
        let err = String::from_utf8_lossy(&output.stderr);
        assert_eq!(err.lines().count(), 1, "{args:?}: one line, got {err}");
        assert!(err.contains(message), "{args:?}: {err}");
    }
}
