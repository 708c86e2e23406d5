//! Board views: a position as plain data for drawing (cells, owners, labels, highlights,
//! a status line, how a click makes a move), so that the web (`assets/board.js`) draws
//! every game the same way without knowing its rules. Each game makes its own view
//! ([`Game::board_view`](crate::Game::board_view)) and declares how its board looks
//! ([`BoardStyle`], in its descriptor).
//!
//! Coordinates are as drawn: `x` from the left, `y` from the top row on the screen, and
//! `cells` is row-major (`y * width + x`). A game whose own rows count from the bottom
//! (Connect Four) or draw its last rank on top (Nupud) turns its coordinates here.
//!
//! A view never shows more than a player may see: while the rules hide the last move
//! (Nupud's set-up), it is off the board and out of `last` and `last_move`.

use serde::Serialize;

use crate::{Outcome, Side};

/// How a board looks, from its descriptor ([`GameInfo::style`](crate::GameInfo::style)).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BoardStyle {
    pub grid: Grid,
    pub pieces: Pieces,
    /// The board's colour (CSS): the wood, the frame, the squares.
    pub board_colour: &'static str,
    /// The second colour of the board: the grid lines, the empty holes, the dark squares.
    pub line_colour: &'static str,
    /// The pieces' colours, side 0 first.
    pub piece_colours: [&'static str; 2],
    /// The colours of text on the pieces (labels), side 0 first.
    pub text_colours: [&'static str; 2],
}

/// The board under the pieces.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Grid {
    /// Lines joining the cells' centres; pieces sit on the crossings (Gomoku).
    Lines,
    /// A frame with a round hole per cell (Connect Four).
    Holes,
    /// Square cells with a thin border (Pah-tum, Legions, Reversi).
    Squares,
    /// Squares of two alternating colours (Nupud).
    Checkered,
}

/// What a side's piece looks like.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Pieces {
    /// A round stone with a highlight.
    Stones,
    /// A flat disc, with the cell's label on it when it has one.
    Discs,
    /// The whole cell in the owner's colour (territory).
    Tiles,
    /// The cell's label as a large glyph in the owner's colour, outlined, no disc (chess
    /// pieces).
    Glyphs,
}

/// How a person enters a move by clicking the board.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Input {
    /// Click an empty cell (Gomoku, Pah-tum, Reversi: a cell a move may go on).
    Cell,
    /// Click a column (Connect Four).
    Column,
    /// Click a piece of one's own, then its destination (Nupud's steps).
    FromTo,
    /// A set-up typed as text (Nupud's set-up).
    Setup,
    /// Orders composed by clicks, one legion per click (Legions).
    Orders,
    /// A pass is the only move: a button, not the board (Reversi).
    Pass,
    /// The game is over.
    None,
}

impl Input {
    /// The mode's name, as in JSON: `cell`, `column`, `from-to`, `setup`, `orders`,
    /// `pass`, `none`.
    pub fn as_str(self) -> &'static str {
        match self {
            Input::Cell => "cell",
            Input::Column => "column",
            Input::FromTo => "from-to",
            Input::Setup => "setup",
            Input::Orders => "orders",
            Input::Pass => "pass",
            Input::None => "none",
        }
    }
}

/// One position, ready to draw.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct BoardView {
    /// The game's name.
    pub game: String,
    pub width: usize,
    pub height: usize,
    /// Row-major, top row first: the cell at (x, y) is `cells[y * width + x]`.
    pub cells: Vec<CellView>,
    /// Labels of the columns, left to right.
    pub col_labels: Vec<String>,
    /// Labels of the rows, top to bottom as drawn.
    pub row_labels: Vec<String>,
    /// `[x, y]` of the cells the last move touched; empty when none or hidden.
    pub last: Vec<[usize; 2]>,
    /// `[x, y]` of the cells of a winning line (Gomoku, Connect Four).
    pub winning: Vec<[usize; 2]>,
    /// The last move in the game's notation; `None` at the start or while hidden.
    pub last_move: Option<String>,
    /// What the last move did, one line per part (Legions: one line per order).
    pub last_report: Vec<String>,
    /// Moves (plies, Legions turns) played since the start position.
    pub n_moves: usize,
    /// The side to move, 0 or 1; `None` once the game is over.
    pub to_move: Option<usize>,
    /// The descriptor's side names.
    pub side_names: [String; 2],
    /// Running scores where the game has them.
    pub scores: Option<[i64; 2]>,
    /// One line for people: "X to move", "Blue wins with four in a row".
    pub status: String,
    /// How a person enters a move by clicking.
    pub input: Input,
    /// How the board looks (the descriptor's).
    pub style: BoardStyle,
    /// What the marks on the board mean, for a legend under it (`[mark, meaning]`:
    /// `["star", "a city"]`); empty when the pieces say it all.
    pub legend: Vec<[String; 2]>,
    /// In a set-up by clicks (`Input::Setup`): the values a person places, in the order
    /// they click `hint` cells for them; once the values left are all alike they fill
    /// the hint cells left, and the move is the values on the hint cells in the cells'
    /// order. Empty otherwise.
    pub setup: Vec<String>,
    /// Where a person picks a piece, then its square (`Input::FromTo`): the legal moves
    /// in notation (the first square's name, then the second's), so that the page can
    /// mark where a picked piece may go. Empty otherwise; filled by whoever shows the
    /// view to a person (the web's views), not by the games.
    pub legal: Vec<String>,
}

