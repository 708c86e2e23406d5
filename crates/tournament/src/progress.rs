//! A tournament's progression from stage to stage, without I/O: from the config and what
//! is known (the stored games, the participants each stage started with, how many
//! openings it has, its stored result), [`next`] answers what to do next: ready a stage's
//! start positions, start a stage, play games, decide a stage, or nothing (every stage is
//! decided). It is to the whole tournament what `schedule::next` is to one stage, and
//! both runners (the local one and the shared database's planner) only carry out its
//! answers, so that a run resumed from what was stored ends as an uninterrupted one.

use crate::config::Format;
use crate::schedule::{self, Next, StageContext, StageResult};
use crate::{Entrant, EntrantId, GameOutcome, GameSpec, TournamentConfig};

/// What is known of a tournament, as a runner stored it (or holds it for this run).
#[derive(Clone, Copy, Debug)]
pub struct Known<'a> {
    /// Every entrant: the config's own first, then the baselines the entry checks add.
    pub entrants: &'a [Entrant],
    /// How many of `entrants` are the config's own (they enter the first stage).
    pub n_entrants: usize,
    /// Each stage's baseline (an entry check's), by stage.
    pub baselines: &'a [Option<EntrantId>],
    /// Every game stored so far, of any stage.
    pub games: &'a [GameOutcome],
    /// What is known of each stage, by stage (a stage past its end: nothing yet).
    pub stages: &'a [StageKnown],
}

/// What is known of one stage.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StageKnown {
    /// How many start positions the stage has besides the default, once they are read or
    /// generated ([`Step::Openings`]).
    pub openings: Option<usize>,
    /// Who the stage started with ([`Step::Enter`]), `None` before it started.
    pub participants: Option<Vec<EntrantId>>,
    /// The stage's result, once decided ([`Step::Decide`]).
    pub result: Option<StageResult>,
}

/// What a runner does next.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// Read or generate the stage's start positions (then known as
    /// [`StageKnown::openings`]); asked first of every stage not decided.
    Openings { stage: usize },
    /// Start the stage with these candidates (the previous stage's qualified, in its
    /// ranking order, which seeds this one): with `entry_check`, each is first asked for
    /// its self-description and those that fail are left out; the participants' programs
    /// are then built and fingerprinted, and the stage started with them (then known as
    /// [`StageKnown::participants`]).
    Enter { stage: usize, candidates: Vec<EntrantId>, entry_check: bool },
    /// Play these games of the stage (those its schedule asks for: never a stored one).
    Play { stage: usize, participants: Vec<EntrantId>, games: Vec<GameSpec> },
    /// The stage is decided: store its result (then known as [`StageKnown::result`]).
    Decide { stage: usize, participants: Vec<EntrantId>, result: StageResult },
    /// Every stage is decided.
    Done,
}

/// The next step of the tournament: the first stage not decided is carried forward.
pub fn next(config: &TournamentConfig, known: &Known) -> Step {
    let mut candidates: Vec<EntrantId> = (0..known.n_entrants).collect();
    for (idx, stage) in config.stages.iter().enumerate() {
        let stage_known = known.stages.get(idx).cloned().unwrap_or_default();
        if let Some(result) = stage_known.result {
            candidates = result.qualified;
            continue;
        }
        let Some(n_openings) = stage_known.openings else { return Step::Openings { stage: idx } };
        let Some(started) = stage_known.participants else {
            return Step::Enter { stage: idx, candidates, entry_check: stage.format.kind() == Format::EntryCheck };
        };
        // The candidates keep their seeding order; those the stage started without (they
        // failed its entry check) stay out.
        let participants: Vec<EntrantId> = candidates.into_iter().filter(|id| started.contains(id)).collect();
        let ctx = StageContext {
            index: idx,
            config: stage,
            entrants: known.entrants,
            participants: &participants,
            baseline: known.baselines.get(idx).copied().flatten(),
            n_openings,
            seed: config.seed,
        };
        let results: Vec<GameOutcome> = known.games.iter().filter(|o| o.spec.stage == idx).cloned().collect();
        return match schedule::next(&ctx, &results) {
            Next::Play(games) => {
                // The schedule asks only for games not stored.
                Step::Play { stage: idx, participants, games }
            }
            Next::Done(result) => Step::Decide { stage: idx, participants, result },
        };
    }
    Step::Done
}

/// The note a runner keeps when an entrant is left out after a stage (it failed the
/// entry check): the same words from every runner.
pub fn out_note(entrants: &[Entrant], stage: &str, failed: &(EntrantId, String)) -> String {
    let (id, reason) = failed;
    format!("{} is out after {stage}: {reason}", entrants[*id].name)
}
