//! Bot manifests (`bot.toml`) and how a bot is named on the command line: a built-in
//! player (`random`, `strong`, ...), `human`, or a path to a manifest or to a folder holding `bot.toml`.

use std::path::{Path, PathBuf};

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
    /// Gomoku, one process per game: Gomocup's (Piskvork's) `START` / `TURN` / `x,y`.
    Gomocup,
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
    /// Chess, one process kept across games: the Universal Chess Interface of the
    /// world's chess engines (`uci`, `position`, `go`, `bestmove`).
    Uci,
}

impl Protocol {
    pub const ALL: [Protocol; 9] = [
        Protocol::GomokuFile,
        Protocol::GomokuConsole,
        Protocol::Gomocup,
        Protocol::Legions,
        Protocol::Pahtum,
        Protocol::Nupud,
        Protocol::Connect4Tcp,
        Protocol::Arbiter,
        Protocol::Uci,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Protocol::GomokuFile => "gomoku-file",
            Protocol::GomokuConsole => "gomoku-console",
            Protocol::Gomocup => "gomocup",
            Protocol::Legions => "legions",
            Protocol::Pahtum => "pahtum",
            Protocol::Nupud => "nupud",
            Protocol::Connect4Tcp => "connect4-tcp",
            Protocol::Arbiter => "arbiter",
            Protocol::Uci => "uci",
        }
    }

    /// The game a native protocol belongs to; `None` for the project's own protocol,
    /// which serves every game.
    pub fn game(self) -> Option<GameKind> {
        use rules::{Registered, chess, connect4, gomoku, legions, nupud, pahtum};
        match self {
            Protocol::GomokuFile | Protocol::GomokuConsole | Protocol::Gomocup => Some(gomoku::Position::KIND),
            Protocol::Legions => Some(legions::Position::KIND),
            Protocol::Pahtum => Some(pahtum::Position::KIND),
            Protocol::Nupud => Some(nupud::Position::KIND),
            Protocol::Connect4Tcp => Some(connect4::Position::KIND),
            Protocol::Uci => Some(chess::Position::KIND),
            Protocol::Arbiter => None,
        }
    }
}

/// Why a bot could not be found or read.
#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    #[error("no bot {0:?}: not a built-in player ({names}), not human, and no such file or folder", names = builtins::Builtin::names())]
    NotFound(String),
    /// A built-in player's name with a bad node limit.
    #[error("{0}")]
    Builtin(String),
    #[error("{path}: no bot.toml in this folder")]
    NoManifest { path: PathBuf },
    #[error("cannot read {path}: {source}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("{path}: {message}")]
    Invalid { path: PathBuf, message: String },
    #[error("{path}: the build command {command:?} failed: {detail}")]
    Build { path: PathBuf, command: Vec<String>, detail: String },
    /// Our own failure: the build could not be run at all.
    #[error("{path}: the build command {command:?} could not be run: {source}")]
    BuildNotRun { path: PathBuf, command: Vec<String>, source: crate::build::BuildError },
}

impl ManifestError {
    /// Whether this is the referee's own failure (the machine, the helper), not anything
    /// the bot or its build did: a build that could not be run, or a build lock that could
    /// not be taken for another reason than a link or special file where it goes.
    pub fn is_ours(&self) -> bool {
        match self {
            ManifestError::BuildNotRun { .. } => true,
            ManifestError::Read { source, .. } => source.kind() != std::io::ErrorKind::InvalidInput,
            _ => false,
        }
    }
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
    /// A UCI engine's settings (`protocol = "uci"`): its options and a search limit.
    #[serde(default)]
    pub uci: UciSettings,
}

/// What a UCI engine is told beside the game (`[uci]` in its manifest; an entrant's
/// settings and the command line's `--engine-option` add to them): its options, sent
/// with `setoption` after `uciok`, and a limit on each search instead of the clock
/// (`go nodes N`, `go depth N`), as fastchess's `option.NAME=VALUE`, `nodes` and `depth`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct UciSettings {
    /// Option name and value, e.g. `Hash = 16`, `Threads = 1`, `"Skill Level" = 3`.
    #[serde(default, deserialize_with = "option_values")]
    pub options: std::collections::BTreeMap<String, String>,
    /// Each search limited to so many nodes (`go nodes N`), the clock still running.
    pub nodes: Option<u64>,
    /// Each search limited to so many plies (`go depth N`).
    pub depth: Option<u32>,
}

