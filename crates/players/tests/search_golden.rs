//! The alpha-beta searches' answers, fixed: for positions of Connect Four (7×6 and
//! 20×20), Gomoku, Reversi and chess, the move, evaluation, depth reached and nodes
//! searched of each search at a fixed depth, and of the `medium` and `strong` rungs
//! under node limits, as the searches gave them before they became one negamax (issue
//! 44). The table was written from the three copies of alpha-beta it replaced; the one
//! negamax must give every row unchanged, nodes included (the same tree, in the same
//! order, stopped at the same node).

use players::gomoku::board::Board;
use players::{Budget, Found, Rung, search_move};
use players::{connect4, gomoku, search};
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;
use rules::{Game, Options};

fn never() -> bool {
    false
}

/// `G`'s position with `options` after `moves` (the game's notation, spaces between).
fn line<G: Game>(options: &[(&str, &str)], moves: &str) -> G {
    let options: Options = options.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let mut pos = G::new(&options, None).expect("options");
    for text in moves.split_whitespace() {
        let mv = pos.parse_move(text).expect(text);
        pos.play(&mv).expect(text);
    }
    pos
}

/// A search's answer on one line: move, evaluation, depth, nodes.
fn said<G: Game>(pos: &G, found: Option<Found<G::Move>>) -> String {
    match found {
        Some(found) => format!("{} {:?} d{} n{}", pos.format_move(&found.mv), found.eval, found.depth, found.nodes),
        None => "none".to_string(),
    }
}

/// Which search a row runs.
#[derive(Copy, Clone, Debug)]
enum Run {
    /// `search::best_move` on the rules' position to this depth.
    Plain(u32),
    /// Connect Four's in-place alpha-beta to this depth.
    Connect4Board(u32),
    /// Gomoku's in-place alpha-beta (table, null windows) to this depth, over its
    /// ordering's moves.
    GomokuBoard(u32),
    /// The rung's search (`search_move`), seeded RNG 7, within this node limit.
    Rung(Rung, u64),
}

/// Runs `run` on `pos`.
fn run<G: search::Heuristic + players::Tuning>(pos: &G, run: Run, board: impl FnOnce(u32, &Budget) -> Option<Found<G::Move>>) -> String {
    let unlimited = Budget { nodes: None, stop: &never };
    let found = match run {
        Run::Plain(depth) => search::best_move(pos, &unlimited, depth),
        Run::Connect4Board(depth) | Run::GomokuBoard(depth) => board(depth, &unlimited),
        Run::Rung(rung, nodes) => {
            let mut rng = ChaCha8Rng::seed_from_u64(7);
            search_move(pos, rung, &mut rng, &Budget { nodes: Some(nodes), stop: &never })
        }
    };
    said(pos, found)
}

fn check(rows: &[(&str, Run, &str)], answer: impl Fn(&str, Run) -> String) {
    let mut wrong = Vec::new();
    for &(moves, how, expected) in rows {
        let got = answer(moves, how);
        if got != expected {
            wrong.push(format!("({moves:?}, Run::{how:?}, {got:?}), // expected {expected:?}"));
        }
    }
    assert!(wrong.is_empty(), "rows that differ:\n{}", wrong.join("\n"));
}

const C4_20: [(&str, &str); 2] = [("width", "20"), ("height", "20")];

#[test]
fn connect4_seven_by_six() {
    check(CONNECT4_7X6, |moves, how| {
        let pos: rules::connect4::Position = line(&[], moves);
        run(&pos, how, |depth, budget| connect4::alphabeta::best_move(&pos, budget, depth))
    });
}

#[test]
fn connect4_twenty_by_twenty() {
    check(CONNECT4_20X20, |moves, how| {
        let pos: rules::connect4::Position = line(&C4_20, moves);
        run(&pos, how, |depth, budget| connect4::alphabeta::best_move(&pos, budget, depth))
    });
}

#[test]
fn gomoku() {
    check(GOMOKU, |moves, how| {
        let pos: rules::gomoku::Position = line(&[], moves);
        run(&pos, how, |depth, budget| {
            let mut board = Board::new(&pos);
            let mut moves = Vec::new();
            board.search_moves(&mut moves);
            gomoku::alphabeta::best_move_among(&mut board, moves, budget, depth)
        })
    });
}

#[test]
fn reversi() {
    check(REVERSI, |moves, how| {
        let pos: rules::reversi::Position = line(&[], moves);
        run(&pos, how, |_, _| unreachable!("no board of its own"))
    });
}

#[test]
fn chess() {
    check(CHESS, |moves, how| {
        let pos: rules::chess::Position = line(&[], moves);
        run(&pos, how, |_, _| unreachable!("no board of its own"))
    });
}

