//! The Gomocup protocol (Piskvork's "pbrain" interface, `docs/bots.md`, "gomocup") as
//! messages: the manager's commands ([`Command`]), the brain's lines ([`Answer`]), the
//! `ABOUT` line ([`About`]), and the dialogue rules of what a line means while the
//! referee waits for `OK`, a move or `ABOUT` ([`Awaiting::hear`]). Coordinates are
//! `x,y` from 0, `x` the column and `y` the row (row 0 the first line of a Gomoku field),
//! so `x,y` is the cell Arbiter writes as column letter `x` and row digit `y`.
//!
//! Decisions where the protocol text is silent or loose:
//! - The brain's keywords (`OK`, `MESSAGE`, `DEBUG`, `ERROR`, `UNKNOWN`, `SUGGEST`) are
//!   read in any case, followed by a space or the line's end; surrounding blanks and a
//!   `\r` are dropped; an empty line means nothing.
//! - A move is two decimal numbers separated by a comma, blanks allowed around each.
//! - While a move is awaited, `ERROR` and `UNKNOWN` lines are kept in the log and the
//!   wait goes on: they may answer an `INFO` line sent just before (a brain need not know
//!   every `INFO` key). While `OK` (to `START`) or the `ABOUT` line is awaited they are
//!   the brain's refusal.

use std::fmt;

use rules::Side;
use rules::gomoku::{self, Position};

/// The value Piskvork sends for "no limit" in `timeout_turn` and `time_left` (the
/// largest signed 32-bit number of milliseconds).
pub const NO_LIMIT_MS: u64 = 2_147_483_647;

/// A cell, `x` the column and `y` the row, both from 0.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Cell {
    pub x: u64,
    pub y: u64,
}

impl Cell {
    /// The cell of a Gomoku move.
    pub fn of(mv: gomoku::Move) -> Cell {
        Cell { x: mv.col() as u64, y: mv.row() as u64 }
    }

    /// The Gomoku move of this cell, `None` off the 10×10 board.
    pub fn to_move(self) -> Option<gomoku::Move> {
        gomoku::Move::new(usize::try_from(self.x).ok()?, usize::try_from(self.y).ok()?)
    }

    /// Reads `x,y` (blanks allowed around each number).
    pub fn parse(text: &str) -> Option<Cell> {
        let (x, y) = text.split_once(',')?;
        let number = |part: &str| {
            let part = part.trim_matches([' ', '\t']);
            (!part.is_empty() && part.bytes().all(|b| b.is_ascii_digit())).then(|| part.parse::<u64>().ok()).flatten()
        };
        Some(Cell { x: number(x)?, y: number(y)? })
    }
}

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{},{}", self.x, self.y)
    }
}

/// Whose a stone of a `BOARD` list is, from the brain's point of view.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Owner {
    /// `1`: the brain's own stone.
    Own,
    /// `2`: the opponent's stone.
    Opponent,
}

/// An `INFO` key and its value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Info {
    /// Milliseconds per move ([`NO_LIMIT_MS`]: none).
    TimeoutTurn(u64),
    /// Milliseconds for the whole game (0: no limit).
    TimeoutMatch(u64),
    /// Milliseconds left of the game's budget ([`NO_LIMIT_MS`]: no budget).
    TimeLeft(u64),
    /// Bytes of memory (0: no limit).
    MaxMemory(u64),
    /// 0 a human opponent, 1 a brain, 2 a tournament, 3 a network tournament.
    GameType(u64),
    /// A bit mask of rules: 0 freestyle (five or more in a row win), 1 exactly five, ...
    Rule(u64),
    /// A key the referee does not send, as read.
    Other(String, String),
}

impl fmt::Display for Info {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Info::TimeoutTurn(ms) => write!(f, "timeout_turn {ms}"),
            Info::TimeoutMatch(ms) => write!(f, "timeout_match {ms}"),
            Info::TimeLeft(ms) => write!(f, "time_left {ms}"),
            Info::MaxMemory(bytes) => write!(f, "max_memory {bytes}"),
            Info::GameType(kind) => write!(f, "game_type {kind}"),
            Info::Rule(mask) => write!(f, "rule {mask}"),
            Info::Other(key, value) => write!(f, "{key} {value}"),
        }
    }
}

