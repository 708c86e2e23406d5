//! Pah-tum 7×7 with blocked squares (seed 003, Romanian, Algopedia school contest 2019;
//! the rules in full are in `docs/games.md`).
//!
//! Rules in brief: rows `A`..`G` top to bottom, columns `1`..`7`. A start board holds
//! only empty squares `-` and an odd number (1..=25) of blocked squares `+`. `X` moves
//! first; the players alternate, each putting its letter on one empty square, until no
//! `-` is left. Every maximal horizontal or vertical run of one letter of length
//! L = 3, 4, 5, 6, 7 scores 3, 10, 25, 56, 119 for its owner (no diagonals, no
//! wrap-around); the higher score wins. A forfeit credits the opponent 1666 points
//! against 0.
//!
//! Options: `blocked` (default 5, odd, 1..=25): the number of blocked squares, placed
//! uniformly at random, in a start board made by [`Game::random_start`]. A start board
//! given to [`Game::new`] decides its own blocked squares (the option is still checked
//! there); `new` has no default board ([`SetupError::StartRequired`]).
//!
//! Move notation: the row letter then the column number, e.g. `C4` (read in any letter
//! case, surrounding whitespace ignored). Legal moves are listed in reading order
//! (`A1`, `A2`, .., `A7`, `B1`, ..).
//!
//! Native format (one process per move): the board as 7 lines of 7 characters from
//! `- + X O`, each ended by `\n`, 56 characters in all; the bot answers the same board
//! with one `-` turned into its letter ([`format_board`], [`parse_board`],
//! [`move_from_answer`], [`side_from_board`]). The bot-facing reader is strict; the
//! start text `new` reads is lenient (see [`parse_start`]).

use std::fmt;

use rand::{Rng, RngExt};

use crate::view::{self, BoardStyle, BoardView, CellView, Grid, Input, Pieces};
use crate::{Game, GameInfo, LimitSet, MoveError, OptionSpec, Options, Outcome, SetupError, Side, options};

/// Rows and columns of the board.
pub const SIZE: usize = 7;
/// Characters of a board text: 7 lines of 7 characters, each ended by `\n`.
pub const BOARD_TEXT_LEN: usize = 56;
/// What the opponent of a program that forfeits is credited with (14 runs of 7).
pub const FORFEIT_POINTS: i64 = 1666;
/// The fewest and most blocked squares of a start board (and the count must be odd).
pub const MIN_BLOCKED: usize = 1;
pub const MAX_BLOCKED: usize = 25;
/// The blocked-square counts of generated tournament openings when the options set
/// none: one drawn uniformly for each board.
pub const OPENING_BLOCKED: [usize; 4] = [3, 5, 7, 9];

/// Points for a maximal run of `len` equal letters: 0 below 3, then 3, 10, 25, 56, 119
/// (score(L) = 2·score(L−1) + L).
pub fn run_score(len: usize) -> i64 {
    match len {
        0..=2 => 0,
        len => 2 * run_score(len - 1) + len as i64,
    }
}

// Squares live in a u64 with 8 bits per row (bit = row * 8 + col): the eighth bit of
// every row is always clear, so horizontal shifts cannot carry a run into the next row,
// and vertical shifts fall off the ends.
const ALL: u64 = 0x007f_7f7f_7f7f_7f7f;

fn bit(row: usize, col: usize) -> u64 {
    1u64 << (row * 8 + col)
}

/// Score of one letter's squares, counted as windows: a maximal run of L holds L−k+1
/// windows of length k, and 3·w3 + 4·w4 + 8·w5 + 16·w6 + 32·w7 gives exactly
/// 3, 10, 25, 56, 119 for L = 3..7 (the tests check this against a plain string scan).
fn score_bits(p: u64) -> i64 {
    fn direction(p: u64, d: u32) -> u32 {
        let w3 = p & (p >> d) & (p >> (2 * d));
        if w3 == 0 {
            return 0;
        }
        let w4 = w3 & (p >> (3 * d));
        let w5 = w4 & (p >> (4 * d));
        let w6 = w5 & (p >> (5 * d));
        let w7 = w6 & (p >> (6 * d));
        3 * w3.count_ones() + 4 * w4.count_ones() + 8 * w5.count_ones() + 16 * w6.count_ones() + 32 * w7.count_ones()
    }
    i64::from(direction(p, 1) + direction(p, 8))
}

