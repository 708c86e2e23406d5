//! Uploads over HTTP (multipart, as the submit page sends them), inside the sandbox: a C
//! source compiles and passes the entry check, a compile error comes back with the
//! compiler's words, every malformed or refused upload gets a clear 4xx and stores
//! nothing, the organiser's freeze and a running tournament hold a bot frozen, and a
//! registered bot plays on the testing ground and enters tournaments with its upload time.

mod common;

use std::time::Duration;

use common::{TOKEN, get_json, list_files, post_json, request};
use serde_json::{Value, json};

const BOUNDARY: &str = "----arbiter-test-boundary";

/// One part of a form: its name, file name (for files) and content.
struct Part<'a>(&'a str, Option<&'a str>, &'a str);

fn form(parts: &[Part]) -> String {
    let mut body = String::new();
    for Part(name, file, content) in parts {
        body.push_str(&format!("--{BOUNDARY}\r\n"));
        match file {
            Some(file) => body.push_str(&format!(
                "Content-Disposition: form-data; name=\"{name}\"; filename=\"{file}\"\r\nContent-Type: application/octet-stream\r\n\r\n"
            )),
            None => body.push_str(&format!("Content-Disposition: form-data; name=\"{name}\"\r\n\r\n")),
        }
        body.push_str(content);
        body.push_str("\r\n");
    }
    body.push_str(&format!("--{BOUNDARY}--\r\n"));
    body
}

async fn upload(addr: std::net::SocketAddr, token: Option<&str>, body: &str) -> (u16, Value) {
    let content_type = format!("multipart/form-data; boundary={BOUNDARY}");
    let auth = token.map(|t| format!("Bearer {t}"));
    let mut headers = vec![("Content-Type", content_type.as_str())];
    if let Some(auth) = &auth {
        headers.push(("Authorization", auth.as_str()));
    }
    let response = request(addr, "POST", "/api/submissions", &headers, Some(body)).await;
    (response.status, response.json())
}

fn data(file: &str) -> String {
    std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(file)).unwrap()
}

