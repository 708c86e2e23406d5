//! Helpers shared by the referee's end-to-end tests: the sample bots, bots made of one
//! script, games without an observer, the checks of a normal game, and checks through
//! /proc that a bot's processes are gone. Each test binary uses a part of them.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use referee::{BotSpec, GameRecord, GameSetup, Termination, TurnRecord, play_game};

/// The folder of the sample bots for `interface` (`bots/<interface>` in the repository).
pub fn bots_dir(interface: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bots").join(interface)
}

/// The sample bot for `interface` written in `language`, loaded from its folder.
pub fn sample(interface: &str, language: &str) -> BotSpec {
    BotSpec::from_arg(bots_dir(interface).join(language).to_str().unwrap()).unwrap()
}

/// The built-in random player.
pub fn random() -> BotSpec {
    BotSpec::Builtin(players::Builtin::RANDOM)
}

/// How a script bot is run: the game and interface its manifest names, the script's file
/// name in the bot's folder, and the command that runs it there.
#[derive(Clone, Copy, Debug)]
pub struct Script<'a> {
    pub game: &'a str,
    pub protocol: &'a str,
    pub file: &'a str,
    pub command: &'a [&'a str],
}

impl<'a> Script<'a> {
    /// A shell script `bot.sh`, run as `sh ./bot.sh`, playing `game` through `protocol`.
    pub const fn sh(game: &'a str, protocol: &'a str) -> Script<'a> {
        Script { game, protocol, file: "bot.sh", command: &["sh", "./bot.sh"] }
    }
}

/// Writes the script `text` and a `bot.toml` for a bot called `name` into `folder`
/// (created if missing), and loads the bot from that folder.
pub fn bot_in(folder: &Path, name: &str, script: Script, text: &str) -> BotSpec {
    std::fs::create_dir_all(folder).unwrap();
    std::fs::write(folder.join(script.file), text).unwrap();
    let command: Vec<String> = script.command.iter().map(|part| format!("{part:?}")).collect();
    let manifest =
        format!("name = \"{name}\"\ngame = \"{}\"\nprotocol = \"{}\"\ncommand = [{}]\n", script.game, script.protocol, command.join(", "));
    std::fs::write(folder.join("bot.toml"), manifest).unwrap();
    BotSpec::from_arg(folder.to_str().unwrap()).unwrap()
}

/// A bot called `name` whose program is the script `text`, in its own folder `dir/name`.
pub fn script_bot(dir: &Path, name: &str, script: Script, text: &str) -> BotSpec {
    bot_in(&dir.join(name), name, script, text)
}

/// Plays a game without an observer.
pub async fn play(setup: &GameSetup, bots: [&BotSpec; 2]) -> GameRecord {
    play_game(setup, bots, |_, _| {}).await.expect("the referee plays the game")
}

/// What a normal game of an interface shows besides its end by the rules and at least
/// one turn of the program.
#[derive(Clone, Copy, Debug, Default)]
pub struct Normal {
    /// The game ends with scores.
    pub scores: bool,
    /// The fewest moves the game has.
    pub min_moves: usize,
    /// Every turn of the program wrote a debug line.
    pub every_turn_logs: bool,
    /// The record notes what every turn, of either side, did.
    pub every_turn_noted: bool,
}

/// Asserts that `record` is a game ended by the rules in which the program at
/// `program_side` played at least one turn, with what `normal` adds; returns the
/// program's turns.
pub fn assert_normal_game(record: &GameRecord, program_side: usize, normal: Normal) -> Vec<&TurnRecord> {
    assert_eq!(record.result.termination, Termination::Rules, "{:?}", record.result);
    if normal.scores {
        assert!(record.result.scores.is_some());
    }
    assert!(record.moves.len() >= normal.min_moves, "at least {} moves: {:?}", normal.min_moves, record.moves);
    let own: Vec<_> = record.turns.iter().filter(|t| t.side == program_side).collect();
    assert!(!own.is_empty());
    if normal.every_turn_logs {
        assert!(own.iter().all(|t| !t.stderr.is_empty()), "every call writes a debug line");
    }
    if normal.every_turn_noted {
        assert!(record.turns.iter().all(|t| t.note.is_some()), "the record notes what every order did");
    }
    own
}

/// Whether process `pid` runs: it is in /proc and neither a zombie (`Z`) nor dead (`X`).
pub fn is_running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit_once(')').and_then(|(_, rest)| rest.split_whitespace().next()).is_some_and(|state| state != "Z" && state != "X")
    })
}

/// How long a test lets the kernel take to end the processes of a finished game: far
/// above the milliseconds it takes, so that a loaded machine never fails a test.
pub const GONE: Duration = Duration::from_secs(30);

/// Whether every process in `pids` is gone (a zombie waiting for its parent counts as
/// gone) within `wait`, looking every 10 ms: a SIGKILL is sent at once, but the kernel
/// takes a moment to end a process. With `Duration::ZERO` it looks once.
pub async fn all_gone(pids: &[u32], wait: Duration) -> bool {
    let until = Instant::now() + wait;
    loop {
        if !pids.iter().any(|&pid| is_running(pid)) {
            return true;
        }
        if Instant::now() >= until {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Whether process `pid` is gone within `wait` (see [`all_gone`]).
pub async fn is_gone(pid: u32, wait: Duration) -> bool {
    all_gone(&[pid], wait).await
}

/// The Python and the C sample of `interface` each play a game in both seats against
/// the built-in random player, from `setup(seed)`, and each game is normal.
pub async fn samples_play_both_seats(interface: &str, setup: impl Fn(u64) -> GameSetup, normal: Normal) {
    let random = random();
    for (i, language) in ["python", "c"].into_iter().enumerate() {
        let bot = sample(interface, language);
        let first = play(&setup(10 + i as u64), [&bot, &random]).await;
        assert_normal_game(&first, 0, normal);
        let second = play(&setup(20 + i as u64), [&random, &bot]).await;
        assert_normal_game(&second, 1, normal);
    }
}

/// The Python and the C sample of `interface` report their names (`random-py`,
/// `random-c`) through the interface.
pub async fn samples_tell_their_names(interface: &str) {
    let dir = tempfile::tempdir().unwrap();
    for (language, name) in [("python", "random-py"), ("c", "random-c")] {
        let BotSpec::Program(bot) = sample(interface, language) else { unreachable!("samples are programs") };
        let identity = referee::drivers::describe(&bot, dir.path()).await.unwrap().unwrap();
        assert_eq!(identity.name, name);
    }
}
