//! Nupud's hidden set-up stays hidden in every channel while it is hidden (White's
//! set-up until Black's is in): the game document (`moves`, `turns[].text`, the
//! set-up turn's stderr, where the sample bots print their set-up), the event stream
//! (`snapshot` and `turn`) and the tournament's game endpoint; then it is revealed to
//! all at once. Tested in human play as Black and as White, for a spectator of a
//! testing-ground match and of a tournament game in progress. Program bots that wait
//! for a gate file before their set-up hold the hidden phase open as long as the test
//! needs it, without timing.

mod common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::{Events, SAFETY, TOKEN, get_json, post_json, request};
use serde_json::{Value, json};

/// The sample Python bot, which prints its set-up on stderr (`white: set-up 143211`).
fn sample_bot() -> PathBuf {
    common::repo_root().join("bots/nupud/python").canonicalize().expect("the sample Nupud bot")
}

/// The gate script: the sample bot, except that once `gates/armed` exists a set-up
/// call (`place white|black`) waits for `gates/go-white|black` first.
fn gate_script(gates: &Path) -> String {
    let random = sample_bot().join("random_bot.py");
    format!(
        r#"import os, subprocess, sys, time
GATES = {gates:?}
data = sys.stdin.read()
words = data.split("\n")[0].split()
if len(words) == 2 and words[0] == "place" and os.path.exists(os.path.join(GATES, "armed")):
    gate = os.path.join(GATES, "go-" + words[1])
    deadline = time.time() + 240
    while not os.path.exists(gate) and time.time() < deadline:
        time.sleep(0.01)
answer = subprocess.run([sys.executable, {random:?}], input=data, text=True, capture_output=True)
sys.stdout.write(answer.stdout)
sys.stderr.write(answer.stderr)
"#,
        gates = gates.display().to_string(),
        random = random.display().to_string(),
    )
}

const GATED_MANIFEST: &str = "name = \"gated\"\ngame = \"nupud\"\nprotocol = \"nupud\"\ncommand = [\"python3\", \"./gate.py\"]\n";

/// A gated bot's folder.
fn gated_bot(dir: &Path, gates: &Path) -> PathBuf {
    std::fs::create_dir_all(dir).expect("the bot's folder");
    std::fs::write(dir.join("bot.toml"), GATED_MANIFEST).expect("bot.toml");
    std::fs::write(dir.join("gate.py"), gate_script(gates)).expect("gate.py");
    dir.to_path_buf()
}

fn open_gate(gates: &Path, name: &str) {
    std::fs::write(gates.join(name), "").expect("a gate file");
}

