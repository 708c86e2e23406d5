//! The doctor (`arbiter doctor BOT`): a short scripted session with a bot through its
//! interface, once in each seat, that explains every problem it finds in plain words with
//! the lines exchanged. It speaks the project's protocol and the Gomocup protocol itself
//! (so it can wait past a limit, and look at what a bot writes when its input closes);
//! the referee's drivers would stop at the first fault and say less.
//!
//! The opponent in the session is the doctor: it plays the first legal move each time
//! (a random one, from a fixed seed, in a game that cannot list its moves), so a bot that
//! ignores whose turn it is, or the opponent's moves, meets an occupied square at once.
//!
//! The doctor decides in seconds, whatever the game's budget (Connect Four's two minutes
//! of CPU time let a silent bot hang for four minutes a move): each exchange has its own
//! short bound. The bot is told at most [`EXCHANGE_TIME`] for a move (the `time` line,
//! Gomocup's `timeout_turn`), and the doctor waits that and [`GRACE`] more. A line that
//! is not an answer (a sentence instead of `move 3`) is named at once, with the line and
//! what was expected, unless a move follows within [`LINE_GRACE`] (then it is extra
//! output). What happens is told as it happens ([`Step`]), for pages that show it.

use std::path::Path;
use std::time::{Duration, Instant};

use protocols::arbiter::{self as proto, FromBot, Opponent, ToBot};
use protocols::gomocup::{self, Awaiting, Heard};
use rand::SeedableRng;
use rules::{AnyPosition, GameKind, Options, Registered, Side, gomoku};

use crate::drivers::arbiter::STARTUP_TIME;
use crate::drivers::{command, exit_fault, give_up};
use crate::{Limits, ProgramBot, Protocol, RefereeError, StartError, TurnClock};

/// A start slower than this is a problem: the referee allows [`STARTUP_TIME`], and a
/// loaded tournament machine is slower than the author's.
pub const SLOW_START: Duration = Duration::from_secs(5);

/// A bot whose memory peak passes this share of its cap is near it.
pub const MEMORY_SHARE_PERCENT: u64 = 80;

/// The bot's own moves in each session.
pub const TURNS: usize = 3;

/// How long the doctor waits for output after closing a silent bot's input.
const UNFLUSHED_WAIT: Duration = Duration::from_secs(2);

/// The most time the bot is told it has for a move in a session (less when the game's
/// limit is less): a session checks that the bot answers, not how well it uses a long
/// budget.
pub const EXCHANGE_TIME: Duration = Duration::from_secs(3);

/// How long past the time it was told the doctor waits for an answer, to tell a late
/// answer from none.
pub const GRACE: Duration = Duration::from_secs(2);

/// How long after a line that is no answer the doctor waits for an answer to follow
/// (extra output) before it names the line a wrong answer.
pub const LINE_GRACE: Duration = Duration::from_secs(1);

/// How many lines of the exchange a problem shows (the last ones).
const EXCHANGE_TAIL: usize = 14;

/// What kind of problem the doctor found.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ProblemKind {
    NoHandshake,
    WrongFormat,
    IllegalMove,
    Unflushed,
    LateAnswer,
    ExtraOutput,
    Crash,
    SlowStart,
    MemoryNearCap,
}

impl ProblemKind {
    /// The problem's name for people.
    pub fn title(self) -> &'static str {
        match self {
            ProblemKind::NoHandshake => "no handshake",
            ProblemKind::WrongFormat => "answer in the wrong format",
            ProblemKind::IllegalMove => "a move for the wrong side or an illegal move",
            ProblemKind::Unflushed => "unflushed output",
            ProblemKind::LateAnswer => "no answer in time",
            ProblemKind::ExtraOutput => "writes to stdout besides its answers",
            ProblemKind::Crash => "crash",
            ProblemKind::SlowStart => "slow start",
            ProblemKind::MemoryNearCap => "memory near the cap",
        }
    }

    /// Whether the referee would end a game on it (every problem but extra output, a
    /// slow start and memory near the cap: those are warnings the bot may survive; the
    /// referee counts extra output as a protocol error, which the games then show).
    pub fn ends_game(self) -> bool {
        !matches!(self, ProblemKind::ExtraOutput | ProblemKind::SlowStart | ProblemKind::MemoryNearCap)
    }
}

