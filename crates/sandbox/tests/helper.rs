//! The built helper around small shell and Python bots: statuses come through, and each
//! escape a hostile bot tries (files, /proc, sockets, syscalls, environment, limits,
//! outliving the referee) is refused. Runs as root (as CI does).

use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, UdpSocket};
use std::os::unix::net::UnixListener;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal, kill_process, kill_process_group};
use sandbox::{Net, Policy, Status};

const HELPER: &str = env!("CARGO_BIN_EXE_arbiter-sandbox");

/// Makes a FIFO that only its owner may read and write.
fn mkfifo(path: &Path) {
    rustix::fs::mkfifoat(rustix::fs::CWD, path, rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR).expect("mkfifo");
}

/// Starts the helper around `program args` in its own process group (the go, if any, is
/// the caller's to write).
fn start_helper(policy: &Policy, program: &[&str]) -> Child {
    Command::new(HELPER)
        .args(policy.to_args())
        .args(program)
        .current_dir(&policy.workdir)
        .process_group(0)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the helper")
}

/// A bot's folder, a sibling "other bot" folder with a secret, and the lifeline FIFO the
/// test holds open read-write like the referee.
struct Fixture {
    root: tempfile::TempDir,
    fifo: Option<File>,
}

impl Fixture {
    fn new() -> Fixture {
        let root = tempfile::tempdir().expect("a temporary folder");
        std::fs::create_dir(root.path().join("bot")).expect("bot folder");
        std::fs::create_dir(root.path().join("other")).expect("other folder");
        std::fs::write(root.path().join("other/secret"), "secret").expect("secret");
        let lifeline = root.path().join("lifeline");
        mkfifo(&lifeline);
        let fifo = File::options().read(true).write(true).open(&lifeline).expect("open the lifeline");
        Fixture { root, fifo: Some(fifo) }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.root.path().join(rel)
    }

    fn policy(&self) -> Policy {
        let mut policy = Policy::new(self.path("bot"), self.path("lifeline"));
        policy.report = Some(self.path("report"));
        policy
    }

    /// Starts the helper around `program args` in its own process group, with the go
    /// already on the lifeline.
    fn spawn(&mut self, policy: &Policy, program: &[&str]) -> Child {
        self.fifo.as_mut().expect("the lifeline is held").write_all(b"g").expect("write the go");
        start_helper(policy, program)
    }

    fn run(&mut self, policy: &Policy, program: &[&str]) -> Output {
        let output = self.spawn(policy, program).wait_with_output().expect("wait for the helper");
        self.require_layers();
        output
    }

    fn sh(&mut self, script: &str) -> Output {
        let policy = self.policy();
        self.run(&policy, &["/bin/sh", "-c", script])
    }

    /// Every layer must be applied on the machines the tests run on; say which is not.
    fn require_layers(&self) {
        let report = std::fs::read_to_string(self.path("report")).expect("the helper writes its report");
        for line in report.lines() {
            assert!(
                !line.contains("not available") || line.starts_with("lifeline"),
                "this machine lacks a sandbox layer the tests need (run as root on linux 6.7+ with landlock): {line}"
            );
        }
    }
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn exit_codes_and_death_signals_come_through() {
    let mut fixture = Fixture::new();
    let output = fixture.sh("echo hello; exit 7");
    assert_eq!(output.status.code(), Some(7), "{output:?}");
    assert_eq!(stdout(&output), "hello\n");
    let policy = fixture.policy();
    let output = fixture.run(&policy, &["python3", "-c", "import ctypes; ctypes.string_at(0)"]);
    assert_eq!(output.status.signal(), Some(11), "a segfault comes through as SIGSEGV: {output:?}");
    let output = fixture.run(&policy, &["/nonexistent/bot"]);
    assert_eq!(output.status.code(), Some(127), "{output:?}");
}

#[test]
fn writes_only_in_its_own_folder() {
    let mut fixture = Fixture::new();
    let outside = fixture.path("planted");
    let script = format!(
        "echo a > mine && echo inside; echo b > {0} && echo outside; echo c > ../other/x && echo sibling; \
         echo d > /tmp/arbiter-sandbox-test-$$ && echo tmp; mkdir sub && echo mkdir",
        outside.display()
    );
    let output = fixture.sh(&script);
    assert_eq!(stdout(&output), "inside\nmkdir\n", "{output:?}");
    assert!(fixture.path("bot/mine").exists());
    assert!(!outside.exists() && !fixture.path("other/x").exists());
}

#[test]
fn cannot_read_another_bots_folder() {
    let mut fixture = Fixture::new();
    std::os::unix::fs::symlink(fixture.path("other/secret"), fixture.path("bot/link")).expect("symlink");
    // Another bot's process, with its folder as current directory.
    let mut other = Command::new("sleep").arg("100").current_dir(fixture.path("other")).spawn().expect("sleep");
    let script = format!(
        "cat ../other/secret; cat {0}; cat link; cat /proc/{1}/cwd/secret; ls /proc/{1}/cwd; ls /proc/{1}/root/tmp; \
         ls {2}; echo done",
        fixture.path("other/secret").display(),
        other.id(),
        fixture.path("other").display()
    );
    let output = fixture.sh(&script);
    let _ = other.kill();
    let _ = other.wait();
    assert_eq!(stdout(&output), "done\n", "{output:?}");
    assert!(!stdout(&output).contains("secret"));
}

/// A process of the test's with a unique word on its command line, killed on drop.
struct Marker {
    word: String,
    child: Child,
}

impl Marker {
    fn start() -> Marker {
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).expect("a clock after 1970").subsec_nanos();
        // GNU sleep adds its arguments up: the second one is the unique word.
        let word = format!("0.{}{nanos}", std::process::id());
        let child = Command::new("sleep").args(["3600", &word]).spawn().expect("start sleep");
        let marker = Marker { word, child };
        let until = Instant::now() + Duration::from_secs(60);
        while !std::fs::read(format!("/proc/{}/cmdline", marker.child.id()))
            .is_ok_and(|c| String::from_utf8_lossy(&c).contains(&marker.word))
        {
            assert!(Instant::now() < until, "the marker process did not start");
            std::thread::sleep(Duration::from_millis(5));
        }
        marker
    }
}

