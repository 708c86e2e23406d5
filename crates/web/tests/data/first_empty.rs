//! Pah-tum in Rust, hello-world grade: takes the first empty square.
use std::io::Read;
fn main() {
    let mut board = String::new();
    std::io::stdin().read_to_string(&mut board).unwrap();
    let me = if board.matches('X').count() == board.matches('O').count() { 'X' } else { 'O' };
    let at = board.find('-').expect("an empty square");
    board.replace_range(at..at + 1, &me.to_string());
    print!("{board}");
}
