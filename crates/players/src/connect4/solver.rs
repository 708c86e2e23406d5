//! The exact Connect Four 7×6 solver, after Pascal Pons' tutorial
//! (blog.gamesolver.org): the board as two 64-bit masks (7 bits a column, the top one a
//! sentinel), negamax with alpha-beta that never plays a move handing the opponent a win,
//! bounds tightened by the moves left, a transposition table of upper and lower bounds,
//! moves ordered by the threats they make (centre first among equals), and null-window
//! searches that narrow the score. Positions of up to [`BOOK_PLIES`] discs are read from
//! the opening book of the `connect-four-ai` crate (every such position with its exact
//! score, computed by that crate's author with its solver), which is what makes the
//! start position instant. Every search takes a [`Budget`] and stops when it is spent.

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::Budget;

pub const WIDTH: usize = 7;
pub const HEIGHT: usize = 6;
const H1: usize = HEIGHT + 1;
const CELLS: i32 = (WIDTH * HEIGHT) as i32;

const fn bottom_mask() -> u64 {
    let mut mask = 0;
    let mut col = 0;
    while col < WIDTH {
        mask |= 1 << (col * H1);
        col += 1;
    }
    mask
}
const BOTTOM: u64 = bottom_mask();
const BOARD: u64 = BOTTOM * ((1 << HEIGHT) - 1);

fn column_mask(col: usize) -> u64 {
    ((1u64 << HEIGHT) - 1) << (col * H1)
}

/// The columns, centre first (the order moves are tried in among equals).
const ORDER: [usize; WIDTH] = [3, 2, 4, 1, 5, 0, 6];

/// The deepest positions in the book.
pub const BOOK_PLIES: i32 = 8;

/// A 7×6 position as bitboards: `current` the discs of the side to move, `mask` all discs.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Bits {
    current: u64,
    mask: u64,
    moves: i32,
}

impl Bits {
    /// The board from rows, top first, with `M` for the side to move's discs, `T` for the
    /// other's and anything else empty (as `rules::connect4::Position::board_rows` gives).
    pub fn from_rows(rows: &[String]) -> Bits {
        let mut bits = Bits { current: 0, mask: 0, moves: 0 };
        for (r, row) in rows.iter().enumerate() {
            let y = HEIGHT - 1 - r;
            for (x, c) in row.chars().enumerate() {
                let bit = 1u64 << (x * H1 + y);
                match c {
                    'M' => bits.current |= bit,
                    'T' => {}
                    _ => continue,
                }
                bits.mask |= bit;
                bits.moves += 1;
            }
        }
        bits
    }

    pub fn moves(&self) -> i32 {
        self.moves
    }

    pub fn can_play(&self, col: usize) -> bool {
        self.mask & (1 << (HEIGHT - 1 + col * H1)) == 0
    }

    pub fn play(&mut self, col: usize) {
        self.play_bit((self.mask + (1 << (col * H1))) & column_mask(col));
    }

    fn play_bit(&mut self, bit: u64) {
        self.current ^= self.mask;
        self.mask |= bit;
        self.moves += 1;
    }

    /// Whether playing `col` makes four.
    pub fn is_winning_move(&self, col: usize) -> bool {
        self.winning_cells() & self.possible() & column_mask(col) != 0
    }

    fn can_win_next(&self) -> bool {
        self.winning_cells() & self.possible() != 0
    }

    fn possible(&self) -> u64 {
        (self.mask + BOTTOM) & BOARD
    }

    /// Empty cells where the side to move would make four.
    fn winning_cells(&self) -> u64 {
        winning_cells(self.current, self.mask)
    }

    fn opponent_winning_cells(&self) -> u64 {
        winning_cells(self.current ^ self.mask, self.mask)
    }

    /// The playable cells that do not let the opponent win at once: the one forced
    /// block when there is one, none when there are two threats to block.
    fn non_losing_moves(&self) -> u64 {
        let mut possible = self.possible();
        let threats = self.opponent_winning_cells();
        let forced = possible & threats;
        if forced != 0 {
            if forced & (forced - 1) != 0 {
                return 0;
            }
            possible = forced;
        }
        // Not under a cell where the opponent would win.
        possible & !(threats >> 1)
    }

