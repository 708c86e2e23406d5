//! Gomoku's board for `strong`'s search: one array of cells played and taken back in
//! place (make/unmake), with what the evaluation and the move ordering read kept up to
//! date per move instead of recomputed from every window: each window's marks of each
//! side, each side's window score, the cells where each side would make five, each
//! empty cell's ordering value for either side, and a Zobrist key. The values are the
//! ones [`super::survey`] and the `Heuristic` of `rules::gomoku::Position` compute from
//! the whole board (`tests` checks that they agree over random games).

use std::sync::OnceLock;

use rules::gomoku::{Move, N_CELLS, Position, SIZE, WIN_LENGTH};
use rules::{Game, Side};

use super::{THREAT_WIN, WINDOW_VALUE, windows};

/// What an empty cell of a window with `mine` and `theirs` marks adds to the cell's
/// ordering value for the side with `mine` (joining its window, spoiling the other's a
/// little less), as `Heuristic::search_moves` of `rules::gomoku::Position` weighs it.
const fn contribution(mine: usize, theirs: usize) -> i32 {
    if mine + theirs >= WIN_LENGTH {
        return 0;
    }
    let mut value = 0;
    if theirs == 0 {
        value += WINDOW_VALUE[mine + 1] - WINDOW_VALUE[mine];
    }
    if mine == 0 {
        value += (WINDOW_VALUE[theirs + 1] - WINDOW_VALUE[theirs]) * 4 / 5;
    }
    value
}

const CONTRIBUTION: [[i32; WIN_LENGTH + 1]; WIN_LENGTH + 1] = {
    let mut table = [[0; WIN_LENGTH + 1]; WIN_LENGTH + 1];
    let mut mine = 0;
    while mine <= WIN_LENGTH {
        let mut theirs = 0;
        while theirs <= WIN_LENGTH {
            table[mine][theirs] = contribution(mine, theirs);
            theirs += 1;
        }
        mine += 1;
    }
    table
};

/// The Zobrist keys of a mark of each side on each cell (fixed: splitmix64 from 0).
fn zobrist() -> &'static [[u64; N_CELLS]; 2] {
    static KEYS: OnceLock<[[u64; N_CELLS]; 2]> = OnceLock::new();
    KEYS.get_or_init(|| {
        let mut state = 0u64;
        let mut next = || {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        };
        let mut keys = [[0; N_CELLS]; 2];
        for side in &mut keys {
            for key in side.iter_mut() {
                *key = next();
            }
        }
        keys
    })
}

/// A Gomoku board searched in place (see the module's header).
#[derive(Clone, Debug, PartialEq)]
pub struct Board {
    cells: [Option<Side>; N_CELLS],
    /// Marks of each side in each window.
    counts: Vec<[u8; 2]>,
    /// Each side's window score (as [`super::survey`]'s).
    score: [i32; 2],
    /// Per side and cell, the windows where a mark there makes five.
    five_windows: [[u8; N_CELLS]; 2],
    /// The cells where each side makes five, as a bit set of cells.
    fives: [u128; 2],
    /// Windows full of one side's marks (a five: the game is won).
    complete: [u8; 2],
    /// Per side and cell, the cell's ordering value for that side to move.
    order: [[i32; N_CELLS]; 2],
    to_move: Side,
    empty: usize,
    key: u64,
}

impl Board {
    /// The board of `pos` (a game not over).
    pub fn new(pos: &Position) -> Board {
        let n_windows = windows().cells.len();
        let mut board = Board {
            cells: [None; N_CELLS],
            counts: vec![[0; 2]; n_windows],
            score: [0; 2],
            five_windows: [[0; N_CELLS]; 2],
            fives: [0; 2],
            complete: [0; 2],
            order: [[0; N_CELLS]; 2],
            to_move: pos.to_move().unwrap_or(Side::First),
            empty: N_CELLS,
            key: 0,
        };
        for w in 0..n_windows {
            board.add_window(w);
        }
        let to_move = board.to_move;
        for cell in 0..N_CELLS {
            if let Some(side) = pos.cell(cell % SIZE, cell / SIZE) {
                board.place(cell, side);
            }
        }
        board.to_move = to_move;
        board
    }

    pub fn to_move(&self) -> Side {
        self.to_move
    }

    pub fn cell(&self, cell: usize) -> Option<Side> {
        self.cells[cell]
    }

    /// The cells where `side` makes five, as a bit set of cells.
    pub fn fives(&self, side: Side) -> u128 {
        self.fives[side.index()]
    }

    /// Each side's window score.
    pub fn score(&self) -> [i32; 2] {
        self.score
    }

    /// The Zobrist key of the marks on the board.
    pub fn key(&self) -> u64 {
        self.key
    }

    /// The winner, if a side has five in a row.
    pub fn winner(&self) -> Option<Side> {
        Side::BOTH.into_iter().find(|side| self.complete[side.index()] != 0)
    }

    /// Whether the game is over: a five, or a full board.
    pub fn is_over(&self) -> bool {
        self.empty == 0 || self.complete != [0; 2]
    }

    /// The side to move puts a mark on the empty cell `cell`.
    pub fn make(&mut self, cell: usize) {
        let side = self.to_move;
        self.place(cell, side);
        self.to_move = side.other();
    }

