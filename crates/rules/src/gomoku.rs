//! Gomoku 10×10, freestyle: the rules of seed 000 (a school and university bot tournament
//! of Riga Technical University's Daugavpils branch, 2004; the rules in full are in
//! `docs/games.md`).
//!
//! Two players take turns putting a mark on any empty cell of a 10×10 board; `X` moves
//! first, the second player's mark is the digit `0`. No passing. Five or more marks of one
//! player in a row, column or either diagonal win at once (six in a row wins too); a full
//! board without a five is a draw.
//!
//! Options: none. The start is the empty board, or a partially filled field (equal
//! numbers of `X` and `0`, `X` to move, no five) given as field text.
//!
//! Move notation: the column letter `A`..`J` (left to right), then the row digit `0`..`9`
//! (top to bottom; row 0 is the first line of a field), e.g. `B7`. Letters are read in
//! either case and surrounding whitespace is ignored.
//!
//! Field text (the native format of both bot interfaces, also the start text): 10 lines of
//! 10 characters, `.` empty, `X` cross, `0` nought; see [`parse_field`] and
//! [`format_field`]. The console interface's other answers: [`mark_char`] for `figure?`,
//! [`Position::step_answer`] for `step?`.
//!
//! Decisions where the seed is silent:
//! - An off-board cell (`K3`, `A10`) is a [`MoveError::Parse`]: a [`Move`] is always a
//!   cell of the board. Either way the bot loses.
//! - A start field must leave at least one empty cell; a full one is refused.
//! - Field readers also skip a leading byte-order mark and empty lines after the tenth;
//!   anything else off the format (spaces, `x`, the letter `O`) is refused.
//! - [`Game::n_moves`] counts the plies played since the start position, not the marks
//!   on the board (see [`Position::n_marks`]).

use rand::{Rng, RngExt};

use crate::view::{self, BoardStyle, BoardView, CellView, Grid, Input, Pieces};
use crate::{Game, GameInfo, LimitSet, MoveError, Options, Outcome, SetupError, Side};

/// Width and height of the board.
pub const SIZE: usize = 10;

/// Number of cells on the board.
pub const N_CELLS: usize = SIZE * SIZE;

/// Marks in a row that win.
pub const WIN_LENGTH: usize = 5;

/// How many pairs of marks a generated tournament opening holds.
pub const OPENING_PAIRS: std::ops::RangeInclusive<usize> = 3..=6;

/// The square of a generated opening's marks: rows and columns 2..=7 (`C`..`H`).
pub const OPENING_AREA: std::ops::RangeInclusive<usize> = 2..=7;

/// Bits per board row in the bitboards: one more than the width, so that the spare
/// column (always empty) stops runs from wrapping round from one row into the next.
const STRIDE: usize = SIZE + 1;

/// Bit shifts to the next cell along a line: right, down-left, down, down-right.
const DIRECTIONS: [usize; 4] = [1, STRIDE - 1, STRIDE, STRIDE + 1];

/// Every bit that stands for a cell of the board.
const BOARD_MASK: u128 = board_mask();

const fn board_mask() -> u128 {
    let mut mask = 0u128;
    let mut row = 0;
    while row < SIZE {
        mask |= ((1u128 << SIZE) - 1) << (row * STRIDE);
        row += 1;
    }
    mask
}

/// The character of a side's mark in field text and in the console interface's
/// `figure?` answer: `X` for the first player, `0` (the digit) for the second.
pub fn mark_char(side: Side) -> char {
    match side {
        Side::First => 'X',
        Side::Second => '0',
    }
}

/// The side whose mark is `mark` (`X` or `0`, as in the file interface's command and the
/// `figure?` answer); `None` for any other character.
pub fn side_from_mark(mark: char) -> Option<Side> {
    match mark {
        'X' => Some(Side::First),
        '0' => Some(Side::Second),
        _ => None,
    }
}

/// A cell of the board; a move is the cell a mark goes on.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Move {
    /// `row * SIZE + col`: reading order.
    idx: u8,
}

impl Move {
    /// The cell in column `col` (0 = `A`) and row `row` (0 = the first line); `None`
    /// off the board.
    pub fn new(col: usize, row: usize) -> Option<Move> {
        (col < SIZE && row < SIZE).then(|| Move { idx: (row * SIZE + col) as u8 })
    }

