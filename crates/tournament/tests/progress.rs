//! The stage progression driven to the end by a tiny runner that carries out its steps
//! in memory (games "played" from their seeds, entry checks failed by a chosen few), over
//! configs of every stage kind and the presets, and interrupted at any step: what is not
//! stored is forgotten, and the run must end as an uninterrupted one.

use std::collections::BTreeSet;

use proptest::prelude::*;
use rules::LimitSet;
use tournament::config::{Format, OpeningsConfig, Scoring, StageConfig, StageFormat, TieBreak};
use tournament::progress::{self, Known, StageKnown, Step};
use tournament::schedule::StageResult;
use tournament::{Entrant, EntrantId, GameOutcome, GameSpec, TournamentConfig, derive_seed};

fn stage(name: &str, format: StageFormat, scoring: Scoring) -> StageConfig {
    StageConfig {
        name: name.to_string(),
        format,
        options: None,
        matches: 1,
        deals: 2,
        swap: true,
        openings: OpeningsConfig::default(),
        scoring,
        tie_breaks: vec![TieBreak::HeadToHead, TieBreak::ExtraGames, TieBreak::Submission],
        limits: LimitSet::default(),
        allow_replacement: false,
    }
}

/// One stage of each kind, by number.
fn stage_of_kind(kind: usize, idx: usize) -> StageConfig {
    let format = match kind % 7 {
        0 => StageFormat::EntryCheck { baseline: "random".to_string() },
        1 => StageFormat::RoundRobin { cycles: 1 },
        2 => StageFormat::Groups { groups: 2, cycles: 1 },
        3 => StageFormat::DoubleElimination { extra_deals: 1 },
        4 => StageFormat::Final { top: 3, cycles: 1 },
        5 => StageFormat::Swiss { rounds: 3 },
        _ => StageFormat::Gauntlet { challenger: "bot0".to_string() },
    };
    let scoring = [Scoring::Game210, Scoring::Game1Half0, Scoring::Match310, Scoring::ScoreSum][(kind / 7) % 4];
    stage(&format!("stage {idx}"), format, scoring)
}

fn config(stages: Vec<StageConfig>) -> TournamentConfig {
    let text = "name = \"progress\"\ngame = \"connect4\"\nseed = 11\n[[stage]]\nname = \"x\"\nformat = \"round-robin\"\n";
    let mut config = TournamentConfig::parse_without_entrants(text, "progress.toml").expect("a config");
    config.stages = stages;
    config
}

/// The entrants (`bot0` ...) and each entry check's baseline after them, as the runners
/// add them.
fn entrants(config: &TournamentConfig, n: usize) -> (Vec<Entrant>, Vec<Option<EntrantId>>) {
    let mut all: Vec<Entrant> =
        (0..n).map(|id| Entrant { id, name: format!("bot{id}"), bot: "random".to_string(), submitted: None }).collect();
    let mut baselines = Vec::new();
    for stage in &config.stages {
        if stage.format.kind() == Format::EntryCheck {
            let id = all.len();
            all.push(Entrant { id, name: format!("baseline {id}"), bot: "random".to_string(), submitted: None });
            baselines.push(Some(id));
        } else {
            baselines.push(None);
        }
    }
    (all, baselines)
}

/// How the simulated games end.
#[derive(Clone, Copy, Debug)]
enum Results {
    /// From each game's seed and a salt: scores 0..3 each, the higher wins (many draws).
    Seeded(u64),
    /// Every game a draw: ties everywhere.
    Draws,
}

fn play(spec: &GameSpec, results: Results) -> GameOutcome {
    let scores = match results {
        Results::Seeded(salt) => {
            let r = derive_seed(spec.seed, &salt.to_string());
            [(r % 3) as i64, ((r >> 8) % 3) as i64]
        }
        Results::Draws => [1, 1],
    };
    let winner = match scores[0].cmp(&scores[1]) {
        std::cmp::Ordering::Greater => Some(0),
        std::cmp::Ordering::Less => Some(1),
        std::cmp::Ordering::Equal => None,
    };
    GameOutcome { spec: spec.clone(), winner, scores: Some(scores), fault: None, moves: [5, 5], time_ms: [1, 1] }
}

/// A tournament run in memory.
struct Sim<'a> {
    config: &'a TournamentConfig,
    all: Vec<Entrant>,
    n_entrants: usize,
    baselines: Vec<Option<EntrantId>>,
    /// Who fails every entry check.
    fails: BTreeSet<EntrantId>,
    results: Results,
    /// Games "played" per `Play` step (the others are asked for again).
    batch: usize,
    /// Stored: the games, who each stage started with, the stage results.
    games: Vec<GameOutcome>,
    started: Vec<Option<Vec<EntrantId>>>,
    decided: Vec<Option<StageResult>>,
    /// Known for this run only: each stage's openings.
    openings: Vec<Option<usize>>,
    steps: usize,
}

