//! Start positions for tournament stages: generated ones (Gomoku's partially filled
//! fields, Pah-tum's blocked squares), reproducible from a seed, and the openings file
//! format (positions in the game's start text, separated by blank lines).
//!
//! Generated Gomoku openings: `k` pairs of marks, `k` uniform in [`GOMOKU_PAIRS`] (3..=6),
//! placed uniformly on the empty cells of the central 6×6 square (columns `C`..`H`, rows
//! 2..7), `X` to move. A candidate is kept only if it is balanced:
//! - the rules accept it (as many `X` as `0`, no five);
//! - neither side has a cell that would complete five (no four of either side, so no
//!   open four, and `X` to move cannot win at once nor must answer a threat);
//! - neither side has a move that makes two such cells at once (an open four or a double
//!   four: a win that cannot be stopped), so no side starts with a forced win in two;
//! - it differs from the openings generated before it in the same run.
//!
//! Generated Pah-tum openings: boards with the option `blocked` squares when the options
//! set it, else an odd count drawn uniformly from [`PAHTUM_BLOCKED`] (3, 5, 7, 9) for
//! each board; the squares are uniform (the rules' `random_start`); no two boards alike.
//!
//! Opening `i` is drawn from its own seed, `derive_seed(seed, "opening/i/attempt")`, so
//! the first `n` openings of a longer run are the openings of a run of `n`.

use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};
use rules::gomoku::{self, Field};
use rules::{GameKind, Options, SetupError, Side};

use crate::config::OpeningsConfig;
use crate::derive_seed;

/// How many pairs of marks a generated Gomoku opening holds.
pub const GOMOKU_PAIRS: std::ops::RangeInclusive<usize> = 3..=6;

/// The square of a generated Gomoku opening's marks: rows and columns 2..=7.
pub const GOMOKU_AREA: std::ops::RangeInclusive<usize> = 2..=7;

/// The blocked-square counts of generated Pah-tum openings when the options set none.
pub const PAHTUM_BLOCKED: [usize; 4] = [3, 5, 7, 9];

/// Candidates tried for one opening before giving up (a balanced one is found within a
/// few tries in practice).
const MAX_ATTEMPTS: u32 = 10_000;

/// Why openings could not be made or read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OpeningsError {
    #[error("game {0} has no generated openings (only gomoku and pahtum have them)")]
    NotGenerated(GameKind),
    #[error(transparent)]
    Setup(#[from] SetupError),
    #[error("no balanced opening found for opening {index} after {MAX_ATTEMPTS} tries")]
    Exhausted { index: usize },
    /// `index` counts from 1, in file order.
    #[error("position {index}: {reason}")]
    BadPosition { index: usize, reason: String },
    #[error("the openings file holds no positions")]
    Empty,
}

