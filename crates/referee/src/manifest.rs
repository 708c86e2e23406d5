//! Bot manifests (`bot.toml`) and how a bot is named on the command line: `random`,
//! `greedy`, `human`, or a path to a manifest or to a folder holding `bot.toml`.

use std::path::{Path, PathBuf};

use players::Builtin;
use rules::GameKind;
use serde::Deserialize;
use sha2::{Digest, Sha256};

use crate::limits::LimitOverrides;

/// A bot interface.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Protocol {
    /// Gomoku, one process per move: `PROGRAM X|0|INFO FIELD-FILE ANSWER-FILE`.
    GomokuFile,
    /// Gomoku, one process per game: the `field?` / `figure?` / `step?` dialogue.
    GomokuConsole,
    /// Legions, one process per move: the map on stdin, orders on stdout.
    Legions,
    /// Pah-tum, one process per move: 56 characters in, 56 out.
    Pahtum,
    /// Nupud, one process per call: set-up and move calls.
    Nupud,
    /// Connect Four, a TCP client of the referee's server.
    Connect4Tcp,
    /// The project's own line protocol, any game, one process per game.
    Arbiter,
}

impl Protocol {
    pub const ALL: [Protocol; 7] = [
        Protocol::GomokuFile,
        Protocol::GomokuConsole,
        Protocol::Legions,
        Protocol::Pahtum,
        Protocol::Nupud,
        Protocol::Connect4Tcp,
        Protocol::Arbiter,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Protocol::GomokuFile => "gomoku-file",
            Protocol::GomokuConsole => "gomoku-console",
            Protocol::Legions => "legions",
            Protocol::Pahtum => "pahtum",
            Protocol::Nupud => "nupud",
            Protocol::Connect4Tcp => "connect4-tcp",
            Protocol::Arbiter => "arbiter",
        }
    }

    /// The game a native protocol belongs to; `None` for the project's own protocol,
    /// which serves every game.
    pub fn game(self) -> Option<GameKind> {
        match self {
            Protocol::GomokuFile | Protocol::GomokuConsole => Some(GameKind::Gomoku),
            Protocol::Legions => Some(GameKind::Legions),
            Protocol::Pahtum => Some(GameKind::Pahtum),
            Protocol::Nupud => Some(GameKind::Nupud),
            Protocol::Connect4Tcp => Some(GameKind::Connect4),
            Protocol::Arbiter => None,
        }
    }
}

/// Why a bot could not be found or read.
#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    #[error("no bot {0:?}: not random, greedy or human, and no such file or folder")]
    NotFound(String),
    #[error("{path}: no bot.toml in this folder")]
    NoManifest { path: PathBuf },
    #[error("cannot read {path}: {source}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("{path}: {message}")]
    Invalid { path: PathBuf, message: String },
    #[error("{path}: the build command {command:?} failed: {detail}")]
    Build { path: PathBuf, command: Vec<String>, detail: String },
}

/// The contents of a `bot.toml`.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct Manifest {
    pub name: String,
    pub game: String,
    pub protocol: Protocol,
    /// The program and its arguments. An element that starts with `./` or `../` (or a
    /// first element with a `/`) is a path relative to the manifest's folder; other
    /// elements are passed as they are (a bare first element is looked up in `PATH`).
    pub command: Vec<String>,
    pub author: Option<String>,
    /// A folder (relative to the manifest) whose files are copied into the bot's fresh
    /// working directory at the start of every game.
    pub workdir: Option<String>,
    /// Run in the manifest's folder when the program is missing or older than another
    /// file of that folder (e.g. `["cc", "-O2", "-o", "random", "random.c"]`).
    pub build: Option<Vec<String>>,
    #[serde(default)]
    pub limits: LimitOverrides,
}

