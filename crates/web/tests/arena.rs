//! The class arena over HTTP: the organiser makes entrants, each uploads and tests their
//! own bots with their own token and sees their own logs only; a table of refusals
//! (an entrant acting as the organiser or as another entrant, a revoked or replaced
//! token, no token) each of which changes nothing; a ladder takes both bots in and
//! rates them against fixed bosses, and keeps its share of the workers while a
//! tournament runs on the same server.

mod common;

use std::net::SocketAddr;
use std::time::Duration;

use common::{SAFETY, TOKEN, call};
use serde_json::{Value, json};

/// The sample random player (project protocol, every game), which logs each move on
/// stderr: what the log-privacy checks look for.
fn random_bot() -> String {
    std::fs::read_to_string(common::repo_root().join("bots/arbiter/python/random_bot.py")).unwrap()
}

/// The upload form of a Python bot `name` of the project's protocol for Connect Four.
fn upload_form(name: &str, code: &str) -> String {
    let parts: [(&str, Option<&str>, &[u8]); 4] = [
        ("name", None, name.as_bytes()),
        ("game", None, b"connect4"),
        ("protocol", None, b"arbiter"),
        ("source", Some("main.py"), code.as_bytes()),
    ];
    String::from_utf8(common::multipart(&parts)).expect("a text form")
}

async fn upload(addr: SocketAddr, token: Option<&str>, name: &str) -> (u16, Value) {
    call(addr, "POST", "/api/submissions", token, Some(&upload_form(name, &random_bot()))).await
}

async fn new_entrant(addr: SocketAddr, name: &str) -> String {
    let (status, body) = call(addr, "POST", "/api/entrants", Some(TOKEN), Some(&json!({ "name": name }).to_string())).await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(body["name"], name);
    body["token"].as_str().unwrap().to_string()
}

/// Everything a refused request could have changed: the entrants, the registered bots
/// with their owners, the files of the data folder, the ladders, the games.
async fn state(addr: SocketAddr, data: &std::path::Path) -> Value {
    let (_, entrants) = call(addr, "GET", "/api/entrants", Some(TOKEN), None).await;
    let (_, bots) = call(addr, "GET", "/api/submissions", Some(TOKEN), None).await;
    let (_, ladders) = call(addr, "GET", "/api/ladders", None, None).await;
    let (_, games) = call(addr, "GET", "/api/games", None, None).await;
    let (_, frozen) = call(addr, "GET", "/api/freeze", None, None).await;
    let files: Vec<String> = common::list_files(data).into_iter().filter(|f| !f.starts_with("arena.db")).collect();
    json!({ "entrants": entrants, "bots": bots, "ladders": ladders, "games": games, "frozen": frozen, "files": files })
}

