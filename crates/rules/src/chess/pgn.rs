//! Chess's texts beyond a move: PGN out (a finished game with its tags, SAN moves,
//! comments and result, in the PGN standard's export format) and opening books in
//! (EPD, a position a line; PGN, each game's moves to a number of plies), both pure.
//!
//! The writer gives the Seven Tag Roster first (Event, Site, Date, Round, White, Black,
//! Result), then the caller's tags, then `FEN` and `SetUp` for a start other than the
//! standard one and `PlyCount`; a book line's moves come first in the movetext, each
//! with the comment `{book}` (as fastchess writes them); the game's moves carry their
//! own comments; the reason the game ended is a comment before the result.

use shakmaty::san::{San, SanPlus, Suffix};
use shakmaty::uci::UciMove;
use shakmaty::{Chess, Color, Position as _};

use super::Position;
use crate::{Game, Side};

/// The tags of a game, the Seven Tag Roster's first ("?" where unknown, as the standard
/// says).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tags {
    pub event: String,
    pub site: String,
    /// `YYYY.MM.DD`.
    pub date: String,
    pub round: String,
    pub white: String,
    pub black: String,
    /// More tags, written after the roster in this order (`TimeControl`, `Termination`).
    pub extra: Vec<(String, String)>,
}

/// One move of the game, in UCI, with its comment (an engine's score and depth, the
/// time, the clock).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PgnMove {
    pub uci: String,
    pub comment: Option<String>,
}

/// How the game came out, as PGN's result token.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PgnResult {
    Win(Side),
    Draw,
    /// Not finished (`*`).
    Unknown,
}

impl PgnResult {
    /// `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub fn token(self) -> &'static str {
        match self {
            PgnResult::Win(Side::First) => "1-0",
            PgnResult::Win(Side::Second) => "0-1",
            PgnResult::Draw => "1/2-1/2",
            PgnResult::Unknown => "*",
        }
    }
}

/// A game to write: its tags, its start (a book line's moves included), its moves, its
/// result and why it ended (`White mates`, `Black loses on time`).
#[derive(Clone, Debug)]
pub struct PgnGame {
    pub tags: Tags,
    pub start: Position,
    pub moves: Vec<PgnMove>,
    pub result: PgnResult,
    pub reason: Option<String>,
}

/// A tag value with `\` and `"` escaped, as the standard asks.
fn escape(value: &str) -> String {
    value.chars().filter(|c| !c.is_control()).collect::<String>().replace('\\', "\\\\").replace('"', "\\\"")
}

/// A comment's text without the `}` that would end it early.
fn comment_text(text: &str) -> String {
    text.replace('}', ")").replace(['\n', '\r'], " ")
}