/// What one square holds.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Cell {
    /// `-`: playable.
    Empty,
    /// `+`: never playable.
    Blocked,
    /// `X`, the first player's letter.
    X,
    /// `O` (capital letter O), the second player's letter.
    O,
}

impl Cell {
    /// The cell's character in board texts: `-`, `+`, `X`, `O`.
    pub fn to_char(self) -> char {
        match self {
            Cell::Empty => '-',
            Cell::Blocked => '+',
            Cell::X => 'X',
            Cell::O => 'O',
        }
    }

    /// The cell of a board-text character (exact: lowercase letters are refused).
    pub fn from_char(ch: char) -> Option<Cell> {
        match ch {
            '-' => Some(Cell::Empty),
            '+' => Some(Cell::Blocked),
            'X' => Some(Cell::X),
            'O' => Some(Cell::O),
            _ => None,
        }
    }

    /// The letter of a side: `X` for [`Side::First`], `O` for [`Side::Second`].
    pub fn of(side: Side) -> Cell {
        match side {
            Side::First => Cell::X,
            Side::Second => Cell::O,
        }
    }

    /// The side owning this letter, `None` for empty and blocked squares.
    pub fn side(self) -> Option<Side> {
        match self {
            Cell::X => Some(Side::First),
            Cell::O => Some(Side::Second),
            Cell::Empty | Cell::Blocked => None,
        }
    }
}

/// A square: row `A`..`G` (0..7 from the top), column `1`..`7` (0..7 from the left).
/// As a move, the square the mover puts its letter on.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Move {
    // row * 8 + col, the bit of the square (reading order sorts the same way)
    idx: u8,
}

impl Move {
    /// The square at 0-based `row` (0 = `A`) and `col` (0 = column `1`).
    pub fn new(row: usize, col: usize) -> Option<Move> {
        (row < SIZE && col < SIZE).then(|| Move { idx: (row * 8 + col) as u8 })
    }

    /// 0-based row, 0 for `A`.
    pub fn row(self) -> usize {
        usize::from(self.idx >> 3)
    }

    /// 0-based column, 0 for column `1`.
    pub fn col(self) -> usize {
        usize::from(self.idx & 7)
    }

    /// Reads `C4`-style notation: a row letter `A`..`G` (any case) then a column digit
    /// `1`..`7`, surrounding whitespace ignored.
    pub fn from_text(text: &str) -> Result<Move, MoveError> {
        let bad = |reason: &str| MoveError::Parse { text: text.to_string(), reason: reason.to_string() };
        let chars: Vec<char> = text.trim().chars().collect();
        let [row, col] = chars[..] else {
            return Err(bad("expected a row letter A-G and a column 1-7, like C4"));
        };
        let row = row.to_ascii_uppercase();
        if !('A'..='G').contains(&row) {
            return Err(bad("the row must be a letter from A to G"));
        }
        if !('1'..='7').contains(&col) {
            return Err(bad("the column must be a digit from 1 to 7"));
        }
        Ok(Move::new(row as usize - 'A' as usize, col as usize - '1' as usize).expect("row and column checked"))
    }

    fn mask(self) -> u64 {
        1u64 << self.idx
    }

    fn from_bit_index(idx: u32) -> Move {
        Move { idx: idx as u8 }
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'A' + self.row() as u8) as char, self.col() + 1)
    }
}

