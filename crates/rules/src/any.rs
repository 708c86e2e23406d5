//! The registry's machinery: from the one list of games in `lib.rs` (`registry!`), the
//! run-time choice of a game ([`GameKind`]), a position of any game ([`AnyPosition`])
//! and a move of any game ([`AnyMove`]), and the way from each back to the typed game
//! ([`Registered`], [`VisitGame`], [`Visit`]). This is the one place that matches over
//! the games; everything else reads their descriptors ([`GameInfo`]) or is generic over
//! [`Game`].

use std::fmt::Debug;

use rand::Rng;

use crate::{AnyMove, AnyPosition, BoardView, Game, GameInfo, GameKind, LimitSet, MoveError, Options, Outcome, SetupError, Side, options};

/// Code that is generic over the game, run for a game chosen at run time
/// ([`GameKind::visit`]): the one step from a game's name to the typed game.
pub trait VisitGame {
    type Output;
    fn visit<G: Registered>(self) -> Self::Output;
}

/// Code that works on a position of any game, generically.
pub trait Visit {
    type Output;
    fn visit<G: Registered>(self, pos: &G) -> Self::Output;
}

/// Code that changes a position of any game, generically.
pub trait VisitMut {
    type Output;
    fn visit_mut<G: Registered>(self, pos: &mut G) -> Self::Output;
}

/// A game of the registry: its [`GameKind`] and the way into and out of
/// [`AnyPosition`]. Implemented by `registry!` for every game listed, never by hand.
pub trait Registered: Game {
    const KIND: GameKind;
    fn into_any(self) -> AnyPosition;
    fn from_any(any: &AnyPosition) -> Option<&Self>;
    /// A move of this game as a move of any game ([`AnyMove`]).
    fn move_into_any(mv: Self::Move) -> AnyMove;
    /// A move of any game as a move of this one, `None` when it is another game's.
    fn move_from_any(mv: AnyMove) -> Option<Self::Move>;
}

/// Lists the games: `registry! { module => Variant, ... }` declares each game's module
/// and makes [`GameKind`] and [`AnyPosition`] with one variant per game, in this order.
macro_rules! registry {
    ($($module:ident => $variant:ident),+ $(,)?) => {
        registry!(@games ($) $($module => $variant),+);
    };
    (@games ($d:tt) $($module:ident => $variant:ident),+) => {
        $(pub mod $module;)+

        /// Calls the macro `$callback` with the registry's list, `module => Variant, ...`,
        /// so that a crate beside the rules can make code for every game from the one
        /// list (the built-in players' dispatch to their per-game tuning,
        /// `players::for_each_tuned`), and the compiler holds it to every game listed.
        #[macro_export]
        macro_rules! for_each_game {
            ($d callback:ident) => {
                $d callback! { $($module => $variant),+ }
            };
        }

        /// The games of the registry, in its order.
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum GameKind {
            $($variant),+
        }

        /// A position of any game of the registry.
        #[derive(Clone, Debug, PartialEq)]
        pub enum AnyPosition {
            $($variant($module::Position)),+
        }

        /// A move of any game of the registry: the typed way between code written for
        /// one game (a driver of its own interface) and code generic over the game.
        #[derive(Clone, Debug, PartialEq)]
        pub enum AnyMove {
            $($variant(<$module::Position as $crate::Game>::Move)),+
        }

        impl GameKind {
            /// Every game, in the registry's order.
            pub const ALL: [GameKind; [$(stringify!($variant)),+].len()] = [$(GameKind::$variant),+];

            /// Runs generic code for this game.
            pub fn visit<V: $crate::VisitGame>(self, visitor: V) -> V::Output {
                match self {
                    $(GameKind::$variant => visitor.visit::<$module::Position>()),+
                }
            }

            /// The game's descriptor.
            pub fn info(self) -> $crate::GameInfo {
                match self {
                    $(GameKind::$variant => <$module::Position as $crate::Game>::INFO),+
                }
            }
        }

        impl AnyPosition {
            /// Runs generic code on this position.
            pub fn visit<V: $crate::Visit>(&self, visitor: V) -> V::Output {
                match self {
                    $(AnyPosition::$variant(pos) => visitor.visit(pos)),+
                }
            }

            /// Runs generic code that changes this position.
            pub fn visit_mut<V: $crate::VisitMut>(&mut self, visitor: V) -> V::Output {
                match self {
                    $(AnyPosition::$variant(pos) => visitor.visit_mut(pos)),+
                }
            }

            /// The game of this position.
            pub fn kind(&self) -> GameKind {
                match self {
                    $(AnyPosition::$variant(_) => GameKind::$variant),+
                }
            }

            fn as_dyn(&self) -> &dyn $crate::any::DynGame {
                match self {
                    $(AnyPosition::$variant(pos) => pos),+
                }
            }

            fn as_dyn_mut(&mut self) -> &mut dyn $crate::any::DynGame {
                match self {
                    $(AnyPosition::$variant(pos) => pos),+
                }
            }
        }

        $(
            impl $crate::Registered for $module::Position {
                const KIND: GameKind = GameKind::$variant;
                fn into_any(self) -> AnyPosition {
                    AnyPosition::$variant(self)
                }
                fn from_any(any: &AnyPosition) -> Option<&Self> {
                    match any {
                        AnyPosition::$variant(pos) => Some(pos),
                        #[allow(unreachable_patterns)]
                        _ => None,
                    }
                }
                fn move_into_any(mv: Self::Move) -> AnyMove {
                    AnyMove::$variant(mv)
                }
                fn move_from_any(mv: AnyMove) -> Option<Self::Move> {
                    match mv {
                        AnyMove::$variant(mv) => Some(mv),
                        #[allow(unreachable_patterns)]
                        _ => None,
                    }
                }
            }

            impl From<$module::Position> for AnyPosition {
                fn from(pos: $module::Position) -> AnyPosition {
                    AnyPosition::$variant(pos)
                }
            }
        )+
    };
}

