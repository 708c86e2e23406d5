//! Reversi (Othello) on an n × n board, World Othello Federation rules; the sixth game,
//! with no seed contest (the rules in full are in `docs/games.md`).
//!
//! Rules in brief: Black moves first (side 0), White second. The board starts with four
//! discs in the centre: on 8 × 8 White on d4 and e5, Black on d5 and e4. A move places a
//! disc of one's colour on an empty square so that it brackets, in at least one of the
//! eight directions, an unbroken line of the opponent's discs ending in one's own disc;
//! every bracketed line is flipped. A side with no such placement passes (its only legal
//! move is `pass`) while the other side has one; when neither side can place, the game
//! ends. Each side scores its discs on the board; more discs win, equal is a draw.
//!
//! Options: `size` (n, even, 6 to 16, default 8).
//!
//! Move notation: the column letter `a`.. (left to right) then the row number `1`..`n`
//! (top to bottom), e.g. `d3`; `pass` for a pass. Read in any letter case, surrounding
//! whitespace ignored. Black's first legal moves on 8 × 8 are d3, c4, f5 and e6.
//! Legal placements are listed in reading order (a1, b1, .., a2, ..).
//!
//! Start: the four centre discs only; a start text is refused unless blank. Limits: 1
//! second per move and 256 MiB (no seed sets them: the common limits of bot contests).
//!
//! Position line (the project protocol): `black:` or `white:` (the side to move; `end:`
//! once over), then the rows, top first, joined by `/`, one character per square: `.`
//! empty, `B` Black, `W` White.

use std::fmt;

use rand::{Rng, RngExt};

use crate::view::{self, BoardStyle, BoardView, CellView, Grid, Input, Pieces};
use crate::{Game, GameInfo, LimitSet, MoveError, OptionSpec, Options, Outcome, SetupError, Side, options};

/// The smallest board side.
pub const MIN_SIZE: usize = 6;
/// The largest board side.
pub const MAX_SIZE: usize = 16;
/// Squares of the largest board.
const MAX_CELLS: usize = MAX_SIZE * MAX_SIZE;

/// The eight directions, as (column step, row step).
const DIRECTIONS: [(isize, isize); 8] = [(-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1)];

const OPTIONS: &[OptionSpec] = &[OptionSpec { name: "size", default: "8", help: "board side n (even, 6 to 16)" }];

/// The board side the options give.
fn size_option(options: &Options) -> Result<usize, SetupError> {
    let n = options::get_int(OPTIONS, options, "size", MIN_SIZE as i64, MAX_SIZE as i64)?;
    if n % 2 != 0 {
        return Err(SetupError::BadOption {
            name: "size".to_string(),
            value: options::get_text(OPTIONS, options, "size").to_string(),
            reason: "must be even, so that the four start discs sit in the centre".to_string(),
        });
    }
    Ok(n as usize)
}

/// What a side's disc is called in position lines and pictures: `B` Black, `W` White.
pub fn disc_char(side: Side) -> char {
    match side {
        Side::First => 'B',
        Side::Second => 'W',
    }
}

/// One move: a disc placed on a square, or a pass.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Move {
    /// A disc on column `col` (0 = `a`) and row `row` (0 = row `1`, the top one).
    Place { col: u8, row: u8 },
    /// No placement is open to the side to move.
    Pass,
}

impl Move {
    /// The placement on (`col`, `row`), counted from 0 at the top left.
    pub fn place(col: usize, row: usize) -> Move {
        Move::Place { col: col as u8, row: row as u8 }
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Move::Place { col, row } => write!(f, "{}{}", (b'a' + col) as char, row + 1),
            Move::Pass => f.write_str("pass"),
        }
    }
}

/// A Reversi game in progress.
#[derive(Clone, PartialEq, Eq)]
pub struct Position {
    n: usize,
    /// Row-major, `row * n + col`; only the first `n * n` are used.
    cells: [Option<Side>; MAX_CELLS],
    /// The side to move, `None` once neither side can place.
    to_move: Option<Side>,
    discs: [i64; 2],
    n_moves: usize,
    last: Option<Move>,
    /// The squares the last placement flipped, by index.
    flipped: Vec<u16>,
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Reversi({})", self.position_line())
    }
}

