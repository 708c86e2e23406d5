//! Connect Four: perft counts, rule scenarios with board pictures, a naive reference
//! implementation the rules are compared with, the generic random-game checker and
//! property tests.

use std::collections::{BTreeMap, HashSet};

use proptest::prelude::*;
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;
use rules::check::PerftLine;
use rules::connect4::{Move, Position};
use rules::{Game, GameKind, MoveError, Options, Outcome, SetupError, Side, check, perft};

// ---------------------------------------------------------------------------------------
// A naive, independent implementation: a 2D array and a full-board scan for four.

#[derive(Clone, Debug)]
struct Naive {
    width: usize,
    height: usize,
    /// `cells[x][y]`: 0 empty, 1 first player, 2 second player.
    cells: Vec<Vec<u8>>,
    n_moves: usize,
}

impl Naive {
    fn new(width: usize, height: usize) -> Naive {
        Naive { width, height, cells: vec![vec![0; height]; width], n_moves: 0 }
    }

    fn column_height(&self, x: usize) -> usize {
        self.cells[x].iter().filter(|&&c| c != 0).count()
    }

    fn play(&mut self, x: usize) {
        let y = self.column_height(x);
        self.cells[x][y] = 1 + (self.n_moves % 2) as u8;
        self.n_moves += 1;
    }

    /// The colour with four in a row anywhere on the board (at most one can have it in
    /// a real game).
    fn winner(&self) -> Option<u8> {
        let (w, h) = (self.width as isize, self.height as isize);
        for x in 0..w {
            for y in 0..h {
                let c = self.cells[x as usize][y as usize];
                if c == 0 {
                    continue;
                }
                for (dx, dy) in [(1, 0), (0, 1), (1, 1), (1, -1)] {
                    let four = (1..4).all(|i| {
                        let (cx, cy) = (x + dx * i, y + dy * i);
                        (0..w).contains(&cx) && (0..h).contains(&cy) && self.cells[cx as usize][cy as usize] == c
                    });
                    if four {
                        return Some(c);
                    }
                }
            }
        }
        None
    }

    fn is_over(&self) -> bool {
        self.n_moves == self.width * self.height || self.winner().is_some()
    }

    fn moves(&self) -> Vec<usize> {
        if self.is_over() {
            return Vec::new();
        }
        (0..self.width).filter(|&x| self.column_height(x) < self.height).collect()
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
            .map(|x| {
                let mut next = self.clone();
                next.play(x);
                next.perft(depth - 1)
            })
            .sum()
    }

    fn outcome(&self) -> Option<Outcome> {
        match self.winner() {
            Some(1) => Some(Outcome::win(Side::First)),
            Some(_) => Some(Outcome::win(Side::Second)),
            None if self.n_moves == self.width * self.height => Some(Outcome::draw()),
            None => None,
        }
    }

    fn cell(&self, x: usize, y: usize) -> Option<Side> {
        match self.cells[x][y] {
            0 => None,
            1 => Some(Side::First),
            _ => Some(Side::Second),
        }
    }
}

/// Asserts that the rules and the naive implementation see the same game.
fn assert_agree(pos: &Position, naive: &Naive, context: &str) {
    assert_eq!(pos.outcome(), naive.outcome(), "{context}: outcome\n{}", pos.picture());
    let mut moves = Vec::new();
    pos.legal_moves(&mut moves);
    let moves: Vec<usize> = moves.iter().map(|m| m.column as usize).collect();
    assert_eq!(moves, naive.moves(), "{context}: legal moves\n{}", pos.picture());
    for x in 0..pos.width() {
        assert_eq!(pos.column_height(x), naive.column_height(x), "{context}: height of column {x}");
        for y in 0..pos.height() {
            assert_eq!(pos.cell(x, y), naive.cell(x, y), "{context}: cell ({x}, {y})");
        }
    }
}

// ---------------------------------------------------------------------------------------
// Helpers.

fn empty(width: usize, height: usize) -> Position {
    Position::empty(width, height).expect("size in range")
}

/// Plays `moves` with checked play, asserting that the game stays open until the last
/// move and that the naive implementation agrees after every move.
fn play_game(width: usize, height: usize, moves: &[usize]) -> Position {
    let mut pos = empty(width, height);
    let mut naive = Naive::new(width, height);
    for (idx, &x) in moves.iter().enumerate() {
        assert!(pos.outcome().is_none(), "game over before move {idx} ({x})\n{}", pos.picture());
        pos.play(&Move::new(x as u8)).unwrap_or_else(|err| panic!("move {idx} ({x}): {err}\n{}", pos.picture()));
        naive.play(x);
        assert_agree(&pos, &naive, &format!("{width}x{height} after move {idx}"));
        assert_eq!(pos.last_move(), Some(x));
    }
    pos
}

fn won_by(pos: &Position, side: Side) {
    assert_eq!(pos.outcome(), Some(Outcome::win(side)), "\n{}", pos.picture());
    assert_eq!(pos.to_move(), None);
    assert_eq!(pos.winner(), Some(side));
    let mut moves = Vec::new();
    pos.legal_moves(&mut moves);
    assert!(moves.is_empty());
    assert_eq!(pos.clone().play(&Move::new(0)), Err(MoveError::GameOver));
}

/// The naive board of a perft line: its size, its columns played.
fn naive_start(line: &PerftLine) -> Naive {
    let size = |key: &str| line.options[key].parse::<usize>().expect("a size");
    let mut naive = Naive::new(size("width"), size("height"));
    for x in &line.moves {
        naive.play(x.parse().expect("a column"));
    }
    naive
}

fn perft_lines() -> Vec<PerftLine> {
    check::perft_lines(include_str!("data/connect4-perft.txt")).expect("the perft file")
}