/// One line of the exchange.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// Written by the doctor (`>`), or by the bot (`<`).
    pub to_bot: bool,
    pub text: String,
}

/// A problem, explained.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub kind: ProblemKind,
    /// The seat the bot had in the session.
    pub side: Side,
    /// What happened and what to do, in plain words.
    pub explanation: String,
    /// The last lines exchanged until the problem showed.
    pub exchange: Vec<Line>,
    /// What the bot wrote on stderr, where it helps (a crash).
    pub stderr: String,
}

/// What the doctor does, told as it happens.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// A session begins, the bot in `side`.
    Session { side: Side },
    /// A line written to the bot or read from it.
    Line { side: Side, line: Line },
    /// A move of the bot accepted (its `number`th of the session).
    Move { side: Side, number: usize, text: String },
    /// A problem found.
    Problem(Problem),
}

/// What the doctor found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Checkup {
    /// The bot's moves accepted over the sessions.
    pub moves: usize,
    pub problems: Vec<Problem>,
}

impl Checkup {
    /// Whether the bot is fit to enter: no problem at all.
    pub fn is_fit(&self) -> bool {
        self.problems.is_empty()
    }
}

/// Whether the doctor speaks this interface itself.
pub fn speaks(protocol: Protocol) -> bool {
    matches!(protocol, Protocol::Arbiter | Protocol::Gomocup)
}

/// Examines a bot of the project's protocol or the Gomocup protocol in a game of `kind`:
/// builds it if needed, then one session in each seat, in working folders made under
/// `workdir_root`. A bot's problems are in the checkup; an `Err` is our own failure.
pub async fn examine(
    bot: &ProgramBot,
    kind: GameKind,
    options: &Options,
    limits: &Limits,
    workdir_root: &Path,
) -> Result<Checkup, RefereeError> {
    examine_with(bot, kind, options, limits, workdir_root, &mut |_| {}).await
}

/// [`examine`], telling each [`Step`] to `on_step` as it happens.
pub async fn examine_with(
    bot: &ProgramBot,
    kind: GameKind,
    options: &Options,
    limits: &Limits,
    workdir_root: &Path,
    on_step: &mut (dyn FnMut(Step) + Send),
) -> Result<Checkup, RefereeError> {
    let mut checkup = Checkup::default();
    if let Err(err) = bot.build_if_needed(limits.sandboxed).await {
        if err.is_ours() {
            return Err(RefereeError::new("cannot build the bot", std::io::Error::other(err.to_string())));
        }
        let explanation = format!("its build failed, so it cannot start: {err}");
        let problem = Problem { kind: ProblemKind::Crash, side: Side::First, explanation, exchange: Vec::new(), stderr: String::new() };
        on_step(Step::Problem(problem.clone()));
        checkup.problems.push(problem);
        return Ok(checkup);
    }
    for side in Side::BOTH {
        on_step(Step::Session { side });
        let workdir = workdir_root.join(format!("side-{}", side.index()));
        // Folders and copies block: not on a runtime thread.
        let (program, folder) = (bot.clone(), workdir.clone());
        tokio::task::spawn_blocking(move || {
            std::fs::create_dir_all(&folder).map_err(|err| RefereeError::new("cannot make a working folder", err))?;
            program.copy_workdir(&folder).map_err(|err| RefereeError::new("cannot copy the bot's workdir", err))
        })
        .await
        .expect("the working folder task does not panic")?;
        // A game that needs a start (Pah-tum's blocked squares) gets one from a fixed seed.
        let setup_error = |err: rules::SetupError| RefereeError::new("cannot set up the game", std::io::Error::other(err.to_string()));
        let start_text = kind.random_start(options, &mut rand::rngs::ChaCha8Rng::seed_from_u64(1)).map_err(setup_error)?;
        let start = kind.new_position(options, start_text.as_deref()).map_err(setup_error)?;
        let dialect = match bot.manifest.protocol {
            Protocol::Gomocup => Dialect::Gomocup { told: false },
            _ => Dialect::Arbiter,
        };
        let cmd = command(bot, &workdir, limits, &[]);
        let process = match crate::drivers::spawn(&cmd).await {
            Ok(process) => process,
            Err(StartError::Referee(err)) => return Err(err),
            Err(StartError::Bot { fault, stderr }) => {
                let explanation = format!("it cannot be started: {}", fault.detail);
                let problem = Problem { kind: ProblemKind::Crash, side, explanation, exchange: Vec::new(), stderr: stderr.text };
                on_step(Step::Problem(problem.clone()));
                checkup.problems.push(problem);
                return Ok(checkup);
            }
        };
        let mut session = Session {
            process,
            dialect,
            side,
            limits: *limits,
            transcript: Vec::new(),
            stderr: String::new(),
            problems: Vec::new(),
            memory_peak: 0,
            on_step: &mut *on_step,
        };
        checkup.moves += session.run(start, options).await;
        let at_start =
            session.problems.iter().any(|p| matches!(p.kind, ProblemKind::NoHandshake | ProblemKind::Unflushed | ProblemKind::SlowStart));
        checkup.problems.append(&mut session.problems);
        if at_start {
            // The other seat starts the same way: nothing new to learn there.
            break;
        }
    }
    Ok(checkup)
}

