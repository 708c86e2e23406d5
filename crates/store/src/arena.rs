//! The web arena's own database (`arena.db` in its data folder), apart from the
//! tournament files: entrants and their token hashes, the owners of registered bots, and
//! the ladders with their players, games and rating history.

use std::path::Path;

use sqlx::Row;
use sqlx::sqlite::SqlitePool;

use crate::{StoreError, now_ms};

/// The arena database's schema, oldest first (numbered after the tournament schema's,
/// in the same folder).
const ARENA_MIGRATIONS: &[(i64, &str, &str)] = &[
    (2, "arena_entrants", include_str!("../migrations/0002_arena_entrants.sql")),
    (3, "arena_ladders", include_str!("../migrations/0003_arena_ladders.sql")),
    (4, "arena_fairness", include_str!("../migrations/0004_arena_fairness.sql")),
    (6, "arena_workers", include_str!("../migrations/0006_arena_workers.sql")),
];

/// An HTTP worker as the organiser sees it (never the token: only its hash is stored),
/// with what the server saw of its reports.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct WorkerRow {
    pub name: String,
    pub created_ms: i64,
    pub revoked: bool,
    /// The host it last said it runs on.
    pub host: Option<String>,
    /// When it last called the server (Unix milliseconds): its last heartbeat.
    pub last_seen_ms: Option<i64>,
    /// Its games stored.
    pub games: i64,
    /// Of those, the games that ended by a fault of side 0 and of side 1.
    pub faults: [i64; 2],
    /// Its records the server's check refused, and why the last one was.
    pub refused: i64,
    pub last_refusal: Option<String>,
    /// The moves of its stored games and their time (ms), summed.
    pub moves: i64,
    pub move_ms: i64,
}

/// What the server saw of one report of a worker's, added to its figures.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WorkerReport {
    /// A game stored: the side at fault, if any, and its moves and their time (ms).
    pub stored: Option<(Option<usize>, i64, i64)>,
    /// A record refused, and why.
    pub refused: Option<String>,
}

/// An entrant as the organiser sees it (never the token: only its hash is stored).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct EntrantRow {
    pub name: String,
    pub created_ms: i64,
    pub revoked: bool,
}

/// A ladder's settings.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct LadderRow {
    pub id: i64,
    pub game: String,
    /// JSON object of the game's options.
    pub options: String,
    /// JSON array of the bosses' names, weakest first.
    pub bosses: String,
    pub frozen: bool,
    pub created_ms: i64,
}

/// One player of a ladder: a boss (version 0) or a version of a registered bot.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct LadderPlayer {
    pub bot: String,
    pub version: i64,
    pub entrant: Option<String>,
    pub boss: bool,
    pub active: bool,
    pub rating: f64,
    pub uncertainty: f64,
    pub games: i64,
    pub wins: i64,
    pub draws: i64,
    pub losses: i64,
    /// Its games in a row that ended by its fault.
    pub fault_streak: i64,
    /// Why it was paused ("crash: exited with status 1"), when its faults in a row paused
    /// it: it is not paired until a new version of the bot enters.
    pub paused: Option<String>,
}

/// One finished ladder game.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct LadderGame {
    pub ladder: i64,
    pub number: i64,
    pub game_id: String,
    pub players: [(String, i64); 2],
    pub winner: Option<i64>,
    pub fault_side: Option<i64>,
    pub fault: Option<String>,
    pub finished_ms: i64,
}

/// A point of a rating chart.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct RatingPoint {
    pub ladder: i64,
    pub version: i64,
    pub number: i64,
    pub rating: f64,
    pub uncertainty: f64,
    pub at_ms: i64,
}

/// A finished ladder game to record, with both players' ratings after it.
#[derive(Clone, Debug, PartialEq)]
pub struct LadderResult {
    pub game_id: String,
    pub players: [(String, i64); 2],
    pub winner: Option<usize>,
    pub fault: Option<(usize, String)>,
    /// The fault's detail for people, kept as the reason when it pauses the player.
    pub fault_detail: Option<String>,
    pub ratings: [(f64, f64); 2],
    /// A player whose faults in a row reach this many is paused.
    pub pause_after: i64,
}

/// The arena database.
#[derive(Clone, Debug)]
pub struct ArenaStore {
    pool: SqlitePool,
    file: String,
}