/// A bot ready to be started: its manifest with paths resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct ProgramBot {
    pub manifest: Manifest,
    pub manifest_path: PathBuf,
    pub game: GameKind,
    /// The command with paths made absolute.
    pub command: Vec<String>,
    /// The program file whose SHA-256 identifies the bot (the first path in the command).
    pub program_file: Option<PathBuf>,
    pub workdir_template: Option<PathBuf>,
}

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
        if let Some(builtin) = Builtin::from_name(arg) {
            return Ok(BotSpec::Builtin(builtin));
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
            BotSpec::Builtin(builtin) => builtin.name().to_string(),
            BotSpec::Human => "human".to_string(),
            BotSpec::Remote(remote) => remote.name.clone(),
            BotSpec::Program(bot) => bot.manifest.name.clone(),
        }
    }
}

impl ProgramBot {
    /// Reads and checks a manifest, resolving its paths.
    pub fn load(path: &Path) -> Result<ProgramBot, ManifestError> {
        let text = std::fs::read_to_string(path).map_err(|source| ManifestError::Read { path: path.to_path_buf(), source })?;
        let invalid = |message: String| ManifestError::Invalid { path: path.to_path_buf(), message };
        let manifest: Manifest = toml::from_str(&text).map_err(|err| invalid(err.to_string().trim_end().replace('\n', " ")))?;
        let game = GameKind::from_name(&manifest.game).map_err(|err| invalid(err.to_string()))?;
        if let Some(protocol_game) = manifest.protocol.game()
            && protocol_game != game
        {
            return Err(invalid(format!("protocol {} is for {protocol_game}, not {game}", manifest.protocol.name())));
        }
        if manifest.command.is_empty() {
            return Err(invalid("command is empty".to_string()));
        }
        if manifest.name.trim().is_empty() {
            return Err(invalid("name is empty".to_string()));
        }
        let folder = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let folder = std::fs::canonicalize(if folder.as_os_str().is_empty() { Path::new(".") } else { &folder })
            .map_err(|source| ManifestError::Read { path: path.to_path_buf(), source })?;
        let mut program_file = None;
        let command: Vec<String> = manifest
            .command
            .iter()
            .enumerate()
            .map(|(idx, part)| {
                let is_path = part.starts_with("./") || part.starts_with("../") || (idx == 0 && part.contains('/'));
                if is_path && !Path::new(part).is_absolute() {
                    let resolved = folder.join(part.strip_prefix("./").unwrap_or(part));
                    program_file.get_or_insert_with(|| resolved.clone());
                    resolved.to_string_lossy().into_owned()
                } else {
                    if is_path {
                        program_file.get_or_insert_with(|| PathBuf::from(part));
                    }
                    part.clone()
                }
            })
            .collect();
        let workdir_template = manifest.workdir.as_ref().map(|dir| folder.join(dir));
        if let Some(dir) = &workdir_template
            && !dir.is_dir()
        {
            return Err(invalid(format!("workdir {} is not a folder", dir.display())));
        }
        let manifest_path = folder.join(path.file_name().expect("a manifest file has a name"));
        Ok(ProgramBot { manifest, manifest_path, game, command, program_file, workdir_template })
    }

    pub fn folder(&self) -> &Path {
        self.manifest_path.parent().expect("a manifest path has a folder")
    }

    /// Runs the manifest's build command if the program is missing or older than
    /// another file of its folder. Several callers may race: a lock file serialises them.
    pub fn build_if_needed(&self) -> Result<(), ManifestError> {
        let Some(build) = &self.manifest.build else {
            return Ok(());
        };
        let path = self.manifest_path.clone();
        let lock_path = self.folder().join(".arbiter-build.lock");
        let lock = std::fs::File::create(&lock_path).map_err(|source| ManifestError::Read { path: lock_path.clone(), source })?;
        rustix::fs::flock(&lock, rustix::fs::FlockOperation::LockExclusive)
            .map_err(|err| ManifestError::Read { path: lock_path.clone(), source: err.into() })?;
        if !self.is_stale() {
            return Ok(());
        }
        let fail = |detail: String| ManifestError::Build { path: path.clone(), command: build.clone(), detail };
        let output = std::process::Command::new(&build[0])
            .args(&build[1..])
            .current_dir(self.folder())
            .output()
            .map_err(|err| fail(err.to_string()))?;
        if !output.status.success() {
            let stderr = String::from_utf8_lossy(&output.stderr);
            return Err(fail(format!("{}: {}", output.status, stderr.trim())));
        }
        Ok(())
    }

