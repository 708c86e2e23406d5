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

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::de::IgnoredAny;
use sqlx::migrate::{Migration, MigrationType, Migrator};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{Row, SqlSafeStr};
use tournament::{Entrant, EntrantId, GameOutcome};

pub use arena::{ArenaStore, EntrantRow, LadderGame, LadderPlayer, LadderResult, LadderRow, RatingPoint};
pub use lock::{Holder, HolderInfo, RunnerLock, lock_path};

/// The schema, oldest first; `include_str!` keeps the binary self-contained.
const MIGRATIONS: &[(i64, &str, &str)] = &[(1, "initial", include_str!("../migrations/0001_initial.sql"))];

/// How long a connection waits for another writer (another process on the same file, or
/// a checkpoint) before it reports the file busy.
const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// Connections of a read-write store: writes are serialised by SQLite anyway; the extra
/// connections let reads run beside a write.
const MAX_CONNECTIONS: u32 = 4;

/// Why a database call failed. Every message names the file.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("cannot open {file}: no such file")]
    Missing { file: String },
    #[error("cannot open {file}: {source}")]
    Open { file: String, source: sqlx::Error },
    #[error("{file} is not an arbiter results database")]
    NotArbiter { file: String },
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

/// An open results database.
#[derive(Clone, Debug)]
pub struct Store {
    pool: SqlitePool,
    /// The file's path, for its runner's lock.
    path: PathBuf,
    /// The path as the caller gave it, for messages.
    file: String,
}

