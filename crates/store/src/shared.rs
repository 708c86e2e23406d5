//! Shared work on a PostgreSQL database, or on a SQLite file that `arbiter serve` holds
//! for HTTP workers: workers introduce themselves, the planner of a tournament (whichever
//! worker needs it, under an advisory lock; on a file, the one server, under its own
//! lock) queues the games its schedules ask for, and workers lease them one at a time.
//!
//! A lease is the queue row's holder, its attempt number (raised by every claim) and an
//! expiry in the database's clock (so that the workers' clocks never matter). A holder
//! renews it while the game runs (on a file the expiry is the server's clock: one process
//! holds the file); a game whose lease expired (its worker died, hung or
//! lost the network) is claimed again by the next worker that looks, with the next
//! attempt number, and played again from the same seed. Only the holder of the current,
//! unexpired attempt stores the game: the check and the `games` row commit in one
//! transaction (a fenced write), so a worker presumed dead can never store a second
//! result.

use std::time::Duration;

use sqlx::Row;
use tournament::{GameOutcome, GameSpec};

use crate::{Pool, Saved, Store, StoreError, game_json, insert_game, now_ms, on_pool, to_i64};

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
/// On a file there is none (`None`): the one server that holds it plans under a lock of
/// its own.
pub struct PlanLock(Option<sqlx::Transaction<'static, sqlx::Postgres>>);

impl PlanLock {
    /// Lets the next planner in.
    pub async fn release(self) {
        // A failed commit ends the transaction (and the lock) all the same.
        if let Some(tx) = self.0 {
            let _ = tx.commit().await;
        }
    }
}

/// How many queued games wait, are leased, or wait again after an attempt that ended
/// without a stored result (for `/metrics`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QueueCounts {
    /// Not stored and not leased now (waiting for a claim).
    pub pending: u64,
    /// Leased now (unexpired).
    pub leased: u64,
    /// Of the pending, those claimed before (a lease that expired, a refused record, a
    /// referee's failure).
    pub failed: u64,
}

impl Store {
    /// Records a worker joining and returns its id (host, pid and the moment it joined).
    pub async fn register_worker(&self, info: &WorkerInfo) -> Result<String, StoreError> {
        self.register_worker_as("", info).await
    }

