//! The process runner against small shell bots: deadlines, the CPU cap, pausing, killing
//! the whole group, bounded reads of stdout and stderr.

use std::path::Path;
use std::time::{Duration, Instant};

use jail::{Command, Deadline, Failure, Limits, Process, TimeLimit};

fn sh(script: &str, dir: &Path, limits: Limits) -> Command {
    Command {
        program: "/bin/sh".into(),
        args: vec!["-c".into(), script.into()],
        cwd: dir.to_path_buf(),
        env: Vec::new(),
        limits,
        sandbox: None,
        per_move: false,
    }
}

/// Whether `pid` is a live (not zombie) process.
fn is_alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            let state = stat[stat.rfind(')').unwrap() + 2..].chars().next().unwrap();
            state != 'Z' && state != 'X'
        }
        Err(_) => false,
    }
}

/// Waits (bounded) until the processes named in `file` are gone.
async fn wait_gone(pids: &[i32]) -> bool {
    let until = Instant::now() + Duration::from_secs(30);
    while Instant::now() < until {
        if pids.iter().all(|&pid| !is_alive(pid)) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    false
}

/// The states (`R`, `S`, `T`, ...) of the live processes of group `pgid`, from /proc.
fn group_states(pgid: i32) -> Vec<char> {
    let mut states = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else { continue };
        // After the command name: state, ppid, pgrp, ...
        let Some((_, rest)) = stat.rsplit_once(')') else { continue };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        if fields.get(2).and_then(|g| g.parse::<i32>().ok()) == Some(pgid) {
            states.push(fields[0].chars().next().unwrap_or('?'));
        }
    }
    states
}

/// Waits (bounded) until every live process of group `pgid` is stopped.
async fn wait_stopped(pgid: i32) {
    let until = Instant::now() + Duration::from_secs(30);
    loop {
        let states = group_states(pgid);
        if !states.is_empty() && states.iter().all(|&s| matches!(s, 'T' | 't' | 'Z')) {
            return;
        }
        assert!(Instant::now() < until, "the group never stopped: {states:?}");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

#[tokio::test]
async fn reads_lines_and_waits() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = Process::spawn(&sh("read x; echo \"got $x\"; printf 'no end'", dir.path(), Limits::default())).unwrap();
    let deadline = Deadline::wall_in(Duration::from_secs(5));
    p.send(b"hello\n", deadline).await.unwrap();
    assert_eq!(p.read_line(deadline).await.unwrap(), "got hello");
    assert_eq!(p.read_line(deadline).await, Err(Failure::Eof));
    assert!(p.wait(deadline).await.unwrap().success());
}

#[tokio::test]
async fn bots_run_below_the_referees_priority() {
    let dir = tempfile::tempdir().unwrap();
    // The shell's nice value (field 19 of its stat), read after the referee's first line,
    // and that of a program it starts.
    let script = "read x; cut -d' ' -f19 /proc/$$/stat; sh -c 'cut -d\" \" -f19 /proc/$$/stat'";
    let mut p = Process::spawn(&sh(script, dir.path(), Limits::default())).unwrap();
    let deadline = Deadline::wall_in(Duration::from_secs(10));
    p.send(b"go\n", deadline).await.unwrap();
    let own = rustix::process::getpriority_process(None).unwrap();
    let expected = (own + jail::BOT_NICE).min(19).to_string();
    assert_eq!(p.read_line(deadline).await.unwrap(), expected);
    assert_eq!(p.read_line(deadline).await.unwrap(), expected);
}

#[tokio::test]
async fn a_silent_bot_times_out_on_the_wall_clock() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = Process::spawn(&sh("sleep 30", dir.path(), Limits::default())).unwrap();
    let began = Instant::now();
    assert_eq!(p.read_line(Deadline::wall_in(Duration::from_millis(200))).await, Err(Failure::Timeout(TimeLimit::Wall)));
    assert!(began.elapsed() < Duration::from_secs(5));
    p.kill().await;
}

