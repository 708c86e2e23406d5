//! `arbiter tournament CONFIG --db FILE`: runs (or resumes) a tournament with a progress
//! bar, storing every finished game at once; the standings at the end. Ctrl-C, SIGTERM
//! and SIGHUP stop it alike (finished games stay stored; the same command resumes), and
//! a start removes the game folders that runs killed outright left behind. With
//! `--db URL` (PostgreSQL) it records the tournament there and works on it as one
//! worker among any others (`arbiter worker`).

use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::{Duration, Instant};

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
    shared: crate::shared_work::SharedArgs,
    #[command(flatten)]
    sandbox: super::sandboxing::TournamentSandboxArgs,
    /// Record the tournament for workers and play none of its games here: HTTP workers
    /// play it through `arbiter serve --db FILE|URL`, database workers (a URL) with
    /// `arbiter worker --db URL`.
    #[arg(long)]
    for_workers: bool,
    /// Write every stored game of the tournament to FILE as PGN (chess) when the run
    /// ends or stops (the file is written anew, so a resumed run repeats no game).
    #[arg(long, value_name = "FILE")]
    pgn: Option<PathBuf>,
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
    let jobs = crate::shared_work::jobs(args.jobs)?;
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().context("cannot start the async runtime")?;
    if args.for_workers {
        runtime.block_on(async {
            let store = store::Store::open_at(&args.db, 4).await?;
            arena::shared::create(&config, &text, &entrants, &store, &config_dir, args.shared.pause_while_creating.as_deref()).await?;
            store.close().await;
            anyhow::Ok(())
        })?;
        println!(
            "{}: recorded in {} for workers ({} entrants, {} stage(s)); serve it with `arbiter serve --db {}` and start `arbiter worker --server http://HOST:PORT --token TOKEN`",
            config.name,
            args.db,
            entrants.len(),
            config.stages.len(),
            args.db
        );
        return Ok(());
    }
    let db = match &args.db {
        Location::File(path) => path.clone(),
        Location::Postgres(_) => return run_shared(args, &config, &text, &entrants, &config_dir, jobs, &runtime),
    };
    if args.pgn.is_some() && !arena::pgn::writes_pgn(config.game.name()) {
        anyhow::bail!("--pgn: a {} game has no PGN (PGN is chess's record format)", config.game);
    }
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
        let stop = crate::shared_work::stop_signal().context("cannot catch the stop signals")?;
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
    if let Some(path) = &args.pgn {
        let written = runtime.block_on(write_pgn(&db, path, &config.name));
        match (&outcome, written) {
            (_, Ok(games)) => eprintln!("{games} game(s) written to {} as PGN", path.display()),
            (Ok(_), Err(err)) => return Err(err),
            (Err(_), Err(err)) => eprintln!("warning: {err:#}"),
        }
    }
    outcome?;
    println!();
    super::standings_cmd::print_all(&args.db, super::standings_cmd::Format::Text)
}

/// Writes every stored game of the tournament in `db` to `path` as PGN, in the order
/// they were stored, each game's key as its round; how many.
async fn write_pgn(db: &std::path::Path, path: &std::path::Path, event: &str) -> anyhow::Result<usize> {
    let store = store::Store::open_read_only(db).await?;
    let names: std::collections::BTreeMap<_, _> = store.entrants().await?.into_iter().map(|e| (e.id, e.name)).collect();
    let mut text = String::new();
    let games = store.games().await?;
    for game in &games {
        let Some(json) = store.game_record(&game.spec.key).await? else { continue };
        let record: referee::GameRecord = serde_json::from_str(&json).with_context(|| format!("the record of game {}", game.spec.key))?;
        let name = |side: usize| names.get(&game.spec.players[side]).map_or("?", String::as_str);
        let header = arena::pgn::Header { event, site: "Arbiter", round: game.spec.key.clone(), names: [name(0), name(1)] };
        text.push_str(
            &arena::pgn::game_pgn(&record, &header).map_err(anyhow::Error::msg).with_context(|| format!("game {}", game.spec.key))?,
        );
    }
    store.close().await;
    std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(games.len())
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
    if args.pgn.is_some() && !arena::pgn::writes_pgn(config.game.name()) {
        anyhow::bail!("--pgn: a {} game has no PGN (PGN is chess's record format)", config.game);
    }
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
        let store = store::Store::open_at(&args.db, crate::shared_work::connections(jobs)).await?;
        arena::shared::create(config, text, entrants, &store, config_dir, args.shared.pause_while_creating.as_deref()).await?;
        for line in &sandbox.degraded {
            eprintln!("warning: sandbox degraded: {line}");
        }
        crate::shared_work::work(crate::shared_work::Source::Db(&store), jobs, args.pin.pinned(), &sandbox, false, &args.shared).await?;
        store.close().await;
        anyhow::Ok(())
    })?;
    println!();
    super::standings_cmd::print_all(&args.db, super::standings_cmd::Format::Text)
}

