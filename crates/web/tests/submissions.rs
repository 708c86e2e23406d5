//! Submissions end to end, inside the sandbox: sources in every language compile and
//! play their entry check, a compile error and every kind of bad request store nothing,
//! versions pile up with their upload times, and a crashing bot fails with a reason
//! (the doctor's, before any game is played).

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use referee::Protocol;
use rules::GameKind;
use submissions::{EntryCheckResult, Language, ManifestUpload, SourceUpload, Submissions, SubmitError, SubmitOutcome, Upload, Version};

fn data(file: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(file);
    std::fs::read(&path).unwrap_or_else(|err| panic!("{}: {err}", path.display()))
}

fn repo_file(path: &str) -> Vec<u8> {
    std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(path)).unwrap()
}

fn source(name: &str, filename: &str, code: Vec<u8>) -> Upload {
    Upload::Source(SourceUpload {
        name: name.to_string(),
        game: GameKind::Pahtum,
        options: Default::default(),
        // Native Pah-tum bots (an upload without an interface is taken as the project's).
        protocol: Some(Protocol::Pahtum),
        language: None,
        filename: filename.to_string(),
        code,
    })
}

fn manifest(text: &str, files: &[(&str, Vec<u8>)]) -> Upload {
    Upload::Manifest(ManifestUpload {
        name: None,
        game: None,
        options: Default::default(),
        manifest: text.to_string(),
        files: files.iter().map(|(name, bytes)| (name.to_string(), bytes.clone())).collect(),
    })
}

fn open() -> (tempfile::TempDir, Submissions) {
    common::ensure_helper();
    let dir = tempfile::tempdir().unwrap();
    let subs = Submissions::open(&dir.path().join("submissions")).unwrap();
    (dir, subs)
}

/// Submitted, then checked (the web runs the check after the upload's answer).
async fn accepted(subs: &Submissions, upload: Upload) -> Version {
    match subs.submit(upload, true).await {
        Ok(SubmitOutcome::Accepted(version)) => {
            assert!(version.entry_check.is_none(), "checked later");
            subs.check(&version, true, &mut |_| {}).await.expect("the check runs")
        }
        Ok(SubmitOutcome::CompileFailed { log }) => panic!("compile failed:\n{log}"),
        Err(err) => panic!("refused: {err}"),
    }
}

/// Every file and folder under `root` with its size: what "nothing changed" compares.
fn snapshot(root: &Path) -> BTreeSet<String> {
    fn walk(dir: &Path, root: &Path, out: &mut BTreeSet<String>) {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            let meta = entry.metadata().unwrap();
            let rel = path.strip_prefix(root).unwrap().display().to_string();
            out.insert(format!("{rel} {}", if meta.is_dir() { 0 } else { meta.len() }));
            if meta.is_dir() {
                walk(&path, root, out);
            }
        }
    }
    let mut out = BTreeSet::new();
    walk(root, root, &mut out);
    out
}

/// The check played its games against the baseline, each to the end by the rules.
fn assert_played_cleanly(check: &EntryCheckResult) {
    assert_eq!(check.games.len(), 2, "{check:?}");
    for game in &check.games {
        assert_eq!(game.opponent, "random");
        assert_eq!(game.termination, "by the rules", "{check:?}");
        assert!(game.moves > 0);
    }
    assert_ne!(check.games[0].side, check.games[1].side, "one game on each side");
}