/// Contents of the 49 squares. Any mix of cells is representable (the scorer works on
/// any board); [`Position`] keeps the game's invariants.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Board {
    blocked: u64,
    x: u64,
    o: u64,
}

impl Board {
    /// The cell at 0-based `row` and `col`. Panics outside the board.
    pub fn cell(&self, row: usize, col: usize) -> Cell {
        assert!(row < SIZE && col < SIZE, "square ({row}, {col}) is off the 7x7 board");
        self.cell_at(bit(row, col))
    }

    /// The cell of a square.
    pub fn at(&self, square: Move) -> Cell {
        self.cell_at(square.mask())
    }

    fn cell_at(&self, mask: u64) -> Cell {
        if self.blocked & mask != 0 {
            Cell::Blocked
        } else if self.x & mask != 0 {
            Cell::X
        } else if self.o & mask != 0 {
            Cell::O
        } else {
            Cell::Empty
        }
    }

    fn set(&mut self, mask: u64, cell: Cell) {
        self.blocked &= !mask;
        self.x &= !mask;
        self.o &= !mask;
        match cell {
            Cell::Empty => {}
            Cell::Blocked => self.blocked |= mask,
            Cell::X => self.x |= mask,
            Cell::O => self.o |= mask,
        }
    }

    fn empty(&self) -> u64 {
        ALL & !(self.blocked | self.x | self.o)
    }

    /// How many squares hold `cell`.
    pub fn count(&self, cell: Cell) -> usize {
        let bits = match cell {
            Cell::Empty => self.empty(),
            Cell::Blocked => self.blocked,
            Cell::X => self.x,
            Cell::O => self.o,
        };
        bits.count_ones() as usize
    }

    /// The score of `side`'s letter on this board (its running score; the final score
    /// once the board is full).
    pub fn score(&self, side: Side) -> i64 {
        match side {
            Side::First => score_bits(self.x),
            Side::Second => score_bits(self.o),
        }
    }

    /// Both scores, indexed by [`Side::index`].
    pub fn scores(&self) -> [i64; 2] {
        [score_bits(self.x), score_bits(self.o)]
    }

    /// The board text: 7 lines of 7 characters, each ended by `\n` (56 characters).
    pub fn to_text(&self) -> String {
        let mut text = String::with_capacity(BOARD_TEXT_LEN);
        for row in 0..SIZE {
            for col in 0..SIZE {
                text.push(self.cell(row, col).to_char());
            }
            text.push('\n');
        }
        text
    }

    /// The board's rows on one line, separated by `/` (for logs and test data).
    pub fn to_compact_text(&self) -> String {
        self.to_text().trim_end().replace('\n', "/")
    }

    /// The board with every letter removed: its start board.
    pub fn without_pieces(&self) -> Board {
        Board { blocked: self.blocked, x: 0, o: 0 }
    }
}

/// Why a board text was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BoardError {
    #[error("the board has \\r line ends; each line must end by \\n alone")]
    CarriageReturn,
    #[error("the last line is not ended by \\n")]
    NoFinalNewline,
    #[error("the board has {len} characters, not 56 (7 lines of 7 characters, each ended by \\n)")]
    Length { len: usize },
    #[error("line {line} has {len} characters, not 7")]
    LineLength { line: usize, len: usize },
    #[error("the board has {lines} lines, not 7")]
    LineCount { lines: usize },
    #[error("square {square} (line {line}, column {column}) holds {found:?}, not one of - + X O")]
    BadChar { square: Move, line: usize, column: usize, found: char },
}

