//! The Gomoku console interface (seed 000, `docs/bots.md`) as messages: what a bot prints
//! ([`Request`]) and the manager's answers ([`field_answer`], [`figure_answer`],
//! [`step_answer`]). The bot drives the dialogue: it asks `field?`, `figure?` and
//! `step?` in any order, as often as it likes, and ends its turn with `step! B7`.
//!
//! Decisions where the seed is silent: a message may carry surrounding spaces or tabs
//! (ignored); keywords are case-sensitive; `step!` may be followed by the move with or
//! without spaces in between; an empty line is not a message.

use rules::Side;
use rules::gomoku::{self, Position};

/// A line the bot printed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request {
    /// `field?`: asks for the 10 field lines.
    Field,
    /// `figure?`: asks for its mark.
    Figure,
    /// `step?`: asks for the opponent's last move.
    Step,
    /// `step! B7`: the bot's move, as written (trimmed, not yet checked).
    Move(String),
    /// Anything else: a protocol error.
    Unknown(String),
}

impl Request {
    /// Reads one line (without its line end).
    pub fn parse(line: &str) -> Request {
        let text = line.trim_matches([' ', '\t']);
        match text {
            "field?" => Request::Field,
            "figure?" => Request::Figure,
            "step?" => Request::Step,
            _ => match text.strip_prefix("step!") {
                Some(mv) => Request::Move(mv.trim_matches([' ', '\t']).to_string()),
                None => Request::Unknown(line.to_string()),
            },
        }
    }

    /// The line a bot prints for this message, with its line end.
    pub fn format(&self) -> String {
        match self {
            Request::Field => "field?\n".to_string(),
            Request::Figure => "figure?\n".to_string(),
            Request::Step => "step?\n".to_string(),
            Request::Move(mv) => format!("step! {mv}\n"),
            Request::Unknown(line) => format!("{line}\n"),
        }
    }
}

/// The answer to `field?`: the 10 field lines, each ended by `\n`.
pub fn field_answer(pos: &Position) -> String {
    pos.field_text()
}

/// The answer to `figure?`: `X` or `0` and a line end.
pub fn figure_answer(side: Side) -> String {
    format!("{}\n", gomoku::mark_char(side))
}

/// The answer to `step?`: the opponent's last move, or `--` when it has not moved yet in
/// this game, and a line end.
pub fn step_answer(last_move: Option<&str>) -> String {
    format!("{}\n", last_move.unwrap_or("--"))
}

/// True when `text` has the shape of a move, a letter and then digits (`B7`, `k3`,
/// `A10`), on the board or not. Both Gomoku interfaces use it to tell a wrong move (an
/// illegal move: off the board, occupied) from an answer that is no move at all (a
/// protocol error).
pub fn is_move_shaped(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic()) && !chars.as_str().is_empty() && chars.all(|c| c.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_four_messages() {
        assert_eq!(Request::parse("field?"), Request::Field);
        assert_eq!(Request::parse("figure?"), Request::Figure);
        assert_eq!(Request::parse(" step?\t"), Request::Step);
        assert_eq!(Request::parse("step! B7"), Request::Move("B7".to_string()));
        assert_eq!(Request::parse("step!B7 "), Request::Move("B7".to_string()));
        assert_eq!(Request::parse("step!"), Request::Move(String::new()));
    }

    #[test]
    fn anything_else_is_unknown() {
        for line in ["", "FIELD?", "field", "hello", "step? B7", "B7"] {
            assert_eq!(Request::parse(line), Request::Unknown(line.to_string()), "{line:?}");
        }
    }

    #[test]
    fn format_then_parse() {
        for request in [Request::Field, Request::Figure, Request::Step, Request::Move("J9".to_string())] {
            let line = request.format();
            assert_eq!(Request::parse(line.strip_suffix('\n').unwrap()), request);
        }
    }

    #[test]
    fn answers() {
        let mut pos = Position::empty();
        assert_eq!(field_answer(&pos), "..........\n".repeat(10));
        rules::Game::play(&mut pos, &gomoku::Move::parse("B1").unwrap()).unwrap();
        let field = field_answer(&pos);
        assert_eq!(field.lines().nth(1), Some(".X........"));
        assert_eq!(figure_answer(Side::First), "X\n");
        assert_eq!(figure_answer(Side::Second), "0\n");
        assert_eq!(step_answer(None), "--\n");
        assert_eq!(step_answer(Some("B1")), "B1\n");
    }

    #[test]
    fn move_shapes() {
        for text in ["B7", "b7", "K3", "A10"] {
            assert!(is_move_shaped(text), "{text}");
        }
        for text in ["", "B", "7", "BB7", "B7 C8", "--", "B-1", "é7"] {
            assert!(!is_move_shaped(text), "{text}");
        }
    }
}
