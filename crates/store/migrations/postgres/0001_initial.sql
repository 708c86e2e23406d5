-- The tournament results database on PostgreSQL: one tournament per database (or per
-- schema, chosen by the URL's search_path), the same tables as the SQLite file's
-- (0001_initial.sql beside this folder) with PostgreSQL's types, and the tables that let
-- workers on many machines share the games: the queue of leased games, the workers,
-- the settings the tournament was created with, and the bot programs.
--
-- `rowid` columns stand in for SQLite's implicit rowid: storage order, which reads use.

CREATE TABLE tournament (
    id          BIGINT PRIMARY KEY CHECK (id = 1),
    name        TEXT   NOT NULL,
    config_text TEXT   NOT NULL,
    config_hash TEXT   NOT NULL,
    created_ms  BIGINT NOT NULL
);

CREATE TABLE entrants (
    id        BIGINT PRIMARY KEY,
    name      TEXT   NOT NULL UNIQUE,
    bot       TEXT   NOT NULL,
    submitted TEXT
);

CREATE TABLE fingerprints (
    stage   BIGINT NOT NULL,
    entrant BIGINT NOT NULL REFERENCES entrants (id),
    sha256  TEXT,
    PRIMARY KEY (stage, entrant)
);

-- A worker as it introduced itself when it joined.
CREATE TABLE workers (
    id         TEXT   PRIMARY KEY,
    host       TEXT   NOT NULL,
    pid        BIGINT NOT NULL,
    version    TEXT   NOT NULL,
    sandbox    TEXT   NOT NULL,
    started_ms BIGINT NOT NULL
);

CREATE TABLE games (
    rowid       BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
    key         TEXT   PRIMARY KEY,
    stage       BIGINT NOT NULL,
    round       BIGINT NOT NULL,
    match_key   TEXT   NOT NULL,
    player0     BIGINT NOT NULL REFERENCES entrants (id),
    player1     BIGINT NOT NULL REFERENCES entrants (id),
    opening     BIGINT,
    seed        TEXT   NOT NULL,
    winner      BIGINT CHECK (winner IN (0, 1)),
    score0      BIGINT,
    score1      BIGINT,
    fault_side  BIGINT CHECK (fault_side IN (0, 1)),
    fault_kind  TEXT,
    moves0      BIGINT NOT NULL,
    moves1      BIGINT NOT NULL,
    time_ms0    BIGINT NOT NULL,
    time_ms1    BIGINT NOT NULL,
    outcome     TEXT   NOT NULL,
    stored_ms   BIGINT NOT NULL
);
CREATE INDEX games_by_stage ON games (stage, round);
CREATE INDEX games_by_match ON games (match_key);

CREATE TABLE game_records (
    key    TEXT PRIMARY KEY REFERENCES games (key),
    record TEXT NOT NULL
);

CREATE TABLE stage_results (
    stage  BIGINT PRIMARY KEY,
    result TEXT   NOT NULL
);

CREATE TABLE notes (
    rowid     BIGINT GENERATED ALWAYS AS IDENTITY,
    stage     BIGINT NOT NULL,
    entrant   BIGINT REFERENCES entrants (id),
    text      TEXT   NOT NULL,
    stored_ms BIGINT NOT NULL
);
CREATE UNIQUE INDEX notes_once ON notes (stage, coalesce(entrant, -1), text);

-- The games the schedules asked for, each leased to one worker at a time. A lease is
-- the holder's id, an attempt number (raised by every claim) and an expiry in the
-- database's clock; only the holder of the current, unexpired attempt stores the game
-- (`done` and the `games` row commit together); a done row names who played the game.
CREATE TABLE queue (
    seq         BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
    key         TEXT    PRIMARY KEY,
    stage       BIGINT  NOT NULL,
    spec        TEXT    NOT NULL,
    attempt     BIGINT  NOT NULL DEFAULT 0,
    worker      TEXT    REFERENCES workers (id),
    lease_until TIMESTAMPTZ,
    done        BOOLEAN NOT NULL DEFAULT FALSE
);
CREATE INDEX queue_open ON queue (seq) WHERE NOT done;

-- What the tournament was created with, for workers that have nothing but the URL.
CREATE TABLE settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