impl ArenaStore {
    /// Opens the file, creating it if missing, and brings its schema up to date.
    pub async fn open(path: &Path) -> Result<ArenaStore, StoreError> {
        let file = path.display().to_string();
        let pool = crate::open_sqlite(path, &file).await?;
        crate::migrator(ARENA_MIGRATIONS).run(&pool).await.map_err(|source| crate::migrate_error(&file, source))?;
        Ok(ArenaStore { pool, file })
    }

    pub async fn close(&self) {
        self.pool.close().await;
    }

    /// Rows made into values by `decode`, any failure named by `action`.
    fn decode<T>(
        &self,
        action: &'static str,
        rows: &[sqlx::sqlite::SqliteRow],
        decode: impl Fn(&sqlx::sqlite::SqliteRow) -> Result<T, sqlx::Error>,
    ) -> Result<Vec<T>, StoreError> {
        rows.iter().map(decode).collect::<Result<_, _>>().map_err(self.error(action))
    }

    fn error(&self, action: &'static str) -> impl Fn(sqlx::Error) -> StoreError + '_ {
        move |source| StoreError::Query { file: self.file.clone(), action, source }
    }

    /// Adds an entrant; `false` if the name is taken (nothing changes then).
    pub async fn add_entrant(&self, name: &str, token_hash: &str) -> Result<bool, StoreError> {
        self.add_entrants(&[(name.to_string(), token_hash.to_string())]).await
    }

    /// Adds several entrants at once, or none: `false` if a name is taken (nothing
    /// changes then).
    pub async fn add_entrants(&self, entrants: &[(String, String)]) -> Result<bool, StoreError> {
        let action = "add entrants";
        let mut tx = self.pool.begin().await.map_err(self.error(action))?;
        let now = now_ms();
        for (name, token_hash) in entrants {
            let done = sqlx::query("INSERT INTO arena_entrants (name, token_hash, created_ms) VALUES (?, ?, ?) ON CONFLICT DO NOTHING")
                .bind(name)
                .bind(token_hash)
                .bind(now)
                .execute(&mut *tx)
                .await
                .map_err(self.error(action))?;
            if done.rows_affected() != 1 {
                return Ok(false);
            }
        }
        tx.commit().await.map_err(self.error(action))?;
        Ok(true)
    }

    /// Every entrant, by name.
    pub async fn entrants(&self) -> Result<Vec<EntrantRow>, StoreError> {
        let rows = sqlx::query("SELECT name, created_ms, revoked_ms FROM arena_entrants ORDER BY name")
            .fetch_all(&self.pool)
            .await
            .map_err(self.error("read the entrants"))?;
        self.decode("read the entrants", &rows, |row| {
            Ok(EntrantRow {
                name: row.try_get("name")?,
                created_ms: row.try_get("created_ms")?,
                revoked: row.try_get::<Option<i64>, _>("revoked_ms")?.is_some(),
            })
        })
    }

    /// The entrant whose working (not revoked) token has this hash.
    pub async fn entrant_by_token(&self, token_hash: &str) -> Result<Option<String>, StoreError> {
        sqlx::query_scalar("SELECT name FROM arena_entrants WHERE token_hash = ? AND revoked_ms IS NULL")
            .bind(token_hash)
            .fetch_optional(&self.pool)
            .await
            .map_err(self.error("check a token"))
    }

    /// Revokes an entrant's token; `false` if there is no such entrant.
    pub async fn revoke(&self, name: &str) -> Result<bool, StoreError> {
        let done = sqlx::query("UPDATE arena_entrants SET revoked_ms = coalesce(revoked_ms, ?) WHERE name = ?")
            .bind(now_ms())
            .bind(name)
            .execute(&self.pool)
            .await
            .map_err(self.error("revoke a token"))?;
        Ok(done.rows_affected() == 1)
    }

    /// Gives an entrant a new token (the old one stops working); `false` if there is no
    /// such entrant.
    pub async fn reissue(&self, name: &str, token_hash: &str) -> Result<bool, StoreError> {
        let done = sqlx::query("UPDATE arena_entrants SET token_hash = ?, revoked_ms = NULL WHERE name = ?")
            .bind(token_hash)
            .bind(name)
            .execute(&self.pool)
            .await
            .map_err(self.error("reissue a token"))?;
        Ok(done.rows_affected() == 1)
    }

    /// Adds an HTTP worker; `false` if the name is taken (nothing changes then).
    pub async fn add_worker(&self, name: &str, token_hash: &str) -> Result<bool, StoreError> {
        let done = sqlx::query("INSERT INTO arena_workers (name, token_hash, created_ms) VALUES (?, ?, ?) ON CONFLICT DO NOTHING")
            .bind(name)
            .bind(token_hash)
            .bind(now_ms())
            .execute(&self.pool)
            .await
            .map_err(self.error("add a worker"))?;
        Ok(done.rows_affected() == 1)
    }

    /// Every HTTP worker, by name.
    pub async fn workers(&self) -> Result<Vec<WorkerRow>, StoreError> {
        let rows = sqlx::query(
            "SELECT name, created_ms, revoked_ms, host, last_seen_ms, games, faults0, faults1, refused, last_refusal, moves, move_ms \
             FROM arena_workers ORDER BY name",
        )
        .fetch_all(&self.pool)
        .await
        .map_err(self.error("read the workers"))?;
        self.decode("read the workers", &rows, |row| {
            Ok(WorkerRow {
                name: row.try_get("name")?,
                created_ms: row.try_get("created_ms")?,
                revoked: row.try_get::<Option<i64>, _>("revoked_ms")?.is_some(),
                host: row.try_get("host")?,
                last_seen_ms: row.try_get("last_seen_ms")?,
                games: row.try_get("games")?,
                faults: [row.try_get("faults0")?, row.try_get("faults1")?],
                refused: row.try_get("refused")?,
                last_refusal: row.try_get("last_refusal")?,
                moves: row.try_get("moves")?,
                move_ms: row.try_get("move_ms")?,
            })
        })
    }

    /// The HTTP worker whose working (not revoked) token has this hash.
    pub async fn worker_by_token(&self, token_hash: &str) -> Result<Option<String>, StoreError> {
        sqlx::query_scalar("SELECT name FROM arena_workers WHERE token_hash = ? AND revoked_ms IS NULL")
            .bind(token_hash)
            .fetch_optional(&self.pool)
            .await
            .map_err(self.error("check a worker's token"))
    }

    /// Revokes an HTTP worker's token; `false` if there is no such worker.
    pub async fn revoke_worker(&self, name: &str) -> Result<bool, StoreError> {
        let done = sqlx::query("UPDATE arena_workers SET revoked_ms = coalesce(revoked_ms, ?) WHERE name = ?")
            .bind(now_ms())
            .bind(name)
            .execute(&self.pool)
            .await
            .map_err(self.error("revoke a worker's token"))?;
        Ok(done.rows_affected() == 1)
    }

    /// Notes that a worker called now (from `host`, when it says).
    pub async fn worker_seen(&self, name: &str, host: Option<&str>) -> Result<(), StoreError> {
        sqlx::query("UPDATE arena_workers SET last_seen_ms = ?, host = coalesce(?, host) WHERE name = ?")
            .bind(now_ms())
            .bind(host)
            .bind(name)
            .execute(&self.pool)
            .await
            .map_err(self.error("note a worker's call"))?;
        Ok(())
    }

    /// Adds a report to a worker's figures.
    pub async fn count_report(&self, name: &str, report: &WorkerReport) -> Result<(), StoreError> {
        let (games, fault, moves, move_ms) = match report.stored {
            Some((fault, moves, ms)) => (1, fault, moves, ms),
            None => (0, None, 0, 0),
        };
        sqlx::query(
            "UPDATE arena_workers SET games = games + ?, faults0 = faults0 + ?, faults1 = faults1 + ?, \
             refused = refused + ?, last_refusal = coalesce(?, last_refusal), moves = moves + ?, move_ms = move_ms + ? WHERE name = ?",
        )
        .bind(games)
        .bind(i64::from(fault == Some(0)))
        .bind(i64::from(fault == Some(1)))
        .bind(i64::from(report.refused.is_some()))
        .bind(report.refused.as_deref())
        .bind(moves)
        .bind(move_ms)
        .bind(name)
        .execute(&self.pool)
        .await
        .map_err(self.error("count a worker's report"))?;
        Ok(())
    }

    /// The owner of a registered bot, if an entrant uploaded it.
    pub async fn owner(&self, game: &str, bot: &str) -> Result<Option<String>, StoreError> {
        sqlx::query_scalar("SELECT entrant FROM arena_bots WHERE game = ? AND name = ?")
            .bind(game)
            .bind(bot)
            .fetch_optional(&self.pool)
            .await
            .map_err(self.error("read a bot's owner"))
    }

    /// Every owned bot: (game, bot, entrant).
    pub async fn owners(&self) -> Result<Vec<(String, String, String)>, StoreError> {
        sqlx::query_as("SELECT game, name, entrant FROM arena_bots ORDER BY game, name")
            .fetch_all(&self.pool)
            .await
            .map_err(self.error("read the bots' owners"))
    }

    /// Makes `entrant` the owner of a bot nobody owns yet; the owner afterwards (another
    /// entrant if one got there first).
    pub async fn claim(&self, game: &str, bot: &str, entrant: &str) -> Result<String, StoreError> {
        sqlx::query("INSERT INTO arena_bots (game, name, entrant) VALUES (?, ?, ?) ON CONFLICT DO NOTHING")
            .bind(game)
            .bind(bot)
            .bind(entrant)
            .execute(&self.pool)
            .await
            .map_err(self.error("claim a bot"))?;
        Ok(self.owner(game, bot).await?.unwrap_or_default())
    }

    /// Gives up a claim (an upload that stored nothing).
    pub async fn unclaim(&self, game: &str, bot: &str, entrant: &str) -> Result<(), StoreError> {
        sqlx::query("DELETE FROM arena_bots WHERE game = ? AND name = ? AND entrant = ?")
            .bind(game)
            .bind(bot)
            .bind(entrant)
            .execute(&self.pool)
            .await
            .map_err(self.error("give up a claim"))?;
        Ok(())
    }

    /// Makes a ladder; its id.
    pub async fn add_ladder(&self, game: &str, options_json: &str, bosses: &[(String, f64, f64)]) -> Result<i64, StoreError> {
        let action = "make a ladder";
        let names: Vec<&str> = bosses.iter().map(|(name, _, _)| name.as_str()).collect();
        let names = serde_json::to_string(&names).expect("names serialise");
        let mut tx = self.pool.begin().await.map_err(self.error(action))?;
        let id: i64 =
            sqlx::query_scalar("INSERT INTO ladders (game, options, bosses, frozen, created_ms) VALUES (?, ?, ?, 0, ?) RETURNING id")
                .bind(game)
                .bind(options_json)
                .bind(&names)
                .bind(now_ms())
                .fetch_one(&mut *tx)
                .await
                .map_err(self.error(action))?;
        for (name, rating, uncertainty) in bosses {
            insert_player(&mut tx, id, name, 0, None, true, *rating, *uncertainty).await.map_err(self.error(action))?;
        }
        tx.commit().await.map_err(self.error(action))?;
        Ok(id)
    }

    pub async fn ladders(&self) -> Result<Vec<LadderRow>, StoreError> {
        let rows = sqlx::query("SELECT id, game, options, bosses, frozen, created_ms FROM ladders ORDER BY id")
            .fetch_all(&self.pool)
            .await
            .map_err(self.error("read the ladders"))?;
        self.decode("read the ladders", &rows, |row| {
            Ok(LadderRow {
                id: row.try_get("id")?,
                game: row.try_get("game")?,
                options: row.try_get("options")?,
                bosses: row.try_get("bosses")?,
                frozen: row.try_get::<i64, _>("frozen")? != 0,
                created_ms: row.try_get("created_ms")?,
            })
        })
    }

    pub async fn set_frozen(&self, ladder: i64, frozen: bool) -> Result<(), StoreError> {
        sqlx::query("UPDATE ladders SET frozen = ? WHERE id = ?")
            .bind(i64::from(frozen))
            .bind(ladder)
            .execute(&self.pool)
            .await
            .map_err(self.error("freeze a ladder"))?;
        Ok(())
    }

    /// Makes `version` the bot's active player in the ladder (a new player with the
    /// given start rating if it has none) and retires its other versions.
    pub async fn enter_version(
        &self,
        ladder: i64,
        bot: &str,
        version: i64,
        entrant: Option<&str>,
        start: (f64, f64),
    ) -> Result<(), StoreError> {
        let action = "enter a bot into a ladder";
        let mut tx = self.pool.begin().await.map_err(self.error(action))?;
        sqlx::query("UPDATE ladder_players SET active = 0 WHERE ladder = ? AND bot = ? AND boss = 0 AND version <> ?")
            .bind(ladder)
            .bind(bot)
            .bind(version)
            .execute(&mut *tx)
            .await
            .map_err(self.error(action))?;
        insert_player(&mut tx, ladder, bot, version, entrant, false, start.0, start.1).await.map_err(self.error(action))?;
        tx.commit().await.map_err(self.error(action))
    }

    /// The players of a ladder (all versions), best rating first.
    pub async fn players(&self, ladder: i64) -> Result<Vec<LadderPlayer>, StoreError> {
        let rows = sqlx::query(
            "SELECT bot, version, entrant, boss, active, rating, uncertainty, games, wins, draws, losses, fault_streak, \
             paused_ms, paused_fault FROM ladder_players WHERE ladder = ? ORDER BY rating DESC, bot, version",
        )
        .bind(ladder)
        .fetch_all(&self.pool)
        .await
        .map_err(self.error("read a ladder's players"))?;
        self.decode("read a ladder's players", &rows, |row| {
            Ok(LadderPlayer {
                bot: row.try_get("bot")?,
                version: row.try_get("version")?,
                entrant: row.try_get("entrant")?,
                boss: row.try_get::<i64, _>("boss")? != 0,
                active: row.try_get::<i64, _>("active")? != 0,
                rating: row.try_get("rating")?,
                uncertainty: row.try_get("uncertainty")?,
                games: row.try_get("games")?,
                wins: row.try_get("wins")?,
                draws: row.try_get("draws")?,
                losses: row.try_get("losses")?,
                fault_streak: row.try_get("fault_streak")?,
                paused: match row.try_get::<Option<i64>, _>("paused_ms")? {
                    Some(_) => Some(row.try_get::<Option<String>, _>("paused_fault")?.unwrap_or_default()),
                    None => None,
                },
            })
        })
    }

    /// Records a finished game: the game, both players' new ratings and counts, and
    /// their history points, in one transaction. Its number in the ladder.
    pub async fn record_game(&self, ladder: i64, result: &LadderResult) -> Result<i64, StoreError> {
        let action = "record a ladder game";
        let now = now_ms();
        let mut tx = self.pool.begin().await.map_err(self.error(action))?;
        let number: i64 = sqlx::query_scalar("SELECT coalesce(max(number), 0) + 1 FROM ladder_games WHERE ladder = ?")
            .bind(ladder)
            .fetch_one(&mut *tx)
            .await
            .map_err(self.error(action))?;
        sqlx::query(
            "INSERT INTO ladder_games (ladder, number, game_id, bot0, version0, bot1, version1, winner, fault_side, fault, finished_ms) \
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(ladder)
        .bind(number)
        .bind(&result.game_id)
        .bind(&result.players[0].0)
        .bind(result.players[0].1)
        .bind(&result.players[1].0)
        .bind(result.players[1].1)
        .bind(result.winner.map(|w| w as i64))
        .bind(result.fault.as_ref().map(|(side, _)| *side as i64))
        .bind(result.fault.as_ref().map(|(_, kind)| kind.as_str()))
        .bind(now)
        .execute(&mut *tx)
        .await
        .map_err(self.error(action))?;
        for side in 0..2 {
            let (bot, version) = &result.players[side];
            let (win, draw, loss) = match result.winner {
                Some(w) if w == side => (1, 0, 0),
                Some(_) => (0, 0, 1),
                None => (0, 1, 0),
            };
            let (rating, uncertainty) = result.ratings[side];
            // Its faults in a row; at `pause_after` the player is paused (a boss never is).
            let faulted = result.fault.as_ref().is_some_and(|(s, _)| *s == side);
            let reason = result.fault.as_ref().map(|(_, kind)| match &result.fault_detail {
                Some(detail) => format!("{kind}: {detail}"),
                None => kind.clone(),
            });
            sqlx::query(
                "UPDATE ladder_players SET rating = ?, uncertainty = ?, games = games + 1, wins = wins + ?, draws = draws + ?, \
                 losses = losses + ?, fault_streak = CASE WHEN ? THEN fault_streak + 1 ELSE 0 END, \
                 paused_ms = CASE WHEN ? AND boss = 0 AND fault_streak + 1 >= ? AND paused_ms IS NULL THEN ? ELSE paused_ms END, \
                 paused_fault = CASE WHEN ? AND boss = 0 AND fault_streak + 1 >= ? AND paused_ms IS NULL THEN ? ELSE paused_fault END \
                 WHERE ladder = ? AND bot = ? AND version = ?",
            )
            .bind(rating)
            .bind(uncertainty)
            .bind(win)
            .bind(draw)
            .bind(loss)
            .bind(faulted)
            .bind(faulted)
            .bind(result.pause_after)
            .bind(now)
            .bind(faulted)
            .bind(result.pause_after)
            .bind(&reason)
            .bind(ladder)
            .bind(bot)
            .bind(version)
            .execute(&mut *tx)
            .await
            .map_err(self.error(action))?;
            sqlx::query(
                "INSERT INTO ladder_history (ladder, bot, version, number, rating, uncertainty, at_ms) VALUES (?, ?, ?, ?, ?, ?, ?)",
            )
            .bind(ladder)
            .bind(bot)
            .bind(version)
            .bind(number)
            .bind(rating)
            .bind(uncertainty)
            .bind(now)
            .execute(&mut *tx)
            .await
            .map_err(self.error(action))?;
        }
        tx.commit().await.map_err(self.error(action))?;
        Ok(number)
    }

    /// The ladder games a bot played (any version; boss games by the boss's name), or
    /// all of a ladder's games when `bot` is `None`; newest first, at most `limit`.
    pub async fn games(&self, ladder: Option<i64>, bot: Option<&str>, limit: i64) -> Result<Vec<LadderGame>, StoreError> {
        self.games_before(ladder, bot, None, limit).await
    }

    /// [`ArenaStore::games`] of one ladder, numbered below `before` (a page of an older
    /// part of its list).
    pub async fn games_before(
        &self,
        ladder: Option<i64>,
        bot: Option<&str>,
        before: Option<i64>,
        limit: i64,
    ) -> Result<Vec<LadderGame>, StoreError> {
        let rows = sqlx::query(
            "SELECT ladder, number, game_id, bot0, version0, bot1, version1, winner, fault_side, fault, finished_ms \
             FROM ladder_games WHERE (? IS NULL OR ladder = ?) AND (? IS NULL OR bot0 = ? OR bot1 = ?) AND (? IS NULL OR number < ?) \
             ORDER BY finished_ms DESC, number DESC LIMIT ?",
        )
        .bind(ladder)
        .bind(ladder)
        .bind(bot)
        .bind(bot)
        .bind(bot)
        .bind(before)
        .bind(before)
        .bind(limit)
        .fetch_all(&self.pool)
        .await
        .map_err(self.error("read ladder games"))?;
        self.decode("read ladder games", &rows, |row| {
            Ok(LadderGame {
                ladder: row.try_get("ladder")?,
                number: row.try_get("number")?,
                game_id: row.try_get("game_id")?,
                players: [(row.try_get("bot0")?, row.try_get("version0")?), (row.try_get("bot1")?, row.try_get("version1")?)],
                winner: row.try_get("winner")?,
                fault_side: row.try_get("fault_side")?,
                fault: row.try_get("fault")?,
                finished_ms: row.try_get("finished_ms")?,
            })
        })
    }

    /// A bot's rating after each of its ladder games (every version), oldest first.
    pub async fn history(&self, bot: &str) -> Result<Vec<RatingPoint>, StoreError> {
        let rows = sqlx::query(
            "SELECT ladder, version, number, rating, uncertainty, at_ms FROM ladder_history \
             WHERE bot = ? AND version > 0 ORDER BY ladder, number",
        )
        .bind(bot)
        .fetch_all(&self.pool)
        .await
        .map_err(self.error("read a rating history"))?;
        self.decode("read a rating history", &rows, |row| {
            Ok(RatingPoint {
                ladder: row.try_get("ladder")?,
                version: row.try_get("version")?,
                number: row.try_get("number")?,
                rating: row.try_get("rating")?,
                uncertainty: row.try_get("uncertainty")?,
                at_ms: row.try_get("at_ms")?,
            })
        })
    }
}

#[allow(clippy::too_many_arguments)]
async fn insert_player(
    tx: &mut sqlx::SqliteConnection,
    ladder: i64,
    bot: &str,
    version: i64,
    entrant: Option<&str>,
    boss: bool,
    rating: f64,
    uncertainty: f64,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO ladder_players (ladder, bot, version, entrant, boss, active, rating, uncertainty, joined_ms) \
         VALUES (?, ?, ?, ?, ?, 1, ?, ?, ?) ON CONFLICT (ladder, bot, version) DO UPDATE SET active = 1",
    )
    .bind(ladder)
    .bind(bot)
    .bind(version)
    .bind(entrant)
    .bind(i64::from(boss))
    .bind(rating)
    .bind(uncertainty)
    .bind(now_ms())
    .execute(&mut *tx)
    .await?;
    Ok(())
}
