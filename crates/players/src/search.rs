//! Alpha-beta search for the games that have an evaluation ([`Heuristic`]: Gomoku, Connect
//! Four of any size): negamax with iterative deepening, the previous iteration's best move
//! tried first at the root, the game's own move ordering (and pruning to its best
//! candidates) below, and a node budget. A search stopped mid-iteration answers with the
//! last completed iteration's move. Only for games where the sides strictly alternate.

use rules::{Game, Side};

use crate::{Budget, Evaluation, Found, Rung};

/// A game the alpha-beta player can search: an evaluation and a move ordering.
pub trait Heuristic: Game {
    /// How good the position (not over) looks for `side`, in the game's own units;
    /// well inside ±[`WIN`] / 2.
    fn evaluate(&self, side: Side) -> i32;

    /// The moves worth searching, most promising first (a game may leave out moves it
    /// judges hopeless); never empty while the game goes on.
    fn search_moves(&self, out: &mut Vec<Self::Move>);
}

/// The score of a won position, less one per ply to the win (so nearer wins score more).
pub const WIN: i32 = 1_000_000;
/// Scores beyond this are forced wins or losses.
pub(crate) const WIN_BOUND: i32 = WIN - 10_000;
/// The deepest iteration tried.
pub const MAX_DEPTH: u32 = 64;

struct Searcher<'a, 'b> {
    budget: &'a Budget<'b>,
    nodes: u64,
    stopped: bool,
}

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
pub fn best_move_among<G: Heuristic>(pos: &G, mut moves: Vec<G::Move>, budget: &Budget, max_depth: u32) -> Option<Found<G::Move>> {
    let me = pos.to_move()?;
    let mut best = Found { mv: moves.first()?.clone(), eval: Evaluation::Score(0), depth: 0, nodes: 0 };
    if moves.len() == 1 {
        return Some(best);
    }
    let mut searcher = Searcher { budget, nodes: 0, stopped: false };
    for depth in 1..=max_depth.min(MAX_DEPTH) {
        let mut alpha = -WIN - 1;
        let mut best_here = None;
        for (i, mv) in moves.iter().enumerate() {
            let mut next = pos.clone();
            next.play_unchecked(mv);
            let score = -searcher.negamax(&next, me.other(), depth - 1, -WIN - 1, -alpha, 1);
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

impl Searcher<'_, '_> {
    /// The value of `pos` for `side` (the side to move there), `ply` plies from the root.
    fn negamax<G: Heuristic>(&mut self, pos: &G, side: Side, depth: u32, mut alpha: i32, beta: i32, ply: i32) -> i32 {
        self.nodes += 1;
        if self.budget.spent(self.nodes) {
            self.stopped = true;
            return 0;
        }
        if let Some(outcome) = pos.outcome() {
            return match outcome.winner {
                Some(winner) if winner == side => WIN - ply,
                Some(_) => -(WIN - ply),
                None => 0,
            };
        }
        if depth == 0 {
            return pos.evaluate(side);
        }
        let mut moves = Vec::new();
        pos.search_moves(&mut moves);
        let mut best = -WIN - 1;
        for mv in &moves {
            let mut next = pos.clone();
            next.play_unchecked(mv);
            let score = -self.negamax(&next, side.other(), depth - 1, -beta, -alpha, ply + 1);
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
