//! The tournament config file: its checked types, and the reader that checks it
//! ([`TournamentConfig::parse`]); every key is described in `docs/tournaments.md`.
//!
//! ```toml
//! name = "Gomoku 2004"
//! game = "gomoku"
//! seed = 2004
//! bots = "bots/"                       # every folder below with a bot.toml (optional)
//! reuse = false                        # true: keep a bot's process between its games (when it can)
//! [options]                            # game options
//! [limits]                             # move-ms, move-cpu-ms, game-ms, cpu-ms, memory-mb, stderr-kb,
//!                                      # disk-mb, files, increment-ms, moves-to-go, margin-ms, tc = "40/60+0.6"
//! [[entrant]]
//! name = "baseline"
//! bot = "random"                       # a built-in player (random ... strong), or a bot.toml / its folder
//! submitted = "2004-12-01T10:00:00"    # optional, for the last tie-break
//! [[stage]]
//! name = "round robin"
//! format = "round-robin"               # entry-check, round-robin, groups,
//!                                      # double-elimination, final, swiss, gauntlet
//! deals = 5                            # deals per match (a deal: one game, or two with colours swapped)
//! swap = true
//! openings = { default = true, file = "gomoku-openings.txt" }
//! scoring = "game-2-1-0"               # game-2-1-0, game-1-half-0, match-3-1-0, score-sum
//! tie-breaks = ["head-to-head", "sonneborn-berger", "extra-games", "submission"]
//! ```

use std::collections::BTreeMap;
use std::path::PathBuf;

use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;
use rules::{AnyPosition, GameKind, LimitSet, Options, SetupError};
use serde::{Deserialize, Serialize};
use toml::Spanned;

/// The longest tournament name, in characters.
pub const MAX_TITLE_CHARS: usize = 100;

/// A config that cannot be used, with the line it is about where there is one.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// Syntax, an unknown key, a wrong type: what toml says, on one line.
    #[error("{file}: {message}")]
    Syntax { file: String, message: String },
    /// A combination that cannot work (a group count that is not a power of two, `top`
    /// on a round robin, ...).
    #[error("{file}: line {line}: {message}")]
    Invalid { file: String, line: usize, message: String },
    #[error("{file}: {message}")]
    Other { file: String, message: String },
}

/// The whole tournament, checked. (The file is read through private raw types that
/// mirror these with kebab-case keys and `deny_unknown_fields`.)
#[derive(Clone, Debug, PartialEq)]
pub struct TournamentConfig {
    pub name: String,
    pub game: GameKind,
    /// Game options for every stage (a stage may override them).
    pub options: Options,
    pub seed: u64,
    /// Entrants listed one by one.
    pub entrants: Vec<EntrantConfig>,
    /// A folder whose sub-folders holding `bot.toml` are entrants too (expanded by the
    /// runner, which may read the disk).
    pub bots: Option<PathBuf>,
    /// Limits for every stage (a stage may override them).
    pub limits: LimitSet,
    /// Whether a bot that can play game after game in one process (the project
    /// protocol's `reuse`) keeps its process between its games (`reuse`, default false:
    /// a process per game, so that every game is played the same whatever the bot
    /// played before it, and a resumed tournament equals an uninterrupted one).
    pub reuse: bool,
    pub stages: Vec<StageConfig>,
}

/// One entrant as the config names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntrantConfig {
    /// Defaults to the bot's manifest name or the built-in's name.
    pub name: Option<String>,
    pub bot: String,
    pub submitted: Option<String>,
}

/// The formats of a stage.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// Each entrant plays a match against `baseline`; it passes if it wins the match and
    /// its bot answers its interface's self-description. Who failed, and why, is kept;
    /// failed entrants are left out of later stages.
    EntryCheck,
    /// Every pair plays `cycles` matches.
    RoundRobin,
    /// `groups` groups (a power of two) of a round robin; the leader of each advances.
    Groups,
    /// The entrants (the previous stage's qualifiers) play a double-elimination
    /// bracket; an entrant is out after its second lost match; the final is played once.
    DoubleElimination,
    /// A round robin among the `top` of the previous stage's ranking.
    Final,
    /// `rounds` rounds, each pairing entrants with equal or close points who have not
    /// met yet.
    Swiss,
    /// `challenger` plays a match against every other entrant (a bot author's test).
    Gauntlet,
}

