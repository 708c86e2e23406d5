//! Reversi rules: the start and the first moves of the rules text, flips in every
//! direction, passes and the end when neither side can place, scores, notation, the
//! position line, perft counts (the published 8x8 figures), a naive reference
//! implementation written here that every size is checked against, the generic
//! random-game checker and the board view.

use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;
use rules::check::check_random_games;
use rules::reversi::{Move, Position};
use rules::view::Input;
use rules::{Game, GameKind, MoveError, Options, Outcome, SetupError, Side, perft};

fn opts(pairs: &[(&str, &str)]) -> Options {
    pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

fn start(n: usize) -> Position {
    Position::new(&opts(&[("size", &n.to_string())]), None).expect("a board size")
}

fn played(n: usize, moves: &[&str]) -> Position {
    let mut pos = start(n);
    for text in moves {
        let mv = pos.parse_move(text).unwrap_or_else(|err| panic!("{text}: {err}"));
        pos.play(&mv).unwrap_or_else(|err| panic!("{text}: {err}"));
    }
    pos
}

fn legal(pos: &Position) -> Vec<String> {
    let mut moves = Vec::new();
    pos.legal_moves(&mut moves);
    moves.iter().map(|mv| pos.format_move(mv)).collect()
}

fn line(pos: &Position) -> String {
    pos.position_line()
}

fn from_line(n: usize, text: &str) -> Position {
    Position::from_position_line(&opts(&[("size", &n.to_string())]), text).unwrap_or_else(|err| panic!("{text}: {err}"))
}

#[test]
fn the_start_and_blacks_first_moves() {
    let pos = start(8);
    assert_eq!(
        line(&pos),
        "black:......../......../......../...WB.../...BW.../......../......../........",
        "White on d4 and e5, Black on d5 and e4"
    );
    assert_eq!(pos.to_move(), Some(Side::First));
    assert_eq!(pos.running_scores(), Some([2, 2]));
    let mut first = legal(&pos);
    first.sort();
    assert_eq!(first, ["c4", "d3", "e6", "f5"]);
    assert_eq!(Position::new(&Options::new(), None).unwrap(), pos, "8x8 by default");
    assert_eq!(Position::INFO.side_names, ["Black", "White"]);
}

#[test]
fn a_placement_flips_every_bracketed_line() {
    // d3 flips d4 (one line).
    let pos = played(8, &["d3"]);
    assert_eq!(pos.cell(3, 3), Some(Side::First));
    assert_eq!(pos.running_scores(), Some([4, 1]));
    assert_eq!(pos.to_move(), Some(Side::Second));
    // White to move on 6x6 (rows top first):
    //   ......
    //   .BBB..
    //   .BWB..
    //   .BBBW.
    let pos = from_line(6, "white:....../.BBB../.BWB../.BBBW./....../......");
    assert_eq!(pos.to_move(), Some(Side::Second));
    // e2 brackets nothing; a1 brackets b2 (up to c3's W) on the diagonal.
    let err = pos.clone().play(&Move::place(4, 1)).unwrap_err();
    assert_eq!(err.to_string(), "illegal move e2: a disc on e2 flips no disc");
    let mut diagonal = pos.clone();
    diagonal.play(&Move::place(0, 0)).expect("a1 brackets b2");
    assert_eq!(diagonal.last_flipped(), [(1, 1)]);
    // a4 brackets b4, c4 and d4 up to e4's W.
    let mut after = pos.clone();
    after.play(&after.parse_move("a4").unwrap()).expect("a4 brackets b4..d4");
    assert_eq!(line(&after), "black:....../.BBB../.BWB../WWWWW./....../......");
    assert_eq!(after.last_flipped().len(), 3);
    assert_eq!(after.running_scores(), Some([5, 6]));
    // Lines in several directions at once: Black on e5 of this board brackets d4 (NW,
    // up to c3), e4 (N, up to e3) and d5 (W, up to c5).
    let many = from_line(6, "black:....../....../..BBB./...WW./..BW../......");
    let mut after = many.clone();
    after.play(&after.parse_move("e5").unwrap()).expect("e5 brackets three lines");
    let mut flipped = after.last_flipped();
    flipped.sort();
    assert_eq!(flipped, [(3, 3), (3, 4), (4, 3)]);
}

#[test]
fn a_side_without_a_placement_passes_and_the_game_ends_when_neither_can_place() {
    // Black has no placement (its only neighbour line is its own disc), White has a1.
    let pos = from_line(6, "black:.BWWWW/WWWWWW/WWWWWW/WWWWWW/WWWWWW/WWWWWW");
    assert_eq!(legal(&pos), ["pass"]);
    assert_eq!(pos.board_view().input, Input::Pass);
    let mut after = pos.clone();
    let err = after.play(&Move::place(0, 0)).unwrap_err();
    assert!(matches!(err, MoveError::Illegal { .. }), "{err}");
    after.play(&Move::Pass).expect("the pass");
    assert_eq!(after.to_move(), Some(Side::Second));
    assert_eq!(legal(&after), ["a1"]);
    after.play(&after.parse_move("A1").unwrap()).expect("a1 flips b1");
    assert_eq!(after.to_move(), None);
    assert_eq!(after.outcome(), Some(Outcome::from_scores([0, 36])));
    assert_eq!(after.n_moves(), 2, "a pass is a move");
    assert!(after.play(&Move::Pass).is_err());
    // Passing with a placement open is illegal.
    let mut opening = start(8);
    let err = opening.play(&Move::Pass).unwrap_err();
    assert_eq!(err.to_string(), "illegal move pass: a placement is open, so passing is not allowed");
    // Neither side can place on a board that is not full: over, the discs decide.
    let over = from_line(6, "end:BB..../....../....../....../....../......");
    assert_eq!(over.outcome(), Some(Outcome::from_scores([2, 0])));
    let refused = Position::from_position_line(&opts(&[("size", "6")]), "black:BB..../....../....../....../....../......");
    assert!(refused.unwrap_err().contains("over"));
}

#[test]
fn notation_and_setup_errors() {
    let pos = start(8);
    assert_eq!(pos.parse_move(" D3 ").unwrap(), Move::place(3, 2));
    assert_eq!(pos.parse_move("PASS").unwrap(), Move::Pass);
    for bad in ["", "3d", "d", "i3", "d0", "d9", "d3x"] {
        assert!(matches!(pos.parse_move(bad), Err(MoveError::Parse { .. })), "{bad:?}");
    }
    let big = start(16);
    assert_eq!(big.format_move(&big.parse_move("p16").unwrap()), "p16");
    let mut taken = start(8);
    let err = taken.play(&Move::place(3, 3)).unwrap_err();
    assert_eq!(err.to_string(), "illegal move d4: d4 is taken by White");
    let err = taken.play(&Move::place(0, 0)).unwrap_err();
    assert_eq!(err.to_string(), "illegal move a1: a disc on a1 flips no disc");
    for size in ["5", "7", "18", "4", "x"] {
        assert!(matches!(Position::new(&opts(&[("size", size)]), None), Err(SetupError::BadOption { .. })), "{size}");
    }
    assert!(matches!(Position::new(&Options::new(), Some("anything")), Err(SetupError::BadStart(_))));
    assert_eq!(GameKind::from_name("Othello").unwrap().name(), "reversi");
}

#[test]
fn the_position_line_round_trips_along_random_games() {
    for n in [6, 8, 10] {
        let mut rng = ChaCha8Rng::seed_from_u64(n as u64);
        let mut pos = start(n);
        loop {
            let back = from_line(n, &line(&pos));
            assert_eq!(line(&back), line(&pos));
            assert_eq!((back.to_move(), back.running_scores()), (pos.to_move(), pos.running_scores()));
            assert_eq!(legal(&back), legal(&pos));
            let Some(mv) = pos.random_move(&mut rng) else { break };
            pos.play(&mv).expect("a random move is legal");
        }
    }
}

/// A plain Reversi written here, independent of the rules crate's: a board of chars,
/// the eight directions walked one square at a time.
#[derive(Clone)]
struct Naive {
    n: usize,
    board: Vec<Vec<char>>,
    black_to_move: bool,
}

impl Naive {
    fn start(n: usize) -> Naive {
        let mut board = vec![vec!['.'; n]; n];
        let c = n / 2;
        board[c - 1][c - 1] = 'W';
        board[c][c] = 'W';
        board[c][c - 1] = 'B';
        board[c - 1][c] = 'B';
        Naive { n, board, black_to_move: true }
    }

    fn flips(&self, row: usize, col: usize, me: char) -> Vec<(usize, usize)> {
        let them = if me == 'B' { 'W' } else { 'B' };
        let mut all = Vec::new();
        if self.board[row][col] != '.' {
            return all;
        }
        for dr in -1i32..=1 {
            for dc in -1i32..=1 {
                if dr == 0 && dc == 0 {
                    continue;
                }
                let mut line = Vec::new();
                let (mut r, mut c) = (row as i32 + dr, col as i32 + dc);
                while r >= 0 && c >= 0 && (r as usize) < self.n && (c as usize) < self.n && self.board[r as usize][c as usize] == them {
                    line.push((r as usize, c as usize));
                    r += dr;
                    c += dc;
                }
                let closed = r >= 0 && c >= 0 && (r as usize) < self.n && (c as usize) < self.n && self.board[r as usize][c as usize] == me;
                if closed && !line.is_empty() {
                    all.extend(line);
                }
            }
        }
        all
    }

    fn placements(&self, me: char) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for row in 0..self.n {
            for col in 0..self.n {
                if !self.flips(row, col, me).is_empty() {
                    out.push((row, col));
                }
            }
        }
        out
    }

    fn me(&self) -> char {
        if self.black_to_move { 'B' } else { 'W' }
    }

    /// Legal moves, `None` for a pass, empty when the game is over.
    fn moves(&self) -> Vec<Option<(usize, usize)>> {
        let mine = self.placements(self.me());
        if !mine.is_empty() {
            return mine.into_iter().map(Some).collect();
        }
        let theirs = self.placements(if self.black_to_move { 'W' } else { 'B' });
        if theirs.is_empty() { Vec::new() } else { vec![None] }
    }

    fn play(&mut self, mv: Option<(usize, usize)>) {
        if let Some((row, col)) = mv {
            let me = self.me();
            for (r, c) in self.flips(row, col, me) {
                self.board[r][c] = me;
            }
            self.board[row][col] = me;
        }
        self.black_to_move = !self.black_to_move;
    }

    fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let moves = self.moves();
        if depth == 1 {
            return moves.len() as u64;
        }
        moves
            .into_iter()
            .map(|mv| {
                let mut next = self.clone();
                next.play(mv);
                next.perft(depth - 1)
            })
            .sum()
    }

    fn text(mv: Option<(usize, usize)>) -> String {
        match mv {
            Some((row, col)) => format!("{}{}", (b'a' + col as u8) as char, row + 1),
            None => "pass".to_string(),
        }
    }
}

