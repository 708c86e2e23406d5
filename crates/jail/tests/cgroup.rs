//! Bot cgroups against real processes: the memory cap ends in an OOM kill, a fork bomb
//! stays under the process cap, a daemon that left the session is still killed, CPU
//! time is measured, directories are removed, and two runs do not see each other.
//!
//! These need writable cgroups, which CI (root, on this machine kind) has.

use std::io::{Read, Write};
use std::os::unix::process::ExitStatusExt;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use jail::cgroup::{self, BotCgroup};

mod common;
use common::eventually;

const MB: u64 = 1024 * 1024;

/// Fails with a clear message where the machine offers no usable cgroups.
fn require_cgroups() {
    let support = cgroup::detect();
    assert!(
        support.memory.is_some() && support.pids.is_some() && support.kill.is_some() && support.cpu.is_some(),
        "cgroups are missing: detect() found {support:?}; these tests need writable cgroups \
         (memory and pids limits, cgroup.kill or the v1 freezer, cpu.stat or cpuacct), which \
         this machine kind has when run as root with /sys/fs/cgroup mounted read-write"
    );
}

/// Starts `script` under `/bin/sh`, held until it is in `cg` so that nothing it starts
/// escapes.
fn start_in(cg: &BotCgroup, script: &str) -> Child {
    let mut child = Command::new("/bin/sh")
        .arg("-c")
        .arg(format!("read _ && {script}"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start /bin/sh");
    cg.add(child.id() as i32).expect("add the process to its cgroup");
    let mut stdin = child.stdin.take().expect("stdin is piped");
    stdin.write_all(b"go\n").expect("release the process");
    child
}

/// Whether `pid` is a live (not zombie) process.
fn is_alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !matches!(stat[stat.rfind(')').unwrap() + 2..].chars().next(), Some('Z' | 'X')),
        Err(_) => false,
    }
}

/// The session of `pid`, from `/proc/<pid>/stat`.
fn session(pid: i32) -> i32 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    stat[stat.rfind(')').unwrap() + 2..].split(' ').nth(3).unwrap().parse().unwrap()
}

/// Holds a string of 256 MB in the shell's memory.
const HOG: &str = "x=$(head -c 268435456 /dev/zero | tr '\\0' a); echo survived ${#x}";

#[test]
fn memory_cap_ends_in_an_oom_kill() {
    require_cgroups();
    let cg = BotCgroup::create(Some(64 * MB), Some(64)).unwrap();
    // Read before as after (the file is kept open between reads): no OOM yet.
    assert!(!cg.hit_memory_limit());
    let mut hog = start_in(&cg, HOG);
    let status = hog.wait().unwrap();
    let mut out = String::new();
    hog.stdout.take().unwrap().read_to_string(&mut out).unwrap();
    assert_eq!(status.signal(), Some(9), "the hog must be OOM-killed, it ended with {status:?} and said {out:?}");
    assert!(cg.hit_memory_limit(), "the OOM kill must be reported");
    let peak = cg.memory_peak().expect("the peak is recorded");
    assert!(peak <= 64 * MB && peak > 32 * MB, "peak {peak} is not near the 64 MB cap");
    cg.kill();
    assert!(cg.pids().is_empty());
}

#[test]
fn fork_bomb_stays_under_the_process_cap() {
    require_cgroups();
    let cg = BotCgroup::create(Some(256 * MB), Some(32)).unwrap();
    let mut bomb = start_in(&cg, "b() { b | b & }; b; wait");
    let mut most = 0;
    let mut spawned = 0;
    let saturated = eventually(Duration::from_secs(10), || {
        most = most.max(cg.pids().len());
        // The rest of the machine can still start processes.
        assert!(Command::new("/bin/true").status().expect("the test can still start processes").success());
        spawned += 1;
        cg.hit_pids_limit()
    });
    assert!(saturated, "the bomb never reached the cap ({most} processes seen)");
    for _ in 0..20 {
        most = most.max(cg.pids().len());
    }
    assert!(most <= 32, "{most} processes in a cgroup capped at 32");
    assert!(spawned > 0);
    cg.kill();
    assert!(cg.pids().is_empty(), "kill left {:?}", cg.pids());
    // The bomb's first shell may have given up on a failed fork before the kill.
    bomb.wait().unwrap();
}

#[test]
fn kill_reaches_a_daemon_that_left_the_session() {
    require_cgroups();
    let cg = BotCgroup::create(Some(64 * MB), Some(32)).unwrap();
    let mut parent = start_in(&cg, "setsid sh -c 'sleep 1000 </dev/null >/dev/null 2>&1 & echo $!'; exit 0");
    let mut out = String::new();
    parent.stdout.take().unwrap().read_to_string(&mut out).unwrap();
    assert!(parent.wait().unwrap().success());
    let daemon: i32 = out.trim().parse().unwrap_or_else(|_| panic!("no daemon pid in {out:?}"));
    assert!(is_alive(daemon), "the daemon outlives its parent");
    assert_ne!(session(daemon), session(std::process::id() as i32), "the daemon is in a session of its own");
    assert_eq!(cg.pids(), vec![daemon]);
    cg.kill();
    assert!(cg.pids().is_empty());
    assert!(eventually(Duration::from_secs(30), || !is_alive(daemon)), "the daemon survived kill()");
}

