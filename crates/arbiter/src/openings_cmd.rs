//! `arbiter openings GAME --count N --seed S`: reproducible, balanced start positions for
//! a tournament's secret stages, in the openings-file format.

use rules::GameKind;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The game (gomoku, connect4 and pahtum have generated start positions).
    game: String,
    /// How many positions.
    #[arg(long, default_value_t = 5)]
    count: usize,
    /// The seed: the same seed gives the same positions.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// A game option (repeatable), e.g. `-o blocked=7` for Pah-tum.
    #[arg(short = 'o', long = "option", value_name = "KEY=VALUE")]
    options: Vec<String>,
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    let kind = GameKind::from_name(&args.game)?;
    let options = super::parse_options(kind, &args.options)?;
    let positions = tournament::openings::generate(kind, &options, args.count, args.seed, &players::medium_wins_within)?;
    print!("{}", tournament::openings::format_file(&positions));
    Ok(())
}