impl Position {
    /// The start position on an `n` × `n` board (`n` even, 6 to 16, not checked here).
    pub fn start(n: usize) -> Position {
        let mut pos = Position {
            n,
            cells: [None; MAX_CELLS],
            to_move: Some(Side::First),
            discs: [2, 2],
            n_moves: 0,
            last: None,
            flipped: Vec::new(),
        };
        let c = n / 2;
        pos.cells[(c - 1) * n + (c - 1)] = Some(Side::Second);
        pos.cells[c * n + c] = Some(Side::Second);
        pos.cells[c * n + (c - 1)] = Some(Side::First);
        pos.cells[(c - 1) * n + c] = Some(Side::First);
        pos
    }

    /// The board side.
    pub fn size(&self) -> usize {
        self.n
    }

    /// The disc on (`col`, `row`), `None` when empty. Panics off the board.
    pub fn cell(&self, col: usize, row: usize) -> Option<Side> {
        assert!(col < self.n && row < self.n, "square ({col}, {row}) is off the board");
        self.cells[row * self.n + col]
    }

    /// The discs of each side on the board, by [`Side::index`].
    pub fn discs(&self) -> [i64; 2] {
        self.discs
    }

    /// The last move played, `None` at the start.
    pub fn last_move(&self) -> Option<Move> {
        self.last
    }

    /// The squares the last placement flipped, as (column, row).
    pub fn last_flipped(&self) -> Vec<(usize, usize)> {
        self.flipped.iter().map(|&idx| (idx as usize % self.n, idx as usize / self.n)).collect()
    }

    /// How many of the opponent's discs a disc of `side` on (`col`, `row`) would
    /// bracket in direction (`dx`, `dy`).
    fn bracketed(&self, col: usize, row: usize, side: Side, (dx, dy): (isize, isize)) -> usize {
        let n = self.n as isize;
        let (mut x, mut y) = (col as isize + dx, row as isize + dy);
        let mut run = 0;
        while x >= 0 && y >= 0 && x < n && y < n {
            match self.cells[(y * n + x) as usize] {
                Some(owner) if owner == side => return run,
                Some(_) => run += 1,
                None => return 0,
            }
            x += dx;
            y += dy;
        }
        0
    }

    /// Whether `side` may place a disc on (`col`, `row`).
    fn can_place(&self, col: usize, row: usize, side: Side) -> bool {
        self.cells[row * self.n + col].is_none() && DIRECTIONS.iter().any(|&dir| self.bracketed(col, row, side, dir) > 0)
    }

    /// Appends every placement open to `side`, in reading order.
    fn placements(&self, side: Side, out: &mut Vec<Move>) {
        for row in 0..self.n {
            for col in 0..self.n {
                if self.can_place(col, row, side) {
                    out.push(Move::place(col, row));
                }
            }
        }
    }

    fn has_placement(&self, side: Side) -> bool {
        (0..self.n).any(|row| (0..self.n).any(|col| self.can_place(col, row, side)))
    }

    /// Plays a move known to be legal for the side to move and passes the turn on.
    fn apply(&mut self, mv: Move) {
        let Some(side) = self.to_move else { return };
        self.flipped.clear();
        if let Move::Place { col, row } = mv {
            let (col, row) = (col as usize, row as usize);
            let n = self.n as isize;
            for dir in DIRECTIONS {
                let run = self.bracketed(col, row, side, dir);
                for step in 1..=run as isize {
                    let idx = ((row as isize + dir.1 * step) * n + col as isize + dir.0 * step) as usize;
                    self.cells[idx] = Some(side);
                    self.flipped.push(idx as u16);
                }
            }
            self.cells[row * self.n + col] = Some(side);
            let flips = self.flipped.len() as i64;
            self.discs[side.index()] += flips + 1;
            self.discs[side.other().index()] -= flips;
        }
        self.n_moves += 1;
        self.last = Some(mv);
        let next = side.other();
        self.to_move = (self.has_placement(next) || self.has_placement(side)).then_some(next);
    }