fn sandboxed_config(data: &std::path::Path) -> web::Config {
    web::Config { sandboxed: true, ..common::config(data, vec![]) }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn uploads_compile_register_and_refuse_what_they_must() {
    common::ensure_helper();
    let dir = tempfile::tempdir().unwrap();
    let server = common::start_with(sandboxed_config(dir.path())).await;
    let addr = server.addr;
    let good = data("greedy_pahtum.c");
    let broken = data("syntax_error.c");
    let before = list_files(dir.path());

    // Refusals: status, a piece of the message; none of them stores anything.
    let cases: Vec<(&str, Option<&str>, String, u16, &str)> = vec![
        (
            "no token",
            None,
            form(&[Part("name", None, "a"), Part("game", None, "pahtum"), Part("source", Some("a.c"), &good)]),
            401,
            "token",
        ),
        (
            "wrong token",
            Some("nope-nope"),
            form(&[Part("name", None, "a"), Part("source", Some("a.c"), &good)]),
            403,
            // Entrants upload too: a token that is nobody's is not valid.
            "token is not valid",
        ),
        ("no program", Some(TOKEN), form(&[Part("name", None, "a"), Part("game", None, "pahtum")]), 400, "missing the program"),
        ("no name", Some(TOKEN), form(&[Part("game", None, "pahtum"), Part("source", Some("a.c"), &good)]), 400, "name"),
        ("no game", Some(TOKEN), form(&[Part("name", None, "a"), Part("source", Some("a.c"), &good)]), 400, "game is missing"),
        (
            "unknown game",
            Some(TOKEN),
            form(&[Part("name", None, "a"), Part("game", None, "checkers"), Part("source", Some("a.c"), &good)]),
            400,
            "unknown game",
        ),
        (
            "bad name",
            Some(TOKEN),
            form(&[Part("name", None, "a b/c"), Part("game", None, "pahtum"), Part("source", Some("a.c"), &good)]),
            400,
            "bot name \"",
        ),
        (
            "unknown language",
            Some(TOKEN),
            form(&[Part("name", None, "a"), Part("game", None, "pahtum"), Part("source", Some("a.cob"), &good)]),
            400,
            "unknown language",
        ),
        (
            "empty file",
            Some(TOKEN),
            form(&[Part("name", None, "a"), Part("game", None, "pahtum"), Part("source", Some("a.c"), "")]),
            400,
            "is empty",
        ),
        (
            "unknown field",
            Some(TOKEN),
            form(&[Part("name", None, "a"), Part("colour", None, "red"), Part("source", Some("a.c"), &good)]),
            400,
            "unknown field",
        ),
        (
            "both kinds",
            Some(TOKEN),
            form(&[
                Part("name", None, "a"),
                Part("game", None, "pahtum"),
                Part("source", Some("a.c"), &good),
                Part("manifest", Some("bot.toml"), "name = \"a\""),
            ]),
            400,
            "not both",
        ),
        (
            "wrong interface",
            Some(TOKEN),
            form(&[
                Part("name", None, "a"),
                Part("game", None, "pahtum"),
                Part("protocol", None, "legions"),
                Part("source", Some("a.c"), &good),
            ]),
            422,
            "legions",
        ),
        (
            "unknown interface",
            Some(TOKEN),
            form(&[
                Part("name", None, "a"),
                Part("game", None, "pahtum"),
                Part("protocol", None, "telnet"),
                Part("source", Some("a.c"), &good),
            ]),
            400,
            "unknown interface",
        ),
        (
            "bad options",
            Some(TOKEN),
            form(&[
                Part("name", None, "a"),
                Part("game", None, "pahtum"),
                Part("options", None, "[1]"),
                Part("source", Some("a.c"), &good),
            ]),
            400,
            "options",
        ),
        (
            "file over 1 MiB",
            Some(TOKEN),
            form(&[Part("name", None, "a"), Part("game", None, "pahtum"), Part("source", Some("a.c"), &"x".repeat(1024 * 1024 + 1))]),
            413,
            "too large",
        ),
        (
            "manifest of no game",
            Some(TOKEN),
            form(&[
                Part("manifest", Some("bot.toml"), "name = \"m\"\ngame = \"checkers\"\nprotocol = \"arbiter\"\ncommand = [\"./x\"]\n"),
                Part("files", Some("x"), "#!/bin/sh\n"),
            ]),
            422,
            "checkers",
        ),
        (
            "manifest without its program",
            Some(TOKEN),
            form(&[Part(
                "manifest",
                Some("bot.toml"),
                "name = \"m\"\ngame = \"pahtum\"\nprotocol = \"pahtum\"\ncommand = [\"./missing\"]\n",
            )]),
            422,
            "missing",
        ),
        ("malformed form", Some(TOKEN), "this is not a multipart body".to_string(), 400, "bad upload"),
    ];
    for (what, token, body, status, needle) in &cases {
        let (got, answer) = upload(addr, *token, body).await;
        let error = answer["error"].as_str().unwrap_or_default().to_string();
        assert_eq!(got, *status, "{what}: {answer}");
        assert!(error.to_lowercase().contains(&needle.to_lowercase()), "{what}: {error:?} should mention {needle:?}");
    }
    // An upload beyond the body limit is cut off with 413 (the server may stop reading).
    let huge = form(&[Part("name", None, "a"), Part("game", None, "pahtum"), Part("source", Some("a.c"), &"y".repeat(5 * 1024 * 1024))]);
    let status = raw_status(addr, &huge).await;
    assert_eq!(status, 413, "an upload over the limit");
    assert_eq!(list_files(dir.path()), before, "no refused upload stored anything");

    // A compile error: 422 with the compiler's words; nothing stored.
    let (status, answer) = upload(
        addr,
        Some(TOKEN),
        &form(&[Part("name", None, "broken"), Part("game", None, "pahtum"), Part("source", Some("b.c"), &broken)]),
    )
    .await;
    assert_eq!(status, 422, "{answer}");
    assert!(answer["log"].as_str().unwrap().contains("error"), "{answer}");
    assert_eq!(list_files(dir.path()), before, "a failed compile stored nothing");

    // A good C source: compiled in the sandbox, entry check passed, version 1.
    let good_form = form(&[
        Part("name", None, "student"),
        Part("game", None, "pahtum"),
        Part("protocol", None, "pahtum"),
        Part("source", Some("greedy.c"), &good),
    ]);
    let (status, answer) = upload(addr, Some(TOKEN), &good_form).await;
    assert_eq!(status, 201, "{answer}");
    let version = &answer["version"];
    assert_eq!(version["version"], 1);
    assert_eq!(version["language"], "c");
    assert_eq!(version["entry_check"]["passed"], true, "{version}");
    let first_upload = version["uploaded"].as_str().unwrap().to_string();
    let (_, listed) = get_json(addr, "/api/submissions").await;
    assert_eq!(listed.as_array().unwrap().len(), 1);
    let (_, bots) = get_json(addr, "/api/bots?game=pahtum").await;
    assert!(bots.as_array().unwrap().iter().any(|b| b["name"] == "student" && b["kind"] == "registered"));

    // A second upload is version 2; version 1 stays listed with its own time.
    tokio::time::sleep(Duration::from_millis(5)).await;
    let (status, answer) = upload(addr, Some(TOKEN), &good_form).await;
    assert_eq!(status, 201, "{answer}");
    assert_eq!(answer["version"]["version"], 2);
    let (status, versions) = get_json(addr, "/api/submissions/pahtum/student").await;
    assert_eq!(status, 200);
    let versions = versions.as_array().unwrap();
    assert_eq!(versions.len(), 2);
    assert_eq!(versions[0]["uploaded"], first_upload.as_str());
    assert_ne!(versions[1]["uploaded"], first_upload.as_str());
    assert_eq!(get_json(addr, "/api/submissions/pahtum/nobody").await.0, 404);

    // The registered bot plays on the testing ground (sandboxed).
    let (status, started) = post_json(addr, "/api/test", false, &json!({ "game": "pahtum", "bots": ["student", "random"] })).await;
    assert_eq!(status, 201, "{started}");
    let id = started["games"][0].as_str().unwrap().to_string();
    let game = wait_finished(addr, &id).await;
    assert_eq!(game["names"][0], "student");
    assert_eq!(game["result"]["termination"], "rules", "{}", game["result"]);

    // The organiser's freeze refuses uploads until lifted.
    let (status, _) = post_json(addr, "/api/freeze", true, &json!({ "frozen": true })).await;
    assert_eq!(status, 200);
    let files = list_files(dir.path());
    let (status, answer) = upload(addr, Some(TOKEN), &good_form).await;
    assert_eq!((status, answer["error"].as_str().unwrap().contains("frozen")), (409, true), "{answer}");
    assert_eq!(list_files(dir.path()), files);
    post_json(addr, "/api/freeze", true, &json!({ "frozen": false })).await;

    // A tournament of the registered bots: the entrant carries its upload time, and while
    // it runs the bot takes no upload.
    let config = "name = \"Uploads\"\ngame = \"pahtum\"\nseed = 1\n\n[[entrant]]\nname = \"random\"\nbot = \"random\"\n\n[[stage]]\nformat = \"round-robin\"\nmatches = 30\ndeals = 1\nswap = true\nscoring = \"match-3-1-0\"\nopenings = { default = false, generate = 30 }\n";
    let (status, started) = post_json(addr, "/api/tournaments", true, &json!({ "config": config, "entrants": "both" })).await;
    assert_eq!(status, 201, "{started}");
    let tid = started["id"].as_str().unwrap().to_string();
    let (status, answer) = upload(addr, Some(TOKEN), &good_form).await;
    assert_eq!(status, 409, "{answer}");
    assert!(answer["error"].as_str().unwrap().contains("frozen until the tournament ends"), "{answer}");
    let t = server.app.tournaments.get(&tid).unwrap();
    let mut entrants = Vec::new();
    for _ in 0..300 {
        entrants = t.store.entrants().await.unwrap();
        if !entrants.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let student = entrants.iter().find(|e| e.name == "student").expect("the registered bot entered");
    assert_eq!(student.submitted.as_deref(), versions[1]["uploaded"].as_str(), "the upload time is the entrant's submission time");
    assert!(student.bot.ends_with("/pahtum/student/v2"), "{}", student.bot);
}

/// Sends a request whose body may be cut off by the server; the status it answered.
async fn raw_status(addr: std::net::SocketAddr, body: &str) -> u16 {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "POST /api/submissions HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nAuthorization: Bearer {TOKEN}\r\nContent-Type: multipart/form-data; boundary={BOUNDARY}\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    let _ = stream.write_all(head.as_bytes()).await;
    let _ = stream.write_all(body.as_bytes()).await;
    let mut raw = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(30), stream.read_to_end(&mut raw)).await;
    let text = String::from_utf8_lossy(&raw);
    text.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0)
}

