//! Tests of the gomoku rules (`docs/games.md`): notation, every rule of play with board
//! pictures, start positions and field text, perft counts cross-checked by a brute-force
//! counter written here, the generic random-game checker and property tests.

use proptest::prelude::*;
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;
use rules::gomoku::{self, Field, FieldError, Move, Position};
use rules::{Game, MoveError, Options, Outcome, SetupError, Side, check};

fn new(start: Option<&str>) -> Result<Position, SetupError> {
    Position::new(&Options::new(), start)
}

fn start(field: &str) -> Position {
    new(Some(field)).unwrap_or_else(|err| panic!("start refused: {err}"))
}

fn mv(text: &str) -> Move {
    Move::parse(text).unwrap_or_else(|err| panic!("{err}"))
}

/// Plays the moves (space separated) one by one; the game must not end before the last.
fn play_all(pos: &mut Position, moves: &str) {
    let moves: Vec<&str> = moves.split_whitespace().collect();
    for (idx, text) in moves.iter().enumerate() {
        assert_eq!(pos.outcome(), None, "game over before {text} (move {idx})");
        let m = pos.parse_move(text).unwrap_or_else(|err| panic!("{err}"));
        pos.play(&m).unwrap_or_else(|err| panic!("{err}"));
    }
}

/// X takes `xs` and 0 takes `os` in turn from the empty board, X first.
fn game(xs: &str, os: &str) -> Position {
    let xs: Vec<&str> = xs.split_whitespace().collect();
    let os: Vec<&str> = os.split_whitespace().collect();
    assert!(xs.len() == os.len() || xs.len() == os.len() + 1, "X moves first and they alternate");
    let mut texts = Vec::new();
    for (idx, x) in xs.iter().enumerate() {
        texts.push(*x);
        if let Some(o) = os.get(idx) {
            texts.push(o);
        }
    }
    let mut pos = Position::empty();
    play_all(&mut pos, &texts.join(" "));
    pos
}

fn cells(texts: &str) -> Vec<Move> {
    let mut cells: Vec<Move> = texts.split_whitespace().map(mv).collect();
    cells.sort();
    cells
}

// ---------------------------------------------------------------- notation

#[test]
fn notation_reads_column_letter_then_row_digit() {
    let b7 = mv("B7");
    assert_eq!((b7.col(), b7.row(), b7.index()), (1, 7, 71));
    assert_eq!(mv(" b7\r\n"), b7);
    assert_eq!(mv("\tJ9 "), Move::new(9, 9).unwrap());
    assert_eq!(mv("a0"), Move::from_index(0).unwrap());
    let pos = Position::empty();
    assert_eq!(pos.format_move(&b7), "B7");
    assert_eq!(pos.parse_move("j0"), Ok(Move::new(9, 0).unwrap()));
    assert_eq!("C4".parse::<Move>(), Ok(Move::new(2, 4).unwrap()));
    assert_eq!(Move::new(10, 0), None);
    assert_eq!(Move::new(0, 10), None);
    assert_eq!(Move::from_index(100), None);
}

#[test]
fn notation_refuses_garbage_and_off_board() {
    let pos = Position::empty();
    let reason = |text: &str| match pos.parse_move(text) {
        Err(MoveError::Parse { text: t, reason }) => {
            assert_eq!(t, text);
            reason
        }
        other => panic!("{text:?} gave {other:?}"),
    };
    assert_eq!(reason(""), "empty move");
    assert_eq!(reason("   "), "empty move");
    for garbage in ["7B", "BB", "B", "77", "B 7", "B7x", "B-1", "step! B7", "é5", "B٣", "--"] {
        assert_eq!(reason(garbage), "expected a column letter A..J and a row digit 0..9, like B7", "{garbage:?}");
    }
    assert_eq!(reason("K3"), "column K is off the board (columns are A..J)");
    assert_eq!(reason("z0"), "column Z is off the board (columns are A..J)");
    assert_eq!(reason("A10"), "row 10 is off the board (rows are 0..9)");
    assert_eq!(reason("A07"), "row 07 is off the board (rows are 0..9)");
    let err = pos.parse_move("K3").unwrap_err();
    assert_eq!(err.to_string(), "cannot read move \"K3\": column K is off the board (columns are A..J)");
}