impl UciSettings {
    /// Reads `NAME=VALUE` (the command line's `--engine-option`) into the options; a
    /// name without `=` is a button (`setoption name NAME`, an empty value here).
    pub fn set(&mut self, pair: &str) -> Result<(), String> {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        let name = name.trim().strip_prefix("option.").unwrap_or(name.trim());
        if name.is_empty() || name.chars().any(char::is_control) || value.chars().any(char::is_control) {
            return Err(format!("engine option {pair:?} is not NAME=VALUE (e.g. Hash=16)"));
        }
        match name {
            "nodes" => self.nodes = Some(value.trim().parse().map_err(|_| format!("nodes={value:?} is not a whole number"))?),
            "depth" => self.depth = Some(value.trim().parse().map_err(|_| format!("depth={value:?} is not a whole number"))?),
            _ => {
                self.options.insert(name.to_string(), value.trim().to_string());
            }
        }
        Ok(())
    }
}

/// Option values as TOML writes them (numbers, booleans, text), as text.
fn option_values<'de, D: serde::Deserializer<'de>>(de: D) -> Result<std::collections::BTreeMap<String, String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Value {
        Int(i64),
        Bool(bool),
        Float(f64),
        Text(String),
    }
    let raw = std::collections::BTreeMap::<String, Value>::deserialize(de)?;
    Ok(raw
        .into_iter()
        .map(|(name, value)| {
            let text = match value {
                Value::Int(v) => v.to_string(),
                Value::Bool(v) => v.to_string(),
                Value::Float(v) => v.to_string(),
                Value::Text(v) => v,
            };
            (name, text)
        })
        .collect())
}

/// The widest `name` of a manifest, in columns (the one rule for names).
pub const MAX_NAME_WIDTH: usize = text::name::MAX_NAME_WIDTH;
/// The longest `author` of a manifest, in characters.
pub const MAX_AUTHOR_CHARS: usize = 200;

impl Manifest {
    /// Checks what the TOML types cannot: a name and a command, text fields that reach
    /// files and terminals without control characters, and a `workdir` inside the bot's
    /// folder. The message is one line, without the file's name.
    pub fn check(&self) -> Result<(), String> {
        // The one rule for names (the `text` crate), the same as configs and uploads.
        text::check_name("name", &self.name).map_err(|err| err.to_string())?;
        if let Some(author) = &self.author {
            text::check_text("author", author, MAX_AUTHOR_CHARS).map_err(|err| err.to_string())?;
        }
        if self.command.is_empty() {
            return Err("command is empty".to_string());
        }
        if matches!(&self.build, Some(build) if build.is_empty()) {
            return Err("build is empty".to_string());
        }
        for (name, value) in &self.uci.options {
            text::check_text("a [uci] option's name", name, MAX_AUTHOR_CHARS).map_err(|err| err.to_string())?;
            text::check_text("a [uci] option's value", value, MAX_AUTHOR_CHARS).map_err(|err| err.to_string())?;
        }
        if self.protocol != Protocol::Uci && self.uci != UciSettings::default() {
            return Err("[uci] is for protocol = \"uci\"".to_string());
        }
        if let Some(dir) = &self.workdir {
            let path = Path::new(dir);
            let inside =
                !dir.is_empty() && path.components().all(|c| matches!(c, std::path::Component::Normal(_) | std::path::Component::CurDir));
            if !inside {
                return Err(format!("workdir {dir:?} must be a folder inside the bot's folder (a relative path without ..)"));
            }
        }
        Ok(())
    }
}

/// The manifest's `game` of a project-protocol bot that plays every game.
pub const ANY_GAME: &str = "any";

/// A bot ready to be started: its manifest with paths resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct ProgramBot {
    pub manifest: Manifest,
    pub manifest_path: PathBuf,
    /// The game it plays; `None` for a project-protocol bot whose manifest says
    /// `game = "any"` (it plays every game from the protocol's lines).
    pub game: Option<GameKind>,
    /// The command with paths made absolute.
    pub command: Vec<String>,
    /// The program file whose SHA-256 identifies the bot (the first path in the command).
    pub program_file: Option<PathBuf>,
    pub workdir_template: Option<PathBuf>,
    /// For a bot fetched from a shared database: the hash of its files as stored there,
    /// which is its fingerprint on every machine (each builds its own program from them).
    pub stored: Option<String>,
}

