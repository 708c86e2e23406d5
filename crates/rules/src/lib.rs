//! The rules of Arbiter's games: the [`Game`] trait every game implements with its
//! descriptor ([`GameInfo`]), one module per game, and the registry ([`GameKind`],
//! [`AnyPosition`], in `any.rs`) that lists them for choosing a game at run time.
//!
//! Pure code: no I/O, no clock, and randomness only from an RNG the caller passes.

#[macro_use]
mod any;
pub mod check;
pub mod info;
pub mod options;
pub mod replay;
pub mod view;

// The registry: every game, its module and its variant in `GameKind` and
// `AnyPosition`. Adding a game is adding its line here (ARCHITECTURE.md, "How to add a
// game").
registry! {
    gomoku => Gomoku,
    connect4 => Connect4,
    pahtum => Pahtum,
    legions => Legions,
    nupud => Nupud,
    reversi => Reversi,
    chess => Chess,
}

use std::fmt::Debug;

use rand::Rng;

pub use any::{Registered, Visit, VisitGame, VisitMut};
pub use info::{GameInfo, LimitSet};
pub use options::{OptionSpec, Options};
pub use view::{BoardStyle, BoardView, CellView};

/// One of the two players. `First` is the side that moves first (side 0 in records and
/// `verify` output): Gomoku `X`, Connect Four blue, Pah-tum `X`, Legions player 0,
/// Nupud White, chess White.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Side {
    First,
    Second,
}

impl Side {
    pub const BOTH: [Side; 2] = [Side::First, Side::Second];

    /// 0 for `First`, 1 for `Second`.
    pub fn index(self) -> usize {
        match self {
            Side::First => 0,
            Side::Second => 1,
        }
    }

    pub fn from_index(idx: usize) -> Option<Side> {
        match idx {
            0 => Some(Side::First),
            1 => Some(Side::Second),
            _ => None,
        }
    }

    pub fn other(self) -> Side {
        match self {
            Side::First => Side::Second,
            Side::Second => Side::First,
        }
    }
}

/// How a finished game came out.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Outcome {
    /// `None` is a draw.
    pub winner: Option<Side>,
    /// Final scores, indexed by [`Side::index`], for the games that have them
    /// (Pah-tum, Legions, Nupud); `None` for win/draw/loss games.
    pub scores: Option<[i64; 2]>,
}

impl Outcome {
    pub fn win(side: Side) -> Outcome {
        Outcome { winner: Some(side), scores: None }
    }

    pub fn draw() -> Outcome {
        Outcome { winner: None, scores: None }
    }

    /// The outcome decided by scores: the higher score wins, equal scores draw.
    pub fn from_scores(scores: [i64; 2]) -> Outcome {
        let winner = match scores[0].cmp(&scores[1]) {
            std::cmp::Ordering::Greater => Some(Side::First),
            std::cmp::Ordering::Less => Some(Side::Second),
            std::cmp::Ordering::Equal => None,
        };
        Outcome { winner, scores: Some(scores) }
    }
}

/// Why a move text was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MoveError {
    /// The text is not a move of this game at all.
    #[error("cannot read move {text:?}: {reason}")]
    Parse { text: String, reason: String },
    /// The text names a move, but not a legal one in this position.
    #[error("illegal move {text}: {reason}")]
    Illegal { text: String, reason: String },
    #[error("the game is already over")]
    GameOver,
}