#[tokio::test(flavor = "multi_thread")]
async fn sources_in_c_python_and_cpp_compile_sandboxed_and_play_the_entry_check() {
    let (_dir, subs) = open();
    // (name, file name, source, language, must pass)
    let cases = [
        ("greedy-c", "greedy.c", data("greedy_pahtum.c"), Language::C, true),
        ("greedy-py", "greedy.py", data("greedy_pahtum.py"), Language::Python, true),
        ("first-cpp", "first.cc", data("first_empty.cpp"), Language::Cpp, false),
        ("sample-c", "random.c", repo_file("bots/pahtum/c/random.c"), Language::C, false),
    ];
    for (name, filename, code, language, must_pass) in cases {
        let version = accepted(&subs, source(name, filename, code.clone())).await;
        assert_eq!((version.version, version.language, version.protocol), (1, Some(language), Protocol::Pahtum), "{name}");
        assert_eq!(version.sha256.as_ref().map(String::len), Some(64));
        assert!(version.compile_log.starts_with("$ "), "{name}: {}", version.compile_log);
        assert!(version.path.join("bot.toml").is_file() && version.path.join(language.upload_file()).is_file());
        assert_eq!(std::fs::read(version.path.join(language.upload_file())).unwrap(), code);
        let check = version.entry_check.as_ref().expect("the entry check ran");
        assert_played_cleanly(check);
        if must_pass {
            assert!(check.passed, "{name}: {check:?}");
            assert!(check.summary.starts_with("passed: 2 games played to the end without a fault (won 2,"), "{}", check.summary);
        }
        // The listing shows the same as the submission returned.
        assert_eq!(subs.current(GameKind::Pahtum, name).unwrap().as_ref(), Some(&version));
    }
    let names: Vec<String> = subs.list().unwrap().into_iter().map(|v| v.name).collect();
    assert_eq!(names, ["first-cpp", "greedy-c", "greedy-py", "sample-c"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_rust_source_compiles_with_the_toolchain_inside_the_sandbox() {
    let (_dir, subs) = open();
    let version = accepted(&subs, source("first-rs", "main.rs", data("first_empty.rs"))).await;
    assert_eq!(version.language, Some(Language::Rust));
    assert!(version.path.join("bot").is_file());
    assert_played_cleanly(version.entry_check.as_ref().unwrap());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_compile_error_returns_the_compilers_message_and_stores_nothing() {
    let (dir, subs) = open();
    accepted(&subs, source("keeper", "k.py", data("greedy_pahtum.py"))).await;
    let before = snapshot(dir.path());
    let outcome = subs.submit(source("broken", "broken.c", data("syntax_error.c")), true).await.unwrap();
    let SubmitOutcome::CompileFailed { log } = outcome else { panic!("a syntax error compiles: {outcome:?}") };
    assert!(log.contains("error") && log.contains("main.c:2"), "{log}");
    assert!(log.len() <= submissions::MAX_LOG_BYTES + 16);
    assert_eq!(snapshot(dir.path()), before);
    assert!(subs.current(GameKind::Pahtum, "broken").unwrap().is_none());
    // A Python syntax error too.
    let outcome = subs.submit(source("broken", "broken.py", b"def f(:\n".to_vec()), true).await.unwrap();
    assert!(matches!(&outcome, SubmitOutcome::CompileFailed { log } if log.contains("SyntaxError")), "{outcome:?}");
    assert_eq!(snapshot(dir.path()), before);
}

#[tokio::test(flavor = "multi_thread")]
async fn each_upload_is_a_new_version_and_the_last_one_counts() {
    let (_dir, subs) = open();
    let first = accepted(&subs, source("twice", "a.py", data("greedy_pahtum.py"))).await;
    let second = accepted(&subs, source("twice", "b.c", data("greedy_pahtum.c"))).await;
    assert_eq!((first.version, second.version), (1, 2));
    assert!(first.uploaded_ms <= second.uploaded_ms && first.uploaded <= second.uploaded);
    assert_ne!(first.path, second.path);
    let current = subs.current(GameKind::Pahtum, "twice").unwrap().unwrap();
    assert_eq!((current.version, current.language), (2, Some(Language::C)));
    let versions = subs.versions(GameKind::Pahtum, "twice").unwrap();
    assert_eq!(versions, vec![first.clone(), second.clone()]);
    assert_eq!(subs.list().unwrap(), vec![second.clone()]);
    // The tournament entrant points at the current version, submitted at its upload.
    let entrant = current.entrant_config();
    assert_eq!(entrant.name.as_deref(), Some("twice"));
    assert_eq!(Path::new(&entrant.bot), second.path);
    assert_eq!(entrant.submitted.as_deref(), Some(second.uploaded.as_str()));
    assert!(matches!(referee::BotSpec::from_arg(&entrant.bot), Ok(referee::BotSpec::Program(_))));
    // The same name in another game is another bot.
    assert!(subs.versions(GameKind::Gomoku, "twice").unwrap().is_empty());
    // A check run again is stored with its version.
    let again = subs.entry_check(GameKind::Pahtum, "twice", 1, true).await.unwrap();
    assert_eq!(subs.versions(GameKind::Pahtum, "twice").unwrap()[0].entry_check.as_ref(), Some(&again));
    assert_eq!(subs.entry_check(GameKind::Pahtum, "twice", 3, true).await.unwrap_err().status(), 404);
}

#[tokio::test(flavor = "multi_thread")]
async fn manifest_uploads_build_in_the_sandbox_and_store_no_build_step() {
    let (_dir, subs) = open();
    let text = "name = \"built\"\ngame = \"pahtum\"\nprotocol = \"pahtum\"\ncommand = [\"./greedy\"]\n\
                build = [\"cc\", \"-O2\", \"-o\", \"greedy\", \"greedy.c\"]\n[limits]\nmove-ms = 99999\n";
    let version = accepted(&subs, manifest(text, &[("greedy.c", data("greedy_pahtum.c"))])).await;
    assert_eq!((version.name.as_str(), version.language), ("built", None));
    assert!(version.compile_log.starts_with("$ cc -O2 -o greedy greedy.c"));
    let stored = std::fs::read_to_string(version.path.join("bot.toml")).unwrap();
    assert!(!stored.contains("build") && !stored.contains("limits"), "{stored}");
    assert!(version.entry_check.as_ref().unwrap().passed);
    // A script with its interpreter, renamed by the request.
    let mut upload = manifest(
        "name = \"x\"\ngame = \"pah-tum\"\nprotocol = \"pahtum\"\ncommand = [\"python3\", \"./bot.py\"]\nauthor = \"Ada\"\n",
        &[("bot.py", data("greedy_pahtum.py"))],
    );
    if let Upload::Manifest(m) = &mut upload {
        m.name = Some("renamed".to_string());
    }
    let version = accepted(&subs, upload).await;
    assert_eq!(version.name, "renamed");
    assert!(std::fs::read_to_string(version.path.join("bot.toml")).unwrap().contains("author = \"Ada\""));
    assert!(version.entry_check.as_ref().unwrap().passed);
    // The build runs in the sandbox: it cannot write outside its own folder.
    let outside = tempfile::tempdir().unwrap();
    let escape = outside.path().join("escaped");
    let text = format!(
        "name = \"escape\"\ngame = \"pahtum\"\nprotocol = \"pahtum\"\ncommand = [\"python3\", \"./bot.py\"]\n\
         build = [\"sh\", \"-c\", \"echo pwned > {}\"]\n",
        escape.display()
    );
    let outcome = subs.submit(manifest(&text, &[("bot.py", data("greedy_pahtum.py"))]), true).await.unwrap();
    assert!(matches!(&outcome, SubmitOutcome::CompileFailed { log } if log.contains("sh failed")), "{outcome:?}");
    assert!(!escape.exists(), "the build wrote outside its folder");
    assert!(subs.current(GameKind::Pahtum, "escape").unwrap().is_none());
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_requests_are_refused_with_their_status_and_change_nothing() {
    let (dir, subs) = open();
    accepted(&subs, source("keeper", "k.py", data("greedy_pahtum.py"))).await;
    let before = snapshot(dir.path());
    let big = vec![b'/'; submissions::MAX_FILE_BYTES + 1];
    let quarter = vec![b'#'; submissions::MAX_FILE_BYTES];
    let good = "name = \"m\"\ngame = \"pahtum\"\nprotocol = \"pahtum\"\ncommand = [\"python3\", \"./bot.py\"]\n";
    let mut wrong_protocol = source("p", "p.c", data("greedy_pahtum.c"));
    if let Upload::Source(s) = &mut wrong_protocol {
        s.protocol = Some(Protocol::Connect4Tcp);
    }
    let mut bad_options = source("o", "o.c", data("greedy_pahtum.c"));
    if let Upload::Source(s) = &mut bad_options {
        s.options.insert("blocked".to_string(), "4".to_string());
    }
    // (what, upload, status, a word of the message)
    let cases: Vec<(&str, Upload, u16, &str)> = vec![
        ("bad name", source("no spaces", "a.c", data("greedy_pahtum.c")), 400, "bot name \""),
        ("name with a path", source("../up", "a.c", data("greedy_pahtum.c")), 400, "bot name \""),
        ("unknown language", source("cobol", "main.cob", b"IDENTIFICATION DIVISION.".to_vec()), 400, "unknown language"),
        ("no file name", source("nofile", "", b"int main;".to_vec()), 400, "missing"),
        ("empty file", source("empty", "e.c", Vec::new()), 400, "empty"),
        ("oversize file", source("huge", "h.c", big.clone()), 413, "too large"),
        ("wrong protocol", wrong_protocol, 422, "connect4-tcp is for connect4"),
        ("bad options", bad_options, 422, "bad game options"),
        (
            "unknown game",
            manifest("name = \"m\"\ngame = \"checkers\"\nprotocol = \"arbiter\"\ncommand = [\"./x\"]\n", &[("x", b"#!/bin/sh\n".to_vec())]),
            422,
            "unknown game",
        ),
        ("command missing", manifest(good, &[("other.py", b"print()\n".to_vec())]), 422, "not among the uploaded files"),
        ("malformed manifest", manifest("name = \n", &[]), 422, "bot.toml"),
        ("unknown manifest key", manifest(&format!("{good}colour = 1\n"), &[("bot.py", b"x".to_vec())]), 422, "colour"),
        ("empty manifest", manifest("", &[]), 400, "missing"),
        ("nested file name", manifest(good, &[("bot.py", b"x".to_vec()), ("a/b.py", b"x".to_vec())]), 400, "bad file name"),
        ("hidden file", manifest(good, &[("bot.py", b"x".to_vec()), (".env", b"x".to_vec())]), 400, "bad file name"),
        ("oversize program file", manifest(good, &[("bot.py", big)]), 413, "too large"),
        (
            "oversize upload",
            manifest(
                good,
                &[("bot.py", b"x".to_vec()), ("a", quarter.clone()), ("b", quarter.clone()), ("c", quarter.clone()), ("d", quarter)],
            ),
            413,
            "the upload is too large",
        ),
    ];
    for (what, upload, status, word) in cases {
        let err: SubmitError = match subs.submit(upload, true).await {
            Err(err) => err,
            Ok(outcome) => panic!("{what}: accepted: {outcome:?}"),
        };
        let message = err.to_string();
        assert_eq!(err.status(), status, "{what}: {message}");
        assert!(message.to_lowercase().contains(word), "{what}: {message}");
        assert!(!message.contains('\n'), "{what}: one line: {message}");
        assert_eq!(snapshot(dir.path()), before, "{what} changed the folder");
    }
    assert_eq!(submissions::parse_game("go").unwrap_err().status(), 400);
    assert_eq!(submissions::parse_game("Pah-tum").unwrap(), GameKind::Pahtum);
    assert_eq!(subs.list().unwrap().len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_crashing_bot_fails_the_entry_check_with_a_reason() {
    let (_dir, subs) = open();
    let version = accepted(&subs, source("crasher", "crash.c", data("crash.c"))).await;
    let check = version.entry_check.unwrap();
    assert!(!check.passed);
    assert!(check.summary.starts_with("failed: crash in 2 of 2 games against random (exited with status 3"), "{}", check.summary);
    assert_eq!(check.games.len(), 2);
    for game in &check.games {
        assert_eq!((game.result.as_str(), game.fault.as_deref()), ("loss", Some("crash")));
        assert!(game.termination.starts_with("crash by crasher"), "{}", game.termination);
    }
    // The doctor's report of a native interface comes from those games.
    let doctor = version.doctor.as_ref().expect("the doctor's report");
    assert_eq!(doctor.problems.len(), 2, "{doctor:?}");
    assert_eq!(doctor.problems[0].title, "crash");
    assert!(doctor.problems[0].explanation.starts_with("the referee ended the game as side "), "{doctor:?}");
    // Failing the check still stores the version (the entrant sees why).
    let listed: Vec<PathBuf> = subs.list().unwrap().into_iter().map(|v| v.path).collect();
    assert_eq!(listed, vec![version.path]);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_entry_checks_self_description_runs_in_the_sandbox_too() {
    let (_dir, subs) = open();
    let outside = tempfile::tempdir().unwrap();
    let escape = outside.path().join("escaped");
    // A Legions bot that, asked for its name (empty input), first tries to write outside
    // its folder; its turns are empty (no orders).
    let code = format!(
        "import sys\nif not sys.stdin.read().strip():\n    try:\n        open({:?}, 'w').write('x')\n    except OSError:\n        pass\n    print('escaper')\n",
        escape.display().to_string()
    );
    let mut upload = source("escaper", "escaper.py", code.into_bytes());
    if let Upload::Source(s) = &mut upload {
        s.game = GameKind::Legions;
        s.protocol = Some(Protocol::Legions);
        s.options.insert("size".to_string(), "3".to_string());
    }
    let version = accepted(&subs, upload).await;
    assert_eq!(version.protocol, Protocol::Legions);
    let check = version.entry_check.unwrap();
    assert_eq!(check.games.len(), 2, "it described itself and played: {check:?}");
    assert!(!escape.exists(), "the self-description ran outside the sandbox");
}
