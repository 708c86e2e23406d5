//! A real `arbiter serve` with the organiser's token on its command line, and bots
//! uploaded over HTTP that look for it in `/proc`: neither an upload's build (whose output
//! comes back to the uploader) nor the bot in a testing-ground game (whose stderr any
//! viewer sees) can read another process's command line.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

const ARBITER: &str = env!("CARGO_BIN_EXE_arbiter");
const BOUNDARY: &str = "----arbiter-serve-secrets";

/// The server, killed on drop.
struct Server {
    child: Child,
    addr: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve(data: &std::path::Path, token: &str) -> Server {
    let mut child = Command::new(ARBITER)
        .args(["serve", "--addr", "127.0.0.1:0", "--data", data.to_str().unwrap(), "--admin-token", token, "-j", "1"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let addr = line.split("http://").nth(1).and_then(|rest| rest.split('/').next()).unwrap_or_else(|| panic!("{line:?}")).to_string();
    Server { child, addr }
}

/// One request on a fresh connection: the status and the body as JSON.
fn request(addr: &str, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> (u16, Value) {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
    let mut head = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n", body.len());
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(body.as_bytes()).unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).unwrap();
    let text = String::from_utf8(raw).unwrap();
    let (head, mut body) = text.split_once("\r\n\r\n").unwrap_or_else(|| panic!("{text:?}"));
    let status = head.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or_else(|| panic!("{head:?}"));
    let decoded;
    if head.to_ascii_lowercase().contains("transfer-encoding: chunked") {
        let mut out = String::new();
        let mut rest = body;
        while let Some((size, after)) = rest.split_once("\r\n") {
            let size = usize::from_str_radix(size.trim(), 16).unwrap();
            if size == 0 {
                break;
            }
            out.push_str(&after[..size]);
            rest = &after[size + 2..];
        }
        decoded = out;
        body = &decoded;
    }
    (status, serde_json::from_str(body).unwrap_or_else(|err| panic!("not JSON ({err}): {body:?}")))
}

/// A manifest upload with one file.
fn upload(addr: &str, token: &str, manifest: &str, file: (&str, &str)) -> (u16, Value) {
    let mut body = String::new();
    for (name, filename, content) in [("manifest", "bot.toml", manifest), ("files", file.0, file.1)] {
        body.push_str(&format!(
            "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"{name}\"; filename=\"{filename}\"\r\nContent-Type: application/octet-stream\r\n\r\n{content}\r\n"
        ));
    }
    body.push_str(&format!("--{BOUNDARY}--\r\n"));
    let content_type = format!("multipart/form-data; boundary={BOUNDARY}");
    let auth = format!("Bearer {token}");
    request(addr, "POST", "/api/submissions", &[("Content-Type", &content_type), ("Authorization", &auth)], &body)
}

/// Shell lines that write every command line they can read in /proc (listing it, and by
/// the server's pid) to stderr, then how many processes they list.
fn scan(server_pid: u32) -> String {
    format!(
        "for f in /proc/[0-9]*/cmdline /proc/{server_pid}/cmdline; do tr '\\0' ' ' < $f 2>/dev/null; echo; done >&2\n\
         echo listed $(ls -d /proc/[0-9]* | wc -l) >&2\n"
    )
}

/// A Pah-tum bot in sh: puts its letter on the first empty square.
const PLAY: &str = r#"board=$(cat; echo .); board=${board%.}
x=$(printf '%s' "$board" | tr -cd X | wc -c); o=$(printf '%s' "$board" | tr -cd O | wc -c)
if [ "$x" -eq "$o" ]; then me=X; else me=O; fi
printf '%s' "$board" | sed "0,/-/s//$me/" | head -c 56
"#;

#[test]
fn no_bot_reads_the_organisers_token() {
    let dir = tempfile::tempdir().unwrap();
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().subsec_nanos();
    let token = format!("SECRET-{}-{nanos}", std::process::id());
    let server = serve(&dir.path().join("data"), &token);
    let pid = server.child.id();
    let scan = scan(pid);

    // A build that scans /proc and fails: its output is the answer's log.
    let manifest = "name = \"builder\"\ngame = \"pahtum\"\nprotocol = \"pahtum\"\ncommand = [\"sh\", \"./scan.sh\"]\n\
                    build = [\"sh\", \"-c\", \"sh scan.sh; exit 1\"]\n";
    let (status, body) = upload(&server.addr, &token, manifest, ("scan.sh", &scan));
    assert_eq!(status, 422, "{body}");
    let log = body["log"].as_str().unwrap();
    assert!(log.contains("listed") && log.contains("sh scan.sh"), "the scan ran: {log}");
    assert!(!log.contains(&token) && !log.contains("--admin-token"), "the build read the server's command line: {log}");

    // A bot that scans /proc on every move, then plays its letter on the first empty square.
    let bot = format!("{scan}{PLAY}");
    let manifest = "name = \"snoop\"\ngame = \"pahtum\"\nprotocol = \"pahtum\"\ncommand = [\"sh\", \"./snoop.sh\"]\n";
    let (status, body) = upload(&server.addr, &token, manifest, ("snoop.sh", &bot));
    assert_eq!(status, 201, "{body}");
    let (status, started) = request(
        &server.addr,
        "POST",
        "/api/test",
        &[("Content-Type", "application/json")],
        r#"{"game": "pahtum", "bots": ["snoop", "random"]}"#,
    );
    assert_eq!(status, 201, "{started}");
    let id = started["games"][0].as_str().unwrap().to_string();
    let until = Instant::now() + Duration::from_secs(120);
    let game = loop {
        let (status, game) = request(&server.addr, "GET", &format!("/api/games/{id}"), &[], "");
        assert_eq!(status, 200, "{game}");
        if game["live"] == false {
            break game;
        }
        assert!(Instant::now() < until, "the game did not end: {game}");
        std::thread::sleep(Duration::from_millis(100));
    };
    let stderr: Vec<&str> =
        game["turns"].as_array().unwrap().iter().filter(|t| t["side"] == 0).filter_map(|t| t["stderr"].as_str()).collect();
    assert!(stderr.iter().any(|s| s.contains("listed") && s.contains("snoop.sh")), "the bot scanned: {game}");
    let text = game.to_string();
    assert!(!text.contains(&token) && !text.contains("--admin-token"), "the bot read the server's command line: {text}");
}