const CONNECT4_7X6: &[(&str, Run, &str)] = &[
    ("", Run::Plain(4), "3 Score(-2) d4 n445"),
    ("", Run::Connect4Board(4), "3 Score(-2) d4 n445"),
    ("", Run::Connect4Board(8), "3 Score(-11) d8 n39334"),
    ("", Run::Rung(Rung::Medium, 500), "3 Score(-3) d2 n39"),
    ("", Run::Rung(Rung::Medium, 20), "3 Score(7) d1 n20"),
    ("3 2 6 0 1 4", Run::Plain(4), "3 Score(-4) d4 n552"),
    ("3 2 6 0 1 4", Run::Connect4Board(4), "3 Score(-4) d4 n552"),
    ("3 2 6 0 1 4", Run::Connect4Board(8), "3 Score(-2) d8 n25665"),
    ("3 2 6 0 1 4", Run::Rung(Rung::Medium, 500), "2 Score(-1) d2 n27"),
    ("3 2 6 0 1 4", Run::Rung(Rung::Medium, 20), "2 Score(21) d1 n20"),
    ("1 6 3 3 0 5 1 6 1 1 5 4", Run::Plain(4), "2 Mate(1) d1 n7"),
    ("1 6 3 3 0 5 1 6 1 1 5 4", Run::Connect4Board(4), "2 Mate(1) d1 n7"),
    ("1 6 3 3 0 5 1 6 1 1 5 4", Run::Connect4Board(8), "2 Mate(1) d1 n7"),
    ("1 6 3 3 0 5 1 6 1 1 5 4", Run::Rung(Rung::Medium, 500), "2 Mate(1) d1 n7"),
    ("1 6 3 3 0 5 1 6 1 1 5 4", Run::Rung(Rung::Medium, 20), "2 Mate(1) d1 n7"),
    ("0 4 4 0 6 2 5 0 5 4 2 5 2 1 4 1 3 2 5 1", Run::Plain(4), "3 Mate(1) d1 n7"),
    ("0 4 4 0 6 2 5 0 5 4 2 5 2 1 4 1 3 2 5 1", Run::Connect4Board(4), "3 Mate(1) d1 n7"),
    ("0 4 4 0 6 2 5 0 5 4 2 5 2 1 4 1 3 2 5 1", Run::Connect4Board(8), "3 Mate(1) d1 n7"),
    ("0 4 4 0 6 2 5 0 5 4 2 5 2 1 4 1 3 2 5 1", Run::Rung(Rung::Medium, 500), "3 Mate(1) d1 n7"),
    ("0 4 4 0 6 2 5 0 5 4 2 5 2 1 4 1 3 2 5 1", Run::Rung(Rung::Medium, 20), "3 Mate(1) d1 n7"),
];
const CONNECT4_20X20: &[(&str, Run, &str)] = &[
    ("10 8", Run::Plain(3), "12 Score(21) d3 n816"),
    ("10 8", Run::Connect4Board(5), "12 Score(36) d5 n35057"),
    ("10 8", Run::Rung(Rung::Medium, 500), "12 Score(-1) d2 n85"),
    ("10 8", Run::Rung(Rung::Strong, 20000), "12 Score(-1) d4 n20000"),
    ("3 17 10 10 0 15 4 17 3 4", Run::Plain(3), "2 Mate(3) d3 n558"),
    ("3 17 10 10 0 15 4 17 3 4", Run::Connect4Board(5), "2 Mate(3) d3 n558"),
    ("3 17 10 10 0 15 4 17 3 4", Run::Rung(Rung::Medium, 500), "2 Score(49) d2 n80"),
    ("3 17 10 10 0 15 4 17 3 4", Run::Rung(Rung::Strong, 20000), "2 Mate(3) d3 n558"),
    ("2 12 12 1 18 6 15 1 15 11 5 16 6 4 13 4 11 5 15 4 14 16 5 18 9 8 9 14 19 16", Run::Plain(3), "15 Mate(1) d1 n20"),
    ("2 12 12 1 18 6 15 1 15 11 5 16 6 4 13 4 11 5 15 4 14 16 5 18 9 8 9 14 19 16", Run::Connect4Board(5), "15 Mate(1) d1 n20"),
    ("2 12 12 1 18 6 15 1 15 11 5 16 6 4 13 4 11 5 15 4 14 16 5 18 9 8 9 14 19 16", Run::Rung(Rung::Medium, 500), "15 Mate(1) d1 n20"),
    ("2 12 12 1 18 6 15 1 15 11 5 16 6 4 13 4 11 5 15 4 14 16 5 18 9 8 9 14 19 16", Run::Rung(Rung::Strong, 20000), "15 Mate(1) d1 n20"),
];
const GOMOKU: &[(&str, Run, &str)] = &[
    ("E5 J3", Run::Plain(3), "F5 Score(182) d3 n238"),
    ("E5 J3", Run::GomokuBoard(5), "F6 Score(509) d5 n4098"),
    ("E5 J3", Run::Rung(Rung::Medium, 500), "F5 Score(34) d2 n47"),
    ("E5 J3", Run::Rung(Rung::Strong, 20000), "D4 Score(178) d6 n20000"),
    ("J1 I8 C5 F5 D0 I7", Run::Plain(3), "D4 Score(35) d3 n276"),
    ("J1 I8 C5 F5 D0 I7", Run::GomokuBoard(5), "D4 Score(39) d5 n1861"),
    ("J1 I8 C5 F5 D0 I7", Run::Rung(Rung::Medium, 500), "D4 Score(-288) d2 n47"),
    ("J1 I8 C5 F5 D0 I7", Run::Rung(Rung::Strong, 20000), "D4 Score(-371) d6 n20000"),
    ("A1 C6 E6 H0 B9 C3 A8 I0 H7 I5 J2 C8", Run::Plain(3), "C4 Score(44) d3 n259"),
    ("A1 C6 E6 H0 B9 C3 A8 I0 H7 I5 J2 C8", Run::GomokuBoard(5), "C4 Score(77) d5 n2379"),
    ("A1 C6 E6 H0 B9 C3 A8 I0 H7 I5 J2 C8", Run::Rung(Rung::Medium, 500), "C4 Score(-275) d2 n47"),
    ("A1 C6 E6 H0 B9 C3 A8 I0 H7 I5 J2 C8", Run::Rung(Rung::Strong, 20000), "C4 Score(302) d7 n20000"),
    ("I9 B7 D6 G0 H4 H8 A9 E7 H2 I1 F0 E8 B3 I0 J8 G4 I8 J5 D0 D9", Run::Plain(3), "G3 Score(2417) d3 n283"),
    ("I9 B7 D6 G0 H4 H8 A9 E7 H2 I1 F0 E8 B3 I0 J8 G4 I8 J5 D0 D9", Run::GomokuBoard(5), "H5 Score(2339) d5 n2218"),
    ("I9 B7 D6 G0 H4 H8 A9 E7 H2 I1 F0 E8 B3 I0 J8 G4 I8 J5 D0 D9", Run::Rung(Rung::Medium, 500), "H3 Score(-18) d2 n47"),
    ("I9 B7 D6 G0 H4 H8 A9 E7 H2 I1 F0 E8 B3 I0 J8 G4 I8 J5 D0 D9", Run::Rung(Rung::Strong, 20000), "G3 Score(-33) d8 n20000"),
    ("E5 F6 D4 C3 F4 G4 E6 E4", Run::Plain(3), "G3 Score(2655) d3 n248"),
    ("E5 F6 D4 C3 F4 G4 E6 E4", Run::GomokuBoard(5), "D5 Score(2660) d5 n3198"),
    ("E5 F6 D4 C3 F4 G4 E6 E4", Run::Rung(Rung::Medium, 500), "G3 Score(218) d2 n58"),
    ("E5 F6 D4 C3 F4 G4 E6 E4", Run::Rung(Rung::Strong, 20000), "D5 Score(369) d6 n20000"),
];
const REVERSI: &[(&str, Run, &str)] = &[
    ("", Run::Plain(4), "d3 Score(-8) d4 n180"),
    ("", Run::Rung(Rung::Medium, 20000), "d3 Score(27) d3 n65"),
    ("", Run::Rung(Rung::Strong, 20000), "d3 Score(-4) d8 n20000"),
    ("f5 d6 c7 f3 c3 e6 f4 e3", Run::Plain(4), "c5 Score(-22) d4 n746"),
    ("f5 d6 c7 f3 c3 e6 f4 e3", Run::Rung(Rung::Medium, 20000), "d3 Score(-1) d3 n143"),
    ("f5 d6 c7 f3 c3 e6 f4 e3", Run::Rung(Rung::Strong, 20000), "d3 Score(-30) d6 n20000"),
    ("d3 c5 d6 c7 b5 b4 f5 b6 a5 d2 e7 g6 a3 d7 g5 b3 a7 g4 b2 e6", Run::Plain(4), "e3 Score(-15) d4 n540"),
    ("d3 c5 d6 c7 b5 b4 f5 b6 a5 d2 e7 g6 a3 d7 g5 b3 a7 g4 b2 e6", Run::Rung(Rung::Medium, 20000), "h5 Score(30) d3 n136"),
    ("d3 c5 d6 c7 b5 b4 f5 b6 a5 d2 e7 g6 a3 d7 g5 b3 a7 g4 b2 e6", Run::Rung(Rung::Strong, 20000), "d8 Score(-21) d6 n20000"),
    (
        "d3 e3 f5 c3 f2 d6 c6 g1 c7 f6 e2 d7 c4 b3 e7 d2 f4 g5 h4 h5 g4 b8 b2 f8 b4 a5 b5 b7 d8 f7 c1 a2 b6 e1 c2 a4 g6 h6 f3 c8",
        Run::Plain(4),
        "f1 Score(46) d4 n714",
    ),
    (
        "d3 e3 f5 c3 f2 d6 c6 g1 c7 f6 e2 d7 c4 b3 e7 d2 f4 g5 h4 h5 g4 b8 b2 f8 b4 a5 b5 b7 d8 f7 c1 a2 b6 e1 c2 a4 g6 h6 f3 c8",
        Run::Rung(Rung::Medium, 20000),
        "a8 Score(71) d3 n179",
    ),
    (
        "d3 e3 f5 c3 f2 d6 c6 g1 c7 f6 e2 d7 c4 b3 e7 d2 f4 g5 h4 h5 g4 b8 b2 f8 b4 a5 b5 b7 d8 f7 c1 a2 b6 e1 c2 a4 g6 h6 f3 c8",
        Run::Rung(Rung::Strong, 20000),
        "a8 Score(81) d6 n20000",
    ),
];
const CHESS: &[(&str, Run, &str)] = &[
    ("c2c4 a7a5 d1a4 c7c6 g2g3 g7g5", Run::Plain(3), "d2d4 Score(107) d3 n1263"),
    ("c2c4 a7a5 d1a4 c7c6 g2g3 g7g5", Run::Rung(Rung::Medium, 20000), "d2d4 Score(-18) d4 n13394"),
    ("c2c4 a7a5 d1a4 c7c6 g2g3 g7g5", Run::Rung(Rung::Strong, 30000), "d2d4 Score(-18) d4 n30000"),
    ("d2d3 b8c6 h2h4 g7g5 h4g5 g8f6 d3d4 f8h6 e2e3 b7b5 d1d2 h6g7 f2f3 e8f8 g2g4 b5b4", Run::Plain(3), "g5f6 Score(439) d3 n1683"),
    (
        "d2d3 b8c6 h2h4 g7g5 h4g5 g8f6 d3d4 f8h6 e2e3 b7b5 d1d2 h6g7 f2f3 e8f8 g2g4 b5b4",
        Run::Rung(Rung::Medium, 20000),
        "g5f6 Score(233) d4 n5259",
    ),
    (
        "d2d3 b8c6 h2h4 g7g5 h4g5 g8f6 d3d4 f8h6 e2e3 b7b5 d1d2 h6g7 f2f3 e8f8 g2g4 b5b4",
        Run::Rung(Rung::Strong, 30000),
        "g5f6 Score(233) d4 n30000",
    ),
    (
        "c2c3 e7e5 g2g4 b7b6 d1b3 d7d5 b3b4 a7a6 b4a5 c8d7 a2a4 a8a7 d2d4 h7h6 f1h3 g7g6 h3f1 b8c6 a5b4 c6b4 c1g5 h8h7 a4a5 d8a8 g1h3 g8f6 f1g2 a7b7 e1d2 h7g7",
        Run::Plain(3),
        "g5f6 Score(-254) d3 n1330",
    ),
    (
        "c2c3 e7e5 g2g4 b7b6 d1b3 d7d5 b3b4 a7a6 b4a5 c8d7 a2a4 a8a7 d2d4 h7h6 f1h3 g7g6 h3f1 b8c6 a5b4 c6b4 c1g5 h8h7 a4a5 d8a8 g1h3 g8f6 f1g2 a7b7 e1d2 h7g7",
        Run::Rung(Rung::Medium, 20000),
        "g5f6 Score(-546) d4 n4585",
    ),
    (
        "c2c3 e7e5 g2g4 b7b6 d1b3 d7d5 b3b4 a7a6 b4a5 c8d7 a2a4 a8a7 d2d4 h7h6 f1h3 g7g6 h3f1 b8c6 a5b4 c6b4 c1g5 h8h7 a4a5 d8a8 g1h3 g8f6 f1g2 a7b7 e1d2 h7g7",
        Run::Rung(Rung::Strong, 30000),
        "g5f6 Score(-546) d4 n30000",
    ),
];
