//! The game record: one JSON document per game with everything needed to check,
//! replay and judge it: game, options and start; the players; every move with its time
//! and the bot's stderr (and a failed start's); the result and why play stopped.

use rules::Options;
use serde::{Deserialize, Serialize};

use bots::LimitOverrides;
pub use bots::Termination;

/// Who played one side.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayerRecord {
    pub name: String,
    /// `builtin`, `human` or `program`.
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub manifest: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<Vec<String>>,
    /// SHA-256 of the program file, hex.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// The limits the side played under, in milliseconds and megabytes (absent: none).
    pub limits: LimitOverrides,
}

/// One turn of one side.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TurnRecord {
    pub side: usize,
    /// The move in the game's notation; absent when the turn ended in a fault.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Wall-clock time the side took, in milliseconds.
    pub ms: u64,
    /// The bot's time in microseconds, as its limit counts it: for a persistent process
    /// from the moment the turn's request was written until its answer was read, for a
    /// process per move from its start to its exit.
    #[serde(default)]
    pub bot_us: u64,
    /// The whole turn as the referee saw it, in microseconds: from the referee starting
    /// the turn (waking the bot) to the move checked by the rules. `turn_us - bot_us -
    /// wait_us` is the referee's own time around the bot's.
    #[serde(default)]
    pub turn_us: u64,
    /// CPU time the bot's process group used in this turn, in microseconds (zero where
    /// it is not measured: built-in players, people).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cpu_us: u64,
    /// The bot's wait for a CPU in this turn, and the steal (`steal_us`), that its clock
    /// did not count, in microseconds (already out of `bot_us` and `ms`; absent: none, or
    /// a limit that does not give it back). See `docs/bots.md`, "Time".
    #[serde(default, skip_serializing_if = "is_zero")]
    pub wait_us: u64,
    /// Of `wait_us`, the part that was the machine's host taking its CPUs (steal: the
    /// bot neither ran nor waited for a CPU meanwhile), in microseconds (absent: none).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub steal_us: u64,
    /// The bot's stderr during this turn (its debug log), at most the cap.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub stderr: String,
    /// Bytes of stderr beyond the cap, dropped (absent: nothing was cut).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub stderr_dropped: u64,
    /// What the rules made of the move where that is not obvious (Legions' orders).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The side's clock after the move (increment added), in milliseconds, where the
    /// game has a clock (chess's PGN writes it as `[%clk]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock_ms: Option<u64>,
    /// What the engine said of its move (a UCI engine's last `info` with a score).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub analysis: Option<bots::Analysis>,
    /// What the referee wrote to the bot for this turn, exactly (the project protocol's
    /// lines, a per-move program's stdin, Gomocup's commands, the console's answers, the
    /// Gomoku field file, the TCP line); absent where nothing is written (built-in
    /// players, people).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub input: String,
}

/// The start of a side whose program failed to start (it never got a turn): what it
/// wrote on stderr meanwhile, such as an interpreter's traceback. A program that starts
/// has its start-up's stderr in its first turn instead.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StartupRecord {
    pub side: usize,
    /// Wall-clock time from the start of the program to when it was given up, ms.
    pub ms: u64,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub stderr: String,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub stderr_dropped: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// How the game ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResultRecord {
    /// 0, 1, or null for a draw.
    pub winner: Option<usize>,
    pub scores: Option<[i64; 2]>,
    pub termination: Termination,
}

/// One game, complete.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameRecord {
    pub game: String,
    pub options: Options,
    /// The start position in the game's start text; absent for the default start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<String>,
    pub seed: u64,
    /// Side 0 (moves first), then side 1.
    pub players: [PlayerRecord; 2],
    /// The accepted moves in notation, as `arbiter verify` reads them.
    pub moves: Vec<String>,
    pub turns: Vec<TurnRecord>,
    /// The failed start of a side, if one failed to start (then the game ended there).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub startup: Vec<StartupRecord>,
    pub result: ResultRecord,
    /// Start of the game, Unix time in milliseconds.
    pub started_ms: u64,
    pub duration_ms: u64,
    /// What the turns cost each side and the referee (absent in records from before it
    /// was kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timing: Option<[SideTiming; 2]>,
}

/// One side's time over a game, summed from its turns (microseconds).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SideTiming {
    /// Turns played (a faulty last turn included).
    pub turns: u64,
    /// The bot's time, summed ([`TurnRecord::bot_us`]).
    pub bot_us: u64,
    /// The referee's own time around the bot's, summed (`turn_us - bot_us - wait_us`).
    pub referee_us: u64,
    /// The most the referee took around one turn.
    pub referee_max_us: u64,
}

impl SideTiming {
    /// Both sides' sums over `turns`.
    pub fn of(turns: &[TurnRecord]) -> [SideTiming; 2] {
        let mut sides = [SideTiming::default(); 2];
        for turn in turns {
            let Some(side) = sides.get_mut(turn.side) else { continue };
            let referee = turn.turn_us.saturating_sub(turn.bot_us + turn.wait_us);
            side.turns += 1;
            side.bot_us += turn.bot_us;
            side.referee_us += referee;
            side.referee_max_us = side.referee_max_us.max(referee);
        }
        sides
    }
}
