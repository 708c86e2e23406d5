//! The web arena: an HTTP server with a JSON API under `/api`, live updates by
//! server-sent events, and embedded pages (tournaments, game viewer, testing ground,
//! human play, submissions). `docs/web.md` documents the API.

pub mod api;
pub mod auth;
pub mod entrants;
pub mod error;
pub mod games;
pub mod http;
pub mod ladders;
pub mod live;
pub mod pages;
pub mod quota;
pub mod tasks;
pub mod tournaments;
pub mod upload_policy;
pub mod uploads;
pub mod view;
pub mod work;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use rules::GameKind;

use crate::live::Registry;
use crate::tasks::Tasks;
use crate::tournaments::Tournaments;

/// How the server was started.
#[derive(Clone, Debug)]
pub struct Config {
    /// The server's own folder: tournaments it starts (`tournaments/*.db`), finished
    /// testing-ground and human games (`games/*.json`), submissions (`bots/`).
    pub data: PathBuf,
    /// Tournament databases to show besides the server's own (e.g. written by
    /// `arbiter tournament`): files, or PostgreSQL URLs (`postgres://...`) of
    /// tournaments that workers play.
    pub dbs: Vec<PathBuf>,
    /// The organiser's token.
    pub token: String,
    /// Whether program bots run inside the sandbox.
    pub sandboxed: bool,
    /// Games a tournament plays at the same time.
    pub jobs: usize,
    /// Where the ready tournament presets are (`presets/` of the project).
    pub presets: Option<PathBuf>,
    /// Host names the server answers to besides `localhost` and IP addresses (the
    /// `--addr` host and every `--public-host`); other `Host` headers are refused.
    pub hosts: Vec<String>,
    /// Connection caps and timeouts.
    pub limits: http::Limits,
    /// The ladders' share of the `jobs` workers (at least one worker); tournaments get
    /// the rest while a ladder plays.
    pub ladder_share: f64,
    /// How much of the server uploads may take (per client, per entrant, at once).
    pub upload_limits: uploads::Limits,
}

/// The server's state, shared by every request.
pub struct App {
    pub config: Config,
    pub registry: Arc<Registry>,
    pub submissions: submissions::Submissions,
    pub tournaments: Tournaments,
    /// The server's own database: entrants, bot owners, ladders (`arena.db`).
    pub arena: store::ArenaStore,
    pub ladders: ladders::Ladders,
    /// Every background task of the server (games, tournaments, watchers, connections).
    pub tasks: Tasks,
    /// Testing-ground matches running, overall and per client.
    pub matches: Arc<quota::Quota>,
    /// Human games open, overall and per client.
    pub human_games: Arc<quota::Quota>,
    /// Uploads in flight and their checks.
    pub uploads: uploads::Uploads,
    /// Files of the data folder's `tournaments/` that could not be read at start: the
    /// file's name and why. Skipped, and listed to the organiser.
    pub unreadable: Mutex<Vec<Unreadable>>,
    frozen: AtomicBool,
    /// Held while a new tournament picks its file, so two never pick the same.
    pub(crate) starting: tokio::sync::Mutex<()>,
    /// The HTTP workers' tournaments (`work.rs`).
    pub work: work::Work,
}

impl auth::HasToken for Arc<App> {
    fn token(&self) -> &str {
        &self.config.token
    }
}

