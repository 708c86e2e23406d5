//! `arbiter replay FILE --turn N --bot BOT`: what the referee wrote to a bot at turn N
//! of a recorded game (each turn keeps its input), fed to a local bot, with its answer
//! and stderr beside the recorded move: a bot author replays the exact turn that went
//! wrong. The project protocol gets a fresh session (the handshake's first line, the
//! game's lines, then every turn of that side up to N, as the game gave them); a Gomocup
//! brain too (every turn of that side up to N as written, its first beginning with
//! `START 10` and the `INFO` lines, then `END`); a per-move interface gets turn N's input
//! alone.

use std::path::Path;
use std::time::Duration;

use anyhow::{Context, bail};
use referee::{BotSpec, Protocol, TurnClock, TurnRecord};
use rules::{GameKind, Options, Side};
use serde::Deserialize;

use crate::terminal::printable;

/// How long the bot may take to answer all the turns it is given.
const REPLAY_TIME: Duration = Duration::from_secs(60);

/// What a replay needs of a game: a record (`play --record`, a tournament's), the web
/// arena's kept game (`{"origin", "record"}`) or the viewer's download all have it.
#[derive(Deserialize)]
struct Game {
    game: String,
    #[serde(default)]
    options: Options,
    #[serde(default)]
    start: Option<String>,
    turns: Vec<TurnRecord>,
}

pub fn run(args: &super::replay::Args, n: usize, bot: &Path) -> anyhow::Result<()> {
    let text = read_game(args)?;
    let value: serde_json::Value = serde_json::from_str(&text).with_context(|| format!("{} is not a game record", args.file.display()))?;
    let value = value.get("record").cloned().unwrap_or(value);
    let game: Game = serde_json::from_value(value).with_context(|| format!("{} is not a game record", args.file.display()))?;
    let kind = GameKind::from_name(&game.game).map_err(|err| anyhow::anyhow!("{}: {err}", args.file.display()))?;
    if n == 0 || n > game.turns.len() {
        bail!("--turn {n}: the game has turns 1 to {}", game.turns.len());
    }
    let turn = &game.turns[n - 1];
    if turn.input.is_empty() {
        bail!("turn {n} has no input kept: it was played by a built-in player or a person, or recorded before inputs were kept");
    }
    let spec = BotSpec::from_arg(&bot.to_string_lossy()).map_err(|err| anyhow::anyhow!("--bot {}: {err}", bot.display()))?;
    let BotSpec::Program(program) = spec else { bail!("--bot {}: give a bot's folder or its bot.toml", bot.display()) };
    let side = Side::from_index(turn.side).context("a turn's side is 0 or 1")?;
    // The turns of the side up to N, which a bot that keeps a session is given again.
    let session = || game.turns[..n].iter().filter(|t| t.side == turn.side).map(|t| t.input.as_str()).collect::<String>();
    let input = match program.manifest.protocol {
        Protocol::Arbiter => {
            referee::drivers::arbiter::session_start(kind, &game.options, game.start.as_deref(), side) + &session() + "quit\n"
        }
        Protocol::Gomocup => {
            // A brain kept from an earlier game was restarted; a fresh one is started.
            let session = session();
            let restarted = session.strip_prefix(&protocols::gomocup::Command::Restart.format());
            let start = protocols::gomocup::Command::Start(referee::drivers::gomocup::BOARD_SIZE).format();
            restarted.map_or(session.clone(), |rest| start + rest) + &protocols::gomocup::Command::End.format()
        }
        Protocol::Legions | Protocol::Nupud | Protocol::Pahtum => turn.input.clone(),
        other => bail!(
            "--bot {}: its interface {} is not replayed here (a file it reads, a dialogue or a connection): the viewer shows what \
             the referee wrote to it",
            bot.display(),
            other.name()
        ),
    };
    let sandbox = super::sandboxing::decide(args.sandbox.to_policy(), true)?;
    super::sandboxing::warn(&sandbox);
    let mut limits = referee::Limits::for_kind(kind);
    limits.sandboxed = sandbox.sandboxed;
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().context("cannot start the async runtime")?;
    let once = runtime.block_on(async {
        program.build_if_needed(limits.sandboxed).await.map_err(|err| anyhow::anyhow!("building {}: {err}", bot.display()))?;
        let folder = referee::folders::GameFolder::create_async().await.context("cannot make a working folder")?;
        let copied = program.copy_workdir(folder.path());
        let command = referee::drivers::command(&program, folder.path(), &limits, &[]);
        let clock = TurnClock { move_time: Some(REPLAY_TIME), ..TurnClock::default() };
        let once = match copied {
            Ok(()) => referee::drivers::run_once(&command, input.as_bytes(), &clock).await.map_err(|err| anyhow::anyhow!("{err}")),
            Err(err) => Err(anyhow::anyhow!("cannot copy {} to a working folder: {err}", bot.display())),
        };
        folder.remove_async().await;
        once
    })?;
    let names = kind.side_names();
    println!("turn {n}: {} to move; the referee wrote:", names[turn.side]);
    for line in turn.input.lines() {
        println!("> {}", printable(line));
    }
    let output = once.output.as_ref().map(|out| String::from_utf8_lossy(out).into_owned());
    // A session's answer to turn N is its answer to the side's last turn given.
    let nth = game.turns[..n].iter().filter(|t| t.side == turn.side).count() - 1;
    let answer: Option<String> = match (&output, program.manifest.protocol) {
        (Ok(out), Protocol::Arbiter) => out.lines().filter_map(|l| l.strip_prefix("move ")).nth(nth).map(str::to_string),
        // A brain answers `x,y`; the record writes the move in the notation (`B7`).
        (Ok(out), Protocol::Gomocup) => out
            .lines()
            .filter_map(|l| protocols::gomocup::Cell::parse(l.trim()))
            .nth(nth)
            .map(|cell| cell.to_move().map_or_else(|| cell.to_string(), |mv| mv.to_string())),
        (Ok(out), _) => out.lines().find(|l| !l.trim().is_empty()).map(str::to_string),
        (Err(_), _) => None,
    };
    let answer = answer.as_deref();
    match (&once.output, answer) {
        (_, Some(answer)) => println!("answer: {}", printable(answer.trim())),
        (Err(fault), None) => println!("no answer: {}", printable(&fault.detail)),
        (Ok(_), None) => println!("no answer"),
    }
    match &turn.text {
        Some(recorded) if answer.map(str::trim) == Some(recorded.as_str()) => println!("recorded: {} (the same)", printable(recorded)),
        Some(recorded) => println!("recorded: {} (different)", printable(recorded)),
        None => println!("recorded: no move (the turn ended in a fault)"),
    }
    println!("stderr ({} bytes):", once.stderr.text.len());
    for line in once.stderr.text.lines() {
        println!("{}", printable(line));
    }
    Ok(())
}

/// The game's text: the file, or with `--game KEY` the record of that game of a
/// results database.
fn read_game(args: &super::replay::Args) -> anyhow::Result<String> {
    let Some(key) = args.game.as_deref() else {
        return std::fs::read_to_string(&args.file).with_context(|| format!("cannot read {}", args.file.display()));
    };
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().context("cannot start the async runtime")?;
    runtime.block_on(async {
        let store = store::Store::open_read_only(&args.file).await?;
        let record = store.game_record(key).await?;
        store.close().await;
        record.with_context(|| {
            format!("{} holds no game {key:?}; `arbiter replay {}` lists its games", args.file.display(), args.file.display())
        })
    })
}
