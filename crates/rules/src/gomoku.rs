//! STUB: the rules of gomoku; to be written.

use rand::Rng;

use crate::{Game, MoveError, OptionSpec, Options, Outcome, SetupError, Side};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Position {}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Move {}

impl Game for Position {
    type Move = Move;
    const NAME: &'static str = "gomoku";
    const OPTIONS: &'static [OptionSpec] = &[];

    fn new(_options: &Options, _start: Option<&str>) -> Result<Self, SetupError> {
        todo!()
    }
    fn start_text(&self) -> Option<String> {
        todo!()
    }
    fn to_move(&self) -> Option<Side> {
        todo!()
    }
    fn outcome(&self) -> Option<Outcome> {
        todo!()
    }
    fn running_scores(&self) -> Option<[i64; 2]> {
        todo!()
    }
    fn legal_moves(&self, _out: &mut Vec<Move>) {
        todo!()
    }
    fn random_move<R: Rng + ?Sized>(&self, _rng: &mut R) -> Option<Move> {
        todo!()
    }
    fn parse_move(&self, _text: &str) -> Result<Move, MoveError> {
        todo!()
    }
    fn format_move(&self, _mv: &Move) -> String {
        todo!()
    }
    fn play(&mut self, _mv: &Move) -> Result<(), MoveError> {
        todo!()
    }
    fn play_unchecked(&mut self, _mv: &Move) {
        todo!()
    }
    fn picture(&self) -> String {
        todo!()
    }
    fn n_moves(&self) -> usize {
        todo!()
    }
}
