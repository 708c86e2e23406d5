//! The checks every game of the registry owes, run for each game `registry!` lists and
//! for none by name: its perft file (`data/GAME-perft.txt`, for every game that can list
//! its moves), seeded random games through the generic checker from its default start
//! and from every start of its perft file, and its golden transcript
//! (`data/GAME-transcript.txt`). A game added to the registry fails here until it has
//! both files; its own test file keeps only what is particular to it (naive reference
//! implementations, scenarios, notation).
//!
//! A new game's transcript is written by running this test with `ARBITER_BLESS=1`; check
//! its first plies by hand and say so in its header.

use std::collections::BTreeSet;
use std::path::PathBuf;

use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;
use rules::check::{PerftLine, check_random_games, perft_lines};
use rules::{Game, GameKind, Options, Registered, VisitGame, perft};

/// Random games from a game's default start, and from each start of its perft file.
const DEFAULT_GAMES: u64 = 100;
const PERFT_START_GAMES: u64 = 10;
/// No game of the registry lasts this long; a random game that does is a bug.
const MAX_PLIES: usize = 20_000;

fn data_file(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name)
}

/// The perft file of an enumerable game, `None` for the others.
fn perft_file<G: Game>() -> Result<Option<Vec<PerftLine>>, String> {
    let path = data_file(&format!("{}-perft.txt", G::INFO.name));
    if !G::INFO.enumerable {
        return match path.exists() {
            true => Err(format!("{} cannot list its moves, so {} counts nothing", G::INFO.name, path.display())),
            false => Ok(None),
        };
    }
    let text =
        std::fs::read_to_string(&path).map_err(|err| format!("{}: {err} (every game that lists its moves has one)", path.display()))?;
    let lines = perft_lines(&text)?;
    if lines.len() < 3 {
        return Err(format!("{}: only {} lines", path.display(), lines.len()));
    }
    Ok(Some(lines))
}

fn for_every_game<V: VisitGame<Output = Result<(), String>> + Copy>(visitor: V) {
    let failures: Vec<String> =
        GameKind::ALL.iter().filter_map(|kind| kind.visit(visitor).err().map(|err| format!("{kind}: {err}"))).collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[derive(Copy, Clone)]
struct PerftCounts;

impl VisitGame for PerftCounts {
    type Output = Result<(), String>;
    fn visit<G: Registered>(self) -> Self::Output {
        for line in perft_file::<G>()?.unwrap_or_default() {
            let pos: G = line.position().map_err(|err| format!("{}: {err}", line.text))?;
            let count = perft(&pos, line.depth);
            if count != line.count {
                return Err(format!("{}: perft {} is {count}", line.text, line.depth));
            }
        }
        Ok(())
    }
}

#[test]
fn every_game_that_lists_its_moves_matches_its_perft_file() {
    for_every_game(PerftCounts);
}

#[derive(Copy, Clone)]
struct Playouts;

impl VisitGame for Playouts {
    type Output = Result<(), String>;
    fn visit<G: Registered>(self) -> Self::Output {
        let options = Options::new();
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let start = G::random_start(&options, &mut rng).map_err(|err| err.to_string())?;
        let pos = G::new(&options, start.as_deref()).map_err(|err| err.to_string())?;
        let summary = check_random_games(&pos, DEFAULT_GAMES, 1, MAX_PLIES)?;
        if summary.wins.iter().sum::<u64>() + summary.draws != DEFAULT_GAMES {
            return Err(format!("{summary:?}"));
        }
        // Every start of the perft file (its sizes, its positions) once.
        let mut seen = BTreeSet::new();
        for line in perft_file::<G>()?.unwrap_or_default() {
            let key = (line.options.clone(), line.start.clone(), line.moves.clone());
            if seen.insert(key) {
                let pos: G = line.position()?;
                check_random_games(&pos, PERFT_START_GAMES, 100, MAX_PLIES).map_err(|err| format!("{}: {err}", line.text))?;
            }
        }
        Ok(())
    }
}

#[test]
fn every_game_keeps_the_game_contract_in_random_games() {
    for_every_game(Playouts);
}

/// A golden transcript: its options and seed (from the file's head), and one line per
/// ply, `MOVE | SCORES | POSITION LINE`, then `end: ...`.
struct Transcript {
    options: Options,
    seed: u64,
    start: Option<String>,
    plies: Vec<[String; 3]>,
    end: String,
}

impl Transcript {
    /// The game the seed plays: `random_start` and `random_move` from one seeded RNG.
    fn play<G: Game>(options: Options, seed: u64) -> Result<Transcript, String> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let start = G::random_start(&options, &mut rng).map_err(|err| err.to_string())?;
        let mut pos = G::new(&options, start.as_deref()).map_err(|err| err.to_string())?;
        let mut plies = Vec::new();
        while let Some(mv) = pos.random_move(&mut rng) {
            let text = pos.format_move(&mv);
            pos.play(&mv).map_err(|err| err.to_string())?;
            plies.push([text, scores_text(pos.running_scores()), pos.position_line()]);
            if plies.len() > MAX_PLIES {
                return Err(format!("no end after {MAX_PLIES} plies"));
            }
        }
        let start = pos.start_text().map(|text| G::start_line(&text));
        Ok(Transcript { options, seed, start, plies, end: end_text(&pos) })
    }

    fn to_text(&self) -> String {
        let options: Vec<String> = self.options.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let mut out = format!("options: {}\nseed: {}\n", if options.is_empty() { "-".to_string() } else { options.join(" ") }, self.seed);
        out.push_str(&format!("start: {}\n", self.start.as_deref().unwrap_or("-")));
        for ply in &self.plies {
            out.push_str(&ply.join(" | "));
            out.push('\n');
        }
        out.push_str(&format!("end: {}\n", self.end));
        out
    }
}

