//! Games on CPUs of their own: with no more games at a time (-j) than cores, each game's
//! two bots run on one CPU, the same for both, and the games at once on different ones;
//! with more games than cores, or `--no-pin`, bots may run on every CPU. Through the real
//! `arbiter tournament`, with bots that say on stderr, each move, the CPUs the kernel
//! lets them use, read back from the stored records; and through `arbiter match` and
//! `arbiter bench-play`, which play their games the same way, with bots that write it
//! to a file.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const ARBITER: &str = env!("CARGO_BIN_EXE_arbiter");

/// A bot of the project protocol that writes `cpus LIST PID` (its `Cpus_allowed_list` in
/// `/proc`, its process id) to stderr on every move and plays the first legal move; it
/// can play game after game in one process (`reuse`).
const TELLER: &str = r#"#!/usr/bin/env bash
legal=""
while IFS= read -r line; do
  case "$line" in
    arbiter*) printf 'name teller\nreuse\nready\n' ;;
    legal\ *) legal=${line#legal } ;;
    go)
      while IFS=$':\t ' read -r key value; do
        [[ $key == Cpus_allowed_list ]] && echo "cpus $value $$" >&2
      done < /proc/$$/status
      printf 'move %s\n' "${legal%% *}" ;;
    quit) exit 0 ;;
  esac
done
"#;