/// A tournament file that could not be read at start.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Unreadable {
    /// The file's name (no folder: the API shows no server paths).
    pub file: String,
    pub error: String,
}

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("cannot make the data folder {path}: {source}")]
    Data { path: String, source: std::io::Error },
    #[error(transparent)]
    Store(#[from] store::StoreError),
    #[error(transparent)]
    Submissions(#[from] submissions::SubmitError),
    #[error("{0}")]
    Resume(String),
}

impl App {
    /// Opens the data folder and the databases, and resumes the tournaments this server
    /// was running when it stopped.
    pub async fn start(config: Config) -> Result<Arc<App>, StartError> {
        for sub in ["tournaments", "games", "bots"] {
            let path = config.data.join(sub);
            tokio::fs::create_dir_all(&path).await.map_err(|source| StartError::Data { path: path.display().to_string(), source })?;
        }
        let registry = Arc::new(Registry::new(config.data.join("games")));
        let submissions = submissions::Submissions::open(&config.data.join("bots"))?;
        let tasks = Tasks::default();
        let arena = store::ArenaStore::open(&config.data.join("arena.db")).await?;
        let app = Arc::new(App {
            arena,
            ladders: ladders::Ladders::new(config.jobs, config.ladder_share),
            registry,
            submissions,
            tournaments: Tournaments::new(tasks.clone()),
            tasks,
            matches: quota::Quota::new(("match", "matches", "running"), games::MAX_MATCHES, games::MAX_MATCHES_PER_CLIENT),
            human_games: quota::Quota::new(
                ("human game", "human games", "open"),
                games::MAX_HUMAN_GAMES,
                games::MAX_HUMAN_GAMES_PER_CLIENT,
            ),
            uploads: uploads::Uploads::new(config.upload_limits.clone()),
            unreadable: Mutex::new(Vec::new()),
            frozen: AtomicBool::new(false),
            starting: tokio::sync::Mutex::new(()),
            work: work::Work::default(),
            config,
        });
        for db in app.config.dbs.clone() {
            let location = db.to_str().map_or_else(|| store::Location::File(db.clone()), store::Location::parse);
            let opened = match &location {
                store::Location::File(path) => open_tournament_file(path).await,
                // Shown as its workers store it: nothing is written to it from here.
                store::Location::Postgres(_) => store::Store::open_read_only_at(&location).await,
            };
            let store = match opened {
                Ok(store) => store,
                Err(err) => {
                    app.skip_unreadable(Path::new(&location.name()), &err.to_string());
                    continue;
                }
            };
            let base = db.file_stem().map(|s| tournaments::slug(&s.to_string_lossy())).unwrap_or_else(|| "tournament".to_string());
            app.tournaments.add(&base, db.clone(), store, false);
        }
        api::resume_managed(&app).await.map_err(StartError::Resume)?;
        ladders::Ladders::resume(&app).await?;
        uploads::resume(&app);
        Ok(app)
    }

    /// A tournament file that cannot be read: a warning on stderr (with its path), and
    /// an entry in the organiser's list (with its name only); the server goes on.
    pub(crate) fn skip_unreadable(&self, path: &Path, error: &str) {
        tracing::warn!("skipped {}: {error}", path.display());
        let file = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let error = hide_paths(&error.replace(&path.display().to_string(), &file));
        self.unreadable.lock().unwrap_or_else(|p| p.into_inner()).push(Unreadable { file, error });
    }

    /// The folder of a registered bot's current version, if the bot exists.
    pub fn registered_bot(&self, kind: GameKind, name: &str) -> Option<PathBuf> {
        self.submissions.current(kind, name).ok().flatten().map(|v| v.path)
    }

    /// The registered bots (of one game, or all), as `/api/bots` lists them.
    pub fn registered_bots(&self, kind: Option<GameKind>) -> Vec<serde_json::Value> {
        let mut list = self.submissions.list().unwrap_or_default();
        list.retain(|v| kind.is_none_or(|k| v.game == k));
        list.iter()
            .map(|v| {
                serde_json::json!({
                    "name": v.name, "kind": "registered", "game": v.game.name(), "version": v.version,
                    "uploaded": v.uploaded, "entry_check": v.entry_check.as_ref().map(|c| c.passed),
                })
            })
            .collect()
    }

    /// The registered bots of a game as tournament entrants: name, folder of the current
    /// version, upload time.
    pub fn registered_entrants(&self, kind: GameKind) -> Vec<(String, PathBuf, String)> {
        let mut list = self.submissions.list().unwrap_or_default();
        list.retain(|v| v.game == kind);
        list.into_iter().map(|v| (v.name, v.path, v.uploaded)).collect()
    }

    pub fn sandboxed(&self) -> bool {
        self.config.sandboxed
    }

    pub fn frozen(&self) -> bool {
        self.frozen.load(Ordering::SeqCst)
    }

    pub fn set_frozen(&self, frozen: bool) {
        self.frozen.store(frozen, Ordering::SeqCst);
    }

    /// How a tournament of this server runs: on the `-j` workers, which it shares with
    /// the ladders (each game takes one from [`ladders::Ladders::tournament_workers`]),
    /// so that the ladders keep their share whichever started first.
    pub fn tournament_options(&self, config_dir: PathBuf, wait_for_runner: bool) -> arena::RunOptions {
        arena::RunOptions {
            jobs: self.config.jobs,
            config_dir,
            sandboxed: self.sandboxed(),
            pin: false,
            watch: None,
            wait_for_runner,
            shared: Some(self.ladders.tournament_workers()),
        }
    }

    /// Where the server keeps the tournaments it starts.
    pub fn tournament_folder(&self) -> PathBuf {
        self.config.data.join("tournaments")
    }

    pub fn presets_folder(&self) -> Option<&Path> {
        self.config.presets.as_deref()
    }
}

/// The whole router: pages, assets and the API, behind the front door's checks
/// (`http::protect`).
pub fn router(app: Arc<App>) -> axum::Router {
    let (hosts, limits) = (app.config.hosts.clone(), app.config.limits.clone());
    let routes = pages::routes()
        .merge(api::routes())
        .merge(uploads::routes())
        .merge(entrants::routes())
        .merge(ladders::routes())
        .merge(work::routes());
    http::protect(routes.with_state(app), &hosts, &limits)
}

/// Serves until the listener fails, within the connection caps and timeouts of the
/// config.
pub async fn serve(app: Arc<App>, listener: tokio::net::TcpListener) -> std::io::Result<()> {
    let (limits, tasks) = (app.config.limits.clone(), app.tasks.clone());
    http::serve(router(app), listener, limits, &tasks).await
}

/// Opens a tournament database that is already there. It is probed read-only first, so
/// that a corrupt or foreign file is refused without being written to (the normal open
/// sets the journal mode and adds the schema).
pub(crate) async fn open_tournament_file(path: &Path) -> Result<store::Store, store::StoreError> {
    match store::Store::open_read_only(path).await {
        Ok(probe) => probe.close().await,
        // An older schema of ours: the open below brings it up to date.
        Err(store::StoreError::Older { .. }) => {}
        Err(err) => return Err(err),
    }
    store::Store::open(path).await
}

/// A message for the API: every absolute path in it (a word starting with `/` of two or
/// more parts) shortened to its last part, since the API shows no server paths.
pub fn hide_paths(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find('/') {
        let starts_word = rest[..start].chars().next_back().is_none_or(|c| c.is_whitespace() || "\"'(=[{,".contains(c));
        let len = rest[start..]
            .char_indices()
            .find(|&(i, c)| {
                c.is_whitespace()
                    || "\"'),]}".contains(c)
                    || (c == ':' && rest[start + i + 1..].chars().next().is_none_or(char::is_whitespace))
            })
            .map_or(rest.len() - start, |(i, _)| i);
        let word = &rest[start..start + len];
        out.push_str(&rest[..start]);
        if starts_word && word.trim_end_matches('/').matches('/').count() >= 2 {
            out.push_str(word.trim_end_matches('/').rsplit('/').next().unwrap_or(""));
        } else {
            out.push_str(word);
        }
        rest = &rest[start + len..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn absolute_paths_are_shortened_to_their_last_part() {
        let hide = super::hide_paths;
        assert_eq!(
            hide("cannot open /srv/arena/data/tournaments/x.db: file is not a database"),
            "cannot open x.db: file is not a database"
        );
        assert_eq!(hide("entrant a: \"/home/org/bots/a/bot.toml\" (no such file)"), "entrant a: \"bot.toml\" (no such file)");
        assert_eq!(hide("program=/a/b/c, then /d/e/"), "program=c, then e");
        assert_eq!(hide("a score of 3/4 and /one level"), "a score of 3/4 and /one level");
        assert_eq!(hide("no paths here"), "no paths here");
    }
}
