//! The cores as places to think: with more games at once than cores to think on, no two
//! bots think at the same time on one core's place, and the command says so. Through
//! the real `arbiter`, as an organiser runs it, with bots that log when they think.

mod common;

use common::{arbiter, ok};

/// A bot of the project protocol that takes 20 ms of wall-clock time over every move and
/// appends when it began and ended thinking (microseconds) to the log named by its
/// argument.
const THINKER: &str = r#"#!/usr/bin/env bash
log=$1; legal=""
while IFS= read -r line; do
  case "$line" in
    arbiter*) printf 'name thinker\nready\n' ;;
    legal\ *) legal=${line#legal } ;;
    go) began=$EPOCHREALTIME; sleep 0.02; echo "$began $EPOCHREALTIME" >> "$log"; printf 'move %s\n' "${legal%% *}" ;;
    quit) exit 0 ;;
  esac
done
"#;

#[test]
fn with_more_games_than_cores_no_more_players_think_at_once_than_cores() {
    let dir = tempfile::tempdir().unwrap();
    let bot = dir.path().join("thinker");
    std::fs::create_dir(&bot).unwrap();
    std::fs::write(bot.join("think.sh"), THINKER).unwrap();
    std::fs::set_permissions(bot.join("think.sh"), std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let log = dir.path().join("thinking.log");
    std::fs::write(
        bot.join("bot.toml"),
        format!("name = \"thinker\"\ngame = \"any\"\nprotocol = \"arbiter\"\ncommand = [\"./think.sh\", {:?}]\n", log.to_str().unwrap()),
    )
    .unwrap();
    let bot = bot.to_str().unwrap();
    // Three games at once, one core to think on: the bots' thinking never overlaps.
    let run = arbiter(&["match", "connect4", bot, bot, "--games", "6", "-j", "3", "--cores", "1", "--no-sandbox", "--seed", "3"]);
    let out = ok(&run);
    assert!(!out.contains("lost by faults"), "{out}");
    let said = String::from_utf8_lossy(&run.stderr).into_owned();
    assert!(said.contains("-j 3 plays 3 games at once on 1 core(s): at most 1 player(s) compute at once"), "{said}");
    let mut spans: Vec<(f64, f64)> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|line| {
            let (began, ended) = line.split_once(' ').unwrap();
            (began.parse().unwrap(), ended.parse().unwrap())
        })
        .collect();
    // Connect Four with the first legal move each turn: at least 7 moves a game.
    assert!(spans.len() >= 6 * 7, "{} moves", spans.len());
    spans.sort_by(|a, b| a.0.total_cmp(&b.0));
    for pair in spans.windows(2) {
        assert!(pair[1].0 >= pair[0].1, "two bots thought at once: {:?} and {:?}", pair[0], pair[1]);
    }
}
