//! What `arbiter worker` and `arbiter tournament --db URL` share: a worker's options,
//! its count of games at a time and of database connections, the worker's loop with its
//! lines on stderr, and the stop signals (which `tournament` on a file catches too).

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, bail};
use arena::shared::{WorkEvent, WorkOptions};

/// The options of a worker that `tournament --db URL` takes too.
#[derive(clap::Args, Debug, Clone)]
pub struct SharedArgs {
    /// How long a game's lease lasts, in seconds, without renewal (renewed every
    /// third of it): a worker that dies loses its game to another after this long.
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0)]
    lease: f64,
    /// Where the bots fetched from the database are unpacked and built (default:
    /// $XDG_CACHE_HOME/arbiter, else ~/.cache/arbiter).
    #[arg(long, value_name = "DIR")]
    cache: Option<PathBuf>,
    /// Tests only: stop before committing the first game stored, after writing FILE.
    #[arg(long, value_name = "FILE", hide = true)]
    stall_before_commit: Option<PathBuf>,
    /// Tests only: after the first game played, write its key to FILE and wait until
    /// FILE is removed before storing it.
    #[arg(long, value_name = "FILE", hide = true)]
    pause_before_store: Option<PathBuf>,
    /// Tests only (`tournament --db URL`): once the tournament is recorded, write FILE
    /// and wait until FILE is removed before storing its entrants and files.
    #[arg(long, value_name = "FILE", hide = true)]
    pub(crate) pause_while_creating: Option<PathBuf>,
}

/// Games at a time: `-j`, else the number of cores.
pub fn jobs(given: Option<usize>) -> anyhow::Result<usize> {
    let jobs = given.unwrap_or_else(referee::cores::available);
    if jobs == 0 {
        bail!("-j must be at least 1");
    }
    Ok(jobs)
}

/// The connections a worker of `jobs` lanes needs: one per lane (its claim, renewal or
/// store), one for the planner's lock, one spare.
pub fn connections(jobs: usize) -> u32 {
    u32::try_from(jobs).unwrap_or(u32::MAX).saturating_mul(2).saturating_add(2)
}

/// Where a worker's games come from: a database it holds the URL of, or `arbiter serve`
/// (a worker with a token).
pub enum Source<'a> {
    Db(&'a store::Store),
    /// `timings`: where each claim's time is appended (`scripts/bench-fleet`).
    Server {
        server: &'a crate::remote_worker::Server,
        tournament: Option<&'a str>,
        timings: Option<&'a std::path::Path>,
    },
}

/// Plays the tournament until it is decided (or for ever with `wait`), printing what
/// happens; stops on Ctrl-C, SIGTERM or SIGHUP (the games it held are played by another
/// worker once their leases expire).
pub async fn work(
    source: Source<'_>,
    jobs: usize,
    pin: bool,
    sandbox: &crate::sandboxing::Decision,
    wait: bool,
    shared: &SharedArgs,
) -> anyhow::Result<()> {
    if !(shared.lease.is_finite() && shared.lease >= 0.3) {
        bail!("--lease must be at least 0.3 seconds");
    }
    let level = match (sandbox.sandboxed, sandbox.degraded.is_empty()) {
        (false, _) => "none".to_string(),
        (true, true) => "full".to_string(),
        (true, false) => format!("degraded: {}", sandbox.degraded.join("; ")),
    };
    let cache = shared.cache.clone().unwrap_or_else(default_cache);
    let cache = std::path::absolute(&cache).with_context(|| format!("--cache {}", cache.display()))?;
    let options = WorkOptions {
        jobs,
        pin,
        sandboxed: sandbox.sandboxed,
        sandbox_level: level.clone(),
        lease: Duration::from_secs_f64(shared.lease),
        wait,
        cache,
        stall_before_commit: shared.stall_before_commit.clone(),
        pause_before_store: shared.pause_before_store.clone(),
    };
    let info = store::WorkerInfo::here(env!("CARGO_PKG_VERSION"), &level);
    let stop = stop_signal().context("cannot catch the stop signals")?;
    let mut stored = 0usize;
    let on_event = |event: WorkEvent| {
        if matches!(event, WorkEvent::Stored { .. }) {
            stored += 1;
        }
        report(&event);
    };
    let name = match &source {
        Source::Db(store) => store.location().name(),
        Source::Server { server, .. } => server.base().to_string(),
    };
    let run = async {
        match source {
            Source::Db(store) => arena::shared::work(store, &options, &info, on_event).await,
            Source::Server { server, tournament, timings } => {
                let mut on_event = on_event;
                let timings = match timings {
                    Some(path) => {
                        Some(tokio::sync::Mutex::new(tokio::fs::OpenOptions::new().create(true).append(true).open(path).await.map_err(
                            |err| arena::ArenaError::Remote { message: format!("--timings {}: {err}", path.display()), transient: false },
                        )?))
                    }
                    None => None,
                };
                let id = arena::shared::retrying(&mut on_event, || crate::remote_worker::choose(server, tournament)).await?;
                let (worker, t) =
                    arena::shared::retrying(&mut on_event, || crate::remote_worker::join(server, &id, &info, &options.cache)).await?;
                on_event(WorkEvent::Joined { worker: worker.clone() });
                let queue = crate::remote_worker::HttpQueue { server: server.clone(), tournament: id, worker: worker.clone(), timings };
                arena::shared::work_remote(queue, worker, t, &options, on_event).await
            }
        }
    };
    tokio::select! {
        result = run => result.map_err(anyhow::Error::from)?,
        signal = stop => bail!("interrupted by {signal}: the games this worker held are played by another once their leases expire"),
    }
    eprintln!("worker done: {stored} game(s) stored by this worker in {name}");
    Ok(())
}

