//! The formats as schedules fed by results: [`next`] is a pure function of a stage's
//! context and its finished games that says which games can be played now, or, once the
//! stage is decided, its ranking, who qualified and who failed.
//!
//! # Game keys
//! `s{stage}/{round-tag}/{a}-{b}/m{match}/d{deal}/g{game}`, where `a` and `b` are entrant
//! ids (`a` named first: the higher seed, or the side the colour rule puts first),
//! `round-tag` is `r{round}` for the stage's own games and `x{t}` for the `t`-th round of
//! tie-break extra games, and `g` is 0 or 1 (1 only with `swap`). The match key is the key
//! up to `m{match}`. Rounds: round robin, final and groups use the cycle; Swiss its round;
//! the double-elimination bracket numbers its rounds in the order they become playable
//! (winners' round 1, losers' round 1, winners' round 2, losers' drop-in round 2, ...,
//! the final last); tie-break round `t` is numbered after the stage's last round.
//! Each game's seed is `derive_seed(tournament seed, key)`.
//!
//! # Colours and start positions
//! With `swap` a deal is two games on the same start: in game 0 `a` is side 0, in game 1
//! `b`. Without it a deal is one game and the side-0 player alternates deal after deal
//! (continuing over matches and cycles, and into a knockout's extra deals); a round robin
//! orients each pair so that every entrant is named first in half of its pairs (within
//! one), which keeps sides balanced within one game overall.
//! Start positions: with `openings.default` the first deal of a match is on the default
//! start and deal `d ≥ 1` on opening `(d − 1) mod n`; without it deal `d` is on opening
//! `d mod n`; with `matches > 1` (Pah-tum: one match per start board) the same rule is
//! applied to the match index instead, every deal of match `m` sharing its start. With no
//! openings at all every game starts from the default. Tie-break round `t` uses the start
//! of deal `deals + t − 1`.
//!
//! # Formats
//! - entry check: each participant plays one match of `deals` against the baseline and
//!   passes if it wins it by the stage's scoring; a drawn match fails. Without a baseline
//!   nothing is played and everyone passes.
//! - round robin / final: every pair meets `cycles` times (`matches` matches each); the
//!   final takes the first `top` participants; the others follow them in the ranking in
//!   their previous order.
//! - groups: `groups` groups dealt snake-wise by seeding (1st to group 0, ..., then back),
//!   a round robin in each, the leader qualifies. Ranking: the leaders in group order,
//!   then the second places in group order, and so on.
//! - double elimination: see [`bracket`]; ranking: the champion, the final's loser, then
//!   by the round in which an entrant went out (later first), then seeding.
//! - Swiss: see [`swiss`].
//! - gauntlet: `challenger` plays one meeting with every other participant; ranking by
//!   points.
//!
//! # Tie-breaks
//! Equal points are broken by the stage's `tie_breaks` in order, each applied to the
//! entrants still tied after the previous one (an earlier tie-break is not re-applied to
//! a smaller tied set): head-to-head (points in the games among the tied entrants only),
//! Sonneborn–Berger, extra games, submission (an earlier `submitted` first; entrants
//! with one come before those without; then config order: it always decides).
//! Extra games are scheduled only once the stage's own games are all finished and only
//! for ties that matter: a tie for first place in a group, any tie elsewhere (a round
//! robin's ranking feeds a later cut the stage does not know). Each round of extra games
//! is one match of one deal between every two of the tied entrants; if the round leaves
//! some of them level, those play another round, up to 3 rounds; then the next
//! tie-break. Extra games count only for this tie-break, not for points.
//! Ties no tie-break decides keep seeding order (the first of them qualifies).

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::ops::Range;

use crate::config::{Format, StageConfig, TieBreak};
use crate::scoring;
use crate::{Entrant, EntrantId, GameOutcome, GameSpec, derive_seed};

/// How many rounds of extra games a tie may take before the next tie-break decides.
pub const MAX_EXTRA_ROUNDS: u32 = 3;

/// What the schedule of one stage knows.
#[derive(Clone, Debug)]
pub struct StageContext<'a> {
    /// The stage's index (part of every key).
    pub index: usize,
    pub config: &'a StageConfig,
    /// All entrants of the tournament (for names and submission order).
    pub entrants: &'a [Entrant],
    /// Who plays this stage, in the previous stage's ranking order (the seeding).
    pub participants: &'a [EntrantId],
    /// Entry check: the baseline's id (an extra entrant the runner adds).
    pub baseline: Option<EntrantId>,
    /// How many start positions the stage has besides the default (0: default only).
    pub n_openings: usize,
    /// The tournament's seed.
    pub seed: u64,
}

/// What to do next in a stage.
#[derive(Clone, Debug, PartialEq)]
pub enum Next {
    /// Every game that can be played now and is not finished yet.
    Play(Vec<GameSpec>),
    /// The stage is decided.
    Done(StageResult),
}

/// How a stage ended.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StageResult {
    /// Best first: the order in which the next stage is seeded.
    pub ranking: Vec<EntrantId>,
    /// Who goes on to the next stage, in ranking order.
    pub qualified: Vec<EntrantId>,
    /// Entry check: who failed, and why.
    pub failed: Vec<(EntrantId, String)>,
}

