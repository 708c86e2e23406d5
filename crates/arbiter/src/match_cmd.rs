//! `arbiter match GAME A B`: a head-to-head match for bot authors, played in
//! colour-swapped pairs, reporting the Elo difference of A over B with its 95% error bar,
//! the likelihood of superiority and the pentanomial counts; with `--sprt` it stops as
//! soon as the sequential test decides.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use anyhow::{Context, bail};
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;
use referee::lanes::Lanes;
use referee::resources::GameResources;
use referee::{BotSpec, GameRecord, GameSetup, LimitOverrides};
use rules::{GameKind, Options};
use serde::Serialize;
use tournament::ratings::{Decision, Estimate, GameScore, Sprt, Tally};

use crate::game_args::{GameChoice, RunArgs, bot, derive, side_limits};

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    game: GameChoice,
    /// The bot being tested: random, greedy, or a bot.toml (or its folder). It moves
    /// first in the first game of each pair.
    a: String,
    /// Its opponent, named the same way.
    b: String,
    /// How many games at most, played in colour-swapped pairs on one start each (an odd
    /// number leaves the last game without a partner).
    #[arg(long, short = 'n', default_value_t = 100)]
    games: u32,
    /// Pairs played at the same time.
    #[arg(short = 'j', long, default_value_t = 1)]
    jobs: u32,
    #[command(flatten)]
    cores: super::CoresArgs,
    #[command(flatten)]
    pin: super::PinArgs,
    /// Stop as soon as a sequential probability ratio test decides between elo0 and elo1,
    /// e.g. `--sprt elo0=0,elo1=5`, in normalized Elo as fastchess's -sprt (alpha and
    /// beta default to 0.05; model=logistic for logistic Elo).
    #[arg(long, value_name = "elo0=E0,elo1=E1[,alpha=A,beta=B][,model=M]")]
    sprt: Option<String>,
    #[command(flatten)]
    run: RunArgs,
    #[command(flatten)]
    sandbox: super::sandboxing::SandboxArgs,
    #[command(flatten)]
    reuse: crate::game_args::ReuseArgs,
    #[command(flatten)]
    engine: super::engine_args::EngineArgs,
}

/// What every worker needs to play a pair.
struct Match {
    kind: GameKind,
    options: Options,
    bots: [BotSpec; 2],
    overrides: LimitOverrides,
    sandboxed: bool,
    seed: u64,
    games: u32,
    /// Where the bots' processes wait between games (`--no-reuse`: none).
    pool: Option<Arc<referee::pool::Pool>>,
    /// Where the sandboxes of the bots' next games are started ahead (none outside the
    /// sandbox).
    ahead: Option<Arc<referee::ahead::Ahead>>,
    /// The openings, pair `p` playing `book[p % len]` (`--openings`).
    book: Option<Vec<String>>,
    adjudication: Option<referee::adjudication::Adjudication>,
    /// Where each game is appended as PGN (`--pgn`), and the players' names.
    pgn: Option<super::engine_args::PgnOut>,
    names: [String; 2],
    /// Where each game's record is written (`--record`).
    record: Option<std::path::PathBuf>,
}

/// One finished pair (or the last, single game): A's scores and faults per game.
struct PairResult {
    scores: Vec<GameScore>,
    /// Games lost by a fault of A, of B.
    faults: [u32; 2],
    /// Of those, games lost on time.
    time_losses: [u32; 2],
    /// The referee's and the bots' time over the pair's moves.
    timing: Timing,
}

#[derive(Serialize)]
struct SprtReport {
    #[serde(flatten)]
    test: Sprt,
    llr: f64,
    lower_bound: f64,
    upper_bound: f64,
    /// `accept-h0`, `accept-h1`, or `continue` when the games ran out first.
    decision: Decision,
}