/// How games or matches are scored in a stage.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scoring {
    /// 2 per win, 1 per draw, 0 per loss, per game (Gomoku 2004).
    #[serde(rename = "game-2-1-0")]
    Game210,
    /// 1 per win, 1/2 per draw, per game (Connect Four 2008, Nupud).
    #[serde(rename = "game-1-half-0")]
    Game1Half0,
    /// 3 per match won, 1 per match drawn, decided by the sum of the score differences
    /// over the match's games (Pah-tum 2019, with its 1666 forfeit).
    #[serde(rename = "match-3-1-0")]
    Match310,
    /// The sum of the entrant's game scores (Legions).
    ScoreSum,
}

/// Tie-breaks, applied in the order the stage lists them.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TieBreak {
    /// Points in the games between the tied entrants.
    HeadToHead,
    /// The sum of the points of the opponents an entrant beat, plus half of those it drew.
    SonnebornBerger,
    /// More games between the tied entrants (scheduled by the stage) until the tie breaks.
    ExtraGames,
    /// The earlier submission ranks first.
    Submission,
}

/// Where a stage's start positions come from. They are read or generated when the stage
/// starts, so that they stay secret until then.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpeningsConfig {
    /// The game's default start comes first (Gomoku's deal 1 on the empty board).
    pub default: bool,
    /// A file of start positions in the game's start text, separated by blank lines.
    pub file: Option<PathBuf>,
    /// So many generated start positions (`arbiter openings`), from the stage's seed.
    pub generate: Option<u32>,
}

/// One stage, checked. What only some formats use is in its format's variant.
#[derive(Clone, Debug, PartialEq)]
pub struct StageConfig {
    pub name: String,
    pub format: StageFormat,
    /// Game options of this stage (Connect Four's two categories), replacing the
    /// tournament's.
    pub options: Option<Options>,
    /// Matches per meeting of two entrants (Pah-tum: one per start board).
    pub matches: u32,
    /// Deals per match.
    pub deals: u32,
    /// Whether a deal is two games with the colours swapped (else one game, colours
    /// alternating from match to match).
    pub swap: bool,
    pub openings: OpeningsConfig,
    pub scoring: Scoring,
    pub tie_breaks: Vec<TieBreak>,
    pub limits: LimitSet,
    /// Whether entrants may be replaced before this stage starts (their programs are
    /// fingerprinted when it starts, and a change during the stage is refused).
    pub allow_replacement: bool,
}

/// A stage's format with the settings that format alone uses, checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StageFormat {
    /// Each entrant plays a match against `baseline` (a bot; `random` by default).
    EntryCheck { baseline: String },
    /// Every pair meets `cycles` times.
    RoundRobin { cycles: u32 },
    /// `groups` groups (a power of two), each a round robin of `cycles`.
    Groups { groups: u32, cycles: u32 },
    /// A bracket of the previous stage's qualifiers; a match that ends level gets
    /// `extra_deals` more deals before the earlier submission decides.
    DoubleElimination { extra_deals: u32 },
    /// A round robin of `cycles` among the `top` of the previous stage's ranking.
    Final { top: u32, cycles: u32 },
    /// `rounds` rounds of pairings by points.
    Swiss { rounds: u32 },
    /// `challenger` (an entrant's name) plays everyone else.
    Gauntlet { challenger: String },
}

impl StageFormat {
    /// Which format this is.
    pub fn kind(&self) -> Format {
        match self {
            StageFormat::EntryCheck { .. } => Format::EntryCheck,
            StageFormat::RoundRobin { .. } => Format::RoundRobin,
            StageFormat::Groups { .. } => Format::Groups,
            StageFormat::DoubleElimination { .. } => Format::DoubleElimination,
            StageFormat::Final { .. } => Format::Final,
            StageFormat::Swiss { .. } => Format::Swiss,
            StageFormat::Gauntlet { .. } => Format::Gauntlet,
        }
    }