// ---------------------------------------------------------------------------------------
// Perft (the rules' counts of the file are checked by tests/registry.rs, as every game's).

/// OEIS A212693, the number of Connect Four games on 7x6 after n plies: the independent
/// source for the 7x6 lines of the perft file.
#[test]
fn perft_7x6_is_oeis_a212693() {
    const A212693: [u64; 9] = [1, 7, 49, 343, 2401, 16807, 117649, 823536, 5673234];
    let from_file: BTreeMap<u32, u64> = perft_lines()
        .into_iter()
        .filter(|line| line.moves.is_empty() && line.options["width"] == "7" && line.options["height"] == "6")
        .map(|line| (line.depth, line.count))
        .collect();
    assert_eq!(from_file.len(), 8);
    for (depth, count) in from_file {
        assert_eq!(count, A212693[depth as usize], "depth {depth}");
    }
    assert_eq!(perft(&empty(7, 6), 0), 1);
}

#[test]
fn perft_file_agrees_with_naive() {
    let mut checked = 0;
    for line in perft_lines() {
        if line.count <= 200_000 {
            assert_eq!(naive_start(&line).perft(line.depth), line.count, "naive {}", line.text);
            checked += 1;
        }
    }
    assert!(checked > 40);
}

// ---------------------------------------------------------------------------------------
// Scenarios on 7x6, written by hand.

#[test]
fn horizontal_four_bottom_left() {
    let pos = play_game(7, 6, &[0, 0, 1, 1, 2, 2, 3]);
    won_by(&pos, Side::First);
    assert_eq!(
        pos.picture(),
        " . . . . . . .\n . . . . . . .\n . . . . . . .\n . . . . . . .\n O O O . . . .\n X X X X . . .\n 0 1 2 3 4 5 6\nblue (X) wins, last move 3\n"
    );
}

#[test]
fn horizontal_four_right_edge_by_second_player() {
    // Red fills row 0 from column 3 to the edge, its last disc inside the line.
    let pos = play_game(7, 6, &[0, 6, 0, 5, 1, 3, 1, 4]);
    won_by(&pos, Side::Second);
    assert_eq!(pos.board_rows(None)[4..], ["XX.....", "XX.OOOO"]);
}

#[test]
fn vertical_four_at_top_of_right_column() {
    let pos = play_game(7, 6, &[0, 6, 1, 6, 6, 0, 6, 1, 6, 0, 6]);
    won_by(&pos, Side::First);
    assert_eq!(pos.board_rows(None), ["......X", "......X", "......X", "O.....X", "OO....O", "XX....O"]);
}

#[test]
fn diagonal_fours_on_7x6() {
    // Rising: blue (0,0) (1,1) (2,2) (3,3).
    let pos = play_game(7, 6, &[0, 1, 1, 2, 2, 3, 2, 3, 3, 6, 3]);
    won_by(&pos, Side::First);
    assert_eq!(pos.board_rows(None)[2..], ["...X...", "..XX...", ".XXO...", "XOOO..O"]);
    // Falling to the right edge: blue (3,3) (4,2) (5,1) (6,0).
    let pos = play_game(7, 6, &[6, 5, 5, 4, 4, 3, 4, 3, 3, 0, 3]);
    won_by(&pos, Side::First);
    assert_eq!(pos.board_rows(None)[2..], ["...X...", "...XX..", "...OXX.", "O..OOOX"]);
}

#[test]
fn five_and_seven_in_a_row_win() {
    let pos = play_game(7, 6, &[0, 0, 1, 1, 3, 3, 4, 4, 2]);
    won_by(&pos, Side::First);
    assert_eq!(pos.board_rows(None)[4..], ["OO.OO..", "XXXXX.."]);
    let pos = play_game(7, 6, &[0, 0, 1, 1, 2, 2, 4, 4, 5, 5, 6, 6, 3]);
    won_by(&pos, Side::First);
    assert_eq!(pos.board_rows(None)[4..], ["OOO.OOO", "XXXXXXX"]);
}

#[test]
fn one_disc_completing_two_lines() {
    let pos = game_from_rows(&[".......", ".......", "XXXX...", "XOOX...", "OOOX...", "OXOX..O"], (3, 3));
    won_by(&pos, Side::First);
    assert_eq!(pos.winning_cells(), [(0, 3), (1, 3), (2, 3), (3, 0), (3, 1), (3, 2), (3, 3)]);
}

#[test]
fn winning_cells_of_long_and_diagonal_lines() {
    let pos = play_game(7, 6, &[0, 0, 1, 1, 2, 2, 4, 4, 5, 5, 6, 6, 3]);
    assert_eq!(pos.winning_cells(), (0..7).map(|x| (x, 0)).collect::<Vec<_>>());
    let pos = play_game(7, 6, &[6, 5, 5, 4, 4, 3, 4, 3, 3, 0, 3]);
    assert_eq!(pos.winning_cells(), [(3, 3), (4, 2), (5, 1), (6, 0)]);
    assert!(play_game(7, 6, &[0, 0, 1, 1, 2, 2]).winning_cells().is_empty());
}

#[test]
fn same_board_same_position_whatever_the_order() {
    let a: Vec<usize> = [6; 6].into_iter().chain([0; 6]).chain([3]).collect();
    let b: Vec<usize> = [0; 6].into_iter().chain([6; 6]).chain([3]).collect();
    assert_eq!(play_game(7, 6, &a), play_game(7, 6, &b));
    let wa = play_game(20, 20, &[19; 20].into_iter().chain([0; 20]).collect::<Vec<_>>());
    let wb = play_game(20, 20, &[0; 20].into_iter().chain([19; 20]).collect::<Vec<_>>());
    assert_eq!(wa.board_rows(None), wb.board_rows(None));
    assert_ne!(wa, wb, "the last moves differ");
    let mut fast = empty(7, 6);
    for x in &a[..12] {
        fast.play(&Move::new(*x as u8)).expect("legal");
    }
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let mut slow = fast.clone();
    fast.random_playout(&mut ChaCha8Rng::seed_from_u64(5));
    while let Some(mv) = slow.random_move(&mut rng) {
        slow.play_unchecked(&mv);
    }
    assert_eq!(fast, slow);
}