    /// The cell with reading-order index `idx` (`row * 10 + col`); `None` off the board.
    pub fn from_index(idx: usize) -> Option<Move> {
        (idx < N_CELLS).then_some(Move { idx: idx as u8 })
    }

    /// Column, 0 = `A`.
    pub fn col(self) -> usize {
        self.idx as usize % SIZE
    }

    /// Row, 0 = the first line of a field.
    pub fn row(self) -> usize {
        self.idx as usize / SIZE
    }

    /// Reading-order index, `row * 10 + col`.
    pub fn index(self) -> usize {
        self.idx as usize
    }

    /// Reads a move in the notation (`B7`, ` b7 `); see [`Game::parse_move`].
    pub fn parse(text: &str) -> Result<Move, MoveError> {
        let trimmed = text.trim();
        let err = |reason: String| MoveError::Parse { text: text.to_string(), reason };
        let mut chars = trimmed.chars();
        let Some(letter) = chars.next() else {
            return Err(err("empty move".to_string()));
        };
        let rest = chars.as_str();
        if !letter.is_ascii_alphabetic() || rest.is_empty() || !rest.chars().all(|c| c.is_ascii_digit()) {
            return Err(err("expected a column letter A..J and a row digit 0..9, like B7".to_string()));
        }
        let letter = letter.to_ascii_uppercase();
        let col = (letter as u8 - b'A') as usize;
        if col >= SIZE {
            return Err(err(format!("column {letter} is off the board (columns are A..J)")));
        }
        if rest.len() != 1 {
            return Err(err(format!("row {rest} is off the board (rows are 0..9)")));
        }
        let row = (rest.as_bytes()[0] - b'0') as usize;
        Ok(Move::new(col, row).expect("column and row were checked"))
    }

    fn bit(self) -> u128 {
        1u128 << bit_index(self.col(), self.row())
    }

    fn from_bit_index(bit: u32) -> Move {
        let bit = bit as usize;
        Move::new(bit % STRIDE, bit / STRIDE).expect("only board bits are set")
    }
}

impl std::fmt::Display for Move {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}{}", (b'A' + self.col() as u8) as char, self.row())
    }
}

impl std::str::FromStr for Move {
    type Err = MoveError;
    fn from_str(text: &str) -> Result<Move, MoveError> {
        Move::parse(text)
    }
}

fn bit_index(col: usize, row: usize) -> usize {
    row * STRIDE + col
}

/// True when `marks` holds five (or more) in a row in any direction.
fn has_five(marks: u128) -> bool {
    DIRECTIONS.iter().any(|&d| {
        let two = marks & (marks >> d);
        let four = two & (two >> (2 * d));
        four & (marks >> (4 * d)) != 0
    })
}

/// The contents of a board, `field[row][col]`: `None` empty, `Some(side)` that side's mark.
pub type Field = [[Option<Side>; SIZE]; SIZE];

/// Why a field text could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FieldError {
    #[error("field has {found} lines, expected {SIZE}")]
    LineCount { found: usize },
    /// `row` counts from 0, as in the move notation.
    #[error("field row {row} has {found} characters, expected {SIZE}")]
    LineLength { row: usize, found: usize },
    #[error("field row {row}, column {col}: unexpected character {found:?} (expected '.', 'X' or '0')")]
    BadChar { row: usize, col: char, found: char },
}

