//! Scoring: the points a stage's scoring gives each entrant for a set of finished games,
//! what decides a match between two entrants, and Sonneborn–Berger.
//!
//! - `game-2-1-0` and `game-1-half-0`: points per game (2/1/0 and 1/½/0).
//! - `match-3-1-0`: the games are grouped by `match_key`; in each match an entrant's
//!   margin is the sum over the match's games of its score minus the opponent's (a
//!   forfeit already carries 1666:0 in `scores`; a game without scores counts +1 for the
//!   winner, −1 for the loser, 0 for a draw); a positive margin is a match win (3), zero a
//!   drawn match (1), negative a lost match (0).
//! - `score-sum`: an entrant's points are the sum of its own game scores (a game without
//!   scores adds nothing).

use std::collections::BTreeMap;

use crate::config::Scoring;
use crate::{EntrantId, GameOutcome};

/// What one game scores for each side under a per-game scoring.
fn game_points(scoring: Scoring, game: &GameOutcome) -> [f64; 2] {
    let (win, draw) = match scoring {
        Scoring::Game210 => (2.0, 1.0),
        Scoring::Game1Half0 => (1.0, 0.5),
        Scoring::Match310 | Scoring::ScoreSum => unreachable!("not a per-game scoring"),
    };
    match game.winner {
        Some(0) => [win, 0.0],
        Some(_) => [0.0, win],
        None => [draw, draw],
    }
}

/// Side 0's score minus side 1's in one game (a game without scores: ±1 by its winner).
fn margin(game: &GameOutcome) -> i64 {
    match (game.scores, game.winner) {
        (Some([a, b]), _) => a - b,
        (None, Some(0)) => 1,
        (None, Some(_)) => -1,
        (None, None) => 0,
    }
}

/// Groups games by match key, keeping the order in which match keys first appear.
fn by_match<'a>(games: &[&'a GameOutcome]) -> Vec<Vec<&'a GameOutcome>> {
    let mut index: BTreeMap<&str, usize> = BTreeMap::new();
    let mut matches: Vec<Vec<&GameOutcome>> = Vec::new();
    for &game in games {
        let i = *index.entry(game.spec.match_key.as_str()).or_insert_with(|| {
            matches.push(Vec::new());
            matches.len() - 1
        });
        matches[i].push(game);
    }
    matches
}

/// Each entrant's margin over one match's games, for its two players.
fn match_margins(games: &[&GameOutcome]) -> BTreeMap<EntrantId, i64> {
    let mut margins = BTreeMap::new();
    for game in games {
        let m = margin(game);
        *margins.entry(game.spec.players[0]).or_insert(0) += m;
        *margins.entry(game.spec.players[1]).or_insert(0) -= m;
    }
    margins
}

/// Every entrant's points over these games under `scoring` (entrants that played none
/// are absent).
pub fn points(scoring: Scoring, games: &[&GameOutcome]) -> BTreeMap<EntrantId, f64> {
    let mut points = BTreeMap::new();
    match scoring {
        Scoring::Game210 | Scoring::Game1Half0 => {
            for game in games {
                for (&id, p) in game.spec.players.iter().zip(game_points(scoring, game)) {
                    *points.entry(id).or_insert(0.0) += p;
                }
            }
        }
        Scoring::ScoreSum => {
            for game in games {
                for (&id, score) in game.spec.players.iter().zip(game.scores.unwrap_or([0, 0])) {
                    *points.entry(id).or_insert(0.0) += score as f64;
                }
            }
        }
        Scoring::Match310 => {
            for games in by_match(games) {
                for (id, m) in match_margins(&games) {
                    *points.entry(id).or_insert(0.0) += match m.signum() {
                        1 => 3.0,
                        0 => 1.0,
                        _ => 0.0,
                    };
                }
            }
        }
    }
    points
}

/// What decides a match between `a` and `b` over its games: the per-game points
/// (`game-*`), the sum of score differences (`match-3-1-0`) or the sum of own game
/// scores (`score-sum`). Returns `a`'s and `b`'s totals.
pub fn match_totals(scoring: Scoring, games: &[&GameOutcome], a: EntrantId, b: EntrantId) -> (f64, f64) {
    match scoring {
        Scoring::Match310 => {
            let margins = match_margins(games);
            let of = |id| margins.get(&id).copied().unwrap_or(0) as f64;
            (of(a), of(b))
        }
        _ => {
            let points = points(scoring, games);
            let of = |id| points.get(&id).copied().unwrap_or(0.0);
            (of(a), of(b))
        }
    }
}

/// The winner of a match between `a` and `b` by its totals, `None` when level.
pub fn match_winner(scoring: Scoring, games: &[&GameOutcome], a: EntrantId, b: EntrantId) -> Option<EntrantId> {
    let (ta, tb) = match_totals(scoring, games, a, b);
    if ta > tb {
        Some(a)
    } else if tb > ta {
        Some(b)
    } else {
        None
    }
}

