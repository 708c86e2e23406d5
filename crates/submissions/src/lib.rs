//! Bot submissions for the web arena: an entrant uploads a single source file (C, C++,
//! Rust, Python) that is compiled here inside the sandbox, or a program with its
//! `bot.toml`; every upload is a new version, the last one counts, and each new version
//! runs the tournaments' entry check at once. No HTTP here: the handlers call this API
//! and map [`SubmitError::status`] to the answer's status.
//!
//! Layout on disk, under the root folder given to [`Submissions::open`]:
//!
//! ```text
//! <root>/.tmp/upload-XXXX/        an upload being compiled (removed when done): the
//!                                 build's folder, where it may leave anything
//! <root>/.tmp/version-XXXX/       a version being made by the server alone
//! <root>/<game>/<name>/v<N>/      one version, N = 1, 2, ...; appears whole (a rename)
//!     bot.toml                    the manifest the referee reads (no `build`, no `[limits]`)
//!     main.c | main.py | ...      the source, or the uploaded files
//!     bot                         the compiled program (source uploads but Python)
//!     meta.json                   the [`Version`] (upload time, log, entry check)
//! ```
//!
//! Untrusted input only ever runs through `jail::Command` (the sandbox when asked): the
//! compilers and a manifest's `build` command (`referee::build`), and the bot itself in
//! the entry check. After a build the server never writes into the build's folder: it
//! copies the regular files found there, opened without following links, into a folder
//! of its own, and writes `bot.toml` and `meta.json` only there, as new files.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use referee::{BotSpec, Manifest, ProgramBot, Protocol};
use rules::{GameKind, Options};
use serde::{Deserialize, Serialize};

/// The largest file of an upload (a source, the manifest, one program file).
pub const MAX_FILE_BYTES: usize = 1024 * 1024;
/// The largest upload, all files together.
pub const MAX_UPLOAD_BYTES: usize = 4 * 1024 * 1024;
/// The most files in a manifest upload.
pub const MAX_FILES: usize = 64;
/// The most bytes of compiler output kept (the rest is cut and marked).
pub const MAX_LOG_BYTES: usize = referee::build::BUILD_LOG_BYTES;
/// The longest bot name.
pub const MAX_NAME_CHARS: usize = text::name::MAX_SLUG_CHARS;
/// The bot every new version must beat in the entry check.
pub const ENTRY_CHECK_BASELINE: &str = "random";

/// The language of a single-source upload.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    C,
    Cpp,
    Rust,
    Python,
}

impl Language {
    pub const ALL: [Language; 4] = [Language::C, Language::Cpp, Language::Rust, Language::Python];

    /// `c`, `cpp` (also `c++`, `cxx`), `rust` (also `rs`), `python` (also `py`), in any
    /// letter case.
    pub fn from_name(name: &str) -> Option<Language> {
        match name.trim().to_ascii_lowercase().as_str() {
            "c" => Some(Language::C),
            "cpp" | "c++" | "cxx" => Some(Language::Cpp),
            "rust" | "rs" => Some(Language::Rust),
            "python" | "py" | "python3" => Some(Language::Python),
            _ => None,
        }
    }

    /// From a file name's extension: `.c`, `.cc` / `.cpp` / `.cxx`, `.rs`, `.py`.
    pub fn from_filename(filename: &str) -> Option<Language> {
        let (_, ext) = filename.rsplit_once('.')?;
        match ext.to_ascii_lowercase().as_str() {
            "c" => Some(Language::C),
            "cc" | "cpp" | "cxx" => Some(Language::Cpp),
            "rs" => Some(Language::Rust),
            "py" => Some(Language::Python),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Language::C => "c",
            Language::Cpp => "cpp",
            Language::Rust => "rust",
            Language::Python => "python",
        }
    }

    /// The name the source is stored under in the version's folder.
    pub fn source_file(self) -> &'static str {
        match self {
            Language::C => "main.c",
            Language::Cpp => "main.cpp",
            Language::Rust => "main.rs",
            Language::Python => "main.py",
        }
    }

    /// The compile (or, for Python, syntax check) command, run in the build folder.
    fn compile_command(self) -> Vec<String> {
        let argv: &[&str] = match self {
            Language::C => &["cc", "-O2", "-std=c11", "-o", "bot", "main.c", "-lm"],
            Language::Cpp => &["c++", "-O2", "-std=c++17", "-o", "bot", "main.cpp"],
            Language::Rust => &["rustc", "-O", "--edition", "2021", "-o", "bot", "main.rs"],
            Language::Python => &["python3", "-m", "py_compile", "main.py"],
        };
        argv.iter().map(|s| s.to_string()).collect()
    }

    /// The bot's command in its manifest.
    fn bot_command(self) -> Vec<String> {
        match self {
            Language::Python => vec!["python3".to_string(), "./main.py".to_string()],
            _ => vec!["./bot".to_string()],
        }
    }
}

/// A single source file to compile.
#[derive(Clone, Debug)]
pub struct SourceUpload {
    pub name: String,
    pub game: GameKind,
    /// Game options the entry check plays with (empty: the game's defaults).
    pub options: Options,
    /// Default: the game's first native interface (`gomoku-file` for Gomoku).
    pub protocol: Option<Protocol>,
    /// Default: from the file name's extension.
    pub language: Option<Language>,
    /// The file's name as uploaded (for its extension and the record).
    pub filename: String,
    pub code: Vec<u8>,
}

