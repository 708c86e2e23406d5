//! `arbiter analyse GAME --moves "..."`: one JSON line about a position. Connect Four
//! 7×6 is solved exactly (`{"score": S, "move_scores": [...]}`, Pascal Pons' convention);
//! other games get the `strong` player's best move and evaluation with how far it
//! searched.

use anyhow::{Context, bail};
use players::{Analysis, Budget, Evaluation};
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;
use rules::GameKind;
use serde_json::{Value, json};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The game (`arbiter games` lists them).
    game: String,
    /// The moves from the start, in the game's notation, separated by spaces (by commas
    /// when the text holds a comma: Legions' orders have spaces); empty for the start.
    #[arg(long, default_value = "")]
    moves: String,
    /// A game option, e.g. `-o width=20` (repeatable).
    #[arg(short = 'o', long = "option", value_name = "KEY=VALUE")]
    options: Vec<String>,
    /// Search time in milliseconds (games without a solver).
    #[arg(long, default_value_t = 1000)]
    ms: u64,
    /// Search at most this many nodes (alpha-beta) or playouts (tree search) instead of
    /// stopping on time: the same answer every run.
    #[arg(long)]
    nodes: Option<u64>,
    /// Seed of the search's random choices and of a random start (Pah-tum's blocked squares).
    #[arg(long, default_value_t = 0)]
    seed: u64,
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    let kind = GameKind::from_name(&args.game)?;
    let options = super::parse_options(kind, &args.options)?;
    let mut rng = ChaCha8Rng::seed_from_u64(args.seed);
    let start = kind.random_start(&options, &mut rng)?;
    let mut pos = kind.new_position(&options, start.as_deref()).with_context(|| format!("options for {kind}"))?;
    let separator = if args.moves.contains(',') { ',' } else { ' ' };
    for (n, text) in args.moves.split(separator).map(str::trim).filter(|t| !t.is_empty()).enumerate() {
        pos.play_text(text).with_context(|| format!("move {} ({text:?})", n + 1))?;
    }
    let began = std::time::Instant::now();
    let deadline = args.nodes.is_none().then(|| began + std::time::Duration::from_millis(args.ms));
    let stop = || deadline.is_some_and(|d| std::time::Instant::now() >= d);
    let budget = Budget { nodes: args.nodes, stop: &stop };
    let Some(analysis) = players::analyse(&pos, &mut rng, &budget) else {
        bail!("the game is over: nothing to analyse");
    };
    let line = match analysis {
        // Written by hand to keep the key order (a JSON object has none of its own).
        Analysis::Solved(solved) => {
            println!("{{\"score\":{},\"move_scores\":{}}}", solved.score, serde_json::to_string(&solved.move_scores)?);
            return Ok(());
        }
        Analysis::Searched(found) => {
            let eval = match found.eval {
                Evaluation::Score(score) => json!({ "score": score }),
                Evaluation::Mate(plies) => json!({ "mate": plies }),
                Evaluation::WinRate(rate) => json!({ "win_rate": (rate * 1000.0).round() / 1000.0 }),
                Evaluation::Outcome(result) => json!({ "outcome": result }),
            };
            let reach = if found.depth > 0 { ("depth", json!(found.depth)) } else { ("playouts", json!(found.nodes)) };
            let mut line = json!({ "move": found.mv, "eval": eval, "nodes": found.nodes });
            if let Value::Object(map) = &mut line {
                map.insert(reach.0.to_string(), reach.1);
            }
            line
        }
    };
    println!("{line}");
    Ok(())
}
