//! Uploads as a class sends them, inside the sandbox: a kit's single file with the
//! form's defaults (its interface read from the kit, not the game's native one), in
//! Python and JavaScript; a kit's folder zipped with its `bot.toml` (`game = "any"`);
//! several files without a manifest; hostile zips refused in one line; a bot that
//! answers with a sentence named within seconds while its check is followed as it goes;
//! a version that fails its entry check is kept out of the ladder.

mod common;

use std::net::Ipv4Addr;
use std::time::{Duration, Instant};

use common::{TOKEN, get_json, multipart, post_json, upload_from, zip_of};
use serde_json::{Value, json};

const HERE: Ipv4Addr = Ipv4Addr::LOCALHOST;

/// A bot of the project's protocol in Python as the kits are (the marker names the
/// interface); `{go}` answers `go`.
const PY: &str = "#!/usr/bin/env python3\n# a starter bot (arbiter-interface: arbiter)\nimport sys, random\nlegal = []\nfor line in sys.stdin:\n    w = line.split()\n    if not w: continue\n    if w[0] == 'arbiter': print('name kit', flush=True); print('ready', flush=True)\n    elif w[0] == 'legal': legal = w[1:]\n    elif w[0] == 'go': {go}\n    elif w[0] == 'quit': break\n";

const JS: &str = "// a starter bot (arbiter-interface: arbiter)\nconst rl = require('readline').createInterface({ input: process.stdin });\nlet legal = [];\nrl.on('line', line => {\n  const w = line.trim().split(/\\s+/);\n  if (w[0] === 'arbiter') console.log('ready');\n  else if (w[0] === 'legal') legal = w.slice(1);\n  else if (w[0] === 'go') console.log('move ' + legal[0]);\n  else if (w[0] === 'quit') process.exit(0);\n});\n";

fn python(go: &str) -> String {
    PY.replace("{go}", go)
}

const GOOD_GO: &str = "print('move ' + random.choice(legal), flush=True)";

async fn upload(addr: std::net::SocketAddr, path: &str, parts: &[(&str, Option<&str>, &[u8])]) -> (u16, Value) {
    upload_from(HERE, addr, path, TOKEN, &multipart(parts)).await
}

