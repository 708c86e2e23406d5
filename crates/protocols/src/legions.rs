//! The Legions interface (seed 001, `docs/bots.md`, "legions") as a codec: the map on
//! stdin (player line, n, the two cities, n TAB-separated map lines, the rules'
//! [`legions::format_input`]), orders `X Y C` on stdout; empty stdin asks for the name.
//!
//! Any output is a turn: bad orders are rules, not faults (the rules skip or desert
//! them), so an answer is never refused. What is kept of it is bounded: skipped orders
//! past the first [`MAX_SKIPPED_KEPT`] are dropped and long unreadable pieces cut, which
//! changes nothing the turn does.

use rules::legions::{self, Order, Position};
use rules::{Game, Side};

use crate::names::{self, NameError};
use crate::per_move::{Blame, Named, PerMove, Refusal};
use crate::quote;

/// Skipped orders (unreadable, count below 1, over the budget) kept per turn: they do
/// nothing, so past this many they are dropped rather than bloat the record.
pub const MAX_SKIPPED_KEPT: usize = 20;
/// Characters of an unreadable order kept in the record.
pub const MAX_UNREADABLE_CHARS: usize = 40;

/// The Legions codec.
pub struct Codec;

/// Why a Legions turn could not be asked for, or a name answer was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    #[error("asked for a turn after the end")]
    AfterEnd,
    #[error("the name answer {quoted} is refused: {reason}")]
    Name { quoted: String, reason: NameError },
}

impl Refusal for Error {
    fn blame(&self) -> Blame {
        Blame::ProtocolError
    }
}

impl PerMove for Codec {
    type Game = Position;
    type Error = Error;

    fn request(pos: &Position) -> Result<String, Error> {
        let side: Side = pos.to_move().ok_or(Error::AfterEnd)?;
        Ok(legions::format_input(pos, side))
    }

    fn answer(_pos: &Position, stdout: &[u8]) -> Result<legions::Move, Error> {
        Ok(read_orders(stdout))
    }
}

impl Named for Codec {
    type NameError = Error;

    fn name(stdout: &[u8]) -> Result<String, Error> {
        names::legions_name(&String::from_utf8_lossy(stdout)).map_err(|reason| Error::Name { quoted: quote(stdout), reason })
    }
}

/// The turn a bot's output gives: text that is not orders stays in it as unreadable
/// orders, which the rules skip; skipped orders (they use no legions) past the first
/// [`MAX_SKIPPED_KEPT`] are dropped, and long unreadable pieces shortened (ending in `…`,
/// so they stay unreadable).
fn read_orders(output: &[u8]) -> legions::Move {
    let text = String::from_utf8_lossy(output);
    let mut left = legions::LEGIONS_PER_TURN;
    let mut skipped = 0;
    let mut kept = Vec::new();
    for order in legions::parse_orders(&text).orders {
        match order {
            Order::Send { c, .. } if (1..=left).contains(&c) => left -= c,
            _ => {
                skipped += 1;
                if skipped > MAX_SKIPPED_KEPT {
                    continue;
                }
            }
        }
        kept.push(match order {
            Order::Unreadable(piece) if piece.chars().count() > MAX_UNREADABLE_CHARS => {
                Order::Unreadable(piece.chars().take(MAX_UNREADABLE_CHARS).chain(['…']).collect())
            }
            order => order,
        });
    }
    legions::Move::new(kept)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The guide's example (`docs/bots.md`, "legions"): player 1 on a 7×7 board.
    const GUIDE_INPUT: &str = "1\n7\n0 0\n6 6\n\
        N0\tN0\t.\t.\t.\t.\t.\n\
        .\tN0\t.\t.\t.\t.\t.\n\
        .\tN0\t.\t.\t.\t.\t.\n\
        .\tN0\tN0\tN0\tv1\t.\t.\n\
        .\t.\tN0\t.\tv1\t.\t.\n\
        .\t.\tN0\tN0\tV0\t.\t.\n\
        .\t.\t.\t.\tN1\tN1\tN1\n";

    fn guide_position() -> Position {
        let input = legions::parse_input(GUIDE_INPUT).expect("the guide's input reads");
        Position::from_input(&input, false).expect("the guide's position is one")
    }

    #[test]
    fn requests_are_the_map_as_the_guide_writes_it() {
        assert_eq!(Codec::request(&guide_position()).unwrap(), GUIDE_INPUT);
        // A new 5×5 game, player 0 to move: the cities hold one novice each.
        let options = rules::Options::from([("size".to_string(), "5".to_string())]);
        let new = Position::new(&options, None).unwrap();
        let want = "0\n5\n0 0\n4 4\nN0\t.\t.\t.\t.\n.\t.\t.\t.\t.\n.\t.\t.\t.\t.\n.\t.\t.\t.\t.\n.\t.\t.\t.\tN1\n";
        assert_eq!(Codec::request(&new).unwrap(), want);
    }

    /// The turn as the record writes it.
    fn turn(output: &[u8]) -> String {
        legions::format_orders(&Codec::answer(&guide_position(), output).expect("any output is a turn"), "; ")
    }

    #[test]
    fn any_output_is_a_turn() {
        for (output, want) in [
            (&b"3 6 1\n3 5 2\n2 5 2\n"[..], "3 6 1; 3 5 2; 2 5 2"),
            (b"3 6 1\r\n3 5 2 2 5 2", "3 6 1; 3 5 2; 2 5 2"),
            (b"3 6 1; 3 5 2", "3 6 1; 3 5 2"),
            (b"", ""),
            (b"\n\n", ""),
            (b"hello world\n1 1 9\n0 1 1", "hello world; 1 1 9; 0 1 1"),
            (b"1 2\n", "1 2"),
            (b"\xff\xfe\n", "\u{fffd}\u{fffd}"),
        ] {
            assert_eq!(turn(output), want, "{:?}", String::from_utf8_lossy(output));
        }
    }

    #[test]
    fn long_garbage_is_bounded_and_stays_unreadable() {
        let mut output = "x\n".repeat(100);
        output.push_str("0 1 2\n");
        output.push_str(&format!("1 2 3{}\n", " 4".repeat(50)));
        let mv = legions::parse_orders(&turn(output.as_bytes()));
        assert_eq!(mv.orders.len(), MAX_SKIPPED_KEPT + 1);
        assert!(mv.orders.contains(&Order::Send { x: 0, y: 1, c: 2 }));
        let short = turn(format!("1 2 3{}", " 4".repeat(50)).as_bytes());
        assert!(short.ends_with('…') && short.chars().count() == MAX_UNREADABLE_CHARS + 1);
        assert!(matches!(legions::parse_orders(&short).orders[..], [Order::Unreadable(_)]));
    }

    #[test]
    fn name_answers() {
        for (output, want) in [
            (&b"Legionnaire\n"[..], Ok("Legionnaire")),
            (b"  Caesar \r\n", Ok("Caesar")),
            (
                b"SeventeenCharsLng\n",
                Err("the name answer \"SeventeenCharsLng\\n\" is refused: the name \"SeventeenCharsLng\" is longer than 16 characters"),
            ),
            (b"", Err("the name answer \"\" is refused: the name is empty")),
            (b"a\nb\n", Err("the name answer \"a\\nb\\n\" is refused: the name answer has more than one line")),
        ] {
            assert_eq!(Codec::name(output).map_err(|err| err.to_string()), want.map(str::to_string).map_err(str::to_string));
        }
    }
}
