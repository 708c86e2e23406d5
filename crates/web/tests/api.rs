//! The web arena's JSON API over real HTTP on 127.0.0.1: refusals (a table of bad
//! requests that must change nothing), the testing ground followed live, human play to
//! the end, tournaments started from the web with their live standings, a database
//! written by the command-line runner, and a tournament resumed after its server died.

mod common;

use std::collections::BTreeSet;
use std::path::Path;

use common::{Events, SAFETY, games_of, get_json, post_json, request, round_robin};
use serde_json::{Value, json};

// ---------------------------------------------------------------------------------------
// Refusals

/// A request that must be refused: what is sent, the status, and a piece of the message.
struct Bad {
    method: &'static str,
    path: &'static str,
    headers: &'static [(&'static str, &'static str)],
    body: Option<&'static str>,
    status: u16,
    says: &'static str,
}

const JSON: &[(&str, &str)] = &[("Content-Type", "application/json")];
const ORGANISER: &[(&str, &str)] = &[("Content-Type", "application/json"), ("Authorization", "Bearer test-token-123")];

const fn bad(
    method: &'static str,
    path: &'static str,
    headers: &'static [(&'static str, &'static str)],
    body: Option<&'static str>,
    status: u16,
    says: &'static str,
) -> Bad {
    Bad { method, path, headers, body, status, says }
}

