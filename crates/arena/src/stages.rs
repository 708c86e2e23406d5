//! What both runners do when the stage progression (`tournament::progress`) answers:
//! the steps' I/O (entry checks, builds, fingerprints, notes, stage results), said once,
//! against a [`Record`]: the store, or a test's memory.

use std::collections::HashSet;
use std::path::Path;

use referee::BotSpec;
use store::{Saved, StoreError};
use tournament::config::StageConfig;
use tournament::progress::out_note;
use tournament::schedule::StageResult;
use tournament::{Entrant, EntrantId, GameOutcome, TournamentConfig};

use crate::{ArenaError, Event, StoredStageResult, build_programs, describe, fingerprint, short_print};

/// Where a runner keeps a tournament: what the local runner and the planner read and
/// write of it (the store's methods of the same names), so that the runner can be tested
/// in memory (with paused time, which a database's own timers do not bear).
pub(crate) trait Record: Sync {
    async fn games(&self) -> Result<Vec<GameOutcome>, StoreError>;
    async fn save_game(&self, outcome: &GameOutcome, record_json: &str) -> Result<Saved, StoreError>;
    async fn notes(&self) -> Result<Vec<(usize, Option<EntrantId>, String)>, StoreError>;
    async fn save_note(&self, stage: usize, entrant: Option<EntrantId>, text: &str) -> Result<(), StoreError>;
    async fn fingerprints(&self, stage: usize) -> Result<Vec<(EntrantId, Option<String>)>, StoreError>;
    async fn save_fingerprints(&self, stage: usize, prints: &[(EntrantId, Option<String>)]) -> Result<(), StoreError>;
    async fn stage_results(&self) -> Result<Vec<(usize, String)>, StoreError>;
    async fn save_stage_result(&self, stage: usize, result_json: &str) -> Result<(), StoreError>;
}

impl Record for store::Store {
    async fn games(&self) -> Result<Vec<GameOutcome>, StoreError> {
        store::Store::games(self).await
    }
    async fn save_game(&self, outcome: &GameOutcome, record_json: &str) -> Result<Saved, StoreError> {
        store::Store::save_game(self, outcome, record_json).await
    }
    async fn notes(&self) -> Result<Vec<(usize, Option<EntrantId>, String)>, StoreError> {
        store::Store::notes(self).await
    }
    async fn save_note(&self, stage: usize, entrant: Option<EntrantId>, text: &str) -> Result<(), StoreError> {
        store::Store::save_note(self, stage, entrant, text).await
    }
    async fn fingerprints(&self, stage: usize) -> Result<Vec<(EntrantId, Option<String>)>, StoreError> {
        store::Store::fingerprints(self, stage).await
    }
    async fn save_fingerprints(&self, stage: usize, prints: &[(EntrantId, Option<String>)]) -> Result<(), StoreError> {
        store::Store::save_fingerprints(self, stage, prints).await
    }
    async fn stage_results(&self) -> Result<Vec<(usize, String)>, StoreError> {
        store::Store::stage_results(self).await
    }
    async fn save_stage_result(&self, stage: usize, result_json: &str) -> Result<(), StoreError> {
        store::Store::save_stage_result(self, stage, result_json).await
    }
}

/// A tournament's steps as a runner carries them out: the record, the entrants and their
/// bots (the baselines included), and the notes kept so far (each is stored once).
pub(crate) struct Stages<'a, R: Record> {
    pub record: &'a R,
    pub config: &'a TournamentConfig,
    pub all: &'a [Entrant],
    pub specs: &'a [BotSpec],
    /// The folder the config's relative paths are resolved against.
    pub config_dir: &'a Path,
    /// Whether program bots run inside the sandbox.
    pub sandboxed: bool,
    pub notes: HashSet<String>,
}