/// How a session ended early.
struct Stop;

/// The interface spoken in a session.
enum Dialect {
    Arbiter,
    Gomocup { told: bool },
}

/// What a line of the bot means to the doctor.
enum Said {
    /// A line of the interface that needs nothing (a name, a `MESSAGE`).
    Fine,
    /// The end of the handshake (`ready`, `OK`).
    Ready,
    /// A move, in the game's notation.
    Move(String),
    /// A refusal to play (Gomocup's `ERROR` to `START`).
    Refused(String),
    /// A move written the wrong way: why.
    Misformed(String),
    /// A line that has no place here.
    Extra,
}

impl Dialect {
    fn hello(&self) -> Vec<String> {
        match self {
            Dialect::Arbiter => vec![ToBot::Hello { version: proto::VERSION }.to_string()],
            Dialect::Gomocup { .. } => vec![format!("START {}", gomoku::SIZE)],
        }
    }

    fn handshake_words(&self) -> &'static str {
        match self {
            Dialect::Arbiter => {
                "after \"arbiter 1\" the bot writes \"name ...\", \"author ...\" and \"reuse\" (each optional) and then \"ready\""
            }
            Dialect::Gomocup { .. } => "after \"START 10\" the engine writes \"OK\"",
        }
    }

    fn hear_hello(&self, line: &str) -> Said {
        match self {
            Dialect::Arbiter => match FromBot::parse(line) {
                FromBot::Name(_) | FromBot::Author(_) | FromBot::Reuse => Said::Fine,
                FromBot::Ready => Said::Ready,
                _ => Said::Extra,
            },
            Dialect::Gomocup { .. } => match Awaiting::Ok.hear(line) {
                Heard::Nothing | Heard::Log(_) => Said::Fine,
                Heard::Ok => Said::Ready,
                Heard::Refused(said) => Said::Refused(said),
                _ => Said::Extra,
            },
        }
    }

    fn setup(&self, kind: GameKind, options: &Options, side: Side, start: &AnyPosition, limits: &Limits) -> Vec<String> {
        match self {
            Dialect::Arbiter => {
                let start = start.start_text().map(|text| proto::encode_start(kind, &text));
                [ToBot::Game { kind, options: proto::all_options(kind, options) }, ToBot::Side(side), ToBot::Start(start)]
                    .iter()
                    .map(ToString::to_string)
                    .collect()
            }
            Dialect::Gomocup { .. } => {
                let ms = |d: Option<Duration>| d.map(|d| d.as_millis() as u64);
                // The time per turn the engine is told is the doctor's (at most EXCHANGE_TIME).
                let turn = Some(limits.move_time.map_or(EXCHANGE_TIME, |t| t.min(EXCHANGE_TIME)));
                let infos = gomocup::game_infos(ms(turn), ms(limits.game_time), limits.memory);
                infos.iter().flat_map(|c| c.format().lines().map(str::to_string).collect::<Vec<_>>()).collect()
            }
        }
    }

    fn turn(&mut self, pos: &AnyPosition, side: Side, last: Option<&str>, time: Option<Duration>) -> Vec<String> {
        match self {
            Dialect::Arbiter => {
                let mut lines = Vec::new();
                match last {
                    Some(_) if pos.hides_last_move() => lines.push(ToBot::Opponent(Opponent::Hidden)),
                    Some(text) => lines.push(ToBot::Opponent(Opponent::Move(text.to_string()))),
                    None => {}
                }
                lines.push(ToBot::Position(pos.position_line()));
                if let Some(legal) = pos.legal_moves_text() {
                    lines.push(ToBot::Legal(legal));
                }
                lines.push(ToBot::Time(time.map(|t| t.as_millis() as u64)));
                lines.push(ToBot::Go);
                lines.iter().map(ToString::to_string).collect()
            }
            Dialect::Gomocup { told } => {
                let pos = gomoku::Position::from_any(pos).expect("a Gomocup session plays Gomoku");
                let command = gomocup::turn_command(pos, side, *told);
                *told = true;
                command.format().lines().map(str::to_string).collect()
            }
        }
    }

    /// The answer awaited, with an example legal here (a Gomoku square is no Connect
    /// Four move).
    fn move_words(&self, pos: &AnyPosition) -> String {
        match self {
            Dialect::Arbiter => {
                let example = pos.legal_moves_text().and_then(|legal| legal.into_iter().next());
                match example {
                    Some(example) => format!("\"move <move>\" in {}'s notation, e.g. \"move {example}\"", pos.kind()),
                    None => format!("\"move <move>\" in {}'s notation", pos.kind()),
                }
            }
            Dialect::Gomocup { .. } => "the move as x,y, e.g. \"1,7\"".to_string(),
        }
    }

    /// The answers awaited after the handshake's first line, for a wrong one.
    fn hello_words(&self) -> &'static str {
        match self {
            Dialect::Arbiter => "\"name ...\", \"author ...\", \"reuse\" or \"ready\"",
            Dialect::Gomocup { .. } => "OK (or MESSAGE, DEBUG, ERROR)",
        }
    }

    fn hear_move(&self, pos: &AnyPosition, line: &str) -> Said {
        match self {
            Dialect::Arbiter => match FromBot::parse(line) {
                FromBot::Move(text) => match pos.check_text(&text) {
                    Err(rules::MoveError::Parse { reason, .. }) => {
                        Said::Misformed(format!("{text:?} is no move of {}: {reason}", pos.kind()))
                    }
                    _ => Said::Move(text),
                },
                // A bare move, without its keyword.
                _ if !line.trim().is_empty() && pos.check_text(line.trim()).is_ok() => {
                    Said::Misformed(format!("the answer is \"move {}\", with the word move", line.trim()))
                }
                _ => Said::Extra,
            },
            Dialect::Gomocup { .. } => match Awaiting::Move.hear(line) {
                Heard::Nothing | Heard::Log(_) => Said::Fine,
                Heard::Move(cell) => match cell.to_move() {
                    Some(mv) => Said::Move(mv.to_string()),
                    None => Said::Misformed(format!("{cell} is off the 10×10 board (x and y go from 0 to 9)")),
                },
                _ if gomoku::Move::parse(line).is_ok() => {
                    Said::Misformed(format!("{:?} is Arbiter's notation; a Gomocup engine answers x,y from 0 (B7 is 1,7)", line.trim()))
                }
                _ => Said::Extra,
            },
        }
    }

    fn bye(&self) -> String {
        match self {
            Dialect::Arbiter => ToBot::Quit.to_string(),
            Dialect::Gomocup { .. } => "END".to_string(),
        }
    }

    fn stdout_advice(&self) -> &'static str {
        match self {
            Dialect::Arbiter => "the referee counts any other line as a protocol error and the bot loses; write debug output to stderr",
            Dialect::Gomocup { .. } => {
                "the referee counts any other line as a protocol error and the engine loses; write debug output as DEBUG or MESSAGE lines, or to stderr"
            }
        }
    }
}

