//! Client library for Connect Four bots over TCP (`docs/protocols/connect4-tcp.md`):
//! connects to the referee's server or `arbiter host connect4`, speaks the line protocol
//! and calls a [`Player`]'s three functions, the seed's API. One connection plays any
//! number of games.
//!
//! ```no_run
//! use connect4_client::{Board, Player};
//!
//! struct Leftmost;
//!
//! impl Player for Leftmost {
//!     fn name(&self) -> String {
//!         "leftmost".to_string()
//!     }
//!     fn play(&mut self, board: &Board, _last_move: Option<usize>) -> usize {
//!         board.open_columns()[0]
//!     }
//! }
//!
//! connect4_client::run(&mut Leftmost, &connect4_client::address()).unwrap();
//! ```

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;

use protocols::connect4_tcp::{ClientMessage, ServerMessage};

pub use protocols::connect4_tcp::GameResult;

/// The address used when neither the command line nor `ARBITER_ADDR` gives one (the
/// default of `arbiter host`).
pub const DEFAULT_ADDR: &str = "127.0.0.1:4000";

/// A cell as the player sees it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Cell {
    Empty,
    Mine,
    Opponent,
}

/// The board as the player sees it: `cell(x, y)` with `x` the column (0 at the left)
/// and `y` the row (0 at the bottom).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Board {
    width: usize,
    height: usize,
    /// Column by column, bottom up.
    cells: Vec<Cell>,
}

impl Board {
    /// Reads the rows of a `move` message (top row first, `.` `M` `T`).
    pub fn from_rows<S: AsRef<str>>(rows: &[S]) -> Board {
        let height = rows.len();
        let width = rows.first().map_or(0, |row| row.as_ref().len());
        let mut cells = vec![Cell::Empty; width * height];
        for (row_idx, row) in rows.iter().enumerate() {
            let y = height - 1 - row_idx;
            for (x, byte) in row.as_ref().bytes().enumerate().take(width) {
                cells[x * height + y] = match byte {
                    b'M' => Cell::Mine,
                    b'T' => Cell::Opponent,
                    _ => Cell::Empty,
                };
            }
        }
        Board { width, height, cells }
    }

    pub fn width(&self) -> usize {
        self.width
    }

    pub fn height(&self) -> usize {
        self.height
    }

    /// The cell at column `x`, row `y` (row 0 at the bottom). Panics off the board.
    pub fn cell(&self, x: usize, y: usize) -> Cell {
        assert!(x < self.width && y < self.height, "cell ({x}, {y}) is off the {}x{} board", self.width, self.height);
        self.cells[x * self.height + y]
    }

    /// Whether column `x` has room for another disc.
    pub fn is_open(&self, x: usize) -> bool {
        x < self.width && self.cell(x, self.height - 1) == Cell::Empty
    }

    /// The columns with room, from left to right.
    pub fn open_columns(&self) -> Vec<usize> {
        (0..self.width).filter(|&x| self.is_open(x)).collect()
    }
}

/// A bot: a name and the seed's three functions.
pub trait Player {
    /// The name sent to the server.
    fn name(&self) -> String;

    /// A game starts on a `width` × `height` board; `i_start` when this player moves
    /// first (the seed's `wake`).
    fn wake(&mut self, width: usize, height: usize, i_start: bool) {
        let _ = (width, height, i_start);
    }

    /// This player's turn (the seed's `move`): the column to drop a disc into.
    /// `last_move` is the opponent's last column, `None` (the seed's −1) when this player
    /// makes the first move; it is already on `board`.
    fn play(&mut self, board: &Board, last_move: Option<usize>) -> usize;

    /// The game ended (the seed's `game_over`).
    fn game_over(&mut self, result: GameResult) {
        let _ = result;
    }
}

/// Why the client stopped before the server said `bye`.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error("cannot connect to {addr}: {source}")]
    Connect { addr: String, source: std::io::Error },
    #[error("connection lost: {0}")]
    Io(#[from] std::io::Error),
}

/// The server's address: the first command-line argument, else the environment
/// variable `ARBITER_ADDR`, else [`DEFAULT_ADDR`].
pub fn address() -> String {
    std::env::args().nth(1).or_else(|| std::env::var("ARBITER_ADDR").ok()).unwrap_or_else(|| DEFAULT_ADDR.to_string())
}

/// Connects to `addr` (`host:port`) and plays games for `player` until the server says
/// `bye` or closes the connection. Lines the client does not know are ignored.
pub fn run(player: &mut impl Player, addr: &str) -> Result<(), ClientError> {
    let stream = TcpStream::connect(addr).map_err(|source| ClientError::Connect { addr: addr.to_string(), source })?;
    stream.set_nodelay(true)?;
    let mut out = stream.try_clone()?;
    let mut server = BufReader::new(stream);
    let mut line = String::new();
    loop {
        line.clear();
        if server.read_line(&mut line)? == 0 {
            return Ok(());
        }
        let answer = match ServerMessage::parse(&line) {
            ServerMessage::Hello { .. } => Some(ClientMessage::Name(player.name())),
            ServerMessage::Wake { width, height, i_start } => {
                player.wake(width, height, i_start);
                None
            }
            ServerMessage::Move { last_move, rows } => {
                let column = player.play(&Board::from_rows(&rows), last_move);
                Some(ClientMessage::Column(column as i64))
            }
            ServerMessage::Over(result) => {
                player.game_over(result);
                None
            }
            ServerMessage::Bye => return Ok(()),
            ServerMessage::Unknown(_) => None,
        };
        if let Some(answer) = answer {
            writeln!(out, "{}", answer.to_line())?;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn board_from_rows_is_indexed_from_the_bottom_left() {
        let board = Board::from_rows(&["M...", "T...", "M...", "TM.T"]);
        assert_eq!((board.width(), board.height()), (4, 4));
        assert_eq!(board.cell(0, 0), Cell::Opponent);
        assert_eq!(board.cell(1, 0), Cell::Mine);
        assert_eq!(board.cell(3, 0), Cell::Opponent);
        assert_eq!(board.cell(0, 3), Cell::Mine);
        assert_eq!(board.cell(2, 0), Cell::Empty);
        assert_eq!(board.open_columns(), vec![1, 2, 3]);
    }
}
