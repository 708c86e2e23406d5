//! The Legions player's ideas: a turn is a list of orders, too many to list, so the greedy
//! player weighs a sample built here: the strike on the enemy city when five legions take
//! it, the best-gain turn, and random turns that send each target the legions it needs.
//! The orders are tried on a copy of the board ([`Board::send`] runs them as the rules do).
//! `strong` adds turns of two captures, every affordable pair tried ([`capture_turns`]),
//! and weighs the cuts they threaten ([`capture_threat`]).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rand::seq::IndexedRandom;
use rand::{Rng, RngExt};
use rules::legions::{Board, Effect, LEGIONS_PER_TURN, Move, Position};
use rules::{Game, Side};

use crate::{Budget, Evaluation, Found, Rung, Tuning};

/// `medium`'s cap in Legions, in turns weighed, which its samples stay under.
pub const MEDIUM_NODES: u64 = 2_000;
/// `strong`'s cap in Legions, in turns weighed: weighing more did not play better
/// (`strong:100000`, its whole screen, scored 78% against `medium` where 3,000 scored
/// 80%), and with the cap its games at any limits are its node-limited ones, unless its
/// clock stops it first (`docs/players.md`).
pub const STRONG_NODES: u64 = 3_000;

/// Legions' players: a turn is too many orders to list, so they weigh the sample of
/// [`candidates`], and search it their own way ([`search`]).
impl Tuning for Position {
    fn default_nodes(rung: Rung) -> Option<u64> {
        match rung {
            Rung::Medium => Some(MEDIUM_NODES),
            Rung::Strong => Some(STRONG_NODES),
            _ => rung.default_nodes(),
        }
    }

    fn candidates<R: Rng + ?Sized>(&self, rng: &mut R, out: &mut Vec<Move>) {
        candidates(self, rng, out);
    }

    fn search<R: Rng + ?Sized>(&self, rung: Rung, rng: &mut R, budget: &Budget) -> Option<Found<Move>> {
        search(self, rung, rng, budget)
    }
}

/// How many samples of candidate turns `medium` weighs: against `greedy` (200
/// node-limited games each, `docs/players.md`), 10 scored 86%, 20 scored 92%.
const MEDIUM_SAMPLES: usize = 20;

/// How many samples `strong` weighs as `medium` does before looking deeper at the best.
const STRONG_SCREEN: usize = 4;

/// How many of the opponent's best replies (as `medium` weighs them) `strong` answers
/// each turn it looks deeper at with, counting the worst: with 1, 3,000 turns weighed
/// won 15 of the first 16 node-limited games against `medium`; with 3, 13 of 15.
const STRONG_REPLIES: usize = 1;

/// How far `strong`'s leaf counts the enemy's way to its city, in legions.
const STRONG_REACH: i64 = 20;

/// What `strong`'s leaf counts each legion the enemy's way to its city costs: in
/// node-limited games against `medium` (`strong:3000`, games 0 to 15 of `arbiter match
/// --seed 14`), 3 a legion (with 1 off for each legion of its own way to the enemy city)
/// won 15 of 16, 2 a legion (reach 16) won 8, none won 4 of the first 8.
///
/// Its own way to the enemy city is no longer counted (it was, 1 off a legion): that
/// term sent `strong` up the board edge towards the enemy city in a line one province
/// wide, which `greedy`'s veterans cut from its city. Without it, `strong:3000` won 59
/// of games 0 to 63 of `arbiter match legions strong greedy --seed 14` (46 with it);
/// against `medium` it made no clear difference (`docs/players.md`).
const STRONG_GUARD: i64 = 3;

/// How much of the way from the value after `medium`'s reply to the value after the
/// greedy player's reply `strong` goes when the greedy reply leaves it worse off (all
/// the way when its city falls): `medium` picks a reply knowing `strong` answers it, so
/// it passes over captures `strong` takes back; the greedy player makes them, and its
/// veterans cut `strong`'s lines. Half the way (tried first) broke the guard of the city
/// (`strong_bars_the_way_to_its_city_before_it_is_within_a_turn`).
const STRONG_GREEDY_WEIGHT: (i64, i64) = (3, 8);

/// How many turns of one or two captures ([`capture_turns`], the best by the lead after
/// them) `strong` adds to its screen and to each sample of the opponent's replies it
/// weighs.
const STRONG_CAPTURES: usize = 3;

