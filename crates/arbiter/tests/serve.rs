//! `arbiter serve` as an organiser starts it: a corrupt tournament file in the data
//! folder is skipped with a warning on stderr and listed for the organiser, the server
//! starts; `--public-host` adds a name to the Host allow-list and other names are
//! refused; the descriptor limit is raised to the hard limit.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

const SAFETY: Duration = Duration::from_secs(60);

/// The server process, killed when the test ends (also on a panic).
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// One request (`Connection: close`); the status line and the body.
fn get(addr: &str, path: &str, host: &str) -> (String, String) {
    let mut stream = TcpStream::connect(addr).expect("connect to the server");
    stream.set_read_timeout(Some(SAFETY)).expect("a read timeout");
    write!(stream, "GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n").expect("send the request");
    let mut raw = String::new();
    stream.read_to_string(&mut raw).expect("read the answer");
    let (head, body) = raw.split_once("\r\n\r\n").unwrap_or((&raw, ""));
    (head.lines().next().unwrap_or("").to_string(), body.to_string())
}

#[test]
fn serve_skips_a_corrupt_file_with_a_warning_and_checks_the_host() {
    let data = tempfile::tempdir().expect("a temporary folder");
    std::fs::create_dir_all(data.path().join("tournaments")).expect("the tournaments folder");
    std::fs::write(data.path().join("tournaments/corrupt.db"), "not a database at all\n".repeat(100)).expect("a corrupt file");
    // Started with a low soft limit on open files, which the server raises.
    let child = Command::new("sh")
        .args(["-c", "ulimit -Sn 256 && exec \"$0\" \"$@\"", env!("CARGO_BIN_EXE_arbiter")])
        .args(["serve", "--addr", "127.0.0.1:0", "--admin-token", "serve-test-token", "--no-sandbox", "--public-host", "arena.example.org"])
        .arg("--data")
        .arg(data.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("arbiter serve starts");
    let mut server = Server(child);
    let stdout = server.0.stdout.take().expect("stdout");
    let mut stderr = server.0.stderr.take().expect("stderr");
    let (lines, first_lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = lines.send(line);
        }
    });
    let errors = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let line = first_lines.recv_timeout(SAFETY).expect("the server prints its address");
    let addr = line
        .strip_prefix("arbiter serve: http://")
        .and_then(|rest| rest.split('/').next())
        .unwrap_or_else(|| panic!("not the start line: {line}"))
        .to_string();

    let (status, body) = get(&addr, "/api/tournaments", "localhost");
    assert_eq!(status, "HTTP/1.1 200 OK", "{body}");
    let list: serde_json::Value = serde_json::from_str(&body).expect("JSON");
    let entry = list.as_array().and_then(|l| l.iter().find(|t| t["file"] == "corrupt.db")).unwrap_or_else(|| panic!("listed: {list}"));
    assert!(entry["status"].as_str().is_some_and(|s| s.starts_with("unreadable: ")), "{entry}");
    assert!(!body.contains(&data.path().display().to_string()), "no server path: {body}");

    let (status, _) = get(&addr, "/api/rules", "arena.example.org:8080");
    assert_eq!(status, "HTTP/1.1 200 OK", "--public-host is allowed");
    let (status, body) = get(&addr, "/api/rules", "rebound.example");
    assert_eq!(status, "HTTP/1.1 421 Misdirected Request", "{body}");
    assert!(body.contains("--public-host"), "{body}");

    let limits = std::fs::read_to_string(format!("/proc/{}/limits", server.0.id())).expect("the server's limits");
    let open_files = limits.lines().find(|l| l.starts_with("Max open files")).expect("a line for open files");
    let numbers: Vec<&str> = open_files.split_whitespace().skip(3).take(2).collect();
    assert_eq!(numbers.first(), numbers.get(1), "the soft limit is raised to the hard one: {open_files}");
    assert_ne!(numbers.first(), Some(&"256"), "raised from 256: {open_files}");

    drop(server);
    let stderr = errors.join().expect("the stderr reader");
    let warning = stderr.lines().find(|l| l.contains("corrupt.db")).unwrap_or_else(|| panic!("a warning names the file: {stderr}"));
    assert!(warning.starts_with("warning: skipped ") && warning.contains(&data.path().display().to_string()), "{warning}");
}
