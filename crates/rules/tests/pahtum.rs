//! Pah-tum rules: the seed's worked examples, every rule of `docs/games.md`, the native
//! board format, perft counts, the generic random-game checker and property tests. The
//! scoring is cross-checked against a plain string scan written here.

use std::collections::BTreeMap;

use proptest::prelude::*;
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;
use rules::check::check_random_games;
use rules::pahtum::{
    Board, BoardError, Cell, FORFEIT_POINTS, Move, Position, format_board, move_from_answer, parse_board, parse_start, run_score,
    side_from_board,
};
use rules::{Game, MoveError, Options, Outcome, SetupError, Side};

/// The seed's example start board (5 blocked squares).
const SEED_START: &str = "\
-------
------+
---+---
-------
--++---
-------
+------
";

/// The seed's game in progress (8 X and 8 O).
const SEED_MIDGAME: &str = "\
XO-OXX-
------+
---+-O-
O------
--++---
--XXXX-
+X-OOOO
";

/// The seed's scoring example, X only (`-` is O or empty).
const SEED_SCORING_X: &str = "\
XXXXXXX
XX-XXX+
X-X+XX-
----X--
--++X--
---XXXX
+------
";

fn opts(pairs: &[(&str, &str)]) -> Options {
    pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

fn start(text: &str) -> Position {
    Position::new(&Options::new(), Some(text)).expect("valid start")
}

/// A board from picture lines (any cells, not necessarily a reachable game).
fn board(rows: [&str; 7]) -> Board {
    parse_board(&(rows.join("\n") + "\n")).expect("board picture")
}

fn mv(text: &str) -> Move {
    Move::from_text(text).expect("move text")
}

/// Independent scorer: scans the board text's rows and columns as strings.
fn naive_scores(text: &str) -> [i64; 2] {
    const POINTS: [i64; 8] = [0, 0, 0, 3, 10, 25, 56, 119];
    let grid: Vec<Vec<char>> = text.lines().map(|line| line.chars().collect()).collect();
    let mut lines: Vec<String> = grid.iter().map(|row| row.iter().collect()).collect();
    for col in 0..7 {
        lines.push(grid.iter().map(|row| row[col]).collect());
    }
    let mut scores = [0; 2];
    for line in lines {
        for (idx, letter) in ['X', 'O'].into_iter().enumerate() {
            for run in line.split(|ch| ch != letter) {
                scores[idx] += POINTS[run.len()];
            }
        }
    }
    scores
}

// ---------------------------------------------------------------- scoring

#[test]
fn seed_worked_example_scores_194_to_100() {
    let x_only = parse_board(SEED_SCORING_X).unwrap();
    assert_eq!(x_only.score(Side::First), 119 + 3 + 10 + 3 + 56 + 3);
    assert_eq!(x_only.score(Side::First), 194);
    assert_eq!(x_only.score(Side::Second), 0);

    let full_text = SEED_SCORING_X.replace('-', "O");
    let full = parse_board(&full_text).unwrap();
    assert_eq!(full.scores(), [194, 100]);
    assert_eq!(naive_scores(&full_text), [194, 100]);

    // The same board reached by play from its start board: X wins by 94.
    let mut pos = start(&full_text.replace(['X', 'O'], "-"));
    let xs: Vec<Move> = squares_holding(&full, Cell::X);
    let os: Vec<Move> = squares_holding(&full, Cell::O);
    assert_eq!((xs.len(), os.len()), (22, 22));
    for (x, o) in xs.iter().zip(&os) {
        pos.play(x).unwrap();
        pos.play(o).unwrap();
    }
    assert_eq!(pos.board(), &full);
    let outcome = pos.outcome().expect("full board is over");
    assert_eq!(outcome, Outcome::from_scores([194, 100]));
    assert_eq!(outcome.winner, Some(Side::First));
    let [x, o] = outcome.scores.unwrap();
    assert_eq!(x - o, 94);
    assert_eq!(pos.to_move(), None);
    assert!(pos.picture().contains("X wins by 94"), "{}", pos.picture());
}

fn squares_holding(board: &Board, cell: Cell) -> Vec<Move> {
    (0..7).flat_map(|r| (0..7).map(move |c| Move::new(r, c).unwrap())).filter(|sq| board.at(*sq) == cell).collect()
}

#[test]
fn run_table_for_every_length_in_rows_and_columns() {
    let expected: [i64; 8] = [0, 0, 0, 3, 10, 25, 56, 119];
    for (len, &points) in expected.iter().enumerate() {
        assert_eq!(run_score(len), points);
        if len >= 1 {
            assert_eq!(run_score(len), 2 * run_score(len - 1) + if len >= 3 { len as i64 } else { 0 });
        }
        let run: String = "X".repeat(len) + &"-".repeat(7 - len);
        // a row, placed at the right edge of row D
        let row_board = board(["-------", "-------", "-------", &run.chars().rev().collect::<String>(), "-------", "-------", "-------"]);
        assert_eq!(row_board.scores(), [points, 0], "row run of {len}");
        // a column: column 3 from the top, in O
        let rows: Vec<String> = (0..7).map(|r| if r < len { "--O----".to_string() } else { "-------".to_string() }).collect();
        let col_board = board(std::array::from_fn(|r| rows[r].as_str()));
        assert_eq!(col_board.scores(), [0, points], "column run of {len}");
    }
}

#[test]
fn diagonals_do_not_count() {
    let b = board(["X-----O", "-X---O-", "--X-O--", "---X---", "--O-X--", "-O---X-", "O-----X"]);
    assert_eq!(b.scores(), [0, 0]);
}

#[test]
fn blocked_squares_and_other_letters_break_runs() {
    let b = board(["XXX+XXX", "XXXX+OO", "OOOXOOO", "-------", "-------", "-------", "-------"]);
    // row A: 3 + 3; row B: 10; row C: O 3 + 3; columns: A..C of rows A-B are X X O -> no run of 3
    assert_eq!(b.scores(), [3 + 3 + 10, 3 + 3]);
    let col = board(["X------", "X------", "X------", "+------", "X------", "X------", "O------"]);
    assert_eq!(col.scores(), [3, 0]);
}

#[test]
fn runs_do_not_wrap_around_the_edges() {
    // end of row A joined to the start of row B would be a run of 4 in a flat layout
    let rows = board(["-----XX", "XX-----", "-------", "-------", "-------", "-------", "------O"]);
    assert_eq!(rows.scores(), [0, 0]);
    // bottom of column 1 joined to the top of column 2
    let cols = board(["-O-----", "-O-----", "-------", "-------", "-------", "O------", "O------"]);
    assert_eq!(cols.scores(), [0, 0]);
    // a 7-run at the last row and last column scores in full
    let edge = board(["------X", "------X", "------X", "------X", "------X", "------X", "OOOOOOX"]);
    assert_eq!(edge.scores(), [119, 56]);
}

#[test]
fn both_players_score_their_own_runs() {
    let b = board(["XXXXXXX", "OOOOOOO", "XXXXOOO", "OOOOXXX", "+++++++", "+++++++", "+++++++"]);
    // X: 119 + 10 + 3, O: 119 + 3 + 10; columns alternate letters
    assert_eq!(b.scores(), [132, 132]);
    assert_eq!(naive_scores(&b.to_text()), [132, 132]);
}

#[test]
fn running_scores_follow_the_board() {
    let mut pos = start(SEED_START);
    assert_eq!(pos.running_scores(), Some([0, 0]));
    for text in ["A1", "G7", "A2", "G6", "A3"] {
        pos.play(&mv(text)).unwrap();
    }
    assert_eq!(pos.running_scores(), Some([3, 0]));
    pos.play(&mv("G5")).unwrap();
    assert_eq!(pos.running_scores(), Some([3, 3]));
    pos.play(&mv("A4")).unwrap();
    assert_eq!(pos.running_scores(), Some([10, 3]));
    assert_eq!(pos.outcome(), None);
}

#[test]
fn a_full_board_of_one_letter_is_the_forfeit_credit() {
    let b = board(["XXXXXXX"; 7]);
    assert_eq!(b.score(Side::First), FORFEIT_POINTS);
    assert_eq!(FORFEIT_POINTS, 14 * 119);
    let pos = start(SEED_START);
    assert_eq!(pos.forfeit(Side::First), Outcome { winner: Some(Side::Second), scores: Some([0, 1666]) });
    assert_eq!(pos.forfeit(Side::Second), Outcome { winner: Some(Side::First), scores: Some([1666, 0]) });
}

#[test]
fn equal_scores_draw() {
    // a checkerboard has no runs at all; one blocked square evens the counts
    let text = "+OXOXOX\nOXOXOXO\nXOXOXOX\nOXOXOXO\nXOXOXOX\nOXOXOXO\nXOXOXOX\n";
    let pos = Position::from_board(text).unwrap();
    assert_eq!(pos.outcome(), Some(Outcome { winner: None, scores: Some([0, 0]) }));
    assert!(pos.picture().contains("a draw"), "{}", pos.picture());
}

// ---------------------------------------------------------------- play

#[test]
fn x_moves_first_and_sides_alternate_by_counts() {
    let mut pos = start(SEED_START);
    assert_eq!(pos.to_move(), Some(Side::First));
    pos.play(&mv("D4")).unwrap();
    assert_eq!(pos.to_move(), Some(Side::Second));
    assert_eq!(pos.cell(3, 3), Cell::X);
    pos.play(&mv("d5")).unwrap();
    assert_eq!(pos.cell(3, 4), Cell::O);
    assert_eq!(pos.to_move(), Some(Side::First));
    assert_eq!(pos.n_moves(), 2);
    assert_eq!(pos.last_move(), Some(mv("D5")));
    assert_eq!(pos.n_empty(), 42);

    let mid = parse_board(SEED_MIDGAME).unwrap();
    assert_eq!((mid.count(Cell::X), mid.count(Cell::O), mid.count(Cell::Empty)), (8, 8, 28));
    assert_eq!(side_from_board(&mid), Side::First);
    let one_more = parse_board(&SEED_MIDGAME.replacen('-', "X", 1)).unwrap();
    assert_eq!(side_from_board(&one_more), Side::Second);
    assert_eq!(side_from_board(&parse_board(SEED_START).unwrap()), Side::First);
}

#[test]
fn legal_moves_are_the_empty_squares_in_reading_order() {
    let pos = start(SEED_START);
    let mut moves = Vec::new();
    pos.legal_moves(&mut moves);
    assert_eq!(moves.len(), 44);
    let texts: Vec<String> = moves.iter().map(|m| pos.format_move(m)).collect();
    assert_eq!(&texts[..8], ["A1", "A2", "A3", "A4", "A5", "A6", "A7", "B1"]);
    assert_eq!(texts.last().unwrap(), "G7");
    for blocked in ["B7", "C4", "E3", "E4", "G1"] {
        assert!(!texts.contains(&blocked.to_string()), "{blocked} is blocked");
    }
    let mut sorted = moves.clone();
    sorted.sort();
    assert_eq!(sorted, moves);
}

#[test]
fn illegal_moves_are_refused_with_reasons() {
    let mut pos = start(SEED_START);
    let err = pos.play(&mv("B7")).unwrap_err();
    assert_eq!(err, MoveError::Illegal { text: "B7".into(), reason: "square B7 is blocked".into() });
    assert_eq!(err.to_string(), "illegal move B7: square B7 is blocked");
    pos.play(&mv("A1")).unwrap();
    let err = pos.play(&mv("A1")).unwrap_err();
    assert_eq!(err, MoveError::Illegal { text: "A1".into(), reason: "square A1 is occupied by X".into() });
    pos.play(&mv("A2")).unwrap();
    let err = pos.play(&mv("A2")).unwrap_err();
    assert!(err.to_string().contains("occupied by O"), "{err}");
    // nothing changed by refused moves
    assert_eq!(pos.n_moves(), 2);
}

#[test]
fn the_game_ends_when_no_empty_square_is_left() {
    let mut pos = Position::from_board("XOXOXOX\nOXOXOXO\nXOXOXOX\nOXOXOXO\nXOXOXOX\nOXOXOX-\nXOXOXO+\n").unwrap();
    assert_eq!(pos.to_move(), Some(Side::Second));
    assert_eq!(pos.n_empty(), 1);
    pos.play(&mv("F7")).unwrap();
    assert_eq!(pos.to_move(), None);
    let outcome = pos.outcome().unwrap();
    assert_eq!(outcome.scores, Some(pos.board().scores()));
    assert_eq!(pos.play(&mv("A1")), Err(MoveError::GameOver));
    let mut moves = Vec::new();
    pos.legal_moves(&mut moves);
    assert!(moves.is_empty());
    assert_eq!(pos.random_move(&mut ChaCha8Rng::seed_from_u64(1)), None);
}

#[test]
fn move_notation() {
    let pos = start(SEED_START);
    assert_eq!(pos.parse_move("C4"), Ok(Move::new(2, 3).unwrap()));
    assert_eq!(pos.parse_move(" c4\n"), Ok(Move::new(2, 3).unwrap()));
    assert_eq!(pos.parse_move("g7"), Ok(Move::new(6, 6).unwrap()));
    assert_eq!(pos.format_move(&Move::new(0, 0).unwrap()), "A1");
    assert_eq!(Move::new(6, 6).unwrap().to_string(), "G7");
    assert_eq!(Move::new(7, 0), None);
    for bad in ["", "C", "H1", "A0", "A8", "C44", "4C", "C-4", "AA"] {
        assert!(matches!(pos.parse_move(bad), Err(MoveError::Parse { .. })), "{bad:?} should not parse");
    }
    let err = pos.parse_move("H1").unwrap_err();
    assert_eq!(err.to_string(), "cannot read move \"H1\": the row must be a letter from A to G");
}

#[test]
fn the_picture_shows_the_board_scores_and_turn() {
    let mut pos = Position::from_board(SEED_MIDGAME).unwrap();
    pos.play(&mv("f7")).unwrap();
    let expected = "   1 2 3 4 5 6 7
A  X O - O X X -
B  - - - - - - +
C  - - - + - O -
D  O - - - - - -
E  - - + + - - -
F  - - X X X X X
G  + X - O O O O
X 25, O 10; O to move, last move F7
";
    assert_eq!(pos.picture(), expected);
}

// ---------------------------------------------------------------- setup

#[test]
fn a_start_board_is_required() {
    assert_eq!(Position::new(&Options::new(), None), Err(SetupError::StartRequired("pahtum")));
}

#[test]
fn start_boards_are_read_leniently_and_written_exactly() {
    let pos = start(SEED_START);
    assert_eq!(pos.start_text().unwrap(), SEED_START);
    assert_eq!(pos.start_text().unwrap().len(), 56);
    assert_eq!(format_board(&pos), SEED_START);
    let variants = [
        SEED_START.trim_end().to_string(),
        SEED_START.replace('\n', "\r\n"),
        format!("\n  {}\n\n", SEED_START.trim().replace('\n', "\n  ")),
        SEED_START.trim().replace('\n', "/"),
    ];
    for text in variants {
        assert_eq!(Position::new(&Options::new(), Some(&text)), Ok(pos.clone()), "{text:?}");
    }
}

#[test]
fn bad_start_boards_say_what_is_wrong() {
    let cases: [(String, &str); 8] = [
        (SEED_START.replacen('-', "X", 1), "square A1 holds X; a start board holds only - and +"),
        (SEED_START.replacen('-', "+", 1), "the board has 6 blocked squares; it must have an odd number between 1 and 25"),
        (SEED_START.replace('+', "-"), "the board has 0 blocked squares; it must have an odd number between 1 and 25"),
        (
            "+++++++\n".repeat(3) + "++++++-\n" + &"-------\n".repeat(3),
            "the board has 27 blocked squares; it must have an odd number between 1 and 25",
        ),
        (SEED_START.replacen("-------", "------", 1), "line 1 has 6 characters, not 7"),
        (format!("{SEED_START}-------\n"), "the board has 8 lines, not 7"),
        (SEED_START.replacen("---+---", "---+-x-", 1), "square C6 (line 3, column 6) holds 'x', not one of - + X O"),
        (SEED_START.replacen("---+---", "--- +--", 1), "square C4 (line 3, column 4) holds ' ', not one of - + X O"),
    ];
    for (text, reason) in cases {
        assert_eq!(Position::new(&Options::new(), Some(&text)), Err(SetupError::BadStart(reason.to_string())), "{text:?}");
    }
    assert!(parse_start("").is_err());
}

#[test]
fn the_blocked_option_is_odd_and_between_1_and_25() {
    for (value, reason) in [
        ("4", "must be odd, so that the number of playable squares is even"),
        ("0", "must be between 1 and 25"),
        ("27", "must be between 1 and 25"),
        ("five", "not an integer"),
    ] {
        let options = opts(&[("blocked", value)]);
        let expected = SetupError::BadOption { name: "blocked".into(), value: value.into(), reason: reason.into() };
        assert_eq!(Position::random_start(&options, &mut ChaCha8Rng::seed_from_u64(0)), Err(expected.clone()));
        assert_eq!(Position::new(&options, Some(SEED_START)), Err(expected));
    }
}

#[test]
fn random_starts_have_the_asked_number_of_blocked_squares() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut hits = [0u32; 49];
    for (blocked, n) in [("1", 1), ("5", 5), ("25", 25), ("5", 5)] {
        for _ in 0..500 {
            let text = Position::random_start(&opts(&[("blocked", blocked)]), &mut rng).unwrap().unwrap();
            assert_eq!(text.len(), 56);
            assert_eq!(text.matches('+').count(), n);
            let pos = Position::new(&Options::new(), Some(&text)).unwrap();
            assert_eq!(pos.n_empty(), 49 - n);
            if blocked == "25" {
                for (idx, ch) in text.chars().filter(|ch| *ch != '\n').enumerate() {
                    hits[idx] += u32::from(ch == '+');
                }
            }
        }
    }
    // 500 boards with 25 of 49 squares blocked: each square about 255 times
    assert!(hits.iter().all(|&n| (200..310).contains(&n)), "{hits:?}");
    let default = Position::random_start(&Options::new(), &mut rng).unwrap().unwrap();
    assert_eq!(default.matches('+').count(), 5);
}

