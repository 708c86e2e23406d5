//! Gomoku's evaluation and move ordering for the alpha-beta player: every line of five
//! cells (a "window") with marks of one side only is worth more the fuller it is; a side
//! to move that can make five, or that faces two fives it cannot both stop, is scored as
//! won or lost. A move that makes five, else the one that stops the opponent's, is the
//! only move searched; otherwise moves are ranked by the windows they join or spoil, and
//! only the best [`BEAM`] are searched.
//!
//! `strong` adds a threat search before the alpha-beta ([`search`]): a win by fours
//! alone (each move makes a five the opponent must block, until two fives at once) is
//! played at once, and a move after which the opponent has such a win is not searched.
//! Its alpha-beta is its own ([`alphabeta`]: a transposition table, null windows) on a
//! board played in place that keeps the evaluation's and the ordering's figures up to
//! date per move ([`board::Board`]), some six times as many nodes a second as
//! `crate::search` on the rules' position, which `medium` still searches.

use std::sync::OnceLock;

use rand::Rng;
use rules::gomoku::{Move, N_CELLS, Position, SIZE, WIN_LENGTH};
use rules::{Game, Side};

use crate::search::{self, Heuristic};
use crate::{Budget, Evaluation, Found, Rung, Tuning};

/// Gomoku's players: alpha-beta with its evaluation, `strong` with its threat search and
/// in-place board ([`search`]).
impl Tuning for Position {
    fn search<R: Rng + ?Sized>(&self, rung: Rung, _rng: &mut R, budget: &Budget) -> Option<Found<Move>> {
        search(self, rung, budget)
    }
}

pub mod alphabeta;
pub mod board;

use board::Board;

/// How many moves the search tries in a position.
pub(crate) const BEAM: usize = 12;

/// What a window with `n` marks of one side (and none of the other) is worth.
pub(crate) const WINDOW_VALUE: [i32; WIN_LENGTH + 1] = [0, 1, 12, 150, 2_500, 100_000];

/// The windows (cell indices), and for each cell the windows through it.
pub(crate) struct Windows {
    pub(crate) cells: Vec<[usize; WIN_LENGTH]>,
    pub(crate) through: Vec<Vec<usize>>,
}

pub(crate) fn windows() -> &'static Windows {
    static WINDOWS: OnceLock<Windows> = OnceLock::new();
    WINDOWS.get_or_init(|| {
        let mut cells = Vec::new();
        let n = SIZE as isize;
        for row in 0..n {
            for col in 0..n {
                for (dc, dr) in [(1, 0), (0, 1), (1, 1), (1, -1)] {
                    let end = (col + dc * (WIN_LENGTH as isize - 1), row + dr * (WIN_LENGTH as isize - 1));
                    if (0..n).contains(&end.0) && (0..n).contains(&end.1) {
                        cells.push(std::array::from_fn(|k| ((row + dr * k as isize) * n + col + dc * k as isize) as usize));
                    }
                }
            }
        }
        let mut through = vec![Vec::new(); N_CELLS];
        for (w, window) in cells.iter().enumerate() {
            for &cell in window {
                through[cell].push(w);
            }
        }
        Windows { cells, through }
    })
}

/// The board as an array of cells by index (`row * SIZE + col`).
fn board(pos: &Position) -> [Option<Side>; N_CELLS] {
    std::array::from_fn(|i| pos.cell(i % SIZE, i / SIZE))
}

/// Marks of each side in a window.
fn counts(board: &[Option<Side>; N_CELLS], window: &[usize; WIN_LENGTH]) -> [usize; 2] {
    let mut counts = [0; 2];
    for &cell in window {
        if let Some(side) = board[cell] {
            counts[side.index()] += 1;
        }
    }
    counts
}

/// What the windows say: each side's window score, and the empty cells where each side
/// would make five (as a bit set of cells).
struct Survey {
    score: [i32; 2],
    fives: [u128; 2],
}

fn survey(board: &[Option<Side>; N_CELLS]) -> Survey {
    let mut survey = Survey { score: [0; 2], fives: [0; 2] };
    for window in &windows().cells {
        let counts = counts(board, window);
        for side in [Side::First, Side::Second] {
            let (mine, theirs) = (counts[side.index()], counts[side.other().index()]);
            if theirs != 0 {
                continue;
            }
            survey.score[side.index()] += WINDOW_VALUE[mine];
            if mine == WIN_LENGTH - 1 {
                let empty = window.iter().find(|&&cell| board[cell].is_none()).expect("one empty cell");
                survey.fives[side.index()] |= 1 << empty;
            }
        }
    }
    survey
}

/// A position the side to move wins by force within two of its moves, as this module
/// scores it (well inside the search's mate scores).
pub(crate) const THREAT_WIN: i32 = 400_000;

impl Heuristic for Position {
    fn evaluate(&self, side: Side) -> i32 {
        let survey = survey(&board(self));
        let to_move = self.to_move().unwrap_or(side);
        let them = to_move.other();
        // The side to move makes five at once, or cannot stop two fives.
        let for_mover = if survey.fives[to_move.index()] != 0 {
            Some(THREAT_WIN)
        } else if survey.fives[them.index()].count_ones() >= 2 {
            Some(-THREAT_WIN)
        } else {
            None
        };
        if let Some(value) = for_mover {
            return if side == to_move { value } else { -value };
        }
        let mut score = survey.score;
        // The side to move gets its threats in first.
        score[to_move.index()] += score[to_move.index()] / 4;
        score[side.index()] - score[side.other().index()]
    }