/// Reads a board text exactly as the native interface has it: 7 lines of 7 characters
/// from `- + X O`, each ended by `\n`, 56 characters and nothing else. It checks the
/// text only, not whether the board could arise in a game.
pub fn parse_board(text: &str) -> Result<Board, BoardError> {
    let len = text.chars().count();
    if len != BOARD_TEXT_LEN {
        if text.contains('\r') {
            return Err(BoardError::CarriageReturn);
        }
        if len == BOARD_TEXT_LEN - 1 && !text.ends_with('\n') {
            return Err(BoardError::NoFinalNewline);
        }
        return Err(BoardError::Length { len });
    }
    if !text.ends_with('\n') {
        return Err(BoardError::NoFinalNewline);
    }
    let lines: Vec<&str> = text[..text.len() - 1].split('\n').collect();
    for (idx, line) in lines.iter().enumerate() {
        let len = line.chars().count();
        if len != SIZE {
            return Err(BoardError::LineLength { line: idx + 1, len });
        }
    }
    if lines.len() != SIZE {
        // unreachable with 56 characters and lines of 7, kept for clarity
        return Err(BoardError::LineCount { lines: lines.len() });
    }
    let mut board = Board::default();
    for (row, line) in lines.iter().enumerate() {
        for (col, ch) in line.chars().enumerate() {
            let square = Move::new(row, col).expect("7 lines of 7");
            let cell = Cell::from_char(ch).ok_or(BoardError::BadChar { square, line: row + 1, column: col + 1, found: ch })?;
            board.set(square.mask(), cell);
        }
    }
    Ok(board)
}

/// Reads a start board as people write it: like [`parse_board`], but surrounding
/// whitespace, `\r\n` line ends, a missing final newline, and blanks around each line are
/// accepted, and the seven rows may also be given on one line separated by `/`
/// (`-------/------+/...`). Then checks what a start board must be: only `-` and `+`,
/// with an odd number of `+` between 1 and 25.
pub fn parse_start(text: &str) -> Result<Board, SetupError> {
    let trimmed = text.trim();
    let lines: Vec<&str> =
        if trimmed.contains('\n') { trimmed.split('\n').map(str::trim).collect() } else { trimmed.split('/').map(str::trim).collect() };
    if lines.len() != SIZE {
        return Err(SetupError::BadStart(format!("the board has {} lines, not 7", lines.len())));
    }
    let mut normal = String::with_capacity(BOARD_TEXT_LEN);
    for (idx, line) in lines.iter().enumerate() {
        let len = line.chars().count();
        if len != SIZE {
            return Err(SetupError::BadStart(format!("line {} has {len} characters, not 7", idx + 1)));
        }
        normal.push_str(line);
        normal.push('\n');
    }
    let board = parse_board(&normal).map_err(|err| SetupError::BadStart(err.to_string()))?;
    if let Some(mask) = lowest(board.x | board.o) {
        let square = Move::from_bit_index(mask.trailing_zeros());
        return Err(SetupError::BadStart(format!(
            "square {square} holds {}; a start board holds only - and +",
            board.at(square).to_char()
        )));
    }
    check_blocked_count(&board).map_err(SetupError::BadStart)?;
    Ok(board)
}

fn lowest(bits: u64) -> Option<u64> {
    (bits != 0).then(|| bits & bits.wrapping_neg())
}

fn check_blocked_count(board: &Board) -> Result<(), String> {
    let n = board.count(Cell::Blocked);
    if n.is_multiple_of(2) || !(MIN_BLOCKED..=MAX_BLOCKED).contains(&n) {
        return Err(format!("the board has {n} blocked squares; it must have an odd number between 1 and 25"));
    }
    Ok(())
}

/// The letter to move on a board as the seed's programs work it out: equal numbers of
/// `X` and `O` mean `X` ([`Side::First`]), otherwise `O`.
pub fn side_from_board(board: &Board) -> Side {
    if board.count(Cell::X) == board.count(Cell::O) { Side::First } else { Side::Second }
}

/// The native board text of a position (what a bot reads): 56 characters.
pub fn format_board(pos: &Position) -> String {
    pos.board.to_text()
}

