//! `arbiter players`: the built-in players per game, weakest first, with what each does
//! and its strength as measured for `docs/players.md` (Elo relative to `random`), per
//! board measured (Connect Four's 7x6 and 20x20).

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
    // Each game's measured boards (its default board first), or its default board alone.
    let mut boards = Vec::new();
    for kind in GameKind::ALL {
        let ladders: Vec<_> = players::LADDERS.iter().filter(|ladder| ladder.game == kind.name()).collect();
        if ladders.is_empty() {
            boards.push(Board { kind, ladder: None });
        }
        boards.extend(ladders.into_iter().map(|ladder| Board { kind, ladder: Some(ladder) }));
    }
    if args.json {
        let list: Vec<_> = boards
            .iter()
            .map(|board| {
                let rungs: Vec<_> = board
                    .rungs()
                    .iter()
                    .map(|(b, elo)| {
                        json!({ "name": b.name(), "summary": b.rung.summary(),
                                "elo": elo.map(|e| e.elo), "error": elo.map(|e| e.error) })
                    })
                    .collect();
                json!({ "game": board.kind.name(), "board": board.ladder.map(|l| l.board),
                        "options": board.options(), "players": rungs })
            })
            .collect();
        println!("{}", serde_json::to_string_pretty(&list)?);
        return Ok(());
    }
    for board in &boards {
        let options: Vec<String> =
            board.ladder.map_or(&[][..], |l| l.options).iter().map(|(key, value)| format!("-o {key}={value}")).collect();
        match (board.ladder, options.is_empty()) {
            (None, _) => println!("{}", board.kind.name()),
            (Some(ladder), true) => println!("{} {}", board.kind.name(), ladder.board),
            (Some(ladder), false) => println!("{} {} ({})", board.kind.name(), ladder.board, options.join(" ")),
        }
        for (builtin, elo) in board.rungs() {
            let strength = match elo {
                Some(e) => format!("Elo {:+} ± {}", e.elo, e.error),
                None => "not measured".to_string(),
            };
            println!("    {:<8} {:<22} {}", builtin.name(), strength, builtin.rung.summary());
        }
        println!();
    }
    println!("Elo relative to random on the same board, from round robins and matches run by arbiter at each");
    println!("game's seed limits; the commands and games behind every figure are in docs/players.md.");
    Ok(())
}

/// A game on one board: a measured ladder's, or the default board's when none was measured.
struct Board {
    kind: GameKind,
    ladder: Option<&'static players::Ladder>,
}

impl Board {
    fn options(&self) -> Options {
        self.ladder.map(players::Ladder::options).unwrap_or_default()
    }

    /// The rungs that play on this board, weakest first, with their measured strength.
    fn rungs(&self) -> Vec<(Builtin, Option<players::Strength>)> {
        let options = self.options();
        Builtin::ALL
            .into_iter()
            .filter(|b| b.rung.plays(self.kind, &options))
            .map(|b| (b, self.ladder.and_then(|ladder| ladder.strength(b.rung))))
            .collect()
    }
}
