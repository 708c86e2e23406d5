//! The human player: shows the position in the terminal, reads a move, and explains
//! and asks again when the move cannot be played.

use std::io::{BufRead, Write};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::{Mutex, mpsc};

use rules::{Game, Outcome, Registered, Side};

use crate::{Fault, FaultKind, LastMove, Reply, TurnRequest, read_move};

/// A person playing one side through a text input and output.
pub struct Human {
    side: Side,
    input: Box<dyn BufRead + Send>,
    output: Box<dyn Write + Send>,
}

impl Human {
    /// A human at this terminal (stdin and stdout).
    pub fn terminal(side: Side) -> Human {
        Human { side, input: Box::new(std::io::BufReader::new(std::io::stdin())), output: Box::new(std::io::stdout()) }
    }

    /// A human behind any text streams (for tests and other front ends).
    pub fn new(side: Side, input: Box<dyn BufRead + Send>, output: Box<dyn Write + Send>) -> Human {
        Human { side, input, output }
    }

    /// Shows the position, reads moves until one is legal (a person gets another try,
    /// so the move is checked here on a copy of the position, and again when the referee
    /// plays it). End of input resigns (a crash in the record: the player left).
    pub async fn turn<G: Registered>(&mut self, req: &TurnRequest<'_, G>) -> Reply<G::Move> {
        let began = Instant::now();
        let kind = G::KIND;
        let me = kind.side_names()[self.side.index()];
        let mut say = String::new();
        match &req.last_move {
            LastMove::Move(text) => say.push_str(&format!("\nYour opponent played {text}.\n")),
            LastMove::Hidden => say.push_str("\nYour opponent has made a secret move.\n"),
            LastMove::None => say.push('\n'),
        }
        say.push_str(&req.pos.picture());
        if !say.ends_with('\n') {
            say.push('\n');
        }
        say.push_str(&format!("You play {me}. Moves: {}.\n", kind.notation()));
        if let Some(scores) = req.pos.running_scores() {
            say.push_str(&format!("Scores now: {} : {}\n", scores[0], scores[1]));
        }
        let _ = self.output.write_all(say.as_bytes());
        loop {
            let _ = write!(self.output, "{me} to move> ");
            let _ = self.output.flush();
            let mut line = String::new();
            // Reading a terminal blocks; the game waits for the person anyway.
            let read = tokio::task::block_in_place(|| self.input.read_line(&mut line));
            match read {
                Ok(0) | Err(_) => {
                    return Reply::fault(FaultKind::Crash, "the human player left (end of input)", began.elapsed(), Default::default());
                }
                Ok(_) => {}
            }
            let text = line.trim_end_matches(['\n', '\r']);
            if text.trim() == "?" || text.trim() == "help" {
                let legal = if G::INFO.enumerable {
                    let mut moves = Vec::new();
                    req.pos.legal_moves(&mut moves);
                    moves.iter().map(|mv| req.pos.format_move(mv)).collect::<Vec<_>>().join(" ")
                } else {
                    "any list of orders".to_string()
                };
                let _ = writeln!(self.output, "Legal moves: {legal}");
                continue;
            }
            let checked = req.pos.parse_move(text).and_then(|mv| req.pos.clone().play(&mv).map(|()| mv));
            match checked {
                Ok(mv) => {
                    return Reply {
                        answer: Ok(mv),
                        elapsed: began.elapsed(),
                        cpu: Duration::ZERO,
                        waited: jail::Waits::default(),
                        stderr: Default::default(),
                        input: String::new(),
                    };
                }
                Err(err) => {
                    let _ = writeln!(self.output, "That move cannot be played: {err}. Try again ('?' lists the legal moves).");
                }
            }
        }
    }

    pub fn finish(&mut self, outcome: &Outcome) {
        let verdict = match outcome.winner {
            Some(side) if side == self.side => "You win!",
            Some(_) => "You lose.",
            None => "Draw.",
        };
        let scores = outcome.scores.map(|[a, b]| format!(" ({a} : {b})")).unwrap_or_default();
        let _ = writeln!(self.output, "\nGame over. {verdict}{scores}");
    }
}

/// A reply used where a human can never be asked (kept for completeness of faults).
pub fn unavailable() -> Fault {
    Fault::new(FaultKind::Crash, "no terminal for the human player")
}

/// A person playing through another front end (the web arena). The front end checks
/// each move against the position first (so that it can refuse a click with a reason)
/// and sends only the text; the referee checks it again like any bot's move. Dropping
/// the sender means the person left (a crash in the record); the side's move time
/// limit, if any, applies as to any player.
#[derive(Clone)]
pub struct Remote {
    pub name: String,
    moves: Arc<Mutex<mpsc::Receiver<String>>>,
}

impl Remote {
    /// A remote player and the sender its moves go through.
    pub fn new(name: impl Into<String>) -> (Remote, mpsc::Sender<String>) {
        let (tx, rx) = mpsc::channel(4);
        (Remote { name: name.into(), moves: Arc::new(Mutex::new(rx)) }, tx)
    }

    pub(crate) async fn turn<G: Game>(&self, req: &TurnRequest<'_, G>) -> Reply<G::Move> {
        let began = Instant::now();
        let mut moves = self.moves.lock().await;
        let next = match req.clock.wall_limit() {
            Some(limit) => match tokio::time::timeout(limit, moves.recv()).await {
                Ok(next) => next,
                Err(_) => {
                    let detail = req.clock.describe(jail::TimeLimit::Wall);
                    return Reply::fault(FaultKind::Timeout, detail, began.elapsed(), Default::default());
                }
            },
            None => moves.recv().await,
        };
        match next {
            Some(text) => Reply {
                answer: read_move(req.pos, &text, FaultKind::IllegalMove),
                elapsed: began.elapsed(),
                cpu: Duration::ZERO,
                waited: jail::Waits::default(),
                stderr: Default::default(),
                input: String::new(),
            },
            None => Reply::fault(FaultKind::Crash, "the player left", began.elapsed(), Default::default()),
        }
    }
}

impl std::fmt::Debug for Remote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Remote").field("name", &self.name).finish_non_exhaustive()
    }
}

impl PartialEq for Remote {
    fn eq(&self, other: &Remote) -> bool {
        Arc::ptr_eq(&self.moves, &other.moves)
    }
}
