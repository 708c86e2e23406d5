//! A game's moves checked against the rules from its start: the one replay that `arbiter
//! verify` (a record on stdin) and the web arena's check of an HTTP worker's reported
//! record both run, so that what the server accepts is what `verify` says.

use crate::{AnyPosition, GameKind, MoveError, Options, Outcome};

/// What the rules make of a game's moves.
#[derive(Debug)]
pub enum Replayed {
    /// Every move is legal; the position after the last one (over or not).
    Played(Box<AnyPosition>),
    /// The move at `ply` (0-based) is refused by the rules.
    Illegal { ply: usize, error: String },
    /// The start (or the options) cannot be made into a position.
    Invalid { error: String },
}

impl Replayed {
    /// The outcome by the rules, when every move is legal and the game is over.
    pub fn outcome(&self) -> Option<Outcome> {
        match self {
            Replayed::Played(position) => position.outcome(),
            _ => None,
        }
    }
}

/// Plays `moves` (in the game's notation) from `start` (the game's start text; `None`
/// for the default start) under `options`.
pub fn replay<S: AsRef<str>>(kind: GameKind, options: &Options, start: Option<&str>, moves: impl IntoIterator<Item = S>) -> Replayed {
    let mut position = match kind.new_position(options, start) {
        Ok(position) => position,
        Err(err) => return Replayed::Invalid { error: err.to_string() },
    };
    for (ply, text) in moves.into_iter().enumerate() {
        let text = text.as_ref();
        if let Err(err) = position.play_text(text) {
            let error = match err {
                MoveError::GameOver => format!("move {text:?} after the end of the game"),
                other => other.to_string(),
            };
            return Replayed::Illegal { ply, error };
        }
    }
    Replayed::Played(Box::new(position))
}
