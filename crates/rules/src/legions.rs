//! Legions: territorial conquest on an n × n board (seed 001, "Легионеры", Ural
//! championship in sports programming, 2007; the exact rules are in `docs/games.md`).
//!
//! Player 0's city is (0, 0), player 1's city is (n−1, n−1), each holding one novice
//! legion at the start. X is the column (0 = left), Y the row (0 = top). Players alternate,
//! player 0 first; a turn gives 5 legions and a list of orders `X Y C` (send C legions to
//! province (X, Y)), run one after the other. The target must be adjacent to a province of
//! the player connected to its city *at the moment the order runs*, else the legions
//! desert. An empty target takes one novice (extra legions starve); an own target starves
//! the legions; an enemy novice falls to 2 (else it becomes a veteran), an enemy veteran
//! to 3, and the one surviving attacker stays as a veteran. Taking the enemy city ends the
//! game at once (taker 2·n², loser 0); otherwise after n² turns the running scores are
//! final: 1 per novice and 2 per veteran over the player's provinces connected to its
//! city, the city not counted.
//!
//! Options: `size` (n, 3..=32, default 17), `score-disconnected` (count disconnected
//! provinces too, default false).
//!
//! Move notation (one turn): orders `X Y C` separated by `;` (or line ends), e.g.
//! `3 6 1; 3 5 2; 2 5 2`; the empty text is a turn with no orders. [`Game::format_move`]
//! writes `"; "` between orders. Any text is a turn: a piece that is not integers in
//! threes is kept as an [`Order::Unreadable`] and skipped when played, as the rules say
//! for orders a bot cannot write; so [`Game::play`] never answers `Illegal`.
//!
//! Decisions where the seed is silent:
//! - An order to one of the player's own *connected* provinces (the city included) counts
//!   as reachable: its legions starve. An own disconnected province is unreachable: they
//!   desert. (Either way the legions are lost; only the report differs.)
//! - Orders after the one that takes the city are not run ([`Effect::NotRun`]).
//! - The bot reader ([`parse_orders`]) splits the output at line ends and `;`; each
//!   non-blank piece whose whitespace-separated tokens are all integers, in a positive
//!   multiple of three, gives that many orders; any other piece is one unreadable order.
//! - A start text is the native input format ([`format_input`]); the player line is the
//!   side to move, and the game counts as having played 0 turns (player 0 to move) or 1
//!   turn (player 1 to move). The case of the map letters is ignored: connection is
//!   recomputed.
//! - The random baseline ([`Game::random_move`]) spends the 5 legions order by order: a
//!   target uniform over the non-own provinces reachable at that moment, a count uniform
//!   in 1..=legions left, the order played at once so the next one may build on it.

use std::fmt;

use rand::{Rng, RngExt};

use crate::options::{get_bool, get_int};
use crate::view::{self, BoardStyle, BoardView, CellView, Grid, Pieces};
use crate::{Game, GameInfo, LimitSet, MoveError, OptionSpec, Options, Outcome, SetupError, Side};

const OPTIONS: &[OptionSpec] = &[
    OptionSpec { name: "size", default: "17", help: "board side n (3..=32); the game lasts n*n turns" },
    OptionSpec {
        name: "score-disconnected",
        default: "false",
        help: "count provinces not connected to the city in the running score too",
    },
];

/// The largest board side.
pub const MAX_SIZE: usize = 32;
/// The smallest board side.
pub const MIN_SIZE: usize = 3;
/// New legions a player gets each turn.
pub const LEGIONS_PER_TURN: i64 = 5;

/// One bitset of the board: row `y` is `rows[y]`, bit `x` is column `x`.
type Rows = [u32; MAX_SIZE];

/// The legion holding a province.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Legion {
    pub owner: Side,
    pub veteran: bool,
}

/// One order of a turn, as the bot wrote it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Order {
    /// Send `c` legions to province (`x`, `y`). Any integers: the rules decide what an
    /// off-board target or a bad count does.
    Send { x: i64, y: i64, c: i64 },
    /// A piece of text that is not an order (trimmed, without line ends or `;`).
    Unreadable(String),
}

/// One turn: the orders in the order they run.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Move {
    pub orders: Vec<Order>,
}

impl Move {
    pub fn new(orders: Vec<Order>) -> Move {
        Move { orders }
    }

    /// A move of `Send` orders from `(x, y, c)` triples.
    pub fn sends(orders: &[(i64, i64, i64)]) -> Move {
        Move { orders: orders.iter().map(|&(x, y, c)| Order::Send { x, y, c }).collect() }
    }
}

/// Why the legions of an order deserted.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Desertion {
    /// The target is not on the board.
    OffBoard,
    /// The target is not adjacent to a connected province of the player.
    Unreachable,
}

/// Why an order was skipped (it used no legions).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Skip {
    /// Not three integers.
    Unreadable,
    /// C < 1.
    NotPositive,
    /// C is more than the legions left this turn.
    OverBudget { left: i64 },
}

/// What one order did.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Effect {
    /// An empty province taken by one novice; `starved` more legions of the order died.
    Occupied { starved: i64 },
    /// The target is the player's own: the legions starved.
    Starved,
    /// The legions deserted.
    Deserted(Desertion),
    /// The order was skipped and used no legions.
    Skipped(Skip),
    /// An enemy province taken; one attacker stays as a veteran. `veteran`: the defender
    /// was a veteran; `city`: it was the enemy city (the game is over); `lost`: attackers
    /// beyond the ones the fight needed, lost too.
    Captured { veteran: bool, city: bool, lost: i64 },
    /// Too few attackers: they died. `promoted`: the defender was a novice and is now a
    /// veteran.
    Repelled { promoted: bool },
    /// The game ended (the city fell) before this order ran.
    NotRun,
}

