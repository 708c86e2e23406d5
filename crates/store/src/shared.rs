//! Shared work on a PostgreSQL database: workers introduce themselves, the planner of a
//! tournament (whichever worker needs it, under an advisory lock) queues the games its
//! schedules ask for, and workers lease them one at a time.
//!
//! A lease is the queue row's holder, its attempt number (raised by every claim) and an
//! expiry in the database's clock (so that the workers' clocks never matter). A holder
//! renews it while the game runs; a game whose lease expired (its worker died, hung or
//! lost the network) is claimed again by the next worker that looks, with the next
//! attempt number, and played again from the same seed. Only the holder of the current,
//! unexpired attempt stores the game: the check and the `games` row commit in one
//! transaction (a fenced write), so a worker presumed dead can never store a second
//! result.

use std::time::Duration;

use sqlx::Row;
use tournament::{GameOutcome, GameSpec};

use crate::{Pool, Saved, Store, StoreError, game_json, insert_game, now_ms, to_i64};

/// The key of the advisory lock that its planner holds while it expands a tournament's
/// schedules (one tournament per database, so one key).
const PLAN_LOCK_KEY: i64 = 0x0061_7262_6974_6572; // "arbiter" in ASCII

/// Who a worker is, as it tells the database when it joins.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkerInfo {
    pub host: String,
    pub pid: u32,
    /// The arbiter version it runs.
    pub version: String,
    /// Its sandbox level (`full`, `degraded: ...`, `none`).
    pub sandbox: String,
}

impl WorkerInfo {
    /// This process on this machine.
    pub fn here(version: &str, sandbox: &str) -> WorkerInfo {
        WorkerInfo { host: crate::lock::host_name(), pid: std::process::id(), version: version.to_string(), sandbox: sandbox.to_string() }
    }
}

/// A game leased to a worker: only this attempt's holder may store it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lease {
    pub spec: GameSpec,
    pub attempt: i64,
    pub worker: String,
}

/// What became of a leased game handed to [`Store::finish`].
#[derive(Clone, Debug, PartialEq)]
pub enum Finished {
    /// Stored (or stored before with the same record, by an older attempt whose commit
    /// was not seen).
    Stored(Saved),
    /// The lease was no longer this worker's (it expired, and another attempt may be
    /// under way or done): nothing was stored.
    Stale,
}

