//! Connect Four on a `w` × `h` board (seed 002, Jožef Stefan Institute contest, 2008).
//!
//! Rules: the board starts empty; the players alternate, the first with blue discs
//! ([`Side::First`]), the second with red. A move drops a disc into a column holding
//! fewer than `h` discs, where it lands on top. Four (or more) discs of one colour next
//! to each other in a row, column or diagonal win at once; a full board without four is
//! a draw. Coordinates: `x` is the column, `0..w` from left to right, `y` the row,
//! `0..h` from the bottom up.
//!
//! Options: `width` (columns, 4 to 32, default 7) and `height` (rows, 4 to 32, default
//! 6). The seed's contest plays 7 × 6 and 20 × 20.
//!
//! Start position: the empty board, or a partly filled board (a tournament's opening):
//! its rows top first, one per line (or joined by `/`), `.` empty, `X` blue, `O` red, the board of the
//! options' size, as many blue discs as red (so blue is to move), discs resting on each
//! other, no four in a row and at least one open column. A blank text is the empty board.
//! [`Game::n_moves`] counts every disc on the board, the start's included (the side to
//! move follows from it).
//!
//! Generated openings ([`Game::opening_candidate`]): 2, 4 or 6 plies dropped into
//! columns drawn uniformly, blue to move after them.
//!
//! Move notation: the column index, 0-based, in decimal: `3` drops a disc into the fourth
//! column from the left. Reading is lenient about surrounding white space, leading zeros
//! and a `+` sign. A number that is not a column of the board is an illegal move (the
//! seed's "non-existent column"), text that is not a number cannot be read at all.
//!
//! Board text ([`Position::board_rows`]): one string per row, top row first, one
//! character per cell: `.` empty, `X` blue (first), `O` red (second); or, relative to a
//! player as the seed's bots see the board, `.` empty, `M` mine, `T` theirs.
//! [`Position::from_board_rows`] reads such rows back (side to move from the disc
//! counts, last move unknown), for clients that receive the board as text.
//!
//! Representation: boards with `(h + 1) * w <= 64` (7 × 6, 8 × 7, ...) use the classic
//! 64-bit bitboard, one bit per cell plus an always-empty sentinel row on top of every
//! column, so that a four shows up as a run of set bits found by shifts. Larger boards
//! keep one bit mask per column and side and look only at the lines through the disc
//! just dropped. Both give the same results (tested against each other and against a
//! naive board scan).

use rand::{Rng, RngExt};

use crate::view::{self, BoardStyle, BoardView, CellView, Grid, Input, Pieces};
use crate::{Game, GameInfo, LimitSet, MoveError, OptionSpec, Options, Outcome, SetupError, Side, options};

const OPTIONS: &[OptionSpec] = &[
    OptionSpec { name: "width", default: "7", help: "number of columns, 4 to 32" },
    OptionSpec { name: "height", default: "6", help: "number of rows, 4 to 32" },
];

/// The board size the options give, `None` when they give none that the rules accept.
fn board_size(options: &Options) -> Option<(usize, usize)> {
    let (min, max) = (MIN_SIZE as i64, MAX_SIZE as i64);
    let width = options::get_int(OPTIONS, options, "width", min, max).ok()?;
    let height = options::get_int(OPTIONS, options, "height", min, max).ok()?;
    Some((width as usize, height as usize))
}

/// The smallest board side.
pub const MIN_SIZE: usize = 4;
/// The largest board side.
pub const MAX_SIZE: usize = 32;

/// Empty columns on either side, and empty rows above and below, in the column-mask
/// representation, so that the line checks need no bounds checks.
const PAD: usize = 3;
const PADDED_COLUMNS: usize = MAX_SIZE + 2 * PAD;

/// The discs on the board, by side ([`Side::index`]).
#[derive(Clone, PartialEq, Eq)]
enum Board {
    /// `(h + 1) * w <= 64`: cell `(x, y)` is bit `x * (h + 1) + y`; bit `h` of every
    /// column (the sentinel row) and the bits above the last column stay zero.
    Bits([u64; 2]),
    /// Cell `(x, y)` is bit `y + PAD` of column mask `x + PAD`; all other bits are zero.
    /// Boxed to keep positions (and `AnyPosition`) small.
    Columns(Box<[[u64; PADDED_COLUMNS]; 2]>),
}

