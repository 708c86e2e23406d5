//! Standings of one stage: the ranked rows (points, games by side, faults, time per move,
//! tie-break values) and the cross table, computed from the stage's results with the
//! same ranking as its schedule (so a stage's standings and its result agree), at any
//! point of the stage (before the end, extra games are not yet part of the ranking); or,
//! for a decided stage, in the order its stored result gives ([`in_order`]), so that a
//! report shows what the stage decided instead of ranking it again.
//!
//! Points count the stage's own games (Swiss byes included); tie-break extra games count
//! only in the extra-games column. Games, wins, draws, losses and faults count every game
//! the entrant played in the stage, extra games included.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::config::{Format, StageConfig, TieBreak};
use crate::schedule::{self, StageContext};
use crate::{Entrant, EntrantId, GameOutcome, scoring};

/// Games lost by a fault, by kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Faults {
    pub timeouts: u32,
    pub crashes: u32,
    pub illegal_moves: u32,
    pub protocol_errors: u32,
    /// Any other kind.
    pub other: u32,
}

/// One entrant's line.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StandingsRow {
    pub entrant: EntrantId,
    /// 1 for the first; equal only where every tie-break failed.
    pub rank: usize,
    pub points: f64,
    pub games: u32,
    /// Wins as side 0 and as side 1.
    pub wins: [u32; 2],
    pub draws: [u32; 2],
    pub losses: [u32; 2],
    pub faults: Faults,
    /// Thinking time per move over all its games, `None` before its first move.
    pub avg_ms_per_move: Option<f64>,
    /// The sum of its game scores, where its games have scores.
    pub score_sum: Option<i64>,
    /// The stage's tie-breaks in order with this entrant's value where one applies:
    /// head-to-head (points among the entrants it was tied with), Sonneborn–Berger,
    /// extra games (points in them), submission (none: it is an order).
    pub tie_breaks: Vec<(TieBreak, Option<f64>)>,
}

/// The standings of a stage.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Standings {
    /// In rank order.
    pub rows: Vec<StandingsRow>,
    /// `cross[i][j]`: the points of `rows[i]` against `rows[j]` (the stage's scoring over
    /// their games with each other), `None` on the diagonal or where they never met.
    pub cross: Vec<Vec<Option<f64>>>,
}

/// The standings of a stage from its config, its participants (in seeding order), the
/// tournament's entrants and the stage's finished games (games of other stages are
/// ignored), ranked as the stage's schedule ranks them so far: the live table of a stage
/// still running. An entry check's baseline is the player of its games that is not a
/// participant; it gets no row. A final's rows are its `top` finalists.
pub fn standings(config: &StageConfig, participants: &[EntrantId], entrants: &[Entrant], results: &[GameOutcome]) -> Standings {
    let stage = Stage::new(config, participants, entrants, results);
    let mut order = Vec::new();
    for class in &stage.evaluation.classes {
        let rank = order.len() + 1;
        order.extend(class.iter().map(|&id| (id, rank)));
    }
    stage.table(&order)
}

/// The standings of a stage in an order given by the caller, ranked 1, 2, 3, ... down
/// it: a decided stage's table in the order its stored result decided (`ranking`), or
/// one group of a groups stage. Rows for exactly the entrants of `ranking`; every number
/// is computed as [`standings`] computes it.
pub fn in_order(
    config: &StageConfig,
    participants: &[EntrantId],
    entrants: &[Entrant],
    results: &[GameOutcome],
    ranking: &[EntrantId],
) -> Standings {
    let stage = Stage::new(config, participants, entrants, results);
    let order: Vec<(EntrantId, usize)> = ranking.iter().enumerate().map(|(i, &id)| (id, i + 1)).collect();
    stage.table(&order)
}

/// The double-elimination bracket of a stage as its finished games decide it (see
/// [`schedule::bracket_state`]); empty for other formats.
pub fn bracket(
    config: &StageConfig,
    participants: &[EntrantId],
    entrants: &[Entrant],
    results: &[GameOutcome],
) -> Vec<schedule::BracketState> {
    if config.format.kind() != Format::DoubleElimination {
        return Vec::new();
    }
    let index = results.first().map_or(0, |o| o.spec.stage);
    let ctx = StageContext { index, config, entrants, participants, baseline: None, n_openings: 0, seed: 0 };
    schedule::bracket_state(&ctx, results)
}