impl fmt::Display for Effect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Effect::Occupied { starved: 0 } => f.write_str("occupied"),
            Effect::Occupied { starved } => write!(f, "occupied, {starved} starved"),
            Effect::Starved => f.write_str("starved in an own province"),
            Effect::Deserted(Desertion::OffBoard) => f.write_str("deserted: off the board"),
            Effect::Deserted(Desertion::Unreachable) => f.write_str("deserted: not reachable"),
            Effect::Skipped(Skip::Unreadable) => f.write_str("skipped: not an order"),
            Effect::Skipped(Skip::NotPositive) => f.write_str("skipped: count below 1"),
            Effect::Skipped(Skip::OverBudget { left }) => write!(f, "skipped: only {left} legions left"),
            Effect::Captured { veteran, city, lost } => {
                let what = match (city, veteran) {
                    (true, _) => "city taken",
                    (false, true) => "veteran beaten, captured as veteran",
                    (false, false) => "novice beaten, captured as veteran",
                };
                f.write_str(what)?;
                if lost > 0 {
                    write!(f, ", {lost} more lost")?;
                }
                Ok(())
            }
            Effect::Repelled { promoted: true } => f.write_str("attack failed, defender promoted"),
            Effect::Repelled { promoted: false } => f.write_str("attack failed"),
            Effect::NotRun => f.write_str("not run: the game is over"),
        }
    }
}

/// One order and what it did.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct OrderReport {
    pub order: Order,
    pub effect: Effect,
}

/// What the last turn did, order by order (for records, viewers and tests).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TurnReport {
    pub player: Side,
    /// The turn's number, from 1.
    pub turn: usize,
    pub orders: Vec<OrderReport>,
    /// Legions not ordered (lost).
    pub unused: i64,
}

/// The board: who holds what, and which provinces are connected to their city. Players
/// that look ahead copy it ([`Position::board`]) and play orders on the copy with
/// [`Board::send`], which runs an order exactly as the rules do.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Board {
    n: usize,
    own: [Rows; 2],
    vet: Rows,
    /// Provinces of each player connected to its city; kept exact after every change.
    conn: [Rows; 2],
}

/// Runs of `m` that contain a bit of `s` (`s` within `m`), in one row.
fn hfill(s: u32, m: u32) -> u32 {
    fn up(s: u32, m: u32) -> u32 {
        // Adding the seeds carries through each run from its lowest seed to its top.
        let (s, m) = (u64::from(s), u64::from(m));
        let t = m + s;
        (((t ^ m ^ s) | s) & m) as u32
    }
    up(s, m) | up(s.reverse_bits(), m.reverse_bits()).reverse_bits()
}

/// The cells of `mask` joined to `seed` through `mask` (4-neighbour flood fill).
fn flood(seed: &Rows, mask: &Rows, n: usize) -> Rows {
    let mut s = [0u32; MAX_SIZE];
    for y in 0..n {
        s[y] = hfill(seed[y] & mask[y], mask[y]);
    }
    loop {
        let mut changed = false;
        for y in 1..n {
            let v = hfill(s[y] | (s[y - 1] & mask[y]), mask[y]);
            if v != s[y] {
                s[y] = v;
                changed = true;
            }
        }
        for y in (0..n - 1).rev() {
            let v = hfill(s[y] | (s[y + 1] & mask[y]), mask[y]);
            if v != s[y] {
                s[y] = v;
                changed = true;
            }
        }
        if !changed {
            return s;
        }
    }
}

fn bit(rows: &Rows, x: usize, y: usize) -> bool {
    rows[y] >> x & 1 == 1
}

impl Board {
    fn new(n: usize) -> Board {
        let mut board = Board { n, own: [[0; MAX_SIZE]; 2], vet: [0; MAX_SIZE], conn: [[0; MAX_SIZE]; 2] };
        for side in Side::BOTH {
            let (x, y) = board.city(side);
            board.own[side.index()][y] |= 1 << x;
            board.conn[side.index()][y] |= 1 << x;
        }
        board
    }

    fn row_mask(&self) -> u32 {
        if self.n == 32 { u32::MAX } else { (1u32 << self.n) - 1 }
    }

    fn city(&self, side: Side) -> (usize, usize) {
        match side {
            Side::First => (0, 0),
            Side::Second => (self.n - 1, self.n - 1),
        }
    }

    fn legion(&self, x: usize, y: usize) -> Option<Legion> {
        let veteran = bit(&self.vet, x, y);
        Side::BOTH.into_iter().find(|side| bit(&self.own[side.index()], x, y)).map(|owner| Legion { owner, veteran })
    }

    fn recompute(&mut self, side: Side) {
        let (cx, cy) = self.city(side);
        let mut seed = [0u32; MAX_SIZE];
        seed[cy] = 1 << cx;
        self.conn[side.index()] = flood(&seed, &self.own[side.index()], self.n);
    }

    fn touches(&self, rows: &Rows, x: usize, y: usize) -> bool {
        (x > 0 && bit(rows, x - 1, y))
            || (x + 1 < self.n && bit(rows, x + 1, y))
            || (y > 0 && bit(rows, x, y - 1))
            || (y + 1 < self.n && bit(rows, x, y + 1))
    }

