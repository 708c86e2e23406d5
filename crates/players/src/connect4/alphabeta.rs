//! `strong`'s alpha-beta search for Connect Four boards the solver does not play (20×20),
//! and `medium`'s on every board: the one negamax of `crate::search` with the same
//! evaluation and move order as the rules' position, on a board played in place whose
//! windows of four keep their disc counts and the evaluation's two sums up to date per
//! move, instead of a copy of the position per node and a survey of every window per
//! leaf. It visits the same nodes in the same order, so it finds the same move, value,
//! depth and node count as the search on copies (tested); it only spends less time on
//! each node.

use rules::Side;
use rules::connect4::{Move, Position};

use super::WINDOW_VALUE;
use crate::search::{self, Searchable};
use crate::{Budget, Found};

/// A Connect Four board for searching in place.
pub struct Board {
    width: usize,
    height: usize,
    /// `cells[x * height + y]`: 0 empty, 1 the first side's disc, 2 the second's.
    cells: Vec<u8>,
    heights: Vec<usize>,
    /// Discs on the board.
    discs: usize,
    /// Whether the last disc made four in a row (the side that dropped it won).
    won: bool,
    /// For each cell the windows of four cells through it
    /// (`through[through_at[c]..through_at[c + 1]]`).
    through: Vec<u32>,
    through_at: Vec<u32>,
    /// Each window's discs by side.
    counts: Vec<[u8; 2]>,
    /// Each side's sum of [`WINDOW_VALUE`] over the windows only it has discs in.
    score: [i32; 2],
}

/// What a window with `counts` adds to each side's sum.
fn worth(counts: [u8; 2]) -> [i32; 2] {
    match counts {
        [n, 0] => [WINDOW_VALUE[(n as usize).min(3)], 0],
        [0, n] => [0, WINDOW_VALUE[(n as usize).min(3)]],
        _ => [0, 0],
    }
}

impl Board {
    /// The board of `pos`.
    pub fn new(pos: &Position) -> Board {
        let (width, height) = (pos.width(), pos.height());
        let mut windows: Vec<[u32; 4]> = Vec::new();
        for x in 0..width as isize {
            for y in 0..height as isize {
                for (dx, dy) in [(1isize, 0isize), (0, 1), (1, 1), (1, -1)] {
                    let (ex, ey) = (x + 3 * dx, y + 3 * dy);
                    if ex < 0 || ey < 0 || ex >= width as isize || ey >= height as isize {
                        continue;
                    }
                    windows.push(std::array::from_fn(|k| ((x + k as isize * dx) * height as isize + y + k as isize * dy) as u32));
                }
            }
        }
        let mut lists = vec![Vec::new(); width * height];
        for (id, window) in windows.iter().enumerate() {
            for &cell in window {
                lists[cell as usize].push(id as u32);
            }
        }
        let mut through_at = vec![0u32];
        let mut through = Vec::new();
        for list in &lists {
            through.extend_from_slice(list);
            through_at.push(through.len() as u32);
        }
        let mut board = Board {
            width,
            height,
            cells: vec![0; width * height],
            heights: vec![0; width],
            discs: 0,
            won: false,
            counts: vec![[0; 2]; windows.len()],
            through,
            through_at,
            score: [0; 2],
        };
        for x in 0..width {
            for y in 0..pos.column_height(x) {
                let side = pos.cell(x, y).expect("discs rest on each other");
                board.put(x, side);
            }
        }
        board.won = pos.winner().is_some();
        board
    }

    /// The side to move (the first when the discs are even).
    fn to_move(&self) -> Side {
        if self.discs.is_multiple_of(2) { Side::First } else { Side::Second }
    }

    fn is_open(&self, x: usize) -> bool {
        self.heights[x] < self.height
    }

    /// Drops `side`'s disc into column `x`; whether it made four.
    fn put(&mut self, x: usize, side: Side) -> bool {
        let cell = x * self.height + self.heights[x];
        self.cells[cell] = side.index() as u8 + 1;
        self.heights[x] += 1;
        self.discs += 1;
        let s = side.index();
        let mut four = false;
        for &id in &self.through[self.through_at[cell] as usize..self.through_at[cell + 1] as usize] {
            let counts = &mut self.counts[id as usize];
            let [b0, b1] = worth(*counts);
            counts[s] += 1;
            four |= counts[s] == 4;
            let [a0, a1] = worth(*counts);
            self.score[0] += a0 - b0;
            self.score[1] += a1 - b1;
        }
        four
    }

    /// Plays column `x` (open, the game not over) for the side to move; returns whether
    /// the game was won before (for [`Board::undo`]).
    pub fn play(&mut self, x: usize) -> bool {
        let before = self.won;
        self.won = self.put(x, self.to_move());
        before
    }

