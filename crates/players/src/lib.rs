//! Built-in players for every game, a ladder of rising strength: `random` (the seeds'
//! baseline program), `greedy` (one move of lookahead), `medium` and `strong` (searches
//! made for each game: alpha-beta with the game's evaluation where it has one, Monte
//! Carlo tree search with the game's fast playouts otherwise), and `perfect` for Connect
//! Four 7×6 (an exact solver; there `strong` is `perfect`). Pure: a player sees a
//! position, an RNG and a [`Budget`] (a node limit and a stop signal the caller derives
//! from its clock), nothing else.

pub mod chess;
pub mod connect4;
pub mod gomoku;
pub mod legions;
pub mod mcts;
pub mod nupud;
pub mod pahtum;
pub mod reversi;
pub mod search;
mod tuning;

use std::time::Duration;

use rand::Rng;
use rand::seq::IndexedRandom;
use rules::{AnyPosition, Registered, Side};

pub use builtins::{Builtin, MEDIUM_NODES, NameError, Only, Rung, STRONG_NODES, Unplayable};
pub use tuning::{Tuning, VisitTuned, Yardstick, visit_tuned};

/// What a built-in player does with a position: the players' side of [`Builtin`] (whose
/// names, rungs and games are the `builtins` crate's).
pub trait Play {
    /// [`Builtin::node_limit`] in `pos`'s game: its own limit, else the game's for the
    /// rung ([`Tuning::default_nodes`]).
    fn node_limit_in<G: Tuning>(self, pos: &G) -> Option<u64>;

    /// The move this player makes, `None` when the game is over. `stop` is asked now and
    /// then during a search; once it says true the player answers with the best move
    /// found so far. For a game named only by the registry ([`Registered`]): it is
    /// played as the game it is ([`visit_tuned`]), and its move read back.
    fn choose<G: Registered, R: Rng + ?Sized>(self, pos: &G, rng: &mut R, stop: &dyn Fn() -> bool) -> Option<G::Move>;

    /// [`Play::choose`] for a game whose tuning is known ([`Tuning`]).
    fn choose_tuned<G: Tuning, R: Rng + ?Sized>(self, pos: &G, rng: &mut R, stop: &dyn Fn() -> bool) -> Option<G::Move>;

    /// [`Play::choose`] for a position of any game, answering in move notation.
    fn choose_text<R: Rng + ?Sized>(self, pos: &AnyPosition, rng: &mut R, stop: &dyn Fn() -> bool) -> Option<String>;
}

impl Play for Builtin {
    fn node_limit_in<G: Tuning>(self, _pos: &G) -> Option<u64> {
        self.nodes.or_else(|| G::default_nodes(self.rung))
    }

    fn choose<G: Registered, R: Rng + ?Sized>(self, pos: &G, rng: &mut R, stop: &dyn Fn() -> bool) -> Option<G::Move> {
        let text = self.choose_text(&pos.clone().into_any(), rng, stop)?;
        Some(pos.parse_move(&text).expect("a game reads back the moves it writes"))
    }

    fn choose_tuned<G: Tuning, R: Rng + ?Sized>(self, pos: &G, rng: &mut R, stop: &dyn Fn() -> bool) -> Option<G::Move> {
        pos.to_move()?;
        // A side must not use what the rules hide (Nupud's set-up): no search then.
        if pos.hides_last_move() && self.rung > Rung::Greedy {
            return pos.random_move(rng);
        }
        let budget = Budget { nodes: self.node_limit_in(pos), stop };
        match self.rung {
            Rung::Random => pos.random_move(rng),
            Rung::Greedy => choose_greedy(pos, rng),
            Rung::Medium | Rung::Strong | Rung::Perfect => {
                search_move(pos, self.rung, rng, &budget).map(|found| found.mv).or_else(|| choose_greedy(pos, rng))
            }
        }
    }

    fn choose_text<R: Rng + ?Sized>(self, pos: &AnyPosition, rng: &mut R, stop: &dyn Fn() -> bool) -> Option<String> {
        visit_tuned(pos, ChooseText { builtin: self, rng, stop })
    }
}

/// What a search may spend: a node (or playout) limit, and a stop signal asked every
/// [`Budget::CHECK_EVERY`] nodes (the caller's clock; the players read none).
#[derive(Copy, Clone)]
pub struct Budget<'a> {
    pub nodes: Option<u64>,
    pub stop: &'a dyn Fn() -> bool,
}

