//! `arbiter info BOT`: what a bot says about itself through its own interface (Gomoku
//! `INFO`, Legions and Nupud on empty stdin, the Connect Four and project protocols'
//! name, Gomocup's `ABOUT` with its version and country), beside what its manifest
//! says. A bot that fails shows what it wrote on stderr (a traceback, say). The bot runs
//! inside the sandbox unless `--no-sandbox`, as in `play`.

use anyhow::Context;
use referee::{BotSpec, StartError};

use crate::terminal::printable;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The bot: a bot.toml or its folder (or random, greedy, human).
    bot: String,
    #[command(flatten)]
    sandbox: super::sandboxing::SandboxArgs,
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    let spec = BotSpec::from_arg(&args.bot)?;
    let BotSpec::Program(bot) = &spec else {
        println!("{}: a built-in player of Arbiter", printable(&spec.name()));
        return Ok(());
    };
    println!("manifest: {}", printable(&bot.manifest_path.display().to_string()));
    println!("game:     {}", bot.game.map_or("any (the arbiter protocol)".to_string(), |game| game.to_string()));
    println!("protocol: {}", bot.manifest.protocol.name());
    println!("command:  {}", printable(&bot.command.join(" ")));
    if let Some(sha) = bot.fingerprint() {
        println!("sha256:   {sha}");
    }
    // Asking is running the bot (and its build): inside the sandbox, as `play` does.
    let sandbox = super::sandboxing::decide(args.sandbox.to_policy(), true)?;
    super::sandboxing::warn(&sandbox);
    let workdir = tempfile::Builder::new().prefix("arbiter-info-").tempdir().context("cannot make a working directory")?;
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().context("cannot start the async runtime")?;
    match runtime.block_on(referee::drivers::describe_in(bot, workdir.path(), sandbox.sandboxed)) {
        Ok(Some(identity)) => {
            println!("name:     {}", printable(&identity.name));
            if let Some(author) = identity.author {
                println!("author:   {}", printable(&author));
            }
            for (key, value) in &identity.details {
                println!("{:<9} {}", format!("{}:", printable(key)), printable(value));
            }
            Ok(())
        }
        Ok(None) => {
            println!(
                "name:     {} (from the manifest: the {} interface has no self-description)",
                printable(&bot.manifest.name),
                bot.manifest.protocol.name()
            );
            Ok(())
        }
        Err(StartError::Bot { fault, stderr }) => {
            if !stderr.text.is_empty() {
                println!("stderr:");
                for line in stderr.text.lines() {
                    println!("   | {}", printable(line));
                }
                if stderr.dropped > 0 {
                    println!("   | [... {} more bytes of stderr dropped]", stderr.dropped);
                }
            }
            anyhow::bail!("the bot did not describe itself: {}", printable(&fault.detail))
        }
        Err(StartError::Referee(err)) => Err(anyhow::Error::new(err).context("cannot ask the bot to describe itself")),
    }
}