/// How much of each side's best cut ([`capture_threat`]) `strong`'s leaf counts, the
/// enemy's taken off and its own added. In node-limited games against `medium`
/// (`strong:3000`, games 0 to 127 of `arbiter match legions strong medium --seed 14`,
/// with [`STRONG_CAPTURES`]): the enemy's alone, 2/8 won 111, 4/8 won 110, 8/8 won 89;
/// both, 3/8 won 117 (`docs/players.md`).
const STRONG_THREAT: (i64, i64) = (3, 8);

/// How many captures tried ([`capture_turns`], [`capture_threat`]) count as one turn
/// weighed in `strong`'s node count (a capture is a copy of the board and one order,
/// where a turn weighed plays a turn and the greedy reply).
const CAPTURES_PER_NODE: u64 = 32;

/// How many random turns the sample holds (half of them preferring attacks).
const RANDOM_TURNS: usize = 40;

/// Appends the turns worth weighing: the city strike when there is one, the greedy turn,
/// and [`RANDOM_TURNS`] random turns, without repeats; nothing when the game is over.
pub fn candidates<R: Rng + ?Sized>(pos: &Position, rng: &mut R, out: &mut Vec<Move>) {
    let Some(side) = pos.to_move() else { return };
    let start = out.len();
    let push = |out: &mut Vec<Move>, mv: Move| {
        if !out[start..].contains(&mv) {
            out.push(mv);
        }
    };
    if let Some(strike) = city_strike(pos.board(), side) {
        push(out, strike);
    }
    push(out, greedy(pos, side));
    for k in 0..RANDOM_TURNS {
        let attack = if k % 2 == 0 { 0.0 } else { 0.7 };
        push(out, smart_random(pos.board(), side, attack, rng));
    }
}

/// The cheapest way to the enemy city: orders along a path from `side`'s connected
/// provinces, each with the legions its province needs; `None` when it needs more than 5.
pub fn city_strike(board: &Board, side: Side) -> Option<Move> {
    let n = board.size();
    let (dist, parent) = paths_to_city(board, side, LEGIONS_PER_TURN);
    let (tx, ty) = board.city_of(side.other());
    let target = ty * n + tx;
    if dist[target] > LEGIONS_PER_TURN {
        return None;
    }
    let mut path = Vec::new();
    let mut i = target;
    while dist[i] > 0 {
        let (x, y) = (i % n, i / n);
        let need = board.cost(side, x, y);
        if need > 0 {
            path.push((x as i64, y as i64, need));
        }
        i = parent[i];
    }
    path.reverse();
    Some(Move::sends(&path))
}

/// The legions `side` needs to reach each province from its connected ones (0 for those,
/// Dijkstra over [`Board::cost`]), explored up to `limit`, and the province each was
/// reached from; stops once the enemy city is reached.
fn paths_to_city(board: &Board, side: Side, limit: i64) -> (Vec<i64>, Vec<usize>) {
    let n = board.size();
    let idx = |x: usize, y: usize| y * n + x;
    let mut dist = vec![i64::MAX; n * n];
    let mut parent = vec![usize::MAX; n * n];
    let mut heap = BinaryHeap::new();
    for y in 0..n {
        for x in 0..n {
            if board.is_connected_to(side, x, y) {
                dist[idx(x, y)] = 0;
                heap.push(Reverse((0i64, idx(x, y))));
            }
        }
    }
    let (tx, ty) = board.city_of(side.other());
    let target = idx(tx, ty);
    while let Some(Reverse((d, i))) = heap.pop() {
        if d > dist[i] || d > limit {
            continue;
        }
        if i == target {
            break;
        }
        let (x, y) = (i % n, i / n);
        let neighbours = [(x.wrapping_sub(1), y), (x + 1, y), (x, y.wrapping_sub(1)), (x, y + 1)];
        for (nx, ny) in neighbours.into_iter().filter(|&(nx, ny)| nx < n && ny < n) {
            let j = idx(nx, ny);
            let nd = d + board.cost(side, nx, ny);
            if nd < dist[j] {
                dist[j] = nd;
                parent[j] = i;
                heap.push(Reverse((nd, j)));
            }
        }
    }
    (dist, parent)
}