    /// The province (connected, own) or a neighbour of it is connected for `p`.
    fn reachable(&self, p: usize, x: usize, y: usize) -> bool {
        bit(&self.conn[p], x, y) || self.touches(&self.conn[p], x, y)
    }

    /// `p` gains (x, y), which is reachable: connected at once, and it may join
    /// disconnected provinces of `p` to the city.
    fn gain(&mut self, p: usize, x: usize, y: usize) {
        self.own[p][y] |= 1 << x;
        self.conn[p][y] |= 1 << x;
        let mut loose = [0u32; MAX_SIZE];
        let lo = y.saturating_sub(1);
        let hi = (y + 1).min(self.n - 1);
        for (row, slot) in loose.iter_mut().enumerate().take(hi + 1).skip(lo) {
            *slot = self.own[p][row] & !self.conn[p][row];
        }
        if self.touches(&loose, x, y) {
            // The cut-off provinces joined are those of the new one's group among them.
            let mut mask = [0u32; MAX_SIZE];
            for (row, slot) in mask.iter_mut().enumerate().take(self.n) {
                *slot = self.own[p][row] & !self.conn[p][row];
            }
            mask[y] |= 1 << x;
            let mut seed = [0u32; MAX_SIZE];
            seed[y] = 1 << x;
            let joined = flood(&seed, &mask, self.n);
            for (row, slot) in self.conn[p].iter_mut().enumerate().take(self.n) {
                *slot |= joined[row];
            }
        }
    }

    /// Whether `p`'s provinces next to (x, y), which `p` has just lost, are all joined
    /// through `p`'s provinces among its 8 neighbours: then every path through (x, y)
    /// goes round it, and losing it cuts nothing off.
    fn loss_cuts_nothing(&self, p: usize, x: usize, y: usize) -> bool {
        // The 8 neighbours in order round (x, y), the 4 orthogonal ones at even places.
        const RING: [(i64, i64); 8] = [(0, -1), (1, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1)];
        let n = self.n as i64;
        let held = RING.map(|(dx, dy)| {
            let (nx, ny) = (x as i64 + dx, y as i64 + dy);
            nx >= 0 && ny >= 0 && nx < n && ny < n && bit(&self.own[p], nx as usize, ny as usize)
        });
        let Some(gap) = held.iter().position(|&h| !h) else { return true };
        // Runs of held neighbours round the ring that hold an orthogonal one.
        let mut runs = 0;
        let mut in_run = false;
        let mut counted = false;
        for step in 1..=8 {
            let k = (gap + step) % 8;
            if !held[k] {
                in_run = false;
                continue;
            }
            if !in_run {
                in_run = true;
                counted = false;
            }
            if k % 2 == 0 && !counted {
                counted = true;
                runs += 1;
            }
        }
        runs <= 1
    }

    /// Plays one order of `c >= 1` legions (already taken from the budget) for `side`.
    fn apply(&mut self, side: Side, x: i64, y: i64, c: i64) -> Effect {
        let n = self.n as i64;
        if x < 0 || y < 0 || x >= n || y >= n {
            return Effect::Deserted(Desertion::OffBoard);
        }
        let (x, y) = (x as usize, y as usize);
        let p = side.index();
        let q = side.other().index();
        if !self.reachable(p, x, y) {
            return Effect::Deserted(Desertion::Unreachable);
        }
        if bit(&self.own[p], x, y) {
            return Effect::Starved;
        }
        if bit(&self.own[q], x, y) {
            let veteran = bit(&self.vet, x, y);
            let need = if veteran { 3 } else { 2 };
            if c < need {
                self.vet[y] |= 1 << x;
                return Effect::Repelled { promoted: !veteran };
            }
            let city = self.city(side.other()) == (x, y);
            let was_connected = bit(&self.conn[q], x, y);
            self.own[q][y] &= !(1 << x);
            self.conn[q][y] &= !(1 << x);
            self.vet[y] |= 1 << x;
            self.gain(p, x, y);
            if was_connected && (city || !self.loss_cuts_nothing(q, x, y)) {
                // A lost city leaves nothing connected.
                self.recompute(side.other());
            }
            return Effect::Captured { veteran, city, lost: c - need };
        }
        self.gain(p, x, y);
        Effect::Occupied { starved: c - 1 }
    }

    /// Legions an attack on (x, y) needs: 0 for an own province.
    fn needed(&self, p: usize, x: usize, y: usize) -> i64 {
        if bit(&self.own[p], x, y) {
            0
        } else if bit(&self.own[1 - p], x, y) {
            if bit(&self.vet, x, y) { 3 } else { 2 }
        } else {
            1
        }
    }

    /// Non-own provinces reachable for `p` now.
    fn frontier(&self, p: usize) -> Rows {
        let mask = self.row_mask();
        let conn = &self.conn[p];
        let mut f = [0u32; MAX_SIZE];
        for y in 0..self.n {
            let c = conn[y];
            let mut d = c | c << 1 | c >> 1;
            if y > 0 {
                d |= conn[y - 1];
            }
            if y + 1 < self.n {
                d |= conn[y + 1];
            }
            f[y] = d & mask & !self.own[p][y];
        }
        f
    }

