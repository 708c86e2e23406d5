//! PGN out: a chess game's record as PGN (chess's own record format, written by
//! `rules::chess::pgn`), for `play --pgn`, `match --pgn` and `tournament --pgn`. Like a
//! native interface it belongs to its game alone; here only the record's facts are
//! turned into tags and comments: the players' names, the date, the time control, the
//! termination, each move's analysis, time and clock, and the reason the game ended (as
//! fastchess writes it: `White mates`, `Draw by 3-fold repetition`, `Black loses on
//! time`).

use referee::{GameRecord, Termination, TurnRecord};
use rules::chess::pgn::{PgnGame, PgnMove, PgnResult, Tags};
use rules::chess::{End, Position};
use rules::{Game, Options, Registered, Side};

/// Whether records of this game can be written as PGN.
pub fn writes_pgn(game: &str) -> bool {
    game == Position::KIND.name()
}

/// Where and what a game was, for its tags.
#[derive(Clone, Debug)]
pub struct Header<'a> {
    pub event: &'a str,
    pub site: &'a str,
    /// The round (`1`, `3.2`).
    pub round: String,
    /// The players' names, side 0 (White) first.
    pub names: [&'a str; 2],
}

/// One game as PGN, ended by a blank line. `Err` for a record of another game, or one
/// whose moves do not replay.
pub fn game_pgn(record: &GameRecord, header: &Header) -> Result<String, String> {
    if !writes_pgn(&record.game) {
        return Err(format!("a {} game has no PGN (PGN is chess's)", record.game));
    }
    let start = Position::new(&Options::new(), record.start.as_deref()).map_err(|err| err.to_string())?;
    let mut end = start.clone();
    for text in &record.moves {
        let mv = end.parse_move(text).map_err(|err| err.to_string())?;
        end.play(&mv).map_err(|err| err.to_string())?;
    }
    let played: Vec<&TurnRecord> = record.turns.iter().filter(|turn| turn.text.is_some()).collect();
    let moves = record
        .moves
        .iter()
        .enumerate()
        .map(|(idx, uci)| PgnMove { uci: uci.clone(), comment: played.get(idx).map(|turn| comment(turn)) })
        .collect();
    let result = match record.result.winner.and_then(Side::from_index) {
        Some(side) => PgnResult::Win(side),
        None => PgnResult::Draw,
    };
    let names = ["White", "Black"];
    let termination = &record.result.termination;
    let (tag, reason) = match termination {
        Termination::Rules => (
            "normal",
            match end.end() {
                Some(End::Checkmate) => format!("{} mates", names[end.outcome().and_then(|o| o.winner).map_or(0, Side::index)]),
                Some(End::Stalemate) => "Draw by stalemate".to_string(),
                Some(End::InsufficientMaterial) => "Draw by insufficient material".to_string(),
                Some(End::FiftyMoves) => "Draw by fifty moves rule".to_string(),
                Some(End::Repetition) => "Draw by 3-fold repetition".to_string(),
                None => "unterminated".to_string(),
            },
        ),
        Termination::Timeout { side, .. } => ("time forfeit", format!("{} loses on time", names[*side])),
        Termination::IllegalMove { side, .. } => ("rules infraction", format!("{} makes an illegal move", names[*side])),
        Termination::Crash { side, .. } => ("abandoned", format!("{} disconnects", names[*side])),
        Termination::ProtocolError { side, .. } => ("abandoned", format!("{} breaks the protocol", names[*side])),
        Termination::Adjudicated { winner: Some(side), .. } => ("adjudication", format!("{} wins by adjudication", names[*side])),
        Termination::Adjudicated { winner: None, .. } => ("adjudication", "Draw by adjudication".to_string()),
    };
    let mut extra = Vec::new();
    let limits = &record.players[0].limits;
    extra.push((
        "TimeControl".to_string(),
        limits.tc_text().or(limits.move_ms.map(|ms| format!("{}/move", secs(ms)))).unwrap_or("-".to_string()),
    ));
    if record.players[1].limits != *limits {
        let black = &record.players[1].limits;
        extra.push(("BlackTimeControl".to_string(), black.tc_text().unwrap_or("-".to_string())));
    }
    extra.push(("Termination".to_string(), tag.to_string()));
    if let Some(detail) = termination_detail(termination) {
        extra.push(("TerminationDetails".to_string(), detail));
    }
    let game = PgnGame {
        tags: Tags {
            event: header.event.to_string(),
            site: header.site.to_string(),
            date: date(record.started_ms),
            round: header.round.clone(),
            white: header.names[0].to_string(),
            black: header.names[1].to_string(),
            extra,
        },
        start,
        moves,
        result,
        reason: Some(reason),
    };
    rules::chess::pgn::write(&game)
}

/// The fault's or adjudication's own words, for the `TerminationDetails` tag.
fn termination_detail(termination: &Termination) -> Option<String> {
    match termination {
        Termination::Rules => None,
        Termination::Timeout { detail, .. }
        | Termination::IllegalMove { detail, .. }
        | Termination::Crash { detail, .. }
        | Termination::ProtocolError { detail, .. }
        | Termination::Adjudicated { detail, .. } => Some(detail.clone()),
    }
}

/// A move's comment: the engine's score and depth, the move's time, the clock after it
/// (`+0.31/12 0.214s [%clk 0:00:09.886]`).
fn comment(turn: &TurnRecord) -> String {
    let mut parts = Vec::new();
    if let Some(analysis) = &turn.analysis
        && let Some(score) = analysis.score_text()
    {
        parts.push(match analysis.depth {
            Some(depth) => format!("{score}/{depth}"),
            None => score,
        });
    }
    parts.push(format!("{:.3}s", turn.bot_us as f64 / 1e6));
    if let Some(ms) = turn.clock_ms {
        parts.push(format!("[%clk {}:{:02}:{:02}.{:03}]", ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000));
    }
    parts.join(" ")
}

fn secs(ms: u64) -> String {
    let text = format!("{:.3}", ms as f64 / 1000.0);
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// `YYYY.MM.DD` of a time in milliseconds since the epoch (UTC), `????.??.??` for none.
fn date(ms: u64) -> String {
    if ms == 0 {
        return "????.??.??".to_string();
    }
    // Days to a civil date (Howard Hinnant's algorithm).
    let z = (ms / 86_400_000) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}.{month:02}.{day:02}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_civil_utc() {
        assert_eq!(date(0), "????.??.??");
        assert_eq!(date(86_400_000), "1970.01.02");
        assert_eq!(date(951_782_400_000), "2000.02.29");
        assert_eq!(date(1_767_225_600_000), "2026.01.01");
    }
}
