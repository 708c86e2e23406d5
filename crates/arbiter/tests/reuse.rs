//! Processes that play game after game (the project protocol's `reuse`): a bot that says
//! it can keeps one process through a whole match and a tournament, gets a new one after
//! a fault, keeps a working folder of its own in which it sees only its own files, and a
//! bot that does not say so (or an organiser who does not allow it: `--no-reuse`, and a
//! tournament unless its config says `reuse = true`) gets a process per game; a Gomocup
//! brain that answers `RESTART` keeps its process too, and one that does not gets a
//! process per game without blame. Observed from outside: each process of the test bot draws a random token and
//! writes, when told a game, its token, how many games it has been told and the files it
//! sees, which the game records keep.

mod common;

use common::arbiter;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

/// A Connect Four bot of the project protocol: says `reuse` unless given `--no-reuse`,
/// leaves a file in its working folder for each game, and at its first move of the game
/// numbered N of its process exits (`--crash-in-game N`) or plays column 99, an illegal
/// move that leaves it alive (`--illegal-in-game N`).
const KEEPER: &str = r#"import os, random, sys
token = "%016x" % random.getrandbits(64)
def number(flag):
    return int(sys.argv[sys.argv.index(flag) + 1]) if flag in sys.argv else 0
crash_in, illegal_in = number("--crash-in-game"), number("--illegal-in-game")
games, legal = 0, []
for line in sys.stdin:
    word, _, rest = line.rstrip("\r\n").partition(" ")
    if word == "arbiter":
        print("name keeper")
        if "--no-reuse" not in sys.argv:
            print("reuse")
        print("ready", flush=True)
    elif word == "game":
        games += 1
        with open("mine-%s-%d" % (token, games), "w") as f:
            f.write("state")
        seen = " ".join(sorted(os.listdir(".")))
        print("process %s game %d sees %s" % (token, games, seen), file=sys.stderr, flush=True)
    elif word == "legal":
        legal = rest.split(" ")
    elif word == "go":
        if games == crash_in:
            sys.exit(3)
        if games == illegal_in:
            print("move 99", flush=True)
            continue
        print("move " + random.choice(legal), flush=True)
    elif word == "quit":
        break
"#;

fn ok(output: Output) -> String {
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(output.status.success(), "arbiter failed: {text}{}", String::from_utf8_lossy(&output.stderr));
    text
}

/// A folder with the keeper's manifest, its command given `args`.
fn keeper(dir: &Path, name: &str, args: &[&str]) -> PathBuf {
    let folder = dir.join(name);
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("keeper.py"), KEEPER).unwrap();
    let mut command = vec!["\"python3\"".to_string(), "\"./keeper.py\"".to_string()];
    command.extend(args.iter().map(|arg| format!("{arg:?}")));
    let manifest = format!("name = {name:?}\ngame = \"connect4\"\nprotocol = \"arbiter\"\ncommand = [{}]\n", command.join(", "));
    std::fs::write(folder.join("bot.toml"), manifest).unwrap();
    folder
}

/// What a process said when told a game: its token, its count of games, what it saw.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Told {
    token: String,
    game: u32,
    seen: Vec<String>,
}

impl Told {
    /// Every such line in a text (the stderr of a turn).
    fn all_in(text: &str) -> Vec<Told> {
        text.lines()
            .filter_map(|line| {
                let rest = line.strip_prefix("process ")?;
                let (token, rest) = rest.split_once(" game ")?;
                let (game, seen) = rest.split_once(" sees ")?;
                Some(Told { token: token.to_string(), game: game.parse().ok()?, seen: seen.split(' ').map(str::to_string).collect() })
            })
            .collect()
    }

    /// The files a process that drew `token` must see in its game `game`: its own, one
    /// per game so far, and nothing else.
    fn expected_seen(&self) -> Vec<String> {
        let mut files: Vec<String> = (1..=self.game).map(|n| format!("mine-{}-{n}", self.token)).collect();
        files.sort();
        files
    }
}