    /// A province uniform over the set bits of `rows`, `None` when empty.
    fn pick<R: Rng + ?Sized>(&self, rows: &Rows, rng: &mut R) -> Option<(usize, usize)> {
        let total: u32 = rows[..self.n].iter().map(|r| r.count_ones()).sum();
        if total == 0 {
            return None;
        }
        let mut k = rng.random_range(0..total);
        for (y, &row) in rows[..self.n].iter().enumerate() {
            let ones = row.count_ones();
            if k < ones {
                let mut r = row;
                for _ in 0..k {
                    r &= r - 1;
                }
                return Some((r.trailing_zeros() as usize, y));
            }
            k -= ones;
        }
        unreachable!("k is below the number of set bits")
    }

    fn score(&self, side: Side, score_disconnected: bool) -> i64 {
        let p = side.index();
        let set = if score_disconnected { &self.own[p] } else { &self.conn[p] };
        let (cx, cy) = self.city(side);
        let mut score = 0i64;
        for (y, &row) in set.iter().enumerate().take(self.n) {
            let mut row = row;
            if y == cy {
                row &= !(1 << cx);
            }
            score += i64::from(row.count_ones()) + i64::from((row & self.vet[y]).count_ones());
        }
        score
    }
}

/// What a player that looks ahead reads and does on a copy of the board.
impl Board {
    /// The board side n.
    pub fn size(&self) -> usize {
        self.n
    }

    /// The legion holding (x, y), if any.
    pub fn holder(&self, x: usize, y: usize) -> Option<Legion> {
        self.legion(x, y)
    }

    /// Whether (x, y) is one of `side`'s provinces connected to its city.
    pub fn is_connected_to(&self, side: Side, x: usize, y: usize) -> bool {
        bit(&self.conn[side.index()], x, y)
    }

    /// Where `side`'s city is.
    pub fn city_of(&self, side: Side) -> (usize, usize) {
        self.city(side)
    }

    /// The provinces an order of `side` reaches now that are not its own, row by row.
    pub fn targets(&self, side: Side) -> Vec<(usize, usize)> {
        let frontier = self.frontier(side.index());
        let mut out = Vec::new();
        for (y, &row) in frontier.iter().enumerate().take(self.n) {
            let mut row = row;
            while row != 0 {
                out.push((row.trailing_zeros() as usize, y));
                row &= row - 1;
            }
        }
        out
    }

    /// Legions an order of `side` needs to take (x, y): 1 empty, 2 novice, 3 veteran, 0 own.
    pub fn cost(&self, side: Side, x: usize, y: usize) -> i64 {
        self.needed(side.index(), x, y)
    }

    /// Runs one order of `c >= 1` legions of `side` to (x, y), as the rules run it.
    pub fn send(&mut self, side: Side, x: usize, y: usize, c: i64) -> Effect {
        self.apply(side, x as i64, y as i64, c)
    }

    /// `side`'s running score on this board (1 a novice, 2 a veteran, the city not
    /// counted; only provinces connected to the city unless `score_disconnected`).
    pub fn points(&self, side: Side, score_disconnected: bool) -> i64 {
        self.score(side, score_disconnected)
    }
}

/// The state of a game of Legions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Position {
    /// Boxed: the bitsets are large next to the other games' positions.
    board: Box<Board>,
    score_disconnected: bool,
    /// Turns played, counting one for a start text with player 1 to move.
    turn: usize,
    /// The player who took the other's city.
    taker: Option<Side>,
    /// The start text, normalised, when the game began from one.
    start: Option<String>,
    last: Option<TurnReport>,
}

impl Position {
    /// The start position of an n × n game (`size` option) with default options.
    pub fn with_size(n: usize) -> Position {
        assert!((MIN_SIZE..=MAX_SIZE).contains(&n), "board size {n} out of range");
        Position { board: Box::new(Board::new(n)), score_disconnected: false, turn: 0, taker: None, start: None, last: None }
    }

    /// The board side n.
    pub fn size(&self) -> usize {
        self.board.n
    }

    /// The board, for players that try orders on a copy of it.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The legion holding province (x, y), `None` when empty. Panics off the board.
    pub fn cell(&self, x: usize, y: usize) -> Option<Legion> {
        assert!(x < self.board.n && y < self.board.n, "province {x} {y} is off the board");
        self.board.legion(x, y)
    }

    /// Whether (x, y) is held by a player and connected to that player's city.
    pub fn is_connected(&self, x: usize, y: usize) -> bool {
        assert!(x < self.board.n && y < self.board.n, "province {x} {y} is off the board");
        Side::BOTH.into_iter().any(|side| bit(&self.board.conn[side.index()], x, y))
    }

    /// The city of `side`: (0, 0) for player 0, (n−1, n−1) for player 1.
    pub fn city(&self, side: Side) -> (usize, usize) {
        self.board.city(side)
    }

    /// Whether the running score counts disconnected provinces too (option).
    pub fn score_disconnected(&self) -> bool {
        self.score_disconnected
    }

    /// Turns played so far (1 more than the real count for a start with player 1 to move).
    pub fn turn(&self) -> usize {
        self.turn
    }

    /// The last turn of the game: n².
    pub fn max_turns(&self) -> usize {
        self.board.n * self.board.n
    }

    /// The player who took the other's city, if one did.
    pub fn city_taker(&self) -> Option<Side> {
        self.taker
    }

    /// What the last turn did, order by order.
    pub fn last_turn(&self) -> Option<&TurnReport> {
        self.last.as_ref()
    }

    /// The last turn's orders.
    pub fn last_move(&self) -> Option<Move> {
        self.last.as_ref().map(|report| Move { orders: report.orders.iter().map(|o| o.order.clone()).collect() })
    }

