//! Tests of the Nupud rules (`docs/games.md`): every rule with board pictures, the hidden
//! set-up, the native text formats, perft counts cross-checked against a naive move
//! generator written here, the generic random-game checker and property tests.

use proptest::prelude::*;
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;
use rules::nupud::{self, Board, Move, NativeError, Piece, Position, Request, Setup, Square};
use rules::{Game, MoveError, Options, Outcome, Side};

// ---------------------------------------------------------------------------------------
// Helpers

/// A position in play from a picture in the native format (rank 6 first).
fn pos(to_move: Side, picture: &str) -> Position {
    let lines: Vec<&str> = picture.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    let board = nupud::parse_board_lines(&lines.join("\n")).expect("test board");
    Position::from_board(board, to_move).expect("test position")
}

fn moves_text(p: &Position) -> Vec<String> {
    let mut moves = Vec::new();
    p.legal_moves(&mut moves);
    moves.iter().map(|m| p.format_move(m)).collect()
}

/// The legal moves from `from` (a square name), as target square names.
fn targets(p: &Position, from: &str) -> Vec<String> {
    moves_text(p).into_iter().filter(|m| m.starts_with(from)).map(|m| m[2..].to_string()).collect()
}

fn setup(text: &str) -> Setup {
    nupud::parse_setup(text).expect("test set-up")
}

fn play(p: &mut Position, text: &str) {
    let mv = p.parse_move(text).expect("test move parses");
    p.play(&mv).unwrap_or_else(|err| panic!("{text}: {err}"));
}

fn illegal_reason(p: &Position, text: &str) -> String {
    let mv = p.parse_move(text).expect("test move parses");
    match p.clone().play(&mv) {
        Err(MoveError::Illegal { reason, .. }) => reason,
        other => panic!("{text}: expected an illegal move, got {other:?}"),
    }
}

// ---------------------------------------------------------------------------------------
// A naive, independent move generator on a 2D array of i8 (+v White, -v Black).

type Naive = [[i8; 6]; 6]; // [rank][file]

fn naive_from(p: &Position) -> Naive {
    let mut b = [[0i8; 6]; 6];
    for (rank, row) in b.iter_mut().enumerate() {
        for (file, cell) in row.iter_mut().enumerate() {
            if let Some(piece) = p.piece_at(Square::new(file, rank).unwrap()) {
                let v = piece.value as i8;
                *cell = if piece.side == Side::First { v } else { -v };
            }
        }
    }
    b
}

fn naive_moves(b: &Naive, white: bool) -> Vec<(usize, usize, usize, usize)> {
    let sign: i8 = if white { 1 } else { -1 };
    let dir: i32 = if white { 1 } else { -1 };
    let mut out = Vec::new();
    let enemy = |x: i8| x * sign < 0;
    for r in 0..6i32 {
        for f in 0..6i32 {
            let cell = b[r as usize][f as usize];
            if cell * sign <= 0 {
                continue;
            }
            let v = (cell * sign) as i32;
            if v == 1 {
                let r2 = r + dir;
                if !(0..6).contains(&r2) {
                    continue;
                }
                if b[r2 as usize][f as usize] == 0 {
                    out.push((r as usize, f as usize, r2 as usize, f as usize));
                }
                for f2 in [f - 1, f + 1] {
                    if (0..6).contains(&f2) && enemy(b[r2 as usize][f2 as usize]) {
                        out.push((r as usize, f as usize, r2 as usize, f2 as usize));
                    }
                }
            } else {
                for k in 1..=v {
                    let r2 = r + k * dir;
                    if !(0..6).contains(&r2) {
                        break;
                    }
                    let target = b[r2 as usize][f as usize];
                    if target == 0 {
                        out.push((r as usize, f as usize, r2 as usize, f as usize));
                    } else {
                        if enemy(target) {
                            out.push((r as usize, f as usize, r2 as usize, f as usize));
                        }
                        break;
                    }
                }
            }
        }
    }
    out
}

fn naive_text(m: &(usize, usize, usize, usize)) -> String {
    format!("{}{}{}{}", (b'a' + m.1 as u8) as char, m.0 + 1, (b'a' + m.3 as u8) as char, m.2 + 1)
}

