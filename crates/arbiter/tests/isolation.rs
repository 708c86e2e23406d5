//! What a hostile bot can reach through the real commands (`play`, `match`, `tournament`),
//! whatever its manifest says: a bot whose command names an absolute path (`/x`, which
//! once opened all of `/` to it) reads nothing outside its own folders; a bot of the
//! Connect Four TCP interface reaches its referee and nothing else, and listens where
//! nobody can reach it; a bot that fills its working folder hits its disk quota and loses
//! alone, without a byte on the machine's disk.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

const ARBITER: &str = env!("CARGO_BIN_EXE_arbiter");

/// A Pah-tum bot in sh, run as `/bin/sh ./bot.sh /x` (an absolute path in its command,
/// as an upload's manifest may give): before each move it looks for everything outside
/// its folders (the root's secrets, `victim`'s folder, the games' folders in the
/// temporary folder) and, at the first thing it can read, exits 3 naming it; else it
/// plays its letter on the first empty square.
fn snooping_bot(folder: &Path, victim: &Path, temp: &Path) -> String {
    std::fs::create_dir_all(folder).unwrap();
    let script = format!(
        r#"leak() {{ echo "LEAK $1" >&2; exit 3; }}
cat /etc/shadow > /dev/null 2>&1 && leak shadow
cat {victim}/secret > /dev/null 2>&1 && leak "the other bot's folder"
ls {victim} > /dev/null 2>&1 && leak "the other bot's folder listed"
for d in {temp}/arbiter-game-* /tmp/arbiter-game-*; do [ -e "$d" ] && leak "a game's folder $d"; done
cat /proc/1/root/etc/shadow > /dev/null 2>&1 && leak "/proc/1/root"
ls /root > /dev/null 2>&1 && leak /root
board=$(cat; echo .); board=${{board%.}}
x=$(printf '%s' "$board" | tr -cd X | wc -c); o=$(printf '%s' "$board" | tr -cd O | wc -c)
if [ "$x" -eq "$o" ]; then me=X; else me=O; fi
printf '%s' "$board" | sed "0,/-/s//$me/" | head -c 56
"#,
        victim = victim.display(),
        temp = temp.display(),
    );
    std::fs::write(folder.join("bot.sh"), script).unwrap();
    std::fs::write(
        folder.join("bot.toml"),
        "name = \"snoop\"\ngame = \"pahtum\"\nprotocol = \"pahtum\"\ncommand = [\"/bin/sh\", \"./bot.sh\", \"/x\"]\n",
    )
    .unwrap();
    folder.to_str().unwrap().to_string()
}

/// The victim: the Python sample of the Pah-tum interface copied into a folder of its own,
/// with a secret beside its source.
fn victim_bot(folder: &Path) -> String {
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bots/pahtum/python");
    std::fs::create_dir_all(folder).unwrap();
    for entry in std::fs::read_dir(&sample).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_file() {
            std::fs::copy(entry.path(), folder.join(entry.file_name())).unwrap();
        }
    }
    std::fs::write(folder.join("secret"), "the victim's opening book").unwrap();
    folder.to_str().unwrap().to_string()
}

/// Every game of a `--json` summary ended by the rules (the snoop found nothing to leak).
fn all_by_the_rules(out: &std::process::Output, what: &str) {
    assert!(out.status.success(), "{what}: {}", String::from_utf8_lossy(&out.stderr));
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let games = summary["games"].as_array().unwrap();
    assert!(!games.is_empty(), "{what}: no games");
    for game in games {
        assert_eq!(game["termination"]["kind"], "rules", "{what}: the snooping bot found something: {game}");
    }
}

