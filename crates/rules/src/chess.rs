//! Chess, by the FIDE Laws of Chess, with the rules of the `shakmaty` crate (legal moves,
//! FEN, UCI and SAN notation, check, mate, stalemate, insufficient material); the
//! seventh game, with no seed contest, played by the world's chess engines through UCI
//! (`docs/games/chess.md`).
//!
//! Rules in brief: White moves first (side 0), Black second. A side with no legal move
//! is checkmated (it loses) when in check, else stalemated (a draw). The referee also
//! ends a game drawn, as fastchess does and in its order, when neither side has the
//! material to mate by any series of legal moves (shakmaty's static test), when a
//! hundred plies have passed without a capture or a pawn move (fifty moves), or when a
//! position occurs for the third time with the same side to move, the same castling
//! rights and the same legal en-passant captures (threefold repetition); mate on the
//! hundredth ply stands. Nobody claims a draw: it is automatic.
//!
//! Options: none. Standard chess only (no Chess960).
//!
//! Move notation: UCI long algebraic, the from square then the to square, a promotion's
//! piece last in lower case (`e2e4`, `g1f3`, `e7e8q`), castling as the king's two-square
//! move (`e1g1`). Legal moves are listed in shakmaty's order. People may type SAN
//! (`Nf3`, `O-O`, `exd5`, `e8=Q`) or a promotion without its piece (a queen): see
//! [`Game::move_from_people`].
//!
//! Start text: the arguments of UCI's `position` command, `startpos` or `fen FEN`, each
//! optionally followed by `moves` and UCI moves (an opening line); a bare FEN or EPD line
//! is read too (its operations after the four fields ignored). The moves of the start
//! text are played before the game and belong to its start: [`Game::n_moves`] counts from
//! after them, and repetitions count them.
//!
//! Position line (the project protocol): the FEN of the position.
//!
//! Limits: 10 seconds a game plus 0.1 s a move (fishtest's short time control, 10+0.1)
//! and 1 GiB (no seed sets them).

pub mod pgn;

use std::fmt;

use rand::{Rng, RngExt};
use shakmaty::fen::Fen;
use shakmaty::san::{San, SanPlus};
use shakmaty::uci::UciMove;
use shakmaty::zobrist::Zobrist64;
use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, Move, Position as _, Role, Square};

use crate::view::{self, BoardStyle, BoardView, CellView, Grid, Input, Pieces};
use crate::{Game, GameInfo, LimitSet, MoveError, OptionSpec, Options, Outcome, SetupError, Side};

const OPTIONS: &[OptionSpec] = &[];

/// The FEN of the standard start position.
pub const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// How a game ended by the rules.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum End {
    Checkmate,
    Stalemate,
    InsufficientMaterial,
    FiftyMoves,
    Repetition,
}

impl End {
    /// The reason in words, as a PGN's last comment and the record's note give it
    /// ("checkmate", "threefold repetition").
    pub fn describe(self) -> &'static str {
        match self {
            End::Checkmate => "checkmate",
            End::Stalemate => "stalemate",
            End::InsufficientMaterial => "insufficient material",
            End::FiftyMoves => "fifty moves",
            End::Repetition => "threefold repetition",
        }
    }
}

/// A chess game in progress.
#[derive(Clone)]
pub struct Position {
    chess: Chess,
    /// The FEN the start text begins from; `None` for the standard start.
    start_fen: Option<String>,
    /// Every move since `start_fen`, in UCI: the start text's moves, then the game's.
    moves: Vec<UciMove>,
    /// How many of `moves` the start text played.
    opening_plies: usize,
    /// The hashes of the positions since the last irreversible move, the current last.
    history: Vec<Zobrist64>,
    /// The last move and the position it was played in (for its SAN, worked out only
    /// when asked: searches play many moves).
    last: Option<(Move, Box<Chess>)>,
    end: Option<End>,
}

impl PartialEq for Position {
    fn eq(&self, other: &Position) -> bool {
        self.chess == other.chess
            && self.chess.halfmoves() == other.chess.halfmoves()
            && self.chess.fullmoves() == other.chess.fullmoves()
            && self.history == other.history
            && self.end == other.end
    }
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Chess({})", self.fen())
    }
}

impl Position {
    /// The standard start position.
    pub fn start() -> Position {
        Position::from_chess(Chess::default(), None)
    }

