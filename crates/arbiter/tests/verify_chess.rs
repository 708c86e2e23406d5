//! `arbiter verify chess` against an independent judge: random games played and ended by
//! python-chess (from the venv `scripts/setup-chess-tests` makes), with the draws in
//! fastchess's order (mate and stalemate, insufficient material, fifty moves, the third
//! occurrence of a position), fed to the binary: every finished game's verdict is
//! python-chess's, every game cut short is still going with python-chess's legal moves.

mod common;

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

/// Plays GAMES random games (seeded), prints each as JSON: its moves in UCI, python-chess's
/// verdict, and the same game cut at a random ply with the legal moves there.
const JUDGE: &str = r#"import json, random, sys
import chess
rng = random.Random(int(sys.argv[2]))
for _ in range(int(sys.argv[1])):
    board = chess.Board()
    moves, end = [], None
    while end is None:
        board.push(rng.choice(sorted(board.legal_moves, key=lambda m: m.uci())))
        moves.append(board.peek().uci())
        if not any(board.legal_moves):
            end = ("checkmate", 1 if board.turn == chess.WHITE else 0) if board.is_check() else ("stalemate", None)
        elif board.is_insufficient_material():
            end = ("insufficient material", None)
        elif board.halfmove_clock >= 100:
            end = ("fifty moves", None)
        elif board.is_repetition(3):
            end = ("threefold repetition", None)
    cut = rng.randrange(len(moves))
    cut_board = chess.Board()
    for uci in moves[:cut]:
        cut_board.push_uci(uci)
    print(json.dumps({"moves": moves, "reason": end[0], "winner": end[1], "cut": cut,
                      "legal": sorted(m.uci() for m in cut_board.legal_moves)}))
"#;

/// `arbiter verify chess` on `lines`.
fn verify(lines: &[String]) -> Vec<Value> {
    common::verify("chess", &[], lines)
}

#[test]
fn verdicts_agree_with_python_chess_on_random_games() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    assert!(Command::new(repo.join("scripts/setup-chess-tests")).status().unwrap().success());
    let judged = Command::new(repo.join("tests/chess/.venv/bin/python")).args(["-c", JUDGE, "300", "46"]).output().unwrap();
    assert!(judged.status.success(), "{}", String::from_utf8_lossy(&judged.stderr));
    let games: Vec<Value> = String::from_utf8(judged.stdout).unwrap().lines().map(|line| serde_json::from_str(line).unwrap()).collect();
    assert_eq!(games.len(), 300);
    let mut lines = Vec::new();
    for game in &games {
        let moves = game["moves"].as_array().unwrap();
        let cut = game["cut"].as_u64().unwrap() as usize;
        lines.push(json!({ "moves": moves }).to_string());
        lines.push(json!({ "moves": &moves[..cut] }).to_string());
    }
    let out = verify(&lines);
    let mut reasons = std::collections::BTreeMap::new();
    for (idx, game) in games.iter().enumerate() {
        let (whole, cut) = (&out[2 * idx], &out[2 * idx + 1]);
        assert_eq!(whole["status"], "over", "game {idx} ({}): {whole}", game["reason"]);
        assert_eq!(whole["winner"], game["winner"], "game {idx} ({}): {whole}", game["reason"]);
        assert_eq!(cut["status"], "ongoing", "game {idx} cut at {}: {cut}", game["cut"]);
        let mut legal: Vec<&str> = cut["legal"].as_array().unwrap().iter().map(|m| m.as_str().unwrap()).collect();
        legal.sort();
        let want: Vec<&str> = game["legal"].as_array().unwrap().iter().map(|m| m.as_str().unwrap()).collect();
        assert_eq!(legal, want, "game {idx} cut at {}", game["cut"]);
        *reasons.entry(game["reason"].as_str().unwrap().to_string()).or_insert(0) += 1;
    }
    // Random games end every way the rules know.
    for reason in ["checkmate", "stalemate", "insufficient material", "fifty moves", "threefold repetition"] {
        assert!(reasons.get(reason).is_some_and(|&n| n > 0), "no game ended by {reason}: {reasons:?}");
    }
}
