//! What the web tests (and the `sse_load` example) share: the app started in-process
//! on 127.0.0.1, a minimal HTTP/1.1 client over a raw TCP stream (`Connection: close`,
//! `Content-Length` or chunked bodies), and a reader of server-sent events that decodes
//! the chunked stream as it arrives.

// Each test binary and the example use a different part of this module.
#![allow(dead_code)]

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// The organiser's token of every test server.
pub const TOKEN: &str = "test-token-123";

/// How long anything awaited may take before the test fails: a safety bound, not a
/// synchronisation (every wait is for an event).
pub const SAFETY: Duration = Duration::from_secs(60);

/// The sandbox helper `arbiter-sandbox`, built here when this test binary runs without
/// the workspace's other binaries (`cargo test -p web` on a fresh target folder).
pub fn ensure_helper() {
    static BUILT: std::sync::OnceLock<()> = std::sync::OnceLock::new();
    BUILT.get_or_init(|| {
        if sandbox::helper_path().is_none() {
            let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
            let status = std::process::Command::new(cargo)
                .args(["build", "-p", "sandbox", "--bin", "arbiter-sandbox"])
                .status()
                .expect("run cargo to build the sandbox helper");
            assert!(status.success(), "cargo build of arbiter-sandbox failed");
        }
        assert!(sandbox::helper_path().is_some(), "arbiter-sandbox is built next to the test binaries");
    });
}

/// The project's root folder.
pub fn repo_root() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

/// An app serving on 127.0.0.1 in this runtime.
pub struct Server {
    pub addr: SocketAddr,
    pub app: Arc<web::App>,
}

/// Starts the app on `data` (showing the databases `dbs` too) and serves it on a free
/// port of 127.0.0.1 until the runtime ends.
pub async fn start(data: &Path, dbs: Vec<PathBuf>) -> Server {
    start_with(config(data, dbs)).await
}

/// The test servers' configuration: the token above, 2 jobs, the project's presets.
pub fn config(data: &Path, dbs: Vec<PathBuf>) -> web::Config {
    web::Config {
        data: data.to_path_buf(),
        dbs,
        token: TOKEN.into(),
        sandboxed: false,
        jobs: 2,
        presets: Some(repo_root().join("presets")),
        hosts: vec![],
        limits: web::http::Limits::default(),
        ladder_share: 0.5,
        upload_limits: web::uploads::Limits::default(),
    }
}

/// Starts the app with `config` and serves it on a free port of 127.0.0.1.
pub async fn start_with(config: web::Config) -> Server {
    let app = web::App::start(config).await.expect("the app starts");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a free port on 127.0.0.1");
    let addr = listener.local_addr().expect("the listener's address");
    tokio::spawn(web::serve(Arc::clone(&app), listener));
    Server { addr, app }
}

/// A response: status, headers (names in lower case) and body.
#[derive(Debug)]
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Response {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    /// The body as JSON (a panic names the body if it is not).
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|err| panic!("not JSON ({err}): {:?}", self.body))
    }
}

/// One request on a fresh connection.
pub async fn request(addr: SocketAddr, method: &str, path: &str, headers: &[(&str, &str)], body: Option<&str>) -> Response {
    tokio::time::timeout(SAFETY, request_unbounded(addr, method, path, headers, body))
        .await
        .unwrap_or_else(|_| panic!("{method} {path}: no answer within {SAFETY:?}"))
}

/// One request on a fresh connection from the local address `source` (any of
/// 127.0.0.0/8 on Linux): a client of its own to the server.
pub async fn request_from(
    source: std::net::Ipv4Addr,
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&str>,
) -> Response {
    let exchange = async { request_on(connect_from(source, addr).await, addr, method, path, headers, body.map(str::as_bytes)).await };
    tokio::time::timeout(SAFETY, exchange).await.unwrap_or_else(|_| panic!("{method} {path} from {source}: no answer within {SAFETY:?}"))
}

/// A connection to `addr` from the local address `source`.
pub async fn connect_from(source: std::net::Ipv4Addr, addr: SocketAddr) -> TcpStream {
    let socket = tokio::net::TcpSocket::new_v4().expect("a socket");
    socket.bind(SocketAddr::from((source, 0))).unwrap_or_else(|err| panic!("bind to {source}: {err}"));
    socket.connect(addr).await.unwrap_or_else(|err| panic!("connect from {source} to {addr}: {err}"))
}

