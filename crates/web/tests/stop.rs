//! Stopping the server cancels every task it spawned: the tournament's games (their bots
//! killed), a person's game waiting for a move, the watchers and the connections; none is
//! left running, and the address stops answering.

mod common;

use std::path::Path;
use std::time::Duration;

use common::{SAFETY, post_json};
use serde_json::json;

/// A Pah-tum bot that writes its pid into `pids/` and then thinks for ten minutes.
fn slow_bot(folder: &Path) -> std::path::PathBuf {
    let bot = folder.join("slow");
    std::fs::create_dir_all(bot.join("pids")).expect("the bot's folder");
    std::fs::write(
        bot.join("bot.toml"),
        "name = \"slow\"\ngame = \"pahtum\"\nprotocol = \"pahtum\"\ncommand = [\"python3\", \"./bot.py\"]\n",
    )
    .expect("the manifest");
    let program = format!(
        "import os, time\nopen(os.path.join({:?}, str(os.getpid())), 'w').close()\ntime.sleep(600)\n",
        bot.join("pids").display().to_string()
    );
    std::fs::write(bot.join("bot.py"), program).expect("the program");
    bot
}

/// The pids the slow bots wrote.
fn pids(bot: &Path) -> Vec<u32> {
    std::fs::read_dir(bot.join("pids")).expect("the pids folder").flatten().filter_map(|e| e.file_name().to_str()?.parse().ok()).collect()
}

/// Whether process `pid` still runs (a zombie waiting to be reaped does not).
fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // The state follows the command's closing parenthesis.
        Ok(stat) => stat.rsplit_once(')').is_some_and(|(_, rest)| !rest.trim_start().starts_with(['Z', 'X'])),
        Err(_) => false,
    }
}

/// Polls `done` every 20 ms until it holds, failing the test after [`SAFETY`].
async fn until(what: &str, mut done: impl FnMut() -> bool) {
    let give_up = tokio::time::Instant::now() + SAFETY;
    while !done() {
        assert!(tokio::time::Instant::now() < give_up, "gave up waiting for {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stopping_the_server_cancels_every_task_and_kills_the_bots() {
    let folder = tempfile::tempdir().expect("a temporary folder");
    let bot = slow_bot(folder.path());
    let server = common::start(&folder.path().join("data"), vec![]).await;

    // A tournament whose two games (two workers) both wait on the slow bot's first move;
    // the move limit is far beyond the test, so only the stop can end them.
    let config = format!(
        "name = \"Stopped\"\ngame = \"pahtum\"\nseed = 1\n[limits]\nmove-ms = 600000\ngame-ms = 600000\n\
         [[entrant]]\nname = \"slow\"\nbot = \"{}\"\n[[entrant]]\nname = \"random\"\nbot = \"random\"\n\
         [[stage]]\nformat = \"round-robin\"\n",
        bot.display()
    );
    let (status, body) = post_json(server.addr, "/api/tournaments", true, &json!({ "config": config })).await;
    assert_eq!(status, 201, "{body}");
    // A person's game, waiting for the person's first move.
    let (status, body) = post_json(server.addr, "/api/play", false, &json!({ "game": "pahtum", "bot": "random", "side": 0 })).await;
    assert_eq!(status, 201, "{body}");
    until("both games' slow bots to start", || pids(&bot).len() == 2).await;
    let started = pids(&bot);
    assert!(started.iter().all(|&pid| alive(pid)));
    // The tournament's run (its games inside) and watcher, and the person's game.
    assert!(server.app.tasks.running() >= 3, "{} tasks", server.app.tasks.running());

    assert!(server.app.tasks.shutdown(SAFETY).await, "tasks still running after {SAFETY:?}: {}", server.app.tasks.running());
    assert_eq!(server.app.tasks.running(), 0);
    until("the slow bots to be killed", || started.iter().all(|&pid| !alive(pid))).await;
    // The listener went with the server loop: the address no longer answers.
    until("the address to stop answering", || std::net::TcpStream::connect(server.addr).is_err()).await;
    // No game finished, so none was stored; the tournament file is there to resume.
    let db = folder.path().join("data/tournaments/stopped.db");
    let store = store::Store::open_read_only(&db).await.expect("the tournament's file");
    assert_eq!(store.game_count().await.expect("the count"), 0);
}