/// The results that Sonneborn–Berger weighs: (entrant, opponent, result for the entrant:
/// 1 win, ½ draw, 0 loss), per game, or per match under `match-3-1-0`.
fn results(scoring: Scoring, games: &[&GameOutcome]) -> Vec<(EntrantId, EntrantId, f64)> {
    let mut out = Vec::new();
    let mut push = |a: EntrantId, b: EntrantId, sign: i64| {
        let r = match sign.signum() {
            1 => 1.0,
            0 => 0.5,
            _ => 0.0,
        };
        out.push((a, b, r));
        out.push((b, a, 1.0 - r));
    };
    if scoring == Scoring::Match310 {
        for games in by_match(games) {
            let [a, b] = games[0].spec.players;
            push(a, b, match_margins(&games).get(&a).copied().unwrap_or(0));
        }
    } else {
        for game in games {
            let sign = match game.winner {
                Some(0) => 1,
                Some(_) => -1,
                None => 0,
            };
            push(game.spec.players[0], game.spec.players[1], sign);
        }
    }
    out
}

/// Sonneborn–Berger: for each entrant, the sum of the total points (`totals`) of the
/// opponents it beat plus half of those it drew, per game (per match under
/// `match-3-1-0`; by the game's winner under `score-sum`).
pub fn sonneborn_berger(scoring: Scoring, games: &[&GameOutcome], totals: &BTreeMap<EntrantId, f64>) -> BTreeMap<EntrantId, f64> {
    let mut sb = BTreeMap::new();
    for (id, opponent, r) in results(scoring, games) {
        *sb.entry(id).or_insert(0.0) += r * totals.get(&opponent).copied().unwrap_or(0.0);
    }
    sb
}

/// The points of a match won by default (a Swiss bye): every game of a match won under
/// per-game scorings, 3 under `match-3-1-0`, nothing under `score-sum` (no scores exist).
pub fn bye_points(scoring: Scoring, games_per_match: u32) -> f64 {
    match scoring {
        Scoring::Game210 => 2.0 * f64::from(games_per_match),
        Scoring::Game1Half0 => f64::from(games_per_match),
        Scoring::Match310 => 3.0,
        Scoring::ScoreSum => 0.0,
    }
}

/// Points as people write them: `3`, `2.5`.
pub fn format_points(p: f64) -> String {
    if p.fract() == 0.0 { format!("{p:.0}") } else { format!("{p}") }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::GameSpec;

    fn game(match_key: &str, players: [EntrantId; 2], winner: Option<usize>, scores: Option<[i64; 2]>) -> GameOutcome {
        GameOutcome {
            spec: GameSpec {
                key: format!("{match_key}/{players:?}/{winner:?}/{scores:?}"),
                stage: 0,
                round: 0,
                match_key: match_key.to_string(),
                players,
                opening: None,
                seed: 0,
            },
            winner,
            scores,
            fault: None,
            moves: [0, 0],
            time_ms: [0, 0],
        }
    }

    #[test]
    fn per_game_scorings() {
        let games = [game("m", [0, 1], Some(0), None), game("m", [1, 0], None, None)];
        let refs: Vec<_> = games.iter().collect();
        assert_eq!(points(Scoring::Game210, &refs), BTreeMap::from([(0, 3.0), (1, 1.0)]));
        assert_eq!(points(Scoring::Game1Half0, &refs), BTreeMap::from([(0, 1.5), (1, 0.5)]));
    }

    #[test]
    fn match_3_1_0_by_sum_of_score_differences() {
        // The Pah-tum seed's example: A wins game 1 by 10, B wins game 2 by 25: B wins.
        let games = [game("m", [0, 1], Some(0), Some([30, 20])), game("m", [1, 0], Some(0), Some([40, 15]))];
        let refs: Vec<_> = games.iter().collect();
        assert_eq!(points(Scoring::Match310, &refs), BTreeMap::from([(0, 0.0), (1, 3.0)]));
        assert_eq!(match_winner(Scoring::Match310, &refs, 0, 1), Some(1));
        // A forfeit carries 1666:0.
        let games = [game("m", [0, 1], Some(0), Some([1666, 0])), game("m", [1, 0], Some(0), Some([1666, 0]))];
        let refs: Vec<_> = games.iter().collect();
        assert_eq!(points(Scoring::Match310, &refs), BTreeMap::from([(0, 1.0), (1, 1.0)]));
        assert_eq!(match_winner(Scoring::Match310, &refs, 0, 1), None);
    }

    #[test]
    fn score_sum_and_its_match_winner() {
        let games = [game("m", [0, 1], Some(0), Some([50, 14])), game("m", [1, 0], Some(0), Some([60, 10]))];
        let refs: Vec<_> = games.iter().collect();
        assert_eq!(points(Scoring::ScoreSum, &refs), BTreeMap::from([(0, 60.0), (1, 74.0)]));
        assert_eq!(match_winner(Scoring::ScoreSum, &refs, 0, 1), Some(1));
    }

    #[test]
    fn sonneborn_berger_weighs_beaten_opponents() {
        let games = [game("a", [0, 1], Some(0), None), game("b", [0, 2], None, None), game("c", [1, 2], Some(1), None)];
        let refs: Vec<_> = games.iter().collect();
        let totals = points(Scoring::Game1Half0, &refs);
        let sb = sonneborn_berger(Scoring::Game1Half0, &refs, &totals);
        // 0 beat 1 (0 points) and drew 2 (1.5 points): 0.75.
        assert_eq!(sb[&0], 0.75);
        assert_eq!(sb[&2], 0.75);
        assert_eq!(sb[&1], 0.0);
    }

    #[test]
    fn points_as_text() {
        assert_eq!(format_points(3.0), "3");
        assert_eq!(format_points(2.5), "2.5");
    }
}