impl Info {
    fn parse(text: &str) -> Info {
        let (key, value) = text.split_once(' ').unwrap_or((text, ""));
        let number = value.trim().parse::<u64>();
        match (key.to_ascii_lowercase().as_str(), number) {
            ("timeout_turn", Ok(n)) => Info::TimeoutTurn(n),
            ("timeout_match", Ok(n)) => Info::TimeoutMatch(n),
            ("time_left", Ok(n)) => Info::TimeLeft(n),
            ("max_memory", Ok(n)) => Info::MaxMemory(n),
            ("game_type", Ok(n)) => Info::GameType(n),
            ("rule", Ok(n)) => Info::Rule(n),
            _ => Info::Other(key.to_string(), value.to_string()),
        }
    }
}

/// A command of the manager (the referee) to the brain.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `START 10`: a new game on a board of that size; the brain answers `OK` or `ERROR`.
    Start(u64),
    /// `INFO key value`: no answer.
    Info(Info),
    /// `BEGIN`: the brain moves first on the empty board; it answers a move.
    Begin,
    /// `TURN x,y`: the opponent's move; the brain answers its own.
    Turn(Cell),
    /// `BOARD`, one `x,y,1|2` line per stone, `DONE`: a position to move in.
    Board(Vec<(Cell, Owner)>),
    /// `ABOUT`: the brain answers one line of `key="value"` pairs.
    About,
    /// `END`: the brain exits, without an answer.
    End,
    /// `RESTART`: a new game on the same board size in the same process; the brain
    /// answers `OK`, or `UNKNOWN`/`ERROR` if it cannot.
    Restart,
    /// A line of another command, as read.
    Other(String),
}

impl Command {
    /// The lines of this command, each ended by `\n`.
    pub fn format(&self) -> String {
        match self {
            Command::Start(size) => format!("START {size}\n"),
            Command::Info(info) => format!("INFO {info}\n"),
            Command::Begin => "BEGIN\n".to_string(),
            Command::Turn(cell) => format!("TURN {cell}\n"),
            Command::Board(stones) => {
                let mut text = "BOARD\n".to_string();
                for (cell, owner) in stones {
                    let field = match owner {
                        Owner::Own => 1,
                        Owner::Opponent => 2,
                    };
                    text.push_str(&format!("{cell},{field}\n"));
                }
                text.push_str("DONE\n");
                text
            }
            Command::About => "ABOUT\n".to_string(),
            Command::End => "END\n".to_string(),
            Command::Restart => "RESTART\n".to_string(),
            Command::Other(line) => format!("{line}\n"),
        }
    }

    /// Reads the commands of a text the referee wrote (the brain's side of the dialogue,
    /// for tests and tools). A `BOARD` runs to its `DONE`; a stone line that is not
    /// `x,y,1` or `x,y,2` makes the whole block [`Command::Other`].
    pub fn parse_all(text: &str) -> Vec<Command> {
        let mut commands = Vec::new();
        let mut lines = text.lines().map(|line| line.trim_end_matches('\r'));
        while let Some(line) = lines.next() {
            let (word, rest) = line.split_once(' ').unwrap_or((line, ""));
            let command = match word.to_ascii_uppercase().as_str() {
                "START" => rest.trim().parse().map_or_else(|_| Command::Other(line.to_string()), Command::Start),
                "INFO" => Command::Info(Info::parse(rest)),
                "BEGIN" => Command::Begin,
                "TURN" => Cell::parse(rest).map_or_else(|| Command::Other(line.to_string()), Command::Turn),
                "ABOUT" => Command::About,
                "END" => Command::End,
                "RESTART" => Command::Restart,
                "BOARD" => {
                    let block: Vec<&str> = lines.by_ref().take_while(|l| !l.eq_ignore_ascii_case("DONE")).collect();
                    let stones: Option<Vec<(Cell, Owner)>> = block.iter().map(|l| stone(l)).collect();
                    stones.map_or_else(|| Command::Other(format!("BOARD {}", block.join(" "))), Command::Board)
                }
                _ => Command::Other(line.to_string()),
            };
            commands.push(command);
        }
        commands
    }
}