/// Reads a native answer: it must be exactly the position's board with exactly one `-`
/// turned into the letter of the side to move (strict [`parse_board`] rules). Returns
/// the move it makes; anything else is refused with the reason (`MoveError::Parse` for
/// text that is not a board, `MoveError::Illegal` for a board that is not one legal move
/// away).
pub fn move_from_answer(pos: &Position, answer: &str) -> Result<Move, MoveError> {
    let Some(mover) = pos.to_move() else {
        return Err(MoveError::GameOver);
    };
    let shown = || {
        let one_line = answer.replace('\n', "/");
        if one_line.chars().count() > 64 { format!("{}...", one_line.chars().take(60).collect::<String>()) } else { one_line }
    };
    let after = parse_board(answer).map_err(|err| MoveError::Parse { text: shown(), reason: err.to_string() })?;
    let illegal = |reason: String| MoveError::Illegal { text: shown(), reason };
    let before = &pos.board;
    let changed: Vec<Move> =
        (0..64).filter(|&idx| ALL & (1u64 << idx) != 0).map(Move::from_bit_index).filter(|&sq| before.at(sq) != after.at(sq)).collect();
    match changed[..] {
        [] => Err(illegal("the answer is the input board unchanged; a move turns one - into a letter".to_string())),
        [square] => {
            let (was, now) = (before.at(square), after.at(square));
            let letter = Cell::of(mover);
            if was != Cell::Empty {
                let what = match was {
                    Cell::Blocked => "blocked".to_string(),
                    other => format!("occupied by {}", other.to_char()),
                };
                Err(illegal(format!("square {square} is {what} but the answer changes it to {}", now.to_char())))
            } else if now != letter {
                Err(illegal(format!("square {square} became {} but {} is to move", now.to_char(), letter.to_char())))
            } else {
                Ok(square)
            }
        }
        ref many => {
            let list: Vec<String> =
                many.iter().map(|sq| format!("{sq} from {} to {}", before.at(*sq).to_char(), after.at(*sq).to_char())).collect();
            Err(illegal(format!("the answer changes {} squares ({}); a move changes exactly one", many.len(), list.join(", "))))
        }
    }
}

/// A Pah-tum game in progress: the board, the start board it came from, and the last
/// move. The side to move follows from the counts of letters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Position {
    board: Board,
    start: Board,
    last: Option<Move>,
}

const OPTIONS: &[OptionSpec] =
    &[OptionSpec { name: "blocked", default: "5", help: "number of blocked squares in a random start board (odd, 1 to 25)" }];

fn blocked_option(options: &Options) -> Result<usize, SetupError> {
    let n = options::get_int(OPTIONS, options, "blocked", MIN_BLOCKED as i64, MAX_BLOCKED as i64)?;
    if n % 2 == 0 {
        return Err(SetupError::BadOption {
            name: "blocked".to_string(),
            value: options::get_text(OPTIONS, options, "blocked").to_string(),
            reason: "must be odd, so that the number of playable squares is even".to_string(),
        });
    }
    Ok(n as usize)
}

/// A uniform integer in `0..n` (Lemire's multiply-and-reject: exact, and usually one
/// 32-bit draw).
fn below<R: Rng + ?Sized>(rng: &mut R, n: u32) -> u32 {
    debug_assert!(n > 0);
    let mut m = u64::from(rng.next_u32()) * u64::from(n);
    if (m as u32) < n {
        let threshold = n.wrapping_neg() % n;
        while (m as u32) < threshold {
            m = u64::from(rng.next_u32()) * u64::from(n);
        }
    }
    (m >> 32) as u32
}

fn squares(mut bits: u64) -> impl Iterator<Item = Move> {
    std::iter::from_fn(move || {
        let low = lowest(bits)?;
        bits ^= low;
        Some(Move::from_bit_index(low.trailing_zeros()))
    })
}

impl Position {
    /// A position from a start board as [`parse_start`] returns it (only `-` and `+`,
    /// an odd number of `+` in 1..=25); the board is not checked again here.
    pub fn from_start(start: Board) -> Position {
        Position { board: start, start, last: None }
    }

