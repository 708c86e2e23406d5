//! `arbiter host connect4`: the seed's TCP test environment. Listens, waits for two
//! clients (`docs/protocols/connect4-tcp.md`), plays pairs of games between them (each
//! client moves first once per pair), and prints the running score after every game and
//! a final line. The games themselves are `referee::drivers::connect4_tcp`'s; a faulty
//! client loses, and the host carries on.

use std::time::Duration;

use anyhow::{Context, bail};
use referee::Termination;
use referee::drivers::connect4_tcp::{Remote, play_remote_game};
use rules::GameKind;
use rules::connect4::Position;
use tokio::net::TcpListener;

use crate::terminal::printable;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The game; only connect4 has a TCP test environment.
    game: String,
    /// Pairs of games to play; in each pair each client moves first once.
    #[arg(long, default_value_t = 1)]
    pairs: u32,
    /// Board width (columns), 4 to 32.
    #[arg(long, default_value_t = 7)]
    width: usize,
    /// Board height (rows), 4 to 32.
    #[arg(long, default_value_t = 6)]
    height: usize,
    /// The address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    addr: String,
    /// The port to listen on; 0 picks a free one (printed).
    #[arg(long, default_value_t = 4000)]
    port: u16,
    /// Wall-clock time a client has for each move (and for its name), in milliseconds.
    #[arg(long, default_value_t = 10_000)]
    move_ms: u64,
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    let kind = GameKind::from_name(&args.game)?;
    if kind != <Position as rules::Registered>::KIND {
        bail!("arbiter host plays connect4 only: {kind} bots are programs that `arbiter play` runs");
    }
    let start = Position::empty(args.width, args.height).context("board size")?;
    if args.pairs == 0 {
        bail!("--pairs must be at least 1");
    }
    if args.move_ms == 0 {
        bail!("--move-ms must be at least 1");
    }
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().context("cannot start the async runtime")?;
    runtime.block_on(host(args, &start, Duration::from_millis(args.move_ms)))
}

async fn host(args: &Args, start: &Position, move_time: Duration) -> anyhow::Result<()> {
    let listener = TcpListener::bind((args.addr.as_str(), args.port))
        .await
        .with_context(|| format!("cannot listen on {}:{}", args.addr, args.port))?;
    let local = listener.local_addr().context("cannot read the listening address")?;
    println!("listening on {local}");
    println!(
        "waiting for two clients: {} pair(s) of games on {}x{}, {} ms per move",
        args.pairs,
        start.width(),
        start.height(),
        args.move_ms
    );
    let mut clients: Vec<Remote> = Vec::with_capacity(2);
    while clients.len() < 2 {
        let (stream, peer) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(err) => {
                println!("a connection failed: {err}");
                continue;
            }
        };
        match Remote::greet(stream, move_time).await {
            Ok(remote) => {
                println!("client {} from {peer}: {}", clients.len() + 1, printable(&remote.name));
                clients.push(remote);
            }
            Err(why) => println!("a client from {peer} was turned away: {}", printable(&why.to_string())),
        }
    }
    // Nobody else gets in while the games run.
    drop(listener);
    let names = if clients[0].name == clients[1].name {
        [format!("{}-1", clients[0].name), format!("{}-2", clients[1].name)]
    } else {
        [clients[0].name.clone(), clients[1].name.clone()]
    };
    let mut points = [0.0f64; 2];
    let n_games = 2 * args.pairs;
    let mut played = 0;
    for idx in 0..n_games {
        if clients.iter().all(|client| !client.is_connected()) {
            println!("both clients are gone: the other {} game(s) are not played", n_games - idx);
            break;
        }
        // Client 1 moves first in games 1, 3, 5, ...; client 2 in games 2, 4, 6, ...
        let order = if idx % 2 == 0 { [0, 1] } else { [1, 0] };
        let (one, two) = clients.split_at_mut(1);
        let remotes = if idx % 2 == 0 { [&mut one[0], &mut two[0]] } else { [&mut two[0], &mut one[0]] };
        let game = play_remote_game(remotes, start, move_time).await;
        played += 1;
        match game.outcome.winner {
            Some(side) => points[order[side.index()]] += 1.0,
            None => points.iter_mut().for_each(|p| *p += 0.5),
        }
        let sides = order.map(|client| names[client].as_str());
        let verdict = match game.outcome.winner {
            Some(side) => format!("{} wins", sides[side.index()]),
            None => "draw".to_string(),
        };
        let how = match &game.termination {
            Termination::Rules => String::new(),
            other => format!(" ({})", other.describe(sides)),
        };
        let line = format!(
            "game {}/{n_games}: {} (first) vs {}: {verdict} after {} moves{how}; score: {}",
            idx + 1,
            sides[0],
            sides[1],
            game.moves.len(),
            score(&names, points)
        );
        println!("{}", printable(&line));
    }
    for client in &mut clients {
        client.bye(Duration::from_secs(1)).await;
    }
    println!("final after {played} game(s): {}", printable(&score(&names, points)));
    Ok(())
}

/// `alice 2.5, bob 1.5`
fn score(names: &[String; 2], points: [f64; 2]) -> String {
    format!("{} {}, {} {}", names[0], points[0], names[1], points[1])
}