/// A program with its manifest.
#[derive(Clone, Debug)]
pub struct ManifestUpload {
    /// Replaces the manifest's `name` when given.
    pub name: Option<String>,
    /// Game options the entry check plays with (empty: the game's defaults).
    pub options: Options,
    /// The text of `bot.toml`.
    pub manifest: String,
    /// The program's files, flat names only (no folders).
    pub files: Vec<(String, Vec<u8>)>,
}

/// One upload.
#[derive(Clone, Debug)]
pub enum Upload {
    Source(SourceUpload),
    Manifest(ManifestUpload),
}

/// One stored version of a bot (its `meta.json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Version {
    pub name: String,
    #[serde(with = "game_name")]
    pub game: GameKind,
    /// 1, 2, ... per bot; the highest is the current one.
    pub version: u32,
    /// Upload time, milliseconds since the Unix epoch.
    pub uploaded_ms: u64,
    /// The same in RFC 3339 UTC with milliseconds (`2026-11-22T14:03:05.123Z`): sorts in
    /// time order as text, the tournaments' `submitted` (the Legions tie-break).
    pub uploaded: String,
    /// The language of a source upload; `None` for a manifest upload.
    pub language: Option<Language>,
    /// The uploaded file's name (source uploads).
    pub filename: Option<String>,
    pub protocol: Protocol,
    /// Game options of the entry check.
    pub options: Options,
    /// The manifest's command, as written in `bot.toml`.
    pub command: Vec<String>,
    /// SHA-256 of the program file (the compiled program, or the script), hex.
    pub sha256: Option<String>,
    /// The compile or build command and its output (bounded); empty when nothing ran.
    pub compile_log: String,
    /// `None` until the entry check has run.
    pub entry_check: Option<EntryCheckResult>,
    /// The folder holding `bot.toml`: what a tournament entrant's `bot` names. Not in
    /// the JSON (it is where the version lies, and a server path).
    #[serde(skip)]
    pub path: PathBuf,
}

impl Version {
    /// The tournament entrant for this version: its name, its folder as `bot`, and its
    /// upload time as `submitted`.
    pub fn entrant_config(&self) -> tournament::config::EntrantConfig {
        tournament::config::EntrantConfig {
            name: Some(self.name.clone()),
            bot: self.path.to_string_lossy().into_owned(),
            submitted: Some(self.uploaded.clone()),
        }
    }
}

/// What the entry check said about a version.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntryCheckResult {
    pub passed: bool,
    /// One line for people: "passed: won 2, drew 0, lost 0 against random" or
    /// "failed: lost its match against the baseline 0-2".
    pub summary: String,
    pub games: Vec<EntryGame>,
}

/// One game of an entry check, from the submitted bot's point of view.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntryGame {
    pub opponent: String,
    /// The bot's side by the game's name for it (`X`, `O`, `White`, ...).
    pub side: String,
    /// `win`, `loss` or `draw`.
    pub result: String,
    /// The bot's score, then the opponent's (scored games).
    pub scores: Option<[i64; 2]>,
    pub moves: usize,
    /// Why play stopped, for people: "by the rules", "crash by mybot: exit status 1".
    pub termination: String,
}

/// What became of an upload that was a good request.
#[derive(Clone, Debug, PartialEq)]
pub enum SubmitOutcome {
    /// Stored as a new version, with its entry check.
    Accepted(Box<Version>),
    /// The compiler (or the manifest's build) refused it; nothing was stored.
    CompileFailed { log: String },
}

/// A refused request, or our own failure. Each message is one line for a person.
#[derive(Debug, thiserror::Error)]
pub enum SubmitError {
    /// The one rule for names, and a name that is a folder and a URL part.
    #[error("{0}")]
    BadName(text::NameError),
    #[error("unknown game {0:?}: {games}", games = game_names())]
    UnknownGame(String),
    #[error("unknown language {0:?}: c, cpp, rust or python (files .c, .cc, .cpp, .rs, .py)")]
    UnknownLanguage(String),
    #[error("{what} is too large: the limit is {limit} bytes")]
    TooLarge { what: String, limit: usize },
    #[error("{0} is missing")]
    Missing(String),
    #[error("{0} is empty")]
    Empty(String),
    #[error("bad file name {0:?}: use a flat name of letters, digits, '.', '-' or '_', not starting with '.'")]
    BadFileName(String),
    #[error("too many files: the limit is {0}")]
    TooManyFiles(usize),
    #[error("bad game options: {0}")]
    BadOptions(String),
    #[error("protocol {protocol} is for {protocol_game}, not {game}")]
    WrongProtocol { protocol: String, protocol_game: String, game: String },
    #[error("bot.toml: {0}")]
    BadManifest(String),
    #[error("no version {version} of {game} bot {name}")]
    NotFound { game: String, name: String, version: u32 },
    #[error("the sandbox helper arbiter-sandbox is not built (cargo build --workspace)")]
    NoSandbox,
    #[error("{context}: {source}")]
    Io { context: String, source: std::io::Error },
    #[error("the entry check could not run: {0}")]
    EntryCheck(String),
}

