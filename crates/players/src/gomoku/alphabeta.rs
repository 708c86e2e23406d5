//! `strong`'s alpha-beta search for Gomoku, on the in-place [`Board`]: negamax with
//! iterative deepening and principal-variation search (a null window for every move but
//! the first), a transposition table (Zobrist keys, one entry a slot, the newer kept),
//! and within the moves the evaluation's ordering picks (the same set as
//! `crate::search`'s, so the value at a fixed depth is the same) the table's move first,
//! then the rest in the evaluation's order (killer moves, two a ply, searched more nodes
//! to the same depth, so they are not used). A search
//! stopped mid-iteration plays the best move that iteration has finished searching
//! when it beats the previous iteration's, else the previous iteration's.

use rules::gomoku::Move;

use super::board::{Board, to_move};
use crate::search::{WIN, WIN_BOUND, evaluation};
use crate::{Budget, Evaluation, Found};

/// The most entries of the transposition table (16 bytes each).
const MAX_TABLE: usize = 1 << 20;

#[derive(Copy, Clone, PartialEq, Eq)]
enum Bound {
    Exact,
    Lower,
    Upper,
}

#[derive(Copy, Clone)]
struct Entry {
    key: u64,
    value: i32,
    depth: u8,
    mv: u8,
    bound: Bound,
}

const EMPTY: Entry = Entry { key: 0, value: 0, depth: 0, mv: u8::MAX, bound: Bound::Exact };

struct Table {
    entries: Vec<Entry>,
}

impl Table {
    /// A table sized for a search of at most `nodes` nodes (fixed by the node limit, so
    /// that node-limited games stay the same).
    fn new(nodes: Option<u64>) -> Table {
        let wanted = nodes.map_or(MAX_TABLE, |n| (n as usize).saturating_mul(2).clamp(1024, MAX_TABLE));
        Table { entries: vec![EMPTY; wanted.next_power_of_two().min(MAX_TABLE)] }
    }

    fn slot(&self, key: u64) -> usize {
        (key as usize) & (self.entries.len() - 1)
    }

    fn get(&self, key: u64) -> Option<Entry> {
        let entry = self.entries[self.slot(key)];
        (entry.key == key && entry.mv != u8::MAX).then_some(entry)
    }

    fn put(&mut self, key: u64, entry: Entry) {
        let slot = self.slot(key);
        self.entries[slot] = Entry { key, ..entry };
    }
}

/// A win's score as stored: counted from the node, not from the root.
fn to_table(value: i32, ply: i32) -> i32 {
    if value > WIN_BOUND {
        value + ply
    } else if value < -WIN_BOUND {
        value - ply
    } else {
        value
    }
}

fn from_table(value: i32, ply: i32) -> i32 {
    if value > WIN_BOUND {
        value - ply
    } else if value < -WIN_BOUND {
        value + ply
    } else {
        value
    }
}

struct Searcher<'a, 'b> {
    budget: &'a Budget<'b>,
    nodes: u64,
    stopped: bool,
    table: Table,
}

/// The best move among `moves` (in the order given: of moves that score alike, the first
/// is played) by iterative deepening to `max_depth` plies within `budget`, as
/// `crate::search::best_move_among` finds it; `None` when `moves` is empty.
pub fn best_move_among(board: &mut Board, mut moves: Vec<u8>, budget: &Budget, max_depth: u32) -> Option<Found<Move>> {
    let mut best = Found { mv: to_move(*moves.first()?), eval: Evaluation::Score(0), depth: 0, nodes: 0 };
    if moves.len() == 1 {
        return Some(best);
    }
    let mut searcher = Searcher { budget, nodes: 0, stopped: false, table: Table::new(budget.nodes) };
    for depth in 1..=max_depth.min(crate::search::MAX_DEPTH) {
        let mut alpha = -WIN - 1;
        let mut best_here = None;
        for (i, &cell) in moves.iter().enumerate() {
            board.make(cell as usize);
            let score = if i == 0 {
                -searcher.negamax(board, depth - 1, -WIN - 1, -alpha, 1)
            } else {
                let probe = -searcher.negamax(board, depth - 1, -alpha - 1, -alpha, 1);
                if probe > alpha && !searcher.stopped { -searcher.negamax(board, depth - 1, -WIN - 1, -alpha, 1) } else { probe }
            };
            board.unmake(cell as usize);
            if searcher.stopped {
                break;
            }
            if score > alpha {
                alpha = score;
                best_here = Some(i);
            }
        }
        if searcher.stopped {
            // A move this iteration finished and found better than the previous best.
            if let Some(i) = best_here.filter(|&i| i > 0) {
                best = Found { mv: to_move(moves[i]), eval: evaluation(alpha), depth: depth - 1, nodes: searcher.nodes };
            }
            break;
        }
        let Some(i) = best_here else { break };
        let cell = moves.remove(i);
        moves.insert(0, cell);
        best = Found { mv: to_move(cell), eval: evaluation(alpha), depth, nodes: searcher.nodes };
        if alpha.abs() > WIN_BOUND {
            break;
        }
    }
    best.nodes = searcher.nodes;
    Some(best)
}

impl Searcher<'_, '_> {
    /// The value of `board` for the side to move, `ply` plies from the root.
    fn negamax(&mut self, board: &mut Board, depth: u32, mut alpha: i32, beta: i32, ply: i32) -> i32 {
        self.nodes += 1;
        if self.budget.spent(self.nodes) {
            self.stopped = true;
            return 0;
        }
        let side = board.to_move();
        if let Some(winner) = board.winner() {
            return if winner == side { WIN - ply } else { -(WIN - ply) };
        }
        if board.is_over() {
            return 0;
        }
        if depth == 0 {
            return board.evaluate(side);
        }
        let key = board.key();
        let mut table_move = u8::MAX;
        if let Some(entry) = self.table.get(key) {
            table_move = entry.mv;
            if entry.depth as u32 >= depth {
                let value = from_table(entry.value, ply);
                let cut = match entry.bound {
                    Bound::Exact => true,
                    Bound::Lower => value >= beta,
                    Bound::Upper => value <= alpha,
                };
                if cut {
                    return value;
                }
            }
        }
        let mut moves = Vec::with_capacity(super::BEAM);
        board.search_moves(&mut moves);
        // The table's move first, then the rest as ordered.
        if let Some(at) = moves.iter().position(|&m| m == table_move) {
            moves[..=at].rotate_right(1);
        }
        let alpha0 = alpha;
        let mut best = -WIN - 1;
        let mut best_move = moves[0];
        for (i, &cell) in moves.iter().enumerate() {
            board.make(cell as usize);
            let score = if i == 0 {
                -self.negamax(board, depth - 1, -beta, -alpha, ply + 1)
            } else {
                let probe = -self.negamax(board, depth - 1, -alpha - 1, -alpha, ply + 1);
                if probe > alpha && probe < beta && !self.stopped { -self.negamax(board, depth - 1, -beta, -alpha, ply + 1) } else { probe }
            };
            board.unmake(cell as usize);
            if self.stopped {
                return 0;
            }
            if score > best {
                best = score;
                best_move = cell;
            }
            if score > alpha {
                alpha = score;
            }
            if alpha >= beta {
                break;
            }
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if best > alpha0 {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.table.put(key, Entry { key, value: to_table(best, ply), depth: depth.min(u8::MAX as u32) as u8, mv: best_move, bound });
        best
    }
}