/// The object-safe part of [`Game`], so that [`AnyPosition`] reaches its game's rules
/// without a match per method.
pub(crate) trait DynGame: Debug + Send + Sync {
    fn to_move(&self) -> Option<Side>;
    fn outcome(&self) -> Option<Outcome>;
    fn running_scores(&self) -> Option<[i64; 2]>;
    fn n_moves(&self) -> usize;
    fn start_text(&self) -> Option<String>;
    fn picture(&self) -> String;
    fn forfeit(&self, loser: Side) -> Outcome;
    fn hides_last_move(&self) -> bool;
    fn legal_moves_text(&self) -> Option<Vec<String>>;
    fn play_text(&mut self, text: &str) -> Result<String, MoveError>;
    fn check_text(&self, text: &str) -> Result<String, MoveError>;
    fn position_line(&self) -> String;
    fn board_view(&self) -> BoardView;
    fn turn_note(&self) -> Option<String>;
    fn move_from_people(&self, text: &str) -> Result<String, String>;
    fn choices(&self, partial: &str) -> Vec<String>;
}

impl<G: Game> DynGame for G {
    fn to_move(&self) -> Option<Side> {
        Game::to_move(self)
    }
    fn outcome(&self) -> Option<Outcome> {
        Game::outcome(self)
    }
    fn running_scores(&self) -> Option<[i64; 2]> {
        Game::running_scores(self)
    }
    fn n_moves(&self) -> usize {
        Game::n_moves(self)
    }
    fn start_text(&self) -> Option<String> {
        Game::start_text(self)
    }
    fn picture(&self) -> String {
        Game::picture(self)
    }
    fn forfeit(&self, loser: Side) -> Outcome {
        Game::forfeit(self, loser)
    }
    fn hides_last_move(&self) -> bool {
        Game::hides_last_move(self)
    }
    fn legal_moves_text(&self) -> Option<Vec<String>> {
        if !G::INFO.enumerable {
            return None;
        }
        let mut moves = Vec::new();
        Game::legal_moves(self, &mut moves);
        Some(moves.iter().map(|mv| Game::format_move(self, mv)).collect())
    }
    fn play_text(&mut self, text: &str) -> Result<String, MoveError> {
        if Game::to_move(self).is_none() {
            return Err(MoveError::GameOver);
        }
        let mv = Game::parse_move(self, text)?;
        let canonical = Game::format_move(self, &mv);
        Game::play(self, &mv)?;
        Ok(canonical)
    }
    fn check_text(&self, text: &str) -> Result<String, MoveError> {
        self.clone().play_text(text)
    }
    fn position_line(&self) -> String {
        Game::position_line(self)
    }
    fn board_view(&self) -> BoardView {
        let mut view = Game::board_view(self);
        if Game::to_move(self).is_none() {
            view.input = crate::view::Input::None;
        }
        view
    }
    fn turn_note(&self) -> Option<String> {
        Game::turn_note(self)
    }
    fn move_from_people(&self, text: &str) -> Result<String, String> {
        Game::move_from_people(self, text)
    }
    fn choices(&self, partial: &str) -> Vec<String> {
        if Game::to_move(self).is_none() { Vec::new() } else { Game::choices(self, partial) }
    }
}

