//! One runner per tournament, checked with real processes: two `arbiter tournament` on
//! one file (the second refuses with a line naming the first, a third waits for it), and
//! a web server killed with SIGKILL while a second server on the same data folder waits
//! to take its tournament over. Every game is stored once, the games stored before a
//! runner died are kept as they were, and nothing stops the tournament.
//!
//! No timing luck: a runner is frozen with SIGSTOP before the next one is looked at, so
//! "mid-tournament" and "waiting" are states the test makes, not moments it hopes for.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStderr, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;

const ARBITER: &str = env!("CARGO_BIN_EXE_arbiter");
/// The bound of every wait: far above what any step takes on a loaded 2-core machine.
const SAFETY: Duration = Duration::from_secs(120);
const TOKEN: &str = "runner-test-token";

/// A Connect Four round robin of built-in players (fast games, many of them).
fn round_robin(name: &str, entrants: usize, deals: usize) -> String {
    let mut text = format!("name = \"{name}\"\ngame = \"connect4\"\nseed = 7\n");
    for n in 0..entrants {
        let bot = if n % 2 == 0 { "random" } else { "greedy" };
        text.push_str(&format!("\n[[entrant]]\nname = \"{bot}-{n}\"\nbot = \"{bot}\"\n"));
    }
    text.push_str(&format!("\n[[stage]]\nformat = \"round-robin\"\ndeals = {deals}\n"));
    text
}

fn games_of(entrants: usize, deals: usize) -> usize {
    entrants * (entrants - 1) / 2 * deals * 2
}

/// The stored games, key → record, read without writing.
fn stored(db: &Path) -> BTreeMap<String, String> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let Ok(store) = store::Store::open_read_only(db).await else { return BTreeMap::new() };
        let mut games = BTreeMap::new();
        for outcome in store.games().await.unwrap_or_default() {
            let record = store.game_record(&outcome.spec.key).await.unwrap().expect("every stored game has a record");
            assert!(games.insert(outcome.spec.key.clone(), record).is_none(), "game {} stored twice", outcome.spec.key);
        }
        games
    })
}

/// Waits (bounded) until `done` holds.
fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let until = Instant::now() + SAFETY;
    while !done() {
        assert!(Instant::now() < until, "{what}: not within {SAFETY:?}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn signal(child: &Child, signal: &str) {
    let status = Command::new("kill").args([&format!("-{signal}"), &child.id().to_string()]).status().unwrap();
    assert!(status.success(), "kill -{signal}");
}

/// A child that is SIGKILLed when the test ends, passing or not.
struct Reaped(Child);

impl Drop for Reaped {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The lines a child writes to stderr, as they come.
fn stderr_lines(stderr: ChildStderr) -> mpsc::Receiver<String> {
    let (send, receive) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            if send.send(line).is_err() {
                break;
            }
        }
    });
    receive
}

fn host() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap().trim().to_string()
}

#[test]
fn two_tournament_runners_on_one_file_one_plays_one_refuses_one_waits() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("t.toml");
    let (entrants, deals) = (4, 20);
    let total = games_of(entrants, deals);
    std::fs::write(&config, round_robin("two runners", entrants, deals)).unwrap();
    let db = dir.path().join("t.db");
    let run = |extra: &[&str]| {
        let mut cmd = Command::new(ARBITER);
        cmd.args(["tournament", config.to_str().unwrap(), "--db", db.to_str().unwrap(), "-j", "2"]).args(extra);
        cmd.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped());
        cmd
    };

    // The first runner plays some games and is frozen mid-tournament, holding the lock.
    let first = Reaped(run(&[]).spawn().unwrap());
    wait_until("the first runner stores a game", || !stored(&db).is_empty());
    signal(&first.0, "STOP");
    let before = stored(&db);
    assert!(before.len() < total, "the first runner finished before it could be frozen; make the tournament longer");

    // A second runner is refused at once, with one line naming the holder.
    let out = run(&[]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    let line = format!("arbiter: {} is being run by process {} on {} since ", db.display(), first.0.id(), host());
    assert!(err.lines().any(|l| l.starts_with(&line) && l.ends_with("GMT; one runner per tournament (--wait waits for it)")), "{err}");
    assert_eq!(err.lines().filter(|l| l.starts_with("arbiter:")).count(), 1, "{err}");
    assert_eq!(stored(&db), before, "the refused runner stored nothing");

    // A third one waits, says for whom, and plays the rest once the first is gone.
    let mut third = Reaped(run(&["--wait"]).spawn().unwrap());
    let lines = stderr_lines(third.0.stderr.take().unwrap());
    let waiting = format!("waiting: process {} on {}", first.0.id(), host());
    let mut seen = Vec::new();
    loop {
        let line = lines.recv_timeout(SAFETY).unwrap_or_else(|_| panic!("no waiting line; saw {seen:?}"));
        if line.starts_with(&waiting) {
            break;
        }
        seen.push(line);
    }
    assert_eq!(stored(&db), before, "the waiting runner stored nothing while the first held the lock");
    signal(&first.0, "KILL");
    let until = Instant::now() + SAFETY;
    let status = loop {
        if let Some(status) = third.0.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < until, "the waiting runner did not finish");
        std::thread::sleep(Duration::from_millis(20));
    };
    let rest: Vec<String> = lines.try_iter().collect();
    assert!(status.success(), "the waiting runner failed: {rest:?}");

    let after = stored(&db);
    assert_eq!(after.len(), total, "every game of the round robin, each once");
    for (key, record) in &before {
        assert_eq!(after.get(key), Some(record), "game {key} stored by the first runner is kept as it was");
    }
}