impl Budget<'_> {
    /// How often (in nodes) a search asks `stop`.
    pub const CHECK_EVERY: u64 = 256;

    /// Whether a search that has used `used` nodes must stop.
    pub fn spent(&self, used: u64) -> bool {
        self.nodes.is_some_and(|limit| used >= limit) || (used.is_multiple_of(Self::CHECK_EVERY) && (self.stop)())
    }
}

/// A search's answer: the move, its evaluation for the side to move (the search's own
/// scale, see [`Evaluation`]), and how far the search went.
#[derive(Clone, Debug, PartialEq)]
pub struct Found<M> {
    pub mv: M,
    pub eval: Evaluation,
    /// Alpha-beta: the deepest completed depth; tree search: 0.
    pub depth: u32,
    /// Nodes searched (alpha-beta) or playouts run (tree search).
    pub nodes: u64,
}

/// How good the position is for the side to move, by the search that found the move.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Evaluation {
    /// Alpha-beta: the evaluation's score (positive: good for the side to move).
    Score(i32),
    /// Alpha-beta: a forced win (positive) or loss (negative) in this many plies.
    Mate(i32),
    /// Tree search: the expected result (1 win, 0.5 draw, 0 loss) of the chosen move.
    WinRate(f64),
    /// An exact solver: the result with best play for the side to move (1 a win, 0 a
    /// draw, -1 a loss).
    Outcome(i32),
}

/// Whether `medium`, playing both sides from `pos`, wins within `plies` plies (with a
/// fixed seed: the same answer on every machine). A start it wins that fast is decided
/// before the players play it (`tournament::openings::decided_early`, the duel example's
/// `quiet=`).
pub fn medium_wins_within(pos: &AnyPosition, plies: usize) -> bool {
    let mut pos = pos.clone();
    let mut rng = <rand::rngs::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(0);
    for _ in 0..plies {
        if pos.to_move().is_none() {
            break;
        }
        let Some(mv) = Builtin::MEDIUM.choose_text(&pos, &mut rng, &|| false) else { break };
        if pos.play_text(&mv).is_err() {
            break;
        }
    }
    pos.outcome().is_some_and(|outcome| outcome.winner.is_some())
}

/// The best move of the search made for `pos`'s game at `rung` ([`Tuning::search`]:
/// the Connect Four solver, the alpha-beta players of Gomoku, Connect Four, Reversi and
/// chess, Legions' turns weighed, or the tree search of the others). `None` when the
/// game is over.
pub fn search_move<G: Tuning, R: Rng + ?Sized>(pos: &G, rung: Rung, rng: &mut R, budget: &Budget) -> Option<Found<G::Move>> {
    pos.search(rung, rng, budget)
}

struct ChooseText<'a, R: ?Sized> {
    builtin: Builtin,
    rng: &'a mut R,
    stop: &'a dyn Fn() -> bool,
}

impl<R: Rng + ?Sized> VisitTuned for ChooseText<'_, R> {
    type Output = Option<String>;
    fn visit<G: Tuning>(self, pos: &G) -> Option<String> {
        self.builtin.choose_tuned(pos, self.rng, self.stop).map(|mv| pos.format_move(&mv))
    }
}

