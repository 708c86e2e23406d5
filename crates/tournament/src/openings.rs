//! Start positions for tournament stages: generated ones, reproducible from a seed, and
//! the openings file format (positions in the game's start text, separated by blank
//! lines).
//!
//! What a generated opening is belongs to each game ([`rules::Game::opening_candidate`]:
//! Gomoku's balanced partly filled fields, Pah-tum's blocked squares); here they are
//! drawn and kept distinct. Opening `i` is drawn from its own seed,
//! `derive_seed(seed, "opening/i/attempt")`, a candidate the game refuses (unbalanced),
//! that is decided at once ([`decided_early`]) or that repeats an earlier opening of the
//! run is drawn again, so the first `n` openings of a longer run are the openings of a
//! run of `n`.

use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;
use rules::{AnyPosition, GameKind, Options, SetupError};

use crate::config::OpeningsConfig;
use crate::derive_seed;

/// Candidates tried for one opening before giving up (a balanced one is found within a
/// few tries in practice).
const MAX_ATTEMPTS: u32 = 10_000;

/// Plies within which a generated start must not be won by `medium` playing both sides.
/// A start that one move deep looks balanced may still be a win for the side to move
/// by a few threats: of 100 Gomoku starts of the one-move check, 24 were won by the side
/// to move in both games of a deal between `strong` and `medium`, 21 of them within 17
/// plies (`docs/players.md`, Gomoku).
pub const QUIET_PLIES: usize = 20;

/// Whether a side wins from a position within so many plies when a fixed player plays
/// both sides: the caller's, which has the players (`players::medium_wins_within`, the
/// `medium` rung: a fixed-size search, the same answer on every machine).
pub type WinsWithin<'a> = &'a dyn Fn(&AnyPosition, usize) -> bool;

/// Whether the game from `start` ends with a win within [`QUIET_PLIES`] by `wins_within`:
/// such a start decides the deal before the entrants play it. Games that end with scores
/// are not probed: Pah-tum, the other game with generated starts, is scored on a full
/// board and never ends early (and its `medium`, a tree search, would be slow to ask 20
/// times for every candidate).
pub fn decided_early(kind: GameKind, options: &Options, start: &str, wins_within: WinsWithin) -> bool {
    if kind.info().has_scores {
        return false;
    }
    let Ok(pos) = kind.new_position(options, Some(start)) else {
        return true;
    };
    wins_within(&pos, QUIET_PLIES)
}

/// Why openings could not be made or read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OpeningsError {
    #[error("game {0} has no generated openings ({note})", note = crate::config::generated_openings_note())]
    NotGenerated(GameKind),
    #[error(transparent)]
    Setup(#[from] SetupError),
    #[error("no balanced opening found for opening {index} after {MAX_ATTEMPTS} tries")]
    Exhausted { index: usize },
    /// `index` counts from 1, in file order.
    #[error("position {index}: {reason}")]
    BadPosition { index: usize, reason: String },
    /// A book in the game's own format that cannot be read, with where and why.
    #[error("{0}")]
    Book(String),
    #[error("the openings file holds no positions")]
    Empty,
}

/// `count` start positions for `kind` in the game's start text, reproducible from
/// `seed` (see the module doc for what is generated and checked; `wins_within` judges
/// which are [`decided_early`]).
pub fn generate(kind: GameKind, options: &Options, count: usize, seed: u64, wins_within: WinsWithin) -> Result<Vec<String>, OpeningsError> {
    if !kind.info().generated_openings {
        return Err(OpeningsError::NotGenerated(kind));
    }
    crate::config::check_game_options(kind, options)?;
    let mut positions: Vec<String> = Vec::with_capacity(count);
    for index in 0..count {
        let mut found = None;
        for attempt in 0..MAX_ATTEMPTS {
            let mut rng = ChaCha8Rng::seed_from_u64(derive_seed(seed, &format!("opening/{index}/{attempt}")));
            let candidate = kind.opening_candidate(options, &mut rng)?;
            if let Some(text) = candidate
                && !positions.contains(&text)
                && !decided_early(kind, options, &text, wins_within)
            {
                found = Some(text);
                break;
            }
        }
        let text = found.ok_or(OpeningsError::Exhausted { index })?;
        kind.new_position(options, Some(&text)).expect("generated openings are valid by the rules");
        positions.push(text);
    }
    Ok(positions)
}