/// One cell of a [`BoardView`].
#[derive(Clone, Debug, Serialize, PartialEq, Default)]
pub struct CellView {
    /// The cell's name in the game's move notation, what a click on it sends: Gomoku
    /// `B7`, Connect Four its column `3`, Nupud `c1`, Legions `3 6` (X then Y).
    pub name: String,
    /// The side holding the cell, 0 or 1.
    pub owner: Option<u8>,
    /// A cell no piece may take (a Pah-tum blocked square), drawn hatched.
    pub blocked: bool,
    /// Text on the cell or its piece: a Nupud piece's value, `V` on a Legions veteran.
    pub label: Option<String>,
    /// A piece drawn with a double ring (a Legions veteran).
    pub ring: bool,
    /// A piece drawn faded (a Legions province cut off from its city).
    pub faded: bool,
    /// A star on the cell (a Legions city).
    pub star: bool,
    /// A cell the side to move may play on, drawn with a small dot (Reversi).
    pub hint: bool,
}

impl BoardView {
    /// An empty view of a `width` × `height` board for the game with `info`, with the
    /// side to move, the number of moves and the running scores of `pos`. The game fills
    /// in the cells, labels, highlights, status and input.
    pub fn new<G: crate::Game>(pos: &G, width: usize, height: usize) -> BoardView {
        let info = &G::INFO;
        BoardView {
            game: info.name.to_string(),
            width,
            height,
            cells: Vec::with_capacity(width * height),
            col_labels: Vec::new(),
            row_labels: Vec::new(),
            last: Vec::new(),
            winning: Vec::new(),
            last_move: None,
            last_report: Vec::new(),
            n_moves: pos.n_moves(),
            to_move: pos.to_move().map(Side::index),
            side_names: info.side_names.map(str::to_string),
            scores: pos.running_scores(),
            status: String::new(),
            input: Input::None,
            style: info.style,
            legend: Vec::new(),
            setup: Vec::new(),
            legal: Vec::new(),
        }
    }

    /// The cell at (`x`, `y`) as drawn, `None` off the board.
    pub fn cell(&self, x: usize, y: usize) -> Option<&CellView> {
        self.index(x, y).map(|idx| &self.cells[idx])
    }

    /// The index in [`BoardView::cells`] of (`x`, `y`) as drawn, `None` off the board.
    pub fn index(&self, x: usize, y: usize) -> Option<usize> {
        (x < self.width && y < self.height).then_some(y * self.width + x)
    }

    /// "X to move", or the outcome of a finished game, `win` saying how a win came about
    /// in games without scores ("with five in a row") and `draw` what a draw is.
    pub fn status_line(&self, outcome: Option<Outcome>, win: &str, draw: &str) -> String {
        let names = &self.side_names;
        let line = match (outcome, self.to_move) {
            (None, Some(side)) => format!("{} to move", names[side]),
            (None, None) => "game over".to_string(),
            (Some(Outcome { winner, scores: Some([a, b]) }), _) => match winner {
                Some(side) => format!("{} wins {} to {}", names[side.index()], a.max(b), a.min(b)),
                None => format!("draw at {a} to {b}"),
            },
            (Some(Outcome { winner: Some(side), scores: None }), _) => format!("{} wins {win}", names[side.index()]).trim_end().to_string(),
            (Some(Outcome { winner: None, scores: None }), _) => draw.to_string(),
        };
        capitalise(&line)
    }
}

/// The owner of a cell as a view shows it.
pub fn owner(side: Option<Side>) -> Option<u8> {
    side.map(|side| side.index() as u8)
}

/// `text` with its first letter in upper case.
pub fn capitalise(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}