// ---------------------------------------------------------------- native format

#[test]
fn the_native_reader_is_strict() {
    assert_eq!(parse_board(SEED_MIDGAME).unwrap().to_text(), SEED_MIDGAME);
    let cases: [(String, BoardError); 7] = [
        (SEED_START.trim_end().to_string(), BoardError::NoFinalNewline),
        (SEED_START.replace('\n', "\r\n"), BoardError::CarriageReturn),
        (format!("{SEED_START}\n"), BoardError::Length { len: 57 }),
        ("C4\n".to_string(), BoardError::Length { len: 3 }),
        (SEED_START.replacen("-------\n-", "--------\n", 1), BoardError::LineLength { line: 1, len: 8 }),
        (SEED_START.replacen('-', "x", 1), BoardError::BadChar { square: mv("A1"), line: 1, column: 1, found: 'x' }),
        (format!("{}\n\n", &SEED_START[..54]), BoardError::LineLength { line: 7, len: 6 }),
    ];
    for (text, err) in cases {
        assert_eq!(parse_board(&text), Err(err), "{text:?}");
    }
    assert_eq!(
        BoardError::Length { len: 57 }.to_string(),
        "the board has 57 characters, not 56 (7 lines of 7 characters, each ended by \\n)"
    );
}

#[test]
fn a_native_answer_is_the_board_with_one_square_changed() {
    let pos = Position::from_board(SEED_MIDGAME).unwrap();
    assert_eq!(pos.to_move(), Some(Side::First));
    assert_eq!(format_board(&pos), SEED_MIDGAME);
    let good = SEED_MIDGAME.replacen("XO-OXX-", "XOXOXX-", 1);
    assert_eq!(move_from_answer(&pos, &good), Ok(mv("A3")));

    let illegal = |answer: &str| match move_from_answer(&pos, answer) {
        Err(MoveError::Illegal { reason, .. }) => reason,
        other => panic!("{answer:?}: expected an illegal move, got {other:?}"),
    };
    assert_eq!(illegal(SEED_MIDGAME), "the answer is the input board unchanged; a move turns one - into a letter");
    assert_eq!(illegal(&SEED_MIDGAME.replacen("XO-OXX-", "XOOOXX-", 1)), "square A3 became O but X is to move");
    assert_eq!(illegal(&SEED_MIDGAME.replacen("XO-OXX-", "XO+OXX-", 1)), "square A3 became + but X is to move");
    assert_eq!(illegal(&SEED_MIDGAME.replacen("------+", "------X", 1)), "square B7 is blocked but the answer changes it to X");
    assert_eq!(illegal(&SEED_MIDGAME.replacen("XO-OXX-", "XX-OXX-", 1)), "square A2 is occupied by O but the answer changes it to X");
    assert_eq!(illegal(&SEED_MIDGAME.replacen("XO-OXX-", "-O-OXX-", 1)), "square A1 is occupied by X but the answer changes it to -");
    assert_eq!(
        illegal(&SEED_MIDGAME.replacen("XO-OXX-", "XOXOXXX", 1)),
        "the answer changes 2 squares (A3 from - to X, A7 from - to X); a move changes exactly one"
    );
    let err = move_from_answer(&pos, &good[..55]).unwrap_err();
    assert!(matches!(&err, MoveError::Parse { reason, .. } if reason == "the last line is not ended by \\n"), "{err:?}");
    let err = move_from_answer(&pos, "A3\n").unwrap_err();
    assert!(matches!(&err, MoveError::Parse { reason, .. } if reason.starts_with("the board has 3 characters")), "{err:?}");
    let err = move_from_answer(&pos, &good.to_lowercase()).unwrap_err();
    assert!(matches!(err, MoveError::Parse { .. }), "{err:?}");

    // the second player's letter after X moved
    let mut after = pos.clone();
    after.play(&mv("A3")).unwrap();
    assert_eq!(format_board(&after), good);
    let o_answer = good.replacen("XOXOXX-", "XOXOXXO", 1);
    assert_eq!(move_from_answer(&after, &o_answer), Ok(mv("A7")));
    assert!(move_from_answer(&after, &good.replacen("XOXOXX-", "XOXOXXX", 1)).is_err());
}

