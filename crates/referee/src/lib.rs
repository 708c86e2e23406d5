//! Plays one game between two bots and writes its record. A bot is a built-in player,
//! a human at the terminal, or a program behind one of the interfaces (drivers in
//! [`drivers`]); whatever a bot does wrong ends as a [`Termination`] in the record,
//! never as an `Err`. An `Err` ([`RefereeError`]) is our own failure: the game was not
//! played and may be tried again.
//!
//! The game loop is generic over the game ([`play`]): seats answer with the game's own
//! moves, each parsed once (by the seat, from what the bot wrote) and checked once (by
//! the rules, when the referee plays it). [`play_game`] makes the one run-time choice of
//! the game, from its start position.

pub mod adjudication;
pub mod cores;
pub mod human;
pub mod lanes;
pub mod record;
pub mod resources;
mod spec;

// The bots' side of a game (manifests, builds, drivers, faults) is the `bots` crate; it
// is re-exported here for the referee's callers.
pub use bots::{
    BoxFuture, Fault, FaultKind, LastMove, ProgramBot, Protocol, RefereeError, Reply, SeatContext, StartError, TurnClock, TurnRequest,
    is_exhaustion, read_move,
};
pub use bots::{ahead, build, doctor, drivers, folders, limits, manifest, nofollow, pool};
pub use spec::BotSpec;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use players::{Builtin, Play};
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;
use rules::{AnyPosition, Game, Options, Outcome, Registered, Side, Visit};

pub use bots::{LimitOverrides, Limits, Manifest, ManifestError};
pub use record::{GameRecord, PlayerRecord, ResultRecord, SideTiming, StartupRecord, Termination, TurnRecord};

/// One side of a game in progress.
enum Seat<G: Game> {
    Builtin { builtin: Builtin, rng: Box<ChaCha8Rng> },
    Human(human::Human),
    Remote(human::Remote),
    Program(Box<dyn drivers::Driver<G>>),
}

impl<G: Registered> Seat<G> {
    async fn open(spec: &BotSpec, ctx: &SeatContext) -> Result<Seat<G>, StartError> {
        Ok(match spec {
            BotSpec::Builtin(builtin) => {
                let stream = ctx.seed ^ (0x9e37_79b9_7f4a_7c15u64.wrapping_mul(ctx.side.index() as u64 + 1));
                Seat::Builtin { builtin: *builtin, rng: Box::new(ChaCha8Rng::seed_from_u64(stream)) }
            }
            BotSpec::Human => Seat::Human(human::Human::terminal(ctx.side)),
            BotSpec::Remote(remote) => Seat::Remote(remote.clone()),
            BotSpec::Program(bot) => Seat::Program(drivers::open::<G>(bot, ctx).await?),
        })
    }

    /// Whether the seat computes on this machine during its turns (and so needs a core).
    fn thinks_here(&self) -> bool {
        matches!(self, Seat::Builtin { .. } | Seat::Program(_))
    }

    async fn turn(&mut self, req: &TurnRequest<'_, G>) -> Result<Reply<G::Move>, RefereeError> {
        Ok(match self {
            Seat::Builtin { builtin, rng } => builtin_turn(*builtin, rng, req).await?,
            Seat::Human(human) => human.turn(req).await,
            Seat::Remote(remote) => remote.turn(req).await,
            Seat::Program(driver) => driver.turn(req).await?,
        })
    }

    async fn finish(&mut self, outcome: &Outcome) {
        match self {
            Seat::Builtin { .. } | Seat::Remote(_) => {}
            Seat::Human(human) => human.finish(outcome),
            Seat::Program(driver) => driver.finish(outcome).await,
        }
    }

    /// What the seat said of its last move: a program's analysis (a UCI engine's).
    fn analysis(&mut self) -> Option<bots::Analysis> {
        match self {
            Seat::Program(driver) => driver.analysis(),
            _ => None,
        }
    }
}