impl SubmitError {
    /// The HTTP status for this error: 400 a malformed request, 404 no such version, 413
    /// too large, 422 a well-formed upload that cannot be a bot, 500 our failure.
    pub fn status(&self) -> u16 {
        match self {
            SubmitError::BadName(_)
            | SubmitError::UnknownGame(_)
            | SubmitError::UnknownLanguage(_)
            | SubmitError::Missing(_)
            | SubmitError::Empty(_)
            | SubmitError::BadFileName(_) => 400,
            SubmitError::NotFound { .. } => 404,
            SubmitError::TooLarge { .. } | SubmitError::TooManyFiles(_) => 413,
            SubmitError::BadOptions(_) | SubmitError::WrongProtocol { .. } | SubmitError::BadManifest(_) => 422,
            SubmitError::NoSandbox | SubmitError::Io { .. } | SubmitError::EntryCheck(_) => 500,
        }
    }
}

/// The games, from the registry: `gomoku, connect4, ... or reversi`.
fn game_names() -> String {
    let names: Vec<&str> = GameKind::ALL.iter().map(|g| g.name()).collect();
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => names.join(""),
    }
}

fn io_error(context: impl Into<String>) -> impl FnOnce(std::io::Error) -> SubmitError {
    let context = context.into();
    move |source| SubmitError::Io { context, source }
}

/// A game by its name, as a request names it.
pub fn parse_game(name: &str) -> Result<GameKind, SubmitError> {
    if name.trim().is_empty() {
        return Err(SubmitError::Missing("game".to_string()));
    }
    GameKind::from_name(name).map_err(|_| SubmitError::UnknownGame(name.to_string()))
}

/// Checks a bot name: the one rule for names (`text`), and 1 to 32 characters of
/// `[A-Za-z0-9_-]`, since it is a folder and a URL part.
pub fn check_name(name: &str) -> Result<(), SubmitError> {
    text::check_slug("bot name", name).map_err(SubmitError::BadName)
}

/// Checks an uploaded file's name: flat, `[A-Za-z0-9._-]`, not hidden, at most 64
/// characters, and not one of the names the version's folder keeps for itself.
fn check_file_name(name: &str) -> Result<(), SubmitError> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && !name.starts_with('.')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'))
        && !matches!(name, "bot.toml" | "meta.json");
    if ok { Ok(()) } else { Err(SubmitError::BadFileName(name.to_string())) }
}

fn check_size(what: &str, bytes: usize) -> Result<(), SubmitError> {
    if bytes == 0 {
        return Err(SubmitError::Empty(what.to_string()));
    }
    if bytes > MAX_FILE_BYTES {
        return Err(SubmitError::TooLarge { what: what.to_string(), limit: MAX_FILE_BYTES });
    }
    Ok(())
}

fn check_options(game: GameKind, options: &Options) -> Result<(), SubmitError> {
    tournament::config::check_game_options(game, options).map_err(|err| SubmitError::BadOptions(err.to_string()))
}

/// The game's first native interface (for the project's own, name it).
fn default_protocol(game: GameKind) -> Protocol {
    Protocol::ALL.into_iter().find(|p| p.game() == Some(game)).unwrap_or(Protocol::Arbiter)
}

fn check_protocol(protocol: Protocol, game: GameKind) -> Result<(), SubmitError> {
    match protocol.game() {
        Some(protocol_game) if protocol_game != game => Err(SubmitError::WrongProtocol {
            protocol: protocol.name().to_string(),
            protocol_game: protocol_game.name().to_string(),
            game: game.name().to_string(),
        }),
        _ => Ok(()),
    }
}

/// The `bot.toml` a version is stored with.
#[derive(Serialize)]
struct StoredManifest<'a> {
    name: &'a str,
    game: &'a str,
    protocol: &'a str,
    command: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    author: Option<&'a str>,
}

/// An upload checked and ready to build: nothing of it is on disk yet.
struct Plan {
    name: String,
    game: GameKind,
    protocol: Protocol,
    options: Options,
    language: Option<Language>,
    filename: Option<String>,
    files: Vec<(String, Vec<u8>)>,
    /// What to run in the build folder before the bot exists.
    build: Option<Vec<String>>,
    command: Vec<String>,
    author: Option<String>,
    /// The command's program file, relative to the folder (must exist after the build).
    program: Option<String>,
}

impl Plan {
    fn from_upload(upload: Upload) -> Result<Plan, SubmitError> {
        match upload {
            Upload::Source(source) => Plan::from_source(source),
            Upload::Manifest(manifest) => Plan::from_manifest(manifest),
        }
    }

    fn from_source(upload: SourceUpload) -> Result<Plan, SubmitError> {
        check_name(&upload.name)?;
        if upload.filename.trim().is_empty() && upload.language.is_none() {
            return Err(SubmitError::Missing("the file name or the language".to_string()));
        }
        let language = match upload.language {
            Some(language) => language,
            None => Language::from_filename(&upload.filename).ok_or_else(|| SubmitError::UnknownLanguage(upload.filename.clone()))?,
        };
        let what = if upload.filename.is_empty() { "the source".to_string() } else { format!("file {}", upload.filename) };
        check_size(&what, upload.code.len())?;
        let protocol = upload.protocol.unwrap_or_else(|| default_protocol(upload.game));
        check_protocol(protocol, upload.game)?;
        check_options(upload.game, &upload.options)?;
        let command = language.bot_command();
        let program = Some(if language == Language::Python { "main.py" } else { "bot" }.to_string());
        Ok(Plan {
            name: upload.name,
            game: upload.game,
            protocol,
            options: upload.options,
            language: Some(language),
            filename: Some(upload.filename),
            files: vec![(language.source_file().to_string(), upload.code)],
            build: Some(language.compile_command()),
            command,
            author: None,
            program,
        })
    }