/// Reads field text: 10 lines of 10 characters, `.` empty, `X` cross, `0` nought. Line
/// *i* is row *i* (counted from 0, as in the notation and in [`FieldError`]). Lines end with
/// `\n` or `\r\n`; the last line end is optional, and empty lines after the tenth line
/// and a leading byte-order mark are ignored. Nothing else is tolerated: no spaces, no
/// lowercase `x`, no letter `O`.
pub fn parse_field(text: &str) -> Result<Field, FieldError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines: Vec<&str> = text.split('\n').map(|line| line.strip_suffix('\r').unwrap_or(line)).collect();
    while lines.len() > SIZE && lines.last().is_some_and(|line| line.is_empty()) {
        lines.pop();
    }
    if lines.len() != SIZE {
        let found = if lines.len() == 1 && lines[0].is_empty() { 0 } else { lines.len() };
        return Err(FieldError::LineCount { found });
    }
    let mut field: Field = [[None; SIZE]; SIZE];
    for (row, line) in lines.iter().enumerate() {
        let n_chars = line.chars().count();
        if n_chars != SIZE {
            return Err(FieldError::LineLength { row, found: n_chars });
        }
        for (col, ch) in line.chars().enumerate() {
            field[row][col] = match ch {
                '.' => None,
                _ => Some(side_from_mark(ch).ok_or(FieldError::BadChar { row, col: (b'A' + col as u8) as char, found: ch })?),
            };
        }
    }
    Ok(field)
}

/// Writes field text: 10 lines of 10 characters, each line ended by `\n`.
pub fn format_field(field: &Field) -> String {
    let mut text = String::with_capacity(SIZE * (SIZE + 1));
    for row in field {
        text.extend(row.iter().map(|cell| cell.map_or('.', mark_char)));
        text.push('\n');
    }
    text
}

/// A game of gomoku in progress.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    /// The marks of each side, by [`Side::index`], one bit per cell at `row * 11 + col`.
    marks: [u128; 2],
    /// The marks of the start position, same layout.
    start: [u128; 2],
    /// Plies played since the start position.
    n_moves: usize,
    last_move: Option<Move>,
    outcome: Option<Outcome>,
}

impl Position {
    /// The empty board, `X` to move.
    pub fn empty() -> Position {
        Position { marks: [0; 2], start: [0; 2], n_moves: 0, last_move: None, outcome: None }
    }

    /// A start position from a board: it needs as many `X` as `0` (so `X` is to move), no
    /// five of either side and at least one empty cell.
    pub fn from_field(field: &Field) -> Result<Position, SetupError> {
        let mut marks = [0u128; 2];
        for (row, cells) in field.iter().enumerate() {
            for (col, cell) in cells.iter().enumerate() {
                if let Some(side) = cell {
                    marks[side.index()] |= 1u128 << bit_index(col, row);
                }
            }
        }
        let [n_x, n_o] = marks.map(|m| m.count_ones());
        if n_x != n_o {
            return Err(SetupError::BadStart(format!(
                "the field has {n_x} X and {n_o} 0; a start position needs as many X as 0 (X moves first)"
            )));
        }
        for side in Side::BOTH {
            if has_five(marks[side.index()]) {
                return Err(SetupError::BadStart(format!("{} already has five in a row", mark_char(side))));
            }
        }
        if (marks[0] | marks[1]) == BOARD_MASK {
            return Err(SetupError::BadStart("the field is full: no move is left to play".to_string()));
        }
        Ok(Position { marks, start: marks, n_moves: 0, last_move: None, outcome: None })
    }

    /// The contents of cell (`col`, `row`): `None` when empty. Panics off the board.
    pub fn cell(&self, col: usize, row: usize) -> Option<Side> {
        assert!(col < SIZE && row < SIZE, "cell ({col}, {row}) is off the board");
        let bit = 1u128 << bit_index(col, row);
        Side::BOTH.into_iter().find(|side| self.marks[side.index()] & bit != 0)
    }

    /// The contents of the cell a move names.
    pub fn cell_at(&self, mv: Move) -> Option<Side> {
        self.cell(mv.col(), mv.row())
    }

    /// The whole board.
    pub fn field(&self) -> Field {
        let mut field: Field = [[None; SIZE]; SIZE];
        for (row, cells) in field.iter_mut().enumerate() {
            for (col, cell) in cells.iter_mut().enumerate() {
                *cell = self.cell(col, row);
            }
        }
        field
    }

    /// The board as field text (the console interface's answer to `field?`, the file
    /// interface's field file).
    pub fn field_text(&self) -> String {
        format_field(&self.field())
    }

    /// The number of marks `side` has on the board (start position included).
    pub fn n_marks(&self, side: Side) -> usize {
        self.marks[side.index()].count_ones() as usize
    }

    /// The number of empty cells.
    pub fn n_empty(&self) -> usize {
        N_CELLS - (self.marks[0] | self.marks[1]).count_ones() as usize
    }