#[test]
fn marks() {
    assert_eq!(gomoku::mark_char(Side::First), 'X');
    assert_eq!(gomoku::mark_char(Side::Second), '0');
    assert_eq!(gomoku::side_from_mark('X'), Some(Side::First));
    assert_eq!(gomoku::side_from_mark('0'), Some(Side::Second));
    assert_eq!(gomoku::side_from_mark('O'), None);
    assert_eq!(gomoku::side_from_mark('x'), None);
}

// ---------------------------------------------------------------- play

#[test]
fn empty_board_x_moves_first_in_reading_order() {
    let pos = new(None).unwrap();
    assert_eq!(pos, Position::empty());
    assert_eq!(pos.to_move(), Some(Side::First));
    assert_eq!(pos.outcome(), None);
    assert_eq!(pos.running_scores(), None);
    assert_eq!(pos.start_text(), None);
    assert_eq!(pos.n_moves(), 0);
    assert_eq!(pos.last_move(), None);
    let mut moves = Vec::new();
    pos.legal_moves(&mut moves);
    let texts: Vec<String> = moves.iter().map(|m| pos.format_move(m)).collect();
    assert_eq!(texts.len(), 100);
    assert_eq!(&texts[..12], ["A0", "B0", "C0", "D0", "E0", "F0", "G0", "H0", "I0", "J0", "A1", "B1"]);
    assert_eq!(texts[99], "J9");
    assert!(moves.windows(2).all(|w| w[0].index() + 1 == w[1].index()));
}

#[test]
fn players_alternate_and_marks_land_where_named() {
    let mut pos = Position::empty();
    play_all(&mut pos, "E4 F5");
    assert_eq!(pos.cell(4, 4), Some(Side::First));
    assert_eq!(pos.cell_at(mv("F5")), Some(Side::Second));
    assert_eq!(pos.cell(0, 0), None);
    assert_eq!(pos.to_move(), Some(Side::First));
    assert_eq!(pos.last_move(), Some(mv("F5")));
    assert_eq!(pos.step_answer(), "F5");
    assert_eq!(Position::empty().step_answer(), "--");
    assert_eq!(start(MID_FIELD).step_answer(), "--");
    assert_eq!((pos.n_moves(), pos.n_marks(Side::First), pos.n_marks(Side::Second), pos.n_empty()), (2, 1, 1, 98));
    play_all(&mut pos, "A0");
    assert_eq!(pos.to_move(), Some(Side::Second));
    let mut moves = Vec::new();
    pos.legal_moves(&mut moves);
    assert_eq!(moves.len(), 97);
    assert!(!moves.contains(&mv("E4")) && !moves.contains(&mv("F5")) && !moves.contains(&mv("A0")));
}

#[test]
fn occupied_cell_is_refused() {
    let mut pos = game("E4", "F5");
    let before = pos.clone();
    assert_eq!(pos.play(&mv("E4")), Err(MoveError::Illegal { text: "E4".to_string(), reason: "cell E4 is occupied by X".to_string() }));
    let err = pos.play(&mv("f5")).unwrap_err();
    assert_eq!(err.to_string(), "illegal move F5: cell F5 is occupied by 0");
    assert_eq!(pos, before, "a refused move changes nothing");
}

#[test]
fn finished_game_refuses_moves() {
    let mut pos = game("A0 B0 C0 D0 E0", "A1 B1 C1 D1");
    assert_eq!(pos.outcome(), Some(Outcome::win(Side::First)));
    assert_eq!(pos.to_move(), None);
    assert_eq!(pos.play(&mv("J9")), Err(MoveError::GameOver));
    let mut moves = Vec::new();
    pos.legal_moves(&mut moves);
    assert!(moves.is_empty());
    assert_eq!(pos.random_move(&mut ChaCha8Rng::seed_from_u64(1)), None);
    assert_eq!(pos.forfeit(Side::First), Outcome::win(Side::Second));
}