#[test]
fn three_is_not_four() {
    let pos = play_game(7, 6, &[0, 0, 1, 1, 2, 2]);
    assert_eq!(pos.to_move(), Some(Side::First));
    let pos = play_game(7, 6, &[0, 1, 0, 1, 0, 1]);
    assert_eq!(pos.outcome(), None);
}

#[test]
fn drawn_7x6_game() {
    let moves =
        [0, 3, 2, 5, 1, 4, 4, 0, 0, 0, 6, 1, 1, 3, 1, 4, 0, 3, 3, 3, 5, 0, 1, 1, 4, 3, 6, 4, 5, 5, 2, 2, 4, 2, 2, 5, 2, 5, 6, 6, 6, 6];
    let pos = play_game(7, 6, &moves);
    assert_eq!(pos.outcome(), Some(Outcome::draw()));
    assert_eq!(pos.to_move(), None);
    assert_eq!(pos.n_moves(), 42);
    assert_eq!(
        pos.picture(),
        " O O X O X O O\n X X X O O O X\n O X O X X O O\n X X O O O X X\n O O X O X X X\n X X X O O O X\n 0 1 2 3 4 5 6\ndraw, last move 6\n"
    );
    let mut moves = Vec::new();
    pos.legal_moves(&mut moves);
    assert!(moves.is_empty());
}

#[test]
fn drawn_4x4_game() {
    let pos = play_game(4, 4, &[2, 2, 2, 1, 2, 3, 1, 0, 0, 3, 1, 1, 0, 3, 3, 0]);
    assert_eq!(pos.outcome(), Some(Outcome::draw()));
    assert_eq!(pos.board_rows(None), ["OOXX", "XXXO", "XXOO", "OOXO"]);
}

#[test]
fn four_on_the_last_cell_is_a_win_not_a_draw() {
    // A full 4x4 board whose 16th disc, red's, completes red's top row.
    let rows = ["OOOO", "XOXO", "OXXX", "XXXO"];
    let pos = game_from_rows(&rows, (2, 3));
    won_by(&pos, Side::Second);
    assert_eq!(pos.winning_cells(), [(0, 3), (1, 3), (2, 3), (3, 3)]);
    assert_eq!(pos.board_rows(None), rows);
    assert_eq!(pos.n_moves(), 16);
}

// ---------------------------------------------------------------------------------------
// Scenarios on large boards, built from board pictures: a four-free pattern fills the
// columns under a target four, then a search finds an order of play that builds the
// picture with alternating turns and the target's last disc played last.

/// The four-free filling: colours alternate up each column and change every two
/// columns, so no line holds more than two of a colour.
fn pattern(x0: usize, x: usize, y: usize) -> Side {
    let band = (x as isize - x0 as isize).div_euclid(2) as usize;
    if (y + band).is_multiple_of(2) { Side::First } else { Side::Second }
}

/// An order of play that builds exactly `picture` (cells by `(x, y)`, stacked from the
/// bottom of each column), blue first, with `last` played last.
fn order_for(width: usize, picture: &BTreeMap<(usize, usize), Side>, last: (usize, usize)) -> Vec<usize> {
    let mut stacks: Vec<Vec<Side>> = vec![Vec::new(); width];
    for (&(x, y), &side) in picture {
        assert_eq!(stacks[x].len(), y, "picture has a gap under ({x}, {y})");
        stacks[x].push(side);
    }
    assert_eq!(stacks[last.0].len(), last.1 + 1, "the last disc must be on top of its column");
    let last_side = stacks[last.0].pop().expect("last disc");
    let n = picture.len();
    assert_eq!(if (n - 1).is_multiple_of(2) { Side::First } else { Side::Second }, last_side, "the counts of the picture do not alternate");

    fn search(stacks: &[Vec<Side>], heights: &mut Vec<usize>, path: &mut Vec<usize>, left: usize, seen: &mut HashSet<Vec<usize>>) -> bool {
        if left == 0 {
            return true;
        }
        if !seen.insert(heights.clone()) {
            return false;
        }
        let side = if path.len().is_multiple_of(2) { Side::First } else { Side::Second };
        for x in 0..stacks.len() {
            if stacks[x].get(heights[x]) == Some(&side) {
                heights[x] += 1;
                path.push(x);
                if search(stacks, heights, path, left - 1, seen) {
                    return true;
                }
                path.pop();
                heights[x] -= 1;
            }
        }
        false
    }
    let mut path = Vec::new();
    let found = search(&stacks, &mut vec![0; width], &mut path, n - 1, &mut HashSet::new());
    assert!(found, "no order of play builds the picture");
    path.push(last.0);
    path
}

/// Plays a game that ends on the board `rows` (top row first, `X` `O` `.`) with the
/// disc at `last` played last.
fn game_from_rows(rows: &[&str], last: (usize, usize)) -> Position {
    let height = rows.len();
    let mut picture = BTreeMap::new();
    for (row_idx, row) in rows.iter().enumerate() {
        for (x, ch) in row.chars().enumerate() {
            match ch {
                'X' => picture.insert((x, height - 1 - row_idx), Side::First),
                'O' => picture.insert((x, height - 1 - row_idx), Side::Second),
                _ => None,
            };
        }
    }
    let moves = order_for(rows[0].len(), &picture, last);
    let pos = play_game(rows[0].len(), height, &moves);
    assert_eq!(pos.board_rows(None), rows);
    pos
}

