//! Schedules driven to the end by a tiny simulator that "plays" the games `next` asks
//! for (results from each game's seed, or from a script) and feeds them back.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use proptest::prelude::*;
use rules::LimitSet;
use tournament::config::{Format, OpeningsConfig, Scoring, StageConfig, StageFormat, TieBreak};
use tournament::schedule::{self, Next, StageContext, StageResult};
use tournament::{Entrant, EntrantId, GameOutcome, GameSpec, derive_seed, scoring};

fn stage(format: Format) -> StageConfig {
    StageConfig {
        name: "test".to_string(),
        format: format.with_defaults(),
        options: None,
        matches: 1,
        deals: 1,
        swap: false,
        openings: OpeningsConfig::default(),
        scoring: Scoring::Game210,
        tie_breaks: Vec::new(),
        limits: LimitSet::default(),
        allow_replacement: false,
    }
}

fn entrants(n: usize) -> Vec<Entrant> {
    (0..n).map(|id| Entrant { id, name: format!("bot{id}"), bot: "random".to_string(), submitted: None }).collect()
}

fn context<'a>(config: &'a StageConfig, entrants: &'a [Entrant], participants: &'a [EntrantId]) -> StageContext<'a> {
    StageContext { index: 1, config, entrants, participants, baseline: None, n_openings: 0, seed: 7 }
}

/// A game's outcome from its seed and a salt: scores 0..4 each, the higher wins.
fn random_outcome(spec: &GameSpec, salt: u64) -> GameOutcome {
    let r = derive_seed(spec.seed, &salt.to_string());
    let scores = [(r % 4) as i64, ((r >> 8) % 4) as i64];
    outcome(spec, scores[0].cmp(&scores[1]).reverse() as i8, Some(scores))
}

/// An outcome: `-1` side 0 wins, `1` side 1 wins, `0` a draw.
fn outcome(spec: &GameSpec, side0_vs_side1: i8, scores: Option<[i64; 2]>) -> GameOutcome {
    let winner = match side0_vs_side1 {
        -1 => Some(0),
        1 => Some(1),
        _ => None,
    };
    GameOutcome { spec: spec.clone(), winner, scores, fault: None, moves: [10, 10], time_ms: [5, 5] }
}

/// An outcome where `winner` (an entrant, or `None` for a draw) wins.
fn won_by(spec: &GameSpec, winner: Option<EntrantId>) -> GameOutcome {
    let side = winner.map(|w| spec.players.iter().position(|&p| p == w).expect("winner plays"));
    GameOutcome { spec: spec.clone(), winner: side, scores: None, fault: None, moves: [10, 10], time_ms: [5, 5] }
}

/// Drives a stage to the end, playing at most `batch` of the asked games per call.
fn run(
    ctx: &StageContext,
    mut results: Vec<GameOutcome>,
    batch: usize,
    mut play: impl FnMut(&GameSpec) -> GameOutcome,
) -> (StageResult, Vec<GameOutcome>) {
    for _ in 0..10_000 {
        match schedule::next(ctx, &results) {
            Next::Done(result) => return (result, results),
            Next::Play(specs) => {
                assert!(!specs.is_empty());
                let done: BTreeSet<&str> = results.iter().map(|o| o.spec.key.as_str()).collect();
                for spec in &specs {
                    assert!(!done.contains(spec.key.as_str()), "finished game {} asked again", spec.key);
                    assert_eq!(spec.seed, derive_seed(ctx.seed, &spec.key));
                    assert_eq!(spec.stage, ctx.index);
                }
                assert_eq!(schedule::next(ctx, &results), Next::Play(specs.clone()), "next is a pure function");
                let new: Vec<GameOutcome> = specs.iter().take(batch).map(&mut play).collect();
                results.extend(new);
            }
        }
    }
    panic!("the stage never ended");
}

fn keys_unique(results: &[GameOutcome]) {
    let keys: BTreeSet<&str> = results.iter().map(|o| o.spec.key.as_str()).collect();
    assert_eq!(keys.len(), results.len(), "keys are unique");
}

