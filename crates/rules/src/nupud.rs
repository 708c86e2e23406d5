//! Nupud ("pieces"), the 6×6 game of valued pieces of the Estonian informatics olympiad's
//! game-program contest of 1994/95 (seed 004; the rules in full are in `docs/games.md`).
//!
//! Rules in short: each side has pieces of values 4, 3, 2, 1, 1, 1. White sets them up
//! on rank 1 and Black on rank 6, simultaneously and hidden; then White moves first. A
//! piece of value n > 1 moves 1 to n squares straight forward without passing over any
//! piece, ending on an empty square or capturing the first enemy piece in its path. A
//! piece of value 1 moves one square straight forward onto an empty square, or captures
//! one square diagonally forward. Capturing is optional; a piece on its far rank (6 for
//! White, 1 for Black) cannot move. The game ends when the side to move has no legal
//! move. Each side scores the values of its pieces on the board, tripled for pieces on
//! the far rank; the higher score wins, equal scores draw.
//!
//! Options: none.
//!
//! The hidden set-up is two moves: White's set-up, then Black's. Until both are in, the
//! board is empty and White's arrangement is kept privately ([`Game::hides_last_move`]
//! is true in between); no picture, `Debug` output or board text shows it.
//!
//! Notation: a set-up is six digits, the values on files a..f of the own home rank
//! (file a first for both sides), a permutation of 432111, e.g. `143211`; a move is
//! from-square and to-square, e.g. `c1c3`. Moves are read case-insensitively, trimmed,
//! with an optional `-` or space between the squares. Six digits that are not a
//! permutation of 432111 are an illegal set-up (`MoveError::Illegal`); other malformed
//! texts are `MoveError::Parse`.
//!
//! Start texts (for [`Game::new`]): none for the set-up phase; `432111/111234` for
//! White's and Black's set-ups already made (White to move); or a board, see
//! [`Position::from_start_text`].
//!
//! Decisions where the seed is silent: running scores during the set-up are `[0, 0]`
//! (the board is empty); a forfeit has no final scores (`Outcome { winner, scores:
//! None }`); legal moves are listed by from-square, then to-square (squares ordered
//! a1, b1, .., f1, a2, .., f6); set-ups in ascending numeric order.
//!
//! The native bot interface (one process per call, `docs/bots.md`) is here as pure
//! functions: [`Request`] with [`parse_request`] / [`Request::to_text`] for what a bot
//! reads, [`format_move_input`], [`parse_board_lines`], [`parse_setup`] (the name a bot gives is
//! checked in `protocols::names`).

use std::fmt;

use rand::{Rng, RngExt};

use crate::view::{self, BoardStyle, BoardView, CellView, Grid, Input, Pieces};
use crate::{Game, GameInfo, LimitSet, MoveError, Options, Outcome, SetupError, Side};

/// Files and ranks of the board.
pub const SIZE: usize = 6;
/// The values of one side's pieces, as in the set-up `432111`.
pub const PIECE_VALUES: [u8; 6] = [4, 3, 2, 1, 1, 1];
/// How many pieces of value 1, 2, 3, 4 one side has.
const COUNT_BY_VALUE: [u32; 4] = [3, 1, 1, 1];
/// The most legal moves one side can have: three 1s with three moves each, and 2 + 3 + 4.
pub const MAX_MOVES: usize = 18;
/// The number of distinct set-ups (6! / 3!).
pub const N_SETUPS: usize = 120;

const FULL: u64 = (1 << 36) - 1;
const FILE_A: u64 = 1 | 1 << 6 | 1 << 12 | 1 << 18 | 1 << 24 | 1 << 30;
const FILE_F: u64 = FILE_A << 5;
const RANK_1: u64 = 0x3f;
const RANK_6: u64 = RANK_1 << 30;

// ---------------------------------------------------------------------------------------
// Squares, pieces, set-ups, moves

/// A square, `a1` = 0, `b1` = 1, .., `f1` = 5, `a2` = 6, .., `f6` = 35.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    /// The square on `file` (0 = a) and `rank` (0 = rank 1), `None` off the board.
    pub fn new(file: usize, rank: usize) -> Option<Square> {
        (file < SIZE && rank < SIZE).then(|| Square((rank * SIZE + file) as u8))
    }

    /// The square with index `idx` (0..36), `None` otherwise.
    pub fn from_index(idx: usize) -> Option<Square> {
        (idx < SIZE * SIZE).then_some(Square(idx as u8))
    }

    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// 0 for file a .. 5 for file f.
    pub fn file(self) -> usize {
        self.index() % SIZE
    }

    /// 0 for rank 1 .. 5 for rank 6.
    pub fn rank(self) -> usize {
        self.index() / SIZE
    }

    /// Every square, a1 first.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..SIZE * SIZE).map(|idx| Square(idx as u8))
    }

    fn bit(self) -> u64 {
        1 << self.0
    }

    /// Reads `c3` (case-insensitive).
    pub fn parse(text: &str) -> Option<Square> {
        let bytes = text.as_bytes();
        if bytes.len() != 2 {
            return None;
        }
        let file = bytes[0].to_ascii_lowercase().wrapping_sub(b'a') as usize;
        let rank = bytes[1].wrapping_sub(b'1') as usize;
        Square::new(file, rank)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.file() as u8) as char, self.rank() + 1)
    }
}

/// A piece: its side and value (1..=4).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    pub side: Side,
    pub value: u8,
}

impl Piece {
    /// The cell text of the native interface: `W1`..`W4`, `B1`..`B4`.
    pub fn code(self) -> String {
        format!("{}{}", side_letter(self.side), self.value)
    }
}

fn side_letter(side: Side) -> char {
    match side {
        Side::First => 'W',
        Side::Second => 'B',
    }
}

/// `white` / `black`, as in the native interface.
pub fn side_name(side: Side) -> &'static str {
    match side {
        Side::First => "white",
        Side::Second => "black",
    }
}