    /// Reads a board from its position line (see the module doc).
    fn from_line(n: usize, line: &str) -> Result<Position, String> {
        let (to_move, rows) = line.split_once(':').ok_or("expected black:, white: or end: and the rows")?;
        let to_move = match to_move {
            "black" => Some(Side::First),
            "white" => Some(Side::Second),
            "end" => None,
            other => return Err(format!("unknown side to move {other:?} (black, white or end)")),
        };
        let rows: Vec<&str> = rows.split('/').collect();
        if rows.len() != n {
            return Err(format!("{} rows, the board has {n}", rows.len()));
        }
        let mut pos = Position::start(n);
        pos.cells = [None; MAX_CELLS];
        pos.discs = [0, 0];
        for (row, text) in rows.iter().enumerate() {
            if text.chars().count() != n {
                return Err(format!("row {} has {} squares, not {n}", row + 1, text.chars().count()));
            }
            for (col, ch) in text.chars().enumerate() {
                let disc = match ch {
                    '.' => None,
                    'B' => Some(Side::First),
                    'W' => Some(Side::Second),
                    other => return Err(format!("row {}: unexpected {other:?} (expected '.', 'B' or 'W')", row + 1)),
                };
                if let Some(side) = disc {
                    pos.discs[side.index()] += 1;
                }
                pos.cells[row * n + col] = disc;
            }
        }
        let open = Side::BOTH.map(|side| pos.has_placement(side));
        pos.to_move = match to_move {
            Some(_) if open == [false, false] => return Err("neither side can place: the game is over (end:)".to_string()),
            None if open != [false, false] => return Err("a side can still place: the game is not over".to_string()),
            side => side,
        };
        Ok(pos)
    }
}

impl Game for Position {
    type Move = Move;
    const INFO: GameInfo = GameInfo {
        name: "reversi",
        aliases: &["othello"],
        title: "Reversi (Othello) 8x8 or n x n, most discs wins (World Othello Federation rules)",
        side_names: ["Black", "White"],
        notation: "column letter then row number from 1 at the top, e.g. d3; pass when no placement is open",
        options: OPTIONS,
        enumerable: true,
        has_scores: true,
        hidden_information: false,
        start_required: false,
        generated_openings: false,
        style: BoardStyle {
            grid: Grid::Squares,
            pieces: Pieces::Discs,
            board_colour: "#1f7a3a",
            line_colour: "#0d4d22",
            piece_colours: ["#111827", "#f9fafb"],
            text_colours: ["#f9fafb", "#111827"],
        },
    };

    fn new(options: &Options, start: Option<&str>) -> Result<Self, SetupError> {
        let n = size_option(options)?;
        if start.is_some_and(|text| !text.trim().is_empty()) {
            return Err(SetupError::BadStart("reversi starts from the four centre discs".to_string()));
        }
        Ok(Position::start(n))
    }

    fn seed_limits(_options: &Options) -> LimitSet {
        LimitSet { move_ms: Some(1_000), memory_mb: Some(256), ..LimitSet::default() }
    }

    fn position_line(&self) -> String {
        let side = match self.to_move {
            Some(Side::First) => "black",
            Some(Side::Second) => "white",
            None => "end",
        };
        let rows: Vec<String> = (0..self.n)
            .map(|row| (0..self.n).map(|col| self.cell(col, row).map_or('.', disc_char)).collect())
            .collect();
        format!("{side}:{}", rows.join("/"))
    }

    /// The board must have the size of the options; the line's side to move must agree
    /// with the board (`end:` exactly when neither side can place).
    fn from_position_line(options: &Options, line: &str) -> Result<Self, String> {
        let n = size_option(options).map_err(|err| err.to_string())?;
        Position::from_line(n, line)
    }

    fn start_text(&self) -> Option<String> {
        None
    }

    fn to_move(&self) -> Option<Side> {
        self.to_move
    }

    fn outcome(&self) -> Option<Outcome> {
        self.to_move.is_none().then(|| Outcome::from_scores(self.discs))
    }

    fn running_scores(&self) -> Option<[i64; 2]> {
        Some(self.discs)
    }

    fn legal_moves(&self, out: &mut Vec<Move>) {
        let Some(side) = self.to_move else { return };
        let before = out.len();
        self.placements(side, out);
        if out.len() == before {
            out.push(Move::Pass);
        }
    }

    fn random_move<R: Rng + ?Sized>(&self, rng: &mut R) -> Option<Move> {
        self.to_move?;
        let mut moves = Vec::new();
        self.legal_moves(&mut moves);
        Some(moves[rng.random_range(0..moves.len())])
    }

