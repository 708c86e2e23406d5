//! The generic checks every game runs in its tests (`rules/tests/registry.rs` runs them
//! for every game of the registry): the random-playout checker, which plays seeded random
//! games and checks the invariants of the [`Game`] contract at every ply, and the reader
//! of the perft files every enumerable game keeps in one shared format.

use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;

use crate::{Game, Options, Outcome, Side};

/// What the checked games looked like, for tests that also want plausible results.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PlayoutSummary {
    pub games: u64,
    pub wins: [u64; 2],
    pub draws: u64,
    pub total_plies: u64,
    pub max_plies: u64,
}

/// Plays `games` random games from `start` with seeds `seed, seed + 1, ...` and checks:
/// the side to move exists exactly while there is no outcome; listed moves are legal,
/// distinct and survive a notation round trip; a random move is among them; checked and
/// unchecked play agree; a finished game has no moves and refuses more; scores agree
/// with the winner; replaying the move texts from the start reproduces the game; and
/// [`Game::random_playout`] ends in a finished position. Returns the first violation.
pub fn check_random_games<G: Game>(start: &G, games: u64, seed: u64, max_plies: usize) -> Result<PlayoutSummary, String> {
    let mut summary = PlayoutSummary::default();
    for game_idx in 0..games {
        let game_seed = seed.wrapping_add(game_idx);
        let outcome =
            check_one_game(start, game_seed, max_plies).map_err(|err| format!("{} game with seed {game_seed}: {err}", G::INFO.name))?;
        summary.games += 1;
        match outcome.0.winner {
            Some(side) => summary.wins[side.index()] += 1,
            None => summary.draws += 1,
        }
        summary.total_plies += outcome.1 as u64;
        summary.max_plies = summary.max_plies.max(outcome.1 as u64);

        let mut rng = ChaCha8Rng::seed_from_u64(game_seed ^ 0x5eed);
        let mut fast = start.clone();
        let fast_outcome = fast.random_playout(&mut rng);
        if fast.outcome() != Some(fast_outcome) || fast.to_move().is_some() {
            return Err(format!("{} random_playout with seed {game_seed} did not end in a finished position", G::INFO.name));
        }
    }
    Ok(summary)
}

fn check_one_game<G: Game>(start: &G, seed: u64, max_plies: usize) -> Result<(Outcome, usize), String> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut pos = start.clone();
    let mut texts: Vec<String> = Vec::new();
    let mut moves = Vec::new();
    let has_scores = start.running_scores().is_some();
    loop {
        let ply = texts.len();
        if ply > max_plies {
            return Err(format!("no end after {max_plies} plies"));
        }
        if pos.n_moves() != start.n_moves() + ply {
            return Err(format!("n_moves is {} after {ply} plies", pos.n_moves()));
        }
        let outcome = pos.outcome();
        if pos.to_move().is_some() == outcome.is_some() {
            return Err(format!("ply {ply}: to_move {:?} with outcome {outcome:?}", pos.to_move()));
        }
        if pos.running_scores().is_some() != has_scores {
            return Err(format!("ply {ply}: running scores present only some of the time"));
        }
        moves.clear();
        pos.legal_moves(&mut moves);
        let random = pos.random_move(&mut rng);

        if let Some(outcome) = outcome {
            if !moves.is_empty() || random.is_some() {
                return Err(format!("finished game (after {}) still has moves", texts.join(" ")));
            }
            check_outcome::<G>(&outcome, &pos)?;
            replay(start, &texts, &pos)?;
            return Ok((outcome, ply));
        }

        if G::INFO.enumerable {
            if moves.is_empty() {
                return Err(format!("ply {ply}: ongoing game without legal moves"));
            }
            for (idx, mv) in moves.iter().enumerate() {
                let text = pos.format_move(mv);
                let parsed = pos.parse_move(&text).map_err(|err| format!("ply {ply}: own notation {text:?} refused: {err}"))?;
                if &parsed != mv {
                    return Err(format!("ply {ply}: {text:?} parses to {parsed:?}, not {mv:?}"));
                }
                if moves[..idx].contains(mv) {
                    return Err(format!("ply {ply}: move {text} listed twice"));
                }
            }
        }
        let mv = random.ok_or_else(|| format!("ply {ply}: ongoing game without a random move"))?;
        if G::INFO.enumerable && !moves.contains(&mv) {
            return Err(format!("ply {ply}: random move {mv:?} is not among the legal moves"));
        }
        let text = pos.format_move(&mv);
        let mut checked = pos.clone();
        checked.play(&mv).map_err(|err| format!("ply {ply}: random move {text} refused: {err}"))?;
        pos.play_unchecked(&mv);
        if checked != pos {
            return Err(format!("ply {ply}: play and play_unchecked of {text} disagree"));
        }
        texts.push(text);
    }
}