fn naive_score(b: &Naive, white: bool) -> i64 {
    let sign: i8 = if white { 1 } else { -1 };
    let far = if white { 5 } else { 0 };
    let mut score = 0;
    for (r, row) in b.iter().enumerate() {
        for &cell in row {
            if cell * sign > 0 {
                let v = (cell * sign) as i64;
                score += if r == far { 3 * v } else { v };
            }
        }
    }
    score
}

fn naive_perft(b: &Naive, white: bool, depth: u32) -> u64 {
    let moves = naive_moves(b, white);
    if depth == 1 {
        return moves.len() as u64;
    }
    moves
        .iter()
        .map(|&(r, f, r2, f2)| {
            let mut next = *b;
            next[r2][f2] = next[r][f];
            next[r][f] = 0;
            naive_perft(&next, !white, depth - 1)
        })
        .sum()
}

fn naive_after_setups(white: &str, black: &str) -> Naive {
    let mut b = [[0i8; 6]; 6];
    for (f, (w, k)) in white.bytes().zip(black.bytes()).enumerate() {
        b[0][f] = (w - b'0') as i8;
        b[5][f] = -((k - b'0') as i8);
    }
    b
}

// ---------------------------------------------------------------------------------------
// Set-up

#[test]
fn start_is_the_setup_phase_with_120_setups_in_ascending_order() {
    let p = Position::new(&Options::new(), None).unwrap();
    assert_eq!(p.to_move(), Some(Side::First));
    assert!(p.is_setup_phase());
    assert_eq!(p.start_text(), None);
    assert_eq!(p.running_scores(), Some([0, 0]));
    let moves = moves_text(&p);
    assert_eq!(moves.len(), 120);
    assert_eq!(moves[0], "111234");
    assert_eq!(moves[119], "432111");
    let numbers: Vec<u32> = moves.iter().map(|m| m.parse().unwrap()).collect();
    assert!(numbers.windows(2).all(|w| w[0] < w[1]), "ascending and distinct");
    assert!(moves.iter().all(|m| nupud::parse_setup(m).is_ok()));
    assert_eq!(Setup::all().len(), 120);
}

#[test]
fn both_setups_fill_the_home_ranks_and_white_moves_first() {
    let mut p = Position::new_game();
    play(&mut p, "143211");
    assert_eq!(p.to_move(), Some(Side::Second));
    assert_eq!(p.running_scores(), Some([0, 0]));
    assert_eq!(moves_text(&p).len(), 120);
    play(&mut p, "432111");
    assert_eq!(p.to_move(), Some(Side::First));
    assert!(!p.is_setup_phase());
    assert!(!p.hides_last_move());
    assert_eq!(
        nupud::format_move_input(&p, Side::First),
        "move white\nB4 B3 B2 B1 B1 B1\n. . . . . .\n. . . . . .\n. . . . . .\n. . . . . .\nW1 W4 W3 W2 W1 W1\n"
    );
    assert_eq!(p.setups(), Some([setup("143211"), setup("432111")]));
    assert_eq!(p.running_scores(), Some([12, 12]));
    assert_eq!(p.n_moves(), 2);
}

#[test]
fn illegal_setups_are_refused() {
    let p = Position::new_game();
    // wrong multiset
    for text in ["112233", "444111", "432110", "111111", "532111"] {
        assert!(matches!(p.parse_move(text), Err(MoveError::Illegal { .. })), "{text}");
        assert!(matches!(nupud::parse_setup(text), Err(NativeError::SetupValues(_))), "{text}");
    }
    // wrong length or not digits
    for text in ["43211", "4321111", "", "43a111", "4 3 2 1 1 1"] {
        assert!(matches!(nupud::parse_setup(text), Err(NativeError::SetupShape(_))), "{text:?}");
    }
    for text in ["43211", "4321111", "43a111"] {
        assert!(matches!(p.parse_move(text), Err(MoveError::Parse { .. })), "{text}");
    }
    // a step during the set-up, a set-up during play
    assert!(matches!(p.clone().play(&p.parse_move("a1a2").unwrap()), Err(MoveError::Illegal { .. })));
    let mut q = Position::from_setups(setup("432111"), setup("432111"));
    assert!(matches!(q.play(&Move::Setup(setup("432111"))), Err(MoveError::Illegal { .. })));
    // lenient reading
    assert_eq!(p.parse_move(" 143211\n").unwrap(), Move::Setup(setup("143211")));
}

