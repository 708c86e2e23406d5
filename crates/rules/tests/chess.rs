//! Chess rules: the start, notation (UCI in, SAN for people), every end the referee
//! decides (mate, stalemate, fifty moves with mate on the hundredth ply standing,
//! threefold repetition counting a book line's moves, insufficient material), start
//! texts with book lines, the position line, perft counts against the Chess Programming
//! Wiki's published figures, the generic random-game checker, the board view, PGN out
//! and opening books in.

use rules::chess::pgn::{self, PgnGame, PgnMove, PgnResult, Tags};
use rules::chess::{End, Position};
use rules::view::{Input, Pieces};
use rules::{Game, GameKind, MoveError, Options, Outcome, Side};

fn start() -> Position {
    Position::new(&Options::new(), None).unwrap()
}

fn from(text: &str) -> Position {
    Position::new(&Options::new(), Some(text)).unwrap_or_else(|err| panic!("{text}: {err}"))
}

fn play(pos: &mut Position, moves: &str) {
    for text in moves.split_whitespace() {
        let mv = pos.parse_move(text).unwrap_or_else(|err| panic!("{text}: {err}"));
        pos.play(&mv).unwrap_or_else(|err| panic!("{text}: {err}"));
    }
}

fn legal(pos: &Position) -> Vec<String> {
    let mut moves = Vec::new();
    pos.legal_moves(&mut moves);
    moves.iter().map(|mv| pos.format_move(mv)).collect()
}

