//! Connect Four from generated openings, end to end: a real `arbiter tournament` with
//! `openings = { generate = 2 }` between the sample bots of both interfaces (the
//! seed's TCP protocol and Arbiter's own), then every stored record checked here on its
//! own: the starts are partly filled boards with blue to move, both games of a deal share
//! one and the deals differ; every move each bot was sent shows the start's discs and
//! the moves since (a board kept here from the record's moves, not by the rules crate);
//! every game's result is what that board says.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

const ARBITER: &str = env!("CARGO_BIN_EXE_arbiter");

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

/// A board kept by hand: `cells[y][x]`, `y` = 0 the bottom row; `'X'`, `'O'` or `'.'`.
#[derive(Clone, PartialEq, Debug)]
struct Board {
    cells: Vec<Vec<char>>,
}

impl Board {
    /// From the start text: rows top first, one per line.
    fn from_start(text: &str) -> Board {
        let mut cells: Vec<Vec<char>> = text.lines().map(|row| row.chars().collect()).collect();
        cells.reverse();
        Board { cells }
    }

    fn width(&self) -> usize {
        self.cells[0].len()
    }

    fn drop_disc(&mut self, column: usize, disc: char) {
        let row = self.cells.iter().position(|row| row[column] == '.').expect("a move into a full column");
        self.cells[row][column] = disc;
    }

    fn count(&self, disc: char) -> usize {
        self.cells.iter().flatten().filter(|&&c| c == disc).count()
    }

    /// Rows top first, as both interfaces send them: `X`/`O`, or `M`/`T` for `me`.
    fn rows(&self, me: Option<char>) -> String {
        let cell = |c: char| match me {
            None => c,
            Some(_) if c == '.' => '.',
            Some(me) if c == me => 'M',
            Some(_) => 'T',
        };
        self.cells.iter().rev().map(|row| row.iter().map(|&c| cell(c)).collect::<String>()).collect::<Vec<_>>().join("/")
    }

    fn has_four(&self, disc: char) -> bool {
        let (w, h) = (self.width() as isize, self.cells.len() as isize);
        let at = |x: isize, y: isize| x >= 0 && y >= 0 && x < w && y < h && self.cells[y as usize][x as usize] == disc;
        (0..w).any(|x| (0..h).any(|y| [(1, 0), (0, 1), (1, 1), (1, -1)].iter().any(|&(dx, dy)| (0..4).all(|k| at(x + k * dx, y + k * dy)))))
    }
}

#[test]
fn generated_openings_reach_both_interfaces_and_the_records() {
    let dir = tempfile::tempdir().unwrap();
    let bots = repo().join("bots");
    let config = format!(
        "name = \"connect four openings\"\ngame = \"connect4\"\nseed = 5\n\n\
         [[entrant]]\nname = \"tcp\"\nbot = \"{}\"\n\n[[entrant]]\nname = \"own\"\nbot = \"{}\"\n\n\
         [[stage]]\nname = \"rr\"\nformat = \"round-robin\"\ndeals = 3\nswap = true\nopenings = {{ generate = 3 }}\n",
        bots.join("connect4-tcp/python").display(),
        bots.join("arbiter/python").display()
    );
    std::fs::write(dir.path().join("t.toml"), config).unwrap();
    let db = dir.path().join("t.db");
    let out = Command::new(ARBITER)
        .args(["tournament", "t.toml", "--db", "t.db", "-j", "1", "--no-sandbox"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));

    let db = stored_records(&db);
    assert_eq!(db.len(), 6, "3 deals of 2 games");
    let mut starts = Vec::new();
    for record in &db {
        let start = record["start"].as_str().expect("a generated start in the record");
        let board = Board::from_start(start);
        assert_eq!((board.width(), board.cells.len()), (7, 6), "{start}");
        let (blue, red) = (board.count('X'), board.count('O'));
        assert!(blue == red && [1, 2, 3].contains(&blue), "blue {blue}, red {red}:\n{start}");
        assert!(!board.has_four('X') && !board.has_four('O'));
        starts.push(start.to_string());

        // Replay: what each bot was sent before its move shows the board so far.
        let protocols: Vec<&str> = record["players"].as_array().unwrap().iter().map(|p| p["protocol"].as_str().unwrap()).collect();
        let mut board = board;
        let moves: Vec<usize> = record["moves"].as_array().unwrap().iter().map(|m| m.as_str().unwrap().parse().unwrap()).collect();
        let turns = record["turns"].as_array().unwrap();
        assert_eq!(turns.len(), moves.len());
        for (ply, (turn, &column)) in turns.iter().zip(&moves).enumerate() {
            let side = turn["side"].as_u64().unwrap() as usize;
            assert_eq!(side, ply % 2, "blue moves first from the start");
            let disc = if side == 0 { 'X' } else { 'O' };
            let input = turn["input"].as_str().unwrap();
            let expected = match protocols[side] {
                "arbiter" => format!("position {}", board.rows(None)),
                "connect4-tcp" => {
                    let last = if ply == 0 { "-1".to_string() } else { moves[ply - 1].to_string() };
                    format!("move {last} {}", board.rows(Some(disc)))
                }
                other => panic!("protocol {other}"),
            };
            assert!(input.lines().any(|line| line == expected), "ply {ply}: sent {input:?}, the board says {expected:?}");
            board.drop_disc(column, disc);
        }
        let winner = record["result"]["winner"].as_u64();
        let expected = if board.has_four('X') {
            Some(0)
        } else if board.has_four('O') {
            Some(1)
        } else {
            None
        };
        assert_eq!(winner, expected, "the result against the board:\n{}", board.rows(None));
        assert_eq!(record["result"]["termination"]["kind"], "rules");
    }
    // Games 2k and 2k + 1 are a deal (the sides swapped) on one start; the deals differ.
    starts.sort();
    let mut distinct = starts.clone();
    distinct.dedup();
    assert_eq!(distinct.len(), 3, "{starts:?}");
    for start in &distinct {
        assert_eq!(starts.iter().filter(|s| *s == start).count(), 2, "one start per deal of two games");
    }
}

/// The records of the games stored in the database `db`.
fn stored_records(db: &Path) -> Vec<Value> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let store = store::Store::open_read_only(db).await.unwrap();
        let mut records = Vec::new();
        for game in store.games().await.unwrap() {
            let text = store.game_record(&game.spec.key).await.unwrap().expect("every stored game has its record");
            records.push(serde_json::from_str(&text).unwrap());
        }
        records
    })
}