fn side_title(side: Side) -> &'static str {
    match side {
        Side::First => "White",
        Side::Second => "Black",
    }
}

/// A legal set-up: the values on files a..f of a side's home rank, a permutation of
/// `432111`. Only [`parse_setup`], [`Setup::new`] and [`Setup::all`] make one.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Setup([u8; 6]);

const fn build_setups() -> [Setup; N_SETUPS] {
    // Lexicographic permutations of the sorted multiset: ascending numeric order.
    let mut out = [Setup([0; 6]); N_SETUPS];
    let mut cur = [1u8, 1, 1, 2, 3, 4];
    let mut n = 0;
    loop {
        out[n] = Setup(cur);
        n += 1;
        // next permutation
        let mut i = 5;
        while i > 0 && cur[i - 1] >= cur[i] {
            i -= 1;
        }
        if i == 0 {
            break;
        }
        let mut j = 5;
        while cur[j] <= cur[i - 1] {
            j -= 1;
        }
        let tmp = cur[i - 1];
        cur[i - 1] = cur[j];
        cur[j] = tmp;
        let mut lo = i;
        let mut hi = 5;
        while lo < hi {
            let tmp = cur[lo];
            cur[lo] = cur[hi];
            cur[hi] = tmp;
            lo += 1;
            hi -= 1;
        }
    }
    assert!(n == N_SETUPS);
    out
}

static SETUPS: [Setup; N_SETUPS] = build_setups();

impl Setup {
    /// The set-up with these values on files a..f, if they are a permutation of 432111.
    pub fn new(values: [u8; 6]) -> Option<Setup> {
        let mut sorted = values;
        sorted.sort_unstable();
        (sorted == [1, 1, 1, 2, 3, 4]).then_some(Setup(values))
    }

    /// All 120 set-ups in ascending numeric order (`111234` first, `432111` last).
    pub fn all() -> &'static [Setup; N_SETUPS] {
        &SETUPS
    }

    /// The values on files a..f.
    pub fn values(self) -> [u8; 6] {
        self.0
    }
}

impl fmt::Display for Setup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for value in self.0 {
            write!(f, "{value}")?;
        }
        Ok(())
    }
}

/// A move: a set-up (the first two moves of a game) or a step of a piece.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Move {
    Setup(Setup),
    Step { from: Square, to: Square },
}

// ---------------------------------------------------------------------------------------
// The board

/// The pieces on the board, one bitboard per side and value (bit = square index).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Board {
    bits: [[u64; 4]; 2],
}

impl Board {
    pub fn empty() -> Board {
        Board::default()
    }

    /// The board after both set-ups.
    pub fn from_setups(white: Setup, black: Setup) -> Board {
        let mut board = Board::empty();
        for file in 0..SIZE {
            board.bits[0][white.0[file] as usize - 1] |= 1 << file;
            board.bits[1][black.0[file] as usize - 1] |= 1 << (30 + file);
        }
        board
    }

    /// The piece on `sq`, if any.
    pub fn get(&self, sq: Square) -> Option<Piece> {
        for side in Side::BOTH {
            for v in 0..4 {
                if self.bits[side.index()][v] & sq.bit() != 0 {
                    return Some(Piece { side, value: v as u8 + 1 });
                }
            }
        }
        None
    }

    /// Puts `piece` on `sq` (or empties it). Values must be 1..=4.
    pub fn set(&mut self, sq: Square, piece: Option<Piece>) {
        for side in &mut self.bits {
            for bb in side.iter_mut() {
                *bb &= !sq.bit();
            }
        }
        if let Some(piece) = piece {
            assert!((1..=4).contains(&piece.value), "piece value {} out of 1..=4", piece.value);
            self.bits[piece.side.index()][piece.value as usize - 1] |= sq.bit();
        }
    }