/// A Connect Four position: the board, whose turn it is, and whether the game is over.
#[derive(Clone, PartialEq, Eq)]
pub struct Position {
    width: u8,
    height: u8,
    n_moves: u16,
    last_move: Option<u8>,
    winner: Option<Side>,
    /// Discs in each column.
    heights: [u8; MAX_SIZE],
    /// The columns that are not full, ascending; the first `n_open` entries count, the
    /// slots freed by full columns are zero.
    open: [u8; MAX_SIZE],
    n_open: u8,
    board: Board,
    /// The start text when the game started from a partly filled board.
    start: Option<std::sync::Arc<str>>,
}

/// A move: the column to drop a disc into, 0-based from the left.
///
/// A `Move` read by [`Game::parse_move`] names a column of that board; one built by hand
/// may not, and [`Game::play`] refuses it then.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Move {
    pub column: u8,
}

impl Move {
    pub fn new(column: u8) -> Move {
        Move { column }
    }
}

impl Position {
    /// The empty board of `width` columns and `height` rows, each 4 to 32; the error
    /// names the option (`width` or `height`) that is out of range.
    pub fn empty(width: usize, height: usize) -> Result<Position, SetupError> {
        for (name, value) in [("width", width), ("height", height)] {
            if !(MIN_SIZE..=MAX_SIZE).contains(&value) {
                return Err(SetupError::BadOption {
                    name: name.to_string(),
                    value: value.to_string(),
                    reason: format!("must be between {MIN_SIZE} and {MAX_SIZE}"),
                });
            }
        }
        let board = if (height + 1) * width <= 64 { Board::Bits([0; 2]) } else { Board::Columns(Box::new([[0; PADDED_COLUMNS]; 2])) };
        Ok(Self::with_board(width, height, board))
    }

    fn with_board(width: usize, height: usize, board: Board) -> Position {
        let mut open = [0u8; MAX_SIZE];
        for (x, slot) in open.iter_mut().enumerate() {
            *slot = x as u8;
        }
        Position {
            width: width as u8,
            height: height as u8,
            n_moves: 0,
            last_move: None,
            winner: None,
            heights: [0; MAX_SIZE],
            open,
            n_open: width as u8,
            board,
            start: None,
        }
    }

    /// Number of columns.
    pub fn width(&self) -> usize {
        self.width as usize
    }

    /// Number of rows.
    pub fn height(&self) -> usize {
        self.height as usize
    }

    /// The disc at column `x`, row `y` (row 0 at the bottom), `None` when the cell is
    /// empty. Panics when `(x, y)` is off the board.
    pub fn cell(&self, x: usize, y: usize) -> Option<Side> {
        assert!(x < self.width() && y < self.height(), "cell ({x}, {y}) is off the {}x{} board", self.width, self.height);
        Side::BOTH.into_iter().find(|side| self.has_disc(*side, x, y))
    }

    fn has_disc(&self, side: Side, x: usize, y: usize) -> bool {
        match &self.board {
            Board::Bits(discs) => discs[side.index()] >> (x * (self.height() + 1) + y) & 1 != 0,
            Board::Columns(cols) => cols[side.index()][x + PAD] >> (y + PAD) & 1 != 0,
        }
    }

    /// Number of discs in column `x` (the row the next disc there lands on). Panics when
    /// `x` is off the board.
    pub fn column_height(&self, x: usize) -> usize {
        assert!(x < self.width(), "no column {x} on a board {} wide", self.width);
        self.heights[x] as usize
    }

    /// Whether column `x` is on the board and has room for another disc (while the game
    /// goes on, exactly the legal moves).
    pub fn is_open(&self, x: usize) -> bool {
        x < self.width() && self.heights[x] < self.height
    }

    /// The column of the last move, `None` before the first (the seed's `-1`).
    pub fn last_move(&self) -> Option<usize> {
        self.last_move.map(usize::from)
    }

    /// The side that made four in a row, if one did.
    pub fn winner(&self) -> Option<Side> {
        self.winner
    }

