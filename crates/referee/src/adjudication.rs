//! Adjudication: ending a game on the engines' own scores before the rules end it, as
//! fastchess's `-resign`, `-draw` and `-maxmoves` do, so that lost and dead games do not
//! take the match's time. Pure: the referee feeds it each move's score (UCI's last
//! `info ... score`, from the mover's point of view) and asks for a verdict.
//!
//! - Resign (`movecount=N,score=S`): a side whose own score is `S` centipawns or more
//!   below zero, or a mate against it, for `N` of its moves in a row loses. With
//!   `twosided=true` both sides must agree: `2N` moves in a row (of either side) whose
//!   score is at least `S` from zero or a mate, and the side whose score is below zero
//!   then loses.
//! - Draw (`movenumber=M,movecount=N,score=S`): once at least `M` full moves are played,
//!   `2N` moves in a row (both sides') with a score within `S` centipawns of zero draw.
//!   (fastchess also restarts this count at a capture or a pawn move; this referee does
//!   not know which moves those are, so it does not.)
//! - Max moves (`maxmoves=M`): a draw once `M` full moves are played.
//!
//! A move without a score (an engine that says none, a built-in player) breaks every
//! streak.

use std::str::FromStr;

use rules::Side;

/// What a side's move said of the position, for adjudication: centipawns, or a mate in
/// so many moves (negative: being mated), from the mover's point of view.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Score {
    Cp(i32),
    Mate(i32),
}

impl Score {
    /// A score from a move's analysis, `None` without one.
    pub fn of(analysis: Option<&bots::Analysis>) -> Option<Score> {
        let analysis = analysis?;
        analysis.mate.map(Score::Mate).or(analysis.cp.map(Score::Cp))
    }
}

/// The resign rule.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Resign {
    pub move_count: u32,
    pub score: i32,
    pub two_sided: bool,
}

/// The draw rule.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Draw {
    pub move_number: u32,
    pub move_count: u32,
    pub score: i32,
}

/// The adjudication rules of a match; each optional.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Adjudication {
    pub resign: Option<Resign>,
    pub draw: Option<Draw>,
    pub max_moves: Option<u32>,
}

/// A decision: the winner (`None` a draw) and why, in words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    pub winner: Option<Side>,
    pub detail: String,
}

/// Why an adjudication rule could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ParseError(String);

/// Reads `key=value` pairs separated by commas or spaces into (key, value).
fn pairs(text: &str) -> Result<Vec<(String, String)>, ParseError> {
    text.split([',', ' '])
        .filter(|part| !part.trim().is_empty())
        .map(|part| {
            part.split_once('=')
                .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
                .ok_or_else(|| ParseError(format!("{part:?} is not key=value")))
        })
        .collect()
}

fn number<T: FromStr>(key: &str, value: &str) -> Result<T, ParseError> {
    value.parse().map_err(|_| ParseError(format!("{key}={value:?} is not a whole number")))
}

impl FromStr for Resign {
    type Err = ParseError;

    /// `movecount=3,score=600[,twosided=true]`.
    fn from_str(text: &str) -> Result<Resign, ParseError> {
        let (mut move_count, mut score, mut two_sided) = (None, None, false);
        for (key, value) in pairs(text)? {
            match key.as_str() {
                "movecount" => move_count = Some(number::<u32>(&key, &value)?),
                "score" => score = Some(number::<i32>(&key, &value)?),
                "twosided" => two_sided = value.parse().map_err(|_| ParseError(format!("twosided={value:?} is not true or false")))?,
                _ => return Err(ParseError(format!("unknown key {key:?} (movecount, score, twosided)"))),
            }
        }
        let move_count = move_count.filter(|&n| n > 0).ok_or_else(|| ParseError("movecount=N (at least 1) is missing".to_string()))?;
        let score = score.filter(|&s| s > 0).ok_or_else(|| ParseError("score=CENTIPAWNS (above 0) is missing".to_string()))?;
        Ok(Resign { move_count, score, two_sided })
    }
}

