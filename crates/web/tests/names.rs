//! Names and refusals over HTTP: every refusal of the API is a 4xx with one line (a bad
//! bot name in a URL included, which used to be a 500), names follow the one rule for
//! names of the command line (length; no invisible, zero-width or direction character),
//! and a config pasted on the web is refused with the line of the command line, naming
//! the entrant and no server path.

mod common;

use common::{TOKEN, get_json, post_json, request};
use serde_json::json;

/// Percent-encodes every byte that is not a letter or a digit.
fn encode(text: &str) -> String {
    text.bytes().map(|b| if b.is_ascii_alphanumeric() { (b as char).to_string() } else { format!("%{b:02X}") }).collect()
}

fn one_line(error: &serde_json::Value) -> &str {
    let text = error["error"].as_str().unwrap_or_else(|| panic!("an error line: {error}"));
    assert!(!text.contains('\n') && !text.is_empty(), "one line: {text:?}");
    text
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_name_anywhere_is_a_4xx_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let server = common::start(dir.path(), vec![]).await;
    let addr = server.addr;
    let long = "x".repeat(300);
    // (name, what the refusal says)
    let names = [
        ("a\u{202e}b", "U+202E"),
        ("\u{200f}name", "U+200F"),
        ("zero\u{200b}width", "U+200B"),
        ("line\u{2028}sep", "U+2028"),
        ("arabic\u{061c}mark", "U+061C"),
        (long.as_str(), "columns wide"),
        ("../secrets", "letters A-Z"),
        ("a b", "letters A-Z"),
    ];
    for (name, says) in names {
        for path in [format!("/api/bots/pahtum/{}", encode(name)), format!("/api/submissions/pahtum/{}", encode(name))] {
            let response = request(addr, "GET", &path, &[], None).await;
            assert_eq!(response.status, 400, "{path}: {}", response.body);
            let text = one_line(&response.json()).to_string();
            assert!(text.contains(says), "{path}: {text}");
            assert!(!text.contains('\u{202e}') && !text.contains('\u{2028}'), "no raw invisible character: {text:?}");
        }
        let (status, body) = post_json(addr, "/api/entrants", true, &json!({ "name": name })).await;
        assert_eq!(status, 400, "{name:?}: {body}");
        assert!(one_line(&body).contains(says) && one_line(&body).contains("entrant name"), "{body}");
    }
    let (status, body) = get_json(addr, "/api/entrants").await;
    assert_eq!(status, 401, "{body}");
    let auth = format!("Bearer {TOKEN}");
    let listed = request(addr, "GET", "/api/entrants", &[("Authorization", &auth)], None).await.json();
    assert_eq!(listed, json!([]), "no entrant was made");
    // A good name that is simply unknown is a 404.
    let response = request(addr, "GET", "/api/bots/pahtum/nobody", &[], None).await;
    assert_eq!(response.status, 404, "{}", response.body);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_config_pasted_on_the_web_is_refused_as_the_command_line_refuses_it() {
    let dir = tempfile::tempdir().unwrap();
    let server = common::start(dir.path(), vec![]).await;
    let base = "name = \"t\"\ngame = \"connect4\"\n[[entrant]]\nname = \"a\"\nbot = \"random\"\n[[entrant]]\nname = \"b\"\nbot = \"greedy\"\n[[stage]]\nname = \"s\"\nformat = \"round-robin\"\n";
    // (config, what the refusal says, what it must not say)
    let cases = [
        (base.replace("bot = \"greedy\"", "bot = \"nothere\""), "entrant b: no bot \"nothere\"", "/"),
        (base.replace("name = \"b\"", "name = \"b\u{202e}evil\""), "line 7: entrant name \"b\\u{202e}evil\" holds U+202E", "\u{202e}"),
        (
            base.replace("name = \"b\"", &format!("name = \"{}\"", "y".repeat(300))),
            "line 7: entrant name",
            "yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy",
        ),
        (base.replace("round-robin", "round-robbin"), "line 11: format: unknown value \"round-robbin\"", "`"),
    ];
    for (config, says, never) in cases {
        let (status, body) = post_json(server.addr, "/api/tournaments", true, &json!({ "config": config })).await;
        assert_eq!(status, 400, "{body}");
        let text = one_line(&body);
        assert!(text.contains(says), "{text}");
        assert!(!text.contains(never), "{text:?} shows {never:?}");
        assert!(!text.contains(&dir.path().display().to_string()), "no server path: {text}");
    }
    assert_eq!(get_json(server.addr, "/api/tournaments").await.1, json!([]), "nothing started");
}