    /// The pieces of `side`, square by square from a1.
    pub fn pieces(&self, side: Side) -> impl Iterator<Item = (Square, Piece)> + '_ {
        Square::all().filter_map(move |sq| self.get(sq).filter(|p| p.side == side).map(|p| (sq, p)))
    }

    fn occupied(&self, side: usize) -> u64 {
        let b = &self.bits[side];
        b[0] | b[1] | b[2] | b[3]
    }

    /// The score of `side`: the values of its pieces, tripled on the far rank.
    pub fn score(&self, side: Side) -> i64 {
        let far = far_rank_mask(side.index());
        let mut score = 0;
        for (v, &bb) in self.bits[side.index()].iter().enumerate() {
            let value = v as i64 + 1;
            score += value * (bb.count_ones() as i64 + 2 * (bb & far).count_ones() as i64);
        }
        score
    }

    /// Checks that no side has more pieces of a value than a full set.
    fn check_counts(&self) -> Result<(), String> {
        for side in Side::BOTH {
            for (v, (bb, &most)) in self.bits[side.index()].iter().zip(&COUNT_BY_VALUE).enumerate() {
                let n = bb.count_ones();
                if n > most {
                    return Err(format!("{} has {n} pieces of value {} (at most {most})", side_name(side), v + 1));
                }
            }
        }
        Ok(())
    }

    /// The targets of every piece of `side`, in six groups (see [`Targets`]).
    #[inline]
    fn targets(&self, side: usize) -> Targets {
        if side == 0 { self.targets_of::<0>() } else { self.targets_of::<1>() }
    }

    /// [`Board::targets`] for a side known at compile time (the playout's hot loop).
    #[inline]
    fn targets_of<const SIDE: usize>(&self) -> Targets {
        let side = SIDE;
        let b = &self.bits[side];
        let own = b[0] | b[1] | b[2] | b[3];
        let enemy = self.occupied(1 - side);
        let occ = own | enemy;
        let empty = !occ & FULL;
        let ones = b[0];
        let mut sets = [0u64; 6];
        let mut from = [0u8; 3];
        if side == 0 {
            sets[0] = (ones << 6) & empty;
            sets[1] = ((ones & !FILE_A) << 5) & enemy;
            sets[2] = ((ones & !FILE_F) << 7) & enemy;
        } else {
            sets[0] = (ones >> 6) & empty;
            sets[1] = ((ones & !FILE_A) >> 7) & enemy;
            sets[2] = ((ones & !FILE_F) >> 5) & enemy;
        }
        // Branch-free: the playout's time goes mostly to mispredicted branches.
        for v in 0..3 {
            // A captured piece reads as square 63, whose rays are empty.
            let sq = (b[v + 1] | 1 << 63).trailing_zeros() as usize;
            from[v] = sq as u8;
            let ray = RAYS[side][v][sq];
            let blockers = ray & occ;
            sets[3 + v] = if side == 0 {
                // White goes up: the first blocker is the lowest bit (none: `first` = 0,
                // and `first - 1` keeps the whole ray).
                let first = blockers & blockers.wrapping_neg();
                (ray & first.wrapping_sub(1)) | (first & enemy)
            } else {
                // Black goes down: the first blocker is the highest bit. Shifted up by
                // one with a stop bit at 0, so that no blocker keeps the whole ray.
                let shifted = blockers << 1 | 1;
                let first = 1u64 << (63 - shifted.leading_zeros());
                let above = !((first << 1) - 1) >> 1;
                (ray & above) | ((first >> 1) & enemy)
            };
        }
        Targets { sets, from, side }
    }

    /// Writes the legal steps of `side` into `out` (unordered) and returns their number.
    #[inline]
    fn gen_moves(&self, side: usize, out: &mut [(u8, u8); MAX_MOVES]) -> usize {
        let targets = self.targets(side);
        let mut n = 0;
        for g in 0..6 {
            let mut t = targets.sets[g];
            while t != 0 {
                let to = t.trailing_zeros() as u8;
                out[n] = (targets.origin(g, to), to);
                n += 1;
                t &= t - 1;
            }
        }
        n
    }

    /// Moves the piece of `side` on `from` to `to`, capturing what stands there.
    #[inline]
    fn apply(&mut self, side: usize, from: u8, to: u8) {
        let from_bit = 1u64 << from;
        let to_bit = 1u64 << to;
        for bb in &mut self.bits[1 - side] {
            *bb &= !to_bit;
        }
        for bb in &mut self.bits[side] {
            if *bb & from_bit != 0 {
                *bb ^= from_bit | to_bit;
                break;
            }
        }
    }

    /// Plays a random step of `SIDE` (uniform over its legal steps); `None` if it has
    /// none.
    #[inline]
    fn random_step<const SIDE: usize, R: Rng + ?Sized>(&mut self, rng: &mut R) -> Option<(u8, u8)> {
        let targets = self.targets_of::<SIDE>();
        let counts = targets.counts();
        let n: u32 = counts.iter().sum();
        if n == 0 {
            return None;
        }
        let (from, to, v) = targets.nth(&counts, rng.random_range(0..n));
        self.apply_value(SIDE, v, from, to);
        Some((from, to))
    }

    /// Moves `side`'s piece of value index `v` (value - 1) from `from` to `to`.
    #[inline]
    fn apply_value(&mut self, side: usize, v: usize, from: u8, to: u8) {
        let to_bit = 1u64 << to;
        for bb in &mut self.bits[1 - side] {
            *bb &= !to_bit;
        }
        self.bits[side][v] ^= (1u64 << from) | to_bit;
    }

    /// The six lines of the native interface, rank 6 first: cells separated by one
    /// space, `.` empty, `W1`..`W4`, `B1`..`B4`; each line ends with `\n`.
    pub fn to_lines(&self) -> String {
        let mut out = String::with_capacity(6 * 18);
        for rank in (0..SIZE).rev() {
            for file in 0..SIZE {
                if file > 0 {
                    out.push(' ');
                }
                match self.get(Square::new(file, rank).expect("on board")) {
                    Some(piece) => out.push_str(&piece.code()),
                    None => out.push('.'),
                }
            }
            out.push('\n');
        }
        out
    }
}

/// The target squares of one side's pieces: groups 0..3 are the 1s' straight steps and
/// left and right captures (the from-square is the target less a fixed offset), groups
/// 3..6 the reach of the 2, 3 and 4 (from `from[group - 3]`).
struct Targets {
    sets: [u64; 6],
    from: [u8; 3],
    side: usize,
}

impl Targets {
    /// The number of moves in each group.
    #[inline]
    fn counts(&self) -> [u32; 6] {
        self.sets.map(u64::count_ones)
    }

    #[inline]
    fn origin(&self, group: usize, to: u8) -> u8 {
        const OFFSET: [[i8; 3]; 2] = [[6, 5, 7], [-6, -7, -5]];
        if group < 3 { (to as i8 - OFFSET[self.side][group]) as u8 } else { self.from[group - 3] }
    }

    /// The `k`-th move (k < the sum of `counts`), in group order then by target square,
    /// with the index of the moving piece's value (0 for a 1 .. 3 for a 4).
    #[inline]
    fn nth(&self, counts: &[u32; 6], k: u32) -> (u8, u8, usize) {
        // The group: how many groups end at or before k (branch-free).
        let mut g = 0;
        let mut before = 0;
        let mut end = 0;
        for &c in &counts[..5] {
            end += c;
            let past = k >= end;
            g += past as usize;
            before = if past { end } else { before };
        }
        // Drop the lowest k - before bits: a group holds at most 4 moves.
        let mut t = self.sets[g];
        let skip = k - before;
        for i in 0..3 {
            t = if skip > i { t & t.wrapping_sub(1) } else { t };
        }
        let to = t.trailing_zeros() as u8;
        (self.origin(g, to), to, g.saturating_sub(2))
    }
}

/// `RAYS[side][value - 2][square]`: the squares straight forward of `square` within
/// `value` steps.
/// Squares 36..64 have empty rays (a captured piece reads as square 63).
static RAYS: [[[u64; 64]; 3]; 2] = build_rays();

