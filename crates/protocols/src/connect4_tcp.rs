//! The Connect Four TCP protocol (`docs/protocols/connect4-tcp.md`): the messages of the
//! referee's server and of a client, one line each, parsed and formatted without I/O.
//!
//! Server to client: `hello connect4-tcp 1`, `wake <width> <height> <i_start 0|1>`,
//! `move <last_move or -1> <board>`, `over <win|loss|draw>`, `bye`. The board is the
//! rows top to bottom joined by `/`, one character per cell: `.` empty, `M` mine, `T`
//! theirs (as [`rules::connect4::Position::board_rows`] writes them for the client's
//! side). Client to server: `name <name>` once after `hello`, then one `<column>` line
//! per `move`.

use rules::Side;
use rules::connect4::Position;

/// The protocol's name in the greeting.
pub const PROTOCOL: &str = "connect4-tcp";

/// The protocol version this crate speaks.
pub const VERSION: u32 = 1;

/// How a game ended for the client it is sent to.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum GameResult {
    Win,
    Loss,
    Draw,
}

impl GameResult {
    pub fn name(self) -> &'static str {
        match self {
            GameResult::Win => "win",
            GameResult::Loss => "loss",
            GameResult::Draw => "draw",
        }
    }

    pub fn from_name(name: &str) -> Option<GameResult> {
        match name {
            "win" => Some(GameResult::Win),
            "loss" => Some(GameResult::Loss),
            "draw" => Some(GameResult::Draw),
            _ => None,
        }
    }

    /// The result for `me` of a game that `winner` won (`None`: a draw).
    pub fn for_side(winner: Option<Side>, me: Side) -> GameResult {
        match winner {
            None => GameResult::Draw,
            Some(side) if side == me => GameResult::Win,
            Some(_) => GameResult::Loss,
        }
    }
}

/// A line from the server to a client.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ServerMessage {
    /// `hello connect4-tcp <version>`: the first line; the client answers `name`.
    Hello { version: u32 },
    /// `wake <width> <height> <i_start>`: a game starts; `i_start` is 1 when the client
    /// moves first. No answer.
    Wake { width: usize, height: usize, i_start: bool },
    /// `move <last_move> <board>`: the client's turn; it answers a column.
    Move {
        /// The opponent's last column, `None` (`-1`) when the client makes the first move.
        last_move: Option<usize>,
        /// The board rows, top row first, cells `.` `M` `T`.
        rows: Vec<String>,
    },
    /// `over <win|loss|draw>`: the game ended. No answer.
    Over(GameResult),
    /// `bye`: no more games; the server closes the connection.
    Bye,
    /// A line that is none of the above (kept as it came).
    Unknown(String),
}

impl ServerMessage {
    /// The `move` message for `me` to play in `pos`.
    pub fn for_turn(pos: &Position, me: Side) -> ServerMessage {
        ServerMessage::Move { last_move: pos.last_move(), rows: pos.board_rows(Some(me)) }
    }

    /// Reads one line (without its line end; surrounding white space is ignored).
    pub fn parse(line: &str) -> ServerMessage {
        let words: Vec<&str> = line.split_ascii_whitespace().collect();
        let parsed = match words.as_slice() {
            ["hello", PROTOCOL, version] => version.parse().ok().map(|version| ServerMessage::Hello { version }),
            ["wake", width, height, i_start] => match (width.parse(), height.parse(), *i_start) {
                (Ok(width), Ok(height), "0" | "1") => Some(ServerMessage::Wake { width, height, i_start: *i_start == "1" }),
                _ => None,
            },
            ["move", last, board] => parse_move(last, board),
            ["over", result] => GameResult::from_name(result).map(ServerMessage::Over),
            ["bye"] => Some(ServerMessage::Bye),
            _ => None,
        };
        parsed.unwrap_or_else(|| ServerMessage::Unknown(line.to_string()))
    }

    /// The line, without its line end.
    pub fn to_line(&self) -> String {
        match self {
            ServerMessage::Hello { version } => format!("hello {PROTOCOL} {version}"),
            ServerMessage::Wake { width, height, i_start } => format!("wake {width} {height} {}", u8::from(*i_start)),
            ServerMessage::Move { last_move, rows } => {
                let last = last_move.map_or_else(|| "-1".to_string(), |x| x.to_string());
                format!("move {last} {}", rows.join("/"))
            }
            ServerMessage::Over(result) => format!("over {}", result.name()),
            ServerMessage::Bye => "bye".to_string(),
            ServerMessage::Unknown(line) => line.clone(),
        }
    }
}

fn parse_move(last: &str, board: &str) -> Option<ServerMessage> {
    let last_move = match last {
        "-1" => None,
        _ => Some(last.parse().ok()?),
    };
    let rows: Vec<String> = board.split('/').map(str::to_string).collect();
    let width = rows[0].len();
    let well_formed = width > 0 && rows.iter().all(|row| row.len() == width && row.bytes().all(|b| matches!(b, b'.' | b'M' | b'T')));
    well_formed.then_some(ServerMessage::Move { last_move, rows })
}

/// A line from a client to the server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClientMessage {
    /// `name <name>`: the answer to `hello`; the name is the rest of the line, trimmed.
    Name(String),
    /// `<column>`: the answer to `move`, a decimal integer. Whether the column exists and
    /// has room is for the rules to say.
    Column(i64),
    /// A line that is none of the above (kept as it came).
    Unknown(String),
}

