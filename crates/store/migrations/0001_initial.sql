-- The tournament results database: one tournament per file.
-- Every finished game is one row in `games` and one in `game_records`, written in one
-- transaction; rows are never updated or deleted, so rowid order is storage order.

-- The tournament this file belongs to (exactly one row, id 1).
CREATE TABLE tournament (
    id          INTEGER PRIMARY KEY CHECK (id = 1),
    name        TEXT    NOT NULL,
    config_text TEXT    NOT NULL,
    config_hash TEXT    NOT NULL,
    created_ms  INTEGER NOT NULL
);

-- The entrants, by their index in the config's entrant list.
CREATE TABLE entrants (
    id        INTEGER PRIMARY KEY,
    name      TEXT    NOT NULL UNIQUE,
    bot       TEXT    NOT NULL,
    submitted TEXT
);

-- SHA-256 of each entrant's program when a stage started (NULL for built-in bots).
CREATE TABLE fingerprints (
    stage   INTEGER NOT NULL,
    entrant INTEGER NOT NULL REFERENCES entrants (id),
    sha256  TEXT,
    PRIMARY KEY (stage, entrant)
);

-- Finished games: the outcome as columns for queries, and as JSON for exact round trips.
CREATE TABLE games (
    key         TEXT    PRIMARY KEY,
    stage       INTEGER NOT NULL,
    round       INTEGER NOT NULL,
    match_key   TEXT    NOT NULL,
    player0     INTEGER NOT NULL REFERENCES entrants (id),
    player1     INTEGER NOT NULL REFERENCES entrants (id),
    opening     INTEGER,
    -- A u64 in decimal: SQLite integers are signed 64-bit.
    seed        TEXT    NOT NULL,
    -- The winning side (0 or 1), NULL for a draw.
    winner      INTEGER CHECK (winner IN (0, 1)),
    score0      INTEGER,
    score1      INTEGER,
    fault_side  INTEGER CHECK (fault_side IN (0, 1)),
    fault_kind  TEXT,
    moves0      INTEGER NOT NULL,
    moves1      INTEGER NOT NULL,
    time_ms0    INTEGER NOT NULL,
    time_ms1    INTEGER NOT NULL,
    outcome     TEXT    NOT NULL,
    stored_ms   INTEGER NOT NULL
);
CREATE INDEX games_by_stage ON games (stage, round);
CREATE INDEX games_by_match ON games (match_key);

-- The referee's record of each finished game (JSON), apart from `games` so that reading
-- every outcome does not read every record.
CREATE TABLE game_records (
    key    TEXT PRIMARY KEY REFERENCES games (key),
    record TEXT NOT NULL
);

-- A stage's result (ranking and the like) as JSON from the runner, once it is decided.
CREATE TABLE stage_results (
    stage  INTEGER PRIMARY KEY,
    result TEXT    NOT NULL
);

-- Remarks for the organiser: entry-check failures, refused changed bots, degraded runs.
CREATE TABLE notes (
    stage     INTEGER NOT NULL,
    entrant   INTEGER REFERENCES entrants (id),
    text      TEXT    NOT NULL,
    stored_ms INTEGER NOT NULL
);
-- A note saved again on resume is not repeated.
CREATE UNIQUE INDEX notes_once ON notes (stage, coalesce(entrant, -1), text);
