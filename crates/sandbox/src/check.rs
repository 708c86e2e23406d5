//! `arbiter-sandbox --check` and [`check`]: each guarantee probed for real, by running
//! the helper around itself in probe mode (see [`crate::probe`]) and looking at what the
//! confined probe could do.

use std::fs::File;
use std::io::{BufRead, Write};
use std::net::{TcpListener, UdpSocket};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use std::os::unix::process::{CommandExt, ExitStatusExt};

use crate::{Net, Policy};

/// What this machine does about one guarantee.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    Enforced,
    /// Partly enforced: what remains.
    Degraded(String),
    /// Not enforced: what to do about it.
    Missing(String),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Guarantee {
    pub name: &'static str,
    pub status: Status,
}

impl std::fmt::Display for Guarantee {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.status {
            Status::Enforced => write!(f, "{}: enforced", self.name),
            Status::Degraded(what) => write!(f, "{}: degraded ({what})", self.name),
            Status::Missing(what) => write!(f, "{}: missing ({what})", self.name),
        }
    }
}

/// Probes every guarantee of the helper at `helper`, in a scratch folder under the
/// system's temporary folder.
pub fn check(helper: &Path) -> Vec<Guarantee> {
    check_in(helper, &std::env::temp_dir())
}

/// Probes every guarantee with a scratch folder under `base`: a fresh folder of a name
/// nobody can foresee (in a shared `/tmp`, a name made of the process id alone could be
/// taken first by another user, or be a link to somewhere else), removed at the end.
pub fn check_in(helper: &Path, base: &Path) -> Vec<Guarantee> {
    let scratch = match tempfile::Builder::new().prefix("arbiter-sandbox-check-").tempdir_in(base) {
        Ok(scratch) => scratch,
        Err(err) => return cannot_create(base, &err),
    };
    match Scratch::create(scratch.path()) {
        Ok(s) => probe_all(helper, &s),
        Err(err) => cannot_create(scratch.path(), &err),
    }
}

fn cannot_create(path: &Path, err: &std::io::Error) -> Vec<Guarantee> {
    vec![Guarantee { name: "sandbox", status: Status::Missing(format!("cannot make a scratch folder in {}: {err}", path.display())) }]
}

struct Scratch {
    bot: PathBuf,
    other: PathBuf,
    lifeline: PathBuf,
}

impl Scratch {
    fn create(root: &Path) -> std::io::Result<Scratch> {
        let bot = root.join("bot");
        let other = root.join("other");
        std::fs::create_dir_all(&bot)?;
        std::fs::create_dir_all(&other)?;
        std::fs::write(other.join("secret"), "secret")?;
        let lifeline = root.join("lifeline");
        nix::unistd::mkfifo(&lifeline, nix::sys::stat::Mode::from_bits_truncate(0o600)).map_err(std::io::Error::from)?;
        Ok(Scratch { bot, other, lifeline })
    }
}