/// Asserts that the last move of `pos` won for `side` and the winning cells are `line`.
fn assert_won(pos: &Position, side: Side, line: &str) {
    assert_eq!(pos.outcome(), Some(Outcome::win(side)), "\n{}", pos.picture());
    assert_eq!(pos.to_move(), None);
    assert_eq!(pos.winning_cells(), cells(line), "\n{}", pos.picture());
}

#[test]
fn five_in_a_row_wins() {
    // Horizontal, the last mark in the middle of the line.
    let pos = game("C4 D4 F4 G4 E4", "C5 D5 F5 G5");
    assert_won(&pos, Side::First, "C4 D4 E4 F4 G4");
    // Vertical, for 0.
    let pos = game("A0 B0 C0 D0 A9", "H3 H4 H5 H6 H7");
    assert_won(&pos, Side::Second, "H3 H4 H5 H6 H7");
    // Diagonal down-right.
    let pos = game("B2 C3 D4 E5 F6", "A0 A1 A2 A3");
    assert_won(&pos, Side::First, "B2 C3 D4 E5 F6");
    // Diagonal down-left (anti-diagonal).
    let pos = game("J0 I1 H2 F4 G3", "A0 A1 A2 A3");
    assert_won(&pos, Side::First, "J0 I1 H2 G3 F4");
}

#[test]
fn six_or_more_in_a_row_wins() {
    // X X X . X X on row 5: filling the gap makes six.
    let pos = game("B5 C5 D5 F5 G5 E5", "B6 C6 D6 F6 J9");
    assert_won(&pos, Side::First, "B5 C5 D5 E5 F5 G5");
    // Nine in a row: four, the gap, four.
    let pos = game("A3 B3 C3 D3 F3 G3 H3 I3 E3", "A4 B4 C4 J4 A6 B6 C6 J6");
    assert_won(&pos, Side::First, "A3 B3 C3 D3 E3 F3 G3 H3 I3");
    // Two lines at once through the last move.
    let pos = game("C2 D2 F2 G2 E0 E1 E3 E4 E2", "A9 B9 C9 D9 A8 B8 C8 D8");
    assert_won(&pos, Side::First, "C2 D2 E2 F2 G2 E0 E1 E3 E4");
}

#[test]
fn fives_at_the_edges_win() {
    let pos = game("A0 B0 C0 D0 E0", "A9 B9 C9 D9");
    assert_won(&pos, Side::First, "A0 B0 C0 D0 E0");
    let pos = game("A1 B1 C1 D1 J0", "F9 G9 H9 I9 J9");
    assert_won(&pos, Side::Second, "F9 G9 H9 I9 J9");
    let pos = game("A5 A6 A7 A8 A9", "J0 J1 J2 J3");
    assert_won(&pos, Side::First, "A5 A6 A7 A8 A9");
    let pos = game("A0 B0 C0 D0 F0", "J5 J6 J7 J8 J9");
    assert_won(&pos, Side::Second, "J5 J6 J7 J8 J9");
    // Corner to corner diagonals, ends at the corners.
    let pos = game("F5 G6 H7 I8 J9", "A0 A1 A2 A3");
    assert_won(&pos, Side::First, "F5 G6 H7 I8 J9");
    let pos = game("A9 B8 C7 D6 E5", "J0 J1 J2 J3");
    assert_won(&pos, Side::First, "A9 B8 C7 D6 E5");
    let pos = game("F0 G1 H2 I3 J4", "A0 A1 A2 A3");
    assert_won(&pos, Side::First, "F0 G1 H2 I3 J4");
    let pos = game("A9 B9 C9 D9 F9", "J0 J1 J2 J3 J4");
    assert_won(&pos, Side::Second, "J0 J1 J2 J3 J4");
}

#[test]
fn four_or_a_broken_line_does_not_win() {
    // Four in a row, for each direction; then a five broken by the opponent's mark.
    let pos = game("A0 B0 C0 D0 A2 A3 A4 A5 C3 D4 E5 F6", "J0 J1 J2 J3 E2 J5 I6 H7 G8 B9 D9");
    assert_eq!(pos.outcome(), None, "\n{}", pos.picture());
    let pos = game("A0 B0 C0 D0 F0", "E0 J9 I9 H9");
    assert_eq!(pos.outcome(), None);
    // Four on a diagonal that is only four cells long (the corner) cannot be a five.
    let pos = game("G9 H8 I7 J6", "A0 A1 A2 A3");
    assert_eq!(pos.outcome(), None);
}