#[test]
fn whites_setup_stays_hidden_until_black_has_set_up() {
    let start = Position::new_game();
    assert!(!start.hides_last_move());
    let mut a = start.clone();
    let mut b = start.clone();
    play(&mut a, "432111");
    play(&mut b, "111234");
    for p in [&a, &b] {
        assert!(p.hides_last_move());
        assert!(p.has_set_up(Side::First));
        assert!(!p.has_set_up(Side::Second));
        assert_eq!(p.last_move(), None);
        assert_eq!(p.setups(), None);
        assert_eq!(p.running_scores(), Some([0, 0]));
        assert!(p.picture().contains("White has set up"), "{}", p.picture());
    }
    assert_ne!(a, b, "the positions differ, even if nothing shows it");
    assert_eq!(a.picture(), b.picture());
    assert_eq!(format!("{a:?}"), format!("{b:?}"));
    assert!(!format!("{a:?}").contains("432111"));
    assert_eq!(a.board(), b.board());
    assert_eq!(a.board(), &Board::empty());
    for side in Side::BOTH {
        assert_eq!(nupud::format_move_input(&a, side), nupud::format_move_input(&b, side));
    }
    assert_eq!(moves_text(&a), moves_text(&b));
    assert_eq!(a.to_move(), b.to_move());
    // revealed once Black has set up
    play(&mut a, "143211");
    play(&mut b, "143211");
    assert!(!a.hides_last_move());
    assert_ne!(a.picture(), b.picture());
    assert_eq!(a.last_move(), Some(Move::Setup(setup("143211"))));
}

// ---------------------------------------------------------------------------------------
// Moves of each value

#[test]
fn a_four_moves_one_to_four_squares_forward() {
    let p = pos(
        Side::First,
        "
        . . . . . .
        . . . . . .
        . . . . . .
        . . . . . .
        . . . . . .
        . . W4 . . .",
    );
    assert_eq!(targets(&p, "c1"), ["c2", "c3", "c4", "c5"]);
    let p = pos(
        Side::Second,
        "
        . . . . B4 .
        . . . . . .
        . . . . . .
        . . . . . .
        . . . . . .
        . . . . . W1",
    );
    assert_eq!(targets(&p, "e6"), ["e2", "e3", "e4", "e5"]);
}

#[test]
fn a_three_and_a_two_move_up_to_their_value() {
    let p = pos(
        Side::First,
        "
        . . . . . .
        . . . . . .
        . . . . . .
        . . . . . .
        . W2 . . . .
        W3 . . . . .",
    );
    assert_eq!(targets(&p, "a1"), ["a2", "a3", "a4"]);
    assert_eq!(targets(&p, "b2"), ["b3", "b4"]);
    // near the far rank the board ends the path
    let p = pos(
        Side::First,
        "
        . . . . . .
        . . . W4 . .
        . . . . . .
        . . . . . .
        . . . . . .
        . . . . . .",
    );
    assert_eq!(targets(&p, "d5"), ["d6"]);
}

#[test]
fn a_one_steps_forward_onto_an_empty_square_only() {
    let p = pos(
        Side::First,
        "
        . . . . . .
        . . . . . .
        . . . . . .
        . . . . . .
        . . . . . .
        . . W1 . . .",
    );
    assert_eq!(targets(&p, "c1"), ["c2"]);
    // straight ahead blocked by an enemy: no straight capture
    let p = pos(
        Side::First,
        "
        . . . . . .
        . . . . . .
        . . . . . .
        . . . . . .
        . . B1 . . .
        . . W1 . . W2",
    );
    assert_eq!(targets(&p, "c1"), Vec::<String>::new());
    assert!(illegal_reason(&p, "c1c2").contains("empty square"));
    assert!(illegal_reason(&p, "c1c3").contains("one square forward"));
}

