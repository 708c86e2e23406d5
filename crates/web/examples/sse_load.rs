//! Load benchmark of the live standings: the web arena in this process on 127.0.0.1,
//! a round robin of built-in Connect Four players started through the API, and N
//! viewers, each its own task on its own connection, following the tournament's event
//! stream to the end. For every `standings` update a viewer receives, the latency is
//! its receive time minus the server's `sent_us` (same machine, same clock).
//!
//! ```text
//! cargo run --release -p web --example sse_load -- --viewers 100 [--deals 20] [--entrants 6] [--jobs 2]
//! ```
//!
//! The requests are bounded: one tournament start and one connection per viewer.

#[path = "../tests/common/mod.rs"]
mod common;

use std::time::Instant;

use serde_json::json;

struct Args {
    viewers: usize,
    deals: usize,
    entrants: usize,
    jobs: usize,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args { viewers: 100, deals: 20, entrants: 6, jobs: 2 };
    let mut given = std::env::args().skip(1);
    while let Some(flag) = given.next() {
        let value = given.next().ok_or_else(|| format!("{flag} needs a value"))?;
        let number: usize = value.parse().map_err(|_| format!("{flag} {value}: not a whole number"))?;
        match flag.as_str() {
            "--viewers" => args.viewers = number,
            "--deals" => args.deals = number,
            "--entrants" => args.entrants = number,
            "--jobs" => args.jobs = number,
            _ => return Err(format!("unknown argument {flag} (--viewers N, --deals N, --entrants N, --jobs N)")),
        }
    }
    if args.viewers == 0 || args.deals == 0 || args.entrants < 2 || args.jobs == 0 {
        return Err("--viewers, --deals and --jobs must be at least 1, --entrants at least 2".to_string());
    }
    Ok(args)
}

/// User plus system CPU time of this process, in seconds (Linux; `None` elsewhere).
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which is in parentheses and may hold spaces).
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

fn percentile(sorted: &[u64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1] as f64 / 1000.0
}

fn main() {
    let args = match parse_args() {
        Ok(args) => args,
        Err(message) => {
            eprintln!("sse_load: {message}");
            std::process::exit(2);
        }
    };
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("an async runtime");
    runtime.block_on(run(args));
}

async fn run(args: Args) {
    let data = tempfile::tempdir().expect("a temporary folder");
    let config = web::Config { jobs: args.jobs, ..common::config(data.path(), vec![]) };
    let server = common::start_with(config).await;
    let games = common::games_of(args.entrants, args.deals);
    let cpu_start = cpu_seconds();
    let wall = Instant::now();
    let text = common::round_robin("SSE load", args.entrants, args.deals);
    let (status, body) = common::post_json(server.addr, "/api/tournaments", true, &json!({ "config": text })).await;
    assert_eq!(status, 201, "the tournament did not start: {body}");
    let id = body["id"].as_str().expect("the tournament's id").to_string();
    let viewers: Vec<_> = (0..args.viewers)
        .map(|_| {
            let id = id.clone();
            tokio::spawn(async move { common::view_standings(server.addr, &id).await })
        })
        .collect();
    let mut viewings = Vec::new();
    for viewer in viewers {
        viewings.push(viewer.await.expect("a viewer task"));
    }
    let seconds = wall.elapsed().as_secs_f64();
    let cpu = cpu_start.zip(cpu_seconds()).map(|(a, b)| b - a);

    let (sent, missed) = common::missed_updates(&viewings);
    let per_viewer: Vec<usize> = viewings.iter().map(|v| v.updates.len()).collect();
    let mut latencies: Vec<u64> = viewings.iter().flat_map(|v| v.updates.iter().map(|u| u.received_us.saturating_sub(u.sent_us))).collect();
    latencies.sort_unstable();
    let finished = viewings.iter().filter(|v| v.saw_finish).count();
    let late_joiners = viewings.iter().filter(|v| v.snapshot.finished_games > 0).count();

    println!("viewers: {}", args.viewers);
    println!(
        "tournament: {games} games (connect4 round robin, {} built-in entrants, {} deals, jobs {})",
        args.entrants, args.deals, args.jobs
    );
    println!(
        "wall: {seconds:.2} s; CPU of the process: {}",
        cpu.map_or("n/a".to_string(), |c| format!("{c:.2} s ({:.0}% of one core)", 100.0 * c / seconds))
    );
    println!("updates sent (distinct sent_us after the snapshots): {}", sent.len());
    println!(
        "updates received per viewer: min {} max {}; viewers that joined after the first game: {late_joiners}",
        per_viewer.iter().min().unwrap_or(&0),
        per_viewer.iter().max().unwrap_or(&0)
    );
    println!(
        "every viewer got every update sent after its snapshot: {} (missed: {}); saw `finished`: {finished} of {}",
        missed.iter().all(|&m| m == 0),
        missed.iter().sum::<usize>(),
        args.viewers
    );
    println!(
        "latency per update (ms), {} deliveries: p50 {:.2} p90 {:.2} p99 {:.2} max {:.2}",
        latencies.len(),
        percentile(&latencies, 50.0),
        percentile(&latencies, 90.0),
        percentile(&latencies, 99.0),
        percentile(&latencies, 100.0)
    );
}
