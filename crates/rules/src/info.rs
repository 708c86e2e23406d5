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
/// milliseconds, mebibytes and kibibytes; `0` removes a time or memory limit. Read from
/// TOML and JSON with one more key, `tc`, a time control as fastchess writes it
/// ([`LimitSet::time_control`]), which sets `game-ms`, `increment-ms` and `moves-to-go`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", try_from = "RawLimitSet")]
pub struct LimitSet {
    /// Wall-clock time per move; for per-move processes it includes the start.
    pub move_ms: Option<u64>,
    /// Wall-clock time for all of a side's moves in a game: its clock at the start.
    pub game_ms: Option<u64>,
    /// Added to a side's clock after each of its moves (a Fischer increment; with
    /// `game-ms`, as in fastchess's `tc=60+0.6`); 0 is a chess clock without increment
    /// (not the removal of a limit, unlike the times).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub increment_ms: Option<u64>,
    /// With `game-ms`: the moves of a time control; after each such number of its
    /// moves a side's clock gets `game-ms` again (`tc=40/60`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moves_to_go: Option<u64>,
    /// How far past its clock a move may end and still count (fastchess's `timemargin`):
    /// its clock then shows zero, plus the increment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub margin_ms: Option<u64>,
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

/// [`LimitSet`] as read, with `tc`.
#[derive(Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
struct RawLimitSet {
    move_ms: Option<u64>,
    game_ms: Option<u64>,
    increment_ms: Option<u64>,
    moves_to_go: Option<u64>,
    margin_ms: Option<u64>,
    cpu_ms: Option<u64>,
    move_cpu_ms: Option<u64>,
    memory_mb: Option<u64>,
    stderr_kb: Option<u64>,
    disk_mb: Option<u64>,
    files: Option<u64>,
    tc: Option<String>,
}

impl TryFrom<RawLimitSet> for LimitSet {
    type Error = String;

    fn try_from(raw: RawLimitSet) -> Result<LimitSet, String> {
        let plain = LimitSet {
            move_ms: raw.move_ms,
            game_ms: raw.game_ms,
            increment_ms: raw.increment_ms,
            moves_to_go: raw.moves_to_go,
            margin_ms: raw.margin_ms,
            cpu_ms: raw.cpu_ms,
            move_cpu_ms: raw.move_cpu_ms,
            memory_mb: raw.memory_mb,
            stderr_kb: raw.stderr_kb,
            disk_mb: raw.disk_mb,
            files: raw.files,
        };
        let Some(tc) = raw.tc else { return Ok(plain) };
        if raw.game_ms.is_some() || raw.increment_ms.is_some() || raw.moves_to_go.is_some() {
            return Err("tc sets game-ms, increment-ms and moves-to-go: give either tc or those".to_string());
        }
        Ok(plain.overridden_by(LimitSet::time_control(&tc)?))
    }
}

impl LimitSet {
    /// A time control as fastchess and cutechess write it: `[MOVES/]TIME[+INCREMENT]`,
    /// seconds with decimals or `MINUTES:SECONDS` (`40/60+0.6`, `10+0.1`, `1:30+1`,
    /// `40/120`), as `game-ms`, `increment-ms` and `moves-to-go`; `inf` for no clock
    /// (`game-ms` 0: no limit).
    pub fn time_control(text: &str) -> Result<LimitSet, String> {
        let text = text.trim();
        let bad = |why: &str| format!("tc {text:?}: {why} (write [MOVES/]SECONDS[+INCREMENT], e.g. 40/60+0.6 or 10+0.1)");
        if text.eq_ignore_ascii_case("inf") {
            return Ok(LimitSet { game_ms: Some(0), ..LimitSet::default() });
        }
        let (moves, rest) = match text.split_once('/') {
            Some((moves, rest)) => {
                let moves: u64 = moves.trim().parse().map_err(|_| bad("the moves before / are not a whole number"))?;
                if moves == 0 {
                    return Err(bad("a time control of 0 moves"));
                }
                (Some(moves), rest)
            }
            None => (None, text),
        };
        let (time, increment) = match rest.split_once('+') {
            Some((time, increment)) => (time, Some(increment)),
            None => (rest, None),
        };
        let millis = |part: &str, what: &str| -> Result<u64, String> {
            let part = part.trim();
            let secs = match part.split_once(':') {
                Some((minutes, seconds)) => {
                    let minutes: f64 = minutes.parse().map_err(|_| bad(&format!("the {what} is not a time")))?;
                    let seconds: f64 = seconds.parse().map_err(|_| bad(&format!("the {what} is not a time")))?;
                    minutes * 60.0 + seconds
                }
                None => part.parse().map_err(|_| bad(&format!("the {what} is not a number of seconds")))?,
            };
            if !(secs.is_finite() && secs >= 0.0) {
                return Err(bad(&format!("the {what} is not a time")));
            }
            Ok((secs * 1000.0).round() as u64)
        };
        let game_ms = millis(time, "time")?;
        if game_ms == 0 {
            return Err(bad("no time on the clock"));
        }
        let increment_ms = increment.map(|inc| millis(inc, "increment")).transpose()?;
        // All three set, 0 where the text has none: a time control replaces a game's
        // whole clock (`tc=60` is sudden death even where the game's own has an
        // increment), and stays a chess clock (an increment of 0, not none).
        Ok(LimitSet {
            game_ms: Some(game_ms),
            increment_ms: Some(increment_ms.unwrap_or(0)),
            moves_to_go: Some(moves.unwrap_or(0)),
            ..LimitSet::default()
        })
    }

