//! Turns the config's entrants (listed ones, a folder of bots, or `--bots DIR`) into
//! bots the referee can start, with unique names.

use std::path::Path;

use referee::BotSpec;
use rules::GameKind;
use tournament::{Entrant, TournamentConfig};

/// An entrant and the bot behind it.
#[derive(Clone, Debug)]
pub struct ResolvedEntrant {
    pub entrant: Entrant,
    pub spec: BotSpec,
}

/// Reads a bot named in a config: a built-in, or a manifest path or folder relative to
/// the config's folder. The bot must play the tournament's game.
pub fn resolve_bot(bot: &str, config_dir: &Path, game: GameKind) -> Result<BotSpec, String> {
    let path = config_dir.join(bot);
    let arg =
        if matches!(bot, "random" | "greedy" | "human") || !path.exists() { bot.to_string() } else { path.to_string_lossy().into_owned() };
    let spec = BotSpec::from_arg(&arg).map_err(|err| err.to_string())?;
    match &spec {
        BotSpec::Human => Err(format!("bot {bot}: a human cannot enter a tournament")),
        BotSpec::Program(program) => match program.plays_other_than(game) {
            Some(plays) => Err(format!("bot {bot} plays {plays}, not {game}")),
            None => Ok(spec),
        },
        _ => Ok(spec),
    }
}

/// The entrants of a tournament: those the config lists, then the bots in its `bots`
/// folder (sub-folders holding `bot.toml`, by name); `bots_override` replaces both.
pub fn resolve_entrants(
    config: &TournamentConfig,
    config_dir: &Path,
    bots_override: Option<&Path>,
) -> Result<Vec<ResolvedEntrant>, String> {
    let mut listed: Vec<(Option<String>, String, Option<String>)> = Vec::new();
    let folder = match bots_override {
        Some(dir) => Some(dir.to_path_buf()),
        None => {
            listed.extend(config.entrants.iter().map(|e| (e.name.clone(), e.bot.clone(), e.submitted.clone())));
            config.bots.as_ref().map(|dir| config_dir.join(dir))
        }
    };
    if let Some(dir) = folder {
        let mut found: Vec<String> = std::fs::read_dir(&dir)
            .map_err(|err| format!("cannot read the bots folder {}: {err}", dir.display()))?
            .flatten()
            .filter(|entry| entry.path().join("bot.toml").is_file())
            .map(|entry| entry.path().to_string_lossy().into_owned())
            .collect();
        found.sort();
        if found.is_empty() {
            return Err(format!("no bots in {} (each bot is a folder holding bot.toml)", dir.display()));
        }
        listed.extend(found.into_iter().map(|path| (None, path, None)));
    }
    let mut out: Vec<ResolvedEntrant> = Vec::new();
    for (name, bot, submitted) in listed {
        // A bot that cannot be had is named with its entrant, as the config names it.
        let spec = resolve_bot(&bot, config_dir, config.game).map_err(|err| match &name {
            Some(name) => format!("entrant {name}: {err}"),
            None => err,
        })?;
        let name = name.unwrap_or_else(|| spec.name());
        if out.iter().any(|e| e.entrant.name == name) {
            return Err(format!("two entrants are named {name:?}: give them distinct `name`s"));
        }
        let id = out.len();
        out.push(ResolvedEntrant { entrant: Entrant { id, name, bot, submitted }, spec });
    }
    if out.len() < 2 {
        return Err("a tournament needs at least two entrants".to_string());
    }
    Ok(out)
}
