//! The local runner in-process: its record in memory, the referee's part played by a
//! stand-in that fails on demand, and paused time (tokio's), so that the retries' back-off
//! is seen without being waited out. Its results are checked against the stage
//! progression carried out alone.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use referee::GameRecord;
use referee::resources::GameResources;
use store::{Saved, StoreError};
use tournament::progress::{self, Known, StageKnown, Step};
use tournament::schedule::StageResult;
use tournament::{EntrantId, GameOutcome, GameSpec, TournamentConfig, derive_seed};

use crate::stages::{Record, Stages};
use crate::{ArenaError, Event, RETRY_WAIT, RunOptions, Runner, StandIn, StoredStageResult, outcome_of, with_baselines};

/// A record in memory.
#[derive(Default)]
struct Memory(Mutex<Stored>);

#[derive(Default)]
struct Stored {
    games: BTreeMap<String, (GameOutcome, String)>,
    notes: Vec<(usize, Option<EntrantId>, String)>,
    prints: HashMap<usize, Vec<(EntrantId, Option<String>)>>,
    results: BTreeMap<usize, String>,
}

impl Record for Memory {
    async fn games(&self) -> Result<Vec<GameOutcome>, StoreError> {
        Ok(self.0.lock().unwrap().games.values().map(|(o, _)| o.clone()).collect())
    }
    async fn save_game(&self, outcome: &GameOutcome, record_json: &str) -> Result<Saved, StoreError> {
        let mut stored = self.0.lock().unwrap();
        Ok(match stored.games.get(&outcome.spec.key) {
            Some((_, json)) if json == record_json => Saved::Again,
            Some((kept, _)) => Saved::Kept(Box::new(kept.clone())),
            None => {
                stored.games.insert(outcome.spec.key.clone(), (outcome.clone(), record_json.to_string()));
                Saved::Stored
            }
        })
    }
    async fn notes(&self) -> Result<Vec<(usize, Option<EntrantId>, String)>, StoreError> {
        Ok(self.0.lock().unwrap().notes.clone())
    }
    async fn save_note(&self, stage: usize, entrant: Option<EntrantId>, text: &str) -> Result<(), StoreError> {
        self.0.lock().unwrap().notes.push((stage, entrant, text.to_string()));
        Ok(())
    }
    async fn fingerprints(&self, stage: usize) -> Result<Vec<(EntrantId, Option<String>)>, StoreError> {
        Ok(self.0.lock().unwrap().prints.get(&stage).cloned().unwrap_or_default())
    }
    async fn save_fingerprints(&self, stage: usize, prints: &[(EntrantId, Option<String>)]) -> Result<(), StoreError> {
        self.0.lock().unwrap().prints.insert(stage, prints.to_vec());
        Ok(())
    }
    async fn stage_results(&self) -> Result<Vec<(usize, String)>, StoreError> {
        Ok(self.0.lock().unwrap().results.iter().map(|(s, r)| (*s, r.clone())).collect())
    }
    async fn save_stage_result(&self, stage: usize, result_json: &str) -> Result<(), StoreError> {
        self.0.lock().unwrap().results.insert(stage, result_json.to_string());
        Ok(())
    }
}

const CONFIG: &str = r#"
name = "in memory"
game = "connect4"
seed = 5

[[entrant]]
name = "a"
bot = "random"
[[entrant]]
name = "b"
bot = "random"
[[entrant]]
name = "c"
bot = "greedy"
[[entrant]]
name = "d"
bot = "greedy"

[[stage]]
name = "league"
format = "round-robin"
deals = 2
swap = true

[[stage]]
name = "final"
format = "final"
top = 2
deals = 2
swap = true
"#;

/// Who wins a game: from its seed (side 0, side 1, or a draw).
fn winner(spec: &GameSpec) -> Option<usize> {
    match derive_seed(spec.seed, "winner") % 3 {
        0 => Some(0),
        1 => Some(1),
        _ => None,
    }
}

/// A game's record as the stand-in gives it: ended by the rules, won as [`winner`] says.
fn record(spec: &GameSpec) -> GameRecord {
    let player = |name: &str| serde_json::json!({ "name": name, "kind": "builtin", "limits": {} });
    serde_json::from_value(serde_json::json!({
        "game": "connect4",
        "options": {},
        "seed": spec.seed,
        "players": [player("x"), player("y")],
        "moves": [],
        "turns": [],
        "result": { "winner": winner(spec), "scores": null, "termination": { "kind": "rules" } },
        "started_ms": 0,
        "duration_ms": 0,
    }))
    .expect("a record")
}

