//! `arbiter bot NAME`: a built-in player (`random`, `greedy`, `medium`, `strong`, `perfect`) as a bot program speaking the project's
//! own protocol on stdin/stdout, for any game (`docs/protocols/arbiter.md`). It keeps its
//! own position by playing the start, the opponent's moves and its own; where the
//! opponent's move was hidden (Nupud's set-up) it plays a stand-in and later rebuilds the
//! position from the `position` line. It never needs `legal`. One debug line per move on
//! stderr. With `--uci` it is a chess engine instead, speaking UCI (`docs/bots.md`,
//! "uci"): `random --uci` is an instant engine, the referee's own ceiling in
//! `scripts/bench-chess`.

use std::io::{BufRead, Write};

use anyhow::{Context, bail};
use players::{Builtin, Play};
use protocols::arbiter::{self as proto, FromBot, Opponent, ToBot};
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;
use rules::{AnyPosition, GameKind, Options, Side};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The built-in player: random, greedy, medium, strong or perfect; `strong:N` searches
    /// N nodes (or playouts) a move whatever its clock.
    player: String,
    /// Seed of the player's choices; from the clock if not given.
    #[arg(long)]
    seed: Option<u64>,
    /// Speak the Universal Chess Interface (a chess engine) instead of the project's
    /// protocol.
    #[arg(long)]
    uci: bool,
}

/// What the bot knows of its game.
struct Game {
    kind: GameKind,
    options: Options,
    side: Side,
    pos: Option<AnyPosition>,
    /// The last `position` line.
    line: String,
    /// The position holds a stand-in for a move the bot was not shown.
    guessed: bool,
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    let player = Builtin::parse(&args.player)?;
    let seed = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64)
            ^ u64::from(std::process::id())
    });
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    if args.uci {
        return run_uci(player, &mut rng);
    }
    // The time for the next move, from the last `time` message.
    let mut time_left = None;
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    // Until the `game` message names the game, the registry's first stands in.
    let mut game =
        Game { kind: GameKind::ALL[0], options: Options::new(), side: Side::First, pos: None, line: String::new(), guessed: false };
    for line in stdin.lock().lines() {
        let line = line.context("cannot read stdin")?;
        match ToBot::parse(&line) {
            ToBot::Hello { .. } => {
                writeln!(out, "{}", FromBot::Name(format!("arbiter-{player}")))?;
                writeln!(out, "{}", FromBot::Author("Arbiter built-in players".to_string()))?;
                // Each `start` sets up a new position: it can play game after game.
                writeln!(out, "{}", FromBot::Reuse)?;
                writeln!(out, "{}", FromBot::Ready)?;
                out.flush()?;
            }
            ToBot::Game { kind, options } => {
                game.kind = kind;
                game.options = options.into_iter().collect();
            }
            ToBot::Side(side) => game.side = side,
            // The game's seed for this side: the same game plays the same moves (unless
            // `--seed` fixed the seed for every game).
            ToBot::Seed(game_seed) => {
                if args.seed.is_none() {
                    rng = ChaCha8Rng::seed_from_u64(u64::from(game_seed));
                }
            }
            ToBot::Start(text) => {
                let text = text.map(|line| proto::decode_start(game.kind, &line));
                game.pos = Some(game.kind.new_position(&game.options, text.as_deref()).context("cannot set up the start position")?);
                game.guessed = false;
            }
            ToBot::Opponent(Opponent::Move(text)) => {
                if let Some(pos) = &mut game.pos
                    && pos.play_text(&text).is_err()
                {
                    eprintln!("arbiter-{player}: cannot play the opponent's move {text:?} here; rebuilding from the position");
                    game.guessed = true;
                }
            }
            ToBot::Opponent(Opponent::Hidden) => {
                if let Some(pos) = &mut game.pos {
                    let stand_in = pos.random_move_text(&mut rng).context("a hidden move in a finished game")?;
                    pos.play_text(&stand_in).expect("a random move is legal");
                    game.guessed = true;
                }
            }
            ToBot::Position(text) => game.line = text,
            ToBot::Time(ms) => time_left = ms.map(std::time::Duration::from_millis),
            ToBot::Go => {
                let began = std::time::Instant::now();
                let deadline = players::think_time(time_left, None, None).map(|think| began + think);
                let stop = || deadline.is_some_and(|d| std::time::Instant::now() >= d);
                player.check_plays(game.kind, &game.options)?;
                let pos = current(&mut game)?;
                let Some(text) = player.choose_text(pos, &mut rng, &stop) else {
                    bail!("asked to move in a finished game");
                };
                pos.play_text(&text).expect("a built-in player's move is legal");
                eprintln!("arbiter-{player}: move {} plays {text}", pos.n_moves());
                writeln!(out, "{}", FromBot::Move(text))?;
                out.flush()?;
            }
            ToBot::Result { verdict, scores } => {
                let scores = scores.map(|[a, b]| format!(" ({a} : {b})")).unwrap_or_default();
                eprintln!("arbiter-{player}: {}{scores}", verdict.as_str());
            }
            ToBot::Quit => break,
            ToBot::Legal(_) => {}
            ToBot::Unknown(text) => eprintln!("arbiter-{player}: ignoring {text:?}"),
        }
    }
    Ok(())
}