/// The legions `side` needs to take the enemy city, counted up to `limit` (more: `None`):
/// the cost of [`paths_to_city`]'s way, searched back from the city (a search that
/// stays near it, where the forward one starts from every connected province).
pub fn strike_cost(board: &Board, side: Side, limit: i64) -> Option<i64> {
    let n = board.size();
    let (tx, ty) = board.city_of(side.other());
    // dist[i]: the legions to take province i and every province from it to the city.
    let mut dist = [i64::MAX; rules::legions::MAX_SIZE * rules::legions::MAX_SIZE];
    let mut heap = BinaryHeap::new();
    let start = board.cost(side, tx, ty);
    if start == 0 {
        return Some(0).filter(|_| limit >= 0);
    }
    dist[ty * n + tx] = start;
    heap.push(Reverse((start, ty * n + tx)));
    while let Some(Reverse((d, i))) = heap.pop() {
        if d > limit {
            return None;
        }
        if d > dist[i] {
            continue;
        }
        let (x, y) = (i % n, i / n);
        let neighbours = [(x.wrapping_sub(1), y), (x + 1, y), (x, y.wrapping_sub(1)), (x, y + 1)];
        let neighbours = neighbours.into_iter().filter(|&(nx, ny)| nx < n && ny < n);
        if neighbours.clone().any(|(nx, ny)| board.is_connected_to(side, nx, ny)) {
            return Some(d);
        }
        for (nx, ny) in neighbours {
            let j = ny * n + nx;
            let nd = d + board.cost(side, nx, ny);
            if nd < dist[j] {
                dist[j] = nd;
                heap.push(Reverse((nd, j)));
            }
        }
    }
    None
}

/// How far a search looks for a way to a city, in legions: a threat that needs more
/// than this is none.
const GUARD_REACH: i64 = 10;

/// The provinces on the enemy's cheapest way to `side`'s city (within [`GUARD_REACH`]),
/// the city's side first; empty when there is none that cheap.
fn threat_path(board: &Board, side: Side) -> Vec<(usize, usize)> {
    let n = board.size();
    let enemy = side.other();
    let (dist, parent) = paths_to_city(board, enemy, GUARD_REACH);
    let (cx, cy) = board.city_of(side);
    let mut i = cy * n + cx;
    let mut path = Vec::new();
    if dist[i] > GUARD_REACH {
        return path;
    }
    while dist[i] > 0 {
        path.push((i % n, i / n));
        i = parent[i];
    }
    path
}

/// A turn that makes the enemy's cheapest way to `side`'s city as dear as it can, order
/// by order: each takes the province on that way (as it is after the orders before) that
/// raises its price most; `None` when there is no way within [`GUARD_REACH`] or no
/// order raises its price.
pub fn city_guard(board: &Board, side: Side) -> Option<Move> {
    let enemy = side.other();
    let price = |board: &Board| strike_cost(board, enemy, GUARD_REACH).unwrap_or(GUARD_REACH + 1);
    let mut board = *board;
    let mut left = LEGIONS_PER_TURN;
    let mut orders = Vec::new();
    while left > 0 {
        let now = price(&board);
        if now > GUARD_REACH {
            break;
        }
        let targets = board.targets(side);
        // (price after, legions, x, y): the dearest, then the cheapest.
        let mut best: Option<(i64, i64, usize, usize)> = None;
        for (x, y) in threat_path(&board, side) {
            let need = board.cost(side, x, y);
            if need == 0 || need > left || !targets.contains(&(x, y)) {
                continue;
            }
            let mut next = board;
            next.send(side, x, y, need);
            let after = price(&next);
            if after > now && best.is_none_or(|(top, legions, _, _)| (after, Reverse(need)) > (top, Reverse(legions))) {
                best = Some((after, need, x, y));
            }
        }
        let Some((_, need, x, y)) = best else { break };
        board.send(side, x, y, need);
        orders.push((x as i64, y as i64, need));
        left -= need;
    }
    (!orders.is_empty()).then(|| Move::sends(&orders))
}

/// Whether `side` has taken the enemy city on `board`.
fn holds_enemy_city(board: &Board, side: Side) -> bool {
    let (cx, cy) = board.city_of(side.other());
    board.holder(cx, cy).is_some_and(|legion| legion.owner == side)
}

/// `side`'s score lead on `board`, or a huge value once it holds the enemy city.
fn lead(board: &Board, side: Side, score_disconnected: bool) -> i64 {
    if holds_enemy_city(board, side) {
        return i64::MAX / 2;
    }
    board.points(side, score_disconnected) - board.points(side.other(), score_disconnected)
}

