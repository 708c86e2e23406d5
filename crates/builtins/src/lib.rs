//! The built-in players by name: the rungs of the ladder (`random`, `greedy`, `medium`,
//! `strong`, `perfect`), a player's name as written (`strong:20000`: a rung and a node
//! limit of its own), which games each rung plays, and the one message for a rung named
//! where it does not play. A light crate (the rules and nothing else) for what stores,
//! configs and front ends read of a player's name; the players themselves, and what each
//! does with a position, are the `players` crate's.

pub mod connect4;

use std::fmt;

use rules::{GameKind, Options};

/// A rung of the ladder: how hard a built-in player tries.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rung {
    /// A uniformly random legal move (for Legions, the seed's random orders).
    Random,
    /// Wins at once when it can, avoids moves that let the opponent win at once, and
    /// otherwise maximises its score lead after its move (random among equals); in
    /// Pah-tum its lead after the opponent's best reply, in Reversi the squares it holds
    /// and the replies it leaves (the game's yardstick, `players::Yardstick`).
    Greedy,
    /// A small search of a fixed size (reproducible, fast).
    Medium,
    /// The game's search for as long as the clock allows (or its node limit).
    Strong,
    /// An exact solver: Connect Four 7×6 only ([`Rung::only`]).
    Perfect,
}

/// `medium`'s search size: playouts of a tree search; for alpha-beta, which `medium`
/// runs to two plies only, a cap that two plies stay under on the seeds' boards. A game
/// may search more (`players::Tuning::default_nodes`).
pub const MEDIUM_NODES: u64 = 500;
/// `strong`'s limit when its clock does not stop it first.
pub const STRONG_NODES: u64 = 5_000_000;

/// Where a rung that does not play every game plays: one game, on one board.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Only {
    pub game: GameKind,
    /// The board, as people write it (`7x6`).
    pub board: &'static str,
}

impl fmt::Display for Only {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.game, self.board)
    }
}

impl Rung {
    /// The rungs, weakest first.
    pub const ALL: [Rung; 5] = [Rung::Random, Rung::Greedy, Rung::Medium, Rung::Strong, Rung::Perfect];

    pub fn name(self) -> &'static str {
        match self {
            Rung::Random => "random",
            Rung::Greedy => "greedy",
            Rung::Medium => "medium",
            Rung::Strong => "strong",
            Rung::Perfect => "perfect",
        }
    }

    /// What the rung is, in a few words (for `arbiter players`).
    pub fn summary(self) -> &'static str {
        match self {
            Rung::Random => "a random legal move",
            Rung::Greedy => "one move of lookahead: wins, blocks, grabs points",
            Rung::Medium => "a small search of fixed size",
            Rung::Strong => "the game's search for as long as the clock allows",
            Rung::Perfect => "an exact solver (Connect Four 7x6 only)",
        }
    }

    /// Where the rung plays when it does not play every game: `perfect`, the solver's
    /// Connect Four 7×6; `None` for the rungs that play every game.
    pub fn only(self) -> Option<Only> {
        match self {
            Rung::Perfect => Some(connect4::ONLY),
            _ => None,
        }
    }

    /// Whether the rung plays the game `kind` with these options: the one answer every
    /// front end, config and the referee ask.
    pub fn plays(self, kind: GameKind, options: &Options) -> bool {
        match self {
            Rung::Perfect => connect4::solver_plays(kind, options),
            _ => true,
        }
    }

    /// The node (or playout) limit a search rung uses when it is given none: `medium`
    /// always stops there; `strong` stops there or at its clock, whichever comes first.
    pub fn default_nodes(self) -> Option<u64> {
        match self {
            Rung::Random | Rung::Greedy | Rung::Perfect => None,
            Rung::Medium => Some(MEDIUM_NODES),
            Rung::Strong => Some(STRONG_NODES),
        }
    }
}

/// A player built into Arbiter: a rung, and optionally a node limit of its own
/// (`strong:20000`), which makes a game between built-ins with a seed reproducible.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Builtin {
    pub rung: Rung,
    pub nodes: Option<u64>,
}

