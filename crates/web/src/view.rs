//! Board views: any position of any of the five games described as plain data (cells,
//! owners, labels, highlights, a status line, how a click makes a move), so that the
//! browser (`assets/board.js`) can draw it without knowing the rules.
//!
//! Coordinates are as drawn: `x` from the left, `y` from the top row on the screen, and
//! `cells` is row-major (`y * width + x`). Each game's own coordinates are turned into
//! these here: Connect Four counts rows from the bottom and Nupud draws rank 6 on top.
//!
//! A view never shows more than a player may see: during Nupud's hidden set-up White's
//! arrangement stays off the board and out of `last` and `last_move`.

use rules::legions::Effect;
use rules::{AnyPosition, Game, GameKind, Options, Outcome, Side, connect4, gomoku, legions, nupud, pahtum};
use serde::Serialize;

/// One position, ready to draw.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct BoardView {
    /// [`GameKind::name`]: `gomoku`, `connect4`, `pahtum`, `legions`, `nupud`.
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
    /// [`GameKind::side_names`].
    pub side_names: [String; 2],
    /// Running scores where the game has them (Pah-tum, Legions, Nupud).
    pub scores: Option<[i64; 2]>,
    /// One line for people: "X to move", "blue wins with four in a row".
    pub status: String,
    /// How a person enters a move by clicking: `cell` (Gomoku, Pah-tum), `column`
    /// (Connect Four), `from-to` (Nupud moves), `setup` (Nupud's set-up, typed),
    /// `orders` (Legions), `none` (the game is over).
    pub input: String,
}

/// One cell of a [`BoardView`].
#[derive(Clone, Debug, Serialize, PartialEq, Default)]
pub struct CellView {
    /// The cell's name in the game's move notation: Gomoku `B7`, Pah-tum `C4`, Connect
    /// Four its column `3`, Nupud `c1`, Legions `3 6` (X then Y).
    pub name: String,
    /// The side holding the cell, 0 or 1.
    pub owner: Option<u8>,
    /// A Pah-tum blocked square.
    pub blocked: bool,
    /// Text in the cell: a Nupud piece's value, `V` on a Legions veteran.
    pub label: Option<String>,
    /// A Legions veteran.
    pub veteran: bool,
    /// Legions: `Some(true)` for an owned province connected to its city, `Some(false)`
    /// for one cut off; `None` for an empty cell and in the other games.
    pub connected: Option<bool>,
    /// A Legions city.
    pub city: bool,
}

impl BoardView {
    /// The cell at (`x`, `y`) as drawn, `None` off the board.
    pub fn cell(&self, x: usize, y: usize) -> Option<&CellView> {
        cell_index(self, x, y).map(|idx| &self.cells[idx])
    }
}

/// The index in [`BoardView::cells`] of (`x`, `y`) as drawn, `None` off the board.
pub fn cell_index(view: &BoardView, x: usize, y: usize) -> Option<usize> {
    (x < view.width && y < view.height).then_some(y * view.width + x)
}

/// The view of a position.
pub fn view(pos: &AnyPosition) -> BoardView {
    let kind = pos.kind();
    let mut view = BoardView {
        game: kind.name().to_string(),
        width: 0,
        height: 0,
        cells: Vec::new(),
        col_labels: Vec::new(),
        row_labels: Vec::new(),
        last: Vec::new(),
        winning: Vec::new(),
        last_move: None,
        last_report: Vec::new(),
        n_moves: pos.n_moves(),
        to_move: pos.to_move().map(Side::index),
        side_names: kind.side_names().map(str::to_string),
        scores: pos.running_scores(),
        status: String::new(),
        input: String::new(),
    };
    match pos {
        AnyPosition::Gomoku(p) => gomoku_view(p, &mut view),
        AnyPosition::Connect4(p) => connect4_view(p, &mut view),
        AnyPosition::Pahtum(p) => pahtum_view(p, &mut view),
        AnyPosition::Legions(p) => legions_view(p, &mut view),
        AnyPosition::Nupud(p) => nupud_view(p, &mut view),
    }
    if pos.to_move().is_none() {
        view.input = "none".to_string();
    }
    view.status = capitalise(&view.status);
    view
}

