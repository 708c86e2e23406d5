//! The one alpha-beta search of the built-in players, over any game that implements
//! [`Searchable`]: negamax with iterative deepening, the previous iteration's best move
//! tried first at the root, the game's own move ordering (and pruning to its best
//! candidates) below, and a node budget; and where the game asks for them, null windows
//! (principal-variation search) and a transposition table. A search stopped
//! mid-iteration answers with the last completed iteration's move (or, where the game
//! asks, with a better move the stopped iteration finished). Compiled once per game (no
//! dynamic dispatch in the search). Only for games where the sides strictly alternate.
//!
//! Three games' searches run on it: the rules' positions of any game with an evaluation
//! ([`Heuristic`], searched copy by copy: Gomoku's `medium`, Reversi, chess), Connect
//! Four's board played in place (`connect4::alphabeta`) and Gomoku's (`gomoku::alphabeta`,
//! with the table and null windows).

use rules::{Game, Side};

use crate::{Budget, Evaluation, Found, Rung};

/// A game the alpha-beta player can search on the rules' position: an evaluation and a
/// move ordering (searched through [`Copies`]).
pub trait Heuristic: Game {
    /// How good the position (not over) looks for `side`, in the game's own units;
    /// well inside ±[`WIN`] / 2.
    fn evaluate(&self, side: Side) -> i32;

    /// The moves worth searching, most promising first (a game may leave out moves it
    /// judges hopeless); never empty while the game goes on.
    fn search_moves(&self, out: &mut Vec<Self::Move>);
}

/// A position the negamax searches by playing moves and taking them back.
pub trait Searchable {
    /// A move as the search plays it.
    type Move: Clone + PartialEq;
    /// What [`Searchable::unmake`] needs to take a move back.
    type Undo;

    /// Null windows: every move but the first is searched with a window of one, and
    /// again with the full window when it proves better.
    const NULL_WINDOWS: bool = false;
    /// A transposition table ([`Searchable::key`]): its move tried first, its bounds
    /// cut the search.
    const TABLE: bool = false;
    /// When stopped mid-iteration, play the best move that iteration finished if it is
    /// not the previous iteration's (else that one's).
    const KEEPS_STOPPED_ITERATION: bool = false;

    /// `None` while the game goes on; once it is over, the winner (`None` a draw).
    fn result(&self) -> Option<Option<Side>>;
    /// How good the position (not over) is for `side`.
    fn evaluate(&self, side: Side) -> i32;
    /// Appends the moves to search, most promising first; never none while the game goes
    /// on.
    fn search_moves(&self, out: &mut Vec<Self::Move>);
    /// Plays a move of [`Searchable::search_moves`].
    fn make(&mut self, mv: &Self::Move) -> Self::Undo;
    /// Takes back the move [`Searchable::make`] played.
    fn unmake(&mut self, mv: &Self::Move, undo: Self::Undo);
    /// The position's key for the table (when [`Searchable::TABLE`]).
    fn key(&self) -> u64 {
        0
    }
}

/// The score of a won position, less one per ply to the win (so nearer wins score more).
pub const WIN: i32 = 1_000_000;
/// Scores beyond this are forced wins or losses.
pub(crate) const WIN_BOUND: i32 = WIN - 10_000;
/// The deepest iteration tried.
pub const MAX_DEPTH: u32 = 64;

/// How deep `medium` searches: two plies, its move and the reply (like the depth-limited
/// negamax players of kaggle-environments, with an evaluation at the leaves).
pub const MEDIUM_DEPTH: u32 = 2;

/// The depth a rung searches to: [`MEDIUM_DEPTH`] for `medium`, as deep as its budget
/// allows for the others.
pub fn depth_of(rung: Rung) -> u32 {
    if rung == Rung::Medium { MEDIUM_DEPTH } else { MAX_DEPTH }
}

/// The best move by iterative deepening to `max_depth` plies within `budget`; `None` when
/// the game is over. The evaluation is the last completed iteration's.
pub fn best_move<G: Heuristic>(pos: &G, budget: &Budget, max_depth: u32) -> Option<Found<G::Move>> {
    let mut moves = Vec::new();
    pos.search_moves(&mut moves);
    best_move_among(pos, moves, budget, max_depth)
}