/// A built-in player's turn, searched on a blocking thread (a search takes up to its
/// clock) and stopped by the time [`players::think_time`] gives it. It is held to the
/// turn's limit like any bot: an answer after it is a timeout.
async fn builtin_turn<G: Registered>(
    builtin: Builtin,
    rng: &mut Box<ChaCha8Rng>,
    req: &TurnRequest<'_, G>,
) -> Result<Reply<G::Move>, RefereeError> {
    let began = Instant::now();
    let clock = req.clock;
    let think = players::think_time(clock.move_time, clock.game_time_left, clock.cpu_left);
    let pos = req.pos.clone();
    // The seat's RNG goes to the search's thread and comes back with it.
    let mut own_rng = std::mem::replace(rng, Box::new(ChaCha8Rng::seed_from_u64(0)));
    let (chosen, own_rng) = tokio::task::spawn_blocking(move || {
        let deadline = think.map(|t| began + t);
        let stop = || deadline.is_some_and(|d| Instant::now() >= d);
        let chosen = builtin.choose(&pos, own_rng.as_mut(), &stop);
        (chosen, own_rng)
    })
    .await
    .map_err(|err| RefereeError::new(format!("built-in player {builtin} failed"), std::io::Error::other(err)))?;
    *rng = own_rng;
    let elapsed = began.elapsed();
    let answer = match (chosen, clock.wall_limit()) {
        (None, _) => Err(Fault::new(FaultKind::ProtocolError, "no move in an ongoing game")),
        (Some(_), Some(limit)) if elapsed > limit => {
            Err(Fault::new(FaultKind::Timeout, format!("built-in player {builtin} took {} ms", elapsed.as_millis())))
        }
        (Some(mv), _) => Ok(mv),
    };
    // A built-in player computes on one thread all the time it takes.
    Ok(Reply { answer, elapsed, cpu: elapsed, waited: jail::Waits::default(), stderr: jail::Log::default(), input: String::new() })
}

/// What a game is played from.
#[derive(Clone, Debug)]
pub struct GameSetup {
    pub start: AnyPosition,
    pub options: Options,
    pub seed: u64,
    /// Limits of side 0 and side 1.
    pub limits: [Limits; 2],
    /// Where the bots' working directories are made (`side-0`, `side-1`, fresh for this
    /// game); when `None`, a game folder in the temporary folder ([`folders`]), removed
    /// after the game.
    pub workdir_root: Option<PathBuf>,
    /// Where processes of bots that can play game after game wait between games
    /// (`None`: a process per game). A process from it keeps a working folder of its
    /// own instead of `side-N`.
    pub pool: Option<std::sync::Arc<bots::pool::Pool>>,
    /// Where sandboxes for the next games of bots with a process per move are started
    /// ahead (`None`: a seat starts its own when it opens). A seat served from it works in
    /// its sandbox's own folder instead of `side-N`; not used with `workdir_root`, whose
    /// folders the caller looks into.
    pub ahead: Option<std::sync::Arc<bots::ahead::Ahead>>,
    /// Ending the game on the engines' scores before the rules do (chess's resign and
    /// draw adjudication, [`adjudication`]); `None`: play to the end.
    pub adjudication: Option<adjudication::Adjudication>,
}

impl GameSetup {
    /// A game from `start` with the game's own limits for both sides.
    pub fn new(start: AnyPosition, options: Options, seed: u64) -> GameSetup {
        let limits = Limits::for_game(start.kind(), &options);
        GameSetup { start, options, seed, limits: [limits; 2], workdir_root: None, pool: None, ahead: None, adjudication: None }
    }
}

