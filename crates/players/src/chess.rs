//! Chess's evaluation for `greedy`'s yardstick and the alpha-beta rungs: material in
//! centipawns (pawn 100, knight 320, bishop 330, rook 500, queen 900) and a small bonus
//! for pieces near the centre and pawns that have advanced, the first evaluation of
//! every chess program; moves searched captures first (the most valuable victim by the
//! least valuable attacker), then promotions, then the rest. A small player, far below
//! the engines that enter through UCI; the rules (`rules::chess`) decide the draws.

use rand::Rng;
use rules::chess::Position;
use rules::{Game, Side};
use shakmaty::{Bitboard, Color, Move, Position as _, Role, Square};

use crate::search::{self, Heuristic};
use crate::{Budget, Found, Rung, Tuning, Yardstick};

/// How deep `medium` searches in chess: four plies.
pub const MEDIUM_DEPTH: u32 = 4;

/// `medium`'s node cap in chess, which four plies stay under in most positions (it
/// then answers with its last complete depth).
pub const MEDIUM_NODES: u64 = 20_000;

/// Chess's players: `greedy` weighs material after the opponent's best capture
/// ([`value`]); the search rungs run alpha-beta with it, `medium` to a fixed depth.
impl Tuning for Position {
    const YARDSTICK: Yardstick = Yardstick::ValueAfterReply;

    fn default_nodes(rung: Rung) -> Option<u64> {
        if rung == Rung::Medium { Some(MEDIUM_NODES) } else { rung.default_nodes() }
    }

    fn value(&self, me: Side, _replies: usize) -> i64 {
        i64::from(value(self, me))
    }

    fn search<R: Rng + ?Sized>(&self, rung: Rung, _rng: &mut R, budget: &Budget) -> Option<Found<Move>> {
        let depth = if rung == Rung::Medium { MEDIUM_DEPTH } else { search::MAX_DEPTH };
        let mut moves = Vec::new();
        self.search_moves(&mut moves);
        search::best_move_among(self, moves, budget, depth)
    }
}

/// A piece's worth in centipawns.
fn worth(role: Role) -> i32 {
    match role {
        Role::Pawn => 100,
        Role::Knight => 320,
        Role::Bishop => 330,
        Role::Rook => 500,
        Role::Queen => 900,
        Role::King => 0,
    }
}

/// A bonus for a piece on `square`: knights and bishops near the centre, pawns the
/// further they have gone (from their own side), in centipawns.
fn placement(role: Role, color: Color, square: Square) -> i32 {
    let file = u32::from(square.file()) as i32;
    let rank = u32::from(square.rank()) as i32;
    let centre = 6 - ((2 * file - 7).abs() + (2 * rank - 7).abs()) / 2;
    let advanced = if color == Color::White { rank - 1 } else { 6 - rank };
    match role {
        Role::Knight | Role::Bishop => 4 * centre,
        Role::Pawn => 5 * advanced + centre,
        Role::Queen | Role::Rook => centre,
        Role::King => 0,
    }
}

/// The worth of `color`'s pieces on `board`, in centipawns.
fn side_value(board: &shakmaty::Board, color: Color) -> i32 {
    let mut total = 0;
    for role in Role::ALL {
        let pieces: Bitboard = board.by_role(role) & board.by_color(color);
        for square in pieces {
            total += worth(role) + placement(role, color, square);
        }
    }
    total
}

/// How good `pos` is for `side`: its pieces' worth less the opponent's.
pub fn value(pos: &Position, side: Side) -> i32 {
    let board = pos.chess().board();
    let (me, them) = match side {
        Side::First => (Color::White, Color::Black),
        Side::Second => (Color::Black, Color::White),
    };
    side_value(board, me) - side_value(board, them)
}

/// A move's place in the search order: captures by victim less a tenth of the attacker,
/// promotions by their piece, the rest last.
fn order_key(pos: &Position, mv: &Move) -> i32 {
    let board = pos.chess().board();
    let victim = mv.capture().map_or(0, worth);
    let attacker = board.role_at(mv.from().unwrap_or(mv.to())).map_or(0, worth);
    let promotion = mv.promotion().map_or(0, worth);
    if victim > 0 { 10_000 + 10 * victim - attacker / 10 } else { promotion }
}

impl Heuristic for Position {
    fn evaluate(&self, side: Side) -> i32 {
        value(self, side)
    }

    fn search_moves(&self, out: &mut Vec<Move>) {
        let start = out.len();
        self.legal_moves(out);
        out[start..].sort_by_key(|mv| std::cmp::Reverse(order_key(self, mv)));
    }
}
