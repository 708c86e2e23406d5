//! Uploads are bounded: six uploads sent at once by one entrant are not all taken (two
//! are, the others are refused at once with a 429 and one line, code `quota`), nor from
//! one client; builds at once are capped server-wide (uploads beyond the cap wait their
//! turn and are all built); an entrant keeps at most a set number of bots.

mod common;

use std::net::Ipv4Addr;

use common::{multipart, upload_from};
use serde_json::Value;

/// A bot of the project's protocol in Python: the first legal move.
const BOT: &str = "# arbiter-interface: arbiter\nimport sys\nlegal = []\nfor line in sys.stdin:\n    w = line.split()\n    if not w: continue\n    if w[0] == 'arbiter': print('ready', flush=True)\n    elif w[0] == 'legal': legal = w[1:]\n    elif w[0] == 'go': print('move ' + legal[0], flush=True)\n    elif w[0] == 'quit': break\n";

fn form(name: &str) -> Vec<u8> {
    multipart(&[("name", None, name.as_bytes()), ("game", None, b"connect4"), ("source", Some("bot.py"), BOT.as_bytes())])
}

/// Lets `names` in one at a time (the API of one name, which the server has always
/// had); their tokens.
async fn entrants(addr: std::net::SocketAddr, names: &[&str]) -> std::collections::BTreeMap<String, String> {
    let mut tokens = std::collections::BTreeMap::new();
    for name in names {
        let (status, body) = common::post_json(addr, "/api/entrants", true, &serde_json::json!({ "name": name })).await;
        assert_eq!(status, 201, "{body}");
        tokens.insert(name.to_string(), body["token"].as_str().unwrap().to_string());
    }
    tokens
}

fn local(n: u8) -> Ipv4Addr {
    Ipv4Addr::new(127, 0, 0, n)
}

/// The statuses of `uploads` sent at once, sorted, with the answers.
async fn at_once(addr: std::net::SocketAddr, uploads: Vec<(Ipv4Addr, String, Vec<u8>)>) -> Vec<(u16, Value)> {
    let tasks: Vec<_> = uploads
        .into_iter()
        .map(|(source, token, body)| tokio::spawn(async move { upload_from(source, addr, "/api/submissions", &token, &body).await }))
        .collect();
    let mut answers = Vec::new();
    for task in tasks {
        answers.push(task.await.expect("the upload task"));
    }
    answers.sort_by_key(|(status, _)| *status);
    answers
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn six_uploads_at_once_from_one_entrant_are_limited() {
    let dir = tempfile::tempdir().unwrap();
    let server = common::start(dir.path(), vec![]).await;
    let tokens = entrants(server.addr, &["ann"]).await;
    let ann = tokens["ann"].clone();
    // From six clients (the entrant's share is what binds), each a bot of its own.
    let uploads = (0..6).map(|n| (local(10 + n), ann.clone(), form(&format!("ann-{n}")))).collect();
    let answers = at_once(server.addr, uploads).await;
    let statuses: Vec<u16> = answers.iter().map(|(s, _)| *s).collect();
    assert_eq!(statuses, [201, 201, 429, 429, 429, 429], "{answers:?}");
    for (_, refusal) in &answers[2..] {
        assert_eq!(refusal["code"], "quota", "{refusal}");
        let line = refusal["error"].as_str().unwrap();
        assert!(line.contains("the most one entrant may have at once") && !line.contains('\n'), "{line}");
    }
    let (_, listed) = common::get_json(server.addr, "/api/submissions").await;
    assert_eq!(listed.as_array().unwrap().len(), 2, "only the two taken were stored: {listed}");
    // Once those are done, the entrant uploads again.
    let (status, answer) = upload_from(local(10), server.addr, "/api/submissions", &ann, &form("ann-again")).await;
    assert_eq!(status, 201, "{answer}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_client_is_limited_too_and_builds_wait_for_their_turn() {
    let dir = tempfile::tempdir().unwrap();
    let limits = web::uploads::Limits { builds: 2, ..web::uploads::Limits::default() };
    let server = common::start_with(web::Config { upload_limits: limits, ..common::config(dir.path(), vec![]) }).await;
    let tokens = entrants(server.addr, &["a", "b", "c", "d"]).await;
    // Four entrants from one client: two are taken, two refused (the client's share).
    let uploads = ["a", "b", "c", "d"].iter().map(|who| (local(20), tokens[*who].clone(), form(&format!("{who}-bot")))).collect();
    let answers = at_once(server.addr, uploads).await;
    let statuses: Vec<u16> = answers.iter().map(|(s, _)| *s).collect();
    assert_eq!(statuses, [201, 201, 429, 429], "{answers:?}");
    assert!(answers[2].1["error"].as_str().unwrap().contains("the most one client may have at once"), "{:?}", answers[2]);
    // Six uploads of six entrants from six clients: all built, never more than two at once.
    let more: Vec<&str> = vec!["e", "f", "g", "h", "i", "j"];
    let tokens = entrants(server.addr, &more).await;
    let uploads =
        more.iter().enumerate().map(|(n, who)| (local(30 + n as u8), tokens[*who].clone(), form(&format!("{who}-bot")))).collect();
    let answers = at_once(server.addr, uploads).await;
    assert!(answers.iter().all(|(status, _)| *status == 201), "{answers:?}");
    let (_, load) = common::get_json(server.addr, "/api/uploads").await;
    assert_eq!(load["limits"]["builds"], 2, "{load}");
    let peak = load["peak_builds"].as_u64().unwrap();
    assert!((1..=2).contains(&peak), "{load}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_entrant_keeps_a_bounded_number_of_bots() {
    let dir = tempfile::tempdir().unwrap();
    let limits = web::uploads::Limits { bots_per_entrant: 2, ..web::uploads::Limits::default() };
    let server = common::start_with(web::Config { upload_limits: limits, ..common::config(dir.path(), vec![]) }).await;
    let tokens = entrants(server.addr, &["zoe"]).await;
    let zoe = &tokens["zoe"];
    let quick = "/api/submissions?wait=false";
    for name in ["z1", "z2"] {
        let (status, answer) = upload_from(local(40), server.addr, quick, zoe, &form(name)).await;
        assert_eq!(status, 201, "{answer}");
        wait_checked(server.addr, name).await;
    }
    let (status, refusal) = upload_from(local(40), server.addr, quick, zoe, &form("z3")).await;
    assert_eq!((status, refusal["code"].as_str()), (429, Some("quota")), "{refusal}");
    assert!(refusal["error"].as_str().unwrap().contains("you have 2 bots, the most an entrant may keep"), "{refusal}");
    // A new version of a bot she has is no new bot.
    let (status, answer) = upload_from(local(40), server.addr, quick, zoe, &form("z1")).await;
    assert_eq!(status, 201, "{answer}");
    assert_eq!(answer["version"]["version"], 2);
    wait_checked(server.addr, "z1").await;
}

/// Waits until the latest version of connect4 bot `name` has its check's result.
async fn wait_checked(addr: std::net::SocketAddr, name: &str) {
    let began = std::time::Instant::now();
    loop {
        let (_, versions) = common::get_json(addr, &format!("/api/submissions/connect4/{name}")).await;
        if versions.as_array().and_then(|v| v.last()).is_some_and(|v| !v["entry_check"].is_null()) {
            return;
        }
        assert!(began.elapsed() < common::SAFETY, "{name} was not checked: {versions}");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}
