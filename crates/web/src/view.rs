//! Board views for the pages: each game draws its own position as plain data
//! ([`rules::view`]: cells, owners, labels, highlights, a status line, the click mode and
//! how the board looks), and `assets/board.js` draws any of them the same way. Here are
//! the views of a position of any game and of a whole record.

pub use rules::view::{BoardView, CellView};
use rules::{AnyPosition, GameKind, Options};

/// The view of a position of any game.
pub fn view(pos: &AnyPosition) -> BoardView {
    pos.board_view()
}

/// The index in [`BoardView::cells`] of (`x`, `y`) as drawn, `None` off the board.
pub fn cell_index(view: &BoardView, x: usize, y: usize) -> Option<usize> {
    view.index(x, y)
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