/// The planner's lock: held (a transaction-level advisory lock) until released or
/// dropped, and by the database until the holder's connection ends, so a killed
/// planner never blocks the others.
pub struct PlanLock(sqlx::Transaction<'static, sqlx::Postgres>);

impl PlanLock {
    /// Lets the next planner in.
    pub async fn release(self) {
        // A failed commit ends the transaction (and the lock) all the same.
        let _ = self.0.commit().await;
    }
}

impl Store {
    fn postgres(&self) -> Result<&sqlx::PgPool, StoreError> {
        match &self.pool {
            Pool::Postgres(pool) => Ok(pool),
            Pool::Sqlite(_) => Err(StoreError::NotShared { file: self.file.clone() }),
        }
    }

    /// Records a worker joining and returns its id (host, pid and the moment it joined).
    pub async fn register_worker(&self, info: &WorkerInfo) -> Result<String, StoreError> {
        let pool = self.postgres()?;
        let started = now_ms();
        let id = format!("{}:{}:{started}", info.host, info.pid);
        sqlx::query(
            "INSERT INTO workers (id, host, pid, version, sandbox, started_ms) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO NOTHING",
        )
        .bind(&id)
        .bind(&info.host)
        .bind(i64::from(info.pid))
        .bind(&info.version)
        .bind(&info.sandbox)
        .bind(started)
        .execute(pool)
        .await
        .map_err(|e| self.query_error("record a worker", e))?;
        Ok(id)
    }

    /// The workers that joined, with what they said of themselves, in the order they
    /// joined.
    pub async fn workers(&self) -> Result<Vec<(String, WorkerInfo)>, StoreError> {
        let pool = self.postgres()?;
        let rows = sqlx::query("SELECT id, host, pid, version, sandbox FROM workers ORDER BY started_ms, id")
            .fetch_all(pool)
            .await
            .map_err(|e| self.query_error("read the workers", e))?;
        rows.iter()
            .map(|row| {
                let info = WorkerInfo {
                    host: row.try_get("host")?,
                    pid: u32::try_from(row.try_get::<i64, _>("pid")?).unwrap_or(0),
                    version: row.try_get("version")?,
                    sandbox: row.try_get("sandbox")?,
                };
                Ok((row.try_get("id")?, info))
            })
            .collect::<Result<_, sqlx::Error>>()
            .map_err(|e| self.query_error("read the workers", e))
    }

    /// Which worker played each game a worker stored, by game key.
    pub async fn game_workers(&self) -> Result<Vec<(String, String)>, StoreError> {
        let pool = self.postgres()?;
        sqlx::query_as("SELECT key, worker FROM queue WHERE done ORDER BY seq")
            .fetch_all(pool)
            .await
            .map_err(|e| self.query_error("read who played the games", e))
    }

    /// A setting the tournament was created with.
    pub async fn setting(&self, key: &str) -> Result<Option<String>, StoreError> {
        let pool = self.postgres()?;
        sqlx::query_scalar("SELECT value FROM settings WHERE key = $1")
            .bind(key)
            .fetch_optional(pool)
            .await
            .map_err(|e| self.query_error("read a setting", e))
    }

    /// Stores a setting (a later save replaces it).
    pub async fn save_setting(&self, key: &str, value: &str) -> Result<(), StoreError> {
        let pool = self.postgres()?;
        sqlx::query("INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value")
            .bind(key)
            .bind(value)
            .execute(pool)
            .await
            .map_err(|e| self.query_error("save a setting", e))?;
        Ok(())
    }

    /// Stores a bundle of files (a bot's folder, the config's files) under `owner`: its
    /// hash, its list (JSON) and the contents it names by SHA-256 (each content stored
    /// once: one already there is left as is). A later save under the same owner
    /// replaces the list. One transaction.
    pub async fn save_bundle(&self, owner: &str, sha256: &str, files_json: &str, blobs: &[(String, Vec<u8>)]) -> Result<(), StoreError> {
        let pool = self.postgres()?;
        let action = "store a bot's files";
        let mut tx = pool.begin().await.map_err(|e| self.query_error(action, e))?;
        for (hash, content) in blobs {
            sqlx::query("INSERT INTO blobs (sha256, content) VALUES ($1, $2) ON CONFLICT (sha256) DO NOTHING")
                .bind(hash)
                .bind(content.as_slice())
                .execute(&mut *tx)
                .await
                .map_err(|e| self.query_error(action, e))?;
        }
        sqlx::query(
            "INSERT INTO bundles (owner, sha256, files) VALUES ($1, $2, $3) \
             ON CONFLICT (owner) DO UPDATE SET sha256 = excluded.sha256, files = excluded.files",
        )
        .bind(owner)
        .bind(sha256)
        .bind(files_json)
        .execute(&mut *tx)
        .await
        .map_err(|e| self.query_error(action, e))?;
        tx.commit().await.map_err(|e| self.query_error(action, e))
    }

    /// A bundle's hash and list (JSON), if one is stored under `owner`.
    pub async fn bundle(&self, owner: &str) -> Result<Option<(String, String)>, StoreError> {
        let pool = self.postgres()?;
        sqlx::query_as("SELECT sha256, files FROM bundles WHERE owner = $1")
            .bind(owner)
            .fetch_optional(pool)
            .await
            .map_err(|e| self.query_error("read a bot's files", e))
    }

    /// A stored content by its SHA-256 (as stored: the caller checks the hash).
    pub async fn blob(&self, sha256: &str) -> Result<Option<Vec<u8>>, StoreError> {
        let pool = self.postgres()?;
        sqlx::query_scalar("SELECT content FROM blobs WHERE sha256 = $1")
            .bind(sha256)
            .fetch_optional(pool)
            .await
            .map_err(|e| self.query_error("read a stored file", e))
    }

    /// Waits for the planner's lock (see [`PlanLock`]).
    pub async fn plan_lock(&self) -> Result<PlanLock, StoreError> {
        let pool = self.postgres()?;
        let action = "take the planner's lock";
        let mut tx = pool.begin().await.map_err(|e| self.query_error(action, e))?;
        sqlx::query("SELECT pg_advisory_xact_lock($1)")
            .bind(PLAN_LOCK_KEY)
            .execute(&mut *tx)
            .await
            .map_err(|e| self.query_error(action, e))?;
        Ok(PlanLock(tx))
    }

    /// Queues games a schedule asked for; a game queued before (or stored) is left as is.
    pub async fn enqueue(&self, games: &[GameSpec]) -> Result<(), StoreError> {
        let pool = self.postgres()?;
        let action = "queue games";
        let mut tx = pool.begin().await.map_err(|e| self.query_error(action, e))?;
        for spec in games {
            let json = serde_json::to_string(spec).expect("a game spec serialises");
            sqlx::query("INSERT INTO queue (key, stage, spec) VALUES ($1, $2, $3) ON CONFLICT (key) DO NOTHING")
                .bind(&spec.key)
                .bind(to_i64(spec.stage))
                .bind(json)
                .execute(&mut *tx)
                .await
                .map_err(|e| self.query_error(action, e))?;
        }
        tx.commit().await.map_err(|e| self.query_error(action, e))
    }

    /// Takes the oldest queued game that nobody holds (never leased, given back, or whose
    /// lease expired) for `length`, skipping rows other workers are claiming at this
    /// moment (`FOR UPDATE SKIP LOCKED`): each claim raises the game's attempt number.
    pub async fn claim(&self, worker: &str, length: Duration) -> Result<Option<Lease>, StoreError> {
        let pool = self.postgres()?;
        let action = "claim a game";
        let row: Option<(String, i64)> = sqlx::query_as(
            "UPDATE queue SET attempt = attempt + 1, worker = $1, lease_until = now() + make_interval(secs => $2) \
             WHERE key = (SELECT key FROM queue WHERE NOT done AND (lease_until IS NULL OR lease_until < now()) \
                          ORDER BY seq LIMIT 1 FOR UPDATE SKIP LOCKED) \
             RETURNING spec, attempt",
        )
        .bind(worker)
        .bind(length.as_secs_f64())
        .fetch_optional(pool)
        .await
        .map_err(|e| self.query_error(action, e))?;
        let Some((spec, attempt)) = row else { return Ok(None) };
        let spec = serde_json::from_str(&spec).map_err(|error| StoreError::Damaged {
            file: self.file.clone(),
            what: "queued game",
            detail: error.to_string(),
        })?;
        Ok(Some(Lease { spec, attempt, worker: worker.to_string() }))
    }

    /// Extends a lease by `length` from now; `false` when it is no longer this holder's
    /// (expired, or claimed again): the game is to be abandoned.
    pub async fn renew(&self, lease: &Lease, length: Duration) -> Result<bool, StoreError> {
        let pool = self.postgres()?;
        let renewed = sqlx::query(
            "UPDATE queue SET lease_until = now() + make_interval(secs => $4) \
             WHERE key = $1 AND attempt = $2 AND worker = $3 AND NOT done AND lease_until > now()",
        )
        .bind(&lease.spec.key)
        .bind(lease.attempt)
        .bind(&lease.worker)
        .bind(length.as_secs_f64())
        .execute(pool)
        .await
        .map_err(|e| self.query_error("renew a lease", e))?;
        Ok(renewed.rows_affected() == 1)
    }

    /// Gives a lease back unplayed (the referee failed, or the worker stops): the game is
    /// free for the next claim at once.
    pub async fn give_back(&self, lease: &Lease) -> Result<(), StoreError> {
        let pool = self.postgres()?;
        sqlx::query("UPDATE queue SET lease_until = NULL WHERE key = $1 AND attempt = $2 AND worker = $3 AND NOT done")
            .bind(&lease.spec.key)
            .bind(lease.attempt)
            .bind(&lease.worker)
            .execute(pool)
            .await
            .map_err(|e| self.query_error("give a lease back", e))?;
        Ok(())
    }

    /// Stores a leased game and its record if the lease is still this holder's current,
    /// unexpired attempt, and ends the lease, in one transaction; else stores nothing
    /// ([`Finished::Stale`]). `before_commit` runs after the checks and inserts, before
    /// the commit (tests stop a worker there).
    pub async fn finish(
        &self,
        lease: &Lease,
        outcome: &GameOutcome,
        record_json: &str,
        before_commit: impl Future<Output = ()>,
    ) -> Result<Finished, StoreError> {
        let pool = self.postgres()?;
        let action = "store a leased game";
        let outcome_json = game_json(outcome, record_json)?;
        let mut tx = pool.begin().await.map_err(|e| self.query_error(action, e))?;
        let fenced = sqlx::query(
            "UPDATE queue SET done = TRUE WHERE key = $1 AND attempt = $2 AND worker = $3 AND NOT done AND lease_until > now()",
        )
        .bind(&lease.spec.key)
        .bind(lease.attempt)
        .bind(&lease.worker)
        .execute(&mut *tx)
        .await
        .map_err(|e| self.query_error(action, e))?;
        if fenced.rows_affected() != 1 {
            return Ok(Finished::Stale);
        }
        let saved = insert_game!(self, action, tx, outcome, outcome_json, record_json);
        before_commit.await;
        tx.commit().await.map_err(|e| self.query_error(action, e))?;
        Ok(Finished::Stored(saved))
    }

    /// How many queued games are not stored yet (leased or waiting).
    pub async fn open_games(&self) -> Result<u64, StoreError> {
        let pool = self.postgres()?;
        let count: i64 = sqlx::query_scalar("SELECT count(*) FROM queue WHERE NOT done")
            .fetch_one(pool)
            .await
            .map_err(|e| self.query_error("count the queued games", e))?;
        Ok(count.max(0) as u64)
    }

    /// The games leased now, with their holders and attempts (for people and tests).
    pub async fn leases(&self) -> Result<Vec<(String, String, i64)>, StoreError> {
        let pool = self.postgres()?;
        sqlx::query_as("SELECT key, worker, attempt FROM queue WHERE NOT done AND lease_until > now() ORDER BY seq")
            .fetch_all(pool)
            .await
            .map_err(|e| self.query_error("read the leases", e))
    }

    /// Drops the queued games of a decided stage that nobody stored (the schedule no
    /// longer needs them): their holders' stores are refused.
    pub async fn drop_queued(&self, stage: usize) -> Result<(), StoreError> {
        let pool = self.postgres()?;
        sqlx::query("DELETE FROM queue WHERE stage = $1 AND NOT done")
            .bind(to_i64(stage))
            .execute(pool)
            .await
            .map_err(|e| self.query_error("drop the games a decided stage no longer needs", e))?;
        Ok(())
    }
}
