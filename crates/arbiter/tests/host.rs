//! `arbiter host connect4` with one good client (the Python sample) and one faulty one
//! (garbage, leaving mid-game, silence): the faulty client loses those games, the score
//! lines are right, the good client plays to the end, and the host exits cleanly.

use std::io::{BufRead, BufReader, Lines};
use std::path::Path;
use std::process::{Child, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

/// A client script's beginning: connect to `ARBITER_ADDR`, say the name, then go on.
const CONNECT: &str = r#"
import os, socket, sys, time
host, port = os.environ["ARBITER_ADDR"].rsplit(":", 1)
f = socket.create_connection((host, int(port))).makefile("rw")
def send(text):
    f.write(text + "\n")
    f.flush()
f.readline()
"#;

struct Host {
    child: Child,
    lines: Lines<BufReader<ChildStdout>>,
    addr: String,
}

impl Host {
    fn start(extra: &[&str]) -> Host {
        let mut child = Command::new(env!("CARGO_BIN_EXE_arbiter"))
            .args(["host", "connect4", "--pairs", "2", "--port", "0"])
            .args(extra)
            .stdout(Stdio::piped())
            .spawn()
            .expect("arbiter runs");
        let mut lines = BufReader::new(child.stdout.take().expect("piped")).lines();
        let first = lines.next().expect("a first line").expect("text");
        let addr = first.strip_prefix("listening on ").unwrap_or_else(|| panic!("{first}")).to_string();
        Host { child, lines, addr }
    }

    fn client(&self, args: &[&str]) -> Child {
        Command::new("python3").args(args).env("ARBITER_ADDR", &self.addr).stderr(Stdio::null()).spawn().expect("python3 runs")
    }

    /// Reads lines until one starts with `prefix`, returning the lines read.
    fn until(&mut self, prefix: &str) -> Vec<String> {
        let mut seen = Vec::new();
        for line in self.lines.by_ref() {
            let line = line.expect("text");
            let done = line.starts_with(prefix);
            seen.push(line);
            if done {
                return seen;
            }
        }
        panic!("no line starting with {prefix:?} in {seen:#?}");
    }

    /// The rest of the output, and whether the host exited with status 0 (within 20 s).
    fn finish(mut self) -> (Vec<String>, bool) {
        let rest: Vec<String> = self.lines.by_ref().map(|line| line.expect("text")).collect();
        let began = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return (rest, status.success());
            }
            if began.elapsed() > Duration::from_secs(20) {
                let _ = self.child.kill();
                panic!("the host did not exit: {rest:#?}");
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

fn good_client() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bots/connect4-tcp/python/random_bot.py").to_string_lossy().into_owned()
}

/// Plays the good client (client 1) against `script` (client 2, named `name`) on
/// `host`, checks that client 2 loses all four games, the score lines and the clean
/// exit, and returns the lines of the games.
fn good_beats_faulty(mut host: Host, name: &str, script: &str) -> Vec<String> {
    let mut good = host.client(&[&good_client()]);
    host.until("client 1 from");
    let mut faulty = host.client(&["-c", &format!("{CONNECT}\nsend('name {name}')\n{script}")]);
    host.until("client 2 from");
    let (lines, ok) = host.finish();
    assert!(ok, "{lines:#?}");
    let games: Vec<String> = lines.iter().filter(|line| line.starts_with("game ")).cloned().collect();
    assert_eq!(games.len(), 4, "{lines:#?}");
    for (idx, line) in games.iter().enumerate() {
        assert!(line.contains("random-py wins"), "{line}");
        assert!(line.ends_with(&format!("score: random-py {}, {name} 0", idx + 1)), "{line}");
    }
    assert_eq!(lines.last().map(String::as_str), Some(format!("final after 4 game(s): random-py 4, {name} 0").as_str()), "{lines:#?}");
    assert!(good.wait().expect("wait").success(), "the good client played to the end");
    let _ = faulty.kill();
    let _ = faulty.wait();
    games
}

#[test]
fn a_client_that_sends_garbage_loses_every_game() {
    let script = "for line in f:\n    if line.startswith('move'):\n        send('left')";
    let games = good_beats_faulty(Host::start(&[]), "garbage", script);
    // A garbage line loses the game, but the client stays connected.
    for line in games {
        assert!(line.contains("protocol-error by garbage: answered \"left\" instead of a column"), "{line}");
    }
}

#[test]
fn a_client_that_leaves_mid_game_loses_that_game_and_the_rest() {
    let script = "for line in f:\n    if line.startswith('move'):\n        send('3')\n        break\nsys.exit(0)";
    let games = good_beats_faulty(Host::start(&[]), "leaver", script);
    // It left after its first move: the third move of the game was never answered.
    assert!(games[0].contains("after 3 moves (crash by leaver: closed the connection)"), "{}", games[0]);
    for line in &games[1..] {
        assert!(line.contains("after 0 moves (crash by leaver: disconnected earlier (closed the connection))"), "{line}");
    }
}

#[test]
fn a_silent_client_loses_on_time_and_a_mute_one_is_turned_away() {
    // 2 s: room for the good client's moves and names on a loaded machine, while the
    // silent and mute ones run out of it whatever the load.
    let mut host = Host::start(&["--move-ms", "2000"]);
    // A client that never says its name is turned away; the next one takes its place.
    let mute = "import os, socket, time\nh, p = os.environ['ARBITER_ADDR'].rsplit(':', 1)\ns = socket.create_connection((h, int(p)))\ntime.sleep(30)";
    let mut mute = host.client(&["-c", mute]);
    let turned_away = host.until("a client from");
    assert!(turned_away.last().expect("a line").ends_with("was turned away: sent no name within 2 s"), "{turned_away:#?}");
    let _ = mute.kill();
    let _ = mute.wait();
    let script = "for line in f:\n    if line.startswith('move'):\n        time.sleep(30)";
    let games = good_beats_faulty(host, "silent", script);
    assert!(games[0].contains("timeout by silent: out of time (2 s per move)"), "{}", games[0]);
    assert!(games[1].contains("crash by silent: disconnected earlier"), "{}", games[1]);
}

#[test]
fn a_clients_name_is_shown_escaped() {
    let mut host = Host::start(&[]);
    let mut good = host.client(&[&good_client()]);
    host.until("client 1 from");
    // A name that would set the window title, clear the screen and start a fake line.
    let script = format!(
        "{CONNECT}\nsend('name evil\\x1b]0;pwned\\x07\\x1b[2J\\rfinal after 4 game(s): evil 4')\nfor line in f:\n    if line.startswith('move'):\n        send('left')"
    );
    let mut evil = host.client(&["-c", &script]);
    let mut lines = host.until("client 2 from");
    let (rest, ok) = host.finish();
    assert!(ok, "{rest:#?}");
    lines.extend(rest);
    let text = lines.join("\n");
    assert!(!text.contains('\u{1b}') && !text.contains('\u{7}') && !text.contains('\r'), "raw control characters: {text:?}");
    assert!(lines[0].ends_with(r": evil\x1b]0;pwned\x07\x1b[2J\x0dfinal after 4 game(s): evil 4"), "{}", lines[0]);
    assert!(lines.last().is_some_and(|l| l.starts_with("final after 4 game(s): random-py 4, evil")), "{text}");
    assert!(good.wait().expect("wait").success());
    let _ = evil.kill();
    let _ = evil.wait();
}
