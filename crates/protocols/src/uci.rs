//! The Universal Chess Interface (UCI), the protocol of the world's chess engines
//! (`docs/bots.md`, "uci"), as messages: the referee's commands ([`Command`]: `uci`,
//! `setoption`, `isready`, `ucinewgame`, `position`, `go`, `stop`, `quit`) and the
//! engine's lines ([`Answer`]: `id`, `uciok`, `readyok`, `option`, `info`, `bestmove`,
//! and anything else as [`Answer::Unknown`]), with the `info` fields the record keeps
//! ([`Info`]). Pure: every message is tested from strings.
//!
//! Decisions where the protocol text is loose:
//! - Tokens are separated by any run of blanks; a `\r` and surrounding blanks are dropped;
//!   an empty line means nothing.
//! - An `info` line's numbers that do not read as numbers are left out, not refused: an
//!   engine's commentary never ends its game. `info string ...` is text to the line's end.
//! - `bestmove` takes its move as written; the rules read it (`0000` and `(none)` are
//!   moves no position allows).

use std::fmt;

/// How a search is limited, as `go` tells it: the clocks of both sides, or a fixed time,
/// node count or depth.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Go {
    /// White's and Black's clocks, in milliseconds.
    pub wtime: Option<u64>,
    pub btime: Option<u64>,
    /// White's and Black's increments, in milliseconds.
    pub winc: Option<u64>,
    pub binc: Option<u64>,
    /// Moves to the next time control.
    pub movestogo: Option<u32>,
    /// A fixed time for this move, in milliseconds.
    pub movetime: Option<u64>,
    pub nodes: Option<u64>,
    pub depth: Option<u32>,
}

/// A command to an engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    Uci,
    /// `setoption name NAME [value VALUE]`.
    SetOption {
        name: String,
        value: Option<String>,
    },
    IsReady,
    UciNewGame,
    /// `position ARGS`: `startpos` or `fen FEN`, then `moves ...` (chess's start text and
    /// the moves since, `rules::chess::Position::uci_position`).
    Position(String),
    Go(Go),
    Stop,
    Quit,
}

impl Command {
    /// The command as one line, with its line end.
    pub fn format(&self) -> String {
        let mut line = match self {
            Command::Uci => "uci".to_string(),
            Command::SetOption { name, value: Some(value) } => format!("setoption name {name} value {value}"),
            Command::SetOption { name, value: None } => format!("setoption name {name}"),
            Command::IsReady => "isready".to_string(),
            Command::UciNewGame => "ucinewgame".to_string(),
            Command::Position(args) => format!("position {args}"),
            Command::Go(go) => {
                let mut line = "go".to_string();
                let mut field = |name: &str, value: Option<String>| {
                    if let Some(value) = value {
                        line.push_str(&format!(" {name} {value}"));
                    }
                };
                let text = |v: Option<u64>| v.map(|v| v.to_string());
                field("wtime", text(go.wtime));
                field("btime", text(go.btime));
                field("winc", text(go.winc));
                field("binc", text(go.binc));
                field("movestogo", go.movestogo.map(|v| v.to_string()));
                field("movetime", text(go.movetime));
                field("nodes", text(go.nodes));
                field("depth", go.depth.map(|v| v.to_string()));
                if line == "go" {
                    line.push_str(" infinite");
                }
                line
            }
            Command::Stop => "stop".to_string(),
            Command::Quit => "quit".to_string(),
        };
        line.push('\n');
        line
    }

    /// Reads a command (for tests and for a built-in engine that speaks UCI); `None` for
    /// a line that is not one.
    pub fn parse(line: &str) -> Option<Command> {
        let tokens: Vec<&str> = line.split_whitespace().collect();
        Some(match tokens.as_slice() {
            ["uci"] => Command::Uci,
            ["isready"] => Command::IsReady,
            ["ucinewgame"] => Command::UciNewGame,
            ["stop"] => Command::Stop,
            ["quit"] => Command::Quit,
            ["position", rest @ ..] if !rest.is_empty() => Command::Position(rest.join(" ")),
            ["setoption", "name", rest @ ..] => {
                let at = rest.iter().position(|&t| t == "value");
                let name = rest[..at.unwrap_or(rest.len())].join(" ");
                let value = at.map(|at| rest[at + 1..].join(" "));
                Command::SetOption { name, value }
            }
            ["go", rest @ ..] => {
                let mut go = Go::default();
                let mut iter = rest.iter();
                while let Some(&key) = iter.next() {
                    let mut value = || iter.next().and_then(|v| v.parse::<u64>().ok());
                    match key {
                        "wtime" => go.wtime = value(),
                        "btime" => go.btime = value(),
                        "winc" => go.winc = value(),
                        "binc" => go.binc = value(),
                        "movestogo" => go.movestogo = value().map(|v| v as u32),
                        "movetime" => go.movetime = value(),
                        "nodes" => go.nodes = value(),
                        "depth" => go.depth = value().map(|v| v as u32),
                        _ => {}
                    }
                }
                Command::Go(go)
            }
            _ => return None,
        })
    }
}

