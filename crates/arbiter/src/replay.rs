//! `arbiter replay FILE`: steps through a game record in the terminal, the position
//! after each move beside the bot's debug output for that move. FILE is a record of
//! `play --record`, or a tournament's results database (a file or a PostgreSQL URL):
//! alone it lists the stored games with their keys, `--game KEY` replays one, `--json` /
//! `--export FILE` give its record. `--turn N --bot BOT` feeds what the referee wrote to
//! a bot at turn N (kept in the record) to a local bot, and shows its answer and its
//! stderr.

use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;

use anyhow::{Context, bail};
use referee::GameRecord;
use rules::{AnyPosition, GameKind};

use store::Location;

use crate::terminal::printable;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// A record written by `arbiter play --record DIR`, or a tournament's results
    /// database, a file or a PostgreSQL URL (alone: lists its games with their keys;
    /// with --game: that game).
    pub(crate) file: PathBuf,
    /// The key of a game of the database to replay (as `arbiter replay DB` lists them).
    #[arg(long, value_name = "KEY")]
    pub(crate) game: Option<String>,
    /// With --game: print the game's record (the JSON line `play --record` writes)
    /// instead of replaying it.
    #[arg(long, requires = "game", conflicts_with = "export")]
    pub(crate) json: bool,
    /// With --game: write the game's record (the JSON line `play --record` writes) to
    /// this new file instead of replaying it.
    #[arg(long, value_name = "FILE", requires = "game")]
    pub(crate) export: Option<PathBuf>,
    /// Print every position at once instead of stepping (the default when stdin is
    /// not a terminal).
    #[arg(long)]
    pub(crate) all: bool,
    /// Feed the input of this turn (1 is the first; as the viewer numbers them) to --bot
    /// and show its answer and stderr. FILE may also be a game downloaded from the web
    /// arena's viewer.
    #[arg(long, value_name = "N", requires = "bot")]
    pub(crate) turn: Option<usize>,
    /// With --turn: the bot to ask (its folder or bot.toml).
    #[arg(long, value_name = "BOT", requires = "turn")]
    pub(crate) bot: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) sandbox: super::sandboxing::SandboxArgs,
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    if let (Some(turn), Some(bot)) = (args.turn, &args.bot) {
        return crate::replay_turn::run(args, turn, bot);
    }
    if args.game.is_some() || is_url(&args.file) || crate::standings_cmd::is_database(&args.file) {
        return from_database(args);
    }
    let text = std::fs::read_to_string(&args.file).with_context(|| format!("cannot read {}", args.file.display()))?;
    let record: GameRecord = serde_json::from_str(&text)
        .map_err(|err| anyhow::anyhow!("{} is neither a game record nor a results database ({err})", args.file.display()))?;
    step(&record, None, args.all)
}

/// Whether FILE is a PostgreSQL URL rather than a file.
fn is_url(file: &std::path::Path) -> bool {
    file.to_str().is_some_and(|text| Location::parse(text).is_postgres())
}

/// A game of a results database: listed, replayed or exported.
fn from_database(args: &Args) -> anyhow::Result<()> {
    let db = match args.file.to_str() {
        Some(text) if is_url(&args.file) => Location::parse(text),
        _ => Location::File(args.file.clone()),
    };
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().context("cannot start the async runtime")?;
    let (games, names, stage_names, record) = runtime.block_on(async {
        let store = store::Store::open_read_only_at(&db).await?;
        let file = db.name();
        let Some(tournament) = store.tournament().await? else {
            bail!("{file} holds no tournament yet");
        };
        let stage_names: Vec<String> = tournament::TournamentConfig::parse_without_entrants(&tournament.config_text, &file)
            .map(|config| config.stages.iter().map(|s| s.name.clone()).collect())
            .unwrap_or_default();
        let names: std::collections::BTreeMap<usize, String> = store.entrants().await?.into_iter().map(|e| (e.id, e.name)).collect();
        let games = store.games().await?;
        let record = match &args.game {
            Some(key) => match store.game_record(key).await? {
                Some(record) => Some(record),
                None => bail!("{file} holds no game {key:?}; `arbiter replay {file}` lists its games"),
            },
            None => None,
        };
        store.close().await;
        Ok((games, names, stage_names, record))
    })?;
    let name = |id: usize| names.get(&id).cloned().unwrap_or_else(|| format!("entrant {id}"));
    let Some(text) = record else {
        list(&games, &name, &stage_names);
        return Ok(());
    };
    let key = args.game.as_deref().expect("a record is read only for --game");
    if args.json {
        println!("{}", text.trim_end());
        return Ok(());
    }
    if let Some(path) = &args.export {
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)
            .with_context(|| format!("cannot create {} (an existing file is never overwritten)", path.display()))?;
        writeln!(file, "{}", text.trim_end()).with_context(|| format!("cannot write {}", path.display()))?;
        println!("game {key} written to {}", path.display());
        return Ok(());
    }
    let record: GameRecord = serde_json::from_str(&text).with_context(|| format!("the record of game {key:?} in {}", db.name()))?;
    let players = games.iter().find(|g| g.spec.key == key).map(|g| g.spec.players.map(&name));
    step(&record, players, args.all)
}