/// The moves the greedy player weighs: the legal moves, or for a game that cannot list
/// them (`GameInfo::enumerable` false) the sample of the player made for that game
/// ([`Tuning::candidates`]).
pub fn candidate_moves<G: Tuning, R: Rng + ?Sized>(pos: &G, rng: &mut R, out: &mut Vec<G::Move>) {
    pos.candidates(rng, out);
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
pub fn choose_greedy<G: Tuning, R: Rng + ?Sized>(pos: &G, rng: &mut R) -> Option<G::Move> {
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

fn judge<G: Tuning, R: Rng + ?Sized>(next: &G, me: Side, rng: &mut R, replies: &mut Vec<G::Move>) -> Verdict {
    let lead = |scores: Option<[i64; 2]>| scores.map_or(0, |s| s[me.index()] - s[me.other().index()]);
    if let Some(outcome) = next.outcome() {
        return match outcome.winner {
            Some(side) if side == me => Verdict::Wins,
            Some(_) => Verdict::Loses(lead(outcome.scores)),
            None if outcome.scores.is_some() => Verdict::Open(0),
            None => Verdict::Draws,
        };
    }
    let yardstick = G::YARDSTICK;
    let running = lead(next.running_scores());
    let mut after_reply = if yardstick == Yardstick::ValueAfterReply { next.value(me, 0) } else { running };
    replies.clear();
    if next.to_move() == Some(me.other()) {
        candidate_moves(next, rng, replies);
        for reply in replies.iter() {
            let mut after = next.clone();
            if after.play(reply).is_err() {
                continue;
            }
            if after.outcome().is_some_and(|o| o.winner == Some(me.other())) {
                return Verdict::Loses(running);
            }
            match yardstick {
                Yardstick::LeadAfterReply => after_reply = after_reply.min(lead(after.running_scores())),
                Yardstick::ValueAfterReply => after_reply = after_reply.min(after.value(me, 0)),
                Yardstick::Lead | Yardstick::Value => {}
            }
        }
    }
    Verdict::Open(match yardstick {
        Yardstick::Lead => running,
        Yardstick::LeadAfterReply | Yardstick::ValueAfterReply => after_reply,
        Yardstick::Value => next.value(me, replies.len()),
    })
}

/// How long a player that uses its clock thinks about one move: a quarter of the per-move
/// limit, a fortieth of the game's wall-clock or CPU budget left, whichever is least
/// (the rest is margin for a loaded machine and for the moves still to come); `None`
/// when no limit is given (the node limit alone stops it then).
pub fn think_time(move_time: Option<Duration>, game_time_left: Option<Duration>, cpu_left: Option<Duration>) -> Option<Duration> {
    [move_time.map(|t| t / 4), game_time_left.map(|t| t / 40), cpu_left.map(|t| t / 40)].into_iter().flatten().min()
}

/// An exact solver's answer: the value of a position and of each of its moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solved {
    /// The position's value for the side to move (the solver's scale: Connect Four's is
    /// Pascal Pons').
    pub score: i32,
    /// Each move's value for the side to move, in the game's order of moves (Connect
    /// Four: by column, `None` for a full column).
    pub move_scores: Vec<Option<i32>>,
}

/// What `arbiter analyse` shows of a position.
#[derive(Clone, Debug, PartialEq)]
pub enum Analysis {
    /// Where an exact solver plays the game ([`Tuning::solve`]: Connect Four 7×6): the
    /// exact value of the position and of each move.
    Solved(Solved),
    /// Any other game: the `strong` player's move (in move notation) and evaluation.
    Searched(Found<String>),
}

/// Analyses a position: solved exactly where a solver plays the game, else searched by
/// the `strong` player within `budget`. `None` when the game is over.
pub fn analyse<R: Rng + ?Sized>(pos: &AnyPosition, rng: &mut R, budget: &Budget) -> Option<Analysis> {
    struct Analyse<'a, 'b, R: ?Sized> {
        rng: &'a mut R,
        budget: &'a Budget<'b>,
    }
    impl<R: Rng + ?Sized> VisitTuned for Analyse<'_, '_, R> {
        type Output = Option<Analysis>;
        fn visit<G: Tuning>(self, pos: &G) -> Option<Analysis> {
            if let Some(solved) = pos.solve() {
                return Some(Analysis::Solved(solved));
            }
            let found = search_move(pos, Rung::Strong, self.rng, self.budget)?;
            Some(Analysis::Searched(Found { mv: pos.format_move(&found.mv), eval: found.eval, depth: found.depth, nodes: found.nodes }))
        }
    }
    visit_tuned(pos, Analyse { rng, budget })
}

/// A rung's measured strength: Elo relative to `random` in the same game, with its 95%
/// error bar.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Strength {
    pub elo: i32,
    pub error: i32,
}

/// One ladder measured for `docs/players.md`: a game on one board, and the strength of
/// each of its rungs there.
#[derive(Copy, Clone, Debug)]
pub struct Ladder {
    /// The game's name ([`GameKind::name`]).
    pub game: &'static str,
    /// The board, as people write it (`7x6`).
    pub board: &'static str,
    /// The options that make that board, beside the game's defaults (none for the
    /// default board).
    pub options: &'static [(&'static str, &'static str)],
    /// Each rung measured, weakest first.
    pub rungs: &'static [(Rung, Strength)],
}

impl Ladder {
    /// The game's options for this ladder's board.
    pub fn options(&self) -> rules::Options {
        self.options.iter().map(|(key, value)| (key.to_string(), value.to_string())).collect()
    }