/// Plays one game to its end and returns its record: the one run-time choice of the
/// game (the start position's), then [`play`] for that game. `on_turn` sees the position
/// after every accepted move with that turn's record (for `--show`, live views). Whatever
/// a bot does is in the record; an `Err` is our own failure (the game was not played to
/// its end, and no side is to blame), or a bot that does not play this game.
pub async fn play_game(
    setup: &GameSetup,
    bots: [&BotSpec; 2],
    on_turn: impl FnMut(&AnyPosition, &TurnRecord) + Send,
) -> Result<GameRecord, RefereeError> {
    struct Play<'a, F> {
        setup: &'a GameSetup,
        bots: [&'a BotSpec; 2],
        on_turn: F,
    }
    impl<'a, F: FnMut(&AnyPosition, &TurnRecord) + Send + 'a> Visit for Play<'a, F> {
        type Output = BoxFuture<'a, Result<GameRecord, RefereeError>>;
        fn visit<G: Registered>(self, start: &G) -> Self::Output {
            let (setup, bots, mut on_turn, start) = (self.setup, self.bots, self.on_turn, start.clone());
            Box::pin(play::<G>(setup, start, bots, move |pos: &G, turn: &TurnRecord| on_turn(&pos.clone().into_any(), turn)))
        }
    }
    setup.start.visit(Play { setup, bots, on_turn }).await
}