const fn build_rays() -> [[[u64; 64]; 3]; 2] {
    let mut rays = [[[0u64; 64]; 3]; 2];
    let mut sq = 0;
    while sq < 36 {
        let rank = (sq / 6) as i64;
        let mut v = 0;
        while v < 3 {
            let mut step = 1;
            while step <= v as i64 + 2 {
                if rank + step < 6 {
                    rays[0][v][sq] |= 1 << (sq as i64 + 6 * step);
                }
                if rank - step >= 0 {
                    rays[1][v][sq] |= 1 << (sq as i64 - 6 * step);
                }
                step += 1;
            }
            v += 1;
        }
        sq += 1;
    }
    rays
}

fn far_rank_mask(side: usize) -> u64 {
    if side == 0 { RANK_6 } else { RANK_1 }
}

// ---------------------------------------------------------------------------------------
// The position

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Phase {
    WhiteSetup,
    BlackSetup,
    Play,
    Over,
}

/// How the game began, for [`Game::start_text`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Start {
    SetupPhase,
    Setups(Setup, Setup),
    Board(Board, Side),
}

/// A game of Nupud in progress.
#[derive(Clone, PartialEq, Eq)]
pub struct Position {
    board: Board,
    phase: Phase,
    /// The side to move in play (and the side that was to move once over).
    side: Side,
    /// White's and Black's set-ups; White's is secret while `phase` is `BlackSetup`.
    setups: [Option<Setup>; 2],
    start: Start,
    last: Option<Move>,
    n_moves: u32,
}

impl fmt::Debug for Position {
    // Hand-written so that logs never show White's pending set-up.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let hidden = self.hides_last_move();
        f.debug_struct("Position")
            .field("phase", &self.phase)
            .field("side", &self.side)
            .field("board", &format_args!("{:?}", self.board.to_lines()))
            .field("setups", &if hidden { None } else { self.setups() })
            .field("last", &if hidden { None } else { self.last })
            .field("n_moves", &self.n_moves)
            .finish()
    }
}

impl Position {
    /// The start of a game: the set-up phase, White to set up.
    pub fn new_game() -> Position {
        Position {
            board: Board::empty(),
            phase: Phase::WhiteSetup,
            side: Side::First,
            setups: [None, None],
            start: Start::SetupPhase,
            last: None,
            n_moves: 0,
        }
    }

    /// The position after both set-ups, White to move.
    pub fn from_setups(white: Setup, black: Setup) -> Position {
        let mut pos = Position::from_board(Board::from_setups(white, black), Side::First).expect("a full set-up is a valid board");
        pos.setups = [Some(white), Some(black)];
        pos.start = Start::Setups(white, black);
        pos
    }

    /// A position in play with `board` and `to_move` to move (over at once if that side
    /// has no move). Refuses a side with more pieces of a value than a full set has.
    pub fn from_board(board: Board, to_move: Side) -> Result<Position, SetupError> {
        board.check_counts().map_err(SetupError::BadStart)?;
        let mut pos = Position {
            board,
            phase: Phase::Play,
            side: to_move,
            setups: [None, None],
            start: Start::Board(board, to_move),
            last: None,
            n_moves: 0,
        };
        pos.update_over();
        Ok(pos)
    }

    /// Reads a start text: `432111/111234` (White's and Black's set-ups, White to move),
    /// or a board as `<side>:<rank 6>/<rank 5>/../<rank 1>` with each rank six cells
    /// written without separators, `.` empty, `W1`..`W4`, `B1`..`B4`, e.g.
    /// `black:B4....../....../..W2.../....../....../......` (case-insensitive).
    pub fn from_start_text(text: &str) -> Result<Position, SetupError> {
        let text = text.trim();
        let bad = |reason: &str| SetupError::BadStart(format!("{text:?}: {reason}"));
        if let Some((side_text, ranks)) = text.split_once(':') {
            let side = match side_text.trim().to_ascii_lowercase().as_str() {
                "white" | "w" => Side::First,
                "black" | "b" => Side::Second,
                _ => return Err(bad("the side to move must be white or black")),
            };
            let ranks: Vec<&str> = ranks.split('/').collect();
            if ranks.len() != SIZE {
                return Err(bad("a board has 6 ranks separated by '/'"));
            }
            let mut board = Board::empty();
            for (row, rank_text) in ranks.iter().enumerate() {
                let rank = SIZE - 1 - row;
                let mut chars = rank_text.trim().chars();
                let mut file = 0;
                while let Some(c) = chars.next() {
                    if file >= SIZE {
                        return Err(bad(&format!("rank {} has more than 6 cells", rank + 1)));
                    }
                    let piece = match c.to_ascii_uppercase() {
                        '.' => None,
                        'W' | 'B' => {
                            let side = if c.eq_ignore_ascii_case(&'W') { Side::First } else { Side::Second };
                            let value = chars.next().and_then(|d| d.to_digit(10)).filter(|d| (1..=4).contains(d));
                            let value = value.ok_or_else(|| bad(&format!("rank {}: {c} must be followed by a value 1..4", rank + 1)))?;
                            Some(Piece { side, value: value as u8 })
                        }
                        _ => return Err(bad(&format!("rank {}: unexpected {c:?}", rank + 1))),
                    };
                    board.set(Square::new(file, rank).expect("on board"), piece);
                    file += 1;
                }
                if file != SIZE {
                    return Err(bad(&format!("rank {} has {file} cells, not 6", rank + 1)));
                }
            }
            return Position::from_board(board, side);
        }
        let (white, black) = text.split_once('/').ok_or_else(|| bad("expected two set-ups like 432111/111234, or a board"))?;
        let white = parse_setup(white).map_err(|err| bad(&format!("white: {err}")))?;
        let black = parse_setup(black).map_err(|err| bad(&format!("black: {err}")))?;
        Ok(Position::from_setups(white, black))
    }

