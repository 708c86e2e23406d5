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

pub mod archive;

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

/// The language of a single-source upload: the published set (`crates/languages`).
pub use languages::Language;

/// The bot's command in its manifest for an upload's source `file` (`game` decides
/// Node's flags).
fn bot_command(language: Language, game: GameKind, file: &str) -> Vec<String> {
    match language {
        Language::JavaScript => node_command(Some(game), &format!("./{file}")).into_iter().map(str::to_string).collect(),
        _ => language.run_command(file),
    }
}

/// A memory cap below which a Node bot runs lean (`--jitless --v8-pool-size=0`).
pub const NODE_LEAN_BELOW_MB: u64 = 1024;

/// How Node runs `script` for `game` (`None`: every game): V8 reserves more address
/// space than a small memory cap allows (Pah-tum's 128 MB) unless it runs without its
/// compiler and helper threads. `arbiter new`'s JavaScript kits and uploads say the same.
pub fn node_command(game: Option<GameKind>, script: &str) -> Vec<&str> {
    let small_cap = game.is_none_or(|g| g.seed_limits(&Options::new()).memory_mb.is_some_and(|mb| mb < NODE_LEAN_BELOW_MB));
    if small_cap { vec!["node", "--jitless", "--v8-pool-size=0", script] } else { vec!["node", script] }
}

/// The marker by which a starter kit's program names its interface, in one of its
/// first lines (a comment): `arbiter-interface: NAME`. `arbiter new` writes it into
/// every kit, so that an upload of a kit's single file takes the kit's interface.
pub const KIT_MARKER: &str = "arbiter-interface:";

/// The interface a kit's program names ([`KIT_MARKER`] in its first 20 lines).
pub fn kit_interface(source: &[u8]) -> Option<Protocol> {
    let text = String::from_utf8_lossy(&source[..source.len().min(4096)]).into_owned();
    text.lines().take(20).find_map(|line| {
        let (_, rest) = line.split_once(KIT_MARKER)?;
        let name: String = rest.trim_start().chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '-').collect();
        Protocol::ALL.into_iter().find(|p| p.name() == name)
    })
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
    /// The game of a manifest of `game = "any"` (a kit for every game); a manifest that
    /// names its game keeps it.
    pub game: Option<GameKind>,
    /// Game options the entry check plays with (empty: the game's defaults).
    pub options: Options,
    /// The text of `bot.toml`.
    pub manifest: String,
    /// The program's files, flat names only (no folders).
    pub files: Vec<(String, Vec<u8>)>,
}

/// Files as a class sends them: several files, a zip of them (expanded by
/// [`archive::unzip`]), or both, with or without a `bot.toml`. With one, it is a
/// manifest upload (the form's `game` for a manifest of every game); without, exactly
/// one file is a source of a known language, compiled as a source upload, and the
/// others are kept beside it.
#[derive(Clone, Debug)]
pub struct FilesUpload {
    pub name: Option<String>,
    pub game: Option<GameKind>,
    pub protocol: Option<Protocol>,
    pub language: Option<Language>,
    pub options: Options,
    pub files: Vec<(String, Vec<u8>)>,
}

/// One upload.
#[derive(Clone, Debug)]
pub enum Upload {
    Source(SourceUpload),
    Manifest(ManifestUpload),
    Files(FilesUpload),
}

impl Upload {
    /// The game and bot name the upload is for, where they can be read before it is
    /// checked (the web's ownership and freeze checks).
    pub fn target(&self) -> (Option<GameKind>, Option<String>) {
        let manifest = |text: &str, name: &Option<String>, game: Option<GameKind>| {
            let table: Option<toml::Table> = text.parse().ok();
            let get = |key: &str| table.as_ref().and_then(|t| t.get(key)).and_then(|v| v.as_str()).map(str::to_string);
            let named = get("game").and_then(|g| GameKind::from_name(&g).ok());
            (named.or(game), name.clone().or_else(|| get("name")))
        };
        match self {
            Upload::Source(s) => (Some(s.game), Some(s.name.clone())),
            Upload::Manifest(m) => manifest(&m.manifest, &m.name, m.game),
            Upload::Files(f) => match f.files.iter().find(|(name, _)| name == "bot.toml") {
                Some((_, text)) => manifest(&String::from_utf8_lossy(text), &f.name, f.game),
                None => (f.game, f.name.clone()),
            },
        }
    }
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
    /// The doctor's report, once the check has run (`None` in versions stored before
    /// the doctor was part of it).
    #[serde(default)]
    pub doctor: Option<DoctorReport>,
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
    /// The kind of the fault that ended the game, when it was the bot's (`crash`,
    /// `timeout`, `illegal-move`, `protocol-error`).
    #[serde(default)]
    pub fault: Option<String>,
}