fn sandboxed(dir: &std::path::Path) -> web::Config {
    web::Config { sandboxed: true, ..common::config(dir, vec![]) }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kit_bots_upload_as_they_come() {
    common::ensure_helper();
    let dir = tempfile::tempdir().unwrap();
    let server = common::start_with(sandboxed(dir.path())).await;
    let addr = server.addr;
    let py = python(GOOD_GO);
    // (name, the form's parts beyond the name and the game, language, interface)
    let readme = b"# my bot\n";
    let manifest = b"name = \"kit-zip\"\ngame = \"any\"\nprotocol = \"arbiter\"\ncommand = [\"python3\", \"./bot.py\"]\n";
    let kit_zip = zip_of(&[
        ("kit-zip/bot.toml", manifest),
        ("kit-zip/bot.py", py.as_bytes()),
        ("kit-zip/notes.txt", readme),
        ("kit-zip/.gitignore", b"bot\n"),
    ]);
    let header = b"static int first(void) { return 0; }\n";
    let c = b"#include <stdio.h>\n#include <string.h>\n#include \"pick.h\"\nint main(void) { char line[4096]; char legal[4096] = \"\";\n  while (fgets(line, sizeof line, stdin)) {\n    if (!strncmp(line, \"arbiter\", 7)) { puts(\"ready\"); fflush(stdout); }\n    else if (!strncmp(line, \"legal \", 6)) strcpy(legal, line + 6);\n    else if (!strncmp(line, \"go\", 2)) { char *m = strtok(legal, \" \\n\"); printf(\"move %s\\n\", m + first()); fflush(stdout); }\n    else if (!strncmp(line, \"quit\", 4)) break; }\n  return 0; }\n";
    type Parts<'a> = Vec<(&'a str, Option<&'a str>, &'a [u8])>;
    let cases: Vec<(&str, Parts, Value, &str)> = vec![
        ("kit-py", vec![("source", Some("bot.py"), py.as_bytes())], json!("python"), "arbiter"),
        ("kit-js", vec![("source", Some("bot.js"), JS.as_bytes())], json!("javascript"), "arbiter"),
        ("kit-zip", vec![("files", Some("kit-zip.zip"), &kit_zip)], Value::Null, "arbiter"),
        ("two-files", vec![("files", Some("main.c"), c), ("files", Some("pick.h"), header)], json!("c"), "arbiter"),
    ];
    for (name, parts, language, interface) in cases {
        let mut form: Vec<(&str, Option<&str>, &[u8])> =
            vec![("name", None, name.as_bytes()), ("game", None, b"connect4"), ("protocol", None, b"auto")];
        form.extend(parts);
        let (status, answer) = upload(addr, "/api/submissions", &form).await;
        assert_eq!(status, 201, "{name}: {answer}");
        let version = &answer["version"];
        assert_eq!((version["game"].as_str(), version["protocol"].as_str()), (Some("connect4"), Some(interface)), "{name}: {version}");
        assert_eq!(version["language"], language, "{name}");
        assert_eq!(version["entry_check"]["passed"], true, "{name}: {}", version["entry_check"]);
        assert!(version["entry_check"]["summary"].as_str().unwrap().starts_with("passed: 2 games played to the end without a fault"));
        assert_eq!(answer["doctor"]["fit"], true, "{name}: {}", answer["doctor"]);
    }
    // A file with no marker and no interface named: the project's own, not connect4-tcp.
    let plain = python(GOOD_GO).replace("(arbiter-interface: arbiter)", "");
    let (status, answer) = upload(
        addr,
        "/api/submissions",
        &[("name", None, b"plain"), ("game", None, b"connect4"), ("source", Some("bot.py"), plain.as_bytes())],
    )
    .await;
    assert_eq!((status, answer["version"]["protocol"].as_str()), (201, Some("arbiter")), "{answer}");

    // Hostile zips: one line each, nothing stored.
    let before = common::list_files(dir.path());
    let link = {
        let mut out = std::io::Cursor::new(Vec::new());
        let mut writer = zip::ZipWriter::new(&mut out);
        writer.add_symlink("bot.py", "/etc/shadow", zip::write::SimpleFileOptions::default()).unwrap();
        writer.finish().unwrap();
        out.into_inner()
    };
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (zip_of(&[("../evil.py", b"x")]), "'..' in the path"),
        (zip_of(&[("/abs.py", b"x")]), "an absolute path"),
        (link, "is a link"),
        (zip_of(&[("a/b/c.py", b"x"), ("a/d.py", b"y")]), "is in a folder"),
        (zip_of(&[("a.py", b"x"), ("b.py", b"y")]), "several source files (a.py, b.py)"),
    ];
    for (zip, says) in cases {
        let (status, answer) =
            upload(addr, "/api/submissions", &[("name", None, b"evil"), ("game", None, b"connect4"), ("files", Some("evil.zip"), &zip)])
                .await;
        assert_eq!(status, 400, "{says}: {answer}");
        let line = answer["error"].as_str().unwrap();
        assert!(line.contains(says) && !line.contains('\n'), "{line:?} should say {says:?}");
    }
    assert_eq!(common::list_files(dir.path()), before, "no refused upload stored anything");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sentence_is_named_in_seconds_and_a_failed_check_stays_out_of_the_ladder() {
    common::ensure_helper();
    let dir = tempfile::tempdir().unwrap();
    let server = common::start_with(sandboxed(dir.path())).await;
    let addr = server.addr;
    let (status, ladder) = post_json(addr, "/api/ladders", true, &json!({ "game": "connect4", "bosses": ["random"] })).await;
    assert_eq!(status, 201, "{ladder}");
    let ladder = ladder["id"].as_i64().unwrap();
    // The upload answers once built; the check is followed as it goes.
    let began = Instant::now();
    let sentence = python("print('I think column 2 is nice :)', flush=True)");
    let form = [("name", None, &b"talker"[..]), ("game", None, b"connect4"), ("source", Some("bot.py"), sentence.as_bytes())];
    let (status, answer) = upload(addr, "/api/submissions?wait=false", &form).await;
    assert_eq!(status, 201, "{answer}");
    assert!(answer["version"]["entry_check"].is_null(), "answered before the check: {answer}");
    let check = answer["check"].as_str().unwrap().to_string();
    assert_eq!(check, "/api/submissions/connect4/talker/1/check");
    let mut seen_lines = false;
    let done = loop {
        let (status, progress) = get_json(addr, &check).await;
        assert_eq!(status, 200, "{progress}");
        let lines = progress["check"]["lines"].as_array().unwrap();
        seen_lines |= lines.iter().any(|l| l.as_str().unwrap().ends_with("> go"));
        if progress["check"]["state"] == "done" {
            break progress;
        }
        assert!(began.elapsed() < Duration::from_secs(60), "{progress}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert!(seen_lines || done["check"]["lines"].as_array().unwrap().is_empty(), "the exchange was shown as it went");
    let doctor = &done["check"]["doctor"];
    assert_eq!(doctor["problems"][0]["title"], "answer in the wrong format", "{doctor}");
    assert!(
        doctor["problems"][0]["explanation"].as_str().unwrap().contains("it answered \"I think column 2 is nice :)\" to \"go\""),
        "{doctor}"
    );
    assert!(began.elapsed() < Duration::from_secs(10), "named after {:?}", began.elapsed());
    let entry = &done["check"]["entry_check"];
    assert_eq!(entry["passed"], false, "{entry}");
    assert!(entry["summary"].as_str().unwrap().contains("the doctor found answer in the wrong format"), "{entry}");

    // A bot that crashes at its first move fails too; a good one passes; only the good
    // one enters the ladder.
    let crash = python("sys.exit(3)");
    for (name, code) in [("crasher", crash), ("good", python(GOOD_GO))] {
        let (status, answer) = upload(
            addr,
            "/api/submissions",
            &[("name", None, name.as_bytes()), ("game", None, b"connect4"), ("source", Some("bot.py"), code.as_bytes())],
        )
        .await;
        assert_eq!(status, 201, "{answer}");
        assert_eq!(answer["version"]["entry_check"]["passed"], name == "good", "{name}: {}", answer["version"]["entry_check"]);
    }
    let began = Instant::now();
    let standings = loop {
        let (_, standings) = get_json(addr, &format!("/api/ladders/{ladder}")).await;
        if standings["games"].as_i64().unwrap_or(0) >= 2 {
            break standings;
        }
        assert!(began.elapsed() < common::SAFETY, "{standings}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let bots: Vec<&str> =
        standings["standings"].as_array().unwrap().iter().filter(|p| p["boss"] == false).map(|p| p["bot"].as_str().unwrap()).collect();
    assert_eq!(bots, ["good"], "{standings}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_zip_cannot_upload_a_version_of_another_entrants_bot() {
    let dir = tempfile::tempdir().unwrap();
    let server = common::start(dir.path(), vec![]).await;
    let addr = server.addr;
    let tokens = common::entrants(addr, &["ann", "bob"]).await;
    let bot = python(GOOD_GO);
    let form = multipart(&[("name", None, b"bob-bot"), ("game", None, b"connect4"), ("source", Some("bot.py"), bot.as_bytes())]);
    let (status, answer) = upload_from(HERE, addr, "/api/submissions", &tokens["bob"], &form).await;
    assert_eq!(status, 201, "{answer}");
    // Ann's zip holds a bot.toml naming Bob's bot; the form names no bot.
    let manifest = b"name = \"bob-bot\"\ngame = \"connect4\"\nprotocol = \"arbiter\"\ncommand = [\"python3\", \"./bot.py\"]\n";
    let zip = zip_of(&[("bot.toml", manifest), ("bot.py", bot.as_bytes())]);
    for field in ["source", "files"] {
        let form = multipart(&[("game", None, b"connect4"), (field, Some("takeover.zip"), &zip)]);
        let (status, answer) = upload_from(HERE, addr, "/api/submissions", &tokens["ann"], &form).await;
        assert_eq!(status, 403, "{field}: {answer}");
        assert!(answer["error"].as_str().unwrap().contains("connect4 bot bob-bot belongs to another entrant"), "{answer}");
    }
    let (_, versions) = get_json(addr, "/api/submissions/connect4/bob-bot").await;
    assert_eq!(versions.as_array().unwrap().len(), 1, "Bob's bot has his one version: {versions}");
}
