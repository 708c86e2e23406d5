//! The tournament results database, and the only crate that touches it: one tournament
//! per file (SQLite), its entrants, the fingerprints taken when stages start, every
//! finished game with its record, stage results and notes for the organiser.
//! `arena.rs` is the web arena's own database beside them (entrants, bot owners,
//! ladders), with migrations of its own.
//!
//! Durability: the file runs in WAL mode with `synchronous=NORMAL`. Every call that
//! returned `Ok` survives a killed process (SIGKILL included): each finished game is
//! written in one transaction, so a game is either fully stored (outcome and record) or
//! absent. A power loss or an operating-system crash may lose the last few committed
//! games, never corrupt the file; a resumed tournament replays those games.

mod arena;
mod lock;
mod shared;

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::de::IgnoredAny;
use sqlx::migrate::{Migration, MigrationType, Migrator};
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{Row, SqlSafeStr};
use tournament::{Entrant, EntrantId, GameOutcome};

pub use arena::{ArenaStore, EntrantRow, LadderGame, LadderPlayer, LadderResult, LadderRow, RatingPoint, WorkerReport, WorkerRow};
pub use lock::{Holder, HolderInfo, RunnerLock, lock_path};
pub use shared::{Finished, Lease, PlanLock, QueueCounts, WorkerInfo};

/// The schema of a SQLite file, oldest first; `include_str!` keeps the binary
/// self-contained.
/// Version 5 adds the tables of shared work, which a file that `arbiter serve` holds for
/// HTTP workers uses (numbered after the arena's migrations in the same folder).
const MIGRATIONS: &[(i64, &str, &str)] = &[
    (1, "initial", include_str!("../migrations/0001_initial.sql")),
    (5, "shared_work", include_str!("../migrations/0005_shared_work.sql")),
];

/// The schema of a PostgreSQL database: the same tables, PostgreSQL's types, and the
/// tables of shared work (`migrations/postgres/`).
const PG_MIGRATIONS: &[(i64, &str, &str)] = &[
    (1, "initial", include_str!("../migrations/postgres/0001_initial.sql")),
    (2, "files", include_str!("../migrations/postgres/0002_files.sql")),
];

/// The advisory lock held while a PostgreSQL database is checked and migrated.
const PREPARE_LOCK_KEY: i64 = 0x0061_7262_6974_6573;

/// How long a connection waits for another writer (another process on the same file, or
/// a checkpoint) before it reports the file busy; on PostgreSQL, how long a call waits
/// for a connection.
const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// Connections of a read-write store: writes are serialised by SQLite anyway; the extra
/// connections let reads run beside a write.
const MAX_CONNECTIONS: u32 = 4;

/// Where a tournament is kept: a SQLite file (the embedded default) or a PostgreSQL
/// database, which workers on many machines share.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    File(PathBuf),
    /// A `postgres://` or `postgresql://` URL.
    Postgres(String),
}

impl Location {
    /// A `--db` argument: a PostgreSQL URL, or else a file's path.
    pub fn parse(text: &str) -> Location {
        if text.starts_with("postgres://") || text.starts_with("postgresql://") {
            Location::Postgres(text.to_string())
        } else {
            Location::File(PathBuf::from(text))
        }
    }

    /// The location as messages show it: the path, or the URL without its password.
    pub fn name(&self) -> String {
        match self {
            Location::File(path) => path.display().to_string(),
            Location::Postgres(url) => redact(url),
        }
    }

    pub fn is_file(&self) -> bool {
        matches!(self, Location::File(_))
    }

    pub fn is_postgres(&self) -> bool {
        matches!(self, Location::Postgres(_))
    }
}

impl FromStr for Location {
    type Err = std::convert::Infallible;
    fn from_str(text: &str) -> Result<Location, Self::Err> {
        Ok(Location::parse(text))
    }
}

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name())
    }
}

/// A URL with its password, if any, replaced by `***`.
fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else { return url.to_string() };
    let Some((user_info, host)) = rest.split_once('@') else { return url.to_string() };
    match user_info.split_once(':') {
        Some((user, _password)) => format!("{scheme}://{user}:***@{host}"),
        None => url.to_string(),
    }
}