impl ProgramBot {
    /// The game it plays when that is not `kind`: `None` when it plays `kind` (or any).
    pub fn plays_other_than(&self, kind: GameKind) -> Option<GameKind> {
        self.game.filter(|&game| game != kind)
    }

    /// Reads and checks a manifest, resolving its paths.
    pub fn load(path: &Path) -> Result<ProgramBot, ManifestError> {
        let text = std::fs::read_to_string(path).map_err(|source| ManifestError::Read { path: path.to_path_buf(), source })?;
        let invalid = |message: String| ManifestError::Invalid { path: path.to_path_buf(), message };
        let manifest: Manifest = toml::from_str(&text).map_err(|err| invalid(text::toml_error(&text, &err)))?;
        let game = match manifest.game.as_str() {
            ANY_GAME => None,
            name => Some(GameKind::from_name(name).map_err(|err| invalid(err.to_string()))?),
        };
        match (manifest.protocol.game(), game) {
            (Some(protocol_game), Some(game)) if protocol_game != game => {
                return Err(invalid(format!("protocol {} is for {protocol_game}, not {game}", manifest.protocol.name())));
            }
            (Some(protocol_game), None) => {
                return Err(invalid(format!(
                    "game = \"{ANY_GAME}\" is for the arbiter protocol; protocol {} plays {protocol_game} only",
                    manifest.protocol.name()
                )));
            }
            _ => {}
        }
        manifest.check().map_err(invalid)?;
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
        let workdir_template = match &manifest.workdir {
            Some(dir) => Some(workdir_inside(&folder, dir).map_err(invalid)?),
            None => None,
        };
        let manifest_path = folder.join(path.file_name().expect("a manifest file has a name"));
        Ok(ProgramBot { manifest, manifest_path, game, command, program_file, workdir_template, stored: None })
    }

    pub fn folder(&self) -> &Path {
        self.manifest_path.parent().expect("a manifest path has a folder")
    }

    /// Runs the manifest's build command if the program is missing or older than another
    /// file of its folder: through `jail` like the bot (inside the sandbox when
    /// `sandboxed`, with the bot's folder the only writable place), under a deadline and
    /// caps ([`crate::build`]). Several callers, in this process or others, may race: a
    /// lock file in the folder serialises them. The one entry point for building a bot.
    pub async fn build_if_needed(&self, sandboxed: bool) -> Result<(), ManifestError> {
        let Some(build) = &self.manifest.build else {
            return Ok(());
        };
        let path = self.manifest_path.clone();
        let folder = self.folder().to_path_buf();
        let program = self.program_file.clone();
        // Waiting for the lock and looking at the folder block: not on a runtime thread.
        let (lock, stale) = tokio::task::spawn_blocking(move || {
            let lock = lock_folder(&folder)?;
            Ok::<_, ManifestError>((lock, is_stale(&folder, program.as_deref())))
        })
        .await
        .expect("the build lock task does not panic")?;
        if !stale {
            return Ok(());
        }
        let fail = |detail: String| ManifestError::Build { path: path.clone(), command: build.clone(), detail };
        let run =
            crate::build::run(&crate::build::Build { dir: self.folder(), argv: build, program: None, read_only: Vec::new(), sandboxed })
                .await
                .map_err(|source| ManifestError::BuildNotRun { path: path.clone(), command: build.clone(), source })?;
        drop(lock);
        match run.failure {
            None => Ok(()),
            Some(failure) => {
                // The last lines of its output, on the error's one line.
                let header = format!("$ {}\n", build.join(" "));
                let output = run.log.strip_prefix(&header).unwrap_or(&run.log);
                let output: Vec<&str> = output.lines().filter(|l| !l.trim().is_empty() && *l != failure).collect();
                let tail = output[output.len().saturating_sub(3)..].join(" | ");
                let detail = if tail.is_empty() { failure } else { format!("{failure}: {tail}") };
                Err(fail(detail.chars().filter(|c| !c.is_control()).take(600).collect()))
            }
        }
    }

