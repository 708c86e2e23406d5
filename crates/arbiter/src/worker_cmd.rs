//! `arbiter worker`: plays a tournament's games from any machine until it is decided,
//! or with `--wait` for as long as it runs. With `--db URL` it joins a tournament kept in
//! a PostgreSQL database (it holds the database's credentials); with `--server URL
//! --token TOKEN` it holds nothing but its own token and leases the games from `arbiter
//! serve` over HTTP (`remote_worker`). Either way its games are leased one at a time,
//! renewed while they run and stored fenced by the lease. `arbiter tournament CONFIG
//! --db URL` is the creation of the tournament plus a database worker.

use anyhow::{Context, bail};
use store::Location;

use crate::shared_work::{SharedArgs, Source, connections, jobs, work};

#[derive(clap::Args, Debug)]
#[command(group = clap::ArgGroup::new("from").required(true).args(["db", "server"]))]
pub struct Args {
    /// The tournament's PostgreSQL database (postgres://user@host:port/db).
    #[arg(long, value_name = "URL")]
    db: Option<Location>,
    /// The `arbiter serve` to lease games from (http://HOST:PORT), instead of a database.
    #[arg(long, value_name = "URL", requires = "token")]
    server: Option<String>,
    /// This worker's token (`arbiter workers add NAME` makes one), with --server; or in
    /// the environment variable ARBITER_WORKER_TOKEN, which other users of the machine
    /// cannot read in its process list as they can its arguments.
    #[arg(long, value_name = "TOKEN", env = "ARBITER_WORKER_TOKEN", hide_env_values = true)]
    token: Option<String>,
    /// With --server: the tournament to play (its id), when the server offers several.
    #[arg(long, value_name = "ID", requires = "server")]
    tournament: Option<String>,
    /// Benchmarks only (`scripts/bench-fleet`): append each claim's time (µs) to FILE.
    #[arg(long, value_name = "FILE", hide = true, requires = "server")]
    timings: Option<std::path::PathBuf>,
    /// Games played at the same time (default: the number of cores).
    #[arg(short = 'j', long)]
    jobs: Option<usize>,
    #[command(flatten)]
    cores: super::CoresArgs,
    #[command(flatten)]
    pin: super::PinArgs,
    /// Keep polling for work when the tournament is decided or not created yet,
    /// instead of ending.
    #[arg(long)]
    wait: bool,
    #[command(flatten)]
    shared: SharedArgs,
    #[command(flatten)]
    sandbox: super::sandboxing::TournamentSandboxArgs,
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    let server = match (&args.server, &args.token) {
        (Some(url), Some(token)) => Some(crate::remote_worker::Server::new(url, token)?),
        _ => None,
    };
    if let Some(db) = &args.db
        && !db.is_postgres()
    {
        bail!(
            "--db {db}: a worker needs a PostgreSQL URL (postgres://user@host:port/db); a SQLite file is run by `arbiter tournament`, or served to HTTP workers by `arbiter serve --db FILE`"
        );
    }
    let jobs = jobs(args.jobs)?;
    args.cores.apply(jobs, false)?;
    let sandbox = super::sandboxing::decide(args.sandbox.to_policy(), true)?;
    super::sandboxing::warn(&sandbox);
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().context("cannot start the async runtime")?;
    runtime.block_on(async {
        match (&server, &args.db) {
            (Some(server), _) => {
                let source = Source::Server { server, tournament: args.tournament.as_deref(), timings: args.timings.as_deref() };
                work(source, jobs, args.pin.pinned(), &sandbox, args.wait, &args.shared).await
            }
            (None, Some(db)) => {
                let store = store::Store::open_at(db, connections(jobs)).await?;
                work(Source::Db(&store), jobs, args.pin.pinned(), &sandbox, args.wait, &args.shared).await
            }
            (None, None) => bail!("give --db URL or --server URL --token TOKEN"),
        }
    })
}