#[test]
fn lines_do_not_wrap_round_the_board_edges() {
    // Five consecutive cells in reading order across a row end.
    let pos = game("I0 J0 A1 B1 C1", "E5 E6 E7 E8");
    assert_eq!(pos.outcome(), None, "\n{}", pos.picture());
    // Reading-order steps of 11 and 9 (a diagonal in a naive 10-wide layout) and 10 at the
    // bottom edge.
    let pos = game("I0 J1 A3 B4 C5", "E6 E7 F7 G7");
    assert_eq!(pos.outcome(), None);
    let pos = game("B0 A1 J1 I2 H3", "E6 E7 F7 G7");
    assert_eq!(pos.outcome(), None);
    let pos = game("J6 J7 J8 J9 A0", "E6 E7 F7 G7");
    assert_eq!(pos.outcome(), None);
    let pos = game("G8 H8 I8 J8 A9", "E6 E7 F7 G7");
    assert_eq!(pos.outcome(), None);
}

/// A full board without a five: 2×2 blocks shifted by two columns a row.
const DRAW_FIELD: &str = "\
XX00XX00XX
00XX00XX00
XX00XX00XX
00XX00XX00
XX00XX00XX
00XX00XX00
XX00XX00XX
00XX00XX00
XX00XX00XX
00XX00XX00
";

#[test]
fn full_board_without_five_is_a_draw() {
    let field = gomoku::parse_field(DRAW_FIELD).unwrap();
    assert!(!naive::has_five_anywhere(&naive::grid(&field)));
    let mut xs = Vec::new();
    let mut os = Vec::new();
    for (row, cells) in field.iter().enumerate() {
        for (col, cell) in cells.iter().enumerate() {
            let text = Move::new(col, row).unwrap().to_string();
            match cell {
                Some(Side::First) => xs.push(text),
                Some(Side::Second) => os.push(text),
                None => unreachable!("the field is full"),
            }
        }
    }
    let pos = game(&xs.join(" "), &os.join(" "));
    assert_eq!(pos.outcome(), Some(Outcome::draw()));
    assert_eq!(pos.to_move(), None);
    assert_eq!(pos.n_moves(), 100);
    assert_eq!(pos.n_empty(), 0);
    assert!(pos.winning_cells().is_empty());
    assert_eq!(pos.field_text(), DRAW_FIELD);
    assert!(pos.picture().ends_with("draw: the board is full\n"));
}

/// A nearly full board, two empty cells (H0 and I4); 0 has a four that I4 completes.
const TWO_LEFT: &str = "\
XX00XX0.XX
00XX00XX00
XX00XX000X
00XX00XX00
XX00XX00.X
00XX000X00
XX00XX00XX
00XX00XX00
XX00XX00XX
X0XX00XX0X
";

#[test]
fn a_five_on_the_last_empty_cell_wins_not_draws() {
    let pos = start(TWO_LEFT);
    assert_eq!(pos.n_empty(), 2);
    let mut win = pos.clone();
    play_all(&mut win, "H0 I4");
    assert_eq!(win.n_empty(), 0);
    assert_eq!(win.outcome(), Some(Outcome::win(Side::Second)), "\n{}", win.picture());
    assert!(naive::has_five(&naive::grid(&win.field()), 2));
    // X blocks instead: the board fills without a five.
    let mut draw = pos.clone();
    play_all(&mut draw, "I4 H0");
    assert_eq!(draw.outcome(), Some(Outcome::draw()), "\n{}", draw.picture());
    assert!(!naive::has_five_anywhere(&naive::grid(&draw.field())));
}

// ---------------------------------------------------------------- start positions and field text

const MID_FIELD: &str = "\
..........
..........
..X.......
...0......
....X.....
.....0....
..........
..........
..........
..........
";

