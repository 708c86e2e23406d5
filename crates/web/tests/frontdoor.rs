//! The server's front door over real HTTP on 127.0.0.1, with clients told apart by
//! their source address (127.0.0.1, 127.0.0.2, ...): a thousand idle connections from
//! one client leave the server answering the others, idle and slow connections are
//! closed, a client over its quota of games is refused while another still gets one,
//! every response carries the security headers, a foreign Host is refused, every
//! refusal is JSON, a bad file in the data folder is skipped, and the API shows no
//! server path.

mod common;

use std::net::Ipv4Addr;
use std::path::Path;
use std::time::{Duration, Instant};

use common::{SAFETY, connect_from, get_json, post_json, read_all, request, request_from};
use serde_json::json;
use tokio::io::AsyncWriteExt;

const ONE: Ipv4Addr = Ipv4Addr::new(127, 0, 0, 1);
const TWO: Ipv4Addr = Ipv4Addr::new(127, 0, 0, 2);
const THREE: Ipv4Addr = Ipv4Addr::new(127, 0, 0, 3);

fn config_with(data: &Path, limits: web::http::Limits) -> web::Config {
    web::Config { limits, ..common::config(data, vec![]) }
}

/// The JSON error of a refusal (a panic names the response if it is not one).
fn error_of(response: &common::Response) -> String {
    assert_eq!(response.header("content-type"), Some("application/json"), "{response:?}");
    response.json()["error"].as_str().unwrap_or_else(|| panic!("no `error` in {response:?}")).to_string()
}