    /// The last move played in this game, `None` before the first (the console
    /// interface answers `step?` with `--` then).
    pub fn last_move(&self) -> Option<Move> {
        self.last_move
    }

    /// The console interface's answer to `step?`: the last move played, or `--` when no
    /// move has been played yet in this game (also after a partially filled start).
    pub fn step_answer(&self) -> String {
        self.last_move.map_or_else(|| "--".to_string(), |mv| mv.to_string())
    }

    /// The cells of the winner's lines of five or more through the last move, in reading
    /// order; empty unless the game was won.
    pub fn winning_cells(&self) -> Vec<Move> {
        let (Some(last), Some(Outcome { winner: Some(winner), .. })) = (self.last_move, self.outcome) else {
            return Vec::new();
        };
        let mut cells = Vec::new();
        for (dc, dr) in [(1isize, 0isize), (0, 1), (1, 1), (1, -1)] {
            let mut line = vec![last];
            for sign in [1isize, -1] {
                let (mut col, mut row) = (last.col() as isize, last.row() as isize);
                loop {
                    col += sign * dc;
                    row += sign * dr;
                    match (usize::try_from(col).ok(), usize::try_from(row).ok()) {
                        (Some(c), Some(r)) if c < SIZE && r < SIZE && self.cell(c, r) == Some(winner) => {
                            line.push(Move::new(c, r).expect("checked on the board"));
                        }
                        _ => break,
                    }
                }
            }
            if line.len() >= WIN_LENGTH {
                cells.extend(line);
            }
        }
        cells.sort();
        cells.dedup();
        cells
    }

    /// The empty cells where a mark of `side` would make five or more in a row, in
    /// reading order.
    pub fn completing_cells(&self, side: Side) -> Vec<Move> {
        let mine = self.marks[side.index()];
        let mut empty = self.empty_mask();
        let mut cells = Vec::new();
        while empty != 0 {
            let bit = empty & empty.wrapping_neg();
            empty &= empty - 1;
            if has_five(mine | bit) {
                cells.push(Move::from_bit_index(bit.trailing_zeros()));
            }
        }
        cells
    }

    fn empty_mask(&self) -> u128 {
        BOARD_MASK & !(self.marks[0] | self.marks[1])
    }

    fn side_to_move(&self) -> Side {
        if self.n_moves.is_multiple_of(2) { Side::First } else { Side::Second }
    }

    /// Puts the mark of the side to move on an empty cell and updates the outcome.
    fn place(&mut self, bit: u128, mv: Move) {
        let side = self.side_to_move();
        let mine = self.marks[side.index()] | bit;
        self.marks[side.index()] = mine;
        self.n_moves += 1;
        self.last_move = Some(mv);
        if has_five(mine) {
            self.outcome = Some(Outcome::win(side));
        } else if (self.marks[0] | self.marks[1]) == BOARD_MASK {
            self.outcome = Some(Outcome::draw());
        }
    }
}

impl Default for Position {
    fn default() -> Position {
        Position::empty()
    }
}

/// Whether a field is a balanced tournament opening: the rules accept it as a start
/// (as many `X` as `0`, no five), neither side has a cell that would complete five (so
/// no four of either side: `X` to move cannot win at once nor must answer a threat), and
/// neither side has a move that makes two such cells at once (an open or double four, a
/// win that cannot be stopped).
pub fn is_balanced_opening(field: &Field) -> bool {
    let Ok(pos) = Position::from_field(field) else {
        return false;
    };
    for side in Side::BOTH {
        if !pos.completing_cells(side).is_empty() {
            return false;
        }
        let mut empty = pos.empty_mask();
        while empty != 0 {
            let bit = empty & empty.wrapping_neg();
            empty &= empty - 1;
            let mut next = pos.clone();
            next.marks[side.index()] |= bit;
            if next.completing_cells(side).len() >= 2 {
                return false;
            }
        }
    }
    true
}