    /// Copies the manifest's `workdir` (if any) into the bot's fresh working directory
    /// `to`, without following links: a link, a hard link or a special file in it is
    /// refused, as is a `workdir` that now leads outside the bot's folder.
    pub fn copy_workdir(&self, to: &Path) -> std::io::Result<()> {
        let Some(dir) = &self.manifest.workdir else {
            return Ok(());
        };
        let template =
            workdir_inside(self.folder(), dir).map_err(|message| std::io::Error::new(std::io::ErrorKind::InvalidInput, message))?;
        crate::nofollow::copy_tree(&template, to).map_err(|err| std::io::Error::new(err.kind(), format!("workdir {dir}: {err}")))
    }

    /// SHA-256 of the program file, in hex; `None` when there is no such file. Hashes are
    /// remembered by path, size and modification time, so a big program is hashed once
    /// per change, not once per game. A bot fetched from a shared database is identified
    /// by its stored files' hash instead ([`ProgramBot::stored`]).
    pub fn fingerprint(&self) -> Option<String> {
        if let Some(stored) = &self.stored {
            return Some(stored.clone());
        }
        type Key = (PathBuf, u64, std::time::SystemTime);
        static KNOWN: std::sync::Mutex<Vec<(Key, String)>> = std::sync::Mutex::new(Vec::new());
        let path = self.program_file.as_ref()?;
        let meta = std::fs::metadata(path).ok()?;
        // A link to a device (a build may leave one) would be read forever.
        if !meta.is_file() {
            return None;
        }
        let key: Key = (path.clone(), meta.len(), meta.modified().ok()?);
        if let Some((_, hash)) = KNOWN.lock().expect("fingerprint cache lock").iter().find(|(k, _)| *k == key) {
            return Some(hash.clone());
        }
        let bytes = std::fs::read(path).ok()?;
        let hash: String = hex::encode(Sha256::digest(&bytes));
        let mut known = KNOWN.lock().expect("fingerprint cache lock");
        known.retain(|(k, _)| k.0 != key.0);
        known.push((key, hash.clone()));
        Some(hash)
    }
}

/// The folder `dir` of a manifest in `folder` (canonical), checked: a folder, not a link,
/// inside `folder` even after every link on the way is followed, and holding no link or
/// special file.
fn workdir_inside(folder: &Path, dir: &str) -> Result<PathBuf, String> {
    let path = folder.join(dir);
    match std::fs::symlink_metadata(&path) {
        Ok(meta) if meta.file_type().is_symlink() => return Err(format!("workdir {dir} is a link: links are refused")),
        Ok(meta) if meta.is_dir() => {}
        _ => return Err(format!("workdir {dir} is not a folder")),
    }
    let real = std::fs::canonicalize(&path).map_err(|err| format!("workdir {dir}: {err}"))?;
    if !real.starts_with(folder) {
        return Err(format!("workdir {dir} leads outside the bot's folder"));
    }
    crate::nofollow::check_tree(&real).map_err(|err| format!("workdir {dir}: {err}"))?;
    Ok(real)
}

/// Takes the build lock of a bot's folder (waiting for it): a file opened without
/// following links and without truncating it (a bot's build may have put a link there).
fn lock_folder(folder: &Path) -> Result<std::fs::File, ManifestError> {
    let lock_path = folder.join(".arbiter-build.lock");
    let fail = |source: std::io::Error| ManifestError::Read { path: lock_path.clone(), source };
    let flags = rustix::fs::OFlags::RDONLY
        | rustix::fs::OFlags::CREATE
        | rustix::fs::OFlags::NOFOLLOW
        | rustix::fs::OFlags::NONBLOCK
        | rustix::fs::OFlags::CLOEXEC;
    let fd = rustix::fs::open(&lock_path, flags, rustix::fs::Mode::from_raw_mode(0o644)).map_err(|err| match err {
        rustix::io::Errno::LOOP => fail(std::io::Error::new(std::io::ErrorKind::InvalidInput, "it is a link: links are refused")),
        other => fail(other.into()),
    })?;
    let lock = std::fs::File::from(fd);
    if !lock.metadata().map_err(fail)?.is_file() {
        return Err(fail(std::io::Error::new(std::io::ErrorKind::InvalidInput, "it is not a regular file")));
    }
    rustix::fs::flock(&lock, rustix::fs::FlockOperation::LockExclusive).map_err(|err| fail(err.into()))?;
    Ok(lock)
}

