//! A continuous ladder without I/O: ratings after each game and the next pairing.
//!
//! Ratings are Weng-Lin (the Bayesian model of OpenSkill) from the `skillratings` crate:
//! each player has a rating μ and an uncertainty σ, both updated after every single game,
//! so a ladder needs no rating periods (Glicko-2 wants games batched into periods, which
//! a ladder that plays around the clock does not have) and a new version starts with
//! the full default uncertainty and moves fast until its games pin it down.
//!
//! Bosses (built-in players) are fixed anchors: their ratings never move, so a ladder's
//! scale stays put however many bots come and go, and "above greedy" keeps its meaning
//! (CodinGame's leagues: a bot rated above a boss has passed it).

use skillratings::Outcomes;
use skillratings::weng_lin::{WengLinConfig, WengLinRating, expected_score, weng_lin};

/// The rating a new version starts with (the model's default μ).
pub const START_RATING: f64 = 25.0;
/// The uncertainty a new version starts with (the model's default σ = 25/3).
pub const START_UNCERTAINTY: f64 = 25.0 / 3.0;
/// A boss's fixed uncertainty: small, since its rating is a definition, not an estimate.
pub const BOSS_UNCERTAINTY: f64 = 1.0;
/// How far apart the bosses are anchored, in rating points.
pub const BOSS_STEP: f64 = 10.0;

/// The fixed rating of the `index`th of `count` bosses (weakest first): spaced
/// [`BOSS_STEP`] apart and centred on [`START_RATING`], so that a new bot starts among
/// them.
pub fn boss_rating(index: usize, count: usize) -> f64 {
    START_RATING + BOSS_STEP * (index as f64 - (count.saturating_sub(1)) as f64 / 2.0)
}

/// A player's standing as the rating model sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rating {
    pub rating: f64,
    pub uncertainty: f64,
}

impl Rating {
    pub fn new() -> Rating {
        Rating { rating: START_RATING, uncertainty: START_UNCERTAINTY }
    }
}

impl Default for Rating {
    fn default() -> Rating {
        Rating::new()
    }
}

fn model(r: Rating) -> WengLinRating {
    WengLinRating { rating: r.rating, uncertainty: r.uncertainty }
}

/// The ratings after one game between `a` and `b` (`winner`: 0 for `a`, 1 for `b`, `None`
/// a draw). A boss (`fixed`) keeps its rating; its opponent is rated against it as usual.
pub fn rate(a: Rating, b: Rating, winner: Option<usize>, fixed: [bool; 2]) -> (Rating, Rating) {
    let outcome = match winner {
        Some(0) => Outcomes::WIN,
        Some(_) => Outcomes::LOSS,
        None => Outcomes::DRAW,
    };
    let (new_a, new_b) = weng_lin(&model(a), &model(b), &outcome, &WengLinConfig::new());
    let back = |r: WengLinRating| Rating { rating: r.rating, uncertainty: r.uncertainty };
    (if fixed[0] { a } else { back(new_a) }, if fixed[1] { b } else { back(new_b) })
}

/// The score `a` is expected to make against `b` (0 to 1).
pub fn expected(a: Rating, b: Rating) -> f64 {
    expected_score(&model(a), &model(b), &WengLinConfig::new()).0
}

/// A player as the pairing sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    /// Unique within the ladder.
    pub key: String,
    pub rating: Rating,
    pub games: u32,
    pub boss: bool,
    /// In a game now.
    pub busy: bool,
    /// Its games among the ladder's recent ones ([`Window`]).
    pub recent: u32,
}

/// The ladder's recent games, by which a bot's share is bounded: a bot that finishes
/// games fast (one that crashes at once, say) must not take the ladder over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    /// How many games the window holds (the ladder's last ones, up to [`window_size`]).
    pub games: u32,
}

/// The recent games counted for `bots` players that are not bosses: four per bot, at
/// least 20.
pub fn window_size(bots: usize) -> usize {
    (4 * bots).max(20)
}

