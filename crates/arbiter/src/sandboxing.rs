//! The sandbox on the command line: `--no-sandbox`, `--allow-degraded-sandbox`, the
//! check before bots run, and `arbiter sandbox-check`.

use anyhow::bail;
use sandbox::{Guarantee, Status};

/// Sandbox flags shared by the commands that run bots.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct SandboxArgs {
    /// Run program bots inside the sandbox (namespaces, Landlock, seccomp, rlimits,
    /// cgroups, a lifeline; see docs/security.md). Every guarantee must hold on this
    /// machine (see `arbiter sandbox-check`).
    #[arg(long)]
    pub sandbox: bool,
    /// With --sandbox: run even when some guarantee is not enforced here (what is
    /// missing is printed, and recorded with a tournament's results).
    #[arg(long, requires = "sandbox")]
    pub allow_degraded_sandbox: bool,
}

/// Sandbox flags of `arbiter tournament`, where the sandbox is the default.
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
    pub fn to_args(&self) -> SandboxArgs {
        SandboxArgs { sandbox: !self.no_sandbox, allow_degraded_sandbox: self.allow_degraded_sandbox }
    }
}

/// What a run does about the sandbox.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decision {
    pub sandboxed: bool,
    /// Guarantees that are not fully enforced (accepted with --allow-degraded-sandbox).
    pub degraded: Vec<String>,
}

/// Every guarantee: the helper's (filesystem, network, syscalls, namespaces, rlimits,
/// environment, lifeline) and the cgroups' (memory, processes, kill-the-tree, CPU
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
/// unless the organiser allowed it.
pub fn decide(args: &SandboxArgs, has_programs: bool) -> anyhow::Result<Decision> {
    if !args.sandbox || !has_programs {
        return Ok(Decision { sandboxed: args.sandbox && has_programs, degraded: Vec::new() });
    }
    let degraded: Vec<String> = guarantees().into_iter().filter(|g| g.status != Status::Enforced).map(|g| g.to_string()).collect();
    if !degraded.is_empty() && !args.allow_degraded_sandbox {
        bail!(
            "the sandbox cannot enforce every guarantee here ({}); pass --allow-degraded-sandbox to run anyway, or run trusted bots without the sandbox (see arbiter sandbox-check)",
            degraded.join("; ")
        );
    }
    Ok(Decision { sandboxed: true, degraded })
}

#[derive(clap::Args, Debug)]
pub struct CheckArgs {}

/// `arbiter sandbox-check`: one line per guarantee; exit code 1 if one is not enforced.
pub fn run_check(_args: &CheckArgs) -> anyhow::Result<()> {
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