impl Drop for Marker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn sees_only_its_own_processes() {
    let mut fixture = Fixture::new();
    let marker = Marker::start();
    // Every command line the bot can read, by listing /proc and by the marker's and the
    // test's own pids; then how many processes its /proc lists and its own pid there.
    let script = format!(
        "for f in /proc/[0-9]*/cmdline /proc/{0}/cmdline /proc/{1}/cmdline; do tr '\\0' ' ' < $f 2>/dev/null; echo; done; \
         echo listed $(ls -d /proc/[0-9]* | wc -l); echo nspid $(grep NSpid /proc/self/status | cut -f2-)",
        marker.child.id(),
        std::process::id()
    );
    let output = fixture.sh(&script);
    let out = stdout(&output);
    assert!(output.status.success(), "{output:?}");
    assert!(!out.contains(&marker.word), "the bot sees the test's marker process: {out}");
    assert!(!out.contains("helper-"), "the bot sees the test binary's command line: {out}");
    // Its /proc is its own namespace's: a process there has one pid (the host's /proc
    // would show two, the host's and the namespace's), and all it lists are the shell and
    // the commands it runs (ls, wc, and the subshell running them).
    let nspid = out.lines().find_map(|l| l.strip_prefix("nspid ")).expect("the NSpid line");
    assert_eq!(nspid.split_whitespace().count(), 1, "{out}");
    let listed: usize = out.lines().find_map(|l| l.strip_prefix("listed ")).and_then(|n| n.trim().parse().ok()).expect("a count");
    assert!((1..=4).contains(&listed), "the bot lists {listed} processes: {out}");
    let shown: Vec<&str> = out.lines().filter(|l| !l.trim().is_empty() && !l.starts_with("listed") && !l.starts_with("nspid")).collect();
    assert!(!shown.is_empty() && shown.iter().all(|l| l.starts_with("/bin/sh -c for f in")), "{shown:?}");
}

/// Tries TCP, UDP and a Unix socket to the test's listeners; prints one word per try.
const NET_BOT: &str = r#"
import socket, sys
def attempt(name, f):
    try:
        f(); print(name, "ok")
    except OSError as e:
        print(name, "refused", e.errno)
def tcp(port):
    s = socket.create_connection(("127.0.0.1", port), timeout=2); s.sendall(b"hi")
def udp(port):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.sendto(b"hi", ("127.0.0.1", port))
def unix(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); s.connect(path); s.sendall(b"hi")
attempt("tcp", lambda: tcp(int(sys.argv[1])))
attempt("tcp2", lambda: tcp(int(sys.argv[2])))
attempt("udp", lambda: udp(int(sys.argv[3])))
attempt("unix", lambda: unix(sys.argv[4]))
attempt("pair", lambda: socket.socketpair())
"#;

struct Listeners {
    tcp: TcpListener,
    tcp2: TcpListener,
    udp: UdpSocket,
    unix: UnixListener,
    unix_path: PathBuf,
}

impl Listeners {
    fn new(dir: &Path) -> Listeners {
        let tcp = TcpListener::bind("127.0.0.1:0").expect("tcp listener");
        let tcp2 = TcpListener::bind("127.0.0.1:0").expect("tcp listener");
        let udp = UdpSocket::bind("127.0.0.1:0").expect("udp socket");
        let unix_path = dir.join("listener.sock");
        let unix = UnixListener::bind(&unix_path).expect("unix listener");
        for nonblocking in [tcp.set_nonblocking(true), tcp2.set_nonblocking(true), udp.set_nonblocking(true), unix.set_nonblocking(true)] {
            nonblocking.expect("non-blocking listener");
        }
        Listeners { tcp, tcp2, udp, unix, unix_path }
    }

    fn args(&self) -> Vec<String> {
        let port = |l: &TcpListener| l.local_addr().expect("bound").port().to_string();
        vec![
            port(&self.tcp),
            port(&self.tcp2),
            self.udp.local_addr().expect("bound").port().to_string(),
            self.unix_path.display().to_string(),
        ]
    }

    /// What each listener received: (tcp, tcp2, udp, unix).
    fn received(&self) -> (bool, bool, bool, bool) {
        let mut buffer = [0u8; 8];
        (self.tcp.accept().is_ok(), self.tcp2.accept().is_ok(), self.udp.recv(&mut buffer).is_ok(), self.unix.accept().is_ok())
    }
}

fn net_bot(fixture: &mut Fixture, policy: &Policy, listeners: &Listeners) -> String {
    let args = listeners.args();
    let mut program = vec!["python3", "-c", NET_BOT];
    program.extend(args.iter().map(String::as_str));
    let output = fixture.run(policy, &program);
    assert!(output.status.success(), "{output:?}");
    stdout(&output)
}

