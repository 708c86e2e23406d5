//! Tournaments without I/O: configs, formats as schedules fed by finished results,
//! scoring, tie-breaks, standings and ratings. Everything here is a pure function of the
//! config and the results so far, so that a tournament resumes from its database alone.

pub mod config;
pub mod ladder;
pub mod openings;
pub mod progress;
pub mod ratings;
pub mod schedule;
pub mod scoring;
pub mod standings;

use serde::{Deserialize, Serialize};

pub use config::{ConfigError, StageConfig, TournamentConfig};

/// An entrant's index in the tournament's entrant list (the config's order).
pub type EntrantId = usize;

/// One entrant of a tournament.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entrant {
    pub id: EntrantId,
    /// Unique within the tournament.
    pub name: String,
    /// How the bot is named: `random`, `greedy`, or a manifest path or folder.
    pub bot: String,
    /// When the bot was submitted, as sortable text (RFC 3339 or any text that sorts in
    /// time order); the earlier submission wins the last tie-break. Absent: the entrant's
    /// position in the config counts instead.
    pub submitted: Option<String>,
}

/// One game a schedule asks for.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct GameSpec {
    /// Unique within the tournament and stable across runs: the resume key.
    pub key: String,
    pub stage: usize,
    /// The round within the stage (formats that pair by results play round after round).
    pub round: u32,
    /// The games of one match share this key (a match is scored as a whole by some
    /// scorings, and colour-swapped pairs are counted as pairs by the ratings).
    pub match_key: String,
    /// Side 0 (moves first), side 1.
    pub players: [EntrantId; 2],
    /// Index into the stage's openings; `None` is the game's default start.
    pub opening: Option<usize>,
    /// The game's seed, derived from the tournament seed and the key.
    pub seed: u64,
}

/// What a finished game contributes to standings and schedules.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameOutcome {
    pub spec: GameSpec,
    /// The winning side (0 or 1), `None` for a draw.
    pub winner: Option<usize>,
    /// Final scores of side 0 and side 1, for games that have them.
    pub scores: Option<[i64; 2]>,
    /// The side at fault and the kind of fault (`timeout`, `illegal-move`, `crash`,
    /// `protocol-error`), when the game ended by a fault.
    pub fault: Option<(usize, String)>,
    /// Moves made by side 0 and side 1.
    pub moves: [u32; 2],
    /// Thinking time of side 0 and side 1, milliseconds.
    pub time_ms: [u64; 2],
}

impl GameOutcome {
    /// The entrant who won, `None` for a draw.
    pub fn winner_id(&self) -> Option<EntrantId> {
        self.winner.map(|side| self.spec.players[side])
    }

    /// This entrant's side in the game, if it played.
    pub fn side_of(&self, id: EntrantId) -> Option<usize> {
        self.spec.players.iter().position(|&p| p == id)
    }
}

/// A seed for one part of a tournament, from the tournament's seed and a text key
/// (FNV-1a of the key, mixed with SplitMix64): stable across runs and platforms.
pub fn derive_seed(seed: u64, key: &str) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in key.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    let mut z = seed ^ hash;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    #[test]
    fn seeds_are_stable() {
        assert_eq!(super::derive_seed(1, "s0/m0/g0"), super::derive_seed(1, "s0/m0/g0"));
        assert_ne!(super::derive_seed(1, "s0/m0/g0"), super::derive_seed(1, "s0/m0/g1"));
        assert_ne!(super::derive_seed(1, "a"), super::derive_seed(2, "a"));
    }
}
