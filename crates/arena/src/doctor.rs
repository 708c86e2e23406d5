//! The doctor for every interface, shared by `arbiter doctor` and the web arena's entry
//! check: the project's protocol and Gomocup's are examined in a scripted session
//! (`referee::doctor`); any other interface plays two games against the random player,
//! one in each seat, and every fault of the bot is a problem with the referee's words
//! (a wrong answer names the text received and what was expected). Both decide in
//! seconds: the games are played with at most [`doctor::EXCHANGE_TIME`] and
//! [`doctor::GRACE`] a move, whatever the game's budget.

use std::time::Duration;

use rand::SeedableRng;
use referee::doctor::{self, Checkup, Problem, ProblemKind, Step};
use referee::{BotSpec, GameSetup, Limits, ProgramBot, Termination};
use rules::{GameKind, Options, Side};

/// The longest a move may take in the doctor's games of an interface it does not speak.
pub const MOVE_BOUND: Duration = Duration::from_secs(doctor::EXCHANGE_TIME.as_secs() + doctor::GRACE.as_secs());

/// Our own failure to examine a bot (never the bot's: that is a problem in the checkup).
#[derive(Debug, thiserror::Error)]
#[error("the doctor could not examine the bot: {0}")]
pub struct DoctorError(String);

/// Examines `bot` in a game of `kind`, telling each step to `on_step` as it happens:
/// a scripted session for the interfaces the doctor speaks, else two games against the
/// random player with each move bounded by [`MOVE_BOUND`].
pub async fn examine(
    bot: &ProgramBot,
    kind: GameKind,
    options: &Options,
    limits: &Limits,
    on_step: &mut (dyn FnMut(Step) + Send),
) -> Result<Checkup, DoctorError> {
    if doctor::speaks(bot.manifest.protocol) {
        let workdir = tokio::task::spawn_blocking(|| tempfile::Builder::new().prefix("arbiter-doctor-").tempdir())
            .await
            .expect("making a folder does not panic")
            .map_err(|err| DoctorError(format!("cannot make a working folder: {err}")))?;
        let checked = doctor::examine_with(bot, kind, options, limits, workdir.path(), on_step).await;
        // Removing the folder blocks.
        let _ = tokio::task::spawn_blocking(move || drop(workdir)).await;
        return checked.map_err(|err| DoctorError(err.to_string()));
    }
    by_playing(bot, kind, options, *limits, on_step).await
}

/// Two games against the random player, one in each seat; every fault of the bot is a
/// problem, with what it wrote on stderr then.
async fn by_playing(
    bot: &ProgramBot,
    kind: GameKind,
    options: &Options,
    limits: Limits,
    on_step: &mut (dyn FnMut(Step) + Send),
) -> Result<Checkup, DoctorError> {
    let mut checkup = Checkup::default();
    let spec = BotSpec::Program(Box::new(bot.clone()));
    let random = BotSpec::from_arg("random").map_err(|err| DoctorError(err.to_string()))?;
    let mut limits = limits;
    limits.move_time = Some(limits.move_time.map_or(MOVE_BOUND, |t| t.min(MOVE_BOUND)));
    for side in Side::BOTH {
        on_step(Step::Session { side });
        let mut rng = rand::rngs::ChaCha8Rng::seed_from_u64(side.index() as u64);
        let setup_error = |err: rules::SetupError| DoctorError(format!("cannot set up the game: {err}"));
        let start = kind.random_start(options, &mut rng).map_err(setup_error)?;
        let start = kind.new_position(options, start.as_deref()).map_err(setup_error)?;
        let mut setup = GameSetup::new(start, options.clone(), side.index() as u64);
        setup.limits[side.index()] = limits;
        setup.limits[1 - side.index()].sandboxed = limits.sandboxed;
        let bots = if side == Side::First { [&spec, &random] } else { [&random, &spec] };
        let mut moves = 0;
        let record = referee::play_game(&setup, bots, |_, turn| {
            if turn.side == side.index()
                && let Some(text) = &turn.text
            {
                moves += 1;
                on_step(Step::Move { side, number: moves, text: text.clone() });
            }
        })
        .await
        .map_err(|err| DoctorError(format!("the game as side {} was not played: {err}", side.index())))?;
        checkup.moves += record.turns.iter().filter(|turn| turn.side == side.index() && turn.text.is_some()).count();
        let termination = &record.result.termination;
        if termination.side() != Some(side) {
            continue;
        }
        let (kind, detail) = match termination {
            Termination::Crash { detail, .. } if detail.starts_with("did not connect") => (ProblemKind::NoHandshake, detail),
            Termination::Crash { detail, .. } => (ProblemKind::Crash, detail),
            Termination::IllegalMove { detail, .. } => (ProblemKind::IllegalMove, detail),
            Termination::Timeout { detail, .. } => (ProblemKind::LateAnswer, detail),
            Termination::ProtocolError { detail, .. } => (ProblemKind::WrongFormat, detail),
            Termination::Rules | Termination::Adjudicated { .. } => continue,
        };
        let mut explanation = format!("the referee ended the game as side {}'s fault: {detail}", side.index());
        match kind {
            ProblemKind::NoHandshake => explanation.push_str(&format!(
                ". A {} bot connects to the address it is given; a bot that reads its moves on stdin speaks another interface (every `arbiter new` kit speaks `arbiter`)",
                bot.manifest.protocol.name()
            )),
            ProblemKind::LateAnswer if limits.move_time == Some(MOVE_BOUND) => explanation.push_str(&format!(
                ". The doctor gives each move at most {} s, whatever the game allows, so that it decides in seconds",
                MOVE_BOUND.as_secs()
            )),
            _ => {}
        }
        let stderr = match record.startup.iter().find(|s| s.side == side.index()) {
            Some(startup) => startup.stderr.clone(),
            None => record.turns.iter().rev().find(|turn| turn.side == side.index()).map(|turn| turn.stderr.clone()).unwrap_or_default(),
        };
        let problem = Problem { kind, side, explanation, exchange: Vec::new(), stderr };
        on_step(Step::Problem(problem.clone()));
        checkup.problems.push(problem);
    }
    Ok(checkup)
}