/// Runs `work` as a referee whose only thread is held up (by the machine's host, or by
/// other work) from its first look until the bot, let go by the file `go`, has done what
/// `done` tells, and the deadline has passed; then lets it finish. `None` when the first
/// look already ended it (this test's own thread was kept from a CPU until past the
/// deadline: the round shows nothing).
async fn look_late<T>(work: impl std::future::Future<Output = T>, go: &Path, done: impl Fn() -> bool, deadline: Deadline) -> Option<T> {
    tokio::pin!(work);
    // One look before the bot is let go: the runtime now waits for the bot and the clock.
    if tokio::time::timeout(Duration::ZERO, &mut work).await.is_ok() {
        assert!(Instant::now() >= deadline.wall.unwrap(), "the bot was done before it was let go");
        return None;
    }
    std::fs::write(go, "").unwrap();
    let until = Instant::now() + Duration::from_secs(30);
    while !done() {
        assert!(Instant::now() < until, "the bot was not done in 30 s");
        std::thread::sleep(Duration::from_millis(5));
    }
    while Instant::now() < deadline.wall.unwrap() + Duration::from_millis(20) {
        std::thread::sleep(Duration::from_millis(5));
    }
    Some(work.await)
}

/// The bot answers in time while the referee looks late: when it looks, the deadline and
/// the answer are there at once, and the answer counts. Twenty times, since which of the
/// two the runtime hands over first is left to chance.
#[tokio::test(flavor = "current_thread")]
async fn an_answer_that_came_while_the_referee_was_late_is_taken() {
    let dir = tempfile::tempdir().unwrap();
    let mut shown = 0;
    for round in 0..20 {
        let (go, answered) = (dir.path().join(format!("go{round}")), dir.path().join(format!("answered{round}")));
        let script = format!("while [ ! -e {go:?} ]; do sleep 0.01; done; echo 'move 3'; : > {answered:?}; exec sleep 60");
        let mut p = Process::spawn(&sh(&script, dir.path(), Limits::default())).unwrap();
        let deadline = Deadline::wall_in(Duration::from_millis(100));
        let answer = look_late(p.read_line(deadline), &go, || answered.exists(), deadline).await;
        p.kill().await;
        let Some(answer) = answer else { continue };
        assert_eq!(answer, Ok("move 3".to_string()), "round {round}");
        shown += 1;
    }
    assert!(shown >= 10, "only {shown} rounds of 20 had the test's thread on time");
}

/// The same for a process per move, timed to its exit: one that answered and exited while
/// the referee looked late is taken as in time.
#[tokio::test(flavor = "current_thread")]
async fn an_exit_that_came_while_the_referee_was_late_is_taken() {
    let dir = tempfile::tempdir().unwrap();
    let mut shown = 0;
    for round in 0..20 {
        let go = dir.path().join(format!("go{round}"));
        let script = format!("while [ ! -e {go:?} ]; do sleep 0.01; done; echo 'move 3'");
        let mut p = Process::spawn(&sh(&script, dir.path(), Limits::default())).unwrap();
        let pid = p.id();
        let ended = || std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| stat.contains(") Z "));
        let deadline = Deadline::wall_in(Duration::from_millis(100));
        let Some(ran) = look_late(p.run_to_exit(deadline), &go, ended, deadline).await else { continue };
        let (status, output) = ran.unwrap_or_else(|failure| panic!("round {round}: {failure}"));
        assert!(status.success() && output == b"move 3\n", "round {round}: {status:?} {output:?}");
        shown += 1;
    }
    assert!(shown >= 10, "only {shown} rounds of 20 had the test's thread on time");
}

#[tokio::test]
async fn a_spinning_bot_runs_out_of_cpu_time() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = Process::spawn(&sh("while :; do :; done", dir.path(), Limits::default())).unwrap();
    let deadline = Deadline { wall: Some(Instant::now() + Duration::from_secs(20)), cpu: Some(Duration::from_millis(200)), credit: None };
    assert_eq!(p.read_line(deadline).await, Err(Failure::Timeout(TimeLimit::Cpu)));
    assert!(p.cpu_time() >= Duration::from_millis(200));
    p.kill().await;
}

#[tokio::test]
async fn cpu_time_counts_children_and_stops_while_paused() {
    let dir = tempfile::tempdir().unwrap();
    // Two spinning children: the group burns CPU on both cores.
    let mut p = Process::spawn(&sh("(while :; do :; done) & (while :; do :; done) & wait", dir.path(), Limits::default())).unwrap();
    let deadline = Deadline { wall: Some(Instant::now() + Duration::from_secs(20)), cpu: Some(Duration::from_millis(300)), credit: None };
    assert_eq!(p.read_line(deadline).await, Err(Failure::Timeout(TimeLimit::Cpu)));
    p.pause().await;
    // Once the stop has reached every member, no CPU time accrues.
    wait_stopped(p.id() as i32).await;
    let before = p.cpu_time();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let after = p.cpu_time();
    assert!(after - before < Duration::from_millis(30), "paused group used {:?}", after - before);
    assert_eq!(p.resume(), Ok(()), "a stopped group stayed stopped");
    let deadline =
        Deadline { wall: Some(Instant::now() + Duration::from_secs(20)), cpu: Some(after + Duration::from_millis(100)), credit: None };
    assert_eq!(p.read_line(deadline).await, Err(Failure::Timeout(TimeLimit::Cpu)));
    p.kill().await;
}