/// Orders chosen one by one, each the affordable target with the best lead gain per
/// legion (ties: the first in row order), until the legions run out or the city falls.
pub fn greedy(pos: &Position, side: Side) -> Move {
    greedy_turn(pos, side, false)
}

/// [`greedy`], ties broken by the nearest to `side`'s city when `compact` (the turn that
/// keeps its provinces together), else by row order.
fn greedy_turn(pos: &Position, side: Side, compact: bool) -> Move {
    greedy_finish(pos.board(), side, pos.score_disconnected(), compact, false)
}

/// [`greedy_turn`] on `board`, the targets looked at last row first when `mirrored` (ties
/// then go to the last in row order).
fn greedy_finish(board: &Board, side: Side, scoring: bool, compact: bool, mirrored: bool) -> Move {
    let mut orders = Vec::new();
    greedy_fill(*board, side, scoring, compact, mirrored, LEGIONS_PER_TURN, &mut orders);
    Move::sends(&orders)
}

/// [`greedy_finish`]'s orders for `left` legions on `board`, appended to `orders`.
fn greedy_fill(
    mut board: Board,
    side: Side,
    scoring: bool,
    compact: bool,
    mirrored: bool,
    mut left: i64,
    orders: &mut Vec<(i64, i64, i64)>,
) {
    let (cx, cy) = board.city_of(side);
    if holds_enemy_city(&board, side) {
        return;
    }
    while left > 0 {
        let base = lead(&board, side, scoring);
        // (gain, legions), the order, the board after it.
        type Best = ((i64, i64), (usize, usize, i64), Board);
        let mut best: Option<Best> = None;
        let mut targets = board.targets(side);
        if mirrored {
            targets.reverse();
        }
        for (x, y) in targets {
            let need = board.cost(side, x, y);
            if need > left {
                continue;
            }
            // An empty province that joins no cut-off province of ours to the city gains
            // exactly its novice's point: no need to play it unless it is the best.
            let quiet = need == 1 && (scoring || !joins_cut_off(&board, side, x, y));
            let (gain, next) = if quiet {
                (1, None)
            } else {
                let mut next = board;
                next.send(side, x, y, need);
                (lead(&next, side, scoring).saturating_sub(base), Some(next))
            };
            // gain / need against the best's, as fractions: gain * best_need > best_gain * need.
            let better = match &best {
                None => true,
                Some(((g, k), (bx, by, _), _)) => {
                    let (this, top) = (gain.saturating_mul(*k), g.saturating_mul(need));
                    this > top || (compact && this == top && x.abs_diff(cx) + y.abs_diff(cy) < bx.abs_diff(cx) + by.abs_diff(cy))
                }
            };
            if better {
                let next = next.unwrap_or_else(|| {
                    let mut next = board;
                    next.send(side, x, y, need);
                    next
                });
                best = Some(((gain, need), (x, y, need), next));
            }
        }
        let Some((_, (x, y, need), next)) = best else { break };
        orders.push((x as i64, y as i64, need));
        left -= need;
        board = next;
        if holds_enemy_city(&board, side) {
            break;
        }
    }
}

/// `side`'s turns that take two enemy provinces (or one, when no second is affordable
/// after it), every pair it can afford tried in turn; the `keep` best by `side`'s lead
/// after them, each finished with the greedy player's orders for the legions left.
/// Adds the captures tried to `tried`.
///
/// Why pairs: a corridor two provinces wide falls to one turn of two captures, while the
/// greedy player takes one capture at a time by its own gain, and `medium` finds a given
/// pair only when its random turns happen to hold it.
pub fn capture_turns(board: &Board, side: Side, scoring: bool, keep: usize, tried: &mut u64) -> Vec<Move> {
    // (lead after, the captures, the board after them), best first.
    type Kept = (i64, Vec<(i64, i64, i64)>, Board);
    let mut best: Vec<Kept> = Vec::new();
    each_capture(board, side, tried, |orders, after| {
        let value = lead(after, side, scoring);
        if best.len() == keep && best.last().is_some_and(|(worst, _, _)| value <= *worst) {
            return;
        }
        let at = best.partition_point(|(v, _, _)| *v >= value);
        best.insert(at, (value, orders.to_vec(), *after));
        best.truncate(keep);
    });
    best.into_iter()
        .map(|(_, mut orders, after)| {
            let left = LEGIONS_PER_TURN - orders.iter().map(|(_, _, c)| c).sum::<i64>();
            greedy_fill(after, side, scoring, false, false, left, &mut orders);
            Move::sends(&orders)
        })
        .collect()
}

