//! The Nupud interface (seed 004, `docs/bots.md`, "nupud") as a codec: a set-up call
//! (`place white` / `place black` on stdin, six digits on stdout, e.g. `143211`) or a
//! move call (`move white` / `move black` and the 6 board lines, one move on stdout,
//! e.g. `c1c3`); empty stdin asks for the name. The stdin texts are the rules'
//! ([`nupud::format_setup_input`], [`nupud::format_move_input`]).
//!
//! The set-up stays hidden: a set-up call gets nothing but its own `place` line, so
//! Black's arrangement cannot depend on White's.
//!
//! An answer that is not one line of the expected shape (not six digits in a set-up
//! call; not two squares, or a set-up, in a move call) is a protocol error; six digits
//! that are not a permutation of 432111 are an illegal move; a well-formed step is left
//! for the referee to check.

use rules::{Game, MoveError, Side, nupud};

use crate::names;
use crate::per_move::{Blame, Named, PerMove, Refusal};
use crate::quote;

/// The Nupud codec.
pub struct Codec;

/// Why a Nupud call could not be made, or its answer was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    #[error("asked for a move after the end")]
    AfterEnd,
    #[error("the set-up answer is not text: {0}")]
    SetupNotText(String),
    #[error("the set-up answer {0} is not one line of six digits")]
    SetupShape(String),
    /// Six digits that are not a permutation of 432111: an illegal move.
    #[error(transparent)]
    SetupValues(nupud::NativeError),
    #[error("the answer is not text: {0}")]
    NotText(String),
    #[error("no move in the answer")]
    NoMove,
    #[error("the answer {0} has more than one line")]
    MoreLines(String),
    #[error("the answer {0} is a set-up, not a move like c1c3")]
    SetupInMove(String),
    #[error("the answer {quoted} is not a move: {reason}")]
    NotAMove { quoted: String, reason: String },
    #[error("the name answer {0} is not one line of 1 to 16 characters")]
    Name(String),
}

impl Refusal for Error {
    fn blame(&self) -> Blame {
        match self {
            Error::SetupValues(_) => Blame::IllegalMove,
            _ => Blame::ProtocolError,
        }
    }
}

impl PerMove for Codec {
    type Game = nupud::Position;
    type Error = Error;

    fn request(pos: &nupud::Position) -> Result<String, Error> {
        let side: Side = pos.to_move().ok_or(Error::AfterEnd)?;
        Ok(if pos.is_setup_phase() { nupud::format_setup_input(side) } else { nupud::format_move_input(pos, side) })
    }

    fn answer(pos: &nupud::Position, stdout: &[u8]) -> Result<nupud::Move, Error> {
        if pos.is_setup_phase() { read_setup(stdout) } else { read_move(pos, stdout) }
    }
}

impl Named for Codec {
    type NameError = Error;

    fn name(stdout: &[u8]) -> Result<String, Error> {
        names::nupud_name(&String::from_utf8_lossy(stdout)).map_err(|_| Error::Name(quote(stdout)))
    }
}

/// The set-up a bot's answer to `place ...` gives.
fn read_setup(output: &[u8]) -> Result<nupud::Move, Error> {
    let Ok(text) = std::str::from_utf8(output) else {
        return Err(Error::SetupNotText(quote(output)));
    };
    match nupud::parse_setup(text) {
        Ok(setup) => Ok(nupud::Move::Setup(setup)),
        Err(err @ nupud::NativeError::SetupValues(_)) => Err(Error::SetupValues(err)),
        Err(_) => Err(Error::SetupShape(quote(output))),
    }
}