fn probe_all(helper: &Path, scratch: &Scratch) -> Vec<Guarantee> {
    let probe = |args: &[&str]| run_probe(helper, scratch, Net::None, args);
    let mut guarantees = Vec::new();

    let me = std::process::id();
    let inside = probe(&["write", &scratch.bot.join("mine").to_string_lossy()]);
    let escapes = [
        ("writes outside its folder", probe(&["write", &scratch.other.join("planted").to_string_lossy()])),
        ("reads another bot's folder", probe(&["read", &scratch.other.join("secret").to_string_lossy()])),
        ("reads ../other", probe(&["read", "../other/secret"])),
        ("reads another process's folder through /proc", probe(&["read", &format!("/proc/{me}/cwd")])),
        ("writes /tmp", probe(&["write", &std::env::temp_dir().join(format!("arbiter-probe-{me}")).to_string_lossy()])),
    ];
    guarantees.push(Guarantee {
        name: "filesystem",
        status: judge(
            inside.starts_with("ok"),
            "the bot cannot write its own folder",
            &escapes,
            "needs landlock (linux 5.13+, landlock in the lsm= boot list)",
        ),
    });

    let listener = TcpListener::bind("127.0.0.1:0").and_then(|l| l.set_nonblocking(true).map(|()| l));
    let udp = UdpSocket::bind("127.0.0.1:0");
    let net_escapes = match (&listener, &udp) {
        (Ok(listener), Ok(udp)) => {
            let tcp_addr = listener.local_addr().map(|a| a.to_string()).unwrap_or_default();
            let udp_addr = udp.local_addr().map(|a| a.to_string()).unwrap_or_default();
            let tcp = probe(&["connect", &tcp_addr]);
            let accepted = listener.accept().is_ok();
            vec![
                ("connects over tcp", if accepted { "ok: accepted".to_string() } else { tcp }),
                ("sends udp", probe(&["udp", &udp_addr])),
                ("opens an inet socket", probe(&["socket"])),
            ]
        }
        _ => vec![("opens an inet socket", probe(&["socket"]))],
    };
    guarantees.push(Guarantee {
        name: "network",
        status: judge(true, "", &net_escapes, "needs a network namespace (root) or seccomp and landlock abi 4"),
    });

    let status = probe(&["status"]);
    let syscalls = [
        ("unshares namespaces", probe(&["unshare"])),
        ("uses ptrace", probe(&["ptrace"])),
        ("leaves its process group (thinks while stopped)", probe(&["setsid"])),
        ("has capabilities", if status.contains("CapEff=0000000000000000") { "refused".into() } else { format!("ok: {status}") }),
    ];
    guarantees.push(Guarantee {
        name: "syscalls",
        status: judge(true, "", &syscalls, "needs seccomp filters (CONFIG_SECCOMP_FILTER) and root to drop capabilities"),
    });

    let own_pid_ns = std::fs::read_link("/proc/self/ns/pid").map(|p| p.display().to_string()).unwrap_or_default();
    let own_net_ns = std::fs::read_link("/proc/self/ns/net").map(|p| p.display().to_string()).unwrap_or_default();
    let pid_ns = probe(&["ns", "pid"]);
    let net_ns = probe(&["ns", "net"]);
    let own_mnt_ns = std::fs::read_link("/proc/self/ns/mnt").map(|p| p.display().to_string()).unwrap_or_default();
    let mnt_ns = probe(&["ns", "mnt"]);
    let shared = [
        ("shares the pid namespace", if pid_ns.ends_with(&own_pid_ns) { pid_ns } else { "refused".into() }),
        ("shares the network namespace", if net_ns.ends_with(&own_net_ns) { net_ns } else { "refused".into() }),
        ("shares the mount namespace", if mnt_ns.ends_with(&own_mnt_ns) { mnt_ns } else { "refused".into() }),
    ];
    guarantees.push(Guarantee { name: "namespaces", status: judge(true, "", &shared, "run as root (unshare needs CAP_SYS_ADMIN)") });
    guarantees.push(Guarantee { name: "process-visibility", status: process_visibility(helper, scratch) });

    let limits = probe(&["limits"]);
    let wanted =
        ["max-file-size=67108864/67108864", "max-open-files=256/256", "max-core-file-size=0/0", "max-address-space=1073741824/1073741824"];
    let unset: Vec<&str> = wanted.iter().copied().filter(|w| !limits.contains(w)).collect();
    guarantees.push(Guarantee {
        name: "rlimits",
        status: if unset.is_empty() { Status::Enforced } else { Status::Missing(format!("not set: {} (got {limits})", unset.join(", "))) },
    });

    let env = probe(&["env"]);
    let mut names: Vec<&str> = env.trim_start_matches("ok: ").split(' ').collect();
    names.sort_unstable();
    guarantees.push(Guarantee {
        name: "environment",
        status: if names == ["HOME", "LANG", "PATH", "TMPDIR"] {
            Status::Enforced
        } else {
            Status::Missing(format!("the bot sees {}", names.join(" ")))
        },
    });

    guarantees.push(Guarantee { name: "lifeline", status: lifeline(helper, scratch) });
    guarantees
}

/// Starts a marker process outside the sandbox (the helper's sleeping probe, with a
/// unique word on its command line), and asks a confined probe what it sees in `/proc`:
/// enforced when the marker is out of sight and the bot's `/proc` is its own (pid 1,
/// nothing else listed), degraded when Landlock hides the host's `/proc` instead.
fn process_visibility(helper: &Path, scratch: &Scratch) -> Status {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    let marker = format!("arbiter-check-marker-{}-{nanos}", std::process::id());
    let mut command = Command::new(helper);
    command.args(["--probe", "sleep", &marker]).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::null());
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(err) => return Status::Missing(format!("cannot start a marker process: {err}")),
    };
    let mut line = String::new();
    let stdout = child.stdout.take().expect("stdout is piped");
    let _ = std::io::BufReader::new(stdout).read_line(&mut line);
    let seen = if line.trim() == "started" {
        run_probe(helper, scratch, Net::None, &["procs", &marker, &child.id().to_string()])
    } else {
        format!("failed: the marker process did not start: {line:?}")
    };
    let _ = child.kill();
    let _ = child.wait();
    let Some(fields) = seen.strip_prefix("ok: ") else {
        return Status::Missing(format!("the probe failed: {seen}"));
    };
    let field = |key: &str| fields.split(' ').find_map(|word| word.strip_prefix(key)?.strip_prefix('=')).unwrap_or("");
    if field("marker") != "hidden" {
        return Status::Missing(
            "the bot reads other processes' command lines in /proc; needs a mount and a pid namespace (root) or landlock".to_string(),
        );
    }
    match (field("self"), field("visible")) {
        ("1", "1") => Status::Enforced,
        ("1", visible) => Status::Degraded(format!("the bot lists {visible} processes in its /proc")),
        _ => Status::Degraded(
            "the bot has the host's /proc, of which landlock lets it read only the machine's description; a /proc of its own needs root (mount and pid namespaces)"
                .to_string(),
        ),
    }
}