/// The games of the stage to play now, or its result.
pub fn next(ctx: &StageContext, results: &[GameOutcome]) -> Next {
    let evaluation = evaluate(ctx, results);
    if evaluation.play.is_empty() { Next::Done(evaluation.result) } else { Next::Play(evaluation.play) }
}

/// Whether a game is a tie-break extra game (it counts for the extra-games tie-break
/// only, not for points).
pub fn is_extra_game(spec: &GameSpec) -> bool {
    tie_break_round(&spec.key).is_some()
}

/// The tie-break round of a game by its key (`x{t}`: `t`, counted from 1), `None` for a
/// stage's own game: pages say "tie-break 1", not the round number it is given after
/// the stage's last round.
pub fn tie_break_round(key: &str) -> Option<u32> {
    key.split('/').nth(1)?.strip_prefix('x')?.parse().ok()
}

/// A stage evaluated from its results so far.
#[derive(Debug)]
pub(crate) struct Evaluation<'r> {
    pub play: Vec<GameSpec>,
    /// The result so far (final once `play` is empty).
    pub result: StageResult,
    /// The ranked entrants in classes of equal rank (best first).
    pub classes: Vec<Vec<EntrantId>>,
    /// The tie-break values shown per entrant, in the stage's tie-break order.
    pub tie_values: BTreeMap<EntrantId, Vec<(TieBreak, Option<f64>)>>,
    /// Points not won in games (Swiss byes).
    pub bonus: BTreeMap<EntrantId, f64>,
    /// The finished games of this stage.
    pub games: Vec<&'r GameOutcome>,
}

/// The finished games of one stage, by key.
struct Finished<'r> {
    by_key: HashMap<&'r str, &'r GameOutcome>,
}

impl<'r> Finished<'r> {
    fn new(index: usize, results: &'r [GameOutcome]) -> Finished<'r> {
        Finished { by_key: results.iter().filter(|o| o.spec.stage == index).map(|o| (o.spec.key.as_str(), o)).collect() }
    }

    /// Splits specs into the finished games and the specs still to play.
    fn split(&self, specs: Vec<GameSpec>) -> (Vec<&'r GameOutcome>, Vec<GameSpec>) {
        let mut done = Vec::new();
        let mut open = Vec::new();
        for spec in specs {
            match self.by_key.get(spec.key.as_str()) {
                Some(&outcome) => done.push(outcome),
                None => open.push(spec),
            }
        }
        (done, open)
    }
}

/// One meeting's games: which tag and round, who is named first, which match.
struct Meeting<'t> {
    tag: &'t str,
    round: u32,
    a: EntrantId,
    b: EntrantId,
    match_idx: u32,
    /// Added to the deal index for the colour alternation without `swap`.
    colour_offset: u32,
}

impl StageContext<'_> {
    fn games_per_deal(&self) -> u32 {
        if self.config.swap { 2 } else { 1 }
    }

    /// The start position of deal `deal` of match `match_idx`.
    pub fn opening(&self, match_idx: u32, deal: u32) -> Option<usize> {
        let i = if self.config.matches > 1 { match_idx } else { deal } as usize;
        let n = self.n_openings;
        if self.config.openings.default {
            if i == 0 || n == 0 { None } else { Some((i - 1) % n) }
        } else if n == 0 {
            None
        } else {
            Some(i % n)
        }
    }

    /// The games of `deals` of a meeting; `opening_deal` overrides the deal index used
    /// for the start position (tie-break rounds).
    fn games(&self, meeting: &Meeting, deals: Range<u32>, opening_deal: Option<u32>) -> Vec<GameSpec> {
        let Meeting { tag, round, a, b, match_idx, colour_offset } = *meeting;
        let match_key = format!("s{}/{tag}/{a}-{b}/m{match_idx}", self.index);
        let mut specs = Vec::new();
        for deal in deals {
            let opening = self.opening(match_idx, opening_deal.unwrap_or(deal));
            for game in 0..self.games_per_deal() {
                let a_first = if self.config.swap { game == 0 } else { (colour_offset + deal) % 2 == 0 };
                let key = format!("{match_key}/d{deal}/g{game}");
                specs.push(GameSpec {
                    seed: derive_seed(self.seed, &key),
                    key,
                    stage: self.index,
                    round,
                    match_key: match_key.clone(),
                    players: if a_first { [a, b] } else { [b, a] },
                    opening,
                });
            }
        }
        specs
    }

    fn submission_key(&self, id: EntrantId) -> (bool, Option<&str>, EntrantId) {
        let submitted = self.entrants.iter().find(|e| e.id == id).and_then(|e| e.submitted.as_deref());
        (submitted.is_none(), submitted, id)
    }

    /// Of two entrants, the one submitted earlier (unknown: config order).
    fn earlier(&self, a: EntrantId, b: EntrantId) -> EntrantId {
        if self.submission_key(a) <= self.submission_key(b) { a } else { b }
    }
}