#[test]
fn no_network_without_permission() {
    let mut fixture = Fixture::new();
    let listeners = Listeners::new(fixture.root.path());
    let policy = fixture.policy();
    let out = net_bot(&mut fixture, &policy, &listeners);
    for name in ["tcp", "tcp2", "udp", "unix"] {
        assert!(out.lines().any(|l| l.starts_with(&format!("{name} refused"))), "{name}: {out}");
    }
    assert!(out.contains("pair ok"), "socketpair stays allowed: {out}");
    assert_eq!(listeners.received(), (false, false, false, false), "a listener accepted something: {out}");
}

#[test]
fn net_connect_allows_exactly_its_port() {
    let mut fixture = Fixture::new();
    let listeners = Listeners::new(fixture.root.path());
    let mut policy = fixture.policy();
    policy.net = Net::Connect(listeners.tcp.local_addr().expect("bound").port());
    let out = net_bot(&mut fixture, &policy, &listeners);
    assert!(out.contains("tcp ok"), "{out}");
    for name in ["tcp2", "udp", "unix"] {
        assert!(out.lines().any(|l| l.starts_with(&format!("{name} refused"))), "{name}: {out}");
    }
    assert_eq!(listeners.received(), (true, false, false, false), "{out}");
}

#[test]
fn dangerous_syscalls_fail() {
    let mut fixture = Fixture::new();
    let script = r#"
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
def report(name, result):
    print(name, "ok" if result >= 0 else os.strerror(ctypes.get_errno()))
report("unshare", libc.unshare(0x10000000))
report("ptrace", libc.ptrace(0, 0, 0, 0))
params = ctypes.create_string_buffer(120)
report("io_uring", libc.syscall(425, 8, params))
report("mount", libc.mount(b"none", b".", b"tmpfs", 0, None))
report("kill-referee", libc.kill(int(os.environ["REFEREE"]), 0))
report("pdeathsig", libc.prctl(1, 0, 0, 0, 0))
# Leaving the process group the referee stops between moves: each tried by a child of
# its own (not a group leader, so the kernel itself would allow both).
import sys
for name, call in (("setsid", lambda: libc.setsid()), ("setpgid", lambda: libc.setpgid(0, 0))):
    sys.stdout.flush()
    pid = os.fork()
    if pid == 0:
        report(name, call())
        sys.stdout.flush()
        os._exit(0)
    os.waitpid(pid, 0)
"#;
    let mut policy = fixture.policy();
    policy.env.push(("REFEREE".into(), std::process::id().to_string()));
    let output = fixture.run(&policy, &["python3", "-c", script]);
    let out = stdout(&output);
    for name in ["unshare", "ptrace", "io_uring", "mount", "pdeathsig", "setsid", "setpgid"] {
        assert!(out.contains(&format!("{name} Operation not permitted")), "{name}: {output:?}");
    }
    assert!(out.contains("kill-referee No such process"), "the referee is out of the bot's sight: {output:?}");
}

#[test]
fn every_call_of_the_filter_is_refused() {
    let mut fixture = Fixture::new();
    // Each call with zero arguments: refused it is EPERM; let through, the kernel would
    // answer something else (EFAULT, EINVAL, EBADF, or success).
    let mut calls: Vec<(&str, i64)> = vec![
        ("keyctl", libc::SYS_keyctl),
        ("add_key", libc::SYS_add_key),
        ("request_key", libc::SYS_request_key),
        ("bpf", libc::SYS_bpf),
        ("perf_event_open", libc::SYS_perf_event_open),
        ("userfaultfd", libc::SYS_userfaultfd),
        ("process_vm_readv", libc::SYS_process_vm_readv),
        ("process_vm_writev", libc::SYS_process_vm_writev),
        ("init_module", libc::SYS_init_module),
        ("finit_module", libc::SYS_finit_module),
        ("delete_module", libc::SYS_delete_module),
        ("swapon", libc::SYS_swapon),
        ("swapoff", libc::SYS_swapoff),
        ("syslog", libc::SYS_syslog),
        ("settimeofday", libc::SYS_settimeofday),
        ("clock_settime", libc::SYS_clock_settime),
        ("clock_adjtime", libc::SYS_clock_adjtime),
        ("adjtimex", libc::SYS_adjtimex),
        ("chroot", libc::SYS_chroot),
        ("pivot_root", libc::SYS_pivot_root),
        ("umount2", libc::SYS_umount2),
        ("setns", libc::SYS_setns),
        ("open_by_handle_at", libc::SYS_open_by_handle_at),
        ("name_to_handle_at", libc::SYS_name_to_handle_at),
        ("fsopen", libc::SYS_fsopen),
        ("fsmount", libc::SYS_fsmount),
        ("fspick", libc::SYS_fspick),
        ("move_mount", libc::SYS_move_mount),
        ("open_tree", libc::SYS_open_tree),
        ("mount_setattr", libc::SYS_mount_setattr),
        ("quotactl", libc::SYS_quotactl),
        ("io_uring_enter", libc::SYS_io_uring_enter),
        ("io_uring_register", libc::SYS_io_uring_register),
    ];
    #[cfg(target_arch = "x86_64")]
    calls.extend([("iopl", libc::SYS_iopl), ("ioperm", libc::SYS_ioperm)]);
    let script = r#"
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
for arg in sys.argv[1:]:
    name, nr = arg.split("=")
    ctypes.set_errno(0)
    r = libc.syscall(int(nr), 0, 0, 0, 0, 0, 0)
    print(name, "refused" if r == -1 and ctypes.get_errno() == 1 else "let through: %d %s" % (r, os.strerror(ctypes.get_errno())))
# clone into a new user namespace (needs no privilege): refused; let through, the
# child leaves at once.
r = libc.syscall(int(os.environ["CLONE"]), 0x10000000 | 17, 0, 0, 0, 0)
if r == 0:
    os._exit(0)
print("clone-newuser", "refused" if r == -1 and ctypes.get_errno() == 1 else "let through: %d" % r)
r = libc.syscall(int(os.environ["CLONE3"]), 0, 0)
print("clone3", "enosys" if r == -1 and ctypes.get_errno() == 38 else "let through: %d" % r)
"#;
    let args: Vec<String> = calls.iter().map(|(name, nr)| format!("{name}={nr}")).collect();
    let mut policy = fixture.policy();
    policy.env.push(("CLONE".into(), libc::SYS_clone.to_string()));
    policy.env.push(("CLONE3".into(), libc::SYS_clone3.to_string()));
    let mut program = vec!["python3", "-c", script];
    program.extend(args.iter().map(String::as_str));
    let output = fixture.run(&policy, &program);
    let out = stdout(&output);
    assert!(output.status.success(), "{output:?}");
    for (name, _) in &calls {
        assert!(out.lines().any(|l| l == format!("{name} refused")), "{name}: {out}");
    }
    assert!(out.lines().any(|l| l == "clone-newuser refused"), "{out}");
    assert!(out.lines().any(|l| l == "clone3 enosys"), "{out}");
}