    fn from_manifest(upload: ManifestUpload) -> Result<Plan, SubmitError> {
        if upload.manifest.trim().is_empty() {
            return Err(SubmitError::Missing("bot.toml".to_string()));
        }
        if upload.manifest.len() > MAX_FILE_BYTES {
            return Err(SubmitError::TooLarge { what: "bot.toml".to_string(), limit: MAX_FILE_BYTES });
        }
        let bad = |message: String| SubmitError::BadManifest(message);
        let manifest: Manifest = toml::from_str(&upload.manifest).map_err(|err| bad(err.to_string().trim_end().replace('\n', " ")))?;
        let game = GameKind::from_name(&manifest.game).map_err(|err| bad(err.to_string()))?;
        let name = upload.name.clone().unwrap_or_else(|| manifest.name.clone());
        check_name(&name)?;
        check_protocol(manifest.protocol, game)?;
        check_options(game, &upload.options)?;
        if manifest.workdir.is_some() {
            return Err(bad("workdir is not supported in uploads (files are flat): leave it out".to_string()));
        }
        // An uploaded name replaces the manifest's, which must still be good text.
        manifest.check().map_err(bad)?;
        if upload.files.len() > MAX_FILES {
            return Err(SubmitError::TooManyFiles(MAX_FILES));
        }
        let mut seen = BTreeSet::new();
        let mut total = upload.manifest.len();
        for (file, bytes) in &upload.files {
            check_file_name(file)?;
            check_size(&format!("file {file}"), bytes.len())?;
            if !seen.insert(file.as_str()) {
                return Err(SubmitError::BadFileName(format!("{file} (twice)")));
            }
            total += bytes.len();
        }
        if total > MAX_UPLOAD_BYTES {
            return Err(SubmitError::TooLarge { what: "the upload".to_string(), limit: MAX_UPLOAD_BYTES });
        }
        // The program file, as `ProgramBot::load` finds it: the first relative path.
        let mut program = None;
        for (idx, part) in manifest.command.iter().enumerate() {
            let is_path = part.starts_with("./") || part.starts_with("../") || (idx == 0 && part.contains('/'));
            if is_path && !Path::new(part).is_absolute() {
                let file = part.strip_prefix("./").unwrap_or(part);
                if check_file_name(file).is_err() {
                    return Err(bad(format!("command path {part:?} must name a file of the upload (./NAME)")));
                }
                program = Some(file.to_string());
                break;
            }
        }
        if let Some(file) = &program
            && manifest.build.is_none()
            && !seen.contains(file.as_str())
        {
            return Err(bad(format!("the command's program ./{file} is not among the uploaded files")));
        }
        Ok(Plan {
            name,
            game,
            protocol: manifest.protocol,
            options: upload.options,
            language: None,
            filename: None,
            files: upload.files,
            build: manifest.build,
            command: manifest.command,
            author: manifest.author,
            program,
        })
    }
}

/// The store of submissions under one root folder.
#[derive(Clone, Debug)]
pub struct Submissions {
    root: PathBuf,
}