/// Builds and plays a game on `width` x `height` where blue's disc at `last` completes
/// the four `targets`, the columns `x` under and around them filled to `fill[x]` with
/// the pattern; returns the final position.
fn four_scenario(width: usize, height: usize, fill: &[(usize, usize)], targets: [(usize, usize); 4], last: (usize, usize)) -> Position {
    assert!(targets.contains(&last));
    let x0 = fill.iter().map(|f| f.0).min().expect("some columns");
    let mut picture = BTreeMap::new();
    for &(x, rows) in fill {
        for y in 0..rows {
            let side = if targets.contains(&(x, y)) { Side::First } else { pattern(x0, x, y) };
            picture.insert((x, y), side);
        }
    }
    // Balance the counts with up to three discs of one colour in columns far from the
    // scene, two apart.
    let count = |side| picture.values().filter(|&&s| s == side).count() as isize;
    let mut missing = count(Side::First) - 1 - count(Side::Second);
    let filler_side = if missing > 0 { Side::Second } else { Side::First };
    let used: Vec<usize> = fill.iter().map(|f| f.0).collect();
    let mut filler = (0..width).rev().filter(|x| used.iter().all(|u| x.abs_diff(*u) >= 2)).step_by(2);
    while missing != 0 {
        let x = filler.next().expect("room for filler");
        for y in 0..3.min(missing.unsigned_abs()) {
            picture.insert((x, y), filler_side);
        }
        missing -= missing.signum() * 3.min(missing.abs());
    }
    // The picture without the last disc must be free of fours: the win comes from the
    // last move alone.
    let mut before = Naive::new(width, height);
    for (&(x, y), &side) in &picture {
        if (x, y) != last {
            before.cells[x][y] = if side == Side::First { 1 } else { 2 };
        }
    }
    assert_eq!(before.winner(), None, "stray four in the scenario picture");
    let moves = order_for(width, &picture, last);
    let pos = play_game(width, height, &moves);
    won_by(&pos, Side::First);
    for (x, y) in targets {
        assert_eq!(pos.cell(x, y), Some(Side::First));
    }
    pos
}

fn columns(xs: std::ops::Range<usize>, rows: impl Fn(usize) -> usize) -> Vec<(usize, usize)> {
    xs.map(|x| (x, rows(x))).collect()
}

#[test]
fn fours_on_the_top_row_of_20x20() {
    // Horizontal at the top right corner, the last disc in the middle of the line.
    four_scenario(20, 20, &columns(16..20, |_| 20), [(16, 19), (17, 19), (18, 19), (19, 19)], (18, 19));
    // Vertical up to the top of the left column.
    four_scenario(20, 20, &columns(0..1, |_| 20), [(0, 16), (0, 17), (0, 18), (0, 19)], (0, 19));
    // Rising diagonal into the top right corner.
    four_scenario(20, 20, &columns(16..20, |x| x + 1), [(16, 16), (17, 17), (18, 18), (19, 19)], (19, 19));
    // Falling diagonal from the top left corner, last disc at the corner.
    four_scenario(20, 20, &columns(0..4, |x| 20 - x), [(0, 19), (1, 18), (2, 17), (3, 16)], (0, 19));
}

#[test]
fn fours_in_the_corners_of_32x32() {
    // Bottom left, rising diagonal, last disc in the middle.
    four_scenario(32, 32, &columns(0..4, |x| x + 1), [(0, 0), (1, 1), (2, 2), (3, 3)], (2, 2));
    // Bottom right, horizontal, last disc in the corner.
    four_scenario(32, 32, &columns(28..32, |_| 1), [(28, 0), (29, 0), (30, 0), (31, 0)], (31, 0));
    // Top left, falling diagonal, last disc at the far end.
    four_scenario(32, 32, &columns(0..4, |x| 32 - x), [(0, 31), (1, 30), (2, 29), (3, 28)], (3, 28));
    // Top right, vertical.
    four_scenario(32, 32, &columns(31..32, |_| 32), [(31, 28), (31, 29), (31, 30), (31, 31)], (31, 31));
    // Bottom right, rising diagonal to the edge.
    four_scenario(32, 32, &columns(28..32, |x| x - 27), [(28, 0), (29, 1), (30, 2), (31, 3)], (30, 2));
    // Top right, rising diagonal into the corner.
    four_scenario(32, 32, &columns(28..32, |x| x + 1), [(28, 28), (29, 29), (30, 30), (31, 31)], (31, 31));
    // Top left, horizontal along the top row.
    four_scenario(32, 32, &columns(0..4, |_| 32), [(0, 31), (1, 31), (2, 31), (3, 31)], (1, 31));
}

#[test]
fn fours_on_narrow_and_flat_boards() {
    // 8 wide and 32 tall (column masks), and 32 wide and 4 tall.
    four_scenario(8, 32, &columns(4..8, |_| 32), [(4, 31), (5, 31), (6, 31), (7, 31)], (7, 31));
    four_scenario(32, 4, &columns(12..16, |x| x - 11), [(12, 0), (13, 1), (14, 2), (15, 3)], (13, 1));
}

#[test]
fn scenario_pattern_alone_never_wins() {
    // The filling pattern used above has no four on a full board: a drawn 32x32 picture.
    let mut naive = Naive::new(32, 32);
    for x in 0..32 {
        for y in 0..32 {
            naive.cells[x][y] = if pattern(0, x, y) == Side::First { 1 } else { 2 };
        }
    }
    assert_eq!(naive.winner(), None);
}

// ---------------------------------------------------------------------------------------
// Moves, errors, options, accessors.

