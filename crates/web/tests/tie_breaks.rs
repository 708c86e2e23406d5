//! A tie-break game is named as one on the tournament's pages (its game lines carry
//! `tie_break`, which the page shows as "tie-break 1"), not as the round number it is
//! given after the stage's last round ("final, round 3").

mod common;

use std::time::{Duration, Instant};

use common::{get_json, post_json};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tie_break_games_are_named_as_such() {
    let dir = tempfile::tempdir().unwrap();
    let server = common::start(dir.path(), vec![]).await;
    // Two identical players with sides swapped draw every match 1-1: the tie takes extra
    // games, then the submission order decides.
    let config = "name = \"Ties\"\ngame = \"connect4\"\nseed = 4\n\
                  [[entrant]]\nname = \"a\"\nbot = \"greedy\"\n[[entrant]]\nname = \"b\"\nbot = \"greedy\"\n\
                  [[stage]]\nname = \"final\"\nformat = \"round-robin\"\ndeals = 1\nswap = true\nscoring = \"game-1-half-0\"\n\
                  tie-breaks = [\"extra-games\", \"submission\"]\n";
    let (status, started) = post_json(server.addr, "/api/tournaments", true, &json!({ "config": config })).await;
    assert_eq!(status, 201, "{started}");
    let id = started["id"].as_str().unwrap().to_string();
    let began = Instant::now();
    loop {
        let (_, t) = get_json(server.addr, &format!("/api/tournaments/{id}")).await;
        if t["status"] == "finished" {
            break;
        }
        assert!(began.elapsed() < common::SAFETY, "{t}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let (_, games) = get_json(server.addr, &format!("/api/tournaments/{id}/games")).await;
    let lines = games["finished"].as_array().unwrap();
    let extra: Vec<_> = lines.iter().filter(|g| g["key"].as_str().unwrap().contains("/x")).collect();
    assert!(!extra.is_empty(), "the tie took extra games: {games}");
    for game in extra {
        assert!(game["tie_break"].as_u64().is_some_and(|t| t >= 1), "{game}");
    }
    for game in lines.iter().filter(|g| g["key"].as_str().unwrap().contains("/r")) {
        assert!(game["tie_break"].is_null(), "{game}");
    }
}