/// One session: the bot in one seat.
struct Session<'a> {
    process: jail::Process,
    dialect: Dialect,
    side: Side,
    limits: Limits,
    transcript: Vec<Line>,
    stderr: String,
    problems: Vec<Problem>,
    memory_peak: u64,
    on_step: &'a mut (dyn FnMut(Step) + Send),
}

impl Session<'_> {
    /// Plays the session; the bot's accepted moves.
    async fn run(&mut self, mut pos: AnyPosition, options: &Options) -> usize {
        let kind = pos.kind();
        let start = pos.clone();
        let mut moves = 0;
        let result = async {
            self.handshake().await?;
            let setup = self.dialect.setup(kind, options, self.side, &pos, &self.limits);
            self.send(&setup).await?;
            let mut last: Option<String> = None;
            let mut rng = rand::rngs::ChaCha8Rng::seed_from_u64(0);
            while moves < TURNS && pos.outcome().is_none() {
                if pos.to_move() != Some(self.side) {
                    // The doctor's move: the first legal one (or a random one from a
                    // fixed seed where moves cannot be listed).
                    let text = match pos.legal_moves_text() {
                        Some(legal) => legal.into_iter().next(),
                        None => pos.random_move_text(&mut rng),
                    };
                    let Some(text) = text else { break };
                    last = Some(pos.play_text(&text).expect("the doctor's move is legal"));
                    continue;
                }
                let text = self.turn(&pos, &start, last.as_deref(), moves).await?;
                pos.play_text(&text).expect("the move was checked");
                moves += 1;
                (self.on_step)(Step::Move { side: self.side, number: moves, text });
            }
            Ok::<(), Stop>(())
        }
        .await;
        if result.is_ok() {
            let bye = self.dialect.bye();
            let _ = self.send(&[bye]).await;
            let _ = self.process.wait(jail::Deadline::wall_in(crate::drivers::arbiter::QUIT_GRACE)).await;
        }
        self.check_memory();
        self.process.kill().await;
        moves
    }

    async fn handshake(&mut self) -> Result<(), Stop> {
        let began = Instant::now();
        let hello = self.dialect.hello();
        self.send(&hello).await?;
        let mut deadline = jail::Deadline::wall_in(STARTUP_TIME);
        let mut extra = Vec::new();
        loop {
            match self.read(deadline).await {
                Ok(line) => match self.dialect.hear_hello(&line) {
                    Said::Fine => {}
                    Said::Ready => break,
                    Said::Refused(said) => {
                        let explanation = format!(
                            "it refused to start: it answered {said:?} to START 10. Arbiter's Gomoku is played on a 10×10 board only; the engine must answer OK to START 10"
                        );
                        self.problem(ProblemKind::NoHandshake, explanation);
                        return Err(Stop);
                    }
                    Said::Move(_) | Said::Misformed(_) | Said::Extra => {
                        if extra.is_empty() {
                            deadline = sooner(deadline, LINE_GRACE);
                        }
                        extra.push(line);
                    }
                },
                Err(jail::Failure::Timeout(_)) if !extra.is_empty() => {
                    let explanation = format!(
                        "it answered {:?} to {:?}, where {} is expected, and wrote nothing more within {} s: the referee would end the game at that line as a protocol error; {}",
                        extra[0],
                        hello[0],
                        self.dialect.hello_words(),
                        LINE_GRACE.as_secs(),
                        self.dialect.stdout_advice()
                    );
                    self.problem(ProblemKind::WrongFormat, explanation);
                    return Err(Stop);
                }
                Err(jail::Failure::Timeout(_)) => {
                    let words = self.dialect.handshake_words();
                    let silent = self.unflushed().await;
                    let explanation = match silent {
                        Some(text) => {
                            let kind = ProblemKind::Unflushed;
                            let explanation = format!(
                                "it wrote nothing within {} s of its start, but when its input was closed it wrote {text:?}: its output sits in a buffer until it exits. Flush stdout after every line (print(..., flush=True), fflush(stdout), System.out.flush())",
                                STARTUP_TIME.as_secs()
                            );
                            self.problem(kind, explanation);
                            return Err(Stop);
                        }
                        None => format!("it did not finish the handshake within {} s of its start: {words}", STARTUP_TIME.as_secs()),
                    };
                    self.problem(ProblemKind::NoHandshake, explanation);
                    return Err(Stop);
                }
                Err(failure) => return Err(self.crashed(failure, "during the handshake").await),
            }
        }
        if !extra.is_empty() {
            let explanation = format!(
                "during the handshake it wrote {} line(s) that have no place there ({}): {}",
                extra.len(),
                quoted(&extra),
                self.dialect.stdout_advice()
            );
            self.problem(ProblemKind::ExtraOutput, explanation);
        }
        let took = began.elapsed();
        if took > SLOW_START {
            let explanation = format!(
                "it took {:.1} s from its start to the end of its handshake; the referee allows {} s, and a loaded tournament machine is slower than yours. Load books and tables lazily, or faster",
                took.as_secs_f64(),
                STARTUP_TIME.as_secs()
            );
            self.problem(ProblemKind::SlowStart, explanation);
        }
        Ok(())
    }

    /// One turn of the bot; the move it played, checked. The bot is told at most
    /// [`EXCHANGE_TIME`] (the game's own time when less) and gets [`GRACE`] more.
    async fn turn(&mut self, pos: &AnyPosition, start: &AnyPosition, last: Option<&str>, own_moves: usize) -> Result<String, Stop> {
        let clock = TurnClock {
            move_time: self.limits.move_time,
            game_time_left: self.limits.game_time,
            cpu_left: self.limits.game_cpu,
            move_cpu: self.limits.move_cpu,
            ..TurnClock::default()
        };
        // The referee's wait for this turn, and what the bot is told here.
        let limit = clock.wall_limit();
        let told = clock.announced().map_or(EXCHANGE_TIME, |announced| announced.min(EXCHANGE_TIME));
        let lines = self.dialect.turn(pos, self.side, last, Some(told));
        let asked = lines.last().cloned().unwrap_or_default();
        self.send(&lines).await?;
        let began = Instant::now();
        let patience = told + GRACE;
        let mut deadline = jail::Deadline::wall_in(patience);
        let mut extra = Vec::new();
        let text = loop {
            let line = match self.read(deadline).await {
                Ok(line) => line,
                Err(jail::Failure::Timeout(_)) if !extra.is_empty() => {
                    let explanation = format!(
                        "it answered {:?} to {asked:?} and no move followed within {} s: the answer is {}. The referee would have ended the game at that line as a protocol error",
                        extra[0],
                        LINE_GRACE.as_secs(),
                        self.dialect.move_words(pos)
                    );
                    self.problem(ProblemKind::WrongFormat, explanation);
                    return Err(Stop);
                }
                Err(jail::Failure::Timeout(_)) => {
                    let explanation = match self.unflushed().await {
                        Some(text) => {
                            let explanation = format!(
                                "it gave no answer, but when its input was closed it wrote {text:?}: its output sits in a buffer until it exits. Flush stdout after every line (print(..., flush=True), fflush(stdout))"
                            );
                            self.problem(ProblemKind::Unflushed, explanation);
                            return Err(Stop);
                        }
                        None => format!(
                            "it gave no answer within {:.1} s of {asked:?}, though it was told it had {:.2} s for the move; {}. Check that it answers every {asked:?} and keeps to the time it is told",
                            patience.as_secs_f64(),
                            told.as_secs_f64(),
                            referee_wait(limit, patience)
                        ),
                    };
                    self.problem(ProblemKind::LateAnswer, explanation);
                    return Err(Stop);
                }
                Err(failure) => return Err(self.crashed(failure, "before its move").await),
            };
            match self.dialect.hear_move(pos, &line) {
                Said::Fine | Said::Ready => {}
                Said::Extra | Said::Refused(_) => {
                    // A move may still follow (extra output), soon; else this was the answer.
                    if extra.is_empty() {
                        deadline = sooner(deadline, LINE_GRACE);
                    }
                    extra.push(line);
                }
                Said::Misformed(why) => {
                    let explanation = format!("it answered {line:?}: {why}. The answer is {}", self.dialect.move_words(pos));
                    self.problem(ProblemKind::WrongFormat, explanation);
                    return Err(Stop);
                }
                Said::Move(text) => break text,
            }
        };
        let took = began.elapsed();
        self.collect_stderr().await;
        self.memory_peak = self.memory_peak.max(group_memory_peak(self.process.id()).await);
        // Once a session is enough: a bot that writes extra lines does so every turn.
        if !extra.is_empty() && !self.problems.iter().any(|p| p.kind == ProblemKind::ExtraOutput) {
            let explanation =
                format!("before its move it wrote {} other line(s) ({}): {}", extra.len(), quoted(&extra), self.dialect.stdout_advice());
            self.problem(ProblemKind::ExtraOutput, explanation);
        }
        if let Some(limit) = limit
            && took > limit
        {
            let explanation = format!(
                "it answered after {:.2} s, but the limit is {}: the referee would have ended the game as a timeout. Keep a margin: stop thinking well before the time the `time` line (or timeout_turn) gives",
                took.as_secs_f64(),
                limit_words(Some(limit))
            );
            self.problem(ProblemKind::LateAnswer, explanation);
            return Err(Stop);
        }
        match pos.check_text(&text) {
            Ok(canonical) => Ok(canonical),
            Err(err) => {
                let mut explanation = format!("it played {text:?}, which the rules refuse here: {err}");
                if self.side == Side::Second && own_moves == 0 && start.check_text(&text).is_ok() {
                    explanation.push_str(
                        ". That move is the first player's at the start: the bot plays side 1 here (the second player), after the opponent's move; does it read its side and the opponent's moves?",
                    );
                }
                self.problem(ProblemKind::IllegalMove, explanation);
                Err(Stop)
            }
        }
    }

    /// After a silent spell: closes the bot's input and returns what it writes in the
    /// next moments, if anything (output held in a buffer until exit).
    async fn unflushed(&mut self) -> Option<String> {
        self.process.close_stdin();
        let output = self.process.read_to_end(jail::Deadline::wall_in(UNFLUSHED_WAIT)).await.ok()?;
        let text = String::from_utf8_lossy(&output).trim_end().to_string();
        for line in text.lines() {
            self.transcript.push(Line { to_bot: false, text: line.to_string() });
        }
        (!text.is_empty()).then_some(text)
    }

    /// The bot's output closed or a pipe broke: how it ended, with its stderr.
    async fn crashed(&mut self, failure: jail::Failure, when: &str) -> Stop {
        let failure_kind = if matches!(failure, jail::Failure::TooLong(_)) { FailureKind::TooLong } else { FailureKind::Ended };
        let detail = match failure {
            jail::Failure::TooLong(cap) => format!("wrote a line longer than {cap} bytes"),
            jail::Failure::Timeout(_) => "ran out of time".to_string(),
            // Its output closed or a pipe broke: how it exited says what happened.
            _ => {
                let status = self.process.wait(jail::Deadline::wall_in(Duration::from_millis(500))).await;
                match status.ok().map(exit_fault) {
                    Some(Some(fault)) => fault.detail,
                    Some(None) => "exited with status 0".to_string(),
                    None => "closed its output".to_string(),
                }
            }
        };
        let detail = crate::drivers::with_memory_cause(&self.process, crate::Fault::new(crate::FaultKind::Crash, detail)).detail;
        let log = give_up(&mut self.process).await;
        self.stderr.push_str(&log.text);
        let hint = if self.stderr.is_empty() { "it wrote nothing on stderr" } else { "its stderr is below" };
        let what = match failure_kind {
            FailureKind::Ended => format!("it ended {when}: {detail}"),
            FailureKind::TooLong => format!("{when} it {detail}, and the doctor stopped it"),
        };
        let stderr = self.stderr.clone();
        self.problem_with(ProblemKind::Crash, format!("{what}; {hint}"), stderr);
        Stop
    }

    fn check_memory(&mut self) {
        let Some(cap) = self.limits.memory else { return };
        if self.memory_peak * 100 > cap * MEMORY_SHARE_PERCENT {
            let mb = |bytes: u64| bytes / (1024 * 1024);
            let explanation = format!(
                "its processes reserved up to {} MB of address space, more than {MEMORY_SHARE_PERCENT}% of its cap of {} MB: a bigger position or another machine's libraries can take it over the cap, and then it is killed. Reserve less (smaller tables, fewer threads)",
                mb(self.memory_peak),
                mb(cap)
            );
            self.problem(ProblemKind::MemoryNearCap, explanation);
        }
    }

    async fn collect_stderr(&mut self) {
        let log = self.process.take_stderr().await;
        if self.stderr.len() < self.limits.stderr_per_move {
            self.stderr.push_str(&log.text);
        }
    }

    async fn send(&mut self, lines: &[String]) -> Result<(), Stop> {
        let mut text = String::new();
        for line in lines {
            let said = Line { to_bot: true, text: line.clone() };
            (self.on_step)(Step::Line { side: self.side, line: said.clone() });
            self.transcript.push(said);
            text.push_str(line);
            text.push('\n');
        }
        match self.process.send(text.as_bytes(), jail::Deadline::wall_in(STARTUP_TIME)).await {
            Ok(()) => Ok(()),
            Err(failure) => Err(self.crashed(failure, "while it was being written to").await),
        }
    }

    async fn read(&mut self, deadline: jail::Deadline) -> Result<String, jail::Failure> {
        let line = self.process.read_line(deadline).await?;
        let heard = Line { to_bot: false, text: line.clone() };
        (self.on_step)(Step::Line { side: self.side, line: heard.clone() });
        self.transcript.push(heard);
        Ok(line)
    }

    fn problem(&mut self, kind: ProblemKind, explanation: String) {
        self.problem_with(kind, explanation, String::new());
    }

    /// A problem with what the bot wrote on stderr, told as a step and kept.
    fn problem_with(&mut self, kind: ProblemKind, explanation: String, stderr: String) {
        let exchange = self.transcript[self.transcript.len().saturating_sub(EXCHANGE_TAIL)..].to_vec();
        let problem = Problem { kind, side: self.side, explanation, exchange, stderr };
        (self.on_step)(Step::Problem(problem.clone()));
        self.problems.push(problem);
    }
}

