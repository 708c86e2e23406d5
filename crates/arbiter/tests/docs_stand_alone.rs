//! The repository's docs stand on their own: no file of the repository points at the
//! project's working notes outside it (`shared/`, `spec/*.md`, `seeds/`), and every
//! Markdown file a file names is one the repository has. A finding names the file and
//! the line.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Folders of the working notes and contest texts that live beside the repository, not
/// in it.
const OUTSIDE: [&str; 3] = ["shared/", "seeds/", "spec/"];

/// This file: it spells out the patterns it looks for.
const THIS_FILE: &str = "crates/arbiter/tests/docs_stand_alone.rs";

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("the repository root exists")
}

/// The repository's files, relative to its root with `/` between folders: what git
/// tracks plus new files it does not ignore; without git, every file but build output
/// and version-control data.
fn repo_files(root: &Path) -> Vec<String> {
    let git = Command::new("git").arg("-C").arg(root).args(["ls-files", "-z", "--cached", "--others", "--exclude-standard"]).output();
    if let Ok(out) = git
        && out.status.success()
    {
        let list = String::from_utf8(out.stdout).expect("file names are UTF-8");
        let files: BTreeSet<String> = list.split('\0').filter(|f| !f.is_empty()).map(str::to_string).collect();
        return files.into_iter().collect();
    }
    let mut files = Vec::new();
    walk(root, root, &mut files);
    files.sort();
    files
}

fn walk(root: &Path, dir: &Path, files: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).expect("a readable folder") {
        let path = entry.expect("a folder entry").path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        if path.is_dir() {
            if !matches!(name, "target" | ".git" | "node_modules") {
                walk(root, &path, files);
            }
        } else {
            let rel = path.strip_prefix(root).expect("under the root");
            files.push(rel.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/"));
        }
    }
}

fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '-'
}

/// What is wrong in `text` (the file `path`): one line per finding, `path:line: why`.
/// `known` holds the repository's files.
fn findings(path: &str, text: &str, known: &BTreeSet<String>) -> Vec<String> {
    let mut out = Vec::new();
    for (idx, line) in text.lines().enumerate() {
        let at = format!("{path}:{}", idx + 1);
        for needle in OUTSIDE {
            let outside = line.match_indices(needle).any(|(pos, _)| !line[..pos].chars().next_back().is_some_and(is_name_char));
            if outside {
                out.push(format!("{at}: points to `{needle}`, outside the repository; write what the reader needs in docs/ instead"));
            }
        }
        for name in markdown_names(line) {
            if !resolves(name, known) {
                out.push(format!("{at}: names `{name}`, which the repository does not have"));
            }
        }
    }
    out
}

/// The Markdown file names on a line (`docs/games.md`, `../README.md`), leaving out
/// those inside web addresses.
fn markdown_names(line: &str) -> Vec<&str> {
    let mut names = Vec::new();
    for (end, _) in line.match_indices(".md") {
        let after = line[end + 3..].chars().next();
        if after.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue; // `.mdx`, `.md_`: not a Markdown name
        }
        let start = line[..end].rfind(|c: char| !(is_name_char(c) || c == '.' || c == '/')).map_or(0, |i| i + 1);
        let name = &line[start..end + 3];
        if !name[..name.len() - 3].chars().any(is_name_char) {
            continue; // `<game>.md` and the like: a pattern, not a name
        }
        let word_start = line[..start].rfind(char::is_whitespace).map_or(0, |i| i + 1);
        if line[word_start..end].contains("://") {
            continue;
        }
        names.push(name);
    }
    names
}

/// Whether a named Markdown file is one of `known`: the name, without leading `./` and
/// `../`, is a file's path or the end of one.
fn resolves(name: &str, known: &BTreeSet<String>) -> bool {
    let mut name = name;
    while let Some(rest) = name.strip_prefix("./").or_else(|| name.strip_prefix("../")) {
        name = rest;
    }
    known.iter().any(|file| file == name || file.ends_with(&format!("/{name}")))
}

#[test]
fn no_file_points_outside_the_repository() {
    let root = repo_root();
    let files = repo_files(&root);
    assert!(files.len() > 100, "found only {} files under {}", files.len(), root.display());
    assert!(files.iter().any(|f| f == "docs/games.md"), "docs/games.md is not among the files found");
    let known: BTreeSet<String> = files.iter().cloned().collect();
    let mut problems = Vec::new();
    let mut scanned = 0;
    for file in &files {
        if file == THIS_FILE {
            continue;
        }
        let Ok(bytes) = std::fs::read(root.join(file)) else {
            continue; // tracked but deleted in this working tree
        };
        let Ok(text) = String::from_utf8(bytes) else {
            continue; // not text (screenshots)
        };
        scanned += 1;
        problems.extend(findings(file, &text, &known));
    }
    assert!(scanned > 100, "scanned only {scanned} text files");
    assert!(problems.is_empty(), "{} finding(s):\n{}", problems.len(), problems.join("\n"));
}

#[test]
fn the_checker_finds_what_it_should() {
    let known: BTreeSet<String> = ["docs/games.md", "README.md", "docs/protocols/arbiter.md"].into_iter().map(String::from).collect();
    let text = "\
fine: crates/rules/src/legions.rs and BotSpec::from_arg, a myspec/ folder
see `spec/legions.md` for the rules
the seed is ../shared/seeds/000_ad5125c6e96e56e5.txt
fine: docs/games.md, [games](games.md), ../README.md, protocols/arbiter.md
fine: https://example.com/docs/missing.md and the `<game>.md` pattern
gone: docs/verify-old.md
fine: a .mdx file, README.md.";
    let found = findings("x.md", text, &known);
    assert_eq!(found.len(), 5, "{found:#?}");
    assert!(found[0].starts_with("x.md:2: points to `spec/`"), "{}", found[0]);
    assert_eq!(found[1], "x.md:2: names `spec/legions.md`, which the repository does not have");
    assert!(found[2].starts_with("x.md:3: points to `shared/`"), "{}", found[2]);
    assert!(found[3].starts_with("x.md:3: points to `seeds/`"), "{}", found[3]);
    assert_eq!(found[4], "x.md:6: names `docs/verify-old.md`, which the repository does not have");
}
