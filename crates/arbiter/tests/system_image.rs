//! `arbiter system build` and a bot in the image it builds: a small image (Python with
//! numpy, from Debian with mmdebstrap; built once and kept under the tests' stable
//! temporary folder, so reruns are quick), named by `arbiter sandbox-check`, listed by
//! `arbiter languages` (Python there, C missing), and a Python kit that passes the doctor
//! and plays the same games twice from one seed with it as the bots' root.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

const ARBITER: &str = env!("CARGO_BIN_EXE_arbiter");

fn arbiter(image: &Path, args: &[&str]) -> Output {
    Command::new(ARBITER).args(args).env_remove("ARBITER_SYSTEM_PATHS").env("ARBITER_SYSTEM_IMAGE", image).output().expect("arbiter runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The small image, built by `arbiter system build` unless an earlier run built it.
fn small_image() -> PathBuf {
    let image = Path::new(env!("CARGO_TARGET_TMPDIR")).join("system-image-python");
    if !image.join("usr/bin/python3").is_file() {
        let out = Command::new(ARBITER).args(["system", "build", image.to_str().unwrap(), "--languages", "python"]).output().unwrap();
        assert!(out.status.success(), "{}{}", text(&out.stdout), text(&out.stderr));
        let said = text(&out.stdout);
        assert!(said.contains(&format!("use it with ARBITER_SYSTEM_IMAGE={}", image.display())), "{said}");
    }
    image
}

#[test]
fn a_python_kit_plays_in_a_built_image() {
    let image = small_image();
    let out = arbiter(&image, &["sandbox-check"]);
    let first = text(&out.stdout).lines().next().unwrap_or_default().to_string();
    assert_eq!(first, format!("system: the system image {} (read-only, /etc whole)", image.display()));
    // The image's own /etc, whole, holds no password hashes for a bot to read.
    assert!(!text(&out.stdout).contains("reads /etc/shadow: ok"), "{}", text(&out.stdout));

    let out = arbiter(&image, &["languages"]);
    let listed = text(&out.stdout);
    assert!(!out.status.success(), "C and the others are missing: {listed}");
    let line = |name: &str| listed.lines().find(|l| l.split_whitespace().next() == Some(name)).unwrap_or_default().to_string();
    assert!(line("python").contains("numpy"), "{listed}");
    assert!(line("c").contains("missing: cc is not in the bots' system: the C toolchain is missing"), "{listed}");

    let dir = tempfile::tempdir().unwrap();
    let kit = dir.path().join("in-image");
    let kit = kit.to_str().unwrap();
    assert!(arbiter(&image, &["new", "connect4", "python", kit]).status.success());
    let out = arbiter(&image, &["doctor", kit]);
    assert!(out.status.success(), "{}{}", text(&out.stdout), text(&out.stderr));
    let mut runs = Vec::new();
    for _ in 0..2 {
        let out = arbiter(&image, &["play", "connect4", kit, "random", "--games", "6", "--seed", "99", "--json"]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
        let games = summary["games"].as_array().unwrap().clone();
        assert_eq!(games.len(), 6);
        for played in &games {
            assert_eq!(played["termination"]["kind"], "rules", "{played}");
        }
        runs.push(games.iter().map(|g| g["moves"].clone()).collect::<Vec<_>>());
    }
    assert_eq!(runs[0], runs[1]);
}