    /// The format's name as the config writes it (`round-robin`).
    pub fn name(&self) -> &'static str {
        self.kind().name()
    }

    /// How many times a pair meets: the round robins' `cycles`, else 1.
    pub fn cycles(&self) -> u32 {
        match self {
            StageFormat::RoundRobin { cycles } | StageFormat::Groups { cycles, .. } | StageFormat::Final { cycles, .. } => *cycles,
            _ => 1,
        }
    }

    /// The number of groups: `groups` for a groups stage, else 1.
    pub fn groups(&self) -> u32 {
        match self {
            StageFormat::Groups { groups, .. } => *groups,
            _ => 1,
        }
    }

    /// The final's `top`, `None` for other formats.
    pub fn top(&self) -> Option<u32> {
        match self {
            StageFormat::Final { top, .. } => Some(*top),
            _ => None,
        }
    }

    /// A Swiss stage's rounds, else 1.
    pub fn rounds(&self) -> u32 {
        match self {
            StageFormat::Swiss { rounds } => *rounds,
            _ => 1,
        }
    }

    /// An entry check's baseline bot, `None` for other formats.
    pub fn baseline(&self) -> Option<&str> {
        match self {
            StageFormat::EntryCheck { baseline } => Some(baseline),
            _ => None,
        }
    }

    /// A gauntlet's challenger, `None` for other formats.
    pub fn challenger(&self) -> Option<&str> {
        match self {
            StageFormat::Gauntlet { challenger } => Some(challenger),
            _ => None,
        }
    }

    /// Deals added to a level bracket match: a double elimination's `extra_deals`, else 0.
    pub fn extra_deals(&self) -> u32 {
        match self {
            StageFormat::DoubleElimination { extra_deals } => *extra_deals,
            _ => 0,
        }
    }
}

impl Format {
    /// The format's name as the config writes it (`round-robin`).
    pub fn name(self) -> &'static str {
        match self {
            Format::EntryCheck => "entry-check",
            Format::RoundRobin => "round-robin",
            Format::Groups => "groups",
            Format::DoubleElimination => "double-elimination",
            Format::Final => "final",
            Format::Swiss => "swiss",
            Format::Gauntlet => "gauntlet",
        }
    }

    /// This format with the settings a config gets when it names none (a gauntlet's
    /// challenger, which a config must name, empty).
    pub fn with_defaults(self) -> StageFormat {
        match self {
            Format::EntryCheck => StageFormat::EntryCheck { baseline: "random".to_string() },
            Format::RoundRobin => StageFormat::RoundRobin { cycles: 1 },
            Format::Groups => StageFormat::Groups { groups: 1, cycles: 1 },
            Format::DoubleElimination => StageFormat::DoubleElimination { extra_deals: 1 },
            Format::Final => StageFormat::Final { top: 2, cycles: 1 },
            Format::Swiss => StageFormat::Swiss { rounds: 1 },
            Format::Gauntlet => StageFormat::Gauntlet { challenger: String::new() },
        }
    }

    /// Whether the format takes its entrants from the previous stage's ranking.
    pub fn needs_previous_stage(self) -> bool {
        matches!(self, Format::DoubleElimination | Format::Final)
    }
}

impl Scoring {
    /// The scoring's name as the config writes it (`game-2-1-0`).
    pub fn name(self) -> &'static str {
        match self {
            Scoring::Game210 => "game-2-1-0",
            Scoring::Game1Half0 => "game-1-half-0",
            Scoring::Match310 => "match-3-1-0",
            Scoring::ScoreSum => "score-sum",
        }
    }

    /// Whether the scoring reads the games' scores (so the game must have them).
    pub fn needs_game_scores(self) -> bool {
        matches!(self, Scoring::Match310 | Scoring::ScoreSum)
    }

    /// The tie-breaks of a stage that lists none: the earlier submission alone for
    /// `score-sum` (Legions), else head-to-head, Sonneborn–Berger, then the earlier
    /// submission.
    pub fn default_tie_breaks(self) -> Vec<TieBreak> {
        match self {
            Scoring::ScoreSum => vec![TieBreak::Submission],
            _ => vec![TieBreak::HeadToHead, TieBreak::SonnebornBerger, TieBreak::Submission],
        }
    }
}

impl TieBreak {
    /// The tie-break's name as the config writes it (`head-to-head`).
    pub fn name(self) -> &'static str {
        match self {
            TieBreak::HeadToHead => "head-to-head",
            TieBreak::SonnebornBerger => "sonneborn-berger",
            TieBreak::ExtraGames => "extra-games",
            TieBreak::Submission => "submission",
        }
    }
}

impl StageConfig {
    /// The game options this stage plays with: its own, or the tournament's.
    pub fn effective_options<'a>(&'a self, tournament: &'a TournamentConfig) -> &'a Options {
        self.options.as_ref().unwrap_or(&tournament.options)
    }

    /// Games in one meeting of two entrants: matches × deals × (2 with swap, else 1).
    pub fn games_per_meeting(&self) -> u32 {
        self.matches * self.deals * if self.swap { 2 } else { 1 }
    }
}