/// Evaluates a stage from its finished results.
pub(crate) fn evaluate<'r>(ctx: &StageContext, results: &'r [GameOutcome]) -> Evaluation<'r> {
    let finished = Finished::new(ctx.index, results);
    let mut games: Vec<&GameOutcome> = finished.by_key.values().copied().collect();
    games.sort_by(|x, y| x.spec.key.cmp(&y.spec.key));
    let mut evaluation = match ctx.config.format.kind() {
        Format::EntryCheck => entry_check(ctx, &finished),
        Format::RoundRobin | Format::Final => round_robin(ctx, &finished),
        Format::Groups => groups(ctx, &finished),
        Format::DoubleElimination => double_elimination(ctx, &finished),
        Format::Swiss => swiss(ctx, &finished),
        Format::Gauntlet => gauntlet(ctx, &finished),
    };
    evaluation.games = games;
    evaluation
}

fn plain(play: Vec<GameSpec>, ranking: Vec<EntrantId>, qualified: Vec<EntrantId>, failed: Vec<(EntrantId, String)>) -> Evaluation<'static> {
    Evaluation {
        play,
        classes: ranking.iter().map(|&id| vec![id]).collect(),
        result: StageResult { ranking, qualified, failed },
        tie_values: BTreeMap::new(),
        bonus: BTreeMap::new(),
        games: Vec::new(),
    }
}

fn entry_check<'r>(ctx: &StageContext, finished: &Finished<'r>) -> Evaluation<'r> {
    let Some(baseline) = ctx.baseline else {
        return plain(Vec::new(), ctx.participants.to_vec(), ctx.participants.to_vec(), Vec::new());
    };
    let mut play = Vec::new();
    let (mut passed, mut open, mut failed) = (Vec::new(), Vec::new(), Vec::new());
    for &p in ctx.participants.iter().filter(|&&p| p != baseline) {
        let meeting = Meeting { tag: "r0", round: 0, a: p, b: baseline, match_idx: 0, colour_offset: 0 };
        let (done, todo) = finished.split(ctx.games(&meeting, 0..ctx.config.deals, None));
        if !todo.is_empty() {
            play.extend(todo);
            open.push(p);
            continue;
        }
        let (own, base) = scoring::match_totals(ctx.config.scoring, &done, p, baseline);
        let score = format!("{}-{}", scoring::format_points(own), scoring::format_points(base));
        if own > base {
            passed.push(p);
        } else if own == base {
            failed.push((p, format!("drew its match against the baseline {score}")));
        } else {
            failed.push((p, format!("lost its match against the baseline {score}")));
        }
    }
    let ranking = passed.iter().chain(&open).chain(failed.iter().map(|(id, _)| id)).copied().collect();
    plain(play, ranking, passed, failed)
}

/// Which ties are worth extra games.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Matters {
    /// Any place.
    All,
    /// Only a tie for first place.
    First,
}

/// Ranks entrants by points and the stage's tie-breaks, collecting tie-break games.
struct Ranker<'c, 'r> {
    ctx: &'c StageContext<'c>,
    finished: &'c Finished<'r>,
    /// The games that count for points.
    games: Vec<&'r GameOutcome>,
    points: BTreeMap<EntrantId, f64>,
    sb: BTreeMap<EntrantId, f64>,
    /// Whether the stage's own games are all finished (extra games may be scheduled).
    complete: bool,
    matters: Matters,
    /// The round number of tie-break round 1.
    extra_round: u32,
    play: Vec<GameSpec>,
    values: BTreeMap<EntrantId, Vec<(TieBreak, Option<f64>)>>,
}

impl<'c, 'r> Ranker<'c, 'r> {
    fn new(
        ctx: &'c StageContext<'c>,
        finished: &'c Finished<'r>,
        games: Vec<&'r GameOutcome>,
        bonus: &BTreeMap<EntrantId, f64>,
        complete: bool,
        extra_round: u32,
    ) -> Self {
        let mut points = scoring::points(ctx.config.scoring, &games);
        for (&id, &b) in bonus {
            *points.entry(id).or_insert(0.0) += b;
        }
        let sb = scoring::sonneborn_berger(ctx.config.scoring, &games, &points);
        Ranker { ctx, finished, games, points, sb, complete, matters: Matters::All, extra_round, play: Vec::new(), values: BTreeMap::new() }
    }

    fn set(&mut self, id: EntrantId, tie_break: TieBreak, value: f64) {
        if let Some(slot) = self.values.get_mut(&id).and_then(|v| v.iter_mut().find(|(t, _)| *t == tie_break)) {
            slot.1 = Some(value);
        }
    }

    /// The players in classes of equal rank, best first (seeding order within a class).
    fn rank(&mut self, players: &[EntrantId]) -> Vec<Vec<EntrantId>> {
        for &id in players {
            let mut values: Vec<_> = self.ctx.config.tie_breaks.iter().map(|&t| (t, None)).collect();
            if let Some(v) = values.iter_mut().find(|(t, _)| *t == TieBreak::SonnebornBerger) {
                v.1 = Some(self.sb.get(&id).copied().unwrap_or(0.0));
            }
            self.values.insert(id, values);
        }
        let points = self.points.clone();
        let mut out = Vec::new();
        for class in split_by(players, |id| points.get(&id).copied().unwrap_or(0.0)) {
            let offset = out.iter().map(Vec::len).sum();
            out.extend(self.split(class, 0, offset));
        }
        out
    }

