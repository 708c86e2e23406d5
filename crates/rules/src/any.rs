//! Run-time choice of a game: [`GameKind`] names the five games, [`AnyPosition`] holds a
//! position of any of them and speaks in move text. This is the one place where the
//! games are listed; generic code reaches the typed game through [`Visit`].

use rand::Rng;

use crate::{Game, MoveError, OptionSpec, Options, Outcome, SetupError, Side};
use crate::{connect4, gomoku, legions, nupud, options, pahtum};

/// The five games.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum GameKind {
    Gomoku,
    Connect4,
    Pahtum,
    Legions,
    Nupud,
}

/// Code that works on a position of any game, generically.
pub trait Visit {
    type Output;
    fn visit<G: Game>(self, pos: &G) -> Self::Output;
}

/// Code that changes a position of any game, generically.
pub trait VisitMut {
    type Output;
    fn visit_mut<G: Game>(self, pos: &mut G) -> Self::Output;
}

/// A position of any of the five games.
#[derive(Clone, Debug, PartialEq)]
pub enum AnyPosition {
    Gomoku(gomoku::Position),
    Connect4(connect4::Position),
    Pahtum(pahtum::Position),
    Legions(legions::Position),
    Nupud(nupud::Position),
}

macro_rules! with_kind {
    ($kind:expr, $G:ident => $body:expr) => {
        match $kind {
            GameKind::Gomoku => {
                type $G = gomoku::Position;
                $body
            }
            GameKind::Connect4 => {
                type $G = connect4::Position;
                $body
            }
            GameKind::Pahtum => {
                type $G = pahtum::Position;
                $body
            }
            GameKind::Legions => {
                type $G = legions::Position;
                $body
            }
            GameKind::Nupud => {
                type $G = nupud::Position;
                $body
            }
        }
    };
}

macro_rules! with_pos {
    ($pos:expr, $p:ident => $body:expr) => {
        match $pos {
            AnyPosition::Gomoku($p) => $body,
            AnyPosition::Connect4($p) => $body,
            AnyPosition::Pahtum($p) => $body,
            AnyPosition::Legions($p) => $body,
            AnyPosition::Nupud($p) => $body,
        }
    };
}

impl GameKind {
    pub const ALL: [GameKind; 5] = [GameKind::Gomoku, GameKind::Connect4, GameKind::Pahtum, GameKind::Legions, GameKind::Nupud];

    /// The name used on the command line and in records.
    pub fn name(self) -> &'static str {
        with_kind!(self, G => G::NAME)
    }

    pub fn from_name(name: &str) -> Result<GameKind, SetupError> {
        let lower = name.trim().to_ascii_lowercase();
        let alias = match lower.as_str() {
            "connect-four" | "connect_four" | "c4" => "connect4",
            "pah-tum" => "pahtum",
            other => other,
        };
        GameKind::ALL.into_iter().find(|kind| kind.name() == alias).ok_or_else(|| SetupError::UnknownGame(name.to_string()))
    }

    /// A one-line description for `arbiter games`.
    pub fn title(self) -> &'static str {
        match self {
            GameKind::Gomoku => "Gomoku 10x10, five or more in a row wins (seed 000, 2004)",
            GameKind::Connect4 => "Connect Four on w x h, four in a row wins (seed 002, 2008)",
            GameKind::Pahtum => "Pah-tum 7x7 with blocked squares, scored runs (seed 003, 2019)",
            GameKind::Legions => "Legions, territorial conquest on n x n (seed 001, 2007)",
            GameKind::Nupud => "Nupud, 6x6 race of valued pieces with hidden set-up (seed 004, 1995)",
        }
    }

    /// What the two sides are called in this game, side 0 first.
    pub fn side_names(self) -> [&'static str; 2] {
        match self {
            GameKind::Gomoku => ["X", "0"],
            GameKind::Connect4 => ["blue", "red"],
            GameKind::Pahtum => ["X", "O"],
            GameKind::Legions => ["player 0", "player 1"],
            GameKind::Nupud => ["White", "Black"],
        }
    }

    /// How a move is written, with an example, for help texts and error messages.
    pub fn notation(self) -> &'static str {
        match self {
            GameKind::Gomoku => "column letter A-J then row digit 0-9 (row 0 at the top), e.g. B7",
            GameKind::Connect4 => "the column index from 0 at the left, e.g. 3",
            GameKind::Pahtum => "row letter A-G (A at the top) then column 1-7, e.g. C4",
            GameKind::Legions => "one turn: orders \"X Y C\" separated by ';', e.g. \"3 6 1;3 5 2\" (\"\" for none)",
            GameKind::Nupud => "set-up: six digits for files a-f, e.g. 432111; move: from and to square, e.g. c1c3",
        }
    }

    pub fn options(self) -> &'static [OptionSpec] {
        with_kind!(self, G => G::OPTIONS)
    }

    pub fn is_enumerable(self) -> bool {
        with_kind!(self, G => G::ENUMERABLE)
    }

    /// A random start position text where the game's starts vary (see
    /// [`Game::random_start`]).
    pub fn random_start<R: Rng + ?Sized>(self, options: &Options, rng: &mut R) -> Result<Option<String>, SetupError> {
        with_kind!(self, G => {
            options::check_names(G::NAME, G::OPTIONS, options)?;
            G::random_start(options, rng)
        })
    }

    /// The start position from options and an optional start text.
    pub fn new_position(self, options: &Options, start: Option<&str>) -> Result<AnyPosition, SetupError> {
        with_kind!(self, G => {
            options::check_names(G::NAME, G::OPTIONS, options)?;
            G::new(options, start).map(AnyPosition::from)
        })
    }
}