async fn request_unbounded(addr: SocketAddr, method: &str, path: &str, headers: &[(&str, &str)], body: Option<&str>) -> Response {
    let stream = TcpStream::connect(addr).await.expect("connect to the server");
    request_on(stream, addr, method, path, headers, body.map(str::as_bytes)).await
}

/// One request with a body of bytes (a multipart form with binary files), from the local
/// address `source`: a client of its own.
pub async fn request_bytes_from(
    source: std::net::Ipv4Addr,
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Response {
    let exchange = async { request_on(connect_from(source, addr).await, addr, method, path, headers, Some(body)).await };
    tokio::time::timeout(SAFETY, exchange).await.unwrap_or_else(|_| panic!("{method} {path} from {source}: no answer within {SAFETY:?}"))
}

/// The boundary of the multipart forms [`multipart`] makes.
pub const BOUNDARY: &str = "----arbiter-test-boundary-7f3a";

/// A multipart form of `(field, file name, content)` parts, as a browser sends one.
pub fn multipart(parts: &[(&str, Option<&str>, &[u8])]) -> Vec<u8> {
    let mut body = Vec::new();
    for (name, file, content) in parts {
        body.extend_from_slice(format!("--{BOUNDARY}\r\n").as_bytes());
        match file {
            Some(file) => body.extend_from_slice(
                format!(
                    "Content-Disposition: form-data; name=\"{name}\"; filename=\"{file}\"\r\nContent-Type: application/octet-stream\r\n\r\n"
                )
                .as_bytes(),
            ),
            None => body.extend_from_slice(format!("Content-Disposition: form-data; name=\"{name}\"\r\n\r\n").as_bytes()),
        }
        body.extend_from_slice(content);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(format!("--{BOUNDARY}--\r\n").as_bytes());
    body
}

/// A request with a token (or none) and a JSON body or a [`multipart`] form; the status and
/// JSON answer.
pub async fn call(addr: SocketAddr, method: &str, path: &str, token: Option<&str>, body: Option<&str>) -> (u16, Value) {
    let auth = token.map(|t| format!("Bearer {t}"));
    let content_type = match body {
        Some(b) if b.starts_with("--") => format!("multipart/form-data; boundary={BOUNDARY}"),
        _ => "application/json".to_string(),
    };
    let mut headers = vec![("Content-Type", content_type.as_str())];
    if let Some(auth) = &auth {
        headers.push(("Authorization", auth.as_str()));
    }
    let response = request(addr, method, path, &headers, body).await;
    (response.status, response.json())
}

/// Uploads a form with `token` from the local address `source` to `path` (the
/// submissions endpoint, with its query); the status and JSON answer.
pub async fn upload_from(source: std::net::Ipv4Addr, addr: SocketAddr, path: &str, token: &str, form: &[u8]) -> (u16, Value) {
    let content_type = format!("multipart/form-data; boundary={BOUNDARY}");
    let auth = format!("Bearer {token}");
    let headers = [("Content-Type", content_type.as_str()), ("Authorization", auth.as_str())];
    let response = request_bytes_from(source, addr, "POST", path, &headers, form).await;
    (response.status, response.json())
}

/// A zip archive of `(name, content)` files.
pub fn zip_of(files: &[(&str, &[u8])]) -> Vec<u8> {
    use std::io::Write;
    let mut out = std::io::Cursor::new(Vec::new());
    let mut writer = zip::ZipWriter::new(&mut out);
    let options = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    for (name, content) in files {
        writer.start_file(*name, options).expect("a zip entry");
        writer.write_all(content).expect("zip content");
    }
    writer.finish().expect("a finished zip");
    out.into_inner()
}

/// Lets `names` in as entrants (the organiser's token); their tokens by name.
pub async fn entrants(addr: SocketAddr, names: &[&str]) -> std::collections::BTreeMap<String, String> {
    let (status, body) = post_json(addr, "/api/entrants", true, &serde_json::json!({ "names": names })).await;
    assert_eq!(status, 201, "{body}");
    body["entrants"]
        .as_array()
        .expect("the entrants")
        .iter()
        .map(|e| (e["name"].as_str().unwrap().to_string(), e["token"].as_str().unwrap().to_string()))
        .collect()
}

/// Sends a request on `stream` (with `Host: addr` unless `headers` name the host) and
/// reads the response to the end of the connection.
async fn request_on(
    mut stream: TcpStream,
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&[u8]>,
) -> Response {
    let mut head = format!("{method} {path} HTTP/1.1\r\nConnection: close\r\n");
    if !headers.iter().any(|(name, _)| name.eq_ignore_ascii_case("host")) {
        head.push_str(&format!("Host: {addr}\r\n"));
    }
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    if let Some(body) = body {
        head.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    head.push_str("\r\n");
    let mut head = head.into_bytes();
    head.extend_from_slice(body.unwrap_or_default());
    // A server that refuses a connection outright may close it before reading the
    // request (then the write fails, or a reset follows the answer): what it sent counts.
    let _ = stream.write_all(&head).await;
    let raw = read_all(&mut stream).await;
    let end =
        find(&raw, b"\r\n\r\n").unwrap_or_else(|| panic!("{method} {path}: no end of headers in {:?}", String::from_utf8_lossy(&raw)));
    let (status, headers) = parse_head(&raw[..end]);
    let rest = &raw[end + 4..];
    let is_chunked = headers.iter().any(|(n, v)| n == "transfer-encoding" && v.contains("chunked"));
    let body = if is_chunked {
        let mut decoder = Chunked::default();
        decoder.raw.extend_from_slice(rest);
        let mut out = Vec::new();
        decoder.decode(&mut out);
        out
    } else {
        match headers.iter().find(|(n, _)| n == "content-length") {
            Some((_, len)) => rest[..len.parse::<usize>().expect("a numeric Content-Length")].to_vec(),
            None => rest.to_vec(),
        }
    };
    Response { status, headers, body: String::from_utf8(body).expect("a UTF-8 body") }
}

/// Everything the server sends until it closes the connection (or resets it).
pub async fn read_all(stream: &mut TcpStream) -> Vec<u8> {
    let mut raw = Vec::new();
    let mut buf = [0u8; 16384];
    loop {
        match stream.read(&mut buf).await {
            Ok(0) | Err(_) => return raw,
            Ok(n) => raw.extend_from_slice(&buf[..n]),
        }
    }
}

/// A raw response as [`Response`] (`None` if it has no complete head).
pub fn parse_response(raw: &[u8]) -> Option<Response> {
    let end = find(raw, b"\r\n\r\n")?;
    let (status, headers) = parse_head(&raw[..end]);
    Some(Response { status, headers, body: String::from_utf8_lossy(&raw[end + 4..]).into_owned() })
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn parse_head(head: &[u8]) -> (u16, Vec<(String, String)>) {
    let text = std::str::from_utf8(head).expect("UTF-8 headers");
    let mut lines = text.split("\r\n");
    let status_line = lines.next().expect("a status line");
    let status = status_line.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or_else(|| panic!("bad status line {status_line:?}"));
    let headers = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_string()))
        .collect();
    (status, headers)
}

/// GET, the answer as JSON.
pub async fn get_json(addr: SocketAddr, path: &str) -> (u16, Value) {
    let response = request(addr, "GET", path, &[], None).await;
    (response.status, response.json())
}

/// POST a JSON body (with the organiser's token if `token`), the answer as JSON.
pub async fn post_json(addr: SocketAddr, path: &str, token: bool, body: &Value) -> (u16, Value) {
    let auth = format!("Bearer {TOKEN}");
    let mut headers = vec![("Content-Type", "application/json")];
    if token {
        headers.push(("Authorization", auth.as_str()));
    }
    let response = request(addr, "POST", path, &headers, Some(&body.to_string())).await;
    (response.status, response.json())
}

/// Incremental decoding of a chunked body.
#[derive(Default)]
struct Chunked {
    raw: Vec<u8>,
    ended: bool,
}

impl Chunked {
    /// Moves every complete chunk from `raw` to `out`.
    fn decode(&mut self, out: &mut Vec<u8>) {
        while !self.ended {
            let Some(line_end) = find(&self.raw, b"\r\n") else { return };
            let size_text = std::str::from_utf8(&self.raw[..line_end]).expect("a chunk size line");
            let size = usize::from_str_radix(size_text.split(';').next().unwrap_or("").trim(), 16)
                .unwrap_or_else(|_| panic!("bad chunk size {size_text:?}"));
            if size == 0 {
                self.ended = true;
                return;
            }
            let start = line_end + 2;
            if self.raw.len() < start + size + 2 {
                return;
            }
            out.extend_from_slice(&self.raw[start..start + size]);
            self.raw.drain(..start + size + 2);
        }
    }
}

/// A server-sent event stream being read.
pub struct Events {
    stream: TcpStream,
    chunks: Chunked,
    text: Vec<u8>,
}

/// One server-sent event: its name and its data.
#[derive(Clone, Debug)]
pub struct Event {
    pub name: String,
    pub data: String,
}

impl Event {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.data).unwrap_or_else(|err| panic!("event {} data is not JSON ({err}): {:?}", self.name, self.data))
    }
}

