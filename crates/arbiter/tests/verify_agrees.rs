//! `arbiter verify` against games played here: a thousand random games of every game of
//! the registry (none named: a game added to it is checked here without a line of its
//! own), their move lists fed to the binary, and every verdict checked against the game's
//! own end; plus cut-short and corrupted records.

mod common;

use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};
use rules::{AnyPosition, GameKind, Options};
use serde_json::{Value, json};

const GAMES: u64 = 1000;

struct Case {
    kind: GameKind,
    options: &'static [(&'static str, &'static str)],
}

/// Options beside the defaults: the seeds' other boards.
const MORE: &[(&str, &[(&str, &str)])] = &[("connect4", &[("width", "20"), ("height", "20")]), ("legions", &[("size", "7")])];

/// Every game of the registry with its default options, then the options of `MORE`.
fn cases() -> Vec<Case> {
    let defaults = GameKind::ALL.into_iter().map(|kind| Case { kind, options: &[] });
    let more = MORE.iter().map(|(name, options)| Case { kind: GameKind::from_name(name).expect("a registered game"), options });
    defaults.chain(more).collect()
}

fn case(name: &str) -> Case {
    Case { kind: GameKind::from_name(name).expect("a registered game"), options: &[] }
}

fn options_of(case: &Case) -> Options {
    case.options.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

/// Runs `arbiter verify` with the case's game and options on the given lines; its output
/// lines as JSON.
fn verify(case: &Case, lines: &[String]) -> Vec<Value> {
    let options: Vec<String> = case.options.iter().flat_map(|(k, v)| ["-o".to_string(), format!("{k}={v}")]).collect();
    common::verify(case.kind.name(), &options, lines)
}

/// A random game: its start text, its moves, and the final position.
fn random_game(case: &Case, seed: u64) -> (Option<String>, Vec<String>, AnyPosition) {
    let options = options_of(case);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let start = case.kind.random_start(&options, &mut rng).expect("options");
    let mut pos = case.kind.new_position(&options, start.as_deref()).expect("start");
    let mut moves = Vec::new();
    while let Some(text) = pos.random_move_text(&mut rng) {
        pos.play_text(&text).expect("random moves are legal");
        moves.push(text);
    }
    (start, moves, pos)
}

fn record(start: &Option<String>, moves: &[String]) -> String {
    match start {
        Some(start) => json!({ "moves": moves, "start": start }).to_string(),
        None => json!({ "moves": moves }).to_string(),
    }
}

#[test]
fn verify_agrees_with_a_thousand_random_games_of_each_game() {
    for case in &cases() {
        let games: Vec<_> = (0..GAMES).map(|seed| random_game(case, seed)).collect();
        let lines: Vec<String> = games.iter().map(|(start, moves, _)| record(start, moves)).collect();
        let verdicts = verify(case, &lines);
        for ((_, moves, end), verdict) in games.iter().zip(&verdicts) {
            let outcome = end.outcome().expect("random games end");
            let expected = json!({
                "status": "over",
                "winner": outcome.winner.map(|side| side.index()),
                "scores": outcome.scores,
            });
            assert_eq!(verdict, &expected, "{} game {moves:?}", case.kind);
        }
    }
}

#[test]
fn verify_reports_ongoing_games_with_their_legal_moves() {
    for case in &cases() {
        let lines_and_positions: Vec<_> = (0..50)
            .map(|seed| {
                let (start, moves, _) = random_game(case, seed);
                let cut = ChaCha8Rng::seed_from_u64(seed).random_range(0..moves.len());
                let options = options_of(case);
                let mut pos = case.kind.new_position(&options, start.as_deref()).expect("start");
                for text in &moves[..cut] {
                    pos.play_text(text).expect("legal");
                }
                (record(&start, &moves[..cut]), pos)
            })
            .collect();
        let lines: Vec<String> = lines_and_positions.iter().map(|(line, _)| line.clone()).collect();
        for ((line, pos), verdict) in lines_and_positions.iter().zip(verify(case, &lines)) {
            let mut expected = json!({ "status": "ongoing", "winner": null, "scores": pos.running_scores() });
            if let Some(legal) = pos.legal_moves_text() {
                expected["legal"] = json!(legal);
            }
            assert_eq!(verdict, expected, "{} record {line}", case.kind);
        }
    }
}

#[test]
fn verify_names_the_first_illegal_move_and_goes_on_after_bad_lines() {
    // Replaying a legal move a second time is illegal in every game with placements.
    for case in [case("gomoku"), case("pahtum")] {
        let case = &case;
        let (start, moves, _) = random_game(case, 7);
        let mut bad = moves[..4].to_vec();
        bad.push(moves[1].clone());
        let lines = vec![record(&start, &bad), "this is not json".to_string(), record(&start, &moves)];
        let verdicts = verify(case, &lines);
        assert_eq!(verdicts[0]["status"], "illegal");
        assert_eq!(verdicts[0]["ply"], 4);
        assert!(verdicts[0]["error"].as_str().is_some_and(|e| e.contains(&moves[1])), "{}", verdicts[0]);
        assert_eq!(verdicts[1]["status"], "invalid");
        assert_eq!(verdicts[2]["status"], "over");
    }
    // A move after the end.
    let case = &case("connect4");
    let (start, mut moves, end) = random_game(case, 3);
    let n = moves.len();
    moves.push(end.legal_moves_text().unwrap_or_default().first().cloned().unwrap_or_else(|| "0".to_string()));
    let verdicts = verify(case, &[record(&start, &moves)]);
    assert_eq!(verdicts[0]["status"], "illegal");
    assert_eq!(verdicts[0]["ply"], n);
}

#[test]
fn verify_refuses_records_that_are_not_records() {
    let pahtum = &case("pahtum");
    let lines = vec![
        json!({ "moves": ["A1"] }).to_string(),
        json!({ "moves": [], "start": "-------\n" }).to_string(),
        json!({ "start": "x" }).to_string(),
        String::new(),
    ];
    let verdicts = verify(pahtum, &lines);
    for verdict in &verdicts {
        assert_eq!(verdict["status"], "invalid", "{verdict}");
        assert!(verdict["error"].as_str().is_some_and(|e| !e.is_empty()));
    }
    assert!(verdicts[0]["error"].as_str().unwrap().contains("start"), "{}", verdicts[0]);
}