#[test]
fn a_one_captures_diagonally_forward_only_enemies() {
    let p = pos(
        Side::First,
        "
        . . . . . .
        . . . . . .
        . . . . . .
        . . . . . .
        . B2 . W1 . .
        . . W1 . . .",
    );
    assert_eq!(targets(&p, "c1"), ["b2", "c2"]);
    assert!(illegal_reason(&p, "c1d2").contains("no enemy"));
    // black captures downwards, both sides, not at the board edge
    let p = pos(
        Side::Second,
        "
        . . . . . .
        B1 . . . B1 .
        W3 W1 . W2 . W4
        . . . . . .
        . . . . . .
        . . . . . .",
    );
    assert_eq!(targets(&p, "a5"), ["b4"]);
    assert_eq!(targets(&p, "e5"), ["d4", "e4", "f4"]);
}

#[test]
fn a_piece_cannot_pass_over_pieces_and_captures_the_first_enemy() {
    let p = pos(
        Side::First,
        "
        . . . . . .
        . . B2 . . .
        . . . . . .
        . . . . . .
        . . . . . .
        . . W4 . . .",
    );
    assert_eq!(targets(&p, "c1"), ["c2", "c3", "c4", "c5"]);
    let p = pos(
        Side::First,
        "
        . . . . . .
        . . B2 . . .
        . . B1 . . .
        . . . . . .
        . . . . . .
        . . W4 . . .",
    );
    assert_eq!(targets(&p, "c1"), ["c2", "c3", "c4"]);
    assert_eq!(illegal_reason(&p, "c1c5"), "the path is blocked at c4");
    // an own piece blocks and cannot be captured
    let p = pos(
        Side::First,
        "
        . . . . . .
        . . . . . .
        . . B1 . . .
        . . W1 . . .
        . . . . . .
        . . W4 . . .",
    );
    assert_eq!(targets(&p, "c1"), ["c2"]);
    assert_eq!(illegal_reason(&p, "c1c3"), "c3 holds a piece of your own");
    assert_eq!(illegal_reason(&p, "c1c4"), "the path is blocked at c3");
    assert_eq!(illegal_reason(&p, "c1d2"), "a 4 moves 1 to 4 squares straight forward");
}

#[test]
fn capturing_removes_the_piece_and_is_optional() {
    let mut p = pos(
        Side::First,
        "
        B1 . . . . .
        . . . . . .
        . . B3 . . .
        . . . . . .
        . . W2 . . .
        . . . . . .",
    );
    assert_eq!(targets(&p, "c2"), ["c3", "c4"]);
    assert_eq!(p.running_scores(), Some([2, 4]));
    play(&mut p, "c2c4");
    assert_eq!(p.piece_at(Square::parse("c4").unwrap()), Some(Piece { side: Side::First, value: 2 }));
    assert_eq!(p.piece_at(Square::parse("c2").unwrap()), None);
    assert_eq!(p.running_scores(), Some([2, 1]));
    assert_eq!(p.last_move(), Some(Move::Step { from: Square::parse("c2").unwrap(), to: Square::parse("c4").unwrap() }));
}

#[test]
fn pieces_on_the_far_rank_are_frozen() {
    let p = pos(
        Side::First,
        "
        W4 W1 B1 . . .
        . . . . . .
        . . . . . .
        . . . . . .
        . . . . . .
        . . . . . W1",
    );
    assert_eq!(moves_text(&p), ["f1f2"]);
    assert!(illegal_reason(&p, "b6c6").contains("far rank"));
    let p = pos(
        Side::Second,
        "
        . . . . . .
        . . . . . .
        . . . . . .
        . . . . . .
        W1 . . . . .
        B4 B1 . . . .",
    );
    assert_eq!(moves_text(&p), Vec::<String>::new());
    assert!(p.outcome().is_some());
}

