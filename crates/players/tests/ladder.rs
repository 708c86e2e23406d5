//! The ladder's names, budgets and clocks: every rung plays a legal move in every game,
//! a node limit makes a search reproducible, a stop signal ends it, and the search rungs
//! see the tactics in front of them.

use std::cell::Cell;
use std::time::Duration;

use players::{Builtin, NameError, Play, Rung, think_time};
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;
use rules::{AnyPosition, GameKind, Options};

fn never() -> bool {
    false
}

fn start(kind: GameKind, options: &[(&str, &str)]) -> AnyPosition {
    let options: Options = options.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let text = kind.random_start(&options, &mut rng).expect("options");
    kind.new_position(&options, text.as_deref()).expect("start")
}

/// The games with small options where the seed's are slow to play out in a debug build.
fn every_game() -> Vec<AnyPosition> {
    GameKind::ALL.into_iter().map(|kind| if kind == GameKind::Legions { start(kind, &[("size", "7")]) } else { start(kind, &[]) }).collect()
}

#[test]
fn names_read_and_write_alike() {
    for (text, rung, nodes) in [("random", Rung::Random, None), ("medium", Rung::Medium, None), ("strong:2500", Rung::Strong, Some(2500))] {
        let builtin = Builtin::parse(text).expect(text);
        assert_eq!((builtin.rung, builtin.nodes), (rung, nodes));
        assert_eq!(builtin.name(), text);
    }
    let names: Vec<String> = Builtin::ALL.iter().map(|b| b.name()).collect();
    assert_eq!(names, ["random", "greedy", "medium", "strong", "perfect"]);
    assert_eq!(Builtin::parse("best"), Err(NameError::Unknown("best".into())));
    assert_eq!(Builtin::parse("strong:0"), Err(NameError::BadNodes("strong:0".into())));
    assert_eq!(Builtin::parse("strong:lots"), Err(NameError::BadNodes("strong:lots".into())));
    assert_eq!(Builtin::parse("greedy:10"), Err(NameError::NoSearch("greedy:10".into(), "greedy")));
    assert!(Builtin::is_builtin_name("strong:lots") && !Builtin::is_builtin_name("bots/c"));
    assert_eq!(Builtin::parse("best").unwrap_err().to_string(), "no built-in player \"best\" (random, greedy, medium, strong or perfect)");
}

#[test]
fn perfect_plays_connect4_7x6_only() {
    let c4 = |w: &str| [("width", w)].iter().map(|(k, v)| (k.to_string(), v.to_string())).collect::<Options>();
    assert!(Rung::Perfect.plays(GameKind::Connect4, &Options::new()));
    assert!(Rung::Perfect.plays(GameKind::Connect4, &c4("7")));
    assert!(!Rung::Perfect.plays(GameKind::Connect4, &c4("8")));
    assert!(!Rung::Perfect.plays(GameKind::Gomoku, &Options::new()));
    assert!(GameKind::ALL.iter().all(|&kind| Rung::Strong.plays(kind, &Options::new())));
}

#[test]
fn think_time_takes_the_tightest_clock() {
    let ms = Duration::from_millis;
    assert_eq!(think_time(None, None, None), None);
    assert_eq!(think_time(Some(ms(1000)), None, None), Some(ms(250)));
    assert_eq!(think_time(Some(ms(1000)), Some(ms(4000)), None), Some(ms(100)));
    assert_eq!(think_time(None, Some(ms(300_000)), Some(ms(120_000))), Some(ms(3000)));
}

#[test]
fn every_rung_plays_a_legal_move_in_every_game() {
    for pos in every_game() {
        for builtin in Builtin::ALL.into_iter().filter(|b| b.rung.plays(pos.kind(), &Options::new())) {
            let builtin = Builtin { nodes: builtin.nodes.or(builtin.rung.default_nodes().map(|_| 300)), ..builtin };
            let text = builtin.choose_text(&pos, &mut ChaCha8Rng::seed_from_u64(3), &never).expect("a move");
            let mut next = pos.clone();
            next.play_text(&text).unwrap_or_else(|err| panic!("{builtin} in {}: {text}: {err}", pos.kind()));
        }
    }
}

