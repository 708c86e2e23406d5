//! The alpha-beta searches' speed: the time each takes to a fixed depth from a fixed
//! position, its nodes, and nodes a second (`docs/benchmarks.md`, "Built-in players: one
//! negamax"). Run in a release build, `cargo run --release -p players --example
//! search_speed [ROUNDS]`: each search is run ROUNDS times (3 by default) and the
//! fastest time kept.

use std::time::{Duration, Instant};

use players::gomoku::board::Board;
use players::{Budget, Found, connect4, gomoku, search};
use rules::{Game, Options};

fn never() -> bool {
    false
}

/// `G`'s position with `options` after `moves` (the game's notation).
fn line<G: Game>(options: &[(&str, &str)], moves: &str) -> G {
    let options: Options = options.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let mut pos = G::new(&options, None).expect("options");
    for text in moves.split_whitespace() {
        let mv = pos.parse_move(text).expect(text);
        pos.play(&mv).expect(text);
    }
    pos
}

/// Runs `search` `rounds` times; prints its fastest time, nodes, and nodes a second.
fn measure<M>(name: &str, rounds: u32, mut search: impl FnMut() -> Option<Found<M>>) {
    let mut best = Duration::MAX;
    let mut nodes = 0;
    let mut depth = 0;
    for _ in 0..rounds {
        let began = Instant::now();
        let found = search().expect("a move");
        best = best.min(began.elapsed());
        (nodes, depth) = (found.nodes, found.depth);
    }
    let per_second = nodes as f64 / best.as_secs_f64();
    println!("{name:<44} depth {depth:>2}  {nodes:>10} nodes  {:>8.3} s  {per_second:>12.0} nodes/s", best.as_secs_f64());
}

fn main() {
    let rounds = std::env::args().nth(1).map_or(3, |n| n.parse().expect("ROUNDS, a number"));
    let budget = Budget { nodes: None, stop: &never };
    let c4: rules::connect4::Position = line(&[], "3 3");
    measure("connect4 7x6 after 3 3, in place, depth 12", rounds, || connect4::alphabeta::best_move(&c4, &budget, 12));
    let c4_20: rules::connect4::Position = line(&[("width", "20"), ("height", "20")], "10 10");
    measure("connect4 20x20 after 10 10, in place, depth 7", rounds, || connect4::alphabeta::best_move(&c4_20, &budget, 7));
    let gomoku: rules::gomoku::Position = line(&[], "E5 E6");
    measure("gomoku after E5 E6, in place (table), depth 9", rounds, || {
        let mut board = Board::new(&gomoku);
        let mut moves = Vec::new();
        board.search_moves(&mut moves);
        gomoku::alphabeta::best_move_among(&mut board, moves, &budget, 9)
    });
    measure("gomoku after E5 E6, generic, depth 7", rounds, || search::best_move(&gomoku, &budget, 7));
    let reversi: rules::reversi::Position = line(&[], "");
    measure("reversi start, generic, depth 9", rounds, || search::best_move(&reversi, &budget, 9));
    let chess: rules::chess::Position = line(&[], "e2e4 e7e5");
    measure("chess after e2e4 e7e5, generic, depth 6", rounds, || search::best_move(&chess, &budget, 6));
}