/// The largest share of the recent games a bot may have played and still be paired:
/// three times its fair share, at least a quarter (with fewer than four bots, no bound).
/// Bots over it wait until the others have played; since the shares of a window sum to
/// at most 2 (two players a game), fewer than two thirds of the bots can be over it at
/// once, so the ladder never stops for it.
pub fn share_cap(bots: usize) -> f64 {
    (3.0 / bots.max(1) as f64).max(0.25)
}

/// The next game: the free non-boss player the ladder knows least about (highest
/// uncertainty, then fewest games, then key), against the free player nearest its rating
/// (then fewest games, then key). Bosses never play each other; a bot over its share of
/// the recent games ([`share_cap`]) waits. `None` when no pair is free. Deterministic:
/// the same candidates give the same pair.
pub fn next_pair(candidates: &[Candidate], window: Window) -> Option<(usize, usize)> {
    let bots = candidates.iter().filter(|c| !c.boss).count();
    let cap = share_cap(bots) * f64::from(window.games);
    let within = |c: &Candidate| c.boss || f64::from(c.recent) <= cap || window.games == 0;
    let free = |c: &&Candidate| !c.busy && within(c);
    let (first, player) = candidates.iter().enumerate().filter(|(_, c)| free(c) && !c.boss).min_by(|(_, x), (_, y)| {
        y.rating.uncertainty.total_cmp(&x.rating.uncertainty).then(x.games.cmp(&y.games)).then_with(|| x.key.cmp(&y.key))
    })?;
    let (second, _) = candidates.iter().enumerate().filter(|(i, c)| *i != first && free(c)).min_by(|(_, x), (_, y)| {
        let dx = (x.rating.rating - player.rating.rating).abs();
        let dy = (y.rating.rating - player.rating.rating).abs();
        dx.total_cmp(&dy).then(x.games.cmp(&y.games)).then_with(|| x.key.cmp(&y.key))
    })?;
    Some((first, second))
}