/// Writes one game in PGN's export format, ended by a blank line. `Err` names a move
/// that is not legal where it is played (a record that does not replay).
pub fn write(game: &PgnGame) -> Result<String, String> {
    let mut out = String::new();
    let tags = &game.tags;
    for (name, value) in [
        ("Event", &tags.event),
        ("Site", &tags.site),
        ("Date", &tags.date),
        ("Round", &tags.round),
        ("White", &tags.white),
        ("Black", &tags.black),
    ] {
        out.push_str(&format!("[{name} \"{}\"]\n", escape(value)));
    }
    out.push_str(&format!("[Result \"{}\"]\n", game.result.token()));
    for (name, value) in &tags.extra {
        out.push_str(&format!("[{} \"{}\"]\n", name.replace(|c: char| !c.is_ascii_alphanumeric() && c != '_', ""), escape(value)));
    }
    if !game.start.starts_from_startpos() {
        out.push_str(&format!("[FEN \"{}\"]\n[SetUp \"1\"]\n", game.start.start_fen()));
    }
    let book: Vec<String> = game.start.uci_moves().take(game.start.opening_plies()).collect();
    out.push_str(&format!("[PlyCount \"{}\"]\n\n", book.len() + game.moves.len()));

    let mut chess: Chess = Position::from_fen(game.start.start_fen())?.chess;
    let mut tokens: Vec<String> = Vec::new();
    // Black's move takes its number `N...` first in the movetext and after a comment.
    let mut numbered = false;
    let moves = book.iter().map(|uci| (uci.as_str(), Some("book"))).chain(game.moves.iter().map(|m| (m.uci.as_str(), m.comment.as_deref())));
    for (idx, (uci, comment)) in moves.enumerate() {
        let parsed: UciMove = uci.parse().map_err(|_| format!("move {} {uci:?} is not UCI", idx + 1))?;
        let mv = parsed.to_move(&chess).map_err(|_| format!("move {} {uci} is not legal in {}", idx + 1, fen(&chess)))?;
        let number = chess.fullmoves().get();
        match chess.turn() {
            Color::White => tokens.push(format!("{number}.")),
            Color::Black if !numbered => tokens.push(format!("{number}...")),
            Color::Black => {}
        }
        numbered = true;
        let san = San::from_move(&chess, mv);
        chess.play_unchecked(mv);
        tokens.push(SanPlus { san, suffix: Suffix::from_position(&chess) }.to_string());
        if let Some(comment) = comment.filter(|c| !c.is_empty()) {
            tokens.push(format!("{{{}}}", comment_text(comment)));
            numbered = false;
        }
    }
    if let Some(reason) = &game.reason {
        tokens.push(format!("{{{}}}", comment_text(reason)));
    }
    tokens.push(game.result.token().to_string());
    let mut line = String::new();
    for token in tokens {
        if !line.is_empty() && line.len() + 1 + token.len() > 79 {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&token);
    }
    out.push_str(&line);
    out.push_str("\n\n");
    Ok(out)
}

fn fen(chess: &Chess) -> String {
    shakmaty::fen::Fen::from_position(chess, shakmaty::EnPassantMode::Legal).to_string()
}

/// The start texts of an opening book: PGN (a file with a tag or a move number at the
/// start of a line) gives each game's moves from its start (its `FEN` tag, else the
/// standard start), cut to `plies`; anything else is EPD, a FEN or EPD line a position
/// (`#` lines are comments). Each comes back as `startpos` or `fen FEN`, then `moves`
/// and the line's moves. `Err` says which position or game, and why.
pub fn read_book(text: &str, plies: Option<usize>) -> Result<Vec<String>, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let is_pgn = text.lines().map(str::trim_start).any(|line| {
        line.starts_with('[') || line.split_whitespace().next().is_some_and(|token| token.starts_with("1.") && token[2..].chars().all(|c| c == '.'))
    });
    let starts = if is_pgn { read_pgn(text, plies)? } else { read_epd(text, plies)? };
    if starts.is_empty() {
        return Err("the book holds no position".to_string());
    }
    Ok(starts)
}

/// A position's start text, `startpos` for the standard start.
fn start_of(pos: &Position) -> String {
    pos.start_text().unwrap_or_else(|| "startpos".to_string())
}

fn read_epd(text: &str, plies: Option<usize>) -> Result<Vec<String>, String> {
    let mut starts = Vec::new();
    for (idx, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut pos = Position::from_start_text(line).map_err(|err| format!("line {}: {err}", idx + 1))?;
        if let Some(plies) = plies
            && pos.opening_plies > plies
        {
            let moves: Vec<String> = pos.uci_moves().take(plies).collect();
            let head = line.split(" moves").next().unwrap_or(line);
            pos = Position::from_start_text(&format!("{head} moves {}", moves.join(" ")))
                .or_else(|_| Position::from_start_text(head))
                .map_err(|err| format!("line {}: {err}", idx + 1))?;
        }
        if pos.to_move().is_none() {
            return Err(format!("line {}: the game is already over in this position", idx + 1));
        }
        starts.push(start_of(&pos));
    }
    Ok(starts)
}

/// One game of a PGN book as it is read.
struct BookGame {
    /// Its number in the file, from 1.
    number: usize,
    fen: Option<String>,
    sans: Vec<String>,
}