/// Polls a game document until `ready` holds, within the safety bound.
async fn game_when(addr: std::net::SocketAddr, path: &str, ready: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + SAFETY;
    loop {
        let (status, game) = get_json(addr, path).await;
        if status == 200 && ready(&game) {
            return game;
        }
        assert!(Instant::now() < deadline, "GET {path}: not ready within {SAFETY:?}: {game}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn views(game: &Value) -> usize {
    game["views"].as_array().map_or(0, Vec::len)
}

/// A game document in the hidden phase: White has set up, Black not yet; nothing of
/// White's set-up is in it but the fact that it was made.
fn assert_hidden(game: &Value, channel: &str) {
    assert_eq!(views(game), 2, "{channel}: White has set up: {game}");
    assert_eq!(game["moves"], json!([]), "{channel}: the hidden set-up is not in `moves`");
    let turns = game["turns"].as_array().expect("turns");
    assert_eq!(turns.len(), 1, "{channel}: {game}");
    assert_eq!(turns[0]["side"], 0);
    for field in ["text", "stderr", "note"] {
        assert!(turns[0].get(field).is_none(), "{channel}: the hidden turn shows its {field}: {}", turns[0]);
    }
    let status = game["views"][1]["status"].as_str().expect("a status line");
    assert!(status.contains("(hidden)"), "{channel}: {status}");
    assert_eq!(game["views"][1]["last_move"], Value::Null, "{channel}");
}

/// A set-up as it can appear in a body: a JSON string, or the sample bot's stderr line.
fn traces(setup: &str) -> [String; 2] {
    [format!("\"{setup}\""), format!("set-up {setup}")]
}

fn assert_not_in(bodies: &[(String, String)], setup: &str) {
    for (channel, body) in bodies {
        for trace in traces(setup) {
            assert!(!body.contains(&trace), "{channel} showed White's set-up {setup} while it was hidden: {body}");
        }
    }
}

/// The next `turn` event (skipping `started`).
async fn next_turn(events: &mut Events, what: &str) -> Value {
    loop {
        let event = events.expect_next(what).await;
        match event.name.as_str() {
            "started" => {}
            "turn" => return event.json(),
            other => panic!("{what}: unexpected event {other}: {}", event.data),
        }
    }
}

/// After the move that ends the hiding: its `turn` event, then a `snapshot` with
/// everything; White's set-up, as revealed.
async fn revealed(events: &mut Events) -> (Value, String) {
    let turn = next_turn(events, "Black's set-up").await;
    assert_eq!(turn["index"], 2, "{turn}");
    assert!(turn["move"].as_str().is_some_and(|m| m.len() == 6), "Black's set-up is shown once both are in: {turn}");
    let event = events.expect_next("the snapshot after the reveal").await;
    assert_eq!(event.name, "snapshot", "{}", event.data);
    let game = event.json();
    let moves = game["moves"].as_array().expect("moves");
    assert_eq!(moves.len(), 2, "both set-ups: {game}");
    assert_eq!(moves[1], turn["move"]);
    assert_eq!(game["turns"][0]["text"], moves[0]);
    let setup = moves[0].as_str().expect("White's set-up").to_string();
    let mut digits: Vec<char> = setup.chars().collect();
    digits.sort();
    assert_eq!(digits.into_iter().collect::<String>(), "111234", "a set-up is a permutation of 432111: {setup}");
    (game, setup)
}

// ---------------------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_playing_black_never_sees_whites_set_up_before_giving_theirs() {
    let data = tempfile::tempdir().expect("a temporary folder");
    let server = common::start(data.path(), vec![]).await;
    let (status, started) = post_json(server.addr, "/api/play", false, &json!({ "game": "nupud", "bot": "random", "side": 1 })).await;
    assert_eq!(status, 201, "{started}");
    let id = started["games"][0].as_str().expect("an id").to_string();
    let secret = started["secret"].as_str().expect("a secret").to_string();
    let path = format!("/api/games/{id}");

    // The bot (White) sets up at once; the person has not.
    let mut seen = Vec::new();
    let game = game_when(server.addr, &path, |g| views(g) == 2).await;
    assert_hidden(&game, "GET the game");
    seen.push((format!("GET {path}"), game.to_string()));
    let mut events = Events::open(server.addr, &format!("{path}/events")).await.expect("the game's stream");
    let snapshot = events.expect_next("the snapshot").await;
    assert_eq!(snapshot.name, "snapshot");
    assert_hidden(&snapshot.json(), "the stream's snapshot");
    seen.push(("the snapshot event".into(), snapshot.data.clone()));
    let (_, list) = get_json(server.addr, "/api/games").await;
    seen.push(("GET /api/games".into(), list.to_string()));

    let (status, answer) = post_json(server.addr, &format!("{path}/move"), false, &json!({ "move": "111234", "secret": secret })).await;
    assert_eq!((status, &answer), (200, &json!({ "accepted": "111234", "shown": "111234" })));
    let (game, setup) = revealed(&mut events).await;
    assert_eq!(game["moves"][1], "111234");
    assert_not_in(&seen, &setup);
    // The game goes on (the bot moves at once): its document starts with both set-ups.
    let (_, now) = get_json(server.addr, &path).await;
    assert_eq!((&now["moves"][0], &now["moves"][1]), (&game["moves"][0], &game["moves"][1]), "the game document shows both set-ups now");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_playing_white_has_their_set_up_hidden_until_the_bot_has_set_up() {
    let data = tempfile::tempdir().expect("a temporary folder");
    let server = common::start(data.path(), vec![]).await;
    let (status, started) = post_json(server.addr, "/api/play", false, &json!({ "game": "nupud", "bot": "random", "side": 0 })).await;
    assert_eq!(status, 201, "{started}");
    let id = started["games"][0].as_str().expect("an id").to_string();
    let secret = started["secret"].as_str().expect("a secret").to_string();
    let path = format!("/api/games/{id}");
    let mut events = Events::open(server.addr, &format!("{path}/events")).await.expect("the game's stream");
    let snapshot = events.expect_next("the snapshot").await;
    assert_eq!(views(&snapshot.json()), 1, "nobody has set up: {}", snapshot.data);

    let (status, _) = post_json(server.addr, &format!("{path}/move"), false, &json!({ "move": "214311", "secret": secret })).await;
    assert_eq!(status, 200);
    // The person's set-up goes out as a turn without its text.
    let turn = next_turn(&mut events, "the person's set-up").await;
    assert_eq!((&turn["index"], &turn["move"]), (&json!(1), &Value::Null), "{turn}");
    assert!(turn["turn"].get("text").is_none(), "{turn}");
    assert!(turn["view"]["status"].as_str().is_some_and(|s| s.contains("(hidden)")), "{turn}");
    assert_not_in(&[("the turn event".into(), turn.to_string())], "214311");
    let (_, setup) = revealed(&mut events).await;
    assert_eq!(setup, "214311");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spectator_of_the_testing_ground_sees_no_hidden_set_up() {
    let root = tempfile::tempdir().expect("a temporary folder");
    let gates = root.path().join("gates");
    std::fs::create_dir_all(&gates).expect("the gates folder");
    let server = common::start(&root.path().join("data"), vec![]).await;
    // The gated bot is registered (its entry check runs ungated), then armed.
    let boundary = "----hidden-test";
    let mut form = String::new();
    for (name, file, content) in [("manifest", "bot.toml", GATED_MANIFEST.to_string()), ("files", "gate.py", gate_script(&gates))] {
        form.push_str(&format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"; filename=\"{file}\"\r\nContent-Type: application/octet-stream\r\n\r\n{content}\r\n"
        ));
    }
    form.push_str(&format!("--{boundary}--\r\n"));
    let content_type = format!("multipart/form-data; boundary={boundary}");
    let auth = format!("Bearer {TOKEN}");
    let response =
        request(server.addr, "POST", "/api/submissions", &[("Content-Type", &content_type), ("Authorization", &auth)], Some(&form)).await;
    assert_eq!(response.status, 201, "{}", response.body);
    open_gate(&gates, "armed");

    // White is the sample bot (registered too, it prints its set-up on stderr); the
    // gated bot is Black and holds the hidden phase open.
    let sample_manifest = std::fs::read_to_string(sample_bot().join("bot.toml")).expect("the sample's manifest");
    let sample_code = std::fs::read_to_string(sample_bot().join("random_bot.py")).expect("the sample's program");
    let mut form = String::new();
    for (name, file, content) in [("manifest", "bot.toml", sample_manifest), ("files", "random_bot.py", sample_code)] {
        form.push_str(&format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"; filename=\"{file}\"\r\nContent-Type: application/octet-stream\r\n\r\n{content}\r\n"
        ));
    }
    form.push_str(&format!("--{boundary}\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\nsample\r\n--{boundary}--\r\n"));
    let response =
        request(server.addr, "POST", "/api/submissions", &[("Content-Type", &content_type), ("Authorization", &auth)], Some(&form)).await;
    assert_eq!(response.status, 201, "{}", response.body);

    let (status, started) = post_json(server.addr, "/api/test", false, &json!({ "game": "nupud", "bots": ["sample", "gated"] })).await;
    assert_eq!(status, 201, "{started}");
    let id = started["games"][0].as_str().expect("an id").to_string();
    let path = format!("/api/games/{id}");
    let game = game_when(server.addr, &path, |g| views(g) == 2).await;
    assert_hidden(&game, "GET the game");
    let mut seen = vec![(format!("GET {path}"), game.to_string())];
    let mut events = Events::open(server.addr, &format!("{path}/events")).await.expect("the game's stream");
    let snapshot = events.expect_next("the snapshot").await;
    assert_hidden(&snapshot.json(), "the stream's snapshot");
    seen.push(("the snapshot event".into(), snapshot.data.clone()));

    open_gate(&gates, "go-black");
    let (game, setup) = revealed(&mut events).await;
    assert!(game["turns"][0]["stderr"].as_str().is_some_and(|s| s.contains(&format!("set-up {setup}"))), "{game}");
    assert_not_in(&seen, &setup);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spectator_of_a_tournament_game_sees_no_hidden_set_up() {
    let root = tempfile::tempdir().expect("a temporary folder");
    let gates = root.path().join("gates");
    std::fs::create_dir_all(&gates).expect("the gates folder");
    open_gate(&gates, "armed");
    let gated = gated_bot(&root.path().join("gated"), &gates);
    let server = common::start(&root.path().join("data"), vec![]).await;
    let config = format!(
        "name = \"Hidden\"\ngame = \"nupud\"\nseed = 3\n\n[[entrant]]\nname = \"sample\"\nbot = \"{}\"\n\n[[entrant]]\nname = \"gated\"\nbot = \"{}\"\n\n[[stage]]\nformat = \"round-robin\"\ndeals = 1\n",
        sample_bot().display(),
        gated.display()
    );
    let (status, body) = post_json(server.addr, "/api/tournaments", true, &json!({ "config": config })).await;
    assert_eq!(status, 201, "{body}");
    let tid = body["id"].as_str().expect("the tournament's id").to_string();

    // Both games start (two jobs); each waits for a gate of the gated bot.
    let deadline = Instant::now() + SAFETY;
    let in_progress = loop {
        let (_, games) = get_json(server.addr, &format!("/api/tournaments/{tid}/games")).await;
        let list = games["in_progress"].as_array().cloned().unwrap_or_default();
        if list.len() == 2 {
            break list;
        }
        assert!(Instant::now() < deadline, "both games in progress within {SAFETY:?}: {games}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let game_of = |white: &str| {
        let game = in_progress.iter().find(|g| g["names"][0] == white).unwrap_or_else(|| panic!("a game with {white} as White"));
        (game["live_id"].as_str().expect("a live id").to_string(), game["key"].as_str().expect("a key").to_string())
    };
    let (sample_white, sample_key) = game_of("sample");
    let (gated_white, _) = game_of("gated");

    // The sample bot (White) has set up; the gated bot (Black) waits.
    let path = format!("/api/games/{sample_white}");
    let game = game_when(server.addr, &path, |g| views(g) == 2).await;
    assert_hidden(&game, "GET the live game");
    let mut seen = vec![(format!("GET {path}"), game.to_string())];
    let by_key = format!("/api/tournaments/{tid}/game?key={sample_key}");
    let (status, game) = get_json(server.addr, &by_key).await;
    assert_eq!(status, 200);
    assert_hidden(&game, "GET the tournament's game");
    seen.push((format!("GET {by_key}"), game.to_string()));
    let mut sample_events = Events::open(server.addr, &format!("{path}/events")).await.expect("the game's stream");
    let snapshot = sample_events.expect_next("the snapshot").await;
    assert_hidden(&snapshot.json(), "the stream's snapshot");
    seen.push(("the snapshot event".into(), snapshot.data.clone()));
    for path in [format!("/api/tournaments/{tid}"), format!("/api/tournaments/{tid}/games"), "/api/games".into()] {
        let (_, body) = get_json(server.addr, &path).await;
        seen.push((format!("GET {path}"), body.to_string()));
    }

    // The gated bot as White: its set-up goes out as a turn event without text or
    // stderr, then the sample bot (Black) sets up and both are revealed.
    let mut gated_events = Events::open(server.addr, &format!("/api/games/{gated_white}/events")).await.expect("the game's stream");
    let snapshot = gated_events.expect_next("the snapshot").await;
    assert_eq!(views(&snapshot.json()), 1, "the gated bot has not set up: {}", snapshot.data);
    open_gate(&gates, "go-white");
    let turn = next_turn(&mut gated_events, "the gated bot's set-up").await;
    assert_eq!((&turn["index"], &turn["move"]), (&json!(1), &Value::Null), "{turn}");
    assert!(turn["turn"].get("text").is_none() && turn["turn"].get("stderr").is_none(), "{turn}");
    let (game, setup) = revealed(&mut gated_events).await;
    assert!(game["turns"][0]["stderr"].as_str().is_some_and(|s| s.contains(&format!("set-up {setup}"))), "{game}");
    assert_not_in(&[("the turn event".into(), turn.to_string())], &setup);

    // The gated bot sets up as Black: the sample bot's set-up is revealed, and it was
    // nowhere before.
    open_gate(&gates, "go-black");
    let (game, setup) = revealed(&mut sample_events).await;
    assert!(game["turns"][0]["stderr"].as_str().is_some_and(|s| s.contains(&format!("set-up {setup}"))), "{game}");
    assert_not_in(&seen, &setup);
}
