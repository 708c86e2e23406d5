//! The web arena: an HTTP server with a JSON API under `/api`, live updates by
//! server-sent events, and embedded pages (tournaments, game viewer, testing ground,
//! human play, submissions). `docs/web.md` documents the API.

pub mod api;
pub mod auth;
pub mod error;
pub mod games;
pub mod live;
pub mod pages;
pub mod submissions;
pub mod tournaments;
pub mod view;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use rules::GameKind;

use crate::live::Registry;
use crate::tournaments::Tournaments;

/// How the server was started.
#[derive(Clone, Debug)]
pub struct Config {
    /// The server's own folder: tournaments it starts (`tournaments/*.db`), finished
    /// testing-ground and human games (`games/*.json`), submissions (`bots/`).
    pub data: PathBuf,
    /// Tournament databases to show besides the server's own (e.g. written by
    /// `arbiter tournament`).
    pub dbs: Vec<PathBuf>,
    /// The organiser's token.
    pub token: String,
    /// Whether program bots run inside the sandbox.
    pub sandboxed: bool,
    /// Games a tournament plays at the same time.
    pub jobs: usize,
    /// Where the ready tournament presets are (`presets/` of the project).
    pub presets: Option<PathBuf>,
}

/// The server's state, shared by every request.
pub struct App {
    pub config: Config,
    pub registry: Arc<Registry>,
    pub submissions: submissions::Submissions,
    pub tournaments: Tournaments,
    matches: AtomicUsize,
    frozen: AtomicBool,
    /// Held while a new tournament picks its file, so two never pick the same.
    pub(crate) starting: tokio::sync::Mutex<()>,
}

impl auth::HasToken for Arc<App> {
    fn token(&self) -> &str {
        &self.config.token
    }
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
            std::fs::create_dir_all(&path).map_err(|source| StartError::Data { path: path.display().to_string(), source })?;
        }
        let registry = Arc::new(Registry::new(config.data.join("games")));
        let submissions = submissions::Submissions::open(&config.data.join("bots"))?;
        let app = Arc::new(App {
            registry,
            submissions,
            tournaments: Tournaments::default(),
            matches: AtomicUsize::new(0),
            frozen: AtomicBool::new(false),
            starting: tokio::sync::Mutex::new(()),
            config,
        });
        for db in app.config.dbs.clone() {
            let store = store::Store::open(&db).await?;
            let base = db.file_stem().map(|s| tournaments::slug(&s.to_string_lossy())).unwrap_or_else(|| "tournament".to_string());
            app.tournaments.add(&base, db.clone(), store, false);
        }
        api::resume_managed(&app).await.map_err(StartError::Resume)?;
        Ok(app)
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

    fn matches_running(&self) -> usize {
        self.matches.load(Ordering::SeqCst)
    }

    fn match_started(&self) {
        self.matches.fetch_add(1, Ordering::SeqCst);
    }

    fn match_ended(&self) {
        self.matches.fetch_sub(1, Ordering::SeqCst);
    }

    pub fn frozen(&self) -> bool {
        self.frozen.load(Ordering::SeqCst)
    }

    pub fn set_frozen(&self, frozen: bool) {
        self.frozen.store(frozen, Ordering::SeqCst);
    }

    /// Where the server keeps the tournaments it starts.
    pub fn tournament_folder(&self) -> PathBuf {
        self.config.data.join("tournaments")
    }

    pub fn presets_folder(&self) -> Option<&Path> {
        self.config.presets.as_deref()
    }
}

/// The whole router: pages, assets and the API.
pub fn router(app: Arc<App>) -> axum::Router {
    pages::routes().merge(api::routes()).with_state(app)
}

/// Serves until the listener fails.
pub async fn serve(app: Arc<App>, listener: tokio::net::TcpListener) -> std::io::Result<()> {
    axum::serve(listener, router(app)).await
}