#[test]
fn round_robin_plays_every_pair_the_configured_number_of_times_with_sides_balanced() {
    // (entrants, cycles, matches, deals, swap)
    let cases = [
        (2, 1, 1, 1, false),
        (3, 1, 1, 1, false),
        (4, 1, 1, 1, false),
        (5, 2, 1, 1, false),
        (6, 1, 1, 5, true),
        (6, 3, 1, 3, false),
        (7, 1, 5, 1, true),
        (8, 2, 1, 2, false),
        (9, 1, 1, 3, false),
    ];
    for (n, cycles, matches, deals, swap) in cases {
        let mut config = stage(Format::RoundRobin);
        config.format = StageFormat::RoundRobin { cycles };
        config.matches = matches;
        config.deals = deals;
        config.swap = swap;
        let entrants = entrants(n);
        let participants: Vec<EntrantId> = (0..n).collect();
        let ctx = context(&config, &entrants, &participants);
        let (result, results) = run(&ctx, Vec::new(), usize::MAX, |s| random_outcome(s, 1));
        keys_unique(&results);
        let per_pair = cycles * matches * deals * if swap { 2 } else { 1 };
        let mut pairs: BTreeMap<(EntrantId, EntrantId), u32> = BTreeMap::new();
        let mut sides: BTreeMap<EntrantId, [i64; 2]> = BTreeMap::new();
        for o in &results {
            let [a, b] = o.spec.players;
            *pairs.entry((a.min(b), a.max(b))).or_default() += 1;
            sides.entry(a).or_default()[0] += 1;
            sides.entry(b).or_default()[1] += 1;
        }
        assert_eq!(pairs.len(), n * (n - 1) / 2, "case {n} {cycles} {matches} {deals} {swap}");
        assert!(pairs.values().all(|&c| c == per_pair), "case {n} {cycles} {matches} {deals} {swap}: {pairs:?}");
        for (id, [s0, s1]) in sides {
            assert!((s0 - s1).abs() <= 1, "case {n} {cycles} {matches} {deals} {swap}: entrant {id} side 0 {s0} side 1 {s1}");
        }
        assert_eq!(result.ranking.len(), n);
    }
}

#[test]
fn openings_follow_the_documented_rule() {
    let entrants = entrants(2);
    let participants = [0, 1];
    // Gomoku: default first, then the openings; swap: both games of a deal share it.
    let mut config = stage(Format::RoundRobin);
    config.deals = 5;
    config.swap = true;
    config.openings.default = true;
    let mut ctx = context(&config, &entrants, &participants);
    ctx.n_openings = 3;
    let Next::Play(specs) = schedule::next(&ctx, &[]) else { panic!("games to play") };
    let openings: Vec<_> = specs.iter().map(|s| s.opening).collect();
    assert_eq!(openings, [None, None, Some(0), Some(0), Some(1), Some(1), Some(2), Some(2), Some(0), Some(0)]);
    assert_eq!(specs[0].players, [0, 1]);
    assert_eq!(specs[1].players, [1, 0]);
    assert_eq!(specs[0].key, "s1/r0/0-1/m0/d0/g0");
    assert_eq!(specs[1].key, "s1/r0/0-1/m0/d0/g1");
    assert_eq!(specs[0].match_key, "s1/r0/0-1/m0");
    // Pah-tum: one match per board, no default.
    let mut config = stage(Format::RoundRobin);
    config.matches = 5;
    config.swap = true;
    let mut ctx = context(&config, &entrants, &participants);
    ctx.n_openings = 5;
    let Next::Play(specs) = schedule::next(&ctx, &[]) else { panic!("games to play") };
    let openings: Vec<_> = specs.iter().map(|s| (s.match_key.clone(), s.opening)).collect();
    assert_eq!(openings[0], ("s1/r0/0-1/m0".to_string(), Some(0)));
    assert_eq!(openings[1], ("s1/r0/0-1/m0".to_string(), Some(0)));
    assert_eq!(openings[9], ("s1/r0/0-1/m4".to_string(), Some(4)));
}