    fn from_chess(chess: Chess, start_fen: Option<String>) -> Position {
        let history = vec![chess.zobrist_hash(EnPassantMode::Legal)];
        let mut pos = Position { chess, start_fen, moves: Vec::new(), opening_plies: 0, history, last: None, end: None };
        pos.end = pos.find_end();
        pos
    }

    /// A position from a FEN (four to six fields; missing counters are 0 and 1).
    pub fn from_fen(fen: &str) -> Result<Position, String> {
        let parsed: Fen = fen.trim().parse().map_err(|err| format!("cannot read FEN {:?}: {err}", fen.trim()))?;
        let chess: Chess = parsed.into_position(CastlingMode::Standard).map_err(|err| format!("FEN {:?}: {err}", fen.trim()))?;
        let fen = Fen::from_position(&chess, EnPassantMode::Legal).to_string();
        let start_fen = (fen != START_FEN).then_some(fen);
        Ok(Position::from_chess(chess, start_fen))
    }

    /// A position from a start text (see the module doc): `startpos` or `fen FEN`, or a
    /// bare FEN or EPD line, then optionally `moves` and UCI moves, played at once.
    pub fn from_start_text(text: &str) -> Result<Position, String> {
        let tokens: Vec<&str> = text.split_whitespace().collect();
        let split = tokens.iter().position(|&token| token == "moves").unwrap_or(tokens.len());
        let (head, moves) = (&tokens[..split], tokens.get(split + 1..).unwrap_or(&[]));
        let mut pos = match head {
            [] | ["startpos"] => Position::start(),
            ["startpos", ..] => return Err("startpos takes nothing after it but moves".to_string()),
            ["fen", fen @ ..] => Position::from_fen(&fen.join(" "))?,
            fen => Position::from_fen(&epd_fields(fen).join(" "))?,
        };
        if split < tokens.len() && moves.is_empty() {
            return Err("moves is not followed by any move".to_string());
        }
        for (idx, text) in moves.iter().enumerate() {
            let mv = pos.parse_move(text).map_err(|err| format!("move {} of the start: {err}", idx + 1))?;
            pos.play(&mv).map_err(|err| format!("move {} of the start: {err}", idx + 1))?;
        }
        pos.opening_plies = pos.moves.len();
        Ok(pos)
    }

    /// The shakmaty position.
    pub fn chess(&self) -> &Chess {
        &self.chess
    }

    /// The FEN of the position.
    pub fn fen(&self) -> String {
        Fen::from_position(&self.chess, EnPassantMode::Legal).to_string()
    }

    /// The FEN the game's start text begins from (the standard start's for `startpos`).
    pub fn start_fen(&self) -> &str {
        self.start_fen.as_deref().unwrap_or(START_FEN)
    }

    /// Whether the start text begins from the standard start position.
    pub fn starts_from_startpos(&self) -> bool {
        self.start_fen.is_none()
    }