#[test]
fn start_from_field_text() {
    let pos = start(MID_FIELD);
    assert_eq!(pos.to_move(), Some(Side::First));
    assert_eq!(pos.n_moves(), 0);
    assert_eq!(pos.cell_at(mv("C2")), Some(Side::First));
    assert_eq!(pos.cell_at(mv("D3")), Some(Side::Second));
    assert_eq!(pos.n_empty(), 96);
    assert_eq!(pos.start_text().as_deref(), Some(MID_FIELD));
    let mut later = pos.clone();
    play_all(&mut later, "A0 B0");
    assert_eq!(later.start_text().as_deref(), Some(MID_FIELD), "the start text stays the start");
    assert_eq!(later.n_moves(), 2);
    // The empty board given as text is the default start.
    let empty = start(&"..........\n".repeat(10));
    assert_eq!(empty, Position::empty());
    assert_eq!(empty.start_text(), None);
}

#[test]
fn field_text_line_ends() {
    let crlf = MID_FIELD.replace('\n', "\r\n");
    assert_eq!(start(&crlf), start(MID_FIELD));
    let no_final = MID_FIELD.trim_end_matches('\n');
    assert_eq!(start(no_final), start(MID_FIELD));
    let crlf_no_final = crlf.trim_end_matches("\r\n");
    assert_eq!(start(crlf_no_final), start(MID_FIELD));
    let trailing_blank = format!("{MID_FIELD}\n\r\n");
    assert_eq!(start(&trailing_blank), start(MID_FIELD));
    let bom = format!("\u{feff}{MID_FIELD}");
    assert_eq!(start(&bom), start(MID_FIELD));
    // Mixed line ends are each accepted.
    let mixed = MID_FIELD.replacen('\n', "\r\n", 3);
    assert_eq!(start(&mixed), start(MID_FIELD));
}

#[test]
fn field_text_errors() {
    use FieldError::*;
    assert_eq!(gomoku::parse_field(""), Err(LineCount { found: 0 }));
    assert_eq!(gomoku::parse_field(&MID_FIELD[..44]), Err(LineCount { found: 5 }));
    let eleven = format!("{MID_FIELD}..........\n");
    assert_eq!(gomoku::parse_field(&eleven), Err(LineCount { found: 11 }));
    let blank_inside = MID_FIELD.replacen("..........\n", "\n..........\n", 1);
    assert_eq!(gomoku::parse_field(&blank_inside), Err(LineCount { found: 11 }));
    let blank_instead = MID_FIELD.replacen("..........\n", "\n", 1);
    assert_eq!(gomoku::parse_field(&blank_instead), Err(LineLength { row: 0, found: 0 }));
    let short = MID_FIELD.replacen("..X.......", "..X......", 1);
    assert_eq!(gomoku::parse_field(&short), Err(LineLength { row: 2, found: 9 }));
    let spaced = MID_FIELD.replacen("...0......", "...0...... ", 1);
    assert_eq!(gomoku::parse_field(&spaced), Err(LineLength { row: 3, found: 11 }));
    let letter_o = MID_FIELD.replacen("...0......", "...O......", 1);
    assert_eq!(gomoku::parse_field(&letter_o), Err(BadChar { row: 3, col: 'D', found: 'O' }));
    let lower_x = MID_FIELD.replacen("....X.....", "....x.....", 1);
    let err = gomoku::parse_field(&lower_x).unwrap_err();
    assert_eq!(err.to_string(), "field row 4, column E: unexpected character 'x' (expected '.', 'X' or '0')");
    let err = new(Some(&short)).unwrap_err();
    assert_eq!(err, SetupError::BadStart("field row 2 has 9 characters, expected 10".to_string()));
}