/// A name that is not a built-in player's.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    #[error("no built-in player {0:?} ({names})", names = Builtin::names())]
    Unknown(String),
    #[error("built-in player {0:?}: the node limit after ':' must be a whole number above 0")]
    BadNodes(String),
    #[error("built-in player {0:?}: {1} searches nothing, so it takes no node limit")]
    NoSearch(String, &'static str),
}

/// A built-in player named for a game it does not play ([`Builtin::check_plays`]): the
/// one message for it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("built-in player {builtin} plays {only} only, not this {game}")]
pub struct Unplayable {
    pub builtin: Builtin,
    pub only: Only,
    pub game: GameKind,
}

impl Builtin {
    pub const RANDOM: Builtin = Builtin { rung: Rung::Random, nodes: None };
    pub const GREEDY: Builtin = Builtin { rung: Rung::Greedy, nodes: None };
    pub const MEDIUM: Builtin = Builtin { rung: Rung::Medium, nodes: None };
    pub const STRONG: Builtin = Builtin { rung: Rung::Strong, nodes: None };
    pub const PERFECT: Builtin = Builtin { rung: Rung::Perfect, nodes: None };

    /// The built-in players by their plain names, weakest first: the one list every
    /// front end (command line, configs, the web) takes its names from.
    pub const ALL: [Builtin; 5] = [Builtin::RANDOM, Builtin::GREEDY, Builtin::MEDIUM, Builtin::STRONG, Builtin::PERFECT];

    /// "random, greedy, medium, strong or perfect", for messages.
    pub fn names() -> String {
        let names: Vec<&str> = Rung::ALL.iter().map(|rung| rung.name()).collect();
        let (last, rest) = names.split_last().expect("rungs");
        format!("{} or {last}", rest.join(", "))
    }

    /// The name as written: the rung, then `:NODES` when it has a node limit of its own.
    pub fn name(self) -> String {
        match self.nodes {
            Some(nodes) => format!("{}:{nodes}", self.rung.name()),
            None => self.rung.name().to_string(),
        }
    }

    /// Whether `name` is meant as a built-in player (its part before any `:` is a rung).
    pub fn is_builtin_name(name: &str) -> bool {
        let rung = name.split_once(':').map_or(name, |(rung, _)| rung);
        Rung::ALL.iter().any(|r| r.name() == rung)
    }

    /// Reads `random`, `strong`, `strong:20000`, ...
    pub fn parse(name: &str) -> Result<Builtin, NameError> {
        let (rung_name, nodes) = match name.split_once(':') {
            Some((rung, nodes)) => (rung, Some(nodes)),
            None => (name, None),
        };
        let rung = Rung::ALL.into_iter().find(|r| r.name() == rung_name).ok_or_else(|| NameError::Unknown(name.to_string()))?;
        let nodes = match nodes {
            None => None,
            Some(text) => match text.parse::<u64>() {
                Ok(n) if n > 0 => Some(n),
                _ => return Err(NameError::BadNodes(name.to_string())),
            },
        };
        if nodes.is_some() && matches!(rung, Rung::Random | Rung::Greedy) {
            return Err(NameError::NoSearch(name.to_string(), rung.name()));
        }
        Ok(Builtin { rung, nodes })
    }

    /// [`Builtin::parse`] as an option, for callers that try other kinds of names next.
    pub fn from_name(name: &str) -> Option<Builtin> {
        Builtin::parse(name).ok()
    }

    /// `Ok` when the player plays the game `kind` with `options` ([`Rung::plays`]), else
    /// the one message that says where it plays.
    pub fn check_plays(self, kind: GameKind, options: &Options) -> Result<(), Unplayable> {
        match self.rung.only() {
            Some(only) if !self.rung.plays(kind, options) => Err(Unplayable { builtin: self, only, game: kind }),
            _ => Ok(()),
        }
    }

    /// The node limit this player searches with: its own, else its rung's.
    pub fn node_limit(self) -> Option<u64> {
        self.nodes.or(self.rung.default_nodes())
    }

    /// Whether the player's moves depend on its clock (`strong` without a node limit of
    /// its own); the others play the same moves from the same seed whatever the time.
    pub fn uses_clock(self) -> bool {
        self.rung == Rung::Strong && self.nodes.is_none()
    }
}

impl fmt::Display for Builtin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}