/// Why a database call failed. Every message names the file (or the URL).
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("cannot open {file}: no such file")]
    Missing { file: String },
    #[error("cannot open {file}: {source}")]
    Open { file: String, source: sqlx::Error },
    #[error("{file} is not an arbiter results database: {why}")]
    NotArbiter { file: String, why: &'static str },
    #[error("cannot open {file}: {folder} is not a folder")]
    NotFolder { file: String, folder: String },
    #[error("cannot read {file}: {}", io_words(source))]
    Unreadable { file: String, source: std::io::Error },
    #[error("{file} was written by a newer arbiter (schema version {version}); use a newer arbiter or another --db file")]
    Newer { file: String, version: i64 },
    #[error("{file} has an older schema; open it once with `arbiter tournament` to update it")]
    Older { file: String },
    #[error("cannot update the schema of {file}: {source}")]
    Migrate { file: String, source: sqlx::migrate::MigrateError },
    #[error("{file} holds another tournament ({name:?}); use another --db file")]
    OtherTournament { file: String, name: String },
    #[error("{file} holds entrant {id} as {stored:?}, not {given:?}; use another --db file")]
    OtherEntrant { file: String, id: EntrantId, stored: String, given: String },
    #[error("{file} is being run by {holder}; one runner per tournament")]
    Busy { file: String, holder: HolderInfo },
    #[error("cannot lock {file} for this run: {source}")]
    Lock { file: String, source: std::io::Error },
    #[error("{file}: the runner's lock {lock} was removed or replaced while this run held it; stopping so that two runners never write")]
    LockLost { file: String, lock: String },
    #[error("the record of game {key:?} is not JSON: {source}")]
    BadRecord { key: String, source: serde_json::Error },
    #[error("cannot {action} in {file}: {source}")]
    Query { file: String, action: &'static str, source: sqlx::Error },
    #[error("{file} holds a damaged {what}: {detail}")]
    Damaged { file: String, what: &'static str, detail: String },
    #[error("{file} is a PostgreSQL database, whose games workers play (arbiter worker --db URL), not one runner")]
    NotFile { file: String },
    #[error("{file} is a SQLite file, which one machine runs; workers share a PostgreSQL database (--db postgres://...)")]
    NotShared { file: String },
}

impl StoreError {
    /// Whether the call may work if tried again later: the database could not be
    /// reached, was restarting, or dropped the connection (never a refusal of ours).
    pub fn is_transient(&self) -> bool {
        let source = match self {
            StoreError::Open { source, .. } | StoreError::Query { source, .. } => source,
            _ => return false,
        };
        match source {
            sqlx::Error::Io(_) | sqlx::Error::PoolTimedOut | sqlx::Error::Protocol(_) | sqlx::Error::WorkerCrashed => true,
            sqlx::Error::Tls(_) => true,
            // Connection exceptions (08), operator intervention such as a shutdown (57),
            // and a server out of resources (53).
            sqlx::Error::Database(error) => {
                error.code().is_some_and(|code| code.starts_with("08") || code.starts_with("57") || code.starts_with("53"))
            }
            _ => false,
        }
    }
}

/// Why a file is not a results database, as [`StoreError::NotArbiter`] says it.
const FOLDER: &str = "it is a folder";
const NOT_SQLITE: &str = "it is not an SQLite file";
const EMPTY: &str = "it is empty";
const ANOTHER_PROGRAM: &str = "it is another program's SQLite file";
const DAMAGED: &str = "it is a damaged SQLite file";

/// An I/O error in words, without the operating system's error number.
fn io_words(error: &std::io::Error) -> String {
    let text = error.to_string();
    let text = text.split(" (os error").next().unwrap_or(&text);
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| first.to_lowercase().chain(chars).collect())
}

/// The one rule for a file a person names as a results database, checked before SQLite
/// sees it, so that every command (and the web arena) says the same line and no SQLite
/// code: missing ([`StoreError::Missing`], unless `create`), a folder or not an SQLite
/// file ([`StoreError::NotArbiter`]), under a path part that is a file
/// ([`StoreError::NotFolder`]), unreadable ([`StoreError::Unreadable`]). Another
/// program's SQLite file is found once SQLite opens it. Blocking: call it off the
/// runtime's threads.
fn probe_file(path: &Path, file: &str, create: bool) -> Result<(), StoreError> {
    let not_arbiter = |why| StoreError::NotArbiter { file: file.to_string(), why };
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            let parent = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
            return match std::fs::metadata(parent) {
                Ok(meta) if meta.is_dir() && create => Ok(()),
                Ok(meta) if !meta.is_dir() => Err(StoreError::NotFolder { file: file.to_string(), folder: parent.display().to_string() }),
                _ => Err(StoreError::Missing { file: file.to_string() }),
            };
        }
        Err(error) if error.kind() == std::io::ErrorKind::NotADirectory => {
            let folder = path.ancestors().skip(1).find(|p| std::fs::metadata(p).is_ok_and(|m| !m.is_dir()));
            let folder = folder.map_or_else(|| path.display().to_string(), |p| p.display().to_string());
            return Err(StoreError::NotFolder { file: file.to_string(), folder });
        }
        Err(source) => return Err(StoreError::Unreadable { file: file.to_string(), source }),
    };
    if meta.is_dir() {
        return Err(not_arbiter(FOLDER));
    }
    if !meta.is_file() {
        return Err(not_arbiter(NOT_SQLITE));
    }
    let mut header = [0u8; 16];
    let read = std::fs::File::open(path).and_then(|mut f| std::io::Read::read(&mut f, &mut header));
    match read {
        Err(source) => Err(StoreError::Unreadable { file: file.to_string(), source }),
        // SQLite makes an empty file a new database.
        Ok(0) if create => Ok(()),
        Ok(0) => Err(not_arbiter(EMPTY)),
        Ok(n) if n < header.len() || &header != b"SQLite format 3\0" => Err(not_arbiter(NOT_SQLITE)),
        Ok(_) => Ok(()),
    }
}