    /// Running score of `side` (see the module header).
    pub fn score(&self, side: Side) -> i64 {
        self.board.score(side, self.score_disconnected)
    }

    /// The score a taken city gives: 2·n².
    pub fn city_score(&self) -> i64 {
        2 * (self.board.n * self.board.n) as i64
    }

    /// Legions the order needs to take (x, y) for `side`: 1 empty, 2 novice, 3 veteran,
    /// 0 own.
    pub fn legions_needed(&self, side: Side, x: usize, y: usize) -> i64 {
        self.board.needed(side.index(), x, y)
    }

    /// Whether an order of `side` to (x, y) would reach it now (its own connected
    /// provinces and their neighbours).
    pub fn is_reachable(&self, side: Side, x: usize, y: usize) -> bool {
        x < self.board.n && y < self.board.n && self.board.reachable(side.index(), x, y)
    }

    /// The position from a bot input (see [`parse_input`]): cities must be where the rules
    /// put them and hold their owners' legions.
    pub fn from_input(input: &Input, score_disconnected: bool) -> Result<Position, SetupError> {
        let n = input.n;
        if !(MIN_SIZE..=MAX_SIZE).contains(&n) {
            return Err(SetupError::BadStart(format!("board size {n} is not between {MIN_SIZE} and {MAX_SIZE}")));
        }
        let mut board = Board { n, own: [[0; MAX_SIZE]; 2], vet: [0; MAX_SIZE], conn: [[0; MAX_SIZE]; 2] };
        for side in Side::BOTH {
            let city = board.city(side);
            if input.cities[side.index()] != (city.0 as i64, city.1 as i64) {
                return Err(SetupError::BadStart(format!("the city of player {} must be at {} {}", side.index(), city.0, city.1)));
            }
        }
        for (y, row) in input.cells.iter().enumerate() {
            for (x, cell) in row.iter().enumerate() {
                if let Some(cell) = cell {
                    board.own[cell.owner.index()][y] |= 1 << x;
                    if cell.veteran {
                        board.vet[y] |= 1 << x;
                    }
                }
            }
        }
        for side in Side::BOTH {
            let (x, y) = board.city(side);
            if !bit(&board.own[side.index()], x, y) {
                return Err(SetupError::BadStart(format!("the city of player {} at {x} {y} must hold its legion", side.index())));
            }
            board.recompute(side);
        }
        let turn = input.player.index();
        Ok(Position { board: Box::new(board), score_disconnected, turn, taker: None, start: None, last: None })
    }

    fn side_to_move(&self) -> Side {
        if self.turn.is_multiple_of(2) { Side::First } else { Side::Second }
    }

    fn is_over(&self) -> bool {
        self.taker.is_some() || self.turn >= self.max_turns()
    }

    /// Plays a turn's orders: the rules, faults included.
    fn play_turn(&mut self, orders: &[Order]) {
        let side = self.side_to_move();
        let mut report = self.last.take().unwrap_or_else(|| TurnReport { player: side, turn: 0, orders: Vec::new(), unused: 0 });
        report.player = side;
        report.turn = self.turn + 1;
        report.orders.clear();
        let mut left = LEGIONS_PER_TURN;
        for order in orders {
            let effect = if self.taker.is_some() {
                Effect::NotRun
            } else {
                match *order {
                    Order::Unreadable(_) => Effect::Skipped(Skip::Unreadable),
                    Order::Send { c, .. } if c < 1 => Effect::Skipped(Skip::NotPositive),
                    Order::Send { c, .. } if c > left => Effect::Skipped(Skip::OverBudget { left }),
                    Order::Send { x, y, c } => {
                        left -= c;
                        let effect = self.board.apply(side, x, y, c);
                        if matches!(effect, Effect::Captured { city: true, .. }) {
                            self.taker = Some(side);
                        }
                        effect
                    }
                }
            };
            report.orders.push(OrderReport { order: order.clone(), effect });
        }
        report.unused = left;
        self.last = Some(report);
        self.turn += 1;
    }

    /// A random order for the baseline player on `board`, with `left >= 1` legions.
    fn random_order<R: Rng + ?Sized>(board: &Board, side: Side, left: i64, rng: &mut R) -> (i64, i64, i64) {
        let frontier = board.frontier(side.index());
        let (x, y) = board.pick(&frontier, rng).expect("the enemy city is never enclosed by the player's own connected provinces");
        (x as i64, y as i64, rng.random_range(1..=left))
    }
}

impl Game for Position {
    type Move = Move;
    const INFO: GameInfo = GameInfo {
        name: "legions",
        aliases: &[],
        title: "Legions, territorial conquest on n x n (seed 001, 2007)",
        side_names: ["player 0", "player 1"],
        notation: "one turn: orders \"X Y C\" separated by ';', e.g. \"3 6 1;3 5 2\" (\"\" for none)",
        options: OPTIONS,
        enumerable: false,
        has_scores: true,
        hidden_information: false,
        start_required: false,
        generated_openings: false,
        style: BoardStyle {
            grid: Grid::Squares,
            pieces: Pieces::Tiles,
            board_colour: "#f1f5f9",
            line_colour: "#cbd5e1",
            piece_colours: ["#3b82f6", "#ef4444"],
            text_colours: ["#ffffff", "#ffffff"],
        },
    };

