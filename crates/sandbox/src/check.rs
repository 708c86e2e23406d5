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
        rustix::fs::mkfifoat(rustix::fs::CWD, &lifeline, rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR).map_err(std::io::Error::from)?;
        Ok(Scratch { bot, other, lifeline })
    }
}

fn probe_all(helper: &Path, scratch: &Scratch) -> Vec<Guarantee> {
    let probe = |args: &[&str]| run_probe(helper, scratch, Net::None, args);
    let mut guarantees = Vec::new();

    let me = std::process::id();
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    // Its /tmp is its own where it has a root: a write there must not reach the machine's.
    let host_tmp = std::env::temp_dir().join(format!("arbiter-probe-{me}-{nanos}"));
    let tmp = probe(&["write", &host_tmp.to_string_lossy()]);
    let reached_tmp = host_tmp.exists();
    let _ = std::fs::remove_file(&host_tmp);
    let inside = probe(&["write", "mine"]);
    let escapes = [
        ("writes outside its folder", probe(&["write", &scratch.other.join("planted").to_string_lossy()])),
        ("reads another bot's folder", probe(&["read", &scratch.other.join("secret").to_string_lossy()])),
        ("reads ../other", probe(&["read", "../other/secret"])),
        ("reads another process's folder through /proc", probe(&["read", &format!("/proc/{me}/cwd")])),
        ("reads /etc/shadow", probe(&["read", "/etc/shadow"])),
        ("writes the machine's /tmp", if reached_tmp { format!("ok: {tmp}") } else { "refused".to_string() }),
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
    guarantees.push(Guarantee { name: "own-root", status: own_root(&probe) });
    guarantees.push(Guarantee { name: "disk-quota", status: disk_quota(&probe) });

    let listener = TcpListener::bind("127.0.0.1:0").and_then(|l| l.set_nonblocking(true).map(|()| l));
    let udp = UdpSocket::bind("127.0.0.1:0");
    let mut net_escapes = match (&listener, &udp) {
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
    let tcp_bot = tcp_bot(helper, scratch);
    net_escapes.extend(tcp_bot.escapes);
    let network = match judge(true, "", &net_escapes, "needs a network namespace (root) or seccomp and landlock abi 4") {
        Status::Enforced => tcp_bot.without_namespace.map_or(Status::Enforced, Status::Degraded),
        other => other,
    };
    guarantees.push(Guarantee { name: "network", status: network });

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
        status: if names == expected_environment() {
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

/// Enforced when the probe's root holds the system's folders, its own and nothing else,
/// as the bot sees it (`ls /`).
fn own_root(probe: &dyn Fn(&[&str]) -> String) -> Status {
    if !crate::machine::roots_supported() {
        return Status::Degraded(
            "no root of its own: the bot sees the machine's folders, of which landlock lets it read the system's and its own; needs root (a mount namespace)"
                .to_string(),
        );
    }
    let seen = probe(&["read", "/"]);
    let listed = probe(&["list", "/"]);
    let allowed = ["bin", "box", "dev", "etc", "lib", "lib32", "lib64", "libx32", "proc", "sbin", "sys", "tmp", "usr"];
    let names: Vec<&str> = listed.strip_prefix("ok: ").unwrap_or("").split(' ').filter(|n| !n.is_empty()).collect();
    // The helper's own folder shows as the top folder of its path (the probe is the helper).
    // The organiser's further system folders show as the top folders of their paths.
    let organiser: Vec<String> = match crate::machine::system() {
        crate::System::Host { extra } => {
            extra.iter().filter_map(|p| p.components().nth(1)).map(|c| c.as_os_str().to_string_lossy().into_owned()).collect()
        }
        crate::System::Image(_) => Vec::new(),
    };
    let extra: Vec<&&str> =
        names.iter().filter(|n| !allowed.contains(n) && !organiser.iter().any(|o| o == **n) && !is_helper_top(n)).collect();
    match crate::machine::system() {
        crate::System::Image(_) if seen.starts_with("ok") => Status::Enforced,
        _ if seen.starts_with("ok") && extra.is_empty() => Status::Enforced,
        _ => Status::Missing(format!("the bot's root shows {listed} ({seen})")),
    }
}

/// The variables a bot sees: the allow-list, and the homes of the organiser's
/// toolchains ([`crate::helper::toolchain_homes`]), sorted.
fn expected_environment() -> Vec<String> {
    let mut names: Vec<String> = ["HOME", "LANG", "PATH", "TMPDIR"].iter().map(|s| s.to_string()).collect();
    names.extend(crate::helper::toolchain_homes(crate::machine::system()).into_iter().map(|(name, _)| name));
    names.sort_unstable();
    names
}

fn is_helper_top(name: &str) -> bool {
    std::env::current_exe().ok().and_then(|exe| exe.components().nth(1).map(|c| c.as_os_str() == name)).unwrap_or(false)
}

/// Enforced when a probe given a quota of [`PROBE_DISK`] bytes and [`PROBE_FILES`] files
/// can neither write twice the bytes nor make twice the files.
fn disk_quota(probe: &dyn Fn(&[&str]) -> String) -> Status {
    if !crate::machine::roots_supported() {
        return Status::Missing(
            "no root of its own: the bot writes on the machine's disk, one file at most 64 MiB; needs root".to_string(),
        );
    }
    let bytes = probe(&["fill", &(2 * PROBE_DISK).to_string()]);
    let files = probe(&["files", &(2 * PROBE_FILES).to_string()]);
    match (bytes.starts_with("refused"), files.starts_with("refused")) {
        (true, true) => Status::Enforced,
        _ => Status::Missing(format!("past its quota of {PROBE_DISK} bytes and {PROBE_FILES} files: bytes {bytes}, files {files}")),
    }
}

/// What a bot of the TCP interface reached: its referee's listener must be reached, the
/// machine's not, and its own listener must be out of the machine's reach; and, where no
/// namespace of its own can be made, why the network is degraded.
struct TcpBot {
    escapes: Vec<(&'static str, String)>,
    without_namespace: Option<String>,
}

fn tcp_bot(helper: &Path, scratch: &Scratch) -> TcpBot {
    let host = match TcpListener::bind("0.0.0.0:0").and_then(|l| l.set_nonblocking(true).map(|()| l)) {
        Ok(host) => host,
        Err(err) => {
            return TcpBot { escapes: vec![("a tcp bot", format!("failed: no listener for the check: {err}"))], without_namespace: None };
        }
    };
    let host_port = host.local_addr().map(|a| a.port()).unwrap_or(0);
    let namespace = match crate::netns::NetNamespace::create() {
        Ok(namespace) => namespace,
        Err(err) => {
            return TcpBot {
                escapes: Vec::new(),
                without_namespace: Some(format!(
                    "a bot of the tcp interface keeps the machine's network, held to its referee's port by landlock and seccomp: no namespace of its own ({err}); needs root"
                )),
            };
        }
    };
    let referee = match namespace.run(|| TcpListener::bind("127.0.0.1:0").and_then(|l| l.set_nonblocking(true).map(|()| l))) {
        Ok(referee) => referee,
        Err(err) => {
            return TcpBot {
                escapes: vec![("a tcp bot", format!("failed: no listener in its namespace: {err}"))],
                without_namespace: None,
            };
        }
    };
    let port = referee.local_addr().map(|a| a.port()).unwrap_or(0);
    let targets =
        [format!("127.0.0.1:{port}"), format!("127.0.0.1:{host_port}"), format!("127.0.0.2:{host_port}"), format!("[::1]:{host_port}")];
    let mut args: Vec<&str> = vec!["tcp"];
    args.extend(targets.iter().map(String::as_str));
    let started = namespace.run(|| {
        sandboxed(helper, scratch, Net::Given(port), None)
            .args(&args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
    });
    let mut child = match started {
        Ok(child) => child,
        Err(err) => {
            return TcpBot { escapes: vec![("a tcp bot", format!("failed: cannot start the helper: {err}"))], without_namespace: None };
        }
    };
    // `ok: 127.0.0.1:P=ok 127.0.0.1:Q=refused ... listening=N`, and the probe listens on
    // N until its input ends.
    let mut out = String::new();
    if let Some(stdout) = child.stdout.take() {
        let _ = std::io::BufReader::new(stdout).read_line(&mut out);
    }
    let field = |key: &str| out.split(' ').find_map(|w| w.trim().strip_prefix(key)?.strip_prefix('=')).unwrap_or("").to_string();
    let reached_referee = field(&targets[0]) == "ok";
    let mut escapes =
        vec![("cannot reach its referee", if reached_referee { "refused".to_string() } else { format!("ok: {}", out.trim()) })];
    for target in &targets[1..] {
        escapes.push(("as a tcp bot reaches the machine", field(target)));
    }
    let listened: Option<u16> = field("listening").parse().ok();
    let reached_bot = listened.is_some_and(|p| {
        [std::net::SocketAddr::from(([127, 0, 0, 1], p)), std::net::SocketAddr::from((std::net::Ipv6Addr::LOCALHOST, p))]
            .iter()
            .any(|addr| std::net::TcpStream::connect_timeout(addr, Duration::from_secs(1)).is_ok())
    });
    escapes.push(("as a tcp bot listens where the machine reaches it", if reached_bot { "ok".to_string() } else { "refused".to_string() }));
    drop(child.stdin.take());
    let _ = child.kill();
    let _ = child.wait();
    if host.accept().is_ok() {
        escapes.push(("as a tcp bot connects to the machine", "ok: accepted".to_string()));
    }
    TcpBot { escapes, without_namespace: None }
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

/// The disk quota of the probes' roots: 1 MiB and 64 files.
const PROBE_DISK: u64 = 1 << 20;
const PROBE_FILES: u64 = 64;

fn sandboxed(helper: &Path, scratch: &Scratch, net: Net, lifeline: Option<&Path>) -> Command {
    let mut policy = Policy::new(&scratch.bot, lifeline.unwrap_or(Path::new("")));
    policy.memory = Some(1 << 30);
    policy.net = net;
    policy.system = crate::machine::system().clone();
    // The probe is the helper itself: that one file is what the bot's root adds.
    policy.read_only.push(helper.to_path_buf());
    if crate::machine::roots_supported() {
        policy.root = Some(crate::Root { work: crate::Work::Copy, disk: Some(PROBE_DISK), files: Some(PROBE_FILES) });
    } else if let Some(dir) = helper.parent() {
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
