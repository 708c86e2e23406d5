//! The Pah-tum interface (seed 003, `docs/bots.md`, "pahtum") as a codec: the board, 56
//! characters, on stdin (the rules' [`pahtum::format_board`]); the same board with one
//! `-` turned into the bot's letter on stdout. No self-description.
//!
//! Text that is not a board (not exactly 56 characters of board text) is a protocol
//! error; a board that is not one legal move away from the input is an illegal move.

use rules::{MoveError, pahtum};

use crate::per_move::{Blame, PerMove, Refusal};
use crate::quote;

/// The Pah-tum codec.
pub struct Codec;

/// Why a Pah-tum answer was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    #[error("the answer is not text: {0}")]
    NotText(String),
    #[error("the answer {quoted} is not a board: {reason}")]
    NotABoard { quoted: String, reason: String },
    /// A board, but not one legal move away from the input: an illegal move.
    #[error(transparent)]
    Refused(MoveError),
}

impl Refusal for Error {
    fn blame(&self) -> Blame {
        match self {
            Error::Refused(_) => Blame::IllegalMove,
            _ => Blame::ProtocolError,
        }
    }
}

impl PerMove for Codec {
    type Game = pahtum::Position;
    type Error = Error;

    fn request(pos: &pahtum::Position) -> Result<String, Error> {
        Ok(pahtum::format_board(pos))
    }

    fn answer(pos: &pahtum::Position, stdout: &[u8]) -> Result<pahtum::Move, Error> {
        let Ok(text) = std::str::from_utf8(stdout) else {
            return Err(Error::NotText(quote(stdout)));
        };
        match pahtum::move_from_answer(pos, text) {
            Ok(mv) => Ok(mv),
            Err(MoveError::Parse { reason, .. }) => Err(Error::NotABoard { quoted: quote(stdout), reason }),
            Err(err) => Err(Error::Refused(err)),
        }
    }
}

#[cfg(test)]
mod tests {
    use rules::Game;

    use super::*;

    /// `docs/bots.md`'s example: `O` to move (one `X` on the board).
    const GUIDE_INPUT: &str = "-------\n------+\n---+---\n-------\n--++---\n--X----\n+------\n";
    /// The guide's answer: `O` on D4.
    const GUIDE_ANSWER: &str = "-------\n------+\n---+---\n---O---\n--++---\n--X----\n+------\n";

    fn guide_position() -> pahtum::Position {
        pahtum::Position::from_board(GUIDE_INPUT).expect("the guide's board")
    }

    #[test]
    fn the_request_is_the_board() {
        let pos = guide_position();
        assert_eq!(Codec::request(&pos).unwrap(), GUIDE_INPUT);
        assert_eq!(Codec::request(&pos).unwrap().len(), 56);
    }

    /// Each answer, and the move's text or the error's blame and the start of its message.
    #[test]
    fn answers() {
        let pos = guide_position();
        let two = GUIDE_ANSWER.replacen('-', "O", 1);
        let unchanged = GUIDE_INPUT.to_string();
        let x_played = GUIDE_INPUT.replacen("---\n-------\n--++", "---\n---X---\n--++", 1);
        for (output, want) in [
            (GUIDE_ANSWER.as_bytes(), Ok("d4")),
            (GUIDE_ANSWER.trim_end().as_bytes(), Err((Blame::ProtocolError, "the answer \"-------\\n------+\\n"))),
            (&GUIDE_ANSWER.replace('\n', "\r\n").into_bytes()[..], Err((Blame::ProtocolError, "the answer \"-------\\r\\n"))),
            (b"hello", Err((Blame::ProtocolError, "the answer \"hello\" is not a board: "))),
            (b"", Err((Blame::ProtocolError, "the answer \"\" is not a board: "))),
            (b"\xff\xfe", Err((Blame::ProtocolError, "the answer is not text: \"\u{fffd}\u{fffd}\""))),
            (unchanged.as_bytes(), Err((Blame::IllegalMove, "illegal move"))),
            (two.as_bytes(), Err((Blame::IllegalMove, "illegal move"))),
            (x_played.as_bytes(), Err((Blame::IllegalMove, "illegal move"))),
        ] {
            match (Codec::answer(&pos, output), want) {
                (Ok(mv), Ok(text)) => assert_eq!(pos.format_move(&mv).to_lowercase(), text, "{output:?}"),
                (Err(err), Err((blame, message))) => {
                    assert_eq!(err.blame(), blame, "{output:?}");
                    assert!(err.to_string().starts_with(message), "{output:?}: {err}");
                }
                (got, want) => panic!("{:?}: got {got:?}, want {want:?}", String::from_utf8_lossy(output)),
            }
        }
    }
}
