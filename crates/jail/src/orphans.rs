//! Plain (unsandboxed) processes die with the referee, however it ends.
//!
//! A sandboxed bot has its helper's lifeline and the cgroup sweep (`cgroup::sweep`); a
//! plain one has neither. A referee killed outright (SIGKILL, the OOM killer) just as it
//! stops a plain bot's group between moves leaves the bot stopped for good: the kernel's
//! SIGHUP and SIGCONT reach an orphaned group only if it was stopped before it was
//! orphaned.
//!
//! So the referee starts one keeper (`arbiter-sandbox --keeper`, `sandbox::keeper`) and
//! names each plain bot's process group to it once started, and again once its leader is
//! reaped ([`forget`]); when the referee ends, its end of the keeper's pipe closes and the
//! keeper kills the groups still named (SIGKILL ends a stopped process too). Plain starts
//! stay the cheap kind (`posix_spawn`).
//!
//! Without the helper program (a build of the library alone), each plain process is
//! started with a parent-death signal (SIGKILL) instead, which needs a fork of the
//! referee (about a millisecond of its CPU a start, and copy-on-write faults after; see
//! `docs/benchmarks.md`): the signal follows the *thread* that started the child, so
//! those starts are made from one thread of our own that never ends (a runtime's blocking
//! thread, which ends when idle, would take a kept bot with it mid-match).

use std::io::{self, Write};
use std::process::Stdio;
use std::sync::mpsc;
use std::sync::{Mutex, OnceLock};

use rustix::process::Signal;

type Job = Box<dyn FnOnce() + Send>;

/// The starting thread's queue (`None` if the thread could not be started).
static STARTER: OnceLock<Option<mpsc::Sender<Job>>> = OnceLock::new();

/// The keeper's stdin (`None` when it could not be started: no helper program).
static KEEPER: OnceLock<Option<Mutex<std::process::ChildStdin>>> = OnceLock::new();

/// The keeper, started at the first plain start.
fn keeper() -> Option<&'static Mutex<std::process::ChildStdin>> {
    KEEPER
        .get_or_init(|| {
            use std::os::unix::process::CommandExt;
            let helper = sandbox::helper_path()?;
            let mut keeper = std::process::Command::new(helper)
                .arg("--keeper")
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                // Not the referee's group: a Ctrl-C to the referee must not end it first.
                .process_group(0)
                .spawn()
                .ok()?;
            // A helper program too old to keep (it would exit at once) does not say so, and
            // one that is not ours may say nothing at all: the greeting is waited for
            // [`GREETING_WAIT`] at most.
            let greeting = read_greeting(keeper.stdout.take()?, GREETING_WAIT);
            if greeting.as_deref() != Some(sandbox::keeper::GREETING) {
                let _ = keeper.kill();
                let _ = keeper.wait();
                return None;
            }
            // It lives as long as the referee: nothing to wait for before the referee ends.
            keeper.stdin.take().map(Mutex::new)
        })
        .as_ref()
}

/// How long the keeper has to say its greeting line after its start (it says it at once;
/// only a program that is not the keeper would take longer).
const GREETING_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// The keeper's first line, read within `wait` and up to the greeting's length plus one
/// byte; `None` when it does not come in time or the pipe fails.
fn read_greeting(stdout: std::process::ChildStdout, wait: std::time::Duration) -> Option<String> {
    use rustix::event::{PollFd, PollFlags, Timespec, poll};
    let deadline = std::time::Instant::now() + wait;
    let limit = sandbox::keeper::GREETING.len() + 1;
    let mut got = Vec::new();
    let mut buf = [0u8; 64];
    while !got.ends_with(b"\n") && got.len() < limit {
        let left = deadline.checked_duration_since(std::time::Instant::now())?;
        let timeout = Timespec::try_from(left).ok()?;
        let mut fds = [PollFd::new(&stdout, PollFlags::IN)];
        match poll(&mut fds, Some(&timeout)) {
            Ok(0) => return None,
            Ok(_) => {}
            Err(rustix::io::Errno::INTR) => continue,
            Err(_) => return None,
        }
        let want = (limit - got.len()).min(buf.len());
        match rustix::io::read(&stdout, &mut buf[..want]) {
            Ok(0) => break,
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(rustix::io::Errno::INTR | rustix::io::Errno::AGAIN) => continue,
            Err(_) => return None,
        }
    }
    String::from_utf8(got).ok()
}

/// Tells the keeper one line.
fn tell(keeper: &Mutex<std::process::ChildStdin>, line: &str) -> io::Result<()> {
    let mut stdin = keeper.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    stdin.write_all(line.as_bytes())
}

