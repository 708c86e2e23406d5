//! The Legions player's sample of turns: the city strike, the greedy turn, random turns
//! that waste nothing, and the greedy player built on them beating the baseline.

use proptest::prelude::*;
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;
use rules::legions::{Effect, Move, Position};
use rules::{Game, Options, Side};

use players::legions::{candidates, capture_threat, capture_turns, city_strike, greedy, strike_cost};
use players::{Builtin, Play};

/// A position from map rows written like the native input (cells separated by spaces).
fn board(player: Side, rows: &[&str]) -> Position {
    let n = rows.len();
    let text = format!("{}\n{n}\n0 0\n{} {}\n{}\n", player.index(), n - 1, n - 1, rows.join("\n"));
    Position::new(&Options::new(), Some(&text)).expect("test board")
}

/// Whether every order of the turn just played used exactly the legions it needed.
fn wastes_nothing(pos: &Position) -> bool {
    pos.last_turn()
        .expect("a turn was played")
        .orders
        .iter()
        .all(|o| matches!(o.effect, Effect::Occupied { starved: 0 } | Effect::Captured { lost: 0, .. }))
}

#[test]
fn the_strike_takes_the_city_when_five_legions_reach_it() {
    // From (2, 1) the city (3, 3) is two empty provinces and a novice away: 1 + 1 + 2.
    let pos = board(Side::First, &["N0 N0 N0 .", ". . N0 .", ". . . .", ". . . N1"]);
    let strike = city_strike(pos.board(), Side::First).expect("4 legions reach the city");
    assert_eq!((strike.orders.len(), legions_sent(&strike)), (3, 4), "{strike:?}");
    let mut next = pos.clone();
    next.play(&strike).unwrap();
    assert_eq!(next.city_taker(), Some(Side::First));
    // The strike comes first among the candidates.
    let mut moves = Vec::new();
    candidates(&pos, &mut ChaCha8Rng::seed_from_u64(7), &mut moves);
    assert_eq!(moves[0], strike);
    assert!(moves.len() >= 20, "{}", moves.len());
    // Too far: the city is 6 provinces away from a lone city at the start of 7 x 7.
    assert_eq!(city_strike(Position::with_size(7).board(), Side::First), None);
}

/// The legions a turn sends.
fn legions_sent(turn: &Move) -> i64 {
    turn.orders.iter().map(|o| if let rules::legions::Order::Send { c, .. } = o { *c } else { 0 }).sum()
}

#[test]
fn the_greedy_turn_spends_every_legion_for_a_gain() {
    // Adjacent enemy novice (2 legions) and veteran (3).
    let pos = board(Side::First, &["N0 N1 . .", "V1 . . .", ". . . .", ". . . N1"]);
    let lead = |pos: &Position| pos.running_scores().map(|s| s[0] - s[1]).unwrap();
    let turn = greedy(&pos, Side::First);
    assert_eq!(legions_sent(&turn), 5, "{turn:?}");
    let mut next = pos.clone();
    next.play(&turn).unwrap();
    assert!(wastes_nothing(&next), "{:?}", next.last_turn());
    assert!(lead(&next) > lead(&pos) + 3, "{turn:?}: {} -> {}", lead(&pos), lead(&next));
    // Among the candidates, a turn takes both enemy provinces.
    let mut moves = Vec::new();
    candidates(&pos, &mut ChaCha8Rng::seed_from_u64(7), &mut moves);
    let both = |mv: &&Move| mv.orders.len() == 2 && legions_sent(mv) == 5;
    assert!(moves.iter().any(|mv| both(&mv)), "{moves:?}");
    // At the start it expands to five empty provinces.
    let turn = greedy(&Position::with_size(7), Side::First);
    assert_eq!((turn.orders.len(), legions_sent(&turn)), (5, 5), "{turn:?}");
}

#[test]
fn the_greedy_player_beats_the_baseline() {
    let start = Position::with_size(7);
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let mut wins = 0;
    for game in 0..10 {
        let greedy_side = if game % 2 == 0 { Side::First } else { Side::Second };
        let mut pos = start.clone();
        while let Some(side) = pos.to_move() {
            let player = if side == greedy_side { Builtin::GREEDY } else { Builtin::RANDOM };
            let mv = player.choose(&pos, &mut rng, &|| false).expect("the game is on");
            pos.play(&mv).unwrap();
        }
        if pos.outcome().unwrap().winner == Some(greedy_side) {
            wins += 1;
        }
    }
    assert!(wins >= 9, "the greedy player won only {wins} of 10");
}

/// The provinces a turn sends legions to.
fn targets_of(turn: &Move) -> Vec<(i64, i64)> {
    turn.orders.iter().filter_map(|o| if let rules::legions::Order::Send { x, y, .. } = o { Some((*x, *y)) } else { None }).collect()
}