/// Plays one game of `G` from `start` (the setup's start position, typed) to its end.
/// Checks first that each program bot plays `G`.
pub async fn play<G: Registered>(
    setup: &GameSetup,
    start: G,
    bots: [&BotSpec; 2],
    mut on_turn: impl FnMut(&G, &TurnRecord) + Send,
) -> Result<GameRecord, RefereeError> {
    for bot in bots {
        if let BotSpec::Program(program) = bot
            && let Some(plays) = program.plays_other_than(G::KIND)
        {
            return Err(RefereeError::wrong_game(&program.manifest.name, plays, G::KIND));
        }
    }
    for bot in bots {
        if let BotSpec::Builtin(builtin) = bot
            && let Err(unplayable) = builtin.check_plays(G::KIND, &setup.options)
        {
            let error = std::io::Error::new(std::io::ErrorKind::InvalidInput, unplayable.to_string());
            return Err(RefereeError::new(format!("built-in player {builtin} cannot play {}", G::KIND), error));
        }
    }
    let started = Instant::now();
    let started_ms = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64);
    let kind = G::KIND;
    // Seats that work in the game's folder: programs, but for those that keep a folder
    // of their own with their process.
    let ahead = setup.ahead.as_ref().filter(|_| setup.workdir_root.is_none());
    let in_folder = [0, 1].map(|side| match bots[side] {
        BotSpec::Program(program) => {
            SeatContext::uses_game_folder(program, setup.limits[side].sandboxed, setup.pool.is_some(), ahead.is_some())
        }
        _ => false,
    });
    let folder = match &setup.workdir_root {
        Some(_) => None,
        None if !in_folder.contains(&true) => None,
        None => {
            Some(folders::GameFolder::create_async().await.map_err(|err| RefereeError::new("cannot make the game's working folder", err))?)
        }
    };
    let root: PathBuf = match (&setup.workdir_root, &folder) {
        (Some(root), _) => {
            tokio::fs::create_dir_all(root).await.map_err(|err| RefereeError::new("cannot make the games' working folder", err))?;
            root.clone()
        }
        (None, Some(folder)) => folder.path().to_path_buf(),
        // No seat works in a game folder: there is none.
        (None, None) => std::env::temp_dir(),
    };
    let players = [player_record(bots[0], &setup.limits[0]), player_record(bots[1], &setup.limits[1])];
    let mut pos = start;
    let mut moves = Vec::new();
    let mut turns: Vec<TurnRecord> = Vec::new();
    let mut startup: Vec<StartupRecord> = Vec::new();
    let mut termination = Termination::Rules;

    // Open both seats; a bot that cannot start loses.
    let mut seats: Vec<Seat<G>> = Vec::with_capacity(2);
    for side in Side::BOTH {
        let ctx = SeatContext {
            kind,
            options: setup.options.clone(),
            start: setup.start.clone(),
            side,
            limits: setup.limits[side.index()],
            workdir: root.join(format!("side-{}", side.index())),
            seed: setup.seed,
            pool: setup.pool.clone(),
            ahead: ahead.cloned(),
        };
        let opening = Instant::now();
        let prepared = if in_folder[side.index()] || setup.workdir_root.is_some() {
            prepare_workdir(&ctx.workdir, bots[side.index()]).await
        } else {
            Ok(())
        };
        let opened = match prepared {
            Ok(()) => Seat::<G>::open(bots[side.index()], &ctx).await,
            // A link or a special file in the bot's `workdir`, refused, is the bot's doing.
            Err(err) if err.kind() == std::io::ErrorKind::InvalidInput => {
                Err(Fault::new(FaultKind::Crash, format!("cannot prepare the working directory: {err}")).into())
            }
            Err(err) => {
                Err(StartError::Referee(RefereeError::new(format!("cannot prepare the working folder of side {}", side.index()), err)))
            }
        };
        match opened {
            Ok(seat) => seats.push(seat),
            Err(StartError::Bot { fault, stderr }) => {
                startup.push(StartupRecord {
                    side: side.index(),
                    ms: opening.elapsed().as_millis() as u64,
                    stderr: stderr.text,
                    stderr_dropped: stderr.dropped,
                });
                termination = fault.into_termination(side);
                break;
            }
            Err(StartError::Referee(err)) => return Err(err),
        }
    }

    let mut clocks = [0, 1].map(|side| Clock::new(&setup.limits[side]));
    let mut cpu_used = [Duration::ZERO; 2];
    let mut last_move = LastMove::None;
    let mut tracker = setup.adjudication.map(adjudication::Tracker::new);
    if termination == Termination::Rules {
        while let Some(side) = pos.to_move() {
            let idx = side.index();
            let limits = &setup.limits[idx];
            // A core first: the turn, and the bot's clock, start once it has one.
            let core = match seats[idx].thinks_here() {
                true => Some(cores::take().await),
                false => None,
            };
            let turn_began = Instant::now();
            let clock = TurnClock {
                move_time: limits.move_time,
                game_time_left: clocks[idx].left,
                cpu_left: limits.game_cpu.map(|t| t.saturating_sub(cpu_used[idx])),
                move_cpu: limits.move_cpu,
                increment: limits.increment,
                moves_to_go: clocks[idx].moves_to_go(limits),
                margin: limits.margin,
                opponent: clocks[1 - idx].left.map(|left| bots::OpponentClock { left, increment: setup.limits[1 - idx].increment }),
            };
            let request = TurnRequest { pos: &pos, last_move: last_move.clone(), clock };
            let mut reply = seats[idx].turn(&request).await?;
            drop(core);
            let analysis = seats[idx].analysis();
            // Under a chess clock a move is checked against it when it ends, its time
            // taken off and the increment (and a new control's time) added.
            if clocks[idx].checks_each_move(limits)
                && reply.answer.is_ok()
                && let Some(late) = clock.late(reply.elapsed)
            {
                reply.answer = Err(late);
            }
            clocks[idx].after_move(limits, reply.elapsed);
            cpu_used[idx] += reply.cpu;
            let mut turn = TurnRecord {
                side: idx,
                text: None,
                ms: reply.elapsed.as_millis() as u64,
                bot_us: reply.elapsed.as_micros() as u64,
                turn_us: 0,
                cpu_us: reply.cpu.as_micros() as u64,
                wait_us: reply.waited.total().as_micros() as u64,
                steal_us: reply.waited.steal.as_micros() as u64,
                stderr: reply.stderr.text,
                stderr_dropped: reply.stderr.dropped,
                note: None,
                clock_ms: clocks[idx].left.filter(|_| clocks[idx].checks_each_move(limits)).map(|left| left.as_millis() as u64),
                analysis,
                input: reply.input,
            };
            // The move as the seat read it, checked once, here, by the rules.
            let accepted = match reply.answer {
                Err(fault) => Err(fault),
                Ok(mv) => {
                    let text = pos.format_move(&mv);
                    pos.play(&mv).map(|()| text).map_err(|err| Fault::new(FaultKind::IllegalMove, err.to_string()))
                }
            };
            // The turn ends here, the move checked (or the fault found).
            turn.turn_us = (turn_began.elapsed().as_micros() as u64).max(turn.bot_us);
            match accepted {
                Ok(canonical) => {
                    turn.text = Some(canonical.clone());
                    turn.note = pos.turn_note();
                    on_turn(&pos, &turn);
                    turns.push(turn);
                    last_move = if pos.hides_last_move() { LastMove::Hidden } else { LastMove::Move(canonical.clone()) };
                    moves.push(canonical);
                    // The rules end a game first; adjudication only one that goes on.
                    let score = adjudication::Score::of(turns.last().and_then(|turn| turn.analysis.as_ref()));
                    if pos.to_move().is_some()
                        && let Some(verdict) = tracker.as_mut().and_then(|tracker| tracker.after_move(side, score))
                    {
                        termination = Termination::Adjudicated { winner: verdict.winner.map(Side::index), detail: verdict.detail };
                        break;
                    }
                }
                Err(fault) => {
                    turns.push(turn);
                    termination = fault.into_termination(side);
                    break;
                }
            }
        }
    }

    let outcome = match (&termination, termination.side()) {
        (Termination::Adjudicated { winner, .. }, _) => Outcome { winner: winner.and_then(Side::from_index), scores: None },
        (_, Some(loser)) => pos.forfeit(loser),
        (_, None) => pos.outcome().expect("play stops by the rules only at the end"),
    };
    for seat in &mut seats {
        seat.finish(&outcome).await;
    }
    drop(seats);
    if let Some(folder) = folder {
        folder.remove_async().await;
    }
    let timing = Some(record::SideTiming::of(&turns));
    Ok(GameRecord {
        timing,
        game: kind.name().to_string(),
        options: setup.options.clone(),
        start: setup.start.start_text(),
        seed: setup.seed,
        players,
        moves,
        turns,
        startup,
        result: ResultRecord { winner: outcome.winner.map(Side::index), scores: outcome.scores, termination },
        started_ms,
        duration_ms: started.elapsed().as_millis() as u64,
    })
}