/// The doctor's report on a version (`referee::doctor`, through `arena::doctor` for
/// every interface).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DoctorReport {
    pub fit: bool,
    /// The bot's moves accepted.
    pub moves: usize,
    pub problems: Vec<DoctorProblem>,
    /// Our own failure to examine it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// One problem the doctor found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DoctorProblem {
    pub title: String,
    pub side: usize,
    pub explanation: String,
    /// The last lines exchanged, `> ` to the bot and `< ` from it.
    pub exchange: Vec<String>,
    /// What the bot wrote on stderr, where it helps (a crash); its author's only.
    pub stderr: String,
    /// Whether the referee would end a game on it (the entry check's games are then
    /// not played).
    pub ends_game: bool,
}

impl DoctorProblem {
    pub fn from_problem(problem: &referee::doctor::Problem) -> DoctorProblem {
        DoctorProblem {
            title: problem.kind.title().to_string(),
            side: problem.side.index(),
            explanation: problem.explanation.clone(),
            exchange: problem.exchange.iter().map(|line| format!("{} {}", if line.to_bot { '>' } else { '<' }, line.text)).collect(),
            stderr: problem.stderr.clone(),
            ends_game: problem.kind.ends_game(),
        }
    }
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
    #[error("unknown language {0:?}: c, cpp, rust, python or javascript (files .c, .cc, .cpp, .rs, .py, .js)")]
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
    #[error("the zip is refused: {0}")]
    BadArchive(String),
    #[error("{0}")]
    Files(String),
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
            | SubmitError::BadFileName(_)
            | SubmitError::BadArchive(_)
            | SubmitError::Files(_) => 400,
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

/// Checks the files uploaded beside `first` (the manifest, or the source): good flat
/// names, none empty or too large, no name twice, the whole within the upload's cap.
fn check_extra_files(first: &[(String, Vec<u8>)], files: &[(String, Vec<u8>)]) -> Result<(), SubmitError> {
    if files.len() > MAX_FILES {
        return Err(SubmitError::TooManyFiles(MAX_FILES));
    }
    let mut seen: BTreeSet<&str> = first.iter().map(|(name, _)| name.as_str()).collect();
    let mut total: usize = first.iter().map(|(_, bytes)| bytes.len()).sum();
    for (file, bytes) in files {
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
    Ok(())
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
/// What a files upload names besides its files.
struct Target<'a> {
    name: &'a Option<String>,
    game: Option<GameKind>,
    options: &'a Options,
    protocol: Option<Protocol>,
    language: Option<Language>,
}

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
            Upload::Files(files) => Plan::from_files(files),
        }
    }

    /// Several files (zips expanded): a manifest upload if a `bot.toml` is among them,
    /// else the one source file among them compiled, the others kept beside it.
    fn from_files(upload: FilesUpload) -> Result<Plan, SubmitError> {
        let mut files: Vec<(String, Vec<u8>)> = Vec::new();
        for (name, bytes) in upload.files {
            if archive::is_zip(&bytes) {
                files.extend(archive::unzip(&bytes)?);
            } else {
                files.push((name, bytes));
            }
        }
        if files.is_empty() {
            return Err(SubmitError::Missing("the files".to_string()));
        }
        if let Some(at) = files.iter().position(|(name, _)| name == "bot.toml") {
            let (_, manifest) = files.remove(at);
            let manifest = String::from_utf8(manifest).map_err(|_| SubmitError::BadManifest("it is not UTF-8 text".to_string()))?;
            return Plan::from_manifest(ManifestUpload { name: upload.name, game: upload.game, options: upload.options, manifest, files });
        }
        let sources: Vec<usize> = (0..files.len()).filter(|&i| Language::from_filename(&files[i].0).is_some()).collect();
        if sources.len() > 1
            && let Some((mut plan, main)) = Plan::from_sources(
                &Target {
                    name: &upload.name,
                    game: upload.game,
                    options: &upload.options,
                    protocol: upload.protocol,
                    language: upload.language,
                },
                &files,
                &sources,
            )?
        {
            let rest: Vec<(String, Vec<u8>)> = files.into_iter().enumerate().filter(|(i, _)| *i != main).map(|(_, f)| f).collect();
            check_extra_files(&plan.files, &rest)?;
            plan.files.extend(rest);
            return Ok(plan);
        }
        let main = match (sources.as_slice(), upload.language) {
            ([one], _) => *one,
            ([], Some(_)) if files.len() == 1 => 0,
            ([], _) => {
                let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
                return Err(SubmitError::Files(format!(
                    "no source file among {}: a file {}, or a bot.toml",
                    names.join(", "),
                    Language::all_extensions()
                )));
            }
            (many, _) => {
                let names: Vec<&str> = many.iter().map(|&i| files[i].0.as_str()).collect();
                return Err(SubmitError::Files(format!(
                    "several source files ({}): upload one, or add a bot.toml whose build compiles them",
                    names.join(", ")
                )));
            }
        };
        let (filename, code) = files.remove(main);
        let name = upload.name.ok_or_else(|| SubmitError::Missing("the bot's name".to_string()))?;
        let game = upload.game.ok_or_else(|| SubmitError::Missing("game".to_string()))?;
        let source =
            SourceUpload { name, game, options: upload.options, protocol: upload.protocol, language: upload.language, filename, code };
        let mut plan = Plan::from_source(source)?;
        check_extra_files(&plan.files, &files)?;
        plan.files.extend(files);
        Ok(plan)
    }

    /// An upload of several sources of one language, compiled together: Java, C#, Go, C
    /// and C++ give every source to the compiler; Pascal compiles its `program` file (its
    /// units are found beside it); a script runs the file that names its interface (a
    /// kit's marker), else `main.*` or `bot.*`. `None`: not such an upload (the caller
    /// says what is wrong).
    fn from_sources(upload: &Target, files: &[(String, Vec<u8>)], sources: &[usize]) -> Result<Option<(Plan, usize)>, SubmitError> {
        let languages: BTreeSet<Language> = sources.iter().filter_map(|&i| Language::from_filename(&files[i].0)).collect();
        let [language] = languages.into_iter().collect::<Vec<_>>()[..] else {
            return Ok(None);
        };
        if upload.language.is_some_and(|named| named != language) {
            return Ok(None);
        }
        let text = |i: usize| String::from_utf8_lossy(&files[i].1).into_owned();
        let stem = |i: usize| files[i].0.rsplit_once('.').map_or("", |(stem, _)| stem).to_ascii_lowercase();
        let main = match language {
            Language::Java => sources.iter().copied().find(|&i| text(i).contains("static void main")),
            Language::Pascal => {
                sources.iter().copied().find(|&i| text(i).lines().any(|l| l.trim_start().to_ascii_lowercase().starts_with("program ")))
            }
            Language::CSharp | Language::Go | Language::C | Language::Cpp => Some(sources[0]),
            _ => sources
                .iter()
                .copied()
                .find(|&i| kit_interface(&files[i].1).is_some())
                .or_else(|| sources.iter().copied().find(|&i| matches!(stem(i).as_str(), "main" | "bot"))),
        };
        let Some(main) = main else { return Ok(None) };
        let name = upload.name.clone().ok_or_else(|| SubmitError::Missing("the bot's name".to_string()))?;
        let game = upload.game.ok_or_else(|| SubmitError::Missing("game".to_string()))?;
        let source = SourceUpload {
            name,
            game,
            options: upload.options.clone(),
            protocol: upload.protocol,
            language: Some(language),
            filename: files[main].0.clone(),
            code: files[main].1.clone(),
        };
        let mut plan = Plan::from_source(source)?;
        // The files keep their names (a Java class is its file's name); the compiler
        // gets them all where it takes several.
        let file = files[main].0.clone();
        let all: Vec<String> = sources.iter().map(|&i| files[i].0.clone()).collect();
        plan.command = bot_command(language, game, &file);
        plan.program = Some(language.program(&file));
        let build = language.compile_command(&file);
        plan.build = Some(match language {
            Language::CSharp | Language::Go | Language::C | Language::Cpp => {
                build.into_iter().flat_map(|arg| if arg == file { all.clone() } else { vec![arg] }).collect()
            }
            Language::Java => build.into_iter().map(|arg| arg.replace(&format!(" {file} "), &format!(" {} ", all.join(" ")))).collect(),
            _ => build,
        });
        plan.files = vec![(file, files[main].1.clone())];
        Ok(Some((plan, main)))
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
        // The interface the form names, or the kit's (its marker), or the project's own,
        // which every kit speaks and every game has.
        let protocol = upload.protocol.or_else(|| kit_interface(&upload.code)).unwrap_or(Protocol::Arbiter);
        check_protocol(protocol, upload.game)?;
        check_options(upload.game, &upload.options)?;
        let file = language.file_for_upload(&upload.filename);
        let command = bot_command(language, upload.game, &file);
        let program = Some(language.program(&file));
        Ok(Plan {
            name: upload.name,
            game: upload.game,
            protocol,
            options: upload.options,
            language: Some(language),
            filename: Some(upload.filename),
            build: Some(language.compile_command(&file)),
            files: vec![(file, upload.code)],
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
        let manifest: Manifest = toml::from_str(&upload.manifest).map_err(|err| bad(text::toml_error(&upload.manifest, &err)))?;
        // A kit of every game (`game = "any"`) plays the game the form names.
        let game = match (manifest.game.as_str(), upload.game) {
            (referee::manifest::ANY_GAME, Some(game)) => game,
            (referee::manifest::ANY_GAME, None) => {
                return Err(bad("game = \"any\": choose the game the bot is to play (field `game`)".to_string()));
            }
            (named, _) => GameKind::from_name(named).map_err(|err| bad(err.to_string()))?,
        };
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
        check_extra_files(&[("bot.toml".to_string(), upload.manifest.clone().into_bytes())], &upload.files)?;
        let seen: BTreeSet<&str> = upload.files.iter().map(|(name, _)| name.as_str()).collect();
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
                plan.language.is_some_and(Language::is_script),
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
            doctor: None,
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
        Ok(SubmitOutcome::Accepted(Box::new(version)))
    }

    /// Checks a stored version (the upload's second half, which the web arena runs in
    /// the background): the doctor, then the entry check's games against
    /// [`ENTRY_CHECK_BASELINE`] unless the doctor found a problem that ends every game.
    /// Both results are stored with the version; each step is told to `on_event` as it
    /// happens. The updated version.
    pub async fn check(
        &self,
        version: &Version,
        sandboxed: bool,
        on_event: &mut (dyn FnMut(CheckEvent) + Send),
    ) -> Result<Version, SubmitError> {
        let mut version = version.clone();
        if !referee::doctor::speaks(version.protocol) {
            // The doctor's report of an interface it does not speak comes from games
            // against the random player: the entry check's own two games are those.
            on_event(CheckEvent::EntryCheckStarted);
            let result = match run_entry_check(&version, sandboxed).await {
                Ok(result) => result,
                Err(err) => EntryCheckResult { passed: false, summary: err.to_string(), games: Vec::new() },
            };
            version.doctor = Some(report_from_games(&version, &result));
            on_event(CheckEvent::Doctor(version.doctor.clone().expect("just set")));
            version.entry_check = Some(result.clone());
            let (dir, stored) = (version.path.clone(), version.clone());
            blocking(move || write_meta(&dir, &stored)).await?;
            on_event(CheckEvent::EntryCheck(result));
            return Ok(version);
        }
        let doctor = run_doctor(&version, sandboxed, on_event).await;
        let fatal = doctor.problems.iter().find(|p| p.ends_game).cloned();
        version.doctor = Some(doctor);
        on_event(CheckEvent::Doctor(version.doctor.clone().expect("just set")));
        let result = match fatal {
            Some(problem) => EntryCheckResult {
                passed: false,
                summary: format!(
                    "failed: the doctor found {} (as side {}), which ends every game: its report says what to do",
                    problem.title, problem.side
                ),
                games: Vec::new(),
            },
            None => {
                on_event(CheckEvent::EntryCheckStarted);
                match run_entry_check(&version, sandboxed).await {
                    Ok(result) => result,
                    Err(err) => EntryCheckResult { passed: false, summary: err.to_string(), games: Vec::new() },
                }
            }
        };
        version.entry_check = Some(result.clone());
        let (dir, stored) = (version.path.clone(), version.clone());
        blocking(move || write_meta(&dir, &stored)).await?;
        on_event(CheckEvent::EntryCheck(result));
        Ok(version)
    }

    /// Runs the check of a stored version again (the doctor and the entry check) and
    /// stores its result.
    pub async fn entry_check(&self, game: GameKind, name: &str, version: u32, sandboxed: bool) -> Result<EntryCheckResult, SubmitError> {
        let stored = self.version(game, name, version)?;
        let checked = self.check(&stored, sandboxed, &mut |_| {}).await?;
        Ok(checked.entry_check.expect("a check stores its result"))
    }

    /// One version of a bot.
    pub fn version(&self, game: GameKind, name: &str, version: u32) -> Result<Version, SubmitError> {
        check_name(name)?;
        let path = self.bot_dir(game, name).join(format!("v{version}"));
        if !path.join("meta.json").is_file() {
            return Err(SubmitError::NotFound { game: game.name().to_string(), name: name.to_string(), version });
        }
        read_meta(&path)
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

/// What a check does, told as it happens.
#[derive(Clone, Debug)]
pub enum CheckEvent {
    /// A step of the doctor's.
    Step(referee::doctor::Step),
    /// The doctor's report.
    Doctor(DoctorReport),
    /// The entry check's games begin.
    EntryCheckStarted,
    /// The entry check's result.
    EntryCheck(EntryCheckResult),
}

/// The most time a move has in the entry check's games (the game's own limit when it is
/// less): a class's entry check decides in seconds, as the doctor does (its bound for
/// a move of a game it plays), whatever the game's budget (Connect Four's 120 s of CPU
/// time a game allow 241 s a move).
pub const ENTRY_CHECK_MOVE_MS: u64 = arena::doctor::MOVE_BOUND.as_millis() as u64;

/// The doctor's report of a bot of an interface it does not speak, from the entry
/// check's games against the random player: every fault of the bot is a problem in the
/// referee's words (a wrong answer quotes the text received), and a bot that does not
/// describe itself has no handshake.
fn report_from_games(version: &Version, result: &EntryCheckResult) -> DoctorReport {
    use referee::doctor::ProblemKind;
    let sides = version.game.side_names();
    let mut problems = Vec::new();
    for game in &result.games {
        let Some(fault) = &game.fault else { continue };
        let kind = match fault.as_str() {
            "crash" => ProblemKind::Crash,
            "timeout" => ProblemKind::LateAnswer,
            "illegal-move" => ProblemKind::IllegalMove,
            _ => ProblemKind::WrongFormat,
        };
        let side = sides.iter().position(|s| *s == game.side).unwrap_or(0);
        problems.push(DoctorProblem {
            title: kind.title().to_string(),
            side,
            explanation: format!("the referee ended the game as side {side}'s fault: {}", game.termination),
            exchange: Vec::new(),
            stderr: String::new(),
            ends_game: kind.ends_game(),
        });
    }
    if result.games.is_empty() && !result.passed {
        let reason = result.summary.strip_prefix("failed: ").unwrap_or(&result.summary).to_string();
        problems.push(DoctorProblem {
            title: ProblemKind::NoHandshake.title().to_string(),
            side: 0,
            explanation: reason,
            exchange: Vec::new(),
            stderr: String::new(),
            ends_game: true,
        });
    }
    let moves = result.games.iter().map(|g| g.moves.div_ceil(2)).sum();
    DoctorReport { fit: problems.is_empty(), moves, problems, error: None }
}

/// The doctor on a version, in the game and with the limits of its entry check (inside
/// the sandbox when `sandboxed`): its report, with our own failure as `error`.
async fn run_doctor(version: &Version, sandboxed: bool, on_event: &mut (dyn FnMut(CheckEvent) + Send)) -> DoctorReport {
    let manifest = version.path.join("bot.toml");
    let loaded = tokio::task::spawn_blocking(move || ProgramBot::load(&manifest)).await.expect("loading a manifest does not panic");
    let bot = match loaded {
        Ok(bot) => bot,
        Err(err) => return DoctorReport { fit: false, moves: 0, problems: Vec::new(), error: Some(err.to_string()) },
    };
    let mut limits = referee::Limits::for_game(version.game, &version.options).with(&bot.manifest.limits);
    limits.sandboxed = sandboxed;
    let mut on_step = |step| on_event(CheckEvent::Step(step));
    match arena::doctor::examine(&bot, version.game, &version.options, &limits, &mut on_step).await {
        Ok(checkup) => DoctorReport {
            fit: checkup.is_fit(),
            moves: checkup.moves,
            problems: checkup.problems.iter().map(DoctorProblem::from_problem).collect(),
            error: None,
        },
        Err(err) => DoctorReport { fit: false, moves: 0, problems: Vec::new(), error: Some(err.to_string()) },
    }
}

/// Runs the entry check's games for one version: a one-stage tournament (`format =
/// "entry-check"` against [`ENTRY_CHECK_BASELINE`], at most [`ENTRY_CHECK_MOVE_MS`] a
/// move) in a temporary database. It passes when the bot answers its interface's
/// self-description and plays every game to its end without a fault: a class's first
/// bot plays at random and must be let into the ladder, so winning is not asked (a
/// tournament's own entry-check stage still asks it).
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
    results.first().ok_or_else(|| fail("the stage gave no result".to_string()))?;
    let faulty: Vec<&EntryGame> = games.iter().filter(|g| g.fault.is_some()).collect();
    let count = |r: &str| games.iter().filter(|g| g.result == r).count();
    let (passed, summary) = if let Some(reason) = refused.first() {
        (false, format!("failed: {reason}"))
    } else if games.is_empty() {
        (false, "failed: no game was played".to_string())
    } else if let Some(first) = faulty.first() {
        let kind = first.fault.as_deref().unwrap_or("fault");
        let detail = first.termination.split_once(": ").map_or(first.termination.as_str(), |(_, detail)| detail);
        (false, format!("failed: {kind} in {} of {} games against {ENTRY_CHECK_BASELINE} ({detail})", faulty.len(), games.len()))
    } else {
        let summary = format!(
            "passed: {} games played to the end without a fault (won {}, drew {}, lost {} against {ENTRY_CHECK_BASELINE})",
            games.len(),
            count("win"),
            count("draw"),
            count("loss")
        );
        (true, summary)
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
    let seed = version.game.seed_limits(&version.options).move_ms;
    let mut limits = toml::Table::new();
    limits.insert("move-ms".into(), toml::Value::Integer(seed.map_or(ENTRY_CHECK_MOVE_MS, |ms| ms.min(ENTRY_CHECK_MOVE_MS)) as i64));
    table.insert("limits".into(), limits.into());
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
        let fault = record.as_ref().and_then(|r| {
            let termination = &r.result.termination;
            (termination.side().map(|s| s.index()) == Some(side)).then(|| termination.kind().to_string())
        });
        games.push(EntryGame {
            fault,
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
    let time = std::time::UNIX_EPOCH + std::time::Duration::from_millis(ms);
    humantime::format_rfc3339_millis(time).to_string()
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
        assert_eq!(Language::from_filename("main.go"), Some(Language::Go));
        assert_eq!(Language::from_filename("Makefile"), None);
        assert_eq!(Language::from_filename("bot.js"), Some(Language::JavaScript));
        assert_eq!(kit_interface(b"#!/usr/bin/env python3\n# arbiter-interface: pahtum\n"), Some(Protocol::Pahtum));
        assert_eq!(kit_interface(b"/* x: a bot (arbiter-interface: arbiter) */"), Some(Protocol::Arbiter));
        assert_eq!(kit_interface(b"print('no marker')"), None);
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
            doctor: None,
            path: PathBuf::new(),
        };
        let config = tournament::TournamentConfig::parse_without_entrants(&entry_check_config(&version), "x").unwrap();
        assert_eq!(config.game, GameKind::Pahtum);
        assert_eq!(config.options.get("blocked").map(String::as_str), Some("7"));
        assert_eq!(config.stages.len(), 1);
    }
}