    /// Breaks a tie among `group` (ranked from `offset`) from tie-break `tb` on.
    fn split(&mut self, group: Vec<EntrantId>, tb: usize, offset: usize) -> Vec<Vec<EntrantId>> {
        if group.len() < 2 || tb >= self.ctx.config.tie_breaks.len() {
            return vec![group];
        }
        let tie_break = self.ctx.config.tie_breaks[tb];
        let values: BTreeMap<EntrantId, f64> = match tie_break {
            TieBreak::HeadToHead => {
                let among: Vec<_> = self.games.iter().copied().filter(|g| g.spec.players.iter().all(|p| group.contains(p))).collect();
                let points = scoring::points(self.ctx.config.scoring, &among);
                group.iter().map(|&id| (id, points.get(&id).copied().unwrap_or(0.0))).collect()
            }
            TieBreak::SonnebornBerger => group.iter().map(|&id| (id, self.sb.get(&id).copied().unwrap_or(0.0))).collect(),
            TieBreak::ExtraGames => {
                if !self.complete || (self.matters == Matters::First && offset > 0) {
                    return self.split(group, tb + 1, offset);
                }
                return self.extra_games(group, 1, tb, offset);
            }
            TieBreak::Submission => {
                let mut sorted = group;
                sorted.sort_by_key(|&id| self.ctx.submission_key(id));
                return sorted.into_iter().map(|id| vec![id]).collect();
            }
        };
        if tie_break == TieBreak::HeadToHead {
            for (&id, &v) in &values {
                self.set(id, tie_break, v);
            }
        }
        self.refine(&group, |id| values[&id], tb, offset)
    }

    /// Splits `group` by `value` and breaks what stays tied with the next tie-break.
    fn refine(&mut self, group: &[EntrantId], value: impl Fn(EntrantId) -> f64, tb: usize, offset: usize) -> Vec<Vec<EntrantId>> {
        let mut out = Vec::new();
        let mut at = offset;
        for class in split_by(group, value) {
            let len = class.len();
            out.extend(self.split(class, tb + 1, at));
            at += len;
        }
        out
    }

    /// Round `t` of extra games among `group`.
    fn extra_games(&mut self, group: Vec<EntrantId>, t: u32, tb: usize, offset: usize) -> Vec<Vec<EntrantId>> {
        if t > MAX_EXTRA_ROUNDS {
            return self.split(group, tb + 1, offset);
        }
        let tag = format!("x{t}");
        let mut specs = Vec::new();
        for (a, b) in oriented_pairs(&group) {
            let meeting = Meeting { tag: &tag, round: self.extra_round + t - 1, a, b, match_idx: 0, colour_offset: t - 1 };
            specs.extend(self.ctx.games(&meeting, 0..1, Some(self.ctx.config.deals + t - 1)));
        }
        let (done, open) = self.finished.split(specs);
        if !open.is_empty() {
            self.play.extend(open);
            return vec![group];
        }
        let points = scoring::points(self.ctx.config.scoring, &done);
        for &id in &group {
            let before = self.values[&id].iter().find(|(t, _)| *t == TieBreak::ExtraGames).and_then(|v| v.1).unwrap_or(0.0);
            self.set(id, TieBreak::ExtraGames, before + points.get(&id).copied().unwrap_or(0.0));
        }
        let mut out = Vec::new();
        let mut at = offset;
        for class in split_by(&group, |id| points.get(&id).copied().unwrap_or(0.0)) {
            let len = class.len();
            if len == 1 {
                out.push(class);
            } else {
                out.extend(self.extra_games(class, t + 1, tb, at));
            }
            at += len;
        }
        out
    }
}

/// Splits `group` into classes of equal `value`, highest first, keeping `group`'s order
/// within a class.
fn split_by(group: &[EntrantId], value: impl Fn(EntrantId) -> f64) -> Vec<Vec<EntrantId>> {
    let mut sorted = group.to_vec();
    sorted.sort_by(|&x, &y| value(y).total_cmp(&value(x)));
    let mut classes: Vec<Vec<EntrantId>> = Vec::new();
    for id in sorted {
        match classes.last_mut() {
            Some(class) if value(class[0]) == value(id) => class.push(id),
            _ => classes.push(vec![id]),
        }
    }
    classes
}

/// Every pair of `players` once, oriented so that each is named first in half of its
/// pairs (within one): `(i, j)` with `i < j` keeps its order when `i + j` is odd.
pub fn oriented_pairs(players: &[EntrantId]) -> Vec<(EntrantId, EntrantId)> {
    let mut pairs = Vec::new();
    for i in 0..players.len() {
        for j in i + 1..players.len() {
            pairs.push(if (i + j) % 2 == 1 { (players[i], players[j]) } else { (players[j], players[i]) });
        }
    }
    pairs
}