    /// The board as text, one string per row, top row first, one character per cell.
    /// With `me` = `None`: `.` empty, `X` first player (blue), `O` second (red). With
    /// `me` = `Some(side)`, colours relative to that side as the seed's bots see them:
    /// `.` empty, `M` mine, `T` theirs (the opponent's).
    pub fn board_rows(&self, me: Option<Side>) -> Vec<String> {
        let symbol = |cell: Option<Side>| match (cell, me) {
            (None, _) => '.',
            (Some(Side::First), None) => 'X',
            (Some(Side::Second), None) => 'O',
            (Some(side), Some(me)) if side == me => 'M',
            (Some(_), Some(_)) => 'T',
        };
        (0..self.height()).rev().map(|y| (0..self.width()).map(|x| symbol(self.cell(x, y))).collect()).collect()
    }

    /// The cells of every line of four or more of the winner's discs, sorted by `(x, y)`;
    /// empty while nobody has won. For viewers that highlight the win.
    pub fn winning_cells(&self) -> Vec<(usize, usize)> {
        let Some(winner) = self.winner else { return Vec::new() };
        let (w, h) = (self.width() as isize, self.height() as isize);
        let mine = |x: isize, y: isize| (0..w).contains(&x) && (0..h).contains(&y) && self.has_disc(winner, x as usize, y as usize);
        let mut cells = Vec::new();
        for (dx, dy) in [(1, 0), (0, 1), (1, 1), (1, -1)] {
            for x in 0..w {
                for y in 0..h {
                    // Start only at the first disc of a run.
                    if !mine(x, y) || mine(x - dx, y - dy) {
                        continue;
                    }
                    let len = (0..).take_while(|&i| mine(x + dx * i, y + dy * i)).count() as isize;
                    if len >= 4 {
                        cells.extend((0..len).map(|i| ((x + dx * i) as usize, (y + dy * i) as usize)));
                    }
                }
            }
        }
        cells.sort_unstable();
        cells.dedup();
        cells
    }

    /// Reads the board back from rows as [`Position::board_rows`] writes them (top row
    /// first; `.` `X` `O`, or `.` `M` `T` relative to `me`; letters in either case). The
    /// side to move follows from the numbers of discs, the outcome from the board; the
    /// last move is unknown (`None`). Checks that discs rest on each other, that blue has
    /// as many discs as red or one more, and that at most the side that moved last has
    /// four in a row; it does not check that a game could have reached the board.
    pub fn from_board_rows<S: AsRef<str>>(rows: &[S], me: Option<Side>) -> Result<Position, BoardError> {
        let height = rows.len();
        let width = rows.first().map_or(0, |row| row.as_ref().chars().count());
        if let Some(row) = rows.iter().position(|row| row.as_ref().chars().count() != width) {
            return Err(BoardError::Shape(format!("row {row} is not {width} cells wide like the top row")));
        }
        let mut pos = Position::empty(width, height)
            .map_err(|_| BoardError::Shape(format!("{width}x{height} is not a board size (each side {MIN_SIZE} to {MAX_SIZE})")))?;
        let grid: Vec<Vec<char>> = rows.iter().map(|row| row.as_ref().chars().collect()).collect();
        let char_at = |x: usize, y: usize| grid[height - 1 - y][x];
        let mut four = [false; 2];
        let mut counts = [0usize; 2];
        for x in 0..width {
            let mut top = 0;
            for y in 0..height {
                let ch = char_at(x, y);
                let cell = match (ch.to_ascii_uppercase(), me) {
                    ('.', _) => None,
                    ('X', None) => Some(Side::First),
                    ('O', None) => Some(Side::Second),
                    ('M', Some(me)) => Some(me),
                    ('T', Some(me)) => Some(me.other()),
                    _ => return Err(BoardError::Cell { x, y, ch }),
                };
                let Some(side) = cell else { continue };
                if top != y {
                    return Err(BoardError::Floating { x, y });
                }
                top += 1;
                counts[side.index()] += 1;
                four[side.index()] |= pos.place(x, side);
            }
        }
        let [first, second] = counts;
        if first != second && first != second + 1 {
            return Err(BoardError::Counts { first, second });
        }
        let last_mover = if first > second { Side::First } else { Side::Second };
        pos.n_moves = (first + second) as u16;
        for side in Side::BOTH {
            if four[side.index()] {
                if side != last_mover {
                    return Err(BoardError::Unreachable(format!("{} has four in a row but did not move last", colour(side))));
                }
                pos.winner = Some(side);
            }
        }
        Ok(pos)
    }