/// `$XDG_CACHE_HOME/arbiter`, else `~/.cache/arbiter`, else a folder in the temporary
/// folder.
fn default_cache() -> PathBuf {
    let absolute = |var: &str| std::env::var_os(var).map(PathBuf::from).filter(|path| path.is_absolute());
    match (absolute("XDG_CACHE_HOME"), absolute("HOME")) {
        (Some(cache), _) => cache.join("arbiter"),
        (None, Some(home)) => home.join(".cache/arbiter"),
        (None, None) => std::env::temp_dir().join("arbiter-cache"),
    }
}

/// One line per event, on stderr.
fn report(event: &WorkEvent) {
    let printable = crate::terminal::printable;
    match event {
        WorkEvent::Joined { worker } => eprintln!("worker {} joined", printable(worker)),
        WorkEvent::Queued { stage, games } if *games > 0 => eprintln!("stage {}: {games} game(s) queued", stage + 1),
        WorkEvent::Queued { .. } => {}
        WorkEvent::Decided { stage, .. } => eprintln!("stage {} decided", stage + 1),
        WorkEvent::Claimed { key, attempt } if *attempt > 1 => {
            eprintln!("game {key}: attempt {attempt} (an earlier lease ended without a result)");
        }
        WorkEvent::Claimed { .. } => {}
        WorkEvent::Stored { outcome } => {
            let result = match outcome.winner {
                Some(side) => format!("side {side} won"),
                None => "draw".to_string(),
            };
            eprintln!("game {} stored: {result}", outcome.spec.key);
        }
        WorkEvent::Stale { key } => eprintln!("game {key} not stored: its lease had passed to another attempt"),
        WorkEvent::LeaseLost { key } => eprintln!("game {key} abandoned: its lease could not be renewed (another worker plays it)"),
        WorkEvent::Retrying { error } => eprintln!("unreachable, trying again: {}", printable(error)),
        WorkEvent::Note { text } => eprintln!("note: {}", printable(text)),
        WorkEvent::AwaitingCreation => eprintln!("the tournament is being created; waiting for it"),
        WorkEvent::Refused { key, reason } => eprintln!("game {key} not stored: the server refused its record: {}", printable(reason)),
    }
}

/// Waits for SIGINT (Ctrl-C), SIGTERM or SIGHUP, whichever comes first, and says which.
/// The handlers are in place when this returns.
pub fn stop_signal() -> std::io::Result<impl Future<Output = &'static str>> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut interrupt = signal(SignalKind::interrupt())?;
    let mut terminate = signal(SignalKind::terminate())?;
    let mut hangup = signal(SignalKind::hangup())?;
    Ok(async move {
        tokio::select! {
            _ = interrupt.recv() => "Ctrl-C",
            _ = terminate.recv() => "SIGTERM",
            _ = hangup.recv() => "SIGHUP",
        }
    })
}