#[test]
fn wrong_pieces_are_refused_with_reasons() {
    let p = pos(
        Side::First,
        "
        . . . . . .
        . . . . . .
        . . . . . .
        . . . . . .
        . . . . . .
        . B1 W1 . . .",
    );
    assert_eq!(illegal_reason(&p, "a1a2"), "there is no piece on a1");
    assert_eq!(illegal_reason(&p, "b1b2"), "the piece on b1 is black's");
    assert!(matches!(p.parse_move("g1g2"), Err(MoveError::Parse { .. })));
    assert!(matches!(p.parse_move("c1"), Err(MoveError::Parse { .. })));
    assert_eq!(p.parse_move(" C1-C2 ").unwrap(), p.parse_move("c1c2").unwrap());
}

// ---------------------------------------------------------------------------------------
// End and score

#[test]
fn the_game_ends_when_the_mover_is_blocked() {
    // White still has pieces, all blocked (the 3 by its own 1); Black could move.
    let p = pos(
        Side::First,
        "
        . . . . . B2
        . . . . . .
        . . . . . .
        B1 . . B1 . .
        W1 . . W1 . .
        . . . W3 . .",
    );
    assert_eq!(p.to_move(), None);
    assert_eq!(p.outcome(), Some(Outcome { winner: Some(Side::First), scores: Some([5, 4]) }));
    assert!(p.picture().contains("game over"));
    let mut moves = Vec::new();
    p.legal_moves(&mut moves);
    assert!(moves.is_empty());
    assert_eq!(p.random_move(&mut ChaCha8Rng::seed_from_u64(1)), None);
    // the same board with Black to move goes on
    let q = pos(
        Side::Second,
        "
        . . . . . B2
        . . . . . .
        . . . . . .
        B1 . . B1 . .
        W1 . . W1 . .
        . . . W3 . .",
    );
    assert_eq!(moves_text(&q), ["f6f4", "f6f5"]);
    assert_eq!(q.outcome(), None);
}

#[test]
fn the_game_ends_when_the_mover_has_no_pieces() {
    let mut p = pos(
        Side::First,
        "
        . . . . . .
        . . . . . .
        . . . . . .
        . . . . . .
        . B1 . . . .
        W1 . . . . .",
    );
    play(&mut p, "a1b2");
    assert_eq!(p.outcome(), Some(Outcome { winner: Some(Side::First), scores: Some([1, 0]) }));
    assert_eq!(p.to_move(), None);
    assert_eq!(p.play(&p.parse_move("b2b3").unwrap()), Err(MoveError::GameOver));
}

#[test]
fn far_rank_pieces_count_triple_and_all_on_far_rank_ends_the_game() {
    let mut p = pos(
        Side::First,
        "
        W4 W3 . . . B1
        . . W1 . . .
        . . . . . .
        . . . . . .
        . . . . . .
        B2 . . . . .",
    );
    // White: 4*3 + 3*3 + 1 = 22; Black: 1 + 2*3 = 7
    assert_eq!(p.running_scores(), Some([22, 7]));
    play(&mut p, "c5c6");
    assert_eq!(p.running_scores(), Some([24, 7]));
    // Black's 2 on a1 is frozen, its 1 can still move
    assert_eq!(moves_text(&p), ["f6f5"]);
    play(&mut p, "f6f5");
    // all of White's pieces stand on the far rank: the game is over
    assert_eq!(p.to_move(), None, "{}", p.picture());
    assert_eq!(p.outcome(), Some(Outcome { winner: Some(Side::First), scores: Some([24, 7]) }));
}

#[test]
fn equal_scores_draw_and_forfeits_have_no_scores() {
    let p = pos(
        Side::First,
        "
        . . . . . .
        . . . . . .
        . . . . . .
        . . . . . .
        . . . . . .
        W3 . . . . B1",
    );
    assert_eq!(p.outcome(), None);
    // White's 1 is on the far rank (3), so is Black's 3 (9)
    let d = pos(
        Side::First,
        "
        W1 . . . . .
        . . . . . .
        . . . . . .
        . . . . . .
        . . . . . .
        . . . . . B3",
    );
    assert_eq!(d.outcome(), Some(Outcome { winner: Some(Side::Second), scores: Some([3, 9]) }));
    let draw = pos(
        Side::First,
        "
        W1 . . . . .
        . . . . . .
        . . . . . .
        . . . . . .
        . . . . . .
        . . . . . B1",
    );
    assert_eq!(draw.outcome(), Some(Outcome { winner: None, scores: Some([3, 3]) }));
    for loser in Side::BOTH {
        assert_eq!(p.forfeit(loser), Outcome { winner: Some(loser.other()), scores: None });
        assert_eq!(Position::new_game().forfeit(loser), Outcome { winner: Some(loser.other()), scores: None });
    }
}

