//! The standings report of a tournament's database: every stage's table, cross table and
//! Elo, as the `standings` command prints it and the web pages show it.
//!
//! A decided stage is shown as it decided: its rows in the order of its stored result
//! (the ranking the runner stored when the stage ended, which seeded the next stage),
//! never ranked again here. A stage still running shows the live table its schedule
//! ranks from the games so far, marked provisional. Either way a stage's participants
//! are taken in their seeding order (the previous stage's stored result), as the runner
//! took them, and every entrant is looked up by its id.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use tournament::config::{Format, StageConfig};
use tournament::schedule::{BracketState, Slot, Source};
use tournament::standings::{Standings, StandingsRow};
use tournament::{Entrant, EntrantId, GameOutcome, TournamentConfig};

use crate::StoredStageResult;

/// Everything the standings show, as computed from the database.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub tournament: String,
    pub game: String,
    pub stages: Vec<StageReport>,
    pub notes: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct StageReport {
    pub index: usize,
    pub name: String,
    pub format: String,
    pub scoring: String,
    /// `not started`, `running` or `decided`.
    pub status: String,
    /// Whether the tables are provisional: the live ranking of a stage still running,
    /// which its remaining games may change.
    pub provisional: bool,
    pub games: usize,
    /// What the Elo column covers: `stage` (the entrant's games in this stage).
    pub elo_covers: String,
    /// The stage's ranking: the order it decided (its stored result), or while it runs
    /// the live order. A final shows its finalists.
    pub rows: Vec<Row>,
    /// Points of each row's entrant against each column's (rows' order).
    pub cross: Vec<Vec<Option<f64>>>,
    /// A groups stage: one table per group, in group order.
    pub groups: Vec<Table>,
    /// A double elimination: its matches in playing order (the last is the final).
    pub bracket: Vec<BracketMatch>,
    /// A decided stage: who went on to the next stage, in order.
    pub qualified: Vec<String>,
}