/// Waits, within the safety bound, until `done` holds of a GET's answer; the answer.
async fn wait_for(addr: SocketAddr, path: &str, token: Option<&str>, what: &str, done: impl Fn(&Value) -> bool) -> Value {
    let wait = async {
        loop {
            let (status, body) = call(addr, "GET", path, token, None).await;
            assert_eq!(status, 200, "{path}: {body}");
            if done(&body) {
                return body;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    tokio::time::timeout(SAFETY, wait).await.unwrap_or_else(|_| panic!("{what}: not within {SAFETY:?}"))
}

/// The stderr a game document shows per side (joined over its turns), and whether a
/// side's log was marked hidden.
fn logs(game: &Value) -> [(String, bool); 2] {
    let mut out = [(String::new(), false), (String::new(), false)];
    for turn in game["turns"].as_array().unwrap() {
        let side = turn["side"].as_u64().unwrap() as usize;
        out[side].0.push_str(turn["stderr"].as_str().unwrap_or(""));
        out[side].1 |= turn["log_hidden"] == true;
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn entrants_act_on_their_own_bots_only_and_refusals_change_nothing() {
    let data = tempfile::tempdir().unwrap();
    let server = common::start(data.path(), vec![]).await;
    let addr = server.addr;

    let alice = new_entrant(addr, "alice").await;
    let bob = new_entrant(addr, "bob").await;
    let carol = new_entrant(addr, "carol").await;
    let dave_old = new_entrant(addr, "dave").await;
    assert_eq!(alice.len(), 32);
    assert_ne!(alice, bob);
    // Only the token's hash is kept: the token appears in no file of the data folder.
    let (status, body) = call(addr, "POST", "/api/entrants/carol/revoke", Some(TOKEN), None).await;
    assert_eq!((status, &body["revoked"]), (200, &json!(true)), "{body}");
    let (status, body) = call(addr, "POST", "/api/entrants/dave/token", Some(TOKEN), None).await;
    assert_eq!(status, 200, "{body}");
    let dave = body["token"].as_str().unwrap().to_string();
    assert_ne!(dave, dave_old);
    for token in [&alice, &bob, &carol, &dave] {
        for file in common::list_files(data.path()) {
            let bytes = std::fs::read(data.path().join(&file)).unwrap_or_default();
            assert!(!bytes.windows(token.len()).any(|w| w == token.as_bytes()), "a token is stored in {file}");
        }
    }

    // Each uploads a bot of their own; the organiser one of the house.
    for (token, name) in [(&alice, "alice-bot"), (&bob, "bob-bot"), (&TOKEN.to_string(), "house-bot")] {
        let (status, body) = upload(addr, Some(token), name).await;
        assert_eq!(status, 201, "{name}: {body}");
    }
    let (_, me) = call(addr, "GET", "/api/me", Some(&alice), None).await;
    assert_eq!(me, json!({ "role": "entrant", "name": "alice" }));
    let (_, page) = call(addr, "GET", "/api/entrants/alice", None, None).await;
    assert_eq!(page["bots"][0]["name"], "alice-bot", "{page}");
    // Alice's second version is hers too.
    let (status, body) = upload(addr, Some(&alice), "alice-bot").await;
    assert_eq!((status, &body["version"]["version"]), (201, &json!(2)), "{body}");

    let before = state(addr, data.path()).await;
    let test = |bots: [&str; 2]| json!({ "game": "connect4", "bots": bots }).to_string();
    let ladder = json!({ "game": "connect4", "bosses": ["random"] }).to_string();
    let tournament = json!({ "preset": "connect4-2008" }).to_string();
    let form = |name: &str| upload_form(name, &random_bot());
    // (what, method, path, token, body, status)
    type Refusal<'a> = (&'a str, &'a str, String, Option<&'a str>, Option<String>, u16);
    let refusals: Vec<Refusal> = vec![
        ("an entrant makes an entrant", "POST", "/api/entrants".into(), Some(&alice), Some(json!({"name": "eve"}).to_string()), 403),
        ("an entrant lists the entrants", "GET", "/api/entrants".into(), Some(&alice), None, 403),
        ("an entrant revokes another", "POST", "/api/entrants/bob/revoke".into(), Some(&alice), None, 403),
        ("an entrant reissues another's token", "POST", "/api/entrants/bob/token".into(), Some(&alice), None, 403),
        ("an entrant uploads another's bot", "POST", "/api/submissions".into(), Some(&alice), Some(form("bob-bot")), 403),
        ("an entrant uploads the organiser's bot", "POST", "/api/submissions".into(), Some(&alice), Some(form("house-bot")), 403),
        ("an entrant makes a ladder", "POST", "/api/ladders".into(), Some(&alice), Some(ladder.clone()), 403),
        ("an entrant freezes uploads", "POST", "/api/freeze".into(), Some(&alice), Some(json!({"frozen": true}).to_string()), 403),
        ("an entrant starts a tournament", "POST", "/api/tournaments".into(), Some(&alice), Some(tournament.clone()), 403),
        ("an entrant tests another's bot alone", "POST", "/api/test".into(), Some(&alice), Some(test(["bob-bot", "random"])), 403),
        (
            "an entrant plays another's bot",
            "POST",
            "/api/play".into(),
            Some(&alice),
            Some(json!({"game": "connect4", "bot": "bob-bot"}).to_string()),
            403,
        ),
        ("anyone uploads", "POST", "/api/submissions".into(), None, Some(form("anon-bot")), 401),
        ("anyone tests an entrant's bot", "POST", "/api/test".into(), None, Some(test(["bob-bot", "random"])), 403),
        ("a revoked token uploads", "POST", "/api/submissions".into(), Some(&carol), Some(form("carol-bot")), 403),
        ("a revoked token tests", "POST", "/api/test".into(), Some(&carol), Some(test(["random", "random"])), 403),
        ("a replaced token uploads", "POST", "/api/submissions".into(), Some(&dave_old), Some(form("dave-bot")), 403),
        ("a made-up token asks who it is", "GET", "/api/me".into(), Some("0123456789abcdef0123456789abcdef"), None, 403),
        ("the organiser makes a taken name", "POST", "/api/entrants".into(), Some(TOKEN), Some(json!({"name": "alice"}).to_string()), 409),
        ("the organiser makes a bad name", "POST", "/api/entrants".into(), Some(TOKEN), Some(json!({"name": "a b"}).to_string()), 400),
        ("the organiser revokes nobody", "POST", "/api/entrants/nobody/revoke".into(), Some(TOKEN), None, 404),
    ];
    for (what, method, path, token, body, status) in &refusals {
        let (got, answer) = call(addr, method, path, *token, body.as_deref()).await;
        assert_eq!(got, *status, "{what}: {answer}");
        let message = answer["error"].as_str().unwrap_or_else(|| panic!("{what}: no error line: {answer}"));
        assert!(!message.is_empty() && !message.contains('\n'), "{what}: {message:?}");
        assert_eq!(state(addr, data.path()).await, before, "{what} changed something");
    }

    // Alice tests her bot against Bob's: she sees her side's log, not his; Bob the
    // reverse; a spectator and the event stream neither; the organiser both.
    let (status, body) = call(addr, "POST", "/api/test", Some(&alice), Some(&test(["alice-bot", "bob-bot"]))).await;
    assert_eq!(status, 201, "{body}");
    let id = body["games"][0].as_str().unwrap().to_string();
    let path = format!("/api/games/{id}");
    let game = wait_for(addr, &path, None, "the test game's end", |g| !g["result"].is_null() && g["live"] == false).await;
    let names = game["names"].clone();
    assert_eq!(names, json!(["alice-bot", "bob-bot"]));
    let (_, as_alice) = call(addr, "GET", &path, Some(&alice), None).await;
    let (_, as_bob) = call(addr, "GET", &path, Some(&bob), None).await;
    let (_, as_organiser) = call(addr, "GET", &path, Some(TOKEN), None).await;
    let [(a_log, a_hidden), (b_log, b_hidden)] = logs(&as_alice);
    assert!(a_log.contains("playing") && !a_hidden && b_log.is_empty() && b_hidden, "{as_alice}");
    let [(a_log, a_hidden), (b_log, b_hidden)] = logs(&as_bob);
    assert!(a_log.is_empty() && a_hidden && b_log.contains("playing") && !b_hidden, "{as_bob}");
    let [(a_log, _), (b_log, _)] = logs(&as_organiser);
    assert!(a_log.contains("playing") && b_log.contains("playing"));
    let [(a_log, _), (b_log, _)] = logs(&game);
    assert!(a_log.is_empty() && b_log.is_empty(), "a spectator sees a log: {game}");
    let mut events = common::Events::open(addr, &format!("{path}/events")).await.expect("the event stream opens");
    let snapshot = events.expect_next("the snapshot").await.json();
    assert!(!snapshot.to_string().contains("playing "), "the event stream shows a log");
    // The compiler's output of Bob's bot is his alone.
    let (_, versions) = call(addr, "GET", "/api/submissions/connect4/bob-bot", Some(&alice), None).await;
    assert_eq!(versions[0]["compile_log"], "", "{versions}");
    assert_eq!(versions[0]["entrant"], "bob");
    let (_, versions) = call(addr, "GET", "/api/submissions/connect4/bob-bot", Some(&bob), None).await;
    assert_ne!(versions[0]["compile_log"], "", "{versions}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ladder_rates_the_bots_and_keeps_its_share_while_a_tournament_runs() {
    let data = tempfile::tempdir().unwrap();
    // Two workers, half of them the ladders'.
    let server = common::start(data.path(), vec![]).await;
    let addr = server.addr;
    let alice = new_entrant(addr, "alice").await;
    let bob = new_entrant(addr, "bob").await;
    assert_eq!(upload(addr, Some(&alice), "alice-bot").await.0, 201);

    let body = json!({ "game": "connect4", "options": {}, "bosses": ["random", "greedy"] }).to_string();
    let (status, made) = call(addr, "POST", "/api/ladders", Some(TOKEN), Some(&body)).await;
    assert_eq!(status, 201, "{made}");
    let path = format!("/api/ladders/{}", made["id"]);
    // A bot registered before the ladder is placed at once; one uploaded after it too.
    wait_for(addr, &path, None, "alice-bot's first ladder games", |l| {
        l["standings"].as_array().unwrap().iter().any(|s| s["bot"] == "alice-bot" && s["games"].as_i64() >= Some(2))
    })
    .await;
    assert_eq!(upload(addr, Some(&bob), "bob-bot").await.0, 201);
    let ladder = wait_for(addr, &path, None, "bob-bot's ladder games", |l| {
        l["standings"].as_array().unwrap().iter().any(|s| s["bot"] == "bob-bot" && s["games"].as_i64() >= Some(3))
    })
    .await;
    let rows = ladder["standings"].as_array().unwrap();
    assert_eq!(rows.len(), 4, "{ladder}");
    for row in rows {
        for key in ["entrant", "bot", "version", "rating", "uncertainty", "games", "wins", "draws", "losses"] {
            assert!(row.get(key).is_some(), "{key} missing in {row}");
        }
        let (games, w, d, l) = (row["games"].as_i64().unwrap(), row["wins"].as_i64(), row["draws"].as_i64(), row["losses"].as_i64());
        assert_eq!(Some(games), Some(w.unwrap() + d.unwrap() + l.unwrap()), "{row}");
        if row["boss"] == true {
            // Bosses are anchors: 20 and 30 for two bosses around 25, whatever happened.
            let anchor = if row["bot"] == "random" { 20.0 } else { 30.0 };
            assert_eq!(row["rating"].as_f64(), Some(anchor), "{row}");
        } else {
            assert_ne!(row["rating"].as_f64(), Some(25.0), "a rating that never moved: {row}");
            assert!(row["uncertainty"].as_f64().unwrap() < 25.0 / 3.0, "{row}");
        }
    }
    let bob_row = rows.iter().find(|r| r["bot"] == "bob-bot").unwrap();
    assert_eq!((&bob_row["entrant"], &bob_row["version"]), (&json!("bob"), &json!(1)));
    // The ladder's games add up: every game counts for two players.
    let total: i64 = rows.iter().map(|r| r["games"].as_i64().unwrap()).sum();
    let (_, games) = call(addr, "GET", &format!("{path}/games"), None, None).await;
    assert!(total >= 2 * games.as_array().unwrap().len() as i64 - 2, "{total} {games}");

    // A tournament whose ticket bot holds its games (until the test gives it tickets): it
    // gets the workers the ladders leave (one), and the ladder keeps playing on its own one.
    let (tournament, tickets) = ticket_tournament(addr, data.path(), "busy", &["r1", "r2"], "").await;
    wait_for(addr, &tournament, None, "the tournament's held game", |t| !t["in_progress"].as_array().unwrap().is_empty()).await;
    let from = ladder["games"].as_i64().unwrap();
    let mut seen_tournament_games = 0;
    let after =
        wait_for(addr, &path, None, "ten more ladder games during the tournament", |l| l["games"].as_i64().unwrap() >= from + 10).await;
    let (_, t) = call(addr, "GET", &tournament, None, None).await;
    assert_eq!(t["status"], "running", "{t}");
    seen_tournament_games += t["in_progress"].as_array().unwrap().len();
    // The tournament plays on the one worker left: its held game blocks every other one.
    assert_eq!(seen_tournament_games, 1, "{t}");
    assert_eq!(after["workers"], 1, "{after}");
    assert!(after["peak_running"].as_i64().unwrap() <= 1, "{after}");

    // Frozen, the ladder starts no game.
    let (status, _) = call(addr, "POST", &format!("{path}/freeze"), Some(TOKEN), Some(&json!({ "frozen": true }).to_string())).await;
    assert_eq!(status, 200);
    let frozen = wait_for(addr, &path, None, "the frozen ladder's last game", |l| l["running"] == 0 && l["frozen"] == true).await;
    let (_, again) = call(addr, "GET", &path, None, None).await;
    assert_eq!(again["games"], frozen["games"]);

    // The busy tournament ends (a ticket for each of its games), leaving both workers.
    for n in 0..8 {
        std::fs::write(tickets.join(format!("ticket-{n}")), "").unwrap();
    }
    wait_for(addr, &tournament, None, "the busy tournament's end", |t| t["status"] == "finished").await;

    // The contest's final: a tournament of the frozen ladder's bots.
    let final_config = "name = \"final\"\ngame = \"connect4\"\nseed = 3\n[[stage]]\nformat = \"round-robin\"\n";
    let body = json!({ "config": final_config, "ladder": made["id"] }).to_string();
    let (status, started) = call(addr, "POST", "/api/tournaments", Some(TOKEN), Some(&body)).await;
    assert_eq!(status, 201, "{started}");
    let report = wait_for(addr, &format!("/api/tournaments/{}", started["id"].as_str().unwrap()), None, "the final's table", |t| {
        // Once a game is in, the entrants are too (before, the table may name them by number).
        t["finished_games"].as_u64() >= Some(1)
    })
    .await;
    let mut entrants: Vec<&str> =
        report["report"]["stages"][0]["rows"].as_array().unwrap().iter().map(|r| r["entrant"].as_str().unwrap()).collect();
    entrants.sort();
    assert_eq!(entrants, ["alice-bot", "bob-bot"], "{report}");

    // A restarted server has everything back: the ladder (frozen, its table as it was),
    // the entrants' tokens, the owners.
    let table = call(addr, "GET", &path, None, None).await.1;
    assert!(server.app.tasks.shutdown(SAFETY).await, "the server stops");
    server.app.arena.close().await;
    let again = common::start(data.path(), vec![]).await;
    let (_, back) = call(again.addr, "GET", &path, None, None).await;
    assert_eq!((&back["standings"], &back["frozen"], &back["games"]), (&table["standings"], &json!(true), &table["games"]));
    let (_, me) = call(again.addr, "GET", "/api/me", Some(&bob), None).await;
    assert_eq!(me, json!({ "role": "entrant", "name": "bob" }));
    let (_, versions) = call(again.addr, "GET", "/api/submissions/connect4/bob-bot", None, None).await;
    assert_eq!(versions[0]["entrant"], "bob");
}

/// A bot of the project protocol that plays the first legal move, but only once it has
/// taken a ticket (a file `ticket-*` of `TICKETS`, renamed away so that nobody else takes
/// it): the test lets its games go one ticket at a time. Until then it holds its game.
const TICKET_BOT: &str = r#"import os, sys, time
TICKETS = sys.argv[1]
legal, ticket = [], False
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "arbiter":
        print("ready", flush=True)
    elif words[0] == "legal":
        legal = words[1:]
    elif words[0] == "go":
        while not ticket:
            for name in sorted(os.listdir(TICKETS)):
                if name.startswith("ticket-"):
                    try:
                        os.rename(os.path.join(TICKETS, name), os.path.join(TICKETS, "taken-%s-%d" % (name, os.getpid())))
                        ticket = True
                        break
                    except OSError:
                        pass
            if not ticket:
                time.sleep(0.02)
        print("move " + legal[0], flush=True)
    elif words[0] == "quit":
        break
"#;

/// Starts the Connect Four tournament `name`: the ticket bot (written into `data/ticket`,
/// its tickets in `data/tickets`) and the random players `others`, a round robin with
/// `stage` added to its stage. Its API path and the tickets' folder.
async fn ticket_tournament(
    addr: SocketAddr,
    data: &std::path::Path,
    name: &str,
    others: &[&str],
    stage: &str,
) -> (String, std::path::PathBuf) {
    let (bot, tickets) = (data.join("ticket"), data.join("tickets"));
    std::fs::create_dir_all(&bot).unwrap();
    std::fs::create_dir_all(&tickets).unwrap();
    std::fs::write(bot.join("ticket.py"), TICKET_BOT).unwrap();
    let manifest = format!(
        "name = \"ticket\"\ngame = \"any\"\nprotocol = \"arbiter\"\ncommand = [\"python3\", \"./ticket.py\", {:?}]\n",
        tickets.display().to_string()
    );
    std::fs::write(bot.join("bot.toml"), manifest).unwrap();
    let mut config = format!(
        "name = \"{name}\"\ngame = \"connect4\"\nseed = 1\n[limits]\nmove-ms = 200000\ngame-ms = 400000\n\
         [[entrant]]\nname = \"ticket\"\nbot = \"{}\"\n",
        bot.display()
    );
    for other in others {
        config.push_str(&format!("[[entrant]]\nname = \"{other}\"\nbot = \"random\"\n"));
    }
    config.push_str(&format!("[[stage]]\nformat = \"round-robin\"\n{stage}"));
    let (status, started) = call(addr, "POST", "/api/tournaments", Some(TOKEN), Some(&json!({ "config": config }).to_string())).await;
    assert_eq!(status, 201, "{started}");
    (format!("/api/tournaments/{}", started["id"].as_str().unwrap()), tickets)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tournament_started_first_gives_a_new_ladder_its_share_as_its_games_end() {
    let data = tempfile::tempdir().unwrap();
    // Two workers, one of them the ladders'.
    let server = common::start(data.path(), vec![]).await;
    let addr = server.addr;
    let alice = new_entrant(addr, "alice").await;
    assert_eq!(upload(addr, Some(&alice), "alice-bot").await.0, 201);

    // A tournament of four games, each held by the ticket bot until it gets a ticket:
    // it takes both workers.
    let (tournament, tickets) = ticket_tournament(addr, data.path(), "first", &["r"], "deals = 2\n").await;
    wait_for(addr, &tournament, None, "the tournament on both workers", |t| t["in_progress"].as_array().unwrap().len() == 2).await;
    // The list of tournaments says where it stands in words.
    let (_, list) = call(addr, "GET", "/api/tournaments", None, None).await;
    assert_eq!(list[0]["progress"], "Stage 1 (round-robin) · round 1", "{list}");

    // A ladder started now waits for a worker: it plays no game while the tournament
    // holds both.
    let body = json!({ "game": "connect4", "options": {}, "bosses": ["random", "greedy"] }).to_string();
    let (status, made) = call(addr, "POST", "/api/ladders", Some(TOKEN), Some(&body)).await;
    assert_eq!(status, 201, "{made}");
    let path = format!("/api/ladders/{}", made["id"]);
    let waiting = wait_for(addr, &path, None, "the ladder waiting for a worker", |l| l["waiting_for_worker"] == true).await;
    assert_eq!((&waiting["games"], &waiting["running"]), (&json!(0), &json!(0)), "{waiting}");

    // One tournament game may end: the worker it frees goes to the ladder, which keeps it
    // game after game; the tournament goes on on the other one alone, its next games
    // waiting.
    std::fs::write(tickets.join("ticket-1"), "").unwrap();
    let ladder = wait_for(addr, &path, None, "three ladder games", |l| l["games"].as_i64() >= Some(3)).await;
    let (_, t) = call(addr, "GET", &tournament, None, None).await;
    assert_eq!((t["finished_games"].as_u64(), t["in_progress"].as_array().unwrap().len()), (Some(1), 1), "{t}");
    assert_eq!(t["status"], "running", "{t}");
    assert_eq!(ladder["peak_running"], 1, "{ladder}");
}