impl BookGame {
    fn start(&self, plies: Option<usize>) -> Result<String, String> {
        let number = self.number;
        let mut pos = match &self.fen {
            Some(fen) => Position::from_fen(fen).map_err(|err| format!("game {number}: {err}"))?,
            None => Position::start(),
        };
        for san in self.sans.iter().take(plies.unwrap_or(usize::MAX)) {
            if pos.to_move().is_none() {
                break;
            }
            let read: SanPlus = san.parse().map_err(|_| format!("game {number}: cannot read the move {san:?}"))?;
            let mv = read.san.to_move(&pos.chess).map_err(|err| format!("game {number}: {san} is not legal here ({err})"))?;
            pos.apply(&mv);
        }
        pos.opening_plies = pos.moves.len();
        if pos.to_move().is_none() {
            return Err(format!("game {number}: the line ends the game"));
        }
        Ok(start_of(&pos))
    }
}

fn read_pgn(text: &str, plies: Option<usize>) -> Result<Vec<String>, String> {
    let mut starts = Vec::new();
    let mut game: Option<BookGame> = None;
    let mut in_moves = false;
    let mut number = 0;
    let mut chars = text.chars().peekable();
    let finish = |game: &mut Option<BookGame>, starts: &mut Vec<String>| -> Result<(), String> {
        if let Some(done) = game.take() {
            starts.push(done.start(plies)?);
        }
        Ok(())
    };
    let mut at_line_start = true;
    while let Some(c) = chars.next() {
        match c {
            '\n' => {
                at_line_start = true;
                continue;
            }
            '%' if at_line_start => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
            }
            '[' => {
                if in_moves {
                    finish(&mut game, &mut starts)?;
                    in_moves = false;
                }
                let mut tag = String::new();
                let mut quoted = false;
                for c in chars.by_ref() {
                    match c {
                        '"' => quoted = !quoted,
                        ']' if !quoted => break,
                        _ => {}
                    }
                    tag.push(c);
                }
                let game = game.get_or_insert_with(|| {
                    number += 1;
                    BookGame { number, fen: None, sans: Vec::new() }
                });
                if let Some((name, value)) = tag.split_once(char::is_whitespace)
                    && name == "FEN"
                {
                    game.fen = Some(value.trim().trim_matches('"').to_string());
                }
            }
            '{' => {
                for c in chars.by_ref() {
                    if c == '}' {
                        break;
                    }
                }
            }
            ';' => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
                at_line_start = true;
                continue;
            }
            '(' => {
                let mut depth = 1;
                while depth > 0 {
                    match chars.next() {
                        Some('(') => depth += 1,
                        Some(')') => depth -= 1,
                        Some('{') => {
                            for c in chars.by_ref() {
                                if c == '}' {
                                    break;
                                }
                            }
                        }
                        Some(_) => {}
                        None => break,
                    }
                }
            }
            c if c.is_whitespace() => {}
            c => {
                let mut token = String::from(c);
                while let Some(&next) = chars.peek() {
                    if next.is_whitespace() || matches!(next, '{' | '(' | ')' | ';' | '[') {
                        break;
                    }
                    token.push(next);
                    chars.next();
                }
                let game_now = game.get_or_insert_with(|| {
                    number += 1;
                    BookGame { number, fen: None, sans: Vec::new() }
                });
                in_moves = true;
                if matches!(token.as_str(), "1-0" | "0-1" | "1/2-1/2" | "*") {
                    finish(&mut game, &mut starts)?;
                    in_moves = false;
                } else if !token.starts_with('$') {
                    let san = token.trim_start_matches(|c: char| c.is_ascii_digit()).trim_start_matches('.');
                    let san = san.trim_end_matches(['!', '?']);
                    if !san.is_empty() {
                        game_now.sans.push(san.to_string());
                    }
                }
            }
        }
        at_line_start = false;
    }
    finish(&mut game, &mut starts)?;
    Ok(starts)
}