/// Checks a finished double elimination: one champion, every other entrant out after
/// exactly two lost matches, except the winners'-bracket champion when it loses the
/// single final (out after that one loss, since there is no reset).
fn check_double_elimination(n: usize, config: &StageConfig, salt: u64) {
    let entrants = entrants(n);
    let participants: Vec<EntrantId> = (0..n).rev().collect();
    let ctx = context(config, &entrants, &participants);
    let (result, results) = run(&ctx, Vec::new(), 3, |s| random_outcome(s, salt));
    keys_unique(&results);
    let mut matches: BTreeMap<&str, Vec<&GameOutcome>> = BTreeMap::new();
    for o in &results {
        matches.entry(o.spec.match_key.as_str()).or_default().push(o);
    }
    let mut losses: BTreeMap<EntrantId, u32> = BTreeMap::new();
    let mut decided = Vec::new();
    for games in matches.values() {
        let [a, b] = games[0].spec.players;
        assert!(games.iter().all(|g| g.spec.players.contains(&a) && g.spec.players.contains(&b)));
        // Level after the extra deals: the earlier submission, here config order.
        let winner = scoring::match_winner(config.scoring, games, a, b).unwrap_or(a.min(b));
        let loser = if winner == a { b } else { a };
        *losses.entry(loser).or_default() += 1;
        decided.push((games[0].spec.round, winner, loser));
    }
    let &(final_round, final_winner, final_loser) = decided.iter().max_by_key(|d| d.0).expect("a final");
    assert_eq!(decided.iter().filter(|d| d.0 == final_round).count(), 1, "the final is played once");
    assert_eq!(result.qualified, vec![final_winner], "one champion");
    assert_eq!(result.ranking.len(), n);
    assert_eq!(result.ranking[..2], [final_winner, final_loser]);
    assert!(losses.get(&final_winner).copied().unwrap_or(0) <= 1);
    let loser_before_final = losses[&final_loser] - 1;
    for &id in &participants {
        if id == final_winner {
            continue;
        }
        let expected = if id == final_loser && loser_before_final == 0 { 1 } else { 2 };
        assert_eq!(losses.get(&id).copied().unwrap_or(0), expected, "n {n} salt {salt}: entrant {id}: {decided:?}");
    }
    // The final's loser from the losers' bracket is out after exactly two losses.
    if loser_before_final > 0 {
        assert_eq!(losses[&final_loser], 2);
    }
    // Matches played: two losses for each entrant out, one for the champion's possible loss.
    assert_eq!(decided.len(), losses.values().sum::<u32>() as usize);
}

#[test]
fn double_elimination_with_4_5_and_8_entrants() {
    let mut config = stage(Format::DoubleElimination);
    config.deals = 1;
    config.swap = true;
    config.format = StageFormat::DoubleElimination { extra_deals: 1 };
    config.scoring = Scoring::ScoreSum;
    for n in [4, 5, 8] {
        for salt in 0..50 {
            check_double_elimination(n, &config, salt);
        }
    }
}