    /// Takes back the mark on `cell` (the last one made).
    pub fn unmake(&mut self, cell: usize) {
        let side = self.cells[cell].expect("a mark to take back");
        for &w in &windows().through[cell] {
            self.remove_window(w);
            self.counts[w][side.index()] -= 1;
        }
        self.cells[cell] = None;
        for &w in &windows().through[cell] {
            self.add_window(w);
        }
        self.key ^= zobrist()[side.index()][cell];
        self.empty += 1;
        self.to_move = side;
    }

    fn place(&mut self, cell: usize, side: Side) {
        debug_assert!(self.cells[cell].is_none());
        for &w in &windows().through[cell] {
            self.remove_window(w);
            self.counts[w][side.index()] += 1;
        }
        self.cells[cell] = Some(side);
        for &w in &windows().through[cell] {
            self.add_window(w);
        }
        self.key ^= zobrist()[side.index()][cell];
        self.empty -= 1;
    }

    /// Adds (`sign` 1) or removes (-1) window `w`'s share of the totals, for the board
    /// as it is now.
    fn account(&mut self, w: usize, sign: i32) {
        let window = &windows().cells[w];
        let counts = self.counts[w];
        for side in Side::BOTH {
            let (mine, theirs) = (counts[side.index()] as usize, counts[side.other().index()] as usize);
            let contribution = CONTRIBUTION[mine][theirs];
            if contribution != 0 {
                for &cell in window {
                    self.order[side.index()][cell] += sign * contribution;
                }
            }
            if theirs != 0 {
                continue;
            }
            self.score[side.index()] += sign * WINDOW_VALUE[mine];
            if mine == WIN_LENGTH {
                self.complete[side.index()] = (self.complete[side.index()] as i32 + sign) as u8;
            } else if mine == WIN_LENGTH - 1 {
                let empty = *window.iter().find(|&&cell| self.cells[cell].is_none()).expect("one empty cell");
                let n = &mut self.five_windows[side.index()][empty];
                *n = (*n as i32 + sign) as u8;
                if *n == 0 {
                    self.fives[side.index()] &= !(1 << empty);
                } else {
                    self.fives[side.index()] |= 1 << empty;
                }
            }
        }
    }

    fn add_window(&mut self, w: usize) {
        self.account(w, 1);
    }

    fn remove_window(&mut self, w: usize) {
        self.account(w, -1);
    }

    /// The position's value for `side`, the game not over: as `Heuristic::evaluate` of
    /// `rules::gomoku::Position`.
    pub fn evaluate(&self, side: Side) -> i32 {
        let to_move = self.to_move;
        let them = to_move.other();
        let for_mover = if self.fives[to_move.index()] != 0 {
            Some(THREAT_WIN)
        } else if self.fives[them.index()].count_ones() >= 2 {
            Some(-THREAT_WIN)
        } else {
            None
        };
        if let Some(value) = for_mover {
            return if side == to_move { value } else { -value };
        }
        let mut score = self.score;
        score[to_move.index()] += score[to_move.index()] / 4;
        score[side.index()] - score[side.other().index()]
    }

    /// The moves to search, most promising first, as `Heuristic::search_moves` of
    /// `rules::gomoku::Position` gives them: the forced move alone, else the [`BEAM`]
    /// best-valued empty cells (ties: the higher cell first).
    ///
    /// [`BEAM`]: super::BEAM
    pub fn search_moves(&self, out: &mut Vec<u8>) {
        let me = self.to_move;
        for forced in [self.fives[me.index()], self.fives[me.other().index()]] {
            if forced != 0 {
                out.push(forced.trailing_zeros() as u8);
                return;
            }
        }
        let order = &self.order[me.index()];
        // The best BEAM (value, cell) pairs, best first.
        let mut top: [(i32, u8); super::BEAM] = [(i32::MIN, 0); super::BEAM];
        let mut n = 0;
        for (cell, &value) in order.iter().enumerate() {
            if self.cells[cell].is_some() {
                continue;
            }
            let entry = (value, cell as u8);
            if n == super::BEAM && entry <= top[n - 1] {
                continue;
            }
            // The new entry goes in at the end (the last one dropped when full), then
            // moves up past the smaller ones.
            n = (n + 1).min(super::BEAM);
            let mut i = n - 1;
            while i > 0 && top[i - 1] < entry {
                top[i] = top[i - 1];
                i -= 1;
            }
            top[i] = entry;
        }
        out.extend(top[..n].iter().map(|&(_, cell)| cell));
    }

    /// The empty cells where a mark of `side` makes a four (a window of three of its
    /// marks and none of the other's), as a bit set of cells.
    pub fn four_moves(&self, side: Side) -> u128 {
        let mut moves = 0;
        for (w, counts) in self.counts.iter().enumerate() {
            if counts[side.index()] as usize == WIN_LENGTH - 2 && counts[side.other().index()] == 0 {
                for &cell in &windows().cells[w] {
                    if self.cells[cell].is_none() {
                        moves |= 1 << cell;
                    }
                }
            }
        }
        moves
    }
}

/// A cell as the rules' move.
pub fn to_move(cell: u8) -> Move {
    Move::from_index(cell as usize).expect("a cell of the board")
}