#[test]
fn a_finished_game_takes_no_answer() {
    let full = SEED_SCORING_X.replace('-', "O");
    let pos = Position::from_board(&full).unwrap();
    assert_eq!(pos.outcome(), Some(Outcome::from_scores([194, 100])));
    assert_eq!(move_from_answer(&pos, &full), Err(MoveError::GameOver));
}

#[test]
fn boards_with_impossible_counts_are_refused() {
    let two_more = SEED_MIDGAME.replacen('-', "X", 2);
    assert_eq!(
        Position::from_board(&two_more),
        Err(SetupError::BadStart("the board has 10 X and 8 O; X moves first, so there are as many X as O or one more".into()))
    );
    let more_o = SEED_MIDGAME.replacen('-', "O", 1);
    assert!(Position::from_board(&more_o).is_err());
}

// ---------------------------------------------------------------- perft

/// Counts leaves and sums the final scores over them (checked both with the rules'
/// scorer and with the naive one).
fn perft_with_scores(pos: &Position, depth: u32) -> (u64, [i64; 2]) {
    if depth == 0 {
        let fast = pos.running_scores().unwrap();
        assert_eq!(fast, naive_scores(&format_board(pos)), "scores of\n{}", pos.picture());
        return (1, fast);
    }
    let mut moves = Vec::new();
    pos.legal_moves(&mut moves);
    let mut total = (0, [0, 0]);
    for m in &moves {
        let mut next = pos.clone();
        next.play_unchecked(m);
        let (n, [x, o]) = perft_with_scores(&next, depth - 1);
        total.0 += n;
        total.1[0] += x;
        total.1[1] += o;
    }
    total
}