#[derive(Serialize)]
struct Summary {
    game: &'static str,
    options: Options,
    seed: u64,
    /// A, then B.
    players: [String; 2],
    games: u32,
    pairs: u32,
    /// A's wins, draws, losses.
    wins: u32,
    draws: u32,
    losses: u32,
    /// Pairs in which A made 0, ½, 1, 1½, 2 points.
    pentanomial: [u32; 5],
    /// Games lost by a fault (timeout, illegal move, crash, protocol error) of A, of B.
    faults: [u32; 2],
    /// Of those, games lost on time, of A, of B.
    time_losses: [u32; 2],
    /// Where the time of the counted games' moves went.
    timing: TimingReport,
    /// A over B.
    estimate: Estimate,
    sprt: Option<SprtReport>,
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    let (kind, options, overrides) = args.game.read()?;
    let sprt = match &args.sprt {
        Some(text) => Some(text.parse::<Sprt>().with_context(|| format!("--sprt {text}"))?),
        None => None,
    };
    if args.games == 0 {
        bail!("--games must be at least 1");
    }
    if args.jobs == 0 {
        bail!("-j must be at least 1");
    }
    let mut bots = [bot(&args.a, kind)?, bot(&args.b, kind)?];
    args.engine.apply_options(&mut bots)?;
    let adjudication = args.engine.adjudication()?;
    let pgn = args.engine.pgn_out(kind)?;
    if bots.iter().any(|b| matches!(b, BotSpec::Human)) {
        bail!("a match is between bots; use `arbiter play` to play against one");
    }
    let has_programs = bots.iter().any(|b| matches!(b, BotSpec::Program(_)));
    let sandbox = super::sandboxing::decide(args.sandbox.to_policy(), has_programs)?;
    super::sandboxing::warn(&sandbox);
    let seed = args.run.seed.unwrap_or_else(fresh_seed);
    let names = if bots[0].name() == bots[1].name() {
        [format!("{}-1", bots[0].name()), format!("{}-2", bots[1].name())]
    } else {
        [bots[0].name(), bots[1].name()]
    };
    let n_pairs = args.games.div_ceil(2);
    let book = args.engine.book(kind, &options, seed)?;
    if !args.run.json {
        let test = sprt
            .map(|t| format!(", SPRT elo0={} elo1={} alpha={} beta={} model={:?}", t.elo0, t.elo1, t.alpha, t.beta, t.model).to_lowercase())
            .unwrap_or_default();
        println!(
            "{kind}: {} vs {}, up to {} game(s) in {n_pairs} colour-swapped pair(s), seed {seed}{test}",
            names[0], names[1], args.games
        );
    }
    args.cores.apply(args.jobs as usize, !has_programs)?;
    if let Some(dir) = &args.run.record {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create record folder {}", dir.display()))?;
    }
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().context("cannot start the async runtime")?;
    let jobs = args.jobs as usize;
    let resources = GameResources::new(args.reuse.pool(jobs), crate::game_args::ahead(sandbox.sandboxed, jobs), args.pin.lanes(jobs)?);
    let shared = Arc::new(Match {
        kind,
        options: options.clone(),
        bots,
        overrides,
        sandboxed: sandbox.sandboxed,
        seed,
        games: args.games,
        pool: resources.pool(),
        ahead: resources.ahead(),
        book,
        adjudication,
        pgn,
        names: names.clone(),
        record: args.run.record.clone(),
    });