/// The records `arbiter play --record` wrote, in game order.
fn records(dir: &Path) -> Vec<Value> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|entry| entry.unwrap().path()).collect();
    files.sort();
    files.iter().map(|path| serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()).collect()
}

/// What the bot named `name` said in a record, with the side it played.
fn told_in(record: &Value, name: &str) -> Vec<(usize, Told)> {
    let sides: Vec<usize> = (0..2).filter(|&side| record["players"][side]["name"] == name).collect();
    let mut told = Vec::new();
    for turn in record["turns"].as_array().unwrap() {
        let side = turn["side"].as_u64().unwrap() as usize;
        if sides.contains(&side) {
            told.extend(Told::all_in(turn["stderr"].as_str().unwrap_or("")).into_iter().map(|t| (side, t)));
        }
    }
    told
}

/// Plays `games` games of `a` against `b` with extra flags; the records.
fn play(a: &Path, b: &str, games: u32, flags: &[&str]) -> Vec<Value> {
    let out = tempfile::tempdir().unwrap();
    let games_text = games.to_string();
    let mut args = vec!["play", "connect4", a.to_str().unwrap(), b, "--games", &games_text, "--seed", "7"];
    args.extend(["--record", out.path().to_str().unwrap()]);
    args.extend(flags);
    ok(arbiter(&args));
    records(out.path())
}

#[test]
fn a_bot_that_says_reuse_plays_a_whole_match_in_one_process() {
    let dir = tempfile::tempdir().unwrap();
    let bot = keeper(dir.path(), "keeper", &[]);
    let records = play(&bot, "random", 6, &[]);
    assert_eq!(records.len(), 6);
    let mut tokens = BTreeSet::new();
    for (n, record) in records.iter().enumerate() {
        assert_eq!(record["result"]["termination"]["kind"], "rules", "game {}", n + 1);
        let told = told_in(record, "keeper");
        assert_eq!(told.len(), 1, "told its game once in game {}: {told:?}", n + 1);
        let (_, told) = &told[0];
        tokens.insert(told.token.clone());
        assert_eq!(told.game, n as u32 + 1, "the process's own count of its games");
        // Its state from earlier games is still there, and nothing else.
        assert_eq!(told.seen, told.expected_seen(), "game {}", n + 1);
    }
    assert_eq!(tokens.len(), 1, "one process for the whole match: {tokens:?}");
}

#[test]
fn a_process_is_replaced_after_a_fault_with_a_folder_of_its_own() {
    let dir = tempfile::tempdir().unwrap();
    // A crash ends the process; an illegal move leaves it alive, but it is not kept.
    for (flag, fault) in [("--crash-in-game", "crash"), ("--illegal-in-game", "illegal-move")] {
        let bot = keeper(dir.path(), "keeper", &[flag, "3"]);
        let records = play(&bot, "random", 6, &[]);
        let told: Vec<Told> = records.iter().map(|record| told_in(record, "keeper")[0].1.clone()).collect();
        let kinds: Vec<&str> = records.iter().map(|r| r["result"]["termination"]["kind"].as_str().unwrap()).collect();
        // Games 1–2 by the first process; its fault in its game 3; the next process plays
        // game 4 as its first, and makes the fault in its own third game, game 6.
        assert_eq!(kinds, ["rules", "rules", fault, "rules", "rules", fault]);
        assert_eq!(told.iter().map(|t| t.game).collect::<Vec<_>>(), [1, 2, 3, 1, 2, 3], "{flag}");
        assert!(told[..3].iter().all(|t| t.token == told[0].token));
        assert!(told[3..].iter().all(|t| t.token == told[3].token));
        assert_ne!(told[0].token, told[3].token, "a new process after the fault ({flag})");
        for t in &told {
            assert_eq!(t.seen, t.expected_seen(), "a new process starts in a new folder: {t:?}");
        }
    }
}

