//! `arbiter worker --db URL`: joins a tournament kept in a PostgreSQL database from any
//! machine and plays its games (leased one at a time, renewed while they run, stored
//! fenced by the lease) until it is decided, or with `--wait` for as long as it runs.
//! `arbiter tournament CONFIG --db URL` is the creation of the tournament plus a worker.

use anyhow::{Context, bail};
use store::Location;

use crate::shared_work::{SharedArgs, connections, jobs, work};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The tournament's PostgreSQL database (postgres://user@host:port/db).
    #[arg(long, value_name = "URL")]
    db: Location,
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
    if !args.db.is_postgres() {
        bail!(
            "--db {}: a worker needs a PostgreSQL URL (postgres://user@host:port/db); a SQLite file is run by `arbiter tournament`",
            args.db
        );
    }
    let jobs = jobs(args.jobs)?;
    args.cores.apply(jobs, false)?;
    let sandbox = super::sandboxing::decide(args.sandbox.to_policy(), true)?;
    super::sandboxing::warn(&sandbox);
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().context("cannot start the async runtime")?;
    runtime.block_on(async {
        let store = store::Store::open_at(&args.db, connections(jobs)).await?;
        work(&store, jobs, args.pin.pinned(), &sandbox, args.wait, &args.shared).await
    })
}
