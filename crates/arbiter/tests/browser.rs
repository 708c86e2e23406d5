//! The web arena in a real browser: runs tests/browser/run.mjs (Playwright driving
//! Debian's headless Chromium against `arbiter serve`), which also refreshes the
//! screenshots in docs/screenshots/. `scripts/test` installs Chromium and Playwright;
//! without them the test is skipped with a message, except under CI, where it fails.

use std::path::PathBuf;
use std::process::Command;

#[test]
fn the_web_arena_works_in_headless_chromium() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let browser_dir = root.join("tests/browser");
    let missing: Vec<&str> = [
        (!browser_dir.join("node_modules/playwright-core/package.json").is_file()).then_some("playwright-core (npm ci in tests/browser)"),
        (!PathBuf::from("/usr/bin/chromium").exists()).then_some("Debian's chromium"),
        Command::new("node").arg("--version").output().is_err().then_some("node"),
    ]
    .into_iter()
    .flatten()
    .collect();
    if !missing.is_empty() {
        let message = format!("browser tests need {}; run scripts/setup-browser-tests (scripts/test does)", missing.join(", "));
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("{message}");
        }
        eprintln!("skipped: {message}");
        return;
    }
    let output = Command::new("node")
        .arg("run.mjs")
        .current_dir(&browser_dir)
        .env("ARBITER_BIN", env!("CARGO_BIN_EXE_arbiter"))
        .output()
        .expect("node starts");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    println!("{stdout}");
    eprintln!("{stderr}");
    assert!(output.status.success(), "browser tests failed:\n{stdout}\n{stderr}");
    assert!(stdout.contains("all browser tests passed"));
}