impl Submissions {
    /// Opens (creating it if needed) the root folder, and removes the build folders an
    /// interrupted upload left behind.
    pub fn open(root: &Path) -> Result<Submissions, SubmitError> {
        std::fs::create_dir_all(root).map_err(io_error(format!("cannot create {}", root.display())))?;
        let root = std::fs::canonicalize(root).map_err(io_error(format!("cannot read {}", root.display())))?;
        let tmp = root.join(".tmp");
        if tmp.exists() {
            std::fs::remove_dir_all(&tmp).map_err(io_error(format!("cannot clean {}", tmp.display())))?;
        }
        std::fs::create_dir_all(&tmp).map_err(io_error(format!("cannot create {}", tmp.display())))?;
        Ok(Submissions { root })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    fn bot_dir(&self, game: GameKind, name: &str) -> PathBuf {
        self.root.join(game.name()).join(name)
    }

    /// Checks the upload, builds it in a fresh folder (inside the sandbox when
    /// `sandboxed`), stores it as the bot's next version and runs its entry check. A bad
    /// request is an `Err` and writes nothing; a compile failure stores nothing and
    /// returns the compiler's output. The caller refuses uploads while the bot is
    /// frozen by a running stage.
    pub async fn submit(&self, upload: Upload, sandboxed: bool) -> Result<SubmitOutcome, SubmitError> {
        let plan = Plan::from_upload(upload)?;
        let tmp = self.root.join(".tmp");
        // The build's folder: the bot's ground, where its build may leave anything.
        let build_dir = tempfile::Builder::new().prefix("upload-").tempdir_in(&tmp).map_err(io_error("cannot make a build folder"))?;
        let files = plan.files.clone();
        let dir = build_dir.path().to_path_buf();
        blocking(move || {
            for (file, bytes) in &files {
                let mut out = referee::nofollow::create_new(&dir.join(file), 0o644).map_err(io_error(format!("cannot write {file}")))?;
                std::io::Write::write_all(&mut out, bytes).map_err(io_error(format!("cannot write {file}")))?;
            }
            Ok(())
        })
        .await?;
        // The build, then what it left copied into the version's folder: made and filled
        // by the server alone, from the regular files there (read without following
        // links); the build never had it.
        let version_dir = tempfile::Builder::new().prefix("version-").tempdir_in(&tmp).map_err(io_error("cannot make a version folder"))?;
        let built = async {
            let mut compile_log = String::new();
            if let Some(build) = &plan.build {
                let run = run_build(build_dir.path(), build, sandboxed).await?;
                compile_log = run.log;
                if run.failure.is_some() {
                    return Ok((compile_log, false));
                }
            }
            let (from, to, python, program) = (
                build_dir.path().to_path_buf(),
                version_dir.path().to_path_buf(),
                plan.language == Some(Language::Python),
                plan.program.clone(),
            );
            if let Err(refusal) = blocking(move || Ok(take_built_files(&from, &to, program.as_deref(), python))).await? {
                compile_log.push_str(&format!("\n{refusal}"));
                return Ok((compile_log, false));
            }
            Ok::<_, SubmitError>((compile_log, true))
        }
        .await;
        // A build may leave a great many files: removed off the runtime's threads.
        blocking(move || {
            drop(build_dir);
            Ok(())
        })
        .await?;
        let (compile_log, taken) = built?;
        if !taken {
            blocking(move || {
                drop(version_dir);
                Ok(())
            })
            .await?;
            return Ok(SubmitOutcome::CompileFailed { log: compile_log });
        }
        let dir = version_dir.path();
        let stored = StoredManifest {
            name: &plan.name,
            game: plan.game.name(),
            protocol: plan.protocol.name(),
            command: &plan.command,
            author: plan.author.as_deref(),
        };
        let manifest_text = toml::to_string(&stored).map_err(|err| SubmitError::BadManifest(err.to_string()))?;
        let mut manifest_file = referee::nofollow::create_new(&dir.join("bot.toml"), 0o644).map_err(io_error("cannot write bot.toml"))?;
        std::io::Write::write_all(&mut manifest_file, manifest_text.as_bytes()).map_err(io_error("cannot write bot.toml"))?;
        let bot = ProgramBot::load(&dir.join("bot.toml")).map_err(|err| SubmitError::BadManifest(err.to_string()))?;
        let uploaded_ms = now_ms();
        let mut version = Version {
            name: plan.name.clone(),
            game: plan.game,
            version: 0,
            uploaded_ms,
            uploaded: rfc3339(uploaded_ms),
            language: plan.language,
            filename: plan.filename.clone(),
            protocol: plan.protocol,
            options: plan.options.clone(),
            command: plan.command.clone(),
            sha256: bot.fingerprint(),
            compile_log,
            entry_check: None,
            path: PathBuf::new(),
        };
        let bot_dir = self.bot_dir(plan.game, &plan.name);
        std::fs::create_dir_all(&bot_dir).map_err(io_error(format!("cannot create {}", bot_dir.display())))?;
        // The next free number; a concurrent upload of the same bot may take it first,
        // and a rename onto an existing version fails, so try the one after.
        let mut number = self.version_numbers(&bot_dir)?.last().copied().unwrap_or(0) + 1;
        loop {
            version.version = number;
            write_meta(dir, &version)?;
            let target = bot_dir.join(format!("v{number}"));
            match std::fs::rename(dir, &target) {
                Ok(()) => {
                    // The folder is the version now: the temporary handle must not remove it.
                    let _ = version_dir.keep();
                    version.path = target;
                    break;
                }
                Err(_) if target.exists() && number < u32::MAX => number += 1,
                Err(err) => return Err(io_error(format!("cannot store {}", target.display()))(err)),
            }
        }
        let result = match run_entry_check(&version, sandboxed).await {
            Ok(result) => result,
            Err(err) => EntryCheckResult { passed: false, summary: err.to_string(), games: Vec::new() },
        };
        version.entry_check = Some(result);
        write_meta(&version.path, &version)?;
        Ok(SubmitOutcome::Accepted(Box::new(version)))
    }

    /// Runs the entry check of a stored version again and stores its result.
    pub async fn entry_check(&self, game: GameKind, name: &str, version: u32, sandboxed: bool) -> Result<EntryCheckResult, SubmitError> {
        check_name(name)?;
        let path = self.bot_dir(game, name).join(format!("v{version}"));
        let not_found = || SubmitError::NotFound { game: game.name().to_string(), name: name.to_string(), version };
        if !path.join("meta.json").is_file() {
            return Err(not_found());
        }
        let mut stored = read_meta(&path)?;
        let result = run_entry_check(&stored, sandboxed).await?;
        stored.entry_check = Some(result.clone());
        write_meta(&path, &stored)?;
        Ok(result)
    }

    /// The current (latest) version of every bot of every game, by game then name.
    pub fn list(&self) -> Result<Vec<Version>, SubmitError> {
        let mut out = Vec::new();
        for game in GameKind::ALL {
            for name in self.names(game)? {
                if let Some(version) = self.current(game, &name)? {
                    out.push(version);
                }
            }
        }
        Ok(out)
    }

    /// The names of a game's bots that have at least one version, sorted.
    pub fn names(&self, game: GameKind) -> Result<Vec<String>, SubmitError> {
        let dir = self.root.join(game.name());
        let mut names: Vec<String> = match std::fs::read_dir(&dir) {
            Ok(entries) => entries
                .flatten()
                .filter_map(|entry| entry.file_name().to_str().map(str::to_string))
                .filter(|name| check_name(name).is_ok())
                .collect(),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(err) => return Err(io_error(format!("cannot read {}", dir.display()))(err)),
        };
        names.sort();
        let mut with_versions = Vec::new();
        for name in names {
            if !self.version_numbers(&dir.join(&name))?.is_empty() {
                with_versions.push(name);
            }
        }
        Ok(with_versions)
    }

    /// Every version of a bot, oldest first (empty for an unknown bot).
    pub fn versions(&self, game: GameKind, name: &str) -> Result<Vec<Version>, SubmitError> {
        check_name(name)?;
        let dir = self.bot_dir(game, name);
        self.version_numbers(&dir)?.into_iter().map(|n| read_meta(&dir.join(format!("v{n}")))).collect()
    }

    /// The bot's last accepted version: its `path` is what a tournament entrant's `bot`
    /// names.
    pub fn current(&self, game: GameKind, name: &str) -> Result<Option<Version>, SubmitError> {
        check_name(name)?;
        let dir = self.bot_dir(game, name);
        match self.version_numbers(&dir)?.last() {
            Some(n) => read_meta(&dir.join(format!("v{n}"))).map(Some),
            None => Ok(None),
        }
    }

    /// The numbers of the complete versions in a bot's folder, ascending.
    fn version_numbers(&self, bot_dir: &Path) -> Result<Vec<u32>, SubmitError> {
        let entries = match std::fs::read_dir(bot_dir) {
            Ok(entries) => entries,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(err) => return Err(io_error(format!("cannot read {}", bot_dir.display()))(err)),
        };
        let mut numbers: Vec<u32> = entries
            .flatten()
            .filter_map(|entry| {
                let name = entry.file_name();
                let n: u32 = name.to_str()?.strip_prefix('v')?.parse().ok()?;
                entry.path().join("meta.json").is_file().then_some(n)
            })
            .collect();
        numbers.sort_unstable();
        Ok(numbers)
    }
}

fn read_meta(dir: &Path) -> Result<Version, SubmitError> {
    let path = dir.join("meta.json");
    let text = std::fs::read_to_string(&path).map_err(io_error(format!("cannot read {}", path.display())))?;
    let mut version: Version = serde_json::from_str(&text).map_err(|err| SubmitError::Io {
        context: format!("cannot read {}", path.display()),
        source: std::io::Error::new(std::io::ErrorKind::InvalidData, err),
    })?;
    version.path = dir.to_path_buf();
    Ok(version)
}

/// Writes `meta.json` whole or not at all: a new temporary file (whatever a crash left
/// under its name is removed first, never written through), then a rename.
fn write_meta(dir: &Path, version: &Version) -> Result<(), SubmitError> {
    let json = serde_json::to_string_pretty(version).expect("a version serialises");
    let tmp = dir.join(".meta.json.tmp");
    let context = || format!("cannot write {}", tmp.display());
    match std::fs::remove_file(&tmp) {
        Err(err) if err.kind() != std::io::ErrorKind::NotFound => return Err(io_error(context())(err)),
        _ => {}
    }
    let mut file = referee::nofollow::create_new(&tmp, 0o644).map_err(io_error(context()))?;
    std::io::Write::write_all(&mut file, json.as_bytes()).map_err(io_error(context()))?;
    std::fs::rename(&tmp, dir.join("meta.json")).map_err(io_error(format!("cannot write meta.json in {}", dir.display())))
}

/// The most files a version keeps from its build folder.
pub const MAX_BUILT_FILES: usize = 128;
/// The most bytes a version keeps from its build folder, all files together.
pub const MAX_BUILT_BYTES: u64 = 64 * 1024 * 1024;

/// Copies what a build left in `from` into the version's folder `to` (the server's):
/// every regular file at the top whose name an upload could have (not hidden, not
/// `bot.toml` or `meta.json`); folders and other names are left behind. A link, a second
/// hard link or a special file under such a name, a missing program, or more than the
/// caps refuse the upload (`Err` is the line for the log). The program gets mode 0755
/// (0644 for a Python script), other files keep their executable bits.
fn take_built_files(from: &Path, to: &Path, program: Option<&str>, python: bool) -> Result<(), String> {
    let entries = std::fs::read_dir(from).map_err(|err| format!("cannot read the build folder: {err}"))?;
    let mut names: Vec<String> = entries
        .flatten()
        .filter_map(|entry| entry.file_name().to_str().map(str::to_string))
        .filter(|name| check_file_name(name).is_ok())
        .collect();
    names.sort();
    let mut total = 0u64;
    let mut kept = 0;
    for name in &names {
        let path = from.join(name);
        let meta = std::fs::symlink_metadata(&path).map_err(|err| format!("cannot read {name}: {err}"))?;
        if meta.is_dir() {
            continue;
        }
        if meta.file_type().is_symlink() || !meta.is_file() {
            return Err(format!("the build left ./{name}, which is not a regular file: links and special files are refused"));
        }
        kept += 1;
        if kept > MAX_BUILT_FILES {
            return Err(format!("the build left more than {MAX_BUILT_FILES} files"));
        }
        let mode = if Some(name.as_str()) == program {
            if python { 0o644 } else { 0o755 }
        } else {
            use std::os::unix::fs::PermissionsExt;
            if meta.permissions().mode() & 0o111 != 0 { 0o755 } else { 0o644 }
        };
        let copied = referee::nofollow::copy_file(&path, &to.join(name), mode, MAX_BUILT_BYTES - total)
            .map_err(|err| format!("cannot keep ./{name}: {err}"))?;
        total += copied;
    }
    if let Some(file) = program
        && !to.join(file).is_file()
    {
        return Err(format!("the build did not make the command's program ./{file}"));
    }
    Ok(())
}

/// Runs blocking file work off the async runtime's threads.
async fn blocking<T: Send + 'static>(work: impl FnOnce() -> Result<T, SubmitError> + Send + 'static) -> Result<T, SubmitError> {
    tokio::task::spawn_blocking(work).await.expect("blocking file work does not panic")
}

