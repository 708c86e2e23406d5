//! TEMPORARY stub of the board views (replaced by the real module).
use rules::{AnyPosition, GameKind, Options};
use serde::Serialize;

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct BoardView {
    pub game: String,
    pub status: String,
}

pub fn view(pos: &AnyPosition) -> BoardView {
    BoardView { game: pos.kind().name().to_string(), status: pos.picture() }
}

pub fn views_of_record(kind: GameKind, options: &Options, start: Option<&str>, moves: &[String]) -> Result<Vec<BoardView>, String> {
    let mut pos = kind.new_position(options, start).map_err(|e| e.to_string())?;
    let mut out = vec![view(&pos)];
    for m in moves {
        pos.play_text(m).map_err(|e| e.to_string())?;
        out.push(view(&pos));
    }
    Ok(out)
}
