//! The limits a bot plays under: each game's defaults from its seed, overridden by a
//! bot's manifest and then by the command line or a tournament.

use std::time::Duration;

use rules::{GameKind, LimitSet, Options};

/// Limits of one side in one game. `None` means no such limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Wall-clock time per move; for per-move processes it includes the start.
    pub move_time: Option<Duration>,
    /// Wall-clock time for all the side's moves in a game (Nupud's 5 minutes): the
    /// side's clock at the start, and again after each `moves_to_go` moves.
    pub game_time: Option<Duration>,
    /// Added to the side's clock after each of its moves (chess's Fischer increment).
    pub increment: Option<Duration>,
    /// The moves of a time control: after so many moves the clock gets `game_time` again.
    pub moves_to_go: Option<u32>,
    /// How far past its clock a move may end and still count (the clock then shows
    /// zero, plus the increment).
    pub margin: Option<Duration>,
    /// CPU time for the whole game, the bot's children included (Connect Four).
    pub game_cpu: Option<Duration>,
    /// CPU time per move, the bot's children included (`move-cpu-ms`).
    pub move_cpu: Option<Duration>,
    /// Memory cap in bytes.
    pub memory: Option<u64>,
    /// Bytes of stderr kept per move (the rest is dropped and the cut marked).
    pub stderr_per_move: usize,
    /// The disk quota of a sandboxed bot, bytes: its working folder, `/tmp` and
    /// `/dev/shm` together (a `tmpfs`, charged to its memory too).
    pub disk: Option<u64>,
    /// The most files and folders there.
    pub files: Option<u64>,
    /// Whether program bots run inside the sandbox (`docs/security.md`).
    pub sandboxed: bool,
}

/// Overrides of [`Limits`], each optional: from a manifest's `[limits]` table, or from
/// the command line or a tournament. The one limits type of the rules crate.
pub type LimitOverrides = LimitSet;

const MB: u64 = 1024 * 1024;
const DEFAULT_STDERR: usize = 64 * 1024;

impl Limits {
    /// No limits at all, the default stderr cap, outside the sandbox.
    pub const NONE: Limits = Limits {
        move_time: None,
        game_time: None,
        increment: None,
        moves_to_go: None,
        margin: None,
        game_cpu: None,
        move_cpu: None,
        memory: None,
        stderr_per_move: DEFAULT_STDERR,
        disk: Some(sandbox::root::DEFAULT_DISK),
        files: Some(sandbox::root::DEFAULT_FILES),
        sandboxed: false,
    };

    /// The seed's limits for a game with these options (each game's
    /// [`rules::Game::seed_limits`]; `docs/bots.md`, "Where the limits come from").
    pub fn for_game(kind: GameKind, options: &Options) -> Limits {
        Limits::NONE.with(&kind.seed_limits(options))
    }

    /// The defaults of a game kind with its default options.
    pub fn for_kind(kind: GameKind) -> Limits {
        Limits::for_game(kind, &Options::new())
    }

    /// These limits with the given overrides applied (0 removes a time limit). A CPU
    /// limit per move given without a wall-clock one replaces the wall-clock limit per
    /// move: the move is then timed in CPU time, with a wall-clock guard of twice that
    /// plus a second ([`crate::TurnClock::wall_limit`]).
    pub fn with(self, overrides: &LimitOverrides) -> Limits {
        let time = |ms: Option<u64>, old: Option<Duration>| match ms {
            Some(0) => None,
            Some(ms) => Some(Duration::from_millis(ms)),
            None => old,
        };
        Limits {
            move_time: match (overrides.move_ms, overrides.move_cpu_ms) {
                (None, Some(_)) => None,
                (ms, _) => time(ms, self.move_time),
            },
            game_time: time(overrides.game_ms, self.game_time),
            // 0 is a chess clock without increment, not no clock.
            increment: overrides.increment_ms.map_or(self.increment, |ms| Some(Duration::from_millis(ms))),
            moves_to_go: match overrides.moves_to_go {
                Some(0) => None,
                Some(moves) => Some(moves.min(u64::from(u32::MAX)) as u32),
                None => self.moves_to_go,
            },
            margin: time(overrides.margin_ms, self.margin),
            game_cpu: time(overrides.cpu_ms, self.game_cpu),
            move_cpu: time(overrides.move_cpu_ms, self.move_cpu),
            memory: match overrides.memory_mb {
                Some(0) => None,
                Some(mb) => Some(mb * MB),
                None => self.memory,
            },
            stderr_per_move: overrides.stderr_kb.map_or(self.stderr_per_move, |kb| (kb * 1024) as usize),
            disk: match overrides.disk_mb {
                Some(0) => None,
                Some(mb) => Some(mb * MB),
                None => self.disk,
            },
            files: match overrides.files {
                Some(0) => None,
                Some(files) => Some(files),
                None => self.files,
            },
            sandboxed: self.sandboxed,
        }
    }
}

impl Limits {
    /// The limits in the record's units (ms, MB, KB).
    pub fn to_record(&self) -> LimitOverrides {
        let ms = |d: Option<std::time::Duration>| d.map(|d| d.as_millis() as u64);
        LimitOverrides {
            move_ms: ms(self.move_time),
            game_ms: ms(self.game_time),
            increment_ms: ms(self.increment),
            moves_to_go: self.moves_to_go.map(u64::from),
            margin_ms: ms(self.margin),
            cpu_ms: ms(self.game_cpu),
            move_cpu_ms: ms(self.move_cpu),
            memory_mb: self.memory.map(|b| b / (1024 * 1024)),
            stderr_kb: Some((self.stderr_per_move / 1024) as u64),
            disk_mb: Some(self.disk.map_or(0, |b| b / MB)),
            files: Some(self.files.unwrap_or(0)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_limits() {
        assert_eq!(Limits::for_kind(GameKind::Connect4).game_cpu, Some(Duration::from_secs(120)));
        let big: rules::Options = [("width".into(), "20".into()), ("height".into(), "20".into())].into();
        assert_eq!(Limits::for_game(GameKind::Connect4, &big).game_cpu, Some(Duration::from_secs(600)));
        assert_eq!(Limits::for_kind(GameKind::Pahtum).memory, Some(128 * MB));
        assert_eq!(Limits::for_kind(GameKind::Gomoku).move_time, Some(Duration::from_secs(5)));
        assert_eq!(Limits::for_kind(GameKind::Nupud).game_time, Some(Duration::from_secs(300)));
    }

    #[test]
    fn overrides() {
        let base = Limits::for_kind(GameKind::Gomoku);
        let changed = base.with(&LimitOverrides { move_ms: Some(250), memory_mb: Some(64), ..Default::default() });
        assert_eq!(changed.move_time, Some(Duration::from_millis(250)));
        assert_eq!(changed.memory, Some(64 * MB));
        assert_eq!(base.with(&LimitOverrides { move_ms: Some(0), ..Default::default() }).move_time, None);
        // CPU time per move instead of wall time; both when both are given.
        let cpu = base.with(&LimitOverrides { move_cpu_ms: Some(40), ..Default::default() });
        assert_eq!((cpu.move_time, cpu.move_cpu), (None, Some(Duration::from_millis(40))));
        let both = base.with(&LimitOverrides { move_ms: Some(90), move_cpu_ms: Some(40), ..Default::default() });
        assert_eq!((both.move_time, both.move_cpu), (Some(Duration::from_millis(90)), Some(Duration::from_millis(40))));
    }
}