/// Runs a compile or build command in `dir` through `referee::build` (inside the sandbox
/// when `sandboxed`): `dir` is the only writable folder; memory, time and processes are
/// capped. `rustc` is the toolchain's own, whose folder the sandbox may read.
async fn run_build(dir: &Path, argv: &[String], sandboxed: bool) -> Result<referee::build::BuildRun, SubmitError> {
    let mut build = referee::build::Build { dir, argv, program: None, read_only: Vec::new(), sandboxed };
    if argv[0] == "rustc"
        && let Some(sysroot) = rust_sysroot().await
    {
        build.program = Some(sysroot.join("bin").join("rustc"));
        build.read_only.push(sysroot);
    }
    referee::build::run(&build).await.map_err(|err| match err {
        referee::build::BuildError::NoSandbox => SubmitError::NoSandbox,
        referee::build::BuildError::Start(source) => SubmitError::Io { context: "cannot start the build".to_string(), source },
    })
}

/// The Rust toolchain's folder (`rustc --print sysroot` run once, outside the sandbox:
/// the rustup proxy cannot work inside it, the toolchain's own `rustc` can).
async fn rust_sysroot() -> Option<PathBuf> {
    static SYSROOT: tokio::sync::OnceCell<Option<PathBuf>> = tokio::sync::OnceCell::const_new();
    SYSROOT
        .get_or_init(|| async {
            let output = tokio::process::Command::new("rustc").args(["--print", "sysroot"]).output().await.ok()?;
            let text = String::from_utf8(output.stdout).ok()?;
            let path = PathBuf::from(text.trim());
            (output.status.success() && path.join("bin").join("rustc").is_file()).then_some(path)
        })
        .await
        .clone()
}

