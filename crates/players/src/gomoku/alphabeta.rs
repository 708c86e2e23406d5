//! `strong`'s alpha-beta search for Gomoku: the one negamax of `crate::search` on the
//! in-place [`Board`], with principal-variation search (a null window for every move but
//! the first) and a transposition table (Zobrist keys, one entry a slot, the newer kept):
//! within the moves the evaluation's ordering picks (the same set as the rules'
//! position's, so the value at a fixed depth is the same) the table's move first, then
//! the rest in the evaluation's order (killer moves, two a ply, searched more nodes to
//! the same depth, so they are not used). A search stopped mid-iteration plays the best
//! move that iteration has finished searching when it beats the previous iteration's,
//! else the previous iteration's.

use rules::Side;
use rules::gomoku::Move;

use super::board::{Board, to_move};
use crate::search::{self, Searchable};
use crate::{Budget, Found};

/// The board searched in place: a move is a cell.
impl Searchable for Board {
    type Move = u8;
    type Undo = ();

    const NULL_WINDOWS: bool = true;
    const TABLE: bool = true;
    const KEEPS_STOPPED_ITERATION: bool = true;

    fn result(&self) -> Option<Option<Side>> {
        match self.winner() {
            Some(winner) => Some(Some(winner)),
            None => self.is_over().then_some(None),
        }
    }

    fn evaluate(&self, side: Side) -> i32 {
        Board::evaluate(self, side)
    }

    fn search_moves(&self, out: &mut Vec<u8>) {
        Board::search_moves(self, out);
    }

    fn make(&mut self, cell: &u8) {
        Board::make(self, *cell as usize);
    }

    fn unmake(&mut self, cell: &u8, _undo: ()) {
        Board::unmake(self, *cell as usize);
    }

    fn key(&self) -> u64 {
        Board::key(self)
    }
}

/// The best move among `moves` (in the order given: of moves that score alike, the first
/// is played) by iterative deepening to `max_depth` plies within `budget`; `None` when
/// `moves` is empty.
pub fn best_move_among(board: &mut Board, moves: Vec<u8>, budget: &Budget, max_depth: u32) -> Option<Found<Move>> {
    let me = board.to_move();
    let found = search::negamax(board, me, moves, budget, max_depth)?;
    Some(Found { mv: to_move(found.mv), eval: found.eval, depth: found.depth, nodes: found.nodes })
}