/// The stand-in referee: fails each game the first `fails(key)` times it is asked to play
/// it, and counts what it was asked.
fn stand_in(fails: impl Fn(&str) -> u32 + Send + Sync + 'static) -> (StandIn, Arc<Mutex<HashMap<String, u32>>>) {
    let asked: Arc<Mutex<HashMap<String, u32>>> = Arc::default();
    let counts = Arc::clone(&asked);
    let play: StandIn = Arc::new(move |spec: GameSpec, _start| {
        let attempt = {
            let mut asked = counts.lock().unwrap();
            let n = asked.entry(spec.key.clone()).or_default();
            *n += 1;
            *n
        };
        let result = if attempt <= fails(&spec.key) {
            Err(referee::RefereeError::new("cannot make the game's working folder", std::io::Error::other("no space left (a test)")))
        } else {
            Ok(record(&spec))
        };
        Box::pin(async move { result })
    });
    (play, asked)
}

/// Runs the tournament in `memory` with the stand-in: the run's result and its events.
async fn run(memory: &Memory, referee: StandIn) -> (Result<Vec<StoredStageResult>, ArenaError>, Vec<Event>) {
    let config = TournamentConfig::parse(CONFIG, "memory.toml").expect("the config");
    let dir = std::env::temp_dir();
    let entrants = crate::resolve_entrants(&config, &dir, None).expect("built-in entrants");
    let (all, specs, baselines) = with_baselines(&config, &entrants, &dir).expect("no baselines to add");
    let options =
        RunOptions { jobs: 2, config_dir: dir.clone(), sandboxed: false, pin: false, watch: None, wait_for_runner: false, shared: None };
    let stages = Stages::new(memory, &config, (&all, &specs), &dir, false).await.expect("the notes");
    let runner = Runner {
        stages,
        n_entrants: entrants.len(),
        baselines: &baselines,
        specs: Arc::new(specs.clone()),
        options: &options,
        resources: &GameResources::default(),
        lock: &|| Ok(()),
        referee: Some(referee),
    };
    let mut events = Vec::new();
    let result = runner.run(|event| events.push(event)).await;
    (result, events)
}

/// The tournament carried out by the progression alone, with every game as [`winner`]
/// says: the stage results the runner must reach.
fn expected() -> Vec<StageResult> {
    let config = TournamentConfig::parse(CONFIG, "memory.toml").expect("the config");
    let all: Vec<tournament::Entrant> = ["a", "b", "c", "d"]
        .iter()
        .enumerate()
        .map(|(id, name)| tournament::Entrant { id, name: name.to_string(), bot: String::new(), submitted: None })
        .collect();
    let mut stages = vec![StageKnown::default(); config.stages.len()];
    let mut games = Vec::new();
    loop {
        let known = Known { entrants: &all, n_entrants: 4, baselines: &[None, None], games: &games, stages: &stages };
        match progress::next(&config, &known) {
            Step::Openings { stage } => stages[stage].openings = Some(0),
            Step::Enter { stage, candidates, .. } => stages[stage].participants = Some(candidates),
            Step::Play { games: asked, .. } => games.extend(asked.iter().map(|spec| outcome_of(spec.clone(), &record(spec)))),
            Step::Decide { stage, result, .. } => stages[stage].result = Some(result),
            Step::Done => return stages.into_iter().map(|s| s.result.expect("decided")).collect(),
        }
    }
}

/// The `n`th game the first stage asks for first.
fn first_games(n: usize) -> String {
    let config = TournamentConfig::parse(CONFIG, "memory.toml").expect("the config");
    let all: Vec<tournament::Entrant> =
        (0..4).map(|id| tournament::Entrant { id, name: format!("{id}"), bot: String::new(), submitted: None }).collect();
    let stages = [StageKnown { openings: Some(0), participants: Some(vec![0, 1, 2, 3]), result: None }, StageKnown::default()];
    let known = Known { entrants: &all, n_entrants: 4, baselines: &[None, None], games: &[], stages: &stages };
    match progress::next(&config, &known) {
        Step::Play { games, .. } => games[n].key.clone(),
        other => panic!("the first stage plays first, not {other:?}"),
    }
}

fn notes(events: &[Event]) -> Vec<String> {
    events.iter().filter_map(|e| if let Event::Note { text, .. } = e { Some(text.clone()) } else { None }).collect()
}