/// How a failed read ended the session.
enum FailureKind {
    /// The bot ended (or closed its output, or a pipe broke).
    Ended,
    /// It wrote a line over the cap.
    TooLong,
}

/// `deadline`, or `within` from now if that is sooner.
fn sooner(deadline: jail::Deadline, within: Duration) -> jail::Deadline {
    let soon = Instant::now() + within;
    jail::Deadline { wall: Some(deadline.wall.map_or(soon, |wall| wall.min(soon))), ..deadline }
}

/// What the referee would wait, next to the doctor's `patience`.
fn referee_wait(limit: Option<Duration>, patience: Duration) -> String {
    match limit {
        Some(limit) if limit <= patience => {
            format!("the referee would have ended the game as a timeout after {}", limit_words(Some(limit)))
        }
        Some(limit) => format!(
            "the referee would wait up to {:.0} s a move in this game, and a bot that never answers holds its game that long",
            limit.as_secs_f64()
        ),
        None => "the referee would wait for as long as the game lasts".to_string(),
    }
}

fn limit_words(limit: Option<Duration>) -> String {
    match limit {
        Some(limit) => format!("{:.2} s per move", limit.as_secs_f64()),
        None => "none, but the doctor waits no longer".to_string(),
    }
}

fn quoted(lines: &[String]) -> String {
    let shown: Vec<String> = lines.iter().take(3).map(|line| format!("{line:?}")).collect();
    let more = if lines.len() > 3 { format!(" and {} more", lines.len() - 3) } else { String::new() };
    format!("{}{more}", shown.join(", "))
}

