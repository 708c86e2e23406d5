//! What the commands that play games (`play`, `match`, `bench-play`, `doctor`, `replay`)
//! share: the `--no-reuse` flag, bot arguments, `--limit` pairs, a side's limits, a
//! bot's stderr as printed, records written into a folder, and seeds derived from a
//! run's seed.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use referee::{BotSpec, GameRecord, LimitOverrides, Limits};
use rules::GameKind;

use crate::terminal::printable;

/// The game and how it is played, as `play`, `match` and `bench-play` take it: the
/// game's name (their first argument), its options and the limits for both sides.
#[derive(clap::Args, Debug, Clone)]
pub struct GameChoice {
    /// The game (`arbiter games` lists them).
    pub game: String,
    /// A game option, e.g. `-o width=20 -o height=20` (repeatable).
    #[arg(short = 'o', long = "option", value_name = "KEY=VALUE")]
    pub options: Vec<String>,
    /// A limit for both sides, overriding the game's and the manifests': move-ms,
    /// move-cpu-ms, game-ms, cpu-ms, memory-mb, stderr-kb, disk-mb, files (0 removes a
    /// time limit). Repeatable.
    #[arg(short = 'l', long = "limit", value_name = "KEY=VALUE")]
    pub limits: Vec<String>,
}

impl GameChoice {
    /// The game, its options and the limits' overrides, each checked.
    pub fn read(&self) -> anyhow::Result<(GameKind, rules::Options, LimitOverrides)> {
        let kind = GameKind::from_name(&self.game)?;
        let options = super::parse_options(kind, &self.options)?;
        Ok((kind, options, parse_limits(&self.limits)?))
    }
}

/// What `play` and `match` both say about a run of games: its seed, where the records
/// go, and whether the summary is JSON.
#[derive(clap::Args, Debug, Clone)]
pub struct RunArgs {
    /// Seed of all randomness: the same seed plays the same games (`play` and `match`
    /// alike). Random if not given.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Write each game's record (one line of JSON) into this folder, as game-NNNN.json
    /// numbered on after the records already there (none is replaced).
    #[arg(long, value_name = "DIR")]
    pub record: Option<PathBuf>,
    /// Print a machine-readable summary (JSON) instead of text.
    #[arg(long)]
    pub json: bool,
}

/// The `--no-reuse` flag of `play`, `match` and `bench-play`.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct ReuseArgs {
    /// Start every bot afresh for each game, even one that can play game after game in
    /// one process (the project protocol's `reuse`, kept by default).
    #[arg(long)]
    pub no_reuse: bool,
}

impl ReuseArgs {
    /// Where processes wait between games, for `jobs` parallel games of two bots; `None`
    /// with `--no-reuse`.
    pub fn pool(&self, jobs: usize) -> Option<std::sync::Arc<referee::pool::Pool>> {
        (!self.no_reuse).then(|| referee::pool::Pool::new(referee::pool::Pool::size_for(2, jobs)))
    }
}

/// Where sandboxes for the next games of bots with a process per move are started ahead,
/// for `jobs` parallel games of two bots; `None` outside the sandbox.
pub fn ahead(sandboxed: bool, jobs: usize) -> Option<std::sync::Arc<referee::ahead::Ahead>> {
    sandboxed.then(|| referee::ahead::Ahead::new(referee::pool::Pool::size_for(2, jobs)))
}

/// Reads a bot argument and checks that it plays this game.
pub fn bot(arg: &str, kind: GameKind) -> anyhow::Result<BotSpec> {
    let spec = BotSpec::from_arg(arg)?;
    if let BotSpec::Program(program) = &spec
        && let Some(plays) = program.plays_other_than(kind)
    {
        bail!("bot {arg} plays {plays}, not {kind}");
    }
    Ok(spec)
}

/// Reads `--limit key=value` pairs.
pub fn parse_limits(pairs: &[String]) -> anyhow::Result<LimitOverrides> {
    let mut table = toml::Table::new();
    for pair in pairs {
        let Some((key, value)) = pair.split_once('=') else {
            bail!("limit {pair:?} is not key=value (e.g. --limit move-ms=500)");
        };
        // A time control as fastchess writes it: `tc=40/60+0.6`.
        if key.trim() == "tc" {
            table.insert("tc".to_string(), toml::Value::String(value.trim().to_string()));
            continue;
        }
        let value: i64 = value.trim().parse().with_context(|| format!("limit {key}: {value:?} is not a whole number"))?;
        if value < 0 {
            bail!("limit {key} cannot be negative");
        }
        table.insert(key.trim().to_string(), toml::Value::Integer(value));
    }
    let overrides: LimitOverrides = table.try_into().map_err(|err: toml::de::Error| {
        anyhow::anyhow!(
            "{} (limits: move-ms, move-cpu-ms, game-ms, increment-ms, moves-to-go, margin-ms, tc, cpu-ms, memory-mb, stderr-kb, disk-mb, files)",
            err.message().trim()
        )
    })?;
    Ok(overrides)
}

/// A side's limits: the game's (`base`), then the bot's manifest, then the command line.
pub fn side_limits(base: Limits, bot: &BotSpec, overrides: &LimitOverrides) -> Limits {
    let mut limits = base;
    if let BotSpec::Program(program) = bot {
        limits = limits.with(&program.manifest.limits);
    }
    limits.with(overrides)
}

/// A bot's debug output, each line escaped (see [`crate::terminal`]).
pub fn print_stderr(stderr: &str, dropped: u64) {
    for line in stderr.lines() {
        println!("   | {}", printable(line));
    }
    if dropped > 0 {
        println!("   | [... {dropped} more bytes of stderr dropped]");
    }
}

/// Writes a record into `dir` as `game-NNNN.json`, numbered on after the highest number
/// there. A file is never replaced: created with `create_new`, a name another run took
/// meanwhile moves on to the next number.
pub fn write_record(dir: &Path, record: &GameRecord) -> anyhow::Result<PathBuf> {
    use std::io::Write;
    let mut line = serde_json::to_string(record)?;
    line.push('\n');
    let mut number = highest_record(dir)? + 1;
    loop {
        let path = dir.join(format!("game-{number:04}.json"));
        match std::fs::OpenOptions::new().write(true).create_new(true).open(&path) {
            Ok(mut file) => {
                file.write_all(line.as_bytes()).with_context(|| format!("cannot write record {}", path.display()))?;
                return Ok(path);
            }
            Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => number += 1,
            Err(err) => return Err(err).with_context(|| format!("cannot write record {}", path.display())),
        }
    }
}

/// The highest N of the `game-N.json` files in `dir`, 0 when there is none.
fn highest_record(dir: &Path) -> anyhow::Result<u64> {
    let mut highest = 0;
    for entry in std::fs::read_dir(dir).with_context(|| format!("cannot read record folder {}", dir.display()))? {
        let entry = entry.with_context(|| format!("cannot read record folder {}", dir.display()))?;
        let name = entry.file_name();
        let number =
            name.to_str().and_then(|n| n.strip_prefix("game-")).and_then(|n| n.strip_suffix(".json")).and_then(|n| n.parse::<u64>().ok());
        highest = highest.max(number.unwrap_or(0));
    }
    Ok(highest)
}

/// A seed for one part of a run, from the run's seed (SplitMix64 finaliser).
pub fn derive(seed: u64, part: u64) -> u64 {
    let mut z = seed ^ part.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}