#[test]
fn two_copies_of_a_bot_each_see_only_their_own_folder() {
    let dir = tempfile::tempdir().unwrap();
    let bot = keeper(dir.path(), "keeper", &[]);
    let records = play(&bot, bot.to_str().unwrap(), 4, &[]);
    let mut by_token: BTreeSet<String> = BTreeSet::new();
    for record in &records {
        let told = told_in(record, "keeper");
        assert_eq!(told.len(), 2, "both sides were told the game: {told:?}");
        assert_ne!(told[0].1.token, told[1].1.token, "two processes, never one for both sides");
        for (_, t) in &told {
            assert_eq!(t.seen, t.expected_seen(), "{t:?}");
            by_token.insert(t.token.clone());
        }
    }
    assert_eq!(by_token.len(), 2, "each copy kept its process: {by_token:?}");
}

#[test]
fn a_bot_without_reuse_or_a_run_without_it_gets_a_process_per_game() {
    let dir = tempfile::tempdir().unwrap();
    let plain = keeper(dir.path(), "keeper", &["--no-reuse"]);
    let able = keeper(dir.path(), "able", &[]);
    for (bot, flags, name) in [(&plain, &[][..], "keeper"), (&able, &["--no-reuse"][..], "able")] {
        let records = play(bot, "random", 4, flags);
        let mut tokens = BTreeSet::new();
        for record in &records {
            let told = told_in(record, name);
            assert_eq!(told.len(), 1);
            assert_eq!(told[0].1.game, 1, "every process plays one game ({name} {flags:?})");
            assert_eq!(told[0].1.seen, told[0].1.expected_seen());
            tokens.insert(told[0].1.token.clone());
        }
        assert_eq!(tokens.len(), 4, "four games, four processes ({name} {flags:?})");
    }
}

/// The processes (tokens) each entrant of a tournament's games used, from the records.
fn tournament_tokens(config: &str, dir: &Path) -> Vec<BTreeSet<String>> {
    let path = dir.join("t.toml");
    std::fs::write(&path, config).unwrap();
    let db = dir.join("t.db");
    ok(arbiter(&["tournament", path.to_str().unwrap(), "--db", db.to_str().unwrap(), "-j", "2", "--no-sandbox"]));
    let listing = ok(arbiter(&["replay", db.to_str().unwrap()]));
    let keys: Vec<String> =
        listing.lines().filter_map(|line| line.split_whitespace().next()).filter(|word| word.contains('/')).map(str::to_string).collect();
    assert_eq!(keys.len(), 6, "three entrants, each pair twice: {listing}");
    let mut tokens = vec![BTreeSet::new(); 3];
    for key in &keys {
        let record: Value = serde_json::from_str(&ok(arbiter(&["replay", db.to_str().unwrap(), "--game", key, "--json"]))).unwrap();
        for (idx, name) in ["a", "b", "c"].iter().enumerate() {
            for (_, told) in told_in(&record, name) {
                assert_eq!(told.seen, told.expected_seen());
                tokens[idx].insert(told.token);
            }
        }
    }
    tokens
}

#[test]
fn a_tournament_keeps_processes_only_when_its_config_says_reuse_true() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["a", "b", "c"] {
        keeper(dir.path(), name, &[]);
    }
    let config = |reuse: &str| {
        format!(
            "name = \"keepers\"\ngame = \"connect4\"\nseed = 3\n{reuse}\n\
             [[entrant]]\nbot = \"a\"\n[[entrant]]\nbot = \"b\"\n[[entrant]]\nbot = \"c\"\n\
             [[stage]]\nformat = \"round-robin\"\ndeals = 1\nswap = true\n"
        )
    };
    let kept = tournament_tokens(&config("reuse = true"), &tempdir_in(dir.path(), "kept"));
    // Each entrant plays 4 games; at most two at once (-j 2), so at most two processes.
    for tokens in &kept {
        assert!((1..=2).contains(&tokens.len()), "processes kept between games: {kept:?}");
    }
    // The default, and the seeds' presets' explicit `reuse = false`.
    let fresh = tournament_tokens(&config(""), &tempdir_in(dir.path(), "fresh"));
    for tokens in &fresh {
        assert_eq!(tokens.len(), 4, "a process per game: {fresh:?}");
    }
}