/// A stage evaluated from its results, with the points that count.
struct Stage<'r> {
    config: &'r StageConfig,
    evaluation: schedule::Evaluation<'r>,
    /// The games that count for points (not tie-break extra games).
    counted: Vec<&'r GameOutcome>,
    points: BTreeMap<EntrantId, f64>,
}

impl<'r> Stage<'r> {
    fn new(config: &'r StageConfig, participants: &[EntrantId], entrants: &[Entrant], results: &'r [GameOutcome]) -> Stage<'r> {
        let index = results.first().map_or(0, |o| o.spec.stage);
        let baseline = match config.format.kind() {
            Format::EntryCheck => {
                results.iter().filter(|o| o.spec.stage == index).flat_map(|o| o.spec.players).find(|id| !participants.contains(id))
            }
            _ => None,
        };
        let ctx = StageContext { index, config, entrants, participants, baseline, n_openings: 0, seed: 0 };
        let evaluation = schedule::evaluate(&ctx, results);
        let counted: Vec<&GameOutcome> = evaluation.games.iter().copied().filter(|g| !schedule::is_extra_game(&g.spec)).collect();
        let mut points = scoring::points(config.scoring, &counted);
        for (&id, &b) in &evaluation.bonus {
            *points.entry(id).or_insert(0.0) += b;
        }
        Stage { config, evaluation, counted, points }
    }

    /// The rows of `order` (entrant, rank) and their cross table.
    fn table(&self, order: &[(EntrantId, usize)]) -> Standings {
        let rows: Vec<StandingsRow> = order.iter().map(|&(id, rank)| self.row(id, rank)).collect();
        let mut between: BTreeMap<(EntrantId, EntrantId), Vec<&GameOutcome>> = BTreeMap::new();
        for &game in &self.counted {
            let [a, b] = game.spec.players;
            between.entry((a.min(b), a.max(b))).or_default().push(game);
        }
        let cross = rows
            .iter()
            .map(|row| {
                rows.iter()
                    .map(|col| {
                        let (a, b) = (row.entrant, col.entrant);
                        let games = between.get(&(a.min(b), a.max(b))).filter(|_| a != b)?;
                        scoring::points(self.config.scoring, games).get(&a).copied()
                    })
                    .collect()
            })
            .collect();
        Standings { rows, cross }
    }

    fn row(&self, id: EntrantId, rank: usize) -> StandingsRow {
        let mut row = StandingsRow {
            entrant: id,
            rank,
            points: self.points.get(&id).copied().unwrap_or(0.0),
            games: 0,
            wins: [0; 2],
            draws: [0; 2],
            losses: [0; 2],
            faults: Faults::default(),
            avg_ms_per_move: None,
            score_sum: None,
            tie_breaks: self.evaluation.tie_values.get(&id).cloned().unwrap_or_default(),
        };
        let (mut ms, mut moves) = (0u64, 0u64);
        for game in &self.evaluation.games {
            let Some(side) = game.side_of(id) else { continue };
            row.games += 1;
            match game.winner {
                None => row.draws[side] += 1,
                Some(w) if w == side => row.wins[side] += 1,
                Some(_) => row.losses[side] += 1,
            }
            if let Some((at_fault, kind)) = &game.fault
                && *at_fault == side
            {
                let count = match kind.as_str() {
                    "timeout" => &mut row.faults.timeouts,
                    "crash" => &mut row.faults.crashes,
                    "illegal-move" => &mut row.faults.illegal_moves,
                    "protocol-error" => &mut row.faults.protocol_errors,
                    _ => &mut row.faults.other,
                };
                *count += 1;
            }
            if let Some(scores) = game.scores {
                *row.score_sum.get_or_insert(0) += scores[side];
            }
            ms += game.time_ms[side];
            moves += u64::from(game.moves[side]);
        }
        if moves > 0 {
            row.avg_ms_per_move = Some(ms as f64 / moves as f64);
        }
        row
    }
}