impl<'a> Sim<'a> {
    fn new(config: &'a TournamentConfig, n: usize, fails: BTreeSet<EntrantId>, results: Results, batch: usize) -> Sim<'a> {
        let (all, baselines) = entrants(config, n);
        let stages = config.stages.len();
        Sim {
            config,
            all,
            n_entrants: n,
            baselines,
            fails,
            results,
            batch,
            games: Vec::new(),
            started: vec![None; stages],
            decided: vec![None; stages],
            openings: vec![None; stages],
            steps: 0,
        }
    }

    fn next(&self) -> Step {
        let stages: Vec<StageKnown> = (0..self.config.stages.len())
            .map(|idx| StageKnown {
                openings: self.openings[idx],
                participants: self.started[idx].clone(),
                result: self.decided[idx].clone(),
            })
            .collect();
        let known =
            Known { entrants: &self.all, n_entrants: self.n_entrants, baselines: &self.baselines, games: &self.games, stages: &stages };
        progress::next(self.config, &known)
    }

    /// A crash: what only this run knew is gone; a stage started with nobody looks as not
    /// started (no prints are stored for it), as in the store.
    fn crash(&mut self) {
        self.openings.iter_mut().for_each(|o| *o = None);
        for started in &mut self.started {
            if started.as_ref().is_some_and(Vec::is_empty) {
                *started = None;
            }
        }
    }

    /// Carries out steps until `Done` (true) or `limit` steps (false), checking each.
    fn run(&mut self, limit: usize) -> bool {
        while self.steps < limit {
            self.steps += 1;
            let step = self.next();
            assert_eq!(self.next(), step, "next is a pure function");
            match step {
                Step::Openings { stage } => {
                    assert!(self.openings[stage].is_none(), "openings asked twice");
                    assert!(self.decided[stage].is_none());
                    assert!((0..stage).all(|s| self.decided[s].is_some()), "stage {stage} before the ones ahead of it are decided");
                    self.openings[stage] = Some(stage % 3);
                }
                Step::Enter { stage, candidates, entry_check } => {
                    assert!(self.openings[stage].is_some(), "a stage entered before its openings");
                    assert!(self.started[stage].is_none(), "a stage entered twice");
                    assert_eq!(entry_check, self.config.stages[stage].format.kind() == Format::EntryCheck);
                    assert_eq!(candidates, self.candidates(stage), "the candidates are the previous stage's qualified");
                    let participants: Vec<EntrantId> =
                        candidates.into_iter().filter(|id| !entry_check || !self.fails.contains(id)).collect();
                    self.started[stage] = Some(participants);
                }
                Step::Play { stage, participants, games } => {
                    let started = self.started[stage].as_ref().expect("games of a stage not started");
                    assert_eq!(participants, self.candidates(stage).into_iter().filter(|id| started.contains(id)).collect::<Vec<_>>());
                    assert!(!games.is_empty(), "the progression asks for nothing and is not done");
                    let stored: BTreeSet<&str> = self.games.iter().map(|o| o.spec.key.as_str()).collect();
                    for game in &games {
                        assert_eq!(game.stage, stage);
                        assert!(!stored.contains(game.key.as_str()), "stored game {} asked again", game.key);
                        for player in game.players {
                            assert!(
                                participants.contains(&player) || self.baselines[stage] == Some(player),
                                "{player} plays {} without taking part",
                                game.key
                            );
                        }
                    }
                    let played: Vec<GameOutcome> = games.iter().take(self.batch).map(|g| play(g, self.results)).collect();
                    self.games.extend(played);
                }
                Step::Decide { stage, participants, result } => {
                    assert!(self.decided[stage].is_none(), "a stage decided twice");
                    let mut ranked = result.ranking.clone();
                    ranked.sort_unstable();
                    let mut sorted = participants.clone();
                    sorted.sort_unstable();
                    assert_eq!(ranked, sorted, "the ranking is of the participants");
                    assert!(result.qualified.iter().all(|id| participants.contains(id)));
                    assert!(result.failed.iter().all(|(id, _)| !result.qualified.contains(id)));
                    self.decided[stage] = Some(result);
                }
                Step::Done => {
                    assert!(self.decided.iter().all(Option::is_some), "done with a stage undecided");
                    return true;
                }
            }
        }
        false
    }

    /// Who may enter a stage: the entrants, then the previous stage's qualified.
    fn candidates(&self, stage: usize) -> Vec<EntrantId> {
        match stage {
            0 => (0..self.n_entrants).collect(),
            _ => self.decided[stage - 1].as_ref().expect("the previous stage is decided").qualified.clone(),
        }
    }

    fn finish(&mut self) -> (Vec<StageResult>, Vec<GameOutcome>) {
        assert!(self.run(200_000), "the tournament ends");
        let mut games = self.games.clone();
        games.sort_by(|a, b| a.spec.key.cmp(&b.spec.key));
        (self.decided.iter().map(|r| r.clone().expect("decided")).collect(), games)
    }
}

/// The presets as configs (their entrants left out), by file name.
fn presets() -> Vec<(String, TournamentConfig)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../presets");
    let mut presets = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("the presets folder") {
        let path = entry.expect("an entry").path();
        if path.extension().is_some_and(|e| e == "toml") {
            let text = std::fs::read_to_string(&path).expect("a preset");
            let name = path.file_name().expect("a name").to_string_lossy().into_owned();
            presets.push((name.clone(), TournamentConfig::parse_without_entrants(&text, &name).expect("a preset parses")));
        }
    }
    presets.sort_by(|a, b| a.0.cmp(&b.0));
    presets
}

