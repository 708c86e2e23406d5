//! Board views: a hand-checked position per game, Nupud's hidden set-up kept hidden,
//! Legions' veterans and cut-off provinces, replaying records, and cell names that make
//! legal moves when clicked.

use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;
use rules::{AnyPosition, GameKind, Options};
use web::view::{BoardView, CellView, cell_index, view, views_of_record};

fn options(pairs: &[(&str, &str)]) -> Options {
    pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

fn position(kind: GameKind, opts: &Options, start: Option<&str>, moves: &[&str]) -> AnyPosition {
    let mut pos = kind.new_position(opts, start).expect("a valid start");
    for mv in moves {
        pos.play_text(mv).unwrap_or_else(|err| panic!("{mv}: {err}"));
    }
    pos
}

fn at(view: &BoardView, x: usize, y: usize) -> &CellView {
    view.cell(x, y).expect("on the board")
}

/// The board as text rows for compact checks: `.` empty, `#` blocked, owner digit, or
/// the label when there is one.
fn rows(view: &BoardView) -> Vec<String> {
    (0..view.height)
        .map(|y| {
            (0..view.width)
                .map(|x| {
                    let cell = at(view, x, y);
                    match (&cell.label, cell.owner, cell.blocked) {
                        (_, _, true) => "#".to_string(),
                        (Some(label), _, _) => label.clone(),
                        (None, Some(owner), _) => owner.to_string(),
                        (None, None, _) => ".".to_string(),
                    }
                })
                .collect()
        })
        .collect()
}

#[test]
fn gomoku_cells_names_and_last_move() {
    let pos = position(GameKind::Gomoku, &Options::new(), None, &["B7", "C3"]);
    let v = view(&pos);
    assert_eq!((v.game.as_str(), v.width, v.height, v.cells.len()), ("gomoku", 10, 10, 100));
    assert_eq!(v.col_labels.join(""), "ABCDEFGHIJ");
    assert_eq!(v.row_labels.join(""), "0123456789");
    assert_eq!(at(&v, 1, 7).name, "B7");
    assert_eq!(at(&v, 1, 7).owner, Some(0));
    assert_eq!(at(&v, 2, 3).name, "C3");
    assert_eq!(at(&v, 2, 3).owner, Some(1));
    assert_eq!(v.cells.iter().filter(|c| c.owner.is_some()).count(), 2);
    assert_eq!(v.cells[cell_index(&v, 2, 3).unwrap()].name, "C3");
    assert_eq!(cell_index(&v, 10, 0), None);
    assert_eq!(v.last, vec![[2, 3]]);
    assert_eq!(v.last_move.as_deref(), Some("C3"));
    assert_eq!((v.to_move, v.scores, v.n_moves), (Some(0), None, 2));
    assert_eq!(v.side_names, ["X".to_string(), "0".to_string()]);
    assert_eq!(v.status, "X to move");
    assert_eq!(v.input.as_str(), "cell");
    assert!(v.winning.is_empty());
}

#[test]
fn gomoku_win_is_shown() {
    let pos = position(GameKind::Gomoku, &Options::new(), None, &["A0", "A1", "B0", "B1", "C0", "C1", "D0", "D1", "E0"]);
    let v = view(&pos);
    assert_eq!(v.status, "X wins with five in a row");
    assert_eq!((v.to_move, v.input.as_str()), (None, "none"));
    assert_eq!(v.winning, vec![[0, 0], [1, 0], [2, 0], [3, 0], [4, 0]]);
}

#[test]
fn connect4_draws_the_top_row_first() {
    let pos = position(GameKind::Connect4, &Options::new(), None, &["3", "3", "4"]);
    let v = view(&pos);
    assert_eq!((v.width, v.height), (7, 6));
    assert_eq!(rows(&v), [".......", ".......", ".......", ".......", "...1...", "...00.."]);
    // Counted from 1, as the move list counts columns ("column 4" is the notation's 3).
    assert_eq!(v.col_labels.join(""), "1234567");
    assert_eq!(v.row_labels.join(""), "654321");
    assert!((0..6).all(|y| at(&v, 3, y).name == "3"));
    assert_eq!(v.last, vec![[4, 5]]);
    assert_eq!(v.status, "Red to move");
    assert_eq!(v.input.as_str(), "column");

    let win = position(GameKind::Connect4, &Options::new(), None, &["0", "1", "0", "1", "0", "1", "0"]);
    let v = view(&win);
    assert_eq!(v.status, "Blue wins with four in a row");
    assert_eq!(v.winning, vec![[0, 2], [0, 3], [0, 4], [0, 5]]);
    assert_eq!(v.last, vec![[0, 2]]);
}

#[test]
fn connect4_large_board() {
    let opts = options(&[("width", "20"), ("height", "20")]);
    let v = view(&position(GameKind::Connect4, &opts, None, &["19"]));
    assert_eq!((v.width, v.height, v.cells.len()), (20, 20, 400));
    assert_eq!(at(&v, 19, 19).owner, Some(0));
    assert_eq!(v.last, vec![[19, 19]]);
}

const PAHTUM_START: &str = "+------\n-------\n-------\n---+---\n-------\n-------\n------+\n";

#[test]
fn pahtum_blocked_squares_and_pieces() {
    let pos = position(GameKind::Pahtum, &Options::new(), Some(PAHTUM_START), &["C4", "A2"]);
    let v = view(&pos);
    // Pieces carry their side's letter, as drawn.
    assert_eq!(rows(&v), ["#O.....", ".......", "...X...", "...#...", ".......", ".......", "......#"]);
    assert_eq!((at(&v, 1, 0).owner, at(&v, 3, 2).owner), (Some(1), Some(0)));
    assert_eq!(v.row_labels.join(""), "ABCDEFG");
    assert_eq!(v.col_labels.join(""), "1234567");
    assert_eq!(at(&v, 3, 2).name, "C4");
    assert_eq!(at(&v, 0, 0).name, "A1");
    assert!(at(&v, 0, 0).blocked && at(&v, 0, 0).owner.is_none());
    assert_eq!(v.last, vec![[1, 0]]);
    assert_eq!(v.scores, Some([0, 0]));
    assert_eq!(v.status, "X to move");
    assert_eq!(v.input.as_str(), "cell");
}

/// 5 x 5, player 0 to move: a connected novice and veteran by its city, a novice cut off
/// at (2, 2); player 1's veteran at (3, 4) next to its city.
const LEGIONS_START: &str = "0\n5\n0 0\n4 4\nN0\tV0\t.\t.\t.\n.\t.\t.\t.\t.\n.\t.\tn0\t.\t.\n.\t.\t.\t.\t.\n.\t.\t.\tV1\tN1\n";

#[test]
fn legions_veterans_connection_and_cities() {
    let pos = position(GameKind::Legions, &Options::new(), Some(LEGIONS_START), &[]);
    let v = view(&pos);
    assert_eq!((v.width, v.height), (5, 5));
    assert_eq!(rows(&v), ["0V...", ".....", "..0..", ".....", "...V1"]);
    let city0 = at(&v, 0, 0);
    // Cities are stars, veterans rings with a V, cut-off provinces faded.
    assert!(city0.star && !city0.ring && city0.owner == Some(0) && !city0.faded);
    assert!(at(&v, 4, 4).star && at(&v, 4, 4).owner == Some(1));
    assert!(!at(&v, 1, 0).star && at(&v, 1, 0).ring && !at(&v, 1, 0).faded);
    assert_eq!(at(&v, 1, 0).label.as_deref(), Some("V"));
    assert!(at(&v, 2, 2).faded);
    assert_eq!((at(&v, 3, 4).owner, at(&v, 3, 4).ring), (Some(1), true));
    assert!(!at(&v, 3, 3).faded && at(&v, 3, 3).owner.is_none());
    assert_eq!(v.legend.len(), 3, "the legend names the star, the ring and the faded look");
    assert_eq!(at(&v, 3, 1).name, "3 1");
    assert_eq!(v.status, "Turn 1 of 25: player 0 to move");
    assert_eq!(v.input.as_str(), "orders");
    assert_eq!(v.scores, Some([2, 2]));

    // (2, 1) joins the cut-off novice to the city; (1, 1) is taken too; 2 legions starve.
    let after = position(GameKind::Legions, &Options::new(), Some(LEGIONS_START), &["2 0 1; 2 1 1; 0 0 3"]);
    let v = view(&after);
    assert!(!at(&v, 2, 2).faded);
    assert_eq!(v.last, vec![[2, 0], [2, 1]]);
    assert_eq!(v.last_move.as_deref(), Some("2 0 1; 2 1 1; 0 0 3"));
    assert_eq!(v.last_report, ["2 0 1: occupied", "2 1 1: occupied", "0 0 3: starved in an own province"]);
    assert_eq!(v.status, "Turn 2 of 25: player 1 to move");
}

#[test]
fn nupud_setup_stays_hidden() {
    let a = view(&position(GameKind::Nupud, &Options::new(), None, &["432111"]));
    let b = view(&position(GameKind::Nupud, &Options::new(), None, &["111234"]));
    assert_eq!(a, b, "the view must not depend on White's hidden set-up");
    assert!(a.cells.iter().all(|c| c.owner.is_none() && c.label.is_none()));
    assert!(a.last.is_empty() && a.last_move.is_none());
    assert_eq!(a.status, "Set-up: White has set up (hidden); Black to set up");
    assert_eq!((a.to_move, a.input.as_str()), (Some(1), "setup"));
    let json = serde_json::to_string(&a).unwrap();
    assert!(!json.contains("432111"), "{json}");

    let start = view(&position(GameKind::Nupud, &Options::new(), None, &[]));
    assert_eq!(start.status, "Set-up: White to set up");
}

#[test]
fn nupud_board_and_moves() {
    let v = view(&position(GameKind::Nupud, &Options::new(), None, &["432111", "111234"]));
    assert_eq!(rows(&v), ["111234", "......", "......", "......", "......", "432111"]);
    assert_eq!(v.col_labels.join(""), "abcdef");
    assert_eq!(v.row_labels.join(""), "654321");
    assert_eq!((at(&v, 0, 5).name.as_str(), at(&v, 0, 5).owner), ("a1", Some(0)));
    assert_eq!((at(&v, 5, 0).name.as_str(), at(&v, 5, 0).owner), ("f6", Some(1)));
    assert_eq!(v.last, (0..6).map(|x| [x, 0]).collect::<Vec<_>>());
    assert_eq!(v.last_move.as_deref(), Some("111234"));
    assert_eq!((v.status.as_str(), v.input.as_str()), ("White to move", "from-to"));

    let v = view(&position(GameKind::Nupud, &Options::new(), None, &["432111", "111234", "c1c3"]));
    assert_eq!(rows(&v), ["111234", "......", "......", "..2...", "......", "43.111"]);
    assert_eq!(v.last, vec![[2, 5], [2, 3]]);
    assert_eq!(v.status, "Black to move");
    assert_eq!(v.scores, Some([12, 12]));
}

#[test]
fn views_of_record_replays_random_games() {
    for kind in GameKind::ALL {
        for seed in 0..3u64 {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let opts = match kind {
                GameKind::Legions => options(&[("size", "5")]),
                _ => Options::new(),
            };
            let start = kind.random_start(&opts, &mut rng).unwrap();
            let mut pos = kind.new_position(&opts, start.as_deref()).unwrap();
            let mut moves = Vec::new();
            while let Some(mv) = pos.random_move_text(&mut rng) {
                pos.play_text(&mv).unwrap();
                moves.push(mv);
            }
            let views = views_of_record(kind, &opts, start.as_deref(), &moves).unwrap();
            assert_eq!(views.len(), moves.len() + 1, "{kind}");
            assert_eq!(views.last(), Some(&view(&pos)), "{kind}");
            let end = views.last().unwrap();
            assert_eq!((end.to_move, end.input.as_str()), (None, "none"), "{kind}");
            assert!(end.status.contains(" wins") || end.status.starts_with("Draw"), "{kind}: {}", end.status);
            assert_eq!(views[0].n_moves, 0);
            assert!(views[0].last.is_empty(), "{kind}");
        }
    }
}

#[test]
fn views_of_record_names_a_bad_move() {
    let err = views_of_record(GameKind::Gomoku, &Options::new(), None, &["B7", "B7"]).unwrap_err();
    assert!(err.starts_with("move 2 (\"B7\")"), "{err}");
    assert!(views_of_record(GameKind::Pahtum, &Options::new(), None, &[] as &[&str]).is_err());
}

/// Along random games, every cell a click would send gives a legal move exactly where
/// the rules allow one.
#[test]
fn clicked_cell_names_are_moves() {
    for kind in GameKind::ALL {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let opts = match kind {
            GameKind::Legions => options(&[("size", "5")]),
            _ => Options::new(),
        };
        let start = kind.random_start(&opts, &mut rng).unwrap();
        let mut pos = kind.new_position(&opts, start.as_deref()).unwrap();
        loop {
            check_clicks(&pos);
            let Some(mv) = pos.random_move_text(&mut rng) else { break };
            pos.play_text(&mv).unwrap();
        }
    }
}

fn check_clicks(pos: &AnyPosition) {
    let v = view(pos);
    match v.input.as_str() {
        "cell" => {
            // A click on a cell sends its name: legal exactly where the rules list a move
            // (and only on an empty, unblocked cell); every legal move is a click away, and
            // the cells marked as hints are legal moves.
            let legal = pos.legal_moves_text().unwrap();
            for cell in &v.cells {
                let ok = pos.check_text(&cell.name).is_ok();
                assert_eq!(ok, legal.contains(&cell.name), "{}", cell.name);
                assert!(!ok || (cell.owner.is_none() && !cell.blocked), "{}", cell.name);
                assert!(!cell.hint || ok, "hint on {}", cell.name);
            }
            for text in &legal {
                assert!(v.cells.iter().any(|cell| &cell.name == text), "{text} is no cell");
            }
        }
        "pass" => {
            // No cell is a move: the only legal move is the pass the page's button sends.
            assert_eq!(pos.legal_moves_text().unwrap(), ["pass"]);
            assert!(v.cells.iter().all(|cell| pos.check_text(&cell.name).is_err()));
        }
        "column" => {
            for x in 0..v.width {
                let open = at(&v, x, 0).owner.is_none();
                assert_eq!(pos.check_text(&at(&v, x, 0).name).is_ok(), open, "column {x}");
            }
        }
        "from-to" => {
            let legal = pos.legal_moves_text().unwrap();
            assert!(!legal.is_empty());
            let mut clicked = Vec::new();
            for from in &v.cells {
                for to in &v.cells {
                    let text = format!("{}{}", from.name, to.name);
                    if pos.check_text(&text).is_ok() {
                        assert_eq!(from.owner.map(usize::from), v.to_move, "{text}");
                        clicked.push(text);
                    }
                }
            }
            clicked.sort();
            let mut legal = legal;
            legal.sort();
            assert_eq!(clicked, legal);
        }
        "orders" => {
            for cell in &v.cells {
                assert!(pos.check_text(&format!("{} 1", cell.name)).is_ok(), "{}", cell.name);
            }
        }
        "setup" => assert!(pos.check_text("432111").is_ok()),
        "none" => assert!(pos.to_move().is_none()),
        other => panic!("unknown input mode {other}"),
    }
}

#[test]
fn views_serialise_with_the_documented_fields() {
    let v = view(&position(GameKind::Gomoku, &Options::new(), None, &["B7"]));
    let json = serde_json::to_value(&v).unwrap();
    for key in [
        "game",
        "width",
        "height",
        "cells",
        "col_labels",
        "row_labels",
        "last",
        "to_move",
        "side_names",
        "scores",
        "status",
        "input",
        "style",
        "legend",
    ] {
        assert!(json.get(key).is_some(), "{key}");
    }
    let cell = &json["cells"][71];
    assert_eq!(cell["name"], "B7");
    assert_eq!(cell["owner"], 0);
    assert_eq!(json["style"]["grid"], "lines");
    assert_eq!(json["input"], "cell");
    for key in ["blocked", "label", "ring", "faded", "star", "hint"] {
        assert!(cell.get(key).is_some(), "{key}");
    }
}
