//! The one-module promise, checked on the source: a game is named only by its rules
//! module and the registry. No code outside `crates/rules/src/{lib,any}.rs` names a
//! variant of `GameKind`, `AnyPosition` or `AnyMove` (so no per-game `match`, and no
//! `let AnyPosition::X(..) = .. else { unreachable!() }`), and the web's pages and
//! scripts know no game by name (they draw from the board view's style). Test code
//! (after `#[cfg(test)]`, and `tests/` folders) may name games as data.

use std::path::{Path, PathBuf};

use rules::GameKind;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            if path.file_name().is_some_and(|name| name == "tests") {
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