#[tokio::test]
async fn kill_takes_the_whole_group_with_it() {
    let dir = tempfile::tempdir().unwrap();
    let script = "sleep 1000 & echo $! > child.pid; (trap '' TERM; sleep 1000) & echo $! >> child.pid; echo ready; wait";
    let mut p = Process::spawn(&sh(script, dir.path(), Limits::default())).unwrap();
    assert_eq!(p.read_line(Deadline::wall_in(Duration::from_secs(5))).await.unwrap(), "ready");
    let pids: Vec<i32> = std::fs::read_to_string(dir.path().join("child.pid")).unwrap().lines().map(|l| l.parse().unwrap()).collect();
    assert!(pids.iter().all(|&pid| is_alive(pid)));
    p.kill().await;
    assert!(wait_gone(&pids).await, "children survived the kill");
}

#[tokio::test]
async fn dropping_a_process_kills_its_group() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = Process::spawn(&sh("sleep 1000 & echo $!; wait", dir.path(), Limits::default())).unwrap();
    let pid: i32 = p.read_line(Deadline::wall_in(Duration::from_secs(5))).await.unwrap().parse().unwrap();
    let leader = p.id();
    drop(p);
    assert!(wait_gone(&[pid, leader]).await, "drop left processes behind");
}

#[tokio::test]
async fn an_endless_line_is_cut_at_the_cap() {
    let dir = tempfile::tempdir().unwrap();
    let limits = Limits { line_cap: 4096, ..Limits::default() };
    // 1 GiB without a line end: the read must give up at the cap, not buffer it all.
    let mut p = Process::spawn(&sh("head -c 1073741824 /dev/zero", dir.path(), limits)).unwrap();
    let began = Instant::now();
    assert_eq!(p.read_line(Deadline::wall_in(Duration::from_secs(10))).await, Err(Failure::TooLong(4096)));
    assert!(began.elapsed() < Duration::from_secs(5));
    p.kill().await;
}

#[tokio::test]
async fn stderr_is_kept_up_to_exactly_the_cap() {
    let dir = tempfile::tempdir().unwrap();
    let limits = Limits { stderr_cap: 1000, ..Limits::default() };
    let mut p = Process::spawn(&sh("head -c 50000 /dev/zero | tr '\\0' 'e' >&2; echo done", dir.path(), limits)).unwrap();
    let deadline = Deadline::wall_in(Duration::from_secs(5));
    assert_eq!(p.read_line(deadline).await.unwrap(), "done");
    p.wait(deadline).await.unwrap();
    p.finish_stderr(Duration::from_secs(5)).await;
    let log = p.take_stderr().await;
    assert_eq!(log.text.len(), 1000);
    assert!(log.text.bytes().all(|b| b == b'e'));
    assert_eq!(log.dropped, 49_000);
    assert!(log.is_truncated());
    // The next take starts empty.
    assert_eq!(p.take_stderr().await, jail::Log::default());
}