    /// [`Store::register_worker`] with an id that starts with `prefix` (an HTTP worker's
    /// name and a `/`, so that the server can tell whose a lease is from its holder).
    pub async fn register_worker_as(&self, prefix: &str, info: &WorkerInfo) -> Result<String, StoreError> {
        let started = now_ms();
        let id = format!("{prefix}{}:{}:{started}", info.host, info.pid);
        on_pool!(self, |pool| sqlx::query(
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
        .map_err(|e| self.query_error("record a worker", e))
        .map(|_| ()))?;
        Ok(id)
    }

    /// The workers that joined, with what they said of themselves, in the order they
    /// joined.
    pub async fn workers(&self) -> Result<Vec<(String, WorkerInfo)>, StoreError> {
        let sql = "SELECT id, host, pid, version, sandbox FROM workers ORDER BY started_ms, id";
        let rows = on_pool!(self, |pool| sqlx::query(sql)
            .fetch_all(pool)
            .await
            .map_err(|e| self.query_error("read the workers", e))?
            .iter()
            .map(|row| {
                let info = WorkerInfo {
                    host: row.try_get("host")?,
                    pid: u32::try_from(row.try_get::<i64, _>("pid")?).unwrap_or(0),
                    version: row.try_get("version")?,
                    sandbox: row.try_get("sandbox")?,
                };
                Ok((row.try_get("id")?, info))
            })
            .collect::<Result<Vec<_>, sqlx::Error>>());
        rows.map_err(|e| self.query_error("read the workers", e))
    }

    /// Which worker played each game a worker stored, by game key.
    pub async fn game_workers(&self) -> Result<Vec<(String, String)>, StoreError> {
        on_pool!(self, |pool| sqlx::query_as("SELECT key, worker FROM queue WHERE done ORDER BY seq")
            .fetch_all(pool)
            .await
            .map_err(|e| self.query_error("read who played the games", e)))
    }

    /// A setting the tournament was created with.
    pub async fn setting(&self, key: &str) -> Result<Option<String>, StoreError> {
        on_pool!(self, |pool| sqlx::query_scalar("SELECT value FROM settings WHERE key = $1")
            .bind(key)
            .fetch_optional(pool)
            .await
            .map_err(|e| self.query_error("read a setting", e)))
    }

    /// Stores a setting (a later save replaces it).
    pub async fn save_setting(&self, key: &str, value: &str) -> Result<(), StoreError> {
        on_pool!(self, |pool| sqlx::query(
            "INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value"
        )
        .bind(key)
        .bind(value)
        .execute(pool)
        .await
        .map_err(|e| self.query_error("save a setting", e))
        .map(|_| ()))?;
        Ok(())
    }

    /// Stores a bundle of files (a bot's folder, the config's files) under `owner`: its
    /// hash, its list (JSON) and the contents it names by SHA-256 (each content stored
    /// once: one already there is left as is). A later save under the same owner
    /// replaces the list. One transaction.
    pub async fn save_bundle(&self, owner: &str, sha256: &str, files_json: &str, blobs: &[(String, Vec<u8>)]) -> Result<(), StoreError> {
        let action = "store a bot's files";
        on_pool!(self, |pool, begin| {
            let mut tx = pool.begin_with(begin).await.map_err(|e| self.query_error(action, e))?;
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
        })
    }

    /// A bundle's hash and list (JSON), if one is stored under `owner`.
    pub async fn bundle(&self, owner: &str) -> Result<Option<(String, String)>, StoreError> {
        on_pool!(self, |pool| sqlx::query_as("SELECT sha256, files FROM bundles WHERE owner = $1")
            .bind(owner)
            .fetch_optional(pool)
            .await
            .map_err(|e| self.query_error("read a bot's files", e)))
    }

    /// A bundle's list (JSON) by its hash, if a bundle of that hash is stored (under any
    /// owner).
    pub async fn bundle_by_hash(&self, sha256: &str) -> Result<Option<String>, StoreError> {
        on_pool!(self, |pool| sqlx::query_scalar("SELECT files FROM bundles WHERE sha256 = $1 LIMIT 1")
            .bind(sha256)
            .fetch_optional(pool)
            .await
            .map_err(|e| self.query_error("read a bot's files", e)))
    }

    /// A stored content by its SHA-256 (as stored: the caller checks the hash).
    pub async fn blob(&self, sha256: &str) -> Result<Option<Vec<u8>>, StoreError> {
        on_pool!(self, |pool| sqlx::query_scalar("SELECT content FROM blobs WHERE sha256 = $1")
            .bind(sha256)
            .fetch_optional(pool)
            .await
            .map_err(|e| self.query_error("read a stored file", e)))
    }

    /// Waits for the planner's lock (see [`PlanLock`]); on a file, none is taken.
    pub async fn plan_lock(&self) -> Result<PlanLock, StoreError> {
        let Pool::Postgres(pool) = &self.pool else { return Ok(PlanLock(None)) };
        let action = "take the planner's lock";
        let mut tx = pool.begin().await.map_err(|e| self.query_error(action, e))?;
        sqlx::query("SELECT pg_advisory_xact_lock($1)")
            .bind(PLAN_LOCK_KEY)
            .execute(&mut *tx)
            .await
            .map_err(|e| self.query_error(action, e))?;
        Ok(PlanLock(Some(tx)))
    }

    /// Queues games a schedule asked for; a game queued before (or stored) is left as is.
    pub async fn enqueue(&self, games: &[GameSpec]) -> Result<(), StoreError> {
        let action = "queue games";
        on_pool!(self, |pool, begin| {
            let mut tx = pool.begin_with(begin).await.map_err(|e| self.query_error(action, e))?;
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
        })
    }

    /// Takes the oldest queued game that nobody holds (never leased, given back, or whose
    /// lease expired) for `length`, skipping rows other workers are claiming at this
    /// moment (`FOR UPDATE SKIP LOCKED`; a file has one writer at a time): each claim
    /// raises the game's attempt number.
    pub async fn claim(&self, worker: &str, length: Duration) -> Result<Option<Lease>, StoreError> {
        let action = "claim a game";
        let row: Option<(String, i64)> = match &self.pool {
            Pool::Postgres(pool) => {
                sqlx::query_as(
                    "UPDATE queue SET attempt = attempt + 1, worker = $1, lease_until = now() + make_interval(secs => $2) \
                 WHERE key = (SELECT key FROM queue WHERE NOT done AND (lease_until IS NULL OR lease_until < now()) \
                              ORDER BY seq LIMIT 1 FOR UPDATE SKIP LOCKED) \
                 RETURNING spec, attempt",
                )
                .bind(worker)
                .bind(length.as_secs_f64())
                .fetch_optional(pool)
                .await
            }
            Pool::Sqlite(pool) => {
                let now = now_ms();
                sqlx::query_as(
                    "UPDATE queue SET attempt = attempt + 1, worker = $1, lease_until = $2 \
                     WHERE key = (SELECT key FROM queue WHERE NOT done AND (lease_until IS NULL OR lease_until < $3) \
                                  ORDER BY seq LIMIT 1) \
                     RETURNING spec, attempt",
                )
                .bind(worker)
                .bind(now.saturating_add(to_i64(length.as_millis())))
                .bind(now)
                .fetch_optional(pool)
                .await
            }
        }
        .map_err(|e| self.query_error(action, e))?;
        let Some((spec, attempt)) = row else { return Ok(None) };
        Ok(Some(Lease { spec: self.queued_spec(&spec)?, attempt, worker: worker.to_string() }))
    }

    fn queued_spec(&self, json: &str) -> Result<GameSpec, StoreError> {
        serde_json::from_str(json).map_err(|error| StoreError::Damaged {
            file: self.file.clone(),
            what: "queued game",
            detail: error.to_string(),
        })
    }

    /// The lease of game `key` at `attempt` held by `worker`, if that is the game's
    /// current attempt and it is not stored (expired or not: [`Store::finish`] fences).
    pub async fn lease(&self, key: &str, attempt: i64, worker: &str) -> Result<Option<Lease>, StoreError> {
        let spec: Option<String> = on_pool!(self, |pool| sqlx::query_scalar(
            "SELECT spec FROM queue WHERE key = $1 AND attempt = $2 AND worker = $3 AND NOT done"
        )
        .bind(key)
        .bind(attempt)
        .bind(worker)
        .fetch_optional(pool)
        .await
        .map_err(|e| self.query_error("read a lease", e)))?;
        let Some(spec) = spec else { return Ok(None) };
        Ok(Some(Lease { spec: self.queued_spec(&spec)?, attempt, worker: worker.to_string() }))
    }

    /// Extends a lease by `length` from now; `false` when it is no longer this holder's
    /// (expired, or claimed again): the game is to be abandoned.
    pub async fn renew(&self, lease: &Lease, length: Duration) -> Result<bool, StoreError> {
        let renewed = match &self.pool {
            Pool::Postgres(pool) => sqlx::query(
                "UPDATE queue SET lease_until = now() + make_interval(secs => $4) \
                 WHERE key = $1 AND attempt = $2 AND worker = $3 AND NOT done AND lease_until > now()",
            )
            .bind(&lease.spec.key)
            .bind(lease.attempt)
            .bind(&lease.worker)
            .bind(length.as_secs_f64())
            .execute(pool)
            .await
            .map(|done| done.rows_affected()),
            Pool::Sqlite(pool) => {
                let now = now_ms();
                sqlx::query(
                    "UPDATE queue SET lease_until = $4 \
                     WHERE key = $1 AND attempt = $2 AND worker = $3 AND NOT done AND lease_until > $5",
                )
                .bind(&lease.spec.key)
                .bind(lease.attempt)
                .bind(&lease.worker)
                .bind(now.saturating_add(to_i64(length.as_millis())))
                .bind(now)
                .execute(pool)
                .await
                .map(|done| done.rows_affected())
            }
        }
        .map_err(|e| self.query_error("renew a lease", e))?;
        Ok(renewed == 1)
    }

    /// Gives a lease back unplayed (the referee failed, the worker stops, or its record
    /// was refused): the game is free for the next claim at once.
    pub async fn give_back(&self, lease: &Lease) -> Result<(), StoreError> {
        on_pool!(self, |pool| sqlx::query(
            "UPDATE queue SET lease_until = NULL WHERE key = $1 AND attempt = $2 AND worker = $3 AND NOT done"
        )
        .bind(&lease.spec.key)
        .bind(lease.attempt)
        .bind(&lease.worker)
        .execute(pool)
        .await
        .map_err(|e| self.query_error("give a lease back", e))
        .map(|_| ()))?;
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
        let action = "store a leased game";
        let outcome_json = game_json(outcome, record_json)?;
        on_pool!(self, |pool, begin| {
            let mut tx = pool.begin_with(begin).await.map_err(|e| self.query_error(action, e))?;
            // The database's clock on PostgreSQL; the server's on a file ($4 is ignored
            // there).
            let sql = if self.is_shared() {
                "UPDATE queue SET done = TRUE WHERE key = $1 AND attempt = $2 AND worker = $3 AND NOT done AND lease_until > now() AND $4 = $4"
            } else {
                "UPDATE queue SET done = TRUE WHERE key = $1 AND attempt = $2 AND worker = $3 AND NOT done AND lease_until > $4"
            };
            let fenced = sqlx::query(sql)
                .bind(&lease.spec.key)
                .bind(lease.attempt)
                .bind(&lease.worker)
                .bind(now_ms())
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
        })
    }

    /// How many queued games are not stored yet (leased or waiting).
    pub async fn open_games(&self) -> Result<u64, StoreError> {
        let count: i64 = on_pool!(self, |pool| sqlx::query_scalar("SELECT count(*) FROM queue WHERE NOT done")
            .fetch_one(pool)
            .await
            .map_err(|e| self.query_error("count the queued games", e)))?;
        Ok(count.max(0) as u64)
    }

    /// The queued games waiting, leased, and waiting again ([`QueueCounts`]).
    pub async fn queue_counts(&self) -> Result<QueueCounts, StoreError> {
        let action = "count the queued games";
        let (pending, leased, failed): (i64, i64, i64) = match &self.pool {
            Pool::Postgres(pool) => {
                sqlx::query_as(
                    "SELECT count(*) FILTER (WHERE lease_until IS NULL OR lease_until <= now()), \
                        count(*) FILTER (WHERE lease_until > now()), \
                        count(*) FILTER (WHERE attempt > 0 AND (lease_until IS NULL OR lease_until <= now())) \
                 FROM queue WHERE NOT done",
                )
                .fetch_one(pool)
                .await
            }
            Pool::Sqlite(pool) => {
                sqlx::query_as(
                    "SELECT coalesce(sum(lease_until IS NULL OR lease_until <= $1), 0), \
                        coalesce(sum(lease_until > $1), 0), \
                        coalesce(sum(attempt > 0 AND (lease_until IS NULL OR lease_until <= $1)), 0) \
                 FROM queue WHERE NOT done",
                )
                .bind(now_ms())
                .fetch_one(pool)
                .await
            }
        }
        .map_err(|e| self.query_error(action, e))?;
        let count = |n: i64| n.max(0) as u64;
        Ok(QueueCounts { pending: count(pending), leased: count(leased), failed: count(failed) })
    }

    /// The games leased now, with their holders and attempts (for people and tests).
    pub async fn leases(&self) -> Result<Vec<(String, String, i64)>, StoreError> {
        match &self.pool {
            Pool::Postgres(pool) => {
                sqlx::query_as("SELECT key, worker, attempt FROM queue WHERE NOT done AND lease_until > now() ORDER BY seq")
                    .fetch_all(pool)
                    .await
            }
            Pool::Sqlite(pool) => {
                sqlx::query_as("SELECT key, worker, attempt FROM queue WHERE NOT done AND lease_until > $1 ORDER BY seq")
                    .bind(now_ms())
                    .fetch_all(pool)
                    .await
            }
        }
        .map_err(|e| self.query_error("read the leases", e))
    }

    /// Drops the queued games of a decided stage that nobody stored (the schedule no
    /// longer needs them): their holders' stores are refused.
    pub async fn drop_queued(&self, stage: usize) -> Result<(), StoreError> {
        on_pool!(self, |pool| sqlx::query("DELETE FROM queue WHERE stage = $1 AND NOT done")
            .bind(to_i64(stage))
            .execute(pool)
            .await
            .map_err(|e| self.query_error("drop the games a decided stage no longer needs", e))
            .map(|_| ()))?;
        Ok(())
    }
}
