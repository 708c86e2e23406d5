//! `strong`'s alpha-beta search for Connect Four boards the solver does not play (20×20):
//! the search of `crate::search` (negamax, iterative deepening, the previous iteration's
//! best move first at the root) with the same evaluation and move order, on a board
//! played in place whose windows of four keep their disc counts and the evaluation's
//! two sums up to date per move, instead of a copy of the position per node and a survey
//! of every window per leaf. It visits the same nodes in the same order, so it finds the
//! same move, value, depth and node count as the plain search (tested); it only spends
//! less time on each node.

use rules::Side;
use rules::connect4::{Move, Position};

use super::WINDOW_VALUE;
use crate::search::{MAX_DEPTH, WIN, WIN_BOUND, evaluation};
use crate::{Budget, Evaluation, Found};

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

struct Searcher<'a, 'b> {
    budget: &'a Budget<'b>,
    nodes: u64,
    stopped: bool,
}

/// The best move by iterative deepening to `max_depth` plies within `budget`, as
/// `crate::search::best_move` finds it for `pos`; `None` when the game is over.
pub fn best_move(pos: &Position, budget: &Budget, max_depth: u32) -> Option<Found<Move>> {
    let me = rules::Game::to_move(pos)?;
    let mut board = Board::new(pos);
    let mut moves = Vec::new();
    board.search_moves(&mut moves);
    let mut best = Found { mv: Move::new(*moves.first()? as u8), eval: Evaluation::Score(0), depth: 0, nodes: 0 };
    if moves.len() == 1 {
        return Some(best);
    }
    let mut searcher = Searcher { budget, nodes: 0, stopped: false };
    for depth in 1..=max_depth.min(MAX_DEPTH) {
        let mut alpha = -WIN - 1;
        let mut best_here = None;
        for (i, &x) in moves.iter().enumerate() {
            let won = board.play(x);
            let score = -searcher.negamax(&mut board, me.other(), depth - 1, -WIN - 1, -alpha, 1);
            board.undo(x, won);
            if searcher.stopped {
                break;
            }
            if score > alpha {
                alpha = score;
                best_here = Some(i);
            }
        }
        if searcher.stopped {
            break;
        }
        let Some(i) = best_here else { break };
        let x = moves.remove(i);
        moves.insert(0, x);
        best = Found { mv: Move::new(x as u8), eval: evaluation(alpha), depth, nodes: searcher.nodes };
        if alpha.abs() > WIN_BOUND {
            break;
        }
    }
    best.nodes = searcher.nodes;
    Some(best)
}

impl Searcher<'_, '_> {
    /// The value of `board` for `side` (the side to move there), `ply` plies from the root.
    fn negamax(&mut self, board: &mut Board, side: Side, depth: u32, mut alpha: i32, beta: i32, ply: i32) -> i32 {
        self.nodes += 1;
        if self.budget.spent(self.nodes) {
            self.stopped = true;
            return 0;
        }
        if board.over() {
            // The side that dropped the last disc won, or the board is full: a draw.
            return if board.won { -(WIN - ply) } else { 0 };
        }
        if depth == 0 {
            return board.evaluate(side);
        }
        let mut moves = Vec::with_capacity(board.width);
        board.search_moves(&mut moves);
        let mut best = -WIN - 1;
        for x in moves {
            let won = board.play(x);
            let score = -self.negamax(board, side.other(), depth - 1, -beta, -alpha, ply + 1);
            board.undo(x, won);
            if self.stopped {
                return 0;
            }
            if score > best {
                best = score;
            }
            if score > alpha {
                alpha = score;
            }
            if alpha >= beta {
                break;
            }
        }
        best
    }
}
