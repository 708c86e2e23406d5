//! The doctor on the web: an upload that speaks the project's protocol or Gomocup's is
//! examined as `arbiter doctor` examines it (`referee::doctor`, inside the sandbox when
//! the server sandboxes bots), and the report comes back with the upload's answer.

use serde_json::{Value, json};
use submissions::Version;

/// The doctor's report on a new version as JSON: `fit`, `moves` and the `problems`
/// (each with its `title`, `side`, `explanation`, `exchange` lines written `> ...` to the
/// bot and `< ...` from it, and `stderr`); `None` for an interface the doctor does not
/// speak. Our own failure is reported as `error`.
pub async fn report(version: &Version, sandboxed: bool) -> Option<Value> {
    if !referee::doctor::speaks(version.protocol) {
        return None;
    }
    let bot = match referee::ProgramBot::load(&version.path.join("bot.toml")) {
        Ok(bot) => bot,
        Err(err) => return Some(json!({ "error": err.to_string() })),
    };
    let mut limits = referee::Limits::for_game(version.game, &version.options).with(&bot.manifest.limits);
    limits.sandboxed = sandboxed;
    let workdir = match tempfile::Builder::new().prefix("arbiter-doctor-").tempdir() {
        Ok(dir) => dir,
        Err(err) => return Some(json!({ "error": format!("cannot make a working folder: {err}") })),
    };
    let checkup = match referee::doctor::examine(&bot, version.game, &version.options, &limits, workdir.path()).await {
        Ok(checkup) => checkup,
        Err(err) => return Some(json!({ "error": err.to_string() })),
    };
    let problems: Vec<Value> = checkup
        .problems
        .iter()
        .map(|problem| {
            let exchange: Vec<String> =
                problem.exchange.iter().map(|line| format!("{} {}", if line.to_bot { '>' } else { '<' }, line.text)).collect();
            json!({
                "title": problem.kind.title(),
                "side": problem.side.index(),
                "explanation": problem.explanation,
                "exchange": exchange,
                "stderr": problem.stderr,
            })
        })
        .collect();
    Some(json!({ "fit": checkup.is_fit(), "moves": checkup.moves, "problems": problems }))
}