#[test]
fn a_node_limit_makes_a_search_reproducible() {
    for pos in every_game() {
        for name in ["medium", "strong:500"] {
            let builtin = Builtin::parse(name).expect("a name");
            let first: Vec<String> =
                (0..3).map(|seed| builtin.choose_text(&pos, &mut ChaCha8Rng::seed_from_u64(seed), &never).expect("a move")).collect();
            let again: Vec<String> =
                (0..3).map(|seed| builtin.choose_text(&pos, &mut ChaCha8Rng::seed_from_u64(seed), &never).expect("a move")).collect();
            assert_eq!(first, again, "{name} in {}", pos.kind());
        }
    }
}

#[test]
fn a_stop_signal_ends_every_search() {
    // `strong` without a node limit of its own would search five million nodes; the stop
    // signal says stop on its third question, so at most three checks' worth are searched.
    // Connect Four 7x6 from 9 plies, out of the book: the solver has work to do.
    let c4 = played(GameKind::Connect4, &[], &["3", "2", "4", "3", "2", "4", "5", "1", "1"]);
    for pos in every_game().into_iter().filter(|pos| pos.kind() != GameKind::Connect4).chain([c4]) {
        let asked = Cell::new(0u64);
        let stop = || {
            asked.set(asked.get() + 1);
            asked.get() >= 3
        };
        let text = Builtin::STRONG.choose_text(&pos, &mut ChaCha8Rng::seed_from_u64(1), &stop).expect("a move");
        assert!(asked.get() >= 1, "{}: the search never asked whether to stop", pos.kind());
        assert_eq!(asked.get(), 3, "{}: it went on after being told to stop", pos.kind());
        pos.clone().play_text(&text).expect("a legal move");
    }
}

/// The first search move of `name` from several seeds.
fn choices(pos: &AnyPosition, name: &str) -> Vec<String> {
    let builtin = Builtin::parse(name).expect("a name");
    (0..4).map(|seed| builtin.choose_text(pos, &mut ChaCha8Rng::seed_from_u64(seed), &never).expect("a move")).collect()
}

fn played(kind: GameKind, options: &[(&str, &str)], moves: &[&str]) -> AnyPosition {
    let mut pos = start(kind, options);
    for text in moves {
        pos.play_text(text).unwrap_or_else(|err| panic!("{text}: {err}"));
    }
    pos
}

#[test]
fn strong_gomoku_finds_a_win_by_fours() {
    // X: C2 C3 C4 (C1 is 0's) and E5 F5; 0: an open three F8 G8 H8, and A9. X wins by
    // fours: C5 (0 must take C6), then D5 makes two fives at once. A search of one node
    // would play its best-looking move, a block of 0's three (E8 or I8).
    let pos = played(GameKind::Gomoku, &[], &["C2", "C1", "C3", "F8", "C4", "G8", "E5", "H8", "F5", "A9"]);
    assert_eq!(choices(&pos, "strong:1"), ["C5"; 4]);
}

#[test]
fn the_searches_see_the_tactics() {
    // Gomoku: X to move with an open three D0 E0 F0... (X: D4 E4 F4; 0: A0 B0 C0 and J9):
    // 0 threatens nothing, X makes an open four with C4 or G4 and wins next.
    let pos = played(GameKind::Gomoku, &[], &["D4", "A0", "E4", "B0", "F4", "J9"]);
    for name in ["medium", "strong:20000"] {
        assert!(choices(&pos, name).iter().all(|mv| mv == "C4" || mv == "G4"), "{name}: {:?}", choices(&pos, name));
    }
    // Gomoku: 0 must block X's four A0..D0 at E0.
    let pos = played(GameKind::Gomoku, &[], &["A0", "A5", "B0", "B5", "C0", "C5", "D0"]);
    assert!(choices(&pos, "medium").iter().all(|mv| mv == "E0"));
    // Connect Four 20x20: blue threatens 0 1 2 _ on the bottom row; red blocks at 3.
    let big = [("width", "20"), ("height", "20")];
    let pos = played(GameKind::Connect4, &big, &["0", "19", "1", "19", "2"]);
    for name in ["medium", "strong:20000"] {
        assert!(choices(&pos, name).iter().all(|mv| mv == "3"), "{name}: {:?}", choices(&pos, name));
    }
    // Connect Four 7x6: the solver takes the centre (the only winning first move).
    let pos = start(GameKind::Connect4, &[]);
    assert!(choices(&pos, "perfect").iter().all(|mv| mv == "3"));
    assert!(choices(&pos, "strong").iter().all(|mv| mv == "3"));
}