/// A side's game clock: what is left of its time (`None`: no game clock), and its moves
/// so far (for a control of so many moves).
struct Clock {
    left: Option<Duration>,
    moves: u32,
}

impl Clock {
    fn new(limits: &Limits) -> Clock {
        Clock { left: limits.game_time, moves: 0 }
    }

    /// Whether this is a chess clock (an increment, a control of moves, or a margin),
    /// which checks each move against it when the move ends and then adds the increment
    /// and each new control's time. Without one, the game time is a plain budget, as the
    /// seeds' contests have it: each move's deadline is what is left of it.
    fn checks_each_move(&self, limits: &Limits) -> bool {
        limits.increment.is_some() || limits.moves_to_go.is_some() || limits.margin.is_some()
    }

    /// The moves to the next control, this one included.
    fn moves_to_go(&self, limits: &Limits) -> Option<u32> {
        limits.moves_to_go.map(|n| n - self.moves % n)
    }

    /// Takes a move's time off the clock (to zero at least: a move within the margin
    /// counts) and adds the increment, and the control's time after its last move.
    fn after_move(&mut self, limits: &Limits, took: Duration) {
        self.moves += 1;
        let Some(left) = self.left else { return };
        let mut left = left.saturating_sub(took);
        if self.checks_each_move(limits) {
            left += limits.increment.unwrap_or_default();
            if limits.moves_to_go.is_some_and(|n| self.moves.is_multiple_of(n)) {
                left += limits.game_time.unwrap_or_default();
            }
        }
        self.left = Some(left);
    }
}

