//! `arbiter new GAME LANG DIR` through the real binary: every language's kit renders
//! whole for every game; the first five (Python, C, C++, Rust, JavaScript) are built by
//! their manifests, pass `doctor` and play whole games of every game without a fault
//! (every language in the sandbox: `tests/languages.rs`); a kit for one game says so in its
//! manifest; the kits of the native interfaces (their samples, in Python and C) pass
//! the doctor; `new` refuses a folder that is not empty and an unknown game in one line.
//! The toolchains used are the machine's: python3, cc, c++, rustc and node.

mod common;

use common::arbiter;
use std::path::Path;

use serde_json::Value;

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Generates the kit of `lang` for every game, checks it with the doctor and plays two
/// games of each game against the random player (the build runs once, at the doctor).
fn kit_plays_every_game(lang: &str) {
    let dir = tempfile::tempdir().unwrap();
    let kit = dir.path().join(format!("starter-{lang}"));
    let kit = kit.to_str().unwrap();
    let out = arbiter(&["new", "any", lang, kit]);
    assert!(out.status.success(), "{lang}: {}", text(&out.stderr));
    for file in ["bot.toml", "README.md"] {
        assert!(Path::new(kit).join(file).is_file(), "{lang}: no {file}");
    }
    let readme = std::fs::read_to_string(Path::new(kit).join("README.md")).unwrap();
    assert!(readme.contains("arbiter doctor . --no-sandbox"), "{readme}");

    let out = arbiter(&["doctor", kit, "--no-sandbox"]);
    let report = text(&out.stdout);
    assert!(out.status.success(), "{lang}: {report}{}", text(&out.stderr));
    assert!(report.contains(&format!("doctor: starter-{lang} (arbiter protocol) in gomoku")), "{report}");
    assert!(report.contains("fit to enter: 6 moves played without a problem"), "{lang}: {report}");

    for game in games() {
        let game = game.as_str();
        let mut args = vec!["play", game, kit, "random", "--games", "2", "--seed", "5", "--json", "--no-sandbox"];
        if game == "legions" {
            args.extend(["-o", "size=7"]);
        }
        let out = arbiter(&args);
        assert!(out.status.success(), "{lang} {game}: {}", text(&out.stderr));
        let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
        let games = summary["games"].as_array().unwrap();
        assert_eq!(games.len(), 2);
        for played in games {
            assert_eq!(played["termination"]["kind"], "rules", "{lang} {game}: {played}");
            assert!(played["moves"].as_array().unwrap().len() > 1, "{lang} {game}: {played}");
        }
    }
}

/// Every game the registry has (`arbiter games --json`).
fn games() -> Vec<String> {
    let listed: Value = serde_json::from_slice(&arbiter(&["games", "--json"]).stdout).unwrap();
    listed.as_array().unwrap().iter().map(|g| g["name"].as_str().unwrap().to_string()).collect()
}

/// What a rendered file must not hold: a sample's own name (a native kit called itself
/// "Sample Brain"); nor a placeholder (`placeholder`).
const LEFT_OVERS: [&str; 2] = ["Sample Brain", "Random Player"];

/// A template's placeholder left in a rendered file: `{{` then capitals or `_`, `}}`.
fn placeholder(body: &str) -> Option<&str> {
    body.match_indices("{{").find_map(|(at, _)| {
        let rest = &body[at + 2..];
        let end = rest.find("}}")?;
        let inside = &rest[..end];
        (!inside.is_empty() && inside.chars().all(|c| c.is_ascii_uppercase() || c == '_')).then(|| &body[at..at + end + 4])
    })
}

