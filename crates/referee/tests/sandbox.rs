//! Hostile bots inside the sandbox, each in a real Pah-tum game (a process per move):
//! each is contained (its attack fails, the test's listener accepts nothing, nothing of
//! it survives) or loses with the right termination, and the next normal game passes.

mod common;

use std::io::Read;
use std::net::TcpListener;
use std::path::Path;
use std::time::Duration;

use common::{Script, play, random, script_bot};
use referee::{BotSpec, GameRecord, GameSetup, Termination};
use rules::{GameKind, Options};

const START: &str = "-------\n------+\n---+---\n-------\n--++---\n-------\n+------\n";

/// A correct bot in sh: puts its letter on the first empty square.
const GOOD: &str = r#"board=$(cat; echo .); board=${board%.}
x=$(printf '%s' "$board" | tr -cd X | wc -c); o=$(printf '%s' "$board" | tr -cd O | wc -c)
if [ "$x" -eq "$o" ]; then me=X; else me=O; fi
printf '%s' "$board" | sed "0,/-/s//$me/" | head -c 56
"#;

fn sandboxed_setup(seed: u64, move_ms: u64) -> GameSetup {
    let options = Options::new();
    let start = GameKind::Pahtum.new_position(&options, Some(START)).unwrap();
    let mut setup = GameSetup::new(start, options, seed);
    for limits in &mut setup.limits {
        limits.sandboxed = true;
        limits.move_time = Some(Duration::from_millis(move_ms));
    }
    setup
}

fn pahtum_bot(dir: &Path, name: &str, script: &str) -> BotSpec {
    script_bot(dir, name, Script::sh("pahtum", "pahtum"), script)
}

async fn game(bot: &BotSpec, move_ms: u64) -> GameRecord {
    play(&sandboxed_setup(3, move_ms), [bot, &random()]).await
}

fn stderr_of(record: &GameRecord) -> String {
    record.turns.iter().filter(|t| t.side == 0).map(|t| t.stderr.as_str()).collect()
}