    /// A start position from its text (see the module doc), on a `width` × `height`
    /// board; an empty board is the default start (no start text).
    fn from_start(text: &str, width: usize, height: usize) -> Result<Position, SetupError> {
        let bad = |reason: String| SetupError::BadStart(reason);
        let rows: Vec<&str> = text.split(['\n', '/']).map(str::trim).filter(|row| !row.is_empty()).collect();
        let mut pos = Position::from_board_rows(&rows, None).map_err(|err| bad(err.to_string()))?;
        if (pos.width(), pos.height()) != (width, height) {
            return Err(bad(format!(
                "the start board is {}x{} (columns x rows), the options say {width}x{height}",
                pos.width(),
                pos.height()
            )));
        }
        let (blue, red) = (pos.n_discs(Side::First), pos.n_discs(Side::Second));
        if blue != red {
            return Err(bad(format!("the start board has {blue} blue and {red} red discs; a start needs as many of each (blue moves first)")));
        }
        if pos.winner.is_some() {
            return Err(bad("the start board already has four in a row".to_string()));
        }
        if pos.n_open == 0 {
            return Err(bad("the start board is full".to_string()));
        }
        if pos.n_moves > 0 {
            pos.start = Some(pos.start_board_text().into());
        }
        Ok(pos)
    }

    /// The board in the start text's form: its rows, top first, each ended by a line end.
    fn start_board_text(&self) -> String {
        self.board_rows(None).iter().map(|row| format!("{row}\n")).collect()
    }

    /// The discs of `side` on the board.
    pub fn n_discs(&self, side: Side) -> usize {
        (0..self.width()).map(|x| (0..self.column_height(x)).filter(|&y| self.cell(x, y) == Some(side)).count()).sum()
    }

    fn side_to_move(&self) -> Side {
        if self.n_moves.is_multiple_of(2) { Side::First } else { Side::Second }
    }

    fn is_over(&self) -> bool {
        self.winner.is_some() || self.n_open == 0
    }

    fn illegal(&self, mv: &Move) -> Option<String> {
        let x = mv.column as usize;
        if x >= self.width() {
            Some(format!("no column {x} on a board {} wide", self.width))
        } else if self.heights[x] >= self.height {
            Some("the column is full".to_string())
        } else {
            None
        }
    }

    /// Drops a disc of the side to move into open column `x`.
    fn drop_disc(&mut self, x: usize) {
        let side = self.side_to_move();
        let won = self.place(x, side);
        self.n_moves += 1;
        self.last_move = Some(x as u8);
        if won {
            self.winner = Some(side);
        }
    }

    /// Puts a disc of `side` on top of open column `x`; true when it lies on a four.
    fn place(&mut self, x: usize, side: Side) -> bool {
        let y = self.heights[x] as usize;
        self.heights[x] += 1;
        if self.heights[x] == self.height {
            self.close_column(x);
        }
        let h1 = self.height() + 1;
        match &mut self.board {
            Board::Bits(discs) => {
                let mine = &mut discs[side.index()];
                *mine |= 1 << (x * h1 + y);
                bits_have_four(*mine, h1 as u32)
            }
            Board::Columns(cols) => {
                let mine = &mut cols[side.index()];
                mine[x + PAD] |= 1 << (y + PAD);
                columns_four_through(mine, x, y)
            }
        }
    }

    fn close_column(&mut self, x: usize) {
        let n = self.n_open as usize;
        let idx = self.open[..n].iter().position(|&c| c as usize == x).expect("a column being filled was open");
        self.open.copy_within(idx + 1..n, idx);
        // Clear the freed slot so that equal boards compare equal whatever the order in
        // which their columns filled up.
        self.open[n - 1] = 0;
        self.n_open -= 1;
    }