/// One table of a stage (a group).
#[derive(Clone, Debug, Serialize)]
pub struct Table {
    pub name: String,
    pub rows: Vec<Row>,
    pub cross: Vec<Vec<Option<f64>>>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Row {
    pub rank: usize,
    pub entrant: String,
    pub entrant_id: EntrantId,
    pub points: f64,
    pub games: u32,
    /// Wins, draws, losses moving first.
    pub first: [u32; 3],
    /// Wins, draws, losses moving second.
    pub second: [u32; 3],
    pub timeouts: u32,
    pub crashes: u32,
    pub illegal_moves: u32,
    pub protocol_errors: u32,
    pub avg_ms_per_move: Option<f64>,
    pub score_sum: Option<i64>,
    /// Elo against the field from the entrant's games in this stage (see the stage's
    /// `elo_covers`), with the half-width of its 95% interval.
    pub elo: Option<f64>,
    pub elo_error95: Option<f64>,
}

/// One match of a double-elimination bracket.
#[derive(Clone, Debug, Serialize)]
pub struct BracketMatch {
    /// 1, 2, ... in playing order.
    pub number: usize,
    /// The bracket's round, 1, 2, ... in the order rounds become playable.
    pub round: u32,
    /// `winners`, `losers` or `final`.
    pub part: String,
    /// Who plays: entrant names, `bye`, or where a side will come from (`winner of
    /// match 3`).
    pub sides: [String; 2],
    /// Points of each side over the match's games (the stage's scoring).
    pub points: Option<[f64; 2]>,
    pub games: u32,
    pub winner: Option<String>,
    pub loser: Option<String>,
    /// Where the winner goes: `match N`, or `champion`.
    pub winner_to: String,
    /// Where the loser goes: `match N`, or `out`.
    pub loser_to: String,
}

/// Why a report could not be made.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error(transparent)]
    Store(#[from] store::StoreError),
    #[error("{file} holds no tournament yet")]
    Empty { file: String },
    #[error("the config stored in {file}: {message}")]
    Config { file: String, message: String },
    #[error("{file} holds a damaged result of stage {stage}: {message}")]
    StageResult { file: String, stage: usize, message: String },
}

/// Reads the store and computes the standings of every stage. `file` names the
/// database in messages.
pub async fn load_report(store: &store::Store, file: &str) -> Result<Report, ReportError> {
    let entrants = store.entrants().await?;
    let games = store.games().await?;
    report_with(store, file, &entrants, &games).await
}

/// [`load_report`] from the entrants and games the caller has already read (so that a
/// caller showing the games too reads them once, and shows the same ones).
pub async fn report_with(store: &store::Store, file: &str, entrants: &[Entrant], games: &[GameOutcome]) -> Result<Report, ReportError> {
    let Some(row) = store.tournament().await? else {
        return Err(ReportError::Empty { file: file.to_string() });
    };
    let config = TournamentConfig::parse_without_entrants(&row.config_text, file)
        .map_err(|err| ReportError::Config { file: file.to_string(), message: err.to_string() })?;
    let mut decided: BTreeMap<usize, StoredStageResult> = BTreeMap::new();
    for (stage, json) in store.stage_results().await? {
        let result = serde_json::from_str(&json).map_err(|err| ReportError::StageResult {
            file: file.to_string(),
            stage,
            message: err.to_string(),
        })?;
        decided.insert(stage, result);
    }
    let names = Names(entrants.iter().map(|e| (e.id, e.name.clone())).collect());
    let mut stages = Vec::new();
    for (idx, stage) in config.stages.iter().enumerate() {
        let started: BTreeSet<EntrantId> = store.fingerprints(idx).await?.into_iter().map(|(id, _)| id).collect();
        let participants = seeding(idx, &started, &decided);
        let stage_games: Vec<GameOutcome> = games.iter().filter(|g| g.spec.stage == idx).cloned().collect();
        let view = StageView { idx, stage, participants: &participants, entrants, games: &stage_games, names: &names };
        stages.push(view.report(decided.get(&idx)));
    }
    let notes = store.notes().await?.into_iter().map(|(_, _, text)| text).collect();
    Ok(Report { tournament: row.name, game: config.game.name().to_string(), stages, notes })
}

/// A stage's participants in their seeding order, as the runner took them: the previous
/// stage's qualified in order (the first stage: the config's order), of those that
/// started this stage (their programs were fingerprinted when it started).
fn seeding(idx: usize, started: &BTreeSet<EntrantId>, decided: &BTreeMap<usize, StoredStageResult>) -> Vec<EntrantId> {
    let previous = idx.checked_sub(1).and_then(|prev| decided.get(&prev));
    match previous {
        Some(result) => {
            let mut order: Vec<EntrantId> = result.qualified.iter().copied().filter(|id| started.contains(id)).collect();
            // Anyone started but not among the qualified (never written so by the
            // runner) still gets a row, after the others.
            order.extend(started.iter().copied().filter(|id| !result.qualified.contains(id)));
            order
        }
        None => started.iter().copied().collect(),
    }
}

/// Entrant names by id.
struct Names(BTreeMap<EntrantId, String>);

impl Names {
    fn get(&self, id: EntrantId) -> String {
        self.0.get(&id).cloned().unwrap_or_else(|| format!("entrant {id}"))
    }
}

struct StageView<'a> {
    idx: usize,
    stage: &'a StageConfig,
    participants: &'a [EntrantId],
    entrants: &'a [Entrant],
    /// The stage's finished games.
    games: &'a [GameOutcome],
    names: &'a Names,
}

