//! The Connect Four interface (seed 002): the bot is a TCP client of a server of ours,
//! speaking the line protocol of `docs/protocols/connect4-tcp.md`. For each game the
//! driver listens on `127.0.0.1:0` (in the sandbox, inside a network namespace made for
//! the bot alone, where that listener is all there is: `jail::netns`), starts the bot
//! with the address in `ARBITER_ADDR`,
//! accepts its connection, greets it, reads its name and plays the game over the
//! connection, pausing the bot between its moves. The seed's limit is a CPU budget per
//! game (the bot's whole process group, start-up included), so the wall-clock limit of a
//! move is the CPU time left.
//!
//! The same module holds the host's side of a game between two remote clients
//! (`arbiter host connect4`, the seed's test environment): [`Remote`] and
//! [`play_remote_game`]. Remote clients are not our processes: no CPU budget, a per-move
//! wall-clock limit instead.

use std::path::Path;
use std::process::ExitStatus;
use std::time::{Duration, Instant};

use protocols::connect4_tcp::{ClientMessage, GameResult, ServerMessage, VERSION};
use rules::connect4::{self, Position};
use rules::{Game, Outcome, Registered, Side};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use super::{DESCRIBE_TIME, Driver, Identity, command, exit_fault, give_up, quote};
use crate::{
    BoxFuture, Fault, FaultKind, ProgramBot, RefereeError, Reply, SeatContext, StartError, Termination, TurnClock, TurnRequest,
    is_exhaustion, read_move,
};

/// The environment variable that tells the bot where to connect (`127.0.0.1:PORT`).
pub const ADDR_VAR: &str = "ARBITER_ADDR";

/// How long a bot has to connect and send its name (less when the per-move limit is
/// shorter).
pub const START_TIME: Duration = Duration::from_secs(10);

/// The longest line read from a client; its longest message is its name.
pub const LINE_CAP: usize = 1024;

/// How long a bot may take to see `over` and `bye` and close its end.
const FAREWELL_TIME: Duration = Duration::from_millis(500);

/// Why a connection failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LinkError {
    Closed,
    TooLong(usize),
    Io(String),
}

impl std::fmt::Display for LinkError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LinkError::Closed => write!(f, "closed the connection"),
            LinkError::TooLong(cap) => write!(f, "sent more than {cap} bytes without a line end"),
            LinkError::Io(err) => write!(f, "connection failed: {err}"),
        }
    }
}

/// A TCP connection to a client: whole lines out, bounded lines in. Reads are
/// cancel-safe (nothing read is lost when a read is dropped at a deadline).
pub struct Connection {
    stream: TcpStream,
    pending: Vec<u8>,
    closed: bool,
}

impl Connection {
    pub fn new(stream: TcpStream) -> Connection {
        // Lines are small and each waits for an answer: do not let Nagle hold them.
        let _ = stream.set_nodelay(true);
        Connection { stream, pending: Vec::new(), closed: false }
    }

    /// Writes one message and its line end.
    pub async fn send(&mut self, message: &ServerMessage) -> Result<(), LinkError> {
        let mut line = message.to_line();
        line.push('\n');
        self.stream.write_all(line.as_bytes()).await.map_err(link_error)
    }

    /// Reads one line, without its line end (`\n` or `\r\n`), at most [`LINE_CAP`] bytes.
    pub async fn read_line(&mut self) -> Result<String, LinkError> {
        loop {
            if let Some(line) = jail::take_line(&mut self.pending) {
                return Ok(line);
            }
            if self.pending.len() > LINE_CAP {
                return Err(LinkError::TooLong(LINE_CAP));
            }
            if self.closed {
                return Err(LinkError::Closed);
            }
            let mut chunk = [0u8; 4096];
            match self.stream.read(&mut chunk).await {
                Ok(0) => self.closed = true,
                Ok(n) => self.pending.extend_from_slice(&chunk[..n]),
                Err(err) => return Err(link_error(err)),
            }
        }
    }
}

fn link_error(err: std::io::Error) -> LinkError {
    use std::io::ErrorKind;
    match err.kind() {
        ErrorKind::BrokenPipe | ErrorKind::ConnectionReset | ErrorKind::ConnectionAborted | ErrorKind::UnexpectedEof => LinkError::Closed,
        _ => LinkError::Io(err.to_string()),
    }
}

