//! The Connect Four 7×6 solver against positions solved elsewhere (a file of Pascal Pons'
//! published values) and against a plain brute-force search written here, on the rules'
//! own board, for generated end-game positions; `perfect` never loses as the first
//! player and beats a depth-4 negamax player (the kind kaggle-environments ships).

use players::connect4::{Solved, solve};
use players::{Builtin, Play, Rung};
use rand::rngs::ChaCha8Rng;
use rand::seq::IndexedRandom;
use rand::{RngExt, SeedableRng};
use rules::connect4::{Move, Position};
use rules::{Game, Options, Side};

fn start() -> Position {
    Position::new(&Options::new(), None).expect("the 7x6 start")
}

fn no_stop() -> bool {
    false
}

/// A line of the file: moves (1-based columns), score, and column scores where given.
type SolvedLine = (String, i32, Option<Vec<Option<i32>>>);

fn solved_file() -> Vec<SolvedLine> {
    let text = include_str!("data/connect4-solved.txt");
    text.lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .map(|line| {
            let (position, columns) = match line.split_once('|') {
                Some((position, columns)) => (position, Some(columns)),
                None => (line, None),
            };
            let mut fields = position.split_whitespace();
            let moves = fields.next().expect("moves").replace('-', "");
            let score = fields.next().expect("score").parse().expect("a score");
            let columns = columns.map(|c| c.split_whitespace().map(|s| s.parse().ok()).collect());
            (moves, score, columns)
        })
        .collect()
}

fn play_pons(moves: &str) -> Position {
    let mut pos = start();
    for c in moves.chars() {
        let column = c.to_digit(10).expect("a digit") as u8 - 1;
        pos.play(&Move::new(column)).unwrap_or_else(|err| panic!("{moves}: {err}"));
    }
    pos
}

#[test]
fn the_solver_agrees_with_the_published_values() {
    let lines = solved_file();
    assert!(lines.len() >= 20);
    for (moves, score, columns) in lines {
        let solved = solve(&play_pons(&moves)).expect("a position in play");
        assert_eq!(solved.score, score, "position {moves:?}");
        if let Some(columns) = columns {
            assert_eq!(solved.move_scores, columns, "columns of {moves:?}");
        }
    }
}

/// The exact value for the side to move by plain negamax with alpha-beta over the rules'
/// own board: a win with the move that makes the `n`-th disc of the board is worth
/// `(43 - n) / 2`, as Pons scores it.
fn brute_force(pos: &Position, mut alpha: i32, beta: i32) -> i32 {
    let mut moves = Vec::new();
    pos.legal_moves(&mut moves);
    if moves.is_empty() {
        return 0;
    }
    let mut best = -100;
    for mv in moves {
        let mut next = pos.clone();
        next.play_unchecked(&mv);
        let score = if next.outcome().is_some_and(|o| o.winner.is_some()) {
            (43 - next.n_moves() as i32 + 1) / 2
        } else {
            -brute_force(&next, -beta, -alpha)
        };
        best = best.max(score);
        alpha = alpha.max(score);
        if alpha >= beta {
            break;
        }
    }
    best
}

/// Every column's exact value by brute force (full windows: exact, not bounds).
fn brute_force_columns(pos: &Position) -> Solved {
    let move_scores: Vec<Option<i32>> = (0..7)
        .map(|x| {
            pos.is_open(x).then(|| {
                let mut next = pos.clone();
                next.play_unchecked(&Move::new(x as u8));
                if next.outcome().is_some_and(|o| o.winner.is_some()) {
                    (43 - next.n_moves() as i32 + 1) / 2
                } else {
                    -brute_force(&next, -100, 100)
                }
            })
        })
        .collect();
    Solved { score: move_scores.iter().flatten().copied().max().expect("a move"), move_scores }
}

#[test]
fn the_solver_agrees_with_brute_force_near_the_end() {
    let mut rng = ChaCha8Rng::seed_from_u64(14);
    let mut checked = 0;
    while checked < 40 {
        // Random play to 31..=34 discs (8 to 11 empty cells), a position still in play.
        let discs = rng.random_range(31..=34);
        let mut pos = start();
        while pos.n_moves() < discs && pos.outcome().is_none() {
            let mv = pos.random_move(&mut rng).expect("in play");
            pos.play_unchecked(&mv);
        }
        if pos.outcome().is_some() {
            continue;
        }
        assert_eq!(solve(&pos).expect("in play"), brute_force_columns(&pos), "{}", pos.picture());
        checked += 1;
    }
}