/// The position to move in: the bot's own, or, where it holds a stand-in or disagrees
/// with the referee's line, the one rebuilt from the line where the game allows it.
fn current(game: &mut Game) -> anyhow::Result<&mut AnyPosition> {
    let Some(pos) = &mut game.pos else {
        bail!("go before start");
    };
    if proto::format_position(pos) != game.line {
        match proto::parse_position(game.kind, &game.options, &game.line) {
            Ok(rebuilt) => {
                *pos = rebuilt;
                game.guessed = false;
            }
            Err(err) if game.guessed => eprintln!("{err}; playing on a guess"),
            Err(err) => bail!("my position differs from the referee's and {err}"),
        }
    }
    if pos.to_move() != Some(game.side) {
        bail!("asked to move, but by my position it is not my turn");
    }
    Ok(pos)
}

/// The player as a UCI chess engine: `uci` and `isready` answered, `position` set up
/// (the start text of chess is `position`'s arguments), `go` answered with `bestmove`
/// within a fortieth of its clock (or a quarter of `movetime`), `quit` ends it.
fn run_uci(player: Builtin, rng: &mut ChaCha8Rng) -> anyhow::Result<()> {
    use protocols::uci::Command;
    let kind = GameKind::from_name("chess")?;
    let options = Options::new();
    let mut pos: Option<AnyPosition> = None;
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        let line = line.context("cannot read stdin")?;
        match Command::parse(&line) {
            Some(Command::Uci) => {
                writeln!(out, "id name arbiter-{player}\nid author Arbiter built-in players\nuciok")?;
                out.flush()?;
            }
            Some(Command::IsReady) => {
                writeln!(out, "readyok")?;
                out.flush()?;
            }
            Some(Command::Position(args)) => {
                pos = Some(kind.new_position(&options, Some(&args)).with_context(|| format!("position {args}"))?);
            }
            Some(Command::Go(go)) => {
                let Some(pos) = &pos else { bail!("go before position") };
                let own = match pos.to_move() {
                    Some(Side::First) => go.wtime,
                    _ => go.btime,
                };
                let ms = |v: Option<u64>| v.map(std::time::Duration::from_millis);
                let began = std::time::Instant::now();
                let deadline = players::think_time(ms(go.movetime), ms(own), None).map(|think| began + think);
                let stop = || deadline.is_some_and(|d| std::time::Instant::now() >= d);
                let text = player.choose_text(pos, rng, &stop).unwrap_or_else(|| "0000".to_string());
                writeln!(out, "bestmove {text}")?;
                out.flush()?;
            }
            Some(Command::Quit) => break,
            Some(Command::UciNewGame | Command::SetOption { .. } | Command::Stop) | None => {}
        }
    }
    Ok(())
}