/// Why a guarded exchange with a bot process stopped.
enum Stop {
    Link(LinkError),
    Time(jail::TimeLimit),
    Exited(ExitStatus),
}

/// Runs `work` (an exchange over the bot's connection) while watching the bot: the
/// deadline (wall clock, and CPU time of its process group), its exit, and its stdout,
/// which is read and thrown away so that a bot printing there never blocks on a full
/// pipe.
async fn guarded<T>(
    process: &mut jail::Process,
    deadline: jail::Deadline,
    work: impl Future<Output = Result<T, LinkError>>,
) -> Result<T, Stop> {
    let pgid = process.id();
    let over_cpu = move || deadline.cpu.is_some_and(|cap| jail::group_cpu_time(pgid) >= cap);
    let wall = async {
        match deadline.wall {
            Some(at) => tokio::time::sleep_until(at.into()).await,
            None => std::future::pending().await,
        }
    };
    let cpu = async {
        if deadline.cpu.is_none() {
            return std::future::pending().await;
        }
        let mut tick = tokio::time::interval(Duration::from_millis(20));
        while !over_cpu() {
            tick.tick().await;
        }
    };
    let exit = async {
        loop {
            match process.read_line(jail::Deadline::default()).await {
                Ok(_) => {}
                Err(jail::Failure::Eof) => break,
                // An endless stdout line: stop reading it; the other watches still hold.
                Err(_) => std::future::pending::<()>().await,
            }
        }
        match process.wait(jail::Deadline::default()).await {
            Ok(status) => status,
            Err(_) => std::future::pending().await,
        }
    };
    tokio::select! {
        biased;
        out = work => out.map_err(Stop::Link),
        () = cpu => Err(Stop::Time(jail::TimeLimit::Cpu)),
        // A bot short of CPU time at the wall deadline ran out of its budget first.
        () = wall => Err(Stop::Time(if over_cpu() { jail::TimeLimit::Cpu } else { jail::TimeLimit::Wall })),
        status = exit => Err(Stop::Exited(status)),
    }
}

/// The fault for a stopped exchange; `doing` says what the bot was expected to do
/// ("answering", "sending its name").
fn stop_fault(stop: Stop, process: &mut jail::Process, clock: &TurnClock, doing: &str) -> Fault {
    let fault = match stop {
        Stop::Time(limit) => Fault::new(FaultKind::Timeout, clock.describe(limit)),
        Stop::Exited(status) => exited_fault(status, doing),
        Stop::Link(LinkError::Closed) => match process.try_exit() {
            Some(status) => exited_fault(status, doing),
            None => Fault::new(FaultKind::Crash, format!("closed the connection before {doing}")),
        },
        Stop::Link(err @ LinkError::TooLong(_)) => Fault::new(FaultKind::ProtocolError, err.to_string()),
        Stop::Link(err @ LinkError::Io(_)) => Fault::new(FaultKind::Crash, err.to_string()),
    };
    super::with_memory_cause(process, fault)
}

fn exited_fault(status: ExitStatus, doing: &str) -> Fault {
    match exit_fault(status) {
        Some(fault) => Fault::new(FaultKind::Crash, format!("{} before {doing}", fault.detail)),
        None => Fault::new(FaultKind::Crash, format!("exited before {doing}")),
    }
}

/// A started bot that has connected and said its name.
struct Started {
    process: jail::Process,
    conn: Connection,
    name: String,
}

