//! What a game record contributes to a tournament.

use referee::GameRecord;
use tournament::{GameOutcome, GameSpec};

/// The tournament's view of a finished game.
pub fn outcome_of(spec: GameSpec, record: &GameRecord) -> GameOutcome {
    let mut moves = [0u32; 2];
    let mut time_ms = [0u64; 2];
    for turn in &record.turns {
        // The time of the moves played: a turn that ended without one (out of time, a
        // crash) is not a move, and its time is not a move's time.
        if turn.side < 2 && turn.text.is_some() {
            time_ms[turn.side] += turn.ms;
            moves[turn.side] += 1;
        }
    }
    let fault = record.result.termination.side().map(|side| (side.index(), record.result.termination.kind().to_string()));
    GameOutcome { spec, winner: record.result.winner, scores: record.result.scores, fault, moves, time_ms }
}
