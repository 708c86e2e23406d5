//! `arbiter workers add|revoke|list`: the organiser's HTTP worker tokens, kept (hashed)
//! in the web arena's data folder beside its entrants (`DATA/arena.db`), so that a
//! running `arbiter serve --data DIR` takes a new token, or stops honouring a revoked
//! one, at its next call. The web arena's workers page does the same.

use std::path::PathBuf;

use anyhow::{Context, bail};

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    action: Action,
    /// The web arena's data folder (as `arbiter serve --data`).
    #[arg(long, value_name = "DIR", default_value = "arbiter-data", global = true)]
    data: PathBuf,
}

#[derive(clap::Subcommand, Debug)]
enum Action {
    /// Make a worker's token (printed once: only its hash is kept).
    Add {
        /// The worker's name: letters, digits, '-', '_' or '.'.
        name: String,
    },
    /// Revoke a worker's token: its next call is refused and it stops.
    Revoke { name: String },
    /// List the workers with what the server saw of them.
    List {
        /// One JSON object, as `GET /api/workers` answers.
        #[arg(long)]
        json: bool,
    },
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().context("cannot start the async runtime")?;
    runtime.block_on(async {
        std::fs::create_dir_all(&args.data).with_context(|| format!("cannot make the data folder {}", args.data.display()))?;
        let arena = store::ArenaStore::open(&args.data.join("arena.db")).await?;
        let result = act(&arena, &args.action).await;
        arena.close().await;
        result
    })
}

async fn act(arena: &store::ArenaStore, action: &Action) -> anyhow::Result<()> {
    match action {
        Action::Add { name } => {
            web::work::check_worker_name(name).map_err(anyhow::Error::msg)?;
            let token = web::auth::random_token();
            if !arena.add_worker(name, &web::auth::token_hash(&token)).await? {
                bail!("there is a worker {name:?} already (revoke it, or choose another name)");
            }
            println!("{token}");
            eprintln!(
                "worker {name}: its token is above (shown once); start it with `arbiter worker --server http://HOST:PORT --token TOKEN`"
            );
        }
        Action::Revoke { name } => {
            if !arena.revoke_worker(name).await? {
                bail!("there is no worker {name:?} (`arbiter workers list` lists them)");
            }
            println!("worker {name}: token revoked");
        }
        Action::List { json } => {
            let rows = arena.workers().await?;
            if *json {
                println!("{}", serde_json::json!({ "workers": rows }));
                return Ok(());
            }
            println!(
                "{:<20} {:<8} {:<20} {:>7} {:>9} {:>7} {:>9}  last heartbeat",
                "worker", "token", "host", "games", "faults", "refused", "ms/move"
            );
            for row in rows {
                let mean = if row.moves > 0 { format!("{:.1}", row.move_ms as f64 / row.moves as f64) } else { "-".to_string() };
                let seen = row.last_seen_ms.map_or_else(|| "never".to_string(), |ms| format!("{ms} (Unix ms)"));
                println!(
                    "{:<20} {:<8} {:<20} {:>7} {:>4}/{:<4} {:>7} {:>9}  {seen}",
                    crate::terminal::printable(&row.name),
                    if row.revoked { "revoked" } else { "working" },
                    crate::terminal::printable(row.host.as_deref().unwrap_or("-")),
                    row.games,
                    row.faults[0],
                    row.faults[1],
                    row.refused,
                    mean
                );
            }
        }
    }
    Ok(())
}