    /// The index into the open columns that a random move takes. Shared by
    /// [`Game::random_move`] and [`Game::random_playout`] so that they draw alike.
    fn random_open_idx<R: Rng + ?Sized>(n_open: u8, rng: &mut R) -> usize {
        rng.random_range(0..n_open as u32) as usize
    }

    fn playout_bits<R: Rng + ?Sized>(&mut self, rng: &mut R) {
        let Board::Bits(discs) = &mut self.board else { unreachable!("playout_bits on a bitboard") };
        let h1 = self.height as usize + 1;
        let mut side = self.n_moves as usize % 2;
        let mut mine = discs[side];
        let mut theirs = discs[1 - side];
        let mut n_moves = self.n_moves;
        let mut n_open = self.n_open;
        let mut last = self.last_move;
        let mut won = false;
        while n_open > 0 {
            let idx = Self::random_open_idx(n_open, rng);
            let x = self.open[idx] as usize;
            let y = self.heights[x];
            self.heights[x] = y + 1;
            if y + 1 == self.height {
                self.open.copy_within(idx + 1..n_open as usize, idx);
                self.open[n_open as usize - 1] = 0;
                n_open -= 1;
            }
            mine |= 1 << (x * h1 + y as usize);
            n_moves += 1;
            last = Some(x as u8);
            if bits_have_four(mine, h1 as u32) {
                won = true;
                break;
            }
            std::mem::swap(&mut mine, &mut theirs);
            side = 1 - side;
        }
        discs[side] = mine;
        discs[1 - side] = theirs;
        self.n_moves = n_moves;
        self.n_open = n_open;
        self.last_move = last;
        if won {
            self.winner = Side::from_index(side);
        }
    }

    fn playout_columns<R: Rng + ?Sized>(&mut self, rng: &mut R) {
        let Board::Columns(cols) = &mut self.board else { unreachable!("playout_columns on column masks") };
        let mut side = self.n_moves as usize % 2;
        let mut n_open = self.n_open;
        while n_open > 0 {
            let idx = Self::random_open_idx(n_open, rng);
            let x = self.open[idx] as usize;
            let y = self.heights[x];
            self.heights[x] = y + 1;
            if y + 1 == self.height {
                self.open.copy_within(idx + 1..n_open as usize, idx);
                self.open[n_open as usize - 1] = 0;
                n_open -= 1;
            }
            self.n_moves += 1;
            self.last_move = Some(x as u8);
            let mine = &mut cols[side];
            mine[x + PAD] |= 1 << (y as usize + PAD);
            if columns_four_through(mine, x, y as usize) {
                self.winner = Side::from_index(side);
                break;
            }
            side = 1 - side;
        }
        self.n_open = n_open;
    }
}

/// Why board rows could not be read back into a position
/// ([`Position::from_board_rows`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BoardError {
    #[error("bad board shape: {0}")]
    Shape(String),
    #[error("unknown cell {ch:?} at column {x}, row {y}")]
    Cell { x: usize, y: usize, ch: char },
    #[error("the disc at column {x}, row {y} floats over an empty cell")]
    Floating { x: usize, y: usize },
    #[error("{first} blue and {second} red discs: blue moves first, so it has as many discs as red or one more")]
    Counts { first: usize, second: usize },
    #[error("impossible board: {0}")]
    Unreachable(String),
}

/// The colour of a side's discs in messages.
fn colour(side: Side) -> &'static str {
    match side {
        Side::First => "blue",
        Side::Second => "red",
    }
}

/// Whether the bitboard `b` (columns of `h1` bits) holds four in a row: a run of four
/// set bits at distance 1 (vertical), `h1` (horizontal), `h1 - 1` and `h1 + 1`
/// (diagonals). The empty sentinel row keeps runs from wrapping between columns.
fn bits_have_four(b: u64, h1: u32) -> bool {
    let run = |step: u32| {
        let pairs = b & (b >> step);
        pairs & (pairs >> (2 * step)) != 0
    };
    run(1) || run(h1) || run(h1 - 1) || run(h1 + 1)
}