/// [`probe_file`] on a blocking thread.
async fn probe(path: &Path, file: &str, create: bool) -> Result<(), StoreError> {
    let (path, file) = (path.to_path_buf(), file.to_string());
    tokio::task::spawn_blocking(move || probe_file(&path, &file, create))
        .await
        .unwrap_or_else(|join| Err(StoreError::Unreadable { file: String::new(), source: std::io::Error::other(join.to_string()) }))
}

/// The tournament a file belongs to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TournamentRow {
    pub name: String,
    /// The config as the organiser wrote it.
    pub config_text: String,
    /// Identifies the tournament: a file holds one config hash for its whole life.
    pub config_hash: String,
    /// When the tournament was first recorded, milliseconds since the Unix epoch.
    pub created_ms: i64,
}

/// What became of a game handed to [`Store::save_game`].
#[derive(Clone, Debug, PartialEq)]
pub enum Saved {
    /// Stored now.
    Stored,
    /// The same key with the same record was stored before: nothing changed.
    Again,
    /// The key was stored before with another record (another runner played the game
    /// too): the first stored is kept, and is this.
    Kept(Box<GameOutcome>),
}

/// The connections of a store: to a SQLite file or to a PostgreSQL database.
#[derive(Clone, Debug)]
enum Pool {
    Sqlite(SqlitePool),
    Postgres(PgPool),
}

/// Runs `$body` with `$pool` bound to the store's pool of either kind (the body is
/// compiled once per kind: one text of each query for both), and `$begin` to the
/// statement that opens a write transaction (SQLite's `BEGIN IMMEDIATE` takes the write
/// lock at once, so that a transaction that reads before it writes is never refused).
macro_rules! on_pool {
    ($store:expr, |$pool:ident| $body:expr) => {
        match &$store.pool {
            Pool::Sqlite($pool) => $body,
            Pool::Postgres($pool) => $body,
        }
    };
    ($store:expr, |$pool:ident, $begin:ident| $body:expr) => {
        match &$store.pool {
            Pool::Sqlite($pool) => {
                let $begin = "BEGIN IMMEDIATE";
                $body
            }
            Pool::Postgres($pool) => {
                let $begin = "BEGIN";
                $body
            }
        }
    };
}

/// Inserts a finished game and its record in the open transaction `$tx` (of either
/// kind), unless its key is stored: evaluates to what became of it ([`Saved`]). The
/// caller commits on [`Saved::Stored`].
macro_rules! insert_game {
    ($store:ident, $action:ident, $tx:ident, $outcome:expr, $outcome_json:expr, $record_json:expr) => {{
        let outcome: &GameOutcome = $outcome;
        let spec = &outcome.spec;
        let inserted = sqlx::query(
            "INSERT INTO games (key, stage, round, match_key, player0, player1, opening, seed, winner, score0, score1, \
             fault_side, fault_kind, moves0, moves1, time_ms0, time_ms1, outcome, stored_ms) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19) \
             ON CONFLICT (key) DO NOTHING",
        )
        .bind(&spec.key)
        .bind(to_i64(spec.stage))
        .bind(i64::from(spec.round))
        .bind(&spec.match_key)
        .bind(to_i64(spec.players[0]))
        .bind(to_i64(spec.players[1]))
        .bind(spec.opening.map(to_i64))
        .bind(spec.seed.to_string())
        .bind(outcome.winner.map(to_i64))
        .bind(outcome.scores.map(|s| s[0]))
        .bind(outcome.scores.map(|s| s[1]))
        .bind(outcome.fault.as_ref().map(|(side, _)| to_i64(*side)))
        .bind(outcome.fault.as_ref().map(|(_, kind)| kind.as_str()))
        .bind(i64::from(outcome.moves[0]))
        .bind(i64::from(outcome.moves[1]))
        .bind(to_i64(outcome.time_ms[0]))
        .bind(to_i64(outcome.time_ms[1]))
        .bind(&$outcome_json)
        .bind(now_ms())
        .execute(&mut *$tx)
        .await
        .map_err(|e| $store.query_error($action, e))?;
        if inserted.rows_affected() == 0 {
            let stored: Option<(String, String)> =
                sqlx::query_as("SELECT g.outcome, r.record FROM games g JOIN game_records r ON r.key = g.key WHERE g.key = $1")
                    .bind(&spec.key)
                    .fetch_optional(&mut *$tx)
                    .await
                    .map_err(|e| $store.query_error($action, e))?;
            let Some((stored_outcome, stored_record)) = stored else {
                return Err(StoreError::Damaged {
                    file: $store.file.clone(),
                    what: "game",
                    detail: format!("game {:?} has no record", spec.key),
                });
            };
            if stored_record == $record_json {
                Saved::Again
            } else {
                Saved::Kept(Box::new(serde_json::from_str(&stored_outcome).map_err(|error| StoreError::Damaged {
                    file: $store.file.clone(),
                    what: "game outcome",
                    detail: format!("game {:?}: {error}", spec.key),
                })?))
            }
        } else {
            sqlx::query("INSERT INTO game_records (key, record) VALUES ($1, $2)")
                .bind(&spec.key)
                .bind($record_json)
                .execute(&mut *$tx)
                .await
                .map_err(|e| $store.query_error($action, e))?;
            Saved::Stored
        }
    }};
}
pub(crate) use insert_game;
pub(crate) use on_pool;