/// How many of the bosses (ratings weakest first) a rating has passed: its league, 0
/// below the first boss.
pub fn league(rating: f64, bosses: &[f64]) -> usize {
    bosses.iter().take_while(|&&boss| rating > boss).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn candidate(key: &str, rating: f64, uncertainty: f64, games: u32, boss: bool) -> Candidate {
        Candidate { key: key.into(), rating: Rating { rating, uncertainty }, games, boss, busy: false, recent: 0 }
    }

    const NO_WINDOW: Window = Window { games: 0 };

    #[test]
    fn bosses_are_spaced_around_the_start_rating() {
        let ratings: Vec<f64> = (0..3).map(|i| boss_rating(i, 3)).collect();
        assert_eq!(ratings, [15.0, 25.0, 35.0]);
        assert_eq!(boss_rating(0, 1), 25.0);
        assert_eq!(league(26.0, &ratings), 2);
        assert_eq!(league(10.0, &ratings), 0);
    }

    #[test]
    fn a_win_raises_the_winner_and_narrows_both_and_a_boss_stays_fixed() {
        let (a, b) = rate(Rating::new(), Rating::new(), Some(0), [false, false]);
        assert!(a.rating > START_RATING && b.rating < START_RATING, "{a:?} {b:?}");
        assert!(a.uncertainty < START_UNCERTAINTY && b.uncertainty < START_UNCERTAINTY);
        // The same game with the loser fixed: only the winner moves.
        let boss = Rating { rating: 25.0, uncertainty: BOSS_UNCERTAINTY };
        let (a, b) = rate(Rating::new(), boss, Some(0), [false, true]);
        assert!(a.rating > START_RATING);
        assert_eq!(b, boss);
        // A draw between equals changes no rating.
        let (a, b) = rate(Rating::new(), Rating::new(), None, [false, false]);
        assert!((a.rating - START_RATING).abs() < 1e-9 && (b.rating - START_RATING).abs() < 1e-9);
        assert!((expected(Rating::new(), Rating::new()) - 0.5).abs() < 1e-9);
    }

    #[test]
    fn the_most_uncertain_free_player_meets_the_nearest_free_rating() {
        // Table: candidates, expected pair by key.
        let boss = |k: &str, r: f64| candidate(k, r, BOSS_UNCERTAINTY, 0, true);
        type Case<'a> = (Vec<Candidate>, Option<(&'a str, &'a str)>);
        let cases: Vec<Case> = vec![
            (vec![boss("greedy", 15.0), boss("medium", 25.0), boss("strong", 35.0)], None),
            (vec![boss("greedy", 15.0), boss("medium", 25.0), candidate("new", 25.0, 8.3, 0, false)], Some(("new", "medium"))),
            (
                vec![boss("greedy", 15.0), candidate("old", 16.0, 2.0, 40, false), candidate("new", 25.0, 8.3, 0, false)],
                Some(("new", "old")),
            ),
            (vec![candidate("a", 30.0, 3.0, 10, false), candidate("b", 20.0, 3.0, 9, false), boss("medium", 25.0)], Some(("b", "medium"))),
            (vec![candidate("alone", 25.0, 8.3, 0, false)], None),
        ];
        for (candidates, expected) in cases {
            let pair = next_pair(&candidates, NO_WINDOW).map(|(a, b)| (candidates[a].key.as_str(), candidates[b].key.as_str()));
            assert_eq!(pair, expected, "{candidates:?}");
        }
        // A busy player is skipped on both ends.
        let mut candidates = vec![boss("medium", 25.0), candidate("new", 25.0, 8.3, 0, false), candidate("x", 40.0, 2.0, 5, false)];
        candidates[0].busy = true;
        assert_eq!(next_pair(&candidates, NO_WINDOW), Some((1, 2)));
        candidates[2].busy = true;
        assert_eq!(next_pair(&candidates, NO_WINDOW), None);
    }

    #[test]
    fn a_bot_over_its_share_of_the_recent_games_waits_and_the_ladder_never_stops() {
        // Twelve bots: the cap is a quarter of the window. "fast" played 10 of the last
        // 20 games (it crashes at once): it waits, though it is the most uncertain.
        let mut candidates: Vec<Candidate> = (0..11).map(|n| candidate(&format!("b{n:02}"), 25.0, 3.0, 8, false)).collect();
        let mut fast = candidate("fast", 25.0, 8.0, 10, false);
        fast.recent = 10;
        candidates.push(fast);
        candidates.push(candidate("greedy", 25.0, BOSS_UNCERTAINTY, 0, true));
        let window = Window { games: 20 };
        let (a, b) = next_pair(&candidates, window).expect("a pair");
        assert!(candidates[a].key != "fast" && candidates[b].key != "fast", "{} {}", candidates[a].key, candidates[b].key);
        // Within its share, it is first again.
        candidates[11].recent = 5;
        assert_eq!(candidates[next_pair(&candidates, window).unwrap().0].key, "fast");
        // Fewer than four bots: no bound.
        let mut few = vec![candidate("x", 25.0, 8.0, 20, false), candidate("y", 25.0, 2.0, 0, false)];
        few[0].recent = 20;
        assert_eq!(next_pair(&few, window), Some((0, 1)));
    }

    proptest::proptest! {
        /// Whatever the recent games (each with two players, or one bot and a boss),
        /// some pair can always be formed once every player is free: the bound never
        /// stops a ladder with at least two bots and a boss.
        #[test]
        fn the_share_bound_never_stops_the_ladder(bots in 2usize..30, games in proptest::collection::vec((0usize..30, 0usize..31), 1..120)) {
            let mut recent = vec![0u32; bots];
            let window = games.len().min(window_size(bots));
            for &(a, b) in &games[games.len() - window..] {
                let a = a % bots;
                recent[a] += 1;
                // b == bots plays the boss.
                let b = b % (bots + 1);
                if b < bots && b != a {
                    recent[b] += 1;
                }
            }
            let mut candidates: Vec<Candidate> = (0..bots).map(|n| {
                let mut c = candidate(&format!("b{n:02}"), 25.0, 3.0, 0, false);
                c.recent = recent[n];
                c
            }).collect();
            candidates.push(candidate("boss", 25.0, BOSS_UNCERTAINTY, 0, true));
            let window = Window { games: window as u32 };
            proptest::prop_assert!(next_pair(&candidates, window).is_some(), "no pair: {:?}", recent);
        }
    }
}
