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
    // Reading the manifest and making a folder block: not on a runtime thread.
    let manifest = version.path.join("bot.toml");
    let prepared = tokio::task::spawn_blocking(move || {
        let bot = referee::ProgramBot::load(&manifest).map_err(|err| err.to_string())?;
        let workdir =
            tempfile::Builder::new().prefix("arbiter-doctor-").tempdir().map_err(|err| format!("cannot make a working folder: {err}"))?;
        Ok::<_, String>((bot, workdir))
    })
    .await
    .expect("the doctor's preparation does not panic");
    let (bot, workdir) = match prepared {
        Ok(prepared) => prepared,
        Err(error) => return Some(json!({ "error": error })),
    };
    let mut limits = referee::Limits::for_game(version.game, &version.options).with(&bot.manifest.limits);
    limits.sandboxed = sandboxed;
    let examined = referee::doctor::examine(&bot, version.game, &version.options, &limits, workdir.path()).await;
    // Removing the folder blocks too.
    let _ = tokio::task::spawn_blocking(move || drop(workdir)).await;
    let checkup = match examined {
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