#[test]
fn full_column_and_missing_column_are_illegal() {
    let mut pos = play_game(7, 6, &[3, 3, 3, 3, 3, 3]);
    assert!(!pos.is_open(3));
    let before = pos.clone();
    assert_eq!(pos.play(&Move::new(3)), Err(MoveError::Illegal { text: "3".to_string(), reason: "the column is full".to_string() }));
    assert_eq!(pos.play(&Move::new(9)).unwrap_err().to_string(), "illegal move 9: no column 9 on a board 7 wide");
    assert_eq!(pos, before, "refused moves change nothing");
    let mut moves = Vec::new();
    pos.legal_moves(&mut moves);
    assert_eq!(moves.iter().map(|m| m.column).collect::<Vec<_>>(), [0, 1, 2, 4, 5, 6]);
    // Through run-time dispatch, as a referee sees it.
    let mut any = GameKind::Connect4.new_position(&Options::new(), None).expect("defaults");
    for _ in 0..6 {
        any.play_text("3").expect("column 3 has room");
    }
    assert_eq!(any.check_text("3").unwrap_err().to_string(), "illegal move 3: the column is full");
    assert_eq!(any.legal_moves_text().expect("enumerable"), ["0", "1", "2", "4", "5", "6"]);
}

#[test]
fn move_text() {
    let pos = empty(7, 6);
    assert_eq!(pos.parse_move("3"), Ok(Move::new(3)));
    assert_eq!(pos.parse_move("  6\r\n"), Ok(Move::new(6)));
    assert_eq!(pos.parse_move("06"), Ok(Move::new(6)));
    assert_eq!(pos.parse_move("+0"), Ok(Move::new(0)));
    assert_eq!(pos.format_move(&Move::new(5)), "5");
    for text in ["9", "7", "-1", "255", "99999999999999999999999"] {
        match pos.parse_move(text) {
            Err(MoveError::Illegal { reason, .. }) => assert_eq!(reason, format!("no column {text} on a board 7 wide")),
            other => panic!("{text:?}: {other:?}"),
        }
    }
    for text in ["", " ", "x", "3a", "3 4", "3.0", "-", "+", "a3", "c"] {
        assert!(matches!(pos.parse_move(text), Err(MoveError::Parse { .. })), "{text:?}");
    }
    assert_eq!(pos.parse_move("x").unwrap_err().to_string(), "cannot read move \"x\": a move is a column number from 0 to 6");
    let wide = empty(32, 32);
    assert_eq!(wide.parse_move("31"), Ok(Move::new(31)));
    assert!(matches!(wide.parse_move("32"), Err(MoveError::Illegal { .. })));
}