impl TournamentConfig {
    /// Reads and checks a config; `file` names it in errors. Paths in it stay as written
    /// (the runner resolves them against the config's folder).
    pub fn parse(text: &str, file: &str) -> Result<TournamentConfig, ConfigError> {
        Reader { text, file }.read(true)
    }

    /// Like [`TournamentConfig::parse`], but a config with no entrants and no `bots`
    /// folder is accepted: for a runner that is given its entrants another way
    /// (`--bots DIR`).
    pub fn parse_without_entrants(text: &str, file: &str) -> Result<TournamentConfig, ConfigError> {
        Reader { text, file }.read(false)
    }

    /// The options stage `stage` plays with.
    pub fn stage_options(&self, stage: usize) -> &Options {
        self.stages[stage].effective_options(self)
    }
}

// ---------------------------------------------------------------------------------------
// The file as written: raw types with spans, so that every check can name its line.

type Span = std::ops::Range<usize>;
type RawOptions = BTreeMap<String, Spanned<toml::Value>>;

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawConfig {
    name: Option<Spanned<String>>,
    game: Spanned<String>,
    seed: Option<Spanned<i64>>,
    bots: Option<Spanned<String>>,
    options: Option<Spanned<RawOptions>>,
    limits: Option<Spanned<RawLimits>>,
    reuse: Option<bool>,
    #[serde(default)]
    entrant: Vec<Spanned<RawEntrant>>,
    #[serde(default)]
    stage: Vec<Spanned<RawStage>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawLimits {
    move_ms: Option<Spanned<u64>>,
    game_ms: Option<Spanned<u64>>,
    increment_ms: Option<Spanned<u64>>,
    moves_to_go: Option<Spanned<u64>>,
    margin_ms: Option<Spanned<u64>>,
    tc: Option<Spanned<String>>,
    cpu_ms: Option<Spanned<u64>>,
    move_cpu_ms: Option<Spanned<u64>>,
    memory_mb: Option<Spanned<u64>>,
    stderr_kb: Option<Spanned<u64>>,
    disk_mb: Option<Spanned<u64>>,
    files: Option<Spanned<u64>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawEntrant {
    name: Option<Spanned<String>>,
    bot: Spanned<String>,
    submitted: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawStage {
    name: Option<Spanned<String>>,
    format: Spanned<Format>,
    cycles: Option<Spanned<u32>>,
    groups: Option<Spanned<u32>>,
    top: Option<Spanned<u32>>,
    rounds: Option<Spanned<u32>>,
    baseline: Option<Spanned<String>>,
    challenger: Option<Spanned<String>>,
    options: Option<Spanned<RawOptions>>,
    matches: Option<Spanned<u32>>,
    deals: Option<Spanned<u32>>,
    swap: Option<bool>,
    extra_deals: Option<Spanned<u32>>,
    openings: Option<Spanned<RawOpenings>>,
    scoring: Option<Spanned<Scoring>>,
    tie_breaks: Option<Spanned<Vec<Spanned<TieBreak>>>>,
    limits: Option<Spanned<RawLimits>>,
    allow_replacement: Option<bool>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawOpenings {
    default: Option<bool>,
    file: Option<Spanned<String>>,
    generate: Option<Spanned<u32>>,
}

/// The games that have generated start positions (`openings::generate`): those whose
/// descriptor says so.
pub fn generated_openings_games() -> Vec<GameKind> {
    GameKind::ALL.into_iter().filter(|kind| kind.info().generated_openings).collect()
}

/// "only gomoku, connect4 and pahtum have them", for the errors about generated openings.
pub fn generated_openings_note() -> String {
    let names: Vec<&str> = generated_openings_games().into_iter().map(GameKind::name).collect();
    let list = match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        Some((last, _)) => last.to_string(),
        None => "none".to_string(),
    };
    format!("only {list} have them")
}

struct Reader<'a> {
    text: &'a str,
    file: &'a str,
}

impl Reader<'_> {
    fn line(&self, span: &Span) -> usize {
        let end = span.start.min(self.text.len());
        self.text.as_bytes()[..end].iter().filter(|&&b| b == b'\n').count() + 1
    }

    fn invalid(&self, span: &Span, message: impl Into<String>) -> ConfigError {
        ConfigError::Invalid { file: self.file.to_string(), line: self.line(span), message: message.into() }
    }

    fn syntax(&self, err: toml::de::Error) -> ConfigError {
        ConfigError::Syntax { file: self.file.to_string(), message: text::toml_error(self.text, &err) }
    }

    fn read(&self, require_entrants: bool) -> Result<TournamentConfig, ConfigError> {
        let raw: RawConfig = toml::from_str(self.text).map_err(|err| self.syntax(err))?;

        let game = GameKind::from_name(raw.game.get_ref()).map_err(|err| self.invalid(&raw.game.span(), err.to_string()))?;
        let name = match &raw.name {
            Some(name) => {
                let text = self.non_empty(name, "name")?;
                text::check_text("the tournament's name", &text, MAX_TITLE_CHARS)
                    .map_err(|err| self.invalid(&name.span(), err.to_string()))?;
                text
            }
            None => default_name(self.file),
        };
        let seed = match &raw.seed {
            Some(seed) => u64::try_from(*seed.get_ref())
                .map_err(|_| self.invalid(&seed.span(), format!("seed = {}: must not be negative", seed.get_ref())))?,
            None => 0,
        };
        let bots = match &raw.bots {
            Some(bots) => Some(PathBuf::from(self.non_empty(bots, "bots")?)),
            None => None,
        };
        let options = match &raw.options {
            Some(options) => self.options(game, options)?,
            None => Options::new(),
        };
        let limits = match &raw.limits {
            Some(limits) => self.limits(limits)?,
            None => LimitSet::default(),
        };

        let entrants = self.entrants(&raw.entrant, game, &options)?;
        if require_entrants && entrants.is_empty() && bots.is_none() {
            return Err(ConfigError::Other {
                file: self.file.to_string(),
                message: "no entrants: add [[entrant]] tables or a `bots` folder".to_string(),
            });
        }
        if raw.stage.is_empty() {
            return Err(ConfigError::Other {
                file: self.file.to_string(),
                message: "no stages: add at least one [[stage]] table".to_string(),
            });
        }
        // Counts that depend on the number of entrants are checked only when the config
        // lists them all.
        let n_entrants = (bots.is_none() && !entrants.is_empty()).then_some(entrants.len());

        let mut stages: Vec<StageConfig> = Vec::new();
        for (idx, raw_stage) in raw.stage.iter().enumerate() {
            let stage = self.stage(idx, raw_stage, game, &options, limits, n_entrants)?;
            if let Some(other) = stages.iter().find(|other| other.name == stage.name) {
                let span = raw_stage.get_ref().name.as_ref().map_or(raw_stage.span(), Spanned::span);
                return Err(self.invalid(&span, format!("two stages are named {:?}: give each its own `name`", other.name)));
            }
            stages.push(stage);
        }

        let reuse = raw.reuse.unwrap_or(false);
        Ok(TournamentConfig { name, game, options, seed, entrants, bots, limits, reuse, stages })
    }

    fn non_empty(&self, value: &Spanned<String>, key: &str) -> Result<String, ConfigError> {
        let text = value.get_ref().trim();
        if text.is_empty() {
            return Err(self.invalid(&value.span(), format!("{key} must not be empty")));
        }
        Ok(text.to_string())
    }

    /// Reads game options (numbers, true/false or text, kept as text) and checks them
    /// with the rules.
    fn options(&self, game: GameKind, raw: &Spanned<RawOptions>) -> Result<Options, ConfigError> {
        let mut options = Options::new();
        for (key, value) in raw.get_ref() {
            let text = match value.get_ref() {
                toml::Value::String(text) => text.clone(),
                toml::Value::Integer(n) => n.to_string(),
                toml::Value::Boolean(b) => b.to_string(),
                _ => return Err(self.invalid(&value.span(), format!("option {key}: expected a whole number, true/false or text"))),
            };
            options.insert(key.clone(), text);
        }
        check_game_options(game, &options).map_err(|err| {
            let span = match &err {
                SetupError::UnknownOption { name, .. } | SetupError::BadOption { name, .. } => {
                    raw.get_ref().get(name).map_or(raw.span(), Spanned::span)
                }
                _ => raw.span(),
            };
            self.invalid(&span, err.to_string())
        })?;
        Ok(options)
    }

    fn limits(&self, raw: &Spanned<RawLimits>) -> Result<LimitSet, ConfigError> {
        let raw = raw.get_ref();
        let read = |value: &Option<Spanned<u64>>, key: &str| -> Result<Option<u64>, ConfigError> {
            match value {
                Some(v) if *v.get_ref() == 0 => Err(self.invalid(&v.span(), format!("{key} = 0: must be at least 1"))),
                Some(v) => Ok(Some(*v.get_ref())),
                None => Ok(None),
            }
        };
        let limits = LimitSet {
            move_ms: read(&raw.move_ms, "move-ms")?,
            game_ms: read(&raw.game_ms, "game-ms")?,
            increment_ms: read(&raw.increment_ms, "increment-ms")?,
            moves_to_go: read(&raw.moves_to_go, "moves-to-go")?,
            margin_ms: read(&raw.margin_ms, "margin-ms")?,
            cpu_ms: read(&raw.cpu_ms, "cpu-ms")?,
            move_cpu_ms: read(&raw.move_cpu_ms, "move-cpu-ms")?,
            memory_mb: read(&raw.memory_mb, "memory-mb")?,
            stderr_kb: read(&raw.stderr_kb, "stderr-kb")?,
            disk_mb: read(&raw.disk_mb, "disk-mb")?,
            files: read(&raw.files, "files")?,
        };
        let Some(tc) = &raw.tc else { return Ok(limits) };
        if limits.game_ms.is_some() || limits.increment_ms.is_some() || limits.moves_to_go.is_some() {
            return Err(self.invalid(&tc.span(), "tc sets game-ms, increment-ms and moves-to-go: give either tc or those"));
        }
        let clock = LimitSet::time_control(tc.get_ref()).map_err(|err| self.invalid(&tc.span(), err))?;
        Ok(limits.overridden_by(clock))
    }

    fn entrants(&self, raw: &[Spanned<RawEntrant>], game: GameKind, options: &Options) -> Result<Vec<EntrantConfig>, ConfigError> {
        let mut entrants = Vec::new();
        // The name each entrant will have, where the config decides it: its own name, or
        // a built-in's; else its bot text, which two unnamed entrants must not share.
        let mut seen: Vec<String> = Vec::new();
        for spanned in raw {
            let entrant = spanned.get_ref();
            let bot = self.non_empty(&entrant.bot, "bot")?;
            if bot == "human" {
                return Err(self.invalid(
                    &entrant.bot.span(),
                    "bot = \"human\": a tournament plays without people; name a program or a built-in player",
                ));
            }
            // A built-in player's name is checked here, with the game it is to play.
            if builtins::Builtin::is_builtin_name(&bot) {
                let builtin = builtins::Builtin::parse(&bot).map_err(|err| self.invalid(&entrant.bot.span(), err.to_string()))?;
                builtin.check_plays(game, options).map_err(|err| self.invalid(&entrant.bot.span(), format!("bot = {bot:?}: {err}")))?;
            }
            let name = match &entrant.name {
                Some(name) => {
                    // The one rule for names (the `text` crate), as manifests and uploads.
                    text::check_name("entrant name", name.get_ref()).map_err(|err| self.invalid(&name.span(), err.to_string()))?;
                    Some(name.get_ref().clone())
                }
                None => None,
            };
            let key = match &name {
                Some(name) => name.clone(),
                None if builtins::Builtin::is_builtin_name(&bot) => bot.clone(),
                None => format!("bot {bot}"),
            };
            if seen.contains(&key) {
                let (span, message) = match &entrant.name {
                    Some(name) => (name.span(), format!("two entrants are named {key:?}")),
                    None if builtins::Builtin::is_builtin_name(&bot) => {
                        (entrant.bot.span(), format!("two entrants are named {key:?}: give this one a `name`"))
                    }
                    None => (entrant.bot.span(), format!("bot {bot:?} is listed twice without a name: give one a `name`")),
                };
                return Err(self.invalid(&span, message));
            }
            seen.push(key);
            let submitted = match &entrant.submitted {
                Some(submitted) => Some(self.non_empty(submitted, "submitted")?),
                None => None,
            };
            entrants.push(EntrantConfig { name, bot, submitted });
        }
        Ok(entrants)
    }

    fn stage(
        &self,
        idx: usize,
        spanned: &Spanned<RawStage>,
        game: GameKind,
        tournament_options: &Options,
        tournament_limits: LimitSet,
        n_entrants: Option<usize>,
    ) -> Result<StageConfig, ConfigError> {
        let raw = spanned.get_ref();
        let format = *raw.format.get_ref();
        let what = format!("a {} stage", format.name());

        if idx == 0 && format.needs_previous_stage() {
            return Err(self.invalid(
                &raw.format.span(),
                format!("format = \"{}\" needs a previous stage's ranking: it cannot be the first stage", format.name()),
            ));
        }

        // Which of the format-specific keys this format reads, and which it needs.
        let uses = |key: &str| -> bool {
            matches!(
                (format, key),
                (Format::EntryCheck, "baseline")
                    | (Format::RoundRobin | Format::Groups | Format::Final, "cycles")
                    | (Format::Groups, "groups")
                    | (Format::Final, "top")
                    | (Format::Swiss, "rounds")
                    | (Format::Gauntlet, "challenger")
                    | (Format::DoubleElimination, "extra-deals")
            )
        };
        let given: [(&str, Option<Span>); 7] = [
            ("cycles", raw.cycles.as_ref().map(Spanned::span)),
            ("groups", raw.groups.as_ref().map(Spanned::span)),
            ("top", raw.top.as_ref().map(Spanned::span)),
            ("rounds", raw.rounds.as_ref().map(Spanned::span)),
            ("baseline", raw.baseline.as_ref().map(Spanned::span)),
            ("challenger", raw.challenger.as_ref().map(Spanned::span)),
            ("extra-deals", raw.extra_deals.as_ref().map(Spanned::span)),
        ];
        for (key, span) in &given {
            if let Some(span) = span
                && !uses(key)
            {
                return Err(self.invalid(span, format!("`{key}` is not used by {what}")));
            }
        }
        let required = match format {
            Format::Groups => Some("groups"),
            Format::Final => Some("top"),
            Format::Swiss => Some("rounds"),
            Format::Gauntlet => Some("challenger"),
            _ => None,
        };
        if let Some(key) = required
            && given.iter().all(|(k, span)| *k != key || span.is_none())
        {
            return Err(self.invalid(&raw.format.span(), format!("{what} needs `{key}`")));
        }

        let positive = |value: &Option<Spanned<u32>>, key: &str, default: u32| -> Result<u32, ConfigError> {
            match value {
                Some(v) if *v.get_ref() == 0 => Err(self.invalid(&v.span(), format!("{key} = 0: must be at least 1"))),
                Some(v) => Ok(*v.get_ref()),
                None => Ok(default),
            }
        };

        let cycles = positive(&raw.cycles, "cycles", 1)?;
        let groups = match &raw.groups {
            Some(v) => {
                let n = *v.get_ref();
                if !n.is_power_of_two() {
                    return Err(self.invalid(&v.span(), format!("groups = {n}: must be a power of two (1, 2, 4, 8, ...)")));
                }
                if let Some(n_entrants) = n_entrants
                    && (n as usize) * 2 > n_entrants
                {
                    return Err(self.invalid(
                        &v.span(),
                        format!("groups = {n} needs at least {} entrants (2 a group); the config lists {n_entrants}", n * 2),
                    ));
                }
                n
            }
            None => 1,
        };
        let top = match &raw.top {
            Some(v) => {
                let n = *v.get_ref();
                if n < 2 {
                    return Err(self.invalid(&v.span(), format!("top = {n}: a final needs at least 2 entrants")));
                }
                if let Some(n_entrants) = n_entrants
                    && n as usize > n_entrants
                {
                    return Err(self.invalid(&v.span(), format!("top = {n}: the config lists only {n_entrants} entrants")));
                }
                n
            }
            None => 2,
        };
        let rounds = positive(&raw.rounds, "rounds", 1)?;
        // Keys a format needs were checked above: their defaults here are never taken.
        let stage_format = match format {
            Format::EntryCheck => StageFormat::EntryCheck {
                baseline: match &raw.baseline {
                    Some(v) => self.non_empty(v, "baseline")?,
                    None => "random".to_string(),
                },
            },
            Format::RoundRobin => StageFormat::RoundRobin { cycles },
            Format::Groups => StageFormat::Groups { groups, cycles },
            Format::DoubleElimination => {
                StageFormat::DoubleElimination { extra_deals: raw.extra_deals.as_ref().map_or(1, |v| *v.get_ref()) }
            }
            Format::Final => StageFormat::Final { top, cycles },
            Format::Swiss => StageFormat::Swiss { rounds },
            Format::Gauntlet => StageFormat::Gauntlet {
                challenger: match &raw.challenger {
                    Some(v) => self.non_empty(v, "challenger")?,
                    None => String::new(),
                },
            },
        };

        let options = match &raw.options {
            Some(options) => Some(self.options(game, options)?),
            None => None,
        };
        let effective_options = options.as_ref().unwrap_or(tournament_options);

        let matches = positive(&raw.matches, "matches", 1)?;
        let deals = positive(&raw.deals, "deals", 1)?;
        let swap = raw.swap.unwrap_or(true);

        let openings = match &raw.openings {
            Some(openings) => self.openings(game, openings)?,
            None => OpeningsConfig { default: true, file: None, generate: None },
        };

        let scoring = match &raw.scoring {
            Some(v) => {
                let scoring = *v.get_ref();
                if scoring.needs_game_scores() && !has_scores(game, effective_options) {
                    return Err(self.invalid(
                        &v.span(),
                        format!("scoring = \"{}\": {} games have no scores (use game-2-1-0 or game-1-half-0)", scoring.name(), game.name()),
                    ));
                }
                scoring
            }
            None => Scoring::Game1Half0,
        };
        let tie_breaks = match &raw.tie_breaks {
            Some(list) => {
                let mut tie_breaks = Vec::new();
                for item in list.get_ref() {
                    let tie_break = *item.get_ref();
                    if tie_breaks.contains(&tie_break) {
                        return Err(self.invalid(&item.span(), format!("tie-break {} is listed twice", tie_break.name())));
                    }
                    if tie_break == TieBreak::ExtraGames && !matches!(format, Format::RoundRobin | Format::Groups | Format::Final) {
                        return Err(self.invalid(
                            &item.span(),
                            format!("tie-break extra-games is for round-robin, groups and final stages, not {what}"),
                        ));
                    }
                    tie_breaks.push(tie_break);
                }
                tie_breaks
            }
            None => scoring.default_tie_breaks(),
        };
        let limits = match &raw.limits {
            Some(limits) => tournament_limits.overridden_by(self.limits(limits)?),
            None => tournament_limits,
        };

        let name = match &raw.name {
            Some(name) => self.non_empty(name, "name")?,
            None => format.name().to_string(),
        };

        Ok(StageConfig {
            name,
            format: stage_format,
            options,
            matches,
            deals,
            swap,
            openings,
            scoring,
            tie_breaks,
            limits,
            allow_replacement: raw.allow_replacement.unwrap_or(true),
        })
    }

    fn openings(&self, game: GameKind, spanned: &Spanned<RawOpenings>) -> Result<OpeningsConfig, ConfigError> {
        let raw = spanned.get_ref();
        let file = match &raw.file {
            Some(file) => Some(PathBuf::from(self.non_empty(file, "openings file")?)),
            None => None,
        };
        let generate = match &raw.generate {
            Some(v) if *v.get_ref() == 0 => return Err(self.invalid(&v.span(), "generate = 0: must be at least 1")),
            Some(v) if !game.info().generated_openings => {
                return Err(self.invalid(
                    &v.span(),
                    format!("generate: game {} has no generated openings ({})", game.name(), generated_openings_note()),
                ));
            }
            Some(v) => Some(*v.get_ref()),
            None => None,
        };
        let default = raw.default.unwrap_or(file.is_none() && generate.is_none());
        if !default && file.is_none() && generate.is_none() {
            return Err(self.invalid(&spanned.span(), "openings: no start positions (set default = true, a file or generate)"));
        }
        Ok(OpeningsConfig { default, file, generate })
    }
}

/// The tournament's name when the config gives none: the file's name without its folder
/// and extension.
fn default_name(file: &str) -> String {
    let stem = std::path::Path::new(file).file_stem().and_then(|stem| stem.to_str()).unwrap_or(file);
    if stem.is_empty() { "tournament".to_string() } else { stem.to_string() }
}

/// Checks game options the way a game would use them: a start made from them (Pah-tum's
/// random board) and a position on it.
pub fn check_game_options(game: GameKind, options: &Options) -> Result<(), SetupError> {
    start_position(game, options).map(|_| ())
}

fn start_position(game: GameKind, options: &Options) -> Result<AnyPosition, SetupError> {
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    let start = game.random_start(options, &mut rng)?;
    game.new_position(options, start.as_deref())
}

/// Whether games of `game` end with scores (Pah-tum, Legions, Nupud).
pub fn has_scores(game: GameKind, _options: &Options) -> bool {
    game.info().has_scores
}
