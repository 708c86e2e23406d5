//! `arbiter players`: the built-in players per game, weakest first, with what each does
//! and its strength as measured for `docs/players.md` (Elo relative to `random`).

use players::Builtin;
use rules::{GameKind, Options};
use serde_json::json;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    let mut games = Vec::new();
    for kind in GameKind::ALL {
        let rungs: Vec<_> = Builtin::ALL
            .into_iter()
            .filter(|b| b.rung.plays(kind, &Options::new()))
            .map(|b| (b, players::measured_elo(kind, b.rung)))
            .collect();
        games.push((kind, rungs));
    }
    if args.json {
        let list: Vec<_> = games
            .iter()
            .map(|(kind, rungs)| {
                let rungs: Vec<_> = rungs
                    .iter()
                    .map(|(b, elo)| {
                        json!({ "name": b.name(), "summary": b.rung.summary(),
                                "elo": elo.map(|e| e.elo), "error": elo.map(|e| e.error) })
                    })
                    .collect();
                json!({ "game": kind.name(), "players": rungs })
            })
            .collect();
        println!("{}", serde_json::to_string_pretty(&list)?);
        return Ok(());
    }
    for (kind, rungs) in games {
        println!("{}", kind.name());
        for (builtin, elo) in rungs {
            let strength = match elo {
                Some(e) => format!("Elo {:+} ± {}", e.elo, e.error),
                None => "not measured".to_string(),
            };
            println!("    {:<8} {:<22} {}", builtin.name(), strength, builtin.rung.summary());
        }
        println!();
    }
    println!("Elo relative to random, from round robins and matches run by arbiter on each game's default board");
    println!("(Connect Four 7x6; its 20x20 ladder and every figure's command are in docs/players.md).");
    Ok(())
}
