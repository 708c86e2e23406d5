//! `arbiter verify reversi`: records read with their passes and their end, the legal
//! moves listed (`pass` when it is the only one), and the refusals of the rules (a pass
//! while a placement is open, a taken square, a move after the end), each as one line.

mod common;

use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;
use rules::{GameKind, Options};
use serde_json::{Value, json};

/// Runs `arbiter verify reversi` (with `args`) on `lines`; its output lines as JSON.
fn verify(args: &[&str], lines: &[String]) -> Vec<Value> {
    let args: Vec<String> = args.iter().map(|arg| arg.to_string()).collect();
    common::verify("reversi", &args, lines)
}

fn record(moves: &[&str]) -> String {
    json!({ "moves": moves }).to_string()
}

#[test]
fn openings_and_refusals() {
    let out =
        verify(&[], &[record(&[]), record(&["d3"]), record(&["pass"]), record(&["d3", "d3"]), record(&["d3", "a1"]), record(&["z9"])]);
    assert_eq!(out[0], json!({"status": "ongoing", "winner": null, "scores": [2, 2], "legal": ["d3", "c4", "f5", "e6"]}));
    assert_eq!(out[1], json!({"status": "ongoing", "winner": null, "scores": [4, 1], "legal": ["c3", "e3", "c5"]}));
    assert_eq!(out[2]["status"], "illegal");
    assert_eq!(out[2]["ply"], 0);
    assert_eq!(out[2]["error"], "illegal move pass: a placement is open, so passing is not allowed");
    assert_eq!((out[3]["status"].as_str(), out[3]["ply"].as_u64()), (Some("illegal"), Some(1)));
    assert_eq!(out[3]["error"], "illegal move d3: d3 is taken by Black");
    assert_eq!(out[4]["error"], "illegal move a1: a disc on a1 flips no disc");
    assert_eq!((out[5]["status"].as_str(), out[5]["ply"].as_u64()), (Some("illegal"), Some(0)));
}

/// Random games on 6x6 (where passes come often) played by the rules crate, fed to the
/// binary: games with passes are read to their end, cut-short ones list `pass` where it
/// is the only move, and a move after the end is refused.
#[test]
fn games_with_passes_are_read_to_their_end() {
    let kind = GameKind::from_name("reversi").unwrap();
    let options: Options = [("size".to_string(), "6".to_string())].into();
    let (mut lines, mut expected) = (Vec::new(), Vec::new());
    let mut with_pass = 0;
    for seed in 0..400u64 {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut pos = kind.new_position(&options, None).unwrap();
        let mut moves: Vec<String> = Vec::new();
        let mut pass_at = None;
        while let Some(mv) = pos.random_move_text(&mut rng) {
            if mv == "pass" && pass_at.is_none() {
                pass_at = Some(moves.len());
            }
            pos.play_text(&mv).unwrap();
            moves.push(mv);
        }
        let Some(pass_at) = pass_at else { continue };
        with_pass += 1;
        let texts: Vec<&str> = moves.iter().map(String::as_str).collect();
        // The whole game: over, its outcome the rules' own.
        let outcome = pos.outcome().unwrap();
        lines.push(record(&texts));
        expected.push(json!({"status": "over", "winner": outcome.winner.map(|w| w.index()), "scores": outcome.scores}));
        // Cut just before the first pass: `pass` is the only legal move.
        lines.push(record(&texts[..pass_at]));
        expected.push(json!({"legal": ["pass"]}));
        // One move after the end: refused at that ply.
        let mut after = texts.clone();
        after.push("a1");
        lines.push(record(&after));
        expected.push(json!({"status": "illegal", "ply": texts.len(), "error": "move \"a1\" after the end of the game"}));
        if with_pass == 20 {
            break;
        }
    }
    assert!(with_pass >= 5, "random 6x6 games with a pass: {with_pass}");
    let out = verify(&["-o", "size=6"], &lines);
    for (got, want) in out.iter().zip(&expected) {
        for (key, value) in want.as_object().unwrap() {
            assert_eq!(&got[key], value, "{key} in {got}");
        }
    }
}
