//! The standings report of a tournament's database: every stage's table, cross table and
//! Elo, as the `standings` command prints it and the web pages show it.

use serde::Serialize;
use tournament::config::StageConfig;
use tournament::standings::{Standings, StandingsRow};
use tournament::{Entrant, EntrantId, GameOutcome, TournamentConfig};

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
    pub games: usize,
    pub rows: Vec<Row>,
    /// Points of each row's entrant against each column's (rows' order).
    pub cross: Vec<Vec<Option<f64>>>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Row {
    pub rank: usize,
    pub entrant: String,
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
    /// Elo against the field from all the entrant's games in the tournament, with the
    /// half-width of its 95% interval.
    pub elo: Option<f64>,
    pub elo_error95: Option<f64>,
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
    let mut stages = Vec::new();
    for (idx, stage) in config.stages.iter().enumerate() {
        let prints = store.fingerprints(idx).await?;
        let participants: Vec<EntrantId> = prints.iter().map(|(id, _)| *id).collect();
        stages.push(stage_report(idx, stage, &participants, entrants, games));
    }
    let decided: Vec<usize> = store.stage_results().await?.into_iter().map(|(stage, _)| stage).collect();
    for stage in &mut stages {
        if decided.contains(&stage.index) {
            stage.status = "decided".to_string();
        }
    }
    let notes = store.notes().await?.into_iter().map(|(_, _, text)| text).collect();
    Ok(Report { tournament: row.name, game: config.game.name().to_string(), stages, notes })
}

fn stage_report(idx: usize, stage: &StageConfig, participants: &[EntrantId], entrants: &[Entrant], games: &[GameOutcome]) -> StageReport {
    let stage_games: Vec<GameOutcome> = games.iter().filter(|g| g.spec.stage == idx).cloned().collect();
    let status = if participants.is_empty() { "not started" } else { "running" };
    let table: Standings = if participants.is_empty() {
        Standings { rows: Vec::new(), cross: Vec::new() }
    } else {
        tournament::standings::standings(stage, participants, entrants, &stage_games)
    };
    let rows = table.rows.iter().map(|row| report_row(row, entrants, games)).collect();
    StageReport {
        index: idx,
        name: stage.name.clone(),
        format: stage.format.name().to_string(),
        scoring: stage.scoring.name().to_string(),
        status: status.to_string(),
        games: stage_games.len(),
        rows,
        cross: table.cross,
    }
}

fn report_row(row: &StandingsRow, entrants: &[Entrant], games: &[GameOutcome]) -> Row {
    let rating = tournament::ratings::performance(games, row.entrant);
    Row {
        rank: row.rank,
        entrant: entrants[row.entrant].name.clone(),
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