/// Why a game could not be set up from its options and start position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    #[error("unknown game {name:?} (known: {known})")]
    UnknownGame { name: String, known: String },
    #[error("game {game} has no option {name:?} (its options: {known})")]
    UnknownOption { game: &'static str, name: String, known: String },
    #[error("option {name}={value:?}: {reason}")]
    BadOption { name: String, value: String, reason: String },
    #[error("bad start position: {0}")]
    BadStart(String),
    #[error("game {0} needs a start position")]
    StartRequired(&'static str),
}

/// The rules of one game, as the state of one game in progress (OpenSpiel's `State`).
///
/// Moves come in two stages, after shakmaty: [`Game::parse_move`] turns text a bot sent
/// into a `Move` (checking only syntax and what the position must know to read it),
/// [`Game::play`] checks it against the position and plays it; [`Game::play_unchecked`]
/// is for moves known to be legal (from [`Game::legal_moves`] or [`Game::random_move`]).
pub trait Game: Clone + Debug + PartialEq + Send + Sync + 'static {
    type Move: Clone + Debug + PartialEq + Send + Sync + 'static;

    /// What the game is: name, title, sides, notation, options, how its board looks.
    const INFO: GameInfo;

    /// The start position from options (already checked against the descriptor's by
    /// [`options::check_names`]) and an optional start position in the game's start
    /// text. Games that need random start positions take them only from `start`: the
    /// caller generates one with [`Game::random_start`].
    fn new(options: &Options, start: Option<&str>) -> Result<Self, SetupError>;

    /// A random start position text for games whose starts vary (Pah-tum's blocked
    /// squares); `None` for games with one fixed start.
    fn random_start<R: Rng + ?Sized>(options: &Options, rng: &mut R) -> Result<Option<String>, SetupError> {
        let _ = (options, rng);
        Ok(None)
    }

    /// The start position of this game in the game's start text, as `new` accepts it;
    /// `None` when the game has only its default start.
    fn start_text(&self) -> Option<String>;

    /// The side to move, `None` once the game is over.
    fn to_move(&self) -> Option<Side>;

    /// `Some` once the game is over by the rules.
    fn outcome(&self) -> Option<Outcome>;

    /// The running scores for games that have scores, `None` for the others.
    fn running_scores(&self) -> Option<[i64; 2]>;

    /// Appends every legal move in a deterministic order; nothing when the game is over.
    /// For games that are not [`GameInfo::enumerable`] this appends a sample of moves instead.
    fn legal_moves(&self, out: &mut Vec<Self::Move>);

    /// A legal move chosen at random (the seeds' baseline player), `None` when over.
    fn random_move<R: Rng + ?Sized>(&self, rng: &mut R) -> Option<Self::Move>;

    /// Reads a move in the game's notation.
    fn parse_move(&self, text: &str) -> Result<Self::Move, MoveError>;

    /// Writes a move in the game's notation; `parse_move(format_move(m)) == m`.
    fn format_move(&self, mv: &Self::Move) -> String;

    /// Checks `mv` against the position and plays it.
    fn play(&mut self, mv: &Self::Move) -> Result<(), MoveError>;

    /// Plays a move known to be legal. May panic or corrupt the position otherwise.
    fn play_unchecked(&mut self, mv: &Self::Move);

    /// A text picture of the position for people (terminal, logs).
    fn picture(&self) -> String;

    /// The outcome when `loser` forfeits (timeout, crash, illegal move) in this
    /// position, as the game's rules score a forfeit (Pah-tum credits the opponent 1666).
    fn forfeit(&self, loser: Side) -> Outcome {
        Outcome::win(loser.other())
    }

    /// True while the last move played must not be shown to the opponent (Nupud's hidden
    /// set-up: White's arrangement stays secret until Black has made its own).
    fn hides_last_move(&self) -> bool {
        false
    }

    /// Number of moves (plies) played so far.
    fn n_moves(&self) -> usize;

    /// The limits of the game's seed for a side, by the options (`docs/bots.md`, "Where
    /// the limits come from").
    fn seed_limits(options: &Options) -> LimitSet;

    /// The position on one line for the project's protocol (its `position` message); no
    /// line ends, no leading or trailing spaces.
    fn position_line(&self) -> String;

    /// The position back from [`Game::position_line`], for bots that rebuild their
    /// position each turn: exact for the board, what the line does not show is lost.
    /// `Err` with the reason where a line cannot be read back.
    fn from_position_line(options: &Options, line: &str) -> Result<Self, String> {
        let _ = (options, line);
        Err(format!("a {} position cannot be rebuilt from its line", Self::INFO.name))
    }

    /// A move as people write it, for move lists on pages: the notation itself unless a
    /// game says otherwise (Connect Four's columns counted from 1; Legions' orders one
    /// per line). Only for showing: what is sent and stored is the notation.
    fn move_for_people(text: &str) -> String {
        text.to_string()
    }

    /// What a person may click next, in the names of the board view's cells, given the
    /// part of the move they have composed so far (`partial`, in the notation): the
    /// legal moves when nothing is composed (every game that lists its moves), Legions'
    /// reachable provinces after the orders so far. For the pages' hints; empty when the
    /// game cannot say.
    fn choices(&self, partial: &str) -> Vec<String> {
        let mut moves = Vec::new();
        if Self::INFO.enumerable && partial.trim().is_empty() {
            self.legal_moves(&mut moves);
        }
        moves.iter().map(|mv| self.format_move(mv)).collect()
    }

    /// A move as a person types it (as [`Game::move_for_people`] writes moves: Connect
    /// Four's columns from 1), in the notation, for the rules to check; `Err` with a line
    /// for people when it cannot be one (a column off the board). The notation itself
    /// unless a game says otherwise.
    fn move_from_people(&self, text: &str) -> Result<String, String> {
        Ok(text.trim().to_string())
    }

    /// A start text on one line (the project protocol's `start` message): line ends
    /// become `/`, TABs `,`. Games whose start texts are one line already keep them.
    fn start_line(text: &str) -> String {
        text.trim_end().replace("\r\n", "\n").replace('\n', "/").replace('\t', ",")
    }

    /// The start text back from [`Game::start_line`], as [`Game::new`] reads it.
    fn start_from_line(line: &str) -> String {
        line.replace('/', "\n").replace(',', "\t") + "\n"
    }

    /// One candidate tournament opening in the start text, for the games whose
    /// descriptor says [`GameInfo::generated_openings`]: `None` when this candidate is
    /// refused (unbalanced), and the caller draws another.
    fn opening_candidate<R: Rng + ?Sized>(options: &Options, rng: &mut R) -> Result<Option<String>, SetupError> {
        let _ = (options, rng);
        Ok(None)
    }

    /// The start positions of an openings file in the game's own book format (chess's
    /// EPD and PGN books), each in the start text, with at most `plies` moves of a line
    /// where the format has lines; `None` for a game without one, whose files hold start
    /// texts separated by blank lines (`tournament::openings`).
    fn read_openings(text: &str, plies: Option<usize>) -> Option<Result<Vec<String>, String>> {
        let _ = (text, plies);
        None
    }

    /// The position as plain data for drawing (see [`view`]).
    fn board_view(&self) -> BoardView;

    /// What the rules made of the last move, where its text does not say it all (Legions:
    /// what each order did), for the record.
    fn turn_note(&self) -> Option<String> {
        None
    }

    /// Plays random moves to the end and returns the outcome. Games override it with a
    /// faster loop; it must play the same distribution as [`Game::random_move`].
    fn random_playout<R: Rng + ?Sized>(&mut self, rng: &mut R) -> Outcome {
        while let Some(mv) = self.random_move(rng) {
            self.play_unchecked(&mv);
        }
        self.outcome().expect("a position without a random move is over")
    }
}

/// Counts the leaf nodes of the legal-move tree to `depth` plies (chess programmers'
/// "perft"), for the games that can enumerate their moves.
pub fn perft<G: Game>(pos: &G, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut moves = Vec::new();
    pos.legal_moves(&mut moves);
    if depth == 1 {
        return moves.len() as u64;
    }
    moves
        .iter()
        .map(|mv| {
            let mut next = pos.clone();
            next.play_unchecked(mv);
            perft(&next, depth - 1)
        })
        .sum()
}
