//! Reversi's yardstick for `greedy` and evaluation for `strong`'s alpha-beta: counting
//! discs is a poor guide in Reversi (a move that flips many discs usually hands the
//! opponent the edges and corners), so both weigh squares instead, the way Reversi
//! programs' first evaluations do: corners are worth most, edges some, and the squares
//! next to an empty corner (which open it to the opponent) cost; and a side is better off
//! the more moves it has (its mobility). `strong` searches the moves best square first.

use std::cmp::Reverse;

use rand::Rng;
use rand::seq::SliceRandom;
use rules::reversi::{Move, Position};
use rules::{Game, Side};

use crate::search::{self, Heuristic};
use crate::{Budget, Found, Rung, Tuning, Yardstick};

/// How deep `medium` searches in Reversi: three plies (two scored 87% against `greedy`,
/// which looks one ply ahead with the same square weights).
pub const MEDIUM_DEPTH: u32 = 3;

/// `medium`'s node cap in Reversi, which three plies stay under on the seed's board.
pub const MEDIUM_NODES: u64 = 20_000;

/// Reversi's players: `greedy` weighs squares and the replies it leaves ([`value`]);
/// the search rungs run alpha-beta with the squares' evaluation (its random playouts are
/// slow and tell little), `medium` to a fixed depth.
impl Tuning for Position {
    const YARDSTICK: Yardstick = Yardstick::Value;

    fn default_nodes(rung: Rung) -> Option<u64> {
        if rung == Rung::Medium { Some(MEDIUM_NODES) } else { rung.default_nodes() }
    }

    fn value(&self, me: Side, replies: usize) -> i64 {
        value(self, me, replies)
    }

    fn search<R: Rng + ?Sized>(&self, rung: Rung, rng: &mut R, budget: &Budget) -> Option<Found<Move>> {
        let depth = if rung == Rung::Medium { MEDIUM_DEPTH } else { search::MAX_DEPTH };
        // Ties at the root (four alike at the start) broken at random, so that games
        // between the rungs differ.
        let mut moves = Vec::new();
        self.search_moves(&mut moves);
        moves.shuffle(rng);
        search::best_move_among(self, moves, budget, depth)
    }
}

/// A corner.
const CORNER: i64 = 100;
/// The square diagonally inside an empty corner (the "X square").
const X_SQUARE: i64 = -50;
/// An edge square next to an empty corner (the "C square").
const C_SQUARE: i64 = -20;
/// Any other edge square.
const EDGE: i64 = 10;
/// A square of the second ring from the edge, which gives the opponent the edge.
const SECOND_RING: i64 = -3;
/// Any other square.
const INNER: i64 = 1;
/// What each move open to a side is worth to it (each reply left to the opponent costs).
const PER_MOVE: i64 = 5;
/// What each move more than the opponent's is worth in the searches' evaluation: with 5
/// and the side to move's moves only, three plies scored 86% against `greedy`; with both
/// sides' moves at 8, 100% (400 node-limited games, `docs/players.md`).
const SEARCH_PER_MOVE: i64 = 8;

/// How good `pos` is for `me`, by its squares, when the opponent has `replies` moves.
pub fn value(pos: &Position, me: Side, replies: usize) -> i64 {
    squares(pos, me) - PER_MOVE * replies as i64
}

/// The squares' worth to `me`: its discs' weights less the opponent's.
fn squares(pos: &Position, me: Side) -> i64 {
    let n = pos.size();
    let last = n - 1;
    let mut total = 0;
    for row in 0..n {
        for col in 0..n {
            let Some(owner) = pos.cell(col, row) else { continue };
            let weight = weight(pos, col, row, last);
            total += if owner == me { weight } else { -weight };
        }
    }
    total
}

/// The worth of a disc on (`col`, `row`) on a board whose last line is `last`.
fn weight(pos: &Position, col: usize, row: usize, last: usize) -> i64 {
    // The nearest corner, and how far the square is from it along each axis.
    let corner_col = if col * 2 < last { 0 } else { last };
    let corner_row = if row * 2 < last { 0 } else { last };
    let (dx, dy) = (col.abs_diff(corner_col), row.abs_diff(corner_row));
    let corner_empty = pos.cell(corner_col, corner_row).is_none();
    let on_edge = col == 0 || row == 0 || col == last || row == last;
    match (dx, dy) {
        (0, 0) => CORNER,
        (1, 1) if corner_empty => X_SQUARE,
        (0, 1) | (1, 0) if corner_empty => C_SQUARE,
        _ if on_edge => EDGE,
        _ if col == 1 || row == 1 || col == last - 1 || row == last - 1 => SECOND_RING,
        _ => INNER,
    }
}

/// The weight of the square a move takes (a pass: none).
fn move_weight(pos: &Position, mv: &Move) -> i64 {
    match *mv {
        Move::Place { col, row } => weight(pos, usize::from(col), usize::from(row), pos.size() - 1),
        Move::Pass => 0,
    }
}

/// How many placements `side` has on `pos` (whoever is to move).
fn placements(pos: &Position, side: Side) -> i64 {
    let n = pos.size() as isize;
    let cell = |x: isize, y: isize| pos.cell(x as usize, y as usize);
    let mut count = 0;
    for row in 0..n {
        for col in 0..n {
            if cell(col, row).is_some() {
                continue;
            }
            let brackets = |(dx, dy): (isize, isize)| {
                let (mut x, mut y) = (col + dx, row + dy);
                let mut run = 0;
                while x >= 0 && y >= 0 && x < n && y < n {
                    match cell(x, y) {
                        Some(owner) if owner == side => return run > 0,
                        Some(_) => run += 1,
                        None => return false,
                    }
                    x += dx;
                    y += dy;
                }
                false
            };
            if [(-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1)].into_iter().any(brackets) {
                count += 1;
            }
        }
    }
    count
}

impl Heuristic for Position {
    /// The squares, and the difference of the two sides' mobilities (both counted,
    /// whoever is to move, so that odd and even depths weigh alike).
    fn evaluate(&self, side: Side) -> i32 {
        let mobility = placements(self, side) - placements(self, side.other());
        (squares(self, side) + SEARCH_PER_MOVE * mobility) as i32
    }

    fn search_moves(&self, out: &mut Vec<Move>) {
        let start = out.len();
        self.legal_moves(out);
        out[start..].sort_by_key(|mv| Reverse(move_weight(self, mv)));
    }
}