/// Starts the bot as a client of a fresh server on `127.0.0.1:0` and reads its name,
/// within `wall` and a CPU cap of `cpu` for the whole start. A bot that fails is given
/// up, with what it wrote on stderr.
async fn start(
    bot: &ProgramBot,
    workdir: &Path,
    limits: &crate::Limits,
    wall: Duration,
    cpu: Option<Duration>,
    seed: Option<u32>,
) -> Result<Started, StartError> {
    let ours = |err: std::io::Error| RefereeError::new("cannot open the referee's server", err);
    let mut cmd = command(bot, workdir, limits, &[]);
    if let Some(seed) = seed {
        cmd.env.push((crate::SEED_VAR.into(), seed.to_string().into()));
    }
    let (listener, net) = match cmd.sandbox {
        Some(_) => listen_in_own_namespace().await.map_err(ours)?,
        None => (TcpListener::bind("127.0.0.1:0").await.map_err(ours)?, jail::Net::None),
    };
    let addr = listener.local_addr().map_err(ours)?;
    cmd.env.push((ADDR_VAR.into(), addr.to_string().into()));
    if let Some(sandbox) = &mut cmd.sandbox {
        // The one connection a sandboxed Connect Four bot may open: to this server.
        sandbox.net = net;
    }
    let mut process = super::spawn(&cmd).await?;
    match connect(&mut process, listener, addr, wall, cpu).await {
        Ok((conn, name)) => Ok(Started { process, conn, name }),
        Err(StartError::Bot { fault, .. }) => Err(StartError::Bot { fault, stderr: give_up(&mut process).await }),
        Err(err @ StartError::Referee(_)) => {
            process.kill().await;
            Err(err)
        }
    }
}

/// A listener on `127.0.0.1:0` in a network namespace made for one bot, and the network
/// its sandbox is to have; where no namespace can be made (no privilege), a listener on
/// the host's loopback, to whose port Landlock and seccomp hold the bot
/// (`arbiter sandbox-check` reports the network degraded there).
async fn listen_in_own_namespace() -> std::io::Result<(TcpListener, jail::Net)> {
    let made = tokio::task::spawn_blocking(|| {
        let namespace = jail::netns::NetNamespace::create()?;
        let listener = namespace.run(|| {
            let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
            listener.set_nonblocking(true)?;
            Ok(listener)
        })?;
        Ok::<_, std::io::Error>((namespace, listener))
    })
    .await
    .map_err(std::io::Error::other)?;
    match made {
        Ok((namespace, listener)) => {
            let port = listener.local_addr()?.port();
            Ok((TcpListener::from_std(listener)?, jail::Net::Listener { namespace: std::sync::Arc::new(namespace), port }))
        }
        Err(_) => {
            let listener = TcpListener::bind("127.0.0.1:0").await?;
            let port = listener.local_addr()?.port();
            Ok((listener, jail::Net::HostPort(port)))
        }
    }
}

/// Waits for a bot just started to connect to `listener` (at `addr`) and send its name.
async fn connect(
    process: &mut jail::Process,
    listener: TcpListener,
    addr: std::net::SocketAddr,
    wall: Duration,
    cpu: Option<Duration>,
) -> Result<(Connection, String), StartError> {
    let deadline = jail::Deadline { wall: Some(Instant::now() + wall), cpu, credit: None };
    let clock = TurnClock { move_time: Some(wall), cpu_left: cpu, ..TurnClock::default() };
    let accept = async { Ok::<_, LinkError>(listener.accept().await) };
    let stream = match guarded(process, deadline, accept).await {
        Ok(Ok((stream, _))) => stream,
        // Out of descriptors (or memory) for the connection: ours, not the bot's.
        Ok(Err(err)) if is_exhaustion(&err) => return Err(RefereeError::new("cannot accept the bot's connection", err).into()),
        Ok(Err(err)) => return Err(stop_fault(Stop::Link(link_error(err)), process, &clock, "connecting").into()),
        Err(Stop::Time(jail::TimeLimit::Wall)) => {
            return Err(Fault::new(FaultKind::Crash, format!("did not connect to {ADDR_VAR}={addr} within {}", secs(wall))).into());
        }
        Err(stop) => return Err(stop_fault(stop, process, &clock, "connecting").into()),
    };
    // One client per server: nobody else gets in after the bot.
    drop(listener);
    let mut conn = Connection::new(stream);
    let greet = async {
        conn.send(&ServerMessage::Hello { version: VERSION }).await?;
        conn.read_line().await
    };
    let line = match guarded(process, deadline, greet).await {
        Ok(line) => line,
        Err(Stop::Time(jail::TimeLimit::Wall)) => {
            return Err(Fault::new(FaultKind::Timeout, format!("sent no name within {}", secs(wall))).into());
        }
        Err(stop) => return Err(stop_fault(stop, process, &clock, "sending its name").into()),
    };
    match ClientMessage::parse(&line) {
        ClientMessage::Name(name) => Ok((conn, name)),
        _ => Err(Fault::new(FaultKind::ProtocolError, format!("answered hello with {}, not `name <name>`", quote(line.as_bytes()))).into()),
    }
}