    /// The time control of these limits as fastchess writes it (`40/60+0.6`), `None`
    /// without a game clock.
    pub fn tc_text(&self) -> Option<String> {
        let secs = |ms: u64| {
            let text = format!("{:.3}", ms as f64 / 1000.0);
            text.trim_end_matches('0').trim_end_matches('.').to_string()
        };
        let game = self.game_ms.filter(|&ms| ms > 0)?;
        let mut text = String::new();
        if let Some(moves) = self.moves_to_go.filter(|&moves| moves > 0) {
            text.push_str(&format!("{moves}/"));
        }
        text.push_str(&secs(game));
        if let Some(inc) = self.increment_ms.filter(|&ms| ms > 0) {
            text.push_str(&format!("+{}", secs(inc)));
        }
        Some(text)
    }

    /// These limits with every limit `over` sets replacing this one's.
    pub fn overridden_by(self, over: LimitSet) -> LimitSet {
        LimitSet {
            move_ms: over.move_ms.or(self.move_ms),
            game_ms: over.game_ms.or(self.game_ms),
            increment_ms: over.increment_ms.or(self.increment_ms),
            moves_to_go: over.moves_to_go.or(self.moves_to_go),
            margin_ms: over.margin_ms.or(self.margin_ms),
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

    #[test]
    fn time_controls_read_as_fastchess_writes_them() {
        let tc = |text: &str| LimitSet::time_control(text).map(|l| (l.moves_to_go, l.game_ms, l.increment_ms));
        assert_eq!(tc("40/60+0.6"), Ok((Some(40), Some(60_000), Some(600))));
        assert_eq!(tc("10+0.1"), Ok((Some(0), Some(10_000), Some(100))));
        assert_eq!(tc("1:30+1"), Ok((Some(0), Some(90_000), Some(1_000))));
        assert_eq!(tc("40/120"), Ok((Some(40), Some(120_000), Some(0))));
        assert_eq!(tc("8.5"), Ok((Some(0), Some(8_500), Some(0))), "sudden death: no increment, whatever the game's");
        for bad in ["", "0/60", "x/60", "60+y", "0", "-5", "40/"] {
            assert!(tc(bad).is_err(), "{bad:?} is refused");
        }
        for text in ["40/60+0.6", "10+0.1", "8.5", "40/120"] {
            assert_eq!(LimitSet::time_control(text).unwrap().tc_text().as_deref(), Some(text));
        }
        let read: LimitSet = toml::from_str("tc = \"40/60+0.6\"\nmemory-mb = 64").unwrap();
        assert_eq!((read.game_ms, read.increment_ms, read.moves_to_go, read.memory_mb), (Some(60_000), Some(600), Some(40), Some(64)));
        assert!(toml::from_str::<LimitSet>("tc = \"10\"\ngame-ms = 5").is_err(), "tc and game-ms together");
        assert!(toml::from_str::<LimitSet>("bogus = 1").is_err(), "unknown keys are refused");
    }
}
