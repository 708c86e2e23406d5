//! The flags `play` and `match` share for engine matches, after fastchess's: PGN out
//! (`--pgn`), openings from a book (`--openings`, its order, plies and first position),
//! UCI options for both engines (`--engine-option`, fastchess's `-each option.NAME=`),
//! and adjudication (`--resign`, `--draw`, `--maxmoves`).

use std::io::Write;
use std::path::PathBuf;
use std::sync::Mutex;

use anyhow::{Context, bail};
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;
use rand::seq::SliceRandom;
use referee::adjudication::{Adjudication, Draw, Resign};
use referee::{BotSpec, GameRecord, Protocol};
use rules::GameKind;

/// In what order a book's positions are played.
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Order {
    /// In file order.
    #[default]
    Sequential,
    /// Shuffled with the run's seed.
    Random,
}

#[derive(clap::Args, Debug, Clone, Default)]
pub struct EngineArgs {
    /// Append each game to FILE as PGN (chess), as it ends.
    #[arg(long, value_name = "FILE")]
    pub pgn: Option<PathBuf>,
    /// Start each pair of games from the next position of a book: chess's EPD (a
    /// position a line) or PGN (each game's moves), or any game's start texts separated
    /// by blank lines. Each position is played twice, colours swapped.
    #[arg(long, value_name = "FILE")]
    pub openings: Option<PathBuf>,
    /// The order of the book's positions.
    #[arg(long, value_enum, default_value_t = Order::Sequential)]
    pub openings_order: Order,
    /// Play at most this many plies of a PGN book's lines.
    #[arg(long, value_name = "N")]
    pub openings_plies: Option<usize>,
    /// The book's first position to play, from 1.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub openings_start: usize,
    /// A UCI option for both engines, NAME=VALUE (e.g. Hash=16, Threads=1), as
    /// fastchess's `-each option.NAME=VALUE`; `nodes=N` and `depth=N` limit each search.
    /// Repeatable.
    #[arg(long = "engine-option", value_name = "NAME=VALUE")]
    pub engine_options: Vec<String>,
    /// Adjudicate a game lost when an engine's own score is S centipawns or more below
    /// zero for N of its moves in a row (fastchess's -resign).
    #[arg(long, value_name = "movecount=N,score=S[,twosided=true]")]
    pub resign: Option<String>,
    /// Adjudicate a game drawn when from move M on both engines score within S
    /// centipawns of zero for N moves each (fastchess's -draw).
    #[arg(long, value_name = "movenumber=M,movecount=N,score=S")]
    pub draw: Option<String>,
    /// Adjudicate a game drawn after M full moves.
    #[arg(long, value_name = "M")]
    pub maxmoves: Option<u32>,
}

impl EngineArgs {
    /// The adjudication asked for, `None` without one.
    pub fn adjudication(&self) -> anyhow::Result<Option<Adjudication>> {
        let resign = self.resign.as_deref().map(str::parse::<Resign>).transpose().context("--resign")?;
        let draw = self.draw.as_deref().map(str::parse::<Draw>).transpose().context("--draw")?;
        if self.maxmoves == Some(0) {
            bail!("--maxmoves must be at least 1");
        }
        Ok((resign.is_some() || draw.is_some() || self.maxmoves.is_some()).then_some(Adjudication {
            resign,
            draw,
            max_moves: self.maxmoves,
        }))
    }

    /// Gives the UCI engines among `bots` the `--engine-option` settings (over their
    /// manifests'); an error when there are settings and no UCI engine.
    pub fn apply_options(&self, bots: &mut [BotSpec]) -> anyhow::Result<()> {
        if self.engine_options.is_empty() {
            return Ok(());
        }
        let mut any = false;
        for bot in bots.iter_mut() {
            if let BotSpec::Program(program) = bot
                && program.manifest.protocol == Protocol::Uci
            {
                for pair in &self.engine_options {
                    program.manifest.uci.set(pair).map_err(anyhow::Error::msg)?;
                }
                any = true;
            }
        }
        if !any {
            bail!("--engine-option is for UCI engines (protocol = \"uci\"), and neither bot is one");
        }
        Ok(())
    }

    /// The book's start positions in the order they are played (from `--openings-start`,
    /// shuffled with `seed` for `--openings-order random`), `None` without a book.
    pub fn book(&self, kind: GameKind, options: &rules::Options, seed: u64) -> anyhow::Result<Option<Vec<String>>> {
        let Some(path) = &self.openings else {
            if self.openings_plies.is_some() || self.openings_order != Order::Sequential || self.openings_start != 1 {
                bail!("--openings-order, --openings-plies and --openings-start need --openings FILE");
            }
            return Ok(None);
        };
        let text = std::fs::read_to_string(path).with_context(|| format!("cannot read the openings {}", path.display()))?;
        let mut positions = match kind.read_openings(&text, self.openings_plies) {
            Some(read) => read.map_err(anyhow::Error::msg),
            None => tournament::openings::parse_file_with(kind, options, &text).map_err(anyhow::Error::from),
        }
        .with_context(|| format!("openings {}", path.display()))?;
        if self.openings_start == 0 || self.openings_start > positions.len() {
            bail!("--openings-start {}: the book has {} position(s), counted from 1", self.openings_start, positions.len());
        }
        if self.openings_order == Order::Random {
            positions.shuffle(&mut ChaCha8Rng::seed_from_u64(crate::game_args::derive(seed, 0x6f70_656e)));
        }
        positions.rotate_left(self.openings_start - 1);
        Ok(Some(positions))
    }

    /// The PGN file, opened to append, when asked for; an error for a game without PGN.
    pub fn pgn_out(&self, kind: GameKind) -> anyhow::Result<Option<PgnOut>> {
        let Some(path) = &self.pgn else { return Ok(None) };
        if !arena::pgn::writes_pgn(kind.name()) {
            bail!("--pgn: a {kind} game has no PGN (PGN is chess's record format)");
        }
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .with_context(|| format!("cannot open {} to write PGN", path.display()))?;
        Ok(Some(PgnOut { file: Mutex::new(file), path: path.clone() }))
    }
}

/// A PGN file games are appended to as they end.
pub struct PgnOut {
    file: Mutex<std::fs::File>,
    path: PathBuf,
}

impl PgnOut {
    /// Appends one game.
    pub fn write(&self, record: &GameRecord, event: &str, round: String, names: [&str; 2]) -> anyhow::Result<()> {
        let header = arena::pgn::Header { event, site: "Arbiter", round, names };
        let text = arena::pgn::game_pgn(record, &header).map_err(anyhow::Error::msg).context("cannot write a game as PGN")?;
        let mut file = self.file.lock().expect("the PGN file's lock is never poisoned");
        file.write_all(text.as_bytes()).with_context(|| format!("cannot write to {}", self.path.display()))
    }
}