    /// The board (empty until both set-ups are in).
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The piece on `sq`.
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        self.board.get(sq)
    }

    /// True while a side still has to set up its pieces.
    pub fn is_setup_phase(&self) -> bool {
        matches!(self.phase, Phase::WhiteSetup | Phase::BlackSetup)
    }

    /// True once White has made its set-up (which stays hidden until Black has made
    /// its own); false in a game that started after the set-up.
    pub fn has_set_up(&self, side: Side) -> bool {
        self.setups[side.index()].is_some()
    }

    /// Both set-ups once both are in (White's first); `None` before, and in a game that
    /// started from a board.
    pub fn setups(&self) -> Option<[Setup; 2]> {
        match self.setups {
            [Some(white), Some(black)] => Some([white, black]),
            _ => None,
        }
    }

    /// The last move played, `None` at the start and while it is White's hidden set-up.
    pub fn last_move(&self) -> Option<Move> {
        if self.hides_last_move() { None } else { self.last }
    }

    /// The score of `side` now: the values of its pieces, tripled on the far rank.
    pub fn score(&self, side: Side) -> i64 {
        self.board.score(side)
    }

    fn update_over(&mut self) {
        if self.board.targets(self.side.index()).sets.iter().all(|&set| set == 0) {
            self.phase = Phase::Over;
        }
    }

    fn end_outcome(&self) -> Outcome {
        Outcome::from_scores([self.score(Side::First), self.score(Side::Second)])
    }

    /// Why the step `from`-`to` is not legal for the side to move (play phase).
    fn step_error(&self, from: Square, to: Square) -> Option<String> {
        let side = self.side;
        let Some(piece) = self.board.get(from) else {
            return Some(format!("there is no piece on {from}"));
        };
        if piece.side != side {
            return Some(format!("the piece on {from} is {}'s", side_name(piece.side)));
        }
        let mut buf = [(0u8, 0u8); MAX_MOVES];
        let n = self.board.gen_moves(side.index(), &mut buf);
        if buf[..n].contains(&(from.0, to.0)) {
            return None;
        }
        let far = if side == Side::First { SIZE - 1 } else { 0 };
        if from.rank() == far {
            return Some(format!("the piece on {from} stands on the far rank and cannot move"));
        }
        let forward: i64 = if side == Side::First { 1 } else { -1 };
        let dr = (to.rank() as i64 - from.rank() as i64) * forward;
        let df = to.file() as i64 - from.file() as i64;
        let target = self.board.get(to);
        let v = piece.value;
        if v == 1 {
            return Some(if dr == 1 && df == 0 {
                format!("a 1 moves straight only onto an empty square, and {to} is occupied")
            } else if dr == 1 && df.abs() == 1 {
                format!("a 1 moves diagonally only to capture, and {to} holds no enemy piece")
            } else {
                "a 1 moves one square forward or captures one square diagonally forward".to_string()
            });
        }
        if df != 0 || dr < 1 || dr > v as i64 {
            return Some(format!("a {v} moves 1 to {v} squares straight forward"));
        }
        let step = if side == Side::First { SIZE as i64 } else { -(SIZE as i64) };
        for k in 1..dr {
            let sq = Square((from.0 as i64 + k * step) as u8);
            if self.board.get(sq).is_some() {
                return Some(format!("the path is blocked at {sq}"));
            }
        }
        if target.is_some_and(|p| p.side == side) {
            return Some(format!("{to} holds a piece of your own"));
        }
        Some(format!("{from}{to} is not a legal move"))
    }

    fn play_setup_unchecked(&mut self, setup: Setup) {
        match self.phase {
            Phase::WhiteSetup => {
                self.setups[0] = Some(setup);
                self.phase = Phase::BlackSetup;
                self.side = Side::Second;
            }
            Phase::BlackSetup => {
                self.setups[1] = Some(setup);
                let white = self.setups[0].expect("white set up before black");
                self.board = Board::from_setups(white, setup);
                self.phase = Phase::Play;
                self.side = Side::First;
            }
            _ => panic!("set-up played after the set-up phase"),
        }
        self.last = Some(Move::Setup(setup));
        self.n_moves += 1;
    }
}

impl Game for Position {
    type Move = Move;
    const INFO: GameInfo = GameInfo {
        name: "nupud",
        aliases: &[],
        title: "Nupud, 6x6 race of valued pieces with hidden set-up (seed 004, 1995)",
        side_names: ["White", "Black"],
        notation: "set-up: six digits for files a-f, e.g. 432111; move: from and to square, e.g. c1c3",
        options: &[],
        enumerable: true,
        has_scores: true,
        hidden_information: true,
        start_required: false,
        generated_openings: false,
        style: BoardStyle {
            grid: Grid::Checkered,
            pieces: Pieces::Discs,
            board_colour: "#f0dcb8",
            line_colour: "#c9a07a",
            piece_colours: ["#fbfaf5", "#22252b"],
            text_colours: ["#1c1917", "#f5f5f4"],
        },
    };

    /// Seed 004: 5 minutes of wall-clock time per side for the whole game.
    fn seed_limits(_options: &Options) -> LimitSet {
        LimitSet { game_ms: Some(300_000), ..LimitSet::default() }
    }

    /// `setup` while a set-up is due, else `white:` or `black:` (the side to move) and
    /// ranks 6 to 1 joined by `/`, six cells each without separators (`.`, `W1`..`W4`,
    /// `B1`..`B4`): the start text's board form.
    fn position_line(&self) -> String {
        if self.is_setup_phase() {
            return "setup".to_string();
        }
        let side = self.to_move().unwrap_or(Side::First);
        let ranks: Vec<String> = self.board().to_lines().lines().map(|line| line.replace(' ', "")).collect();
        format!("{}:{}", side_name(side), ranks.join("/"))
    }

    /// Not for `setup`: the hidden set-up is not in the line.
    fn from_position_line(_options: &Options, line: &str) -> Result<Self, String> {
        if line == "setup" {
            return Err("the set-up phase cannot be rebuilt from its line".to_string());
        }
        Position::from_start_text(line).map_err(|err| err.to_string())
    }