/// A depth-4 negamax player like kaggle-environments' `negamax` agent: immediate wins
/// scored as Pons does, anything unresolved after 4 plies scored 0; random among equals.
fn negamax4(pos: &Position, rng: &mut ChaCha8Rng) -> Move {
    fn value(pos: &Position, depth: u32) -> i32 {
        let mut moves = Vec::new();
        pos.legal_moves(&mut moves);
        if moves.is_empty() || depth == 0 {
            return 0;
        }
        let mut best = -100;
        for mv in moves {
            let mut next = pos.clone();
            next.play_unchecked(&mv);
            let score = if next.outcome().is_some_and(|o| o.winner.is_some()) {
                (43 - next.n_moves() as i32 + 1) / 2
            } else {
                -value(&next, depth - 1)
            };
            best = best.max(score);
        }
        best
    }
    let mut moves = Vec::new();
    pos.legal_moves(&mut moves);
    let scored: Vec<(i32, Move)> = moves
        .into_iter()
        .map(|mv| {
            let mut next = pos.clone();
            next.play_unchecked(&mv);
            let score = if next.outcome().is_some_and(|o| o.winner.is_some()) { 100 } else { -value(&next, 3) };
            (score, mv)
        })
        .collect();
    let top = scored.iter().map(|(s, _)| *s).max().expect("a move");
    let best: Vec<Move> = scored.iter().filter(|(s, _)| *s == top).map(|(_, mv)| *mv).collect();
    *best.choose(rng).expect("a best move")
}

/// Plays one game; `players[i]` moves for side `i`. Returns the winner.
fn play_game(players: [&mut dyn FnMut(&Position) -> Move; 2]) -> Option<Side> {
    let mut pos = start();
    while let Some(side) = pos.to_move() {
        let mv = (players[side.index()])(&pos);
        pos.play(&mv).expect("a legal move");
    }
    pos.outcome().expect("over").winner
}

#[test]
fn perfect_never_loses_as_first_player_against_any_rung() {
    for opponent in Builtin::ALL.into_iter().filter(|b| b.rung != Rung::Perfect) {
        // `strong` is `perfect` on 7x6; a node limit keeps `medium` quick in tests.
        let opponent = Builtin { nodes: Some(opponent.node_limit().unwrap_or(1).min(20_000)), ..opponent };
        let opponent = if matches!(opponent.rung, Rung::Random | Rung::Greedy) { Builtin { nodes: None, ..opponent } } else { opponent };
        for seed in 0..4 {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let mut rng2 = ChaCha8Rng::seed_from_u64(seed + 100);
            let winner = play_game([&mut |pos| Builtin::PERFECT.choose(pos, &mut rng, &no_stop).expect("a move"), &mut |pos| {
                opponent.choose(pos, &mut rng2, &no_stop).expect("a move")
            }]);
            assert_eq!(winner, Some(Side::First), "perfect against {opponent}, seed {seed}");
        }
    }
}

#[test]
fn perfect_beats_a_depth_4_negamax_from_either_side() {
    // 100 games in a release build (`cargo test --release`), 20 in the debug suite.
    let games = if cfg!(debug_assertions) { 20 } else { 100 };
    let mut points = 0.0;
    for n in 0..games {
        let mut rng = ChaCha8Rng::seed_from_u64(n);
        let mut rng2 = ChaCha8Rng::seed_from_u64(n + 1000);
        let mut perfect = |pos: &Position| Builtin::PERFECT.choose(pos, &mut rng, &no_stop).expect("a move");
        let mut negamax = |pos: &Position| negamax4(pos, &mut rng2);
        let perfect_side = if n % 2 == 0 { Side::First } else { Side::Second };
        let winner =
            if perfect_side == Side::First { play_game([&mut perfect, &mut negamax]) } else { play_game([&mut negamax, &mut perfect]) };
        points += match winner {
            Some(side) if side == perfect_side => 1.0,
            None => 0.5,
            Some(_) => 0.0,
        };
    }
    assert!(points >= 0.95 * games as f64, "perfect scored {points} of {games} against depth-4 negamax");
}