/// `arbiter serve` on a data folder, its address read from its first line.
fn serve(data: &Path) -> (Reaped, SocketAddr) {
    let mut child = Command::new(ARBITER)
        .args(["serve", "--data", data.to_str().unwrap(), "--addr", "127.0.0.1:0", "--admin-token", TOKEN, "-j", "2", "--no-sandbox"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    let addr = line
        .split("http://")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .parse()
        .unwrap();
    // Keep reading so that the server never blocks on a full pipe.
    std::thread::spawn(move || std::io::copy(&mut stdout, &mut std::io::sink()));
    (Reaped(child), addr)
}

/// One HTTP request on a fresh connection; the status and the JSON body.
fn http(addr: SocketAddr, method: &str, path: &str, body: Option<&str>) -> (u16, Value) {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(SAFETY)).unwrap();
    let mut head = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nAuthorization: Bearer {TOKEN}\r\n");
    if let Some(body) = body {
        head.push_str(&format!("Content-Type: application/json\r\nContent-Length: {}\r\n", body.len()));
    }
    head.push_str("\r\n");
    head.push_str(body.unwrap_or(""));
    stream.write_all(head.as_bytes()).unwrap();
    let mut raw = String::new();
    stream.read_to_string(&mut raw).unwrap();
    let (head, body) = raw.split_once("\r\n\r\n").unwrap_or_else(|| panic!("no end of headers: {raw:?}"));
    let status = head.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or_else(|| panic!("no status: {head:?}"));
    assert!(!head.to_ascii_lowercase().contains("transfer-encoding: chunked"), "a JSON answer has a length");
    (status, serde_json::from_str(body).unwrap_or_else(|err| panic!("not JSON ({err}): {body:?}")))
}

/// The status the server's list gives a tournament.
fn status(addr: SocketAddr, id: &str) -> String {
    let (code, list) = http(addr, "GET", "/api/tournaments", None);
    assert_eq!(code, 200, "{list}");
    let entry = list.as_array().and_then(|l| l.iter().find(|t| t["id"] == id)).cloned();
    entry.map(|t| t["status"].as_str().unwrap_or_default().to_string()).unwrap_or_default()
}

fn tournament_db(data: &Path, id: &str) -> PathBuf {
    data.join("tournaments").join(format!("{id}.db"))
}

#[test]
fn a_server_killed_mid_tournament_is_taken_over_by_the_one_waiting_with_no_game_lost_or_played_twice() {
    let data = tempfile::tempdir().unwrap();
    let (entrants, deals) = (4, 20);
    let total = games_of(entrants, deals);

    let (first, first_addr) = serve(data.path());
    let body = serde_json::json!({ "config": round_robin("Taken over", entrants, deals) }).to_string();
    let (code, started) = http(first_addr, "POST", "/api/tournaments", Some(&body));
    assert_eq!(code, 201, "{started}");
    let id = started["id"].as_str().unwrap().to_string();
    let db = tournament_db(data.path(), &id);
    wait_until("the first server stores ten games", || stored(&db).len() >= 10);
    signal(&first.0, "STOP");
    let before = stored(&db);
    assert!(before.len() < total, "the first server finished before it could be frozen; make the tournament longer");

    // A second server on the same folder (a restarted service whose old process
    // lingers) shows the tournament and waits for the first to let go.
    let (second, second_addr) = serve(data.path());
    let waiting = format!("waiting: process {} on {}", first.0.id(), host());
    wait_until("the second server says whom it waits for", || status(second_addr, &id).starts_with(&waiting));
    assert_eq!(stored(&db), before, "nothing stored while the first holds the tournament");

    // The first dies for real; the second takes over and plays the rest.
    signal(&first.0, "KILL");
    wait_until("the second server finishes the tournament", || {
        let now = status(second_addr, &id);
        assert!(!now.starts_with("stopped"), "the tournament stopped: {now}");
        now == "finished"
    });
    let after = stored(&db);
    assert_eq!(after.len(), total, "every game of the round robin, each once");
    for (key, record) in &before {
        assert_eq!(after.get(key), Some(record), "game {key} stored before the kill is kept as it was");
    }
    drop(second);
}