#[test]
fn environment_holds_only_the_allow_list() {
    let mut fixture = Fixture::new();
    let mut policy = fixture.policy();
    policy.env.push(("ARBITER_ADDR".into(), "127.0.0.1:1".into()));
    let output = fixture.run(&policy, &["/usr/bin/env"]);
    let mut lines: Vec<String> = stdout(&output).lines().map(String::from).collect();
    lines.sort();
    let workdir = policy.workdir.display();
    assert_eq!(
        lines,
        [
            "ARBITER_ADDR=127.0.0.1:1".to_string(),
            format!("HOME={workdir}"),
            "LANG=C.UTF-8".to_string(),
            "PATH=/usr/local/bin:/usr/bin:/bin".to_string(),
            format!("TMPDIR={workdir}"),
        ]
    );
}

#[test]
fn rlimits_are_set() {
    let mut fixture = Fixture::new();
    let mut policy = fixture.policy();
    policy.memory = Some(512 << 20);
    policy.cpu_seconds = Some(30);
    policy.file_size = Some(1 << 20);
    policy.open_files = Some(64);
    let output = fixture.run(&policy, &["/bin/cat", "/proc/self/limits"]);
    let limits = stdout(&output);
    let row = |name: &str| -> Vec<String> {
        let line = limits.lines().find(|l| l.starts_with(name)).unwrap_or_else(|| panic!("{name} in {limits}"));
        line[name.len()..].split_whitespace().take(2).map(String::from).collect()
    };
    assert_eq!(row("Max address space"), ["536870912", "536870912"]);
    assert_eq!(row("Max cpu time"), ["30", "31"]);
    assert_eq!(row("Max file size"), ["1048576", "1048576"]);
    assert_eq!(row("Max open files"), ["64", "64"]);
    assert_eq!(row("Max core file size"), ["0", "0"]);
    let output = fixture.run(&policy, &["/bin/sh", "-c", "head -c 2000000 /dev/zero > big; wc -c < big"]);
    assert_eq!(stdout(&output).trim(), "1048576", "the file stops at the file-size limit: {output:?}");
}

/// The live processes in the PID namespace named by `ns` (a `pid:[...]` link); zombies
/// are dead, waiting for an ancestor outside the test to reap them.
fn processes_in(ns: &str) -> Vec<u32> {
    let mut pids = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        if let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>()
            && std::fs::read_link(entry.path().join("ns/pid")).is_ok_and(|link| link.to_string_lossy() == ns)
            && !std::fs::read_to_string(entry.path().join("stat")).is_ok_and(|stat| stat.contains(") Z "))
        {
            pids.push(pid);
        }
    }
    pids
}

/// Starts a bot that leaves a child and an orphaned daemon running (a new session is
/// refused it), and waits until all are up; returns the helper and the bot's PID
/// namespace (a `pid:[...]` link).
fn start_with_sleepers(fixture: &mut Fixture) -> (Child, String) {
    let policy = fixture.policy();
    // A child, and a daemon whose parent is gone, both holding on.
    let script = "sleep 1000 & sh -c 'sleep 1000 & exit 0'; readlink /proc/self/ns/pid; sleep 1000";
    let mut child = fixture.spawn(&policy, &["/bin/sh", "-c", script]);
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("piped")).read_line(&mut line).expect("the bot's namespace");
    let ns = line.trim().to_string();
    assert!(ns.starts_with("pid:["), "{line:?}");
    assert!(eventually(|| processes_in(&ns).len() >= 4), "the bot's children did not start: {:?}", processes_in(&ns));
    (child, ns)
}

#[test]
fn a_broken_lifeline_kills_the_bot_and_its_children() {
    let mut fixture = Fixture::new();
    let (mut child, ns) = start_with_sleepers(&mut fixture);
    drop(fixture.fifo.take());
    let status = child.wait().expect("wait for the helper");
    assert_eq!(status.signal(), Some(9), "{status:?}");
    assert!(eventually(|| processes_in(&ns).is_empty()), "processes outlived the lifeline: {:?}", processes_in(&ns));
}

/// A field of `/proc/PID/stat` after the command's name: 0 the state, 2 the process group.
fn stat_field(pid: u32, field: usize) -> Option<String> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat[stat.rfind(')')? + 2..].split(' ').nth(field).map(str::to_string)
}