impl Events {
    /// Opens `GET path` as an event stream; `Err` is the response when the status is not
    /// 200.
    pub async fn open(addr: SocketAddr, path: &str) -> Result<Events, Response> {
        let mut stream = TcpStream::connect(addr).await.expect("connect to the server");
        let head = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\nConnection: close\r\n\r\n");
        stream.write_all(head.as_bytes()).await.expect("send the request");
        let mut raw = Vec::new();
        let end = loop {
            if let Some(end) = find(&raw, b"\r\n\r\n") {
                break end;
            }
            let mut buf = [0u8; 4096];
            let n = stream.read(&mut buf).await.expect("read the response head");
            assert!(n > 0, "GET {path}: the connection closed before the headers");
            raw.extend_from_slice(&buf[..n]);
        };
        let (status, headers) = parse_head(&raw[..end]);
        let mut chunks = Chunked::default();
        chunks.raw.extend_from_slice(&raw[end + 4..]);
        if status != 200 {
            stream.read_to_end(&mut chunks.raw).await.expect("read the refusal");
            let mut body = Vec::new();
            chunks.decode(&mut body);
            let body = if body.is_empty() { std::mem::take(&mut chunks.raw) } else { body };
            return Err(Response { status, headers, body: String::from_utf8_lossy(&body).into_owned() });
        }
        assert!(
            headers.iter().any(|(n, v)| n == "content-type" && v.starts_with("text/event-stream")),
            "GET {path}: not an event stream: {headers:?}"
        );
        Ok(Events { stream, chunks, text: Vec::new() })
    }

