//! Gomoku's evaluation and move ordering for the alpha-beta player: every line of five
//! cells (a "window") with marks of one side only is worth more the fuller it is; a move
//! is ranked by the windows it joins or spoils, and only the best [`BEAM`] moves near the
//! marks are searched.

use std::sync::OnceLock;

use rules::gomoku::{Move, N_CELLS, Position, SIZE, WIN_LENGTH};
use rules::{Game, Side};

use crate::search::Heuristic;

/// How many moves the search tries in a position.
const BEAM: usize = 12;

/// What a window with `n` marks of one side (and none of the other) is worth.
const WINDOW_VALUE: [i32; WIN_LENGTH + 1] = [0, 1, 12, 150, 2_500, 100_000];

/// The windows (cell indices), and for each cell the windows through it.
struct Windows {
    cells: Vec<[usize; WIN_LENGTH]>,
    through: Vec<Vec<usize>>,
}

fn windows() -> &'static Windows {
    static WINDOWS: OnceLock<Windows> = OnceLock::new();
    WINDOWS.get_or_init(|| {
        let mut cells = Vec::new();
        let n = SIZE as isize;
        for row in 0..n {
            for col in 0..n {
                for (dc, dr) in [(1, 0), (0, 1), (1, 1), (1, -1)] {
                    let end = (col + dc * (WIN_LENGTH as isize - 1), row + dr * (WIN_LENGTH as isize - 1));
                    if (0..n).contains(&end.0) && (0..n).contains(&end.1) {
                        cells.push(std::array::from_fn(|k| ((row + dr * k as isize) * n + col + dc * k as isize) as usize));
                    }
                }
            }
        }
        let mut through = vec![Vec::new(); N_CELLS];
        for (w, window) in cells.iter().enumerate() {
            for &cell in window {
                through[cell].push(w);
            }
        }
        Windows { cells, through }
    })
}

/// The board as an array of cells by index (`row * SIZE + col`).
fn board(pos: &Position) -> [Option<Side>; N_CELLS] {
    std::array::from_fn(|i| pos.cell(i % SIZE, i / SIZE))
}

/// Marks of each side in a window.
fn counts(board: &[Option<Side>; N_CELLS], window: &[usize; WIN_LENGTH]) -> [usize; 2] {
    let mut counts = [0; 2];
    for &cell in window {
        if let Some(side) = board[cell] {
            counts[side.index()] += 1;
        }
    }
    counts
}

impl Heuristic for Position {
    fn evaluate(&self, side: Side) -> i32 {
        let board = board(self);
        let mut score = [0i32; 2];
        for window in &windows().cells {
            match counts(&board, window) {
                [n, 0] => score[0] += WINDOW_VALUE[n],
                [0, n] => score[1] += WINDOW_VALUE[n],
                _ => {}
            }
        }
        // The side to move gets its threats in first.
        let to_move = self.to_move().unwrap_or(side);
        score[to_move.index()] += score[to_move.index()] / 4;
        score[side.index()] - score[side.other().index()]
    }

    fn search_moves(&self, out: &mut Vec<Move>) {
        let Some(me) = self.to_move() else { return };
        let board = board(self);
        let windows = windows();
        let mut ranked: Vec<(i32, usize)> = Vec::new();
        for cell in 0..N_CELLS {
            if board[cell].is_some() {
                continue;
            }
            let mut value = 0;
            for &w in &windows.through[cell] {
                let [mine, theirs] = {
                    let c = counts(&board, &windows.cells[w]);
                    [c[me.index()], c[me.other().index()]]
                };
                // Joining our window, spoiling theirs (a little less: attack first).
                if theirs == 0 {
                    value += WINDOW_VALUE[mine + 1] - WINDOW_VALUE[mine];
                }
                if mine == 0 {
                    value += (WINDOW_VALUE[theirs + 1] - WINDOW_VALUE[theirs]) * 4 / 5;
                }
            }
            ranked.push((value, cell));
        }
        ranked.sort_by(|a, b| b.cmp(a));
        let start = out.len();
        out.extend(ranked.iter().take(BEAM).map(|&(_, cell)| Move::from_index(cell).expect("a cell of the board")));
        if out.len() == start {
            self.legal_moves(out);
        }
    }
}