#[test]
fn start_position_validation() {
    let one_x_more = MID_FIELD.replacen("..........", "X.........", 1);
    assert_eq!(
        new(Some(&one_x_more)),
        Err(SetupError::BadStart("the field has 3 X and 2 0; a start position needs as many X as 0 (X moves first)".to_string()))
    );
    let one_o_more = MID_FIELD.replacen("..........", "0.........", 1);
    let err = new(Some(&one_o_more)).unwrap_err();
    assert_eq!(err.to_string(), "bad start position: the field has 2 X and 3 0; a start position needs as many X as 0 (X moves first)");
    let x_five = "XXXXX.....\n0000.0....\n".to_string() + &"..........\n".repeat(8);
    assert_eq!(new(Some(&x_five)), Err(SetupError::BadStart("X already has five in a row".to_string())));
    let o_five = "X.X.X.X.X.\n..........\n".to_string() + &"0.........\n".repeat(5) + &"..........\n".repeat(3);
    assert_eq!(new(Some(&o_five)), Err(SetupError::BadStart("0 already has five in a row".to_string())));
    let o_broken =
        o_five.replacen("X.X.X.X.X.\n..........\n0.........\n0.........\n0", "X.X.X.X...\n..........\n0.........\n0.........\nX", 1);
    let o_broken = o_broken.replacen("..........\n", "........0.\n", 1);
    assert_eq!(new(Some(&o_broken)).map(|p| p.n_empty()), Ok(90), "a broken column is no five:\n{o_broken}");
    assert_eq!(new(Some(DRAW_FIELD)), Err(SetupError::BadStart("the field is full: no move is left to play".to_string())));
}

#[test]
fn field_text_round_trip_and_format() {
    let mut pos = start(MID_FIELD);
    play_all(&mut pos, "J9 A0 J0");
    let text = pos.field_text();
    assert_eq!(text.lines().count(), 10);
    assert!(text.split_terminator('\n').all(|line| line.len() == 10));
    assert!(text.ends_with('\n') && !text.contains('\r'));
    assert_eq!(&text[..11], "0........X\n");
    let field: Field = gomoku::parse_field(&text).unwrap();
    assert_eq!(field, pos.field());
    assert_eq!(gomoku::format_field(&field), text);
    assert_eq!(field[9][9], Some(Side::First));
    assert_eq!(field[0][0], Some(Side::Second));
}

#[test]
fn picture_shows_coordinates_marks_and_last_move() {
    let mut pos = start(MID_FIELD);
    play_all(&mut pos, "J0 A9");
    let expected = "   A B C D E F G H I J\n".to_string()
        + "\
0  . . . . . . . . . X 0
1  . . . . . . . . . . 1
2  . . X . . . . . . . 2
3  . . . 0 . . . . . . 3
4  . . . . X . . . . . 4
5  . . . . . 0 . . . . 5
6  . . . . . . . . . . 6
7  . . . . . . . . . . 7
8  . . . . . . . . . . 8
9 [0]. . . . . . . . . 9
   A B C D E F G H I J
X to move (last move A9)
";
    assert_eq!(pos.picture(), expected);
    play_all(&mut pos, "B9");
    assert!(pos.picture().contains("\n9  0[X]. . . . . . . . 9\n"), "{}", pos.picture());
    let won = game("F9 G9 H9 I9 J9", "A0 A1 A2 A3");
    let picture = won.picture();
    assert!(picture.contains("9  . . . . . X X X X[X]9\n"), "{picture}");
    assert!(picture.ends_with("X wins\n"));
    assert!(Position::empty().picture().ends_with("\nX to move\n"));
}

// ---------------------------------------------------------------- perft

/// An independent brute-force implementation: a plain 2-D array and a scan of the
/// whole board for five after every move.
mod naive {
    use super::*;

    pub type Grid = [[u8; 10]; 10];

    pub fn grid(field: &Field) -> Grid {
        field.map(|row| {
            row.map(|cell| match cell {
                None => 0,
                Some(Side::First) => 1,
                Some(Side::Second) => 2,
            })
        })
    }

    pub fn has_five(grid: &Grid, who: u8) -> bool {
        for r in 0..10i32 {
            for c in 0..10i32 {
                for (dr, dc) in [(0, 1), (1, 0), (1, 1), (1, -1)] {
                    let all = (0..5).all(|k| {
                        let (rr, cc) = (r + dr * k, c + dc * k);
                        (0..10).contains(&rr) && (0..10).contains(&cc) && grid[rr as usize][cc as usize] == who
                    });
                    if all {
                        return true;
                    }
                }
            }
        }
        false
    }

    pub fn has_five_anywhere(grid: &Grid) -> bool {
        has_five(grid, 1) || has_five(grid, 2)
    }

