//! Board views for the pages: each game draws its own position as plain data
//! ([`rules::view`]: cells, owners, labels, highlights, a status line, the click mode and
//! how the board looks), and `assets/board.js` draws any of them the same way. Here are
//! the views of a position of any game and of a whole record.

pub use rules::view::{BoardView, CellView};
use rules::{AnyPosition, GameKind, Options};

/// The view of a position of any game; where a person picks a piece and then its
/// square, with the legal moves, for the page's hints.
pub fn view(pos: &AnyPosition) -> BoardView {
    let mut view = pos.board_view();
    if view.input == rules::view::Input::FromTo {
        view.legal = pos.legal_moves_text().unwrap_or_default();
    }
    view
}

/// The view of a position a person is playing: [`view`], with what the person may click
/// (the legal moves, Legions' reachable provinces: [`AnyPosition::choices`]) in
/// `legal`, from which the page marks its hints.
/// A set-up by clicks has its hint cells already and lists no set-ups (they would only
/// weigh down every update).
pub fn view_for_person(pos: &AnyPosition) -> BoardView {
    let mut view = view(pos);
    if view.input != rules::view::Input::Setup {
        view.legal = pos.choices("");
    }
    view
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

/// A game's name for people: the descriptor's title up to its first comma or
/// parenthesis ("Connect Four", "Gomoku 10x10").
pub fn game_name(kind: GameKind) -> &'static str {
    let title = kind.title();
    title.split([',', '(']).next().unwrap_or(title).trim()
}

/// A game's heading for people: its name (the descriptor's title up to its first comma
/// or parenthesis, without the seed's details), then every option with its value as
/// played, defaults included: "Connect Four — width 7, height 6".
pub fn heading(kind: GameKind, options: &Options) -> String {
    let name = game_name(kind);
    let values: Vec<String> = kind
        .options()
        .iter()
        .map(|spec| format!("{} {}", spec.name, options.get(spec.name).map_or(spec.default, String::as_str)))
        .collect();
    if values.is_empty() { name.to_string() } else { format!("{name} — {}", values.join(", ")) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_heading_names_the_game_and_every_option_as_played() {
        let options = |pairs: &[(&str, &str)]| -> Options { pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect() };
        let cases = [
            (GameKind::from_name("connect4").unwrap(), options(&[("width", "9")]), "Connect Four — width 9, height 6"),
            (GameKind::from_name("gomoku").unwrap(), options(&[]), "Gomoku 10x10"),
            (GameKind::from_name("nupud").unwrap(), options(&[]), "Nupud"),
            (GameKind::from_name("reversi").unwrap(), options(&[]), "Reversi — size 8"),
        ];
        for (kind, options, expected) in cases {
            assert_eq!(heading(kind, &options), expected);
        }
    }
}