/// Polls `GET /api/rules` from `client` until it is answered 200, within the safety bound.
async fn until_answered(client: Ipv4Addr, addr: std::net::SocketAddr) {
    let deadline = Instant::now() + SAFETY;
    loop {
        let response = request_from(client, addr, "GET", "/api/rules", &[], None).await;
        if response.status == 200 {
            return;
        }
        assert!(Instant::now() < deadline, "{client} was still refused after {SAFETY:?}: {response:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

// ---------------------------------------------------------------------------------------
// Connections

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_idle_connections_from_one_client_leave_the_server_answering_the_others() {
    const IDLE: usize = 1000;
    let descriptors = web::http::raise_descriptor_limit();
    // Idle connections are held for the whole test (the header timeout is far away).
    let limits = web::http::Limits { header_timeout: Duration::from_secs(600), ..web::http::Limits::for_descriptors(descriptors) };
    let per_client = limits.max_connections_per_client;
    assert!(
        descriptors >= (IDLE + per_client + 200) as u64,
        "this test holds {IDLE} connections and the server's side of {per_client}: the descriptor limit {descriptors} is too low"
    );
    assert!(per_client < IDLE, "the per-client cap ({per_client}) is below the connections opened");
    let data = tempfile::tempdir().expect("a temporary folder");
    let server = common::start_with(config_with(data.path(), limits)).await;
    let addr = server.addr;

    // One client opens a thousand connections and sends nothing.
    let mut idle = Vec::with_capacity(IDLE);
    for _ in 0..IDLE {
        idle.push(tokio::time::timeout(SAFETY, connect_from(ONE, addr)).await.expect("a connection within the safety bound"));
    }
    // The server holds its share and refuses the rest at once, as JSON.
    let (sender, mut answers) = tokio::sync::mpsc::unbounded_channel();
    let readers: Vec<_> = idle
        .into_iter()
        .map(|mut stream| {
            let sender = sender.clone();
            tokio::spawn(async move {
                let raw = read_all(&mut stream).await;
                let _ = sender.send(raw);
            })
        })
        .collect();
    for n in 0..IDLE - per_client {
        let raw = tokio::time::timeout(SAFETY, answers.recv())
            .await
            .unwrap_or_else(|_| panic!("only {n} of {} refusals within {SAFETY:?}", IDLE - per_client))
            .expect("the readers are running");
        let response = common::parse_response(&raw).unwrap_or_else(|| panic!("not an HTTP answer: {:?}", String::from_utf8_lossy(&raw)));
        assert_eq!(response.status, 429, "{response:?}");
        assert_eq!(response.header("x-content-type-options"), Some("nosniff"));
        let error = error_of(&response);
        assert!(error.starts_with(&format!("you have {per_client} connections open")), "{error}");
    }
    // The rest are held: nothing came on them (the header timeout is ten minutes away).
    assert!(answers.try_recv().is_err(), "a held connection was answered or closed");

    // Another client is served as usual, pages and API alike.
    for n in 0..20 {
        let path = if n % 2 == 0 { "/api/rules" } else { "/" };
        let response = request_from(TWO, addr, "GET", path, &[], None).await;
        assert_eq!(response.status, 200, "GET {path} from another client: {response:?}");
    }
    let (status, started) = post_json(addr, "/api/play", false, &json!({ "game": "gomoku", "bot": "random" })).await;
    assert_eq!(status, 429, "127.0.0.1 is the idle client: {started}");
    let response =
        request_from(TWO, addr, "POST", "/api/play", &[("Content-Type", "application/json")], Some(r#"{"game":"gomoku","bot":"random"}"#))
            .await;
    assert_eq!(response.status, 201, "{response:?}");
    // The idle client itself is refused, with the reason.
    let response = request_from(ONE, addr, "GET", "/api/rules", &[], None).await;
    assert_eq!(response.status, 429);
    assert!(error_of(&response).contains("connections open"));
    assert!(answers.try_recv().is_err(), "a held connection was answered or closed");

    // When it lets go, its connections are freed and it is served again.
    for reader in &readers {
        reader.abort();
    }
    until_answered(ONE, addr).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_and_slow_connections_are_closed_by_the_header_timeout() {
    let limits = web::http::Limits { header_timeout: Duration::from_secs(1), ..web::http::Limits::default() };
    let data = tempfile::tempdir().expect("a temporary folder");
    let server = common::start_with(config_with(data.path(), limits)).await;
    let addr = server.addr;

    // A connection that sends nothing is closed.
    let mut silent = connect_from(THREE, addr).await;
    let raw = tokio::time::timeout(SAFETY, read_all(&mut silent)).await.expect("the server closed a silent connection");
    assert!(!String::from_utf8_lossy(&raw).contains(" 200 "), "{raw:?}");

    // Headers that never end are cut off.
    let mut slow = connect_from(THREE, addr).await;
    slow.write_all(b"GET /api/rules HTTP/1.1\r\nHost: localhost\r\n").await.expect("send half the headers");
    let raw = tokio::time::timeout(SAFETY, read_all(&mut slow)).await.expect("the server closed a connection with unfinished headers");
    assert!(!String::from_utf8_lossy(&raw).contains(" 200 "), "{raw:?}");

    // A kept-alive connection is answered, then closed once idle.
    let mut kept = connect_from(THREE, addr).await;
    kept.write_all(b"GET /api/rules HTTP/1.1\r\nHost: localhost\r\n\r\n").await.expect("send a request");
    let raw = tokio::time::timeout(SAFETY, read_all(&mut kept)).await.expect("the server closed an idle kept-alive connection");
    let text = String::from_utf8_lossy(&raw);
    assert!(text.starts_with("HTTP/1.1 200 OK"), "{text}");
    assert_eq!(text.matches("HTTP/1.1 ").count(), 1, "one answer, then the close: {text}");
}

// ---------------------------------------------------------------------------------------
// Quotas

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_over_its_quota_of_human_games_is_refused_while_another_still_gets_one() {
    let data = tempfile::tempdir().expect("a temporary folder");
    let server = common::start(data.path(), vec![]).await;
    let play = |client: Ipv4Addr| async move {
        // The person moves first: the game waits for them, open.
        let body = r#"{"game":"gomoku","bot":"random","side":0}"#;
        request_from(client, server.addr, "POST", "/api/play", &[("Content-Type", "application/json")], Some(body)).await
    };
    for n in 0..web::games::MAX_HUMAN_GAMES_PER_CLIENT {
        let response = play(ONE).await;
        assert_eq!(response.status, 201, "game {n}: {response:?}");
    }
    let refused = play(ONE).await;
    assert_eq!(refused.status, 429, "{refused:?}");
    let error = error_of(&refused);
    assert!(error.starts_with(&format!("you have {} human games open", web::games::MAX_HUMAN_GAMES_PER_CLIENT)), "{error}");
    let other = play(TWO).await;
    assert_eq!(other.status, 201, "another client still gets a game: {other:?}");
    let (_, games) = get_json(server.addr, "/api/games").await;
    assert_eq!(games["running"].as_array().map(Vec::len), Some(web::games::MAX_HUMAN_GAMES_PER_CLIENT + 1), "{games}");
}

/// Matches of built-in players end within milliseconds over HTTP, so they are started by
/// direct calls on this single-threaded runtime, where no game runs before the test
/// yields: the first client's matches are all still running when it asks again.
#[tokio::test(flavor = "current_thread")]
async fn a_client_over_its_quota_of_matches_is_refused_while_another_still_gets_one() {
    let data = tempfile::tempdir().expect("a temporary folder");
    let server = common::start(data.path(), vec![]).await;
    let (one, two) = (web::quota::Client::of(ONE.into()), web::quota::Client::of(TWO.into()));
    let request = || web::games::TestRequest {
        game: "connect4".into(),
        options: Default::default(),
        bots: ["random".into(), "random".into()],
        games: Some(2),
        seed: Some(1),
    };
    for _ in 0..web::games::MAX_MATCHES_PER_CLIENT {
        web::games::start_match(&server.app, one, request()).expect("within the client's share");
    }
    let refused = web::games::start_match(&server.app, one, request()).expect_err("over the client's share");
    assert_eq!(refused.status, 429);
    assert!(refused.message.starts_with("you have 2 matches running"), "{}", refused.message);
    web::games::start_match(&server.app, two, request()).expect("another client still gets a match");
    assert_eq!(server.app.matches.in_use(), web::games::MAX_MATCHES_PER_CLIENT + 1);
}

// ---------------------------------------------------------------------------------------
// Headers, hosts, refusals

/// The SHA-256 of a script as a CSP source.
fn csp_hash(script: &str) -> String {
    use base64::Engine;
    use sha2::Digest;
    format!("'sha256-{}'", base64::engine::general_purpose::STANDARD.encode(sha2::Sha256::digest(script.as_bytes())))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_response_carries_the_security_headers_and_the_pages_fit_their_policy() {
    let data = tempfile::tempdir().expect("a temporary folder");
    let server = common::start(data.path(), vec![]).await;
    let pages = ["/", "/tournaments/x", "/tournaments/x/game?key=k", "/games/g1-1", "/test", "/play", "/submit"];
    let others = ["/assets/app.js", "/assets/board.js", "/assets/app.css", "/api", "/api/rules", "/api/games", "/nope", "/api/nope"];
    for path in pages.iter().chain(&others) {
        let response = request(server.addr, "GET", path, &[], None).await;
        let csp = response.header("content-security-policy").unwrap_or_else(|| panic!("GET {path}: no CSP"));
        for directive in ["default-src 'none'", "frame-ancestors 'none'", "base-uri 'none'", "connect-src 'self'", "script-src 'self'"] {
            assert!(csp.contains(directive), "GET {path}: the CSP lacks {directive}: {csp}");
        }
        assert!(!csp.contains("'unsafe-eval'") && !csp.split(';').any(|d| d.contains("script-src") && d.contains("'unsafe-inline'")));
        assert_eq!(response.header("x-content-type-options"), Some("nosniff"), "GET {path}");
        assert_eq!(response.header("x-frame-options"), Some("DENY"), "GET {path}");
        assert_eq!(response.header("referrer-policy"), Some("no-referrer"), "GET {path}");
        if pages.contains(path) {
            // Every inline script is let in by its hash; no inline handler or
            // `javascript:` URL (which no hash lets in) is in the page.
            let html = &response.body;
            let scripts: Vec<&str> = html
                .split("<script")
                .skip(1)
                .filter_map(|s| s.split_once('>'))
                .map(|(_, rest)| rest.split("</script>").next().unwrap_or(""))
                .collect();
            assert!(!scripts.is_empty(), "GET {path}: a page with its script");
            for script in scripts {
                assert!(csp.contains(&csp_hash(script)), "GET {path}: an inline script not in the CSP");
            }
            let lower = html.to_ascii_lowercase();
            for handler in [" onclick=", " onload=", " onerror=", " onsubmit=", " onchange=", " oninput=", "javascript:"] {
                assert!(!lower.contains(handler), "GET {path}: {handler} would be blocked by the CSP");
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_with_a_foreign_host_is_refused_and_changes_nothing() {
    let data = tempfile::tempdir().expect("a temporary folder");
    let config = web::Config { hosts: vec!["Arena.Example.org".into()], ..common::config(data.path(), vec![]) };
    let server = common::start_with(config).await;
    let addr = server.addr;
    let json = ("Content-Type", "application/json");
    let play = Some(r#"{"game":"gomoku","bot":"random"}"#);
    for (host, method, path) in [
        ("evil.example", "GET", "/api/rules"),
        ("evil.example:8080", "GET", "/"),
        ("arena.example.org.evil.example", "GET", "/api/games"),
        ("evil.example", "POST", "/api/play"),
    ] {
        let response = request(addr, method, path, &[("Host", host), json], play.filter(|_| method == "POST")).await;
        assert_eq!(response.status, 421, "{method} {path} for {host}: {response:?}");
        assert!(error_of(&response).contains(&format!("does not answer to the host name {host:?}")), "{response:?}");
        assert!(response.header("content-security-policy").is_some());
    }
    // The absolute form's host counts too, and two Host headers are one too many.
    let response = request(addr, "GET", "http://evil.example/api/rules", &[("Host", "localhost")], None).await;
    assert_eq!(response.status, 421, "{response:?}");
    let response = request(addr, "GET", "/api/rules", &[("Host", "localhost"), ("Host", "evil.example")], None).await;
    assert_eq!(response.status, 400, "{response:?}");
    assert_eq!(error_of(&response), "the request has more than one Host header");
    let (_, games) = get_json(addr, "/api/games").await;
    assert_eq!(games["running"], json!([]), "a refused request started nothing");

    let port = addr.port();
    for host in [
        format!("localhost:{port}"),
        format!("127.0.0.1:{port}"),
        "arena.example.org".into(),
        format!("ARENA.example.org.:{port}"),
        "[::1]".into(),
    ] {
        let response = request(addr, "GET", "/api/rules", &[("Host", &host)], None).await;
        assert_eq!(response.status, 200, "Host {host}: {response:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_refusal_is_json_with_a_4xx_status() {
    let limits = web::http::Limits { body_timeout: Duration::from_secs(1), ..web::http::Limits::default() };
    let data = tempfile::tempdir().expect("a temporary folder");
    let server = common::start_with(config_with(data.path(), limits)).await;
    let addr = server.addr;
    let json = ("Content-Type", "application/json");
    let big = format!(r#"{{"game":"connect4","bots":["random","random"],"pad":"{}"}}"#, "x".repeat(3 << 20));
    // Method, path, headers, body, status, a piece of the message.
    type Case<'a> = (&'a str, &'a str, Vec<(&'a str, &'a str)>, Option<&'a str>, u16, &'a str);
    let cases: Vec<Case> = vec![
        ("GET", "/nope", vec![], None, 404, "no page or API endpoint GET /nope"),
        ("GET", "/assets/nope.js", vec![], None, 404, "no asset nope.js"),
        ("GET", "/api/nope", vec![], None, 404, "no API endpoint /api/nope"),
        ("PUT", "/api/tournaments", vec![json], Some("{}"), 405, "PUT is not allowed on /api/tournaments"),
        ("DELETE", "/", vec![], None, 405, "DELETE is not allowed on /"),
        ("POST", "/api/test", vec![json], Some(&big), 413, "length limit exceeded"),
        ("GET", "/api/games/%FF", vec![], None, 400, "invalid utf-8"),
        ("GET", "/api/bots?game=a&game=b", vec![], None, 400, "duplicate field `game`"),
    ];
    for (method, path, headers, body, status, says) in &cases {
        let response = request(addr, method, path, headers, *body).await;
        assert_eq!(response.status, *status, "{method} {path}: {response:?}");
        let error = error_of(&response);
        assert!(error.to_lowercase().contains(&says.to_lowercase()), "{method} {path}: {error:?} does not say {says:?}");
        assert_eq!(response.header("x-content-type-options"), Some("nosniff"), "{method} {path}");
    }
    let response = request(addr, "PUT", "/api/tournaments", &[json], Some("{}")).await;
    assert_eq!(response.header("allow"), Some("GET,HEAD,POST"), "a 405 keeps its Allow header");

    // A body that stops coming is cut off after the body timeout.
    let mut slow = connect_from(ONE, addr).await;
    slow.write_all(b"POST /api/play HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"game\"")
        .await
        .expect("send the start of a body");
    let raw = tokio::time::timeout(SAFETY, read_all(&mut slow)).await.expect("the server gave up on the body");
    let response = common::parse_response(&raw).unwrap_or_else(|| panic!("no answer: {:?}", String::from_utf8_lossy(&raw)));
    assert_eq!(response.status, 400, "{response:?}");
    assert!(response.body.contains("\"error\""), "{response:?}");
}

// ---------------------------------------------------------------------------------------
// The data folder and server paths

/// Writes a SQLite database of another program (a table of its own) with Python's
/// sqlite3 module.
fn foreign_database(path: &Path) {
    let script = format!(
        "import sqlite3; c = sqlite3.connect({:?}); c.execute('CREATE TABLE notes (text)'); c.execute(\"INSERT INTO notes VALUES ('mine')\"); c.commit()",
        path.display().to_string()
    );
    let status = std::process::Command::new("python3").args(["-c", &script]).status().expect("python3 runs");
    assert!(status.success(), "python3 wrote {}", path.display());
}

/// Runs a small round robin with the command line's runner into `db`.
async fn finished_tournament(db: &Path, name: &str) {
    let text = common::round_robin(name, 2, 1);
    let config = tournament::TournamentConfig::parse(&text, "t.toml").expect("the config");
    let entrants = arena::resolve_entrants(&config, Path::new("."), None).expect("built-in entrants");
    let store = store::Store::open(db).await.expect("a new database");
    let options = common::cli_run_options(1, Path::new("."));
    arena::run_tournament(&config, &text, &entrants, &store, &options, |_| {}).await.expect("the tournament runs");
    store.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_files_in_the_data_folder_are_skipped_and_listed_and_the_server_starts() {
    let data = tempfile::tempdir().expect("a temporary folder");
    let folder = data.path().join("tournaments");
    std::fs::create_dir_all(&folder).expect("the tournaments folder");
    finished_tournament(&folder.join("good.db"), "Good").await;
    std::fs::write(folder.join("corrupt.db"), "this is not a database\n".repeat(200)).expect("a corrupt file");
    foreign_database(&folder.join("foreign.db"));
    std::fs::create_dir(folder.join("folder.db")).expect("a folder named like a database");
    let foreign_before = std::fs::read(folder.join("foreign.db")).expect("the foreign file");

    let server = common::start(data.path(), vec![]).await;
    let (status, list) = get_json(server.addr, "/api/tournaments").await;
    assert_eq!(status, 200);
    let by_file = |file: &str| list.as_array().expect("a list").iter().find(|t| t["file"] == file).cloned();
    let good = by_file("good.db").unwrap_or_else(|| panic!("good.db is listed: {list}"));
    assert_eq!((good["status"].as_str(), good["games"].as_u64()), (Some("finished"), Some(2)), "{good}");
    // The same line as every command of the command line gives (`tests/people_errors.rs`
    // in the binary's tests), with no SQLite code.
    for (file, says) in [
        ("corrupt.db", "corrupt.db is not an arbiter results database: it is not an SQLite file"),
        ("foreign.db", "foreign.db is not an arbiter results database: it is another program's SQLite file"),
        ("folder.db", "folder.db is not an arbiter results database: it is a folder"),
    ] {
        let entry = by_file(file).unwrap_or_else(|| panic!("{file} is listed for the organiser: {list}"));
        let status = entry["status"].as_str().expect("a status");
        assert_eq!(status, format!("unreadable: {says}"), "{file}");
        let id = entry["id"].as_str().expect("an id");
        let response = request(server.addr, "GET", &format!("/api/tournaments/{id}"), &[], None).await;
        assert_eq!(response.status, 404);
        assert!(error_of(&response).contains(&format!("tournament file {file} could not be read at start")), "{response:?}");
    }
    let text = list.to_string();
    assert!(!text.contains(&data.path().display().to_string()), "no server path in {text}");
    assert_eq!(std::fs::read(folder.join("foreign.db")).expect("the foreign file"), foreign_before, "the foreign file is left as it was");
}

/// Every JSON document and event stream of the API, for a search through them all.
async fn crawl(addr: std::net::SocketAddr) -> Vec<(String, String)> {
    let mut paths: Vec<String> =
        ["/api", "/api/rules", "/api/bots", "/api/presets", "/api/tournaments", "/api/games", "/api/submissions", "/api/freeze"]
            .map(String::from)
            .to_vec();
    let (_, tournaments) = get_json(addr, "/api/tournaments").await;
    for t in tournaments.as_array().expect("a list") {
        let id = t["id"].as_str().expect("an id");
        paths.push(format!("/api/tournaments/{id}"));
        paths.push(format!("/api/tournaments/{id}/games"));
        let (_, games) = get_json(addr, &format!("/api/tournaments/{id}/games")).await;
        for game in games["finished"].as_array().into_iter().flatten().take(3) {
            paths.push(format!("/api/tournaments/{id}/game?key={}", game["key"].as_str().expect("a key")));
        }
    }
    let (_, games) = get_json(addr, "/api/games").await;
    for game in games["running"].as_array().into_iter().chain(games["finished"].as_array()).flatten() {
        paths.push(format!("/api/games/{}", game["id"].as_str().expect("an id")));
    }
    let mut bodies = Vec::new();
    for path in paths {
        let response = request(addr, "GET", &path, &[], None).await;
        bodies.push((path, response.body));
    }
    for t in tournaments.as_array().expect("a list").iter().filter(|t| !t["status"].as_str().unwrap_or("").starts_with("unreadable")) {
        let path = format!("/api/tournaments/{}/events", t["id"].as_str().expect("an id"));
        let mut events = common::Events::open(addr, &path).await.expect("the standings stream");
        bodies.push((path, events.expect_next("the standings").await.data));
    }
    bodies
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_api_shows_no_server_path() {
    let root = tempfile::tempdir().expect("a temporary folder");
    let data = root.path().join("data");
    let folder = data.join("tournaments");
    std::fs::create_dir_all(&folder).expect("the tournaments folder");
    // A tournament shown from the command line's file, one the server ran, one that
    // cannot resume (its entrant's folder is gone), and a file that cannot be read.
    let cli_db = root.path().join("club.db");
    finished_tournament(&cli_db, "Club").await;
    finished_tournament(&folder.join("ran.db"), "Ran").await;
    let gone = root.path().join("bots").join("gone");
    let config = format!(
        "name = \"Stuck\"\ngame = \"connect4\"\n\n[[entrant]]\nname = \"gone\"\nbot = \"{}\"\n\n[[entrant]]\nbot = \"random\"\n\n[[stage]]\nformat = \"round-robin\"\n",
        gone.display()
    );
    let stuck = store::Store::open(&folder.join("stuck.db")).await.expect("a database");
    stuck.begin_tournament("Stuck", &config, "hash").await.expect("the tournament's row");
    stuck.close().await;
    std::fs::write(folder.join("broken.db"), "not a database").expect("a broken file");

    let server = common::start(&data, vec![cli_db]).await;
    // A testing-ground game and a human game.
    let (status, _) =
        post_json(server.addr, "/api/test", false, &json!({ "game": "connect4", "bots": ["random", "greedy"], "seed": 3 })).await;
    assert_eq!(status, 201);
    let (status, _) = post_json(server.addr, "/api/play", false, &json!({ "game": "pahtum", "bot": "random" })).await;
    assert_eq!(status, 201);

    let (_, list) = get_json(server.addr, "/api/tournaments").await;
    let stuck = list.as_array().expect("a list").iter().find(|t| t["file"] == "stuck.db").expect("stuck.db is listed");
    assert!(stuck["status"].as_str().is_some_and(|s| s.starts_with("stopped: cannot resume") && s.contains("gone")), "{stuck}");

    let hidden: Vec<String> = [
        root.path().to_path_buf(),
        root.path().canonicalize().expect("the folder"),
        common::repo_root().canonicalize().expect("the project"),
    ]
    .iter()
    .map(|p| p.display().to_string())
    .collect();
    let bodies = crawl(server.addr).await;
    assert!(bodies.len() >= 15, "the crawl reached the documents: {}", bodies.len());
    for (path, body) in &bodies {
        for secret in &hidden {
            assert!(!body.contains(secret.as_str()), "GET {path} shows the server path {secret}: {body}");
        }
    }
}
