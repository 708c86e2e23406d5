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