/// Whether the disc at `(x, y)` in padded column masks `cols` lies on four in a row.
fn columns_four_through(cols: &[u64; PADDED_COLUMNS], x: usize, y: usize) -> bool {
    let cx = x + PAD;
    let by = y + PAD;
    // Vertical: rows y-3..=y are bits y..=y+3; the padding below row 0 is zero.
    if (cols[cx] >> y) & 0xf == 0xf {
        return true;
    }
    // Horizontal and the two diagonals: gather the seven cells of the line centred on
    // the new disc into bits 0..7 and look for four adjacent ones.
    for slope in [0isize, 1, -1] {
        let mut line = 0u32;
        for i in 0..7 {
            let row = (by as isize + slope * (i as isize - 3)) as usize;
            line |= ((cols[cx + i - 3] >> row) & 1) as u32 * (1 << i);
        }
        let pairs = line & (line >> 1);
        if pairs & (pairs >> 2) != 0 {
            return true;
        }
    }
    false
}

impl std::fmt::Debug for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Position")
            .field("width", &self.width)
            .field("height", &self.height)
            .field("n_moves", &self.n_moves)
            .field("last_move", &self.last_move)
            .field("winner", &self.winner)
            .field("rows", &self.board_rows(None))
            .finish()
    }
}

impl Game for Position {
    type Move = Move;
    const INFO: GameInfo = GameInfo {
        name: "connect4",
        aliases: &["connect-four", "connect_four", "c4"],
        title: "Connect Four, 7x6 or larger, four in a row wins (seed 002, 2008)",
        side_names: ["blue", "red"],
        notation: "the column index from 0 at the left, e.g. 3",
        options: OPTIONS,
        enumerable: true,
        has_scores: false,
        hidden_information: false,
        start_required: false,
        generated_openings: true,
        style: BoardStyle {
            grid: Grid::Holes,
            pieces: Pieces::Discs,
            board_colour: "#334155",
            line_colour: "#f1f5f9",
            piece_colours: ["#2563eb", "#dc2626"],
            text_colours: ["#ffffff", "#ffffff"],
        },
    };

    /// Columns counted from 1, as people count them ("column 4" for `3`).
    fn move_for_people(text: &str) -> String {
        text.trim().parse::<usize>().map_or_else(|_| text.to_string(), |column| format!("column {}", column + 1))
    }

    /// "4" or "column 4" (counted from 1) is the notation's `3`.
    fn move_from_people(&self, text: &str) -> Result<String, String> {
        let trimmed = text.trim();
        let number = trimmed.get(..6).filter(|w| w.eq_ignore_ascii_case("column")).map_or(trimmed, |_| trimmed[6..].trim());
        match number.parse::<usize>() {
            Ok(column) if (1..=self.width()).contains(&column) => Ok((column - 1).to_string()),
            _ => Err(format!("{trimmed:?} is not a column: type a column number from 1 to {}", self.width)),
        }
    }

    fn new(options: &Options, start: Option<&str>) -> Result<Self, SetupError> {
        let (min, max) = (MIN_SIZE as i64, MAX_SIZE as i64);
        let width = options::get_int(OPTIONS, options, "width", min, max)?;
        let height = options::get_int(OPTIONS, options, "height", min, max)?;
        match start.filter(|text| !text.trim().is_empty()) {
            None => Position::empty(width as usize, height as usize),
            Some(text) => Position::from_start(text, width as usize, height as usize),
        }
    }

    /// 2, 4 or 6 plies (drawn uniformly) into columns drawn uniformly among the open
    /// ones, blue to move after them; `None` when they made four in a row (they cannot
    /// with three discs a side, but the rules decide).
    fn opening_candidate<R: Rng + ?Sized>(options: &Options, rng: &mut R) -> Result<Option<String>, SetupError> {
        let mut pos = Position::new(options, None)?;
        let plies = 2 * rng.random_range(1..=3);
        for _ in 0..plies {
            let Some(mv) = pos.random_move(rng) else { return Ok(None) };
            pos.play_unchecked(&mv);
        }
        if pos.is_over() {
            return Ok(None);
        }
        Ok(Some(pos.start_board_text()))
    }