#[test]
fn perft_counts_match_the_data_file() {
    // The rules' own counts of the file are checked by tests/registry.rs, as every game's.
    let lines = rules::check::perft_lines(include_str!("data/pahtum-perft.txt")).expect("the perft file");
    let mut checked = 0;
    for line in lines {
        let pos: Position = line.position().unwrap_or_else(|err| panic!("{}: {err}", line.text));
        let (depth, count) = (line.depth, line.count);
        // every empty square stays playable, so the count is a falling factorial
        let empties = pos.n_empty() as u64;
        let product: u64 = (0..u64::from(depth)).map(|k| empties.saturating_sub(k)).product();
        assert_eq!(count, product, "{}", line.text);
        if let [x, o] = &line.more[..] {
            let sums = [x.parse::<i64>().unwrap(), o.parse::<i64>().unwrap()];
            assert_eq!(perft_with_scores(&pos, depth), (count, sums), "{}", line.text);
        }
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} perft lines");
}

// ---------------------------------------------------------------- random games

#[test]
fn random_games_keep_the_game_contract() {
    let mut rng = ChaCha8Rng::seed_from_u64(2019);
    for (blocked, games) in [("5", 200), ("1", 100), ("25", 200)] {
        let text = Position::random_start(&opts(&[("blocked", blocked)]), &mut rng).unwrap().unwrap();
        let pos = start(&text);
        let summary = check_random_games(&pos, games, 100, 60).unwrap_or_else(|err| panic!("{err}"));
        assert_eq!(summary.games, games);
        assert_eq!(summary.max_plies, 49 - blocked.parse::<u64>().unwrap());
    }
    let mid = Position::from_board(SEED_MIDGAME).unwrap();
    let summary = check_random_games(&mid, 200, 5, 60).unwrap_or_else(|err| panic!("{err}"));
    assert!(summary.wins[0] > 0 && summary.wins[1] > 0, "{summary:?}");
}

