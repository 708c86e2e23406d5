//! Which games each rung plays, and the one message for a rung named where it does not:
//! `perfect` plays Connect Four on the solver's 7×6 board only, every other rung plays
//! every game on every board.

use builtins::{Builtin, Rung};
use rules::{GameKind, Options};

fn options(pairs: &[(&str, &str)]) -> Options {
    pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

#[test]
fn perfect_plays_connect4_seven_by_six_only() {
    for (game, pairs, plays) in [
        ("connect4", &[][..], true),
        ("connect4", &[("width", "7"), ("height", "6")][..], true),
        ("connect4", &[("width", "20"), ("height", "20")][..], false),
        ("connect4", &[("width", "8"), ("height", "6")][..], false),
        ("gomoku", &[][..], false),
        ("chess", &[][..], false),
    ] {
        let kind = GameKind::from_name(game).unwrap();
        assert_eq!(Rung::Perfect.plays(kind, &options(pairs)), plays, "{game} {pairs:?}");
        for rung in [Rung::Random, Rung::Greedy, Rung::Medium, Rung::Strong] {
            assert!(rung.plays(kind, &options(pairs)), "{} plays {game} {pairs:?}", rung.name());
            assert_eq!(Builtin { rung, nodes: None }.check_plays(kind, &options(pairs)), Ok(()));
        }
    }
}

#[test]
fn a_rung_named_where_it_does_not_play_is_told_where_it_does() {
    let gomoku = GameKind::from_name("gomoku").unwrap();
    let err = Builtin::PERFECT.check_plays(gomoku, &Options::new()).unwrap_err();
    assert_eq!(err.to_string(), "built-in player perfect plays connect4 7x6 only, not this gomoku");
    let connect4 = GameKind::from_name("connect4").unwrap();
    let err = Builtin::PERFECT.check_plays(connect4, &options(&[("width", "20"), ("height", "20")])).unwrap_err();
    assert_eq!(err.to_string(), "built-in player perfect plays connect4 7x6 only, not this connect4");
    assert_eq!(Builtin::PERFECT.check_plays(connect4, &Options::new()), Ok(()));
}