    /// A rung's measured strength on this board.
    pub fn strength(&self, rung: Rung) -> Option<Strength> {
        self.rungs.iter().find(|(r, _)| *r == rung).map(|(_, strength)| *strength)
    }
}

/// The ladders measured for `docs/players.md`, a game's default board first: the
/// round robins' Elo less `random`'s, the error bar the rung's own (Gomoku, Connect Four
/// 7x6, Legions); for Nupud, Pah-tum, Reversi, chess and Connect Four 20x20, the sum of the
/// matches up the ladder, errors in quadrature.
pub const LADDERS: &[Ladder] = &[
    Ladder {
        game: "gomoku",
        board: "10x10",
        options: &[],
        rungs: &[
            (Rung::Random, Strength { elo: 0, error: 346 }),
            (Rung::Greedy, Strength { elo: 594, error: 186 }),
            (Rung::Medium, Strength { elo: 848, error: 183 }),
            (Rung::Strong, Strength { elo: 1422, error: 335 }),
        ],
    },
    Ladder {
        game: "connect4",
        board: "7x6",
        options: &[],
        rungs: &[
            (Rung::Random, Strength { elo: 0, error: 349 }),
            (Rung::Greedy, Strength { elo: 507, error: 241 }),
            (Rung::Medium, Strength { elo: 747, error: 241 }),
            (Rung::Strong, Strength { elo: 1254, error: 349 }),
            (Rung::Perfect, Strength { elo: 1254, error: 349 }),
        ],
    },
    // greedy vs random +576 ± 129 (200 games), medium vs greedy +413 ± 93 (200), strong
    // vs medium +604 ± 139 (200, from generated starts).
    Ladder {
        game: "connect4",
        board: "20x20",
        options: &[("width", "20"), ("height", "20")],
        rungs: &[
            (Rung::Random, Strength { elo: 0, error: 0 }),
            (Rung::Greedy, Strength { elo: 576, error: 129 }),
            (Rung::Medium, Strength { elo: 989, error: 159 }),
            (Rung::Strong, Strength { elo: 1593, error: 211 }),
        ],
    },
    Ladder {
        game: "reversi",
        board: "8x8",
        options: &[],
        rungs: &[
            (Rung::Random, Strength { elo: 0, error: 0 }),
            (Rung::Greedy, Strength { elo: 604, error: 133 }),
            (Rung::Medium, Strength { elo: 1645, error: 366 }),
            (Rung::Strong, Strength { elo: 2443, error: 500 }),
        ],
    },
    // greedy vs random +354 ± 73, medium vs greedy +920 ± 435, strong:200000 vs medium
    // +478 ± 134 (100 node-limited games each, `docs/players.md`).
    Ladder {
        game: "chess",
        board: "8x8",
        options: &[],
        rungs: &[
            (Rung::Random, Strength { elo: 0, error: 0 }),
            (Rung::Greedy, Strength { elo: 354, error: 73 }),
            (Rung::Medium, Strength { elo: 1274, error: 441 }),
            (Rung::Strong, Strength { elo: 1752, error: 461 }),
        ],
    },
    Ladder {
        game: "nupud",
        board: "6x6",
        options: &[],
        rungs: &[
            (Rung::Random, Strength { elo: 0, error: 0 }),
            (Rung::Greedy, Strength { elo: 430, error: 87 }),
            (Rung::Medium, Strength { elo: 849, error: 123 }),
            (Rung::Strong, Strength { elo: 1267, error: 145 }),
        ],
    },
    Ladder {
        game: "pahtum",
        board: "7x7",
        options: &[],
        rungs: &[
            (Rung::Random, Strength { elo: 0, error: 0 }),
            (Rung::Greedy, Strength { elo: 849, error: 253 }),
            (Rung::Medium, Strength { elo: 1468, error: 286 }),
            (Rung::Strong, Strength { elo: 2195, error: 346 }),
        ],
    },
    Ladder {
        game: "legions",
        board: "17x17",
        options: &[],
        rungs: &[
            (Rung::Random, Strength { elo: 0, error: 343 }),
            (Rung::Greedy, Strength { elo: 738, error: 124 }),
            (Rung::Medium, Strength { elo: 941, error: 123 }),
            (Rung::Strong, Strength { elo: 1541, error: 340 }),
        ],
    },
];