#[test]
fn random_playout_plays_the_distribution_of_random_moves() {
    // 4 empty squares, X to move: X gets 2 of them, 6 final boards equally likely.
    let pos = Position::from_board("XOXOXOX\nOXOXOXO\nXOXOXOX\nOXOXOXO\nXOXOXOX\nOXO--++\n--+++++\n").unwrap();
    assert_eq!((pos.to_move(), pos.n_empty()), (Some(Side::First), 4));
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let mut fast: BTreeMap<String, u32> = BTreeMap::new();
    let mut slow: BTreeMap<String, u32> = BTreeMap::new();
    for _ in 0..6000 {
        let mut a = pos.clone();
        let outcome = a.random_playout(&mut rng);
        assert_eq!(a.outcome(), Some(outcome));
        let last = a.last_move().expect("moves were played");
        assert_eq!(a.board().at(last), Cell::O, "O plays the last of 4 moves");
        *fast.entry(format_board(&a)).or_default() += 1;
        let mut b = pos.clone();
        while let Some(m) = b.random_move(&mut rng) {
            b.play(&m).unwrap();
        }
        *slow.entry(format_board(&b)).or_default() += 1;
    }
    for counts in [&fast, &slow] {
        assert_eq!(counts.len(), 6);
        assert!(counts.values().all(|&n| (850..1150).contains(&n)), "{counts:?}");
    }
}

