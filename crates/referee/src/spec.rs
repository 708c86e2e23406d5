//! How a player is named on the command line and in configs: a built-in player, a person
//! (at the terminal or through the web), or a program bot's manifest.

use std::path::Path;

use bots::{ManifestError, ProgramBot};
use players::Builtin;

/// A player as named on the command line.
#[derive(Clone, Debug, PartialEq)]
pub enum BotSpec {
    Builtin(Builtin),
    Human,
    /// A person playing through another front end (the web arena); see [`crate::human::Remote`].
    Remote(crate::human::Remote),
    Program(Box<ProgramBot>),
}

impl BotSpec {
    /// Reads a bot name: a built-in player, `human`, or a manifest path or folder.
    pub fn from_arg(arg: &str) -> Result<BotSpec, ManifestError> {
        if Builtin::is_builtin_name(arg) {
            return Builtin::parse(arg).map(BotSpec::Builtin).map_err(|err| ManifestError::Builtin(err.to_string()));
        }
        if arg == "human" {
            return Ok(BotSpec::Human);
        }
        let path = Path::new(arg);
        if path.is_dir() {
            let manifest = path.join("bot.toml");
            if !manifest.is_file() {
                return Err(ManifestError::NoManifest { path: path.to_path_buf() });
            }
            return ProgramBot::load(&manifest).map(|bot| BotSpec::Program(Box::new(bot)));
        }
        if path.is_file() {
            return ProgramBot::load(path).map(|bot| BotSpec::Program(Box::new(bot)));
        }
        Err(ManifestError::NotFound(arg.to_string()))
    }

    /// The name shown in results.
    pub fn name(&self) -> String {
        match self {
            BotSpec::Builtin(builtin) => builtin.name(),
            BotSpec::Human => "human".to_string(),
            BotSpec::Remote(remote) => remote.name.clone(),
            BotSpec::Program(bot) => bot.manifest.name.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_on_the_command_line() {
        assert!(matches!(BotSpec::from_arg("greedy"), Ok(BotSpec::Builtin(Builtin::GREEDY))));
        assert!(matches!(BotSpec::from_arg("human"), Ok(BotSpec::Human)));
        assert!(BotSpec::from_arg("/no/such/bot").unwrap_err().to_string().contains("no such file"));
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("random.py"), "print()").unwrap();
        let manifest = "name = \"r\"\ngame = \"pahtum\"\nprotocol = \"pahtum\"\ncommand = [\"python3\", \"./random.py\"]\n";
        std::fs::write(dir.path().join("bot.toml"), manifest).unwrap();
        assert!(matches!(BotSpec::from_arg(dir.path().to_str().unwrap()), Ok(BotSpec::Program(_))));
    }
}
