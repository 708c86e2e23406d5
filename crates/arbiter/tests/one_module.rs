//! The one-module promise, checked on the source: a game is named only by its rules
//! module, the registry and the modules made for that game. No code outside
//! `crates/rules/src/{lib,any}.rs` names a variant of `GameKind`, `AnyPosition` or `AnyMove` (so no
//! per-game `match`, and no `let AnyPosition::X(..) = .. else { unreachable!() }`); no
//! code downcasts (`dyn Any`, `downcast`, `is::<..>`, `TypeId`: a game's knowledge is
//! reached through a trait the game implements, not by testing for its type); a game's
//! types (`rules::GAME::..`) are named only in that game's own modules (a file or folder
//! named after it, `players/src/connect4.rs`, `bots/src/drivers/connect4_tcp.rs`, or a
//! module made for one game, [`OWN_MODULES`]); and the web's pages and scripts know no
//! game by name (they draw from the board view's style). Test code (after
//! `#[cfg(test)]`, and `tests/` and `examples/` folders) may name games as data.

use std::path::{Path, PathBuf};

use rules::GameKind;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            if path.file_name().is_some_and(|name| name == "tests" || name == "examples") {
                continue;
            }
            rust_files(&path, out);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            out.push(path);
        }
    }
}

/// The variants' names, as the registry spells them (`Gomoku`, `Connect4`, ...).
fn variants() -> Vec<String> {
    GameKind::ALL.iter().map(|kind| format!("{kind:?}")).collect()
}

#[test]
fn no_code_outside_the_registry_names_a_game_variant() {
    let mut files = Vec::new();
    rust_files(&repo().join("crates"), &mut files);
    assert!(files.len() > 50, "the sources are found ({} files)", files.len());
    let registry = [repo().join("crates/rules/src/lib.rs"), repo().join("crates/rules/src/any.rs")];
    let mut found = Vec::new();
    for file in files {
        if registry.iter().any(|r| r.canonicalize().ok() == file.canonicalize().ok()) {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        for (number, line) in code.lines().enumerate() {
            for variant in variants() {
                for prefix in ["GameKind::", "AnyPosition::", "AnyMove::"] {
                    let name = format!("{prefix}{variant}");
                    let at = line.find(&name);
                    let whole = at.is_some_and(|at| !line[at + name.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_'));
                    if whole {
                        found.push(format!("{}:{}: {}", file.display(), number + 1, line.trim()));
                    }
                }
            }
        }
    }
    assert!(found.is_empty(), "game variants named outside the registry:\n{}", found.join("\n"));
}

/// Modules made for one game whose names do not say which: each is that game's own.
const OWN_MODULES: &[(&str, &str)] = &[
    ("crates/arena/src/pgn.rs", "chess"),
    ("crates/arbiter/src/host.rs", "connect4"),
    ("crates/protocols/src/gomocup.rs", "gomoku"),
    ("crates/protocols/src/uci.rs", "chess"),
    ("crates/bots/src/drivers/gomocup.rs", "gomoku"),
    ("crates/bots/src/drivers/uci.rs", "chess"),
];

/// The code of the sources outside `tests/` and `examples/` folders, before any
/// `#[cfg(test)]`, by file, with the path from the repository's root; comments dropped.
fn code_files() -> Vec<(String, Vec<String>)> {
    let mut files = Vec::new();
    rust_files(&repo().join("crates"), &mut files);
    assert!(files.len() > 50, "the sources are found ({} files)", files.len());
    let root = repo().canonicalize().unwrap();
    files.sort();
    files
        .into_iter()
        .map(|file| {
            let relative = file.canonicalize().unwrap().strip_prefix(&root).unwrap().to_string_lossy().into_owned();
            let text = std::fs::read_to_string(&file).unwrap();
            let code = text.split("#[cfg(test)]").next().unwrap_or("");
            let lines = code.lines().map(|line| line.split("//").next().unwrap_or("").to_string()).collect();
            (relative, lines)
        })
        .collect()
}

/// Whether `file` is one of `game`'s own modules: a file or folder under the crate's
/// root named after the game (`connect4.rs`, `connect4/`, `connect4_tcp.rs`), or one of
/// [`OWN_MODULES`].
fn owned_by(file: &str, game: &str) -> bool {
    let named = file.split('/').skip(2).any(|part| {
        let stem = part.strip_suffix(".rs").unwrap_or(part);
        stem == game || stem.starts_with(&format!("{game}_"))
    });
    named || OWN_MODULES.contains(&(file, game))
}

#[test]
fn no_code_downcasts() {
    let mut found = Vec::new();
    for (file, lines) in code_files() {
        for (number, line) in lines.iter().enumerate() {
            // A panic's payload is read as the text it holds: no game's type.
            let line = line.replace("downcast_ref::<String>", "").replace("downcast_ref::<&str>", "");
            if ["dyn Any", "dyn std::any::Any", "downcast", ".is::<", "TypeId"].iter().any(|word| line.contains(word)) {
                found.push(format!("{file}:{}: {}", number + 1, line.trim()));
            }
        }
    }
    assert!(found.is_empty(), "downcasts (reach a game's knowledge through a trait it implements):\n{}", found.join("\n"));
}

#[test]
fn a_games_types_are_named_only_in_its_own_modules() {
    let mut found = Vec::new();
    for (file, lines) in code_files() {
        if file.starts_with("crates/rules/src/") {
            continue;
        }
        for (number, line) in lines.iter().enumerate() {
            for kind in GameKind::ALL {
                let game = kind.name();
                let path = format!("rules::{game}");
                let named = line
                    .match_indices(&path)
                    .any(|(at, _)| !line[at + path.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_'));
                if named && !owned_by(&file, game) {
                    found.push(format!("{file}:{}: {}", number + 1, line.trim()));
                }
            }
        }
    }
    assert!(found.is_empty(), "a game's types named outside its own modules:\n{}", found.join("\n"));
}

#[test]
fn the_web_pages_know_no_game_by_name() {
    let assets = repo().join("crates/web/assets");
    let mut found = Vec::new();
    for entry in std::fs::read_dir(&assets).unwrap().flatten() {
        let path = entry.path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !(name.ends_with(".js") || name.ends_with(".html")) {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for kind in GameKind::ALL {
            for quoted in [format!("\"{}\"", kind.name()), format!("'{}'", kind.name()), format!("{}:", kind.name())] {
                for (number, line) in text.lines().enumerate() {
                    // The tournament form's placeholder shows an example config.
                    if line.contains("placeholder=") {
                        continue;
                    }
                    if line.contains(&quoted) {
                        found.push(format!("{name}:{}: {}", number + 1, line.trim()));
                    }
                }
            }
        }
    }
    assert!(found.is_empty(), "game names in the web's pages and scripts:\n{}", found.join("\n"));
}