/// [`best_move`] over the root moves `moves` in the order given: of moves that score
/// alike, the first is played (a caller that shuffles them breaks ties at random).
pub fn best_move_among<G: Heuristic>(pos: &G, moves: Vec<G::Move>, budget: &Budget, max_depth: u32) -> Option<Found<G::Move>> {
    let me = pos.to_move()?;
    negamax(&mut Copies { line: vec![pos.clone()] }, me, moves, budget, max_depth)
}

/// A rules' position searched copy by copy: a move is played on a copy of the position
/// before it, taken back by dropping the copy.
pub struct Copies<G> {
    /// The position at the root, then after each move played.
    line: Vec<G>,
}

impl<G: Heuristic> Searchable for Copies<G> {
    type Move = G::Move;
    type Undo = ();

    fn result(&self) -> Option<Option<Side>> {
        self.top().outcome().map(|outcome| outcome.winner)
    }

    fn evaluate(&self, side: Side) -> i32 {
        self.top().evaluate(side)
    }

    fn search_moves(&self, out: &mut Vec<G::Move>) {
        self.top().search_moves(out);
    }

    fn make(&mut self, mv: &G::Move) {
        let mut next = self.top().clone();
        next.play_unchecked(mv);
        self.line.push(next);
    }

    fn unmake(&mut self, _mv: &G::Move, _undo: ()) {
        self.line.pop();
    }
}

impl<G> Copies<G> {
    fn top(&self) -> &G {
        self.line.last().expect("the root stays")
    }
}

/// A search score as an [`Evaluation`]: a win or loss in so many plies, else the score.
pub(crate) fn evaluation(score: i32) -> Evaluation {
    if score > WIN_BOUND {
        Evaluation::Mate(WIN - score)
    } else if score < -WIN_BOUND {
        Evaluation::Mate(-(WIN + score))
    } else {
        Evaluation::Score(score)
    }
}

/// The best of the root moves `moves` of `pos` (`me` to move), in the order given (of
/// moves that score alike, the first is played), by iterative deepening to `max_depth`
/// plies within `budget`; `None` when `moves` is empty.
pub fn negamax<S: Searchable>(pos: &mut S, me: Side, mut moves: Vec<S::Move>, budget: &Budget, max_depth: u32) -> Option<Found<S::Move>> {
    let mut best = Found { mv: moves.first()?.clone(), eval: Evaluation::Score(0), depth: 0, nodes: 0 };
    if moves.len() == 1 {
        return Some(best);
    }
    let table = if S::TABLE { Table::new(budget.nodes) } else { Table { entries: Vec::new() } };
    let mut searcher = Searcher { budget, nodes: 0, stopped: false, table, buffers: Vec::new() };
    for depth in 1..=max_depth.min(MAX_DEPTH) {
        let mut alpha = -WIN - 1;
        let mut best_here = None;
        for (i, mv) in moves.iter().enumerate() {
            let undo = pos.make(mv);
            let score = if !S::NULL_WINDOWS || i == 0 {
                -searcher.search(pos, me.other(), depth - 1, -WIN - 1, -alpha, 1)
            } else {
                let probe = -searcher.search(pos, me.other(), depth - 1, -alpha - 1, -alpha, 1);
                if probe > alpha && !searcher.stopped { -searcher.search(pos, me.other(), depth - 1, -WIN - 1, -alpha, 1) } else { probe }
            };
            pos.unmake(mv, undo);
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
            if S::KEEPS_STOPPED_ITERATION
                && let Some(i) = best_here.filter(|&i| i > 0)
            {
                best = Found { mv: moves[i].clone(), eval: evaluation(alpha), depth: depth - 1, nodes: searcher.nodes };
            }
            break;
        }
        let Some(i) = best_here else { break };
        // The best move first next time.
        let mv = moves.remove(i);
        moves.insert(0, mv.clone());
        best = Found { mv, eval: evaluation(alpha), depth, nodes: searcher.nodes };
        if alpha.abs() > WIN_BOUND {
            break;
        }
    }
    best.nodes = searcher.nodes;
    Some(best)
}

struct Searcher<'a, 'b, M> {
    budget: &'a Budget<'b>,
    nodes: u64,
    stopped: bool,
    table: Table<M>,
    /// A list of moves for each ply, kept from node to node.
    buffers: Vec<Vec<M>>,
}