/// The round-robin games among `players` (all cycles).
fn round_robin_games(ctx: &StageContext, players: &[EntrantId]) -> Vec<GameSpec> {
    let config = ctx.config;
    let mut specs = Vec::new();
    for cycle in 0..config.format.cycles() {
        let tag = format!("r{cycle}");
        for (a, b) in oriented_pairs(players) {
            for m in 0..config.matches {
                let meeting =
                    Meeting { tag: &tag, round: cycle, a, b, match_idx: m, colour_offset: (cycle * config.matches + m) * config.deals };
                specs.extend(ctx.games(&meeting, 0..config.deals, None));
            }
        }
    }
    specs
}

fn finish<'r>(
    ranker: Ranker<'_, 'r>,
    mut play: Vec<GameSpec>,
    classes: Vec<Vec<EntrantId>>,
    rest: &[EntrantId],
    qualified: Vec<EntrantId>,
    bonus: BTreeMap<EntrantId, f64>,
) -> Evaluation<'r> {
    play.extend(ranker.play);
    let ranking: Vec<EntrantId> = classes.iter().flatten().chain(rest).copied().collect();
    Evaluation {
        play,
        result: StageResult { ranking, qualified, failed: Vec::new() },
        classes,
        tie_values: ranker.values,
        bonus,
        games: Vec::new(),
    }
}

fn round_robin<'r>(ctx: &StageContext, finished: &Finished<'r>) -> Evaluation<'r> {
    let n = ctx.config.format.top().map_or(ctx.participants.len(), |top| (top as usize).min(ctx.participants.len()));
    let (players, rest) = ctx.participants.split_at(n);
    let (done, play) = finished.split(round_robin_games(ctx, players));
    let mut ranker = Ranker::new(ctx, finished, done, &BTreeMap::new(), play.is_empty(), ctx.config.format.cycles());
    let classes = ranker.rank(players);
    let qualified = classes.iter().flatten().copied().collect();
    finish(ranker, play, classes, rest, qualified, BTreeMap::new())
}

/// The groups of a groups stage: seeding dealt snake-wise.
pub fn deal_groups(participants: &[EntrantId], groups: usize) -> Vec<Vec<EntrantId>> {
    let groups = groups.max(1);
    let mut out = vec![Vec::new(); groups];
    for (i, &id) in participants.iter().enumerate() {
        let (lap, at) = (i / groups, i % groups);
        out[if lap % 2 == 0 { at } else { groups - 1 - at }].push(id);
    }
    out
}

fn groups<'r>(ctx: &StageContext, finished: &Finished<'r>) -> Evaluation<'r> {
    let groups = deal_groups(ctx.participants, ctx.config.format.groups() as usize);
    let mut specs = Vec::new();
    for group in &groups {
        specs.extend(round_robin_games(ctx, group));
    }
    let (done, mut play) = finished.split(specs);
    let complete = play.is_empty();
    let mut ranked = Vec::new();
    let mut tie_values = BTreeMap::new();
    for group in &groups {
        let in_group: Vec<_> = done.iter().copied().filter(|g| g.spec.players.iter().all(|p| group.contains(p))).collect();
        let mut ranker = Ranker::new(ctx, finished, in_group, &BTreeMap::new(), complete, ctx.config.format.cycles());
        ranker.matters = Matters::First;
        let order: Vec<EntrantId> = ranker.rank(group).into_iter().flatten().collect();
        play.extend(std::mem::take(&mut ranker.play));
        tie_values.extend(ranker.values);
        ranked.push(order);
    }
    let longest = ranked.iter().map(Vec::len).max().unwrap_or(0);
    let ranking: Vec<EntrantId> = (0..longest).flat_map(|place| ranked.iter().filter_map(move |g| g.get(place).copied())).collect();
    let qualified = ranked.iter().filter_map(|g| g.first().copied()).collect();
    Evaluation {
        play,
        classes: ranking.iter().map(|&id| vec![id]).collect(),
        result: StageResult { ranking, qualified, failed: Vec::new() },
        tie_values,
        bonus: BTreeMap::new(),
        games: Vec::new(),
    }
}

fn gauntlet<'r>(ctx: &StageContext, finished: &Finished<'r>) -> Evaluation<'r> {
    let challenger = ctx
        .config
        .format
        .challenger()
        .and_then(|name| ctx.entrants.iter().find(|e| e.name == name))
        .map(|e| e.id)
        .filter(|id| ctx.participants.contains(id));
    let mut specs = Vec::new();
    if let Some(c) = challenger {
        for (k, &other) in ctx.participants.iter().filter(|&&p| p != c).enumerate() {
            // Alternate who is named first, for balanced sides without `swap`.
            let (a, b) = if k % 2 == 0 { (c, other) } else { (other, c) };
            for m in 0..ctx.config.matches {
                let meeting = Meeting { tag: "r0", round: 0, a, b, match_idx: m, colour_offset: m * ctx.config.deals };
                specs.extend(ctx.games(&meeting, 0..ctx.config.deals, None));
            }
        }
    }
    let (done, play) = finished.split(specs);
    let mut ranker = Ranker::new(ctx, finished, done, &BTreeMap::new(), play.is_empty(), 1);
    let classes = ranker.rank(ctx.participants);
    let qualified = classes.iter().flatten().copied().collect();
    finish(ranker, play, classes, &[], qualified, BTreeMap::new())
}