/// Runs the tournaments' entry check for one version: a one-stage tournament
/// (`format = "entry-check"` against [`ENTRY_CHECK_BASELINE`]) in a temporary database,
/// so that passing means here what it means in a tournament.
async fn run_entry_check(version: &Version, sandboxed: bool) -> Result<EntryCheckResult, SubmitError> {
    let fail = |message: String| SubmitError::EntryCheck(message);
    let config_text = entry_check_config(version);
    let config =
        tournament::TournamentConfig::parse_without_entrants(&config_text, "entry-check.toml").map_err(|err| fail(err.to_string()))?;
    let bot = ProgramBot::load(&version.path.join("bot.toml")).map_err(|err| fail(err.to_string()))?;
    let entrant = arena::ResolvedEntrant {
        entrant: tournament::Entrant {
            id: 0,
            name: version.name.clone(),
            bot: version.path.to_string_lossy().into_owned(),
            submitted: Some(version.uploaded.clone()),
        },
        spec: BotSpec::Program(Box::new(bot)),
    };
    let db_dir = tempfile::Builder::new().prefix("arbiter-entry-check-").tempdir().map_err(io_error("cannot make a database folder"))?;
    let store = store::Store::open(&db_dir.path().join("entry-check.sqlite")).await.map_err(|err| fail(err.to_string()))?;
    let options = arena::RunOptions {
        jobs: 2,
        config_dir: version.path.clone(),
        sandboxed,
        pin: false,
        watch: None,
        wait_for_runner: false,
        shared: None,
    };
    let mut refused = Vec::new();
    let run = arena::run_tournament(&config, &config_text, std::slice::from_ref(&entrant), &store, &options, |event| {
        if let arena::Event::EntrantFailed { reason, .. } = event {
            refused.push(reason);
        }
    })
    .await;
    let games = match &run {
        Ok(_) => read_games(&store, version).await,
        Err(_) => Ok(Vec::new()),
    };
    store.close().await;
    let results = run.map_err(|err| fail(err.to_string()))?;
    let games = games?;
    let stage = results.first().ok_or_else(|| fail("the stage gave no result".to_string()))?;
    let passed = stage.qualified.contains(&0);
    let summary = if passed {
        let count = |r: &str| games.iter().filter(|g| g.result == r).count();
        format!("passed: won {}, drew {}, lost {} against {ENTRY_CHECK_BASELINE}", count("win"), count("draw"), count("loss"))
    } else if let Some((_, reason)) = stage.failed.iter().find(|(id, _)| *id == 0) {
        format!("failed: {reason}")
    } else if let Some(reason) = refused.first() {
        format!("failed: {reason}")
    } else {
        "failed".to_string()
    };
    Ok(EntryCheckResult { passed, summary, games })
}