/// `10 s`, `0.300 s`: as [`TurnClock::describe`] writes durations.
fn secs(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 { format!("{s:.0} s") } else { format!("{s:.3} s") }
}

/// A `connect4-tcp` bot in a game.
pub struct Bot {
    /// Boxed to keep [`super::Driver`] small.
    process: Box<jail::Process>,
    conn: Connection,
    side: Side,
    /// CPU time of the bot's group charged to its moves so far (start-up included).
    cpu_counted: Duration,
    /// Whether the exchange is still in step (no timeout, no broken connection), so
    /// that `over` and `bye` can be sent.
    in_step: bool,
}

impl Bot {
    /// Starts the bot, waits for its connection and name (within [`START_TIME`], or the
    /// per-move limit when that is shorter) and sends `wake`.
    pub async fn open(bot: &ProgramBot, ctx: &SeatContext) -> Result<Bot, StartError> {
        let Some(pos) = Position::from_any(&ctx.start) else {
            return Err(StartError::Referee(RefereeError::wrong_game(&bot.manifest.name, Position::KIND, ctx.start.kind())));
        };
        let wall = ctx.limits.move_time.map_or(START_TIME, |limit| limit.min(START_TIME));
        let Started { mut process, mut conn, .. } =
            start(bot, &ctx.workdir, &ctx.limits, wall, ctx.limits.game_cpu, Some(ctx.bot_seed())).await?;
        let wake = ServerMessage::Wake { width: pos.width(), height: pos.height(), i_start: ctx.side == Side::First };
        let clock = TurnClock { move_time: Some(wall), ..TurnClock::default() };
        let sent = guarded(&mut process, jail::Deadline::wall_in(wall), conn.send(&wake)).await;
        if let Err(stop) = sent {
            let fault = stop_fault(stop, &mut process, &clock, "the game started");
            return Err(StartError::Bot { fault, stderr: give_up(&mut process).await });
        }
        process.pause().await;
        Ok(Bot { process: Box::new(process), conn, side: ctx.side, cpu_counted: Duration::ZERO, in_step: true })
    }

    /// Sends `move`, reads the column. The bot runs only from here to its answer.
    async fn play_turn(&mut self, req: &TurnRequest<'_, Position>) -> Reply<connect4::Move> {
        let pos = req.pos;
        let began = Instant::now();
        if let Err(ran) = self.process.resume() {
            self.in_step = false;
            let stderr = self.process.take_stderr().await;
            return Reply::fault(FaultKind::ProtocolError, super::ran_while_paused(ran).detail, began.elapsed(), stderr);
        }
        // The CPU cap is on the group's total: what was charged before plus what is left.
        // Without a per-move limit the wall clock allows twice the CPU time left plus a
        // second (`TurnClock::wall_limit`).
        let clock = req.clock;
        let deadline = clock.deadline_from_now(self.cpu_counted);
        let message = ServerMessage::for_turn(pos, self.side);
        let conn = &mut self.conn;
        let exchange = async {
            conn.send(&message).await?;
            conn.read_line().await
        };
        let result = guarded(&mut self.process, deadline, exchange).await;
        // Its settling before the pause is its own time.
        self.process.pause().await;
        let elapsed = began.elapsed();
        let cpu_now = self.process.cpu_time().max(self.cpu_counted);
        let cpu = cpu_now - self.cpu_counted;
        self.cpu_counted = cpu_now;
        let answer = match result {
            Ok(line) => match ClientMessage::parse(&line) {
                // Answered, but after the budget ran out (between two looks at the clock).
                ClientMessage::Column(_) if deadline.cpu.is_some_and(|cap| cpu_now > cap) => {
                    Err(Fault::new(FaultKind::Timeout, clock.describe(jail::TimeLimit::Cpu)))
                }
                // A column off the board is an illegal move (the seed's "non-existent
                // column"), which the rules decide when the referee plays it.
                ClientMessage::Column(column) => read_move(pos, &column.to_string(), FaultKind::ProtocolError),
                _ => Err(Fault::new(FaultKind::ProtocolError, format!("answered {} instead of a column", quote(line.as_bytes())))),
            },
            Err(Stop::Time(jail::TimeLimit::Wall)) if req.clock.move_time.is_none() && req.clock.cpu_left.is_some() => {
                self.in_step = false;
                let waited = clock.wall_limit().map(secs).unwrap_or_default();
                Err(Fault::new(FaultKind::Timeout, format!("out of time (no answer within {waited}, twice the CPU time left and 1 s)")))
            }
            Err(stop) => {
                self.in_step = false;
                Err(stop_fault(stop, &mut self.process, &clock, "answering"))
            }
        };
        let stderr = self.process.take_stderr().await;
        // What the referee wrote on the connection for this turn.
        let input = format!("{}\n", message.to_line());
        Reply { answer, elapsed, cpu, waited: jail::Waits::default(), stderr, input }
    }