/// One round of a Swiss stage: its pairs (named first, second) and its bye.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SwissRound {
    pub pairs: Vec<(EntrantId, EntrantId)>,
    pub bye: Option<EntrantId>,
}

/// The Swiss rounds paired so far (the last one may be unfinished) and whether all
/// `rounds` are finished.
///
/// Each round ranks the entrants by points so far (byes included), then seeding. With an
/// odd count the lowest-ranked entrant that has had no bye yet sits out with a bye,
/// scored as a match won by default (see [`scoring::bye_points`]; it gives no
/// Sonneborn–Berger). The others are paired top-down, each with the highest-ranked
/// entrant it has not met yet, backtracking so that no one meets an opponent again while
/// a pairing without rematches exists (searched within a step budget; past it, or when
/// none exists, the pairing goes top-down allowing rematches). The one with fewer games
/// as side 0 so far is named first (on equal counts, the higher-ranked).
pub fn swiss_rounds(ctx: &StageContext, results: &[GameOutcome]) -> (Vec<SwissRound>, bool) {
    let finished = Finished::new(ctx.index, results);
    let state = swiss_state(ctx, &finished);
    (state.rounds, state.play.is_empty())
}

struct SwissState<'r> {
    rounds: Vec<SwissRound>,
    play: Vec<GameSpec>,
    games: Vec<&'r GameOutcome>,
    bonus: BTreeMap<EntrantId, f64>,
}

fn swiss_state<'r>(ctx: &StageContext, finished: &Finished<'r>) -> SwissState<'r> {
    let config = ctx.config;
    let games_per_match = config.matches * config.deals * ctx.games_per_deal();
    let seeding: BTreeMap<EntrantId, usize> = ctx.participants.iter().enumerate().map(|(i, &id)| (id, i)).collect();
    let mut state = SwissState { rounds: Vec::new(), play: Vec::new(), games: Vec::new(), bonus: BTreeMap::new() };
    let mut met = BTreeSet::new();
    let mut had_bye = BTreeSet::new();
    let mut side0: BTreeMap<EntrantId, u32> = BTreeMap::new();
    for round in 0..config.format.rounds() {
        let mut points = scoring::points(config.scoring, &state.games);
        for (&id, &b) in &state.bonus {
            *points.entry(id).or_insert(0.0) += b;
        }
        let mut order = ctx.participants.to_vec();
        order
            .sort_by(|&x, &y| points.get(&y).unwrap_or(&0.0).total_cmp(points.get(&x).unwrap_or(&0.0)).then(seeding[&x].cmp(&seeding[&y])));
        let mut bye = None;
        if order.len() % 2 == 1 {
            let at = order.iter().rposition(|id| !had_bye.contains(id)).unwrap_or(order.len() - 1);
            let id = order.remove(at);
            had_bye.insert(id);
            *state.bonus.entry(id).or_insert(0.0) += scoring::bye_points(config.scoring, games_per_match);
            bye = Some(id);
        }
        let pairs: Vec<(EntrantId, EntrantId)> = pair_swiss(&order, &met)
            .into_iter()
            .map(|(x, y)| if side0.get(&y).unwrap_or(&0) < side0.get(&x).unwrap_or(&0) { (y, x) } else { (x, y) })
            .collect();
        let tag = format!("r{round}");
        let mut specs = Vec::new();
        for &(a, b) in &pairs {
            for m in 0..config.matches {
                let meeting = Meeting { tag: &tag, round, a, b, match_idx: m, colour_offset: m * config.deals };
                specs.extend(ctx.games(&meeting, 0..config.deals, None));
            }
        }
        let (done, open) = finished.split(specs);
        state.games.extend(&done);
        state.rounds.push(SwissRound { pairs: pairs.clone(), bye });
        if !open.is_empty() {
            state.play = open;
            break;
        }
        for &(a, b) in &pairs {
            met.insert((a.min(b), a.max(b)));
        }
        for game in done {
            *side0.entry(game.spec.players[0]).or_insert(0) += 1;
        }
    }
    state
}

/// Pairs `order` (best first) without rematches where possible.
fn pair_swiss(order: &[EntrantId], met: &BTreeSet<(EntrantId, EntrantId)>) -> Vec<(EntrantId, EntrantId)> {
    fn search(rest: &[EntrantId], met: &BTreeSet<(EntrantId, EntrantId)>, budget: &mut u32, out: &mut Vec<(EntrantId, EntrantId)>) -> bool {
        let Some((&x, tail)) = rest.split_first() else { return true };
        for (j, &y) in tail.iter().enumerate() {
            if met.contains(&(x.min(y), x.max(y))) {
                continue;
            }
            if *budget == 0 {
                return false;
            }
            *budget -= 1;
            let mut remaining = tail.to_vec();
            remaining.remove(j);
            out.push((x, y));
            if search(&remaining, met, budget, out) {
                return true;
            }
            out.pop();
        }
        false
    }
    let mut out = Vec::new();
    let mut budget = 100_000;
    if search(order, met, &mut budget, &mut out) {
        return out;
    }
    order.chunks(2).map(|c| (c[0], c[1])).collect()
}