    /// One order per line ("3 6 1" sends 1 legion to X 3, Y 6); "(no orders)" for none.
    fn move_for_people(text: &str) -> String {
        let orders: Vec<&str> = text.split(';').map(str::trim).filter(|o| !o.is_empty()).collect();
        if orders.is_empty() { "(no orders)".to_string() } else { orders.join("\n") }
    }

    fn new(options: &Options, start: Option<&str>) -> Result<Self, SetupError> {
        let size = get_int(OPTIONS, options, "size", MIN_SIZE as i64, MAX_SIZE as i64)? as usize;
        let score_disconnected = get_bool(OPTIONS, options, "score-disconnected")?;
        let Some(text) = start else {
            let mut pos = Position::with_size(size);
            pos.score_disconnected = score_disconnected;
            return Ok(pos);
        };
        let input = parse_input(text).map_err(|err| SetupError::BadStart(err.to_string()))?;
        if options.contains_key("size") && input.n != size {
            return Err(SetupError::BadStart(format!("the start position is {0}x{0}, option size is {size}", input.n)));
        }
        let mut pos = Position::from_input(&input, score_disconnected)?;
        pos.start = Some(format_input(&pos, input.player));
        Ok(pos)
    }

    /// Seed 001: 2 seconds per move, the start included.
    fn seed_limits(_options: &Options) -> LimitSet {
        LimitSet { move_ms: Some(2_000), ..LimitSet::default() }
    }

    /// The turns played so far, a space, and the map rows (y = 0 first) joined by `/`,
    /// cells separated by `,` in the native notation (`.`, `N0`, `v1`, ...). Not read
    /// back: the turn count and the scoring option are not all in it.
    fn position_line(&self) -> String {
        let input = format_input(self, Side::First);
        let rows: Vec<String> = input.lines().skip(4).map(|row| row.replace('\t', ",")).collect();
        format!("{} {}", self.turn(), rows.join("/"))
    }

    fn board_view(&self) -> BoardView {
        let n = self.size();
        let mut view = BoardView::new(self, n, n);
        view.col_labels = (0..n).map(|x| x.to_string()).collect();
        view.row_labels = (0..n).map(|y| y.to_string()).collect();
        let cities = Side::BOTH.map(|side| self.city(side));
        for y in 0..n {
            for x in 0..n {
                let legion = self.cell(x, y);
                view.cells.push(CellView {
                    name: format!("{x} {y}"),
                    owner: view::owner(legion.map(|l| l.owner)),
                    label: legion.filter(|l| l.veteran).map(|_| "V".to_string()),
                    ring: legion.is_some_and(|l| l.veteran),
                    faded: legion.is_some() && !self.is_connected(x, y),
                    star: cities.contains(&(x, y)),
                    ..CellView::default()
                });
            }
        }
        if let Some(report) = self.last_turn() {
            for order in &report.orders {
                let line = format!("{}: {}", self.format_move(&Move::new(vec![order.order.clone()])), order.effect);
                view.last_report.push(line);
                let touched = matches!(order.effect, Effect::Occupied { .. } | Effect::Captured { .. } | Effect::Repelled { .. });
                if let (true, Order::Send { x, y, .. }) = (touched, &order.order) {
                    let cell = [*x as usize, *y as usize];
                    if !view.last.contains(&cell) {
                        view.last.push(cell);
                    }
                }
            }
            if report.unused > 0 {
                view.last_report.push(format!("{} legions unused", report.unused));
            }
        }
        view.last_move = self.last_move().map(|mv| self.format_move(&mv));
        let names = view.side_names.clone();
        view.status = match (self.city_taker(), self.to_move()) {
            (Some(taker), _) => view::capitalise(&format!("{} takes the enemy city and wins", names[taker.index()])),
            (None, Some(side)) => format!("Turn {} of {}: {} to move", self.turn() + 1, self.max_turns(), names[side.index()]),
            (None, None) => view.status_line(self.outcome(), "", "draw"),
        };
        view.input = if self.to_move().is_some() { view::Input::Orders } else { view::Input::None };
        let legend = [
            ("star", "a city: taking the enemy's wins at once"),
            ("ring", "a veteran legion (V): harder to take"),
            ("faded", "a province cut off from its city"),
        ];
        view.legend = legend.map(|(mark, meaning)| [mark.to_string(), meaning.to_string()]).to_vec();
        view
    }

    /// What each order of the last turn did, `"X Y C: effect"` joined by `"; "`.
    fn turn_note(&self) -> Option<String> {
        self.last_turn().map(|report| {
            report
                .orders
                .iter()
                .map(|o| format!("{}: {}", self.format_move(&Move::new(vec![o.order.clone()])), o.effect))
                .collect::<Vec<_>>()
                .join("; ")
        })
    }

    fn start_text(&self) -> Option<String> {
        self.start.clone()
    }

    fn to_move(&self) -> Option<Side> {
        if self.is_over() { None } else { Some(self.side_to_move()) }
    }

    fn outcome(&self) -> Option<Outcome> {
        if let Some(taker) = self.taker {
            let mut scores = [0; 2];
            scores[taker.index()] = self.city_score();
            return Some(Outcome::from_scores(scores));
        }
        if self.turn >= self.max_turns() {
            return self.running_scores().map(Outcome::from_scores);
        }
        None
    }

    fn running_scores(&self) -> Option<[i64; 2]> {
        if let Some(taker) = self.taker {
            let mut scores = [0; 2];
            scores[taker.index()] = self.city_score();
            return Some(scores);
        }
        Some([self.score(Side::First), self.score(Side::Second)])
    }