fn opts(pairs: &[(&str, &str)]) -> Options {
    pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

#[test]
fn options_and_sizes() {
    let pos = Position::new(&Options::new(), None).expect("defaults");
    assert_eq!((pos.width(), pos.height()), (7, 6));
    let pos = Position::new(&opts(&[("width", "20"), ("height", "20")]), None).expect("20x20");
    assert_eq!((pos.width(), pos.height()), (20, 20));
    for (w, h) in [(4, 4), (32, 32), (4, 32), (32, 4)] {
        let pos = Position::new(&opts(&[("width", &w.to_string()), ("height", &h.to_string())]), None).expect("in range");
        assert_eq!((pos.width(), pos.height()), (w, h));
    }
    for (name, value) in [("width", "3"), ("width", "33"), ("height", "3"), ("height", "33"), ("height", "0"), ("width", "-7")] {
        let err = Position::new(&opts(&[(name, value)]), None).unwrap_err();
        assert!(matches!(&err, SetupError::BadOption { name: n, .. } if n == name), "{err}");
        assert_eq!(err.to_string(), format!("option {name}={value:?}: must be between 4 and 32"));
    }
    let err = Position::new(&opts(&[("height", "six")]), None).unwrap_err();
    assert_eq!(err.to_string(), "option height=\"six\": not an integer");
    let err = Position::empty(7, 40).unwrap_err();
    assert!(matches!(err, SetupError::BadOption { ref name, .. } if name == "height"), "{err}");
    let err = GameKind::Connect4.new_position(&opts(&[("size", "7")]), None).unwrap_err();
    assert!(matches!(err, SetupError::UnknownOption { .. }), "{err}");
}

#[test]
fn a_start_board_is_read_checked_and_kept() {
    let text = ".......\n.......\n.......\n.......\n...O...\n..XXO..\n";
    let pos = Position::new(&Options::new(), Some(text)).unwrap();
    assert_eq!(pos.start_text().as_deref(), Some(text));
    assert_eq!(pos.to_move(), Some(Side::First));
    assert_eq!((pos.column_height(2), pos.column_height(3), pos.column_height(4)), (1, 2, 1));
    assert_eq!((pos.cell(3, 1), pos.cell(4, 0)), (Some(Side::Second), Some(Side::Second)));
    assert_eq!(pos.n_moves(), 4);
    assert_eq!(pos.last_move(), None);
    // The same board played from the empty one is the same game from here on, but for
    // the start it remembers.
    let played = play_game(7, 6, &[2, 4, 3, 3]);
    assert_eq!(pos.board_rows(None), played.board_rows(None));
    let (mut a, mut b) = (pos.clone(), played.clone());
    for column in [1, 6, 0] {
        a.play(&Move::new(column)).unwrap();
        b.play(&Move::new(column)).unwrap();
        assert_eq!((a.outcome(), a.to_move(), a.board_rows(None)), (b.outcome(), b.to_move(), b.board_rows(None)));
    }
    assert_eq!(a.winner(), Some(Side::First));
    // Played on, the start stays what it was; lower-case letters and spaces around rows
    // read alike; the position line of the start reads back.
    assert_eq!(a.start_text().as_deref(), Some(text));
    assert_eq!(Position::new(&Options::new(), Some(&text.replace('\n', "/"))).unwrap().start_text().as_deref(), Some(text));
    assert_eq!(
        Position::new(&Options::new(), Some(&text.to_lowercase().replace('\n', "  \n "))).unwrap().start_text().as_deref(),
        Some(text)
    );
    assert_eq!(
        GameKind::Connect4
            .new_position(&Options::new(), Some(&<Position as Game>::start_from_line(&<Position as Game>::start_line(text))))
            .unwrap()
            .start_text()
            .as_deref(),
        Some(text)
    );
}

#[test]
fn a_bad_start_board_is_refused_with_its_reason() {
    let start = |text: &str, options: &Options| Position::new(options, Some(text)).unwrap_err().to_string();
    let rows = |rows: &[&str]| rows.join("\n");
    let seven = |bottom: &str| rows(&[".......", ".......", ".......", ".......", ".......", bottom]);
    let o = Options::new();
    assert_eq!(
        start(&seven("...X..."), &o),
        "bad start position: the start board has 1 blue and 0 red discs; a start needs as many of each (blue moves first)"
    );
    assert_eq!(
        start(&rows(&[".......", ".......", ".......", ".......", "O......", "XXXXOOO"]), &o),
        "bad start position: impossible board: blue has four in a row but did not move last"
    );
    assert_eq!(
        start(&rows(&["...X...", ".......", ".......", ".......", ".......", "...O..."]), &o),
        "bad start position: the disc at column 3, row 5 floats over an empty cell"
    );
    assert_eq!(start(&seven("...Z..."), &o), "bad start position: unknown cell 'Z' at column 3, row 0");
    assert_eq!(start(&seven("...XO"), &o), "bad start position: bad board shape: row 5 is not 7 cells wide like the top row");
    assert_eq!(
        start(&rows(&["....", "....", "....", "XO.."]), &o),
        "bad start position: the start board is 4x4 (columns x rows), the options say 7x6"
    );
    let four = rows(&["O...", "O...", "OX..", "OXXX"]);
    assert_eq!(start(&four, &opts(&[("width", "4"), ("height", "4")])), "bad start position: the start board already has four in a row");
    let full = rows(&["XOXO", "XOXO", "OXOX", "OXOX"]);
    assert_eq!(start(&full, &opts(&[("width", "4"), ("height", "4")])), "bad start position: the start board is full");
}

#[test]
fn start_is_the_empty_board() {
    assert_eq!(Position::new(&Options::new(), Some(" \n")), Ok(empty(7, 6)));
    let blank = ".......\n.......\n.......\n.......\n.......\n.......\n";
    assert_eq!(Position::new(&Options::new(), Some(blank)).unwrap().start_text(), None);
    let pos = empty(7, 6);
    assert_eq!(pos.start_text(), None);
    assert_eq!(pos.to_move(), Some(Side::First));
    assert_eq!(pos.last_move(), None);
    assert_eq!(pos.n_moves(), 0);
    assert_eq!(pos.running_scores(), None);
    assert_eq!(pos.outcome(), None);
    assert_eq!(pos.forfeit(Side::First), Outcome::win(Side::Second));
}

proptest! {
    #[test]
    fn generated_openings_are_starts_with_blue_to_move(seed in any::<u64>(), big in any::<bool>()) {
        let options = if big { opts(&[("width", "20"), ("height", "20")]) } else { Options::new() };
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let text = <Position as Game>::opening_candidate(&options, &mut rng).unwrap().expect("no four with three discs a side");
        let pos = Position::new(&options, Some(&text)).unwrap();
        prop_assert_eq!(pos.start_text(), Some(text.clone()));
        prop_assert!([2, 4, 6].contains(&pos.n_moves()), "{} discs", pos.n_moves());
        prop_assert_eq!(pos.n_discs(Side::First), pos.n_discs(Side::Second));
        prop_assert_eq!(pos.to_move(), Some(Side::First));
    }
}

#[test]
fn accessors_and_board_rows() {
    let pos = play_game(7, 6, &[3, 3, 4]);
    assert_eq!(pos.to_move(), Some(Side::Second));
    assert_eq!(pos.last_move(), Some(4));
    assert_eq!(pos.column_height(3), 2);
    assert_eq!(pos.column_height(0), 0);
    assert_eq!(pos.cell(3, 0), Some(Side::First));
    assert_eq!(pos.cell(3, 1), Some(Side::Second));
    assert_eq!(pos.cell(4, 0), Some(Side::First));
    assert_eq!(pos.cell(4, 1), None);
    assert_eq!(pos.board_rows(None)[4..], ["...O...", "...XX.."]);
    assert_eq!(pos.board_rows(Some(Side::First))[4..], ["...T...", "...MM.."]);
    assert_eq!(pos.board_rows(Some(Side::Second))[4..], ["...M...", "...TT.."]);
    assert_eq!(pos.board_rows(None).len(), 6);
    assert_eq!(pos.picture().lines().last(), Some("red (O) to move, last move 4"));
}

#[test]
fn board_rows_read_back() {
    let pos = play_game(7, 6, &[3, 3, 4, 0, 6]);
    for me in [None, Some(Side::First), Some(Side::Second)] {
        let back = Position::from_board_rows(&pos.board_rows(me), me).expect("own rows");
        assert_eq!(back.board_rows(None), pos.board_rows(None));
        assert_eq!(back.to_move(), Some(Side::Second));
        assert_eq!(back.n_moves(), 5);
        assert_eq!(back.last_move(), None);
    }
    let lower = ["......."; 4].into_iter().chain(["...o...", "o..xx.x"]).collect::<Vec<_>>();
    assert_eq!(Position::from_board_rows(&lower, None).expect("lower case").board_rows(None), pos.board_rows(None));
    // A finished game reads back finished.
    let won = play_game(7, 6, &[0, 0, 1, 1, 2, 2, 3]);
    let back = Position::from_board_rows(&won.board_rows(None), None).expect("won board");
    assert_eq!(back.outcome(), Some(Outcome::win(Side::First)));
    let drawn = play_game(4, 4, &[2, 2, 2, 1, 2, 3, 1, 0, 0, 3, 1, 1, 0, 3, 3, 0]);
    let back = Position::from_board_rows(&drawn.board_rows(Some(Side::Second)), Some(Side::Second)).expect("drawn board");
    assert_eq!(back.outcome(), Some(Outcome::draw()));
}

#[test]
fn bad_board_rows() {
    use rules::connect4::BoardError;
    let read = |rows: &[&str], me| Position::from_board_rows(rows, me);
    assert!(matches!(read(&["....", "....", "...."], None), Err(BoardError::Shape(_))));
    assert!(matches!(read(&["....", "....", "...", "...."], None), Err(BoardError::Shape(_))));
    assert!(matches!(read(&[], None), Err(BoardError::Shape(_))));
    assert_eq!(read(&["....", "....", "....", "M..."], None), Err(BoardError::Cell { x: 0, y: 0, ch: 'M' }));
    assert_eq!(read(&["....", "....", "....", "X..."], Some(Side::First)), Err(BoardError::Cell { x: 0, y: 0, ch: 'X' }));
    assert_eq!(read(&["....", "....", "O...", "X..."], None).map(|p| p.n_moves()), Ok(2));
    assert_eq!(read(&["....", "O...", "....", "X..."], None), Err(BoardError::Floating { x: 0, y: 2 }));
    assert_eq!(read(&["....", "....", "....", "XX.."], None), Err(BoardError::Counts { first: 2, second: 0 }));
    assert_eq!(read(&["....", "....", "....", "O..."], None), Err(BoardError::Counts { first: 0, second: 1 }));
    let err = read(&["....", "O...", "OOO.", "XXXX"], None).unwrap_err();
    assert_eq!(err.to_string(), "impossible board: blue has four in a row but did not move last");
    assert!(read(&["....", "X...", "XOOO", "XXXO"], None).is_ok_and(|p| p.winner().is_none()));
}

#[test]
fn picture_of_a_wide_board() {
    let pos = play_game(12, 4, &[0, 11]);
    let picture = pos.picture();
    let lines: Vec<&str> = picture.lines().collect();
    assert_eq!(lines.len(), 6);
    assert_eq!(lines[3], "  X  .  .  .  .  .  .  .  .  .  .  O");
    assert_eq!(lines[4], "  0  1  2  3  4  5  6  7  8  9 10 11");
    assert_eq!(lines[5], "blue (X) to move, last move 11");
}

// ---------------------------------------------------------------------------------------
// Random games: the generic checker, the naive implementation, and the fast playout.

const SIZES: [(usize, usize); 9] = [(7, 6), (20, 20), (4, 4), (32, 32), (8, 7), (9, 7), (4, 32), (32, 4), (5, 13)];

#[test]
fn random_games_pass_the_checker() {
    for (w, h) in SIZES {
        let games = if w * h > 300 { 40 } else { 250 };
        let summary = check::check_random_games(&empty(w, h), games, 7, w * h).unwrap_or_else(|err| panic!("{w}x{h}: {err}"));
        assert_eq!(summary.games, games);
        assert!(summary.max_plies as usize <= w * h);
        assert!(summary.wins[0] > 0 && summary.wins[1] > 0, "{w}x{h}: {summary:?}");
    }
}

#[test]
fn random_games_agree_with_naive() {
    for (w, h) in SIZES {
        for seed in 0..25 {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let mut pos = empty(w, h);
            let mut naive = Naive::new(w, h);
            while let Some(mv) = pos.random_move(&mut rng) {
                pos.play_unchecked(&mv);
                naive.play(mv.column as usize);
                assert_eq!(pos.outcome(), naive.outcome(), "{w}x{h} seed {seed}\n{}", pos.picture());
            }
            assert_agree(&pos, &naive, &format!("{w}x{h} seed {seed} end"));
        }
    }
}

#[test]
fn playout_plays_the_random_move_game() {
    // The fast playout draws exactly what repeated random_move draws from the same RNG.
    for (w, h) in SIZES {
        for seed in 0..50 {
            let mut slow = empty(w, h);
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            while let Some(mv) = slow.random_move(&mut rng) {
                slow.play_unchecked(&mv);
            }
            let mut fast = empty(w, h);
            let outcome = fast.random_playout(&mut ChaCha8Rng::seed_from_u64(seed));
            assert_eq!(fast, slow, "{w}x{h} seed {seed}");
            assert_eq!(Some(outcome), slow.outcome());
        }
    }
}

#[test]
fn playout_from_the_middle_and_from_the_end() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let mut pos = play_game(7, 6, &[3, 3, 4, 4]);
    let outcome = pos.random_playout(&mut rng);
    assert_eq!(pos.outcome(), Some(outcome));
    let mut won = play_game(7, 6, &[0, 0, 1, 1, 2, 2, 3]);
    let before = won.clone();
    assert_eq!(won.random_playout(&mut rng), Outcome::win(Side::First));
    assert_eq!(won, before);
}