#[test]
fn the_start_and_whites_twenty_moves() {
    let pos = start();
    assert_eq!(pos.to_move(), Some(Side::First));
    assert_eq!(legal(&pos).len(), 20);
    assert!(legal(&pos).contains(&"g1f3".to_string()) && legal(&pos).contains(&"e2e4".to_string()));
    assert_eq!(pos.position_line(), "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
    assert_eq!(pos.start_text(), None);
    assert_eq!(pos.uci_position(), "startpos");
    assert_eq!(GameKind::from_name("chess").unwrap().side_names(), ["White", "Black"]);
}

#[test]
fn notation_is_uci_and_illegal_moves_are_told_apart_from_unreadable_ones() {
    let pos = start();
    assert!(matches!(pos.parse_move("e2e5"), Err(MoveError::Illegal { .. })), "a readable move that is not legal");
    assert!(matches!(pos.parse_move("e1g1"), Err(MoveError::Illegal { .. })), "castling through pieces");
    for unreadable in ["e4", "Nf3", "E2E4", "e2-e4", "", "e2e4e5", "P@e4"] {
        assert!(matches!(pos.parse_move(unreadable), Err(MoveError::Parse { .. })), "{unreadable:?} is not UCI");
    }
    assert!(matches!(pos.parse_move("0000"), Err(MoveError::Illegal { .. })), "a null move");
    let mut castle = from("fen r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    assert!(legal(&castle).contains(&"e1g1".to_string()) && legal(&castle).contains(&"e1c1".to_string()));
    for rook_square in ["e1h1", "e1a1"] {
        assert!(
            matches!(castle.parse_move(rook_square), Err(MoveError::Illegal { .. })),
            "{rook_square}: castling is the king's two squares"
        );
    }
    play(&mut castle, "e1c1");
    assert_eq!(castle.fen(), "r3k2r/8/8/8/8/8/8/2KR3R b kq - 1 1");
    let mut promote = from("fen 8/4P3/8/8/8/k7/8/K7 w - - 0 1");
    assert!(matches!(promote.parse_move("e7e8"), Err(MoveError::Illegal { .. })), "a promotion names its piece");
    play(&mut promote, "e7e8n");
    assert_eq!(promote.fen(), "4N3/8/8/8/8/k7/8/K7 b - - 0 1");
    let mut en_passant = from("startpos moves e2e4 a7a6 e4e5 d7d5");
    play(&mut en_passant, "e5d6");
    assert_eq!(en_passant.last_san().as_deref(), Some("exd6"));
}

#[test]
fn people_may_write_san_or_leave_out_a_queens_promotion() {
    let pos = start();
    assert_eq!(pos.move_from_people("Nf3"), Ok("g1f3".to_string()));
    assert_eq!(pos.move_from_people(" e4 "), Ok("e2e4".to_string()));
    assert_eq!(pos.move_from_people("e2e4"), Ok("e2e4".to_string()));
    assert!(pos.move_from_people("Ke2").is_err());
    let promote = from("fen 8/4P3/8/8/8/k7/8/K7 w - - 0 1");
    assert_eq!(promote.move_from_people("e7e8"), Ok("e7e8q".to_string()));
    assert_eq!(promote.move_from_people("e8=R"), Ok("e7e8r".to_string()));
    let castle = from("fen r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    assert_eq!(castle.move_from_people("O-O-O"), Ok("e1c1".to_string()));
}

#[test]
fn fools_mate_is_blacks_win_by_checkmate() {
    let mut pos = start();
    play(&mut pos, "f2f3 e7e5 g2g4");
    assert_eq!(pos.outcome(), None);
    play(&mut pos, "d8h4");
    assert_eq!(pos.end(), Some(End::Checkmate));
    assert_eq!(pos.outcome(), Some(Outcome::win(Side::Second)));
    assert_eq!(pos.to_move(), None);
    assert_eq!(pos.turn_note().as_deref(), Some("Qh4#, checkmate"));
    assert!(legal(&pos).is_empty());
    let before = start().parse_move("a2a3").unwrap();
    assert_eq!(pos.play(&before), Err(MoveError::GameOver));
}

#[test]
fn stalemate_is_a_draw() {
    let mut pos = from("fen 7k/8/6Q1/8/8/8/8/K7 w - - 0 1");
    play(&mut pos, "g6f7");
    assert_eq!(pos.end(), Some(End::Stalemate));
    assert_eq!(pos.outcome(), Some(Outcome::draw()));
}

#[test]
fn fifty_moves_draw_but_mate_on_the_hundredth_ply_stands() {
    let mut quiet = from("fen 7k/8/6K1/8/8/8/8/R7 w - - 99 80");
    play(&mut quiet, "a1a2");
    assert_eq!(quiet.end(), Some(End::FiftyMoves));
    assert_eq!(quiet.outcome(), Some(Outcome::draw()));
    let mut mate = from("fen 7k/8/6K1/8/8/8/8/R7 w - - 99 80");
    play(&mut mate, "a1a8");
    assert_eq!(mate.end(), Some(End::Checkmate));
    assert_eq!(mate.outcome(), Some(Outcome::win(Side::First)));
    let mut pawn = from("fen 7k/8/6K1/8/8/8/P7/R7 w - - 99 80");
    play(&mut pawn, "a2a3");
    assert_eq!(pawn.end(), None, "a pawn move starts the count again");
}

#[test]
fn the_third_occurrence_of_a_position_draws_and_a_book_lines_moves_count() {
    let mut pos = start();
    play(&mut pos, "g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1");
    assert_eq!(pos.end(), None, "the start position has occurred twice");
    play(&mut pos, "f6g8");
    assert_eq!(pos.end(), Some(End::Repetition));
    assert_eq!(pos.outcome(), Some(Outcome::draw()));
    // The same knights' dance begun in a book line ends four plies into the game.
    let mut booked = from("startpos moves g1f3 g8f6 f3g1 f6g8");
    assert_eq!(booked.n_moves(), 0);
    play(&mut booked, "g1f3 g8f6 f3g1");
    assert_eq!(booked.end(), None);
    play(&mut booked, "f6g8");
    assert_eq!(booked.end(), Some(End::Repetition));
    // An en-passant capture open once makes the position another one.
    let mut ep = from("startpos moves e2e4 a7a6 e4e5 d7d5");
    play(&mut ep, "g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1 f6g8");
    assert_eq!(ep.end(), None, "the first occurrence had an en-passant capture open");
    play(&mut ep, "g1f3");
    assert_eq!(ep.end(), Some(End::Repetition), "the knight out is there for the third time");
}

#[test]
fn insufficient_material_draws() {
    let mut pos = from("fen 8/8/8/8/8/1k6/3q4/4K3 w - - 0 1");
    play(&mut pos, "e1d2");
    assert_eq!(pos.end(), Some(End::InsufficientMaterial));
    assert_eq!(pos.outcome(), Some(Outcome::draw()));
    assert_eq!(from("fen 8/8/8/8/8/1k6/3n4/4K3 w - - 0 1").end(), Some(End::InsufficientMaterial), "a knight cannot mate");
    assert_eq!(from("fen 8/8/8/8/8/1k6/3r4/4K3 w - - 0 1").end(), None, "a rook can");
}

#[test]
fn start_texts_read_as_uci_position_arguments_epd_included() {
    let booked = from("startpos moves e2e4 e7e5");
    assert_eq!(booked.start_text().as_deref(), Some("startpos moves e2e4 e7e5"));
    assert_eq!((booked.n_moves(), booked.opening_plies()), (0, 2));
    let mut played = booked.clone();
    play(&mut played, "g1f3");
    assert_eq!(played.uci_position(), "startpos moves e2e4 e7e5 g1f3");
    assert_eq!(played.start_text(), booked.start_text(), "the start text is the start's");
    assert_eq!(played.n_moves(), 1);
    let fen = from("fen 4k3/8/8/8/8/8/8/4K2R w K - 3 20");
    assert_eq!(fen.start_text().as_deref(), Some("fen 4k3/8/8/8/8/8/8/4K2R w K - 3 20"));
    let epd = from("4k3/8/8/8/8/8/8/4K2R w K - bm Rh8+; id \"mate\";");
    assert_eq!(epd.fen(), "4k3/8/8/8/8/8/8/4K2R w K - 0 1", "an EPD's operations are dropped");
    assert_eq!(from("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1").start_text(), None, "the standard start");
    for bad in ["startpos moves e2e5", "fen 8/8/8/8/8/8/8/8 w - - 0 1", "startpos moves", "startpos e2e4", "fen xyz"] {
        assert!(Position::new(&Options::new(), Some(bad)).is_err(), "{bad:?} is refused");
    }
    // The start line is the start text itself (one line).
    assert_eq!(Position::start_line("startpos  moves e2e4\n"), "startpos moves e2e4");
}

#[test]
fn the_position_line_is_the_fen_and_reads_back() {
    let mut pos = start();
    play(&mut pos, "e2e4 c7c5 g1f3");
    let line = pos.position_line();
    assert_eq!(line, "rnbqkbnr/pp1ppppp/8/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2");
    let back = Position::from_position_line(&Options::new(), &line).unwrap();
    assert_eq!(back.position_line(), line);
    assert_eq!(legal(&back), legal(&pos));
    assert!(Position::from_position_line(&Options::new(), "not a fen").is_err());
}

#[test]
fn the_board_view_draws_pieces_as_glyphs_from_white_side() {
    let mut pos = start();
    play(&mut pos, "e2e4");
    let view = pos.board_view();
    assert_eq!((view.width, view.height, view.cells.len()), (8, 8, 64));
    assert_eq!(view.style.pieces, Pieces::Glyphs);
    assert_eq!(view.cells[0].name, "a8");
    assert_eq!(view.cells[63].name, "h1");
    let at = |name: &str| view.cells.iter().position(|c| c.name == name).unwrap();
    assert_eq!(view.cells[at("e1")].label.as_deref(), Some("♚"));
    assert_eq!(view.cells[at("e1")].owner, Some(0));
    assert_eq!(view.cells[at("d8")].label.as_deref(), Some("♛"));
    assert_eq!(view.cells[at("d8")].owner, Some(1));
    assert_eq!(view.cells[at("e2")].owner, None);
    assert_eq!(view.cells[at("e4")].owner, Some(0));
    let (e2, e4) = (at("e2"), at("e4"));
    assert_eq!(view.last, vec![[e2 % 8, e2 / 8], [e4 % 8, e4 / 8]]);
    assert_eq!(view.last_move.as_deref(), Some("e2e4"));
    assert_eq!(view.last_report, vec!["e4".to_string()]);
    assert_eq!(view.input, Input::FromTo);
    assert_eq!(view.status, "Black to move");
    play(&mut pos, "f7f6 d2d4 g7g5 d1h5");
    assert_eq!(pos.board_view().status, "White wins by checkmate");
}

#[test]
fn pgn_out_replays_in_san_with_comments_and_the_reason() {
    let game = PgnGame {
        tags: Tags {
            event: "Test \"quoted\"".to_string(),
            site: "here".to_string(),
            date: "2026.01.02".to_string(),
            round: "1".to_string(),
            white: "A".to_string(),
            black: "B".to_string(),
            extra: vec![("TimeControl".to_string(), "10+0.1".to_string()), ("Termination".to_string(), "normal".to_string())],
        },
        start: from("startpos moves f2f3"),
        moves: ["e7e5", "g2g4", "d8h4"]
            .iter()
            .map(|m| PgnMove { uci: m.to_string(), comment: Some(format!("+0.10/5 0.010s {m}")) })
            .collect(),
        result: PgnResult::Win(Side::Second),
        reason: Some("Black mates".to_string()),
    };
    let text = pgn::write(&game).unwrap();
    assert_eq!(
        text,
        "[Event \"Test \\\"quoted\\\"\"]\n[Site \"here\"]\n[Date \"2026.01.02\"]\n[Round \"1\"]\n[White \"A\"]\n[Black \"B\"]\n\
         [Result \"0-1\"]\n[TimeControl \"10+0.1\"]\n[Termination \"normal\"]\n[PlyCount \"4\"]\n\n\
         1. f3 {book} 1... e5 {+0.10/5 0.010s e7e5} 2. g4 {+0.10/5 0.010s g2g4} 2...\n\
         Qh4# {+0.10/5 0.010s d8h4} {Black mates} 0-1\n\n"
    );
    let from_fen =
        PgnGame { start: from("fen 7k/8/6K1/8/8/8/8/R7 b - - 0 1"), moves: vec![], result: PgnResult::Unknown, reason: None, ..game };
    let text = pgn::write(&from_fen).unwrap();
    assert!(text.contains("[FEN \"7k/8/6K1/8/8/8/8/R7 b - - 0 1\"]\n[SetUp \"1\"]\n[PlyCount \"0\"]\n\n*\n"), "{text}");
    let bad = PgnGame { moves: vec![PgnMove { uci: "e2e4".to_string(), comment: None }], ..from_fen };
    assert!(pgn::write(&bad).is_err(), "a move that does not replay");
}

#[test]
fn books_in_epd_and_pgn() {
    let epd = "# two positions\nrnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1 id \"e4\";\n\n4k3/8/8/8/8/8/8/4K2R w K -\n";
    assert_eq!(
        pgn::read_book(epd, None).unwrap(),
        ["fen rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1", "fen 4k3/8/8/8/8/8/8/4K2R w K - 0 1"]
    );
    let book = "[Event \"one\"]\n[Site \"?\"]\n\n1. e4 {a comment} e5 (1... c5 2. Nf3) 2. Nf3 $1 Nc6!? 3. Bb5 a6 *\n\n\
                [Event \"two\"]\n[FEN \"4k3/8/8/8/8/8/8/4K2R w K - 0 1\"]\n[SetUp \"1\"]\n\n1. O-O Kd7 1/2-1/2\n\n\
                [Event \"three\"]\n\n1.d4 d5 2.c4 1-0\n";
    assert_eq!(
        pgn::read_book(book, None).unwrap(),
        [
            "startpos moves e2e4 e7e5 g1f3 b8c6 f1b5 a7a6",
            "fen 4k3/8/8/8/8/8/8/4K2R w K - 0 1 moves e1g1 e8d7",
            "startpos moves d2d4 d7d5 c2c4"
        ]
    );
    assert_eq!(pgn::read_book(book, Some(3)).unwrap()[0], "startpos moves e2e4 e7e5 g1f3");
    assert_eq!(GameKind::from_name("chess").unwrap().read_openings(book, Some(2)).unwrap().unwrap()[2], "startpos moves d2d4 d7d5");
    assert!(pgn::read_book("[Event \"x\"]\n\n1. e4 e4 *\n", None).unwrap_err().contains("game 1"));
    assert!(pgn::read_book("garbage line\n", None).unwrap_err().contains("line 1"));
    assert!(pgn::read_book("# nothing\n", None).is_err());
    assert!(pgn::read_book("[Event \"mate\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n", None).unwrap_err().contains("ends the game"));
}