fn stone(line: &str) -> Option<(Cell, Owner)> {
    let (cell, field) = line.rsplit_once(',')?;
    let owner = match field.trim() {
        "1" => Owner::Own,
        "2" => Owner::Opponent,
        _ => return None,
    };
    Some((Cell::parse(cell)?, owner))
}

/// The `ABOUT` line: `key="value"` pairs separated by commas, in the brain's order
/// (`name`, `version`, `author`, `country`, `www`, `email` are the usual keys).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct About {
    pub pairs: Vec<(String, String)>,
}

impl About {
    /// Reads an `ABOUT` line; `None` when it holds no `key="value"` pair or anything
    /// else than such pairs and commas.
    pub fn parse(line: &str) -> Option<About> {
        let mut pairs = Vec::new();
        let mut rest = line.trim();
        while !rest.is_empty() {
            let (key, after) = rest.split_once('=')?;
            let key = key.trim();
            if key.is_empty() || !key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
                return None;
            }
            let after = after.trim_start().strip_prefix('"')?;
            let (value, after) = after.split_once('"')?;
            pairs.push((key.to_ascii_lowercase(), value.to_string()));
            let after = after.trim_start();
            rest = match after.strip_prefix(',') {
                Some(more) => more.trim_start(),
                None if after.is_empty() => after,
                None => return None,
            };
        }
        (!pairs.is_empty()).then_some(About { pairs })
    }

    /// The value of `key`, if given.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.pairs.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }
}

impl fmt::Display for About {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pairs: Vec<String> = self.pairs.iter().map(|(k, v)| format!("{k}=\"{v}\"")).collect();
        write!(f, "{}", pairs.join(", "))
    }
}

/// A line the brain wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// `OK`: the answer to `START`.
    Ok,
    /// `x,y`: a move.
    Move(Cell),
    /// `MESSAGE text`: for the person watching.
    Message(String),
    /// `DEBUG text`: for the brain's author.
    Debug(String),
    /// `ERROR text`: the brain understood a command but cannot do it.
    Error(String),
    /// `UNKNOWN text`: the brain did not understand a command.
    Unknown(String),
    /// `SUGGEST x,y`: a move the brain would like the manager to play for it.
    Suggest(Cell),
    /// The `ABOUT` line.
    About(About),
    /// An empty line.
    Blank,
    /// Anything else, as read.
    Other(String),
}

impl Answer {
    /// Reads one line (without its line end; a `\r` is dropped).
    pub fn parse(line: &str) -> Answer {
        let text = line.trim_matches([' ', '\t', '\r']);
        if text.is_empty() {
            return Answer::Blank;
        }
        let (word, rest) = match text.split_once([' ', '\t']) {
            Some((word, rest)) => (word, rest.trim_start_matches([' ', '\t'])),
            None => (text, ""),
        };
        match word.to_ascii_uppercase().as_str() {
            "OK" if rest.is_empty() => Answer::Ok,
            "MESSAGE" => Answer::Message(rest.to_string()),
            "DEBUG" => Answer::Debug(rest.to_string()),
            "ERROR" => Answer::Error(rest.to_string()),
            "UNKNOWN" => Answer::Unknown(rest.to_string()),
            "SUGGEST" => Cell::parse(rest).map_or_else(|| Answer::Other(line.to_string()), Answer::Suggest),
            _ => match (Cell::parse(text), About::parse(text)) {
                (Some(cell), _) => Answer::Move(cell),
                (None, Some(about)) => Answer::About(about),
                (None, None) => Answer::Other(line.to_string()),
            },
        }
    }

    /// The line a brain writes for this answer, with its line end.
    pub fn format(&self) -> String {
        let with = |word: &str, text: &str| if text.is_empty() { format!("{word}\n") } else { format!("{word} {text}\n") };
        match self {
            Answer::Ok => "OK\n".to_string(),
            Answer::Move(cell) => format!("{cell}\n"),
            Answer::Message(text) => with("MESSAGE", text),
            Answer::Debug(text) => with("DEBUG", text),
            Answer::Error(text) => with("ERROR", text),
            Answer::Unknown(text) => with("UNKNOWN", text),
            Answer::Suggest(cell) => format!("SUGGEST {cell}\n"),
            Answer::About(about) => format!("{about}\n"),
            Answer::Blank => "\n".to_string(),
            Answer::Other(line) => format!("{line}\n"),
        }
    }
}

