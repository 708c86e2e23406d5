//! Connect Four's players: the exact solver for the 7×6 board (`perfect`, also `strong`
//! there; [`solver`]), and the alpha-beta player's evaluation and move ordering for every
//! size (searched on a board played in place, [`alphabeta`]). Scores are in Pascal Pons' convention: positive when the side to move wins, 22
//! minus the number of its own discs when it wins as early as it can; 0 a draw; negative
//! a loss.

pub mod alphabeta;
pub mod solver;

use std::cell::RefCell;

use rand::Rng;
use rules::connect4::{Move, Position};
use rules::{Game, Side};

pub use crate::Solved;
use crate::search::{self, Heuristic};
use crate::{Budget, Evaluation, Found, Rung, Tuning};
use solver::{Bits, Solver};

/// Connect Four's players: the solver on 7×6 (`perfect`, and `strong` there), the
/// alpha-beta player elsewhere ([`search`]), and the solver's analysis.
impl Tuning for Position {
    fn search<R: Rng + ?Sized>(&self, rung: Rung, _rng: &mut R, budget: &Budget) -> Option<Found<Move>> {
        search(self, rung, budget)
    }

    fn solve(&self) -> Option<Solved> {
        solve(self).ok()
    }
}

/// The board the solver plays, said once in `builtins` (where `perfect` plays).
pub use builtins::connect4::{SOLVED_SIZE, is_solved_size};
const _: () = assert!(SOLVED_SIZE.0 == solver::WIDTH && SOLVED_SIZE.1 == solver::HEIGHT, "the solver plays the board of `perfect`");

/// Why a position cannot be solved.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SolveError {
    #[error("the solver plays the 7x6 board only, not {0}x{1}")]
    Size(usize, usize),
    #[error("the game is over")]
    Over,
    #[error("the search ran out of its budget")]
    Stopped,
}

thread_local! {
    // One solver (and its 64 MB table) per thread, made on first use and kept.
    static SOLVER: RefCell<Option<Solver>> = const { RefCell::new(None) };
}

fn with_solver<T>(f: impl FnOnce(&mut Solver) -> T) -> T {
    SOLVER.with(|cell| f(cell.borrow_mut().get_or_insert_with(Solver::default)))
}

fn bits(pos: &Position) -> Result<Bits, SolveError> {
    if (pos.width(), pos.height()) != SOLVED_SIZE {
        return Err(SolveError::Size(pos.width(), pos.height()));
    }
    let me = pos.to_move().ok_or(SolveError::Over)?;
    Ok(Bits::from_rows(&pos.board_rows(Some(me))))
}

/// Solves a 7×6 position exactly, every column, within `budget`.
pub fn solve_within(pos: &Position, budget: &Budget) -> Result<Solved, SolveError> {
    let bits = bits(pos)?;
    let move_scores = with_solver(|solver| solver.column_scores(&bits, budget)).map_err(|_| SolveError::Stopped)?;
    let score = move_scores.iter().flatten().copied().max().expect("a game that goes on has a move");
    Ok(Solved { score, move_scores })
}

/// Solves a 7×6 position exactly, however long it takes.
pub fn solve(pos: &Position) -> Result<Solved, SolveError> {
    solve_within(pos, &Budget { nodes: None, stop: &|| false })
}

/// The move of `rung` in `pos`: the solver's for `perfect` (and `strong` on 7×6), the
/// first of the best in centre-first order (when its budget runs out first, the first
/// move of the alpha-beta player's order); alpha-beta on other boards and rungs.
pub fn search(pos: &Position, rung: Rung, budget: &Budget) -> Option<Found<Move>> {
    let exact = rung == Rung::Perfect || (rung == Rung::Strong && (pos.width(), pos.height()) == SOLVED_SIZE);
    if exact && let Ok(bits) = bits(pos) {
        let (found, nodes) = with_solver(|solver| {
            solver.nodes = 0;
            (solver.perfect_column(&bits, budget), solver.nodes)
        });
        return match found {
            Ok((column, result)) => Some(Found { mv: Move::new(column as u8), eval: Evaluation::Outcome(result), depth: 0, nodes }),
            // Out of time: the first move of the alpha-beta player's order (a win, a
            // block, else the centre), at once.
            Err(_) => {
                let mut moves = Vec::new();
                pos.search_moves(&mut moves);
                Some(Found { mv: *moves.first()?, eval: Evaluation::Score(0), depth: 0, nodes })
            }
        };
    }
    // The plain search's nodes in the same order, on a board played in place.
    alphabeta::best_move(pos, budget, search::depth_of(rung))
}