#[test]
fn double_elimination_bracket_shapes() {
    // 4 entrants: winners' 1, losers' 1, winners' final, losers' drop-in, final.
    let b = schedule::bracket(4);
    assert_eq!(b.len(), 6);
    assert_eq!(b.iter().map(|m| m.round).collect::<Vec<_>>(), [0, 0, 1, 2, 3, 4]);
    // 5 entrants: 8 slots, three byes for the top seeds.
    let b = schedule::bracket(5);
    assert_eq!(b[0].sides, [schedule::Source::Seed(0), schedule::Source::Seed(7)]);
    // Matches actually played: 2(n − 1) or 2n − 1.
    assert_eq!(schedule::bracket(8).len(), 4 + 2 + 1 + 2 + 2 + 1 + 1 + 1);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn double_elimination_ends_with_one_champion(n in 2usize..=13, salt in any::<u64>(), swap in any::<bool>(), game_scoring in any::<bool>()) {
        let mut config = stage(Format::DoubleElimination);
        config.deals = 2;
        config.swap = swap;
        config.format = StageFormat::DoubleElimination { extra_deals: 1 };
        config.scoring = if game_scoring { Scoring::Game210 } else { Scoring::Match310 };
        check_double_elimination(n, &config, salt);
    }

    #[test]
    fn resuming_from_any_prefix_gives_the_same_ranking(salt in any::<u64>(), cut in 0.0f64..1.0, format in 0usize..5) {
        let (config, n) = resumable(format);
        let entrants = entrants(n);
        let participants: Vec<EntrantId> = (0..n).collect();
        let ctx = context(&config, &entrants, &participants);
        let (whole, results) = run(&ctx, Vec::new(), 2, |s| random_outcome(s, salt));
        let k = (results.len() as f64 * cut) as usize;
        // The runner passes finished games in any order.
        let prefix: Vec<GameOutcome> = results[..k].iter().rev().cloned().collect();
        let (resumed, again) = run(&ctx, prefix, usize::MAX, |s| random_outcome(s, salt));
        prop_assert_eq!(whole, resumed);
        let played: BTreeSet<&str> = results.iter().map(|o| o.spec.key.as_str()).collect();
        let replayed: BTreeSet<&str> = again.iter().map(|o| o.spec.key.as_str()).collect();
        prop_assert_eq!(played, replayed);
        keys_unique(&again);
    }
}

/// Stages for the resume test, with ties, extra games and knockouts.
fn resumable(which: usize) -> (StageConfig, usize) {
    let tie_breaks = vec![TieBreak::HeadToHead, TieBreak::ExtraGames, TieBreak::Submission];
    let mut config = stage(Format::RoundRobin);
    config.format = match which {
        0 => StageFormat::RoundRobin { cycles: 1 },
        1 => StageFormat::Groups { groups: 2, cycles: 1 },
        2 => StageFormat::DoubleElimination { extra_deals: 1 },
        3 => StageFormat::Swiss { rounds: 3 },
        _ => StageFormat::Final { top: 4, cycles: 1 },
    };
    config.tie_breaks = tie_breaks;
    config.scoring = Scoring::Game1Half0;
    (config, 7)
}

#[test]
fn groups_of_a_power_of_two() {
    assert_eq!(schedule::deal_groups(&[0, 1, 2, 3, 4, 5, 6, 7], 4), [vec![0, 7], vec![1, 6], vec![2, 5], vec![3, 4]]);
    assert_eq!(schedule::deal_groups(&[0, 1, 2, 3, 4, 5], 2), [vec![0, 3, 4], vec![1, 2, 5]]);
    for (n, groups) in [(8, 2), (16, 4), (6, 2), (9, 4), (4, 4)] {
        let mut config = stage(Format::Groups);
        config.format = StageFormat::Groups { groups, cycles: 1 };
        config.swap = true;
        config.scoring = Scoring::ScoreSum;
        config.tie_breaks = vec![TieBreak::Submission];
        let entrants = entrants(n);
        let participants: Vec<EntrantId> = (0..n).collect();
        let ctx = context(&config, &entrants, &participants);
        let (result, results) = run(&ctx, Vec::new(), usize::MAX, |s| random_outcome(s, 3));
        keys_unique(&results);
        let dealt = schedule::deal_groups(&participants, groups as usize);
        assert_eq!(result.qualified.len(), groups as usize);
        assert_eq!(result.ranking[..groups as usize], result.qualified[..]);
        for (group, &leader) in dealt.iter().zip(&result.qualified) {
            assert!(group.contains(&leader));
            // Only games inside a group: every pair of the group twice (swap), no other.
            let inside = results.iter().filter(|o| o.spec.players.iter().all(|p| group.contains(p))).count();
            assert_eq!(inside, group.len() * (group.len() - 1));
            let refs: Vec<&GameOutcome> = results.iter().filter(|o| o.spec.players.iter().all(|p| group.contains(p))).collect();
            let points = scoring::points(config.scoring, &refs);
            let best = group.iter().map(|id| points.get(id).copied().unwrap_or(0.0)).fold(f64::MIN, f64::max);
            assert_eq!(points.get(&leader).copied().unwrap_or(0.0), best, "the leader has the most points");
            // Equal totals: the earlier submission (here config order) leads.
            let first_best = group.iter().copied().filter(|id| points.get(id).copied().unwrap_or(0.0) == best).min();
            assert_eq!(Some(leader), first_best);
        }
        let total: usize = dealt.iter().map(|g| g.len() * (g.len() - 1)).sum();
        assert_eq!(results.len(), total);
    }
}