/// What the referee waits for from the brain.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Awaiting {
    /// `OK`, the answer to `START` and `RESTART`.
    Ok,
    /// A move, the answer to `BEGIN`, `TURN` or `BOARD`.
    Move,
    /// The `ABOUT` line.
    About,
}

/// What one line of the brain means while the referee waits for something.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Heard {
    /// Nothing (an empty line).
    Nothing,
    /// A line for the game record's log, as the brain wrote it (trimmed): `MESSAGE`,
    /// `DEBUG`, `SUGGEST`, and `ERROR` or `UNKNOWN` while a move is awaited.
    Log(String),
    /// The awaited `OK`.
    Ok,
    /// The awaited move.
    Move(Cell),
    /// The awaited `ABOUT` line.
    About(About),
    /// `ERROR` or `UNKNOWN` instead of `OK` or the `ABOUT` line: the brain cannot play
    /// this game, or does not describe itself. The whole line, trimmed.
    Refused(String),
    /// A line that breaks the protocol here: what was expected, in words.
    Wrong { line: String, expected: &'static str },
}

impl Awaiting {
    /// The words for what is awaited, for fault details.
    pub fn expected(self) -> &'static str {
        match self {
            Awaiting::Ok => "OK (or MESSAGE, DEBUG, ERROR)",
            Awaiting::Move => "a move x,y (or MESSAGE, DEBUG)",
            Awaiting::About => "the ABOUT line name=\"...\", author=\"...\"",
        }
    }

    /// What `line` means now.
    pub fn hear(self, line: &str) -> Heard {
        let kept = || line.trim_matches([' ', '\t', '\r']).to_string();
        match (self, Answer::parse(line)) {
            (_, Answer::Blank) => Heard::Nothing,
            (_, Answer::Message(_) | Answer::Debug(_) | Answer::Suggest(_)) => Heard::Log(kept()),
            (Awaiting::Move, Answer::Error(_) | Answer::Unknown(_)) => Heard::Log(kept()),
            (Awaiting::Ok | Awaiting::About, Answer::Error(_) | Answer::Unknown(_)) => Heard::Refused(kept()),
            (Awaiting::Ok, Answer::Ok) => Heard::Ok,
            (Awaiting::Move, Answer::Move(cell)) => Heard::Move(cell),
            (Awaiting::About, Answer::About(about)) => Heard::About(about),
            _ => Heard::Wrong { line: line.to_string(), expected: self.expected() },
        }
    }
}

/// The command that gives `side` its turn in `pos`. `told` says whether the brain has
/// had a turn in this game already (so it knows the board up to its own last move, and
/// the opponent's last move is all it needs). A brain's first turn is `BEGIN` on the
/// empty board, `TURN` after the opponent's first move on the empty board, and `BOARD`
/// with every stone otherwise (a start position).
pub fn turn_command(pos: &Position, side: Side, told: bool) -> Command {
    let n_marks = pos.n_marks(Side::First) + pos.n_marks(Side::Second);
    match (told, pos.last_move()) {
        (false, None) if n_marks == 0 => Command::Begin,
        (false, Some(last)) if n_marks == 1 => Command::Turn(Cell::of(last)),
        (true, Some(last)) => Command::Turn(Cell::of(last)),
        _ => Command::Board(board_stones(pos, side)),
    }
}

