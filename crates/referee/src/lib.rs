//! Plays one game between two players and says how it ended. Today the players are
//! the built-in ones, in process; bots as programs join here later.

use players::Builtin;
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;
use rules::{AnyPosition, Outcome, Side};

/// Why play stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Termination {
    /// The game ended by its rules.
    Rules,
    /// A player made a move the rules refuse; it loses.
    IllegalMove { side: Side, text: String, error: String },
}

/// One finished game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameResult {
    /// The moves in notation, in order.
    pub moves: Vec<String>,
    pub outcome: Outcome,
    pub termination: Termination,
}

/// Plays `start` to the end between `players[0]` (the side that moves first) and
/// `players[1]`. Each side draws its randomness from its own stream derived from
/// `seed`, so the same seed gives the same game. `on_move` sees the position after
/// each move and the move's text.
pub fn play_game(start: &AnyPosition, players: [Builtin; 2], seed: u64, mut on_move: impl FnMut(&AnyPosition, &str)) -> GameResult {
    let mut rngs = [ChaCha8Rng::seed_from_u64(seed), ChaCha8Rng::seed_from_u64(seed ^ 0x9e37_79b9_7f4a_7c15)];
    let mut pos = start.clone();
    let mut moves = Vec::new();
    while let Some(side) = pos.to_move() {
        let text = players[side.index()].choose_text(&pos, &mut rngs[side.index()]).expect("a position with a side to move has a move");
        if let Err(err) = pos.play_text(&text) {
            return GameResult {
                moves,
                outcome: pos.forfeit(side),
                termination: Termination::IllegalMove { side, text, error: err.to_string() },
            };
        }
        on_move(&pos, &text);
        moves.push(text);
    }
    let outcome = pos.outcome().expect("a position without a side to move is over");
    GameResult { moves, outcome, termination: Termination::Rules }
}
