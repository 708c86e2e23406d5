//! `arbiter replay FILE`: steps through a game record in the terminal, the position
//! after each move beside the bot's debug output for that move.

use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;

use anyhow::{Context, bail};
use referee::GameRecord;
use rules::{AnyPosition, GameKind};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// A record written by `arbiter play --record DIR`.
    file: PathBuf,
    /// Print every position at once instead of stepping (the default when stdin is
    /// not a terminal).
    #[arg(long)]
    all: bool,
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(&args.file).with_context(|| format!("cannot read {}", args.file.display()))?;
    let record: GameRecord = serde_json::from_str(&text).with_context(|| format!("{} is not a game record", args.file.display()))?;
    let positions = positions(&record)?;
    let kind = positions[0].kind();
    let sides = kind.side_names();
    println!(
        "{}: {} ({}) vs {} ({}), {} moves, {}",
        kind,
        record.players[0].name,
        sides[0],
        record.players[1].name,
        sides[1],
        record.moves.len(),
        verdict(&record, sides)
    );
    let interactive = !args.all && std::io::stdin().is_terminal();
    if !interactive {
        for ply in 0..positions.len() {
            show(&record, &positions, ply);
        }
        return Ok(());
    }
    let mut ply = 0;
    let stdin = std::io::stdin();
    loop {
        show(&record, &positions, ply);
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
    println!("\n{ply}. {} plays {} ({} ms)", sides[turn.side], turn.text.as_deref().unwrap_or("?"), turn.ms);
    if let Some(note) = &turn.note {
        println!("   {note}");
    }
    for line in turn.stderr.lines() {
        println!("   | {line}");
    }
    if turn.stderr_dropped > 0 {
        println!("   | [... {} more bytes of stderr dropped]", turn.stderr_dropped);
    }
    println!("{}", positions[ply].picture());
    if ply == positions.len() - 1 {
        if let Some(fault) = record.turns.last().filter(|turn| turn.text.is_none()) {
            for line in fault.stderr.lines() {
                println!("   | {line}");
            }
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
    format!("{result}{scores}, {}", record.result.termination.describe(sides))
}