/// Polls `done` every 10 ms until it holds; false after 30 s.
fn eventually(mut done: impl FnMut() -> bool) -> bool {
    let until = Instant::now() + Duration::from_secs(30);
    while Instant::now() < until {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    done()
}

/// The referee signals the bot's group (the helper's pid) to stop, continue and kill the
/// bot. Once the bot runs, the helper has left that group for its parent's, so a stop
/// reaches the bot alone (the helper, not stopped, is not woken twice a move), and the
/// signals a terminal sends to its new group do not end it.
#[test]
fn the_referee_can_stop_continue_and_kill_the_group() {
    let mut fixture = Fixture::new();
    let policy = fixture.policy();
    fixture.fifo.as_mut().expect("held").write_all(b"g").expect("go");
    let mut child = Command::new(HELPER)
        .args(policy.to_args())
        .args(["/bin/sh", "-c", "while read x; do echo got $x; done"])
        .process_group(0)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start the helper");
    let helper = child.id();
    let pgid = Pid::from_raw(helper as i32).expect("a pid");
    let mut stdin = child.stdin.take().expect("piped");
    let mut stdout = BufReader::new(child.stdout.take().expect("piped"));
    let mut exchange = |x: u32| {
        writeln!(stdin, "{x}").expect("write");
        let mut line = String::new();
        stdout.read_line(&mut line).expect("answer");
        assert_eq!(line, format!("got {x}\n"));
    };
    exchange(0);
    let ours = rustix::process::getpgrp().as_raw_pid().to_string();
    assert!(eventually(|| stat_field(helper, 2).as_deref() == Some(ours.as_str())), "the helper stays in the bot's group");
    let children = std::fs::read_to_string(format!("/proc/{helper}/task/{helper}/children")).expect("the helper's children");
    let bot: u32 = children.split_whitespace().next().expect("the bot").parse().expect("a pid");
    assert_eq!(stat_field(bot, 2).as_deref(), Some(helper.to_string().as_str()), "the bot's group is the helper's pid");
    kill_process(pgid, Signal::TERM).expect("a supervisor's TERM");
    kill_process(pgid, Signal::INT).expect("a terminal's INT");
    exchange(1);

    kill_process_group(pgid, Signal::STOP).expect("stop");
    assert!(eventually(|| stat_field(bot, 0).as_deref() == Some("T")), "the bot is stopped");
    assert_ne!(stat_field(helper, 0).as_deref(), Some("T"), "the stop reached the helper");
    kill_process_group(pgid, Signal::CONT).expect("continue");
    exchange(2);
    kill_process_group(pgid, Signal::KILL).expect("kill");
    assert_eq!(child.wait().expect("wait").signal(), Some(9), "the helper ends as the bot ended");
}

/// A bot the referee stops between its moves cannot leave its process group (a new
/// session, a group of its own) to go on thinking on its opponent's time: both calls are
/// refused, and a stop of the group stops every process of the bot, spinning children
/// included.
#[test]
fn a_stopped_bot_leaves_nothing_running() {
    let mut fixture = Fixture::new();
    let policy = fixture.policy();
    let script = r#"
import os, signal
r, w = os.pipe()
for name, leave in (("stay", None), ("setsid", os.setsid), ("setpgid", lambda: os.setpgid(0, 0))):
    if os.fork() == 0:
        os.close(r)
        try:
            if leave:
                leave()
            outcome = "ok"
        except OSError:
            outcome = "refused"
        os.write(w, f"{name}-{outcome}\n".encode())
        os.close(w)
        while True:
            pass
os.close(w)
with os.fdopen(r) as reports:
    said = sorted(line.strip() for line in reports)
print(os.readlink("/proc/self/ns/pid"), *said, flush=True)
while True:
    signal.pause()
"#;
    let mut child = fixture.spawn(&policy, &["python3", "-c", script]);
    let group = Pid::from_raw(child.id() as i32).expect("a pid");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("piped")).read_line(&mut line).expect("the bot's report");
    let words: Vec<&str> = line.split_whitespace().collect();
    let ns = words.first().expect("the bot's namespace").to_string();
    assert!(ns.starts_with("pid:["), "{line:?}");
    assert_eq!(&words[1..], ["setpgid-refused", "setsid-refused", "stay-ok"], "{line:?}");
    assert!(eventually(|| processes_in(&ns).len() == 4), "the bot and its three children: {:?}", processes_in(&ns));
    kill_process_group(group, Signal::STOP).expect("stop");
    let states = || processes_in(&ns).iter().map(|&pid| stat_field(pid, 0).unwrap_or_default()).collect::<Vec<_>>();
    assert!(eventually(|| states().iter().all(|state| state == "T")), "a process of the bot runs on while stopped: {:?}", states());
    kill_process_group(group, Signal::KILL).expect("kill");
    child.wait().expect("reap the helper");
    assert!(eventually(|| processes_in(&ns).is_empty()), "processes outlived the bot: {:?}", processes_in(&ns));
}

/// The helper, outside the bot's group, can be killed alone (a kill of the referee's
/// whole group, which it joined): the bot dies with it, and so does everything in the
/// bot's PID namespace, although the lifeline is still held.
#[test]
fn the_bot_dies_with_its_helper() {
    let mut fixture = Fixture::new();
    let (mut child, ns) = start_with_sleepers(&mut fixture);
    child.kill().expect("kill the helper alone");
    child.wait().expect("reap the helper");
    assert!(eventually(|| processes_in(&ns).is_empty()), "the bot outlived its helper: {:?}", processes_in(&ns));
    assert!(fixture.fifo.is_some(), "the lifeline was held all along");
}