    fn search_moves(&self, out: &mut Vec<Move>) {
        let Some(me) = self.to_move() else { return };
        let board = board(self);
        let threats = survey(&board).fives;
        // Forced: make five, else stop the opponent's (nothing else matters).
        for forced in [threats[me.index()], threats[me.other().index()]] {
            if forced != 0 {
                out.push(Move::from_index(forced.trailing_zeros() as usize).expect("a cell of the board"));
                return;
            }
        }
        let windows = windows();
        let mut ranked: Vec<(i32, usize)> = Vec::new();
        for cell in 0..N_CELLS {
            if board[cell].is_some() {
                continue;
            }
            let mut value = 0;
            for &w in &windows.through[cell] {
                let [mine, theirs] = {
                    let c = counts(&board, &windows.cells[w]);
                    [c[me.index()], c[me.other().index()]]
                };
                // Joining our window, spoiling theirs (a little less: attack first).
                if theirs == 0 {
                    value += WINDOW_VALUE[mine + 1] - WINDOW_VALUE[mine];
                }
                if mine == 0 {
                    value += (WINDOW_VALUE[theirs + 1] - WINDOW_VALUE[theirs]) * 4 / 5;
                }
            }
            ranked.push((value, cell));
        }
        ranked.sort_by(|a, b| b.cmp(a));
        let start = out.len();
        out.extend(ranked.iter().take(BEAM).map(|&(_, cell)| Move::from_index(cell).expect("a cell of the board")));
        if out.len() == start {
            self.legal_moves(out);
        }
    }
}

/// The most positions one threat search visits (fixed, so that node-limited games stay
/// the same on any machine).
const THREAT_NODES: u64 = 3_000;
/// The most fours in a row a threat search plays.
const THREAT_DEPTH: u32 = 10;

/// A search for a win by fours alone (victory by continuous fours): the attacker makes a
/// four, the defender blocks it (its only move), and so on until the attacker has two
/// fives at once. Sound but not complete: a line where the defender's block makes a
/// four of its own is given up.
struct Threats<'a> {
    stop: &'a dyn Fn() -> bool,
    nodes: u64,
    limit: u64,
}

impl Threats<'_> {
    /// The first move and length in plies of a win by fours for the side to move on
    /// `board`; `None` when none is found within the node limit.
    fn win(&mut self, board: &mut Board) -> Option<(usize, i32)> {
        let me = board.to_move();
        if board.fives(me) != 0 {
            return Some((board.fives(me).trailing_zeros() as usize, 1));
        }
        if board.fives(me.other()) != 0 {
            return None;
        }
        self.limit = self.nodes + THREAT_NODES;
        self.attack(board, THREAT_DEPTH)
    }

    /// [`Threats::win`] where neither side has a five to make.
    fn attack(&mut self, board: &mut Board, depth: u32) -> Option<(usize, i32)> {
        let me = board.to_move();
        let mut moves = board.four_moves(me);
        while moves != 0 {
            let cell = moves.trailing_zeros() as usize;
            moves &= moves - 1;
            self.nodes += 1;
            if self.nodes >= self.limit || (self.nodes.is_multiple_of(Budget::CHECK_EVERY) && (self.stop)()) {
                return None;
            }
            board.make(cell);
            let threats = board.fives(me);
            let found = if threats.count_ones() >= 2 {
                // The defender, without a five of its own, can stop only one.
                Some(3)
            } else if depth > 1 {
                let block = threats.trailing_zeros() as usize;
                board.make(block);
                let found = if board.fives(me.other()) == 0 { self.attack(board, depth - 1).map(|(_, plies)| plies + 2) } else { None };
                board.unmake(block);
                found
            } else {
                None
            };
            board.unmake(cell);
            if let Some(plies) = found {
                return Some((cell, plies));
            }
        }
        None
    }
}

/// The move of `rung` (`medium` or `strong`) in `pos`: `medium` runs `crate::search`'s
/// alpha-beta on the position, `strong` the threat search (above), then its own
/// alpha-beta on the in-place board ([`alphabeta`]). `None` when the game is over.
pub fn search(pos: &Position, rung: Rung, budget: &Budget) -> Option<Found<Move>> {
    if rung == Rung::Medium {
        return search::best_move(pos, budget, search::MEDIUM_DEPTH);
    }
    pos.to_move()?;
    let mut board = Board::new(pos);
    let mut threats = Threats { stop: budget.stop, nodes: 0, limit: 0 };
    if let Some((cell, plies)) = threats.win(&mut board) {
        let mv = Move::from_index(cell).expect("a cell of the board");
        // The line's length stands for the depth searched.
        return Some(Found { mv, eval: Evaluation::Mate(plies), depth: plies as u32, nodes: threats.nodes });
    }
    let mut moves = Vec::new();
    board.search_moves(&mut moves);
    if moves.len() > 1 {
        // Leave out the moves that let the opponent win by fours (unless all do).
        let safe: Vec<u8> = moves
            .iter()
            .copied()
            .filter(|&cell| {
                board.make(cell as usize);
                let lost = threats.win(&mut board).is_some();
                board.unmake(cell as usize);
                !lost
            })
            .collect();
        if !safe.is_empty() {
            moves = safe;
        }
    }
    let mut found = alphabeta::best_move_among(&mut board, moves, budget, search::MAX_DEPTH)?;
    found.nodes += threats.nodes;
    Some(found)
}
