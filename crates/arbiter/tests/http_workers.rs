//! Workers over HTTP (`arbiter worker --server URL --token T`) through the real
//! binaries: a tournament recorded for workers (`tournament --for-workers`) and served by
//! `arbiter serve --db FILE|URL` is played by worker processes that hold no database,
//! one SIGKILLed while it holds a game and the server restarted once, and ends with the
//! games and standings of the same config played by `arbiter tournament` on a SQLite
//! file, each game stored once; a revoked token stops its worker with one line; a forged
//! record is refused, counted against its worker and its game played again; a worker
//! cannot renew or report another's lease; a small fleet (20 workers, some killed at
//! random) holds.

mod common;

use std::io::{BufRead, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use store::{Location, Store};

const ARBITER: &str = env!("CARGO_BIN_EXE_arbiter");

/// How long any wait of these tests may take before it is a failure (far beyond need).
const PATIENCE: Duration = Duration::from_secs(180);

/// The organiser's token of the test servers.
const ADMIN: &str = "http-workers-test-token";

/// Two program bots (their files travel by hash) and two built-ins in a league, then a
/// final of two.
fn config(dir: &Path) -> PathBuf {
    common::seeded_bot(dir, "a", "strong:2000", 1);
    common::seeded_bot(dir, "b", "greedy", 2);
    common::league_and_final(dir, "http", 7, &[("a", "a"), ("b", "b"), ("greedy", "greedy"), ("random", "random")])
}

/// Built-in players only (instant games), `deals` of a round robin of six: the fleet's.
fn fleet_config(dir: &Path, deals: u32) -> PathBuf {
    let mut text = String::from("name = \"fleet\"\ngame = \"connect4\"\nseed = 11\n");
    for (name, bot) in [("r1", "random"), ("r2", "random"), ("g1", "greedy"), ("g2", "greedy"), ("m1", "medium"), ("m2", "medium")] {
        text.push_str(&format!("[[entrant]]\nname = \"{name}\"\nbot = \"{bot}\"\n"));
    }
    text.push_str(&format!("[[stage]]\nname = \"league\"\nformat = \"round-robin\"\ndeals = {deals}\nscoring = \"game-1-half-0\"\n"));
    let path = dir.join("fleet.toml");
    std::fs::write(&path, text).unwrap();
    path
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
}

/// Fails with the games that differ (by key), not with both lists whole.
fn assert_same_games(got: &[Value], want: &[Value], what: &str) {
    let keys = |games: &[Value]| games.iter().map(|g| g["spec"]["key"].as_str().unwrap().to_string()).collect::<Vec<_>>();
    let (got_keys, want_keys) = (keys(got), keys(want));
    let missing: Vec<&String> = want_keys.iter().filter(|k| !got_keys.contains(k)).collect();
    let extra: Vec<&String> = got_keys.iter().filter(|k| !want_keys.contains(k)).collect();
    assert!(
        missing.is_empty() && extra.is_empty() && got.len() == want.len(),
        "{what}: missing {missing:?}, extra {extra:?}, {} stored of {}",
        got.len(),
        want.len()
    );
    let differ: Vec<String> = got.iter().zip(want).filter(|(g, w)| g != w).map(|(g, w)| format!("{g}\n  expected {w}")).collect();
    assert!(
        differ.is_empty(),
        "{what}: {} game(s) differ:\n{}",
        differ.len(),
        differ.iter().take(3).cloned().collect::<Vec<_>>().join("\n")
    );
}

/// Who stored each game (`key`, worker id), in the order they were stored.
fn game_workers(db: &str) -> Vec<(String, String)> {
    runtime().block_on(async {
        let store = Store::open_read_only_at(&Location::parse(db)).await.unwrap();
        let rows = store.game_workers().await.unwrap();
        store.close().await;
        rows
    })
}

/// The standings without the timing column.
fn standings(db: &str) -> Value {
    let out = Command::new(ARBITER).args(["standings", "--db", db, "--format", "json"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut value: Value = serde_json::from_slice(&out.stdout).unwrap();
    for stage in value["stages"].as_array_mut().unwrap() {
        for row in stage["rows"].as_array_mut().unwrap() {
            row.as_object_mut().unwrap().remove("avg_ms_per_move");
        }
    }
    value
}

/// Plays the config's tournament in a SQLite file on this machine: its games.
fn on_sqlite(config: &Path, file: &Path) -> Vec<Value> {
    let out = Command::new(ARBITER)
        .args(["tournament", config.to_str().unwrap(), "--db", file.to_str().unwrap(), "-j", "2", "--no-sandbox"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    common::stored_games(file.to_str().unwrap())
}

/// `tournament CONFIG --db DB --for-workers`.
fn record_for_workers(config: &Path, db: &str) {
    let out = Command::new(ARBITER).args(["tournament", config.to_str().unwrap(), "--db", db, "--for-workers"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("recorded in"), "{}", String::from_utf8_lossy(&out.stdout));
}

/// `workers add NAME --data DATA`: the token.
fn add_worker(data: &Path, name: &str) -> String {
    let out = Command::new(ARBITER).args(["workers", "add", name, "--data"]).arg(data).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let token = String::from_utf8(out.stdout).unwrap().trim().to_string();
    assert_eq!(token.len(), 32, "{token}");
    token
}

/// The server process, killed when dropped (also on a panic).
struct Server {
    child: Child,
    addr: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `arbiter serve --db DB --data DATA` on `addr` (`127.0.0.1:0` for a free port).
fn serve(db: &str, data: &Path, addr: &str) -> Server {
    let mut child = Command::new(ARBITER)
        .args(["serve", "--addr", addr, "--admin-token", ADMIN, "--no-sandbox", "-j", "1", "--db", db, "--data"])
        .arg(data)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let line = std::io::BufReader::new(stdout).lines().next().expect("the server prints its address").unwrap();
    let addr = line.strip_prefix("arbiter serve: http://").and_then(|rest| rest.split('/').next()).expect("the start line").to_string();
    Server { child, addr }
}

/// An HTTP worker with a 2 s lease, its stderr in `log`, its cache beside it.
fn worker(addr: &str, token: &str, extra: &[&str], log: &Path) -> Child {
    Command::new(ARBITER)
        .args(["worker", "--server", &format!("http://{addr}"), "--token", token, "-j", "1", "--no-sandbox", "--lease", "2", "--cache"])
        .arg(log.with_extension("cache"))
        .args(extra)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(log).unwrap())
        .spawn()
        .unwrap()
}

/// One request (`Connection: close`): the status and the body as JSON (`null` if not).
fn call(addr: &str, method: &str, path: &str, token: &str, body: Option<&Value>) -> (u16, Value) {
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    let body = body.map(Value::to_string).unwrap_or_default();
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let status = answer.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let body = answer.split_once("\r\n\r\n").map_or("", |(_, b)| b);
    (status, serde_json::from_str(body).unwrap_or(Value::Null))
}

/// The scenario on one database: three HTTP workers, one SIGKILLed while it holds a
/// played game, the server restarted while another holds one; the games and standings
/// of the reference, each game stored once, the killed worker's game by another.
fn play_with_http_workers(db: &str, dir: &Path, config: &Path, reference: &[Value], reference_db: &str) {
    record_for_workers(config, db);
    let data = dir.join("data");
    let tokens: Vec<String> = ["w1", "w2", "w3"].iter().map(|name| add_worker(&data, name)).collect();
    let server = serve(db, &data, "127.0.0.1:0");
    let addr = server.addr.clone();
    let log = |name: &str| dir.join(name);

    // One stops after its first game, before reporting it, until the test kills it.
    let held = dir.join("held");
    let mut killed = worker(&addr, &tokens[0], &["--pause-before-store", held.to_str().unwrap()], &log("killed.err"));
    // One holds its first game across the server's restart.
    let across = dir.join("across");
    let mut carrying = worker(&addr, &tokens[1], &["--pause-before-store", across.to_str().unwrap()], &log("carrying.err"));
    common::wait_for_file(&held, &log("killed.err"));
    let killed_key = std::fs::read_to_string(&held).unwrap();
    killed.kill().unwrap();
    killed.wait().unwrap();

    common::wait_for_file(&across, &log("carrying.err"));
    let stored_before = common::stored_games(db).len();
    drop(server);
    let server = serve(db, &data, &addr);
    assert_eq!(server.addr, addr, "the server came back on its address");
    std::fs::remove_file(&across).unwrap();
    let mut third = worker(&addr, &tokens[2], &[], &log("third.err"));
    for (child, name) in [(&mut carrying, "carrying.err"), (&mut third, "third.err")] {
        let status = common::ended(child, name);
        let said = std::fs::read_to_string(log(name)).unwrap();
        assert!(status.success(), "{name} failed: {said}");
    }
    assert!(stored_before < reference.len(), "the restart came before the end ({stored_before} games stored)");

    assert_same_games(&common::stored_games(db), reference, "the same games with the same results, each stored once");
    assert_eq!(standings(db), standings(reference_db));
    let by_worker = game_workers(db);
    assert_eq!(by_worker.len(), reference.len(), "every game names the worker that played it");
    let stored_by: Vec<&String> = by_worker.iter().filter(|(key, _)| *key == killed_key).map(|(_, w)| w).collect();
    assert_eq!(stored_by.len(), 1, "{killed_key} stored once");
    assert!(!common::is_of(stored_by[0], killed.id()), "{killed_key} was stored by another worker than the killed one");
    assert!(by_worker.iter().all(|(_, w)| w.starts_with("w1/") || w.starts_with("w2/") || w.starts_with("w3/")), "{by_worker:?}");
    let logs = ["carrying.err", "third.err"].map(|name| std::fs::read_to_string(log(name)).unwrap()).concat();
    assert!(logs.contains(&format!("game {killed_key}: attempt ")), "{killed_key} was claimed again: {logs}");

    // The organiser sees each worker's figures; the killed one stored nothing.
    let (status, listed) = call(&addr, "GET", "/api/workers", ADMIN, None);
    assert_eq!(status, 200, "{listed}");
    let games_of =
        |name: &str| listed["workers"].as_array().unwrap().iter().find(|w| w["name"] == name).unwrap()["games"].as_i64().unwrap();
    assert_eq!(games_of("w1"), 0, "{listed}");
    assert_eq!(games_of("w2") + games_of("w3"), reference.len() as i64, "{listed}");
    let metrics = http_text(&addr, "/metrics");
    assert!(
        metrics.contains(&format!("arbiter_games_stored{{tournament=\"{}\"}} {}", tournament_id(&addr, &tokens[1]), reference.len())),
        "{metrics}"
    );
    assert!(metrics.contains("arbiter_games_pending{") && metrics.contains("arbiter_workers_active "), "{metrics}");
}

/// The id of the only tournament the server offers its workers.
fn tournament_id(addr: &str, token: &str) -> String {
    let (status, open) = call(addr, "GET", "/api/work", token, None);
    assert_eq!(status, 200, "{open}");
    open["tournaments"][0]["id"].as_str().unwrap().to_string()
}

/// A page's text.
fn http_text(addr: &str, path: &str) -> String {
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    write!(stream, "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    answer.split_once("\r\n\r\n").map_or(String::new(), |(_, b)| b.to_string())
}

#[test]
fn http_workers_on_sqlite_store_what_one_runner_stores_despite_a_kill_and_a_server_restart() {
    let dir = tempfile::tempdir().unwrap();
    let config = config(dir.path());
    let reference_db = dir.path().join("reference.db");
    let reference = on_sqlite(&config, &reference_db);
    assert!(reference.len() >= 14, "both stages played: {} games", reference.len());
    let db = dir.path().join("served.db");
    play_with_http_workers(db.to_str().unwrap(), dir.path(), &config, &reference, reference_db.to_str().unwrap());
}

#[test]
fn http_workers_on_postgresql_store_what_one_runner_stores_despite_a_kill_and_a_server_restart() {
    let Some(cluster) = pgtest::Cluster::start() else { return };
    let dir = tempfile::tempdir().unwrap();
    let config = config(dir.path());
    let reference_db = dir.path().join("reference.db");
    let reference = on_sqlite(&config, &reference_db);
    play_with_http_workers(&cluster.database(), dir.path(), &config, &reference, reference_db.to_str().unwrap());
}

/// A served tournament of built-ins with two worker tokens: the server, its data folder
/// and the tokens.
fn served_fleet(dir: &Path, deals: u32, names: &[&str]) -> (Server, PathBuf, Vec<String>, PathBuf) {
    let config = fleet_config(dir, deals);
    let db = dir.join("served.db");
    record_for_workers(&config, db.to_str().unwrap());
    let data = dir.join("data");
    let tokens = names.iter().map(|name| add_worker(&data, name)).collect();
    (serve(db.to_str().unwrap(), &data, "127.0.0.1:0"), data, tokens, config)
}

#[test]
fn a_revoked_token_stops_its_worker_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let (server, data, tokens, _) = served_fleet(dir.path(), 2, &["lab-1"]);
    let log = dir.path().join("worker.err");
    let paused = dir.path().join("paused");
    let mut child = worker(&server.addr, &tokens[0], &["--pause-before-store", paused.to_str().unwrap()], &log);
    common::wait_for_file(&paused, &log);
    let out = Command::new(ARBITER).args(["workers", "revoke", "lab-1", "--data"]).arg(&data).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    std::fs::remove_file(&paused).unwrap();
    let status = common::ended(&mut child, "the revoked worker");
    assert!(!status.success(), "a refused worker exits non-zero");
    let said = std::fs::read_to_string(&log).unwrap();
    assert_eq!(said.lines().last(), Some("arbiter: the server refused this worker's token (revoked or unknown)"), "{said}");
    // A token never made is refused alike, at once; given here in the environment, as
    // the Kubernetes example gives it (`--token` left out).
    let out = Command::new(ARBITER)
        .args(["worker", "--server", &format!("http://{}", server.addr), "--no-sandbox"])
        .env("ARBITER_WORKER_TOKEN", "not-a-token")
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stderr).trim(), "arbiter: the server refused this worker's token (revoked or unknown)");
    let out = Command::new(ARBITER).args(["workers", "list", "--json", "--data"]).arg(&data).output().unwrap();
    let listed: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(listed["workers"][0]["revoked"], true, "{listed}");
}

/// Joins tournament `id` as `token`'s worker: its worker id.
fn join(addr: &str, token: &str, id: &str) -> String {
    let body = json!({ "host": "test", "pid": 1, "version": "test", "sandbox": "none" });
    let (status, joined) = call(addr, "POST", &format!("/api/work/{id}/join"), token, Some(&body));
    assert_eq!(status, 200, "{joined}");
    joined["worker"].as_str().unwrap().to_string()
}

/// Claims one game as `worker`: its lease (key, attempt, spec).
fn claim(addr: &str, token: &str, id: &str, worker: &str) -> Value {
    let body = json!({ "worker": worker, "lease_seconds": 60, "count": 1 });
    let (status, claimed) = call(addr, "POST", &format!("/api/work/{id}/claim"), token, Some(&body));
    assert_eq!(status, 200, "{claimed}");
    claimed["games"][0].clone()
}

/// A record of `lease`'s game with the given moves and result, as a forger writes it.
fn forged(_lease: &Value, names: [&str; 2], moves: &[&str], seed: u64, winner: Option<usize>) -> Value {
    let player = |name: &str| json!({ "name": name, "kind": "builtin", "limits": {} });
    json!({
        "game": "connect4", "options": {}, "seed": seed, "players": [player(names[0]), player(names[1])],
        "moves": moves, "turns": [], "result": { "winner": winner, "scores": null, "termination": { "kind": "rules" } },
        "started_ms": 0, "duration_ms": 0,
    })
}

#[test]
fn forged_records_are_refused_and_counted_and_nobody_reports_another_workers_lease() {
    let dir = tempfile::tempdir().unwrap();
    let (server, _data, tokens, _) = served_fleet(dir.path(), 1, &["honest", "forger"]);
    let addr = &server.addr;
    let (honest, forger) = (&tokens[0], &tokens[1]);
    let id = tournament_id(addr, forger);
    let forger_id = join(addr, forger, &id);
    let honest_id = join(addr, honest, &id);
    assert!(forger_id.starts_with("forger/") && honest_id.starts_with("honest/"), "{forger_id} {honest_id}");
    let names = ["r1", "r2", "g1", "g2", "m1", "m2"];

    let lease = claim(addr, forger, &id, &forger_id);
    let key = lease["key"].as_str().unwrap().to_string();
    let players = [0, 1].map(|side| names[lease["spec"]["players"][side].as_u64().unwrap() as usize]);
    let seed = lease["spec"]["seed"].as_u64().unwrap();
    let report = |token: &str, worker: &str, key: &str, attempt: &Value, record: Value| {
        let body = json!({ "worker": worker, "results": [{ "key": key, "attempt": attempt, "record": record }] });
        call(addr, "POST", &format!("/api/work/{id}/results"), token, Some(&body))
    };
    // Column 9 does not exist on a 7-wide board: an illegal move.
    let (status, answer) = report(forger, &forger_id, &key, &lease["attempt"], forged(&lease, players, &["3", "9"], seed, Some(0)));
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["results"][0]["status"], "refused", "{answer}");
    assert!(answer["results"][0]["reason"].as_str().unwrap().contains("move 2 is illegal"), "{answer}");

    // The game went back to the queue at once: the next claim gets it, attempt 2.
    let again = claim(addr, forger, &id, &forger_id);
    assert_eq!(again["key"], key.as_str(), "{again}");
    assert_eq!(again["attempt"], 2, "{again}");
    // Four legal moves, but a win claimed that the moves do not make.
    let (_, answer) = report(forger, &forger_id, &key, &again["attempt"], forged(&again, players, &["3", "3", "4", "4"], seed, Some(0)));
    assert_eq!(answer["results"][0]["status"], "refused", "{answer}");
    assert!(answer["results"][0]["reason"].as_str().unwrap().contains("do not end it"), "{answer}");
    // The wrong seed.
    let third = claim(addr, forger, &id, &forger_id);
    let (_, answer) = report(forger, &forger_id, &key, &third["attempt"], forged(&third, players, &["3"], seed + 1, None));
    assert_eq!(answer["results"][0]["status"], "refused", "{answer}");
    assert!(answer["results"][0]["reason"].as_str().unwrap().contains("seed"), "{answer}");

    // Another worker's lease: renewing or reporting it is refused, under its id or one's own.
    let theirs = claim(addr, honest, &id, &honest_id);
    let their_key = theirs["key"].as_str().unwrap();
    let (status, answer) = report(forger, &honest_id, their_key, &theirs["attempt"], forged(&theirs, players, &[], seed, None));
    assert_eq!(status, 403, "another worker's id: {answer}");
    let (status, answer) = report(forger, &forger_id, their_key, &theirs["attempt"], forged(&theirs, players, &[], seed, None));
    assert_eq!((status, answer["results"][0]["status"].as_str()), (200, Some("not-yours")), "{answer}");
    let body = json!({ "worker": forger_id, "lease_seconds": 60, "leases": [{ "key": their_key, "attempt": theirs["attempt"] }] });
    let (_, renewed) = call(addr, "POST", &format!("/api/work/{id}/renew"), forger, Some(&body));
    assert_eq!(renewed["renewed"], json!([false]), "{renewed}");
    let body = json!({ "worker": honest_id, "lease_seconds": 60, "leases": [{ "key": their_key, "attempt": theirs["attempt"] }] });
    let (_, renewed) = call(addr, "POST", &format!("/api/work/{id}/renew"), honest, Some(&body));
    assert_eq!(renewed["renewed"], json!([true]), "its holder renews it: {renewed}");

    // Counted against the forger, and shown to the organiser; nothing stored.
    let (status, listed) = call(addr, "GET", "/api/workers", ADMIN, None);
    assert_eq!(status, 200, "{listed}");
    let row = |name: &str| listed["workers"].as_array().unwrap().iter().find(|w| w["name"] == name).unwrap().clone();
    assert_eq!(row("forger")["refused"], 3, "{listed}");
    assert_eq!(row("forger")["games"], 0, "{listed}");
    assert_eq!(row("honest")["refused"], 0, "{listed}");
    assert!(row("forger")["last_refusal"].as_str().unwrap().contains("seed"), "{listed}");
    let (status, _) = call(addr, "GET", "/api/workers", forger, None);
    assert_eq!(status, 403, "a worker's token is not the organiser's");
    assert!(common::stored_games(dir.path().join("served.db").to_str().unwrap()).is_empty());
}

#[test]
fn a_fleet_of_twenty_workers_some_killed_and_the_server_restarted_loses_nothing() {
    use rand::{RngExt, SeedableRng};
    let dir = tempfile::tempdir().unwrap();
    // 15 pairings a deal, two games a pairing: 300 games.
    let (server, data, tokens, config) = served_fleet(dir.path(), 10, &["fleet"]);
    let reference_db = dir.path().join("reference.db");
    let reference = on_sqlite(&config, &reference_db);
    assert_eq!(reference.len(), 300);
    let served = dir.path().join("served.db");
    let db = served.to_str().unwrap();
    let addr = server.addr.clone();
    let log = |n: usize| dir.path().join(format!("worker-{n}.err"));
    let mut workers: Vec<Child> = (0..20).map(|n| worker(&addr, &tokens[0], &[], &log(n))).collect();
    let mut rng = rand::rngs::ChaCha8Rng::seed_from_u64(45);
    // Two workers, chosen at random, SIGKILLed once games are being stored; the server
    // restarted once a third of the games are.
    let wait_stored = |at_least: usize| {
        let since = Instant::now();
        while common::stored_games(db).len() < at_least {
            assert!(since.elapsed() < PATIENCE, "waited for {at_least} games");
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    wait_stored(30);
    let mut killed = Vec::new();
    while killed.len() < 2 {
        let n = rng.random_range(0..workers.len());
        if !killed.contains(&n) {
            workers[n].kill().unwrap();
            workers[n].wait().unwrap();
            killed.push(n);
        }
    }
    wait_stored(100);
    drop(server);
    let server = serve(db, &data, &addr);
    for (n, child) in workers.iter_mut().enumerate() {
        if killed.contains(&n) {
            continue;
        }
        let status = common::ended(child, "a fleet worker");
        assert!(status.success(), "worker {n}: {}", std::fs::read_to_string(log(n)).unwrap());
    }
    drop(server);
    assert_same_games(&common::stored_games(db), &reference, "every game stored once, with the reference's result");
    assert_eq!(standings(db), standings(reference_db.to_str().unwrap()));
    assert_eq!(game_workers(db).len(), 300);
}
