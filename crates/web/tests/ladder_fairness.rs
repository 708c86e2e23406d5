//! A ladder schedules by fairness, not by speed: a bot that crashes in every ladder game
//! (it passed its entry check) is paused after three faults in a row, and its entrant is
//! told on the bot's and the entrant's pages, so it takes a small share of the games
//! (before, a crasher played 771 of 838); a new version of it plays again; the ladder's
//! games are on its own paged list, not on the front page.

mod common;

use std::net::Ipv4Addr;
use std::time::{Duration, Instant};

use common::{get_json, multipart, post_json, upload_from};
use serde_json::{Value, json};

/// A bot of the project's protocol; `{go}` answers `go` (`time` holds the `time` line).
const BOT: &str = "# arbiter-interface: arbiter\nimport sys, random\nlegal, time = [], 0\nfor line in sys.stdin:\n    w = line.split()\n    if not w: continue\n    if w[0] == 'arbiter': print('ready', flush=True)\n    elif w[0] == 'legal': legal = w[1:]\n    elif w[0] == 'time': time = int(w[1]) if w[1] != '-' else 0\n    elif w[0] == 'go': {go}\n    elif w[0] == 'quit': break\n";

const GOOD: &str = "print('move ' + random.choice(legal), flush=True)";

/// Crashes in every ladder game: there Connect Four gives its 2 minutes of CPU time
/// (`time` over 10 s), while the doctor and the entry check give seconds.
const LADDER_CRASHER: &str = "sys.exit(3) if time > 10000 else print('move ' + random.choice(legal), flush=True)";

async fn upload(addr: std::net::SocketAddr, token: &str, name: &str, go: &str) -> Value {
    let code = BOT.replace("{go}", go);
    let form = multipart(&[("name", None, name.as_bytes()), ("game", None, b"connect4"), ("source", Some("bot.py"), code.as_bytes())]);
    let (status, answer) = upload_from(Ipv4Addr::LOCALHOST, addr, "/api/submissions", token, &form).await;
    assert_eq!(status, 201, "{answer}");
    answer
}

/// Waits until `done` holds of the ladder's standings.
async fn ladder_until(addr: std::net::SocketAddr, id: i64, what: &str, done: impl Fn(&Value) -> bool) -> Value {
    let began = Instant::now();
    loop {
        let (_, ladder) = get_json(addr, &format!("/api/ladders/{id}")).await;
        if done(&ladder) {
            return ladder;
        }
        assert!(began.elapsed() < Duration::from_secs(120), "{what}: {ladder}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_that_crashes_every_game_is_backed_off_and_a_new_version_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let server = common::start(dir.path(), vec![]).await;
    let addr = server.addr;
    let tokens = common::entrants(addr, &["ann", "bob", "cat"]).await;
    for (who, bot, go) in [("ann", "ann-bot", GOOD), ("bob", "bob-bot", GOOD), ("cat", "cat-bot", LADDER_CRASHER)] {
        let answer = upload(addr, &tokens[who], bot, go).await;
        assert_eq!(answer["version"]["entry_check"]["passed"], true, "{bot} passes its entry check: {answer}");
    }
    let (status, ladder) = post_json(addr, "/api/ladders", true, &json!({ "game": "connect4", "bosses": ["random", "greedy"] })).await;
    assert_eq!(status, 201, "{ladder}");
    let id = ladder["id"].as_i64().unwrap();
    let played = |l: &Value| l["games"].as_i64().unwrap_or(0);
    ladder_until(addr, id, "30 games", |l| played(l) >= 30).await;
    let (_, frozen) = post_json(addr, &format!("/api/ladders/{id}/freeze"), true, &json!({ "frozen": true })).await;
    assert_eq!(frozen["frozen"], true);

    // Every game of the ladder, a page at a time.
    let mut games: Vec<Value> = Vec::new();
    let mut path = format!("/api/ladders/{id}/games?limit=7");
    loop {
        let (status, page) = get_json(addr, &path).await;
        assert_eq!(status, 200, "{page}");
        let page = page.as_array().unwrap().clone();
        if page.is_empty() {
            break;
        }
        assert!(page.len() <= 7);
        let last = page.last().unwrap()["number"].as_i64().unwrap();
        games.extend(page);
        path = format!("/api/ladders/{id}/games?limit=7&before={last}");
    }
    let numbers: Vec<i64> = games.iter().map(|g| g["number"].as_i64().unwrap()).collect();
    let mut unique = numbers.clone();
    unique.dedup();
    assert_eq!(unique.len(), numbers.len(), "no game twice");
    assert!(games.len() >= 30, "{} games listed", games.len());
    let of = |bot: &str| games.iter().filter(|g| g["bots"].as_array().unwrap().iter().any(|b| b == bot)).count();
    let crashed = of("cat-bot");
    assert!(crashed <= 3, "the crasher played {crashed} of {} games", games.len());
    assert!(games.iter().filter(|g| g["bots"].as_array().unwrap().iter().any(|b| b == "cat-bot")).all(|g| !g["fault"].is_null()));
    assert!(of("ann-bot") >= 8 && of("bob-bot") >= 8, "ann {} bob {} of {}", of("ann-bot"), of("bob-bot"), games.len());

    // The crasher's entrant is told: on the bot's page and on hers.
    let (_, page) = get_json(addr, "/api/bots/connect4/cat-bot").await;
    let paused = page["ladders"][0]["paused"].as_str().unwrap_or_else(|| panic!("paused: {page}"));
    assert!(paused.starts_with("crash: exited with status 3"), "{paused}");
    let (_, cat) = get_json(addr, "/api/entrants/cat").await;
    assert_eq!(cat["bots"][0]["paused"][0]["ladder"], id, "{cat}");
    let (_, standings) = get_json(addr, &format!("/api/ladders/{id}")).await;
    let row = standings["standings"].as_array().unwrap().iter().find(|p| p["bot"] == "cat-bot").expect("cat-bot is listed").clone();
    assert!(row["paused"].as_str().is_some(), "{row}");

    // The front page lists no ladder game.
    let (_, front) = get_json(addr, "/api/games").await;
    for list in ["running", "finished"] {
        for game in front[list].as_array().unwrap() {
            assert_ne!(game["origin"]["kind"], "ladder", "{game}");
        }
    }

    // A new version plays again.
    let answer = upload(addr, &tokens["cat"], "cat-bot", GOOD).await;
    assert_eq!(answer["version"]["version"], 2);
    post_json(addr, &format!("/api/ladders/{id}/freeze"), true, &json!({ "frozen": false })).await;
    let ladder = ladder_until(addr, id, "cat-bot v2 to play", |l| {
        l["standings"]
            .as_array()
            .is_some_and(|rows| rows.iter().any(|p| p["bot"] == "cat-bot" && p["version"] == 2 && p["games"].as_i64() >= Some(1)))
    })
    .await;
    let row = ladder["standings"].as_array().unwrap().iter().find(|p| p["bot"] == "cat-bot").unwrap().clone();
    assert!(row["paused"].is_null(), "{row}");
    post_json(addr, &format!("/api/ladders/{id}/freeze"), true, &json!({ "frozen": true })).await;
}
