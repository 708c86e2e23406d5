//! Monte Carlo tree search (UCT) for every game, over the game's own moves (for a game
//! that cannot list them, the sample of [`crate::candidate_moves`]) with the game's fast
//! random playouts ([`Game::random_playout`]). Each node remembers the side that moved
//! into it, so passes and set-ups that break strict alternation are scored right. The
//! move played is the root's most visited.

use rand::seq::SliceRandom;
use rand::{Rng, RngExt};
use rules::{Outcome, Side};

use crate::{Budget, Evaluation, Found, Tuning, candidate_moves};

/// UCT's exploration constant (√2 is the textbook value for results in 0..1; a little
/// less plays better with random playouts).
const EXPLORATION: f64 = 1.0;

struct Node<M> {
    /// The move into this node (none at the root) and the side that made it.
    mv: Option<M>,
    mover: Option<Side>,
    parent: usize,
    children: Vec<usize>,
    /// Moves not yet tried from here, in random order.
    untried: Vec<M>,
    visits: u32,
    /// Sum of the results for `mover` (1 win, 0.5 draw, 0 loss).
    reward: f64,
}

/// What `outcome` is worth to `side`.
fn result_for(outcome: &Outcome, side: Side) -> f64 {
    match outcome.winner {
        Some(winner) if winner == side => 1.0,
        Some(_) => 0.0,
        None => 0.5,
    }
}

fn new_node<G: Tuning, R: Rng + ?Sized>(pos: &G, mv: Option<G::Move>, mover: Option<Side>, parent: usize, rng: &mut R) -> Node<G::Move> {
    let mut untried = Vec::new();
    candidate_moves(pos, rng, &mut untried);
    untried.shuffle(rng);
    Node { mv, mover, parent, children: Vec::new(), untried, visits: 0, reward: 0.0 }
}

/// The best move by tree search within `budget` (its node limit counts playouts);
/// `None` when the game is over.
pub fn best_move<G: Tuning, R: Rng + ?Sized>(pos: &G, rng: &mut R, budget: &Budget) -> Option<Found<G::Move>> {
    pos.to_move()?;
    let mut tree = vec![new_node(pos, None, None, 0, rng)];
    if tree[0].untried.is_empty() {
        return None;
    }
    if tree[0].untried.len() == 1 {
        let mv = tree[0].untried[0].clone();
        return Some(Found { mv, eval: Evaluation::WinRate(0.5), depth: 0, nodes: 0 });
    }
    let mut playouts = 0u64;
    while !budget.spent(playouts) {
        playouts += 1;
        let mut state = pos.clone();
        let mut node = 0;
        // Selection: down the tree while every move of a node has been tried.
        while tree[node].untried.is_empty() && !tree[node].children.is_empty() {
            let log_n = f64::from(tree[node].visits.max(1)).ln();
            node = *tree[node].children.iter().max_by(|&&a, &&b| uct(&tree[a], log_n).total_cmp(&uct(&tree[b], log_n))).expect("children");
            state.play_unchecked(tree[node].mv.as_ref().expect("a child has a move"));
        }
        // Expansion: one untried move (one the rules refuse is dropped: a sample may hold
        // such moves for a game that cannot list its own).
        while let Some(mv) = tree[node].untried.pop() {
            let mover = state.to_move();
            let mut next = state.clone();
            if next.play(&mv).is_err() {
                continue;
            }
            let child = tree.len();
            tree.push(new_node(&next, Some(mv), mover, node, rng));
            tree[node].children.push(child);
            node = child;
            state = next;
            break;
        }
        // Playout and back-up.
        let outcome = if state.outcome().is_some() { state.outcome().expect("over") } else { state.random_playout(rng) };
        let mut at = node;
        loop {
            let n = &mut tree[at];
            n.visits += 1;
            if let Some(mover) = n.mover {
                n.reward += result_for(&outcome, mover);
            }
            if at == 0 {
                break;
            }
            at = n.parent;
        }
    }
    let root = &tree[0];
    let best = root.children.iter().copied().max_by_key(|&c| tree[c].visits);
    let (mv, eval) = match best {
        Some(c) => (tree[c].mv.clone().expect("a child has a move"), tree[c].reward / f64::from(tree[c].visits.max(1))),
        // Stopped before the first playout: any candidate.
        None => (root.untried[rng.random_range(0..root.untried.len())].clone(), 0.5),
    };
    Some(Found { mv, eval: Evaluation::WinRate(eval), depth: 0, nodes: playouts })
}

fn uct<M>(node: &Node<M>, log_parent: f64) -> f64 {
    let n = f64::from(node.visits.max(1));
    node.reward / n + EXPLORATION * (log_parent / n).sqrt()
}