impl<'a, R: Record> Stages<'a, R> {
    /// Reads the notes already kept.
    pub async fn new(
        record: &'a R,
        config: &'a TournamentConfig,
        (all, specs): (&'a [Entrant], &'a [BotSpec]),
        config_dir: &'a Path,
        sandboxed: bool,
    ) -> Result<Stages<'a, R>, ArenaError> {
        let notes = record.notes().await?.into_iter().map(|(_, _, text)| text).collect();
        Ok(Stages { record, config, all, specs, config_dir, sandboxed, notes })
    }

    fn stage(&self, idx: usize) -> &'a StageConfig {
        &self.config.stages[idx]
    }

    /// Stores a note once, and tells it every time.
    pub async fn note(
        &mut self,
        stage: usize,
        entrant: Option<EntrantId>,
        text: &str,
        on_event: &mut impl FnMut(Event),
    ) -> Result<(), ArenaError> {
        if self.notes.insert(text.to_string()) {
            self.record.save_note(stage, entrant, text).await?;
        }
        on_event(Event::Note { stage, text: text.to_string() });
        Ok(())
    }

    /// The candidates that pass a stage's entry check (each asked for its
    /// self-description now; who fails is told and noted), or all of them without one.
    pub async fn entry_check(
        &mut self,
        stage: usize,
        candidates: Vec<EntrantId>,
        entry_check: bool,
        on_event: &mut impl FnMut(Event),
    ) -> Result<Vec<EntrantId>, ArenaError> {
        if !entry_check {
            return Ok(candidates);
        }
        let mut described = Vec::new();
        for id in candidates {
            match describe(&self.specs[id], self.config_dir, self.sandboxed).await? {
                Ok(()) => described.push(id),
                Err(reason) => {
                    on_event(Event::EntrantFailed { stage, entrant: id, reason: reason.clone() });
                    let text = format!("{} failed the entry check: {reason}", self.all[id].name);
                    self.note(stage, Some(id), &text, on_event).await?;
                }
            }
        }
        Ok(described)
    }

    /// Builds a stage's programs (a failure is noted: the program's games record it) and
    /// fingerprints them, or checks them against the prints the stage started with.
    pub async fn start_programs(
        &mut self,
        stage: usize,
        participants: &[EntrantId],
        on_event: &mut impl FnMut(Event),
    ) -> Result<(), ArenaError> {
        for (id, reason) in build_programs(participants, self.specs, self.sandboxed).await {
            let text = format!("{} could not be built for {}: {reason}", self.all[id].name, self.stage(stage).name);
            self.note(stage, Some(id), &text, on_event).await?;
        }
        self.check_fingerprints(stage, participants).await
    }

    /// Fingerprints the participants' programs when a stage starts (after building them),
    /// and refuses a bot that changed during the stage (or was replaced where the stage
    /// allows no replacement).
    async fn check_fingerprints(&self, idx: usize, participants: &[EntrantId]) -> Result<(), ArenaError> {
        let now: Vec<(EntrantId, Option<String>)> = participants.iter().map(|&id| (id, fingerprint(&self.specs[id]))).collect();
        let stored = self.record.fingerprints(idx).await?;
        let stage = self.stage(idx);
        if stored.is_empty() {
            if !stage.allow_replacement && idx > 0 {
                let before = self.record.fingerprints(idx - 1).await?;
                for (id, print) in &now {
                    if let Some((_, old)) = before.iter().find(|(old_id, _)| old_id == id)
                        && old != print
                    {
                        return Err(ArenaError::ReplacedBot { name: self.all[*id].name.clone(), stage: stage.name.clone() });
                    }
                }
            }
            self.record.save_fingerprints(idx, &now).await?;
            return Ok(());
        }
        for (id, print) in &now {
            if let Some((_, old)) = stored.iter().find(|(old_id, _)| old_id == id)
                && old != print
            {
                return Err(ArenaError::ChangedBot {
                    name: self.all[*id].name.clone(),
                    stage: stage.name.clone(),
                    was: short_print(old.as_deref(), "none"),
                    now: short_print(print.as_deref(), "missing"),
                });
            }
        }
        Ok(())
    }

    /// Notes who is out after a decided stage and stores its result (unless stored
    /// before): the result as stored.
    pub async fn decide(
        &mut self,
        idx: usize,
        result: StageResult,
        on_event: &mut impl FnMut(Event),
    ) -> Result<StoredStageResult, ArenaError> {
        for failed in &result.failed {
            let text = out_note(self.all, &self.stage(idx).name, failed);
            self.note(idx, Some(failed.0), &text, on_event).await?;
        }
        let stored = StoredStageResult { ranking: result.ranking, qualified: result.qualified, failed: result.failed };
        let already: HashSet<usize> = self.record.stage_results().await?.into_iter().map(|(stage, _)| stage).collect();
        if !already.contains(&idx) {
            self.record.save_stage_result(idx, &serde_json::to_string(&stored).expect("a stage result serialises")).await?;
        }
        Ok(stored)
    }

    /// Who each stage started with, as stored (a stage not started: `None`).
    pub async fn started(&self) -> Result<Vec<Option<Vec<EntrantId>>>, ArenaError> {
        let mut started = Vec::new();
        for idx in 0..self.config.stages.len() {
            let prints = self.record.fingerprints(idx).await?;
            started.push((!prints.is_empty()).then(|| prints.into_iter().map(|(id, _)| id).collect()));
        }
        Ok(started)
    }
}

impl StoredStageResult {
    /// The result as the progression knows it.
    pub fn to_stage_result(&self) -> StageResult {
        StageResult { ranking: self.ranking.clone(), qualified: self.qualified.clone(), failed: self.failed.clone() }
    }
}
