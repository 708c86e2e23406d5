//! `arbiter games`: the games, their options and defaults, as text or JSON.

use rules::GameKind;
use serde_json::json;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    if args.json {
        let games: Vec<_> = GameKind::ALL
            .iter()
            .map(|kind| {
                json!({
                    "name": kind.name(),
                    "title": kind.title(),
                    "sides": kind.side_names(),
                    "notation": kind.notation(),
                    "enumerable": kind.is_enumerable(),
                    "options": kind.options().iter().map(|o| json!({
                        "name": o.name, "default": o.default, "help": o.help,
                    })).collect::<Vec<_>>(),
                })
            })
            .collect();
        println!("{}", serde_json::to_string_pretty(&games)?);
        return Ok(());
    }
    for kind in GameKind::ALL {
        println!("{}  {}", kind.name(), kind.title());
        let [first, second] = kind.side_names();
        println!("    sides: {first} moves first, {second} second");
        println!("    moves: {}", kind.notation());
        if kind.options().is_empty() {
            println!("    options: none");
        }
        for option in kind.options() {
            println!("    -o {}={:<8} {}", option.name, option.default, option.help);
        }
        println!();
    }
    Ok(())
}
