//! The project's own bot protocol (`arbiter`, see `docs/protocols/arbiter.md`): one
//! persistent process per game (or for game after game, when the bot says `reuse`), one
//! line per message, words separated by single spaces, the same loop for every game. Here
//! are its messages both ways ([`ToBot`], [`FromBot`]) and the one-line texts of start
//! positions and positions of each game, all parsed and formatted without I/O.

use std::fmt;

use rules::{AnyPosition, GameKind, Options, Side};

/// The protocol version the referee announces in its first line.
pub const VERSION: u32 = 1;

/// How a finished game ended for the bot that is told.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Win,
    Loss,
    Draw,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Win => "win",
            Verdict::Loss => "loss",
            Verdict::Draw => "draw",
        }
    }

    /// The verdict for `side` when `winner` won (`None`: a draw).
    pub fn for_side(winner: Option<Side>, side: Side) -> Verdict {
        match winner {
            None => Verdict::Draw,
            Some(w) if w == side => Verdict::Win,
            Some(_) => Verdict::Loss,
        }
    }
}

/// The opponent's last move as the bot sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Opponent {
    /// The move in the game's notation.
    Move(String),
    /// The opponent moved, but the move stays secret (Nupud's set-up): `opponent ?`.
    Hidden,
}

/// A line the referee sends to a bot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ToBot {
    /// `arbiter 1`: the first line; the bot answers `name`, `author` (both optional)
    /// and `ready`.
    Hello { version: u32 },
    /// `game connect4 height=6 width=7`: the game and every option with its value.
    Game { kind: GameKind, options: Vec<(String, String)> },
    /// `side 0` or `side 1`: the side the bot plays (0 moves first).
    Side(Side),
    /// `seed <n>`: the seed the game gives this side (0 to 4294967295), for a bot that
    /// wants its games reproducible (the same as `ARBITER_SEED` at its start, but new for
    /// each game a kept process plays).
    Seed(u32),
    /// `start -` for the game's default start, or `start <one line>` (see
    /// [`encode_start`]).
    Start(Option<String>),
    /// `opponent <move>` / `opponent ?`: sent only once the opponent has moved.
    Opponent(Opponent),
    /// `position <one line>` (see [`format_position`]).
    Position(String),
    /// `legal <m1> <m2> ...`: every legal move (not sent for Legions).
    Legal(Vec<String>),
    /// `time <ms>` or `time -`: the wall time left for this move.
    Time(Option<u64>),
    /// `go`: answer with `move`.
    Go,
    /// `result win|loss|draw [<score0> <score1>]`.
    Result { verdict: Verdict, scores: Option<[i64; 2]> },
    /// `quit`: the bot should exit.
    Quit,
    /// Any other line.
    Unknown(String),
}

impl fmt::Display for ToBot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToBot::Hello { version } => write!(f, "arbiter {version}"),
            ToBot::Game { kind, options } => {
                write!(f, "game {}", kind.name())?;
                options.iter().try_for_each(|(key, value)| write!(f, " {key}={value}"))
            }
            ToBot::Side(side) => write!(f, "side {}", side.index()),
            ToBot::Seed(seed) => write!(f, "seed {seed}"),
            ToBot::Start(None) => write!(f, "start -"),
            ToBot::Start(Some(text)) => write!(f, "start {text}"),
            ToBot::Opponent(Opponent::Hidden) => write!(f, "opponent ?"),
            ToBot::Opponent(Opponent::Move(text)) => write!(f, "opponent {text}"),
            ToBot::Position(text) => write!(f, "position {text}"),
            ToBot::Legal(moves) => {
                write!(f, "legal")?;
                moves.iter().try_for_each(|mv| write!(f, " {mv}"))
            }
            ToBot::Time(None) => write!(f, "time -"),
            ToBot::Time(Some(ms)) => write!(f, "time {ms}"),
            ToBot::Go => write!(f, "go"),
            ToBot::Result { verdict, scores } => {
                write!(f, "result {}", verdict.as_str())?;
                match scores {
                    Some([a, b]) => write!(f, " {a} {b}"),
                    None => Ok(()),
                }
            }
            ToBot::Quit => write!(f, "quit"),
            ToBot::Unknown(line) => f.write_str(line),
        }
    }
}