#[test]
fn a_bot_naming_an_absolute_path_reads_nothing_outside_its_folders() {
    let dir = tempfile::tempdir().unwrap();
    let temp = dir.path().join("tmp");
    std::fs::create_dir(&temp).unwrap();
    let victim = victim_bot(&dir.path().join("victim"));
    let snoop = snooping_bot(&dir.path().join("snoop"), Path::new(&victim), &temp);
    let arbiter = || {
        let mut command = Command::new(ARBITER);
        command.env("TMPDIR", &temp);
        command
    };

    let out = arbiter().args(["play", "pahtum", &snoop, &victim, "--games", "2", "--seed", "3", "--json"]).output().unwrap();
    all_by_the_rules(&out, "play");

    let out = arbiter().args(["match", "pahtum", &snoop, &victim, "--games", "4", "-j", "2", "--seed", "3", "--json"]).output().unwrap();
    assert!(out.status.success(), "match: {}", String::from_utf8_lossy(&out.stderr));
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["games"], 4, "{summary}");
    assert_eq!(summary["faults"], serde_json::json!([0, 0]), "match: the snooping bot found something: {summary}");

    let config = dir.path().join("tournament.toml");
    std::fs::write(
        &config,
        format!(
            "game = \"pahtum\"\nseed = 5\n[[entrant]]\nname = \"snoop\"\nbot = \"{snoop}\"\n[[entrant]]\nname = \"victim\"\nbot = \"{victim}\"\n\
             [[stage]]\nformat = \"round-robin\"\n"
        ),
    )
    .unwrap();
    let db = dir.path().join("results.db");
    let out = arbiter().args(["tournament", config.to_str().unwrap(), "--db", db.to_str().unwrap(), "-j", "2"]).output().unwrap();
    assert!(out.status.success(), "tournament: {}", String::from_utf8_lossy(&out.stderr));
    let out = arbiter().args(["standings", "--db", db.to_str().unwrap(), "--format", "json"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let standings: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = standings["stages"][0]["rows"].as_array().unwrap();
    assert_eq!(standings["stages"][0]["games"], 2, "{standings}");
    for row in rows {
        for fault in ["timeouts", "crashes", "illegal_moves", "protocol_errors"] {
            assert_eq!(row[fault], 0, "the snooping bot found something in the tournament: {row}");
        }
    }
}

/// A Connect Four bot of the TCP interface (the sample library, a player of its own): at
/// its first move it listens with no `bind` (the kernel picks a port on every address)
/// and says the port on stderr, and tries the referee's port on other addresses and a
/// listener of the test's; at its second it waits five seconds, for the test to try its
/// port; it says `REACHED` for everything it reached and `ACCEPTED` when someone
/// connected to it.
fn tcp_bot(folder: &Path, host_port: u16) -> String {
    std::fs::create_dir_all(folder).unwrap();
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bots/connect4-tcp/python");
    std::fs::copy(samples.join("c4client.py"), folder.join("c4client.py")).unwrap();
    let player = format!(
        r#"import os, random, socket, sys, time
import c4client

def reach(host, port, family=socket.AF_INET):
    s = socket.socket(family)
    s.settimeout(1)
    try:
        s.connect((host, port))
        return True
    except OSError:
        return False

class Player:
    name = "prober"
    moves = 0
    def wake(self, width, height, i_start):
        self.height = height
    def move(self, board, last_move):
        self.moves += 1
        if self.moves == 1:
            self.listener = socket.socket(socket.AF_INET6)
            self.listener.listen()
            self.listener.setblocking(False)
            print("listening %d" % self.listener.getsockname()[1], file=sys.stderr)
            port = int(os.environ["ARBITER_ADDR"].rsplit(":", 1)[1])
            for host in ["127.0.0.2", "10.1.2.3"]:
                if reach(host, port):
                    print("REACHED the referee's port at %s" % host, file=sys.stderr)
            if reach("::1", port, socket.AF_INET6):
                print("REACHED the referee's port at ::1", file=sys.stderr)
            for host in ["127.0.0.1", "127.0.0.2"]:
                if reach(host, {host_port}):
                    print("REACHED the test's listener at %s" % host, file=sys.stderr)
        elif self.moves == 2:
            time.sleep(5)
        try:
            self.listener.accept()
            print("ACCEPTED a connection", file=sys.stderr)
        except OSError:
            pass
        return random.choice([x for x, col in enumerate(board) if col[self.height - 1] == c4client.EMPTY])
    def game_over(self, result):
        pass

c4client.run(Player())
"#
    );
    std::fs::write(folder.join("prober.py"), player).unwrap();
    std::fs::write(
        folder.join("bot.toml"),
        "name = \"prober\"\ngame = \"connect4\"\nprotocol = \"connect4-tcp\"\ncommand = [\"python3\", \"./prober.py\"]\n",
    )
    .unwrap();
    folder.to_str().unwrap().to_string()
}

#[test]
fn a_tcp_bot_can_neither_listen_reachably_nor_connect_elsewhere() {
    let dir = tempfile::tempdir().unwrap();
    let host = std::net::TcpListener::bind("0.0.0.0:0").unwrap();
    host.set_nonblocking(true).unwrap();
    let bot = tcp_bot(&dir.path().join("prober"), host.local_addr().unwrap().port());
    let mut play = Command::new(ARBITER)
        .args(["play", "connect4", &bot, "random", "--games", "1", "--seed", "2", "--show"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(play.stdout.take().unwrap()).lines();
    let mut seen = Vec::new();
    let mut tried = false;
    let mut after_try = 0;
    for line in lines.by_ref() {
        let line = line.unwrap();
        if let Some(port) = line.trim().strip_prefix("listening ").or_else(|| line.split("listening ").nth(1)) {
            let port: u16 = port.trim().parse().unwrap_or_else(|_| panic!("a port: {line}"));
            for addr in [format!("127.0.0.1:{port}"), format!("[::1]:{port}")] {
                let reached = std::net::TcpStream::connect_timeout(&addr.parse().unwrap(), Duration::from_secs(2));
                assert!(reached.is_err(), "the test reached the bot's listener at {addr}");
            }
            tried = true;
        } else if tried && line.contains(" plays ") {
            after_try += 1;
        }
        seen.push(line);
    }
    let status = play.wait().unwrap();
    let text = seen.join("\n");
    assert!(status.success(), "{text}");
    assert!(tried, "the bot never said its port:\n{text}");
    // The game went on after the test's tries: the bot was alive and listening then.
    assert!(after_try >= 2, "{text}");
    assert!(!text.contains("REACHED") && !text.contains("ACCEPTED"), "{text}");
    assert!(host.accept().is_err(), "something connected to the test's listener");
}

/// A bot of the project's protocol, in Python: at its first move it writes 80 files of
/// 1 MiB into its working folder (more than the default quota of 64 MiB, each file under
/// the file-size cap), then exits 6 if a write failed and 5 if none did.
fn filling_bot(folder: &Path) -> String {
    std::fs::create_dir_all(folder).unwrap();
    let script = r#"import sys
n = 0
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "arbiter":
        print("name filler", flush=True)
        print("ready", flush=True)
    elif words[0] == "go":
        n += 1
        if n == 1:
            try:
                for i in range(80):
                    with open("fill%d" % i, "wb") as f:
                        f.write(b"x" * (1 << 20))
                print("WROTE 80 MiB", file=sys.stderr)
                sys.exit(5)
            except OSError as e:
                print("refused:", e, file=sys.stderr)
                sys.exit(6)
"#;
    std::fs::write(folder.join("filler.py"), script).unwrap();
    std::fs::write(
        folder.join("bot.toml"),
        "name = \"filler\"\ngame = \"any\"\nprotocol = \"arbiter\"\ncommand = [\"python3\", \"./filler.py\"]\n",
    )
    .unwrap();
    folder.to_str().unwrap().to_string()
}

#[test]
fn a_bot_filling_its_folder_hits_its_quota_and_only_it_loses() {
    let dir = tempfile::tempdir().unwrap();
    let temp = dir.path().join("tmp");
    std::fs::create_dir(&temp).unwrap();
    let bot = filling_bot(&dir.path().join("filler"));
    let records = dir.path().join("records");
    let out = Command::new(ARBITER)
        .env("TMPDIR", &temp)
        .args(["play", "connect4", &bot, "random", "--games", "2", "--seed", "1", "--json"])
        .args(["--record", records.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for game in summary["games"].as_array().unwrap() {
        let termination = &game["termination"];
        assert_eq!(termination["kind"], "crash", "{game}");
        let detail = termination["detail"].as_str().unwrap_or_default();
        assert!(detail.contains("disk quota"), "the fault says the quota was full: {game}");
        // The bot's side lost; the other is the winner.
        assert_ne!(game["winner"], serde_json::Value::Null, "{game}");
    }
    for record in std::fs::read_dir(&records).unwrap() {
        let text = std::fs::read_to_string(record.unwrap().path()).unwrap();
        assert!(text.contains("refused:") && text.contains("No space left on device"), "{text}");
        assert!(!text.contains("WROTE 80 MiB"), "{text}");
    }
    // Nothing of it is left on the machine's disk.
    assert_eq!(du(&temp), 0, "{:?}", std::fs::read_dir(&temp).unwrap().collect::<Vec<_>>());
}

/// The bytes of the regular files below `dir`.
fn du(dir: &Path) -> u64 {
    let mut total = 0;
    let mut stack: Vec<PathBuf> = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let meta = entry.metadata().unwrap();
            if meta.is_dir() {
                stack.push(entry.path());
            } else {
                total += meta.len();
            }
        }
    }
    total
}