    /// Every move since [`Position::start_fen`] in UCI: the start text's, then the game's.
    pub fn uci_moves(&self) -> impl Iterator<Item = String> + '_ {
        self.moves.iter().map(UciMove::to_string)
    }

    /// How many of [`Position::uci_moves`] the start text played (a book's line).
    pub fn opening_plies(&self) -> usize {
        self.opening_plies
    }

    /// The arguments of UCI's `position` command for this position: `startpos` or `fen
    /// FEN`, then `moves` and every move since (an engine sees the whole game, so that it
    /// can tell repetitions).
    pub fn uci_position(&self) -> String {
        let mut text = match &self.start_fen {
            None => "startpos".to_string(),
            Some(fen) => format!("fen {fen}"),
        };
        if !self.moves.is_empty() {
            text.push_str(" moves");
            for mv in &self.moves {
                text.push(' ');
                mv.append_to_string(&mut text);
            }
        }
        text
    }

    /// How the game ended by the rules, `None` while it goes on.
    pub fn end(&self) -> Option<End> {
        self.end
    }

    /// The SAN of the last move (`Nf3`, `Qxf7#`), `None` at the start.
    pub fn last_san(&self) -> Option<String> {
        let (mv, before) = self.last.as_ref()?;
        let san = San::from_move(before.as_ref(), *mv);
        Some(SanPlus { san, suffix: shakmaty::san::Suffix::from_position(&self.chess) }.to_string())
    }

    /// The side of a shakmaty colour.
    pub fn side_of(color: Color) -> Side {
        match color {
            Color::White => Side::First,
            Color::Black => Side::Second,
        }
    }

    /// Whether the side to move is in check.
    pub fn is_check(&self) -> bool {
        self.chess.is_check()
    }

    /// The end by the rules of the position as it stands, in fastchess's order: no legal
    /// move (mate or stalemate), insufficient material, fifty moves, repetition.
    fn find_end(&self) -> Option<End> {
        if self.chess.legal_moves().is_empty() {
            return Some(if self.chess.is_check() { End::Checkmate } else { End::Stalemate });
        }
        if self.chess.is_insufficient_material() {
            return Some(End::InsufficientMaterial);
        }
        if self.chess.halfmoves() >= 100 {
            return Some(End::FiftyMoves);
        }
        let now = self.history.last().expect("the history holds the current position");
        if self.history.iter().filter(|&hash| hash == now).count() >= 3 {
            return Some(End::Repetition);
        }
        None
    }

    /// Plays a legal move and finds whether the game ended.
    fn apply(&mut self, mv: &Move) {
        if self.chess.is_irreversible(*mv) {
            self.history.clear();
        }
        self.moves.push(UciMove::from_move(*mv, CastlingMode::Standard));
        let before = self.chess.clone();
        self.chess.play_unchecked(*mv);
        self.history.push(self.chess.zobrist_hash(EnPassantMode::Legal));
        self.last = Some((*mv, Box::new(before)));
        self.end = self.find_end();
    }

    /// The legal move a person's text names: SAN, UCI, or a promotion without its piece
    /// (to a queen).
    fn read_people(&self, text: &str) -> Option<Move> {
        let text = text.trim();
        if let Ok(mv) = self.parse_move(text)
            && self.chess.is_legal(mv)
        {
            return Some(mv);
        }
        if let Ok(mv) = self.parse_move(&format!("{text}q"))
            && self.chess.is_legal(mv)
        {
            return Some(mv);
        }
        let san: SanPlus = text.parse().ok()?;
        san.san.to_move(&self.chess).ok()
    }
}

/// The four FEN fields of an EPD line, with the two counters when they follow as
/// numbers (EPD operations after them are dropped).
fn epd_fields<'a>(tokens: &[&'a str]) -> Vec<&'a str> {
    let mut fields: Vec<&str> = tokens.iter().take(4).copied().collect();
    let counters = tokens.iter().skip(4).take(2).take_while(|token| token.chars().all(|c| c.is_ascii_digit()));
    fields.extend(counters);
    fields
}

/// The letter of a piece as in FEN (upper case for White).
fn piece_char(piece: shakmaty::Piece) -> char {
    piece.char()
}

/// The glyph of a piece on the board view (the filled figures for both sides, drawn in
/// the sides' colours).
fn piece_glyph(role: Role) -> &'static str {
    match role {
        Role::King => "♚",
        Role::Queen => "♛",
        Role::Rook => "♜",
        Role::Bishop => "♝",
        Role::Knight => "♞",
        Role::Pawn => "♟",
    }
}

impl Game for Position {
    type Move = Move;
    const INFO: GameInfo = GameInfo {
        name: "chess",
        aliases: &[],
        title: "Chess, FIDE laws, draws by stalemate, repetition, fifty moves and material as fastchess decides them",
        side_names: ["White", "Black"],
        notation: "UCI long algebraic: from square, to square, promotion piece, e.g. e2e4, e7e8q, castling e1g1",
        options: OPTIONS,
        enumerable: true,
        has_scores: false,
        hidden_information: false,
        start_required: false,
        generated_openings: false,
        style: BoardStyle {
            grid: Grid::Checkered,
            pieces: Pieces::Glyphs,
            board_colour: "#f0d9b5",
            line_colour: "#b58863",
            piece_colours: ["#ffffff", "#111827"],
            text_colours: ["#111827", "#f9fafb"],
        },
    };

    fn new(_options: &Options, start: Option<&str>) -> Result<Self, SetupError> {
        match start {
            Some(text) if !text.trim().is_empty() => Position::from_start_text(text).map_err(SetupError::BadStart),
            _ => Ok(Position::start()),
        }
    }