impl GameKind {
    /// The name used on the command line and in records.
    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// The game called `name` (its name or an alias, in any case).
    pub fn from_name(name: &str) -> Result<GameKind, SetupError> {
        GameKind::ALL
            .into_iter()
            .find(|kind| kind.info().is_called(name))
            .ok_or_else(|| SetupError::UnknownGame { name: name.to_string(), known: GameKind::ALL.map(|kind| kind.name()).join(", ") })
    }

    /// A one-line description for `arbiter games`.
    pub fn title(self) -> &'static str {
        self.info().title
    }

    /// What the two sides are called in this game, side 0 first.
    pub fn side_names(self) -> [&'static str; 2] {
        self.info().side_names
    }

    /// How a move is written, with an example, for help texts and error messages.
    pub fn notation(self) -> &'static str {
        self.info().notation
    }

    pub fn options(self) -> &'static [crate::OptionSpec] {
        self.info().options
    }

    pub fn is_enumerable(self) -> bool {
        self.info().enumerable
    }

    /// A random start position text where the game's starts vary (see
    /// [`Game::random_start`]).
    pub fn random_start<R: Rng + ?Sized>(self, options: &Options, rng: &mut R) -> Result<Option<String>, SetupError> {
        struct RandomStart<'a, R: ?Sized>(&'a Options, &'a mut R);
        impl<R: Rng + ?Sized> VisitGame for RandomStart<'_, R> {
            type Output = Result<Option<String>, SetupError>;
            fn visit<G: Registered>(self) -> Self::Output {
                options::check_names(G::INFO.name, G::INFO.options, self.0)?;
                G::random_start(self.0, self.1)
            }
        }
        self.visit(RandomStart(options, rng))
    }

    /// One candidate tournament opening ([`Game::opening_candidate`]).
    pub fn opening_candidate<R: Rng + ?Sized>(self, options: &Options, rng: &mut R) -> Result<Option<String>, SetupError> {
        struct Candidate<'a, R: ?Sized>(&'a Options, &'a mut R);
        impl<R: Rng + ?Sized> VisitGame for Candidate<'_, R> {
            type Output = Result<Option<String>, SetupError>;
            fn visit<G: Registered>(self) -> Self::Output {
                options::check_names(G::INFO.name, G::INFO.options, self.0)?;
                G::opening_candidate(self.0, self.1)
            }
        }
        self.visit(Candidate(options, rng))
    }

    /// The start position from options and an optional start text.
    pub fn new_position(self, options: &Options, start: Option<&str>) -> Result<AnyPosition, SetupError> {
        struct New<'a>(&'a Options, Option<&'a str>);
        impl VisitGame for New<'_> {
            type Output = Result<AnyPosition, SetupError>;
            fn visit<G: Registered>(self) -> Self::Output {
                options::check_names(G::INFO.name, G::INFO.options, self.0)?;
                G::new(self.0, self.1).map(G::into_any)
            }
        }
        self.visit(New(options, start))
    }

    /// The seed's limits of this game with these options ([`Game::seed_limits`]).
    pub fn seed_limits(self, options: &Options) -> LimitSet {
        struct Seed<'a>(&'a Options);
        impl VisitGame for Seed<'_> {
            type Output = LimitSet;
            fn visit<G: Registered>(self) -> LimitSet {
                G::seed_limits(self.0)
            }
        }
        self.visit(Seed(options))
    }

    /// A move as people write it ([`Game::move_for_people`]).
    pub fn move_for_people(self, text: &str) -> String {
        struct People<'a>(&'a str);
        impl VisitGame for People<'_> {
            type Output = String;
            fn visit<G: Registered>(self) -> String {
                G::move_for_people(self.0)
            }
        }
        self.visit(People(text))
    }

    /// A start text on one line ([`Game::start_line`]).
    pub fn start_line(self, text: &str) -> String {
        struct Line<'a>(&'a str);
        impl VisitGame for Line<'_> {
            type Output = String;
            fn visit<G: Registered>(self) -> String {
                G::start_line(self.0)
            }
        }
        self.visit(Line(text))
    }

    /// A start text back from its line ([`Game::start_from_line`]).
    pub fn start_from_line(self, line: &str) -> String {
        struct Text<'a>(&'a str);
        impl VisitGame for Text<'_> {
            type Output = String;
            fn visit<G: Registered>(self) -> String {
                G::start_from_line(self.0)
            }
        }
        self.visit(Text(line))
    }

    /// The start positions of an openings file in the game's book format
    /// ([`Game::read_openings`]); `None` for a game without one.
    pub fn read_openings(self, text: &str, plies: Option<usize>) -> Option<Result<Vec<String>, String>> {
        struct Book<'a>(&'a str, Option<usize>);
        impl VisitGame for Book<'_> {
            type Output = Option<Result<Vec<String>, String>>;
            fn visit<G: Registered>(self) -> Self::Output {
                G::read_openings(self.0, self.1)
            }
        }
        self.visit(Book(text, plies))
    }

    /// A position back from its one-line form ([`Game::from_position_line`]).
    pub fn from_position_line(self, options: &Options, line: &str) -> Result<AnyPosition, String> {
        struct FromLine<'a>(&'a Options, &'a str);
        impl VisitGame for FromLine<'_> {
            type Output = Result<AnyPosition, String>;
            fn visit<G: Registered>(self) -> Self::Output {
                G::from_position_line(self.0, self.1).map(G::into_any)
            }
        }
        self.visit(FromLine(options, line))
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