    /// How many threats a move makes (its rank in the move order).
    fn move_score(&self, bit: u64) -> u32 {
        winning_cells(self.current | bit, self.mask).count_ones()
    }

    fn key(&self) -> u64 {
        self.current + self.mask
    }

    /// The key of the position or its mirror image, whichever is less (the book's key).
    fn symmetric_key(&self) -> u64 {
        let mirror =
            |bits: u64| (0..WIDTH).fold(0, |acc, col| acc | (((bits >> (col * H1)) & ((1 << H1) - 1)) << ((WIDTH - 1 - col) * H1)));
        self.key().min(mirror(self.current) + mirror(self.mask))
    }
}

/// Empty cells where the discs `position` would make four.
fn winning_cells(position: u64, mask: u64) -> u64 {
    // Vertical: three below.
    let mut r = (position << 1) & (position << 2) & (position << 3);
    // Horizontal and the two diagonals: a shift of one step along the line.
    for step in [H1, HEIGHT, HEIGHT + 2] {
        let mut p = (position << step) & (position << (2 * step));
        r |= p & (position << (3 * step));
        r |= p & (position >> step);
        p = (position >> step) & (position >> (2 * step));
        r |= p & (position << step);
        r |= p & (position >> (3 * step));
    }
    r & (BOARD ^ mask)
}

/// The book: exact scores of every position of up to [`BOOK_PLIES`] discs, by
/// symmetric key (from the `connect-four-ai` crate, loaded once).
fn book() -> &'static HashMap<u64, i8> {
    static BOOK: OnceLock<HashMap<u64, i8>> = OnceLock::new();
    BOOK.get_or_init(|| connect_four_ai::Solver::new().opening_book.map(|book| book.map).unwrap_or_default())
}

/// Table size: a prime above 2^23, so that the key's low 32 bits and its index together
/// tell 49-bit keys apart (Pons' argument by the Chinese remainder theorem).
const TABLE_SIZE: usize = (1 << 23) + 9;

#[derive(Copy, Clone, Default)]
struct Entry {
    key: u32,
    /// 0 (empty), [`UPPER`] or [`LOWER`]: what `value` bounds.
    kind: u8,
    value: i8,
}

const UPPER: u8 = 1;
const LOWER: u8 = 2;

/// A solver with its transposition table (64 MB), kept between searches: its entries
/// are facts about positions, true in every later search.
pub struct Solver {
    table: Vec<Entry>,
    pub nodes: u64,
}

/// A search that ran out of its budget.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Stopped;

impl Default for Solver {
    fn default() -> Solver {
        Solver { table: vec![Entry::default(); TABLE_SIZE], nodes: 0 }
    }
}

impl Solver {
    fn lookup(&self, key: u64) -> Option<Entry> {
        let entry = self.table[(key % TABLE_SIZE as u64) as usize];
        (entry.kind != 0 && entry.key == key as u32).then_some(entry)
    }

    fn store(&mut self, key: u64, kind: u8, value: i32) {
        self.table[(key % TABLE_SIZE as u64) as usize] = Entry { key: key as u32, kind, value: value as i8 };
    }