    /// Start texts are one line already.
    fn start_line(text: &str) -> String {
        text.trim().to_string()
    }

    fn start_from_line(line: &str) -> String {
        line.to_string()
    }

    fn board_view(&self) -> BoardView {
        let n = SIZE;
        let mut view = BoardView::new(self, n, n);
        view.col_labels = (0..n).map(|x| ((b'a' + x as u8) as char).to_string()).collect();
        view.row_labels = (0..n).map(|y| (n - y).to_string()).collect();
        // `board()` stays empty until both set-ups are in, so nothing hidden can leak here.
        for y in 0..n {
            for x in 0..n {
                let sq = Square::new(x, n - 1 - y).expect("on the board");
                let piece = self.piece_at(sq);
                view.cells.push(CellView {
                    name: sq.to_string(),
                    owner: view::owner(piece.map(|piece| piece.side)),
                    label: piece.map(|piece| piece.value.to_string()),
                    ..CellView::default()
                });
            }
        }
        let drawn = |sq: Square| [sq.file(), n - 1 - sq.rank()];
        match self.last_move() {
            Some(Move::Step { from, to }) => view.last = vec![drawn(from), drawn(to)],
            // Black's set-up completes the board: its home rank is what just appeared.
            Some(Move::Setup(_)) => view.last = (0..n).map(|x| [x, 0]).collect(),
            None => {}
        }
        view.last_move = self.last_move().map(|mv| self.format_move(&mv));
        let names = view.side_names.clone();
        view.status = if self.is_setup_phase() {
            if self.has_set_up(Side::First) {
                format!("Set-up: {} has set up (hidden); {} to set up", names[0], names[1])
            } else {
                format!("Set-up: {} to set up", names[0])
            }
        } else {
            view.status_line(self.outcome(), "", "draw")
        };
        view.input = match (self.to_move(), self.is_setup_phase()) {
            (None, _) => Input::None,
            (Some(_), true) => Input::Setup,
            (Some(_), false) => Input::FromTo,
        };
        // A set-up by clicks: the side's home rank, files a..f as drawn left to right.
        if let (Some(side), true) = (self.to_move(), self.is_setup_phase()) {
            let y = if side == Side::First { n - 1 } else { 0 };
            for x in 0..n {
                if let Some(i) = view.index(x, y) {
                    view.cells[i].hint = true;
                }
            }
            view.setup = PIECE_VALUES.iter().map(u8::to_string).collect();
            view.legend.push(["hint".into(), "your home rank: click where your 4 goes, then your 3, then your 2 (the 1s take the rest)".into()]);
        }
        view
    }

    fn new(_options: &Options, start: Option<&str>) -> Result<Self, SetupError> {
        match start {
            None => Ok(Position::new_game()),
            Some(text) if text.trim().is_empty() => Ok(Position::new_game()),
            Some(text) => Position::from_start_text(text),
        }
    }

    fn start_text(&self) -> Option<String> {
        match self.start {
            Start::SetupPhase => None,
            Start::Setups(white, black) => Some(format!("{white}/{black}")),
            Start::Board(board, side) => {
                let ranks: Vec<String> = board.to_lines().lines().map(|line| line.replace(' ', "")).collect();
                Some(format!("{}:{}", side_name(side), ranks.join("/")))
            }
        }
    }

    fn to_move(&self) -> Option<Side> {
        match self.phase {
            Phase::WhiteSetup => Some(Side::First),
            Phase::BlackSetup => Some(Side::Second),
            Phase::Play => Some(self.side),
            Phase::Over => None,
        }
    }

    fn outcome(&self) -> Option<Outcome> {
        (self.phase == Phase::Over).then(|| self.end_outcome())
    }

    /// The scores of the board now; `[0, 0]` during the set-up (the board is empty).
    fn running_scores(&self) -> Option<[i64; 2]> {
        Some([self.score(Side::First), self.score(Side::Second)])
    }

    fn legal_moves(&self, out: &mut Vec<Move>) {
        match self.phase {
            Phase::WhiteSetup | Phase::BlackSetup => out.extend(SETUPS.iter().map(|&s| Move::Setup(s))),
            Phase::Play => {
                let mut buf = [(0u8, 0u8); MAX_MOVES];
                let n = self.board.gen_moves(self.side.index(), &mut buf);
                let moves = &mut buf[..n];
                moves.sort_unstable();
                out.extend(moves.iter().map(|&(from, to)| Move::Step { from: Square(from), to: Square(to) }));
            }
            Phase::Over => {}
        }
    }

    fn random_move<R: Rng + ?Sized>(&self, rng: &mut R) -> Option<Move> {
        match self.phase {
            Phase::WhiteSetup | Phase::BlackSetup => Some(Move::Setup(SETUPS[rng.random_range(0..N_SETUPS)])),
            Phase::Play => {
                let mut buf = [(0u8, 0u8); MAX_MOVES];
                let n = self.board.gen_moves(self.side.index(), &mut buf);
                let moves = &mut buf[..n];
                moves.sort_unstable();
                let (from, to) = moves[rng.random_range(0..n)];
                Some(Move::Step { from: Square(from), to: Square(to) })
            }
            Phase::Over => None,
        }
    }

    fn parse_move(&self, text: &str) -> Result<Move, MoveError> {
        let trimmed = text.trim();
        let parse_err = |reason: &str| MoveError::Parse { text: text.to_string(), reason: reason.to_string() };
        if !trimmed.is_empty() && trimmed.bytes().all(|b| b.is_ascii_digit()) {
            return match parse_setup(trimmed) {
                Ok(setup) => Ok(Move::Setup(setup)),
                Err(err @ NativeError::SetupValues(_)) => Err(MoveError::Illegal { text: trimmed.to_string(), reason: err.to_string() }),
                Err(err) => Err(parse_err(&err.to_string())),
            };
        }
        let squares: String = trimmed.chars().filter(|c| *c != '-' && !c.is_whitespace()).collect();
        if squares.len() != 4 || !squares.is_ascii() {
            return Err(parse_err("expected a move like c1c3 or a set-up like 432111"));
        }
        let from = Square::parse(&squares[..2]).ok_or_else(|| parse_err(&format!("{} is not a square of the 6x6 board", &squares[..2])))?;
        let to = Square::parse(&squares[2..]).ok_or_else(|| parse_err(&format!("{} is not a square of the 6x6 board", &squares[2..])))?;
        Ok(Move::Step { from, to })
    }