    /// Seed 002: CPU time per game, 120 s on boards up to 7x6's 42 cells and 600 s on
    /// larger ones (the contest's 20x20), and 4 GiB of memory.
    fn seed_limits(options: &Options) -> LimitSet {
        let (width, height) = board_size(options).unwrap_or((7, 6));
        let cpu_s = if width * height <= 42 { 120 } else { 600 };
        LimitSet { cpu_ms: Some(cpu_s * 1000), memory_mb: Some(4096), ..LimitSet::default() }
    }

    /// The rows, top first, joined by `/`: `.` empty, `X` first (blue), `O` second.
    fn position_line(&self) -> String {
        self.board_rows(None).join("/")
    }

    /// The board must have the size of the options.
    fn from_position_line(options: &Options, line: &str) -> Result<Self, String> {
        let rows: Vec<&str> = line.split('/').collect();
        let pos = Position::from_board_rows(&rows, None).map_err(|err| err.to_string())?;
        if board_size(options) != Some((pos.width(), pos.height())) {
            return Err("the board does not have the size of the options".to_string());
        }
        Ok(pos)
    }

    fn board_view(&self) -> BoardView {
        let (w, h) = (self.width(), self.height());
        let mut view = BoardView::new(self, w, h);
        // Columns and rows counted from 1 as people count (the move list's "column 4" is
        // the column labelled 4; the notation, for bots, counts from 0); rows from the
        // bottom, as the rules count them.
        view.col_labels = (1..=w).map(|x| x.to_string()).collect();
        view.row_labels = (1..=h).rev().map(|y| y.to_string()).collect();
        for row in 0..h {
            let y = h - 1 - row;
            for x in 0..w {
                view.cells.push(CellView { name: x.to_string(), owner: view::owner(self.cell(x, y)), ..CellView::default() });
            }
        }
        if let Some(x) = self.last_move() {
            // The last disc is the top one of its column.
            view.last = vec![[x, h - self.column_height(x)]];
            view.last_move = Some(x.to_string());
        }
        view.winning = self.winning_cells().iter().map(|&(x, y)| [x, h - 1 - y]).collect();
        view.winning.sort();
        view.status = view.status_line(self.outcome(), "with four in a row", "draw: the board is full");
        view.input = if self.to_move().is_some() { Input::Column } else { Input::None };
        view
    }

    fn start_text(&self) -> Option<String> {
        self.start.as_deref().map(str::to_string)
    }

    fn to_move(&self) -> Option<Side> {
        if self.is_over() { None } else { Some(self.side_to_move()) }
    }

    fn outcome(&self) -> Option<Outcome> {
        match self.winner {
            Some(side) => Some(Outcome::win(side)),
            None if self.n_open == 0 => Some(Outcome::draw()),
            None => None,
        }
    }

    fn running_scores(&self) -> Option<[i64; 2]> {
        None
    }

    fn legal_moves(&self, out: &mut Vec<Move>) {
        if !self.is_over() {
            out.extend(self.open[..self.n_open as usize].iter().map(|&x| Move::new(x)));
        }
    }

    fn random_move<R: Rng + ?Sized>(&self, rng: &mut R) -> Option<Move> {
        if self.is_over() {
            return None;
        }
        Some(Move::new(self.open[Self::random_open_idx(self.n_open, rng)]))
    }