/// A game's outcome as JSON, once its record is checked to be JSON.
fn game_json(outcome: &GameOutcome, record_json: &str) -> Result<String, StoreError> {
    serde_json::from_str::<IgnoredAny>(record_json).map_err(|source| StoreError::BadRecord { key: outcome.spec.key.clone(), source })?;
    Ok(serde_json::to_string(outcome).expect("a game outcome always serialises"))
}

/// An open results database.
#[derive(Clone, Debug)]
pub struct Store {
    pool: Pool,
    location: Location,
    /// The location as messages show it.
    file: String,
}

impl Store {
    /// Opens the file for a tournament run: creates it if missing, brings its schema up
    /// to date, and sets WAL mode, `synchronous=NORMAL`, a busy timeout and foreign keys.
    pub async fn open(path: &Path) -> Result<Store, StoreError> {
        let file = path.display().to_string();
        probe(path, &file, true).await?;
        // Another program's file is refused before anything is written to it (the open
        // below sets the journal mode, a write).
        if tokio::fs::metadata(path).await.is_ok_and(|meta| meta.len() > 0) {
            let probe = Store::connect_existing(path, file.clone()).await?;
            let foreign = probe.refuse_foreign_files().await;
            probe.close().await;
            foreign?;
        }
        let pool = open_sqlite(path, &file).await?;
        let store = Store { pool: Pool::Sqlite(pool), location: Location::File(path.to_path_buf()), file };
        store.refuse_foreign_files().await?;
        store.migrate().await?;
        Ok(store)
    }

    /// Opens a tournament's database for a run, a file ([`Store::open`]) or a
    /// PostgreSQL database (whose schema it brings up to date; the database must exist).
    /// `connections` is the most a PostgreSQL store opens at once (a worker's games, its
    /// heartbeats and its planning each take one while they run).
    pub async fn open_at(location: &Location, connections: u32) -> Result<Store, StoreError> {
        match location {
            Location::File(path) => Store::open(path).await,
            Location::Postgres(url) => {
                let store = Store::connect_postgres(url, connections).await?;
                store.prepare_shared().await?;
                Ok(store)
            }
        }
    }

    /// Opens an existing file for reading only (standings, reports); a missing file, a
    /// file that is not a results database or one whose schema differs is an error.
    ///
    /// Nothing is written, and nothing is left beside the file: a connection opened
    /// read-only to a file in WAL mode makes its `-wal` and `-shm` files when they are
    /// missing and cannot remove them when it closes (that takes a checkpoint), so where
    /// the file may be written the connection is opened for writing with SQLite's
    /// `query_only` set, which refuses every change to the database (a write through
    /// this store fails as on a read-only one) but lets the last connection to close
    /// fold the log back and remove the files, as SQLite does for every writer; a
    /// runner that has the file open keeps its own. A file that cannot be written is
    /// opened read-only.
    pub async fn open_read_only(path: &Path) -> Result<Store, StoreError> {
        let file = path.display().to_string();
        probe(path, &file, false).await?;
        let store = Store::connect_existing(path, file).await?;
        if let Err(err) = store.check_schema().await {
            store.close().await;
            return Err(err);
        }
        Ok(store)
    }

    /// One connection to a file that is there, which changes nothing in it (not even
    /// its journal mode; see [`Store::open_read_only`]).
    async fn connect_existing(path: &Path, file: String) -> Result<Store, StoreError> {
        let writable = tokio::fs::OpenOptions::new().write(true).open(path).await.is_ok();
        let options = SqliteConnectOptions::new()
            .filename(path)
            .read_only(!writable)
            .pragma("query_only", "ON")
            .busy_timeout(BUSY_TIMEOUT)
            .foreign_keys(true);
        let pool = SqlitePoolOptions::new()
            .max_connections(1)
            .connect_with(options)
            .await
            .map_err(|source| StoreError::Open { file: file.clone(), source })?;
        Ok(Store { pool: Pool::Sqlite(pool), location: Location::File(path.to_path_buf()), file })
    }

    /// Opens an existing results database for reading (standings, reports, replays): a
    /// file read-only ([`Store::open_read_only`]), or a PostgreSQL database whose schema
    /// must be this arbiter's (nothing is written to it).
    pub async fn open_read_only_at(location: &Location) -> Result<Store, StoreError> {
        match location {
            Location::File(path) => Store::open_read_only(path).await,
            Location::Postgres(url) => {
                let store = Store::connect_postgres(url, 2).await?;
                store.check_schema().await?;
                Ok(store)
            }
        }
    }

