//! A bot that dies while it starts (a Python syntax error): the game page's data carries
//! what it wrote on stderr, as its record does.

mod common;

use common::get_json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_starts_stderr_is_on_the_game_page() {
    let folder = tempfile::tempdir().expect("a temporary folder");
    let bot = folder.path().join("broken");
    std::fs::create_dir(&bot).expect("the bot's folder");
    std::fs::write(
        bot.join("bot.toml"),
        "name = \"broken\"\ngame = \"connect4\"\nprotocol = \"arbiter\"\ncommand = [\"python3\", \"./bot.py\"]\n",
    )
    .expect("the manifest");
    std::fs::write(bot.join("bot.py"), "def f(:\n    pass\n").expect("the program");
    // What Python says, found without Arbiter.
    let said = std::process::Command::new("python3").arg(bot.join("bot.py")).output().expect("python3 runs");
    let said = String::from_utf8_lossy(&said.stderr).into_owned();
    assert!(said.contains("SyntaxError"), "{said}");

    let text = format!(
        "name = \"Broken\"\ngame = \"connect4\"\nseed = 1\n[[entrant]]\nname = \"broken\"\nbot = \"{}\"\n\
         [[entrant]]\nname = \"random\"\nbot = \"random\"\n[[stage]]\nformat = \"round-robin\"\n",
        bot.display()
    );
    let config = tournament::TournamentConfig::parse(&text, "broken.toml").expect("the config");
    let entrants = arena::resolve_entrants(&config, folder.path(), None).expect("the entrants");
    let db = folder.path().join("broken.db");
    let store = store::Store::open(&db).await.expect("a new database");
    let options = common::cli_run_options(1, folder.path());
    arena::run_tournament(&config, &text, &entrants, &store, &options, |_| {}).await.expect("the tournament runs");
    store.close().await;

    let server = common::start(&folder.path().join("data"), vec![db]).await;
    let (status, games) = get_json(server.addr, "/api/tournaments/broken/games").await;
    assert_eq!(status, 200, "{games}");
    let keys: Vec<&str> = games["finished"].as_array().expect("a list").iter().filter_map(|g| g["key"].as_str()).collect();
    assert_eq!(keys.len(), 2, "{games}");
    for key in keys {
        let (status, game) = get_json(server.addr, &format!("/api/tournaments/broken/game?key={}", urlencode(key))).await;
        assert_eq!(status, 200, "{game}");
        let side = if game["names"][0] == "broken" { 0 } else { 1 };
        assert_eq!(game["startup"][0]["side"], side, "{game}");
        assert_eq!(game["startup"][0]["stderr"], said.as_str());
        assert_eq!(game["result"]["termination"], "crash");
    }
}

fn urlencode(text: &str) -> String {
    text.bytes()
        .map(|b| if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) { (b as char).to_string() } else { format!("%{b:02X}") })
        .collect()
}