/// Whether plain processes are kept by the keeper (else each has a parent-death signal).
pub(crate) fn kept() -> bool {
    keeper().is_some()
}

/// Tells the keeper that the group of `leader`, started by [`spawn`], is gone (its leader
/// reaped, or about to be killed and dropped): its process id may be used again.
pub(crate) fn forget(leader: i32) {
    if let Some(keeper) = keeper() {
        let _ = tell(keeper, &format!("-{leader}\n"));
    }
}

/// Starts `cmd` (a plain process, the leader of a process group of its own) so that its
/// group is killed when the referee ends, however it ends. Blocks for the start itself, as
/// [`tokio::process::Command::spawn`] does; like it, needs the caller to be inside a Tokio
/// runtime.
pub(crate) fn spawn(mut cmd: tokio::process::Command) -> io::Result<tokio::process::Child> {
    // The child is registered with the caller's runtime (which reaps it and drives its pipes).
    let runtime =
        tokio::runtime::Handle::try_current().map_err(|_| io::Error::other("a bot process can only be started inside a Tokio runtime"))?;
    if let Some(keeper) = keeper() {
        let mut child = cmd.spawn()?;
        let leader = child.id().expect("a just-started child has an id");
        if let Err(err) = tell(keeper, &format!("+{leader}\n")) {
            // A process nothing would kill with its referee is not started.
            let _ = child.start_kill();
            return Err(io::Error::other(format!("the keeper of plain processes is gone: {err}")));
        }
        return Ok(child);
    }
    let parent = rustix::process::getpid();
    // SAFETY: the closure runs in the child between fork and exec, where only
    // async-signal-safe calls are allowed: it makes two system calls and allocates nothing
    // (an `Errno` converts to an `io::Error` without allocating).
    unsafe {
        cmd.pre_exec(move || {
            rustix::process::set_parent_process_death_signal(Some(Signal::KILL))?;
            // The referee died between the fork and the line above: the signal was missed.
            if rustix::process::getppid() != Some(parent) {
                return Err(rustix::io::Errno::SRCH.into());
            }
            Ok(())
        });
    }
    let starter = STARTER
        .get_or_init(|| {
            let (jobs, queue) = mpsc::channel::<Job>();
            std::thread::Builder::new()
                .name("arbiter-starter".into())
                .spawn(move || {
                    for job in queue {
                        // A panic in one start must not end the thread (and every later
                        // start with it): the caller sees its reply dropped.
                        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
                    }
                })
                .ok()
                .map(|_| jobs)
        })
        .as_ref()
        .ok_or_else(|| io::Error::other("cannot start the thread that starts plain processes"))?;
    let (reply, answer) = mpsc::sync_channel(1);
    starter
        .send(Box::new(move || {
            let _runtime = runtime.enter();
            let _ = reply.send(cmd.spawn());
        }))
        .map_err(|_| io::Error::other("the thread that starts plain processes has ended"))?;
    answer.recv().map_err(|_| io::Error::other("starting a plain process failed in the thread that starts them"))?
}

#[cfg(test)]
mod tests {
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};

    use super::read_greeting;

    fn greeting_of(script: &str, wait: Duration) -> Option<String> {
        let mut child = Command::new("sh").args(["-c", script]).stdout(Stdio::piped()).spawn().expect("sh starts");
        let greeting = read_greeting(child.stdout.take().expect("piped"), wait);
        let _ = child.kill();
        let _ = child.wait();
        greeting
    }

    #[test]
    fn the_greeting_is_read_when_it_comes() {
        assert_eq!(greeting_of("printf 'keeping\\n'; exec sleep 5", Duration::from_secs(30)).as_deref(), Some("keeping\n"));
        // In pieces, as a pipe may give it.
        assert_eq!(
            greeting_of("printf 'kee'; sleep 0.2; printf 'ping\\n'; exec sleep 5", Duration::from_secs(30)).as_deref(),
            Some("keeping\n")
        );
    }

    #[test]
    fn a_program_that_says_nothing_is_not_waited_for_past_the_deadline() {
        let started = Instant::now();
        assert_eq!(greeting_of("exec sleep 30", Duration::from_millis(300)), None);
        // A generous bound: the point is that it does not wait for the 30 s.
        assert!(started.elapsed() < Duration::from_secs(20), "waited {:?}", started.elapsed());
    }

    #[test]
    fn a_program_that_talks_without_end_is_read_only_so_far() {
        let greeting = greeting_of("yes keepingkeepingkeeping", Duration::from_secs(30));
        assert_eq!(greeting.as_deref(), Some("keepingke"));
        // And one that ends without the greeting gives what it said.
        assert_eq!(greeting_of("printf 'old'", Duration::from_secs(30)).as_deref(), Some("old"));
    }
}