    fn format_move(&self, mv: &Move) -> String {
        match mv {
            Move::Setup(setup) => setup.to_string(),
            Move::Step { from, to } => format!("{from}{to}"),
        }
    }

    fn play(&mut self, mv: &Move) -> Result<(), MoveError> {
        let text = self.format_move(mv);
        let illegal = |reason: String| MoveError::Illegal { text: text.clone(), reason };
        match (self.phase, mv) {
            (Phase::Over, _) => return Err(MoveError::GameOver),
            (Phase::WhiteSetup | Phase::BlackSetup, Move::Step { .. }) => {
                let side = self.to_move().expect("set-up phase has a side");
                return Err(illegal(format!("{} must set up its pieces first", side_name(side))));
            }
            (Phase::Play, Move::Setup(_)) => return Err(illegal("the set-up is over".to_string())),
            (Phase::Play, Move::Step { from, to }) => {
                if let Some(reason) = self.step_error(*from, *to) {
                    return Err(illegal(reason));
                }
            }
            (Phase::WhiteSetup | Phase::BlackSetup, Move::Setup(_)) => {}
        }
        self.play_unchecked(mv);
        Ok(())
    }

    fn play_unchecked(&mut self, mv: &Move) {
        match *mv {
            Move::Setup(setup) => self.play_setup_unchecked(setup),
            Move::Step { from, to } => {
                self.board.apply(self.side.index(), from.0, to.0);
                self.side = self.side.other();
                self.last = Some(*mv);
                self.n_moves += 1;
                self.update_over();
            }
        }
    }

    /// The board (rank 6 on top) and a status line: who is to set up (never showing a
    /// hidden set-up), who is to move with the scores, or the result.
    fn picture(&self) -> String {
        let mut out = String::new();
        for rank in (0..SIZE).rev() {
            out.push_str(&format!("{} ", rank + 1));
            for file in 0..SIZE {
                match self.board.get(Square::new(file, rank).expect("on board")) {
                    Some(piece) => out.push_str(&format!(" {}", piece.code())),
                    None => out.push_str(" . "),
                }
            }
            out.push('\n');
        }
        out.push_str("   a  b  c  d  e  f\n");
        let scores = format!("White {}, Black {}", self.score(Side::First), self.score(Side::Second));
        match self.phase {
            Phase::WhiteSetup => out.push_str("set-up: White to set up, then Black\n"),
            Phase::BlackSetup => out.push_str("set-up: White has set up (hidden), Black to set up\n"),
            Phase::Play => out.push_str(&format!("{} to move; scores {scores}\n", side_title(self.side))),
            Phase::Over => {
                let result = match self.end_outcome().winner {
                    Some(side) => format!("{} wins", side_title(side)),
                    None => "draw".to_string(),
                };
                out.push_str(&format!("game over, {} cannot move; scores {scores}; {result}\n", side_title(self.side)));
            }
        }
        out
    }

    /// A forfeit loses the game with no final scores: `Outcome { winner: Some(other),
    /// scores: None }`.
    fn forfeit(&self, loser: Side) -> Outcome {
        Outcome { winner: Some(loser.other()), scores: None }
    }

    /// True exactly while White has set up and Black has not.
    fn hides_last_move(&self) -> bool {
        self.phase == Phase::BlackSetup
    }

    fn n_moves(&self) -> usize {
        self.n_moves as usize
    }

    fn random_playout<R: Rng + ?Sized>(&mut self, rng: &mut R) -> Outcome {
        while self.is_setup_phase() {
            self.play_setup_unchecked(SETUPS[rng.random_range(0..N_SETUPS)]);
        }
        if self.phase == Phase::Over {
            return self.end_outcome();
        }
        // Two plies per turn of the loop, so that each knows its side at compile time.
        let mut last = None;
        let mut plies = 0;
        let mut side = self.side;
        if side == Side::Second {
            match self.board.random_step::<1, R>(rng) {
                Some(step) => {
                    last = Some(step);
                    plies += 1;
                    side = Side::First;
                }
                None => side = Side::Second,
            }
        }
        if side == Side::First {
            loop {
                match self.board.random_step::<0, R>(rng) {
                    Some(step) => last = Some(step),
                    None => {
                        side = Side::First;
                        break;
                    }
                }
                plies += 1;
                match self.board.random_step::<1, R>(rng) {
                    Some(step) => last = Some(step),
                    None => {
                        side = Side::Second;
                        break;
                    }
                }
                plies += 1;
            }
        }
        self.n_moves += plies;
        self.side = side;
        if let Some((from, to)) = last {
            self.last = Some(Move::Step { from: Square(from), to: Square(to) });
        }
        self.phase = Phase::Over;
        self.end_outcome()
    }
}

// ---------------------------------------------------------------------------------------
// The native bot interface (pure text functions)

/// Why a text of the native interface was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NativeError {
    #[error("a set-up is one line of six digits, got {0:?}")]
    SetupShape(String),
    #[error("a set-up must use the values 4, 3, 2, 1, 1, 1 once each, got {0}")]
    SetupValues(String),
    #[error("expected \"place white\", \"place black\", \"move white\" or \"move black\", got {0:?}")]
    Request(String),
    #[error("a board has 6 lines, got {0}")]
    BoardLines(usize),
    #[error("board line {line}: {reason}")]
    BoardLine { line: usize, reason: String },
    #[error("bad board: {0}")]
    Board(String),
}