#[test]
fn cpu_time_grows_while_spinning() {
    require_cgroups();
    let cg = BotCgroup::create(None, None).unwrap();
    let mut spinner = start_in(&cg, "while :; do :; done");
    let mut first = Duration::ZERO;
    assert!(eventually(Duration::from_secs(10), || {
        first = cg.cpu_time().expect("cpu time is measured");
        first >= Duration::from_millis(50)
    }));
    assert!(eventually(Duration::from_secs(10), || cg.cpu_time().unwrap() >= first + Duration::from_millis(100)));
    cg.kill();
    assert_eq!(spinner.wait().unwrap().signal(), Some(9));
    // The time of processes gone stays counted.
    assert!(cg.cpu_time().unwrap() >= first + Duration::from_millis(100));
}

#[test]
fn drop_kills_and_removes_the_directories() {
    require_cgroups();
    let cg = BotCgroup::create(Some(64 * MB), Some(32)).unwrap();
    let mut sleeper = start_in(&cg, "exec sleep 1000");
    let dirs = cg.dirs().to_vec();
    assert!(!dirs.is_empty() && dirs.iter().all(|d| d.is_dir()));
    let stem = |d: &std::path::Path| d.file_name().unwrap().to_owned();
    assert!(dirs.iter().all(|d| stem(d) == stem(&dirs[0]) && d.parent().unwrap().ends_with(cgroup::FOLDER)));
    assert!(eventually(Duration::from_secs(30), || cg.pids() == vec![sleeper.id() as i32]));
    drop(cg);
    assert_eq!(sleeper.wait().unwrap().signal(), Some(9));
    for dir in &dirs {
        assert!(!dir.exists(), "{} is left behind", dir.display());
    }
}

#[test]
fn two_runs_do_not_interfere() {
    require_cgroups();
    let a = BotCgroup::create(Some(64 * MB), Some(32)).unwrap();
    let b = BotCgroup::create(Some(64 * MB), Some(32)).unwrap();
    assert!(a.dirs().iter().all(|d| !b.dirs().contains(d)));
    let mut sleeper = start_in(&b, "exec sleep 1000");
    let mut hog = start_in(&a, HOG);
    assert_eq!(hog.wait().unwrap().signal(), Some(9));
    assert!(a.hit_memory_limit());
    assert!(!b.hit_memory_limit());
    a.kill();
    drop(a);
    assert!(is_alive(sleeper.id() as i32), "killing one run killed the other");
    assert_eq!(b.pids(), vec![sleeper.id() as i32]);
    b.kill();
    assert_eq!(sleeper.wait().unwrap().signal(), Some(9));
}

#[test]
fn create_add_drop_is_cheap() {
    require_cgroups();
    const RUNS: usize = 30;
    let (mut setup, mut teardown) = (Vec::new(), Vec::new());
    for _ in 0..RUNS {
        let mut child = Command::new("/bin/sh").args(["-c", "read _; exit 0"]).stdin(Stdio::piped()).spawn().unwrap();
        let started = Instant::now();
        let cg = BotCgroup::create(Some(64 * MB), Some(32)).unwrap();
        cg.add(child.id() as i32).unwrap();
        setup.push(started.elapsed());
        drop(child.stdin.take());
        assert!(child.wait().unwrap().success());
        let started = Instant::now();
        drop(cg);
        teardown.push(started.elapsed());
    }
    setup.sort();
    teardown.sort();
    let median = |v: &[Duration]| v[v.len() / 2];
    eprintln!(
        "create + add: median {:?}, max {:?}; drop: median {:?}, max {:?} ({RUNS} runs)",
        median(&setup),
        setup[RUNS - 1],
        median(&teardown),
        teardown[RUNS - 1]
    );
    // A safety bound only (the figures are in docs/benchmarks.md): a loaded machine must
    // never fail this test, a cgroup that takes a second to set up would.
    assert!(median(&setup) + median(&teardown) < Duration::from_secs(1), "create + add {setup:?}, drop {teardown:?}");
}

/// A cgroup with a live member, held by a task that a runtime's shutdown drops (a game
/// cut off by Ctrl-C): the runtime refuses the blocking cleanup and drops it unrun. The
/// cleanup still happens, once; before the fix, each dropped cleanup dropped its cgroup,
/// which handed a new cleanup to the same runtime, until the stack overflowed.
#[test]
fn a_cgroup_dropped_as_its_runtime_shuts_down_is_still_cleaned_up() {
    require_cgroups();
    let cg = BotCgroup::create(None, Some(16)).unwrap();
    let dirs = cg.dirs().to_vec();
    let mut child = start_in(&cg, "sleep 600");
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).max_blocking_threads(1).enable_all().build().unwrap();
    // The one blocking thread is busy while the runtime shuts down.
    runtime.spawn_blocking(|| std::thread::sleep(Duration::from_millis(300)));
    // A game's task holds the cgroup; the shutdown drops the task, and with it the cgroup.
    runtime.spawn(async move {
        let _cg = cg;
        std::future::pending::<()>().await
    });
    runtime.shutdown_timeout(Duration::from_secs(10));
    assert!(child.wait().is_ok());
    assert!(eventually(Duration::from_secs(30), || dirs.iter().all(|dir| !dir.exists())), "the cgroup's directories are removed");
}