    /// The next event, or `None` when the server closed the stream.
    pub async fn next(&mut self) -> Option<Event> {
        loop {
            self.chunks.decode(&mut self.text);
            while let Some(end) = find(&self.text, b"\n\n") {
                let block: Vec<u8> = self.text.drain(..end + 2).collect();
                if let Some(event) = parse_event(&String::from_utf8_lossy(&block)) {
                    return Some(event);
                }
            }
            if self.chunks.ended {
                return None;
            }
            let mut buf = [0u8; 16384];
            let n = self.stream.read(&mut buf).await.ok()?;
            if n == 0 {
                return None;
            }
            self.chunks.raw.extend_from_slice(&buf[..n]);
        }
    }

    /// The next event within the safety bound (a panic says what was awaited).
    pub async fn expect_next(&mut self, what: &str) -> Event {
        match tokio::time::timeout(SAFETY, self.next()).await {
            Ok(Some(event)) => event,
            Ok(None) => panic!("the event stream closed while waiting for {what}"),
            Err(_) => panic!("no event within {SAFETY:?} while waiting for {what}"),
        }
    }
}

/// An event block's name and data; `None` for a comment (keep-alive) block.
fn parse_event(block: &str) -> Option<Event> {
    let mut name = None;
    let mut data: Vec<&str> = Vec::new();
    for line in block.lines() {
        if let Some(value) = line.strip_prefix("event:") {
            name = Some(value.trim_start().to_string());
        } else if let Some(value) = line.strip_prefix("data:") {
            data.push(value.strip_prefix(' ').unwrap_or(value));
        }
    }
    if name.is_none() && data.is_empty() {
        return None;
    }
    Some(Event { name: name.unwrap_or_else(|| "message".to_string()), data: data.join("\n") })
}

