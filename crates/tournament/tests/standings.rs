//! Standings from hand-made results: rows, counts by side, faults, time per move, score
//! sums, tie-break values and the cross table, rendered as text and compared whole.

use std::fmt::Write;

use rules::LimitSet;
use tournament::config::{Format, OpeningsConfig, Scoring, StageConfig, StageFormat, TieBreak};
use tournament::schedule::{self, Next, StageContext};
use tournament::standings::{Standings, standings};
use tournament::{Entrant, EntrantId, GameOutcome, GameSpec};

fn stage(format: Format, scoring: Scoring) -> StageConfig {
    StageConfig {
        name: "test".to_string(),
        format: format.with_defaults(),
        options: None,
        matches: 1,
        deals: 1,
        swap: false,
        openings: OpeningsConfig::default(),
        scoring,
        tie_breaks: Vec::new(),
        limits: LimitSet::default(),
        allow_replacement: false,
    }
}

fn entrants(n: usize) -> Vec<Entrant> {
    (0..n).map(|id| Entrant { id, name: format!("bot{id}"), bot: "random".to_string(), submitted: None }).collect()
}

/// The games the stage asks for first.
fn first_games(config: &StageConfig, entrants: &[Entrant], participants: &[EntrantId], baseline: Option<EntrantId>) -> Vec<GameSpec> {
    let ctx = StageContext { index: 0, config, entrants, participants, baseline, n_openings: 0, seed: 1 };
    match schedule::next(&ctx, &[]) {
        Next::Play(specs) => specs,
        Next::Done(_) => panic!("games to play"),
    }
}