fn swiss<'r>(ctx: &StageContext, finished: &Finished<'r>) -> Evaluation<'r> {
    let state = swiss_state(ctx, finished);
    let complete = state.play.is_empty();
    let mut ranker = Ranker::new(ctx, finished, state.games, &state.bonus, complete, ctx.config.format.rounds());
    let classes = ranker.rank(ctx.participants);
    let qualified = classes.iter().flatten().copied().collect();
    finish(ranker, state.play, classes, &[], qualified, state.bonus)
}

/// Where a bracket match's side comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// The participant at this seeding position (none past the field: a bye).
    Seed(usize),
    Winner(usize),
    Loser(usize),
}

/// One match of a double-elimination bracket.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BracketMatch {
    pub round: u32,
    pub sides: [Source; 2],
    /// Whether its loser is out (losers' bracket and final) or drops to the losers'
    /// bracket (winners' bracket).
    pub eliminates: bool,
}

/// The double-elimination bracket for `n` entrants (n ≥ 2), in playing order; the last
/// match is the final.
///
/// The winners' bracket has `P` = the next power of two slots, seeded in the standard
/// order (1 v P, 2 v P−1, ...); the missing seeds are byes, so the top seeds advance
/// without a match. Losers' round 1 pairs the losers of winners' round 1; then for each
/// later winners' round a drop-in round pairs the losers'-bracket survivors with that
/// round's losers (in reverse order every other time, to put off rematches), followed,
/// except after the winners' final, by a round among the survivors. A side whose source is
/// a bye is empty and its opponent advances without playing. The final is played once:
/// the winners'-bracket champion against the losers'-bracket champion, and its winner is
/// the champion. Every entrant but the champion is out after two lost matches, except the
/// winners'-bracket champion when it loses the final: with no reset it is out after that
/// one loss (the final's loser has two losses whenever it came from the losers' bracket).
pub fn bracket(n: usize) -> Vec<BracketMatch> {
    let p = n.next_power_of_two().max(2);
    let k = p.trailing_zeros();
    let mut order = vec![0];
    while order.len() < p {
        let m = order.len() * 2;
        order = order.iter().flat_map(|&s| [s, m - 1 - s]).collect();
    }
    let mut matches = Vec::new();
    let mut round = 0;
    let mut add_round = |matches: &mut Vec<BracketMatch>, sides: Vec<[Source; 2]>, eliminates: bool| {
        let first = matches.len();
        matches.extend(sides.into_iter().map(|sides| BracketMatch { round, sides, eliminates }));
        round += 1;
        (first..matches.len()).collect::<Vec<usize>>()
    };
    let mut wb = add_round(&mut matches, (0..p / 2).map(|m| [Source::Seed(order[2 * m]), Source::Seed(order[2 * m + 1])]).collect(), false);
    let lb_champion = if k == 1 {
        Source::Loser(wb[0])
    } else {
        let mut lb = add_round(&mut matches, (0..p / 4).map(|m| [Source::Loser(wb[2 * m]), Source::Loser(wb[2 * m + 1])]).collect(), true);
        for r in 2..=k {
            wb = add_round(
                &mut matches,
                (0..wb.len() / 2).map(|m| [Source::Winner(wb[2 * m]), Source::Winner(wb[2 * m + 1])]).collect(),
                false,
            );
            let count = lb.len();
            let drop_in =
                (0..count).map(|i| [Source::Winner(lb[i]), Source::Loser(wb[if r % 2 == 0 { count - 1 - i } else { i }])]).collect();
            lb = add_round(&mut matches, drop_in, true);
            if r < k {
                lb = add_round(
                    &mut matches,
                    (0..lb.len() / 2).map(|m| [Source::Winner(lb[2 * m]), Source::Winner(lb[2 * m + 1])]).collect(),
                    true,
                );
            }
        }
        Source::Winner(lb[0])
    };
    add_round(&mut matches, vec![[Source::Winner(wb[0]), lb_champion]], true);
    matches
}

/// Who holds one side of a bracket match so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    /// Not known yet: the match it comes from is undecided.
    Pending,
    /// Nobody: a bye.
    Bye,
    Entrant(EntrantId),
}

/// One match of a double-elimination bracket as it stands.
#[derive(Clone, Debug, PartialEq)]
pub struct BracketState {
    /// Its place in the bracket (round, where its sides come from).
    pub shape: BracketMatch,
    pub players: [Slot; 2],
    /// Who goes on as its winner: an entrant once decided (or advanced by a bye), a bye
    /// when both sides were byes.
    pub winner: Slot,
    /// Who goes on (or out) as its loser: a bye after a bye.
    pub loser: Slot,
    /// Its finished games (extra deals included).
    pub games: u32,
    /// Points of each side over those games, by the stage's scoring (`None` unless both
    /// sides are entrants).
    pub points: Option<[f64; 2]>,
}