/// Every file under `dir`, relative to it, sorted.
pub fn list_files(dir: &Path) -> Vec<String> {
    fn walk(dir: &Path, base: &Path, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            out.push(path.strip_prefix(base).expect("under the base").display().to_string());
            if path.is_dir() {
                walk(&path, base, out);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// A round robin of built-in players on Connect Four: `entrants` of them (random and
/// greedy by turns), every pair playing `deals` deals of two games.
pub fn round_robin(name: &str, entrants: usize, deals: usize) -> String {
    let mut text = format!("name = \"{name}\"\ngame = \"connect4\"\nseed = 7\n");
    for n in 0..entrants {
        let bot = if n % 2 == 0 { "random" } else { "greedy" };
        text.push_str(&format!("\n[[entrant]]\nname = \"{bot}-{n}\"\nbot = \"{bot}\"\n"));
    }
    text.push_str(&format!("\n[[stage]]\nformat = \"round-robin\"\ndeals = {deals}\n"));
    text
}

/// The games of [`round_robin`].
pub fn games_of(entrants: usize, deals: usize) -> usize {
    entrants * (entrants - 1) / 2 * deals * 2
}

/// Microseconds since the Unix epoch (the clock of the server's `sent_us`).
pub fn now_us() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_micros() as u64)
}

/// One standings message as a viewer received it.
#[derive(Clone, Debug)]
pub struct Received {
    /// The server's send time (`sent_us`).
    pub sent_us: u64,
    /// When the viewer had read it.
    pub received_us: u64,
    pub finished_games: u64,
    pub status: String,
}

/// What one viewer of a tournament's standings saw: the snapshot, the updates after it,
/// and whether the stream went on to the `finished` status (else it was cut).
#[derive(Clone, Debug)]
pub struct Viewing {
    pub snapshot: Received,
    pub updates: Vec<Received>,
    pub saw_finish: bool,
}

/// Follows `/api/tournaments/{id}/events` until the status is `finished` or the stream
/// ends.
pub async fn view_standings(addr: SocketAddr, id: &str) -> Viewing {
    let mut events = Events::open(addr, &format!("/api/tournaments/{id}/events")).await.expect("the standings stream");
    let mut seen = Vec::new();
    let mut saw_finish = false;
    while let Some(event) = events.next().await {
        let received_us = now_us();
        if event.name != "standings" {
            continue;
        }
        let data = event.json();
        let message = Received {
            sent_us: data["sent_us"].as_u64().expect("sent_us"),
            received_us,
            finished_games: data["finished_games"].as_u64().expect("finished_games"),
            status: data["status"].as_str().expect("status").to_string(),
        };
        saw_finish = message.status == "finished";
        seen.push(message);
        if saw_finish {
            break;
        }
    }
    let mut seen = seen.into_iter();
    let snapshot = seen.next().expect("the stream opened with a snapshot");
    Viewing { snapshot, updates: seen.collect(), saw_finish }
}

/// Every update sent (the distinct `sent_us` of the messages after the snapshots), and
/// for each viewer the updates it should have had (all sent after its snapshot) but did
/// not get.
pub fn missed_updates(viewings: &[Viewing]) -> (std::collections::BTreeSet<u64>, Vec<usize>) {
    let sent: std::collections::BTreeSet<u64> = viewings.iter().flat_map(|v| v.updates.iter().map(|u| u.sent_us)).collect();
    let missed = viewings
        .iter()
        .map(|v| {
            let got: std::collections::BTreeSet<u64> = v.updates.iter().map(|u| u.sent_us).collect();
            sent.iter().filter(|&&s| s > v.snapshot.sent_us && !got.contains(&s)).count()
        })
        .collect();
    (sent, missed)
}

/// The options of a tournament run the way `arbiter tournament --no-sandbox --no-pin`
/// runs one: `jobs` games at a time, paths from `config_dir`, games on the test's own
/// runtime.
pub fn cli_run_options(jobs: usize, config_dir: &Path) -> arena::RunOptions {
    arena::RunOptions {
        jobs,
        config_dir: config_dir.to_path_buf(),
        sandboxed: false,
        pin: false,
        watch: None,
        wait_for_runner: false,
        shared: None,
    }
}
