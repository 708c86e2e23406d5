//! `arbiter tournament CONFIG --db FILE`: runs (or resumes) a tournament with a progress
//! bar, storing every finished game at once; the standings at the end. Ctrl-C, SIGTERM
//! and SIGHUP stop it alike (finished games stay stored; the same command resumes), and
//! a start removes the game folders that runs killed outright left behind. With
//! `--db URL` (PostgreSQL) it records the tournament there and works on it as one
//! worker among any others (`arbiter worker`).

use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use arena::{Event, RunOptions};
use indicatif::{ProgressBar, ProgressStyle};
use store::Location;
use tournament::TournamentConfig;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The tournament config (TOML), e.g. presets/gomoku-2004.toml.
    config: PathBuf,
    /// The results database: a SQLite file (created if missing), or a PostgreSQL URL
    /// (postgres://user@host:port/db, an existing database) that workers on other
    /// machines share. Running the same command again resumes the tournament stored
    /// there.
    #[arg(long, value_name = "FILE|URL")]
    db: Location,
    /// Games played at the same time (default: the number of cores).
    #[arg(short = 'j', long)]
    jobs: Option<usize>,
    #[command(flatten)]
    cores: super::CoresArgs,
    /// Entrants: every folder holding a bot.toml in DIR, instead of the config's.
    #[arg(long, value_name = "DIR")]
    bots: Option<PathBuf>,
    /// If another process is running this tournament, wait for it to end (or die) and
    /// go on from there, instead of refusing.
    #[arg(long)]
    wait: bool,
    #[command(flatten)]
    pin: super::PinArgs,
    #[command(flatten)]
    shared: super::worker_cmd::SharedArgs,
    #[command(flatten)]
    sandbox: super::sandboxing::TournamentSandboxArgs,
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(&args.config).with_context(|| format!("cannot read {}", args.config.display()))?;
    let file = args.config.display().to_string();
    let config = match &args.bots {
        Some(_) => TournamentConfig::parse_without_entrants(&text, &file)?,
        None => TournamentConfig::parse(&text, &file)?,
    };
    let config_dir = args.config.parent().map(PathBuf::from).unwrap_or_default();
    let config_dir = if config_dir.as_os_str().is_empty() { PathBuf::from(".") } else { config_dir };
    let entrants = arena::resolve_entrants(&config, &config_dir, args.bots.as_deref()).map_err(|err| anyhow::anyhow!("{file}: {err}"))?;
    let jobs = super::worker_cmd::jobs(args.jobs)?;
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().context("cannot start the async runtime")?;
    let db = match &args.db {
        Location::File(path) => path.clone(),
        Location::Postgres(_) => return run_shared(args, &config, &text, &entrants, &config_dir, jobs, &runtime),
    };
    let has_programs = entrants.iter().any(|e| matches!(e.spec, referee::BotSpec::Program(_)));
    let sandbox = super::sandboxing::decide(args.sandbox.to_policy(), has_programs)?;
    args.cores.apply(jobs, !has_programs)?;
    let options = RunOptions {
        jobs,
        config_dir,
        sandboxed: sandbox.sandboxed,
        pin: args.pin.pinned(),
        watch: None,
        wait_for_runner: args.wait,
        shared: None,
    };
    println!(
        "{}: {} entrants, {} stage(s), {jobs} game(s) at a time, results in {}",
        config.name,
        entrants.len(),
        config.stages.len(),
        db.display()
    );
    match referee::folders::remove_stale() {
        Ok(removed) if !removed.is_empty() => {
            eprintln!("removed {} game folder(s) left in {} by runs that died", removed.len(), std::env::temp_dir().display());
        }
        Ok(_) => {}
        Err(err) => eprintln!("warning: cannot look for game folders left by dead runs in {}: {err}", std::env::temp_dir().display()),
    }
    let outcome = runtime.block_on(async {
        // Before anything else, so that a signal from now on stops the run in order.
        let stop = stop_signal().context("cannot catch the stop signals")?;
        let store = store::Store::open(&db).await?;
        for line in &sandbox.degraded {
            eprintln!("warning: sandbox degraded: {line}");
            store.save_note(0, None, &format!("run with a degraded sandbox (--allow-degraded-sandbox): {line}")).await?;
        }
        let mut progress = Progress::new(&config);
        let run = arena::run_tournament(&config, &text, &entrants, &store, &options, |event| progress.on(event));
        let result = tokio::select! {
            result = run => result.map_err(|err| match err {
                arena::ArenaError::Busy(_) => anyhow::anyhow!("{err} (--wait waits for it)"),
                err @ arena::ArenaError::Referee { .. } => anyhow::anyhow!(
                    "{err}; every finished game is stored in {}: run the same command to resume once that is fixed",
                    db.display()
                ),
                err => anyhow::Error::from(err),
            }),
            name = stop => Err(anyhow::anyhow!("interrupted by {name}: every finished game is stored in {}; run the same command to resume", db.display())),
        };
        // Closed, its write-ahead log is folded into the file and removed.
        store.close().await;
        result
    });
    outcome?;
    println!();
    super::standings_cmd::print_all(&args.db, "text")
}