// ---------------------------------------------------------------------------------------
// Start texts

#[test]
fn start_texts_round_trip() {
    let p = Position::new(&Options::new(), Some("432111/111234")).unwrap();
    assert_eq!(p.start_text().as_deref(), Some("432111/111234"));
    assert_eq!(p.to_move(), Some(Side::First));
    assert_eq!(p, Position::from_setups(setup("432111"), setup("111234")));
    let text = "black:B4...../....../..W2.../....../....../.....W1";
    let q = Position::new(&Options::new(), Some(text)).unwrap();
    assert_eq!(q.start_text().as_deref(), Some(text));
    assert_eq!(q.to_move(), Some(Side::Second));
    assert_eq!(q.piece_at(Square::parse("c4").unwrap()), Some(Piece { side: Side::First, value: 2 }));
    assert_eq!(Position::new(&Options::new(), q.start_text().as_deref()).unwrap(), q);
    for bad in [
        "432111",
        "432111/11234",
        "white:....../",
        "white:B5....../....../....../....../....../......",
        "white:W4W4..../....../....../....../....../......",
        "red:....../....../....../....../....../......",
    ] {
        assert!(Position::new(&Options::new(), Some(bad)).is_err(), "{bad}");
    }
}

// ---------------------------------------------------------------------------------------
// Native formats

#[test]
fn native_requests_round_trip() {
    assert_eq!(nupud::format_setup_input(Side::First), "place white\n");
    assert_eq!(nupud::format_setup_input(Side::Second), "place black\n");
    assert_eq!(nupud::parse_request("").unwrap(), Request::Name);
    assert_eq!(nupud::parse_request("place black\n").unwrap(), Request::Place(Side::Second));
    assert_eq!(nupud::parse_request("place white\r\n").unwrap(), Request::Place(Side::First));
    assert!(nupud::parse_request("place red\n").is_err());
    assert!(nupud::parse_request("Move white\n").is_err());
    let p = Position::from_setups(setup("143211"), setup("111234"));
    let text = nupud::format_move_input(&p, Side::First);
    assert_eq!(text, "move white\nB1 B1 B1 B2 B3 B4\n. . . . . .\n. . . . . .\n. . . . . .\n. . . . . .\nW1 W4 W3 W2 W1 W1\n");
    assert_eq!(nupud::parse_request(&text).unwrap(), Request::Move { side: Side::First, board: *p.board() });
    assert_eq!(nupud::parse_board_lines(text.strip_prefix("move white\n").unwrap()).unwrap(), *p.board());
}

#[test]
fn native_board_lines_are_strict() {
    let good = ". . . . . .\n. . . . . .\n. . . . . .\n. . . . . .\n. . . . . .\nW1 . . . . .\n";
    assert!(nupud::parse_board_lines(good).is_ok());
    assert!(nupud::parse_board_lines(good.trim_end()).is_ok(), "last line end optional");
    assert!(matches!(nupud::parse_board_lines(&good[12..]), Err(NativeError::BoardLines(5))));
    assert!(nupud::parse_board_lines(&good.replacen(". .", ".  .", 1)).is_err(), "two spaces");
    assert!(nupud::parse_board_lines(&good.replace("W1", "W5")).is_err());
    assert!(nupud::parse_board_lines(&good.replace("W1", "w1")).is_err());
    let four_ones = ". . . . . .\n. . . . . .\n. . . . . .\n. . . . . .\n. . . . . .\nW1 W1 W1 W1 . .\n";
    assert!(matches!(nupud::parse_board_lines(four_ones), Err(NativeError::Board(_))));
}

