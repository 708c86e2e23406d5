//! STUB: `arbiter host connect4`, the seed's TCP test environment; to be written.

#[derive(clap::Args, Debug)]
pub struct Args {}

pub fn run(_args: &Args) -> anyhow::Result<()> {
    anyhow::bail!("arbiter host is not written yet")
}