    /// Leaves of the move tree `depth` plies deep; `who` (1 or 2) is to move.
    pub fn perft(grid: &mut Grid, who: u8, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let mut total = 0;
        for r in 0..10 {
            for c in 0..10 {
                if grid[r][c] != 0 {
                    continue;
                }
                if depth == 1 {
                    total += 1;
                    continue;
                }
                grid[r][c] = who;
                if !has_five(grid, who) {
                    total += perft(grid, 3 - who, depth - 1);
                }
                grid[r][c] = 0;
            }
        }
        total
    }
}

/// The perft file against the brute-force counter (the rules' own counts of the file are
/// checked by tests/registry.rs, as every game's).
#[test]
fn perft_counts_from_the_data_file() {
    let lines = check::perft_lines(include_str!("data/gomoku-perft.txt")).expect("the perft file");
    let mut n_lines = 0;
    let mut n_cross_checked = 0;
    for line in lines {
        let (depth, count) = (line.depth, line.count);
        let pos: Position = line.position().expect("a perft start");
        // The brute-force counter is slower; it checks every line but the empty board's
        // (whose counts are 100·99·98… since no five fits in three plies).
        if line.start.is_none() && line.moves.is_empty() {
            assert_eq!(count, (0..depth as u64).map(|k| 100 - k).product::<u64>());
        } else {
            let who = if pos.n_moves().is_multiple_of(2) { 1 } else { 2 };
            assert_eq!(naive::perft(&mut naive::grid(&pos.field()), who, depth), count, "brute force {}", line.text);
            n_cross_checked += 1;
        }
        n_lines += 1;
    }
    assert!(n_lines >= 15 && n_cross_checked >= 10);
}

// ---------------------------------------------------------------- random games

#[test]
fn random_games_from_start_positions() {
    check::check_random_games(&start(MID_FIELD), 100, 1000, 100).unwrap();
    let mut near_full = gomoku::parse_field(DRAW_FIELD).unwrap();
    for idx in [0, 11, 22, 33, 44, 55, 66, 77, 88, 98] {
        near_full[idx / 10][idx % 10] = None;
    }
    let near_full = Position::from_field(&near_full).unwrap();
    let summary = check::check_random_games(&near_full, 100, 2000, 10).unwrap();
    assert!(summary.draws > 0, "{summary:?}");
}

/// The outcome of a finished game agrees with a brute-force look at the final board.
fn assert_outcome_matches_board(pos: &Position) {
    let grid = naive::grid(&pos.field());
    let outcome = pos.outcome().expect("finished");
    match outcome.winner {
        Some(side) => {
            let who = side.index() as u8 + 1;
            assert!(naive::has_five(&grid, who));
            assert!(!naive::has_five(&grid, 3 - who), "only the winner can have a five");
            assert_eq!(pos.cell_at(pos.last_move().expect("a win needs a move")), Some(side));
            assert!(pos.winning_cells().len() >= 5);
        }
        None => {
            assert!(!naive::has_five_anywhere(&grid));
            assert_eq!(pos.n_empty(), 0);
        }
    }
    assert_eq!(outcome.scores, None);
}

#[test]
fn random_playout_is_uniform_over_the_empty_cells() {
    // Column A rows 0..5 empty, X to move, no five possible: X gets 3 of the 6 cells, so
    // under a uniform choice each cell ends up X in half the games.
    let mut field = gomoku::parse_field(DRAW_FIELD).unwrap();
    let empties = [0, 10, 20, 30, 40, 50];
    for idx in empties {
        field[idx / 10][idx % 10] = None;
    }
    let start = Position::from_field(&field).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut x_count = [0u32; 100];
    for _ in 0..6000 {
        let mut pos = start.clone();
        pos.random_playout(&mut rng);
        assert_outcome_matches_board(&pos);
        for idx in empties {
            if pos.cell(idx % 10, idx / 10) == Some(Side::First) {
                x_count[idx] += 1;
            }
        }
    }
    for idx in empties {
        assert!((2700..3300).contains(&x_count[idx]), "cell {idx}: {}", x_count[idx]);
    }
}

// ---------------------------------------------------------------- properties