#[test]
fn check_reports_every_guarantee_enforced() {
    let output = Command::new(HELPER).arg("--check").output().expect("run --check");
    let text = stdout(&output);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 10, "{text}");
    for name in ["process-visibility", "own-root", "disk-quota", "network"] {
        assert!(lines.contains(&format!("{name}: enforced").as_str()), "{text}");
    }
    for line in &lines {
        assert!(line.ends_with(": enforced"), "this machine does not enforce it: {line}");
    }
    assert!(output.status.success());
    let guarantees = sandbox::check(Path::new(HELPER));
    assert!(guarantees.iter().all(|g| g.status == Status::Enforced), "{guarantees:?}");
}

/// The check's scratch folder has a name nobody can foresee: a link laid in the
/// temporary folder under the name a check of this process would once have used (its
/// process id) leads nowhere, and nothing is written through it.
#[test]
fn the_check_writes_nothing_through_a_link_laid_for_it() {
    let base = tempfile::tempdir().expect("a folder");
    let victim = base.path().join("victim");
    std::fs::create_dir(&victim).expect("victim");
    let laid = base.path().join(format!("arbiter-sandbox-check-{}", std::process::id()));
    std::os::unix::fs::symlink(&victim, &laid).expect("link");
    let guarantees = sandbox::check::check_in(Path::new(HELPER), base.path());
    assert!(guarantees.iter().all(|g| g.status == Status::Enforced), "{guarantees:?}");
    let written: Vec<_> = std::fs::read_dir(&victim).expect("victim").map(|e| e.expect("entry").file_name()).collect();
    assert!(written.is_empty(), "written through the link: {written:?}");
    // The scratch folder is gone; the link and its target are as they were.
    let mut left: Vec<_> = std::fs::read_dir(base.path()).expect("base").map(|e| e.expect("entry").path()).collect();
    left.sort();
    assert_eq!(left, [laid.clone(), victim.clone()]);
}

#[test]
fn helper_path_finds_the_built_helper() {
    if std::env::var_os("ARBITER_SANDBOX").is_some() {
        return;
    }
    let found = sandbox::helper_path().expect("arbiter-sandbox next to target/*/deps/");
    assert_eq!(found.canonicalize().ok(), Path::new(HELPER).canonicalize().ok());
}

/// A referee that died before the helper opened the lifeline (no writer on the FIFO):
/// the helper sees the lifeline closed and ends at once, without starting the bot, instead
/// of waiting in `open` for a writer that never comes.
#[test]
fn a_lifeline_without_its_referee_ends_the_helper_at_once() {
    let mut fixture = Fixture::new();
    // The referee's end is closed before the helper starts: nobody will ever write.
    fixture.fifo = None;
    let policy = fixture.policy();
    let mut child = start_helper(&policy, &["/bin/sh", "-c", "echo started > started"]);
    let began = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for the helper") {
            break status;
        }
        if began.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            panic!("the helper still waits for its lifeline after 30 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(!status.success(), "a helper without its referee does not report success");
    assert!(!fixture.path("bot/started").exists(), "the bot was not started");
}