#[test]
fn perft_agrees_with_the_naive_reference_on_every_size() {
    for (n, depth) in [(6, 6), (8, 5), (10, 4), (16, 3)] {
        assert_eq!(perft(&start(n), depth), Naive::start(n).perft(depth), "size {n} depth {depth}");
    }
}

/// Random games to their end, the rules and the reference in step: the same legal
/// moves, the same boards, passes and ends.
#[test]
fn random_games_agree_with_the_naive_reference() {
    for seed in 0..40u64 {
        let n = [6, 8, 10, 12][seed as usize % 4];
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let (mut pos, mut naive) = (start(n), Naive::start(n));
        loop {
            let expected: Vec<String> = naive.moves().into_iter().map(Naive::text).collect();
            assert_eq!(legal(&pos), expected, "size {n} seed {seed} after {} moves", pos.n_moves());
            let rows: Vec<String> = naive.board.iter().map(|row| row.iter().collect()).collect();
            assert!(line(&pos).ends_with(&rows.join("/")), "size {n} seed {seed}");
            let Some(mv) = pos.random_move(&mut rng) else { break };
            let text = pos.format_move(&mv);
            let index = expected.iter().position(|t| *t == text).expect("a listed move");
            naive.play(naive.moves()[index]);
            pos.play(&mv).expect("legal");
        }
        assert!(naive.moves().is_empty(), "size {n} seed {seed}: both end together");
        let count = |disc: char| naive.board.iter().flatten().filter(|&&c| c == disc).count() as i64;
        assert_eq!(pos.outcome(), Some(Outcome::from_scores([count('B'), count('W')])));
    }
}