    fn is_stale(&self) -> bool {
        let Some(program) = &self.program_file else {
            return false;
        };
        let Ok(built) = std::fs::metadata(program).and_then(|m| m.modified()) else {
            return true;
        };
        let Ok(entries) = std::fs::read_dir(self.folder()) else {
            return true;
        };
        entries.flatten().any(|entry| {
            let path = entry.path();
            path != *program
                && !entry.file_name().to_string_lossy().starts_with('.')
                && entry.metadata().is_ok_and(|m| m.is_file() && m.modified().is_ok_and(|t| t > built))
        })
    }

    /// SHA-256 of the program file, in hex; `None` when there is no such file. Hashes are
    /// remembered by path, size and modification time, so a big program is hashed once
    /// per change, not once per game.
    pub fn fingerprint(&self) -> Option<String> {
        type Key = (PathBuf, u64, std::time::SystemTime);
        static KNOWN: std::sync::Mutex<Vec<(Key, String)>> = std::sync::Mutex::new(Vec::new());
        let path = self.program_file.as_ref()?;
        let meta = std::fs::metadata(path).ok()?;
        let key: Key = (path.clone(), meta.len(), meta.modified().ok()?);
        if let Some((_, hash)) = KNOWN.lock().expect("fingerprint cache lock").iter().find(|(k, _)| *k == key) {
            return Some(hash.clone());
        }
        let bytes = std::fs::read(path).ok()?;
        let hash: String = Sha256::digest(&bytes).iter().map(|b| format!("{b:02x}")).collect();
        let mut known = KNOWN.lock().expect("fingerprint cache lock");
        known.retain(|(k, _)| k.0 != key.0);
        known.push((key, hash.clone()));
        Some(hash)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, text: &str) -> PathBuf {
        let path = dir.join("bot.toml");
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn resolves_paths_against_the_manifest_folder() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("random.py"), "print()").unwrap();
        let path =
            write(dir.path(), "name = \"r\"\ngame = \"pahtum\"\nprotocol = \"pahtum\"\ncommand = [\"python3\", \"./random.py\", \"-v\"]\n");
        let bot = ProgramBot::load(&path).unwrap();
        let folder = std::fs::canonicalize(dir.path()).unwrap();
        assert_eq!(bot.command, vec!["python3".to_string(), folder.join("random.py").to_string_lossy().into_owned(), "-v".to_string()]);
        assert_eq!(bot.fingerprint().unwrap().len(), 64);
        assert!(matches!(BotSpec::from_arg(dir.path().to_str().unwrap()), Ok(BotSpec::Program(_))));
    }

    #[test]
    fn clear_errors() {
        let dir = tempfile::tempdir().unwrap();
        let cases = [
            ("name = \"r\"\ngame = \"chess\"\nprotocol = \"arbiter\"\ncommand = [\"x\"]\n", "unknown game \"chess\""),
            ("name = \"r\"\ngame = \"gomoku\"\nprotocol = \"pahtum\"\ncommand = [\"x\"]\n", "protocol pahtum is for pahtum, not gomoku"),
            ("name = \"r\"\ngame = \"gomoku\"\nprotocol = \"telepathy\"\ncommand = [\"x\"]\n", "unknown variant `telepathy`"),
            ("name = \"r\"\ngame = \"gomoku\"\nprotocol = \"arbiter\"\ncommand = []\n", "command is empty"),
            ("name = \"r\"\ngame = \"gomoku\"\nprotocol = \"arbiter\"\ncommand = [\"x\"]\ncolour = 1\n", "unknown field `colour`"),
        ];
        for (text, message) in cases {
            let err = ProgramBot::load(&write(dir.path(), text)).unwrap_err().to_string();
            assert!(err.contains(message), "{err}");
            assert!(!err.contains('\n'), "one line: {err}");
        }
        assert!(BotSpec::from_arg("/no/such/bot").unwrap_err().to_string().contains("no such file"));
        assert!(matches!(BotSpec::from_arg("greedy"), Ok(BotSpec::Builtin(Builtin::Greedy))));
    }
}