/// One line per stored game: key, stage, players, result, moves; in the order stored.
fn list(games: &[tournament::GameOutcome], name: &impl Fn(usize) -> String, stage_names: &[String]) {
    if games.is_empty() {
        println!("no games stored yet");
        return;
    }
    let mut table = vec![["key", "stage", "first", "second", "result", "moves"].map(String::from).to_vec()];
    for game in games {
        let players = game.spec.players.map(name);
        let result = match game.winner {
            Some(side) => format!("{} wins", players[side]),
            None => "draw".to_string(),
        };
        let scores = game.scores.map(|[a, b]| format!(" {a}:{b}")).unwrap_or_default();
        let fault = game.fault.as_ref().map(|(side, kind)| format!(" ({kind} by {})", players[*side])).unwrap_or_default();
        table.push(vec![
            game.spec.key.clone(),
            stage_names.get(game.spec.stage).cloned().unwrap_or_else(|| format!("{}", game.spec.stage + 1)),
            players[0].clone(),
            players[1].clone(),
            format!("{result}{scores}{fault}"),
            (game.moves[0] + game.moves[1]).to_string(),
        ]);
    }
    let widths: Vec<usize> = (0..table[0].len()).map(|c| table.iter().map(|r| text::width(&r[c])).max().unwrap_or(0)).collect();
    for row in &table {
        let line: Vec<String> = row.iter().zip(&widths).map(|(cell, w)| text::pad(cell, *w)).collect();
        println!("{}", line.join("  ").trim_end());
    }
}

/// Steps through a record (or prints it all); `players` names the sides instead of the
/// record's bot names (a tournament's entrant names).
fn step(record: &GameRecord, players: Option<[String; 2]>, all: bool) -> anyhow::Result<()> {
    let mut record = record.clone();
    if let Some(players) = players {
        for (seat, name) in record.players.iter_mut().zip(players) {
            seat.name = name;
        }
    }
    let record = &record;
    let positions = positions(record)?;
    let kind = positions[0].kind();
    let sides = kind.side_names();
    println!(
        "{}: {} ({}) vs {} ({}), {} moves, {}",
        kind,
        printable(&record.players[0].name),
        sides[0],
        printable(&record.players[1].name),
        sides[1],
        record.moves.len(),
        verdict(record, sides)
    );
    let interactive = !all && std::io::stdin().is_terminal();
    if !interactive {
        for ply in 0..positions.len() {
            show(record, &positions, ply);
        }
        return Ok(());
    }
    let mut ply = 0;
    let stdin = std::io::stdin();
    loop {
        show(record, &positions, ply);
        print!("[Enter] next, b back, a number jumps to that move, q quits> ");
        std::io::stdout().flush().context("cannot write stdout")?;
        let mut line = String::new();
        if stdin.lock().read_line(&mut line).context("cannot read stdin")? == 0 {
            return Ok(());
        }
        match line.trim() {
            "q" => return Ok(()),
            "b" => ply = ply.saturating_sub(1),
            "" | "n" => ply = (ply + 1).min(positions.len() - 1),
            other => match other.parse::<usize>() {
                Ok(n) if n < positions.len() => ply = n,
                _ => println!("(no move {other}: 0 to {})", positions.len() - 1),
            },
        }
    }
}

/// The start position and the position after every accepted move.
fn positions(record: &GameRecord) -> anyhow::Result<Vec<AnyPosition>> {
    let kind = GameKind::from_name(&record.game)?;
    let mut pos = kind.new_position(&record.options, record.start.as_deref()).context("the record's start position")?;
    let mut positions = vec![pos.clone()];
    for (ply, text) in record.moves.iter().enumerate() {
        if let Err(err) = pos.play_text(text) {
            bail!("move {} ({text}) of the record is refused: {err}", ply + 1);
        }
        positions.push(pos.clone());
    }
    Ok(positions)
}

fn show(record: &GameRecord, positions: &[AnyPosition], ply: usize) {
    let sides = positions[0].kind().side_names();
    if ply == 0 {
        println!("\nstart\n{}", positions[0].picture());
        return;
    }
    // Turn records include a final faulty turn, after the last accepted move.
    let accepted: Vec<_> = record.turns.iter().filter(|turn| turn.text.is_some()).collect();
    let turn = accepted[ply - 1];
    println!("\n{ply}. {} plays {} ({} ms)", sides[turn.side], printable(turn.text.as_deref().unwrap_or("?")), turn.ms);
    if let Some(note) = &turn.note {
        println!("   {}", printable(note));
    }
    crate::game_args::print_stderr(&turn.stderr, turn.stderr_dropped);
    println!("{}", positions[ply].picture());
    if ply == positions.len() - 1 {
        if let Some(fault) = record.turns.last().filter(|turn| turn.text.is_none()) {
            crate::game_args::print_stderr(&fault.stderr, 0);
        }
        println!("{}", verdict(record, sides));
    }
}

fn verdict(record: &GameRecord, sides: [&str; 2]) -> String {
    let result = match record.result.winner {
        Some(side) => format!("{} ({}) wins", record.players[side].name, sides[side]),
        None => "draw".to_string(),
    };
    let scores = record.result.scores.map(|[a, b]| format!(" {a}:{b}")).unwrap_or_default();
    printable(&format!("{result}{scores}, {}", record.result.termination.describe(sides))).into_owned()
}