/// The progress bar of the running stage (plain lines when stderr is not a terminal).
///
/// The rate and the time left are this run's own: games finished since the stage started
/// in this process, over the time since then (a resumed stage's earlier games are not
/// counted as if played in an instant). The bar appears once the stage has planned games
/// (no full bar for "0/0"), and lines printed while it shows (notes) are printed above it.
struct Progress {
    names: Vec<String>,
    bar: Option<ProgressBar>,
    terminal: bool,
    done: usize,
    total: usize,
    last_line: usize,
    /// The stage's leader as last worked out (`Event::GameFinished`).
    leader: String,
    /// When the stage started in this run, and the games finished before it.
    began: Instant,
    done_before: usize,
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
            began: Instant::now(),
            done_before: 0,
        }
    }

    fn on(&mut self, event: Event) {
        match event {
            Event::Waiting { holder } => {
                self.say(format!("waiting: {holder} is running this tournament; this run goes on when it ends"));
            }
            Event::StageStarted { stage, name, finished } => {
                self.finish_bar();
                self.done = finished;
                self.total = finished;
                self.last_line = finished;
                self.leader.clear();
                self.began = Instant::now();
                self.done_before = finished;
                let resumed = if finished > 0 { format!(" (resuming: {finished} games already played)") } else { String::new() };
                eprintln!("stage {} of {}: {name}{resumed}", stage + 1, self.names.len());
            }
            Event::Planned { total, .. } => {
                self.total = total;
                match &self.bar {
                    Some(bar) => bar.set_length(total as u64),
                    None if self.terminal && total > self.done => {
                        let bar = ProgressBar::new(total as u64);
                        bar.set_style(
                            ProgressStyle::with_template("  [{bar:30}] {pos}/{len} games, {msg}")
                                .expect("a valid template")
                                .progress_chars("=> "),
                        );
                        bar.set_position(self.done as u64);
                        bar.set_message(self.status());
                        bar.enable_steady_tick(Duration::from_millis(250));
                        self.bar = Some(bar);
                    }
                    None => {}
                }
            }
            Event::GameFinished { leader, .. } => {
                self.done += 1;
                if let Some(leader) = leader {
                    self.leader = leader;
                }
                match &self.bar {
                    Some(bar) => {
                        bar.set_position(self.done as u64);
                        bar.set_message(self.status());
                    }
                    None => {
                        // Without a terminal: a line every tenth of the stage.
                        let step = (self.total / 10).max(1);
                        if self.done >= self.last_line + step || self.done == self.total {
                            self.last_line = self.done;
                            eprintln!("  {}/{} games, {}", self.done, self.total, self.status());
                        }
                    }
                }
            }
            Event::Note { text, .. } => self.say(format!("  note: {text}")),
            // Its note follows.
            Event::EntrantFailed { .. } => {}
            Event::StageFinished { stage, .. } => {
                self.finish_bar();
                eprintln!("stage {} ({}) decided", stage + 1, self.names[stage]);
            }
        }
    }

    /// The rate of this run, the time left at that rate, and the leader.
    fn status(&self) -> String {
        let played = self.done.saturating_sub(self.done_before);
        let secs = self.began.elapsed().as_secs_f64();
        let leader = if self.leader.is_empty() { "-" } else { &self.leader };
        if played == 0 || secs <= 0.0 {
            return format!("leader: {leader}");
        }
        let rate = played as f64 / secs;
        let left = self.total.saturating_sub(self.done) as f64 / rate;
        format!("{} games/s, about {} left, leader: {leader}", rate_text(rate), duration_text(left))
    }

    /// A line printed above the bar (or alone when there is none), never into it.
    fn say(&self, line: String) {
        match &self.bar {
            Some(bar) => bar.suspend(|| eprintln!("{line}")),
            None => eprintln!("{line}"),
        }
    }

    fn finish_bar(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}

/// A rate for people: two significant figures at most ("0.52", "8.1", "37").
fn rate_text(rate: f64) -> String {
    match rate {
        r if r < 1.0 => format!("{r:.2}"),
        r if r < 10.0 => format!("{r:.1}"),
        r => format!("{r:.0}"),
    }
}

/// A time left for people: "12 s", "3 min", "2 h 5 min".
fn duration_text(secs: f64) -> String {
    let secs = secs.round() as u64;
    match secs {
        0 => "under a second".to_string(),
        s if s < 60 => format!("{s} s"),
        s if s < 3600 => format!("{} min", s.div_ceil(60)),
        s => format!("{} h {} min", s / 3600, (s % 3600) / 60),
    }
}