/// How many points beyond the captures themselves `side`'s best turn of one or two
/// captures gains (provinces it cuts from the enemy city, or joins again to its own);
/// turns that take the city are left out. Adds the captures tried to `tried`.
pub fn capture_threat(board: &Board, side: Side, scoring: bool, tried: &mut u64) -> i64 {
    let base = lead(board, side, scoring);
    let mut best = 0;
    each_capture(board, side, tried, |orders, after| {
        if holds_enemy_city(after, side) {
            // The city's fall is for the strike's own checks to weigh.
            return;
        }
        // A novice taken is 3 points of lead (2 gained, 1 lost), a veteran 4.
        let face: i64 = orders.iter().map(|&(_, _, c)| c + 1).sum();
        best = best.max(lead(after, side, scoring).saturating_sub(base) - face);
    });
    best
}

/// Calls `visit` with every turn of `side` that takes two enemy provinces it can afford
/// (or one, when no second is affordable after it), the captures and the board after
/// them; each pair once. Adds the captures tried to `tried`.
fn each_capture(board: &Board, side: Side, tried: &mut u64, mut visit: impl FnMut(&[(i64, i64, i64)], &Board)) {
    let affordable = |board: &Board, left: i64| -> Vec<(usize, usize, i64)> {
        board
            .targets(side)
            .into_iter()
            .filter_map(|(x, y)| {
                let need = board.cost(side, x, y);
                (need >= 2 && need <= left).then_some((x, y, need))
            })
            .collect()
    };
    let firsts = affordable(board, LEGIONS_PER_TURN);
    for (i, &(ax, ay, a_need)) in firsts.iter().enumerate() {
        let mut one = *board;
        one.send(side, ax, ay, a_need);
        *tried += 1;
        let first = (ax as i64, ay as i64, a_need);
        if holds_enemy_city(&one, side) {
            visit(&[first], &one);
            continue;
        }
        let seconds = affordable(&one, LEGIONS_PER_TURN - a_need);
        if seconds.is_empty() {
            visit(&[first], &one);
        }
        for (bx, by, b_need) in seconds {
            // Each pair once: the second before the first when both were reachable at first.
            if firsts[..i].iter().any(|&(x, y, _)| (x, y) == (bx, by)) {
                continue;
            }
            let mut two = one;
            two.send(side, bx, by, b_need);
            *tried += 1;
            visit(&[first, (bx as i64, by as i64, b_need)], &two);
        }
    }
}

/// Whether (x, y) borders a province of `side` cut off from its city (taking it may
/// join them again).
fn joins_cut_off(board: &Board, side: Side, x: usize, y: usize) -> bool {
    let n = board.size();
    let neighbours = [(x.wrapping_sub(1), y), (x + 1, y), (x, y.wrapping_sub(1)), (x, y + 1)];
    neighbours.into_iter().any(|(nx, ny)| {
        nx < n && ny < n && board.holder(nx, ny).is_some_and(|legion| legion.owner == side) && !board.is_connected_to(side, nx, ny)
    })
}

/// Orders chosen at random among the affordable targets, each with the legions it needs;
/// `attack` is the chance of preferring an enemy province when one is affordable.
pub fn smart_random<R: Rng + ?Sized>(board: &Board, side: Side, attack: f64, rng: &mut R) -> Move {
    let mut board = *board;
    let mut left = LEGIONS_PER_TURN;
    let mut orders = Vec::new();
    while left > 0 {
        let cheap: Vec<(usize, usize)> = board.targets(side).into_iter().filter(|&(x, y)| board.cost(side, x, y) <= left).collect();
        let enemy: Vec<(usize, usize)> = cheap.iter().copied().filter(|&(x, y)| board.cost(side, x, y) >= 2).collect();
        let pick = if rng.random_bool(attack) { enemy.choose(rng).or_else(|| cheap.choose(rng)) } else { cheap.choose(rng) };
        let Some(&(x, y)) = pick else { break };
        let need = board.cost(side, x, y);
        let effect = board.send(side, x, y, need);
        orders.push((x as i64, y as i64, need));
        left -= need;
        if matches!(effect, Effect::Captured { city: true, .. }) {
            break;
        }
    }
    Move::sends(&orders)
}