/// What a window of four cells with `n` discs of one side (and none of the other) is worth.
const WINDOW_VALUE: [i32; 4] = [0, 1, 8, 60];

/// The cells by column then row, `None` empty.
fn grid(pos: &Position) -> Vec<Option<Side>> {
    let (w, h) = (pos.width(), pos.height());
    (0..w * h).map(|i| pos.cell(i / h, i % h)).collect()
}

/// The longest line of `side`'s discs through `(x, y)` if `side` had a disc there.
fn line_through(grid: &[Option<Side>], w: usize, h: usize, x: usize, y: usize, side: Side) -> usize {
    let at =
        |x: isize, y: isize| x >= 0 && y >= 0 && (x as usize) < w && (y as usize) < h && grid[x as usize * h + y as usize] == Some(side);
    let mut longest = 1;
    for (dx, dy) in [(1isize, 0isize), (0, 1), (1, 1), (1, -1)] {
        let mut run = 1;
        for sign in [1isize, -1] {
            let (mut cx, mut cy) = (x as isize + sign * dx, y as isize + sign * dy);
            while at(cx, cy) {
                run += 1;
                cx += sign * dx;
                cy += sign * dy;
            }
        }
        longest = longest.max(run);
    }
    longest
}

impl Heuristic for Position {
    fn evaluate(&self, side: Side) -> i32 {
        let (w, h) = (self.width(), self.height());
        let grid = grid(self);
        let mut score = [0i32; 2];
        for x in 0..w {
            for y in 0..h {
                for (dx, dy) in [(1isize, 0isize), (0, 1), (1, 1), (1, -1)] {
                    let (ex, ey) = (x as isize + 3 * dx, y as isize + 3 * dy);
                    if ex < 0 || ey < 0 || ex as usize >= w || ey as usize >= h {
                        continue;
                    }
                    let mut counts = [0usize; 2];
                    for k in 0..4 {
                        let (cx, cy) = ((x as isize + k * dx) as usize, (y as isize + k * dy) as usize);
                        if let Some(s) = grid[cx * h + cy] {
                            counts[s.index()] += 1;
                        }
                    }
                    match counts {
                        [n, 0] => score[0] += WINDOW_VALUE[n.min(3)],
                        [0, n] => score[1] += WINDOW_VALUE[n.min(3)],
                        _ => {}
                    }
                }
            }
        }
        score[side.index()] - score[side.other().index()]
    }

    fn search_moves(&self, out: &mut Vec<Move>) {
        let Some(me) = self.to_move() else { return };
        let (w, h) = (self.width(), self.height());
        let grid = grid(self);
        let centre = (w as i32 - 1) / 2;
        let mut ranked: Vec<(i32, usize)> = Vec::new();
        for x in (0..w).filter(|&x| self.is_open(x)) {
            let y = self.column_height(x);
            let mut value = -(x as i32 - centre).abs();
            if line_through(&grid, w, h, x, y, me) >= 4 {
                value += 1_000_000;
            } else if line_through(&grid, w, h, x, y, me.other()) >= 4 {
                value += 100_000;
            } else if y + 1 < h && line_through(&grid, w, h, x, y + 1, me.other()) >= 4 {
                // Playing here lets the opponent win on top.
                value -= 10_000;
            } else {
                value += 10 * (line_through(&grid, w, h, x, y, me) + line_through(&grid, w, h, x, y, me.other())) as i32;
            }
            ranked.push((value, x));
        }
        ranked.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        out.extend(ranked.into_iter().map(|(_, x)| Move::new(x as u8)));
    }
}