const BAD_REQUESTS: &[Bad] = &[
    // The testing ground.
    bad(
        "POST",
        "/api/test",
        JSON,
        Some(r#"{"game":"checkers","bots":["random","random"]}"#),
        400,
        "unknown game \"checkers\" (games: gomoku, connect4, pahtum, legions, nupud",
    ),
    bad(
        "POST",
        "/api/test",
        JSON,
        Some(r#"{"game":"connect4","options":{"width":"99"},"bots":["random","random"]}"#),
        400,
        "options for connect4",
    ),
    bad(
        "POST",
        "/api/test",
        JSON,
        Some(r#"{"game":"connect4","options":{"colour":"red"},"bots":["random","random"]}"#),
        400,
        "options for connect4",
    ),
    bad("POST", "/api/test", JSON, Some(r#"{"game":"connect4"}"#), 400, "missing field `bots`"),
    bad("POST", "/api/test", JSON, Some(r#"{"game":"connect4","bots":["random","random"],"speed":3}"#), 400, "unknown field `speed`"),
    bad("POST", "/api/test", JSON, Some(r#"{"game":"connect4","bots":["random"]}"#), 400, "bad request body"),
    bad("POST", "/api/test", JSON, Some("game=connect4&bots=random"), 400, "bad request body"),
    bad(
        "POST",
        "/api/test",
        &[("Content-Type", "text/plain")],
        Some(r#"{"game":"connect4","bots":["random","random"]}"#),
        415,
        "application/json",
    ),
    bad("POST", "/api/test", &[], Some(r#"{"game":"connect4","bots":["random","random"]}"#), 415, "application/json"),
    bad(
        "POST",
        "/api/test",
        JSON,
        Some(r#"{"game":"connect4","bots":["random","random"],"games":0}"#),
        400,
        "games must be 1 to 20, not 0",
    ),
    bad(
        "POST",
        "/api/test",
        JSON,
        Some(r#"{"game":"connect4","bots":["random","random"],"games":21}"#),
        400,
        "games must be 1 to 20, not 21",
    ),
    bad(
        "POST",
        "/api/test",
        JSON,
        Some(r#"{"game":"connect4","bots":["random","stockfish"]}"#),
        400,
        "unknown bot \"stockfish\" for connect4",
    ),
    // Human play.
    bad(
        "POST",
        "/api/play",
        JSON,
        Some(r#"{"game":"checkers","bot":"random"}"#),
        400,
        "unknown game \"checkers\" (games: gomoku, connect4, pahtum, legions, nupud",
    ),
    bad("POST", "/api/play", JSON, Some(r#"{"game":"pahtum","bot":"deep-blue"}"#), 400, "unknown bot \"deep-blue\" for pahtum"),
    bad("POST", "/api/play", JSON, Some(r#"{"game":"pahtum","bot":"random","side":2}"#), 400, "side must be 0 (move first) or 1, not 2"),
    bad("POST", "/api/play", JSON, Some(r#"{"game":"gomoku","options":{"size":"3"},"bot":"random"}"#), 400, "options for gomoku"),
    bad("POST", "/api/play", JSON, Some(r#"{"bot":"random"}"#), 400, "missing field `game`"),
    // Moves on games that do not exist.
    bad("POST", "/api/games/g1-1/move", JSON, Some(r#"{"move":"a1","secret":"x"}"#), 404, "no game \"g1-1\" is being played"),
    bad("POST", "/api/games/g1-1/move", JSON, Some(r#"{"move":"a1"}"#), 400, "missing field `secret`"),
    // Tournaments.
    bad("POST", "/api/tournaments", JSON, Some(r#"{"preset":"connect4-2008"}"#), 401, "sign in with the organiser's token"),
    bad(
        "POST",
        "/api/tournaments",
        &[("Content-Type", "application/json"), ("Authorization", "Bearer not-the-token")],
        Some(r#"{"preset":"connect4-2008"}"#),
        403,
        "wrong organiser token",
    ),
    bad(
        "POST",
        "/api/tournaments",
        &[("Content-Type", "application/json"), ("Authorization", "test-token-123")],
        Some(r#"{"preset":"connect4-2008"}"#),
        401,
        "organiser's token",
    ),
    bad(
        "POST",
        "/api/tournaments",
        ORGANISER,
        Some(r#"{"preset":"chess-1851"}"#),
        404,
        "no preset \"chess-1851\" (presets: chess, connect4-2008, gomoku-2004",
    ),
    bad("POST", "/api/tournaments", ORGANISER, Some(r#"{}"#), 400, "give either `preset`"),
    bad(
        "POST",
        "/api/tournaments",
        ORGANISER,
        Some(r#"{"preset":"connect4-2008","config":"game = \"connect4\""}"#),
        400,
        "give either `preset`",
    ),
    bad(
        "POST",
        "/api/tournaments",
        ORGANISER,
        Some(r#"{"preset":"connect4-2008","entrants":"everyone"}"#),
        400,
        "entrants must be config, submissions or both",
    ),
    bad("POST", "/api/tournaments", ORGANISER, Some(r#"{"config":"game = \"checkers\"\n"}"#), 400, "unknown game \"checkers\""),
    bad("POST", "/api/tournaments", ORGANISER, Some(r#"{"config":"game = \"connect4\"\n[[stage]\n"}"#), 400, "line 2"),
    bad(
        "POST",
        "/api/tournaments",
        ORGANISER,
        Some(
            r#"{"config":"name = \"t\"\ngame = \"connect4\"\n\n[[entrant]]\nbot = \"random\"\n\n[[entrant]]\nbot = \"greedy\"\n\n[[stage]]\nformat = \"round-robin\"\ndeal = 3\n"}"#,
        ),
        400,
        "line 12: unknown key \"deal\"",
    ),
    bad(
        "POST",
        "/api/tournaments",
        ORGANISER,
        Some(r#"{"config":"game = \"connect4\"\n\n[[stage]]\nformat = \"round-robin\"\n"}"#),
        400,
        "no entrants",
    ),
    bad(
        "POST",
        "/api/tournaments",
        ORGANISER,
        Some(
            r#"{"config":"game = \"connect4\"\n[[entrant]]\nbot = \"no/such/bot\"\n[[entrant]]\nbot = \"random\"\n[[stage]]\nformat = \"round-robin\"\n"}"#,
        ),
        400,
        "no/such/bot",
    ),
    bad("POST", "/api/freeze", JSON, Some(r#"{"frozen":true}"#), 401, "organiser's token"),
    // Things that are not there.
    bad("GET", "/api/nonexistent", &[], None, 404, "no API endpoint /api/nonexistent"),
    bad("POST", "/api/nonexistent", JSON, Some("{}"), 404, "no API endpoint /api/nonexistent"),
    bad("GET", "/api/tournaments/nope", &[], None, 404, "no tournament \"nope\""),
    bad("GET", "/api/tournaments/nope/events", &[], None, 404, "no tournament \"nope\""),
    bad("GET", "/api/tournaments/nope/game?key=x", &[], None, 404, "no tournament \"nope\""),
    bad("GET", "/api/games/nope", &[], None, 404, "no game \"nope\""),
    bad("GET", "/api/games/..%2F..%2Fetc%2Fpasswd", &[], None, 404, "no game"),
    bad("GET", "/api/games/nope/events", &[], None, 404, "no game \"nope\""),
    bad("GET", "/api/bots?game=checkers", &[], None, 400, "unknown game \"checkers\""),
];

#[tokio::test]
async fn bad_requests_get_a_clear_refusal_and_change_nothing() {
    let data = tempfile::tempdir().expect("a temporary folder");
    let server = common::start(data.path(), vec![]).await;
    let files_before = common::list_files(data.path());
    let mut failures = Vec::new();
    for case in BAD_REQUESTS {
        let response = request(server.addr, case.method, case.path, case.headers, case.body).await;
        let body = serde_json::from_str::<Value>(&response.body).unwrap_or_default();
        let message = body.get("error").and_then(Value::as_str).map(str::to_string);
        let mut ok = response.status == case.status && message.as_deref().is_some_and(|m| m.contains(case.says));
        // A missing token: words for people (no header syntax) and a code for programs.
        if case.status == 401 {
            ok &= body["code"] == "token-required" && message.as_deref().is_some_and(|m| !m.contains("Bearer") && !m.contains("header"));
        }
        if !ok {
            failures.push(format!(
                "{} {} {:?}: expected {} saying {:?}, got {} {}",
                case.method, case.path, case.body, case.status, case.says, response.status, response.body
            ));
        }
    }
    assert!(failures.is_empty(), "{} of {} refusals were wrong:\n{}", failures.len(), BAD_REQUESTS.len(), failures.join("\n"));

    let (status, tournaments) = get_json(server.addr, "/api/tournaments").await;
    assert_eq!((status, tournaments), (200, json!([])));
    let (status, games) = get_json(server.addr, "/api/games").await;
    assert_eq!((status, games), (200, json!({ "running": [], "finished": [] })));
    assert_eq!(common::list_files(data.path()), files_before, "a refused request left files behind");
}

#[tokio::test]
async fn the_api_lists_its_endpoints_rules_bots_and_presets() {
    let data = tempfile::tempdir().expect("a temporary folder");
    let server = common::start(data.path(), vec![]).await;
    let (status, index) = get_json(server.addr, "/api").await;
    assert_eq!(status, 200);
    assert!(index["endpoints"].as_array().is_some_and(|e| e.iter().any(|e| e == "POST /api/test")), "{index}");
    let (status, rules) = get_json(server.addr, "/api/rules").await;
    assert_eq!(status, 200);
    let names: Vec<&str> = rules.as_array().expect("a list").iter().filter_map(|g| g["name"].as_str()).collect();
    let registered: Vec<&str> = rules::GameKind::ALL.iter().map(|kind| kind.name()).collect();
    assert_eq!(names, registered);
    // A game that is not there is refused with the list of those that are.
    let (status, refusal) = post_json(server.addr, "/api/test", false, &json!({ "game": "checkers", "bots": ["random", "random"] })).await;
    assert_eq!(status, 400);
    assert_eq!(refusal["error"], format!("unknown game \"checkers\" (games: {})", registered.join(", ")));
    let (status, bots) = get_json(server.addr, "/api/bots?game=connect4").await;
    assert_eq!(status, 200);
    let names: Vec<&str> = bots.as_array().expect("a list").iter().filter_map(|b| b["name"].as_str()).collect();
    assert_eq!(names, ["random", "greedy", "medium", "strong", "perfect"]);
    // `perfect` plays Connect Four only.
    let (status, bots) = get_json(server.addr, "/api/bots?game=gomoku").await;
    assert_eq!(status, 200);
    let names: Vec<&str> = bots.as_array().expect("a list").iter().filter_map(|b| b["name"].as_str()).collect();
    assert_eq!(names, ["random", "greedy", "medium", "strong"]);
    let (status, presets) = get_json(server.addr, "/api/presets").await;
    assert_eq!(status, 200);
    // Every file of the presets folder, by name, sorted.
    let mut files: Vec<String> = std::fs::read_dir(common::repo_root().join("presets"))
        .expect("the presets folder")
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.strip_suffix(".toml").map(str::to_string))
        .collect();
    files.sort();
    assert!(files.len() >= 5 && files.contains(&"gomoku-2004".to_string()), "{files:?}");
    assert_eq!(presets, json!(files));
}

// ---------------------------------------------------------------------------------------
// Live games

/// Follows a game's event stream to its end: checks that the first event is the
/// snapshot and that every turn's index continues the views; returns the number of
/// moves and the result.
async fn follow_game(events: &mut Events) -> (usize, Value) {
    let first = events.expect_next("the game's snapshot").await;
    assert_eq!(first.name, "snapshot", "the first event of a game");
    let snapshot = first.json();
    let mut views = snapshot["views"].as_array().expect("views").len();
    if !snapshot["live"].as_bool().expect("live") {
        // Already over when the stream opened: the snapshot is the whole game.
        return (views - 1, snapshot["result"].clone());
    }
    loop {
        let event = events.expect_next("a turn or the end").await;
        match event.name.as_str() {
            "started" => {}
            "turn" => {
                let turn = event.json();
                assert_eq!(turn["index"].as_u64(), Some(views as u64), "turn indexes go one by one: {turn}");
                assert!(turn["sent_us"].as_u64().is_some(), "{turn}");
                views += 1;
            }
            "end" => return (views - 1, event.json()["result"].clone()),
            other => panic!("unexpected event {other:?}: {}", event.data),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_testing_ground_plays_a_match_live_and_keeps_its_games() {
    let data = tempfile::tempdir().expect("a temporary folder");
    let server = common::start(data.path(), vec![]).await;
    let count = 4;
    let (status, started) =
        post_json(server.addr, "/api/test", false, &json!({ "game": "connect4", "bots": ["greedy", "random"], "games": count, "seed": 5 }))
            .await;
    assert_eq!(status, 201, "{started}");
    let ids: Vec<String> = started["games"].as_array().expect("games").iter().map(|g| g.as_str().expect("an id").to_string()).collect();
    assert_eq!((ids.len(), ids.iter().collect::<BTreeSet<_>>().len()), (count, count), "distinct ids");

    // Built-in players finish a game within milliseconds, so a game may be over before
    // its stream opens (then the snapshot is the whole game); the turn-by-turn stream is
    // pinned down by the human game below, which waits for the person.
    let mut streams = Vec::new();
    for id in &ids {
        streams.push(Events::open(server.addr, &format!("/api/games/{id}/events")).await.expect("the game's event stream"));
    }
    for (n, (id, events)) in ids.iter().zip(&mut streams).enumerate() {
        let (moves, result) = follow_game(events).await;
        assert!(result["termination"].is_string() && result["description"].is_string(), "{result}");

        let (status, game) = get_json(server.addr, &format!("/api/games/{id}")).await;
        assert_eq!(status, 200);
        assert_eq!(game["live"], false);
        assert_eq!(game["moves"].as_array().expect("moves").len(), moves);
        assert_eq!(game["views"].as_array().expect("views").len(), moves + 1);
        assert_eq!(game["result"], result);
        // Sides swap after each game.
        let names = if n % 2 == 0 { ["greedy", "random"] } else { ["random", "greedy"] };
        assert_eq!(game["names"], json!(names));
        assert_eq!(game["origin"]["kind"], "test");
        assert_eq!(game["origin"]["number"], n + 1);
        assert!(data.path().join("games").join(format!("{id}.json")).is_file(), "the record of {id} is kept");
    }
    let (_, first) = get_json(server.addr, &format!("/api/games/{}", ids[0])).await;
    let (_, list) = get_json(server.addr, "/api/games").await;
    let finished: BTreeSet<&str> = list["finished"].as_array().expect("finished").iter().filter_map(|g| g["id"].as_str()).collect();
    assert_eq!(finished, ids.iter().map(String::as_str).collect());
    assert_eq!(list["running"], json!([]));

    // A second server on the same folder shows the kept game as it was.
    let again = common::start(data.path(), vec![]).await;
    let (status, kept) = get_json(again.addr, &format!("/api/games/{}", ids[0])).await;
    assert_eq!(status, 200);
    for field in ["id", "game", "names", "moves", "turns", "views", "result", "origin", "live"] {
        assert_eq!(kept[field], first[field], "{field} after a restart");
    }
    // Its event stream is the snapshot alone.
    let mut events = Events::open(again.addr, &format!("/api/games/{}/events", ids[0])).await.expect("the kept game's stream");
    let event = events.expect_next("the kept game's snapshot").await;
    assert_eq!((event.name.as_str(), &event.json()["moves"]), ("snapshot", &first["moves"]));
    assert!(tokio::time::timeout(SAFETY, events.next()).await.expect("the stream ends").is_none());
}

/// The position of a game as its page data describes it, after `moves`.
fn position_of(game: &Value, moves: &[String]) -> rules::AnyPosition {
    let kind = rules::GameKind::from_name(game["game"].as_str().expect("game")).expect("a known game");
    let options: rules::Options = serde_json::from_value(game["options"].clone()).expect("options");
    let mut pos = kind.new_position(&options, game["start"].as_str()).expect("the game's start");
    for mv in moves {
        pos.play_text(mv).expect("a played move is legal");
    }
    pos
}

/// The game document of `id`, once it has at least `views` views.
async fn game_with_views(addr: std::net::SocketAddr, id: &str, views: usize) -> Value {
    let wait = async {
        loop {
            let (status, game) = get_json(addr, &format!("/api/games/{id}")).await;
            assert_eq!(status, 200, "{game}");
            if game["views"].as_array().expect("views").len() >= views {
                return game;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
    };
    tokio::time::timeout(SAFETY, wait).await.expect("the game goes on")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_types_connect_four_columns_from_1_and_sees_what_they_may_click() {
    let data = tempfile::tempdir().expect("a temporary folder");
    let server = common::start(data.path(), vec![]).await;
    let start = |game: &str, options: Value| {
        let body = json!({ "game": game, "options": options, "bot": "random", "side": 0, "seed": 5 });
        async move {
            let (status, started) = post_json(server.addr, "/api/play", false, &body).await;
            assert_eq!(status, 201, "{started}");
            (started["games"][0].as_str().unwrap().to_string(), started["secret"].as_str().unwrap().to_string())
        }
    };
    let (id, secret) = start("connect4", json!({})).await;
    let send = |body: Value| {
        let path = format!("/api/games/{id}/move");
        async move { post_json(server.addr, &path, false, &body).await }
    };
    // Typed as the board labels and the move list count: column 4 is the notation's 3.
    let (status, body) = send(json!({ "move": "8", "secret": secret, "typed": true })).await;
    assert_eq!((status, body["error"].as_str()), (422, Some("\"8\" is not a column: type a column number from 1 to 7")));
    let (status, body) = send(json!({ "move": "column 4", "secret": secret, "typed": true })).await;
    assert_eq!((status, &body), (200, &json!({ "accepted": "3", "shown": "column 4" })));
    // Every view of the person's game lists what may be played in it, as the rules say.
    let game = game_with_views(server.addr, &id, 3).await;
    let moves: Vec<String> = serde_json::from_value(game["moves"].clone()).unwrap();
    assert_eq!(moves[0], "3");
    for (ply, view) in game["views"].as_array().unwrap().iter().enumerate() {
        let legal = position_of(&game, &moves[..ply]).legal_moves_text().unwrap();
        assert_eq!(view["legal"], json!(legal), "after {ply} moves");
    }
    // A column the person clicks (its cell's name, the notation) still works, and a
    // refusal speaks of the column as people count it.
    let (status, body) = send(json!({ "move": "9", "secret": secret })).await;
    assert_eq!((status, body["error"].as_str()), (422, Some("\"column 10\" is not a column: type a column number from 1 to 7")));

    // Legions: the provinces an order may go to after the orders composed so far.
    let (id, _) = start("legions", json!({ "size": "5" })).await;
    let (_, game) = get_json(server.addr, &format!("/api/games/{id}")).await;
    assert_eq!(game["views"][0]["legal"], json!(["1 0", "0 1"]));
    let (status, body) = get_json(server.addr, &format!("/api/games/{id}/choices?partial=1%200%201")).await;
    assert_eq!((status, body), (200, json!({ "choices": ["2 0", "0 1", "1 1"] })));
    let (status, _) = get_json(server.addr, "/api/games/g1-999/choices").await;
    assert_eq!(status, 404);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_plays_pahtum_against_a_bot_to_the_end() {
    let data = tempfile::tempdir().expect("a temporary folder");
    let server = common::start(data.path(), vec![]).await;
    let (status, started) =
        post_json(server.addr, "/api/play", false, &json!({ "game": "pahtum", "bot": "random", "side": 0, "seed": 11 })).await;
    assert_eq!(status, 201, "{started}");
    let id = started["games"][0].as_str().expect("the game's id").to_string();
    let secret = started["secret"].as_str().expect("the secret").to_string();
    let move_path = format!("/api/games/{id}/move");
    let send = |text: String, secret: String| {
        let path = move_path.clone();
        async move { post_json(server.addr, &path, false, &json!({ "move": text, "secret": secret })).await }
    };

    let mut events = Events::open(server.addr, &format!("/api/games/{id}/events")).await.expect("the game's stream");
    let snapshot = events.expect_next("the snapshot").await;
    assert_eq!(snapshot.name, "snapshot");
    let game = snapshot.json();
    assert_eq!(game["names"], json!(["you", "random"]));
    assert_eq!(game["human_side"], 0);
    let mut moves: Vec<String> = serde_json::from_value(game["moves"].clone()).expect("moves");
    let mut views = game["views"].as_array().expect("views").len();
    let mut refusals_checked = false;
    // The ply at which the person last moved: an event that is not a turn (`started`
    // may come after the snapshot) must not make it move twice.
    let mut moved_at = None;
    let result = loop {
        let pos = position_of(&game, &moves);
        if pos.to_move().map(|s| s.index()) == Some(0) && moved_at != Some(moves.len()) {
            let legal = pos.legal_moves_text().expect("pahtum lists its moves");
            if !refusals_checked {
                let (status, body) = send(legal[0].clone(), "not-the-secret".into()).await;
                assert_eq!((status, body["error"].as_str()), (403, Some("this is not your game (wrong secret)")));
                let (status, body) = send("z99".into(), secret.clone()).await;
                assert_eq!(status, 422, "{body}");
                assert!(body["error"].as_str().is_some_and(|e| e.starts_with("\"z99\" cannot be played: ")), "{body}");
                let blocked = (1..=7)
                    .flat_map(|row| ('A'..='G').map(move |col| format!("{col}{row}")))
                    .find(|cell| !legal.contains(cell))
                    .expect("a pahtum start has blocked squares");
                let (status, body) = send(blocked.clone(), secret.clone()).await;
                assert_eq!(status, 422, "{blocked}: {body}");
                assert!(body["error"].as_str().is_some_and(|e| e.contains("cannot be played")), "{body}");
                refusals_checked = true;
            }
            let (status, body) = send(legal[0].clone(), secret.clone()).await;
            assert_eq!((status, &body), (200, &json!({ "accepted": legal[0], "shown": legal[0] })));
            moved_at = Some(moves.len());
        }
        // Wait for the move (ours or the bot's), or the end.
        let event = events.expect_next("a turn or the end").await;
        match event.name.as_str() {
            "started" => {}
            "turn" => {
                let turn = event.json();
                assert_eq!(turn["index"].as_u64(), Some(views as u64), "{turn}");
                views += 1;
                moves.push(turn["move"].as_str().expect("a move").to_string());
            }
            "end" => break event.json()["result"].clone(),
            other => panic!("unexpected event {other:?}"),
        }
    };
    assert!(refusals_checked, "the person had a turn");
    assert_eq!(result["termination"], "rules", "{result}");
    let pos = position_of(&game, &moves);
    assert!(pos.outcome().is_some(), "the game ended by the rules");
    assert!(result["scores"].is_array(), "pahtum ends with scores: {result}");

    let (status, finished) = get_json(server.addr, &format!("/api/games/{id}")).await;
    assert_eq!(status, 200);
    assert_eq!(finished["live"], false);
    assert_eq!(finished["names"][0], "you");
    assert_eq!(finished["moves"], json!(moves));
    assert_eq!(finished["result"], result);
    let (status, body) = send(moves[0].clone(), secret.clone()).await;
    assert_eq!((status, body["error"].as_str()), (409, Some("the game is over")));
    assert!(data.path().join("games").join(format!("{id}.json")).is_file());
}

/// Only a direct call can hold the bot back: over HTTP its reply comes within
/// microseconds, so "not your turn" would be a race. On this single-threaded runtime
/// the spawned game does not run until the test yields, so the bot (side 0) is still to
/// move when the person tries.
#[tokio::test(flavor = "current_thread")]
async fn a_move_out_of_turn_is_refused_with_a_conflict() {
    let data = tempfile::tempdir().expect("a temporary folder");
    let server = common::start(data.path(), vec![]).await;
    let req =
        web::games::PlayRequest { game: "connect4".into(), options: Default::default(), bot: "greedy".into(), side: 1, seed: Some(3) };
    let client = web::quota::Client::of(std::net::Ipv4Addr::LOCALHOST.into());
    let started = web::games::start_human(&server.app, client, req).expect("the game starts");
    let secret = started.secret.expect("a secret");
    let refusal =
        web::games::human_move(&server.app, &started.games[0], web::games::MoveRequest { text: "d".into(), secret, typed: false })
            .expect_err("not the person's turn");
    assert_eq!(refusal.status, 409);
    assert!(refusal.message.starts_with("it is not your turn: greedy is thinking"), "{}", refusal.message);
}

// ---------------------------------------------------------------------------------------
// Tournaments

/// Starts a tournament from a config's text; its id.
async fn start_tournament(addr: std::net::SocketAddr, config: &str) -> String {
    let (status, body) = post_json(addr, "/api/tournaments", true, &json!({ "config": config })).await;
    assert_eq!(status, 201, "{body}");
    body["id"].as_str().expect("the tournament's id").to_string()
}

/// Follows a tournament's standings to the end: the snapshot first, then `standings`
/// events whose `finished_games` never goes down; the last message and the counts seen.
async fn follow_standings(events: &mut Events) -> (Value, Vec<u64>) {
    let mut counts = Vec::new();
    loop {
        let event = events.expect_next("standings").await;
        assert_eq!(event.name, "standings", "{}", event.data);
        let standings = event.json();
        let count = standings["finished_games"].as_u64().expect("finished_games");
        assert!(counts.last().is_none_or(|&last| last <= count), "finished games went down: {counts:?} then {count}");
        counts.push(count);
        match standings["status"].as_str().expect("status") {
            "finished" => return (standings, counts),
            "running" | "stored" => {}
            other => panic!("status {other}: {standings}"),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_organiser_starts_a_tournament_and_viewers_follow_it_live() {
    let data = tempfile::tempdir().expect("a temporary folder");
    let server = common::start(data.path(), vec![]).await;
    let (entrants, deals) = (4, 8);
    let total = games_of(entrants, deals);
    let id = start_tournament(server.addr, &round_robin("Web Round Robin", entrants, deals)).await;
    assert_eq!(id, "web-round-robin");
    let mut events = Events::open(server.addr, &format!("/api/tournaments/{id}/events")).await.expect("the standings stream");
    let (last, counts) = follow_standings(&mut events).await;
    assert_eq!(last["finished_games"], total);
    assert_eq!(last["in_progress"], json!([]));
    if counts[0] < total as u64 {
        assert!(counts.len() >= 2, "updates came while the tournament ran: {counts:?}");
    }
    let rows = last["report"]["stages"][0]["rows"].as_array().expect("the standings rows");
    assert_eq!(rows.len(), entrants);
    let points: f64 = rows.iter().map(|r| r["points"].as_f64().expect("points")).sum();
    assert_eq!(points, total as f64, "one point per game: {}", last["report"]);

    let (status, list) = get_json(server.addr, "/api/tournaments").await;
    assert_eq!(status, 200);
    assert_eq!(list[0]["id"], id);
    assert_eq!(list[0]["status"], "finished");
    assert_eq!(list[0]["games"], total);
    assert_eq!(list[0]["game"], "connect4");
    let (status, standings) = get_json(server.addr, &format!("/api/tournaments/{id}")).await;
    assert_eq!((status, &standings["finished_games"]), (200, &json!(total)));

    let (status, games) = get_json(server.addr, &format!("/api/tournaments/{id}/games")).await;
    assert_eq!(status, 200);
    let finished = games["finished"].as_array().expect("finished games");
    let keys: BTreeSet<&str> = finished.iter().map(|g| g["key"].as_str().expect("a key")).collect();
    assert_eq!((finished.len(), keys.len()), (total, total), "every game once");
    let key = finished[0]["key"].as_str().expect("a key");
    let (status, game) = get_json(server.addr, &format!("/api/tournaments/{id}/game?key={key}")).await;
    assert_eq!(status, 200, "{game}");
    assert_eq!(game["live"], false);
    assert_eq!(game["names"], finished[0]["names"]);
    assert_eq!(game["views"].as_array().expect("views").len(), game["moves"].as_array().expect("moves").len() + 1);
    assert_eq!(game["moves"].as_array().map(Vec::len), finished[0]["moves"].as_u64().map(|n| n as usize));
    let (status, body) = get_json(server.addr, &format!("/api/tournaments/{id}/game")).await;
    assert_eq!((status, body["error"].as_str()), (400, Some("missing the game's key (?key=...)")));
    let (status, _) = get_json(server.addr, &format!("/api/tournaments/{id}/game?key=no-such-game")).await;
    assert_eq!(status, 404);

    // The same name again gets its own file and id.
    let again = start_tournament(server.addr, &round_robin("Web Round Robin", 2, 1)).await;
    assert_eq!(again, "web-round-robin-2");
}

/// Runs a config with the command line's runner into `db`.
async fn run_with_cli_runner(config_text: &str, db: &Path) -> usize {
    let config = tournament::TournamentConfig::parse(config_text, "cli.toml").expect("the config");
    let entrants = arena::resolve_entrants(&config, Path::new("."), None).expect("built-in entrants");
    let store = store::Store::open(db).await.expect("a new database");
    let options = common::cli_run_options(2, Path::new("."));
    arena::run_tournament(&config, config_text, &entrants, &store, &options, |_| {}).await.expect("the tournament runs");
    store.game_count().await.expect("the games") as usize
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_written_by_the_command_line_is_shown() {
    let folder = tempfile::tempdir().expect("a temporary folder");
    let db = folder.path().join("Club Night.db");
    let total = run_with_cli_runner(&round_robin("Club night", 3, 2), &db).await;
    assert_eq!(total, games_of(3, 2));

    let data = folder.path().join("data");
    let server = common::start(&data, vec![db.clone()]).await;
    let (status, list) = get_json(server.addr, "/api/tournaments").await;
    assert_eq!(status, 200);
    assert_eq!(list.as_array().map(Vec::len), Some(1), "{list}");
    assert_eq!(list[0]["id"], "club-night");
    assert_eq!(list[0]["name"], "Club night");
    assert_eq!(list[0]["status"], "stored");
    assert_eq!(list[0]["games"], total);
    let (status, standings) = get_json(server.addr, "/api/tournaments/club-night").await;
    assert_eq!(status, 200);
    assert_eq!(standings["finished_games"], total);
    let names: BTreeSet<&str> =
        standings["report"]["stages"][0]["rows"].as_array().expect("rows").iter().filter_map(|r| r["entrant"].as_str()).collect();
    assert_eq!(names, BTreeSet::from(["random-0", "greedy-1", "random-2"]));
    let mut events = Events::open(server.addr, "/api/tournaments/club-night/events").await.expect("the standings stream");
    let first = events.expect_next("the standings snapshot").await;
    assert_eq!((first.name.as_str(), &first.json()["finished_games"]), ("standings", &json!(total)));
    let (status, games) = get_json(server.addr, "/api/tournaments/club-night/games").await;
    assert_eq!((status, games["finished"].as_array().map(Vec::len)), (200, Some(total)));
}