/// Reads an openings file: positions in the game's start text separated by blank lines;
/// lines starting with `#` are comments. Each position is checked by the rules with the
/// game's default options; see [`parse_file_with`].
pub fn parse_file(kind: GameKind, text: &str) -> Result<Vec<String>, OpeningsError> {
    parse_file_with(kind, &Options::new(), text)
}

/// Like [`parse_file`], checking each position with `options` (Connect Four's board
/// size); a game with a book format of its own reads that instead
/// ([`rules::Game::read_openings`]: chess's EPD and PGN, whose errors say where). Positions come back in the game's canonical start text, each ended by a line
/// end; errors name the position by its number in the file, from 1.
pub fn parse_file_with(kind: GameKind, options: &Options, text: &str) -> Result<Vec<String>, OpeningsError> {
    // A game with a book format of its own (chess's EPD and PGN) reads it.
    if let Some(read) = kind.read_openings(text, None) {
        return read.map_err(OpeningsError::Book).and_then(
            |positions| {
                if positions.is_empty() { Err(OpeningsError::Empty) } else { Ok(positions) }
            },
        );
    }
    let mut positions = Vec::new();
    for (idx, block) in blocks(text).into_iter().enumerate() {
        let index = idx + 1;
        let pos = kind.new_position(options, Some(&block)).map_err(|err| OpeningsError::BadPosition { index, reason: err.to_string() })?;
        positions.push(pos.start_text().unwrap_or(block));
    }
    if positions.is_empty() {
        return Err(OpeningsError::Empty);
    }
    Ok(positions)
}

/// The positions of a file as text blocks: comment lines dropped, split at blank lines.
fn blocks(text: &str) -> Vec<String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut blocks = Vec::new();
    let mut current = String::new();
    for line in text.lines() {
        if line.trim_start().starts_with('#') {
            continue;
        }
        if line.trim().is_empty() {
            if !current.is_empty() {
                blocks.push(std::mem::take(&mut current));
            }
            continue;
        }
        current.push_str(line);
        current.push('\n');
    }
    if !current.is_empty() {
        blocks.push(current);
    }
    blocks
}

/// Writes an openings file: the positions, each ended by a line end, separated by one
/// blank line. [`parse_file`] reads it back.
pub fn format_file(positions: &[String]) -> String {
    let mut text = String::new();
    for (idx, position) in positions.iter().enumerate() {
        if idx > 0 {
            text.push('\n');
        }
        text.push_str(position.trim_end_matches(['\n', '\r']));
        text.push('\n');
    }
    text
}

/// The seed a stage's generated openings come from: the tournament's seed and the
/// stage's index (`openings/stage-N`).
pub fn stage_seed(tournament_seed: u64, stage: usize) -> u64 {
    derive_seed(tournament_seed, &format!("openings/stage-{stage}"))
}

/// A stage's start positions (what [`crate::GameSpec::opening`] indexes), when the stage
/// starts: the file's positions (the runner reads the file and passes its text), then
/// the generated ones from [`stage_seed`]. The game's default start, when the config
/// keeps it, is not in the list: it is `GameSpec::opening == None`.
pub fn stage_openings(
    kind: GameKind,
    options: &Options,
    config: &OpeningsConfig,
    file_text: Option<&str>,
    seed: u64,
    wins_within: WinsWithin,
) -> Result<Vec<String>, OpeningsError> {
    let mut positions = match file_text {
        Some(text) => parse_file_with(kind, options, text)?,
        None => Vec::new(),
    };
    if let Some(count) = config.generate {
        positions.extend(generate(kind, options, count as usize, seed, wins_within)?);
    }
    Ok(positions)
}