/// A score in an `info` line.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Score {
    /// Centipawns, from the engine's point of view.
    Cp(i32),
    /// Mate in so many moves (negative: the engine is mated).
    Mate(i32),
}

/// The fields of an `info` line that a record keeps.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Info {
    pub depth: Option<u32>,
    pub seldepth: Option<u32>,
    pub score: Option<Score>,
    /// The score is only a bound (`lowerbound`, `upperbound`).
    pub bound: bool,
    pub nodes: Option<u64>,
    pub nps: Option<u64>,
    pub time: Option<u64>,
    pub multipv: Option<u32>,
    pub pv: Vec<String>,
    /// `info string ...`: text.
    pub string: Option<String>,
}

impl Info {
    /// Reads the fields after `info`; unknown fields and unreadable numbers are skipped.
    pub fn parse(rest: &[&str]) -> Info {
        let mut info = Info::default();
        let mut idx = 0;
        let number = |at: usize| rest.get(at).and_then(|v| v.parse::<i64>().ok());
        while idx < rest.len() {
            // Each field takes its value after it; `score` its kind, value and bounds.
            let mut taken = 2;
            match rest[idx] {
                "depth" => info.depth = number(idx + 1).and_then(|v| u32::try_from(v).ok()),
                "seldepth" => info.seldepth = number(idx + 1).and_then(|v| u32::try_from(v).ok()),
                "nodes" => info.nodes = number(idx + 1).and_then(|v| u64::try_from(v).ok()),
                "nps" => info.nps = number(idx + 1).and_then(|v| u64::try_from(v).ok()),
                "time" => info.time = number(idx + 1).and_then(|v| u64::try_from(v).ok()),
                "multipv" => info.multipv = number(idx + 1).and_then(|v| u32::try_from(v).ok()),
                "score" => {
                    let value = number(idx + 2).and_then(|v| i32::try_from(v).ok());
                    info.score = match rest.get(idx + 1) {
                        Some(&"cp") => value.map(Score::Cp),
                        Some(&"mate") => value.map(Score::Mate),
                        _ => None,
                    };
                    taken = 3;
                    while matches!(rest.get(idx + taken), Some(&("lowerbound" | "upperbound"))) {
                        info.bound = true;
                        taken += 1;
                    }
                }
                "pv" => {
                    info.pv = rest[idx + 1..].iter().map(|m| m.to_string()).collect();
                    break;
                }
                "string" => {
                    info.string = Some(rest[idx + 1..].join(" "));
                    break;
                }
                _ => taken = 1,
            }
            idx += taken;
        }
        info
    }
}

/// A line an engine wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// `id name ...` or `id author ...`.
    Id {
        key: String,
        value: String,
    },
    UciOk,
    ReadyOk,
    /// `option name ... type ...`, kept as written after `option`.
    Option(String),
    Info(Info),
    /// `bestmove MOVE [ponder MOVE]`.
    BestMove {
        mv: String,
        ponder: Option<String>,
    },
    /// An empty line.
    Empty,
    /// Anything else, as written (trimmed).
    Unknown(String),
}

impl Answer {
    /// Reads an engine's line; never fails.
    pub fn parse(line: &str) -> Answer {
        let line = line.trim();
        let tokens: Vec<&str> = line.split_whitespace().collect();
        match tokens.as_slice() {
            [] => Answer::Empty,
            ["uciok"] => Answer::UciOk,
            ["readyok"] => Answer::ReadyOk,
            ["id", key, value @ ..] => Answer::Id { key: key.to_string(), value: value.join(" ") },
            ["option", ..] => Answer::Option(line["option".len()..].trim().to_string()),
            ["info", rest @ ..] => Answer::Info(Info::parse(rest)),
            ["bestmove", mv] => Answer::BestMove { mv: mv.to_string(), ponder: None },
            ["bestmove", mv, "ponder", ponder, ..] => Answer::BestMove { mv: mv.to_string(), ponder: Some(ponder.to_string()) },
            ["bestmove", mv, ..] => Answer::BestMove { mv: mv.to_string(), ponder: None },
            _ => Answer::Unknown(line.to_string()),
        }
    }
}

impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Score::Cp(cp) => write!(f, "cp {cp}"),
            Score::Mate(m) => write!(f, "mate {m}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_are_written_as_the_protocol_says() {
        assert_eq!(Command::Uci.format(), "uci\n");
        assert_eq!(Command::SetOption { name: "Hash".into(), value: Some("16".into()) }.format(), "setoption name Hash value 16\n");
        assert_eq!(Command::SetOption { name: "Clear Hash".into(), value: None }.format(), "setoption name Clear Hash\n");
        assert_eq!(Command::Position("startpos moves e2e4".into()).format(), "position startpos moves e2e4\n");
        let clock = Go { wtime: Some(9800), btime: Some(10_000), winc: Some(100), binc: Some(100), movestogo: Some(39), ..Go::default() };
        assert_eq!(Command::Go(clock.clone()).format(), "go wtime 9800 btime 10000 winc 100 binc 100 movestogo 39\n");
        assert_eq!(Command::Go(Go { nodes: Some(5000), ..Go::default() }).format(), "go nodes 5000\n");
        assert_eq!(Command::Go(Go { movetime: Some(100), ..Go::default() }).format(), "go movetime 100\n");
        assert_eq!(Command::Go(Go { depth: Some(8), ..Go::default() }).format(), "go depth 8\n");
        assert_eq!(Command::Go(Go::default()).format(), "go infinite\n");
        for command in [
            Command::Uci,
            Command::IsReady,
            Command::UciNewGame,
            Command::Stop,
            Command::Quit,
            Command::Go(clock),
            Command::SetOption { name: "Skill Level".into(), value: Some("3".into()) },
            Command::Position("fen 8/8/8/8/8/8/8/K6k w - - 0 1 moves a1a2".into()),
        ] {
            assert_eq!(Command::parse(&command.format()), Some(command.clone()), "{command:?} reads back");
        }
        assert_eq!(Command::parse("flip"), None);
    }

    #[test]
    fn engine_lines_are_read_whatever_they_hold() {
        assert_eq!(Answer::parse("uciok\r"), Answer::UciOk);
        assert_eq!(Answer::parse("  readyok  "), Answer::ReadyOk);
        assert_eq!(Answer::parse("id name Stockfish 15.1"), Answer::Id { key: "name".into(), value: "Stockfish 15.1".into() });
        assert_eq!(
            Answer::parse("option name Hash type spin default 16 min 1 max 33554432"),
            Answer::Option("name Hash type spin default 16 min 1 max 33554432".into())
        );
        assert_eq!(Answer::parse("bestmove e2e4 ponder e7e5"), Answer::BestMove { mv: "e2e4".into(), ponder: Some("e7e5".into()) });
        assert_eq!(Answer::parse("bestmove e7e8q"), Answer::BestMove { mv: "e7e8q".into(), ponder: None });
        assert_eq!(Answer::parse("bestmove (none)"), Answer::BestMove { mv: "(none)".into(), ponder: None });
        assert_eq!(Answer::parse(""), Answer::Empty);
        assert_eq!(
            Answer::parse("Stockfish 15.1 by the Stockfish developers"),
            Answer::Unknown("Stockfish 15.1 by the Stockfish developers".into())
        );
        assert_eq!(Answer::parse("bestmove"), Answer::Unknown("bestmove".into()));
    }

    #[test]
    fn info_lines_keep_depth_score_nodes_speed_and_pv() {
        let line = "info depth 12 seldepth 17 multipv 1 score cp -31 lowerbound nodes 48213 nps 1205325 hashfull 12 tbhits 0 time 40 pv e7e5 g1f3 b8c6";
        let Answer::Info(info) = Answer::parse(line) else { panic!("an info line") };
        assert_eq!(
            info,
            Info {
                depth: Some(12),
                seldepth: Some(17),
                score: Some(Score::Cp(-31)),
                bound: true,
                nodes: Some(48213),
                nps: Some(1_205_325),
                time: Some(40),
                multipv: Some(1),
                pv: vec!["e7e5".into(), "g1f3".into(), "b8c6".into()],
                string: None,
            }
        );
        let Answer::Info(mate) = Answer::parse("info depth 3 score mate -2 nodes 99 pv h7h6") else { panic!() };
        assert_eq!((mate.score, mate.bound), (Some(Score::Mate(-2)), false));
        let Answer::Info(text) = Answer::parse("info string NNUE evaluation using nn.nnue enabled") else { panic!() };
        assert_eq!(text.string.as_deref(), Some("NNUE evaluation using nn.nnue enabled"));
        let Answer::Info(junk) = Answer::parse("info depth x score cp nodes -5 currmove e2e4 currmovenumber 1") else { panic!() };
        assert_eq!(junk, Info::default(), "what does not read as numbers is left out");
    }
}
