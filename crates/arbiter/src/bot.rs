//! STUB: `arbiter bot`, a built-in player behind the project's own protocol; to be written.

#[derive(clap::Args, Debug)]
pub struct Args {}

pub fn run(_args: &Args) -> anyhow::Result<()> {
    anyhow::bail!("arbiter bot is not written yet")
}