fn kinds() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(0usize..28, 1..=3)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Every stage kind, in any order after any other, runs to its end, each step as the
    /// progression promises.
    #[test]
    fn every_stage_kind_runs_to_its_end(kinds in kinds(), n in 2usize..9, salt in any::<u64>(), batch in 1usize..4, fails in prop::collection::btree_set(0usize..9, 0..3), draws in any::<bool>()) {
        let config = config(kinds.iter().enumerate().map(|(idx, &k)| stage_of_kind(k, idx)).collect());
        let results = if draws { Results::Draws } else { Results::Seeded(salt) };
        Sim::new(&config, n, fails, results, batch).finish();
    }

    /// A run interrupted at any step, and resumed from what was stored, ends as an
    /// uninterrupted one (the same games, the same results), however many games it plays
    /// at a time.
    #[test]
    fn resuming_at_any_step_gives_the_same_result(kinds in kinds(), n in 2usize..9, salt in any::<u64>(), batch in 1usize..4, fails in prop::collection::btree_set(0usize..9, 0..3), cuts in prop::collection::vec(0usize..400, 1..4)) {
        let config = config(kinds.iter().enumerate().map(|(idx, &k)| stage_of_kind(k, idx)).collect());
        let whole = Sim::new(&config, n, fails.clone(), Results::Seeded(salt), usize::MAX).finish();
        let mut sim = Sim::new(&config, n, fails, Results::Seeded(salt), batch);
        for cut in cuts {
            if sim.run(sim.steps + cut) {
                break;
            }
            sim.crash();
        }
        prop_assert_eq!(sim.finish(), whole);
    }

    /// Every preset runs to its end, resumed after a crash at any step as uninterrupted.
    #[test]
    fn every_preset_runs_and_resumes(which in 0usize..64, n in 2usize..9, salt in any::<u64>(), cut in 0usize..300) {
        let presets = presets();
        let (_, config) = &presets[which % presets.len()];
        let whole = Sim::new(config, n, BTreeSet::new(), Results::Seeded(salt), usize::MAX).finish();
        let mut sim = Sim::new(config, n, BTreeSet::new(), Results::Seeded(salt), 1);
        if !sim.run(cut) {
            sim.crash();
        }
        prop_assert_eq!(sim.finish(), whole);
    }
}

/// An entry check leaves out who fails its self-description, and says so in its result
/// only for who lost to the baseline: the next stage's candidates are the rest.
#[test]
fn an_entry_check_leaves_out_who_fails_to_describe_itself() {
    let config = config(vec![stage_of_kind(0, 0), stage_of_kind(1, 1)]);
    let mut sim = Sim::new(&config, 4, BTreeSet::from([1]), Results::Draws, usize::MAX);
    let (results, games) = sim.finish();
    assert!(games.iter().all(|g| !g.spec.players.contains(&1)), "the entrant that failed plays nothing");
    assert_eq!(sim.started[0], Some(vec![0, 2, 3]));
    // Every game drawn: nobody beats the baseline, nobody qualifies, the next stage is
    // entered by nobody and decided at once.
    assert!(results[0].qualified.is_empty());
    assert_eq!(sim.started[1], Some(vec![]));
    assert!(games.iter().all(|g| g.spec.stage == 0));
}

/// Every preset is what the progression reads: one stage after another, each with the
/// previous one's qualified.
#[test]
fn presets_all_end() {
    for (name, config) in presets() {
        let (results, games) = Sim::new(&config, 6, BTreeSet::new(), Results::Seeded(3), 2).finish();
        assert_eq!(results.len(), config.stages.len(), "{name}");
        assert!(!games.is_empty(), "{name}");
    }
}