/// The search rungs' turn. `medium` weighs [`MEDIUM_SAMPLES`] samples of the turns
/// worth weighing ([`sample`]) by [`weigh`] and plays the best; `strong` does the same
/// with a few samples, then looks deeper at the best turns ([`deep_value`]).
pub fn search<R: Rng + ?Sized>(pos: &Position, rung: Rung, rng: &mut R, budget: &Budget) -> Option<Found<Move>> {
    let me = pos.to_move()?;
    if rung == Rung::Strong {
        return strong(pos, me, rng, budget);
    }
    let mut best: Option<(i64, Move)> = None;
    let mut weighed = 0u64;
    let mut turns = Vec::new();
    'samples: for _ in 0..MEDIUM_SAMPLES {
        turns.clear();
        sample(pos, me, rng, &mut turns);
        for turn in turns.drain(..) {
            if best.is_some() && budget.spent(weighed) {
                break 'samples;
            }
            weighed += 1;
            let Some(value) = weigh(pos, &turn, me) else { continue };
            if best.as_ref().is_none_or(|(top, _)| value > *top) {
                best = Some((value, turn));
            }
        }
    }
    let (value, mv) = best?;
    Some(found(mv, value, 2, weighed))
}

/// A search's answer from its value for the side to move (clamped to the evaluation's range).
fn found(mv: Move, value: i64, depth: u32, nodes: u64) -> Found<Move> {
    Found { mv, eval: Evaluation::Score(value.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32), depth, nodes }
}

/// One sample of the turns worth weighing for `side`: [`candidates`], the turn that
/// guards its city best ([`city_guard`]) and the best-gain turn that keeps its provinces
/// together; for player 1, first of all (the first of equals is played) the best-gain
/// turn with targets taken last row first ([`greedy_finish`] mirrored).
///
/// Why the mirror: the greedy turn takes targets row by row, so the first turns, all
/// alike in gain, spread player 0 along its own top edge but send player 1 up its
/// column, a thin line into player 0's half that player 0 cuts off: in the games of
/// `arbiter match legions medium greedy --seed 14`, `medium` as player 1 was 20 to 40
/// points behind after 50 plies in most games it lost. Mirrored, player 1 spreads along
/// its bottom edge as player 0 does along its top one: games 0 to 99 of that match went
/// from 86 won to 92 (`docs/players.md`).
fn sample<R: Rng + ?Sized>(pos: &Position, side: Side, rng: &mut R, out: &mut Vec<Move>) {
    let start = out.len();
    candidates(pos, rng, out);
    if side == Side::Second {
        let mirrored = greedy_finish(pos.board(), side, pos.score_disconnected(), false, true);
        if let Some(i) = out[start..].iter().position(|turn| *turn == mirrored) {
            out.remove(start + i);
        }
        out.insert(start, mirrored);
    }
    if let Some(guard) = city_guard(pos.board(), side) {
        out.insert(start, guard);
    }
    out.push(greedy_turn(pos, side, true));
}

/// How good `turn` is for `me`, `me` to move in `pos`, as `medium` sees it: answered by
/// the opponent's best reply as the greedy player sees it (the city strike, else the
/// best-gain turn), the lead then ([`leaf_value`]); `None` when `turn` is illegal.
fn weigh(pos: &Position, turn: &Move, me: Side) -> Option<i64> {
    let mut next = pos.clone();
    next.play(turn).ok()?;
    let Some(them) = next.to_move() else { return Some(outcome_value(&next, me)) };
    // The strike's path only when it exists (its price is quicker to find).
    let strike = strike_cost(next.board(), them, LEGIONS_PER_TURN).and_then(|_| city_strike(next.board(), them));
    let reply = strike.unwrap_or_else(|| greedy(&next, them));
    let mut after = next.clone();
    if after.play(&reply).is_err() {
        after = next;
    }
    Some(if after.outcome().is_some() { outcome_value(&after, me) } else { leaf_value(&after, me, pos.score_disconnected()) })
}