impl FromStr for Draw {
    type Err = ParseError;

    /// `movenumber=34,movecount=8,score=20`.
    fn from_str(text: &str) -> Result<Draw, ParseError> {
        let (mut move_number, mut move_count, mut score) = (0, None, None);
        for (key, value) in pairs(text)? {
            match key.as_str() {
                "movenumber" => move_number = number::<u32>(&key, &value)?,
                "movecount" => move_count = Some(number::<u32>(&key, &value)?),
                "score" => score = Some(number::<i32>(&key, &value)?),
                _ => return Err(ParseError(format!("unknown key {key:?} (movenumber, movecount, score)"))),
            }
        }
        let move_count = move_count.filter(|&n| n > 0).ok_or_else(|| ParseError("movecount=N (at least 1) is missing".to_string()))?;
        let score = score.filter(|&s| s >= 0).ok_or_else(|| ParseError("score=CENTIPAWNS is missing".to_string()))?;
        Ok(Draw { move_number, move_count, score })
    }
}

/// The streaks an adjudication counts during one game.
#[derive(Clone, Debug)]
pub struct Tracker {
    rules: Adjudication,
    /// One-sided resign: each side's moves in a row at or below `-score`.
    losing: [u32; 2],
    /// Two-sided resign: moves in a row at least `score` from zero.
    decided: u32,
    /// Moves in a row within `score` of zero.
    level: u32,
    plies: u32,
}

impl Tracker {
    pub fn new(rules: Adjudication) -> Tracker {
        Tracker { rules, losing: [0, 0], decided: 0, level: 0, plies: 0 }
    }