#[tokio::test]
async fn the_memory_cap_stops_a_big_allocation() {
    let dir = tempfile::tempdir().unwrap();
    let limits = Limits { memory: Some(64 * 1024 * 1024), ..Limits::default() };
    let script =
        "import sys\ntry:\n    b = bytearray(256 * 1024 * 1024)\n    print('allocated')\nexcept MemoryError:\n    print('refused')\n";
    let cmd = Command {
        program: "python3".into(),
        args: vec!["-c".into(), script.into()],
        cwd: dir.path().to_path_buf(),
        env: Vec::new(),
        limits,
        sandbox: None,
        per_move: false,
    };
    let mut p = Process::spawn(&cmd).unwrap();
    let answer = p.read_line(Deadline::wall_in(Duration::from_secs(20))).await;
    // Either python reports the refusal or it cannot even start under the cap.
    assert_ne!(answer, Ok("allocated".to_string()));
    p.kill().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn stderr_written_before_an_answer_belongs_to_that_move() {
    let dir = tempfile::tempdir().unwrap();
    let script = "i=0; while read x; do i=$((i+1)); echo \"thinking about move $i\" >&2; echo \"move $i\"; done";
    let mut p = Process::spawn(&sh(script, dir.path(), Limits::default())).unwrap();
    let deadline = Deadline::wall_in(Duration::from_secs(20));
    for i in 1..=200 {
        p.send(b"go\n", deadline).await.unwrap();
        assert_eq!(p.read_line(deadline).await.unwrap(), format!("move {i}"));
        assert_eq!(p.take_stderr().await.text, format!("thinking about move {i}\n"));
    }
    p.kill().await;
}

/// Starts `sleep` as the leader of a new process group whose id is `pgid`, which must be
/// free: the kernel's next process id is set through `/proc/sys/kernel/ns_last_pid` (root
/// only), again if another program's start took that id first.
fn leader_with_id(pgid: i32) -> std::process::Child {
    use std::os::unix::process::CommandExt;
    for _ in 0..1000 {
        std::fs::write("/proc/sys/kernel/ns_last_pid", (pgid - 1).to_string()).expect("set the next process id (needs root)");
        let mut child = std::process::Command::new("sleep").arg("1000").process_group(0).spawn().unwrap();
        if child.id() as i32 == pgid {
            return child;
        }
        let _ = child.kill();
        let _ = child.wait();
    }
    panic!("process id {pgid} could not be given to a new program");
}

#[tokio::test]
async fn a_group_is_killed_when_its_leader_is_reaped() {
    let dir = tempfile::tempdir().unwrap();
    // The leader leaves a child in its group and ends.
    let mut p = Process::spawn(&sh("sleep 1000 & echo $!; exit 0", dir.path(), Limits::default())).unwrap();
    let deadline = Deadline::wall_in(Duration::from_secs(5));
    let straggler: i32 = p.read_line(deadline).await.unwrap().parse().unwrap();
    assert!(p.wait(deadline).await.unwrap().success());
    // Reaping the leader killed what was left of its group, before the process is dropped.
    assert!(wait_gone(&[straggler]).await, "the leader's child outlived its reaping");
    drop(p);
}

#[tokio::test]
async fn a_reaped_leaders_id_is_never_signalled_again() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = Process::spawn(&sh("exit 0", dir.path(), Limits::default())).unwrap();
    let pgid = p.id();
    assert!(p.wait(Deadline::wall_in(Duration::from_secs(5))).await.unwrap().success());
    // The leader was alone in its group and is reaped: its id may be given to another
    // program's group. Signals for this process (pausing it, resuming it, killing it,
    // dropping it) must not reach that group.
    let mut other = leader_with_id(pgid);
    p.pause().await;
    let _ = p.resume();
    p.pause().await;
    p.kill().await;
    drop(p);
    tokio::time::sleep(Duration::from_millis(200)).await;
    let state = group_states(pgid);
    let _ = other.kill();
    let _ = other.wait();
    assert_eq!(state, vec!['S'], "another program's group with the reaped leader's id was signalled");
}

/// The CPUs a process may run on, as the kernel lists them in `/proc`.
fn cpus_allowed(pid: i32) -> String {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status.lines().find_map(|line| line.strip_prefix("Cpus_allowed_list:")).unwrap().trim().to_string()
}

#[test]
fn a_process_started_on_a_pinned_thread_inherits_its_cpu_and_moves_to_another() {
    let cpus = jail::affinity::allowed_cpus();
    if cpus.len() < 2 {
        eprintln!("skipped: one CPU only");
        return;
    }
    let (first, last) = (cpus[0], cpus[cpus.len() - 1]);
    let dir = tempfile::tempdir().unwrap();
    // A lane of its own: a thread pinned to the first CPU starts the process.
    let cmd = sh("exec sleep 30", dir.path(), Limits::default());
    let process = std::thread::spawn(move || {
        jail::affinity::pin_this_thread(first).unwrap();
        assert_eq!(jail::affinity::lane_cpu(), Some(first));
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let process = runtime.block_on(async { Process::spawn(&cmd).unwrap() });
        (process, runtime)
    })
    .join()
    .unwrap();
    let pid = process.0.id();
    assert_eq!(cpus_allowed(pid), first.to_string(), "the bot inherits its lane's CPU");
    assert_eq!(process.0.lane(), Some(first), "the process knows the lane that watches it");
    process.0.move_to_cpu(last);
    assert_eq!(cpus_allowed(pid), last.to_string(), "a kept bot moved to the lane that takes it");
    assert_eq!(jail::affinity::lane_cpu(), None, "this thread is no lane");
}