    fn parse_move(&self, text: &str) -> Result<Move, MoveError> {
        let trimmed = text.trim();
        let digits = trimmed.strip_prefix(['+', '-']).unwrap_or(trimmed);
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(MoveError::Parse {
                text: text.to_string(),
                reason: format!("a move is a column number from 0 to {}", self.width - 1),
            });
        }
        match trimmed.parse::<i64>() {
            Ok(x) if (0..self.width as i64).contains(&x) => Ok(Move::new(x as u8)),
            // A number too long for i64 is as far off the board as any other.
            Ok(_) | Err(_) => {
                Err(MoveError::Illegal { text: trimmed.to_string(), reason: format!("no column {trimmed} on a board {} wide", self.width) })
            }
        }
    }

    fn format_move(&self, mv: &Move) -> String {
        mv.column.to_string()
    }

    fn play(&mut self, mv: &Move) -> Result<(), MoveError> {
        if self.is_over() {
            return Err(MoveError::GameOver);
        }
        if let Some(reason) = self.illegal(mv) {
            return Err(MoveError::Illegal { text: self.format_move(mv), reason });
        }
        self.drop_disc(mv.column as usize);
        Ok(())
    }

    fn play_unchecked(&mut self, mv: &Move) {
        self.drop_disc(mv.column as usize);
    }

    /// The rows top to bottom (`X` blue, `O` red, `.` empty), the column numbers below,
    /// then who is to move or how the game ended.
    fn picture(&self) -> String {
        let cell_width = if self.width > 10 { 3 } else { 2 };
        let mut out = String::new();
        for row in self.board_rows(None) {
            for ch in row.chars() {
                out.push_str(&format!("{ch:>cell_width$}"));
            }
            out.push('\n');
        }
        for x in 0..self.width() {
            out.push_str(&format!("{x:>cell_width$}"));
        }
        out.push('\n');
        let status = match self.outcome() {
            Some(Outcome { winner: Some(Side::First), .. }) => "blue (X) wins".to_string(),
            Some(Outcome { winner: Some(Side::Second), .. }) => "red (O) wins".to_string(),
            Some(_) => "draw".to_string(),
            None if self.side_to_move() == Side::First => "blue (X) to move".to_string(),
            None => "red (O) to move".to_string(),
        };
        out.push_str(&status);
        if let Some(x) = self.last_move {
            out.push_str(&format!(", last move {x}"));
        }
        out.push('\n');
        out
    }

    fn n_moves(&self) -> usize {
        self.n_moves as usize
    }

    fn random_playout<R: Rng + ?Sized>(&mut self, rng: &mut R) -> Outcome {
        if !self.is_over() {
            match self.board {
                Board::Bits(_) => self.playout_bits(rng),
                Board::Columns(_) => self.playout_columns(rng),
            }
        }
        self.outcome().expect("a playout ends the game")
    }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use rand::rngs::ChaCha8Rng;

    use super::*;

    /// The same empty board in the column-mask representation, which boards that fit a
    /// bitboard do not normally use.
    fn empty_columns(width: usize, height: usize) -> Position {
        Position::with_board(width, height, Board::Columns(Box::new([[0; PADDED_COLUMNS]; 2])))
    }

    fn same_state(a: &Position, b: &Position) -> bool {
        a.board_rows(None) == b.board_rows(None)
            && a.outcome() == b.outcome()
            && a.to_move() == b.to_move()
            && a.n_moves() == b.n_moves()
            && a.last_move() == b.last_move()
            && a.heights == b.heights
            && a.open[..a.n_open as usize] == b.open[..b.n_open as usize]
    }

    #[test]
    fn bitboard_and_column_masks_agree() {
        let sizes = [(7, 6), (4, 4), (8, 7), (9, 6), (12, 4), (4, 12), (5, 4), (6, 8)];
        for (width, height) in sizes {
            let bits = Position::empty(width, height).expect("size in range");
            assert!(matches!(bits.board, Board::Bits(_)), "{width}x{height} fits a bitboard");
            let cols = empty_columns(width, height);
            for seed in 0..300 {
                let mut rng = ChaCha8Rng::seed_from_u64(seed);
                let (mut a, mut b) = (bits.clone(), cols.clone());
                while let Some(mv) = a.random_move(&mut rng) {
                    a.play(&mv).expect("random move is legal");
                    b.play(&mv).expect("the same move is legal in the other representation");
                    assert!(same_state(&a, &b), "{width}x{height} seed {seed}: {a:?} vs {b:?}");
                }
                assert!(b.to_move().is_none());
                // The fast playouts of both draw the same game from the same seed.
                let (mut a, mut b) = (bits.clone(), cols.clone());
                a.random_playout(&mut ChaCha8Rng::seed_from_u64(seed));
                b.random_playout(&mut ChaCha8Rng::seed_from_u64(seed));
                assert!(same_state(&a, &b), "{width}x{height} playout seed {seed}: {a:?} vs {b:?}");
            }
        }
    }

    #[test]
    fn large_boards_use_column_masks() {
        for (width, height) in [(20, 20), (32, 32), (13, 4), (4, 32), (9, 7)] {
            let pos = Position::empty(width, height).expect("size in range");
            assert!(matches!(pos.board, Board::Columns(_)), "{width}x{height}");
        }
    }
}
