//! Every language of the published set (`crates/languages`), through the real binary
//! and in the sandbox, as a student would try it: `arbiter new connect4 LANG DIR` (and
//! the connect4-tcp kits, the seed's client library in C++, C#, PHP, Java, Python,
//! Pascal and C),
//! `arbiter doctor DIR`, then 20 games against `random` without a fault, twice with the
//! same `--seed`, which must give the same games move for move (each kit seeds its
//! random numbers from the seed its side is given). A Python bot that imports numpy does
//! the same. A toolchain that is missing fails the test (scripts/setup-languages
//! installs them all); a toolchain installed with rustup is listed for the bots in
//! `ARBITER_SYSTEM_PATHS`, as an organiser would. A compiler missing from the bots'
//! root is one line that names the language.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use languages::Language;
use serde_json::Value;

const ARBITER: &str = env!("CARGO_BIN_EXE_arbiter");

/// Games per run, and the seed of both runs.
const GAMES: &str = "20";
const SEED: &str = "4343";

/// rustup's folders when its `rustc` is there: what the organiser lists for the bots.
fn rustup_paths() -> Option<String> {
    let home = PathBuf::from(std::env::var_os("HOME")?);
    let cargo = std::env::var_os("CARGO_HOME").map_or_else(|| home.join(".cargo"), PathBuf::from);
    let rustup = std::env::var_os("RUSTUP_HOME").map_or_else(|| home.join(".rustup"), PathBuf::from);
    (cargo.join("bin/rustc").is_file() && rustup.is_dir()).then(|| format!("{}:{}", cargo.display(), rustup.display()))
}

