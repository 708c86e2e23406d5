//! The interfaces with a process per move (Legions, Pah-tum, Nupud) as codecs: what a
//! bot reads on stdin for its turn, what its stdout means (a move, or why it is refused),
//! and, where the interface has one, its name answer. Pure: the driver in `bots` runs
//! the process and charges its time; everything said here is tested from strings.

use rules::{Game, Registered};

/// What a refused answer counts as in the record.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Blame {
    /// The bot broke its interface (text that is not an answer of the right shape).
    ProtocolError,
    /// A well-formed answer the rules refuse.
    IllegalMove,
}

/// Why a request could not be made or an answer was refused; its message is the fault's
/// detail, as a person reads it.
pub trait Refusal: std::error::Error + Send + Sync + 'static {
    fn blame(&self) -> Blame;
}

/// One per-move interface: the stdin of a turn and the move its stdout gives.
pub trait PerMove: Send + 'static {
    /// The game the interface plays.
    type Game: Registered;
    type Error: Refusal;

    /// What the bot reads on stdin for its turn in `pos`.
    fn request(pos: &Self::Game) -> Result<String, Self::Error>;

    /// The move the bot's stdout gives in `pos` (not yet checked by the rules where the
    /// interface leaves that to the referee).
    fn answer(pos: &Self::Game, stdout: &[u8]) -> Result<<Self::Game as Game>::Move, Self::Error>;
}

/// A per-move interface whose bot, run with empty stdin, prints its name.
pub trait Named: PerMove {
    /// Why a name answer is refused (always a protocol error).
    type NameError: std::error::Error + Send + Sync + 'static;

    /// The name the bot's stdout gives.
    fn name(stdout: &[u8]) -> Result<String, Self::NameError>;
}
