//! Gomoku's `strong` search: its in-place board keeps the same evaluation and move
//! ordering as the whole-board survey over random games, and its alpha-beta (table,
//! killers, null windows) finds the same value as the plain search at a fixed depth.

use players::Budget;
use players::gomoku::alphabeta;
use players::gomoku::board::{Board, to_move};
use players::search::{self, Heuristic};
use proptest::prelude::*;
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;
use rules::Game;
use rules::gomoku::{Move, Position};

const DEPTH: u32 = 6;

fn never() -> bool {
    false
}

/// What the board says and what the position's survey says, side by side.
fn check_agrees(board: &Board, pos: &Position) {
    assert_eq!(board.is_over(), pos.outcome().is_some(), "{}", pos.field_text());
    assert_eq!(board.winner(), pos.outcome().and_then(|o| o.winner), "{}", pos.field_text());
    if pos.outcome().is_some() {
        return;
    }
    let me = pos.to_move().expect("game on");
    assert_eq!(board.to_move(), me);
    for side in [me, me.other()] {
        assert_eq!(board.evaluate(side), pos.evaluate(side), "{}", pos.field_text());
        let fives: Vec<Move> = (0..100).filter(|&c| board.fives(side) & (1 << c) != 0).map(|c| to_move(c as u8)).collect();
        let mut expected = pos.completing_cells(side);
        expected.sort();
        assert_eq!(fives, expected, "{}", pos.field_text());
    }
    let mut ours = Vec::new();
    board.search_moves(&mut ours);
    let ours: Vec<Move> = ours.into_iter().map(to_move).collect();
    let mut theirs = Vec::new();
    pos.search_moves(&mut theirs);
    assert_eq!(ours, theirs, "{}", pos.field_text());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Over a random game (random moves, or the ordering's first move now and then, so
    /// that fours and fives come up), the board kept up per move agrees with the survey
    /// of the whole board after every move, and taking every move back gives the start.
    #[test]
    fn the_board_kept_per_move_agrees_with_the_survey(seed in any::<u64>(), greedy in 0u32..4) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut pos = Position::empty();
        let mut board = Board::new(&pos);
        let start = board.clone();
        let mut played = Vec::new();
        check_agrees(&board, &pos);
        while pos.outcome().is_none() {
            let ordered = rand::RngExt::random_ratio(&mut rng, greedy, 4);
            let mv = next_move(&pos, ordered, &mut rng);
            pos.play(&mv).expect("legal");
            board.make(mv.index());
            played.push(mv.index());
            check_agrees(&board, &pos);
        }
        for &cell in played.iter().rev() {
            board.unmake(cell);
        }
        prop_assert_eq!(board, start);
    }
}

/// The search's first-ordered move in `pos` when `ordered`, else a random one.
fn next_move(pos: &Position, ordered: bool, rng: &mut ChaCha8Rng) -> Move {
    if ordered {
        let mut moves = Vec::new();
        pos.search_moves(&mut moves);
        moves[0]
    } else {
        pos.random_move(rng).expect("game on")
    }
}

/// Positions of 4 to 29 marks from games between random and ordered moves.
fn sample_positions() -> Vec<Position> {
    let mut positions = Vec::new();
    for seed in 0..12u64 {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut pos = Position::empty();
        let plies = 4 + (seed as usize * 7) % 26;
        for ply in 0..plies {
            let mv = next_move(&pos, ply % 3 == 2, &mut rng);
            pos.play(&mv).expect("legal");
            if pos.outcome().is_some() {
                break;
            }
        }
        if pos.outcome().is_none() {
            positions.push(pos);
        }
    }
    positions
}

#[test]
fn the_table_search_finds_the_plain_searchs_value() {
    let budget = Budget { nodes: None, stop: &never };
    let positions = sample_positions();
    assert!(positions.len() >= 10);
    let mut totals = [0u64; 2];
    for pos in positions {
        for depth in 1..=DEPTH {
            let mut moves = Vec::new();
            pos.search_moves(&mut moves);
            let plain = search::best_move_among(&pos, moves, &budget, depth).expect("a move");
            let mut board = Board::new(&pos);
            let mut cells = Vec::new();
            board.search_moves(&mut cells);
            let ours = alphabeta::best_move_among(&mut board, cells, &budget, depth).expect("a move");
            assert_eq!(ours.eval, plain.eval, "depth {depth}\n{}", pos.field_text());
            assert_eq!(board, Board::new(&pos), "the search leaves the board as it found it");
            if depth == DEPTH {
                totals[0] += ours.nodes;
                totals[1] += plain.nodes;
            }
        }
    }
    // And it gets there with fewer nodes (the table and the killers at work).
    assert!(totals[0] * 10 < totals[1] * 9, "nodes at depth {DEPTH}: {} with the table, {} plain", totals[0], totals[1]);
    eprintln!("nodes at depth {DEPTH}: {} with the table, {} plain", totals[0], totals[1]);
}
