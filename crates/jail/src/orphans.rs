//! Plain (unsandboxed) processes die with the referee: each is started with a
//! parent-death signal (SIGKILL), from one thread that lives as long as the referee.
//!
//! A sandboxed bot has its helper's lifeline and the cgroup sweep (`cgroup::sweep`); a
//! plain one has neither. A referee killed outright (SIGKILL, the OOM killer) just as it
//! stops a plain bot's group between moves leaves the bot stopped for good: the kernel's
//! SIGHUP and SIGCONT reach an orphaned group only if it was stopped before it was
//! orphaned. `PR_SET_PDEATHSIG` makes the kernel kill the bot when its parent goes, stopped
//! or not. The signal follows the *thread* that started the child, not the process, so
//! every plain start is made from one thread of our own that never ends: a runtime's
//! blocking thread, which ends when idle, would take a kept bot with it mid-match.

use std::io;
use std::sync::OnceLock;
use std::sync::mpsc;

use rustix::process::Signal;

type Job = Box<dyn FnOnce() + Send>;

/// The starting thread's queue (`None` if the thread could not be started).
static STARTER: OnceLock<Option<mpsc::Sender<Job>>> = OnceLock::new();

/// Starts `cmd` (a plain process) so that it is killed when the referee ends, however it
/// ends. Blocks for the start itself, as [`tokio::process::Command::spawn`] does; like
/// it, needs the caller to be inside a Tokio runtime.
pub(crate) fn spawn(mut cmd: tokio::process::Command) -> io::Result<tokio::process::Child> {
    // The child is registered with the caller's runtime (which reaps it and drives its pipes).
    let runtime =
        tokio::runtime::Handle::try_current().map_err(|_| io::Error::other("a bot process can only be started inside a Tokio runtime"))?;
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