    /// Sends `over` and `bye`, gives the bot a moment to close its end, and kills
    /// whatever of it is left.
    async fn end(&mut self, outcome: &Outcome) {
        if self.in_step {
            let _ = self.process.resume();
            let result = GameResult::for_side(outcome.winner, self.side);
            let conn = &mut self.conn;
            let farewell = async {
                conn.send(&ServerMessage::Over(result)).await?;
                conn.send(&ServerMessage::Bye).await?;
                // Until the bot closes the connection (the sample clients exit on `bye`).
                loop {
                    conn.read_line().await?;
                }
            };
            let _: Result<(), Stop> = guarded(&mut self.process, jail::Deadline::wall_in(FAREWELL_TIME), farewell).await;
        }
        self.process.kill().await;
    }
}

impl Driver<Position> for Bot {
    fn turn<'a>(&'a mut self, req: &'a TurnRequest<'a, Position>) -> BoxFuture<'a, Result<Reply<connect4::Move>, RefereeError>> {
        Box::pin(async move { Ok(self.play_turn(req).await) })
    }

    fn finish<'a>(&'a mut self, outcome: &'a Outcome) -> BoxFuture<'a, ()> {
        Box::pin(self.end(outcome))
    }
}

/// Starts the bot, reads the name it sends after `hello`, sends `bye` and stops it.
pub async fn describe(bot: &ProgramBot, workdir: &Path, sandboxed: bool) -> Result<Option<Identity>, StartError> {
    let mut limits = crate::Limits::for_kind(Position::KIND);
    limits.sandboxed = sandboxed;
    let Started { mut process, mut conn, name } = start(bot, workdir, &limits, DESCRIBE_TIME, None, None).await?;
    let _ = tokio::time::timeout(Duration::from_millis(100), conn.send(&ServerMessage::Bye)).await;
    process.kill().await;
    Ok(Some(Identity { name, author: None, details: Vec::new() }))
}

/// A client of the host (`arbiter host connect4`): its name and its connection, until
/// the connection is lost.
pub struct Remote {
    pub name: String,
    conn: Option<Connection>,
    /// Why the connection was dropped.
    gone: Option<String>,
}

/// One game between two remote clients.
#[derive(Clone, Debug, PartialEq)]
pub struct RemoteGame {
    pub outcome: Outcome,
    pub termination: Termination,
    pub moves: Vec<String>,
}

impl Remote {
    /// Greets a client that has just connected and reads its name, within `limit`.
    pub async fn greet(stream: TcpStream, limit: Duration) -> Result<Remote, String> {
        let mut conn = Connection::new(stream);
        let exchange = async {
            conn.send(&ServerMessage::Hello { version: VERSION }).await?;
            conn.read_line().await
        };
        let line = match tokio::time::timeout(limit, exchange).await {
            Err(_) => return Err(format!("sent no name within {}", secs(limit))),
            Ok(Err(err)) => return Err(err.to_string()),
            Ok(Ok(line)) => line,
        };
        match ClientMessage::parse(&line) {
            ClientMessage::Name(name) => Ok(Remote { name, conn: Some(conn), gone: None }),
            _ => Err(format!("answered hello with {}, not `name <name>`", quote(line.as_bytes()))),
        }
    }

    pub fn is_connected(&self) -> bool {
        self.conn.is_some()
    }

    /// Why the client is gone, `None` while it is connected.
    pub fn gone(&self) -> Option<&str> {
        self.gone.as_deref()
    }

    /// Says `bye` (briefly) and closes the connection.
    pub async fn bye(&mut self, limit: Duration) {
        if let Some(conn) = &mut self.conn {
            let _ = tokio::time::timeout(limit, conn.send(&ServerMessage::Bye)).await;
        }
        self.drop_connection("said bye".to_string());
    }