/// Every stone of `pos` for `BOARD`, as if played in turns: the first player's stones
/// and the second's alternate (each side's in reading order), and the last move played,
/// if any, comes last (brains that read the order see the opponent's latest move last).
pub fn board_stones(pos: &Position, side: Side) -> Vec<(Cell, Owner)> {
    let last = pos.last_move();
    let mut by_side: [Vec<gomoku::Move>; 2] = [Vec::new(), Vec::new()];
    for row in 0..gomoku::SIZE {
        for col in 0..gomoku::SIZE {
            let mv = gomoku::Move::new(col, row).expect("a cell of the board");
            if let Some(owner) = pos.cell_at(mv)
                && Some(mv) != last
            {
                by_side[owner.index()].push(mv);
            }
        }
    }
    let owner = |mark: Side| if mark == side { Owner::Own } else { Owner::Opponent };
    let mut stones = Vec::new();
    let [first, second] = by_side;
    let (mut first, mut second) = (first.into_iter(), second.into_iter());
    loop {
        match (first.next(), second.next()) {
            (None, None) => break,
            (a, b) => {
                stones.extend(a.map(|mv| (Cell::of(mv), owner(Side::First))));
                stones.extend(b.map(|mv| (Cell::of(mv), owner(Side::Second))));
            }
        }
    }
    if let Some(mv) = last {
        let mark = pos.cell_at(mv).expect("the last move's cell holds its mark");
        stones.push((Cell::of(mv), owner(mark)));
    }
    stones
}