impl Store {
    /// Opens the file for a tournament run: creates it if missing, brings its schema up
    /// to date, and sets WAL mode, `synchronous=NORMAL`, a busy timeout and foreign keys.
    pub async fn open(path: &Path) -> Result<Store, StoreError> {
        let file = path.display().to_string();
        let options = SqliteConnectOptions::new()
            .filename(path)
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal)
            .busy_timeout(BUSY_TIMEOUT)
            .foreign_keys(true);
        let pool = SqlitePoolOptions::new()
            .max_connections(MAX_CONNECTIONS)
            .connect_with(options)
            .await
            .map_err(|source| StoreError::Open { file: file.clone(), source })?;
        let store = Store { pool, path: path.to_path_buf(), file };
        store.refuse_foreign_files().await?;
        migrator().run(&store.pool).await.map_err(|source| match source {
            sqlx::migrate::MigrateError::VersionMissing(version) => StoreError::Newer { file: store.file.clone(), version },
            source => StoreError::Migrate { file: store.file.clone(), source },
        })?;
        Ok(store)
    }

    /// Opens an existing file for reading only (standings, reports); a missing file, a
    /// file that is not a results database or one whose schema differs is an error.
    pub async fn open_read_only(path: &Path) -> Result<Store, StoreError> {
        let file = path.display().to_string();
        match tokio::fs::metadata(path).await {
            Ok(_) => {}
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Err(StoreError::Missing { file }),
            Err(error) => return Err(StoreError::Open { file, source: sqlx::Error::Io(error) }),
        }
        let options = SqliteConnectOptions::new().filename(path).read_only(true).busy_timeout(BUSY_TIMEOUT).foreign_keys(true);
        let pool = SqlitePoolOptions::new()
            .max_connections(1)
            .connect_with(options)
            .await
            .map_err(|source| StoreError::Open { file: file.clone(), source })?;
        let store = Store { pool, path: path.to_path_buf(), file };
        store.check_schema().await?;
        Ok(store)
    }

    /// Closes the connections, checkpointing the write-ahead log into the file. Dropping
    /// the store without closing loses nothing: the next open reads the log.
    pub async fn close(&self) {
        self.pool.close().await;
    }

    /// Takes this tournament's runner lock if no other runner holds it (else
    /// [`StoreError::Busy`], naming the holder): whoever plays a tournament's games holds
    /// it for the whole run.
    pub async fn lock_runner(&self) -> Result<RunnerLock, StoreError> {
        let path = self.path.clone();
        tokio::task::spawn_blocking(move || RunnerLock::try_acquire(&path))
            .await
            .unwrap_or_else(|join| Err(StoreError::Lock { file: self.file.clone(), source: std::io::Error::other(join.to_string()) }))
    }

    /// Records the tournament on first use; later calls must give the same `config_hash`
    /// (else [`StoreError::OtherTournament`]), and then change nothing.
    pub async fn begin_tournament(&self, name: &str, config_text: &str, config_hash: &str) -> Result<(), StoreError> {
        let action = "record the tournament";
        let mut tx = self.pool.begin_with("BEGIN IMMEDIATE").await.map_err(|e| self.query_error(action, e))?;
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
                sqlx::query("INSERT INTO tournament (id, name, config_text, config_hash, created_ms) VALUES (1, ?, ?, ?, ?)")
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
    }

    /// The tournament this file belongs to, if one was recorded.
    pub async fn tournament(&self) -> Result<Option<TournamentRow>, StoreError> {
        let action = "read the tournament";
        let row = sqlx::query("SELECT name, config_text, config_hash, created_ms FROM tournament WHERE id = 1")
            .fetch_optional(&self.pool)
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
    }

    /// Stores the entrants. Idempotent: an entrant already stored under the same id and
    /// name is left as is, except that its `bot` and `submitted` take the new values (a
    /// bot may move between runs; fingerprints catch a changed program). The same id
    /// under another name is [`StoreError::OtherEntrant`].
    pub async fn save_entrants(&self, entrants: &[Entrant]) -> Result<(), StoreError> {
        let action = "save the entrants";
        let mut tx = self.pool.begin_with("BEGIN IMMEDIATE").await.map_err(|e| self.query_error(action, e))?;
        for entrant in entrants {
            let id = to_i64(entrant.id);
            let stored: Option<String> = sqlx::query_scalar("SELECT name FROM entrants WHERE id = ?")
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
                "INSERT INTO entrants (id, name, bot, submitted) VALUES (?, ?, ?, ?) \
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
    }

    /// The stored entrants, by id.
    pub async fn entrants(&self) -> Result<Vec<Entrant>, StoreError> {
        let action = "read the entrants";
        let rows = sqlx::query("SELECT id, name, bot, submitted FROM entrants ORDER BY id")
            .fetch_all(&self.pool)
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
    }

    /// Stores the fingerprints taken when `stage` started (SHA-256 of the program, `None`
    /// for built-in bots). Stored once per (stage, entrant): the first print saved
    /// stays, later saves for the same pair are ignored, so that a resumed run compares
    /// the programs against what the stage started with.
    pub async fn save_fingerprints(&self, stage: usize, prints: &[(EntrantId, Option<String>)]) -> Result<(), StoreError> {
        let action = "save the fingerprints";
        let mut tx = self.pool.begin_with("BEGIN IMMEDIATE").await.map_err(|e| self.query_error(action, e))?;
        for (entrant, print) in prints {
            sqlx::query("INSERT INTO fingerprints (stage, entrant, sha256) VALUES (?, ?, ?) ON CONFLICT DO NOTHING")
                .bind(to_i64(stage))
                .bind(to_i64(*entrant))
                .bind(print)
                .execute(&mut *tx)
                .await
                .map_err(|e| self.query_error(action, e))?;
        }
        tx.commit().await.map_err(|e| self.query_error(action, e))
    }

    /// The fingerprints stored for `stage`, by entrant.
    pub async fn fingerprints(&self, stage: usize) -> Result<Vec<(EntrantId, Option<String>)>, StoreError> {
        let action = "read the fingerprints";
        let rows = sqlx::query("SELECT entrant, sha256 FROM fingerprints WHERE stage = ? ORDER BY entrant")
            .bind(to_i64(stage))
            .fetch_all(&self.pool)
            .await
            .map_err(|e| self.query_error(action, e))?;
        rows.iter()
            .map(|row| {
                let entrant = self.entrant_id(row.try_get("entrant").map_err(|e| self.query_error(action, e))?)?;
                let print = row.try_get("sha256").map_err(|e| self.query_error(action, e))?;
                Ok((entrant, print))
            })
            .collect()
    }

    /// Stores one finished game and its record (the referee's JSON) in one transaction.
    /// A finished game is never stored twice: a key already stored is left as first
    /// stored ([`Saved::Again`] with the same record, [`Saved::Kept`] with another). The
    /// record must be JSON; its players must be stored entrants.
    pub async fn save_game(&self, outcome: &GameOutcome, record_json: &str) -> Result<Saved, StoreError> {
        let action = "save a game";
        let spec = &outcome.spec;
        serde_json::from_str::<IgnoredAny>(record_json).map_err(|source| StoreError::BadRecord { key: spec.key.clone(), source })?;
        let outcome_json = serde_json::to_string(outcome).expect("a game outcome always serialises");
        let mut tx = self.pool.begin_with("BEGIN IMMEDIATE").await.map_err(|e| self.query_error(action, e))?;
        let inserted = sqlx::query(
            "INSERT INTO games (key, stage, round, match_key, player0, player1, opening, seed, winner, score0, score1, \
             fault_side, fault_kind, moves0, moves1, time_ms0, time_ms1, outcome, stored_ms) \
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(&spec.key)
        .bind(to_i64(spec.stage))
        .bind(spec.round)
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
        .bind(outcome.moves[0])
        .bind(outcome.moves[1])
        .bind(to_i64(outcome.time_ms[0]))
        .bind(to_i64(outcome.time_ms[1]))
        .bind(&outcome_json)
        .bind(now_ms())
        .execute(&mut *tx)
        .await;
        match inserted {
            Ok(_) => {}
            Err(sqlx::Error::Database(error)) if error.is_unique_violation() => {
                let stored: Option<(String, String)> =
                    sqlx::query_as("SELECT g.outcome, r.record FROM games g JOIN game_records r ON r.key = g.key WHERE g.key = ?")
                        .bind(&spec.key)
                        .fetch_optional(&mut *tx)
                        .await
                        .map_err(|e| self.query_error(action, e))?;
                let Some((stored_outcome, stored_record)) = stored else {
                    return Err(StoreError::Damaged {
                        file: self.file.clone(),
                        what: "game",
                        detail: format!("game {:?} has no record", spec.key),
                    });
                };
                if stored_record == record_json {
                    return Ok(Saved::Again);
                }
                let kept = serde_json::from_str(&stored_outcome).map_err(|error| StoreError::Damaged {
                    file: self.file.clone(),
                    what: "game outcome",
                    detail: format!("game {:?}: {error}", spec.key),
                })?;
                return Ok(Saved::Kept(Box::new(kept)));
            }
            Err(error) => return Err(self.query_error(action, error)),
        }
        sqlx::query("INSERT INTO game_records (key, record) VALUES (?, ?)")
            .bind(&spec.key)
            .bind(record_json)
            .execute(&mut *tx)
            .await
            .map_err(|e| self.query_error(action, e))?;
        tx.commit().await.map_err(|e| self.query_error(action, e))?;
        Ok(Saved::Stored)
    }

    /// Every finished game, in the order they were stored.
    pub async fn games(&self) -> Result<Vec<GameOutcome>, StoreError> {
        let action = "read the games";
        // Rows are never deleted, so rowid order is insertion order.
        let rows: Vec<(String, String)> = sqlx::query_as("SELECT key, outcome FROM games ORDER BY rowid")
            .fetch_all(&self.pool)
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
    }

    /// How many games are stored (cheap: for watchers that poll for new games).
    pub async fn game_count(&self) -> Result<u64, StoreError> {
        let count: i64 = sqlx::query_scalar("SELECT count(*) FROM games")
            .fetch_one(&self.pool)
            .await
            .map_err(|e| self.query_error("count the games", e))?;
        Ok(count.max(0) as u64)
    }

    /// The record (the referee's JSON) of the finished game with this key.
    pub async fn game_record(&self, key: &str) -> Result<Option<String>, StoreError> {
        sqlx::query_scalar("SELECT record FROM game_records WHERE key = ?")
            .bind(key)
            .fetch_optional(&self.pool)
            .await
            .map_err(|e| self.query_error("read a game record", e))
    }

    /// Stores a decided stage's result (ranking and the like, as JSON from the runner);
    /// saving a stage again replaces its result.
    pub async fn save_stage_result(&self, stage: usize, result_json: &str) -> Result<(), StoreError> {
        sqlx::query("INSERT INTO stage_results (stage, result) VALUES (?, ?) ON CONFLICT (stage) DO UPDATE SET result = excluded.result")
            .bind(to_i64(stage))
            .bind(result_json)
            .execute(&self.pool)
            .await
            .map_err(|e| self.query_error("save a stage result", e))?;
        Ok(())
    }

    /// The decided stages' results, by stage.
    pub async fn stage_results(&self) -> Result<Vec<(usize, String)>, StoreError> {
        let action = "read the stage results";
        let rows: Vec<(i64, String)> = sqlx::query_as("SELECT stage, result FROM stage_results ORDER BY stage")
            .fetch_all(&self.pool)
            .await
            .map_err(|e| self.query_error(action, e))?;
        rows.into_iter().map(|(stage, result)| Ok((self.index("stage", stage)?, result))).collect()
    }

    /// Stores a note for the organiser about a stage, and about an entrant if given. The
    /// same note (stage, entrant, text) saved again is stored once, so a resumed run does
    /// not repeat its notes.
    pub async fn save_note(&self, stage: usize, entrant: Option<EntrantId>, text: &str) -> Result<(), StoreError> {
        sqlx::query("INSERT INTO notes (stage, entrant, text, stored_ms) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING")
            .bind(to_i64(stage))
            .bind(entrant.map(to_i64))
            .bind(text)
            .bind(now_ms())
            .execute(&self.pool)
            .await
            .map_err(|e| self.query_error("save a note", e))?;
        Ok(())
    }

    /// The notes, in the order they were first stored.
    pub async fn notes(&self) -> Result<Vec<(usize, Option<EntrantId>, String)>, StoreError> {
        let action = "read the notes";
        let rows: Vec<(i64, Option<i64>, String)> = sqlx::query_as("SELECT stage, entrant, text FROM notes ORDER BY rowid")
            .fetch_all(&self.pool)
            .await
            .map_err(|e| self.query_error(action, e))?;
        rows.into_iter()
            .map(|(stage, entrant, text)| Ok((self.index("stage", stage)?, entrant.map(|id| self.entrant_id(id)).transpose()?, text)))
            .collect()
    }

    /// Refuses a file that holds tables but was not made by this crate, before the
    /// migrations would add ours beside them.
    async fn refuse_foreign_files(&self) -> Result<(), StoreError> {
        let tables: Vec<String> = sqlx::query_scalar("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
            .fetch_all(&self.pool)
            .await
            .map_err(|source| StoreError::Open { file: self.file.clone(), source })?;
        if !tables.is_empty() && !tables.iter().any(|t| t == "_sqlx_migrations") {
            return Err(StoreError::NotArbiter { file: self.file.clone() });
        }
        Ok(())
    }

    /// Checks, without changing anything, that the file's schema is the one this crate
    /// writes.
    async fn check_schema(&self) -> Result<(), StoreError> {
        let versions: Vec<i64> =
            match sqlx::query_scalar("SELECT version FROM _sqlx_migrations WHERE success ORDER BY version").fetch_all(&self.pool).await {
                Ok(versions) => versions,
                Err(sqlx::Error::Database(error)) if error.message().contains("no such table") => {
                    return Err(StoreError::NotArbiter { file: self.file.clone() });
                }
                Err(source) => return Err(StoreError::Open { file: self.file.clone(), source }),
            };
        let known: Vec<i64> = MIGRATIONS.iter().map(|(version, _, _)| *version).collect();
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

/// The schema's migrations, built from the SQL files compiled into the binary.
fn migrator() -> Migrator {
    Migrator::with_migrations(
        MIGRATIONS
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