/// The double-elimination bracket of a stage as its finished games decide it, in playing
/// order (the last match is the final); empty with fewer than two participants.
pub fn bracket_state(ctx: &StageContext, results: &[GameOutcome]) -> Vec<BracketState> {
    let finished = Finished::new(ctx.index, results);
    bracket_states(ctx, &finished, &mut Vec::new())
}

/// The bracket's matches with their sides and winners; adds the games to play to `play`.
fn bracket_states(ctx: &StageContext, finished: &Finished, play: &mut Vec<GameSpec>) -> Vec<BracketState> {
    let participants = ctx.participants;
    if participants.len() < 2 {
        return Vec::new();
    }
    let mut states: Vec<BracketState> = Vec::new();
    for m in bracket(participants.len()) {
        let slot = |source: Source| match source {
            Source::Seed(pos) => participants.get(pos).map_or(Slot::Bye, |&id| Slot::Entrant(id)),
            Source::Winner(j) => states[j].winner,
            Source::Loser(j) => states[j].loser,
        };
        let players = [slot(m.sides[0]), slot(m.sides[1])];
        let mut state = BracketState { shape: m, players, winner: Slot::Pending, loser: Slot::Pending, games: 0, points: None };
        match players {
            [Slot::Pending, _] | [_, Slot::Pending] => {}
            [Slot::Entrant(a), Slot::Entrant(b)] => {
                if let Some(winner) = knockout(ctx, finished, state.shape.round, a, b, play) {
                    state.winner = Slot::Entrant(winner);
                    state.loser = Slot::Entrant(if winner == a { b } else { a });
                }
                let tag = format!("r{}", state.shape.round);
                let meeting = Meeting { tag: &tag, round: state.shape.round, a, b, match_idx: 0, colour_offset: 0 };
                let (done, _) = finished.split(ctx.games(&meeting, 0..ctx.config.deals + ctx.config.format.extra_deals(), None));
                let (pa, pb) = scoring::match_totals(ctx.config.scoring, &done, a, b);
                state.games = done.len() as u32;
                state.points = Some([pa, pb]);
            }
            [Slot::Entrant(a), Slot::Bye] | [Slot::Bye, Slot::Entrant(a)] => (state.winner, state.loser) = (Slot::Entrant(a), Slot::Bye),
            [Slot::Bye, Slot::Bye] => (state.winner, state.loser) = (Slot::Bye, Slot::Bye),
        }
        states.push(state);
    }
    states
}

fn double_elimination<'r>(ctx: &StageContext, finished: &Finished<'r>) -> Evaluation<'r> {
    let participants = ctx.participants;
    if participants.len() < 2 {
        return plain(Vec::new(), participants.to_vec(), participants.to_vec(), Vec::new());
    }
    let mut play = Vec::new();
    let states = bracket_states(ctx, finished, &mut play);
    let mut losses: BTreeMap<EntrantId, u32> = BTreeMap::new();
    let mut out_round: BTreeMap<EntrantId, u32> = BTreeMap::new();
    let mut champion = None;
    for (i, state) in states.iter().enumerate() {
        if let (Slot::Entrant(winner), Slot::Entrant(loser)) = (state.winner, state.loser) {
            *losses.entry(loser).or_insert(0) += 1;
            if state.shape.eliminates {
                out_round.insert(loser, state.shape.round);
            }
            if i == states.len() - 1 {
                champion = Some(winner);
            }
        }
    }
    let mut ranking = participants.to_vec();
    ranking.sort_by_key(|id| {
        let out = out_round.get(id).copied();
        let seed = participants.iter().position(|p| p == id);
        (out.is_some(), Reverse(out), losses.get(id).copied().unwrap_or(0), seed)
    });
    plain(play, ranking, champion.into_iter().collect(), Vec::new())
}

/// Decides a knockout match: its deals, then `extra_deals` more if level, then the
/// earlier submission. `None` while games are unfinished (they are added to `play`).
fn knockout(
    ctx: &StageContext,
    finished: &Finished,
    round: u32,
    a: EntrantId,
    b: EntrantId,
    play: &mut Vec<GameSpec>,
) -> Option<EntrantId> {
    let tag = format!("r{round}");
    let meeting = Meeting { tag: &tag, round, a, b, match_idx: 0, colour_offset: 0 };
    let (mut done, open) = finished.split(ctx.games(&meeting, 0..ctx.config.deals, None));
    if !open.is_empty() {
        play.extend(open);
        return None;
    }
    if let Some(winner) = scoring::match_winner(ctx.config.scoring, &done, a, b) {
        return Some(winner);
    }
    if ctx.config.format.extra_deals() > 0 {
        let deals = ctx.config.deals..ctx.config.deals + ctx.config.format.extra_deals();
        let (extra, open) = finished.split(ctx.games(&meeting, deals, None));
        if !open.is_empty() {
            play.extend(open);
            return None;
        }
        done.extend(extra);
        if let Some(winner) = scoring::match_winner(ctx.config.scoring, &done, a, b) {
            return Some(winner);
        }
    }
    Some(ctx.earlier(a, b))
}