impl ToBot {
    /// Reads one line (without its line end). Malformed known words are `Unknown`.
    pub fn parse(line: &str) -> ToBot {
        let unknown = || ToBot::Unknown(line.to_string());
        let (word, rest) = split_word(line);
        match word {
            "arbiter" => rest.trim().parse().map_or_else(|_| unknown(), |version| ToBot::Hello { version }),
            "game" => {
                let mut words = rest.split_whitespace();
                let Some(kind) = words.next().and_then(|name| GameKind::from_name(name).ok()) else {
                    return unknown();
                };
                let options: Option<Vec<(String, String)>> =
                    words.map(|pair| pair.split_once('=').map(|(k, v)| (k.to_string(), v.to_string()))).collect();
                options.map_or_else(unknown, |options| ToBot::Game { kind, options })
            }
            "side" => match rest.trim() {
                "0" => ToBot::Side(Side::First),
                "1" => ToBot::Side(Side::Second),
                _ => unknown(),
            },
            "seed" => match rest.trim().parse() {
                Ok(seed) => ToBot::Seed(seed),
                Err(_) => unknown(),
            },
            "start" => match rest {
                "-" => ToBot::Start(None),
                "" => unknown(),
                text => ToBot::Start(Some(text.to_string())),
            },
            "opponent" => match rest {
                "?" => ToBot::Opponent(Opponent::Hidden),
                text => ToBot::Opponent(Opponent::Move(text.to_string())),
            },
            "position" => ToBot::Position(rest.to_string()),
            "legal" => ToBot::Legal(rest.split_whitespace().map(str::to_string).collect()),
            "time" => match rest.trim() {
                "-" => ToBot::Time(None),
                ms => ms.parse().map_or_else(|_| unknown(), |ms| ToBot::Time(Some(ms))),
            },
            "go" if rest.is_empty() => ToBot::Go,
            "result" => {
                let words: Vec<&str> = rest.split_whitespace().collect();
                let verdict = match words.first() {
                    Some(&"win") => Verdict::Win,
                    Some(&"loss") => Verdict::Loss,
                    Some(&"draw") => Verdict::Draw,
                    _ => return unknown(),
                };
                match words[1..] {
                    [] => ToBot::Result { verdict, scores: None },
                    [a, b] => match (a.parse(), b.parse()) {
                        (Ok(a), Ok(b)) => ToBot::Result { verdict, scores: Some([a, b]) },
                        _ => unknown(),
                    },
                    _ => unknown(),
                }
            }
            "quit" if rest.is_empty() => ToBot::Quit,
            _ => unknown(),
        }
    }
}

/// A line a bot sends to the referee.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FromBot {
    /// `name <text>` (handshake only).
    Name(String),
    /// `author <text>` (handshake only).
    Author(String),
    /// `reuse` (handshake only, optional): the bot can play game after game in one
    /// process (after `result`, a new `game`, `side` and `start` instead of `quit`).
    Reuse,
    /// `ready`: the end of the handshake.
    Ready,
    /// `move <text>`: everything after `move ` (may be empty: a Legions turn without
    /// orders, also written `move`).
    Move(String),
    /// Any other line.
    Unknown(String),
}

impl fmt::Display for FromBot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FromBot::Name(name) => write!(f, "name {name}"),
            FromBot::Author(author) => write!(f, "author {author}"),
            FromBot::Reuse => write!(f, "reuse"),
            FromBot::Ready => write!(f, "ready"),
            FromBot::Move(text) => write!(f, "move {text}"),
            FromBot::Unknown(line) => f.write_str(line),
        }
    }
}

impl FromBot {
    /// Reads one line (without its line end). A trailing `\r` is already gone; blanks
    /// at the end of `name`, `author` and `move` are dropped.
    pub fn parse(line: &str) -> FromBot {
        let (word, rest) = split_word(line);
        let rest = rest.trim_end();
        match word {
            "name" if !rest.trim().is_empty() => FromBot::Name(rest.trim().to_string()),
            "author" if !rest.trim().is_empty() => FromBot::Author(rest.trim().to_string()),
            "reuse" if rest.is_empty() => FromBot::Reuse,
            "ready" if rest.is_empty() => FromBot::Ready,
            "move" => FromBot::Move(rest.to_string()),
            _ => FromBot::Unknown(line.to_string()),
        }
    }
}

/// The first word and everything after the single space that follows it.
fn split_word(line: &str) -> (&str, &str) {
    line.split_once(' ').unwrap_or((line, ""))
}

/// Every option of `kind` with its value: the given one or the default, in the order
/// the game declares them.
pub fn all_options(kind: GameKind, options: &Options) -> Vec<(String, String)> {
    kind.options()
        .iter()
        .map(|spec| (spec.name.to_string(), options.get(spec.name).cloned().unwrap_or_else(|| spec.default.to_string())))
        .collect()
}

/// A start text on one line, as the `start` message carries it ([`Game::start_line`]:
/// line ends become `/`, TABs `,`, unless the game's start texts are one line already).
///
/// [`Game::start_line`]: rules::Game::start_line
pub fn encode_start(kind: GameKind, text: &str) -> String {
    kind.start_line(text)
}

/// The start text back from its one-line form, as the game's rules read it.
pub fn decode_start(kind: GameKind, line: &str) -> String {
    kind.start_from_line(line)
}