/// (winner side, scores, fault, moves, time) for a game.
type Script = (Option<usize>, Option<[i64; 2]>, Option<(usize, &'static str)>, [u32; 2], [u64; 2]);

fn finish(spec: &GameSpec, (winner, scores, fault, moves, time_ms): Script) -> GameOutcome {
    GameOutcome { spec: spec.clone(), winner, scores, fault: fault.map(|(s, k)| (s, k.to_string())), moves, time_ms }
}

fn render(table: &Standings) -> String {
    let mut out = String::new();
    for (row, cross) in table.rows.iter().zip(&table.cross) {
        let f = row.faults;
        let cells: Vec<String> = cross.iter().map(|c| c.map_or("-".to_string(), |p| p.to_string())).collect();
        let ties: Vec<String> =
            row.tie_breaks.iter().map(|(t, v)| format!("{t:?}={}", v.map_or("-".to_string(), |v| v.to_string()))).collect();
        writeln!(
            out,
            "{} bot{} pts {} games {} w {:?} d {:?} l {:?} faults {}/{}/{}/{} ms {} score {} | {} | {}",
            row.rank,
            row.entrant,
            row.points,
            row.games,
            row.wins,
            row.draws,
            row.losses,
            f.timeouts,
            f.crashes,
            f.illegal_moves,
            f.protocol_errors,
            row.avg_ms_per_move.map_or("-".to_string(), |ms| format!("{ms:.2}")),
            row.score_sum.map_or("-".to_string(), |s| s.to_string()),
            ties.join(" "),
            cells.join(" "),
        )
        .expect("writing to a string");
    }
    out
}

#[test]
fn round_robin_rows_and_cross_table() {
    let mut config = stage(Format::RoundRobin, Scoring::Game210);
    config.swap = true;
    config.tie_breaks = vec![TieBreak::HeadToHead, TieBreak::SonnebornBerger];
    let entrants = entrants(3);
    let participants = [0, 1, 2];
    let specs = first_games(&config, &entrants, &participants, None);
    let keys: Vec<(&str, [EntrantId; 2])> = specs.iter().map(|s| (s.key.as_str(), s.players)).collect();
    assert_eq!(
        keys,
        [
            ("s0/r0/0-1/m0/d0/g0", [0, 1]),
            ("s0/r0/0-1/m0/d0/g1", [1, 0]),
            ("s0/r0/2-0/m0/d0/g0", [2, 0]),
            ("s0/r0/2-0/m0/d0/g1", [0, 2]),
            ("s0/r0/1-2/m0/d0/g0", [1, 2]),
            ("s0/r0/1-2/m0/d0/g1", [2, 1]),
        ]
    );
    let scripts: [Script; 6] = [
        (Some(0), Some([5, 1]), None, [10, 9], [100, 90]),
        (None, Some([3, 3]), None, [8, 8], [80, 40]),
        (Some(1), Some([0, 2]), Some((0, "timeout")), [3, 4], [3000, 40]),
        (Some(1), Some([1, 4]), None, [10, 10], [100, 100]),
        (Some(0), Some([2, 0]), Some((1, "crash")), [5, 4], [50, 0]),
        (None, Some([2, 2]), None, [6, 6], [60, 60]),
    ];
    let results: Vec<GameOutcome> = specs.iter().zip(scripts).map(|(s, script)| finish(s, script)).collect();
    let table = standings(&config, &participants, &entrants, &results);
    let expected = "\
1 bot0 pts 5 games 4 w [1, 1] d [0, 1] l [1, 0] faults 0/0/0/0 ms 8.75 score 11 | HeadToHead=- SonnebornBerger=9 | - 3 2
2 bot1 pts 4 games 4 w [1, 0] d [1, 1] l [0, 1] faults 0/0/0/0 ms 10.00 score 8 | HeadToHead=- SonnebornBerger=7 | 1 - 3
3 bot2 pts 3 games 4 w [0, 1] d [1, 0] l [1, 1] faults 1/1/0/0 ms 137.39 score 6 | HeadToHead=- SonnebornBerger=7 | 2 1 -
";
    assert_eq!(render(&table), expected);
    // The stage's result agrees with the standings.
    let ctx = StageContext {
        index: 0,
        config: &config,
        entrants: &entrants,
        participants: &participants,
        baseline: None,
        n_openings: 0,
        seed: 1,
    };
    let Next::Done(result) = schedule::next(&ctx, &results) else { panic!("the stage is over") };
    assert_eq!(result.ranking, [0, 1, 2]);
}

#[test]
fn equal_ranks_only_when_every_tie_break_fails() {
    let mut config = stage(Format::RoundRobin, Scoring::Game1Half0);
    let entrants = entrants(3);
    let participants = [0, 1, 2];
    let specs = first_games(&config, &entrants, &participants, None);
    let draws: Vec<GameOutcome> = specs.iter().map(|s| finish(s, (None, None, None, [1, 1], [1, 1]))).collect();
    let table = standings(&config, &participants, &entrants, &draws);
    assert_eq!(table.rows.iter().map(|r| (r.entrant, r.rank, r.points)).collect::<Vec<_>>(), [(0, 1, 1.0), (1, 1, 1.0), (2, 1, 1.0)]);
    assert!(table.rows.iter().all(|r| r.score_sum.is_none()));
    // Head-to-head splits what it can: one win among the drawn rest.
    config.tie_breaks = vec![TieBreak::HeadToHead];
    let mut games = draws.clone();
    games[0].winner = Some(0);
    let table = standings(&config, &participants, &entrants, &games);
    let ranks: Vec<(EntrantId, usize)> = table.rows.iter().map(|r| (r.entrant, r.rank)).collect();
    let winner = games[0].spec.players[0];
    let loser = games[0].spec.players[1];
    let other = 3 - winner - loser;
    assert_eq!(ranks, [(winner, 1), (other, 2), (loser, 3)]);
}

#[test]
fn standings_mid_stage_count_what_is_finished() {
    let config = stage(Format::RoundRobin, Scoring::Game1Half0);
    let entrants = entrants(4);
    let participants = [0, 1, 2, 3];
    let specs = first_games(&config, &entrants, &participants, None);
    let one = [finish(&specs[0], (Some(1), None, Some((0, "illegal-move")), [2, 2], [0, 0]))];
    let table = standings(&config, &participants, &entrants, &one);
    assert_eq!(table.rows.len(), 4);
    assert_eq!(table.rows[0].entrant, specs[0].players[1]);
    assert_eq!(table.rows[0].points, 1.0);
    let loser = table.rows.iter().find(|r| r.entrant == specs[0].players[0]).expect("a row");
    assert_eq!(loser.faults.illegal_moves, 1);
    assert_eq!(loser.avg_ms_per_move, Some(0.0));
    assert_eq!(table.rows.iter().filter(|r| r.games == 0).count(), 2);
}

#[test]
fn swiss_byes_count_as_a_won_match() {
    let mut config = stage(Format::Swiss, Scoring::Game1Half0);
    config.format = StageFormat::Swiss { rounds: 1 };
    config.deals = 2;
    let entrants = entrants(3);
    let participants = [0, 1, 2];
    let specs = first_games(&config, &entrants, &participants, None);
    assert!(specs.iter().all(|s| !s.players.contains(&2)), "the lowest seed has the bye");
    let results: Vec<GameOutcome> = specs.iter().map(|s| finish(s, (None, None, None, [1, 1], [1, 1]))).collect();
    let table = standings(&config, &participants, &entrants, &results);
    let rows: Vec<(EntrantId, f64, u32)> = table.rows.iter().map(|r| (r.entrant, r.points, r.games)).collect();
    assert_eq!(rows, [(2, 2.0, 0), (0, 1.0, 2), (1, 1.0, 2)]);
}

#[test]
fn entry_check_rows_leave_the_baseline_out() {
    let config = stage(Format::EntryCheck, Scoring::Game210);
    let entrants = entrants(3);
    let participants = [0, 1];
    let specs = first_games(&config, &entrants, &participants, Some(2));
    let results: Vec<GameOutcome> = specs
        .iter()
        .map(|s| finish(s, (s.players.iter().position(|&p| p == 1).or(s.players.iter().position(|&p| p == 2)), None, None, [1, 1], [1, 1])))
        .collect();
    let table = standings(&config, &participants, &entrants, &results);
    assert_eq!(table.rows.iter().map(|r| r.entrant).collect::<Vec<_>>(), [1, 0]);
    assert_eq!(table.cross, [vec![None, None], vec![None, None]]);
}
