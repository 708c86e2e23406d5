//! Moves as people write them on the pages (`Game::move_for_people`): Connect Four's
//! columns counted from 1, Legions' orders one per line, every other game its notation.

use rules::GameKind;

#[test]
fn moves_are_written_for_people_per_game() {
    let cases = [
        ("connect4", "0", "column 1"),
        ("connect4", "6", "column 7"),
        ("legions", "3 6 1;3 5 2", "3 6 1\n3 5 2"),
        ("legions", "", "(no orders)"),
        ("gomoku", "B7", "B7"),
        ("nupud", "c1c2", "c1c2"),
        ("reversi", "d3", "d3"),
        ("pahtum", "a1", "a1"),
    ];
    for (game, notation, shown) in cases {
        assert_eq!(GameKind::from_name(game).unwrap().move_for_people(notation), shown, "{game} {notation:?}");
    }
}

#[test]
fn a_move_typed_by_a_person_is_read_as_the_pages_write_moves() {
    let cases: [(&str, &str, Result<&str, &str>); 8] = [
        ("connect4", "1", Ok("0")),
        ("connect4", " column 7 ", Ok("6")),
        ("connect4", "Column 4", Ok("3")),
        ("connect4", "0", Err("\"0\" is not a column: type a column number from 1 to 7")),
        ("connect4", "8", Err("\"8\" is not a column: type a column number from 1 to 7")),
        ("connect4", "left", Err("\"left\" is not a column: type a column number from 1 to 7")),
        ("gomoku", " B7 ", Ok("B7")),
        ("reversi", "d3", Ok("d3")),
    ];
    for (game, typed, expected) in cases {
        let pos = GameKind::from_name(game).unwrap().new_position(&Default::default(), None).unwrap();
        assert_eq!(pos.move_from_people(typed), expected.map(str::to_string).map_err(str::to_string), "{game} {typed:?}");
    }
}

#[test]
fn a_person_may_click_the_legal_moves_or_legions_reachable_provinces() {
    let options = |pairs: &[(&str, &str)]| -> rules::Options { pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect() };
    // Connect Four's empty board: every column, as the cells name them.
    let pos = GameKind::from_name("connect4").unwrap().new_position(&options(&[]), None).unwrap();
    let mut columns = pos.choices("");
    columns.sort();
    assert_eq!(columns, ["0", "1", "2", "3", "4", "5", "6"]);
    // Legions on 5×5, counted by hand from the rules (orthogonal neighbours of player 0's
    // provinces connected to its city at (0, 0), its own left out), row by row.
    let pos = GameKind::from_name("legions").unwrap().new_position(&options(&[("size", "5")]), None).unwrap();
    assert_eq!(pos.choices(""), ["1 0", "0 1"]);
    assert_eq!(pos.choices("1 0 1"), ["2 0", "0 1", "1 1"]);
    assert_eq!(pos.choices("1 0 1; 1 1 1"), ["2 0", "0 1", "2 1", "1 2"]);
    // An order that cannot run (off the board) changes nothing.
    assert_eq!(pos.choices("9 9 1"), ["1 0", "0 1"]);
}