/// What a zygote's test bot does with each move's input (all of which it reads, so its
/// stdin must end): `leave` leaves a child and a daemon of another session running;
/// `count` counts the `sleep`s it can see; `peek` tries the zygote's environment and
/// descriptors and to kill it; `secret` tries another bot's folder; `fail` exits with 3.
const MOVES_BOT: &str = r#"input=$(cat); echo "move $input seed $ARBITER_SEED"
case $input in
  leave) sleep 1000 & setsid sh -c 'sleep 1000' & ;;
  count) n=0; for p in /proc/[0-9]*; do [ "$(cat $p/comm 2>/dev/null)" = sleep ] && n=$((n+1)); done; echo "sleeping $n" ;;
  peek) cat /proc/1/environ > /dev/null 2>&1 && echo environ-open || echo environ-closed
        n=0; for f in /proc/1/fd/*; do readlink "$f" > /dev/null 2>&1 && n=$((n+1)); done; echo "fds open $n"
        kill -9 1 2> /dev/null; echo after-kill ;;
  secret) cat ../other/secret 2> /dev/null || echo refused ;;
  fail) exit 3 ;;
esac"#;

/// A zygote (`--zygote`): each framed input gets a process of its own, confined as any
/// bot, with the input on its stdin (which then ends) and the helper's stdout; its wait
/// status comes on the status FIFO only once everything it left behind is killed; a
/// move's process cannot reach the zygote (its environment, its descriptors, a kill);
/// and the end of the helper's stdin ends it cleanly.
#[test]
fn a_zygote_runs_one_confined_process_per_move_and_kills_what_each_leaves() {
    let mut fixture = Fixture::new();
    let status_path = fixture.path("status");
    mkfifo(&status_path);
    let mut status = File::options().read(true).write(true).open(&status_path).expect("open the status FIFO");
    let mut policy = fixture.policy();
    policy.status = Some(status_path);
    policy.zygote = true;
    fixture.fifo.as_mut().expect("the lifeline is held").write_all(b"g").expect("write the go");
    let mut child = Command::new(HELPER)
        .args(policy.to_args())
        .args(["/bin/sh", "-c", MOVES_BOT])
        .current_dir(&policy.workdir)
        .process_group(0)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start the helper");
    let mut control = child.stdin.take().expect("piped");
    let mut output = BufReader::new(child.stdout.take().expect("piped"));
    let mut raw = [0u8; sandbox::status::LEN];
    std::io::Read::read_exact(&mut status, &mut raw).expect("the zygote's first message");
    assert_eq!(sandbox::status::decode(raw), sandbox::status::Message::Ready, "a zygote says it is ready first");
    let mut play = |input: &str, lines: usize| {
        let env = vec![("ARBITER_SEED".to_string(), input.len().to_string())];
        control.write_all(&sandbox::helper::frame(input.as_bytes(), &env).expect("a frame")).expect("the frame");
        let mut raw = [0u8; sandbox::status::LEN];
        std::io::Read::read_exact(&mut status, &mut raw).expect("the move's status");
        let sandbox::status::Message::Ended { status: ended, .. } = sandbox::status::decode(raw) else { panic!("a move's end") };
        let ended = std::process::ExitStatus::from_raw(ended);
        let said: Vec<String> = (0..lines)
            .map(|_| {
                let mut line = String::new();
                output.read_line(&mut line).expect("the move's output");
                line.trim_end().to_string()
            })
            .collect();
        (ended.code(), said)
    };
    // Each move's process gets the variables of its own frame (the length of its input).
    assert_eq!(play("leave", 1), (Some(0), vec!["move leave seed 5".to_string()]));
    fixture.require_layers();
    assert_eq!(play("count", 2), (Some(0), vec!["move count seed 5".to_string(), "sleeping 0".to_string()]), "left behind");
    let peek = ["move peek seed 4", "environ-closed", "fds open 0", "after-kill"].map(String::from).to_vec();
    assert_eq!(play("peek", 4), (Some(0), peek));
    assert_eq!(play("secret", 2), (Some(0), vec!["move secret seed 6".to_string(), "refused".to_string()]));
    assert_eq!(play("fail", 1), (Some(3), vec!["move fail seed 4".to_string()]));
    assert_eq!(play("", 1), (Some(0), vec!["move  seed 0".to_string()]), "the zygote lives on after a failed move");
    drop(control);
    let ended = child.wait().expect("wait for the helper");
    assert_eq!(ended.code(), Some(0), "the end of its input ends the zygote cleanly");
}

/// A policy with a root of the bot's own (as the referee gives every game's bot), its
/// working folder copied into `/box`.
fn rooted(fixture: &Fixture, disk: Option<u64>, files: Option<u64>) -> Policy {
    let mut policy = fixture.policy();
    policy.root = Some(sandbox::Root { work: sandbox::Work::Copy, disk, files });
    policy.read_only = vec![fixture.path("code")];
    std::fs::create_dir_all(fixture.path("code")).expect("the bot's own folder");
    policy
}

/// In a root of its own, a bot sees the system's folders, its own folder and its working
/// folder, and nothing else of the machine: not the root's secrets, not the folder next
/// to its own, not the test's, whatever paths it names; what it writes stays in its
/// `/box`, which started with the files the referee put in its working folder.
#[test]
fn a_root_of_its_own_shows_only_what_it_is_given() {
    let mut fixture = Fixture::new();
    let policy = rooted(&fixture, None, None);
    std::fs::write(fixture.path("bot/seed.txt"), "seed").expect("a file of the working folder");
    std::fs::write(fixture.path("code/prog.txt"), "code").expect("a file of its own folder");
    let script = format!(
        "cd /box; cat seed.txt; echo; pwd; ls /; cat {code}/prog.txt; echo; \
         for p in /etc/shadow /root {other}/secret {other} /tmp/../{other} /home /var /proc/1/root/etc/shadow; do \
           if cat $p > /dev/null 2>&1 || ls $p > /dev/null 2>&1; then echo \"open $p\"; fi; done; \
         echo in-parent $(ls -A {root}); \
         echo mine > /box/made; echo $HOME $TMPDIR; touch /usr/x 2>/dev/null && echo usr-writable; \
         touch {code}/x 2>/dev/null && echo own-writable; echo done",
        code = fixture.path("code").display(),
        other = fixture.path("other").display(),
        root = fixture.root.path().display(),
    );
    let output = fixture.run(&policy, &["/bin/sh", "-c", &script]);
    let text = stdout(&output);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "seed", "{output:?}");
    assert_eq!(lines[1], "/box");
    let top: Vec<&str> = lines[2..lines.len() - 3].iter().copied().take_while(|l| *l != "code").collect();
    for name in &top {
        assert!(
            ["bin", "box", "dev", "etc", "lib", "lib32", "lib64", "libx32", "proc", "sbin", "sys", "tmp", "usr"].contains(name),
            "{name} in its root: {text}"
        );
    }
    assert!(!text.contains("open "), "the bot opened a path it was not given: {text}");
    assert!(text.contains("\nin-parent code\n"), "beside its own folder, nothing: {text}");
    assert!(text.contains("/box /tmp\n"), "home and temporary folder: {text}");
    assert!(!text.contains("writable"), "a read-only folder was writable: {text}");
    assert!(text.ends_with("done\n"), "{output:?}");
    assert!(!fixture.path("bot/made").exists(), "what the bot wrote stays in its own tmpfs");
    assert!(!fixture.path("code/x").exists());
    let report = std::fs::read_to_string(fixture.path("report")).expect("report");
    assert!(report.contains("root: applied: a root of its own"), "{report}");
}

/// The bot's disk quota: its working folder, `/tmp` and `/dev/shm` share one tmpfs of
/// `disk` bytes and `files` files; writing past it fails, nothing reaches the real disk,
/// and the helper reports the quota full with the bot's status.
#[test]
fn the_disk_quota_holds_and_is_reported() {
    let mut fixture = Fixture::new();
    let status_path = fixture.path("status");
    mkfifo(&status_path);
    let mut status = File::options().read(true).write(true).open(&status_path).expect("open the status FIFO");
    let mut policy = rooted(&fixture, Some(1 << 20), Some(64));
    policy.status = Some(status_path);
    let script = "head -c 2000000 /dev/zero > /box/big 2>/dev/null || echo big-refused; \
                  n=0; while [ $n -lt 100 ]; do touch /tmp/f$n 2>/dev/null || break; n=$((n+1)); done; echo files $n; \
                  head -c 2000000 /dev/zero > /dev/shm/big 2>/dev/null || echo shm-refused; exit 4";
    let output = fixture.run(&policy, &["/bin/sh", "-c", script]);
    let text = stdout(&output);
    assert!(text.contains("big-refused\n"), "{output:?}");
    let files: usize = text.lines().find_map(|l| l.strip_prefix("files ")).and_then(|n| n.parse().ok()).expect("a count");
    assert!(files < 64, "{files} files made in a quota of 64");
    assert!(text.contains("shm-refused"), "{text}");
    assert_eq!(output.status.code(), Some(4));
    let mut raw = [0u8; sandbox::status::LEN];
    std::io::Read::read_exact(&mut status, &mut raw).expect("the bot's status");
    match sandbox::status::decode(raw) {
        sandbox::status::Message::Ended { status, disk_full } => {
            assert_eq!(std::process::ExitStatus::from_raw(status).code(), Some(4));
            assert!(disk_full, "the quota was full at the end");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(std::fs::read_dir(fixture.path("bot")).expect("the working folder").count(), 0, "nothing on the real disk");
}

/// A bot of the TCP interface, started in a network namespace made for it with the
/// referee's listener inside: it reaches that listener, nothing else (the host's
/// listeners on any address), and what it listens on is out of the host's reach.
#[test]
fn a_tcp_bot_reaches_its_referee_and_nothing_else() {
    let mut fixture = Fixture::new();
    let host = TcpListener::bind("0.0.0.0:0").expect("a host listener on every address");
    let host_port = host.local_addr().expect("address").port();
    let namespace = sandbox::netns::NetNamespace::create().expect("a network namespace (root)");
    let referee = namespace.run(|| TcpListener::bind("127.0.0.1:0")).expect("the referee's listener inside");
    let port = referee.local_addr().expect("address").port();
    let mut policy = rooted(&fixture, None, None);
    policy.net = Net::Given(port);
    let script = format!(
        "import socket\n\
         def try_connect(host, port, family=socket.AF_INET):\n\
         \x20   s = socket.socket(family)\n\
         \x20   s.settimeout(2)\n\
         \x20   try:\n\
         \x20       s.connect((host, port)); return 'ok'\n\
         \x20   except OSError as e:\n\
         \x20       return 'refused'\n\
         print('referee', try_connect('127.0.0.1', {port}))\n\
         for h in ['127.0.0.1', '127.0.0.2', '10.0.0.1']:\n\
         \x20   print('host', h, try_connect(h, {host_port}))\n\
         print('host6', try_connect('::1', {host_port}, socket.AF_INET6))\n\
         l = socket.socket(); l.listen(); print('listening', l.getsockname()[1], flush=True)\n\
         import sys; sys.stdin.read()\n"
    );
    fixture.fifo.as_mut().expect("the lifeline").write_all(b"g").expect("the go");
    let mut child = namespace
        .run(|| {
            Command::new(HELPER)
                .args(policy.to_args())
                .args(["/usr/bin/python3", "-c", &script])
                .current_dir(&policy.workdir)
                .process_group(0)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
        })
        .expect("start the helper inside the namespace");
    let mut out = BufReader::new(child.stdout.take().expect("piped"));
    let mut lines = Vec::new();
    for _ in 0..6 {
        let mut line = String::new();
        out.read_line(&mut line).expect("a line");
        lines.push(line.trim().to_string());
    }
    let (accepted, _) = referee.accept().expect("the bot's connection reached the referee");
    drop(accepted);
    assert_eq!(lines[0], "referee ok", "{lines:?}");
    for line in &lines[1..5] {
        assert!(line.ends_with("refused"), "the bot reached a host listener: {lines:?}");
    }
    let listened: u16 = lines[5].strip_prefix("listening ").and_then(|p| p.parse().ok()).expect("its port");
    for addr in [format!("127.0.0.1:{listened}"), format!("[::1]:{listened}")] {
        let reached = std::net::TcpStream::connect_timeout(&addr.parse().expect("an address"), Duration::from_secs(2));
        assert!(reached.is_err(), "the host reached the bot's listener at {addr}");
    }
    host.set_nonblocking(true).expect("nonblocking");
    assert!(host.accept().is_err(), "nothing connected to the host's listener");
    drop(child.stdin.take());
    let _ = child.wait();
    fixture.require_layers();
}

/// A call of the x32 ABI (the number with `__X32_SYSCALL_BIT`) is refused with EPERM,
/// whatever the call: no rule by number would match it.
#[cfg(target_arch = "x86_64")]
#[test]
fn x32_calls_are_refused() {
    let mut fixture = Fixture::new();
    let policy = fixture.policy();
    let script = "import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\n\
                  r = libc.syscall(0x40000000 | 39)\nprint(r, ctypes.get_errno())";
    let output = fixture.run(&policy, &["/usr/bin/python3", "-c", script]);
    assert_eq!(stdout(&output).trim(), format!("-1 {}", libc::EPERM), "{output:?}");
}