/// `count` start positions for `kind` in the game's start text, reproducible from
/// `seed` (see the module doc for what is generated and checked).
pub fn generate(kind: GameKind, options: &Options, count: usize, seed: u64) -> Result<Vec<String>, OpeningsError> {
    if !crate::config::GENERATED_OPENINGS.contains(&kind) {
        return Err(OpeningsError::NotGenerated(kind));
    }
    crate::config::check_game_options(kind, options)?;
    let mut positions: Vec<String> = Vec::with_capacity(count);
    for index in 0..count {
        let mut found = None;
        for attempt in 0..MAX_ATTEMPTS {
            let mut rng = ChaCha8Rng::seed_from_u64(derive_seed(seed, &format!("opening/{index}/{attempt}")));
            let candidate = match kind {
                GameKind::Gomoku => gomoku_candidate(&mut rng),
                GameKind::Pahtum => pahtum_candidate(options, &mut rng)?,
                _ => unreachable!("only games with generated openings get here"),
            };
            if let Some(text) = candidate
                && !positions.contains(&text)
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

fn gomoku_candidate(rng: &mut ChaCha8Rng) -> Option<String> {
    let mut area: Vec<(usize, usize)> = GOMOKU_AREA.flat_map(|row| GOMOKU_AREA.map(move |col| (col, row))).collect();
    let pairs = rng.random_range(GOMOKU_PAIRS);
    let mut field: Field = [[None; gomoku::SIZE]; gomoku::SIZE];
    for i in 0..pairs * 2 {
        let j = rng.random_range(i..area.len());
        area.swap(i, j);
        let (col, row) = area[i];
        field[row][col] = Some(if i % 2 == 0 { Side::First } else { Side::Second });
    }
    gomoku_is_balanced(&field).then(|| gomoku::format_field(&field))
}

/// Whether a Gomoku field is a balanced start (see the module doc): equal counts, no
/// five, no cell that completes five, no move that makes two such cells.
pub fn gomoku_is_balanced(field: &Field) -> bool {
    let count = |side: Side| field.iter().flatten().filter(|cell| **cell == Some(side)).count();
    if count(Side::First) != count(Side::Second) {
        return false;
    }
    let mut field = *field;
    for side in Side::BOTH {
        if has_five(&field, side) || !winning_cells(&mut field, side).is_empty() {
            return false;
        }
        for (col, row) in empty_cells(&field) {
            field[row][col] = Some(side);
            let threats = winning_cells(&mut field, side).len();
            field[row][col] = None;
            if threats >= 2 {
                return false;
            }
        }
    }
    true
}

fn empty_cells(field: &Field) -> Vec<(usize, usize)> {
    (0..gomoku::SIZE).flat_map(|row| (0..gomoku::SIZE).map(move |col| (col, row))).filter(|&(col, row)| field[row][col].is_none()).collect()
}

/// The empty cells where a mark of `side` would make five or more in a row.
pub fn winning_cells(field: &mut Field, side: Side) -> Vec<(usize, usize)> {
    let mut cells = Vec::new();
    for (col, row) in empty_cells(field) {
        field[row][col] = Some(side);
        if five_through(field, side, col, row) {
            cells.push((col, row));
        }
        field[row][col] = None;
    }
    cells
}

fn has_five(field: &Field, side: Side) -> bool {
    (0..gomoku::SIZE).any(|row| (0..gomoku::SIZE).any(|col| field[row][col] == Some(side) && five_through(field, side, col, row)))
}

fn five_through(field: &Field, side: Side, col: usize, row: usize) -> bool {
    let size = gomoku::SIZE as isize;
    [(1isize, 0isize), (0, 1), (1, 1), (1, -1)].into_iter().any(|(dc, dr)| {
        let mut run = 1;
        for sign in [1isize, -1] {
            let (mut c, mut r) = (col as isize + sign * dc, row as isize + sign * dr);
            while (0..size).contains(&c) && (0..size).contains(&r) && field[r as usize][c as usize] == Some(side) {
                run += 1;
                c += sign * dc;
                r += sign * dr;
            }
        }
        run >= gomoku::WIN_LENGTH
    })
}

fn pahtum_candidate(options: &Options, rng: &mut ChaCha8Rng) -> Result<Option<String>, OpeningsError> {
    let mut options = options.clone();
    if !options.contains_key("blocked") {
        let blocked = PAHTUM_BLOCKED[rng.random_range(0..PAHTUM_BLOCKED.len())];
        options.insert("blocked".to_string(), blocked.to_string());
    }
    Ok(GameKind::Pahtum.random_start(&options, rng)?)
}

/// Reads an openings file: positions in the game's start text separated by blank lines;
/// lines starting with `#` are comments. Each position is checked by the rules with the
/// game's default options; see [`parse_file_with`].
pub fn parse_file(kind: GameKind, text: &str) -> Result<Vec<String>, OpeningsError> {
    parse_file_with(kind, &Options::new(), text)
}

/// Like [`parse_file`], checking each position with `options` (Connect Four's board
/// size). Positions come back in the game's canonical start text, each ended by a line
/// end; errors name the position by its number in the file, from 1.
pub fn parse_file_with(kind: GameKind, options: &Options, text: &str) -> Result<Vec<String>, OpeningsError> {
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
) -> Result<Vec<String>, OpeningsError> {
    let mut positions = match file_text {
        Some(text) => parse_file_with(kind, options, text)?,
        None => Vec::new(),
    };
    if let Some(count) = config.generate {
        positions.extend(generate(kind, options, count as usize, seed)?);
    }
    Ok(positions)
}