#[test]
fn the_search_rungs_spread_along_their_own_edge_as_player_1() {
    // Every first turn of expansion gains 5 points whatever it takes; the greedy turn,
    // taking targets row by row, sends player 1 up its column towards player 0's side of
    // the board, a thin line that player 0 cuts off (the lost games of docs/players.md).
    // The search rungs' sample puts first, for player 1, the mirror of player 0's greedy
    // turn: along the bottom row, away from the enemy, as player 0 spreads along the top.
    let mut pos = Position::with_size(17);
    pos.play(&greedy(&pos, Side::First)).unwrap();
    let row_0 = |turn: &Move| targets_of(turn).iter().all(|&(_, y)| y == 0);
    assert!(row_0(pos.last_move().as_ref().unwrap()), "{:?}", pos.last_move());
    assert!(targets_of(&greedy(&pos, Side::Second)).iter().all(|&(x, _)| x == 16), "the greedy turn goes up column 16");
    for rung in [Builtin::MEDIUM, Builtin::parse("strong:300").unwrap()] {
        let turn = rung.choose(&pos, &mut ChaCha8Rng::seed_from_u64(3), &|| false).expect("a turn");
        let along = targets_of(&turn);
        assert!(along.len() == 5 && along.iter().all(|&(_, y)| y == 16), "{rung}: {turn:?}");
    }
}

#[test]
fn strong_bars_the_way_to_its_city_before_it_is_within_a_turn() {
    // Player 1's line up column 0 is 7 legions from player 0's city (5 empty provinces
    // and the city), out of reach this turn, so `medium`'s leaf sees no threat; every
    // turn of player 0 gains 5 provinces. `strong` counts the legions of the enemy's way
    // at the end of its line and spends its turn on that way, as in the games it lost
    // without it (docs/players.md), where such a line cut the city from its provinces.
    let mut rows = vec!["N0 N0 N0 N0 N0 N0 N0 N0 N0"];
    rows.extend([". . . . . . . . ."; 5]);
    rows.extend(["N1 . . . . . . . .", "N1 . . . . . . . .", "N1 N1 N1 N1 N1 N1 N1 N1 N1"]);
    let pos = board(Side::First, &rows);
    let way = |pos: &Position| strike_cost(pos.board(), Side::Second, 30).expect("a way");
    assert_eq!(way(&pos), 7);
    let strong = Builtin::parse("strong:2000").expect("a rung");
    for seed in 0..3 {
        let turn = strong.choose(&pos, &mut ChaCha8Rng::seed_from_u64(seed), &|| false).expect("a turn");
        let mut next = pos.clone();
        next.play(&turn).unwrap();
        assert!(way(&next) >= 9, "{turn:?}: the way costs {}", way(&next));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// On positions from random games, every candidate is a different turn that plays
    /// without skips, desertions or wasted legions.
    #[test]
    fn candidates_waste_nothing(seed in any::<u64>(), size in 3usize..=9, turns in 0usize..40) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut pos = Position::with_size(size);
        for _ in 0..turns {
            let Some(mv) = pos.random_move(&mut rng) else { break };
            pos.play(&mv).unwrap();
        }
        let mut moves = Vec::new();
        candidates(&pos, &mut rng, &mut moves);
        prop_assert_eq!(moves.is_empty(), pos.to_move().is_none());
        for (i, mv) in moves.iter().enumerate() {
            prop_assert!(!moves[..i].contains(mv));
            let mut next = pos.clone();
            next.play(mv).unwrap();
            prop_assert!(wastes_nothing(&next), "{:?}", next.last_turn());
        }
    }
}

#[test]
fn strong_thickens_its_own_edge_before_sending_a_thin_line_at_the_enemy_city() {
    // Game 1 of `arbiter match legions strong greedy --seed 14` (node-limited,
    // `strong:3000` as player 1), its first 7 turns: `greedy` spreads round its city,
    // `strong` along the bottom row. The `strong` that counted its own way to the enemy
    // city at the end of its line sent a line up column 1 next (1 15 ... 1 11), which
    // `greedy`'s veterans cut off; it lost the game by its city (docs/players.md).
    let turns = [
        "0 1 1; 0 2 1; 0 3 1; 1 1 1; 1 0 1",
        "15 16 1; 14 16 1; 13 16 1; 12 16 1; 11 16 1",
        "2 0 1; 0 4 1; 1 3 1; 0 5 1; 2 1 1",
        "10 16 1; 9 16 1; 8 16 1; 7 16 1; 6 16 1",
        "3 1 1; 1 4 1; 2 3 1; 3 3 1; 1 2 1",
        "5 16 1; 4 16 1; 3 16 1; 2 16 1; 1 16 1",
        "3 0 1; 4 0 1; 4 3 1; 4 1 1; 5 0 1",
    ];
    let mut pos = Position::with_size(17);
    for turn in turns {
        pos.play(&rules::legions::parse_orders(turn)).unwrap();
    }
    let strong = Builtin::parse("strong:3000").expect("a rung");
    for seed in 0..4 {
        let turn = strong.choose(&pos, &mut ChaCha8Rng::seed_from_u64(seed), &|| false).expect("a turn");
        assert!(targets_of(&turn).iter().all(|&(_, y)| y >= 15), "seed {seed}: {turn:?}");
    }
}