// ---------------------------------------------------------------------------------------
// Perft and the naive cross-check

/// The perft file against the naive generator (the rules' own counts of the file are
/// checked by tests/registry.rs, as every game's).
#[test]
fn perft_counts_match_the_naive_generator() {
    let lines = rules::check::perft_lines(include_str!("data/nupud-perft.txt")).expect("the perft file");
    let mut n = 0;
    for line in lines {
        if let Some((white, black)) = line.start.as_deref().and_then(|start| start.split_once('/')) {
            assert_eq!(naive_perft(&naive_after_setups(white, black), true, line.depth), line.count, "naive {}", line.text);
            n += 1;
        }
    }
    assert!(n >= 10);
}

#[test]
fn legal_moves_and_scores_agree_with_the_naive_generator_along_random_games() {
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    for _ in 0..300 {
        let mut p = Position::new_game();
        loop {
            if !p.is_setup_phase() {
                let b = naive_from(&p);
                // two set-up moves, then White and Black in turn
                let white = p.n_moves().is_multiple_of(2);
                let mut naive: Vec<String> = naive_moves(&b, white).iter().map(naive_text).collect();
                naive.sort();
                let mut ours = moves_text(&p);
                ours.sort();
                if p.to_move().is_some() {
                    assert_eq!(ours, naive, "{}", p.picture());
                } else {
                    assert!(ours.is_empty());
                }
                let scores = p.running_scores().unwrap();
                assert_eq!(scores, [naive_score(&b, true), naive_score(&b, false)]);
                if p.to_move().is_none() {
                    assert!(naive_moves(&b, white).is_empty(), "{}", p.picture());
                    assert_eq!(p.outcome(), Some(Outcome::from_scores(scores)));
                }
            }
            match p.random_move(&mut rng) {
                Some(mv) => p.play(&mv).unwrap(),
                None => break,
            }
        }
    }
}

#[test]
fn legal_moves_are_ordered_by_from_then_to_square() {
    let p = Position::from_setups(setup("143211"), setup("111234"));
    let mut moves = Vec::new();
    p.legal_moves(&mut moves);
    let keys: Vec<(Square, Square)> = moves
        .iter()
        .map(|m| match m {
            Move::Step { from, to } => (*from, *to),
            Move::Setup(_) => panic!("set-up in play"),
        })
        .collect();
    assert!(keys.windows(2).all(|w| w[0] < w[1]));
    assert_eq!(moves_text(&p), ["a1a2", "b1b2", "b1b3", "b1b4", "b1b5", "c1c2", "c1c3", "c1c4", "d1d2", "d1d3", "e1e2", "f1f2"]);
}

// ---------------------------------------------------------------------------------------
// Generic checker and random play

#[test]
fn random_playout_uses_setups_uniformly_and_ends() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut counts = [0u32; 2];
    for _ in 0..2000 {
        let mut p = Position::new_game();
        let outcome = p.random_playout(&mut rng);
        assert_eq!(p.outcome(), Some(outcome));
        assert!(outcome.scores.is_some());
        let [white, _] = p.setups().unwrap();
        // the 4 stands on file a in 1/6 of the set-ups
        counts[usize::from(white.values()[0] == 4)] += 1;
    }
    assert!((250..420).contains(&counts[1]), "{counts:?}");
}

#[test]
fn random_playout_plays_like_random_moves() {
    // Same distribution: compare White's wins, draws and the mean length of 3000 games
    // each way from a fixed set-up (the standard errors are about 1% and 0.1 plies).
    let start = Position::from_setups(setup("213411"), setup("114123"));
    let mut rng = ChaCha8Rng::seed_from_u64(99);
    let mut tally = [[0u32; 3]; 2];
    let mut plies = [0usize; 2];
    let n = 3000;
    for _ in 0..n {
        let mut fast = start.clone();
        let outcome = fast.random_playout(&mut rng);
        tally[0][outcome.winner.map_or(2, Side::index)] += 1;
        plies[0] += fast.n_moves();
        let mut slow = start.clone();
        while let Some(mv) = slow.random_move(&mut rng) {
            slow.play_unchecked(&mv);
        }
        tally[1][slow.outcome().unwrap().winner.map_or(2, Side::index)] += 1;
        plies[1] += slow.n_moves();
    }
    for i in 0..3 {
        let diff = (tally[0][i] as f64 - tally[1][i] as f64).abs() / n as f64;
        assert!(diff < 0.05, "{tally:?}");
    }
    let mean = plies.map(|p| p as f64 / n as f64);
    assert!((mean[0] - mean[1]).abs() < 0.6, "{mean:?}");
}