async fn next_game_is_normal(dir: &Path) {
    let good = pahtum_bot(dir, "good", GOOD);
    let record = game(&good, 30_000).await;
    assert_eq!(record.result.termination, Termination::Rules, "{:?} {:?}", record.result, record.turns.last());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_sandboxed_bot_plays_normally() {
    let dir = tempfile::tempdir().unwrap();
    next_game_is_normal(dir.path()).await;
    let c = common::sample("pahtum", "c");
    let record = game(&c, 30_000).await;
    assert_eq!(record.result.termination, Termination::Rules);
}

#[tokio::test(flavor = "multi_thread")]
async fn files_outside_the_working_directory_cannot_be_read_or_written() {
    let dir = tempfile::tempdir().unwrap();
    let other = dir.path().join("other-bot");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(other.join("secret"), "the other bot's book").unwrap();
    let outside = dir.path().join("outside-file");
    // Its /tmp is its own: what it writes there never reaches the machine's.
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().subsec_nanos();
    let host_tmp = std::env::temp_dir().join(format!("arbiter-hostile-{}-{nanos}", std::process::id()));
    let script = format!(
        "cat {secret} >&2 2>/dev/null && echo LEAK-ABSOLUTE >&2\n\
         cat ../../other-bot/secret 2>/dev/null && echo LEAK-RELATIVE >&2\n\
         ln -s {other} link 2>/dev/null; cat link/secret 2>/dev/null && echo LEAK-SYMLINK >&2\n\
         echo x > {outside} 2>/dev/null; cat /etc/shadow 2>/dev/null && echo LEAK-SHADOW >&2\n\
         echo x > {host_tmp} 2>/dev/null\n\
         echo x > mine && echo WROTE-OWN >&2\n\
         {GOOD}",
        secret = other.join("secret").display(),
        other = other.display(),
        outside = outside.display(),
        host_tmp = host_tmp.display(),
    );
    let bot = pahtum_bot(dir.path(), "snoop", &script);
    let record = game(&bot, 30_000).await;
    let log = stderr_of(&record);
    assert_eq!(record.result.termination, Termination::Rules, "{:?}", record.result);
    for leak in ["LEAK-ABSOLUTE", "LEAK-RELATIVE", "LEAK-SYMLINK", "LEAK-SHADOW", "the other bot's book"] {
        assert!(!log.contains(leak), "{leak} in {log}");
    }
    assert!(log.contains("WROTE-OWN"), "its own directory stays writable: {log}");
    assert!(!outside.exists(), "written outside its folder");
    assert!(!host_tmp.exists(), "written into the machine's /tmp");
    next_game_is_normal(dir.path()).await;
}

/// A process of the test's with a unique word on its command line (GNU sleep adds its
/// arguments up), killed on drop.
struct Marker {
    word: String,
    child: std::process::Child,
}

impl Marker {
    async fn start() -> Marker {
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().subsec_nanos();
        let word = format!("0.{}{nanos}", std::process::id());
        let child = std::process::Command::new("sleep").args(["3600", &word]).spawn().unwrap();
        let marker = Marker { word, child };
        let until = std::time::Instant::now() + Duration::from_secs(60);
        while !std::fs::read(format!("/proc/{}/cmdline", marker.child.id()))
            .is_ok_and(|c| String::from_utf8_lossy(&c).contains(&marker.word))
        {
            assert!(std::time::Instant::now() < until, "the marker process did not start");
            tokio::time::sleep(Duration::from_millis(5)).await;
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

/// Shell lines that print every command line the bot can read in /proc (by listing it,
/// and by the pids of `marker` and of this test) to stderr, then how many processes it
/// lists.
fn proc_scan(marker: &Marker) -> String {
    format!(
        "for f in /proc/[0-9]*/cmdline /proc/{}/cmdline /proc/{}/cmdline; do tr '\\0' ' ' < $f 2>/dev/null; echo; done >&2\n\
         echo listed $(ls -d /proc/[0-9]* | wc -l) >&2",
        marker.child.id(),
        std::process::id()
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn a_bot_sees_no_process_outside_its_sandbox() {
    let dir = tempfile::tempdir().unwrap();
    let marker = Marker::start().await;
    let own_command = String::from_utf8_lossy(&std::fs::read("/proc/self/cmdline").unwrap()).split('\0').next().unwrap().to_string();
    let bot = pahtum_bot(dir.path(), "snoop", &format!("{}\n{GOOD}", proc_scan(&marker)));
    let record = game(&bot, 3000).await;
    assert_eq!(record.result.termination, Termination::Rules, "{:?}", record.result);
    let first = &record.turns.iter().find(|t| t.side == 0).unwrap().stderr;
    // The scan ran: it read the bot's own command line.
    assert!(first.contains("bot.sh"), "{first}");
    assert!(!first.contains(&marker.word), "the bot sees the test's marker process: {first}");
    assert!(!first.contains(&own_command), "the bot sees the referee's command line: {first}");
    // The helper's first stage, outside the sandbox, is not seen. Its second stage is
    // inside: pid 1 of the sandbox's PID namespace, which starts each move's process (the
    // zygote); its memory, environment and descriptors are closed to the bot
    // (`crates/sandbox/tests/helper.rs`).
    for line in first.lines().filter(|line| line.contains("arbiter-sandbox")) {
        assert!(line.starts_with("arbiter-sandbox --inner "), "the bot sees the sandbox helper outside: {first}");
    }
    let listed: usize = first.lines().find_map(|l| l.strip_prefix("listed ")).and_then(|n| n.trim().parse().ok()).unwrap();
    assert!((1..=6).contains(&listed), "the bot lists {listed} processes: {first}");
    next_game_is_normal(dir.path()).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_manifest_build_runs_inside_the_sandbox() {
    let dir = tempfile::tempdir().unwrap();
    let marker = Marker::start().await;
    let outside = dir.path().join("outside");
    // The build looks around in /proc (writing what it sees into its own folder), writes
    // outside its folder, and fails: its last lines come back in the fault.
    let build = format!("({}) 2> scan.txt\necho pwned > {} && echo WROTE-OUTSIDE >&2\nexit 3", proc_scan(&marker), outside.display());
    let folder = dir.path().join("builder");
    common::bot_in(&folder, "builder", Script::sh("pahtum", "pahtum"), GOOD);
    let manifest = std::fs::read_to_string(folder.join("bot.toml")).unwrap();
    std::fs::write(folder.join("bot.toml"), format!("{manifest}build = [\"sh\", \"-c\", {build:?}]\n")).unwrap();
    let bot = BotSpec::from_arg(folder.to_str().unwrap()).unwrap();
    let record = game(&bot, 3000).await;
    let Termination::Crash { side: 0, detail } = &record.result.termination else {
        panic!("a failed build is the bot's crash: {:?}", record.result);
    };
    let (_, output) = detail.split_once("] failed: ").unwrap_or_else(|| panic!("the build command failed: {detail}"));
    assert!(output.starts_with("sh failed: exit status: 3"), "{detail}");
    // The path outside is in the build's own /tmp, if anywhere: never on the machine.
    assert!(!outside.exists(), "the build wrote outside its folder");
    let scan = std::fs::read_to_string(folder.join("scan.txt")).unwrap();
    assert!(scan.contains("sh -c") && scan.contains("listed "), "{scan}");
    assert!(!scan.contains(&marker.word), "the build sees the test's marker process: {scan}");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_network_is_closed_and_the_listener_accepts_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let script = format!(
        "python3 -c 'import socket\ntry:\n    socket.create_connection((\"127.0.0.1\", {port}), 1)\n    print(\"CONNECTED\")\nexcept OSError as e:\n    print(\"refused\", e)' >&2\n{GOOD}"
    );
    let bot = pahtum_bot(dir.path(), "caller", &script);
    let record = game(&bot, 30_000).await;
    let log = stderr_of(&record);
    assert!(!log.contains("CONNECTED"), "{log}");
    assert!(log.contains("refused"), "{log}");
    let mut accepted = listener.accept();
    if let Ok((stream, _)) = &mut accepted {
        let mut buf = Vec::new();
        let _ = stream.try_clone().unwrap().read_to_end(&mut buf);
    }
    assert!(accepted.is_err(), "the listener accepted a connection");
    next_game_is_normal(dir.path()).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_environment_holds_only_the_allow_list() {
    let dir = tempfile::tempdir().unwrap();
    let bot = pahtum_bot(dir.path(), "env", &format!("env | cut -d= -f1 | sort | tr '\\n' ' ' >&2\n{GOOD}"));
    let record = game(&bot, 30_000).await;
    let first = record.turns.iter().find(|t| t.side == 0).unwrap();
    let names: Vec<&str> = first.stderr.split_whitespace().collect();
    for name in &names {
        assert!(
            ["HOME", "LANG", "PATH", "TMPDIR", "PWD", "SHLVL", "_", "ARBITER_SEED"].contains(name),
            "unexpected variable {name}: {names:?}"
        );
    }
    assert!(names.contains(&"PATH"));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_fork_bomb_is_capped_and_the_referee_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let bot = pahtum_bot(dir.path(), "bomb", "bomb() { bomb | bomb & }; bomb; sleep 5");
    let record = game(&bot, 1000).await;
    assert!(
        matches!(record.result.termination, Termination::Timeout { side: 0, .. } | Termination::Crash { side: 0, .. }),
        "{:?}",
        record.result
    );
    // The referee can still start processes meanwhile and after.
    assert!(std::process::Command::new("true").status().unwrap().success());
    next_game_is_normal(dir.path()).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn twice_the_memory_cap_is_never_granted() {
    let dir = tempfile::tempdir().unwrap();
    // 128 MB is Pah-tum's cap; the bot asks for 256 MB and touches it.
    let bot = pahtum_bot(dir.path(), "hog", &format!("python3 -c 'b = bytearray(256 * 1024 * 1024); print(len(b))' >&2\n{GOOD}"));
    let record = game(&bot, 30_000).await;
    let log = stderr_of(&record);
    assert!(!log.contains("268435456"), "the allocation succeeded: {log}");
    // This machine kind has a memory cgroup: the bot is killed and loses for it.
    match &record.result.termination {
        Termination::Crash { side: 0, detail } => assert!(detail.contains("exceeded its memory cap of 128 MB"), "{detail}"),
        other => panic!("expected a memory fault, got {other:?}"),
    }
    next_game_is_normal(dir.path()).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn kill_minus_one_and_killing_the_referee_hit_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let me = std::process::id();
    let bot = pahtum_bot(dir.path(), "killer", &format!("kill -9 -1 2>/dev/null; kill -9 {me} 2>/dev/null\n{GOOD}"));
    let record = game(&bot, 30_000).await;
    // This test process (the referee) is alive to check the record.
    assert!(record.turns.len() > 1, "{:?}", record.result);
    next_game_is_normal(dir.path()).await;
}

struct Hostile {
    name: &'static str,
    script: &'static str,
    /// The termination kinds that count as losing correctly.
    kinds: &'static [&'static str],
}

/// Bots that attack or break a limit, then (if they are still running) play: each must
/// end as one of its kinds (or be contained: "rules" where the attack just fails).
const HOSTILE: &[Hostile] = &[
    Hostile { name: "spins", script: "while :; do :; done", kinds: &["timeout"] },
    // In its PID namespace the bot is pid 1, which cannot stop itself: it then echoes
    // the board unchanged and loses for that.
    Hostile { name: "stops-itself", script: "kill -STOP $$; cat", kinds: &["timeout", "illegal-move"] },
    Hostile { name: "ignores-sigterm", script: "trap '' TERM; sleep 30", kinds: &["timeout"] },
    Hostile { name: "threads-burn-cpu", script: "for i in 1 2 3 4; do (while :; do :; done) & done; wait", kinds: &["timeout"] },
    Hostile {
        name: "huge-file",
        script: "head -c 1073741824 /dev/zero > big; cat >/dev/null; exit 0",
        kinds: &["crash", "protocol-error", "timeout"],
    },
    Hostile {
        name: "many-files",
        script: "i=0; while [ $i -lt 1000000 ]; do : > f$i; i=$((i+1)); done",
        kinds: &["timeout", "crash", "protocol-error"],
    },
    Hostile {
        name: "many-open-files",
        script: "python3 -c 'import os\nfs=[]\ntry:\n    for i in range(100000): fs.append(open(\"/dev/null\"))\nexcept OSError as e: print(len(fs), e, file=__import__(\"sys\").stderr)\nraise SystemExit(7)'",
        kinds: &["crash"],
    },
    Hostile { name: "endless-stdout", script: "cat >/dev/null; head -c 1073741824 /dev/zero", kinds: &["protocol-error"] },
    Hostile { name: "segfaults", script: "cat >/dev/null; kill -SEGV $$", kinds: &["crash", "protocol-error"] },
    Hostile { name: "aborts", script: "cat >/dev/null; python3 -c 'import os; os.abort()'; exit 134", kinds: &["crash"] },
    Hostile { name: "exits-early", script: "exit 0", kinds: &["protocol-error"] },
    Hostile {
        name: "ptrace-and-mem",
        script: "python3 -c 'import ctypes,os\nlibc=ctypes.CDLL(None, use_errno=True)\nr=libc.ptrace(16, os.getppid(), 0, 0)\nprint(\"ptrace\", r, ctypes.get_errno())\ntry:\n    open(\"/proc/1/mem\",\"rb\").read(1); print(\"MEM-READ\")\nexcept OSError as e: print(\"mem\", e)\nr=libc.syscall(425, 8, 0)\nprint(\"io_uring\", r)\nr=libc.unshare(0x40000000)\nprint(\"unshare\", r)' >&2; exit 9",
        kinds: &["crash"],
    },
];

#[tokio::test(flavor = "multi_thread")]
async fn hostile_bots_lose_or_are_contained_and_leave_nothing() {
    let dir = tempfile::tempdir().unwrap();
    for hostile in HOSTILE {
        let bot = pahtum_bot(dir.path(), hostile.name, hostile.script);
        // Tight only for bots that can only time out: a loaded machine must never
        // turn a crash or a refused attack into a timeout.
        let move_ms = if hostile.kinds == ["timeout"] { 800 } else { 30_000 };
        let record = game(&bot, move_ms).await;
        let termination = serde_json::to_value(&record.result.termination).unwrap();
        let kind = termination["kind"].as_str().unwrap().to_string();
        assert!(hostile.kinds.contains(&kind.as_str()), "{}: {termination}", hostile.name);
        assert_eq!(termination["side"], 0, "{}: {termination}", hostile.name);
        assert_eq!(record.result.scores, Some([0, 1666]), "{}", hostile.name);
        let log = stderr_of(&record);
        assert!(!log.contains("MEM-READ"), "{}: {log}", hostile.name);
        if hostile.name == "ptrace-and-mem" {
            // Every one of the four attacks was refused.
            assert!(log.contains("ptrace -1"), "{log}");
            assert!(log.contains("io_uring -1"), "{log}");
            assert!(log.contains("unshare -1"), "{log}");
        }
        // Nothing of the bot is left: no process runs its script.
        let script = dir.path().join(hostile.name).join("bot.sh");
        assert!(common::all_gone(&processes_running(&script), common::GONE).await, "{} left processes", hostile.name);
        next_game_is_normal(dir.path()).await;
    }
}

/// The pids of processes whose command line mentions `path`.
fn processes_running(path: &Path) -> Vec<u32> {
    let needle = path.to_string_lossy().into_owned();
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|entry| entry.file_name().to_str().and_then(|n| n.parse::<u32>().ok()))
        .filter(|pid| std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|c| String::from_utf8_lossy(&c).contains(&needle)))
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_daemon_left_behind_dies_with_the_move_and_stderr_is_capped() {
    let dir = tempfile::tempdir().unwrap();
    // On its first call the bot starts a copy of itself in a new session that sleeps,
    // floods stderr, then plays.
    let script = format!(
        "if [ \"$1\" = daemon ]; then exec sleep 100; fi\nsetsid sh \"$0\" daemon &\nhead -c 200000 /dev/zero | tr '\\0' 'e' >&2\n{GOOD}"
    );
    let bot = pahtum_bot(dir.path(), "daemon", &script);
    let mut setup = sandboxed_setup(5, 30_000);
    setup.limits[0].stderr_per_move = 1000;
    let record = play(&setup, [&bot, &random()]).await;
    assert_eq!(record.result.termination, Termination::Rules, "{:?}", record.result);
    for turn in record.turns.iter().filter(|t| t.side == 0) {
        assert_eq!(turn.stderr.len(), 1000);
        assert_eq!(turn.stderr_dropped, 199_000);
    }
    let script_path = dir.path().join("daemon").join("bot.sh");
    assert!(common::all_gone(&processes_running(&script_path), common::GONE).await, "a daemon survived");
}

#[tokio::test(flavor = "multi_thread")]
async fn threads_burning_the_connect4_cpu_budget_lose_on_cpu_time() {
    let dir = tempfile::tempdir().unwrap();
    // A project-protocol bot that burns its CPU budget in four processes on its move.
    let script = "read hello; echo ready\nwhile read line; do case \"$line\" in go) for i in 1 2 3 4; do (while :; do :; done) & done; wait;; esac; done\n";
    let bot = script_bot(dir.path(), "burner", Script::sh("connect4", "arbiter"), script);
    let start = GameKind::Connect4.new_position(&Options::new(), None).unwrap();
    let mut setup = GameSetup::new(start, Options::new(), 1);
    for limits in &mut setup.limits {
        limits.sandboxed = true;
    }
    setup.limits[0].game_cpu = Some(Duration::from_millis(400));
    let record = play(&setup, [&bot, &random()]).await;
    match &record.result.termination {
        Termination::Timeout { side: 0, detail } => assert!(detail.contains("out of CPU time"), "{detail}"),
        other => panic!("expected a CPU timeout, got {other:?}"),
    }
    let script_path = dir.path().join("burner").join("bot.sh");
    assert!(common::all_gone(&processes_running(&script_path), common::GONE).await, "burners survived");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_persistent_bot_over_its_memory_cap_loses_on_memory() {
    let dir = tempfile::tempdir().unwrap();
    // A project-protocol bot that, on its move, asks for 256 MB under a 64 MB cap.
    let script = "read hello; echo ready\nwhile read line; do case \"$line\" in go) exec python3 -c 'b = bytearray(256 * 1024 * 1024); print(\"move 3\")';; esac; done\n";
    let bot = script_bot(dir.path(), "hog", Script::sh("connect4", "arbiter"), script);
    let start = GameKind::Connect4.new_position(&Options::new(), None).unwrap();
    let mut setup = GameSetup::new(start, Options::new(), 1);
    for limits in &mut setup.limits {
        limits.sandboxed = true;
        limits.memory = Some(64 * 1024 * 1024);
    }
    let record = play(&setup, [&bot, &random()]).await;
    match &record.result.termination {
        Termination::Crash { side: 0, detail } => assert!(detail.contains("exceeded its memory cap of 64 MB"), "{detail}"),
        other => panic!("expected a memory fault, got {other:?}"),
    }
}

/// How a sandboxed per-move bot ended, as the referee reads it from the helper's report
/// (sent before the helper tears the namespaces down): a move written, then a non-zero
/// exit or a death by signal, is a crash with that status, and the move's stderr is whole.
#[tokio::test(flavor = "multi_thread")]
async fn a_sandboxed_move_that_ends_badly_is_a_crash_with_its_status() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        ("exit-3", "exit 3", "exited with status 3"),
        // A real fault: a signal sent to itself would not reach it (the bot is pid 1 of
        // its PID namespace, and the kernel keeps such signals from an init).
        ("segv", "exec python3 -c 'import ctypes; ctypes.string_at(0)'", "killed by signal 11 (SIGSEGV)"),
        ("exit-0", "exit 0", ""),
    ];
    for (name, end, detail) in cases {
        let script = format!("{GOOD}echo last-words >&2\n{end}\n");
        let bot = pahtum_bot(dir.path(), name, &script);
        let record = game(&bot, 30_000).await;
        let termination = serde_json::to_value(&record.result.termination).unwrap();
        if detail.is_empty() {
            assert_eq!(record.result.termination, Termination::Rules, "{name}: {termination}");
        } else {
            assert_eq!(termination["kind"], "crash", "{name}: {termination}");
            assert_eq!(termination["side"], 0, "{name}: {termination}");
            assert!(termination.to_string().contains(detail), "{name}: {termination}");
        }
        assert!(stderr_of(&record).contains("last-words"), "{name}: {:?}", stderr_of(&record));
    }
}

/// Put before [`GOOD`]: counts the bot's moves in a file of its working folder and says
/// on stderr the count and the folder (`move N in FOLDER`).
const COUNTING: &str = r#"n=$(cat count 2>/dev/null || echo 0); n=$((n + 1)); echo "$n" > count; echo "move $n in $(pwd)" >&2
"#;

/// The `--workdir` of each sandbox helper running for the bot in `dir`.
fn helper_workdirs(dir: &Path) -> Vec<String> {
    let mut folders: Vec<String> = processes_running(dir)
        .into_iter()
        .filter_map(|pid| std::fs::read(format!("/proc/{pid}/cmdline")).ok())
        .filter_map(|line| {
            let args: Vec<String> = line.split(|&b| b == 0).map(|arg| String::from_utf8_lossy(arg).into_owned()).collect();
            args.iter().position(|arg| arg == "--workdir").and_then(|at| args.get(at + 1).cloned())
        })
        .collect();
    folders.sort();
    folders.dedup();
    folders
}

/// The working folders of the two sandboxes the stock keeps for `dir`'s bot, once both
/// are running (a safety bound of [`common::GONE`]). A helper of a game that just ended
/// may still be on its way out, its folder already removed: only helpers whose folder
/// exists wait.
async fn waiting_workdirs(dir: &Path) -> Vec<String> {
    let until = std::time::Instant::now() + common::GONE;
    loop {
        let mut waiting = helper_workdirs(dir);
        waiting.retain(|folder| Path::new(folder).is_dir());
        if waiting.len() >= 2 || std::time::Instant::now() > until {
            return waiting;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn sandboxes_started_ahead_give_each_game_and_seat_a_fresh_folder_and_end_with_the_stock() {
    let dir = tempfile::tempdir().unwrap();
    let bot = pahtum_bot(dir.path(), "counting", &format!("{COUNTING}{GOOD}"));
    let ahead = referee::ahead::Ahead::new(4);
    let mut folders: Vec<String> = Vec::new();
    let mut waiting: Vec<String> = Vec::new();
    for game in 0..3 {
        let mut setup = sandboxed_setup(3 + game, 30_000);
        setup.ahead = Some(std::sync::Arc::clone(&ahead));
        // The bot plays itself: two seats of one bot, each with a sandbox of its own.
        let record = play(&setup, [&bot, &bot]).await;
        assert_eq!(record.result.termination, Termination::Rules, "{:?} {:?}", record.result, record.turns.last());
        for side in 0..2 {
            let said: Vec<(usize, String)> = record
                .turns
                .iter()
                .filter(|turn| turn.side == side)
                .map(|turn| {
                    let line = turn.stderr.trim_end();
                    let (count, folder) = line.strip_prefix("move ").and_then(|rest| rest.split_once(" in ")).expect(line);
                    (count.parse().expect(line), folder.to_string())
                })
                .collect();
            // Counted from 1 in each game: no file of an earlier game, nor of the other
            // seat, in the folder.
            let counts: Vec<usize> = said.iter().map(|(count, _)| *count).collect();
            assert_eq!(counts, (1..=said.len()).collect::<Vec<_>>(), "game {game} side {side}");
            // Its working folder, a tmpfs of its sandbox's own, is /box in its root.
            assert!(said.iter().all(|(_, f)| f == "/box"), "game {game} side {side}: {said:?}");
        }
        // The folders on the machine of the seats that just played (made for their
        // sandboxes before the game) are gone; two sandboxes wait for the bot's next game,
        // one for each seat, in folders of their own that no game has used.
        for folder in &waiting {
            assert!(!Path::new(folder).exists(), "the folder {folder} outlived its game {game}");
        }
        assert_eq!(ahead.len(), 2, "game {game}");
        waiting = waiting_workdirs(&dir.path().join("counting")).await;
        assert_eq!(waiting.len(), 2, "{waiting:?}");
        assert!(waiting.iter().all(|folder| Path::new(folder).is_dir() && !folders.contains(folder)), "{waiting:?} {folders:?}");
        folders.extend(waiting.iter().cloned());
    }
    // The stock's end ends the two waiting sandboxes and removes their folders.
    ahead.close().await;
    assert!(ahead.is_empty());
    assert!(common::all_gone(&processes_running(&dir.path().join("counting")), common::GONE).await, "the stock's sandboxes outlived it");
    assert!(waiting.iter().all(|folder| !Path::new(folder).exists()), "{waiting:?}");
}
