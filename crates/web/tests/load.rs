//! 100 viewers follow one live tournament's standings at once: every viewer receives
//! every update sent after its snapshot, and the final `finished` status (the timed
//! version is `examples/sse_load.rs`, figures in `docs/benchmarks.md`).

mod common;

use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hundred_viewers_each_receive_every_update() {
    let data = tempfile::tempdir().expect("a temporary folder");
    let server = common::start(data.path(), vec![]).await;
    // 96 games send fewer standings messages (at most one per game start and end, and
    // a few status changes) than a viewer may fall behind (`UPDATE_BUFFER`), so no
    // viewer can be dropped for being slow, however loaded the machine: what is tested
    // is delivery, not speed.
    let (entrants, deals, viewers) = (4, 8, 100);
    assert!(2 * common::games_of(entrants, deals) + 8 < web::tournaments::UPDATE_BUFFER);
    let text = common::round_robin("Load", entrants, deals);
    let (status, body) = common::post_json(server.addr, "/api/tournaments", true, &json!({ "config": text })).await;
    assert_eq!(status, 201, "{body}");
    let id = body["id"].as_str().expect("the tournament's id").to_string();
    let tasks: Vec<_> = (0..viewers)
        .map(|_| {
            let id = id.clone();
            tokio::spawn(async move { tokio::time::timeout(common::SAFETY, common::view_standings(server.addr, &id)).await })
        })
        .collect();
    let mut viewings = Vec::new();
    for task in tasks {
        viewings.push(task.await.expect("a viewer task").expect("the viewer saw the end within the safety bound"));
    }
    for (n, viewing) in viewings.iter().enumerate() {
        assert!(viewing.saw_finish, "viewer {n}'s stream ended before `finished`: {viewing:?}");
        let last = viewing.updates.last().unwrap_or(&viewing.snapshot);
        assert_eq!(last.finished_games, common::games_of(entrants, deals) as u64, "viewer {n}");
    }
    let (sent, missed) = common::missed_updates(&viewings);
    assert!(!sent.is_empty(), "updates were sent");
    assert!(missed.iter().all(|&m| m == 0), "updates missed per viewer: {missed:?}");
}