/// Makes the teller's folder, `teller` in `dir`, with `script` as its program.
fn teller(dir: &Path, script: &str) -> PathBuf {
    let bot = dir.join("teller");
    std::fs::create_dir(&bot).unwrap();
    std::fs::write(bot.join("tell.sh"), script).unwrap();
    std::fs::set_permissions(bot.join("tell.sh"), std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    std::fs::write(bot.join("bot.toml"), "name = \"teller\"\ngame = \"any\"\nprotocol = \"arbiter\"\ncommand = [\"./tell.sh\"]\n").unwrap();
    bot
}

/// Runs `arbiter` with `args` (then `--no-sandbox`) against two tellers that append what
/// they would say on stderr to a file instead; the CPU lists they wrote, by process.
fn run_writing(args: &[&str]) -> BTreeMap<u32, BTreeSet<String>> {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("cpus.log");
    let bot = teller(dir.path(), &TELLER.replace(">&2", &format!(">> {:?}", log.to_str().unwrap())));
    let bot = bot.to_str().unwrap();
    let mut all = args.to_vec();
    all.extend_from_slice(&["connect4", bot, bot, "--no-sandbox"]);
    let out: Output = Command::new(ARBITER).args(&all).output().unwrap();
    assert!(out.status.success(), "arbiter failed: {}", String::from_utf8_lossy(&out.stderr));
    let mut said: BTreeMap<u32, BTreeSet<String>> = BTreeMap::new();
    for line in std::fs::read_to_string(&log).unwrap().lines() {
        let (list, pid) = line.strip_prefix("cpus ").unwrap().split_once(' ').unwrap();
        said.entry(pid.parse().unwrap()).or_default().insert(list.to_string());
    }
    assert!(!said.is_empty(), "the tellers moved");
    said
}

/// This test process's allowed CPUs as the kernel lists them (`0-1`, `0,2`, ...).
fn own_cpu_list() -> String {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status.lines().find_map(|line| line.strip_prefix("Cpus_allowed_list:")).unwrap().trim().to_string()
}

/// The CPUs of a kernel CPU list.
fn expand(list: &str) -> BTreeSet<usize> {
    let mut cpus = BTreeSet::new();
    for part in list.split(',') {
        match part.split_once('-') {
            Some((a, b)) => cpus.extend(a.parse::<usize>().unwrap()..=b.parse().unwrap()),
            None => {
                cpus.insert(part.parse().unwrap());
            }
        }
    }
    cpus
}

/// Runs a round robin of four tellers with `args`, their processes kept between games
/// when `reuse`; for each stored game, the CPU list and process id each side said (every
/// move of a side says the same, checked here).
fn run(args: &[&str], reuse: bool) -> Vec<[(String, u32); 2]> {
    run_on(None, args, reuse)
}

/// [`run`] in the PostgreSQL database `url` when given (`tournament --db URL` creates the
/// tournament there and plays it as a worker does), else in a SQLite file.
fn run_on(url: Option<&str>, args: &[&str], reuse: bool) -> Vec<[(String, u32); 2]> {
    let dir = tempfile::tempdir().unwrap();
    teller(dir.path(), TELLER);
    let mut config = format!("name = \"lanes\"\ngame = \"connect4\"\nseed = 2\nreuse = {reuse}\n");
    for n in 1..=4 {
        config.push_str(&format!("[[entrant]]\nname = \"teller-{n}\"\nbot = \"teller\"\n"));
    }
    config.push_str("[[stage]]\nformat = \"round-robin\"\ndeals = 1\nswap = true\n");
    let path = dir.path().join("lanes.toml");
    std::fs::write(&path, config).unwrap();
    let file = dir.path().join("lanes.db");
    let cache = dir.path().join("cache");
    let db = url.unwrap_or(file.to_str().unwrap());
    let mut all = vec!["tournament", path.to_str().unwrap(), "--db", db, "--no-sandbox"];
    if url.is_some() {
        all.extend_from_slice(&["--cache", cache.to_str().unwrap()]);
    }
    all.extend_from_slice(args);
    let out: Output = Command::new(ARBITER).args(&all).output().unwrap();
    assert!(out.status.success(), "arbiter failed: {}", String::from_utf8_lossy(&out.stderr));
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let records = runtime.block_on(async {
        let store = store::Store::open_read_only_at(&store::Location::parse(db)).await.unwrap();
        let mut records = Vec::new();
        for game in store.games().await.unwrap() {
            records.push(store.game_record(&game.spec.key).await.unwrap().unwrap());
        }
        store.close().await;
        records
    });
    assert_eq!(records.len(), 12, "4 entrants, one deal both ways");
    records
        .iter()
        .map(|json| {
            let record: referee::GameRecord = serde_json::from_str(json).unwrap();
            [0, 1].map(|side| {
                let said: BTreeSet<&str> = record
                    .turns
                    .iter()
                    .filter(|turn| turn.side == side)
                    .flat_map(|turn| turn.stderr.lines())
                    .filter_map(|line| line.strip_prefix("cpus "))
                    .collect();
                assert_eq!(said.len(), 1, "side {side} said one CPU list on every move: {said:?}");
                let (list, pid) = said.into_iter().next().unwrap().split_once(' ').unwrap();
                (list.to_string(), pid.parse().unwrap())
            })
        })
        .collect()
}

#[test]
fn with_no_more_games_than_cores_each_game_runs_on_a_cpu_of_its_own() {
    let own = expand(&own_cpu_list());
    let jobs = own.len().min(2);
    let used = each_game_on_a_cpu_of_its_own(&run(&["-j", &jobs.to_string()], false), &own);
    // The first games start together, one on each lane: as many CPUs as games at once.
    assert_eq!(used.len(), jobs, "CPUs used: {used:?}");
}

#[test]
fn a_worker_on_postgresql_plays_each_game_on_a_cpu_of_its_own_unless_told_not_to() {
    let Some(cluster) = pgtest::Cluster::start() else { return };
    let own = own_cpu_list();
    let jobs = expand(&own).len().min(2);
    let games = run_on(Some(&cluster.database()), &["-j", &jobs.to_string()], false);
    // (Which lanes its games find free depends on when each is leased: not checked.)
    each_game_on_a_cpu_of_its_own(&games, &expand(&own));
    for [(first, _), (second, _)] in run_on(Some(&cluster.database()), &["-j", "1", "--no-pin"], false) {
        assert_eq!((first.as_str(), second.as_str()), (own.as_str(), own.as_str()), "with --no-pin");
    }
}

/// Checks that both bots of each game ran on the same one CPU, one of `own`; the CPUs
/// the games used.
fn each_game_on_a_cpu_of_its_own(games: &[[(String, u32); 2]], own: &BTreeSet<usize>) -> BTreeSet<usize> {
    let mut used = BTreeSet::new();
    for [(first, _), (second, _)] in games {
        assert_eq!(first, second, "both bots of a game on the same CPUs");
        let cpus = expand(first);
        assert_eq!(cpus.len(), 1, "a game's bots on one CPU: {first}");
        assert!(cpus.is_subset(own), "{first} is one of this process's CPUs {own:?}");
        used.extend(cpus);
    }
    used
}

#[test]
fn with_more_games_than_cores_or_no_pin_bots_may_use_every_cpu() {
    let own = own_cpu_list();
    let over = (expand(&own).len() + 1).to_string();
    for args in [vec!["-j", over.as_str()], vec!["-j", "1", "--no-pin"]] {
        for [(first, _), (second, _)] in run(&args, false) {
            assert_eq!((first.as_str(), second.as_str()), (own.as_str(), own.as_str()), "with {args:?}");
        }
    }
}

#[test]
fn a_kept_process_plays_each_game_on_the_cpu_of_that_game() {
    let own = expand(&own_cpu_list());
    let jobs = own.len().min(2);
    let games = run(&["-j", &jobs.to_string()], true);
    let processes: BTreeSet<u32> = games.iter().flat_map(|sides| sides.iter().map(|(_, pid)| *pid)).collect();
    assert!(processes.len() < 2 * games.len(), "processes were kept: {} for {} games", processes.len(), games.len());
    for [(first, _), (second, _)] in &games {
        assert_eq!(first, second, "both bots of a game on the same CPUs, wherever they were started");
        assert_eq!(expand(first).len(), 1, "a game's bots on one CPU: {first}");
    }
}

#[test]
fn a_sandboxed_tournament_on_lanes_leaves_nothing_in_the_temporary_folder() {
    let dir = tempfile::tempdir().unwrap();
    let temp = dir.path().join("tmp");
    std::fs::create_dir(&temp).unwrap();
    let bot = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bots/arbiter/c");
    let mut config = String::from("name = \"clean\"\ngame = \"connect4\"\nseed = 4\n");
    for n in 1..=3 {
        config.push_str(&format!("[[entrant]]\nname = \"c-{n}\"\nbot = {:?}\n", bot.to_str().unwrap()));
    }
    config.push_str("[[stage]]\nformat = \"round-robin\"\ndeals = 1\nswap = true\n");
    let path = dir.path().join("clean.toml");
    std::fs::write(&path, config).unwrap();
    let db = dir.path().join("clean.db");
    let jobs = expand(&own_cpu_list()).len().min(2).to_string();
    let out = Command::new(ARBITER)
        .args(["tournament", path.to_str().unwrap(), "--db", db.to_str().unwrap(), "-j", &jobs])
        .env("TMPDIR", &temp)
        .output()
        .unwrap();
    assert!(out.status.success(), "arbiter failed: {}", String::from_utf8_lossy(&out.stderr));
    let left: Vec<String> = std::fs::read_dir(&temp).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert!(left.is_empty(), "left in the temporary folder: {left:?}");
}

#[test]
fn a_match_plays_its_pairs_on_cpus_of_their_own_unless_told_not_to() {
    let own = own_cpu_list();
    let jobs = expand(&own).len().min(2);
    let said = run_writing(&["match", "--games", "8", "--seed", "3", "-j", &jobs.to_string()]);
    let mut used = BTreeSet::new();
    for lists in said.values() {
        for list in lists {
            let cpus = expand(list);
            assert_eq!(cpus.len(), 1, "a bot of the match on one CPU: {list}");
            assert!(cpus.is_subset(&expand(&own)), "{list} is one of this process's CPUs {own}");
            used.extend(cpus);
        }
    }
    // The first pairs start together, one on each lane: as many CPUs as pairs at once.
    assert_eq!(used.len(), jobs, "CPUs used: {used:?}");
    for lists in run_writing(&["match", "--games", "4", "--seed", "3", "--no-pin"]).values() {
        assert_eq!(lists, &BTreeSet::from([own.clone()]), "with --no-pin");
    }
}

#[test]
fn bench_play_plays_its_games_on_one_cpu_as_a_tournament_does_unless_told_not_to() {
    let own = own_cpu_list();
    let said = run_writing(&["bench-play", "-n", "4"]);
    let lists: BTreeSet<&String> = said.values().flatten().collect();
    assert_eq!(lists.len(), 1, "every bot on the same CPU: {lists:?}");
    let cpus = expand(lists.first().unwrap());
    assert!(cpus.len() == 1 && cpus.is_subset(&expand(&own)), "one of this process's CPUs {own}: {cpus:?}");
    for lists in run_writing(&["bench-play", "-n", "4", "--no-pin"]).values() {
        assert_eq!(lists, &BTreeSet::from([own.clone()]), "with --no-pin");
    }
}