impl AnyPosition {
    /// The game's descriptor.
    pub fn info(&self) -> GameInfo {
        self.kind().info()
    }

    pub fn to_move(&self) -> Option<Side> {
        self.as_dyn().to_move()
    }

    pub fn outcome(&self) -> Option<Outcome> {
        self.as_dyn().outcome()
    }

    pub fn running_scores(&self) -> Option<[i64; 2]> {
        self.as_dyn().running_scores()
    }

    pub fn n_moves(&self) -> usize {
        self.as_dyn().n_moves()
    }

    pub fn start_text(&self) -> Option<String> {
        self.as_dyn().start_text()
    }

    pub fn picture(&self) -> String {
        self.as_dyn().picture()
    }

    pub fn forfeit(&self, loser: Side) -> Outcome {
        self.as_dyn().forfeit(loser)
    }

    pub fn hides_last_move(&self) -> bool {
        self.as_dyn().hides_last_move()
    }

    /// Every legal move in notation, or `None` for a game that cannot list its moves.
    pub fn legal_moves_text(&self) -> Option<Vec<String>> {
        self.as_dyn().legal_moves_text()
    }

    /// Reads, checks and plays one move given in the game's notation; returns it in the
    /// game's canonical notation.
    pub fn play_text(&mut self, text: &str) -> Result<String, MoveError> {
        self.as_dyn_mut().play_text(text)
    }

    /// Checks a move text against the position without playing it, and returns it in
    /// the game's canonical notation.
    pub fn check_text(&self, text: &str) -> Result<String, MoveError> {
        self.as_dyn().check_text(text)
    }

    /// The position on one line ([`Game::position_line`]).
    pub fn position_line(&self) -> String {
        self.as_dyn().position_line()
    }

    /// The position as plain data for drawing ([`Game::board_view`]); a finished game
    /// takes no clicks.
    pub fn board_view(&self) -> BoardView {
        self.as_dyn().board_view()
    }

    /// What the rules made of the last move ([`Game::turn_note`]).
    pub fn turn_note(&self) -> Option<String> {
        self.as_dyn().turn_note()
    }

    /// What a person may click next after `partial` ([`Game::choices`]); empty once the
    /// game is over.
    pub fn choices(&self, partial: &str) -> Vec<String> {
        self.as_dyn().choices(partial)
    }

    /// A move as a person typed it, in the notation ([`Game::move_from_people`]).
    pub fn move_from_people(&self, text: &str) -> Result<String, String> {
        self.as_dyn().move_from_people(text)
    }

    /// A random legal move in notation, `None` when the game is over.
    pub fn random_move_text<R: Rng + ?Sized>(&self, rng: &mut R) -> Option<String> {
        struct RandomMove<'a, R: ?Sized>(&'a mut R);
        impl<R: Rng + ?Sized> Visit for RandomMove<'_, R> {
            type Output = Option<String>;
            fn visit<G: Registered>(self, pos: &G) -> Option<String> {
                pos.random_move(self.0).map(|mv| pos.format_move(&mv))
            }
        }
        self.visit(RandomMove(rng))
    }

    pub fn random_playout<R: Rng + ?Sized>(&mut self, rng: &mut R) -> Outcome {
        struct Playout<'a, R: ?Sized>(&'a mut R);
        impl<R: Rng + ?Sized> VisitMut for Playout<'_, R> {
            type Output = Outcome;
            fn visit_mut<G: Registered>(self, pos: &mut G) -> Outcome {
                pos.random_playout(self.0)
            }
        }
        self.visit_mut(Playout(rng))
    }
}