#[test]
fn random_moves_are_uniform() {
    // Column 3 full: six open columns, each should come up about 1/6 of the time.
    let pos = play_game(7, 6, &[3, 3, 3, 3, 3, 3]);
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let mut counts = [0u32; 7];
    for _ in 0..6000 {
        counts[pos.random_move(&mut rng).expect("open").column as usize] += 1;
    }
    assert_eq!(counts[3], 0);
    for (x, &n) in counts.iter().enumerate().filter(|(x, _)| *x != 3) {
        assert!((850..1150).contains(&n), "column {x} drawn {n} times of 6000");
    }
}

// ---------------------------------------------------------------------------------------
// Properties.

/// A position on a random board after a random number of random plies.
fn arb_position() -> impl Strategy<Value = Position> {
    (4usize..=32, 4usize..=32, any::<u64>(), 0usize..=1024).prop_map(|(w, h, seed, plies)| {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut pos = empty(w, h);
        for _ in 0..plies {
            match pos.random_move(&mut rng) {
                Some(mv) => pos.play_unchecked(&mv),
                None => break,
            }
        }
        pos
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn clone_then_play_equals_play(pos in arb_position()) {
        let mut moves = Vec::new();
        pos.legal_moves(&mut moves);
        for mv in &moves {
            let mut checked = pos.clone();
            checked.play(mv).expect("legal move");
            let mut unchecked = pos.clone();
            unchecked.play_unchecked(mv);
            prop_assert_eq!(&checked, &unchecked);
            prop_assert_eq!(checked.n_moves(), pos.n_moves() + 1);
            prop_assert_eq!(checked.last_move(), Some(mv.column as usize));
            prop_assert_eq!(checked.column_height(mv.column as usize), pos.column_height(mv.column as usize) + 1);
        }
    }

    #[test]
    fn notation_round_trips(pos in arb_position(), x in 0u8..32) {
        let mv = Move::new(x);
        let text = pos.format_move(&mv);
        if (x as usize) < pos.width() {
            prop_assert_eq!(pos.parse_move(&text), Ok(mv));
            prop_assert_eq!(pos.parse_move(&format!(" {text}\n")), Ok(mv));
        } else {
            let is_illegal = matches!(pos.parse_move(&text), Err(MoveError::Illegal { .. }));
            prop_assert!(is_illegal);
        }
    }

    #[test]
    fn parse_never_panics(text in "\\PC{0,12}") {
        let pos = empty(7, 6);
        if let Ok(mv) = pos.parse_move(&text) {
            prop_assert!(mv.column < 7);
            prop_assert_eq!(pos.parse_move(&pos.format_move(&mv)), Ok(mv));
        }
    }

    #[test]
    fn legal_moves_are_the_open_columns(pos in arb_position()) {
        let mut moves = Vec::new();
        pos.legal_moves(&mut moves);
        let columns: Vec<usize> = moves.iter().map(|m| m.column as usize).collect();
        if pos.outcome().is_some() {
            prop_assert!(columns.is_empty());
        } else {
            let open: Vec<usize> = (0..pos.width()).filter(|&x| pos.column_height(x) < pos.height()).collect();
            prop_assert_eq!(&columns, &open);
            prop_assert!(!columns.is_empty());
        }
        for x in 0..pos.width() {
            let is_legal = pos.clone().play(&Move::new(x as u8)).is_ok();
            prop_assert_eq!(is_legal, columns.contains(&x));
        }
    }

    #[test]
    fn board_is_consistent(pos in arb_position()) {
        let rows = pos.board_rows(None);
        prop_assert_eq!(rows.len(), pos.height());
        let mut discs = [0usize; 2];
        for x in 0..pos.width() {
            let height = pos.column_height(x);
            for y in 0..pos.height() {
                let cell = pos.cell(x, y);
                // Gravity: discs fill each column from the bottom without gaps.
                prop_assert_eq!(cell.is_some(), y < height);
                let ch = rows[pos.height() - 1 - y].as_bytes()[x];
                prop_assert_eq!(ch, match cell { None => b'.', Some(Side::First) => b'X', Some(Side::Second) => b'O' });
                if let Some(side) = cell {
                    discs[side.index()] += 1;
                }
            }
        }
        prop_assert_eq!(discs[0] + discs[1], pos.n_moves());
        prop_assert!(discs[0] == discs[1] || discs[0] == discs[1] + 1);
        let relative = pos.board_rows(Some(Side::Second));
        for (abs, rel) in rows.iter().zip(&relative) {
            let swapped: String = abs.chars().map(|c| match c { 'X' => 'T', 'O' => 'M', other => other }).collect();
            prop_assert_eq!(&swapped, rel);
        }
    }

    #[test]
    fn board_rows_round_trip(pos in arb_position(), me in prop_oneof![Just(None), Just(Some(Side::First)), Just(Some(Side::Second))]) {
        let back = Position::from_board_rows(&pos.board_rows(me), me).expect("own rows read back");
        prop_assert_eq!(back.board_rows(None), pos.board_rows(None));
        prop_assert_eq!(back.to_move(), pos.to_move());
        prop_assert_eq!(back.outcome(), pos.outcome());
        prop_assert_eq!(back.n_moves(), pos.n_moves());
        prop_assert_eq!(back.winning_cells(), pos.winning_cells());
        let (mut a, mut b) = (Vec::new(), Vec::new());
        pos.legal_moves(&mut a);
        back.legal_moves(&mut b);
        prop_assert_eq!(a, b);
    }

    #[test]
    fn playouts_end_with_an_outcome(pos in arb_position(), seed in any::<u64>()) {
        let mut end = pos.clone();
        let outcome = end.random_playout(&mut ChaCha8Rng::seed_from_u64(seed));
        prop_assert_eq!(end.outcome(), Some(outcome));
        prop_assert_eq!(end.to_move(), None);
        prop_assert!(end.n_moves() >= pos.n_moves());
        prop_assert!(end.n_moves() <= pos.width() * pos.height());
        if outcome.winner.is_none() {
            prop_assert_eq!(end.n_moves(), pos.width() * pos.height());
        } else {
            // The winner made the last move.
            let last = if end.n_moves() % 2 == 1 { Side::First } else { Side::Second };
            prop_assert_eq!(outcome.winner, Some(last));
        }
        // Discs already on the board stay where they were.
        for x in 0..pos.width() {
            for y in 0..pos.column_height(x) {
                prop_assert_eq!(end.cell(x, y), pos.cell(x, y));
            }
        }
    }
}