/// The seed of part `part` of a run seeded `seed`, as `arbiter` derives it (splitmix64;
/// `crates/players/examples/duel.rs` has the same).
fn derive(seed: u64, part: u64) -> u64 {
    let mut z = seed ^ part.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[test]
fn strong_weighing_greedys_reply_wins_a_game_it_lost_to_greedy() {
    // Game 49 of `arbiter match legions strong greedy --seed 14` with `strong:3000`
    // (player 1 there), each side's randomness seeded as the referee seeds it. The
    // `strong` that answered its turns with `medium`'s reply alone lost it by its city
    // after 187 plies, its lines cut by `greedy`'s veterans; weighing the greedy
    // player's reply too, it takes `greedy`'s city after 184 (docs/players.md).
    let game = 49u64;
    let game_seed = derive(14, game);
    let mut rngs = [0u64, 1].map(|side| ChaCha8Rng::seed_from_u64(game_seed ^ 0x9e37_79b9_7f4a_7c15u64.wrapping_mul(side + 1)));
    let strong = Builtin::parse("strong:3000").expect("a rung");
    let mut pos = Position::with_size(17);
    while let Some(side) = pos.to_move() {
        let player = if side == Side::Second { strong } else { Builtin::GREEDY };
        let mv = player.choose(&pos, &mut rngs[side.index()], &|| false).expect("a turn");
        pos.play(&mv).unwrap();
    }
    assert_eq!(pos.outcome().expect("over").winner, Some(Side::Second), "after {} turns", pos.turn());
}

#[test]
fn two_captures_cut_a_corridor_two_provinces_wide() {
    // Player 1's rows 2 and 3 (10 novices) reach its block round its city only through
    // (3, 4) and (4, 4). Player 0 reaches (4, 4) from (5, 4), and (3, 4) once it holds
    // (4, 4): 4 legions cut the 10 off. Before, 18 : 26; after the two captures 22 : 14
    // (two veterans gained, 12 provinces of player 1's lost); the fifth legion takes an
    // empty province, 23 : 14.
    let pos = board(
        Side::First,
        &[
            "N0 N0 N0 N0 N0 N0 N0 N0",
            "N0 N0 N0 N0 N0 N0 N0 N0",
            "N1 N1 N1 N1 N1 N0 . .",
            "N1 N1 N1 N1 N1 N0 . .",
            ". . . N1 N1 N0 . .",
            ". . . N1 N1 N1 N1 N1",
            ". . . N1 N1 N1 N1 N1",
            ". . . N1 N1 N1 N1 N1",
        ],
    );
    let lead = |pos: &Position| pos.running_scores().map(|s| s[0] - s[1]).unwrap();
    assert_eq!(pos.running_scores(), Some([18, 26]));
    let mut tried = 0;
    let turns = capture_turns(pos.board(), Side::First, false, 3, &mut tried);
    assert!(tried > 10, "{tried} captures tried");
    let best = &turns[0];
    assert_eq!(&best.orders[..2], &Move::sends(&[(4, 4, 2), (3, 4, 2)]).orders[..], "{best:?}");
    let mut next = pos.clone();
    next.play(best).unwrap();
    assert_eq!(next.running_scores(), Some([23, 14]));
    // What the cut gains beyond the two captures' own 3 points each: the 10 cut off.
    assert_eq!(capture_threat(pos.board(), Side::First, false, &mut tried), 10);
    // The greedy player, one capture at a time, does not find it.
    let mut greedy_next = pos.clone();
    greedy_next.play(&greedy(&pos, Side::First)).unwrap();
    assert!(lead(&greedy_next) < 9, "{:?}", greedy_next.last_turn());
    // Player 1's two captures that take the city ((0, 1), then (0, 0)) are not counted
    // (the strike's own checks weigh them); its best cut is (1, 1) and (1, 0), which cut
    // player 0's columns 2 to 7 of rows 0 and 1 and the three provinces below: 15.
    assert_eq!(capture_threat(pos.board(), Side::Second, false, &mut tried), 15);
}

#[test]
fn strong_stops_at_its_cap_whatever_its_clock() {
    // In Legions `strong` stops at 3,000 turns weighed even when its clock would let it
    // go on (weighing more did not play better, docs/players.md): its turns are those
    // of `strong:3000`, so a game at the seed's limits is the node-limited game.
    assert_eq!(Builtin::STRONG.node_limit_in(&Position::with_size(17)), Some(players::legions::STRONG_NODES));
    let mut pos = Position::with_size(17);
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    for _ in 0..24 {
        let mv = Builtin::MEDIUM.choose(&pos, &mut rng, &|| false).expect("a turn");
        pos.play(&mv).unwrap();
    }
    let capped = Builtin::parse("strong:3000").expect("a rung");
    for seed in 0..2 {
        let free = Builtin::STRONG.choose(&pos, &mut ChaCha8Rng::seed_from_u64(seed), &|| false);
        assert_eq!(free, capped.choose(&pos, &mut ChaCha8Rng::seed_from_u64(seed), &|| false), "seed {seed}");
    }
}