    /// Takes back the disc on top of column `x`, `won_before` from [`Board::play`].
    pub fn undo(&mut self, x: usize, won_before: bool) {
        self.heights[x] -= 1;
        let cell = x * self.height + self.heights[x];
        let s = (self.cells[cell] - 1) as usize;
        self.cells[cell] = 0;
        self.discs -= 1;
        for &id in &self.through[self.through_at[cell] as usize..self.through_at[cell + 1] as usize] {
            let counts = &mut self.counts[id as usize];
            let [b0, b1] = worth(*counts);
            counts[s] -= 1;
            let [a0, a1] = worth(*counts);
            self.score[0] += a0 - b0;
            self.score[1] += a1 - b1;
        }
        self.won = won_before;
    }

    /// The evaluation of `crate::search`'s Connect Four player, kept up to date.
    pub fn evaluate(&self, side: Side) -> i32 {
        self.score[side.index()] - self.score[side.other().index()]
    }

    /// Whether `side` holds `(x, y)` (false off the board).
    fn holds(&self, x: isize, y: isize, side: Side) -> bool {
        x >= 0
            && y >= 0
            && (x as usize) < self.width
            && (y as usize) < self.height
            && self.cells[x as usize * self.height + y as usize] == side.index() as u8 + 1
    }

    /// The longest line of `side`'s discs through `(x, y)` if `side` had a disc there.
    fn line_through(&self, x: usize, y: usize, side: Side) -> usize {
        let mut longest = 1;
        for (dx, dy) in [(1isize, 0isize), (0, 1), (1, 1), (1, -1)] {
            let mut run = 1;
            for sign in [1isize, -1] {
                let (mut cx, mut cy) = (x as isize + sign * dx, y as isize + sign * dy);
                while self.holds(cx, cy, side) {
                    run += 1;
                    cx += sign * dx;
                    cy += sign * dy;
                }
            }
            longest = longest.max(run);
        }
        longest
    }

    /// The open columns in the plain search's order (`Heuristic::search_moves` of
    /// `Position`): a win, a block, not under the opponent's win, then lines and the centre.
    pub fn search_moves(&self, out: &mut Vec<usize>) {
        let me = self.to_move();
        let centre = (self.width as i32 - 1) / 2;
        let mut ranked: Vec<(i32, usize)> = Vec::with_capacity(self.width);
        for x in (0..self.width).filter(|&x| self.is_open(x)) {
            let y = self.heights[x];
            let mut value = -(x as i32 - centre).abs();
            if self.line_through(x, y, me) >= 4 {
                value += 1_000_000;
            } else if self.line_through(x, y, me.other()) >= 4 {
                value += 100_000;
            } else if y + 1 < self.height && self.line_through(x, y + 1, me.other()) >= 4 {
                value -= 10_000;
            } else {
                value += 10 * (self.line_through(x, y, me) + self.line_through(x, y, me.other())) as i32;
            }
            ranked.push((value, x));
        }
        ranked.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        out.extend(ranked.into_iter().map(|(_, x)| x));
    }

    /// Whether the game is over: the last disc won, or the board is full.
    fn over(&self) -> bool {
        self.won || self.discs == self.width * self.height
    }
}

/// The board searched in place: a move is a column.
impl Searchable for Board {
    type Move = usize;
    /// Whether the game was won before the move.
    type Undo = bool;

    fn result(&self) -> Option<Option<Side>> {
        // The side that dropped the last disc won, or the board is full: a draw.
        self.over().then(|| self.won.then(|| self.to_move().other()))
    }

    fn evaluate(&self, side: Side) -> i32 {
        Board::evaluate(self, side)
    }

    fn search_moves(&self, out: &mut Vec<usize>) {
        Board::search_moves(self, out);
    }

    fn make(&mut self, x: &usize) -> bool {
        self.play(*x)
    }

    fn unmake(&mut self, x: &usize, won_before: bool) {
        self.undo(*x, won_before);
    }
}

/// The best move by iterative deepening to `max_depth` plies within `budget`, as
/// `crate::search::best_move` finds it for `pos`; `None` when the game is over.
pub fn best_move(pos: &Position, budget: &Budget, max_depth: u32) -> Option<Found<Move>> {
    let me = rules::Game::to_move(pos)?;
    let mut board = Board::new(pos);
    let mut moves = Vec::new();
    board.search_moves(&mut moves);
    let found = search::negamax(&mut board, me, moves, budget, max_depth)?;
    Some(Found { mv: Move::new(found.mv as u8), eval: found.eval, depth: found.depth, nodes: found.nodes })
}