/// The views of a game as a record holds it: before any move, then after each move.
/// Fails with a message naming the move when the moves do not replay.
pub fn views_of_record<S: AsRef<str>>(
    kind: GameKind,
    options: &Options,
    start: Option<&str>,
    moves: &[S],
) -> Result<Vec<BoardView>, String> {
    let mut pos = kind.new_position(options, start).map_err(|err| err.to_string())?;
    let mut views = Vec::with_capacity(moves.len() + 1);
    views.push(view(&pos));
    for (idx, text) in moves.iter().enumerate() {
        let text = text.as_ref();
        pos.play_text(text).map_err(|err| format!("move {} ({text:?}): {err}", idx + 1))?;
        views.push(view(&pos));
    }
    Ok(views)
}

fn owner(side: Option<Side>) -> Option<u8> {
    side.map(|side| side.index() as u8)
}

fn capitalise(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// "X to move", or the outcome of a finished game, `how` saying how a win came about
/// (for games without scores).
fn status_line(view: &BoardView, outcome: Option<Outcome>, win: &str, draw: &str) -> String {
    let names = &view.side_names;
    match (outcome, view.to_move) {
        (None, Some(side)) => format!("{} to move", names[side]),
        (None, None) => "game over".to_string(),
        (Some(Outcome { winner, scores: Some([a, b]) }), _) => match winner {
            Some(side) => format!("{} wins {} to {}", names[side.index()], a.max(b), a.min(b)),
            None => format!("draw at {a} to {b}"),
        },
        (Some(Outcome { winner: Some(side), scores: None }), _) => format!("{} wins {win}", names[side.index()]),
        (Some(Outcome { winner: None, scores: None }), _) => draw.to_string(),
    }
}

fn gomoku_view(p: &gomoku::Position, view: &mut BoardView) {
    let n = gomoku::SIZE;
    view.width = n;
    view.height = n;
    view.col_labels = (0..n).map(|x| ((b'A' + x as u8) as char).to_string()).collect();
    view.row_labels = (0..n).map(|y| y.to_string()).collect();
    for y in 0..n {
        for x in 0..n {
            let name = gomoku::Move::new(x, y).expect("on the board").to_string();
            view.cells.push(CellView { name, owner: owner(p.cell(x, y)), ..CellView::default() });
        }
    }
    if let Some(mv) = p.last_move() {
        view.last = vec![[mv.col(), mv.row()]];
        view.last_move = Some(mv.to_string());
    }
    view.winning = p.winning_cells().iter().map(|mv| [mv.col(), mv.row()]).collect();
    view.winning.sort();
    view.status = status_line(view, p.outcome(), "with five in a row", "draw: the board is full");
    view.input = "cell".to_string();
}

fn connect4_view(p: &connect4::Position, view: &mut BoardView) {
    let (w, h) = (p.width(), p.height());
    view.width = w;
    view.height = h;
    view.col_labels = (0..w).map(|x| x.to_string()).collect();
    // The rules count rows from the bottom; the labels keep their numbers.
    view.row_labels = (0..h).rev().map(|y| y.to_string()).collect();
    for row in 0..h {
        let y = h - 1 - row;
        for x in 0..w {
            view.cells.push(CellView { name: x.to_string(), owner: owner(p.cell(x, y)), ..CellView::default() });
        }
    }
    if let Some(x) = p.last_move() {
        // The last disc is the top one of its column.
        view.last = vec![[x, h - p.column_height(x)]];
        view.last_move = Some(x.to_string());
    }
    view.winning = p.winning_cells().iter().map(|&(x, y)| [x, h - 1 - y]).collect();
    view.winning.sort();
    view.status = status_line(view, p.outcome(), "with four in a row", "draw: the board is full");
    view.input = "column".to_string();
}

fn pahtum_view(p: &pahtum::Position, view: &mut BoardView) {
    let n = pahtum::SIZE;
    view.width = n;
    view.height = n;
    view.col_labels = (1..=n).map(|x| x.to_string()).collect();
    view.row_labels = (0..n).map(|y| ((b'A' + y as u8) as char).to_string()).collect();
    for y in 0..n {
        for x in 0..n {
            let cell = p.cell(y, x);
            let name = pahtum::Move::new(y, x).expect("on the board").to_string();
            view.cells.push(CellView { name, owner: owner(cell.side()), blocked: cell == pahtum::Cell::Blocked, ..CellView::default() });
        }
    }
    if let Some(mv) = p.last_move() {
        view.last = vec![[mv.col(), mv.row()]];
        view.last_move = Some(mv.to_string());
    }
    view.status = status_line(view, p.outcome(), "", "draw");
    view.input = "cell".to_string();
}

fn legions_view(p: &legions::Position, view: &mut BoardView) {
    let n = p.size();
    view.width = n;
    view.height = n;
    view.col_labels = (0..n).map(|x| x.to_string()).collect();
    view.row_labels = (0..n).map(|y| y.to_string()).collect();
    let cities = Side::BOTH.map(|side| p.city(side));
    for y in 0..n {
        for x in 0..n {
            let legion = p.cell(x, y);
            view.cells.push(CellView {
                name: format!("{x} {y}"),
                owner: owner(legion.map(|l| l.owner)),
                label: legion.filter(|l| l.veteran).map(|_| "V".to_string()),
                veteran: legion.is_some_and(|l| l.veteran),
                connected: legion.map(|_| p.is_connected(x, y)),
                city: cities.contains(&(x, y)),
                ..CellView::default()
            });
        }
    }
    if let Some(report) = p.last_turn() {
        for order in &report.orders {
            let line = format!("{}: {}", p.format_move(&legions::Move::new(vec![order.order.clone()])), order.effect);
            view.last_report.push(line);
            let touched = matches!(order.effect, Effect::Occupied { .. } | Effect::Captured { .. } | Effect::Repelled { .. });
            if let (true, legions::Order::Send { x, y, .. }) = (touched, &order.order) {
                let cell = [*x as usize, *y as usize];
                if !view.last.contains(&cell) {
                    view.last.push(cell);
                }
            }
        }
        if report.unused > 0 {
            view.last_report.push(format!("{} legions unused", report.unused));
        }
    }
    view.last_move = p.last_move().map(|mv| p.format_move(&mv));
    let names = view.side_names.clone();
    view.status = match (p.city_taker(), p.to_move()) {
        (Some(taker), _) => format!("{} takes the enemy city and wins", names[taker.index()]),
        (None, Some(side)) => format!("turn {} of {}: {} to move", p.turn() + 1, p.max_turns(), names[side.index()]),
        (None, None) => status_line(view, p.outcome(), "", "draw"),
    };
    view.input = "orders".to_string();
}

fn nupud_view(p: &nupud::Position, view: &mut BoardView) {
    let n = nupud::SIZE;
    view.width = n;
    view.height = n;
    view.col_labels = (0..n).map(|x| ((b'a' + x as u8) as char).to_string()).collect();
    view.row_labels = (0..n).map(|y| (n - y).to_string()).collect();
    // `board()` stays empty until both set-ups are in, so nothing hidden can leak here.
    for y in 0..n {
        for x in 0..n {
            let sq = nupud::Square::new(x, n - 1 - y).expect("on the board");
            let piece = p.piece_at(sq);
            view.cells.push(CellView {
                name: sq.to_string(),
                owner: owner(piece.map(|piece| piece.side)),
                label: piece.map(|piece| piece.value.to_string()),
                ..CellView::default()
            });
        }
    }
    let drawn = |sq: nupud::Square| [sq.file(), n - 1 - sq.rank()];
    match p.last_move() {
        Some(nupud::Move::Step { from, to }) => view.last = vec![drawn(from), drawn(to)],
        // Black's set-up completes the board: its home rank is what just appeared.
        Some(nupud::Move::Setup(_)) => view.last = (0..n).map(|x| [x, 0]).collect(),
        None => {}
    }
    view.last_move = p.last_move().map(|mv| p.format_move(&mv));
    let names = view.side_names.clone();
    view.status = if p.is_setup_phase() {
        if p.has_set_up(Side::First) {
            format!("set-up: {} has set up (hidden); {} to set up", names[0], names[1])
        } else {
            format!("set-up: {} to set up", names[0])
        }
    } else {
        status_line(view, p.outcome(), "", "draw")
    };
    view.input = if p.is_setup_phase() { "setup" } else { "from-to" }.to_string();
}
