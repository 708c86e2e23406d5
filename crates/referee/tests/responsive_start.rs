//! No blocking call on a runtime thread when a bot starts in the sandbox: making its
//! cgroups may wait on the kernel (another cgroup's move can hold the kernel's cgroup
//! lock for a grace period), made slow here with `jail::cgroup::testing::slow_creates`.
//! A whole sandboxed game on a current-thread runtime, whose one thread would stall for
//! every slow start if a start ran on it, keeps a ticker beside it on its beat.
//!
//! A binary of its own: the hook's delay is global to the process. Needs writable
//! cgroups, which CI (root, on this machine kind) has.

mod common;

use std::time::Duration;

use referee::{GameSetup, Termination};
use rules::{GameKind, Options};

/// The hook's delay: long beside the ticker's period, short for a test.
const SLOW: Duration = Duration::from_millis(1500);

/// The longest the ticker may miss its beat and still count the runtime as responsive: a
/// generous bound (a start on the runtime's thread stalls it for the whole delay).
const RESPONSIVE: Duration = Duration::from_millis(500);

#[test]
fn a_slow_sandboxed_start_does_not_stall_the_games_runtime() {
    let support = jail::cgroup::detect();
    assert!(support.memory.is_some() || support.pids.is_some(), "no cgroups to make here: {support:?}");
    let bot = common::sample("arbiter", "c");
    let start = GameKind::Connect4.new_position(&Options::new(), None).unwrap();
    let mut setup = GameSetup::new(start, Options::new(), 1);
    for limits in &mut setup.limits {
        limits.sandboxed = true;
    }
    let (record, took, gap) = jail::ticker::with_ticker(|| async {
        jail::cgroup::testing::slow_creates(SLOW);
        let record = common::play(&setup, [&bot, &bot]).await;
        jail::cgroup::testing::slow_creates(Duration::ZERO);
        record
    });
    assert_eq!(record.result.termination, Termination::Rules, "{:?}", record.result);
    assert!(took >= SLOW, "the starts were made slow (the game took {took:?})");
    assert!(gap < RESPONSIVE, "the runtime stalled for {gap:?} in a game of {took:?} whose starts were slow");
}
