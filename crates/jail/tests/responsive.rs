//! No blocking call on a runtime thread: a cgroup kill that takes long (made slow with
//! `cgroup::testing::slow_kills`, as a cgroup whose members are slow to leave) runs on a
//! blocking thread, and a current-thread runtime goes on serving its other tasks
//! meanwhile; so does dropping a cgroup whose members are still there, or an empty one
//! whose removal waits (made slow with `cgroup::testing::slow_removals`, as the kernel's
//! cgroup lock held by another cgroup's move makes it wait).
//!
//! These need writable cgroups, which CI (root, on this machine kind) has.

use std::io::Write;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use jail::cgroup::{self, BotCgroup};

/// The hook's delay: long beside the ticker's period, short for a test.
const SLOW: Duration = Duration::from_millis(1500);

/// The longest the ticker may miss its beat and still count the runtime as responsive: a
/// generous bound (a blocked runtime misses it by the whole delay).
const RESPONSIVE: Duration = Duration::from_millis(500);

fn start_in(cg: &BotCgroup) -> Child {
    let mut child = Command::new("/bin/sh")
        .arg("-c")
        .arg("read _ && sleep 600")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start /bin/sh");
    cg.add(child.id() as i32).expect("add the process to its cgroup");
    child.stdin.take().expect("stdin is piped").write_all(b"go\n").expect("release the process");
    child
}

/// `jail::ticker::with_ticker`, for work that gives nothing back.
fn with_ticker<F: std::future::Future<Output = ()>>(work: impl FnOnce() -> F) -> (Duration, Duration) {
    let ((), took, gap) = jail::ticker::with_ticker(work);
    (took, gap)
}

/// One test, so that the hook's delay (global to this binary) is set by one test at a time.
#[test]
fn slow_cgroup_kills_do_not_block_the_runtime() {
    let support = cgroup::detect();
    assert!(support.kill.is_some(), "no way to kill a cgroup here: {support:?}");
    a_slow_kill();
    a_drop_with_members();
    a_drop_of_an_empty_cgroup();
}

fn a_slow_kill() {
    cgroup::testing::slow_kills(SLOW);
    let cg = Arc::new(BotCgroup::create(None, Some(16)).expect("a cgroup"));
    let mut child = start_in(&cg);
    let (took, gap) = with_ticker(|| {
        let cg = Arc::clone(&cg);
        async move { cg.kill_async().await }
    });
    cgroup::testing::slow_kills(Duration::ZERO);
    assert!(took >= SLOW, "the kill was made slow ({took:?})");
    assert!(gap < RESPONSIVE, "the runtime stalled for {gap:?} during a {took:?} kill");
    assert!(child.wait().is_ok());
}

fn a_drop_with_members() {
    let cg = BotCgroup::create(None, Some(16)).expect("a cgroup");
    let dirs = cg.dirs().to_vec();
    let mut child = start_in(&cg);
    let gap = drop_while_slow(cg, cgroup::testing::slow_kills);
    assert!(gap < RESPONSIVE, "the runtime stalled for {gap:?} while a cgroup was dropped");
    assert!(child.wait().is_ok(), "the member was killed");
    assert_removed(&dirs);
}

fn a_drop_of_an_empty_cgroup() {
    let cg = BotCgroup::create(None, Some(16)).expect("a cgroup");
    let dirs = cg.dirs().to_vec();
    let gap = drop_while_slow(cg, cgroup::testing::slow_removals);
    assert!(gap < RESPONSIVE, "the runtime stalled for {gap:?} while an empty cgroup was dropped");
    assert_removed(&dirs);
}

/// Drops `cg` beside a ticking runtime with the hook `slow` set to [`SLOW`] meanwhile;
/// the longest the ticker missed its beat.
fn drop_while_slow(cg: BotCgroup, slow: fn(Duration)) -> Duration {
    slow(SLOW);
    let (_, gap) = with_ticker(|| async move {
        drop(cg);
        // The cleanup goes on on a blocking thread; the runtime keeps ticking.
        tokio::time::sleep(SLOW + Duration::from_millis(500)).await;
    });
    slow(Duration::ZERO);
    gap
}

/// Waits (up to a generous 30 s) for a dropped cgroup's directories to go.
fn assert_removed(dirs: &[std::path::PathBuf]) {
    let until = Instant::now() + Duration::from_secs(30);
    while dirs.iter().any(|dir| dir.exists()) && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(dirs.iter().all(|dir| !dir.exists()), "the cgroup's directories are removed");
}