#[test]
fn every_kit_template_renders_whole() {
    let dir = tempfile::tempdir().unwrap();
    let mut rendered = 0;
    let mut kits: Vec<(String, &'static str, Option<&str>)> = Vec::new();
    for game in games().into_iter().chain(["any".to_string()]) {
        for lang in languages::Language::ALL.map(languages::Language::name) {
            kits.push((game.clone(), lang, None));
        }
    }
    for (game, protocol) in NATIVE {
        for lang in ["python", "c"] {
            kits.push((game.to_string(), lang, Some(protocol)));
        }
    }
    for lang in ["cpp", "csharp", "java", "php", "pascal"] {
        kits.push(("connect4".to_string(), lang, Some("connect4-tcp")));
    }
    for (game, lang, protocol) in &kits {
        let kit = dir.path().join(format!("kit-{game}-{lang}-{}", protocol.unwrap_or("arbiter")));
        let mut args = vec!["new", game, lang, kit.to_str().unwrap()];
        if let Some(protocol) = protocol {
            args.extend(["--protocol", protocol]);
        }
        let out = arbiter(&args);
        assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
        for entry in std::fs::read_dir(&kit).unwrap() {
            let path = entry.unwrap().path();
            let body = std::fs::read_to_string(&path).unwrap();
            for left in LEFT_OVERS {
                assert!(!body.contains(left), "{} holds {left:?}:\n{body}", path.display());
            }
            assert_eq!(placeholder(&body), None, "{}:\n{body}", path.display());
            rendered += 1;
        }
        // Its program names its interface for the web's upload form.
        let wanted = protocol.unwrap_or("arbiter");
        let marked = std::fs::read_dir(&kit).unwrap().any(|entry| {
            let body = std::fs::read(entry.unwrap().path()).unwrap();
            submissions::kit_interface(&body).map(|p| p.name()) == Some(wanted)
        });
        assert!(marked, "{}: no file names the interface {wanted}", kit.display());
        // The README's commands are those that test this kit.
        let readme = std::fs::read_to_string(kit.join("README.md")).unwrap();
        let doctor = if game == "any" { "arbiter doctor . --no-sandbox --game gomoku" } else { "arbiter doctor . --no-sandbox\n" };
        assert!(readme.contains(doctor), "{readme}");
    }
    assert!(rendered > kits.len() * 3, "{rendered} files");
    // A native kit's program names itself by the kit's name (Gomocup's ABOUT).
    let kit = dir.path().join("kit-gomoku-c-gomocup");
    let out = arbiter(&["info", kit.to_str().unwrap(), "--no-sandbox"]);
    let info = text(&out.stdout);
    assert!(out.status.success(), "{info}{}", text(&out.stderr));
    assert!(info.contains("name:     kit-gomoku-c-gomocup"), "{info}");
}

/// The native interfaces and the game each plays.
const NATIVE: [(&str, &str); 7] = [
    ("gomoku", "gomoku-file"),
    ("gomoku", "gomoku-console"),
    ("gomoku", "gomocup"),
    ("legions", "legions"),
    ("pahtum", "pahtum"),
    ("nupud", "nupud"),
    ("connect4", "connect4-tcp"),
];

#[test]
fn python_kit() {
    kit_plays_every_game("python");
}

#[test]
fn c_kit() {
    kit_plays_every_game("c");
}

#[test]
fn cpp_kit() {
    kit_plays_every_game("cpp");
}

#[test]
fn rust_kit() {
    kit_plays_every_game("rust");
}

#[test]
fn javascript_kit() {
    kit_plays_every_game("javascript");
}

#[test]
fn a_kit_for_one_game_built_in_the_sandbox() {
    let dir = tempfile::tempdir().unwrap();
    let kit = dir.path().join("Four In A Row!");
    let out = arbiter(&["new", "connect4", "c", kit.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let manifest = std::fs::read_to_string(kit.join("bot.toml")).unwrap();
    assert!(manifest.contains("name = \"four-in-a-row\"\ngame = \"connect4\"\nprotocol = \"arbiter\"\n"), "{manifest}");
    // As an entrant's: built and played inside the sandbox.
    let out = arbiter(&["play", "connect4", kit.to_str().unwrap(), "random", "--games", "2", "--seed", "3", "--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
    for played in summary["games"].as_array().unwrap() {
        assert_eq!(played["termination"]["kind"], "rules", "{played}");
    }
    let out = arbiter(&["play", "gomoku", kit.to_str().unwrap(), "random"]);
    assert_eq!(text(&out.stderr).trim_end(), format!("arbiter: bot {} plays connect4, not gomoku", kit.display()));
}

/// Generates the kit of every native interface in `lang` and has the doctor play it (a
/// small Legions board keeps the per-move processes few).
fn native_kits_pass_the_doctor(lang: &str) {
    let dir = tempfile::tempdir().unwrap();
    for (game, protocol) in NATIVE {
        let kit = dir.path().join(format!("{protocol}-{lang}"));
        let kit = kit.to_str().unwrap();
        let out = arbiter(&["new", game, lang, kit, "--protocol", protocol]);
        assert!(out.status.success(), "{protocol} {lang}: {}", text(&out.stderr));
        let manifest = std::fs::read_to_string(Path::new(kit).join("bot.toml")).unwrap();
        let head = format!("name = \"{protocol}-{lang}\"\ngame = \"{game}\"\nprotocol = \"{protocol}\"\n");
        assert!(manifest.starts_with(&head), "{manifest}");
        // The doctor checks that a kit works, not how fast this machine starts a Python
        // interpreter per move: under load, Pah-tum's 1 s a move was missed in a full run
        // (the doctor still bounds a move at 5 s).
        let mut args = vec!["doctor", kit, "--no-sandbox", "--limit", "move-ms=10000"];
        if game == "legions" {
            args.extend(["-o", "size=5"]);
        }
        let out = arbiter(&args);
        let report = text(&out.stdout);
        assert!(out.status.success(), "{protocol} {lang}: {report}{}", text(&out.stderr));
        assert!(report.contains("fit to enter: "), "{protocol} {lang}: {report}");
    }
}

#[test]
fn native_python_kits() {
    native_kits_pass_the_doctor("python");
}

#[test]
fn native_c_kits() {
    native_kits_pass_the_doctor("c");
    let dir = tempfile::tempdir().unwrap();
    let out = arbiter(&["new", "gomoku", "rust", dir.path().join("x").to_str().unwrap(), "--protocol", "gomocup"]);
    assert_eq!(text(&out.stderr), "arbiter: the gomocup interface has kits in python, c only\n");
    let out = arbiter(&["new", "connect4", "go", dir.path().join("x").to_str().unwrap(), "--protocol", "connect4-tcp"]);
    assert_eq!(text(&out.stderr), "arbiter: the connect4-tcp interface has kits in python, c, cpp, csharp, java, php, pascal only\n");
    let out = arbiter(&["new", "gomoku", "c", dir.path().join("x").to_str().unwrap(), "--protocol", "pahtum"]);
    assert_eq!(text(&out.stderr), "arbiter: the pahtum interface plays pahtum only: use arbiter new pahtum c DIR --protocol pahtum\n");
}

#[test]
fn bad_input_gets_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let full = dir.path().join("full");
    std::fs::create_dir(&full).unwrap();
    std::fs::write(full.join("mine.py"), "print()").unwrap();
    let cases = [
        (
            vec!["new", "gomoku", "python", full.to_str().unwrap()],
            format!("arbiter: {} is not empty: give a new folder for the bot", full.display()),
        ),
        (vec!["new", "checkers", "python", "x"], "arbiter: unknown game \"checkers\"".to_string()),
    ];
    for (args, expected) in cases {
        let out = arbiter(&args);
        assert_eq!(out.status.code(), Some(1));
        let said = text(&out.stderr);
        assert_eq!(said.lines().count(), 1, "{said}");
        assert!(said.starts_with(&expected), "{said}");
    }
    assert_eq!(std::fs::read_dir(&full).unwrap().count(), 1, "nothing is written into a full folder");
    let help = text(&arbiter(&["new", "--help"]).stdout);
    let every: Vec<&str> = languages::Language::ALL.iter().map(|l| l.name()).collect();
    assert!(help.contains(&format!("[possible values: {}]", every.join(", "))), "{help}");
}
