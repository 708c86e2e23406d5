//! `arbiter match`: Elo with error bars and LOS from colour-swapped pairs, the SPRT
//! stopping early, the same results at any -j, and clear errors.

mod common;

use common::arbiter;
use std::process::Output;

use serde_json::Value;

fn stdout(output: &Output) -> String {
    assert!(output.status.success(), "failed: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout.clone()).expect("utf-8")
}

fn json(args: &[&str]) -> Value {
    serde_json::from_str(&stdout(&arbiter(args))).expect("the summary is JSON")
}

#[test]
fn greedy_is_measurably_stronger_than_random() {
    let summary = json(&["match", "connect4", "greedy", "random", "--games", "40", "--seed", "11", "--json"]);
    assert_eq!(summary["players"], serde_json::json!(["greedy", "random"]));
    assert_eq!((summary["games"].as_u64(), summary["pairs"].as_u64()), (Some(40), Some(20)));
    let estimate = &summary["estimate"];
    let (elo, error, los) = (estimate["elo"].as_f64().unwrap(), estimate["error95"].as_f64().unwrap(), estimate["los"].as_f64().unwrap());
    assert!(elo > 0.0 && error > 0.0 && error.is_finite() && los > 0.95, "{estimate}");
    let pentanomial: u64 = summary["pentanomial"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).sum();
    assert_eq!(pentanomial, 20);
    let wdl: u64 = ["wins", "draws", "losses"].iter().map(|k| summary[k].as_u64().unwrap()).sum();
    assert_eq!(wdl, 40);
    assert_eq!(summary["sprt"], Value::Null);
}

#[test]
fn text_shows_each_pair_and_a_summary() {
    let text = stdout(&arbiter(&["match", "connect4", "greedy", "random", "--games", "5", "--seed", "2"]));
    assert!(text.starts_with("connect4: greedy vs random, up to 5 game(s) in 3 colour-swapped pair(s), seed 2"), "{text}");
    for pair in 1..=3 {
        assert!(text.contains(&format!("\npair {pair}: ")), "{text}");
    }
    // An odd number of games leaves the last one unpaired.
    assert!(text.contains("5 games (2 pairs)"), "{text}");
    assert!(text.contains("pentanomial (pairs with 0, 1/2, 1, 3/2, 2 points for greedy):"), "{text}");
    assert!(text.contains("Elo difference of greedy over random: +"), "{text}");
    assert!(text.contains("LOS "), "{text}");
}

#[test]
fn sprt_stops_as_soon_as_it_decides() {
    let args = ["match", "connect4", "greedy", "random", "--games", "1000", "--seed", "4", "--sprt", "elo0=0,elo1=200", "--json"];
    let summary = json(&args);
    let games = summary["games"].as_u64().unwrap();
    assert!(games < 1000, "{games} games");
    let sprt = &summary["sprt"];
    assert_eq!(sprt["decision"], "accept-h1", "{sprt}");
    assert!(sprt["llr"].as_f64().unwrap() >= sprt["upper_bound"].as_f64().unwrap(), "{sprt}");
    assert_eq!((sprt["elo0"].as_f64(), sprt["elo1"].as_f64(), sprt["alpha"].as_f64()), (Some(0.0), Some(200.0), Some(0.05)));

    // The same seed decides at the same game with pairs played in parallel (the same
    // moves; their times are measured, not decided).
    let mut parallel = args.to_vec();
    parallel.extend(["-j", "3"]);
    assert_eq!(decided(json(&parallel)), decided(summary));

    let text = stdout(&arbiter(&args[..args.len() - 1]));
    assert!(text.contains(&format!("SPRT: H1 accepted (elo1 = 200) after {games} games")), "{text}");
}

#[test]
fn sprt_accepts_h0_when_the_gain_is_not_there() {
    // Random is far weaker than greedy: of "no gain" and "+200", the first holds.
    let summary = json(&["match", "connect4", "random", "greedy", "--games", "1000", "--seed", "4", "--sprt", "elo0=0,elo1=200", "--json"]);
    assert_eq!(summary["sprt"]["decision"], "accept-h0");
    assert!(summary["games"].as_u64().unwrap() < 1000);
}

#[test]
fn parallel_pairs_give_the_same_results() {
    let one = json(&["match", "pahtum", "greedy", "random", "--games", "6", "--seed", "9", "--json"]);
    let two = json(&["match", "pahtum", "greedy", "random", "--games", "6", "--seed", "9", "--json", "-j", "2"]);
    assert_eq!(decided(one), decided(two));
}

/// A summary without the times its moves took (measured, not decided by the seed), but
/// with how many moves there were.
fn decided(mut summary: Value) -> Value {
    let moves = summary["timing"]["moves"].clone();
    assert!(moves.as_u64().is_some_and(|n| n > 0), "{summary}");
    summary["timing"] = moves;
    summary
}

#[test]
fn bad_arguments_are_one_clear_error_line() {
    for (args, want) in [
        (vec!["--sprt", "elo0=0"], "--sprt elo0=0: elo1 is missing"),
        (vec!["--sprt", "elo0=5,elo1=0"], "elo1 must be greater than elo0"),
        (vec!["--sprt", "elo0=0,elo1=5,alpha=2"], "alpha must be between 0 and 1"),
        (vec!["--sprt", "elo0=0,elo1=5,x=1"], "unknown key \"x\""),
        (vec!["--sprt", "fast"], "\"fast\" is not key=value"),
        (vec!["--games", "0"], "--games must be at least 1"),
        (vec!["-j", "0"], "-j must be at least 1"),
    ] {
        let mut full = vec!["match", "connect4", "greedy", "random"];
        full.extend(args);
        let output = arbiter(&full);
        assert!(!output.status.success(), "{full:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.starts_with("arbiter: ") && stderr.contains(want), "{full:?}: {stderr}");
    }
}