async fn wait_finished(addr: std::net::SocketAddr, id: &str) -> Value {
    for _ in 0..600 {
        let (status, game) = get_json(addr, &format!("/api/games/{id}")).await;
        assert_eq!(status, 200);
        if game["live"] == false {
            return game;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("game {id} did not finish within a minute");
}

/// Files of the organiser's outside the data folder that a hostile build aims at: each
/// holds "keep" with mode 0600.
fn victims(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(dir).unwrap();
    ["program", "manifest", "meta"]
        .iter()
        .map(|name| {
            let path = dir.join(name);
            std::fs::write(&path, "keep\n").unwrap();
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
            path
        })
        .collect()
}

fn assert_untouched(victims: &[std::path::PathBuf]) {
    use std::os::unix::fs::PermissionsExt;
    for path in victims {
        assert_eq!(std::fs::read_to_string(path).unwrap(), "keep\n", "{} was written", path.display());
        let mode = std::fs::metadata(path).unwrap().permissions().mode() & 0o7777;
        assert_eq!(mode, 0o600, "{} was chmod'ed", path.display());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_uploads_build_cannot_make_the_server_write_or_chmod_outside() {
    common::ensure_helper();
    let dir = tempfile::tempdir().unwrap();
    let data_dir = dir.path().join("data");
    let server = common::start_with(sandboxed_config(&data_dir)).await;
    let addr = server.addr;
    let victims = victims(&dir.path().join("victims"));
    let [program, manifest_victim, meta_victim] = [&victims[0], &victims[1], &victims[2]].map(|p| p.display().to_string());
    let bot = data("greedy_pahtum.py");
    let manifest = |name: &str, command: &str, build: &str| {
        format!("name = \"{name}\"\ngame = \"pahtum\"\nprotocol = \"pahtum\"\ncommand = {command}\nbuild = [\"sh\", \"-c\", {build:?}]\n")
    };

    // The program a link to a file outside: the server would have chmod'ed it 0755.
    let text = manifest("linker", "[\"./prog\"]", &format!("ln -sf {program} prog"));
    let (status, body) =
        upload(addr, Some(TOKEN), &form(&[Part("manifest", Some("bot.toml"), &text), Part("files", Some("bot.py"), &bot)])).await;
    assert_eq!(status, 422, "{body}");
    let log = body["log"].as_str().unwrap();
    assert!(log.ends_with("the build left ./prog, which is not a regular file: links and special files are refused"), "{log}");
    assert!(!data_dir.join("bots/pahtum/linker").exists(), "nothing is stored");

    // The server's own files prepared as links to files outside: it writes its own.
    let build =
        format!("cp bot.py prog; ln -s {manifest_victim} bot.toml; ln -s {meta_victim} .meta.json.tmp; ln -s {meta_victim} meta.json");
    let text = manifest("planter", "[\"python3\", \"./prog\"]", &build);
    let (status, body) =
        upload(addr, Some(TOKEN), &form(&[Part("manifest", Some("bot.toml"), &text), Part("files", Some("bot.py"), &bot)])).await;
    assert_eq!(status, 201, "{body}");
    let version = data_dir.join("bots/pahtum/planter/v1");
    for file in ["bot.toml", "meta.json", "prog", "bot.py"] {
        let meta = std::fs::symlink_metadata(version.join(file)).unwrap();
        assert!(meta.is_file(), "{file} is a regular file of the server's");
    }
    assert!(!version.join(".meta.json.tmp").exists());
    assert!(std::fs::read_to_string(version.join("bot.toml")).unwrap().contains("name = \"planter\""));
    assert_eq!(get_json(addr, "/api/submissions/pahtum/planter").await.1[0]["version"], 1);

    // A line of the attacker's through the author field.
    let text = "name = \"author\"\nauthor = \"me\\necho pwned\"\ngame = \"pahtum\"\nprotocol = \"pahtum\"\ncommand = [\"python3\", \"./bot.py\"]\n";
    let (status, body) =
        upload(addr, Some(TOKEN), &form(&[Part("manifest", Some("bot.toml"), text), Part("files", Some("bot.py"), &bot)])).await;
    assert_eq!(status, 422, "{body}");
    assert!(body["error"].as_str().unwrap().contains("author \"me\\u{a}echo pwned\" holds U+000A, a control character"), "{body}");

    assert_untouched(&victims);
}

/// A Gomoku bot of the project's protocol in Python; `{extra}` runs before each move.
const PROJECT_BOT: &str = "import sys\nfor line in sys.stdin:\n    w = line.split()\n    if w[0] == 'arbiter':\n        print('ready', flush=True)\n    elif w[0] == 'legal':\n        legal = w[1:]\n    elif w[0] == 'go':\n        {extra}\n        print('move ' + legal[0], flush=True)\n    elif w[0] == 'quit':\n        break\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upload_of_the_project_protocol_gets_the_doctors_report() {
    common::ensure_helper();
    let dir = tempfile::tempdir().unwrap();
    let server = common::start_with(sandboxed_config(dir.path())).await;
    let send = |name: &'static str, extra: &str| {
        let code = PROJECT_BOT.replace("{extra}", extra);
        form(&[
            Part("name", None, name),
            Part("game", None, "gomoku"),
            Part("protocol", None, "arbiter"),
            Part("source", Some("bot.py"), &code),
        ])
    };
    let (status, answer) = upload(server.addr, Some(TOKEN), &send("fit", "pass")).await;
    assert_eq!(status, 201, "{answer}");
    assert_eq!(answer["doctor"]["fit"], true, "{answer}");
    assert_eq!(answer["doctor"]["moves"], 6, "{answer}");

    let (status, answer) = upload(server.addr, Some(TOKEN), &send("chatty", "print('thinking', flush=True)")).await;
    assert_eq!(status, 201, "{answer}");
    let doctor = &answer["doctor"];
    assert_eq!(doctor["fit"], false, "{answer}");
    let problem = &doctor["problems"][0];
    assert_eq!(problem["title"], "writes to stdout besides its answers", "{answer}");
    assert!(problem["explanation"].as_str().unwrap().starts_with("before its move it wrote 1 other line(s) (\"thinking\")"), "{answer}");
    let exchange: Vec<&str> = problem["exchange"].as_array().unwrap().iter().map(|l| l.as_str().unwrap()).collect();
    assert_eq!(exchange[exchange.len() - 3..], ["> go", "< thinking", "< move A0"], "{answer}");

    // An interface the doctor does not speak: its report comes from two games played.
    let parts = [
        Part("name", None, "native"),
        Part("game", None, "pahtum"),
        Part("protocol", None, "pahtum"),
        Part("source", Some("a.c"), &data("greedy_pahtum.c")),
    ];
    let (status, answer) = upload(server.addr, Some(TOKEN), &form(&parts)).await;
    assert_eq!(status, 201, "{answer}");
    assert_eq!(answer["doctor"]["fit"], true, "{answer}");
    assert!(answer["doctor"]["moves"].as_u64().unwrap() > 6, "{answer}");
}

/// A file of the repository, as text.
fn repo_text(path: &str) -> String {
    std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(path)).unwrap()
}

/// Java and Go through the real server, compiled in the sandbox: the starter kits'
/// single files (named by their extension, the interface by the kit's marker), and the
/// seed's Java TCP client in two files (its main class found, both compiled), each
/// examined by the doctor and played in the entry check to the end.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn java_and_go_uploads_compile_in_the_sandbox_and_play() {
    common::ensure_helper();
    let dir = tempfile::tempdir().unwrap();
    let server = common::start_with(sandboxed_config(dir.path())).await;
    let java = repo_text("crates/arbiter/kits/Bot.java").replace("{{NAME}}", "duke");
    let go = repo_text("crates/arbiter/kits/bot.go").replace("{{NAME}}", "gopher");
    let client = repo_text("bots/connect4-tcp/java/C4Client.java");
    let random = repo_text("bots/connect4-tcp/java/RandomBot.java");
    // (name, parts' files (field, file name, text), language, interface)
    type Files<'a> = Vec<(&'a str, &'a str, &'a str)>;
    let cases: [(&str, Files, &str, &str); 3] = [
        ("duke", vec![("source", "Bot.java", &java)], "java", "arbiter"),
        ("gopher", vec![("source", "bot.go", &go)], "go", "arbiter"),
        ("duke-tcp", vec![("files", "C4Client.java", &client), ("files", "RandomBot.java", &random)], "java", "connect4-tcp"),
    ];
    for (name, files, language, protocol) in cases {
        let mut parts = vec![Part("name", None, name), Part("game", None, "connect4")];
        if protocol != "arbiter" {
            parts.push(Part("protocol", None, protocol));
        }
        parts.extend(files.iter().map(|(field, file, text)| Part(field, Some(file), text)));
        let (status, answer) = upload(server.addr, Some(TOKEN), &form(&parts)).await;
        assert_eq!(status, 201, "{name}: {answer}");
        let version = &answer["version"];
        assert_eq!(version["language"], language, "{name}: {answer}");
        assert_eq!(version["protocol"], protocol, "{name}: {answer}");
        assert_eq!(answer["doctor"]["fit"], true, "{name}: {answer}");
        let games = version["entry_check"]["games"].as_array().unwrap();
        assert_eq!(games.len(), 2, "{name}: {answer}");
        for game in games {
            assert_eq!(game["termination"], "by the rules", "{name}: {answer}");
        }
    }
}
