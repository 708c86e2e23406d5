//! What a game is, for every crate that is not its rules: its descriptor ([`GameInfo`]:
//! name, title, sides, notation, options, what the game has) and its seed limits
//! ([`LimitSet`], the one limits type of Arbiter). Each game module declares its own as
//! [`Game::INFO`](crate::Game::INFO) and [`Game::seed_limits`](crate::Game::seed_limits).

use serde::{Deserialize, Serialize};

use crate::OptionSpec;
use crate::view::BoardStyle;

/// One game as the rest of Arbiter knows it. Every field is the game's own decision and
/// lives in its rules module; the registry (`any.rs`) lists the games, everything else
/// reads their descriptors.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct GameInfo {
    /// The name on the command line, in records and in configs, e.g. `"gomoku"`.
    pub name: &'static str,
    /// Other spellings accepted for the name (`"c4"`, `"pah-tum"`).
    pub aliases: &'static [&'static str],
    /// A one-line description for `arbiter games` and the web, e.g. "Gomoku 10×10, five
    /// or more in a row wins (seed 000, 2004)".
    pub title: &'static str,
    /// What the two sides are called, side 0 (the first to move) first.
    pub side_names: [&'static str; 2],
    /// How a move is written, with an example, for help texts and error messages.
    pub notation: &'static str,
    /// The options `Game::new` accepts, with their defaults.
    pub options: &'static [OptionSpec],
    /// Whether `legal_moves` lists every legal move. Legions cannot: its move is a list
    /// of orders; it offers `random_move` and validation instead.
    pub enumerable: bool,
    /// Whether the game ends with scores (`Outcome::scores`).
    pub has_scores: bool,
    /// Whether a move can stay hidden from the opponent for a while
    /// (`Game::hides_last_move`: Nupud's set-up).
    pub hidden_information: bool,
    /// Whether a start position must be given (Pah-tum's blocked squares): then the
    /// game has no default start and takes one from `Game::random_start`.
    pub start_required: bool,
    /// Whether `Game::opening_candidate` makes tournament openings for this game.
    pub generated_openings: bool,
    /// How the web draws the board.
    pub style: BoardStyle,
}

impl GameInfo {
    /// Whether `name` names this game: its name or an alias, in any case, trimmed.
    pub fn is_called(&self, name: &str) -> bool {
        let name = name.trim();
        self.name.eq_ignore_ascii_case(name) || self.aliases.iter().any(|alias| alias.eq_ignore_ascii_case(name))
    }
}

/// Limits of one side, each optional: the seed's limits of a game, and overrides from a
/// bot's manifest (`[limits]`), a tournament config or the command line. In
/// milliseconds, mebibytes and kibibytes; `0` removes a time or memory limit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct LimitSet {
    /// Wall-clock time per move; for per-move processes it includes the start.
    pub move_ms: Option<u64>,
    /// Wall-clock time for all of a side's moves in a game.
    pub game_ms: Option<u64>,
    /// CPU time for the whole game, the bot's children included.
    pub cpu_ms: Option<u64>,
    /// CPU time per move, the bot's children included; given without `move_ms` at the
    /// same level it replaces the wall-clock limit per move (see `bots::Limits::with`).
    pub move_cpu_ms: Option<u64>,
    /// Memory cap.
    pub memory_mb: Option<u64>,
    /// Bytes of stderr kept per move.
    pub stderr_kb: Option<u64>,
    /// The bot's disk quota in the sandbox: its working folder, `/tmp` and `/dev/shm`
    /// together.
    pub disk_mb: Option<u64>,
    /// The most files and folders there.
    pub files: Option<u64>,
}

impl LimitSet {
    /// These limits with every limit `over` sets replacing this one's.
    pub fn overridden_by(self, over: LimitSet) -> LimitSet {
        LimitSet {
            move_ms: over.move_ms.or(self.move_ms),
            game_ms: over.game_ms.or(self.game_ms),
            cpu_ms: over.cpu_ms.or(self.cpu_ms),
            move_cpu_ms: over.move_cpu_ms.or(self.move_cpu_ms),
            memory_mb: over.memory_mb.or(self.memory_mb),
            stderr_kb: over.stderr_kb.or(self.stderr_kb),
            disk_mb: over.disk_mb.or(self.disk_mb),
            files: over.files.or(self.files),
        }
    }

    /// Whether no limit is set.
    pub fn is_empty(&self) -> bool {
        *self == LimitSet::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overrides_replace_only_what_they_set() {
        let seed = LimitSet { move_ms: Some(5000), memory_mb: Some(128), ..LimitSet::default() };
        let over = LimitSet { move_ms: Some(0), stderr_kb: Some(8), ..LimitSet::default() };
        assert_eq!(
            seed.overridden_by(over),
            LimitSet { move_ms: Some(0), memory_mb: Some(128), stderr_kb: Some(8), ..LimitSet::default() }
        );
        assert!(LimitSet::default().is_empty() && !seed.is_empty());
    }
}