    fn parse_move(&self, text: &str) -> Result<Move, MoveError> {
        let trimmed = text.trim();
        let err = |reason: String| MoveError::Parse { text: text.to_string(), reason };
        if trimmed.eq_ignore_ascii_case("pass") {
            return Ok(Move::Pass);
        }
        let mut chars = trimmed.chars();
        let letter = chars.next().ok_or_else(|| err("empty move".to_string()))?;
        let digits = chars.as_str();
        let last = (b'a' + self.n as u8 - 1) as char;
        if !letter.is_ascii_alphabetic() || digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) {
            return Err(err(format!("expected a column letter a..{last} and a row number 1..{}, like d3, or pass", self.n)));
        }
        let col = (letter.to_ascii_lowercase() as u8 - b'a') as usize;
        if col >= self.n {
            return Err(err(format!("column {letter} is off the board (columns are a..{last})")));
        }
        let row: usize = digits.parse().map_err(|_| err(format!("row {digits} is off the board (rows are 1..{})", self.n)))?;
        if row == 0 || row > self.n {
            return Err(err(format!("row {digits} is off the board (rows are 1..{})", self.n)));
        }
        Ok(Move::place(col, row - 1))
    }

    fn format_move(&self, mv: &Move) -> String {
        mv.to_string()
    }

    fn play(&mut self, mv: &Move) -> Result<(), MoveError> {
        let Some(side) = self.to_move else {
            return Err(MoveError::GameOver);
        };
        let illegal = |reason: String| MoveError::Illegal { text: mv.to_string(), reason };
        match *mv {
            Move::Pass => {
                if self.has_placement(side) {
                    return Err(illegal("a placement is open, so passing is not allowed".to_string()));
                }
            }
            Move::Place { col, row } => {
                let (col, row) = (col as usize, row as usize);
                if col >= self.n || row >= self.n {
                    return Err(illegal("the square is off the board".to_string()));
                }
                if let Some(owner) = self.cell(col, row) {
                    return Err(illegal(format!("{mv} is taken by {}", Self::INFO.side_names[owner.index()])));
                }
                if !self.can_place(col, row, side) {
                    return Err(illegal(format!("a disc on {mv} flips no disc")));
                }
            }
        }
        self.apply(*mv);
        Ok(())
    }

    fn play_unchecked(&mut self, mv: &Move) {
        self.apply(*mv);
    }

    fn picture(&self) -> String {
        let mut out = String::from("   ");
        for col in 0..self.n {
            out.push((b'a' + col as u8) as char);
            out.push(' ');
        }
        out.push('\n');
        for row in 0..self.n {
            out.push_str(&format!("{:>2} ", row + 1));
            for col in 0..self.n {
                out.push(self.cell(col, row).map_or('.', disc_char));
                out.push(' ');
            }
            out.push('\n');
        }
        out.push_str(&format!("Black {} : White {}", self.discs[0], self.discs[1]));
        match self.to_move {
            Some(side) => out.push_str(&format!(", {} to move\n", Self::INFO.side_names[side.index()])),
            None => out.push_str(", game over\n"),
        }
        out
    }

    fn n_moves(&self) -> usize {
        self.n_moves
    }

    fn board_view(&self) -> BoardView {
        let n = self.n;
        let mut view = BoardView::new(self, n, n);
        view.col_labels = (0..n).map(|x| ((b'a' + x as u8) as char).to_string()).collect();
        view.row_labels = (1..=n).map(|y| y.to_string()).collect();
        let mut open = Vec::new();
        if let Some(side) = self.to_move {
            self.placements(side, &mut open);
        }
        for row in 0..n {
            for col in 0..n {
                view.cells.push(CellView {
                    name: Move::place(col, row).to_string(),
                    owner: view::owner(self.cell(col, row)),
                    hint: open.contains(&Move::place(col, row)),
                    ..CellView::default()
                });
            }
        }
        if let Some(mv) = self.last {
            if let Move::Place { col, row } = mv {
                view.last = vec![[col as usize, row as usize]];
                view.last_report = vec![format!("{mv} flips {}", self.flipped.len())];
            } else {
                view.last_report = vec!["pass".to_string()];
            }
            view.last_move = Some(mv.to_string());
        }
        view.status = view.status_line(self.outcome(), "", "draw");
        if self.to_move.is_some() && open.is_empty() {
            view.status = format!("{}: no placement, a pass", view.status);
        }
        view.input = match (self.to_move, open.is_empty()) {
            (None, _) => Input::None,
            (Some(_), true) => Input::Pass,
            (Some(_), false) => Input::Cell,
        };
        view.legend = vec![["hint".to_string(), "a square where the side to move may place".to_string()]];
        view
    }
}
