//! An entrant's upload cannot read what is not its own, whatever its manifest says: a bot
//! whose command names an absolute path (`"/x"`, which once opened the whole filesystem
//! to it) looks for the server's data folder, another entrant's uploaded source and the
//! games' logs, and reports what it finds in its own log, which its entrant then reads
//! back through the API: it finds nothing.

mod common;

use std::net::SocketAddr;
use std::time::Duration;

use common::{SAFETY, TOKEN, call};
use serde_json::json;

/// A multipart form: plain fields, then files (field name, file name, content).
fn form(fields: &[(&str, &str)], files: &[(&str, &str, &str)]) -> String {
    let parts: Vec<(&str, Option<&str>, &[u8])> = fields
        .iter()
        .map(|(field, value)| (*field, None, value.as_bytes()))
        .chain(files.iter().map(|(field, file, content)| (*field, Some(*file), content.as_bytes())))
        .collect();
    String::from_utf8(common::multipart(&parts)).expect("a text form")
}

async fn new_entrant(addr: SocketAddr, name: &str) -> String {
    let (status, body) = call(addr, "POST", "/api/entrants", Some(TOKEN), Some(&json!({ "name": name }).to_string())).await;
    assert_eq!(status, 201, "{body}");
    body["token"].as_str().unwrap().to_string()
}

/// Alice's bot: the sample random player, with her secret in its source.
const ALICE_SECRET: &str = "ALICE-OPENING-BOOK-7f3a";

/// Mallory's bot, run as `python3 ./main.py /x`: at each move it walks the data folder
/// (whose path it is told) and `/tmp`, wherever it can, and prints on stderr
/// every file whose text holds Alice's secret and every folder of the data folder it
/// can list; then it plays the first free square (Pah-tum's native interface).
fn mallory_bot(data: &str) -> String {
    format!(
        r#"import os, sys
secret = "{head}" + "{tail}"
found = []
for top in ["{data}", "{data}/bots", "{data}/games", "/tmp"]:
    try:
        os.listdir(top)
    except OSError:
        continue
    for root, dirs, files in os.walk(top):
        for name in dirs + files:
            print("SEES", os.path.join(root, name), file=sys.stderr)
        for name in files:
            path = os.path.join(root, name)
            try:
                with open(path, "rb") as f:
                    if secret.encode() in f.read(1 << 20):
                        found.append("READ " + path)
            except OSError:
                pass
print("looked; found %d" % len(found), file=sys.stderr)
for line in found:
    print(line, file=sys.stderr)
board = sys.stdin.read()
me = "X" if board.count("X") == board.count("O") else "O"
print(board.replace("-", me, 1)[:56], end="")
"#,
        head = &ALICE_SECRET[..8],
        tail = &ALICE_SECRET[8..],
    )
}

fn alice_bot() -> String {
    let sample = std::fs::read_to_string(common::repo_root().join("bots/pahtum/python/random_bot.py")).unwrap();
    format!("# {ALICE_SECRET}\n{sample}")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upload_cannot_read_another_entrants_files_whatever_its_manifest_says() {
    common::ensure_helper();
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().canonicalize().unwrap();
    let server = common::start_with(web::Config { sandboxed: true, ..common::config(&data, vec![]) }).await;
    let addr = server.addr;
    let alice = new_entrant(addr, "alice").await;
    let mallory = new_entrant(addr, "mallory").await;

    let upload = form(&[("name", "alice-bot"), ("game", "pahtum"), ("protocol", "pahtum")], &[("source", "main.py", &alice_bot())]);
    let (status, body) = call(addr, "POST", "/api/submissions", Some(&alice), Some(&upload)).await;
    assert_eq!(status, 201, "{body}");
    // Alice's source is on the server's disk, where Mallory's bot will look for it.
    assert!(common::list_files(&data).iter().any(|f| f.ends_with("main.py")), "{:?}", common::list_files(&data));

    let manifest = "name = \"mallory-bot\"\ngame = \"pahtum\"\nprotocol = \"pahtum\"\ncommand = [\"python3\", \"./main.py\", \"/x\"]\n";
    let upload = form(
        &[("name", "mallory-bot"), ("game", "pahtum")],
        &[("manifest", "bot.toml", manifest), ("files", "main.py", &mallory_bot(&data.to_string_lossy()))],
    );
    let (status, body) = call(addr, "POST", "/api/submissions", Some(&mallory), Some(&upload)).await;
    assert_eq!(status, 201, "{body}");

    let request = json!({ "game": "pahtum", "bots": ["mallory-bot", "random"], "games": 1, "seed": 3 }).to_string();
    let (status, started) = call(addr, "POST", "/api/test", Some(&mallory), Some(&request)).await;
    assert_eq!(status, 201, "{started}");
    let id = started["games"][0].as_str().or_else(|| started["id"].as_str()).map(str::to_string).unwrap_or_else(|| panic!("{started}"));
    let path = format!("/api/games/{id}");
    let game = tokio::time::timeout(SAFETY, async {
        loop {
            let (status, game) = call(addr, "GET", &path, Some(&mallory), None).await;
            assert_eq!(status, 200, "{game}");
            if game["result"].is_object() || game["finished"] == true {
                return game;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .unwrap_or_else(|_| panic!("the game did not end within {SAFETY:?}"));
    let log: String = game["turns"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|turn| turn["side"] == 0)
        .map(|turn| turn["stderr"].as_str().unwrap_or_default().to_string())
        .collect();
    assert!(log.contains("looked; found 0"), "Mallory's bot found something, or did not look: {log}\n{game}");
    // What it sees of the data folder is its own bot's folder, nothing beside it.
    assert!(log.contains("SEES ") && log.contains("mallory-bot"), "{log}");
    for line in log.lines().filter(|line| line.starts_with("SEES ")) {
        let seen = &line["SEES ".len()..];
        // The folders on the way to its own (the data folder's path among them) show.
        let on_the_way = data.starts_with(seen);
        let own = ["bots", "bots/pahtum", "bots/pahtum/mallory-bot"].iter().any(|p| seen.ends_with(p)) || seen.contains("/mallory-bot/");
        let own = own || on_the_way;
        assert!(own, "Mallory's bot sees {seen}: {log}");
    }
    assert!(!log.contains("alice") && !log.contains(ALICE_SECRET) && !log.contains("READ "), "{log}");
}