// ---------------------------------------------------------------- properties

fn arb_board_text() -> impl Strategy<Value = String> {
    proptest::collection::vec(prop_oneof![Just('-'), Just('+'), Just('X'), Just('O')], 49)
        .prop_map(|cells| cells.chunks(7).map(|row| row.iter().collect::<String>() + "\n").collect())
}

fn arb_full_board_text() -> impl Strategy<Value = String> {
    proptest::collection::vec(prop_oneof![3 => Just('X'), 3 => Just('O'), 1 => Just('+')], 49)
        .prop_map(|cells| cells.chunks(7).map(|row| row.iter().collect::<String>() + "\n").collect())
}

/// A position `plies` random moves into a game from a random start.
fn random_position(seed: u64, plies: usize) -> Position {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let blocked = ["1", "3", "5", "5", "9", "25"][(seed % 6) as usize];
    let text = Position::random_start(&opts(&[("blocked", blocked)]), &mut rng).unwrap().unwrap();
    let mut pos = start(&text);
    for _ in 0..plies {
        match pos.random_move(&mut rng) {
            Some(m) => pos.play_unchecked(&m),
            None => break,
        }
    }
    pos
}

proptest! {
    #[test]
    fn scoring_agrees_with_a_string_scan(text in arb_board_text()) {
        let b = parse_board(&text).unwrap();
        prop_assert_eq!(b.scores(), naive_scores(&text));
        prop_assert_eq!(b.to_text(), text);
    }

    #[test]
    fn scoring_agrees_on_full_boards(text in arb_full_board_text()) {
        prop_assert_eq!(parse_board(&text).unwrap().scores(), naive_scores(&text));
    }

    #[test]
    fn moves_round_trip_and_legal_moves_are_legal(seed in any::<u64>(), plies in 0usize..49) {
        let pos = random_position(seed, plies);
        let mut moves = Vec::new();
        pos.legal_moves(&mut moves);
        prop_assert_eq!(moves.len(), pos.n_empty());
        for row in 0..7 {
            for col in 0..7 {
                let m = Move::new(row, col).unwrap();
                let text = pos.format_move(&m);
                prop_assert_eq!(pos.parse_move(&text.to_lowercase()), Ok(m));
                let mut next = pos.clone();
                let result = next.play(&m);
                prop_assert_eq!(result.is_ok(), moves.contains(&m));
                if result.is_ok() {
                    // clone-then-play equals play_unchecked, and the native answer reads back
                    let mut unchecked = pos.clone();
                    unchecked.play_unchecked(&m);
                    prop_assert_eq!(&unchecked, &next);
                    prop_assert_eq!(move_from_answer(&pos, &format_board(&next)), Ok(m));
                    prop_assert_eq!(next.n_moves(), pos.n_moves() + 1);
                } else {
                    prop_assert_eq!(&next, &pos);
                }
            }
        }
    }

    #[test]
    fn native_text_round_trips(seed in any::<u64>(), plies in 0usize..49) {
        let pos = random_position(seed, plies);
        let text = format_board(&pos);
        prop_assert_eq!(text.len(), 56);
        prop_assert_eq!(&parse_board(&text).unwrap(), pos.board());
        prop_assert_eq!(side_from_board(pos.board()), pos.to_move().unwrap_or(Side::First));
        let back = Position::from_board(&text).unwrap();
        prop_assert_eq!(back.board(), pos.board());
        prop_assert_eq!(back.to_move(), pos.to_move());
        let restarted = start(&pos.start_text().unwrap());
        prop_assert_eq!(restarted.board(), &pos.board().without_pieces());
    }

    #[test]
    fn answers_with_any_other_change_are_refused(seed in any::<u64>(), plies in 0usize..40, at in 0usize..56, ch in prop_oneof![Just('-'), Just('+'), Just('X'), Just('O'), Just('\n'), Just('o')]) {
        let pos = random_position(seed, plies);
        prop_assume!(pos.to_move().is_some());
        let mut answer: Vec<char> = format_board(&pos).chars().collect();
        answer[at] = ch;
        let answer: String = answer.into_iter().collect();
        let result = move_from_answer(&pos, &answer);
        let square = (at % 8 < 7).then(|| Move::new(at / 8, at % 8).unwrap());
        let mover_letter = pos.to_move().map(|side| Cell::of(side).to_char());
        let one_legal_move = square.is_some_and(|sq| pos.board().at(sq) == Cell::Empty) && Some(ch) == mover_letter;
        prop_assert_eq!(result.is_ok(), one_legal_move, "{:?} -> {:?}", answer, result);
    }

    #[test]
    fn random_playouts_end_with_an_outcome(seed in any::<u64>(), plies in 0usize..49) {
        let mut pos = random_position(seed, plies);
        let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 1);
        let outcome = pos.random_playout(&mut rng);
        prop_assert_eq!(pos.outcome(), Some(outcome));
        prop_assert_eq!(pos.to_move(), None);
        prop_assert_eq!(pos.n_empty(), 0);
        let b = pos.board();
        prop_assert_eq!(b.count(Cell::X), b.count(Cell::O));
        prop_assert_eq!(outcome.scores, Some(naive_scores(&format_board(&pos))));
    }
}