fn tempdir_in(dir: &Path, name: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::create_dir_all(&path).unwrap();
    // The entrants' folders are beside the config.
    for bot in ["a", "b", "c"] {
        let target = path.join(bot);
        std::fs::create_dir_all(&target).unwrap();
        for file in ["keeper.py", "bot.toml"] {
            std::fs::copy(dir.join(bot).join(file), target.join(file)).unwrap();
        }
    }
    path
}

/// A Gomocup brain that plays the first empty cell and, when told a game (`START` or
/// `RESTART`), writes on stderr `process TOKEN game N`; with `--no-restart` it answers
/// `RESTART` with `UNKNOWN`, as a brain without it does.
const BRAIN: &str = r#"import random, sys
token = "%016x" % random.getrandbits(64)
games, taken = 0, set()
def new_game():
    global games
    games += 1
    taken.clear()
    print("process %s game %d sees -" % (token, games), file=sys.stderr, flush=True)
    print("OK", flush=True)
def play():
    cell = next((x, y) for y in range(10) for x in range(10) if (x, y) not in taken)
    taken.add(cell)
    print("%d,%d" % cell, flush=True)
lines = iter(sys.stdin)
for line in lines:
    words = line.strip().replace(",", " ").split()
    command = words[0].upper() if words else ""
    if command == "START" or (command == "RESTART" and "--no-restart" not in sys.argv):
        new_game()
    elif command == "BEGIN":
        play()
    elif command == "TURN":
        taken.add((int(words[1]), int(words[2])))
        play()
    elif command == "BOARD":
        for stone in lines:
            if stone.strip().upper() == "DONE":
                break
            x, y, _ = stone.split(",")
            taken.add((int(x), int(y)))
        play()
    elif command == "END":
        break
    elif command not in ("INFO", ""):
        print("UNKNOWN " + line.strip(), flush=True)
"#;

/// The processes (tokens) of the brain in `records`, in order, with the games each was told.
fn brain_processes(records: &[Value]) -> Vec<(String, u32)> {
    records.iter().flat_map(|record| told_in(record, "brain")).map(|(_, told)| (told.token, told.game)).collect()
}

fn gomocup_games(flags: &[&str]) -> Vec<Value> {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("brain");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("brain.py"), BRAIN).unwrap();
    let manifest = format!(
        "name = \"brain\"\ngame = \"gomoku\"\nprotocol = \"gomocup\"\ncommand = [\"python3\", \"./brain.py\"{}]\n",
        flags.iter().map(|flag| format!(", {flag:?}")).collect::<String>()
    );
    std::fs::write(folder.join("bot.toml"), manifest).unwrap();
    let out = tempfile::tempdir().unwrap();
    let args =
        ["play", "gomoku", folder.to_str().unwrap(), "random", "--games", "4", "--seed", "7", "--record", out.path().to_str().unwrap()];
    ok(arbiter(&args));
    let records = records(out.path());
    for record in &records {
        assert_eq!(record["result"]["termination"]["kind"], "rules", "no fault: {}", record["result"]);
    }
    records
}

#[test]
fn a_gomocup_brain_that_answers_restart_plays_a_whole_match_in_one_process() {
    let processes = brain_processes(&gomocup_games(&[]));
    let token = &processes[0].0;
    assert_eq!(processes, (1..=4).map(|game| (token.clone(), game)).collect::<Vec<_>>());
}

#[test]
fn a_gomocup_brain_without_restart_gets_a_process_per_game_without_blame() {
    let processes = brain_processes(&gomocup_games(&["--no-restart"]));
    assert_eq!(processes.len(), 4, "{processes:?}");
    assert!(processes.iter().all(|(_, game)| *game == 1), "{processes:?}");
    let tokens: BTreeSet<&String> = processes.iter().map(|(token, _)| token).collect();
    assert_eq!(tokens.len(), 4, "{processes:?}");
}
