//! Where the `perfect` rung plays: Connect Four on the board its exact solver plays
//! (`players::connect4::solver`), 7×6, the default. The rule is said here only; the
//! solver checks its board against [`SOLVED_SIZE`] when it is compiled.

use rules::connect4::Position;
use rules::{Game, GameKind, Options, Registered};

use crate::Only;

/// The board the solver plays, width by height.
pub const SOLVED_SIZE: (usize, usize) = (7, 6);

/// Where the solver plays, as people write it.
pub(crate) const ONLY: Only = Only { game: Position::KIND, board: "7x6" };

/// Whether the options make the board the solver plays (7×6, the default).
pub fn is_solved_size(options: &Options) -> bool {
    Position::new(options, None).is_ok_and(|pos| (pos.width(), pos.height()) == SOLVED_SIZE)
}

/// Whether the solver plays the game `kind` with `options`.
pub(crate) fn solver_plays(kind: GameKind, options: &Options) -> bool {
    kind == Position::KIND && is_solved_size(options)
}