impl StageView<'_> {
    fn report(&self, decided: Option<&StoredStageResult>) -> StageReport {
        let status = match (decided, self.participants.is_empty()) {
            (Some(_), _) => "decided",
            (None, true) => "not started",
            (None, false) => "running",
        };
        let stage = self.stage;
        // The order of the stage's rows: what it decided, or the live ranking.
        let (table, order): (Standings, Vec<EntrantId>) = match decided {
            _ if self.participants.is_empty() => (Standings { rows: Vec::new(), cross: Vec::new() }, Vec::new()),
            Some(result) => {
                let shown: Vec<EntrantId> = match stage.format.top() {
                    Some(top) => {
                        let n = (top as usize).min(self.participants.len());
                        let finalists = &self.participants[..n];
                        result.ranking.iter().copied().filter(|id| finalists.contains(id)).collect()
                    }
                    None => result.ranking.clone(),
                };
                (self.in_order(&shown), result.ranking.clone())
            }
            None => {
                let live = tournament::standings::standings(stage, self.participants, self.entrants, self.games);
                let order = live.rows.iter().map(|r| r.entrant).collect();
                (live, order)
            }
        };
        let groups = match stage.format.kind() {
            Format::Groups if !self.participants.is_empty() => {
                let dealt = tournament::schedule::deal_groups(self.participants, stage.format.groups() as usize);
                dealt
                    .iter()
                    .enumerate()
                    .map(|(g, members)| {
                        let mut in_group: Vec<EntrantId> = order.iter().copied().filter(|id| members.contains(id)).collect();
                        in_group.extend(members.iter().copied().filter(|id| !order.contains(id)));
                        let table = self.in_order(&in_group);
                        Table { name: format!("group {}", g + 1), rows: self.rows(&table), cross: table.cross }
                    })
                    .collect()
            }
            _ => Vec::new(),
        };
        let bracket = self.bracket();
        StageReport {
            index: self.idx,
            name: stage.name.clone(),
            format: stage.format.name().to_string(),
            scoring: stage.scoring.name().to_string(),
            status: status.to_string(),
            provisional: status == "running",
            games: self.games.len(),
            elo_covers: "stage".to_string(),
            rows: self.rows(&table),
            // An entry check's entrants meet only the baseline, never each other: no
            // cross table of dashes.
            cross: if matches!(stage.format.kind(), Format::EntryCheck) { Vec::new() } else { table.cross },
            groups,
            bracket,
            qualified: decided.map(|r| r.qualified.iter().map(|&id| self.names.get(id)).collect()).unwrap_or_default(),
        }
    }

    fn in_order(&self, order: &[EntrantId]) -> Standings {
        tournament::standings::in_order(self.stage, self.participants, self.entrants, self.games, order)
    }

    fn rows(&self, table: &Standings) -> Vec<Row> {
        table.rows.iter().map(|row| self.row(row)).collect()
    }

    fn row(&self, row: &StandingsRow) -> Row {
        let rating = tournament::ratings::performance(self.games, row.entrant);
        Row {
            rank: row.rank,
            entrant: self.names.get(row.entrant),
            entrant_id: row.entrant,
            points: row.points,
            games: row.games,
            first: [row.wins[0], row.draws[0], row.losses[0]],
            second: [row.wins[1], row.draws[1], row.losses[1]],
            timeouts: row.faults.timeouts,
            crashes: row.faults.crashes,
            illegal_moves: row.faults.illegal_moves,
            protocol_errors: row.faults.protocol_errors + row.faults.other,
            avg_ms_per_move: row.avg_ms_per_move,
            score_sum: row.score_sum,
            elo: rating.as_ref().map(|r| r.elo),
            elo_error95: rating.as_ref().map(|r| r.error95),
        }
    }

    fn bracket(&self) -> Vec<BracketMatch> {
        let states = tournament::standings::bracket(self.stage, self.participants, self.entrants, self.games);
        let last = states.len().saturating_sub(1);
        states
            .iter()
            .enumerate()
            .map(|(i, state)| {
                let side = |k: usize| match (state.players[k], state.shape.sides[k]) {
                    (Slot::Entrant(id), _) => self.names.get(id),
                    (Slot::Bye, _) => "bye".to_string(),
                    (Slot::Pending, Source::Winner(j)) => format!("winner of match {}", j + 1),
                    (Slot::Pending, Source::Loser(j)) => format!("loser of match {}", j + 1),
                    (Slot::Pending, Source::Seed(pos)) => format!("seed {}", pos + 1),
                };
                let goes = |source: fn(usize) -> Source| {
                    states.iter().position(|other| other.shape.sides.contains(&source(i))).map(|j| format!("match {}", j + 1))
                };
                let entrant = |slot: Slot| match slot {
                    Slot::Entrant(id) => Some(self.names.get(id)),
                    _ => None,
                };
                BracketMatch {
                    number: i + 1,
                    round: state.shape.round + 1,
                    part: part(state, i == last).to_string(),
                    sides: [side(0), side(1)],
                    points: state.points,
                    games: state.games,
                    winner: entrant(state.winner),
                    loser: entrant(state.loser),
                    winner_to: goes(Source::Winner).unwrap_or_else(|| "champion".to_string()),
                    loser_to: goes(Source::Loser).unwrap_or_else(|| "out".to_string()),
                }
            })
            .collect()
    }
}

fn part(state: &BracketState, is_final: bool) -> &'static str {
    if is_final {
        "final"
    } else if state.shape.eliminates {
        "losers"
    } else {
        "winners"
    }
}