    /// A position from a board in the middle of a game, as a bot would receive it
    /// (strict native text). Checked: an odd number of `+` between 1 and 25, and as
    /// many `X` as `O` or one `X` more. Its [`Game::start_text`] is this board with its
    /// letters (which `new` refuses: use this function to read it back), and
    /// [`Game::n_moves`] counts the letters on it.
    pub fn from_board(text: &str) -> Result<Position, SetupError> {
        let board = parse_board(text).map_err(|err| SetupError::BadStart(err.to_string()))?;
        check_blocked_count(&board).map_err(SetupError::BadStart)?;
        let (nx, no) = (board.count(Cell::X), board.count(Cell::O));
        if nx != no && nx != no + 1 {
            return Err(SetupError::BadStart(format!(
                "the board has {nx} X and {no} O; X moves first, so there are as many X as O or one more"
            )));
        }
        Ok(Position { board, start: board, last: None })
    }

    /// The current board.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The board the game started from.
    pub fn start_board(&self) -> &Board {
        &self.start
    }

    /// The cell at 0-based `row` (0 = `A`) and `col` (0 = column `1`).
    pub fn cell(&self, row: usize, col: usize) -> Cell {
        self.board.cell(row, col)
    }

    /// The last move played, `None` at the start.
    pub fn last_move(&self) -> Option<Move> {
        self.last
    }

    /// Empty squares left (moves left in the game).
    pub fn n_empty(&self) -> usize {
        self.board.count(Cell::Empty)
    }

    /// The scores of the current board, indexed by [`Side::index`].
    pub fn scores(&self) -> [i64; 2] {
        self.board.scores()
    }

    fn mover(&self) -> Side {
        if self.board.x.count_ones() == self.board.o.count_ones() { Side::First } else { Side::Second }
    }

    fn place(&mut self, mv: Move, side: Side) {
        match side {
            Side::First => self.board.x |= mv.mask(),
            Side::Second => self.board.o |= mv.mask(),
        }
        self.last = Some(mv);
    }
}

impl Game for Position {
    type Move = Move;
    const INFO: GameInfo = GameInfo {
        name: "pahtum",
        aliases: &["pah-tum"],
        title: "Pah-tum 7x7 with blocked squares, scored runs (seed 003, 2019)",
        side_names: ["X", "O"],
        notation: "row letter A-G (A at the top) then column 1-7, e.g. C4",
        options: OPTIONS,
        enumerable: true,
        has_scores: true,
        hidden_information: false,
        start_required: true,
        generated_openings: true,
        style: BoardStyle {
            grid: Grid::Squares,
            pieces: Pieces::Discs,
            board_colour: "#f8f4ea",
            line_colour: "#94a3b8",
            piece_colours: ["#c2410c", "#1d4ed8"],
            text_colours: ["#ffffff", "#ffffff"],
        },
    };

    fn new(options: &Options, start: Option<&str>) -> Result<Self, SetupError> {
        blocked_option(options)?;
        let text = start.ok_or(SetupError::StartRequired(Self::INFO.name))?;
        Ok(Position::from_start(parse_start(text)?))
    }

    /// Seed 003: 1 second per move (the start included) and 128 MiB.
    fn seed_limits(_options: &Options) -> LimitSet {
        LimitSet { move_ms: Some(1_000), memory_mb: Some(128), ..LimitSet::default() }
    }

    /// The 7 rows (`A` first) joined by `/`, `-` `+` `X` `O`.
    fn position_line(&self) -> String {
        self.board().to_compact_text()
    }

    fn from_position_line(_options: &Options, line: &str) -> Result<Self, String> {
        Position::from_board(&(line.replace('/', "\n") + "\n")).map_err(|err| err.to_string())
    }