    /// Checks and migrates a PostgreSQL database holding a session advisory lock, so
    /// that workers starting together do it one at a time (two sessions creating
    /// sqlx's migrations table at once can collide in PostgreSQL's catalog). Closing the
    /// connection ends the lock.
    async fn prepare_shared(&self) -> Result<(), StoreError> {
        let Pool::Postgres(pool) = &self.pool else { return Ok(()) };
        let open_error = |source| StoreError::Open { file: self.file.clone(), source };
        let mut lock = pool.acquire().await.map_err(open_error)?;
        sqlx::query("SELECT pg_advisory_lock($1)").bind(PREPARE_LOCK_KEY).execute(&mut *lock).await.map_err(open_error)?;
        let prepared = async {
            self.refuse_foreign_files().await?;
            self.migrate().await
        }
        .await;
        let _ = lock.close().await;
        prepared
    }

    async fn connect_postgres(url: &str, connections: u32) -> Result<Store, StoreError> {
        let file = redact(url);
        let options = PgConnectOptions::from_str(url).map_err(|source| StoreError::Open { file: file.clone(), source })?;
        // One connection first, so that an unreachable server or a refused login is said
        // at once and as it is (the pool would retry until its timeout and say that).
        let first = <sqlx::PgConnection as sqlx::Connection>::connect_with(&options)
            .await
            .map_err(|source| StoreError::Open { file: file.clone(), source })?;
        let _ = sqlx::Connection::close(first).await;
        let pool = PgPoolOptions::new()
            .max_connections(connections.max(2))
            .acquire_timeout(BUSY_TIMEOUT)
            .connect_with(options)
            .await
            .map_err(|source| StoreError::Open { file: file.clone(), source })?;
        Ok(Store { pool: Pool::Postgres(pool), location: Location::Postgres(url.to_string()), file })
    }

    /// Where this store is.
    pub fn location(&self) -> &Location {
        &self.location
    }

    /// Whether this is a PostgreSQL database (which workers share).
    pub fn is_shared(&self) -> bool {
        matches!(self.pool, Pool::Postgres(_))
    }

    /// Closes the connections (a file's write-ahead log is checkpointed into it).
    /// Dropping the store without closing loses nothing: the next open reads the log.
    pub async fn close(&self) {
        on_pool!(self, |pool| pool.close().await)
    }

    /// Brings the schema up to date (sqlx's migrator; on PostgreSQL it holds an advisory
    /// lock meanwhile, so that workers starting together migrate once).
    async fn migrate(&self) -> Result<(), StoreError> {
        let mapped = |source| migrate_error(&self.file, source);
        match &self.pool {
            Pool::Sqlite(pool) => migrator(MIGRATIONS).run(pool).await.map_err(mapped),
            Pool::Postgres(pool) => migrator(PG_MIGRATIONS).run(pool).await.map_err(mapped),
        }
    }

    /// Takes this tournament's runner lock if no other runner holds it (else
    /// [`StoreError::Busy`], naming the holder): whoever plays a tournament's games holds
    /// it for the whole run.
    pub async fn lock_runner(&self) -> Result<RunnerLock, StoreError> {
        let Location::File(path) = self.location.clone() else {
            return Err(StoreError::NotFile { file: self.file.clone() });
        };
        tokio::task::spawn_blocking(move || RunnerLock::try_acquire(&path))
            .await
            .unwrap_or_else(|join| Err(StoreError::Lock { file: self.file.clone(), source: std::io::Error::other(join.to_string()) }))
    }

    /// Records the tournament on first use; later calls must give the same `config_hash`
    /// (else [`StoreError::OtherTournament`]), and then change nothing.
    pub async fn begin_tournament(&self, name: &str, config_text: &str, config_hash: &str) -> Result<(), StoreError> {
        on_pool!(self, |pool, begin| {
            let action = "record the tournament";
            let mut tx = pool.begin_with(begin).await.map_err(|e| self.query_error(action, e))?;
            let stored = sqlx::query("SELECT name, config_hash FROM tournament WHERE id = 1")
                .fetch_optional(&mut *tx)
                .await
                .map_err(|e| self.query_error(action, e))?;
            match stored {
                Some(row) => {
                    let stored_hash: String = row.try_get("config_hash").map_err(|e| self.query_error(action, e))?;
                    if stored_hash != config_hash {
                        let name: String = row.try_get("name").map_err(|e| self.query_error(action, e))?;
                        return Err(StoreError::OtherTournament { file: self.file.clone(), name });
                    }
                }
                None => {
                    sqlx::query("INSERT INTO tournament (id, name, config_text, config_hash, created_ms) VALUES (1, $1, $2, $3, $4)")
                        .bind(name)
                        .bind(config_text)
                        .bind(config_hash)
                        .bind(now_ms())
                        .execute(&mut *tx)
                        .await
                        .map_err(|e| self.query_error(action, e))?;
                }
            }
            tx.commit().await.map_err(|e| self.query_error(action, e))
        })
    }