/// One tie-break case: entrants `A B C D ...` as ids 0.., one game per pair (`A` named
/// by the orientation rule), the pair results, the extra games' results per round.
struct TieCase {
    name: &'static str,
    n: usize,
    scoring: Scoring,
    tie_breaks: Vec<TieBreak>,
    /// Entrants with a submission time.
    submitted: Vec<(EntrantId, &'static str)>,
    /// (x, y, winner): every pair's result; `None` a draw.
    games: Vec<(EntrantId, EntrantId, Option<EntrantId>)>,
    /// Results of extra games by round: (x, y, winner).
    extra: Vec<Vec<(EntrantId, EntrantId, Option<EntrantId>)>>,
    ranking: Vec<EntrantId>,
    /// How many rounds of extra games are played.
    extra_rounds: usize,
}

const A: EntrantId = 0;
const B: EntrantId = 1;
const C: EntrantId = 2;
const D: EntrantId = 3;
const E: EntrantId = 4;

fn tie_cases() -> Vec<TieCase> {
    let all = vec![TieBreak::HeadToHead, TieBreak::SonnebornBerger, TieBreak::ExtraGames, TieBreak::Submission];
    // A and B: 4 points each (2/1/0); A beat B.
    let h2h = vec![(A, B, Some(A)), (A, C, Some(C)), (A, D, Some(A)), (B, C, Some(B)), (B, D, Some(B)), (C, D, None)];
    // A and B: 1.5 each (1/½/0), drew each other; A beat C (2 points), B beat D (1).
    let sb = vec![(A, B, None), (A, C, Some(A)), (A, D, Some(D)), (B, C, Some(C)), (B, D, Some(B)), (C, D, Some(C))];
    // A and B: 1.5 each, drew each other, both beat C: nothing but play or submission.
    let level = vec![(A, B, None), (A, C, Some(A)), (B, C, Some(B))];
    vec![
        TieCase {
            name: "head-to-head decides",
            n: 4,
            scoring: Scoring::Game210,
            tie_breaks: all.clone(),
            submitted: vec![(B, "2004-01-01")],
            games: h2h.clone(),
            extra: vec![],
            ranking: vec![A, B, C, D],
            extra_rounds: 0,
        },
        TieCase {
            name: "sonneborn-berger decides",
            n: 4,
            scoring: Scoring::Game1Half0,
            tie_breaks: all.clone(),
            submitted: vec![(B, "2004-01-01")],
            games: sb.clone(),
            extra: vec![],
            ranking: vec![C, A, B, D],
            extra_rounds: 0,
        },
        TieCase {
            name: "sonneborn-berger listed first decides where head-to-head would not",
            n: 5,
            scoring: Scoring::Game210,
            tie_breaks: vec![TieBreak::SonnebornBerger, TieBreak::HeadToHead],
            submitted: vec![],
            // A and B 4 points; A beat B, but B beat stronger opponents (C and D, 5 points
            // each: 10) than A did (B and E: 6). C and D stay tied (equal SB, drawn).
            games: vec![
                (A, B, Some(A)),
                (A, C, Some(C)),
                (A, D, Some(D)),
                (A, E, Some(A)),
                (B, C, Some(B)),
                (B, D, Some(B)),
                (B, E, Some(E)),
                (C, D, None),
                (C, E, Some(C)),
                (D, E, Some(D)),
            ],
            extra: vec![],
            ranking: vec![C, D, B, A, E],
            extra_rounds: 0,
        },
        TieCase {
            name: "extra games decide in round 1",
            n: 3,
            scoring: Scoring::Game1Half0,
            tie_breaks: all.clone(),
            submitted: vec![(A, "2004-01-01")],
            games: level.clone(),
            extra: vec![vec![(A, B, Some(B))]],
            ranking: vec![B, A, C],
            extra_rounds: 1,
        },
        TieCase {
            name: "extra games decide in round 3",
            n: 3,
            scoring: Scoring::Game1Half0,
            tie_breaks: all.clone(),
            submitted: vec![(A, "2004-01-01")],
            games: level.clone(),
            extra: vec![vec![(A, B, None)], vec![(A, B, None)], vec![(A, B, Some(B))]],
            ranking: vec![B, A, C],
            extra_rounds: 3,
        },
        TieCase {
            name: "three drawn extra rounds: submission decides",
            n: 3,
            scoring: Scoring::Game1Half0,
            tie_breaks: all.clone(),
            submitted: vec![(B, "2004-01-01"), (A, "2004-02-01")],
            games: level.clone(),
            extra: vec![vec![(A, B, None)]; 3],
            ranking: vec![B, A, C],
            extra_rounds: 3,
        },
        TieCase {
            name: "submission decides: earlier first",
            n: 3,
            scoring: Scoring::Game1Half0,
            tie_breaks: vec![TieBreak::HeadToHead, TieBreak::SonnebornBerger, TieBreak::Submission],
            submitted: vec![(B, "2004-01-01"), (A, "2004-02-01")],
            games: level.clone(),
            extra: vec![],
            ranking: vec![B, A, C],
            extra_rounds: 0,
        },
        TieCase {
            name: "submission decides: a known time before an unknown one",
            n: 3,
            scoring: Scoring::Game1Half0,
            tie_breaks: vec![TieBreak::Submission],
            submitted: vec![(B, "2004-01-01")],
            games: level.clone(),
            extra: vec![],
            ranking: vec![B, A, C],
            extra_rounds: 0,
        },
        TieCase {
            name: "submission decides: unknown times in config order",
            n: 3,
            scoring: Scoring::Game1Half0,
            tie_breaks: vec![TieBreak::Submission],
            submitted: vec![],
            games: level.clone(),
            extra: vec![],
            ranking: vec![A, B, C],
            extra_rounds: 0,
        },
        TieCase {
            name: "no tie-break: seeding order stays",
            n: 3,
            scoring: Scoring::Game1Half0,
            tie_breaks: vec![],
            submitted: vec![],
            games: level,
            extra: vec![],
            ranking: vec![A, B, C],
            extra_rounds: 0,
        },
    ]
}

fn pair_result(list: &[(EntrantId, EntrantId, Option<EntrantId>)], players: [EntrantId; 2]) -> Option<EntrantId> {
    list.iter()
        .find(|(x, y, _)| players.contains(x) && players.contains(y))
        .unwrap_or_else(|| panic!("no scripted result for {players:?}"))
        .2
}

#[test]
fn tie_breaks_resolve_in_the_documented_order() {
    for case in tie_cases() {
        let mut config = stage(Format::RoundRobin);
        config.scoring = case.scoring;
        config.tie_breaks = case.tie_breaks.clone();
        let mut entrants = entrants(case.n);
        for &(id, when) in &case.submitted {
            entrants[id].submitted = Some(when.to_string());
        }
        let participants: Vec<EntrantId> = (0..case.n).collect();
        let ctx = context(&config, &entrants, &participants);
        let (result, results) = run(&ctx, Vec::new(), usize::MAX, |spec| {
            let tag = spec.key.split('/').nth(1).expect("a round tag");
            match tag.strip_prefix('x') {
                Some(t) => won_by(spec, pair_result(&case.extra[t.parse::<usize>().expect("round") - 1], spec.players)),
                None => won_by(spec, pair_result(&case.games, spec.players)),
            }
        });
        assert_eq!(result.ranking, case.ranking, "{}", case.name);
        let extra_rounds: BTreeSet<&str> =
            results.iter().filter(|o| schedule::is_extra_game(&o.spec)).map(|o| o.spec.key.split('/').nth(1).expect("tag")).collect();
        assert_eq!(extra_rounds.len(), case.extra_rounds, "{}", case.name);
        // Standings agree with the stage's result.
        let table = tournament::standings::standings(&config, &participants, &entrants, &results);
        assert_eq!(table.rows.iter().map(|r| r.entrant).collect::<Vec<_>>(), case.ranking, "{}", case.name);
    }
}

#[test]
fn extra_games_only_where_a_tie_matters() {
    // In groups only a tie for first place gets extra games: A and B tie for first in
    // group 0 and play; C and D tie for second... not leading, no extra games.
    let mut config = stage(Format::Groups);
    config.format = StageFormat::Groups { groups: 1, cycles: 1 };
    config.scoring = Scoring::Game1Half0;
    config.tie_breaks = vec![TieBreak::ExtraGames, TieBreak::Submission];
    let entrants = entrants(4);
    let participants = [A, B, C, D];
    let ctx = context(&config, &entrants, &participants);
    let games = [(A, B, None), (A, C, Some(A)), (A, D, Some(A)), (B, C, Some(B)), (B, D, Some(B)), (C, D, None)];
    let (result, results) = run(&ctx, Vec::new(), usize::MAX, |spec| {
        if schedule::is_extra_game(spec) { won_by(spec, Some(B)) } else { won_by(spec, pair_result(&games, spec.players)) }
    });
    assert_eq!(result.ranking, [B, A, C, D]);
    let extra: Vec<_> = results.iter().filter(|o| schedule::is_extra_game(&o.spec)).map(|o| o.spec.players).collect();
    assert_eq!(extra.len(), 1);
    assert!(extra[0].contains(&A) && extra[0].contains(&B));
}

/// Whether `pool` can be paired with no pair in `met`.
fn rematch_free_pairing_exists(pool: &[EntrantId], met: &BTreeSet<(EntrantId, EntrantId)>) -> bool {
    let Some((&x, rest)) = pool.split_first() else { return true };
    rest.iter().enumerate().any(|(j, &y)| {
        let mut others = rest.to_vec();
        others.remove(j);
        !met.contains(&(x.min(y), x.max(y))) && rematch_free_pairing_exists(&others, met)
    })
}

#[test]
fn swiss_has_no_rematch_when_avoidable() {
    for (n, rounds) in [(8, 3), (8, 7), (7, 5), (10, 6), (6, 5), (5, 6)] {
        for salt in 0..20 {
            let mut config = stage(Format::Swiss);
            config.format = StageFormat::Swiss { rounds };
            config.scoring = Scoring::Game1Half0;
            let entrants = entrants(n);
            let participants: Vec<EntrantId> = (0..n).collect();
            let ctx = context(&config, &entrants, &participants);
            let (result, results) = run(&ctx, Vec::new(), usize::MAX, |s| random_outcome(s, salt));
            keys_unique(&results);
            assert_eq!(result.ranking.len(), n);
            let (paired, complete) = schedule::swiss_rounds(&ctx, &results);
            assert!(complete);
            assert_eq!(paired.len(), rounds as usize);
            let mut met = BTreeSet::new();
            let mut byes = Vec::new();
            for round in &paired {
                let rematches = round.pairs.iter().filter(|(x, y)| met.contains(&(*x.min(y), *x.max(y)))).count();
                if rematches > 0 {
                    let pool: Vec<EntrantId> = round.pairs.iter().flat_map(|&(x, y)| [x, y]).collect();
                    assert!(!rematch_free_pairing_exists(&pool, &met), "n {n} salt {salt}: an avoidable rematch");
                }
                let mut seen: Vec<EntrantId> = round.pairs.iter().flat_map(|&(x, y)| [x, y]).chain(round.bye).collect();
                seen.sort();
                assert_eq!(seen, participants, "everyone plays or has the bye");
                met.extend(round.pairs.iter().map(|&(x, y)| (x.min(y), x.max(y))));
                byes.extend(round.bye);
            }
            assert_eq!(byes.len(), if n % 2 == 1 { rounds as usize } else { 0 });
            let distinct: BTreeSet<_> = byes.iter().collect();
            assert_eq!(distinct.len(), byes.len().min(n), "no second bye while someone has had none");
            if n == 8 && rounds == 3 {
                assert!(met.len() == 12, "three rounds of 8 without rematches");
            }
        }
    }
}

#[test]
fn entry_check_passes_winners_and_says_why_others_failed() {
    let mut config = stage(Format::EntryCheck);
    config.deals = 2;
    config.swap = true;
    let entrants = entrants(5);
    let participants = [0, 1, 2, 3];
    let mut ctx = context(&config, &entrants, &participants);
    ctx.baseline = Some(4);
    // 0 wins all, 1 wins one game of four (loses 2-6), 2 wins two (draws 4-4), 3 wins three.
    let wins: HashMap<EntrantId, usize> = HashMap::from([(0, 4), (1, 1), (2, 2), (3, 3)]);
    let (result, results) = run(&ctx, Vec::new(), usize::MAX, |spec| {
        let p = if spec.players[0] == 4 { spec.players[1] } else { spec.players[0] };
        let parts: Vec<usize> = spec.key.rsplit('/').take(2).map(|t| t[1..].parse().expect("index")).collect();
        let game = parts[1] * 2 + parts[0];
        won_by(spec, Some(if game < wins[&p] { p } else { 4 }))
    });
    assert_eq!(results.len(), 16);
    assert!(results.iter().all(|o| o.spec.players.contains(&4)));
    assert_eq!(result.qualified, [0, 3]);
    assert_eq!(
        result.failed,
        [(1, "lost its match against the baseline 2-6".to_string()), (2, "drew its match against the baseline 4-4".to_string())]
    );
    assert_eq!(result.ranking, [0, 3, 1, 2]);
}

#[test]
fn final_takes_the_top_and_gauntlet_plays_the_challenger() {
    let mut config = stage(Format::Final);
    config.format = StageFormat::Final { top: 3, cycles: 3 };
    config.swap = true;
    let entrants = entrants(6);
    let participants = [5, 4, 3, 2, 1, 0];
    let ctx = context(&config, &entrants, &participants);
    let (result, results) = run(&ctx, Vec::new(), usize::MAX, |s| random_outcome(s, 9));
    assert_eq!(results.len(), 3 * 3 * 2);
    assert!(results.iter().all(|o| o.spec.players.iter().all(|p| [5, 4, 3].contains(p))));
    assert_eq!(result.ranking[3..], [2, 1, 0]);

    let mut config = stage(Format::Gauntlet);
    config.format = StageFormat::Gauntlet { challenger: "bot2".to_string() };
    config.deals = 3;
    let ctx = context(&config, &entrants, &participants);
    let (result, results) = run(&ctx, Vec::new(), usize::MAX, |s| random_outcome(s, 9));
    assert_eq!(results.len(), 5 * 3);
    assert!(results.iter().all(|o| o.spec.players.contains(&2)));
    let side0 = results.iter().filter(|o| o.spec.players[0] == 2).count();
    assert!(side0.abs_diff(results.len() - side0) <= 1);
    assert_eq!(result.ranking.len(), 6);
}