    /// The score of `pos` (no four made, and the side to move cannot make one at once)
    /// if it lies inside `alpha..beta`; else a bound on the side of the window it is on.
    fn negamax(&mut self, pos: &Bits, mut alpha: i32, mut beta: i32, budget: &Budget) -> Result<i32, Stopped> {
        self.nodes += 1;
        if budget.spent(self.nodes) {
            return Err(Stopped);
        }
        let next = pos.non_losing_moves();
        if next == 0 {
            return Ok(-(CELLS - pos.moves) / 2);
        }
        if pos.moves >= CELLS - 2 {
            return Ok(0);
        }
        if pos.moves <= BOOK_PLIES
            && let Some(&score) = book().get(&pos.symmetric_key())
        {
            return Ok(i32::from(score));
        }
        // The opponent cannot win at once, and we cannot win before our next move.
        let min = -(CELLS - 2 - pos.moves) / 2;
        if alpha < min {
            alpha = min;
            if alpha >= beta {
                return Ok(alpha);
            }
        }
        let max = (CELLS - 1 - pos.moves) / 2;
        if beta > max {
            beta = max;
            if alpha >= beta {
                return Ok(beta);
            }
        }
        let key = pos.key();
        if let Some(entry) = self.lookup(key) {
            let value = i32::from(entry.value);
            if entry.kind == LOWER {
                if alpha < value {
                    alpha = value;
                    if alpha >= beta {
                        return Ok(alpha);
                    }
                }
            } else if beta > value {
                beta = value;
                if alpha >= beta {
                    return Ok(beta);
                }
            }
        }
        // The moves by the threats they make, centre first among equals (insertion
        // sort, stable, into a fixed array: this is the innermost loop).
        let mut moves = [(0u32, 0u64); WIDTH];
        let mut n = 0;
        for col in ORDER {
            let bit = next & column_mask(col);
            if bit != 0 {
                let score = pos.move_score(bit);
                let mut i = n;
                while i > 0 && moves[i - 1].0 < score {
                    moves[i] = moves[i - 1];
                    i -= 1;
                }
                moves[i] = (score, bit);
                n += 1;
            }
        }
        for &(_, bit) in &moves[..n] {
            let mut child = *pos;
            child.play_bit(bit);
            let score = -self.negamax(&child, -beta, -alpha, budget)?;
            if score >= beta {
                self.store(key, LOWER, score);
                return Ok(score);
            }
            if score > alpha {
                alpha = score;
            }
        }
        self.store(key, UPPER, alpha);
        Ok(alpha)
    }

    /// The exact score of `pos` (no four on the board, the game not over), or with
    /// `weak` only its sign (1 a win, 0 a draw, -1 a loss for the side to move).
    pub fn solve(&mut self, pos: &Bits, weak: bool, budget: &Budget) -> Result<i32, Stopped> {
        if pos.can_win_next() {
            return Ok(if weak { 1 } else { (CELLS + 1 - pos.moves) / 2 });
        }
        let (mut min, mut max) = if weak { (-1, 1) } else { (-(CELLS - pos.moves) / 2, (CELLS + 1 - pos.moves) / 2) };
        while min < max {
            let mut mid = min + (max - min) / 2;
            if mid <= 0 && min / 2 < mid {
                mid = min / 2;
            } else if mid >= 0 && max / 2 > mid {
                mid = max / 2;
            }
            let score = self.negamax(pos, mid, mid + 1, budget)?;
            if score <= mid {
                max = score;
            } else {
                min = score;
            }
        }
        Ok(if weak { min.signum() } else { min })
    }

    /// The exact score of each column for the side to move (`None` for a full one).
    pub fn column_scores(&mut self, pos: &Bits, budget: &Budget) -> Result<Vec<Option<i32>>, Stopped> {
        (0..WIDTH)
            .map(|col| {
                if !pos.can_play(col) {
                    return Ok(None);
                }
                if pos.is_winning_move(col) {
                    return Ok(Some((CELLS + 1 - pos.moves) / 2));
                }
                let mut child = *pos;
                child.play(col);
                Ok(Some(-self.solve(&child, false, budget)?))
            })
            .collect()
    }

    /// A move that keeps the best result the position holds (a win if there is one,
    /// else a draw), tried centre first; among lost moves the one that loses last.
    pub fn perfect_column(&mut self, pos: &Bits, budget: &Budget) -> Result<(usize, i32), Stopped> {
        if let Some(col) = ORDER.into_iter().find(|&col| pos.can_play(col) && pos.is_winning_move(col)) {
            return Ok((col, 1));
        }
        let mut draw = None;
        let mut playable = Vec::new();
        for col in ORDER.into_iter().filter(|&col| pos.can_play(col)) {
            let mut child = *pos;
            child.play(col);
            if child.can_win_next() {
                playable.push((col, child));
                continue;
            }
            let result = -self.solve(&child, true, budget)?;
            if result > 0 {
                return Ok((col, 1));
            }
            if result == 0 && draw.is_none() {
                draw = Some(col);
            }
            playable.push((col, child));
        }
        if let Some(col) = draw {
            return Ok((col, 0));
        }
        // Lost: the move that loses last.
        let mut best = (playable[0].0, i32::MIN);
        for (col, child) in playable {
            let score = -self.solve(&child, false, budget)?;
            if score > best.1 {
                best = (col, score);
            }
        }
        Ok((best.0, -1))
    }
}