/// A game the referee fails twice is tried again after 1 s, then 2 s: seen in paused
/// time, without waiting them out; the run ends as the progression says.
#[tokio::test(start_paused = true)]
async fn the_referees_failures_are_retried_after_a_doubling_wait() {
    let memory = Memory::default();
    let target = first_games(0);
    let failing = target.clone();
    let (referee, asked) = stand_in(move |key| if key == failing { 2 } else { 0 });
    let (wall, clock) = (std::time::Instant::now(), tokio::time::Instant::now());
    let (result, events) = run(&memory, referee).await;
    let results = result.expect("the run ends");
    assert_eq!(results.iter().map(StoredStageResult::to_stage_result).collect::<Vec<_>>(), expected());
    let notes = notes(&events);
    let retried: Vec<&String> = notes.iter().filter(|n| n.starts_with(&format!("game {target} was not played"))).collect();
    assert_eq!(retried.len(), 2, "{notes:?}");
    assert!(retried[0].ends_with("trying again in 1 s (attempt 2 of 3)"), "{}", retried[0]);
    assert!(retried[1].ends_with("trying again in 2 s (attempt 3 of 3)"), "{}", retried[1]);
    assert_eq!(asked.lock().unwrap()[&target], 3);
    // The waits passed on the paused clock, not on the wall's.
    assert!(clock.elapsed() >= RETRY_WAIT * 3, "{:?}", clock.elapsed());
    assert!(wall.elapsed() < RETRY_WAIT * 3, "{:?}", wall.elapsed());
    // Every game the runner asked for is stored once, and only those.
    let stored = memory.0.lock().unwrap().games.len();
    assert_eq!(stored, asked.lock().unwrap().len());
    assert!(events.iter().any(|e| matches!(e, Event::StageFinished { stage: 1, .. })));
}

/// A game the referee always fails stops the run after three attempts (the games under
/// way are stored); the next run plays only what is missing and ends as an
/// uninterrupted one would.
#[tokio::test(start_paused = true)]
async fn a_run_stopped_by_the_referee_resumes_to_the_same_result() {
    let memory = Memory::default();
    let target = first_games(1);
    let failing = target.clone();
    let (referee, _) = stand_in(move |key| if key == failing { u32::MAX } else { 0 });
    let (result, _) = run(&memory, referee).await;
    match result {
        Err(ArenaError::Referee { key, attempts, .. }) => assert_eq!((key.as_str(), attempts), (target.as_str(), 3)),
        other => panic!("expected the referee's failure, got {other:?}"),
    }
    let stored_before: Vec<String> = memory.0.lock().unwrap().games.keys().cloned().collect();
    assert!(!stored_before.is_empty(), "the games that ended before the stop are kept");
    assert!(!stored_before.contains(&target));

    let (referee, asked) = stand_in(|_| 0);
    let (result, events) = run(&memory, referee).await;
    let results = result.expect("the resumed run ends");
    assert_eq!(results.iter().map(StoredStageResult::to_stage_result).collect::<Vec<_>>(), expected());
    let asked = asked.lock().unwrap();
    assert!(stored_before.iter().all(|key| !asked.contains_key(key)), "a stored game was played again");
    assert!(asked.values().all(|&n| n == 1));
    match &events[0] {
        Event::StageStarted { stage: 0, finished, .. } => assert_eq!(*finished, stored_before.len()),
        other => panic!("the first event is the first stage's start, not {other:?}"),
    }
}

/// A baseline that names no bot is an error a caller can tell from the others, in the
/// words the command line prints.
#[test]
fn a_baseline_that_is_no_bot_is_a_bot_error() {
    let text = CONFIG.replace("format = \"final\"\ntop = 2", "format = \"entry-check\"\nbaseline = \"no-such-bot\"");
    let config = TournamentConfig::parse(&text, "memory.toml").expect("the config");
    let dir = tempfile::tempdir().expect("a folder");
    let entrants = crate::resolve_entrants(&config, dir.path(), None).expect("built-in entrants");
    match with_baselines(&config, &entrants, dir.path()) {
        Err(error @ ArenaError::Bot(_)) => assert!(error.to_string().contains("no-such-bot"), "{error}"),
        Err(other) => panic!("expected ArenaError::Bot, got {other:?}"),
        Ok(_) => panic!("a baseline that is no bot was taken"),
    }
}
