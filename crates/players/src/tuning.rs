//! What a game tells the built-in players beyond its rules ([`Tuning`]): how many nodes a
//! rung searches there, which moves the greedy player weighs and what it maximises, the
//! search its `medium` and `strong` rungs run, and an exact solver where there is one.
//! Each game implements it once, in its own module of this crate (`connect4.rs`,
//! `legions.rs`, ...); a game with nothing of its own writes an empty impl and plays
//! with the defaults (its legal moves, its score lead, the tree search). The registry's
//! list of games ([`rules::for_each_game`]) makes the one dispatch from a position of
//! any game to its tuning ([`visit_tuned`]), so the compiler holds every game listed to
//! an impl.

use rand::Rng;
use rules::{AnyPosition, Registered, Side};

use crate::{Budget, Found, Rung, Solved, mcts};

/// What the greedy player maximises after its move when the game goes on.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Yardstick {
    /// Its score lead after its move (0 in games without scores).
    Lead,
    /// Its score lead after the opponent's best immediate reply (Pah-tum, where the lead
    /// after one's own move says little: every move adds to one's runs, and the reply
    /// that breaks or extends the opponent's runs is what decides).
    LeadAfterReply,
    /// The game's value of the position after its move, given how many replies it
    /// leaves the opponent ([`Tuning::value`]; Reversi's square weights and mobility).
    Value,
    /// The game's value after the opponent's best reply ([`Tuning::value`]; chess's
    /// material and placement, after the opponent's best capture).
    ValueAfterReply,
}

/// A game's knowledge for the built-in players; every method has a default.
pub trait Tuning: Registered {
    /// What the greedy player maximises ([`Yardstick`]).
    const YARDSTICK: Yardstick = Yardstick::Lead;

    /// The node (or playout) limit `rung` searches with in this game when the player
    /// has none of its own: the rung's ([`Rung::default_nodes`]) unless the game says
    /// otherwise.
    fn default_nodes(rung: Rung) -> Option<u64> {
        rung.default_nodes()
    }

    /// Appends the moves the greedy player and the tree search weigh: the legal moves,
    /// or for a game that cannot list them (`GameInfo::enumerable` false) a sample of
    /// its own (Legions).
    fn candidates<R: Rng + ?Sized>(&self, rng: &mut R, out: &mut Vec<Self::Move>) {
        let _ = rng;
        self.legal_moves(out);
    }

    /// How good the position is for `me` by the game's own measure, when the opponent
    /// has `replies` moves, for the [`Yardstick::Value`] and
    /// [`Yardstick::ValueAfterReply`] yardsticks; 0 where the game has none.
    fn value(&self, me: Side, replies: usize) -> i64 {
        let _ = (me, replies);
        0
    }

    /// The best move of `rung` (`medium`, `strong` or `perfect`) within `budget`; `None`
    /// when the game is over. The tree search with the game's playouts unless the game
    /// has a search of its own.
    fn search<R: Rng + ?Sized>(&self, rung: Rung, rng: &mut R, budget: &Budget) -> Option<Found<Self::Move>> {
        let _ = rung;
        mcts::best_move(self, rng, budget)
    }

    /// The exact value of the position and of each move, where a solver plays it
    /// (`arbiter analyse`); `None` where none does.
    fn solve(&self) -> Option<Solved> {
        None
    }
}

/// Code that is generic over a game the players know ([`Tuning`]), run on a position of
/// any game by [`visit_tuned`].
pub trait VisitTuned {
    type Output;
    fn visit<G: Tuning>(self, pos: &G) -> Self::Output;
}

/// Makes [`visit_tuned`] from the registry's list.
macro_rules! tuned_games {
    ($($module:ident => $variant:ident),+) => {
        /// Runs `visitor` on `pos` as the game it is, with its [`Tuning`].
        pub fn visit_tuned<V: VisitTuned>(pos: &AnyPosition, visitor: V) -> V::Output {
            match pos {
                $(AnyPosition::$variant(pos) => visitor.visit(pos)),+
            }
        }
    };
}

rules::for_each_game!(tuned_games);