/// What a bot reads on stdin in one call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request {
    /// Empty stdin: the bot prints its name.
    Name,
    /// `place white` / `place black`: the bot prints its set-up.
    Place(Side),
    /// `move white` / `move black` and the board: the bot prints its move.
    Move { side: Side, board: Board },
}

impl Request {
    /// The exact stdin text: `""`, `"place white\n"`, or `"move white\n"` and 6 lines.
    pub fn to_text(&self) -> String {
        match self {
            Request::Name => String::new(),
            Request::Place(side) => format!("place {}\n", side_name(*side)),
            Request::Move { side, board } => format!("move {}\n{}", side_name(*side), board.to_lines()),
        }
    }
}

/// The set-up call's input for `side`: `place white\n` or `place black\n`.
pub fn format_setup_input(side: Side) -> String {
    Request::Place(side).to_text()
}

/// The move call's input: `move white\n` (or black) and the 6 board lines, rank 6 first.
/// During the set-up the board is empty, so nothing of a hidden set-up is shown.
pub fn format_move_input(pos: &Position, side: Side) -> String {
    Request::Move { side, board: *pos.board() }.to_text()
}

fn parse_side(word: &str) -> Option<Side> {
    match word {
        "white" => Some(Side::First),
        "black" => Some(Side::Second),
        _ => None,
    }
}

/// Reads what a bot gets on stdin (the reverse of [`Request::to_text`]). Lines may end
/// in `\n` or `\r\n`; the first line is exact (`place white`, ...).
pub fn parse_request(text: &str) -> Result<Request, NativeError> {
    if text.trim().is_empty() {
        return Ok(Request::Name);
    }
    let (first, rest) = text.split_once('\n').unwrap_or((text, ""));
    let first = first.strip_suffix('\r').unwrap_or(first);
    let bad = || NativeError::Request(first.to_string());
    let (verb, side) = first.split_once(' ').ok_or_else(bad)?;
    let side = parse_side(side).ok_or_else(bad)?;
    match verb {
        "place" if rest.trim().is_empty() => Ok(Request::Place(side)),
        "place" => Err(NativeError::Request(text.to_string())),
        "move" => Ok(Request::Move { side, board: parse_board_lines(rest)? }),
        _ => Err(bad()),
    }
}

/// Reads the 6 board lines of a move call (rank 6 first; cells separated by exactly one
/// space; `.`, `W1`..`W4`, `B1`..`B4`). Lines end in `\n` (or `\r\n`); the last line
/// may lack its line end. Refuses a side with more pieces of a value than a full set.
pub fn parse_board_lines(text: &str) -> Result<Board, NativeError> {
    let body = text.strip_suffix('\n').unwrap_or(text);
    let lines: Vec<&str> = body.split('\n').map(|line| line.strip_suffix('\r').unwrap_or(line)).collect();
    if lines.len() != SIZE {
        return Err(NativeError::BoardLines(lines.len()));
    }
    let mut board = Board::empty();
    for (row, line) in lines.iter().enumerate() {
        let rank = SIZE - 1 - row;
        let cells: Vec<&str> = line.split(' ').collect();
        let bad = |reason: String| NativeError::BoardLine { line: row + 1, reason };
        if cells.len() != SIZE {
            return Err(bad(format!("expected 6 cells separated by one space, got {line:?}")));
        }
        for (file, cell) in cells.iter().enumerate() {
            let piece = match cell.as_bytes() {
                [b'.'] => None,
                [c @ (b'W' | b'B'), v @ b'1'..=b'4'] => {
                    Some(Piece { side: if *c == b'W' { Side::First } else { Side::Second }, value: v - b'0' })
                }
                _ => return Err(bad(format!("bad cell {cell:?}"))),
            };
            board.set(Square::new(file, rank).expect("on board"), piece);
        }
    }
    board.check_counts().map_err(NativeError::Board)?;
    Ok(board)
}

/// Reads a bot's set-up answer: six digits (file a first), a permutation of 432111.
/// Surrounding whitespace (the line end) is ignored.
pub fn parse_setup(line: &str) -> Result<Setup, NativeError> {
    let text = line.trim();
    let bytes = text.as_bytes();
    if bytes.len() != 6 || !bytes.iter().all(|b| b.is_ascii_digit()) {
        return Err(NativeError::SetupShape(text.to_string()));
    }
    let mut values = [0u8; 6];
    for (value, b) in values.iter_mut().zip(bytes) {
        *value = b - b'0';
    }
    Setup::new(values).ok_or_else(|| NativeError::SetupValues(text.to_string()))
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;
    use rand::rngs::ChaCha8Rng;

    use super::*;

    /// The playout picks index k of `Targets::nth` uniformly: every k must give a
    /// distinct legal step, and all of them together exactly the legal steps.
    #[test]
    fn nth_enumerates_exactly_the_legal_steps() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        for _ in 0..300 {
            let mut pos = Position::new_game();
            while let Some(mv) = pos.random_move(&mut rng) {
                pos.play_unchecked(&mv);
                if pos.is_setup_phase() {
                    continue;
                }
                for side in 0..2 {
                    let targets = pos.board.targets(side);
                    let counts = targets.counts();
                    let n: u32 = counts.iter().sum();
                    let mut by_nth: Vec<(u8, u8)> = (0..n)
                        .map(|k| {
                            let (from, to, v) = targets.nth(&counts, k);
                            assert_eq!(pos.board.get(Square(from)).map(|p| p.value as usize), Some(v + 1));
                            (from, to)
                        })
                        .collect();
                    by_nth.sort_unstable();
                    let mut buf = [(0u8, 0u8); MAX_MOVES];
                    let m = pos.board.gen_moves(side, &mut buf);
                    let mut listed = buf[..m].to_vec();
                    listed.sort_unstable();
                    assert_eq!(by_nth, listed);
                    assert!(by_nth.windows(2).all(|w| w[0] != w[1]));
                }
            }
        }
    }
}
