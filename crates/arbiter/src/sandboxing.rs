//! The sandbox on the command line: `--no-sandbox`, `--allow-degraded-sandbox`, the
//! check before bots run, and `arbiter sandbox-check`.

use anyhow::bail;
use sandbox::{Guarantee, Status};

/// Sandbox flags of `play`, `match` and `bench-play`: the sandbox is the default, and a
/// guarantee this machine lacks is a warning (see `docs/security.md` for why).
#[derive(clap::Args, Debug, Clone, Default)]
pub struct SandboxArgs {
    /// Run program bots without the sandbox (for trusted bots only, such as your own).
    #[arg(long)]
    pub no_sandbox: bool,
    /// Refuse to run unless this machine enforces every guarantee of the sandbox (by
    /// default what is missing is a warning and the bots run with the rest).
    #[arg(long, conflicts_with = "no_sandbox")]
    pub sandbox: bool,
}

impl SandboxArgs {
    pub fn to_policy(&self) -> Policy {
        let degraded = if self.sandbox { Degraded::Refuse("leave out --sandbox to run with a warning") } else { Degraded::Warn };
        Policy { sandboxed: !self.no_sandbox, degraded }
    }
}

/// Sandbox flags of `arbiter tournament` and `arbiter serve`, where a missing guarantee
/// stops the run unless the organiser allows it.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct TournamentSandboxArgs {
    /// Run program bots without the sandbox (for trusted bots only).
    #[arg(long)]
    pub no_sandbox: bool,
    /// Run even when the sandbox cannot enforce every guarantee on this machine (what
    /// is missing is printed and recorded in the tournament's notes).
    #[arg(long, conflicts_with = "no_sandbox")]
    pub allow_degraded_sandbox: bool,
}

impl TournamentSandboxArgs {
    pub fn to_policy(&self) -> Policy {
        let degraded =
            if self.allow_degraded_sandbox { Degraded::Warn } else { Degraded::Refuse("pass --allow-degraded-sandbox to run anyway") };
        Policy { sandboxed: !self.no_sandbox, degraded }
    }
}

/// What a command asks of the sandbox.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Policy {
    pub sandboxed: bool,
    /// What to do when this machine does not enforce every guarantee.
    pub degraded: Degraded,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Degraded {
    /// Stop with what is missing, and this hint.
    Refuse(&'static str),
    /// Run with what there is; the caller prints what is missing.
    Warn,
}

/// What a run does about the sandbox.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decision {
    pub sandboxed: bool,
    /// Guarantees that are not fully enforced (accepted by the policy).
    pub degraded: Vec<String>,
}

/// Every guarantee: the helper's (filesystem, network, syscalls, namespaces, process
/// visibility, rlimits, environment, lifeline) and the cgroups' (memory, processes, kill-the-tree, CPU
/// accounting).
pub fn guarantees() -> Vec<Guarantee> {
    let mut all = match sandbox::helper_path() {
        Some(helper) => sandbox::check(&helper),
        None => vec![Guarantee {
            name: "helper",
            status: Status::Missing(
                "the helper program arbiter-sandbox is not next to arbiter: build the workspace (cargo build)".to_string(),
            ),
        }],
    };
    let support = jail::cgroup::detect();
    let line = |name: &'static str, found: Option<String>, fallback: &str| Guarantee {
        name,
        status: match found {
            Some(_) => Status::Enforced,
            None => Status::Missing(fallback.to_string()),
        },
    };
    all.push(line(
        "memory",
        support.memory,
        "no writable memory cgroup: only the address-space rlimit caps memory; run as root with cgroups mounted",
    ));
    all.push(line("processes", support.pids, "no writable pids cgroup: a fork bomb is not capped; run as root with cgroups mounted"));
    all.push(line(
        "kill-the-tree",
        support.kill,
        "no cgroup.kill or freezer: a daemon that leaves the process group survives until the lifeline ends it",
    ));
    all.push(line("cpu-accounting", support.cpu, "no cpu.stat or cpuacct: CPU time is summed over the process group from /proc"));
    all
}

/// Decides whether bots run sandboxed, and refuses to go on with missing guarantees
/// when the policy says so. Without the helper program nothing can be sandboxed: that is
/// refused whatever the policy.
pub fn decide(policy: Policy, has_programs: bool) -> anyhow::Result<Decision> {
    if !policy.sandboxed || !has_programs {
        return Ok(Decision { sandboxed: false, degraded: Vec::new() });
    }
    if sandbox::helper_path().is_none() {
        bail!(
            "the sandbox helper arbiter-sandbox is not next to arbiter: build the workspace (cargo build), or pass --no-sandbox for trusted bots"
        );
    }
    let degraded: Vec<String> = guarantees().into_iter().filter(|g| g.status != Status::Enforced).map(|g| g.to_string()).collect();
    if let (false, Degraded::Refuse(hint)) = (degraded.is_empty(), policy.degraded) {
        bail!(
            "the sandbox cannot enforce every guarantee here ({}); {hint}, or run trusted bots with --no-sandbox (see arbiter sandbox-check)",
            degraded.join("; ")
        );
    }
    Ok(Decision { sandboxed: true, degraded })
}

/// Prints what the sandbox of this run lacks, one warning per guarantee.
pub fn warn(decision: &Decision) {
    for line in &decision.degraded {
        eprintln!("warning: sandbox degraded: {line}");
    }
}

#[derive(clap::Args, Debug)]
pub struct CheckArgs {}

/// `arbiter sandbox-check`: one line per guarantee; exit code 1 if one is not enforced.
pub fn run_check(_args: &CheckArgs) -> anyhow::Result<()> {
    println!("system: {}", sandbox::machine::describe(sandbox::machine::system()));
    let all = guarantees();
    for guarantee in &all {
        println!("{guarantee}");
    }
    let missing = all.iter().filter(|g| g.status != Status::Enforced).count();
    if missing > 0 {
        bail!("{missing} guarantee(s) not fully enforced on this machine");
    }
    Ok(())
}