impl<M: Clone + PartialEq> Searcher<'_, '_, M> {
    /// The value of `pos` for `side` (the side to move there), `ply` plies from the root.
    fn search<S: Searchable<Move = M>>(&mut self, pos: &mut S, side: Side, depth: u32, mut alpha: i32, beta: i32, ply: i32) -> i32 {
        self.nodes += 1;
        if self.budget.spent(self.nodes) {
            self.stopped = true;
            return 0;
        }
        if let Some(winner) = pos.result() {
            return match winner {
                Some(winner) if winner == side => WIN - ply,
                Some(_) => -(WIN - ply),
                None => 0,
            };
        }
        if depth == 0 {
            return pos.evaluate(side);
        }
        let key = if S::TABLE { pos.key() } else { 0 };
        let mut table_move = None;
        if S::TABLE
            && let Some(entry) = self.table.get(key)
        {
            table_move = entry.mv.clone();
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
        let at = ply as usize;
        if self.buffers.len() <= at {
            self.buffers.resize_with(at + 1, Vec::new);
        }
        let mut moves = std::mem::take(&mut self.buffers[at]);
        moves.clear();
        pos.search_moves(&mut moves);
        // The table's move first, then the rest as ordered.
        if let Some(table_move) = &table_move
            && let Some(at) = moves.iter().position(|mv| mv == table_move)
        {
            moves[..=at].rotate_right(1);
        }
        let alpha0 = alpha;
        let mut best = -WIN - 1;
        let mut best_move = 0;
        for (i, mv) in moves.iter().enumerate() {
            let undo = pos.make(mv);
            let score = if !S::NULL_WINDOWS || i == 0 {
                -self.search(pos, side.other(), depth - 1, -beta, -alpha, ply + 1)
            } else {
                let probe = -self.search(pos, side.other(), depth - 1, -alpha - 1, -alpha, ply + 1);
                if probe > alpha && probe < beta && !self.stopped {
                    -self.search(pos, side.other(), depth - 1, -beta, -alpha, ply + 1)
                } else {
                    probe
                }
            };
            pos.unmake(mv, undo);
            if self.stopped {
                self.buffers[at] = moves;
                return 0;
            }
            if score > best {
                best = score;
                best_move = i;
            }
            if score > alpha {
                alpha = score;
            }
            if alpha >= beta {
                break;
            }
        }
        if S::TABLE {
            let bound = if best >= beta {
                Bound::Lower
            } else if best > alpha0 {
                Bound::Exact
            } else {
                Bound::Upper
            };
            let entry = Entry {
                key,
                value: to_table(best, ply),
                depth: depth.min(u8::MAX as u32) as u8,
                mv: Some(moves[best_move].clone()),
                bound,
            };
            self.table.put(key, entry);
        }
        self.buffers[at] = moves;
        best
    }
}

/// The most entries of the transposition table.
const MAX_TABLE: usize = 1 << 20;

#[derive(Copy, Clone, PartialEq, Eq)]
enum Bound {
    Exact,
    Lower,
    Upper,
}

#[derive(Clone)]
struct Entry<M> {
    key: u64,
    value: i32,
    depth: u8,
    /// `None` in an empty slot.
    mv: Option<M>,
    bound: Bound,
}

/// The transposition table: one entry a slot, the newer kept.
struct Table<M> {
    entries: Vec<Entry<M>>,
}

impl<M: Clone> Table<M> {
    /// A table sized for a search of at most `nodes` nodes (fixed by the node limit, so
    /// that node-limited games stay the same).
    fn new(nodes: Option<u64>) -> Table<M> {
        let wanted = nodes.map_or(MAX_TABLE, |n| (n as usize).saturating_mul(2).clamp(1024, MAX_TABLE));
        let empty = Entry { key: 0, value: 0, depth: 0, mv: None, bound: Bound::Exact };
        Table { entries: vec![empty; wanted.next_power_of_two().min(MAX_TABLE)] }
    }

    fn slot(&self, key: u64) -> usize {
        (key as usize) & (self.entries.len() - 1)
    }

    fn get(&self, key: u64) -> Option<&Entry<M>> {
        let entry = &self.entries[self.slot(key)];
        (entry.key == key && entry.mv.is_some()).then_some(entry)
    }

    fn put(&mut self, key: u64, entry: Entry<M>) {
        let slot = self.slot(key);
        self.entries[slot] = entry;
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
