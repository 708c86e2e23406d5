//! Connect Four's in-place alpha-beta (`connect4::alphabeta`, what `medium` and `strong`
//! search on boards other than the solver's 7×6) against the plain search of
//! `players::search` on the rules' positions: the same evaluation after any moves and
//! take-backs, and the same move, value, depth and node count from random positions of
//! several board sizes, at fixed depths and under node limits.

use players::Budget;
use players::connect4::alphabeta::{self, Board};
use players::search::{self, Heuristic};
use proptest::prelude::*;
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};
use rules::connect4::Position;
use rules::{Game, Options, Side};

fn position(width: usize, height: usize, plies: usize, seed: u64) -> Position {
    let options: Options = [("width", width), ("height", height)].iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let mut pos = Position::new(&options, None).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for _ in 0..plies {
        // Stop short of the end: the searches are compared on games that go on.
        let Some(mv) = pos.random_move(&mut rng) else { break };
        let mut next = pos.clone();
        next.play(&mv).unwrap();
        if next.outcome().is_some() {
            break;
        }
        pos = next;
    }
    pos
}

fn no_stop() -> bool {
    false
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn the_kept_evaluation_is_the_survey_of_the_board(
        size in prop::sample::select(vec![(7usize, 6usize), (20, 20), (9, 4), (4, 9)]),
        plies in 0usize..60,
        seed in any::<u64>(),
    ) {
        let pos = position(size.0, size.1, plies, seed);
        let mut board = Board::new(&pos);
        for side in Side::BOTH {
            prop_assert_eq!(board.evaluate(side), pos.evaluate(side));
        }
        // Further moves and their take-backs keep it.
        let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 1);
        let mut line = pos.clone();
        let mut played = Vec::new();
        for _ in 0..rng.random_range(1..12) {
            let Some(mv) = line.random_move(&mut rng) else { break };
            line.play(&mv).unwrap();
            played.push((mv.column as usize, board.play(mv.column as usize)));
            if line.outcome().is_some() {
                break;
            }
            for side in Side::BOTH {
                prop_assert_eq!(board.evaluate(side), line.evaluate(side));
            }
        }
        while let Some((x, won)) = played.pop() {
            board.undo(x, won);
        }
        for side in Side::BOTH {
            prop_assert_eq!(board.evaluate(side), pos.evaluate(side));
        }
        let (mut kept, mut plain) = (Vec::new(), Vec::new());
        board.search_moves(&mut kept);
        pos.search_moves(&mut plain);
        prop_assert_eq!(kept, plain.iter().map(|mv| mv.column as usize).collect::<Vec<_>>());
    }

    #[test]
    fn the_search_finds_what_the_plain_search_finds(
        size in prop::sample::select(vec![(7usize, 6usize), (20, 20), (8, 8)]),
        plies in 0usize..40,
        seed in any::<u64>(),
        depth in 1u32..4,
        limit in prop::option::of(50u64..4000),
    ) {
        let pos = position(size.0, size.1, plies, seed);
        let budget = Budget { nodes: limit, stop: &no_stop };
        let max_depth = if limit.is_some() { search::MAX_DEPTH } else { depth };
        let kept = alphabeta::best_move(&pos, &budget, max_depth);
        let plain = search::best_move(&pos, &budget, max_depth);
        prop_assert_eq!(kept, plain);
    }
}