fn player_record(spec: &BotSpec, limits: &Limits) -> PlayerRecord {
    let limits = limits.to_record();
    // Players that are not programs are named, and kind, only.
    let plain = |name: String, kind: &str| PlayerRecord {
        name,
        kind: kind.to_string(),
        protocol: None,
        manifest: None,
        command: None,
        sha256: None,
        limits,
    };
    match spec {
        BotSpec::Builtin(builtin) => plain(builtin.name(), "builtin"),
        BotSpec::Remote(remote) => plain(remote.name.clone(), "human"),
        BotSpec::Human => plain("human".to_string(), "human"),
        BotSpec::Program(bot) => PlayerRecord {
            name: bot.manifest.name.clone(),
            kind: "program".to_string(),
            protocol: Some(bot.manifest.protocol.name().to_string()),
            manifest: Some(bot.manifest_path.to_string_lossy().into_owned()),
            command: Some(bot.command.clone()),
            sha256: bot.fingerprint(),
            limits,
        },
    }
}

/// Makes the bot's fresh working directory and copies its manifest's `workdir` files in
/// (without following links, off the runtime's threads).
async fn prepare_workdir(dir: &Path, spec: &BotSpec) -> std::io::Result<()> {
    let (dir, bot) = match spec {
        BotSpec::Program(bot) => (dir.to_path_buf(), Some(bot.clone())),
        _ => (dir.to_path_buf(), None),
    };
    tokio::task::spawn_blocking(move || {
        if dir.exists() {
            std::fs::remove_dir_all(&dir)?;
        }
        // Never its parents: this may finish after its game was dropped (a blocking task
        // runs to its end) and must not make the removed game folder anew.
        std::fs::create_dir(&dir)?;
        if let Some(bot) = bot {
            bot.copy_workdir(&dir)?;
        }
        Ok(())
    })
    .await
    // Cancelled when the runtime shuts down with the game (a match stopped early).
    .unwrap_or_else(|cancelled| Err(std::io::Error::other(cancelled)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn a_chess_clock_takes_each_move_off_and_adds_the_increment_and_each_controls_time() {
        // 40/60+0.6 as fastchess writes it, with a 50 ms margin.
        let limits =
            Limits { game_time: Some(ms(60_000)), increment: Some(ms(600)), moves_to_go: Some(2), margin: Some(ms(50)), ..Limits::NONE };
        let mut clock = Clock::new(&limits);
        assert!(clock.checks_each_move(&limits));
        assert_eq!(clock.moves_to_go(&limits), Some(2));
        clock.after_move(&limits, ms(10_000));
        assert_eq!((clock.left, clock.moves_to_go(&limits)), (Some(ms(50_600)), Some(1)));
        // The control's last move: its time taken off, then the increment and the
        // next control's 60 s added.
        clock.after_move(&limits, ms(600));
        assert_eq!((clock.left, clock.moves_to_go(&limits)), (Some(ms(110_600)), Some(2)));
        // A move within the margin leaves the clock at zero, plus the increment.
        let mut short = Clock { left: Some(ms(100)), moves: 0 };
        short.after_move(&limits, ms(130));
        assert_eq!(short.left, Some(ms(600)));
        // The referee's verdict on a move against the clock at its start.
        let turn = TurnClock { game_time_left: Some(ms(100)), margin: Some(ms(50)), ..TurnClock::default() };
        assert_eq!(turn.late(ms(150)), None, "within the margin");
        let late = turn.late(ms(151)).expect("past the margin");
        assert_eq!(late.kind, FaultKind::Timeout);
        assert_eq!(late.detail, "lost on time: the move took 0.151 s, its clock showed 0.100 s at the start of the move, margin 0.050 s");
        assert_eq!(turn.wall_limit(), Some(ms(150)), "the deadline is the clock and the margin");
    }

    #[test]
    fn a_plain_game_budget_is_no_chess_clock() {
        // Nupud's 5 minutes: no increment, no control, no margin.
        let limits = Limits { game_time: Some(ms(300_000)), ..Limits::NONE };
        let mut clock = Clock::new(&limits);
        assert!(!clock.checks_each_move(&limits));
        clock.after_move(&limits, ms(1_000));
        assert_eq!(clock.left, Some(ms(299_000)));
        // An increment of zero is a chess clock without increment (tc=60).
        let sudden = Limits { increment: Some(Duration::ZERO), ..limits };
        assert!(Clock::new(&sudden).checks_each_move(&sudden));
    }
}