// ---------------------------------------------------------------------------------------
// Properties

fn arb_game() -> impl Strategy<Value = (u64, usize)> {
    (any::<u64>(), 0usize..40)
}

/// The position after `plies` random moves from the start (fewer if the game ends).
fn random_position(seed: u64, plies: usize) -> Position {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut p = Position::new_game();
    for _ in 0..plies {
        match p.random_move(&mut rng) {
            Some(mv) => p.play_unchecked(&mv),
            None => break,
        }
    }
    p
}

proptest! {
    #[test]
    fn clone_then_play_equals_play((seed, plies) in arb_game()) {
        let p = random_position(seed, plies);
        let mut moves = Vec::new();
        p.legal_moves(&mut moves);
        for mv in &moves {
            let mut a = p.clone();
            a.play(mv).unwrap();
            let mut b = p.clone();
            b.play_unchecked(mv);
            prop_assert_eq!(a, b);
        }
    }

    #[test]
    fn notation_round_trips((seed, plies) in arb_game()) {
        let p = random_position(seed, plies);
        let mut moves = Vec::new();
        p.legal_moves(&mut moves);
        for mv in &moves {
            let text = p.format_move(mv);
            prop_assert_eq!(&p.parse_move(&text).unwrap(), mv);
            prop_assert_eq!(&p.parse_move(&format!(" {} ", text.to_uppercase())).unwrap(), mv);
        }
    }

    #[test]
    fn legal_moves_are_legal_and_others_are_not((seed, plies) in arb_game()) {
        let p = random_position(seed, plies);
        let mut moves = Vec::new();
        p.legal_moves(&mut moves);
        if !p.is_setup_phase() && p.to_move().is_some() {
            for from in Square::all() {
                for to in Square::all() {
                    let mv = Move::Step { from, to };
                    let ok = p.clone().play(&mv).is_ok();
                    prop_assert_eq!(ok, moves.contains(&mv), "{}{}", from, to);
                }
            }
        }
    }

    #[test]
    fn random_playouts_end_with_an_outcome((seed, plies) in arb_game()) {
        let mut p = random_position(seed, plies);
        let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 1);
        let outcome = p.random_playout(&mut rng);
        prop_assert_eq!(p.outcome(), Some(outcome));
        prop_assert_eq!(p.to_move(), None);
        let scores = outcome.scores.unwrap();
        prop_assert_eq!(scores, p.running_scores().unwrap());
    }

    #[test]
    fn native_board_text_round_trips((seed, plies) in arb_game()) {
        let p = random_position(seed, plies);
        for side in Side::BOTH {
            let text = nupud::format_move_input(&p, side);
            prop_assert_eq!(nupud::parse_request(&text).unwrap(), Request::Move { side, board: *p.board() });
        }
        if let (false, Some(side)) = (p.is_setup_phase(), p.to_move()) {
            let text = nupud::format_move_input(&p, side);
            let board = nupud::parse_board_lines(text.split_once('\n').unwrap().1).unwrap();
            let rebuilt = Position::from_board(board, side).unwrap();
            prop_assert_eq!(moves_text(&rebuilt), moves_text(&p));
            prop_assert_eq!(rebuilt.running_scores(), p.running_scores());
        }
    }

    #[test]
    fn setup_text_round_trips(idx in 0usize..120) {
        let s = Setup::all()[idx];
        prop_assert_eq!(nupud::parse_setup(&format!("{s}\n")).unwrap(), s);
    }
}