    fn drop_connection(&mut self, why: String) {
        if self.conn.take().is_some() {
            self.gone = Some(why);
        }
    }

    fn lost_fault(&self) -> Fault {
        Fault::new(FaultKind::Crash, format!("disconnected earlier ({})", self.gone.as_deref().unwrap_or("gone")))
    }

    /// Sends a message; a client that cannot take it within `limit` is dropped.
    async fn send(&mut self, message: &ServerMessage, limit: Duration) -> Result<(), Fault> {
        let Some(conn) = &mut self.conn else { return Err(self.lost_fault()) };
        let fault = match tokio::time::timeout(limit, conn.send(message)).await {
            Ok(Ok(())) => return Ok(()),
            Ok(Err(err)) => Fault::new(FaultKind::Crash, err.to_string()),
            Err(_) => Fault::new(FaultKind::Timeout, format!("took no message for {}", secs(limit))),
        };
        self.drop_connection(fault.detail.clone());
        Err(fault)
    }

    /// Sends `move` and reads the answer within `limit`. Silence, a broken connection or
    /// an endless line drop the client: its next line could not be told from a late
    /// answer.
    async fn ask(&mut self, message: &ServerMessage, limit: Duration) -> Result<String, Fault> {
        let Some(conn) = &mut self.conn else { return Err(self.lost_fault()) };
        let exchange = async {
            conn.send(message).await?;
            conn.read_line().await
        };
        let fault = match tokio::time::timeout(limit, exchange).await {
            Ok(Ok(line)) => return Ok(line),
            Ok(Err(err @ LinkError::TooLong(_))) => Fault::new(FaultKind::ProtocolError, err.to_string()),
            Ok(Err(err)) => Fault::new(FaultKind::Crash, err.to_string()),
            Err(_) => Fault::new(FaultKind::Timeout, format!("out of time ({} per move)", secs(limit))),
        };
        self.drop_connection(fault.detail.clone());
        Err(fault)
    }
}

/// Plays one game between two remote clients from `start` (side 0 of `remotes` moves
/// first), with `move_time` per move. A fault loses the game: a garbage line or an
/// illegal column only that game, while silence, a lost connection or an endless line
/// also drop the client, which then loses every later game at once. Both clients get
/// `over` at the end. Never fails: whatever a client does is in the result.
pub async fn play_remote_game(remotes: [&mut Remote; 2], start: &Position, move_time: Duration) -> RemoteGame {
    let mut pos = start.clone();
    let mut moves = Vec::new();
    let mut termination = Termination::Rules;
    for side in Side::BOTH {
        let wake = ServerMessage::Wake { width: pos.width(), height: pos.height(), i_start: side == Side::First };
        if let Err(fault) = remotes[side.index()].send(&wake, move_time).await
            && termination == Termination::Rules
        {
            termination = fault.into_termination(side);
        }
    }
    while termination == Termination::Rules
        && let Some(side) = pos.to_move()
    {
        let asked = remotes[side.index()].ask(&ServerMessage::for_turn(&pos, side), move_time).await;
        let played = asked.and_then(|line| match ClientMessage::parse(&line) {
            ClientMessage::Column(column) => {
                let text = column.to_string();
                let mv = pos.parse_move(&text).map_err(|err| Fault::new(FaultKind::IllegalMove, err.to_string()))?;
                pos.play(&mv).map_err(|err| Fault::new(FaultKind::IllegalMove, err.to_string()))?;
                Ok(text)
            }
            _ => Err(Fault::new(FaultKind::ProtocolError, format!("answered {} instead of a column", quote(line.as_bytes())))),
        });
        match played {
            Ok(text) => moves.push(text),
            Err(fault) => termination = fault.into_termination(side),
        }
    }
    let outcome = match termination.side() {
        Some(loser) => pos.forfeit(loser),
        None => pos.outcome().expect("play stops by the rules only at the end"),
    };
    for side in Side::BOTH {
        let over = ServerMessage::Over(GameResult::for_side(outcome.winner, side));
        if remotes[side.index()].is_connected() {
            let _ = remotes[side.index()].send(&over, move_time).await;
        }
    }
    RemoteGame { outcome, termination, moves }
}