    let mut tally = Tally::new();
    let mut faults = [0u32; 2];
    let mut time_losses = [0u32; 2];
    let mut timing = Timing::default();
    let mut decision = Decision::Continue;
    let result: anyhow::Result<()> = runtime.block_on(async {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let next = Arc::new(AtomicU32::new(0));
        // The workers end with this block: dropping the set aborts those still running,
        // and with them their games and the bots' processes (killed on drop).
        let mut workers = tokio::task::JoinSet::new();
        for _ in 0..args.jobs.min(n_pairs) {
            let (shared, next, tx, lanes) = (shared.clone(), next.clone(), tx.clone(), resources.lanes().cloned());
            workers.spawn(async move {
                loop {
                    let pair = next.fetch_add(1, Ordering::SeqCst);
                    if pair >= n_pairs {
                        break;
                    }
                    let result = play_pair(&shared, lanes.as_ref(), pair).await;
                    if tx.send((pair, result)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        // Pairs are counted in order, whatever order they finish in, so that a seed gives
        // the same results and the same stopping point at any -j.
        let mut finished: BTreeMap<u32, PairResult> = BTreeMap::new();
        let mut counted = 0;
        while let Some((pair, result)) = rx.recv().await {
            finished.insert(pair, result?);
            while let Some(result) = finished.remove(&counted) {
                match result.scores[..] {
                    [first, second] => tally.add_pair(first, second),
                    [single] => tally.add_game(single),
                    _ => unreachable!("a pair has one or two games"),
                }
                faults = [faults[0] + result.faults[0], faults[1] + result.faults[1]];
                time_losses = [time_losses[0] + result.time_losses[0], time_losses[1] + result.time_losses[1]];
                timing.merge(&result.timing);
                counted += 1;
                if let Some(test) = &sprt {
                    decision = test.decide(&tally);
                }
                if !args.run.json {
                    println!("{}", progress(counted, &result.scores, &tally, sprt.as_ref()));
                }
                if decision != Decision::Continue {
                    // Games still running are abandoned (the workers are aborted).
                    workers.abort_all();
                    return Ok(());
                }
            }
        }
        Ok(())
    });
    runtime.block_on(resources.close());
    drop(runtime);
    result?;

    let estimate = tally.estimate().expect("at least one game was played");
    let sprt_report = sprt.map(|test| SprtReport {
        test,
        llr: test.llr(&tally),
        lower_bound: test.lower_bound(),
        upper_bound: test.upper_bound(),
        decision,
    });
    let summary = Summary {
        game: kind.name(),
        options,
        seed,
        players: names,
        games: estimate.games,
        pairs: estimate.pairs,
        wins: estimate.wdl[0],
        draws: estimate.wdl[1],
        losses: estimate.wdl[2],
        pentanomial: estimate.pentanomial,
        faults,
        time_losses,
        timing: timing.report(),
        estimate,
        sprt: sprt_report,
    };
    if args.run.json {
        println!("{}", serde_json::to_string_pretty(&summary)?);
    } else {
        print!("{}", describe(&summary));
    }
    Ok(())
}

/// Plays pair `pair`: games 2·pair and 2·pair + 1 (if within the match) from one start,
/// A moving first in the first, each on a lane when there are lanes. Seeds and starts
/// are those of `arbiter play`.
async fn play_pair(shared: &Arc<Match>, lanes: Option<&Arc<Lanes>>, pair: u32) -> anyhow::Result<PairResult> {
    let kind = shared.kind;
    let mut rng = ChaCha8Rng::seed_from_u64(derive(shared.seed, u64::from(pair) | 1 << 63));
    let text = match &shared.book {
        Some(book) => Some(book[pair as usize % book.len()].clone()),
        None => kind.random_start(&shared.options, &mut rng)?,
    };
    let start = kind.new_position(&shared.options, text.as_deref()).context("start position")?;
    let mut result = PairResult { scores: Vec::with_capacity(2), faults: [0, 0], time_losses: [0, 0], timing: Timing::default() };
    for idx in [2 * pair, 2 * pair + 1].into_iter().filter(|&idx| idx < shared.games) {
        // In the first game A (player 0) is side 0; in the second B is.
        let order = if idx % 2 == 0 { [0, 1] } else { [1, 0] };
        let mut setup = GameSetup::new(start.clone(), shared.options.clone(), derive(shared.seed, u64::from(idx)));
        setup.pool = shared.pool.clone();
        setup.ahead = shared.ahead.clone();
        setup.adjudication = shared.adjudication;
        setup.limits = order.map(|player| side_limits(setup.limits[0], &shared.bots[player], &shared.overrides));
        for limits in &mut setup.limits {
            limits.sandboxed = shared.sandboxed;
        }
        let game = {
            let shared = Arc::clone(shared);
            async move { referee::play_game(&setup, [&shared.bots[order[0]], &shared.bots[order[1]]], |_, _| {}).await }
        };
        let record = match lanes {
            Some(lanes) => lanes.run(game).await,
            None => game.await,
        }
        .with_context(|| format!("game {} was not played", idx + 1))?;
        if let Some(pgn) = &shared.pgn {
            let event = format!("Arbiter match {} vs {}", shared.names[0], shared.names[1]);
            pgn.write(&record, &event, (idx + 1).to_string(), order.map(|player| shared.names[player].as_str()))?;
        }
        if let Some(dir) = shared.record.clone() {
            let saved = record.clone();
            tokio::task::spawn_blocking(move || crate::game_args::write_record(&dir, &saved)).await.context("cannot write a record")??;
        }
        let a_side = order[0];
        result.scores.push(score_of(&record, a_side));
        if let Some(side) = record.result.termination.side() {
            result.faults[order[side.index()]] += 1;
            if matches!(record.result.termination, referee::Termination::Timeout { .. }) {
                result.time_losses[order[side.index()]] += 1;
            }
        }
        result.timing.add(&record);
    }
    Ok(result)
}

/// The moves of some games and where their time went, summed from the records.
#[derive(Clone, Copy, Debug, Default)]
struct Timing {
    moves: u64,
    bot_us: u64,
    referee_us: u64,
    referee_max_us: u64,
}

impl Timing {
    fn add(&mut self, record: &GameRecord) {
        for side in record.timing.iter().flatten() {
            self.moves += side.turns;
            self.bot_us += side.bot_us;
            self.referee_us += side.referee_us;
            self.referee_max_us = self.referee_max_us.max(side.referee_max_us);
        }
    }

    fn merge(&mut self, other: &Timing) {
        self.moves += other.moves;
        self.bot_us += other.bot_us;
        self.referee_us += other.referee_us;
        self.referee_max_us = self.referee_max_us.max(other.referee_max_us);
    }

    fn report(&self) -> TimingReport {
        let per_move = |us: u64| if self.moves == 0 { 0.0 } else { us as f64 / self.moves as f64 };
        TimingReport {
            moves: self.moves,
            bot_us_per_move: per_move(self.bot_us),
            referee_us_per_move: per_move(self.referee_us),
            referee_max_us: self.referee_max_us,
        }
    }
}

/// Where the moves' time went: the bots' (a request written to its answer read) and the
/// referee's own around it (waking the bot, checking the move, the record), per move.
#[derive(Serialize)]
struct TimingReport {
    moves: u64,
    bot_us_per_move: f64,
    referee_us_per_move: f64,
    /// The most the referee took around one move.
    referee_max_us: u64,
}

/// The score of the player on `side` in a finished game.
fn score_of(record: &GameRecord, side: usize) -> GameScore {
    match record.result.winner {
        None => GameScore::Draw,
        Some(winner) if winner == side => GameScore::Win,
        Some(_) => GameScore::Loss,
    }
}

/// The line printed after each pair: its result and the running estimate.
fn progress(pair: u32, scores: &[GameScore], tally: &Tally, sprt: Option<&Sprt>) -> String {
    let points: f64 = scores.iter().map(|s| s.half_points() as f64 / 2.0).sum();
    let estimate = tally.estimate().expect("a pair was counted");
    let [w, d, l] = estimate.wdl;
    let llr = sprt.map(|t| format!(", LLR {:.2} [{:.2}, {:.2}]", t.llr(tally), t.lower_bound(), t.upper_bound())).unwrap_or_default();
    format!(
        "pair {pair}: {points}-{} | {} games: +{w} ={d} -{l}, Elo {estimate}, LOS {:.1}%{llr}",
        scores.len() as f64 - points,
        estimate.games,
        100.0 * estimate.los
    )
}

/// The final summary in words.
fn describe(summary: &Summary) -> String {
    let est = &summary.estimate;
    let [a, b] = &summary.players;
    let mut text = format!(
        "\n{a} vs {b}: {} games ({} pairs), {a} +{} ={} -{}, score {:.1}%\n",
        summary.games,
        summary.pairs,
        summary.wins,
        summary.draws,
        summary.losses,
        100.0 * est.score
    );
    let [p0, p1, p2, p3, p4] = summary.pentanomial;
    text += &format!("pentanomial (pairs with 0, 1/2, 1, 3/2, 2 points for {a}): {p0} {p1} {p2} {p3} {p4}\n");
    let note = if est.virtual_draw { " (results all alike: one virtual draw added)" } else { "" };
    text += &format!("Elo difference of {a} over {b}: {est} (95%){note}, LOS {:.1}%\n", 100.0 * est.los);
    if let (Some(nelo), Some(error)) = (est.nelo, est.nelo_error95) {
        text += &format!("normalized Elo (nElo) of {a} over {b}: {nelo:+.2} ± {error:.2} (95%)\n");
    }
    if summary.faults != [0, 0] {
        text += &format!("games lost by faults: {a} {}, {b} {}\n", summary.faults[0], summary.faults[1]);
    }
    if summary.time_losses != [0, 0] {
        text += &format!("of those, on time: {a} {}, {b} {}\n", summary.time_losses[0], summary.time_losses[1]);
    }
    let timing = &summary.timing;
    text += &format!(
        "per move: the bot {:.0} µs, the referee around it {:.1} µs (at most {} µs), {} moves\n",
        timing.bot_us_per_move, timing.referee_us_per_move, timing.referee_max_us, timing.moves
    );
    if let Some(report) = &summary.sprt {
        let verdict = match report.decision {
            Decision::AcceptH0 => format!("H0 accepted (elo0 = {}) after {} games", report.test.elo0, summary.games),
            Decision::AcceptH1 => format!("H1 accepted (elo1 = {}) after {} games", report.test.elo1, summary.games),
            Decision::Continue => format!("no decision after {} games", summary.games),
        };
        text += &format!("SPRT: {verdict}, LLR {:.2} [{:.2}, {:.2}]\n", report.llr, report.lower_bound, report.upper_bound);
    }
    text
}

fn fresh_seed() -> u64 {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    derive(nanos as u64, u64::from(std::process::id()))
}