    /// Counts a move of `side` with its score (`None`: it said none), and says whether
    /// the game is now decided.
    pub fn after_move(&mut self, side: Side, score: Option<Score>) -> Option<Verdict> {
        self.plies += 1;
        let names = ["White", "Black"];
        if let Some(resign) = self.rules.resign {
            if resign.two_sided {
                let decisive = match score {
                    Some(Score::Cp(cp)) => cp.abs() >= resign.score,
                    Some(Score::Mate(_)) => true,
                    None => false,
                };
                self.decided = if decisive { self.decided + 1 } else { 0 };
                if self.decided >= 2 * resign.move_count {
                    let losing = matches!(score, Some(Score::Cp(cp)) if cp < 0) || matches!(score, Some(Score::Mate(m)) if m < 0);
                    let loser = if losing { side } else { side.other() };
                    return Some(Verdict {
                        winner: Some(loser.other()),
                        detail: format!(
                            "{} resigns: both engines scored the game at least {} cp for {} moves each",
                            names[loser.index()],
                            resign.score,
                            resign.move_count
                        ),
                    });
                }
            } else {
                let lost = match score {
                    Some(Score::Cp(cp)) => cp <= -resign.score,
                    Some(Score::Mate(m)) => m < 0,
                    None => false,
                };
                let count = &mut self.losing[side.index()];
                *count = if lost { *count + 1 } else { 0 };
                if *count >= resign.move_count {
                    return Some(Verdict {
                        winner: Some(side.other()),
                        detail: format!(
                            "{} resigns: its engine scored its game {} cp or worse for {} moves in a row",
                            names[side.index()],
                            -resign.score,
                            resign.move_count
                        ),
                    });
                }
            }
        }
        if let Some(draw) = self.rules.draw {
            let level = matches!(score, Some(Score::Cp(cp)) if cp.abs() <= draw.score);
            self.level = if level { self.level + 1 } else { 0 };
            if self.plies >= 2 * draw.move_number && self.level >= 2 * draw.move_count {
                return Some(Verdict {
                    winner: None,
                    detail: format!("draw: both engines scored the game within {} cp for {} moves each", draw.score, draw.move_count),
                });
            }
        }
        if let Some(max) = self.rules.max_moves
            && self.plies >= 2 * max
        {
            return Some(Verdict { winner: None, detail: format!("draw: {max} moves played (the match's most)") });
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(rules: Adjudication, scores: &[Option<Score>]) -> Option<(usize, Verdict)> {
        let mut tracker = Tracker::new(rules);
        scores.iter().enumerate().find_map(|(ply, score)| {
            let side = if ply % 2 == 0 { Side::First } else { Side::Second };
            tracker.after_move(side, *score).map(|v| (ply + 1, v))
        })
    }

    #[test]
    fn rules_read_as_fastchess_writes_them() {
        assert_eq!("movecount=3,score=600".parse(), Ok(Resign { move_count: 3, score: 600, two_sided: false }));
        assert_eq!("movecount=3 score=600 twosided=true".parse(), Ok(Resign { move_count: 3, score: 600, two_sided: true }));
        assert_eq!("movenumber=34,movecount=8,score=20".parse(), Ok(Draw { move_number: 34, move_count: 8, score: 20 }));
        for bad in ["score=600", "movecount=3", "movecount=x,score=1", "movecount=3,score=600,bogus=1", "movecount"] {
            assert!(bad.parse::<Resign>().is_err(), "{bad}");
        }
        assert!("movecount=8".parse::<Draw>().is_err());
    }

    #[test]
    fn one_sided_resign_counts_each_sides_own_moves() {
        let rules = Adjudication { resign: Some(Resign { move_count: 3, score: 500, two_sided: false }), ..Adjudication::default() };
        let (w, b) = (Some(Score::Cp(50)), Some(Score::Cp(-600)));
        // Black scores -600 on its moves (plies 2, 4, 6): it resigns on its third.
        let (ply, verdict) = run(rules, &[w, b, w, b, w, b, w]).expect("adjudicated");
        assert_eq!((ply, verdict.winner), (6, Some(Side::First)));
        // A move without a score, or a better one, starts the count again.
        assert_eq!(run(rules, &[w, b, w, None, w, b, w, b]), None);
        assert_eq!(run(rules, &[w, b, w, Some(Score::Cp(-499)), w, b, w, b]), None);
        let mated = run(rules, &[Some(Score::Mate(-5)), w, Some(Score::Mate(-4)), w, Some(Score::Mate(-3))]).expect("mated");
        assert_eq!((mated.0, mated.1.winner), (5, Some(Side::Second)));
    }

    #[test]
    fn two_sided_resign_needs_both_engines() {
        let rules = Adjudication { resign: Some(Resign { move_count: 2, score: 500, two_sided: true }), ..Adjudication::default() };
        let (up, down) = (Some(Score::Cp(700)), Some(Score::Cp(-650)));
        let (ply, verdict) = run(rules, &[up, down, up, down]).expect("adjudicated");
        assert_eq!((ply, verdict.winner), (4, Some(Side::First)), "Black's own score is below zero");
        assert_eq!(run(rules, &[up, Some(Score::Cp(0)), up, down, up]), None, "Black did not agree");
    }

    #[test]
    fn draws_wait_for_the_move_number_and_a_level_streak() {
        let rules = Adjudication { draw: Some(Draw { move_number: 3, move_count: 2, score: 10 }), ..Adjudication::default() };
        let level = Some(Score::Cp(5));
        let (ply, verdict) = run(rules, &[level; 8]).expect("drawn");
        assert_eq!((ply, verdict.winner), (6, None), "three full moves, four level moves");
        let broken = [level, level, level, Some(Score::Cp(11)), level, level, level, level];
        assert_eq!(run(rules, &broken).map(|(ply, _)| ply), Some(8), "the streak starts again after a score beyond it");
        let max = Adjudication { max_moves: Some(2), ..Adjudication::default() };
        assert_eq!(run(max, &[None; 5]).map(|(ply, _)| ply), Some(4));
    }
}