/// The position on one line, as the `position` message shows it: each game's
/// [`Game::position_line`] (documented in `docs/protocols/arbiter.md`).
///
/// [`Game::position_line`]: rules::Game::position_line
pub fn format_position(pos: &AnyPosition) -> String {
    pos.position_line()
}

/// Why a position line could not be read back.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("cannot read position {line:?}: {reason}")]
pub struct PositionError {
    pub line: String,
    pub reason: String,
}

/// Reads a `position` line back into a position, for bots that rebuild their position
/// each turn ([`Game::from_position_line`]): exact for the board; what the line does
/// not show is lost (the last move, Pah-tum's start board), and some games cannot be
/// rebuilt from it at all (Legions, Nupud's `setup`).
///
/// [`Game::from_position_line`]: rules::Game::from_position_line
pub fn parse_position(kind: GameKind, options: &Options, line: &str) -> Result<AnyPosition, PositionError> {
    kind.from_position_line(options, line).map_err(|reason| PositionError { line: line.to_string(), reason })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roundtrip_to_bot(line: &str, message: ToBot) {
        assert_eq!(ToBot::parse(line), message, "{line}");
        assert_eq!(message.to_string(), line);
    }

    #[test]
    fn referee_lines() {
        roundtrip_to_bot("arbiter 1", ToBot::Hello { version: 1 });
        roundtrip_to_bot(
            "game connect4 width=7 height=6",
            ToBot::Game { kind: GameKind::Connect4, options: vec![("width".into(), "7".into()), ("height".into(), "6".into())] },
        );
        roundtrip_to_bot("game gomoku", ToBot::Game { kind: GameKind::Gomoku, options: vec![] });
        roundtrip_to_bot("side 1", ToBot::Side(Side::Second));
        roundtrip_to_bot("seed 4294967295", ToBot::Seed(u32::MAX));
        assert_eq!(ToBot::parse("seed -1"), ToBot::Unknown("seed -1".to_string()));
        roundtrip_to_bot("start -", ToBot::Start(None));
        roundtrip_to_bot("start 432111/111234", ToBot::Start(Some("432111/111234".into())));
        roundtrip_to_bot("opponent ?", ToBot::Opponent(Opponent::Hidden));
        roundtrip_to_bot("opponent 3 6 1; 3 5 2", ToBot::Opponent(Opponent::Move("3 6 1; 3 5 2".into())));
        roundtrip_to_bot("opponent ", ToBot::Opponent(Opponent::Move(String::new())));
        roundtrip_to_bot("position setup", ToBot::Position("setup".into()));
        roundtrip_to_bot("legal 0 1 2", ToBot::Legal(vec!["0".into(), "1".into(), "2".into()]));
        roundtrip_to_bot("time 1500", ToBot::Time(Some(1500)));
        roundtrip_to_bot("time -", ToBot::Time(None));
        roundtrip_to_bot("go", ToBot::Go);
        roundtrip_to_bot("result win 1666 0", ToBot::Result { verdict: Verdict::Win, scores: Some([1666, 0]) });
        roundtrip_to_bot("result draw", ToBot::Result { verdict: Verdict::Draw, scores: None });
        roundtrip_to_bot("quit", ToBot::Quit);
        for bad in [
            "arbiter x",
            "game checkers",
            "game gomoku size",
            "side 2",
            "start ",
            "time soon",
            "go now",
            "result maybe",
            "result win 1",
            "hello",
        ] {
            assert_eq!(ToBot::parse(bad), ToBot::Unknown(bad.into()), "{bad}");
        }
    }

    #[test]
    fn bot_lines() {
        assert_eq!(FromBot::parse("name Deep Four"), FromBot::Name("Deep Four".into()));
        assert_eq!(FromBot::parse("author A. Person"), FromBot::Author("A. Person".into()));
        assert_eq!(FromBot::parse("ready"), FromBot::Ready);
        assert_eq!(FromBot::parse("reuse"), FromBot::Reuse);
        assert_eq!(FromBot::Reuse.to_string(), "reuse");
        assert_eq!(FromBot::parse("move 3"), FromBot::Move("3".into()));
        assert_eq!(FromBot::parse("move 3 6 1;3 5 2 "), FromBot::Move("3 6 1;3 5 2".into()));
        assert_eq!(FromBot::parse("move "), FromBot::Move(String::new()));
        assert_eq!(FromBot::parse("move"), FromBot::Move(String::new()));
        for bad in ["", "3", "Move 3", "ready now", "name", "moves 3", "reuse yes"] {
            assert_eq!(FromBot::parse(bad), FromBot::Unknown(bad.into()), "{bad:?}");
        }
        assert_eq!(FromBot::Move("c1c3".into()).to_string(), "move c1c3");
    }

    fn position(kind: GameKind, options: &[(&str, &str)], start: Option<&str>, moves: &[&str]) -> AnyPosition {
        let options: Options = options.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        let mut pos = kind.new_position(&options, start).unwrap();
        for mv in moves {
            pos.play_text(mv).unwrap();
        }
        pos
    }

    #[test]
    fn gomoku_position() {
        let pos = position(GameKind::Gomoku, &[], None, &["A0", "J9", "B0", "J8"]);
        let line = format_position(&pos);
        assert_eq!(line, "XX......../........../........../........../........../........../........../........../.........0/.........0");
        assert_eq!(format_position(&parse_position(GameKind::Gomoku, &Options::new(), &line).unwrap()), line);
    }

    #[test]
    fn connect4_position() {
        let pos = position(GameKind::Connect4, &[("width", "4"), ("height", "4")], None, &["0", "0", "3"]);
        let line = format_position(&pos);
        assert_eq!(line, "..../..../O.../X..X");
        let options: Options = [("width".to_string(), "4".to_string()), ("height".to_string(), "4".to_string())].into();
        let back = parse_position(GameKind::Connect4, &options, &line).unwrap();
        assert_eq!((format_position(&back), back.legal_moves_text()), (line, pos.legal_moves_text()));
        assert!(parse_position(GameKind::Connect4, &Options::new(), "..../..../O.../X..X").is_err(), "default 7x6");
    }

    #[test]
    fn pahtum_position() {
        let start = "+------/-------/-------/-------/-------/-------/-------";
        let pos = position(GameKind::Pahtum, &[], Some(start), &["A2", "G7"]);
        let line = format_position(&pos);
        assert_eq!(line, "+X-----/-------/-------/-------/-------/-------/------O");
        assert_eq!(format_position(&parse_position(GameKind::Pahtum, &Options::new(), &line).unwrap()), line);
    }

    #[test]
    fn legions_position() {
        let pos = position(GameKind::Legions, &[("size", "3")], None, &["1 0 1; 0 1 1"]);
        assert_eq!(format_position(&pos), "1 N0,N0,./N0,.,./.,.,N1");
        assert!(parse_position(GameKind::Legions, &Options::new(), "1 N0,N0,./N0,.,./.,.,N1").is_err());
    }

    #[test]
    fn nupud_position() {
        let mut pos = position(GameKind::Nupud, &[], None, &[]);
        assert_eq!(format_position(&pos), "setup");
        pos.play_text("432111").unwrap();
        assert_eq!(format_position(&pos), "setup", "White's set-up stays hidden");
        pos.play_text("111234").unwrap();
        let line = format_position(&pos);
        assert_eq!(line, "white:B1B1B1B2B3B4/....../....../....../....../W4W3W2W1W1W1");
        pos.play_text("a1a4").unwrap();
        assert_eq!(format_position(&pos), "black:B1B1B1B2B3B4/....../W4...../....../....../.W3W2W1W1W1");
        let back = parse_position(GameKind::Nupud, &Options::new(), &format_position(&pos)).unwrap();
        assert_eq!(format_position(&back), format_position(&pos));
        assert_eq!(back.legal_moves_text(), pos.legal_moves_text());
    }

    #[test]
    fn start_texts_on_one_line() {
        let legions = position(GameKind::Legions, &[("size", "3")], None, &[]);
        let typed = <rules::legions::Position as rules::Registered>::from_any(&legions).expect("a Legions position");
        let text = rules::legions::format_input(typed, Side::First);
        let line = encode_start(GameKind::Legions, &text);
        assert_eq!(line, "0/3/0 0/2 2/N0,.,./.,.,./.,.,N1");
        assert_eq!(decode_start(GameKind::Legions, &line), text);
        let back =
            GameKind::Legions.new_position(&[("size".to_string(), "3".to_string())].into(), Some(&decode_start(GameKind::Legions, &line)));
        assert_eq!(back.map(|p| format_position(&p)), Ok(format_position(&legions)));
        assert_eq!(encode_start(GameKind::Nupud, "black:B4..../x/y"), "black:B4..../x/y");
        assert_eq!(decode_start(GameKind::Nupud, "432111/111234"), "432111/111234");
        let field = "X.........\n".to_string() + &"..........\n".repeat(8) + "........0.\n";
        let line = encode_start(GameKind::Gomoku, &field);
        assert!(!line.contains('\n') && line.ends_with("........0."), "{line}");
        assert_eq!(decode_start(GameKind::Gomoku, &line), field);
    }

    #[test]
    fn every_option_with_its_value() {
        let given: Options = [("height".to_string(), "20".to_string())].into();
        assert_eq!(
            all_options(GameKind::Connect4, &given),
            vec![("width".to_string(), "7".to_string()), ("height".to_string(), "20".to_string())]
        );
        assert_eq!(all_options(GameKind::Gomoku, &Options::new()), vec![]);
    }
}
