//! `arbiter languages`: the published set of languages bots may be written in
//! (`crates/languages`), each with the version its toolchain reports in the root the
//! bots get (the machine's folders, or the system image of `ARBITER_SYSTEM_IMAGE`), or
//! why it is missing. Each version command runs as a build does, in the sandbox.

use anyhow::Context;
use languages::Language;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Ask the toolchains outside the sandbox (what this machine's own PATH finds).
    #[arg(long)]
    no_sandbox: bool,
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().context("cannot start the async runtime")?;
    let sandboxed = !args.no_sandbox;
    let found: Vec<(Language, Result<String, String>)> = runtime.block_on(async {
        let mut tasks = Vec::new();
        for language in Language::ALL {
            tasks.push((language, tokio::spawn(version(language, sandboxed))));
        }
        let mut found = Vec::new();
        for (language, task) in tasks {
            found.push((language, task.await.context("a version check stopped")??));
        }
        Ok::<_, anyhow::Error>(found)
    })?;
    if sandboxed {
        println!("toolchains in the bots' root: {}", sandbox::machine::describe(sandbox::machine::system()));
    } else {
        println!("toolchains outside the sandbox (this machine's PATH)");
    }
    let width = Language::ALL.iter().map(|l| l.name().len()).max().unwrap_or(0);
    let mut missing = Vec::new();
    for (language, version) in &found {
        match version {
            Ok(version) => println!("{:width$}  {version}", language.name()),
            Err(why) => {
                println!("{:width$}  missing: {why}", language.name());
                missing.push(*language);
            }
        }
    }
    if !missing.is_empty() {
        let names: Vec<&str> = missing.iter().map(|l| l.name()).collect();
        let packages: Vec<&str> = missing.iter().flat_map(|l| l.spec().packages.iter().copied()).collect();
        anyhow::bail!(
            "{} missing: install Debian's {} (scripts/setup-languages), or give the bots a system image with them (arbiter system build)",
            names.join(", "),
            packages.join(" ")
        );
    }
    Ok(())
}

/// The version line of a language's toolchain, or why there is none.
async fn version(language: Language, sandboxed: bool) -> anyhow::Result<Result<String, String>> {
    let dir = tempfile::tempdir().context("cannot make a folder for the version check")?;
    let argv: Vec<String> = language.spec().version.iter().map(|s| s.to_string()).collect();
    let build = referee::build::Build { dir: dir.path(), argv: &argv, program: None, read_only: Vec::new(), sandboxed };
    let run = referee::build::run(&build).await.with_context(|| format!("cannot ask for the version of {}", language.name()))?;
    // The log: the command line, then what it printed.
    let output = run.log.split_once('\n').map_or("", |(_, rest)| rest);
    Ok(match run.failure {
        None => Language::version_line(output, "").ok_or_else(|| "its version command printed nothing".to_string()),
        Some(failure) => {
            let last = output.lines().map(str::trim).rfind(|l| !l.is_empty() && *l != failure);
            Err(last.map_or(failure.clone(), |line| format!("{failure} ({line})")))
        }
    })
}