fn scores_text(scores: Option<[i64; 2]>) -> String {
    scores.map_or("-".to_string(), |[a, b]| format!("{a}:{b}"))
}

fn end_text<G: Game>(pos: &G) -> String {
    match pos.outcome() {
        Some(outcome) => {
            let who = outcome.winner.map_or("draw".to_string(), |side| format!("winner {}", side.index()));
            format!("{who} {}", scores_text(outcome.scores))
        }
        None => "not over".to_string(),
    }
}

/// The options and seed a transcript file asks for, and its comment head.
fn transcript_head(text: &str) -> Result<(Vec<&str>, Options, u64), String> {
    let comments: Vec<&str> = text.lines().take_while(|line| line.starts_with('#')).collect();
    let value = |key: &str| text.lines().find_map(|line| line.strip_prefix(key).map(str::trim)).ok_or(format!("no `{key}` line"));
    let options = match value("options:")? {
        "-" => Options::new(),
        pairs => pairs.split_whitespace().filter_map(|p| p.split_once('=')).map(|(k, v)| (k.to_string(), v.to_string())).collect(),
    };
    let seed = value("seed:")?.parse().map_err(|_| "the seed is not a number".to_string())?;
    Ok((comments, options, seed))
}

#[derive(Copy, Clone)]
struct GoldenTranscript;

impl VisitGame for GoldenTranscript {
    type Output = Result<(), String>;
    fn visit<G: Registered>(self) -> Self::Output {
        let path = data_file(&format!("{}-transcript.txt", G::INFO.name));
        let bless = std::env::var_os("ARBITER_BLESS").is_some();
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(_) if bless => format!("# {} golden transcript.\noptions: -\nseed: 7\n", G::INFO.title),
            Err(err) => return Err(format!("{}: {err} (write it with ARBITER_BLESS=1)", path.display())),
        };
        let (comments, options, seed) = transcript_head(&text)?;
        let played = Transcript::play::<G>(options.clone(), seed)?;
        let body = played.to_text();
        if bless {
            let head: String = comments.iter().map(|line| format!("{line}\n")).collect();
            std::fs::write(&path, head + &body).map_err(|err| err.to_string())?;
            return Ok(());
        }
        let written: String = text.lines().filter(|line| !line.starts_with('#')).map(|line| format!("{line}\n")).collect();
        if written != body {
            let first = written.lines().zip(body.lines()).position(|(a, b)| a != b).unwrap_or(0);
            return Err(format!(
                "the seed's game differs from {} at its line {}: {:?} now",
                path.display(),
                first + 1 + comments.len(),
                body.lines().nth(first).unwrap_or("")
            ));
        }
        // The texts, read back by the rules (not the generator), give the same positions.
        let start = played.start.as_deref().map(G::start_from_line);
        let mut pos = G::new(&options, start.as_deref()).map_err(|err| err.to_string())?;
        for [text, scores, line] in &played.plies {
            let mv = pos.parse_move(text).map_err(|err| err.to_string())?;
            pos.play(&mv).map_err(|err| err.to_string())?;
            if &scores_text(pos.running_scores()) != scores || &pos.position_line() != line {
                return Err(format!("{text} read back gives another position"));
            }
        }
        if end_text(&pos) != played.end || pos.to_move().is_some() {
            return Err("the replayed game does not end as written".to_string());
        }
        Ok(())
    }
}

#[test]
fn every_game_replays_its_golden_transcript() {
    for_every_game(GoldenTranscript);
}

/// The data files name only games of the registry, so none is left behind by a rename.
#[test]
fn every_data_file_belongs_to_a_registered_game() {
    let names: BTreeSet<&str> = GameKind::ALL.iter().map(|kind| kind.name()).collect();
    for entry in std::fs::read_dir(data_file("")).expect("tests/data") {
        let file = entry.expect("a directory entry").file_name().into_string().expect("a UTF-8 name");
        let game = file.split(['-', '.']).next().unwrap_or_default();
        assert!(names.contains(game), "{file} names no game of the registry ({names:?})");
    }
}
