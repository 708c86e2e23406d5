//! Cgroups left by a dead referee: a referee killed (SIGKILL) just as it stopped its bot
//! leaves the bot stopped in its cgroup (the lifeline cannot reach a stopped helper); the
//! next referee to start kills it and removes the cgroup, and leaves alone the cgroups of
//! a referee that still lives, whether its process id is seen from here or only its lock.
//!
//! A "referee" here is this test binary run again (the ignored test `fake_referee`), so
//! that it can be killed like a real one. These need writable cgroups, which CI (root, on
//! this machine kind) has.

use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use jail::cgroup::{self, BotCgroup};
use rustix::process::{Pid, Signal};

mod common;
use common::{KillOnDrop, eventually, state};

/// What the fake referee does, when this binary is run as one: `bot` (start a bot in a
/// cgroup, print it, wait to be killed) or `start` (start up, as a referee does, and exit).
const ROLE: &str = "JAIL_TEST_REFEREE_ROLE";

/// The tests one at a time: one's referee start sweeps what the other has made.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn require_cgroups() {
    let support = cgroup::detect();
    assert!(
        support.kill.is_some() && support.pids.is_some(),
        "cgroups are missing: detect() found {support:?}; these tests need writable cgroups \
         (cgroup.kill or the v1 freezer, pids), which this machine kind has as root"
    );
}

/// Runs this binary as a fake referee in `role`.
fn referee(role: &str) -> Child {
    Command::new(std::env::current_exe().expect("the test binary"))
        .args(["--exact", "fake_referee", "--ignored", "--nocapture", "--test-threads=1"])
        .env(ROLE, role)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start the fake referee")
}

/// The role of a fake referee (does nothing in a normal test run).
#[test]
#[ignore = "run by the other tests as a referee of its own"]
#[expect(clippy::zombie_processes, reason = "the fake referee is killed with its bot running, as a real one is")]
fn fake_referee() {
    match std::env::var(ROLE).as_deref() {
        Ok("bot") => {
            let cg = BotCgroup::create(Some(64 << 20), Some(16)).expect("a bot cgroup");
            // In a process group of its own, as a referee starts a bot.
            let bot = sleeper().spawn().expect("start sleep");
            cg.add(bot.id() as i32).expect("into its cgroup");
            let dirs: Vec<String> = cg.dirs().iter().map(|d| d.display().to_string()).collect();
            // On a line of its own: the test harness's "test fake_referee ... " has none.
            println!("\nbot {} {}", bot.id(), dirs.join(" "));
            std::thread::sleep(Duration::from_secs(600));
        }
        Ok("start") => {
            cgroup::detect();
        }
        _ => {}
    }
}

/// A bot that sleeps, in a process group of its own as a referee starts a bot, holding
/// none of the test's pipes (a stopped one left behind would keep them open).
fn sleeper() -> Command {
    let mut command = Command::new("sleep");
    command.arg("600").process_group(0).stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null());
    command
}

fn signal(pid: i32, signal: Signal) {
    rustix::process::kill_process(Pid::from_raw(pid).expect("a process id"), signal).expect("signal");
}

#[test]
fn a_dead_referees_stopped_bot_is_killed_when_the_next_referee_starts() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    require_cgroups();
    let mut dead = referee("bot");
    let dead_guard = KillOnDrop(dead.id() as i32);
    let mut line = String::new();
    BufReader::new(dead.stdout.take().unwrap())
        .lines()
        .map_while(Result::ok)
        .find(|l| l.starts_with("bot "))
        .map(|l| line = l)
        .expect("the fake referee names its bot");
    let mut words = line.split(' ').skip(1);
    let bot: i32 = words.next().unwrap().parse().unwrap();
    let bot_guard = KillOnDrop(bot);
    let dirs: Vec<PathBuf> = words.map(PathBuf::from).collect();
    assert!(!dirs.is_empty() && dirs.iter().all(|d| d.is_dir()), "{dirs:?}");

    // A referee starting while the first lives leaves its bot alone.
    assert!(referee("start").wait().unwrap().success());
    assert_eq!(state(bot), Some('S'), "a living referee's bot was touched");
    assert!(dirs.iter().all(|d| d.is_dir()));

    // The gap: the referee dies, and the stop of its bot's group completes after that
    // (the kernel's SIGHUP and SIGCONT go only to a group already stopped when orphaned).
    dead.kill().unwrap();
    dead.wait().unwrap();
    std::mem::forget(dead_guard);
    rustix::process::kill_process_group(Pid::from_raw(bot).unwrap(), Signal::STOP).expect("stop the bot's group");
    assert!(eventually(Duration::from_secs(10), || state(bot) == Some('T')), "the bot did not stop: {:?}", state(bot));
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(state(bot), Some('T'), "the stopped bot of a dead referee went on by itself");

    assert!(referee("start").wait().unwrap().success());
    assert!(eventually(Duration::from_secs(10), || state(bot).is_none()), "the dead referee's bot is still there: {:?}", state(bot));
    std::mem::forget(bot_guard);
    // The folders go once their members have left: waited for on a thread of the
    // sweeping referee's, which this fake one, exiting at once, may not outlive; then the
    // next start removes them (empty now, or once the dead bot has been reaped).
    let gone = eventually(Duration::from_secs(10), || {
        dirs.iter().all(|d| !d.exists()) || {
            assert!(referee("start").wait().unwrap().success());
            false
        }
    });
    assert!(gone, "left behind: {dirs:?}");
}

/// A cgroup named after a dead process, with a stopped member, as a dead referee leaves
/// one; `hold` takes its lock as a living referee of another PID namespace would.
fn leftover(base: &Path) -> (PathBuf, Child) {
    let mut gone = Command::new("true").spawn().unwrap();
    gone.wait().unwrap();
    let dir = base.join(format!("{}-0", gone.id()));
    std::fs::create_dir(&dir).unwrap();
    let member = sleeper().spawn().unwrap();
    std::fs::write(dir.join("cgroup.procs"), member.id().to_string()).unwrap();
    signal(member.id() as i32, Signal::STOP);
    assert!(eventually(Duration::from_secs(10), || state(member.id() as i32) == Some('T')), "the member did not stop");
    (dir, member)
}

#[test]
fn a_cgroup_whose_lock_is_held_is_left_alone() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    require_cgroups();
    // The base of the hierarchy whose members are read (the first one made).
    let probe = BotCgroup::create(None, Some(16)).unwrap();
    let base = probe.dirs()[0].parent().unwrap().to_path_buf();
    drop(probe);
    let (dir, mut member) = leftover(&base);
    let member_guard = KillOnDrop(member.id() as i32);
    let held = std::fs::File::open(&dir).unwrap();
    rustix::fs::flock(&held, rustix::fs::FlockOperation::LockExclusive).unwrap();

    cgroup::sweep(&base);
    assert!(dir.is_dir(), "a held cgroup was removed");
    assert_eq!(state(member.id() as i32), Some('T'), "a held cgroup's member was touched");

    drop(held);
    cgroup::sweep(&base);
    assert!(eventually(Duration::from_secs(10), || !dir.exists()), "{} is left behind", dir.display());
    assert!(member.wait().unwrap().code().is_none(), "killed by a signal");
    std::mem::forget(member_guard);
}
