//! `arbiter verify GAME`: checks game records given as JSON lines on stdin and writes
//! one JSON verdict per line. A record that says its game and options (as `play
//! --record` writes them) is checked under those. The contract is in `docs/verify.md`.

use std::io::{BufRead, Write};

use anyhow::Context;
use rules::{GameKind, Options};
use serde::{Deserialize, Serialize};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The game of the records.
    game: String,
    /// A game option, e.g. `-o width=20 -o height=20` (repeatable), for records that do
    /// not give their options; a record that does must agree with it.
    #[arg(short = 'o', long = "option", value_name = "KEY=VALUE")]
    options: Vec<String>,
}

/// One input line.
#[derive(Deserialize)]
struct Record {
    moves: Vec<MoveText>,
    #[serde(default)]
    start: Option<String>,
    /// The game the record says it is of (`play --record` writes it).
    #[serde(default)]
    game: Option<String>,
    /// The options the record says it was played with (the others at their defaults).
    #[serde(default)]
    options: Option<Options>,
}

/// A move as a JSON string, or a number for games whose moves are numbers (a Connect
/// Four column).
#[derive(Deserialize)]
#[serde(untagged)]
enum MoveText {
    Text(String),
    Number(serde_json::Number),
}

impl MoveText {
    fn into_string(self) -> String {
        match self {
            MoveText::Text(text) => text,
            MoveText::Number(number) => number.to_string(),
        }
    }
}

/// One output line.
#[derive(Serialize, Debug, PartialEq)]
#[serde(tag = "status", rename_all = "lowercase")]
pub enum Verdict {
    Ongoing {
        winner: Option<usize>,
        scores: Option<[i64; 2]>,
        #[serde(skip_serializing_if = "Option::is_none")]
        legal: Option<Vec<String>>,
    },
    Over {
        winner: Option<usize>,
        scores: Option<[i64; 2]>,
    },
    Illegal {
        ply: usize,
        error: String,
    },
    Invalid {
        error: String,
    },
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    let kind = GameKind::from_name(&args.game)?;
    let options = super::parse_options(kind, &args.options)?;
    let given = Given { options, explicit: !args.options.is_empty() };
    let stdin = std::io::stdin().lock();
    let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
    for line in stdin.lines() {
        let line = line.context("cannot read stdin")?;
        let verdict = verify_line(kind, &given, &line);
        serde_json::to_writer(&mut stdout, &verdict).context("cannot write stdout")?;
        stdout.write_all(b"\n").context("cannot write stdout")?;
    }
    stdout.flush().context("cannot write stdout")?;
    Ok(())
}

/// The options of the command line, and whether any were given (`-o`).
pub struct Given {
    pub options: Options,
    pub explicit: bool,
}

/// The verdict on one input line. Never fails: a bad line is a verdict too.
pub fn verify_line(kind: GameKind, given: &Given, line: &str) -> Verdict {
    let record: Record = match serde_json::from_str(line) {
        Ok(record) => record,
        Err(err) => return Verdict::Invalid { error: format!("not a record {{\"moves\": [...], \"start\": ...}}: {err}") },
    };
    if let Some(game) = &record.game
        && GameKind::from_name(game).ok() != Some(kind)
    {
        return Verdict::Invalid { error: format!("a record of {game}, not of {kind}: verify it with `arbiter verify {game}`") };
    }
    let options = match record_options(kind, given, record.options.as_ref()) {
        Ok(options) => options,
        Err(error) => return Verdict::Invalid { error },
    };
    // The same replay as the web arena's check of an HTTP worker's records.
    let moves = record.moves.into_iter().map(MoveText::into_string);
    let pos = match rules::replay::replay(kind, &options, record.start.as_deref(), moves) {
        rules::replay::Replayed::Played(pos) => pos,
        rules::replay::Replayed::Illegal { ply, error } => return Verdict::Illegal { ply, error },
        rules::replay::Replayed::Invalid { error } => return Verdict::Invalid { error },
    };
    match pos.outcome() {
        Some(outcome) => Verdict::Over { winner: outcome.winner.map(|side| side.index()), scores: outcome.scores },
        None => Verdict::Ongoing { winner: None, scores: pos.running_scores(), legal: pos.legal_moves_text() },
    }
}

/// The options a record is checked under: its own when it gives them (an option of the
/// command line must then say the same), else the command line's.
fn record_options(kind: GameKind, given: &Given, own: Option<&Options>) -> Result<Options, String> {
    let Some(own) = own else { return Ok(given.options.clone()) };
    if given.explicit {
        let specs = kind.options();
        for (name, value) in &given.options {
            // Unknown names in the record are refused below, when the position is made.
            if !specs.iter().any(|spec| spec.name == name) {
                continue;
            }
            let recorded = rules::options::get_text(specs, own, name);
            if recorded.trim() != value.trim() {
                return Err(format!("the record was played with {name}={recorded}, not {name}={value} as -o says"));
            }
        }
    }
    Ok(own.clone())
}