    /// The tournament this file belongs to, if one was recorded.
    pub async fn tournament(&self) -> Result<Option<TournamentRow>, StoreError> {
        on_pool!(self, |pool| {
            let action = "read the tournament";
            let row = sqlx::query("SELECT name, config_text, config_hash, created_ms FROM tournament WHERE id = 1")
                .fetch_optional(pool)
                .await
                .map_err(|e| self.query_error(action, e))?;
            row.map(|row| {
                Ok(TournamentRow {
                    name: row.try_get("name")?,
                    config_text: row.try_get("config_text")?,
                    config_hash: row.try_get("config_hash")?,
                    created_ms: row.try_get("created_ms")?,
                })
            })
            .transpose()
            .map_err(|e| self.query_error(action, e))
        })
    }

    /// Stores the entrants. Idempotent: an entrant already stored under the same id and
    /// name is left as is, except that its `bot` and `submitted` take the new values (a
    /// bot may move between runs; fingerprints catch a changed program). The same id
    /// under another name is [`StoreError::OtherEntrant`].
    pub async fn save_entrants(&self, entrants: &[Entrant]) -> Result<(), StoreError> {
        on_pool!(self, |pool, begin| {
            let action = "save the entrants";
            let mut tx = pool.begin_with(begin).await.map_err(|e| self.query_error(action, e))?;
            for entrant in entrants {
                let id = to_i64(entrant.id);
                let stored: Option<String> = sqlx::query_scalar("SELECT name FROM entrants WHERE id = $1")
                    .bind(id)
                    .fetch_optional(&mut *tx)
                    .await
                    .map_err(|e| self.query_error(action, e))?;
                if let Some(stored) = stored
                    && stored != entrant.name
                {
                    return Err(StoreError::OtherEntrant { file: self.file.clone(), id: entrant.id, stored, given: entrant.name.clone() });
                }
                sqlx::query(
                    "INSERT INTO entrants (id, name, bot, submitted) VALUES ($1, $2, $3, $4) \
                     ON CONFLICT (id) DO UPDATE SET bot = excluded.bot, submitted = excluded.submitted",
                )
                .bind(id)
                .bind(&entrant.name)
                .bind(&entrant.bot)
                .bind(&entrant.submitted)
                .execute(&mut *tx)
                .await
                .map_err(|e| self.query_error(action, e))?;
            }
            tx.commit().await.map_err(|e| self.query_error(action, e))
        })
    }

    /// The stored entrants, by id.
    pub async fn entrants(&self) -> Result<Vec<Entrant>, StoreError> {
        on_pool!(self, |pool| {
            let action = "read the entrants";
            let rows = sqlx::query("SELECT id, name, bot, submitted FROM entrants ORDER BY id")
                .fetch_all(pool)
                .await
                .map_err(|e| self.query_error(action, e))?;
            rows.iter()
                .map(|row| {
                    Ok(Entrant {
                        id: self.entrant_id(row.try_get("id").map_err(|e| self.query_error(action, e))?)?,
                        name: row.try_get("name").map_err(|e| self.query_error(action, e))?,
                        bot: row.try_get("bot").map_err(|e| self.query_error(action, e))?,
                        submitted: row.try_get("submitted").map_err(|e| self.query_error(action, e))?,
                    })
                })
                .collect()
        })
    }

    /// Stores the fingerprints taken when `stage` started (SHA-256 of the program, `None`
    /// for built-in bots). Stored once per (stage, entrant): the first print saved
    /// stays, later saves for the same pair are ignored, so that a resumed run compares
    /// the programs against what the stage started with.
    pub async fn save_fingerprints(&self, stage: usize, prints: &[(EntrantId, Option<String>)]) -> Result<(), StoreError> {
        on_pool!(self, |pool, begin| {
            let action = "save the fingerprints";
            let mut tx = pool.begin_with(begin).await.map_err(|e| self.query_error(action, e))?;
            for (entrant, print) in prints {
                sqlx::query("INSERT INTO fingerprints (stage, entrant, sha256) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING")
                    .bind(to_i64(stage))
                    .bind(to_i64(*entrant))
                    .bind(print)
                    .execute(&mut *tx)
                    .await
                    .map_err(|e| self.query_error(action, e))?;
            }
            tx.commit().await.map_err(|e| self.query_error(action, e))
        })
    }

    /// The fingerprints stored for `stage`, by entrant.
    pub async fn fingerprints(&self, stage: usize) -> Result<Vec<(EntrantId, Option<String>)>, StoreError> {
        on_pool!(self, |pool| {
            let action = "read the fingerprints";
            let rows = sqlx::query("SELECT entrant, sha256 FROM fingerprints WHERE stage = $1 ORDER BY entrant")
                .bind(to_i64(stage))
                .fetch_all(pool)
                .await
                .map_err(|e| self.query_error(action, e))?;
            rows.iter()
                .map(|row| {
                    let entrant = self.entrant_id(row.try_get("entrant").map_err(|e| self.query_error(action, e))?)?;
                    let print = row.try_get("sha256").map_err(|e| self.query_error(action, e))?;
                    Ok((entrant, print))
                })
                .collect()
        })
    }

