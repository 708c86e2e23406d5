//! Pah-tum's players: `greedy` weighs its score lead after the opponent's best reply
//! (every move adds to one's own runs, so the lead after one's own move says little),
//! and `medium`'s tree search runs more playouts, which are fast here.

use rules::pahtum::Position;

use crate::{Rung, Tuning, Yardstick};

/// `medium`'s playouts in Pah-tum, where they are fast and where `greedy` weighs the
/// opponent's reply: 500 ([`crate::MEDIUM_NODES`]) scored 71% against it, 2,000 scored 99%
/// (`docs/players.md`).
pub const MEDIUM_PLAYOUTS: u64 = 2_000;

impl Tuning for Position {
    const YARDSTICK: Yardstick = Yardstick::LeadAfterReply;

    fn default_nodes(rung: Rung) -> Option<u64> {
        if rung == Rung::Medium { Some(MEDIUM_PLAYOUTS) } else { rung.default_nodes() }
    }
}
