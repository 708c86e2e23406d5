//! The organiser's day over HTTP: a class let in at once (a list of names, or a CSV),
//! each with a working token of their own, all or nobody (a bad, repeated or taken name
//! refuses the whole request, naming every one), tokens revoked and reissued.

mod common;

use common::{TOKEN, post_json, request};
use serde_json::{Value, json};

async fn me(addr: std::net::SocketAddr, token: &str) -> (u16, Value) {
    let auth = format!("Bearer {token}");
    let response = request(addr, "GET", "/api/me", &[("Authorization", &auth)], None).await;
    (response.status, response.json())
}

async fn listed(addr: std::net::SocketAddr) -> Vec<String> {
    let auth = format!("Bearer {TOKEN}");
    let list = request(addr, "GET", "/api/entrants", &[("Authorization", &auth)], None).await.json();
    list.as_array().unwrap().iter().map(|e| e["name"].as_str().unwrap().to_string()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn thirty_entrants_at_once_each_with_a_token_of_their_own() {
    let dir = tempfile::tempdir().unwrap();
    let server = common::start(dir.path(), vec![]).await;
    let addr = server.addr;
    let names: Vec<String> = (1..=30).map(|n| format!("student-{n:02}")).collect();
    let (status, body) = post_json(addr, "/api/entrants", true, &json!({ "names": names })).await;
    assert_eq!(status, 201, "{body}");
    let made = body["entrants"].as_array().unwrap();
    assert_eq!(made.len(), 30);
    let mut tokens = std::collections::BTreeSet::new();
    for (entrant, name) in made.iter().zip(&names) {
        assert_eq!(entrant["name"], name.as_str());
        let token = entrant["token"].as_str().unwrap();
        assert!(tokens.insert(token.to_string()), "each token is its own");
        assert_eq!(me(addr, token).await.1, json!({ "role": "entrant", "name": name }));
    }
    assert_eq!(listed(addr).await, names);
    // Only the organiser lets people in.
    let (status, _) = post_json(addr, "/api/entrants", false, &json!({ "names": ["x"] })).await;
    assert_eq!(status, 401);

    // A CSV export of a class list: a header, quotes, blank lines, more columns.
    let csv = "name,email\n\"kim\",kim@example.org\n\nlee , lee@example.org\n";
    let (status, body) = post_json(addr, "/api/entrants", true, &json!({ "csv": csv })).await;
    assert_eq!(status, 201, "{body}");
    let names: Vec<&str> = body["entrants"].as_array().unwrap().iter().map(|e| e["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["kim", "lee"]);

    // All or nobody: every bad name is named, nobody is let in.
    let before = listed(addr).await;
    let cases = [
        (json!({ "names": ["ok-1", "bad name", "ok-2", "x\u{200f}y"] }), 400, vec!["bad name", "U+200F", "nobody was let in"]),
        (json!({ "names": ["twin", "twin"] }), 400, vec!["twin is listed twice"]),
        (json!({ "names": ["new-one", "kim", "student-03"] }), 409, vec!["already entrants: kim, student-03"]),
        (json!({ "csv": "\n\n" }), 400, vec!["no names"]),
        (json!({ "names": (0..301).map(|n| format!("n{n}")).collect::<Vec<_>>() }), 400, vec!["at most 300"]),
        (json!({ "name": "a", "names": ["b"] }), 400, vec!["give one of"]),
    ];
    for (request, status, words) in cases {
        let (got, body) = post_json(addr, "/api/entrants", true, &request).await;
        assert_eq!(got, status, "{request}: {body}");
        let line = body["error"].as_str().unwrap();
        for word in words {
            assert!(line.contains(word), "{line:?} should say {word:?}");
        }
        assert!(!line.contains('\n'));
    }
    assert_eq!(listed(addr).await, before, "nobody was let in");

    // Revoke, then reissue: the old token stops, the new one works.
    let old = made[0]["token"].as_str().unwrap();
    let (status, _) = post_json(addr, "/api/entrants/student-01/revoke", true, &json!({})).await;
    assert_eq!(status, 200);
    assert_eq!(me(addr, old).await.0, 403);
    let (status, body) = post_json(addr, "/api/entrants/student-01/token", true, &json!({})).await;
    assert_eq!(status, 200, "{body}");
    let new = body["token"].as_str().unwrap();
    assert_eq!(me(addr, new).await.1["name"], "student-01");
    assert_eq!(me(addr, old).await.0, 403);
}