    /// A board with the option `blocked` squares when the options set it, else an odd
    /// count drawn uniformly from [`OPENING_BLOCKED`]; the squares are uniform
    /// ([`Game::random_start`]). Every candidate is balanced.
    fn opening_candidate<R: Rng + ?Sized>(options: &Options, rng: &mut R) -> Result<Option<String>, SetupError> {
        let mut options = options.clone();
        if !options.contains_key("blocked") {
            let blocked = OPENING_BLOCKED[rng.random_range(0..OPENING_BLOCKED.len())];
            options.insert("blocked".to_string(), blocked.to_string());
        }
        Self::random_start(&options, rng)
    }

    fn board_view(&self) -> BoardView {
        let mut view = BoardView::new(self, SIZE, SIZE);
        view.col_labels = (1..=SIZE).map(|x| x.to_string()).collect();
        view.row_labels = (0..SIZE).map(|y| ((b'A' + y as u8) as char).to_string()).collect();
        for y in 0..SIZE {
            for x in 0..SIZE {
                let cell = self.cell(y, x);
                let name = Move::new(y, x).expect("on the board").to_string();
                view.cells.push(CellView {
                    name,
                    owner: view::owner(cell.side()),
                    blocked: cell == Cell::Blocked,
                    label: cell.side().map(|side| Self::INFO.side_names[side.index()].to_string()),
                    ..CellView::default()
                });
            }
        }
        if let Some(mv) = self.last_move() {
            view.last = vec![[mv.col(), mv.row()]];
            view.last_move = Some(mv.to_string());
        }
        view.status = view.status_line(self.outcome(), "", "draw");
        view.input = if self.to_move().is_some() { Input::Cell } else { Input::None };
        view.legend = vec![["blocked".to_string(), "a blocked square: nobody plays there".to_string()]];
        view
    }

    fn random_start<R: Rng + ?Sized>(options: &Options, rng: &mut R) -> Result<Option<String>, SetupError> {
        let n = blocked_option(options)?;
        let mut all: Vec<u8> = (0..SIZE * SIZE).map(|i| i as u8).collect();
        let mut board = Board::default();
        for i in 0..n {
            let j = i + below(rng, (all.len() - i) as u32) as usize;
            all.swap(i, j);
            let sq = usize::from(all[i]);
            board.blocked |= bit(sq / SIZE, sq % SIZE);
        }
        Ok(Some(board.to_text()))
    }

    fn start_text(&self) -> Option<String> {
        Some(self.start.to_text())
    }

    fn to_move(&self) -> Option<Side> {
        (self.board.empty() != 0).then(|| self.mover())
    }

    fn outcome(&self) -> Option<Outcome> {
        (self.board.empty() == 0).then(|| Outcome::from_scores(self.board.scores()))
    }

    fn running_scores(&self) -> Option<[i64; 2]> {
        Some(self.board.scores())
    }

    fn legal_moves(&self, out: &mut Vec<Move>) {
        out.extend(squares(self.board.empty()));
    }

    fn random_move<R: Rng + ?Sized>(&self, rng: &mut R) -> Option<Move> {
        let mut empty = self.board.empty();
        let n = empty.count_ones();
        if n == 0 {
            return None;
        }
        for _ in 0..below(rng, n) {
            empty &= empty - 1;
        }
        Some(Move::from_bit_index(empty.trailing_zeros()))
    }

    fn parse_move(&self, text: &str) -> Result<Move, MoveError> {
        Move::from_text(text)
    }

    fn format_move(&self, mv: &Move) -> String {
        mv.to_string()
    }

    fn play(&mut self, mv: &Move) -> Result<(), MoveError> {
        let Some(side) = self.to_move() else {
            return Err(MoveError::GameOver);
        };
        let illegal = |reason: String| MoveError::Illegal { text: mv.to_string(), reason };
        match self.board.at(*mv) {
            Cell::Empty => {
                self.place(*mv, side);
                Ok(())
            }
            Cell::Blocked => Err(illegal(format!("square {mv} is blocked"))),
            other => Err(illegal(format!("square {mv} is occupied by {}", other.to_char()))),
        }
    }

