//! Games being played (testing ground, human play, tournament games in progress) and
//! finished games of this server that are not in a tournament: their state move by move,
//! and a broadcast of each change for the pages that follow them.
//!
//! What the rules hide stays hidden in every channel: while the last move is hidden
//! (Nupud's set-up of White until Black's is in), the game document leaves it out of
//! `moves`, and its turn, in the document and in the `turn` event, carries no text, no
//! stderr and no note (a bot's debug log may print its set-up); the board views show
//! it as hidden. The move that ends the hiding is followed by a fresh `snapshot` event
//! with everything. Nobody is told more than a side may know, whoever asks: spectators,
//! the person playing and the tournament's viewers alike.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use referee::{GameRecord, ResultRecord, StartupRecord, TurnRecord};
use rules::{AnyPosition, GameKind, Options};
use serde::{Deserialize, Serialize};
use serde_json::json;
use tokio::sync::{broadcast, mpsc};

use crate::view::{BoardView, view, view_for_person};

/// One message of a server-sent event stream: the event name and its JSON data.
pub type Update = (&'static str, Arc<str>);

/// How many updates a slow viewer may lag behind before its stream restarts.
const UPDATE_BUFFER: usize = 256;

/// A human's seat in a game: the side, the secret that authorises its moves, and where
/// the moves go.
pub struct HumanSeat {
    pub side: usize,
    pub secret: String,
    pub moves: mpsc::Sender<String>,
    /// The ply at which the last move was sent (a second click before the referee
    /// takes the first is refused).
    pub sent_at: Mutex<Option<usize>>,
}

/// Where a game belongs.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Origin {
    /// A game of the testing ground: match id, game number within it (from 1), how
    /// many games the match has, and their ids.
    Test { r#match: String, number: usize, of: usize, games: Vec<String> },
    /// A game against a person in the browser.
    Human,
    /// A tournament game: the tournament, the game's key (for links), and where it
    /// stands for people ("league, round 2"), when known.
    Tournament {
        tournament: String,
        key: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        label: Option<String>,
    },
    /// A game of a ladder.
    Ladder { ladder: i64 },
}

/// A game as it is played.
pub struct LiveGame {
    pub id: String,
    pub kind: GameKind,
    pub names: [String; 2],
    pub options: Options,
    pub origin: Origin,
    pub human: Option<HumanSeat>,
    state: Mutex<State>,
    updates: broadcast::Sender<Update>,
}

struct State {
    position: AnyPosition,
    start_text: Option<String>,
    moves: Vec<String>,
    turns: Vec<TurnRecord>,
    startup: Vec<StartupRecord>,
    views: Vec<BoardView>,
    result: Option<ResultRecord>,
    started: bool,
}

/// Everything a page needs to show a game, live or finished.
#[derive(Clone, Debug, Serialize)]
pub struct GameJson {
    pub id: String,
    pub game: String,
    pub title: String,
    /// The game's name and its options as played, for headings ([`crate::view::heading`]).
    pub heading: String,
    pub names: [String; 2],
    pub side_names: [String; 2],
    pub options: Options,
    pub start: Option<String>,
    pub origin: Option<Origin>,
    /// Whether moves may still come.
    pub live: bool,
    /// Whether the game has started (a match's later games wait for the earlier ones).
    pub started: bool,
    pub moves: Vec<String>,
    /// The moves as people write them ([`rules::Game::move_for_people`]), for the move
    /// list.
    pub moves_shown: Vec<String>,
    pub turns: Vec<TurnRecord>,
    /// A side's failed start, with what it wrote on stderr (the game ended there).
    pub startup: Vec<StartupRecord>,
    /// The board before any move, then after each move.
    pub views: Vec<BoardView>,
    pub result: Option<ResultJson>,
    /// The side a person plays in this game, if any.
    pub human_side: Option<usize>,
}

/// How a game ended, with a line for people.
#[derive(Clone, Debug, Serialize)]
pub struct ResultJson {
    pub winner: Option<usize>,
    pub scores: Option<[i64; 2]>,
    pub termination: String,
    pub description: String,
}

impl ResultJson {
    pub fn of(result: &ResultRecord, names: &[String; 2]) -> ResultJson {
        let names_ref = [names[0].as_str(), names[1].as_str()];
        let verdict = match result.winner {
            Some(side) if names[side] == "you" => "you win".to_string(),
            Some(side) => format!("{} wins", names[side]),
            None => "draw".to_string(),
        };
        let scores = result.scores.map(|[a, b]| format!(" {a} : {b}")).unwrap_or_default();
        ResultJson {
            winner: result.winner,
            scores: result.scores,
            termination: result.termination.kind().to_string(),
            description: format!("{verdict}{scores}, {}", result.termination.describe(names_ref)),
        }
    }
}

impl GameJson {
    /// The page data of a finished game from its record.
    pub fn from_record(id: String, record: &GameRecord, origin: Option<Origin>) -> Result<GameJson, String> {
        let kind = GameKind::from_name(&record.game).map_err(|err| err.to_string())?;
        let views = crate::view::views_of_record(kind, &record.options, record.start.as_deref(), &record.moves)?;
        let names = [record.players[0].name.clone(), record.players[1].name.clone()];
        Ok(GameJson {
            id,
            game: kind.name().to_string(),
            title: kind.title().to_string(),
            heading: crate::view::heading(kind, &record.options),
            side_names: kind.side_names().map(str::to_string),
            options: record.options.clone(),
            start: record.start.clone(),
            origin,
            live: false,
            started: true,
            moves_shown: record.moves.iter().map(|m| kind.move_for_people(m)).collect(),
            moves: record.moves.clone(),
            turns: record.turns.clone(),
            startup: record.startup.clone(),
            views,
            result: Some(ResultJson::of(&record.result, &names)),
            names,
            human_side: None,
        })
    }
}

impl LiveGame {
    /// A game about to start from `start`.
    pub fn new(id: String, names: [String; 2], options: Options, start: AnyPosition, origin: Origin, human: Option<HumanSeat>) -> LiveGame {
        let kind = start.kind();
        let first = if human.is_some() { view_for_person(&start) } else { view(&start) };
        let state = State {
            start_text: start.start_text(),
            views: vec![first],
            position: start,
            moves: Vec::new(),
            turns: Vec::new(),
            startup: Vec::new(),
            result: None,
            started: false,
        };
        let (updates, _) = broadcast::channel(UPDATE_BUFFER);
        LiveGame { id, kind, names, options, origin, human, state: Mutex::new(state), updates }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The game starts being played.
    pub fn start(&self) {
        let mut state = self.lock();
        state.started = true;
        let _ = self.updates.send(("started", Arc::from("{}")));
    }

    /// A move was accepted: `position` is the position after it.
    pub fn turn(&self, position: &AnyPosition, turn: &TurnRecord) {
        let board = if self.human.is_some() { view_for_person(position) } else { view(position) };
        let mut state = self.lock();
        let was_hiding = hiding(&state);
        state.position = position.clone();
        if let Some(text) = &turn.text {
            state.moves.push(text.clone());
        }
        state.turns.push(turn.clone());
        state.views.push(board.clone());
        let shown = if hiding(&state) { redacted(turn) } else { turn.clone() };
        let people = shown.text.as_deref().map(|m| self.kind.move_for_people(m));
        let data = json!({ "index": state.views.len() - 1, "move": shown.text, "move_shown": people, "turn": shown, "view": board, "sent_us": now_us() });
        let _ = self.updates.send(("turn", Arc::from(data.to_string())));
        if was_hiding && !hiding(&state) {
            self.send_snapshot(&state);
        }
    }

    /// Sends the whole game document again (after a hidden move is revealed).
    fn send_snapshot(&self, state: &State) {
        let snapshot = serde_json::to_string(&self.json_locked(state)).unwrap_or_default();
        let _ = self.updates.send(("snapshot", Arc::from(snapshot)));
    }

    /// The game ended with this record.
    pub fn finish(&self, record: &GameRecord) {
        let mut state = self.lock();
        let was_hiding = hiding(&state);
        // The record's turns include the faulty last one, which `turn` never saw.
        state.turns = record.turns.clone();
        state.startup = record.startup.clone();
        state.result = Some(record.result.clone());
        state.started = true;
        if was_hiding {
            // Over during the hidden set-up: the game document now shows everything.
            self.send_snapshot(&state);
        }
        let result = ResultJson::of(&record.result, &self.names);
        let data = json!({ "result": result, "turns": record.turns, "startup": record.startup, "sent_us": now_us() });
        let _ = self.updates.send(("end", Arc::from(data.to_string())));
    }

    /// Whether the game has ended.
    pub fn finished(&self) -> bool {
        self.lock().result.is_some()
    }

    /// The position now.
    pub fn position(&self) -> AnyPosition {
        self.lock().position.clone()
    }

    /// The position now and how many moves led to it.
    pub fn position_and_ply(&self) -> (AnyPosition, usize) {
        let state = self.lock();
        (state.position.clone(), state.moves.len())
    }

    /// The page data now, and a receiver of every later change (taken under the same
    /// lock, so that no change falls between them).
    pub fn snapshot_and_subscribe(&self) -> (GameJson, broadcast::Receiver<Update>) {
        let state = self.lock();
        let receiver = self.updates.subscribe();
        (self.json_locked(&state), receiver)
    }

    pub fn snapshot(&self) -> GameJson {
        let state = self.lock();
        self.json_locked(&state)
    }

    fn json_locked(&self, state: &State) -> GameJson {
        let (mut moves, mut turns) = (state.moves.clone(), state.turns.clone());
        if hiding(state) {
            moves.pop();
            if let Some(last) = turns.iter_mut().rev().find(|t| t.text.is_some()) {
                *last = redacted(last);
            }
        }
        GameJson {
            id: self.id.clone(),
            game: self.kind.name().to_string(),
            title: self.kind.title().to_string(),
            heading: crate::view::heading(self.kind, &self.options),
            names: self.names.clone(),
            side_names: self.kind.side_names().map(str::to_string),
            options: self.options.clone(),
            start: state.start_text.clone(),
            origin: Some(self.origin.clone()),
            live: state.result.is_none(),
            started: state.started,
            moves_shown: moves.iter().map(|m| self.kind.move_for_people(m)).collect(),
            moves,
            turns,
            startup: state.startup.clone(),
            views: state.views.clone(),
            result: state.result.as_ref().map(|r| ResultJson::of(r, &self.names)),
            human_side: self.human.as_ref().map(|h| h.side),
        }
    }
}

/// Whether the game's last move is hidden from the sides now (and so from everyone).
fn hiding(state: &State) -> bool {
    state.result.is_none() && state.position.hides_last_move()
}

/// A turn as it may be shown while its move is hidden: its side and time only.
fn redacted(turn: &TurnRecord) -> TurnRecord {
    let mut shown = turn.clone();
    shown.text = None;
    shown.stderr = String::new();
    shown.stderr_dropped = 0;
    shown.note = None;
    shown.input = String::new();
    shown
}

/// All the games this server plays or played, by id.
pub struct Registry {
    games: Mutex<HashMap<String, Arc<LiveGame>>>,
    next: AtomicU64,
    /// Where finished games outside tournaments are kept (`<id>.json`).
    folder: PathBuf,
}

impl Registry {
    pub fn new(folder: PathBuf) -> Registry {
        Registry { games: Mutex::new(HashMap::new()), next: AtomicU64::new(1), folder }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<LiveGame>>> {
        self.games.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// A fresh game id, unique in this server's life and across restarts (it carries the
    /// start time).
    pub fn new_id(&self) -> String {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        format!("g{}-{n}", now_ms() / 1000)
    }

    /// A fresh id for a ladder game: [`LADDER_PREFIX`] instead of `g`, so that the
    /// lists of the front page leave ladder games out without reading them (a ladder
    /// plays thousands; the ladder's own page lists them, a page at a time).
    pub fn new_ladder_id(&self) -> String {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        format!("{LADDER_PREFIX}{}-{n}", now_ms() / 1000)
    }

    pub fn insert(&self, game: Arc<LiveGame>) {
        self.lock().insert(game.id.clone(), game);
    }

    pub fn get(&self, id: &str) -> Option<Arc<LiveGame>> {
        self.lock().get(id).cloned()
    }

    pub fn remove(&self, id: &str) {
        self.lock().remove(id);
    }

    /// Games still being played, oldest first.
    pub fn running(&self) -> Vec<Arc<LiveGame>> {
        let mut games: Vec<Arc<LiveGame>> = self.lock().values().filter(|g| !g.finished()).cloned().collect();
        games.sort_by(|a, b| a.id.cmp(&b.id));
        games
    }

    /// Keeps a finished game's record on disk (written to a temporary name, then renamed,
    /// so a crash leaves the old state or the new one).
    pub async fn save_record(&self, id: &str, record: &GameRecord, origin: &Origin) -> std::io::Result<()> {
        tokio::fs::create_dir_all(&self.folder).await?;
        let body = json!({ "origin": origin, "record": record }).to_string();
        let temp = self.folder.join(format!(".{id}.json.tmp"));
        tokio::fs::write(&temp, body).await?;
        tokio::fs::rename(&temp, self.folder.join(format!("{id}.json"))).await
    }

    /// A finished game kept on disk.
    pub async fn load_record(&self, id: &str) -> Option<(GameRecord, Option<Origin>)> {
        if !valid_id(id) {
            return None;
        }
        let text = tokio::fs::read_to_string(self.folder.join(format!("{id}.json"))).await.ok()?;
        let value: serde_json::Value = serde_json::from_str(&text).ok()?;
        let record: GameRecord = serde_json::from_value(value.get("record")?.clone()).ok()?;
        let origin = value.get("origin").and_then(|o| serde_json::from_value(o.clone()).ok());
        Some((record, origin))
    }

    /// Ids of the finished games kept on disk, newest first.
    pub async fn stored_ids(&self) -> Vec<String> {
        let mut ids = Vec::new();
        if let Ok(mut entries) = tokio::fs::read_dir(&self.folder).await {
            while let Ok(Some(entry)) = entries.next_entry().await {
                if let Some(id) = entry.file_name().to_str().and_then(|n| n.strip_suffix(".json"))
                    && valid_id(id)
                {
                    ids.push(id.to_string());
                }
            }
        }
        ids.sort_by(|a, b| b.cmp(a));
        ids
    }
}

/// How a ladder game's id begins ([`Registry::new_ladder_id`]).
pub const LADDER_PREFIX: &str = "l";

/// A game id as this server makes them (letters, digits, `-`), so that it is safe as a
/// file name.
fn valid_id(id: &str) -> bool {
    !id.is_empty() && id.len() <= 64 && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
}

pub fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

pub fn now_us() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_micros() as u64)
}