#[test]
fn random_games_keep_the_game_contract() {
    // 8x8, the default, is checked by tests/registry.rs as every game's start.
    for n in [6, 10, 16] {
        let summary = check_random_games(&start(n), 30, n as u64, 2 * n * n).expect("the contract holds");
        assert_eq!(summary.games, 30);
    }
}

#[test]
fn the_board_view_marks_the_open_squares() {
    let view = start(8).board_view();
    assert_eq!((view.width, view.height, view.input), (8, 8, Input::Cell));
    let hints: Vec<&str> = view.cells.iter().filter(|c| c.hint).map(|c| c.name.as_str()).collect();
    assert_eq!(hints, ["d3", "c4", "f5", "e6"]);
    assert_eq!(view.status, "Black to move");
    assert_eq!(view.cell(3, 3).unwrap().owner, Some(1), "d4 is White's");
    let after = played(8, &["d3"]).board_view();
    assert_eq!(after.last, vec![[3, 2]]);
    assert_eq!(after.last_move.as_deref(), Some("d3"));
    assert_eq!(after.last_report, ["d3 flips 1"]);
    let end = from_line(6, "end:BB..../....../....../....../....../......").board_view();
    assert_eq!((end.input, end.status.as_str()), (Input::None, "Black wins 2 to 0"));
}
