//! The Legions player's ideas: a turn is a list of orders, too many to list, so the greedy
//! player weighs a sample built here: the strike on the enemy city when five legions take
//! it, the best-gain turn, and random turns that send each target the legions it needs.
//! The orders are tried on a copy of the board ([`Board::send`] runs them as the rules do).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rand::seq::IndexedRandom;
use rand::{Rng, RngExt};
use rules::legions::{Board, Effect, LEGIONS_PER_TURN, Move, Position};
use rules::{Game, Side};

use crate::{Budget, Evaluation, Found, Rung};

/// How many samples of candidate turns `medium` weighs.
const MEDIUM_SAMPLES: usize = 4;

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
        if d > dist[i] || d > LEGIONS_PER_TURN {
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
    let scoring = pos.score_disconnected();
    let mut board = *pos.board();
    let mut left = LEGIONS_PER_TURN;
    let mut orders = Vec::new();
    while left > 0 {
        let base = lead(&board, side, scoring);
        // (gain, legions), the order, the board after it.
        type Best = ((i64, i64), (usize, usize, i64), Board);
        let mut best: Option<Best> = None;
        for (x, y) in board.targets(side) {
            let need = board.cost(side, x, y);
            if need > left {
                continue;
            }
            let mut next = board;
            next.send(side, x, y, need);
            let gain = lead(&next, side, scoring).saturating_sub(base);
            // gain / need against the best's, as fractions: gain * best_need > best_gain * need.
            let better = match &best {
                None => true,
                Some(((g, k), _, _)) => gain.saturating_mul(*k) > g.saturating_mul(need),
            };
            if better {
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
    Move::sends(&orders)
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

/// The search rungs' turn: each candidate turn ([`candidates`]) is answered by the
/// opponent's best reply as this module sees it (the city strike, else the best-gain
/// turn), and the turn whose answer leaves the best lead is played. `medium` weighs
/// [`MEDIUM_SAMPLES`] samples of candidates; `strong` draws new samples until its budget
/// (counted in turns weighed) is spent. Random playouts tell little in a game of n² turns, hence this
/// rather than tree search.
pub fn search<R: Rng + ?Sized>(pos: &Position, rung: Rung, rng: &mut R, budget: &Budget) -> Option<Found<Move>> {
    let me = pos.to_move()?;
    let scoring = pos.score_disconnected();
    let mut best: Option<(i64, Move)> = None;
    let mut weighed = 0u64;
    let mut samples = 0;
    let mut sample = Vec::new();
    'samples: loop {
        sample.clear();
        candidates(pos, rng, &mut sample);
        for turn in sample.drain(..) {
            if best.is_some() && budget.spent(weighed) {
                break 'samples;
            }
            weighed += 1;
            let mut next = pos.clone();
            if next.play(&turn).is_err() {
                continue;
            }
            let value = match next.to_move() {
                None => outcome_value(&next, me),
                Some(them) => {
                    let reply = city_strike(next.board(), them).unwrap_or_else(|| greedy(&next, them));
                    let mut after = next.clone();
                    if after.play(&reply).is_err() {
                        after = next;
                    }
                    if after.outcome().is_some() { outcome_value(&after, me) } else { lead(after.board(), me, scoring) }
                }
            };
            if best.as_ref().is_none_or(|(top, _)| value > *top) {
                best = Some((value, turn));
            }
        }
        samples += 1;
        if (rung != Rung::Strong && samples >= MEDIUM_SAMPLES) || budget.spent(weighed) {
            break;
        }
    }
    let (value, mv) = best?;
    Some(Found { mv, eval: Evaluation::Score(value.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32), depth: 2, nodes: weighed })
}

/// A finished game for `me`: far above any lead when won, below when lost.
fn outcome_value(pos: &Position, me: Side) -> i64 {
    match pos.outcome().and_then(|o| o.winner) {
        Some(winner) if winner == me => i64::MAX / 2,
        Some(_) => i64::MIN / 2,
        None => 0,
    }
}