impl Game for Position {
    type Move = Move;
    const INFO: GameInfo = GameInfo {
        name: "gomoku",
        aliases: &[],
        title: "Gomoku 10x10, five or more in a row wins (seed 000, 2004)",
        side_names: ["X", "0"],
        notation: "column letter A-J then row digit 0-9 (row 0 at the top), e.g. B7",
        options: &[],
        enumerable: true,
        has_scores: false,
        hidden_information: false,
        start_required: false,
        generated_openings: true,
        style: BoardStyle {
            grid: Grid::Lines,
            pieces: Pieces::Stones,
            board_colour: "#deb66a",
            line_colour: "#6b4f24",
            piece_colours: ["#16181d", "#f7f7f2"],
            text_colours: ["#f7f7f2", "#16181d"],
        },
    };

    /// Seed 000: 5 seconds per move, no memory limit.
    fn seed_limits(_options: &Options) -> LimitSet {
        LimitSet { move_ms: Some(5_000), ..LimitSet::default() }
    }

    /// The 10 field rows (row 0 first) joined by `/`, `.` `X` `0`.
    fn position_line(&self) -> String {
        self.field_text().trim_end().replace('\n', "/")
    }

    /// Only with `X` to move (as many `X` as `0`), as a start field.
    fn from_position_line(_options: &Options, line: &str) -> Result<Self, String> {
        let field = parse_field(&line.replace('/', "\n")).map_err(|err| err.to_string())?;
        Position::from_field(&field).map_err(|err| err.to_string())
    }

    /// `k` pairs of marks, `k` uniform in [`OPENING_PAIRS`], placed uniformly on the
    /// empty cells of [`OPENING_AREA`]², `X` to move; kept only when
    /// [`is_balanced_opening`].
    fn opening_candidate<R: Rng + ?Sized>(_options: &Options, rng: &mut R) -> Result<Option<String>, SetupError> {
        let mut area: Vec<(usize, usize)> = OPENING_AREA.flat_map(|row| OPENING_AREA.map(move |col| (col, row))).collect();
        let pairs = rng.random_range(OPENING_PAIRS);
        let mut field: Field = [[None; SIZE]; SIZE];
        for i in 0..pairs * 2 {
            let j = rng.random_range(i..area.len());
            area.swap(i, j);
            let (col, row) = area[i];
            field[row][col] = Some(if i % 2 == 0 { Side::First } else { Side::Second });
        }
        Ok(is_balanced_opening(&field).then(|| format_field(&field)))
    }

    fn board_view(&self) -> BoardView {
        let mut view = BoardView::new(self, SIZE, SIZE);
        view.col_labels = (0..SIZE).map(|x| ((b'A' + x as u8) as char).to_string()).collect();
        view.row_labels = (0..SIZE).map(|y| y.to_string()).collect();
        for y in 0..SIZE {
            for x in 0..SIZE {
                let name = Move::new(x, y).expect("on the board").to_string();
                view.cells.push(CellView { name, owner: view::owner(self.cell(x, y)), ..CellView::default() });
            }
        }
        if let Some(mv) = self.last_move() {
            view.last = vec![[mv.col(), mv.row()]];
            view.last_move = Some(mv.to_string());
        }
        view.winning = self.winning_cells().iter().map(|mv| [mv.col(), mv.row()]).collect();
        view.winning.sort();
        view.status = view.status_line(self.outcome(), "with five in a row", "draw: the board is full");
        view.input = if self.outcome.is_none() { Input::Cell } else { Input::None };
        view
    }

    fn new(_options: &Options, start: Option<&str>) -> Result<Self, SetupError> {
        match start {
            None => Ok(Position::empty()),
            Some(text) => {
                let field = parse_field(text).map_err(|err| SetupError::BadStart(err.to_string()))?;
                Position::from_field(&field)
            }
        }
    }

    fn start_text(&self) -> Option<String> {
        if self.start == [0; 2] {
            return None;
        }
        let start = Position { marks: self.start, ..Position::empty() };
        Some(start.field_text())
    }

    fn to_move(&self) -> Option<Side> {
        self.outcome.is_none().then(|| self.side_to_move())
    }

    fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    fn running_scores(&self) -> Option<[i64; 2]> {
        None
    }

    fn legal_moves(&self, out: &mut Vec<Move>) {
        if self.outcome.is_some() {
            return;
        }
        let mut empty = self.empty_mask();
        while empty != 0 {
            out.push(Move::from_bit_index(empty.trailing_zeros()));
            empty &= empty - 1;
        }
    }

