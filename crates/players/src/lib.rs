//! Built-in players for every game: `random` (the seeds' baseline program) and `greedy`
//! (one move of lookahead). Pure: they see a position and an RNG, nothing else.

pub mod legions;

use std::any::Any;

use rand::Rng;
use rand::seq::IndexedRandom;
use rules::Visit;
use rules::{AnyPosition, Game, Side};

/// A player built into Arbiter.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Builtin {
    /// A uniformly random legal move (for Legions, the seed's random orders).
    Random,
    /// Wins at once when it can, avoids moves that let the opponent win at once, and
    /// otherwise maximises its score lead after its move (random among equals).
    Greedy,
}

impl Builtin {
    pub const ALL: [Builtin; 2] = [Builtin::Random, Builtin::Greedy];

    pub fn name(self) -> &'static str {
        match self {
            Builtin::Random => "random",
            Builtin::Greedy => "greedy",
        }
    }

    pub fn from_name(name: &str) -> Option<Builtin> {
        Builtin::ALL.into_iter().find(|builtin| builtin.name() == name)
    }

    /// The move this player makes, `None` when the game is over.
    pub fn choose<G: Game, R: Rng + ?Sized>(self, pos: &G, rng: &mut R) -> Option<G::Move> {
        match self {
            Builtin::Random => pos.random_move(rng),
            Builtin::Greedy => choose_greedy(pos, rng),
        }
    }

    /// [`Builtin::choose`] for a position of any game, answering in move notation.
    pub fn choose_text<R: Rng + ?Sized>(self, pos: &AnyPosition, rng: &mut R) -> Option<String> {
        pos.visit(ChooseText { builtin: self, rng })
    }
}

impl std::fmt::Display for Builtin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

struct ChooseText<'a, R: ?Sized> {
    builtin: Builtin,
    rng: &'a mut R,
}

impl<R: Rng + ?Sized> Visit for ChooseText<'_, R> {
    type Output = Option<String>;
    fn visit<G: rules::Registered>(self, pos: &G) -> Option<String> {
        self.builtin.choose(pos, self.rng).map(|mv| pos.format_move(&mv))
    }
}

/// The moves the greedy player weighs: the legal moves, or for a game that cannot list
/// them (`GameInfo::enumerable` false) the sample of the player made for that game.
/// Players made for one game register here, one line each.
pub fn candidate_moves<G: Game, R: Rng + ?Sized>(pos: &G, rng: &mut R, out: &mut Vec<G::Move>) {
    if let Some(legions_pos) = (pos as &dyn Any).downcast_ref::<rules::legions::Position>()
        && let Some(legions_out) = (&mut *out as &mut dyn Any).downcast_mut::<Vec<rules::legions::Move>>()
    {
        return legions::candidates(legions_pos, rng, legions_out);
    }
    pos.legal_moves(out);
}

/// How good a move looks after one ply, compared lexicographically.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Verdict {
    /// The game ends with our loss, or the opponent can then win at once.
    Loses(i64),
    /// Nothing decided: the value is our score lead (0 in games without scores).
    Open(i64),
    /// The game ends in a draw.
    Draws,
    Wins,
}

/// The one-move-lookahead player. Draws rank above open positions only where the
/// game has no scores to compare; in scored games a draw is the lead 0.
pub fn choose_greedy<G: Game, R: Rng + ?Sized>(pos: &G, rng: &mut R) -> Option<G::Move> {
    let me = pos.to_move()?;
    let mut candidates = Vec::new();
    candidate_moves(pos, rng, &mut candidates);
    let mut replies = Vec::new();
    let mut best: Vec<(Verdict, G::Move)> = Vec::new();
    for mv in candidates {
        let mut next = pos.clone();
        if next.play(&mv).is_err() {
            continue;
        }
        let verdict = judge(&next, me, rng, &mut replies);
        if verdict == Verdict::Wins {
            return Some(mv);
        }
        match best.first() {
            Some((top, _)) if verdict < *top => {}
            Some((top, _)) if verdict == *top => best.push((verdict, mv)),
            _ => {
                best.clear();
                best.push((verdict, mv));
            }
        }
    }
    match best.choose(rng) {
        Some((_, mv)) => Some(mv.clone()),
        None => pos.random_move(rng),
    }
}

fn judge<G: Game, R: Rng + ?Sized>(next: &G, me: Side, rng: &mut R, replies: &mut Vec<G::Move>) -> Verdict {
    let lead = |scores: Option<[i64; 2]>| scores.map_or(0, |s| s[me.index()] - s[me.other().index()]);
    if let Some(outcome) = next.outcome() {
        return match outcome.winner {
            Some(side) if side == me => Verdict::Wins,
            Some(_) => Verdict::Loses(lead(outcome.scores)),
            None if outcome.scores.is_some() => Verdict::Open(0),
            None => Verdict::Draws,
        };
    }
    let running = lead(next.running_scores());
    if next.to_move() == Some(me.other()) {
        replies.clear();
        candidate_moves(next, rng, replies);
        for reply in replies.iter() {
            let mut after = next.clone();
            if after.play(reply).is_ok() && after.outcome().is_some_and(|o| o.winner == Some(me.other())) {
                return Verdict::Loses(running);
            }
        }
    }
    Verdict::Open(running)
}