/// Enforced when `wanted` holds and every escape was refused; degraded when some were.
fn judge(wanted: bool, unwanted_note: &str, escapes: &[(&str, String)], remedy: &str) -> Status {
    if !wanted {
        return Status::Missing(unwanted_note.to_string());
    }
    let got: Vec<String> = escapes
        .iter()
        .filter(|(_, outcome)| !outcome.starts_with("refused"))
        .map(|(what, outcome)| format!("the bot {what}: {outcome}"))
        .collect();
    if got.is_empty() {
        Status::Enforced
    } else if got.len() < escapes.len() {
        Status::Degraded(format!("{}; {remedy}", got.join("; ")))
    } else {
        Status::Missing(format!("{}; {remedy}", got.join("; ")))
    }
}

fn sandboxed(helper: &Path, scratch: &Scratch, net: Net, lifeline: Option<&Path>) -> Command {
    let mut policy = Policy::new(&scratch.bot, lifeline.unwrap_or(Path::new("")));
    policy.memory = Some(1 << 30);
    policy.net = net;
    if let Some(dir) = helper.parent() {
        policy.read_only.push(dir.to_path_buf());
    }
    let mut args = policy.to_args();
    if lifeline.is_none() {
        let at = args.iter().position(|a| a == "--lifeline").expect("to_args names the lifeline");
        args.drain(at..at + 2);
    }
    let mut command = Command::new(helper);
    command.args(args).arg(helper).arg("--probe").current_dir(&scratch.bot).process_group(0).stdin(Stdio::null());
    command
}

/// Runs one probe under the full sandbox; its one line, or what went wrong.
fn run_probe(helper: &Path, scratch: &Scratch, net: Net, args: &[&str]) -> String {
    match sandboxed(helper, scratch, net, None).args(args).stderr(Stdio::piped()).output() {
        Ok(out) if out.status.success() => String::from_utf8_lossy(&out.stdout).trim().to_string(),
        Ok(out) => format!("failed: {} {}", out.status, String::from_utf8_lossy(&out.stderr).trim()),
        Err(err) => format!("failed: cannot start the helper: {err}"),
    }
}

/// Starts a sleeping probe with a lifeline, closes the lifeline and expects the helper
/// killed within two seconds.
fn lifeline(helper: &Path, scratch: &Scratch) -> Status {
    let fifo = match File::options().read(true).write(true).open(&scratch.lifeline) {
        Ok(fifo) => fifo,
        Err(err) => return Status::Missing(format!("cannot open a fifo: {err}")),
    };
    let mut command = sandboxed(helper, scratch, Net::None, Some(&scratch.lifeline));
    let mut child = match command.arg("sleep").stdout(Stdio::piped()).spawn() {
        Ok(child) => child,
        Err(err) => return Status::Missing(format!("cannot start the helper: {err}")),
    };
    let mut fifo = fifo;
    let _ = fifo.write_all(b"g");
    let mut line = String::new();
    let stdout = child.stdout.take().expect("stdout is piped");
    let _ = std::io::BufReader::new(stdout).read_line(&mut line);
    if line.trim() != "started" {
        let _ = child.kill();
        let _ = child.wait();
        return Status::Missing(format!("the probe did not start: {line:?}"));
    }
    drop(fifo);
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(2) {
        match child.try_wait() {
            Ok(Some(status)) if status.signal() == Some(9) => return Status::Enforced,
            Ok(Some(status)) => return Status::Missing(format!("the helper ended with {status}, not by the lifeline")),
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(err) => return Status::Missing(format!("cannot wait for the helper: {err}")),
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    Status::Missing("the bot outlived its lifeline by 2 s".to_string())
}