    fn play_unchecked(&mut self, mv: &Move) {
        debug_assert_eq!(self.board.at(*mv), Cell::Empty, "unchecked move {mv} on a square that is not empty");
        self.place(*mv, self.mover());
    }

    fn picture(&self) -> String {
        let mut text = String::from("   1 2 3 4 5 6 7\n");
        for row in 0..SIZE {
            text.push((b'A' + row as u8) as char);
            text.push(' ');
            for col in 0..SIZE {
                text.push(' ');
                text.push(self.cell(row, col).to_char());
            }
            text.push('\n');
        }
        let [x, o] = self.scores();
        match self.to_move() {
            Some(side) => {
                let last = self.last.map(|mv| format!(", last move {mv}")).unwrap_or_default();
                text.push_str(&format!("X {x}, O {o}; {} to move{last}\n", Cell::of(side).to_char()));
            }
            None => {
                let result = match x.cmp(&o) {
                    std::cmp::Ordering::Greater => format!("X wins by {}", x - o),
                    std::cmp::Ordering::Less => format!("O wins by {}", o - x),
                    std::cmp::Ordering::Equal => "a draw".to_string(),
                };
                text.push_str(&format!("X {x}, O {o}; game over, {result}\n"));
            }
        }
        text
    }

    fn forfeit(&self, loser: Side) -> Outcome {
        let mut scores = [0; 2];
        scores[loser.other().index()] = FORFEIT_POINTS;
        Outcome { winner: Some(loser.other()), scores: Some(scores) }
    }

    fn n_moves(&self) -> usize {
        (self.board.x | self.board.o).count_ones() as usize
    }

    /// Uniform random moves to the end: a uniformly random order of the empty squares,
    /// given alternately to the side to move and the other, which is the same
    /// distribution as playing [`Game::random_move`] each ply.
    fn random_playout<R: Rng + ?Sized>(&mut self, rng: &mut R) -> Outcome {
        let mut order = [0u8; 64];
        let mut n = 0;
        for sq in squares(self.board.empty()) {
            order[n] = sq.idx;
            n += 1;
        }
        if n > 0 {
            let mut mine = 0u64;
            let mut theirs = 0u64;
            for i in 0..n {
                let j = if i + 1 < n { i + below(rng, (n - i) as u32) as usize } else { i };
                order.swap(i, j);
                let mask = 1u64 << order[i];
                if i % 2 == 0 {
                    mine |= mask;
                } else {
                    theirs |= mask;
                }
            }
            match self.mover() {
                Side::First => {
                    self.board.x |= mine;
                    self.board.o |= theirs;
                }
                Side::Second => {
                    self.board.o |= mine;
                    self.board.x |= theirs;
                }
            }
            self.last = Some(Move { idx: order[n - 1] });
        }
        Outcome::from_scores(self.board.scores())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_scores_follow_the_table() {
        let table: Vec<i64> = (0..=7).map(run_score).collect();
        assert_eq!(table, [0, 0, 0, 3, 10, 25, 56, 119]);
        for len in 0..=7 {
            let mut p = 0;
            for col in 0..len {
                p |= bit(2, col);
            }
            assert_eq!(score_bits(p), run_score(len), "row run of {len}");
            let mut p = 0;
            for row in 0..len {
                p |= bit(row, 6);
            }
            assert_eq!(score_bits(p), run_score(len), "column run of {len}");
        }
    }

    #[test]
    fn below_stays_in_range() {
        let mut rng = <rand::rngs::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(3);
        let mut seen = [0u32; 7];
        for _ in 0..7000 {
            seen[below(&mut rng, 7) as usize] += 1;
        }
        assert!(seen.iter().all(|&n| (850..1150).contains(&n)), "{seen:?}");
    }
}