impl std::fmt::Display for GameKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for GameKind {
    type Err = SetupError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        GameKind::from_name(s)
    }
}

impl From<gomoku::Position> for AnyPosition {
    fn from(pos: gomoku::Position) -> Self {
        AnyPosition::Gomoku(pos)
    }
}
impl From<connect4::Position> for AnyPosition {
    fn from(pos: connect4::Position) -> Self {
        AnyPosition::Connect4(pos)
    }
}
impl From<pahtum::Position> for AnyPosition {
    fn from(pos: pahtum::Position) -> Self {
        AnyPosition::Pahtum(pos)
    }
}
impl From<legions::Position> for AnyPosition {
    fn from(pos: legions::Position) -> Self {
        AnyPosition::Legions(pos)
    }
}
impl From<nupud::Position> for AnyPosition {
    fn from(pos: nupud::Position) -> Self {
        AnyPosition::Nupud(pos)
    }
}

impl AnyPosition {
    pub fn kind(&self) -> GameKind {
        match self {
            AnyPosition::Gomoku(_) => GameKind::Gomoku,
            AnyPosition::Connect4(_) => GameKind::Connect4,
            AnyPosition::Pahtum(_) => GameKind::Pahtum,
            AnyPosition::Legions(_) => GameKind::Legions,
            AnyPosition::Nupud(_) => GameKind::Nupud,
        }
    }

    pub fn visit<V: Visit>(&self, visitor: V) -> V::Output {
        with_pos!(self, p => visitor.visit(p))
    }

    pub fn visit_mut<V: VisitMut>(&mut self, visitor: V) -> V::Output {
        with_pos!(self, p => visitor.visit_mut(p))
    }

    pub fn to_move(&self) -> Option<Side> {
        with_pos!(self, p => p.to_move())
    }

    pub fn outcome(&self) -> Option<Outcome> {
        with_pos!(self, p => p.outcome())
    }

    pub fn running_scores(&self) -> Option<[i64; 2]> {
        with_pos!(self, p => p.running_scores())
    }

    pub fn n_moves(&self) -> usize {
        with_pos!(self, p => p.n_moves())
    }

    pub fn start_text(&self) -> Option<String> {
        with_pos!(self, p => p.start_text())
    }

    pub fn picture(&self) -> String {
        with_pos!(self, p => p.picture())
    }

    pub fn forfeit(&self, loser: Side) -> Outcome {
        with_pos!(self, p => p.forfeit(loser))
    }

    pub fn hides_last_move(&self) -> bool {
        with_pos!(self, p => p.hides_last_move())
    }

    /// Every legal move in notation, or `None` for a game that cannot list its moves.
    pub fn legal_moves_text(&self) -> Option<Vec<String>> {
        with_pos!(self, p => legal_text(p))
    }

    /// Reads, checks and plays one move given in the game's notation.
    pub fn play_text(&mut self, text: &str) -> Result<(), MoveError> {
        with_pos!(self, p => play_text(p, text))
    }

    /// Checks a move text against the position without playing it, and returns it in
    /// the game's canonical notation.
    pub fn check_text(&self, text: &str) -> Result<String, MoveError> {
        with_pos!(self, p => {
            let mv = p.parse_move(text)?;
            p.clone().play(&mv)?;
            Ok(p.format_move(&mv))
        })
    }

    /// A random legal move in notation, `None` when the game is over.
    pub fn random_move_text<R: Rng + ?Sized>(&self, rng: &mut R) -> Option<String> {
        with_pos!(self, p => p.random_move(rng).map(|mv| p.format_move(&mv)))
    }

    pub fn random_playout<R: Rng + ?Sized>(&mut self, rng: &mut R) -> Outcome {
        with_pos!(self, p => p.random_playout(rng))
    }
}

fn legal_text<G: Game>(pos: &G) -> Option<Vec<String>> {
    if !G::ENUMERABLE {
        return None;
    }
    let mut moves = Vec::new();
    pos.legal_moves(&mut moves);
    Some(moves.iter().map(|mv| pos.format_move(mv)).collect())
}

fn play_text<G: Game>(pos: &mut G, text: &str) -> Result<(), MoveError> {
    if pos.to_move().is_none() {
        return Err(MoveError::GameOver);
    }
    let mv = pos.parse_move(text)?;
    pos.play(&mv)
}