fn check_outcome<G: Game>(outcome: &Outcome, pos: &G) -> Result<(), String> {
    if let Some(scores) = outcome.scores
        && Outcome::from_scores(scores).winner != outcome.winner
    {
        return Err(format!("scores {scores:?} disagree with winner {:?}", outcome.winner));
    }
    if pos.running_scores().is_some() != outcome.scores.is_some() {
        return Err("a game with running scores must end with scores, and only such a game".to_string());
    }
    for loser in Side::BOTH {
        if pos.forfeit(loser).winner != Some(loser.other()) {
            return Err(format!("a forfeit by {loser:?} is not won by the other side"));
        }
    }
    Ok(())
}

fn replay<G: Game>(start: &G, texts: &[String], end: &G) -> Result<(), String> {
    let mut pos = start.clone();
    for (ply, text) in texts.iter().enumerate() {
        let mv = pos.parse_move(text).map_err(|err| format!("replay ply {ply}: {err}"))?;
        pos.play(&mv).map_err(|err| format!("replay ply {ply}: {err}"))?;
    }
    if &pos != end {
        return Err("replaying the move texts gives another position".to_string());
    }
    Ok(())
}

/// One line of a game's perft file (`rules/tests/data/GAME-perft.txt`), in the one
/// format every game's file shares:
///
/// ```text
/// OPTIONS | START | MOVES | DEPTH COUNT [MORE...]
/// ```
///
/// `OPTIONS` is `key=value` pairs separated by spaces, `START` a start position in the
/// game's one-line start text ([`Game::start_from_line`] reads it back), `MOVES` moves in
/// the game's notation played from that start, separated by spaces; `-` leaves a field
/// empty (the default options, the game's default start, no moves). `MORE` are figures a
/// game's own tests check beside the count (Pah-tum's score sums). `#` starts a comment line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PerftLine {
    pub options: Options,
    pub start: Option<String>,
    pub moves: Vec<String>,
    pub depth: u32,
    pub count: u64,
    pub more: Vec<String>,
    /// The line as written, for messages.
    pub text: String,
}

/// Reads a perft file; `Err` names the first line that is not in the shared format.
pub fn perft_lines(text: &str) -> Result<Vec<PerftLine>, String> {
    text.lines()
        .filter(|line| !line.trim().is_empty() && !line.trim_start().starts_with('#'))
        .map(|line| PerftLine::parse(line).map_err(|err| format!("perft line {line:?}: {err}")))
        .collect()
}

impl PerftLine {
    fn parse(line: &str) -> Result<PerftLine, String> {
        let fields: Vec<&str> = line.split('|').map(str::trim).collect();
        let [options, start, moves, figures] = fields[..] else {
            return Err("not OPTIONS | START | MOVES | DEPTH COUNT".to_string());
        };
        let none = |field: &str| field == "-" || field.is_empty();
        let options = if none(options) {
            Options::new()
        } else {
            options
                .split_whitespace()
                .map(|pair| {
                    pair.split_once('=').map(|(k, v)| (k.to_string(), v.to_string())).ok_or(format!("option {pair:?} is not key=value"))
                })
                .collect::<Result<Options, String>>()?
        };
        let start = (!none(start)).then(|| start.to_string());
        let moves = if none(moves) { Vec::new() } else { moves.split_whitespace().map(str::to_string).collect() };
        let mut figures = figures.split_whitespace();
        let depth = figures.next().and_then(|f| f.parse().ok()).ok_or("no depth")?;
        let count = figures.next().and_then(|f| f.parse().ok()).ok_or("no count")?;
        let more = figures.map(str::to_string).collect();
        Ok(PerftLine { options, start, moves, depth, count, more, text: line.to_string() })
    }

    /// The position the line counts from: the start (or the game's default one) with
    /// the moves played.
    pub fn position<G: Game>(&self) -> Result<G, String> {
        let start = self.start.as_deref().map(G::start_from_line);
        let mut pos = G::new(&self.options, start.as_deref()).map_err(|err| err.to_string())?;
        for text in &self.moves {
            let mv = pos.parse_move(text).map_err(|err| err.to_string())?;
            pos.play(&mv).map_err(|err| err.to_string())?;
        }
        Ok(pos)
    }
}