/// `strong`'s turn: [`STRONG_SCREEN`] samples and its [`STRONG_CAPTURES`] best turns of
/// captures ([`capture_turns`]) weighed as `medium` weighs them, then the
/// best of them, best first, weighed again by [`deep_value`] (the opponent answering as
/// `medium` would, its [`STRONG_REPLIES`] best replies, the worst for `me` counted) until
/// the budget is spent; the best by that deeper value is played. Weighing more samples
/// as `medium` does only fits the turn closer to a reply the opponent does not play (40
/// samples did not beat 20, and 3,000 turns weighed lost 6 games of 6 to `medium`).
fn strong<R: Rng + ?Sized>(pos: &Position, me: Side, rng: &mut R, budget: &Budget) -> Option<Found<Move>> {
    let (screen_samples, replies) = (STRONG_SCREEN, STRONG_REPLIES);
    let mut weighed = 0u64;
    let mut screened: Vec<(i64, Move)> = Vec::new();
    let mut turns = Vec::new();
    'samples: for _ in 0..screen_samples {
        turns.clear();
        sample(pos, me, rng, &mut turns);
        for turn in turns.drain(..) {
            if !screened.is_empty() && budget.spent(weighed) {
                break 'samples;
            }
            weighed += 1;
            screen(pos, turn, me, &mut screened);
        }
    }
    let mut tried = 0;
    for turn in capture_turns(pos.board(), me, pos.score_disconnected(), STRONG_CAPTURES, &mut tried) {
        weighed += 1;
        screen(pos, turn, me, &mut screened);
    }
    weighed += tried / CAPTURES_PER_NODE;
    screened.sort_by_key(|(value, _)| Reverse(*value));
    let mut best: Option<(i64, Move)> = None;
    for (shallow, turn) in screened.iter() {
        // A turn weighed deeply counts many nodes: ask the clock after every one.
        if best.is_some() && (budget.nodes.is_some_and(|limit| weighed >= limit) || (budget.stop)()) {
            break;
        }
        if *shallow <= i64::MIN / 4 && best.is_some() {
            break;
        }
        let value = deep_value(pos, turn, me, replies, rng, &mut weighed);
        if best.as_ref().is_none_or(|(top, _)| value > *top) {
            best = Some((value, turn.clone()));
        }
    }
    let (value, mv) = best.or_else(|| screened.into_iter().next())?;
    Some(found(mv, value, 3, weighed))
}

/// Adds `turn` to `strong`'s screen with its value as `medium` weighs it ([`weigh`]),
/// unless it is there already or illegal.
fn screen(pos: &Position, turn: Move, me: Side, screened: &mut Vec<(i64, Move)>) {
    if screened.iter().any(|(_, t)| *t == turn) {
        return;
    }
    if let Some(value) = weigh(pos, &turn, me) {
        screened.push((value, turn));
    }
}

/// How good `turn` is for `me`, `me` to move in `pos`, when the opponent answers with
/// the worst for `me` of its `replies` best replies as `medium` weighs them (one sample
/// of its turns, [`sample`], and its [`STRONG_CAPTURES`] best turns of captures, each
/// weighed by [`weigh`]); the lead then, as
/// [`strong_leaf_value`] counts it, taken [`STRONG_GREEDY_WEIGHT`] of the way down to
/// the lead after the greedy player's reply when that is lower. Adds the turns it plays
/// to `weighed`, and one for each [`CAPTURES_PER_NODE`] captures its line tries.
fn deep_value<R: Rng + ?Sized>(pos: &Position, turn: &Move, me: Side, replies: usize, rng: &mut R, weighed: &mut u64) -> i64 {
    // The captures its leaves try, counted together at the end.
    let mut tried = 0;
    let value = deep_line(pos, turn, me, replies, rng, weighed, &mut tried);
    *weighed += tried / CAPTURES_PER_NODE;
    value
}

