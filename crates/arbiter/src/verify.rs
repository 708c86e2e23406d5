//! `arbiter verify GAME`: checks game records given as JSON lines on stdin and writes
//! one JSON verdict per line. The contract is in `docs/verify.md`.

use std::io::{BufRead, Write};

use anyhow::Context;
use rules::{GameKind, MoveError, Options};
use serde::{Deserialize, Serialize};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The game of the records.
    game: String,
    /// A game option, e.g. `-o width=20 -o height=20` (repeatable).
    #[arg(short = 'o', long = "option", value_name = "KEY=VALUE")]
    options: Vec<String>,
}

/// One input line.
#[derive(Deserialize)]
struct Record {
    moves: Vec<MoveText>,
    #[serde(default)]
    start: Option<String>,
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
    let stdin = std::io::stdin().lock();
    let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
    for line in stdin.lines() {
        let line = line.context("cannot read stdin")?;
        let verdict = verify_line(kind, &options, &line);
        serde_json::to_writer(&mut stdout, &verdict).context("cannot write stdout")?;
        stdout.write_all(b"\n").context("cannot write stdout")?;
    }
    stdout.flush().context("cannot write stdout")?;
    Ok(())
}

/// The verdict on one input line. Never fails: a bad line is a verdict too.
pub fn verify_line(kind: GameKind, options: &Options, line: &str) -> Verdict {
    let record: Record = match serde_json::from_str(line) {
        Ok(record) => record,
        Err(err) => return Verdict::Invalid { error: format!("not a record {{\"moves\": [...], \"start\": ...}}: {err}") },
    };
    let mut pos = match kind.new_position(options, record.start.as_deref()) {
        Ok(pos) => pos,
        Err(err) => return Verdict::Invalid { error: err.to_string() },
    };
    for (ply, text) in record.moves.into_iter().map(MoveText::into_string).enumerate() {
        if let Err(err) = pos.play_text(&text) {
            let error = match err {
                MoveError::GameOver => format!("move {text:?} after the end of the game"),
                other => other.to_string(),
            };
            return Verdict::Illegal { ply, error };
        }
    }
    match pos.outcome() {
        Some(outcome) => Verdict::Over { winner: outcome.winner.map(|side| side.index()), scores: outcome.scores },
        None => Verdict::Ongoing { winner: None, scores: pos.running_scores(), legal: pos.legal_moves_text() },
    }
}