/// The sandbox helper's process name as `/proc` shows it (15 characters at most).
const HELPER_COMM: &str = "arbiter-sandbox";

/// The largest address space (`VmPeak`) of any process of the group `pgid` but the
/// sandbox helper, in bytes, read from `/proc` (0 when none can be read).
async fn group_memory_peak(pgid: i32) -> u64 {
    tokio::task::spawn_blocking(move || {
        let Ok(entries) = std::fs::read_dir("/proc") else { return 0 };
        let mut peak = 0;
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(pid) = name.to_str().filter(|n| n.bytes().all(|b| b.is_ascii_digit())) else { continue };
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { continue };
            // `pid (comm) state ppid pgrp ...`. The sandbox helper that waits beside the
            // bot is ours, not the bot's, and runs without its cap.
            let Some((head, rest)) = stat.rsplit_once(')') else { continue };
            let group = rest.split_whitespace().nth(2).and_then(|g| g.parse::<i32>().ok());
            let comm = head.split_once('(').map_or("", |(_, comm)| comm);
            if group != Some(pgid) || comm == HELPER_COMM {
                continue;
            }
            let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) else { continue };
            let kb = status
                .lines()
                .find_map(|line| line.strip_prefix("VmPeak:"))
                .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
                .unwrap_or(0);
            peak = peak.max(kb * 1024);
        }
        peak
    })
    .await
    .unwrap_or(0)
}
