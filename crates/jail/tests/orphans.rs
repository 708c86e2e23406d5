//! Plain (unsandboxed) bots die with their referee: a referee killed outright (SIGKILL)
//! leaves no bot behind, even one whose group is stopped just after the referee's death
//! (the race that left a stopped bot of a killed worker behind after a CI run); and a bot
//! started from a thread that then ends lives on (the parent-death signal follows the
//! starting thread, so the starts must come from one that lasts).
//!
//! The keeper (`arbiter-sandbox --keeper`) is what does it when the helper program is
//! built, as in the workspace's test run; the parent-death signal is the fallback.
//!
//! A "referee" here is this test binary run again (the ignored test `fake_referee`), so
//! that it can be killed like a real one.

use std::io::{BufRead, BufReader};
use std::process::{Child, Stdio};
use std::time::Duration;

use rustix::process::{Pid, Signal};

mod common;
use common::{KillOnDrop, eventually, state};

/// Set when this binary is run as the fake referee.
const ROLE: &str = "JAIL_TEST_ORPHANS_ROLE";

/// A plain bot that sleeps for ten minutes.
fn sleeper() -> jail::Command {
    jail::Command {
        program: "sleep".into(),
        args: vec!["600".into()],
        cwd: std::env::temp_dir(),
        env: Vec::new(),
        limits: jail::Limits::default(),
        sandbox: None,
        per_move: false,
    }
}

/// The role of a fake referee (does nothing in a normal test run): starts a plain bot as
/// the arbiter binary does (a multi-threaded runtime), names it, and waits to be killed.
#[test]
#[ignore = "run by the other tests as a referee of its own"]
fn fake_referee() {
    if std::env::var(ROLE).is_err() {
        return;
    }
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let bot = runtime.block_on(async { jail::Process::spawn(&sleeper()).expect("start the bot") });
    // On a line of its own: the test harness's "test fake_referee ... " has none.
    println!("\nbot {}", bot.id());
    std::thread::sleep(Duration::from_secs(600));
    drop(bot);
}

#[test]
fn a_killed_referees_plain_bot_dies_even_when_stopped_after_the_referee() {
    let mut referee: Child = std::process::Command::new(std::env::current_exe().expect("the test binary"))
        .args(["--exact", "fake_referee", "--ignored", "--nocapture", "--test-threads=1"])
        .env(ROLE, "plain")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start the fake referee");
    let referee_guard = KillOnDrop(referee.id() as i32);
    let line = BufReader::new(referee.stdout.take().unwrap())
        .lines()
        .map_while(Result::ok)
        .find(|l| l.starts_with("bot "))
        .expect("the fake referee names its bot");
    let bot: i32 = line["bot ".len()..].parse().unwrap();
    let bot_guard = KillOnDrop(bot);
    assert!(eventually(Duration::from_secs(10), || state(bot) == Some('S')), "the bot is not asleep: {:?}", state(bot));
    // The referee keeps its plain bots through a keeper of its own (`arbiter-sandbox
    // --keeper`, built with the workspace), not the parent-death signal of the fallback.
    assert!(keeper_of(referee.id() as i32).is_some(), "the fake referee started no keeper");

    referee.kill().unwrap();
    referee.wait().unwrap();
    drop(referee_guard);
    // The race: the stop of the bot's group lands after the referee's death. Without the
    // parent-death signal the bot stays stopped for good; with it the bot is already dying.
    let _ = rustix::process::kill_process_group(Pid::from_raw(bot).unwrap(), Signal::STOP);
    assert!(eventually(Duration::from_secs(10), || state(bot).is_none()), "the dead referee's bot is still there: {:?}", state(bot));
    std::mem::forget(bot_guard);
}

/// The keeper process (`arbiter-sandbox --keeper`) whose parent is `referee`.
fn keeper_of(referee: i32) -> Option<i32> {
    std::fs::read_dir("/proc").ok()?.flatten().filter_map(|entry| entry.file_name().to_str()?.parse::<i32>().ok()).find(|&pid| {
        let parent = std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|stat| stat.rsplit_once(") ").and_then(|(_, rest)| rest.split(' ').nth(1)?.parse::<i32>().ok()));
        let command = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        parent == Some(referee) && String::from_utf8_lossy(&command).contains("--keeper")
    })
}

#[test]
fn a_plain_bot_outlives_the_thread_that_started_it() {
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let handle = runtime.handle().clone();
    let mut bot = std::thread::spawn(move || {
        let _entered = handle.enter();
        jail::Process::spawn(&sleeper()).expect("start the bot")
    })
    .join()
    .expect("the starting thread");
    let pid = bot.id();
    // The parent-death signal is sent when the starting thread ends; give it time to land.
    std::thread::sleep(Duration::from_millis(200));
    assert!(state(pid).is_some(), "the bot died with the thread that started it");
    runtime.block_on(bot.kill());
    assert!(eventually(Duration::from_secs(10), || state(pid).is_none()));
}

#[test]
fn a_plain_start_outside_a_runtime_is_an_error_and_later_starts_still_work() {
    let err = jail::Process::spawn(&sleeper()).err().expect("no runtime, no start");
    assert!(err.to_string().contains("Tokio runtime"), "{err}");
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let mut bot = runtime.block_on(async { jail::Process::spawn(&sleeper()).expect("start the bot") });
    assert!(eventually(Duration::from_secs(10), || state(bot.id()) == Some('S')));
    runtime.block_on(bot.kill());
}