/// [`deep_value`]'s line, the captures its leaves try added to `tried`.
fn deep_line<R: Rng + ?Sized>(
    pos: &Position,
    turn: &Move,
    me: Side,
    replies: usize,
    rng: &mut R,
    weighed: &mut u64,
    tried: &mut u64,
) -> i64 {
    let mut next = pos.clone();
    *weighed += 1;
    if next.play(turn).is_err() {
        return i64::MIN;
    }
    let Some(them) = next.to_move() else { return outcome_value(&next, me) };
    let mut answers = Vec::new();
    sample(&next, them, rng, &mut answers);
    let mut captures_tried = 0;
    for turn in capture_turns(next.board(), them, pos.score_disconnected(), STRONG_CAPTURES, &mut captures_tried) {
        if !answers.contains(&turn) {
            answers.push(turn);
        }
    }
    *weighed += captures_tried / CAPTURES_PER_NODE;
    let mut ranked: Vec<(i64, Move)> = answers
        .into_iter()
        .filter_map(|answer| {
            *weighed += 1;
            weigh(&next, &answer, them).map(|value| (value, answer))
        })
        .collect();
    ranked.sort_by_key(|(value, _)| Reverse(*value));
    let scoring = pos.score_disconnected();
    let value = ranked
        .iter()
        .take(replies.max(1))
        .map(|(_, answer)| {
            let mut after = next.clone();
            if after.play(answer).is_err() {
                return leaf_value(&next, me, scoring);
            }
            if after.outcome().is_some() { outcome_value(&after, me) } else { strong_leaf_value(&after, me, scoring, tried) }
        })
        .min()
        .unwrap_or(i64::MIN);
    if value.abs() >= i64::MAX / 8 {
        return value;
    }
    // The greedy player's reply too (the city strike, else the best-gain turn), weighed
    // [`STRONG_GREEDY_WEIGHT`] when it leaves `me` worse off.
    let strike = strike_cost(next.board(), them, LEGIONS_PER_TURN).and_then(|_| city_strike(next.board(), them));
    let reply = strike.unwrap_or_else(|| greedy(&next, them));
    *weighed += 1;
    let mut after = next;
    if after.play(&reply).is_err() {
        return value;
    }
    let greedy_value = if after.outcome().is_some() { outcome_value(&after, me) } else { strong_leaf_value(&after, me, scoring, tried) };
    if greedy_value >= value {
        value
    } else if greedy_value <= i64::MIN / 8 {
        greedy_value
    } else {
        let (weight, of) = STRONG_GREEDY_WEIGHT;
        value - weight * (value - greedy_value) / of
    }
}

/// How good `pos`, `me` to move, is for `me`: its score lead, far above any lead when it
/// can take the enemy city now, far below when the enemy can take its city next turn
/// whatever it does (even after its [`city_guard`] turn).
fn leaf_value(pos: &Position, me: Side, scoring: bool) -> i64 {
    let board = pos.board();
    let base = lead(board, me, scoring);
    if strike_cost(board, me, LEGIONS_PER_TURN).is_some() {
        return i64::MAX / 4 + base;
    }
    if strike_cost(board, me.other(), LEGIONS_PER_TURN).is_some() {
        let mut guarded = *board;
        if let Some(guard) = city_guard(board, me) {
            for order in &guard.orders {
                if let rules::legions::Order::Send { x, y, c } = *order {
                    guarded.send(me, x as usize, y as usize, c);
                }
            }
        }
        if strike_cost(&guarded, me.other(), LEGIONS_PER_TURN).is_some() {
            return i64::MIN / 4 + base;
        }
    }
    base
}

/// [`leaf_value`] as `strong` counts it at the end of its line: short of a city falling,
/// [`STRONG_GUARD`] points for each legion the enemy needs to take `me`'s city (up to
/// [`STRONG_REACH`]), and [`STRONG_THREAT`] of each side's best cut ([`capture_threat`]):
/// the enemy's taken off, `me`'s own (it is `me` to move) added. The games lost show why:
/// a line of the enemy's that reaches the city's corner cuts every province from it,
/// long before the city is within 5 legions, and a corridor two provinces wide falls to
/// one turn. Adds the captures it tries to `tried`.
fn strong_leaf_value(pos: &Position, me: Side, scoring: bool, tried: &mut u64) -> i64 {
    let value = leaf_value(pos, me, scoring);
    if value.abs() >= i64::MAX / 8 {
        return value;
    }
    let board = pos.board();
    let theirs = strike_cost(board, me.other(), STRONG_REACH).unwrap_or(STRONG_REACH + 1);
    let (weight, of) = STRONG_THREAT;
    let (threat, chance) = (capture_threat(board, me.other(), scoring, tried), capture_threat(board, me, scoring, tried));
    value + STRONG_GUARD * theirs - threat * weight / of + chance * weight / of
}

/// A finished game for `me`: far above any lead when won, below when lost.
fn outcome_value(pos: &Position, me: Side) -> i64 {
    match pos.outcome().and_then(|o| o.winner) {
        Some(winner) if winner == me => i64::MAX / 2,
        Some(_) => i64::MIN / 2,
        None => 0,
    }
}
