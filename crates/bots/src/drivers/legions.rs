//! The Legions interface (seed 001): one process per move; the map on stdin (player
//! line, n, the two cities, n TAB-separated map lines), orders `X Y C` on stdout; empty
//! stdin asks for the bot's name. 2 s per move by default, from process start to exit.
//!
//! Faults follow the rules of `docs/games.md`: bad orders are rules, not faults (the
//! rules skip or desert them and the record notes it), so whatever a bot prints is a
//! turn. Only a timeout (`Timeout`) or an abnormal exit (`Crash`: a non-zero status or
//! a signal) loses, scored by the rules as a taken city. One guard of ours comes on
//! top: an answer over jail's output cap (1 MiB) is a `ProtocolError` and loses too.

use std::path::Path;

use rules::legions::{self, Order};
use rules::{Game, Outcome, Registered};

use super::{DESCRIBE_TIME, Driver, Identity, Launcher, command, quote, run_once};
use crate::{BoxFuture, Fault, FaultKind, ProgramBot, RefereeError, Reply, SeatContext, StartError, TurnClock, TurnRequest};

/// Skipped orders (unreadable, count below 1, over the budget) kept per turn: they do
/// nothing, so past this many they are dropped rather than bloat the record.
const MAX_SKIPPED_KEPT: usize = 20;
/// Characters of an unreadable order kept in the record.
const MAX_UNREADABLE_CHARS: usize = 40;

pub struct Bot {
    launcher: Launcher,
}

impl Bot {
    pub async fn open(bot: &ProgramBot, ctx: &SeatContext) -> Result<Bot, StartError> {
        Ok(Bot { launcher: Launcher::open(bot, ctx, &[]).await? })
    }

    async fn play_turn(&mut self, req: &TurnRequest<'_, legions::Position>) -> Result<Reply<legions::Move>, RefereeError> {
        let pos = req.pos;
        let Some(side) = pos.to_move() else {
            return Ok(Reply::fault(FaultKind::ProtocolError, "asked for a turn after the end", Default::default(), Default::default()));
        };
        let once = self.launcher.run_once(legions::format_input(pos, side).as_bytes(), &req.clock).await?;
        let answer = match &once.output {
            Err(fault) => Err(fault.clone()),
            Ok(output) => Ok(read_orders(output)),
        };
        Ok(once.reply(answer))
    }
}

impl Driver<legions::Position> for Bot {
    fn turn<'a>(&'a mut self, req: &'a TurnRequest<'a, legions::Position>) -> BoxFuture<'a, Result<Reply<legions::Move>, RefereeError>> {
        Box::pin(self.play_turn(req))
    }

    fn finish<'a>(&'a mut self, _outcome: &'a Outcome) -> BoxFuture<'a, ()> {
        Box::pin(self.launcher.finish())
    }
}

/// The turn a bot's output gives. Any output is a turn: text that is not orders stays in it as unreadable orders, which the rules
/// skip. Skipped orders (they use no legions) past the first [`MAX_SKIPPED_KEPT`] are
/// dropped, and long unreadable pieces shortened (ending in `…`, so they stay
/// unreadable): neither changes what the turn does.
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

/// The bot's name: it is run with empty stdin and prints one line of at most 16
/// characters.
pub async fn describe(bot: &ProgramBot, workdir: &Path, sandboxed: bool) -> Result<Option<Identity>, StartError> {
    let mut limits = crate::Limits::for_kind(legions::Position::KIND).with(&bot.manifest.limits);
    limits.sandboxed = sandboxed;
    let cmd = command(bot, workdir, &limits, &[]);
    let clock = TurnClock { move_time: Some(DESCRIBE_TIME), ..TurnClock::default() };
    let once = run_once(&cmd, b"", &clock).await?;
    let stderr = once.stderr.clone();
    let output = once.into_output()?;
    let text = String::from_utf8_lossy(&output);
    match protocols::names::legions_name(&text) {
        Ok(name) => Ok(Some(Identity { name, author: None, details: Vec::new() })),
        Err(err) => {
            let fault = Fault::new(FaultKind::ProtocolError, format!("the name answer {} is refused: {err}", quote(&output)));
            Err(StartError::Bot { fault, stderr })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The turn as the record writes it.
    fn read_orders(output: &[u8]) -> String {
        legions::format_orders(&super::read_orders(output), "; ")
    }

    #[test]
    fn any_output_is_a_turn() {
        assert_eq!(read_orders(b"3 6 1\n3 5 2\r\n2 5 2\n"), "3 6 1; 3 5 2; 2 5 2");
        assert_eq!(read_orders(b""), "");
        assert_eq!(read_orders(b"hello world\n1 1 9\n0 1 1"), "hello world; 1 1 9; 0 1 1");
        assert_eq!(read_orders(b"\xff\xfe\n"), "\u{fffd}\u{fffd}");
    }

    #[test]
    fn long_garbage_is_bounded_and_stays_unreadable() {
        let mut output = "x\n".repeat(100);
        output.push_str("0 1 2\n");
        output.push_str(&format!("1 2 3{}\n", " 4".repeat(50)));
        let text = read_orders(output.as_bytes());
        let mv = legions::parse_orders(&text);
        assert_eq!(mv.orders.len(), MAX_SKIPPED_KEPT + 1);
        assert!(mv.orders.contains(&Order::Send { x: 0, y: 1, c: 2 }));
        let short = read_orders(format!("1 2 3{}", " 4".repeat(50)).as_bytes());
        assert!(short.ends_with('…') && short.chars().count() == MAX_UNREADABLE_CHARS + 1);
        assert!(matches!(legions::parse_orders(&short).orders[..], [Order::Unreadable(_)]));
    }
}