/// Whether the program is missing or older than another (not hidden) file of the folder.
fn is_stale(folder: &Path, program: Option<&Path>) -> bool {
    let Some(program) = program else {
        return false;
    };
    let Ok(built) = std::fs::metadata(program).and_then(|m| m.modified()) else {
        return true;
    };
    let Ok(entries) = std::fs::read_dir(folder) else {
        return true;
    };
    entries.flatten().any(|entry| {
        let path = entry.path();
        path != program
            && !entry.file_name().to_string_lossy().starts_with('.')
            && entry.metadata().is_ok_and(|m| m.is_file() && m.modified().is_ok_and(|t| t > built))
    })
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
    }

    #[test]
    fn a_project_protocol_bot_may_play_any_game() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), "name = \"r\"\ngame = \"any\"\nprotocol = \"arbiter\"\ncommand = [\"x\"]\n");
        let bot = ProgramBot::load(&path).unwrap();
        assert_eq!(bot.game, None);
        assert!(GameKind::ALL.iter().all(|&kind| bot.plays_other_than(kind).is_none()));
        let path = write(dir.path(), "name = \"r\"\ngame = \"gomoku\"\nprotocol = \"arbiter\"\ncommand = [\"x\"]\n");
        let bot = ProgramBot::load(&path).unwrap();
        assert_eq!(bot.plays_other_than(GameKind::Gomoku), None);
        assert!(
            GameKind::ALL
                .iter()
                .filter(|&&kind| kind != GameKind::Gomoku)
                .all(|&kind| bot.plays_other_than(kind) == Some(GameKind::Gomoku))
        );
    }

    #[test]
    fn a_workdir_stays_inside_and_holds_no_links() {
        let dir = tempfile::tempdir().unwrap();
        let bot = dir.path().join("bot");
        std::fs::create_dir_all(bot.join("data/sub")).unwrap();
        std::fs::write(bot.join("data/sub/book"), "e4").unwrap();
        std::fs::write(dir.path().join("secret"), "outside").unwrap();
        let manifest = "name = \"r\"\ngame = \"pahtum\"\nprotocol = \"pahtum\"\ncommand = [\"x\"]\nworkdir = \"data\"\n";
        let path = write(&bot, manifest);
        let loaded = ProgramBot::load(&path).unwrap();
        let copy = dir.path().join("copy");
        std::fs::create_dir(&copy).unwrap();
        loaded.copy_workdir(&copy).unwrap();
        assert_eq!(std::fs::read_to_string(copy.join("sub/book")).unwrap(), "e4");

        // A link to a file outside, in the folder: refused when loading, and when copying
        // (a build may make it after the load).
        std::os::unix::fs::symlink(dir.path().join("secret"), bot.join("data/sub/key")).unwrap();
        let err = ProgramBot::load(&path).unwrap_err().to_string();
        assert!(err.ends_with("workdir data: sub/key is a link: links are refused"), "{err}");
        let again = dir.path().join("again");
        std::fs::create_dir(&again).unwrap();
        let err = loaded.copy_workdir(&again).unwrap_err().to_string();
        assert_eq!(err, "workdir data: sub/key is a link: links are refused");
        assert!(!again.join("sub/key").exists());
        std::fs::remove_file(bot.join("data/sub/key")).unwrap();

        // The workdir itself a link to a folder outside.
        std::fs::create_dir(dir.path().join("elsewhere")).unwrap();
        std::os::unix::fs::symlink(dir.path().join("elsewhere"), bot.join("out")).unwrap();
        let path = write(&bot, &manifest.replace("\"data\"", "\"out\""));
        assert!(ProgramBot::load(&path).unwrap_err().to_string().ends_with("workdir out is a link: links are refused"));
        std::os::unix::fs::symlink(dir.path().join("elsewhere"), bot.join("data/up")).unwrap();
        let path = write(&bot, &manifest.replace("\"data\"", "\"data/up\""));
        assert!(ProgramBot::load(&path).unwrap_err().to_string().ends_with("workdir data/up is a link: links are refused"));
        std::fs::create_dir(dir.path().join("elsewhere/inner")).unwrap();
        let path = write(&bot, &manifest.replace("\"data\"", "\"data/up/inner\""));
        assert!(ProgramBot::load(&path).unwrap_err().to_string().ends_with("workdir data/up/inner leads outside the bot's folder"));
    }

    #[test]
    fn clear_errors() {
        let dir = tempfile::tempdir().unwrap();
        let cases = [
            ("name = \"r\"\ngame = \"checkers\"\nprotocol = \"arbiter\"\ncommand = [\"x\"]\n", "unknown game \"checkers\""),
            ("name = \"r\"\ngame = \"gomoku\"\nprotocol = \"pahtum\"\ncommand = [\"x\"]\n", "protocol pahtum is for pahtum, not gomoku"),
            (
                "name = \"r\"\ngame = \"any\"\nprotocol = \"pahtum\"\ncommand = [\"x\"]\n",
                "game = \"any\" is for the arbiter protocol; protocol pahtum plays pahtum only",
            ),
            (
                "name = \"r\"\ngame = \"gomoku\"\nprotocol = \"telepathy\"\ncommand = [\"x\"]\n",
                "line 3: protocol: unknown value \"telepathy\"",
            ),
            ("name = \"r\"\ngame = \"gomoku\"\nprotocol = \"arbiter\"\ncommand = []\n", "command is empty"),
            ("name = \"r\"\ngame = \"gomoku\"\nprotocol = \"arbiter\"\ncommand = [\"x\"]\ncolour = 1\n", "line 5: unknown key \"colour\""),
            (
                "name = \"r\\u001b]0;pwned\\u0007\"\ngame = \"gomoku\"\nprotocol = \"arbiter\"\ncommand = [\"x\"]\n",
                "name \"r\\u{1b}]0;pwned\\u{7}\" holds U+001B, a control character",
            ),
            (
                "name = \"r\"\nauthor = \"me\\necho pwned\"\ngame = \"gomoku\"\nprotocol = \"arbiter\"\ncommand = [\"x\"]\n",
                "author \"me\\u{a}echo pwned\" holds U+000A, a control character",
            ),
            (
                "name = \"r\"\ngame = \"gomoku\"\nprotocol = \"arbiter\"\ncommand = [\"x\"]\nworkdir = \"../x\"\n",
                "workdir \"../x\" must be a folder inside",
            ),
            (
                "name = \"r\"\ngame = \"gomoku\"\nprotocol = \"arbiter\"\ncommand = [\"x\"]\nworkdir = \"/etc\"\n",
                "workdir \"/etc\" must be a folder inside",
            ),
            ("name = \"r\"\ngame = \"gomoku\"\nprotocol = \"arbiter\"\ncommand = [\"x\"]\nbuild = []\n", "build is empty"),
            (
                "name = \"r\"\ngame = \"gomoku\"\nprotocol = \"arbiter\"\ncommand = [\"x\"]\n[uci]\nnodes = 5\n",
                "[uci] is for protocol = \"uci\"",
            ),
            (
                "name = \"r\"\ngame = \"chess\"\nprotocol = \"uci\"\ncommand = [\"x\"]\n[uci]\noptions = { Hash = \"1\\nquit\" }\n",
                "a [uci] option's value \"1\\u{a}quit\" holds U+000A, a control character",
            ),
            (
                "name = \"r\"\ngame = \"chess\"\nprotocol = \"uci\"\ncommand = [\"x\"]\n[uci]\nply = 5\n",
                "line 6: unknown key \"ply\": expected one of options, nodes or depth",
            ),
        ];
        for (text, message) in cases {
            let err = ProgramBot::load(&write(dir.path(), text)).unwrap_err().to_string();
            assert!(err.contains(message), "{err}");
            assert!(!err.contains('\n'), "one line: {err}");
        }
        let long = format!("name = \"{}\"\ngame = \"gomoku\"\nprotocol = \"arbiter\"\ncommand = [\"x\"]\n", "n".repeat(41));
        assert!(ProgramBot::load(&write(dir.path(), &long)).unwrap_err().to_string().contains("is 41 columns wide: the most is 40"));
    }
}