    fn seed_limits(_options: &Options) -> LimitSet {
        LimitSet { game_ms: Some(10_000), increment_ms: Some(100), memory_mb: Some(1024), ..LimitSet::default() }
    }

    fn position_line(&self) -> String {
        self.fen()
    }

    fn from_position_line(_options: &Options, line: &str) -> Result<Self, String> {
        Position::from_fen(line)
    }

    fn start_text(&self) -> Option<String> {
        (self.start_fen.is_some() || self.opening_plies > 0).then(|| {
            let mut text = match &self.start_fen {
                None => "startpos".to_string(),
                Some(fen) => format!("fen {fen}"),
            };
            if self.opening_plies > 0 {
                text.push_str(" moves");
                for mv in &self.moves[..self.opening_plies] {
                    text.push(' ');
                    mv.append_to_string(&mut text);
                }
            }
            text
        })
    }

    /// Chess's start texts are one line already.
    fn start_line(text: &str) -> String {
        text.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    fn start_from_line(line: &str) -> String {
        line.to_string()
    }

    fn to_move(&self) -> Option<Side> {
        self.end.is_none().then(|| Position::side_of(self.chess.turn()))
    }

    fn outcome(&self) -> Option<Outcome> {
        self.end.map(|end| match end {
            End::Checkmate => Outcome::win(Position::side_of(self.chess.turn()).other()),
            _ => Outcome::draw(),
        })
    }

    fn running_scores(&self) -> Option<[i64; 2]> {
        None
    }

    fn legal_moves(&self, out: &mut Vec<Move>) {
        if self.end.is_none() {
            out.extend(self.chess.legal_moves());
        }
    }

    fn random_move<R: Rng + ?Sized>(&self, rng: &mut R) -> Option<Move> {
        if self.end.is_some() {
            return None;
        }
        let moves = self.chess.legal_moves();
        Some(moves[rng.random_range(0..moves.len())])
    }

    fn parse_move(&self, text: &str) -> Result<Move, MoveError> {
        let trimmed = text.trim();
        let uci: UciMove = trimmed.parse().map_err(|_| MoveError::Parse {
            text: text.to_string(),
            reason: "expected a move in UCI notation: from square, to square, promotion piece (e2e4, e7e8q)".to_string(),
        })?;
        if uci.is_put() || trimmed.chars().any(|c| c.is_ascii_uppercase()) {
            return Err(MoveError::Parse {
                text: text.to_string(),
                reason: "expected a move in UCI notation, in lower case (e2e4, e7e8q)".to_string(),
            });
        }
        let mv = uci.to_move(&self.chess).map_err(|_| MoveError::Illegal {
            text: trimmed.to_string(),
            reason: if self.end.is_some() {
                "the game is over".to_string()
            } else if uci.is_null() {
                "a null move is not a move of chess".to_string()
            } else {
                format!("not a legal move of {} in {}", Self::INFO.side_names[Position::side_of(self.chess.turn()).index()], self.fen())
            },
        })?;
        // shakmaty also reads castling as the king taking its rook (e1h1, Chess960's
        // way); standard UCI, and so Arbiter, has only the king's two-square move.
        let canonical = self.format_move(&mv);
        if canonical != trimmed {
            return Err(MoveError::Illegal {
                text: trimmed.to_string(),
                reason: format!("castling is written as the king's two-square move, {canonical}"),
            });
        }
        Ok(mv)
    }

    fn format_move(&self, mv: &Move) -> String {
        UciMove::from_move(*mv, CastlingMode::Standard).to_string()
    }

    fn play(&mut self, mv: &Move) -> Result<(), MoveError> {
        if self.end.is_some() {
            return Err(MoveError::GameOver);
        }
        if !self.chess.is_legal(*mv) {
            return Err(MoveError::Illegal { text: self.format_move(mv), reason: format!("not a legal move in {}", self.fen()) });
        }
        self.apply(mv);
        Ok(())
    }

    fn play_unchecked(&mut self, mv: &Move) {
        self.apply(mv);
    }

    fn picture(&self) -> String {
        let board = self.chess.board();
        let mut out = String::new();
        for rank in (0..8u32).rev() {
            out.push_str(&format!("{} ", rank + 1));
            for file in 0..8u32 {
                let square = Square::from_coords(shakmaty::File::new(file), shakmaty::Rank::new(rank));
                out.push(board.piece_at(square).map_or('.', piece_char));
                out.push(' ');
            }
            out.push('\n');
        }
        out.push_str("  a b c d e f g h\n");
        match (self.end, self.outcome()) {
            (Some(end), Some(outcome)) => match outcome.winner {
                Some(side) => out.push_str(&format!("{} wins by {}\n", Self::INFO.side_names[side.index()], end.describe())),
                None => out.push_str(&format!("draw by {}\n", end.describe())),
            },
            _ => {
                let side = Self::INFO.side_names[Position::side_of(self.chess.turn()).index()];
                let check = if self.chess.is_check() { ", in check" } else { "" };
                out.push_str(&format!("{side} to move{check}\n"));
            }
        }
        out
    }

    fn n_moves(&self) -> usize {
        self.moves.len() - self.opening_plies
    }

    /// The SAN of the move, and how the game ended when it did (`Qxf7#, checkmate`).
    fn turn_note(&self) -> Option<String> {
        let san = self.last_san()?;
        Some(match self.end {
            Some(end) => format!("{san}, {}", end.describe()),
            None => san,
        })
    }

    fn move_from_people(&self, text: &str) -> Result<String, String> {
        match self.read_people(text) {
            Some(mv) => Ok(self.format_move(&mv)),
            None => Err(format!("{:?} is not a legal move here (write e2e4, Nf3, O-O or e8=Q)", text.trim())),
        }
    }

    /// The squares a person may click first: those of the pieces that have a legal move.
    fn choices(&self, partial: &str) -> Vec<String> {
        let mut moves = Vec::new();
        self.legal_moves(&mut moves);
        let texts = moves.iter().map(|mv| self.format_move(mv));
        if partial.trim().is_empty() { texts.collect() } else { texts.filter(|text| text.starts_with(partial.trim())).collect() }
    }

    fn board_view(&self) -> BoardView {
        let mut view = BoardView::new(self, 8, 8);
        view.col_labels = ('a'..='h').map(|c| c.to_string()).collect();
        view.row_labels = (1..=8).rev().map(|r: u32| r.to_string()).collect();
        let board = self.chess.board();
        for y in 0..8u32 {
            for x in 0..8u32 {
                let square = Square::from_coords(shakmaty::File::new(x), shakmaty::Rank::new(7 - y));
                let piece = board.piece_at(square);
                view.cells.push(CellView {
                    name: square.to_string(),
                    owner: view::owner(piece.map(|p| Position::side_of(p.color))),
                    label: piece.map(|p| piece_glyph(p.role).to_string()),
                    ..CellView::default()
                });
            }
        }
        if let Some((mv, _)) = &self.last {
            let uci = UciMove::from_move(*mv, CastlingMode::Standard);
            for square in [uci.from(), uci.to()].into_iter().flatten() {
                view.last.push([u32::from(square.file()) as usize, 7 - u32::from(square.rank()) as usize]);
            }
            view.last_move = Some(uci.to_string());
            view.last_report = self.last_san().into_iter().collect();
        }
        view.status = match (self.end, self.outcome()) {
            (Some(end), Some(outcome)) => match outcome.winner {
                Some(side) => format!("{} wins by {}", Self::INFO.side_names[side.index()], end.describe()),
                None => format!("Draw by {}", end.describe()),
            },
            _ => {
                let line = view.status_line(None, "", "draw");
                if self.chess.is_check() { format!("{line}, in check") } else { line }
            }
        };
        view.input = if self.end.is_some() { Input::None } else { Input::FromTo };
        view
    }

    /// Chess's books: EPD (a position a line) or PGN (each game's moves, to `plies`).
    fn read_openings(text: &str, plies: Option<usize>) -> Option<Result<Vec<String>, String>> {
        Some(pgn::read_book(text, plies))
    }

    fn random_playout<R: Rng + ?Sized>(&mut self, rng: &mut R) -> Outcome {
        while self.end.is_none() {
            let moves = self.chess.legal_moves();
            let mv = moves[rng.random_range(0..moves.len())];
            self.apply(&mv);
        }
        self.outcome().expect("the game is over")
    }
}