/// The `INFO` lines sent once after `OK`: the limits in Gomocup's terms and freestyle
/// rules (`rule 0`: five or more in a row win, as Arbiter's Gomoku). `None` means no such
/// limit.
pub fn game_infos(move_ms: Option<u64>, game_ms: Option<u64>, memory_bytes: Option<u64>) -> Vec<Command> {
    vec![
        Command::Info(Info::TimeoutTurn(move_ms.unwrap_or(NO_LIMIT_MS))),
        Command::Info(Info::TimeoutMatch(game_ms.unwrap_or(0))),
        Command::Info(Info::MaxMemory(memory_bytes.unwrap_or(0))),
        Command::Info(Info::GameType(1)),
        Command::Info(Info::Rule(0)),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use rules::Game;

    fn cell(x: u64, y: u64) -> Cell {
        Cell { x, y }
    }

    #[test]
    fn commands_format_as_the_protocol_writes_them() {
        let cases = [
            (Command::Start(10), "START 10\n"),
            (Command::Info(Info::TimeoutTurn(5000)), "INFO timeout_turn 5000\n"),
            (Command::Info(Info::TimeoutMatch(0)), "INFO timeout_match 0\n"),
            (Command::Info(Info::TimeLeft(180000)), "INFO time_left 180000\n"),
            (Command::Info(Info::MaxMemory(0)), "INFO max_memory 0\n"),
            (Command::Info(Info::GameType(1)), "INFO game_type 1\n"),
            (Command::Info(Info::Rule(0)), "INFO rule 0\n"),
            (Command::Begin, "BEGIN\n"),
            (Command::Turn(cell(3, 7)), "TURN 3,7\n"),
            (Command::Board(vec![(cell(4, 4), Owner::Opponent), (cell(5, 5), Owner::Own)]), "BOARD\n4,4,2\n5,5,1\nDONE\n"),
            (Command::About, "ABOUT\n"),
            (Command::End, "END\n"),
        ];
        for (command, text) in cases {
            assert_eq!(command.format(), text);
            assert_eq!(Command::parse_all(text), vec![command], "{text:?}");
        }
    }

    #[test]
    fn a_session_of_commands_parses_back() {
        let text =
            "START 10\r\nINFO timeout_turn 5000\ninfo rule 0\nINFO folder /tmp\nBOARD\n1,2,1\n3,4,2\nDONE\nTURN 0, 9\nRESTART\nEND\n";
        assert_eq!(
            Command::parse_all(text),
            vec![
                Command::Start(10),
                Command::Info(Info::TimeoutTurn(5000)),
                Command::Info(Info::Rule(0)),
                Command::Info(Info::Other("folder".to_string(), "/tmp".to_string())),
                Command::Board(vec![(cell(1, 2), Owner::Own), (cell(3, 4), Owner::Opponent)]),
                Command::Turn(cell(0, 9)),
                Command::Restart,
                Command::End,
            ]
        );
        assert_eq!(Command::parse_all("BOARD\n1,2,3\nDONE\n"), vec![Command::Other("BOARD 1,2,3".to_string())]);
    }

    #[test]
    fn answers_parse_and_format_back() {
        let cases = [
            ("OK", Answer::Ok),
            ("ok ", Answer::Ok),
            ("4,5", Answer::Move(cell(4, 5))),
            (" 4 , 5\r", Answer::Move(cell(4, 5))),
            ("12,3", Answer::Move(cell(12, 3))),
            ("MESSAGE thinking hard", Answer::Message("thinking hard".to_string())),
            ("DEBUG depth 4", Answer::Debug("depth 4".to_string())),
            ("Debug", Answer::Debug(String::new())),
            ("ERROR unsupported size", Answer::Error("unsupported size".to_string())),
            ("UNKNOWN RECTSTART", Answer::Unknown("RECTSTART".to_string())),
            ("SUGGEST 2,2", Answer::Suggest(cell(2, 2))),
            ("", Answer::Blank),
            ("OK then", Answer::Other("OK then".to_string())),
            ("4,", Answer::Other("4,".to_string())),
            ("-1,4", Answer::Other("-1,4".to_string())),
            ("B7", Answer::Other("B7".to_string())),
            ("4,5,1", Answer::Other("4,5,1".to_string())),
        ];
        for (line, answer) in cases {
            assert_eq!(Answer::parse(line), answer, "{line:?}");
        }
        for answer in [
            Answer::Ok,
            Answer::Move(cell(0, 9)),
            Answer::Message("hi".to_string()),
            Answer::Debug("x".to_string()),
            Answer::Error("no".to_string()),
            Answer::Unknown("what".to_string()),
            Answer::Suggest(cell(1, 1)),
            Answer::About(About { pairs: vec![("name".to_string(), "Sample".to_string())] }),
        ] {
            let line = answer.format();
            assert_eq!(Answer::parse(line.strip_suffix('\n').unwrap()), answer);
        }
    }

    #[test]
    fn about_lines() {
        let line = r#"name="Sample Brain", version="1.0", author="Ann Example", country="LV""#;
        let about = About::parse(line).unwrap();
        assert_eq!(about.get("name"), Some("Sample Brain"));
        assert_eq!(about.get("version"), Some("1.0"));
        assert_eq!(about.get("author"), Some("Ann Example"));
        assert_eq!(about.get("country"), Some("LV"));
        assert_eq!(about.get("www"), None);
        assert_eq!(about.to_string(), line);
        assert_eq!(Answer::parse(line), Answer::About(about));
        assert_eq!(About::parse(r#"name = "x" ,email="a@b""#).unwrap().pairs.len(), 2);
        for bad in ["", "name", "name=x", r#"name="x" version="1""#, r#"name="x"#, r#"="x""#] {
            assert_eq!(About::parse(bad), None, "{bad:?}");
        }
    }

    /// Feeds a brain's lines to the dialogue and says where it stopped.
    fn dialogue(awaiting: Awaiting, lines: &[&str]) -> (Vec<String>, Option<Heard>) {
        let mut log = Vec::new();
        for line in lines {
            match awaiting.hear(line) {
                Heard::Nothing => {}
                Heard::Log(text) => log.push(text),
                end => return (log, Some(end)),
            }
        }
        (log, None)
    }

    #[test]
    fn a_late_ok_after_messages_and_blank_lines() {
        let (log, end) = dialogue(Awaiting::Ok, &["MESSAGE loading the book", "", "DEBUG 3 MB", "OK", "0,0"]);
        assert_eq!(log, ["MESSAGE loading the book", "DEBUG 3 MB"]);
        assert_eq!(end, Some(Heard::Ok));
        // No OK yet: the referee goes on waiting (under its deadline).
        assert_eq!(dialogue(Awaiting::Ok, &["MESSAGE still loading"]).1, None);
    }

    #[test]
    fn error_to_start_is_a_refusal() {
        let (_, end) = dialogue(Awaiting::Ok, &["MESSAGE hello", "ERROR only 15x15 and 20x20 are supported"]);
        assert_eq!(end, Some(Heard::Refused("ERROR only 15x15 and 20x20 are supported".to_string())));
        assert_eq!(dialogue(Awaiting::Ok, &["UNKNOWN START"]).1, Some(Heard::Refused("UNKNOWN START".to_string())));
        assert_eq!(dialogue(Awaiting::Ok, &["4,4"]).1, Some(Heard::Wrong { line: "4,4".to_string(), expected: Awaiting::Ok.expected() }));
    }

    #[test]
    fn a_move_after_log_lines() {
        let lines = ["DEBUG eval +12", "UNKNOWN INFO evaluate", "ERROR time_left not used", "SUGGEST 1,1", "MESSAGE I win soon", "5,4"];
        let (log, end) = dialogue(Awaiting::Move, &lines);
        assert_eq!(log.len(), 5);
        assert_eq!(log[1], "UNKNOWN INFO evaluate");
        assert_eq!(end, Some(Heard::Move(cell(5, 4))));
        for bad in ["OK", "step! B7", "E4", "move 5,4"] {
            assert_eq!(
                dialogue(Awaiting::Move, &[bad]).1,
                Some(Heard::Wrong { line: bad.to_string(), expected: Awaiting::Move.expected() }),
                "{bad}"
            );
        }
    }

    #[test]
    fn about_is_awaited_past_messages() {
        let (log, end) = dialogue(Awaiting::About, &["MESSAGE hi", r#"name="N", author="A""#]);
        assert_eq!(log, ["MESSAGE hi"]);
        let Some(Heard::About(about)) = end else { panic!("{end:?}") };
        assert_eq!((about.get("name"), about.get("author")), (Some("N"), Some("A")));
        assert_eq!(dialogue(Awaiting::About, &["UNKNOWN ABOUT"]).1, Some(Heard::Refused("UNKNOWN ABOUT".to_string())));
    }

    #[test]
    fn cells_are_columns_then_rows() {
        let mv = gomoku::Move::parse("B7").unwrap();
        assert_eq!(Cell::of(mv), cell(1, 7));
        assert_eq!(cell(1, 7).to_move(), Some(mv));
        assert_eq!(cell(10, 0).to_move(), None);
        assert_eq!(cell(0, u64::MAX).to_move(), None);
    }

    fn play(pos: &mut Position, moves: &[&str]) {
        for mv in moves {
            pos.play(&gomoku::Move::parse(mv).unwrap()).unwrap();
        }
    }

    #[test]
    fn the_turn_command_of_each_first_turn_and_later() {
        let mut pos = Position::empty();
        assert_eq!(turn_command(&pos, Side::First, false), Command::Begin);
        play(&mut pos, &["E4"]);
        assert_eq!(turn_command(&pos, Side::Second, false), Command::Turn(cell(4, 4)));
        play(&mut pos, &["F5", "C2"]);
        assert_eq!(turn_command(&pos, Side::Second, true), Command::Turn(cell(2, 2)));
        // A brain that joins late (or a start position) gets the whole board, its own
        // stones as 1, the last move last.
        assert_eq!(
            turn_command(&pos, Side::Second, false),
            Command::Board(vec![(cell(4, 4), Owner::Opponent), (cell(5, 5), Owner::Own), (cell(2, 2), Owner::Opponent)])
        );
    }

    #[test]
    fn a_start_position_is_a_board_in_turns() {
        let field = gomoku::parse_field(
            "X.........\n.0........\n..X.......\n...0......\n..........\n..........\n..........\n..........\n..........\n..........\n",
        )
        .unwrap();
        let pos = Position::from_field(&field).unwrap();
        assert_eq!(
            turn_command(&pos, Side::First, false),
            Command::Board(vec![
                (cell(0, 0), Owner::Own),
                (cell(1, 1), Owner::Opponent),
                (cell(2, 2), Owner::Own),
                (cell(3, 3), Owner::Opponent),
            ])
        );
    }

    #[test]
    fn game_infos_map_the_limits() {
        let text: String = game_infos(Some(5000), None, None).iter().map(Command::format).collect();
        assert_eq!(text, "INFO timeout_turn 5000\nINFO timeout_match 0\nINFO max_memory 0\nINFO game_type 1\nINFO rule 0\n");
        let text: String = game_infos(None, Some(180_000), Some(64 << 20)).iter().map(Command::format).collect();
        assert_eq!(
            text,
            "INFO timeout_turn 2147483647\nINFO timeout_match 180000\nINFO max_memory 67108864\nINFO game_type 1\nINFO rule 0\n"
        );
    }
}