    fn random_move<R: Rng + ?Sized>(&self, rng: &mut R) -> Option<Move> {
        if self.outcome.is_some() {
            return None;
        }
        let mut empty = self.empty_mask();
        let k = rng.random_range(0..empty.count_ones());
        for _ in 0..k {
            empty &= empty - 1;
        }
        Some(Move::from_bit_index(empty.trailing_zeros()))
    }

    fn parse_move(&self, text: &str) -> Result<Move, MoveError> {
        Move::parse(text)
    }

    fn format_move(&self, mv: &Move) -> String {
        mv.to_string()
    }

    fn play(&mut self, mv: &Move) -> Result<(), MoveError> {
        if self.outcome.is_some() {
            return Err(MoveError::GameOver);
        }
        if let Some(owner) = self.cell_at(*mv) {
            return Err(MoveError::Illegal { text: mv.to_string(), reason: format!("cell {mv} is occupied by {}", mark_char(owner)) });
        }
        self.place(mv.bit(), *mv);
        Ok(())
    }

    fn play_unchecked(&mut self, mv: &Move) {
        self.place(mv.bit(), *mv);
    }

    fn picture(&self) -> String {
        // Coordinates on all four sides; the last move is shown in brackets, like [X].
        let letters: String = (0..SIZE).map(|col| format!(" {}", (b'A' + col as u8) as char)).collect();
        let last = self.last_move.map(|mv| (mv.col(), mv.row()));
        let mut text = format!("  {letters}\n");
        for row in 0..SIZE {
            text.push_str(&format!("{row} "));
            for col in 0..=SIZE {
                let separator = match last {
                    Some((c, r)) if r == row && c == col => '[',
                    Some((c, r)) if r == row && c + 1 == col => ']',
                    _ => ' ',
                };
                text.push(separator);
                if col < SIZE {
                    text.push(self.cell(col, row).map_or('.', mark_char));
                }
            }
            text.push_str(&format!("{row}\n"));
        }
        text.push_str(&format!("  {letters}\n"));
        let status = match (self.outcome, self.last_move) {
            (Some(Outcome { winner: Some(side), .. }), _) => format!("{} wins", mark_char(side)),
            (Some(_), _) => "draw: the board is full".to_string(),
            (None, Some(last)) => format!("{} to move (last move {last})", mark_char(self.side_to_move())),
            (None, None) => format!("{} to move", mark_char(self.side_to_move())),
        };
        text.push_str(&status);
        text.push('\n');
        text
    }

    fn n_moves(&self) -> usize {
        self.n_moves
    }

    fn random_playout<R: Rng + ?Sized>(&mut self, rng: &mut R) -> Outcome {
        if let Some(outcome) = self.outcome {
            return outcome;
        }
        // The empty cells as bit indices; a uniform pick and a swap-remove per ply keep
        // the choice uniform over the empty cells, as in `random_move`.
        let mut empties = [0u8; N_CELLS];
        let mut n_empty = 0;
        let mut mask = self.empty_mask();
        while mask != 0 {
            empties[n_empty] = mask.trailing_zeros() as u8;
            n_empty += 1;
            mask &= mask - 1;
        }
        let mut side = self.side_to_move().index();
        let mut marks = self.marks;
        let mut last_bit = 0u8;
        let mut n_moves = self.n_moves;
        let mut winner = None;
        while n_empty > 0 {
            let pick = rng.random_range(0..n_empty as u32) as usize;
            last_bit = empties[pick];
            n_empty -= 1;
            empties[pick] = empties[n_empty];
            marks[side] |= 1u128 << last_bit;
            n_moves += 1;
            if has_five(marks[side]) {
                winner = Side::from_index(side);
                break;
            }
            side ^= 1;
        }
        self.marks = marks;
        self.n_moves = n_moves;
        self.last_move = Some(Move::from_bit_index(last_bit as u32));
        let outcome = match winner {
            Some(side) => Outcome::win(side),
            None => Outcome::draw(),
        };
        self.outcome = Some(outcome);
        outcome
    }
}