fn arbiter(args: &[&str]) -> Output {
    let mut command = Command::new(ARBITER);
    command.args(args).env_remove("ARBITER_SYSTEM_IMAGE").env_remove("ARBITER_SYSTEM_PATHS");
    if let Some(paths) = rustup_paths() {
        command.env("ARBITER_SYSTEM_PATHS", paths);
    }
    command.output().expect("arbiter runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Passes the doctor in the sandbox, then plays the games twice: the moves of each
/// game, with every game ended by the rules. `what` names the bot in messages.
fn doctor_and_play(what: &str, bot: &Path) -> Vec<Vec<String>> {
    let bot = bot.to_str().unwrap();
    let out = arbiter(&["doctor", bot]);
    let report = text(&out.stdout);
    assert!(out.status.success(), "{what}: the doctor says\n{report}{}", text(&out.stderr));
    let verdict = report.lines().find(|l| l.starts_with("fit to enter: ")).unwrap_or_default();
    assert!(verdict.ends_with("moves played without a problem"), "{what}: {report}");
    let mut runs = Vec::new();
    for _ in 0..2 {
        let out = arbiter(&["play", "connect4", bot, "random", "--games", GAMES, "--seed", SEED, "--json"]);
        assert!(out.status.success(), "{what}: {}", text(&out.stderr));
        let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
        let games = summary["games"].as_array().unwrap();
        assert_eq!(games.len().to_string(), GAMES, "{what}");
        let mut moves = Vec::new();
        for played in games {
            assert_eq!(played["termination"]["kind"], "rules", "{what}: {played}");
            let list: Vec<String> = played["moves"].as_array().unwrap().iter().map(|m| m.as_str().unwrap().to_string()).collect();
            assert!(list.len() >= 7, "{what}: {played}");
            moves.push(list);
        }
        runs.push(moves);
    }
    assert_eq!(runs[0], runs[1], "{what}: the same --seed gave different games");
    runs.remove(0)
}

/// The languages of the connect4-tcp interface's kits (the seed's client library).
const TCP_KITS: [Language; 7] =
    [Language::Cpp, Language::CSharp, Language::Php, Language::Java, Language::Python, Language::Pascal, Language::C];

/// One kit (a language, through an interface): made, examined and played.
fn kit_of(language: Language, protocol: &str, dir: &Path) -> Vec<Vec<String>> {
    let what = format!("{} {protocol}", language.name());
    let kit = dir.join(format!("kit-{}-{protocol}", language.name()));
    let out = arbiter(&["new", "connect4", language.name(), kit.to_str().unwrap(), "--protocol", protocol]);
    assert!(out.status.success(), "{what}: {}", text(&out.stderr));
    let readme = std::fs::read_to_string(kit.join("README.md")).unwrap();
    assert!(readme.contains(language.spec().title), "{readme}");
    doctor_and_play(&what, &kit)
}

/// A Python bot that plays numpy's seeded choice.
const NUMPY_BOT: &str = r#"import os, sys
import numpy as np

rng = np.random.default_rng(int(os.environ.get("ARBITER_SEED", "0")))
legal = []
for line in sys.stdin:
    word, _, rest = line.strip().partition(" ")
    if word == "arbiter":
        print("name numpy-bot\nready", flush=True)
    elif word == "seed":
        rng = np.random.default_rng(int(rest))
    elif word == "legal":
        legal = np.array(rest.split(" "))
    elif word == "go":
        print("move " + str(rng.choice(legal)), flush=True)
    elif word == "quit":
        break
"#;

#[test]
fn every_language_builds_and_plays_in_the_sandbox_the_same_from_a_seed() {
    let dir = tempfile::tempdir().unwrap();
    // Four at a time (a kit mostly waits on its opponent and the sandbox's start: the
    // two cores of CI stay far from full); every kit is checked whatever another's
    // result, and all failures are reported together.
    let mut kits: Vec<(Language, &str)> = Language::ALL.iter().map(|l| (*l, "arbiter")).collect();
    kits.extend(TCP_KITS.iter().map(|l| (*l, "connect4-tcp")));
    let queue = std::sync::Mutex::new(kits.clone());
    let results = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..4 {
            scope.spawn(|| {
                while let Some((language, protocol)) = queue.lock().unwrap().pop() {
                    let played = std::panic::catch_unwind(|| kit_of(language, protocol, dir.path()));
                    results.lock().unwrap().push((language, protocol, played));
                }
            });
        }
    });
    let results = results.into_inner().unwrap();
    let failed: Vec<String> =
        results.iter().filter(|(_, _, played)| played.is_err()).map(|(l, p, _)| format!("{} {p}", l.name())).collect();
    assert!(failed.is_empty(), "failed: {} (their messages are above)", failed.join(", "));
    assert_eq!(results.len(), kits.len());

    let numpy = dir.path().join("numpy-bot");
    std::fs::create_dir(&numpy).unwrap();
    std::fs::write(numpy.join("bot.py"), NUMPY_BOT).unwrap();
    std::fs::write(
        numpy.join("bot.toml"),
        "name = \"numpy-bot\"\ngame = \"connect4\"\nprotocol = \"arbiter\"\ncommand = [\"python3\", \"./bot.py\"]\n",
    )
    .unwrap();
    doctor_and_play("numpy", &numpy);
}

#[test]
fn a_compiler_missing_from_the_bots_root_is_one_line_naming_its_language() {
    let dir = tempfile::tempdir().unwrap();
    // A system with nothing in it: no compiler (nor anything else) for the bots.
    let empty = dir.path().join("empty-system");
    std::fs::create_dir_all(empty.join("usr/bin")).unwrap();
    for language in [Language::C, Language::Go] {
        let kit = dir.path().join(format!("kit-{}", language.name()));
        assert!(arbiter(&["new", "connect4", language.name(), kit.to_str().unwrap()]).status.success());
        let out = Command::new(ARBITER)
            .args(["play", "connect4", kit.to_str().unwrap(), "random"])
            .env_remove("ARBITER_SYSTEM_PATHS")
            .env("ARBITER_SYSTEM_IMAGE", &empty)
            .output()
            .unwrap();
        let said = format!("{}{}", text(&out.stdout), text(&out.stderr));
        let wanted = format!("the {} toolchain is missing; install Debian's {}", language.spec().title, language.spec().packages.join(" "));
        // The game's line: lost before its first move, for that one reason.
        let line = said.lines().find(|l| l.starts_with("game 1:")).unwrap_or_default();
        assert!(line.contains("after 0 moves (crash by blue"), "{said}");
        assert!(line.contains(&wanted), "{}: {said}", language.name());
    }
}