    /// Stores one finished game and its record (the referee's JSON) in one transaction.
    /// A finished game is never stored twice: a key already stored is left as first
    /// stored ([`Saved::Again`] with the same record, [`Saved::Kept`] with another). The
    /// record must be JSON; its players must be stored entrants.
    pub async fn save_game(&self, outcome: &GameOutcome, record_json: &str) -> Result<Saved, StoreError> {
        let action = "save a game";
        let outcome_json = game_json(outcome, record_json)?;
        on_pool!(self, |pool, begin| {
            let mut tx = pool.begin_with(begin).await.map_err(|e| self.query_error(action, e))?;
            let saved = insert_game!(self, action, tx, outcome, outcome_json, record_json);
            if saved == Saved::Stored {
                tx.commit().await.map_err(|e| self.query_error(action, e))?;
            }
            Ok(saved)
        })
    }

    /// Every finished game, in the order they were stored.
    pub async fn games(&self) -> Result<Vec<GameOutcome>, StoreError> {
        on_pool!(self, |pool| {
            let action = "read the games";
            // Rows are never deleted, so rowid order is insertion order.
            let rows: Vec<(String, String)> = sqlx::query_as("SELECT key, outcome FROM games ORDER BY rowid")
                .fetch_all(pool)
                .await
                .map_err(|e| self.query_error(action, e))?;
            rows.iter()
                .map(|(key, json)| {
                    serde_json::from_str(json).map_err(|error| StoreError::Damaged {
                        file: self.file.clone(),
                        what: "game outcome",
                        detail: format!("game {key:?}: {error}"),
                    })
                })
                .collect()
        })
    }

    /// How many games are stored (cheap: for watchers that poll for new games).
    pub async fn game_count(&self) -> Result<u64, StoreError> {
        on_pool!(self, |pool| {
            let count: i64 = sqlx::query_scalar("SELECT count(*) FROM games")
                .fetch_one(pool)
                .await
                .map_err(|e| self.query_error("count the games", e))?;
            Ok(count.max(0) as u64)
        })
    }

    /// The record (the referee's JSON) of the finished game with this key.
    pub async fn game_record(&self, key: &str) -> Result<Option<String>, StoreError> {
        on_pool!(self, |pool| {
            sqlx::query_scalar("SELECT record FROM game_records WHERE key = $1")
                .bind(key)
                .fetch_optional(pool)
                .await
                .map_err(|e| self.query_error("read a game record", e))
        })
    }

    /// Stores a decided stage's result (ranking and the like, as JSON from the runner);
    /// saving a stage again replaces its result.
    pub async fn save_stage_result(&self, stage: usize, result_json: &str) -> Result<(), StoreError> {
        on_pool!(self, |pool| {
            sqlx::query(
                "INSERT INTO stage_results (stage, result) VALUES ($1, $2) ON CONFLICT (stage) DO UPDATE SET result = excluded.result",
            )
            .bind(to_i64(stage))
            .bind(result_json)
            .execute(pool)
            .await
            .map_err(|e| self.query_error("save a stage result", e))?;
            Ok(())
        })
    }

    /// The decided stages' results, by stage.
    pub async fn stage_results(&self) -> Result<Vec<(usize, String)>, StoreError> {
        on_pool!(self, |pool| {
            let action = "read the stage results";
            let rows: Vec<(i64, String)> = sqlx::query_as("SELECT stage, result FROM stage_results ORDER BY stage")
                .fetch_all(pool)
                .await
                .map_err(|e| self.query_error(action, e))?;
            rows.into_iter().map(|(stage, result)| Ok((self.index("stage", stage)?, result))).collect()
        })
    }

    /// Stores a note for the organiser about a stage, and about an entrant if given. The
    /// same note (stage, entrant, text) saved again is stored once, so a resumed run does
    /// not repeat its notes.
    pub async fn save_note(&self, stage: usize, entrant: Option<EntrantId>, text: &str) -> Result<(), StoreError> {
        on_pool!(self, |pool| {
            sqlx::query("INSERT INTO notes (stage, entrant, text, stored_ms) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING")
                .bind(to_i64(stage))
                .bind(entrant.map(to_i64))
                .bind(text)
                .bind(now_ms())
                .execute(pool)
                .await
                .map_err(|e| self.query_error("save a note", e))?;
            Ok(())
        })
    }

    /// The notes, in the order they were first stored.
    pub async fn notes(&self) -> Result<Vec<(usize, Option<EntrantId>, String)>, StoreError> {
        on_pool!(self, |pool| {
            let action = "read the notes";
            let rows: Vec<(i64, Option<i64>, String)> = sqlx::query_as("SELECT stage, entrant, text FROM notes ORDER BY rowid")
                .fetch_all(pool)
                .await
                .map_err(|e| self.query_error(action, e))?;
            rows.into_iter()
                .map(|(stage, entrant, text)| Ok((self.index("stage", stage)?, entrant.map(|id| self.entrant_id(id)).transpose()?, text)))
                .collect()
        })
    }