/// The move a bot's answer to `move ...` gives; its legality is left to the referee,
/// which refuses an illegal one as an illegal move.
fn read_move(pos: &nupud::Position, output: &[u8]) -> Result<nupud::Move, Error> {
    let Ok(text) = std::str::from_utf8(output) else {
        return Err(Error::NotText(quote(output)));
    };
    let line = text.trim();
    if line.is_empty() {
        return Err(Error::NoMove);
    }
    if line.contains('\n') {
        return Err(Error::MoreLines(quote(output)));
    }
    match pos.parse_move(line) {
        Ok(mv @ nupud::Move::Step { .. }) => Ok(mv),
        // Six digits read as a set-up (legal or not): not what a move call asks for.
        Ok(nupud::Move::Setup(_)) | Err(MoveError::Illegal { .. }) => Err(Error::SetupInMove(quote(output))),
        Err(MoveError::Parse { reason, .. }) => Err(Error::NotAMove { quoted: quote(output), reason }),
        Err(err) => Err(Error::NotAMove { quoted: quote(output), reason: err.to_string() }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setups(white: [u8; 6], black: [u8; 6]) -> nupud::Position {
        nupud::Position::from_setups(nupud::Setup::new(white).unwrap(), nupud::Setup::new(black).unwrap())
    }

    #[test]
    fn requests_as_the_guide_writes_them() {
        let mut pos = nupud::Position::new_game();
        assert_eq!(Codec::request(&pos).unwrap(), "place white\n");
        pos.play(&pos.parse_move("143211").unwrap()).unwrap();
        // Black's call shows nothing of White's set-up.
        assert_eq!(Codec::request(&pos).unwrap(), "place black\n");
        // `docs/bots.md`'s example: White to move after 432111 and 111234.
        let play = setups([4, 3, 2, 1, 1, 1], [1, 1, 1, 2, 3, 4]);
        let want = "move white\nB1 B1 B1 B2 B3 B4\n. . . . . .\n. . . . . .\n. . . . . .\n. . . . . .\nW4 W3 W2 W1 W1 W1\n";
        assert_eq!(Codec::request(&play).unwrap(), want);
    }

    /// Each answer, to a set-up call or to a move call, and the move's text or the
    /// error's blame and the start of its message.
    #[test]
    fn answers() {
        let setup = nupud::Position::new_game();
        let play = setups([4, 3, 2, 1, 1, 1], [1, 1, 1, 2, 3, 4]);
        for (pos, output, want) in [
            (&setup, &b"143211\n"[..], Ok("143211")),
            (&setup, b" 432111 \r\n", Ok("432111")),
            (&setup, b"443211\n", Err((Blame::IllegalMove, "a set-up must use the values 4, 3, 2, 1, 1, 1 once each, got 443211"))),
            (&setup, b"c1c3\n", Err((Blame::ProtocolError, "the set-up answer \"c1c3\\n\" is not one line of six digits"))),
            (
                &setup,
                b"143211\n143211\n",
                Err((Blame::ProtocolError, "the set-up answer \"143211\\n143211\\n\" is not one line of six digits")),
            ),
            (&setup, b"", Err((Blame::ProtocolError, "the set-up answer \"\" is not one line of six digits"))),
            (&setup, b"14321\xff", Err((Blame::ProtocolError, "the set-up answer is not text: \"14321\u{fffd}\""))),
            (&play, b"c1c3\n", Ok("c1c3")),
            (&play, b" C1-C3 \r\n", Ok("c1c3")),
            // Well-formed: the referee judges it (and refuses it as an illegal move).
            (&play, b"c1c6\n", Ok("c1c6")),
            (&play, b"hello\n", Err((Blame::ProtocolError, "the answer \"hello\\n\" is not a move: "))),
            (&play, b"", Err((Blame::ProtocolError, "no move in the answer"))),
            (&play, b" \n", Err((Blame::ProtocolError, "no move in the answer"))),
            (&play, b"c1c3\nc1c2\n", Err((Blame::ProtocolError, "the answer \"c1c3\\nc1c2\\n\" has more than one line"))),
            (&play, b"432111\n", Err((Blame::ProtocolError, "the answer \"432111\\n\" is a set-up, not a move like c1c3"))),
            (&play, b"444444\n", Err((Blame::ProtocolError, "the answer \"444444\\n\" is a set-up, not a move like c1c3"))),
            (&play, b"c1\xffc3", Err((Blame::ProtocolError, "the answer is not text: \"c1\u{fffd}c3\""))),
        ] {
            check(pos, output, want);
        }
    }

    /// The answer's move text, or its error's blame and a prefix of its message.
    fn check(pos: &nupud::Position, output: &[u8], want: Result<&str, (Blame, &str)>) {
        match (Codec::answer(pos, output), want) {
            (Ok(mv), Ok(text)) => assert_eq!(pos.format_move(&mv), text, "{output:?}"),
            (Err(err), Err((blame, message))) => {
                assert_eq!(err.blame(), blame, "{output:?}");
                assert!(err.to_string().starts_with(message), "{output:?}: {err}");
            }
            (got, want) => panic!("{output:?}: got {got:?}, want {want:?}"),
        }
    }

    #[test]
    fn after_the_end_there_is_no_call() {
        let mut pos = setups([4, 3, 2, 1, 1, 1], [1, 1, 1, 2, 3, 4]);
        let mut moves = Vec::new();
        while pos.to_move().is_some() {
            moves.clear();
            pos.legal_moves(&mut moves);
            pos.play(&moves[0]).unwrap();
        }
        assert_eq!(Codec::request(&pos), Err(Error::AfterEnd));
        assert_eq!(Error::AfterEnd.to_string(), "asked for a move after the end");
    }

    #[test]
    fn name_answers() {
        for (output, want) in [
            (&b"Mari\n"[..], Ok("Mari")),
            ("Õunapuu-Üllar\r\n".as_bytes(), Ok("Õunapuu-Üllar")),
            (b"0123456789abcdefg\n", Err("the name answer \"0123456789abcdefg\\n\" is not one line of 1 to 16 characters")),
            (b"\n", Err("the name answer \"\\n\" is not one line of 1 to 16 characters")),
            (b"two\nlines\n", Err("the name answer \"two\\nlines\\n\" is not one line of 1 to 16 characters")),
        ] {
            assert_eq!(Codec::name(output).map_err(|err| err.to_string()), want.map(str::to_string).map_err(str::to_string));
        }
    }
}