    /// A deterministic sample (a turn is a list of orders, too many to list): one single
    /// order per reachable target with the legions it needs (row by row), and the empty
    /// move.
    fn legal_moves(&self, out: &mut Vec<Move>) {
        if self.is_over() {
            return;
        }
        let side = self.side_to_move();
        for (x, y) in self.board.targets(side) {
            let need = self.board.cost(side, x, y);
            out.push(Move::sends(&[(x as i64, y as i64, need)]));
        }
        out.push(Move::default());
    }

    /// The provinces an order reaches once the orders so far have run (none once one
    /// takes the enemy city), as the view names them (`X Y`); the player's own are left
    /// out (legions sent there starve).
    fn choices(&self, partial: &str) -> Vec<String> {
        let side = self.side_to_move();
        let mut board = *self.board;
        for order in parse_orders(partial).orders {
            if let Order::Send { x, y, c } = order
                && matches!(board.apply(side, x, y, c), Effect::Captured { city: true, .. })
            {
                return Vec::new();
            }
        }
        board.targets(side).into_iter().map(|(x, y)| format!("{x} {y}")).collect()
    }

    fn random_move<R: Rng + ?Sized>(&self, rng: &mut R) -> Option<Move> {
        if self.is_over() {
            return None;
        }
        let side = self.side_to_move();
        let mut board = *self.board;
        let mut left = LEGIONS_PER_TURN;
        let mut orders = Vec::new();
        while left > 0 {
            let (x, y, c) = Position::random_order(&board, side, left, rng);
            left -= c;
            orders.push(Order::Send { x, y, c });
            if matches!(board.apply(side, x, y, c), Effect::Captured { city: true, .. }) {
                break;
            }
        }
        Some(Move { orders })
    }

    fn parse_move(&self, text: &str) -> Result<Move, MoveError> {
        Ok(parse_orders(text))
    }

    fn format_move(&self, mv: &Move) -> String {
        format_orders(mv, "; ")
    }

    fn play(&mut self, mv: &Move) -> Result<(), MoveError> {
        if self.is_over() {
            return Err(MoveError::GameOver);
        }
        self.play_turn(&mv.orders);
        Ok(())
    }

    fn play_unchecked(&mut self, mv: &Move) {
        self.play_turn(&mv.orders);
    }

    fn picture(&self) -> String {
        let b = &self.board;
        let mut out = String::new();
        let scores = self.running_scores().expect("legions has scores");
        let state = match (self.taker, self.to_move()) {
            (Some(taker), _) => format!("player {} took the city", taker.index()),
            (None, Some(side)) => format!("player {} to move", side.index()),
            (None, None) => "game over".to_string(),
        };
        out.push_str(&format!("turn {}/{}, {state}, score {}:{}\n", self.turn, self.max_turns(), scores[0], scores[1]));
        out.push_str("   ");
        for x in 0..b.n {
            out.push_str(&format!("{x:>3}"));
        }
        out.push('\n');
        for y in 0..b.n {
            out.push_str(&format!("{y:>3}"));
            for x in 0..b.n {
                out.push_str(&format!("{:>3}", cell_text(b, x, y)));
            }
            out.push('\n');
        }
        out
    }

    fn forfeit(&self, loser: Side) -> Outcome {
        let mut scores = [0; 2];
        scores[loser.other().index()] = self.city_score();
        Outcome::from_scores(scores)
    }

    fn n_moves(&self) -> usize {
        self.turn
    }

    fn random_playout<R: Rng + ?Sized>(&mut self, rng: &mut R) -> Outcome {
        while !self.is_over() {
            let side = self.side_to_move();
            let mut report = self.last.take().unwrap_or_else(|| TurnReport { player: side, turn: 0, orders: Vec::new(), unused: 0 });
            report.player = side;
            report.turn = self.turn + 1;
            report.orders.clear();
            let mut left = LEGIONS_PER_TURN;
            while left > 0 {
                let (x, y, c) = Position::random_order(&self.board, side, left, rng);
                left -= c;
                let effect = self.board.apply(side, x, y, c);
                report.orders.push(OrderReport { order: Order::Send { x, y, c }, effect });
                if matches!(effect, Effect::Captured { city: true, .. }) {
                    self.taker = Some(side);
                    break;
                }
            }
            report.unused = left;
            self.last = Some(report);
            self.turn += 1;
        }
        self.outcome().expect("the loop ends when the game is over")
    }
}

fn cell_text(b: &Board, x: usize, y: usize) -> String {
    match b.legion(x, y) {
        None => ".".to_string(),
        Some(legion) => {
            let connected = bit(&b.conn[legion.owner.index()], x, y);
            let letter = match (legion.veteran, connected) {
                (false, true) => 'N',
                (false, false) => 'n',
                (true, true) => 'V',
                (true, false) => 'v',
            };
            format!("{letter}{}", legion.owner.index())
        }
    }
}

/// Reads orders from a bot's output (or a record's move text): pieces split at line ends
/// and `;`, blank pieces ignored; a piece of whitespace-separated integers in a positive
/// multiple of three gives that many orders, any other piece one [`Order::Unreadable`]
/// holding the trimmed piece.
pub fn parse_orders(text: &str) -> Move {
    let mut orders = Vec::new();
    for piece in text.split(['\n', ';']) {
        let piece = piece.trim();
        if piece.is_empty() {
            continue;
        }
        let numbers: Option<Vec<i64>> = piece.split_whitespace().map(|token| token.parse::<i64>().ok()).collect();
        match numbers {
            Some(numbers) if numbers.len() % 3 == 0 => {
                orders.extend(numbers.chunks_exact(3).map(|t| Order::Send { x: t[0], y: t[1], c: t[2] }));
            }
            _ => orders.push(Order::Unreadable(piece.to_string())),
        }
    }
    Move { orders }
}

