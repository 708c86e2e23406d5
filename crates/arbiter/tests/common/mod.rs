//! What the integration tests of `arbiter` share: the binary run with arguments, and
//! `arbiter verify` run on records. Each test program uses part of it.
#![allow(dead_code)]

use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::Value;

/// Runs `arbiter verify GAME ARGS...` on `lines` (one record each, written from a thread
/// while the output is read); its output lines as JSON, one per input line.
pub fn verify(game: &str, args: &[String], lines: &[String]) -> Vec<Value> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(["verify", game])
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start arbiter");
    let input = lines.join("\n") + "\n";
    let mut stdin = child.stdin.take().expect("piped stdin");
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()).expect("write stdin"));
    let output = child.wait_with_output().expect("arbiter runs");
    writer.join().expect("writer thread");
    assert!(output.status.success(), "verify failed: {}", String::from_utf8_lossy(&output.stderr));
    let out: Vec<Value> = String::from_utf8(output.stdout)
        .expect("utf-8")
        .lines()
        .map(|line| serde_json::from_str(line).expect("each output line is JSON"))
        .collect();
    assert_eq!(out.len(), lines.len(), "one output line per input line");
    out
}

/// Runs the `arbiter` binary with `args`; its output.
pub fn arbiter(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_arbiter")).args(args).output().expect("arbiter runs")
}

/// The standard output of a run that must succeed (else the test fails with its stderr).
pub fn ok(output: &std::process::Output) -> String {
    assert!(output.status.success(), "arbiter failed: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8_lossy(&output.stdout).into_owned()
}