/// A position reached by playing the cells picked from `picks` (indices into the legal
/// moves), stopping at the end of the game.
fn position_from_picks(picks: &[usize]) -> Position {
    let mut pos = Position::empty();
    let mut moves = Vec::new();
    for pick in picks {
        moves.clear();
        pos.legal_moves(&mut moves);
        if moves.is_empty() {
            break;
        }
        pos.play(&moves[pick % moves.len()]).expect("a listed move is legal");
    }
    pos
}

proptest! {
    #[test]
    fn clone_then_play_equals_play(picks in prop::collection::vec(0usize..100, 0..100), last in 0usize..100) {
        let pos = position_from_picks(&picks);
        let mut moves = Vec::new();
        pos.legal_moves(&mut moves);
        if let Some(m) = moves.get(last % moves.len().max(1)) {
            let mut a = pos.clone();
            let mut b = pos.clone();
            a.play(m).unwrap();
            b.play_unchecked(m);
            prop_assert_eq!(&a, &b);
            prop_assert_eq!(a.n_moves(), pos.n_moves() + 1);
            prop_assert_eq!(a.last_move(), Some(*m));
        }
    }

    #[test]
    fn legal_moves_are_exactly_the_empty_cells(picks in prop::collection::vec(0usize..100, 0..100)) {
        let pos = position_from_picks(&picks);
        let mut moves = Vec::new();
        pos.legal_moves(&mut moves);
        if pos.outcome().is_some() {
            prop_assert!(moves.is_empty());
            assert_outcome_matches_board(&pos);
        } else {
            let empty: Vec<Move> = (0..100).map(|i| Move::from_index(i).unwrap()).filter(|m| pos.cell_at(*m).is_none()).collect();
            prop_assert_eq!(&moves, &empty);
            prop_assert!(!naive::has_five_anywhere(&naive::grid(&pos.field())));
            for m in &moves {
                prop_assert!(pos.clone().play(m).is_ok());
            }
        }
    }

    #[test]
    fn notation_round_trip(idx in 0usize..100, lower in any::<bool>(), pad in "[ \t]{0,2}") {
        let pos = Position::empty();
        let m = Move::from_index(idx).unwrap();
        let text = pos.format_move(&m);
        prop_assert_eq!(pos.parse_move(&text), Ok(m));
        let varied = if lower { text.to_lowercase() } else { text.clone() };
        prop_assert_eq!(pos.parse_move(&format!("{pad}{varied}{pad}")), Ok(m));
    }

    #[test]
    fn parse_move_never_panics(text in "\\PC{0,6}") {
        let _ = Position::empty().parse_move(&text);
    }

    #[test]
    fn parse_field_never_panics(text in "[.X0xO\r\n ]{0,130}") {
        let _ = gomoku::parse_field(&text);
    }

    #[test]
    fn field_text_round_trip(picks in prop::collection::vec(0usize..100, 0..80)) {
        let pos = position_from_picks(&picks);
        let text = pos.field_text();
        let field = gomoku::parse_field(&text).unwrap();
        prop_assert_eq!(field, pos.field());
        prop_assert_eq!(gomoku::format_field(&field), text.clone());
        prop_assert_eq!(gomoku::parse_field(&text.replace('\n', "\r\n")), Ok(field));
        // As a start position: accepted exactly when X is to move and the game goes on.
        match new(Some(&text)) {
            Ok(restarted) => {
                prop_assert_eq!(pos.to_move(), Some(Side::First));
                prop_assert_eq!(restarted.field(), pos.field());
                prop_assert_eq!(restarted.start_text(), if pos.n_moves() == 0 { None } else { Some(text) });
            }
            Err(_) => prop_assert!(pos.to_move() != Some(Side::First)),
        }
    }

    #[test]
    fn random_playouts_end_with_a_consistent_outcome(picks in prop::collection::vec(0usize..100, 0..40), seed in any::<u64>()) {
        let mut pos = position_from_picks(&picks);
        let before = pos.n_moves();
        let outcome = pos.random_playout(&mut ChaCha8Rng::seed_from_u64(seed));
        prop_assert_eq!(pos.outcome(), Some(outcome));
        prop_assert_eq!(pos.to_move(), None);
        prop_assert!(pos.n_moves() >= before);
        prop_assert_eq!(pos.n_moves(), 100 - pos.n_empty());
        assert_outcome_matches_board(&pos);
    }
}