impl ClientMessage {
    /// Reads one line (without its line end; surrounding white space is ignored).
    pub fn parse(line: &str) -> ClientMessage {
        let text = line.trim();
        if let Some(name) = text.strip_prefix("name ").map(str::trim)
            && !name.is_empty()
        {
            return ClientMessage::Name(name.to_string());
        }
        match text.parse() {
            Ok(column) => ClientMessage::Column(column),
            Err(_) => ClientMessage::Unknown(line.to_string()),
        }
    }

    /// The line, without its line end.
    pub fn to_line(&self) -> String {
        match self {
            ClientMessage::Name(name) => format!("name {name}"),
            ClientMessage::Column(column) => column.to_string(),
            ClientMessage::Unknown(line) => line.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rules::Game;

    #[test]
    fn server_messages_round_trip() {
        let messages = [
            ServerMessage::Hello { version: 1 },
            ServerMessage::Wake { width: 7, height: 6, i_start: true },
            ServerMessage::Wake { width: 20, height: 20, i_start: false },
            ServerMessage::Move { last_move: None, rows: vec!["....".into(), "....".into(), "....".into(), "....".into()] },
            ServerMessage::Move { last_move: Some(3), rows: vec!["....".into(), "....".into(), "...T".into(), "M..M".into()] },
            ServerMessage::Over(GameResult::Win),
            ServerMessage::Over(GameResult::Loss),
            ServerMessage::Over(GameResult::Draw),
            ServerMessage::Bye,
        ];
        for message in messages {
            assert_eq!(ServerMessage::parse(&message.to_line()), message, "{}", message.to_line());
        }
    }

    #[test]
    fn server_lines_as_documented() {
        assert_eq!(ServerMessage::Hello { version: 1 }.to_line(), "hello connect4-tcp 1");
        assert_eq!(ServerMessage::Wake { width: 7, height: 6, i_start: false }.to_line(), "wake 7 6 0");
        assert_eq!(ServerMessage::Over(GameResult::Draw).to_line(), "over draw");
        assert_eq!(ServerMessage::parse("  bye \r"), ServerMessage::Bye);
        let mut pos = Position::empty(4, 4).unwrap();
        for column in [0, 3, 0] {
            pos.play(&rules::connect4::Move::new(column)).unwrap();
        }
        assert_eq!(ServerMessage::for_turn(&pos, Side::Second).to_line(), "move 0 ..../..../T.../T..M");
        assert_eq!(ServerMessage::for_turn(&Position::empty(4, 4).unwrap(), Side::First).to_line(), "move -1 ..../..../..../....");
    }

    #[test]
    fn malformed_server_lines_are_unknown() {
        for line in [
            "",
            "hello",
            "hello other 1",
            "wake 7 6",
            "wake 7 6 2",
            "wake x 6 1",
            "move -1",
            "move 2 ..X./....",
            "move 1 .../....",
            "move a ....",
            "over maybe",
            "bye now",
        ] {
            assert_eq!(ServerMessage::parse(line), ServerMessage::Unknown(line.to_string()), "{line:?}");
        }
    }

    #[test]
    fn client_lines() {
        assert_eq!(ClientMessage::parse("name  Deep Four \r"), ClientMessage::Name("Deep Four".into()));
        assert_eq!(ClientMessage::parse("3"), ClientMessage::Column(3));
        assert_eq!(ClientMessage::parse(" 12 "), ClientMessage::Column(12));
        assert_eq!(ClientMessage::parse("-1"), ClientMessage::Column(-1));
        for line in ["", "name", "name   ", "three", "3 4", "move 3"] {
            assert_eq!(ClientMessage::parse(line), ClientMessage::Unknown(line.into()), "{line:?}");
        }
        assert_eq!(ClientMessage::Name("x y".into()).to_line(), "name x y");
        assert_eq!(ClientMessage::Column(5).to_line(), "5");
    }

    /// The example session of `docs/protocols/connect4-tcp.md`, server lines from a real
    /// game: the client moves first into column 0, the opponent into column 1.
    #[test]
    fn documented_session() {
        let mut pos = Position::empty(4, 4).unwrap();
        let mut lines = vec![ServerMessage::Hello { version: VERSION }.to_line(), ClientMessage::Name("deep-four".into()).to_line()];
        lines.push(ServerMessage::Wake { width: 4, height: 4, i_start: true }.to_line());
        while pos.outcome().is_none() {
            lines.push(ServerMessage::for_turn(&pos, Side::First).to_line());
            lines.push(ClientMessage::Column(0).to_line());
            pos.play(&rules::connect4::Move::new(0)).unwrap();
            if pos.outcome().is_none() {
                pos.play(&rules::connect4::Move::new(1)).unwrap();
            }
        }
        lines.push(ServerMessage::Over(GameResult::for_side(pos.winner(), Side::First)).to_line());
        lines.push(ServerMessage::Bye.to_line());
        let doc = include_str!("../../../docs/protocols/connect4-tcp.md");
        let session: Vec<&str> = doc
            .lines()
            .skip_while(|l| *l != "S: hello connect4-tcp 1")
            .take_while(|l| l.starts_with("S: ") || l.starts_with("C: "))
            .map(|l| &l[3..])
            .collect();
        assert_eq!(session, lines);
    }

    #[test]
    fn results_per_side() {
        assert_eq!(GameResult::for_side(Some(Side::First), Side::First), GameResult::Win);
        assert_eq!(GameResult::for_side(Some(Side::First), Side::Second), GameResult::Loss);
        assert_eq!(GameResult::for_side(None, Side::Second), GameResult::Draw);
    }
}