/// Writes orders as `X Y C` with `separator` between them (`"; "` in records, `"\n"` for
/// a bot's answer, which then needs its final line end added).
pub fn format_orders(mv: &Move, separator: &str) -> String {
    let mut out = String::new();
    for (i, order) in mv.orders.iter().enumerate() {
        if i > 0 {
            out.push_str(separator);
        }
        match order {
            Order::Send { x, y, c } => out.push_str(&format!("{x} {y} {c}")),
            Order::Unreadable(text) => out.push_str(text),
        }
    }
    out
}

/// A province in a bot's input.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct MapCell {
    pub owner: Side,
    pub veteran: bool,
    /// Upper case in the text.
    pub connected: bool,
}

/// A bot's input, as read by [`parse_input`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Input {
    /// The player the bot plays.
    pub player: Side,
    pub n: usize,
    /// The cities' `X Y`, player 0 first.
    pub cities: [(i64, i64); 2],
    /// `cells[y][x]`, `None` for an empty province.
    pub cells: Vec<Vec<Option<MapCell>>>,
}

/// Why a bot input text could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {reason}")]
pub struct InputError {
    /// 1-based line number.
    pub line: usize,
    pub reason: String,
}

/// The input a bot gets for its move: the player line, n, the two city lines and n map
/// lines, cells separated by a TAB, every line ending in `\n`.
pub fn format_input(pos: &Position, player: Side) -> String {
    let b = &pos.board;
    let n = b.n;
    let mut out = format!("{}\n{n}\n0 0\n{} {}\n", player.index(), n - 1, n - 1);
    for y in 0..n {
        for x in 0..n {
            if x > 0 {
                out.push('\t');
            }
            out.push_str(&cell_text(b, x, y));
        }
        out.push('\n');
    }
    out
}

/// Reads a bot input (see [`format_input`]). Lenient about whitespace: cells may be
/// separated by any whitespace, `\r\n` line ends and blank lines after the map are
/// accepted. n must be 3..=32; cities are read, not checked (see [`Position::from_input`]).
pub fn parse_input(text: &str) -> Result<Input, InputError> {
    let end = text.split('\n').count() + 1;
    let mut lines = text.split('\n').map(|line| line.trim_end_matches('\r')).enumerate();
    let mut next = |what: &str| -> Result<(usize, &str), InputError> {
        lines.next().map(|(i, line)| (i + 1, line)).ok_or_else(|| InputError { line: end, reason: format!("missing {what}") })
    };
    let err = |line: usize, reason: String| InputError { line, reason };

    let (ln, line) = next("player line")?;
    let player = match line.trim() {
        "0" => Side::First,
        "1" => Side::Second,
        other => return Err(err(ln, format!("player must be 0 or 1, not {other:?}"))),
    };
    let (ln, line) = next("board size")?;
    let n: usize = line.trim().parse().map_err(|_| err(ln, format!("board size {:?} is not a number", line.trim())))?;
    if !(MIN_SIZE..=MAX_SIZE).contains(&n) {
        return Err(err(ln, format!("board size {n} is not between {MIN_SIZE} and {MAX_SIZE}")));
    }
    let mut cities = [(0i64, 0i64); 2];
    for city in &mut cities {
        let (ln, line) = next("city line")?;
        let numbers: Vec<i64> = line
            .split_whitespace()
            .map(|t| t.parse::<i64>().map_err(|_| err(ln, format!("city coordinate {t:?} is not a number"))))
            .collect::<Result<_, _>>()?;
        if numbers.len() != 2 {
            return Err(err(ln, format!("a city line has two numbers, not {}", numbers.len())));
        }
        *city = (numbers[0], numbers[1]);
    }
    let mut cells = Vec::with_capacity(n);
    for y in 0..n {
        let (ln, line) = next("map line").map_err(|e| err(e.line, format!("the map has {y} lines, not {n}")))?;
        let row: Vec<Option<MapCell>> =
            line.split_whitespace().map(|t| parse_cell(t).ok_or_else(|| err(ln, format!("bad cell {t:?}")))).collect::<Result<_, _>>()?;
        if row.len() != n {
            return Err(err(ln, format!("a map line has {n} cells, not {}", row.len())));
        }
        cells.push(row);
    }
    for (i, line) in lines {
        if !line.trim().is_empty() {
            return Err(err(i + 1, "text after the map".to_string()));
        }
    }
    Ok(Input { player, n, cities, cells })
}

fn parse_cell(text: &str) -> Option<Option<MapCell>> {
    if text == "." {
        return Some(None);
    }
    let mut chars = text.chars();
    let (letter, digit) = (chars.next()?, chars.next()?);
    if chars.next().is_some() {
        return None;
    }
    let (veteran, connected) = match letter {
        'N' => (false, true),
        'n' => (false, false),
        'V' => (true, true),
        'v' => (true, false),
        _ => return None,
    };
    let owner = match digit {
        '0' => Side::First,
        '1' => Side::Second,
        _ => return None,
    };
    Some(Some(MapCell { owner, veteran, connected }))
}
