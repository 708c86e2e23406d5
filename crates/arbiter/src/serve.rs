//! `arbiter serve`: the web arena — live tournaments, the game viewer, the testing
//! ground, human play and submissions — on one address, from this binary.

use std::path::PathBuf;

use anyhow::{Context, bail};

/// How long a stopping server waits for its games and tournaments to end.
const STOP_GRACE: std::time::Duration = std::time::Duration::from_secs(10);

#[derive(clap::Args, Debug)]
pub struct Args {
    /// A tournament database to show (repeatable), e.g. one `arbiter tournament` writes,
    /// or a PostgreSQL URL whose tournament workers play; it is shown live while other
    /// processes write it.
    #[arg(long, value_name = "FILE|URL")]
    db: Vec<PathBuf>,
    /// The server's own folder: tournaments it starts, finished test and human games,
    /// submissions.
    #[arg(long, value_name = "DIR", default_value = "arbiter-data")]
    data: PathBuf,
    /// The address to listen on.
    #[arg(long, default_value = "127.0.0.1:8080")]
    addr: String,
    /// A host name the server answers to (repeatable), e.g. the name people type to
    /// reach it; `localhost`, IP addresses and the `--addr` host are always accepted,
    /// any other `Host` is refused (against DNS rebinding).
    #[arg(long, value_name = "NAME")]
    public_host: Vec<String>,
    /// The organiser's token (default: a random one, printed at start).
    #[arg(long, value_name = "TOKEN")]
    admin_token: Option<String>,
    /// Games a tournament plays at the same time (default: the number of cores).
    #[arg(short = 'j', long)]
    jobs: Option<usize>,
    #[command(flatten)]
    cores: super::CoresArgs,
    /// The ladders' share of the -j workers, from 0 to 1 (at least one worker); while a
    /// ladder plays, tournaments get the rest.
    #[arg(long, value_name = "SHARE", default_value_t = 0.25)]
    ladder_share: f64,
    /// The folder of the ready tournament presets.
    #[arg(long, value_name = "DIR", default_value = "presets")]
    presets: PathBuf,
    #[command(flatten)]
    sandbox: super::sandboxing::TournamentSandboxArgs,
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    for db in &args.db {
        let url = db.to_str().is_some_and(|text| store::Location::parse(text).is_postgres());
        if !url && !db.is_file() {
            bail!("--db {}: no such file (make one with `arbiter tournament CONFIG --db FILE`)", db.display());
        }
    }
    let token = match &args.admin_token {
        Some(token) if token.trim().len() < 8 => bail!("--admin-token must be at least 8 characters"),
        Some(token) => token.trim().to_string(),
        None => web::auth::random_token(),
    };
    let jobs = args.jobs.unwrap_or_else(referee::cores::available);
    if jobs == 0 {
        bail!("-j must be at least 1");
    }
    if !(0.0..=1.0).contains(&args.ladder_share) {
        bail!("--ladder-share must be between 0 and 1, e.g. 0.25 for a quarter of the workers");
    }
    let sandbox = super::sandboxing::decide(args.sandbox.to_policy(), true)?;
    super::sandboxing::warn(&sandbox);
    args.cores.apply(jobs, false)?;
    let presets = args.presets.is_dir().then(|| args.presets.clone());
    let mut hosts = args.public_host.clone();
    for name in &hosts {
        if name.is_empty() || name.contains(['/', ':', ' ']) {
            bail!("--public-host {name:?}: give a host name without scheme, port or path, e.g. `--public-host arena.example.org`");
        }
    }
    // The `--addr` host, when it is a name (`myhost:8080`); addresses are always allowed.
    if let Some((host, _)) = args.addr.rsplit_once(':') {
        hosts.push(host.to_string());
    }
    // Descriptors: up to the hard limit, and connections capped at a quarter of them so
    // that clients can never take those the tournaments need.
    web::http::raise_descriptor_limit();
    let limits = web::http::Limits::default();
    let config = web::Config {
        data: args.data.clone(),
        dbs: args.db.clone(),
        token: token.clone(),
        sandboxed: sandbox.sandboxed,
        jobs,
        presets,
        hosts,
        limits,
        ladder_share: args.ladder_share,
        upload_limits: web::uploads::Limits::default(),
    };
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().context("cannot start the async runtime")?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(&args.addr).await.with_context(|| format!("cannot listen on {}", args.addr))?;
        let addr = listener.local_addr().context("the listening address")?;
        let app = web::App::start(config).await?;
        println!("arbiter serve: http://{addr}/ (data in {})", args.data.display());
        if args.admin_token.is_none() {
            println!("organiser token: {token}");
        }
        use std::io::Write;
        let _ = std::io::stdout().flush();
        let stop = crate::shared_work::stop_signal().context("cannot watch for Ctrl-C and SIGTERM")?;
        let tasks = app.tasks.clone();
        tokio::select! {
            result = web::serve(app, listener) => result.context("the server stopped"),
            signal = stop => {
                // Every game, tournament and connection is cancelled: bots are killed, the
                // finished games are already stored.
                let all_ended = tasks.shutdown(STOP_GRACE).await;
                let left = if all_ended { String::new() } else { format!(" ({} tasks had not ended after {} s)", tasks.running(), STOP_GRACE.as_secs()) };
                println!("arbiter serve: stopped by {signal}; finished games are stored, running tournaments resume at the next start{left}");
                Ok(())
            }
        }
    })
}