/// The entry check's tournament config: the version's game and options, a seed from the
/// upload time, and one entry-check stage.
fn entry_check_config(version: &Version) -> String {
    let mut table = toml::Table::new();
    table.insert("name".into(), format!("entry check of {} v{}", version.name, version.version).into());
    table.insert("game".into(), version.game.name().into());
    table.insert("seed".into(), toml::Value::Integer((version.uploaded_ms % (1 << 31)) as i64));
    if !version.options.is_empty() {
        let options: toml::Table = version.options.iter().map(|(k, v)| (k.clone(), toml::Value::String(v.clone()))).collect();
        table.insert("options".into(), options.into());
    }
    let mut stage = toml::Table::new();
    stage.insert("name".into(), "entry check".into());
    stage.insert("format".into(), "entry-check".into());
    stage.insert("baseline".into(), ENTRY_CHECK_BASELINE.into());
    table.insert("stage".into(), toml::Value::Array(vec![stage.into()]));
    toml::to_string(&table).expect("a config table serialises")
}

/// The entry check's games from the bot's side, in key order.
async fn read_games(store: &store::Store, version: &Version) -> Result<Vec<EntryGame>, SubmitError> {
    let fail = |message: String| SubmitError::EntryCheck(message);
    let mut outcomes = store.games().await.map_err(|err| fail(err.to_string()))?;
    outcomes.sort_by(|a, b| a.spec.key.cmp(&b.spec.key));
    let mut games = Vec::new();
    for outcome in outcomes {
        let Some(side) = outcome.side_of(0) else { continue };
        let json = store.game_record(&outcome.spec.key).await.map_err(|err| fail(err.to_string()))?;
        let record: Option<referee::GameRecord> = json.and_then(|json| serde_json::from_str(&json).ok());
        let names = [0, 1].map(|s| if s == side { version.name.clone() } else { ENTRY_CHECK_BASELINE.to_string() });
        let termination = match &record {
            Some(record) => record.result.termination.describe([&names[0], &names[1]]),
            None => "unknown".to_string(),
        };
        let result = match outcome.winner {
            None => "draw",
            Some(w) if w == side => "win",
            Some(_) => "loss",
        };
        games.push(EntryGame {
            opponent: ENTRY_CHECK_BASELINE.to_string(),
            side: version.game.side_names()[side].to_string(),
            result: result.to_string(),
            scores: outcome.scores.map(|s| [s[side], s[1 - side]]),
            moves: record.as_ref().map_or(0, |r| r.moves.len()),
            termination,
        });
    }
    Ok(games)
}

fn now_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

/// RFC 3339 UTC with milliseconds, from milliseconds since the Unix epoch.
pub fn rfc3339(ms: u64) -> String {
    let secs = ms / 1000;
    let (y, m, d) = civil_from_days((secs / 86_400) as i64);
    let rem = secs % 86_400;
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z", rem / 3600, rem % 3600 / 60, rem % 60, ms % 1000)
}

/// The proleptic Gregorian date of a day count from 1970-01-01 (Howard Hinnant's
/// `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// `GameKind` in JSON by its name.
mod game_name {
    use rules::GameKind;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(game: &GameKind, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(game.name())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<GameKind, D::Error> {
        let name = String::deserialize(deserializer)?;
        GameKind::from_name(&name).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_rfc3339() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339(1_795_356_185_123), "2026-11-22T14:03:05.123Z");
        assert_eq!(rfc3339(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert!(rfc3339(1_795_356_185_123) < rfc3339(1_795_356_185_124));
    }

    #[test]
    fn names_and_languages() {
        for good in ["a", "my-bot_2", &"x".repeat(32)] {
            assert!(check_name(good).is_ok(), "{good}");
        }
        for bad in ["", "a b", "../x", "é", &"x".repeat(33), "a.b"] {
            assert_eq!(check_name(bad).unwrap_err().status(), 400, "{bad}");
        }
        assert_eq!(Language::from_name("C++"), Some(Language::Cpp));
        assert_eq!(Language::from_filename("bot.PY"), Some(Language::Python));
        assert_eq!(Language::from_filename("main.cc"), Some(Language::Cpp));
        assert_eq!(Language::from_filename("main.go"), None);
        assert_eq!(Language::from_filename("Makefile"), None);
        assert_eq!(default_protocol(GameKind::Pahtum), Protocol::Pahtum);
        assert_eq!(default_protocol(GameKind::Gomoku), Protocol::GomokuFile);
        assert!(check_file_name("bot.toml").is_err() && check_file_name(".x").is_err() && check_file_name("a/b").is_err());
    }

    #[test]
    fn the_entry_check_config_parses() {
        let version = Version {
            name: "b".into(),
            game: GameKind::Pahtum,
            version: 3,
            uploaded_ms: 5,
            uploaded: rfc3339(5),
            language: Some(Language::C),
            filename: None,
            protocol: Protocol::Pahtum,
            options: [("blocked".to_string(), "7".to_string())].into(),
            command: vec!["./bot".into()],
            sha256: None,
            compile_log: String::new(),
            entry_check: None,
            path: PathBuf::new(),
        };
        let config = tournament::TournamentConfig::parse_without_entrants(&entry_check_config(&version), "x").unwrap();
        assert_eq!(config.game, GameKind::Pahtum);
        assert_eq!(config.options.get("blocked").map(String::as_str), Some("7"));
        assert_eq!(config.stages.len(), 1);
    }
}