/// `tournament --db URL`: records the tournament in the shared database, then plays its
/// games as one worker; the standings at the end.
fn run_shared(
    args: &Args,
    config: &TournamentConfig,
    text: &str,
    entrants: &[arena::ResolvedEntrant],
    config_dir: &std::path::Path,
    jobs: usize,
    runtime: &tokio::runtime::Runtime,
) -> anyhow::Result<()> {
    let has_programs = entrants.iter().any(|e| matches!(e.spec, referee::BotSpec::Program(_)));
    let sandbox = super::sandboxing::decide(args.sandbox.to_policy(), has_programs)?;
    args.cores.apply(jobs, !has_programs)?;
    println!(
        "{}: {} entrants, {} stage(s), {jobs} game(s) at a time, results in {}",
        config.name,
        entrants.len(),
        config.stages.len(),
        args.db
    );
    runtime.block_on(async {
        let store = store::Store::open_at(&args.db, super::worker_cmd::connections(jobs)).await?;
        arena::shared::create(config, text, entrants, &store, config_dir, args.shared.pause_while_creating.as_deref()).await?;
        for line in &sandbox.degraded {
            eprintln!("warning: sandbox degraded: {line}");
        }
        super::worker_cmd::work(&store, jobs, args.pin.pinned(), &sandbox, false, &args.shared).await?;
        store.close().await;
        anyhow::Ok(())
    })?;
    println!();
    super::standings_cmd::print_all(&args.db, "text")
}

/// Waits for SIGINT (Ctrl-C), SIGTERM or SIGHUP, whichever comes first, and says which.
/// The handlers are in place when this returns.
pub(crate) fn stop_signal() -> std::io::Result<impl Future<Output = &'static str>> {
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

/// The progress bar of the running stage (plain lines when stderr is not a terminal).
struct Progress {
    names: Vec<String>,
    bar: Option<ProgressBar>,
    terminal: bool,
    done: usize,
    total: usize,
    last_line: usize,
    /// The stage's leader as last worked out (`Event::GameFinished`).
    leader: String,
}

impl Progress {
    fn new(config: &TournamentConfig) -> Progress {
        Progress {
            names: config.stages.iter().map(|s| s.name.clone()).collect(),
            bar: None,
            terminal: std::io::stderr().is_terminal(),
            done: 0,
            total: 0,
            last_line: 0,
            leader: String::new(),
        }
    }

    fn on(&mut self, event: Event) {
        match event {
            Event::Waiting { holder } => {
                eprintln!("waiting: {holder} is running this tournament; this run goes on when it ends");
            }
            Event::StageStarted { stage, name, finished } => {
                self.finish_bar();
                self.done = finished;
                self.total = finished;
                self.last_line = finished;
                self.leader.clear();
                let resumed = if finished > 0 { format!(" (resuming: {finished} games already played)") } else { String::new() };
                eprintln!("stage {} of {}: {name}{resumed}", stage + 1, self.names.len());
                if self.terminal {
                    let bar = ProgressBar::new(finished as u64);
                    bar.set_style(
                        ProgressStyle::with_template("  [{bar:30}] {pos}/{len} games, {per_sec}, ETA {eta}, leader: {msg}")
                            .expect("a valid template")
                            .progress_chars("=> "),
                    );
                    bar.set_position(finished as u64);
                    bar.enable_steady_tick(Duration::from_millis(250));
                    self.bar = Some(bar);
                }
            }
            Event::Planned { total, .. } => {
                self.total = total;
                if let Some(bar) = &self.bar {
                    bar.set_length(total as u64);
                }
            }
            Event::GameFinished { leader, .. } => {
                self.done += 1;
                if let Some(leader) = leader {
                    self.leader = leader;
                }
                let leader = &self.leader;
                match &self.bar {
                    Some(bar) => {
                        bar.set_position(self.done as u64);
                        bar.set_message(leader.clone());
                    }
                    None => {
                        // Without a terminal: a line every tenth of the stage.
                        let step = (self.total / 10).max(1);
                        if self.done >= self.last_line + step || self.done == self.total {
                            self.last_line = self.done;
                            eprintln!("  {}/{} games, leader: {leader}", self.done, self.total);
                        }
                    }
                }
            }
            Event::Note { text, .. } => match &self.bar {
                Some(bar) => bar.println(format!("  note: {text}")),
                None => eprintln!("  note: {text}"),
            },
            // Its note follows.
            Event::EntrantFailed { .. } => {}
            Event::StageFinished { stage, .. } => {
                self.finish_bar();
                eprintln!("stage {} ({}) decided", stage + 1, self.names[stage]);
            }
        }
    }

    fn finish_bar(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}