    /// Refuses a file that holds tables but was not made by this crate, before the
    /// migrations would add ours beside them.
    async fn refuse_foreign_files(&self) -> Result<(), StoreError> {
        let listed = match &self.pool {
            Pool::Sqlite(pool) => {
                sqlx::query_scalar("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").fetch_all(pool).await
            }
            Pool::Postgres(pool) => {
                sqlx::query_scalar("SELECT table_name::text FROM information_schema.tables WHERE table_schema = current_schema()")
                    .fetch_all(pool)
                    .await
            }
        };
        let tables: Vec<String> = match listed {
            Ok(tables) => tables,
            Err(sqlx::Error::Database(_)) if self.location.is_file() => {
                return Err(StoreError::NotArbiter { file: self.file.clone(), why: DAMAGED });
            }
            Err(source) => return Err(StoreError::Open { file: self.file.clone(), source }),
        };
        if !tables.is_empty() && !tables.iter().any(|t| t == "_sqlx_migrations") {
            return Err(StoreError::NotArbiter { file: self.file.clone(), why: ANOTHER_PROGRAM });
        }
        Ok(())
    }

    /// Checks, without changing anything, that the file's schema is the one this crate
    /// writes.
    async fn check_schema(&self) -> Result<(), StoreError> {
        let sql = "SELECT version FROM _sqlx_migrations WHERE success ORDER BY version";
        let (read, migrations) = match &self.pool {
            Pool::Sqlite(pool) => (sqlx::query_scalar(sql).fetch_all(pool).await, MIGRATIONS),
            Pool::Postgres(pool) => (sqlx::query_scalar(sql).fetch_all(pool).await, PG_MIGRATIONS),
        };
        let versions: Vec<i64> = match read {
            Ok(versions) => versions,
            // SQLite's words, and PostgreSQL's code for an undefined table.
            Err(sqlx::Error::Database(error)) if error.message().contains("no such table") || error.code().as_deref() == Some("42P01") => {
                return Err(StoreError::NotArbiter { file: self.file.clone(), why: ANOTHER_PROGRAM });
            }
            // SQLite's "file is not a database" and the like: never its code.
            Err(sqlx::Error::Database(_)) if self.location.is_file() => {
                return Err(StoreError::NotArbiter { file: self.file.clone(), why: DAMAGED });
            }
            Err(source) => return Err(StoreError::Open { file: self.file.clone(), source }),
        };
        let known: Vec<i64> = migrations.iter().map(|(version, _, _)| *version).collect();
        if let Some(&version) = versions.iter().find(|v| !known.contains(v)) {
            return Err(StoreError::Newer { file: self.file.clone(), version });
        }
        if versions != known {
            return Err(StoreError::Older { file: self.file.clone() });
        }
        Ok(())
    }

    fn query_error(&self, action: &'static str, source: sqlx::Error) -> StoreError {
        StoreError::Query { file: self.file.clone(), action, source }
    }

    fn entrant_id(&self, id: i64) -> Result<EntrantId, StoreError> {
        self.index("entrant id", id)
    }

    fn index(&self, what: &'static str, value: i64) -> Result<usize, StoreError> {
        usize::try_from(value).map_err(|_| StoreError::Damaged { file: self.file.clone(), what, detail: format!("{value} is negative") })
    }
}

/// Opens (creating it if missing) the SQLite file at `path`, named `file` in messages, in
/// WAL mode with `synchronous=NORMAL`, a busy timeout and foreign keys.
pub(crate) async fn open_sqlite(path: &Path, file: &str) -> Result<SqlitePool, StoreError> {
    let options = SqliteConnectOptions::new()
        .filename(path)
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal)
        .synchronous(SqliteSynchronous::Normal)
        .busy_timeout(BUSY_TIMEOUT)
        .foreign_keys(true);
    SqlitePoolOptions::new()
        .max_connections(MAX_CONNECTIONS)
        .connect_with(options)
        .await
        .map_err(|source| StoreError::Open { file: file.to_string(), source })
}

/// A failed migration of `file`: a schema newer than this build's, or another failure.
pub(crate) fn migrate_error(file: &str, source: sqlx::migrate::MigrateError) -> StoreError {
    match source {
        sqlx::migrate::MigrateError::VersionMissing(version) => StoreError::Newer { file: file.to_string(), version },
        source => StoreError::Migrate { file: file.to_string(), source },
    }
}

/// A schema's migrations, built from the SQL files compiled into the binary.
pub(crate) fn migrator(migrations: &'static [(i64, &'static str, &'static str)]) -> Migrator {
    Migrator::with_migrations(
        migrations
            .iter()
            .map(|&(version, description, sql)| {
                Migration::new(version, Cow::Borrowed(description), MigrationType::Simple, sql.into_sql_str(), false)
            })
            .collect(),
    )
}

/// A count or index as an SQLite integer; values past `i64::MAX` (never met in
/// practice) are clamped, the outcome's JSON keeps them exactly.
fn to_i64<T: TryInto<i64>>(value: T) -> i64 {
    value.try_into().unwrap_or(i64::MAX)
}

pub(crate) fn now_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| to_i64(d.as_millis()))
}
